//! Generic response packets: OK, ERR and EOF.
//!
//! With CLIENT_DEPRECATE_EOF the EOF that ends a result set is replaced by an OK packet whose
//! header byte is 0xFE; `encode_ok(.., header = 0xFE)` writes that form.

pub use crate::error::ErrPacket;
use crate::error::{ProtocolError, Result};
use crate::wire::{put_lenenc_bytes, put_lenenc_int, put_u16, Decoder};

pub const OK_HEADER: u8 = 0x00;
pub const EOF_HEADER: u8 = 0xFE;
pub const ERR_HEADER: u8 = 0xFF;

/// A payload starting with 0xFE is an EOF (or 0xFE-OK) rather than a row only if it is shorter
/// than a row could be: a row starting with 0xFE would be a length-encoded string of at least
/// 2^24 bytes, hence a payload of at least `MAX_PACKET_CHUNK` bytes.
pub fn is_eof_packet(payload: &[u8]) -> bool {
    payload.first() == Some(&EOF_HEADER) && payload.len() < crate::constants::MAX_PACKET_CHUNK
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OkPacket {
    pub affected_rows: u64,
    pub last_insert_id: u64,
    pub status: u16,
    pub warnings: u16,
    pub info: Vec<u8>,
}

/// Appends an OK payload. `header` is `OK_HEADER`, or `EOF_HEADER` for the OK that ends a result
/// set under CLIENT_DEPRECATE_EOF.
pub fn encode_ok(
    out: &mut Vec<u8>,
    header: u8,
    affected_rows: u64,
    last_insert_id: u64,
    status: u16,
    warnings: u16,
    info: &[u8],
) {
    debug_assert!(header == OK_HEADER || header == EOF_HEADER);
    out.push(header);
    put_lenenc_int(out, affected_rows);
    put_lenenc_int(out, last_insert_id);
    put_u16(out, status);
    put_u16(out, warnings);
    // Servers (MariaDB and MySQL alike) send the info as a length-encoded string, and only when
    // it is non-empty; clients read it that way.
    if !info.is_empty() {
        put_lenenc_bytes(out, info);
    }
}

impl OkPacket {
    pub fn encode(&self, out: &mut Vec<u8>, header: u8) {
        encode_ok(out, header, self.affected_rows, self.last_insert_id, self.status, self.warnings, &self.info);
    }

    /// Parses an OK (0x00) or 0xFE-OK payload (CLIENT_PROTOCOL_41, no session tracking).
    pub fn parse(payload: &[u8]) -> Result<OkPacket> {
        let mut d = Decoder::new(payload);
        let header = d.u8("OK header")?;
        if header != OK_HEADER && header != EOF_HEADER {
            return Err(ProtocolError::Malformed(format!("OK packet starts with 0x{header:02X}")));
        }
        let affected_rows = d.lenenc_int("affected rows")?;
        let last_insert_id = d.lenenc_int("last insert id")?;
        let status = d.u16("status flags")?;
        let warnings = d.u16("warning count")?;
        let info = if d.is_empty() {
            Vec::new()
        } else {
            // Length-encoded as servers send it; a peer that sent the documented string<EOF>
            // form instead is still understood.
            let rest = d.clone().rest();
            match d.lenenc_bytes("info") {
                Ok(info) if d.is_empty() => info.to_vec(),
                _ => rest.to_vec(),
            }
        };
        Ok(OkPacket { affected_rows, last_insert_id, status, warnings, info })
    }
}

impl ErrPacket {
    pub fn encode(&self, out: &mut Vec<u8>) {
        encode_err(out, self.code, &self.state, &self.message);
    }

    pub fn parse(payload: &[u8]) -> Result<ErrPacket> {
        let mut d = Decoder::new(payload);
        if d.u8("ERR header")? != ERR_HEADER {
            return Err(ProtocolError::Malformed("ERR packet does not start with 0xFF".into()));
        }
        let code = d.u16("error code")?;
        let state = if d.peek() == Some(b'#') {
            d.skip(1, "SQL state marker")?;
            String::from_utf8_lossy(d.bytes(5, "SQL state")?).into_owned()
        } else {
            "HY000".to_string()
        };
        let message = String::from_utf8_lossy(d.rest()).into_owned();
        Ok(ErrPacket { code, state, message })
    }
}

/// Appends an ERR payload (protocol 4.1 form, with the `#` SQLSTATE marker).
pub fn encode_err(out: &mut Vec<u8>, code: u16, state: &str, message: &str) {
    out.push(ERR_HEADER);
    put_u16(out, code);
    out.push(b'#');
    let state = state.as_bytes();
    // SQLSTATE is exactly five characters on the wire; pad or cut anything else.
    for i in 0..5 {
        out.push(*state.get(i).unwrap_or(&b'0'));
    }
    out.extend_from_slice(message.as_bytes());
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EofPacket {
    pub warnings: u16,
    pub status: u16,
}

impl EofPacket {
    pub fn encode(&self, out: &mut Vec<u8>) {
        encode_eof(out, self.warnings, self.status);
    }

    pub fn parse(payload: &[u8]) -> Result<EofPacket> {
        let mut d = Decoder::new(payload);
        if d.u8("EOF header")? != EOF_HEADER {
            return Err(ProtocolError::Malformed("EOF packet does not start with 0xFE".into()));
        }
        let warnings = d.u16("warning count")?;
        let status = d.u16("status flags")?;
        Ok(EofPacket { warnings, status })
    }
}

pub fn encode_eof(out: &mut Vec<u8>, warnings: u16, status: u16) {
    out.push(EOF_HEADER);
    put_u16(out, warnings);
    put_u16(out, status);
}

/// The end of a result set (or of column definitions) as the client parses it: a classic EOF or,
/// under CLIENT_DEPRECATE_EOF, an OK with header 0xFE.
pub fn parse_result_end(payload: &[u8], deprecate_eof: bool) -> Result<OkPacket> {
    if deprecate_eof {
        OkPacket::parse(payload)
    } else {
        let eof = EofPacket::parse(payload)?;
        Ok(OkPacket { status: eof.status, warnings: eof.warnings, ..OkPacket::default() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ok_round_trip_and_known_bytes() {
        let ok = OkPacket {
            affected_rows: 300,
            last_insert_id: 7,
            status: 0x0002,
            warnings: 1,
            info: b"Rows matched: 1".to_vec(),
        };
        let mut out = Vec::new();
        ok.encode(&mut out, OK_HEADER);
        assert_eq!(&out[..8], &[0x00, 0xFC, 0x2C, 0x01, 0x07, 0x02, 0x00, 0x01]);
        assert_eq!(OkPacket::parse(&out).unwrap(), ok);
        let mut out = Vec::new();
        ok.encode(&mut out, EOF_HEADER);
        assert!(is_eof_packet(&out));
        assert_eq!(parse_result_end(&out, true).unwrap(), ok);
    }

    #[test]
    fn err_round_trip() {
        let e = ErrPacket::new(1045, "28000", "Access denied for user 'x'@'localhost' (using password: NO)");
        let mut out = Vec::new();
        e.encode(&mut out);
        assert_eq!(&out[..9], b"\xff\x15\x04#28000");
        assert_eq!(ErrPacket::parse(&out).unwrap(), e);
        // Pre-4.1 form without a SQL state.
        let legacy = ErrPacket::parse(b"\xff\x10\x04Too many connections").unwrap();
        assert_eq!(
            (legacy.code, legacy.state.as_str(), legacy.message.as_str()),
            (1040, "HY000", "Too many connections")
        );
    }

    #[test]
    fn eof_round_trip() {
        let e = EofPacket { warnings: 3, status: 0x0022 };
        let mut out = Vec::new();
        e.encode(&mut out);
        assert_eq!(out, [0xFE, 3, 0, 0x22, 0]);
        assert_eq!(EofPacket::parse(&out).unwrap(), e);
        assert_eq!(parse_result_end(&out, false).unwrap().status, 0x0022);
    }

    proptest! {
        #[test]
        fn decoders_reject_or_accept_random_bytes_without_panicking(bytes in proptest::collection::vec(any::<u8>(), 0..40usize)) {
            let _ = OkPacket::parse(&bytes);
            let _ = ErrPacket::parse(&bytes);
            let _ = EofPacket::parse(&bytes);
        }

        #[test]
        fn truncated_ok_is_an_error(cut in 0usize..7) {
            let mut out = Vec::new();
            encode_ok(&mut out, OK_HEADER, 1, 2, 3, 4, b"");
            prop_assert!(OkPacket::parse(&out[..cut]).is_err());
        }
    }
}
