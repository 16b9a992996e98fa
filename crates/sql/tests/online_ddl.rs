//! Index builds and table rebuilds through sessions while other sessions work
//! (docs/architecture.md §4.9). Online (LOCK=NONE, MariaDB's default where it can): writers go on
//! and their changes reach the new index or table. With ALTER TABLE ... LOCK=SHARED: statements that change the table wait for
//! the build (lock_wait_timeout → 1205, KILL QUERY → 1317), and then write through the new
//! index, including a prepared statement and a cached plan bound before the index existed; reads
//! of the table and statements on other tables go on during the build. The build is held in its
//! middle (`Engine::hold_index_builds_for_test`) while the test looks, so nothing here depends
//! on how long it takes.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use selkie_sql::{Session, Value};
use selkie_storage::{Datum, Engine, IsolationLevel, OnDuplicate, TrxOptions};

/// Rows of `t`: the build holds after its first 500 entries.
const ROWS: i64 = 20_000;

/// Fills `test.t (id, k, c)` through the engine: the SQL path would take longer than the test.
async fn fill(engine: &Engine, rows: i64) {
    let t = engine.catalog().table("test", "t").cloned().unwrap();
    let slot = engine.register_session().unwrap();
    let opts = TrxOptions {
        isolation: IsolationLevel::RepeatableRead,
        read_only: false,
        lock_wait_timeout: Duration::from_secs(5),
    };
    for start in (0..rows).step_by(10_000) {
        let mut trx = engine.begin(&slot, opts);
        for id in start..(start + 10_000).min(rows) {
            let row = vec![
                Datum::Int(id),
                Datum::Int(id % 100),
                Datum::Bytes(format!("{id:08}-{}", "c".repeat(30)).into_bytes()),
            ];
            trx.insert(&t, row, OnDuplicate::Error).await.unwrap();
        }
        trx.commit().await.unwrap();
    }
}

/// A session in `test` opened without a statement: every DDL waits for the one in progress
/// (one DDL at a time), so `session_in_test_db`'s CREATE DATABASE would wait for the build.
fn session_in_test(db: &TestDb) -> Session {
    let mut s = db.session();
    s.use_database("test").unwrap();
    s
}

