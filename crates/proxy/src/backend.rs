//! One connection from the proxy to a backend server: login with the client's credentials, then
//! commands forwarded and responses streamed back to the client packet by packet.
//!
//! A response is never buffered whole (result sets can be huge): each packet is re-framed into
//! the client's output buffer as it arrives, and the buffer is flushed whenever the backend has
//! no further complete packet buffered (or the output grew past `FLUSH_THRESHOLD`), so a large
//! result streams at the pace of the slower side and small ones go out in one write. Sequence
//! ids are rewritten on the way: the client writer numbers packets from the id the client's
//! command left off at, whatever the backend used.
//!
//! To find where a response ends the forwarder follows the response grammar of each command
//! (result sets with SERVER_MORE_RESULTS_EXISTS chains, prepare responses, field lists...),
//! reading only headers, column counts and status flags.

use std::io;
use std::time::Duration;

use selkie_protocol::auth_switch::{await_login_verdict, LoginVerdict};
use selkie_protocol::command::PrepareOk;
use selkie_protocol::constants::capabilities::*;
use selkie_protocol::constants::status::{SERVER_MORE_RESULTS_EXISTS, SERVER_STATUS_CURSOR_EXISTS};
use selkie_protocol::constants::MYSQL_NATIVE_PASSWORD;
use selkie_protocol::handshake::{Greeting, HandshakeResponse};
use selkie_protocol::packet::{PacketReader, PacketWriter, HEADER_LEN, MAX_ALLOWED_PACKET_LIMIT};
use selkie_protocol::response::{
    is_eof_packet, parse_result_end, ErrPacket, OkPacket, EOF_HEADER, ERR_HEADER, OK_HEADER,
};
use selkie_protocol::wire::Decoder;
use selkie_protocol::ProtocolError;
use thiserror::Error;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;

use crate::auth::{backend_token, BackendSecret};

/// Output buffered for the client beyond which the forwarder flushes even if more backend
/// packets are already waiting (bounds memory per session while streaming).
pub const FLUSH_THRESHOLD: usize = 64 * 1024;
/// Largest column count accepted in a result (MariaDB's limit is 4096; anything near u16::MAX
/// is corrupt).
pub const MAX_RESULT_COLUMNS: u64 = u16::MAX as u64;
/// Header byte of a LOCAL INFILE request. The proxy offers no CLIENT_LOCAL_FILES, so a backend
/// sending one is a protocol violation.
const LOCAL_INFILE_HEADER: u8 = 0xFB;
/// Capabilities that change the shape of packets: the backend connection must have exactly the
/// client's, or forwarded bytes would be misread by the client.
const FORMAT_CAPABILITIES: u32 =
    CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF | CLIENT_MULTI_RESULTS | CLIENT_PS_MULTI_RESULTS;
/// Cursor flags of COM_STMT_EXECUTE (CURSOR_TYPE_READ_ONLY and friends).
pub const CURSOR_FLAGS_MASK: u8 = 0x07;

/// Who the proxy logs in as, on behalf of one client session.
#[derive(Clone, Debug)]
pub struct BackendLogin<'a> {
    pub user: &'a str,
    pub secret: BackendSecret,
    pub database: Option<&'a str>,
    pub charset: u8,
    /// The client session's negotiated capabilities.
    pub capabilities: u32,
    pub attributes: &'a [(String, String)],
}

#[derive(Debug, Error)]
pub enum BackendError {
    #[error("cannot connect to {endpoint}: {source}")]
    Connect { endpoint: String, source: io::Error },
    #[error("timed out connecting to {0}")]
    Timeout(String),
    /// The server refused the login (or sent ERR instead of a greeting): forwarded to clients.
    #[error("server error {}: {}", .0.code, .0.message)]
    Refused(ErrPacket),
    #[error("protocol error: {0}")]
    Protocol(#[from] ProtocolError),
    #[error("{0}")]
    Incompatible(String),
}

/// What the response to a command looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseKind {
    /// OK, ERR or result sets, chained by SERVER_MORE_RESULTS_EXISTS (COM_QUERY, COM_STMT_EXECUTE).
    Results,
    /// Like `Results`, for an execute that asked for a cursor: the response may end right after
    /// the column definitions (status SERVER_STATUS_CURSOR_EXISTS).
    CursorResults,
    /// COM_STMT_PREPARE: PREPARE_OK, parameter and column definitions; or ERR.
    Prepare,
    /// COM_STMT_FETCH: rows then EOF; or ERR.
    Rows,
    /// COM_FIELD_LIST: column definitions then EOF; or ERR.
    FieldList,
    /// One packet: OK / ERR / EOF / COM_STATISTICS text.
    Single,
}

