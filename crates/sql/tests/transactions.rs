//! Transactions across sessions (autocommit, BEGIN/COMMIT/ROLLBACK, isolation levels, locking
//! reads, lock wait timeouts, deadlocks, read-only transactions, implicit commits) and prepared
//! statements (metadata, result types that follow the bound parameters, re-execution,
//! re-planning after DDL, SQL PREPARE/EXECUTE), and START TRANSACTION WITH CONSISTENT SNAPSHOT.

use crate::common;
use common::*;
use selkie_protocol::constants::FieldType;
use selkie_sql::Value;
use std::time::Duration;

async fn setup(db: &TestDb) -> (selkie_sql::Session, selkie_sql::Session) {
    let mut a = db.session_in_test_db().await;
    exec(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)").await;
    exec(&mut a, "INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)").await;
    let mut b = db.session();
    b.use_database("test").unwrap();
    (a, b)
}

#[tokio::test]
async fn commit_rollback_and_visibility() {
    let db = TestDb::new();
    let (mut a, mut b) = setup(&db).await;
    assert!(!a.status().in_transaction);
    exec(&mut a, "BEGIN").await;
    assert!(a.status().in_transaction);
    exec(&mut a, "UPDATE t SET v = 10 WHERE id = 1").await;
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 1").await, rows(&[&["10"]]));
    assert_eq!(query(&mut b, "SELECT v FROM t WHERE id = 1").await, rows(&[&["0"]]));
    exec(&mut a, "ROLLBACK").await;
    assert!(!a.status().in_transaction);
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 1").await, rows(&[&["0"]]));
    exec(&mut a, "START TRANSACTION").await;
    exec(&mut a, "UPDATE t SET v = 11 WHERE id = 1").await;
    exec(&mut a, "COMMIT WORK").await;
    assert_eq!(query(&mut b, "SELECT v FROM t WHERE id = 1").await, rows(&[&["11"]]));
    // A failing statement inside a transaction is rolled back alone.
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "INSERT INTO t VALUES (4, 4)").await;
    let e = fail(&mut a, "INSERT INTO t VALUES (5, 5), (1, 1)").await;
    assert_eq!(e.code, 1062);
    assert!(a.status().in_transaction);
    exec(&mut a, "COMMIT").await;
    assert_eq!(query(&mut b, "SELECT id FROM t WHERE id > 3").await, rows(&[&["4"]]));
    // DDL commits implicitly, and so does BEGIN.
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "INSERT INTO t VALUES (6, 6)").await;
    exec(&mut a, "CREATE TABLE other (x INT)").await;
    exec(&mut a, "ROLLBACK").await;
    assert_eq!(query(&mut b, "SELECT COUNT(*) FROM t WHERE id = 6").await, rows(&[&["1"]]));
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "INSERT INTO t VALUES (7, 7)").await;
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "ROLLBACK").await;
    assert_eq!(query(&mut b, "SELECT COUNT(*) FROM t WHERE id = 7").await, rows(&[&["1"]]));
    // Savepoints (crates/sql/tests/savepoints.rs has the rest): outside a transaction one
    // vanishes at once; inside, rolling back to one undoes what changed since.
    exec(&mut a, "SAVEPOINT s0").await;
    assert_eq!(fail(&mut a, "ROLLBACK TO SAVEPOINT s0").await.code, 1305, "outside a transaction a savepoint vanishes");
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "SAVEPOINT s1").await;
    assert_eq!(query(&mut a, "SELECT COUNT(*) FROM t").await, rows(&[&["6"]]));
    exec(&mut a, "ROLLBACK TO SAVEPOINT s1").await;
    exec(&mut a, "SAVEPOINT s2").await;
    exec(&mut a, "UPDATE t SET v = 99 WHERE id = 1").await;
    exec(&mut a, "ROLLBACK TO SAVEPOINT s2").await;
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 1").await, rows(&[&["11"]]));
    exec(&mut a, "RELEASE SAVEPOINT s1").await;
    assert_eq!(fail(&mut a, "RELEASE SAVEPOINT s2").await.code, 1305, "releasing s1 released the later s2");
    exec(&mut a, "ROLLBACK").await;
    assert_eq!(query(&mut b, "SELECT v FROM t WHERE id = 1").await, rows(&[&["11"]]));
}

