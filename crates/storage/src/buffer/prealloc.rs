//! Growing the data file: preallocation at open and in extents ahead of allocation, and the
//! space reserve's check (the policy and its numbers are in `space`, below `Shared`).

use std::sync::atomic::Ordering;

use super::doublewrite::BATCH_PAGES;
use super::shared::Shared;
use super::space::{reserve_pages, EXTENT_DIVISOR, MAX_EXTENT_PAGES, MIN_EXTENT_PAGES};
use crate::error::{Result, StorageError};
use crate::io::is_no_space;
use crate::page::{self, get_u64, HEADER_PAGE, PAGE_SIZE};

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
