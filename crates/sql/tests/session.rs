//! Session-level statements: SET forms (= DEFAULT, clamping warnings), DO, SHOW integration (and
//! the SHOW forms parsed ahead of sqlparser), EXPLAIN, CREATE TABLE ... SELECT, status counters,
//! KILL of another session, COM_RESET_CONNECTION, single-statement mode, session-only variables,
//! NOW() under SET timestamp / time_zone, and the statements mysqldump sends.

use crate::common;
use common::*;

#[tokio::test]
async fn set_forms_and_variables() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    // MariaDB computes every value before assigning any: @b sees @a unset.
    exec(&mut s, "SET @a = 1, @b := @a + 1").await;
    assert_eq!(query(&mut s, "SELECT @a, @b").await, rows(&[&["1", "NULL"]]));
    exec(&mut s, "SET @b := @a + 1").await;
    assert_eq!(query(&mut s, "SELECT @a, @b").await, rows(&[&["1", "2"]]));
    exec(&mut s, "SET @@session.autocommit := 0").await;
    assert!(!s.status().autocommit);
    exec(&mut s, "SET autocommit = ON").await;
    assert!(s.status().autocommit);
    exec(&mut s, "SET SESSION sql_mode = ''").await;
    assert_eq!(query(&mut s, "SELECT @@sql_mode").await, rows(&[&[""]]));
    exec(&mut s, "SET sql_mode = DEFAULT").await;
    assert_eq!(query(&mut s, "SELECT @@sql_mode = @@global.sql_mode").await, rows(&[&["1"]]));
    exec(&mut s, "SET tmp_table_size=2*1024*1024*1024").await;
    exec(&mut s, "SET NAMES utf8mb4").await;
    exec(&mut s, "SET NAMES 'utf8mb4' COLLATE 'utf8mb4_general_ci'").await;
    exec(&mut s, "SET CHARACTER SET utf8mb4").await;
    assert_eq!(
        query(&mut s, "SELECT @@character_set_client, @@collation_connection").await,
        rows(&[&["utf8mb4", "utf8mb4_general_ci"]])
    );
    let e = fail(&mut s, "SET nosuch = 1").await;
    assert_eq!((e.code, e.message.as_str()), (1193, "Unknown system variable 'nosuch'"));
    // DO evaluates and discards; its side effects stay.
    let ok = exec(&mut s, "DO 1 + 1, @c := 42").await;
    assert_eq!(ok.affected_rows, 0);
    assert_eq!(query(&mut s, "SELECT @c").await, rows(&[&["42"]]));
    // LOCK TABLES names tables that exist (transactions.rs tests what the locks do); UNLOCK
    // TABLES and FLUSH are accepted.
    assert_eq!(fail(&mut s, "LOCK TABLES t1 WRITE").await.code, 1146);
    exec(&mut s, "UNLOCK TABLES").await;
    exec(&mut s, "FLUSH TABLES").await;
    // COM_RESET_CONNECTION drops user variables and prepared statements.
    let p = s.prepare("SELECT 1").unwrap();
    s.reset();
    assert_eq!(query(&mut s, "SELECT @a").await, rows(&[&["NULL"]]));
    assert_eq!(s.prepared_param_count(p.statement_id), None);
}

#[tokio::test]
async fn explain_create_as_select_and_counters() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(20), KEY k (k))").await;
    exec(&mut s, "INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 10, NULL)").await;
    let e = query(&mut s, "EXPLAIN SELECT * FROM t WHERE id = 1").await;
    assert_eq!(e, rows(&[&["1", "SIMPLE", "t", "const", "PRIMARY", "PRIMARY", "NULL", "const", "1", "Using where"]]));
    let e = query(&mut s, "EXPLAIN SELECT * FROM t WHERE k = 10 ORDER BY c").await;
    assert_eq!((e[0][3].as_str(), e[0][5].as_str(), e[0][9].as_str()), ("ref", "k", "Using where; Using filesort"));
    // CREATE TABLE ... SELECT: columns from the result, rows inserted, MariaDB's info.
    let ok = exec(&mut s, "CREATE TABLE copy AS SELECT id, k * 2 AS k2, c FROM t WHERE k = 10").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (2, "Records: 2  Duplicates: 0  Warnings: 0"));
    assert_eq!(
        query(&mut s, "SELECT id, k2, c FROM copy ORDER BY id").await,
        rows(&[&["1", "20", "a"], &["3", "20", "NULL"]])
    );
    let cat = db.engine.catalog();
    let copy = cat.table("test", "copy").unwrap();
    assert_eq!(copy.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), vec!["id", "k2", "c"]);
    assert!(!copy.columns[0].nullable && copy.columns[2].nullable);
    let e = fail(&mut s, "CREATE TABLE copy AS SELECT 1").await;
    assert_eq!(e.code, 1050);
    let ok = exec(&mut s, "CREATE TABLE IF NOT EXISTS copy AS SELECT 1").await;
    assert_eq!(ok.warnings, 1);
    // Status counters reach SHOW STATUS.
    let before: u64 = query(&mut s, "SHOW SESSION STATUS LIKE 'Com_select'").await[0][1].parse().unwrap();
    query(&mut s, "SELECT 1").await;
    query(&mut s, "SELECT 2").await;
    let after: u64 = query(&mut s, "SHOW SESSION STATUS LIKE 'Com_select'").await[0][1].parse().unwrap();
    assert_eq!(after, before + 2);
}

