//! One client session: the connection phase, then a loop reading the client's commands and
//! handing them to the listener's router (readconnroute in `rcr`, readwritesplit in `rws`).
//!
//! A session and its backend connections live on one worker for their whole life; nothing here
//! is shared with other threads except the statistics block this worker alone writes and the
//! lock-free snapshots (configuration, monitor, users) it reads.
//!
//! Failure policy: a client protocol error ends the session; a backend failure before any byte
//! of its answer reached the client is reported as an ERR (or, for autocommit reads, retried on
//! another backend); a backend failure in the middle of an answer, or of the backend that holds
//! the open transaction, ends the session, since the client's view can no longer be made
//! consistent.

pub mod errors;
pub mod login;
mod rcr;
mod rws;

use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};

use selkie_protocol::auth::new_scramble;
use selkie_protocol::auth_switch::{answers_native_password, request_native_password};
use selkie_protocol::command::Command;
use selkie_protocol::packet::{PacketReader, PacketWriter, MAX_ALLOWED_PACKET_LIMIT};
use selkie_protocol::response::{encode_ok, is_eof_packet, ErrPacket, OK_HEADER};
use selkie_protocol::ProtocolError;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tracing::{debug, info, warn};

use crate::backend::{
    captured_packets, patch_transaction_status, Backend, BackendError, BackendLogin, FLUSH_THRESHOLD,
};
use crate::cache::CachedResult;
use crate::classifier::{Classification, Route, TableRef};
use crate::cluster::ServerState;
use crate::history::History;
use crate::ps_map::PsMap;
use crate::router::readwritesplit::RwsState;
use crate::router::Avoid;
use crate::runtime::{ListenerRuntime, RouterOptions};
use crate::stats::WorkerStats;
use crate::worker::{Job, Worker};

use login::Login;

/// Time a client has to complete the connection phase (MariaDB's connect_timeout default).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Largest packet accepted before authentication (connect attributes included).
pub const HANDSHAKE_MAX_PACKET: u64 = 64 * 1024;
/// Capacity of the session's command buffers kept between commands; a larger one (left by a
/// huge statement) is given back, so idle sessions stay small.
pub const KEEP_BUFFER: usize = 64 * 1024;
/// Tables remembered per transaction for invalidation again at its end (beyond this the
/// remaining ones are invalidated only when written, which TTLs bound).
pub const MAX_TXN_WRITTEN_TABLES: usize = 64;

/// Why a session ended.
#[derive(Debug)]
pub enum End {
    Quit,
    Client(String),
    Fatal(String),
}

impl From<ProtocolError> for End {
    fn from(e: ProtocolError) -> End {
        End::Client(e.to_string())
    }
}

/// A backend connection of the session. Dropping it (however the session ends, a panic
/// included) takes it off its server's connection count.
pub struct BackendConn {
    pub slot: usize,
    /// Unique within the session: prepared statement ids and the transaction refer to it.
    pub serial: u64,
    pub name: Arc<str>,
    pub conn: Backend,
    stats: Arc<WorkerStats>,
}

impl Drop for BackendConn {
    fn drop(&mut self) {
        self.stats.server(self.slot).connections.decr();
    }
}

/// Serves one accepted client connection until it closes.
pub async fn serve(worker: Rc<Worker>, job: Job) {
    struct SessionGauge(Arc<WorkerStats>);
    impl Drop for SessionGauge {
        fn drop(&mut self) {
            self.0.sessions.decr();
        }
    }
    worker.stats.sessions.incr();
    worker.stats.sessions_total.incr();
    let _gauge = SessionGauge(worker.stats.clone());

    let stream = match TcpStream::from_std(job.stream) {
        Ok(s) => s,
        Err(e) => {
            warn!(peer = %job.peer, error = %e, "cannot register an accepted connection");
            return;
        }
    };
    let _ = stream.set_nodelay(true);
    let (r, w) = stream.into_split();
    let mut reader = PacketReader::new(r, HANDSHAKE_MAX_PACKET);
    let mut writer = PacketWriter::new(w);
    let connection_id = worker.shared.next_connection_id.fetch_add(1, Relaxed);
    let login = match tokio::time::timeout(
        CONNECT_TIMEOUT,
        login::handshake(&worker, &mut reader, &mut writer, connection_id, &job.peer),
    )
    .await
    {
        Ok(Ok(Some(login))) => login,
        Ok(Ok(None)) => return,
        Ok(Err(e)) => {
            debug!(peer = %job.peer, error = %e, "handshake failed");
            return;
        }
        Err(_) => {
            debug!(peer = %job.peer, "handshake timed out");
            return;
        }
    };
    reader.set_max_payload(MAX_ALLOWED_PACKET_LIMIT);
    // The options of the listener as currently configured (a reload may have changed them).
    let listener = worker.shared.config.load().listener(&job.listener.name).cloned().unwrap_or(job.listener);
    let mut session = Session::new(worker, listener, reader, writer, login, job.peer);
    let end = session.run().await;
    debug!(peer = %session.peer, user = %session.login.user, ?end, "session ended");
    session.close_all().await;
}

