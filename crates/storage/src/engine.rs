//! The engine's public API: what the SQL layer calls.
//!
//! The top of the crate's floor plan: this module uses every layer below (table, trx, catalog,
//! recovery, the page store, the log) and nothing below imports it. It is a facade: the bodies
//! delegate to those layers, and what they share is not here but in `types` (the API's
//! vocabulary: FlushMode, KeyRange, ScanRow, TrxOptions, ...) and `shared` (EngineConfig and the
//! state behind an `Engine`). The SQL layer is written against these signatures, so changing one
//! means changing the SQL layer with it.
//!
//! Concurrency model: `Engine` is shared (`Arc`). A `Transaction` belongs to one session and is
//! used by one task at a time (`Send`, not `Sync`). Methods that may wait for a row lock are
//! `async`; everything else returns without waiting on other transactions (it may do page I/O).

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;

use crate::blocking;
use crate::btree::{BTree, Change, MAX_KEY_LEN};
use crate::buffer::space::ALLOC_HEADROOM;
use crate::buffer::{CheckpointHooks, PageId, PageStore, PageStoreConfig, FORMAT_VERSION};
use crate::catalog::{self, IdCounters, Registry, TableRuntime, CATALOG_INDEX_ID, CATALOG_TREE};
use crate::error::{Result, StorageError};
use crate::io::{FaultId, Io, IoFault};
use crate::keycodec;
use crate::lock::LockTable;
use crate::mtr::Mtr;
use crate::pending_trees::PendingTrees;
use crate::recovery;
use crate::rowcodec;
use crate::table::{self, ScanState};
use crate::table_write_block::TableWriteBlock;
use crate::testpoint::{CrashPoint, CrashPoints};
use crate::trx::logrec::LogRecord;
use crate::trx::purge::{DeferredFree, PurgeQueues, PurgeThread};
use crate::trx::record::{RecHeader, HEADER_LEN, NO_ROLL_PTR, VISIBLE_TO_ALL_TRX_ID};
use crate::trx::txn::{Expect, Target, TrxSavepoint, TrxState};
use crate::trx::{FinishedLog, FinishedTrx, TrxSys};
use crate::types::*;
use crate::wal::control::ControlFile;
use crate::wal::{Lsn, Wal, WalConfig};

mod alter;

pub use crate::shared::EngineConfig;
use crate::shared::{DdlState, Shared, SlotLease};

/// Where the pages of the tablespace are (`Engine::space_report`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpaceReport {
    /// Pages in the tablespace, the header page included.
    pub total_pages: u64,
    /// Pages of live trees (catalog indexes and system trees), overflow pages included.
    pub in_trees: u64,
    /// Pages on the free list.
    pub free: u64,
    /// Pages of trees waiting to be freed (dropped, or created by DDL that did not commit).
    pub pending: u64,
    /// Pages of undo logs, and the overflow chains of old versions their records own.
    pub undo: u64,
    /// Pages nothing accounts for.
    pub leaked: u64,
    /// Pages found in two places (corruption).
    pub doubly_used: u64,
}

/// Engine-wide status for SHOW STATUS / SHOW ENGINE ... STATUS (merged from per-worker counters
/// when read).
#[derive(Clone, Debug, Default)]
pub struct EngineStatus {
    pub rows: Vec<(String, String)>,
}

pub struct Engine {
    sh: Arc<Shared>,
    purge: parking_lot::Mutex<Option<PurgeThread>>,
}

/// A session's registration with the engine (a slot in the active-transaction array). Dropping
/// it frees the slot.
pub struct SessionSlot {
    lease: Arc<SlotLease>,
}

/// Held for the duration of one statement (`Engine::statement_guard`, `write_statement_guard`);
/// DDL that changes or frees trees waits for all of them.
pub struct StatementGuard {
    _guard: tokio::sync::OwnedRwLockReadGuard<()>,
}

/// A scan in progress. Holds no page latch between calls to `next` (it re-seeks from the last key
/// it returned when it needs the next leaf), so it may be kept across `await`s.
pub struct Scan {
    st: ScanState,
}

pub struct Transaction {
    st: TrxState,
}

/// A point of a transaction to roll back to (`Transaction::savepoint`).
#[derive(Clone, Debug)]
pub struct Savepoint {
    st: TrxSavepoint,
}

// ------------------------------------------------------------------------------------------
// Implementation. The public types above are what the SQL layer sees; everything below is how
// the transactional layer provides it (architecture §3, §4.7-4.9).

type CatalogTables = HashMap<(String, String), Arc<TableDef>>;
type BarrierGuards = Vec<tokio::sync::OwnedRwLockWriteGuard<()>>;

/// Partitions of the statement barrier (architecture §4.9): a statement takes the read side of
/// its session's partition only, so ordinary statements share no cache line through it.
const BARRIER_SHARDS: usize = 64;
/// CREATE INDEX reaches its test crash point (`CrashPoint::IndexBuild`) and its test hold point
/// (`hold_index_builds_for_test`) after every this many entries, so a crash test finds a tree of
/// several pages.
const INDEX_BUILD_CRASH_POINT_EVERY: u64 = 500;
/// Checkpoint interval under torn-write fault injection (test mode): the cleaner then writes back
/// dirty pages continuously, so that a crash test's random kills regularly land in a write.
const TORN_MODE_CHECKPOINT_INTERVAL: Duration = Duration::from_millis(50);
/// How often a DDL re-checks for open transactions that changed the table it alters.
const DDL_WRITER_POLL: Duration = Duration::from_millis(10);
/// Values longer than this go to overflow pages (a quarter page): a row with such values checks
/// the tablespace's free space for them before it is written.
const OVERFLOW_CHECK_BYTES: usize = crate::buffer::PAGE_SIZE / 4;
/// A rollback that restores more undo records than this runs with `blocking::run` (a few
/// milliseconds of page work; below it the hand-off of the worker would cost more than it saves).
const LONG_ROLLBACK_RECORDS: u64 = 1000;
/// Name of the clustered index of a table without a primary key (as InnoDB calls it).
pub const HIDDEN_PRIMARY_NAME: &str = "GEN_CLUST_INDEX";

/// What the page cleaner asks the transactional layer at each checkpoint.
struct Hooks {
    trx: Arc<TrxSys>,
    registry: Arc<Registry>,
    pending_trees: Arc<PendingTrees>,
    store: Weak<PageStore>,
}

impl CheckpointHooks for Hooks {
    fn scan_start_floor(&self) -> Lsn {
        self.trx.scan_start_floor().min(self.registry.hold_lsn.load(Ordering::SeqCst))
    }

    fn next_trx_id(&self) -> u64 {
        self.trx.next_trx_id()
    }

    fn before_checkpoint(&self) -> Lsn {
        let Some(store) = self.store.upgrade() else { return 0 };
        // All under the persist lock, after `persist` moved the hold LSN (the checkpoint's scan
        // start) to the current end of the log: the counters, the pending-tree snapshot and the
        // undo log set are then found by any recovery that starts from this checkpoint.
        let held = self.registry.persist_lock.lock();
        if let Err(e) = self.registry.persist(&held, &store, &self.trx.all_row_deltas()) {
            tracing::warn!("persisting table counters failed: {e}");
        }
        self.pending_trees.log_snapshot(&store);
        self.trx.undo_logs.log_snapshot(&store);
        // The marker: an entry every recovery from this checkpoint must find in the log.
        let mut mtr = Mtr::new(&store);
        mtr.log_logical(&LogRecord::CheckpointMarker.encode());
        let (_, end) = mtr.commit();
        // Durable before the control file names a scan start after the older records (and a
        // marker that is not durable must not be named: recovery would refuse a good log).
        match store.wal().flush_to(end) {
            Ok(()) => end,
            Err(e) => {
                tracing::warn!("logging the checkpoint's records failed: {e}");
                0
            }
        }
    }
}

/// The largest key of a tree (hidden row ids continue after it).
fn max_key(store: &PageStore, root: PageId) -> Result<Option<Vec<u8>>> {
    let mut c = BTree::open(root).cursor(Bound::Unbounded, Bound::Unbounded, true);
    Ok(c.next(store)?.map(|(k, _)| k))
}

fn bad_definition(msg: String) -> StorageError {
    // The SQL layer validates definitions with MariaDB's errors first; this catches API misuse.
    StorageError::NotSupported(format!("table definition: {msg}"))
}

fn validate_index(columns: &[ColumnDef], name: &str, cols: &[IndexColumn]) -> Result<()> {
    if let Some(c) = cols.iter().find(|c| c.column >= columns.len()) {
        return Err(bad_definition(format!("index `{name}` names column #{} of {}", c.column, columns.len())));
    }
    if keycodec::declared_key_bytes(columns, cols) > keycodec::MAX_DECLARED_KEY_BYTES {
        return Err(StorageError::KeyTooLong { max: keycodec::MAX_DECLARED_KEY_BYTES });
    }
    Ok(())
}

/// `t` with every index in a new tree (`roots`, primary first) under a new index id (TRUNCATE,
/// OPTIMIZE).
fn with_new_trees(t: &TableDef, roots: &[PageId], counters: &mut IdCounters) -> Arc<TableDef> {
    let mut def = TableDef::clone(t);
    for (ix, &root) in std::iter::once(&mut def.primary).chain(def.secondary.iter_mut()).zip(roots) {
        ix.id = counters.next_index_id;
        counters.next_index_id += 1;
        ix.root = root;
    }
    Arc::new(def)
}

fn all_roots(t: &TableDef) -> Vec<PageId> {
    t.indexes().map(|i| i.root).collect()
}

