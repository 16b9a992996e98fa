//! MVCC: snapshot stability, READ COMMITTED refresh, locking reads, own writes, secondary index
//! reads across indexed-column updates.

use crate::engine_util;

use std::ops::Bound;
use std::sync::Arc;
use std::time::Duration;

use engine_util::*;
use selkie_storage::*;

async fn setup(rows: i64) -> (tempfile::TempDir, Arc<Engine>, Arc<TableDef>) {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(config(dir.path())).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", false), false).await.unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for i in 1..=rows {
        trx.insert(&t, row(i, 1, &format!("v{i}")), OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
    (dir, e, t)
}

fn c_of(r: &[Datum]) -> String {
    match &r[2] {
        Datum::Bytes(b) => String::from_utf8(b.clone()).unwrap(),
        other => panic!("{other:?}"),
    }
}

fn ids(rows: &[Vec<Datum>]) -> Vec<i64> {
    rows.iter().map(|r| if let Datum::Int(i) = r[0] { i } else { panic!() }).collect()
}

async fn set_c(e: &Engine, s: &SessionSlot, t: &Arc<TableDef>, id: i64, c: &str) {
    let mut trx = e.begin(s, opts());
    let pk = keycodec::primary_key_from_values(t, &[Datum::Int(id)]).unwrap();
    let cur = trx.lock_row(t, &pk, LockMode::Exclusive).await.unwrap().unwrap();
    let mut new = cur.row.clone();
    new[2] = Datum::Bytes(c.as_bytes().to_vec());
    trx.update(t, &pk, &cur.row, new).await.unwrap();
    trx.commit().await.unwrap();
}

async fn set_k(e: &Engine, s: &SessionSlot, t: &Arc<TableDef>, id: i64, k: i64) {
    let mut trx = e.begin(s, opts());
    let pk = keycodec::primary_key_from_values(t, &[Datum::Int(id)]).unwrap();
    let cur = trx.lock_row(t, &pk, LockMode::Exclusive).await.unwrap().unwrap();
    let mut new = cur.row.clone();
    new[1] = Datum::Int(k);
    trx.update(t, &pk, &cur.row, new).await.unwrap();
    trx.commit().await.unwrap();
}

#[tokio::test]
async fn repeatable_read_snapshot_is_stable() {
    let (_d, e, t) = setup(10).await;
    let (sa, sb) = (e.register_session().unwrap(), e.register_session().unwrap());
    let mut a = e.begin(&sa, opts());
    a.begin_statement();
    assert_eq!(c_of(&a.get(&t, &[Datum::Int(3)]).unwrap().unwrap().row), "v3");
    set_c(&e, &sb, &t, 3, "new").await;
    // Delete one row and insert another, committed.
    let mut b = e.begin(&sb, opts());
    let pk4 = keycodec::primary_key_from_values(&t, &[Datum::Int(4)]).unwrap();
    let r4 = b.lock_row(&t, &pk4, LockMode::Exclusive).await.unwrap().unwrap();
    b.delete(&t, &pk4, &r4.row).await.unwrap();
    b.insert(&t, row(11, 1, "v11"), OnDuplicate::Error).await.unwrap();
    b.commit().await.unwrap();

    for _ in 0..2 {
        a.begin_statement();
        assert_eq!(c_of(&a.get(&t, &[Datum::Int(3)]).unwrap().unwrap().row), "v3");
        let all = scan_all(&mut a, &t, 0, KeyRange::all(), false, ReadMode::Consistent);
        assert_eq!(ids(&all), (1..=10).collect::<Vec<_>>());
        let by_k = scan_all(&mut a, &t, 1, KeyRange::point(vec![Datum::Int(1)]), false, ReadMode::Consistent);
        assert_eq!(ids(&by_k), (1..=10).collect::<Vec<_>>());
    }
    a.commit().await.unwrap();
    let mut fresh = e.begin(&sa, opts());
    assert_eq!(c_of(&fresh.get(&t, &[Datum::Int(3)]).unwrap().unwrap().row), "new");
    let all = scan_all(&mut fresh, &t, 0, KeyRange::all(), false, ReadMode::Consistent);
    assert_eq!(ids(&all), vec![1, 2, 3, 5, 6, 7, 8, 9, 10, 11]);
}

#[tokio::test]
async fn read_committed_sees_new_commits_per_statement() {
    let (_d, e, t) = setup(3).await;
    let (sa, sb) = (e.register_session().unwrap(), e.register_session().unwrap());
    let mut a = e.begin(&sa, opts_with(IsolationLevel::ReadCommitted, Duration::from_secs(5)));
    a.begin_statement();
    assert_eq!(c_of(&a.get(&t, &[Datum::Int(2)]).unwrap().unwrap().row), "v2");
    set_c(&e, &sb, &t, 2, "x").await;
    // Same statement: same view.
    assert_eq!(c_of(&a.get(&t, &[Datum::Int(2)]).unwrap().unwrap().row), "v2");
    a.begin_statement();
    assert_eq!(c_of(&a.get(&t, &[Datum::Int(2)]).unwrap().unwrap().row), "x");
    set_c(&e, &sb, &t, 2, "y").await;
    a.begin_statement();
    assert_eq!(c_of(&a.get(&t, &[Datum::Int(2)]).unwrap().unwrap().row), "y");
    a.commit().await.unwrap();
}

#[tokio::test]
async fn locking_read_sees_latest_committed_version() {
    let (_d, e, t) = setup(3).await;
    let (sa, sb) = (e.register_session().unwrap(), e.register_session().unwrap());
    let mut a = e.begin(&sa, opts());
    assert_eq!(c_of(&a.get(&t, &[Datum::Int(1)]).unwrap().unwrap().row), "v1");
    set_c(&e, &sb, &t, 1, "later").await;
    let pk = keycodec::primary_key_from_values(&t, &[Datum::Int(1)]).unwrap();
    let locked = a.lock_row(&t, &pk, LockMode::Shared).await.unwrap().unwrap();
    assert_eq!(c_of(&locked.row), "later");
    // The consistent read still sees the snapshot.
    assert_eq!(c_of(&a.get(&t, &[Datum::Int(1)]).unwrap().unwrap().row), "v1");
    // Latest-mode scans see the latest version too.
    let latest = scan_all(&mut a, &t, 0, KeyRange::point(vec![Datum::Int(1)]), false, ReadMode::Latest);
    assert_eq!(c_of(&latest[0]), "later");
    a.commit().await.unwrap();
}

#[tokio::test]
async fn own_writes_are_visible_and_others_are_not() {
    let (_d, e, t) = setup(3).await;
    let (sa, sb) = (e.register_session().unwrap(), e.register_session().unwrap());
    let mut a = e.begin(&sa, opts());
    let mut b = e.begin(&sb, opts());
    assert_eq!(scan_all(&mut b, &t, 0, KeyRange::all(), false, ReadMode::Consistent).len(), 3);
    a.insert(&t, row(7, 5, "mine"), OnDuplicate::Error).await.unwrap();
    let pk2 = keycodec::primary_key_from_values(&t, &[Datum::Int(2)]).unwrap();
    let r2 = a.lock_row(&t, &pk2, LockMode::Exclusive).await.unwrap().unwrap();
    a.delete(&t, &pk2, &r2.row).await.unwrap();
    let pk3 = keycodec::primary_key_from_values(&t, &[Datum::Int(3)]).unwrap();
    let r3 = a.lock_row(&t, &pk3, LockMode::Exclusive).await.unwrap().unwrap();
    a.update(&t, &pk3, &r3.row, row(3, 5, "upd")).await.unwrap();

    assert_eq!(ids(&scan_all(&mut a, &t, 0, KeyRange::all(), false, ReadMode::Consistent)), vec![1, 3, 7]);
    assert_eq!(
        ids(&scan_all(&mut a, &t, 1, KeyRange::point(vec![Datum::Int(5)]), false, ReadMode::Consistent)),
        vec![3, 7]
    );
    assert_eq!(ids(&scan_all(&mut b, &t, 0, KeyRange::all(), false, ReadMode::Consistent)), vec![1, 2, 3]);
    assert!(ids(&scan_all(&mut b, &t, 1, KeyRange::point(vec![Datum::Int(5)]), false, ReadMode::Consistent)).is_empty());
    // Rolled back: gone for everyone, including a view older than the changes.
    a.rollback().unwrap();
    assert_eq!(ids(&scan_all(&mut b, &t, 0, KeyRange::all(), false, ReadMode::Consistent)), vec![1, 2, 3]);
    let mut c = e.begin(&sa, opts());
    assert_eq!(ids(&scan_all(&mut c, &t, 0, KeyRange::all(), false, ReadMode::Consistent)), vec![1, 2, 3]);
    assert_eq!(c_of(&c.get(&t, &[Datum::Int(3)]).unwrap().unwrap().row), "v3");
}

#[tokio::test]
async fn secondary_index_reads_follow_indexed_column_updates() {
    let (_d, e, t) = setup(4).await;
    let (sa, sb, sc) = (e.register_session().unwrap(), e.register_session().unwrap(), e.register_session().unwrap());
    let k_range = |k: i64| KeyRange::point(vec![Datum::Int(k)]);
    // Snapshot 0: all k = 1.
    let mut s0 = e.begin(&sa, opts());
    assert_eq!(ids(&scan_all(&mut s0, &t, 1, k_range(1), false, ReadMode::Consistent)), vec![1, 2, 3, 4]);
    set_k(&e, &sb, &t, 2, 9).await;
    // Snapshot 1: row 2 has k = 9.
    let mut s1 = e.begin(&sc, opts());
    assert_eq!(ids(&scan_all(&mut s1, &t, 1, k_range(9), false, ReadMode::Consistent)), vec![2]);
    set_k(&e, &sb, &t, 2, 1).await; // back to the old value: the old entry is un-delete-marked
    set_k(&e, &sb, &t, 3, 9).await;
    for _ in 0..2 {
        assert_eq!(ids(&scan_all(&mut s0, &t, 1, k_range(1), false, ReadMode::Consistent)), vec![1, 2, 3, 4]);
        assert!(scan_all(&mut s0, &t, 1, k_range(9), false, ReadMode::Consistent).is_empty());
        assert_eq!(ids(&scan_all(&mut s1, &t, 1, k_range(1), false, ReadMode::Consistent)), vec![1, 3, 4]);
        assert_eq!(ids(&scan_all(&mut s1, &t, 1, k_range(9), false, ReadMode::Consistent)), vec![2]);
    }
    let mut now = e.begin(&sb, opts());
    assert_eq!(ids(&scan_all(&mut now, &t, 1, k_range(1), false, ReadMode::Consistent)), vec![1, 2, 4]);
    assert_eq!(ids(&scan_all(&mut now, &t, 1, k_range(9), false, ReadMode::Consistent)), vec![3]);
    let range = KeyRange { lower: Bound::Excluded(vec![Datum::Int(1)]), upper: Bound::Unbounded };
    assert_eq!(ids(&scan_all(&mut now, &t, 1, range, true, ReadMode::Consistent)), vec![3]);
    s0.commit().await.unwrap();
    s1.commit().await.unwrap();
}

#[tokio::test]
async fn primary_key_change_moves_the_row() {
    let (_d, e, t) = setup(3).await;
    let s = e.register_session().unwrap();
    let mut old_view = e.begin(&s, opts());
    assert_eq!(scan_all(&mut old_view, &t, 0, KeyRange::all(), false, ReadMode::Consistent).len(), 3);
    let s2 = e.register_session().unwrap();
    let mut a = e.begin(&s2, opts());
    let pk = keycodec::primary_key_from_values(&t, &[Datum::Int(2)]).unwrap();
    let r = a.lock_row(&t, &pk, LockMode::Exclusive).await.unwrap().unwrap();
    let new_pk = a.update(&t, &pk, &r.row, row(20, 1, "v2")).await.unwrap();
    assert_eq!(new_pk, keycodec::primary_key_from_values(&t, &[Datum::Int(20)]).unwrap());
    let pk3 = keycodec::primary_key_from_values(&t, &[Datum::Int(3)]).unwrap();
    let r3 = a.lock_row(&t, &pk3, LockMode::Exclusive).await.unwrap().unwrap();
    let err = a.update(&t, &pk3, &r3.row, row(1, 1, "v3")).await.unwrap_err();
    assert_eq!(err.to_string(), "Duplicate entry '1' for key 'PRIMARY'");
    a.commit().await.unwrap();
    assert_eq!(ids(&scan_all(&mut old_view, &t, 0, KeyRange::all(), false, ReadMode::Consistent)), vec![1, 2, 3]);
    assert_eq!(ids(&scan_all(&mut old_view, &t, 1, KeyRange::all(), false, ReadMode::Consistent)), vec![1, 2, 3]);
    let mut fresh = e.begin(&s2, opts());
    assert_eq!(ids(&scan_all(&mut fresh, &t, 0, KeyRange::all(), false, ReadMode::Consistent)), vec![1, 3, 20]);
    assert_eq!(ids(&scan_all(&mut fresh, &t, 1, KeyRange::all(), false, ReadMode::Consistent)), vec![1, 3, 20]);
}

#[tokio::test]
async fn read_only_transactions_cannot_write_and_dropped_transactions_roll_back() {
    let (_d, e, t) = setup(1).await;
    let s = e.register_session().unwrap();
    let mut ro = e.begin(&s, TrxOptions { read_only: true, ..opts() });
    let err = ro.insert(&t, row(5, 1, "x"), OnDuplicate::Error).await.unwrap_err();
    assert_eq!(err.mysql_code().0, 1792);
    drop(ro);
    {
        let mut w = e.begin(&s, opts());
        w.insert(&t, row(5, 1, "x"), OnDuplicate::Error).await.unwrap();
        assert!(w.has_writes());
    }
    let mut r = e.begin(&s, opts());
    assert!(r.get(&t, &[Datum::Int(5)]).unwrap().is_none());
    // The dropped transaction released its lock: the key can be inserted now.
    r.insert(&t, row(5, 1, "y"), OnDuplicate::Error).await.unwrap();
    r.commit().await.unwrap();
}

#[tokio::test]
async fn statement_rollback_keeps_earlier_statements() {
    let (_d, e, t) = setup(0).await;
    let s = e.register_session().unwrap();
    let mut a = e.begin(&s, opts());
    a.begin_statement();
    a.insert(&t, row(1, 1, "a"), OnDuplicate::Error).await.unwrap();
    a.begin_statement();
    a.insert(&t, row(2, 1, "b"), OnDuplicate::Error).await.unwrap();
    let pk1 = keycodec::primary_key_from_values(&t, &[Datum::Int(1)]).unwrap();
    let r1 = a.lock_row(&t, &pk1, LockMode::Exclusive).await.unwrap().unwrap();
    a.update(&t, &pk1, &r1.row, row(1, 2, "changed")).await.unwrap();
    a.rollback_statement().unwrap();
    assert_eq!(ids(&scan_all(&mut a, &t, 0, KeyRange::all(), false, ReadMode::Consistent)), vec![1]);
    assert_eq!(c_of(&a.get(&t, &[Datum::Int(1)]).unwrap().unwrap().row), "a");
    a.commit().await.unwrap();
    let mut b = e.begin(&s, opts());
    assert_eq!(ids(&scan_all(&mut b, &t, 1, KeyRange::all(), false, ReadMode::Consistent)), vec![1]);
}

#[tokio::test]
async fn hidden_primary_key_tables() {
    let dir = tempfile::tempdir().unwrap();
    {
        let e = Engine::open(config(dir.path())).unwrap();
        e.create_database(db("d"), false).await.unwrap();
        let mut def = sbtest("d", "h", false);
        def.primary_key.clear();
        def.columns[0].auto_increment = false;
        e.create_table(def, false).await.unwrap();
        let t = table(&e, "d", "h");
        assert!(t.has_hidden_pk());
        let s = e.register_session().unwrap();
        let mut a = e.begin(&s, opts());
        for _ in 0..3 {
            a.insert(&t, row(1, 1, "same"), OnDuplicate::Error).await.unwrap();
        }
        a.commit().await.unwrap();
        e.shutdown().unwrap();
    }
    let e = Engine::open(config(dir.path())).unwrap();
    let t = table(&e, "d", "h");
    let s = e.register_session().unwrap();
    let mut a = e.begin(&s, opts());
    // Row ids continue after the restart: no collision with existing rows.
    a.insert(&t, row(1, 1, "same"), OnDuplicate::Error).await.unwrap();
    let all = scan_all(&mut a, &t, 0, KeyRange::all(), false, ReadMode::Consistent);
    assert_eq!(all.len(), 4);
    let first = a.scan(&t, 0, KeyRange::all(), false, ReadMode::Consistent).unwrap().next(&mut a).unwrap().unwrap();
    let r = a.lock_row(&t, &first.pk_key, LockMode::Exclusive).await.unwrap().unwrap();
    a.delete(&t, &r.pk_key, &r.row).await.unwrap();
    assert_eq!(scan_all(&mut a, &t, 1, KeyRange::all(), false, ReadMode::Consistent).len(), 3);
    a.commit().await.unwrap();
}
