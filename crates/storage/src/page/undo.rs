//! The byte format of undo pages (the pages of transactions' undo logs; their meaning and life
//! cycle are in trx/undo.rs) and the two redo-logged changes that build them.
//!
//! After the common 64-byte header (type `Undo`), at 24..64:
//!
//! | offset | field |
//! |---|---|
//! | 24 | next u64: the next page of the log (NO_PAGE at the end); OFF_NEXT, as for chains |
//! | 32 | prev u64: the previous page of the log |
//! | 40 | trx_id u64: the transaction that owns the log (every page: roll pointers are checked) |
//! | 48 | used u16: end of the records in this page |
//! | 50 | last u16: offset of the last record that starts in this page (0: none) |
//!
//! The first page of a log also holds the log header at 64..96: `state u8` at 64 (0 on every
//! other page, so a first page can be told from the others) and `last_page u64` at 72. Records
//! start at UNDO_DATA_START on every page and never span pages.

use crate::page::{
    put_u16, put_u64, PageId, PageType, HEADER_SIZE, NO_PAGE, OFF_NEXT, OFF_PAGE_ID, OFF_TYPE, PAGE_SIZE,
};

pub(crate) const OFF_UNDO_PREV: usize = 32;
pub(crate) const OFF_UNDO_TRX: usize = 40;
pub(crate) const OFF_UNDO_USED: usize = 48;
pub(crate) const OFF_UNDO_LAST: usize = 50;
/// First page only: the log's state (`trx::undo::LogState`), 0 on other pages.
pub(crate) const OFF_LOG_STATE: usize = HEADER_SIZE;
/// First page only: the last page of the log (where a recovery looks for its newest record).
pub(crate) const OFF_LOG_LAST_PAGE: usize = HEADER_SIZE + 8;
/// Where records start on every page.
pub(crate) const UNDO_DATA_START: usize = HEADER_SIZE + 32;

/// Formats an empty undo page (the UndoInit redo record). Only the headers are cleared: nothing
/// reads a page beyond its `used` end, and every transaction's first write formats two pages,
/// where zeroing 32 KiB of cold memory was 6% of a write-heavy server's CPU. (The bytes past
/// `used` are whatever the page held before, in memory and on disk alike; like InnoDB, freed
/// space is not scrubbed.)
pub(crate) fn format_page(page: &mut [u8], pid: PageId, trx_id: u64, prev: PageId, state: u8) {
    page[..UNDO_DATA_START].fill(0);
    page[OFF_TYPE] = PageType::Undo as u8;
    put_u64(page, OFF_PAGE_ID, pid);
    put_u64(page, OFF_NEXT, NO_PAGE);
    put_u64(page, OFF_UNDO_PREV, prev);
    put_u64(page, OFF_UNDO_TRX, trx_id);
    put_u16(page, OFF_UNDO_USED, UNDO_DATA_START as u16);
    if state != 0 {
        page[OFF_LOG_STATE] = state;
        put_u64(page, OFF_LOG_LAST_PAGE, pid);
    }
}

/// Appends one record at the end of the page's records (the UndoAppend redo record).
pub(crate) fn append_to_page(page: &mut [u8], data: &[u8]) -> Result<(), &'static str> {
    if page[OFF_TYPE] != PageType::Undo as u8 {
        return Err("not an undo page");
    }
    let used = u16::from_le_bytes([page[OFF_UNDO_USED], page[OFF_UNDO_USED + 1]]) as usize;
    if !(UNDO_DATA_START..=PAGE_SIZE).contains(&used) {
        return Err("used offset out of range");
    }
    if data.is_empty() || used + data.len() > PAGE_SIZE {
        return Err("record does not fit");
    }
    page[used..used + data.len()].copy_from_slice(data);
    put_u16(page, OFF_UNDO_LAST, used as u16);
    put_u16(page, OFF_UNDO_USED, (used + data.len()) as u16);
    Ok(())
}
