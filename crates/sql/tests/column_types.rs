//! Column types beyond the basic ones, as MariaDB 10.11 stores, shows and describes them:
//! UNSIGNED and (M,D) floating point, DECIMAL up to 65 digits declared, ZEROFILL, BOOLEAN.
//! Every expectation was checked against MariaDB 10.11 (values, warnings, errors, metadata).

use crate::common;
use common::*;
use selkie_protocol::constants::FieldType;
use selkie_storage::ColumnType;

#[tokio::test]
async fn unsigned_and_fixed_floating_point() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(
        &mut s,
        "CREATE TABLE f (a DOUBLE UNSIGNED, b FLOAT UNSIGNED, c DECIMAL(5,2) UNSIGNED, d REAL, e REAL SIGNED,
         g FLOAT(7,2), h DOUBLE(8,3), i FLOAT(30), j FLOAT(10), k DECIMAL(65,30), m BOOLEAN)",
    )
    .await;
    let cat = db.engine.catalog();
    let t = cat.table("test", "f").unwrap();
    assert_eq!(t.columns[0].ty, ColumnType::Double { unsigned: true, digits: None });
    assert_eq!(t.columns[5].ty, ColumnType::Float { unsigned: false, digits: Some((7, 2)) });
    assert_eq!(t.columns[7].ty, ColumnType::DOUBLE, "FLOAT(25..53) is DOUBLE");
    assert_eq!(t.columns[8].ty, ColumnType::FLOAT);
    let create = query(&mut s, "SHOW CREATE TABLE f").await[0][1].clone();
    for part in [
        "`a` double unsigned DEFAULT NULL",
        "`c` decimal(5,2) unsigned DEFAULT NULL",
        "`e` double DEFAULT NULL",
        "`g` float(7,2) DEFAULT NULL",
        "`h` double(8,3) DEFAULT NULL",
        "`k` decimal(65,30) DEFAULT NULL",
        "`m` tinyint(1) DEFAULT NULL",
    ] {
        assert!(create.contains(part), "{part} in {create}");
    }

    exec(&mut s, "SET sql_mode=''").await;
    exec(&mut s, "INSERT INTO f (a, b, c, g, h, k) VALUES (-5, -5, -5, 12345.678, 1.23456, 1.5)").await;
    let w = query(&mut s, "SHOW WARNINGS").await;
    assert_eq!(w.len(), 3, "{w:?}");
    assert_eq!(w[0], ["Warning", "1264", "Out of range value for column 'a' at row 1"]);
    assert_eq!(
        query(&mut s, "SELECT a, b, c, g, h, k FROM f").await,
        rows(&[&["0", "0", "0.00", "12345.6796875", "1.2349999999999999", "1.500000000000000000000000000000"]])
    );

    exec(&mut s, "SET sql_mode='STRICT_TRANS_TABLES'").await;
    assert_eq!(fail(&mut s, "INSERT INTO f (a) VALUES (-5)").await.code, 1264);
    assert_eq!(fail(&mut s, "INSERT INTO f (c) VALUES (-1)").await.code, 1264);
    assert_eq!(fail(&mut s, "INSERT INTO f (g) VALUES (123456.7)").await.code, 1264);
}

#[tokio::test]
async fn floating_point_rounds_as_mariadb() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE r (a DOUBLE(8,2), b FLOAT(7,0), c DOUBLE(5,1) UNSIGNED, d DOUBLE(4,2))").await;
    exec(&mut s, "SET sql_mode=''").await;
    exec(
        &mut s,
        "INSERT INTO r VALUES (1.005, 2.5, 3.45, 99.999), (-1.005, 3.5, -1, -99.995), (0.125, 0.5, 0.05, 1.115)",
    )
    .await;
    // The values; the server prints them with the column's D digits ("1.00", "0.0").
    assert_eq!(
        query(&mut s, "SELECT a, b, c, d FROM r").await,
        rows(&[&["1", "2", "3.5", "99.99"], &["-1", "3", "0", "-99.99"], &["0.12", "0", "0", "1.12"]])
    );
}

