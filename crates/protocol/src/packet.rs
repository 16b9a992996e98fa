//! Packet framing: every payload travels as `length u24 LE, sequence id u8, payload`.
//!
//! A payload of `MAX_PACKET_CHUNK` (2^24 - 1) bytes or more is split into chunks of exactly that
//! size followed by a shorter (possibly empty) final chunk; the reader joins them back. Sequence
//! ids count up (mod 256) across all packets of one exchange and restart at 0 with every command,
//! so a mismatch means the peers disagree about the conversation and the connection must close.
//!
//! Both directions keep one buffer per connection that is reused for every packet, so the
//! steady-state path allocates nothing. Buffers that a large packet grew are shrunk back to
//! `INITIAL_BUFFER` once idle, so thousands of idle connections stay cheap.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::constants::MAX_PACKET_CHUNK;
use crate::error::{ProtocolError, Result};

/// Bytes of the packet header.
pub const HEADER_LEN: usize = 4;
/// Buffer size a new (or idle) connection starts with, in each direction.
pub const INITIAL_BUFFER: usize = 4 * 1024;
/// An idle buffer larger than this is given back to the allocator.
pub const SHRINK_ABOVE: usize = 16 * 1024;
/// The protocol's upper bound for max_allowed_packet (1 GiB, as in MariaDB).
pub const MAX_ALLOWED_PACKET_LIMIT: u64 = 1 << 30;

/// Reads packets from a byte stream, joining multi-chunk payloads and checking sequence ids.
pub struct PacketReader<R> {
    inner: R,
    /// `buf[head..tail]` holds received bytes not yet returned as packets. The whole `buf` is
    /// initialized (zero-filled on growth) so it can be read into without unsafe code.
    buf: Vec<u8>,
    head: usize,
    tail: usize,
    /// Sequence id the next packet must carry.
    seq: u8,
    /// Largest joined payload accepted (`max_allowed_packet`).
    max_payload: u64,
    bytes_read: u64,
    /// After `PacketTooLarge`: where the refused chunk's header lies (offset from `head`) and
    /// the sequence id it carries, for `skip_refused_packet`.
    refused: Option<(usize, u8)>,
}

impl<R: AsyncRead + Unpin> PacketReader<R> {
    pub fn new(inner: R, max_payload: u64) -> PacketReader<R> {
        assert!(max_payload > 0 && max_payload <= MAX_ALLOWED_PACKET_LIMIT, "max_payload out of range");
        PacketReader {
            inner,
            buf: vec![0; INITIAL_BUFFER],
            head: 0,
            tail: 0,
            seq: 0,
            max_payload,
            bytes_read: 0,
            refused: None,
        }
    }

    /// Expect sequence id 0 next (start of a command).
    pub fn reset_sequence(&mut self) {
        self.seq = 0;
    }

    pub fn set_sequence(&mut self, seq: u8) {
        self.seq = seq;
    }

    /// The sequence id the next packet must carry.
    pub fn sequence(&self) -> u8 {
        self.seq
    }

    pub fn set_max_payload(&mut self, max_payload: u64) {
        assert!(max_payload > 0 && max_payload <= MAX_ALLOWED_PACKET_LIMIT, "max_payload out of range");
        self.max_payload = max_payload;
    }

    pub fn max_payload(&self) -> u64 {
        self.max_payload
    }

    /// Total bytes received from the stream.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// True if bytes of a further packet were already received (pipelined commands).
    pub fn has_buffered_data(&self) -> bool {
        self.tail > self.head
    }

    /// True if a whole further packet (at least its first chunk) is already buffered, so the
    /// next `read_packet` will not wait for the peer.
    pub fn has_buffered_packet(&self) -> bool {
        let avail = self.tail - self.head;
        if avail < HEADER_LEN {
            return false;
        }
        let h = self.head;
        let len = u32::from_le_bytes([self.buf[h], self.buf[h + 1], self.buf[h + 2], 0]) as usize;
        avail >= HEADER_LEN + len
    }

    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Returns memory a large packet made the buffer grow by, once nothing is buffered.
    pub fn shrink_buffer(&mut self) {
        if self.buf.len() > SHRINK_ABOVE && !self.has_buffered_data() {
            self.buf = vec![0; INITIAL_BUFFER];
            self.head = 0;
            self.tail = 0;
        }
    }

