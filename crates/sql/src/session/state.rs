//! The session's state and its small public surface: what a connection keeps between
//! statements (database, variables, transaction, prepared statements, diagnostics) and how a
//! statement is compiled against it.
//!
//! Statement dispatch is in `dispatch`, transactions in `txn`, prepared statements in
//! `prepared`; they add methods to `Session` and take its fields from here.

use std::collections::HashMap;
use std::sync::Arc;

use selkie_storage::{Catalog, Savepoint};
use sqlparser::ast;

use super::compiled::{Compiled, CompiledStmt, Prepared};
use super::counters::StatusCounters;
use super::text_cache::TextPlanCache;
use crate::bind::{BindEnv, Binder, Scope};
use crate::dml;
use crate::dml_multi;
use crate::error::{self, SqlError};
use crate::parse::Stmt;
use crate::server::SqlServer;
use crate::store::Store;
use crate::temporary::TemporaryTables;
use crate::types::{Interrupt, SessionInfo, SessionStatus, WarnLevel, Warning};
use crate::value;
use crate::variables::SessionVariables;

/// Builds the statement environment from the session's fields (a macro, so the borrows stay
/// per field and the transaction and user variables can be borrowed mutably beside it).
/// `$engine` comes from the session's `Store` (`split` when the transaction is borrowed too).
macro_rules! stmt_env {
    ($s:ident, $engine:expr, $catalog:expr, $status:expr) => {
        $crate::exec::ctx::StmtEnv {
            server: &$s.server,
            engine: $engine,
            catalog: crate::exec::ctx::LazyCatalog::new($catalog),
            vars: &$s.vars,
            current_db: $s.current_db.as_deref(),
            info: &$s.info,
            now: std::sync::OnceLock::new(),
            sql_mode: $s.vars.sql_mode(),
            prev_warnings: &$s.warnings,
            session_status: $status,
            found_rows: $s.found_rows,
            row_count: $s.row_count,
            interrupt: &$s.interrupt,
            temporary: Some(&$s.temporary),
        }
    };
}
pub(super) use stmt_env;

/// One client session: current database, transaction, variables, prepared statements, warnings.
///
/// The server drives it one command at a time (`execute_text`, `prepare`, `execute_prepared`,
/// ...); each statement runs to completion before the next command is read.
pub struct Session {
    pub(super) server: Arc<SqlServer>,
    pub(super) info: SessionInfo,
    pub(super) current_db: Option<String>,
    pub(super) vars: SessionVariables,
    pub(super) user_vars: crate::user_variables::UserVariables,
    /// The engine, the session's slot and the open transaction: the one way to storage.
    pub(super) store: Store,
    /// The open transaction spans statements (BEGIN, or autocommit off).
    pub(super) explicit_trx: bool,
    pub(super) trx_read_only: bool,
    pub(super) prepared: HashMap<u32, Prepared>,
    /// SQL-level PREPARE names (lower case) → statement ids.
    pub(super) prepared_names: HashMap<String, u32>,
    pub(super) next_statement_id: u32,
    pub(super) warnings: Vec<Warning>,
    pub(super) warning_count: usize,
    pub(super) found_rows: u64,
    pub(super) row_count: i64,
    pub(super) interrupt: Arc<Interrupt>,
    /// The connection cleared `interrupt` when its command began (`begin_command`): the
    /// statement must not clear it again, or a KILL QUERY sent since would be lost.
    pub(super) command_began: bool,
    pub(super) counters: Arc<StatusCounters>,
    pub(super) rng: u64,
    /// Plans of auto-parameterized text statements.
    pub(super) text_cache: TextPlanCache,
    /// CLIENT_MULTI_STATEMENTS / COM_SET_OPTION: whether one COM_QUERY may hold several
    /// statements (otherwise such a text is a syntax error, as in MariaDB).
    pub(super) multi_statements: bool,
    /// CLIENT_FOUND_ROWS: affected rows are the rows found (matched), not the rows changed.
    pub(super) client_found_rows: bool,
    /// Savepoints of the open transaction, oldest first.
    pub(super) savepoints: Vec<(String, SessionSavepoint)>,
    /// CREATE TEMPORARY TABLE's tables, dropped when the session ends.
    pub(super) temporary: TemporaryTables,
    /// The tables LOCK TABLES locked (None: no LOCK TABLES in force).
    pub(super) table_locks: Option<Vec<crate::table_locks::LockedTable>>,
    /// CLIENT_LOCAL_FILES: the client can send files for LOAD DATA LOCAL.
    pub(super) local_files: bool,
    /// A LOAD DATA LOCAL waiting for the client's file (`take_local_infile_request`).
    pub(super) local_infile: Option<Box<crate::parse::data_file::LoadData>>,
}