impl Engine {
    /// Opens (creating if missing) the data directory, runs crash recovery and starts the
    /// background threads (log writer, page cleaner, purge).
    pub fn open(config: EngineConfig) -> Result<Arc<Engine>> {
        std::fs::create_dir_all(&config.datadir)?;
        let io = Io::new(config.fault);
        // A log that exists keeps its segment size (segment numbers are LSN / size).
        let segment_bytes = crate::wal::existing_segment_bytes(&config.datadir)?
            .unwrap_or_else(|| WalConfig::segment_bytes_for(config.log_capacity));
        let wal_config = WalConfig {
            flush_mode: config.flush_mode,
            capacity: config.log_capacity,
            segment_bytes,
            ..WalConfig::default()
        };
        // Before any file is touched: a log that cannot be trusted is refused (recovery.rs), or
        // with `force_recovery` salvaged read-only.
        let mut salvage = false;
        if let (_, Some(control)) = ControlFile::open(&io, &config.datadir)? {
            if control.format != FORMAT_VERSION {
                return Err(StorageError::Corruption(format!(
                    "data directory format {} (this version reads format {FORMAT_VERSION})",
                    control.format
                )));
            }
            match recovery::check_log_reaches(&io, &config.datadir, &control, wal_config.segment_bytes) {
                Ok(_) => {}
                Err(e @ StorageError::LogTooShort { .. }) if config.force_recovery => {
                    tracing::error!("{e}");
                    tracing::error!(
                        "force_recovery: starting READ-ONLY to salvage what the data files and the remaining log hold. \
                         Nothing will be written; changes of transactions the log shows unfinished are hidden; committed \
                         work the missing log held is lost; every write gets error 1836"
                    );
                    salvage = true;
                }
                Err(e) => return Err(e),
            }
        }
        let mut store_config = PageStoreConfig::new(config.buffer_pool_bytes);
        store_config.read_only = salvage;
        store_config.max_checkpoint_age = wal_config.async_age();
        if config.fault.torn_page_writes {
            // Crash tests: write pages back all the time, so that kills meet torn writes.
            store_config.checkpoint_interval = TORN_MODE_CHECKPOINT_INTERVAL;
        }
        let store = PageStore::open(&io, &config.datadir, store_config)?;
        let control = store.control_at_open();
        let summary =
            recovery::scan_and_redo(&io, &store, &config.datadir, control.scan_start_lsn, wal_config.segment_bytes)?;
        // Salvage: the log that names the undo logs may be gone; the tablespace has them all.
        let undo_logs = if salvage { recovery::find_undo_logs_by_scan(&store)? } else { summary.undo_logs.clone() };
        let logs = recovery::classify_undo_logs(&store, &undo_logs)?;
        let all_logs = || logs.losers.iter().chain(&logs.committed).chain(&logs.finished);
        let max_trx_id = all_logs().map(|l| l.trx_id).fold(summary.max_trx_id, u64::max);
        let next_trx_id = control.next_trx_id.max(max_trx_id + 1).max(VISIBLE_TO_ALL_TRX_ID + 1);
        let trx = Arc::new(TrxSys::new(config.max_sessions, next_trx_id));
        // Known before the first checkpoint, which re-logs them.
        trx.undo_logs.adopt(all_logs().map(|l| l.first));
        if salvage {
            // Nothing is rolled back: the losers stay active for good, so every read view skips
            // their changes through their undo logs.
            trx.hide_unfinished(logs.losers.iter().map(|l| l.trx_id));
        }
        let registry = Arc::new(Registry::new());
        let wal = if salvage {
            Wal::open_read_only(&config.datadir, wal_config, summary.end_lsn)
        } else {
            Wal::open(&io, &config.datadir, wal_config, summary.end_lsn)?
        };
        let pending_trees = Arc::new(PendingTrees::new(summary.pending_trees.iter().copied()));
        let hooks = Arc::new(Hooks {
            trx: trx.clone(),
            registry: registry.clone(),
            pending_trees: pending_trees.clone(),
            store: Arc::downgrade(&store),
        });
        store.start(wal, hooks)?;

        // Losers' catalog records first, so that the catalog read next is the committed one.
        let catalog_root = store.system_tree_root(CATALOG_TREE);
        let catalog_tree = |ix: IndexId| (ix == CATALOG_INDEX_ID).then_some(catalog_root);
        let losers: &[_] = if salvage { &[] } else { &logs.losers };
        let mut restored = recovery::roll_back(&store, losers, catalog_tree)?;
        let (catalog, counters) = catalog::load(&store)?;
        let roots: HashMap<IndexId, PageId> =
            catalog.tables.values().flat_map(|t| t.indexes().map(|i| (i.id, i.root)).collect::<Vec<_>>()).collect();
        restored += recovery::roll_back(&store, losers, |ix| roots.get(&ix).copied())?;
        recovery::report_orphans(&store, losers, |ix, root| roots.get(&ix) == Some(&root))?;
        let abort_end = recovery::log_aborts(&store, losers)?;
        if abort_end > 0 {
            store.wal().flush_to(abort_end)?;
        }

        let persisted = catalog::load_persisted(&store)?;
        let mut runtimes = HashMap::new();
        for t in catalog.tables.values() {
            let p = persisted.get(&t.id).copied();
            let log = summary.auto_inc.get(&t.id).copied().unwrap_or_default();
            let auto_inc = log.apply(p.map_or(1, |p| p.auto_inc_next));
            let next_row_id = if t.has_hidden_pk() {
                max_key(&store, t.primary.root)?.and_then(|k| keycodec::hidden_row_id(&k)).map_or(1, |id| id + 1)
            } else {
                1
            };
            let rows = p.map_or(0, |p| p.rows as i64);
            let runtime = TableRuntime::new(t.id, auto_inc, next_row_id, rows, p);
            if let Some(s) = summary.sequences.get(&t.id) {
                runtime.set_sequence_state(*s);
            }
            runtimes.insert(t.id, Arc::new(runtime));
        }
        registry.replace_all(runtimes);
        if !salvage {
            store.checkpoint_now()?;
        }
        tracing::info!(
            losers = logs.losers.len(),
            restored,
            committed_undo_logs = logs.committed.len(),
            entries = summary.entries,
            bytes = summary.bytes,
            tables = catalog.tables.len(),
            next_trx_id,
            pending_trees = summary.pending_trees.len(),
            pages_repaired_from_doublewrite = store.repaired_at_open(),
            "recovery complete"
        );

        let ddl_slot = trx.claim_internal_slot().expect("internal slots are free at open");
        let crash_points = Arc::new(CrashPoints::new(io.clone()));
        let purge_queues = Arc::new(PurgeQueues::new(pending_trees.clone(), crash_points.clone()));
        if !summary.pending_trees.is_empty() {
            // Left by a crash: nothing references them and no transaction from before the crash
            // survives, so purge frees them at once.
            purge_queues.defer_free(DeferredFree { after: 0, after_seq: 0, roots: summary.pending_trees.clone() });
        }
        // Undo logs left by the crash: every transaction before it is visible to every view
        // from now on, so purge may process them at once (committed ones: their delete-marked
        // records and old chains; the others: only their pages).
        let recovered = logs
            .losers
            .iter()
            .chain(&logs.finished)
            .map(|l| (l, false))
            .chain(logs.committed.iter().map(|l| (l, true)));
        for (l, committed) in recovered.filter(|_| !salvage) {
            purge_queues.adopt(FinishedTrx {
                trx_id: l.trx_id,
                log: Some(FinishedLog { first: l.first, last: l.newest }),
                committed,
                slot: usize::MAX,
                commit_seq: 0,
            });
        }
        let purge = (!salvage).then(|| PurgeThread::start(store.clone(), trx.clone(), purge_queues.clone()));
        let sh = Arc::new(Shared {
            io,
            store,
            trx,
            locks: LockTable::new(),
            catalog: ArcSwap::from_pointee(catalog),
            registry,
            index_created_by: ArcSwap::from_pointee(HashMap::new()),
            newest_index_ddl: AtomicU64::new(0),
            purge_queues,
            pending_trees,
            crash_points,
            barrier: (0..BARRIER_SHARDS).map(|_| Arc::new(tokio::sync::RwLock::new(()))).collect(),
            write_blocks: Arc::default(),
            row_logs: Arc::default(),
            index_builds_held: AtomicBool::new(false),
            ddl: tokio::sync::Mutex::new(DdlState { counters, slot: ddl_slot }),
            closed: AtomicBool::new(false),
            config,
        });
        Ok(Arc::new(Engine { sh, purge: parking_lot::Mutex::new(purge) }))
    }

    /// Flushes everything, writes a final checkpoint and stops background threads.
    pub fn shutdown(&self) -> Result<()> {
        if self.sh.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        if let Some(p) = self.purge.lock().take() {
            p.stop();
        }
        self.sh.store.shutdown()?;
        self.sh.store.wal().shutdown()
    }

    /// Test hook: a power failure inside this process. Unsynced writes are lost (with
    /// `FaultInjection::lose_unsynced_writes`), background threads stop without flushing, and
    /// every later operation fails with ShuttingDown. Drop the engine and reopen the directory
    /// to recover.
    pub fn crash_for_test(&self) {
        self.sh.closed.store(true, Ordering::Release);
        self.sh.io.crash();
        if let Some(p) = self.purge.lock().take() {
            p.stop();
        }
        self.sh.store.crash_stop();
    }

