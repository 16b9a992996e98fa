//! What ORMs send on their first connection and insert, as MariaDB 10.11 answers it:
//! INSERT / REPLACE / DELETE ... RETURNING. Expected values were checked against MariaDB.

use crate::common;
use common::*;

#[tokio::test]
async fn insert_replace_delete_returning() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE r (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20) NOT NULL DEFAULT 'x', u INT UNIQUE, n DECIMAL(5,2))").await;
    let sql = "INSERT INTO r (name, u) VALUES ('a', 1), ('b', 2) RETURNING id, name, id*2, concat(name,'!') AS c, r.*";
    assert_eq!(column_names(&mut s, sql).await, ["id", "name", "id*2", "c", "id", "name", "u", "n"]);
    assert_eq!(query(&mut s, "SELECT ROW_COUNT(), LAST_INSERT_ID()").await, rows(&[&["-1", "1"]]));
    assert_eq!(query(&mut s, "SELECT id, name FROM r").await, rows(&[&["1", "a"], &["2", "b"]]));
    assert_eq!(query(&mut s, "INSERT INTO r SET n = 1.5 RETURNING *").await, rows(&[&["3", "x", "NULL", "1.50"]]));
    // The metadata is the SELECT's: table columns keep their origin, expressions are computed.
    let (cols, _) = result(&mut s, "INSERT INTO r (name) VALUES ('q') RETURNING id, id * 2 AS d, name").await;
    assert_eq!((cols[0].table.as_str(), cols[0].org_name.as_str()), ("r", "id"));
    assert_eq!((cols[1].name.as_str(), cols[1].table.as_str()), ("d", ""));
    // ON DUPLICATE KEY UPDATE returns the row as updated (or as left); IGNORE skips duplicates.
    assert_eq!(
        query(&mut s, "INSERT INTO r (name, u) VALUES ('c', 1) ON DUPLICATE KEY UPDATE name = 'cc' RETURNING id, name")
            .await,
        rows(&[&["1", "cc"]])
    );
    assert_eq!(
        query(&mut s, "INSERT INTO r (name, u) VALUES ('c', 1) ON DUPLICATE KEY UPDATE name = 'cc' RETURNING id, name")
            .await,
        rows(&[&["1", "cc"]])
    );
    assert_eq!(
        query(&mut s, "INSERT IGNORE INTO r (name, u) VALUES ('d', 2), ('e', 3) RETURNING name, u").await,
        rows(&[&["e", "3"]])
    );
    assert_eq!(query(&mut s, "SHOW WARNINGS").await, rows(&[&["Warning", "1062", "Duplicate entry '2' for key 'u'"]]));
    assert_eq!(
        query(&mut s, "REPLACE INTO r (id, name) VALUES (1, 'z') RETURNING id, name").await,
        rows(&[&["1", "z"]])
    );
    assert_eq!(
        query(&mut s, "INSERT INTO r (name, u) SELECT name, u + 10 FROM r WHERE u IS NOT NULL RETURNING u").await,
        rows(&[&["12"], &["13"]])
    );
    assert_eq!(
        query(&mut s, "DELETE FROM r WHERE u > 10 RETURNING *, 1+1")
            .await
            .iter()
            .map(|r| r[2].clone())
            .collect::<Vec<_>>(),
        ["12", "13"]
    );
    assert_eq!(query(&mut s, "DELETE FROM r WHERE id > 100 RETURNING id").await, Vec::<Vec<String>>::new());
    // MariaDB's order: ORDER BY and LIMIT come before RETURNING.
    assert_eq!(
        column_names(&mut s, "DELETE FROM r ORDER BY id DESC LIMIT 1 RETURNING id, concat(name, '?') AS q, 1 + 1")
            .await,
        ["id", "q", "1 + 1"]
    );
    assert_eq!(query(&mut s, "SELECT ROW_COUNT()").await, rows(&[&["-1"]]));
    let e = fail(&mut s, "INSERT INTO r (name) VALUES ('q') RETURNING nosuch").await;
    assert_eq!((e.code, e.message.as_str()), (1054, "Unknown column 'nosuch' in 'RETURNING'"));
    let e = fail(&mut s, "INSERT INTO r (name) VALUES ('q') RETURNING sum(id)").await;
    assert_eq!(e.code, 1111);
    let e = fail(&mut s, "UPDATE r SET name = 'x' RETURNING id").await;
    assert_eq!(e.code, 1064);
    assert!(e.message.ends_with("near 'RETURNING id' at line 1"), "{}", e.message);

    // Prepared: the result columns are known at PREPARE; values come from each execution.
    let info = s.prepare("INSERT INTO r (name, n) VALUES (?, ?) RETURNING id, name, n").unwrap();
    assert_eq!(info.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["id", "name", "n"]);
    let params = [selkie_sql::Value::Bytes(b"p".to_vec()), selkie_sql::Value::Int(2)];
    let got = prepared_rows(&mut s, info.statement_id, &params).await;
    assert_eq!(got[0][1..], ["p".to_string(), "2.00".to_string()]);
}

