//! INSERT / REPLACE / UPDATE / DELETE: affected rows and info strings as MariaDB 10.11 reports
//! them, defaults, strict mode (and the column and row its errors name), AUTO_INCREMENT,
//! duplicate handling, and Halloween safety.

use crate::common;
use common::*;

#[tokio::test]
async fn insert_forms_defaults_and_strict_mode() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, a INT DEFAULT 7, b VARCHAR(5) NOT NULL, c INT NOT NULL DEFAULT '0', d DATETIME DEFAULT CURRENT_TIMESTAMP)").await;
    let ok = exec(&mut s, "INSERT INTO t (b) VALUES ('x')").await;
    assert_eq!((ok.affected_rows, ok.last_insert_id, ok.info.as_str()), (1, 1, ""));
    let ok = exec(&mut s, "INSERT INTO t SET b = 'y', a = DEFAULT").await;
    assert_eq!((ok.affected_rows, ok.last_insert_id), (1, 2));
    let ok = exec(&mut s, "INSERT INTO t VALUES (DEFAULT, NULL, 'z', 5, '2020-01-02 03:04:05')").await;
    assert_eq!(ok.last_insert_id, 3);
    assert_eq!(
        query(&mut s, "SELECT id, a, b, c, d IS NOT NULL FROM t ORDER BY id").await,
        rows(&[&["1", "7", "x", "0", "1"], &["2", "7", "y", "0", "1"], &["3", "NULL", "z", "5", "1"]])
    );
    assert_eq!(query(&mut s, "SELECT d FROM t WHERE id = 3").await, rows(&[&["2020-01-02 03:04:05"]]));
    // Strict mode (the default): errors, and nothing of the statement remains.
    let e = fail(&mut s, "INSERT INTO t (a) VALUES (1)").await;
    assert_eq!((e.code, e.message.as_str()), (1364, "Field 'b' doesn't have a default value"));
    let e = fail(&mut s, "INSERT INTO t (b) VALUES ('ok'), (NULL)").await;
    assert_eq!((e.code, e.message.as_str()), (1048, "Column 'b' cannot be null"));
    let e = fail(&mut s, "INSERT INTO t (b) VALUES ('toolong')").await;
    assert_eq!(e.code, 1406);
    let e = fail(&mut s, "INSERT INTO t (b, c) VALUES ('n', 'abc')").await;
    assert_eq!(e.code, 1366);
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM t").await, rows(&[&["3"]]));
    let e = fail(&mut s, "INSERT INTO t (b) VALUES ('a', 'b')").await;
    assert_eq!((e.code, e.message.as_str()), (1136, "Column count doesn't match value count at row 1"));
    let e = fail(&mut s, "INSERT INTO t (nosuch) VALUES (1)").await;
    assert_eq!((e.code, e.message.as_str()), (1054, "Unknown column 'nosuch' in 'INSERT INTO'"));
    let e = fail(&mut s, "INSERT INTO t (b, b) VALUES (1, 1)").await;
    assert_eq!((e.code, e.message.as_str()), (1110, "Column 'b' specified twice"));
    // Non-strict: warnings and adjusted values.
    exec(&mut s, "SET sql_mode = ''").await;
    let ok = exec(&mut s, "INSERT INTO t (b, c) VALUES ('toolong', 'abc')").await;
    assert_eq!((ok.affected_rows, ok.warnings), (1, 2));
    assert_eq!(query(&mut s, "SELECT b, c FROM t WHERE id = 4").await, rows(&[&["toolo", "0"]]));
    let ok = exec(&mut s, "INSERT INTO t (a) VALUES (1)").await;
    assert_eq!(ok.warnings, 1);
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[&["Warning", "1364", "Field 'b' doesn't have a default value"]])
    );
    assert_eq!(query(&mut s, "SELECT b FROM t WHERE id = 5").await, rows(&[&[""]]));
}

