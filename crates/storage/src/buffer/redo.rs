//! Redo records: their byte format and their application to a page (docs §4.4).
//!
//! An mtr's log entry payload is a sequence of records. Page records are physiological (a page id
//! plus an operation on that page); logical records are opaque bytes for the transactional layer.
//! The runtime changes pages ONLY by building a `PageRecord`, applying it with `apply` and
//! appending its encoding to the mtr; recovery decodes the same record and calls the same `apply`.
//! So redo replays exactly what the runtime did.
//!
//! Encoding (little-endian): `kind u8`, then for page records `page_id u64` and:
//!
//! | kind | body |
//! |---|---|
//! | INIT | page_type u8, level u8, link u64 |
//! | LEAF_INSERT | slot u16, flags u8, key_len u16, val_len u16, key, value |
//! | LEAF_DELETE | slot u16 |
//! | LEAF_UPDATE | slot u16, flags u8, val_len u16, value |
//! | INNER_INSERT | slot u16, child u64, key_len u16, key |
//! | INNER_DELETE | slot u16 |
//! | IMAGE | low_len u16, high_off u16, page[..low_len], page[high_off..] (the zero gap is implied) |
//! | SET_U64 | offset u16, value u64 |
//! | SET_U8 | offset u16, value u8 |
//! | UNDO_INIT | trx_id u64, prev u64, state u8 |
//! | UNDO_APPEND | len u16, bytes |
//! | LOGICAL | len u32, bytes (no page id) |

use crate::error::{Result, StorageError};
use crate::page::node::{self, NodeError};
use crate::page::undo;

use crate::page::{get_u64, put_u64, PageBytes, PageType, HEADER_SIZE, OFF_NEXT, OFF_PAGE_ID, OFF_TYPE};
use crate::page::{PageId, PAGE_SIZE};

const KIND_INIT: u8 = 1;
const KIND_LEAF_INSERT: u8 = 2;
const KIND_LEAF_DELETE: u8 = 3;
const KIND_LEAF_UPDATE: u8 = 4;
const KIND_INNER_INSERT: u8 = 5;
const KIND_IMAGE: u8 = 6;
const KIND_SET_U64: u8 = 7;
const KIND_LOGICAL: u8 = 8;
const KIND_SET_U8: u8 = 9;
const KIND_UNDO_INIT: u8 = 10;
const KIND_UNDO_APPEND: u8 = 11;
const KIND_INNER_DELETE: u8 = 12;