    /// The current catalog snapshot: one atomic load, no lock.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.sh.catalog.load_full()
    }

    /// The current catalog version, read without taking a reference to the snapshot (arc-swap's
    /// `load` uses thread-local debt slots: no shared cache line is written). Cached and prepared
    /// plans compare it to decide whether they must re-plan, so the query path needs no
    /// `catalog()` call while the schema is unchanged.
    pub fn catalog_version(&self) -> u64 {
        self.sh.catalog.load().version
    }

    /// Registers a session (one per client connection). Fails if `max_sessions` are registered.
    pub fn register_session(&self) -> Result<SessionSlot> {
        self.sh.check_open()?;
        let index = self.sh.trx.claim_session_slot().ok_or(StorageError::TooManySessions)?;
        Ok(SessionSlot { lease: Arc::new(SlotLease { sh: self.sh.clone(), index, release: true }) })
    }

    pub fn begin(&self, slot: &SessionSlot, opts: TrxOptions) -> Transaction {
        Transaction { st: TrxState::begin(slot.lease.clone(), opts) }
    }

    /// Taken by every statement that reads tables and changes none (a statement that changes
    /// tables takes `write_statement_guard`); released when dropped. Never held while a DDL
    /// method runs in the same session. The statement binds its tables (or checks that the
    /// catalog version it bound them at is still current) after taking it: a DDL that frees or
    /// replaces trees publishes its catalog while no statement holds one.
    pub async fn statement_guard(&self, slot: &SessionSlot) -> StatementGuard {
        let shard = self.sh.barrier[slot.lease.index % BARRIER_SHARDS].clone();
        StatementGuard { _guard: shard.read_owned().await }
    }

    /// `statement_guard` for a statement that changes `tables`: while a DDL rebuilds one of them
    /// (CREATE INDEX), it waits without holding the guard, as MariaDB makes a writer wait for the
    /// metadata lock of an ALTER TABLE ... LOCK=SHARED, and fails with LockWaitTimeout (1205)
    /// after `timeout` (MariaDB's `lock_wait_timeout`, not InnoDB's row lock timeout). The DDL
    /// publishes a new definition before writers go on, so a statement that waited must bind
    /// its tables again (the catalog version moved). While no table is being rebuilt this costs
    /// one atomic load more than `statement_guard`.
    pub async fn write_statement_guard(
        &self,
        slot: &SessionSlot,
        tables: &[TableId],
        timeout: Duration,
    ) -> Result<StatementGuard> {
        let deadline = tokio::time::Instant::now().checked_add(timeout);
        loop {
            let guard = self.statement_guard(slot).await;
            // Blocks are set while the DDL holds every barrier partition: holding one, this sees
            // every block set before it and no new one can appear until the guard drops.
            let Some(mut lifted) = self.sh.write_blocks.waiter(tables) else { return Ok(guard) };
            drop(guard);
            self.sh.check_open()?;
            let wait = lifted.changed();
            let timed_out = match deadline {
                Some(at) => tokio::time::timeout_at(at, wait).await.is_err(),
                None => {
                    let _ = wait.await;
                    false
                }
            };
            if timed_out {
                return Err(StorageError::LockWaitTimeout);
            }
        }
    }

    // ---- DDL: each runs as its own internal transaction and commits durably. ----

    /// Every DDL first: the engine is open and accepts writes (not halted, not salvage mode).
    fn check_ddl(&self) -> Result<()> {
        self.sh.check_open()?;
        self.sh.store.wal().check_writable()
    }

    fn ddl_trx(&self, slot: usize) -> TrxState {
        let opts = TrxOptions {
            isolation: IsolationLevel::RepeatableRead,
            read_only: false,
            lock_wait_timeout: self.sh.config.lock_wait_timeout,
        };
        TrxState::begin(Arc::new(SlotLease { sh: self.sh.clone(), index: slot, release: false }), opts)
    }

    /// Writes a catalog record (an MVCC record of system tree 0) in the DDL transaction.
    fn catalog_write(
        &self,
        trx: &mut TrxState,
        key: &[u8],
        payload: &[u8],
        deleted: bool,
        expect: Expect,
    ) -> Result<()> {
        self.sh.store.wal().check_writable()?;
        trx.prepare_write(None)?;
        let root = self.sh.store.system_tree_root(CATALOG_TREE);
        let target = Target { index_id: CATALOG_INDEX_ID, root, clustered: false };
        trx.write_version(target, key, payload, deleted, expect, || {
            StorageError::Corruption("catalog record in an unexpected state".into())
        })
    }

    /// Writes the id counters record in the DDL transaction.
    fn write_counters(&self, trx: &mut TrxState, counters: &IdCounters) -> Result<()> {
        self.catalog_write(trx, &catalog::counters_key(), &catalog::encode_counters(counters), false, Expect::Any)
    }

    /// Commits a DDL transaction durably and returns its transaction id. `adopt`: new trees the
    /// DDL's catalog change references (they stop being pending); `drop`: trees it no longer
    /// references (pending until purge frees them); both are logged in the commit mtr. If the
    /// commit fails, the transaction is rolled back and the `adopt` trees are freed. `at_commit`
    /// runs right after the commit record is appended, under the counter persistence lock (so a
    /// checkpoint either sees its counter changes or starts its recovery scan before the commit
    /// record).
    fn ddl_commit(
        &self,
        mut trx: TrxState,
        extra: &[LogRecord],
        adopt: &[PageId],
        drop: &[PageId],
        at_commit: impl FnOnce(),
    ) -> Result<u64> {
        let id = trx.id().expect("a DDL transaction writes catalog records before it commits");
        let committed = {
            let _g = self.sh.registry.persist_lock.lock();
            let committed = self.sh.pending_trees.commit_ddl(adopt, drop, |trees| {
                let records: Vec<LogRecord> = extra.iter().chain(trees).cloned().collect();
                trx.commit_with(&records)
            });
            if committed.is_ok() {
                at_commit();
            }
            committed
        };
        let end = match committed {
            Ok(end) => end,
            Err(e) => {
                std::mem::drop(trx); // rolls the catalog changes back
                blocking::run(|| self.sh.pending_trees.free_now(&self.sh.store, adopt));
                return Err(e);
            }
        };
        if let Some(end) = end {
            // DDL is durable at once whatever the flush mode: an fsync, off the worker thread.
            blocking::run(|| self.sh.store.wal().flush_to(end))?;
        }
        Ok(id)
    }

    /// Publishes a new catalog snapshot built from the current one.
    fn edit_catalog(&self, f: impl FnOnce(&mut BTreeMap<String, DatabaseDef>, &mut CatalogTables)) {
        let old = self.sh.catalog.load_full();
        let mut databases = old.databases.clone();
        let mut tables = old.tables.clone();
        f(&mut databases, &mut tables);
        self.sh.catalog.store(Arc::new(Catalog { version: old.version + 1, databases, tables }));
    }

    /// Takes every statement barrier partition: waits for every running statement to end, and
    /// no statement starts until the guards drop. Hold it briefly: it stops every table.
    async fn barrier_all(&self) -> BarrierGuards {
        let mut guards = Vec::with_capacity(BARRIER_SHARDS);
        for shard in self.sh.barrier.iter() {
            guards.push(shard.clone().write_owned().await);
        }
        guards
    }

    /// Takes every statement barrier partition (no statement runs until the guards drop), once
    /// no other open transaction has changed any of `tables` (MariaDB's metadata locks make
    /// DDL wait for such transactions too). Gives up after the lock wait timeout.
    async fn exclusive(&self, tables: &[TableId], ddl_slot: usize) -> Result<BarrierGuards> {
        self.exclusive_within(tables, ddl_slot, self.sh.config.lock_wait_timeout).await
    }

    /// `exclusive` waiting at most `lock_wait` (a statement's WAIT n / NOWAIT).
    async fn exclusive_within(
        &self,
        tables: &[TableId],
        ddl_slot: usize,
        lock_wait: Duration,
    ) -> Result<BarrierGuards> {
        let deadline = Instant::now() + lock_wait;
        loop {
            let guards = self.barrier_all().await;
            if !tables.iter().any(|&t| self.sh.trx.table_has_writers(t, ddl_slot)) {
                return Ok(guards);
            }
            drop(guards);
            if Instant::now() >= deadline {
                return Err(StorageError::LockWaitTimeout);
            }
            tokio::time::sleep(DDL_WRITER_POLL).await;
        }
    }

    /// Blocks writes to `table` for a DDL that rebuilds it while everything else runs (MariaDB's
    /// ALTER TABLE ... LOCK=SHARED): waits, as `exclusive` does, for the open transactions that
    /// changed the table, marks it and lets the barrier go. Until the returned block drops,
    /// statements that would change the table wait in `write_statement_guard` (holding no
    /// barrier partition), while reads of it and all work on other tables go on; the DDL reads
    /// the table's latest versions, which are all committed. Called with the DDL mutex held.
    ///
    /// A rebuild then runs its long work through `blocking::run`, commits, and publishes its
    /// catalog change *before* dropping the block, so that writers that waited bind the new
    /// definition. A publish that only adds a tree (CREATE INDEX) needs no barrier: a statement
    /// still running with the old definition only reads the table. One that replaces or frees
    /// trees (a rebuild into new trees) publishes under `barrier_all`, like DROP: readers of the
    /// old trees must be gone before they are freed; waiting writers hold no partition, so that
    /// cannot deadlock with them.
    async fn block_writes(&self, table: TableId, ddl_slot: usize) -> Result<TableWriteBlock> {
        let _barrier = self.exclusive(&[table], ddl_slot).await?;
        Ok(self.sh.write_blocks.block(table))
    }

    /// Returns false if it existed and `if_not_exists`.
    pub async fn create_database(&self, def: DatabaseDef, if_not_exists: bool) -> Result<bool> {
        self.check_ddl()?;
        let ddl = self.sh.ddl.lock().await;
        if self.catalog().database(&def.name).is_some() {
            return if if_not_exists { Ok(false) } else { Err(StorageError::DatabaseExists { name: def.name }) };
        }
        let mut trx = self.ddl_trx(ddl.slot);
        let (key, payload) = (catalog::database_key(&def.name), catalog::encode_database(&def));
        self.catalog_write(&mut trx, &key, &payload, false, Expect::Free)?;
        self.ddl_commit(trx, &[], &[], &[], || {})?;
        self.edit_catalog(|dbs, _| {
            dbs.insert(def.name.clone(), def);
        });
        Ok(true)
    }

    /// Drops the database and all its tables. Returns the number of tables dropped, or `None` if
    /// it did not exist and `if_exists`.
    pub async fn drop_database(&self, name: &str, if_exists: bool) -> Result<Option<usize>> {
        self.check_ddl()?;
        let ddl = self.sh.ddl.lock().await;
        let cat = self.catalog();
        if cat.database(name).is_none() {
            return if if_exists { Ok(None) } else { Err(StorageError::DropNoSuchDatabase { name: name.to_string() }) };
        }
        let tables: Vec<Arc<TableDef>> = cat.tables_in(name).into_iter().cloned().collect();
        let ids: Vec<TableId> = tables.iter().map(|t| t.id).collect();
        let _barrier = self.exclusive(&ids, ddl.slot).await?;
        let mut trx = self.ddl_trx(ddl.slot);
        for t in &tables {
            self.catalog_write(&mut trx, &catalog::table_key(t.id), &catalog::encode_table(t), true, Expect::Live)?;
        }
        let db = cat.database(name).expect("checked above");
        self.catalog_write(&mut trx, &catalog::database_key(name), &catalog::encode_database(db), true, Expect::Live)?;
        let roots: Vec<PageId> = tables.iter().flat_map(|t| all_roots(t)).collect();
        self.ddl_commit(trx, &[], &[], &roots, || self.sh.registry.remove(&ids))?;
        self.edit_catalog(|dbs, ts| {
            dbs.remove(name);
            ts.retain(|(d, _), _| d != name);
        });
        self.free_trees_later(roots);
        self.forget_counters(&tables);
        Ok(Some(tables.len()))
    }

    /// Hands trees a committed DDL no longer references to purge, which frees them once no
    /// transaction that could touch them remains. They are pending (logged) since that commit,
    /// so a crash before purge gets to them frees them at the next open.
    fn free_trees_later(&self, roots: Vec<PageId>) {
        let after = self.sh.trx.next_trx_id();
        // The DDL's own number (it committed last): views built after it are numbered above.
        let after_seq = self.sh.trx.commit_seq() - 1;
        self.sh.purge_queues.defer_free(DeferredFree { after, after_seq, roots });
    }

    /// Removes the persisted counters of dropped tables.
    fn forget_counters(&self, tables: &[Arc<TableDef>]) {
        for t in tables {
            if let Err(e) = catalog::remove_persisted(&self.sh.store, t.id) {
                tracing::warn!("removing counters of dropped table {} failed: {e}", t.id);
            }
        }
    }

    /// Returns false if it existed and `if_not_exists`.
    pub async fn create_table(&self, table: NewTable, if_not_exists: bool) -> Result<bool> {
        self.create_table_with_constraints(table, TableConstraints::default(), if_not_exists).await
    }

    /// CREATE TABLE with FOREIGN KEY / CHECK constraints (validated by the SQL layer, which
    /// enforces them; the engine only stores them).
    pub async fn create_table_with_constraints(
        &self,
        table: NewTable,
        constraints: TableConstraints,
        if_not_exists: bool,
    ) -> Result<bool> {
        self.check_ddl()?;
        let mut ddl = self.sh.ddl.lock().await;
        let cat = self.catalog();
        if cat.database(&table.db).is_none() {
            return Err(StorageError::NoSuchDatabase { name: table.db });
        }
        if cat.table(&table.db, &table.name).is_some() {
            return if if_not_exists { Ok(false) } else { Err(StorageError::TableExists { name: table.name }) };
        }
        validate_index(&table.columns, "PRIMARY", &table.primary_key)?;
        let mut names: Vec<&str> = vec![if table.primary_key.is_empty() { HIDDEN_PRIMARY_NAME } else { "PRIMARY" }];
        for ix in &table.indexes {
            validate_index(&table.columns, &ix.name, &ix.columns)?;
            if names.iter().any(|n| n.eq_ignore_ascii_case(&ix.name)) {
                return Err(StorageError::IndexExists { name: ix.name.clone() });
            }
            names.push(&ix.name);
        }

        let mut counters = ddl.counters;
        let table_id = counters.next_table_id;
        counters.next_table_id += 1;
        let roots = self.sh.pending_trees.create_trees(&self.sh.store, 1 + table.indexes.len())?;
        let mut next_index = || {
            let id = counters.next_index_id;
            counters.next_index_id += 1;
            id
        };
        let primary = IndexDef {
            id: next_index(),
            name: names[0].to_string(),
            columns: table.primary_key.clone(),
            unique: true,
            primary: true,
            root: roots[0],
        };
        let secondary = table
            .indexes
            .iter()
            .zip(&roots[1..])
            .map(|(ix, &root)| IndexDef {
                id: next_index(),
                name: ix.name.clone(),
                columns: ix.columns.clone(),
                unique: ix.unique,
                primary: false,
                root,
            })
            .collect();
        let def = Arc::new(TableDef {
            id: table_id,
            db: table.db,
            name: table.name,
            columns: table.columns,
            primary,
            secondary,
            // Every table created from now on keys character columns by collation.
            options: TableOptions { key_format: KEY_FORMAT_CURRENT, ..table.options },
            row_versions: RowVersions::default(),
            constraints,
        });
        let auto_inc = table.auto_increment_start.unwrap_or(1).max(1);

        let mut trx = self.ddl_trx(ddl.slot);
        let written = self
            .catalog_write(&mut trx, &catalog::table_key(table_id), &catalog::encode_table(&def), false, Expect::Free)
            .and_then(|_| self.write_counters(&mut trx, &counters));
        if let Err(e) = written {
            drop(trx);
            self.sh.pending_trees.free_now(&self.sh.store, &roots);
            return Err(e);
        }
        let trx_id = trx.id().expect("wrote catalog records");
        let reset = LogRecord::AutoIncReset { trx_id, table_id, next: auto_inc };
        let ddl_id = self.ddl_commit(trx, &[reset], &roots, &[], || {
            self.sh.registry.insert(Arc::new(TableRuntime::new(table_id, auto_inc, 1, 0, None)));
        })?;
        ddl.counters = counters;
        self.sh.note_indexes_created(ddl_id, def.indexes().map(|i| i.id));
        self.edit_catalog(|_, ts| {
            ts.insert((def.db.clone(), def.name.clone()), def.clone());
        });
        Ok(true)
    }

    /// Returns false if it did not exist and `if_exists`.
    pub async fn drop_table(&self, db: &str, name: &str, if_exists: bool) -> Result<bool> {
        self.check_ddl()?;
        let ddl = self.sh.ddl.lock().await;
        let Some(t) = self.catalog().table(db, name).cloned() else {
            return if if_exists {
                Ok(false)
            } else {
                Err(StorageError::NoSuchTable { db: db.to_string(), name: name.to_string() })
            };
        };
        let _barrier = self.exclusive(&[t.id], ddl.slot).await?;
        let mut trx = self.ddl_trx(ddl.slot);
        self.catalog_write(&mut trx, &catalog::table_key(t.id), &catalog::encode_table(&t), true, Expect::Live)?;
        let roots = all_roots(&t);
        self.ddl_commit(trx, &[], &[], &roots, || self.sh.registry.remove(&[t.id]))?;
        self.edit_catalog(|_, ts| {
            ts.remove(&(db.to_string(), name.to_string()));
        });
        self.free_trees_later(roots);
        self.forget_counters(&[t]);
        Ok(true)
    }

    pub async fn rename_table(&self, db: &str, name: &str, new_db: &str, new_name: &str) -> Result<()> {
        self.check_ddl()?;
        let ddl = self.sh.ddl.lock().await;
        let cat = self.catalog();
        let Some(t) = cat.table(db, name).cloned() else {
            return Err(StorageError::NoSuchTable { db: db.to_string(), name: name.to_string() });
        };
        if cat.database(new_db).is_none() {
            return Err(StorageError::NoSuchDatabase { name: new_db.to_string() });
        }
        if cat.table(new_db, new_name).is_some() {
            return Err(StorageError::TableExists { name: new_name.to_string() });
        }
        let mut renamed = TableDef::clone(&t);
        renamed.db = new_db.to_string();
        renamed.name = new_name.to_string();
        let renamed = Arc::new(renamed);
        let mut trx = self.ddl_trx(ddl.slot);
        self.catalog_write(&mut trx, &catalog::table_key(t.id), &catalog::encode_table(&renamed), false, Expect::Live)?;
        self.ddl_commit(trx, &[], &[], &[], || {})?;
        self.edit_catalog(|_, ts| {
            ts.remove(&(db.to_string(), name.to_string()));
            ts.insert((new_db.to_string(), new_name.to_string()), renamed);
        });
        Ok(())
    }

    /// Builds the index over existing rows; fails with DuplicateKey if `unique` and violated.
    /// Meanwhile only statements that change the table wait (`block_writes`, MariaDB's
    /// LOCK=SHARED); the build runs off the async worker thread (`blocking::run`).
    pub async fn create_index(&self, db: &str, table: &str, index: NewIndex) -> Result<()> {
        self.create_index_with(db, table, index, false).await
    }

    /// `create_index` with the table's writers going on during the build (MariaDB's LOCK=NONE,
    /// its default for ADD INDEX): their changes reach the new index through a row log
    /// (engine/alter.rs `build_index_online`); they wait only for a moment at its end.
    pub async fn create_index_online(&self, db: &str, table: &str, index: NewIndex) -> Result<()> {
        self.create_index_with(db, table, index, true).await
    }

    async fn create_index_with(&self, db: &str, table: &str, index: NewIndex, online: bool) -> Result<()> {
        self.check_ddl()?;
        let mut ddl = self.sh.ddl.lock().await;
        let Some(t) = self.catalog().table(db, table).cloned() else {
            return Err(StorageError::NoSuchTable { db: db.to_string(), name: table.to_string() });
        };
        if index.name.eq_ignore_ascii_case("PRIMARY") || t.index_by_name(&index.name).is_some() {
            return Err(StorageError::IndexExists { name: index.name });
        }
        validate_index(&t.columns, &index.name, &index.columns)?;
        // Dropped last, after the catalog that names the index is published.
        let mut writes = Some(self.block_writes(t.id, ddl.slot).await?);
        let mut counters = ddl.counters;
        // Pending from here: a crash during the build frees the tree at the next open.
        let root = self.sh.pending_trees.create_trees(&self.sh.store, 1)?[0];
        let ix = IndexDef {
            id: counters.next_index_id,
            name: index.name,
            columns: index.columns,
            unique: index.unique,
            primary: false,
            root,
        };
        counters.next_index_id += 1;
        let built = if online {
            self.build_index_online(&t, &ix, &mut writes, ddl.slot).await
        } else {
            blocking::run(|| self.build_index(&t, &ix, None))
        };
        if let Err(e) = built {
            blocking::run(|| self.sh.pending_trees.free_now(&self.sh.store, &[root]));
            return Err(e);
        }
        let mut def = TableDef::clone(&t);
        def.secondary.push(ix.clone());
        let def = Arc::new(def);
        let mut trx = self.ddl_trx(ddl.slot);
        let written = self
            .catalog_write(&mut trx, &catalog::table_key(t.id), &catalog::encode_table(&def), false, Expect::Live)
            .and_then(|_| self.write_counters(&mut trx, &counters));
        if let Err(e) = written {
            drop(trx);
            blocking::run(|| self.sh.pending_trees.free_now(&self.sh.store, &[root]));
            return Err(e);
        }
        let ddl_id = self.ddl_commit(trx, &[], &[root], &[], || {})?;
        ddl.counters = counters;
        // The entries reflect the rows' latest versions at the build: snapshots older than the
        // DDL cannot use the index (1412).
        self.sh.note_indexes_created(ddl_id, [ix.id]);
        // No barrier (see `block_writes`): statements running with the old definition only
        // read the table, and writers wait until `writes` drops, after this.
        self.edit_catalog(|_, ts| {
            ts.insert((db.to_string(), table.to_string()), def);
        });
        drop(writes);
        Ok(())
    }

    /// Fills a new secondary index from the latest version of every row. No transaction has
    /// uncommitted changes in the table and none can make one (`block_writes`), so the latest
    /// versions are committed; entries are stamped visible-to-all and logged as plain page
    /// changes (the tree is unreachable until the catalog change commits). Synchronous: run it
    /// through `blocking::run`. With a `view` (an online build), from the rows as it sees them.
    fn build_index(&self, t: &TableDef, ix: &IndexDef, view: Option<&crate::trx::ReadView>) -> Result<()> {
        let store = &self.sh.store;
        let tree = BTree::open(ix.root);
        let entry_value = RecHeader { trx_id: VISIBLE_TO_ALL_TRX_ID, roll_ptr: NO_ROLL_PTR, deleted: false }.to_vec();
        let mut cursor = BTree::open(t.primary.root).cursor(Bound::Unbounded, Bound::Unbounded, false);
        let mut entries = 0u64;
        while let Some((pk_key, value)) = cursor.next(store)? {
            let row = match view {
                Some(view) => match self.row_as_of(t, view, &pk_key, Some(value))? {
                    Some(row) => row,
                    None => continue,
                },
                None => {
                    if RecHeader::parse(&value)?.deleted {
                        continue;
                    }
                    rowcodec::decode_table_row(t, &value[HEADER_LEN..])?
                }
            };
            let key = keycodec::secondary_key(t, ix, &row, &pk_key)?;
            if key.len() > MAX_KEY_LEN {
                return Err(StorageError::KeyTooLong { max: MAX_KEY_LEN });
            }
            if ix.unique && !keycodec::has_null_column(ix, &row) {
                if let Some(holder) = unique_holder(store, &tree, &key, &pk_key)? {
                    let shown = indexed_row(store, t, &holder)?.unwrap_or(row);
                    return Err(StorageError::DuplicateKey {
                        index: ix.name.clone(),
                        key: keycodec::format_key_value(t, ix, &shown),
                    });
                }
            }
            let mut mtr = Mtr::new(store);
            let v = entry_value.clone();
            tree.modify(&mut mtr, &key, |_| (Change::Put(v), ()))?;
            let (_, end) = mtr.commit();
            entries += 1;
            if entries.is_multiple_of(INDEX_BUILD_CRASH_POINT_EVERY) {
                while self.sh.index_builds_held.load(Ordering::Relaxed) && !self.sh.is_closed() {
                    std::thread::sleep(Duration::from_millis(1));
                }
                if self.sh.crash_points.is_armed(CrashPoint::IndexBuild) {
                    // Crash test: make the partial tree durable first, so that the power cut
                    // leaves pages that only the pending-tree record can give back.
                    store.wal().flush_to(end)?;
                }
                self.sh.crash_points.hit(CrashPoint::IndexBuild)?;
            }
        }
        Ok(())
    }

    pub async fn drop_index(&self, db: &str, table: &str, index: &str) -> Result<()> {
        self.check_ddl()?;
        let ddl = self.sh.ddl.lock().await;
        let Some(t) = self.catalog().table(db, table).cloned() else {
            return Err(StorageError::NoSuchTable { db: db.to_string(), name: table.to_string() });
        };
        if t.primary.name.eq_ignore_ascii_case(index) {
            return Err(StorageError::NotSupported("DROP INDEX `PRIMARY`".into()));
        }
        let Some(pos) = t.secondary.iter().position(|i| i.name.eq_ignore_ascii_case(index)) else {
            return Err(StorageError::NoSuchIndex { name: index.to_string() });
        };
        let _barrier = self.exclusive(&[t.id], ddl.slot).await?;
        let mut def = TableDef::clone(&t);
        let dropped = def.secondary.remove(pos);
        let def = Arc::new(def);
        let mut trx = self.ddl_trx(ddl.slot);
        self.catalog_write(&mut trx, &catalog::table_key(t.id), &catalog::encode_table(&def), false, Expect::Live)?;
        self.ddl_commit(trx, &[], &[], &[dropped.root], || {})?;
        self.edit_catalog(|_, ts| {
            ts.insert((db.to_string(), table.to_string()), def);
        });
        self.free_trees_later(vec![dropped.root]);
        Ok(())
    }

    /// Replaces the table's FOREIGN KEY and CHECK constraints (ALTER TABLE ADD/DROP CONSTRAINT).
    /// Waits, like DROP INDEX, for running statements and for open transactions that changed
    /// the table, so that every later write is checked against the new definition.
    pub async fn set_table_constraints(&self, db: &str, table: &str, constraints: TableConstraints) -> Result<()> {
        self.check_ddl()?;
        let ddl = self.sh.ddl.lock().await;
        let Some(t) = self.catalog().table(db, table).cloned() else {
            return Err(StorageError::NoSuchTable { db: db.to_string(), name: table.to_string() });
        };
        let _barrier = self.exclusive(&[t.id], ddl.slot).await?;
        let mut def = TableDef::clone(&t);
        def.constraints = constraints;
        let def = Arc::new(def);
        let mut trx = self.ddl_trx(ddl.slot);
        self.catalog_write(&mut trx, &catalog::table_key(t.id), &catalog::encode_table(&def), false, Expect::Live)?;
        self.ddl_commit(trx, &[], &[], &[], || {})?;
        self.edit_catalog(|_, ts| {
            ts.insert((db.to_string(), table.to_string()), def);
        });
        Ok(())
    }

    /// Empties the table (new empty trees; AUTO_INCREMENT restarts at 1).
    pub async fn truncate_table(&self, db: &str, table: &str) -> Result<()> {
        self.truncate_table_within(db, table, None).await
    }

    /// `truncate_table` that waits at most `lock_wait` (instead of lock_wait_timeout) for the
    /// open transactions that changed the table (TRUNCATE ... WAIT n / NOWAIT).
    pub async fn truncate_table_within(&self, db: &str, table: &str, lock_wait: Option<Duration>) -> Result<()> {
        self.check_ddl()?;
        let mut ddl = self.sh.ddl.lock().await;
        let Some(t) = self.catalog().table(db, table).cloned() else {
            return Err(StorageError::NoSuchTable { db: db.to_string(), name: table.to_string() });
        };
        let lock_wait = lock_wait.unwrap_or(self.sh.config.lock_wait_timeout);
        let _barrier = self.exclusive_within(&[t.id], ddl.slot, lock_wait).await?;
        let mut counters = ddl.counters;
        let roots = self.sh.pending_trees.create_trees(&self.sh.store, 1 + t.secondary.len())?;
        // New index ids too: undo records of the old trees (of a transaction that wrote before
        // the truncate and is rolled back by recovery) must not land in the new ones.
        let def = with_new_trees(&t, &roots, &mut counters);
        let mut trx = self.ddl_trx(ddl.slot);
        let written = self
            .catalog_write(&mut trx, &catalog::table_key(t.id), &catalog::encode_table(&def), false, Expect::Live)
            .and_then(|_| self.write_counters(&mut trx, &counters));
        if let Err(e) = written {
            drop(trx);
            self.sh.pending_trees.free_now(&self.sh.store, &roots);
            return Err(e);
        }
        let trx_id = trx.id().expect("wrote catalog records");
        let reset = LogRecord::AutoIncReset { trx_id, table_id: t.id, next: 1 };
        let delta = self.sh.trx.row_delta(t.id);
        let old_roots = all_roots(&t);
        let ddl_id = self.ddl_commit(trx, &[reset], &roots, &old_roots, || {
            self.sh.registry.with(t.id, |rt| {
                rt.reset_auto_inc(1);
                rt.set_rows_base(-delta);
            });
        })?;
        ddl.counters = counters;
        // Snapshots older than the truncate cannot read the new, empty trees (1412), as on MariaDB.
        self.sh.note_indexes_created(ddl_id, def.indexes().map(|i| i.id));
        self.edit_catalog(|_, ts| {
            ts.insert((db.to_string(), table.to_string()), def);
        });
        self.free_trees_later(old_roots);
        Ok(())
    }

    /// OPTIMIZE TABLE, as InnoDB does it ("recreate + analyze"): an online rebuild
    /// (`rebuild_table`) where the table allows one; otherwise (a hidden primary key, keys of
    /// an older format, which are copied as they are) new trees are built from the latest
    /// committed version of every record, with the table's writers waiting, densely (keys arrive in order, so each leaf is
    /// filled before the next starts), and swapped in by one DDL commit; the old trees, with
    /// every page that deletes left underused, go back to the free list through purge. The new
    /// trees are pending until that commit, so a crash during the copy frees them at the next
    /// open and leaves the table as it was. New index ids, as for TRUNCATE: snapshots older than
    /// the rebuild get 1412, and an older transaction's undo never lands in the new trees.
    pub async fn optimize_table(&self, db: &str, table: &str) -> Result<()> {
        self.check_ddl()?;
        // A table with a primary key in the current key format is rebuilt online (writers go
        // on, as in MariaDB's recreate), the rows written afresh at the current row version.
        if let Some(t) = self.catalog().table(db, table).cloned() {
            if !t.has_hidden_pk() && keycodec::keys_survive_rebuild(&t, &t.primary) {
                let same = TableRebuild { online: true, ..TableRebuild::same_as(&t) };
                return self.rebuild_table(db, table, &t, same, Ok::<_, StorageError>).await.map(|_| ());
            }
        }
        let mut ddl = self.sh.ddl.lock().await;
        let Some(t) = self.catalog().table(db, table).cloned() else {
            return Err(StorageError::NoSuchTable { db: db.to_string(), name: table.to_string() });
        };
        // No transaction with changes in the table is open from here and none can start one
        // until the new trees are published (`block_writes`): the latest versions are committed
        // ones. Reads of the table and all work on other tables go on during the copy.
        let _writes = self.block_writes(t.id, ddl.slot).await?;
        let mut counters = ddl.counters;
        let roots = self.sh.pending_trees.create_trees(&self.sh.store, 1 + t.secondary.len())?;
        let def = with_new_trees(&t, &roots, &mut counters);
        let old_roots = all_roots(&t);
        let copied = blocking::run(|| {
            old_roots.iter().zip(&roots).try_for_each(|(&from, &to)| self.copy_latest_versions(from, to))
        });
        let mut trx = self.ddl_trx(ddl.slot);
        let written = copied.and_then(|_| {
            self.catalog_write(&mut trx, &catalog::table_key(t.id), &catalog::encode_table(&def), false, Expect::Live)?;
            self.write_counters(&mut trx, &counters)
        });
        if let Err(e) = written {
            drop(trx);
            blocking::run(|| self.sh.pending_trees.free_now(&self.sh.store, &roots));
            return Err(e);
        }
        let ddl_id = self.ddl_commit(trx, &[], &roots, &old_roots, || {})?;
        ddl.counters = counters;
        self.sh.note_indexes_created(ddl_id, def.indexes().map(|i| i.id));
        // The old trees are freed: statements still reading them must end first (`block_writes`).
        let _barrier = self.barrier_all().await;
        self.edit_catalog(|_, ts| {
            ts.insert((db.to_string(), table.to_string()), def);
        });
        self.free_trees_later(old_roots);
        Ok(())
    }

    /// Copies the live records of one index tree into an empty, unreachable one, in key order,
    /// stamped visible to all (no older version is needed: see `optimize_table`). Logged as plain
    /// page changes, one mtr per record.
    fn copy_latest_versions(&self, from: PageId, to: PageId) -> Result<()> {
        let store = &self.sh.store;
        let tree = BTree::open(to);
        let visible = RecHeader { trx_id: VISIBLE_TO_ALL_TRX_ID, roll_ptr: NO_ROLL_PTR, deleted: false };
        let mut cursor = BTree::open(from).cursor(Bound::Unbounded, Bound::Unbounded, false);
        let mut copied = 0u64;
        while let Some((key, value)) = cursor.next(store)? {
            if RecHeader::parse(&value)?.deleted {
                continue;
            }
            let mut v = visible.to_vec();
            v.extend_from_slice(&value[HEADER_LEN..]);
            let mut mtr = Mtr::new(store);
            tree.modify(&mut mtr, &key, |_| (Change::Put(v), ()))?;
            let (_, end) = mtr.commit();
            copied += 1;
            if copied.is_multiple_of(INDEX_BUILD_CRASH_POINT_EVERY) {
                if self.sh.crash_points.is_armed(CrashPoint::TableRebuild) {
                    // Crash test: the partial trees reach the disk, so that only the pending-tree
                    // records can give their pages back.
                    store.wal().flush_to(end)?;
                }
                self.sh.crash_points.hit(CrashPoint::TableRebuild)?;
            }
        }
        Ok(())
    }

    /// Test hook: the next time the engine reaches `point` it simulates a power cut there (as
    /// `crash_for_test`, from inside the operation, which then fails). Then call
    /// `crash_for_test`, drop the engine and reopen the directory.
    #[doc(hidden)]
    pub fn arm_crash_point_for_test(&self, point: CrashPoint) {
        match point {
            CrashPoint::HomePageSync => self.sh.store.crash_before_next_home_sync(),
            _ => self.sh.crash_points.arm(point),
        }
    }

    /// Test hook: while `held`, index builds and table rebuilds stop after their next few
    /// hundred entries (their thread sleeps; writers of the table keep waiting, unless the
    /// rebuild is online) until it is cleared, so that a test can look at the engine in the
    /// middle of a build of any length.
    #[doc(hidden)]
    pub fn hold_index_builds_for_test(&self, held: bool) {
        self.sh.index_builds_held.store(held, Ordering::SeqCst);
    }

    /// Test hook: the number of online rebuilds copying now (their row logs).
    #[doc(hidden)]
    pub fn online_rebuilds_for_test(&self) -> usize {
        self.sh.row_logs.active()
    }

    /// Test hook: while `paused`, the purge thread does no work (as if it lagged far behind).
    #[doc(hidden)]
    pub fn pause_purge_thread_for_test(&self, paused: bool) {
        self.sh.purge_queues.thread_paused.store(paused, Ordering::SeqCst);
    }

    /// Test hook: whether the armed crash point was reached (the simulated power cut happened).
    #[doc(hidden)]
    pub fn crash_point_fired_for_test(&self) -> bool {
        self.sh.crash_points.fired() || self.sh.io.is_crashed()
    }

    /// Test hook: arms an I/O fault (docs §4.10): the chosen operation on the chosen file fails.
    #[doc(hidden)]
    pub fn inject_io_fault_for_test(&self, fault: IoFault) -> FaultId {
        self.sh.io.inject(fault)
    }

    /// Test hook: disarms every injected I/O fault.
    #[doc(hidden)]
    pub fn clear_io_faults_for_test(&self) {
        self.sh.io.clear_faults()
    }

    /// Test hook: how many operations an injected fault has failed.
    #[doc(hidden)]
    pub fn io_fault_hits_for_test(&self, id: FaultId) -> u64 {
        self.sh.io.fault_hits(id)
    }

    /// Test hook: pages of the data file allocated on disk.
    #[doc(hidden)]
    pub fn allocated_pages_for_test(&self) -> u64 {
        self.sh.store.allocated_pages()
    }

    /// Test hook: writes back every dirty page and writes a checkpoint now (the recovery scan
    /// then starts after everything logged so far, unless an open transaction needs more).
    #[doc(hidden)]
    pub fn checkpoint_for_test(&self) -> Result<()> {
        self.sh.check_open()?;
        self.sh.store.checkpoint_now().map(|_| ())
    }

    /// Where every page of the tablespace is: in a live tree (a table's index, a system tree),
    /// on the free list, or in a tree waiting to be freed; what is in none of them has leaked.
    /// A diagnostic for tests: run it while no statement or DDL is in flight. Purge passes wait
    /// for it (a pass frees logs and trees page by page; a report in between would see pages
    /// in no place).
    pub fn space_report(&self) -> Result<SpaceReport> {
        let _no_purge = self.sh.purge_queues.hold_passes();
        let store = &self.sh.store;
        let total = store.tablespace_pages()?;
        let mut owner = vec![0u8; total as usize];
        let mut report = SpaceReport { total_pages: total, ..SpaceReport::default() };
        owner[0] = 1; // the tablespace header
        let mut mark = |pid: PageId, counter: &mut u64, report_doubly: &mut u64| -> Result<()> {
            let slot = owner
                .get_mut(pid as usize)
                .ok_or_else(|| StorageError::Corruption(format!("page {pid} beyond the tablespace ({total} pages)")))?;
            if *slot != 0 {
                *report_doubly += 1;
            }
            *slot = 1;
            *counter += 1;
            Ok(())
        };
        let mut live_roots: Vec<PageId> = (0..crate::buffer::SYSTEM_TREES).map(|n| store.system_tree_root(n)).collect();
        live_roots.extend(self.catalog().tables.values().flat_map(|t| all_roots(t)));
        // Overflow chains of a record's versions may share their tails: each page counts once.
        let mut census = crate::btree::ChainCensus::default();
        for root in live_roots {
            for pid in BTree::open(root).pages_counted(store, &mut census)? {
                mark(pid, &mut report.in_trees, &mut report.doubly_used)?;
            }
        }
        for root in self.sh.pending_trees.roots() {
            for pid in self.sh.pending_trees.pages_of(store, root, &mut census)? {
                mark(pid, &mut report.pending, &mut report.doubly_used)?;
            }
        }
        for first in self.sh.trx.undo_logs.firsts() {
            for pid in crate::trx::undo::owned_pages(store, first, &mut census)? {
                mark(pid, &mut report.undo, &mut report.doubly_used)?;
            }
        }
        for pid in store.free_list_pages()? {
            mark(pid, &mut report.free, &mut report.doubly_used)?;
        }
        report.leaked = owner.iter().filter(|&&o| o == 0).count() as u64;
        Ok(report)
    }

    pub fn set_flush_mode(&self, mode: FlushMode) {
        self.sh.store.wal().set_flush_mode(mode);
    }

    /// Approximate number of rows (for SHOW TABLE STATUS / information_schema.TABLES).
    ///
    /// Method: the count persisted in system tree 1 at the last checkpoint before the open (or
    /// 0 after TRUNCATE), plus the net rows inserted by transactions committed since, counted
    /// per session and merged here. Exact while the engine runs; after a crash it restarts from
    /// the last checkpoint's count, so it may drift by what was committed after that checkpoint.
    pub fn approx_row_count(&self, table: &TableDef) -> u64 {
        let base = self.sh.registry.with(table.id, |rt| rt.rows_base()).unwrap_or(0);
        (base + self.sh.trx.row_delta(table.id)).max(0) as u64
    }

    /// Where a sequence stands (`SequenceDef::initial_state` until it first moves).
    pub fn sequence_state(&self, table: &TableDef) -> Result<SequenceState> {
        let def = table.options.sequence.as_ref().ok_or_else(|| not_a_sequence(table))?;
        let moved = self.sh.registry.with(table.id, |rt| rt.sequence_state()).ok_or_else(|| no_such(table))?;
        Ok(moved.unwrap_or_else(|| def.initial_state()))
    }

    /// Moves a sequence to `state` and returns once that is durable, whatever the flush mode:
    /// the SQL layer hands out the values below `next_not_cached` only after this, so that a
    /// crash never hands out a value twice. Outside any transaction (a rollback does not take
    /// values back, as in MariaDB). Blocking (an fsync): called once per CACHE values.
    pub fn set_sequence_state(&self, table: &TableDef, state: SequenceState) -> Result<()> {
        self.sh.check_open()?;
        if table.options.sequence.is_none() {
            return Err(not_a_sequence(table));
        }
        let end = {
            // Under the persist lock, so that a checkpoint's snapshot of sequence states and
            // this record are ordered: either the snapshot has the new state or this record
            // comes after the checkpoint's scan start.
            let _g = self.sh.registry.persist_lock.lock();
            self.sh.registry.with(table.id, |rt| rt.set_sequence_state(state)).ok_or_else(|| no_such(table))?;
            let mut mtr = Mtr::new(&self.sh.store);
            let rec = LogRecord::SequenceState {
                table_id: table.id,
                next_not_cached: state.next_not_cached,
                cycle_count: state.cycle_count,
            };
            mtr.log_logical(&rec.encode());
            mtr.commit().1
        };
        blocking::run(|| self.sh.store.wal().flush_to(end))
    }

    /// The next AUTO_INCREMENT value (for SHOW CREATE TABLE / information_schema).
    pub fn peek_auto_increment(&self, table: &TableDef) -> u64 {
        self.sh.registry.with(table.id, |rt| rt.peek_auto_inc()).unwrap_or(1)
    }

    /// Counts the physical records of one index (0 = primary): (live, delete-marked). A full
    /// scan, for diagnostics and tests (purge removes delete-marked records once no read view
    /// needs them).
    pub fn physical_records(&self, table: &TableDef, index: usize) -> Result<(u64, u64)> {
        let ix = match index {
            0 => &table.primary,
            i => table.secondary.get(i - 1).ok_or_else(|| StorageError::NoSuchIndex { name: format!("#{i}") })?,
        };
        let mut cursor = BTree::open(ix.root).cursor(Bound::Unbounded, Bound::Unbounded, false);
        let (mut live, mut marked) = (0, 0);
        while let Some((_, v)) = cursor.next(&self.sh.store)? {
            if RecHeader::parse(&v)?.deleted {
                marked += 1;
            } else {
                live += 1;
            }
        }
        Ok((live, marked))
    }

    pub fn status(&self) -> EngineStatus {
        let [read, inserted, updated, deleted] = self.sh.trx.merged_stats();
        let locks = self.sh.locks.stats();
        let buf = self.sh.store.stats();
        let wal = self.sh.store.wal().stats();
        let mut rows: Vec<(String, String)> = Vec::new();
        let mut add = |name: &str, v: u64| rows.push((name.to_string(), v.to_string()));
        add("Innodb_buffer_pool_pages_data", buf.frames - buf.free_frames);
        add("Innodb_buffer_pool_pages_dirty", buf.dirty_frames);
        add("Innodb_buffer_pool_pages_free", buf.free_frames);
        add("Innodb_buffer_pool_pages_total", buf.frames);
        add("Innodb_buffer_pool_reads", buf.page_reads);
        add("Innodb_buffer_pool_wait_free", buf.free_frame_waits);
        add("Selkie_buffer_pool_evictions", buf.evictions);
        add("Selkie_buffer_pool_eviction_assists", buf.eviction_assists);
        add("Innodb_checkpoint_age", self.sh.store.wal().checkpoint_age());
        add("Innodb_checkpoint_lsn", buf.checkpoint_lsn);
        add("Innodb_checkpoint_max_age", self.sh.store.wal().sync_age());
        add("Innodb_checkpoints", buf.checkpoints);
        add("Innodb_deadlocks", locks.deadlocks);
        add("Innodb_history_list_length", (self.sh.trx.history_len() + self.sh.purge_queues.backlog()) as u64);
        add("Innodb_log_waits", wal.ring_full_waits);
        add("Innodb_lsn_current", self.sh.store.wal().ready_lsn());
        add("Innodb_lsn_flushed", self.sh.store.wal().flushed_lsn());
        add("Innodb_os_log_fsyncs", wal.fsyncs);
        add("Innodb_os_log_written", wal.bytes_written);
        add("Innodb_pages_written", buf.page_writes);
        add("Innodb_row_lock_current_waits", locks.current_waits);
        add("Innodb_row_lock_timeouts", locks.timeouts);
        add("Innodb_row_lock_waits", locks.waits);
        add("Innodb_rows_deleted", deleted);
        add("Innodb_rows_inserted", inserted);
        add("Innodb_rows_read", read);
        add("Innodb_rows_updated", updated);
        add("Selkie_active_transactions", self.sh.trx.active_count() as u64);
        add("Selkie_commit_groups", wal.commit_groups);
        add("Selkie_group_committed_waiters", wal.group_committed_waiters);
        add("Selkie_log_space_waits", wal.space_waits);
        add("Selkie_log_throttle_waits", wal.admit_waits);
        add("Selkie_pages_repaired_from_doublewrite", self.sh.store.repaired_at_open() as u64);
        add("Selkie_pending_tree_frees", self.sh.purge_queues.pending_frees() as u64);
        add("Selkie_pending_trees", self.sh.pending_trees.len() as u64);
        add("Selkie_writes_stopped", u64::from(self.sh.store.wal().halted().is_some()));
        EngineStatus { rows }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Purge stops with the engine handle; the page store and log are shut down when the
        // last session lets go of the shared state (see `Drop for Shared`).
        if let Some(p) = self.purge.lock().take() {
            p.stop();
        }
    }
}

