//! Merges: a node left below MERGE_THRESHOLD by a removal is merged with a sibling under the same
//! parent, or takes records from it; the parent loses or changes a separator and may underflow in
//! turn; a root left with a single child takes that child's contents (docs §4.3).
//!
//! Latching (btree/write.rs): the writer latched, root-to-leaf, every ancestor that a merge may
//! reach, decided before its change from what it observed (exact for the leaf: the record under
//! the key; conservative for inner nodes: any entry). A sibling is latched only while its parent
//! is held: whoever holds a node without its parent never waits for a tree page at that level or
//! above, so these waits cannot form a cycle. Page 0 comes last: the pages a merge frees are
//! handed to the free list after every tree page is latched.
//!
//! The merged-away page is always the right one of the pair: the left one keeps its page id, so
//! the sibling link that points at it from the leaf before (under another parent, not latched)
//! stays right. A forward cursor that holds the id of the next leaf checks that the leaf it came
//! from did not change before it trusts the id (btree/cursor.rs): freeing a page changes its left
//! sibling.
//!
//! Everything a merge writes is computed from the latched pages before the first change, and
//! each step is logged in the writer's mtr: a crash keeps all of it or none.

use crate::buffer::redo::PageRecord;
use crate::buffer::{PageId, NO_PAGE, PAGE_SIZE};
use crate::error::{Result, StorageError};
use crate::mtr::Mtr;
use crate::page::PageType;

use super::types::BTree;
use crate::page::node::{self, NodeError, NodeHeader, MERGE_LIMIT, MERGE_THRESHOLD, NODE_CAPACITY, OFF_LINK};

fn corrupt(pid: PageId) -> StorageError {
    StorageError::Corruption(format!("page {pid} is inconsistent"))
}

fn node_err(pid: PageId) -> impl Fn(NodeError) -> StorageError {
    move |e| match e {
        NodeError::Corrupt => corrupt(pid),
        NodeError::NoRoom => StorageError::Corruption(format!("page {pid}: merge produced a node that does not fit")),
    }
}

fn header_of(mtr: &Mtr, pid: PageId) -> Result<NodeHeader> {
    node::header(mtr.page(pid)).map_err(|_| corrupt(pid))
}

/// Whether a leaf could fall below MERGE_THRESHOLD when the record under `key` is removed or
/// shrinks (exact: a put of a new key only grows the leaf).
pub(super) fn leaf_may_underflow<P: crate::page::PageBytes + ?Sized>(
    page: &P,
    h: &NodeHeader,
    key: &[u8],
) -> std::result::Result<bool, crate::page::Torn> {
    if h.used() >= MERGE_THRESHOLD + node::LEAF_WORST_CASE {
        return Ok(false);
    }
    let (slot, found) = node::leaf_search(page, h, key)?;
    if !found {
        return Ok(false);
    }
    let rec = node::leaf_record(page, h, slot)?;
    Ok(h.used() < MERGE_THRESHOLD + node::SLOT_SIZE + rec.size())
}

/// Whether an inner node could fall below MERGE_THRESHOLD when a change below removes one of
/// its entries or shortens one separator (conservative: the longest entry there can be).
pub(super) fn inner_may_underflow(free_total: usize) -> bool {
    NODE_CAPACITY - free_total < MERGE_THRESHOLD + node::INNER_WORST_CASE
}

/// What rebalancing one node did to its parent.
enum Outcome {
    /// The parent is unchanged.
    Nothing,
    /// The parent lost or changed a separator (it may underflow in turn).
    ParentChanged,
}

/// After a change that shrank the node `pids.last()` (and did not split it), merges or
/// rebalances it and then each ancestor it shrank, as far up as the latched path `pids` goes
/// (`child_index[i]` is the child followed in `pids[i]`). The pages merged away are appended to
/// `freed`; the caller frees them after the last tree page is latched.
pub(super) fn rebalance(
    tree: &BTree,
    mtr: &mut Mtr,
    pids: &[PageId],
    child_index: &[usize],
    freed: &mut Vec<PageId>,
) -> Result<()> {
    let mut at = pids.len() - 1;
    loop {
        let pid = pids[at];
        let h = header_of(mtr, pid)?;
        if pid == tree.root {
            if !h.is_leaf() && h.n_slots == 0 {
                shrink_root(mtr, pid, &h, freed)?;
            }
            return Ok(());
        }
        if h.used() >= MERGE_THRESHOLD || at == 0 {
            // Full enough, or the parent is not latched (the writer judged it could not be needed).
            return Ok(());
        }
        match rebalance_with_sibling(mtr, pids[at - 1], child_index[at - 1], pid, &h, freed)? {
            Outcome::Nothing => return Ok(()),
            Outcome::ParentChanged => at -= 1,
        }
    }
}