#[tokio::test]
async fn kill_another_sessions_query() {
    let db = TestDb::new();
    let mut a = db.session_in_test_db().await;
    let mut b = db.session_in_test_db().await;
    exec(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)").await;
    exec(&mut a, "INSERT INTO t VALUES (1, 0)").await;
    exec(&mut b, "SET innodb_lock_wait_timeout = 5").await;
    // b waits for a's lock; KILL QUERY from a marks b's statement, which fails with 1317
    // when it next checks (after the wait ends).
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "UPDATE t SET v = 1 WHERE id = 1").await;
    let b_id = 2;
    let (rb, ra) = tokio::join!(run(&mut b, "UPDATE t SET v = 2 WHERE id = 1"), async {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let r = run(&mut a, &format!("KILL QUERY {b_id}")).await;
        run(&mut a, "COMMIT").await.unwrap();
        r
    });
    ra.unwrap();
    let e = rb.unwrap_err();
    assert_eq!(e.code, 1317);
    assert_eq!(query(&mut b, "SELECT v FROM t").await, rows(&[&["1"]]));
    let e = fail(&mut a, "KILL 424242").await;
    assert_eq!((e.code, e.message.as_str()), (1094, "Unknown thread id: 424242"));
}

/// SHOW / DESCRIBE forms that sqlparser reads lossily (LIKE patterns, dotted names) — what
/// mysqldump sends.
#[tokio::test]
async fn show_statements_are_parsed_before_sqlparser() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE apple (id INT PRIMARY KEY, name VARCHAR(20))").await;
    exec(&mut s, "CREATE TABLE avocado (id INT PRIMARY KEY)").await;
    exec(&mut s, "CREATE TABLE banana (id INT PRIMARY KEY)").await;
    exec(&mut s, "CREATE DATABASE other").await;
    exec(&mut s, "CREATE TABLE other.x (k INT, w INT)").await;
    assert_eq!(query(&mut s, "SHOW TABLES LIKE 'a%'").await, rows(&[&["apple"], &["avocado"]]));
    assert_eq!(column_names(&mut s, "SHOW TABLES LIKE 'a%'").await, ["Tables_in_test (a%)"]);
    let status = query(&mut s, "SHOW TABLE STATUS LIKE 'banana'").await;
    assert_eq!((status.len(), status[0][0].as_str(), status[0][1].as_str()), (1, "banana", "InnoDB"));
    let cols = query(&mut s, "SHOW COLUMNS FROM other.x").await;
    assert_eq!(cols.iter().map(|r| r[0].as_str()).collect::<Vec<_>>(), ["k", "w"]);
    let cols = query(&mut s, "SHOW FULL COLUMNS FROM `x` FROM `other` LIKE 'w'").await;
    assert_eq!(cols.len(), 1);
    assert_eq!(query(&mut s, "DESCRIBE apple 'n%'").await.len(), 1);
    assert_eq!(query(&mut s, "/* comment */ SHOW DATABASES LIKE 'oth%'").await, rows(&[&["other"]]));
    // SHOW WARNINGS keeps the diagnostics it shows.
    let _ = query(&mut s, "SELECT 1/0").await;
    assert_eq!(query(&mut s, "SHOW WARNINGS").await, rows(&[&["Warning", "1365", "Division by 0"]]));
    assert_eq!(query(&mut s, "SHOW COUNT(*) WARNINGS").await, rows(&[&["1"]]));
    assert_eq!(query(&mut s, "SHOW WARNINGS LIMIT 1").await.len(), 1);
    // EXPLAIN of a query is still the executor's.
    assert_eq!(query(&mut s, "EXPLAIN SELECT * FROM apple WHERE id = 1").await[0][3], "const");
}

