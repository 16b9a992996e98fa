//! Session state that changes what statements mean, checked against MariaDB 10.11: sql_mode
//! flags the lexer and binder apply (NO_BACKSLASH_ESCAPES, ANSI_QUOTES, PIPES_AS_CONCAT),
//! executable comments, SET STATEMENT, SQL-level PREPARE/EXECUTE, sql_select_limit,
//! div_precision_increment, max_statement_time, user-level locks and SLEEP.

use crate::common;
use common::*;
use selkie_sql::Value;

#[tokio::test]
async fn no_backslash_escapes_reads_backslashes_as_characters() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    assert_eq!(query(&mut s, r"SELECT LENGTH('a\nb')").await, rows(&[&["3"]]));
    exec(&mut s, "SET sql_mode = 'NO_BACKSLASH_ESCAPES'").await;
    assert!(s.status().no_backslash_escapes);
    assert_eq!(
        query(&mut s, r"SELECT 'a\nb', LENGTH('a\nb'), 'it''s', LENGTH('\\'), LENGTH('\')").await,
        rows(&[&[r"a\nb", "4", "it's", "2", "1"]])
    );
    // A string ending in a backslash ends at the quote: the `;` after it ends the statement.
    let r = run(&mut s, r"SELECT 'a\'; SELECT 2").await.unwrap();
    assert_eq!(r.len(), 2);
    assert_eq!(query(&mut s, r#"SELECT "x\y""#).await, rows(&[&[r"x\y"]]));
    exec(&mut s, "CREATE TABLE nb (id INT PRIMARY KEY, v VARCHAR(10))").await;
    exec(&mut s, r"INSERT INTO nb VALUES (1, 'c:\dir')").await;
    assert_eq!(query(&mut s, r"SELECT v FROM nb WHERE v = 'c:\dir'").await, rows(&[&[r"c:\dir"]]));
    // Prepared statements read their text under the mode too.
    let p = s.prepare(r"SELECT 'a\n', ?").unwrap();
    assert_eq!(prepared_rows(&mut s, p.statement_id, &[Value::Int(1)]).await, rows(&[&[r"a\n", "1"]]));
    exec(&mut s, "SET sql_mode = DEFAULT").await;
    assert!(!s.status().no_backslash_escapes);
    assert_eq!(query(&mut s, r"SELECT LENGTH('a\nb')").await, rows(&[&["3"]]));
}

#[tokio::test]
async fn ansi_quotes_and_pipes_as_concat() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(10))").await;
    exec(&mut s, "INSERT INTO a VALUES (1, 'x'), (2, 'y')").await;
    assert_eq!(query(&mut s, r#"SELECT "id" FROM a ORDER BY id"#).await, rows(&[&["id"], &["id"]]));
    exec(&mut s, "SET sql_mode = 'ANSI_QUOTES'").await;
    assert_eq!(query(&mut s, r#"SELECT "id" FROM a ORDER BY "id""#).await, rows(&[&["1"], &["2"]]));
    let e = fail(&mut s, r#"SELECT "a""b" FROM a"#).await;
    assert_eq!((e.code, e.message.as_str()), (1054, r#"Unknown column 'a"b' in 'SELECT'"#));
    exec(&mut s, "SET sql_mode = 'PIPES_AS_CONCAT'").await;
    assert_eq!(query(&mut s, "SELECT 'a' || 'b', 1 || 2").await, rows(&[&["ab", "12"]]));
    exec(&mut s, "SET sql_mode = 'ANSI'").await;
    assert_eq!(
        query(&mut s, r#"SELECT 'a' || 'b', "v", @@sql_mode FROM a WHERE id = 1"#).await,
        rows(&[&["ab", "x", "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ANSI"]])
    );
}

#[tokio::test]
async fn executable_comments_follow_mariadbs_version_rule() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    for (sql, name, value) in [
        ("SELECT 1 /*!80001 + 1 */", "1", "1"),
        ("SELECT 1 /*!50700 + 1 */", "1", "1"),
        ("SELECT 1 /*!40101 + 1 */", "1  + 1", "2"),
        ("SELECT 1 /*!+ 1 */", "1 + 1", "2"),
        ("SELECT 1 /*M!50800 + 1 */", "1  + 1", "2"),
        ("SELECT 1 /*M!100100 + 1 */", "1  + 1", "2"),
        ("SELECT 1 /*M!110000 + 1 */", "1", "1"),
        ("SELECT 1 /*!101199 + 1 */", "1", "1"),
        ("SELECT 1 /*!40101 + 1 */ + 2", "1  + 1  + 2", "4"),
        ("SELECT 1 /* c */ + 2", "1 /* c */ + 2", "3"),
        ("SELECT 1 /*!80001 + 1 */ + 2", "1  + 2", "3"),
    ] {
        assert_eq!(column_names(&mut s, sql).await, [name], "{sql}");
        assert_eq!(query(&mut s, sql).await, rows(&[&[value]]), "{sql}");
    }
    assert_eq!(fail(&mut s, "SELECT 1 /*!9 + 1 */").await.code, 1064);
}

#[tokio::test]
async fn prepare_execute_using_expressions_and_execute_immediate() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "PREPARE p FROM 'SELECT ?, ?, ?'").await;
    exec(&mut s, "SET @v = 7").await;
    assert_eq!(query(&mut s, "EXECUTE p USING 5, 'x', @v").await, rows(&[&["5", "x", "7"]]));
    assert_eq!(query(&mut s, "EXECUTE p USING 1+1, CONCAT('a','b'), NULL").await, rows(&[&["2", "ab", "NULL"]]));
    assert_eq!(fail(&mut s, "EXECUTE p USING 1, 2").await.code, 1210);
    assert_eq!(fail(&mut s, "EXECUTE p").await.code, 1210);
    let e = fail(&mut s, "EXECUTE p USING (SELECT 1), 2, 3").await;
    assert_eq!((e.code, e.message.as_str()), (1970, "EXECUTE..USING does not support subqueries or stored functions"));
    assert_eq!(query(&mut s, "EXECUTE IMMEDIATE 'SELECT 2'").await, rows(&[&["2"]]));
    assert_eq!(query(&mut s, "EXECUTE IMMEDIATE 'SELECT ?+1' USING 41").await, rows(&[&["42"]]));
    exec(&mut s, "SET @q = 'SELECT 3'").await;
    assert_eq!(query(&mut s, "EXECUTE IMMEDIATE @q").await, rows(&[&["3"]]));
    exec(&mut s, "PREPARE p2 FROM CONCAT('SELECT ', 4)").await;
    assert_eq!(query(&mut s, "EXECUTE p2").await, rows(&[&["4"]]));
    assert_eq!(query(&mut s, "EXECUTE IMMEDIATE CONCAT('SELECT ', 5)").await, rows(&[&["5"]]));
    assert_eq!(fail(&mut s, "EXECUTE IMMEDIATE 'SELECT ?'").await.code, 1210);
    assert_eq!(fail(&mut s, "EXECUTE IMMEDIATE 'SELECT 1' USING 1").await.code, 1210);
    assert_eq!(fail(&mut s, "EXECUTE IMMEDIATE 'EXECUTE IMMEDIATE 1'").await.code, 1295);
}

#[tokio::test]
async fn set_statement_applies_to_one_statement() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(10))").await;
    exec(&mut s, "INSERT INTO a VALUES (1, 'x'), (2, 'y'), (3, 'z')").await;
    assert_eq!(
        query(&mut s, "SET STATEMENT sort_buffer_size = 100000 FOR SELECT @@sort_buffer_size").await,
        rows(&[&["100000"]])
    );
    assert_eq!(query(&mut s, "SELECT @@sort_buffer_size").await, rows(&[&["2097152"]]));
    // The statement's own SET of the variable is undone too.
    exec(&mut s, "SET STATEMENT sql_mode = '' FOR SET sql_mode = 'ANSI'").await;
    assert_eq!(
        query(&mut s, "SELECT @@sql_mode").await,
        rows(&[&["STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"]])
    );
    // The text is read under the session's sql_mode, as MariaDB parses it before the SET.
    assert_eq!(
        query(&mut s, r"SET STATEMENT sql_mode = 'NO_BACKSLASH_ESCAPES' FOR SELECT 'a\n'").await,
        rows(&[&["a\n"]])
    );
    let e = fail(&mut s, "SET STATEMENT autocommit = 0 FOR SELECT 1").await;
    assert_eq!((e.code, e.message.as_str()), (1971, "The system variable autocommit cannot be set in SET STATEMENT."));
    assert_eq!(fail(&mut s, "SET STATEMENT @a = 1 FOR SELECT 1").await.code, 1064);
    assert_eq!(fail(&mut s, "SET STATEMENT sql_mode = xyz FOR SELECT 1").await.code, 1231);
    assert_eq!(fail(&mut s, "SET STATEMENT nosuch = 1 FOR SELECT 1").await.code, 1193);
    assert_eq!(fail(&mut s, "SET STATEMENT version = '' FOR SELECT 1").await.code, 1238);
    assert_eq!(
        query(&mut s, "SET STATEMENT sql_mode = '' FOR SET STATEMENT sql_mode = '' FOR SELECT 1").await,
        rows(&[&["1"]])
    );
    assert_eq!(query(&mut s, "SET STATEMENT time_zone = '+01:00' FOR SELECT @@time_zone").await, rows(&[&["+01:00"]]));
    assert_eq!(query(&mut s, "SELECT @@time_zone").await, rows(&[&["SYSTEM"]]));
}

#[tokio::test]
async fn sql_select_limit_bounds_top_level_selects() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(10))").await;
    exec(&mut s, "INSERT INTO a VALUES (1, 'x'), (2, 'y'), (3, 'z')").await;
    exec(&mut s, "SET sql_select_limit = 1").await;
    assert_eq!(query(&mut s, "SELECT * FROM a ORDER BY id").await, rows(&[&["1", "x"]]));
    assert_eq!(query(&mut s, "SELECT * FROM a ORDER BY id LIMIT 2").await.len(), 2);
    assert_eq!(query(&mut s, "SELECT * FROM a UNION ALL SELECT * FROM a").await.len(), 1);
    assert_eq!(query(&mut s, "SELECT (SELECT COUNT(*) FROM a)").await, rows(&[&["3"]]));
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM (SELECT * FROM a) d").await, rows(&[&["3"]]));
    assert_eq!(query(&mut s, "SELECT id FROM a WHERE id IN (SELECT id FROM a) ORDER BY id").await, rows(&[&["1"]]));
    exec(&mut s, "PREPARE p FROM 'SELECT * FROM a ORDER BY id'").await;
    assert_eq!(query(&mut s, "EXECUTE p").await.len(), 1);
    assert_eq!(query(&mut s, "SET STATEMENT sql_select_limit = 2 FOR SELECT * FROM a").await.len(), 2);
    exec(&mut s, "SET sql_select_limit = 0").await;
    assert_eq!(query(&mut s, "SELECT 1").await.len(), 0);
    exec(&mut s, "SET sql_select_limit = DEFAULT").await;
    assert_eq!(query(&mut s, "SELECT * FROM a").await.len(), 3);
}

