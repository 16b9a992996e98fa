//! Purge (docs/architecture.md §4.7): frees the undo logs of finished transactions once every
//! read view sees them, and physically removes the delete-marked records they left behind.
//!
//! A finished transaction T is purgeable when it finished before the oldest read view was built
//! (`commit_seq < purge_limit_seq()`: every current and future view sees T, so nobody follows a
//! roll pointer into T's log; an open transaction without a view holds nothing back). Its
//! Commit/Abort record need not be durable yet: everything purge does is logged after that
//! record, and no page change reaches the disk before the log that describes it (the WAL rule),
//! so a crash that loses T's outcome loses every trace of T's purge with it, and recovery finds
//! T's log as T left it. (Waiting for the flush held every log back a second under
//! `--flush-at-commit 2`, long enough for its pages to be written back before their reuse.)
//! For a committed T,
//! each record T delete-marked that still carries T's delete mark is visible-to-all as deleted
//! and is removed with a plain B+tree change (no undo), and the overflow chains its undo records
//! own (previous versions of big values) are freed. Then the log's pages are freed, or kept for
//! reuse by the session slot that wrote it.
//!
//! A purge error is logged and the work is retried later; it never stops the purge thread.
//!
//! Sessions purge too: a transaction's first write, when its session slot kept no emptied log,
//! purges the slot's own oldest purgeable transaction and takes its log (`reclaim_own_log`).
//! One purge thread cannot keep up with dozens of writers on few cores (the history grew to
//! ~11,000 transactions at 64 sysbench threads, and every new transaction then allocated fresh
//! undo pages through the tablespace header that purge was freeing pages into); with each
//! writer paying for the log it reuses, the history per slot stays bounded by how long views
//! and the log flush hold it, and steady writers never touch the tablespace header for undo.
//!
//! Purge also frees the trees of dropped indexes once no transaction that could still touch them
//! (rollback of an older writer, an older history entry) remains (crash-safely, through
//! crate::pending_trees), and removes delete-marked records left from before a restart that
//! readers and writers reported on the way.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::{Mutex, RwLock, RwLockWriteGuard};

use crate::btree::{BTree, Change};
use crate::buffer::{PageId, PageStore};
use crate::error::Result;
use crate::mtr::Mtr;
use crate::pending_trees::PendingTrees;
use crate::testpoint::{CrashPoint, CrashPoints};
use crate::trx::record::RecHeader;
use crate::trx::undo::{self, CachedLog, LiveRecords};
use crate::trx::{FinishedTrx, TrxSys};

/// How often purge looks for work when the last pass found none.
const PURGE_INTERVAL: Duration = Duration::from_millis(10);
/// The longest pause between retries after purge errors.
const PURGE_MAX_RETRY_PAUSE: Duration = Duration::from_secs(5);
/// Reported leftovers beyond this are dropped (they are reported again when met again).
const MAX_LEFTOVERS: usize = 10_000;

/// A delete-marked record from before the last restart, met by a reader or writer.
pub struct Leftover {
    pub root: PageId,
    pub key: Vec<u8>,
    pub trx_id: u64,
}

/// Trees of dropped or rebuilt indexes, freed once every transaction with an id below `after`
/// (all that could have touched them) has finished and been purged, and every read view is
/// younger than the DDL (`after_seq`: the commit sequence number when it committed).
pub struct DeferredFree {
    pub after: u64,
    pub after_seq: u64,
    pub roots: Vec<PageId>,
}

pub struct PurgeQueues {
    leftovers: Mutex<Vec<Leftover>>,
    frees: Mutex<Vec<DeferredFree>>,
    /// Finished transactions whose purge failed: tried again first by the next pass.
    retry: Mutex<Vec<FinishedTrx>>,
    /// Finished transactions a pass has taken and not finished yet (they count as history).
    in_progress: AtomicUsize,
    /// Every tree in `frees` is pending there (its freeing is logged).
    pub pending: Arc<PendingTrees>,
    pub crash_points: Arc<CrashPoints>,
    /// Shared by whoever purges transactions (the purge thread's passes, sessions reclaiming a
    /// log); exclusive for freeing dropped trees (no purge of an older transaction may be half
    /// done then) and for the space audit (it must never meet a log or tree half freed).
    pass: RwLock<()>,
    /// Test hook: the purge thread does nothing while set (sessions still purge for their logs).
    pub thread_paused: AtomicBool,
}

impl PurgeQueues {
    pub fn new(pending: Arc<PendingTrees>, crash_points: Arc<CrashPoints>) -> PurgeQueues {
        PurgeQueues {
            leftovers: Mutex::default(),
            frees: Mutex::default(),
            retry: Mutex::default(),
            in_progress: AtomicUsize::new(0),
            pending,
            crash_points,
            pass: RwLock::new(()),
            thread_paused: AtomicBool::new(false),
        }
    }

