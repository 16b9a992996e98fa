//! Concurrent committers, then a simulated power failure (unsynced writes lost, torn page
//! writes): after recovery every acknowledged commit is there, and every transaction is all or
//! nothing.

use crate::engine_util;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use engine_util::*;
use selkie_storage::*;

const ROWS_PER_TRX: i64 = 3;
const SEQ_SPACE: i64 = 1_000_000;

fn k_of(r: &[Datum]) -> i64 {
    if let Datum::Int(k) = r[1] {
        k
    } else {
        panic!("{r:?}")
    }
}

async fn writer(e: Arc<Engine>, t: Arc<TableDef>, task: i64, stop: Arc<AtomicBool>) -> i64 {
    let s = e.register_session().unwrap();
    let counter_pk = keycodec::primary_key_from_values(&t, &[Datum::Int(task)]).unwrap();
    let mut acknowledged = 0;
    let mut seq = 1;
    while !stop.load(Ordering::Relaxed) {
        let mut trx = e.begin(&s, opts());
        let r: Result<(), StorageError> = async {
            for j in 0..ROWS_PER_TRX {
                let id = (task + 1) * SEQ_SPACE + seq * ROWS_PER_TRX + j;
                trx.insert(&t, row(id, seq, "payload"), OnDuplicate::Error).await?;
            }
            let cur = trx.lock_row(&t, &counter_pk, LockMode::Exclusive).await?.expect("counter row");
            trx.update(&t, &counter_pk, &cur.row, row(task, seq, "counter")).await?;
            Ok(())
        }
        .await;
        if r.is_err() {
            break;
        }
        if trx.commit().await.is_err() {
            break;
        }
        acknowledged = seq;
        seq += 1;
    }
    acknowledged
}

async fn crash_round(round: u64) {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path());
    c.fault = FaultInjection { lose_unsynced_writes: true, torn_page_writes: true };
    c.buffer_pool_bytes = 1 << 20;
    let e = Engine::open(c.clone()).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", false), false).await.unwrap();
    let t = table(&e, "d", "t");
    let tasks = 4i64;
    {
        let s = e.register_session().unwrap();
        let mut trx = e.begin(&s, opts());
        for task in 0..tasks {
            trx.insert(&t, row(task, 0, "counter"), OnDuplicate::Error).await.unwrap();
        }
        trx.commit().await.unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let handles: Vec<_> =
        (0..tasks).map(|task| tokio::spawn(writer(e.clone(), t.clone(), task, stop.clone()))).collect();
    tokio::time::sleep(Duration::from_millis(150 + 50 * (round % 4))).await;
    e.crash_for_test();
    stop.store(true, Ordering::Relaxed);
    let mut acked = Vec::new();
    for h in handles {
        acked.push(h.await.unwrap());
    }
    assert!(acked.iter().sum::<i64>() > 0, "nothing was committed before the crash");
    drop(t);
    drop(e);

    let e = Engine::open(c).unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    let rows = scan_all(&mut trx, &t, 0, KeyRange::all(), false, ReadMode::Consistent);
    for task in 0..tasks {
        let counter = trx.get(&t, &[Datum::Int(task)]).unwrap().unwrap();
        let durable_seq = k_of(&counter.row);
        assert!(
            durable_seq >= acked[task as usize],
            "task {task}: acknowledged {} but recovered {durable_seq}",
            acked[task as usize]
        );
        let lo = (task + 1) * SEQ_SPACE;
        let ids: BTreeSet<i64> = rows
            .iter()
            .filter_map(
                |r| if let Datum::Int(id) = r[0] { (id >= lo && id < lo + SEQ_SPACE).then_some(id) } else { None },
            )
            .collect();
        let expect: BTreeSet<i64> =
            (1..=durable_seq).flat_map(|seq| (0..ROWS_PER_TRX).map(move |j| lo + seq * ROWS_PER_TRX + j)).collect();
        assert_eq!(ids, expect, "task {task}: transactions must be all or nothing and match the counter");
    }
    // The secondary index agrees with the clustered index.
    let by_k = scan_all(&mut trx, &t, 1, KeyRange::all(), false, ReadMode::Consistent);
    assert_eq!(by_k.len(), rows.len());
    trx.commit().await.unwrap();
    drop(s);
    e.shutdown().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn acknowledged_commits_survive_power_failure() {
    let rounds = if stress() { 20 } else { 2 };
    for round in 0..rounds {
        crash_round(round).await;
    }
}

/// The power fails while the page cleaner's home writes of a batch are torn and unsynced: the
/// next open repairs the torn pages from the doublewrite copy (counted in
/// `Selkie_pages_repaired_from_doublewrite`), and the data is exactly what was committed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn torn_home_pages_are_repaired_from_the_doublewrite_copy() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = crash_config(dir.path());
    cfg.fault.torn_page_writes = true;
    let e = Engine::open(cfg.clone()).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", false), false).await.unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    const N: i64 = 3000;
    let mut trx = e.begin(&s, opts());
    for id in 0..N {
        trx.insert(&t, row(id, id, "short"), OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
    // Every page on disk, then changed all over (rows grow: the page heaps, at the pages' far
    // ends, change), so a torn write differs from both the old and the new image.
    e.checkpoint_for_test().unwrap();
    let mut trx = e.begin(&s, opts());
    for id in 0..N {
        let pk = keycodec::primary_key_from_values(&t, &[Datum::Int(id)]).unwrap();
        let cur = trx.lock_row(&t, &pk, LockMode::Exclusive).await.unwrap().unwrap();
        trx.update(&t, &pk, &cur.row, row(id, id + 1, "a longer value than before")).await.unwrap();
    }
    trx.commit().await.unwrap();
    assert_eq!(status_value(&e, "Selkie_pages_repaired_from_doublewrite"), 0);
    e.arm_crash_point_for_test(testpoint::CrashPoint::HomePageSync);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !e.crash_point_fired_for_test() {
        assert!(std::time::Instant::now() < deadline, "the page cleaner never wrote a batch");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    drop(s);
    e.crash_for_test();
    drop(e);

    let e = Engine::open(cfg).unwrap();
    assert!(
        status_value(&e, "Selkie_pages_repaired_from_doublewrite") > 0,
        "the crash left torn home pages that the doublewrite copy repaired"
    );
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    let rows = scan_all(&mut trx, &t, 0, KeyRange::all(), false, ReadMode::Consistent);
    assert_eq!(rows.len(), N as usize);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r, &row(i as i64, i as i64 + 1, "a longer value than before"));
    }
    let through_k = scan_all(&mut trx, &t, 1, KeyRange::all(), false, ReadMode::Consistent);
    assert_eq!(through_k, rows, "the secondary index agrees");
}
