//! CREATE INDEX does not stop the world (docs/architecture.md §4.9). While an index builds over a
//! big table, statements on other tables start and finish with bounded latency, consistent reads
//! of the table itself go on, and only statements that change the table wait (in
//! `write_statement_guard`, up to their timeout, then 1205); once the index is published they
//! write through it. A crash in the middle of such a build leaves no pages behind.
//!
//! The builds run on tokio's multi-thread runtime with ONE worker thread: a build that kept its
//! worker (no `block_in_place`) would stop every other task there, and the latency checks fail.
//! Default: a 300k-row table (a build of about a second in release). `SELKIE_STRESS=1`: 3M rows.
//! Run: `cargo test --release -p selkie-storage --test storage_tests engine_online_ddl:: -- --nocapture` (prints
//! the latencies measured before and during the build).

use crate::engine_util;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use engine_util::*;
use selkie_storage::testpoint::CrashPoint;
use selkie_storage::*;

/// Rows of the table the index is built on.
fn big_rows() -> i64 {
    if stress() {
        3_000_000
    } else {
        300_000
    }
}

/// Rows of the small tables other sessions work on meanwhile.
const SMALL_ROWS: i64 = 1000;
/// Rows per transaction while filling.
const FILL_BATCH: i64 = 10_000;
/// How long a writer of the rebuilt table may wait in these tests (it never should that long).
const WRITER_TIMEOUT: Duration = Duration::from_secs(60);

fn online_config(dir: &Path) -> EngineConfig {
    let mut c = config(dir);
    c.buffer_pool_bytes = 128 << 20;
    c.max_sessions = 128;
    c
}

fn crash_online_config(dir: &Path) -> EngineConfig {
    let mut c = online_config(dir);
    c.fault = crash_config(dir).fault;
    c
}

async fn fill(e: &Engine, t: &Arc<TableDef>, range: std::ops::Range<i64>) {
    let s = e.register_session().unwrap();
    let mut next = range.start;
    while next < range.end {
        let mut trx = e.begin(&s, opts());
        for id in next..(next + FILL_BATCH).min(range.end) {
            trx.insert(t, row(id, id % 1000, &format!("{id:08}-{}", "c".repeat(40))), OnDuplicate::Error)
                .await
                .unwrap();
        }
        trx.commit().await.unwrap();
        next += FILL_BATCH;
    }
}

/// Database `d` with the big table `t` and two small tables `u` (read) and `w` (written).
async fn setup(e: &Engine) -> (Arc<TableDef>, Arc<TableDef>, Arc<TableDef>) {
    e.create_database(db("d"), false).await.unwrap();
    for name in ["t", "u", "w"] {
        e.create_table(sbtest("d", name, false), false).await.unwrap();
    }
    let (t, u, w) = (table(e, "d", "t"), table(e, "d", "u"), table(e, "d", "w"));
    fill(e, &t, 0..big_rows()).await;
    fill(e, &u, 0..SMALL_ROWS).await;
    (t, u, w)
}

/// The index the tests build: on `c`, so every entry carries a 49-byte string.
fn index_c() -> NewIndex {
    NewIndex { name: "ic".into(), columns: vec![ic(2), ic(1)], unique: false }
}

/// Whether statements that change `t` wait now: a zero timeout gives 1205 at once if they do.
async fn writes_blocked(e: &Engine, s: &SessionSlot, t: &TableDef) -> bool {
    match e.write_statement_guard(s, &[t.id], Duration::ZERO).await {
        Ok(_) => false,
        Err(err) => {
            assert_eq!(err.mysql_code().0, 1205, "{err}");
            true
        }
    }
}

