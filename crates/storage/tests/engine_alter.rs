//! ALTER TABLE in the engine (docs/architecture.md §4.9): instant changes keep every row's bytes
//! and read old rows with the layout of their row version, across restarts, updates and
//! rollbacks; a rebuild converts every row through the caller's mapping into new trees swapped
//! in by one commit, and a crash in the middle of it (or right after its commit) leaves the old
//! table or the new one, never a mix, and no page leaked.

use crate::engine_util;

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine_util::*;
use selkie_storage::testpoint::CrashPoint;
use selkie_storage::*;

const ROWS: i64 = 2000;

async fn setup(dir: &std::path::Path) -> (Arc<Engine>, Arc<TableDef>) {
    let e = Engine::open(crash_config(dir)).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", false), false).await.unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for id in 0..ROWS {
        trx.insert(&t, row(id, id % 7, &format!("c{id}")), OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
    (e, t)
}

fn rows(e: &Engine, t: &Arc<TableDef>, index: usize) -> Vec<Vec<Datum>> {
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    scan_all(&mut trx, t, index, KeyRange::all(), false, ReadMode::Consistent)
}

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
    r
}

/// (id, k, c) → (id, k, d INT with 42 in the existing rows): c dropped, d added.
fn drop_c_add_d(t: &TableDef) -> InstantAlter {
    let mut columns = t.columns.clone();
    columns[2] = col("d", int(), true);
    InstantAlter {
        columns,
        sources: vec![Some(0), Some(1), None],
        added: vec![Datum::Null, Datum::Null, Datum::Int(42)],
        primary_key: vec![ic(0)],
        kept_indexes: vec![("k_1".into(), "k_1".into(), vec![ic(1)])],
        options: t.options.clone(),
        constraints: None,
    }
}

#[tokio::test]
async fn instant_changes_keep_old_rows_readable_in_their_version() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path()).await;
    let roots: Vec<u64> = t.indexes().map(|i| i.root).collect();
    e.alter_table_instant("d", "t", &t, drop_c_add_d(&t)).await.unwrap();
    let t1 = table(&e, "d", "t");
    assert_eq!(t1.indexes().map(|i| i.root).collect::<Vec<_>>(), roots, "no tree was rebuilt");
    assert_eq!(t1.row_versions.old.len(), 1);
    let expect = |id: i64, d: Datum| vec![Datum::Int(id), Datum::Int(id % 7), d];
    let all = rows(&e, &t1, 0);
    assert_eq!(all.len(), ROWS as usize);
    assert!(all.iter().enumerate().all(|(i, r)| *r == expect(i as i64, Datum::Int(42))));

    // New rows, an update of an old row, and a rolled back update, under the new layout.
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    trx.insert(&t1, vec![Datum::Int(ROWS), Datum::Int(1), Datum::Int(-1)], OnDuplicate::Error).await.unwrap();
    let pk = keycodec::primary_key_from_values(&t1, &[Datum::Int(5)]).unwrap();
    let old = trx.lock_row(&t1, &pk, LockMode::Exclusive).await.unwrap().unwrap();
    trx.update(&t1, &pk, &old.row, expect(5, Datum::Int(5))).await.unwrap();
    trx.commit().await.unwrap();
    let mut trx = e.begin(&s, opts());
    let pk6 = keycodec::primary_key_from_values(&t1, &[Datum::Int(6)]).unwrap();
    let old = trx.lock_row(&t1, &pk6, LockMode::Exclusive).await.unwrap().unwrap();
    trx.update(&t1, &pk6, &old.row, expect(6, Datum::Null)).await.unwrap();
    trx.rollback().unwrap();

    // Second change: e added first (the columns move), d renamed to dd.
    let mut columns = vec![col("e", varchar(5), true)];
    columns.extend(t1.columns.iter().cloned());
    columns[3].name = "dd".into();
    let change = InstantAlter {
        columns,
        sources: vec![None, Some(0), Some(1), Some(2)],
        added: vec![Datum::Bytes(b"x".to_vec()), Datum::Null, Datum::Null, Datum::Null],
        primary_key: vec![ic(1)],
        kept_indexes: vec![("k_1".into(), "k_renamed".into(), vec![ic(2)])],
        options: t1.options.clone(),
        constraints: None,
    };
    e.alter_table_instant("d", "t", &t1, change).await.unwrap();
    let t2 = table(&e, "d", "t");
    assert_eq!(t2.row_versions.old.len(), 2);
    let check = |e: &Engine, t: &Arc<TableDef>| {
        let all = rows(e, t, 0);
        assert_eq!(all.len(), ROWS as usize + 1);
        for r in &all {
            let Datum::Int(id) = r[1] else { panic!("{r:?}") };
            let d = match id {
                5 => Datum::Int(5),
                ROWS => Datum::Int(-1),
                _ => Datum::Int(42),
            };
            let k = if id == ROWS { 1 } else { id % 7 };
            assert_eq!(*r, vec![Datum::Bytes(b"x".to_vec()), Datum::Int(id), Datum::Int(k), d]);
        }
        // The kept index still finds the rows, under its new name.
        assert_eq!(t.secondary[0].name, "k_renamed");
        assert_eq!(rows(e, t, 1).len(), ROWS as usize + 1);
    };
    check(&e, &t2);
    // A stale definition is refused.
    assert!(matches!(
        e.alter_table_instant("d", "t", &t1, drop_c_add_d(&t1)).await,
        Err(StorageError::TableDefinitionChanged)
    ));

    // The versions survive a restart (they are in the catalog record).
    e.shutdown().unwrap();
    drop(e);
    let e = Engine::open(crash_config(dir.path())).unwrap();
    let t2 = table(&e, "d", "t");
    check(&e, &t2);

    // A rebuild writes every row at the new layout: the versions are gone.
    let n = e.rebuild_table::<StorageError>("d", "t", &t2, rebuild_of(&t2), Ok).await.unwrap();
    assert_eq!(n, ROWS as u64 + 1);
    let t3 = table(&e, "d", "t");
    assert!(t3.row_versions.is_empty());
    check(&e, &t3);
    settle(&e).await;
    audit(&e);
    e.shutdown().unwrap();
}

