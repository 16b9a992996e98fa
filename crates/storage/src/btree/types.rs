//! The B+tree's vocabulary: the tree handle, what a `modify` closure sees and decides, and the
//! value-size limit. A leaf, so that `read`, `write`, `merge` and `overflow` share it without
//! importing the facade in `mod.rs` (which calls them).

use crate::buffer::PageId;

/// One node of a tree as `BTree::nodes` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeFill {
    pub page: PageId,
    /// 0 for leaves.
    pub level: u8,
    /// Records (leaves) or separators (inner nodes).
    pub records: usize,
    /// Bytes of records and slots (out of `PAGE_SIZE - 64`).
    pub used_bytes: usize,
}

/// Longest value accepted (values beyond ~1/4 page go to overflow pages): a row of
/// max_allowed_packet's upper bound (1 GiB) and some room for its header and lengths.
pub const MAX_VALUE_LEN: usize = (1 << 30) + (2 << 20);

/// Commits the mtr that writes the first chunk of a value whose other chunks were written ahead
/// (`VersionedChange::PutAhead`), given that chunk's page: the caller logs there that the chain
/// now starts at that page.
pub(crate) type CommitHead = Box<dyn for<'m> FnOnce(crate::mtr::Mtr<'m>, PageId) + Send>;

/// What a `modify` closure decides for the record under the key.
pub enum Change {
    Keep,
    Put(Vec<u8>),
    Remove,
}

/// The record under the key, as `modify_versioned`'s closure sees it: the whole value, and the
/// bytes the leaf stores for it (the value itself, or the 16-byte reference of its overflow chain
/// when `chain`).
pub(crate) struct Existing<'a> {
    pub value: &'a [u8],
    pub stored: &'a [u8],
    pub chain: bool,
}

/// What a `modify_versioned` closure decides for the record under the key.
pub(crate) enum VersionedChange {
    Keep,
    /// Put a new value. With `keep_old_chain`, the previous value's overflow chain is not freed:
    /// the caller took it over (an undo record owns the previous version).
    Put {
        value: Vec<u8>,
        keep_old_chain: bool,
    },
    /// Put a value of `total` bytes whose chunks after the first are a chain written ahead
    /// starting at `tail` (`overflow::write_chain_ahead`): `first` is the first chunk (whole),
    /// written to its own page in an mtr `commit_head` commits, before the leaf changes.
    /// `keep_old_chain` as for `Put`.
    PutAhead {
        first: Vec<u8>,
        total: usize,
        tail: PageId,
        keep_old_chain: bool,
        commit_head: CommitHead,
    },
    /// Put back a value in its stored form (`Existing::stored` of an earlier version): with
    /// `chain`, the reference of an overflow chain the caller owned, which the tree owns again.
    PutStored {
        chain: bool,
        stored: Vec<u8>,
    },
    Remove,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BTree {
    pub root: PageId,
}
