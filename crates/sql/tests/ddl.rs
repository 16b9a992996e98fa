//! DDL: every column type of the milestone, validations with MariaDB's codes and messages,
//! IF [NOT] EXISTS notes, indexes (prefixes in characters), TRUNCATE, RENAME, CREATE TABLE ... LIKE, databases, and the
//! table maintenance statements' result sets.

use crate::common;
use common::*;
use selkie_storage::{ColumnDefault, ColumnType, Datum, IntWidth, LobSize};

#[tokio::test]
async fn create_table_with_every_type() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(
        &mut s,
        "CREATE TABLE all_types (
            ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT, i INT(11) NOT NULL, bi BIGINT UNSIGNED, ig INTEGER,
            b BOOL, bo BOOLEAN, de DECIMAL(10,2) DEFAULT 1.5, f FLOAT, d DOUBLE,
            c CHAR(10) DEFAULT 'x', vc VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, tt TINYTEXT, t TEXT, mt MEDIUMTEXT, lt LONGTEXT,
            bn BINARY(4), vb VARBINARY(16), tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB,
            dt DATE, dtm DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6), ts TIMESTAMP(3) NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP(3),
            PRIMARY KEY (i), UNIQUE KEY (vc), KEY prefix (t(20)), INDEX multi (ti, si)
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COMMENT='all of them'",
    )
    .await;
    let cat = db.engine.catalog();
    let t = cat.table("test", "all_types").expect("created");
    let ty = |n: &str| t.columns[t.column_index(n).unwrap()].ty.clone();
    assert_eq!(ty("ti"), ColumnType::Int { width: IntWidth::Tiny, unsigned: false, display_width: None });
    assert_eq!(ty("si"), ColumnType::Int { width: IntWidth::Small, unsigned: true, display_width: None });
    assert_eq!(ty("i"), ColumnType::Int { width: IntWidth::Int, unsigned: false, display_width: Some(11) });
    assert_eq!(ty("b"), ColumnType::Int { width: IntWidth::Tiny, unsigned: false, display_width: Some(1) });
    assert_eq!(ty("de"), ColumnType::Decimal { precision: 10, scale: 2, unsigned: false });
    assert_eq!(ty("mt"), ColumnType::Text { size: LobSize::Medium });
    assert_eq!(ty("vb"), ColumnType::VarBinary { len: 16 });
    assert_eq!(ty("dtm"), ColumnType::DateTime { fsp: 6 });
    assert_eq!(ty("ts"), ColumnType::Timestamp { fsp: 3 });
    let col = |n: &str| t.columns[t.column_index(n).unwrap()].clone();
    assert!(!col("i").nullable, "primary key columns are NOT NULL");
    assert_eq!(col("c").default, ColumnDefault::Value(Datum::Bytes(b"x".to_vec())));
    assert_eq!(col("dtm").default, ColumnDefault::CurrentTimestamp);
    assert!(col("ts").on_update_current_timestamp);
    assert_eq!(t.primary.columns.len(), 1);
    let names: Vec<&str> = t.secondary.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, vec!["vc", "prefix", "multi"]);
    assert!(t.secondary[0].unique);
    assert_eq!(t.secondary[1].columns[0].prefix_len, Some(80), "20 characters, kept as utf8mb4 bytes");
    assert_eq!(t.options.engine, "InnoDB");
    assert_eq!(t.options.comment, "all of them");
    exec(&mut s, "INSERT INTO all_types (i, vc, t) VALUES (1, 'a', 'text')").await;
    assert_eq!(query(&mut s, "SELECT de, c, t FROM all_types").await, rows(&[&["1.50", "x", "text"]]));

    // sysbench's table, with the AUTO_INCREMENT variant and the secondary-key variant.
    exec(&mut s, "CREATE TABLE sbtest1(\n  id INTEGER NOT NULL AUTO_INCREMENT,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) /*! ENGINE = innodb */ ").await;
    exec(&mut s, "CREATE TABLE sbtest2(id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, KEY xid (id)) /*! ENGINE = innodb */").await;
    let cat = db.engine.catalog();
    assert!(cat.table("test", "sbtest2").unwrap().has_hidden_pk());
    assert_eq!(cat.table("test", "sbtest1").unwrap().columns[1].default, ColumnDefault::Value(Datum::Int(0)));
}

