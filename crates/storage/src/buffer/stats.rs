//! Per-thread buffer pool counters, merged when statistics are read (docs §5: no shared counter is
//! written on the read path). Each thread gets its own cache-line-aligned counter block per page
//! store, registered in the store's list the first time the thread counts something.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

#[derive(Default)]
#[repr(align(64))]
pub(crate) struct ThreadCounters {
    pub(crate) page_reads: AtomicU64,
    pub(crate) page_writes: AtomicU64,
    pub(crate) free_frame_waits: AtomicU64,
    pub(crate) evictions: AtomicU64,
    pub(crate) eviction_assists: AtomicU64,
}

/// Bumps a counter that only the current thread writes (a plain load and store, no locked RMW).
pub(crate) fn bump(c: &AtomicU64, n: u64) {
    c.store(c.load(Ordering::Relaxed) + n, Ordering::Relaxed);
}

#[derive(Default, Debug, Clone, Copy)]
pub(crate) struct Totals {
    pub(crate) page_reads: u64,
    pub(crate) page_writes: u64,
    pub(crate) free_frame_waits: u64,
    pub(crate) evictions: u64,
    pub(crate) eviction_assists: u64,
}

pub(crate) struct StatsRegistry {
    /// Distinguishes stores in the thread-local cache (several stores can live in one process).
    id: u64,
    threads: Mutex<Vec<Arc<ThreadCounters>>>,
}

static NEXT_REGISTRY_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static LOCAL: RefCell<Vec<(u64, Arc<ThreadCounters>)>> = const { RefCell::new(Vec::new()) };
}

impl StatsRegistry {
    pub(crate) fn new() -> StatsRegistry {
        StatsRegistry { id: NEXT_REGISTRY_ID.fetch_add(1, Ordering::Relaxed), threads: Mutex::new(Vec::new()) }
    }

    /// Runs `f` on this thread's counters for this store.
    pub(crate) fn with_local<R>(&self, f: impl FnOnce(&ThreadCounters) -> R) -> R {
        LOCAL.with(|local| {
            let mut local = local.borrow_mut();
            if let Some((_, c)) = local.iter().find(|(id, _)| *id == self.id) {
                return f(c);
            }
            // Forget counters of stores that were dropped (only our cache still holds them).
            local.retain(|(_, c)| Arc::strong_count(c) > 1);
            let c = Arc::new(ThreadCounters::default());
            self.threads.lock().push(c.clone());
            local.push((self.id, c.clone()));
            f(&c)
        })
    }

    pub(crate) fn totals(&self) -> Totals {
        let mut t = Totals::default();
        for c in self.threads.lock().iter() {
            t.page_reads += c.page_reads.load(Ordering::Relaxed);
            t.page_writes += c.page_writes.load(Ordering::Relaxed);
            t.free_frame_waits += c.free_frame_waits.load(Ordering::Relaxed);
            t.evictions += c.evictions.load(Ordering::Relaxed);
            t.eviction_assists += c.eviction_assists.load(Ordering::Relaxed);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_from_many_threads_merge() {
        let reg = Arc::new(StatsRegistry::new());
        let other = StatsRegistry::new();
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let reg = reg.clone();
                std::thread::spawn(move || {
                    for _ in 0..100 {
                        reg.with_local(|c| bump(&c.page_reads, 1));
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        other.with_local(|c| bump(&c.page_reads, 5));
        reg.with_local(|c| bump(&c.page_writes, 2));
        let t = reg.totals();
        assert_eq!(t.page_reads, 400);
        assert_eq!(t.page_writes, 2);
        assert_eq!(other.totals().page_reads, 5, "stores do not share counters");
    }
}
