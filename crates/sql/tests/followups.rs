//! Behaviour that crosses the session, executor and variables: cooperative scheduling of long
//! statements, KILL QUERY during a row-lock wait, SHOW parsing ahead of sqlparser,
//! single-statement mode, parameter-typed result columns, session-only variables, NOW() under
//! SET timestamp / time_zone, SET insert_id, SET ... = DEFAULT, strictness, store messages,
//! GROUP_CONCAT's limit,
//! prefix indexes, constant-typed functions, interval units, and the consistent snapshot.
//! Expected values are MariaDB 10.11's.

mod common;
use common::*;
use selkie_sql::{FieldType, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Rows of `sql` with the metadata of the result.
async fn result(s: &mut selkie_sql::Session, sql: &str) -> (Vec<selkie_sql::ColumnMeta>, Vec<Vec<Value>>) {
    match run(s, sql).await {
        Ok(mut r) => match r.pop() {
            Some(Res::Rows { columns, rows, .. }) => (columns, rows),
            other => panic!("{sql}: expected rows, got {other:?}"),
        },
        Err(e) => panic!("{sql}: {e}"),
    }
}

/// A long statement yields its thread: on a single-threaded runtime another task keeps
/// running while a huge join executes (without yields it would not run until the join ends).
#[test]
fn long_statements_yield_to_other_tasks() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let db = TestDb::new();
        let mut s = db.session_in_test_db().await;
        exec(&mut s, "CREATE TABLE big (id INT PRIMARY KEY)").await;
        let values: Vec<String> = (1..=1000).map(|i| format!("({i})")).collect();
        exec(&mut s, &format!("INSERT INTO big VALUES {}", values.join(","))).await;

        // A ticker on the same thread counts its wake-ups and records the longest gap.
        let stop = Arc::new(AtomicBool::new(false));
        let ticks = Arc::new(AtomicU64::new(0));
        let max_gap_us = Arc::new(AtomicU64::new(0));
        let ticker = tokio::spawn({
            let (stop, ticks, max_gap_us) = (stop.clone(), ticks.clone(), max_gap_us.clone());
            async move {
                let mut last = Instant::now();
                while !stop.load(Ordering::Relaxed) {
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    let now = Instant::now();
                    ticks.fetch_add(1, Ordering::Relaxed);
                    max_gap_us.fetch_max(now.duration_since(last).as_micros() as u64, Ordering::Relaxed);
                    last = now;
                }
            }
        });
        tokio::task::yield_now().await;
        // The join (10^9 rows; the predicate can use no index, so no plan makes it short) would
        // run for minutes: a KILL QUERY from another thread ends it after a while, whether or not
        // the runtime thread ever yields.
        let flag = s.interrupt_flag();
        let killer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(800));
            flag.raise();
        });
        let ticks_before = ticks.load(Ordering::Relaxed);
        max_gap_us.store(0, Ordering::Relaxed);
        let e = fail(&mut s, "SELECT COUNT(*) FROM big a, big b, big c WHERE a.id + b.id + c.id < 0").await;
        let ticks_during = ticks.load(Ordering::Relaxed) - ticks_before;
        let gap = Duration::from_micros(max_gap_us.load(Ordering::Relaxed));
        killer.join().unwrap();
        assert_eq!(e.code, 1317);
        stop.store(true, Ordering::Relaxed);
        ticker.await.unwrap();
        // Without yields the ticker cannot run at all until the statement ends (0 ticks); with
        // them it wakes about every 2 ms, give or take the machine's load.
        assert!(ticks_during >= 20, "the ticker ran {ticks_during} times during 800 ms of join");
        assert!(gap < Duration::from_millis(500), "another task waited {gap:?} while the join ran");
    });
}

/// KILL QUERY ends a statement that is waiting for a row lock at once (1317), well before the
/// lock wait timeout (2 s in the test engine), and the session stays usable.
#[tokio::test]
async fn kill_query_interrupts_a_row_lock_wait() {
    let db = TestDb::new();
    let mut a = db.session_in_test_db().await;
    exec(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)").await;
    exec(&mut a, "INSERT INTO t VALUES (1, 0)").await;
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "UPDATE t SET v = 1 WHERE id = 1").await;
    let mut b = db.session_in_test_db().await;
    let flag = b.interrupt_flag();
    for sql in
        ["UPDATE t SET v = 2 WHERE id = 1", "SELECT v FROM t WHERE id = 1 FOR UPDATE", "DELETE FROM t WHERE id = 1"]
    {
        let started = Instant::now();
        let (e, ()) = tokio::join!(fail(&mut b, sql), async {
            tokio::time::sleep(Duration::from_millis(150)).await;
            flag.raise();
        });
        assert_eq!((e.code, e.message.as_str()), (1317, "Query execution was interrupted"), "{sql}");
        assert!(started.elapsed() < Duration::from_millis(1500), "{sql}: KILL QUERY took {:?}", started.elapsed());
    }
    exec(&mut a, "COMMIT").await;
    assert_eq!(query(&mut b, "SELECT v FROM t WHERE id = 1").await, rows(&[&["1"]]));
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

