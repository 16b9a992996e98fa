//! Optimistic reads: descent with lock coupling on versions, point gets, and copying a leaf's
//! records for cursors (docs §4.3). No latch is taken and nothing shared is written; every
//! result is copied out and validated, and a failed validation restarts the operation.

use smallvec::SmallVec;

use crate::buffer::latch::Backoff;
use crate::buffer::pool::OptPage;
use crate::buffer::{PageId, Shared, MAX_PAGE_COUNT, NO_PAGE};
use crate::error::{Result, StorageError};
use crate::page::{PageBytes, Torn};
use crate::wal::Lsn;

use super::overflow::{self, ChainError, OverflowRef};
use crate::page::node::{self, NodeHeader};

/// Deepest tree accepted: far beyond any real tree (fan-out >= 4 even with maximal keys); a
/// deeper path can only come from a corrupt page, and bounds every descent loop.
pub(crate) const MAX_DEPTH: usize = 32;

/// How an optimistic operation ended without a result.
pub(crate) enum ReadError {
    /// A page changed under the read: start over.
    Restart,
    Fail(StorageError),
}

impl From<StorageError> for ReadError {
    fn from(e: StorageError) -> ReadError {
        ReadError::Fail(e)
    }
}

pub(crate) type ReadResult<T> = std::result::Result<T, ReadError>;

/// Turns an inconsistent read into a restart if the page changed, or corruption if it did not.
pub(crate) fn check<T>(r: std::result::Result<T, Torn>, page: &OptPage) -> ReadResult<T> {
    r.map_err(|Torn| inconsistent(page))
}

pub(crate) fn inconsistent(page: &OptPage) -> ReadError {
    if page.validate() {
        ReadError::Fail(StorageError::Corruption(format!("page {} is inconsistent", page.pid())))
    } else {
        ReadError::Restart
    }
}

/// Runs an optimistic operation until it completes without a restart.
pub(crate) fn retry<T>(mut op: impl FnMut() -> ReadResult<T>) -> Result<T> {
    let mut backoff = Backoff::new();
    loop {
        match op() {
            Ok(v) => return Ok(v),
            Err(ReadError::Fail(e)) => return Err(e),
            Err(ReadError::Restart) => backoff.snooze(),
        }
    }
}

/// Which child an inner node's search follows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// The child whose range holds the key.
    Key,
    /// The child holding the greatest keys strictly below the key.
    Below,
    /// The last child (the greatest keys of the tree).
    Last,
}

/// One inner node on the path to a leaf, as observed.
pub(crate) struct PathNode<'a> {
    pub(crate) page: OptPage<'a>,
    /// Index of the child followed (0 = leftmost).
    pub(crate) child_index: usize,
    pub(crate) free_total: usize,
}

pub(crate) struct Descent<'a> {
    /// Inner nodes from the root down; each validated after its child was reached.
    pub(crate) path: SmallVec<[PathNode<'a>; 8]>,
    /// The leaf, NOT yet validated: the caller reads it and validates.
    pub(crate) leaf: OptPage<'a>,
    pub(crate) leaf_header: NodeHeader,
    /// The separator bounding the leaf's keys from below (None: leftmost leaf), if requested.
    pub(crate) low_fence: Option<Vec<u8>>,
}

/// Descends from `root` to the leaf for `key`. Lock coupling: a child is reached before its
/// parent is validated, and the parent is validated again after the child's version was taken,
/// so the path is one that existed at a single moment.
pub(crate) fn descend<'a>(
    shared: &'a Shared,
    root: PageId,
    key: &[u8],
    target: Target,
    want_fence: bool,
) -> ReadResult<Descent<'a>> {
    let mut page = shared.read_page(root)?;
    let mut path: SmallVec<[PathNode<'a>; 8]> = SmallVec::new();
    let mut expected_level: Option<u8> = None;
    let mut low_fence: Option<Vec<u8>> = None;
    loop {
        let view = page.view();
        let h = check(node::header(&view), &page)?;
        if expected_level.is_some_and(|l| l != h.level) || path.len() >= MAX_DEPTH {
            return Err(inconsistent(&page));
        }
        if h.is_leaf() {
            return Ok(Descent { path, leaf: page, leaf_header: h, low_fence });
        }
        let ci = match target {
            Target::Last => h.n_slots,
            _ => check(node::inner_search(&view, &h, key, target == Target::Below), &page)?,
        };
        let child = check(node::inner_child(&view, &h, ci), &page)?;
        if want_fence && ci > 0 {
            let r = check(node::inner_record(&view, &h, ci - 1), &page)?;
            let mut fence = Vec::with_capacity(r.key_len);
            check(crate::page::PageBytes::copy_at(&view, r.key_off, r.key_len, &mut fence), &page)?;
            low_fence = Some(fence);
        }
        if !page.validate() {
            return Err(ReadError::Restart);
        }
        if child == NO_PAGE || child >= MAX_PAGE_COUNT {
            return Err(ReadError::Fail(StorageError::Corruption(format!(
                "page {}: child {child} out of range",
                page.pid()
            ))));
        }
        let next = shared.read_page(child)?;
        if !page.validate() {
            return Err(ReadError::Restart);
        }
        expected_level = Some(h.level - 1);
        path.push(PathNode { page, child_index: ci, free_total: h.free_total() });
        page = next;
    }
}

/// A value found in a leaf: inline bytes, or a chain still to read.
enum Found {
    Inline(Vec<u8>),
    Overflow(OverflowRef),
}

fn copy_value<V: crate::page::PageBytes + ?Sized>(
    view: &V,
    rec: &node::LeafRecord,
) -> std::result::Result<Found, Torn> {
    let mut bytes = Vec::with_capacity(rec.val_len);
    view.copy_at(rec.val_off, rec.val_len, &mut bytes)?;
    if rec.is_overflow() {
        OverflowRef::decode(&bytes).map(Found::Overflow).ok_or(Torn)
    } else {
        Ok(Found::Inline(bytes))
    }
}

