//! Writes: latching the leaf (and the ancestors a split may change), running the caller's
//! decision, changing the leaf, and splitting (docs §4.3).
//!
//! A writer descends optimistically. If the leaf has room for any put of any key
//! (`LEAF_WORST_CASE`), it upgrades just the leaf with a CAS on the observed version. Otherwise a
//! split is possible: it upgrades, top-down, the lowest ancestor that could absorb a new
//! separator and everything below it. Upgrades are CASes (they never wait), so taking them
//! top-down after an optimistic descent cannot deadlock; a failed CAS restarts the descent. After
//! repeated failures the writer falls back to waiting latches taken root-to-leaf (latch
//! crabbing), still top-down. The caller's closure runs once, with every page the change may
//! touch already latched, so a split never needs a latch it does not hold.

use smallvec::SmallVec;

use crate::buffer::latch::Backoff;
use crate::buffer::pool::XGuard;
use crate::buffer::redo::PageRecord;
use crate::buffer::{PageId, Shared, HEADER_PAGE, NO_PAGE, PAGE_SIZE};
use crate::error::{Result, StorageError};
use crate::mtr::Mtr;
use crate::page::{get_u64, PageBytes, PageType, Torn, OFF_FREE_HEAD, OFF_NEXT};

use super::merge;
use super::overflow::{self, ChainCensus, ChainPage, OverflowRef};
use super::read::{descend, ReadError, Target, MAX_DEPTH};
use super::types::{BTree, Change, Existing, NodeFill, VersionedChange, MAX_VALUE_LEN};
use crate::page::node::{
    self, LeafEntry, NodeError, FLAG_OVERFLOW, INNER_WORST_CASE, LEAF_WORST_CASE, MAX_INLINE_RECORD, MAX_KEY_LEN,
};

/// Optimistic write attempts (CAS upgrades) before falling back to waiting latches.
const MAX_OPTIMISTIC_ATTEMPTS: usize = 16;

fn corrupt(pid: PageId) -> StorageError {
    StorageError::Corruption(format!("page {pid} is inconsistent"))
}

fn node_err(pid: PageId) -> impl Fn(NodeError) -> StorageError {
    move |e| match e {
        NodeError::Corrupt => corrupt(pid),
        NodeError::NoRoom => StorageError::Corruption(format!("page {pid}: split produced a node that does not fit")),
    }
}

/// Latched pages for one write, root-side first; the leaf is last.
struct WritePath<'a> {
    guards: SmallVec<[XGuard<'a>; 4]>,
    /// For each latched inner node, the index of the child followed.
    child_index: SmallVec<[usize; 4]>,
}

fn latch_for_write<'a>(shared: &'a Shared, root: PageId, key: &[u8]) -> Result<WritePath<'a>> {
    let mut backoff = Backoff::new();
    for _ in 0..MAX_OPTIMISTIC_ATTEMPTS {
        let d = match descend(shared, root, key, Target::Key, false) {
            Ok(d) => d,
            Err(ReadError::Restart) => {
                backoff.snooze();
                continue;
            }
            Err(ReadError::Fail(e)) => return Err(e),
        };
        // The leaf alone if no split is possible; else from the lowest ancestor that can take a
        // separator (or the root) down.
        let mut first = if d.leaf_header.free_total() >= LEAF_WORST_CASE {
            d.path.len()
        } else {
            let mut s = d.path.len();
            while s > 0 {
                s -= 1;
                if d.path[s].free_total >= INNER_WORST_CASE {
                    break;
                }
            }
            s
        };
        // A merge needs the parent of every node it may shrink below the threshold.
        let leaf_risk = match merge::leaf_may_underflow(&d.leaf.view(), &d.leaf_header, key) {
            Ok(risk) => risk,
            Err(Torn) if d.leaf.validate() => false, // corrupt: the change reports it
            Err(Torn) => {
                backoff.snooze();
                continue;
            }
        };
        if leaf_risk && !d.path.is_empty() {
            let mut s = d.path.len() - 1;
            while s > 0 && merge::inner_may_underflow(d.path[s].free_total) {
                s -= 1;
            }
            first = first.min(s);
        }
        let mut guards: SmallVec<[XGuard<'a>; 4]> = SmallVec::new();
        let upgraded =
            d.path[first..].iter().map(|n| &n.page).chain(std::iter::once(&d.leaf)).all(|p| match shared.upgrade(p) {
                Some(g) => {
                    guards.push(g);
                    true
                }
                None => false,
            });
        if upgraded {
            let child_index = d.path[first..].iter().map(|n| n.child_index).collect();
            return Ok(WritePath { guards, child_index });
        }
        drop(guards);
        backoff.snooze();
    }
    latch_for_write_waiting(shared, root, key)
}

