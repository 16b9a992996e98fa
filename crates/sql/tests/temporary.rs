//! CREATE TEMPORARY TABLE: per session, shadowing a permanent table of the same name, not
//! listed, no implicit commit, dropped by DROP [TEMPORARY] TABLE and when the session ends.

use crate::common;
use common::*;

#[tokio::test]
async fn temporary_tables_belong_to_their_session_and_shadow_permanent_ones() {
    let db = TestDb::new();
    let mut a = db.session_in_test_db().await;
    let mut b = db.session_in_test_db().await;
    exec(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))").await;
    exec(&mut a, "INSERT INTO t VALUES (1, 'permanent')").await;

    exec(&mut a, "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, v VARCHAR(10))").await;
    assert_eq!(query(&mut a, "SELECT * FROM t").await, rows(&[]), "the temporary t shadows the permanent one");
    exec(&mut a, "INSERT INTO t VALUES (2, 'temp')").await;
    exec(&mut a, "UPDATE t SET v = 'temp2' WHERE id = 2").await;
    assert_eq!(query(&mut a, "SELECT id, v FROM t").await, rows(&[&["2", "temp2"]]));
    // A qualified name finds the temporary table too, as in MariaDB.
    assert_eq!(
        query(&mut a, "SELECT t.v, p.v FROM t JOIN test.t AS p ON p.id = t.id").await,
        rows(&[&["temp2", "temp2"]])
    );
    assert_eq!(
        query(&mut b, "SELECT id, v FROM t").await,
        rows(&[&["1", "permanent"]]),
        "other sessions see the permanent t"
    );

    // The same name in another session is another table.
    exec(&mut b, "CREATE TEMPORARY TABLE t (x INT)").await;
    exec(&mut b, "INSERT INTO t VALUES (7), (8)").await;
    assert_eq!(query(&mut b, "SELECT COUNT(*) FROM t").await, rows(&[&["2"]]));
    assert_eq!(query(&mut a, "SELECT COUNT(*) FROM t").await, rows(&[&["1"]]));

    // Not listed.
    assert_eq!(query(&mut a, "SHOW TABLES").await, rows(&[&["t"]]));
    assert_eq!(
        query(&mut a, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'test'").await,
        rows(&[&["1"]])
    );

    // A second CREATE of the same temporary name: 1050, or a note with IF NOT EXISTS.
    assert_eq!(fail(&mut a, "CREATE TEMPORARY TABLE t (id INT)").await.code, 1050);
    exec(&mut a, "CREATE TEMPORARY TABLE IF NOT EXISTS t (id INT)").await;
    assert_eq!(query(&mut a, "SHOW WARNINGS").await, rows(&[&["Note", "1050", "Table 't' already exists"]]));

    // DROP TABLE drops the temporary table first; the permanent one is visible again.
    exec(&mut a, "DROP TABLE t").await;
    assert_eq!(query(&mut a, "SELECT id, v FROM t").await, rows(&[&["1", "permanent"]]));
    // DROP TEMPORARY TABLE never drops a permanent table.
    assert_eq!(fail(&mut a, "DROP TEMPORARY TABLE t").await.code, 1051);
    exec(&mut a, "DROP TEMPORARY TABLE IF EXISTS t").await;
    assert_eq!(query(&mut a, "SELECT COUNT(*) FROM t").await, rows(&[&["1"]]));

    // Ending a session drops its temporary tables.
    let before = db.engine.catalog().tables_in("test").len();
    b.close();
    drop(b);
    for _ in 0..200 {
        if db.engine.catalog().tables_in("test").len() < before {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(db.engine.catalog().tables_in("test").len(), before - 1, "the session's temporary table is gone");
}

#[tokio::test]
async fn create_temporary_table_does_not_commit() {
    let db = TestDb::new();
    let mut a = db.session_in_test_db().await;
    let mut b = db.session_in_test_db().await;
    exec(&mut a, "CREATE TABLE p (id INT PRIMARY KEY)").await;
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "INSERT INTO p VALUES (1)").await;
    exec(&mut a, "CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY)").await;
    exec(&mut a, "INSERT INTO tmp SELECT id FROM p").await;
    assert_eq!(query(&mut b, "SELECT COUNT(*) FROM p").await, rows(&[&["0"]]), "still uncommitted");
    exec(&mut a, "ROLLBACK").await;
    assert_eq!(query(&mut a, "SELECT COUNT(*) FROM p").await, rows(&[&["0"]]));
    assert_eq!(query(&mut a, "SELECT COUNT(*) FROM tmp").await, rows(&[&["0"]]), "temporary tables are transactional");

    // LIKE and AS SELECT.
    exec(&mut a, "INSERT INTO p VALUES (5), (6)").await;
    exec(&mut a, "CREATE TEMPORARY TABLE l LIKE p").await;
    exec(&mut a, "INSERT INTO l VALUES (9)").await;
    exec(&mut a, "CREATE TEMPORARY TABLE s AS SELECT id * 2 AS d FROM p").await;
    assert_eq!(query(&mut a, "SELECT d FROM s ORDER BY d").await, rows(&[&["10"], &["12"]]));
    assert_eq!(query(&mut a, "SELECT id FROM l").await, rows(&[&["9"]]));
    assert_eq!(query(&mut b, "SHOW TABLES").await, rows(&[&["p"]]));
    exec(&mut a, "DROP TEMPORARY TABLE l, s, tmp").await;
    assert_eq!(fail(&mut a, "SELECT * FROM l").await.code, 1146);
}

#[tokio::test]
async fn ddl_and_show_find_the_temporary_table() {
    let db = TestDb::new();
    let mut a = db.session_in_test_db().await;
    exec(&mut a, "CREATE TABLE t (id INT PRIMARY KEY)").await;
    exec(&mut a, "INSERT INTO t VALUES (1), (2)").await;
    exec(&mut a, "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, v INT)").await;
    exec(&mut a, "INSERT INTO t VALUES (5, 50)").await;
    let create = query(&mut a, "SHOW CREATE TABLE t").await;
    assert_eq!(create[0][0], "t");
    assert!(
        create[0][1].starts_with("CREATE TEMPORARY TABLE `t` (\n  `id` int(11) NOT NULL,\n  `v` int(11)"),
        "{}",
        create[0][1]
    );
    assert_eq!(query(&mut a, "SHOW COLUMNS FROM t").await.len(), 2);
    exec(&mut a, "CREATE INDEX iv ON t (v)").await;
    exec(&mut a, "ALTER TABLE t ADD COLUMN w INT DEFAULT 7").await;
    assert_eq!(query(&mut a, "SELECT id, v, w FROM t").await, rows(&[&["5", "50", "7"]]));
    assert_eq!(fail(&mut a, "ALTER TABLE t RENAME TO t2").await.code, 1235);
    assert_eq!(query(&mut a, "SELECT COUNT(*) FROM t WHERE v = 50").await, rows(&[&["1"]]));
    exec(&mut a, "TRUNCATE TABLE t").await;
    assert_eq!(query(&mut a, "SELECT COUNT(*) FROM t").await, rows(&[&["0"]]), "the temporary table was truncated");
    exec(&mut a, "DROP TEMPORARY TABLE t").await;
    assert_eq!(query(&mut a, "SELECT COUNT(*) FROM t").await, rows(&[&["2"]]), "the permanent table is untouched");
    let create = query(&mut a, "SHOW CREATE TABLE t").await;
    assert!(create[0][1].starts_with("CREATE TABLE `t`"));
}

#[tokio::test]
async fn temporary_tables_left_by_a_crash_are_dropped_at_start() {
    let db = TestDb::new();
    let mut a = db.session_in_test_db().await;
    exec(&mut a, "CREATE TABLE keep (id INT)").await;
    exec(&mut a, "CREATE TEMPORARY TABLE gone (id INT)").await;
    // The session never ends (a crash): its table stays in the engine catalog, unlisted.
    std::mem::forget(a);
    assert_eq!(db.engine.catalog().tables_in("test").len(), 2);
    assert_eq!(db.server.drop_leftover_temporary_tables().await.unwrap(), 1);
    let names: Vec<String> = db.engine.catalog().tables_in("test").iter().map(|t| t.name.clone()).collect();
    assert_eq!(names, vec!["keep".to_string()]);
}

/// MariaDB copies a temporary table for every ALTER, CREATE INDEX and DROP INDEX: the rows
/// copied are the affected rows, with "Records: n".
#[tokio::test]
async fn ddl_on_a_temporary_table_reports_the_rows_copied() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TEMPORARY TABLE tq (a int)").await;
    exec(&mut s, "INSERT INTO tq VALUES (1), (2)").await;
    for sql in [
        "ALTER TABLE tq ADD COLUMN n int DEFAULT 1",
        "ALTER TABLE tq COMMENT = 'x'",
        "CREATE INDEX ia ON tq (a)",
        "DROP INDEX ia ON tq",
    ] {
        let ok = exec(&mut s, sql).await;
        assert_eq!((ok.affected_rows, ok.info.as_str()), (2, "Records: 2  Duplicates: 0  Warnings: 0"), "{sql}");
    }
    // A permanent table's instant change copies nothing.
    exec(&mut s, "CREATE TABLE tp (a int)").await;
    exec(&mut s, "INSERT INTO tp VALUES (1), (2)").await;
    assert_eq!(exec(&mut s, "ALTER TABLE tp COMMENT = 'x'").await.affected_rows, 0);
}