    /// Keeps all purging out while the guard lives (for diagnostics that need still pages).
    pub fn hold_passes(&self) -> RwLockWriteGuard<'_, ()> {
        self.pass.write()
    }

    /// Smallest trx id among the transactions waiting for a retry (u64::MAX if none).
    fn min_retry_trx_id(&self) -> u64 {
        self.retry.lock().iter().map(|f| f.trx_id).min().unwrap_or(u64::MAX)
    }

    pub fn report_leftover(&self, l: Leftover) {
        let mut q = self.leftovers.lock();
        if q.len() < MAX_LEFTOVERS {
            q.push(l);
        }
    }

    pub fn defer_free(&self, f: DeferredFree) {
        self.frees.lock().push(f);
    }

    pub fn pending_frees(&self) -> usize {
        self.frees.lock().len()
    }

    /// Hands a finished transaction to purge directly (recovery: committed logs found in pages).
    pub fn adopt(&self, f: FinishedTrx) {
        self.retry.lock().push(f);
    }

    /// Finished transactions waiting for a retry or being purged (part of the history length).
    pub fn backlog(&self) -> usize {
        self.retry.lock().len() + self.in_progress.load(Ordering::SeqCst)
    }
}

/// Purges one finished transaction (see the module doc). Restartable: every step is idempotent
/// (records already removed, chains marked freed), so a failure is retried from the start.
fn purge_trx(store: &PageStore, sys: &TrxSys, f: &FinishedTrx, res: &mut PassResult) -> Result<()> {
    let Some(log) = f.log else { return Ok(()) };
    purge_records(store, f, res)?;
    let keep = sys.wants_cached_log(f.slot);
    if let Some(cached) = undo::release(store, &sys.undo_logs, log.first, keep)? {
        if !sys.put_cached_log(f.slot, cached) {
            undo::release(store, &sys.undo_logs, cached.first, false)?;
        }
    }
    Ok(())
}

/// What a finished transaction left in the trees: for a committed one, removes the records it
/// delete-marked and frees the before-image chains its log owns (nothing for a rolled-back one,
/// whose records are all undone).
fn purge_records(store: &PageStore, f: &FinishedTrx, res: &mut PassResult) -> Result<()> {
    let Some(log) = f.log else { return Ok(()) };
    if !f.committed {
        return Ok(());
    }
    for rec in LiveRecords::new(store, f.trx_id, log.last) {
        let rec = rec?;
        if rec.undone {
            continue;
        }
        if rec.marks_deleted && remove_if_delete_marked(store, rec.root, &rec.key, f.trx_id, None)? {
            res.records_removed += 1;
        }
        undo::free_before_chain(store, &rec)?;
    }
    Ok(())
}

/// For slot `slot`'s transaction about to write its first record, with no log kept for it:
/// purges the slot's oldest purgeable finished transaction here and returns its log, records
/// purged (see the module doc). None if there is none yet, or if purging it failed (it then waits for the
/// purge thread's retry, and the caller allocates a log as before).
pub fn reclaim_own_log(store: &PageStore, sys: &TrxSys, queues: &PurgeQueues, slot: usize) -> Option<CachedLog> {
    let _shared = queues.pass.try_read()?;
    let f = sys.take_own_purgeable(slot, &queues.in_progress)?;
    let mut res = PassResult::default();
    let first = f.log.expect("take_own_purgeable takes logged transactions only").first;
    // The log is reformatted for its new transaction in one mtr (`UndoWriter::create`), not
    // emptied here first.
    match purge_records(store, &f, &mut res) {
        Ok(()) => {
            queues.in_progress.fetch_sub(1, Ordering::SeqCst);
            Some(CachedLog { first, trimmed: false })
        }
        Err(e) => {
            tracing::warn!("purging transaction {} for its log failed, left to the purge thread: {e}", f.trx_id);
            queues.retry.lock().push(f);
            queues.in_progress.fetch_sub(1, Ordering::SeqCst);
            None
        }
    }
}

/// Removes the record under `key` if it is still delete-marked by `trx_id` (or, with
/// `any_below`, by any transaction below that id). Returns whether it removed it.
pub fn remove_if_delete_marked(
    store: &PageStore,
    root: PageId,
    key: &[u8],
    trx_id: u64,
    any_below: Option<u64>,
) -> Result<bool> {
    let tree = BTree::open(root);
    let matches = |v: &[u8]| match RecHeader::parse(v) {
        Ok(h) => h.deleted && (h.trx_id == trx_id || any_below.is_some_and(|l| h.trx_id < l)),
        Err(_) => false,
    };
    // Cheap optimistic look first: most candidates are no longer delete-marked by T.
    match tree.get(store, key)? {
        Some(v) if matches(&v) => {}
        _ => return Ok(false),
    }
    let mut mtr = Mtr::new(store);
    mtr.unhurried();
    let removed = tree.modify(&mut mtr, key, |cur| match cur {
        Some(v) if matches(v) => (Change::Remove, true),
        _ => (Change::Keep, false),
    })?;
    mtr.commit();
    Ok(removed)
}

