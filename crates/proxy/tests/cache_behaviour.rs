//! The result cache's contract, with explicit instants: TTLs and the single refresher, LRU
//! eviction and size accounting, invalidation across handles, the race between a running
//! query and a write, and the shared storage.
//!
//! Run: `cargo test -p selkie-proxy --test proxy_tests cache_behaviour::`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use selkie_proxy::cache::{
    CacheConfig, CacheKey, CacheShared, CacheStorage, CachedResult, Lookup, ResultCache, SelectsPolicy,
    REFRESH_CLAIM_TIMEOUT, SHARED_SHARDS,
};
use selkie_proxy::classifier::TableRef;

const SOFT: Duration = Duration::from_secs(10);
const HARD: Duration = Duration::from_secs(30);

fn config(storage: CacheStorage) -> CacheConfig {
    CacheConfig {
        soft_ttl: SOFT,
        hard_ttl: HARD,
        max_size: 1 << 20,
        max_resultset_size: 64 << 10,
        storage,
        selects: SelectsPolicy::VerifyCacheable,
    }
}

fn key(sql: &str) -> CacheKey {
    key_in(sql, Some("shop"))
}

fn key_in(sql: &str, db: Option<&str>) -> CacheKey {
    CacheKey { user: "app".into(), db: db.map(Arc::from), statement: Arc::from(sql.as_bytes()), params: Vec::new() }
}

fn table(name: &str) -> TableRef {
    TableRef { db: None, table: name.into() }
}

fn qualified(db: &str, name: &str) -> TableRef {
    TableRef { db: Some(db.into()), table: name.into() }
}

fn result(bytes: &[u8]) -> CachedResult {
    CachedResult { packets: Arc::from(bytes) }
}

fn fresh(l: Lookup) -> Option<Vec<u8>> {
    match l {
        Lookup::Fresh(r) => Some(r.packets.to_vec()),
        _ => None,
    }
}

fn is_miss(l: &Lookup) -> bool {
    matches!(l, Lookup::Miss)
}

/// Looks `k` up (it must miss) and stores `bytes` for it, as the router does.
fn fill(c: &mut ResultCache, k: &CacheKey, tables: &[TableRef], bytes: &[u8], now: Instant) {
    assert!(is_miss(&c.lookup(k, now)), "{k:?} was expected to miss");
    c.store(k.clone(), tables, Some("shop"), result(bytes), now);
}

#[test]
fn fresh_until_soft_ttl_then_exactly_one_refresher_then_miss_at_hard_ttl() {
    let shared = CacheShared::new(config(CacheStorage::PerWorker));
    let mut c = ResultCache::new(shared);
    let t0 = Instant::now();
    let k = key("SELECT c FROM sbtest1 WHERE id=1");
    fill(&mut c, &k, &[table("sbtest1")], b"v1", t0);

    assert_eq!(fresh(c.lookup(&k, t0)), Some(b"v1".to_vec()));
    assert_eq!(fresh(c.lookup(&k, t0 + SOFT - Duration::from_millis(1))), Some(b"v1".to_vec()));

    // Past the soft TTL: the first caller refreshes, the others keep getting the stale entry.
    match c.lookup(&k, t0 + SOFT) {
        Lookup::StaleRefresh(r) => assert_eq!(&*r.packets, b"v1"),
        _ => panic!("first caller after the soft TTL must refresh"),
    }
    for s in 1..5 {
        assert_eq!(fresh(c.lookup(&k, t0 + SOFT + Duration::from_secs(s))), Some(b"v1".to_vec()));
    }
    // The refresher stores: fresh again, with a new age.
    let t1 = t0 + SOFT + Duration::from_secs(5);
    c.store(k.clone(), &[table("sbtest1")], Some("shop"), result(b"v2"), t1);
    assert_eq!(fresh(c.lookup(&k, t1 + SOFT - Duration::from_millis(1))), Some(b"v2".to_vec()));
    assert!(matches!(c.lookup(&k, t1 + SOFT), Lookup::StaleRefresh(_)));
    // Never served at or past the hard TTL, refresher or not.
    assert!(is_miss(&c.lookup(&k, t1 + HARD)));
    let s = c.stats();
    assert_eq!((s.stores, s.entries, s.evictions), (2, 0, 1), "{s:?}");
}

