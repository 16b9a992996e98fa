//! One transaction's state and life cycle: id assignment at the first write, read views, row
//! locks, the one-mtr-per-index-change write primitive, commit, rollback and statement rollback
//! (docs/architecture.md §3, §4.7). Row-level operations on tables are in `table.rs`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use smallvec::SmallVec;

use crate::btree::{BTree, VersionedChange};
use crate::buffer::PageId;
use crate::error::{Result, StorageError};
use crate::lock::{LockError, LockKey, LockOwner};
use crate::mtr::Mtr;
use crate::shared::SlotLease;
use crate::testpoint::CrashPoint;
use crate::trx::big_value;
use crate::trx::logrec::LogRecord;
use crate::trx::purge;
use crate::trx::record::{self, with_header, RecHeader, Resolved, NO_ROLL_PTR};
use crate::trx::undo::{self, LiveRecords, LogState, UndoRecord, UndoWriter};
use crate::trx::{FinishedLog, FinishedTrx, ReadView, SessionStats};
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
    /// A table's clustered index: the key is the row's lock key.
    pub clustered: bool,
}

impl Target {
    pub fn of(ix: &IndexDef) -> Target {
        Target { index_id: ix.id, root: ix.root, clustered: ix.primary }
    }
}

/// A point of a transaction that `rollback_to` returns to: the newest live undo record then, how
/// many records had been written, and the row count changes made until then. Tied to one
/// transaction (its lock owner id): the engine refuses a savepoint of an earlier transaction of
/// the same session. A savepoint is valid until a rollback to an older one undoes past it (the
/// SQL layer drops such savepoints, as MariaDB does).
#[derive(Clone, Debug)]
pub struct TrxSavepoint {
    owner: LockOwner,
    last_undo: u64,
    records: u64,
    row_deltas: SmallVec<[(TableId, i64); 2]>,
}

impl TrxSavepoint {
    fn at_start(owner: LockOwner) -> TrxSavepoint {
        TrxSavepoint { owner, last_undo: NO_ROLL_PTR, records: 0, row_deltas: SmallVec::new() }
    }
}

/// A rollback reaches its test crash point (`CrashPoint::Rollback`) after every this many
/// restored records.
const ROLLBACK_CRASH_POINT_EVERY: u64 = 64;

fn must_roll_back() -> StorageError {
    StorageError::Corruption("a partial rollback failed; the transaction must be rolled back".into())
}

pub struct TrxState {
    /// The session (its slot, and the engine through it): cloning this per-session Arc, not the
    /// engine's, keeps transactions from writing a shared reference count.
    pub sess: Arc<SlotLease>,
    pub slot: usize,
    pub opts: TrxOptions,
    owner: LockOwner,
    id: Option<u64>,
    /// The undo log, from the first write on.
    undo: Option<UndoWriter>,
    /// Undo records written so far (only grows; partial rollbacks leave their records in place).
    undo_records: u64,
    view: Option<ReadView>,
    /// Where the current statement began: `rollback_statement` returns here.
    stmt_start: TrxSavepoint,
    /// Set when a partial rollback failed half way: the transaction may only be rolled back as a
    /// whole (its undo entries are intact, so that can still succeed).
    needs_full_rollback: bool,
    /// Locks granted to this transaction, by key: the mode, and `undo_records` when it was first
    /// granted (a partial rollback to before that releases it if it only covered an insert).
    granted: HashMap<LockKey, (LockMode, u64)>,
    /// Keys whose wait failed: the grant may have raced the failure, so they are released at
    /// the end too (releasing a lock one does not hold is a no-op).
    failed_waits: Vec<LockKey>,
    /// A statement's own lock wait timeout (`SELECT ... FOR UPDATE WAIT n`), over `opts`'.
    pub(crate) statement_lock_wait: Option<Duration>,
    /// AUTO_INCREMENT advances not yet logged: (table, next value).
    pending_auto_inc: Vec<(TableId, u64)>,
    stmt_row_deltas: SmallVec<[(TableId, i64); 2]>,
    trx_row_deltas: SmallVec<[(TableId, i64); 2]>,
    written_tables: SmallVec<[TableId; 4]>,
    /// Keys changed in tables an online rebuild copies (crate::row_log): (primary index, key),
    /// handed to the rebuild once the commit is visible.
    row_log_keys: Vec<(IndexId, Vec<u8>)>,
    /// Index record changes made and undone so far (readers caching what they saw compare it).
    write_count: u64,
    /// Records restored by rollbacks (crash tests stop a rollback half way by it).
    restored: u64,
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
            undo_records: 0,
            view: None,
            stmt_start: TrxSavepoint::at_start(owner),
            needs_full_rollback: false,
            granted: HashMap::new(),
            failed_waits: Vec::new(),
            statement_lock_wait: None,
            pending_auto_inc: Vec::new(),
            stmt_row_deltas: SmallVec::new(),
            trx_row_deltas: SmallVec::new(),
            written_tables: SmallVec::new(),
            row_log_keys: Vec::new(),
            write_count: 0,
            restored: 0,
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