/// The fallback: waiting exclusive latches root-to-leaf, releasing the ancestors of every node
/// that can absorb a split below it and cannot be shrunk below the merge threshold by it.
fn latch_for_write_waiting<'a>(shared: &'a Shared, root: PageId, key: &[u8]) -> Result<WritePath<'a>> {
    let mut guards: SmallVec<[XGuard<'a>; 4]> = SmallVec::new();
    let mut child_index: SmallVec<[usize; 4]> = SmallVec::new();
    let mut guard = shared.latch_page(root)?;
    let mut expected_level = None;
    loop {
        let pid = guard.pid();
        let h = node::header(guard.page()).map_err(|_| corrupt(pid))?;
        if expected_level.is_some_and(|l| l != h.level) || guards.len() >= MAX_DEPTH {
            return Err(corrupt(pid));
        }
        let split_safe = h.free_total() >= if h.is_leaf() { LEAF_WORST_CASE } else { INNER_WORST_CASE };
        let merge_safe = if h.is_leaf() {
            !merge::leaf_may_underflow(guard.page(), &h, key).map_err(|_| corrupt(pid))?
        } else {
            !merge::inner_may_underflow(h.free_total())
        };
        if split_safe && merge_safe {
            guards.clear();
            child_index.clear();
        }
        if h.is_leaf() {
            guards.push(guard);
            return Ok(WritePath { guards, child_index });
        }
        let ci = node::inner_search(guard.page(), &h, key, false).map_err(|_| corrupt(pid))?;
        let child = node::inner_child(guard.page(), &h, ci).map_err(|_| corrupt(pid))?;
        guards.push(guard);
        child_index.push(ci);
        expected_level = Some(h.level - 1);
        guard = shared.latch_page(child)?;
    }
}

pub(crate) fn modify<R>(
    tree: &BTree,
    mtr: &mut Mtr,
    key: &[u8],
    f: impl FnOnce(Option<&[u8]>) -> (Change, R),
) -> Result<R> {
    modify_versioned(tree, mtr, key, |cur| {
        let (change, out) = f(cur.map(|c| c.value));
        let change = match change {
            Change::Keep => VersionedChange::Keep,
            Change::Put(value) => VersionedChange::Put { value, keep_old_chain: false },
            Change::Remove => VersionedChange::Remove,
        };
        (change, out)
    })
}

