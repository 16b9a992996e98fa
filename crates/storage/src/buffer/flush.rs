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

use smallvec::SmallVec;

use super::doublewrite::{PageWriter, BATCH_PAGES};
use super::frame::FREE_FRAME;
use super::shared::Shared;
use super::stats::bump;
use crate::error::{Result, StorageError};
use crate::io::is_no_space;
use crate::page::{self, get_u64, OFF_PAGE_ID, OFF_PAGE_LSN};
use crate::page::{PageId, PAGE_SIZE};
use crate::wal::Halt;

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
