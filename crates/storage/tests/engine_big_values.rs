//! Rows larger than 4 MiB (up to max_allowed_packet, 1 GiB): their overflow chain is written
//! ahead of the row's mtr (trx/big_value.rs), pending until the row links it, so an error, a
//! rollback or a crash between the two frees its pages, and a log much smaller than the value
//! does not stop the writer (it waits for checkpoints between the chain's mtrs).

use crate::engine_util;

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine_util::*;
use selkie_storage::testpoint::CrashPoint;
use selkie_storage::*;

fn blob_table() -> NewTable {
    NewTable {
        db: "d".into(),
        name: "t".into(),
        columns: vec![
            col("id", int(), false),
            col("a", ColumnType::Blob { size: LobSize::Long }, true),
            col("b", ColumnType::Blob { size: LobSize::Long }, true),
        ],
        primary_key: vec![ic(0)],
        indexes: vec![],
        options: TableOptions::default(),
        auto_increment_start: None,
    }
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| seed.wrapping_add((i % 251) as u8).wrapping_mul(31) ^ (i >> 14) as u8).collect()
}

fn row(id: i64, a: &[u8], b: Option<&[u8]>) -> Vec<Datum> {
    vec![Datum::Int(id), Datum::Bytes(a.to_vec()), b.map_or(Datum::Null, |b| Datum::Bytes(b.to_vec()))]
}

async fn open(dir: &std::path::Path, log_capacity: Option<u64>) -> (Arc<Engine>, Arc<TableDef>) {
    let mut cfg = crash_config(dir);
    if let Some(c) = log_capacity {
        cfg.log_capacity = c;
    }
    let e = Engine::open(cfg).unwrap();
    if e.catalog().tables.is_empty() {
        e.create_database(db("d"), false).await.unwrap();
        e.create_table(blob_table(), false).await.unwrap();
    }
    let t = table(&e, "d", "t");
    (e, t)
}

fn read(trx: &mut Transaction, t: &Arc<TableDef>, id: i64) -> Option<Vec<Datum>> {
    trx.get(t, &[Datum::Int(id)]).unwrap().map(|r| r.row)
}

fn pk(t: &TableDef, id: i64) -> Vec<u8> {
    keycodec::primary_key_from_values(t, &[Datum::Int(id)]).unwrap()
}

async fn settle(e: &Engine) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while status_value(e, "Innodb_history_list_length") > 0 || e.space_report().unwrap().pending > 0 {
        assert!(Instant::now() < deadline, "purge never settled");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn audit(e: &Engine) -> SpaceReport {
    let r = e.space_report().unwrap();
    assert_eq!((r.leaked, r.doubly_used, r.pending), (0, 0, 0), "{r:?}");
    r
}

#[tokio::test]
async fn rows_of_tens_of_mib_insert_update_roll_back_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = open(dir.path(), None).await;
    let s = e.register_session().unwrap();
    let v20 = pattern(20 << 20, 1);
    let (a6, b7) = (pattern(6 << 20, 2), pattern(7 << 20, 3));

    let mut trx = e.begin(&s, opts());
    trx.insert(&t, row(1, &v20, None), OnDuplicate::Error).await.unwrap();
    trx.insert(&t, row(2, &a6, Some(&b7)), OnDuplicate::Error).await.unwrap();
    trx.commit().await.unwrap();
    let mut trx = e.begin(&s, opts());
    assert!(read(&mut trx, &t, 1).unwrap() == row(1, &v20, None));
    assert!(read(&mut trx, &t, 2).unwrap() == row(2, &a6, Some(&b7)));
    trx.commit().await.unwrap();

    // A rolled-back insert and update: the before-image comes back, the new chains are freed.
    let v9 = pattern(9 << 20, 4);
    let mut trx = e.begin(&s, opts());
    trx.insert(&t, row(3, &v9, None), OnDuplicate::Error).await.unwrap();
    let r = trx.lock_row(&t, &pk(&t, 1), LockMode::Exclusive).await.unwrap().unwrap();
    trx.update(&t, &r.pk_key, &r.row, row(1, &v9, Some(&a6))).await.unwrap();
    assert!(read(&mut trx, &t, 1).unwrap() == row(1, &v9, Some(&a6)));
    trx.rollback().unwrap();
    let mut trx = e.begin(&s, opts());
    assert!(read(&mut trx, &t, 1).unwrap() == row(1, &v20, None));
    assert!(read(&mut trx, &t, 3).is_none());
    // A committed update, read by a snapshot older than it (another session's) and by a new one.
    let s2 = e.register_session().unwrap();
    let mut old = e.begin(&s2, opts());
    assert!(read(&mut old, &t, 1).unwrap() == row(1, &v20, None));
    let r = trx.lock_row(&t, &pk(&t, 1), LockMode::Exclusive).await.unwrap().unwrap();
    trx.update(&t, &r.pk_key, &r.row, row(1, &v9, None)).await.unwrap();
    trx.commit().await.unwrap();
    assert!(read(&mut old, &t, 1).unwrap() == row(1, &v20, None));
    old.commit().await.unwrap();
    let mut trx = e.begin(&s, opts());
    assert!(read(&mut trx, &t, 1).unwrap() == row(1, &v9, None));
    trx.commit().await.unwrap();
    settle(&e).await;
    audit(&e);

    // Survives a clean restart.
    drop(s);
    drop(s2);
    e.shutdown().unwrap();
    drop(e);
    let (e, t) = open(dir.path(), None).await;
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    assert!(read(&mut trx, &t, 1).unwrap() == row(1, &v9, None));
    assert!(read(&mut trx, &t, 2).unwrap() == row(2, &a6, Some(&b7)));
    trx.commit().await.unwrap();
    audit(&e);
}

