//! Basic engine behaviour: DDL, DML, duplicates, restart.

use crate::engine_util;

use engine_util::*;
use selkie_storage::*;

#[tokio::test]
async fn insert_get_scan_commit_and_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let e = Engine::open(config(dir.path())).unwrap();
        assert!(e.create_database(db("d"), false).await.unwrap());
        assert!(!e.create_database(db("d"), true).await.unwrap());
        assert!(e.create_table(sbtest("d", "t", true), false).await.unwrap());
        let t = table(&e, "d", "t");
        let s = e.register_session().unwrap();
        let mut trx = e.begin(&s, opts());
        trx.begin_statement();
        for i in 1..=50 {
            trx.insert(&t, row(i, i % 7, &format!("c{i}")), OnDuplicate::Error).await.unwrap();
        }
        let dup = trx.insert(&t, row(3, 0, "zz"), OnDuplicate::Error).await.unwrap_err();
        assert_eq!(dup.to_string(), "Duplicate entry '3' for key 'PRIMARY'");
        let dup = trx.insert(&t, row(99, 0, "c5"), OnDuplicate::Error).await.unwrap_err();
        assert_eq!(dup.to_string(), "Duplicate entry 'c5' for key 'u'");
        trx.commit().await.unwrap();

        let mut trx = e.begin(&s, opts());
        let r = trx.get(&t, &[Datum::Int(7)]).unwrap().unwrap();
        assert_eq!(r.row, row(7, 0, "c7"));
        let by_k = scan_all(&mut trx, &t, 1, KeyRange::point(vec![Datum::Int(3)]), false, ReadMode::Consistent);
        let ids: Vec<i64> = by_k.iter().map(|r| if let Datum::Int(i) = r[0] { i } else { panic!() }).collect();
        assert_eq!(ids, vec![3, 10, 17, 24, 31, 38, 45]);
        assert_eq!(scan_all(&mut trx, &t, 0, KeyRange::all(), true, ReadMode::Consistent).len(), 50);
        trx.commit().await.unwrap();
        e.shutdown().unwrap();
    }
    let e = Engine::open(config(dir.path())).unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    assert_eq!(scan_all(&mut trx, &t, 0, KeyRange::all(), false, ReadMode::Consistent).len(), 50);
    assert_eq!(trx.get(&t, &[Datum::Int(50)]).unwrap().unwrap().row, row(50, 1, "c50"));
    assert_eq!(e.approx_row_count(&t), 50);
    e.shutdown().unwrap();
}

#[test]
fn api_types_can_cross_tasks_and_threads() {
    fn send<T: Send>() {}
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Engine>();
    send::<Transaction>();
    send::<Scan>();
    send::<SessionSlot>();
    send::<StatementGuard>();
}
