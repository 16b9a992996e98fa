//! Column defaults that are expressions (`DEFAULT (expr)`, `DEFAULT uuid()`, `DEFAULT NEXT
//! VALUE FOR s`) as MariaDB 10.11 has them; every expected text, value and error below was
//! produced by MariaDB 10.11: definitions and their refusals, SHOW CREATE TABLE, DESCRIBE,
//! information_schema, values on INSERT (omitted columns, the DEFAULT keyword, INSERT ...
//! SELECT, REPLACE, ON DUPLICATE KEY UPDATE, UPDATE), DEFAULT(col), ALTER TABLE. (The catalog's
//! column attribute 4 has its round-trip test in selkie-storage.)

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
    exec(&mut s, "CREATE SEQUENCE s1").await;
    exec(
        &mut s,
        "CREATE TABLE t1 (id INT AUTO_INCREMENT PRIMARY KEY, a INT DEFAULT 3, b INT DEFAULT (a*2), \
         c CHAR(36) DEFAULT uuid(), d DATETIME(6) DEFAULT now(6), e DATE DEFAULT curdate(), f DOUBLE DEFAULT rand(), \
         g VARCHAR(50) DEFAULT concat('x', a, '-', b), i INT DEFAULT (NEXT VALUE FOR s1), j BIGINT DEFAULT nextval(s1), \
         k INT DEFAULT (1+1), l VARCHAR(10) DEFAULT (lower('ABC')), m INT DEFAULT (-1), n INT DEFAULT (abs(-5)), \
         o INT DEFAULT (5), p TIMESTAMP NULL DEFAULT (now() + interval 1 day))",
    )
    .await;
    assert_eq!(
        show_create(&mut s, "t1").await,
        format!(
            "CREATE TABLE `t1` (\n  `id` int(11) NOT NULL AUTO_INCREMENT,\n  `a` int(11) DEFAULT 3,\n  `b` int(11) DEFAULT (`a` * 2),\n  `c` char(36) DEFAULT uuid(),\n  `d` datetime(6) DEFAULT current_timestamp(6),\n  `e` date DEFAULT curdate(),\n  `f` double DEFAULT rand(),\n  `g` varchar(50) DEFAULT concat('x',`a`,'-',`b`),\n  `i` int(11) DEFAULT nextval(`test`.`s1`),\n  `j` bigint(20) DEFAULT nextval(`test`.`s1`),\n  `k` int(11) DEFAULT (1 + 1),\n  `l` varchar(10) DEFAULT lcase('ABC'),\n  `m` int(11) DEFAULT -1,\n  `n` int(11) DEFAULT abs(-5),\n  `o` int(11) DEFAULT 5,\n  `p` timestamp NULL DEFAULT (current_timestamp() + interval 1 day),\n  PRIMARY KEY (`id`)\n{TAIL}"
        )
    );
    let defaults = rows(&[
        &["id", "NULL"],
        &["a", "3"],
        &["b", "(`a` * 2)"],
        &["c", "uuid()"],
        &["d", "current_timestamp(6)"],
        &["e", "curdate()"],
        &["f", "rand()"],
        &["g", "concat('x',`a`,'-',`b`)"],
        &["i", "nextval(`test`.`s1`)"],
        &["j", "nextval(`test`.`s1`)"],
        &["k", "(1 + 1)"],
        &["l", "lcase('ABC')"],
        &["m", "-1"],
        &["n", "abs(-5)"],
        &["o", "5"],
        &["p", "(current_timestamp() + interval 1 day)"],
    ]);
    assert_eq!(
        query(
            &mut s,
            "SELECT column_name, ifnull(column_default, 'NULL') FROM information_schema.columns WHERE table_name = 't1' ORDER BY ordinal_position"
        )
        .await,
        defaults
    );
    let describe: Vec<Vec<String>> =
        query(&mut s, "DESCRIBE t1").await.into_iter().map(|r| vec![r[0].clone(), r[4].clone()]).collect();
    assert_eq!(describe, defaults);

    exec(&mut s, "INSERT INTO t1 (a) VALUES (5)").await;
    exec(&mut s, "INSERT INTO t1 (a, b) VALUES (6, DEFAULT)").await;
    exec(&mut s, "INSERT INTO t1 VALUES (DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT)").await;
    assert_eq!(
        query(&mut s, "SELECT id, a, b, length(c), g, i, j, k, l, m, n, o, p > now(), d <= now(6) FROM t1").await,
        rows(&[
            &["1", "5", "10", "36", "x5-10", "1", "2", "2", "abc", "-1", "5", "5", "1", "1"],
            &["2", "6", "12", "36", "x6-12", "3", "4", "2", "abc", "-1", "5", "5", "1", "1"],
            &["3", "3", "6", "36", "x3-6", "5", "6", "2", "abc", "-1", "5", "5", "1", "1"],
        ])
    );
    assert_eq!(query(&mut s, "SELECT count(DISTINCT c) FROM t1").await, rows(&[&["3"]]));
}

