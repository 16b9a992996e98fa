//! Prepared statements (COM_STMT_* and SQL PREPARE / EXECUTE / DEALLOCATE PREPARE).
//!
//! A statement is parsed, bound and planned once; each execution binds only parameter values
//! into the kept plan. The plan is rebuilt from the parsed statement only when the catalog
//! version moved (some DDL ran), against the database that was current at PREPARE.

use std::sync::Arc;

use selkie_storage::Catalog;

use super::compiled::{Compiled, CompiledStmt, Prepared, Ran, MAX_REBINDS};
use super::counters::Counter;
use super::state::Session;
use crate::error;
use crate::error::SqlError;
use crate::parse::{self, lexer, PrepareSource, Stmt};
use crate::types::{charset, column_flags, ColumnDefinition, FieldType, PreparedInfo, ResultSink, Value};
use crate::value::SqlType;

/// Most prepared statements one session may hold (MariaDB's max_prepared_stmt_count is
/// server-wide; this bounds one session's memory).
pub const MAX_PREPARED_PER_SESSION: usize = 16_382;

/// The plan to run, its statement text, and the catalog snapshot it was just bound against
/// (None when a kept plan is still valid: no snapshot is taken then).
type CurrentPlan = (Arc<CompiledStmt>, Arc<str>, Option<Arc<Catalog>>);

/// Metadata of one `?` parameter, as MariaDB describes it at PREPARE.
fn param_meta() -> ColumnDefinition {
    ColumnDefinition {
        schema: String::new(),
        table: String::new(),
        org_table: String::new(),
        name: "?".to_string(),
        org_name: String::new(),
        charset: charset::BINARY,
        length: 0,
        field_type: FieldType::Null,
        flags: column_flags::BINARY,
        decimals: 0,
    }
}

/// The type a parameter value gives `?` when result types follow parameters. Integers are
/// BIGINT whatever their size, as for a LONGLONG parameter in MariaDB (the wire type the
/// client bound is not known here; BIGINT holds every integer it could have sent).
fn param_type(v: &Value) -> SqlType {
    match v {
        Value::Int(_) => SqlType::Int { bits: 64, unsigned: false },
        Value::UInt(_) => SqlType::Int { bits: 64, unsigned: true },
        other => SqlType::of_value(other),
    }
}

impl Session {
    pub(super) fn prepare_text(&mut self, sql: &str) -> Result<(u32, &CompiledStmt), SqlError> {
        let scanned = lexer::scan_in(sql, self.syntax());
        let range = match scanned.statements.as_slice() {
            [] => return Err(SqlError::new(1065, "42000", "Query was empty")),
            [one] => one.clone(),
            [_, second, ..] => {
                let near = scanned.text[second.clone()].trim();
                return Err(error::syntax(near, 1));
            }
        };
        let text: Arc<str> = Arc::from(&scanned.text[range.clone()]);
        let original: Arc<str> = Arc::from(sql.get(range).unwrap_or(&text));
        let stmt = parse::parse_statement_in(&text, self.syntax()).map_err(|e| e.0)?;
        if matches!(
            stmt,
            Stmt::Prepare { .. } | Stmt::Execute { .. } | Stmt::ExecuteImmediate { .. } | Stmt::Deallocate { .. }
        ) {
            return Err(error::not_supported_in_ps());
        }
        if self.prepared.len() >= MAX_PREPARED_PER_SESSION {
            return Err(SqlError::new(
                1461,
                "42000",
                format!("Can't create more than max_prepared_stmt_count statements (current value: {MAX_PREPARED_PER_SESSION})"),
            ));
        }
        let db = self.current_db.clone();
        let catalog = self.store.catalog();
        let compiled = Arc::new(self.compile(&catalog, stmt.clone(), &text, &original, db.as_deref())?);
        let id = self.next_statement_id;
        self.next_statement_id = self.next_statement_id.wrapping_add(1).max(1);
        self.prepared.insert(id, Prepared { text, original, stmt, db, compiled, typed: None });
        let p = self
            .prepared
            .get(&id)
            .map(|p| &*p.compiled)
            .ok_or_else(|| error::internal("prepared statement vanished"))?;
        Ok((id, p))
    }

    pub fn prepare(&mut self, sql: &str) -> Result<PreparedInfo, SqlError> {
        self.counters.bump(Counter::ComStmtPrepare);
        match self.prepare_text(sql) {
            Ok((statement_id, c)) => {
                let params = (0..c.param_count).map(|_| param_meta()).collect();
                let columns = match &c.compiled {
                    Compiled::Select(plan) => plan.metas.clone(),
                    other => super::dispatch::returning_metas(other).to_vec(),
                };
                self.set_warnings(Vec::new(), 0);
                Ok(PreparedInfo { statement_id, params, columns })
            }
            Err(e) => {
                self.record_error(&e);
                Err(e)
            }
        }
    }

    pub fn prepared_param_count(&self, statement_id: u32) -> Option<usize> {
        self.prepared.get(&statement_id).map(|p| p.compiled.param_count)
    }

    pub fn close_prepared(&mut self, statement_id: u32) {
        self.counters.bump(Counter::ComStmtClose);
        self.prepared.remove(&statement_id);
        self.prepared_names.retain(|_, id| *id != statement_id);
    }

    pub fn reset_prepared(&mut self, statement_id: u32) -> Result<(), SqlError> {
        self.counters.bump(Counter::ComStmtReset);
        if self.prepared.contains_key(&statement_id) {
            Ok(())
        } else {
            Err(error::unknown_prepared(&statement_id.to_string(), "mysqld_stmt_reset"))
        }
    }

