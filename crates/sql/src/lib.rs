//! Selkie's SQL layer: MySQL/MariaDB statements in, result sets out, on the storage engine,
//! with MariaDB's semantics for values, errors, variables and SHOW.
//!
//! Why session state, system variables and SHOW live here rather than in the server crate:
//! expressions read `@@variables`, `SET` evaluates expressions, and `information_schema` /
//! `SHOW` are queries over the catalog; keeping them beside the executor avoids a callback
//! interface in both directions. The server crate owns the network, the wire protocol,
//! authentication and the connection registry, and reaches back only through `ServerHooks`.
//!
//! The stages, bottom up (a module imports only from the ones above it in this list):
//!
//! - `error`: `SqlError` and MariaDB's error messages.
//! - `types`: the vocabulary shared with the server and by every stage (values, column
//!   metadata, result sinks, warnings, hooks, configuration).
//! - `user_locks`: the server-wide user-level locks (GET_LOCK) and waits that a KILL QUERY
//!   or max_statement_time interrupts (SLEEP); below `value`, whose functions use them.
//! - `charset`: character sets and collations (names, ids, weights, conversion): the
//!   `selkie-charset` crate, re-exported (the storage layer builds index keys with it too).
//! - `value`: MySQL value semantics (types, comparison, arithmetic, casts, functions).
//! - `user_variables`: `@name` variables, each a value with the type MariaDB keeps for it.
//! - `variables`: system variables, global and per session.
//! - `parse`: statement recognition and pre-processing before sqlparser; auto-parameterization.
//! - `plan`: plans and bound expressions, access paths, key ranges.
//! - `sequence`: sequences (CREATE SEQUENCE, NEXTVAL): options, caches of reserved values.
//! - `table_locks`: LOCK TABLES' server-wide locks.
//! - `server`: the server-wide state (`SqlServer`); `store`: a session's one route to the
//!   storage engine (engine handle, slot, open transaction); `temporary`: a session's
//!   temporary tables (names mapped to hidden engine tables).
//! - `show`: SHOW and information_schema.
//! - `bind`: name resolution and the rule-based planner (AST to plan).
//! - `exec`: the statement context, expression evaluation, and the operators that run a plan.
//! - `constraints`: FOREIGN KEY and CHECK definitions and their enforcement on row changes;
//!   `generated`: generated columns (definitions, and their values on row changes);
//!   `defaults`: DEFAULT (expr) column defaults (definitions, and their values on insert).
//! - `dml`, `ddl`, `explain`: INSERT/UPDATE/DELETE, schema changes, EXPLAIN; `alter`: ALTER
//!   TABLE (on top of `ddl`'s column and index definitions); `dml_multi`: multi-table UPDATE
//!   and DELETE, and `load`: LOAD DATA (both on top of `dml`'s row writes).
//! - `session`: the `Session` type: dispatch, transactions, prepared statements, plan caches.
//!
//! A point select, top to bottom: `session::dispatch` (`execute_text` → cached plan of the
//! auto-parameterized text → `run_select`) → `session::txn` (statement guard and transaction,
//! through the session's `Store`) → `exec::run_query` → `exec::open` (the plan's operators) →
//! `exec::access` (`AccessCursor`: a point read through the transaction) → rows to the
//! `ResultSink`.
//!
//! Only what the server and the tests use is public: the types below, and the modules
//! `value`, `variables`, `parse`, `show` and `session` for the items they make public.

mod alter;
mod bind;
pub mod charset;
mod constraints;
mod ddl;
mod defaults;
mod dml;
mod dml_multi;
mod error;
mod exec;
mod explain;
mod generated;
mod load;
pub mod parse;
mod plan;
mod sequence;
mod server;
pub mod session;
pub mod show;
mod store;
mod table_locks;
mod temporary;
mod types;
mod user_locks;
mod user_variables;
pub mod value;
pub mod variables;

pub use error::SqlError;
pub use server::SqlServer;
pub use session::Session;
pub use types::{
    Interrupt, InterruptCause, OkInfo, PreparedInfo, ProcessInfo, ResultSet, ResultSink, ServerHooks, SessionInfo,
    SessionStatus, SqlServerConfig, Value, WarnLevel, Warning,
};
