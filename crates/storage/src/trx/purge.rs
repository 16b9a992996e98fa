//! Purge (docs/architecture.md §4.7): frees the undo logs of finished transactions once every
//! read view sees them, and physically removes the delete-marked records they left behind.
//!
//! A finished transaction T is purgeable when `T < purge_limit()` (every active and future read
//! view sees T, so nobody follows a roll pointer into T's log) and its Commit/Abort record is
//! durable (until then a checkpoint must keep the log from T's first LSN, and the history entry
//! is what tells it so). For a committed T, each record T delete-marked that still carries T's
//! delete mark is visible-to-all as deleted and is removed with a plain B+tree change (no undo).
//!
//! Purge also frees the trees of dropped indexes once no transaction that could still touch them
//! (rollback of an older writer, an older history entry) remains (crash-safely, through
//! crate::pending_trees), and removes delete-marked records left from before a restart that
//! readers and writers reported on the way.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::Mutex;

use crate::btree::{BTree, Change};
use crate::buffer::{PageId, PageStore};
use crate::error::Result;
use crate::mtr::Mtr;
use crate::pending_trees::PendingTrees;
use crate::testpoint::{CrashPoint, CrashPoints};
use crate::trx::record::RecHeader;
use crate::trx::TrxSys;

/// How often purge looks for work when the last pass found none.
const PURGE_INTERVAL: Duration = Duration::from_millis(10);
/// Reported leftovers beyond this are dropped (they are reported again when met again).
const MAX_LEFTOVERS: usize = 10_000;

/// A delete-marked record from before the last restart, met by a reader or writer.
pub struct Leftover {
    pub root: PageId,
    pub key: Vec<u8>,
    pub trx_id: u64,
}

/// Trees of dropped or rebuilt indexes, freed once every transaction with an id below `after`
/// (all that could have touched them) has finished and been purged.
pub struct DeferredFree {
    pub after: u64,
    pub roots: Vec<PageId>,
}

pub struct PurgeQueues {
    leftovers: Mutex<Vec<Leftover>>,
    frees: Mutex<Vec<DeferredFree>>,
    /// Every tree in `frees` is pending there (its freeing is logged).
    pub pending: Arc<PendingTrees>,
    pub crash_points: Arc<CrashPoints>,
}

impl PurgeQueues {
    pub fn new(pending: Arc<PendingTrees>, crash_points: Arc<CrashPoints>) -> PurgeQueues {
        PurgeQueues { leftovers: Mutex::default(), frees: Mutex::default(), pending, crash_points }
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
    let limit = sys.purge_limit();
    let flushed = store.wal().flushed_lsn();
    // Candidate frees are taken before the leftovers are drained: a leftover in a tree being
    // dropped was reported before the DDL registered the free, so it is drained below first.
    let candidates: Vec<DeferredFree> = {
        let mut f = queues.frees.lock();
        let (ready, wait): (Vec<_>, Vec<_>) = f.drain(..).partition(|d| d.after <= limit);
        *f = wait;
        ready
    };
    let leftovers = std::mem::take(&mut *queues.leftovers.lock());
    for l in leftovers {
        if l.trx_id < limit && remove_if_delete_marked(store, l.root, &l.key, l.trx_id, Some(limit))? {
            res.records_removed += 1;
        }
    }
    for f in sys.take_purgeable(limit, flushed) {
        if f.committed {
            let mut seen: HashSet<(PageId, Box<[u8]>)> = HashSet::new();
            let mut todo = Vec::new();
            f.undo.for_each(|e| {
                if e.marks_deleted && !e.undone && seen.insert((e.root, e.key.clone())) {
                    todo.push((e.root, e.key.clone()));
                }
            });
            for (root, key) in todo {
                if remove_if_delete_marked(store, root, &key, f.trx_id, None)? {
                    res.records_removed += 1;
                }
            }
        }
        sys.undo.remove(f.trx_id);
        res.trx_purged += 1;
    }
    if candidates.is_empty() {
        return Ok(res);
    }
    let min_history = sys.min_history_trx_id();
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
                while !stop2.load(Ordering::Acquire) {
                    match purge_pass(&store, &sys, &queues) {
                        Ok(r) if r.trx_purged > 0 || r.records_removed > 0 => continue,
                        Ok(_) => std::thread::park_timeout(PURGE_INTERVAL),
                        Err(e) => {
                            // After a simulated crash every write fails: stop quietly.
                            tracing::error!("purge stopped: {e}");
                            return;
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