#[tokio::test]
async fn refused_definitions() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let cases: &[(&str, u16, &str)] = &[
        (
            "CREATE TABLE e (a INT DEFAULT ((SELECT 1)))",
            1901,
            "Function or expression 'select ...' cannot be used in the DEFAULT clause of `a`",
        ),
        (
            "CREATE TABLE e (a INT DEFAULT (last_insert_id()))",
            1901,
            "Function or expression 'last_insert_id()' cannot be used in the DEFAULT clause of `a`",
        ),
        (
            "CREATE TABLE e (a INT DEFAULT (sum(1)))",
            1901,
            "Function or expression 'sum()' cannot be used in the DEFAULT clause of `a`",
        ),
        (
            "CREATE TABLE e (id INT AUTO_INCREMENT PRIMARY KEY, a INT DEFAULT (id+1))",
            1901,
            "Function or expression 'AUTO_INCREMENT' cannot be used in the DEFAULT clause of `id`",
        ),
        (
            "CREATE TABLE e (a INT DEFAULT (b), b INT AS (1))",
            4029,
            "Expression for field `a` is referring to uninitialized field `b`",
        ),
        (
            "CREATE TABLE e (b INT AS (1), a INT DEFAULT (b))",
            4029,
            "Expression for field `a` is referring to uninitialized field `b`",
        ),
        (
            "CREATE TABLE e (a INT DEFAULT (b), b INT DEFAULT (a))",
            4029,
            "Expression for field `a` is referring to uninitialized field `b`",
        ),
        (
            "CREATE TABLE e (a INT DEFAULT (a))",
            4029,
            "Expression for field `a` is referring to uninitialized field `a`",
        ),
        ("CREATE TABLE e (a INT DEFAULT (c))", 1054, "Unknown column 'c' in 'DEFAULT'"),
        ("CREATE TABLE e (a INT AUTO_INCREMENT PRIMARY KEY DEFAULT (1+1))", 1067, "Invalid default value for 'a'"),
    ];
    for (sql, code, message) in cases {
        let e = fail(&mut s, sql).await;
        assert_eq!((e.code, e.message.as_str()), (*code, *message), "{sql}");
    }
    // A later column whose default is constant, or earlier ones with any default, may be read.
    exec(&mut s, "CREATE TABLE ok1 (a INT DEFAULT (b+1), b INT DEFAULT 5, c INT DEFAULT (rand()), d INT DEFAULT (c))")
        .await;
    exec(
        &mut s,
        "CREATE TABLE ok2 (d INT DEFAULT (now()), e VARCHAR(30) DEFAULT current_timestamp, f DATE DEFAULT now())",
    )
    .await;
    assert_eq!(
        show_create(&mut s, "ok2").await,
        format!(
            "CREATE TABLE `ok2` (\n  `d` int(11) DEFAULT current_timestamp(),\n  `e` varchar(30) DEFAULT current_timestamp(),\n  `f` date DEFAULT current_timestamp()\n{TAIL}"
        )
    );
}

