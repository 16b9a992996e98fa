//! Write-back of dirty pages through the doublewrite area (docs §4.2), and its repair at open.
//!
//! A batch: copy each page under a brief exclusive latch (moving its `rec_lsn` to
//! `flushing_lsn`, so checkpoints keep counting it until the write is durable), flush the log up
//! to the batch's highest page LSN (the WAL rule), seal the copies with their checksums, write
//! them all to `doublewrite.sdb` and sync, then to their home locations and sync. A crash can
//! therefore tear only home pages whose intact copy is in the doublewrite file, and `repair`
//! restores them at the next open. One batch is in flight at a time (the writer mutex): the
//! doublewrite area holds exactly one batch.
//!
//! Errors (docs §4.10). A failed batch leaves its pages dirty (their `rec_lsn` restored), so no
//! checkpoint passes them. Lack of space on a write is retried by the next batch (the files are
//! preallocated, so it should not happen; the pages are rewritten whole). Any other write error,
//! and every failed fsync, is fail-stop (`Wal::halt`, `Halt::DataFile`): the device is failing,
//! and after a failed fsync the kernel may have dropped pages that a later fsync would not
//! report; nothing more is written back or checkpointed, and recovery starts from the last
//! checkpoint. While the log writer waits for disk space, only pages whose changes are already
//! durable are written (the WAL rule without waiting), so that a checkpoint can still free a
//! log segment.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use smallvec::SmallVec;

use super::frame::FREE_FRAME;
use super::page_table::MAX_PAGE_COUNT;
use super::stats::bump;
use super::{PageId, Shared, PAGE_SIZE};
use crate::error::{Result, StorageError};
use crate::io::{is_no_space, IoFile};
use crate::page::{self, get_u64, OFF_PAGE_ID, OFF_PAGE_LSN};
use crate::wal::Halt;

/// Pages per write-back batch (and the size of the doublewrite area): 2 MiB. A batch costs
/// three syncs (log, doublewrite, home) whatever its size, so the batch size bounds how fast
/// the cleaner can turn dirty pages into evictable ones under sustained writes.
pub(crate) const BATCH_PAGES: usize = 128;

/// The doublewrite file and the batch buffer; behind `Shared::writer`.
pub(crate) struct PageWriter {
    doublewrite: Arc<IoFile>,
    buf: Vec<u8>,
}

impl PageWriter {
    pub(crate) fn new(doublewrite: Arc<IoFile>) -> PageWriter {
        PageWriter { doublewrite, buf: vec![0u8; BATCH_PAGES * PAGE_SIZE] }
    }

    pub(crate) fn doublewrite_file(&self) -> Arc<IoFile> {
        Arc::clone(&self.doublewrite)
    }

    fn slot(&mut self, i: usize) -> &mut [u8] {
        &mut self.buf[i * PAGE_SIZE..(i + 1) * PAGE_SIZE]
    }
}