pub struct Session {
    w: Rc<Worker>,
    listener: Arc<ListenerRuntime>,
    client_r: PacketReader<OwnedReadHalf>,
    client_w: PacketWriter<OwnedWriteHalf>,
    login: Login,
    peer: SocketAddr,
    /// The current default database (cache keys, invalidation of unqualified table names).
    db: Option<Arc<str>>,
    backends: Vec<BackendConn>,
    next_serial: u64,
    /// Backend that ran the previous statement (SHOW WARNINGS and `route to last` go there).
    last_used: Option<u64>,
    avoid: Avoid,
    /// readwritesplit state (unused by readconnroute sessions).
    rws: RwsState,
    history: History,
    ps: PsMap,
    max_lag: Duration,
    /// Tables written by the open transaction (invalidated again when it ends); `txn_wrote_any`:
    /// it ran a write whose tables are unknown (everything is invalidated when it ends).
    txn_tables: Vec<TableRef>,
    txn_wrote_any: bool,
    /// The command being served (reused buffer).
    cmd: Vec<u8>,
    /// Rewritten command payloads (reused buffer).
    scratch: Vec<u8>,
}

impl Session {
    fn new(
        w: Rc<Worker>,
        listener: Arc<ListenerRuntime>,
        client_r: PacketReader<OwnedReadHalf>,
        client_w: PacketWriter<OwnedWriteHalf>,
        login: Login,
        peer: SocketAddr,
    ) -> Session {
        let (max_lag, max_history) = match listener.router {
            RouterOptions::ReadWriteSplit { max_replication_lag, max_session_history } => {
                (max_replication_lag, max_session_history)
            }
            RouterOptions::ReadConnRoute { .. } => (Duration::ZERO, 1),
        };
        let db = login.database.as_deref().map(Arc::from);
        Session {
            w,
            listener,
            client_r,
            client_w,
            login,
            peer,
            db,
            backends: Vec::new(),
            next_serial: 0,
            last_used: None,
            avoid: Avoid::default(),
            rws: RwsState::default(),
            history: History::new(max_history),
            ps: PsMap::default(),
            max_lag,
            txn_tables: Vec::new(),
            txn_wrote_any: false,
            cmd: Vec::new(),
            scratch: Vec::new(),
        }
    }

    async fn run(&mut self) -> End {
        let seq = self.client_r.sequence();
        match self.listener.router.clone() {
            RouterOptions::ReadConnRoute { role } => {
                if let Err(e) = self.rcr_connect(role).await {
                    let _ = self.reply_err(seq, &e).await;
                    return End::Fatal(e.message);
                }
                let status = self.backends[0].conn.status;
                if let Err(e) = self.reply_ok(seq, status).await {
                    return e;
                }
                self.run_rcr(role).await
            }
            RouterOptions::ReadWriteSplit { .. } => {
                if let Err(e) = self.reply_ok(seq, self.local_status()).await {
                    return e;
                }
                self.run_rws().await
            }
        }
    }

    /// Reads the next command into `self.cmd`; returns the sequence id its answer starts with.
    async fn read_command(&mut self) -> Result<u8, End> {
        self.client_r.reset_sequence();
        self.client_r.shrink_buffer();
        let (payload, seq) = match self.client_r.read_packet_and_sequence().await {
            Ok(x) => x,
            Err(ProtocolError::ConnectionClosed) => return Err(End::Quit),
            Err(e) => {
                // Framing errors get the server's answer before the connection closes.
                if let Some(err) = e.to_err_packet() {
                    let seq = self.client_r.sequence();
                    let _ = self.reply_err(seq, &err).await;
                }
                return Err(End::Client(e.to_string()));
            }
        };
        if payload.is_empty() {
            return Err(End::Client("empty command packet".into()));
        }
        if self.cmd.capacity() > KEEP_BUFFER && payload.len() <= KEEP_BUFFER {
            self.cmd = Vec::new();
        }
        if self.scratch.capacity() > KEEP_BUFFER {
            self.scratch = Vec::new();
        }
        self.cmd.clear();
        self.cmd.extend_from_slice(payload);
        Ok(seq)
    }

