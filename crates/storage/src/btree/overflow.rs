//! Overflow chains: values too large for a leaf record live in a chain of overflow pages, and the
//! leaf holds a 16-byte reference `total_len u64 | first_page u64` (docs §4.3).
//!
//! Overflow page: common header (type Overflow, `next` at OFF_NEXT), data length u32 at
//! OFF_OVERFLOW_LEN, share count u64 at OFF_OVERFLOW_SHARES, data from HEADER_SIZE. Chain pages'
//! data and links never change after they are written, so a chain can share another's tail: a
//! new value whose chunks from some index on are byte-equal to the old value's (same length,
//! same offsets: a change at the start or in the middle of a big value) is written as new pages
//! for the chunks before that index, the last of them linking to the old chain's page there,
//! whose share count goes up by one. The old version keeps its whole chain (an undo record owns
//! it, for readers of old versions and for rollback). Counting only at the junction keeps the
//! sharing to one page change however long the tail is: every page after it has one predecessor.
//!
//! Releasing a reference walks the chain from its first page and frees pages until the first one
//! that has a share count (decremented instead): the rest is still another chain's. The count
//! changes in the mtr that makes or drops the link (the leaf's change, purge's free, a tree's
//! strip), so a crash keeps counts and links together; a chain whose pages are all unshared is
//! spliced into the free list whole, as before sharing existed.
//!
//! A reader that follows a chain optimistically re-validates the leaf afterwards: if the leaf did
//! not change, the chain it read was the record's.

use std::collections::HashMap;

use crate::buffer::redo::{init_linked_page, PageRecord, OFF_OVERFLOW_LEN};
use crate::buffer::{PageId, PageStore, Shared, HEADER_PAGE, MAX_PAGE_COUNT, NO_PAGE, PAGE_SIZE};
use crate::error::{Result, StorageError};
use crate::mtr::Mtr;
use crate::page::{get_u64, put_u32, PageBytes, PageType, HEADER_SIZE, OFF_NEXT, OFF_OVERFLOW_SHARES};

use super::types::MAX_VALUE_LEN;
use crate::page::node::OVERFLOW_REF_LEN;

/// Data bytes per overflow page.
pub(crate) const OVERFLOW_CAPACITY: usize = PAGE_SIZE - HEADER_SIZE;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OverflowRef {
    pub(crate) len: u64,
    pub(crate) first: PageId,
}

impl OverflowRef {
    pub(crate) fn encode(&self) -> [u8; OVERFLOW_REF_LEN] {
        let mut b = [0u8; OVERFLOW_REF_LEN];
        b[..8].copy_from_slice(&self.len.to_le_bytes());
        b[8..].copy_from_slice(&self.first.to_le_bytes());
        b
    }

    /// Decodes a reference; `None` if it cannot be one (out-of-range length or page).
    pub(crate) fn decode(b: &[u8]) -> Option<OverflowRef> {
        if b.len() != OVERFLOW_REF_LEN {
            return None;
        }
        let len = u64::from_le_bytes(b[..8].try_into().ok()?);
        let first = u64::from_le_bytes(b[8..].try_into().ok()?);
        let sane = len > 0 && len <= MAX_VALUE_LEN as u64 && first != NO_PAGE && first < MAX_PAGE_COUNT;
        sane.then_some(OverflowRef { len, first })
    }

    fn pages(&self) -> usize {
        (self.len as usize).div_ceil(OVERFLOW_CAPACITY)
    }
}

/// Why a chain could not be read.
pub(crate) enum ChainError {
    /// The pages do not form the chain the reference describes: the chain was freed and reused
    /// under an optimistic reader (restart) or is corrupt (if the leaf still validates).
    Inconsistent,
    Fail(StorageError),
}

/// One overflow page as a chain walk sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ChainPage {
    pub(crate) pid: PageId,
    /// References besides one (OFF_OVERFLOW_SHARES) when the walk read the page.
    pub(crate) shares: u64,
}

