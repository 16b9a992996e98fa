//! Mini-transactions: the atomic unit of page change and of logging.
//!
//! Above the buffer pool and the log, below `btree` and the transactional layer, which make every
//! page change through one. An mtr X-latches the pages it modifies
//! and collects their redo records (plus opaque logical records from the transactional layer) in
//! a private buffer; `commit` appends them as ONE log entry (one atomic add), stamps the pages'
//! LSN and releases the latches. Rule: at most one `BTree::modify` per mtr (latches are then
//! always taken root-to-leaf within one tree and cannot deadlock).
//!
//! Latch order: tree pages root-to-leaf, then page 0 (allocation), then free or overflow pages
//! owned by the mtr's record. Page 0 is therefore never held while waiting for a tree page, which
//! is why `BTree::modify` must come before any allocation (`BTree::create`) in the same mtr.
//!
//! Between `modify` and `commit` the caller must not read or write any B+tree page (its own leaf
//! is latched exclusively, and optimistic readers wait for that latch).
//!
//! An mtr dropped without `commit` commits what it changed: every applied change is already in
//! the page, and the log must describe it.
//!
//! Space: allocation past the end of the tablespace leaves the data file's space reserve alone
//! unless the mtr was made with `with_space_reserve` (rollback and recovery, which must not fail
//! for lack of space); see buffer/space.rs.

use std::sync::atomic::Ordering;

use smallvec::SmallVec;

use crate::buffer::pool::XGuard;
use crate::buffer::redo::{self, PageRecord};
use crate::buffer::space::ALLOC_HEADROOM;
use crate::buffer::{PageId, PageStore, Shared, HEADER_PAGE, MAX_PAGE_COUNT, NO_PAGE};
use crate::error::{Result, StorageError};
use crate::page::{get_u64, set_page_lsn, PageBytes, PageType, OFF_FREE_HEAD, OFF_NEXT, OFF_PAGE_COUNT};
use crate::wal::Lsn;

struct HeldPage<'s> {
    guard: XGuard<'s>,
    modified: bool,
    /// Latched ahead of the tree by `latch_private` (a page only this thread ever latches
    /// exclusively: an undo page of its own transaction).
    private: bool,
}

pub struct Mtr<'s> {
    store: &'s PageStore,
    pages: SmallVec<[HeldPage<'s>; 8]>,
    log: Vec<u8>,
    /// May allocate from the data file's space reserve.
    use_reserve: bool,
    /// Pages allocated past the end of the tablespace so far.
    extended: u32,
    /// Nobody waits for this mtr's log entry now (`unhurried`).
    unhurried: bool,
}