    /// Reads the next logical packet and returns its payload.
    ///
    /// Cancel safe: if the future is dropped before completion, bytes already received stay
    /// buffered and the expected sequence id is unchanged, so a later call resumes cleanly.
    /// After an error the stream position is undefined; the caller must close the connection.
    pub async fn read_packet(&mut self) -> Result<&[u8]> {
        self.read_packet_and_sequence().await.map(|(payload, _)| payload)
    }

    /// Like `read_packet`, also returning the sequence id that follows the packet (the id the
    /// answer to it must start with), which callers cannot ask for while the payload is borrowed.
    pub async fn read_packet_and_sequence(&mut self) -> Result<(&[u8], u8)> {
        // Offsets are relative to `head`, which compaction may move.
        let mut raw = 0usize; // bytes of this message consumed so far (headers + chunks)
        let mut payload_len = 0usize; // joined payload bytes, stored at head+4 ..
        let mut seq = self.seq;
        loop {
            self.fill_to(raw + HEADER_LEN, raw == 0).await?;
            let h = self.head + raw;
            let chunk_len = u32::from_le_bytes([self.buf[h], self.buf[h + 1], self.buf[h + 2], 0]) as usize;
            let got_seq = self.buf[h + 3];
            if got_seq != seq {
                return Err(ProtocolError::OutOfOrder { expected: seq, got: got_seq });
            }
            seq = seq.wrapping_add(1);
            let total = (payload_len + chunk_len) as u64;
            if total > self.max_payload {
                self.refused = Some((raw, got_seq));
                return Err(ProtocolError::PacketTooLarge { size: total, max: self.max_payload });
            }
            self.fill_to(raw + HEADER_LEN + chunk_len, false).await?;
            if raw > 0 {
                // Join: move this chunk over its own header (and earlier headers' gaps) so the
                // payload is contiguous after the first header.
                let src = self.head + raw + HEADER_LEN;
                let dst = self.head + HEADER_LEN + payload_len;
                self.buf.copy_within(src..src + chunk_len, dst);
            }
            raw += HEADER_LEN + chunk_len;
            payload_len += chunk_len;
            if chunk_len < MAX_PACKET_CHUNK {
                break;
            }
        }
        let start = self.head + HEADER_LEN;
        self.seq = seq;
        self.head += raw;
        debug_assert!(self.head <= self.tail);
        if self.head == self.tail {
            // Nothing else buffered: the next packet can start at offset 0 (no compaction).
            self.head = 0;
            self.tail = 0;
        }
        Ok((&self.buf[start..start + payload_len], seq))
    }

    /// After `PacketTooLarge`: reads the rest of the refused packet and throws it away, without
    /// buffering it and at most `max_bytes` of it, and returns the sequence id an answer to it
    /// must carry (the one after its last chunk). A client that sent every chunk before reading
    /// checks that id: the ERR then reaches it as an error, not as a broken stream.
    pub async fn skip_refused_packet(&mut self, max_bytes: u64) -> Result<u8> {
        let Some((at, mut seq)) = self.refused.take() else {
            return Err(ProtocolError::Malformed("no refused packet to skip".into()));
        };
        // Earlier chunks were joined in place: only the refused chunk's header is where it was.
        self.head += at;
        let mut skipped = 0u64;
        loop {
            self.fill_to(HEADER_LEN, false).await?;
            let h = self.head;
            let chunk_len = u32::from_le_bytes([self.buf[h], self.buf[h + 1], self.buf[h + 2], 0]) as usize;
            if self.buf[h + 3] != seq {
                return Err(ProtocolError::OutOfOrder { expected: seq, got: self.buf[h + 3] });
            }
            seq = seq.wrapping_add(1);
            skipped += (HEADER_LEN + chunk_len) as u64;
            if skipped > max_bytes {
                return Err(ProtocolError::PacketTooLarge { size: skipped, max: max_bytes });
            }
            self.head += HEADER_LEN;
            self.discard(chunk_len).await?;
            if chunk_len < MAX_PACKET_CHUNK {
                break;
            }
        }
        self.seq = seq;
        Ok(seq)
    }