#[tokio::test]
async fn validation_errors_match_mariadb() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE t (a INT)").await;
    for (sql, code, msg) in [
        ("CREATE TABLE t (a INT)", 1050, "Table 't' already exists"),
        ("CREATE TABLE t2 (a INT, a INT)", 1060, "Duplicate column name 'a'"),
        ("CREATE TABLE t2 (a INT PRIMARY KEY, b INT PRIMARY KEY)", 1068, "Multiple primary key defined"),
        ("CREATE TABLE t2 (a INT AUTO_INCREMENT)", 1075, "Incorrect table definition; there can be only one auto column and it must be defined as a key"),
        ("CREATE TABLE t2 (a INT, b INT AUTO_INCREMENT, KEY (a, b))", 1075, "Incorrect table definition; there can be only one auto column and it must be defined as a key"),
        ("CREATE TABLE t2 (a TEXT, PRIMARY KEY (a))", 1170, "BLOB/TEXT column 'a' used in key specification without a key length"),
        ("CREATE TABLE t2 (a INT DEFAULT 'x')", 1067, "Invalid default value for 'a'"),
        ("CREATE TABLE t2 (a INT NOT NULL DEFAULT NULL)", 1067, "Invalid default value for 'a'"),
        ("CREATE TABLE t2 (a DATETIME DEFAULT 'x')", 1067, "Invalid default value for 'a'"),
        ("CREATE TABLE t2 (a INT NOT NULL AUTO_INCREMENT DEFAULT 5, KEY (a))", 1067, "Invalid default value for 'a'"),
        ("CREATE TABLE t2 (a VARCHAR(70000))", 1074, "Column length too big for column 'a' (max = 16383); use BLOB or TEXT instead"),
        ("CREATE TABLE t2 (a CHAR(300))", 1074, "Column length too big for column 'a' (max = 255); use BLOB or TEXT instead"),
        ("CREATE TABLE t2 (a VARCHAR(2000), PRIMARY KEY (a))", 1071, "Specified key was too long; max key length is 3072 bytes"),
        ("CREATE TABLE t2 (a INT, KEY (b))", 1072, "Key column 'b' doesn't exist in table"),
        ("CREATE TABLE t2 (a INT, KEY (a(3)))", 1089, "Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the storage engine doesn't support unique prefix keys"),
        ("CREATE TABLE t2 (a VARCHAR(5) AUTO_INCREMENT PRIMARY KEY)", 1063, "Incorrect column specifier for column 'a'"),
        ("CREATE TABLE t2 (a INT, KEY `PRIMARY` (a))", 1280, "Incorrect index name 'PRIMARY'"),
        ("CREATE TABLE t2 (a INT, b INT, KEY k (a), KEY k (b))", 1061, "Duplicate key name 'k'"),
        ("CREATE TABLE `t2 ` (a INT)", 1103, "Incorrect table name 't2 '"),
        ("CREATE TABLE t2 (`a ` INT)", 1166, "Incorrect column name 'a '"),
        ("CREATE TABLE nosuchdb.t2 (a INT)", 1049, "Unknown database 'nosuchdb'"),
        ("DROP TABLE nosuch", 1051, "Unknown table 'test.nosuch'"),
        ("DROP TABLE nosuch, t9", 1051, "Unknown table 'test.nosuch,test.t9'"),
        ("DROP DATABASE nosuch", 1008, "Can't drop database 'nosuch'; database doesn't exist"),
        ("CREATE DATABASE test", 1007, "Can't create database 'test'; database exists"),
        ("CREATE INDEX i ON nosuch (a)", 1146, "Table 'test.nosuch' doesn't exist"),
        ("CREATE INDEX i ON t (nosuch)", 1072, "Key column 'nosuch' doesn't exist in table"),
        ("DROP INDEX nosuch ON t", 1091, "Can't DROP INDEX `nosuch`; check that it exists"),
        ("TRUNCATE TABLE nosuch", 1146, "Table 'test.nosuch' doesn't exist"),
        ("RENAME TABLE nosuch TO t9", 1146, "Table 'test.nosuch' doesn't exist"),
        ("ALTER TABLE t ADD COLUMN a INT", 1060, "Duplicate column name 'a'"),
        ("ALTER TABLE t DROP COLUMN nosuch", 1091, "Can't DROP COLUMN `nosuch`; check that it exists"),
    ] {
        let e = fail(&mut s, sql).await;
        assert_eq!((e.code, e.message.as_str()), (code, msg), "{sql}");
    }
    // The dropped-existing table of a partly failing DROP is gone, as in MariaDB.
    exec(&mut s, "CREATE TABLE t3 (a INT)").await;
    let e = fail(&mut s, "DROP TABLE t3, nosuch").await;
    assert_eq!(e.message, "Unknown table 'test.nosuch'");
    assert!(db.engine.catalog().table("test", "t3").is_none());
    // A long non-unique key becomes a prefix with note 1071.
    let ok = exec(&mut s, "CREATE TABLE long_key (a VARCHAR(2000), b TEXT, KEY (a), KEY (b))").await;
    assert_eq!(ok.warnings, 2);
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await[0],
        vec!["Note", "1071", "Specified key was too long; max key length is 3072 bytes"]
    );
    let cat = db.engine.catalog();
    let t = cat.table("test", "long_key").unwrap();
    assert_eq!(t.secondary[0].columns[0].prefix_len, Some(3072), "768 characters, kept as utf8mb4 bytes");
    // IF [NOT] EXISTS turn errors into notes.
    let ok = exec(&mut s, "CREATE TABLE IF NOT EXISTS t (a INT)").await;
    assert_eq!(ok.warnings, 1);
    assert_eq!(query(&mut s, "SHOW WARNINGS").await, rows(&[&["Note", "1050", "Table 't' already exists"]]));
    let ok = exec(&mut s, "DROP TABLE IF EXISTS nosuch, t").await;
    assert_eq!(ok.warnings, 1);
    assert_eq!(query(&mut s, "SHOW WARNINGS").await, rows(&[&["Note", "1051", "Unknown table 'test.nosuch'"]]));
    let ok = exec(&mut s, "CREATE DATABASE IF NOT EXISTS test").await;
    assert_eq!((ok.affected_rows, ok.warnings), (0, 1));
    let ok = exec(&mut s, "DROP DATABASE IF EXISTS nosuch").await;
    assert_eq!((ok.affected_rows, ok.warnings), (0, 1));
}