#[tokio::test]
async fn max_statement_time_interrupts_with_1969() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "SET max_statement_time = 0.2").await;
    let started = std::time::Instant::now();
    let e = fail(&mut s, "SELECT SLEEP(5)").await;
    assert_eq!((e.code, e.message.as_str()), (1969, "Query execution was interrupted (max_statement_time exceeded)"));
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
    // The next statement has its own time.
    assert_eq!(query(&mut s, "SELECT SLEEP(0.05), 1").await, rows(&[&["0", "1"]]));
    exec(&mut s, "SET max_statement_time = 0").await;
    assert_eq!(query(&mut s, "SELECT SLEEP(NULL), SLEEP(-1), SLEEP(0.01)").await, rows(&[&["0", "0", "0"]]));
    let e = fail(&mut s, "SET STATEMENT max_statement_time = 0.1 FOR SELECT SLEEP(2)").await;
    assert_eq!(e.code, 1969);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_query_interrupts_sleep_and_lock_waits() {
    let _exclusive = crate::exclusive();
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let flag = s.interrupt_flag();
    let sleeper = tokio::spawn(async move {
        let started = std::time::Instant::now();
        let e = fail(&mut s, "SELECT SLEEP(10)").await;
        (e.code, started.elapsed())
    });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    flag.raise();
    let (code, took) = sleeper.await.unwrap();
    assert_eq!(code, 1317);
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_lock_waits_and_deadlocks_between_sessions() {
    let _exclusive = crate::exclusive();
    let db = TestDb::new();
    let mut a = db.session_in_test_db().await;
    let mut b = db.session_in_test_db().await;
    assert_eq!(query(&mut a, "SELECT GET_LOCK('x', 0)").await, rows(&[&["1"]]));
    assert_eq!(query(&mut b, "SELECT GET_LOCK('y', 0)").await, rows(&[&["1"]]));
    let waiter = tokio::spawn(async move {
        let r = query(&mut a, "SELECT GET_LOCK('y', 10)").await;
        (a, r)
    });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    // b waiting for x (held by a, which waits for b's y) closes a cycle: b is refused.
    let e = fail(&mut b, "SELECT GET_LOCK('x', 10)").await;
    assert_eq!(
        (e.code, e.message.as_str()),
        (1213, "Deadlock found when trying to get lock; try restarting transaction")
    );
    assert_eq!(query(&mut b, "SELECT RELEASE_LOCK('y')").await, rows(&[&["1"]]));
    let (mut a, r) = waiter.await.unwrap();
    assert_eq!(r, rows(&[&["1"]]));
    assert_eq!(query(&mut a, "SELECT RELEASE_ALL_LOCKS()").await, rows(&[&["2"]]));
}

#[tokio::test]
async fn user_level_locks_in_one_session() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    assert_eq!(
        query(&mut s, "SELECT GET_LOCK('a', 0), GET_LOCK('a', 0), IS_USED_LOCK('a') = CONNECTION_ID(), IS_FREE_LOCK('a'), IS_FREE_LOCK('b'), IS_USED_LOCK('b')").await,
        rows(&[&["1", "1", "1", "0", "1", "NULL"]])
    );
    assert_eq!(
        query(&mut s, "SELECT RELEASE_LOCK('a'), RELEASE_LOCK('a'), RELEASE_LOCK('a'), RELEASE_LOCK('b')").await,
        rows(&[&["1", "1", "NULL", "NULL"]])
    );
    assert_eq!(
        query(
            &mut s,
            "SELECT GET_LOCK('a', 0), GET_LOCK('a', 0), GET_LOCK('c', 0), RELEASE_ALL_LOCKS(), RELEASE_ALL_LOCKS()"
        )
        .await,
        rows(&[&["1", "1", "1", "3", "0"]])
    );
    assert_eq!(
        query(&mut s, "SELECT GET_LOCK(NULL, 0), GET_LOCK('', 0), RELEASE_LOCK(NULL), IS_FREE_LOCK(NULL), GET_LOCK('A', 0), IS_FREE_LOCK('a')").await,
        rows(&[&["NULL", "NULL", "NULL", "NULL", "1", "1"]])
    );
    assert_eq!(query(&mut s, "SELECT GET_LOCK('x', NULL)").await, rows(&[&["NULL"]]));
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[&["Warning", "1411", "Incorrect timeout value: 'NULL' for function get_lock"]])
    );
    assert_eq!(query(&mut s, "SELECT GET_LOCK('y', -1)").await, rows(&[&["NULL"]]));
    // Another session: held locks are not free, GET_LOCK times out, disconnect releases.
    let mut t = db.session_in_test_db().await;
    assert_eq!(
        query(&mut t, "SELECT IS_FREE_LOCK('A'), GET_LOCK('A', 0.05), RELEASE_LOCK('A')").await,
        rows(&[&["0", "0", "0"]])
    );
    s.close();
    assert_eq!(
        query(&mut t, "SELECT IS_FREE_LOCK('A'), GET_LOCK('A', 0), RELEASE_ALL_LOCKS()").await,
        rows(&[&["1", "1", "1"]])
    );
}

