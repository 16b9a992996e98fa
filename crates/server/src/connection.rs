//! One client connection: the handshake, then the command loop dispatching to `sql::Session`.
//!
//! Each connection is one tokio task. While idle it holds only its socket, two small buffers
//! (4 KiB each, shrunk back after large packets), its session and its registry entry; execution
//! futures are boxed per command so their size is not paid by idle connections.
//!
//! Error policy: a framing error (oversized packet, sequence mismatch) or a malformed command
//! payload gets an ERR and the connection is closed, because the peers no longer agree on the
//! conversation. SQL errors and unknown commands get an ERR and the connection continues.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use selkie_protocol::auth::new_scramble;
use selkie_protocol::auth_switch::{answers_native_password, request_native_password};
use selkie_protocol::command::{
    decode_execute_params, ChangeUser, Command, ParamType, PrepareOk, StmtExecute, LAST_PREPARED_STATEMENT, MAX_PARAMS,
};
use selkie_protocol::constants::{
    capabilities::*, charset, column_flags as wire_flags, status::SERVER_STATUS_AUTOCOMMIT, MYSQL_NATIVE_PASSWORD,
    MYSQL_OPTION_MULTI_STATEMENTS_OFF, MYSQL_OPTION_MULTI_STATEMENTS_ON, SCRAMBLE_LEN,
};
use selkie_protocol::error::codes;
use selkie_protocol::handshake::{ClientHello, Greeting, HandshakeResponse};
use selkie_protocol::packet::{PacketReader, PacketWriter};
use selkie_protocol::response::{encode_eof, encode_err, encode_ok, ErrPacket, EOF_HEADER, OK_HEADER};
use selkie_protocol::value::BinaryValue;
use selkie_protocol::wire::{put_lenenc_bytes, put_lenenc_with};
use selkie_protocol::ProtocolError;
use selkie_sql::value::{format_text, implicit_default, LikePattern, SqlType};
use selkie_sql::{Interrupt, Session, SessionInfo, SqlError, SqlServer, Value};
use selkie_storage::{ColumnDef, ColumnDefault, TableDef};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tracing::{debug, info};

use crate::auth::{display_host, Accounts, ACCESS_DENIED_CODE, ACCESS_DENIED_STATE};
use crate::convert::param_value;
use crate::registry::{Activity, Admission, ConnectionEntry, Registry};
use crate::sink::{status_flags, RowFormat, SinkState, WireSink, FLUSH_THRESHOLD};

/// Time a client has to complete the handshake (MariaDB's connect_timeout default).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Largest packet accepted before authentication (connect attributes included).
pub const HANDSHAKE_MAX_PACKET: u64 = 64 * 1024;

/// State shared by all connections.
pub struct Shared {
    pub sql: Arc<SqlServer>,
    pub registry: Arc<Registry>,
    pub accounts: Accounts,
    /// Version string of the greeting (`5.5.5-` + the server version, as MariaDB sends it).
    pub greeting_version: String,
    /// `--max-allowed-packet`, used when the global variable cannot be read.
    pub max_allowed_packet: u64,
}

impl Shared {
    /// The current global max_allowed_packet (SET GLOBAL affects new connections, as in MariaDB).
    fn max_allowed_packet(&self) -> u64 {
        self.sql
            .global_variable("max_allowed_packet")
            .and_then(|v| v.parse().ok())
            .filter(|v| (crate::config::MIN_MAX_ALLOWED_PACKET..=crate::config::MAX_MAX_ALLOWED_PACKET).contains(v))
            .unwrap_or(self.max_allowed_packet)
    }
}

/// Unregisters the connection however its task ends (including a panic in a lower layer).
struct RegistrationGuard {
    registry: Arc<Registry>,
    entry: Arc<ConnectionEntry>,
}

impl Drop for RegistrationGuard {
    fn drop(&mut self) {
        self.registry.unregister(&self.entry);
    }
}

/// Serves one accepted connection until it closes.
pub async fn serve(shared: Arc<Shared>, stream: TcpStream, peer: SocketAddr, admission: Admission) {
    let _admission = admission;
    let entry = shared.registry.register(peer);
    let _guard = RegistrationGuard { registry: shared.registry.clone(), entry: entry.clone() };
    let (read, write) = stream.into_split();
    let mut reader = PacketReader::new(read, HANDSHAKE_MAX_PACKET);
    let mut writer = PacketWriter::new(write);

    let login =
        match tokio::time::timeout(CONNECT_TIMEOUT, handshake(&shared, &entry, &mut reader, &mut writer, peer)).await {
            Ok(Ok(Some(login))) => login,
            Ok(Ok(None)) => {
                shared.registry.note_aborted_connect();
                return;
            }
            Ok(Err(e)) => {
                debug!(id = entry.id, %peer, error = %e, "handshake failed");
                shared.registry.note_aborted_connect();
                return;
            }
            Err(_) => {
                debug!(id = entry.id, %peer, "handshake timed out");
                shared.registry.note_aborted_connect();
                return;
            }
        };
    reader.set_max_payload(shared.max_allowed_packet());
    let interrupt = login.session.interrupt_flag();
    entry.set_interrupt_flag(interrupt.clone());
    shared.registry.attach_status_counters(&entry, login.session.status_counters());
    let mut conn = Connection {
        reader,
        ctx: Context {
            shared: shared.clone(),
            entry: entry.clone(),
            writer,
            peer,
            capabilities: login.capabilities,
            scramble: login.scramble,
            session: login.session,
            interrupt,
            statements: HashMap::new(),
            last_prepared: None,
            sink_state: SinkState::default(),
            questions: 0,
            param_slots: Vec::new(),
            params: Vec::new(),
            local_infile: None,
        },
        drain_on_close: false,
    };
    let aborted = conn.run().await;
    if aborted {
        shared.registry.note_aborted_client();
    }
    if conn.drain_on_close {
        drain_before_close(&mut conn.reader, &mut conn.ctx.writer).await;
    }
    conn.ctx.session.close();
    conn.ctx.publish(&conn.reader);
}

