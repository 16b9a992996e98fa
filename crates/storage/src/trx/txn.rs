//! One transaction's state and life cycle: id assignment at the first write, read views, row
//! locks, the one-mtr-per-index-change write primitive, commit, rollback and statement rollback
//! (docs/architecture.md §3, §4.7). Row-level operations on tables are in `table.rs`.

use std::collections::HashMap;
use std::sync::Arc;

use smallvec::SmallVec;

use crate::btree::{BTree, Change};
use crate::buffer::PageId;
use crate::engine::{SlotLease, TrxOptions};
use crate::error::{Result, StorageError};
use crate::lock::{LockError, LockKey, LockOwner};
use crate::mtr::Mtr;
use crate::trx::logrec::LogRecord;
use crate::trx::record::{self, with_header, RecHeader, Resolved};
use crate::trx::undo::{UndoEntry, UndoLog};
use crate::trx::{FinishedTrx, ReadView, SessionStats};
use crate::types::*;
use crate::wal::Lsn;

/// What a write expects to find under its key (checked under the leaf latch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Absent or delete-marked (an insert).
    Free,
    /// Present and not delete-marked (an update or delete of a locked row).
    Live,
    /// Whatever is there (secondary index entries).
    Any,
}

/// The index record tree a write goes to.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    pub index_id: IndexId,
    pub root: PageId,
}

impl Target {
    pub fn of(ix: &IndexDef) -> Target {
        Target { index_id: ix.id, root: ix.root }
    }
}

pub struct TrxState {
    /// The session (its slot, and the engine through it): cloning this per-session Arc, not the
    /// engine's, keeps transactions from writing a shared reference count.
    pub sess: Arc<SlotLease>,
    pub slot: usize,
    pub opts: TrxOptions,
    owner: LockOwner,
    id: Option<u64>,
    undo: Option<Arc<UndoLog>>,
    first_lsn: Lsn,
    view: Option<ReadView>,
    /// Undo log length at the start of the current statement.
    stmt_mark: usize,
    /// Locks granted to this transaction, by key.
    granted: HashMap<LockKey, LockMode>,
    /// Keys whose wait failed: the grant may have raced the failure, so they are released at
    /// the end too (releasing a lock one does not hold is a no-op).
    failed_waits: Vec<LockKey>,
    /// AUTO_INCREMENT advances not yet logged: (table, next value).
    pending_auto_inc: Vec<(TableId, u64)>,
    stmt_row_deltas: SmallVec<[(TableId, i64); 2]>,
    trx_row_deltas: SmallVec<[(TableId, i64); 2]>,
    written_tables: SmallVec<[TableId; 4]>,
    /// Index record changes made and undone so far (readers caching what they saw compare it).
    write_count: u64,
    /// Set when rollback failed half way: the transaction stays registered as active (so no one
    /// ever sees its partial state) and holds its locks until the process ends.
    poisoned: bool,
}

fn add_delta(v: &mut SmallVec<[(TableId, i64); 2]>, table: TableId, d: i64) {
    match v.iter_mut().find(|e| e.0 == table) {
        Some(e) => e.1 += d,
        None => v.push((table, d)),
    }
}

/// Moves pending AUTO_INCREMENT advances into an mtr's logical records.
fn log_auto_inc(pending: &mut Vec<(TableId, u64)>, mtr: &mut Mtr) {
    for (table_id, next) in pending.drain(..) {
        mtr.log_logical(&LogRecord::AutoInc { table_id, next }.encode());
    }
}

impl TrxState {
    pub fn begin(sess: Arc<SlotLease>, opts: TrxOptions) -> TrxState {
        let slot = sess.index;
        let owner = LockOwner(sess.sh.trx.next_owner(slot));
        TrxState {
            sess,
            slot,
            opts,
            owner,
            id: None,
            undo: None,
            first_lsn: Lsn::MAX,
            view: None,
            stmt_mark: 0,
            granted: HashMap::new(),
            failed_waits: Vec::new(),
            pending_auto_inc: Vec::new(),
            stmt_row_deltas: SmallVec::new(),
            trx_row_deltas: SmallVec::new(),
            written_tables: SmallVec::new(),
            write_count: 0,
            poisoned: false,
        }
    }

