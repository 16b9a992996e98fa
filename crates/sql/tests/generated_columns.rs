//! Generated columns (VIRTUAL / STORED / PERSISTENT) as MariaDB 10.11 has them; every expected
//! text and error below was produced by MariaDB 10.11: definitions and their refusals, values
//! on INSERT / UPDATE / REPLACE / ON DUPLICATE KEY UPDATE, explicit values (1906), indexes on
//! generated columns, SHOW CREATE TABLE, DESCRIBE, information_schema, ALTER TABLE. (The catalog's column attribute 3 has its round-trip test in selkie-storage.)

use crate::common;
use common::*;

async fn show_create(s: &mut selkie_sql::Session, t: &str) -> String {
    query(s, &format!("SHOW CREATE TABLE {t}")).await[0][1].clone()
}

const TAIL: &str = ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci";

#[tokio::test]
async fn definitions_and_introspection() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(
        &mut s,
        "CREATE TABLE g (a INT, b INT AS (a+1) VIRTUAL COMMENT 'hi', c VARCHAR(20) GENERATED ALWAYS AS (concat('x', a)) STORED, d INT AS (a*2) PERSISTENT UNIQUE, KEY kb(b))",
    )
    .await;
    assert_eq!(
        show_create(&mut s, "g").await,
        format!(
            "CREATE TABLE `g` (\n  `a` int(11) DEFAULT NULL,\n  `b` int(11) GENERATED ALWAYS AS (`a` + 1) VIRTUAL COMMENT 'hi',\n  `c` varchar(20) GENERATED ALWAYS AS (concat('x',`a`)) STORED,\n  `d` int(11) GENERATED ALWAYS AS (`a` * 2) STORED,\n  UNIQUE KEY `d` (`d`),\n  KEY `kb` (`b`)\n{TAIL}"
        )
    );
    assert_eq!(
        query(&mut s, "DESCRIBE g").await,
        rows(&[
            &["a", "int(11)", "YES", "", "NULL", ""],
            &["b", "int(11)", "YES", "MUL", "NULL", "VIRTUAL GENERATED"],
            &["c", "varchar(20)", "YES", "", "NULL", "STORED GENERATED"],
            &["d", "int(11)", "YES", "UNI", "NULL", "STORED GENERATED"],
        ])
    );
    assert_eq!(
        query(
            &mut s,
            "SELECT column_name, column_default, extra, generation_expression, is_generated FROM information_schema.columns WHERE table_name = 'g' ORDER BY ordinal_position"
        )
        .await,
        rows(&[
            &["a", "NULL", "", "NULL", "NEVER"],
            &["b", "NULL", "VIRTUAL GENERATED", "`a` + 1", "ALWAYS"],
            &["c", "NULL", "STORED GENERATED", "concat('x',`a`)", "ALWAYS"],
            &["d", "NULL", "STORED GENERATED", "`a` * 2", "ALWAYS"],
        ])
    );
    // Expressions are reprinted as MariaDB prints them.
    exec(
        &mut s,
        "CREATE TABLE pr (a VARCHAR(10), b VARCHAR(30) AS (lower(a)), d INT AS (length(a)), g INT AS (if(a>1, 1, 0)), l INT AS (not a), m INT AS (a and 1))",
    )
    .await;
    assert_eq!(
        show_create(&mut s, "pr").await,
        format!(
            "CREATE TABLE `pr` (\n  `a` varchar(10) DEFAULT NULL,\n  `b` varchar(30) GENERATED ALWAYS AS (lcase(`a`)) VIRTUAL,\n  `d` int(11) GENERATED ALWAYS AS (octet_length(`a`)) VIRTUAL,\n  `g` int(11) GENERATED ALWAYS AS (if(`a` > 1,1,0)) VIRTUAL,\n  `l` int(11) GENERATED ALWAYS AS (`a` = 0) VIRTUAL,\n  `m` int(11) GENERATED ALWAYS AS (`a` <> 0 and 1) VIRTUAL\n{TAIL}"
        )
    );
}

