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
        ("SELECT 1 /* c */ + 2", "1  + 2", "3"),
    ] {
        assert_eq!(column_names(&mut s, sql).await, [name], "{sql}");
        assert_eq!(query(&mut s, sql).await, rows(&[&[value]]), "{sql}");
    }
    assert_eq!(fail(&mut s, "SELECT 1 /*!9 + 1 */").await.code, 1064);
}