impl Scan {
    pub fn next(&mut self, trx: &mut Transaction) -> Result<Option<ScanRow>> {
        self.st.next(&mut trx.st)
    }
}

impl Transaction {
    pub fn isolation(&self) -> IsolationLevel {
        self.st.opts.isolation
    }

    pub fn options(&self) -> TrxOptions {
        self.st.opts
    }

    /// True once the transaction has done anything the engine must undo or release: read with
    /// a snapshot, locked, or changed something. (MariaDB registers the engine in a transaction
    /// at that point; a savepoint set before it rolls the engine's transaction back whole.)
    pub fn is_started(&self) -> bool {
        self.st.holds_anything()
    }

    /// True once the transaction has changed anything (it then holds a transaction id).
    pub fn has_writes(&self) -> bool {
        self.st.has_writes()
    }

    /// Marks a statement boundary: the savepoint for `rollback_statement`; under READ COMMITTED the
    /// next consistent read takes a fresh read view.
    pub fn begin_statement(&mut self) {
        self.st.begin_statement()
    }

    /// Undoes every change made since `begin_statement` (locks stay held, as in InnoDB).
    pub fn rollback_statement(&mut self) -> Result<()> {
        if self.st.statement_undo_records() > LONG_ROLLBACK_RECORDS {
            return blocking::run(|| self.st.rollback_statement());
        }
        self.st.rollback_statement()
    }