#[tokio::test]
async fn auto_increment_and_last_insert_id() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, v INT, UNIQUE KEY (v))").await;
    let ok = exec(&mut s, "INSERT INTO ai (v) VALUES (1)").await;
    assert_eq!(ok.last_insert_id, 1);
    let ok = exec(&mut s, "INSERT INTO ai (id, v) VALUES (10, 2)").await;
    assert_eq!(ok.last_insert_id, 10);
    assert_eq!(query(&mut s, "SELECT LAST_INSERT_ID()").await, rows(&[&["1"]]));
    let ok = exec(&mut s, "INSERT INTO ai (v) VALUES (3), (4)").await;
    assert_eq!((ok.last_insert_id, ok.info.as_str()), (11, "Records: 2  Duplicates: 0  Warnings: 0"));
    assert_eq!(query(&mut s, "SELECT LAST_INSERT_ID()").await, rows(&[&["11"]]));
    // Generated values continue after explicit ones in the same statement; 0 also generates.
    let ok = exec(&mut s, "INSERT INTO ai (id, v) VALUES (NULL, 5), (20, 6), (0, 7)").await;
    assert_eq!(ok.last_insert_id, 13);
    assert_eq!(
        query(&mut s, "SELECT id, v FROM ai WHERE v >= 5 ORDER BY v").await,
        rows(&[&["13", "5"], &["20", "6"], &["21", "7"]])
    );
    assert_eq!(query(&mut s, "SELECT LAST_INSERT_ID()").await, rows(&[&["13"]]));
    // A statement that generates nothing leaves LAST_INSERT_ID() alone.
    exec(&mut s, "INSERT INTO ai (id, v) VALUES (100, 8)").await;
    assert_eq!(query(&mut s, "SELECT LAST_INSERT_ID()").await, rows(&[&["13"]]));
    // LAST_INSERT_ID(expr) sets it.
    exec(&mut s, "UPDATE ai SET v = LAST_INSERT_ID(v + 1000) WHERE id = 1").await;
    assert_eq!(query(&mut s, "SELECT LAST_INSERT_ID(), v FROM ai WHERE id = 1").await, rows(&[&["1001", "1001"]]));
    // TRUNCATE restarts the counter.
    exec(&mut s, "TRUNCATE TABLE ai").await;
    let ok = exec(&mut s, "INSERT INTO ai (v) VALUES (1)").await;
    assert_eq!(ok.last_insert_id, 1);
}

#[tokio::test]
async fn duplicates_ignore_odku_replace() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE d (id INT PRIMARY KEY, u INT, n INT NOT NULL DEFAULT 0, UNIQUE KEY uk (u))").await;
    exec(&mut s, "INSERT INTO d VALUES (1, 10, 0), (2, 20, 0)").await;
    let e = fail(&mut s, "INSERT INTO d VALUES (1, 30, 0)").await;
    assert_eq!((e.code, e.state, e.message.as_str()), (1062, "23000", "Duplicate entry '1' for key 'PRIMARY'"));
    let e = fail(&mut s, "INSERT INTO d VALUES (3, 30, 0), (4, 10, 0)").await;
    assert_eq!((e.code, e.message.as_str()), (1062, "Duplicate entry '10' for key 'uk'"));
    // The failed statement left nothing behind (statement rollback).
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM d").await, rows(&[&["2"]]));
    let ok = exec(&mut s, "INSERT IGNORE INTO d VALUES (3, 30, 0), (4, 10, 0), (1, 99, 0)").await;
    assert_eq!((ok.affected_rows, ok.warnings, ok.info.as_str()), (1, 2, "Records: 3  Duplicates: 2  Warnings: 2"));
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[
            &["Warning", "1062", "Duplicate entry '10' for key 'uk'"],
            &["Warning", "1062", "Duplicate entry '1' for key 'PRIMARY'"]
        ])
    );
    // ON DUPLICATE KEY UPDATE: 1 inserted, 2 updated, 0 unchanged.
    let ok = exec(&mut s, "INSERT INTO d VALUES (5, 50, 0) ON DUPLICATE KEY UPDATE n = n + 1").await;
    assert_eq!(ok.affected_rows, 1);
    let ok = exec(&mut s, "INSERT INTO d VALUES (5, 50, 0) ON DUPLICATE KEY UPDATE n = n + 1").await;
    assert_eq!(ok.affected_rows, 2);
    let ok = exec(&mut s, "INSERT INTO d VALUES (5, 50, 0) ON DUPLICATE KEY UPDATE n = n").await;
    assert_eq!(ok.affected_rows, 0);
    let ok = exec(
        &mut s,
        "INSERT INTO d (id, u, n) VALUES (6, 10, 7), (7, 70, 1) ON DUPLICATE KEY UPDATE n = VALUES(n) * 10",
    )
    .await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (3, "Records: 2  Duplicates: 1  Warnings: 0"));
    assert_eq!(
        query(&mut s, "SELECT id, n FROM d WHERE u IN (10, 50, 70) ORDER BY id").await,
        rows(&[&["1", "70"], &["5", "1"], &["7", "1"]])
    );
    // REPLACE: 1 + rows deleted; a row conflicting on two keys deletes both.
    let ok = exec(&mut s, "REPLACE INTO d VALUES (8, 80, 0)").await;
    assert_eq!(ok.affected_rows, 1);
    let ok = exec(&mut s, "REPLACE INTO d VALUES (8, 81, 0)").await;
    assert_eq!(ok.affected_rows, 2);
    let ok = exec(&mut s, "REPLACE INTO d VALUES (2, 30, 9)").await;
    assert_eq!(ok.affected_rows, 3);
    assert_eq!(query(&mut s, "SELECT id, u, n FROM d WHERE id IN (2, 3) OR u = 30").await, rows(&[&["2", "30", "9"]]));
    let ok = exec(&mut s, "REPLACE INTO d VALUES (9, 90, 0), (9, 91, 0)").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (3, "Records: 2  Duplicates: 1  Warnings: 0"));
}

