//! Space freed by deletes is reused (issue 11 item 10, docs §4.3, §4.9): purge removing deleted
//! rows and rollback removing inserted ones merge the emptied pages back to the free list;
//! OPTIMIZE TABLE rebuilds a table densely and frees the old trees, also across a crash in the
//! middle of the copy. Each test ends with a space audit (nothing leaked, nothing used twice).

use crate::engine_util;

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine_util::*;
use selkie_storage::testpoint::CrashPoint;
use selkie_storage::*;

const ROWS: i64 = 3000;

fn c_of(id: i64) -> String {
    format!("{id:06}-{}", "x".repeat(90))
}

async fn fill(e: &Engine, t: &Arc<TableDef>, ids: impl Iterator<Item = i64>) {
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for id in ids {
        trx.insert(t, row(id, id % 7, &c_of(id)), OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
}

async fn delete_where(e: &Engine, t: &Arc<TableDef>, keep: impl Fn(i64) -> bool) {
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for id in 0..ROWS {
        if keep(id) {
            continue;
        }
        let pk = keycodec::primary_key_from_values(t, &[Datum::Int(id)]).unwrap();
        let r = trx.lock_row(t, &pk, LockMode::Exclusive).await.unwrap().unwrap();
        trx.delete(t, &r.pk_key, &r.row).await.unwrap();
    }
    trx.commit().await.unwrap();
}

/// Waits until purge has processed every finished transaction and freed every pending tree.
async fn settle(e: &Engine) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while status_value(e, "Innodb_history_list_length") > 0
        || status_value(e, "Selkie_pending_trees") > 0
        || status_value(e, "Selkie_pending_tree_frees") > 0
    {
        assert!(Instant::now() < deadline, "purge never settled");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn audit(e: &Engine) -> SpaceReport {
    let r = e.space_report().unwrap();
    assert_eq!((r.leaked, r.doubly_used), (0, 0), "{r:?}");
    assert_eq!(r.total_pages, 1 + r.in_trees + r.free + r.pending + r.undo, "{r:?}");
    r
}

/// Every row through every index, in order.
fn rows_by_index(e: &Engine, t: &Arc<TableDef>) -> Vec<Vec<Vec<Datum>>> {
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    (0..=t.secondary.len()).map(|ix| scan_all(&mut trx, t, ix, KeyRange::all(), false, ReadMode::Consistent)).collect()
}

async fn setup(dir: &std::path::Path) -> (Arc<Engine>, Arc<TableDef>) {
    let e = Engine::open(crash_config(dir)).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", true), false).await.unwrap();
    let t = table(&e, "d", "t");
    (e, t)
}

#[tokio::test]
async fn purge_and_rollback_give_emptied_pages_back() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path()).await;
    settle(&e).await;
    let empty = audit(&e);
    fill(&e, &t, 0..ROWS).await;
    settle(&e).await;
    let full = audit(&e);
    let table_pages = full.in_trees - empty.in_trees;
    assert!(table_pages > 40, "{empty:?} then {full:?}");

    // Deleting 90% of the rows: once purge removed them, the trees shrink to about a tenth.
    delete_where(&e, &t, |id| id % 10 == 0).await;
    settle(&e).await;
    let thinned = audit(&e);
    let left = thinned.in_trees - empty.in_trees;
    assert!(left * 2 < table_pages, "{left} of {table_pages} pages still in the trees after deleting 90%");
    assert!(thinned.free >= full.free + table_pages - left - 5, "{thinned:?}");
    assert_eq!(rows_by_index(&e, &t)[0].len() as i64, ROWS / 10);

    // A rolled-back insert of many rows: its pages go back too.
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for id in ROWS..3 * ROWS {
        trx.insert(&t, row(id, id % 7, &c_of(id)), OnDuplicate::Error).await.unwrap();
    }
    trx.rollback().unwrap();
    settle(&e).await;
    let after = audit(&e);
    assert!(after.in_trees <= thinned.in_trees + 3, "rollback left pages in the trees: {thinned:?} then {after:?}");
    e.shutdown().unwrap();
}

#[tokio::test]
async fn optimize_rebuilds_densely_and_frees_the_old_trees() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path()).await;
    // Rows in random key order leave pages partly empty; deleting two thirds of them leaves the
    // remaining pages at or above the merge threshold, which OPTIMIZE packs.
    let mut ids: Vec<i64> = (0..ROWS).collect();
    ids.sort_by_key(|id| (id * 7919) % ROWS);
    fill(&e, &t, ids.into_iter()).await;
    delete_where(&e, &t, |id| id % 3 == 0).await;
    settle(&e).await;
    let before = audit(&e);
    let rows = rows_by_index(&e, &t);
    let auto_inc = e.peek_auto_increment(&t);
    let s = e.register_session().unwrap();
    let mut old_snapshot = e.begin(&s, opts());
    assert_eq!(scan_all(&mut old_snapshot, &t, 0, KeyRange::all(), false, ReadMode::Consistent).len(), rows[0].len());

    e.optimize_table("d", "t").await.unwrap();
    let t2 = table(&e, "d", "t");
    assert!(t2.indexes().zip(t.indexes()).all(|(a, b)| a.root != b.root && a.id != b.id), "new trees and index ids");
    assert_eq!(rows_by_index(&e, &t2), rows);
    // Kept, or raised past the largest value (these rows were written through the engine with
    // explicit ids, which the SQL layer would have counted), as InnoDB's recreate does.
    let largest = rows[0].iter().map(|r| match r[0] {
        Datum::Int(id) => id as u64,
        _ => unreachable!(),
    });
    assert_eq!(e.peek_auto_increment(&t2), auto_inc.max(largest.max().unwrap() + 1));
    // A snapshot older than the rebuild cannot read the new trees (as after TRUNCATE: 1412).
    let old = old_snapshot.scan(&t2, 0, KeyRange::all(), false, ReadMode::Consistent);
    assert!(matches!(old, Err(StorageError::TableDefinitionChanged)), "{:?}", old.err());
    drop(old_snapshot);
    settle(&e).await;
    let after = audit(&e);
    assert!(after.in_trees * 10 < before.in_trees * 7, "the rebuilt trees are not denser: {before:?} then {after:?}");
    assert!(after.free > before.free, "{before:?} then {after:?}");

    // Still a table like any other: writes and a restart.
    fill(&e, &t2, ROWS..ROWS + 100).await;
    e.shutdown().unwrap();
    drop(e);
    let e = Engine::open(crash_config(dir.path())).unwrap();
    let t3 = table(&e, "d", "t");
    assert_eq!(rows_by_index(&e, &t3)[0].len(), rows[0].len() + 100);
    settle(&e).await;
    audit(&e);
    e.shutdown().unwrap();
}

