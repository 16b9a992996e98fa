//! Transactions (docs/architecture.md §4.7): transaction ids, the active-transaction slots,
//! read views, undo logs, the history lists and purge.
//!
//! Each session owns one `TrxSlot` (padded to its own cache line): the `up` of its read view, its
//! finished-but-unpurged history and an undo log kept for reuse. A read-write transaction
//! also holds a slot of the compact active-transaction array (`rw_slots`) from id assignment to
//! commit/rollback, so building a read view scans only the writers active now, not every
//! session ever connected. Background work that needs a global picture (the purge limit) scans
//! the session slots up to their high-water mark; nothing takes a global lock.

pub(crate) mod big_value;
pub mod logrec;
pub mod purge;
mod read_view;
pub mod record;
pub(crate) mod rw_slots;
pub(crate) mod txn;
pub(crate) mod undo;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::*};

use crossbeam_utils::CachePadded;
use parking_lot::Mutex;
use smallvec::SmallVec;

use crate::buffer::PageId;
use crate::lock::{LockKey, LockOwner, LockTable};
use crate::types::TableId;
use crate::wal::Lsn;
pub use read_view::ReadView;
use rw_slots::{RwSlots, NO_TRX, PENDING};
use undo::{CachedLog, UndoLogSet};

/// `TrxSlot::rw_slot` of a session without an active read-write transaction.
const NO_RW_SLOT: usize = usize::MAX;
/// `view_up` value of a slot without a read view.
const NO_VIEW: u64 = u64::MAX;
/// `view_up` value while a view is being built: holds purge back until the real `up` is known.
const VIEW_BUILDING: u64 = 0;
/// Slots before the sessions', for the engine's own transactions (DDL).
pub const INTERNAL_SLOTS: usize = 4;

/// Per-session statistics, written only by the slot's owner and merged when SHOW STATUS reads
/// them (no shared counter is touched per row).
#[derive(Default)]
pub struct SessionStats {
    pub rows_read: AtomicU64,
    pub rows_inserted: AtomicU64,
    pub rows_updated: AtomicU64,
    pub rows_deleted: AtomicU64,
    /// Committed net row count changes per table (for approx_row_count).
    pub row_deltas: Mutex<HashMap<TableId, i64>>,
}

impl SessionStats {
    /// Owner-only increment: a plain load and store, no locked instruction.
    pub fn bump(counter: &AtomicU64, n: u64) {
        counter.store(counter.load(Relaxed).wrapping_add(n), Relaxed);
    }
}

/// One session's (or internal user's) slot, padded to its own cache line. Its active
/// transaction's id lives apart, in the compact `TrxSys::rw` array.
pub struct TrxSlot {
    /// NO_VIEW, VIEW_BUILDING, or the `up` of the slot's current read view.
    view_up: AtomicU64,
    /// NO_VIEW, VIEW_BUILDING, or the commit sequence number when the slot's read view was
    /// built: every transaction that finished with a lower number is visible to the view.
    view_seq: AtomicU64,
    in_use: AtomicBool,
    /// The `TrxSys::rw` slot of the active read-write transaction, or NO_RW_SLOT; owner-written.
    rw_slot: AtomicUsize,
    /// Bumped by each transaction begun in the slot (lock owner ids); owner-written.
    generation: AtomicU64,
    /// Tables the active transaction changed (DDL waits for such writers to end).
    written_tables: Mutex<SmallVec<[TableId; 4]>>,
    /// Finished transactions of this slot not yet purged. Per slot, so committing touches no
    /// shared list; purge visits every slot.
    history: Mutex<Vec<FinishedTrx>>,
    /// An emptied undo log purge kept for this slot's next read-write transaction (so short
    /// transactions get their undo space without touching the tablespace header).
    undo_cache: Mutex<Option<CachedLog>>,
    /// The implicit locks of the slot's read-write transaction that other transactions turned
    /// into explicit ones to wait for them (see `convert_implicit`).
    implicit: Mutex<ImplicitLocks>,
    pub stats: SessionStats,
}