/// A successfully authenticated client.
struct Login {
    session: Session,
    capabilities: u32,
    scramble: [u8; SCRAMBLE_LEN],
}

fn write_err<W: tokio::io::AsyncWrite + Unpin>(writer: &mut PacketWriter<W>, code: u16, state: &str, message: &str) {
    encode_err(&mut writer.begin_packet(), code, state, message);
}

/// Sends the ERR for an error in reading a packet whose sequence id should have been
/// `expected`: the answer continues after the offending packet.
async fn report_read_error<W: tokio::io::AsyncWrite + Unpin>(
    writer: &mut PacketWriter<W>,
    expected: u8,
    e: &ProtocolError,
) {
    let seq = match e {
        ProtocolError::OutOfOrder { got, .. } => got.wrapping_add(1),
        _ => expected.wrapping_add(1),
    };
    report_protocol_error(writer, seq, e).await;
}

/// Sends the ERR a protocol error calls for (if the connection can still take it), with
/// sequence id `seq`.
async fn report_protocol_error<W: tokio::io::AsyncWrite + Unpin>(
    writer: &mut PacketWriter<W>,
    seq: u8,
    e: &ProtocolError,
) {
    if let Some(err) = e.to_err_packet() {
        writer.discard_pending();
        writer.set_sequence(seq);
        err.encode(&mut writer.begin_packet());
        let _ = writer.flush().await;
    }
}

/// How long, and how many bytes, a connection closed for a bad packet keeps reading (and
/// discarding) what the client is still sending.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);
const DRAIN_MAX_BYTES: usize = 64 << 20;