/// Where a SAVEPOINT was set.
#[derive(Clone, Debug)]
pub(super) enum SessionSavepoint {
    /// Before the transaction used the engine (no read, lock or change yet). MariaDB rolls back
    /// the whole transaction of an engine that joined after the savepoint (locks and read view
    /// included), and the SQL transaction goes on.
    BeforeEngine,
    At(Savepoint),
}

impl Session {
    pub fn new(server: Arc<SqlServer>, info: SessionInfo) -> Result<Session, SqlError> {
        let store = Store::open(server.engine())?;
        let temporary = TemporaryTables::new(info.connection_id);
        let vars = SessionVariables::new(&server.globals);
        debug_assert!(vars.shares_global_values(&server.globals), "a new session copies no variables");
        let seed = info.connection_id.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        Ok(Session {
            server,
            info,
            current_db: None,
            vars,
            user_vars: HashMap::new(),
            store,
            explicit_trx: false,
            trx_read_only: false,
            prepared: HashMap::new(),
            prepared_names: HashMap::new(),
            next_statement_id: 1,
            warnings: Vec::new(),
            warning_count: 0,
            found_rows: 0,
            row_count: -1,
            interrupt: Arc::new(Interrupt::default()),
            command_began: false,
            counters: Arc::new(StatusCounters::default()),
            rng: seed | 1,
            text_cache: TextPlanCache::default(),
            multi_statements: true,
            client_found_rows: false,
            savepoints: Vec::new(),
            temporary,
            table_locks: None,
            local_files: false,
            local_infile: None,
        })
    }

    /// Whether a COM_QUERY may contain several statements (CLIENT_MULTI_STATEMENTS at connect,
    /// COM_SET_OPTION later). When off, a text with more than one statement fails with 1064
    /// and none of it runs, as in MariaDB. On by default.
    /// A client command begins: a KILL QUERY sent before it is forgotten (as MariaDB resets a
    /// connection's KILL_QUERY state when a command starts). The connection calls this before
    /// the statement shows in SHOW PROCESSLIST, so that a KILL QUERY aimed at the statement
    /// from then on stops it.
    pub fn begin_command(&mut self) {
        self.interrupt.clear();
        self.command_began = true;
    }

    /// A statement starts: it may run for max_statement_time (0: without limit).
    pub(super) fn start_statement_time(&self) {
        let limit = self.vars.max_statement_time();
        self.interrupt.set_statement_time(limit);
    }

    /// A statement ended: its time limit goes, and an interruption it caused is 1969.
    pub(super) fn end_statement_time<T>(&self, r: Result<T, SqlError>) -> Result<T, SqlError> {
        let cause = self.interrupt.cause();
        self.interrupt.set_statement_time(None);
        match r {
            Err(e) if e.code == 1317 && cause == Some(crate::types::InterruptCause::StatementTime) => {
                Err(crate::error::statement_time_exceeded())
            }
            r => r,
        }
    }

    /// Clears the interrupt flag at the start of a statement, unless the connection did when
    /// the command began (`begin_command`).
    pub(super) fn clear_interrupt_for_statement(&mut self) {
        if !self.command_began {
            self.interrupt.clear();
        }
    }

    pub fn set_multi_statements(&mut self, enabled: bool) {
        self.multi_statements = enabled;
    }

    /// CLIENT_FOUND_ROWS at connect: UPDATE (and ROW_COUNT()) reports the rows it matched
    /// rather than the rows it changed, as MariaDB does for such a client (ORMs check that a
    /// save of an unchanged row found it).
    pub fn set_client_found_rows(&mut self, enabled: bool) {
        self.client_found_rows = enabled;
    }

