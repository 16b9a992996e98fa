//! The on-disk format shared by every page: the 64-byte header, page types, checksums, the layout
//! of page 0 (the tablespace header), and bounds-checked reading of page bytes.
//!
//! Children: `node` (B+tree node pages) and `undo` (undo log pages). The formats sit below the
//! buffer pool because the pool's redo application and the tablespace bootstrap write them, and
//! below `btree` and `trx::undo` because those build their changes from them: a format imports
//! nothing above it, and this module names none of its children.
//!
//! All integers are little-endian. Header layout (docs/architecture.md §4.1):
//!
//! | offset | field |
//! |---|---|
//! | 0  | checksum u32: CRC32C of bytes 4..PAGE_SIZE, computed on the copy being written |
//! | 4  | page_type u8 |
//! | 5  | level u8 (B+tree nodes: 0 = leaf) |
//! | 6  | flags u16 (reserved, 0) |
//! | 8  | page_id u64: the page's own number, so a misdirected write is caught on read |
//! | 16 | page_lsn u64: end LSN of the last mtr that modified the page |
//! | 24..64 | type-specific fields |

pub(crate) mod node;
pub(crate) mod undo;

use std::cmp::Ordering;

/// A page's number in the tablespace file (its offset is `id * PAGE_SIZE`).
pub type PageId = u64;
pub const PAGE_SIZE: usize = 16 * 1024;

/// Number of system B+trees whose roots live in the tablespace header (created with the database).
pub const SYSTEM_TREES: usize = 8;

pub const HEADER_SIZE: usize = 64;

pub(crate) const OFF_CHECKSUM: usize = 0;
pub(crate) const OFF_TYPE: usize = 4;
pub(crate) const OFF_LEVEL: usize = 5;
pub(crate) const OFF_PAGE_ID: usize = 8;
pub(crate) const OFF_PAGE_LSN: usize = 16;
/// Free, overflow and undo pages: the next page of the free list, of the overflow chain or of
/// the undo log. The same offset for all, so a freed chain can be spliced into the free list as
/// it is.
pub(crate) const OFF_NEXT: usize = 24;

/// Overflow pages: how many references to the page there are besides one (0: the page is in
/// one chain only). A chain that shares the tail of another links to the tail's first page and
/// counts itself here; the pages after it have one predecessor each and stay at 0 (btree/
/// overflow.rs). 0 in pages of older chains, which is what they mean.
pub(crate) const OFF_OVERFLOW_SHARES: usize = 40;

/// "No page": page 0 is the tablespace header, never a child, sibling, chain or free page.
pub const NO_PAGE: PageId = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PageType {
    /// All zero: allocated but never written.
    Unwritten = 0,
    /// Page 0.
    TablespaceHeader = 1,
    Free = 2,
    Leaf = 3,
    Inner = 4,
    Overflow = 5,
    /// A page of a transaction's undo log (trx/undo.rs).
    Undo = 6,
}

impl PageType {
    pub fn from_u8(v: u8) -> Option<PageType> {
        Some(match v {
            0 => PageType::Unwritten,
            1 => PageType::TablespaceHeader,
            2 => PageType::Free,
            3 => PageType::Leaf,
            4 => PageType::Inner,
            5 => PageType::Overflow,
            6 => PageType::Undo,
            _ => return None,
        })
    }
}

/// The tablespace header page.
pub const HEADER_PAGE: PageId = 0;

// Page 0 (tablespace header), type-specific fields and the system tree roots after the header.
pub(crate) const OFF_MAGIC: usize = 24;
pub(crate) const OFF_FORMAT: usize = 32;
/// Pages `[0, page_count)` exist; allocation past the free list takes `page_count`.
pub(crate) const OFF_PAGE_COUNT: usize = 40;
pub(crate) const OFF_FREE_HEAD: usize = 48;
pub(crate) const OFF_SYSTEM_ROOTS: usize = HEADER_SIZE;
pub(crate) const TABLESPACE_MAGIC: u64 = u64::from_le_bytes(*b"SELKIEts");
/// Version of the page formats in this file, page/node.rs, page/undo.rs and trx/undo.rs; also stored in the
/// control file. 2: undo logs in pages (roll pointers name undo records), checkpoint end marker;
/// also (same unreleased version) overflow chains that share tails (OFF_OVERFLOW_SHARES, 0 in
/// every overflow page written before: unshared) and the INNER_DELETE redo record of merges.
pub const FORMAT_VERSION: u32 = 2;

const _: () = assert!(OFF_SYSTEM_ROOTS + 8 * SYSTEM_TREES <= PAGE_SIZE);

/// A read that found inconsistent bytes: an offset or length out of bounds, an impossible value.
/// Under an optimistic latch it means "the page changed under us, restart" if the version moved,
/// and corruption if it did not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Torn;

/// Bounds-checked reads of a page's bytes. Implemented by plain slices (latched pages, copies) and
/// by `frame::PageView` (frame memory read optimistically), so that one implementation of each
/// page-reading function serves both.
pub(crate) trait PageBytes {
    /// Runs `f` over `len` bytes at `off`, or returns `Torn` if the range leaves the page.
    fn with_bytes<R>(&self, off: usize, len: usize, f: impl FnOnce(&[u8]) -> R) -> Result<R, Torn>;

