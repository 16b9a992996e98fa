//! Statistics: one block of counters per worker, written only by that worker, merged on read.
//!
//! Each counter has a single writer (its worker thread), so an increment is a relaxed load and
//! store, not a locked read-modify-write, and no cache line is written by two threads on the
//! query path. The admin endpoint reads every worker's block with relaxed loads and sums; a
//! reader may see one counter a few increments ahead of another, which is fine for monitoring.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crossbeam_utils::CachePadded;

use crate::cache::CacheStats;
use crate::config::MAX_SERVERS;

/// A counter with one writer thread.
#[derive(Debug, Default)]
pub struct Counter(AtomicU64);

impl Counter {
    #[inline]
    pub fn add(&self, n: u64) {
        // Single writer: a plain load + store is exact and avoids a locked instruction.
        self.0.store(self.0.load(Relaxed).wrapping_add(n), Relaxed);
    }
    #[inline]
    pub fn incr(&self) {
        self.add(1);
    }
    /// For gauges (current connections): the writer never takes it below zero.
    #[inline]
    pub fn decr(&self) {
        let v = self.0.load(Relaxed);
        debug_assert!(v > 0, "gauge below zero");
        self.0.store(v.saturating_sub(1), Relaxed);
    }
    #[inline]
    pub fn set(&self, v: u64) {
        self.0.store(v, Relaxed);
    }
    #[inline]
    pub fn get(&self) -> u64 {
        self.0.load(Relaxed)
    }
}

/// Where a statement was sent (readwritesplit's routing decisions, readconnroute counts as
/// `Primary` or `Replica` by the role of its server).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteEvent {
    Primary = 0,
    Replica = 1,
    /// A session command sent to every backend of the session.
    All = 2,
    /// A read that went to the primary because no replica was usable.
    FallbackPrimary = 3,
    /// A write refused because no primary was available.
    WriteFailed = 4,
    /// A read answered from the result cache.
    Cache = 5,
    /// A read retried on another backend after its first one failed.
    Retried = 6,
}

pub const ROUTE_EVENTS: [(RouteEvent, &str); 7] = [
    (RouteEvent::Primary, "primary"),
    (RouteEvent::Replica, "replica"),
    (RouteEvent::All, "all"),
    (RouteEvent::FallbackPrimary, "fallback_primary"),
    (RouteEvent::WriteFailed, "write_failed"),
    (RouteEvent::Cache, "cache"),
    (RouteEvent::Retried, "retried"),
];

/// Classifier outcomes by route.
pub const CLASSES: [&str; 3] = ["read", "write", "session"];

#[derive(Debug, Default)]
pub struct ServerCounters {
    pub connections: Counter,
    pub connections_total: Counter,
    pub queries: Counter,
}

#[derive(Debug, Default)]
pub struct CacheCounters {
    pub hits: Counter,
    pub misses: Counter,
    pub stores: Counter,
    pub evictions: Counter,
    pub invalidations: Counter,
    pub size_bytes: Counter,
    pub entries: Counter,
}

impl CacheCounters {
    /// Publishes the worker's cache statistics (the cache's own counters are not atomic).
    pub fn publish(&self, s: &CacheStats) {
        self.hits.set(s.hits);
        self.misses.set(s.misses);
        self.stores.set(s.stores);
        self.evictions.set(s.evictions);
        self.invalidations.set(s.invalidations);
        self.size_bytes.set(s.size_bytes);
        self.entries.set(s.entries);
    }

    fn snapshot(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.get(),
            misses: self.misses.get(),
            stores: self.stores.get(),
            evictions: self.evictions.get(),
            invalidations: self.invalidations.get(),
            size_bytes: self.size_bytes.get(),
            entries: self.entries.get(),
        }
    }
}

/// One worker's counters. Cache-padded parts keep the hot counters of different workers on
/// different cache lines.
#[derive(Debug)]
pub struct WorkerStats {
    pub sessions: CachePadded<Counter>,
    pub sessions_total: Counter,
    pub queries: Counter,
    pub routes: [Counter; ROUTE_EVENTS.len()],
    pub classified: [Counter; CLASSES.len()],
    /// Sum over the worker's caches (one per cache name).
    pub cache: CacheCounters,
    pub servers: Box<[ServerCounters]>,
}

