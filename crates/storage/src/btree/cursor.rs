//! Range cursors (docs §4.3): each step copies (and validates) one leaf's worth of records and
//! holds no latch between calls. Forward, a cursor continues at the right sibling of the leaf it
//! copied if that leaf has not changed since (same page LSN), and re-seeks its last key from the
//! root otherwise: a merge frees a leaf only in an mtr that changes its left sibling, so an
//! unchanged leaf's sibling link names a live leaf of the tree, never a freed or reused page,
//! and records that moved to the left of the cursor went into a leaf it then sees changed.
//! Backward, it re-seeks the greatest keys below the low fence of the leaf it copied.

use std::collections::{HashSet, VecDeque};
use std::ops::Bound;

use crate::buffer::pool::OptPage;
use crate::buffer::{PageId, PageStore, Shared, NO_PAGE};
use crate::error::{Result, StorageError};
use crate::page::{PageBytes, Torn};
use crate::wal::Lsn;

use super::read::{copy_leaf, descend, inconsistent, retry, CopyRange, ReadError, ReadResult, Target};
use crate::page::node::{self, NodeHeader};

pub struct BTreeCursor {
    root: PageId,
    lower: Bound<Vec<u8>>,
    upper: Bound<Vec<u8>>,
    reverse: bool,
    /// Where the next step starts: forward, a lower bound; backward, an upper bound.
    resume: Bound<Vec<u8>>,
    /// Forward: the right sibling of the leaf copied last (NO_PAGE: seek from the root).
    next_leaf: PageId,
    /// Forward: the leaf copied last and its page LSN then (the sibling link is trusted only
    /// while that leaf is unchanged).
    prev_leaf: Option<(PageId, Lsn)>,
    /// Forward: the leaves reached along sibling links since the last one that gave records.
    /// Sibling links only lead right, so meeting one of them again means the links of a corrupt
    /// page form a cycle, which the cursor would otherwise follow for ever (every leaf on it
    /// copies nothing new).
    empty_run: HashSet<PageId>,
    batch: VecDeque<(Vec<u8>, Vec<u8>)>,
    done: bool,
}

fn as_ref(b: &Bound<Vec<u8>>) -> Option<(&[u8], bool)> {
    match b {
        Bound::Included(k) => Some((k.as_slice(), true)),
        Bound::Excluded(k) => Some((k.as_slice(), false)),
        Bound::Unbounded => None,
    }
}

/// The leaf at `pid`, the right sibling of `prev` when `prev` was at page LSN `prev_lsn`, if
/// `prev` is still unchanged and `pid` a leaf (None: seek from the root instead). `pid` is read
/// before `prev` is validated, so it was `prev`'s sibling when its version was taken.
fn hinted_leaf(
    shared: &Shared,
    (prev, prev_lsn): (PageId, Lsn),
    pid: PageId,
) -> ReadResult<Option<(OptPage<'_>, NodeHeader)>> {
    let before = shared.read_page(prev)?;
    let view = before.view();
    let unchanged =
        view.page_lsn() == Ok(prev_lsn) && matches!(node::header(&view), Ok(h) if h.is_leaf() && h.link == pid);
    if !unchanged {
        return Ok(None);
    }
    let page = shared.read_page(pid)?;
    if !before.validate() {
        return Err(ReadError::Restart);
    }
    match node::header(&page.view()) {
        Ok(h) if h.is_leaf() => Ok(Some((page, h))),
        Ok(_) | Err(Torn) => match inconsistent(&page) {
            ReadError::Restart => Err(ReadError::Restart),
            ReadError::Fail(_) => Ok(None),
        },
    }
}

impl BTreeCursor {
    pub(crate) fn new(root: PageId, lower: Bound<Vec<u8>>, upper: Bound<Vec<u8>>, reverse: bool) -> BTreeCursor {
        let resume = if reverse { upper.clone() } else { lower.clone() };
        BTreeCursor {
            root,
            lower,
            upper,
            reverse,
            resume,
            next_leaf: NO_PAGE,
            prev_leaf: None,
            empty_run: HashSet::new(),
            batch: VecDeque::new(),
            done: false,
        }
    }

    /// Next (key, value), copied out and validated. Holds no latch between calls.
    pub fn next(&mut self, store: &PageStore) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        loop {
            if let Some(r) = self.batch.pop_front() {
                return Ok(Some(r));
            }
            if self.done {
                return Ok(None);
            }
            if self.reverse {
                self.step_backward(store.shared())?;
            } else {
                self.step_forward(store.shared())?;
            }
        }
    }

    fn step_forward(&mut self, shared: &Shared) -> Result<()> {
        let from = as_ref(&self.resume);
        let to = as_ref(&self.upper);
        let (root, hint, prev) = (self.root, self.next_leaf, self.prev_leaf);
        let (copy, leaf, by_link) = retry(|| {
            let hinted = match prev {
                Some(prev) if hint != NO_PAGE => hinted_leaf(shared, prev, hint)?,
                _ => None,
            };
            let by_link = hinted.is_some();
            let (leaf, h) = match hinted {
                Some(found) => found,
                None => {
                    let d = descend(shared, root, from.map_or(&[][..], |(k, _)| k), Target::Key, false)?;
                    (d.leaf, d.leaf_header)
                }
            };
            Ok((copy_leaf(shared, &leaf, &h, &CopyRange { from, to, reverse: false })?, leaf.pid(), by_link))
        })?;
        if !by_link {
            // A seek from the root is no step along sibling links: it may meet the leaf it met
            // before (a changed leaf holding the last key) without any cycle.
            self.empty_run.clear();
        }
        if let Some((last, _)) = copy.records.last() {
            self.resume = Bound::Excluded(last.clone());
            self.empty_run.clear();
        } else if !self.empty_run.insert(leaf) {
            self.done = true;
            return Err(StorageError::Corruption(format!("page {leaf}: the leaves' sibling links form a cycle")));
        }
        self.batch.extend(copy.records);
        if copy.hit_bound || copy.right_sibling == NO_PAGE {
            self.done = true;
        }
        self.next_leaf = copy.right_sibling;
        self.prev_leaf = Some((leaf, copy.lsn));
        Ok(())
    }

    fn step_backward(&mut self, shared: &Shared) -> Result<()> {
        let from = as_ref(&self.resume);
        let to = as_ref(&self.lower);
        let root = self.root;
        let (copy, fence) = retry(|| {
            let (key, target) = match from {
                Some((k, true)) => (k, Target::Key),
                Some((k, false)) => (k, Target::Below),
                None => (&[][..], Target::Last),
            };
            let d = descend(shared, root, key, target, true)?;
            let copy = copy_leaf(shared, &d.leaf, &d.leaf_header, &CopyRange { from, to, reverse: true })?;
            Ok((copy, d.low_fence))
        })?;
        self.batch.extend(copy.records);
        match fence {
            // Every key of the copied leaf is >= its fence; the next keys are below it.
            Some(fence) if !copy.hit_bound && to.is_none_or(|(low, _)| fence.as_slice() > low) => {
                self.resume = Bound::Excluded(fence);
            }
            _ => self.done = true,
        }
        Ok(())
    }
}
