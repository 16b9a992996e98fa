//! Character sets and collations of expressions: introducers, COLLATE, CHARSET(),
//! COLLATION(), COERCIBILITY(), checked against MariaDB 10.11's answers.

use crate::common;
use common::*;

#[tokio::test]
async fn introducers_give_literals_their_character_set() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "SET NAMES utf8mb4 COLLATE utf8mb4_general_ci").await;
    let rows = query(
        &mut s,
        "SELECT CHARSET(_binary'ab'), COLLATION(_latin1'x'), COERCIBILITY('x'), _utf8mb4 X'C3A9', _latin1'é', \
         COLLATION('a'), COERCIBILITY(X'41'), COERCIBILITY(1), COERCIBILITY(NULL), COERCIBILITY(USER()), \
         CHARSET(1), _binary'ab', HEX(_binary X'80FF'), COLLATION(_utf8'a'), _latin1 X'E9'",
    )
    .await;
    assert_eq!(
        rows[0],
        [
            "binary",
            "latin1_swedish_ci",
            "4",
            "é",
            "Ã©",
            "utf8mb4_general_ci",
            "4",
            "5",
            "6",
            "3",
            "binary",
            "ab",
            "80FF",
            "utf8mb3_general_ci",
            "é"
        ]
    );
    assert_eq!(fail(&mut s, "SELECT _utf8mb4 X'FF'").await.code, 1300);
    assert_eq!(fail(&mut s, "SELECT _foo'a'").await.code, 1054);
}

#[tokio::test]
async fn coercibility_follows_mariadb() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE c (a VARCHAR(10), b VARBINARY(10), n INT)").await;
    exec(&mut s, "INSERT INTO c VALUES ('x', 'y', 1)").await;
    exec(&mut s, "SET @u = 's'").await;
    let rows = query(
        &mut s,
        "SELECT COERCIBILITY(CONCAT(1)), COERCIBILITY(CONCAT('a', a)), COERCIBILITY(CAST(1 AS CHAR)), \
         COERCIBILITY(@u), COERCIBILITY(@@version), COERCIBILITY(a), COERCIBILITY(b), COERCIBILITY(UPPER('a')), \
         COERCIBILITY(DATABASE()), COERCIBILITY(CONCAT(a, 'x' COLLATE utf8mb4_bin)), COERCIBILITY(n), \
         COERCIBILITY(NOW()), COERCIBILITY(CONCAT(n, 'a')), COERCIBILITY(CONCAT(NULL)), COLLATION('a' COLLATE utf8mb4_bin) \
         FROM c",
    )
    .await;
    assert_eq!(rows[0], ["4", "2", "2", "2", "3", "2", "2", "4", "3", "0", "5", "5", "4", "6", "utf8mb4_bin"]);
    let e = fail(&mut s, "SELECT 'a' COLLATE latin1_bin").await;
    assert_eq!((e.code, e.message.as_str()), (1253, "COLLATION 'latin1_bin' is not valid for CHARACTER SET 'utf8mb4'"));
    assert_eq!(fail(&mut s, "SELECT 'a' COLLATE foo").await.code, 1273);
}

