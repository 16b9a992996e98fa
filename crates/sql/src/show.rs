//! SHOW statements and information_schema, computed from the catalog snapshot, the variables,
//! the engine status and the server hooks.
//!
//! INTERFACE CONTRACT (frozen; owner: SQL-admin engineer).

use selkie_storage::{Catalog, Engine};

use crate::api::{ColumnMeta, ServerHooks, SqlError, Value};
use crate::value::SqlType;
use crate::variables::{GlobalVariables, SessionVariables};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarnLevel {
    Note,
    Warning,
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub level: WarnLevel,
    pub code: u16,
    pub message: String,
}

/// A fully materialized result.
#[derive(Clone, Debug, Default)]
pub struct ResultSet {
    pub columns: Vec<ColumnMeta>,
    pub rows: Vec<Vec<Value>>,
}

/// Everything SHOW and information_schema may read.
pub struct ShowContext<'a> {
    pub catalog: &'a Catalog,
    pub engine: &'a Engine,
    pub globals: &'a GlobalVariables,
    pub session: &'a SessionVariables,
    pub current_db: Option<&'a str>,
    pub hooks: &'a dyn ServerHooks,
    /// Warnings of the previous statement (SHOW WARNINGS / SHOW COUNT(*) WARNINGS).
    pub warnings: &'a [Warning],
    pub connection_id: u64,
    /// Session status counters (Com_*, Questions, ...) to merge into SHOW STATUS.
    pub session_status: &'a [(String, u64)],
}

/// Executes any SHOW statement sqlparser produced (SHOW DATABASES/TABLES/COLUMNS/CREATE TABLE/
/// INDEX/VARIABLES/STATUS/PROCESSLIST/WARNINGS/ERRORS/ENGINES/COLLATION/CHARACTER SET/ENGINE
/// ... STATUS/TABLE STATUS, with LIKE/WHERE filters and FULL/GLOBAL/SESSION forms).
pub fn execute_show(stmt: &sqlparser::ast::Statement, ctx: &ShowContext) -> Result<ResultSet, SqlError> {
    let _ = (stmt, ctx);
    todo!("sql admin")
}

/// Statements sqlparser cannot parse but MariaDB clients send (e.g. SHOW CREATE DATABASE,
/// SHOW MASTER STATUS, SHOW SLAVE STATUS, SHOW BINARY LOGS). `None` if `sql` is not one of them.
pub fn execute_show_fallback(sql: &str, ctx: &ShowContext) -> Option<Result<ResultSet, SqlError>> {
    let _ = (sql, ctx);
    todo!("sql admin")
}

/// Column layout of an information_schema table (case-insensitive name), or None.
pub fn info_schema_columns(table: &str) -> Option<Vec<(String, SqlType)>> {
    let _ = table;
    todo!("sql admin")
}

/// All rows of an information_schema table (SCHEMATA, TABLES, COLUMNS, STATISTICS, PROCESSLIST,
/// ENGINES, CHARACTER_SETS, COLLATIONS, SESSION_VARIABLES, GLOBAL_VARIABLES, SESSION_STATUS,
/// GLOBAL_STATUS, KEY_COLUMN_USAGE, ...).
pub fn info_schema_rows(table: &str, ctx: &ShowContext) -> Result<Vec<Vec<Value>>, SqlError> {
    let _ = (table, ctx);
    todo!("sql admin")
}

/// Names of information_schema tables, for SHOW TABLES FROM information_schema.
pub fn info_schema_tables() -> Vec<&'static str> {
    todo!("sql admin")
}
