//! A client session: statement dispatch, transactions, warnings, and the session facts
//! (LAST_INSERT_ID, FOUND_ROWS, ROW_COUNT) statements leave behind.
//!
//! Transactions: with autocommit on, a statement that reads or writes tables runs in its own
//! transaction (committed at its end, rolled back on error). BEGIN / START TRANSACTION, or
//! autocommit off, opens a transaction that spans statements until COMMIT / ROLLBACK or an
//! implicit commit (DDL, BEGIN, SET autocommit=1). A failing statement is rolled back alone
//! (`rollback_statement`); a deadlock (1213) means the engine rolled back the whole
//! transaction, so the session forgets it.

pub mod counters;
mod prepared;
mod schema;
mod set;
mod text_cache;
mod txn;

use std::collections::HashMap;
use std::sync::Arc;

use selkie_storage::{Catalog, ReadMode, Savepoint, SessionSlot, Transaction};
use sqlparser::ast;

use crate::api::{Interrupt, OkInfo, ResultSink, SessionInfo, SessionStatus, SqlError, SqlServer, Value};
use crate::bind::{BindEnv, Binder, Scope};
use crate::dml::{self, DeletePlan, InsertPlan, UpdatePlan};
use crate::error;
use crate::exec::ctx::{ExecCtx, StmtEnv};
use crate::parse::{self, autoparam, lexer, Stmt, SyntaxError};
use crate::plan::QueryPlan;
use crate::show::{self, WarnLevel, Warning};
use crate::value;
use crate::variables::SessionVariables;

use self::counters::{Counter, StatusCounters};
pub use self::prepared::Prepared;
use self::text_cache::TextPlanCache;
use self::txn::Begun;

/// Error codes after which the engine has already rolled back the whole transaction.
const TRANSACTION_ROLLED_BACK: u16 = 1213;
/// Times a statement is bound again because a DDL moved the catalog between its binding and its
/// start (`Ran::Stale`) before it fails with 1412. Each needs a DDL to commit in that window of
/// microseconds, so this is never reached in practice; it only bounds the loop.
const MAX_REBINDS: usize = 8;

/// Whether a compiled statement ran (successfully or not), or did not start because its plan
/// was bound to an older catalog: the caller binds it again against the current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ran {
    Done,
    Stale,
}

/// A statement ready to run: a plan for queries and DML, the parsed form for the rest.
#[derive(Debug)]
pub enum Compiled {
    Select(Arc<QueryPlan>),
    Insert(Arc<InsertPlan>),
    Update(Arc<UpdatePlan>),
    Delete(Arc<DeletePlan>),
    Other(Arc<Stmt>),
}

#[derive(Debug)]
pub struct CompiledStmt {
    pub compiled: Compiled,
    pub param_count: usize,
    /// Catalog version the plan was bound against (prepared statements re-plan when it moves).
    pub catalog_version: u64,
    pub uses_tables: bool,
    pub uses_info_schema: bool,
    /// A parameter appears in a select list: the result column types depend on the values
    /// bound at execution (prepared statements re-bind with their types).
    pub result_types_follow_params: bool,
}

impl CompiledStmt {
    fn is_plan(&self) -> bool {
        !matches!(self.compiled, Compiled::Other(_))
    }
}

/// A sink that drops everything (DO, and the locking pass of SELECT ... FOR UPDATE).
struct DiscardSink;

impl ResultSink for DiscardSink {
    fn columns(&mut self, _: &[crate::api::ColumnMeta]) {}
    fn row(&mut self, _: &[Value]) {}
    fn end_rows(&mut self, _: u16, _: bool) {}
    fn ok(&mut self, _: &OkInfo, _: bool) {}
}

/// Builds the statement environment from the session's fields (a macro, so the borrows stay
/// per field and the transaction and user variables can be borrowed mutably beside it).
macro_rules! stmt_env {
    ($s:ident, $catalog:expr, $status:expr) => {
        StmtEnv {
            server: &$s.server,
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
        }
    };
}
pub(crate) use stmt_env;