/// Whether statements that change `t` wait now (with lock_wait_timeout = 0 they fail at once).
async fn writes_wait(probe: &mut Session) -> bool {
    match run(probe, "DELETE FROM t WHERE id = -1").await {
        Ok(_) => false,
        Err(e) => {
            assert_eq!(
                (e.code, e.state, e.message.as_str()),
                (1205, "HY000", "Lock wait timeout exceeded; try restarting transaction")
            );
            true
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writers_wait_for_an_index_build_then_write_through_the_new_index() {
    let _exclusive = crate::exclusive();
    let db = Arc::new(TestDb::new());
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(60))").await;
    exec(&mut s, "CREATE TABLE other (id INT PRIMARY KEY, v INT NOT NULL)").await;
    exec(&mut s, "INSERT INTO other VALUES (1, 0), (2, 0)").await;
    fill(&db.engine, ROWS).await;

    // Bound before the index exists: a prepared INSERT and a cached text plan of an UPDATE.
    let mut prepared = db.session_in_test_db().await;
    let insert = prepared.prepare("INSERT INTO t VALUES (?, ?, ?)").unwrap().statement_id;
    let mut cached = db.session_in_test_db().await;
    exec(&mut cached, "UPDATE t SET c = 'before' WHERE id = 4").await;

    db.engine.hold_index_builds_for_test(true);
    let ddl = tokio::spawn({
        let db = db.clone();
        async move {
            let mut s = session_in_test(&db);
            exec(&mut s, "ALTER TABLE t ADD INDEX kc (c, k), LOCK=SHARED").await;
        }
    });
    let mut probe = session_in_test(&db);
    exec(&mut probe, "SET SESSION lock_wait_timeout = 0").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while !writes_wait(&mut probe).await {
        assert!(Instant::now() < deadline && !ddl.is_finished(), "the build never made writers wait");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }

    // KILL QUERY ends a wait for the build at once (lock_wait_timeout is a day).
    let mut killed = session_in_test(&db);
    let flag = killed.interrupt_flag();
    let started = Instant::now();
    let (e, ()) = tokio::join!(fail(&mut killed, "INSERT INTO t VALUES (-5, 0, 'killed')"), async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        flag.raise();
    });
    assert_eq!((e.code, e.message.as_str()), (1317, "Query execution was interrupted"));
    assert!(started.elapsed() < Duration::from_secs(2), "KILL QUERY took {:?}", started.elapsed());
    // A timeout of a second gives 1205 after a second.
    exec(&mut killed, "SET SESSION lock_wait_timeout = 1").await;
    let started = Instant::now();
    assert_eq!(fail(&mut killed, "UPDATE t SET k = 0 WHERE id = 1").await.code, 1205);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_secs(1) && waited < Duration::from_secs(3), "waited {waited:?}");

    // Writers of t wait: a prepared INSERT, a cached UPDATE plan, a new INSERT and a DELETE.
    let during = "00000000-during";
    let mut writers = Vec::new();
    writers.push(tokio::spawn(async move {
        let params = [Value::Int(ROWS), Value::Int(1), Value::Bytes(during.as_bytes().to_vec())];
        execute_prepared(&mut prepared, insert, &params).await.unwrap();
    }));
    writers.push(tokio::spawn(async move {
        exec(&mut cached, &format!("UPDATE t SET c = '{during}' WHERE id = 5")).await;
    }));
    for sql in [format!("INSERT INTO t VALUES ({}, 1, '{during}')", ROWS + 1), "DELETE FROM t WHERE id = 6".to_string()]
    {
        let db = db.clone();
        writers.push(tokio::spawn(async move {
            let mut s = session_in_test(&db);
            exec(&mut s, &sql).await;
        }));
    }
    // Reads of t and work on other tables go on.
    assert_eq!(query(&mut probe, "SELECT k FROM t WHERE id = 7").await, rows(&[&["7"]]));
    assert_eq!(query(&mut probe, "SELECT COUNT(*) FROM t WHERE id BETWEEN 10 AND 19").await, rows(&[&["10"]]));
    exec(&mut probe, "UPDATE other SET v = v + 1 WHERE id = 1").await;
    exec(&mut probe, "INSERT INTO other VALUES (3, 3)").await;
    assert_eq!(query(&mut probe, "SELECT SUM(v) FROM other").await, rows(&[&["4"]]));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(writers.iter().all(|w| !w.is_finished()), "a writer of t went on during the build");
    assert!(!ddl.is_finished());

    db.engine.hold_index_builds_for_test(false);
    ddl.await.unwrap();
    for w in writers {
        w.await.unwrap();
    }
    // Every write went through the new index: found through it (an equality on its prefix),
    // and it holds one live entry per row.
    assert_eq!(
        query(&mut probe, &format!("SELECT id FROM t WHERE c = '{during}' ORDER BY id")).await,
        rows(&[&["5"], &[&ROWS.to_string()], &[&(ROWS + 1).to_string()]])
    );
    assert_eq!(query(&mut probe, "SELECT COUNT(*) FROM t WHERE c = 'before'").await, rows(&[&["1"]]));
    assert_eq!(query(&mut probe, "SELECT COUNT(*) FROM t").await, rows(&[&[&(ROWS + 1).to_string()]]));
    let t = db.engine.catalog().table("test", "t").cloned().unwrap();
    let kc = 1 + t.secondary.iter().position(|i| i.name == "kc").unwrap();
    assert_eq!(db.engine.physical_records(&t, kc).unwrap().0, ROWS as u64 + 1);
    assert_eq!(query(&mut probe, "SELECT COUNT(*) FROM t WHERE id = -5").await, rows(&[&["0"]]));
}