/// The same definition, as a rebuild.
fn rebuild_of(t: &TableDef) -> TableRebuild {
    TableRebuild::same_as(t)
}

#[tokio::test]
async fn a_rebuild_converts_every_row_and_a_failed_one_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path()).await;
    let before = rows(&e, &t, 0);

    // k becomes BIGINT and unique: the rows break the key; nothing changes.
    let mut new = rebuild_of(&t);
    new.columns[1].ty = bigint();
    new.indexes.push(NewIndex { name: "uk".into(), columns: vec![ic(1)], unique: true });
    let err = e.rebuild_table::<StorageError>("d", "t", &t, new.clone(), Ok).await.unwrap_err();
    assert!(matches!(&err, StorageError::DuplicateKey { index, .. } if index == "uk"), "{err:?}");
    // The mapping's own error aborts it too.
    let mut seen = 0;
    let err = e
        .rebuild_table("d", "t", &t, rebuild_of(&t), |r| {
            seen += 1;
            if seen == 100 {
                Err(StorageError::NotSupported("row 100".into()))
            } else {
                Ok(r)
            }
        })
        .await
        .unwrap_err();
    assert!(matches!(err, StorageError::NotSupported(_)));
    assert_eq!(table(&e, "d", "t"), t);
    assert_eq!(rows(&e, &t, 0), before);

    // A new primary key on c, k doubled, the hidden column order changed: every row converted.
    let mut new = rebuild_of(&t);
    new.columns.swap(0, 2);
    new.columns[0].nullable = false;
    new.columns[2].auto_increment = false;
    new.primary_key = vec![ic(0)];
    new.indexes = vec![NewIndex { name: "id".into(), columns: vec![ic(2)], unique: true }];
    let n = e
        .rebuild_table::<StorageError>("d", "t", &t, new, |r| {
            let Datum::Int(k) = r[1] else { unreachable!() };
            Ok(vec![r[2].clone(), Datum::Int(k * 2), r[0].clone()])
        })
        .await
        .unwrap();
    assert_eq!(n, ROWS as u64);
    let t2 = table(&e, "d", "t");
    assert_eq!(t2.secondary.len(), 1);
    let by_c = rows(&e, &t2, 0);
    assert_eq!(by_c.len(), ROWS as usize);
    let bytes = |d: &Datum| match d {
        Datum::Bytes(b) => b.clone(),
        other => panic!("{other:?}"),
    };
    assert!(by_c.windows(2).all(|w| bytes(&w[0][0]) < bytes(&w[1][0])), "ordered by the new primary key");
    let by_id = rows(&e, &t2, 1);
    assert!(by_id
        .iter()
        .enumerate()
        .all(|(i, r)| r[2] == Datum::Int(i as i64) && r[1] == Datum::Int(i as i64 % 7 * 2)));
    settle(&e).await;
    audit(&e);
    e.shutdown().unwrap();
}

