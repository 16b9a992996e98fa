//! A client session: statement dispatch, transactions, warnings, and the session facts
//! (LAST_INSERT_ID, FOUND_ROWS, ROW_COUNT) statements leave behind.
//!
//! Transactions: with autocommit on, a statement that reads or writes tables runs in its own
//! transaction (committed at its end, rolled back on error). BEGIN / START TRANSACTION, or
//! autocommit off, opens a transaction that spans statements until COMMIT / ROLLBACK or an
//! implicit commit (DDL, BEGIN, SET autocommit=1). A failing statement is rolled back alone
//! (`rollback_statement`); a deadlock (1213) means the engine rolled back the whole
//! transaction, so the session forgets it.
//!
//! Files, bottom up: `compiled` (what is kept of a statement), `counters`, `text_cache`,
//! `state` (the `Session` type and compiling against it), `txn` (transactions, statement
//! boundaries, savepoints), then `set`, `schema` (DDL), `sequence` (CREATE/DROP SEQUENCE),
//! `temporary` (temporary tables), `table_locks` (LOCK TABLES), `prepared`, `dynamic` (EXECUTE
//! IMMEDIATE, SET STATEMENT), `data_file` (SELECT ... INTO, LOAD DATA and its LOCAL file
//! request), and `dispatch` (statement dispatch, the entry from the server).

mod checksum;
mod compiled;
pub mod counters;
mod data_file;
mod dispatch;
mod dynamic;
mod prepared;
mod schema;
mod sequence;
mod set;
mod state;
mod table_locks;
mod temporary;
mod text_cache;
mod txn;

pub use self::state::Session;