#[tokio::test]
async fn type_limits_have_mariadb_errors() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let cases = [
        ("a DECIMAL(66,2)", 1426, "Too big precision specified for 'a'. Maximum is 65"),
        ("a DECIMAL(65,39)", 1425, "Too big scale specified for 'a'. Maximum is 38"),
        ("a FLOAT(256,2)", 1439, "Display width out of range for 'a' (max = 255)"),
        ("a FLOAT(40,31)", 1425, "Too big scale specified for 'a'. Maximum is 30"),
        ("a FLOAT(10,31)", 1427, "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column 'a')"),
        ("a FLOAT(54)", 1063, "Incorrect column specifier for column 'a'"),
        ("a DOUBLE(5)", 1064, ""),
    ];
    for (col, code, msg) in cases {
        let e = fail(&mut s, &format!("CREATE TABLE x ({col})")).await;
        assert_eq!(e.code, code, "{col}: {}", e.message);
        if !msg.is_empty() {
            assert_eq!(e.message, msg);
        }
    }
}

#[tokio::test]
async fn zerofill_is_unsigned_and_kept() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE z (l INT(5) ZEROFILL, n FLOAT ZEROFILL, o DECIMAL(6,2) UNSIGNED ZEROFILL NOT NULL)")
        .await;
    let cat = db.engine.catalog();
    let t = cat.table("test", "z").unwrap();
    assert!(t.columns.iter().all(|c| c.zerofill && c.ty.is_unsigned()));
    let create = query(&mut s, "SHOW CREATE TABLE z").await[0][1].clone();
    assert!(create.contains("`l` int(5) unsigned zerofill DEFAULT NULL"), "{create}");
    assert!(create.contains("`n` float unsigned zerofill DEFAULT NULL"), "{create}");
    assert!(create.contains("`o` decimal(6,2) unsigned zerofill NOT NULL"), "{create}");
    assert_eq!(
        query(
            &mut s,
            "SELECT COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_NAME = 'z' ORDER BY ORDINAL_POSITION"
        )
        .await,
        rows(&[&["int(5) unsigned zerofill"], &["float unsigned zerofill"], &["decimal(6,2) unsigned zerofill"]])
    );
    let (meta, _) = result(&mut s, "SELECT l, n, o FROM z").await;
    assert!(meta.iter().all(|m| m.flags & 64 != 0), "ZEROFILL_FLAG on every column");
}

#[tokio::test]
async fn year_maps_two_digit_years_and_clips() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE y (id INT AUTO_INCREMENT PRIMARY KEY, a YEAR)").await;
    exec(&mut s, "SET sql_mode=''").await;
    exec(
        &mut s,
        "INSERT INTO y (a) VALUES (0),(1),(69),(70),(99),(100),(2155),(2156),('0'),('0000'),('abc'),('12abc'),(1.5)",
    )
    .await;
    let w = query(&mut s, "SHOW WARNINGS").await;
    assert_eq!(w[0], ["Warning", "1264", "Out of range value for column 'a' at row 6"]);
    assert_eq!(w[2], ["Warning", "1366", "Incorrect integer value: 'abc' for column `test`.`y`.`a` at row 11"]);
    assert_eq!(w[3], ["Warning", "1265", "Data truncated for column 'a' at row 12"]);
    assert_eq!(
        query(&mut s, "SELECT a FROM y ORDER BY id").await.concat(),
        ["0", "2001", "2069", "1970", "1999", "0", "2155", "0", "2000", "0", "0", "2012", "2002"]
    );
    let (meta, _) = result(&mut s, "SELECT a FROM y").await;
    assert_eq!((meta[0].field_type, meta[0].length, meta[0].flags & (32 | 64)), (FieldType::Year, 4, 32 | 64));
    assert!(query(&mut s, "SHOW CREATE TABLE y").await[0][1].contains("`a` year(4) DEFAULT NULL"));
    exec(&mut s, "SET sql_mode='STRICT_TRANS_TABLES'").await;
    assert_eq!(fail(&mut s, "INSERT INTO y (a) VALUES (2156)").await.code, 1264);
}

