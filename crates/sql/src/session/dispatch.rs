//! Statement dispatch: a text or a compiled statement in, results out to the sink.
//!
//! The point-select path, top to bottom: `execute_text` → `run_parameterized` (the
//! auto-parameterized text's plan from `text_cache`, bound by `state::compile` on first sight)
//! → `run_compiled` → `run_select`, which starts the statement in `txn` (guard, transaction),
//! builds the statement's `ExecCtx` from the session and its `Store`, and hands the plan to
//! `exec::run_query`; the executor reads the rows through the transaction and streams them to
//! the sink.

use std::sync::Arc;

use selkie_storage::Catalog;
use sqlparser::ast;

use super::compiled::{Compiled, CompiledStmt, Ran, MAX_REBINDS};
use super::counters::Counter;
use super::state::{stmt_env, Session};
use super::text_cache;
use super::txn::Begun;
use crate::dml;
use crate::error::{self, SqlError};
use crate::exec::{self, ctx::ExecCtx};
use crate::parse::{self, autoparam, lexer, Stmt, SyntaxError};
use crate::plan::QueryPlan;
use crate::show;
use crate::types::{ColumnDefinition, OkInfo, ResultSet, ResultSink, Value, WarnLevel, Warning};
use crate::value;

/// A sink that drops everything (DO, and the locking pass of SELECT ... FOR UPDATE).
struct DiscardSink;

impl ResultSink for DiscardSink {
    fn columns(&mut self, _: &[ColumnDefinition]) {}
    fn row(&mut self, _: &[Value]) {}
    fn end_rows(&mut self, _: u16, _: bool) {}
    fn ok(&mut self, _: &OkInfo, _: bool) {}
}

/// Passes on at most `left` rows: sql_select_limit, which bounds a SELECT's result as a LIMIT
/// would without being part of its plan (so plans stay shared across values of it).
struct SelectLimitSink<'s> {
    inner: &'s mut dyn ResultSink,
    left: u64,
}

impl ResultSink for SelectLimitSink<'_> {
    fn columns(&mut self, columns: &[ColumnDefinition]) {
        self.inner.columns(columns)
    }
    fn row(&mut self, values: &[Value]) {
        if self.left > 0 {
            self.left -= 1;
            self.inner.row(values);
        }
    }
    fn end_rows(&mut self, warnings: u16, more: bool) {
        self.inner.end_rows(warnings, more)
    }
    fn ok(&mut self, info: &OkInfo, more: bool) {
        self.inner.ok(info, more)
    }
}

impl Session {
    /// COM_QUERY: one or more `;`-separated statements. Stops at the first error (results of
    /// earlier statements have already gone to `sink`).
    pub async fn execute_text(&mut self, sql: &str, sink: &mut dyn ResultSink) -> Result<(), SqlError> {
        let r = self.execute_text_statements(sql, sink).await;
        self.command_began = false;
        r
    }

    async fn execute_text_statements(&mut self, sql: &str, sink: &mut dyn ResultSink) -> Result<(), SqlError> {
        let scanned = lexer::scan_in(sql, self.syntax());
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
            let r = self.end_statement_time(r);
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
        self.clear_interrupt_for_statement();
        self.start_statement_time();
        // SHOW / DESCRIBE go to the SHOW parser first: sqlparser reads several of their forms
        // lossily (LIKE patterns, LIMIT, dotted names), and mysqldump depends on them.
        if parse::starts_like_show(text) {
            if let Some(rs) = self.show_fallback(text) {
                self.counters.bump(Counter::ComShow);
                let warnings =
                    if show::is_diagnostics_text(text) { ResultWarnings::Previous } else { ResultWarnings::None };
                return self.send_result_set(rs?, sink, more, warnings);
            }
        }
        let syntax = self.syntax();
        // The auto-parameterizer reads text as the default sql_mode does.
        if syntax == parse::Syntax::default() {
            if let Some(p) = autoparam::parameterize(original) {
                if let Some(r) = self.run_parameterized(&p, sink, more).await {
                    return r;
                }
            }
        }
        let stmt = parse::parse_statement_in(text, syntax).map_err(|SyntaxError(e)| e)?;
        // `?` is a placeholder only in prepared statements.
        if let Some(at) = placeholder_offset(text, syntax) {
            return Err(error::syntax(text[at..].trim_end(), text[..at].matches('\n').count() + 1));
        }
        self.run_parsed(stmt, text, original, sink, more).await
    }

