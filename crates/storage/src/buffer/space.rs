//! Disk space of the data file: preallocation ahead of need and the space reserve (docs §4.1,
//! §4.10).
//!
//! The data file is grown with fallocate in extents (like InnoDB's autoextend), when a
//! page is allocated past the allocated end. So a full disk shows as `TableFull` (1114) at
//! allocation, inside a statement that has changed nothing yet (`Mtr::alloc_page` runs before a
//! split changes any page), and never later, in the page cleaner's write-back of a page that has
//! no block on disk.
//!
//! The last `reserve_pages` allocated pages are a *reserve*: ordinary allocations leave them,
//! mini-transactions made with `Mtr::with_space_reserve` (rollback, recovery) may use them, so
//! that undoing work never fails for lack of space once the disk is full. Like InnoDB's
//! `fsp_reserve_free_extents`: two extents' worth plus 0.5% of the tablespace.
//!
//! The first allocation of an mtr also asks for `ALLOC_HEADROOM` pages, so that the further
//! allocations of the same split or overflow chunk (which come before any page changes) find
//! room: a split that failed halfway would leave its first pages allocated and unused.

use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

/// Fixed part of the space reserve: 2 MiB (two of InnoDB's 1 MiB extents).
const RESERVE_BASE_PAGES: u64 = 128;
/// Proportional part of the reserve: 1 / this of the tablespace (0.5%).
const RESERVE_DIVISOR: u64 = 200;
/// Pages the first allocation of an mtr makes room for: a split of every level of the deepest
/// tree (2 per level) plus an overflow chunk (at most 32 pages per mtr).
pub(crate) const ALLOC_HEADROOM: u64 = 64;
/// Smallest extent the data file grows by: 4 MiB.
pub(super) const MIN_EXTENT_PAGES: u64 = 256;
/// Largest extent: 64 MiB (innodb_autoextend_increment's default).
pub(super) const MAX_EXTENT_PAGES: u64 = 4096;
/// The extent is this fraction of the file (1/8), between the bounds above: small databases
/// stay small, large ones grow rarely.
pub(super) const EXTENT_DIVISOR: u64 = 8;

/// Pages of the space reserve for a tablespace of `pages` pages.
pub(crate) fn reserve_pages(pages: u64) -> u64 {
    RESERVE_BASE_PAGES + pages / RESERVE_DIVISOR
}

/// How far the data file is allocated on disk.
pub(crate) struct DataSpace {
    /// Pages `[0, allocated)` have blocks on disk (fallocate succeeded for them).
    pub(super) allocated: AtomicU64,
    /// The tablespace's page count as of the last allocation past its end (page 0 holds the
    /// truth; this copy spares `PageStore::ensure_free_space` a page read).
    pub(super) page_count: AtomicU64,
    /// Serialises growing the file.
    pub(super) grow: Mutex<()>,
}

impl DataSpace {
    /// `file_pages`: the data file's size at open (allocation is confirmed by
    /// `preallocate_at_open`).
    pub(crate) fn new(file_pages: u64) -> DataSpace {
        DataSpace { allocated: AtomicU64::new(file_pages), page_count: AtomicU64::new(0), grow: Mutex::new(()) }
    }

    pub(crate) fn allocated(&self) -> u64 {
        self.allocated.load(Ordering::Acquire)
    }

    pub(crate) fn page_count(&self) -> u64 {
        self.page_count.load(Ordering::Relaxed)
    }

    /// An allocation made the tablespace `count` pages long.
    pub(crate) fn note_page_count(&self, count: u64) {
        self.page_count.fetch_max(count, Ordering::Relaxed);
    }
}