/// One overflow page read consistently: (next page, share count), its data appended to `out`;
/// None if it is no overflow page of a chain with `remaining` bytes left.
fn read_chain_page(
    shared: &Shared,
    pid: PageId,
    remaining: usize,
    out: &mut Vec<u8>,
) -> Result<Option<(PageId, u64)>, ChainError> {
    loop {
        let p = shared.read_page(pid).map_err(ChainError::Fail)?;
        let view = p.view();
        let before = out.len();
        let read = (|| {
            if view.page_type()? != PageType::Overflow {
                return Err(crate::page::Torn);
            }
            let next = view.u64_at(OFF_NEXT)?;
            let shares = view.u64_at(OFF_OVERFLOW_SHARES)?;
            let len = view.u32_at(OFF_OVERFLOW_LEN)? as usize;
            if len == 0 || len > OVERFLOW_CAPACITY || len > remaining {
                return Err(crate::page::Torn);
            }
            view.copy_at(HEADER_SIZE, len, out)?;
            Ok((next, shares))
        })();
        if !p.validate() {
            out.truncate(before);
            continue;
        }
        return Ok(read.ok());
    }
}

/// Reads a whole value. Each page read is validated; the chain as a whole is the record's only if
/// the caller's leaf still validates afterwards (or is latched).
pub(crate) fn read_chain(shared: &Shared, r: OverflowRef) -> Result<Vec<u8>, ChainError> {
    let total = r.len as usize;
    let mut out = Vec::with_capacity(total);
    let mut pid = r.first;
    for _ in 0..r.pages() {
        if pid == NO_PAGE || pid >= MAX_PAGE_COUNT {
            return Err(ChainError::Inconsistent);
        }
        pid = read_chain_page(shared, pid, total - out.len(), &mut out)?.ok_or(ChainError::Inconsistent)?.0;
    }
    if out.len() != total || pid != NO_PAGE {
        return Err(ChainError::Inconsistent);
    }
    Ok(out)
}

/// The pages of a chain in order, with their share counts (the record's leaf must be latched,
/// or the record otherwise kept from changing: an undo record purge owns, an unreachable tree).
pub(crate) fn walk_chain(shared: &Shared, r: OverflowRef) -> Result<Vec<ChainPage>> {
    let corrupt = || StorageError::Corruption(format!("overflow chain at page {} is broken", r.first));
    let mut pages = Vec::with_capacity(r.pages());
    let mut pid = r.first;
    let mut remaining = r.len as usize;
    let mut scratch = Vec::new();
    for _ in 0..r.pages() {
        if pid == NO_PAGE || pid >= MAX_PAGE_COUNT {
            return Err(corrupt());
        }
        scratch.clear();
        let (next, shares) = match read_chain_page(shared, pid, remaining, &mut scratch) {
            Ok(Some(found)) => found,
            Ok(None) | Err(ChainError::Inconsistent) => return Err(corrupt()),
            Err(ChainError::Fail(e)) => return Err(e),
        };
        pages.push(ChainPage { pid, shares });
        remaining -= scratch.len();
        pid = next;
    }
    if remaining != 0 || pid != NO_PAGE {
        return Err(corrupt());
    }
    Ok(pages)
}

/// Page ids of a chain, in order, shared tail included.
pub(crate) fn chain_pages(shared: &Shared, r: OverflowRef) -> Result<Vec<PageId>> {
    Ok(walk_chain(shared, r)?.into_iter().map(|p| p.pid).collect())
}

/// Writes the first chunk of a value of `total` bytes whose other chunks are the chain at `tail`
/// (written ahead), in an mtr of its own that `commit_head` commits; returns the value's
/// reference.
pub(crate) fn write_first_chunk(
    store: &PageStore,
    first: &[u8],
    total: usize,
    tail: PageId,
    commit_head: super::types::CommitHead,
) -> Result<OverflowRef> {
    assert!(first.len() == OVERFLOW_CAPACITY && total > first.len() && tail != NO_PAGE);
    let mut mtr = Mtr::new(store);
    let pid = mtr.alloc_page()?;
    let mut page = vec![0u8; PAGE_SIZE];
    init_linked_page(&mut page, pid, PageType::Overflow, tail);
    put_u32(&mut page, OFF_OVERFLOW_LEN, first.len() as u32);
    page[HEADER_SIZE..].copy_from_slice(first);
    mtr.apply_image(pid, &page)?;
    commit_head(mtr, pid);
    Ok(OverflowRef { len: total as u64, first: pid })
}