impl TrxSlot {
    fn new() -> TrxSlot {
        TrxSlot {
            view_up: AtomicU64::new(NO_VIEW),
            view_seq: AtomicU64::new(NO_VIEW),
            in_use: AtomicBool::new(false),
            rw_slot: AtomicUsize::new(NO_RW_SLOT),
            generation: AtomicU64::new(0),
            written_tables: Mutex::new(SmallVec::new()),
            history: Mutex::new(Vec::new()),
            undo_cache: Mutex::new(None),
            implicit: Mutex::new(ImplicitLocks::default()),
            stats: SessionStats::default(),
        }
    }
}

/// A transaction holds an *implicit* X lock on every record whose latest version it wrote (the
/// record names it), so writing a row needs no entry in the lock table once the change is made:
/// a 10-million-row UPDATE holds no lock memory per row (InnoDB's implicit locks). Another
/// transaction that wants such a row converts the implicit lock into an explicit one for the
/// writer, under this per-slot mutex, and waits for it; the writer releases those at its end.
#[derive(Default)]
struct ImplicitLocks {
    /// The slot's active read-write transaction (0: none): conversions for any other id fail.
    trx_id: u64,
    owner: LockOwner,
    converted: Vec<LockKey>,
}

/// The undo log of a finished transaction: its first page and newest live record.
#[derive(Clone, Copy, Debug)]
pub struct FinishedLog {
    pub first: PageId,
    pub last: u64,
}

/// A finished read-write transaction whose undo log purge has not freed yet.
pub struct FinishedTrx {
    pub trx_id: u64,
    /// None if it wrote nothing (its log was never created).
    pub log: Option<FinishedLog>,
    pub committed: bool,
    /// The session slot that ran it (purge gives the emptied log back to it for reuse).
    pub slot: usize,
    pub commit_seq: u64,
}

pub struct TrxSys {
    /// The active read-write transactions (architecture §4.7), compact: a read view scans only
    /// up to the highest of them in use now.
    rw: RwSlots,
    slots: Box<[CachePadded<TrxSlot>]>,
    /// One past the highest session slot ever claimed: background scans stop here.
    hwm: AtomicUsize,
    next_trx_id: CachePadded<AtomicU64>,
    /// Numbers finished transactions in the order they became visible (InnoDB's trx_no).
    commit_seq: CachePadded<AtomicU64>,
    /// No transaction with an id below this is active (`refresh_active_floor`).
    active_floor: CachePadded<AtomicU64>,
    /// Every undo log that exists (trx/undo.rs).
    pub undo_logs: UndoLogSet,
    /// Ids below this were used before the last restart (every one of them is committed or
    /// rolled back, so every read view sees them).
    pub startup_trx_id: u64,
    /// Recovery holds the checkpoint's scan start here until its loser rollback is durable.
    pub recovery_hold_lsn: AtomicU64,
}

impl TrxSys {
    pub fn new(max_sessions: usize, next_trx_id: u64) -> TrxSys {
        assert!(next_trx_id > VISIBLE_TO_ALL, "trx id 0 is reserved");
        let n = max_sessions + INTERNAL_SLOTS;
        TrxSys {
            rw: RwSlots::new(n),
            slots: (0..n).map(|_| CachePadded::new(TrxSlot::new())).collect(),
            hwm: AtomicUsize::new(0),
            next_trx_id: CachePadded::new(AtomicU64::new(next_trx_id)),
            commit_seq: CachePadded::new(AtomicU64::new(1)),
            active_floor: CachePadded::new(AtomicU64::new(0)),
            undo_logs: UndoLogSet::default(),
            startup_trx_id: next_trx_id,
            recovery_hold_lsn: AtomicU64::new(Lsn::MAX),
        }
    }

    pub fn slot(&self, i: usize) -> &TrxSlot {
        &self.slots[i]
    }

    fn claim(&self, range: std::ops::Range<usize>) -> Option<usize> {
        for i in range {
            if self.slots[i].in_use.compare_exchange(false, true, AcqRel, Relaxed).is_ok() {
                self.hwm.fetch_max(i + 1, SeqCst);
                debug_assert_eq!(self.slots[i].rw_slot.load(Relaxed), NO_RW_SLOT);
                debug_assert_eq!(self.slots[i].view_up.load(Relaxed), NO_VIEW);
                return Some(i);
            }
        }
        None
    }

