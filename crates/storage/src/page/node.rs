//! Slotted B+tree node pages (leaf and inner): the byte format and every operation on it.
//!
//! The same functions serve the runtime (an mtr applies a redo record to a latched page) and
//! recovery (redo applies the logged record), so there is one implementation of each change.
//! Readers are generic over `PageBytes`, so optimistic reads of frame memory and reads of latched
//! pages share one bounds-checked implementation.
//!
//! Layout after the common 64-byte header (all little-endian):
//!
//! | offset | field |
//! |---|---|
//! | 24 | n_slots u16 |
//! | 26 | heap_top u16: lowest byte of the record heap (records grow down from the page end) |
//! | 28 | garbage u16: bytes of dead records inside the heap, reclaimed by compaction |
//! | 32 | link u64: leaf = right sibling (NO_PAGE = none); inner = leftmost child |
//! | 64.. | slot array: n_slots × (offset u16, head u32), in key order |
//!
//! A slot's head is the first four bytes of its key (zero padded) as a big-endian number: a
//! binary search compares heads inside the compact slot array and touches a record only when
//! the heads are equal, so a search costs about one record cache miss instead of one per probe.
//! Distinct heads order like the keys (a zero pad sorts below any byte a longer key has there,
//! and a shorter key sorts first), so only equal heads need the full comparison.
//!
//! Leaf record: `key_len u16 | val_len u16 | flags u8 | key | value`; with FLAG_OVERFLOW the value
//! is a 16-byte reference `total_len u64 | first_page u64` to an overflow chain.
//! Inner record: `key_len u16 | child u64 | key`. Child i (0 = leftmost) holds the keys k with
//! key(i-1) <= k < key(i): a separator equal to a key routes it right.

use std::cmp::Ordering;

use crate::page::{
    put_u16, put_u32, put_u64, PageBytes, PageId, PageType, Torn, HEADER_SIZE, OFF_LEVEL, OFF_PAGE_ID, OFF_TYPE,
    PAGE_SIZE,
};

/// Longest key accepted (MariaDB's InnoDB limit). Here, with the node format, because the format's
/// worst-case record sizes are built from it; `btree` re-exports it.
pub const MAX_KEY_LEN: usize = 3072;

const OFF_N_SLOTS: usize = 24;
const OFF_HEAP_TOP: usize = 26;
const OFF_GARBAGE: usize = 28;
pub(crate) const OFF_LINK: usize = 32;
/// Head and tail of the private chain of pages freed so far while an unreachable tree is being
/// freed (btree/write.rs `strip`), kept in its root. Zero (no chain) in every live node: `init`
/// zeroes the page, and nothing else writes these bytes.
pub(crate) const OFF_STRIP_HEAD: usize = 40;
pub(crate) const OFF_STRIP_TAIL: usize = 48;
const _: () = assert!(OFF_STRIP_TAIL + 8 <= HEADER_SIZE);
const SLOTS_START: usize = HEADER_SIZE;
pub(crate) const SLOT_SIZE: usize = 6;
const HEAD_LEN: usize = 4;
pub(crate) const LEAF_REC_HEADER: usize = 5;
pub(crate) const INNER_REC_HEADER: usize = 10;
/// Leaf record flag: the value is an overflow reference.
pub(crate) const FLAG_OVERFLOW: u8 = 1;
pub(crate) const OVERFLOW_REF_LEN: usize = 16;
/// Bytes available for slots and records.
pub(crate) const NODE_CAPACITY: usize = PAGE_SIZE - HEADER_SIZE;
/// Largest leaf record (header + key + value) kept in the page; a larger value goes to an
/// overflow chain. A quarter page keeps every record under a third of the capacity, which is
/// what guarantees that a two-way split of a full leaf always fits both halves.
pub(crate) const MAX_INLINE_RECORD: usize = PAGE_SIZE / 4;
/// Free bytes a leaf needs so that any single put of any key fits without a split.
pub(crate) const LEAF_WORST_CASE: usize = SLOT_SIZE + MAX_INLINE_RECORD;
/// Free bytes an inner node needs so that one more separator of any length fits.
pub(crate) const INNER_WORST_CASE: usize = SLOT_SIZE + INNER_REC_HEADER + MAX_KEY_LEN;
/// No page can hold more slots than this (smallest record: empty key and value).
const MAX_SLOTS: usize = NODE_CAPACITY / (SLOT_SIZE + LEAF_REC_HEADER);
/// A non-root node whose records (slots included) fill less than this after a removal is merged
/// with a sibling or takes records from it (btree/merge.rs). InnoDB merges below half a page
/// (MERGE_THRESHOLD 50%), but a split leaves both halves at about half a page, so at 50% the
/// first removal after a split would merge the halves again and the next insert split them:
/// a quarter page keeps a split and a merge at least a quarter page of changes apart.
pub(crate) const MERGE_THRESHOLD: usize = NODE_CAPACITY / 4;
/// A merge is made only if the merged node fills at most this much (else the two nodes share
/// their records evenly): a merged node then has room for a quarter page of inserts before it
/// splits again. With an even share, each node keeps at least (3/4 page - largest record) / 2,
/// about MERGE_THRESHOLD: the fill the merge restores.
pub(crate) const MERGE_LIMIT: usize = NODE_CAPACITY * 3 / 4;

