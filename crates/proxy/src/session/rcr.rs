//! readconnroute sessions: one backend, chosen at connect time, every command forwarded as is.
//!
//! Statements are not inspected unless a result cache exists somewhere in the process: then
//! writes are classified so they can invalidate cached results (a cache must not serve data a
//! write through another listener changed).

use std::collections::HashMap;
use std::rc::Rc;
use std::time::Instant;

use selkie_protocol::constants::command::*;
use selkie_protocol::constants::status::SERVER_STATUS_IN_TRANS;
use tracing::warn;

use super::{errors, End, Session};
use crate::backend::{BackendError, ForwardError, Out, ResponseKind, CURSOR_FLAGS_MASK};
use crate::classifier::{classify, Classification};
use crate::config::ServerRole;
use crate::router::readconnroute;
use crate::stats::RouteEvent;
use selkie_protocol::command::LAST_PREPARED_STATEMENT;
use selkie_protocol::response::ErrPacket;

/// What the response to a command looks like; `None` for commands without one.
pub fn response_kind(cmd: &[u8]) -> Option<ResponseKind> {
    Some(match cmd[0] {
        COM_QUERY => ResponseKind::Results,
        COM_STMT_EXECUTE if cmd.get(5).is_some_and(|f| f & CURSOR_FLAGS_MASK != 0) => ResponseKind::CursorResults,
        COM_STMT_EXECUTE => ResponseKind::Results,
        COM_STMT_PREPARE => ResponseKind::Prepare,
        COM_STMT_FETCH => ResponseKind::Rows,
        COM_FIELD_LIST => ResponseKind::FieldList,
        COM_STMT_CLOSE | COM_STMT_SEND_LONG_DATA => return None,
        _ => ResponseKind::Single,
    })
}

/// Commands a proxy cannot forward meaningfully (replication protocol, connection ids).
pub fn refused_command(cmd: u8) -> Option<ErrPacket> {
    match cmd {
        COM_PROCESS_KILL => Some(errors::kill_unsupported()),
        COM_BINLOG_DUMP | COM_REGISTER_SLAVE | COM_TABLE_DUMP | COM_CONNECT_OUT | COM_DELAYED_INSERT | COM_CONNECT
        | COM_TIME | COM_SLEEP | COM_DAEMON => Some(errors::unsupported_command(cmd)),
        c if c > COM_RESET_CONNECTION => Some(errors::unsupported_command(cmd)),
        _ => None,
    }
}

impl Session {
    /// Connects the session's one backend: the least connected server of `role`.
    pub(super) async fn rcr_connect(&mut self, role: ServerRole) -> Result<(), ErrPacket> {
        let cluster = self.w.cluster();
        let role_name = match role {
            ServerRole::Primary => "primary",
            ServerRole::Replica => "replica",
        };
        loop {
            let w = self.w.clone();
            let Some(server) =
                readconnroute::pick(&cluster, role, |slot| w.connections_to(slot), &self.avoid, Instant::now())
            else {
                return Err(errors::no_server_with_role(role_name));
            };
            match self.connect(server).await {
                Ok(conn) => {
                    self.register(server, conn);
                    return Ok(());
                }
                Err(BackendError::Refused(e)) => return Err(e),
                Err(e) => {
                    warn!(server = %server.name, error = %e, "cannot connect to backend; trying another");
                    self.avoid.add(server.slot, Instant::now());
                }
            }
        }
    }

    pub(super) async fn run_rcr(&mut self, role: ServerRole) -> End {
        let event = match role {
            ServerRole::Primary => RouteEvent::Primary,
            ServerRole::Replica => RouteEvent::Replica,
        };
        // Classifications of prepared statements by backend id, kept only while caches exist.
        let mut prepared: HashMap<u32, Rc<Classification>> = HashMap::new();
        let mut last_prepared: Option<u32> = None;
        loop {
            let seq = match self.read_command().await {
                Ok(s) => s,
                Err(e) => return e,
            };
            let cmd = std::mem::take(&mut self.cmd);
            let r = self.rcr_command(&cmd, seq, event, &mut prepared, &mut last_prepared).await;
            self.cmd = cmd;
            if let Err(e) = r {
                return e;
            }
        }
    }