#[tokio::test]
async fn autocommit_off_and_back_on() {
    let db = TestDb::new();
    let (mut a, mut b) = setup(&db).await;
    exec(&mut a, "SET autocommit = 0").await;
    assert!(!a.status().autocommit);
    exec(&mut a, "INSERT INTO t VALUES (10, 1)").await;
    assert!(a.status().in_transaction);
    assert_eq!(query(&mut b, "SELECT COUNT(*) FROM t WHERE id = 10").await, rows(&[&["0"]]));
    exec(&mut a, "ROLLBACK").await;
    exec(&mut a, "INSERT INTO t VALUES (11, 1)").await;
    exec(&mut a, "COMMIT").await;
    assert_eq!(query(&mut b, "SELECT id FROM t WHERE id >= 10").await, rows(&[&["11"]]));
    // With autocommit off a SAVEPOINT before any other statement belongs to the transaction
    // that follows, so rolling back to it works; like MariaDB, it reports no transaction yet.
    exec(&mut a, "SAVEPOINT s").await;
    assert!(!a.status().in_transaction);
    exec(&mut a, "ROLLBACK TO SAVEPOINT s").await;
    // COMMIT ends the transaction and forgets its savepoints.
    exec(&mut a, "COMMIT").await;
    assert_eq!(fail(&mut a, "ROLLBACK TO SAVEPOINT s").await.code, 1305);
    exec(&mut a, "INSERT INTO t VALUES (12, 1)").await;
    // Turning autocommit back on commits the open transaction.
    exec(&mut a, "SET autocommit = 1").await;
    assert!(!a.status().in_transaction);
    assert_eq!(query(&mut b, "SELECT id FROM t WHERE id >= 10 ORDER BY id").await, rows(&[&["11"], &["12"]]));
    // Closing a session rolls back its open transaction.
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "INSERT INTO t VALUES (13, 1)").await;
    a.close();
    assert_eq!(query(&mut b, "SELECT COUNT(*) FROM t WHERE id = 13").await, rows(&[&["0"]]));
}