impl Shared {
    /// Writes back the dirty pages among `frames` (at most BATCH_PAGES of them), skipping frames
    /// that are latched, clean or already being written. Returns the number written.
    ///
    /// Latches are only tried, never waited for, while the writer mutex is held: a thread that
    /// holds page latches may itself be waiting for this mutex (evicting by itself).
    pub(crate) fn flush_frames(&self, frames: &[u32]) -> Result<usize> {
        let mut durable_limit = u64::MAX;
        if let Some(wal) = self.wal.get() {
            // After fail-stop nothing more is written back: the checkpoint stays where it was.
            wal.check_writable()?;
            if wal.is_stalled() {
                durable_limit = wal.flushed_lsn();
            }
        }
        let mut writer = self.writer.lock();
        let writer = &mut *writer;
        let mut taken: SmallVec<[(u32, PageId, u64); BATCH_PAGES]> = SmallVec::new();
        let mut max_lsn = 0;
        for &idx in frames.iter().take(BATCH_PAGES) {
            let frame = self.pool.frame(idx);
            if !frame.latch.try_lock() {
                continue;
            }
            let pid = frame.page_id.load(Ordering::Relaxed);
            let rec_lsn = frame.rec_lsn.load(Ordering::SeqCst);
            // SAFETY: we hold the frame's exclusive latch.
            let page_lsn = get_u64(unsafe { self.pool.memory.page(idx) }, OFF_PAGE_LSN);
            if pid == FREE_FRAME || rec_lsn == 0 || frame.io_fixed.load(Ordering::Acquire) || page_lsn > durable_limit {
                frame.latch.unlock();
                continue;
            }
            let slot = writer.slot(taken.len());
            // SAFETY: we hold the frame's exclusive latch.
            slot.copy_from_slice(unsafe { self.pool.memory.page(idx) });
            // flushing_lsn first: a checkpoint scan that sees rec_lsn == 0 then sees it.
            frame.flushing_lsn.store(rec_lsn, Ordering::SeqCst);
            frame.rec_lsn.store(0, Ordering::SeqCst);
            frame.io_fixed.store(true, Ordering::Release);
            frame.latch.unlock();
            assert_eq!(get_u64(slot, OFF_PAGE_ID), pid, "frame holds the image of another page");
            max_lsn = max_lsn.max(get_u64(slot, OFF_PAGE_LSN));
            taken.push((idx, pid, rec_lsn));
        }
        if taken.is_empty() {
            return Ok(0);
        }
        let pids: SmallVec<[PageId; BATCH_PAGES]> = taken.iter().map(|t| t.1).collect();
        let result = self.write_batch(writer, &pids, max_lsn);
        for &(idx, _, rec_lsn) in &taken {
            let frame = self.pool.frame(idx);
            if result.is_err() {
                // Not written: the page is dirty again since rec_lsn (or earlier).
                let _ = frame.rec_lsn.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |cur| {
                    Some(if cur == 0 { rec_lsn } else { cur.min(rec_lsn) })
                });
            }
            frame.flushing_lsn.store(0, Ordering::SeqCst);
            frame.io_fixed.store(false, Ordering::Release);
        }
        result.map(|()| taken.len())
    }

    /// Writes the page copies in `writer.buf[..pids.len()]` (already holding their images,
    /// unsealed) to the doublewrite area and then home. Before `start` (recovery, formatting) the
    /// log is durable already and there is none to flush.
    pub(crate) fn write_batch(&self, writer: &mut PageWriter, pids: &[PageId], max_lsn: u64) -> Result<()> {
        if self.config.read_only {
            // Salvage mode writes nothing: pages changed by redo stay in the pool.
            return Err(StorageError::WritesStopped);
        }
        assert!(pids.len() <= BATCH_PAGES);
        if let Some(wal) = self.wal.get() {
            if wal.flush_to_unless_stalled(max_lsn)? < max_lsn {
                return Err(log_waits_for_space());
            }
        }
        for i in 0..pids.len() {
            page::seal(writer.slot(i));
        }
        let n = pids.len();
        let doublewrite = &writer.doublewrite;
        let copies = &writer.buf[..n * PAGE_SIZE];
        doublewrite.write_at(copies, 0).map_err(|e| self.write_back_failed(e, "doublewrite write", false))?;
        doublewrite.sync_data().map_err(|e| self.write_back_failed(e, "doublewrite fsync", true))?;
        for (i, &pid) in pids.iter().enumerate() {
            self.data
                .write_page(&writer.buf[i * PAGE_SIZE..(i + 1) * PAGE_SIZE], pid * PAGE_SIZE as u64)
                .map_err(|e| self.write_back_failed(e, &format!("data file write of page {pid}"), false))?;
        }
        if self.data.tears_pages() {
            // Test mode: keep the torn home pages unsynced for a while (see io.rs).
            std::thread::sleep(crate::io::TORN_SYNC_DELAY);
        }
        if self.crash_before_home_sync.swap(false, Ordering::SeqCst) {
            // Test hook: the power fails between the home writes and their sync.
            self.io.crash();
            return Err(std::io::Error::other("simulated crash before the home pages were synced").into());
        }
        self.data.sync_data().map_err(|e| self.write_back_failed(e, "data file fsync", true))?;
        self.stats.with_local(|c| bump(&c.page_writes, n as u64));
        Ok(())
    }

    /// What a write-back error means (see the module comment): lack of space on a write is
    /// retried later; anything else halts the engine. Returns the error for the caller.
    pub(crate) fn write_back_failed(&self, e: std::io::Error, what: &str, sync: bool) -> StorageError {
        let retryable = !sync && is_no_space(&e);
        if !retryable && !self.io.is_crashed() {
            if let Some(wal) = self.wal.get() {
                wal.halt(Halt::DataFile, &e, &format!("{what} failed"));
            }
        }
        e.into()
    }

    /// Writes page images that are not in the pool (formatting a new tablespace) through the
    /// same doublewrite path.
    pub(crate) fn write_images(&self, images: &[(PageId, Vec<u8>)]) -> Result<()> {
        let mut writer = self.writer.lock();
        for chunk in images.chunks(BATCH_PAGES) {
            for (i, (_, img)) in chunk.iter().enumerate() {
                writer.slot(i).copy_from_slice(img);
            }
            let pids: Vec<PageId> = chunk.iter().map(|(p, _)| *p).collect();
            self.write_batch(&mut writer, &pids, 0)?;
        }
        Ok(())
    }
}

/// The error of a write-back skipped because the log writer waits for disk space (not a failure:
/// the pages stay dirty and are written once the log moves again).
pub(crate) fn log_waits_for_space() -> StorageError {
    StorageError::Io(std::io::Error::other("the log is waiting for disk space"))
}