    /// Consumes `n` bytes, reading them as needed into the buffer as it is.
    async fn discard(&mut self, mut n: usize) -> Result<()> {
        while n > 0 {
            if self.head == self.tail {
                self.head = 0;
                self.tail = 0;
                self.fill_to(1, false).await?;
            }
            let take = n.min(self.tail - self.head);
            self.head += take;
            n -= take;
        }
        Ok(())
    }

    /// Ensures at least `n` bytes are buffered after `head`.
    async fn fill_to(&mut self, n: usize, at_boundary: bool) -> Result<()> {
        while self.tail - self.head < n {
            if self.head + n > self.buf.len() && self.head > 0 {
                self.buf.copy_within(self.head..self.tail, 0);
                self.tail -= self.head;
                self.head = 0;
            }
            if self.tail == self.buf.len() {
                // Grow by doubling toward the need, so memory follows the bytes actually
                // received, not a length a peer merely announced in a header.
                let new_len = self.buf.len().saturating_mul(2).min(self.head + n);
                debug_assert!(new_len > self.tail);
                self.buf.resize(new_len, 0);
            }
            let got = self.inner.read(&mut self.buf[self.tail..]).await?;
            if got == 0 {
                return Err(if at_boundary && self.tail == self.head {
                    ProtocolError::ConnectionClosed
                } else {
                    ProtocolError::Io(io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed inside a packet"))
                });
            }
            self.tail += got;
            self.bytes_read += got as u64;
        }
        Ok(())
    }
}

/// Buffers outgoing packets; `flush` sends everything buffered with as few writes as possible.
pub struct PacketWriter<W> {
    inner: W,
    /// `buf[sent..]` is waiting to be written.
    buf: Vec<u8>,
    sent: usize,
    /// Sequence id of the next packet.
    seq: u8,
    bytes_written: u64,
}

impl<W: AsyncWrite + Unpin> PacketWriter<W> {
    pub fn new(inner: W) -> PacketWriter<W> {
        PacketWriter { inner, buf: Vec::with_capacity(INITIAL_BUFFER), sent: 0, seq: 0, bytes_written: 0 }
    }

    pub fn set_sequence(&mut self, seq: u8) {
        self.seq = seq;
    }

    pub fn sequence(&self) -> u8 {
        self.seq
    }

    /// Total bytes handed to the stream.
    pub fn bytes_written(&self) -> u64 {
        self.bytes_written
    }

    /// Bytes buffered and not yet written.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.sent
    }

    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    pub fn into_inner(self) -> W {
        self.inner
    }