    /// Binds and runs a parsed text statement (bound again when DDL made its plan stale).
    pub(super) async fn run_parsed(
        &mut self,
        stmt: Stmt,
        text: &str,
        original: &str,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        let syntax = self.syntax();
        let db = self.current_db.clone();
        let mut parsed = Some(stmt);
        for _ in 0..MAX_REBINDS {
            let stmt = match parsed.take() {
                Some(s) => s,
                None => parse::parse_statement_in(text, syntax).map_err(|SyntaxError(e)| e)?,
            };
            // One catalog snapshot for binding and execution of the statement.
            let catalog = self.store.catalog();
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
        let version = self.store.catalog_version();
        let mode = self.vars.sql_mode();
        let binding = text_cache::BindingRef {
            db: self.current_db.as_deref(),
            pipes_as_concat: mode.pipes_as_concat,
            only_full_group_by: mode.only_full_group_by,
            collation_connection: self.vars.collation_connection().id(),
            div_precision_increment: self.vars.div_precision_increment(),
        };
        let (compiled, catalog) = match self.text_cache.lookup(&p.skeleton, &binding, &p.params, version) {
            text_cache::Lookup::Hit(c) => (c, None),
            text_cache::Lookup::Uncacheable => return None,
            text_cache::Lookup::Miss => {
                let binding = binding.to_owned();
                let catalog = self.store.catalog();
                // Bound with the constants' types, as their literals would be (the plan is kept
                // for constants of the same kinds only).
                let types: Vec<value::SqlType> = p.params.iter().map(value::SqlType::of_value).collect();
                let compiled = match parse::parse_statement(&p.skeleton) {
                    Ok(stmt @ Stmt::Ast(_)) => self
                        .compile_with_param_types(
                            &catalog,
                            stmt,
                            &p.skeleton,
                            &p.skeleton,
                            binding.db.as_deref(),
                            Some(&types),
                        )
                        .ok(),
                    _ => None,
                }
                .filter(|c| c.is_plan() && c.param_count == p.params.len());
                match compiled {
                    Some(c) => {
                        let c = Arc::new(c);
                        self.text_cache.insert(&p.skeleton, binding, &p.params, text_cache::Entry::Plan(c.clone()));
                        (c, Some(catalog))
                    }
                    None => {
                        // Errors are reported by the normal path, with the client's text.
                        self.text_cache.insert(&p.skeleton, binding, &p.params, text_cache::Entry::Uncacheable);
                        return None;
                    }
                }
            }
        };
        Some(self.run_compiled(&compiled, catalog, &p.skeleton, &p.params, sink, more).await)
    }

    fn show_fallback(&mut self, text: &str) -> Option<Result<ResultSet, SqlError>> {
        let catalog = self.store.catalog();
        let status = self.counters.snapshot();
        let env = stmt_env!(self, self.store.engine(), Some(catalog), &status);
        let ctx = env.show_context();
        show::execute_show_fallback(text, &ctx)
    }

    /// Sends a materialized result, with what `warnings` says of the session's warnings.
    pub(super) fn send_result_set(
        &mut self,
        rs: ResultSet,
        sink: &mut dyn ResultSink,
        more: bool,
        warnings: ResultWarnings,
    ) -> Result<(), SqlError> {
        sink.columns(&rs.columns);
        for r in &rs.rows {
            sink.row(r);
        }
        if warnings == ResultWarnings::None {
            self.set_warnings(Vec::new(), 0);
        }
        self.found_rows = rs.rows.len() as u64;
        self.row_count = -1;
        // The EOF counts the statement's own warnings: none for SHOW WARNINGS, whose rows are
        // the previous statement's (MariaDB sends 0 and @@warning_count stays).
        let count = if warnings == ResultWarnings::Previous { 0 } else { self.warning_count() };
        sink.end_rows(count, more);
        Ok(())
    }

    /// Runs a compiled statement. `catalog` is the snapshot it was bound against, if the
    /// caller took one (otherwise one is taken only if the statement reads information_schema).
    pub(super) async fn run_compiled(
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
            Compiled::Insert(_)
            | Compiled::Update(_)
            | Compiled::Delete(_)
            | Compiled::MultiUpdate(_)
            | Compiled::MultiDelete(_)
            | Compiled::Load(_) => self.run_dml(c, catalog, params, sink, more).await,
            Compiled::Other(stmt) => self.run_other(stmt, text, params, sink, more).await.map(|_| Ran::Done),
        }
    }