#[tokio::test]
async fn isolation_levels() {
    let db = TestDb::new();
    let (mut a, mut b) = setup(&db).await;
    // REPEATABLE READ (default): one snapshot for the transaction.
    exec(&mut a, "BEGIN").await;
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 2").await, rows(&[&["0"]]));
    exec(&mut b, "UPDATE t SET v = 5 WHERE id = 2").await;
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 2").await, rows(&[&["0"]]));
    exec(&mut a, "COMMIT").await;
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 2").await, rows(&[&["5"]]));
    // READ COMMITTED for the session: each statement sees the latest commits.
    exec(&mut a, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED").await;
    assert_eq!(query(&mut a, "SELECT @@tx_isolation").await, rows(&[&["READ-COMMITTED"]]));
    exec(&mut a, "BEGIN").await;
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 2").await, rows(&[&["5"]]));
    exec(&mut b, "UPDATE t SET v = 6 WHERE id = 2").await;
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 2").await, rows(&[&["6"]]));
    // Characteristics cannot change inside a transaction.
    let e = fail(&mut a, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE").await;
    assert_eq!((e.code, e.state), (1568, "25001"));
    exec(&mut a, "COMMIT").await;
    // UPDATE reads the latest committed version even under REPEATABLE READ.
    exec(&mut a, "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ").await;
    exec(&mut a, "BEGIN").await;
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 3").await, rows(&[&["0"]]));
    exec(&mut b, "UPDATE t SET v = 100 WHERE id = 3").await;
    exec(&mut a, "UPDATE t SET v = v + 1 WHERE id = 3").await;
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 3").await, rows(&[&["101"]]));
    exec(&mut a, "COMMIT").await;
}

#[tokio::test]
async fn read_only_transactions() {
    let db = TestDb::new();
    let (mut a, _b) = setup(&db).await;
    exec(&mut a, "START TRANSACTION READ ONLY").await;
    assert!(a.status().read_only_transaction);
    assert_eq!(query(&mut a, "SELECT COUNT(*) FROM t").await, rows(&[&["3"]]));
    let e = fail(&mut a, "UPDATE t SET v = 1").await;
    assert_eq!(
        (e.code, e.state, e.message.as_str()),
        (1792, "25006", "Cannot execute statement in a READ ONLY transaction")
    );
    exec(&mut a, "COMMIT").await;
    // SET TRANSACTION READ ONLY applies to the next transaction only.
    exec(&mut a, "SET TRANSACTION READ ONLY").await;
    let e = fail(&mut a, "INSERT INTO t VALUES (9, 9)").await;
    assert_eq!(e.code, 1792);
    exec(&mut a, "INSERT INTO t VALUES (9, 9)").await;
}

#[tokio::test]
async fn lock_waits_timeouts_and_deadlocks() {
    let db = TestDb::new();
    let (mut a, mut b) = setup(&db).await;
    exec(&mut b, "SET innodb_lock_wait_timeout = 1").await;
    // A writer waits for the lock holder's commit.
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "UPDATE t SET v = 1 WHERE id = 1").await;
    let (rb, ra) = tokio::join!(run(&mut b, "UPDATE t SET v = v + 10 WHERE id = 1"), async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        run(&mut a, "COMMIT").await
    });
    ra.unwrap();
    rb.unwrap();
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 1").await, rows(&[&["11"]]));
    // Lock wait timeout: 1205, the statement fails, the transaction stays open.
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "UPDATE t SET v = 2 WHERE id = 2").await;
    exec(&mut b, "BEGIN").await;
    exec(&mut b, "UPDATE t SET v = 3 WHERE id = 3").await;
    let e = fail(&mut b, "UPDATE t SET v = 4 WHERE id = 2").await;
    assert_eq!(
        (e.code, e.state, e.message.as_str()),
        (1205, "HY000", "Lock wait timeout exceeded; try restarting transaction")
    );
    assert!(b.status().in_transaction);
    exec(&mut b, "COMMIT").await;
    exec(&mut a, "COMMIT").await;
    assert_eq!(query(&mut a, "SELECT v FROM t ORDER BY id").await, rows(&[&["11"], &["2"], &["3"]]));
    // Deadlock: the requester that closes the cycle gets 1213 and its transaction is gone.
    exec(&mut b, "SET innodb_lock_wait_timeout = 10").await;
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "UPDATE t SET v = 100 WHERE id = 1").await;
    exec(&mut b, "BEGIN").await;
    exec(&mut b, "UPDATE t SET v = 200 WHERE id = 2").await;
    let (ra, rb) = tokio::join!(run(&mut a, "UPDATE t SET v = 101 WHERE id = 2"), async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        run(&mut b, "UPDATE t SET v = 201 WHERE id = 1").await
    });
    let e = rb.unwrap_err();
    assert_eq!((e.code, e.state), (1213, "40001"));
    assert!(!b.status().in_transaction);
    ra.unwrap();
    exec(&mut a, "COMMIT").await;
    assert_eq!(query(&mut b, "SELECT v FROM t WHERE id <= 2 ORDER BY id").await, rows(&[&["100"], &["101"]]));
}

#[tokio::test]
async fn locking_reads() {
    let db = TestDb::new();
    let (mut a, mut b) = setup(&db).await;
    exec(&mut b, "SET innodb_lock_wait_timeout = 1").await;
    exec(&mut a, "BEGIN").await;
    assert_eq!(query(&mut a, "SELECT id, v FROM t WHERE id = 1 FOR UPDATE").await, rows(&[&["1", "0"]]));
    let e = fail(&mut b, "UPDATE t SET v = 1 WHERE id = 1").await;
    assert_eq!(e.code, 1205);
    // Rows not read are not locked.
    exec(&mut b, "UPDATE t SET v = 1 WHERE id = 2").await;
    exec(&mut a, "COMMIT").await;
    // FOR SHARE / LOCK IN SHARE MODE: readers share, writers wait.
    exec(&mut a, "BEGIN").await;
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 3 LOCK IN SHARE MODE").await, rows(&[&["0"]]));
    exec(&mut b, "BEGIN").await;
    assert_eq!(query(&mut b, "SELECT v FROM t WHERE id = 3 FOR SHARE").await, rows(&[&["0"]]));
    exec(&mut b, "COMMIT").await;
    let e = fail(&mut b, "DELETE FROM t WHERE id = 3").await;
    assert_eq!(e.code, 1205);
    exec(&mut a, "COMMIT").await;
    exec(&mut b, "DELETE FROM t WHERE id = 3").await;
    // A locking read returns the latest committed version.
    exec(&mut a, "BEGIN").await;
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 2").await, rows(&[&["1"]]));
    exec(&mut b, "UPDATE t SET v = 7 WHERE id = 2").await;
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 2").await, rows(&[&["1"]]));
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 2 FOR UPDATE").await, rows(&[&["7"]]));
    exec(&mut a, "COMMIT").await;
}