const _: () = assert!(LEAF_REC_HEADER + MAX_KEY_LEN + OVERFLOW_REF_LEN <= MAX_INLINE_RECORD);
const _: () = assert!(3 * (SLOT_SIZE + MAX_INLINE_RECORD) <= NODE_CAPACITY);
const _: () = assert!(3 * INNER_WORST_CASE <= NODE_CAPACITY);
const _: () = assert!(PAGE_SIZE <= u16::MAX as usize + 1);

/// Why a node change could not be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NodeError {
    /// The record does not fit even after compaction (the caller splits).
    NoRoom,
    /// The page or the requested change is inconsistent (bad slot, wrong page type, ...).
    Corrupt,
}

impl From<Torn> for NodeError {
    fn from(_: Torn) -> NodeError {
        NodeError::Corrupt
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeHeader {
    pub(crate) page_type: PageType,
    pub(crate) level: u8,
    pub(crate) n_slots: usize,
    heap_top: usize,
    garbage: usize,
    pub(crate) link: PageId,
}

impl NodeHeader {
    /// Bytes usable for new records and slots, counting what compaction would reclaim.
    pub(crate) fn free_total(&self) -> usize {
        self.free_contiguous() + self.garbage
    }
    fn free_contiguous(&self) -> usize {
        self.heap_top - (SLOTS_START + SLOT_SIZE * self.n_slots)
    }
    pub(crate) fn is_leaf(&self) -> bool {
        self.page_type == PageType::Leaf
    }
    /// Bytes of live records and their slots (what a merge moves).
    pub(crate) fn used(&self) -> usize {
        NODE_CAPACITY - self.free_total()
    }
}

/// Reads and sanity-checks a node header. `Torn` if the page is not a node or the fields are
/// impossible.
pub(crate) fn header<P: PageBytes + ?Sized>(p: &P) -> Result<NodeHeader, Torn> {
    let page_type = p.page_type()?;
    if page_type != PageType::Leaf && page_type != PageType::Inner {
        return Err(Torn);
    }
    let level = p.level()?;
    if (page_type == PageType::Leaf) != (level == 0) {
        return Err(Torn);
    }
    let n_slots = p.u16_at(OFF_N_SLOTS)? as usize;
    let heap_top = p.u16_at(OFF_HEAP_TOP)? as usize;
    let heap_top = if heap_top == 0 { PAGE_SIZE } else { heap_top };
    let garbage = p.u16_at(OFF_GARBAGE)? as usize;
    if n_slots > MAX_SLOTS || heap_top < SLOTS_START + SLOT_SIZE * n_slots || heap_top > PAGE_SIZE {
        return Err(Torn);
    }
    if garbage > PAGE_SIZE - heap_top {
        return Err(Torn);
    }
    let link = p.u64_at(OFF_LINK)?;
    Ok(NodeHeader { page_type, level, n_slots, heap_top, garbage, link })
}

/// The head of a key: its first HEAD_LEN bytes, zero padded, as a big-endian number.
pub(crate) fn key_head(key: &[u8]) -> u32 {
    let mut b = [0u8; HEAD_LEN];
    let n = key.len().min(HEAD_LEN);
    b[..n].copy_from_slice(&key[..n]);
    u32::from_be_bytes(b)
}

fn slot_offset<P: PageBytes + ?Sized>(p: &P, h: &NodeHeader, i: usize) -> Result<usize, Torn> {
    if i >= h.n_slots {
        return Err(Torn);
    }
    let off = p.u16_at(SLOTS_START + SLOT_SIZE * i)? as usize;
    if off < h.heap_top || off >= PAGE_SIZE {
        return Err(Torn);
    }
    Ok(off)
}

/// Where a leaf record's parts lie in the page.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LeafRecord {
    pub(crate) key_off: usize,
    pub(crate) key_len: usize,
    pub(crate) flags: u8,
    pub(crate) val_off: usize,
    pub(crate) val_len: usize,
}

impl LeafRecord {
    pub(crate) fn size(&self) -> usize {
        LEAF_REC_HEADER + self.key_len + self.val_len
    }
    pub(crate) fn is_overflow(&self) -> bool {
        self.flags & FLAG_OVERFLOW != 0
    }
}

pub(crate) fn leaf_record<P: PageBytes + ?Sized>(p: &P, h: &NodeHeader, i: usize) -> Result<LeafRecord, Torn> {
    let off = slot_offset(p, h, i)?;
    let key_len = p.u16_at(off)? as usize;
    let val_len = p.u16_at(off + 2)? as usize;
    let flags = p.u8_at(off + 4)?;
    let rec = LeafRecord {
        key_off: off + LEAF_REC_HEADER,
        key_len,
        flags,
        val_off: off + LEAF_REC_HEADER + key_len,
        val_len,
    };
    if off + rec.size() > PAGE_SIZE || flags & !FLAG_OVERFLOW != 0 {
        return Err(Torn);
    }
    if rec.is_overflow() && val_len != OVERFLOW_REF_LEN {
        return Err(Torn);
    }
    Ok(rec)
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct InnerRecord {
    pub(crate) key_off: usize,
    pub(crate) key_len: usize,
    pub(crate) child: PageId,
}

pub(crate) fn inner_record<P: PageBytes + ?Sized>(p: &P, h: &NodeHeader, i: usize) -> Result<InnerRecord, Torn> {
    let off = slot_offset(p, h, i)?;
    let key_len = p.u16_at(off)? as usize;
    let child = p.u64_at(off + 2)?;
    if off + INNER_REC_HEADER + key_len > PAGE_SIZE {
        return Err(Torn);
    }
    Ok(InnerRecord { key_off: off + INNER_REC_HEADER, key_len, child })
}

fn key_of<P: PageBytes + ?Sized>(p: &P, h: &NodeHeader, i: usize) -> Result<(usize, usize), Torn> {
    if h.is_leaf() {
        let r = leaf_record(p, h, i)?;
        Ok((r.key_off, r.key_len))
    } else {
        let r = inner_record(p, h, i)?;
        Ok((r.key_off, r.key_len))
    }
}

/// Number of slots whose key is `< key` (or `<= key` if `inclusive`): the binary-search
/// partition point. Bounded: at most log2(MAX_SLOTS) + 1 probes.
pub(crate) fn partition<P: PageBytes + ?Sized>(
    p: &P,
    h: &NodeHeader,
    key: &[u8],
    inclusive: bool,
) -> Result<usize, Torn> {
    let head = key_head(key);
    let (mut lo, mut hi) = (0usize, h.n_slots);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let order = match p.u32_at(SLOTS_START + SLOT_SIZE * mid + 2)?.cmp(&head) {
            Ordering::Equal => {
                let (off, len) = key_of(p, h, mid)?;
                p.cmp_at(off, len, key)?
            }
            unequal => unequal,
        };
        let go_right = match order {
            Ordering::Less => true,
            Ordering::Equal => inclusive,
            Ordering::Greater => false,
        };
        if go_right {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// Leaf search: the slot of `key` (found) or where it would be inserted.
pub(crate) fn leaf_search<P: PageBytes + ?Sized>(p: &P, h: &NodeHeader, key: &[u8]) -> Result<(usize, bool), Torn> {
    let i = partition(p, h, key, false)?;
    if i < h.n_slots {
        let r = leaf_record(p, h, i)?;
        if p.cmp_at(r.key_off, r.key_len, key)? == Ordering::Equal {
            return Ok((i, true));
        }
    }
    Ok((i, false))
}

/// Inner search: the index (0..=n_slots) of the child whose range holds `key`; with `strictly_below`
/// the child holding the greatest keys `< key` instead.
pub(crate) fn inner_search<P: PageBytes + ?Sized>(
    p: &P,
    h: &NodeHeader,
    key: &[u8],
    strictly_below: bool,
) -> Result<usize, Torn> {
    partition(p, h, key, !strictly_below)
}

pub(crate) fn inner_child<P: PageBytes + ?Sized>(p: &P, h: &NodeHeader, child_index: usize) -> Result<PageId, Torn> {
    if child_index == 0 {
        Ok(h.link)
    } else {
        Ok(inner_record(p, h, child_index - 1)?.child)
    }
}

pub(crate) fn leaf_record_size(key_len: usize, val_len: usize) -> usize {
    LEAF_REC_HEADER + key_len + val_len
}

fn inner_record_size(key_len: usize) -> usize {
    INNER_REC_HEADER + key_len
}

/// Bytes an inner entry with a separator of `key_len` bytes takes in a node, its slot included.
pub(crate) fn inner_footprint(key_len: usize) -> usize {
    SLOT_SIZE + inner_record_size(key_len)
}

/// The bytes of a node that carry data: `[0, end of slot array)` and `[heap_top, PAGE_SIZE)`; the
/// gap between is always zero (changes keep it so), which lets images leave it out.
pub(crate) fn used_ranges(page: &[u8]) -> Option<(usize, usize)> {
    let h = header(page).ok()?;
    Some((SLOTS_START + SLOT_SIZE * h.n_slots, h.heap_top))
}

// ---------------------------------------------------------------------------------------------
// Changes. Each takes a whole page we own (latched or a scratch copy).

fn set_header(page: &mut [u8], n_slots: usize, heap_top: usize, garbage: usize) {
    debug_assert!(n_slots <= MAX_SLOTS && heap_top <= PAGE_SIZE && garbage <= PAGE_SIZE);
    put_u16(page, OFF_N_SLOTS, n_slots as u16);
    // PAGE_SIZE does not fit in u16: an empty heap is stored as 0.
    put_u16(page, OFF_HEAP_TOP, if heap_top == PAGE_SIZE { 0 } else { heap_top as u16 });
    put_u16(page, OFF_GARBAGE, garbage as u16);
}

/// Formats an empty node.
pub(crate) fn init(page: &mut [u8], pid: PageId, page_type: PageType, level: u8, link: PageId) {
    assert!(page_type == PageType::Leaf || page_type == PageType::Inner);
    assert_eq!(page.len(), PAGE_SIZE);
    page.fill(0);
    page[OFF_TYPE] = page_type as u8;
    page[OFF_LEVEL] = level;
    put_u64(page, OFF_PAGE_ID, pid);
    set_header(page, 0, PAGE_SIZE, 0);
    put_u64(page, OFF_LINK, link);
}

fn record_size_at(page: &[u8], h: &NodeHeader, i: usize) -> Result<usize, Torn> {
    if h.is_leaf() {
        Ok(leaf_record(page, h, i)?.size())
    } else {
        let r = inner_record(page, h, i)?;
        Ok(inner_record_size(r.key_len))
    }
}

/// Rewrites the heap without dead records (in slot order, so the result depends only on the
/// live records: redo reproduces it exactly).
pub(crate) fn compact(page: &mut [u8]) -> Result<(), NodeError> {
    let h = header(page)?;
    let slots_end = SLOTS_START + SLOT_SIZE * h.n_slots;
    // The new heap and slot offsets are built in the scratch page first, so that a corrupt page
    // (overlapping records that add up to more than the page) fails before anything changes.
    let mut scratch = vec![0u8; PAGE_SIZE];
    let mut top = PAGE_SIZE;
    for i in 0..h.n_slots {
        let off = slot_offset(page, &h, i)?;
        let size = record_size_at(page, &h, i)?;
        top = top.checked_sub(size).filter(|&t| t >= slots_end).ok_or(NodeError::Corrupt)?;
        scratch[top..top + size].copy_from_slice(&page[off..off + size]);
        put_u16(&mut scratch, SLOTS_START + SLOT_SIZE * i, top as u16);
    }
    for i in 0..h.n_slots {
        let at = SLOTS_START + SLOT_SIZE * i;
        page[at..at + 2].copy_from_slice(&scratch[at..at + 2]);
    }
    page[top..].copy_from_slice(&scratch[top..]);
    page[slots_end..top].fill(0);
    set_header(page, h.n_slots, top, 0);
    Ok(())
}

/// Makes room for a record of `size` bytes at slot `slot` (shifting later slots right) and
/// returns its offset; the caller fills it in.
fn allocate_record(page: &mut [u8], slot: usize, size: usize, key: &[u8]) -> Result<usize, NodeError> {
    let mut h = header(page)?;
    if slot > h.n_slots || h.n_slots + 1 > MAX_SLOTS {
        return Err(NodeError::Corrupt);
    }
    let need = size + SLOT_SIZE;
    if h.free_total() < need {
        return Err(NodeError::NoRoom);
    }
    if h.free_contiguous() < need {
        compact(page)?;
        h = header(page)?;
    }
    let off = h.heap_top - size;
    let slots_end = SLOTS_START + SLOT_SIZE * h.n_slots;
    page.copy_within(SLOTS_START + SLOT_SIZE * slot..slots_end, SLOTS_START + SLOT_SIZE * (slot + 1));
    put_u16(page, SLOTS_START + SLOT_SIZE * slot, off as u16);
    put_u32(page, SLOTS_START + SLOT_SIZE * slot + 2, key_head(key));
    set_header(page, h.n_slots + 1, off, h.garbage);
    Ok(off)
}

fn write_leaf_record(page: &mut [u8], off: usize, key: &[u8], flags: u8, value: &[u8]) {
    put_u16(page, off, key.len() as u16);
    put_u16(page, off + 2, value.len() as u16);
    page[off + 4] = flags;
    let k = off + LEAF_REC_HEADER;
    page[k..k + key.len()].copy_from_slice(key);
    page[k + key.len()..k + key.len() + value.len()].copy_from_slice(value);
}

fn check_leaf_record(key: &[u8], flags: u8, value: &[u8]) -> Result<(), NodeError> {
    let bad_flags = flags & !FLAG_OVERFLOW != 0 || (flags & FLAG_OVERFLOW != 0 && value.len() != OVERFLOW_REF_LEN);
    if key.len() > MAX_KEY_LEN || leaf_record_size(key.len(), value.len()) > MAX_INLINE_RECORD || bad_flags {
        return Err(NodeError::Corrupt);
    }
    Ok(())
}

fn expect_type(page: &[u8], t: PageType) -> Result<NodeHeader, NodeError> {
    let h = header(page)?;
    if h.page_type != t {
        return Err(NodeError::Corrupt);
    }
    Ok(h)
}

/// True if a new leaf record of these sizes fits (possibly after compaction).
pub(crate) fn leaf_insert_fits(h: &NodeHeader, key_len: usize, val_len: usize) -> bool {
    h.free_total() >= SLOT_SIZE + leaf_record_size(key_len, val_len)
}

pub(crate) fn leaf_insert(page: &mut [u8], slot: usize, key: &[u8], flags: u8, value: &[u8]) -> Result<(), NodeError> {
    expect_type(page, PageType::Leaf)?;
    check_leaf_record(key, flags, value)?;
    let off = allocate_record(page, slot, leaf_record_size(key.len(), value.len()), key)?;
    write_leaf_record(page, off, key, flags, value);
    Ok(())
}

fn remove_slot(page: &mut [u8], h: &NodeHeader, slot: usize, size: usize) -> Result<(), NodeError> {
    // More dead bytes than the heap holds: the record overlaps others (a corrupt page).
    if h.garbage + size > PAGE_SIZE - h.heap_top {
        return Err(NodeError::Corrupt);
    }
    let slots_end = SLOTS_START + SLOT_SIZE * h.n_slots;
    page.copy_within(SLOTS_START + SLOT_SIZE * (slot + 1)..slots_end, SLOTS_START + SLOT_SIZE * slot);
    page[slots_end - SLOT_SIZE..slots_end].fill(0);
    set_header(page, h.n_slots - 1, h.heap_top, h.garbage + size);
    Ok(())
}

pub(crate) fn leaf_delete(page: &mut [u8], slot: usize) -> Result<(), NodeError> {
    let h = expect_type(page, PageType::Leaf)?;
    let rec = leaf_record(page, &h, slot)?;
    remove_slot(page, &h, slot, rec.size())
}

/// True if the record at `slot` can be replaced by a value of `val_len` bytes without a split.
pub(crate) fn leaf_update_fits(h: &NodeHeader, old: &LeafRecord, val_len: usize) -> bool {
    h.free_total() + old.size() >= leaf_record_size(old.key_len, val_len)
}

/// Replaces the value at `slot` (in place when the size is unchanged).
pub(crate) fn leaf_update(page: &mut [u8], slot: usize, flags: u8, value: &[u8]) -> Result<(), NodeError> {
    let h = expect_type(page, PageType::Leaf)?;
    let rec = leaf_record(page, &h, slot)?;
    let key = page[rec.key_off..rec.key_off + rec.key_len].to_vec();
    check_leaf_record(&key, flags, value)?;
    if rec.val_len == value.len() {
        page[rec.key_off - 1] = flags;
        page[rec.val_off..rec.val_off + value.len()].copy_from_slice(value);
        return Ok(());
    }
    if !leaf_update_fits(&h, &rec, value.len()) {
        return Err(NodeError::NoRoom);
    }
    remove_slot(page, &h, slot, rec.size())?;
    let off = allocate_record(page, slot, leaf_record_size(key.len(), value.len()), &key)?;
    write_leaf_record(page, off, &key, flags, value);
    Ok(())
}

/// Removes separator `slot` and the child right of it (a merge folded that child into its left
/// sibling).
pub(crate) fn inner_delete(page: &mut [u8], slot: usize) -> Result<(), NodeError> {
    let h = expect_type(page, PageType::Inner)?;
    let rec = inner_record(page, &h, slot)?;
    remove_slot(page, &h, slot, inner_record_size(rec.key_len))
}

pub(crate) fn inner_insert_fits(h: &NodeHeader, key_len: usize) -> bool {
    h.free_total() >= SLOT_SIZE + inner_record_size(key_len)
}

pub(crate) fn inner_insert(page: &mut [u8], slot: usize, key: &[u8], child: PageId) -> Result<(), NodeError> {
    expect_type(page, PageType::Inner)?;
    if key.len() > MAX_KEY_LEN {
        return Err(NodeError::Corrupt);
    }
    let off = allocate_record(page, slot, inner_record_size(key.len()), key)?;
    put_u16(page, off, key.len() as u16);
    put_u64(page, off + 2, child);
    page[off + INNER_REC_HEADER..off + INNER_REC_HEADER + key.len()].copy_from_slice(key);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Whole-node helpers for splits.

/// A leaf record copied out of a page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LeafEntry {
    pub(crate) key: Vec<u8>,
    pub(crate) flags: u8,
    pub(crate) value: Vec<u8>,
}

impl LeafEntry {
    pub(crate) fn footprint(&self) -> usize {
        SLOT_SIZE + leaf_record_size(self.key.len(), self.value.len())
    }
}

pub(crate) fn leaf_entries(page: &[u8]) -> Result<(Vec<LeafEntry>, PageId), NodeError> {
    let h = expect_type(page, PageType::Leaf)?;
    let mut out = Vec::with_capacity(h.n_slots + 1);
    for i in 0..h.n_slots {
        let r = leaf_record(page, &h, i)?;
        out.push(LeafEntry {
            key: page[r.key_off..r.key_off + r.key_len].to_vec(),
            flags: r.flags,
            value: page[r.val_off..r.val_off + r.val_len].to_vec(),
        });
    }
    Ok((out, h.link))
}

/// The contents of an inner node copied out.
pub(crate) struct InnerEntries {
    pub(crate) first_child: PageId,
    /// (separator, child right of it), in key order.
    pub(crate) entries: Vec<(Vec<u8>, PageId)>,
    pub(crate) level: u8,
}

pub(crate) fn inner_entries(page: &[u8]) -> Result<InnerEntries, NodeError> {
    let h = expect_type(page, PageType::Inner)?;
    let mut out = Vec::with_capacity(h.n_slots + 1);
    for i in 0..h.n_slots {
        let r = inner_record(page, &h, i)?;
        out.push((page[r.key_off..r.key_off + r.key_len].to_vec(), r.child));
    }
    Ok(InnerEntries { first_child: h.link, entries: out, level: h.level })
}

pub(crate) fn build_leaf(
    page: &mut [u8],
    pid: PageId,
    entries: &[LeafEntry],
    right_sibling: PageId,
) -> Result<(), NodeError> {
    init(page, pid, PageType::Leaf, 0, right_sibling);
    for (i, e) in entries.iter().enumerate() {
        leaf_insert(page, i, &e.key, e.flags, &e.value)?;
    }
    Ok(())
}

pub(crate) fn build_inner(
    page: &mut [u8],
    pid: PageId,
    level: u8,
    first_child: PageId,
    entries: &[(Vec<u8>, PageId)],
) -> Result<(), NodeError> {
    init(page, pid, PageType::Inner, level, first_child);
    for (i, (k, c)) in entries.iter().enumerate() {
        inner_insert(page, i, k, *c)?;
    }
    Ok(())
}

/// Split point for leaf records (the right node starts at the returned index): byte-balanced,
/// except that an append at the end of the rightmost leaf leaves the old records together, so
/// ascending inserts fill pages completely instead of leaving them half empty.
pub(crate) fn leaf_split_point(entries: &[LeafEntry], appending: bool) -> Result<usize, NodeError> {
    let sizes: Vec<usize> = entries.iter().map(LeafEntry::footprint).collect();
    split_point(&sizes, appending, false)
}

/// Split point for inner entries: the entry at the returned index moves up to the parent.
pub(crate) fn inner_split_point(entries: &[(Vec<u8>, PageId)]) -> Result<usize, NodeError> {
    let sizes: Vec<usize> = entries.iter().map(|(k, _)| SLOT_SIZE + inner_record_size(k.len())).collect();
    split_point(&sizes, false, true)
}

/// The split index m minimising the larger half, among those where both halves fit in a node.
/// Leaf: halves sizes[..m] and sizes[m..], 1 <= m < n. Inner (`middle_moves_up`): halves
/// sizes[..m] and sizes[m + 1..], 0 <= m < n.
fn split_point(sizes: &[usize], appending: bool, middle_moves_up: bool) -> Result<usize, NodeError> {
    let n = sizes.len();
    let total: usize = sizes.iter().sum();
    let halves = |m: usize, left: usize| (left, total - left - if middle_moves_up { sizes[m] } else { 0 });
    let fits = |(l, r): (usize, usize)| l <= NODE_CAPACITY && r <= NODE_CAPACITY;
    if appending && !middle_moves_up && n >= 2 {
        let left = total - sizes[n - 1];
        if fits(halves(n - 1, left)) {
            return Ok(n - 1);
        }
    }
    let first = if middle_moves_up { 0 } else { 1 };
    let mut left: usize = sizes[..first.min(n)].iter().sum();
    let mut best: Option<(usize, usize)> = None;
    for (m, size) in sizes.iter().enumerate().skip(first) {
        let (l, r) = halves(m, left);
        if fits((l, r)) && best.is_none_or(|(_, worst)| l.max(r) < worst) {
            best = Some((m, l.max(r)));
        }
        left += size;
    }
    best.map(|(m, _)| m).ok_or(NodeError::Corrupt)
}

/// Shortest key `s` with `left_last < s <= right_first` (suffix truncation keeps inner nodes
/// small). Requires `left_last < right_first`.
pub(crate) fn separator(left_last: &[u8], right_first: &[u8]) -> Vec<u8> {
    debug_assert!(left_last < right_first);
    let common = left_last.iter().zip(right_first).take_while(|(a, b)| a == b).count();
    right_first[..(common + 1).min(right_first.len())].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(pid: PageId) -> Vec<u8> {
        let mut p = vec![0u8; PAGE_SIZE];
        init(&mut p, pid, PageType::Leaf, 0, 0);
        p
    }

    fn keys(page: &[u8]) -> Vec<Vec<u8>> {
        leaf_entries(page).unwrap().0.into_iter().map(|e| e.key).collect()
    }

    fn get(page: &[u8], key: &[u8]) -> Option<Vec<u8>> {
        let h = header(page).unwrap();
        let (i, found) = leaf_search(page, &h, key).unwrap();
        found.then(|| {
            let r = leaf_record(page, &h, i).unwrap();
            page[r.val_off..r.val_off + r.val_len].to_vec()
        })
    }

    fn insert(page: &mut [u8], key: &[u8], value: &[u8]) -> Result<(), NodeError> {
        let h = header(&*page).unwrap();
        let (slot, found) = leaf_search(&*page, &h, key).unwrap();
        assert!(!found);
        leaf_insert(page, slot, key, 0, value)
    }

    #[test]
    fn insert_keeps_slots_sorted_and_search_finds_them() {
        let mut p = leaf(3);
        for k in [b"m".as_ref(), b"c", b"x", b"a", b"mm", b""] {
            insert(&mut p, k, &[k.len() as u8; 3]).unwrap();
        }
        assert_eq!(
            keys(&p),
            vec![b"".to_vec(), b"a".to_vec(), b"c".to_vec(), b"m".to_vec(), b"mm".to_vec(), b"x".to_vec()]
        );
        assert_eq!(get(&p, b"mm"), Some(vec![2, 2, 2]));
        assert_eq!(get(&p, b"b"), None);
        let h = header(&p[..]).unwrap();
        assert_eq!(leaf_search(&p[..], &h, b"b").unwrap(), (2, false));
        assert_eq!(leaf_search(&p[..], &h, b"zz").unwrap(), (6, false));
    }

    #[test]
    fn heads_with_zero_padding_order_like_keys() {
        let ordered: Vec<&[u8]> = vec![
            b"",
            b"\0",
            b"\0\0\0\0",
            b"\0\0\0\0\x01",
            b"a",
            b"a\0",
            b"a\0\0\0\0",
            b"ab",
            b"abcd",
            b"abcd\0",
            b"abcde",
            b"abce",
            b"\xff\xff\xff\xff\xff",
        ];
        for w in ordered.windows(2) {
            assert!(w[0] < w[1]);
            assert!(key_head(w[0]) <= key_head(w[1]), "heads must not invert the order of {:?} and {:?}", w[0], w[1]);
        }
        let mut p = leaf(3);
        for k in ordered.iter().rev() {
            insert(&mut p, k, k).unwrap();
        }
        assert_eq!(keys(&p), ordered.iter().map(|k| k.to_vec()).collect::<Vec<_>>());
        for k in &ordered {
            assert_eq!(get(&p, k), Some(k.to_vec()));
        }
        assert_eq!(get(&p, b"a\0\0"), None);
        assert_eq!(get(&p, b"abc"), None);
    }

    #[test]
    fn delete_and_update_reuse_space_through_compaction() {
        let mut p = leaf(3);
        let value = vec![7u8; 1000];
        let mut n = 0u32;
        while insert(&mut p, &n.to_be_bytes(), &value).is_ok() {
            n += 1;
        }
        assert_eq!(n as usize, NODE_CAPACITY / (SLOT_SIZE + leaf_record_size(4, 1000)));
        assert_eq!(insert(&mut p, b"zzzz", &value), Err(NodeError::NoRoom), "a full page refuses without changing");
        assert_eq!(keys(&p).len(), n as usize);
        // Delete every other record: the space is garbage until compaction reclaims it.
        for i in (0..n).filter(|i| i % 2 == 0) {
            let h = header(&p[..]).unwrap();
            let (slot, found) = leaf_search(&p[..], &h, &i.to_be_bytes()).unwrap();
            assert!(found);
            leaf_delete(&mut p, slot).unwrap();
        }
        let h = header(&p[..]).unwrap();
        assert!(h.garbage > 0);
        // Growing a value needs the garbage: update triggers compaction.
        let h = header(&p[..]).unwrap();
        let (slot, found) = leaf_search(&p[..], &h, &0u32.to_be_bytes()).unwrap();
        assert!(!found, "key 0 was deleted");
        let (slot1, found1) = leaf_search(&p[..], &h, &1u32.to_be_bytes()).unwrap();
        assert!(found1 && slot1 == slot);
        leaf_update(&mut p, slot1, 0, &vec![9u8; 3000]).unwrap();
        assert_eq!(get(&p, &1u32.to_be_bytes()), Some(vec![9u8; 3000]));
        // Same-size update is in place.
        leaf_update(&mut p, slot1, 0, &vec![5u8; 3000]).unwrap();
        assert_eq!(get(&p, &1u32.to_be_bytes()), Some(vec![5u8; 3000]));
        for i in (1..n).step_by(2) {
            let want = if i == 1 { vec![5u8; 3000] } else { value.clone() };
            assert_eq!(get(&p, &i.to_be_bytes()), Some(want));
        }
        compact(&mut p).unwrap();
        assert_eq!(header(&p[..]).unwrap().garbage, 0);
        assert_eq!(get(&p, &3u32.to_be_bytes()), Some(value));
    }

    #[test]
    fn compaction_is_deterministic() {
        let mut a = leaf(3);
        for i in 0..50u8 {
            insert(&mut a, &[i], &vec![i; i as usize * 3]).unwrap();
        }
        for slot in [40, 30, 20, 10, 0] {
            leaf_delete(&mut a, slot).unwrap();
        }
        let mut b = a.clone();
        compact(&mut a).unwrap();
        compact(&mut b).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn inner_search_routes_equal_keys_right() {
        let mut p = vec![0u8; PAGE_SIZE];
        init(&mut p, 9, PageType::Inner, 1, 100);
        inner_insert(&mut p, 0, b"d", 101).unwrap();
        inner_insert(&mut p, 1, b"k", 102).unwrap();
        let h = header(&p[..]).unwrap();
        let child =
            |k: &[u8], below: bool| inner_child(&p[..], &h, inner_search(&p[..], &h, k, below).unwrap()).unwrap();
        assert_eq!(child(b"a", false), 100);
        assert_eq!(child(b"d", false), 101);
        assert_eq!(child(b"e", false), 101);
        assert_eq!(child(b"k", false), 102);
        assert_eq!(child(b"z", false), 102);
        assert_eq!(child(b"d", true), 100, "keys below d live left of d");
        assert_eq!(child(b"k", true), 101);
        let e = inner_entries(&p).unwrap();
        assert_eq!((e.first_child, e.entries, e.level), (100, vec![(b"d".to_vec(), 101), (b"k".to_vec(), 102)], 1));
    }

    #[test]
    fn split_of_a_full_leaf_fits_both_halves() {
        // Worst case: maximum-size records.
        let big = |i: u8| LeafEntry {
            key: vec![i; MAX_KEY_LEN],
            flags: 0,
            value: vec![i; MAX_INLINE_RECORD - LEAF_REC_HEADER - MAX_KEY_LEN],
        };
        let entries: Vec<LeafEntry> = (0..4).map(big).collect();
        let m = leaf_split_point(&entries, false).unwrap();
        let mut l = vec![0u8; PAGE_SIZE];
        let mut r = vec![0u8; PAGE_SIZE];
        build_leaf(&mut l, 1, &entries[..m], 2).unwrap();
        build_leaf(&mut r, 2, &entries[m..], 0).unwrap();
        assert_eq!(keys(&l).len() + keys(&r).len(), 4);
        // Appending keeps old records together.
        let small: Vec<LeafEntry> = (0..10u8).map(|i| LeafEntry { key: vec![i], flags: 0, value: vec![] }).collect();
        assert_eq!(leaf_split_point(&small, true).unwrap(), 9);
        assert_eq!(leaf_split_point(&small, false).unwrap(), 5);
        let inner: Vec<(Vec<u8>, PageId)> = (0..9u8).map(|i| (vec![i], i as u64 + 10)).collect();
        assert_eq!(inner_split_point(&inner).unwrap(), 4);
    }

    #[test]
    fn separators_are_short_and_between() {
        assert_eq!(separator(b"abc", b"abd"), b"abd".to_vec());
        assert_eq!(separator(b"abc", b"abzzz"), b"abz".to_vec());
        assert_eq!(separator(b"ab", b"abc"), b"abc".to_vec());
        assert_eq!(separator(b"", b"a"), b"a".to_vec());
        assert_eq!(separator(b"a", b"b\x00\x00"), b"b".to_vec());
    }

    #[test]
    fn garbage_headers_are_rejected_not_trusted() {
        let mut p = leaf(3);
        insert(&mut p, b"k", b"v").unwrap();
        let mut bad = p.clone();
        put_u16(&mut bad, OFF_N_SLOTS, 60000);
        assert!(header(&bad[..]).is_err());
        let mut bad = p.clone();
        put_u16(&mut bad, SLOTS_START, 3); // slot pointing into the header
        let h = header(&bad[..]).unwrap();
        assert!(leaf_record(&bad[..], &h, 0).is_err());
        assert_eq!(leaf_delete(&mut bad, 0), Err(NodeError::Corrupt));
        let mut bad = p.clone();
        let h = header(&bad[..]).unwrap();
        let off = slot_offset(&bad[..], &h, 0).unwrap();
        put_u16(&mut bad, off, 40000); // key length past the page end
        let h = header(&bad[..]).unwrap();
        assert!(leaf_search(&bad[..], &h, b"k").is_err());
        assert_eq!(leaf_insert(&mut p, 5, b"z", 0, b""), Err(NodeError::Corrupt), "slot past the end");
        assert_eq!(inner_insert(&mut p, 0, b"z", 4), Err(NodeError::Corrupt), "inner op on a leaf");
    }
}
