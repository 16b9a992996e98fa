//! Undo logs live in pages (docs/architecture.md §4.7): a transaction far larger than the buffer
//! pool commits and rolls back, old versions are read back from undo pages that went to disk,
//! savepoints undo part of a transaction, and recovery rolls back interrupted transactions from
//! their undo pages alone — even when a checkpoint moved the log's start past everything they
//! wrote, and even when the crash interrupted a rollback.

use crate::engine_util;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine_util::*;
use selkie_storage::testpoint::CrashPoint;
use selkie_storage::*;

/// Rows of the big table: with a 2 MiB pool (128 pages), one transaction changing them all
/// writes several times the pool in undo.
const ROWS: i64 = 12_000;

fn small_pool(dir: &Path) -> EngineConfig {
    let mut c = crash_config(dir);
    c.buffer_pool_bytes = 2 << 20;
    c
}

fn k(r: &[Datum]) -> i64 {
    match r[1] {
        Datum::Int(k) => k,
        ref d => panic!("{d:?}"),
    }
}

async fn filled(e: &Engine) -> Arc<TableDef> {
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", false), false).await.unwrap();
    let t = table(e, "d", "t");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for id in 1..=ROWS {
        trx.insert(&t, row(id, id, "some text that makes the row a bit longer than a few bytes"), OnDuplicate::Error)
            .await
            .unwrap();
    }
    trx.commit().await.unwrap();
    t
}

/// Adds `delta` to k of every row in one transaction (the SQL layer's pattern: latest read,
/// lock, update).
async fn bump_all(e: &Engine, trx: &mut Transaction, t: &Arc<TableDef>, delta: i64) {
    let _ = e;
    let rows = scan_all(trx, t, 0, KeyRange::all(), false, ReadMode::Latest);
    for r in rows {
        let pk = keycodec::primary_key_from_values(t, &r[..1]).unwrap();
        let cur = trx.lock_row(t, &pk, LockMode::Exclusive).await.unwrap().unwrap();
        let mut new = cur.row.clone();
        new[1] = Datum::Int(k(&cur.row) + delta);
        trx.update(t, &pk, &cur.row, new).await.unwrap();
    }
}

fn sum_k(e: &Engine, t: &Arc<TableDef>) -> i64 {
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    scan_all(&mut trx, t, 0, KeyRange::all(), false, ReadMode::Consistent).iter().map(|r| k(r)).sum()
}

fn base_sum() -> i64 {
    ROWS * (ROWS + 1) / 2
}

async fn wait_purged(e: &Engine) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while status_value(e, "Innodb_history_list_length") > 0 || status_value(e, "Selkie_pending_trees") > 0 {
        assert!(Instant::now() < deadline, "purge never finished");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn no_leaks(e: &Engine) -> SpaceReport {
    let r = e.space_report().unwrap();
    assert_eq!((r.leaked, r.doubly_used), (0, 0), "{r:?}");
    r
}

#[tokio::test]
async fn a_transaction_much_larger_than_the_pool_commits_and_rolls_back() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(small_pool(dir.path())).unwrap();
    let t = filled(&e).await;
    let s = e.register_session().unwrap();
    // A snapshot from before: it must read the old values back from undo pages on disk.
    let mut old = e.begin(&s, opts());
    assert_eq!(scan_all(&mut old, &t, 0, KeyRange::all(), false, ReadMode::Consistent).len(), ROWS as usize);

    let s2 = e.register_session().unwrap();
    let mut big = e.begin(&s2, opts());
    bump_all(&e, &mut big, &t, 1_000_000).await;
    wait_purged(&e).await;
    let undo_pages = no_leaks(&e).undo;
    assert!(undo_pages > 128, "the undo of {ROWS} updates is larger than the pool: {undo_pages} pages");
    let seen: i64 = scan_all(&mut old, &t, 0, KeyRange::all(), false, ReadMode::Consistent).iter().map(|r| k(r)).sum();
    assert_eq!(seen, base_sum(), "the old snapshot reads every old version back");
    big.rollback().unwrap();
    assert_eq!(sum_k(&e, &t), base_sum());

    let mut big = e.begin(&s2, opts());
    bump_all(&e, &mut big, &t, 1).await;
    big.commit().await.unwrap();
    let seen: i64 = scan_all(&mut old, &t, 0, KeyRange::all(), false, ReadMode::Consistent).iter().map(|r| k(r)).sum();
    assert_eq!(seen, base_sum(), "still the snapshot's versions after the commit");
    drop(old);
    assert_eq!(sum_k(&e, &t), base_sum() + ROWS);
    wait_purged(&e).await;
    let after = no_leaks(&e);
    assert!(after.undo <= 8, "purge freed the undo logs (a few are kept for reuse): {after:?}");
    e.shutdown().unwrap();
}