/// NOWAIT, WAIT n and SKIP LOCKED as MariaDB 10.6+: 1205 at once, after n seconds, or the
/// rows others hold left out (a job queue's `LIMIT 1 ... SKIP LOCKED` takes the next free row;
/// an uncommitted change holds its row too). Checked against MariaDB 10.11.
#[tokio::test]
async fn locking_reads_that_do_not_wait() {
    let db = TestDb::new();
    let (mut a, mut b) = setup(&db).await;
    exec(&mut a, "INSERT INTO t VALUES (4, 1)").await;
    exec(&mut a, "BEGIN").await;
    let first = "SELECT id FROM t WHERE v = 0 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED";
    assert_eq!(query(&mut a, first).await, rows(&[&["1"]]));
    exec(&mut b, "BEGIN").await;
    assert_eq!(query(&mut b, first).await, rows(&[&["2"]]));
    assert_eq!(query(&mut a, "SELECT COUNT(*) FROM t FOR UPDATE SKIP LOCKED").await, rows(&[&["3"]]));
    assert_eq!(query(&mut b, "SELECT id FROM t ORDER BY id LOCK IN SHARE MODE SKIP LOCKED").await, rows(&[&["2"]]));
    let started = std::time::Instant::now();
    for sql in [
        "SELECT id FROM t WHERE id = 1 FOR UPDATE NOWAIT",
        "SELECT id FROM t WHERE id = 3 LOCK IN SHARE MODE NOWAIT",
        "SELECT id FROM t WHERE id = 1 FOR UPDATE WAIT 0",
    ] {
        let e = fail(&mut b, sql).await;
        assert_eq!(
            (e.code, e.message.as_str()),
            (1205, "Lock wait timeout exceeded; try restarting transaction"),
            "{sql}"
        );
    }
    assert!(started.elapsed() < Duration::from_millis(900), "NOWAIT and WAIT 0 do not wait");
    let started = std::time::Instant::now();
    assert_eq!(fail(&mut b, "SELECT id FROM t WHERE id = 1 FOR UPDATE WAIT 0.5").await.code, 1205);
    assert!(started.elapsed() >= Duration::from_millis(450), "WAIT n waits n seconds");
    assert!(b.status().in_transaction, "the transaction stays open");
    assert_eq!(query(&mut b, "SELECT id FROM t WHERE id = 2 FOR UPDATE NOWAIT").await, rows(&[&["2"]]));
    exec(&mut a, "COMMIT").await;
    // An uncommitted change holds its row.
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "UPDATE t SET v = 5 WHERE id = 4").await;
    assert_eq!(
        query(&mut b, "SELECT id FROM t ORDER BY id FOR UPDATE SKIP LOCKED").await,
        rows(&[&["1"], &["2"], &["3"]])
    );
    assert_eq!(fail(&mut b, "SELECT id FROM t WHERE id = 4 FOR UPDATE NOWAIT").await.code, 1205);
    exec(&mut a, "COMMIT").await;
    // The rows SKIP LOCKED returned are held.
    exec(&mut a, "SET innodb_lock_wait_timeout = 1").await;
    assert_eq!(fail(&mut a, "UPDATE t SET v = 9 WHERE id = 3").await.code, 1205);
    exec(&mut b, "COMMIT").await;
    exec(&mut a, "UPDATE t SET v = 9 WHERE id = 3").await;
}

