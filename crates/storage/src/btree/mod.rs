//! B+tree over memcomparable byte keys and opaque byte values, on the page store.
//!
//! Built on `mtr` and the buffer pool; the node page format it changes is `crate::page::node`,
//! below the pool, because redo applies the same changes (docs/architecture.md §4.3).
//! Reads are optimistic (no shared write); results are copied out and validated before return.
//!
//! Module map, bottom to top (each names only modules before it): `types` (the `BTree` handle,
//! `Change`, `NodeFill`, value limit), `overflow` (chains for large values), `read` (optimistic
//! descent, get, leaf copies), `cursor` (range scans), `merge` (merges and rebalancing after
//! removals), `write` (modify, latching for writes, splits, create, destroy). This file is the
//! facade: `BTree`'s methods, each a call into `read`, `write` or `cursor`.
//!
//! `merge` keeps every node but the root at least MERGE_THRESHOLD full after removals (merging
//! or rebalancing with a sibling, freeing the emptied page, lowering the tree when the root is
//! left with one child).

mod cursor;
mod merge;
pub(crate) mod overflow;
mod read;
mod types;
mod write;

use std::ops::Bound;

use crate::buffer::{PageId, PageStore};
use crate::error::Result;
use crate::mtr::Mtr;

pub use cursor::BTreeCursor;
pub use overflow::ChainCensus;
pub(crate) use types::CommitHead;
pub use types::{BTree, Change, NodeFill, MAX_VALUE_LEN};
pub(crate) use types::{Existing, VersionedChange};

/// A node (other than the root) whose records and slots fill fewer bytes than this after a
/// removal is merged with a sibling or takes records from it (the reason for a quarter page is
/// at `node::MERGE_THRESHOLD`).
pub const MERGE_THRESHOLD: usize = crate::page::node::MERGE_THRESHOLD;

pub use crate::page::node::MAX_KEY_LEN;

impl BTree {
    /// Allocates an empty tree (its root page) inside `mtr`.
    pub fn create(mtr: &mut Mtr) -> Result<BTree> {
        write::create(mtr)
    }

    pub fn open(root: PageId) -> BTree {
        BTree { root }
    }

    /// Frees every page of the tree (in several mtrs). The tree must no longer be reachable.
    pub fn destroy(self, store: &PageStore) -> Result<()> {
        write::destroy(self, store)
    }

    /// First part of `destroy`, restartable after a crash: frees every page but the root (the
    /// freed pages wait on a chain anchored in the root, unusable by others until
    /// `free_stripped_root`). `between_mtrs` runs after each mtr; an error from it stops the
    /// strip (the next strip continues where this one stopped).
    pub fn strip(self, store: &PageStore, between_mtrs: &mut dyn FnMut() -> Result<()>) -> Result<()> {
        write::strip(self, store, between_mtrs)
    }

    /// Last part of `destroy`: frees the stripped root and the pages waiting on it, in `mtr`,
    /// which must not hold any latch yet (the caller may log in it what the freeing means).
    pub fn free_stripped_root(self, mtr: &mut Mtr) -> Result<()> {
        write::free_stripped_root(self, mtr)
    }

    /// Every page of the tree, nodes and overflow pages (space accounting).
    pub fn pages(self, store: &PageStore) -> Result<Vec<PageId>> {
        write::tree_pages(store.shared(), self.root, None)
    }

    /// `pages`, leaving out chain tails shared with chains `census` counted before (space
    /// accounting over several trees and undo logs: each page once).
    pub fn pages_counted(self, store: &PageStore, census: &mut ChainCensus) -> Result<Vec<PageId>> {
        write::tree_pages(store.shared(), self.root, Some(census))
    }

    /// Every node with its fill, root first, then each subtree left to right (diagnostics; the
    /// tree must not change meanwhile).
    pub fn nodes(self, store: &PageStore) -> Result<Vec<NodeFill>> {
        write::nodes(store.shared(), self.root)
    }

    /// The value under `key`, copied out.
    pub fn get(&self, store: &PageStore, key: &[u8]) -> Result<Option<Vec<u8>>> {
        if key.len() > MAX_KEY_LEN {
            return Ok(None); // no such key can be stored
        }
        read::get(store.shared(), self.root, key)
    }

    /// Read-modify-write of one record with its leaf X-latched in `mtr` (held until
    /// `mtr.commit`). `f` sees the current value (None if absent) and decides the change.
    ///
    /// `f` runs exactly once, with every page the change may touch already latched; it must not
    /// access the page store itself. `modify` must be the first latching operation of the mtr
    /// (see mtr.rs for the latch order). Errors: `KeyTooLong` (before `f` runs), `RowTooLarge`
    /// if `f` returns a value over MAX_VALUE_LEN (nothing is changed), I/O and corruption.
    pub fn modify<R>(&self, mtr: &mut Mtr, key: &[u8], f: impl FnOnce(Option<&[u8]>) -> (Change, R)) -> Result<R> {
        write::modify(self, mtr, key, f)
    }

    /// `modify` for MVCC records: the closure also sees how the value is stored, and may take
    /// over the previous value's overflow chain or put back an earlier stored form (undo).
    pub(crate) fn modify_versioned<R>(
        &self,
        mtr: &mut Mtr,
        key: &[u8],
        f: impl FnOnce(Option<Existing<'_>>) -> (VersionedChange, R),
    ) -> Result<R> {
        write::modify_versioned(self, mtr, key, f)
    }

    /// Cursor over `[lower, upper]` (bounds on whole keys), ascending or descending.
    pub fn cursor(&self, lower: Bound<Vec<u8>>, upper: Bound<Vec<u8>>, reverse: bool) -> BTreeCursor {
        BTreeCursor::new(self.root, lower, upper, reverse)
    }
}
