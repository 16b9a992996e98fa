//! Bad input gives clean errors, never a panic: odd statements, and random token soups built
//! from SQL's vocabulary (a fixed seed; SELKIE_STRESS=1 runs many more).

use crate::common;
use common::*;

const TOKENS: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "t",
    "u",
    "id",
    "k",
    "c",
    "*",
    ",",
    "(",
    ")",
    "=",
    "<",
    ">",
    "<=",
    "IN",
    "BETWEEN",
    "AND",
    "OR",
    "NOT",
    "NULL",
    "1",
    "0",
    "-1",
    "2.5",
    "'x'",
    "''",
    "GROUP",
    "BY",
    "ORDER",
    "LIMIT",
    "HAVING",
    "COUNT(*)",
    "SUM(k)",
    "JOIN",
    "ON",
    "LEFT",
    "UNION",
    "ALL",
    "DISTINCT",
    "AS",
    "a",
    "INSERT",
    "INTO",
    "VALUES",
    "UPDATE",
    "SET",
    "DELETE",
    "IS",
    "LIKE",
    "'%'",
    "EXISTS",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "@v",
    ":=",
    "@@autocommit",
    "?",
    ";",
    "+",
    "*",
    "/",
    "DIV",
    "MOD",
    "CAST",
    "CHAR",
    "DESC",
    "FOR",
    "USING",
    "DUAL",
    "DEFAULT",
    "IGNORE",
    "REPLACE",
    "DUPLICATE",
    "KEY",
    "INDEX",
    "FORCE",
    "PRIMARY",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }
}

#[tokio::test]
async fn bad_input_is_an_error_not_a_panic() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, k INT, c VARCHAR(10), KEY k (k))").await;
    exec(&mut s, "CREATE TABLE u (id INT PRIMARY KEY, t_id INT)").await;
    exec(&mut s, "INSERT INTO t VALUES (1, 1, 'a'), (2, 2, 'b'), (3, NULL, NULL)").await;
    exec(&mut s, "INSERT INTO u VALUES (1, 1), (2, 3)").await;
    for sql in [
        "",
        ";",
        "/*",
        "'",
        "\"unterminated",
        "SELECT",
        "SELECT (",
        "SELECT )",
        "SELECT 1 +",
        "SELECT * FROM",
        "SELECT 1 LIMIT -1",
        "SELECT 1 LIMIT 'a'",
        "SELECT id FROM t ORDER BY 0",
        "SELECT id FROM t GROUP BY 99",
        "SELECT COUNT(DISTINCT *) FROM t",
        "SELECT SUM(k, id) FROM t",
        "SELECT MAX(MAX(k)) FROM t",
        "SELECT (SELECT 1, 2)",
        "SELECT * FROM t WHERE (1, 2) = 1",
        "SELECT * FROM t WHERE id IN ((1, 2))",
        "SELECT x'4', b'102'",
        "SELECT CAST(1 AS DECIMAL(70, 2))",
        "SELECT 1 FROM t t",
        "INSERT INTO t VALUES ()",
        "INSERT INTO t () VALUES (1)",
        "INSERT INTO t (id) VALUES (1), ()",
        "UPDATE t SET id = id + 1",
        "UPDATE t SET t.nosuch = 1",
        "DELETE FROM t LIMIT -1",
        "SELECT @@",
        "SELECT @",
        "SET @@ = 1",
        "SET = 1",
        "PREPARE",
        "EXECUTE",
        "PREPARE s FROM 5",
        "SELECT 9999999999999999999999999999999999999999999999",
        "SELECT 1e999",
        "SELECT -9223372036854775808 - 1",
        "SELECT 18446744073709551615 + 1",
        "SELECT 1 DIV 0, 1 % 0, 1 / 0",
        "CREATE TABLE x (a INT, KEY ())",
        "CREATE TABLE x ()",
        "CREATE TABLE x (a DECIMAL(100, 2))",
        "CREATE TABLE x (a INT DEFAULT (SELECT 1))",
        "CREATE INDEX i ON t ()",
        "ALTER TABLE t DROP INDEX",
        "SELECT * FROM t WHERE k LIKE 'a' ESCAPE 'xy'",
        "SELECT GROUP_CONCAT(c SEPARATOR 5) FROM t",
        "SELECT * FROM (SELECT 1, 1) d",
        "WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r",
        "SELECT 1 UNION SELECT",
        "SELECT id FROM t HAVING",
        "SELECT * FROM t, t",
        "KILL",
        "KILL -1",
        "USE",
        "SHOW",
        "SHOW NONSENSE",
        "DESCRIBE nosuch",
        "EXPLAIN",
        "DO",
        "BEGIN WORK NOW",
        "COMMIT AND",
        "XA START 'x'",
        "SELECT DATE_ADD(1, INTERVAL 1 FORTNIGHT)",
        "SELECT CONVERT('a' USING latin1)",
        "SELECT 'a' COLLATE nosuch",
        "SELECT TRIM(BOTH 'x' FROM 'xax')",
        "SELECT !1",
        "SELECT 1 REGEXP 'a'",
        "SELECT * FROM information_schema.nosuch",
        "SELECT * FROM t FOR UPDATE NOWAIT",
    ] {
        let _ = run(&mut s, sql).await;
    }
    let mut rng = Rng(2026);
    let iterations = if std::env::var("SELKIE_STRESS").is_ok() { 20_000 } else { 400 };
    for _ in 0..iterations {
        let len = 2 + rng.next() % 14;
        let words: Vec<&str> = (0..len).map(|_| TOKENS[rng.next() % TOKENS.len()]).collect();
        let sql = words.join(" ");
        let _ = run(&mut s, &sql).await;
        if !s.status().in_transaction {
            continue;
        }
        exec(&mut s, "ROLLBACK").await;
    }
    // The session is still healthy.
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM u").await.len(), 1);
}