pub struct Core {
    pub(crate) server: Arc<SqlServer>,
    pub(crate) info: SessionInfo,
    slot: SessionSlot,
    pub(crate) current_db: Option<String>,
    pub(crate) vars: SessionVariables,
    pub(crate) user_vars: HashMap<String, Value>,
    trx: Option<Transaction>,
    /// The open transaction spans statements (BEGIN, or autocommit off).
    explicit_trx: bool,
    trx_read_only: bool,
    prepared: HashMap<u32, Prepared>,
    /// SQL-level PREPARE names (lower case) → statement ids.
    prepared_names: HashMap<String, u32>,
    next_statement_id: u32,
    pub(crate) warnings: Vec<Warning>,
    warning_count: usize,
    pub(crate) found_rows: u64,
    pub(crate) row_count: i64,
    pub(crate) interrupt: Arc<Interrupt>,
    pub(crate) counters: Arc<StatusCounters>,
    pub(crate) rng: u64,
    /// Plans of auto-parameterized text statements.
    text_cache: TextPlanCache,
    /// CLIENT_MULTI_STATEMENTS / COM_SET_OPTION: whether one COM_QUERY may hold several
    /// statements (otherwise such a text is a syntax error, as in MariaDB).
    multi_statements: bool,
    /// Savepoints of the open transaction, oldest first.
    savepoints: Vec<(String, SessionSavepoint)>,
}

/// Where a SAVEPOINT was set.
#[derive(Clone, Debug)]
enum SessionSavepoint {
    /// Before the transaction used the engine (no read, lock or change yet). MariaDB rolls back
    /// the whole transaction of an engine that joined after the savepoint (locks and read view
    /// included), and the SQL transaction goes on.
    BeforeEngine,
    At(Savepoint),
}

impl Core {
    pub fn new(server: Arc<SqlServer>, info: SessionInfo) -> Result<Core, SqlError> {
        let slot = server.engine.register_session()?;
        let vars = SessionVariables::new(&server.globals);
        debug_assert!(vars.shares_global_values(&server.globals), "a new session copies no variables");
        let seed = info.connection_id.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        Ok(Core {
            server,
            info,
            slot,
            current_db: None,
            vars,
            user_vars: HashMap::new(),
            trx: None,
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
            counters: Arc::new(StatusCounters::default()),
            rng: seed | 1,
            text_cache: TextPlanCache::default(),
            multi_statements: true,
            savepoints: Vec::new(),
        })
    }

    pub fn set_multi_statements(&mut self, enabled: bool) {
        self.multi_statements = enabled;
    }

    pub fn use_database(&mut self, db: &str) -> Result<(), SqlError> {
        if db.eq_ignore_ascii_case(crate::bind::INFORMATION_SCHEMA) {
            self.current_db = Some(crate::bind::INFORMATION_SCHEMA.to_string());
            return Ok(());
        }
        if self.server.engine.catalog().database(db).is_none() {
            return Err(error::unknown_database(db));
        }
        self.current_db = Some(db.to_string());
        Ok(())
    }

    pub fn status(&self) -> SessionStatus {
        SessionStatus {
            in_transaction: self.trx.is_some() && self.explicit_trx,
            autocommit: self.vars.autocommit(),
            read_only_transaction: self.trx.is_some() && self.trx_read_only,
        }
    }

    pub fn warning_count(&self) -> u16 {
        self.warning_count.min(u16::MAX as usize) as u16
    }

