//! No leaked pages: the trees of dropped and truncated tables and of interrupted index builds are
//! freed even when the process dies before purge gets to them (also after a checkpoint moved the
//! recovery scan past the DDL), and freeing a tree is restartable. Each test ends with a full
//! space audit: every page of the tablespace is in a live tree or on the free list, exactly once.

use crate::engine_util;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine_util::*;
use selkie_storage::testpoint::CrashPoint;
use selkie_storage::*;

/// Rows per table: wide enough that each tree spans many pages.
const ROWS: i64 = 2000;

async fn fill(e: &Engine, t: &Arc<TableDef>) {
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for id in 0..ROWS {
        let c = format!("{id:06}-{}", "x".repeat(90));
        trx.insert(t, row(id, id % 7, &c), OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
}

async fn new_table(e: &Engine, name: &str) -> Arc<TableDef> {
    e.create_table(sbtest("d", name, false), false).await.unwrap();
    let t = table(e, "d", name);
    fill(e, &t).await;
    t
}

/// Waits until purge freed every pending tree and processed every finished transaction.
async fn wait_no_pending(e: &Engine) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while status_value(e, "Selkie_pending_trees") > 0
        || status_value(e, "Selkie_pending_tree_frees") > 0
        || status_value(e, "Innodb_history_list_length") > 0
    {
        assert!(Instant::now() < deadline, "pending trees were never freed");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The space audit: nothing leaked, nothing used twice.
fn audit(e: &Engine) -> SpaceReport {
    let r = e.space_report().unwrap();
    assert_eq!(r.leaked, 0, "leaked pages: {r:?}");
    assert_eq!(r.doubly_used, 0, "pages used twice: {r:?}");
    assert_eq!(r.total_pages, 1 + r.in_trees + r.free + r.pending + r.undo, "{r:?}");
    r
}

fn crash_and_reopen(e: Arc<Engine>, dir: &Path) -> Arc<Engine> {
    e.crash_for_test();
    drop(e);
    Engine::open(crash_config(dir)).unwrap()
}

async fn setup(dir: &Path) -> Arc<Engine> {
    let e = Engine::open(crash_config(dir)).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e
}

fn count(e: &Engine, t: &Arc<TableDef>, index: usize) -> usize {
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    scan_all(&mut trx, t, index, KeyRange::all(), false, ReadMode::Consistent).len()
}

#[tokio::test]
async fn ddl_without_crashes_leaks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path()).await;
    wait_no_pending(&e).await;
    let base = audit(&e);
    new_table(&e, "a").await;
    new_table(&e, "b").await;
    wait_no_pending(&e).await;
    let grown = audit(&e);
    assert!(grown.in_trees > base.in_trees + 20, "the tables span many pages: {grown:?}");
    e.create_index("d", "a", NewIndex { name: "c".into(), columns: vec![ic(2)], unique: false }).await.unwrap();
    // A failed build (duplicate in a unique index) frees its tree at once.
    let dup = e.create_index("d", "a", NewIndex { name: "u".into(), columns: vec![ic(1)], unique: true }).await;
    assert!(matches!(dup, Err(StorageError::DuplicateKey { .. })), "{dup:?}");
    e.drop_index("d", "a", "c").await.unwrap();
    e.truncate_table("d", "b").await.unwrap();
    e.drop_table("d", "a", false).await.unwrap();
    wait_no_pending(&e).await;
    let after = audit(&e);
    assert!(after.free >= grown.in_trees - base.in_trees - 2, "dropped pages are free again: {after:?}");
    e.shutdown().unwrap();
}

/// DROP TABLE and TRUNCATE commit while an old snapshot keeps purge from freeing the old trees;
/// a checkpoint then moves the recovery scan past both commits; the process dies. The trees are
/// still freed after the restart (the checkpoint re-logged them).
#[tokio::test]
async fn dropped_trees_are_freed_after_a_crash_before_purge() {
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path()).await;
    new_table(&e, "a").await;
    let b = new_table(&e, "b").await;
    wait_no_pending(&e).await;
    let before = audit(&e);

    let s = e.register_session().unwrap();
    let mut old = e.begin(&s, opts());
    assert_eq!(old.get(&b, &[Datum::Int(1)]).unwrap().map(|r| r.row[0].clone()), Some(Datum::Int(1)));
    e.drop_table("d", "a", false).await.unwrap();
    e.truncate_table("d", "b").await.unwrap();
    assert_eq!(status_value(&e, "Selkie_pending_trees"), 4, "a's and b's old trees wait for the old snapshot");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(status_value(&e, "Selkie_pending_trees"), 4, "purge must not free them while the snapshot is open");
    e.checkpoint_for_test().unwrap();
    drop(old);
    drop(s);

    let e = crash_and_reopen(e, dir.path());
    wait_no_pending(&e).await;
    let after = audit(&e);
    assert!(e.catalog().table("d", "a").is_none());
    let b = table(&e, "d", "b");
    assert_eq!(count(&e, &b, 0), 0);
    assert!(after.free + 4 >= before.in_trees - after.in_trees, "the old trees' pages are free: {before:?} {after:?}");
    // The freed pages are reusable.
    let c = new_table(&e, "c").await;
    assert_eq!(count(&e, &c, 0), ROWS as usize);
    assert_eq!(count(&e, &c, 1), ROWS as usize);
    wait_no_pending(&e).await;
    audit(&e);
}