    pub fn id(&self) -> Option<u64> {
        self.id
    }

    pub fn has_writes(&self) -> bool {
        self.id.is_some()
    }

    /// Changes whenever this transaction changes (or restores) an index record.
    pub fn write_count(&self) -> u64 {
        self.write_count
    }

    pub fn stats(&self) -> &SessionStats {
        &self.sess.sh.trx.slot(self.slot).stats
    }

    /// True if anything (locks, a view, an id, pending log records) must be released.
    fn holds_anything(&self) -> bool {
        self.id.is_some()
            || self.view.is_some()
            || !self.granted.is_empty()
            || !self.failed_waits.is_empty()
            || !self.pending_auto_inc.is_empty()
    }

    // ---- read views ----

    /// The read view of consistent reads (None under READ UNCOMMITTED: reads see the latest
    /// versions). REPEATABLE READ / SERIALIZABLE keep the first one; READ COMMITTED drops it at
    /// each statement start.
    pub fn read_view(&mut self) -> Option<&ReadView> {
        if self.opts.isolation == IsolationLevel::ReadUncommitted {
            return None;
        }
        if self.view.is_none() {
            self.view = Some(self.sess.sh.trx.open_view(self.slot, self.id));
        }
        self.view.as_ref()
    }

    /// Opens the read view (if consistent reads have one) and fails with TableDefinitionChanged
    /// (1412) if it cannot use the tree of `index`: one created by a DDL the view does not see
    /// holds no versions from before that DDL.
    pub fn check_index_usable(&mut self, index: IndexId) -> Result<()> {
        if self.read_view().is_none() {
            return Ok(());
        }
        let view = self.view.as_ref().expect("opened above");
        if self.sess.sh.index_usable_by(index, view) {
            Ok(())
        } else {
            Err(StorageError::TableDefinitionChanged)
        }
    }

    /// The version of a record this transaction's consistent reads see (see `record::resolve`).
    pub fn resolve(&mut self, index_id: IndexId, key: &[u8], value: Vec<u8>) -> Result<Resolved> {
        if self.read_view().is_none() {
            return Ok(Resolved::Version(value));
        }
        let view = self.view.as_ref().expect("opened above");
        record::resolve(&self.sess.sh.trx.undo, view, self.id, index_id, key, value)
    }

    /// For latest reads of a record whose latest version is another active transaction's delete:
    /// the newest committed version (the row stays a candidate until that delete commits).
    pub fn resolve_committed(&self, index_id: IndexId, key: &[u8], value: Vec<u8>) -> Result<Resolved> {
        let trx = &self.sess.sh.trx;
        record::resolve_committed(&trx.undo, self.id, |id| trx.is_active(id), index_id, key, value)
    }

    /// Whether consistent reads see the changes of `trx_id`.
    pub fn sees(&mut self, trx_id: u64) -> bool {
        if Some(trx_id) == self.id {
            return true;
        }
        self.read_view().is_none_or(|v| v.sees(trx_id))
    }

    pub fn begin_statement(&mut self) {
        self.stmt_mark = self.undo.as_ref().map_or(0, |u| u.len());
        for (t, d) in std::mem::take(&mut self.stmt_row_deltas) {
            add_delta(&mut self.trx_row_deltas, t, d);
        }
        if self.opts.isolation == IsolationLevel::ReadCommitted && self.view.take().is_some() {
            self.sess.sh.trx.close_view(self.slot);
        }
    }

    // ---- locks ----