    async fn reply_err(&mut self, seq: u8, err: &ErrPacket) -> Result<(), End> {
        self.client_w.set_sequence(seq);
        err.encode(&mut self.client_w.begin_packet());
        self.client_w.flush().await.map_err(|e| End::Client(e.to_string()))
    }

    async fn flush_client(&mut self) -> Result<(), End> {
        self.client_w.flush().await.map_err(|e| End::Client(e.to_string()))
    }

    async fn reply_ok(&mut self, seq: u8, status: u16) -> Result<(), End> {
        self.client_w.set_sequence(seq);
        encode_ok(&mut self.client_w.begin_packet(), OK_HEADER, 0, 0, status, 0, b"");
        self.client_w.flush().await.map_err(|e| End::Client(e.to_string()))
    }

    /// The status flags the session would show if a server answered now.
    fn local_status(&self) -> u16 {
        use selkie_protocol::constants::status::{SERVER_STATUS_AUTOCOMMIT, SERVER_STATUS_IN_TRANS};
        let mut s = 0;
        if self.rws.autocommit {
            s |= SERVER_STATUS_AUTOCOMMIT;
        }
        if self.rws.txn != crate::router::readwritesplit::Txn::None {
            s |= SERVER_STATUS_IN_TRANS;
        }
        s
    }

    /// Connects to `server` as the client (not registered in the session yet).
    async fn connect(&self, server: &ServerState) -> Result<Backend, BackendError> {
        let login = BackendLogin {
            user: &self.login.user,
            secret: self.login.secret,
            database: self.login.database.as_deref(),
            charset: self.login.charset,
            capabilities: self.login.capabilities,
            attributes: &self.login.attributes,
        };
        let timeout = self.w.shared.config.load().backend_timeout;
        Backend::connect(&server.endpoint, &login, timeout).await
    }

    /// Adds a connected backend to the session; returns its index.
    fn register(&mut self, server: &ServerState, conn: Backend) -> usize {
        self.next_serial += 1;
        let counters = self.w.stats.server(server.slot);
        counters.connections.incr();
        counters.connections_total.incr();
        self.backends.push(BackendConn {
            slot: server.slot,
            serial: self.next_serial,
            name: server.name.clone(),
            conn,
            stats: self.w.stats.clone(),
        });
        self.backends.len() - 1
    }

    fn open_index(&self, slot: usize) -> Option<usize> {
        self.backends.iter().position(|b| b.slot == slot)
    }

    fn find_serial(&self, serial: u64) -> Option<usize> {
        self.backends.iter().position(|b| b.serial == serial)
    }

    /// Removes backend `idx` from the session. `failed`: it broke (no goodbye is sent, and the
    /// session avoids its server for a while). Returns true if it held the open transaction.
    async fn close_backend(&mut self, idx: usize, failed: bool) -> bool {
        let mut b = self.backends.remove(idx);
        self.ps.forget_backend(b.serial);
        let held_txn = self.rws.txn_backend == Some(b.serial);
        self.rws.backend_lost(b.serial);
        if held_txn {
            // Whatever it wrote is rolled back; invalidating again is harmless.
            self.txn_ended();
        }
        if failed {
            self.avoid.add(b.slot, Instant::now());
            info!(server = %b.name, peer = %self.peer, "backend connection failed; removed from the session");
        } else {
            b.conn.quit().await;
        }
        held_txn
    }

    async fn close_all(&mut self) {
        while !self.backends.is_empty() {
            let last = self.backends.len() - 1;
            self.close_backend(last, false).await;
        }
    }

    fn count_class(&self, c: &Classification) {
        let i = match c.route {
            Route::Read => 0,
            Route::Write => 1,
            Route::Session => 2,
        };
        self.w.stats.classified[i].incr();
    }

    /// A write to `tables` was seen: every cache of the process forgets results that read them
    /// (all results when `tables` is empty: a write whose tables are unknown).
    fn invalidate(&self, tables: &[TableRef]) {
        let config = self.w.shared.config.load();
        for c in &config.caches {
            c.shared.invalidate(tables, self.db.as_deref());
        }
    }

