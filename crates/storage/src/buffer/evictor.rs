//! The evictor: the thread that keeps free frames ahead of demand (docs §4.2, MDEV-30628).
//!
//! A consumer that takes the free list below the reserve (the low-water mark) wakes it (a flag;
//! a syscall only if it sleeps). It sweeps the CLOCK hand and evicts clean, unreferenced pages
//! until the list holds twice the reserve. It never does I/O, so a slow fsync elsewhere does not
//! delay it: dirty pages under the hand are skipped, and if they keep it from reaching its
//! target it asks the page cleaner to write the next victims back (`Shared::flush_ahead`).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::doublewrite::BATCH_PAGES;
use super::pool::Sweep;
use super::shared::Shared;

/// The evictor wakes at least this often (consumers wake it sooner when the list runs low).
const EVICTOR_TICK: Duration = Duration::from_millis(20);
/// Dirty victims handed to the cleaner at most (queued, not yet written): a few batches.
pub(crate) const MAX_VICTIMS: usize = 8 * BATCH_PAGES;

pub(crate) fn run(shared: Arc<Shared>) {
    while !shared.evictor.stopping() {
        shared.evictor.wait(EVICTOR_TICK);
        if shared.evictor.stopping() {
            break;
        }
        shared.produce_free_frames();
    }
}

impl Shared {
    /// The free list's target: twice the reserve (the slack covers misses while the evictor
    /// sleeps), at most half the pool.
    pub(crate) fn free_target(&self) -> usize {
        (2 * self.reserve_frames).min(self.pool.frames.len() / 2)
    }

    /// Refills the free list once it is below the reserve: evicts clean, unreferenced pages
    /// under the CLOCK hand (at most one turn per call, so that a pool full of dirty or latched
    /// pages cannot spin it, and the reference bits keep their meaning). If that falls short,
    /// the page cleaner is asked to write back the next victims.
    pub(crate) fn produce_free_frames(&self) {
        if self.pool.free_len() >= self.reserve_frames {
            return;
        }
        let target = self.free_target();
        let n = self.pool.frames.len();
        let mut steps = 0;
        let mut dirty: Vec<u32> = Vec::new();
        while self.pool.free_len() < target && steps < n {
            let idx = self.pool.clock_next();
            steps += 1;
            match self.sweep(idx) {
                Sweep::Evicted => self.pool.push_free(idx),
                Sweep::Dirty => {
                    if dirty.len() < MAX_VICTIMS {
                        dirty.push(idx);
                    }
                }
                Sweep::Skip => {}
            }
        }
        if self.pool.free_len() < target && !dirty.is_empty() {
            // The hand has passed these: hand them to the cleaner, which writes them back and
            // frees them, instead of waiting for the hand to come round again.
            let mut victims = self.victims.lock();
            let room = MAX_VICTIMS.saturating_sub(victims.len());
            victims.extend(dirty.into_iter().take(room));
            drop(victims);
            self.flush_urgent.store(true, Ordering::Relaxed);
            self.cleaner.wake();
        }
    }
}