#[tokio::test]
async fn values_on_insert() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    // Omitted columns read the row's final values; a DEFAULT keyword is computed where it
    // stands in the list, before the values after it.
    exec(&mut s, "CREATE TABLE e14 (a INT DEFAULT (b + 1), b INT DEFAULT 5)").await;
    exec(&mut s, "INSERT INTO e14 () VALUES ()").await;
    exec(&mut s, "INSERT INTO e14 (b) VALUES (10)").await;
    exec(&mut s, "INSERT INTO e14 (a, b) VALUES (DEFAULT, 20)").await;
    exec(&mut s, "INSERT INTO e14 VALUES (DEFAULT, 30)").await;
    exec(&mut s, "INSERT INTO e14 (b, a) VALUES (40, DEFAULT)").await;
    assert_eq!(
        query(&mut s, "SELECT a, b FROM e14").await,
        rows(&[&["6", "5"], &["11", "10"], &["6", "20"], &["6", "30"], &["41", "40"]])
    );
    assert_eq!(
        query(&mut s, "SELECT default(a), default(b) FROM e14").await,
        rows(&[&["6", "5"], &["11", "5"], &["21", "5"], &["31", "5"], &["41", "5"]])
    );

    exec(
        &mut s,
        "CREATE TABLE r1 (id INT PRIMARY KEY, a INT DEFAULT 4, b INT DEFAULT (a*10), c TINYINT DEFAULT (a*20), n INT NOT NULL DEFAULT (if(a>100, NULL, a)))",
    )
    .await;
    exec(&mut s, "INSERT INTO r1 (id) VALUES (1)").await;
    exec(&mut s, "INSERT INTO r1 (id, a) VALUES (2, 5)").await;
    let e = fail(&mut s, "INSERT INTO r1 (id, a) VALUES (3, 200)").await;
    assert_eq!((e.code, e.message.as_str()), (1264, "Out of range value for column 'c' at row 1"));
    exec(&mut s, "INSERT INTO r1 (id, a) VALUES (4, 2)").await;
    exec(&mut s, "INSERT INTO r1 (id, a) VALUES (5, 3)").await;
    let ok = exec(&mut s, "INSERT IGNORE INTO r1 (id, a) VALUES (6, 300)").await;
    assert_eq!(ok.warnings, 2);
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[
            &["Warning", "1264", "Out of range value for column 'c' at row 1"],
            &["Warning", "1048", "Column 'n' cannot be null"],
        ])
    );
    exec(&mut s, "INSERT INTO r1 (id, a) SELECT id + 10, a FROM r1 WHERE id < 3").await;
    assert_eq!(exec(&mut s, "UPDATE r1 SET a = 9, b = DEFAULT WHERE id = 12").await.affected_rows, 1);
    assert_eq!(exec(&mut s, "REPLACE INTO r1 (id, a) VALUES (4, 6)").await.affected_rows, 2);
    let sql = "INSERT INTO r1 (id, a) VALUES (5, 1) ON DUPLICATE KEY UPDATE b = DEFAULT";
    assert_eq!(exec(&mut s, sql).await.affected_rows, 0);
    let sql = "INSERT INTO r1 (id, a) VALUES (5, 1) ON DUPLICATE KEY UPDATE a = 2, b = DEFAULT";
    assert_eq!(exec(&mut s, sql).await.affected_rows, 2);
    assert_eq!(
        query(&mut s, "SELECT * FROM r1").await,
        rows(&[
            &["1", "4", "40", "80", "4"],
            &["2", "5", "50", "100", "5"],
            &["4", "6", "60", "120", "6"],
            &["5", "2", "20", "60", "3"],
            &["6", "300", "3000", "127", "0"],
            &["11", "4", "40", "80", "4"],
            &["12", "9", "90", "100", "5"],
        ])
    );
    // DEFAULT(col) as MariaDB gives it for the other kinds of column.
    exec(
        &mut s,
        "CREATE TABLE q1 (id INT AUTO_INCREMENT PRIMARY KEY, n INT NOT NULL, m INT, g INT AS (id+1), s VARCHAR(5) DEFAULT 'x', e INT DEFAULT (n+1))",
    )
    .await;
    exec(&mut s, "INSERT INTO q1 (n) VALUES (1)").await;
    assert_eq!(
        query(&mut s, "SELECT default(id), default(m), default(s), default(g), default(x.e), default(e) + 1 FROM q1 x")
            .await,
        rows(&[&["0", "NULL", "x", "NULL", "2", "3"]])
    );
    let e = fail(&mut s, "SELECT default(n) FROM q1 WHERE 0").await;
    assert_eq!((e.code, e.message.as_str()), (1364, "Field 'n' doesn't have a default value"));
    // Every row its own UUID, through a unique key.
    exec(
        &mut s,
        "CREATE TABLE r2 (id INT AUTO_INCREMENT PRIMARY KEY, u CHAR(36) NOT NULL DEFAULT (uuid()), UNIQUE KEY (u))",
    )
    .await;
    exec(&mut s, "INSERT INTO r2 () VALUES (), (), ()").await;
    exec(&mut s, "INSERT INTO r2 (id) SELECT NULL FROM r2").await;
    assert_eq!(query(&mut s, "SELECT count(DISTINCT u), count(*) FROM r2").await, rows(&[&["6", "6"]]));
}

