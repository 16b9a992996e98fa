//! DDL with data, across restarts and crashes; AUTO_INCREMENT persistence.

use crate::engine_util;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use engine_util::*;
use selkie_storage::*;

fn ids(rows: &[Vec<Datum>]) -> Vec<i64> {
    rows.iter().map(|r| if let Datum::Int(i) = r[0] { i } else { panic!() }).collect()
}

async fn fill(e: &Engine, t: &Arc<TableDef>, range: std::ops::Range<i64>) {
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for i in range {
        trx.insert(t, row(i, i % 3, &format!("c{i}")), OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
}

fn count(e: &Engine, t: &Arc<TableDef>, index: usize) -> usize {
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    scan_all(&mut trx, t, index, KeyRange::all(), false, ReadMode::Consistent).len()
}

/// Reopens the engine, cleanly or after a simulated power failure.
fn reopen(e: Arc<Engine>, dir: &Path, crash: bool) -> Arc<Engine> {
    if crash {
        e.crash_for_test();
    } else {
        e.shutdown().unwrap();
    }
    drop(e);
    Engine::open(crash_config(dir)).unwrap()
}

async fn ddl_survives(crash: bool) {
    let dir = tempfile::tempdir().unwrap();
    let mut e = Engine::open(crash_config(dir.path())).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_database(db("gone"), false).await.unwrap();
    e.create_table(sbtest("d", "keep", false), false).await.unwrap();
    e.create_table(sbtest("d", "trunc", false), false).await.unwrap();
    e.create_table(sbtest("d", "dropme", false), false).await.unwrap();
    e.create_table(sbtest("gone", "x", false), false).await.unwrap();
    for name in ["keep", "trunc", "dropme"] {
        fill(&e, &table(&e, "d", name), 0..60).await;
    }
    fill(&e, &table(&e, "gone", "x"), 0..10).await;

    // Index builds: a unique one over unique values, a failing one over duplicates.
    e.create_index("d", "keep", NewIndex { name: "uc".into(), columns: vec![ic(2)], unique: true }).await.unwrap();
    let err = e
        .create_index("d", "keep", NewIndex { name: "uk".into(), columns: vec![ic(1)], unique: true })
        .await
        .unwrap_err();
    assert_eq!(err.mysql_code().0, 1062);
    assert!(err.to_string().starts_with("Duplicate entry '"), "{err}");
    let keep = table(&e, "d", "keep");
    assert_eq!(keep.secondary.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(), vec!["k_1", "uc"]);
    assert_eq!(count(&e, &keep, 2), 60);
    e.drop_index("d", "keep", "k_1").await.unwrap();
    assert!(matches!(e.drop_index("d", "keep", "k_1").await, Err(StorageError::NoSuchIndex { .. })));
    e.truncate_table("d", "trunc").await.unwrap();
    assert!(e.drop_table("d", "dropme", false).await.unwrap());
    assert!(!e.drop_table("d", "dropme", true).await.unwrap());
    e.rename_table("d", "keep", "d", "kept").await.unwrap();
    assert_eq!(e.drop_database("gone", false).await.unwrap(), Some(1));
    assert_eq!(e.drop_database("gone", true).await.unwrap(), None);
    let version = e.catalog().version;

    e = reopen(e, dir.path(), crash);
    let cat = e.catalog();
    assert!(cat.table("d", "keep").is_none());
    assert!(cat.table("d", "dropme").is_none());
    assert!(cat.database("gone").is_none());
    assert!(cat.table("gone", "x").is_none());
    let kept = table(&e, "d", "kept");
    assert_eq!(kept.secondary.len(), 1);
    assert_eq!(count(&e, &kept, 0), 60);
    assert_eq!(count(&e, &kept, 1), 60);
    let trunc = table(&e, "d", "trunc");
    assert_eq!(count(&e, &trunc, 0), 0);
    assert_eq!(e.peek_auto_increment(&trunc), 1);
    assert!(version >= 1);
    // The unique index built by DDL is enforced after the restart.
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    let err = trx.insert(&kept, row(1000, 0, "c5"), OnDuplicate::Error).await.unwrap_err();
    assert_eq!(err.to_string(), "Duplicate entry 'c5' for key 'uc'");
    drop(trx);
    // Names are free again and ids are not reused.
    e.create_table(sbtest("d", "dropme", false), false).await.unwrap();
    let again = table(&e, "d", "dropme");
    assert!(again.id > kept.id && again.primary.id > kept.secondary[0].id);
    assert_eq!(count(&e, &again, 0), 0);
    drop(s);
    e.shutdown().unwrap();
}

#[tokio::test]
async fn ddl_with_data_survives_restart() {
    ddl_survives(false).await;
}

#[tokio::test]
async fn ddl_with_data_survives_crash() {
    ddl_survives(true).await;
}

#[tokio::test]
async fn ddl_errors() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(config(dir.path())).unwrap();
    assert_eq!(e.create_table(sbtest("nodb", "t", false), false).await.unwrap_err().mysql_code().0, 1049);
    e.create_database(db("d"), false).await.unwrap();
    assert_eq!(e.create_database(db("d"), false).await.unwrap_err().mysql_code().0, 1007);
    e.create_table(sbtest("d", "t", false), false).await.unwrap();
    let err = e.create_table(sbtest("d", "t", false), false).await.unwrap_err();
    assert_eq!(err.to_string(), "Table 't' already exists");
    assert!(!e.create_table(sbtest("d", "t", false), true).await.unwrap());
    assert_eq!(e.drop_table("d", "nope", false).await.unwrap_err().mysql_code().0, 1146);
    assert_eq!(e.drop_database("nope", false).await.unwrap_err().mysql_code().0, 1008);
    let err = e
        .create_index("d", "t", NewIndex { name: "K_1".into(), columns: vec![ic(1)], unique: false })
        .await
        .unwrap_err();
    assert_eq!(err.mysql_code().0, 1061);
    let mut wide = sbtest("d", "wide", false);
    wide.columns[2].ty = varchar(1000);
    wide.indexes.push(NewIndex { name: "w".into(), columns: vec![ic(2)], unique: false });
    assert_eq!(e.create_table(wide, false).await.unwrap_err().mysql_code().0, 1071);
    e.create_table(sbtest("d", "u", false), false).await.unwrap();
    assert_eq!(e.rename_table("d", "t", "d", "u").await.unwrap_err().mysql_code().0, 1050);
    assert_eq!(e.rename_table("d", "t", "nodb", "u").await.unwrap_err().mysql_code().0, 1049);
}

#[tokio::test]
async fn auto_increment_survives_restart_and_crash() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = Engine::open(crash_config(dir.path())).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    let mut def = sbtest("d", "a", false);
    def.auto_increment_start = Some(100);
    e.create_table(def, false).await.unwrap();
    let mut expected_next = 100;
    for round in 0..4 {
        let t = table(&e, "d", "a");
        assert!(e.peek_auto_increment(&t) >= expected_next, "round {round}");
        let s = e.register_session().unwrap();
        let mut trx = e.begin(&s, opts());
        let first = trx.auto_increment_next(&t, 3).unwrap();
        assert!(first >= expected_next, "a value handed out before the restart was reused");
        for v in first..first + 3 {
            trx.insert(&t, row(v as i64, 0, "x"), OnDuplicate::Error).await.unwrap();
        }
        // An explicit larger value moves the counter above it.
        let explicit = first + 50;
        trx.insert(&t, row(explicit as i64, 0, "x"), OnDuplicate::Error).await.unwrap();
        trx.auto_increment_observe(&t, explicit);
        trx.commit().await.unwrap();
        assert_eq!(e.peek_auto_increment(&t), explicit + 1);
        expected_next = explicit + 1;
        drop(s);
        e = reopen(e, dir.path(), round % 2 == 1);
    }
    // TRUNCATE restarts the counter at 1, also across a crash.
    e.truncate_table("d", "a").await.unwrap();
    e = reopen(e, dir.path(), true);
    let t = table(&e, "d", "a");
    assert_eq!(e.peek_auto_increment(&t), 1);
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    assert_eq!(trx.auto_increment_next(&t, 1).unwrap(), 1);
    trx.commit().await.unwrap();
}

