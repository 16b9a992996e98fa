//! The engine's public API: what the SQL layer calls.
//!
//! INTERFACE CONTRACT (frozen; the SQL layer is written against these signatures). Bodies are
//! implemented by the transactional layer (crate::trx, crate::lock, crate::table, crate::catalog).
//!
//! Concurrency model: `Engine` is shared (`Arc`). A `Transaction` belongs to one session and is
//! used by one task at a time (`Send`, not `Sync`). Methods that may wait for a row lock are
//! `async`; everything else returns without waiting on other transactions (it may do page I/O).

use std::ops::Bound;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::error::Result;
use crate::types::*;

/// `--flush-at-commit`, equivalent to innodb_flush_log_at_trx_commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushMode {
    /// 0: the log is written and synced about once a second.
    Lazy = 0,
    /// 1: durable at commit (group commit shares each fsync).
    Durable = 1,
    /// 2: written to the OS at commit, synced about once a second.
    WriteOnly = 2,
}

/// Fault injection for crash tests: simulates what a power failure does to unsynced writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultInjection {
    /// Writes are kept in process memory until the file is synced; SIGKILL then loses them,
    /// exactly like a power failure loses the OS page cache.
    pub lose_unsynced_writes: bool,
    /// Some page writes are made durable only halfway before the sync (a torn write), so a crash
    /// between write and sync leaves a torn page on disk.
    pub torn_page_writes: bool,
}

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
        }
    }
}

/// An immutable snapshot of all schema objects. Replaced as a whole when a DDL commits, so a
/// statement sees one consistent catalog without taking any lock.
#[derive(Debug, Default)]
pub struct Catalog {
    /// Incremented by every DDL; prepared statements re-plan when it changed.
    pub version: u64,
    pub databases: std::collections::BTreeMap<String, DatabaseDef>,
    /// Keyed by (database, table name); names are case-sensitive as on MariaDB/Linux.
    pub tables: std::collections::HashMap<(String, String), Arc<TableDef>>,
}

impl Catalog {
    pub fn table(&self, db: &str, name: &str) -> Option<&Arc<TableDef>> {
        self.tables.get(&(db.to_string(), name.to_string()))
    }
    pub fn database(&self, name: &str) -> Option<&DatabaseDef> {
        self.databases.get(name)
    }
    /// Tables of one database, sorted by name.
    pub fn tables_in(&self, db: &str) -> Vec<&Arc<TableDef>> {
        let mut v: Vec<_> = self.tables.values().filter(|t| t.db == db).collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }
}

/// A range over a prefix of an index's columns. `Included(vec![5])` on an index (a, b) as a lower
/// bound means "a >= 5"; as an upper bound "a <= 5" (all b). NULL sorts first, as in MariaDB.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyRange {
    pub lower: Bound<Vec<Datum>>,
    pub upper: Bound<Vec<Datum>>,
}

impl KeyRange {
    pub fn all() -> KeyRange {
        KeyRange { lower: Bound::Unbounded, upper: Bound::Unbounded }
    }
    pub fn point(key: Vec<Datum>) -> KeyRange {
        KeyRange { lower: Bound::Included(key.clone()), upper: Bound::Included(key) }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadMode {
    /// MVCC snapshot read (plain SELECT).
    Consistent,
    /// The latest version of every record, including other transactions' uncommitted changes
    /// (UPDATE/DELETE/locking reads collect candidates this way, then `lock_row` each one and
    /// re-check the row it returns).
    Latest,
}

/// One row produced by a scan. `pk_key` identifies the row for `lock_row`, `update`, `delete`.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanRow {
    pub pk_key: Vec<u8>,
    pub row: Vec<Datum>,
}

/// What `insert` does when a unique key (primary or secondary) already holds the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnDuplicate {
    /// Fail with `StorageError::DuplicateKey` (1062).
    Error,
    /// Do not insert; return `InsertOutcome::Duplicate` (INSERT IGNORE, ON DUPLICATE KEY UPDATE).
    /// The conflicting row is X-locked so the caller may update it.
    Report,
    /// Delete every conflicting row, then insert (REPLACE).
    Replace,
}

