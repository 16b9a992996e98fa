//! readwritesplit sessions: every statement is classified and routed (`router::readwritesplit`
//! has the rules); backends join the session lazily, replaying the session command history;
//! prepared statements are mapped per backend (`ps_map`); autocommit reads may be answered from
//! the result cache and are retried on another backend if theirs fails before answering.

use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use selkie_protocol::command::PrepareOk;
use selkie_protocol::constants::capabilities::CLIENT_DEPRECATE_EOF;
use selkie_protocol::constants::command::*;
use selkie_protocol::response::ErrPacket;
use smallvec::SmallVec;
use tracing::{info, warn};

use super::rcr::refused_command;
use super::{errors, End, Session};
use crate::backend::{Capture, ForwardError, Out, ResponseKind, ResponseSummary, CURSOR_FLAGS_MASK};
use crate::cache::{CacheKey, CachedResult, Lookup, SelectsPolicy};
use crate::classifier::{classify, classify_with_hint, Cacheability, Classification, Route, RoutingHint, TxnEffect};
use crate::cluster::Cluster;
use crate::history::Recorded;
use crate::ps_map::{
    normalized_params, parse_execute, rewrite_execute, BackendStatement, PreparedStatement, EXECUTE_HEADER_LEN,
};
use crate::router::least_connections;
use crate::router::readwritesplit::{decide, is_write, Availability, RanOn, Target, Txn};
use crate::stats::RouteEvent;

/// Times an autocommit read is retried on another backend after its backend failed before
/// answering.
pub const MAX_READ_RETRIES: usize = 2;
/// Cache key format byte: bit 0 = binary protocol (COM_STMT_EXECUTE), bit 1 = the client
/// negotiated CLIENT_DEPRECATE_EOF. Results differ in bytes across these, so they never share
/// an entry.
const KEY_BINARY: u8 = 1;
const KEY_DEPRECATE_EOF: u8 = 2;

/// The statement being routed.
#[derive(Clone, Debug)]
enum Stmt {
    Query {
        hint: Option<RoutingHint>,
    },
    Execute {
        /// The proxy's statement id.
        id: u32,
        cursor: bool,
        /// Backend holding COM_STMT_SEND_LONG_DATA for this execute: it must run there.
        forced: Option<u64>,
    },
}

/// Outcome of sending a statement to one backend.
enum Attempt {
    Done {
        idx: usize,
        summary: ResponseSummary,
        capture: Option<Capture>,
    },
    /// The backend broke; `forwarded`: part of an answer already reached the client.
    Failed {
        idx: usize,
        forwarded: bool,
        error: String,
    },
    /// The client already got an error answer.
    Answered,
}

/// Why a statement could not be prepared on a backend.
enum PrepareFailure {
    /// The backend refused it (answer the client with this).
    Refused(ErrPacket),
    /// The backend connection broke.
    Broken(String),
}

/// The backend that answered a command sent to several.
struct FanAnswer {
    serial: u64,
    slot: usize,
    is_err: bool,
    status: u16,
}

impl Session {
    pub(super) async fn run_rws(&mut self) -> End {
        loop {
            let seq = match self.read_command().await {
                Ok(s) => s,
                Err(e) => return e,
            };
            let cmd = std::mem::take(&mut self.cmd);
            let r = self.rws_command(&cmd, seq).await;
            self.cmd = cmd;
            if let Err(e) = r {
                return e;
            }
        }
    }

    async fn rws_command(&mut self, cmd: &[u8], seq: u8) -> Result<(), End> {
        self.w.stats.queries.incr();
        match cmd[0] {
            COM_QUIT => Err(End::Quit),
            COM_QUERY => {
                let (c, hint) = classify_with_hint(&cmd[1..]);
                self.count_class(&c);
                self.rws_statement(cmd, seq, Stmt::Query { hint }, &c).await
            }
            COM_STMT_PREPARE => self.rws_prepare(cmd, seq).await,
            COM_STMT_EXECUTE => self.rws_execute(cmd, seq).await,
            COM_STMT_SEND_LONG_DATA => self.rws_long_data(cmd).await,
            COM_STMT_CLOSE => self.rws_close_statement(cmd).await,
            COM_STMT_RESET => self.rws_reset_statement(cmd, seq).await,
            COM_STMT_FETCH => self.rws_fetch(cmd, seq).await,
            COM_INIT_DB => {
                let db: Arc<str> = String::from_utf8_lossy(&cmd[1..]).as_ref().into();
                self.session_command(cmd, seq, ResponseKind::Single, None, Some(db)).await
            }
            COM_SET_OPTION => self.session_command(cmd, seq, ResponseKind::Single, None, None).await,
            COM_RESET_CONNECTION => self.rws_reset_connection(cmd, seq).await,
            COM_CHANGE_USER => self.change_user(cmd, seq).await,
            COM_PING => self.rws_ping(cmd, seq).await,
            COM_FIELD_LIST => self.rws_simple(cmd, seq, ResponseKind::FieldList, true).await,
            c => match refused_command(c) {
                Some(err) => self.reply_err(seq, &err).await,
                // COM_STATISTICS, COM_DEBUG, COM_REFRESH, COM_SHUTDOWN: administrative, primary.
                None => self.rws_simple(cmd, seq, ResponseKind::Single, false).await,
            },
        }
    }