/// Closes a connection that was refused a packet mid-stream (e.g. one over max_allowed_packet)
/// so that the client reads the ERR. Closing a socket with unread input makes the kernel send
/// RST, which can make the client's write fail and its pending ERR be discarded; sending FIN and
/// draining the rest (bounded in time and bytes) lets the client finish writing and then read
/// the ERR and the end of the stream, as MariaDB's clients expect.
async fn drain_before_close(reader: &mut PacketReader<OwnedReadHalf>, writer: &mut PacketWriter<OwnedWriteHalf>) {
    use tokio::io::AsyncReadExt;
    let _ = writer.flush().await;
    let _ = writer.shutdown().await;
    let read_half = reader.get_mut();
    let drain = async {
        let mut buf = vec![0u8; 64 * 1024];
        let mut total = 0usize;
        while total < DRAIN_MAX_BYTES {
            match read_half.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => total += n,
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, drain).await;
}

/// Runs the connection phase. `Ok(None)`: the client was refused (an ERR was sent).
async fn handshake(
    shared: &Shared,
    entry: &ConnectionEntry,
    reader: &mut PacketReader<OwnedReadHalf>,
    writer: &mut PacketWriter<OwnedWriteHalf>,
    peer: SocketAddr,
) -> Result<Option<Login>, ProtocolError> {
    let scramble = new_scramble();
    let greeting = Greeting {
        server_version: shared.greeting_version.clone(),
        // Connection ids beyond u32 wrap in the greeting only; KILL uses the full id.
        connection_id: entry.id as u32,
        scramble,
        capabilities: SERVER_DEFAULT,
        charset: charset::UTF8MB4_GENERAL_CI as u8,
        status: SERVER_STATUS_AUTOCOMMIT,
        auth_plugin: MYSQL_NATIVE_PASSWORD.to_string(),
    };
    greeting.encode(&mut writer.begin_packet());
    writer.flush().await?;
    reader.set_sequence(writer.sequence());

    let payload = match reader.read_packet().await {
        Ok(p) => p,
        Err(e) => {
            report_read_error(writer, reader.sequence(), &e).await;
            return Err(e);
        }
    };
    let response = match HandshakeResponse::parse(payload, SERVER_DEFAULT) {
        Ok(ClientHello::Response(r)) => r,
        Ok(ClientHello::SslRequest) => {
            writer.set_sequence(reader.sequence());
            write_err(writer, 1043, "08S01", "Bad handshake: SSL is not supported by this server");
            writer.flush().await?;
            return Ok(None);
        }
        Err(ProtocolError::Unsupported(_)) => {
            writer.set_sequence(reader.sequence());
            write_err(
                writer,
                codes::NOT_SUPPORTED_AUTH_MODE,
                "08004",
                "Client does not support authentication protocol requested by server; consider upgrading MariaDB client",
            );
            writer.flush().await?;
            return Ok(None);
        }
        Err(e) => {
            report_protocol_error(writer, reader.sequence(), &e).await;
            return Err(e);
        }
    };

    // A client that names another plugin (or answers for one) is asked to switch.
    let token = if answers_native_password(&response.auth_plugin) {
        response.auth_response.clone()
    } else {
        let seq = reader.sequence();
        match request_native_password(reader, writer, seq, &scramble).await {
            Ok(token) => token,
            Err(e) => {
                // A failed send is an I/O error, for which nothing is reported.
                report_read_error(writer, reader.sequence(), &e).await;
                return Err(e);
            }
        }
    };
    writer.set_sequence(reader.sequence());

    if let Err(denied) = shared.accounts.authenticate(&response.user, peer.ip(), &scramble, &token) {
        info!(id = entry.id, %peer, "{}", denied.message);
        write_err(writer, ACCESS_DENIED_CODE, ACCESS_DENIED_STATE, &denied.message);
        writer.flush().await?;
        return Ok(None);
    }
    let info = SessionInfo { connection_id: entry.id, user: response.user.clone(), host: display_host(peer.ip()) };
    let mut session = match Session::new(shared.sql.clone(), info) {
        Ok(s) => s,
        Err(e) => {
            write_err(writer, e.code, e.state, &e.message);
            writer.flush().await?;
            return Ok(None);
        }
    };
    if let Some(db) = &response.database {
        if let Err(e) = session.use_database(db) {
            session.close();
            write_err(writer, e.code, e.state, &e.message);
            writer.flush().await?;
            return Ok(None);
        }
    }
    // Without CLIENT_MULTI_STATEMENTS a COM_QUERY holds one statement (MariaDB: 1064 otherwise).
    session.set_multi_statements(response.capabilities & CLIENT_MULTI_STATEMENTS != 0);
    session.set_client_found_rows(response.capabilities & CLIENT_FOUND_ROWS != 0);
    session.set_local_files(response.capabilities & CLIENT_LOCAL_FILES != 0);
    session.set_client_collation(u16::from(response.charset));
    entry.set_identity(&response.user, session.current_database());
    entry.end(session.current_database());
    encode_ok(&mut writer.begin_packet(), OK_HEADER, 0, 0, status_flags(session.status()), 0, b"");
    writer.flush().await?;
    Ok(Some(Login { session, capabilities: response.capabilities, scramble }))
}

/// Server-side state of one prepared statement (what the SQL layer does not keep).
struct Statement {
    param_count: usize,
    /// Types bound by the last execute that sent them.
    bound: Vec<ParamType>,
    /// Data from COM_STMT_SEND_LONG_DATA, per parameter, for the next execute.
    long_data: Vec<Option<Vec<u8>>>,
    /// An error found while receiving long data; reported by the next execute.
    long_data_error: Option<SqlError>,
    /// Statement text, shown by SHOW PROCESSLIST while it executes.
    sql: String,
}

impl Statement {
    fn new(param_count: usize, sql: String) -> Statement {
        Statement { param_count, bound: Vec::new(), long_data: Vec::new(), long_data_error: None, sql }
    }

    fn clear_long_data(&mut self) {
        self.long_data.clear();
        self.long_data_error = None;
    }
}

struct Connection {
    reader: PacketReader<OwnedReadHalf>,
    ctx: Context,
    /// The connection ends because of a bad packet whose rest the client may still be sending.
    drain_on_close: bool,
}

/// Everything a command needs except the reader (which lends the command's payload).
struct Context {
    shared: Arc<Shared>,
    entry: Arc<ConnectionEntry>,
    writer: PacketWriter<OwnedWriteHalf>,
    peer: SocketAddr,
    capabilities: u32,
    /// The greeting's challenge; COM_CHANGE_USER answers are computed over it.
    scramble: [u8; SCRAMBLE_LEN],
    session: Session,
    interrupt: Arc<Interrupt>,
    statements: HashMap<u32, Statement>,
    last_prepared: Option<u32>,
    sink_state: SinkState,
    questions: u64,
    /// Reused per COM_STMT_EXECUTE.
    param_slots: Vec<Option<BinaryValue>>,
    params: Vec<Value>,
    /// A COM_QUERY's LOAD DATA LOCAL waits for this file from the client (`Connection::
    /// local_infile`), its result not yet sent.
    local_infile: Option<String>,
}

/// What to do after a command.
#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Close,
}