    /// Claims a free session slot (None if all `max_sessions` are taken).
    pub fn claim_session_slot(&self) -> Option<usize> {
        self.claim(INTERNAL_SLOTS..self.slots.len())
    }

    /// Claims a slot reserved for the engine's own transactions. They come first, so that the
    /// high-water mark (how far scans go) follows the sessions actually connected.
    pub fn claim_internal_slot(&self) -> Option<usize> {
        self.claim(0..INTERNAL_SLOTS)
    }

    pub fn release_slot(&self, i: usize) {
        let s = &self.slots[i];
        debug_assert!(self.slot_is_idle(i), "slot released with an active transaction");
        s.view_up.store(NO_VIEW, SeqCst);
        s.view_seq.store(NO_VIEW, SeqCst);
        s.in_use.store(false, Release);
    }

    /// A lock owner id unique among all transactions ever begun in slot `i`.
    pub fn next_owner(&self, i: usize) -> u64 {
        let g = &self.slots[i].generation;
        let n = g.load(Relaxed).wrapping_add(1);
        g.store(n, Relaxed);
        ((i as u64) << 40) | (n & ((1 << 40) - 1))
    }

    pub fn next_trx_id(&self) -> u64 {
        self.next_trx_id.load(SeqCst)
    }

    /// Assigns a transaction id to the slot's transaction (at its first write) and registers it
    /// in the active array. PENDING is published first so a concurrent view builder that already
    /// counted the id waits for it. None only if the active array is full, which the sizing
    /// (one entry per session slot) rules out.
    pub fn assign_trx_id(&self, i: usize) -> Option<u64> {
        self.assign_trx_id_for(i, LockOwner(0))
    }

    /// `assign_trx_id` for the transaction that takes locks as `owner` (whose implicit locks
    /// others may convert to explicit ones of that owner).
    pub fn assign_trx_id_for(&self, i: usize, owner: LockOwner) -> Option<u64> {
        let s = &self.slots[i];
        debug_assert_eq!(s.rw_slot.load(Relaxed), NO_RW_SLOT, "session {i} already has a read-write transaction");
        let rw = self.rw.take()?;
        s.rw_slot.store(rw, Relaxed);
        let id = self.next_trx_id.fetch_add(1, SeqCst);
        // Before the id is published: the transaction writes nothing (so holds no implicit lock)
        // until this returns, and a converter that finds the id then finds it here too.
        *s.implicit.lock() = ImplicitLocks { trx_id: id, owner, converted: Vec::new() };
        self.rw.publish(rw, id, i);
        Some(id)
    }

    /// Salvage mode: the transactions a crash interrupted stay active for good (they hold rw
    /// slots that no session owns), so every read view skips their changes.
    pub fn hide_unfinished(&self, ids: impl IntoIterator<Item = u64>) {
        for id in ids {
            let rw = self.rw.take().expect("an rw slot per unfinished transaction: they each had one");
            self.rw.publish(rw, id, usize::MAX);
        }
    }

    /// Turns active transaction `holder`'s implicit lock on `key` into an explicit X lock of its
    /// owner, so that the caller can wait for it. False if `holder` is no longer active (its
    /// implicit lock is gone with it).
    pub fn convert_implicit(&self, holder: u64, key: &LockKey, locks: &LockTable) -> bool {
        let Some(session) = self.rw.session_of(holder) else { return false };
        let Some(slot) = self.slots.get(session) else { return false };
        let mut imp = slot.implicit.lock();
        if imp.trx_id != holder {
            return false;
        }
        if !imp.converted.contains(key) {
            locks.grant_implicit(imp.owner, key);
            imp.converted.push(key.clone());
        }
        true
    }

