//! The engine's configuration and the state its parts share: the page store, the transaction
//! system, the lock table, the catalog, purge, and the session slots.
//!
//! Kept out of engine.rs so that the transaction layer (`trx::txn`, `table`) can reach the
//! engine's state through a session's `SlotLease` without importing the facade that sits above
//! it: engine.rs uses this module, never the other way round.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;

use crate::buffer::PageStore;
use crate::catalog::{IdCounters, Registry};
use crate::error::{Result, StorageError};
use crate::io::Io;
use crate::lock::LockTable;
use crate::pending_trees::PendingTrees;
use crate::row_log::RowLogs;
use crate::table_write_block::TableWriteBlocks;
use crate::testpoint::CrashPoints;
use crate::trx::purge::PurgeQueues;
use crate::trx::{ReadView, TrxSys};
use crate::types::{Catalog, FaultInjection, FlushMode, IndexId, TableId};

/// How an engine is opened (`Engine::open`).
#[derive(Clone, Debug)]
pub struct EngineConfig {
    pub datadir: PathBuf,
    /// Buffer pool size in bytes (default 512 MiB).
    pub buffer_pool_bytes: u64,
    pub flush_mode: FlushMode,
    /// Default lock wait timeout for new transactions (default 50 s).
    pub lock_wait_timeout: Duration,
    /// Upper bound of concurrently registered sessions (sizes the active-transaction slots).
    pub max_sessions: usize,
    pub fault: FaultInjection,
    /// Redo log capacity, like innodb_log_file_size (default 1 GiB): row writes wait at 7/8 of
    /// it for the checkpoint (docs §4.5).
    pub log_capacity: u64,
    /// Like innodb_force_recovery: when recovery would refuse a log it cannot trust, start
    /// read-only instead, to salvage what the files hold (docs §4.8). Off by default.
    pub force_recovery: bool,
}

impl EngineConfig {
    pub fn new(datadir: impl Into<PathBuf>) -> EngineConfig {
        EngineConfig {
            datadir: datadir.into(),
            buffer_pool_bytes: 512 << 20,
            flush_mode: FlushMode::Durable,
            lock_wait_timeout: Duration::from_secs(50),
            max_sessions: 4096 + 64,
            fault: FaultInjection::default(),
            log_capacity: crate::wal::DEFAULT_LOG_CAPACITY,
            force_recovery: false,
        }
    }
}

/// State shared by the engine, its transactions and its background work.
pub(crate) struct Shared {
    pub config: EngineConfig,
    pub io: Io,
    pub store: Arc<PageStore>,
    pub trx: Arc<TrxSys>,
    pub locks: LockTable,
    pub catalog: ArcSwap<Catalog>,
    pub registry: Arc<Registry>,
    /// Indexes whose tree a DDL of this process created (CREATE TABLE, TRUNCATE, CREATE INDEX):
    /// the DDL's transaction id. A consistent read whose view does not see that transaction
    /// cannot use the tree (it holds no versions from before the DDL): TableDefinitionChanged.
    /// Trees from before the last restart are not listed: every view sees their creators.
    pub index_created_by: ArcSwap<HashMap<IndexId, u64>>,
    /// The largest id in `index_created_by` (0: none). DDL transactions commit one at a time,
    /// so a view that sees this one sees them all: the common case is one load, no map lookup.
    pub newest_index_ddl: AtomicU64,
    pub purge_queues: Arc<PurgeQueues>,
    /// Trees of DDL not yet committed and dropped trees not yet freed (crash-safe freeing).
    pub pending_trees: Arc<PendingTrees>,
    pub crash_points: Arc<CrashPoints>,
    pub barrier: Box<[Arc<tokio::sync::RwLock<()>>]>,
    /// Tables a DDL is rebuilding: statements that would write them wait (architecture §4.9).
    pub write_blocks: Arc<TableWriteBlocks>,
    /// Tables an online rebuild copies while their writers go on: the keys they change.
    pub row_logs: Arc<RowLogs>,
    /// Test hook (`hold_index_builds_for_test`): index builds pause while it is set.
    pub index_builds_held: AtomicBool,
    pub ddl: tokio::sync::Mutex<DdlState>,
    pub closed: AtomicBool,
}

impl Shared {
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    pub fn check_open(&self) -> Result<()> {
        if self.is_closed() {
            return Err(StorageError::ShuttingDown);
        }
        Ok(())
    }

    pub fn no_table(table: TableId) -> StorageError {
        StorageError::NoSuchTable { db: String::new(), name: format!("#{table}") }
    }

    pub fn next_row_id(&self, table: TableId) -> Result<u64> {
        self.registry.with(table, |rt| rt.next_row_id()).ok_or_else(|| Shared::no_table(table))
    }

    /// Whether consistent reads with `view` may use the tree of `index` (see `index_created_by`).
    pub fn index_usable_by(&self, index: IndexId, view: &ReadView) -> bool {
        let newest = self.newest_index_ddl.load(Ordering::SeqCst);
        if newest == 0 || view.sees(newest) {
            return true;
        }
        self.index_created_by.load().get(&index).is_none_or(|&ddl| view.sees(ddl))
    }

    /// Records that the DDL transaction `ddl_trx` created the trees of `indexes`. Runs after the
    /// DDL committed and before the catalog that names the trees is published. Entries every
    /// view sees are dropped.
    pub fn note_indexes_created(&self, ddl_trx: u64, indexes: impl IntoIterator<Item = IndexId>) {
        let visible_to_all = self.trx.purge_limit();
        let mut m = HashMap::clone(&self.index_created_by.load());
        m.retain(|_, &mut ddl| ddl >= visible_to_all);
        for ix in indexes {
            m.insert(ix, ddl_trx);
        }
        self.index_created_by.store(Arc::new(m));
        self.newest_index_ddl.fetch_max(ddl_trx, Ordering::SeqCst);
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // The last reference is gone without `shutdown` (or `crash_for_test`): shut down here,
        // on this thread, so the page cleaner (whose checkpoint hook briefly holds the page
        // store) is stopped before the store is released.
        if !self.closed.swap(true, Ordering::AcqRel) {
            if let Err(e) = self.store.shutdown().and_then(|_| self.store.wal().shutdown()) {
                tracing::error!("implicit shutdown failed: {e}");
            }
        }
    }
}

/// What DDL statements share; they take it one at a time.
pub(crate) struct DdlState {
    pub counters: IdCounters,
    /// The internal slot DDL transactions run in (DDL is serialized by the mutex around this).
    pub slot: usize,
}

/// Ownership of one slot of the active-transaction array, and the session's handle on the
/// engine. The slot is freed when the session and its last transaction are both gone.
pub(crate) struct SlotLease {
    pub sh: Arc<Shared>,
    pub index: usize,
    /// False for the engine's internal slots, which live as long as the engine.
    pub release: bool,
}

impl Drop for SlotLease {
    fn drop(&mut self) {
        if !self.release {
            return;
        }
        if self.sh.trx.slot_is_idle(self.index) {
            self.sh.trx.release_slot(self.index);
        } else {
            // Only a transaction whose rollback failed leaves its slot active: keeping the slot
            // keeps its changes invisible until the restart rolls them back.
            tracing::error!(slot = self.index, "session slot kept: its transaction could not be rolled back");
        }
    }
}