impl Connection {
    /// LOAD DATA LOCAL: asks the client for `name` (a 0xFB packet), reads the file's packets up
    /// to the empty one that ends it, then runs the load and sends its result.
    async fn local_infile(&mut self, name: &str) -> Flow {
        let mut request = Vec::with_capacity(name.len() + 1);
        request.push(0xFB);
        request.extend_from_slice(name.as_bytes());
        self.ctx.writer.write_packet(&request);
        if self.ctx.writer.flush().await.is_err() {
            return Flow::Close;
        }
        self.reader.set_sequence(self.ctx.writer.sequence());
        let mut data = Vec::new();
        loop {
            match self.reader.read_packet().await {
                Ok([]) => break,
                Ok(p) => data.extend_from_slice(p),
                Err(_) => return Flow::Close,
            }
        }
        self.ctx.writer.set_sequence(self.reader.sequence());
        self.ctx.finish_local_infile(data).await
    }

    /// The command loop. Returns true if the connection ended abnormally (Aborted_clients).
    async fn run(&mut self) -> bool {
        loop {
            self.reader.reset_sequence();
            self.reader.shrink_buffer();
            let received_before = self.reader.bytes_read();
            let payload = tokio::select! {
                biased;
                _ = self.ctx.entry.killed() => return false,
                r = self.reader.read_packet_and_sequence() => r,
            };
            let (payload, next_seq) = match payload {
                Ok(p) => p,
                Err(ProtocolError::ConnectionClosed) => return true,
                Err(ProtocolError::Io(_)) => return true,
                Err(e @ ProtocolError::PacketTooLarge { .. }) => {
                    debug!(id = self.ctx.entry.id, error = %e, "packet over max_allowed_packet");
                    // The client sent the whole packet before reading: its ERR must carry the
                    // sequence id after the packet's last chunk, which only reading it tells.
                    let skipped =
                        tokio::time::timeout(DRAIN_TIMEOUT, self.reader.skip_refused_packet(DRAIN_MAX_BYTES as u64));
                    let seq = match skipped.await {
                        Ok(Ok(seq)) => seq,
                        _ => self.reader.sequence().wrapping_add(1),
                    };
                    report_protocol_error(&mut self.ctx.writer, seq, &e).await;
                    self.drain_on_close = true;
                    return true;
                }
                Err(e) => {
                    debug!(id = self.ctx.entry.id, error = %e, "bad packet");
                    report_read_error(&mut self.ctx.writer, self.reader.sequence(), &e).await;
                    self.drain_on_close = true;
                    return true;
                }
            };
            self.ctx.writer.set_sequence(next_seq);
            // Count this command before running it, so status it reports includes itself (as in
            // MariaDB); the count is settled after the command.
            self.ctx.entry.publish(
                self.ctx.questions + 1,
                received_before + payload.len() as u64,
                self.ctx.writer.bytes_written(),
            );
            let written_before = self.ctx.writer.bytes_written();
            let first_response_seq = self.ctx.writer.sequence();
            let flow = match Command::parse(payload, self.ctx.capabilities) {
                Ok(Command::Quit) => return false,
                Ok(cmd) => {
                    let flow = self.ctx.dispatch(cmd).await;
                    match self.ctx.local_infile.take() {
                        Some(name) => self.local_infile(&name).await,
                        None => flow,
                    }
                }
                Err(e) => {
                    let seq = self.ctx.writer.sequence();
                    report_protocol_error(&mut self.ctx.writer, seq, &e).await;
                    self.drain_on_close = true;
                    Flow::Close
                }
            };
            self.ctx.interrupt.clear();
            self.ctx.entry.end(self.ctx.session.current_database());
            if self.ctx.entry.is_killed() {
                let partly_sent = self.ctx.writer.bytes_written() != written_before;
                self.ctx.report_killed(first_response_seq, partly_sent).await;
                return false;
            }
            if flow == Flow::Close {
                let _ = self.ctx.writer.flush().await;
                return false;
            }
            // Pipelined commands already received are answered before one combined write.
            let answer_now = !self.reader.has_buffered_packet() || self.ctx.writer.pending() >= FLUSH_THRESHOLD;
            if answer_now && self.ctx.writer.flush().await.is_err() {
                return true;
            }
            self.ctx.publish(&self.reader);
        }
    }
}

impl Context {
    fn deprecate_eof(&self) -> bool {
        self.capabilities & CLIENT_DEPRECATE_EOF != 0
    }

    fn status(&self) -> u16 {
        status_flags(self.session.status())
    }

    fn publish(&self, reader: &PacketReader<OwnedReadHalf>) {
        self.entry.publish(self.questions, reader.bytes_read(), self.writer.bytes_written());
    }

    fn err(&mut self, code: u16, state: &str, message: &str) {
        write_err(&mut self.writer, code, state, message);
    }

    fn sql_err(&mut self, e: &SqlError) {
        write_err(&mut self.writer, e.code, e.state, &e.message);
    }

    fn ok(&mut self) {
        let status = self.status();
        encode_ok(&mut self.writer.begin_packet(), OK_HEADER, 0, 0, status, 0, b"");
    }

