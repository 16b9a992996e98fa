//! Row versions larger than 4 MiB (docs/architecture.md §4.3, "Values larger than 4 MiB").
//!
//! A record's value is `MVCC header | row`, and the header's roll pointer is only known inside
//! the mtr that changes the leaf (it names the undo record written there). A value that large
//! cannot be written inside that mtr (its redo would not fit in one log entry) nor while the
//! leaf is latched (the log may fill up meanwhile, and its checkpoint cannot pass a latched dirty
//! leaf: the writer would wait for itself). So the value's chunks after the first, which hold no
//! header, are written first, holding no latch, in mtrs that wait at the log's sync point like
//! any row write; the first chunk (header included) is written while the leaf is latched, in one
//! page's mtr, and the leaf's mtr links the chain. From the first of those mtrs to the leaf's,
//! the chain is *pending* (crate::pending_trees): a crash frees it at the next start, an error
//! frees it at once, so its pages never leak and never reach a reader half-written.
//!
//! Smaller values take the usual path (`VersionedChange::Put`, written while the leaf is
//! latched), where an update shares the unchanged tail of the old value's chain.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::blocking;
use crate::btree::overflow::{self, OVERFLOW_CAPACITY};
use crate::btree::{CommitHead, VersionedChange};
use crate::buffer::{PageId, PageStore, NO_PAGE};
use crate::error::Result;
use crate::mtr::Mtr;
use crate::pending_trees::PendingTrees;
use crate::testpoint::{CrashPoint, CrashPoints};
use crate::trx::record::{with_header, RecHeader, HEADER_LEN};

/// Record values (header and row) above this are written ahead of their leaf's mtr: the largest
/// row before they were (one mtr then carried it).
pub(crate) const WRITE_AHEAD_ABOVE: usize = 4 << 20;

/// Where the row's bytes split between the first chunk (after the header) and the chain
/// written ahead.
const FIRST_CHUNK_ROW_BYTES: usize = OVERFLOW_CAPACITY - HEADER_LEN;

/// A value whose chunks after the first are written (a pending chain).
pub(crate) struct WrittenAhead {
    pending: Arc<PendingTrees>,
    /// The first page of the chain written ahead.
    tail: PageId,
    /// The page the pending chain starts at now: `tail`, or the first chunk's page once written.
    head: Arc<AtomicU64>,
}

/// Writes the chunks after the first of the value `header | payload` when it is larger than
/// `WRITE_AHEAD_ABOVE`; None for a smaller one.
pub(crate) fn write_ahead(
    store: &PageStore,
    pending: &Arc<PendingTrees>,
    crash_points: &CrashPoints,
    payload: &[u8],
) -> Result<Option<WrittenAhead>> {
    if HEADER_LEN + payload.len() <= WRITE_AHEAD_ABOVE {
        return Ok(None);
    }
    let mut started = NO_PAGE;
    let written = blocking::run(|| {
        let mut commit_first = |mtr: Mtr<'_>, first: PageId| {
            pending.commit_chain_change(mtr, Some(first), None);
            started = first;
        };
        let wal = store.wal();
        let mut between = || {
            crash_points.hit(CrashPoint::ChainWrittenAhead)?;
            wal.wait_admitted()
        };
        overflow::write_chain_ahead(store, &payload[FIRST_CHUNK_ROW_BYTES..], &mut commit_first, &mut between)
    });
    match written {
        Ok(tail) => Ok(Some(WrittenAhead { pending: pending.clone(), tail, head: Arc::new(AtomicU64::new(tail)) })),
        Err(e) => {
            if started != NO_PAGE {
                blocking::run(|| pending.free_chain_now(store, started));
            }
            Err(e)
        }
    }
}

impl WrittenAhead {
    /// The change that puts `header | payload` with this chain as its tail.
    pub(crate) fn change(&self, header: RecHeader, payload: &[u8], keep_old_chain: bool) -> VersionedChange {
        let first = with_header(header, &payload[..FIRST_CHUNK_ROW_BYTES]);
        let (pending, head, tail) = (self.pending.clone(), self.head.clone(), self.tail);
        let commit_head: CommitHead = Box::new(move |mtr, pid| {
            // The chain now starts at the first chunk's page, which links to the rest.
            pending.commit_chain_change(mtr, Some(pid), Some(tail));
            head.store(pid, Ordering::SeqCst);
        });
        VersionedChange::PutAhead { first, total: HEADER_LEN + payload.len(), tail, keep_old_chain, commit_head }
    }

    /// Commits the leaf's mtr, which links the chain: it is no longer pending.
    pub(crate) fn commit_linked(&self, mtr: Mtr<'_>) {
        let head = self.head.load(Ordering::SeqCst);
        debug_assert_ne!(head, self.tail, "the first chunk is written before the leaf changes");
        self.pending.commit_chain_change(mtr, None, Some(head));
    }

    /// Frees the chain after the change failed before its leaf's mtr.
    pub(crate) fn give_up(&self, store: &PageStore) {
        let head = self.head.load(Ordering::SeqCst);
        blocking::run(|| self.pending.free_chain_now(store, head));
    }
}