/// A power cut in the middle of the copy: the old table, as it was. A power cut right after
/// the commit: the new one, whole. Neither leaks a page.
#[tokio::test]
async fn a_crash_during_or_after_a_rebuild_leaves_the_old_table_or_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path()).await;
    settle(&e).await;
    let before = rows(&e, &t, 0);
    let mut new = rebuild_of(&t);
    new.columns.push(col("z", int(), true));
    let widen = |mut r: Vec<Datum>| -> Result<Vec<Datum>> {
        r.push(Datum::Int(9));
        Ok(r)
    };
    e.arm_crash_point_for_test(CrashPoint::TableRebuild);
    assert!(e.rebuild_table("d", "t", &t, new.clone(), widen).await.is_err());
    assert!(e.crash_point_fired_for_test());
    e.crash_for_test();
    drop(e);

    let e = Engine::open(crash_config(dir.path())).unwrap();
    let t1 = table(&e, "d", "t");
    assert_eq!(t1, t, "the catalog still names the old table");
    assert_eq!(rows(&e, &t1, 0), before);
    assert_eq!(rows(&e, &t1, 1).len(), ROWS as usize);
    settle(&e).await;
    let r = audit(&e);
    assert_eq!(r.pending, 0, "the partial trees were freed: {r:?}");

    assert_eq!(e.rebuild_table("d", "t", &t1, new, widen).await.unwrap(), ROWS as u64);
    e.crash_for_test();
    drop(e);
    let e = Engine::open(crash_config(dir.path())).unwrap();
    let t2 = table(&e, "d", "t");
    assert_eq!(t2.columns.len(), 4);
    let after = rows(&e, &t2, 0);
    assert_eq!(after.len(), ROWS as usize);
    assert!(after.iter().zip(&before).all(|(a, b)| a[..3] == b[..] && a[3] == Datum::Int(9)));
    assert_eq!(rows(&e, &t2, 1).len(), ROWS as usize);
    settle(&e).await;
    let r = audit(&e);
    assert_eq!(r.pending, 0, "the old trees were freed: {r:?}");
    e.shutdown().unwrap();
}

/// Writers of the table wait for a rebuild (LOCK=SHARED) and then write through the new
/// definition; AUTO_INCREMENT=n moves the counter but never below the largest value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writers_wait_for_a_rebuild_and_auto_increment_is_kept_above_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path()).await;
    let mut new = rebuild_of(&t);
    new.columns.push(col("z", int(), true));
    let ddl = tokio::spawn({
        let (e, t, new) = (e.clone(), t.clone(), new.clone());
        async move {
            e.rebuild_table::<StorageError>("d", "t", &t, new, |mut r| {
                std::thread::sleep(Duration::from_micros(200));
                r.push(Datum::Null);
                Ok(r)
            })
            .await
        }
    });
    let s = e.register_session().unwrap();
    // Wait until the rebuild blocks writers, then write: the guard returns after the publish.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let blocked = tokio::time::timeout(
            Duration::from_millis(20),
            e.write_statement_guard(&s, &[t.id], Duration::from_secs(30)),
        )
        .await
        .is_err();
        if blocked || ddl.is_finished() {
            break;
        }
        assert!(Instant::now() < deadline);
    }
    let _g = e.write_statement_guard(&s, &[t.id], Duration::from_secs(30)).await.unwrap();
    // The rebuild's task may still be returning; what matters is that its definition is out.
    assert_eq!(
        table(&e, "d", "t").columns.len(),
        t.columns.len() + 1,
        "the writer went on before the rebuild published"
    );
    ddl.await.unwrap().unwrap();
    let t2 = table(&e, "d", "t");
    let mut trx = e.begin(&s, opts());
    let id = trx.auto_increment_next(&t2, 1).unwrap();
    assert_eq!(id, ROWS as u64);
    drop(trx);
    drop(_g);
    e.set_auto_increment("d", "t", 5).await.unwrap();
    assert_eq!(e.peek_auto_increment(&t2), ROWS as u64, "not below the largest value + 1");
    e.set_auto_increment("d", "t", 100_000).await.unwrap();
    assert_eq!(e.peek_auto_increment(&t2), 100_000);
    e.shutdown().unwrap();
}

