//! The in-memory log buffer: a power-of-two ring of bytes indexed by `lsn % size`, plus the
//! *link buffer* that records which reserved ranges are completely copied in.
//!
//! Ownership rule that makes the lock-free copy sound: an appender that reserved `[start, end)`
//! owns those ring bytes from the moment `end <= written_lsn + size` (the writer no longer needs
//! the bytes that used to live there) until it publishes its link. The writer owns
//! `[written_lsn, ready_lsn)`, which only covers ranges whose link it has seen. These ranges never
//! overlap, so no byte is written by one thread while another reads or writes it.
//!
//! Link buffer: one `AtomicU32` per 8 bytes of ring. The appender of an entry starting at `lsn`
//! stores the entry's framed length in slot `(lsn % size) / 8`; the writer walks from `ready_lsn`
//! slot to slot, clearing each one it consumes. Entries in flight all start inside the window
//! `[written_lsn, written_lsn + size)` and at distinct multiples of 8, so they map to distinct
//! slots; a slot is cleared before `written_lsn` passes it, hence before it can be reused.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU32, Ordering};

use super::config::Lsn;
use super::entry::ENTRY_ALIGN;

pub(super) struct LogBuffer {
    bytes: Box<[UnsafeCell<u8>]>,
    links: Box<[AtomicU32]>,
    mask: u64,
}

// SAFETY: the ring bytes are accessed through raw pointers only, by threads that own disjoint
// ranges as described in the module comment; the hand-over between owners is ordered by the
// link (Release/Acquire) and `written_lsn` (Release/Acquire) atomics.
unsafe impl Sync for LogBuffer {}

impl LogBuffer {
    pub fn new(size: usize) -> LogBuffer {
        assert!(size.is_power_of_two() && size >= ENTRY_ALIGN, "ring size {size} must be a power of two");
        let zeroed = vec![0u8; size].into_boxed_slice();
        // SAFETY: UnsafeCell<u8> is repr(transparent) over u8, so the slice layouts are identical.
        let bytes = unsafe { Box::from_raw(Box::into_raw(zeroed) as *mut [UnsafeCell<u8>]) };
        let links = (0..size / ENTRY_ALIGN).map(|_| AtomicU32::new(0)).collect();
        LogBuffer { bytes, links, mask: size as u64 - 1 }
    }

    pub fn size(&self) -> u64 {
        self.mask + 1
    }

    fn base(&self) -> *mut u8 {
        UnsafeCell::raw_get(self.bytes.as_ptr())
    }

    /// Copies `data` into the ring at `lsn`, wrapping around the end.
    ///
    /// # Safety
    /// The caller owns `[lsn, lsn + data.len())` of the ring (see the module comment).
    pub unsafe fn copy_in(&self, lsn: Lsn, data: &[u8]) {
        debug_assert!(data.len() as u64 <= self.size());
        let pos = (lsn & self.mask) as usize;
        let first = data.len().min(self.size() as usize - pos);
        // SAFETY: both pieces lie inside the ring allocation; ownership is the caller's promise.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), self.base().add(pos), first);
            std::ptr::copy_nonoverlapping(data.as_ptr().add(first), self.base(), data.len() - first);
        }
    }

    /// The ring bytes from `lsn`, up to `len` of them but stopping at the physical end of the ring
    /// (the caller loops to get the rest).
    ///
    /// # Safety
    /// The caller owns the range, and nobody writes it while the returned slice lives.
    pub unsafe fn contiguous(&self, lsn: Lsn, len: u64) -> &[u8] {
        let pos = (lsn & self.mask) as usize;
        let n = (len.min(self.size() - pos as u64)) as usize;
        // SAFETY: in bounds; exclusive access is the caller's promise.
        unsafe { std::slice::from_raw_parts(self.base().add(pos), n) }
    }

    fn link(&self, lsn: Lsn) -> &AtomicU32 {
        debug_assert_eq!(lsn % ENTRY_ALIGN as u64, 0);
        &self.links[((lsn & self.mask) / ENTRY_ALIGN as u64) as usize]
    }

    /// Publishes that the entry at `start` (of `framed_len` bytes) is completely copied in.
    /// SeqCst: pairs with the writer's SeqCst store of its sleeping state (see `Wal::append`).
    pub fn complete(&self, start: Lsn, framed_len: u32) {
        debug_assert!(framed_len as usize >= super::entry::ENTRY_HEADER);
        self.link(start).store(framed_len, Ordering::SeqCst);
    }

    /// True if the entry at `lsn` is complete and not yet consumed.
    pub fn is_complete(&self, lsn: Lsn) -> bool {
        self.link(lsn).load(Ordering::SeqCst) != 0
    }

    /// Writer only: follows completed links from `ready` and returns the end of the longest
    /// complete prefix, clearing every slot it passes.
    pub fn follow_links(&self, mut ready: Lsn) -> Lsn {
        loop {
            let slot = self.link(ready);
            let len = slot.load(Ordering::Acquire);
            if len == 0 {
                return ready;
            }
            slot.store(0, Ordering::Relaxed);
            debug_assert_eq!(len as usize % ENTRY_ALIGN, 0);
            ready += len as u64;
        }
    }
}
