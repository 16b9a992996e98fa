//! Concurrency invariants: money transfers between accounts (two row locks per transaction,
//! in random order, so deadlocks happen and are retried) while snapshot readers check that the
//! total never changes in any consistent view. SELKIE_BENCH=1 also prints throughput for 1..16
//! tasks (run it with --release on a machine with cores to spare).

use crate::engine_util;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine_util::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use selkie_storage::*;

const ACCOUNTS: i64 = 64;
const START: i64 = 1000;

fn k_of(r: &[Datum]) -> i64 {
    if let Datum::Int(k) = r[1] {
        k
    } else {
        panic!("{r:?}")
    }
}

async fn setup(dir: &std::path::Path) -> (Arc<Engine>, Arc<TableDef>) {
    let mut c = config(dir);
    c.flush_mode = FlushMode::Lazy;
    let e = Engine::open(c).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "acct", false), false).await.unwrap();
    let t = table(&e, "d", "acct");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for i in 0..ACCOUNTS {
        trx.insert(&t, row(i, START, "acct"), OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
    (e, t)
}

/// One transfer; Ok(false) if it lost a deadlock (already rolled back) and should be retried.
async fn transfer(e: &Engine, s: &SessionSlot, t: &Arc<TableDef>, from: i64, to: i64, amount: i64) -> bool {
    let mut trx = e.begin(s, opts());
    trx.begin_statement();
    let mut rows = Vec::new();
    for id in [from, to] {
        let pk = keycodec::primary_key_from_values(t, &[Datum::Int(id)]).unwrap();
        match trx.lock_row(t, &pk, LockMode::Exclusive).await {
            Ok(r) => rows.push(r.unwrap()),
            Err(StorageError::Deadlock) => return false,
            Err(err) => panic!("{err}"),
        }
    }
    for (r, delta) in rows.iter().zip([-amount, amount]) {
        let mut new = r.row.clone();
        new[1] = Datum::Int(k_of(&r.row) + delta);
        trx.update(t, &r.pk_key, &r.row, new).await.unwrap();
    }
    trx.commit().await.unwrap();
    true
}

fn total(trx: &mut Transaction, t: &Arc<TableDef>, index: usize) -> i64 {
    scan_all(trx, t, index, KeyRange::all(), index == 1, ReadMode::Consistent).iter().map(|r| k_of(r)).sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn transfers_keep_the_total_in_every_snapshot() {
    let _exclusive = crate::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path()).await;
    let stop = Arc::new(AtomicBool::new(false));
    let transfers = Arc::new(AtomicU64::new(0));
    let deadlocks = Arc::new(AtomicU64::new(0));
    let mut writers = Vec::new();
    for w in 0..6u64 {
        let (e, t, stop, transfers, deadlocks) =
            (e.clone(), t.clone(), stop.clone(), transfers.clone(), deadlocks.clone());
        writers.push(tokio::spawn(async move {
            let s = e.register_session().unwrap();
            let mut rng = StdRng::seed_from_u64(w);
            while !stop.load(Ordering::Relaxed) {
                // Few accounts: plenty of conflicts.
                let from = rng.gen_range(0..8);
                let to = (from + rng.gen_range(1..8)) % 8;
                let amount = rng.gen_range(1..50);
                while !transfer(&e, &s, &t, from, to, amount).await {
                    deadlocks.fetch_add(1, Ordering::Relaxed);
                }
                transfers.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    let mut readers = Vec::new();
    for r in 0..2 {
        let (e, t, stop) = (e.clone(), t.clone(), stop.clone());
        readers.push(tokio::spawn(async move {
            let s = e.register_session().unwrap();
            let iso = if r == 0 { IsolationLevel::RepeatableRead } else { IsolationLevel::ReadCommitted };
            let mut checks = 0;
            while !stop.load(Ordering::Relaxed) {
                let mut trx = e.begin(&s, opts_with(iso, Duration::from_secs(5)));
                for _ in 0..3 {
                    trx.begin_statement();
                    assert_eq!(total(&mut trx, &t, 0), ACCOUNTS * START);
                    trx.begin_statement();
                    assert_eq!(total(&mut trx, &t, 1), ACCOUNTS * START);
                    checks += 1;
                    tokio::task::yield_now().await;
                }
                trx.commit().await.unwrap();
            }
            checks
        }));
    }
    tokio::time::sleep(Duration::from_millis(if stress() { 10_000 } else { 1_500 })).await;
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.await.unwrap();
    }
    let mut checks = 0;
    for r in readers {
        checks += r.await.unwrap();
    }
    assert!(transfers.load(Ordering::Relaxed) > 10 && checks > 2, "the workload must run");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    assert_eq!(total(&mut trx, &t, 0), ACCOUNTS * START);
    assert_eq!(status_value(&e, "Innodb_row_lock_current_waits"), 0);
    eprintln!(
        "transfers {} deadlocks retried {} snapshot checks {checks}",
        transfers.load(Ordering::Relaxed),
        deadlocks.load(Ordering::Relaxed)
    );
}

/// Point selects and single-row updates on disjoint rows, per task count. Prints ops/s with
/// SELKIE_BENCH=1; otherwise a short smoke run.
#[tokio::test(flavor = "multi_thread")]
async fn throughput_by_task_count() {
    let bench = std::env::var("SELKIE_BENCH").is_ok();
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path());
    c.flush_mode = FlushMode::Lazy;
    c.buffer_pool_bytes = 256 << 20;
    c.max_sessions = 1100;
    let e = Engine::open(c).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "sb", false), false).await.unwrap();
    let t = table(&e, "d", "sb");
    let rows: i64 = if bench { 100_000 } else { 2_000 };
    {
        let s = e.register_session().unwrap();
        for chunk in (0..rows).collect::<Vec<_>>().chunks(1000) {
            let mut trx = e.begin(&s, opts());
            for &i in chunk {
                trx.insert(
                    &t,
                    row(i, i % 1000, "0123456789-0123456789-0123456789-0123456789-0123456789"),
                    OnDuplicate::Error,
                )
                .await
                .unwrap();
            }
            trx.commit().await.unwrap();
        }
    }
    // SELKIE_BENCH_TASKS=1,8 picks the task counts.
    let task_counts: Vec<usize> = match std::env::var("SELKIE_BENCH_TASKS") {
        Ok(v) => v.split(',').filter_map(|n| n.trim().parse().ok()).collect(),
        Err(_) if bench => vec![1, 2, 4, 8, 16, 64, 256, 1024],
        Err(_) => vec![2],
    };
    let secs = if bench { 3.0 } else { 0.3 };
    for &tasks in &task_counts {
        for write in [false, true] {
            let stop = Arc::new(AtomicBool::new(false));
            let ops = Arc::new(AtomicU64::new(0));
            let mut hs = Vec::new();
            for task in 0..tasks {
                let (e, t, stop, ops) = (e.clone(), t.clone(), stop.clone(), ops.clone());
                hs.push(tokio::spawn(async move {
                    let s = e.register_session().unwrap();
                    let mut rng = StdRng::seed_from_u64(task as u64);
                    let mut n = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        // Each task updates its own rows (no lock conflicts): ids = task mod tasks.
                        let id = (rng.gen_range(0..rows / tasks as i64)) * tasks as i64 + task as i64;
                        let _g = e.statement_guard(&s).await;
                        let mut trx = e.begin(&s, opts());
                        trx.begin_statement();
                        if write {
                            let pk = keycodec::primary_key_from_values(&t, &[Datum::Int(id)]).unwrap();
                            let r = trx.lock_row(&t, &pk, LockMode::Exclusive).await.unwrap().unwrap();
                            let mut new = r.row.clone();
                            new[1] = Datum::Int(k_of(&r.row) + 1);
                            trx.update(&t, &pk, &r.row, new).await.unwrap();
                        } else {
                            assert!(trx.get(&t, &[Datum::Int(id)]).unwrap().is_some());
                        }
                        trx.commit().await.unwrap();
                        n += 1;
                        if n.is_multiple_of(64) {
                            tokio::task::yield_now().await;
                        }
                    }
                    ops.fetch_add(n, Ordering::Relaxed);
                }));
            }
            let start = Instant::now();
            tokio::time::sleep(Duration::from_secs_f64(secs)).await;
            stop.store(true, Ordering::Relaxed);
            for h in hs {
                h.await.unwrap();
            }
            let n = ops.load(Ordering::Relaxed);
            assert!(n > 0);
            let kind = if write { "update" } else { "point select" };
            eprintln!("{tasks:5} tasks {kind:12}: {:10.0} trx/s", n as f64 / start.elapsed().as_secs_f64());
        }
    }
}