#[tokio::test]
async fn alter_table() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE a1 (id INT PRIMARY KEY, x INT)").await;
    exec(&mut s, "INSERT INTO a1 VALUES (1, 10), (2, 20), (3, 30)").await;
    for algorithm in ["INSTANT", "INPLACE", "NOCOPY"] {
        let e = fail(&mut s, &format!("ALTER TABLE a1 ADD c CHAR(36) DEFAULT (uuid()), ALGORITHM={algorithm}")).await;
        let message = format!("ALGORITHM={algorithm} is not supported for this operation. Try ALGORITHM=COPY");
        assert_eq!((e.code, e.message.as_str()), (1845, message.as_str()));
    }
    // Each existing row gets its own value: MariaDB copies the table.
    let ok = exec(&mut s, "ALTER TABLE a1 ADD c CHAR(36) DEFAULT (uuid())").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (3, "Records: 3  Duplicates: 0  Warnings: 0"));
    assert_eq!(query(&mut s, "SELECT count(DISTINCT c), min(length(c)) FROM a1").await, rows(&[&["3", "36"]]));
    exec(&mut s, "ALTER TABLE a1 ADD d INT DEFAULT (x*2)").await;
    // A constant expression is added in place.
    let ok = exec(&mut s, "ALTER TABLE a1 ADD e INT DEFAULT (1+1), ALGORITHM=INSTANT").await;
    assert_eq!(ok.affected_rows, 0);
    exec(&mut s, "ALTER TABLE a1 ALTER COLUMN x SET DEFAULT (id+100)").await;
    exec(&mut s, "INSERT INTO a1 (id) VALUES (4)").await;
    assert_eq!(
        query(&mut s, "SELECT id, x, d, e FROM a1").await,
        rows(&[&["1", "10", "20", "2"], &["2", "20", "40", "2"], &["3", "30", "60", "2"], &["4", "104", "208", "2"]])
    );
    exec(&mut s, "ALTER TABLE a1 MODIFY x BIGINT DEFAULT (id*7)").await;
    exec(&mut s, "ALTER TABLE a1 ALTER COLUMN d SET DEFAULT (now())").await;
    exec(&mut s, "ALTER TABLE a1 ALTER COLUMN d SET DEFAULT (e)").await;
    let cases: &[(&str, u16, &str)] = &[
        (
            "ALTER TABLE a1 ALTER COLUMN d SET DEFAULT ((SELECT 1))",
            1901,
            "Function or expression 'select ...' cannot be used in the DEFAULT clause of `d`",
        ),
        ("ALTER TABLE a1 ALTER COLUMN d SET DEFAULT (zz)", 1054, "Unknown column 'zz' in 'DEFAULT'"),
        (
            "ALTER TABLE a1 ALTER COLUMN e SET DEFAULT (d)",
            4029,
            "Expression for field `d` is referring to uninitialized field `e`",
        ),
    ];
    for (sql, code, message) in cases {
        let e = fail(&mut s, sql).await;
        assert_eq!((e.code, e.message.as_str()), (*code, *message), "{sql}");
    }
    exec(&mut s, "ALTER TABLE a1 RENAME COLUMN e TO e2").await;
    assert_eq!(
        show_create(&mut s, "a1").await,
        format!(
            "CREATE TABLE `a1` (\n  `id` int(11) NOT NULL,\n  `x` bigint(20) DEFAULT (`id` * 7),\n  `c` char(36) DEFAULT uuid(),\n  `d` int(11) DEFAULT `e2`,\n  `e2` int(11) DEFAULT (1 + 1),\n  PRIMARY KEY (`id`)\n{TAIL}"
        )
    );
}