/// Restores home pages that fail verification from their doublewrite copy (a torn write of the
/// last batch). Returns the number of pages repaired.
pub(crate) fn repair_from_doublewrite(doublewrite: &IoFile, data: &IoFile) -> Result<usize> {
    let repairs = doublewrite_repairs(doublewrite, data)?;
    for (pid, copy) in &repairs {
        tracing::warn!(page = pid, "restoring a torn page from the doublewrite area");
        data.write_at(copy, pid * PAGE_SIZE as u64)?;
    }
    if !repairs.is_empty() {
        data.sync_data()?;
    }
    Ok(repairs.len())
}

/// The home pages that fail verification and have an intact copy in the doublewrite area (read
/// only: salvage mode serves them from memory instead of writing them home).
pub(crate) fn doublewrite_repairs(doublewrite: &IoFile, data: &IoFile) -> Result<Vec<(PageId, Vec<u8>)>> {
    let slots = (doublewrite.len()? / PAGE_SIZE as u64).min(BATCH_PAGES as u64);
    let mut copy = vec![0u8; PAGE_SIZE];
    let mut home = vec![0u8; PAGE_SIZE];
    let mut repairs: Vec<(PageId, Vec<u8>)> = Vec::new();
    for slot in 0..slots {
        doublewrite.read_at(&mut copy, slot * PAGE_SIZE as u64)?;
        if !page::has_valid_checksum(&copy) {
            continue; // never written, or itself torn (then its home write never started)
        }
        let pid = get_u64(&copy, OFF_PAGE_ID);
        if pid >= MAX_PAGE_COUNT {
            continue;
        }
        data.read_at(&mut home, pid * PAGE_SIZE as u64)?;
        let home_intact = page::has_valid_checksum(&home) && get_u64(&home, OFF_PAGE_ID) == pid;
        if home_intact {
            continue; // possibly older than the copy: redo brings it forward
        }
        // Slots past the last batch's length still hold copies from earlier, longer batches: of
        // two copies of one page the newer (higher page LSN) is the one whose home write tore.
        // Restoring the older one could take the page back before the checkpoint, where redo
        // cannot bring it forward.
        let lsn = get_u64(&copy, OFF_PAGE_LSN);
        match repairs.iter_mut().find(|(p, _)| *p == pid) {
            Some((_, kept)) if get_u64(kept, OFF_PAGE_LSN) >= lsn => {}
            Some((_, kept)) => kept.copy_from_slice(&copy),
            None => repairs.push((pid, copy.clone())),
        }
    }
    Ok(repairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Io;
    use crate::page::{put_u64, seal};

    fn page_image(pid: PageId, lsn: u64) -> Vec<u8> {
        let mut p = vec![0u8; PAGE_SIZE];
        put_u64(&mut p, OFF_PAGE_ID, pid);
        put_u64(&mut p, OFF_PAGE_LSN, lsn);
        p[PAGE_SIZE - 1] = lsn as u8;
        seal(&mut p);
        p
    }

    /// A short batch leaves a longer earlier batch's copies in the later slots: when a page's
    /// home write tore and both batches hold a copy of it, the newer copy is the one restored.
    #[test]
    fn a_torn_page_gets_the_newest_of_its_doublewrite_copies() {
        let dir = tempfile::tempdir().unwrap();
        let io = Io::new(Default::default());
        let dw = io.open(&dir.path().join("dw"), true).unwrap();
        let data = io.open(&dir.path().join("data"), true).unwrap();
        // Slot 0: the last batch's copy (LSN 900); slot 2: a stale copy from an earlier batch.
        for (slot, lsn) in [(0u64, 900u64), (1, 0), (2, 400)] {
            let image = if lsn == 0 { page_image(9, 50) } else { page_image(7, lsn) };
            dw.write_at(&image, slot * PAGE_SIZE as u64).unwrap();
        }
        data.write_at(&page_image(9, 50), 9 * PAGE_SIZE as u64).unwrap();
        let mut torn = page_image(7, 900);
        torn[100] ^= 0xff;
        data.write_at(&torn, 7 * PAGE_SIZE as u64).unwrap();
        for order in [[0u64, 2], [2, 0]] {
            // Whichever slot comes first.
            dw.write_at(&page_image(7, 900), order[0] * PAGE_SIZE as u64).unwrap();
            dw.write_at(&page_image(7, 400), order[1] * PAGE_SIZE as u64).unwrap();
            let repairs = doublewrite_repairs(&dw, &data).unwrap();
            assert_eq!(repairs.len(), 1);
            assert_eq!((repairs[0].0, get_u64(&repairs[0].1, OFF_PAGE_LSN)), (7, 900));
        }
    }
}
