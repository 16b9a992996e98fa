//! Page residency: finding a page's frame, loading it on a miss, latching it, and evicting pages
//! to free frames (docs §4.2).
//!
//! A frame's page can change only under its exclusive latch, so an optimistic reader that checks
//! `frame.page_id` after `read_begin` and validates the version afterwards knows the frame held
//! its page throughout. Eviction clears the page table entry and the frame's page id under the
//! latch; the version bump makes every optimistic reader of the old page restart.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use smallvec::SmallVec;

use super::frame::FREE_FRAME;
use super::latch::Backoff;
use super::page_table::{EMPTY, LOADING, MAX_PAGE_COUNT};
use super::pool::{OptPage, Sweep, XGuard};
use super::shared::Shared;
use super::stats::bump;
use crate::error::{Result, StorageError};
use crate::page::{self, PageBytes, PageId, PAGE_SIZE};

/// How long a thread keeps trying to get a frame before reporting the pool as exhausted (every
/// frame latched or being written: the pool is far too small for the concurrency).
const FREE_FRAME_TIMEOUT: Duration = Duration::from_secs(30);
/// Dirty pages a user thread writes back at once when it has to evict by itself.
const SELF_FLUSH_PAGES: usize = 8;
/// Clean pages a user thread evicts at once when it has to evict by itself: it keeps one and
/// frees the others, so the threads behind it find free frames again.
const SELF_EVICT_BATCH: usize = 32;
/// A consumer that leaves the free list below this fraction of the reserve (1/ASSIST_DIVISOR)
/// tops it up itself with clean pages: the evictor thread was woken at the reserve mark but has
/// not run yet (on a loaded machine a woken thread can wait many milliseconds for a CPU, while
/// misses consume the reserve in a few).
const ASSIST_DIVISOR: usize = 4;
/// Frames one assist looks at under the CLOCK hand, and clean pages it frees at most: bounded
/// CPU work (no I/O, latches only tried), small next to the page read that follows.
const ASSIST_SWEEP_FRAMES: usize = 64;
const ASSIST_EVICT_BATCH: usize = 16;

/// What a frame for a page that is not resident starts with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fill {
    /// Read and verify the page from the data file.
    Read,
    /// Zeros: a page just allocated past the end of the tablespace (never written).
    Zero,
}

fn check_pid(pid: PageId) -> Result<()> {
    if pid >= MAX_PAGE_COUNT {
        return Err(StorageError::Corruption(format!("page id {pid} beyond the largest tablespace")));
    }
    Ok(())
}

