//! The page cleaner thread and checkpoints (docs §4.2, §4.8).
//!
//! The cleaner keeps `free_reserve` of the frames free ahead of demand (MDEV-30628: a user
//! thread should never have to evict), and writes a checkpoint every `checkpoint_interval`,
//! after writing back (oldest first) the pages dirty since before the previous one, or at once,
//! flushing oldest first, when the log since the last checkpoint grows past
//! `max_checkpoint_age`. Nothing in the foreground waits for it.
//!
//! Free frames are produced by a thread of their own (`evictor`), which never does I/O: it evicts
//! clean pages. Keeping its victims clean is the cleaner's job: it writes back, ahead of time,
//! the dirty unreferenced pages in the stretch of frames the CLOCK hand sweeps next
//! (`flush_ahead`), at every tick, at once when the evictor finds too few clean pages, and
//! between the batches of a checkpoint's write-back. The dirty pages the evictor's hand passed
//! over are handed to the cleaner (`Shared::victims`): it writes them back first and frees each
//! one nobody touched meanwhile, so they become free frames as soon as they are clean rather than
//! a whole CLOCK turn later. So an fsync that stalls the cleaner does not stall the supply of
//! free frames while clean pages remain.
//!
//! The log's async point (`max_checkpoint_age`) makes the cleaner flush oldest-first at once;
//! each checkpoint moves the log's sync point (`Wal::set_checkpoint_lsn`), where row writes
//! wait. When the log writer finds no disk space for its next segment, the cleaner checkpoints
//! at once (at most every `SPACE_CHECKPOINT_INTERVAL`) so that an old segment can be recycled,
//! and skips what would wait for the log (pages not yet durable, the checkpoint hooks' records)
//! while the writer is stalled. After fail-stop it writes nothing more (flush.rs).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::doublewrite::BATCH_PAGES;
use super::shared::Shared;
use crate::error::{Result, StorageError};
use crate::page::FORMAT_VERSION;
use crate::wal::control::ControlData;
use crate::wal::Lsn;

/// The cleaner wakes at least this often to check the reserve, the checkpoint age and the clock.
const CLEANER_TICK: Duration = Duration::from_millis(50);
/// After an I/O error (not a simulated crash) the cleaner retries after this pause.
const ERROR_PAUSE: Duration = Duration::from_secs(1);
/// A failing write-back that is retried (no space) is reported at most this often.
const ERROR_REPORT_INTERVAL: Duration = Duration::from_secs(10);
/// While the log writer lacks space for a segment, checkpoints come at least this often.
const SPACE_CHECKPOINT_INTERVAL: Duration = Duration::from_millis(200);
/// `flush_ahead` looks at the frames the CLOCK hand reaches next, this many reserves' worth: the
/// pages the next refills will evict.
const FLUSH_AHEAD_RESERVES: usize = 4;
/// Dirty pages one `flush_ahead` writes at most (then the cleaner looks at the rest of its work).
const FLUSH_AHEAD_MAX_BATCHES: usize = 8;

pub(crate) fn run(shared: Arc<Shared>) {
    let mut last_checkpoint = Instant::now();
    // The log position at the previous checkpoint tick: pages dirty since before it are written
    // back at the next tick, so the checkpoint trails the log by at most two intervals even
    // when hot pages never leave the pool.
    let mut previous_tick_lsn: Lsn = 0;
    let mut reported_at: Option<Instant> = None;
    while !shared.cleaner.stopping() {
        shared.cleaner.wait(CLEANER_TICK);
        if shared.cleaner.stopping() {
            break;
        }
        if shared.wal.get().is_some_and(|w| w.halted().is_some()) {
            continue; // fail-stop: nothing more is written back (the halt was reported)
        }
        let result = (|| -> Result<()> {
            shared.flush_ahead()?;
            let Some(wal) = shared.wal.get() else { return Ok(()) };
            let too_old = shared.checkpoint_age() > shared.config.max_checkpoint_age;
            let log_needs_space = wal.space_short() && last_checkpoint.elapsed() >= SPACE_CHECKPOINT_INTERVAL;
            if too_old || log_needs_space || last_checkpoint.elapsed() >= shared.config.checkpoint_interval {
                let ready = wal.ready_lsn();
                let mut target = previous_tick_lsn;
                if too_old {
                    // From the reserved end: `ready` may trail it by a second in flush mode 0.
                    target = target.max(wal.reserved_lsn().saturating_sub(shared.config.max_checkpoint_age / 2));
                }
                shared.flush_dirty_below(target)?;
                shared.checkpoint(false)?;
                previous_tick_lsn = ready;
                last_checkpoint = Instant::now();
            }
            Ok(())
        })();
        if let Err(e) = result {
            if shared.io.is_crashed() || shared.cleaner.stopping() {
                tracing::debug!("page cleaner stops after I/O failure: {e}");
                return;
            }
            if shared.wal.get().is_some_and(|w| w.halted().is_some() || w.is_stalled()) {
                // Fail-stop was reported by the halt; a stalled log is reported by its writer.
                continue;
            }
            if reported_at.is_none_or(|at| at.elapsed() >= ERROR_REPORT_INTERVAL) {
                reported_at = Some(Instant::now());
                tracing::warn!("page cleaner: {e}; retrying");
            }
            std::thread::sleep(ERROR_PAUSE);
        }
    }
}