    /// A savepoint here (SAVEPOINT). Valid until the transaction ends.
    pub fn savepoint(&mut self) -> Savepoint {
        Savepoint { st: self.st.savepoint() }
    }

    /// Undoes every change made since `sp` (ROLLBACK TO SAVEPOINT), newest first; row locks stay
    /// held, as in InnoDB. If this fails half way, the transaction can only be rolled back.
    pub fn rollback_to_savepoint(&mut self, sp: &Savepoint) -> Result<()> {
        // Bounded by the whole transaction's records (the savepoint's own count is not exposed).
        if self.st.undo_records() > LONG_ROLLBACK_RECORDS {
            return blocking::run(|| self.st.rollback_to(&sp.st));
        }
        self.st.rollback_to(&sp.st)
    }

    /// Consistent read of one row by primary key values (full key). Never scans.
    pub fn get(&mut self, table: &Arc<TableDef>, pk: &[Datum]) -> Result<Option<ScanRow>> {
        self.st.sess.sh.check_open()?;
        table::get(&mut self.st, table, pk)
    }

    /// Scans `index` (0 = primary, i = `secondary[i-1]`) over `range`, in key order or reverse.
    /// Rows come back whole (a secondary index scan looks up the clustered row and re-checks that
    /// the version it returns still has the indexed values).
    pub fn scan(
        &mut self,
        table: &Arc<TableDef>,
        index: usize,
        range: KeyRange,
        reverse: bool,
        mode: ReadMode,
    ) -> Result<Scan> {
        Ok(Scan { st: ScanState::open(&mut self.st, table, index, range, reverse, mode)? })
    }