/// Whether `leaf` still holds what it held at `lsn` (its page LSN when its records were copied).
/// Reading a chain longer than the buffer pool's free frames evicts the leaf, which fails
/// `validate` although nothing changed; restarting then would evict it again, for ever. So an
/// evicted leaf is read again and compared by page LSN: every change of a page stamps a higher
/// one, and a chain is freed only by an mtr that changes its leaf.
fn leaf_unchanged(shared: &Shared, leaf: &OptPage, lsn: Lsn) -> ReadResult<bool> {
    if leaf.validate() {
        return Ok(true);
    }
    let again = shared.read_page(leaf.pid())?;
    let same = again.view().page_lsn() == Ok(lsn);
    Ok(again.validate() && same)
}

/// Reads an overflow value of a record in `leaf` (already validated once, at page LSN `lsn`)
/// and checks the leaf again: only then is the chain known to be the record's.
fn resolve(shared: &Shared, leaf: &OptPage, lsn: Lsn, found: Found) -> ReadResult<Vec<u8>> {
    match found {
        Found::Inline(v) => Ok(v),
        Found::Overflow(r) => {
            let value = match overflow::read_chain(shared, r) {
                Ok(v) => v,
                Err(ChainError::Fail(e)) => return Err(ReadError::Fail(e)),
                Err(ChainError::Inconsistent) => {
                    return Err(if leaf_unchanged(shared, leaf, lsn)? {
                        ReadError::Fail(StorageError::Corruption(format!(
                            "overflow chain at page {} is broken",
                            r.first
                        )))
                    } else {
                        ReadError::Restart
                    })
                }
            };
            if !leaf_unchanged(shared, leaf, lsn)? {
                return Err(ReadError::Restart);
            }
            Ok(value)
        }
    }
}

pub(crate) fn get(shared: &Shared, root: PageId, key: &[u8]) -> Result<Option<Vec<u8>>> {
    retry(|| {
        let d = descend(shared, root, key, Target::Key, false)?;
        let leaf = &d.leaf;
        let view = leaf.view();
        let (slot, found) = check(node::leaf_search(&view, &d.leaf_header, key), leaf)?;
        if !found {
            return if leaf.validate() { Ok(None) } else { Err(ReadError::Restart) };
        }
        let rec = check(node::leaf_record(&view, &d.leaf_header, slot), leaf)?;
        let value = check(copy_value(&view, &rec), leaf)?;
        let lsn = check(view.page_lsn(), leaf)?;
        if !leaf.validate() {
            return Err(ReadError::Restart);
        }
        resolve(shared, leaf, lsn, value).map(Some)
    })
}

/// Records copied from one leaf for a cursor step.
pub(crate) struct LeafCopy {
    /// In the requested direction (descending for reverse copies).
    pub(crate) records: Vec<(Vec<u8>, Vec<u8>)>,
    pub(crate) right_sibling: PageId,
    /// The leaf's page LSN when it was copied: any later change of the leaf moves it.
    pub(crate) lsn: Lsn,
    /// The leaf held keys beyond the copied range in the direction of travel (the scan's bound
    /// was reached inside this leaf).
    pub(crate) hit_bound: bool,
}

/// Which records of a leaf a cursor step copies.
pub(crate) struct CopyRange<'k> {
    /// Ascending: records after this key (inclusive flag); descending: records before it.
    pub(crate) from: Option<(&'k [u8], bool)>,
    /// The far bound (inclusive flag), or None.
    pub(crate) to: Option<(&'k [u8], bool)>,
    pub(crate) reverse: bool,
}

/// Copies the records of `leaf` in `range`, resolving overflow values, and validates.
pub(crate) fn copy_leaf(shared: &Shared, leaf: &OptPage, h: &NodeHeader, range: &CopyRange) -> ReadResult<LeafCopy> {
    let view = leaf.view();
    // Slot interval [lo, hi) of records within the range.
    let (mut lo, mut hi) = (0usize, h.n_slots);
    let mut hit_bound = false;
    let (start, end) = if range.reverse { (range.to, range.from) } else { (range.from, range.to) };
    if let Some((k, inclusive)) = start {
        lo = check(node::partition(&view, h, k, !inclusive), leaf)?;
    }
    if let Some((k, inclusive)) = end {
        hi = check(node::partition(&view, h, k, inclusive), leaf)?;
    }
    if hi < lo {
        hi = lo;
    }
    // Did the bound in the direction of travel cut this leaf short?
    let bound_in_leaf = if range.reverse { start.is_some() && lo > 0 } else { end.is_some() && hi < h.n_slots };
    if bound_in_leaf {
        hit_bound = true;
    }
    let mut records: Vec<(Vec<u8>, Found)> = Vec::with_capacity(hi - lo);
    for i in lo..hi {
        let rec = check(node::leaf_record(&view, h, i), leaf)?;
        let mut key = Vec::with_capacity(rec.key_len);
        check(crate::page::PageBytes::copy_at(&view, rec.key_off, rec.key_len, &mut key), leaf)?;
        let value = check(copy_value(&view, &rec), leaf)?;
        records.push((key, value));
    }
    let lsn = check(view.page_lsn(), leaf)?;
    if !leaf.validate() {
        return Err(ReadError::Restart);
    }
    let mut out = Vec::with_capacity(records.len());
    for (key, found) in records {
        out.push((key, resolve(shared, leaf, lsn, found)?));
    }
    if range.reverse {
        out.reverse();
    }
    Ok(LeafCopy { records: out, right_sibling: h.link, lsn, hit_bound })
}
