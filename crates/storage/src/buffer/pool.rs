//! The buffer pool's memory: the frames, their page table, the free list and the CLOCK hand,
//! and the handles a latched or optimistically read page is reached through (`OptPage`,
//! `XGuard`). A leaf below `Shared`, which owns the pool; finding, loading, latching and
//! evicting pages is `residency`, above it.

use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;

use super::frame::{Frame, FrameMemory, PageView, FREE_FRAME};
use super::page_table::PageTable;
use crate::page::PageId;

pub(crate) struct Pool {
    pub(crate) frames: Box<[Frame]>,
    pub(crate) memory: FrameMemory,
    pub(crate) table: PageTable,
    free: Mutex<Vec<u32>>,
    /// Length of `free`, readable without the mutex.
    free_len: AtomicUsize,
    /// CLOCK hand, shared by the cleaner and by threads that evict by themselves.
    clock: AtomicUsize,
}

impl Pool {
    pub(crate) fn new(n: usize) -> Pool {
        Pool {
            frames: Frame::new_frames(n),
            memory: FrameMemory::new(n),
            table: PageTable::new(),
            // Pop from the end: low frames first.
            free: Mutex::new((0..n as u32).rev().collect()),
            free_len: AtomicUsize::new(n),
            clock: AtomicUsize::new(0),
        }
    }

    pub(crate) fn frame(&self, idx: u32) -> &Frame {
        &self.frames[idx as usize]
    }

    pub(crate) fn free_len(&self) -> usize {
        self.free_len.load(Ordering::Relaxed)
    }

    pub(super) fn pop_free(&self) -> Option<u32> {
        let mut free = self.free.lock();
        let idx = free.pop();
        self.free_len.store(free.len(), Ordering::Relaxed);
        idx
    }

    pub(crate) fn push_free(&self, idx: u32) {
        debug_assert_eq!(self.frame(idx).page_id.load(Ordering::Relaxed), FREE_FRAME);
        let mut free = self.free.lock();
        free.push(idx);
        self.free_len.store(free.len(), Ordering::Relaxed);
    }

    /// Next frame under the CLOCK hand.
    pub(crate) fn clock_next(&self) -> u32 {
        (self.clock.fetch_add(1, Ordering::Relaxed) % self.frames.len()) as u32
    }

    /// The frame the CLOCK hand reaches next (without moving it).
    pub(crate) fn clock_position(&self) -> u32 {
        (self.clock.load(Ordering::Relaxed) % self.frames.len()) as u32
    }
}

/// An optimistic read of one page: the frame and the version to validate.
pub(crate) struct OptPage<'a> {
    pub(super) pool: &'a Pool,
    pub(super) idx: u32,
    pub(super) version: u64,
    pub(super) pid: PageId,
}

impl<'a> OptPage<'a> {
    pub(crate) fn view(&self) -> PageView<'a> {
        self.pool.memory.view(self.idx)
    }
    /// True if the page did not change (nor leave the frame) since this read began.
    pub(crate) fn validate(&self) -> bool {
        self.pool.frame(self.idx).latch.validate(self.version)
    }
    pub(crate) fn pid(&self) -> PageId {
        self.pid
    }
}

/// An exclusive page latch. Dropping it releases the latch.
pub(crate) struct XGuard<'a> {
    pub(super) pool: &'a Pool,
    pub(super) idx: u32,
    pub(super) pid: PageId,
}

impl<'a> XGuard<'a> {
    pub(crate) fn pid(&self) -> PageId {
        self.pid
    }
    pub(crate) fn frame(&self) -> &'a Frame {
        self.pool.frame(self.idx)
    }
    pub(crate) fn page(&self) -> &[u8] {
        // SAFETY: we hold the exclusive latch; the shared borrow of self prevents page_mut.
        unsafe { self.pool.memory.page(self.idx) }
    }
    pub(crate) fn page_mut(&mut self) -> &mut [u8] {
        // SAFETY: we hold the exclusive latch; the mutable borrow of self makes this reference
        // unique among latched accessors.
        unsafe { self.pool.memory.page_mut(self.idx) }
    }
}

impl Drop for XGuard<'_> {
    fn drop(&mut self) {
        self.pool.frame(self.idx).latch.unlock();
    }
}

/// Outcome of looking at one frame under the CLOCK hand.
pub(crate) enum Sweep {
    /// The frame was clean and is now free (off the page table, not in the free list).
    Evicted,
    /// The frame is dirty and could be evicted once written back.
    Dirty,
    Skip,
}