#[test]
fn hard_ttl_is_absolute_even_without_a_soft_ttl() {
    let shared = CacheShared::new(CacheConfig { soft_ttl: Duration::ZERO, ..config(CacheStorage::PerWorker) });
    let mut c = ResultCache::new(shared);
    let t0 = Instant::now();
    let k = key("SELECT 1");
    fill(&mut c, &k, &[], b"one", t0);
    // No soft TTL: fresh until the hard one, never StaleRefresh.
    assert!(fresh(c.lookup(&k, t0 + HARD - Duration::from_nanos(1))).is_some());
    assert!(is_miss(&c.lookup(&k, t0 + HARD)));
}

#[test]
fn soft_ttl_above_hard_ttl_is_lowered_to_it() {
    let shared = CacheShared::new(CacheConfig { soft_ttl: HARD * 2, ..config(CacheStorage::PerWorker) });
    let mut c = ResultCache::new(shared);
    let t0 = Instant::now();
    let k = key("SELECT 1");
    fill(&mut c, &k, &[], b"one", t0);
    assert!(is_miss(&c.lookup(&k, t0 + HARD)));
}

#[test]
fn refresh_claim_lapses_when_the_refresher_never_stores() {
    // No hard TTL: without the claim timeout the stale entry would be served forever.
    let shared = CacheShared::new(CacheConfig { hard_ttl: Duration::ZERO, ..config(CacheStorage::PerWorker) });
    let mut c = ResultCache::new(shared);
    let t0 = Instant::now();
    let k = key("SELECT 1");
    fill(&mut c, &k, &[], b"one", t0);
    assert!(matches!(c.lookup(&k, t0 + SOFT), Lookup::StaleRefresh(_)));
    assert!(fresh(c.lookup(&k, t0 + SOFT + REFRESH_CLAIM_TIMEOUT - Duration::from_millis(1))).is_some());
    assert!(matches!(c.lookup(&k, t0 + SOFT + REFRESH_CLAIM_TIMEOUT), Lookup::StaleRefresh(_)));
}

#[test]
fn lru_eviction_and_size_accounting() {
    // Room for exactly three of these entries (one charge includes key and overhead).
    let probe_shared = CacheShared::new(config(CacheStorage::PerWorker));
    let mut probe = ResultCache::new(probe_shared);
    let t0 = Instant::now();
    fill(&mut probe, &key("SELECT 0"), &[], &[7u8; 1000], t0);
    let one = probe.stats().size_bytes as usize;
    assert!(one > 1000, "the charge covers the result and the key");

    let shared = CacheShared::new(CacheConfig { max_size: 3 * one, ..config(CacheStorage::PerWorker) });
    let mut c = ResultCache::new(shared);
    let keys: Vec<CacheKey> = (1..=4).map(|i| key(&format!("SELECT {i}"))).collect();
    for k in &keys[..3] {
        fill(&mut c, k, &[], &[7u8; 1000], t0);
    }
    assert_eq!((c.stats().entries, c.stats().size_bytes as usize), (3, 3 * one));
    // Use 1 and 3: 2 becomes least recently used.
    assert!(fresh(c.lookup(&keys[0], t0)).is_some());
    assert!(fresh(c.lookup(&keys[2], t0)).is_some());
    fill(&mut c, &keys[3], &[], &[7u8; 1000], t0);
    let s = c.stats();
    assert_eq!((s.entries, s.size_bytes as usize, s.evictions), (3, 3 * one, 1));
    assert!(is_miss(&c.lookup(&keys[1], t0)), "the least recently used entry was evicted");
    for k in [&keys[0], &keys[2], &keys[3]] {
        assert!(fresh(c.lookup(k, t0)).is_some());
    }
    // Replacing an entry with a bigger result frees the old size first.
    assert!(matches!(c.lookup(&keys[0], t0 + SOFT), Lookup::StaleRefresh(_)));
    c.store(keys[0].clone(), &[], Some("shop"), result(&[1u8; 1500]), t0 + SOFT);
    let s = c.stats();
    assert!(s.size_bytes as usize <= 3 * one, "{s:?}");
    assert_eq!(fresh(c.lookup(&keys[0], t0 + SOFT)).map(|v| v.len()), Some(1500));
}