/// SERIALIZABLE: inside a transaction (BEGIN, or autocommit off) plain SELECTs lock the rows
/// they read in share mode, as InnoDB's; an autocommit SELECT is its own transaction and locks
/// nothing. Checked against MariaDB 10.11.
#[tokio::test]
async fn serializable_reads_lock_in_share_mode() {
    let db = TestDb::new();
    let (mut a, mut b) = setup(&db).await;
    exec(&mut a, "SET innodb_lock_wait_timeout = 1").await;
    exec(&mut b, "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE").await;
    assert_eq!(query(&mut b, "SELECT v FROM t WHERE id = 1").await, rows(&[&["0"]]));
    exec(&mut a, "UPDATE t SET v = 1 WHERE id = 1").await;
    exec(&mut b, "BEGIN").await;
    assert_eq!(query(&mut b, "SELECT v FROM t WHERE id = 1").await, rows(&[&["1"]]));
    assert_eq!(fail(&mut a, "UPDATE t SET v = 2 WHERE id = 1").await.code, 1205);
    exec(&mut a, "UPDATE t SET v = 2 WHERE id = 2").await;
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 1 LOCK IN SHARE MODE").await, rows(&[&["1"]]));
    exec(&mut b, "COMMIT").await;
    exec(&mut b, "SET autocommit = 0").await;
    assert_eq!(query(&mut b, "SELECT v FROM t WHERE id = 1").await, rows(&[&["1"]]));
    assert_eq!(fail(&mut a, "UPDATE t SET v = 3 WHERE id = 1").await.code, 1205);
    exec(&mut b, "COMMIT").await;
    exec(&mut a, "UPDATE t SET v = 3 WHERE id = 1").await;
}

/// LOCK TABLES as MariaDB 10.11 (checked against it): the locking session uses only the
/// tables it locked (1100) and changes only those locked for WRITE (1099); other sessions
/// read a READ-locked table and wait to change it, and wait for a WRITE-locked one altogether
/// (lock_wait_timeout, 1205); UNLOCK TABLES, BEGIN and the end of the session release.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_tables_exclude_other_sessions() {
    let db = TestDb::new();
    let (mut a, mut b) = setup(&db).await;
    exec(&mut a, "CREATE TABLE u (id INT PRIMARY KEY)").await;
    exec(&mut b, "SET SESSION lock_wait_timeout = 1").await;
    exec(&mut a, "LOCK TABLES t READ").await;
    assert_eq!(query(&mut a, "SELECT COUNT(*) FROM t").await, rows(&[&["3"]]));
    let e = fail(&mut a, "SELECT * FROM u").await;
    assert_eq!((e.code, e.message.as_str()), (1100, "Table 'u' was not locked with LOCK TABLES"));
    let e = fail(&mut a, "UPDATE t SET v = 1").await;
    assert_eq!((e.code, e.message.as_str()), (1099, "Table 't' was locked with a READ lock and can't be updated"));
    assert_eq!(fail(&mut a, "INSERT INTO u VALUES (1)").await.code, 1100);
    assert_eq!(query(&mut b, "SELECT COUNT(*) FROM t").await, rows(&[&["3"]]));
    assert_eq!(fail(&mut b, "UPDATE t SET v = 2").await.code, 1205);
    exec(&mut a, "UNLOCK TABLES").await;
    exec(&mut b, "UPDATE t SET v = 2 WHERE id = 1").await;

    exec(&mut a, "LOCK TABLES t WRITE, u AS z READ").await;
    exec(&mut a, "UPDATE t SET v = 3 WHERE id = 1").await;
    assert_eq!(fail(&mut b, "SELECT v FROM t WHERE id = 1").await.code, 1205);
    assert_eq!(query(&mut b, "SELECT COUNT(*) FROM u").await, rows(&[&["0"]]));
    assert_eq!(fail(&mut b, "INSERT INTO u VALUES (5)").await.code, 1205);
    // A reader waiting for the WRITE lock goes on when it is released.
    let (rb, ra) = tokio::join!(query(&mut b, "SELECT v FROM t WHERE id = 1"), async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        exec(&mut a, "BEGIN").await;
    });
    let () = ra;
    assert_eq!(rb, rows(&[&["3"]]));
    exec(&mut a, "COMMIT").await;
    exec(&mut a, "LOCK TABLE t READ LOCAL, u LOW_PRIORITY WRITE").await;
    assert_eq!(fail(&mut a, "LOCK TABLES nosuch READ").await.code, 1146);
    exec(&mut a, "UNLOCK TABLE").await;
    exec(&mut a, "LOCK TABLES t WRITE").await;
    a.close();
    exec(&mut b, "UPDATE t SET v = 5 WHERE id = 1").await;
}