    /// Acquires a row lock (waiting as needed). On deadlock the whole transaction is rolled back
    /// before returning, as InnoDB does.
    pub async fn lock(&mut self, key: LockKey, mode: LockMode) -> Result<()> {
        if let Some(&held) = self.granted.get(&key) {
            if held == LockMode::Exclusive || held == mode {
                return Ok(());
            }
        }
        let r = self.sess.sh.locks.lock(self.owner, &key, mode, self.opts.lock_wait_timeout).await;
        match r {
            Ok(()) => {
                let m = match self.granted.get(&key) {
                    Some(LockMode::Exclusive) => LockMode::Exclusive,
                    _ => mode,
                };
                self.granted.insert(key, m);
                Ok(())
            }
            Err(LockError::Timeout) => {
                self.failed_waits.push(key);
                Err(StorageError::LockWaitTimeout)
            }
            Err(LockError::Deadlock) => {
                self.failed_waits.push(key);
                self.rollback_all()?;
                Err(StorageError::Deadlock)
            }
        }
    }

    fn release_locks(&mut self) {
        if !self.granted.is_empty() || !self.failed_waits.is_empty() {
            self.sess.sh.locks.release_all(self.owner, self.granted.keys().chain(self.failed_waits.iter()));
            self.granted.clear();
            self.failed_waits.clear();
        }
    }

    // ---- writes ----

    /// Makes the transaction read-write (assigns its id at the first write) and records that it
    /// changes `table`.
    pub fn prepare_write(&mut self, table: Option<TableId>) -> Result<()> {
        if self.opts.read_only {
            return Err(StorageError::ReadOnlyTransaction);
        }
        self.sess.sh.check_open()?;
        if self.poisoned {
            return Err(StorageError::Corruption("transaction failed to roll back; reconnect".into()));
        }
        if self.id.is_none() {
            // A lower bound of our first LSN is published before anything is logged, so a
            // checkpoint never moves the recovery scan start past our undo records.
            let first = self.sess.sh.store.wal().ready_lsn();
            // The active array has one entry per session slot, so it cannot be full while this
            // session holds its slot; the error only guards the invariant.
            let id = self.sess.sh.trx.assign_trx_id(self.slot, first).ok_or(StorageError::TooManySessions)?;
            let undo = Arc::new(UndoLog::new(id));
            self.sess.sh.trx.undo.insert(undo.clone());
            self.id = Some(id);
            self.undo = Some(undo);
            self.first_lsn = first;
            self.stmt_mark = 0;
        }
        if let Some(t) = table {
            if !self.written_tables.contains(&t) {
                self.written_tables.push(t);
                self.sess.sh.trx.note_written_table(self.slot, t);
            }
        }
        Ok(())
    }

    /// Writes a new version of one index record as ONE mtr: under the leaf latch, check `expect`,
    /// keep the current value as the before-image (undo log entry + logical undo record) and put
    /// `header(our id, roll_ptr, deleted) | payload`. `on_unexpected` makes the error returned if `expect` fails.
    pub fn write_version(
        &mut self,
        target: Target,
        key: &[u8],
        payload: &[u8],
        deleted: bool,
        expect: Expect,
        on_unexpected: impl FnOnce() -> StorageError,
    ) -> Result<()> {
        let Target { index_id, root } = target;
        let (id, undo) = match (self.id, &self.undo) {
            (Some(id), Some(u)) => (id, u),
            _ => unreachable!("prepare_write runs before every write"),
        };
        let roll_ptr = undo.next_roll_ptr();
        let new_value = with_header(RecHeader { trx_id: id, roll_ptr, deleted }, payload);
        let store = &self.sess.sh.store;
        let mut mtr = Mtr::new(store);
        let outcome = BTree::open(root).modify(&mut mtr, key, |cur| {
            let live = match cur {
                None => None,
                Some(v) => match RecHeader::parse(v) {
                    Ok(h) => Some(!h.deleted),
                    Err(e) => return (Change::Keep, Err(e)),
                },
            };
            let ok = match expect {
                Expect::Free => live != Some(true),
                Expect::Live => live == Some(true),
                Expect::Any => true,
            };
            if !ok {
                return (Change::Keep, Ok(None));
            }
            (Change::Put(new_value), Ok(Some(cur.map(|c| c.to_vec()))))
        });
        let before = match outcome {
            Ok(Ok(Some(before))) => before,
            Ok(Ok(None)) => {
                mtr.commit();
                return Err(on_unexpected());
            }
            Ok(Err(e)) | Err(e) => {
                mtr.commit();
                return Err(e);
            }
        };
        let rec = LogRecord::Undo { trx_id: id, index_id, key, before: before.as_deref() };
        mtr.log_logical(&rec.encode());
        log_auto_inc(&mut self.pending_auto_inc, &mut mtr);
        // The undo entry must exist before the latch is released: a reader may follow the new
        // version's roll pointer right after.
        let pushed = undo.push(UndoEntry {
            index_id,
            root,
            key: key.into(),
            before: before.map(Vec::into_boxed_slice),
            marks_deleted: deleted,
        });
        debug_assert_eq!(pushed, roll_ptr);
        mtr.commit();
        self.write_count += 1;
        Ok(())
    }