#[tokio::test]
async fn indexes_truncate_rename_like_databases() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a INT, b VARCHAR(10))").await;
    exec(&mut s, "INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y'), (2, 'z')").await;
    exec(&mut s, "CREATE INDEX ia ON t (a)").await;
    exec(&mut s, "ALTER TABLE t ADD UNIQUE KEY ub (b), ADD KEY (a, b)").await;
    let names = |db: &TestDb| {
        db.engine.catalog().table("test", "t").unwrap().secondary.iter().map(|i| i.name.clone()).collect::<Vec<_>>()
    };
    assert_eq!(names(&db), vec!["ia", "ub", "a"]);
    assert_eq!(query(&mut s, "SELECT id FROM t WHERE a = 2 ORDER BY id").await, rows(&[&["2"], &["3"]]));
    let e = fail(&mut s, "CREATE UNIQUE INDEX ua ON t (a)").await;
    assert_eq!((e.code, e.message.as_str()), (1062, "Duplicate entry '2' for key 'ua'"));
    let e = fail(&mut s, "CREATE INDEX ia ON t (b)").await;
    assert_eq!((e.code, e.message.as_str()), (1061, "Duplicate key name 'ia'"));
    exec(&mut s, "ALTER TABLE t DROP INDEX ia, DROP INDEX a").await;
    exec(&mut s, "DROP INDEX ub ON t").await;
    assert!(names(&db).is_empty());
    // TRUNCATE empties the table and restarts AUTO_INCREMENT.
    exec(&mut s, "TRUNCATE t").await;
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM t").await, rows(&[&["0"]]));
    assert_eq!(exec(&mut s, "INSERT INTO t (a) VALUES (5)").await.last_insert_id, 1);
    // RENAME and CREATE TABLE ... LIKE.
    exec(&mut s, "RENAME TABLE t TO t2").await;
    assert_eq!(query(&mut s, "SELECT a FROM t2").await, rows(&[&["5"]]));
    exec(&mut s, "CREATE TABLE t3 LIKE t2").await;
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM t3").await, rows(&[&["0"]]));
    assert_eq!(exec(&mut s, "INSERT INTO t3 (a) VALUES (1)").await.last_insert_id, 1);
    // Databases: CREATE SCHEMA, USE, DROP DATABASE (affected rows = tables dropped).
    exec(&mut s, "CREATE SCHEMA other CHARACTER SET utf8mb4").await;
    exec(&mut s, "USE other").await;
    assert_eq!(s.current_database(), Some("other"));
    exec(&mut s, "CREATE TABLE x (a INT)").await;
    exec(&mut s, "CREATE TABLE test.y (a INT)").await;
    let ok = exec(&mut s, "DROP DATABASE other").await;
    assert_eq!(ok.affected_rows, 1);
    assert_eq!(s.current_database(), None);
    assert!(db.engine.catalog().table("test", "y").is_some());
}

#[tokio::test]
async fn table_maintenance_result_sets() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE t (a INT)").await;
    let r = run(&mut s, "ANALYZE TABLE t").await.unwrap();
    let Res::Rows { columns, rows: got, .. } = &r[0] else { panic!("{r:?}") };
    let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["Table", "Op", "Msg_type", "Msg_text"]);
    assert_eq!(
        got.iter().map(|r| r.iter().map(|v| text(v, None)).collect::<Vec<_>>()).collect::<Vec<_>>(),
        rows(&[&["test.t", "analyze", "status", "OK"]])
    );
    // InnoDB's answer: a rebuild (MariaDB 10.11 gives these two rows).
    assert_eq!(
        query(&mut s, "OPTIMIZE TABLE t").await,
        rows(&[
            &["test.t", "optimize", "note", "Table does not support optimize, doing recreate + analyze instead"],
            &["test.t", "optimize", "status", "OK"]
        ])
    );
    assert_eq!(
        query(&mut s, "CHECK TABLE t, nosuch").await,
        rows(&[
            &["test.t", "check", "status", "OK"],
            &["test.nosuch", "check", "Error", "Table 'test.nosuch' doesn't exist"],
            &["test.nosuch", "check", "status", "Operation failed"],
        ])
    );
    assert_eq!(
        query(&mut s, "REPAIR TABLE t").await,
        rows(&[&["test.t", "repair", "note", "The storage engine for the table doesn't support repair"]])
    );
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
