//! Result-set cache for SELECT (MaxScale's cache filter): key = (user, default database,
//! statement text, parameters of a prepared statement); soft and hard TTL; max size; storage per
//! worker (default) or shared; invalidation of a table's entries when the proxy sees a write to it.
//!
//! The router is the only caller: it looks up before sending a SELECT, stores what comes back
//! and invalidates on writes. The rules below are what keeps a cached result from outliving a
//! write the client could have seen, so the router depends on them as much as on the signatures.
//!
//! Cross-worker invalidation without locks on lookups: a process-wide table of per-table
//! generation counters (sharded atomics). An entry remembers the generations of its tables when
//! stored; a lookup compares them (reads only). A write bumps its tables' generations.
//!
//! Precisely (see `generations`): a global epoch numbers invalidations; a lookup that misses
//! (or is chosen to refresh) records the epoch *before* the query is sent, and `store` checks
//! that none of the result's tables was invalidated since that epoch, so a write that commits
//! while the query runs can never leave its result cached. This needs two things from the
//! router:
//! - **Store only what this handle looked up.** `store` uses the epoch its `lookup` recorded
//!   for the key (Miss or StaleRefresh); a store without one is ignored.
//! - **Invalidate after the write is visible**: after the backend's OK of an autocommit write,
//!   and again after COMMIT (readers may have cached pre-commit data while the transaction
//!   ran), before the OK is passed on to the client. `invalidate(&[], ..)` (a write whose
//!   tables the classifier could not list: CALL, stored functions, GRANT, ...) invalidates
//!   everything.
//!
//! Known limits (as in MaxScale): writes the proxy cannot see as writes to a table are not
//! invalidated: triggers, ON DELETE/UPDATE CASCADE, writes through views, and reads through
//! views of written base tables. Those results live until their TTL. A temporary table shadows
//! a base table only for its session: the router must bypass the cache for pinned sessions.
//!
//! Storage: `PerWorker`, each `ResultCache` owns an LRU store (no locks at all); `Shared`, the
//! stores are `SHARED_SHARDS` mutex-protected shards of `CacheShared` (each with 1/SHARED_SHARDS
//! of `max_size`), picked by key hash.

mod generations;
mod store;
mod types;

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::classifier::TableRef;
use generations::{slots_of, Generations};
use store::{Entry, HashIndex, LruStore};
pub use types::{CacheKey, CachedResult};