    /// The end of a list of definitions or of COM_FIELD_LIST / COM_SET_OPTION: EOF, or an OK
    /// with header 0xFE under CLIENT_DEPRECATE_EOF.
    fn end_marker(&mut self) {
        let status = self.status();
        let deprecate_eof = self.deprecate_eof();
        let mut p = self.writer.begin_packet();
        if deprecate_eof {
            encode_ok(&mut p, EOF_HEADER, 0, 0, status, 0, b"");
        } else {
            encode_eof(&mut p, 0, status);
        }
    }

    /// The connection was killed (KILL or shutdown) while a command ran: the client gets an
    /// error instead of the command's result, or after the part of it that already went out.
    async fn report_killed(&mut self, first_response_seq: u8, partly_sent: bool) {
        let (code, state, message) = if self.shared.registry.is_shutting_down() {
            (1053, "08S01", "Server shutdown in progress")
        } else {
            (1927, "70100", "Connection was killed")
        };
        if !partly_sent {
            self.writer.discard_pending();
            self.writer.set_sequence(first_response_seq);
        }
        self.err(code, state, message);
        let _ = self.writer.flush().await;
    }

    async fn dispatch(&mut self, cmd: Command<'_>) -> Flow {
        match cmd {
            Command::Query(sql) => self.query(sql).await,
            Command::StmtPrepare(sql) => self.prepare(sql),
            Command::StmtExecute(e) => self.execute(e).await,
            Command::StmtSendLongData { statement_id, param, data } => {
                self.send_long_data(statement_id, param as usize, data);
                Flow::Continue
            }
            Command::StmtClose(id) => {
                self.session.close_prepared(id);
                self.statements.remove(&id);
                if self.last_prepared == Some(id) {
                    self.last_prepared = None;
                }
                Flow::Continue
            }
            Command::StmtReset(id) => {
                self.questions += 1;
                match self.session.reset_prepared(id) {
                    Ok(()) => {
                        if let Some(st) = self.statements.get_mut(&id) {
                            st.clear_long_data();
                        }
                        self.ok();
                    }
                    Err(e) => self.sql_err(&e),
                }
                Flow::Continue
            }
            Command::StmtFetch { statement_id, .. } => {
                self.questions += 1;
                // No cursors are ever opened: results of COM_STMT_EXECUTE are sent in full.
                if self.session.prepared_param_count(statement_id).is_some() {
                    self.err(1421, "HY000", &format!("The statement ({statement_id}) has no open cursor."));
                } else {
                    self.err(
                        1243,
                        "HY000",
                        &format!("Unknown prepared statement handler ({statement_id}) given to mysqld_stmt_fetch"),
                    );
                }
                Flow::Continue
            }
            Command::InitDb(db) => {
                self.questions += 1;
                self.entry.begin(Activity::InitDb, None);
                match std::str::from_utf8(db) {
                    Ok(db) => match self.session.use_database(db) {
                        Ok(()) => self.ok(),
                        Err(e) => self.sql_err(&e),
                    },
                    Err(_) => self.err(1049, "42000", &format!("Unknown database '{}'", String::from_utf8_lossy(db))),
                }
                Flow::Continue
            }
            Command::Ping => {
                self.ok();
                Flow::Continue
            }
            Command::FieldList { table, wildcard } => {
                self.questions += 1;
                self.entry.begin(Activity::FieldList, None);
                self.field_list(table, wildcard);
                Flow::Continue
            }
            Command::Statistics => {
                let text = self.statistics();
                self.writer.write_packet(text.as_bytes());
                Flow::Continue
            }
            Command::ProcessKill(id) => {
                self.questions += 1;
                if selkie_sql::ServerHooks::kill(&*self.shared.registry, id as u64, false) {
                    self.ok();
                } else {
                    self.err(1094, "HY000", &format!("Unknown thread id: {id}"));
                }
                Flow::Continue
            }
            Command::SetOption(option) => {
                self.questions += 1;
                match option {
                    MYSQL_OPTION_MULTI_STATEMENTS_ON | MYSQL_OPTION_MULTI_STATEMENTS_OFF => {
                        let on = option == MYSQL_OPTION_MULTI_STATEMENTS_ON;
                        if on {
                            self.capabilities |= CLIENT_MULTI_STATEMENTS;
                        } else {
                            self.capabilities &= !CLIENT_MULTI_STATEMENTS;
                        }
                        self.session.set_multi_statements(on);
                        self.end_marker();
                    }
                    _ => self.err(codes::UNKNOWN_COM_ERROR, "08S01", "Unknown command"),
                }
                Flow::Continue
            }
            Command::ResetConnection => {
                self.questions += 1;
                self.session.reset();
                self.statements.clear();
                self.last_prepared = None;
                self.ok();
                Flow::Continue
            }
            Command::Debug => {
                self.end_marker();
                Flow::Continue
            }
            Command::ChangeUser(cu) => self.change_user(cu),
            Command::Quit => Flow::Close,
            Command::Unknown(_) => {
                self.err(codes::UNKNOWN_COM_ERROR, "08S01", "Unknown command");
                Flow::Continue
            }
        }
    }

