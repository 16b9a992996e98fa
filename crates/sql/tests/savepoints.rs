//! SAVEPOINT / ROLLBACK TO SAVEPOINT / RELEASE SAVEPOINT and statement atomicity, with InnoDB's
//! semantics: a partial rollback undoes the rows changed since the savepoint (and keeps the row
//! locks), drops the savepoints set after it, and the rest of the transaction commits as usual.

use crate::common;
use common::*;

async fn table_with_rows(db: &TestDb) -> (selkie_sql::Session, selkie_sql::Session) {
    let mut a = db.session_in_test_db().await;
    exec(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL, u INT, UNIQUE KEY uu (u), KEY kv (v))").await;
    exec(&mut a, "INSERT INTO t VALUES (1, 10, 1), (2, 20, 2), (3, 30, 3)").await;
    let mut b = db.session();
    b.use_database("test").unwrap();
    (a, b)
}

const ALL: &str = "SELECT id, v, u FROM t ORDER BY id";

#[tokio::test]
async fn rollback_to_savepoint_undoes_later_changes_and_the_rest_commits() {
    let db = TestDb::new();
    let (mut a, mut b) = table_with_rows(&db).await;
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "UPDATE t SET v = 11 WHERE id = 1").await;
    exec(&mut a, "SAVEPOINT s").await;
    exec(&mut a, "UPDATE t SET v = v + 100").await;
    exec(&mut a, "DELETE FROM t WHERE id = 2").await;
    exec(&mut a, "INSERT INTO t VALUES (4, 40, 4), (5, 50, 5)").await;
    exec(&mut a, "UPDATE t SET id = 30, u = 33 WHERE id = 3").await;
    assert_eq!(
        query(&mut a, ALL).await,
        rows(&[&["1", "111", "1"], &["4", "40", "4"], &["5", "50", "5"], &["30", "130", "33"]])
    );
    exec(&mut a, "ROLLBACK TO SAVEPOINT s").await;
    assert!(a.status().in_transaction, "the transaction goes on");
    assert_eq!(query(&mut a, ALL).await, rows(&[&["1", "11", "1"], &["2", "20", "2"], &["3", "30", "3"]]));
    // Secondary indexes are rolled back too: lookups through them find the old values only.
    assert_eq!(query(&mut a, "SELECT id FROM t WHERE v = 130").await, rows(&[]));
    assert_eq!(query(&mut a, "SELECT id FROM t WHERE v = 30").await, rows(&[&["3"]]));
    assert_eq!(query(&mut a, "SELECT id FROM t WHERE u = 33").await, rows(&[]));
    // The savepoint stays and can be used again.
    exec(&mut a, "DELETE FROM t").await;
    exec(&mut a, "ROLLBACK TO s").await;
    assert_eq!(query(&mut a, "SELECT COUNT(*) FROM t").await, rows(&[&["3"]]));
    // Values freed by the rollback can be taken again (unique key, primary key).
    exec(&mut a, "INSERT INTO t VALUES (4, 44, 4)").await;
    exec(&mut a, "COMMIT").await;
    assert_eq!(
        query(&mut b, ALL).await,
        rows(&[&["1", "11", "1"], &["2", "20", "2"], &["3", "30", "3"], &["4", "44", "4"]])
    );
}

