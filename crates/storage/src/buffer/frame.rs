//! Buffer frames: per-frame metadata and the page memory, allocated once for the whole pool.
//!
//! This is the ONLY module that touches frame memory through raw pointers. Everything else reads
//! pages through `PageView` (optimistic, bounds-checked) or through the `&[u8]` / `&mut [u8]` that
//! an exclusive latch guard hands out.
//!
//! Why optimistic reads of memory that a writer may be changing are sound in practice: a reader
//! (1) never trusts an offset or length it read without checking it against PAGE_SIZE first,
//! (2) copies out or compares bytes, never keeps a reference past `with_bytes`, and (3) validates
//! the latch version before acting on anything it read. Bytes may be torn (any u8 value is a
//! valid u8), so the worst outcome of a race is a wrong intermediate result that validation then
//! discards. This is the seqlock pattern; the Rust memory model calls such racing reads a data
//! race, which is why it is confined here and reads go through `read_unaligned`/short-lived slices.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::latch::HybridLatch;
use crate::page::{PageBytes, Torn};
use crate::page::{PageId, PAGE_SIZE};

/// Frame metadata. One cache line, apart from the page memory, so that readers checking the
/// version and page id touch one line.
#[repr(align(64))]
pub(crate) struct Frame {
    pub(crate) latch: HybridLatch,
    /// Page held by the frame (`FREE_FRAME` if none). Written only under the exclusive latch.
    pub(crate) page_id: AtomicU64,
    /// Start LSN of the first mtr that dirtied the page since it was last copied for writing;
    /// 0 = clean.
    pub(crate) rec_lsn: AtomicU64,
    /// `rec_lsn` of the copy currently being written back (0 = none): the page's changes since
    /// then are not durable in the data file yet, so checkpoints must still count them.
    pub(crate) flushing_lsn: AtomicU64,
    /// CLOCK reference bit. Readers set it only when clear (one write per sweep cycle).
    pub(crate) referenced: AtomicBool,
    /// A copy of the page is being written back: the frame must not be evicted.
    pub(crate) io_fixed: AtomicBool,
}

pub(crate) const FREE_FRAME: PageId = u64::MAX;

impl Frame {
    fn new() -> Frame {
        Frame {
            latch: HybridLatch::new(),
            page_id: AtomicU64::new(FREE_FRAME),
            rec_lsn: AtomicU64::new(0),
            flushing_lsn: AtomicU64::new(0),
            referenced: AtomicBool::new(false),
            io_fixed: AtomicBool::new(false),
        }
    }

    pub(crate) fn new_frames(n: usize) -> Box<[Frame]> {
        (0..n).map(|_| Frame::new()).collect()
    }

    /// Marks the frame recently used without writing the shared line when the bit is already set.
    #[inline]
    pub(crate) fn touch(&self) {
        if !self.referenced.load(Ordering::Relaxed) {
            self.referenced.store(true, Ordering::Relaxed);
        }
    }

    pub(crate) fn is_dirty(&self) -> bool {
        self.oldest_unwritten_lsn() != 0
    }

    /// Oldest LSN of a change to this page that may not be durable in the data file (0 = none),
    /// read without the latch. `rec_lsn` is read twice around `flushing_lsn`: a write-back moves
    /// the LSN from one to the other (flushing first, on failure rec_lsn first), so a stable
    /// `rec_lsn` means the `flushing_lsn` read in between is not from a half-done move.
    pub(crate) fn oldest_unwritten_lsn(&self) -> u64 {
        loop {
            let before = self.rec_lsn.load(Ordering::SeqCst);
            let flushing = self.flushing_lsn.load(Ordering::SeqCst);
            if self.rec_lsn.load(Ordering::SeqCst) == before {
                return match (before, flushing) {
                    (0, f) => f,
                    (r, 0) => r,
                    (r, f) => r.min(f),
                };
            }
        }
    }
}

/// The page memory of all frames: one zeroed, page-aligned allocation.
pub(crate) struct FrameMemory {
    base: NonNull<u8>,
    frames: usize,
}

// SAFETY: the memory is plain bytes; access is coordinated by the frames' latches (exclusive
// writers, validated optimistic readers) as described in the module comment.
unsafe impl Send for FrameMemory {}
unsafe impl Sync for FrameMemory {}

const PAGE_ALIGN: usize = 4096;

impl FrameMemory {
    pub(crate) fn new(frames: usize) -> FrameMemory {
        assert!(frames > 0);
        let layout = Self::layout(frames);
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        let base = NonNull::new(ptr).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        FrameMemory { base, frames }
    }

    fn layout(frames: usize) -> Layout {
        Layout::from_size_align(frames.checked_mul(PAGE_SIZE).expect("pool size overflows"), PAGE_ALIGN)
            .expect("pool layout")
    }

