//! Updating part of a large BLOB shares the unchanged tail of its overflow chain instead of
//! rewriting it (issue 11 item 10, docs §4.3): the old version keeps its whole chain for
//! snapshots and rollback, purge frees only what no newer version shares, and the space audit
//! counts every page once. Prints what one update of 1 KiB in a 4 MiB BLOB (the largest row)
//! writes; tests/pagestore_blob.rs does the same for a 10 MiB value of the B+tree.
//!
//! Long variant: `SELKIE_STRESS=1 cargo test --release -p selkie-storage --test storage_tests engine_blob_sharing::`.

use crate::engine_util;

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine_util::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use selkie_storage::*;

fn blob_table(db: &str, name: &str) -> NewTable {
    NewTable {
        db: db.into(),
        name: name.into(),
        columns: vec![
            col("id", int(), false),
            col("k", int(), false),
            col("b", ColumnType::Blob { size: LobSize::Long }, true),
        ],
        primary_key: vec![ic(0)],
        indexes: vec![],
        options: TableOptions::default(),
        auto_increment_start: None,
    }
}

fn blob_row(id: i64, k: i64, b: &[u8]) -> Vec<Datum> {
    vec![Datum::Int(id), Datum::Int(k), Datum::Bytes(b.to_vec())]
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| seed.wrapping_add((i % 251) as u8).wrapping_mul(31)).collect()
}

async fn setup(dir: &std::path::Path) -> (Arc<Engine>, Arc<TableDef>) {
    let mut cfg = crash_config(dir);
    cfg.buffer_pool_bytes = 32 << 20;
    let e = Engine::open(cfg).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(blob_table("d", "t"), false).await.unwrap();
    let t = table(&e, "d", "t");
    (e, t)
}

fn pk(t: &TableDef, id: i64) -> Vec<u8> {
    keycodec::primary_key_from_values(t, &[Datum::Int(id)]).unwrap()
}

async fn insert(e: &Engine, t: &Arc<TableDef>, id: i64, b: &[u8]) {
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    trx.insert(t, blob_row(id, 0, b), OnDuplicate::Error).await.unwrap();
    trx.commit().await.unwrap();
}

/// Sets the row's BLOB (and k) in an open transaction.
async fn set_blob(trx: &mut Transaction, t: &Arc<TableDef>, id: i64, k: i64, b: &[u8]) {
    let r = trx.lock_row(t, &pk(t, id), LockMode::Exclusive).await.unwrap().unwrap();
    trx.update(t, &r.pk_key, &r.row, blob_row(id, k, b)).await.unwrap();
}

fn read_blob(e: &Engine, trx: &mut Transaction, t: &Arc<TableDef>, id: i64) -> Option<Vec<u8>> {
    let _ = e;
    trx.get(t, &[Datum::Int(id)]).unwrap().map(|r| match &r.row[2] {
        Datum::Bytes(b) => b.clone(),
        other => panic!("blob column holds {other:?}"),
    })
}

async fn settle(e: &Engine) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while status_value(e, "Innodb_history_list_length") > 0 {
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

/// (bytes logged, pages written back) by one committed update of the BLOB, everything dirty
/// written back before and after.
async fn cost_of_update(e: &Engine, t: &Arc<TableDef>, id: i64, k: i64, b: &[u8]) -> (u64, u64) {
    e.checkpoint_for_test().unwrap();
    let (lsn, pages) = (status_value(e, "Innodb_lsn_current"), status_value(e, "Innodb_pages_written"));
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    set_blob(&mut trx, t, id, k, b).await;
    trx.commit().await.unwrap();
    e.checkpoint_for_test().unwrap();
    (status_value(e, "Innodb_lsn_current") - lsn, status_value(e, "Innodb_pages_written") - pages)
}

#[tokio::test]
async fn a_small_change_in_a_big_blob_writes_a_small_part_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path()).await;
    // The largest BLOB a row can hold (rowcodec::MAX_ROW_BYTES), less the other columns.
    const LEN: usize = (4 << 20) - 1024;
    let mut value = pattern(LEN, 1);
    insert(&e, &t, 1, &value).await;
    settle(&e).await;
    let base = audit(&e);

    let mut costs = Vec::new();
    for (what, at) in [("at the end", LEN - 1024), ("in the middle", LEN / 2), ("at the start", 0)] {
        value[at..at + 1024].fill(0xEE);
        let (logged, written) = cost_of_update(&e, &t, 1, 0, &value).await;
        settle(&e).await;
        let r = audit(&e);
        eprintln!("update of 1 KiB {what} of a 4 MiB BLOB: {logged} bytes logged, {written} pages written; {r:?}");
        costs.push((logged, written));
        assert!(r.in_trees <= base.in_trees + 1, "old versions' pages were freed: {base:?} then {r:?}");
    }
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    assert!(read_blob(&e, &mut trx, &t, 1).unwrap() == value);
    drop(trx);
    // A change at the end shares nothing: the whole chain is written again, as before sharing.
    let (full_log, full_pages) = costs[0];
    assert!(full_log > LEN as u64 && full_pages > 256, "{costs:?}");
    let (mid_log, mid_pages) = costs[1];
    assert!(mid_log * 10 < full_log * 6 && mid_pages * 10 < full_pages * 6, "the middle shares half: {costs:?}");
    let (start_log, start_pages) = costs[2];
    assert!(start_log * 100 < full_log && start_pages < 20, "a change at the start shares nearly all: {costs:?}");

    // Another column changes alone: the BLOB's chain after its first page is shared.
    let (log, pages) = cost_of_update(&e, &t, 1, 5, &value).await;
    assert!(log < 64 << 10 && pages < 20, "{log} bytes logged, {pages} pages written");
    e.shutdown().unwrap();
}