impl Shared {
    /// Starts an optimistic read of `pid`, loading it on a miss. Waits while the page is latched
    /// exclusively.
    pub(crate) fn read_page(&self, pid: PageId) -> Result<OptPage<'_>> {
        check_pid(pid)?;
        let pool = &self.pool;
        loop {
            let idx = self.resident_frame(pid, Fill::Read)?;
            let frame = pool.frame(idx);
            let version = frame.latch.read_begin();
            if frame.page_id.load(Ordering::Acquire) != pid {
                continue; // evicted meanwhile
            }
            frame.touch();
            return Ok(OptPage { pool, idx, version, pid });
        }
    }

    /// Latches `pid` exclusively (waiting), loading it on a miss.
    pub(crate) fn latch_page(&self, pid: PageId) -> Result<XGuard<'_>> {
        self.latch(pid, Fill::Read)
    }

    /// Latches a page just allocated past the end of the tablespace: nothing to read, the frame
    /// starts zeroed.
    pub(crate) fn latch_new_page(&self, pid: PageId) -> Result<XGuard<'_>> {
        let g = self.latch(pid, Fill::Zero)?;
        if g.page().iter().any(|&b| b != 0) {
            return Err(StorageError::Corruption(format!("page {pid} past the tablespace end is already in use")));
        }
        Ok(g)
    }

    fn latch(&self, pid: PageId, fill: Fill) -> Result<XGuard<'_>> {
        check_pid(pid)?;
        let pool = &self.pool;
        loop {
            let idx = self.resident_frame(pid, fill)?;
            let frame = pool.frame(idx);
            frame.latch.lock();
            if frame.page_id.load(Ordering::Acquire) != pid {
                frame.latch.unlock();
                continue;
            }
            frame.touch();
            return Ok(XGuard { pool, idx, pid });
        }
    }

    /// Upgrades an optimistic read to an exclusive latch if the page is unchanged since.
    pub(crate) fn upgrade<'a>(&'a self, p: &OptPage<'a>) -> Option<XGuard<'a>> {
        let frame = self.pool.frame(p.idx);
        frame.latch.try_upgrade(p.version).then(|| XGuard { pool: &self.pool, idx: p.idx, pid: p.pid })
    }

    /// The frame currently assigned to `pid` (possibly still being loaded by another thread:
    /// its latch is then held), loading the page into a free frame on a miss.
    fn resident_frame(&self, pid: PageId, fill: Fill) -> Result<u32> {
        let table = &self.pool.table;
        let mut backoff = Backoff::new();
        loop {
            match table.get(pid) {
                EMPTY => {
                    if table.compare_exchange(pid, EMPTY, LOADING) {
                        return self.load(pid, fill);
                    }
                }
                LOADING => backoff.snooze(),
                idx => return Ok(idx),
            }
        }
    }

    /// We own the LOADING entry of `pid`: take a frame, publish it latched, fill it.
    fn load(&self, pid: PageId, fill: Fill) -> Result<u32> {
        let pool = &self.pool;
        let idx = match self.take_free_frame() {
            Ok(idx) => idx,
            Err(e) => {
                pool.table.set(pid, EMPTY);
                return Err(e);
            }
        };
        let frame = pool.frame(idx);
        // A sweeping evictor may hold the latch of this free frame for a moment.
        frame.latch.lock();
        debug_assert_eq!(frame.page_id.load(Ordering::Relaxed), FREE_FRAME);
        debug_assert!(!frame.is_dirty());
        frame.page_id.store(pid, Ordering::Release);
        frame.referenced.store(true, Ordering::Relaxed);
        // Publish while latched: concurrent readers of pid now wait on the latch, not the table.
        pool.table.set(pid, idx);
        // SAFETY: we hold the frame's exclusive latch.
        let buf = unsafe { pool.memory.page_mut(idx) };
        let filled = match fill {
            Fill::Zero => {
                buf.fill(0);
                Ok(())
            }
            // Salvage mode serves a torn page from its intact doublewrite copy.
            Fill::Read if !self.salvage_images.is_empty() && self.salvage_images.contains_key(&pid) => {
                buf.copy_from_slice(&self.salvage_images[&pid]);
                Ok(())
            }
            // A connection's task must not block its worker thread in the kernel (blocking.rs).
            Fill::Read => crate::blocking::run(|| self.data.read_at(buf, pid * PAGE_SIZE as u64))
                .map_err(StorageError::from)
                .and_then(|()| page::verify(buf, pid).map_err(StorageError::Corruption)),
        };
        if let Err(e) = filled {
            pool.table.set(pid, EMPTY);
            frame.page_id.store(FREE_FRAME, Ordering::Release);
            frame.latch.unlock();
            pool.push_free(idx);
            return Err(e);
        }
        if fill == Fill::Read {
            self.stats.with_local(|c| bump(&c.page_reads, 1));
        }
        frame.latch.unlock();
        Ok(idx)
    }

    /// A free frame, taken from the reserve the evictor keeps. Below the low-water mark (the
    /// reserve) the consumer signals the evictor (a flag; a syscall only if it sleeps); below a
    /// quarter of it, it also frees a few clean pages itself (`assist_evict`), so that the list
    /// does not run dry while the woken evictor waits for a CPU. If the list is empty the caller
    /// waits and evicts by itself (counted: it must not happen in steady state).
    fn take_free_frame(&self) -> Result<u32> {
        if let Some(idx) = self.pool.pop_free() {
            let left = self.pool.free_len();
            if left < self.reserve_frames {
                self.evictor.wake();
                if left < self.reserve_frames / ASSIST_DIVISOR && self.wal.get().is_some() {
                    self.assist_evict();
                }
            }
            return Ok(idx);
        }
        // Before `start` (recovery) there is no evictor: loading pages evicts by itself, which
        // is not a user thread waiting.
        if self.wal.get().is_some() {
            self.stats.with_local(|c| bump(&c.free_frame_waits, 1));
        }
        self.evictor.wake();
        // Waiting and writing pages back: off the connection's worker thread (blocking.rs).
        crate::blocking::run(|| {
            let deadline = Instant::now() + FREE_FRAME_TIMEOUT;
            let mut backoff = Backoff::new();
            loop {
                if let Some(idx) = self.pool.pop_free() {
                    return Ok(idx);
                }
                if let Some(idx) = self.evict_by_self()? {
                    return Ok(idx);
                }
                if Instant::now() > deadline {
                    return Err(StorageError::Io(std::io::Error::other(
                        "buffer pool exhausted: every frame is latched or being written",
                    )));
                }
                backoff.snooze();
            }
        })
    }

    /// A consumer's top-up of a nearly empty free list: evicts up to ASSIST_EVICT_BATCH clean,
    /// unreferenced pages among the next ASSIST_SWEEP_FRAMES under the CLOCK hand. Dirty pages
    /// are left to the cleaner (no I/O here); if it finds too few clean ones, the evictor's own
    /// sweep asks the cleaner to write the next victims back.
    fn assist_evict(&self) {
        let mut freed = 0;
        for _ in 0..ASSIST_SWEEP_FRAMES.min(self.pool.frames.len()) {
            let idx = self.pool.clock_next();
            if let Sweep::Evicted = self.sweep(idx) {
                self.pool.push_free(idx);
                freed += 1;
                if freed == ASSIST_EVICT_BATCH {
                    break;
                }
            }
        }
        self.stats.with_local(|c| bump(&c.eviction_assists, 1));
    }

    /// One CLOCK sweep by a user thread: evicts a batch of clean, unreferenced pages (keeping
    /// one frame, freeing the others); failing that, writes back a few dirty ones (the syncs
    /// cost the same for one page or several) and evicts them.
    fn evict_by_self(&self) -> Result<Option<u32>> {
        let mut dirty: SmallVec<[u32; SELF_FLUSH_PAGES]> = SmallVec::new();
        let mut taken = None;
        let mut evicted = 0;
        for _ in 0..2 * self.pool.frames.len() {
            let idx = self.pool.clock_next();
            match self.sweep(idx) {
                Sweep::Evicted => {
                    evicted += 1;
                    match taken {
                        None => taken = Some(idx),
                        Some(_) => self.pool.push_free(idx),
                    }
                    if evicted == SELF_EVICT_BATCH {
                        break;
                    }
                }
                Sweep::Dirty if dirty.len() < SELF_FLUSH_PAGES => dirty.push(idx),
                Sweep::Dirty | Sweep::Skip => {}
            }
        }
        if taken.is_some() {
            return Ok(taken);
        }
        self.flush_frames(&dirty)?;
        let mut taken = None;
        for idx in dirty {
            if self.try_evict(idx) {
                match taken {
                    None => taken = Some(idx),
                    Some(_) => self.pool.push_free(idx),
                }
            }
        }
        Ok(taken)
    }

    /// Looks at one frame under the CLOCK hand: clears its reference bit (second chance) or
    /// evicts it if clean.
    pub(crate) fn sweep(&self, idx: u32) -> Sweep {
        let frame = self.pool.frame(idx);
        if frame.page_id.load(Ordering::Relaxed) == FREE_FRAME {
            return Sweep::Skip;
        }
        if frame.referenced.load(Ordering::Relaxed) {
            frame.referenced.store(false, Ordering::Relaxed);
            return Sweep::Skip;
        }
        if frame.latch.is_locked() || frame.io_fixed.load(Ordering::Acquire) {
            return Sweep::Skip;
        }
        if frame.is_dirty() {
            return Sweep::Dirty;
        }
        if self.try_evict(idx) {
            Sweep::Evicted
        } else {
            Sweep::Skip
        }
    }

    /// Evicts the page in frame `idx` if it is clean and not latched or being written. The
    /// frame is then free but NOT in the free list: the caller uses it or pushes it there.
    pub(crate) fn try_evict(&self, idx: u32) -> bool {
        let frame = self.pool.frame(idx);
        if !frame.latch.try_lock() {
            return false;
        }
        let pid = frame.page_id.load(Ordering::Relaxed);
        if pid == FREE_FRAME || frame.io_fixed.load(Ordering::Acquire) || frame.is_dirty() {
            frame.latch.unlock();
            return false;
        }
        debug_assert_eq!(self.pool.table.get(pid), idx);
        self.pool.table.set(pid, EMPTY);
        frame.page_id.store(FREE_FRAME, Ordering::Release);
        frame.referenced.store(false, Ordering::Relaxed);
        frame.latch.unlock();
        self.stats.with_local(|c| bump(&c.evictions, 1));
        true
    }

    /// A validated copy of a whole page (for reads that need all of it).
    pub(crate) fn read_copy(&self, pid: PageId, out: &mut [u8]) -> Result<()> {
        assert_eq!(out.len(), PAGE_SIZE);
        loop {
            let p = self.read_page(pid)?;
            let view = p.view();
            view.with_bytes(0, PAGE_SIZE, |b| out.copy_from_slice(b)).expect("whole page is in bounds");
            if p.validate() {
                return Ok(());
            }
        }
    }
}