/// Without CLIENT_MULTI_STATEMENTS a text with two statements is a syntax error at the second
/// one, and nothing runs (MariaDB).
#[tokio::test]
async fn single_statement_mode_rejects_multi_statement_text() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    s.set_multi_statements(false);
    let e = fail(&mut s, "SET @x = 1; SELECT 2").await;
    assert_eq!(
        (e.code, e.message.as_str()),
        (1064, "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near 'SELECT 2' at line 1")
    );
    assert_eq!(query(&mut s, "SELECT @x").await, rows(&[&["NULL"]]));
    let e = fail(&mut s, "SELECT 1;\n\nSELECT 2").await;
    assert!(e.message.ends_with("near 'SELECT 2' at line 3"), "{}", e.message);
    // A trailing semicolon is not a second statement.
    assert_eq!(query(&mut s, "SELECT 1;").await, rows(&[&["1"]]));
    s.set_multi_statements(true);
    let r = run(&mut s, "SET @x = 1; SELECT @x").await.unwrap();
    assert_eq!(r.len(), 2);
}

/// @@last_insert_id, @@warning_count, @@error_count and @@in_transaction follow the session,
/// in SELECT and in SHOW VARIABLES.
#[tokio::test]
async fn session_state_variables_are_current() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, w INT)").await;
    exec(&mut s, "INSERT INTO ai (w) VALUES (1), (2)").await;
    assert_eq!(
        query(&mut s, "SELECT @@last_insert_id, LAST_INSERT_ID(), @@warning_count, @@in_transaction").await,
        rows(&[&["1", "1", "0", "0"]])
    );
    let _ = query(&mut s, "SELECT 1/0, 2/0").await;
    assert_eq!(query(&mut s, "SELECT @@warning_count, @@error_count").await, rows(&[&["2", "0"]]));
    let _ = fail(&mut s, "INSERT INTO ai (w) VALUES (1/0)").await;
    assert_eq!(query(&mut s, "SELECT @@warning_count, @@error_count").await, rows(&[&["1", "1"]]));
    assert_eq!(query(&mut s, "SHOW VARIABLES LIKE 'last_insert_id'").await, rows(&[&["last_insert_id", "1"]]));
    exec(&mut s, "BEGIN").await;
    assert_eq!(query(&mut s, "SELECT @@in_transaction").await, rows(&[&["1"]]));
    exec(&mut s, "COMMIT").await;
    assert_eq!(query(&mut s, "SELECT @@in_transaction").await, rows(&[&["0"]]));
    // SET insert_id: the next INSERT's first generated value.
    exec(&mut s, "SET insert_id = 100").await;
    exec(&mut s, "INSERT INTO ai (w) VALUES (3), (4)").await;
    assert_eq!(query(&mut s, "SELECT id FROM ai ORDER BY id").await, rows(&[&["1"], &["2"], &["100"], &["101"]]));
    assert_eq!(query(&mut s, "SELECT @@last_insert_id").await, rows(&[&["100"]]));
    // SET last_insert_id is what LAST_INSERT_ID() returns.
    exec(&mut s, "SET last_insert_id = 42").await;
    assert_eq!(query(&mut s, "SELECT LAST_INSERT_ID()").await, rows(&[&["42"]]));
}

/// SET x = DEFAULT (session: the global value; global: the compiled-in one), and the warnings
/// SET gives for clamped values.
#[tokio::test]
async fn set_default_and_set_warnings() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let ok = exec(&mut s, "SET SESSION wait_timeout = 0").await;
    assert_eq!(ok.warnings, 1);
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[&["Warning", "1292", "Truncated incorrect wait_timeout value: '0'"]])
    );
    assert_eq!(query(&mut s, "SELECT @@session.wait_timeout").await, rows(&[&["1"]]));
    exec(&mut s, "SET GLOBAL wait_timeout = 100").await;
    exec(&mut s, "SET @@session.wait_timeout = DEFAULT").await;
    assert_eq!(query(&mut s, "SELECT @@session.wait_timeout").await, rows(&[&["100"]]));
    exec(&mut s, "SET GLOBAL wait_timeout = DEFAULT").await;
    assert_eq!(query(&mut s, "SELECT @@global.wait_timeout").await, rows(&[&["28800"]]));
    // COM_RESET_CONNECTION: session values back to the globals.
    exec(&mut s, "SET SESSION wait_timeout = 5").await;
    s.reset();
    assert_eq!(query(&mut s, "SELECT @@session.wait_timeout").await, rows(&[&["28800"]]));
}

