//! ALTER TABLE as MariaDB 10.11 does it (checked against it): instant changes with rows of older
//! layouts read back right, copies with the store rules and `at row N` errors, indexes and the
//! primary key, ALGORITHM/LOCK refusals, IF [NOT] EXISTS notes, and the OK packet's affected
//! rows and "Records:" info.

use crate::common;
use common::*;

async fn setup(s: &mut selkie_sql::Session) {
    exec(s, "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10), c INT NOT NULL DEFAULT 5)").await;
    exec(s, "INSERT INTO t VALUES (1,1,'x',1),(2,NULL,'yy',2),(3,3,NULL,3)").await;
}

#[tokio::test]
async fn instant_changes_keep_rows_and_report_no_rows() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    setup(&mut s).await;
    let ok = exec(&mut s, "ALTER TABLE t ADD COLUMN d INT NOT NULL, ADD COLUMN e VARCHAR(5) DEFAULT 'z' FIRST").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (0, "Records: 0  Duplicates: 0  Warnings: 0"));
    assert_eq!(
        query(&mut s, "SELECT * FROM t ORDER BY id").await,
        rows(&[
            &["z", "1", "1", "x", "1", "0"],
            &["z", "2", "NULL", "yy", "2", "0"],
            &["z", "3", "3", "NULL", "3", "0"]
        ])
    );
    // Rows written after the change, then more instant changes over three row versions.
    exec(&mut s, "INSERT INTO t (id, a, d) VALUES (4, 4, 44)").await;
    exec(&mut s, "UPDATE t SET d = 22 WHERE id = 2").await;
    exec(&mut s, "ALTER TABLE t DROP COLUMN b, RENAME COLUMN c TO cc, ALTER COLUMN a SET DEFAULT 9").await;
    exec(&mut s, "ALTER TABLE t MODIFY e VARCHAR(50) DEFAULT 'z' AFTER d").await;
    exec(&mut s, "INSERT INTO t (id, d) VALUES (5, 0)").await;
    assert_eq!(
        query(&mut s, "SELECT * FROM t ORDER BY id").await,
        rows(&[
            &["1", "1", "1", "0", "z"],
            &["2", "NULL", "2", "22", "z"],
            &["3", "3", "3", "0", "z"],
            &["4", "4", "5", "44", "z"],
            &["5", "9", "5", "0", "z"],
        ])
    );
    let create = query(&mut s, "SHOW CREATE TABLE t").await;
    assert!(create[0][1].contains("`cc` int(11) NOT NULL DEFAULT 5"), "{}", create[0][1]);
    assert!(create[0][1].contains("`e` varchar(50) DEFAULT 'z'"), "{}", create[0][1]);
    let t = db.engine.catalog().table("test", "t").cloned().unwrap();
    assert!(!t.row_versions.is_empty(), "the changes were instant");
}

#[tokio::test]
async fn copies_convert_rows_with_mariadb_errors() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    setup(&mut s).await;
    let ok = exec(&mut s, "ALTER TABLE t MODIFY a BIGINT").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (3, "Records: 3  Duplicates: 0  Warnings: 0"));
    for (sql, code, msg) in [
        ("ALTER TABLE t MODIFY a INT NOT NULL", 1265, "Data truncated for column 'a' at row 2"),
        ("ALTER TABLE t MODIFY b VARCHAR(1)", 1265, "Data truncated for column 'b' at row 2"),
        ("ALTER TABLE t ADD COLUMN a INT", 1060, "Duplicate column name 'a'"),
        ("ALTER TABLE t DROP COLUMN nope", 1091, "Can't DROP COLUMN `nope`; check that it exists"),
        ("ALTER TABLE t MODIFY nope INT", 1054, "Unknown column 'nope' in 't'"),
        ("ALTER TABLE t ADD PRIMARY KEY (a)", 1068, "Multiple primary key defined"),
        ("ALTER TABLE t DROP INDEX nope", 1091, "Can't DROP INDEX `nope`; check that it exists"),
        (
            "ALTER TABLE t ADD COLUMN q INT AUTO_INCREMENT",
            1075,
            "Incorrect table definition; there can be only one auto column and it must be defined as a key",
        ),
        ("ALTER TABLE t RENAME INDEX nope TO x", 1176, "Key 'nope' doesn't exist in table 't'"),
        ("ALTER TABLE nope ADD COLUMN x INT", 1146, "Table 'test.nope' doesn't exist"),
    ] {
        let e = fail(&mut s, sql).await;
        assert_eq!((e.code, e.message.as_str()), (code, msg), "{sql}");
    }
    exec(&mut s, "UPDATE t SET c = 300 WHERE id = 2").await;
    let e = fail(&mut s, "ALTER TABLE t MODIFY c TINYINT").await;
    assert_eq!((e.code, e.message.as_str()), (1264, "Out of range value for column 'c' at row 2"));
    // Nothing changed by the failed ALTERs.
    assert_eq!(
        query(&mut s, "SELECT a, b, c FROM t ORDER BY id").await,
        rows(&[&["1", "x", "1"], &["NULL", "yy", "300"], &["3", "NULL", "3"]])
    );
    // Non-strict: the value is clamped with a warning, and the ALTER goes through.
    exec(&mut s, "SET sql_mode = ''").await;
    let ok = exec(&mut s, "ALTER TABLE t MODIFY c TINYINT").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (3, "Records: 3  Duplicates: 0  Warnings: 1"));
    assert_eq!(query(&mut s, "SELECT c FROM t ORDER BY id").await, rows(&[&["1"], &["127"], &["3"]]));
}