/// Shards of the shared storage (a power of two; the key hash picks one).
pub const SHARED_SHARDS: usize = 16;
/// Lookups awaiting their store, per handle; beyond this the oldest records are dropped (their
/// stores are then skipped, which is always safe).
const MAX_PENDING_STORES: usize = 4096;
/// A caller handed `StaleRefresh` that has not stored within this long is presumed to have
/// failed: the next caller becomes the refresher (matters when the hard TTL is unlimited).
pub const REFRESH_CLAIM_TIMEOUT: Duration = Duration::from_secs(30);
const _: () = assert!(SHARED_SHARDS.is_power_of_two());

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheStorage {
    /// One cache per worker thread: no sharing, no locks (default).
    PerWorker,
    /// One cache shared by all workers (sharded mutexes).
    Shared,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectsPolicy {
    /// Cache every SELECT the classifier marks Cacheable or NonDeterministic.
    AssumeCacheable,
    /// Cache only Cacheable ones.
    VerifyCacheable,
}

/// `Duration::ZERO` for a TTL means no limit (MaxScale's convention); a soft TTL above the
/// hard one is lowered to it.
#[derive(Clone, Debug)]
pub struct CacheConfig {
    pub soft_ttl: Duration,
    pub hard_ttl: Duration,
    /// Bytes of cached results per cache instance (per worker when PerWorker).
    pub max_size: usize,
    /// Largest single result to cache.
    pub max_resultset_size: usize,
    pub storage: CacheStorage,
    pub selects: SelectsPolicy,
}

/// Outcome of a lookup.
#[derive(Debug)]
pub enum Lookup {
    Miss,
    /// Fresh (younger than soft TTL): serve it.
    Fresh(CachedResult),
    /// Older than soft TTL but younger than hard TTL: serve it, and this caller was chosen to
    /// refresh it from the backend (others keep getting `Fresh` of the stale entry meanwhile).
    StaleRefresh(CachedResult),
}

/// Process-wide state (table generations; the shared storage when `Shared`).
pub struct CacheShared {
    config: CacheConfig,
    /// None: no limit.
    soft_ttl: Option<Duration>,
    hard_ttl: Option<Duration>,
    generations: Generations,
    /// Keyed hash of cache keys: clients choose statement texts, so collisions must not be
    /// theirs to choose.
    hasher: RandomState,
    /// The shared storage (empty when `PerWorker`).
    shards: Box<[Mutex<LruStore>]>,
}

/// A worker's handle (its own storage when `PerWorker`).
pub struct ResultCache {
    shared: Arc<CacheShared>,
    /// The worker's own storage when `PerWorker`.
    local: Option<LruStore>,
    /// Key hash -> invalidation epoch read when the key was looked up (see `store`).
    pending: HashIndex<u64>,
    counters: CacheStats,
}

impl CacheShared {
    pub fn new(config: CacheConfig) -> Arc<CacheShared> {
        let limit = |d: Duration| (!d.is_zero()).then_some(d);
        let hard_ttl = limit(config.hard_ttl);
        let soft_ttl = match (limit(config.soft_ttl), hard_ttl) {
            (Some(soft), Some(hard)) => Some(soft.min(hard)),
            (soft, _) => soft,
        };
        let shards = match config.storage {
            CacheStorage::PerWorker => Box::default(),
            CacheStorage::Shared => {
                (0..SHARED_SHARDS).map(|_| Mutex::new(LruStore::new(config.max_size / SHARED_SHARDS))).collect()
            }
        };
        Arc::new(CacheShared {
            config,
            soft_ttl,
            hard_ttl,
            generations: Generations::new(),
            hasher: RandomState::new(),
            shards,
        })
    }

    /// A write to these tables was seen (by any worker): entries that read them become invalid.
    /// Unqualified names are in `default_db`. An empty list means the written tables are not
    /// known (the classifier's `writes` with no `tables`): every entry becomes invalid; so does
    /// an unqualified name without a default database.
    pub fn invalidate(&self, tables: &[TableRef], default_db: Option<&str>) {
        match slots_of(tables, default_db) {
            Some(slots) if !tables.is_empty() => self.generations.invalidate(&slots),
            _ => self.generations.invalidate_everything(),
        }
    }

    pub fn config(&self) -> &CacheConfig {
        &self.config
    }

    /// Size and entries of the shared storage (zero when `PerWorker`: each handle's `stats`
    /// reports its own storage then).
    pub fn shared_storage_stats(&self) -> CacheStats {
        let mut s = CacheStats::default();
        for shard in self.shards.iter() {
            let shard = shard.lock();
            s.size_bytes += shard.size() as u64;
            s.entries += shard.len() as u64;
        }
        s
    }

    fn shard(&self, hash: u64) -> &Mutex<LruStore> {
        debug_assert!(!self.shards.is_empty());
        // The high bits: the per-shard index uses the whole hash.
        &self.shards[(hash >> 58) as usize & (SHARED_SHARDS - 1)]
    }

    fn max_entry_size(&self) -> usize {
        match self.config.storage {
            CacheStorage::PerWorker => self.config.max_size,
            CacheStorage::Shared => self.config.max_size / SHARED_SHARDS,
        }
    }
}

/// Per-worker counters, merged by the admin endpoint.
///
/// `misses` include lookups that found an entry invalidated by a write (also counted in
/// `invalidations`) or past its hard TTL (also counted in `evictions`, with entries evicted
/// for space). `size_bytes`/`entries` describe the handle's own storage (`PerWorker`); in
/// `Shared` mode they are zero here and `CacheShared::shared_storage_stats` has them.
#[derive(Clone, Copy, Debug, Default)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub stores: u64,
    pub evictions: u64,
    pub invalidations: u64,
    pub size_bytes: u64,
    pub entries: u64,
}

/// What a probe of a store found.
enum Probe {
    Hit(CachedResult),
    /// Past the soft TTL and this caller refreshes it.
    Refresh(CachedResult),
    Miss,
    Invalidated,
    Expired,
}