/// Polls until the DDL in `ddl` blocks writes to `t`.
async fn until_blocked(e: &Engine, t: &TableDef, ddl: &tokio::task::JoinHandle<Result<()>>) {
    let s = e.register_session().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !writes_blocked(e, &s, t).await {
        assert!(!ddl.is_finished(), "the build ended before writes were seen blocked (too small a table?)");
        assert!(Instant::now() < deadline, "the DDL never blocked writes");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// Latencies (ms) of the operations that completed in one phase.
#[derive(Default)]
struct Phase {
    latencies: Vec<f64>,
}

impl Phase {
    fn quantile(&self, q: f64) -> f64 {
        let mut v = self.latencies.clone();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v.get(((v.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or(f64::NAN)
    }
}

/// Point selects on `u` and inserts into `w` from several sessions, before and during a build
/// of an index on `t`: they keep completing during the build, and no operation waits for a
/// large part of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn other_tables_keep_working_during_an_index_build() {
    let _exclusive = crate::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(online_config(dir.path())).unwrap();
    let (_, u, w) = setup(&e).await;

    // 0: before the build, 1: during it.
    let phase = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let selects: Arc<Mutex<[Phase; 2]>> = Arc::default();
    let inserts: Arc<Mutex<[Phase; 2]>> = Arc::default();
    let mut tasks = Vec::new();
    for n in 0..4i64 {
        let (e, u, phase, stop, selects) = (e.clone(), u.clone(), phase.clone(), stop.clone(), selects.clone());
        tasks.push(tokio::spawn(async move {
            let s = e.register_session().unwrap();
            let mut id = n;
            while !stop.load(Ordering::SeqCst) {
                let p = phase.load(Ordering::SeqCst) as usize;
                let started = Instant::now();
                {
                    let _g = e.statement_guard(&s).await;
                    let mut trx = e.begin(&s, opts());
                    assert!(trx.get(&u, &[Datum::Int(id % SMALL_ROWS)]).unwrap().is_some());
                    trx.commit().await.unwrap();
                }
                selects.lock().unwrap()[p].latencies.push(started.elapsed().as_secs_f64() * 1e3);
                id += 7;
                tokio::task::yield_now().await;
            }
        }));
    }
    for n in 0..2i64 {
        let (e, w, phase, stop, inserts) = (e.clone(), w.clone(), phase.clone(), stop.clone(), inserts.clone());
        tasks.push(tokio::spawn(async move {
            let s = e.register_session().unwrap();
            let mut id = n * 1_000_000;
            while !stop.load(Ordering::SeqCst) {
                let p = phase.load(Ordering::SeqCst) as usize;
                let started = Instant::now();
                {
                    let _g = e.write_statement_guard(&s, &[w.id], WRITER_TIMEOUT).await.unwrap();
                    let mut trx = e.begin(&s, opts());
                    trx.insert(&w, row(id, 0, "w"), OnDuplicate::Error).await.unwrap();
                    trx.commit().await.unwrap();
                }
                inserts.lock().unwrap()[p].latencies.push(started.elapsed().as_secs_f64() * 1e3);
                id += 1;
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;

    phase.store(1, Ordering::SeqCst);
    let started = Instant::now();
    // On a worker, like a connection's task (the test body itself runs outside the pool).
    let e2 = e.clone();
    tokio::spawn(async move { e2.create_index("d", "t", index_c()).await }).await.unwrap().unwrap();
    let build = started.elapsed();
    stop.store(true, Ordering::SeqCst);
    for task in tasks {
        task.await.unwrap();
    }

    let (selects, inserts) = (selects.lock().unwrap(), inserts.lock().unwrap());
    let build_ms = build.as_secs_f64() * 1e3;
    for (name, phases) in [("point select on u", &*selects), ("insert into w", &*inserts)] {
        println!(
            "{name}: before the build {} ops, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; during the build \
             ({build_ms:.0} ms) {} ops, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            phases[0].latencies.len(),
            phases[0].quantile(0.5),
            phases[0].quantile(0.99),
            phases[0].quantile(1.0),
            phases[1].latencies.len(),
            phases[1].quantile(0.5),
            phases[1].quantile(0.99),
            phases[1].quantile(1.0),
        );
        // A stopped world shows up as a handful of operations, each waiting about as long as the
        // whole build; the bounds leave room for a loaded 2-core machine.
        assert!(
            phases[1].latencies.len() >= 20,
            "{name}: only {} completed during the build",
            phases[1].latencies.len()
        );
        let max = phases[1].quantile(1.0);
        assert!(max < build_ms / 2.0, "{name}: an operation took {max:.0} ms of a {build_ms:.0} ms build");
    }
    let t = table(&e, "d", "t");
    assert_eq!(e.physical_records(&t, 2).unwrap(), (big_rows() as u64, 0));
}

/// Statements that change the table wait for the build (holding no barrier), then see the new
/// index and write through it; consistent reads of the table go on meanwhile; a writer with a
/// short timeout gets 1205; a write that skips the guard is refused rather than missing the index.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn writers_of_the_table_wait_for_the_build_and_write_through_the_new_index() {
    let _exclusive = crate::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(online_config(dir.path())).unwrap();
    let (t, _, _) = setup(&e).await;
    let rows = big_rows();

    let ddl = tokio::spawn({
        let e = e.clone();
        async move { e.create_index("d", "t", index_c()).await }
    });
    until_blocked(&e, &t, &ddl).await;

    let mut writers = Vec::new();
    for i in 0..3 {
        let e = e.clone();
        writers.push(tokio::spawn(async move {
            let s = e.register_session().unwrap();
            let _g = e.write_statement_guard(&s, &[table(&e, "d", "t").id], WRITER_TIMEOUT).await.unwrap();
            // Bound after the guard, as the SQL layer does: the definition with the new index.
            let t = table(&e, "d", "t");
            assert!(t.index_by_name("ic").is_some(), "a waiting writer goes on only once the index is published");
            let mut trx = e.begin(&s, opts());
            trx.insert(&t, row(rows + i, 1, "written-after-the-build"), OnDuplicate::Error).await.unwrap();
            trx.commit().await.unwrap();
        }));
    }

    // Consistent reads of the table itself go on.
    let s = e.register_session().unwrap();
    {
        let _g = e.statement_guard(&s).await;
        let mut trx = e.begin(&s, opts());
        assert!(trx.get(&t, &[Datum::Int(rows / 2)]).unwrap().is_some());
        let range = KeyRange {
            lower: std::ops::Bound::Included(vec![Datum::Int(5)]),
            upper: std::ops::Bound::Excluded(vec![Datum::Int(15)]),
        };
        assert_eq!(scan_all(&mut trx, &t, 0, range, false, ReadMode::Consistent).len(), 10);
        trx.commit().await.unwrap();
    }
    // A write without the guard is refused (1412), not applied without the index entry.
    {
        let mut trx = e.begin(&s, opts());
        let err = trx.insert(&t, row(-1, 1, "no guard"), OnDuplicate::Error).await.unwrap_err();
        assert_eq!(err.mysql_code().0, 1412, "{err}");
        trx.rollback().unwrap();
    }
    // MariaDB's lock_wait_timeout: a writer gives up with 1205 after its timeout.
    let started = Instant::now();
    let err = match e.write_statement_guard(&s, &[t.id], Duration::from_millis(150)).await {
        Ok(_) => panic!("the build ended before the timeout test (too small a table?)"),
        Err(err) => err,
    };
    assert_eq!(err.mysql_code().0, 1205, "{err}");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(150) && waited < Duration::from_secs(5), "waited {waited:?}");

    tokio::time::sleep(Duration::from_millis(50)).await;
    if !ddl.is_finished() {
        assert!(writers.iter().all(|w| !w.is_finished()), "a writer went on during the build");
    }
    ddl.await.unwrap().unwrap();
    for w in writers {
        w.await.unwrap();
    }
    let t = table(&e, "d", "t");
    let ix = 1 + t.secondary.iter().position(|i| i.name == "ic").unwrap();
    assert_eq!(e.physical_records(&t, ix).unwrap(), (rows as u64 + 3, 0));
    let mut trx = e.begin(&s, opts());
    let after = KeyRange::point(vec![Datum::Bytes(b"written-after-the-build".to_vec())]);
    assert_eq!(scan_all(&mut trx, &t, ix, after, false, ReadMode::Consistent).len(), 3);
    assert_eq!(scan_all(&mut trx, &t, ix, KeyRange::all(), false, ReadMode::Consistent).len(), rows as usize + 3);
}

/// The power fails in the middle of an online build while a writer waits for it and another
/// table is being written: the waiting writer is released at once, and after the restart the
/// table has no such index, every page of the partial tree is free again, and the other table
/// holds every acknowledged commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_crash_in_the_middle_of_an_online_build_leaves_no_pages_behind() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(crash_online_config(dir.path())).unwrap();
    let (t, _, w) = setup(&e).await;
    wait_settled(&e).await;
    let before = audit(&e);

    let committed = Arc::new(AtomicU64::new(0));
    let writer_of_w = tokio::spawn({
        let (e, w, committed) = (e.clone(), w.clone(), committed.clone());
        async move {
            let s = e.register_session().unwrap();
            for id in 0.. {
                let Ok(_g) = e.write_statement_guard(&s, &[w.id], WRITER_TIMEOUT).await else { return };
                let mut trx = e.begin(&s, opts());
                if trx.insert(&w, row(id, 0, "w"), OnDuplicate::Error).await.is_err() || trx.commit().await.is_err() {
                    return;
                }
                committed.store(id as u64 + 1, Ordering::SeqCst);
            }
        }
    });
    let ddl = tokio::spawn({
        let e = e.clone();
        async move { e.create_index("d", "t", index_c()).await }
    });
    until_blocked(&e, &t, &ddl).await;
    let waiting_writer = tokio::spawn({
        let (e, t) = (e.clone(), t.clone());
        async move {
            let s = e.register_session().unwrap();
            let started = Instant::now();
            let _ = e.write_statement_guard(&s, &[t.id], WRITER_TIMEOUT).await;
            started.elapsed()
        }
    });
    // Written while the build runs.
    let seen = committed.load(Ordering::SeqCst);
    let deadline = Instant::now() + Duration::from_secs(30);
    while committed.load(Ordering::SeqCst) < seen + 5 {
        assert!(Instant::now() < deadline && !ddl.is_finished(), "no commit to w during the build");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    e.arm_crash_point_for_test(CrashPoint::IndexBuild);
    assert!(ddl.await.unwrap().is_err(), "the build was interrupted");
    assert!(e.crash_point_fired_for_test());
    assert!(waiting_writer.await.unwrap() < WRITER_TIMEOUT / 2, "the waiting writer was released");
    writer_of_w.await.unwrap();
    let acknowledged = committed.load(Ordering::SeqCst) as usize;

    e.crash_for_test();
    drop(e);
    let e = Engine::open(crash_online_config(dir.path())).unwrap();
    let t = table(&e, "d", "t");
    assert!(t.index_by_name("ic").is_none());
    let w = table(&e, "d", "w");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    let in_w = scan_all(&mut trx, &w, 0, KeyRange::all(), false, ReadMode::Consistent).len();
    assert!(in_w >= acknowledged, "w lost commits: {in_w} rows, {acknowledged} acknowledged");
    assert_eq!(scan_all(&mut trx, &t, 1, KeyRange::all(), false, ReadMode::Consistent).len(), big_rows() as usize);
    drop(trx);
    wait_settled(&e).await;
    let after = audit(&e);
    // Only w grew: the partial index's pages went back to the free list.
    assert!(after.free >= 4, "the partial index's pages are free: {before:?} {after:?}");
    assert!(after.in_trees <= before.in_trees + 4 + in_w as u64 / 50, "{before:?} {after:?}");
}

/// Waits until purge freed every pending tree and processed every finished transaction.
async fn wait_settled(e: &Engine) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while status_value(e, "Selkie_pending_trees") > 0
        || status_value(e, "Selkie_pending_tree_frees") > 0
        || status_value(e, "Innodb_history_list_length") > 0
    {
        assert!(Instant::now() < deadline, "purge never settled");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The space audit: nothing leaked, nothing used twice.
fn audit(e: &Engine) -> SpaceReport {
    let r = e.space_report().unwrap();
    assert_eq!(r.leaked, 0, "leaked pages: {r:?}");
    assert_eq!(r.doubly_used, 0, "pages used twice: {r:?}");
    r
}