    /// What the session can use now.
    fn availability(&self, cluster: &Cluster, now: Instant) -> Availability {
        let can_join = self.history.can_join();
        let reachable = |slot: usize| !self.avoid.contains(slot, now) && (can_join || self.open_index(slot).is_some());
        Availability {
            primary: cluster.primary().is_some_and(|p| reachable(p.slot)),
            replica: cluster.servers.iter().any(|s| s.usable_replica(self.max_lag) && reachable(s.slot)),
        }
    }

    fn is_primary(&self, cluster: &Cluster, idx: usize) -> bool {
        cluster.primary().is_some_and(|p| p.slot == self.backends[idx].slot)
    }

    /// Connects `server` and brings it to the session's state by replaying the history.
    async fn open(&mut self, server: &crate::cluster::ServerState) -> Result<usize, ErrPacket> {
        if !self.history.can_join() {
            return Err(errors::history_exceeded());
        }
        let mut conn = match self.connect(server).await {
            Ok(c) => c,
            // The server's own refusal (unknown database, access denied) is the client's answer.
            Err(crate::backend::BackendError::Refused(e)) => return Err(e),
            Err(e) => {
                warn!(server = %server.name, error = %e, "cannot connect to backend");
                self.avoid.add(server.slot, Instant::now());
                return Err(errors::cannot_connect(&server.name, &e.to_string()));
            }
        };
        for entry in self.history.entries() {
            let why = match conn.execute_discard(&entry.payload, entry.kind).await {
                Ok(s) if !s.is_err() => continue,
                Ok(s) => s.error.map(|e| e.message).unwrap_or_default(),
                Err(e) => e.to_string(),
            };
            warn!(server = %server.name, error = %why, "session command replay failed; the server does not join the session");
            self.avoid.add(server.slot, Instant::now());
            conn.quit().await;
            return Err(errors::cannot_connect(
                &server.name,
                &format!("replaying the session's commands failed: {why}"),
            ));
        }
        Ok(self.register(server, conn))
    }

    async fn ensure_primary(&mut self, cluster: &Cluster, now: Instant) -> Result<usize, ErrPacket> {
        let Some(p) = cluster.primary().filter(|p| !self.avoid.contains(p.slot, now)) else {
            return Err(errors::no_primary());
        };
        match self.open_index(p.slot) {
            Some(i) => Ok(i),
            None => self.open(p).await,
        }
    }

    /// A replica for reads: one the session already uses if still usable, else the least
    /// connected usable one.
    async fn ensure_replica(&mut self, cluster: &Cluster, now: Instant) -> Result<usize, ErrPacket> {
        let max_lag = self.max_lag;
        let usable = |slot: usize| cluster.by_slot(slot).is_some_and(|s| s.usable_replica(max_lag));
        if let Some(i) = self.backends.iter().position(|b| usable(b.slot) && !self.avoid.contains(b.slot, now)) {
            return Ok(i);
        }
        let mut last_err = errors::no_server();
        loop {
            let w = self.w.clone();
            let candidate = least_connections(
                cluster.servers.iter().filter(|s| {
                    s.usable_replica(max_lag) && !self.avoid.contains(s.slot, now) && self.open_index(s.slot).is_none()
                }),
                |slot| w.connections_to(slot),
            );
            let Some(server) = candidate else { return Err(last_err) };
            match self.open(server).await {
                Ok(i) => return Ok(i),
                Err(e) => {
                    self.avoid.add(server.slot, now);
                    last_err = e;
                }
            }
        }
    }

    /// The backend for `target` (opened if needed) and how to count the decision.
    async fn backend_for(
        &mut self,
        target: Target,
        cluster: &Cluster,
        now: Instant,
    ) -> Result<(usize, RouteEvent), ErrPacket> {
        match target {
            Target::Primary => self.ensure_primary(cluster, now).await.map(|i| (i, RouteEvent::Primary)),
            Target::FallbackPrimary => {
                self.ensure_primary(cluster, now).await.map(|i| (i, RouteEvent::FallbackPrimary))
            }
            Target::Replica => match self.ensure_replica(cluster, now).await {
                Ok(i) => Ok((i, RouteEvent::Replica)),
                // No replica could be used after all: reads fall back to the primary.
                Err(e) => {
                    self.ensure_primary(cluster, now).await.map(|i| (i, RouteEvent::FallbackPrimary)).map_err(|_| e)
                }
            },
            Target::TxnBackend => match self.rws.txn_backend.and_then(|s| self.find_serial(s)) {
                Some(i) => Ok((i, if self.is_primary(cluster, i) { RouteEvent::Primary } else { RouteEvent::Replica })),
                // Not reached while backends holding a transaction end the session when they
                // fail (see `close_backend`'s callers); kept as a clean refusal.
                None => {
                    self.rws.end_txn();
                    Err(errors::lost_transaction("(closed)"))
                }
            },
            Target::All | Target::FailWrite | Target::NoServer => Err(errors::no_server()),
        }
    }