fn probe(store: &mut LruStore, shared: &CacheShared, hash: u64, key: &CacheKey, now: Instant) -> Probe {
    let Some(i) = store.find(hash, key) else { return Probe::Miss };
    let entry = store.entry_mut(i);
    if !shared.generations.unchanged_since(&entry.slots, entry.as_of) {
        store.remove(i);
        return Probe::Invalidated;
    }
    let age = now.saturating_duration_since(entry.stored_at);
    if shared.hard_ttl.is_some_and(|hard| age >= hard) {
        store.remove(i);
        return Probe::Expired;
    }
    let stale = shared.soft_ttl.is_some_and(|soft| age >= soft);
    let claim_open = entry.refresh_claimed_at.is_none_or(|t| now.saturating_duration_since(t) >= REFRESH_CLAIM_TIMEOUT);
    let outcome = if stale && claim_open {
        entry.refresh_claimed_at = Some(now);
        Probe::Refresh(entry.result.clone())
    } else {
        Probe::Hit(entry.result.clone())
    };
    store.touch(i);
    outcome
}

impl ResultCache {
    pub fn new(shared: Arc<CacheShared>) -> ResultCache {
        let local = match shared.config.storage {
            CacheStorage::PerWorker => Some(LruStore::new(shared.config.max_size)),
            CacheStorage::Shared => None,
        };
        ResultCache { shared, local, pending: HashIndex::default(), counters: CacheStats::default() }
    }

    pub fn lookup(&mut self, key: &CacheKey, now: Instant) -> Lookup {
        let ResultCache { shared, local, pending, counters } = self;
        let hash = shared.hasher.hash_one(key);
        let found = match local {
            Some(store) => probe(store, shared, hash, key, now),
            None => probe(&mut shared.shard(hash).lock(), shared, hash, key, now),
        };
        let lookup = match found {
            Probe::Hit(r) => Lookup::Fresh(r),
            Probe::Refresh(r) => Lookup::StaleRefresh(r),
            Probe::Miss => Lookup::Miss,
            Probe::Invalidated => {
                counters.invalidations += 1;
                Lookup::Miss
            }
            Probe::Expired => {
                counters.evictions += 1;
                Lookup::Miss
            }
        };
        match lookup {
            Lookup::Fresh(_) => counters.hits += 1,
            Lookup::StaleRefresh(_) => counters.hits += 1,
            Lookup::Miss => counters.misses += 1,
        }
        if !matches!(lookup, Lookup::Fresh(_)) {
            // The result about to be fetched must be checked against writes from now on.
            if pending.len() >= MAX_PENDING_STORES {
                pending.clear();
            }
            // Two sessions fetching the same key: the older epoch is the safe one to keep.
            pending.entry(hash).or_insert_with(|| shared.generations.current());
        }
        lookup
    }

    /// Stores a complete result read from `tables` (skipped if larger than max_resultset_size).
    ///
    /// Also skipped, leaving nothing stale behind: when this handle did not look the key up
    /// (no epoch to check the result against), when a table was written since that lookup,
    /// when an unqualified table has no database to resolve in, and when the entry would not
    /// fit in the storage at all.
    pub fn store(
        &mut self,
        key: CacheKey,
        tables: &[TableRef],
        default_db: Option<&str>,
        result: CachedResult,
        now: Instant,
    ) {
        let ResultCache { shared, local, pending, counters } = self;
        let hash = shared.hasher.hash_one(&key);
        let Some(as_of) = pending.remove(&hash) else { return };
        let size = Entry::charge(&key, &result);
        let slots = slots_of(tables, default_db)
            .filter(|_| result.packets.len() <= shared.config.max_resultset_size && size <= shared.max_entry_size())
            .filter(|slots| shared.generations.unchanged_since(slots, as_of));
        let mut guard;
        let store = match local {
            Some(store) => store,
            None => {
                guard = shared.shard(hash).lock();
                &mut *guard
            }
        };
        let Some(slots) = slots else {
            // What is cached for the key, if anything, is older than this result: drop it
            // rather than keep serving it (and holding its refresh claim).
            if let Some(i) = store.find(hash, &key) {
                store.remove(i);
            }
            return;
        };
        let entry = Entry { key, result, slots, as_of, stored_at: now, refresh_claimed_at: None, size };
        counters.evictions += store.insert(hash, entry);
        counters.stores += 1;
    }

    pub fn stats(&self) -> CacheStats {
        let (size_bytes, entries) = self.local.as_ref().map_or((0, 0), |s| (s.size() as u64, s.len() as u64));
        CacheStats { size_bytes, entries, ..self.counters }
    }
}