    fn u8_at(&self, off: usize) -> Result<u8, Torn> {
        self.with_bytes(off, 1, |b| b[0])
    }
    fn u16_at(&self, off: usize) -> Result<u16, Torn> {
        self.with_bytes(off, 2, |b| u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32_at(&self, off: usize) -> Result<u32, Torn> {
        self.with_bytes(off, 4, |b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }
    fn u64_at(&self, off: usize) -> Result<u64, Torn> {
        self.with_bytes(off, 8, |b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }
    /// Compares the bytes at `off..off+len` with `key`.
    fn cmp_at(&self, off: usize, len: usize, key: &[u8]) -> Result<Ordering, Torn> {
        self.with_bytes(off, len, |b| b.cmp(key))
    }
    /// Appends the bytes at `off..off+len` to `out`.
    fn copy_at(&self, off: usize, len: usize, out: &mut Vec<u8>) -> Result<(), Torn> {
        self.with_bytes(off, len, |b| out.extend_from_slice(b))
    }

    fn page_type(&self) -> Result<PageType, Torn> {
        PageType::from_u8(self.u8_at(OFF_TYPE)?).ok_or(Torn)
    }
    fn level(&self) -> Result<u8, Torn> {
        self.u8_at(OFF_LEVEL)
    }
    fn page_lsn(&self) -> Result<u64, Torn> {
        self.u64_at(OFF_PAGE_LSN)
    }
}

impl PageBytes for [u8] {
    fn with_bytes<R>(&self, off: usize, len: usize, f: impl FnOnce(&[u8]) -> R) -> Result<R, Torn> {
        let end = off.checked_add(len).ok_or(Torn)?;
        self.get(off..end).map(f).ok_or(Torn)
    }
}

pub(crate) fn put_u16(page: &mut [u8], off: usize, v: u16) {
    page[off..off + 2].copy_from_slice(&v.to_le_bytes());
}
pub(crate) fn put_u32(page: &mut [u8], off: usize, v: u32) {
    page[off..off + 4].copy_from_slice(&v.to_le_bytes());
}
pub(crate) fn put_u64(page: &mut [u8], off: usize, v: u64) {
    page[off..off + 8].copy_from_slice(&v.to_le_bytes());
}

/// Reads a header field of a page we own (latched or copied); the header is always in bounds.
pub(crate) fn get_u64(page: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(page[off..off + 8].try_into().expect("8 bytes"))
}

pub(crate) fn set_page_lsn(page: &mut [u8], lsn: u64) {
    put_u64(page, OFF_PAGE_LSN, lsn);
}

fn compute_checksum(page: &[u8]) -> u32 {
    crc32c::crc32c(&page[4..])
}

/// Stamps the checksum into a page copy that is about to be written.
pub(crate) fn seal(page: &mut [u8]) {
    debug_assert_eq!(page.len(), PAGE_SIZE);
    let crc = compute_checksum(page);
    put_u32(page, OFF_CHECKSUM, crc);
}

/// Checks a page read from disk: an all-zero page was never written and is valid; any other page
/// must carry a correct checksum and its own page id.
pub(crate) fn verify(page: &[u8], expected: PageId) -> Result<(), String> {
    debug_assert_eq!(page.len(), PAGE_SIZE);
    let stored = u32::from_le_bytes(page[..4].try_into().expect("4 bytes"));
    if stored == compute_checksum(page) {
        let id = get_u64(page, OFF_PAGE_ID);
        if id != expected {
            return Err(format!("page {expected} holds the image of page {id} (misdirected write)"));
        }
        return Ok(());
    }
    if page.iter().all(|&b| b == 0) {
        return Ok(());
    }
    Err(format!("page {expected}: checksum mismatch (torn or corrupt page)"))
}

/// True if the page is a valid written image (checksum correct), whatever its id.
pub(crate) fn has_valid_checksum(page: &[u8]) -> bool {
    let stored = u32::from_le_bytes(page[..4].try_into().expect("4 bytes"));
    stored == compute_checksum(page) && page.iter().any(|&b| b != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_catches_flips_and_misdirected_writes() {
        let mut page = vec![0u8; PAGE_SIZE];
        assert!(verify(&page, 7).is_ok(), "an all-zero page is a never-written page");
        page[OFF_TYPE] = PageType::Leaf as u8;
        put_u64(&mut page, OFF_PAGE_ID, 7);
        page[9000] = 0xAB;
        assert!(verify(&page, 7).is_err(), "unsealed page must fail");
        seal(&mut page);
        assert!(verify(&page, 7).is_ok());
        assert!(verify(&page, 8).is_err(), "wrong page id must fail");
        page[PAGE_SIZE - 1] ^= 1;
        assert!(verify(&page, 7).is_err(), "a flipped bit must fail");
    }

    #[test]
    fn slice_reads_are_bounds_checked() {
        let page = vec![1u8; PAGE_SIZE];
        assert_eq!(page[..].u16_at(PAGE_SIZE - 2), Ok(0x0101));
        assert_eq!(page[..].u16_at(PAGE_SIZE - 1), Err(Torn));
        assert_eq!(page[..].u64_at(usize::MAX - 3), Err(Torn));
        assert_eq!(page[..].cmp_at(10, 2, &[1, 1]), Ok(Ordering::Equal));
        assert_eq!(page[..].cmp_at(PAGE_SIZE, 1, &[1]), Err(Torn));
    }
}