    /// Builds a read view for slot `i` and publishes its `up` for purge. `own` (the slot's own
    /// id) is left out: own writes are visible by the caller's own-id check.
    pub fn open_view(&self, i: usize, own: Option<u64>) -> ReadView {
        let me = &self.slots[i];
        // Publish a placeholder first: purge scans the active slots before the view slots, so
        // either it sees this placeholder or this scan of the active slots comes after its own.
        me.view_up.store(VIEW_BUILDING, SeqCst);
        me.view_seq.store(VIEW_BUILDING, SeqCst);
        // The commit number first: a transaction numbered below it was deactivated before it
        // was numbered (`finish`), so the scan below cannot find it active.
        let seq = self.commit_seq.load(SeqCst);
        let low = self.next_trx_id.load(SeqCst);
        let mut ids = Vec::new();
        for a in self.rw.in_use() {
            let id = wait_not_pending(a);
            if id != NO_TRX && id < low && Some(id) != own {
                ids.push(id);
            }
        }
        let view = ReadView::new(low, ids);
        me.view_up.store(view.up, SeqCst);
        me.view_seq.store(seq, SeqCst);
        view
    }

    pub fn close_view(&self, i: usize) {
        self.slots[i].view_up.store(NO_VIEW, SeqCst);
        self.slots[i].view_seq.store(NO_VIEW, SeqCst);
    }

    /// Makes the slot's transaction invisible-no-more: new views see its changes.
    pub fn deactivate(&self, i: usize) {
        let s = &self.slots[i];
        let rw = s.rw_slot.swap(NO_RW_SLOT, Relaxed);
        debug_assert_ne!(rw, NO_RW_SLOT, "session {i} has no read-write transaction");
        if rw != NO_RW_SLOT {
            self.rw.give_back(rw);
        }
    }

    /// Ends slot `i`'s read-write transaction: makes it inactive (new views see its outcome),
    /// numbers it, and hands it to purge. All under the slot's history lock, so that it is in no
    /// moment neither active nor in the history (dropped trees wait for both), and numbered only
    /// once no new view can find it active (see `purge_limit_seq`).
    /// Returns the locks other transactions converted for it, for the caller to release.
    pub fn finish(&self, i: usize, mut f: FinishedTrx) -> Vec<LockKey> {
        {
            let mut h = self.slots[i].history.lock();
            self.deactivate(i);
            f.commit_seq = self.commit_seq.fetch_add(1, SeqCst);
            h.push(f);
        }
        // After deactivating: a converter that still finds the id here converts before we take
        // the list; one that comes later finds the transaction inactive (or this slot empty).
        let mut imp = self.slots[i].implicit.lock();
        imp.trx_id = 0;
        std::mem::take(&mut imp.converted)
    }

    /// The next commit sequence number (every finished transaction numbered below it is visible
    /// to views built from now on).
    pub fn commit_seq(&self) -> u64 {
        self.commit_seq.load(SeqCst)
    }

    /// Finished transactions numbered below this are visible to every current and future read
    /// view: the purge horizon is the oldest read view, not the oldest open writer (an idle open
    /// transaction holds nothing back unless it holds a view).
    pub fn purge_limit_seq(&self) -> u64 {
        // The counter first, then the views: a view whose placeholder this scan missed was built
        // after it and numbered at least this value.
        let mut limit = self.commit_seq.load(SeqCst);
        let hwm = self.hwm.load(SeqCst);
        for s in &self.slots[..hwm] {
            limit = limit.min(s.view_seq.load(SeqCst));
        }
        limit
    }

    /// The undo log slot `i` keeps for reuse, if any.
    pub fn take_cached_log(&self, i: usize) -> Option<CachedLog> {
        self.slots[i].undo_cache.lock().take()
    }

    /// Keeps an emptied undo log for slot `i`'s next transaction; false if it keeps one already.
    pub fn put_cached_log(&self, i: usize, log: CachedLog) -> bool {
        let mut c = self.slots[i].undo_cache.lock();
        if c.is_some() {
            return false;
        }
        *c = Some(log);
        true
    }

    /// Whether slot `i` has room for a log to keep.
    pub fn wants_cached_log(&self, i: usize) -> bool {
        self.slots.get(i).is_some_and(|s| s.undo_cache.lock().is_none())
    }

    /// Every transaction id below the returned limit is finished and visible to every current
    /// and future read view: purge may free its undo log.
    pub fn purge_limit(&self) -> u64 {
        let mut limit = self.next_trx_id.load(SeqCst);
        // Active transactions first, then views (see open_view).
        for a in self.rw.in_use() {
            let id = wait_not_pending(a);
            if id != NO_TRX {
                limit = limit.min(id);
            }
        }
        let hwm = self.hwm.load(SeqCst);
        for s in &self.slots[..hwm] {
            limit = limit.min(s.view_up.load(SeqCst));
        }
        limit
    }