impl<'s> Mtr<'s> {
    pub fn new(store: &'s PageStore) -> Mtr<'s> {
        Mtr { store, pages: SmallVec::new(), log: Vec::new(), use_reserve: false, extended: 0, unhurried: false }
    }

    /// An mtr that may use the data file's space reserve: for rollback and recovery, which
    /// undo work and must not fail because the disk filled up meanwhile.
    pub fn with_space_reserve(store: &'s PageStore) -> Mtr<'s> {
        let mut mtr = Mtr::new(store);
        mtr.use_reserve = true;
        mtr
    }

    /// Adds an opaque logical record (undo before-image, commit, abort, ...). Recovery hands it
    /// back through `PageStore::redo_entry`'s `on_logical`, in log order.
    pub fn log_logical(&mut self, payload: &[u8]) {
        redo::encode_logical(payload, &mut self.log);
    }

    /// Appends the entry and releases the latches. Returns the entry's (start, end) LSNs; an
    /// mtr that logged nothing returns (0, 0) without touching the log.
    ///
    /// Panics if the store is not started (no log attached): changing pages before `start` is a
    /// caller bug.
    pub fn commit(mut self) -> (Lsn, Lsn) {
        self.commit_inner()
    }

    /// Marks the mtr's log entry as one nobody will wait for soon (undo log setup, a row change
    /// before its commit, purge): committing it does not wake the log writer
    /// (`Wal::append_unhurried`). A later commit's entry, or a wait for this LSN, gets it written.
    pub(crate) fn unhurried(&mut self) {
        self.unhurried = true;
    }

    fn commit_inner(&mut self) -> (Lsn, Lsn) {
        if self.log.is_empty() {
            debug_assert!(self.pages.iter().all(|p| !p.modified), "page changed without a redo record");
            self.pages.clear();
            return (0, 0);
        }
        let wal = self.store.shared().wal.get().expect("Mtr::commit before PageStore::start: no log attached");
        let pages = &mut self.pages;
        let stamp = |start, end| {
            for held in pages.iter_mut().filter(|p| p.modified) {
                set_page_lsn(held.guard.page_mut(), end);
                // rec_lsn stays if the page was already dirty (an older change is unwritten).
                let _ = held.guard.frame().rec_lsn.compare_exchange(0, start, Ordering::SeqCst, Ordering::SeqCst);
            }
        };
        let lsns = if self.unhurried { wal.append_unhurried(&self.log, stamp) } else { wal.append(&self.log, stamp) };
        self.log.clear();
        self.pages.clear(); // releases the latches, after the stamp
        lsns
    }

    pub(crate) fn store(&self) -> &'s PageStore {
        self.store
    }

    pub(crate) fn shared(&self) -> &'s Shared {
        self.store.shared()
    }

    fn position(&self, pid: PageId) -> Option<usize> {
        self.pages.iter().position(|p| p.guard.pid() == pid)
    }

    pub(crate) fn holds(&self, pid: PageId) -> bool {
        self.position(pid).is_some()
    }

    /// Whether the mtr holds a latch that orders it (any but `latch_private` ones).
    pub(crate) fn holds_any(&self) -> bool {
        self.pages.iter().any(|p| !p.private)
    }

    /// X-latches a page no other thread ever X-latches (an undo page of the caller's own
    /// transaction), before the tree pages the latch order puts first: nobody can wait for it
    /// while holding a tree latch (readers read it optimistically, without a latch held), so this
    /// cannot deadlock. `write_version` latches its undo pages this way, so that appending the
    /// undo record after the tree change cannot fail for an I/O error.
    pub(crate) fn latch_private(&mut self, pid: PageId) -> Result<()> {
        if !self.holds(pid) {
            let guard = self.shared().latch_page(pid)?;
            self.pages.push(HeldPage { guard, modified: false, private: true });
        }
        Ok(())
    }

    /// X-latches `pid` (waiting) unless this mtr holds it already.
    pub(crate) fn latch(&mut self, pid: PageId) -> Result<()> {
        if !self.holds(pid) {
            let guard = self.shared().latch_page(pid)?;
            self.pages.push(HeldPage { guard, modified: false, private: false });
        }
        Ok(())
    }

    /// Takes over an exclusive latch acquired elsewhere (by a B+tree descent).
    pub(crate) fn adopt(&mut self, guard: XGuard<'s>) {
        assert!(!self.holds(guard.pid()), "page {} latched twice in one mtr", guard.pid());
        self.pages.push(HeldPage { guard, modified: false, private: false });
    }

    /// Releases `pid` if this mtr did not change it.
    pub(crate) fn release_unmodified(&mut self, pid: PageId) {
        if let Some(i) = self.position(pid) {
            if !self.pages[i].modified {
                self.pages.remove(i);
            }
        }
    }

    /// A page held by this mtr. Panics if it is not held (a bug in the caller's latching).
    pub(crate) fn page(&self, pid: PageId) -> &[u8] {
        let i = self.position(pid).unwrap_or_else(|| panic!("page {pid} is not latched by this mtr"));
        self.pages[i].guard.page()
    }