    /// The cache key for a statement whose result may come from or go to the listener's cache.
    /// (The cache itself is reached through `self.listener` each time: cloning its `Arc` per
    /// statement would write a reference count shared by every worker.)
    fn cache_key_for(&self, c: &Classification, cmd: &[u8], stmt: &Stmt) -> Option<CacheKey> {
        let lc = self.listener.cache.as_ref()?;
        // A pinned session may have temporary tables shadowing the ones cached entries read.
        if c.route != Route::Read
            || c.locking_read
            || c.multi_statement
            || c.pins_primary
            || self.rws.pinned
            || !self.rws.cache_allowed()
        {
            return None;
        }
        match (c.cacheable, lc.config.selects) {
            (Cacheability::Cacheable, _) | (Cacheability::NonDeterministic, SelectsPolicy::AssumeCacheable) => {}
            _ => return None,
        }
        let mut params = vec![0u8, self.login.charset];
        if self.login.capabilities & CLIENT_DEPRECATE_EOF != 0 {
            params[0] |= KEY_DEPRECATE_EOF;
        }
        let statement: Arc<[u8]> = match *stmt {
            Stmt::Query { .. } => cmd[1..].into(),
            Stmt::Execute { id, cursor, forced } => {
                if cursor || forced.is_some() {
                    return None;
                }
                let s = self.ps.get(id)?;
                params[0] |= KEY_BINARY;
                params.extend_from_slice(&normalized_params(cmd, s.params, s.bound_types.as_deref())?);
                s.sql_arc.clone()
            }
        };
        Some(CacheKey { user: self.login.user.clone(), db: self.db.clone(), statement, params })
    }

    /// Routes and runs one statement (COM_QUERY or COM_STMT_EXECUTE).
    async fn rws_statement(&mut self, cmd: &[u8], seq: u8, stmt: Stmt, c: &Classification) -> Result<(), End> {
        let now = Instant::now();
        let cluster = self.w.cluster();
        let mut target = decide(&self.rws, c, self.availability(&cluster, now));
        if matches!(stmt, Stmt::Execute { .. }) && target == Target::All {
            // A prepared session command runs on one backend: the primary when there is one
            // (documented limitation; text session commands reach every backend).
            target = if self.availability(&cluster, now).primary { Target::Primary } else { Target::Replica };
        }
        let cache = self.cache_key_for(c, cmd, &stmt);
        let mut stale: Option<CachedResult> = None;
        if let (Some(key), Some(lc)) = (&cache, &self.listener.cache) {
            match self.w.cache_lookup(&lc.shared, key, now) {
                Lookup::Fresh(r) => {
                    self.w.stats.route(RouteEvent::Cache);
                    return self.serve_cached(seq, &r).await;
                }
                // This session refreshes the entry; if that fails the stale copy still answers.
                Lookup::StaleRefresh(r) => stale = Some(r),
                Lookup::Miss => {}
            }
        }
        match target {
            Target::All => return self.session_command(cmd, seq, ResponseKind::Results, Some(c), None).await,
            Target::FailWrite => {
                self.w.stats.route(RouteEvent::WriteFailed);
                return self.reply_err(seq, &errors::no_primary()).await;
            }
            Target::NoServer => {
                return match stale {
                    Some(r) => self.serve_cached(seq, &r).await,
                    None => self.reply_err(seq, &errors::no_server()).await,
                };
            }
            _ => {}
        }
        let forced = match &stmt {
            Stmt::Execute { forced, .. } => *forced,
            Stmt::Query { hint } => self.hinted_backend(hint.as_ref(), c, target, &cluster, now).await,
        };
        let retryable = self.rws.txn == Txn::None && !is_write(c) && c.txn == TxnEffect::None && forced.is_none();
        // Results are stored only when produced outside any transaction (a transaction's read
        // view may be older than what others see).
        let capture_limit = match (&cache, self.rws.txn) {
            (Some(_), Txn::None) => self.listener.cache.as_ref().map(|lc| lc.config.max_resultset_size),
            _ => None,
        };
        let mut retries = 0;
        loop {
            let chosen = match forced {
                Some(serial) => match self.find_serial(serial) {
                    Some(i) => {
                        Ok((i, if self.is_primary(&cluster, i) { RouteEvent::Primary } else { RouteEvent::Replica }))
                    }
                    None => {
                        Err(errors::lost_backend("(closed)", "the backend holding the statement's long data is gone"))
                    }
                },
                None => self.backend_for(target, &cluster, now).await,
            };
            let (idx, event) = match chosen {
                Ok(x) => x,
                Err(err) => {
                    return match stale {
                        Some(r) => self.serve_cached(seq, &r).await,
                        None => self.reply_err(seq, &err).await,
                    };
                }
            };
            match self.attempt(cmd, seq, &stmt, idx, capture_limit).await? {
                Attempt::Answered => return Ok(()),
                Attempt::Done { idx, summary, capture } => {
                    self.w.stats.route(event);
                    self.after_statement(c, idx, &summary, &cluster);
                    if let (Some(key), Some(cap), Some(lc)) = (cache, capture, &self.listener.cache) {
                        let complete = !cap.overflowed && !summary.is_err() && !summary.multi && summary.had_rows;
                        if complete && self.rws.txn == Txn::None {
                            let result = CachedResult { packets: cap.buf.into() };
                            self.w.cache_store(&lc.shared, key, &c.tables, self.db.as_deref(), result, Instant::now());
                        }
                    }
                    // The end of the answer goes out only now that writes were invalidated.
                    return self.flush_client().await;
                }
                Attempt::Failed { idx, forwarded, error } => {
                    let name = self.backends[idx].name.clone();
                    let held_txn = self.close_backend(idx, true).await;
                    if forwarded {
                        return Err(End::Fatal(format!("backend {name} failed in the middle of an answer: {error}")));
                    }
                    if held_txn {
                        let _ = self.reply_err(seq, &errors::lost_transaction(&name)).await;
                        return Err(End::Fatal(format!("backend {name} holding the transaction failed: {error}")));
                    }
                    if retryable && retries < MAX_READ_RETRIES {
                        retries += 1;
                        self.w.stats.route(RouteEvent::Retried);
                        info!(server = %name, error = %error, "read retried on another backend");
                        target = decide(&self.rws, c, self.availability(&cluster, Instant::now()));
                        if matches!(target, Target::Replica | Target::FallbackPrimary | Target::Primary) {
                            continue;
                        }
                    }
                    return match stale {
                        Some(r) => self.serve_cached(seq, &r).await,
                        None => self.reply_err(seq, &errors::lost_backend(&name, &error)).await,
                    };
                }
            }
        }
    }