    pub fn note_written_table(&self, i: usize, table: TableId) {
        let mut w = self.slots[i].written_tables.lock();
        if !w.contains(&table) {
            w.push(table);
        }
    }

    pub fn clear_written_tables(&self, i: usize) {
        self.slots[i].written_tables.lock().clear();
    }

    /// True if some active transaction other than slot `except`'s has changed `table`.
    pub fn table_has_writers(&self, table: TableId, except: usize) -> bool {
        let hwm = self.hwm.load(SeqCst);
        (0..hwm).any(|i| i != except && self.slots[i].written_tables.lock().contains(&table))
    }

    /// Hands a finished transaction of slot `i` to purge.
    pub fn push_history(&self, i: usize, f: FinishedTrx) {
        self.slots[i].history.lock().push(f);
    }

    pub fn history_len(&self) -> usize {
        let hwm = self.hwm.load(SeqCst);
        self.slots[..hwm].iter().map(|s| s.history.lock().len()).sum()
    }

    /// Removes and returns the finished transactions purge may process now (numbered below
    /// `limit_seq`), counting each in `taken` before it leaves its list (so that the history
    /// length never misses it).
    pub fn take_purgeable(&self, limit_seq: u64, taken: &AtomicUsize) -> Vec<FinishedTrx> {
        let hwm = self.hwm.load(SeqCst);
        let mut out = Vec::new();
        for s in &self.slots[..hwm] {
            let mut h = s.history.lock();
            if h.is_empty() {
                continue;
            }
            let mut i = 0;
            while i < h.len() {
                if h[i].commit_seq < limit_seq {
                    taken.fetch_add(1, SeqCst);
                    out.push(h.swap_remove(i));
                } else {
                    i += 1;
                }
            }
        }
        out
    }

    /// Removes and returns slot `i`'s oldest finished transaction that has an undo log and that
    /// purge may process now (see `take_purgeable`), counted in `taken` like there. Looks at the
    /// other slots' views only when the slot has history.
    pub fn take_own_purgeable(&self, i: usize, taken: &AtomicUsize) -> Option<FinishedTrx> {
        let oldest = |h: &[FinishedTrx]| {
            h.iter()
                .enumerate()
                .filter(|(_, f)| f.log.is_some())
                .min_by_key(|(_, f)| f.commit_seq)
                .map(|(at, f)| (at, f.commit_seq))
        };
        let (_, seq) = oldest(&self.slots[i].history.lock())?;
        if seq >= self.purge_limit_seq() {
            return None;
        }
        // Only this slot's owner (here) and purge remove entries: if purge took it meanwhile,
        // the next oldest is younger and may not be purgeable; look again.
        let mut h = self.slots[i].history.lock();
        let (at, seq_now) = oldest(&h)?;
        if seq_now != seq {
            return None;
        }
        taken.fetch_add(1, SeqCst);
        Some(h.swap_remove(at))
    }

    /// Smallest trx id in the history lists (u64::MAX if empty).
    pub fn min_history_trx_id(&self) -> u64 {
        let hwm = self.hwm.load(SeqCst);
        self.slots[..hwm]
            .iter()
            .filter_map(|s| s.history.lock().iter().map(|f| f.trx_id).min())
            .min()
            .unwrap_or(u64::MAX)
    }

    /// The checkpoint's lower bound for the recovery scan start: recovery holds it while it
    /// still needs the log it read (Lsn::MAX otherwise). Undo lives in pages, so no open
    /// transaction holds the log back.
    pub fn scan_start_floor(&self) -> Lsn {
        self.recovery_hold_lsn.load(SeqCst)
    }

    /// Number of active read-write transactions.
    pub fn active_count(&self) -> usize {
        self.rw.in_use().iter().filter(|a| a.load(Relaxed) != NO_TRX).count()
    }

    /// How many entries of the active array a read view scans now.
    pub fn view_scan_len(&self) -> usize {
        self.rw.hwm()
    }

