//! A worker thread's state. Each worker runs a single-threaded tokio runtime (started by
//! `server::spawn_worker`); the listener hands it accepted sockets as `Job`s, and every session
//! it starts (the client connection and all its backend connections) lives on it until the end.
//! Worker-local state (result caches, the copy of the monitor's snapshot) sits behind `RefCell`s
//! because only this thread touches it; what other threads read (statistics) is in
//! `WorkerStats`, written by this thread alone.
//!
//! Sessions hold a `Worker`, so this module knows nothing of sessions: the thread that runs
//! them is started in `server`.

use std::cell::RefCell;
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use crate::cache::{CacheKey, CacheShared, CacheStats, CachedResult, Lookup, ResultCache};
use crate::classifier::TableRef;
use crate::cluster::Cluster;
use crate::runtime::{ListenerRuntime, Shared};
use crate::stats::WorkerStats;
use arc_swap::cache::Cache;
use arc_swap::ArcSwap;

/// An accepted client connection on its way to a worker.
pub struct Job {
    pub stream: std::net::TcpStream,
    pub peer: SocketAddr,
    /// The listener's options at accept time (a reload may have replaced them since; the
    /// session looks up the current ones by name).
    pub listener: Arc<ListenerRuntime>,
}

/// A worker's copy of the monitor's snapshot, refreshed when the monitor publishes a new one:
/// checking for a new one is a single relaxed load, and handing it out clones an `Rc`, so the
/// query path writes no cache line shared with other threads.
struct ClusterView {
    source: Cache<Arc<ArcSwap<Cluster>>, Arc<Cluster>>,
    local: Rc<Cluster>,
    local_src: *const Cluster,
}

/// References to a `CacheShared` held by a worker's own entry: `WorkerCache::shared` and the
/// one `ResultCache::new` keeps.
const WORKER_CACHE_REFS: usize = 2;

/// A worker's handle on one result cache.
struct WorkerCache {
    shared: Arc<CacheShared>,
    cache: ResultCache,
}

pub struct Worker {
    pub index: usize,
    pub shared: Arc<Shared>,
    pub stats: Arc<WorkerStats>,
    cluster: RefCell<ClusterView>,
    caches: RefCell<Vec<WorkerCache>>,
}

impl Worker {
    pub fn new(index: usize, shared: Arc<Shared>) -> Worker {
        let mut source = Cache::new(shared.cluster.clone());
        let first = source.load().clone();
        let local_src = Arc::as_ptr(&first);
        let view = ClusterView { source, local: Rc::new((*first).clone()), local_src };
        let stats = shared.workers[index].clone();
        Worker { index, shared, stats, cluster: RefCell::new(view), caches: RefCell::new(Vec::new()) }
    }

    /// The current monitor snapshot.
    pub fn cluster(&self) -> Rc<Cluster> {
        let mut guard = self.cluster.borrow_mut();
        let ClusterView { source, local, local_src } = &mut *guard;
        let latest = source.load();
        let ptr = Arc::as_ptr(latest);
        if ptr != *local_src {
            *local = Rc::new((**latest).clone());
            *local_src = ptr;
        }
        local.clone()
    }

    /// Current connections to `slot` from every worker (least-connections routing).
    pub fn connections_to(&self, slot: usize) -> u64 {
        crate::stats::connections_to(&self.shared.workers, slot)
    }

    fn with_cache<R>(&self, shared: &Arc<CacheShared>, f: impl FnOnce(&mut ResultCache) -> R) -> R {
        let mut caches = self.caches.borrow_mut();
        let i = match caches.iter().position(|c| Arc::ptr_eq(&c.shared, shared)) {
            Some(i) => i,
            None => {
                // Caches replaced by a reload are referenced by nobody but this worker any more
                // (its entry and the handle inside it): drop them.
                caches.retain(|c| Arc::strong_count(&c.shared) > WORKER_CACHE_REFS);
                caches.push(WorkerCache { shared: shared.clone(), cache: ResultCache::new(shared.clone()) });
                caches.len() - 1
            }
        };
        let r = f(&mut caches[i].cache);
        let mut total = CacheStats::default();
        for c in caches.iter() {
            let s = c.cache.stats();
            total.hits += s.hits;
            total.misses += s.misses;
            total.stores += s.stores;
            total.evictions += s.evictions;
            total.invalidations += s.invalidations;
            total.size_bytes += s.size_bytes;
            total.entries += s.entries;
        }
        self.stats.cache.publish(&total);
        r
    }