#[tokio::test]
async fn a_crash_in_the_middle_of_optimize_leaves_the_table_and_leaks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path()).await;
    fill(&e, &t, 0..ROWS).await;
    delete_where(&e, &t, |id| id % 2 == 0).await;
    settle(&e).await;
    let rows = rows_by_index(&e, &t);
    e.arm_crash_point_for_test(CrashPoint::TableRebuild);
    assert!(e.optimize_table("d", "t").await.is_err());
    assert!(e.crash_point_fired_for_test());
    e.crash_for_test();
    drop(e);

    let e = Engine::open(crash_config(dir.path())).unwrap();
    let t2 = table(&e, "d", "t");
    assert_eq!(t2.primary.root, t.primary.root, "the catalog still names the old trees");
    assert_eq!(rows_by_index(&e, &t2), rows);
    settle(&e).await;
    let r = audit(&e);
    assert_eq!(r.pending, 0, "the partial trees were freed: {r:?}");
    // And it works after the restart.
    e.optimize_table("d", "t").await.unwrap();
    assert_eq!(rows_by_index(&e, &table(&e, "d", "t")), rows);
    settle(&e).await;
    audit(&e);
    e.shutdown().unwrap();
}

#[tokio::test]
async fn optimize_waits_for_writers_of_the_table_and_fails_cleanly_after_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = crash_config(dir.path());
    cfg.lock_wait_timeout = Duration::from_millis(300);
    let e = Engine::open(cfg).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", false), false).await.unwrap();
    let t = table(&e, "d", "t");
    fill(&e, &t, 0..10).await;
    let s = e.register_session().unwrap();
    let mut writer = e.begin(&s, opts());
    writer.insert(&t, row(100, 1, "open"), OnDuplicate::Error).await.unwrap();
    assert!(matches!(e.optimize_table("d", "t").await, Err(StorageError::LockWaitTimeout)));
    writer.commit().await.unwrap();
    e.optimize_table("d", "t").await.unwrap();
    assert_eq!(rows_by_index(&e, &table(&e, "d", "t"))[0].len(), 11);
    assert!(matches!(e.optimize_table("d", "nope").await, Err(StorageError::NoSuchTable { .. })));
    settle(&e).await;
    audit(&e);
    e.shutdown().unwrap();
}