/// Merges the underfull node `pid` (child `ci` of `parent`) with its left sibling, or with its
/// right one if it is the leftmost child, or shares the pair's records evenly if a merged node
/// would fill more than MERGE_LIMIT.
fn rebalance_with_sibling(
    mtr: &mut Mtr,
    parent: PageId,
    ci: usize,
    pid: PageId,
    h: &NodeHeader,
    freed: &mut Vec<PageId>,
) -> Result<Outcome> {
    let ph = header_of(mtr, parent)?;
    if ph.is_leaf()
        || ci > ph.n_slots
        || node::inner_child(mtr.page(parent), &ph, ci).map_err(|_| corrupt(parent))? != pid
    {
        return Err(corrupt(parent));
    }
    if ph.n_slots == 0 {
        // An only child (of an inner node that lost its other children): nothing to merge with
        // under this parent; the parent itself is merged next if it can be.
        return Ok(Outcome::ParentChanged);
    }
    // The pair (left, right) and the separator between them: entry j of the parent.
    let (j, sibling) = if ci > 0 { (ci - 1, ci - 1) } else { (0, 1) };
    let sibling = node::inner_child(mtr.page(parent), &ph, sibling).map_err(|_| corrupt(parent))?;
    if sibling == NO_PAGE || sibling == pid {
        return Err(corrupt(parent));
    }
    let (left, right) = if ci > 0 { (sibling, pid) } else { (pid, sibling) };
    // Waiting is safe: we hold the parent (see the module doc).
    mtr.latch(sibling)?;
    let sh = header_of(mtr, sibling)?;
    if sh.page_type != h.page_type || sh.level != h.level {
        return Err(corrupt(sibling));
    }
    let sep = {
        let r = node::inner_record(mtr.page(parent), &ph, j).map_err(|_| corrupt(parent))?;
        mtr.page(parent)[r.key_off..r.key_off + r.key_len].to_vec()
    };
    let empty = h.n_slots == 0;
    let outcome = if h.is_leaf() {
        rebalance_leaves(mtr, parent, &ph, j, &sep, left, right, empty, freed)?
    } else {
        rebalance_inner(mtr, parent, &ph, j, &sep, left, right, empty, freed)?
    };
    if matches!(outcome, Outcome::Nothing) {
        mtr.release_unmodified(sibling);
    }
    Ok(outcome)
}

/// Whether the parent can hold `new_len` bytes of separator in place of `old_len`.
fn parent_takes(ph: &NodeHeader, old_len: usize, new_len: usize) -> bool {
    ph.free_total() + node::inner_footprint(old_len) >= node::inner_footprint(new_len)
}

/// Replaces separator `j` of `parent` (whose right child is `right`) by `key`.
fn replace_separator(mtr: &mut Mtr, parent: PageId, j: usize, key: &[u8], right: PageId) -> Result<()> {
    mtr.apply(parent, &PageRecord::InnerDelete { slot: j as u16 })?;
    mtr.apply(parent, &PageRecord::InnerInsert { slot: j as u16, key, child: right })
}

#[allow(clippy::too_many_arguments)]
fn rebalance_leaves(
    mtr: &mut Mtr,
    parent: PageId,
    ph: &NodeHeader,
    j: usize,
    sep: &[u8],
    left: PageId,
    right: PageId,
    empty: bool,
    freed: &mut Vec<PageId>,
) -> Result<Outcome> {
    let (left_entries, left_link) = node::leaf_entries(mtr.page(left)).map_err(node_err(left))?;
    let (right_entries, right_link) = node::leaf_entries(mtr.page(right)).map_err(node_err(right))?;
    if left_link != right {
        return Err(StorageError::Corruption(format!("leaf {left} links to {left_link}, not to its sibling {right}")));
    }
    let total = header_of(mtr, left)?.used() + header_of(mtr, right)?.used();
    if total <= MERGE_LIMIT || (empty && total <= NODE_CAPACITY) {
        // The right leaf's records move to the end of the left one, which takes its link.
        let n = left_entries.len();
        for (i, e) in right_entries.iter().enumerate() {
            mtr.apply(
                left,
                &PageRecord::LeafInsert { slot: (n + i) as u16, key: &e.key, flags: e.flags, value: &e.value },
            )?;
        }
        mtr.apply(left, &PageRecord::SetU64 { offset: OFF_LINK as u16, value: right_link })?;
        mtr.apply(parent, &PageRecord::InnerDelete { slot: j as u16 })?;
        freed.push(right);
        return Ok(Outcome::ParentChanged);
    }
    let mut all = left_entries;
    let n_left = all.len();
    all.extend(right_entries);
    let m = node::leaf_split_point(&all, false).map_err(node_err(left))?;
    if m == n_left {
        return Ok(Outcome::Nothing);
    }
    let new_sep = node::separator(&all[m - 1].key, &all[m].key);
    if !parent_takes(ph, sep.len(), new_sep.len()) {
        // A longer separator would split the parent: left underfull (rare; documented).
        return Ok(Outcome::Nothing);
    }
    let mut image = vec![0u8; PAGE_SIZE];
    node::build_leaf(&mut image, left, &all[..m], right).map_err(node_err(left))?;
    let mut right_image = vec![0u8; PAGE_SIZE];
    node::build_leaf(&mut right_image, right, &all[m..], right_link).map_err(node_err(right))?;
    mtr.apply_image(left, &image)?;
    mtr.apply_image(right, &right_image)?;
    replace_separator(mtr, parent, j, &new_sep, right)?;
    Ok(Outcome::ParentChanged)
}

