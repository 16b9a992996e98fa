//! The page table: page id → frame index, a two-level array of `AtomicU32` (docs §4.2).
//!
//! Page ids are dense (one tablespace), so a direct array beats a hash table: a lookup is two
//! atomic loads and takes no lock. The second level is allocated in chunks of 64K entries on
//! first use, so a large, sparsely cached tablespace costs little memory.

use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

use crate::page::PageId;

const CHUNK_BITS: u32 = 16;
const CHUNK_ENTRIES: usize = 1 << CHUNK_BITS;
/// Largest tablespace, in pages (32 TiB of 16 KiB pages).
pub const MAX_PAGE_COUNT: u64 = 1 << 31;
const CHUNKS: usize = (MAX_PAGE_COUNT >> CHUNK_BITS) as usize;

/// Entry value: the page is not in the pool.
pub(crate) const EMPTY: u32 = u32::MAX;
/// Entry value: a thread is taking a frame to load the page; others wait.
pub(crate) const LOADING: u32 = u32::MAX - 1;
/// Frame indexes are below this (the two values above are reserved).
pub(crate) const MAX_FRAMES: usize = (u32::MAX - 1) as usize;

pub(crate) struct PageTable {
    chunks: Box<[AtomicPtr<AtomicU32>]>,
}

impl PageTable {
    pub(crate) fn new() -> PageTable {
        PageTable { chunks: (0..CHUNKS).map(|_| AtomicPtr::new(std::ptr::null_mut())).collect() }
    }

    fn split(pid: PageId) -> (usize, usize) {
        debug_assert!(pid < MAX_PAGE_COUNT);
        ((pid >> CHUNK_BITS) as usize, (pid as usize) & (CHUNK_ENTRIES - 1))
    }

    fn chunk(&self, c: usize) -> Option<&[AtomicU32]> {
        let p = self.chunks[c].load(Ordering::Acquire);
        if p.is_null() {
            return None;
        }
        // SAFETY: non-null chunk pointers come from `chunk_or_alloc` (CHUNK_ENTRIES entries) and
        // are freed only in Drop.
        Some(unsafe { std::slice::from_raw_parts(p, CHUNK_ENTRIES) })
    }

    fn chunk_or_alloc(&self, c: usize) -> &[AtomicU32] {
        if let Some(chunk) = self.chunk(c) {
            return chunk;
        }
        let fresh: Box<[AtomicU32]> = (0..CHUNK_ENTRIES).map(|_| AtomicU32::new(EMPTY)).collect();
        let fresh = Box::into_raw(fresh) as *mut AtomicU32;
        match self.chunks[c].compare_exchange(std::ptr::null_mut(), fresh, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => {}
            Err(_) => {
                // Another thread installed the chunk first.
                // SAFETY: `fresh` came from Box::into_raw above and was not published.
                drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(fresh, CHUNK_ENTRIES)) });
            }
        }
        self.chunk(c).expect("chunk installed")
    }

    /// The entry for `pid`: a frame index, `EMPTY` or `LOADING`.
    #[inline]
    pub(crate) fn get(&self, pid: PageId) -> u32 {
        let (c, i) = Self::split(pid);
        match self.chunk(c) {
            Some(chunk) => chunk[i].load(Ordering::Acquire),
            None => EMPTY,
        }
    }

    pub(crate) fn compare_exchange(&self, pid: PageId, current: u32, new: u32) -> bool {
        let (c, i) = Self::split(pid);
        self.chunk_or_alloc(c)[i].compare_exchange(current, new, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }

    /// Overwrites the entry of a page this thread owns (it set `LOADING`, or it holds the
    /// frame's exclusive latch).
    pub(crate) fn set(&self, pid: PageId, v: u32) {
        let (c, i) = Self::split(pid);
        self.chunk_or_alloc(c)[i].store(v, Ordering::Release);
    }
}

impl Drop for PageTable {
    fn drop(&mut self) {
        for c in self.chunks.iter() {
            let p = c.load(Ordering::Relaxed);
            if !p.is_null() {
                // SAFETY: allocated in `chunk_or_alloc` as a boxed slice of CHUNK_ENTRIES.
                drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, CHUNK_ENTRIES)) });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_independent_across_chunks() {
        let t = PageTable::new();
        assert_eq!(t.get(5), EMPTY);
        assert!(t.compare_exchange(5, EMPTY, LOADING));
        assert!(!t.compare_exchange(5, EMPTY, LOADING), "second loader must lose");
        t.set(5, 3);
        assert_eq!(t.get(5), 3);
        let far = (7u64 << CHUNK_BITS) + 5;
        assert_eq!(t.get(far), EMPTY);
        t.set(far, 9);
        assert_eq!(t.get(far), 9);
        assert_eq!(t.get(5), 3);
        assert_eq!(t.get(MAX_PAGE_COUNT - 1), EMPTY);
    }
}