    pub fn note_auto_inc(&mut self, table: TableId, next: u64) {
        match self.pending_auto_inc.iter_mut().find(|e| e.0 == table) {
            Some(e) => e.1 = e.1.max(next),
            None => self.pending_auto_inc.push((table, next)),
        }
    }

    pub fn note_row_delta(&mut self, table: TableId, d: i64) {
        add_delta(&mut self.stmt_row_deltas, table, d);
    }

    /// Logs pending AUTO_INCREMENT advances in an mtr of their own (transactions that end
    /// without another write).
    fn flush_pending_auto_inc(&mut self) {
        if !self.pending_auto_inc.is_empty() {
            let mut mtr = Mtr::new(&self.sess.sh.store);
            log_auto_inc(&mut self.pending_auto_inc, &mut mtr);
            mtr.commit();
        }
    }

    /// Restores one before-image (rollback). Idempotent: sets the key to exactly `before`.
    fn restore(&self, e: &UndoEntry) -> Result<()> {
        let mut mtr = Mtr::with_space_reserve(&self.sess.sh.store);
        BTree::open(e.root).modify(&mut mtr, &e.key, |cur| match (&e.before, cur) {
            (None, None) => (Change::Keep, ()),
            (None, Some(_)) => (Change::Remove, ()),
            (Some(b), _) => (Change::Put(b.to_vec()), ()),
        })?;
        mtr.commit();
        Ok(())
    }

    /// Undoes every change since `begin_statement`; locks stay held.
    pub fn rollback_statement(&mut self) -> Result<()> {
        self.sess.sh.check_open()?;
        self.stmt_row_deltas.clear();
        let Some(undo) = self.undo.clone() else { return Ok(()) };
        let undone = undo.truncate(self.stmt_mark);
        self.write_count += 1;
        for e in undone.iter().rev() {
            self.restore(e)?;
        }
        Ok(())
    }

    // ---- end of transaction ----

    /// Commits. Returns the LSN to wait for (None: nothing to wait for).
    pub fn commit_begin(&mut self) -> Result<Option<Lsn>> {
        self.commit_with(&[])
    }