    /// True if anything (locks, a view, an id, pending log records) must be released: the
    /// transaction has been used since it began.
    pub fn holds_anything(&self) -> bool {
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
        record::resolve(&self.sess.sh.store, view, self.id, index_id, key, value)
    }

    /// For latest reads of a record whose latest version is another active transaction's delete:
    /// the newest committed version (the row stays a candidate until that delete commits).
    pub fn resolve_committed(&self, index_id: IndexId, key: &[u8], value: Vec<u8>) -> Result<Resolved> {
        let trx = &self.sess.sh.trx;
        record::resolve_committed(&self.sess.sh.store, self.id, |id| trx.is_active(id), index_id, key, value)
    }

    /// Whether consistent reads see the changes of `trx_id`.
    pub fn sees(&mut self, trx_id: u64) -> bool {
        if Some(trx_id) == self.id {
            return true;
        }
        self.read_view().is_none_or(|v| v.sees(trx_id))
    }

    pub fn begin_statement(&mut self) {
        self.stmt_start = self.savepoint();
        if self.opts.isolation == IsolationLevel::ReadCommitted && self.view.take().is_some() {
            self.sess.sh.trx.close_view(self.slot);
        }
    }

    // ---- locks ----

    /// Acquires a row lock (waiting as needed). On deadlock the whole transaction is rolled back
    /// before returning, as InnoDB does.
    pub async fn lock(&mut self, key: LockKey, mode: LockMode) -> Result<()> {
        if let Some(&(held, _)) = self.granted.get(&key) {
            if held == LockMode::Exclusive || held == mode {
                return Ok(());
            }
        }
        let timeout = self.statement_lock_wait.unwrap_or(self.opts.lock_wait_timeout);
        let r = self.sess.sh.locks.lock(self.owner, &key, mode, timeout).await;
        match r {
            Ok(()) => {
                let entry = self.granted.entry(key).or_insert((mode, self.undo_records));
                if mode == LockMode::Exclusive {
                    entry.0 = LockMode::Exclusive;
                }
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

    /// Locks a row (its clustered key `key` in the tree at `root`), waiting as needed, InnoDB's
    /// way: the lock table holds explicit locks, and a row whose latest version another active
    /// transaction wrote is implicitly locked by that writer (trx/mod.rs `ImplicitLocks`). Once
    /// the explicit lock is ours, the row's writer is checked; if it is another active
    /// transaction, its implicit lock is made explicit and we wait for it, then look again.
    pub async fn lock_record(&mut self, index_id: IndexId, root: PageId, key: &[u8], mode: LockMode) -> Result<()> {
        let lk = LockKey::new(index_id, key);
        loop {
            let held_before = self.granted.contains_key(&lk);
            self.lock(lk.clone(), mode).await?;
            let Some(v) = BTree::open(root).get(&self.sess.sh.store, key)? else { return Ok(()) };
            let writer = RecHeader::parse(&v)?.trx_id;
            let sys = &self.sess.sh.trx;
            if Some(writer) == self.id || !sys.is_active(writer) {
                return Ok(());
            }
            if !sys.convert_implicit(writer, &lk, &self.sess.sh.locks) {
                continue; // it finished meanwhile: look again
            }
            // Our grant came while the writer held the row implicitly: give it up (it was
            // never ours to have) and queue behind the writer's now explicit lock.
            debug_assert!(!held_before, "a lock we held covered a row another transaction changed");
            if !held_before {
                self.granted.remove(&lk);
                self.sess.sh.locks.release_all(self.owner, std::iter::once(&lk));
            }
        }
    }

    /// Locks a row like `lock_record`, but only if that needs no wait (SKIP LOCKED, NOWAIT):
    /// false when another transaction holds a conflicting lock, explicit or implicit (its
    /// uncommitted change of the row). Never waits, so it is never part of a deadlock.
    pub fn try_lock_record(&mut self, index_id: IndexId, root: PageId, key: &[u8], mode: LockMode) -> Result<bool> {
        let lk = LockKey::new(index_id, key);
        let held_before = self.granted.get(&lk).is_some_and(|&(held, _)| held == LockMode::Exclusive || held == mode);
        let had_entry = self.granted.contains_key(&lk);
        if !held_before {
            if !self.sess.sh.locks.try_lock(self.owner, &lk, mode) {
                return Ok(false);
            }
            let entry = self.granted.entry(lk.clone()).or_insert((mode, self.undo_records));
            if mode == LockMode::Exclusive {
                entry.0 = LockMode::Exclusive;
            }
        }
        let Some(v) = BTree::open(root).get(&self.sess.sh.store, key)? else { return Ok(true) };
        let writer = RecHeader::parse(&v)?.trx_id;
        if Some(writer) == self.id || !self.sess.sh.trx.is_active(writer) {
            return Ok(true);
        }
        // Another active transaction changed the row: it holds it implicitly, and the grant
        // was never ours to have.
        if !had_entry {
            self.granted.remove(&lk);
            self.sess.sh.locks.release_all(self.owner, std::iter::once(&lk));
        }
        Ok(false)
    }

    /// After changing the row under `key` (its latest version names us): its explicit lock is
    /// redundant with the implicit one and goes away unless someone waits for it, so a
    /// transaction that changes millions of rows holds no lock memory for them.
    pub fn make_lock_implicit(&mut self, index_id: IndexId, key: &[u8]) {
        let lk = LockKey::new(index_id, key);
        if let Some(&(LockMode::Exclusive, _)) = self.granted.get(&lk) {
            if self.sess.sh.locks.release_if_unwaited(self.owner, &lk) {
                self.granted.remove(&lk);
            }
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
        if self.needs_full_rollback {
            return Err(must_roll_back());
        }
        if self.id.is_none() {
            // The active array has one entry per session slot, so it cannot be full while this
            // session holds its slot; the error only guards the invariant.
            let id = self.sess.sh.trx.assign_trx_id_for(self.slot, self.owner).ok_or(StorageError::TooManySessions)?;
            self.id = Some(id);
        }
        if let Some(t) = table {
            if !self.written_tables.contains(&t) {
                self.written_tables.push(t);
                self.sess.sh.trx.note_written_table(self.slot, t);
            }
        }
        Ok(())
    }

    /// The undo log, created at the first write (reusing the log the session slot kept, if any),
    /// with room for the next record.
    fn undo_for_write(&mut self) -> Result<&mut UndoWriter> {
        let id = self.id.expect("prepare_write runs before every write");
        if self.undo.is_none() {
            let sh = &self.sess.sh;
            let sys = &sh.trx;
            let cached = sys
                .take_cached_log(self.slot)
                .or_else(|| purge::reclaim_own_log(&sh.store, sys, &sh.purge_queues, self.slot));
            match UndoWriter::create(&sh.store, &sys.undo_logs, id, cached) {
                Ok(w) => self.undo = Some(w),
                Err(e) => {
                    if let Some(c) = cached {
                        sys.put_cached_log(self.slot, c);
                    }
                    return Err(e);
                }
            }
        }
        Ok(self.undo.as_mut().expect("created above"))
    }

    /// Writes a new version of one index record as ONE mtr: under the leaf latch, check `expect`,
    /// append the current value (as stored) to the undo log as the before-image and put
    /// `header(our id, roll_ptr, deleted) | payload`. `on_unexpected` makes the error returned if
    /// `expect` fails.
    pub fn write_version(
        &mut self,
        target: Target,
        key: &[u8],
        payload: &[u8],
        deleted: bool,
        expect: Expect,
        on_unexpected: impl FnOnce() -> StorageError,
    ) -> Result<()> {
        let Target { index_id, root, clustered } = target;
        let id = self.id.expect("prepare_write runs before every write");
        let sess = self.sess.clone();
        let store = &sess.sh.store;
        let undo = self.undo_for_write()?;
        let prev = undo.last;
        // A value larger than 4 MiB is too big to be written while its leaf is latched (the log
        // may need a checkpoint meanwhile): its chunks after the first are written ahead, as a
        // chain pending until the leaf's mtr links it (crate::pending_trees).
        let ahead = big_value::write_ahead(store, &sess.sh.pending_trees, &sess.sh.crash_points, payload)?;
        // Usually once; twice when the undo record does not fit in the log's current page: the
        // first try changes nothing and a spare page is linked in between (trx/undo.rs).
        let placed = loop {
            let mut mtr = Mtr::new(store);
            mtr.unhurried();
            undo.latch_pages(&mut mtr)?;
            let outcome = BTree::open(root).modify_versioned(&mut mtr, key, |cur| {
                let live = match &cur {
                    None => None,
                    Some(c) => match RecHeader::parse(c.value) {
                        Ok(h) => Some(!h.deleted),
                        Err(e) => return (VersionedChange::Keep, Err(e)),
                    },
                };
                let ok = match expect {
                    Expect::Free => live != Some(true),
                    Expect::Live => live == Some(true),
                    Expect::Any => true,
                };
                if !ok {
                    return (VersionedChange::Keep, Ok(Placed::Unexpected));
                }
                let before = cur.as_ref().map(|c| (c.chain, c.stored));
                let rec = undo::encode_record(prev, index_id, root, key, before, deleted, clustered);
                let Some(at) = undo.place(rec.len()) else {
                    return (VersionedChange::Keep, Ok(Placed::NeedsSpare));
                };
                let header = RecHeader { trx_id: id, roll_ptr: at.roll_ptr, deleted };
                // An overflow chain of the previous version now belongs to the undo record.
                let keep_old_chain = cur.as_ref().is_some_and(|c| c.chain);
                let change = match &ahead {
                    None => VersionedChange::Put { value: with_header(header, payload), keep_old_chain },
                    Some(a) => a.change(header, payload, keep_old_chain),
                };
                (change, Ok(Placed::At(rec, at)))
            });
            match outcome {
                Ok(Ok(Placed::At(rec, at))) => break Ok((mtr, rec, at)),
                Ok(Ok(Placed::NeedsSpare)) => {
                    mtr.commit();
                    if let Err(e) = undo.ensure_spare(store) {
                        break Err(e);
                    }
                }
                Ok(Ok(Placed::Unexpected)) => {
                    mtr.commit();
                    break Err(on_unexpected());
                }
                Ok(Err(e)) | Err(e) => {
                    mtr.commit();
                    break Err(e);
                }
            }
        };
        let (mut mtr, rec, at) = match placed {
            Ok(placed) => placed,
            Err(e) => {
                if let Some(a) = &ahead {
                    a.give_up(store);
                }
                return Err(e);
            }
        };
        // The tree has changed in this mtr: its undo record must be in the same log entry, or a
        // rollback could not undo it. Its page is latched already (`latch_pages`: no I/O and no
        // allocation can fail here); only a malformed undo page could make the append fail, and
        // then the change must not reach the log at all: stop the process before the mtr commits
        // (its drop would log the change), and recovery starts from a log without it.
        if let Err(e) = undo.append(&mut mtr, at, &rec) {
            tracing::error!(
                "cannot write the undo record of a change already made ({e}); stopping to protect the data"
            );
            std::process::abort();
        }
        log_auto_inc(&mut self.pending_auto_inc, &mut mtr);
        match &ahead {
            None => {
                mtr.commit();
            }
            Some(a) => a.commit_linked(mtr),
        }
        self.undo_records += 1;
        self.write_count += 1;
        if clustered && sess.sh.row_logs.is_logged(index_id) {
            self.row_log_keys.push((index_id, key.to_vec()));
        }
        Ok(())
    }

    pub fn note_auto_inc(&mut self, table: TableId, next: u64) {
        match self.pending_auto_inc.iter_mut().find(|e| e.0 == table) {
            Some(e) => e.1 = e.1.max(next),
            None => self.pending_auto_inc.push((table, next)),
        }
    }

    /// `auto_increment_release` gave back `first..end`: the counter to log is `first` again
    /// if `end` was the last one noted (else a later reservation or explicit value stands).
    pub fn unnote_auto_inc(&mut self, table: TableId, first: u64, end: u64) {
        if let Some(e) = self.pending_auto_inc.iter_mut().find(|e| e.0 == table && e.1 == end) {
            e.1 = first;
        }
    }

    pub fn note_row_delta(&mut self, table: TableId, d: i64) {
        add_delta(&mut self.stmt_row_deltas, table, d);
    }

    /// Logs pending AUTO_INCREMENT advances in an mtr of their own (transactions that end
    /// without another write).
    fn flush_pending_auto_inc(&mut self) {
        if self.sess.sh.store.is_read_only() {
            self.pending_auto_inc.clear(); // salvage mode logs nothing
        }
        if !self.pending_auto_inc.is_empty() {
            let mut mtr = Mtr::new(&self.sess.sh.store);
            log_auto_inc(&mut self.pending_auto_inc, &mut mtr);
            mtr.commit();
        }
    }

    /// Restores the before-image of one undo record and marks the record undone, in one mtr: a
    /// record is restored exactly once, whatever crash follows (another transaction may change
    /// the key once it is restored, and a second restore would undo that).
    fn restore(&self, rec: &UndoRecord) -> Result<()> {
        restore_record(&self.sess.sh.store, rec)
    }

    /// Counts a restored record; crash tests stop a rollback half way here.
    fn rollback_progress(&mut self) -> Result<()> {
        self.restored += 1;
        if self.restored.is_multiple_of(ROLLBACK_CRASH_POINT_EVERY) {
            self.sess.sh.crash_points.hit(CrashPoint::Rollback)?;
        }
        Ok(())
    }

    /// Undo records written so far (what a whole rollback has to restore).
    pub fn undo_records(&self) -> u64 {
        self.undo_records
    }

    /// A savepoint at this point of the transaction (SAVEPOINT, and each statement's start).
    pub fn savepoint(&mut self) -> TrxSavepoint {
        for (t, d) in std::mem::take(&mut self.stmt_row_deltas) {
            add_delta(&mut self.trx_row_deltas, t, d);
        }
        TrxSavepoint {
            owner: self.owner,
            last_undo: self.undo.as_ref().map_or(NO_ROLL_PTR, |u| u.last),
            records: self.undo_records,
            row_deltas: self.trx_row_deltas.clone(),
        }
    }

    /// Undoes every change made since `sp`, newest first (InnoDB's partial rollback). Row locks
    /// stay held. Each record is restored and marked undone in one mtr, so a failure half way
    /// loses nothing: the records not yet restored are still there, and the transaction can
    /// still be rolled back as a whole (it refuses anything else until then).
    pub fn rollback_to(&mut self, sp: &TrxSavepoint) -> Result<()> {
        self.sess.sh.check_open()?;
        if sp.owner != self.owner {
            return Err(StorageError::Corruption("savepoint of another transaction".into()));
        }
        self.stmt_row_deltas.clear();
        self.trx_row_deltas = sp.row_deltas.clone();
        let Some(undo) = &self.undo else { return Ok(()) };
        let (trx_id, last) = (undo.trx_id, undo.last);
        if last == sp.last_undo {
            return Ok(());
        }
        self.write_count += 1;
        let sess = self.sess.clone();
        for rec in LiveRecords::new(&sess.sh.store, trx_id, last) {
            let rec = match rec {
                Ok(r) => r,
                Err(e) => {
                    self.needs_full_rollback = true;
                    return Err(e);
                }
            };
            if rec.roll_ptr == sp.last_undo {
                break;
            }
            let was_insert = match &rec.before {
                undo::Before::Absent => true,
                undo::Before::Inline(b) => RecHeader::parse(b).is_ok_and(|h| h.deleted),
                // A chain holds a whole row version: never a delete-marked one of an insert's key
                // (delete-marking keeps the row), so not an insert either way worth telling apart.
                undo::Before::Chain(_) => false,
            };
            if rec.clustered && !was_insert {
                // The row was locked (UPDATE, DELETE) and only implicitly since its change: the
                // lock stays after the change is undone, as InnoDB keeps it (explicitly).
                self.retake_lock(&rec);
            }
            if let Err(e) = self.restore(&rec).and_then(|_| self.rollback_progress()) {
                self.needs_full_rollback = true;
                return Err(e);
            }
            if let Some(u) = self.undo.as_mut() {
                u.rewind_to(rec.prev);
            }
            if was_insert {
                self.release_insert_locks(&rec, sp.records);
            }
        }
        if self.undo.as_ref().is_some_and(|u| u.last != sp.last_undo) {
            // The savepoint was not on the live chain (a rollback to an older one undid past it).
            self.needs_full_rollback = true;
            return Err(StorageError::Corruption("savepoint no longer valid (rolled back past it)".into()));
        }
        Ok(())
    }

    /// Takes an explicit X lock on the row of a clustered undo record before its change is undone
    /// (nothing can conflict: the row is ours implicitly until then).
    fn retake_lock(&mut self, rec: &UndoRecord) {
        let lk = LockKey::new(rec.index_id, &rec.key);
        if self.granted.contains_key(&lk) {
            return;
        }
        if self.sess.sh.locks.try_lock(self.owner, &lk, LockMode::Exclusive) {
            self.granted.insert(lk, (LockMode::Exclusive, 0));
        } else {
            tracing::warn!("a partial rollback could not keep the lock of a row it changed");
        }
    }

    /// After a partial rollback to `since` (undo records written then) removed a record this
    /// transaction inserted: releases the lock taken for the insert on it (its clustered key, or
    /// the column values of a unique secondary index) if it was first taken after `since`. InnoDB
    /// holds only an implicit lock on an inserted record, which goes away with the record, while
    /// the explicit locks of locking reads, UPDATE and DELETE stay until the transaction ends. A
    /// unique value's lock key is the entry's key without its clustered-key suffix; since each
    /// column's encoding is self-delimiting, at most one prefix of the entry can be it.
    fn release_insert_locks(&mut self, rec: &UndoRecord, since: u64) {
        let candidates: Vec<LockKey> = if rec.clustered {
            vec![LockKey::new(rec.index_id, &rec.key)]
        } else {
            (1..=rec.key.len()).rev().map(|len| LockKey::new(rec.index_id, &rec.key[..len])).collect()
        };
        for key in candidates {
            if let Some(&(_, taken_at)) = self.granted.get(&key) {
                if taken_at >= since {
                    self.granted.remove(&key);
                    self.sess.sh.locks.release_all(self.owner, std::iter::once(&key));
                }
                break;
            }
        }
    }

    /// Undo records written since the statement began (at most what `rollback_statement`
    /// restores: records a partial rollback undid are still counted).
    pub fn statement_undo_records(&self) -> u64 {
        self.undo_records.saturating_sub(self.stmt_start.records)
    }

    /// Undoes every change since `begin_statement`; locks stay held.
    pub fn rollback_statement(&mut self) -> Result<()> {
        let start = self.stmt_start.clone();
        self.rollback_to(&start)
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
        if self.needs_full_rollback {
            return Err(must_roll_back());
        }
        let Some(id) = self.id else {
            self.flush_pending_auto_inc();
            self.end_common();
            return Ok(None);
        };
        let mut mtr = Mtr::new(&self.sess.sh.store);
        // The log's state and the Commit record change in one log entry: recovery reads the state
        // from the page, and the record serves AUTO_INCREMENT resets.
        if let Some(undo) = &self.undo {
            undo::set_state(&mut mtr, undo.first, LogState::Committed)?;
        }
        log_auto_inc(&mut self.pending_auto_inc, &mut mtr);
        for r in extra {
            mtr.log_logical(&r.encode());
        }
        mtr.log_logical(&LogRecord::Commit { trx_id: id }.encode());
        let (_, end) = mtr.commit();
        self.finish(id, true);
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
    fn finish(&mut self, id: u64, committed: bool) {
        let log = self.undo.take().map(|u| FinishedLog { first: u.first, last: u.last });
        let finished = FinishedTrx { trx_id: id, log, committed, slot: self.slot, commit_seq: 0 };
        let converted = self.sess.sh.trx.finish(self.slot, finished);
        // Released with the rest at the end (`release_locks`): same owner.
        self.failed_waits.extend(converted);
        // After the commit is visible and before the transaction stops counting as a writer of
        // its tables: a rebuild that sees no writer left has every key (crate::row_log).
        let logged = std::mem::take(&mut self.row_log_keys);
        if committed && !logged.is_empty() {
            self.sess.sh.row_logs.push(logged);
        }
        self.sess.sh.trx.clear_written_tables(self.slot);
        self.written_tables.clear();
        self.id = None;
        self.undo_records = 0;
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
        self.needs_full_rollback = false;
        self.owner = LockOwner(self.sess.sh.trx.next_owner(self.slot));
        self.stmt_start = TrxSavepoint::at_start(self.owner);
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
        let sess = self.sess.clone();
        if let Some((trx_id, last)) = self.undo.as_ref().map(|u| (u.trx_id, u.last)) {
            let restored = LiveRecords::new(&sess.sh.store, trx_id, last).try_for_each(|rec| {
                let rec = rec?;
                self.restore(&rec)?;
                self.rollback_progress()?;
                if let Some(u) = self.undo.as_mut() {
                    u.rewind_to(rec.prev);
                }
                Ok::<(), StorageError>(())
            });
            if let Err(err) = restored {
                // Keep the transaction active and its locks held: nobody may see the partial
                // state. Recovery rolls it back after a restart (what was restored is marked).
                self.poisoned = true;
                return Err(err);
            }
        }
        let mut mtr = Mtr::new(&self.sess.sh.store);
        if let Some(undo) = &self.undo {
            if let Err(err) = undo::set_state(&mut mtr, undo.first, LogState::Aborted) {
                self.poisoned = true;
                return Err(err);
            }
        }
        log_auto_inc(&mut self.pending_auto_inc, &mut mtr);
        mtr.log_logical(&LogRecord::Abort { trx_id: id }.encode());
        mtr.commit();
        self.finish(id, false);
        self.end_common();
        Ok(())
    }
}

/// Restores the before-image of `rec` into its tree and marks the record undone, in one mtr (a
/// transaction's rollback, and recovery's rollback of the transactions a crash interrupted).
pub(crate) fn restore_record(store: &crate::buffer::PageStore, rec: &UndoRecord) -> Result<()> {
    if rec.undone {
        return Ok(());
    }
    // Rollback never fails for lack of space: it may use the tablespace's reserve.
    let mut mtr = Mtr::with_space_reserve(store);
    BTree::open(rec.root).modify_versioned(&mut mtr, &rec.key, |cur| match rec.stored_before() {
        None if cur.is_none() => (VersionedChange::Keep, ()),
        None => (VersionedChange::Remove, ()),
        Some((chain, stored)) => (VersionedChange::PutStored { chain, stored }, ()),
    })?;
    let mut undone = rec.clone();
    undone.undone = true;
    undo::set_record_flags(&mut mtr, &undone)?;
    mtr.commit();
    Ok(())
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

/// What `write_version`'s try under the leaf latch came to.
enum Placed {
    /// The change is made; its undo record goes at the placement.
    At(Vec<u8>, undo::Placement),
    /// Nothing changed: the undo record needs a spare page first.
    NeedsSpare,
    /// Nothing changed: the record is not as the caller expected.
    Unexpected,
}
