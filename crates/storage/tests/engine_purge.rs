//! Purge: history length returns to ~0 without open views; an open old snapshot keeps its
//! versions readable; delete-marked records are removed once nobody needs them (also those
//! left from before a restart).

use crate::engine_util;

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine_util::*;
use selkie_storage::*;

async fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < Duration::from_secs(20), "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn pk(t: &TableDef, id: i64) -> Vec<u8> {
    keycodec::primary_key_from_values(t, &[Datum::Int(id)]).unwrap()
}

/// Inserts `n` rows, updates each `updates` times (k and c change), deletes every other one;
/// one transaction per 25 rows.
async fn churn(e: &Engine, t: &Arc<TableDef>, n: i64, updates: i64) {
    let s = e.register_session().unwrap();
    for chunk in (0..n).collect::<Vec<_>>().chunks(25) {
        let mut trx = e.begin(&s, opts());
        for &i in chunk {
            trx.insert(t, row(i, 0, &format!("v{i}")), OnDuplicate::Error).await.unwrap();
        }
        trx.commit().await.unwrap();
        let mut trx = e.begin(&s, opts());
        for u in 1..=updates {
            for &i in chunk {
                let r = trx.lock_row(t, &pk(t, i), LockMode::Exclusive).await.unwrap().unwrap();
                trx.update(t, &r.pk_key, &r.row, row(i, u, &format!("v{i}-{u}"))).await.unwrap();
            }
        }
        for &i in chunk.iter().filter(|i| *i % 2 == 0) {
            let r = trx.lock_row(t, &pk(t, i), LockMode::Exclusive).await.unwrap().unwrap();
            trx.delete(t, &r.pk_key, &r.row).await.unwrap();
        }
        trx.commit().await.unwrap();
    }
}

async fn setup() -> (tempfile::TempDir, Arc<Engine>, Arc<TableDef>) {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(crash_config(dir.path())).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", false), false).await.unwrap();
    let t = table(&e, "d", "t");
    (dir, e, t)
}

#[tokio::test]
async fn history_drains_without_open_views() {
    let (_d, e, t) = setup().await;
    let n = if stress() { 2000 } else { 200 };
    churn(&e, &t, n, 2).await;
    wait_until("history to drain", || status_value(&e, "Innodb_history_list_length") == 0).await;
    wait_until("delete-marked records to be purged", || {
        e.physical_records(&t, 0).unwrap().1 == 0 && e.physical_records(&t, 1).unwrap().1 == 0
    })
    .await;
    assert_eq!(e.physical_records(&t, 0).unwrap(), (n as u64 / 2, 0));
    assert_eq!(e.physical_records(&t, 1).unwrap(), (n as u64 / 2, 0));
    assert_eq!(e.approx_row_count(&t), n as u64 / 2);
}

#[tokio::test]
async fn an_old_snapshot_keeps_its_versions() {
    let (_d, e, t) = setup().await;
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for i in 0..50 {
        trx.insert(&t, row(i, 0, "orig"), OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
    let reader_slot = e.register_session().unwrap();
    let mut old = e.begin(&reader_slot, opts());
    let snapshot = scan_all(&mut old, &t, 0, KeyRange::all(), false, ReadMode::Consistent);
    assert_eq!(snapshot.len(), 50);

    let mut w = e.begin(&s, opts());
    for i in 0..50 {
        let r = w.lock_row(&t, &pk(&t, i), LockMode::Exclusive).await.unwrap().unwrap();
        if i % 5 == 0 {
            w.delete(&t, &r.pk_key, &r.row).await.unwrap();
        } else {
            w.update(&t, &r.pk_key, &r.row, row(i, 9, "new")).await.unwrap();
        }
    }
    w.commit().await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(status_value(&e, "Innodb_history_list_length") >= 1, "the old view holds the history");
    assert_eq!(e.physical_records(&t, 0).unwrap().1, 10, "deleted rows stay while the old view may read them");
    assert_eq!(scan_all(&mut old, &t, 0, KeyRange::all(), false, ReadMode::Consistent), snapshot);
    let by_k = scan_all(&mut old, &t, 1, KeyRange::point(vec![Datum::Int(0)]), false, ReadMode::Consistent);
    assert_eq!(by_k, snapshot);
    old.commit().await.unwrap();
    wait_until("history to drain", || status_value(&e, "Innodb_history_list_length") == 0).await;
    wait_until("purge", || e.physical_records(&t, 0).unwrap().1 == 0 && e.physical_records(&t, 1).unwrap().1 == 0)
        .await;
}

#[tokio::test]
async fn delete_marked_leftovers_of_a_crash_are_removed_when_met() {
    let (dir, e, t) = setup().await;
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for i in 0..20 {
        trx.insert(&t, row(i, 0, "x"), OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
    // An open view keeps purge from removing the delete-marked records before the crash.
    let holder = e.register_session().unwrap();
    let mut view = e.begin(&holder, opts());
    view.get(&t, &[Datum::Int(0)]).unwrap();
    let mut w = e.begin(&s, opts());
    for i in 0..10 {
        let r = w.lock_row(&t, &pk(&t, i), LockMode::Exclusive).await.unwrap().unwrap();
        w.delete(&t, &r.pk_key, &r.row).await.unwrap();
    }
    w.commit().await.unwrap();
    assert_eq!(e.physical_records(&t, 0).unwrap(), (10, 10));
    e.crash_for_test();
    drop((view, holder, s, t));
    drop(e);

    let e = Engine::open(crash_config(dir.path())).unwrap();
    let t = table(&e, "d", "t");
    assert_eq!(e.physical_records(&t, 0).unwrap(), (10, 10), "the leftovers survived the crash");
    let s = e.register_session().unwrap();
    let mut r = e.begin(&s, opts());
    assert_eq!(scan_all(&mut r, &t, 0, KeyRange::all(), false, ReadMode::Consistent).len(), 10);
    assert_eq!(scan_all(&mut r, &t, 1, KeyRange::all(), false, ReadMode::Consistent).len(), 10);
    r.commit().await.unwrap();
    wait_until("leftovers to be purged", || {
        e.physical_records(&t, 0).unwrap() == (10, 0) && e.physical_records(&t, 1).unwrap() == (10, 0)
    })
    .await;
}