#[tokio::test]
async fn div_precision_increment_sets_the_scale_of_division() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    assert_eq!(query(&mut s, "SELECT 1/3").await, rows(&[&["0.3333"]]));
    exec(&mut s, "SET div_precision_increment = 2").await;
    assert_eq!(query(&mut s, "SELECT 1/3, 10/4, 1.5/3").await, rows(&[&["0.33", "2.50", "0.500"]]));
    let (cols, _) = result(&mut s, "SELECT 1/3").await;
    assert_eq!(cols[0].decimals, 2);
    exec(&mut s, "SET div_precision_increment = 0").await;
    assert_eq!(query(&mut s, "SELECT 1/3, 2/3, 7/2").await, rows(&[&["0", "0", "3"]]));
    exec(&mut s, "SET div_precision_increment = 10").await;
    assert_eq!(query(&mut s, "SELECT 1/3").await, rows(&[&["0.3333333333"]]));
    assert_eq!(query(&mut s, "SET STATEMENT div_precision_increment = 1 FOR SELECT 1/3").await, rows(&[&["0.3"]]));
}

#[tokio::test]
async fn set_names_with_other_assignments() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    // Rails' connection setup.
    exec(&mut s, "SET NAMES utf8mb4, @@SESSION.sql_mode = CONCAT(CONCAT(@@sql_mode, ',STRICT_ALL_TABLES'), ',NO_AUTO_VALUE_ON_ZERO'), @@SESSION.sql_auto_is_null = 0, @@SESSION.wait_timeout = 2147483").await;
    assert_eq!(
        query(&mut s, "SELECT @@sql_mode, @@character_set_client, @@wait_timeout").await,
        rows(&[&["NO_AUTO_VALUE_ON_ZERO,STRICT_TRANS_TABLES,STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION", "utf8mb4", "2147483"]])
    );
    exec(&mut s, "SET NAMES utf8mb4 COLLATE utf8mb4_bin, @x = 1").await;
    assert_eq!(query(&mut s, "SELECT @@collation_connection, @x").await, rows(&[&["utf8mb4_bin", "1"]]));
    assert_eq!(fail(&mut s, "SET NAMES utf8mb4, nosuch = 1").await.code, 1193);
}