    /// Sends the statement to backend `idx` and streams its answer to the client.
    /// The answer's last packet is left unflushed (see `after_statement`).
    async fn attempt(
        &mut self,
        cmd: &[u8],
        seq: u8,
        stmt: &Stmt,
        idx: usize,
        capture_limit: Option<usize>,
    ) -> Result<Attempt, End> {
        let serial = self.backends[idx].serial;
        let mut sends_types = false;
        let kind = match stmt {
            Stmt::Query { .. } => ResponseKind::Results,
            Stmt::Execute { cursor: true, .. } => ResponseKind::CursorResults,
            Stmt::Execute { cursor: false, .. } => ResponseKind::Results,
        };
        let use_scratch = match *stmt {
            Stmt::Query { .. } => false,
            Stmt::Execute { id, .. } => {
                let backend_id = match self.ensure_prepared(idx, id).await {
                    Ok(b) => b,
                    Err(PrepareFailure::Refused(err)) => {
                        self.reply_err(seq, &err).await?;
                        return Ok(Attempt::Answered);
                    }
                    Err(PrepareFailure::Broken(error)) => return Ok(Attempt::Failed { idx, forwarded: false, error }),
                };
                let Some(s) = self.ps.get(id) else {
                    self.reply_err(seq, &errors::unknown_statement(id, "mysqld_stmt_execute")).await?;
                    return Ok(Attempt::Answered);
                };
                let bound_here = s.on_backend(serial).is_some_and(|b| b.types_bound);
                let insert = if bound_here { None } else { s.bound_types.as_deref() };
                if let Err(m) = rewrite_execute(cmd, s.params, backend_id, insert, &mut self.scratch) {
                    self.reply_err(seq, &errors::malformed(m.0)).await?;
                    return Ok(Attempt::Answered);
                }
                sends_types = insert.is_some() || parse_execute(cmd, s.params).is_ok_and(|p| p.types.is_some());
                true
            }
        };
        let b = &mut self.backends[idx];
        let payload: &[u8] = if use_scratch { &self.scratch } else { cmd };
        if let Err(e) = b.conn.send(payload).await {
            return Ok(Attempt::Failed { idx, forwarded: false, error: e.to_string() });
        }
        self.w.stats.server(b.slot).queries.incr();
        if let Stmt::Execute { id, .. } = *stmt {
            if let Some(s) = self.ps.get_mut(id) {
                if sends_types {
                    if let Some(bs) = s.on_backend_mut(serial) {
                        bs.types_bound = true;
                    }
                }
                s.last_exec_on = Some(serial);
                s.long_data_on = None;
            }
        }
        let mut capture = capture_limit.map(Capture::new);
        self.client_w.set_sequence(seq);
        let mut out =
            Out { client: Some(&mut self.client_w), capture: capture.as_mut(), prepare_id: None, flush_at_end: false };
        match b.conn.forward_response(kind, &mut out).await {
            Ok(summary) => Ok(Attempt::Done { idx, summary, capture }),
            Err(ForwardError::Client(e)) => Err(End::Client(e.to_string())),
            Err(ForwardError::Backend { error, forwarded }) => {
                Ok(Attempt::Failed { idx, forwarded, error: error.to_string() })
            }
        }
    }