#[allow(clippy::too_many_arguments)]
fn rebalance_inner(
    mtr: &mut Mtr,
    parent: PageId,
    ph: &NodeHeader,
    j: usize,
    sep: &[u8],
    left: PageId,
    right: PageId,
    empty: bool,
    freed: &mut Vec<PageId>,
) -> Result<Outcome> {
    let l = node::inner_entries(mtr.page(left)).map_err(node_err(left))?;
    let r = node::inner_entries(mtr.page(right)).map_err(node_err(right))?;
    // The separator comes down between the two: it bounds the right node's first child.
    let total = header_of(mtr, left)?.used() + header_of(mtr, right)?.used() + node::inner_footprint(sep.len());
    if total <= MERGE_LIMIT || (empty && total <= NODE_CAPACITY) {
        let n = l.entries.len();
        let moved = std::iter::once((sep.to_vec(), r.first_child)).chain(r.entries);
        for (i, (key, child)) in moved.enumerate() {
            mtr.apply(left, &PageRecord::InnerInsert { slot: (n + i) as u16, key: &key, child })?;
        }
        mtr.apply(parent, &PageRecord::InnerDelete { slot: j as u16 })?;
        freed.push(right);
        return Ok(Outcome::ParentChanged);
    }
    let mut all = l.entries;
    let n_left = all.len();
    all.push((sep.to_vec(), r.first_child));
    all.extend(r.entries);
    let m = node::inner_split_point(&all).map_err(node_err(left))?;
    if m == n_left {
        return Ok(Outcome::Nothing);
    }
    let (up_key, up_child) = all[m].clone();
    if !parent_takes(ph, sep.len(), up_key.len()) {
        return Ok(Outcome::Nothing);
    }
    let mut image = vec![0u8; PAGE_SIZE];
    node::build_inner(&mut image, left, l.level, l.first_child, &all[..m]).map_err(node_err(left))?;
    let mut right_image = vec![0u8; PAGE_SIZE];
    node::build_inner(&mut right_image, right, r.level, up_child, &all[m + 1..]).map_err(node_err(right))?;
    mtr.apply_image(left, &image)?;
    mtr.apply_image(right, &right_image)?;
    replace_separator(mtr, parent, j, &up_key, right)?;
    Ok(Outcome::ParentChanged)
}

/// The root was left with a single child: the child's contents move into the root (whose page
/// id never changes) and the tree is one level lower.
fn shrink_root(mtr: &mut Mtr, root: PageId, h: &NodeHeader, freed: &mut Vec<PageId>) -> Result<()> {
    let child = h.link;
    if !mtr.holds(child) {
        // The only child is latched whenever the merge that emptied the root ran; anything
        // else is a root that was stored with one child (not made by this code).
        return Ok(());
    }
    let ch = header_of(mtr, child)?;
    if ch.level + 1 != h.level {
        return Err(corrupt(child));
    }
    let mut image = vec![0u8; PAGE_SIZE];
    if ch.is_leaf() {
        let (entries, link) = node::leaf_entries(mtr.page(child)).map_err(node_err(child))?;
        if link != NO_PAGE {
            return Err(StorageError::Corruption(format!("leaf {child}, the only one, links to {link}")));
        }
        node::build_leaf(&mut image, root, &entries, NO_PAGE).map_err(node_err(root))?;
    } else {
        let e = node::inner_entries(mtr.page(child)).map_err(node_err(child))?;
        node::build_inner(&mut image, root, e.level, e.first_child, &e.entries).map_err(node_err(root))?;
    }
    debug_assert!(matches!(crate::page::PageBytes::page_type(&image[..]), Ok(PageType::Leaf | PageType::Inner)));
    mtr.apply_image(root, &image)?;
    freed.push(child);
    Ok(())
}