/// An open transaction does not hold the log back: after it wrote, checkpoints move the
/// recovery scan start past its records, the process dies, and recovery still rolls it back from
/// its undo pages.
#[tokio::test]
async fn recovery_rolls_back_a_transaction_older_than_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(small_pool(dir.path())).unwrap();
    let t = filled(&e).await;
    let s = e.register_session().unwrap();
    let mut open = e.begin(&s, opts());
    bump_all(&e, &mut open, &t, 7).await;
    open.insert(&t, row(ROWS + 1, 0, "inserted by the loser"), OnDuplicate::Error).await.unwrap();
    // Committed work after it, and checkpoints: the scan starts after everything `open` logged.
    let s2 = e.register_session().unwrap();
    for id in ROWS + 2..ROWS + 200 {
        let mut trx = e.begin(&s2, opts());
        trx.insert(&t, row(id, 0, "after"), OnDuplicate::Error).await.unwrap();
        trx.commit().await.unwrap();
    }
    e.checkpoint_for_test().unwrap();
    e.checkpoint_for_test().unwrap();
    e.crash_for_test();
    drop(open);
    drop(s);
    drop(s2);
    drop(e);

    let e = Engine::open(small_pool(dir.path())).unwrap();
    let t = table(&e, "d", "t");
    assert_eq!(sum_k(&e, &t), base_sum(), "the loser's updates are undone");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    assert!(trx.get(&t, &[Datum::Int(ROWS + 1)]).unwrap().is_none(), "the loser's insert is undone");
    assert_eq!(scan_all(&mut trx, &t, 0, KeyRange::all(), false, ReadMode::Consistent).len() as i64, ROWS + 198);
    // Through the secondary index too.
    assert_eq!(scan_all(&mut trx, &t, 1, KeyRange::all(), false, ReadMode::Consistent).len() as i64, ROWS + 198);
    drop(trx);
    wait_purged(&e).await;
    no_leaks(&e);
}

/// The process dies in the middle of a rollback (whole, then partial): recovery finishes it, and
/// a change another transaction made to a row the partial rollback already restored survives.
#[tokio::test]
async fn a_crash_during_rollback_is_finished_by_recovery() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(small_pool(dir.path())).unwrap();
    let t = filled(&e).await;
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    bump_all(&e, &mut trx, &t, 5).await;
    e.arm_crash_point_for_test(CrashPoint::Rollback);
    assert!(trx.rollback().is_err(), "the crash point stops the rollback");
    assert!(e.crash_point_fired_for_test());
    drop(s);
    e.crash_for_test();
    drop(e);
    let e = Engine::open(small_pool(dir.path())).unwrap();
    let t = table(&e, "d", "t");
    assert_eq!(sum_k(&e, &t), base_sum());

    // Partial: a savepoint after row 1's change; the rows inserted after it are rolled back,
    // then another transaction inserts one of those keys again and commits; the crash leaves the
    // first transaction open: recovery undoes its change of row 1 and must not touch the other
    // transaction's row (the partial rollback marked those undo records undone).
    let s = e.register_session().unwrap();
    let mut a = e.begin(&s, opts());
    let pk1 = keycodec::primary_key_from_values(&t, &[Datum::Int(1)]).unwrap();
    let cur = a.lock_row(&t, &pk1, LockMode::Exclusive).await.unwrap().unwrap();
    a.update(&t, &pk1, &cur.row, row(1, 100, "a")).await.unwrap();
    let sp = a.savepoint();
    for id in ROWS + 1..=ROWS + 300 {
        a.insert(&t, row(id, 1, "a"), OnDuplicate::Error).await.unwrap();
    }
    a.rollback_to_savepoint(&sp).unwrap();
    let s2 = e.register_session().unwrap();
    let mut b = e.begin(&s2, opts());
    b.insert(&t, row(ROWS + 1, 42, "b"), OnDuplicate::Error).await.unwrap();
    b.commit().await.unwrap();
    e.checkpoint_for_test().unwrap();
    e.crash_for_test();
    drop((a, s, s2));
    drop(e);
    let e = Engine::open(small_pool(dir.path())).unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    assert_eq!(trx.get(&t, &[Datum::Int(1)]).unwrap().map(|r| k(&r.row)), Some(1), "a's change is undone");
    assert_eq!(trx.get(&t, &[Datum::Int(ROWS + 1)]).unwrap().map(|r| k(&r.row)), Some(42), "b's row survives");
    assert!(trx.get(&t, &[Datum::Int(ROWS + 2)]).unwrap().is_none());
    drop(trx);
    wait_purged(&e).await;
    no_leaks(&e);
}