#[tokio::test]
async fn refused_definitions() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let cases: &[(&str, u16, &str)] = &[
        (
            "CREATE TABLE e (a INT, b DATETIME AS (now()) STORED)",
            1901,
            "Function or expression 'current_timestamp()' cannot be used in the GENERATED ALWAYS AS clause of `b`",
        ),
        (
            "CREATE TABLE e (a INT, b INT AS ((SELECT 1)) STORED)",
            1901,
            "Function or expression 'select ...' cannot be used in the GENERATED ALWAYS AS clause of `b`",
        ),
        (
            "CREATE TABLE e (a INT, b INT AS (@x) STORED)",
            1901,
            "Function or expression '@x' cannot be used in the GENERATED ALWAYS AS clause of `b`",
        ),
        (
            "CREATE TABLE e (a INT, b INT AS (sum(a)) STORED)",
            1901,
            "Function or expression 'sum()' cannot be used in the GENERATED ALWAYS AS clause of `b`",
        ),
        (
            "CREATE TABLE e (a INT, b INT AS (c+1), c INT AS (a+1))",
            4029,
            "Expression for field `b` is referring to uninitialized field `c`",
        ),
        (
            "CREATE TABLE e (a INT, b INT AS (b+1))",
            4029,
            "Expression for field `b` is referring to uninitialized field `b`",
        ),
        ("CREATE TABLE e (a INT, b INT AS (zz+1))", 1054, "Unknown column 'zz' in 'GENERATED ALWAYS AS'"),
        (
            "CREATE TABLE e (a INT AUTO_INCREMENT PRIMARY KEY, b INT AS (a+1) STORED)",
            1901,
            "Function or expression 'AUTO_INCREMENT' cannot be used in the GENERATED ALWAYS AS clause of `a`",
        ),
        (
            "CREATE TABLE e (id INT AUTO_INCREMENT PRIMARY KEY, v INT AS (id * 10) VIRTUAL, w INT AS (v + 1) STORED)",
            1901,
            "Function or expression 'v' cannot be used in the GENERATED ALWAYS AS clause of `w`",
        ),
        (
            "CREATE TABLE e (a INT, b INT AS (a+1) STORED, PRIMARY KEY (b))",
            1903,
            "Primary key cannot be defined upon a generated column",
        ),
    ];
    for (sql, code, message) in cases {
        let e = fail(&mut s, sql).await;
        assert_eq!((e.code, e.message.as_str()), (*code, *message), "{sql}");
    }
    assert_eq!(fail(&mut s, "CREATE TABLE e (a INT, b INT AS (a+1) DEFAULT 5)").await.code, 1064);
    assert_eq!(fail(&mut s, "CREATE TABLE e (a INT, b INT AS (a+1) NOT NULL)").await.code, 1064);
    // A VIRTUAL column may read the AUTO_INCREMENT value; an ordinary column declared later.
    exec(
        &mut s,
        "CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, v INT AS (id * 10) VIRTUAL, c INT AS (x) STORED, x INT)",
    )
    .await;
    exec(&mut s, "INSERT INTO ai (x) VALUES (7), (8)").await;
    assert_eq!(query(&mut s, "SELECT * FROM ai").await, rows(&[&["1", "10", "7", "7"], &["2", "20", "8", "8"]]));
}