    /// Statement text as UTF-8: as sent, or with binary string literals rewritten in hex
    /// (`query_text`); otherwise ERR 1300 naming the first invalid bytes as MariaDB does. The
    /// SQL layer takes `&str`, so other bytes cannot be executed faithfully.
    fn statement_text<'p>(&mut self, sql: &'p [u8]) -> Option<std::borrow::Cow<'p, str>> {
        match std::str::from_utf8(sql) {
            Ok(s) => Some(std::borrow::Cow::Borrowed(s)),
            Err(e) => {
                if let Some(text) = crate::query_text::invalid_literals_as_hex(sql) {
                    return Some(std::borrow::Cow::Owned(text));
                }
                let bad = &sql[e.valid_up_to()..];
                let hex: String = bad.iter().take(8).map(|b| format!("{b:02X}")).collect();
                self.err(1300, "HY000", &format!("Invalid utf8mb4 character string: '{hex}'"));
                None
            }
        }
    }

    async fn query(&mut self, sql: &[u8]) -> Flow {
        let Some(sql) = self.statement_text(sql) else {
            self.questions += 1;
            return Flow::Continue;
        };
        let sql = &*sql;
        // Before the statement shows in SHOW PROCESSLIST: a KILL QUERY aimed at it from then on
        // must find the flag set, not see it cleared when the statement starts.
        self.session.begin_command();
        self.entry.begin(Activity::Query, Some(sql));
        let status = self.status();
        let deprecate_eof = self.deprecate_eof();
        let mut sink = WireSink::new(&mut self.writer, &mut self.sink_state, RowFormat::Text, deprecate_eof, status);
        // Boxed: the statement future is large and idle connections should not carry it.
        let result = Box::pin(self.session.execute_text(sql, &mut sink)).await;
        if result.is_ok() {
            if let Some(name) = self.session.take_local_infile_request() {
                // The result follows the file (`Connection::local_infile`).
                self.questions += 1;
                self.local_infile = Some(name);
                return Flow::Continue;
            }
        }
        let final_status = status_flags(self.session.status());
        let finished = sink.finish(final_status, result);
        self.questions += finished.statements;
        if finished.write_error.is_some() {
            return Flow::Close;
        }
        Flow::Continue
    }

    /// The result of a LOAD DATA LOCAL, on the file the client sent.
    async fn finish_local_infile(&mut self, data: Vec<u8>) -> Flow {
        let status = self.status();
        let deprecate_eof = self.deprecate_eof();
        let mut sink = WireSink::new(&mut self.writer, &mut self.sink_state, RowFormat::Text, deprecate_eof, status);
        let result = Box::pin(self.session.finish_local_infile(data, &mut sink)).await;
        let final_status = status_flags(self.session.status());
        if sink.finish(final_status, result).write_error.is_some() {
            return Flow::Close;
        }
        Flow::Continue
    }

    fn prepare(&mut self, sql: &[u8]) -> Flow {
        self.questions += 1;
        let Some(sql) = self.statement_text(sql) else {
            return Flow::Continue;
        };
        let sql = &*sql;
        self.entry.begin(Activity::Prepare, Some(sql));
        let info = match self.session.prepare(sql) {
            Ok(info) => info,
            Err(e) => {
                self.sql_err(&e);
                return Flow::Continue;
            }
        };
        if info.params.len() > MAX_PARAMS || info.columns.len() > u16::MAX as usize {
            self.session.close_prepared(info.statement_id);
            self.err(1390, "HY000", "Prepared statement contains too many placeholders");
            return Flow::Continue;
        }
        let ok = PrepareOk {
            statement_id: info.statement_id,
            columns: info.columns.len() as u16,
            params: info.params.len() as u16,
            warnings: self.session.warning_count(),
        };
        ok.encode(&mut self.writer.begin_packet());
        for list in [&info.params, &info.columns] {
            if list.is_empty() {
                continue;
            }
            for c in list.iter() {
                c.encode(&mut self.writer.begin_packet());
            }
            if !self.deprecate_eof() {
                self.end_marker();
            }
        }
        self.statements.insert(info.statement_id, Statement::new(info.params.len(), sql.to_string()));
        self.last_prepared = Some(info.statement_id);
        Flow::Continue
    }

    async fn execute(&mut self, e: StmtExecute<'_>) -> Flow {
        self.questions += 1;
        let id = if e.statement_id == LAST_PREPARED_STATEMENT {
            self.last_prepared.unwrap_or(e.statement_id)
        } else {
            e.statement_id
        };
        let Some(param_count) = self.session.prepared_param_count(id) else {
            self.err(1243, "HY000", &format!("Unknown prepared statement handler ({id}) given to mysqld_stmt_execute"));
            return Flow::Continue;
        };
        let st = self.statements.entry(id).or_insert_with(|| Statement::new(param_count, String::new()));
        // A statement whose long data was refused fails every execute until COM_STMT_RESET
        // (MariaDB keeps the prepared statement in its error state).
        if let Some(err) = st.long_data_error.clone() {
            self.sql_err(&err);
            return Flow::Continue;
        }
        let long_data = &st.long_data;
        let decoded = decode_execute_params(
            e.params,
            param_count,
            &mut st.bound,
            |i| long_data.get(i).is_some_and(|d| d.is_some()),
            &mut self.param_slots,
        );
        if let Err(err) = decoded {
            debug!(id = self.entry.id, error = %err, "malformed COM_STMT_EXECUTE");
            self.err(1210, "HY000", "Incorrect arguments to mysqld_stmt_execute");
            return Flow::Close;
        }
        self.params.clear();
        for (i, slot) in self.param_slots.drain(..).enumerate() {
            self.params.push(match slot {
                Some(v) => param_value(v, st.bound[i]),
                None => Value::Bytes(st.long_data[i].take().unwrap_or_default()),
            });
        }
        st.clear_long_data();
        self.session.begin_command();
        self.entry.begin(Activity::Execute, Some(&st.sql));

        let status = self.status();
        let deprecate_eof = self.deprecate_eof();
        let mut sink = WireSink::new(&mut self.writer, &mut self.sink_state, RowFormat::Binary, deprecate_eof, status);
        let result = Box::pin(self.session.execute_prepared(id, &self.params, &mut sink)).await;
        let final_status = status_flags(self.session.status());
        let finished = sink.finish(final_status, result);
        self.params.clear();
        if finished.write_error.is_some() {
            return Flow::Close;
        }
        Flow::Continue
    }

    /// COM_STMT_SEND_LONG_DATA has no response; problems surface at the next execute.
    fn send_long_data(&mut self, id: u32, param: usize, data: &[u8]) {
        let limit = self.shared.max_allowed_packet() as usize;
        let st = match self.statements.get_mut(&id) {
            Some(st) => st,
            None => match self.session.prepared_param_count(id) {
                Some(n) => self.statements.entry(id).or_insert_with(|| Statement::new(n, String::new())),
                None => return, // unknown statement: nothing to report it to
            },
        };
        if st.long_data_error.is_some() {
            return;
        }
        if param >= st.param_count {
            st.long_data_error =
                Some(SqlError::new(1210, "HY000", "Incorrect arguments to mysqld_stmt_send_long_data"));
            return;
        }
        if st.long_data.len() < st.param_count {
            st.long_data.resize(st.param_count, None);
        }
        let buf = st.long_data[param].get_or_insert_with(Vec::new);
        if buf.len() + data.len() > limit {
            // MariaDB reports this one as ER_UNKNOWN_ERROR (1105), not ER_NET_PACKET_TOO_LARGE.
            st.long_data_error = Some(SqlError::new(
                1105,
                "HY000",
                "Parameter of prepared statement which is set through mysql_send_long_data() is longer than 'max_allowed_packet' bytes",
            ));
            st.long_data[param] = None;
            return;
        }
        buf.extend_from_slice(data);
    }

    fn change_user(&mut self, cu: ChangeUser) -> Flow {
        self.questions += 1;
        self.entry.begin(Activity::ChangeUser, None);
        // mysql_native_password answers are computed over the greeting's scramble; a client
        // using another plugin cannot be verified here and is refused.
        let verdict = if answers_native_password(&cu.auth_plugin) {
            self.shared.accounts.authenticate(&cu.user, self.peer.ip(), &self.scramble, &cu.auth_response)
        } else {
            Err(crate::auth::access_denied(&cu.user, &display_host(self.peer.ip()), !cu.auth_response.is_empty()))
        };
        if let Err(denied) = verdict {
            info!(id = self.entry.id, peer = %self.peer, "{}", denied.message);
            self.err(ACCESS_DENIED_CODE, ACCESS_DENIED_STATE, &denied.message);
            return Flow::Close;
        }
        // The old session's transaction rolls back now; its engine slot is freed when the new
        // session replaces it (the server reserves engine slots for that overlap).
        self.session.close();
        let info =
            SessionInfo { connection_id: self.entry.id, user: cu.user.clone(), host: display_host(self.peer.ip()) };
        let mut session = match Session::new(self.shared.sql.clone(), info) {
            Ok(s) => s,
            Err(e) => {
                self.sql_err(&e);
                return Flow::Close;
            }
        };
        if let Some(db) = &cu.database {
            if let Err(e) = session.use_database(db) {
                session.close();
                self.sql_err(&e);
                return Flow::Close;
            }
        }
        session.set_multi_statements(self.capabilities & CLIENT_MULTI_STATEMENTS != 0);
        session.set_client_found_rows(self.capabilities & CLIENT_FOUND_ROWS != 0);
        session.set_local_files(self.capabilities & CLIENT_LOCAL_FILES != 0);
        self.session = session;
        self.interrupt = self.session.interrupt_flag();
        self.entry.set_interrupt_flag(self.interrupt.clone());
        self.shared.registry.attach_status_counters(&self.entry, self.session.status_counters());
        self.entry.set_identity(&cu.user, self.session.current_database());
        self.statements.clear();
        self.last_prepared = None;
        self.ok();
        Flow::Continue
    }

    fn field_list(&mut self, table: &[u8], wildcard: &[u8]) {
        let Some(db) = self.session.current_database().map(str::to_string) else {
            self.err(1046, "3D000", "No database selected");
            return;
        };
        let table_name = String::from_utf8_lossy(table).into_owned();
        let catalog = self.shared.sql.engine().catalog();
        let Some(def) = catalog.table(&db, &table_name).cloned() else {
            self.err(1146, "42S02", &format!("Table '{db}.{table_name}' doesn't exist"));
            return;
        };
        let pattern = (!wildcard.is_empty()).then(|| LikePattern::compile(wildcard, b'\\'));
        for (i, col) in def.columns.iter().enumerate() {
            if pattern.as_ref().is_some_and(|p| !p.matches(col.name.as_bytes())) {
                continue;
            }
            let ty = SqlType::from_column(&col.ty);
            // As in result sets: CHAR/BINARY are STRING, INT(5) has length 5.
            let fm = selkie_sql::value::column_def_field_meta(col);
            let mut p = self.writer.begin_packet();
            selkie_protocol::resultset::encode_column_definition(
                &mut p,
                db.as_bytes(),
                def.name.as_bytes(),
                def.name.as_bytes(),
                col.name.as_bytes(),
                col.name.as_bytes(),
                fm.charset,
                fm.length,
                fm.field_type,
                column_flags(&def, i, col, fm.flags),
                fm.decimals,
            );
            put_default(&mut p, col, &ty);
        }
        self.end_marker();
    }

    /// COM_STATISTICS, in MariaDB's format.
    fn statistics(&mut self) -> String {
        let registry = &self.shared.registry;
        let uptime = registry.uptime_secs();
        let totals = registry.totals();
        let tables = self.shared.sql.engine().catalog().tables.len();
        let per_sec_milli = totals.questions * 1000 / uptime.max(1);
        format!(
            "Uptime: {uptime}  Threads: {}  Questions: {}  Slow queries: 0  Opens: {tables}  Open tables: {tables}  Queries per second avg: {}.{:03}",
            registry.active(),
            totals.questions,
            per_sec_milli / 1000,
            per_sec_milli % 1000
        )
    }
}