/// GROUP_CONCAT is cut at @@group_concat_max_len (default 1 MiB), with MariaDB's warning.
#[tokio::test]
async fn group_concat_follows_its_variable() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE g (id INT PRIMARY KEY, a VARCHAR(2000))").await;
    exec(&mut s, "INSERT INTO g VALUES (1, 'ab'), (2, 'cd'), (3, 'ef')").await;
    // 2000 bytes: over the old fixed 1024 limit, far under the default.
    exec(&mut s, &format!("INSERT INTO g VALUES (4, '{}')", "x".repeat(1990))).await;
    let (_, r) = result(&mut s, "SELECT GROUP_CONCAT(a ORDER BY id) FROM g").await;
    assert_eq!(r[0][0], Value::Bytes(format!("ab,cd,ef,{}", "x".repeat(1990)).into_bytes()));
    assert_eq!(s.warning_count(), 0);
    exec(&mut s, "SET SESSION group_concat_max_len = 6").await;
    assert_eq!(query(&mut s, "SELECT GROUP_CONCAT(a ORDER BY id) FROM g WHERE id < 4").await, rows(&[&["ab,cd,"]]));
    assert_eq!(query(&mut s, "SHOW WARNINGS").await, rows(&[&["Warning", "1260", "Row 3 was cut by GROUP_CONCAT()"]]));
}

/// Index prefixes are declared and shown in characters; the engine stores bytes.
#[tokio::test]
async fn prefix_indexes_count_characters() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE p (id INT PRIMARY KEY, c VARCHAR(100), b VARBINARY(100), KEY k (c(10)), KEY kb (b(7)))")
        .await;
    let cat = db.engine.catalog();
    let t = cat.table("test", "p").unwrap();
    assert_eq!(t.secondary[0].columns[0].prefix_len, Some(40), "10 utf8mb4 characters");
    assert_eq!(t.secondary[1].columns[0].prefix_len, Some(7), "binary prefixes count bytes");
    let create = query(&mut s, "SHOW CREATE TABLE p").await;
    assert!(
        create[0][1].contains("KEY `k` (`c`(10))") && create[0][1].contains("KEY `kb` (`b`(7))"),
        "{}",
        create[0][1]
    );
    let idx = query(&mut s, "SHOW INDEX FROM p").await;
    let sub: Vec<(&str, &str)> = idx.iter().map(|r| (r[2].as_str(), r[7].as_str())).collect();
    assert_eq!(sub, [("PRIMARY", "NULL"), ("k", "10"), ("kb", "7")]);
    exec(&mut s, "CREATE INDEX k2 ON p (`c`(5))").await;
    assert!(query(&mut s, "SHOW CREATE TABLE p").await[0][1].contains("KEY `k2` (`c`(5))"));
    exec(&mut s, "INSERT INTO p VALUES (1, 'abcdefghijklmnop', 'x')").await;
    assert_eq!(query(&mut s, "SELECT id FROM p WHERE c = 'abcdefghijklmnop'").await, rows(&[&["1"]]));
}

/// Result types fixed by constant arguments, display widths, and interval units written as
/// keywords.
#[tokio::test]
async fn constant_typed_functions_and_units() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let (cols, r) = result(&mut s, "SELECT ROUND(1.2345, 2), NOW(3)").await;
    assert_eq!((cols[0].field_type, cols[0].decimals, cols[1].decimals), (FieldType::NewDecimal, 2, 3));
    assert_eq!(text(&r[0][0], None), "1.23");
    assert_eq!(
        query(
            &mut s,
            "SELECT TIMESTAMPDIFF(SECOND, '2024-01-01', '2024-01-02 00:00:10'), TIMESTAMPADD(MINUTE, 5, '2024-01-01 00:00:00'), \
             EXTRACT(DAY_HOUR FROM '2024-03-05 07:08:09'), EXTRACT(YEAR_MONTH FROM '2024-03-05'), EXTRACT(DAY FROM '2024-03-05')"
        )
        .await,
        rows(&[&["86410", "2024-01-01 00:05:00", "507", "202403", "5"]])
    );
    assert_eq!(fail(&mut s, "SELECT TIMESTAMPDIFF(FORTNIGHT, '2024-01-01', '2024-01-02')").await.code, 1064);
    exec(&mut s, "CREATE TABLE w (id INT PRIMARY KEY, w INT(5), c CHAR(3))").await;
    exec(&mut s, "INSERT INTO w VALUES (1, 1, 'a')").await;
    let (cols, _) = result(&mut s, "SELECT w, c FROM w").await;
    assert_eq!((cols[0].length, cols[1].field_type), (5, FieldType::String));
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