/// Where forwarded packets go.
pub struct Out<'a> {
    /// The client; `None` discards (history replay, lazy prepares, extra session-command answers).
    pub client: Option<&'a mut PacketWriter<OwnedWriteHalf>>,
    /// Copy of the response for the result cache.
    pub capture: Option<&'a mut Capture>,
    /// For `Prepare`: the statement id the client is told instead of the backend's.
    pub prepare_id: Option<u32>,
    /// Flush the client at the end. Off when the caller must act (invalidate the cache after a
    /// write) before the client sees the end of the answer; it then flushes itself.
    pub flush_at_end: bool,
}

impl<'a> Out<'a> {
    pub fn discard() -> Out<'static> {
        Out { client: None, capture: None, prepare_id: None, flush_at_end: false }
    }

    pub fn client(client: &'a mut PacketWriter<OwnedWriteHalf>) -> Out<'a> {
        Out { client: Some(client), capture: None, prepare_id: None, flush_at_end: true }
    }
}

/// A bounded copy of a response, framed (4-byte header + payload per packet) as the cache
/// stores it. Capturing stops (and the copy is dropped) once it would exceed `limit`.
#[derive(Debug)]
pub struct Capture {
    pub buf: Vec<u8>,
    limit: usize,
    pub overflowed: bool,
}

impl Capture {
    pub fn new(limit: usize) -> Capture {
        Capture { buf: Vec::new(), limit, overflowed: false }
    }

    fn add(&mut self, payload: &[u8]) {
        if self.overflowed {
            return;
        }
        if self.buf.len() + HEADER_LEN + payload.len() > self.limit
            || payload.len() >= selkie_protocol::constants::MAX_PACKET_CHUNK
        {
            self.overflowed = true;
            self.buf = Vec::new();
            return;
        }
        let seq = 0; // rewritten when served
        self.buf.extend_from_slice(&(payload.len() as u32).to_le_bytes()[..3]);
        self.buf.push(seq);
        self.buf.extend_from_slice(payload);
    }
}

/// Iterates over the payloads of a captured (framed) response.
pub fn captured_packets(framed: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = framed;
    std::iter::from_fn(move || {
        if rest.len() < HEADER_LEN {
            return None;
        }
        let len = u32::from_le_bytes([rest[0], rest[1], rest[2], 0]) as usize;
        let end = (HEADER_LEN + len).min(rest.len());
        let payload = &rest[HEADER_LEN..end];
        rest = &rest[end..];
        Some(payload)
    })
}

/// Offset of the status flags in an EOF packet (classic, `[0xFE, warnings u16, status u16]`)
/// or in the OK-formatted end packet of CLIENT_DEPRECATE_EOF (after two length-encoded ints).
pub fn end_packet_status_offset(payload: &[u8], deprecate_eof: bool) -> Option<usize> {
    if !is_eof_packet(payload) {
        return None;
    }
    let offset = if deprecate_eof {
        let mut d = Decoder::new(&payload[1..]);
        d.lenenc_int("affected rows").ok()?;
        d.lenenc_int("last insert id").ok()?;
        1 + d.position()
    } else {
        3
    };
    (offset + 2 <= payload.len()).then_some(offset)
}