#[tokio::test]
async fn prepared_statements() {
    let db = TestDb::new();
    let (mut a, _b) = setup(&db).await;
    exec(&mut a, "CREATE INDEX v ON t (v)").await;
    let p = a.prepare("SELECT id, v + ? AS w FROM t WHERE v = ? ORDER BY id").unwrap();
    assert_eq!(p.params.len(), 2);
    assert_eq!((p.params[0].name.as_str(), p.params[0].field_type), ("?", FieldType::Null));
    let names: Vec<&str> = p.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["id", "w"]);
    assert_eq!(a.prepared_param_count(p.statement_id), Some(2));
    assert_eq!(
        prepared_rows(&mut a, p.statement_id, &[Value::Int(1), Value::Int(0)]).await,
        rows(&[&["1", "1"], &["2", "1"], &["3", "1"]])
    );
    exec(&mut a, "UPDATE t SET v = 5 WHERE id = 2").await;
    assert_eq!(prepared_rows(&mut a, p.statement_id, &[Value::Int(10), Value::Int(5)]).await, rows(&[&["2", "15"]]));
    let e = execute_prepared(&mut a, p.statement_id, &[Value::Int(1)]).await.unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1210, "Incorrect arguments to mysqld_stmt_execute"));
    // DDL changes the catalog: the next execution re-plans (here without the dropped index).
    exec(&mut a, "DROP INDEX v ON t").await;
    assert_eq!(prepared_rows(&mut a, p.statement_id, &[Value::Int(0), Value::Int(5)]).await, rows(&[&["2", "5"]]));
    exec(&mut a, "DROP TABLE t").await;
    let e = execute_prepared(&mut a, p.statement_id, &[Value::Int(0), Value::Int(5)]).await.unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1146, "Table 'test.t' doesn't exist"));
    exec(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)").await;
    exec(&mut a, "INSERT INTO t VALUES (8, 5)").await;
    assert_eq!(prepared_rows(&mut a, p.statement_id, &[Value::Int(0), Value::Int(5)]).await, rows(&[&["8", "5"]]));
    a.close_prepared(p.statement_id);
    let e = execute_prepared(&mut a, p.statement_id, &[]).await.unwrap_err();
    assert_eq!(e.code, 1243);
    assert_eq!(a.prepared_param_count(p.statement_id), None);

    // DML and transaction control, prepared once and executed many times (sysbench style).
    let begin = a.prepare("BEGIN").unwrap();
    let commit = a.prepare("COMMIT").unwrap();
    let ins = a.prepare("INSERT INTO t (id, v) VALUES (?, ?)").unwrap();
    let upd = a.prepare("UPDATE t SET v = v + 1 WHERE id = ?").unwrap();
    let del = a.prepare("DELETE FROM t WHERE id = ?").unwrap();
    assert!(ins.columns.is_empty());
    for i in 100..110 {
        execute_prepared(&mut a, begin.statement_id, &[]).await.unwrap();
        assert!(a.status().in_transaction);
        let r = execute_prepared(&mut a, ins.statement_id, &[Value::Int(i), Value::Int(0)]).await.unwrap();
        assert!(matches!(&r[0], Res::Ok { info, .. } if info.affected_rows == 1));
        let r = execute_prepared(&mut a, upd.statement_id, &[Value::Int(i)]).await.unwrap();
        assert!(
            matches!(&r[0], Res::Ok { info, .. } if info.affected_rows == 1 && info.info == "Rows matched: 1  Changed: 1  Warnings: 0")
        );
        if i % 2 == 0 {
            execute_prepared(&mut a, del.statement_id, &[Value::Int(i)]).await.unwrap();
        }
        execute_prepared(&mut a, commit.statement_id, &[]).await.unwrap();
        assert!(!a.status().in_transaction);
    }
    assert_eq!(query(&mut a, "SELECT COUNT(*), SUM(v) FROM t WHERE id >= 100").await, rows(&[&["5", "5"]]));
    let e = a.prepare("SELECT * FROM nosuch").unwrap_err();
    assert_eq!(e.code, 1146);
    let e = a.prepare("SELECT 1; SELECT 2").unwrap_err();
    assert_eq!(e.code, 1064);

    // SQL-level PREPARE / EXECUTE / DEALLOCATE.
    exec(&mut a, "SET @q = 'SELECT v FROM t WHERE id = ?', @id = 101").await;
    let ok = exec(&mut a, "PREPARE s1 FROM @q").await;
    assert_eq!(ok.info, "Statement prepared");
    assert_eq!(query(&mut a, "EXECUTE s1 USING @id").await, rows(&[&["1"]]));
    let e = fail(&mut a, "EXECUTE s1").await;
    assert_eq!((e.code, e.message.as_str()), (1210, "Incorrect arguments to EXECUTE"));
    exec(&mut a, "PREPARE s1 FROM 'SELECT COUNT(*) FROM t'").await;
    assert_eq!(query(&mut a, "EXECUTE s1").await, rows(&[&["6"]]));
    exec(&mut a, "DEALLOCATE PREPARE s1").await;
    let e = fail(&mut a, "EXECUTE s1").await;
    assert_eq!(e.code, 1243);
}