/// Named time zones, as a MariaDB whose mysql.time_zone* tables were loaded with
/// mariadb-tzinfo-to-sql from the same zoneinfo: NOW()/UTC_TIMESTAMP()/UNIX_TIMESTAMP()/
/// FROM_UNIXTIME() in the session zone, CONVERT_TZ with names and offsets, DST gap and overlap.
#[tokio::test]
async fn named_time_zones() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    // 2024-10-27 00:30:00 UTC: the first 02:30 of the night Paris leaves summer time.
    exec(&mut s, "SET timestamp = 1729989000").await;
    exec(&mut s, "SET time_zone = 'europe/paris'").await;
    assert_eq!(
        query(&mut s, "SELECT NOW(), UTC_TIMESTAMP(), UNIX_TIMESTAMP(), @@time_zone").await,
        // MariaDB shows a zone as spelled when the server first loaded it.
        rows(&[&["2024-10-27 02:30:00", "2024-10-27 00:30:00", "1729989000", "europe/paris"]])
    );
    assert_eq!(
        query(&mut s, "SELECT FROM_UNIXTIME(1711846800), UNIX_TIMESTAMP('2024-03-31 02:30:00'), UNIX_TIMESTAMP('2024-07-01 12:00:00')").await,
        rows(&[&["2024-03-31 03:00:00", "1711846800", "1719828000"]])
    );
    exec(&mut s, "SET time_zone = 'America/New_York'").await;
    assert_eq!(
        query(&mut s, "SELECT NOW(), CONVERT_TZ('2024-07-01 12:00:00', @@session.time_zone, '+00:00'), CONVERT_TZ('2024-07-01 12:00:00', 'America/New_York', 'Asia/Tokyo'), CONVERT_TZ('2024-01-01 12:00:00', 'UTC', 'UTC')").await,
        rows(&[&["2024-10-26 20:30:00", "2024-07-01 16:00:00", "2024-07-02 01:00:00", "2024-01-01 12:00:00"]])
    );
    assert_eq!(
        query(&mut s, "SELECT CONVERT_TZ('2024-01-01 12:00:00', 'Europe/Nowhere', 'UTC'), CONVERT_TZ('1960-06-01 12:00:00', 'UTC', 'Europe/Paris'), CONVERT_TZ('0000-00-00 00:00:00', 'UTC', 'Europe/Paris'), CONVERT_TZ('2024-02-30 00:00:00', 'UTC', 'Europe/Paris')").await,
        rows(&[&["NULL", "1960-06-01 12:00:00", "NULL", "NULL"]])
    );
    assert_eq!(
        query(&mut s, "SELECT CONVERT_TZ('2024-03-31 02:30:00', 'Europe/Paris', 'UTC'), CONVERT_TZ('2024-10-27 02:30:00', 'Europe/Paris', 'UTC'), CONVERT_TZ('2024-01-01 12:00:00.123456', 'UTC', 'Europe/Paris')").await,
        rows(&[&["2024-03-31 01:00:00", "2024-10-27 00:30:00", "2024-01-01 13:00:00.123456"]])
    );
    exec(&mut s, "SET time_zone = '+05:30'").await;
    assert_eq!(
        query(&mut s, "SELECT NOW(), UNIX_TIMESTAMP(), FROM_UNIXTIME(0)").await,
        rows(&[&["2024-10-27 06:00:00", "1729989000", "1970-01-01 05:30:00"]])
    );
    let e = fail(&mut s, "SET time_zone = 'Foo/Bar'").await;
    assert_eq!((e.code, e.message.as_str()), (1298, "Unknown or incorrect time zone: 'Foo/Bar'"));
    // TIMESTAMP's range is the instant's, read in the session's zone.
    exec(&mut s, "CREATE TABLE tsr (t TIMESTAMP NULL)").await;
    exec(&mut s, "SET time_zone = '+05:00'").await;
    assert_eq!(fail(&mut s, "INSERT INTO tsr VALUES ('1970-01-01 03:00:00')").await.code, 1292);
    exec(&mut s, "INSERT INTO tsr VALUES ('1970-01-01 06:00:00')").await;
    exec(&mut s, "SET time_zone = '-05:00'").await;
    assert_eq!(fail(&mut s, "INSERT INTO tsr VALUES ('2038-01-19 01:00:00')").await.code, 1292);
    exec(&mut s, "SET GLOBAL time_zone = 'Asia/Tokyo'").await;
    assert_eq!(query(&mut s, "SELECT @@global.time_zone").await, rows(&[&["Asia/Tokyo"]]));
    exec(&mut s, "SET GLOBAL time_zone = DEFAULT").await;
    assert_eq!(query(&mut s, "SELECT @@global.time_zone").await, rows(&[&["SYSTEM"]]));
}

