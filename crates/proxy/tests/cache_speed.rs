//! Result-cache hit cost, measured when `SELKIE_BENCH=1` (run with `--release`); prints
//! ns/lookup. The criterion version is benches/cache.rs.
//!
//! `SELKIE_BENCH=1 cargo test --release -p selkie-proxy --test proxy_tests cache_speed:: -- --nocapture`

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use selkie_proxy::cache::{
    CacheConfig, CacheKey, CacheShared, CacheStorage, CachedResult, Lookup, ResultCache, SelectsPolicy,
};
use selkie_proxy::classifier::TableRef;

const KEYS: usize = 10_000;

fn filled(storage: CacheStorage) -> (ResultCache, Vec<CacheKey>, Instant) {
    let shared = CacheShared::new(CacheConfig {
        soft_ttl: Duration::from_secs(3600),
        hard_ttl: Duration::from_secs(7200),
        max_size: 256 << 20,
        max_resultset_size: 1 << 20,
        storage,
        selects: SelectsPolicy::VerifyCacheable,
    });
    let mut c = ResultCache::new(shared);
    let now = Instant::now();
    let user: Arc<str> = "sbtest".into();
    let db: Option<Arc<str>> = Some("sbtest".into());
    let keys: Vec<CacheKey> = (0..KEYS)
        .map(|i| CacheKey {
            user: user.clone(),
            db: db.clone(),
            statement: Arc::from(format!("SELECT c FROM sbtest1 WHERE id={i}").as_bytes()),
            params: Vec::new(),
        })
        .collect();
    let tables = [TableRef { db: None, table: "sbtest1".into() }];
    for k in &keys {
        assert!(matches!(c.lookup(k, now), Lookup::Miss));
        c.store(k.clone(), &tables, Some("sbtest"), CachedResult { packets: vec![0u8; 200].into() }, now);
    }
    (c, keys, now)
}

/// The machine is shared: the fastest of many short batches (each well within a scheduler
/// time slice) estimates the uncontended cost.
fn ns_per_hit(c: &mut ResultCache, keys: &[CacheKey], now: Instant, batches: usize) -> f64 {
    const BATCH: usize = 1000;
    let mut best = f64::MAX;
    for b in 0..batches {
        let batch = &keys[(b * BATCH) % keys.len()..][..BATCH];
        let start = Instant::now();
        for k in batch {
            match c.lookup(black_box(k), now) {
                Lookup::Fresh(r) => {
                    black_box(r);
                }
                _ => panic!("expected a hit"),
            }
        }
        best = best.min(start.elapsed().as_nanos() as f64 / BATCH as f64);
    }
    best
}

#[test]
fn cache_ns_per_hit() {
    for storage in [CacheStorage::PerWorker, CacheStorage::Shared] {
        let (mut c, keys, now) = filled(storage);
        let batches = if std::env::var_os("SELKIE_BENCH").is_some() { 2000 } else { 1 };
        let ns = ns_per_hit(&mut c, &keys, now, batches);
        assert_eq!(c.stats().hits as usize, batches * 1000);
        if std::env::var_os("SELKIE_BENCH").is_some() {
            println!("cache hit ({storage:?}, {KEYS} entries): {ns:.0} ns/lookup");
        }
    }
}