/// Big values: the undo record keeps the old value's overflow chain instead of a copy; a rollback
/// gives the chain back, a commit lets purge free it.
#[tokio::test]
async fn old_versions_of_big_values_keep_their_chains() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(small_pool(dir.path())).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", false), false).await.unwrap();
    let mut def = TableDef::clone(&table(&e, "d", "t"));
    def.columns[2].ty = ColumnType::Blob { size: LobSize::Medium };
    e.create_table(
        NewTable {
            db: "d".into(),
            name: "b".into(),
            columns: def.columns.clone(),
            primary_key: vec![ic(0)],
            indexes: vec![],
            options: TableOptions::default(),
            auto_increment_start: None,
        },
        false,
    )
    .await
    .unwrap();
    let t = table(&e, "d", "b");
    let big = |seed: u8| -> Vec<u8> { (0..200_000u32).map(|i| (i as u8).wrapping_mul(seed)).collect() };
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for id in 1..=5 {
        trx.insert(&t, vec![Datum::Int(id), Datum::Int(id), Datum::Bytes(big(id as u8))], OnDuplicate::Error)
            .await
            .unwrap();
    }
    trx.commit().await.unwrap();
    wait_purged(&e).await;
    let base = no_leaks(&e);
    let value_of = |e: &Engine, id: i64| {
        let s = e.register_session().unwrap();
        let mut trx = e.begin(&s, opts());
        trx.get(&t, &[Datum::Int(id)]).unwrap().unwrap().row[2].clone()
    };
    for commit in [false, true] {
        let mut trx = e.begin(&s, opts());
        for id in 1..=5 {
            let pk = keycodec::primary_key_from_values(&t, &[Datum::Int(id)]).unwrap();
            let cur = trx.lock_row(&t, &pk, LockMode::Exclusive).await.unwrap().unwrap();
            let new = vec![Datum::Int(id), Datum::Int(id), Datum::Bytes(big(id as u8 + 100))];
            trx.update(&t, &pk, &cur.row, new).await.unwrap();
        }
        let in_flight = e.space_report().unwrap();
        assert!(in_flight.undo >= 5 * 12, "the old chains belong to the undo log: {in_flight:?}");
        assert_eq!(value_of(&e, 3), Datum::Bytes(big(3)), "other readers see the old value");
        if commit {
            trx.commit().await.unwrap();
            assert_eq!(value_of(&e, 3), Datum::Bytes(big(103)));
        } else {
            trx.rollback().unwrap();
            assert_eq!(value_of(&e, 3), Datum::Bytes(big(3)));
        }
        wait_purged(&e).await;
        let after = no_leaks(&e);
        assert!(after.undo <= 8 && after.in_trees <= base.in_trees + 2, "{base:?} {after:?}");
    }
    e.shutdown().unwrap();
}