    /// Changes a latched page by applying `rec` (the same function recovery uses) and logs it.
    pub(crate) fn apply(&mut self, pid: PageId, rec: &PageRecord) -> Result<()> {
        let i = self.position(pid).unwrap_or_else(|| panic!("page {pid} is not latched by this mtr"));
        let held = &mut self.pages[i];
        redo::apply(held.guard.page_mut(), pid, rec)?;
        held.modified = true;
        redo::encode_page(pid, rec, &mut self.log);
        Ok(())
    }

    /// Replaces a latched page by `image` (a whole page built by the caller).
    pub(crate) fn apply_image(&mut self, pid: PageId, image: &[u8]) -> Result<()> {
        self.apply(pid, &redo::image_of(image))
    }

    /// Allocates a page (free list first, else past the end of the tablespace) and leaves it
    /// latched and unformatted: the caller applies an `Init` or an image next.
    pub(crate) fn alloc_page(&mut self) -> Result<PageId> {
        self.latch(HEADER_PAGE)?;
        let header = self.page(HEADER_PAGE);
        let head = get_u64(header, OFF_FREE_HEAD);
        if head != NO_PAGE {
            if head >= MAX_PAGE_COUNT {
                return Err(StorageError::Corruption(format!("free list head {head} out of range")));
            }
            self.latch(head)?;
            let page = self.page(head);
            if !matches!(page.page_type(), Ok(PageType::Free) | Ok(PageType::Overflow) | Ok(PageType::Undo)) {
                return Err(StorageError::Corruption(format!("free list page {head} is not free")));
            }
            let next = get_u64(page, OFF_NEXT);
            self.apply(HEADER_PAGE, &PageRecord::SetU64 { offset: OFF_FREE_HEAD as u16, value: next })?;
            return Ok(head);
        }
        let count = get_u64(header, OFF_PAGE_COUNT);
        if count >= MAX_PAGE_COUNT {
            return Err(StorageError::tablespace_full());
        }
        // Before any change: the first allocation makes room for the rest of the mtr's.
        let headroom = if self.extended == 0 { ALLOC_HEADROOM } else { 0 };
        self.shared().ensure_room(count + 1 + headroom, self.use_reserve)?;
        self.extended += 1;
        self.apply(HEADER_PAGE, &PageRecord::SetU64 { offset: OFF_PAGE_COUNT as u16, value: count + 1 })?;
        self.shared().space.note_page_count(count + 1);
        let guard = self.shared().latch_new_page(count)?;
        self.pages.push(HeldPage { guard, modified: false, private: false });
        Ok(count)
    }

    /// Returns one page (a node a merge emptied, latched by this mtr) to the free list.
    pub(crate) fn free_page(&mut self, pid: PageId) -> Result<()> {
        assert!(self.holds(pid), "page {pid} is freed without its latch");
        self.latch(HEADER_PAGE)?;
        let head = get_u64(self.page(HEADER_PAGE), OFF_FREE_HEAD);
        self.apply(pid, &PageRecord::Init { page_type: PageType::Free, level: 0, link: head })?;
        self.apply(HEADER_PAGE, &PageRecord::SetU64 { offset: OFF_FREE_HEAD as u16, value: pid })
    }

    /// Returns a whole linked chain `first..=last` (overflow pages linked through OFF_NEXT) to
    /// the free list at once: only the last page and page 0 change.
    pub(crate) fn free_chain(&mut self, first: PageId, last: PageId) -> Result<()> {
        self.latch(HEADER_PAGE)?;
        self.latch(last)?;
        let head = get_u64(self.page(HEADER_PAGE), OFF_FREE_HEAD);
        self.apply(last, &PageRecord::SetU64 { offset: OFF_NEXT as u16, value: head })?;
        self.apply(HEADER_PAGE, &PageRecord::SetU64 { offset: OFF_FREE_HEAD as u16, value: first })
    }
}

impl Drop for Mtr<'_> {
    fn drop(&mut self) {
        if self.log.is_empty() {
            return;
        }
        if self.store.shared().wal.get().is_some() {
            self.commit_inner();
        } else {
            tracing::error!("an mtr changed pages before PageStore::start; its changes are not logged");
        }
    }
}
