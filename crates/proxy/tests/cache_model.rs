//! The cache against a model of the database: random interleavings of lookups, queries,
//! stores, writes (to known and unknown tables) and the passing of time, over two workers.
//! Whatever the interleaving, a result the cache serves is the one a query would return now
//! (no write the proxy saw is ever hidden) and is younger than the hard TTL.
//!
//! `SELKIE_STRESS=1` runs many more cases.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use selkie_proxy::cache::{
    CacheConfig, CacheKey, CacheShared, CacheStorage, CachedResult, Lookup, ResultCache, SelectsPolicy,
};
use selkie_proxy::classifier::TableRef;

const TABLES: usize = 4;
const KEYS: usize = 6;
const HARD: Duration = Duration::from_secs(20);

/// The tables key `k` reads (every key reads one or two tables; key 5 reads none).
fn key_tables(k: usize) -> Vec<usize> {
    match k {
        0 => vec![0],
        1 => vec![1],
        2 => vec![0, 1],
        3 => vec![2, 3],
        4 => vec![3],
        _ => vec![],
    }
}

fn table_ref(t: usize) -> TableRef {
    // Half the references are qualified with the default database: both must meet.
    if t.is_multiple_of(2) {
        TableRef { db: None, table: format!("t{t}") }
    } else {
        TableRef { db: Some("shop".into()), table: format!("T{t}") }
    }
}

fn cache_key(k: usize) -> CacheKey {
    CacheKey {
        user: "u".into(),
        db: Some("shop".into()),
        statement: Arc::from(format!("q{k}").as_bytes()),
        params: Vec::new(),
    }
}

#[derive(Clone, Debug)]
enum Op {
    /// Worker w looks key k up; on a miss or refresh its query becomes pending.
    Lookup {
        w: usize,
        k: usize,
    },
    /// Worker w's pending query for k runs against the current data.
    Run {
        w: usize,
        k: usize,
    },
    /// Worker w stores the result of its query for k.
    Store {
        w: usize,
        k: usize,
    },
    /// A write to table t commits, then the proxy invalidates it (by name, or as "unknown").
    Write {
        t: usize,
        unknown: bool,
    },
    Advance {
        secs: u64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..2usize, 0..KEYS).prop_map(|(w, k)| Op::Lookup { w, k }),
        3 => (0..2usize, 0..KEYS).prop_map(|(w, k)| Op::Run { w, k }),
        3 => (0..2usize, 0..KEYS).prop_map(|(w, k)| Op::Store { w, k }),
        2 => (0..TABLES, prop::bool::weighted(0.2)).prop_map(|(t, unknown)| Op::Write { t, unknown }),
        1 => (1..8u64).prop_map(|secs| Op::Advance { secs }),
    ]
}