    /// Bookkeeping after a statement ran on backend `idx`, before the end of its answer is
    /// flushed to the client: the cache must forget what a write changed before the client
    /// can see the write acknowledged (and read again).
    fn after_statement(&mut self, c: &Classification, idx: usize, summary: &ResponseSummary, cluster: &Cluster) {
        let on = RanOn { backend: self.backends[idx].serial, is_primary: self.is_primary(cluster, idx) };
        self.last_used = Some(on.backend);
        let ok = !summary.is_err();
        self.rws.after_statement(c, on, ok.then_some(summary.status));
        if ok {
            if let Some(db) = &c.use_database {
                self.db = Some(db.as_str().into());
            }
        }
        // Also after an error: a multi-statement text may have written before failing.
        if c.writes {
            self.note_write(c, self.rws.txn != Txn::None);
        }
        if self.rws.txn == Txn::None {
            self.txn_ended();
        }
    }

    /// The backend a routing hint names, if it may be used for this statement: `route to
    /// last` and statements about the previous one (SHOW WARNINGS) go where the previous
    /// statement ran; `route to server NAME` is obeyed for reads outside transactions.
    async fn hinted_backend(
        &mut self,
        hint: Option<&RoutingHint>,
        c: &Classification,
        target: Target,
        cluster: &Cluster,
        now: Instant,
    ) -> Option<u64> {
        if self.rws.txn != Txn::None || !matches!(target, Target::Primary | Target::Replica | Target::FallbackPrimary) {
            return None;
        }
        match hint? {
            RoutingHint::LastUsed => self.last_used.filter(|&serial| self.find_serial(serial).is_some()),
            RoutingHint::Server(name) if !is_write(c) => {
                let server = cluster
                    .servers
                    .iter()
                    .find(|s| s.name.as_ref() == name && s.is_up() && !self.avoid.contains(s.slot, now))?;
                let idx = match self.open_index(server.slot) {
                    Some(i) => i,
                    None => self.open(server).await.ok()?,
                };
                Some(self.backends[idx].serial)
            }
            _ => None,
        }
    }

    /// The backend's id for statement `id`, preparing it there first if needed.
    async fn ensure_prepared(&mut self, idx: usize, id: u32) -> Result<u32, PrepareFailure> {
        let serial = self.backends[idx].serial;
        let Some(s) = self.ps.get(id) else {
            return Err(PrepareFailure::Refused(errors::unknown_statement(id, "mysqld_stmt_execute")));
        };
        if let Some(bs) = s.on_backend(serial) {
            return Ok(bs.id);
        }
        let mut payload = Vec::with_capacity(1 + s.sql.len());
        payload.push(COM_STMT_PREPARE);
        payload.extend_from_slice(&s.sql);
        match self.backends[idx].conn.execute_discard(&payload, ResponseKind::Prepare).await {
            Ok(ResponseSummary { prepare: Some(p), .. }) => {
                if let Some(s) = self.ps.get_mut(id) {
                    s.backends.push(BackendStatement { backend: serial, id: p.statement_id, types_bound: false });
                }
                Ok(p.statement_id)
            }
            Ok(ResponseSummary { error: Some(e), .. }) => Err(PrepareFailure::Refused(e)),
            Ok(_) => Err(PrepareFailure::Broken("no answer to COM_STMT_PREPARE".into())),
            Err(e) => Err(PrepareFailure::Broken(e.to_string())),
        }
    }

    /// Sends `cmd` to the backends `targets` (index, optional statement id to patch in), the
    /// answer of the first that answers goes to the client, the others' are read and dropped.
    /// Backends that fail or disagree (OK where the first said ERR or vice versa) leave the
    /// session. `None`: nobody answered.
    async fn fan_out(
        &mut self,
        cmd: &[u8],
        seq: u8,
        kind: ResponseKind,
        targets: &[(usize, Option<u32>)],
    ) -> Result<Option<FanAnswer>, End> {
        let mut failed: SmallVec<[usize; 4]> = SmallVec::new();
        for &(idx, stmt_id) in targets {
            let b = &mut self.backends[idx];
            let sent = match stmt_id {
                Some(id) => {
                    self.scratch.clear();
                    self.scratch.extend_from_slice(cmd);
                    self.scratch[1..5].copy_from_slice(&id.to_le_bytes());
                    b.conn.send(&self.scratch).await
                }
                None => b.conn.send(cmd).await,
            };
            match sent {
                Ok(()) => self.w.stats.server(b.slot).queries.incr(),
                Err(_) => failed.push(idx),
            }
        }
        let mut answer: Option<FanAnswer> = None;
        for &(idx, _) in targets {
            if failed.contains(&idx) {
                continue;
            }
            let b = &mut self.backends[idx];
            match &answer {
                None => {
                    self.client_w.set_sequence(seq);
                    match b.conn.forward_response(kind, &mut Out::client(&mut self.client_w)).await {
                        Ok(s) => {
                            answer =
                                Some(FanAnswer { serial: b.serial, slot: b.slot, is_err: s.is_err(), status: s.status })
                        }
                        Err(ForwardError::Client(e)) => return Err(End::Client(e.to_string())),
                        Err(ForwardError::Backend { error, forwarded: true }) => {
                            return Err(End::Fatal(format!(
                                "backend {} failed in the middle of an answer: {error}",
                                b.name
                            )));
                        }
                        Err(ForwardError::Backend { .. }) => failed.push(idx),
                    }
                }
                Some(first) => match b.conn.forward_response(kind, &mut Out::discard()).await {
                    Ok(s) if s.is_err() == first.is_err => {}
                    Ok(s) => {
                        warn!(server = %b.name, error = ?s.error, "backend disagreed on a session command; it leaves the session");
                        failed.push(idx);
                    }
                    Err(_) => failed.push(idx),
                },
            }
        }
        failed.sort_unstable_by(|a, b| b.cmp(a));
        let mut lost_txn = None;
        for idx in failed {
            let name = self.backends[idx].name.clone();
            if self.close_backend(idx, true).await {
                lost_txn = Some(name);
            }
        }
        if let Some(name) = lost_txn {
            if answer.is_none() {
                let _ = self.reply_err(seq, &errors::lost_transaction(&name)).await;
            }
            return Err(End::Fatal(format!("backend {name} holding the transaction failed")));
        }
        Ok(answer)
    }