/// A failed build (duplicate values for a UNIQUE index) releases the waiting writers, which run
/// with the unchanged definition.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writers_waiting_for_a_failed_build_go_on() {
    let db = Arc::new(TestDb::new());
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(60))").await;
    fill(&db.engine, ROWS).await;
    // The last row in key order repeats the first one's c: the build fails at its end.
    let first_c = format!("00000000-{}", "c".repeat(30));
    exec(&mut s, &format!("INSERT INTO t VALUES ({ROWS}, 0, '{first_c}')")).await;
    db.engine.hold_index_builds_for_test(true);
    let ddl = tokio::spawn({
        let db = db.clone();
        async move {
            let mut s = session_in_test(&db);
            fail(&mut s, "ALTER TABLE t ADD UNIQUE INDEX uk (c), LOCK=SHARED").await
        }
    });
    let mut probe = session_in_test(&db);
    exec(&mut probe, "SET SESSION lock_wait_timeout = 0").await;
    while !writes_wait(&mut probe).await {
        assert!(!ddl.is_finished(), "the build never made writers wait");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let writer = tokio::spawn({
        let db = db.clone();
        async move {
            let mut s = session_in_test(&db);
            exec(&mut s, "INSERT INTO t VALUES (-1, -1, 'after the failed build')").await;
        }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!writer.is_finished());
    db.engine.hold_index_builds_for_test(false);
    let e = ddl.await.unwrap();
    assert_eq!((e.code, e.message), (1062, format!("Duplicate entry '{first_c}' for key 'uk'")));
    writer.await.unwrap();
    assert_eq!(query(&mut probe, "SELECT c FROM t WHERE id = -1").await, rows(&[&["after the failed build"]]));
    let t = db.engine.catalog().table("test", "t").cloned().unwrap();
    assert!(t.index_by_name("uk").is_none());
}

/// Waits until an online rebuild copies (its row log exists; the copy holds in its middle).
async fn wait_for_online_copy(db: &TestDb) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while db.engine.online_rebuilds_for_test() == 0 {
        assert!(Instant::now() < deadline, "no online rebuild started");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// What `t` holds, read through its primary key, and checked against every index: each index
/// holds one entry per row, and a lookup through the `kc` index finds what the rows say.
async fn contents_checked(db: &TestDb, probe: &mut Session) -> Vec<Vec<String>> {
    let all = query(probe, "SELECT id, k, c FROM t ORDER BY id").await;
    let t = db.engine.catalog().table("test", "t").cloned().unwrap();
    for ix in 0..=t.secondary.len() {
        assert_eq!(db.engine.physical_records(&t, ix).unwrap().0, all.len() as u64, "index {ix} of {:?}", t.name);
    }
    for k in [0, 1, 7, 42, 99, 1000] {
        let expected: Vec<Vec<String>> =
            all.iter().filter(|r| r[1] == k.to_string()).map(|r| vec![r[0].clone()]).collect();
        assert_eq!(query(probe, &format!("SELECT id FROM t WHERE k = {k} ORDER BY id")).await, expected, "k = {k}");
    }
    all
}

/// An INPLACE rebuild that keeps the primary key runs online (MariaDB's LOCK=NONE): writers of
/// the table go on while it copies, their committed changes (inserts, updates of indexed
/// columns and of the key, deletes) reach the new trees, rolled back ones do not, and a
/// transaction still open when the copy ends is waited for and kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writers_go_on_during_an_online_rebuild_and_their_changes_are_kept() {
    let db = writers_go_on_during("ALTER TABLE t MODIFY c VARCHAR(60) NOT NULL, ADD INDEX kc (k, c), LOCK=NONE").await;
    let t = db.engine.catalog().table("test", "t").cloned().unwrap();
    assert!(!t.columns[2].nullable);
}

/// The same for ADD INDEX and CREATE INDEX: MariaDB builds them with LOCK=NONE.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writers_go_on_during_an_online_index_build_and_reach_the_index() {
    writers_go_on_during("ALTER TABLE t ADD INDEX kc (k, c)").await;
    writers_go_on_during("CREATE INDEX kc ON t (k)").await;
}

/// A new primary key is built online too (MariaDB's LOCK=NONE for ADD PRIMARY KEY): from a
/// table without one (rows named by hidden row ids) and in place of another. The row log names
/// the rows writers change by their old key; the rebuild's key map finds their new place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writers_go_on_during_a_primary_key_change() {
    let db = writers_go_on_during_in(
        "CREATE TABLE t (id INT NOT NULL, k INT NOT NULL, c VARCHAR(60))",
        "ALTER TABLE t ADD PRIMARY KEY (id), ADD INDEX kc (k, c), LOCK=NONE",
    )
    .await;
    let t = db.engine.catalog().table("test", "t").cloned().unwrap();
    assert!(!t.has_hidden_pk());
    let db = writers_go_on_during_in(
        "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(60))",
        "ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (k, id), ADD INDEX kc (k, c)",
    )
    .await;
    let t = db.engine.catalog().table("test", "t").cloned().unwrap();
    assert_eq!(t.primary.columns.iter().map(|c| c.column).collect::<Vec<_>>(), [1, 0]);
}

/// Runs `alter` (which adds the index `kc` leading with `k`) on a held copy while writers go on.
async fn writers_go_on_during(alter: &'static str) -> Arc<TestDb> {
    writers_go_on_during_in("CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(60))", alter).await
}