/// Sets the transaction bits of an end packet's status to `status`'s (a cached result was
/// produced by another session, whose transaction state must not leak into this one's).
pub fn patch_transaction_status(payload: &mut [u8], deprecate_eof: bool, status: u16) {
    use selkie_protocol::constants::status::{
        SERVER_STATUS_AUTOCOMMIT, SERVER_STATUS_IN_TRANS, SERVER_STATUS_IN_TRANS_READONLY,
    };
    const MASK: u16 = SERVER_STATUS_AUTOCOMMIT | SERVER_STATUS_IN_TRANS | SERVER_STATUS_IN_TRANS_READONLY;
    if let Some(at) = end_packet_status_offset(payload, deprecate_eof) {
        let old = u16::from_le_bytes([payload[at], payload[at + 1]]);
        let new = (old & !MASK) | (status & MASK);
        payload[at..at + 2].copy_from_slice(&new.to_le_bytes());
    }
}

#[derive(Clone, Debug, Default)]
pub struct ResponseSummary {
    /// Status flags of the last OK/EOF (unchanged by an ERR, which carries none).
    pub status: u16,
    pub error: Option<ErrPacket>,
    pub prepare: Option<PrepareOk>,
    /// More than one result was chained (multi-statement or a procedure call).
    pub multi: bool,
    /// At least one result set (not just OK packets) was part of the response.
    pub had_rows: bool,
}

impl ResponseSummary {
    pub fn is_err(&self) -> bool {
        self.error.is_some()
    }
}

#[derive(Debug, Error)]
pub enum ForwardError {
    /// The backend failed; `forwarded` says whether part of its answer already reached the
    /// client (if so the client connection cannot be saved).
    #[error("backend failed: {error}")]
    Backend { error: ProtocolError, forwarded: bool },
    #[error("client connection failed: {0}")]
    Client(io::Error),
}

pub struct Backend {
    reader: PacketReader<OwnedReadHalf>,
    writer: PacketWriter<OwnedWriteHalf>,
    capabilities: u32,
    /// Status flags of the last complete response.
    pub status: u16,
    pub connection_id: u32,
    pub server_version: String,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend").field("connection_id", &self.connection_id).field("status", &self.status).finish()
    }
}

impl Backend {
    /// Connects to `endpoint` and logs in; the whole exchange is bounded by `timeout`.
    pub async fn connect(endpoint: &str, login: &BackendLogin<'_>, timeout: Duration) -> Result<Backend, BackendError> {
        match tokio::time::timeout(timeout, Backend::connect_inner(endpoint, login)).await {
            Ok(r) => r,
            Err(_) => Err(BackendError::Timeout(endpoint.to_string())),
        }
    }

    async fn connect_inner(endpoint: &str, login: &BackendLogin<'_>) -> Result<Backend, BackendError> {
        let stream = TcpStream::connect(endpoint)
            .await
            .map_err(|source| BackendError::Connect { endpoint: endpoint.to_string(), source })?;
        stream.set_nodelay(true).map_err(|source| BackendError::Connect { endpoint: endpoint.to_string(), source })?;
        let (r, w) = stream.into_split();
        let mut reader = PacketReader::new(r, MAX_ALLOWED_PACKET_LIMIT);
        let mut writer = PacketWriter::new(w);

        let payload = reader.read_packet().await?;
        if payload.first() == Some(&ERR_HEADER) {
            return Err(BackendError::Refused(ErrPacket::parse(payload)?));
        }
        let greeting = Greeting::parse(payload)?;
        let mut caps = login.capabilities & greeting.capabilities;
        if login.database.is_some() {
            caps |= CLIENT_CONNECT_WITH_DB & greeting.capabilities;
        } else {
            caps &= !CLIENT_CONNECT_WITH_DB;
        }
        let missing = (login.capabilities & FORMAT_CAPABILITIES) & !caps;
        if missing != 0 {
            return Err(BackendError::Incompatible(format!(
                "backend {endpoint} ({}) lacks client capabilities {missing:#x} the client negotiated",
                greeting.server_version
            )));
        }
        let response = HandshakeResponse {
            capabilities: caps,
            max_packet: MAX_ALLOWED_PACKET_LIMIT as u32,
            charset: login.charset,
            user: login.user.to_string(),
            auth_response: backend_token(&login.secret, &greeting.scramble),
            database: login.database.map(str::to_string),
            auth_plugin: MYSQL_NATIVE_PASSWORD.to_string(),
            attributes: login.attributes.to_vec(),
        };
        writer.set_sequence(reader.sequence());
        response.encode(&mut writer.begin_packet());
        writer.flush().await.map_err(ProtocolError::from)?;
        reader.set_sequence(writer.sequence());
        let answer = |scramble: &[u8]| backend_token(&login.secret, scramble);
        match await_login_verdict(&mut reader, &mut writer, answer).await? {
            LoginVerdict::Accepted(ok) => Ok(Backend {
                reader,
                writer,
                capabilities: caps,
                status: ok.status,
                connection_id: greeting.connection_id,
                server_version: greeting.server_version,
            }),
            LoginVerdict::Refused(err) => Err(BackendError::Refused(err)),
            LoginVerdict::OtherPlugin(plugin) => Err(BackendError::Incompatible(format!(
                "backend {endpoint} asks for auth plugin {plugin}; the proxy supports mysql_native_password"
            ))),
            LoginVerdict::MoreData | LoginVerdict::Unexpected => {
                Err(ProtocolError::Malformed("unexpected packet during backend login".into()).into())
            }
        }
    }