/// TIMESTAMP columns hold the instant (UTC) and show it in the session's zone; DATETIME keeps
/// what was given. Index lookups convert the constant; UPDATE keeps untouched TIMESTAMPs.
/// Outcomes checked on MariaDB 10.11 (tests/corpus/types_timestamp_utc.sql).
#[tokio::test]
async fn timestamp_columns_are_instants() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "SET time_zone = '+00:00'").await;
    exec(&mut s, "CREATE TABLE tz (id INT PRIMARY KEY, ts TIMESTAMP NULL DEFAULT '2024-01-01 00:00:00', dt DATETIME, v INT, KEY k (ts))").await;
    exec(&mut s, "INSERT INTO tz VALUES (1, '2024-01-01 12:00:00', '2024-01-01 12:00:00', 0)").await;
    exec(&mut s, "SET time_zone = '+02:00'").await;
    assert_eq!(query(&mut s, "SELECT ts, dt FROM tz").await, rows(&[&["2024-01-01 14:00:00", "2024-01-01 12:00:00"]]));
    assert_eq!(
        query(&mut s, "SELECT id FROM tz FORCE INDEX (k) WHERE ts = '2024-01-01 14:00:00'").await,
        rows(&[&["1"]])
    );
    assert_eq!(query(&mut s, "SELECT id FROM tz WHERE ts = '2024-01-01 12:00:00'").await, rows(&[]));
    assert_eq!(query(&mut s, "SELECT UNIX_TIMESTAMP(ts) FROM tz").await, rows(&[&["1704110400"]]));
    let create = query(&mut s, "SHOW CREATE TABLE tz").await;
    assert!(create[0][1].contains("DEFAULT '2024-01-01 02:00:00'"), "{}", create[0][1]);
    exec(&mut s, "UPDATE tz SET v = 1").await;
    exec(&mut s, "INSERT INTO tz (id) VALUES (2)").await;
    exec(&mut s, "SET time_zone = '+00:00'").await;
    assert_eq!(
        query(&mut s, "SELECT id, ts FROM tz ORDER BY id").await,
        rows(&[&["1", "2024-01-01 12:00:00"], &["2", "2024-01-01 00:00:00"]])
    );
    // A wall-clock time in Berlin's spring gap: the gap's end with 1299, an error when strict.
    exec(&mut s, "SET time_zone = 'Europe/Berlin'").await;
    assert_eq!(fail(&mut s, "INSERT INTO tz (id, ts) VALUES (3, '2024-03-31 02:30:00')").await.code, 1292);
    exec(&mut s, "SET sql_mode = ''").await;
    let ok = exec(&mut s, "INSERT INTO tz (id, ts) VALUES (3, '2024-03-31 02:30:00')").await;
    assert_eq!(ok.warnings, 1);
    assert_eq!(
        query(&mut s, "SELECT ts, UNIX_TIMESTAMP(ts) FROM tz WHERE id = 3").await,
        rows(&[&["2024-03-31 03:00:00", "1711846800"]])
    );
}