#[tokio::test]
async fn savepoints_nest_release_and_report_unknown_names() {
    let db = TestDb::new();
    let (mut a, mut b) = table_with_rows(&db).await;
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "SAVEPOINT a").await;
    exec(&mut a, "INSERT INTO t VALUES (4, 40, 4)").await;
    exec(&mut a, "SAVEPOINT b").await;
    exec(&mut a, "INSERT INTO t VALUES (5, 50, 5)").await;
    exec(&mut a, "SAVEPOINT c").await;
    exec(&mut a, "INSERT INTO t VALUES (6, 60, 6)").await;
    // Rolling back to b drops c (set after it) and keeps b.
    exec(&mut a, "ROLLBACK WORK TO SAVEPOINT B").await;
    assert_eq!(query(&mut a, "SELECT MAX(id) FROM t").await, rows(&[&["4"]]));
    let e = fail(&mut a, "ROLLBACK TO SAVEPOINT c").await;
    assert_eq!((e.code, e.state, e.message.as_str()), (1305, "42000", "SAVEPOINT c does not exist"));
    exec(&mut a, "INSERT INTO t VALUES (7, 70, 7)").await;
    exec(&mut a, "ROLLBACK TO SAVEPOINT b").await;
    assert_eq!(query(&mut a, "SELECT MAX(id) FROM t").await, rows(&[&["4"]]));
    // Setting a savepoint again under the same name moves it.
    exec(&mut a, "INSERT INTO t VALUES (8, 80, 8)").await;
    exec(&mut a, "SAVEPOINT a").await;
    exec(&mut a, "INSERT INTO t VALUES (9, 90, 9)").await;
    exec(&mut a, "ROLLBACK TO SAVEPOINT a").await;
    assert_eq!(query(&mut a, "SELECT id FROM t WHERE id > 3 ORDER BY id").await, rows(&[&["4"], &["8"]]));
    // The moved `a` is now the newest: releasing b releases it too.
    exec(&mut a, "RELEASE SAVEPOINT b").await;
    assert_eq!(fail(&mut a, "ROLLBACK TO SAVEPOINT a").await.code, 1305);
    assert_eq!(fail(&mut a, "RELEASE SAVEPOINT nope").await.code, 1305);
    exec(&mut a, "COMMIT").await;
    assert_eq!(query(&mut b, "SELECT id FROM t WHERE id > 3 ORDER BY id").await, rows(&[&["4"], &["8"]]));
    // After COMMIT the savepoints are gone.
    assert_eq!(fail(&mut a, "ROLLBACK TO SAVEPOINT b").await.code, 1305);
}

#[tokio::test]
async fn savepoint_before_the_first_statement_with_autocommit_off() {
    let db = TestDb::new();
    let (mut a, mut b) = table_with_rows(&db).await;
    exec(&mut a, "SET autocommit = 0").await;
    exec(&mut a, "SAVEPOINT start").await;
    exec(&mut a, "UPDATE t SET v = 0").await;
    exec(&mut a, "INSERT INTO t VALUES (4, 40, 4)").await;
    exec(&mut a, "ROLLBACK TO SAVEPOINT start").await;
    exec(&mut a, "INSERT INTO t VALUES (5, 50, 5)").await;
    exec(&mut a, "COMMIT").await;
    assert_eq!(
        query(&mut b, ALL).await,
        rows(&[&["1", "10", "1"], &["2", "20", "2"], &["3", "30", "3"], &["5", "50", "5"]])
    );
}

#[tokio::test]
async fn rollback_to_savepoint_keeps_the_row_locks() {
    let db = TestDb::new();
    let (mut a, mut b) = table_with_rows(&db).await;
    exec(&mut b, "SET innodb_lock_wait_timeout = 1").await;
    exec(&mut a, "BEGIN").await;
    query(&mut a, "SELECT COUNT(*) FROM t").await;
    exec(&mut a, "SAVEPOINT s").await;
    exec(&mut a, "UPDATE t SET v = 0 WHERE id = 1").await;
    exec(&mut a, "INSERT INTO t VALUES (4, 40, 4)").await;
    exec(&mut a, "ROLLBACK TO SAVEPOINT s").await;
    assert_eq!(fail(&mut b, "UPDATE t SET v = 5 WHERE id = 1").await.code, 1205, "InnoDB keeps the lock");
    // The inserted row's lock went away with the row (InnoDB's insert lock is implicit).
    exec(&mut b, "INSERT INTO t VALUES (4, 41, 4)").await;
    exec(&mut a, "COMMIT").await;
    exec(&mut b, "UPDATE t SET v = 5 WHERE id = 1").await;
    assert_eq!(query(&mut b, "SELECT v FROM t WHERE id = 1").await, rows(&[&["5"]]));
    // A savepoint set before the transaction used the engine rolls the engine's transaction back
    // whole, locks included, and the SQL transaction goes on (MariaDB's rule for an engine that
    // joined the transaction after the savepoint).
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "SAVEPOINT early").await;
    exec(&mut a, "UPDATE t SET v = 0 WHERE id = 1").await;
    exec(&mut a, "ROLLBACK TO SAVEPOINT early").await;
    assert!(a.status().in_transaction);
    exec(&mut b, "UPDATE t SET v = 6 WHERE id = 1").await;
    exec(&mut a, "COMMIT").await;
    assert_eq!(query(&mut a, "SELECT v FROM t WHERE id = 1").await, rows(&[&["6"]]));
}