pub(crate) fn modify_versioned<R>(
    tree: &BTree,
    mtr: &mut Mtr,
    key: &[u8],
    f: impl FnOnce(Option<Existing<'_>>) -> (VersionedChange, R),
) -> Result<R> {
    if key.len() > MAX_KEY_LEN {
        return Err(StorageError::KeyTooLong { max: MAX_KEY_LEN });
    }
    assert!(
        !mtr.holds_any(),
        "BTree::modify must be the first latching operation of its mtr (one modify per mtr, before any BTree::create)"
    );
    let path = latch_for_write(mtr.shared(), tree.root, key)?;
    let pids: SmallVec<[PageId; 4]> = path.guards.iter().map(XGuard::pid).collect();
    for g in path.guards {
        mtr.adopt(g);
    }
    let result = change_leaf(tree, mtr, &pids, &path.child_index, key, f);
    for &pid in &pids {
        mtr.release_unmodified(pid);
    }
    result
}

/// The record under the key, as found in the latched leaf.
#[derive(Clone, Copy)]
enum Current {
    Absent,
    Inline,
    Overflow(OverflowRef),
}

fn change_leaf<R>(
    tree: &BTree,
    mtr: &mut Mtr,
    pids: &[PageId],
    child_index: &[usize],
    key: &[u8],
    f: impl FnOnce(Option<Existing<'_>>) -> (VersionedChange, R),
) -> Result<R> {
    let leaf = *pids.last().expect("a write path ends at a leaf");
    let page = mtr.page(leaf);
    let h = node::header(page).map_err(|_| corrupt(leaf))?;
    let (slot, found) = node::leaf_search(page, &h, key).map_err(|_| corrupt(leaf))?;
    let current = if found {
        let rec = node::leaf_record(page, &h, slot).map_err(|_| corrupt(leaf))?;
        if rec.is_overflow() {
            Current::Overflow(
                OverflowRef::decode(&page[rec.val_off..rec.val_off + rec.val_len]).ok_or_else(|| corrupt(leaf))?,
            )
        } else {
            Current::Inline
        }
    } else {
        Current::Absent
    };
    let overflow_value = match current {
        Current::Overflow(r) => Some(match overflow::read_chain(mtr.shared(), r) {
            Ok(v) => v,
            Err(overflow::ChainError::Fail(e)) => return Err(e),
            Err(overflow::ChainError::Inconsistent) => return Err(corrupt(r.first)),
        }),
        _ => None,
    };
    let (change, out) = {
        let page = mtr.page(leaf);
        let existing = match current {
            Current::Absent => None,
            Current::Inline => {
                let rec = node::leaf_record(page, &h, slot).map_err(|_| corrupt(leaf))?;
                let value = &page[rec.val_off..rec.val_off + rec.val_len];
                Some(Existing { value, stored: value, chain: false })
            }
            Current::Overflow(_) => {
                let rec = node::leaf_record(page, &h, slot).map_err(|_| corrupt(leaf))?;
                let stored = &page[rec.val_off..rec.val_off + rec.val_len];
                Some(Existing { value: overflow_value.as_deref().expect("read above"), stored, chain: true })
            }
        };
        f(existing)
    };
    // The old chain is freed with the change unless its ownership passes to the caller (an undo
    // record keeps the previous version's chain) or the change puts that same chain back.
    let frees_old_chain = match (&current, &change) {
        (Current::Overflow(_), VersionedChange::Put { keep_old_chain, .. })
        | (Current::Overflow(_), VersionedChange::PutAhead { keep_old_chain, .. }) => !keep_old_chain,
        (Current::Overflow(r), VersionedChange::PutStored { chain: true, stored }) => {
            OverflowRef::decode(stored).is_none_or(|n| n.first != r.first)
        }
        (Current::Overflow(_), VersionedChange::PutStored { .. } | VersionedChange::Remove) => true,
        _ => false,
    };
    // A new value that ends like the old one (same length, equal chunks from some index on)
    // shares the old chain's pages from there (btree/overflow.rs).
    let shared_tail = match (&change, &overflow_value) {
        (VersionedChange::Put { value, .. }, Some(old))
            if node::leaf_record_size(key.len(), value.len()) > MAX_INLINE_RECORD =>
        {
            overflow::shared_tail_from(old, value)
        }
        _ => None,
    };
    // Walk the old chain before changing anything, so that a broken chain fails the change.
    let old_chain = match current {
        Current::Overflow(r) if frees_old_chain || shared_tail.is_some() => {
            Some(overflow::walk_chain(mtr.shared(), r)?)
        }
        _ => None,
    };
    let junction = shared_tail.map(|k| (k, old_chain.as_ref().expect("walked above")[k].pid));
    // Whether the leaf may have shrunk (a removal, or a smaller record in place of one).
    let shrunk = match change {
        VersionedChange::Keep => false,
        VersionedChange::Remove => {
            if found {
                mtr.apply(leaf, &PageRecord::LeafDelete { slot: slot as u16 })?;
            }
            found
        }
        VersionedChange::Put { value, .. } => {
            if value.len() > MAX_VALUE_LEN {
                return Err(StorageError::RowTooLarge { max: MAX_VALUE_LEN });
            }
            // A new chain is written (in mtrs of its own) before this mtr takes page 0.
            let (flags, stored) = if node::leaf_record_size(key.len(), value.len()) <= MAX_INLINE_RECORD {
                (0, value)
            } else if let Some((k, tail)) = junction {
                let head = &value[..k * overflow::OVERFLOW_CAPACITY];
                (FLAG_OVERFLOW, overflow::write_chain_onto(mtr.store(), head, value.len(), tail)?.encode().to_vec())
            } else {
                (FLAG_OVERFLOW, overflow::write_chain(mtr.store(), &value)?.encode().to_vec())
            };
            put(tree, mtr, pids, child_index, slot, found, key, flags, &stored)? == Put::InPlace && found
        }
        VersionedChange::PutAhead { first, total, tail, commit_head, .. } => {
            if total > MAX_VALUE_LEN {
                return Err(StorageError::RowTooLarge { max: MAX_VALUE_LEN });
            }
            let head = overflow::write_first_chunk(mtr.store(), &first, total, tail, commit_head)?;
            put(tree, mtr, pids, child_index, slot, found, key, FLAG_OVERFLOW, &head.encode())? == Put::InPlace && found
        }
        VersionedChange::PutStored { chain, stored } => {
            let valid = if chain {
                OverflowRef::decode(&stored).is_some()
            } else {
                node::leaf_record_size(key.len(), stored.len()) <= MAX_INLINE_RECORD
            };
            if !valid {
                return Err(StorageError::Corruption(format!(
                    "stored value of {} bytes cannot be put back",
                    stored.len()
                )));
            }
            let flags = if chain { FLAG_OVERFLOW } else { 0 };
            put(tree, mtr, pids, child_index, slot, found, key, flags, &stored)? == Put::InPlace && found
        }
    };
    // Merges latch tree pages (siblings): before anything below takes page 0.
    let mut freed = Vec::new();
    if shrunk {
        merge::rebalance(tree, mtr, pids, child_index, &mut freed)?;
    }
    for pid in freed {
        mtr.free_page(pid)?;
    }
    // The new chain's reference to the shared tail counts before the old chain lets go of it.
    if let Some((_, tail)) = junction {
        overflow::add_reference(mtr, tail)?;
    }
    if let Some(pages) = old_chain.filter(|_| frees_old_chain) {
        overflow::release_chain(mtr, &pages)?;
    }
    Ok(out)
}

/// How `put` changed the leaf.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Put {
    InPlace,
    Split,
}

#[allow(clippy::too_many_arguments)]
fn put(
    tree: &BTree,
    mtr: &mut Mtr,
    pids: &[PageId],
    child_index: &[usize],
    slot: usize,
    found: bool,
    key: &[u8],
    flags: u8,
    value: &[u8],
) -> Result<Put> {
    let leaf = *pids.last().expect("leaf");
    let page = mtr.page(leaf);
    let h = node::header(page).map_err(|_| corrupt(leaf))?;
    let slot16 = slot as u16;
    if found {
        let old = node::leaf_record(page, &h, slot).map_err(|_| corrupt(leaf))?;
        if node::leaf_update_fits(&h, &old, value.len()) {
            return mtr.apply(leaf, &PageRecord::LeafUpdate { slot: slot16, flags, value }).map(|_| Put::InPlace);
        }
    } else if node::leaf_insert_fits(&h, key.len(), value.len()) {
        return mtr.apply(leaf, &PageRecord::LeafInsert { slot: slot16, key, flags, value }).map(|_| Put::InPlace);
    }
    let new = LeafEntry { key: key.to_vec(), flags, value: value.to_vec() };
    split_leaf(tree, mtr, pids, child_index, slot, found, new).map(|_| Put::Split)
}

fn scratch_page() -> Vec<u8> {
    vec![0u8; PAGE_SIZE]
}

/// The pages a split rewrites, computed (and their pages allocated) before any is changed, so
/// that an error while planning leaves the tree as it was.
#[derive(Default)]
struct SplitPlan {
    images: Vec<(PageId, Vec<u8>)>,
    /// The separator insert into the first ancestor with room: (page, slot, key, child).
    insert: Option<(PageId, usize, Vec<u8>, PageId)>,
}

/// Splits the leaf (last of `pids`) while putting `new` at `slot` (replacing the record there if
/// `replace`).
fn split_leaf(
    tree: &BTree,
    mtr: &mut Mtr,
    pids: &[PageId],
    child_index: &[usize],
    slot: usize,
    replace: bool,
    new: LeafEntry,
) -> Result<()> {
    let leaf = *pids.last().expect("leaf");
    let (mut entries, right_sibling) = node::leaf_entries(mtr.page(leaf)).map_err(node_err(leaf))?;
    if slot > entries.len() || (replace && slot == entries.len()) {
        return Err(corrupt(leaf));
    }
    let appending = !replace && slot == entries.len() && right_sibling == NO_PAGE;
    if replace {
        entries[slot] = new;
    } else {
        entries.insert(slot, new);
    }
    let m = node::leaf_split_point(&entries, appending).map_err(node_err(leaf))?;
    let sep = node::separator(&entries[m - 1].key, &entries[m].key);
    let mut plan = SplitPlan::default();
    let mut left = scratch_page();
    let mut right = scratch_page();
    if leaf == tree.root {
        // The root keeps its page id: its records move into two new children.
        let a = mtr.alloc_page()?;
        let b = mtr.alloc_page()?;
        node::build_leaf(&mut left, a, &entries[..m], b).map_err(node_err(a))?;
        node::build_leaf(&mut right, b, &entries[m..], right_sibling).map_err(node_err(b))?;
        let mut root = scratch_page();
        node::build_inner(&mut root, leaf, 1, a, &[(sep, b)]).map_err(node_err(leaf))?;
        plan.images.extend([(a, left), (b, right), (leaf, root)]);
    } else {
        if pids.len() < 2 {
            // The leaf was latched alone because it had room for any put.
            return Err(StorageError::Corruption(format!("page {leaf}: split of a leaf latched without its parent")));
        }
        let r = mtr.alloc_page()?;
        node::build_leaf(&mut right, r, &entries[m..], right_sibling).map_err(node_err(r))?;
        node::build_leaf(&mut left, leaf, &entries[..m], r).map_err(node_err(leaf))?;
        plan.images.extend([(r, right), (leaf, left)]);
        plan_separator(tree, mtr, pids, child_index, pids.len() - 2, sep, r, &mut plan)?;
    }
    for (pid, image) in &plan.images {
        mtr.apply_image(*pid, image)?;
    }
    if let Some((pid, slot, key, child)) = &plan.insert {
        mtr.apply(*pid, &PageRecord::InnerInsert { slot: *slot as u16, key, child: *child })?;
    }
    Ok(())
}

/// Plans inserting `(key, child)` into the inner node `pids[at]`, right of the child it
/// followed, splitting it (and recursively its parent) if it is full.
#[allow(clippy::too_many_arguments)]
fn plan_separator(
    tree: &BTree,
    mtr: &mut Mtr,
    pids: &[PageId],
    child_index: &[usize],
    at: usize,
    key: Vec<u8>,
    child: PageId,
    plan: &mut SplitPlan,
) -> Result<()> {
    let pid = pids[at];
    let slot = child_index[at];
    let h = node::header(mtr.page(pid)).map_err(|_| corrupt(pid))?;
    if node::inner_insert_fits(&h, key.len()) {
        plan.insert = Some((pid, slot, key, child));
        return Ok(());
    }
    let node::InnerEntries { first_child, mut entries, level } =
        node::inner_entries(mtr.page(pid)).map_err(node_err(pid))?;
    if slot > entries.len() {
        return Err(corrupt(pid));
    }
    entries.insert(slot, (key, child));
    let m = node::inner_split_point(&entries).map_err(node_err(pid))?;
    let (up_key, up_child) = entries[m].clone();
    let mut left = scratch_page();
    let mut right = scratch_page();
    if pid == tree.root {
        if level as usize + 1 >= MAX_DEPTH {
            return Err(StorageError::Corruption(format!("tree at {pid} would exceed {MAX_DEPTH} levels")));
        }
        let a = mtr.alloc_page()?;
        let b = mtr.alloc_page()?;
        node::build_inner(&mut left, a, level, first_child, &entries[..m]).map_err(node_err(a))?;
        node::build_inner(&mut right, b, level, up_child, &entries[m + 1..]).map_err(node_err(b))?;
        let mut root = scratch_page();
        node::build_inner(&mut root, pid, level + 1, a, &[(up_key, b)]).map_err(node_err(pid))?;
        plan.images.extend([(a, left), (b, right), (pid, root)]);
        return Ok(());
    }
    if at == 0 {
        // The write path keeps every ancestor that might split; the top one had room.
        return Err(StorageError::Corruption(format!(
            "page {pid}: split reached a full node whose parent is not latched"
        )));
    }
    let r = mtr.alloc_page()?;
    node::build_inner(&mut right, r, level, up_child, &entries[m + 1..]).map_err(node_err(r))?;
    node::build_inner(&mut left, pid, level, first_child, &entries[..m]).map_err(node_err(pid))?;
    plan.images.extend([(r, right), (pid, left)]);
    plan_separator(tree, mtr, pids, child_index, at - 1, up_key, r, plan)
}

/// Allocates an empty tree in `mtr`.
pub(crate) fn create(mtr: &mut Mtr) -> Result<BTree> {
    let root = mtr.alloc_page()?;
    mtr.apply(root, &PageRecord::Init { page_type: PageType::Leaf, level: 0, link: NO_PAGE })?;
    Ok(BTree { root })
}

/// Pages moved to the private free chain per mtr by `strip` (bounded so a small pool is never
/// latched whole).
const STRIP_PAGES_PER_MTR: usize = 16;

/// A page of the tree being stripped, found by the walk, with the overflow chains of its records
/// (leaves only).
struct StripPage {
    pid: PageId,
    chains: Vec<Vec<ChainPage>>,
}

/// Walks the part of an unreachable tree that `strip` has not freed yet, children before their
/// parent (post-order), the root excluded (its chains are returned apart). A child already of
/// type Free was freed by an earlier, interrupted strip together with its whole subtree, and is
/// skipped. Levels must decrease by one per step down, so a corrupt page cannot make the walk
/// cycle.
fn strip_order(shared: &Shared, root: PageId) -> Result<(Vec<StripPage>, Vec<Vec<ChainPage>>)> {
    let mut order = Vec::new();
    let mut copy = scratch_page();
    // (page, expected level, children pushed?) — an explicit stack for the post-order walk.
    let mut stack: Vec<(PageId, Option<u8>, bool)> = vec![(root, None, false)];
    let mut root_chains = Vec::new();
    while let Some((pid, level, expanded)) = stack.pop() {
        shared.read_copy(pid, &mut copy)?;
        if pid != root && copy.page_type() == Ok(PageType::Free) {
            continue; // freed with its subtree by an interrupted strip
        }
        let h = node::header(&copy[..]).map_err(|_| corrupt(pid))?;
        if level.is_some_and(|l| l != h.level) {
            return Err(corrupt(pid));
        }
        if !h.is_leaf() && !expanded {
            stack.push((pid, level, true));
            for ci in 0..=h.n_slots {
                let child = node::inner_child(&copy[..], &h, ci).map_err(|_| corrupt(pid))?;
                if child == NO_PAGE || child == root || child >= crate::buffer::MAX_PAGE_COUNT {
                    return Err(corrupt(pid));
                }
                stack.push((child, Some(h.level - 1), false));
            }
            continue;
        }
        let mut chains = Vec::new();
        if h.is_leaf() {
            for i in 0..h.n_slots {
                let rec = node::leaf_record(&copy[..], &h, i).map_err(|_| corrupt(pid))?;
                if rec.is_overflow() {
                    let r = OverflowRef::decode(&copy[rec.val_off..rec.val_off + rec.val_len])
                        .ok_or_else(|| corrupt(pid))?;
                    chains.push(overflow::walk_chain(shared, r)?);
                }
            }
        }
        if pid == root {
            root_chains = chains;
        } else {
            order.push(StripPage { pid, chains });
        }
    }
    Ok((order, root_chains))
}

/// Drops a stripped record's reference to its chain: the pages nothing else references go onto
/// the private chain, and a tail another chain shares keeps its pages, one count less.
fn strip_chain(mtr: &mut Mtr, anchor: &mut (PageId, PageId), pages: &[ChainPage]) -> Result<()> {
    let unshared = overflow::drop_reference(mtr, pages)?;
    if unshared > 0 {
        push_private(mtr, anchor, pages[0].pid, pages[unshared - 1].pid)?;
    }
    Ok(())
}

/// Reads the private chain anchored in the root: (head, tail), NO_PAGE if empty.
fn strip_anchor(mtr: &Mtr, root: PageId) -> (PageId, PageId) {
    let page = mtr.page(root);
    (get_u64(page, node::OFF_STRIP_HEAD), get_u64(page, node::OFF_STRIP_TAIL))
}

/// Pushes the linked pages `first..=last` (a freed overflow chain, or one page) onto the front of
/// the private chain. `first` must already link to its successor and `last` must be latched.
fn push_private(mtr: &mut Mtr, anchor: &mut (PageId, PageId), first: PageId, last: PageId) -> Result<()> {
    mtr.latch(last)?;
    mtr.apply(last, &PageRecord::SetU64 { offset: OFF_NEXT as u16, value: anchor.0 })?;
    if anchor.1 == NO_PAGE {
        anchor.1 = last;
    }
    anchor.0 = first;
    Ok(())
}

/// Frees every page of an unreachable tree except its root, restartably (docs §4.9): pages are
/// turned into free pages children first and pushed onto a private chain whose head and tail
/// live in the root (`OFF_STRIP_HEAD/TAIL`), so at every mtr boundary what is still reachable
/// from the root is either untouched or freed as a whole subtree, and no freed page is reusable
/// before `free_stripped_root` hands the chain to the free list. A strip interrupted by a crash
/// continues where it stopped. `between_mtrs` runs after each mtr (test crash points).
pub(crate) fn strip(
    tree: BTree,
    store: &crate::buffer::PageStore,
    between_mtrs: &mut dyn FnMut() -> Result<()>,
) -> Result<()> {
    let shared = store.shared();
    let root = tree.root;
    let (order, root_chains) = strip_order(shared, root)?;
    for batch in order.chunks(STRIP_PAGES_PER_MTR) {
        let mut mtr = Mtr::new(store);
        mtr.latch(root)?;
        let mut anchor = strip_anchor(&mtr, root);
        // Tree pages first: a shared chain page comes after page 0 (mtr.rs latch order).
        for p in batch {
            mtr.latch(p.pid)?;
        }
        for p in batch {
            for pages in &p.chains {
                strip_chain(&mut mtr, &mut anchor, pages)?;
            }
            mtr.apply(p.pid, &PageRecord::Init { page_type: PageType::Free, level: 0, link: anchor.0 })?;
            if anchor.1 == NO_PAGE {
                anchor.1 = p.pid;
            }
            anchor.0 = p.pid;
        }
        set_anchor(&mut mtr, root, anchor)?;
        mtr.commit();
        between_mtrs()?;
    }
    if !root_chains.is_empty() {
        // A root leaf's overflow values: free their chains and empty the root (it is freed next).
        let mut mtr = Mtr::new(store);
        mtr.latch(root)?;
        let mut anchor = strip_anchor(&mtr, root);
        for pages in &root_chains {
            strip_chain(&mut mtr, &mut anchor, pages)?;
        }
        mtr.apply(root, &PageRecord::Init { page_type: PageType::Leaf, level: 0, link: NO_PAGE })?;
        set_anchor(&mut mtr, root, anchor)?;
        mtr.commit();
        between_mtrs()?;
    }
    Ok(())
}

fn set_anchor(mtr: &mut Mtr, root: PageId, (head, tail): (PageId, PageId)) -> Result<()> {
    mtr.apply(root, &PageRecord::SetU64 { offset: node::OFF_STRIP_HEAD as u16, value: head })?;
    mtr.apply(root, &PageRecord::SetU64 { offset: node::OFF_STRIP_TAIL as u16, value: tail })
}

/// The last step of freeing a tree after `strip`: in `mtr` (which holds no latch yet), the root
/// and the private chain go to the tablespace free list.
pub(crate) fn free_stripped_root(tree: BTree, mtr: &mut Mtr) -> Result<()> {
    let root = tree.root;
    assert!(!mtr.holds_any(), "free_stripped_root must be the first latching operation of its mtr");
    mtr.latch(root)?;
    let (head, tail) = strip_anchor(mtr, root);
    match mtr.page(root).page_type() {
        Ok(PageType::Leaf) | Ok(PageType::Inner) => {}
        _ => return Err(corrupt(root)),
    }
    mtr.latch(HEADER_PAGE)?;
    let global = get_u64(mtr.page(HEADER_PAGE), OFF_FREE_HEAD);
    let link = if head == NO_PAGE {
        global
    } else {
        mtr.latch(tail)?;
        mtr.apply(tail, &PageRecord::SetU64 { offset: OFF_NEXT as u16, value: global })?;
        head
    };
    mtr.apply(root, &PageRecord::Init { page_type: PageType::Free, level: 0, link })?;
    mtr.apply(HEADER_PAGE, &PageRecord::SetU64 { offset: OFF_FREE_HEAD as u16, value: root })
}

/// Frees every page of an unreachable tree: nodes and overflow chains.
pub(crate) fn destroy(tree: BTree, store: &crate::buffer::PageStore) -> Result<()> {
    strip(tree, store, &mut || Ok(()))?;
    let mut mtr = Mtr::new(store);
    free_stripped_root(tree, &mut mtr)?;
    mtr.commit();
    Ok(())
}

/// Every page of a tree: its nodes and overflow pages (space accounting; the tree must not
/// change meanwhile). With a census, a chain tail shared with a chain counted before is left out.
pub(crate) fn tree_pages(shared: &Shared, root: PageId, mut census: Option<&mut ChainCensus>) -> Result<Vec<PageId>> {
    let mut pages = Vec::new();
    let mut stack = vec![(root, None::<u8>)];
    let mut copy = scratch_page();
    while let Some((pid, expected_level)) = stack.pop() {
        shared.read_copy(pid, &mut copy)?;
        let h = node::header(&copy[..]).map_err(|_| corrupt(pid))?;
        if expected_level.is_some_and(|l| l != h.level) {
            return Err(corrupt(pid));
        }
        pages.push(pid);
        if h.is_leaf() {
            for i in 0..h.n_slots {
                let rec = node::leaf_record(&copy[..], &h, i).map_err(|_| corrupt(pid))?;
                if rec.is_overflow() {
                    let r = OverflowRef::decode(&copy[rec.val_off..rec.val_off + rec.val_len])
                        .ok_or_else(|| corrupt(pid))?;
                    match census.as_deref_mut() {
                        Some(c) => pages.extend(c.pages(shared, r)?),
                        None => pages.extend(overflow::chain_pages(shared, r)?),
                    }
                }
            }
        } else {
            for ci in 0..=h.n_slots {
                let child = node::inner_child(&copy[..], &h, ci).map_err(|_| corrupt(pid))?;
                stack.push((child, Some(h.level - 1)));
            }
        }
    }
    Ok(pages)
}

/// Every node of a tree with its fill, parents before children (diagnostics and tests; the tree
/// must not change meanwhile).
pub(crate) fn nodes(shared: &Shared, root: PageId) -> Result<Vec<NodeFill>> {
    let mut out = Vec::new();
    let mut stack = vec![(root, None::<u8>)];
    let mut copy = scratch_page();
    while let Some((pid, expected_level)) = stack.pop() {
        shared.read_copy(pid, &mut copy)?;
        let h = node::header(&copy[..]).map_err(|_| corrupt(pid))?;
        if expected_level.is_some_and(|l| l != h.level) || out.len() as u64 >= crate::buffer::MAX_PAGE_COUNT {
            return Err(corrupt(pid));
        }
        out.push(NodeFill { page: pid, level: h.level, records: h.n_slots, used_bytes: h.used() });
        if !h.is_leaf() {
            for ci in (0..=h.n_slots).rev() {
                let child = node::inner_child(&copy[..], &h, ci).map_err(|_| corrupt(pid))?;
                stack.push((child, Some(h.level - 1)));
            }
        }
    }
    Ok(out)
}