/// Key and default flags of a table column, as MariaDB reports them in COM_FIELD_LIST.
fn column_flags(table: &TableDef, index: usize, col: &ColumnDef, type_flags: u16) -> u16 {
    let mut f = type_flags;
    if !col.nullable {
        f |= wire_flags::NOT_NULL;
    }
    if table.primary.columns.iter().any(|c| c.column == index) {
        f |= wire_flags::PRI_KEY | PART_KEY_FLAG;
    }
    for ix in &table.secondary {
        if let Some(pos) = ix.columns.iter().position(|c| c.column == index) {
            f |= PART_KEY_FLAG;
            if ix.unique {
                f |= wire_flags::UNIQUE_KEY;
            } else if pos == 0 {
                f |= wire_flags::MULTIPLE_KEY;
            }
        }
    }
    if col.auto_increment {
        f |= wire_flags::AUTO_INCREMENT;
    }
    if !col.nullable && col.default == ColumnDefault::None && !col.auto_increment {
        f |= wire_flags::NO_DEFAULT_VALUE;
    }
    if col.on_update_current_timestamp {
        f |= wire_flags::ON_UPDATE_NOW;
    }
    f
}

/// PART_KEY_FLAG: the column is part of some index.
const PART_KEY_FLAG: u16 = 16384;