    pub fn capabilities(&self) -> u32 {
        self.capabilities
    }

    pub fn in_transaction(&self) -> bool {
        self.status & selkie_protocol::constants::status::SERVER_STATUS_IN_TRANS != 0
    }

    /// Sends one command packet (sequence 0); the response (if any) is read with
    /// `forward_response`.
    pub async fn send(&mut self, payload: &[u8]) -> Result<(), ProtocolError> {
        self.writer.set_sequence(0);
        self.writer.write_packet(payload);
        self.writer.flush().await?;
        self.reader.set_sequence(self.writer.sequence());
        Ok(())
    }

    /// Sends COM_QUIT and closes the write side, so the server does not log an aborted
    /// connection. Best effort: errors are irrelevant to a connection being dropped.
    pub async fn quit(&mut self) {
        self.writer.set_sequence(0);
        self.writer.write_packet(&[selkie_protocol::constants::command::COM_QUIT]);
        let _ = self.writer.flush().await;
        let _ = self.writer.shutdown().await;
    }

    /// Sends `payload` and reads its response into the void: history replay and lazy
    /// preparation. Returns the summary (its `error` if the server refused).
    pub async fn execute_discard(
        &mut self,
        payload: &[u8],
        kind: ResponseKind,
    ) -> Result<ResponseSummary, ProtocolError> {
        self.send(payload).await?;
        match self.forward_response(kind, &mut Out::discard()).await {
            Ok(s) => Ok(s),
            Err(ForwardError::Backend { error, .. }) => Err(error),
            Err(ForwardError::Client(e)) => Err(ProtocolError::Io(e)),
        }
    }