/// Versions sharing tails, read by snapshots, rolled back, purged, crashed: every reader sees
/// its version whole, and at the end every page is accounted for once and freed with the row.
#[tokio::test]
async fn shared_tails_follow_versions_through_snapshots_rollback_purge_and_crashes() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path()).await;
    let mut rng = StdRng::seed_from_u64(3);
    let len = 200_000; // 13 overflow pages
    let mut current = pattern(len, 9);
    insert(&e, &t, 1, &current).await;
    insert(&e, &t, 2, &pattern(len, 10)).await;
    let s = e.register_session().unwrap();
    let mut snapshots: Vec<(Transaction, Vec<u8>)> = Vec::new();
    let rounds = if stress() { 300 } else { 40 };
    for round in 0..rounds {
        // An open snapshot of the current version, kept a few rounds (purge must spare it).
        if round % 5 == 0 {
            let mut snap = e.begin(&e.register_session().unwrap(), opts());
            assert!(read_blob(&e, &mut snap, &t, 1).unwrap() == current);
            snapshots.push((snap, current.clone()));
        }
        let mut next = current.clone();
        let at = rng.gen_range(0..len - 100);
        next[at..at + 100].fill(rng.gen());
        let mut trx = e.begin(&s, opts());
        set_blob(&mut trx, &t, 1, round, &next).await;
        // A second change in the same transaction shares with the first.
        let mut again = next.clone();
        again[len - 1] ^= 0x55;
        if rng.gen_bool(0.3) {
            set_blob(&mut trx, &t, 1, round, &again).await;
            next = again;
        }
        if rng.gen_bool(0.3) {
            trx.rollback().unwrap();
        } else {
            trx.commit().await.unwrap();
            current = next;
        }
        if snapshots.len() > 3 {
            let (mut snap, seen) = snapshots.remove(0);
            assert!(read_blob(&e, &mut snap, &t, 1).unwrap() == seen, "round {round}: a snapshot's version changed");
        }
        if round % 10 == 9 {
            let mut trx = e.begin(&s, opts());
            assert!(read_blob(&e, &mut trx, &t, 1).unwrap() == current);
        }
    }
    for (mut snap, seen) in snapshots.drain(..) {
        assert!(read_blob(&e, &mut snap, &t, 1).unwrap() == seen);
    }
    settle(&e).await;
    audit(&e);

    // An uncommitted sharing update and a committed one are in the log when the power goes.
    let mut committed = current.clone();
    committed[7] ^= 1;
    let mut trx = e.begin(&s, opts());
    set_blob(&mut trx, &t, 2, 1, &committed).await;
    trx.commit().await.unwrap();
    let mut open = e.begin(&s, opts());
    let mut lost = current.clone();
    lost[70_000] ^= 1;
    set_blob(&mut open, &t, 1, 99, &lost).await;
    // Everything logged reaches the disk first: a crash between a chain's own mtrs and the
    // leaf's would leak the new chain (docs §8), which is not what this test is about.
    e.checkpoint_for_test().unwrap();
    e.crash_for_test();
    std::mem::forget(open);
    drop(e);
    let mut cfg = crash_config(dir.path());
    cfg.buffer_pool_bytes = 32 << 20;
    let e = Engine::open(cfg).unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    assert!(read_blob(&e, &mut trx, &t, 1).unwrap() == current, "the uncommitted update was rolled back");
    assert!(read_blob(&e, &mut trx, &t, 2).unwrap() == committed);
    drop(trx);
    settle(&e).await;
    let before = audit(&e);

    // Deleting the rows frees every chain page.
    let mut trx = e.begin(&s, opts());
    for id in [1, 2] {
        let r = trx.lock_row(&t, &pk(&t, id), LockMode::Exclusive).await.unwrap().unwrap();
        trx.delete(&t, &r.pk_key, &r.row).await.unwrap();
    }
    trx.commit().await.unwrap();
    settle(&e).await;
    let after = audit(&e);
    assert!(after.in_trees + 20 < before.in_trees && after.free > before.free + 20, "{before:?} then {after:?}");
    e.shutdown().unwrap();
}
