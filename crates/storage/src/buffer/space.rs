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

use super::flush::BATCH_PAGES;
use super::{Shared, HEADER_PAGE, PAGE_SIZE};
use crate::error::{Result, StorageError};
use crate::io::is_no_space;
use crate::page::{self, get_u64};

/// Fixed part of the space reserve: 2 MiB (two of InnoDB's 1 MiB extents).
const RESERVE_BASE_PAGES: u64 = 128;
/// Proportional part of the reserve: 1 / this of the tablespace (0.5%).
const RESERVE_DIVISOR: u64 = 200;
/// Pages the first allocation of an mtr makes room for: a split of every level of the deepest
/// tree (2 per level) plus an overflow chunk (at most 32 pages per mtr).
pub(crate) const ALLOC_HEADROOM: u64 = 64;
/// Smallest extent the data file grows by: 4 MiB.
const MIN_EXTENT_PAGES: u64 = 256;
/// Largest extent: 64 MiB (innodb_autoextend_increment's default).
const MAX_EXTENT_PAGES: u64 = 4096;
/// The extent is this fraction of the file (1/8), between the bounds above: small databases
/// stay small, large ones grow rarely.
const EXTENT_DIVISOR: u64 = 8;

/// Pages of the space reserve for a tablespace of `pages` pages.
pub(crate) fn reserve_pages(pages: u64) -> u64 {
    RESERVE_BASE_PAGES + pages / RESERVE_DIVISOR
}

/// How far the data file is allocated on disk.
pub(crate) struct DataSpace {
    /// Pages `[0, allocated)` have blocks on disk (fallocate succeeded for them).
    allocated: AtomicU64,
    /// The tablespace's page count as of the last allocation past its end (page 0 holds the
    /// truth; this copy spares `PageStore::ensure_free_space` a page read).
    page_count: AtomicU64,
    /// Serialises growing the file.
    grow: Mutex<()>,
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

impl Shared {
    /// At open: makes sure the pages the tablespace has, its reserve and the doublewrite area
    /// have blocks on disk (files of older versions were sparse). Best effort on a full disk:
    /// allocation then fails cleanly later, and the log says why now.
    pub(crate) fn preallocate_at_open(&self) -> Result<()> {
        let mut p = vec![0u8; PAGE_SIZE];
        self.read_copy(HEADER_PAGE, &mut p)?;
        let count = get_u64(&p, page::OFF_PAGE_COUNT);
        self.space.note_page_count(count);
        let doublewrite = self.writer.lock().doublewrite_file();
        // Synced: the sizes are metadata a later fdatasync need not persist.
        let results = [
            self.data
                .allocate(0, count * PAGE_SIZE as u64)
                .and_then(|()| self.data.sync_all())
                .map(|()| self.space.allocated.fetch_max(count, Ordering::AcqRel)),
            doublewrite.allocate(0, (BATCH_PAGES * PAGE_SIZE) as u64).and_then(|()| doublewrite.sync_all()).map(|()| 0),
        ];
        for result in results {
            match result {
                Ok(_) => {}
                Err(e) if is_no_space(&e) => tracing::warn!("no disk space to preallocate the data files at open: {e}"),
                Err(e) => return Err(e.into()),
            }
        }
        match self.ensure_room(count, false) {
            Err(StorageError::TableFull { .. }) => {
                tracing::warn!("no disk space for the data file's reserve at open: writes needing new pages get 1114");
                Ok(())
            }
            other => other,
        }
    }

    /// Makes sure pages below `count` plus the headroom can be allocated: below the allocated
    /// end minus the reserve, or with `use_reserve` below the allocated end. Grows the file when
    /// they cannot; `TableFull` if the disk has no room for them.
    pub(crate) fn ensure_room(&self, count: u64, use_reserve: bool) -> Result<()> {
        let reserve = if use_reserve { 0 } else { reserve_pages(count) };
        let need = count.saturating_add(reserve);
        if need <= self.space.allocated() {
            return Ok(());
        }
        self.grow_data_file(need)
    }

    /// Grows the data file so that pages below `need` have blocks: by an extent if the disk has
    /// room for it, else by exactly what is needed.
    fn grow_data_file(&self, need: u64) -> Result<()> {
        let _one_at_a_time = self.space.grow.lock();
        let allocated = self.space.allocated();
        if need <= allocated {
            return Ok(());
        }
        let extent = (allocated / EXTENT_DIVISOR).clamp(MIN_EXTENT_PAGES, MAX_EXTENT_PAGES);
        let page = PAGE_SIZE as u64;
        for target in [need.max(allocated + extent), need] {
            match self.data.allocate(allocated * page, (target - allocated) * page) {
                Ok(()) => {
                    // The new size must be durable before the cleaner writes (and fdatasyncs)
                    // pages past the old end: fdatasync need not persist a size that fallocate
                    // set, and a checkpoint must never pass pages a crash could cut off.
                    let synced = self.data.sync_all();
                    synced.map_err(|e| self.write_back_failed(e, "data file fsync after growing it", true))?;
                    self.space.allocated.store(target, Ordering::Release);
                    return Ok(());
                }
                Err(e) if is_no_space(&e) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(StorageError::tablespace_full())
    }
}