/// CREATE OR REPLACE TABLE (plain, LIKE, ... SELECT) and its errors, as MariaDB 10.11.
#[tokio::test]
async fn create_or_replace_table() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE OR REPLACE TABLE c1 (a INT)").await;
    exec(&mut s, "INSERT INTO c1 VALUES (1)").await;
    exec(&mut s, "CREATE OR REPLACE TABLE c1 (b INT)").await;
    assert_eq!(column_names(&mut s, "SELECT * FROM c1").await, ["b"]);
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM c1").await, rows(&[&["0"]]));
    let ok = exec(&mut s, "CREATE OR REPLACE TABLE c1 AS SELECT 5 AS x").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (1, "Records: 1  Duplicates: 0  Warnings: 0"));
    assert_eq!(query(&mut s, "SELECT * FROM c1").await, rows(&[&["5"]]));
    exec(&mut s, "CREATE OR REPLACE TABLE c2 LIKE c1").await;
    assert_eq!(column_names(&mut s, "SELECT * FROM c2").await, ["x"]);
    let e = fail(&mut s, "CREATE OR REPLACE TABLE IF NOT EXISTS c1 (a INT)").await;
    assert_eq!((e.code, e.message.as_str()), (1221, "Incorrect usage of OR REPLACE and IF NOT EXISTS"));
    let e = fail(&mut s, "CREATE OR REPLACE TABLE c1 LIKE c1").await;
    assert_eq!((e.code, e.message.as_str()), (1066, "Not unique table/alias: 'c1'"));
    let e = fail(&mut s, "CREATE OR REPLACE TABLE c1 SELECT * FROM c1").await;
    assert_eq!(
        (e.code, e.message.as_str()),
        (1093, "Table 'c1' is specified twice, both as a target for 'CREATE' and as a separate source for data")
    );
    // MariaDB drops the old table before checking the new definition.
    assert_eq!(query(&mut s, "SELECT * FROM c1").await, rows(&[&["5"]]));
    let e = fail(&mut s, "CREATE OR REPLACE TABLE c1 (a INT, a INT)").await;
    assert_eq!(e.code, 1060);
    assert_eq!(fail(&mut s, "SELECT * FROM c1").await.code, 1146);
}