/// What a query for key k returns given the table versions.
fn query(k: usize, versions: &[u64; TABLES]) -> Vec<u8> {
    let mut out = vec![k as u8];
    for t in key_tables(k) {
        out.extend_from_slice(&versions[t].to_le_bytes());
    }
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Pending {
    /// Looked up, query not yet run.
    Wanted,
    /// Query ran; its result waits to be stored.
    Ran,
}

fn run(storage: CacheStorage, ops: &[Op]) -> Result<(), TestCaseError> {
    let shared = CacheShared::new(CacheConfig {
        soft_ttl: Duration::from_secs(5),
        hard_ttl: HARD,
        max_size: 1 << 20,
        max_resultset_size: 1 << 16,
        storage,
        selects: SelectsPolicy::AssumeCacheable,
    });
    let mut workers = [ResultCache::new(shared.clone()), ResultCache::new(shared.clone())];
    let mut versions = [0u64; TABLES];
    let mut now = Instant::now();
    // (worker, key) -> (state, result of the query once run)
    let mut pending: HashMap<(usize, usize), (Pending, Vec<u8>)> = HashMap::new();
    // When each (storage owner, key)'s current entry was stored, to check the hard TTL.
    let mut stored_at: HashMap<(usize, usize), Instant> = HashMap::new();
    let owner = |w: usize| if storage == CacheStorage::Shared { 0 } else { w };
    let mut served = 0;
    for op in ops {
        match *op {
            Op::Lookup { w, k } => {
                let served_result = match workers[w].lookup(&cache_key(k), now) {
                    Lookup::Miss => {
                        pending.entry((w, k)).or_insert((Pending::Wanted, Vec::new()));
                        None
                    }
                    Lookup::StaleRefresh(r) => {
                        pending.insert((w, k), (Pending::Wanted, Vec::new()));
                        Some(r)
                    }
                    Lookup::Fresh(r) => Some(r),
                };
                if let Some(r) = served_result {
                    served += 1;
                    prop_assert_eq!(&*r.packets, &query(k, &versions)[..], "stale result served for key {}", k);
                    let at = stored_at.get(&(owner(w), k)).copied();
                    prop_assert!(at.is_some_and(|at| now.duration_since(at) < HARD), "served past the hard TTL");
                }
            }
            Op::Run { w, k } => {
                if let Some(p) = pending.get_mut(&(w, k)) {
                    if p.0 == Pending::Wanted {
                        *p = (Pending::Ran, query(k, &versions));
                    }
                }
            }
            Op::Store { w, k } => {
                if let Some((Pending::Ran, result)) = pending.get(&(w, k)).cloned() {
                    pending.remove(&(w, k));
                    let tables: Vec<TableRef> = key_tables(k).into_iter().map(table_ref).collect();
                    let before = workers[w].stats().stores;
                    workers[w].store(cache_key(k), &tables, Some("shop"), CachedResult { packets: result.into() }, now);
                    if workers[w].stats().stores > before {
                        stored_at.insert((owner(w), k), now);
                    }
                }
            }
            Op::Write { t, unknown } => {
                versions[t] += 1;
                if unknown {
                    shared.invalidate(&[], Some("shop"));
                } else {
                    shared.invalidate(&[table_ref(t)], Some("shop"));
                }
            }
            Op::Advance { secs } => now += Duration::from_secs(secs),
        }
    }
    let _ = served;
    Ok(())
}

fn cases() -> u32 {
    if std::env::var_os("SELKIE_STRESS").is_some() {
        20_000
    } else {
        200
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn per_worker_cache_never_serves_stale_or_expired_results(ops in prop::collection::vec(op(), 1..120)) {
        run(CacheStorage::PerWorker, &ops)?;
    }

    #[test]
    fn shared_cache_never_serves_stale_or_expired_results(ops in prop::collection::vec(op(), 1..120)) {
        run(CacheStorage::Shared, &ops)?;
    }
}

/// The model test would pass for a cache that never caches; this one shows it does cache.
#[test]
fn the_model_workload_does_hit() {
    let ops: Vec<Op> = (0..KEYS)
        .flat_map(|k| {
            [
                Op::Lookup { w: 0, k },
                Op::Run { w: 0, k },
                Op::Store { w: 0, k },
                Op::Lookup { w: 0, k },
                Op::Lookup { w: 0, k },
            ]
        })
        .collect();
    let shared = CacheShared::new(CacheConfig {
        soft_ttl: Duration::ZERO,
        hard_ttl: HARD,
        max_size: 1 << 20,
        max_resultset_size: 1 << 16,
        storage: CacheStorage::PerWorker,
        selects: SelectsPolicy::AssumeCacheable,
    });
    let mut c = ResultCache::new(shared);
    let now = Instant::now();
    let versions = [0u64; TABLES];
    for op in &ops {
        match *op {
            Op::Lookup { k, .. } => {
                let _ = c.lookup(&cache_key(k), now);
            }
            Op::Store { k, .. } => {
                let tables: Vec<TableRef> = key_tables(k).into_iter().map(table_ref).collect();
                c.store(cache_key(k), &tables, Some("shop"), CachedResult { packets: query(k, &versions).into() }, now);
            }
            _ => {}
        }
    }
    let s = c.stats();
    assert_eq!((s.misses, s.hits, s.stores), (KEYS as u64, 2 * KEYS as u64, KEYS as u64), "{s:?}");
}