    fn page_ptr(&self, idx: u32) -> *mut u8 {
        assert!((idx as usize) < self.frames, "frame index out of range");
        // SAFETY: idx < frames, so the offset stays inside the allocation.
        unsafe { self.base.as_ptr().add(idx as usize * PAGE_SIZE) }
    }

    /// Optimistic read access to frame `idx`. Callers validate the frame's latch version before
    /// trusting anything read through it.
    pub(crate) fn view(&self, idx: u32) -> PageView<'_> {
        PageView { ptr: self.page_ptr(idx), _memory: PhantomData }
    }

    /// The page bytes of frame `idx`, read-only.
    ///
    /// # Safety
    /// The caller holds the frame's exclusive latch for the lifetime of the returned reference
    /// and creates no mutable reference to the same frame meanwhile.
    pub(crate) unsafe fn page(&self, idx: u32) -> &[u8] {
        std::slice::from_raw_parts(self.page_ptr(idx), PAGE_SIZE)
    }

    /// The page bytes of frame `idx`.
    ///
    /// # Safety
    /// The caller holds the frame's exclusive latch for the lifetime of the returned reference
    /// and creates no other reference to the same frame meanwhile.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn page_mut(&self, idx: u32) -> &mut [u8] {
        std::slice::from_raw_parts_mut(self.page_ptr(idx), PAGE_SIZE)
    }
}

impl Drop for FrameMemory {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with the same layout.
        unsafe { dealloc(self.base.as_ptr(), Self::layout(self.frames)) }
    }
}

/// A page read optimistically, straight from frame memory.
#[derive(Clone, Copy)]
pub(crate) struct PageView<'a> {
    ptr: *const u8,
    _memory: PhantomData<&'a FrameMemory>,
}

impl PageBytes for PageView<'_> {
    #[inline]
    fn with_bytes<R>(&self, off: usize, len: usize, f: impl FnOnce(&[u8]) -> R) -> Result<R, Torn> {
        let end = off.checked_add(len).ok_or(Torn)?;
        if end > PAGE_SIZE {
            return Err(Torn);
        }
        // SAFETY: off..end lies inside this frame's PAGE_SIZE bytes (checked above), which stay
        // allocated for the lifetime 'a. The slice lives only for the call of `f`, which copies
        // or compares bytes and keeps no reference; concurrent writes can only make the result
        // wrong, and the caller discards it when the latch version fails to validate (see the
        // module comment).
        let bytes = unsafe { std::slice::from_raw_parts(self.ptr.add(off), len) };
        Ok(f(bytes))
    }

    #[inline]
    fn u16_at(&self, off: usize) -> Result<u16, Torn> {
        if off.checked_add(2).is_none_or(|e| e > PAGE_SIZE) {
            return Err(Torn);
        }
        // SAFETY: in bounds (checked above); an unaligned read of plain bytes.
        Ok(u16::from_le(unsafe { std::ptr::read_unaligned(self.ptr.add(off) as *const u16) }))
    }

    #[inline]
    fn u32_at(&self, off: usize) -> Result<u32, Torn> {
        if off.checked_add(4).is_none_or(|e| e > PAGE_SIZE) {
            return Err(Torn);
        }
        // SAFETY: in bounds (checked above); an unaligned read of plain bytes.
        Ok(u32::from_le(unsafe { std::ptr::read_unaligned(self.ptr.add(off) as *const u32) }))
    }

    #[inline]
    fn u64_at(&self, off: usize) -> Result<u64, Torn> {
        if off.checked_add(8).is_none_or(|e| e > PAGE_SIZE) {
            return Err(Torn);
        }
        // SAFETY: in bounds (checked above); an unaligned read of plain bytes.
        Ok(u64::from_le(unsafe { std::ptr::read_unaligned(self.ptr.add(off) as *const u64) }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_are_bounds_checked_and_see_latched_writes() {
        let mem = FrameMemory::new(2);
        // SAFETY: single-threaded test; no other reference to frame 1 exists.
        let page = unsafe { mem.page_mut(1) };
        page[100] = 7;
        page[PAGE_SIZE - 8..].copy_from_slice(&42u64.to_le_bytes());
        let v = mem.view(1);
        assert_eq!(v.u8_at(100), Ok(7));
        assert_eq!(v.u64_at(PAGE_SIZE - 8), Ok(42));
        assert_eq!(v.u64_at(PAGE_SIZE - 7), Err(Torn));
        assert_eq!(v.u16_at(usize::MAX), Err(Torn));
        assert_eq!(mem.view(0).u8_at(100), Ok(0), "frames do not overlap");
        let mut out = Vec::new();
        v.copy_at(99, 2, &mut out).unwrap();
        assert_eq!(out, vec![0, 7]);
    }
}