/// START TRANSACTION WITH CONSISTENT SNAPSHOT takes the snapshot at once: a commit made after
/// it (and before the transaction's first read) is not seen.
#[tokio::test]
async fn consistent_snapshot_starts_at_start_transaction() {
    let db = TestDb::new();
    let mut a = db.session_in_test_db().await;
    exec(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)").await;
    exec(&mut a, "INSERT INTO t VALUES (1, 0)").await;
    let mut b = db.session_in_test_db().await;
    exec(&mut a, "START TRANSACTION WITH CONSISTENT SNAPSHOT").await;
    exec(&mut b, "UPDATE t SET v = 1 WHERE id = 1").await;
    assert_eq!(query(&mut a, "SELECT v FROM t").await, rows(&[&["0"]]));
    exec(&mut a, "COMMIT").await;
    // Without the option the snapshot starts at the first read.
    exec(&mut a, "START TRANSACTION").await;
    exec(&mut b, "UPDATE t SET v = 2 WHERE id = 1").await;
    assert_eq!(query(&mut a, "SELECT v FROM t").await, rows(&[&["2"]]));
    exec(&mut a, "COMMIT").await;
}

/// `SELECT ?` takes its type from the value bound at execution (MariaDB re-derives result
/// metadata at each execution), so the binary protocol can encode it.
#[tokio::test]
async fn parameter_typed_result_columns() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let p = s.prepare("SELECT ?, ? + 1").unwrap();
    assert_eq!(p.columns[0].field_type, FieldType::Null, "unknown at PREPARE");
    let date = selkie_storage::Date::new(2024, 1, 1);
    let cases: Vec<(Value, FieldType, Vec<&str>)> = vec![
        (Value::Int(5), FieldType::LongLong, vec!["5", "6"]),
        (Value::Bytes(b"5".to_vec()), FieldType::VarString, vec!["5", "6"]),
        (Value::Double(1.5), FieldType::Double, vec!["1.5", "2.5"]),
        (Value::Date(date), FieldType::Date, vec!["2024-01-01", "20240102"]),
        (Value::Int(-7), FieldType::LongLong, vec!["-7", "-6"]),
    ];
    for (v, ft, want) in cases {
        let r = execute_prepared(&mut s, p.statement_id, &[v.clone(), v.clone()]).await.unwrap();
        let [Res::Rows { columns, rows: got, .. }] = &r[..] else { panic!("{r:?}") };
        assert_eq!(columns[0].field_type, ft, "{v:?}");
        assert_ne!(columns[1].field_type, FieldType::Null, "{v:?}");
        let text: Vec<String> = got[0].iter().map(|x| text(x, None)).collect();
        assert_eq!(text, want, "{v:?}");
    }
    // The same through SQL PREPARE / EXECUTE.
    exec(&mut s, "PREPARE q FROM 'SELECT ?'").await;
    exec(&mut s, "SET @a = 'xy'").await;
    let (cols, got) = result(&mut s, "EXECUTE q USING @a").await;
    assert_eq!((cols[0].field_type, got[0][0].clone()), (FieldType::VarString, Value::Bytes(b"xy".to_vec())));
}