/// The default value COM_FIELD_LIST appends to each definition (NULL as 0xFB).
fn put_default(out: &mut Vec<u8>, col: &ColumnDef, ty: &SqlType) {
    let value = match &col.default {
        ColumnDefault::Value(v) => v.clone(),
        ColumnDefault::CurrentTimestamp => Value::Null,
        // MariaDB sends the expression's text for a DEFAULT (expr).
        ColumnDefault::Expression(text) => Value::Bytes(text.clone().into_bytes()),
        ColumnDefault::None if col.nullable => Value::Null,
        ColumnDefault::None => implicit_default(&col.ty),
    };
    match value {
        Value::Null => selkie_protocol::resultset::put_text_null(out),
        Value::Bytes(b) => put_lenenc_bytes(out, &b),
        v => put_lenenc_with(out, |out| format_text(&v, Some(ty), out)),
    }
}

/// For tests and diagnostics: the ERR a server sends when refusing a connection for capacity.
pub fn too_many_connections() -> ErrPacket {
    ErrPacket::new(1040, "08004", "Too many connections")
}

/// Refuses a connection beyond `max_connections`: ERR 1040 instead of a greeting, then close.
pub async fn refuse(stream: TcpStream) {
    let (_read, write) = stream.into_split();
    let mut writer = PacketWriter::new(write);
    too_many_connections().encode(&mut writer.begin_packet());
    if let Err(e) = writer.flush().await {
        debug!(error = %e, "could not send 'Too many connections'");
    }
    let _ = writer.shutdown().await;
}