#[tokio::test]
async fn time_range_fractions_and_literals() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE tt (id INT AUTO_INCREMENT PRIMARY KEY, a TIME, b TIME(3))").await;
    exec(&mut s, "SET sql_mode=''").await;
    exec(
        &mut s,
        "INSERT INTO tt (a, b) VALUES ('10:11:12', '10:11:12.3456'), ('-1 02:03:04', '1 02:03:04.5'),
         ('101112', 101112.125), ('839:00:00', '-900:00:00'), ('abc', '1:2'), ('12:60:00', '11'),
         ('2024-01-02 03:04:05', 3.999), (1.5, -1)",
    )
    .await;
    let w = query(&mut s, "SHOW WARNINGS").await;
    assert_eq!(w[0], ["Warning", "1264", "Out of range value for column 'a' at row 4"]);
    assert_eq!(w[2], ["Warning", "1265", "Data truncated for column 'a' at row 5"]);
    assert_eq!(
        query(&mut s, "SELECT a, b FROM tt ORDER BY id").await,
        rows(&[
            &["10:11:12", "10:11:12.345"],
            &["-26:03:04", "26:03:04.500"],
            &["10:11:12", "10:11:12.125"],
            &["838:59:59", "-838:59:59.999"],
            &["00:00:00", "01:02:00.000"],
            &["00:00:00", "00:00:11.000"],
            &["03:04:05", "00:00:03.999"],
            &["00:00:01", "-00:00:01.000"],
        ])
    );
    let (meta, _) = result(&mut s, "SELECT a, b FROM tt").await;
    assert_eq!((meta[0].field_type, meta[0].length, meta[1].length, meta[1].decimals), (FieldType::Time, 10, 14, 3));
    exec(&mut s, "SET sql_mode='STRICT_TRANS_TABLES'").await;
    for bad in ["'abc'", "'839:00:00'", "'12:60:00'"] {
        let e = fail(&mut s, &format!("INSERT INTO tt (a) VALUES ({bad})")).await;
        assert_eq!(e.code, 1292, "{bad}");
        assert!(e.message.starts_with("Incorrect time value: "), "{}", e.message);
    }
}

#[tokio::test]
async fn enum_set_and_json_columns() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(
        &mut s,
        "CREATE TABLE e (id INT AUTO_INCREMENT PRIMARY KEY, a ENUM('x','yy','Zz') NOT NULL, b SET('a','b','c'), j JSON)",
    )
    .await;
    let create = query(&mut s, "SHOW CREATE TABLE e").await[0][1].clone();
    assert!(create.contains("`a` enum('x','yy','Zz') NOT NULL,"), "{create}");
    assert!(create.contains("`b` set('a','b','c') DEFAULT NULL,"), "{create}");
    assert!(
        create.contains("`j` longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL CHECK (json_valid(`j`))"),
        "{create}"
    );
    exec(&mut s, "SET sql_mode=''").await;
    exec(
        &mut s,
        "INSERT INTO e (a, b, j) VALUES ('yy','c,a','{\"k\":1}'), ('Zz','a,a,b','[1,2]'), ('bad','x,a','1'), (2, 5, 'null')",
    )
    .await;
    assert_eq!(query(&mut s, "SHOW WARNINGS").await.len(), 2);
    exec(&mut s, "INSERT INTO e (b) VALUES ('b')").await;
    assert_eq!(
        query(&mut s, "SELECT a, b, j FROM e ORDER BY id").await,
        rows(&[
            &["yy", "a,c", "{\"k\":1}"],
            &["Zz", "a,b", "[1,2]"],
            &["", "a", "1"],
            &["yy", "a,c", "null"],
            &["x", "b", "NULL"]
        ])
    );
    let e = fail(&mut s, "INSERT INTO e (j) VALUES ('{bad')").await;
    assert_eq!((e.code, e.message.as_str()), (4025, "CONSTRAINT `e.j` failed for `test`.`e`"));
    let (meta, _) = result(&mut s, "SELECT a, b FROM e").await;
    assert_eq!((meta[0].field_type, meta[0].flags & 256, meta[1].flags & 2048), (FieldType::String, 256, 2048));
    exec(&mut s, "SET sql_mode='STRICT_TRANS_TABLES'").await;
    assert_eq!(fail(&mut s, "INSERT INTO e (a) VALUES ('nope')").await.code, 1265);
    assert_eq!(fail(&mut s, "INSERT INTO e (b) VALUES ('a,nope')").await.code, 1265);
}