/// An online rebuild (writers go on, `TableRebuild::online`) cut by a power cut in the middle
/// of its copy leaves the old table with every write committed meanwhile; one that commits
/// carries those writes into the new table, across a power cut right after. No page leaks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_during_an_online_rebuild_keeps_the_writes_made_meanwhile() {
    crash_during_an_online_rebuild(false).await;
}

/// The same with a new primary key (k, id): the rebuild's key map (old key -> new key) is a
/// pending tree, freed after the power cut and after the commit alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_during_an_online_primary_key_change_keeps_the_writes_made_meanwhile() {
    crash_during_an_online_rebuild(true).await;
}

async fn crash_during_an_online_rebuild(new_primary_key: bool) {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path()).await;
    settle(&e).await;
    let mut new = rebuild_of(&t);
    new.online = true;
    new.columns.push(col("z", int(), true));
    if new_primary_key {
        new.primary_key = vec![ic(1), ic(0)];
    }
    let widen = |mut r: Vec<Datum>| -> Result<Vec<Datum>> {
        r.push(Datum::Int(9));
        Ok(r)
    };
    // Writes committed while the copy holds in its middle.
    async fn write_during_copy(e: &Arc<Engine>, t: &Arc<TableDef>, id: i64) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while e.online_rebuilds_for_test() == 0 {
            assert!(Instant::now() < deadline, "the online copy never started");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let s = e.register_session().unwrap();
        let _g = e.write_statement_guard(&s, &[t.id], Duration::from_millis(1)).await.expect("writers go on");
        let mut trx = e.begin(&s, opts());
        trx.insert(t, row(id, 3, "written during the copy"), OnDuplicate::Error).await.unwrap();
        trx.commit().await.unwrap();
    }

    e.hold_index_builds_for_test(true);
    let ddl = tokio::spawn({
        let (e, t, new) = (e.clone(), t.clone(), new.clone());
        async move { e.rebuild_table("d", "t", &t, new, widen).await }
    });
    write_during_copy(&e, &t, ROWS).await;
    e.arm_crash_point_for_test(CrashPoint::TableRebuild);
    e.hold_index_builds_for_test(false);
    assert!(ddl.await.unwrap().is_err());
    assert!(e.crash_point_fired_for_test());
    e.crash_for_test();
    drop(e);

    let e = Arc::new(Engine::open(crash_config(dir.path())).unwrap());
    let t1 = table(&e, "d", "t");
    assert_eq!(t1, t, "the catalog still names the old table");
    assert_eq!(rows(&e, &t1, 0).len(), ROWS as usize + 1, "the write made during the copy is kept");
    settle(&e).await;
    assert_eq!(audit(&e).pending, 0);

    e.hold_index_builds_for_test(true);
    let ddl = tokio::spawn({
        let (e, t1, new) = (e.clone(), t1.clone(), new.clone());
        async move { e.rebuild_table("d", "t", &t1, new, widen).await }
    });
    write_during_copy(&e, &t1, ROWS + 1).await;
    e.hold_index_builds_for_test(false);
    assert_eq!(ddl.await.unwrap().unwrap(), ROWS as u64 + 2);
    e.crash_for_test();
    drop(e);
    let e = Engine::open(crash_config(dir.path())).unwrap();
    let t2 = table(&e, "d", "t");
    let after = rows(&e, &t2, 0);
    assert_eq!(after.len(), ROWS as usize + 2);
    assert!(after.iter().all(|r| r[3] == Datum::Int(9)), "every row, copied or drained, converted");
    assert_eq!(rows(&e, &t2, 1).len(), ROWS as usize + 2);
    settle(&e).await;
    assert_eq!(audit(&e).pending, 0, "the old trees were freed");
    e.shutdown().unwrap();
}