impl Shared {
    fn checkpoint_age(&self) -> u64 {
        self.wal.get().map_or(0, |wal| wal.checkpoint_age())
    }

    /// Writes back, ahead of time, the dirty and unreferenced pages among the frames the CLOCK
    /// hand reaches next: those are the evictor's next victims, and written now they are clean
    /// (evictable without I/O) when the hand gets there. Referenced pages get a second chance
    /// from the hand and are left alone.
    pub(crate) fn flush_ahead(&self) -> Result<()> {
        self.flush_urgent.store(false, Ordering::Relaxed);
        self.flush_victims()?;
        let n = self.pool.frames.len();
        let window = (FLUSH_AHEAD_RESERVES * self.reserve_frames).clamp(BATCH_PAGES.min(n), n);
        let start = self.pool.clock_position() as usize;
        let mut batch: Vec<u32> = Vec::with_capacity(BATCH_PAGES);
        let mut batches = 0;
        for i in 0..window {
            let idx = ((start + i) % n) as u32;
            let frame = self.pool.frame(idx);
            if frame.rec_lsn.load(Ordering::Relaxed) == 0
                || frame.referenced.load(Ordering::Relaxed)
                || frame.io_fixed.load(Ordering::Relaxed)
            {
                continue;
            }
            batch.push(idx);
            if batch.len() == BATCH_PAGES {
                self.flush_frames(&batch)?;
                self.evictor.wake();
                batch.clear();
                batches += 1;
                if batches == FLUSH_AHEAD_MAX_BATCHES {
                    return Ok(());
                }
            }
        }
        if !batch.is_empty() {
            self.flush_frames(&batch)?;
            self.evictor.wake();
        }
        Ok(())
    }

    /// Writes back the dirty victims the evictor's sweep passed over, a batch at a time, and
    /// frees each that nobody touched meanwhile (clean, unreferenced, unlatched) while the free
    /// list is below the evictor's target: the frames become free as soon as they are clean, not
    /// a whole CLOCK turn later. A touched page stays (it is in use again).
    fn flush_victims(&self) -> Result<()> {
        let victims = std::mem::take(&mut *self.victims.lock());
        for batch in victims.chunks(BATCH_PAGES) {
            self.flush_frames(batch)?;
            for &idx in batch {
                if self.pool.free_len() >= self.free_target() {
                    break;
                }
                if !self.pool.frame(idx).referenced.load(Ordering::Relaxed) && self.try_evict(idx) {
                    self.pool.push_free(idx);
                }
            }
            self.evictor.wake();
        }
        Ok(())
    }

    /// Dirty frames with their oldest-change LSN, oldest first.
    fn dirty_frames_by_age(&self, below: Lsn) -> Vec<(Lsn, u32)> {
        let mut dirty: Vec<(Lsn, u32)> = (0..self.pool.frames.len() as u32)
            .filter_map(|idx| {
                let rec = self.pool.frame(idx).rec_lsn.load(Ordering::SeqCst);
                (rec != 0 && rec < below).then_some((rec, idx))
            })
            .collect();
        dirty.sort_unstable();
        dirty
    }

    /// Writes back, oldest first, the pages dirtied before `below` (skipping latched ones).
    /// Returns how many were written.
    fn flush_dirty_below(&self, below: Lsn) -> Result<usize> {
        let mut written = 0;
        for batch in self.dirty_frames_by_age(below).chunks(BATCH_PAGES) {
            let idxs: Vec<u32> = batch.iter().map(|&(_, idx)| idx).collect();
            written += self.flush_frames(&idxs)?;
            // A checkpoint's write-back can take many batches: the evictor's victims come first.
            if self.flush_urgent.load(Ordering::Relaxed) {
                self.flush_ahead()?;
            }
        }
        Ok(written)
    }

