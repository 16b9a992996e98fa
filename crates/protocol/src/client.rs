//! The client side of the protocol: connect and authenticate (mysql_native_password, including
//! the auth-switch flow), text queries, prepared statements with binary rows, and the simple
//! commands. Used by the proxy to talk to backends and by tests to talk to real MariaDB.

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpStream, ToSocketAddrs};

use crate::auth::native_password_token;
use crate::auth_switch::{await_login_verdict, LoginVerdict};
use crate::command::{encode_stmt_execute, ChangeUser, Command, ParamType, PrepareOk};
use crate::constants::{
    capabilities::*, charset, status::SERVER_MORE_RESULTS_EXISTS, FieldType, MYSQL_NATIVE_PASSWORD,
};
use crate::error::{ProtocolError, Result};
use crate::handshake::{Greeting, HandshakeResponse};
use crate::packet::{PacketReader, PacketWriter, MAX_ALLOWED_PACKET_LIMIT};
use crate::response::{is_eof_packet, parse_result_end, ErrPacket, OkPacket, ERR_HEADER, OK_HEADER};
use crate::resultset::{parse_binary_row, parse_text_row, ColumnDefinition};
use crate::value::BinaryValue;
use crate::wire::Decoder;

/// Largest column count accepted in a result set (the count is a u16 in COM_STMT_PREPARE_OK;
/// anything above is a corrupt or hostile packet, not a reason to allocate).
const MAX_RESULT_COLUMNS: u64 = u16::MAX as u64;
/// Header byte of a LOCAL INFILE request (not supported by this client).
const LOCAL_INFILE_HEADER: u8 = 0xFB;

#[derive(Clone, Debug)]
pub struct ClientOptions {
    pub user: String,
    pub password: String,
    pub database: Option<String>,
    /// Requested capabilities (intersected with the server's).
    pub capabilities: u32,
    pub charset: u8,
    pub attributes: Vec<(String, String)>,
    /// Auth plugin named in the handshake response; anything but mysql_native_password makes a
    /// server switch us to it (useful to test the switch).
    pub auth_plugin: String,
    /// Largest packet accepted from the server.
    pub max_packet: u64,
}

impl ClientOptions {
    pub fn new(user: &str, password: &str) -> ClientOptions {
        ClientOptions {
            user: user.to_string(),
            password: password.to_string(),
            database: None,
            capabilities: CLIENT_DEFAULT,
            charset: charset::UTF8MB4_GENERAL_CI as u8,
            attributes: vec![("_client_name".into(), "selkie-protocol".into())],
            auth_plugin: MYSQL_NATIVE_PASSWORD.to_string(),
            max_packet: MAX_ALLOWED_PACKET_LIMIT,
        }
    }
}

pub type TextRow = Vec<Option<Vec<u8>>>;
pub type BinaryRow = Vec<BinaryValue>;

#[derive(Clone, Debug, PartialEq)]
pub struct ResultSet<R> {
    pub columns: Vec<ColumnDefinition>,
    pub rows: Vec<R>,
    /// Status flags and warnings of the packet that ended the rows.
    pub status: u16,
    pub warnings: u16,
}

/// One statement's outcome.
#[derive(Clone, Debug, PartialEq)]
pub enum Response<R> {
    Ok(OkPacket),
    Rows(ResultSet<R>),
}

impl<R> Response<R> {
    pub fn status(&self) -> u16 {
        match self {
            Response::Ok(ok) => ok.status,
            Response::Rows(rs) => rs.status,
        }
    }
}

/// A statement prepared on the server.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub statement_id: u32,
    pub params: Vec<ColumnDefinition>,
    pub columns: Vec<ColumnDefinition>,
    pub warnings: u16,
}

pub struct Client<R, W> {
    reader: PacketReader<R>,
    writer: PacketWriter<W>,
    capabilities: u32,
    greeting: Greeting,
    /// Status flags of the last OK/EOF.
    status: u16,
}

impl<R, W> std::fmt::Debug for Client<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("connection_id", &self.greeting.connection_id)
            .field("server_version", &self.greeting.server_version)
            .field("capabilities", &format_args!("{:#x}", self.capabilities))
            .field("status", &self.status)
            .finish()
    }
}