/// What one pass did (for tests and the status counters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassResult {
    pub trx_purged: usize,
    pub records_removed: usize,
    pub trees_freed: usize,
}

/// One purge pass over everything purgeable now.
pub fn purge_pass(store: &PageStore, sys: &TrxSys, queues: &PurgeQueues) -> Result<PassResult> {
    let mut res = PassResult::default();
    let shared = queues.pass.read();
    sys.refresh_active_floor();
    let limit_seq = sys.purge_limit_seq();
    // Candidate frees are taken before the leftovers are drained: a leftover in a tree being
    // dropped was reported before the DDL registered the free, so it is drained below first.
    let candidates: Vec<DeferredFree> = {
        let mut f = queues.frees.lock();
        let (ready, wait): (Vec<_>, Vec<_>) = f.drain(..).partition(|d| d.after_seq < limit_seq);
        *f = wait;
        ready
    };
    let leftovers = std::mem::take(&mut *queues.leftovers.lock());
    // Every transaction from before the restart is visible to every view.
    let before_restart = sys.startup_trx_id;
    for l in leftovers {
        if l.trx_id < before_restart && remove_if_delete_marked(store, l.root, &l.key, l.trx_id, Some(before_restart))?
        {
            res.records_removed += 1;
        }
    }
    let mut work = {
        let mut retry = queues.retry.lock();
        let mut work = std::mem::take(&mut *retry);
        // Counted before the retry lock is released: the backlog never looks empty meanwhile.
        queues.in_progress.fetch_add(work.len(), Ordering::SeqCst);
        drop(retry);
        work.extend(sys.take_purgeable(limit_seq, &queues.in_progress));
        work.into_iter()
    };
    while let Some(f) = work.next() {
        if let Err(e) = purge_trx(store, sys, &f, &mut res) {
            let mut retry = queues.retry.lock();
            retry.push(f);
            retry.extend(work);
            queues.in_progress.store(0, Ordering::SeqCst);
            return Err(e);
        }
        queues.in_progress.fetch_sub(1, Ordering::SeqCst);
        res.trx_purged += 1;
    }
    drop(shared);
    if candidates.is_empty() {
        return Ok(res);
    }
    // No session is half way through purging a transaction it took from a history list, and one
    // whose purge failed is in the retry queue: both count as history here.
    let _exclusive = queues.pass.write();
    let min_history = sys.min_history_trx_id().min(queues.min_retry_trx_id());
    let mut not_yet = Vec::new();
    for d in candidates {
        if min_history < d.after {
            not_yet.push(d);
            continue;
        }
        for root in d.roots {
            let crash = &queues.crash_points;
            queues.pending.free_tree(store, root, &mut || crash.hit(CrashPoint::TreeFree))?;
            res.trees_freed += 1;
        }
    }
    if !not_yet.is_empty() {
        queues.frees.lock().extend(not_yet);
    }
    Ok(res)
}

/// The background purge thread.
pub struct PurgeThread {
    stop: Arc<AtomicBool>,
    handle: Mutex<Option<JoinHandle<()>>>,
}

impl PurgeThread {
    pub fn start(store: Arc<PageStore>, sys: Arc<TrxSys>, queues: Arc<PurgeQueues>) -> PurgeThread {
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let handle = std::thread::Builder::new()
            .name("selkie-purge".into())
            .spawn(move || {
                let mut pause = PURGE_INTERVAL;
                while !stop2.load(Ordering::Acquire) {
                    if queues.thread_paused.load(Ordering::Relaxed) {
                        std::thread::park_timeout(PURGE_INTERVAL);
                        continue;
                    }
                    match purge_pass(&store, &sys, &queues) {
                        Ok(r) if r.trx_purged > 0 || r.records_removed > 0 => pause = PURGE_INTERVAL,
                        Ok(_) => std::thread::park_timeout(PURGE_INTERVAL),
                        Err(e) => {
                            // Logged and retried with a growing pause: the work stays queued,
                            // and an error that clears (space freed, a transient I/O error)
                            // lets purge catch up.
                            tracing::error!("purge failed, retrying in {:?}: {e}", pause);
                            std::thread::park_timeout(pause);
                            pause = (pause * 2).min(PURGE_MAX_RETRY_PAUSE);
                        }
                    }
                }
            })
            .expect("spawn purge thread");
        PurgeThread { stop, handle: Mutex::new(Some(handle)) }
    }

    /// Stops the thread and waits for it (idempotent).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Release);
        if let Some(h) = self.handle.lock().take() {
            h.thread().unpark();
            let _ = h.join();
        }
    }
}

impl Drop for PurgeThread {
    fn drop(&mut self) {
        self.stop();
    }
}