/// NOW() honours SET timestamp and the session time zone.
#[tokio::test]
async fn now_follows_set_timestamp_and_time_zone() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "SET time_zone = '+00:00'").await;
    exec(&mut s, "SET timestamp = 1000000000").await;
    assert_eq!(query(&mut s, "SELECT NOW(), CURDATE()").await, rows(&[&["2001-09-09 01:46:40", "2001-09-09"]]));
    exec(&mut s, "SET time_zone = '+02:00'").await;
    assert_eq!(query(&mut s, "SELECT NOW()").await, rows(&[&["2001-09-09 03:46:40"]]));
    exec(&mut s, "CREATE TABLE ts (id INT PRIMARY KEY, at DATETIME DEFAULT CURRENT_TIMESTAMP)").await;
    exec(&mut s, "INSERT INTO ts (id) VALUES (1)").await;
    assert_eq!(query(&mut s, "SELECT at FROM ts").await, rows(&[&["2001-09-09 03:46:40"]]));
    exec(&mut s, "SET timestamp = DEFAULT").await;
    assert_ne!(query(&mut s, "SELECT YEAR(NOW())").await, rows(&[&["2001"]]));
}

/// mysqldump's `ALTER TABLE t DISABLE KEYS` / `ENABLE KEYS` (MariaDB/InnoDB: accepted, a note
/// on ENABLE), and `SAVEPOINT` use of `--single-transaction`.
#[tokio::test]
async fn statements_mysqldump_sends() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE t (id INT PRIMARY KEY)").await;
    assert_eq!(exec(&mut s, "/*!40000 ALTER TABLE `t` DISABLE KEYS */").await.warnings, 0);
    assert_eq!(exec(&mut s, "ALTER TABLE test.t ENABLE KEYS").await.warnings, 1);
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[&["Note", "1031", "Storage engine InnoDB of the table `test`.`t` doesn't have this option"]])
    );
    let e = fail(&mut s, "ALTER TABLE nosuch DISABLE KEYS").await;
    assert_eq!((e.code, e.message.as_str()), (1146, "Table 'test.nosuch' doesn't exist"));
    // Other ALTERs still go to the DDL path.
    exec(&mut s, "ALTER TABLE t ADD INDEX k (id)").await;
    assert_eq!(query(&mut s, "SHOW INDEX FROM t").await.len(), 2);
    exec(&mut s, "START TRANSACTION WITH CONSISTENT SNAPSHOT").await;
    exec(&mut s, "SAVEPOINT sp").await;
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM t").await, rows(&[&["0"]]));
    exec(&mut s, "ROLLBACK TO SAVEPOINT sp").await;
    exec(&mut s, "RELEASE SAVEPOINT sp").await;
    exec(&mut s, "COMMIT").await;
}

/// SHOW WARNINGS lists the previous statement's warnings and reports none of its own; a
/// statement that uses no tables and raises no warning leaves them (checked on MariaDB 10.11).
#[tokio::test]
async fn show_warnings_does_not_count_its_own_rows() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let eof_warnings = |r: &[Res]| match r.last() {
        Some(Res::Rows { warnings, .. }) => *warnings,
        other => panic!("expected rows, got {other:?}"),
    };
    let r = run(&mut s, "SELECT 1/0, CAST('x' AS SIGNED)").await.unwrap();
    assert_eq!(eof_warnings(&r), 2);
    for sql in ["SHOW WARNINGS", "SHOW COUNT(*) WARNINGS", "SHOW ERRORS", "SHOW WARNINGS LIMIT 0"] {
        assert_eq!(eof_warnings(&run(&mut s, sql).await.unwrap()), 0, "{sql}");
    }
    assert_eq!(eof_warnings(&run(&mut s, "SELECT @@warning_count").await.unwrap()), 0);
    assert_eq!(query(&mut s, "SELECT @@warning_count, @@error_count").await, rows(&[&["2", "0"]]));
    exec(&mut s, "SET @x = 1").await;
    assert_eq!(query(&mut s, "SELECT 1 + 1").await, rows(&[&["2"]]));
    assert_eq!(query(&mut s, "SHOW WARNINGS").await.len(), 2);
    // A statement that reads a table clears them.
    exec(&mut s, "CREATE TABLE t (a INT)").await;
    assert_eq!(query(&mut s, "SELECT 1/0").await, rows(&[&["NULL"]]));
    assert_eq!(query(&mut s, "SELECT count(*) FROM t").await, rows(&[&["0"]]));
    assert_eq!(query(&mut s, "SHOW WARNINGS").await.len(), 0);
    assert_eq!(query(&mut s, "SELECT @@warning_count").await, rows(&[&["0"]]));
}