/// The pages of a pending chain (`write_chain_ahead`, linked or not yet linked to a first chunk):
/// from `first` along the links to the page that has none. Every page must be an overflow page
/// and the walk ends within the longest chain a value can have.
pub(crate) fn pending_chain_pages(shared: &Shared, first: PageId) -> Result<Vec<PageId>> {
    let corrupt = || StorageError::Corruption(format!("pending overflow chain at page {first} is broken"));
    let mut pages = Vec::new();
    let mut pid = first;
    let mut scratch = Vec::new();
    while pid != NO_PAGE {
        if pid >= MAX_PAGE_COUNT || pages.len() > MAX_VALUE_LEN / OVERFLOW_CAPACITY + 1 {
            return Err(corrupt());
        }
        scratch.clear();
        let next = match read_chain_page(shared, pid, usize::MAX, &mut scratch) {
            Ok(Some((next, _))) => next,
            Ok(None) | Err(ChainError::Inconsistent) => return Err(corrupt()),
            Err(ChainError::Fail(e)) => return Err(e),
        };
        pages.push(pid);
        pid = next;
    }
    Ok(pages)
}

/// Whether `pid` is an overflow page (a pending chain's first page rather than a tree's root).
pub(crate) fn is_overflow_page(shared: &Shared, pid: PageId) -> Result<bool> {
    loop {
        let p = shared.read_page(pid)?;
        let overflow = p.view().page_type() == Ok(PageType::Overflow);
        if p.validate() {
            return Ok(overflow);
        }
    }
}

/// Space accounting over several chains that may share tails (`Engine::space_report`): each
/// page is listed once however many chains reach it, as long as no more chains reach a shared
/// page than its count allows; one more lists it again, so that the audit reports it as used
/// twice.
#[derive(Default)]
pub struct ChainCensus {
    /// Chains seen arriving at each page that has a share count.
    arrivals: HashMap<PageId, u64>,
}

impl ChainCensus {
    /// The pages of a chain that no chain counted before listed.
    pub(crate) fn pages(&mut self, shared: &Shared, r: OverflowRef) -> Result<Vec<PageId>> {
        let mut out = Vec::new();
        for p in walk_chain(shared, r)? {
            if p.shares > 0 {
                let n = self.arrivals.entry(p.pid).or_insert(0);
                *n += 1;
                if *n > 1 {
                    if *n > p.shares.saturating_add(1) {
                        out.push(p.pid);
                    }
                    break; // the tail from here was listed by the first chain to arrive
                }
            }
            out.push(p.pid);
        }
        Ok(out)
    }
}

/// Drops this chain's reference to its pages, in `mtr` (which may hold tree pages, but must not
/// wait for any after this: page 0 and overflow pages come last): frees the pages up to the first
/// one another chain still shares, and decrements that one's count. `pages` is the chain's walk
/// (`walk_chain`); a share count is read again under the latch, since the other holder may have
/// let go meanwhile (pages with no count are this chain's alone and cannot gain one: only the
/// holder of the leaf that references a chain shares it).
pub(crate) fn release_chain(mtr: &mut Mtr, pages: &[ChainPage]) -> Result<()> {
    let unshared = drop_reference(mtr, pages)?;
    if unshared > 0 {
        mtr.free_chain(pages[0].pid, pages[unshared - 1].pid)?;
    }
    Ok(())
}

/// The part of `release_chain` that decides: returns how many leading pages of the chain nothing
/// references any more (the caller frees them), having decremented the count of the page after
/// them, if any.
pub(crate) fn drop_reference(mtr: &mut Mtr, pages: &[ChainPage]) -> Result<usize> {
    for (i, p) in pages.iter().enumerate() {
        if p.shares == 0 && !mtr.holds(p.pid) {
            continue;
        }
        mtr.latch(HEADER_PAGE)?; // before any overflow page (mtr.rs latch order)
        mtr.latch(p.pid)?;
        let shares = get_u64(mtr.page(p.pid), OFF_OVERFLOW_SHARES);
        if mtr.page(p.pid).page_type() != Ok(PageType::Overflow) {
            return Err(StorageError::Corruption(format!(
                "page {} of an overflow chain is not an overflow page",
                p.pid
            )));
        }
        if shares > 0 {
            mtr.apply(p.pid, &PageRecord::SetU64 { offset: OFF_OVERFLOW_SHARES as u16, value: shares - 1 })?;
            return Ok(i);
        }
    }
    Ok(pages.len())
}