    /// Reads the response to the command just sent and forwards it to `out`, ending with a
    /// flush of the client (unless `out.flush_at_end` is off). While streaming, the client is
    /// flushed only after rows and column definitions, so the final packet (OK, EOF, ERR) is
    /// still buffered when the function returns with `flush_at_end` off. The backend is left
    /// ready for its next command.
    // `forwarded` is set by every emit but read only by later failures; the last emit's store
    // is dead on purpose.
    #[allow(unused_assignments)]
    pub async fn forward_response(
        &mut self,
        kind: ResponseKind,
        out: &mut Out<'_>,
    ) -> Result<ResponseSummary, ForwardError> {
        let deprecate_eof = self.capabilities & CLIENT_DEPRECATE_EOF != 0;
        let mut summary = ResponseSummary { status: self.status, ..ResponseSummary::default() };
        let mut forwarded = false;

        // Reads the next packet, mapping a failure to "backend failed" with what reached the client.
        macro_rules! read {
            () => {
                match self.reader.read_packet().await {
                    Ok(p) if p.is_empty() => {
                        return Err(ForwardError::Backend {
                            error: ProtocolError::Malformed("empty packet from backend".into()),
                            forwarded,
                        })
                    }
                    Ok(p) => p,
                    Err(error) => return Err(ForwardError::Backend { error, forwarded }),
                }
            };
        }
        macro_rules! malformed {
            ($msg:expr) => {
                return Err(ForwardError::Backend { error: ProtocolError::Malformed($msg.into()), forwarded })
            };
        }
        macro_rules! parse {
            ($e:expr) => {
                match $e {
                    Ok(v) => v,
                    Err(error) => return Err(ForwardError::Backend { error, forwarded }),
                }
            };
        }
        macro_rules! emit {
            ($p:expr) => {{
                let p: &[u8] = $p;
                if let Some(c) = out.capture.as_deref_mut() {
                    c.add(p);
                }
                if let Some(client) = out.client.as_deref_mut() {
                    client.write_packet(p);
                    forwarded = true;
                }
            }};
        }
        macro_rules! maybe_flush {
            () => {
                if let Some(client) = out.client.as_deref_mut() {
                    if !self.reader.has_buffered_packet() || client.pending() > FLUSH_THRESHOLD {
                        client.flush().await.map_err(ForwardError::Client)?;
                    }
                }
            };
        }

        match kind {
            ResponseKind::Single => {
                let p = read!();
                match p[0] {
                    OK_HEADER => summary.status = parse!(OkPacket::parse(p)).status,
                    ERR_HEADER => summary.error = Some(parse!(ErrPacket::parse(p))),
                    EOF_HEADER if is_eof_packet(p) => {
                        summary.status = parse!(parse_result_end(p, deprecate_eof)).status
                    }
                    _ => {} // COM_STATISTICS text
                }
                emit!(p);
            }
            ResponseKind::Results | ResponseKind::CursorResults => 'results: loop {
                let p = read!();
                match p[0] {
                    OK_HEADER => {
                        summary.status = parse!(OkPacket::parse(p)).status;
                        emit!(p);
                    }
                    ERR_HEADER => {
                        summary.error = Some(parse!(ErrPacket::parse(p)));
                        emit!(p);
                        break 'results;
                    }
                    LOCAL_INFILE_HEADER => malformed!("LOCAL INFILE request (not offered by the proxy)"),
                    _ => {
                        let count = parse!(Decoder::new(p).lenenc_int("column count"));
                        if count == 0 || count > MAX_RESULT_COLUMNS {
                            malformed!(format!("result with {count} columns"));
                        }
                        summary.had_rows = true;
                        emit!(p);
                        for _ in 0..count {
                            let p = read!();
                            emit!(p);
                            maybe_flush!();
                        }
                        if !deprecate_eof {
                            let p = read!();
                            if !is_eof_packet(p) {
                                malformed!("missing EOF after column definitions");
                            }
                            let status = parse!(parse_result_end(p, false)).status;
                            emit!(p);
                            if kind == ResponseKind::CursorResults && status & SERVER_STATUS_CURSOR_EXISTS != 0 {
                                summary.status = status;
                                break 'results;
                            }
                        }
                        loop {
                            let p = read!();
                            if p[0] == ERR_HEADER {
                                summary.error = Some(parse!(ErrPacket::parse(p)));
                                emit!(p);
                                break 'results;
                            }
                            if is_eof_packet(p) {
                                summary.status = parse!(parse_result_end(p, deprecate_eof)).status;
                                emit!(p);
                                break;
                            }
                            emit!(p);
                            maybe_flush!();
                        }
                    }
                }
                if summary.status & SERVER_MORE_RESULTS_EXISTS == 0 {
                    break 'results;
                }
                summary.multi = true;
            },
            ResponseKind::Prepare => {
                let p = read!();
                if p[0] == ERR_HEADER {
                    summary.error = Some(parse!(ErrPacket::parse(p)));
                    emit!(p);
                } else {
                    let ok = parse!(PrepareOk::parse(p));
                    summary.prepare = Some(ok);
                    match out.prepare_id {
                        Some(id) => {
                            let mut patched = p.to_vec();
                            patched[1..5].copy_from_slice(&id.to_le_bytes());
                            emit!(&patched);
                        }
                        None => emit!(p),
                    }
                    for count in [ok.params, ok.columns] {
                        for _ in 0..count {
                            let p = read!();
                            emit!(p);
                            maybe_flush!();
                        }
                        if count > 0 && !deprecate_eof {
                            let p = read!();
                            if !is_eof_packet(p) {
                                malformed!("missing EOF after prepared statement definitions");
                            }
                            emit!(p);
                        }
                    }
                }
            }
            ResponseKind::Rows | ResponseKind::FieldList => loop {
                let p = read!();
                if p[0] == ERR_HEADER {
                    summary.error = Some(parse!(ErrPacket::parse(p)));
                    emit!(p);
                    break;
                }
                if is_eof_packet(p) {
                    summary.status = parse!(parse_result_end(p, deprecate_eof)).status;
                    emit!(p);
                    break;
                }
                emit!(p);
                maybe_flush!();
            },
        }
        if out.flush_at_end {
            if let Some(client) = out.client.as_deref_mut() {
                client.flush().await.map_err(ForwardError::Client)?;
            }
        }
        self.status = summary.status;
        self.reader.shrink_buffer();
        Ok(summary)
    }
}