    async fn rcr_command(
        &mut self,
        cmd: &[u8],
        seq: u8,
        event: RouteEvent,
        prepared: &mut HashMap<u32, Rc<Classification>>,
        last_prepared: &mut Option<u32>,
    ) -> Result<(), End> {
        self.w.stats.queries.incr();
        match cmd[0] {
            COM_QUIT => return Err(End::Quit),
            COM_CHANGE_USER => {
                prepared.clear();
                return self.change_user(cmd, seq).await;
            }
            // The backend forgets its statements (and may reuse their ids).
            COM_RESET_CONNECTION => prepared.clear(),
            c => {
                if let Some(err) = refused_command(c) {
                    return self.reply_err(seq, &err).await;
                }
            }
        }
        // Classification only for cache invalidation.
        let class: Option<Rc<Classification>> = if self.caches_exist() {
            match cmd[0] {
                COM_QUERY | COM_STMT_PREPARE => {
                    let c = classify(&cmd[1..]);
                    self.count_class(&c);
                    Some(Rc::new(c))
                }
                COM_STMT_EXECUTE if cmd.len() >= 5 => {
                    let mut id = u32::from_le_bytes([cmd[1], cmd[2], cmd[3], cmd[4]]);
                    if id == LAST_PREPARED_STATEMENT {
                        id = last_prepared.unwrap_or(id);
                    }
                    prepared.get(&id).cloned()
                }
                COM_STMT_CLOSE if cmd.len() >= 5 => {
                    prepared.remove(&u32::from_le_bytes([cmd[1], cmd[2], cmd[3], cmd[4]]));
                    None
                }
                _ => None,
            }
        } else {
            None
        };
        let kind = response_kind(cmd);
        let Some(b) = self.backends.first_mut() else {
            return Err(End::Fatal("readconnroute session without a backend".into()));
        };
        if let Err(e) = b.conn.send(cmd).await {
            let err = errors::lost_backend(&b.name, &e.to_string());
            let _ = self.reply_err(seq, &err).await;
            return Err(End::Fatal(err.message));
        }
        self.w.stats.server(b.slot).queries.incr();
        self.w.stats.route(event);
        let Some(kind) = kind else { return Ok(()) };
        self.client_w.set_sequence(seq);
        // The end of the answer is flushed after the cache was invalidated (see below).
        let mut out = Out { flush_at_end: false, ..Out::client(&mut self.client_w) };
        let summary = match b.conn.forward_response(kind, &mut out).await {
            Ok(s) => s,
            Err(ForwardError::Client(e)) => return Err(End::Client(e.to_string())),
            Err(ForwardError::Backend { error, forwarded }) => {
                let err = errors::lost_backend(&b.name, &error.to_string());
                if !forwarded {
                    let _ = self.reply_err(seq, &err).await;
                }
                return Err(End::Fatal(err.message));
            }
        };
        let in_txn = summary.status & SERVER_STATUS_IN_TRANS != 0;
        if let Some(c) = &class {
            match (cmd[0], summary.prepare) {
                (COM_STMT_PREPARE, Some(p)) => {
                    *last_prepared = Some(p.statement_id);
                    if c.writes {
                        prepared.insert(p.statement_id, c.clone());
                    }
                }
                // Also after an error: a multi-statement text may have written before failing.
                (COM_STMT_PREPARE, None) => {}
                _ if c.writes => self.note_write(c, in_txn),
                _ => {}
            }
        }
        if !summary.is_err() {
            if !in_txn {
                self.txn_ended();
            }
            if cmd[0] == COM_INIT_DB {
                self.db = Some(String::from_utf8_lossy(&cmd[1..]).as_ref().into());
            }
            if let Some(db) = class.as_ref().and_then(|c| c.use_database.as_ref()) {
                self.db = Some(db.as_str().into());
            }
        }
        self.flush_client().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_kinds_follow_the_command() {
        assert_eq!(response_kind(&[COM_QUERY, b'x']), Some(ResponseKind::Results));
        assert_eq!(response_kind(&[COM_STMT_EXECUTE, 1, 0, 0, 0, 0, 1, 0, 0, 0]), Some(ResponseKind::Results));
        assert_eq!(response_kind(&[COM_STMT_EXECUTE, 1, 0, 0, 0, 1, 1, 0, 0, 0]), Some(ResponseKind::CursorResults));
        assert_eq!(response_kind(&[COM_STMT_PREPARE]), Some(ResponseKind::Prepare));
        assert_eq!(response_kind(&[COM_STMT_FETCH]), Some(ResponseKind::Rows));
        assert_eq!(response_kind(&[COM_FIELD_LIST]), Some(ResponseKind::FieldList));
        assert_eq!(response_kind(&[COM_STMT_CLOSE, 1, 0, 0, 0]), None);
        assert_eq!(response_kind(&[COM_STMT_SEND_LONG_DATA]), None);
        assert_eq!(response_kind(&[COM_PING]), Some(ResponseKind::Single));
    }

    #[test]
    fn replication_and_kill_commands_are_refused() {
        assert!(refused_command(COM_BINLOG_DUMP).is_some());
        assert_eq!(refused_command(COM_PROCESS_KILL).unwrap().code, selkie_protocol::error::codes::UNKNOWN_COM_ERROR);
        assert!(refused_command(0x30).is_some());
        for ok in
            [COM_QUERY, COM_PING, COM_STMT_EXECUTE, COM_RESET_CONNECTION, COM_SET_OPTION, COM_STATISTICS, COM_INIT_DB]
        {
            assert!(refused_command(ok).is_none(), "{ok:#x}");
        }
    }
}
