//! Session-level statements: SET forms, DO, SHOW integration, EXPLAIN, CREATE TABLE ... SELECT,
//! status counters, KILL of another session, COM_RESET_CONNECTION.

mod common;
use common::*;

#[tokio::test]
async fn set_forms_and_variables() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "SET @a = 1, @b := @a + 1").await;
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
    // LOCK/UNLOCK TABLES and FLUSH are accepted.
    exec(&mut s, "LOCK TABLES t1 WRITE").await;
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