#[tokio::test]
async fn values_on_row_changes() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE g (a INT, b INT AS (a+1) VIRTUAL, c VARCHAR(20) AS (concat('x', a)) STORED, d INT AS (a*2) STORED UNIQUE, KEY kb(b))").await;
    exec(&mut s, "INSERT INTO g (a) VALUES (1)").await;
    exec(&mut s, "INSERT INTO g VALUES (2, DEFAULT, DEFAULT, DEFAULT)").await;
    // NULL is accepted silently; any other value is 1906 (an error in strict mode).
    assert_eq!(exec(&mut s, "INSERT INTO g (a, b) VALUES (3, NULL)").await.warnings, 0);
    let e = fail(&mut s, "INSERT INTO g VALUES (4, 5, 'z', 7)").await;
    assert_eq!(
        (e.code, e.message.as_str()),
        (1906, "The value specified for generated column 'b' in table 'g' has been ignored")
    );
    exec(&mut s, "SET sql_mode = ''").await;
    assert_eq!(exec(&mut s, "INSERT INTO g VALUES (4, 5, 'z', 7)").await.warnings, 3);
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[
            &["Warning", "1906", "The value specified for generated column 'b' in table 'g' has been ignored"],
            &["Warning", "1906", "The value specified for generated column 'c' in table 'g' has been ignored"],
            &["Warning", "1906", "The value specified for generated column 'd' in table 'g' has been ignored"],
        ])
    );
    exec(&mut s, "SET sql_mode = DEFAULT").await;
    assert_eq!(fail(&mut s, "UPDATE g SET b = 10 WHERE a = 1").await.code, 1906);
    assert_eq!(exec(&mut s, "UPDATE g SET b = DEFAULT WHERE a = 1").await.affected_rows, 0);
    // Changing a column recomputes the columns that read it, indexes included.
    exec(&mut s, "UPDATE g SET a = 10 WHERE a = 1").await;
    assert_eq!(exec(&mut s, "UPDATE g SET a = a").await.affected_rows, 0);
    assert_eq!(
        query(&mut s, "SELECT * FROM g ORDER BY a").await,
        rows(&[&["2", "3", "x2", "4"], &["3", "4", "x3", "6"], &["4", "5", "x4", "8"], &["10", "11", "x10", "20"]])
    );
    assert_eq!(query(&mut s, "SELECT a FROM g FORCE INDEX (kb) WHERE b = 11").await, rows(&[&["10"]]));
    assert_eq!(query(&mut s, "SELECT a FROM g WHERE d = 20").await, rows(&[&["10"]]));
    let e = fail(&mut s, "INSERT INTO g (a) VALUES (2)").await;
    assert_eq!((e.code, e.message.as_str()), (1062, "Duplicate entry '4' for key 'd'"));
    // ON DUPLICATE KEY UPDATE recomputes; a value for a generated column is 1906 there too.
    assert_eq!(exec(&mut s, "INSERT INTO g (a) VALUES (2) ON DUPLICATE KEY UPDATE a = 20").await.affected_rows, 2);
    assert_eq!(query(&mut s, "SELECT b, c, d FROM g WHERE a = 20").await, rows(&[&["21", "x20", "40"]]));
    assert_eq!(fail(&mut s, "INSERT INTO g (a) VALUES (20) ON DUPLICATE KEY UPDATE b = 5").await.code, 1906);
    assert_eq!(exec(&mut s, "INSERT INTO g (a) VALUES (20) ON DUPLICATE KEY UPDATE b = NULL").await.affected_rows, 0);
    // A STORED value converts as INSERT stores; a VIRTUAL one silently.
    exec(&mut s, "CREATE TABLE conv (a VARCHAR(10), s TINYINT AS (a) STORED, v TINYINT AS (a) VIRTUAL)").await;
    let e = fail(&mut s, "INSERT INTO conv (a) VALUES ('300')").await;
    assert_eq!((e.code, e.message.as_str()), (1264, "Out of range value for column 's' at row 1"));
    exec(&mut s, "SET sql_mode = ''").await;
    assert_eq!(exec(&mut s, "INSERT INTO conv (a) VALUES ('300')").await.warnings, 1);
    assert_eq!(query(&mut s, "SELECT * FROM conv").await, rows(&[&["300", "127", "127"]]));
}

#[tokio::test]
async fn alter_table() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE al (a INT)").await;
    exec(&mut s, "INSERT INTO al VALUES (1), (2)").await;
    // MariaDB adds a VIRTUAL column in place and copies the table for a STORED one.
    assert_eq!(exec(&mut s, "ALTER TABLE al ADD COLUMN b INT AS (a + 1) VIRTUAL").await.affected_rows, 0);
    assert_eq!(exec(&mut s, "ALTER TABLE al ADD COLUMN c INT AS (a + 1) STORED, ADD KEY (c)").await.affected_rows, 2);
    assert_eq!(query(&mut s, "SELECT * FROM al ORDER BY a").await, rows(&[&["1", "2", "2"], &["2", "3", "3"]]));
    assert_eq!(exec(&mut s, "ALTER TABLE al MODIFY c INT AS (a * 5) STORED").await.affected_rows, 2);
    assert_eq!(query(&mut s, "SELECT a FROM al WHERE c = 10").await, rows(&[&["2"]]));
    assert_eq!(fail(&mut s, "ALTER TABLE al MODIFY b INT AS (a * 5) STORED").await.code, 1907);
    let e = fail(&mut s, "ALTER TABLE al MODIFY a INT AS (1)").await;
    assert_eq!((e.code, e.message.as_str()), (1907, "This is not yet supported for generated columns"));
    exec(&mut s, "ALTER TABLE al RENAME COLUMN a TO z").await;
    exec(&mut s, "ALTER TABLE al CHANGE z y BIGINT").await;
    assert_eq!(
        show_create(&mut s, "al").await,
        format!(
            "CREATE TABLE `al` (\n  `y` bigint(20) DEFAULT NULL,\n  `b` int(11) GENERATED ALWAYS AS (`y` + 1) VIRTUAL,\n  `c` int(11) GENERATED ALWAYS AS (`y` * 5) STORED,\n  KEY `c` (`c`)\n{TAIL}"
        )
    );
    let e = fail(&mut s, "ALTER TABLE al DROP COLUMN y").await;
    assert_eq!((e.code, e.message.as_str()), (1054, "Unknown column 'y' in 'GENERATED ALWAYS AS'"));
    // A generated column made ordinary keeps its values.
    exec(&mut s, "ALTER TABLE al MODIFY c INT").await;
    exec(&mut s, "UPDATE al SET y = 7 WHERE y = 1").await;
    assert_eq!(query(&mut s, "SELECT * FROM al ORDER BY y").await, rows(&[&["2", "3", "10"], &["7", "8", "5"]]));
}