/// Counts one more reference to `pid` (a chain now links to it), in `mtr` (page 0 and overflow
/// pages last, as for `release_chain`).
pub(crate) fn add_reference(mtr: &mut Mtr, pid: PageId) -> Result<()> {
    mtr.latch(HEADER_PAGE)?;
    mtr.latch(pid)?;
    let page = mtr.page(pid);
    if page.page_type() != Ok(PageType::Overflow) {
        return Err(StorageError::Corruption(format!("page {pid} to share is not an overflow page")));
    }
    let shares = get_u64(page, OFF_OVERFLOW_SHARES);
    let Some(value) = shares.checked_add(1) else {
        return Err(StorageError::Corruption(format!("overflow page {pid} has share count {shares}")));
    };
    mtr.apply(pid, &PageRecord::SetU64 { offset: OFF_OVERFLOW_SHARES as u16, value })
}

/// Where a new value can share the old value's chain: the smallest chunk index k >= 1 such that
/// chunks k.. of both are byte-equal at the same offsets (equal lengths only), if k is a chunk
/// of the value (sharing nothing is not worth a reference).
pub(crate) fn shared_tail_from(old: &[u8], new: &[u8]) -> Option<usize> {
    if old.len() != new.len() || new.is_empty() {
        return None;
    }
    let n = new.len().div_ceil(OVERFLOW_CAPACITY);
    let chunk = |i: usize| i * OVERFLOW_CAPACITY..((i + 1) * OVERFLOW_CAPACITY).min(new.len());
    let mut k = n;
    while k > 1 && old[chunk(k - 1)] == new[chunk(k - 1)] {
        k -= 1;
    }
    (k < n).then_some(k)
}

/// Writes `value` to a new chain and returns its reference. The chain is written back to front
/// (each page's successor exists when it is written) in mtrs of their own, each latching a
/// bounded number of pages; the caller's mtr, which holds the leaf, logs the reference after
/// them. A crash in between leaks the chain's pages (never corrupts the tree).
pub(crate) fn write_chain(store: &PageStore, value: &[u8]) -> Result<OverflowRef> {
    write_chain_onto(store, value, value.len(), NO_PAGE)
}

/// Writes the first chunks of a value of `total` bytes, `head` (whole chunks unless it is the
/// whole value), as new pages whose last links to `tail` (the page holding the rest, or
/// NO_PAGE). The caller counts the new reference to `tail` in the mtr that stores the result.
pub(crate) fn write_chain_onto(store: &PageStore, head: &[u8], total: usize, tail: PageId) -> Result<OverflowRef> {
    assert!(!head.is_empty() && total <= MAX_VALUE_LEN && head.len() <= total);
    assert!(
        (tail == NO_PAGE) == (head.len() == total) && (tail == NO_PAGE || head.len().is_multiple_of(OVERFLOW_CAPACITY))
    );
    // Bounded by the pool (latched pages) and by the log's largest entry (one image per page).
    let max_payload = store.wal().max_payload();
    let per_mtr = store.shared().overflow_pages_per_mtr.min((max_payload / (PAGE_SIZE + 64)).max(1));
    let chunks: Vec<&[u8]> = head.chunks(OVERFLOW_CAPACITY).collect();
    let mut next = tail;
    let mut page = vec![0u8; PAGE_SIZE];
    let mut end = chunks.len();
    while end > 0 {
        let start = end.saturating_sub(per_mtr);
        let mut mtr = Mtr::new(store);
        for chunk in chunks[start..end].iter().rev() {
            let pid = mtr.alloc_page()?;
            init_linked_page(&mut page, pid, PageType::Overflow, next);
            put_u32(&mut page, OFF_OVERFLOW_LEN, chunk.len() as u32);
            page[HEADER_SIZE..HEADER_SIZE + chunk.len()].copy_from_slice(chunk);
            mtr.apply_image(pid, &page)?;
            next = pid;
        }
        mtr.commit();
        end = start;
    }
    Ok(OverflowRef { len: total as u64, first: next })
}

