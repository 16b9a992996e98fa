//! Mini-transactions: the atomic unit of page change and of logging.
//!
//! INTERFACE CONTRACT (frozen; owner: page-store helper). An mtr X-latches the pages it modifies
//! and collects their redo records (plus opaque logical records from the transactional layer) in
//! a private buffer; `commit` appends them as ONE log entry (one atomic add), stamps the pages'
//! LSN and releases the latches. Rule: at most one `BTree::modify` per mtr (latches are then
//! always taken root-to-leaf within one tree and cannot deadlock).

use crate::buffer::PageStore;
use crate::wal::Lsn;

pub struct Mtr<'s> {
    _store: &'s PageStore,
}

impl<'s> Mtr<'s> {
    pub fn new(store: &'s PageStore) -> Mtr<'s> {
        let _ = store;
        todo!("page store")
    }

    /// Adds an opaque logical record (undo before-image, commit, abort, ...). Recovery hands it
    /// back through `PageStore::redo_entry`'s `on_logical`, in log order.
    pub fn log_logical(&mut self, payload: &[u8]) {
        let _ = payload;
        todo!("page store")
    }

    /// Appends the entry and releases the latches. Returns the entry's (start, end) LSNs; an
    /// mtr that logged nothing returns (0, 0) without touching the log.
    pub fn commit(self) -> (Lsn, Lsn) {
        todo!("page store")
    }
}