#[tokio::test]
async fn uuid_and_inet_columns() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE u (id INT PRIMARY KEY, a UUID, b INET4, c INET6)").await;
    exec(&mut s, "SET sql_mode=''").await;
    exec(
        &mut s,
        "INSERT INTO u VALUES (1, '123E4567-E89B-12D3-A456-426614174000', '192.168.0.1', '2001:DB8::1'),
         (2, '123e4567e89b12d3a456426614174000', '10.0.0.256', '::ffff:1.2.3.4')",
    )
    .await;
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[&["Warning", "1292", "Incorrect inet4 value: '10.0.0.256' for column `test`.`u`.`b` at row 2"]])
    );
    assert_eq!(
        query(&mut s, "SELECT a, b, c FROM u ORDER BY id").await,
        rows(&[
            &["123e4567-e89b-12d3-a456-426614174000", "192.168.0.1", "2001:db8::1"],
            &["123e4567-e89b-12d3-a456-426614174000", "NULL", "::ffff:1.2.3.4"],
        ])
    );
    exec(&mut s, "SET sql_mode='STRICT_TRANS_TABLES'").await;
    assert_eq!(fail(&mut s, "INSERT INTO u (id, a) VALUES (3, 'bad')").await.code, 1292);
    let e = fail(&mut s, "INSERT INTO u (id, a) VALUES (3, 12)").await;
    assert_eq!((e.code, e.message.as_str()), (4078, "Cannot cast 'int' as 'uuid' in assignment of `test`.`u`.`a`"));
    assert!(query(&mut s, "SHOW CREATE TABLE u").await[0][1].contains("`a` uuid DEFAULT NULL"));
}

#[tokio::test]
async fn time_operands_compare_sort_and_compute_as_times() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE tc (id INT PRIMARY KEY, a TIME, b TIME(3))").await;
    exec(
        &mut s,
        "INSERT INTO tc VALUES (1, '10:11:12', '10:11:12.345'), (2, '-26:03:04', '26:03:04.5'),
         (3, '838:59:59', '-838:59:59.999'), (4, '00:00:01', '-00:00:01'), (5, '9:00', '99:00:00'),
         (6, '100:00:00', '00:00:00')",
    )
    .await;
    assert_eq!(
        query(&mut s, "SELECT a + 0, b + 0, a < '9:00:00' FROM tc WHERE id <= 2 ORDER BY id").await,
        rows(&[&["101112", "101112.345", "0"], &["-260304", "260304.500", "1"]])
    );
    assert_eq!(query(&mut s, "SELECT id FROM tc ORDER BY a, id").await.concat(), ["2", "4", "5", "1", "6", "3"]);
    assert_eq!(
        query(&mut s, "SELECT id FROM tc WHERE b BETWEEN '-1:00' AND '1:00' ORDER BY id").await.concat(),
        ["4", "6"]
    );
    assert_eq!(
        query(&mut s, "SELECT MIN(a), MAX(a), MIN(b) FROM tc").await,
        rows(&[&["-26:03:04", "838:59:59", "-838:59:59.999"]])
    );
    assert_eq!(
        query(&mut s, "SELECT CAST('abc' AS TIME), CAST('10:11:12.5' AS TIME(2)), CAST('-1 02:03:04' AS TIME)").await,
        rows(&[&["NULL", "10:11:12.50", "-26:03:04"]])
    );
}

#[tokio::test]
async fn enum_is_its_index_for_numbers_and_order() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE ei (id INT PRIMARY KEY, a ENUM('x','yy','Zz') NOT NULL, c ENUM('p','q'))").await;
    exec(&mut s, "SET sql_mode=''").await;
    exec(&mut s, "INSERT INTO ei VALUES (1, 'yy', 'q'), (2, 'Zz', NULL), (3, 'bad', 'p'), (4, 2, 'q'), (5, 'x', 'p')")
        .await;
    assert_eq!(
        query(&mut s, "SELECT a + 0, c + 0, a = 2, a = 'yy' FROM ei ORDER BY id").await,
        rows(&[
            &["2", "2", "1", "1"],
            &["3", "NULL", "0", "0"],
            &["0", "1", "0", "0"],
            &["2", "2", "1", "1"],
            &["1", "1", "0", "0"]
        ])
    );
    // Index order, not text order ('Zz' < 'x' as bytes).
    assert_eq!(query(&mut s, "SELECT id FROM ei ORDER BY a, id").await.concat(), ["3", "5", "1", "4", "2"]);
}