    // ---- SELECT ----

    pub(super) async fn run_select(
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
        let select_limit = if c.select_limit_applies { self.vars.sql_select_limit() } else { u64::MAX };
        let mut limited;
        let sink: &mut dyn ResultSink = if select_limit == u64::MAX {
            sink
        } else {
            limited = SelectLimitSink { inner: sink, left: select_limit };
            &mut limited
        };
        let (result, warnings, count, rng, last_id) = {
            let (engine, trx) = self.store.split();
            let env = stmt_env!(self, engine, catalog, &status);
            let mut cx = ExecCtx::new(&env, trx, params, &mut self.user_vars, self.rng, last_insert_id);
            // SERIALIZABLE inside a transaction: plain SELECTs lock in share mode, as InnoDB's.
            cx.reads_lock_shared = self.explicit_trx
                && cx.trx().is_ok_and(|t| t.isolation() == selkie_storage::IsolationLevel::Serializable);
            let result = exec::run_query(plan, &mut cx, sink).await;
            let (w, n) = cx.take_warnings();
            (result, w, n, cx.rng_state(), cx.current_last_insert_id())
        };
        self.rng = rng;
        self.vars.set_last_insert_id(last_id);
        self.stmt_end(guard, result.as_ref().err()).await?;
        let (_, found) = result?;
        self.found_rows = found.min(select_limit);
        self.row_count = -1;
        // MariaDB clears the diagnostics only for a statement that uses tables or raises
        // warnings of its own: after `SELECT 1/0`, `SELECT @@warning_count` and `SELECT 1`
        // leave SHOW WARNINGS as it was (their EOF counts their own warnings, 0).
        if c.uses_tables || c.uses_info_schema || count > 0 {
            self.set_warnings(warnings, count);
            sink.end_rows(self.warning_count(), more);
        } else {
            sink.end_rows(0, more);
        }
        Ok(Ran::Done)
    }

    // ---- INSERT / UPDATE / DELETE ----

