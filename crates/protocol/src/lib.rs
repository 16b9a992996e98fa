//! MySQL/MariaDB wire protocol codec shared by selkied and selkie-proxy.
//!
//! The crate knows nothing about SQL values or storage: it frames packets, encodes and decodes
//! every packet type of the connection and command phases, and provides both the server side
//! (greeting, auth verification, command decoding, result encoding) and a client
//! (`client::Client`) for proxies and tests.
//!
//! Modules, bottom up:
//! - `constants`: capability and status flags, column types, charsets.
//! - `error`: `ProtocolError` and the ERR packet it maps to.
//! - `wire`: primitive fields (fixed ints, length-encoded ints/strings) over a bounds-checked
//!   `Decoder`.
//! - `packet`: framing, sequence ids, `max_allowed_packet`, buffered async reader/writer.
//! - `auth`: mysql_native_password.
//! - `handshake`: greeting, handshake response, auth switch request.
//! - `response`: OK / ERR / EOF.
//! - `auth_switch`: the auth-switch exchange, server and client side (selkied and the proxy).
//! - `resultset`, `value`: column definitions, text and binary rows, binary values.
//! - `command`: client commands, COM_STMT_EXECUTE parameters, COM_STMT_PREPARE_OK.
//! - `client`: an async client built from the above.

pub mod auth;
pub mod auth_switch;
pub mod client;
pub mod command;
pub mod constants;
pub mod error;
pub mod handshake;
pub mod packet;
pub mod response;
pub mod resultset;
pub mod value;
pub mod wire;

pub use error::{ProtocolError, Result};