/// BIT(n): a number of n bits (arithmetic, comparison, BIN, the index), sent as big-endian
/// bytes in a BIT column, with MariaDB's 1406 / 1264 for too many bits and 1439 beyond 64.
#[tokio::test]
async fn bit_columns() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(
        &mut s,
        "CREATE TABLE b (id INT PRIMARY KEY, f BIT NOT NULL DEFAULT b'0', c BIT(10) DEFAULT b'101', KEY k (c))",
    )
    .await;
    let create = query(&mut s, "SHOW CREATE TABLE b").await[0][1].clone();
    assert!(create.contains("`f` bit(1) NOT NULL DEFAULT b'0'"), "{create}");
    assert!(create.contains("`c` bit(10) DEFAULT b'101'"), "{create}");
    exec(&mut s, "INSERT INTO b VALUES (1, 1, b'1111111111'), (2, 0, 5), (3, 0, 'a')").await;
    exec(&mut s, "INSERT INTO b (id) VALUES (4)").await;
    let (columns, values) = result(&mut s, "SELECT c FROM b WHERE id = 1").await;
    assert_eq!(columns[0].field_type, FieldType::Bit);
    assert_eq!(columns[0].length, 10);
    assert_eq!(values, [[selkie_sql::Value::UInt(1023)]]);
    assert_eq!(
        query(&mut s, "SELECT id, c + 0, BIN(c), c = b'101' FROM b FORCE INDEX (k) WHERE c < 100 ORDER BY c, id").await,
        rows(&[&["2", "5", "101", "1"], &["4", "5", "101", "1"], &["3", "97", "1100001", "0"]])
    );
    assert_eq!(query(&mut s, "SELECT b'101' + 0, 0b101 + 0, 0x41 + 0").await, rows(&[&["5", "5", "65"]]));
    let e = fail(&mut s, "INSERT INTO b VALUES (5, 2, 0)").await;
    assert_eq!((e.code, e.message.as_str()), (1406, "Data too long for column 'f' at row 1"));
    assert_eq!(fail(&mut s, "INSERT INTO b VALUES (5, 0, 1024)").await.code, 1406);
    exec(&mut s, "SET sql_mode = ''").await;
    let ok = exec(&mut s, "INSERT INTO b VALUES (5, 0, 1024)").await;
    assert_eq!(ok.warnings, 1);
    assert_eq!(query(&mut s, "SELECT c + 0 FROM b WHERE id = 5").await, rows(&[&["1023"]]));
    let e = fail(&mut s, "CREATE TABLE b2 (x BIT(65))").await;
    assert_eq!((e.code, e.message.as_str()), (1439, "Display width out of range for 'x' (max = 64)"));
}

/// MariaDB 10.11 notes (1265, in strict mode too) what a store loses harmlessly: digits rounded
/// off a DECIMAL, spaces after a number, spaces cut from a VARCHAR (not a CHAR).
#[tokio::test]
async fn harmless_truncations_are_notes() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE n (i INT, d DECIMAL(5,2), v VARCHAR(3), c CHAR(3))").await;
    exec(&mut s, "INSERT INTO n (d) VALUES ('1.5 '), (1.004), ('1.0050'), (1.5e0), (2.0000)").await;
    let notes = |row: u32, col: &str| {
        vec!["Note".to_string(), "1265".into(), format!("Data truncated for column '{col}' at row {row}")]
    };
    assert_eq!(query(&mut s, "SHOW WARNINGS").await, [notes(1, "d"), notes(2, "d"), notes(3, "d")]);
    exec(&mut s, "INSERT INTO n (i) VALUES ('  42')").await;
    assert!(query(&mut s, "SHOW WARNINGS").await.is_empty());
    exec(&mut s, "INSERT INTO n (i) VALUES ('42 ')").await;
    assert_eq!(query(&mut s, "SHOW WARNINGS").await, [notes(1, "i")]);
    exec(&mut s, "INSERT INTO n (v, c) VALUES ('ab   ', 'ab    ')").await;
    assert_eq!(query(&mut s, "SHOW WARNINGS").await, [notes(1, "v")]);
    query(&mut s, "SELECT CAST(-1 AS UNSIGNED)").await;
    let w = query(&mut s, "SHOW WARNINGS").await;
    assert_eq!(w[0][..2], ["Note", "1105"]);
}