    pub fn cache_lookup(&self, shared: &Arc<CacheShared>, key: &CacheKey, now: Instant) -> Lookup {
        self.with_cache(shared, |c| c.lookup(key, now))
    }

    pub fn cache_store(
        &self,
        shared: &Arc<CacheShared>,
        key: CacheKey,
        tables: &[TableRef],
        db: Option<&str>,
        result: CachedResult,
        now: Instant,
    ) {
        self.with_cache(shared, |c| c.store(key, tables, db, result, now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::UserTable;
    use crate::cache::{CacheConfig, CacheStorage, SelectsPolicy};
    use crate::cluster::{Health, ServerState};
    use crate::config_text::ConfigText;
    use crate::runtime::{RuntimeConfig, SlotRegistry};
    use std::sync::atomic::AtomicU32;
    use std::time::Duration;
    use tokio::sync::mpsc;

    fn shared() -> Arc<Shared> {
        let config = ConfigText::new().listener("a", 1, "readwritesplit", &[]).server("s", "h", None).parse();
        let runtime = RuntimeConfig::build(config, &mut SlotRegistry::default(), None).unwrap();
        let (monitor, _) = mpsc::unbounded_channel();
        Arc::new(Shared {
            config: ArcSwap::from_pointee(runtime),
            cluster: Arc::new(ArcSwap::from_pointee(Cluster::new(vec![ServerState::new("s", 0, "h:1")], 0))),
            users: Arc::new(ArcSwap::from_pointee(UserTable::default())),
            workers: vec![Arc::new(WorkerStats::default())],
            monitor,
            next_connection_id: AtomicU32::new(1),
            started: Instant::now(),
        })
    }

    #[test]
    fn cluster_copy_follows_publications() {
        let shared = shared();
        let w = Worker::new(0, shared.clone());
        let first = w.cluster();
        assert!(Rc::ptr_eq(&first, &w.cluster()), "no new copy without a publication");
        let mut up = ServerState::new("s", 0, "h:1");
        up.health = Health::Up;
        shared.cluster.store(Arc::new(Cluster::new(vec![up], 1)));
        let second = w.cluster();
        assert_eq!((second.generation, second.servers[0].health), (1, Health::Up));
        assert_eq!(first.generation, 0);
    }

    #[test]
    fn caches_dropped_by_a_reload_are_pruned_and_stats_published() {
        let w = Worker::new(0, shared());
        let config = || CacheConfig {
            soft_ttl: Duration::from_secs(10),
            hard_ttl: Duration::from_secs(20),
            max_size: 1 << 20,
            max_resultset_size: 1 << 16,
            storage: CacheStorage::PerWorker,
            selects: SelectsPolicy::AssumeCacheable,
        };
        let key = CacheKey { user: "u".into(), db: None, statement: b"SELECT 1".as_slice().into(), params: Vec::new() };
        let now = Instant::now();
        let old = CacheShared::new(config());
        assert!(matches!(w.cache_lookup(&old, &key, now), Lookup::Miss));
        let result = CachedResult { packets: vec![1u8, 0, 0, 0, 0].into() };
        w.cache_store(&old, key.clone(), &[], Some("db"), result, now);
        assert!(matches!(w.cache_lookup(&old, &key, now), Lookup::Fresh(_)));
        assert_eq!(w.stats.cache.hits.get(), 1);
        assert_eq!(w.stats.cache.stores.get(), 1);
        drop(old);
        let new = CacheShared::new(config());
        assert!(matches!(w.cache_lookup(&new, &key, now), Lookup::Miss));
        assert_eq!(w.caches.borrow().len(), 1, "the cache nobody else references was dropped");
        assert_eq!(w.stats.cache.hits.get(), 0, "published figures are the live caches' sums");
    }
}