/// `writers_go_on_during` on the table `create` makes.
async fn writers_go_on_during_in(create: &str, alter: &'static str) -> Arc<TestDb> {
    let db = Arc::new(TestDb::new());
    let mut s = db.session_in_test_db().await;
    exec(&mut s, create).await;
    fill(&db.engine, ROWS).await;

    db.engine.hold_index_builds_for_test(true);
    let ddl = tokio::spawn({
        let db = db.clone();
        async move {
            let mut s = session_in_test(&db);
            exec(&mut s, alter).await
        }
    });
    wait_for_online_copy(&db).await;
    let mut w = session_in_test(&db);
    exec(&mut w, "SET SESSION lock_wait_timeout = 0").await;
    exec(&mut w, "INSERT INTO t VALUES (-1, 7, 'inserted during the copy')").await;
    exec(&mut w, "UPDATE t SET k = 42, c = 'moved' WHERE id = 3").await;
    exec(&mut w, "UPDATE t SET k = 1000 WHERE id = 19999").await;
    exec(&mut w, "DELETE FROM t WHERE id BETWEEN 100 AND 199").await;
    exec(&mut w, "UPDATE t SET id = -2 WHERE id = 5").await;
    // Many changed keys: more than one drain while writers go on.
    exec(&mut w, "UPDATE t SET k = 99 WHERE id BETWEEN 1000 AND 3999").await;
    exec(&mut w, "BEGIN").await;
    exec(&mut w, "UPDATE t SET k = 1 WHERE id BETWEEN 200 AND 299").await;
    exec(&mut w, "INSERT INTO t VALUES (-3, 1, 'rolled back')").await;
    exec(&mut w, "ROLLBACK").await;
    // Reads go on as well.
    assert_eq!(query(&mut w, "SELECT c FROM t WHERE id = 3").await, rows(&[&["moved"]]));
    // A transaction still open when the copy ends: the rebuild waits for it at its last drain.
    let mut open = session_in_test(&db);
    exec(&mut open, "BEGIN").await;
    exec(&mut open, "UPDATE t SET c = 'committed at the end' WHERE id = 8").await;
    assert!(!ddl.is_finished());

    db.engine.hold_index_builds_for_test(false);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!ddl.is_finished(), "the rebuild ended with a writer of the table open");
    exec(&mut open, "COMMIT").await;
    let ok = ddl.await.unwrap();
    assert_eq!(ok.affected_rows, 0, "INPLACE reports no rows, as MariaDB");

    let mut probe = session_in_test(&db);
    let all = contents_checked(&db, &mut probe).await;
    assert_eq!(all.len() as i64, ROWS + 1 - 100, "one inserted, 100 deleted");
    let row = |id: i64| all.iter().find(|r| r[0] == id.to_string()).map(|r| (r[1].clone(), r[2].clone()));
    assert_eq!(row(-1), Some(("7".into(), "inserted during the copy".into())));
    assert_eq!(row(3), Some(("42".into(), "moved".into())));
    assert_eq!(row(19999).unwrap().0, "1000");
    assert_eq!(row(150), None);
    assert_eq!(row(5), None);
    assert_eq!(row(-2).unwrap().0, "5");
    assert_eq!(row(2000).unwrap().0, "99");
    assert_eq!(row(250).unwrap().0, "50", "rolled back");
    assert_eq!(row(-3), None);
    assert_eq!(row(8).unwrap().1, "committed at the end");
    let t = db.engine.catalog().table("test", "t").cloned().unwrap();
    assert!(t.index_by_name("kc").is_some());
    db
}

/// A new UNIQUE key that a writer breaks during an online rebuild or index build fails the
/// ALTER with MariaDB's 1062 at its end; the table keeps its definition and every committed
/// write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_written_during_an_online_rebuild_fails_it_and_keeps_the_writes() {
    duplicate_written_during("ALTER TABLE t MODIFY c VARCHAR(60) NOT NULL, ADD UNIQUE KEY uk (c)", "uk").await;
    duplicate_written_during("CREATE UNIQUE INDEX uk ON t (c)", "uk").await;
    duplicate_written_during("ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (c), LOCK=NONE", "PRIMARY").await;
}

async fn duplicate_written_during(alter: &'static str, key: &str) {
    let db = Arc::new(TestDb::new());
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(60))").await;
    fill(&db.engine, ROWS).await;
    db.engine.hold_index_builds_for_test(true);
    let ddl = tokio::spawn({
        let db = db.clone();
        async move {
            let mut s = session_in_test(&db);
            fail(&mut s, alter).await
        }
    });
    wait_for_online_copy(&db).await;
    let mut w = session_in_test(&db);
    exec(&mut w, "SET SESSION lock_wait_timeout = 0").await;
    let first_c = format!("00000000-{}", "c".repeat(30));
    exec(&mut w, &format!("INSERT INTO t VALUES (-1, 0, '{first_c}')")).await;
    db.engine.hold_index_builds_for_test(false);
    let e = ddl.await.unwrap();
    assert_eq!((e.code, e.message), (1062, format!("Duplicate entry '{first_c}' for key '{key}'")));
    let t = db.engine.catalog().table("test", "t").cloned().unwrap();
    assert!(t.index_by_name("uk").is_none() && t.columns[2].nullable);
    assert_eq!(t.primary.columns.iter().map(|c| c.column).collect::<Vec<_>>(), [0]);
    assert_eq!(db.engine.online_rebuilds_for_test(), 0, "the row log ended");
    let mut probe = session_in_test(&db);
    assert_eq!(query(&mut probe, "SELECT COUNT(*) FROM t").await, rows(&[&[&(ROWS + 1).to_string()]]));
}