#[tokio::test]
async fn auto_increment_advances_survive_a_crash_after_a_checkpoint() {
    // The counter persisted by a checkpoint (tree 1) plus the log after it.
    let dir = tempfile::tempdir().unwrap();
    let mut e = Engine::open(crash_config(dir.path())).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "a", false), false).await.unwrap();
    let t = table(&e, "d", "a");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    let first = trx.auto_increment_next(&t, 500).unwrap();
    trx.insert(&t, row(first as i64, 0, "x"), OnDuplicate::Error).await.unwrap();
    trx.commit().await.unwrap();
    drop(s);
    // A clean restart checkpoints (the counter goes to tree 1); then more values and a crash.
    e = reopen(e, dir.path(), false);
    let t = table(&e, "d", "a");
    assert_eq!(e.peek_auto_increment(&t), 501);
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    assert_eq!(trx.auto_increment_next(&t, 10).unwrap(), 501);
    trx.insert(&t, row(501, 0, "y"), OnDuplicate::Error).await.unwrap();
    trx.commit().await.unwrap();
    drop(s);
    e = reopen(e, dir.path(), true);
    assert_eq!(e.peek_auto_increment(&table(&e, "d", "a")), 511);
}

/// A sequence's state is durable when `set_sequence_state` returns (whatever the flush mode)
/// and survives crashes before and after checkpoints; the last state logged wins, also when
/// it went down (a descending sequence, or SETVAL to a lower value after a RESTART).
#[tokio::test]
async fn sequence_state_survives_crashes_and_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = Engine::open(crash_config(dir.path())).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    let mut def = sbtest("d", "s", false);
    let seq = SequenceDef { start: 10, min: -100, max: 1000, increment: -2, cache: 5, cycle: true };
    def.options.sequence = Some(seq);
    e.create_table(def, false).await.unwrap();
    e.create_table(sbtest("d", "plain", false), false).await.unwrap();
    assert!(matches!(e.sequence_state(&table(&e, "d", "plain")), Err(StorageError::NotASequence { .. })));
    assert_eq!(e.sequence_state(&table(&e, "d", "s")).unwrap(), seq.initial_state());
    // As created, across a crash.
    e = reopen(e, dir.path(), true);
    let t = table(&e, "d", "s");
    assert_eq!(t.options.sequence, Some(seq));
    assert_eq!(e.sequence_state(&t).unwrap(), SequenceState { next_not_cached: 10, cycle_count: 0 });
    let states = [(0, 0), (-10, 0), (990, 1), (-50, 1)];
    for (round, (next, cycles)) in states.into_iter().enumerate() {
        let t = table(&e, "d", "s");
        let state = SequenceState { next_not_cached: next, cycle_count: cycles };
        e.set_sequence_state(&t, state).unwrap();
        // Crash right away, crash after a checkpoint, clean restart.
        if round == 1 {
            e.checkpoint_for_test().unwrap();
        }
        e = reopen(e, dir.path(), round != 3);
        assert_eq!(e.sequence_state(&table(&e, "d", "s")).unwrap(), state, "round {round}");
    }
}

