//! Byte format of one log entry: `len u32 | crc32c u32 | start_lsn u64 | payload | pad to 8`.
//!
//! `len` is the unpadded length (header + payload), so the payload length is exact; the entry
//! occupies `len` rounded up to 8 bytes of LSN space. The CRC is CRC32C over the payload followed
//! by the little-endian `len` and `start_lsn`: computing the payload part first lets `append` do
//! the expensive part before it reserves log space, so the window between reservation and
//! completion (which holds back the log writer) stays short. Padding bytes are zero and are not
//! covered; nothing reads them.

use super::config::Lsn;

/// Size of the entry header that `append` puts before each payload.
pub const ENTRY_HEADER: usize = 16;

/// Entries start at multiples of this, so the link buffer can index by `lsn / ENTRY_ALIGN`.
pub(super) const ENTRY_ALIGN: usize = 8;

/// LSN space taken by an entry with `payload_len` payload bytes.
pub(super) fn framed_len(payload_len: usize) -> usize {
    (ENTRY_HEADER + payload_len).next_multiple_of(ENTRY_ALIGN)
}

pub(super) fn payload_crc(payload: &[u8]) -> u32 {
    crc32c::crc32c(payload)
}

/// Finishes the CRC of an entry whose payload CRC is `payload_crc`.
pub(super) fn entry_crc(payload_crc: u32, len: u32, start: Lsn) -> u32 {
    let mut tail = [0u8; 12];
    tail[..4].copy_from_slice(&len.to_le_bytes());
    tail[4..].copy_from_slice(&start.to_le_bytes());
    crc32c::crc32c_append(payload_crc, &tail)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Header {
    /// Header + payload, unpadded.
    pub len: u32,
    pub crc: u32,
    pub start: Lsn,
}

impl Header {
    pub fn encode(&self) -> [u8; ENTRY_HEADER] {
        let mut bytes = [0u8; ENTRY_HEADER];
        bytes[0..4].copy_from_slice(&self.len.to_le_bytes());
        bytes[4..8].copy_from_slice(&self.crc.to_le_bytes());
        bytes[8..16].copy_from_slice(&self.start.to_le_bytes());
        bytes
    }

    pub fn decode(bytes: &[u8; ENTRY_HEADER]) -> Header {
        Header {
            len: u32::from_le_bytes(bytes[0..4].try_into().expect("4 bytes")),
            crc: u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes")),
            start: u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_pads_to_eight() {
        assert_eq!(framed_len(0), 16);
        assert_eq!(framed_len(1), 24);
        assert_eq!(framed_len(8), 24);
        assert_eq!(framed_len(9), 32);
    }

    #[test]
    fn crc_covers_len_lsn_and_payload() {
        let base = entry_crc(payload_crc(b"abc"), 19, 8192);
        assert_eq!(base, crc32c::crc32c(&[&b"abc"[..], &19u32.to_le_bytes(), &8192u64.to_le_bytes()].concat()));
        assert_ne!(base, entry_crc(payload_crc(b"abd"), 19, 8192));
        assert_ne!(base, entry_crc(payload_crc(b"abc"), 20, 8192));
        assert_ne!(base, entry_crc(payload_crc(b"abc"), 19, 8200));
        let h = Header { len: 19, crc: base, start: 8192 };
        assert_eq!(Header::decode(&h.encode()), h);
    }
}