    /// Sums the per-session statistics of all slots.
    pub fn merged_stats(&self) -> [u64; 4] {
        let hwm = self.hwm.load(SeqCst);
        let mut t = [0u64; 4];
        for s in &self.slots[..hwm] {
            t[0] += s.stats.rows_read.load(Relaxed);
            t[1] += s.stats.rows_inserted.load(Relaxed);
            t[2] += s.stats.rows_updated.load(Relaxed);
            t[3] += s.stats.rows_deleted.load(Relaxed);
        }
        t
    }

    /// The committed row count changes of every table, summed over all sessions.
    pub fn all_row_deltas(&self) -> HashMap<TableId, i64> {
        let hwm = self.hwm.load(SeqCst);
        let mut out = HashMap::new();
        for s in &self.slots[..hwm] {
            for (t, d) in s.stats.row_deltas.lock().iter() {
                *out.entry(*t).or_insert(0) += d;
            }
        }
        out
    }

    /// True if `trx_id` is an active read-write transaction (scans the slots: slow paths only).
    pub fn is_active(&self, trx_id: u64) -> bool {
        // Most records carry the id of a transaction that finished long ago: below the floor no
        // scan is needed.
        if trx_id < self.active_floor.load(Relaxed) {
            return false;
        }
        self.rw.in_use().iter().any(|a| wait_not_pending(a) == trx_id)
    }

    /// Raises the floor below which no transaction is active (the purge thread calls it often):
    /// the smallest active id, or the next id if none is active. Every id assigned later is
    /// above it, so it stays a lower bound.
    pub fn refresh_active_floor(&self) {
        let mut floor = self.next_trx_id.load(SeqCst);
        for a in self.rw.in_use() {
            let id = wait_not_pending(a);
            if id != NO_TRX {
                floor = floor.min(id);
            }
        }
        self.active_floor.fetch_max(floor, SeqCst);
    }

    /// True if the slot has no active read-write transaction.
    pub fn slot_is_idle(&self, i: usize) -> bool {
        self.slots[i].rw_slot.load(SeqCst) == NO_RW_SLOT
    }

    /// The id of session slot `i`'s active read-write transaction (tests, diagnostics).
    pub fn active_id_of(&self, i: usize) -> Option<u64> {
        match self.slots[i].rw_slot.load(SeqCst) {
            NO_RW_SLOT => None,
            rw => Some(self.rw.id_at(rw)).filter(|&id| id != NO_TRX && id != PENDING),
        }
    }

    /// Sum of the committed row count changes of `table` over all sessions.
    pub fn row_delta(&self, table: TableId) -> i64 {
        let hwm = self.hwm.load(SeqCst);
        self.slots[..hwm].iter().map(|s| s.stats.row_deltas.lock().get(&table).copied().unwrap_or(0)).sum()
    }
}

/// Trx id 0 is never assigned: index builds stamp entries with it.
const VISIBLE_TO_ALL: u64 = record::VISIBLE_TO_ALL_TRX_ID;