/// A snapshot older than CREATE INDEX cannot use the new index (its entries reflect only the
/// latest versions): 1412, as MariaDB. Through the primary key it still reads its snapshot, and
/// a newer snapshot uses the index.
#[tokio::test]
async fn old_snapshot_cannot_use_an_index_built_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(config(dir.path())).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    let mut def = sbtest("d", "t", false);
    def.indexes.clear();
    e.create_table(def, false).await.unwrap();
    let t = table(&e, "d", "t");
    fill(&e, &t, 0..6).await; // k = id % 3
    let (sa, sb) = (e.register_session().unwrap(), e.register_session().unwrap());
    let mut old = e.begin(&sa, opts());
    assert_eq!(scan_all(&mut old, &t, 0, KeyRange::all(), false, ReadMode::Consistent).len(), 6);
    let mut w = e.begin(&sb, opts());
    let pk0 = keycodec::primary_key_from_values(&t, &[Datum::Int(0)]).unwrap();
    let r = w.lock_row(&t, &pk0, LockMode::Exclusive).await.unwrap().unwrap();
    w.update(&t, &pk0, &r.row, row(0, 7, "c0")).await.unwrap();
    let pk1 = keycodec::primary_key_from_values(&t, &[Datum::Int(1)]).unwrap();
    let r = w.lock_row(&t, &pk1, LockMode::Exclusive).await.unwrap().unwrap();
    w.delete(&t, &pk1, &r.row).await.unwrap();
    w.commit().await.unwrap();
    e.create_index("d", "t", NewIndex { name: "k".into(), columns: vec![ic(1)], unique: false }).await.unwrap();
    let t = table(&e, "d", "t");
    match old.scan(&t, 1, KeyRange::all(), false, ReadMode::Consistent) {
        Err(err @ StorageError::TableDefinitionChanged) => assert_eq!(err.mysql_code().0, 1412),
        Err(other) => panic!("expected 1412, got {other}"),
        Ok(_) => panic!("an old snapshot must not read through a newer index"),
    }
    // Its snapshot through the primary key is intact: row 0 with k = 0, row 1 still there.
    let rows = scan_all(&mut old, &t, 0, KeyRange::all(), false, ReadMode::Consistent);
    assert_eq!(ids(&rows), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(rows[0][1], Datum::Int(0));
    // Locking reads are not snapshot reads: they may use the index.
    assert_eq!(ids(&scan_all(&mut old, &t, 1, KeyRange::point(vec![Datum::Int(7)]), false, ReadMode::Latest)), vec![0]);
    old.commit().await.unwrap();
    let mut now = e.begin(&sa, opts());
    assert_eq!(ids(&scan_all(&mut now, &t, 1, KeyRange::all(), false, ReadMode::Consistent)), vec![3, 4, 2, 5, 0]);
}