    /// A session command: runs on every backend of the session and, if it succeeded, is
    /// remembered for backends that join later.
    async fn session_command(
        &mut self,
        cmd: &[u8],
        seq: u8,
        kind: ResponseKind,
        c: Option<&Classification>,
        new_db: Option<Arc<str>>,
    ) -> Result<(), End> {
        let now = Instant::now();
        let cluster = self.w.cluster();
        if self.backends.is_empty() {
            let avail = self.availability(&cluster, now);
            let opened = if avail.primary {
                self.ensure_primary(&cluster, now).await
            } else if avail.replica {
                self.ensure_replica(&cluster, now).await
            } else {
                Err(errors::no_server())
            };
            if let Err(e) = opened {
                return self.reply_err(seq, &e).await;
            }
        }
        if self.history.is_full() && self.history.can_join() {
            // This command overflows the history; bring the primary in while it still can join,
            // so that writes keep working in this session.
            if cluster.primary().is_some_and(|p| self.open_index(p.slot).is_none() && !self.avoid.contains(p.slot, now))
            {
                let _ = self.ensure_primary(&cluster, now).await;
            }
        }
        let main = cluster.primary().and_then(|p| self.open_index(p.slot)).unwrap_or(0);
        let targets: SmallVec<[(usize, Option<u32>); 4]> =
            std::iter::once(main).chain((0..self.backends.len()).filter(|&i| i != main)).map(|i| (i, None)).collect();
        let Some(answer) = self.fan_out(cmd, seq, kind, &targets).await? else {
            return self.reply_err(seq, &errors::lost_backend("(all)", "every backend of the session failed")).await;
        };
        self.w.stats.route(RouteEvent::All);
        self.last_used = Some(answer.serial);
        if !answer.is_err {
            let could_join = self.history.can_join();
            if self.history.record(cmd, kind) == Recorded::Overflowed && could_join {
                info!(peer = %self.peer, "session command history exceeded max_session_history; no new backend will join this session");
            }
            if let Some(db) = new_db {
                self.db = Some(db);
            }
        }
        let on = RanOn { backend: answer.serial, is_primary: cluster.primary().is_some_and(|p| p.slot == answer.slot) };
        let status = (!answer.is_err).then_some(answer.status);
        match c {
            Some(c) => {
                if !answer.is_err {
                    if let Some(db) = &c.use_database {
                        self.db = Some(db.as_str().into());
                    }
                }
                self.rws.after_statement(c, on, status);
            }
            None => {
                if let Some(status) = status {
                    self.rws.observe_status(on, status, false);
                }
            }
        }
        Ok(())
    }

    async fn rws_prepare(&mut self, cmd: &[u8], seq: u8) -> Result<(), End> {
        let c = Rc::new(classify(&cmd[1..]));
        self.count_class(&c);
        let Some(id) = self.ps.allocate_id() else {
            return self.reply_err(seq, &errors::too_many_statements(crate::ps_map::MAX_PREPARED_PER_SESSION)).await;
        };
        let now = Instant::now();
        let cluster = self.w.cluster();
        let mut retries = 0;
        loop {
            let avail = self.availability(&cluster, now);
            // Prepare where the statement would run now; preparing changes nothing, so a write
            // is prepared on a replica when there is no primary, and a session command on one
            // backend.
            let target = match decide(&self.rws, &c, avail) {
                Target::All | Target::FailWrite if avail.primary => Target::Primary,
                Target::All | Target::FailWrite if avail.replica => Target::Replica,
                Target::All | Target::FailWrite | Target::NoServer => {
                    return self.reply_err(seq, &errors::no_server()).await
                }
                t => t,
            };
            let idx = match self.backend_for(target, &cluster, now).await {
                Ok((i, _)) => i,
                Err(e) => return self.reply_err(seq, &e).await,
            };
            let b = &mut self.backends[idx];
            let result = match b.conn.send(cmd).await {
                Err(e) => Err((false, e.to_string())),
                Ok(()) => {
                    self.w.stats.server(b.slot).queries.incr();
                    self.client_w.set_sequence(seq);
                    let mut out = Out { prepare_id: Some(id), ..Out::client(&mut self.client_w) };
                    match b.conn.forward_response(ResponseKind::Prepare, &mut out).await {
                        Ok(s) => Ok(s),
                        Err(ForwardError::Client(e)) => return Err(End::Client(e.to_string())),
                        Err(ForwardError::Backend { error, forwarded }) => Err((forwarded, error.to_string())),
                    }
                }
            };
            match result {
                Ok(s) => {
                    if let Some(PrepareOk { statement_id, params, columns, .. }) = s.prepare {
                        let sql: Rc<[u8]> = cmd[1..].into();
                        self.ps.insert(
                            id,
                            PreparedStatement {
                                sql_arc: cmd[1..].into(),
                                sql,
                                class: c.clone(),
                                params,
                                columns,
                                bound_types: None,
                                backends: smallvec::smallvec![BackendStatement {
                                    backend: b.serial,
                                    id: statement_id,
                                    types_bound: false
                                }],
                                long_data_on: None,
                                last_exec_on: None,
                            },
                        );
                    }
                    return Ok(());
                }
                Err((forwarded, error)) => {
                    let name = b.name.clone();
                    let held_txn = self.close_backend(idx, true).await;
                    if forwarded || held_txn {
                        if !forwarded {
                            let _ = self.reply_err(seq, &errors::lost_transaction(&name)).await;
                        }
                        return Err(End::Fatal(format!("backend {name} failed: {error}")));
                    }
                    if retries == MAX_READ_RETRIES {
                        return self.reply_err(seq, &errors::lost_backend(&name, &error)).await;
                    }
                    retries += 1;
                }
            }
        }
    }