/// Readers racing rollbacks (issue 11 item 4): while one transaction keeps changing every row and
/// undoing the changes (rollback to a savepoint, a failed statement's rollback, a whole
/// rollback), other threads read the same rows with snapshots and as latest versions. Every
/// read succeeds (no "corruption" after retries) and sees only committed values.
#[tokio::test(flavor = "multi_thread", worker_threads = 3)]
async fn readers_racing_rollbacks_see_committed_rows_and_no_errors() {
    const ROUNDS: usize = 12;
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(crash_config(dir.path())).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", false), false).await.unwrap();
    let t = table(&e, "d", "t");
    let rows = 300i64;
    {
        let s = e.register_session().unwrap();
        let mut trx = e.begin(&s, opts());
        for id in 1..=rows {
            trx.insert(&t, row(id, id, "committed"), OnDuplicate::Error).await.unwrap();
        }
        trx.commit().await.unwrap();
    }
    let committed: i64 = rows * (rows + 1) / 2;
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut readers = Vec::new();
    for mode in [ReadMode::Consistent, ReadMode::Latest, ReadMode::Consistent] {
        let (e, t, done) = (e.clone(), t.clone(), done.clone());
        readers.push(tokio::spawn(async move {
            let s = e.register_session().unwrap();
            let mut reads = 0u64;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let mut trx = e.begin(&s, opts());
                let seen = scan_all(&mut trx, &t, 0, KeyRange::all(), false, mode);
                let (n, sum) = (seen.len() as i64, seen.iter().map(|r| k(r)).sum::<i64>());
                if matches!(mode, ReadMode::Consistent) {
                    assert_eq!((n, sum), (rows, committed), "a snapshot saw uncommitted changes");
                } else {
                    assert_eq!(n, rows);
                }
                drop(trx);
                reads += 1;
                tokio::task::yield_now().await;
            }
            reads
        }));
    }
    let s = e.register_session().unwrap();
    for round in 0..ROUNDS {
        let mut trx = e.begin(&s, opts());
        let sp = trx.savepoint();
        for _ in 0..3 {
            bump_all(&e, &mut trx, &t, 1_000).await; // version chains three deep
        }
        trx.rollback_to_savepoint(&sp).unwrap();
        trx.begin_statement();
        bump_all(&e, &mut trx, &t, 7).await;
        trx.rollback_statement().unwrap();
        bump_all(&e, &mut trx, &t, 1).await;
        if round % 2 == 0 {
            trx.rollback().unwrap();
        } else {
            // Undo the +1 row by row through a savepoint, then commit nothing.
            let sp = trx.savepoint();
            bump_all(&e, &mut trx, &t, -1).await;
            trx.rollback_to_savepoint(&sp).unwrap();
            trx.rollback().unwrap();
        }
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    for r in readers {
        assert!(r.await.unwrap() > 0);
    }
    assert_eq!(sum_k(&e, &t), committed);
    e.shutdown().unwrap();
}

/// A steady writer pays for its own history: each transaction's first write purges the session's
/// oldest finished transaction and reuses its one-page log. With the purge thread stopped (as if
/// it lagged: one thread against dozens of writers on two cores fell ~11,000 transactions
/// behind), the history stays at a transaction or two and the log takes no new pages.
#[tokio::test]
async fn a_steady_writer_reuses_its_own_undo_log_when_purge_lags() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(dir.path());
    // Commits are not durable for up to a second: purge need not wait for that (trx/purge.rs).
    config.flush_mode = FlushMode::WriteOnly;
    let e = Engine::open(config).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", false), false).await.unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for id in 1..=10 {
        trx.insert(&t, row(id, 0, "x"), OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
    wait_purged(&e).await;
    e.pause_purge_thread_for_test(true);
    let update = |n: i64| {
        let (e, s, t) = (&e, &s, &t);
        async move {
            let mut trx = e.begin(s, opts());
            let pk = keycodec::primary_key_from_values(t, &[Datum::Int(1 + n % 10)]).unwrap();
            let cur = trx.lock_row(t, &pk, LockMode::Exclusive).await.unwrap().unwrap();
            let mut new = cur.row.clone();
            new[1] = Datum::Int(k(&cur.row) + 1);
            trx.update(t, &pk, &cur.row, new).await.unwrap();
            trx.commit().await.unwrap();
        }
    };
    for n in 0..20 {
        update(n).await;
    }
    let undo_pages = no_leaks(&e).undo;
    let mut longest = 0;
    for n in 0..2000 {
        update(n).await;
        longest = longest.max(status_value(&e, "Innodb_history_list_length"));
    }
    assert!(longest <= 2, "the history grew to {longest} transactions");
    let r = no_leaks(&e);
    assert_eq!(r.undo, undo_pages, "undo logs took new pages: {r:?}");
    assert_eq!(sum_k(&e, &t), 2020);
    e.pause_purge_thread_for_test(false);
    wait_purged(&e).await;
}