    /// Locking read of the latest committed version (SELECT ... FOR UPDATE / LOCK IN SHARE MODE,
    /// and before every UPDATE/DELETE of a row). Waits for conflicting locks (1205 on timeout,
    /// 1213 on deadlock: then the whole transaction has been rolled back). `None` if the row no
    /// longer exists.
    pub async fn lock_row(&mut self, table: &Arc<TableDef>, pk_key: &[u8], mode: LockMode) -> Result<Option<ScanRow>> {
        table::lock_row(&mut self.st, table, pk_key, mode).await
    }

    /// `lock_row` without waiting (SELECT ... SKIP LOCKED / NOWAIT): `None` when another
    /// transaction holds a conflicting lock on the row; nothing is queued then.
    pub fn try_lock_row(
        &mut self,
        table: &Arc<TableDef>,
        pk_key: &[u8],
        mode: LockMode,
    ) -> Result<Option<Option<ScanRow>>> {
        table::try_lock_row(&mut self.st, table, pk_key, mode)
    }

    /// The lock wait timeout of this transaction's locking reads from now on (a statement's
    /// `WAIT n`); None: the transaction's own (`TrxOptions::lock_wait_timeout`) again.
    pub fn set_statement_lock_wait(&mut self, timeout: Option<Duration>) {
        self.st.statement_lock_wait = timeout;
    }

