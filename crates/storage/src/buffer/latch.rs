//! The hybrid page latch: a version counter that is both a seqlock for optimistic readers and an
//! exclusive lock for writers (docs/architecture.md §4.2).
//!
//! Even version = unlocked, odd = exclusively latched. A reader takes the (even) version, reads,
//! and validates that the version is unchanged: readers write nothing shared. A writer CASes the
//! version from even to odd and stores +1 on release, so every exclusive section moves the
//! version by 2 and a validated read saw no writer at all (the counter is 64 bits: no ABA).

use std::sync::atomic::{fence, AtomicU64, Ordering};
use std::time::Duration;

/// Spins (doubling) up to 2^SPIN_ROUNDS pause instructions, then yields, then sleeps: waits on a
/// latch are short (a page change) or I/O bound (a page being loaded), and a sleeping waiter
/// must not burn a core another thread needs.
pub(crate) struct Backoff {
    step: u32,
}

const SPIN_ROUNDS: u32 = 6;
const YIELD_ROUNDS: u32 = 16;
const SLEEP: Duration = Duration::from_micros(50);

impl Backoff {
    pub(crate) fn new() -> Backoff {
        Backoff { step: 0 }
    }

    pub(crate) fn snooze(&mut self) {
        if self.step < SPIN_ROUNDS {
            for _ in 0..(1u32 << self.step) {
                std::hint::spin_loop();
            }
        } else if self.step < YIELD_ROUNDS {
            std::thread::yield_now();
        } else {
            std::thread::sleep(SLEEP);
        }
        self.step = self.step.saturating_add(1).min(YIELD_ROUNDS);
    }
}

pub(crate) struct HybridLatch {
    version: AtomicU64,
}

impl HybridLatch {
    pub(crate) const fn new() -> HybridLatch {
        HybridLatch { version: AtomicU64::new(0) }
    }

    /// Begins an optimistic read: waits while the latch is held exclusively, returns the even
    /// version to validate against.
    #[inline]
    pub(crate) fn read_begin(&self) -> u64 {
        let v = self.version.load(Ordering::Acquire);
        if v & 1 == 0 {
            return v;
        }
        let mut backoff = Backoff::new();
        loop {
            backoff.snooze();
            let v = self.version.load(Ordering::Acquire);
            if v & 1 == 0 {
                return v;
            }
        }
    }

    /// True if no writer held the latch since `read_begin` returned `v`: everything read in
    /// between is a consistent snapshot.
    #[inline]
    pub(crate) fn validate(&self, v: u64) -> bool {
        // Orders the data reads before the version re-read (seqlock reader side).
        fence(Ordering::Acquire);
        self.version.load(Ordering::Relaxed) == v
    }

    /// Takes the latch exclusively if it is still at version `v` (an upgrade of an optimistic
    /// read: success proves that what was read under `v` is still the page's content).
    #[inline]
    pub(crate) fn try_upgrade(&self, v: u64) -> bool {
        debug_assert!(v & 1 == 0, "upgrade from a locked version");
        let ok = self.version.compare_exchange(v, v + 1, Ordering::Acquire, Ordering::Relaxed).is_ok();
        if ok {
            // Makes the odd version visible before any page byte we write (seqlock writer side):
            // a reader that sees one of our writes then sees the odd version when it validates.
            fence(Ordering::Release);
        }
        ok
    }

    #[inline]
    pub(crate) fn try_lock(&self) -> bool {
        let v = self.version.load(Ordering::Relaxed);
        v & 1 == 0 && self.try_upgrade(v)
    }

    pub(crate) fn lock(&self) {
        let mut backoff = Backoff::new();
        while !self.try_lock() {
            backoff.snooze();
        }
    }

    #[inline]
    pub(crate) fn unlock(&self) {
        let v = self.version.load(Ordering::Relaxed);
        debug_assert!(v & 1 == 1, "unlock of a latch that is not held");
        self.version.store(v + 1, Ordering::Release);
    }

    pub(crate) fn is_locked(&self) -> bool {
        self.version.load(Ordering::Relaxed) & 1 == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn versions_move_by_two_per_exclusive_section() {
        let l = HybridLatch::new();
        let v = l.read_begin();
        assert!(l.validate(v));
        assert!(l.try_upgrade(v));
        assert!(l.is_locked());
        assert!(!l.try_lock(), "exclusive latch is not reentrant");
        assert!(!l.try_upgrade(v), "version moved");
        l.unlock();
        assert!(!l.validate(v), "a writer ran since v");
        assert_eq!(l.read_begin(), v + 2);
        assert!(!l.try_upgrade(v), "stale version must not upgrade");
    }

    /// Writers keep two words equal under the latch; optimistic readers must never validate a
    /// snapshot in which they differ.
    #[test]
    fn optimistic_readers_never_validate_a_torn_snapshot() {
        struct Shared {
            latch: HybridLatch,
            a: AtomicU64,
            b: AtomicU64,
        }
        let s = Arc::new(Shared { latch: HybridLatch::new(), a: AtomicU64::new(0), b: AtomicU64::new(0) });
        let iters: u64 = if std::env::var("SELKIE_STRESS").is_ok() { 1_000_000 } else { 20_000 };
        let writer = {
            let s = s.clone();
            std::thread::spawn(move || {
                for i in 1..=iters {
                    s.latch.lock();
                    s.a.store(i, Ordering::Relaxed);
                    s.b.store(i, Ordering::Relaxed);
                    s.latch.unlock();
                }
            })
        };
        let mut validated = 0u64;
        // Until the writer is done, and at least one read validated (on a loaded machine the
        // reader may not get a quiet moment while the writer runs).
        while !writer.is_finished() || validated == 0 {
            let v = s.latch.read_begin();
            let a = s.a.load(Ordering::Relaxed);
            let b = s.b.load(Ordering::Relaxed);
            if s.latch.validate(v) {
                assert_eq!(a, b, "validated read saw a torn pair");
                validated += 1;
            }
        }
        writer.join().unwrap();
        assert_eq!(s.latch.read_begin(), iters * 2);
    }
}