impl Client<OwnedReadHalf, OwnedWriteHalf> {
    pub async fn connect_tcp(addr: impl ToSocketAddrs, opts: &ClientOptions) -> Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (r, w) = stream.into_split();
        Client::connect(r, w, opts).await
    }
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Client<R, W> {
    /// Runs the connection phase over an already connected stream.
    pub async fn connect(read: R, write: W, opts: &ClientOptions) -> Result<Self> {
        let mut reader = PacketReader::new(read, opts.max_packet);
        let mut writer = PacketWriter::new(write);
        let payload = reader.read_packet().await?;
        if payload.first() == Some(&ERR_HEADER) {
            return Err(ProtocolError::Server(ErrPacket::parse(payload)?));
        }
        let greeting = Greeting::parse(payload)?;
        let mut caps = opts.capabilities & greeting.capabilities;
        if opts.database.is_some() {
            caps |= CLIENT_CONNECT_WITH_DB & greeting.capabilities;
        }
        if caps & CLIENT_PROTOCOL_41 == 0 {
            return Err(ProtocolError::Unsupported("server does not speak protocol 4.1".into()));
        }
        let auth_response = if opts.auth_plugin == MYSQL_NATIVE_PASSWORD {
            native_password_token(opts.password.as_bytes(), &greeting.scramble)
        } else {
            // Deliberately not a valid answer for the server's plugin: the server must switch.
            Vec::new()
        };
        let response = HandshakeResponse {
            capabilities: caps,
            max_packet: opts.max_packet.min(u32::MAX as u64) as u32,
            charset: opts.charset,
            user: opts.user.clone(),
            auth_response,
            database: opts.database.clone(),
            auth_plugin: opts.auth_plugin.clone(),
            attributes: opts.attributes.clone(),
        };
        writer.set_sequence(reader.sequence());
        response.encode(&mut writer.begin_packet());
        writer.flush().await?;
        reader.set_sequence(writer.sequence());
        let mut client = Client { reader, writer, capabilities: caps, greeting, status: 0 };
        client.finish_auth(opts.password.as_bytes()).await?;
        Ok(client)
    }

    /// Reads the server's verdict, answering auth switch requests, until OK or ERR.
    async fn finish_auth(&mut self, password: &[u8]) -> Result<()> {
        let answer = |scramble: &[u8]| native_password_token(password, scramble);
        match await_login_verdict(&mut self.reader, &mut self.writer, answer).await? {
            LoginVerdict::Accepted(ok) => {
                self.status = ok.status;
                Ok(())
            }
            LoginVerdict::Refused(err) => Err(ProtocolError::Server(err)),
            LoginVerdict::OtherPlugin(plugin) => Err(ProtocolError::Unsupported(format!("auth plugin {plugin}"))),
            LoginVerdict::MoreData => Err(ProtocolError::Unsupported("extra authentication rounds".into())),
            LoginVerdict::Unexpected => Err(ProtocolError::Malformed("unexpected packet during authentication".into())),
        }
    }

    pub fn greeting(&self) -> &Greeting {
        &self.greeting
    }

    pub fn capabilities(&self) -> u32 {
        self.capabilities
    }

    pub fn connection_id(&self) -> u32 {
        self.greeting.connection_id
    }

    /// Status flags of the last response.
    pub fn status(&self) -> u16 {
        self.status
    }

    fn deprecate_eof(&self) -> bool {
        self.capabilities & CLIENT_DEPRECATE_EOF != 0
    }

    /// Sends one command packet (sequence 0) and prepares to read its response.
    pub async fn send_command(&mut self, cmd: &Command<'_>) -> Result<()> {
        self.writer.set_sequence(0);
        cmd.encode(&mut self.writer.begin_packet(), self.capabilities);
        self.writer.flush().await?;
        self.reader.set_sequence(self.writer.sequence());
        Ok(())
    }

    /// Sends an arbitrary payload as a command packet (tests use it for malformed input).
    pub async fn send_raw(&mut self, payload: &[u8]) -> Result<()> {
        self.writer.set_sequence(0);
        self.writer.write_packet(payload);
        self.writer.flush().await?;
        self.reader.set_sequence(self.writer.sequence());
        Ok(())
    }

    /// Reads one raw response packet.
    pub async fn read_raw(&mut self) -> Result<Vec<u8>> {
        Ok(self.reader.read_packet().await?.to_vec())
    }

    /// Reads a response that must be OK (or ERR, returned as an error).
    pub async fn read_ok(&mut self) -> Result<OkPacket> {
        let payload = self.reader.read_packet().await?;
        match payload.first() {
            Some(&OK_HEADER) => {
                let ok = OkPacket::parse(payload)?;
                self.status = ok.status;
                Ok(ok)
            }
            Some(&ERR_HEADER) => Err(ProtocolError::Server(ErrPacket::parse(payload)?)),
            _ => Err(ProtocolError::Malformed("expected an OK packet".into())),
        }
    }

    /// COM_QUERY; returns one response per statement (multi-statement text gives several).
    pub async fn query(&mut self, sql: &str) -> Result<Vec<Response<TextRow>>> {
        self.send_command(&Command::Query(sql.as_bytes())).await?;
        self.read_results(|payload, columns| parse_text_row(payload, columns.len())).await
    }

    /// COM_QUERY expecting a single result set; returns its rows as UTF-8 text (NULL = None).
    pub async fn query_rows(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>> {
        let mut results = self.query(sql).await?;
        match results.pop() {
            Some(Response::Rows(rs)) if results.is_empty() => Ok(rs
                .rows
                .into_iter()
                .map(|r| r.into_iter().map(|c| c.map(|b| String::from_utf8_lossy(&b).into_owned())).collect())
                .collect()),
            _ => Err(ProtocolError::Malformed(format!("`{sql}` did not return exactly one result set"))),
        }
    }

    /// COM_QUERY expecting an OK.
    pub async fn execute_text(&mut self, sql: &str) -> Result<OkPacket> {
        let mut results = self.query(sql).await?;
        match results.pop() {
            Some(Response::Ok(ok)) => Ok(ok),
            _ => Err(ProtocolError::Malformed(format!("`{sql}` did not end with an OK"))),
        }
    }

    async fn read_results<T>(
        &mut self,
        parse_row: impl Fn(&[u8], &[ColumnDefinition]) -> Result<T>,
    ) -> Result<Vec<Response<T>>> {
        let deprecate_eof = self.deprecate_eof();
        let mut out = Vec::new();
        loop {
            let payload = self.reader.read_packet().await?;
            let response = match payload.first() {
                Some(&OK_HEADER) => Response::Ok(OkPacket::parse(payload)?),
                Some(&ERR_HEADER) => return Err(ProtocolError::Server(ErrPacket::parse(payload)?)),
                Some(&LOCAL_INFILE_HEADER) => return Err(ProtocolError::Unsupported("LOCAL INFILE".into())),
                _ => {
                    let count = Decoder::new(payload).lenenc_int("column count")?;
                    let columns = self.read_column_definitions(count).await?;
                    let mut rows = Vec::new();
                    let end = loop {
                        let payload = self.reader.read_packet().await?;
                        if payload.first() == Some(&ERR_HEADER) {
                            return Err(ProtocolError::Server(ErrPacket::parse(payload)?));
                        }
                        if is_eof_packet(payload) {
                            break parse_result_end(payload, deprecate_eof)?;
                        }
                        rows.push(parse_row(payload, &columns)?);
                    };
                    Response::Rows(ResultSet { columns, rows, status: end.status, warnings: end.warnings })
                }
            };
            self.status = response.status();
            let more = self.status & SERVER_MORE_RESULTS_EXISTS != 0;
            out.push(response);
            if !more {
                return Ok(out);
            }
        }
    }

    async fn read_column_definitions(&mut self, count: u64) -> Result<Vec<ColumnDefinition>> {
        if count > MAX_RESULT_COLUMNS {
            return Err(ProtocolError::Malformed(format!("{count} columns")));
        }
        let mut columns = Vec::with_capacity(count as usize);
        for _ in 0..count {
            columns.push(ColumnDefinition::parse(self.reader.read_packet().await?)?);
        }
        if count > 0 && !self.deprecate_eof() {
            let payload = self.reader.read_packet().await?;
            if !is_eof_packet(payload) {
                return Err(ProtocolError::Malformed("missing EOF after column definitions".into()));
            }
        }
        Ok(columns)
    }

    /// COM_STMT_PREPARE.
    pub async fn prepare(&mut self, sql: &str) -> Result<Prepared> {
        self.send_command(&Command::StmtPrepare(sql.as_bytes())).await?;
        let payload = self.reader.read_packet().await?;
        if payload.first() == Some(&ERR_HEADER) {
            return Err(ProtocolError::Server(ErrPacket::parse(payload)?));
        }
        let ok = PrepareOk::parse(payload)?;
        let params = self.read_column_definitions(ok.params as u64).await?;
        let columns = self.read_column_definitions(ok.columns as u64).await?;
        Ok(Prepared { statement_id: ok.statement_id, params, columns, warnings: ok.warnings })
    }

    /// COM_STMT_EXECUTE with freshly bound parameter types; rows come back in binary form.
    pub async fn execute(
        &mut self,
        statement_id: u32,
        params: &[(ParamType, BinaryValue)],
    ) -> Result<Vec<Response<BinaryRow>>> {
        self.execute_with_long_data(statement_id, params, &[]).await
    }

    /// Like `execute`, for a statement whose parameters listed in `long_data` were sent with
    /// `send_long_data`.
    pub async fn execute_with_long_data(
        &mut self,
        statement_id: u32,
        params: &[(ParamType, BinaryValue)],
        long_data: &[usize],
    ) -> Result<Vec<Response<BinaryRow>>> {
        let mut payload = Vec::new();
        encode_stmt_execute(&mut payload, statement_id, params, long_data)?;
        self.send_raw(&payload).await?;
        self.read_results(|payload, columns| {
            let types = columns
                .iter()
                .map(|c| Ok((c.field_type, c.is_unsigned())))
                .collect::<Result<Vec<(FieldType, bool)>>>()?;
            parse_binary_row(payload, &types)
        })
        .await
    }

    /// COM_STMT_SEND_LONG_DATA (no response).
    pub async fn send_long_data(&mut self, statement_id: u32, param: u16, data: &[u8]) -> Result<()> {
        self.send_command(&Command::StmtSendLongData { statement_id, param, data }).await
    }

    /// COM_STMT_CLOSE (no response).
    pub async fn close_statement(&mut self, statement_id: u32) -> Result<()> {
        self.send_command(&Command::StmtClose(statement_id)).await
    }

    pub async fn reset_statement(&mut self, statement_id: u32) -> Result<OkPacket> {
        self.send_command(&Command::StmtReset(statement_id)).await?;
        self.read_ok().await
    }

    pub async fn ping(&mut self) -> Result<OkPacket> {
        self.send_command(&Command::Ping).await?;
        self.read_ok().await
    }

    pub async fn init_db(&mut self, db: &str) -> Result<OkPacket> {
        self.send_command(&Command::InitDb(db.as_bytes())).await?;
        self.read_ok().await
    }

    pub async fn reset_connection(&mut self) -> Result<OkPacket> {
        self.send_command(&Command::ResetConnection).await?;
        self.read_ok().await
    }

    pub async fn process_kill(&mut self, id: u32) -> Result<OkPacket> {
        self.send_command(&Command::ProcessKill(id)).await?;
        self.read_ok().await
    }

    /// COM_STATISTICS: the server's one-line status text.
    pub async fn statistics(&mut self) -> Result<String> {
        self.send_command(&Command::Statistics).await?;
        let payload = self.reader.read_packet().await?;
        if payload.first() == Some(&ERR_HEADER) {
            return Err(ProtocolError::Server(ErrPacket::parse(payload)?));
        }
        Ok(String::from_utf8_lossy(payload).into_owned())
    }

    /// COM_SET_OPTION: answered with an EOF (or 0xFE-OK).
    pub async fn set_option(&mut self, option: u16) -> Result<OkPacket> {
        self.send_command(&Command::SetOption(option)).await?;
        let deprecate_eof = self.deprecate_eof();
        let payload = self.reader.read_packet().await?;
        if payload.first() == Some(&ERR_HEADER) {
            return Err(ProtocolError::Server(ErrPacket::parse(payload)?));
        }
        let end = parse_result_end(payload, deprecate_eof)?;
        self.status = end.status;
        Ok(end)
    }

    /// COM_FIELD_LIST: column definitions with their defaults (`Some(None)` = DEFAULT NULL).
    pub async fn field_list(
        &mut self,
        table: &str,
        wildcard: &str,
    ) -> Result<Vec<(ColumnDefinition, Option<Option<Vec<u8>>>)>> {
        self.send_command(&Command::FieldList { table: table.as_bytes(), wildcard: wildcard.as_bytes() }).await?;
        let deprecate_eof = self.deprecate_eof();
        let mut out = Vec::new();
        loop {
            let payload = self.reader.read_packet().await?;
            if payload.first() == Some(&ERR_HEADER) {
                return Err(ProtocolError::Server(ErrPacket::parse(payload)?));
            }
            if is_eof_packet(payload) {
                self.status = parse_result_end(payload, deprecate_eof)?.status;
                return Ok(out);
            }
            out.push(ColumnDefinition::parse_with_default(payload)?);
        }
    }

    /// COM_CHANGE_USER with mysql_native_password (answering an auth switch if the server
    /// sends one).
    pub async fn change_user(&mut self, user: &str, password: &str, database: Option<&str>) -> Result<()> {
        let c = ChangeUser {
            user: user.to_string(),
            auth_response: native_password_token(password.as_bytes(), &self.greeting.scramble),
            database: database.map(str::to_string),
            charset: Some(charset::UTF8MB4_GENERAL_CI),
            auth_plugin: MYSQL_NATIVE_PASSWORD.to_string(),
            attributes: Vec::new(),
        };
        self.send_command(&Command::ChangeUser(c)).await?;
        self.finish_auth(password.as_bytes()).await
    }

    /// COM_QUIT, then closes the write side.
    pub async fn quit(mut self) -> Result<()> {
        self.send_command(&Command::Quit).await?;
        self.writer.shutdown().await?;
        Ok(())
    }
}