/// Writes an ERR packet to the client with sequence `seq` and flushes.
pub async fn send_error(client: &mut PacketWriter<OwnedWriteHalf>, seq: u8, err: &ErrPacket) -> io::Result<()> {
    client.set_sequence(seq);
    err.encode(&mut client.begin_packet());
    client.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_frames_and_gives_up_past_its_limit() {
        let mut c = Capture::new(20);
        c.add(b"abc");
        c.add(b"de");
        assert_eq!(captured_packets(&c.buf).collect::<Vec<_>>(), vec![&b"abc"[..], &b"de"[..]]);
        assert!(!c.overflowed);
        c.add(&[7; 10]);
        assert!(c.overflowed && c.buf.is_empty());
        c.add(b"x");
        assert!(c.buf.is_empty());
    }

    #[test]
    fn end_packet_status_is_patched_in_both_formats() {
        use selkie_protocol::constants::status::*;
        use selkie_protocol::response::{encode_eof, encode_ok};
        let mut eof = Vec::new();
        encode_eof(&mut eof, 3, SERVER_STATUS_IN_TRANS | SERVER_QUERY_NO_INDEX_USED);
        patch_transaction_status(&mut eof, false, SERVER_STATUS_AUTOCOMMIT);
        assert_eq!(
            parse_result_end(&eof, false).unwrap().status,
            SERVER_STATUS_AUTOCOMMIT | SERVER_QUERY_NO_INDEX_USED
        );
        assert_eq!(parse_result_end(&eof, false).unwrap().warnings, 3);
        let mut ok = Vec::new();
        encode_ok(&mut ok, EOF_HEADER, 300, 70000, SERVER_STATUS_AUTOCOMMIT, 1, b"");
        patch_transaction_status(&mut ok, true, SERVER_STATUS_IN_TRANS);
        let parsed = parse_result_end(&ok, true).unwrap();
        assert_eq!((parsed.status, parsed.affected_rows, parsed.last_insert_id), (SERVER_STATUS_IN_TRANS, 300, 70000));
        // Rows and truncated packets are left alone.
        let mut row = vec![0x03, b'a', b'b', b'c'];
        patch_transaction_status(&mut row, true, 0xFFFF);
        assert_eq!(row, vec![0x03, b'a', b'b', b'c']);
        assert_eq!(end_packet_status_offset(&[EOF_HEADER, 0], false), None);
    }

    #[test]
    fn captured_packets_tolerates_truncation() {
        let framed = [3u8, 0, 0, 0, b'a', b'b'];
        assert_eq!(captured_packets(&framed).collect::<Vec<_>>(), vec![&b"ab"[..]]);
        assert_eq!(captured_packets(&[1u8, 0]).count(), 0);
    }
}