    /// Starts a packet; the payload is appended through the returned builder, and the header is
    /// filled in (and the payload split if needed) when the builder is dropped.
    pub fn begin_packet(&mut self) -> PacketBuilder<'_> {
        let start = self.buf.len();
        self.buf.extend_from_slice(&[0; HEADER_LEN]);
        PacketBuilder { buf: &mut self.buf, seq: &mut self.seq, start }
    }

    /// Buffers one packet with the given payload.
    pub fn write_packet(&mut self, payload: &[u8]) {
        self.begin_packet().extend_from_slice(payload);
    }

    /// Writes everything buffered and waits until the stream accepted it.
    pub async fn flush(&mut self) -> io::Result<()> {
        while self.sent < self.buf.len() {
            let n = self.inner.write(&self.buf[self.sent..]).await?;
            if n == 0 {
                return Err(io::Error::new(io::ErrorKind::WriteZero, "connection closed while writing"));
            }
            self.sent += n;
            self.bytes_written += n as u64;
        }
        self.reset_buffer();
        self.inner.flush().await
    }

    /// Writes as much as the stream accepts right now without waiting. Used while a result set
    /// is being produced by synchronous code that cannot await: large results then stream out
    /// instead of accumulating entirely in memory whenever the client keeps up.
    pub fn try_flush(&mut self) -> io::Result<()> {
        let mut cx = Context::from_waker(Waker::noop());
        while self.sent < self.buf.len() {
            match Pin::new(&mut self.inner).poll_write(&mut cx, &self.buf[self.sent..]) {
                Poll::Ready(Ok(0)) => {
                    return Err(io::Error::new(io::ErrorKind::WriteZero, "connection closed while writing"))
                }
                Poll::Ready(Ok(n)) => {
                    self.sent += n;
                    self.bytes_written += n as u64;
                }
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::WouldBlock => break,
                Poll::Ready(Err(e)) => return Err(e),
                Poll::Pending => break,
            }
        }
        if self.sent == self.buf.len() {
            self.reset_buffer();
        } else if self.sent > self.buf.len() / 2 {
            // Keep the unsent tail at the front so the buffer does not creep forward forever.
            self.buf.drain(..self.sent);
            self.sent = 0;
        }
        Ok(())
    }

    /// Drops everything buffered but not yet written (used when a connection is abandoned).
    pub fn discard_pending(&mut self) {
        self.reset_buffer();
    }

    fn reset_buffer(&mut self) {
        if self.buf.capacity() > SHRINK_ABOVE {
            self.buf = Vec::with_capacity(INITIAL_BUFFER);
        } else {
            self.buf.clear();
        }
        self.sent = 0;
    }

    pub async fn shutdown(&mut self) -> io::Result<()> {
        self.inner.shutdown().await
    }
}

/// An open packet in a `PacketWriter`'s buffer; dereferences to the buffer so encoders append
/// the payload directly. Dropping it finishes the packet.
pub struct PacketBuilder<'a> {
    buf: &'a mut Vec<u8>,
    seq: &'a mut u8,
    /// Offset of this packet's header in `buf`.
    start: usize,
}

impl PacketBuilder<'_> {
    /// Payload bytes written so far.
    pub fn payload_len(&self) -> usize {
        self.buf.len() - self.start - HEADER_LEN
    }
}

impl std::ops::Deref for PacketBuilder<'_> {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        self.buf
    }
}

impl std::ops::DerefMut for PacketBuilder<'_> {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        self.buf
    }
}

impl Drop for PacketBuilder<'_> {
    fn drop(&mut self) {
        assert!(self.buf.len() >= self.start + HEADER_LEN, "packet header was truncated away");
        let len = self.payload_len();
        if len < MAX_PACKET_CHUNK {
            let h = &mut self.buf[self.start..self.start + HEADER_LEN];
            h[..3].copy_from_slice(&(len as u32).to_le_bytes()[..3]);
            h[3] = *self.seq;
            *self.seq = self.seq.wrapping_add(1);
            return;
        }
        // Rare: re-frame a payload of 16 MiB or more as full chunks plus a short (maybe empty)
        // final chunk, which is what tells the reader the payload ended.
        let payload = self.buf.split_off(self.start + HEADER_LEN);
        self.buf.truncate(self.start);
        let mut chunks = payload.chunks(MAX_PACKET_CHUNK);
        let mut last_len = MAX_PACKET_CHUNK;
        for chunk in chunks.by_ref() {
            push_header(self.buf, chunk.len(), self.seq);
            self.buf.extend_from_slice(chunk);
            last_len = chunk.len();
        }
        if last_len == MAX_PACKET_CHUNK {
            push_header(self.buf, 0, self.seq);
        }
    }
}

