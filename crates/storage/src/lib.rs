//! Selkie's storage engine: durable, larger than memory, MVCC transactions with row locks.
//!
//! Floor plan, bottom up. A module imports only from floors below its own, so the import graph
//! has no cycles (`scripts/module_cycles.py`); what two floors share lives in a floor below both.
//! Each module has one job; see docs/architecture.md §4.
//! - `error`, `types`: leaves. `types` holds the value and schema types and the vocabulary of the
//!   engine's API (FlushMode, FaultInjection, Catalog, KeyRange, ReadMode, ScanRow, TrxOptions,
//!   ...), so every layer can speak it without importing `engine`. `blocking` is a leaf helper;
//!   `wideint` (the 256/512-bit integers of DECIMAL) is a leaf below `types`.
//! - `io`: files, with power-failure simulation for crash tests.
//! - `testpoint`: crash points and hold points for tests.
//! - `wal`: the redo log (reservation by atomic add, group commit, segments, control file).
//!   Inside, bottom up: `config` (Lsn, limits), `entry`, `halt`, `waiters`, `ring`, `segment`,
//!   `control`, `scan`; `shared` (appenders' and writer's state); `wait`, `writer`; `log` (`Wal`);
//!   `admit`. `wal/mod.rs` only re-exports.
//! - `page`: on-disk page formats: the common header and checksums, B+tree nodes (`page::node`),
//!   undo pages (`page::undo`). Below the pool, whose redo and bootstrap write them.
//! - `buffer`: tablespace, buffer pool with optimistic latches, page cleaner, checkpoints.
//!   Inside, bottom up: leaves (`latch`, `frame`, `page_table`, `stats`, `redo`, `config`,
//!   `signal`, `space`, `doublewrite`, `pool`); `shared` (`Shared`, made of them); the jobs that
//!   each add an `impl Shared` (`residency`, `flush`, `prealloc`, `recovery`, `cleaner`,
//!   `evictor`); `buffer/mod.rs` with `PageStore` on top.
//! - `mtr`: mini-transactions, the atomic unit of page change and logging.
//! - `btree`: B+trees over memcomparable keys. Inside, bottom up: `types` (the `BTree` handle and
//!   the `modify` vocabulary), `overflow`, `read`, `cursor`, `merge`, `write`; `btree/mod.rs` is
//!   the facade of `BTree`'s methods.
//! - `keycodec`, `rowcodec`: byte formats of keys and rows.
//! - `lock`: row locks, waits, deadlock detection.
//! - `trx`: `trx::read_view` (snapshots, a leaf), `trx::rw_slots`, `trx::logrec` (logical log
//!   records), `trx::undo` (undo logs), `trx::record` (MVCC record versions), then `trx` itself
//!   (transaction ids, session slots, the history lists).
//! - `catalog`: persisted schema and its immutable in-memory snapshot.
//! - `pending_trees`: trees of dropped or unfinished DDL, freed crash-safely by purge.
//! - `trx::purge`: removal of what committed transactions left behind.
//! - `table_write_block`: tables whose writers wait while a DDL rebuilds them; `row_log`: the
//!   changed keys an online rebuild applies at its end.
//! - `shared`: `EngineConfig` and the state an engine's parts share, reached by a session's
//!   `SlotLease`.
//! - `trx::txn`: one transaction: its locks, undo, writes, commit and rollback.
//! - `table`: rows of a table across its indexes (reads, inserts, updates, deletes, scans).
//! - `recovery`: the transactional half of crash recovery (undo logs, losers, pending trees).
//! - `engine`: the facade the SQL layer calls; nothing in the crate imports it.
//!
//! The crate root re-exports the facade and the vocabulary (`engine::*`, `types::*`), so the SQL
//! layer names `selkie_storage::Engine`, `selkie_storage::KeyRange` without knowing the floors.

mod blocking;
pub mod btree;
pub mod buffer;
pub mod catalog;
pub mod engine;
pub mod error;
#[cfg(test)]
mod fuzz_tests;
pub mod io;
pub mod keycodec;
pub mod lock;
pub mod mtr;
pub mod page;
pub mod pending_trees;
pub mod recovery;
mod row_log;
pub mod rowcodec;
mod shared;
pub mod table;
mod table_write_block;
pub mod testpoint;
pub mod trx;
pub mod types;
pub mod wal;
pub mod wideint;

pub use engine::*;
pub use error::{Result, StorageError};
pub use types::*;
