//! Overflow chains: values too large for a leaf record live in a chain of overflow pages, and the
//! leaf holds a 16-byte reference `total_len u64 | first_page u64` (docs §4.3).
//!
//! Overflow page: common header (type Overflow, `next` at OFF_NEXT), data length u32 at
//! OFF_OVERFLOW_LEN, data from HEADER_SIZE. Chain pages never change after they are written; a
//! chain is freed as a whole (spliced into the free list) when its record is removed or
//! replaced, in the same mtr. A reader that follows a chain optimistically re-validates the leaf
//! afterwards: if the leaf did not change, the chain it read was the record's.

use crate::buffer::page::{put_u32, PageBytes, PageType, HEADER_SIZE, OFF_NEXT};
use crate::buffer::redo::{init_linked_page, OFF_OVERFLOW_LEN};
use crate::buffer::{PageId, PageStore, Shared, MAX_PAGE_COUNT, NO_PAGE, PAGE_SIZE};
use crate::error::{Result, StorageError};
use crate::mtr::Mtr;

use super::node::OVERFLOW_REF_LEN;
use super::MAX_VALUE_LEN;

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

/// One overflow page read consistently: (next page, data appended to `out`).
fn read_chain_page(shared: &Shared, pid: PageId, remaining: usize, out: &mut Vec<u8>) -> Result<Option<PageId>, ChainError> {
    loop {
        let p = shared.read_page(pid).map_err(ChainError::Fail)?;
        let view = p.view();
        let before = out.len();
        let read = (|| {
            if view.page_type()? != PageType::Overflow {
                return Err(crate::buffer::page::Torn);
            }
            let next = view.u64_at(OFF_NEXT)?;
            let len = view.u32_at(OFF_OVERFLOW_LEN)? as usize;
            if len == 0 || len > OVERFLOW_CAPACITY || len > remaining {
                return Err(crate::buffer::page::Torn);
            }
            view.copy_at(HEADER_SIZE, len, out)?;
            Ok(next)
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
        pid = read_chain_page(shared, pid, total - out.len(), &mut out)?.ok_or(ChainError::Inconsistent)?;
    }
    if out.len() != total || pid != NO_PAGE {
        return Err(ChainError::Inconsistent);
    }
    Ok(out)
}

/// Page ids of a chain, in order (the record's leaf must be latched or the tree unreachable).
pub(crate) fn chain_pages(shared: &Shared, r: OverflowRef) -> Result<Vec<PageId>> {
    let corrupt = || StorageError::Corruption(format!("overflow chain at page {} is broken", r.first));
    let mut pages = Vec::with_capacity(r.pages());
    let mut pid = r.first;
    let mut remaining = r.len as usize;
    let mut scratch = Vec::new();
    for _ in 0..r.pages() {
        if pid == NO_PAGE || pid >= MAX_PAGE_COUNT {
            return Err(corrupt());
        }
        pages.push(pid);
        scratch.clear();
        let next = match read_chain_page(shared, pid, remaining, &mut scratch) {
            Ok(Some(next)) => next,
            Ok(None) | Err(ChainError::Inconsistent) => return Err(corrupt()),
            Err(ChainError::Fail(e)) => return Err(e),
        };
        remaining -= scratch.len();
        pid = next;
    }
    if remaining != 0 || pid != NO_PAGE {
        return Err(corrupt());
    }
    Ok(pages)
}

/// Writes `value` to a new chain and returns its reference. The chain is written back to front
/// (each page's successor exists when it is written) in mtrs of their own, each latching a
/// bounded number of pages; the caller's mtr, which holds the leaf, logs the reference after
/// them. A crash in between leaks the chain's pages (never corrupts the tree).
pub(crate) fn write_chain(store: &PageStore, value: &[u8]) -> Result<OverflowRef> {
    assert!(!value.is_empty() && value.len() <= MAX_VALUE_LEN);
    // Bounded by the pool (latched pages) and by the log's largest entry (one image per page).
    let max_payload = store.wal().max_payload();
    let per_mtr = store.shared().overflow_pages_per_mtr.min((max_payload / (PAGE_SIZE + 64)).max(1));
    let chunks: Vec<&[u8]> = value.chunks(OVERFLOW_CAPACITY).collect();
    let mut next = NO_PAGE;
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
    Ok(OverflowRef { len: value.len() as u64, first: next })
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
}
