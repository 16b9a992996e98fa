//! Physical redo: applying the page records of one log entry during recovery (docs §4.4, §4.8).
//!
//! Each page's records in an entry are applied only if the page's LSN is below the entry's end
//! (the page does not contain the entry yet), and all of them together: the decision is taken at
//! the page's first record in the entry and the page stays latched until the entry is done. The
//! records are applied by `redo::apply`, the function the runtime used to make the change.

use std::sync::atomic::Ordering;

use smallvec::SmallVec;

use super::pool::XGuard;
use super::redo::{self, LogRecord, RecordReader};
use super::shared::Shared;
use crate::error::{Result, StorageError};
use crate::page::PageId;
use crate::page::{set_page_lsn, PageBytes};
use crate::wal::{LogEntry, Lsn};

impl Shared {
    pub(crate) fn redo_entry(&self, entry: &LogEntry, on_logical: &mut dyn FnMut(Lsn, &[u8])) -> Result<()> {
        if entry.end <= entry.start {
            return Err(StorageError::Corruption(format!("log entry at {} ends at {}", entry.start, entry.end)));
        }
        // Pages seen in this entry: Some(latched page) if its records apply, None if skipped.
        let mut pages: SmallVec<[(PageId, Option<XGuard<'_>>); 8]> = SmallVec::new();
        let mut reader = RecordReader::new(&entry.payload);
        while let Some(record) = reader.next_record()? {
            match record {
                LogRecord::Logical(bytes) => on_logical(entry.start, bytes),
                LogRecord::Page(pid, rec) => {
                    let pos = match pages.iter().position(|(p, _)| *p == pid) {
                        Some(pos) => pos,
                        None => {
                            let guard = self.latch_page(pid)?;
                            let page_lsn = guard.page().page_lsn().expect("header in bounds");
                            pages.push((pid, (page_lsn < entry.end).then_some(guard)));
                            pages.len() - 1
                        }
                    };
                    if let Some(guard) = &mut pages[pos].1 {
                        redo::apply(guard.page_mut(), pid, &rec)?;
                    }
                }
            }
        }
        for (_, guard) in pages.iter_mut() {
            if let Some(guard) = guard {
                set_page_lsn(guard.page_mut(), entry.end);
                let _ = guard.frame().rec_lsn.compare_exchange(0, entry.start, Ordering::SeqCst, Ordering::SeqCst);
            }
        }
        Ok(())
    }
}