/// A snapshot older than TRUNCATE (or than the CREATE TABLE of the table it reads) gets 1412
/// instead of the new, empty trees; snapshots taken after the DDL read normally.
#[tokio::test]
async fn snapshot_older_than_truncate_or_create_table_gets_1412() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(config(dir.path())).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", false), false).await.unwrap();
    let t = table(&e, "d", "t");
    fill(&e, &t, 0..10).await;
    let s = e.register_session().unwrap();
    let mut old = e.begin(&s, opts());
    assert_eq!(scan_all(&mut old, &t, 0, KeyRange::all(), false, ReadMode::Consistent).len(), 10);
    e.truncate_table("d", "t").await.unwrap();
    e.create_table(sbtest("d", "fresh", false), false).await.unwrap();
    let t = table(&e, "d", "t");
    let fresh = table(&e, "d", "fresh");
    let is_1412 = |r: Result<Option<ScanRow>>| matches!(r, Err(StorageError::TableDefinitionChanged));
    assert!(is_1412(old.get(&t, &[Datum::Int(3)])), "point read through the new primary tree");
    assert!(matches!(
        old.scan(&t, 0, KeyRange::all(), false, ReadMode::Consistent),
        Err(StorageError::TableDefinitionChanged)
    ));
    assert!(matches!(
        old.scan(&t, 1, KeyRange::all(), false, ReadMode::Consistent),
        Err(StorageError::TableDefinitionChanged)
    ));
    assert!(is_1412(old.get(&fresh, &[Datum::Int(1)])), "a table created after the snapshot");
    old.commit().await.unwrap();
    let mut now = e.begin(&s, opts());
    assert!(now.get(&t, &[Datum::Int(3)]).unwrap().is_none());
    assert!(scan_all(&mut now, &t, 1, KeyRange::all(), false, ReadMode::Consistent).is_empty());
    assert!(now.get(&fresh, &[Datum::Int(1)]).unwrap().is_none());
    now.commit().await.unwrap();
    // READ COMMITTED takes a view per statement: it never sees the error after the DDL.
    let mut rc = e.begin(&s, opts_with(IsolationLevel::ReadCommitted, std::time::Duration::from_secs(5)));
    rc.begin_statement();
    assert!(rc.get(&t, &[Datum::Int(3)]).unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ddl_waits_for_running_statements_and_open_writers() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path());
    // Long enough that the DDL below, which waits for a commit 50 ms after it starts, does not
    // time out on a loaded machine; short enough to keep the 1205 case quick.
    c.lock_wait_timeout = Duration::from_millis(1500);
    let e = Engine::open(c).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", false), false).await.unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    // A running statement holds the barrier: the DDL waits until it ends.
    let guard = e.statement_guard(&s).await;
    let e2 = e.clone();
    let ddl = tokio::spawn(async move { e2.truncate_table("d", "t").await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!ddl.is_finished());
    drop(guard);
    ddl.await.unwrap().unwrap();
    // An open transaction with uncommitted changes in the table: the DDL waits for it, and
    // gives up after the lock wait timeout.
    let mut trx = e.begin(&s, opts());
    trx.insert(&table(&e, "d", "t"), row(1, 1, "x"), OnDuplicate::Error).await.unwrap();
    assert_eq!(e.drop_table("d", "t", false).await.unwrap_err().mysql_code().0, 1205);
    let e3 = e.clone();
    let ddl = tokio::spawn(async move { e3.drop_table("d", "t", false).await });
    tokio::time::sleep(Duration::from_millis(50)).await;
    trx.commit().await.unwrap();
    assert!(ddl.await.unwrap().unwrap());
    assert!(e.catalog().table("d", "t").is_none());
    drop(t);
}