#[tokio::test]
async fn no_zero_date_and_no_zero_in_date_refuse_zero_dates() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE dz (id INT PRIMARY KEY, d DATE, dt DATETIME)").await;
    exec(&mut s, "SET sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE'").await;
    let e = fail(&mut s, "INSERT INTO dz VALUES (1, '0000-00-00', NULL)").await;
    assert_eq!(
        (e.code, e.message.as_str()),
        (1292, "Incorrect date value: '0000-00-00' for column `test`.`dz`.`d` at row 1")
    );
    let e = fail(&mut s, "INSERT INTO dz VALUES (2, '2020-00-10', NULL)").await;
    assert_eq!(
        (e.code, e.message.as_str()),
        (1292, "Incorrect date value: '2020-00-10' for column `test`.`dz`.`d` at row 1")
    );
    exec(&mut s, "SET sql_mode = 'NO_ZERO_DATE,NO_ZERO_IN_DATE'").await;
    let ok = exec(&mut s, "INSERT INTO dz VALUES (3, '0000-00-00', '2020-01-00')").await;
    assert_eq!(ok.warnings, 2);
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[
            &["Warning", "1264", "Out of range value for column 'd' at row 1"],
            &["Warning", "1265", "Data truncated for column 'dt' at row 1"]
        ])
    );
    exec(&mut s, "SET sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_DATE'").await;
    exec(&mut s, "INSERT INTO dz VALUES (4, '2020-00-10', NULL)").await;
    assert_eq!(
        query(&mut s, "SELECT * FROM dz ORDER BY id").await,
        rows(&[&["3", "0000-00-00", "0000-00-00 00:00:00"], &["4", "2020-00-10", "NULL"]])
    );
    assert_eq!(fail(&mut s, "UPDATE dz SET d = '0000-00-00' WHERE id = 4").await.code, 1292);
}