    /// The plan to run for a prepared statement with `params`: the kept one, or a fresh one
    /// when DDL changed the catalog since it was bound (the catalog version is compared
    /// without taking a snapshot), or, when its plan follows its parameters' types, the plan
    /// bound with these parameters' types.
    fn current_plan(&mut self, statement_id: u32, params: &[Value], command: &str) -> Result<CurrentPlan, SqlError> {
        let version = self.store.catalog_version();
        let Some(p) = self.prepared.get(&statement_id) else {
            return Err(error::unknown_prepared(&statement_id.to_string(), command));
        };
        let mut catalog = None;
        if p.compiled.is_plan() && version != p.compiled.catalog_version {
            let (stmt, text, original, db) = (p.stmt.clone(), p.text.clone(), p.original.clone(), p.db.clone());
            let snapshot = self.store.catalog();
            let fresh = Arc::new(self.compile(&snapshot, stmt, &text, &original, db.as_deref())?);
            if let Some(p) = self.prepared.get_mut(&statement_id) {
                p.compiled = fresh;
                p.typed = None;
            }
            catalog = Some(snapshot);
        }
        let Some(p) = self.prepared.get(&statement_id) else {
            return Err(error::unknown_prepared(&statement_id.to_string(), command));
        };
        if !p.compiled.plan_follows_param_types || params.len() != p.compiled.param_count {
            return Ok((p.compiled.clone(), p.text.clone(), catalog));
        }
        let types: Vec<SqlType> = params.iter().map(param_type).collect();
        if let Some((t, c)) = &p.typed {
            if *t == types && c.catalog_version == p.compiled.catalog_version {
                return Ok((c.clone(), p.text.clone(), catalog));
            }
        }
        let (stmt, text, original, db) = (p.stmt.clone(), p.text.clone(), p.original.clone(), p.db.clone());
        let snapshot = match catalog {
            Some(c) => c,
            None => self.store.catalog(),
        };
        let typed =
            Arc::new(self.compile_with_param_types(&snapshot, stmt, &text, &original, db.as_deref(), Some(&types))?);
        if let Some(p) = self.prepared.get_mut(&statement_id) {
            p.typed = Some((types, typed.clone()));
        }
        Ok((typed, text, Some(snapshot)))
    }

    pub async fn execute_prepared(
        &mut self,
        statement_id: u32,
        params: &[Value],
        sink: &mut dyn ResultSink,
    ) -> Result<(), SqlError> {
        self.counters.bump(Counter::Questions);
        self.counters.bump(Counter::ComStmtExecute);
        self.clear_interrupt_for_statement();
        self.start_statement_time();
        self.command_began = false;
        let r = async {
            // A plan a DDL made stale before the statement started is bound again.
            for _ in 0..MAX_REBINDS {
                let (compiled, text, catalog) = self.current_plan(statement_id, params, "mysqld_stmt_execute")?;
                if params.len() != compiled.param_count {
                    return Err(error::wrong_arguments("mysqld_stmt_execute"));
                }
                if self.run_compiled(&compiled, catalog, &text, params, sink, false).await? == Ran::Done {
                    return Ok(());
                }
            }
            Err(error::table_definition_changed())
        }
        .await;
        let r = self.end_statement_time(r);
        if let Err(e) = &r {
            self.record_error(e);
        }
        self.publish_statement_state();
        r
    }

    /// PREPARE name FROM 'text' | @var | expr.
    pub(super) async fn sql_prepare(
        &mut self,
        name: &str,
        source: &PrepareSource,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        let text = self.prepare_source_text(source).await?;
        let key = name.to_ascii_lowercase();
        if let Some(old) = self.prepared_names.remove(&key) {
            self.prepared.remove(&old);
        }
        self.counters.bump(Counter::ComStmtPrepare);
        let (id, _) = self.prepare_text(&text)?;
        self.prepared_names.insert(key, id);
        self.send_ok(sink, more, 0, "Statement prepared".to_string(), (Vec::new(), 0));
        Ok(())
    }

    /// EXECUTE name [USING expr, ...].
    pub(super) async fn sql_execute(
        &mut self,
        name: &str,
        using: Option<&str>,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        self.counters.bump(Counter::ComStmtExecute);
        let Some(&id) = self.prepared_names.get(&name.to_ascii_lowercase()) else {
            return Err(error::unknown_prepared(name, "EXECUTE"));
        };
        let params = self.using_values(using).await?;
        self.execute_sql_prepared(id, &params, sink, more).await
    }

    /// Runs a statement prepared by PREPARE or EXECUTE IMMEDIATE with `params`.
    pub(super) async fn execute_sql_prepared(
        &mut self,
        id: u32,
        params: &[Value],
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        for _ in 0..MAX_REBINDS {
            let (compiled, text, catalog) = self.current_plan(id, params, "EXECUTE")?;
            if params.len() != compiled.param_count {
                return Err(error::wrong_arguments("EXECUTE"));
            }
            // Boxed: EXECUTE runs a statement, which may itself be any statement.
            if Box::pin(self.run_compiled(&compiled, catalog, &text, params, sink, more)).await? == Ran::Done {
                return Ok(());
            }
        }
        Err(error::table_definition_changed())
    }

    pub(super) fn sql_deallocate(&mut self, name: &str, sink: &mut dyn ResultSink, more: bool) -> Result<(), SqlError> {
        let Some(id) = self.prepared_names.remove(&name.to_ascii_lowercase()) else {
            return Err(error::unknown_prepared(name, "DEALLOCATE PREPARE"));
        };
        self.prepared.remove(&id);
        self.counters.bump(Counter::ComStmtClose);
        self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
        Ok(())
    }
}
