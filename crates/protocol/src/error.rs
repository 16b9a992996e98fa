//! Errors of the wire codec.
//!
//! Every decoder returns `ProtocolError` for bad input instead of panicking: a peer controls every
//! byte we parse, so a malformed packet must become a clean error (and usually a closed
//! connection), never a crash of the process that serves thousands of other connections.

use std::io;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ProtocolError {
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),

    /// The peer closed the connection cleanly between packets.
    #[error("connection closed by peer")]
    ConnectionClosed,

    /// The payload ended before the field named here was complete.
    #[error("truncated packet while reading {0}")]
    Truncated(&'static str),

    /// The payload is complete but its contents are invalid.
    #[error("malformed packet: {0}")]
    Malformed(String),

    /// A (possibly multi-part) packet larger than the configured `max_allowed_packet`.
    #[error("packet of at least {size} bytes exceeds max_allowed_packet ({max} bytes)")]
    PacketTooLarge { size: u64, max: u64 },

    #[error("packets out of order: expected sequence id {expected}, got {got}")]
    OutOfOrder { expected: u8, got: u8 },

    /// The server answered with an ERR packet (client side).
    #[error("server error {}: {}", .0.code, .0.message)]
    Server(ErrPacket),

    /// The peer asked for something this implementation deliberately does not support.
    #[error("unsupported: {0}")]
    Unsupported(String),
}

pub type Result<T, E = ProtocolError> = std::result::Result<T, E>;

/// An ERR packet's contents. The type lives here, below the codec, because `ProtocolError`
/// carries one (`Server`) and maps itself onto one (`to_err_packet`); its wire form (`encode`,
/// `parse`) is in `response` with OK and EOF, which needs the field decoders that in turn
/// report `ProtocolError`s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrPacket {
    pub code: u16,
    /// Five characters, e.g. "42000".
    pub state: String,
    pub message: String,
}

impl ErrPacket {
    pub fn new(code: u16, state: &str, message: impl Into<String>) -> ErrPacket {
        ErrPacket { code, state: state.to_string(), message: message.into() }
    }
}

/// MySQL error numbers and SQLSTATEs the codec itself produces.
pub mod codes {
    /// ER_NET_PACKET_TOO_LARGE
    pub const NET_PACKET_TOO_LARGE: u16 = 1153;
    /// ER_NET_PACKETS_OUT_OF_ORDER
    pub const NET_PACKETS_OUT_OF_ORDER: u16 = 1156;
    /// ER_MALFORMED_PACKET
    pub const MALFORMED_PACKET: u16 = 1835;
    /// ER_NOT_SUPPORTED_AUTH_MODE
    pub const NOT_SUPPORTED_AUTH_MODE: u16 = 1251;
    /// ER_UNKNOWN_COM_ERROR
    pub const UNKNOWN_COM_ERROR: u16 = 1047;
}

impl ProtocolError {
    /// The ERR packet a server sends for this error before closing the connection, or `None`
    /// when nothing can or should be sent (the connection is already gone).
    pub fn to_err_packet(&self) -> Option<ErrPacket> {
        match self {
            ProtocolError::Io(_) | ProtocolError::ConnectionClosed => None,
            ProtocolError::PacketTooLarge { .. } => Some(ErrPacket::new(
                codes::NET_PACKET_TOO_LARGE,
                "08S01",
                "Got a packet bigger than 'max_allowed_packet' bytes",
            )),
            ProtocolError::OutOfOrder { .. } => {
                Some(ErrPacket::new(codes::NET_PACKETS_OUT_OF_ORDER, "08S01", "Got packets out of order"))
            }
            ProtocolError::Truncated(what) => Some(ErrPacket::new(
                codes::MALFORMED_PACKET,
                "HY000",
                format!("Malformed communication packet (truncated {what})"),
            )),
            ProtocolError::Malformed(what) => Some(ErrPacket::new(
                codes::MALFORMED_PACKET,
                "HY000",
                format!("Malformed communication packet ({what})"),
            )),
            ProtocolError::Unsupported(what) => {
                Some(ErrPacket::new(codes::UNKNOWN_COM_ERROR, "08S01", format!("Unsupported: {what}")))
            }
            ProtocolError::Server(e) => Some(e.clone()),
        }
    }
}