    /// Before each row write: waits at the log's sync point or while the log has no disk space
    /// (asynchronously), refuses writes after fail-stop, and for a row with values that go to
    /// overflow pages makes sure the tablespace can hold them before anything changes (docs
    /// §4.10).
    async fn admit_row_write(&self, table: &TableDef, row: Option<&[Datum]>) -> Result<()> {
        let store = &self.st.sess.sh.store;
        store.wal().admit_write().await?;
        let long = |d: &Datum| match d {
            Datum::Bytes(b) if b.len() > OVERFLOW_CHECK_BYTES => b.len(),
            _ => 0,
        };
        let long_bytes: usize = row.map_or(0, |r| r.iter().map(long).sum());
        if long_bytes > 0 {
            let pages = (long_bytes / crate::buffer::PAGE_SIZE) as u64 + 1;
            store.ensure_free_space(pages + ALLOC_HEADROOM).map_err(|e| e.with_table(&table.name))?;
        }
        Ok(())
    }

    /// Inserts a full row (every column, in table order; AUTO_INCREMENT already filled in).
    pub async fn insert(
        &mut self,
        table: &Arc<TableDef>,
        row: Vec<Datum>,
        on_dup: OnDuplicate,
    ) -> Result<InsertOutcome> {
        self.check_writable(table)?;
        self.admit_row_write(table, Some(&row)).await?;
        table::insert(&mut self.st, table, row, on_dup).await.map_err(|e| e.with_table(&table.name))
    }