    pub fn reset(&mut self) {
        self.rollback_quietly();
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

    pub fn close(&mut self) {
        self.rollback_quietly();
    }

    fn rollback_quietly(&mut self) {
        if let Some(t) = self.trx.take() {
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

    /// SAVEPOINT, ROLLBACK TO SAVEPOINT, RELEASE SAVEPOINT, with InnoDB's semantics: rolling
    /// back to a savepoint undoes the changes made since (the engine keeps the row locks) and
    /// drops the savepoints set after it; releasing one drops it and every later one. Savepoints
    /// outside a transaction (autocommit on, no BEGIN) vanish at once, as in MariaDB.
    fn savepoint_statement(&mut self, stmt: &Stmt) -> Result<(), SqlError> {
        match stmt {
            Stmt::Savepoint(name) => {
                // With autocommit off every statement belongs to a transaction, so a
                // SAVEPOINT before the first one is kept for the transaction the next
                // statement opens (MariaDB keeps it too, without reporting a transaction yet).
                let in_transaction = (self.trx.is_some() && self.explicit_trx) || !self.vars.autocommit();
                if in_transaction {
                    let sp = match self.trx.as_mut() {
                        Some(t) if t.is_started() => SessionSavepoint::At(t.savepoint()),
                        _ => SessionSavepoint::BeforeEngine,
                    };
                    self.savepoints.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                    self.savepoints.push((name.clone(), sp));
                }
                Ok(())
            }
            Stmt::RollbackToSavepoint(name) | Stmt::ReleaseSavepoint(name) => {
                let Some(pos) = self.savepoints.iter().position(|(n, _)| n.eq_ignore_ascii_case(name)) else {
                    return Err(error::no_savepoint(name));
                };
                if matches!(stmt, Stmt::ReleaseSavepoint(_)) {
                    self.savepoints.truncate(pos);
                    return Ok(());
                }
                // Later savepoints are released; this one stays.
                self.savepoints.truncate(pos + 1);
                let sp = self.savepoints[pos].1.clone();
                let Some(t) = self.trx.as_mut() else { return Ok(()) };
                let rolled_back = match &sp {
                    SessionSavepoint::At(sp) => t.rollback_to_savepoint(sp),
                    SessionSavepoint::BeforeEngine => {
                        let opts = t.options();
                        let whole = self.trx.take().expect("checked above").rollback();
                        self.trx = Some(self.server.engine.begin(&self.slot, opts));
                        whole
                    }
                };
                if let Err(e) = rolled_back {
                    // The engine allows nothing but a whole rollback after a failed partial one.
                    self.rollback_quietly();
                    return Err(e.into());
                }
                Ok(())
            }
            _ => Err(error::internal("not a savepoint statement")),
        }
    }

    fn set_warnings(&mut self, warnings: Vec<Warning>, count: usize) {
        self.warnings = warnings;
        self.warning_count = count;
    }

    /// After an error, SHOW WARNINGS lists the error (MariaDB's diagnostics area).
    fn record_error(&mut self, e: &SqlError) {
        self.warnings = vec![Warning { level: WarnLevel::Error, code: e.code, message: e.message.clone() }];
        self.warning_count = 1;
    }

    /// Mirrors what the statement left behind into the session-only variables
    /// (@@warning_count, @@error_count, @@in_transaction).
    fn publish_statement_state(&mut self) {
        let errors = self.warnings.iter().filter(|w| w.level == WarnLevel::Error).count() as u64;
        self.vars.set_diagnostics_counts(self.warning_count as u64, errors);
        self.vars.set_in_transaction(self.trx.is_some() && self.explicit_trx);
    }

    fn bind_env<'a>(&'a self, catalog: &'a Catalog, db: Option<&'a str>) -> BindEnv<'a> {
        let mode = self.vars.sql_mode();
        BindEnv {
            catalog,
            current_db: db,
            vars: Some((&self.vars, &self.server.globals)),
            user_vars: Some(&self.user_vars),
            pipes_as_concat: mode.pipes_as_concat,
            only_full_group_by: mode.only_full_group_by,
        }
    }

    /// Binds and plans a statement (queries and DML); other statements keep their parsed form.
    pub(crate) fn compile(
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
    pub(crate) fn compile_with_param_types(
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
        let compiled = match &stmt {
            Stmt::Ast(s) => match &**s {
                ast::Statement::Query(q) => Compiled::Select(Arc::new(b.bind_query(q)?)),
                ast::Statement::Insert(ins) => Compiled::Insert(Arc::new(dml::bind_insert(&mut b, ins)?)),
                ast::Statement::Update(u) => Compiled::Update(Arc::new(dml::bind_update(&mut b, u)?)),
                ast::Statement::Delete(d) => Compiled::Delete(Arc::new(dml::bind_delete(&mut b, d)?)),
                _ => Compiled::Other(Arc::new(stmt.clone())),
            },
            _ => Compiled::Other(Arc::new(stmt.clone())),
        };
        Ok(CompiledStmt {
            param_count: b.param_count,
            catalog_version: catalog.version,
            uses_tables: b.uses_tables
                || matches!(compiled, Compiled::Insert(_) | Compiled::Update(_) | Compiled::Delete(_)),
            uses_info_schema: b.uses_info_schema,
            result_types_follow_params: b.params_in_select_list,
            compiled,
        })
    }

    pub async fn execute_text(&mut self, sql: &str, sink: &mut dyn ResultSink) -> Result<(), SqlError> {
        let scanned = lexer::scan(sql);
        if scanned.statements.is_empty() {
            let e = SqlError::new(1065, "42000", "Query was empty");
            self.record_error(&e);
            self.publish_statement_state();
            return Err(e);
        }
        let n = scanned.statements.len();
        if n > 1 && !self.multi_statements {
            // MariaDB parses the whole text as one statement and fails at the second one,
            // before running anything.
            let second = scanned.statements[1].clone();
            let start = second.start + parse::skip_space_and_comments(&scanned.text.as_bytes()[second.clone()]);
            let near = sql.get(start..second.end).unwrap_or(&scanned.text[start..second.end]);
            let line = scanned.text[..start].matches('\n').count() + 1;
            let e = error::syntax(near.trim_end(), line);
            self.counters.bump(Counter::Questions);
            self.record_error(&e);
            self.publish_statement_state();
            return Err(e);
        }
        for (i, range) in scanned.statements.iter().enumerate() {
            let text = &scanned.text[range.clone()];
            let original = sql.get(range.clone()).unwrap_or(text);
            let r = self.run_text_statement(text, original, sink, i + 1 < n).await;
            if let Err(e) = &r {
                self.record_error(e);
            }
            self.publish_statement_state();
            r?;
        }
        Ok(())
    }

    async fn run_text_statement(
        &mut self,
        text: &str,
        original: &str,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        self.counters.bump(Counter::Questions);
        self.interrupt.clear();
        // SHOW / DESCRIBE go to the SHOW parser first: sqlparser reads several of their forms
        // lossily (LIKE patterns, LIMIT, dotted names), and mysqldump depends on them.
        if parse::starts_like_show(text) {
            if let Some(rs) = self.show_fallback(text) {
                self.counters.bump(Counter::ComShow);
                return self.send_result_set(rs?, sink, more, show::is_diagnostics_text(text));
            }
        }
        if let Some(p) = autoparam::parameterize(original) {
            if let Some(r) = self.run_parameterized(&p, sink, more).await {
                return r;
            }
        }
        let stmt = parse::parse_statement(text).map_err(|SyntaxError(e)| e)?;
        // `?` is a placeholder only in prepared statements.
        if let Some(at) = placeholder_offset(text) {
            return Err(error::syntax(text[at..].trim_end(), text[..at].matches('\n').count() + 1));
        }
        let db = self.current_db.clone();
        let mut parsed = Some(stmt);
        for _ in 0..MAX_REBINDS {
            let stmt = match parsed.take() {
                Some(s) => s,
                None => parse::parse_statement(text).map_err(|SyntaxError(e)| e)?,
            };
            // One catalog snapshot for binding and execution of the statement.
            let catalog = self.server.engine.catalog();
            let compiled = self.compile(&catalog, stmt, text, original, db.as_deref())?;
            if self.run_compiled(&compiled, Some(catalog), text, &[], sink, more).await? == Ran::Done {
                return Ok(());
            }
        }
        Err(error::table_definition_changed())
    }

    /// Runs a text statement through the plan of its auto-parameterized form (compiled on
    /// first sight). None when that form is not usable; the caller then parses the text.
    ///
    /// A cache hit takes no catalog snapshot: the plan is valid while the catalog version it
    /// was bound at is current (`Engine::catalog_version` writes no shared memory, while
    /// taking a snapshot bumps a shared reference count).
    async fn run_parameterized(
        &mut self,
        p: &autoparam::Parameterized,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Option<Result<(), SqlError>> {
        for _ in 0..MAX_REBINDS {
            match self.run_parameterized_once(p, sink, more).await? {
                Ok(Ran::Stale) => continue,
                r => return Some(r.map(|_| ())),
            }
        }
        Some(Err(error::table_definition_changed()))
    }

    async fn run_parameterized_once(
        &mut self,
        p: &autoparam::Parameterized,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Option<Result<Ran, SqlError>> {
        let version = self.server.engine.catalog_version();
        let mode = self.vars.sql_mode();
        let binding = text_cache::BindingRef {
            db: self.current_db.as_deref(),
            pipes_as_concat: mode.pipes_as_concat,
            only_full_group_by: mode.only_full_group_by,
        };
        let (compiled, catalog) = match self.text_cache.lookup(&p.skeleton, &binding, version) {
            text_cache::Lookup::Hit(c) => (c, None),
            text_cache::Lookup::Uncacheable => return None,
            text_cache::Lookup::Miss => {
                let binding = binding.to_owned();
                let catalog = self.server.engine.catalog();
                let compiled = match parse::parse_statement(&p.skeleton) {
                    Ok(stmt @ Stmt::Ast(_)) => {
                        self.compile(&catalog, stmt, &p.skeleton, &p.skeleton, binding.db.as_deref()).ok()
                    }
                    _ => None,
                }
                .filter(|c| c.is_plan() && c.param_count == p.params.len());
                match compiled {
                    Some(c) => {
                        let c = Arc::new(c);
                        self.text_cache.insert(&p.skeleton, binding, text_cache::Entry::Plan(c.clone()));
                        (c, Some(catalog))
                    }
                    None => {
                        // Errors are reported by the normal path, with the client's text.
                        self.text_cache.insert(&p.skeleton, binding, text_cache::Entry::Uncacheable);
                        return None;
                    }
                }
            }
        };
        Some(self.run_compiled(&compiled, catalog, &p.skeleton, &p.params, sink, more).await)
    }

    fn show_fallback(&mut self, text: &str) -> Option<Result<show::ResultSet, SqlError>> {
        let catalog = self.server.engine.catalog();
        let status = self.counters.snapshot();
        let env = stmt_env!(self, Some(catalog), &status);
        let ctx = env.show_context();
        show::execute_show_fallback(text, &ctx)
    }

    /// Sends a materialized result. Diagnostics statements (SHOW WARNINGS) keep the warnings.
    fn send_result_set(
        &mut self,
        rs: show::ResultSet,
        sink: &mut dyn ResultSink,
        more: bool,
        keep_warnings: bool,
    ) -> Result<(), SqlError> {
        sink.columns(&rs.columns);
        for r in &rs.rows {
            sink.row(r);
        }
        if !keep_warnings {
            self.set_warnings(Vec::new(), 0);
        }
        self.found_rows = rs.rows.len() as u64;
        self.row_count = -1;
        sink.end_rows(self.warning_count(), more);
        Ok(())
    }

    /// Runs a compiled statement. `catalog` is the snapshot it was bound against, if the
    /// caller took one (otherwise one is taken only if the statement reads information_schema).
    pub(crate) async fn run_compiled(
        &mut self,
        c: &CompiledStmt,
        catalog: Option<Arc<Catalog>>,
        text: &str,
        params: &[Value],
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<Ran, SqlError> {
        match &c.compiled {
            Compiled::Select(plan) => {
                self.counters.bump(Counter::ComSelect);
                self.run_select(c, catalog, plan, params, sink, more).await
            }
            Compiled::Insert(_) | Compiled::Update(_) | Compiled::Delete(_) => {
                self.run_dml(c, catalog, params, sink, more).await
            }
            Compiled::Other(stmt) => self.run_other(stmt, text, params, sink, more).await.map(|_| Ran::Done),
        }
    }

    // ---- SELECT ----

    async fn run_select(
        &mut self,
        c: &CompiledStmt,
        catalog: Option<Arc<Catalog>>,
        plan: &Arc<QueryPlan>,
        params: &[Value],
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<Ran, SqlError> {
        let guard = match self.stmt_begin(c).await? {
            Begun::Running(guard) => guard,
            Begun::Stale => return Ok(Ran::Stale),
        };
        let status = if c.uses_info_schema { self.counters.snapshot() } else { Vec::new() };
        let last_insert_id = self.vars.last_insert_id();
        let (result, warnings, count, rng, last_id) = {
            let env = stmt_env!(self, catalog, &status);
            let mut cx = ExecCtx::new(&env, self.trx.as_mut(), params, &mut self.user_vars, self.rng, last_insert_id);
            let result = select_body(plan, &mut cx, sink).await;
            let (w, n) = cx.take_warnings();
            (result, w, n, cx.rng_state(), cx.current_last_insert_id())
        };
        self.rng = rng;
        self.vars.set_last_insert_id(last_id);
        self.stmt_end(guard, result.as_ref().err()).await?;
        let (_, found) = result?;
        self.found_rows = found;
        self.row_count = -1;
        self.set_warnings(warnings, count);
        sink.end_rows(self.warning_count(), more);
        Ok(Ran::Done)
    }

    // ---- INSERT / UPDATE / DELETE ----

    async fn run_dml(
        &mut self,
        c: &CompiledStmt,
        catalog: Option<Arc<Catalog>>,
        params: &[Value],
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<Ran, SqlError> {
        self.counters.bump(match &c.compiled {
            Compiled::Insert(p) if p.mode == dml::InsertMode::Replace => Counter::ComReplace,
            Compiled::Insert(p) if matches!(p.source, dml::InsertSource::Query(_)) => Counter::ComInsertSelect,
            Compiled::Insert(_) => Counter::ComInsert,
            Compiled::Update(_) => Counter::ComUpdate,
            _ => Counter::ComDelete,
        });
        let guard = match self.stmt_begin(c).await? {
            Begun::Running(guard) => guard,
            Begun::Stale => return Ok(Ran::Stale),
        };
        let status = if c.uses_info_schema { self.counters.snapshot() } else { Vec::new() };
        let read_only = self.trx_read_only;
        let last_insert_id = self.vars.last_insert_id();
        // SET insert_id = n is used by the next statement that inserts, and only by it.
        let insert_id_hint = if matches!(c.compiled, Compiled::Insert(_)) { self.vars.take_insert_id() } else { None };
        let (result, warnings, count, rng, last_id) = {
            let env = stmt_env!(self, catalog, &status);
            let mut cx = ExecCtx::new(&env, self.trx.as_mut(), params, &mut self.user_vars, self.rng, last_insert_id);
            cx.insert_id_hint = insert_id_hint;
            let result = if read_only {
                Err(error::read_only_transaction())
            } else {
                match &c.compiled {
                    Compiled::Insert(p) => dml::execute_insert(p, &mut cx).await,
                    Compiled::Update(p) => dml::execute_update(p, &mut cx).await,
                    Compiled::Delete(p) => dml::execute_delete(p, &mut cx).await,
                    _ => Err(error::internal("run_dml on a non-DML statement")),
                }
            };
            let (w, n) = cx.take_warnings();
            (result, w, n, cx.rng_state(), cx.current_last_insert_id())
        };
        self.rng = rng;
        self.vars.set_last_insert_id(last_id);
        self.stmt_end(guard, result.as_ref().err()).await?;
        let out = result?;
        if let Some(id) = out.first_generated {
            self.vars.set_last_insert_id(id);
        }
        self.row_count = out.affected as i64;
        self.set_warnings(warnings, count);
        let info = OkInfo {
            affected_rows: out.affected,
            last_insert_id: out.insert_id,
            warnings: self.warning_count(),
            info: out.info.map(|k| k.format(count)).unwrap_or_default(),
        };
        sink.ok(&info, more);
        Ok(Ran::Done)
    }

    /// Completes a statement that returns OK with its warnings and row count.
    fn send_ok(
        &mut self,
        sink: &mut dyn ResultSink,
        more: bool,
        affected: u64,
        info: String,
        warnings: (Vec<Warning>, usize),
    ) {
        self.set_warnings(warnings.0, warnings.1);
        self.row_count = affected as i64;
        sink.ok(&OkInfo { affected_rows: affected, last_insert_id: 0, warnings: self.warning_count(), info }, more);
    }

    // ---- everything else ----

    async fn run_other(
        &mut self,
        stmt: &Stmt,
        text: &str,
        params: &[Value],
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        match stmt {
            Stmt::Ast(s) => self.run_ast(s, text, params, sink, more).await,
            Stmt::Begin { read_only, consistent_snapshot } => {
                self.counters.bump(Counter::ComBegin);
                self.begin(*read_only).await?;
                if *consistent_snapshot {
                    self.open_read_view_now()?;
                }
                self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
                Ok(())
            }
            Stmt::Commit { chain, release } => {
                self.counters.bump(Counter::ComCommit);
                let read_only = self.trx_read_only;
                self.commit().await?;
                if *chain {
                    self.begin(Some(read_only)).await?;
                }
                if *release {
                    return Err(error::not_supported("COMMIT RELEASE"));
                }
                self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
                Ok(())
            }
            Stmt::Rollback { chain, release } => {
                self.counters.bump(Counter::ComRollback);
                let read_only = self.trx_read_only;
                self.rollback_quietly();
                if *chain {
                    self.begin(Some(read_only)).await?;
                }
                if *release {
                    return Err(error::not_supported("ROLLBACK RELEASE"));
                }
                self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
                Ok(())
            }
            Stmt::Savepoint(_) | Stmt::RollbackToSavepoint(_) | Stmt::ReleaseSavepoint(_) => {
                self.counters.bump(match stmt {
                    Stmt::Savepoint(_) => Counter::ComSavepoint,
                    Stmt::RollbackToSavepoint(_) => Counter::ComRollbackToSavepoint,
                    _ => Counter::ComReleaseSavepoint,
                });
                self.savepoint_statement(stmt)?;
                self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
                Ok(())
            }
            Stmt::SetTransaction { scope, isolation, read_only } => {
                self.counters.bump(Counter::ComSetOption);
                self.set_transaction(*scope, *isolation, *read_only)?;
                self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
                Ok(())
            }
            Stmt::SetCharset | Stmt::TableLocks => {
                self.counters.bump(Counter::ComSetOption);
                self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
                Ok(())
            }
            Stmt::Do(select) => {
                self.counters.bump(Counter::ComDo);
                let db = self.current_db.clone();
                let mut ran = Ran::Stale;
                for _ in 0..MAX_REBINDS {
                    let parsed = parse::parse_statement(select).map_err(|e| e.0)?;
                    let catalog = self.server.engine.catalog();
                    let compiled = self.compile(&catalog, parsed, select, select, db.as_deref())?;
                    let Compiled::Select(plan) = &compiled.compiled else {
                        return Err(error::internal("DO did not bind to a query"));
                    };
                    let plan = plan.clone();
                    ran = self.run_select(&compiled, Some(catalog), &plan, params, &mut DiscardSink, false).await?;
                    if ran == Ran::Done {
                        break;
                    }
                }
                if ran == Ran::Stale {
                    return Err(error::table_definition_changed());
                }
                let w = (std::mem::take(&mut self.warnings), self.warning_count);
                self.send_ok(sink, more, 0, String::new(), w);
                Ok(())
            }
            Stmt::CreateDatabase { name, if_not_exists, charset, collation } => {
                self.counters.bump(Counter::ComCreateDb);
                self.commit().await?;
                let engine = self.server.engine.clone();
                let catalog = engine.catalog();
                let last_insert_id = self.vars.last_insert_id();
                let (affected, warnings) = {
                    let env = stmt_env!(self, Some(catalog), &[]);
                    let mut cx = ExecCtx::new(&env, None, &[], &mut self.user_vars, self.rng, last_insert_id);
                    let r = crate::ddl::create_database(
                        &engine,
                        &mut cx,
                        name,
                        *if_not_exists,
                        charset.clone(),
                        collation.clone(),
                    )
                    .await;
                    (r, cx.take_warnings())
                };
                self.send_ok(sink, more, affected?, String::new(), warnings);
                Ok(())
            }
            Stmt::TableKeys { db, table, enable } => {
                self.counters.bump(Counter::ComAlterTable);
                // ALTER TABLE commits the open transaction, as in MariaDB.
                self.commit().await?;
                let Some(db) = db.clone().or_else(|| self.current_db.clone()) else {
                    return Err(error::no_database());
                };
                if self.server.engine.catalog().table(&db, table).is_none() {
                    return Err(error::no_such_table(&db, table));
                }
                // MariaDB notes that InnoDB cannot defer index maintenance (on ENABLE only).
                let note = if *enable {
                    let message =
                        format!("Storage engine InnoDB of the table `{db}`.`{table}` doesn't have this option");
                    (vec![Warning { level: WarnLevel::Note, code: 1031, message }], 1)
                } else {
                    (Vec::new(), 0)
                };
                self.send_ok(sink, more, 0, String::new(), note);
                Ok(())
            }
            Stmt::Prepare { name, source } => self.sql_prepare(name, source, sink, more),
            Stmt::Execute { name, using } => self.sql_execute(name, using, sink, more).await,
            Stmt::Deallocate { name } => self.sql_deallocate(name, sink, more),
            Stmt::AdminTable { op, tables } => {
                self.counters.bump(match op {
                    parse::AdminOp::Analyze => Counter::ComAnalyze,
                    parse::AdminOp::Optimize => Counter::ComOptimize,
                    _ => Counter::ComCheck,
                });
                // These statements commit the open transaction first, as in MariaDB.
                self.commit().await?;
                let engine = self.server.engine.clone();
                let rows = crate::ddl::admin_rows(&engine, *op, tables, self.current_db.as_deref()).await?;
                let text_ty = value::SqlType::Text { max_chars: 255, lob: false };
                let columns = ["Table", "Op", "Msg_type", "Msg_text"]
                    .iter()
                    .map(|n| crate::bind::computed_meta(n, &text_ty, true))
                    .collect();
                self.send_result_set(show::ResultSet { columns, rows }, sink, more, false)
            }
        }
    }

    async fn run_ast(
        &mut self,
        s: &ast::Statement,
        text: &str,
        params: &[Value],
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        use ast::Statement as S;
        match s {
            S::Set(set) => {
                self.counters.bump(Counter::ComSetOption);
                self.run_set(set, text, params, sink, more).await
            }
            S::Use(u) => {
                self.counters.bump(Counter::ComChangeDb);
                let name = match u {
                    ast::Use::Object(n) | ast::Use::Database(n) | ast::Use::Schema(n) => {
                        crate::bind::object_name_parts(n)?.1
                    }
                    _ => return Err(error::not_supported(&s.to_string())),
                };
                self.use_database(&name)?;
                self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
                Ok(())
            }
            S::Kill { modifier, id } => {
                self.counters.bump(Counter::ComKill);
                let query_only = matches!(modifier, Some(ast::KillType::Query));
                if !self.server.hooks.kill(*id, query_only) {
                    return Err(error::unknown_thread(*id));
                }
                self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
                Ok(())
            }
            S::Flush { .. } => {
                self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
                Ok(())
            }
            S::ShowFunctions { .. }
            | S::ShowVariable { .. }
            | S::ShowStatus { .. }
            | S::ShowVariables { .. }
            | S::ShowCreate { .. }
            | S::ShowColumns { .. }
            | S::ShowCatalogs { .. }
            | S::ShowDatabases { .. }
            | S::ShowProcessList { .. }
            | S::ShowSchemas { .. }
            | S::ShowCharset(_)
            | S::ShowObjects(_)
            | S::ShowTables { .. }
            | S::ShowViews { .. }
            | S::ShowCollation { .. }
            | S::ExplainTable { .. } => {
                self.counters.bump(Counter::ComShow);
                let keep = is_diagnostics(s);
                let catalog = self.server.engine.catalog();
                let status = self.counters.snapshot();
                let rs = {
                    let env = stmt_env!(self, Some(catalog), &status);
                    let ctx = env.show_context();
                    show::execute_show(s, &ctx)?
                };
                self.send_result_set(rs, sink, more, keep)
            }
            S::CreateTable(_)
            | S::CreateIndex(_)
            | S::Drop { .. }
            | S::AlterTable(_)
            | S::Truncate(_)
            | S::RenameTable(_) => match s {
                S::CreateTable(ct) if ct.query.is_some() => self.create_table_as_select(ct, text, sink, more).await,
                _ => self.run_ddl(s, text, sink, more).await,
            },
            S::Explain { statement, analyze: false, .. } => {
                let catalog = self.server.engine.catalog();
                let db = self.current_db.clone();
                let compiled = self.compile(&catalog, Stmt::Ast(statement.clone()), text, text, db.as_deref())?;
                let Compiled::Select(plan) = &compiled.compiled else {
                    return Err(error::not_supported("EXPLAIN of statements other than SELECT"));
                };
                let rows = crate::explain::explain(plan, &self.server.engine);
                self.send_result_set(show::ResultSet { columns: crate::explain::columns(), rows }, sink, more, false)
            }
            S::Explain { .. } => Err(error::not_supported("EXPLAIN ANALYZE")),
            S::Query(_) | S::Insert(_) | S::Update(_) | S::Delete(_) => Err(error::internal("query reached run_ast")),
            _ => {
                let head = text.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
                Err(error::not_supported(&head))
            }
        }
    }
}

/// Byte offset of the first `?` placeholder outside strings and comments.
fn placeholder_offset(text: &str) -> Option<usize> {
    if !text.contains('?') {
        return None;
    }
    lexer::tokenize(text)?.into_iter().find(|(t, _)| *t == lexer::Tok::Sym('?')).map(|(_, off)| off)
}

/// SHOW WARNINGS / SHOW ERRORS / SHOW COUNT(*) WARNINGS read the previous statement's
/// diagnostics and must not replace them.
fn is_diagnostics(s: &ast::Statement) -> bool {
    match s {
        ast::Statement::ShowVariable { variable } => variable.first().is_some_and(|v| {
            let w = v.value.to_ascii_uppercase();
            w == "WARNINGS" || w == "ERRORS" || w.starts_with("COUNT")
        }),
        _ => false,
    }
}

/// Runs a SELECT: locking reads first lock every row they would return, then read again.
async fn select_body(
    plan: &QueryPlan,
    cx: &mut ExecCtx<'_>,
    sink: &mut dyn ResultSink,
) -> Result<(u64, u64), SqlError> {
    if let Some(mode) = plan.lock {
        if cx.has_trx() {
            cx.read_mode = ReadMode::Latest;
            cx.lock_collect = Some(Vec::new());
            let collected = crate::exec::collect_rows(plan, cx).await.map(|_| ());
            let mut keys = cx.lock_collect.take().unwrap_or_default();
            collected?;
            keys.sort_by(|a, b| (a.0.id, &a.1).cmp(&(b.0.id, &b.1)));
            keys.dedup_by(|a, b| a.0.id == b.0.id && a.1 == b.1);
            for (table, key) in keys {
                cx.check_interrupt()?;
                cx.lock_row(&table, &key, mode).await?;
                if cx.tick()? {
                    cx.pause().await?;
                }
            }
            cx.check_interrupt()?;
        }
    }
    sink.columns(&plan.metas);
    crate::exec::stream_rows(plan, cx, sink).await
}