fn push_header(buf: &mut Vec<u8>, len: usize, seq: &mut u8) {
    debug_assert!(len <= MAX_PACKET_CHUNK);
    buf.extend_from_slice(&(len as u32).to_le_bytes()[..3]);
    buf.push(*seq);
    *seq = seq.wrapping_add(1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    /// Frames `payloads` into bytes with the writer, starting at sequence 0.
    fn frame(payloads: &[Vec<u8>]) -> Vec<u8> {
        rt().block_on(async {
            let mut w = PacketWriter::new(Vec::new());
            for p in payloads {
                w.write_packet(p);
            }
            w.flush().await.unwrap();
            w.into_inner()
        })
    }

    #[test]
    fn header_layout_is_length_then_sequence() {
        let bytes = frame(&[b"\x03select 1".to_vec(), vec![]]);
        assert_eq!(&bytes[..4], &[9, 0, 0, 0]);
        assert_eq!(&bytes[4..13], b"\x03select 1");
        assert_eq!(&bytes[13..], &[0, 0, 0, 1]);
    }

    #[test]
    fn large_payloads_split_and_join() {
        for len in [MAX_PACKET_CHUNK - 1, MAX_PACKET_CHUNK, MAX_PACKET_CHUNK + 1, 2 * MAX_PACKET_CHUNK] {
            // Distinct bytes at the chunk boundaries catch misplaced joins.
            let mut payload = vec![7u8; len];
            for i in [0, (MAX_PACKET_CHUNK - 1).min(len - 1), len - 1] {
                payload[i] = (i % 251) as u8 + 1;
            }
            if len > MAX_PACKET_CHUNK {
                payload[MAX_PACKET_CHUNK] = 99;
            }
            let bytes = frame(&[payload.clone(), b"next".to_vec()]);
            let chunks = len / MAX_PACKET_CHUNK + 1;
            // Every chunk has a header; an exact multiple ends with an empty chunk.
            assert_eq!(bytes.len(), len + chunks * HEADER_LEN + HEADER_LEN + 4, "framing of {len}");
            rt().block_on(async {
                let mut r = PacketReader::new(&bytes[..], MAX_ALLOWED_PACKET_LIMIT);
                assert!(r.read_packet().await.unwrap() == &payload[..], "joined payload of {len}");
                assert_eq!(r.sequence() as usize, chunks);
                assert_eq!(r.read_packet().await.unwrap(), b"next");
                assert!(matches!(r.read_packet().await, Err(ProtocolError::ConnectionClosed)));
            });
        }
    }

    #[test]
    fn oversized_packet_rejected_before_reading_payload() {
        let bytes = frame(&[vec![7u8; 2000]]);
        rt().block_on(async {
            // Only the header is supplied: the reader must fail without waiting for the payload.
            let mut r = PacketReader::new(&bytes[..4], 1000);
            assert!(matches!(r.read_packet().await, Err(ProtocolError::PacketTooLarge { size: 2000, max: 1000 })));
        });
    }

    /// A refused packet of several chunks is skipped whole: the answer carries the sequence id
    /// after its last chunk, and the next packet reads as usual.
    #[test]
    fn a_refused_packet_is_skipped_to_its_end() {
        for len in [2000, MAX_PACKET_CHUNK + 10, 2 * MAX_PACKET_CHUNK] {
            let bytes = frame(&[vec![7u8; len], b"next".to_vec()]);
            let chunks = len / MAX_PACKET_CHUNK + 1;
            for max in [1000, MAX_PACKET_CHUNK as u64 + 5] {
                if max >= len as u64 {
                    continue;
                }
                rt().block_on(async {
                    let mut r = PacketReader::new(&bytes[..], max);
                    assert!(matches!(r.read_packet().await, Err(ProtocolError::PacketTooLarge { .. })));
                    assert_eq!(r.skip_refused_packet(u64::MAX).await.unwrap() as usize, chunks, "{len} over {max}");
                    r.set_sequence(chunks as u8);
                    assert_eq!(r.read_packet().await.unwrap(), b"next");
                });
            }
        }
        // More than the caller will skip: an error, not a wait for the rest.
        let bytes = frame(&[vec![7u8; 2 * MAX_PACKET_CHUNK]]);
        rt().block_on(async {
            let mut r = PacketReader::new(&bytes[..], 1000);
            assert!(r.read_packet().await.is_err());
            assert!(r.skip_refused_packet(1 << 20).await.is_err());
        });
    }

    #[test]
    fn announced_length_does_not_allocate_before_bytes_arrive() {
        rt().block_on(async {
            // A header announcing 1 MiB followed by 10 bytes, then EOF.
            let mut bytes = vec![0x00, 0x00, 0x10, 0x00];
            bytes.extend_from_slice(&[1; 10]);
            let mut r = PacketReader::new(&bytes[..], MAX_ALLOWED_PACKET_LIMIT);
            assert!(matches!(r.read_packet().await, Err(ProtocolError::Io(_))));
            assert_eq!(r.buf.len(), INITIAL_BUFFER);
        });
    }

    #[test]
    fn sequence_mismatch_and_truncation_are_errors() {
        rt().block_on(async {
            let mut r = PacketReader::new(&[1u8, 0, 0, 5, b'x'][..], 100);
            assert!(matches!(r.read_packet().await, Err(ProtocolError::OutOfOrder { expected: 0, got: 5 })));
            let mut r = PacketReader::new(&[10u8, 0, 0, 0, b'x'][..], 100);
            assert!(matches!(r.read_packet().await, Err(ProtocolError::Io(_))));
            let mut r = PacketReader::new(&[10u8, 0][..], 100);
            assert!(matches!(r.read_packet().await, Err(ProtocolError::Io(_))));
            let mut r = PacketReader::new(&[][..], 100);
            assert!(matches!(r.read_packet().await, Err(ProtocolError::ConnectionClosed)));
        });
    }

    #[test]
    fn buffers_shrink_after_a_large_packet() {
        let big = vec![1u8; 200_000];
        let bytes = frame(std::slice::from_ref(&big));
        rt().block_on(async {
            let mut r = PacketReader::new(&bytes[..], MAX_ALLOWED_PACKET_LIMIT);
            assert_eq!(r.read_packet().await.unwrap().len(), big.len());
            assert!(r.buf.len() > SHRINK_ABOVE);
            r.shrink_buffer();
            assert_eq!(r.buf.len(), INITIAL_BUFFER);

            let mut w = PacketWriter::new(Vec::new());
            w.write_packet(&big);
            w.flush().await.unwrap();
            assert!(w.buf.capacity() <= SHRINK_ABOVE);
        });
    }

    #[test]
    fn try_flush_writes_without_waiting() {
        rt().block_on(async {
            let mut r = PacketReader::new(&[3u8, 0, 0, 0, 1, 2, 3, 2, 0, 0, 1, 9][..], 100);
            r.read_packet().await.unwrap();
            // Only part of the second packet arrived with the first read.
            assert!(r.has_buffered_data() && !r.has_buffered_packet());
            let mut w = PacketWriter::new(Vec::new());
            w.write_packet(b"abc");
            w.try_flush().unwrap();
            assert_eq!(w.pending(), 0);
            assert_eq!(w.get_ref().as_slice(), &[3, 0, 0, 0, b'a', b'b', b'c']);
            assert_eq!(w.bytes_written(), 7);
        });
    }

    /// A stream that yields at most `step` bytes per read, to exercise partial reads.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl AsyncRead for Trickle<'_> {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let n = self.step.min(self.data.len()).min(buf.remaining());
            buf.put_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Poll::Ready(Ok(()))
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn packets_round_trip_through_partial_reads(
            payloads in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..9000usize), 1..8),
            step in 1usize..5000,
        ) {
            let bytes = frame(&payloads);
            rt().block_on(async {
                let mut r = PacketReader::new(Trickle { data: &bytes, step }, 1 << 20);
                for p in &payloads {
                    let got = r.read_packet().await.unwrap();
                    assert_eq!(got, &p[..]);
                }
                assert!(matches!(r.read_packet().await, Err(ProtocolError::ConnectionClosed)));
            });
        }

        #[test]
        fn random_streams_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300usize)) {
            rt().block_on(async {
                let mut r = PacketReader::new(&bytes[..], 256);
                for _ in 0..8 {
                    if r.read_packet().await.is_err() { break; }
                    r.reset_sequence();
                }
            });
        }
    }
}
