//! Row locks through the engine API: waits and grants, lock wait timeout (1205, transaction
//! still usable), deadlock (1213, the victim rolled back), concurrent increments.

use crate::engine_util;

use std::sync::Arc;
use std::time::Duration;

use engine_util::*;
use selkie_storage::*;

async fn setup() -> (tempfile::TempDir, Arc<Engine>, Arc<TableDef>) {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(config(dir.path())).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", true), false).await.unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for i in 1..=5 {
        trx.insert(&t, row(i, 0, &format!("c{i}")), OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
    (dir, e, t)
}

fn pk(t: &TableDef, id: i64) -> Vec<u8> {
    keycodec::primary_key_from_values(t, &[Datum::Int(id)]).unwrap()
}

fn k_of(r: &[Datum]) -> i64 {
    if let Datum::Int(k) = r[1] {
        k
    } else {
        panic!("{r:?}")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiter_is_granted_when_the_holder_commits() {
    let (_d, e, t) = setup().await;
    let (sa, sb) = (e.register_session().unwrap(), e.register_session().unwrap());
    let mut a = e.begin(&sa, opts());
    let r = a.lock_row(&t, &pk(&t, 1), LockMode::Exclusive).await.unwrap().unwrap();
    a.update(&t, &pk(&t, 1), &r.row, row(1, 42, "c1")).await.unwrap();

    let (e2, t2) = (e.clone(), t.clone());
    let waiter = tokio::spawn(async move {
        let mut b = e2.begin(&sb, opts());
        let got = b.lock_row(&t2, &pk(&t2, 1), LockMode::Shared).await.unwrap().unwrap();
        b.commit().await.unwrap();
        got
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!waiter.is_finished(), "the shared lock must wait for the exclusive one");
    assert_eq!(status_value(&e, "Innodb_row_lock_current_waits"), 1);
    a.commit().await.unwrap();
    let got = waiter.await.unwrap();
    assert_eq!(k_of(&got.row), 42, "the waiter reads the version committed by the holder");
    assert!(status_value(&e, "Innodb_row_lock_waits") >= 1);
}

#[tokio::test]
async fn lock_wait_timeout_leaves_the_transaction_usable() {
    let (_d, e, t) = setup().await;
    let (sa, sb) = (e.register_session().unwrap(), e.register_session().unwrap());
    let mut a = e.begin(&sa, opts());
    a.lock_row(&t, &pk(&t, 2), LockMode::Exclusive).await.unwrap();
    let mut b = e.begin(&sb, opts_with(IsolationLevel::RepeatableRead, Duration::from_millis(100)));
    b.begin_statement();
    b.insert(&t, row(10, 0, "x"), OnDuplicate::Error).await.unwrap();
    b.begin_statement();
    b.insert(&t, row(11, 0, "y"), OnDuplicate::Error).await.unwrap();
    let err = b.lock_row(&t, &pk(&t, 2), LockMode::Exclusive).await.unwrap_err();
    assert_eq!(err.mysql_code(), (1205, "HY000"));
    // The SQL layer rolls the statement back; the transaction goes on.
    b.rollback_statement().unwrap();
    b.begin_statement();
    b.insert(&t, row(12, 0, "z"), OnDuplicate::Error).await.unwrap();
    b.commit().await.unwrap();
    a.rollback().unwrap();
    let mut c = e.begin(&sa, opts());
    let all = scan_all(&mut c, &t, 0, KeyRange::all(), false, ReadMode::Consistent);
    let ids: Vec<i64> = all.iter().map(|r| if let Datum::Int(i) = r[0] { i } else { panic!() }).collect();
    assert_eq!(ids, vec![1, 2, 3, 4, 5, 10, 12]);
    assert_eq!(status_value(&e, "Innodb_row_lock_timeouts"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crossing_transactions_deadlock_and_the_victim_is_rolled_back() {
    let (_d, e, t) = setup().await;
    let (sa, sb) = (e.register_session().unwrap(), e.register_session().unwrap());
    let mut a = e.begin(&sa, opts());
    let mut b = e.begin(&sb, opts());
    a.lock_row(&t, &pk(&t, 1), LockMode::Exclusive).await.unwrap();
    b.insert(&t, row(20, 0, "b-insert"), OnDuplicate::Error).await.unwrap();
    b.lock_row(&t, &pk(&t, 2), LockMode::Exclusive).await.unwrap();
    let t2 = t.clone();
    let a_task = tokio::spawn(async move {
        let r = a.lock_row(&t2, &pk(&t2, 2), LockMode::Exclusive).await;
        (a, r)
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let err = b.lock_row(&t, &pk(&t, 1), LockMode::Exclusive).await.unwrap_err();
    assert_eq!(err.mysql_code(), (1213, "40001"));
    assert!(!b.has_writes(), "the victim's transaction was rolled back");
    let (a, r) = a_task.await.unwrap();
    assert!(r.unwrap().is_some(), "the survivor gets the lock");
    a.commit().await.unwrap();
    // The victim's insert is gone, and its object works as a new transaction.
    assert!(b.get(&t, &[Datum::Int(20)]).unwrap().is_none());
    b.insert(&t, row(21, 0, "again"), OnDuplicate::Error).await.unwrap();
    b.commit().await.unwrap();
    assert_eq!(status_value(&e, "Innodb_deadlocks"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_increments_are_serialized() {
    let (_d, e, t) = setup().await;
    let tasks = 8;
    let per_task = if stress() { 200 } else { 25 };
    let mut handles = Vec::new();
    for _ in 0..tasks {
        let (e, t) = (e.clone(), t.clone());
        handles.push(tokio::spawn(async move {
            let s = e.register_session().unwrap();
            let mut done = 0;
            while done < per_task {
                let mut trx = e.begin(&s, opts());
                trx.begin_statement();
                let r = match trx.lock_row(&t, &pk(&t, 3), LockMode::Exclusive).await {
                    Ok(r) => r.unwrap(),
                    Err(StorageError::Deadlock) => continue,
                    Err(err) => panic!("{err}"),
                };
                let mut new = r.row.clone();
                new[1] = Datum::Int(k_of(&r.row) + 1);
                trx.update(&t, &r.pk_key, &r.row, new).await.unwrap();
                trx.commit().await.unwrap();
                done += 1;
            }
        }));
    }
    for h in handles {
        h.await.unwrap();
    }
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    assert_eq!(k_of(&trx.get(&t, &[Datum::Int(3)]).unwrap().unwrap().row), tasks * per_task);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insert_waits_for_uncommitted_duplicate_and_then_reports_it() {
    let (_d, e, t) = setup().await;
    let (sa, sb) = (e.register_session().unwrap(), e.register_session().unwrap());
    let mut a = e.begin(&sa, opts());
    a.insert(&t, row(30, 0, "uniq"), OnDuplicate::Error).await.unwrap();
    let (e2, t2) = (e.clone(), t.clone());
    let waiter = tokio::spawn(async move {
        let mut b = e2.begin(&sb, opts());
        b.insert(&t2, row(31, 0, "uniq"), OnDuplicate::Error).await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!waiter.is_finished(), "the unique value is locked by the uncommitted insert");
    a.commit().await.unwrap();
    let err = waiter.await.unwrap().unwrap_err();
    assert_eq!(err.to_string(), "Duplicate entry 'uniq' for key 'u'");
}

/// Candidates for UPDATE/DELETE through a secondary index (Latest mode) include rows whose
/// indexed columns another open transaction is changing or deleting, with their committed
/// contents: if that change rolls back, the row must not have been missed. Each row comes back
/// once, though it is then reachable through its old and its new entry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latest_reads_through_a_secondary_index_keep_rows_with_pending_changes() {
    let (_d, e, t) = setup().await; // rows 1..=5, k = 0
    let (sa, sb) = (e.register_session().unwrap(), e.register_session().unwrap());
    let k_range = |lo: i64, hi: i64| KeyRange {
        lower: std::ops::Bound::Included(vec![Datum::Int(lo)]),
        upper: std::ops::Bound::Included(vec![Datum::Int(hi)]),
    };
    let mut a = e.begin(&sa, opts());
    // Row 1 moves from k = 0 to k = 9; row 2 is deleted; neither is committed.
    let r = a.lock_row(&t, &pk(&t, 1), LockMode::Exclusive).await.unwrap().unwrap();
    a.update(&t, &pk(&t, 1), &r.row, row(1, 9, "c1")).await.unwrap();
    let r = a.lock_row(&t, &pk(&t, 2), LockMode::Exclusive).await.unwrap().unwrap();
    a.delete(&t, &pk(&t, 2), &r.row).await.unwrap();

    let mut b = e.begin(&sb, opts());
    let at_zero = scan_all(&mut b, &t, 1, k_range(0, 0), false, ReadMode::Latest);
    let mut got: Vec<(i64, i64)> = at_zero.iter().map(|r| (id_of(r), k_of(r))).collect();
    got.sort();
    assert_eq!(got, vec![(1, 0), (2, 0), (3, 0), (4, 0), (5, 0)], "committed contents of the pending rows");
    let all = scan_all(&mut b, &t, 1, k_range(0, 9), false, ReadMode::Latest);
    let mut ids: Vec<i64> = all.iter().map(id_of).collect();
    ids.sort();
    assert_eq!(ids, vec![1, 2, 3, 4, 5], "row 1 is returned once, not through both entries");
    // The caller's lock_row waits for `a`; after its rollback the committed rows are back.
    let b_locks = tokio::spawn(async move {
        let r1 = b.lock_row(&t, &pk(&t, 1), LockMode::Exclusive).await.unwrap().unwrap();
        let r2 = b.lock_row(&t, &pk(&t, 2), LockMode::Exclusive).await.unwrap().unwrap();
        b.commit().await.unwrap();
        (k_of(&r1.row), k_of(&r2.row))
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!b_locks.is_finished());
    a.rollback().unwrap();
    assert_eq!(b_locks.await.unwrap(), (0, 0));
}

fn id_of(r: &Vec<Datum>) -> i64 {
    if let Datum::Int(id) = r[0] {
        id
    } else {
        panic!("{r:?}")
    }
}