/// Writes `data` as a new chain front to back, in mtrs of their own that latch nothing but the
/// chain's pages and page 0, for a value too large to be written while its leaf is latched
/// (docs §4.3, "Values larger than 4 MiB"). Each page is written unlinked and the previous page
/// is linked to it in the same mtr, so after any mtr the pages written form a well-formed chain
/// from the first (`pending_chain_pages` walks it). `commit_first` commits the first mtr (it logs
/// the chain as pending in it, so that a crash or an error frees the pages); `between` runs
/// between mtrs, holding no latch (the caller waits there for the log's checkpoint). Returns the
/// first page. On an error the pages written so far stay a pending chain the caller frees.
pub(crate) fn write_chain_ahead(
    store: &PageStore,
    data: &[u8],
    commit_first: &mut dyn FnMut(Mtr<'_>, PageId),
    between: &mut dyn FnMut() -> Result<()>,
) -> Result<PageId> {
    assert!(!data.is_empty());
    let max_payload = store.wal().max_payload();
    // Each page costs its image and a link record in the log.
    let per_mtr = store.shared().overflow_pages_per_mtr.min((max_payload / (PAGE_SIZE + 128)).max(1));
    let mut chunks = data.chunks(OVERFLOW_CAPACITY).peekable();
    let mut first = NO_PAGE;
    let mut last = NO_PAGE;
    let mut page = vec![0u8; PAGE_SIZE];
    let mut first_mtr = true;
    while chunks.peek().is_some() {
        if !first_mtr {
            between()?;
        }
        let mut mtr = Mtr::new(store);
        let mut written: Result<()> = Ok(());
        for chunk in chunks.by_ref().take(per_mtr) {
            written = (|| {
                let pid = mtr.alloc_page()?;
                init_linked_page(&mut page, pid, PageType::Overflow, NO_PAGE);
                put_u32(&mut page, OFF_OVERFLOW_LEN, chunk.len() as u32);
                page[HEADER_SIZE..HEADER_SIZE + chunk.len()].copy_from_slice(chunk);
                mtr.apply_image(pid, &page)?;
                if last != NO_PAGE {
                    mtr.latch(last)?;
                    mtr.apply(last, &PageRecord::SetU64 { offset: OFF_NEXT as u16, value: pid })?;
                } else {
                    first = pid;
                }
                last = pid;
                Ok(())
            })();
            if written.is_err() {
                break;
            }
        }
        if first_mtr && first != NO_PAGE {
            commit_first(mtr, first);
        } else {
            mtr.commit();
        }
        first_mtr = false;
        written?;
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_roundtrip_and_reject_nonsense() {
        let r = OverflowRef { len: 40_000, first: 17 };
        assert_eq!(OverflowRef::decode(&r.encode()), Some(r));
        assert_eq!(r.pages(), 3);
        assert_eq!(OverflowRef::decode(&OverflowRef { len: 0, first: 17 }.encode()), None);
        assert_eq!(OverflowRef::decode(&OverflowRef { len: 5, first: NO_PAGE }.encode()), None);
        assert_eq!(OverflowRef::decode(&OverflowRef { len: u64::MAX, first: 3 }.encode()), None);
        assert_eq!(OverflowRef::decode(&[0u8; 3]), None);
    }

    #[test]
    fn a_tail_is_shared_from_the_first_chunk_after_the_last_difference() {
        let cap = OVERFLOW_CAPACITY;
        let old: Vec<u8> = (0..5 * cap + 100).map(|i| (i % 251) as u8).collect();
        let mut new = old.clone();
        new[3] ^= 1; // in chunk 0
        assert_eq!(shared_tail_from(&old, &new), Some(1));
        new[2 * cap + 7] ^= 1; // in chunk 2
        assert_eq!(shared_tail_from(&old, &new), Some(3));
        let mut last = old.clone();
        *last.last_mut().unwrap() ^= 1; // in the last chunk: nothing left to share
        assert_eq!(shared_tail_from(&old, &last), None);
        assert_eq!(shared_tail_from(&old, &old[1..]), None, "lengths differ");
        assert_eq!(shared_tail_from(&old[..cap], &old[..cap]), None, "one chunk");
        assert_eq!(shared_tail_from(&old, &old), Some(1), "equal values share all but the first chunk");
    }
}
