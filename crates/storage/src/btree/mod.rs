//! B+tree over memcomparable byte keys and opaque byte values, on the page store.
//!
//! INTERFACE CONTRACT (frozen; owner: page-store helper). See docs/architecture.md §4.3.
//! Reads are optimistic (no shared write); results are copied out and validated before return.

use std::ops::Bound;

use crate::buffer::{PageId, PageStore};
use crate::error::Result;
use crate::mtr::Mtr;

/// Longest key accepted (MariaDB's InnoDB limit).
pub const MAX_KEY_LEN: usize = 3072;
/// Longest value accepted (values beyond ~1/4 page go to overflow pages).
pub const MAX_VALUE_LEN: usize = 64 << 20;

/// What a `modify` closure decides for the record under the key.
pub enum Change {
    Keep,
    Put(Vec<u8>),
    Remove,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BTree {
    pub root: PageId,
}

pub struct BTreeCursor {
    _private: (),
}

impl BTree {
    /// Allocates an empty tree (its root page) inside `mtr`.
    pub fn create(mtr: &mut Mtr) -> Result<BTree> {
        let _ = mtr;
        todo!("page store")
    }

    pub fn open(root: PageId) -> BTree {
        BTree { root }
    }

    /// Frees every page of the tree (in several mtrs). The tree must no longer be reachable.
    pub fn destroy(self, store: &PageStore) -> Result<()> {
        let _ = store;
        todo!("page store")
    }

    /// The value under `key`, copied out.
    pub fn get(&self, store: &PageStore, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let _ = (store, key);
        todo!("page store")
    }

    /// Read-modify-write of one record with its leaf X-latched in `mtr` (held until
    /// `mtr.commit`). `f` sees the current value (None if absent) and decides the change.
    pub fn modify<R>(&self, mtr: &mut Mtr, key: &[u8], f: impl FnOnce(Option<&[u8]>) -> (Change, R)) -> Result<R> {
        let _ = (mtr, key, f);
        todo!("page store")
    }

    /// Cursor over `[lower, upper]` (bounds on whole keys), ascending or descending.
    pub fn cursor(&self, lower: Bound<Vec<u8>>, upper: Bound<Vec<u8>>, reverse: bool) -> BTreeCursor {
        let _ = (lower, upper, reverse);
        todo!("page store")
    }
}

impl BTreeCursor {
    /// Next (key, value), copied out and validated. Holds no latch between calls.
    pub fn next(&mut self, store: &PageStore) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        let _ = store;
        todo!("page store")
    }
}