#[derive(Clone, Debug, PartialEq)]
pub enum InsertOutcome {
    Inserted { pk_key: Vec<u8> },
    /// `index` is 0 for the primary key, i+1 for `secondary[i]`.
    Duplicate { index: usize, pk_key: Vec<u8>, existing: Vec<Datum> },
    /// REPLACE: inserted after deleting `deleted` conflicting rows.
    Replaced { pk_key: Vec<u8>, deleted: usize },
}

#[derive(Clone, Copy, Debug)]
pub struct TrxOptions {
    pub isolation: IsolationLevel,
    pub read_only: bool,
    pub lock_wait_timeout: Duration,
}

/// Engine-wide status for SHOW STATUS / SHOW ENGINE ... STATUS (merged from per-worker counters
/// when read).
#[derive(Clone, Debug, Default)]
pub struct EngineStatus {
    pub rows: Vec<(String, String)>,
}

pub struct Engine {
    _private: (),
}

/// A session's registration with the engine (a slot in the active-transaction array). Dropping
/// it frees the slot.
pub struct SessionSlot {
    _private: (),
}

/// Held for the duration of one statement; DDL that changes or frees trees waits for all of them.
pub struct StatementGuard {
    _private: (),
}

impl Engine {
    /// Opens (creating if missing) the data directory, runs crash recovery and starts the
    /// background threads (log writer, page cleaner, purge).
    pub fn open(config: EngineConfig) -> Result<Arc<Engine>> {
        let _ = config;
        todo!("transactional layer")
    }

    /// Flushes everything, writes a final checkpoint and stops background threads.
    pub fn shutdown(&self) -> Result<()> {
        todo!("transactional layer")
    }

    /// The current catalog snapshot: one atomic load, no lock.
    pub fn catalog(&self) -> Arc<Catalog> {
        todo!("transactional layer")
    }

    /// Registers a session (one per client connection). Fails if `max_sessions` are registered.
    pub fn register_session(&self) -> Result<SessionSlot> {
        todo!("transactional layer")
    }

    pub fn begin(&self, slot: &SessionSlot, opts: TrxOptions) -> Transaction {
        let _ = (slot, opts);
        todo!("transactional layer")
    }

    /// Taken by every DML statement; released when dropped. Never held while a DDL method runs in
    /// the same session.
    pub async fn statement_guard(&self, slot: &SessionSlot) -> StatementGuard {
        let _ = slot;
        todo!("transactional layer")
    }

    // ---- DDL: each runs as its own internal transaction and commits durably. ----

    /// Returns false if it existed and `if_not_exists`.
    pub async fn create_database(&self, def: DatabaseDef, if_not_exists: bool) -> Result<bool> {
        let _ = (def, if_not_exists);
        todo!("transactional layer")
    }

    /// Drops the database and all its tables. Returns the number of tables dropped, or `None` if
    /// it did not exist and `if_exists`.
    pub async fn drop_database(&self, name: &str, if_exists: bool) -> Result<Option<usize>> {
        let _ = (name, if_exists);
        todo!("transactional layer")
    }

    /// Returns false if it existed and `if_not_exists`.
    pub async fn create_table(&self, table: NewTable, if_not_exists: bool) -> Result<bool> {
        let _ = (table, if_not_exists);
        todo!("transactional layer")
    }

    /// Returns false if it did not exist and `if_exists`.
    pub async fn drop_table(&self, db: &str, name: &str, if_exists: bool) -> Result<bool> {
        let _ = (db, name, if_exists);
        todo!("transactional layer")
    }

    pub async fn rename_table(&self, db: &str, name: &str, new_db: &str, new_name: &str) -> Result<()> {
        let _ = (db, name, new_db, new_name);
        todo!("transactional layer")
    }

    /// Builds the index over existing rows; fails with DuplicateKey if `unique` and violated.
    pub async fn create_index(&self, db: &str, table: &str, index: NewIndex) -> Result<()> {
        let _ = (db, table, index);
        todo!("transactional layer")
    }

    pub async fn drop_index(&self, db: &str, table: &str, index: &str) -> Result<()> {
        let _ = (db, table, index);
        todo!("transactional layer")
    }

    /// Empties the table (new empty trees; AUTO_INCREMENT restarts at 1).
    pub async fn truncate_table(&self, db: &str, table: &str) -> Result<()> {
        let _ = (db, table);
        todo!("transactional layer")
    }

    pub fn set_flush_mode(&self, mode: FlushMode) {
        let _ = mode;
        todo!("transactional layer")
    }