#[test]
fn oversized_results_are_not_stored_and_drop_what_they_replace() {
    let shared = CacheShared::new(CacheConfig { max_resultset_size: 100, ..config(CacheStorage::PerWorker) });
    let mut c = ResultCache::new(shared);
    let t0 = Instant::now();
    let k = key("SELECT * FROM t");
    fill(&mut c, &k, &[table("t")], &[1u8; 101], t0);
    assert!(is_miss(&c.lookup(&k, t0)));
    c.store(k.clone(), &[table("t")], Some("shop"), result(&[1u8; 100]), t0);
    assert!(fresh(c.lookup(&k, t0)).is_some(), "exactly max_resultset_size is allowed");
    // The refresher's new result is too big: the stale entry goes rather than linger.
    assert!(matches!(c.lookup(&k, t0 + SOFT), Lookup::StaleRefresh(_)));
    c.store(k.clone(), &[table("t")], Some("shop"), result(&[1u8; 500]), t0 + SOFT);
    assert!(is_miss(&c.lookup(&k, t0 + SOFT)));
    assert_eq!(c.stats().entries, 0);
}

#[test]
fn a_write_seen_by_another_worker_invalidates_only_its_tables() {
    let shared = CacheShared::new(config(CacheStorage::PerWorker));
    let mut worker_a = ResultCache::new(shared.clone());
    let mut worker_b = ResultCache::new(shared.clone());
    let t0 = Instant::now();
    let orders = key("SELECT * FROM orders");
    let customers = key("SELECT * FROM customers");
    let join = key("SELECT * FROM orders JOIN customers USING (id)");
    fill(&mut worker_a, &orders, &[table("orders")], b"o", t0);
    fill(&mut worker_a, &customers, &[qualified("shop", "customers")], b"c", t0);
    fill(&mut worker_a, &join, &[table("orders"), table("customers")], b"oc", t0);
    fill(&mut worker_b, &orders, &[table("orders")], b"o", t0);

    // Worker B sees UPDATE shop.ORDERS (qualified, other case): unqualified entries in the
    // default database shop are invalid on both workers.
    shared.invalidate(&[qualified("shop", "ORDERS")], Some("elsewhere"));
    assert!(is_miss(&worker_a.lookup(&orders, t0)));
    assert!(is_miss(&worker_a.lookup(&join, t0)));
    assert!(is_miss(&worker_b.lookup(&orders, t0)));
    assert_eq!(fresh(worker_a.lookup(&customers, t0)), Some(b"c".to_vec()));
    assert_eq!(worker_a.stats().invalidations, 2);

    // A write to the same table name in another database leaves shop's entries alone.
    fill(&mut worker_a, &orders, &[table("orders")], b"o2", t0);
    shared.invalidate(&[table("orders")], Some("archive"));
    assert_eq!(fresh(worker_a.lookup(&orders, t0)), Some(b"o2".to_vec()));
}

#[test]
fn writes_with_unknown_tables_invalidate_everything() {
    let shared = CacheShared::new(config(CacheStorage::PerWorker));
    let mut c = ResultCache::new(shared.clone());
    let t0 = Instant::now();
    let keys = [key("SELECT * FROM a"), key("SELECT * FROM b"), key("SELECT 1")];
    fill(&mut c, &keys[0], &[table("a")], b"a", t0);
    fill(&mut c, &keys[1], &[qualified("other", "b")], b"b", t0);
    fill(&mut c, &keys[2], &[], b"1", t0);
    // CALL p(): the classifier's writes with an empty table list.
    shared.invalidate(&[], Some("shop"));
    for k in &keys {
        assert!(is_miss(&c.lookup(k, t0)), "{k:?}");
    }
    // An unqualified write with no default database cannot be resolved: everything too.
    fill(&mut c, &keys[0], &[table("a")], b"a", t0);
    shared.invalidate(&[table("zzz")], None);
    assert!(is_miss(&c.lookup(&keys[0], t0)));
}

#[test]
fn a_write_during_the_query_keeps_its_result_out() {
    let shared = CacheShared::new(config(CacheStorage::PerWorker));
    let mut c = ResultCache::new(shared.clone());
    let t0 = Instant::now();
    let k = key("SELECT * FROM t");
    assert!(is_miss(&c.lookup(&k, t0)));
    // The query runs; meanwhile another session's write to t commits and is invalidated.
    shared.invalidate(&[table("t")], Some("shop"));
    c.store(k.clone(), &[table("t")], Some("shop"), result(b"before the write"), t0);
    assert!(is_miss(&c.lookup(&k, t0)), "a result older than a write must not be cached");
    // A write to another table does not prevent caching.
    shared.invalidate(&[table("u")], Some("shop"));
    c.store(k.clone(), &[table("t")], Some("shop"), result(b"after the write"), t0);
    assert_eq!(fresh(c.lookup(&k, t0)), Some(b"after the write".to_vec()));
}