#[tokio::test]
async fn a_failed_statement_rolls_back_only_itself() {
    let db = TestDb::new();
    let (mut a, mut b) = table_with_rows(&db).await;
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "INSERT INTO t VALUES (4, 40, 4)").await;
    // A multi-row INSERT that fails at its third row (duplicate unique value) leaves none of its
    // rows, and the transaction's earlier work stays.
    let e = fail(&mut a, "INSERT INTO t VALUES (5, 50, 5), (6, 60, 6), (7, 70, 1), (8, 80, 8)").await;
    assert_eq!(e.code, 1062);
    // An UPDATE that fails half way (a later row hits a duplicate primary key) changes nothing.
    let e = fail(&mut a, "UPDATE t SET id = id + 1 ORDER BY id").await;
    assert_eq!(e.code, 1062);
    let e = fail(&mut a, "UPDATE t SET u = 9 WHERE id >= 3").await;
    assert_eq!(e.code, 1062);
    assert!(a.status().in_transaction);
    assert_eq!(
        query(&mut a, ALL).await,
        rows(&[&["1", "10", "1"], &["2", "20", "2"], &["3", "30", "3"], &["4", "40", "4"]])
    );
    exec(&mut a, "COMMIT").await;
    assert_eq!(
        query(&mut b, ALL).await,
        rows(&[&["1", "10", "1"], &["2", "20", "2"], &["3", "30", "3"], &["4", "40", "4"]])
    );
    // With autocommit, the failed statement is its own transaction: nothing of it stays.
    let e = fail(&mut b, "INSERT INTO t VALUES (9, 90, 9), (10, 100, 4)").await;
    assert_eq!(e.code, 1062);
    assert_eq!(query(&mut b, "SELECT COUNT(*) FROM t").await, rows(&[&["4"]]));
}

#[tokio::test]
async fn savepoints_over_many_statements_and_rows() {
    let db = TestDb::new();
    let (mut a, mut b) = table_with_rows(&db).await;
    exec(&mut a, "BEGIN").await;
    let mut marks = Vec::new();
    for round in 0..20 {
        exec(&mut a, &format!("SAVEPOINT r{round}")).await;
        marks.push(query(&mut a, "SELECT COUNT(*), SUM(v) FROM t").await);
        let base = 100 + round * 50;
        let values: Vec<String> = (0..50).map(|i| format!("({}, {}, NULL)", base + i, i)).collect();
        exec(&mut a, &format!("INSERT INTO t VALUES {}", values.join(","))).await;
        exec(&mut a, &format!("UPDATE t SET v = v + 1 WHERE id % 7 = {}", round % 7)).await;
        exec(&mut a, &format!("DELETE FROM t WHERE id % 11 = {}", round % 11)).await;
    }
    for round in (0..20).rev().step_by(3) {
        exec(&mut a, &format!("ROLLBACK TO SAVEPOINT r{round}")).await;
        assert_eq!(query(&mut a, "SELECT COUNT(*), SUM(v) FROM t").await, marks[round], "back at r{round}");
    }
    exec(&mut a, "COMMIT").await;
    assert_eq!(query(&mut b, "SELECT COUNT(*), SUM(v) FROM t").await, marks[1]);
}
