//! Primitive field encodings: fixed-width little-endian integers, length-encoded integers and
//! strings, NUL-terminated strings.
//!
//! Decoding goes through `Decoder`, a bounds-checked cursor over one payload: every accessor
//! returns `ProtocolError::Truncated` instead of indexing out of range. Encoders append to a
//! `Vec<u8>` (usually the connection's output buffer, so nothing is allocated per field).

use crate::error::{ProtocolError, Result};

/// First byte of a length-encoded integer meaning SQL NULL (text rows only).
pub const LENENC_NULL: u8 = 0xFB;

/// A bounds-checked reader over one packet payload.
#[derive(Clone, Debug)]
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    pub fn new(buf: &'a [u8]) -> Decoder<'a> {
        Decoder { buf, pos: 0 }
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    /// The next byte without consuming it.
    pub fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(ProtocolError::Truncated(what));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn skip(&mut self, n: usize, what: &'static str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }

    /// Everything that is left.
    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.buf[self.pos..];
        self.pos = self.buf.len();
        s
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let s = self.bytes(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    pub fn u24(&mut self, what: &'static str) -> Result<u32> {
        let a = self.array::<3>(what)?;
        Ok(u32::from_le_bytes([a[0], a[1], a[2], 0]))
    }

    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub fn u64(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    pub fn f32(&mut self, what: &'static str) -> Result<f32> {
        Ok(f32::from_le_bytes(self.array(what)?))
    }

    pub fn f64(&mut self, what: &'static str) -> Result<f64> {
        Ok(f64::from_le_bytes(self.array(what)?))
    }

    /// A length-encoded integer, or `None` for the NULL marker 0xFB.
    pub fn lenenc_int_or_null(&mut self, what: &'static str) -> Result<Option<u64>> {
        let first = self.u8(what)?;
        Ok(Some(match first {
            0..=0xFA => first as u64,
            LENENC_NULL => return Ok(None),
            0xFC => self.u16(what)? as u64,
            0xFD => self.u24(what)? as u64,
            0xFE => self.u64(what)?,
            0xFF => return Err(ProtocolError::Malformed(format!("invalid length-encoded integer (0xFF) in {what}"))),
        }))
    }

    /// A length-encoded integer where NULL is not allowed.
    pub fn lenenc_int(&mut self, what: &'static str) -> Result<u64> {
        self.lenenc_int_or_null(what)?
            .ok_or_else(|| ProtocolError::Malformed(format!("unexpected NULL marker in {what}")))
    }

    /// A length-encoded string, or `None` for NULL (0xFB).
    pub fn lenenc_bytes_or_null(&mut self, what: &'static str) -> Result<Option<&'a [u8]>> {
        match self.lenenc_int_or_null(what)? {
            None => Ok(None),
            Some(len) => {
                let len = usize::try_from(len).map_err(|_| ProtocolError::Truncated(what))?;
                self.bytes(len, what).map(Some)
            }
        }
    }

    pub fn lenenc_bytes(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let len = self.lenenc_int(what)?;
        let len = usize::try_from(len).map_err(|_| ProtocolError::Truncated(what))?;
        self.bytes(len, what)
    }

    /// Bytes up to (not including) the next NUL; the NUL is consumed.
    pub fn null_terminated(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let rest = &self.buf[self.pos..];
        match rest.iter().position(|&b| b == 0) {
            Some(n) => {
                self.pos += n + 1;
                Ok(&rest[..n])
            }
            None => Err(ProtocolError::Truncated(what)),
        }
    }

    /// Like `null_terminated`, but a missing NUL at the very end of the payload is accepted
    /// (several clients omit the final terminator of the last field of a handshake response).
    pub fn null_terminated_or_rest(&mut self) -> &'a [u8] {
        let rest = &self.buf[self.pos..];
        match rest.iter().position(|&b| b == 0) {
            Some(n) => {
                self.pos += n + 1;
                &rest[..n]
            }
            None => self.rest(),
        }
    }
}

/// Text from the wire as UTF-8; invalid sequences are a protocol error, not a panic.
pub fn utf8<'a>(bytes: &'a [u8], what: &'static str) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|_| ProtocolError::Malformed(format!("{what} is not valid UTF-8")))
}

pub fn put_u8(out: &mut Vec<u8>, v: u8) {
    out.push(v);
}

pub fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_u24(out: &mut Vec<u8>, v: u32) {
    debug_assert!(v <= 0xFF_FFFF);
    out.extend_from_slice(&v.to_le_bytes()[..3]);
}

pub fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Number of bytes `put_lenenc_int(v)` writes.
pub fn lenenc_int_len(v: u64) -> usize {
    match v {
        0..=0xFA => 1,
        0xFB..=0xFFFF => 3,
        0x1_0000..=0xFF_FFFF => 4,
        _ => 9,
    }
}

pub fn put_lenenc_int(out: &mut Vec<u8>, v: u64) {
    match v {
        0..=0xFA => out.push(v as u8),
        0xFB..=0xFFFF => {
            out.push(0xFC);
            put_u16(out, v as u16);
        }
        0x1_0000..=0xFF_FFFF => {
            out.push(0xFD);
            put_u24(out, v as u32);
        }
        _ => {
            out.push(0xFE);
            put_u64(out, v);
        }
    }
}

pub fn put_lenenc_bytes(out: &mut Vec<u8>, s: &[u8]) {
    put_lenenc_int(out, s.len() as u64);
    out.extend_from_slice(s);
}

/// Appends `s` and a NUL terminator. A NUL inside `s` would end the field early on the peer's
/// side, so callers only pass names they control or have validated.
pub fn put_null_terminated(out: &mut Vec<u8>, s: &[u8]) {
    debug_assert!(!s.contains(&0), "NUL inside a NUL-terminated field");
    out.extend_from_slice(s);
    out.push(0);
}

/// Appends a length-encoded string whose bytes `fill` writes directly into `out`, so formatted
/// values need no intermediate buffer. One length byte is reserved up front; the rare value of
/// 251 bytes or more is shifted right to make room for the longer length prefix.
pub fn put_lenenc_with(out: &mut Vec<u8>, fill: impl FnOnce(&mut Vec<u8>)) {
    let prefix_at = out.len();
    out.push(0);
    fill(out);
    let len = out.len() - prefix_at - 1;
    let prefix_len = lenenc_int_len(len as u64);
    if prefix_len == 1 {
        out[prefix_at] = len as u8;
        return;
    }
    let mut prefix = Vec::with_capacity(9);
    put_lenenc_int(&mut prefix, len as u64);
    // Grow by the extra prefix bytes, then move the value right and write the prefix in front.
    out.resize(out.len() + prefix_len - 1, 0);
    out.copy_within(prefix_at + 1..prefix_at + 1 + len, prefix_at + prefix_len);
    out[prefix_at..prefix_at + prefix_len].copy_from_slice(&prefix);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lenenc_int_boundaries_round_trip() {
        for v in [0u64, 1, 250, 251, 252, 0xFFFF, 0x1_0000, 0xFF_FFFF, 0x100_0000, u64::MAX] {
            let mut out = Vec::new();
            put_lenenc_int(&mut out, v);
            assert_eq!(out.len(), lenenc_int_len(v), "length of {v}");
            let mut d = Decoder::new(&out);
            assert_eq!(d.lenenc_int("v").unwrap(), v);
            assert!(d.is_empty());
        }
        // Known encodings from the protocol documentation.
        let mut out = Vec::new();
        put_lenenc_int(&mut out, 251);
        assert_eq!(out, [0xFC, 0xFB, 0x00]);
    }

    #[test]
    fn lenenc_null_and_invalid_marker() {
        assert_eq!(Decoder::new(&[0xFB]).lenenc_int_or_null("x").unwrap(), None);
        assert!(matches!(Decoder::new(&[0xFB]).lenenc_int("x"), Err(ProtocolError::Malformed(_))));
        assert!(matches!(Decoder::new(&[0xFF]).lenenc_int_or_null("x"), Err(ProtocolError::Malformed(_))));
        assert!(matches!(Decoder::new(&[0xFE, 1, 2]).lenenc_int("x"), Err(ProtocolError::Truncated(_))));
    }

    #[test]
    fn null_terminated_fields() {
        let mut d = Decoder::new(b"abc\0de");
        assert_eq!(d.null_terminated("a").unwrap(), b"abc");
        assert!(matches!(d.clone().null_terminated("b"), Err(ProtocolError::Truncated("b"))));
        assert_eq!(d.null_terminated_or_rest(), b"de");
        assert!(d.is_empty());
    }

    #[test]
    fn huge_lenenc_length_is_truncation_not_panic() {
        let mut d = Decoder::new(&[0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, b'x']);
        assert!(matches!(d.lenenc_bytes("s"), Err(ProtocolError::Truncated("s"))));
    }

    proptest! {
        #[test]
        fn lenenc_with_matches_put_lenenc_bytes(
            len in prop_oneof![0usize..300, 0xFFF0usize..0x1_0010],
            seed in any::<u8>(),
            prefix in proptest::collection::vec(any::<u8>(), 0..4usize),
        ) {
            // Lengths around the 1-, 3- and 4-byte prefix boundaries.
            let value: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(seed)).collect();
            let mut a = prefix.clone();
            put_lenenc_bytes(&mut a, &value);
            let mut b = prefix.clone();
            put_lenenc_with(&mut b, |out| out.extend_from_slice(&value));
            prop_assert_eq!(a, b);
        }

        #[test]
        fn decoder_never_panics_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..64usize)) {
            let mut d = Decoder::new(&bytes);
            // Read a mix of fields until the input runs out; any error is fine, a panic is not.
            for i in 0.. {
                let r = match i % 6 {
                    0 => d.lenenc_bytes_or_null("a").map(|_| ()),
                    1 => d.u16("b").map(|_| ()),
                    2 => d.null_terminated("c").map(|_| ()),
                    3 => d.u24("d").map(|_| ()),
                    4 => d.lenenc_int("e").map(|_| ()),
                    _ => d.u64("f").map(|_| ()),
                };
                if r.is_err() || d.is_empty() { break; }
            }
        }
    }
}