    async fn rws_execute(&mut self, cmd: &[u8], seq: u8) -> Result<(), End> {
        if cmd.len() < EXECUTE_HEADER_LEN {
            return self.reply_err(seq, &errors::malformed("truncated COM_STMT_EXECUTE")).await;
        }
        let client_id = u32::from_le_bytes([cmd[1], cmd[2], cmd[3], cmd[4]]);
        let cursor = cmd[5] & CURSOR_FLAGS_MASK != 0;
        let id = self.ps.resolve(client_id);
        let Some(s) = self.ps.get_mut(id) else {
            return self.reply_err(seq, &errors::unknown_statement(client_id, "mysqld_stmt_execute")).await;
        };
        match parse_execute(cmd, s.params) {
            Err(m) => return self.reply_err(seq, &errors::malformed(m.0)).await,
            Ok(p) => {
                if let Some(types) = p.types {
                    if s.bound_types.as_deref() != Some(types) {
                        s.bound_types = Some(types.into());
                        for b in s.backends.iter_mut() {
                            b.types_bound = false;
                        }
                    }
                }
            }
        }
        let c = s.class.clone();
        let forced = s.long_data_on;
        self.count_class(&c);
        self.rws_statement(cmd, seq, Stmt::Execute { id, cursor, forced }, &c).await
    }

    /// The backend a statement-bound command (long data) goes to: where the statement's
    /// execute would run now.
    async fn statement_backend(&mut self, c: &Classification) -> Option<usize> {
        let now = Instant::now();
        let cluster = self.w.cluster();
        let avail = self.availability(&cluster, now);
        let target = match decide(&self.rws, c, avail) {
            Target::All | Target::FailWrite | Target::NoServer => {
                if avail.primary {
                    Target::Primary
                } else {
                    Target::Replica
                }
            }
            t => t,
        };
        self.backend_for(target, &cluster, now).await.ok().map(|(i, _)| i)
    }

    /// COM_STMT_SEND_LONG_DATA (no answer): to the backend the next execute will use, which is
    /// then pinned for that execute.
    async fn rws_long_data(&mut self, cmd: &[u8]) -> Result<(), End> {
        if cmd.len() < 7 {
            return Ok(()); // nothing can be answered; the execute reports the problem
        }
        let id = self.ps.resolve(u32::from_le_bytes([cmd[1], cmd[2], cmd[3], cmd[4]]));
        let Some(s) = self.ps.get(id) else { return Ok(()) };
        let c = s.class.clone();
        let pinned = s.long_data_on.and_then(|serial| self.find_serial(serial));
        let idx = match pinned {
            Some(i) => i,
            None => match self.statement_backend(&c).await {
                Some(i) => i,
                None => return Ok(()),
            },
        };
        let Ok(backend_id) = self.ensure_prepared(idx, id).await else { return Ok(()) };
        self.scratch.clear();
        self.scratch.extend_from_slice(cmd);
        self.scratch[1..5].copy_from_slice(&backend_id.to_le_bytes());
        let b = &mut self.backends[idx];
        let serial = b.serial;
        if b.conn.send(&self.scratch).await.is_err() {
            let name = b.name.clone();
            if self.close_backend(idx, true).await {
                // No answer is due, and the next statement would run outside the transaction.
                return Err(End::Fatal(format!("backend {name} holding the transaction failed")));
            }
            return Ok(());
        }
        if let Some(s) = self.ps.get_mut(id) {
            s.long_data_on = Some(serial);
        }
        Ok(())
    }