#[tokio::test]
async fn update_and_delete() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE u (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(10), ts TIMESTAMP NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP, KEY k (k))").await;
    let values: Vec<String> = (1..=20).map(|i| format!("({i}, {}, 'c{i}', NULL)", i % 5)).collect();
    exec(&mut s, &format!("INSERT INTO u VALUES {}", values.join(","))).await;
    let ok = exec(&mut s, "UPDATE u SET c = 'x' WHERE id = 1").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (1, "Rows matched: 1  Changed: 1  Warnings: 0"));
    let ok = exec(&mut s, "UPDATE u SET c = 'x' WHERE id = 1").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (0, "Rows matched: 1  Changed: 0  Warnings: 0"));
    let ok = exec(&mut s, "UPDATE u SET c = 'x' WHERE id = 100").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (0, "Rows matched: 0  Changed: 0  Warnings: 0"));
    // ON UPDATE CURRENT_TIMESTAMP moves only on a real change.
    assert_eq!(
        query(&mut s, "SELECT ts IS NOT NULL FROM u WHERE id IN (1, 2) ORDER BY id").await,
        rows(&[&["1"], &["0"]])
    );
    // Assignments see earlier assignments of the same row (MySQL order).
    exec(&mut s, "UPDATE u SET k = k + 100, c = k WHERE id = 2").await;
    assert_eq!(query(&mut s, "SELECT k, c FROM u WHERE id = 2").await, rows(&[&["102", "102"]]));
    // Halloween: moving rows forward along the index used to find them updates each once.
    let ok = exec(&mut s, "UPDATE u SET k = k + 10 WHERE k < 10").await;
    assert_eq!(ok.affected_rows, 19);
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM u WHERE k BETWEEN 10 AND 14").await, rows(&[&["19"]]));
    // Primary key updates move rows.
    let ok = exec(&mut s, "UPDATE u SET id = id + 1000 WHERE id <= 5").await;
    assert_eq!(ok.affected_rows, 5);
    assert_eq!(query(&mut s, "SELECT MIN(id), MAX(id), COUNT(*) FROM u").await, rows(&[&["6", "1005", "20"]]));
    // ORDER BY ... LIMIT picks the rows.
    let ok = exec(&mut s, "UPDATE u SET c = 'top' ORDER BY id DESC LIMIT 2").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (2, "Rows matched: 2  Changed: 2  Warnings: 0"));
    assert_eq!(query(&mut s, "SELECT id FROM u WHERE c = 'top' ORDER BY id").await, rows(&[&["1004"], &["1005"]]));
    let e = fail(&mut s, "UPDATE u SET nosuch = 1").await;
    assert_eq!((e.code, e.message.as_str()), (1054, "Unknown column 'nosuch' in 'SET'"));
    let e = fail(&mut s, "UPDATE u SET k = NULL WHERE id = 6").await;
    assert_eq!((e.code, e.message.as_str()), (1048, "Column 'k' cannot be null"));
    // DELETE with WHERE, ORDER BY, LIMIT.
    let ok = exec(&mut s, "DELETE FROM u WHERE id = 6").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (1, ""));
    let ok = exec(&mut s, "DELETE FROM u WHERE k >= 10 ORDER BY id LIMIT 3").await;
    assert_eq!(ok.affected_rows, 3);
    assert_eq!(query(&mut s, "SELECT MIN(id) FROM u").await, rows(&[&["10"]]));
    let ok = exec(&mut s, "DELETE FROM u").await;
    assert_eq!(ok.affected_rows, 16);
    let e = fail(&mut s, "DELETE FROM nosuch").await;
    assert_eq!((e.code, e.message.as_str()), (1146, "Table 'test.nosuch' doesn't exist"));
}