fn wait_not_pending(a: &AtomicU64) -> u64 {
    let mut spins = 0u32;
    loop {
        let v = a.load(SeqCst);
        if v != PENDING {
            return v;
        }
        // The owner is between two stores; yield if it was preempted there.
        spins += 1;
        if spins < 64 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn view_visibility_rules() {
        let v = ReadView::new(20, vec![12, 15]);
        assert_eq!(v.up, 12);
        assert!(v.sees(11));
        assert!(!v.sees(12));
        assert!(v.sees(13));
        assert!(!v.sees(15));
        assert!(v.sees(19));
        assert!(!v.sees(20));
        let empty = ReadView::new(7, vec![]);
        assert!(empty.sees(6) && !empty.sees(7));
    }

    #[test]
    fn views_see_committed_and_not_active_transactions() {
        let sys = TrxSys::new(4, 1);
        let a = sys.claim_session_slot().unwrap();
        let b = sys.claim_session_slot().unwrap();
        let id_a = sys.assign_trx_id(a).unwrap();
        let view = sys.open_view(b, None);
        assert!(!view.sees(id_a));
        assert_eq!(sys.purge_limit(), id_a);
        assert_eq!(sys.active_id_of(a), Some(id_a));
        sys.deactivate(a);
        assert!(sys.slot_is_idle(a));
        let later = sys.open_view(b, None);
        assert!(later.sees(id_a));
        // b's view still blocks purge of anything at or above its `up`.
        assert_eq!(sys.purge_limit(), later.up);
        sys.close_view(b);
        assert_eq!(sys.purge_limit(), sys.next_trx_id());
    }

    /// The purge horizon is the oldest read view: an open writer without a view holds nothing
    /// back, a view holds back what finished after it was built.
    #[test]
    fn purge_horizon_follows_views_not_writers() {
        let sys = TrxSys::new(4, 1);
        let (idle, a, reader) =
            (sys.claim_session_slot().unwrap(), sys.claim_session_slot().unwrap(), sys.claim_session_slot().unwrap());
        sys.assign_trx_id(idle).unwrap(); // open forever, never reads
        let done = |slot| {
            let id = sys.assign_trx_id(slot).unwrap();
            sys.finish(slot, FinishedTrx { trx_id: id, log: None, committed: true, slot, commit_seq: 0 });
        };
        done(a);
        let taken = AtomicUsize::new(0);
        assert_eq!(sys.take_purgeable(sys.purge_limit_seq(), &taken).len(), 1, "the idle writer holds nothing back");
        let view = sys.open_view(reader, None);
        done(a);
        assert!(sys.take_purgeable(sys.purge_limit_seq(), &taken).is_empty(), "finished after the view was built");
        sys.close_view(reader);
        drop(view);
        assert_eq!(sys.take_purgeable(sys.purge_limit_seq(), &taken).len(), 1);
    }

    /// A session takes its own oldest finished transaction with a log, and only once every view
    /// sees it; others' history and transactions that wrote nothing stay for the purge thread.
    #[test]
    fn a_session_takes_its_own_oldest_purgeable_log() {
        let sys = TrxSys::new(4, 1);
        let (a, b, reader) =
            (sys.claim_session_slot().unwrap(), sys.claim_session_slot().unwrap(), sys.claim_session_slot().unwrap());
        let done = |slot, first: Option<PageId>| {
            let id = sys.assign_trx_id(slot).unwrap();
            let log = first.map(|first| FinishedLog { first, last: 0 });
            sys.finish(slot, FinishedTrx { trx_id: id, log, committed: true, slot, commit_seq: 0 });
        };
        let taken = AtomicUsize::new(0);
        done(b, Some(5));
        assert!(sys.take_own_purgeable(a, &taken).is_none(), "another slot's history");
        done(a, None);
        assert!(sys.take_own_purgeable(a, &taken).is_none(), "wrote nothing: no log to reuse");
        done(a, Some(7));
        let view = sys.open_view(reader, None);
        done(a, Some(9));
        assert_eq!(sys.take_own_purgeable(a, &taken).and_then(|f| f.log).map(|l| l.first), Some(7));
        assert!(sys.take_own_purgeable(a, &taken).is_none(), "finished after the reader's view");
        sys.close_view(reader);
        drop(view);
        assert_eq!(sys.take_own_purgeable(a, &taken).and_then(|f| f.log).map(|l| l.first), Some(9));
        assert_eq!(taken.load(SeqCst), 2);
    }

    /// The read-view scan follows the writers active now, not the sessions ever connected: after
    /// 4,096 sessions each wrote once, a view with 3 writers active scans 3 entries.
    #[test]
    fn view_scan_covers_active_writers_only() {
        const SESSIONS: usize = 4096;
        let sys = TrxSys::new(SESSIONS, 1);
        let slots: Vec<usize> = (0..SESSIONS).map(|_| sys.claim_session_slot().unwrap()).collect();
        for &s in &slots {
            sys.assign_trx_id(s).unwrap();
        }
        assert_eq!(sys.view_scan_len(), SESSIONS);
        assert_eq!(sys.active_count(), SESSIONS);
        for &s in &slots {
            sys.deactivate(s);
        }
        assert_eq!(sys.view_scan_len(), 0, "the scan shrinks when the writers finish");
        // The last sessions (highest session slots) write now: they get the lowest rw entries.
        let writers = &slots[SESSIONS - 3..];
        let ids: Vec<u64> = writers.iter().map(|&s| sys.assign_trx_id(s).unwrap()).collect();
        assert_eq!(sys.view_scan_len(), 3);
        let v = sys.open_view(slots[0], None);
        for &id in &ids {
            assert!(!v.sees(id));
        }
        assert!(v.sees(ids[0] - 1), "finished before the view");
        sys.close_view(slots[0]);
        for (&s, &id) in writers.iter().zip(&ids) {
            assert!(sys.is_active(id));
            sys.deactivate(s);
            assert!(!sys.is_active(id));
        }
        assert_eq!(sys.view_scan_len(), 0);
        for s in slots {
            sys.release_slot(s);
        }
    }

    /// Opt-in measurement (SELKIE_BENCH=1): the cost of building a read view after 4,096
    /// sessions connected and wrote, with 8 writers active.
    #[test]
    fn bench_open_view_after_many_sessions() {
        if std::env::var("SELKIE_BENCH").is_err() {
            return;
        }
        const SESSIONS: usize = 4096;
        let sys = TrxSys::new(SESSIONS, 1);
        let slots: Vec<usize> = (0..SESSIONS).map(|_| sys.claim_session_slot().unwrap()).collect();
        for &s in &slots {
            sys.assign_trx_id(s).unwrap();
        }
        for &s in &slots[8..] {
            sys.deactivate(s);
        }
        let n = 200_000;
        let started = std::time::Instant::now();
        for _ in 0..n {
            let v = sys.open_view(slots[SESSIONS - 1], None);
            std::hint::black_box(&v);
            sys.close_view(slots[SESSIONS - 1]);
        }
        let ns = started.elapsed().as_nanos() as f64 / n as f64;
        println!("open_view+close_view: {ns:.0} ns (scan of {} entries)", sys.view_scan_len());
    }

    /// Writers in several sessions take and give back active-array entries (so its high-water
    /// mark grows and shrinks under the readers) while a reader builds views: a view must never
    /// miss a transaction that was active during its whole scan.
    #[test]
    fn concurrent_id_assignment_and_views_never_miss_an_active_id() {
        const WRITERS: usize = 3;
        let sys = Arc::new(TrxSys::new(8, 1));
        let writers: Vec<usize> = (0..WRITERS).map(|_| sys.claim_session_slot().unwrap()).collect();
        let reader = sys.claim_session_slot().unwrap();
        let last_assigned: Arc<Vec<AtomicU64>> = Arc::new((0..WRITERS).map(|_| AtomicU64::new(0)).collect());
        let stop = Arc::new(AtomicBool::new(false));
        let handles: Vec<_> = writers
            .iter()
            .enumerate()
            .map(|(w, &slot)| {
                let (s2, la, st) = (sys.clone(), last_assigned.clone(), stop.clone());
                std::thread::spawn(move || {
                    let mut round = 0u32;
                    while !st.load(SeqCst) {
                        round += 1;
                        let id = s2.assign_trx_id(slot).unwrap();
                        la[w].store(id, SeqCst);
                        for _ in 0..(round % 7) * 20 {
                            std::hint::spin_loop();
                        }
                        s2.deactivate(slot);
                    }
                })
            })
            .collect();
        let n = if std::env::var("SELKIE_STRESS").is_ok() { 200_000 } else { 20_000 };
        let mut checked = 0;
        let started = std::time::Instant::now();
        let mut i = 0;
        while (i < n || checked < 10) && started.elapsed() < std::time::Duration::from_secs(10) {
            i += 1;
            let before: Vec<u64> = last_assigned.iter().map(|a| a.load(SeqCst)).collect();
            let v = sys.open_view(reader, None);
            // `a` was assigned before the view read `low`; if it is still active after the
            // view was built, it was active during the whole scan and must be invisible.
            for (w, &a) in before.iter().enumerate() {
                if a != 0 && sys.active_id_of(writers[w]) == Some(a) {
                    assert!(a < v.low);
                    assert!(!v.sees(a), "view missed active trx {a}: {v:?}");
                    checked += 1;
                }
            }
        }
        stop.store(true, SeqCst);
        for h in handles {
            h.join().unwrap();
        }
        assert!(checked > 0, "the race was never exercised");
        assert_eq!(sys.view_scan_len(), 0);
    }
}