#[tokio::test]
async fn indexes_and_primary_keys() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE t (id INT, a INT, b VARCHAR(10), KEY ab (a, b), KEY bb (b))").await;
    exec(&mut s, "INSERT INTO t VALUES (1,1,'x'),(2,NULL,'yy'),(3,3,NULL)").await;
    let ok = exec(&mut s, "ALTER TABLE t ADD COLUMN pk INT AUTO_INCREMENT PRIMARY KEY FIRST").await;
    assert_eq!(ok.affected_rows, 0);
    assert_eq!(query(&mut s, "SELECT pk, id FROM t ORDER BY pk").await, rows(&[&["1", "1"], &["2", "2"], &["3", "3"]]));
    // A dropped column leaves the indexes: `ab` shrinks to (a), `bb` goes.
    exec(&mut s, "ALTER TABLE t DROP COLUMN b").await;
    let create = query(&mut s, "SHOW CREATE TABLE t").await[0][1].clone();
    assert!(create.contains("PRIMARY KEY (`pk`),\n  KEY `ab` (`a`)\n)"), "{create}");
    exec(&mut s, "ALTER TABLE t RENAME INDEX ab TO a_idx, ADD UNIQUE KEY u (id)").await;
    exec(&mut s, "INSERT INTO t (id, a) VALUES (4, 1)").await;
    let e = fail(&mut s, "ALTER TABLE t ADD UNIQUE (a)").await;
    assert_eq!((e.code, e.message.as_str()), (1062, "Duplicate entry '1' for key 'a'"));
    assert_eq!(
        query(&mut s, "SELECT id FROM t FORCE INDEX (a_idx) WHERE a = 1 ORDER BY id").await,
        rows(&[&["1"], &["4"]])
    );
    // The primary key moves to id: a rebuild, 0 rows as MariaDB's in-place one.
    let ok = exec(&mut s, "ALTER TABLE t DROP PRIMARY KEY, MODIFY pk INT, ADD PRIMARY KEY (id)").await;
    assert_eq!(ok.affected_rows, 0);
    assert_eq!(query(&mut s, "SELECT id, pk FROM t WHERE id = 4").await, rows(&[&["4", "4"]]));
    // Notes for IF [NOT] EXISTS.
    exec(&mut s, "ALTER TABLE t DROP COLUMN IF EXISTS nope, ADD COLUMN IF NOT EXISTS a INT, DROP INDEX IF EXISTS nope")
        .await;
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[
            &["Note", "1091", "Can't DROP COLUMN `nope`; check that it exists"],
            &["Note", "1060", "Duplicate column name 'a'"],
            &["Note", "1091", "Can't DROP INDEX `nope`; check that it exists"],
        ])
    );
}

#[tokio::test]
async fn algorithm_and_lock_clauses_and_table_options() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    setup(&mut s).await;
    for (sql, code, msg) in [
        (
            "ALTER TABLE t MODIFY a BIGINT, ALGORITHM=INSTANT",
            1846,
            "ALGORITHM=INSTANT is not supported. Reason: Cannot change column type. Try ALGORITHM=COPY",
        ),
        (
            "ALTER TABLE t MODIFY b VARCHAR(64), ALGORITHM=INPLACE",
            1846,
            "ALGORITHM=INPLACE is not supported. Reason: Cannot change column type. Try ALGORITHM=COPY",
        ),
        (
            "ALTER TABLE t ADD INDEX ix (c), ALGORITHM=INSTANT",
            1846,
            "ALGORITHM=INSTANT is not supported. Reason: ADD INDEX. Try ALGORITHM=NOCOPY",
        ),
        (
            "ALTER TABLE t ADD INDEX ix (c), LOCK=NONE, ALGORITHM=COPY",
            1846,
            "LOCK=NONE is not supported. Reason: COPY algorithm requires a lock. Try LOCK=SHARED",
        ),
        ("ALTER TABLE t FORCE, ALGORITHM=NOCOPY", 1845, "ALGORITHM=NOCOPY is not supported for this operation. Try ALGORITHM=INPLACE"),
        (
            "ALTER TABLE t DROP PRIMARY KEY, ALGORITHM=INSTANT",
            1846,
            "ALGORITHM=INSTANT is not supported. Reason: Dropping a primary key is not allowed without also adding a new primary key. Try ALGORITHM=COPY",
        ),
    ] {
        let e = fail(&mut s, sql).await;
        assert_eq!((e.code, e.message.as_str()), (code, msg), "{sql}");
    }
    let ok = exec(&mut s, "ALTER TABLE t MODIFY b VARCHAR(63), ALGORITHM=INSTANT, LOCK=NONE").await;
    assert_eq!(ok.affected_rows, 0);
    let ok = exec(&mut s, "ALTER TABLE t ADD COLUMN z INT, ALGORITHM=COPY, LOCK=SHARED").await;
    assert_eq!(ok.affected_rows, 3);
    exec(&mut s, "ALTER TABLE t ENGINE=InnoDB COMMENT='hi' AUTO_INCREMENT=10 ROW_FORMAT=DYNAMIC").await;
    exec(&mut s, "ALTER TABLE t RENAME TO t2").await;
    let create = query(&mut s, "SHOW CREATE TABLE t2").await[0][1].clone();
    assert!(create.ends_with("COMMENT='hi'"), "{create}");
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM t2").await, rows(&[&["3"]]));
}
