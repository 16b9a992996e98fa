//! Scenarios the storage fuzzers found (tests/fuzz_model.rs, src/fuzz_tests.rs), reduced to
//! plain tests that fail without their fix.

use crate::engine_util;

use std::ops::Bound;
use std::sync::mpsc;
use std::time::Duration;

use engine_util::*;
use selkie_storage::*;

/// How long a scan of a few dozen rows may take before we call it a livelock.
const SCAN_DEADLINE: Duration = Duration::from_secs(30);

/// A leaf whose records' overflow chains together hold more pages than the buffer pool: reading
/// the chains evicts the leaf, and the cursor used to restart the leaf for ever because the
/// evicted leaf no longer validated (btree/read.rs `leaf_unchanged`).
#[tokio::test]
async fn overflow_values_larger_than_the_buffer_pool_scan_without_livelock() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path());
    c.buffer_pool_bytes = 1 << 20;
    let e = Engine::open(c).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    let blob = ColumnType::Blob { size: LobSize::Medium };
    let def = NewTable {
        db: "d".into(),
        name: "t".into(),
        columns: vec![col("id", int(), false), col("body", blob, false)],
        primary_key: vec![ic(0)],
        indexes: vec![],
        options: TableOptions::default(),
        auto_increment_start: None,
    };
    e.create_table(def, false).await.unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    // 40 values of 4 overflow pages each, all referenced from one leaf: 160 pages, the pool
    // holds 64.
    let body = |id: i64| vec![id as u8; 60_000];
    let mut trx = e.begin(&s, opts());
    for id in 0..40 {
        trx.insert(&t, vec![Datum::Int(id), Datum::Bytes(body(id))], OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
    // Clean pages are evictable: the scan meets a cold pool.
    e.checkpoint_for_test().unwrap();

    let (done, result) = mpsc::channel();
    let (e2, t2) = (e.clone(), t.clone());
    std::thread::spawn(move || {
        let s = e2.register_session().unwrap();
        let mut trx = e2.begin(&s, opts());
        let rows = scan_all(&mut trx, &t2, 0, KeyRange::all(), false, ReadMode::Consistent);
        let _ = done.send(rows);
    });
    let rows = result.recv_timeout(SCAN_DEADLINE).expect("the scan finishes");
    assert_eq!(rows.len(), 40);
    for (id, r) in rows.iter().enumerate() {
        assert_eq!(r, &vec![Datum::Int(id as i64), Datum::Bytes(body(id as i64))]);
    }
    drop(s);
    e.shutdown().unwrap();
}

/// A range bound outside an INT column's domain cuts the range at that column; on a nullable
/// column the cut must still keep NULL below every value (KeyRange: NULL sorts first). The
/// lower bound `v >= -2^40` used to return the NULL rows too (keycodec `encode_bound`).
#[tokio::test]
async fn a_bound_outside_a_nullable_columns_domain_keeps_null_below_it() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(config(dir.path())).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    let def = NewTable {
        db: "d".into(),
        name: "t".into(),
        columns: vec![col("id", int(), false), col("v", int(), true)],
        primary_key: vec![ic(0)],
        indexes: vec![NewIndex { name: "v".into(), columns: vec![ic(1)], unique: false }],
        options: TableOptions::default(),
        auto_increment_start: None,
    };
    e.create_table(def, false).await.unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for (id, v) in [(1, Datum::Null), (2, Datum::Int(-5)), (3, Datum::Int(7))] {
        trx.insert(&t, vec![Datum::Int(id), v], OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
    let (below, above) = (vec![Datum::Int(-(1 << 40))], vec![Datum::Int(1 << 40)]);
    let mut trx = e.begin(&s, opts());
    let mut ids = |lower: Bound<Vec<Datum>>, upper: Bound<Vec<Datum>>| -> Vec<Datum> {
        let rows = scan_all(&mut trx, &t, 1, KeyRange { lower, upper }, false, ReadMode::Consistent);
        rows.into_iter().map(|r| r[0].clone()).collect()
    };
    let (int, none) = (Datum::Int, Vec::<Datum>::new());
    assert_eq!(ids(Bound::Included(below.clone()), Bound::Unbounded), vec![int(2), int(3)], "v >= -2^40");
    assert_eq!(ids(Bound::Excluded(below.clone()), Bound::Unbounded), vec![int(2), int(3)], "v > -2^40");
    assert_eq!(ids(Bound::Unbounded, Bound::Included(below.clone())), vec![int(1)], "v <= -2^40: NULL only");
    assert_eq!(ids(Bound::Unbounded, Bound::Excluded(above.clone())), vec![int(1), int(2), int(3)], "v < 2^40");
    assert_eq!(ids(Bound::Included(above.clone()), Bound::Unbounded), none, "v >= 2^40");
    drop(trx);
    drop(s);
    e.shutdown().unwrap();
}