    /// COM_INIT_DB and CLIENT_CONNECT_WITH_DB: 1049 if the database does not exist.
    pub fn use_database(&mut self, db: &str) -> Result<(), SqlError> {
        if db.eq_ignore_ascii_case(crate::bind::INFORMATION_SCHEMA) {
            self.current_db = Some(crate::bind::INFORMATION_SCHEMA.to_string());
            return Ok(());
        }
        if self.store.catalog().database(db).is_none() {
            return Err(error::unknown_database(db));
        }
        self.current_db = Some(db.to_string());
        Ok(())
    }

    pub fn current_database(&self) -> Option<&str> {
        self.current_db.as_deref()
    }

    /// Raised (by KILL QUERY / KILL) to interrupt the running statement (error 1317).
    pub fn interrupt_flag(&self) -> Arc<Interrupt> {
        self.interrupt.clone()
    }

    /// This session's Com_* / Questions counters, for the server's global status (the
    /// session writes them; readers sum them over sessions).
    pub fn status_counters(&self) -> Arc<StatusCounters> {
        self.counters.clone()
    }

    pub fn status(&self) -> SessionStatus {
        SessionStatus {
            in_transaction: self.store.has_trx() && self.explicit_trx,
            autocommit: self.vars.autocommit(),
            read_only_transaction: self.store.has_trx() && self.trx_read_only,
            no_backslash_escapes: self.vars.sql_mode().no_backslash_escapes,
        }
    }

    /// Number of warnings of the last statement.
    pub fn warning_count(&self) -> u16 {
        self.warning_count.min(u16::MAX as usize) as u16
    }

    /// COM_RESET_CONNECTION: rollback, drop prepared statements and user variables, reset
    /// session variables to the globals.
    pub fn reset(&mut self) {
        self.rollback_quietly();
        self.unlock_tables();
        self.server.user_locks.release_all(self.info.connection_id);
        self.drop_all_temporary();
        self.prepared.clear();
        self.prepared_names.clear();
        self.user_vars.clear();
        self.text_cache = TextPlanCache::default();
        self.vars.reset(&self.server.globals);
        self.warnings.clear();
        self.warning_count = 0;
        self.found_rows = 0;
        self.row_count = -1;
    }

    /// Rolls back any open transaction (connection close).
    pub fn close(&mut self) {
        self.rollback_quietly();
        self.unlock_tables();
        self.server.user_locks.release_all(self.info.connection_id);
        self.server.sequences.forget_session(self.info.connection_id);
        self.drop_all_temporary();
    }

    pub(super) fn rollback_quietly(&mut self) {
        if let Some(t) = self.store.take_trx() {
            if let Err(e) = t.rollback() {
                tracing::warn!(connection = self.info.connection_id, error = %e, "rollback failed");
            }
        }
        self.explicit_trx = false;
        self.end_of_transaction();
    }

    /// Forgets what belonged to the transaction that just ended.
    pub(super) fn end_of_transaction(&mut self) {
        self.savepoints.clear();
    }

    pub(super) fn set_warnings(&mut self, warnings: Vec<Warning>, count: usize) {
        self.warnings = warnings;
        self.warning_count = count;
    }

    /// After an error, SHOW WARNINGS lists the error (MariaDB's diagnostics area).
    pub(super) fn record_error(&mut self, e: &SqlError) {
        self.warnings = vec![Warning { level: WarnLevel::Error, code: e.code, message: e.message.clone() }];
        self.warning_count = 1;
    }

    /// Mirrors what the statement left behind into the session-only variables
    /// (@@warning_count, @@error_count, @@in_transaction).
    pub(super) fn publish_statement_state(&mut self) {
        let errors = self.warnings.iter().filter(|w| w.level == WarnLevel::Error).count() as u64;
        self.vars.set_diagnostics_counts(self.warning_count as u64, errors);
        self.vars.set_in_transaction(self.store.has_trx() && self.explicit_trx);
    }

