//! Larger than memory: the buffer pool holds about 1/8 of the data. Mixed reads and writes,
//! every row checked at the end (and again after a restart).

use crate::engine_util;

use std::collections::BTreeMap;

use engine_util::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use selkie_storage::*;

fn payload(id: i64, version: u32) -> String {
    // ~200 bytes, different per version so stale pages would show.
    format!("{id:08}-{version:04}-{}", "x".repeat(180 + (id as usize % 17)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_eight_times_the_buffer_pool() {
    let dir = tempfile::tempdir().unwrap();
    let (pool, rows) = if stress() { (4u64 << 20, 150_000i64) } else { (512u64 << 10, 20_000i64) };
    let mut c = config(dir.path());
    c.buffer_pool_bytes = pool;
    c.flush_mode = FlushMode::Lazy;
    let e = Engine::open(c.clone()).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    let mut def = sbtest("d", "t", false);
    def.columns[2].ty = varchar(250);
    e.create_table(def, false).await.unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    let mut model: BTreeMap<i64, (i64, String)> = BTreeMap::new();
    for chunk in (0..rows).collect::<Vec<_>>().chunks(1000) {
        let mut trx = e.begin(&s, opts());
        for &id in chunk {
            let v = (id % 100, payload(id, 0));
            trx.insert(&t, row(id, v.0, &v.1), OnDuplicate::Error).await.unwrap();
            model.insert(id, v);
        }
        trx.commit().await.unwrap();
    }
    let data_bytes = rows as u64 * 230;
    assert!(data_bytes >= 8 * pool, "the data must be at least 8x the pool");

    let mut rng = StdRng::seed_from_u64(7);
    let ops = if stress() { 20_000 } else { 3_000 };
    let mut next_id = rows;
    for batch in 0..ops / 100 {
        let mut trx = e.begin(&s, opts());
        for _ in 0..100 {
            let id = rng.gen_range(0..next_id);
            match rng.gen_range(0..10) {
                0..=3 => {
                    let got = trx.get(&t, &[Datum::Int(id)]).unwrap().map(|r| r.row);
                    assert_eq!(got, model.get(&id).map(|(k, c)| row(id, *k, c)), "get {id}");
                }
                4..=6 => {
                    let pk = keycodec::primary_key_from_values(&t, &[Datum::Int(id)]).unwrap();
                    if let Some(r) = trx.lock_row(&t, &pk, LockMode::Exclusive).await.unwrap() {
                        let v = (rng.gen_range(0..100), payload(id, batch as u32 + 1));
                        trx.update(&t, &pk, &r.row, row(id, v.0, &v.1)).await.unwrap();
                        model.insert(id, v);
                    }
                }
                7 => {
                    let pk = keycodec::primary_key_from_values(&t, &[Datum::Int(id)]).unwrap();
                    if let Some(r) = trx.lock_row(&t, &pk, LockMode::Exclusive).await.unwrap() {
                        trx.delete(&t, &pk, &r.row).await.unwrap();
                        model.remove(&id);
                    }
                }
                _ => {
                    let v = (rng.gen_range(0..100), payload(next_id, 0));
                    trx.insert(&t, row(next_id, v.0, &v.1), OnDuplicate::Error).await.unwrap();
                    model.insert(next_id, v);
                    next_id += 1;
                }
            }
        }
        trx.commit().await.unwrap();
    }
    let stats = e.status();
    let get = |n: &str| stats.rows.iter().find(|(k, _)| k == n).unwrap().1.parse::<u64>().unwrap();
    assert!(get("Innodb_buffer_pool_reads") > 0, "the workload must read pages from disk");

    let check = |e: &Engine, s: &SessionSlot| {
        let t = table(e, "d", "t");
        let mut trx = e.begin(s, opts());
        let expect: Vec<Vec<Datum>> = model.iter().map(|(id, (k, c))| row(*id, *k, c)).collect();
        let got = scan_all(&mut trx, &t, 0, KeyRange::all(), false, ReadMode::Consistent);
        assert_eq!(got.len(), expect.len());
        assert!(got == expect, "clustered index differs from the model");
        let by_k = scan_all(&mut trx, &t, 1, KeyRange::point(vec![Datum::Int(42)]), false, ReadMode::Consistent);
        let expect_k: Vec<Vec<Datum>> =
            model.iter().filter(|(_, (k, _))| *k == 42).map(|(id, (k, c))| row(*id, *k, c)).collect();
        assert_eq!(by_k, expect_k);
    };
    check(&e, &s);
    drop(s);
    e.shutdown().unwrap();
    drop(e);
    let e = Engine::open(c).unwrap();
    let s = e.register_session().unwrap();
    check(&e, &s);
}
