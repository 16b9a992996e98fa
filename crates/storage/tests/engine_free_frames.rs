//! Free frames are produced ahead of demand (MDEV-30628): concurrent writers on data four times
//! the buffer pool, with the page cleaner the only producer of free frames. No user thread may
//! find the free list empty (`Innodb_buffer_pool_wait_free` stays 0), while pages are evicted
//! all the time (so the property is not met by a pool that never fills).

mod engine_util;

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine_util::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use selkie_storage::*;

const WRITERS: u64 = 4;

fn payload(id: i64, version: u64) -> String {
    format!("{id:08}-{version:06}-{}", "y".repeat(170))
}

async fn writer(e: Arc<Engine>, t: Arc<TableDef>, rows: i64, seed: u64, until: Instant) -> u64 {
    let s = e.register_session().unwrap();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut done = 0;
    while Instant::now() < until {
        let mut trx = e.begin(&s, opts());
        for _ in 0..4 {
            let id = rng.gen_range(0..rows);
            let pk = keycodec::primary_key_from_values(&t, &[Datum::Int(id)]).unwrap();
            match trx.lock_row(&t, &pk, LockMode::Exclusive).await {
                Ok(Some(r)) => {
                    let new = row(id, rng.gen_range(0..1000), &payload(id, done));
                    trx.update(&t, &pk, &r.row, new).await.unwrap();
                }
                Ok(None) => unreachable!("rows are never deleted"),
                Err(StorageError::Deadlock) | Err(StorageError::LockWaitTimeout) => break,
                Err(e) => panic!("{e}"),
            }
        }
        let _ = trx.commit().await;
        done += 1;
    }
    done
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn writers_never_wait_for_a_free_frame() {
    let dir = tempfile::tempdir().unwrap();
    let pool: u64 = 2 << 20;
    let rows: i64 = if stress() { 80_000 } else { 48_000 };
    let run = Duration::from_secs(if stress() { 30 } else { 4 });
    let mut c = config(dir.path());
    c.buffer_pool_bytes = pool;
    c.flush_mode = FlushMode::WriteOnly;
    let e = Engine::open(c).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    let mut def = sbtest("d", "t", false);
    def.columns[2].ty = varchar(250);
    e.create_table(def, false).await.unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    for chunk in (0..rows).collect::<Vec<_>>().chunks(2000) {
        let mut trx = e.begin(&s, opts());
        for &id in chunk {
            trx.insert(&t, row(id, id % 1000, &payload(id, 0)), OnDuplicate::Error).await.unwrap();
        }
        trx.commit().await.unwrap();
    }
    assert!(rows as u64 * 200 >= 4 * pool, "the data must be at least 4x the pool");

    let evicted_before = status_value(&e, "Selkie_buffer_pool_evictions");
    let until = Instant::now() + run;
    let tasks: Vec<_> =
        (0..WRITERS).map(|w| tokio::spawn(writer(e.clone(), t.clone(), rows, 11 + w, until))).collect();
    let mut transactions = 0;
    for task in tasks {
        transactions += task.await.unwrap();
    }
    let evicted = status_value(&e, "Selkie_buffer_pool_evictions") - evicted_before;
    let reads = status_value(&e, "Innodb_buffer_pool_reads");
    let waits = status_value(&e, "Innodb_buffer_pool_wait_free");
    eprintln!("{transactions} transactions, {evicted} evictions, {reads} page reads, {waits} free-frame waits");
    assert!(transactions > 0);
    assert!(evicted > 200, "the workload must evict pages all along ({evicted} evictions)");
    assert_eq!(waits, 0, "a user thread found no free frame ({evicted} evictions)");
}