    /// How the session's sql_mode reads statement text.
    pub(super) fn syntax(&self) -> crate::parse::Syntax {
        crate::parse::Syntax::from(self.vars.sql_mode())
    }

    pub(super) fn bind_env<'a>(&'a self, catalog: &'a Catalog, db: Option<&'a str>) -> BindEnv<'a> {
        let mode = self.vars.sql_mode();
        BindEnv {
            catalog,
            current_db: db,
            vars: Some((&self.vars, &self.server.globals)),
            user_vars: Some(&self.user_vars),
            pipes_as_concat: mode.pipes_as_concat,
            only_full_group_by: mode.only_full_group_by,
            temporary: Some(&self.temporary),
            row_estimates: Some(self.store.engine()),
        }
    }

    /// Binds and plans a statement (queries and DML); other statements keep their parsed form.
    pub(super) fn compile(
        &self,
        catalog: &Catalog,
        stmt: Stmt,
        text: &str,
        original: &str,
        db: Option<&str>,
    ) -> Result<CompiledStmt, SqlError> {
        self.compile_with_param_types(catalog, stmt, text, original, db, None)
    }

    /// `compile`, with `?` typed as the given parameter types rather than as unknown.
    pub(super) fn compile_with_param_types(
        &self,
        catalog: &Catalog,
        stmt: Stmt,
        text: &str,
        original: &str,
        db: Option<&str>,
        param_types: Option<&[value::SqlType]>,
    ) -> Result<CompiledStmt, SqlError> {
        let mut b = Binder::with_original(self.bind_env(catalog, db), text, original);
        b.param_types = param_types;
        b.scopes.push(Scope::default());
        let mut select_limit_applies = false;
        let ignore = matches!(stmt, Stmt::DmlIgnore(_));
        let compiled = match &stmt {
            Stmt::Ast(s) | Stmt::DmlIgnore(s) => match &**s {
                ast::Statement::Query(q) => {
                    select_limit_applies = q.limit_clause.is_none();
                    Compiled::Select(Arc::new(b.bind_query(q)?))
                }
                ast::Statement::Insert(ins) => Compiled::Insert(Arc::new(dml::bind_insert(&mut b, ins)?)),
                ast::Statement::Update(u) if dml_multi::is_multi_update(u) => {
                    Compiled::MultiUpdate(Arc::new(dml_multi::bind_update(&mut b, u, ignore)?))
                }
                ast::Statement::Delete(d) if dml_multi::is_multi_delete(d) => {
                    Compiled::MultiDelete(Arc::new(dml_multi::bind_delete(&mut b, d, ignore)?))
                }
                ast::Statement::Update(u) => Compiled::Update(Arc::new(dml::bind_update(&mut b, u, ignore)?)),
                ast::Statement::Delete(d) => Compiled::Delete(Arc::new(dml::bind_delete(&mut b, d, ignore)?)),
                _ => Compiled::Other(Arc::new(stmt.clone())),
            },
            _ => Compiled::Other(Arc::new(stmt.clone())),
        };
        Ok(CompiledStmt {
            param_count: b.param_count,
            catalog_version: catalog.version,
            uses_tables: b.uses_tables
                || matches!(
                    compiled,
                    Compiled::Insert(_)
                        | Compiled::Update(_)
                        | Compiled::Delete(_)
                        | Compiled::MultiUpdate(_)
                        | Compiled::MultiDelete(_)
                ),
            tables: std::mem::take(&mut b.tables),
            uses_info_schema: b.uses_info_schema,
            plan_follows_param_types: b.param_count > 0 && param_types.is_none(),
            select_limit_applies,
            compiled,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{ResultSink, Value};

    fn assert_send<T: Send>(_: &T) {}

    /// Statement futures must be `Send` so that the server's connection tasks can run on any
    /// worker thread without an `unsafe impl Send` wrapper. This fails to compile otherwise;
    /// the function is never called.
    #[allow(dead_code)]
    fn statement_futures_are_send(session: &mut Session, sink: &mut dyn ResultSink, params: &[Value]) {
        assert_send(&session.execute_text("SELECT 1", sink));
        assert_send(&session.execute_prepared(1, params, sink));
    }
}