#[tokio::test]
async fn a_crash_between_the_chain_and_the_row_frees_the_chain() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = open(dir.path(), None).await;
    let s = e.register_session().unwrap();
    let v = pattern(12 << 20, 5);
    let mut trx = e.begin(&s, opts());
    trx.insert(&t, row(1, &v[..5 << 20], None), OnDuplicate::Error).await.unwrap();
    trx.commit().await.unwrap();
    e.checkpoint_for_test().unwrap();
    let before = e.space_report().unwrap();

    e.arm_crash_point_for_test(CrashPoint::ChainWrittenAhead);
    let mut trx = e.begin(&s, opts());
    assert!(trx.insert(&t, row(2, &v, None), OnDuplicate::Error).await.is_err());
    e.crash_for_test();
    std::mem::forget(trx);
    drop(s);
    drop(e);

    let (e, t) = open(dir.path(), None).await;
    settle(&e).await;
    let after = audit(&e);
    assert!(after.in_trees <= before.in_trees + 2, "{before:?} {after:?}");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    assert!(read(&mut trx, &t, 1).unwrap() == row(1, &v[..5 << 20], None));
    assert!(read(&mut trx, &t, 2).is_none());
    trx.commit().await.unwrap();

    // The same crash with the chain's records durable (checkpointed), then with the row linked
    // but not committed: both end with nothing leaked.
    let mut trx = e.begin(&s, opts());
    trx.insert(&t, row(3, &v, None), OnDuplicate::Error).await.unwrap();
    e.checkpoint_for_test().unwrap();
    e.crash_for_test();
    std::mem::forget(trx);
    drop(s);
    drop(e);
    let (e, t) = open(dir.path(), None).await;
    settle(&e).await;
    audit(&e);
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    assert!(read(&mut trx, &t, 3).is_none());
    trx.commit().await.unwrap();
}

#[tokio::test]
async fn a_value_much_larger_than_the_log_waits_for_checkpoints_instead_of_stalling() {
    let dir = tempfile::tempdir().unwrap();
    // An 8 MiB log: row writes wait at 7 MiB of checkpoint age; the value's chain logs 30 MiB.
    let (e, t) = open(dir.path(), Some(8 << 20)).await;
    let s = e.register_session().unwrap();
    let v = pattern(30 << 20, 6);
    let started = Instant::now();
    let mut trx = e.begin(&s, opts());
    trx.insert(&t, row(1, &v, Some(&v[..5 << 20])), OnDuplicate::Error).await.unwrap();
    trx.commit().await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(120));
    let mut trx = e.begin(&s, opts());
    assert!(read(&mut trx, &t, 1).unwrap() == row(1, &v, Some(&v[..5 << 20])));
    trx.commit().await.unwrap();
    settle(&e).await;
    audit(&e);
}
