//! Selkie's storage engine: durable, larger than memory, MVCC transactions with row locks.
//!
//! Layers, bottom up (each module has one job; see docs/architecture.md §4):
//! - `io`: files, with power-failure simulation for crash tests.
//! - `wal`: the redo log (reservation by atomic add, group commit, segments, control file).
//! - `buffer`: tablespace, buffer pool with optimistic latches, page cleaner, checkpoints.
//! - `mtr`: mini-transactions, the atomic unit of page change and logging.
//! - `btree`: B+trees over memcomparable keys.
//! - `keycodec`, `rowcodec`: byte formats of keys and rows.
//! - `lock`: row locks, waits, deadlock detection.
//! - `trx`: transaction ids, read views, undo, purge, MVCC record versions.
//! - `catalog`: persisted schema and its immutable in-memory snapshot.
//! - `pending_trees`: trees of dropped or unfinished DDL, freed crash-safely by purge.
//! - `table_write_block`: tables whose writers wait while a DDL rebuilds them.
//! - `engine`: the API the SQL layer calls.

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
pub mod rowcodec;
mod shared;
pub mod table;
mod table_write_block;
pub mod testpoint;
pub mod trx;
pub mod types;
pub mod wal;

pub use engine::*;
pub use error::{Result, StorageError};
pub use types::*;