    /// COM_STMT_CLOSE (no answer): closes the statement on every backend that has it.
    async fn rws_close_statement(&mut self, cmd: &[u8]) -> Result<(), End> {
        if cmd.len() < 5 {
            return Ok(());
        }
        let Some(s) = self.ps.remove(u32::from_le_bytes([cmd[1], cmd[2], cmd[3], cmd[4]])) else { return Ok(()) };
        for bs in &s.backends {
            if let Some(idx) = self.find_serial(bs.backend) {
                let mut payload = [COM_STMT_CLOSE, 0, 0, 0, 0];
                payload[1..5].copy_from_slice(&bs.id.to_le_bytes());
                // A failure shows on the connection's next use.
                let _ = self.backends[idx].conn.send(&payload).await;
            }
        }
        Ok(())
    }

    async fn rws_reset_statement(&mut self, cmd: &[u8], seq: u8) -> Result<(), End> {
        if cmd.len() < 5 {
            return self.reply_err(seq, &errors::malformed("truncated COM_STMT_RESET")).await;
        }
        let client_id = u32::from_le_bytes([cmd[1], cmd[2], cmd[3], cmd[4]]);
        let id = self.ps.resolve(client_id);
        let Some(s) = self.ps.get_mut(id) else {
            return self.reply_err(seq, &errors::unknown_statement(client_id, "mysqld_stmt_reset")).await;
        };
        s.long_data_on = None;
        let on: SmallVec<[(u64, u32); 2]> = s.backends.iter().map(|b| (b.backend, b.id)).collect();
        let targets: SmallVec<[(usize, Option<u32>); 2]> =
            on.iter().filter_map(|&(serial, bid)| self.find_serial(serial).map(|i| (i, Some(bid)))).collect();
        if targets.is_empty() {
            return self.reply_ok(seq, self.local_status()).await;
        }
        if self.fan_out(cmd, seq, ResponseKind::Single, &targets).await?.is_none() {
            return self.reply_err(seq, &errors::lost_backend("(all)", "the statement's backends failed")).await;
        }
        Ok(())
    }

    /// COM_STMT_FETCH: to the backend that ran the statement's execute (it holds the cursor).
    async fn rws_fetch(&mut self, cmd: &[u8], seq: u8) -> Result<(), End> {
        if cmd.len() < 9 {
            return self.reply_err(seq, &errors::malformed("truncated COM_STMT_FETCH")).await;
        }
        let client_id = u32::from_le_bytes([cmd[1], cmd[2], cmd[3], cmd[4]]);
        let id = self.ps.resolve(client_id);
        let target = self.ps.get(id).and_then(|s| {
            let serial = s.last_exec_on?;
            Some((self.find_serial(serial)?, s.on_backend(serial)?.id))
        });
        let Some((idx, backend_id)) = target else {
            return self.reply_err(seq, &errors::unknown_statement(client_id, "mysqld_stmt_fetch")).await;
        };
        let targets = [(idx, Some(backend_id))];
        if self.fan_out(cmd, seq, ResponseKind::Rows, &targets).await?.is_none() {
            return self.reply_err(seq, &errors::lost_backend("(cursor)", "the cursor's backend failed")).await;
        }
        Ok(())
    }

    async fn rws_reset_connection(&mut self, cmd: &[u8], seq: u8) -> Result<(), End> {
        let targets: SmallVec<[(usize, Option<u32>); 4]> = (0..self.backends.len()).map(|i| (i, None)).collect();
        let answer =
            if targets.is_empty() { None } else { self.fan_out(cmd, seq, ResponseKind::Single, &targets).await? };
        self.reset_session_state();
        match answer {
            Some(_) => Ok(()),
            None => self.reply_ok(seq, self.local_status()).await,
        }
    }

    /// COM_PING: to every backend (keeping idle ones from timing out), answered by the first.
    async fn rws_ping(&mut self, cmd: &[u8], seq: u8) -> Result<(), End> {
        let targets: SmallVec<[(usize, Option<u32>); 4]> = (0..self.backends.len()).map(|i| (i, None)).collect();
        if !targets.is_empty() && self.fan_out(cmd, seq, ResponseKind::Single, &targets).await?.is_some() {
            return Ok(());
        }
        self.reply_ok(seq, self.local_status()).await
    }

    /// Commands with one answer that are not statements: COM_FIELD_LIST (`read`: a replica
    /// may answer), administrative commands (the primary).
    async fn rws_simple(&mut self, cmd: &[u8], seq: u8, kind: ResponseKind, read: bool) -> Result<(), End> {
        let now = Instant::now();
        let cluster = self.w.cluster();
        let avail = self.availability(&cluster, now);
        let target = if self.rws.txn != Txn::None {
            Target::TxnBackend
        } else if read && avail.replica {
            Target::Replica
        } else if avail.primary {
            Target::Primary
        } else if avail.replica {
            Target::Replica
        } else {
            return self.reply_err(seq, &errors::no_server()).await;
        };
        let idx = match self.backend_for(target, &cluster, now).await {
            Ok((i, _)) => i,
            Err(e) => return self.reply_err(seq, &e).await,
        };
        if self.fan_out(cmd, seq, kind, &[(idx, None)]).await?.is_none() {
            return self.reply_err(seq, &errors::lost_backend("(single)", "the backend failed")).await;
        }
        Ok(())
    }
}