impl Default for WorkerStats {
    fn default() -> WorkerStats {
        WorkerStats {
            sessions: CachePadded::new(Counter::default()),
            sessions_total: Counter::default(),
            queries: Counter::default(),
            routes: Default::default(),
            classified: Default::default(),
            cache: CacheCounters::default(),
            servers: (0..MAX_SERVERS).map(|_| ServerCounters::default()).collect(),
        }
    }
}

impl WorkerStats {
    #[inline]
    pub fn route(&self, e: RouteEvent) {
        self.routes[e as usize].incr();
    }

    #[inline]
    pub fn server(&self, slot: usize) -> &ServerCounters {
        debug_assert!(slot < MAX_SERVERS);
        &self.servers[slot]
    }
}

/// Everything summed over workers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Totals {
    pub workers: usize,
    pub sessions: u64,
    pub sessions_total: u64,
    pub queries: u64,
    pub routes: [u64; ROUTE_EVENTS.len()],
    pub classified: [u64; CLASSES.len()],
    pub cache: CacheStatsTotals,
    /// Per slot: (connections, connections_total, queries).
    pub servers: Vec<(u64, u64, u64)>,
    /// Per worker: (sessions, queries).
    pub per_worker: Vec<(u64, u64)>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStatsTotals {
    pub hits: u64,
    pub misses: u64,
    pub stores: u64,
    pub evictions: u64,
    pub invalidations: u64,
    pub size_bytes: u64,
    pub entries: u64,
}

pub fn merge(workers: &[std::sync::Arc<WorkerStats>]) -> Totals {
    let mut t = Totals { workers: workers.len(), servers: vec![(0, 0, 0); MAX_SERVERS], ..Totals::default() };
    for w in workers {
        let sessions = w.sessions.get();
        let queries = w.queries.get();
        t.sessions += sessions;
        t.sessions_total += w.sessions_total.get();
        t.queries += queries;
        t.per_worker.push((sessions, queries));
        for (i, c) in w.routes.iter().enumerate() {
            t.routes[i] += c.get();
        }
        for (i, c) in w.classified.iter().enumerate() {
            t.classified[i] += c.get();
        }
        let c = w.cache.snapshot();
        t.cache.hits += c.hits;
        t.cache.misses += c.misses;
        t.cache.stores += c.stores;
        t.cache.evictions += c.evictions;
        t.cache.invalidations += c.invalidations;
        t.cache.size_bytes += c.size_bytes;
        t.cache.entries += c.entries;
        for (slot, s) in w.servers.iter().enumerate() {
            let e = &mut t.servers[slot];
            e.0 += s.connections.get();
            e.1 += s.connections_total.get();
            e.2 += s.queries.get();
        }
    }
    t
}

/// Current connections to `slot` over all workers: what least-connections routing compares.
/// Read-only loads of other workers' counters (on the connect path, not per query).
pub fn connections_to(workers: &[std::sync::Arc<WorkerStats>], slot: usize) -> u64 {
    workers.iter().map(|w| w.server(slot).connections.get()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn totals_sum_every_worker() {
        let a = Arc::new(WorkerStats::default());
        let b = Arc::new(WorkerStats::default());
        a.sessions.incr();
        a.sessions.incr();
        a.sessions.decr();
        b.sessions.incr();
        a.queries.add(5);
        b.queries.add(7);
        a.route(RouteEvent::Replica);
        b.route(RouteEvent::Replica);
        b.route(RouteEvent::WriteFailed);
        a.server(3).connections.incr();
        b.server(3).connections.incr();
        b.server(3).queries.add(9);
        a.cache.publish(&CacheStats { hits: 2, misses: 1, ..CacheStats::default() });
        b.cache.publish(&CacheStats { hits: 3, entries: 4, ..CacheStats::default() });
        let workers = vec![a, b];
        let t = merge(&workers);
        assert_eq!((t.workers, t.sessions, t.queries), (2, 2, 12));
        assert_eq!(t.routes[RouteEvent::Replica as usize], 2);
        assert_eq!(t.routes[RouteEvent::WriteFailed as usize], 1);
        assert_eq!(t.servers[3], (2, 0, 9));
        assert_eq!((t.cache.hits, t.cache.misses, t.cache.entries), (5, 1, 4));
        assert_eq!(t.per_worker, vec![(1, 5), (1, 7)]);
        assert_eq!(connections_to(&workers, 3), 2);
        assert_eq!(connections_to(&workers, 0), 0);
    }

    #[test]
    fn route_event_table_matches_discriminants() {
        for (i, (e, _)) in ROUTE_EVENTS.iter().enumerate() {
            assert_eq!(*e as usize, i);
        }
    }
}