#[tokio::test]
async fn insert_select_and_row_count() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v INT)").await;
    exec(&mut s, "INSERT INTO a (v) VALUES (1), (2), (3)").await;
    // Reading and writing the same table: the SELECT sees only rows from before the INSERT.
    let ok = exec(&mut s, "INSERT INTO a (v) SELECT v * 10 FROM a").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (3, "Records: 3  Duplicates: 0  Warnings: 0"));
    assert_eq!(query(&mut s, "SELECT ROW_COUNT()").await, rows(&[&["3"]]));
    assert_eq!(query(&mut s, "SELECT COUNT(*), SUM(v) FROM a").await, rows(&[&["6", "66"]]));
    exec(&mut s, "DELETE FROM a WHERE v > 5").await;
    assert_eq!(query(&mut s, "SELECT ROW_COUNT()").await, rows(&[&["3"]]));
    assert_eq!(query(&mut s, "SELECT ROW_COUNT()").await, rows(&[&["-1"]]));
}

/// Strictness applies to INSERT and UPDATE only; their errors name the column (and for 1366
/// `db`.`table`.`column`) and the row, as MariaDB's do.
#[tokio::test]
async fn strictness_and_store_messages() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE t (a INT, b VARCHAR(3), c TINYINT)").await;
    exec(&mut s, "INSERT INTO t VALUES (1, 'x', 1)").await;
    assert_eq!(query(&mut s, "SELECT 1/0").await, rows(&[&["NULL"]]));
    assert_eq!(s.warning_count(), 1);
    exec(&mut s, "DELETE FROM t WHERE a/0 = 1").await;
    assert_eq!(s.warning_count(), 1);
    let cases = [
        ("UPDATE t SET a = a WHERE a/0 = 1", 1365, "Division by 0"),
        ("INSERT INTO t VALUES (1, 'abcd', 1)", 1406, "Data too long for column 'b' at row 1"),
        ("INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 1000)", 1264, "Out of range value for column 'c' at row 2"),
        (
            "INSERT INTO t VALUES (1, 'a', 'xx')",
            1366,
            "Incorrect integer value: 'xx' for column `test`.`t`.`c` at row 1",
        ),
        ("UPDATE t SET c = 1000", 1264, "Out of range value for column 'c' at row 1"),
    ];
    for (sql, code, msg) in cases {
        let e = fail(&mut s, sql).await;
        assert_eq!((e.code, e.message.as_str()), (code, msg), "{sql}");
    }
    // IGNORE: warnings instead, with the same texts.
    exec(&mut s, "INSERT IGNORE INTO t VALUES (2, 'a', 1), (3, 'b', 1000)").await;
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[&["Warning", "1264", "Out of range value for column 'c' at row 2"]])
    );
}