    /// Replaces the row identified by `pk_key` (which the caller locked with `lock_row`
    /// Exclusive and whose current contents are `old`). If the primary key changes the row moves.
    pub async fn update(
        &mut self,
        table: &Arc<TableDef>,
        pk_key: &[u8],
        old: &[Datum],
        new: Vec<Datum>,
    ) -> Result<Vec<u8>> {
        // The stored row (read under the lock) is authoritative for the old index entries;
        // `old` is what the caller saw and must be the same.
        let _ = old;
        self.check_writable(table)?;
        self.admit_row_write(table, Some(&new)).await?;
        table::update(&mut self.st, table, pk_key, new).await.map_err(|e| e.with_table(&table.name))
    }

    /// Deletes the row (locked by the caller with `lock_row` Exclusive; `old` = its contents).
    pub async fn delete(&mut self, table: &Arc<TableDef>, pk_key: &[u8], old: &[Datum]) -> Result<()> {
        let _ = old;
        self.check_writable(table)?;
        self.admit_row_write(table, None).await?;
        table::delete(&mut self.st, table, pk_key).await.map_err(|e| e.with_table(&table.name))
    }

    /// Refuses a change to a table a DDL is rebuilding: it would miss the structure being built
    /// (the new index). A statement that changes tables takes `write_statement_guard`, which
    /// waits for such a DDL and never lets this fire; a caller without it gets 1412 rather than
    /// a corrupt index. One atomic load while no table is being rebuilt.
    #[inline]
    fn check_writable(&self, table: &TableDef) -> Result<()> {
        if self.st.sess.sh.write_blocks.is_blocked(table.id) {
            return Err(StorageError::TableDefinitionChanged);
        }
        Ok(())
    }

    /// Reserves `count` consecutive AUTO_INCREMENT values; returns the first.
    pub fn auto_increment_next(&mut self, table: &TableDef, count: u64) -> Result<u64> {
        self.st.sess.sh.check_open()?;
        let (first, next) = self
            .st
            .sess
            .sh
            .registry
            .with(table.id, |rt| rt.reserve_auto_inc(count))
            .ok_or_else(|| StorageError::NoSuchTable { db: table.db.clone(), name: table.name.clone() })?;
        // Logged with the transaction's next mtr (usually the insert that uses the value), so a
        // restart never hands out a value again.
        self.st.note_auto_inc(table.id, next);
        Ok(first)
    }

    /// Gives back AUTO_INCREMENT values `first..end` that `auto_increment_next` reserved and no
    /// row used (the statement's rows were all refused before they took one, as MariaDB
    /// checks CHECK constraints before it takes a value), if nothing was reserved since.
    pub fn auto_increment_release(&mut self, table: &TableDef, first: u64, end: u64) {
        let released = self.st.sess.sh.registry.with(table.id, |rt| rt.release_auto_inc(first, end));
        if released == Some(true) {
            self.st.unnote_auto_inc(table.id, first, end);
        }
    }

    /// Tells the engine a row was inserted with an explicit AUTO_INCREMENT value, so later
    /// generated values are above it.
    pub fn auto_increment_observe(&mut self, table: &TableDef, value: u64) {
        if let Some(Some(next)) = self.st.sess.sh.registry.with(table.id, |rt| rt.observe_auto_inc(value)) {
            self.st.note_auto_inc(table.id, next);
        }
    }

    /// Commits; returns once durable per the flush mode (group commit).
    pub async fn commit(self) -> Result<()> {
        let mut st = self.st;
        if st.has_writes() {
            // After a log failure the commit record could never be durable: the transaction is
            // rolled back (in memory) instead of becoming visible.
            st.sess.sh.store.wal().check_commit()?;
        }
        let end = st.commit_begin()?;
        let sess = st.sess.clone();
        drop(st);
        if let Some(end) = end {
            sess.sh.store.wal().wait_commit(end).await?;
        }
        Ok(())
    }

    pub fn rollback(self) -> Result<()> {
        let mut st = self.st;
        if st.undo_records() > LONG_ROLLBACK_RECORDS {
            return blocking::run(|| st.rollback_all());
        }
        st.rollback_all()
    }
}

fn not_a_sequence(table: &TableDef) -> StorageError {
    StorageError::NotASequence { db: table.db.clone(), name: table.name.clone() }
}

fn no_such(table: &TableDef) -> StorageError {
    StorageError::NoSuchTable { db: table.db.clone(), name: table.name.clone() }
}

/// The latest row of `t` with clustered key `pk_key`, for an index build's duplicate-key
/// error: MariaDB's index build shows the value of the row already in the index (under a `_ci`
/// collation 'a', where the row that collided says 'A').
/// In a unique index being built (`tree`, unreachable to transactions), the primary key of the
/// row whose entry already has the key columns of `entry`, the entry of the row `pk_key`.
fn unique_holder(store: &PageStore, tree: &BTree, entry: &[u8], pk_key: &[u8]) -> Result<Option<Vec<u8>>> {
    let prefix = &entry[..entry.len() - pk_key.len()];
    let upper = keycodec::prefix_successor(prefix).map_or(Bound::Unbounded, Bound::Excluded);
    let found = tree.cursor(Bound::Included(prefix.to_vec()), upper, false).next(store)?;
    Ok(found.map(|(existing, _)| existing[prefix.len()..].to_vec()))
}

pub(crate) fn indexed_row(store: &PageStore, t: &TableDef, pk_key: &[u8]) -> Result<Option<Vec<Datum>>> {
    match BTree::open(t.primary.root).get(store, pk_key)? {
        Some(v) => Ok(Some(rowcodec::decode_table_row(t, &v[HEADER_LEN..])?)),
        None => Ok(None),
    }
}