#[test]
fn stores_without_a_lookup_or_database_are_ignored() {
    let shared = CacheShared::new(config(CacheStorage::PerWorker));
    let mut a = ResultCache::new(shared.clone());
    let mut b = ResultCache::new(shared);
    let t0 = Instant::now();
    let k = key("SELECT * FROM t");
    a.store(k.clone(), &[table("t")], Some("shop"), result(b"x"), t0);
    assert!(is_miss(&a.lookup(&k, t0)), "no lookup recorded the epoch: not stored");
    // Looked up by a, stored by b: b has no epoch for it either.
    b.store(k.clone(), &[table("t")], Some("shop"), result(b"x"), t0);
    assert!(is_miss(&b.lookup(&k, t0)));
    // An unqualified table with no default database: nothing to invalidate it by.
    let k2 = key_in("SELECT * FROM t", None);
    assert!(is_miss(&a.lookup(&k2, t0)));
    a.store(k2.clone(), &[table("t")], None, result(b"x"), t0);
    assert!(is_miss(&a.lookup(&k2, t0)));
    assert_eq!(a.stats().stores, 0);
}

#[test]
fn keys_differ_by_user_database_statement_and_parameters() {
    let shared = CacheShared::new(config(CacheStorage::PerWorker));
    let mut c = ResultCache::new(shared);
    let t0 = Instant::now();
    let base = CacheKey {
        user: "app".into(),
        db: Some("shop".into()),
        statement: Arc::from(&b"SELECT ?"[..]),
        params: vec![1],
    };
    fill(&mut c, &base, &[], b"base", t0);
    let variants = [
        CacheKey { user: "other".into(), ..base.clone() },
        CacheKey { db: Some("archive".into()), ..base.clone() },
        CacheKey { db: None, ..base.clone() },
        CacheKey { statement: Arc::from(&b"SELECT  ?"[..]), ..base.clone() },
        CacheKey { params: vec![2], ..base.clone() },
    ];
    for v in &variants {
        assert!(is_miss(&c.lookup(v, t0)), "{v:?}");
    }
    assert_eq!(fresh(c.lookup(&base, t0)), Some(b"base".to_vec()));
}

#[test]
fn shared_storage_serves_every_worker_with_one_refresher() {
    let shared = CacheShared::new(config(CacheStorage::Shared));
    let mut a = ResultCache::new(shared.clone());
    let mut b = ResultCache::new(shared.clone());
    let t0 = Instant::now();
    let k = key("SELECT * FROM t");
    fill(&mut a, &k, &[table("t")], b"x", t0);
    assert_eq!(fresh(b.lookup(&k, t0)), Some(b"x".to_vec()), "stored by a, served to b");
    assert!(matches!(b.lookup(&k, t0 + SOFT), Lookup::StaleRefresh(_)));
    assert!(fresh(a.lookup(&k, t0 + SOFT)).is_some(), "one refresher across workers");
    let s = shared.shared_storage_stats();
    assert_eq!(s.entries, 1);
    assert!(s.size_bytes > 0);
    assert_eq!(a.stats().entries, 0, "per-handle stats do not double count shared entries");
    shared.invalidate(&[table("t")], Some("shop"));
    assert!(is_miss(&a.lookup(&k, t0 + SOFT)));
    assert_eq!(shared.shared_storage_stats().entries, 0);
}

#[test]
fn shared_storage_respects_max_size() {
    let max = SHARED_SHARDS * 4096;
    let shared = CacheShared::new(CacheConfig { max_size: max, ..config(CacheStorage::Shared) });
    let mut c = ResultCache::new(shared.clone());
    let t0 = Instant::now();
    for i in 0..2000 {
        let k = key(&format!("SELECT {i}"));
        fill(&mut c, &k, &[], &[0u8; 300], t0);
    }
    let s = shared.shared_storage_stats();
    assert!(s.size_bytes as usize <= max, "{s:?}");
    assert!(s.entries > 0 && c.stats().evictions > 0);
    assert_eq!(c.stats().stores, 2000);
}