    /// Writes back every page dirtied before `below`, waiting for pages latched by mtrs and for
    /// writes in flight in other threads.
    fn flush_all_below(&self, below: Lsn) -> Result<()> {
        let mut backoff = super::latch::Backoff::new();
        loop {
            if let Some(wal) = self.wal.get() {
                // Pages newer than the durable log cannot be written while the writer waits for
                // space: waiting here would wait for the operator.
                if wal.is_stalled() {
                    return Err(super::flush::log_waits_for_space());
                }
            }
            let written = self.flush_dirty_below(below)?;
            let pending = self.pool.frames.iter().any(|f| {
                let lsn = f.oldest_unwritten_lsn();
                lsn != 0 && lsn < below
            });
            if !pending {
                return Ok(());
            }
            if written == 0 {
                backoff.snooze();
            }
        }
    }

    /// Writes a checkpoint (docs §4.8); with `flush_all`, first writes back every page dirtied
    /// before it starts. Returns the checkpoint LSN.
    pub(crate) fn checkpoint(&self, flush_all: bool) -> Result<Lsn> {
        if self.config.read_only {
            return Ok(self.checkpoint_lsn.load(Ordering::Acquire));
        }
        let (Some(wal), Some(hooks)) = (self.wal.get(), self.hooks.get()) else {
            return Err(StorageError::Io(std::io::Error::other("checkpoint before PageStore::start")));
        };
        // After fail-stop the checkpoint stays where it was: recovery starts there.
        wal.check_writable()?;
        let _one_at_a_time = self.checkpoint_mutex.lock();
        // The log up to its reserved end, durable: this also brings `ready_lsn` up to date (in
        // flush mode 0 the writer publishes it only once a second), so that the hooks' hold LSN
        // and the checkpoint can reach the log's end.
        wal.flush_to_unless_stalled(wal.reserved_lsn())?;
        // The hooks log records and wait for them to be durable: not while the writer waits for
        // space (this checkpoint is what frees some). The scan start then stays at the last
        // hooks' position (`hold_lsn`), which is all they need, and the control file keeps the
        // last marker.
        let marker_end = if wal.is_stalled() { 0 } else { hooks.before_checkpoint() };
        let ready = wal.ready_lsn();
        if flush_all {
            self.flush_all_below(ready)?;
        }
        let oldest_dirty =
            self.pool.frames.iter().map(|f| f.oldest_unwritten_lsn()).filter(|&lsn| lsn != 0).min().unwrap_or(Lsn::MAX);
        // `ready` was read before the scan: every mtr that ends below it has stamped its pages
        // (rec_lsn set), so the scan sees them; mtrs starting at or after it are not covered
        // anyway. Everything below the checkpoint must be in the log on disk: recovery starts
        // there and must find every commit record before it. While the writer waits for space,
        // what is durable is the limit (an entry boundary, as every position the writer
        // publishes).
        let checkpoint_lsn = wal.flush_to_unless_stalled(ready.min(oldest_dirty))?;
        let scan_start_lsn = checkpoint_lsn.min(hooks.scan_start_floor());
        let next_trx_id = hooks.next_trx_id();
        let mut control = self.control.lock();
        // The marker's end LSN goes into the control file: recovery refuses a log that does not
        // reach it (an emptied or truncated log would otherwise look like one that simply had
        // nothing after the checkpoint).
        let extra = if marker_end > 0 { marker_end.to_le_bytes().to_vec() } else { control.last.extra.clone() };
        let data = ControlData { format: FORMAT_VERSION, checkpoint_lsn, scan_start_lsn, next_trx_id, extra };
        if data != control.last {
            debug_assert!(checkpoint_lsn >= control.last.checkpoint_lsn, "checkpoint LSN went backwards");
            control.file.write(&data).map_err(|e| self.control_write_failed(e))?;
            control.last = data;
            self.checkpoints.fetch_add(1, Ordering::Relaxed);
        }
        self.checkpoint_lsn.store(checkpoint_lsn, Ordering::Release);
        drop(control);
        wal.set_checkpoint_lsn(checkpoint_lsn);
        wal.truncate_before(scan_start_lsn)?;
        Ok(checkpoint_lsn)
    }

    /// A failed control-file write: lack of space on the write is retried at the next checkpoint
    /// (the whole slot is written again, and the other slot still holds the previous
    /// checkpoint); any other error halts, as for the data file (flush.rs).
    fn control_write_failed(&self, e: StorageError) -> StorageError {
        match e {
            StorageError::Io(io) => {
                // ControlFile::write reports which step failed only through the error, so a
                // lack of space can only have come from the write (a sync reports EIO).
                self.write_back_failed(io, "control file write", false)
            }
            other => other,
        }
    }
}