/// REPLACE as MariaDB counts it (checked on MariaDB 10.11): a table whose only unique key
/// conflicts has the row updated in place, so replacing it with an identical row is 1 affected
/// row and no duplicate; with another unique key it is a delete and an insert (2).
#[tokio::test]
async fn replace_of_an_identical_row() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE p (id INT PRIMARY KEY, v INT)").await;
    exec(&mut s, "INSERT INTO p VALUES (1, 10), (2, 20)").await;
    assert_eq!(exec(&mut s, "REPLACE INTO p VALUES (1, 10)").await.affected_rows, 1);
    assert_eq!(exec(&mut s, "REPLACE INTO p VALUES (1, 11)").await.affected_rows, 2);
    let ok = exec(&mut s, "REPLACE INTO p VALUES (1, 11), (2, 21), (3, 30)").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (4, "Records: 3  Duplicates: 1  Warnings: 0"));
    let ok = exec(&mut s, "REPLACE INTO p SELECT * FROM p").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (3, "Records: 3  Duplicates: 0  Warnings: 0"));
    assert_eq!(query(&mut s, "SELECT * FROM p").await, rows(&[&["1", "11"], &["2", "21"], &["3", "30"]]));
    exec(&mut s, "CREATE TABLE u (id INT PRIMARY KEY, v INT, w INT, UNIQUE KEY (w))").await;
    exec(&mut s, "INSERT INTO u VALUES (1, 10, 100)").await;
    assert_eq!(exec(&mut s, "REPLACE INTO u VALUES (1, 10, 100)").await.affected_rows, 2);
    assert_eq!(exec(&mut s, "REPLACE INTO u VALUES (2, 11, 100)").await.affected_rows, 2);
    assert_eq!(query(&mut s, "SELECT * FROM u").await, rows(&[&["2", "11", "100"]]));
    // Only a UNIQUE key (the row id is hidden): it is the one unique key.
    exec(&mut s, "CREATE TABLE k (a INT, b INT, UNIQUE KEY (a))").await;
    exec(&mut s, "INSERT INTO k VALUES (1, 1)").await;
    assert_eq!(exec(&mut s, "REPLACE INTO k VALUES (1, 1)").await.affected_rows, 1);
    assert_eq!(exec(&mut s, "REPLACE INTO k VALUES (1, 2)").await.affected_rows, 2);
    assert_eq!(query(&mut s, "SELECT * FROM k").await, rows(&[&["1", "2"]]));
}

#[tokio::test]
async fn multi_table_update_and_delete() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE a (id INT PRIMARY KEY, v INT)").await;
    exec(&mut s, "CREATE TABLE b (id INT PRIMARY KEY, aid INT, w INT)").await;
    exec(&mut s, "INSERT INTO a VALUES (1,10),(2,20),(3,30)").await;
    exec(&mut s, "INSERT INTO b VALUES (1,1,100),(2,1,200),(3,2,300),(4,9,400)").await;
    // a.id=1 joins two rows of b: it changes once, and is matched once.
    let ok = exec(&mut s, "UPDATE a JOIN b ON a.id=b.aid SET a.v=a.v+1, b.w=b.w+1").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (5, "Rows matched: 5  Changed: 5  Warnings: 0"));
    assert_eq!(query(&mut s, "SELECT v FROM a ORDER BY id").await, rows(&[&["11"], &["21"], &["30"]]));
    // b's SET reads a as joined, before a's own change.
    let ok = exec(&mut s, "UPDATE a JOIN b ON a.id=b.aid SET a.v = a.v + 1, b.w = a.v").await;
    assert_eq!(ok.info, "Rows matched: 5  Changed: 5  Warnings: 0");
    assert_eq!(query(&mut s, "SELECT w FROM b ORDER BY id").await, rows(&[&["11"], &["11"], &["21"], &["400"]]));
    let ok = exec(&mut s, "UPDATE a, b SET a.v=0 WHERE a.id=b.aid").await;
    assert_eq!(ok.info, "Rows matched: 2  Changed: 2  Warnings: 0");
    let ok = exec(&mut s, "UPDATE a LEFT JOIN b ON a.id=b.aid SET a.v=7 WHERE b.id IS NULL").await;
    assert_eq!(ok.affected_rows, 1);
    let e = fail(&mut s, "UPDATE a JOIN (SELECT 1 AS q) d ON d.q=a.id SET d.q=2").await;
    assert_eq!((e.code, e.message.as_str()), (1288, "The target table d of the UPDATE is not updatable"));
    let e = fail(&mut s, "UPDATE a JOIN b ON a.id=b.aid SET id = 1").await;
    assert_eq!(e.code, 1052);
    let e = fail(&mut s, "DELETE x FROM a JOIN b ON a.id=b.aid").await;
    assert_eq!((e.code, e.message.as_str()), (1109, "Unknown table 'x' in MULTI DELETE"));
    let e = fail(&mut s, "DELETE a FROM a JOIN b ON a.id=b.aid WHERE a.id IN (SELECT id FROM a)").await;
    assert_eq!(e.code, 1093);
    let e = fail(&mut s, "DELETE a FROM a JOIN b ON a.id=b.aid LIMIT 1").await;
    assert_eq!((e.code, e.message.contains("near 'LIMIT 1'")), (1064, true));
    let ok = exec(&mut s, "DELETE a, b FROM a JOIN b ON a.id=b.aid WHERE a.id=1").await;
    assert_eq!(ok.affected_rows, 3);
    let ok = exec(&mut s, "DELETE FROM a USING a JOIN b ON a.id=b.aid").await;
    assert_eq!(ok.affected_rows, 1);
    assert_eq!(query(&mut s, "SELECT id FROM a").await, rows(&[&["3"]]));
    assert_eq!(query(&mut s, "SELECT id FROM b ORDER BY id").await, rows(&[&["3"], &["4"]]));
}

