//! Statements that run other statements: EXECUTE IMMEDIATE, SET STATEMENT ... FOR, and the
//! expressions SQL-level PREPARE and EXECUTE ... USING evaluate (named PREPARE/EXECUTE
//! themselves are in `prepared`).

use sqlparser::ast;

use super::compiled::Ran;
use super::set::session_targets;
use super::state::Session;
use crate::error::{self, SqlError};
use crate::parse::{self, PrepareSource, SetStatement, Stmt};
use crate::types::{ColumnDefinition, OkInfo, ResultSink, Value};

/// Variables SET STATEMENT refuses (1971): MariaDB's `NO_SET_STATEMENT` ones, which change
/// the connection or the transaction rather than how one statement runs.
const NOT_FOR_ONE_STATEMENT: &[&str] = &[
    "autocommit",
    "character_set_client",
    "character_set_connection",
    "character_set_filesystem",
    "collation_connection",
    "gtid_seq_no",
    "skip_replication",
    "sql_log_off",
    "tx_isolation",
    "transaction_isolation",
];

/// Collects the rows of an internal query.
#[derive(Default)]
struct Rows(Vec<Vec<Value>>);

impl ResultSink for Rows {
    fn columns(&mut self, _: &[ColumnDefinition]) {}
    fn row(&mut self, values: &[Value]) {
        self.0.push(values.to_vec());
    }
    fn end_rows(&mut self, _: u16, _: bool) {}
    fn ok(&mut self, _: &OkInfo, _: bool) {}
}

/// Drops what a statement sends (the SET of SET STATEMENT).
struct Discard;

impl ResultSink for Discard {
    fn columns(&mut self, _: &[ColumnDefinition]) {}
    fn row(&mut self, _: &[Value]) {}
    fn end_rows(&mut self, _: u16, _: bool) {}
    fn ok(&mut self, _: &OkInfo, _: bool) {}
}

impl Session {
    /// The values of a select list given as text (`5, 'x', @v`), evaluated as `SELECT list`.
    async fn select_list_values(&mut self, list: &str) -> Result<Vec<Value>, SqlError> {
        let text = format!("SELECT {list}");
        let stmt = parse::parse_statement_in(&text, self.syntax()).map_err(|e| e.0)?;
        if !matches!(stmt, Stmt::Ast(_)) {
            return Err(error::syntax(list, 1));
        }
        let catalog = self.store.catalog();
        let db = self.current_db.clone();
        let mut compiled = self.compile(&catalog, stmt, &text, &text, db.as_deref())?;
        compiled.select_limit_applies = false;
        let mut rows = Rows::default();
        // Boxed: this runs inside the statement that asked for the values.
        let ran = Box::pin(self.run_compiled(&compiled, Some(catalog), &text, &[], &mut rows, false)).await?;
        if ran == Ran::Stale {
            return Err(error::table_definition_changed());
        }
        rows.0.into_iter().next().ok_or_else(|| error::internal("a select list without a row"))
    }

    /// The parameters of `USING list` (none without USING).
    pub(super) async fn using_values(&mut self, using: Option<&str>) -> Result<Vec<Value>, SqlError> {
        match using {
            None => Ok(Vec::new()),
            Some(list) if parse::using_has_subquery(list) => Err(error::using_subquery()),
            Some(list) => self.select_list_values(list).await,
        }
    }

    /// The statement text PREPARE or EXECUTE IMMEDIATE prepares.
    pub(super) async fn prepare_source_text(&mut self, source: &PrepareSource) -> Result<String, SqlError> {
        let value = match source {
            PrepareSource::Text(t) => return Ok(t.clone()),
            PrepareSource::UserVar(v) => {
                self.user_vars.get(&v.to_ascii_lowercase()).map_or(Value::Null, |var| var.value.clone())
            }
            PrepareSource::Expr(e) => self.select_list_values(e).await?.into_iter().next().unwrap_or(Value::Null),
        };
        Ok(match crate::value::to_text_bytes(&value) {
            Some(b) => String::from_utf8_lossy(&b).into_owned(),
            // MariaDB prepares the text "NULL", a syntax error.
            None => "NULL".to_string(),
        })
    }

    /// EXECUTE IMMEDIATE source [USING list]: prepared, run and dropped.
    pub(super) async fn execute_immediate(
        &mut self,
        source: &PrepareSource,
        using: Option<&str>,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        let text = self.prepare_source_text(source).await?;
        let params = self.using_values(using).await?;
        let (id, _) = self.prepare_text(&text)?;
        let r = self.execute_sql_prepared(id, &params, sink, more).await;
        self.prepared.remove(&id);
        r
    }

    /// `SET NAMES x, var = value, ...`: the SETs in order, one OK.
    pub(super) async fn set_list(
        &mut self,
        sets: &[(Box<ast::Statement>, String)],
        params: &[Value],
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        self.counters.bump(super::counters::Counter::ComSetOption);
        let mut warnings = Vec::new();
        for (stmt, text) in sets {
            let ast::Statement::Set(set) = &**stmt else {
                return Err(error::internal("SET list without a SET"));
            };
            self.run_set(set, text, params, &mut Discard, false).await?;
            warnings.extend(self.warnings.iter().cloned());
        }
        let count = warnings.len();
        self.send_ok(sink, more, 0, String::new(), (warnings, count));
        Ok(())
    }

    /// SET STATEMENT var = value, ... FOR statement: the variables hold the values for the
    /// statement only; their session values are put back after it, whatever it did to them.
    pub(super) async fn set_statement(
        &mut self,
        s: &SetStatement,
        text: &str,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        let ast::Statement::Set(set) = &*s.set else {
            return Err(error::internal("SET STATEMENT without a SET"));
        };
        let names = session_targets(set, &s.set_text)?;
        if let Some(n) = names.iter().find(|n| NOT_FOR_ONE_STATEMENT.iter().any(|m| m.eq_ignore_ascii_case(n))) {
            return Err(error::no_set_statement(&n.to_ascii_lowercase()));
        }
        let saved = self.vars.save_for_statement(&names)?;
        let r = match self.run_set(set, &s.set_text, &[], &mut Discard, false).await {
            Ok(()) => {
                // max_statement_time may be among the variables: the body runs under its value.
                self.start_statement_time();
                let body = text.get(s.body_offset..).unwrap_or_default();
                Box::pin(self.run_parsed((*s.body).clone(), body, body, sink, more)).await
            }
            Err(e) => Err(e),
        };
        self.vars.restore_after_statement(saved);
        r
    }
}
