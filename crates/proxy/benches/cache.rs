//! Criterion benchmark of a result-cache hit (per-worker and shared storage).
//! Needs in crates/proxy/Cargo.toml: `criterion` in [dev-dependencies] and
//! `[[bench]] name = "cache" harness = false`.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use selkie_proxy::cache::{
    CacheConfig, CacheKey, CacheShared, CacheStorage, CachedResult, Lookup, ResultCache, SelectsPolicy,
};
use selkie_proxy::classifier::TableRef;

fn hits(c: &mut Criterion) {
    for storage in [CacheStorage::PerWorker, CacheStorage::Shared] {
        let shared = CacheShared::new(CacheConfig {
            soft_ttl: Duration::from_secs(3600),
            hard_ttl: Duration::from_secs(7200),
            max_size: 64 << 20,
            max_resultset_size: 1 << 20,
            storage,
            selects: SelectsPolicy::VerifyCacheable,
        });
        let mut cache = ResultCache::new(shared);
        let now = Instant::now();
        let key = CacheKey {
            user: "sbtest".into(),
            db: Some("sbtest".into()),
            statement: Arc::from(&b"SELECT c FROM sbtest1 WHERE id=?"[..]),
            params: vec![0, 45, 3, 0, 1, 0x8c, 0x13, 0, 0],
        };
        assert!(matches!(cache.lookup(&key, now), Lookup::Miss));
        let tables = [TableRef { db: None, table: "sbtest1".into() }];
        cache.store(key.clone(), &tables, Some("sbtest"), CachedResult { packets: vec![0u8; 200].into() }, now);
        c.bench_function(&format!("cache hit {storage:?}"), |b| {
            b.iter(|| match cache.lookup(black_box(&key), now) {
                Lookup::Fresh(r) => r,
                _ => unreachable!("the entry is fresh"),
            })
        });
    }
}

criterion_group!(benches, hits);
criterion_main!(benches);