#[tokio::test]
async fn update_and_delete_modifiers() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE p (id INT PRIMARY KEY)").await;
    exec(&mut s, "CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p(id))").await;
    exec(&mut s, "INSERT INTO p VALUES (1),(2),(3)").await;
    exec(&mut s, "INSERT INTO c VALUES (1,1),(2,2)").await;
    let ok = exec(&mut s, "DELETE LOW_PRIORITY QUICK IGNORE FROM p WHERE id=99").await;
    assert_eq!(ok.affected_rows, 0);
    // DELETE IGNORE: the referenced rows stay, each with warning 1451.
    let ok = exec(&mut s, "DELETE IGNORE FROM p").await;
    assert_eq!((ok.affected_rows, ok.warnings), (1, 2));
    assert_eq!(query(&mut s, "SHOW WARNINGS").await[0][1], "1451");
    // UPDATE IGNORE: duplicates and missing parents skip their rows silently, as in MariaDB.
    let ok = exec(&mut s, "UPDATE LOW_PRIORITY IGNORE p SET id=2 WHERE id=1").await;
    assert_eq!((ok.affected_rows, ok.warnings, ok.info.as_str()), (0, 0, "Rows matched: 1  Changed: 0  Warnings: 0"));
    let ok = exec(&mut s, "UPDATE IGNORE c SET pid=99").await;
    assert_eq!((ok.affected_rows, ok.warnings), (0, 0));
    let e = fail(&mut s, "UPDATE c SET pid=99").await;
    assert_eq!(e.code, 1452);
}

#[tokio::test]
async fn select_into_variables_and_files() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE b (id INT PRIMARY KEY, w INT, s VARCHAR(10))").await;
    exec(&mut s, "INSERT INTO b VALUES (1,100,'a,\"b'),(2,200,NULL),(4,400,'x\ty')").await;
    let ok = exec(&mut s, "SELECT id, w INTO @p, @q FROM b WHERE id=4").await;
    assert_eq!((ok.affected_rows, ok.warnings), (1, 0));
    assert_eq!(query(&mut s, "SELECT @p, @q").await, rows(&[&["4", "400"]]));
    let ok = exec(&mut s, "SELECT w INTO @p FROM b WHERE id=99").await;
    assert_eq!((ok.affected_rows, ok.warnings), (0, 1));
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[&["Warning", "1329", "No data - zero rows fetched, selected, or processed"]])
    );
    assert_eq!(query(&mut s, "SELECT @p").await, rows(&[&["4"]]));
    let e = fail(&mut s, "SELECT w INTO @p FROM b").await;
    assert_eq!((e.code, e.message.as_str()), (1172, "Result consisted of more than one row"));
    let e = fail(&mut s, "SELECT w INTO @p, @q FROM b WHERE id=1").await;
    assert_eq!(e.code, 1222);
    let ok = exec(&mut s, "SELECT w FROM b WHERE id=1 INTO @z").await;
    assert_eq!(ok.warnings, 1);
    assert_eq!(query(&mut s, "SELECT @z").await, rows(&[&["100"]]));

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.txt");
    let p = path.to_str().unwrap();
    let ok = exec(&mut s, &format!("SELECT id, s, w FROM b ORDER BY id INTO OUTFILE '{p}'")).await;
    assert_eq!(ok.affected_rows, 3);
    assert_eq!(std::fs::read(&path).unwrap(), b"1\ta,\"b\t100\n2\t\\N\t200\n4\tx\\\ty\t400\n");
    let e = fail(&mut s, &format!("SELECT 1 INTO OUTFILE '{p}'")).await;
    assert_eq!(e.code, 1086);
    let csv = dir.path().join("out.csv");
    let c = csv.to_str().unwrap();
    exec(
        &mut s,
        &format!(
            "SELECT id, s FROM b ORDER BY id INTO OUTFILE '{c}' FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' LINES STARTING BY '>' TERMINATED BY '\\r\\n'"
        ),
    )
    .await;
    assert_eq!(std::fs::read(&csv).unwrap(), b">1,\"a,\\\"b\"\r\n>2,\\N\r\n>4,\"x\ty\"\r\n");
}

