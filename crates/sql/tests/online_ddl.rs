//! An index build through sessions while other sessions work (docs/architecture.md §4.9), with
//! MariaDB's ALTER TABLE ... LOCK=SHARED behaviour: statements that change the table wait for
//! the build (lock_wait_timeout → 1205, KILL QUERY → 1317), and then write through the new
//! index, including a prepared statement and a cached plan bound before the index existed; reads
//! of the table and statements on other tables go on during the build. The build is held in its
//! middle (`Engine::hold_index_builds_for_test`) while the test looks, so nothing here depends
//! on how long it takes.

mod common;

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
            exec(&mut s, "ALTER TABLE t ADD INDEX kc (c, k)").await;
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
            fail(&mut s, "CREATE UNIQUE INDEX uk ON t (c)").await
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