    /// Approximate number of rows (for SHOW TABLE STATUS / information_schema.TABLES).
    pub fn approx_row_count(&self, table: &TableDef) -> u64 {
        let _ = table;
        todo!("transactional layer")
    }

    /// The next AUTO_INCREMENT value (for SHOW CREATE TABLE / information_schema).
    pub fn peek_auto_increment(&self, table: &TableDef) -> u64 {
        let _ = table;
        todo!("transactional layer")
    }

    pub fn status(&self) -> EngineStatus {
        todo!("transactional layer")
    }
}

/// A scan in progress. Holds no page latch between calls to `next` (it re-seeks from the last key
/// it returned when it needs the next leaf), so it may be kept across `await`s.
pub struct Scan {
    _private: (),
}

impl Scan {
    pub fn next(&mut self, trx: &mut Transaction) -> Result<Option<ScanRow>> {
        let _ = trx;
        todo!("transactional layer")
    }
}

pub struct Transaction {
    _private: (),
}

impl Transaction {
    pub fn isolation(&self) -> IsolationLevel {
        todo!("transactional layer")
    }

    /// True once the transaction has changed anything (it then holds a transaction id).
    pub fn has_writes(&self) -> bool {
        todo!("transactional layer")
    }

    /// Marks a statement boundary: the savepoint for `rollback_statement`; under READ COMMITTED the
    /// next consistent read takes a fresh read view.
    pub fn begin_statement(&mut self) {
        todo!("transactional layer")
    }

    /// Undoes every change made since `begin_statement` (locks stay held, as in InnoDB).
    pub fn rollback_statement(&mut self) -> Result<()> {
        todo!("transactional layer")
    }

    /// Consistent read of one row by primary key values (full key). Never scans.
    pub fn get(&mut self, table: &Arc<TableDef>, pk: &[Datum]) -> Result<Option<ScanRow>> {
        let _ = (table, pk);
        todo!("transactional layer")
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
        let _ = (table, index, range, reverse, mode);
        todo!("transactional layer")
    }

    /// Locking read of the latest committed version (SELECT ... FOR UPDATE / LOCK IN SHARE MODE,
    /// and before every UPDATE/DELETE of a row). Waits for conflicting locks (1205 on timeout,
    /// 1213 on deadlock: then the whole transaction has been rolled back). `None` if the row no
    /// longer exists.
    pub async fn lock_row(&mut self, table: &Arc<TableDef>, pk_key: &[u8], mode: LockMode) -> Result<Option<ScanRow>> {
        let _ = (table, pk_key, mode);
        todo!("transactional layer")
    }

    /// Inserts a full row (every column, in table order; AUTO_INCREMENT already filled in).
    pub async fn insert(&mut self, table: &Arc<TableDef>, row: Vec<Datum>, on_dup: OnDuplicate) -> Result<InsertOutcome> {
        let _ = (table, row, on_dup);
        todo!("transactional layer")
    }

    /// Replaces the row identified by `pk_key` (which the caller locked with `lock_row`
    /// Exclusive and whose current contents are `old`). If the primary key changes the row moves.
    pub async fn update(&mut self, table: &Arc<TableDef>, pk_key: &[u8], old: &[Datum], new: Vec<Datum>) -> Result<Vec<u8>> {
        let _ = (table, pk_key, old, new);
        todo!("transactional layer")
    }

    /// Deletes the row (locked by the caller with `lock_row` Exclusive; `old` = its contents).
    pub async fn delete(&mut self, table: &Arc<TableDef>, pk_key: &[u8], old: &[Datum]) -> Result<()> {
        let _ = (table, pk_key, old);
        todo!("transactional layer")
    }

    /// Reserves `count` consecutive AUTO_INCREMENT values; returns the first.
    pub fn auto_increment_next(&mut self, table: &TableDef, count: u64) -> Result<u64> {
        let _ = (table, count);
        todo!("transactional layer")
    }

    /// Tells the engine a row was inserted with an explicit AUTO_INCREMENT value, so later
    /// generated values are above it.
    pub fn auto_increment_observe(&mut self, table: &TableDef, value: u64) {
        let _ = (table, value);
        todo!("transactional layer")
    }

    /// Commits; returns once durable per the flush mode (group commit).
    pub async fn commit(self) -> Result<()> {
        todo!("transactional layer")
    }

    pub fn rollback(self) -> Result<()> {
        todo!("transactional layer")
    }
}