/// CREATE INDEX dies half way through filling the new tree: after the restart the table has no
/// such index and the tree's pages are free again.
#[tokio::test]
async fn an_interrupted_index_build_leaves_no_pages_behind() {
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path()).await;
    new_table(&e, "a").await;
    wait_no_pending(&e).await;
    let before = audit(&e);
    e.arm_crash_point_for_test(CrashPoint::IndexBuild);
    let r = e.create_index("d", "a", NewIndex { name: "c".into(), columns: vec![ic(2)], unique: false }).await;
    assert!(r.is_err(), "the build was interrupted");
    assert!(e.crash_point_fired_for_test());

    let e = crash_and_reopen(e, dir.path());
    let a = table(&e, "d", "a");
    assert!(a.index_by_name("c").is_none());
    wait_no_pending(&e).await;
    let after = audit(&e);
    assert_eq!(after.in_trees, before.in_trees, "{before:?} {after:?}");
    assert!(after.free >= 4, "the partial index's pages are free: {after:?}");
    // The index can be built now, and reads through it agree with the table.
    e.create_index("d", "a", NewIndex { name: "c".into(), columns: vec![ic(2)], unique: false }).await.unwrap();
    let a = table(&e, "d", "a");
    assert_eq!(count(&e, &a, 2), ROWS as usize);
    wait_no_pending(&e).await;
    audit(&e);
}

/// Purge dies in the middle of freeing a dropped tree: the freeing continues after the restart,
/// no page is lost or freed twice, and the pages are reused correctly.
#[tokio::test]
async fn an_interrupted_tree_free_continues_after_restart() {
    let dir = tempfile::tempdir().unwrap();
    let e = setup(dir.path()).await;
    new_table(&e, "a").await;
    new_table(&e, "b").await;
    wait_no_pending(&e).await;
    let before = audit(&e);
    e.arm_crash_point_for_test(CrashPoint::TreeFree);
    e.drop_table("d", "a", false).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !e.crash_point_fired_for_test() {
        assert!(Instant::now() < deadline, "purge never started freeing the dropped tree");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    let e = crash_and_reopen(e, dir.path());
    wait_no_pending(&e).await;
    let after = audit(&e);
    assert!(e.catalog().table("d", "a").is_none());
    assert!(after.free + 2 >= before.in_trees - after.in_trees, "{before:?} {after:?}");
    let b = table(&e, "d", "b");
    assert_eq!(count(&e, &b, 0), ROWS as usize);
    let c = new_table(&e, "c").await;
    assert_eq!(count(&e, &c, 1), ROWS as usize);
    assert_eq!(count(&e, &b, 1), ROWS as usize);
    wait_no_pending(&e).await;
    audit(&e);
}