    /// Commits with extra logical records in the commit mtr (DDL: AUTO_INCREMENT resets that
    /// take effect exactly when the commit does).
    pub fn commit_with(&mut self, extra: &[LogRecord]) -> Result<Option<Lsn>> {
        self.sess.sh.check_open()?;
        if self.poisoned {
            return Err(StorageError::Corruption("transaction failed to roll back; reconnect".into()));
        }
        let Some(id) = self.id else {
            self.flush_pending_auto_inc();
            self.end_common();
            return Ok(None);
        };
        let mut mtr = Mtr::new(&self.sess.sh.store);
        log_auto_inc(&mut self.pending_auto_inc, &mut mtr);
        for r in extra {
            mtr.log_logical(&r.encode());
        }
        mtr.log_logical(&LogRecord::Commit { trx_id: id }.encode());
        let (_, end) = mtr.commit();
        self.finish(id, true, end);
        for (t, d) in std::mem::take(&mut self.stmt_row_deltas) {
            add_delta(&mut self.trx_row_deltas, t, d);
        }
        let deltas = std::mem::take(&mut self.trx_row_deltas);
        if deltas.iter().any(|d| d.1 != 0) {
            let mut m = self.stats().row_deltas.lock();
            for (t, d) in deltas {
                *m.entry(t).or_insert(0) += d;
            }
        }
        self.end_common();
        Ok(Some(end))
    }

    /// Hands the undo log to purge and makes the transaction's outcome visible.
    fn finish(&mut self, id: u64, committed: bool, end: Lsn) {
        let undo = self.undo.take().expect("read-write transaction has an undo log");
        // History first, then the slot: the checkpoint hook never misses our first LSN.
        self.sess.sh.trx.push_history(
            self.slot,
            FinishedTrx { trx_id: id, undo, committed, first_lsn: self.first_lsn, end_lsn: end },
        );
        self.sess.sh.trx.deactivate(self.slot);
        self.sess.sh.trx.clear_written_tables(self.slot);
        self.written_tables.clear();
        self.id = None;
        self.first_lsn = Lsn::MAX;
    }

    /// Releases what every transaction end releases and starts afresh (a transaction object
    /// that survives a deadlock rollback behaves like a new one).
    fn end_common(&mut self) {
        self.release_locks();
        if self.view.take().is_some() {
            self.sess.sh.trx.close_view(self.slot);
        }
        self.pending_auto_inc.clear();
        self.stmt_row_deltas.clear();
        self.trx_row_deltas.clear();
        self.stmt_mark = 0;
        self.owner = LockOwner(self.sess.sh.trx.next_owner(self.slot));
    }

    /// Rolls the whole transaction back: restores before-images newest first (each in its own
    /// logged mtr), logs Abort, releases locks.
    pub fn rollback_all(&mut self) -> Result<()> {
        if self.sess.sh.is_closed() {
            // After shutdown or a simulated crash nothing may be written; recovery rolls the
            // transaction back at the next open.
            self.poisoned = true;
            self.release_locks();
            return Err(StorageError::ShuttingDown);
        }
        if self.poisoned {
            return Err(StorageError::Corruption("transaction failed to roll back; reconnect".into()));
        }
        let Some(id) = self.id else {
            self.flush_pending_auto_inc();
            self.end_common();
            return Ok(());
        };
        let undo = self.undo.clone().expect("read-write transaction has an undo log");
        let entries = undo.entries();
        for e in entries.iter().rev() {
            if let Err(err) = self.restore(e) {
                // Keep the transaction active and its locks held: nobody may see the partial
                // state. Recovery rolls it back after a restart.
                self.poisoned = true;
                return Err(err);
            }
        }
        let mut mtr = Mtr::new(&self.sess.sh.store);
        log_auto_inc(&mut self.pending_auto_inc, &mut mtr);
        mtr.log_logical(&LogRecord::Abort { trx_id: id }.encode());
        let (_, end) = mtr.commit();
        self.finish(id, false, end);
        self.end_common();
        Ok(())
    }
}

impl Drop for TrxState {
    fn drop(&mut self) {
        if self.sess.sh.is_closed() {
            // Nothing can be written any more; wake the lock waiters (their statements fail).
            self.release_locks();
            return;
        }
        if self.poisoned {
            // Its locks and slot stay taken: nobody may see its partial rollback.
            return;
        }
        if self.holds_anything() {
            if let Err(e) = self.rollback_all() {
                tracing::error!("rollback of a dropped transaction failed: {e}");
            }
        }
    }
}