#[tokio::test]
async fn comparisons_grouping_and_order_follow_the_collation() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "SET NAMES utf8mb4").await;
    exec(&mut s, "CREATE TABLE w (id INT PRIMARY KEY, s VARCHAR(20) COLLATE utf8mb4_bin)").await;
    exec(
        &mut s,
        "INSERT INTO w VALUES (1,'a'),(2,'A'),(3,'b'),(4,'ß'),(5,'s'),(6,'é'),(7,'E'),(8,'e '),(9,'Z'),(10,'ss')",
    )
    .await;
    let rows = query(
        &mut s,
        "SELECT 'a' = 'A', 'a' = 'a ', 'ß' = 's', 'é' = 'e', 'a' < 'B', 'a' COLLATE utf8mb4_bin = 'A', \
         'a' IN ('A', 'x'), 'b' BETWEEN 'A' AND 'C', NULLIF('a', 'A'), CASE 'a' WHEN 'A' THEN 'yes' ELSE 'no' END",
    )
    .await;
    assert_eq!(rows[0], ["1", "1", "1", "1", "1", "0", "1", "1", "NULL", "yes"]);
    let rows = query(
        &mut s,
        "SELECT 'Straße' LIKE 'STRASE', 'abc' LIKE 'A_C', 'a' LIKE 'A' COLLATE utf8mb4_bin, 'a ' LIKE 'a'",
    )
    .await;
    assert_eq!(rows[0], ["1", "1", "0", "0"]);
    let ids = |rows: Vec<Vec<String>>| rows.into_iter().map(|r| r.join(",")).collect::<Vec<_>>().join(" ");
    assert_eq!(
        ids(query(&mut s, "SELECT id FROM w WHERE s COLLATE utf8mb4_general_ci = 'e' ORDER BY id").await),
        "6 7 8"
    );
    assert_eq!(ids(query(&mut s, "SELECT id FROM w WHERE s = 'A' ORDER BY id").await), "2");
    // A parameter compared with a _ci column compares in its collation.
    assert_eq!(
        ids(query(&mut s, "SELECT id FROM w WHERE s COLLATE utf8mb4_general_ci = 'A' AND id < 5 ORDER BY id").await),
        "1 2"
    );
    assert_eq!(
        ids(query(&mut s, "SELECT GROUP_CONCAT(id ORDER BY id) FROM w GROUP BY s COLLATE utf8mb4_general_ci").await),
        "1,2 3 6,7,8 4,5 10 9"
    );
    assert_eq!(
        ids(query(&mut s, "SELECT s FROM w ORDER BY s COLLATE utf8mb4_general_ci, id").await),
        "a A b é E e  ß s ss Z"
    );
    assert_eq!(ids(query(&mut s, "SELECT COUNT(*) FROM w WHERE s COLLATE utf8mb4_general_ci LIKE 'S%'").await), "3");
    assert_eq!(
        ids(query(
            &mut s,
            "SELECT MIN(s COLLATE utf8mb4_general_ci), MAX(s COLLATE utf8mb4_general_ci), MIN(s), MAX(s) FROM w"
        )
        .await),
        "a,Z,A,é"
    );
    assert_eq!(
        ids(query(&mut s, "SELECT COUNT(*) FROM (SELECT DISTINCT s COLLATE utf8mb4_general_ci FROM w) d").await),
        "6"
    );
    let e = fail(&mut s, "SELECT 'a' COLLATE utf8mb4_bin = 'A' COLLATE utf8mb4_general_ci").await;
    assert_eq!(
        (e.code, e.message.as_str()),
        (1267, "Illegal mix of collations (utf8mb4_bin,EXPLICIT) and (utf8mb4_general_ci,EXPLICIT) for operation '='")
    );
    let e = fail(&mut s, "SELECT s FROM w WHERE s = _latin1'a' COLLATE latin1_bin").await;
    assert_eq!(
        (e.code, e.message.as_str()),
        (1267, "Illegal mix of collations (utf8mb4_bin,IMPLICIT) and (latin1_bin,EXPLICIT) for operation '='")
    );
}