    /// A statement that wrote ran (its answer not yet flushed to the client): invalidates what
    /// it wrote, and remembers it if a transaction is open, for invalidation again at its end
    /// (readers may cache pre-commit values meanwhile).
    fn note_write(&mut self, c: &Classification, in_txn: bool) {
        self.invalidate(&c.tables);
        if !in_txn {
            return;
        }
        if c.tables.is_empty() {
            self.txn_wrote_any = true;
        }
        for t in &c.tables {
            if self.txn_tables.len() == MAX_TXN_WRITTEN_TABLES {
                self.txn_wrote_any = true;
                break;
            }
            if !self.txn_tables.contains(t) {
                self.txn_tables.push(t.clone());
            }
        }
    }

    /// The open transaction ended (committed or not): invalidates what it wrote once more.
    fn txn_ended(&mut self) {
        if self.txn_wrote_any {
            self.invalidate(&[]);
        } else if !self.txn_tables.is_empty() {
            let tables = std::mem::take(&mut self.txn_tables);
            self.invalidate(&tables);
        }
        self.txn_tables.clear();
        self.txn_wrote_any = false;
    }

    /// Whether any cache exists (writes must then be classified to invalidate it).
    fn caches_exist(&self) -> bool {
        !self.w.shared.config.load().caches.is_empty()
    }

    /// Sends a cached result, with this session's transaction state in its status flags.
    async fn serve_cached(&mut self, seq: u8, result: &CachedResult) -> Result<(), End> {
        let deprecate_eof =
            self.login.capabilities & selkie_protocol::constants::capabilities::CLIENT_DEPRECATE_EOF != 0;
        let status = self.local_status();
        self.client_w.set_sequence(seq);
        for p in captured_packets(&result.packets) {
            if is_eof_packet(p) {
                let mut copy = p.to_vec();
                patch_transaction_status(&mut copy, deprecate_eof, status);
                self.client_w.write_packet(&copy);
            } else {
                self.client_w.write_packet(p);
            }
            if self.client_w.pending() > FLUSH_THRESHOLD {
                self.client_w.flush().await.map_err(|e| End::Client(e.to_string()))?;
            }
        }
        self.client_w.flush().await.map_err(|e| End::Client(e.to_string()))
    }

    /// COM_CHANGE_USER: re-authenticates at the proxy, then starts the session over with the
    /// new identity (backends reconnect as the new user).
    async fn change_user(&mut self, cmd: &[u8], mut seq: u8) -> Result<(), End> {
        let cu = match Command::parse(cmd, self.login.capabilities) {
            Ok(Command::ChangeUser(cu)) => cu,
            Ok(_) | Err(_) => {
                let _ = self.reply_err(seq, &errors::malformed("COM_CHANGE_USER")).await;
                return Err(End::Client("malformed COM_CHANGE_USER".into()));
            }
        };
        let mut scramble = self.login.scramble;
        let token = if answers_native_password(&cu.auth_plugin) {
            cu.auth_response.clone()
        } else {
            // A fresh challenge: the greeting's was answered once already.
            scramble = new_scramble();
            let token = request_native_password(&mut self.client_r, &mut self.client_w, seq, &scramble).await?;
            seq = self.client_r.sequence();
            token
        };
        let Some(secret) = login::authenticate(&self.w, &cu.user, &scramble, &token).await else {
            let _ = self.reply_err(seq, &login::access_denied(&cu.user, &self.peer, !token.is_empty())).await;
            return Err(End::Fatal(format!("COM_CHANGE_USER to '{}' refused", cu.user)));
        };
        self.close_all().await;
        self.login.user = cu.user.as_str().into();
        self.login.secret = secret;
        self.login.scramble = scramble;
        self.login.database = cu.database.clone();
        if let Some(cs) = cu.charset.and_then(|c| u8::try_from(c).ok()) {
            self.login.charset = cs;
        }
        if !cu.attributes.is_empty() {
            self.login.attributes = cu.attributes.clone();
        }
        self.db = cu.database.as_deref().map(Arc::from);
        self.reset_session_state();
        if let RouterOptions::ReadConnRoute { role } = self.listener.router {
            if let Err(e) = self.rcr_connect(role).await {
                let _ = self.reply_err(seq, &e).await;
                return Err(End::Fatal(e.message));
            }
        }
        let status = match self.backends.first() {
            Some(b) => b.conn.status,
            None => self.local_status(),
        };
        self.reply_ok(seq, status).await
    }

    /// Forgets everything the backends forgot (COM_RESET_CONNECTION, COM_CHANGE_USER).
    fn reset_session_state(&mut self) {
        self.history.clear();
        self.ps.clear();
        self.rws = RwsState::default();
        self.txn_ended();
    }
}