#[tokio::test]
async fn every_column_type_round_trips_through_catalog_and_rows() {
    let dir = tempfile::tempdir().unwrap();
    let types = vec![
        ColumnType::Int { width: IntWidth::Tiny, unsigned: true, display_width: Some(3) },
        ColumnType::Int { width: IntWidth::Big, unsigned: false, display_width: None },
        ColumnType::Decimal { precision: 12, scale: 3, unsigned: false },
        ColumnType::FLOAT,
        ColumnType::DOUBLE,
        ColumnType::Char { len: 4 },
        ColumnType::Text { size: LobSize::Medium },
        ColumnType::Binary { len: 3 },
        ColumnType::Blob { size: LobSize::Long },
        ColumnType::Date,
        ColumnType::DateTime { fsp: 6 },
        ColumnType::Timestamp { fsp: 0 },
    ];
    let values = vec![
        Datum::UInt(200),
        Datum::Int(-5_000_000_000),
        Datum::Decimal(Decimal::new(-123_456, 3)),
        Datum::Double(1.5),
        Datum::Double(-2.25e100),
        Datum::Bytes(b"ab".to_vec()),
        Datum::Bytes(vec![b'z'; 70_000]),
        Datum::Bytes(vec![0, 1, 2]),
        Datum::Bytes((0..=255u8).cycle().take(100_000).collect()),
        Datum::Date(Date::new(2024, 2, 29)),
        Datum::DateTime(DateTime::new(Date::new(1999, 12, 31), 23, 59, 59, 123_456)),
        Datum::DateTime(DateTime::new(Date::new(2038, 1, 19), 3, 14, 7, 0)),
    ];
    let mut columns: Vec<ColumnDef> =
        types.iter().enumerate().map(|(i, ty)| col(&format!("c{i}"), ty.clone(), true)).collect();
    columns[0].default = ColumnDefault::Value(Datum::UInt(7));
    columns[11].default = ColumnDefault::CurrentTimestamp;
    columns[11].on_update_current_timestamp = true;
    columns[5].comment = "a comment".into();
    let def = NewTable {
        db: "d".into(),
        name: "all".into(),
        columns,
        primary_key: vec![ic(1), IndexColumn { column: 5, prefix_len: Some(2), descending: false }],
        indexes: vec![
            NewIndex { name: "dec".into(), columns: vec![ic(2), ic(3)], unique: true },
            NewIndex {
                name: "txt".into(),
                columns: vec![IndexColumn { column: 6, prefix_len: Some(10), descending: false }],
                unique: false,
            },
        ],
        options: TableOptions {
            engine: "InnoDB".into(),
            charset: "utf8mb4".into(),
            collation: "utf8mb4_bin".into(),
            comment: "t".into(),
            row_format: String::new(),
            sequence: None,
            key_format: selkie_storage::KEY_FORMAT_BYTES,
        },
        auto_increment_start: None,
    };
    let before;
    {
        let e = Engine::open(config(dir.path())).unwrap();
        e.create_database(db("d"), false).await.unwrap();
        e.create_table(def, false).await.unwrap();
        before = TableDef::clone(&table(&e, "d", "all"));
        let t = table(&e, "d", "all");
        let s = e.register_session().unwrap();
        let mut trx = e.begin(&s, opts());
        trx.insert(&t, values.clone(), OnDuplicate::Error).await.unwrap();
        let mut nulls = vec![Datum::Null; values.len()];
        nulls[1] = Datum::Int(1);
        nulls[5] = Datum::Bytes(b"k".to_vec());
        trx.insert(&t, nulls, OnDuplicate::Error).await.unwrap();
        trx.commit().await.unwrap();
        e.shutdown().unwrap();
    }
    let e = Engine::open(config(dir.path())).unwrap();
    let t = table(&e, "d", "all");
    assert_eq!(*t, before);
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    let got = trx.get(&t, &[Datum::Int(-5_000_000_000), Datum::Bytes(b"ab".to_vec())]).unwrap().unwrap();
    assert_eq!(got.row, values);
    let by_txt =
        scan_all(&mut trx, &t, 2, KeyRange::point(vec![Datum::Bytes(vec![b'z'; 10])]), false, ReadMode::Consistent);
    assert_eq!(by_txt, vec![values.clone()]);
    assert_eq!(scan_all(&mut trx, &t, 1, KeyRange::all(), false, ReadMode::Consistent).len(), 2);
}