/// Overflow pages: bytes of data in the page (data starts at HEADER_SIZE).
pub(crate) const OFF_OVERFLOW_LEN: usize = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PageRecord<'a> {
    /// Formats an empty page. `link`: right sibling (leaf), leftmost child (inner), next page
    /// (free, overflow).
    Init {
        page_type: PageType,
        level: u8,
        link: PageId,
    },
    LeafInsert {
        slot: u16,
        key: &'a [u8],
        flags: u8,
        value: &'a [u8],
    },
    LeafDelete {
        slot: u16,
    },
    LeafUpdate {
        slot: u16,
        flags: u8,
        value: &'a [u8],
    },
    InnerInsert {
        slot: u16,
        key: &'a [u8],
        child: PageId,
    },
    /// Removes separator `slot` and the child right of it (a merge).
    InnerDelete {
        slot: u16,
    },
    /// The whole page: `low` is its prefix, `high` its suffix from `high_off`, zeros between.
    Image {
        low: &'a [u8],
        high_off: u16,
        high: &'a [u8],
    },
    /// Sets a u64 field of the type-specific header or body (page 0 fields, chain links).
    SetU64 {
        offset: u16,
        value: u64,
    },
    /// Sets one byte of the type-specific header or body (undo log state, undo record flags).
    SetU8 {
        offset: u16,
        value: u8,
    },
    /// Formats an empty undo page of transaction `trx_id` after `prev` in its log; `state` != 0
    /// makes it the first page of a log, in that state (trx/undo.rs has the layout).
    UndoInit {
        trx_id: u64,
        prev: PageId,
        state: u8,
    },
    /// Appends one undo record to an undo page.
    UndoAppend {
        data: &'a [u8],
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LogRecord<'a> {
    Page(PageId, PageRecord<'a>),
    Logical(&'a [u8]),
}

fn corrupt(what: impl std::fmt::Display) -> StorageError {
    StorageError::Corruption(format!("redo record: {what}"))
}

fn node_error(pid: PageId, e: NodeError, rec: &PageRecord) -> StorageError {
    match e {
        NodeError::NoRoom => corrupt(format!("page {pid}: no room for {rec:?}")),
        NodeError::Corrupt => corrupt(format!("page {pid}: cannot apply {rec:?} (inconsistent page or record)")),
    }
}

/// The image record of a page, leaving out the free gap of node pages and the unused tail of
/// overflow pages.
pub(crate) fn image_of(page: &[u8]) -> PageRecord<'_> {
    assert_eq!(page.len(), PAGE_SIZE);
    let (low_len, high_off) = match page.page_type() {
        Ok(PageType::Leaf) | Ok(PageType::Inner) => match node::used_ranges(page) {
            Some(r) => r,
            None => (PAGE_SIZE, PAGE_SIZE),
        },
        Ok(PageType::Overflow) => {
            let len = page.u32_at(OFF_OVERFLOW_LEN).map(|l| l as usize).unwrap_or(PAGE_SIZE);
            let low = (HEADER_SIZE + len).min(PAGE_SIZE);
            (low, PAGE_SIZE)
        }
        Ok(PageType::Undo) => {
            let used = page.u16_at(undo::OFF_UNDO_USED).map(|u| u as usize).unwrap_or(PAGE_SIZE);
            (used.clamp(undo::UNDO_DATA_START, PAGE_SIZE), PAGE_SIZE)
        }
        _ => (PAGE_SIZE, PAGE_SIZE),
    };
    debug_assert!(HEADER_SIZE <= low_len && low_len <= high_off && high_off <= PAGE_SIZE);
    debug_assert!(page[low_len..high_off].iter().all(|&b| b == 0), "image gap must be zero");
    PageRecord::Image { low: &page[..low_len], high_off: high_off as u16, high: &page[high_off..] }
}

/// Formats a free or overflow page (no body; the overflow data is written by the caller).
pub(crate) fn init_linked_page(page: &mut [u8], pid: PageId, page_type: PageType, link: PageId) {
    debug_assert!(matches!(page_type, PageType::Free | PageType::Overflow));
    page.fill(0);
    page[OFF_TYPE] = page_type as u8;
    put_u64(page, OFF_PAGE_ID, pid);
    put_u64(page, OFF_NEXT, link);
}

/// Applies one page record to the page `pid` (latched by the caller). Validates everything: a
/// record that does not fit the page is an error, never a panic.
pub(crate) fn apply(page: &mut [u8], pid: PageId, rec: &PageRecord) -> Result<()> {
    assert_eq!(page.len(), PAGE_SIZE);
    let ne = |e| node_error(pid, e, rec);
    match *rec {
        PageRecord::Init { page_type, level, link } => match page_type {
            PageType::Leaf | PageType::Inner => {
                if (page_type == PageType::Leaf) != (level == 0) {
                    return Err(corrupt(format!("page {pid}: node level {level} for {page_type:?}")));
                }
                node::init(page, pid, page_type, level, link)
            }
            PageType::Free | PageType::Overflow if level == 0 => init_linked_page(page, pid, page_type, link),
            _ => return Err(corrupt(format!("page {pid}: cannot init as {page_type:?}"))),
        },
        PageRecord::LeafInsert { slot, key, flags, value } => {
            node::leaf_insert(page, slot as usize, key, flags, value).map_err(ne)?
        }
        PageRecord::LeafDelete { slot } => node::leaf_delete(page, slot as usize).map_err(ne)?,
        PageRecord::LeafUpdate { slot, flags, value } => {
            node::leaf_update(page, slot as usize, flags, value).map_err(ne)?
        }
        PageRecord::InnerInsert { slot, key, child } => {
            node::inner_insert(page, slot as usize, key, child).map_err(ne)?
        }
        PageRecord::InnerDelete { slot } => node::inner_delete(page, slot as usize).map_err(ne)?,
        PageRecord::Image { low, high_off, high } => {
            let high_off = high_off as usize;
            if low.len() < HEADER_SIZE || high_off < low.len() || high_off + high.len() != PAGE_SIZE {
                return Err(corrupt(format!("page {pid}: malformed image")));
            }
            if get_u64(low, OFF_PAGE_ID) != pid {
                return Err(corrupt(format!("page {pid}: image of page {}", get_u64(low, OFF_PAGE_ID))));
            }
            page[..low.len()].copy_from_slice(low);
            page[low.len()..high_off].fill(0);
            page[high_off..].copy_from_slice(high);
        }
        PageRecord::SetU64 { offset, value } => {
            let off = offset as usize;
            // Never the checksum, type, id or LSN: those belong to init, images and stamping.
            if off < OFF_NEXT || off + 8 > PAGE_SIZE {
                return Err(corrupt(format!("page {pid}: field offset {off}")));
            }
            put_u64(page, off, value);
        }
        PageRecord::SetU8 { offset, value } => {
            let off = offset as usize;
            if !(OFF_NEXT..PAGE_SIZE).contains(&off) {
                return Err(corrupt(format!("page {pid}: field offset {off}")));
            }
            page[off] = value;
        }
        PageRecord::UndoInit { trx_id, prev, state } => undo::format_page(page, pid, trx_id, prev, state),
        PageRecord::UndoAppend { data } => {
            undo::append_to_page(page, data).map_err(|e| corrupt(format!("page {pid}: undo append: {e}")))?
        }
    }
    Ok(())
}

fn put_len16(out: &mut Vec<u8>, len: usize) {
    assert!(len <= u16::MAX as usize, "redo field longer than u16");
    out.extend_from_slice(&(len as u16).to_le_bytes());
}

pub(crate) fn encode_page(pid: PageId, rec: &PageRecord, out: &mut Vec<u8>) {
    let kind = match rec {
        PageRecord::Init { .. } => KIND_INIT,
        PageRecord::LeafInsert { .. } => KIND_LEAF_INSERT,
        PageRecord::LeafDelete { .. } => KIND_LEAF_DELETE,
        PageRecord::LeafUpdate { .. } => KIND_LEAF_UPDATE,
        PageRecord::InnerInsert { .. } => KIND_INNER_INSERT,
        PageRecord::InnerDelete { .. } => KIND_INNER_DELETE,
        PageRecord::Image { .. } => KIND_IMAGE,
        PageRecord::SetU64 { .. } => KIND_SET_U64,
        PageRecord::SetU8 { .. } => KIND_SET_U8,
        PageRecord::UndoInit { .. } => KIND_UNDO_INIT,
        PageRecord::UndoAppend { .. } => KIND_UNDO_APPEND,
    };
    out.push(kind);
    out.extend_from_slice(&pid.to_le_bytes());
    match *rec {
        PageRecord::Init { page_type, level, link } => {
            out.push(page_type as u8);
            out.push(level);
            out.extend_from_slice(&link.to_le_bytes());
        }
        PageRecord::LeafInsert { slot, key, flags, value } => {
            out.extend_from_slice(&slot.to_le_bytes());
            out.push(flags);
            put_len16(out, key.len());
            put_len16(out, value.len());
            out.extend_from_slice(key);
            out.extend_from_slice(value);
        }
        PageRecord::LeafDelete { slot } | PageRecord::InnerDelete { slot } => {
            out.extend_from_slice(&slot.to_le_bytes())
        }
        PageRecord::LeafUpdate { slot, flags, value } => {
            out.extend_from_slice(&slot.to_le_bytes());
            out.push(flags);
            put_len16(out, value.len());
            out.extend_from_slice(value);
        }
        PageRecord::InnerInsert { slot, key, child } => {
            out.extend_from_slice(&slot.to_le_bytes());
            out.extend_from_slice(&child.to_le_bytes());
            put_len16(out, key.len());
            out.extend_from_slice(key);
        }
        PageRecord::Image { low, high_off, high } => {
            put_len16(out, low.len());
            out.extend_from_slice(&high_off.to_le_bytes());
            out.extend_from_slice(low);
            out.extend_from_slice(high);
        }
        PageRecord::SetU64 { offset, value } => {
            out.extend_from_slice(&offset.to_le_bytes());
            out.extend_from_slice(&value.to_le_bytes());
        }
        PageRecord::SetU8 { offset, value } => {
            out.extend_from_slice(&offset.to_le_bytes());
            out.push(value);
        }
        PageRecord::UndoInit { trx_id, prev, state } => {
            out.extend_from_slice(&trx_id.to_le_bytes());
            out.extend_from_slice(&prev.to_le_bytes());
            out.push(state);
        }
        PageRecord::UndoAppend { data } => {
            put_len16(out, data.len());
            out.extend_from_slice(data);
        }
    }
}

pub(crate) fn encode_logical(payload: &[u8], out: &mut Vec<u8>) {
    out.push(KIND_LOGICAL);
    let len = u32::try_from(payload.len()).expect("logical record longer than 4 GiB");
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(payload);
}

/// Decodes the records of one entry payload in order. Any malformation is `Corruption` (the
/// entry's CRC verified, so a bad record means a bug or a foreign file, not a torn write).
pub(crate) struct RecordReader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> RecordReader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> RecordReader<'a> {
        RecordReader { buf, pos: 0 }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len()).ok_or_else(|| corrupt("truncated"))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().expect("2 bytes")))
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }

    pub(crate) fn next_record(&mut self) -> Result<Option<LogRecord<'a>>> {
        if self.pos == self.buf.len() {
            return Ok(None);
        }
        let kind = self.u8()?;
        if kind == KIND_LOGICAL {
            let len = self.u32()? as usize;
            return Ok(Some(LogRecord::Logical(self.take(len)?)));
        }
        let pid = self.u64()?;
        let rec = match kind {
            KIND_INIT => {
                let t = self.u8()?;
                let page_type = PageType::from_u8(t).ok_or_else(|| corrupt(format!("page type {t}")))?;
                PageRecord::Init { page_type, level: self.u8()?, link: self.u64()? }
            }
            KIND_LEAF_INSERT => {
                let slot = self.u16()?;
                let flags = self.u8()?;
                let key_len = self.u16()? as usize;
                let val_len = self.u16()? as usize;
                PageRecord::LeafInsert { slot, flags, key: self.take(key_len)?, value: self.take(val_len)? }
            }
            KIND_LEAF_DELETE => PageRecord::LeafDelete { slot: self.u16()? },
            KIND_INNER_DELETE => PageRecord::InnerDelete { slot: self.u16()? },
            KIND_LEAF_UPDATE => {
                let slot = self.u16()?;
                let flags = self.u8()?;
                let val_len = self.u16()? as usize;
                PageRecord::LeafUpdate { slot, flags, value: self.take(val_len)? }
            }
            KIND_INNER_INSERT => {
                let slot = self.u16()?;
                let child = self.u64()?;
                let key_len = self.u16()? as usize;
                PageRecord::InnerInsert { slot, child, key: self.take(key_len)? }
            }
            KIND_IMAGE => {
                let low_len = self.u16()? as usize;
                let high_off = self.u16()?;
                if (high_off as usize) > PAGE_SIZE || low_len > high_off as usize {
                    return Err(corrupt("image ranges"));
                }
                let low = self.take(low_len)?;
                let high = self.take(PAGE_SIZE - high_off as usize)?;
                PageRecord::Image { low, high_off, high }
            }
            KIND_SET_U64 => PageRecord::SetU64 { offset: self.u16()?, value: self.u64()? },
            KIND_SET_U8 => PageRecord::SetU8 { offset: self.u16()?, value: self.u8()? },
            KIND_UNDO_INIT => PageRecord::UndoInit { trx_id: self.u64()?, prev: self.u64()?, state: self.u8()? },
            KIND_UNDO_APPEND => {
                let len = self.u16()? as usize;
                PageRecord::UndoAppend { data: self.take(len)? }
            }
            k => return Err(corrupt(format!("unknown kind {k}"))),
        };
        Ok(Some(LogRecord::Page(pid, rec)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(records: &[LogRecord]) {
        let mut buf = Vec::new();
        for r in records {
            match r {
                LogRecord::Page(pid, rec) => encode_page(*pid, rec, &mut buf),
                LogRecord::Logical(b) => encode_logical(b, &mut buf),
            }
        }
        let mut rd = RecordReader::new(&buf);
        for r in records {
            assert_eq!(rd.next_record().unwrap().as_ref(), Some(r));
        }
        assert_eq!(rd.next_record().unwrap(), None);
        // Every truncation is an error, never a panic.
        for cut in 0..buf.len() {
            let mut rd = RecordReader::new(&buf[..cut]);
            let mut n = 0;
            let res = loop {
                match rd.next_record() {
                    Ok(Some(_)) => n += 1,
                    Ok(None) => break Ok(()),
                    Err(e) => break Err(e),
                }
            };
            assert!(res.is_err() || n < records.len() || cut == buf.len());
        }
    }

    #[test]
    fn records_roundtrip_and_truncations_fail_cleanly() {
        let mut page = vec![0u8; PAGE_SIZE];
        node::init(&mut page, 12, PageType::Leaf, 0, 13);
        node::leaf_insert(&mut page, 0, b"key", 0, b"value").unwrap();
        roundtrip(&[
            LogRecord::Page(5, PageRecord::Init { page_type: PageType::Leaf, level: 0, link: 9 }),
            LogRecord::Page(5, PageRecord::LeafInsert { slot: 0, key: b"k", flags: 0, value: b"v" }),
            LogRecord::Logical(b"undo"),
            LogRecord::Page(5, PageRecord::LeafUpdate { slot: 0, flags: 0, value: b"vv" }),
            LogRecord::Page(5, PageRecord::LeafDelete { slot: 0 }),
            LogRecord::Page(7, PageRecord::InnerInsert { slot: 1, key: b"sep", child: 44 }),
            LogRecord::Page(7, PageRecord::InnerDelete { slot: 0 }),
            LogRecord::Page(12, image_of(&page)),
            LogRecord::Page(0, PageRecord::SetU64 { offset: 40, value: 99 }),
            LogRecord::Logical(b""),
        ]);
    }

    #[test]
    fn apply_replays_node_changes_and_images() {
        let mut a = vec![0u8; PAGE_SIZE];
        let recs = [
            PageRecord::Init { page_type: PageType::Leaf, level: 0, link: 0 },
            PageRecord::LeafInsert { slot: 0, key: b"b", flags: 0, value: b"2" },
            PageRecord::LeafInsert { slot: 0, key: b"a", flags: 0, value: b"1" },
            PageRecord::LeafUpdate { slot: 1, flags: 0, value: b"22" },
            PageRecord::LeafDelete { slot: 0 },
        ];
        for r in &recs {
            apply(&mut a, 3, r).unwrap();
        }
        let mut b = vec![0xEEu8; PAGE_SIZE];
        apply(&mut b, 3, &image_of(&a)).unwrap();
        assert_eq!(a, b, "an image reproduces the page exactly, gap included");
        assert!(apply(&mut b, 4, &image_of(&a)).is_err(), "image of another page");
        assert!(apply(&mut a, 3, &PageRecord::LeafDelete { slot: 5 }).is_err());
        assert!(
            apply(&mut a, 3, &PageRecord::SetU64 { offset: 16, value: 1 }).is_err(),
            "page_lsn is not a settable field"
        );
        assert!(
            apply(&mut a, 3, &PageRecord::Init { page_type: PageType::TablespaceHeader, level: 0, link: 0 }).is_err()
        );
    }
}