#[tokio::test]
async fn columns_declare_their_collation() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(
        &mut s,
        "CREATE TABLE k (id INT PRIMARY KEY, a VARCHAR(5) COLLATE utf8mb4_general_ci, b VARCHAR(5) CHARACTER SET latin1, \
         c VARCHAR(5) COLLATE utf8mb4_bin, n INT)",
    )
    .await;
    exec(&mut s, "INSERT INTO k VALUES (1, 'a', 'x', 'c', 1), (2, 'A', 'X', 'C', 2), (3, 'b', 'é', 'c ', 3)").await;
    let rows = query(&mut s, "SHOW CREATE TABLE k").await;
    assert!(
        rows[0][1].contains(
            "`a` varchar(5) DEFAULT NULL,\n  `b` varchar(5) CHARACTER SET latin1 COLLATE latin1_swedish_ci DEFAULT NULL,\n  \
             `c` varchar(5) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL,"
        ),
        "{}",
        rows[0][1]
    );
    let rows = query(
        &mut s,
        "SELECT COLUMN_NAME, CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLUMNS \
         WHERE TABLE_NAME = 'k' AND DATA_TYPE = 'varchar' ORDER BY ORDINAL_POSITION",
    )
    .await;
    assert_eq!(
        rows,
        [["a", "utf8mb4", "utf8mb4_general_ci"], ["b", "latin1", "latin1_swedish_ci"], ["c", "utf8mb4", "utf8mb4_bin"]]
    );
    let ids = |rows: Vec<Vec<String>>| rows.into_iter().map(|r| r.join(",")).collect::<Vec<_>>().join(" ");
    assert_eq!(ids(query(&mut s, "SELECT id FROM k WHERE a = 'A' ORDER BY id").await), "1 2");
    assert_eq!(ids(query(&mut s, "SELECT id FROM k WHERE b = 'E' ORDER BY id").await), "3");
    assert_eq!(
        ids(query(&mut s, "SELECT COLLATION(a), COLLATION(b), COERCIBILITY(a) FROM k WHERE id = 1").await),
        "utf8mb4_general_ci,latin1_swedish_ci,2"
    );
    assert_eq!(ids(query(&mut s, "SELECT COUNT(DISTINCT a), COUNT(*) FROM (SELECT DISTINCT a FROM k) d").await), "2,2");
    assert_eq!(ids(query(&mut s, "SELECT id FROM k WHERE a IN (SELECT 'A') ORDER BY id").await), "1 2");
    assert_eq!(ids(query(&mut s, "SELECT id FROM k WHERE c IN (SELECT a FROM k) ORDER BY id").await), "");
    assert_eq!(ids(query(&mut s, "SELECT id FROM k WHERE 'B' IN (SELECT a FROM k) ORDER BY id").await), "1 2 3");
    let e = fail(&mut s, "CREATE TABLE k2 (a VARCHAR(3) CHARACTER SET latin1 COLLATE utf8mb4_bin)").await;
    assert_eq!((e.code, e.message.as_str()), (1253, "COLLATION 'utf8mb4_bin' is not valid for CHARACTER SET 'latin1'"));
    assert_eq!(fail(&mut s, "CREATE TABLE k2 (a VARCHAR(3) COLLATE nope)").await.code, 1273);
    assert_eq!(fail(&mut s, "CREATE TABLE k2 (a VARCHAR(3) CHARACTER SET nope)").await.code, 1115);
    // utf8mb4 holds latin1 and a _bin collation wins over its set's others; two _ci do not mix.
    query(&mut s, "SELECT * FROM k WHERE a = b OR a = c").await;
    exec(&mut s, "CREATE TABLE k3 (a VARCHAR(5) COLLATE utf8mb4_general_ci, d TEXT COLLATE utf8mb4_unicode_ci)").await;
    let e = fail(&mut s, "SELECT * FROM k3 WHERE a = d").await;
    assert_eq!(
        (e.code, e.message.as_str()),
        (1267, "Illegal mix of collations (utf8mb4_general_ci,IMPLICIT) and (utf8mb4_unicode_ci,IMPLICIT) for operation '='")
    );
}

#[tokio::test]
async fn a_latin1_column_holds_only_latin1() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(
        &mut s,
        "CREATE TABLE l (id INT PRIMARY KEY, b VARCHAR(5) CHARACTER SET latin1, c VARCHAR(9) CHARACTER SET ascii)",
    )
    .await;
    exec(&mut s, "SET sql_mode = 'STRICT_TRANS_TABLES'").await;
    let e = fail(&mut s, "INSERT INTO l VALUES (1, 'aĀb€é', 'x')").await;
    assert_eq!(
        (e.code, e.message.as_str()),
        (1366, "Incorrect string value: '\\xC4\\x80b\\xE2\\x82\\xAC...' for column `test`.`l`.`b` at row 1")
    );
    exec(&mut s, "SET sql_mode = ''").await;
    exec(&mut s, "INSERT INTO l VALUES (2, 'aĀb€', 'é😀x')").await;
    let w = query(&mut s, "SHOW WARNINGS").await;
    assert_eq!(w[0][1], "1366");
    assert_eq!(query(&mut s, "SELECT b, c FROM l WHERE id = 2").await, [["a?b€", "??x"]]);
}