    pub(super) async fn run_dml(
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
            Compiled::Insert(_) | Compiled::Load(_) => Counter::ComInsert,
            // Com_update_multi / Com_delete_multi are not kept apart.
            Compiled::Update(_) | Compiled::MultiUpdate(_) => Counter::ComUpdate,
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
            let (engine, trx) = self.store.split();
            let env = stmt_env!(self, engine, catalog, &status);
            let mut cx = ExecCtx::new(&env, trx, params, &mut self.user_vars, self.rng, last_insert_id);
            cx.insert_id_hint = insert_id_hint;
            let result = if read_only {
                Err(error::read_only_transaction())
            } else {
                match &c.compiled {
                    Compiled::Insert(p) => dml::execute_insert(p, &mut cx).await,
                    Compiled::Update(p) => dml::execute_update(p, &mut cx).await,
                    Compiled::Delete(p) => dml::execute_delete(p, &mut cx).await,
                    Compiled::MultiUpdate(p) => crate::dml_multi::execute_update(p, &mut cx).await,
                    Compiled::MultiDelete(p) => crate::dml_multi::execute_delete(p, &mut cx).await,
                    Compiled::Load(p) => crate::load::execute(p, &mut cx).await,
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
        if let Some(rows) = &out.returned {
            // RETURNING: a result set instead of the OK; ROW_COUNT() is then -1, as after a
            // SELECT.
            sink.columns(returning_metas(&c.compiled));
            for r in rows {
                sink.row(r);
            }
            self.row_count = -1;
            self.set_warnings(warnings, count);
            sink.end_rows(self.warning_count(), more);
            return Ok(Ran::Done);
        }
        let affected = if self.client_found_rows { out.found } else { out.affected };
        self.row_count = affected as i64;
        self.set_warnings(warnings, count);
        let info = OkInfo {
            affected_rows: affected,
            last_insert_id: out.insert_id,
            warnings: self.warning_count(),
            info: out.info.map(|k| k.format(count)).unwrap_or_default(),
        };
        sink.ok(&info, more);
        Ok(Ran::Done)
    }

    /// Completes a statement that returns OK with its warnings and row count.
    pub(super) fn send_ok(
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
            Stmt::DmlIgnore(_) => Err(error::internal("UPDATE / DELETE IGNORE reached run_other")),
            Stmt::SelectInto(si) => Box::pin(self.select_into(si, params, sink, more)).await,
            Stmt::LoadData(l) => Box::pin(self.load_data(l, sink, more)).await,
            Stmt::AlterTable(at) => Box::pin(self.run_alter(at, text, sink, more)).await,
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
            Stmt::LockTables(tables) => {
                self.counters.bump(Counter::ComSetOption);
                self.lock_tables(tables).await?;
                self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
                Ok(())
            }
            Stmt::UnlockTables => {
                self.counters.bump(Counter::ComSetOption);
                if self.table_locks.is_some() {
                    self.commit().await?;
                    self.unlock_tables();
                }
                self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
                Ok(())
            }
            Stmt::SetCharset => {
                self.counters.bump(Counter::ComSetOption);
                self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
                Ok(())
            }
            Stmt::Do(select) => {
                self.counters.bump(Counter::ComDo);
                let db = self.current_db.clone();
                let mut ran = Ran::Stale;
                for _ in 0..MAX_REBINDS {
                    let parsed = parse::parse_statement_in(select, self.syntax()).map_err(|e| e.0)?;
                    let catalog = self.store.catalog();
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
                let catalog = self.store.catalog();
                let last_insert_id = self.vars.last_insert_id();
                let (affected, warnings) = {
                    let env = stmt_env!(self, self.store.engine(), Some(catalog), &[]);
                    let mut cx = ExecCtx::new(&env, None, &[], &mut self.user_vars, self.rng, last_insert_id);
                    let r = crate::ddl::create_database(
                        self.store.engine(),
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
            Stmt::CreateSequence { or_replace, if_not_exists, db, name, options } => {
                Box::pin(self.create_sequence((*or_replace, *if_not_exists), db, name, options, sink, more)).await
            }
            Stmt::AlterSequence { if_exists, db, name, options } => {
                Box::pin(self.alter_sequence(*if_exists, db, name, options, sink, more)).await
            }
            Stmt::DropSequence { if_exists, names } => {
                Box::pin(self.drop_sequences(*if_exists, names, sink, more)).await
            }
            Stmt::Checksum { tables, quick } => self.checksum_tables(tables, *quick, sink, more).await,
            Stmt::TruncateWait { stmt, wait } => {
                Box::pin(self.run_ddl_statement(stmt, text, Some(*wait), sink, more)).await
            }
            Stmt::TableKeys { db, table, enable } => {
                self.counters.bump(Counter::ComAlterTable);
                // ALTER TABLE commits the open transaction, as in MariaDB.
                self.commit().await?;
                let Some(db) = db.clone().or_else(|| self.current_db.clone()) else {
                    return Err(error::no_database());
                };
                if self.store.catalog().table(&db, table).is_none() {
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
            Stmt::Prepare { name, source } => self.sql_prepare(name, source, sink, more).await,
            Stmt::Execute { name, using } => self.sql_execute(name, using.as_deref(), sink, more).await,
            Stmt::ExecuteImmediate { source, using } => {
                self.execute_immediate(source, using.as_deref(), sink, more).await
            }
            Stmt::SetStatement(s) => self.set_statement(s, text, sink, more).await,
            Stmt::SetList(sets) => self.set_list(sets, params, sink, more).await,
            Stmt::Deallocate { name } => self.sql_deallocate(name, sink, more),
            Stmt::AdminTable { op, tables } => {
                self.counters.bump(match op {
                    parse::AdminOp::Analyze => Counter::ComAnalyze,
                    parse::AdminOp::Optimize => Counter::ComOptimize,
                    _ => Counter::ComCheck,
                });
                // These statements commit the open transaction first, as in MariaDB.
                self.commit().await?;
                let rows = crate::ddl::admin_rows(self.store.engine(), *op, tables, self.current_db.as_deref()).await?;
                let text_ty = value::SqlType::text(255, false);
                let columns = ["Table", "Op", "Msg_type", "Msg_text"]
                    .iter()
                    .map(|n| crate::bind::computed_meta(n, &text_ty, true))
                    .collect();
                self.send_result_set(ResultSet { columns, rows }, sink, more, ResultWarnings::None)
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
                let warnings = if is_diagnostics(s) { ResultWarnings::Previous } else { ResultWarnings::None };
                let catalog = self.store.catalog();
                let status = self.counters.snapshot();
                let rs = {
                    let env = stmt_env!(self, self.store.engine(), Some(catalog), &status);
                    let ctx = env.show_context();
                    show::execute_show(s, &ctx)?
                };
                self.send_result_set(rs, sink, more, warnings)
            }
            S::CreateTable(_)
            | S::CreateIndex(_)
            | S::Drop { .. }
            | S::AlterTable(_)
            | S::Truncate(_)
            | S::RenameTable(_) => Box::pin(self.run_ddl_statement(s, text, None, sink, more)).await,
            S::Explain { statement, analyze: false, .. } => {
                let catalog = self.store.catalog();
                let db = self.current_db.clone();
                let compiled = self.compile(&catalog, Stmt::Ast(statement.clone()), text, text, db.as_deref())?;
                let Compiled::Select(plan) = &compiled.compiled else {
                    return Err(error::not_supported("EXPLAIN of statements other than SELECT"));
                };
                let rows = crate::explain::explain(plan, self.store.engine());
                self.send_result_set(
                    ResultSet { columns: crate::explain::columns(), rows },
                    sink,
                    more,
                    ResultWarnings::None,
                )
            }
            S::Explain { .. } => Err(error::not_supported("EXPLAIN ANALYZE")),
            S::Query(_) | S::Insert(_) | S::Update(_) | S::Delete(_) => Err(error::internal("query reached run_ast")),
            _ => {
                let head = text.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
                Err(error::not_supported(&head))
            }
        }
    }

    /// CREATE/DROP/ALTER/TRUNCATE/RENAME TABLE and CREATE INDEX, temporary tables included.
    /// Always awaited boxed: DDL futures hold whole statements (a sqlparser `Statement` is
    /// kilobytes) and nest the catalog and rebuild futures; inline they would make every
    /// statement's future, the point select's included, as large as the largest DDL's, and the
    /// connection copies that future into a box for each statement it runs.
    async fn run_ddl_statement(
        &mut self,
        s: &ast::Statement,
        text: &str,
        wait: Option<std::time::Duration>,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        use ast::Statement as S;
        match s {
            S::CreateTable(ct) if ct.temporary && !super::temporary::creates_temporary(ct) => {
                Box::pin(self.create_temporary_table(ct, text, sink, more)).await
            }
            S::Drop { object_type: ast::ObjectType::Table, names, temporary, .. }
                if self.drop_touches_temporary(names, *temporary) =>
            {
                Box::pin(self.drop_with_temporary(s, text, sink, more)).await
            }
            S::CreateTable(ct) if ct.query.is_some() => {
                Box::pin(self.create_table_as_select(ct, text, sink, more)).await
            }
            _ => match self.ddl_on_temporary(s)? {
                Some(rewritten) => self.run_ddl(&rewritten, text, wait, sink, more).await,
                None => self.run_ddl(s, text, wait, sink, more).await,
            },
        }
    }
}

/// Byte offset of the first `?` placeholder outside strings and comments.
fn placeholder_offset(text: &str, syntax: parse::Syntax) -> Option<usize> {
    if !text.contains('?') {
        return None;
    }
    lexer::tokenize_in(text, syntax)?.into_iter().find(|(t, _)| *t == lexer::Tok::Sym('?')).map(|(_, off)| off)
}

/// What a statement with a materialized result does with the session's warnings.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ResultWarnings {
    /// It raised none: they are cleared.
    None,
    /// SHOW WARNINGS and the like: they are the previous statement's, left as they are.
    Previous,
    /// The statement set its own (CHECKSUM TABLE's notes on missing tables).
    Own,
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

/// The result columns of an INSERT / REPLACE / DELETE ... RETURNING (empty for other statements).
pub(super) fn returning_metas(compiled: &Compiled) -> &[crate::types::ColumnDefinition] {
    let returning = match compiled {
        Compiled::Insert(p) => p.returning.as_ref(),
        Compiled::Delete(p) => p.returning.as_ref(),
        _ => None,
    };
    returning.map_or(&[], |r| &r.metas)
}