#[tokio::test]
async fn load_data_infile() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("f1.csv");
    std::fs::write(
        &csv,
        "id,name,v\n1,\"a,b\",10\n2,\\N,20\n3,\"x\"\"y\",\n4,short\n5,long,50,extra\n1,dup,99\nabc,bad,1\n",
    )
    .unwrap();
    let f = csv.to_str().unwrap();
    exec(&mut s, "CREATE TABLE l (id INT PRIMARY KEY, name VARCHAR(10), v INT NOT NULL DEFAULT 7)").await;
    let opts = "FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' IGNORE 1 LINES";
    // Strict mode: the first bad value ends the load and nothing stays.
    let e = fail(&mut s, &format!("LOAD DATA INFILE '{f}' INTO TABLE l {opts}")).await;
    assert_eq!((e.code, e.message.as_str()), (1366, "Incorrect integer value: '' for column `test`.`l`.`v` at row 3"));
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM l").await, rows(&[&["0"]]));
    let ok = exec(&mut s, &format!("LOAD DATA INFILE '{f}' IGNORE INTO TABLE l {opts}")).await;
    assert_eq!(
        (ok.affected_rows, ok.warnings, ok.info.as_str()),
        (6, 5, "Records: 7  Deleted: 0  Skipped: 1  Warnings: 5")
    );
    let warnings: Vec<String> = query(&mut s, "SHOW WARNINGS").await.into_iter().map(|r| r[1].clone()).collect();
    assert_eq!(warnings, ["1366", "1261", "1262", "1062", "1366"]);
    assert_eq!(
        query(&mut s, "SELECT * FROM l ORDER BY id").await,
        rows(&[
            &["0", "bad", "1"],
            &["1", "a,b", "10"],
            &["2", "NULL", "20"],
            &["3", "x\"y", "0"],
            &["4", "short", "0"],
            &["5", "long", "50"]
        ])
    );
    exec(&mut s, "SET sql_mode = ''").await;
    let ok = exec(
        &mut s,
        &format!(
            "LOAD DATA INFILE '{f}' REPLACE INTO TABLE l FIELDS TERMINATED BY ',' ENCLOSED BY '\"' IGNORE 1 LINES \
             (id, @n, v) SET name = CONCAT(@n, '!')"
        ),
    )
    .await;
    assert_eq!(ok.info, "Records: 7  Deleted: 6  Skipped: 0  Warnings: 4");
    assert_eq!(query(&mut s, "SELECT name FROM l WHERE id = 1").await, rows(&[&["dup!"]]));
    // A round trip through INTO OUTFILE.
    let out = dir.path().join("out.txt");
    let o = out.to_str().unwrap();
    exec(&mut s, &format!("SELECT id, name, v FROM l ORDER BY id INTO OUTFILE '{o}'")).await;
    exec(&mut s, "CREATE TABLE copy LIKE l").await;
    let ok = exec(&mut s, &format!("LOAD DATA INFILE '{o}' INTO TABLE copy")).await;
    assert_eq!(ok.info, "Records: 6  Deleted: 0  Skipped: 0  Warnings: 0");
    assert_eq!(
        query(&mut s, "SELECT * FROM copy ORDER BY id").await,
        query(&mut s, "SELECT * FROM l ORDER BY id").await
    );
    let e = fail(&mut s, &format!("LOAD DATA INFILE '{f}' INTO TABLE l (id, nosuch)")).await;
    assert_eq!(e.code, 1054);
    let e = fail(&mut s, "LOAD DATA INFILE '/nonexistent/x' INTO TABLE l").await;
    assert_eq!(e.code, 13);
    // This session's client offers no CLIENT_LOCAL_FILES.
    let e = fail(&mut s, &format!("LOAD DATA LOCAL INFILE '{f}' INTO TABLE l")).await;
    assert_eq!(e.code, 4166);
}