/// TRUNCATE [TABLE] t WAIT n / NOWAIT: a transaction that changed the table makes it fail
/// with 1205 once the wait is over, at once for NOWAIT.
#[tokio::test]
async fn truncate_wait_and_nowait() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let mut other = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE tw (a INT)").await;
    exec(&mut s, "INSERT INTO tw VALUES (1)").await;
    exec(&mut s, "TRUNCATE TABLE tw WAIT 1").await;
    exec(&mut s, "TRUNCATE tw NOWAIT").await;
    exec(&mut other, "BEGIN").await;
    exec(&mut other, "INSERT INTO tw VALUES (2)").await;
    let started = std::time::Instant::now();
    let e = fail(&mut s, "TRUNCATE tw NOWAIT").await;
    assert_eq!((e.code, e.message.as_str()), (1205, "Lock wait timeout exceeded; try restarting transaction"));
    assert!(started.elapsed() < std::time::Duration::from_millis(500));
    let started = std::time::Instant::now();
    assert_eq!(fail(&mut s, "TRUNCATE TABLE tw WAIT 0.3").await.code, 1205);
    assert!(started.elapsed() >= std::time::Duration::from_millis(300));
    exec(&mut other, "COMMIT").await;
    exec(&mut s, "TRUNCATE TABLE tw WAIT 1").await;
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM tw").await, rows(&[&["0"]]));
    assert_eq!(fail(&mut s, "TRUNCATE TABLE tw WAIT").await.code, 1064);
    let e = fail(&mut s, "TRUNCATE TABLE tw WAIT -1").await;
    assert!(e.message.contains("near '-1'"), "{}", e.message);
    // WAIT and NOWAIT may name a table.
    exec(&mut s, "CREATE TABLE nowait (a INT)").await;
    exec(&mut s, "TRUNCATE nowait").await;
    exec(&mut s, "TRUNCATE TABLE nowait NOWAIT").await;
}

/// CHECKSUM TABLE gives MariaDB's numbers for the same rows.
#[tokio::test]
async fn checksum_table_as_mariadb() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE k1 (a INT NOT NULL, b BIGINT)").await;
    exec(&mut s, "INSERT INTO k1 VALUES (1, 2), (3, NULL)").await;
    exec(&mut s, "CREATE TABLE k2 (a INT NOT NULL PRIMARY KEY, v VARCHAR(10), c CHAR(3), d DATE, dt DATETIME, dt3 DATETIME(3), n DECIMAL(7,2), f DOUBLE, ts TIMESTAMP NULL, t TEXT, ti TINYINT UNSIGNED)").await;
    exec(&mut s, "INSERT INTO k2 VALUES (1, 'abc', 'xy', '2024-01-02', '2024-01-02 03:04:05', '2024-01-02 03:04:05.678', 123.45, 1.5, NULL, 'hello', 200)").await;
    exec(&mut s, "INSERT INTO k2 (a) VALUES (2)").await;
    exec(&mut s, "CREATE TABLE k3 (a INT NOT NULL)").await;
    exec(&mut s, "CREATE TABLE k8 (c1 INT, c2 INT, c3 INT, c4 INT, c5 INT, c6 INT, c7 INT)").await;
    exec(&mut s, "INSERT INTO k8 (c1) VALUES (5)").await;
    exec(&mut s, "CREATE TABLE k9 (c1 INT, c2 INT, c3 INT, c4 INT, c5 INT, c6 INT, c7 INT, c8 INT, v VARCHAR(3))")
        .await;
    exec(&mut s, "INSERT INTO k9 (c1) VALUES (5)").await;
    let (cols, _) = result(&mut s, "CHECKSUM TABLE k1").await;
    assert_eq!(cols.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["Table", "Checksum"]);
    assert_eq!(
        query(&mut s, "CHECKSUM TABLE k1, k3, k8, k9, nosuch").await,
        rows(&[
            &["test.k1", "2855916540"],
            &["test.k3", "0"],
            &["test.k8", "1096324035"],
            &["test.k9", "1675685492"],
            &["test.nosuch", "NULL"]
        ])
    );
    assert_eq!(query(&mut s, "SHOW WARNINGS").await, rows(&[&["Error", "1146", "Table 'test.nosuch' doesn't exist"]]));
    assert_eq!(query(&mut s, "CHECKSUM TABLE k1 QUICK").await, rows(&[&["test.k1", "NULL"]]));
    assert_eq!(query(&mut s, "CHECKSUM TABLE k2 EXTENDED").await, rows(&[&["test.k2", "4215411558"]]));
    exec(&mut s, "INSERT INTO k3 VALUES (7)").await;
    assert_eq!(query(&mut s, "CHECKSUM TABLE k3").await, rows(&[&["test.k3", "2442201128"]]));
}
