//! Index keys hold collation sort keys (docs/architecture.md §4.6): UNIQUE and PRIMARY KEY
//! follow the column's collation, index lookups and index order serve `_ci` comparisons, and
//! comparisons in another collation do not take the index for what it is not. Results checked
//! against MariaDB 10.11.

use crate::common;
use common::*;

#[tokio::test]
async fn unique_and_primary_keys_follow_the_collation() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(
        &mut s,
        "CREATE TABLE u (id INT PRIMARY KEY, ci VARCHAR(10) COLLATE utf8mb4_general_ci, \
         bin VARCHAR(10) COLLATE utf8mb4_bin, UNIQUE KEY uci (ci), UNIQUE KEY ubin (bin))",
    )
    .await;
    exec(&mut s, "INSERT INTO u VALUES (1, 'a', 'a')").await;
    let e = fail(&mut s, "INSERT INTO u VALUES (2, 'A', 'b')").await;
    assert_eq!((e.code, e.message.as_str()), (1062, "Duplicate entry 'A' for key 'uci'"));
    let e = fail(&mut s, "INSERT INTO u VALUES (2, 'a  ', 'c')").await;
    assert_eq!(e.code, 1062);
    let e = fail(&mut s, "INSERT INTO u VALUES (2, 'á', 'd')").await;
    assert_eq!(e.code, 1062);
    exec(&mut s, "INSERT INTO u VALUES (2, 'b', 'A')").await;
    // Changing only the case of a unique value keeps its key: allowed, and the row says 'B'.
    exec(&mut s, "UPDATE u SET ci = 'B' WHERE id = 2").await;
    assert_eq!(
        query(&mut s, "SELECT id, ci, bin FROM u ORDER BY id").await,
        rows(&[&["1", "a", "a"], &["2", "B", "A"]])
    );

    exec(&mut s, "CREATE TABLE p (name VARCHAR(10) COLLATE utf8mb4_general_ci PRIMARY KEY, n INT)").await;
    exec(&mut s, "INSERT INTO p VALUES ('Alpha', 1), ('beta', 2)").await;
    let e = fail(&mut s, "INSERT INTO p VALUES ('ALPHA', 3)").await;
    assert_eq!((e.code, e.message.as_str()), (1062, "Duplicate entry 'ALPHA' for key 'PRIMARY'"));
    exec(&mut s, "INSERT INTO p VALUES ('ALPHA', 3) ON DUPLICATE KEY UPDATE n = n + 10").await;
    assert_eq!(query(&mut s, "SELECT name, n FROM p WHERE name = 'alpha'").await, rows(&[&["Alpha", "11"]]));
    exec(&mut s, "REPLACE INTO p VALUES ('BETA', 4)").await;
    assert_eq!(query(&mut s, "SELECT name, n FROM p ORDER BY name").await, rows(&[&["Alpha", "11"], &["BETA", "4"]]));
    assert_eq!(query(&mut s, "SELECT n FROM p WHERE name = 'Beta  '").await, rows(&[&["4"]]));
}

#[tokio::test]
async fn index_lookups_serve_comparisons_in_the_keys_collation() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20) COLLATE utf8mb4_general_ci, KEY name (name))")
        .await;
    exec(&mut s, "INSERT INTO t VALUES (1,'abc'),(2,'ABC'),(3,'Abd'),(4,'b'),(5,'abc '),(6,NULL),(7,'äbc')").await;
    let ids = |r: Vec<Vec<String>>| r.into_iter().map(|r| r[0].clone()).collect::<Vec<_>>().join(",");
    let e = query(&mut s, "EXPLAIN SELECT id FROM t WHERE name = 'ABC'").await;
    assert_eq!((e[0][3].as_str(), e[0][5].as_str()), ("ref", "name"));
    assert_eq!(ids(query(&mut s, "SELECT id FROM t WHERE name = 'ABC' ORDER BY id").await), "1,2,5,7");
    assert_eq!(ids(query(&mut s, "SELECT id FROM t WHERE name IN ('abc', 'ABC', 'b') ORDER BY id").await), "1,2,4,5,7");
    assert_eq!(ids(query(&mut s, "SELECT id FROM t WHERE name > 'ABC' AND name <= 'B' ORDER BY id").await), "3,4");
    assert_eq!(ids(query(&mut s, "SELECT id FROM t WHERE name BETWEEN 'AB' AND 'abc' ORDER BY id").await), "1,2,5,7");
    // In another collation the index (in general_ci order) cannot narrow the scan.
    let e = query(&mut s, "EXPLAIN SELECT id FROM t WHERE name = 'ABC' COLLATE utf8mb4_bin").await;
    assert_eq!(e[0][3].as_str(), "ALL");
    assert_eq!(ids(query(&mut s, "SELECT id FROM t WHERE name = 'ABC' COLLATE utf8mb4_bin").await), "2");
    assert_eq!(
        ids(query(&mut s, "SELECT id FROM t WHERE name COLLATE utf8mb4_bin > 'a' ORDER BY id").await),
        "1,4,5,7"
    );
    // Prepared: the parameter's sort key is the lookup value.
    let p = s.prepare("SELECT id FROM t WHERE name = ? ORDER BY id").unwrap();
    let got = prepared_rows(&mut s, p.statement_id, &[selkie_sql::Value::Bytes(b"AbD".to_vec())]).await;
    assert_eq!(got, rows(&[&["3"]]));
    // Index order is the collation's order; ORDER BY in another collation sorts.
    assert_eq!(
        ids(query(&mut s, "SELECT id FROM t WHERE name IS NOT NULL ORDER BY name, id LIMIT 10").await),
        "1,2,5,7,3,4"
    );
    let e = query(&mut s, "EXPLAIN SELECT id FROM t ORDER BY name LIMIT 2").await;
    assert_eq!(e[0][5].as_str(), "name");
    let e = query(&mut s, "EXPLAIN SELECT id FROM t ORDER BY name COLLATE utf8mb4_bin LIMIT 2").await;
    assert_eq!(e[0][9].as_str(), "Using filesort");
    assert_eq!(
        query(&mut s, "SELECT name FROM t ORDER BY name COLLATE utf8mb4_bin DESC LIMIT 2").await,
        rows(&[&["äbc"], &["b"]])
    );
    assert_eq!(
        query(&mut s, "SELECT name, COUNT(*) FROM t GROUP BY name ORDER BY name").await,
        rows(&[&["NULL", "1"], &["abc", "4"], &["Abd", "1"], &["b", "1"]])
    );
    // A join looks the inner table up by the driver's sort key.
    exec(&mut s, "CREATE TABLE d (v VARCHAR(20) COLLATE utf8mb4_general_ci)").await;
    exec(&mut s, "INSERT INTO d VALUES ('ABD'), ('B')").await;
    assert_eq!(
        query(&mut s, "SELECT d.v, t.id FROM d JOIN t ON t.name = d.v ORDER BY t.id").await,
        rows(&[&["ABD", "3"], &["B", "4"]])
    );
    assert_eq!(
        query(&mut s, "SELECT d.v, t.id FROM d JOIN t ON t.name = d.v COLLATE utf8mb4_bin ORDER BY t.id").await,
        Vec::<Vec<String>>::new()
    );
}

#[tokio::test]
async fn prefix_keys_count_characters_and_deletes_find_their_entries() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE f (id INT PRIMARY KEY, v VARCHAR(20) COLLATE utf8mb4_general_ci, UNIQUE KEY v (v(2)))")
        .await;
    exec(&mut s, "INSERT INTO f VALUES (1, 'éa1')").await;
    let e = fail(&mut s, "INSERT INTO f VALUES (2, 'EA2')").await;
    assert_eq!((e.code, e.message.as_str()), (1062, "Duplicate entry 'EA' for key 'v'"));
    exec(&mut s, "INSERT INTO f VALUES (2, 'eb')").await;
    assert_eq!(query(&mut s, "SELECT id FROM f WHERE v = 'EB'").await, rows(&[&["2"]]));
    exec(&mut s, "DELETE FROM f WHERE v = 'ÉA1'").await;
    exec(&mut s, "INSERT INTO f VALUES (3, 'Ea3')").await;
    assert_eq!(query(&mut s, "SELECT id, v FROM f ORDER BY id").await, rows(&[&["2", "eb"], &["3", "Ea3"]]));
}

#[tokio::test]
async fn new_tables_have_collated_keys() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE k (a INT PRIMARY KEY, b VARCHAR(5))").await;
    let t = db.engine.catalog().table("test", "k").unwrap().clone();
    assert_eq!(t.options.key_format, selkie_storage::KEY_FORMAT_CURRENT);
    exec(&mut s, "ALTER TABLE k ADD UNIQUE KEY b (b), FORCE").await;
    let t = db.engine.catalog().table("test", "k").unwrap().clone();
    assert_eq!(t.options.key_format, selkie_storage::KEY_FORMAT_CURRENT);
}

#[tokio::test]
async fn changing_an_indexed_columns_collation_rebuilds_its_keys() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE m (id INT PRIMARY KEY, v VARCHAR(10) COLLATE utf8mb4_general_ci, KEY v (v))").await;
    exec(&mut s, "INSERT INTO m VALUES (1, 'a'), (2, 'A'), (3, 'b')").await;
    exec(&mut s, "ALTER TABLE m MODIFY v VARCHAR(10) COLLATE utf8mb4_bin").await;
    assert_eq!(query(&mut s, "SELECT id FROM m WHERE v = 'A'").await, rows(&[&["2"]]));
    exec(&mut s, "ALTER TABLE m MODIFY v VARCHAR(10) COLLATE utf8mb4_general_ci, ADD UNIQUE KEY w (id, v)").await;
    assert_eq!(query(&mut s, "SELECT id FROM m WHERE v = 'A' ORDER BY id").await, rows(&[&["1"], &["2"]]));
    let e = fail(&mut s, "ALTER TABLE m ADD UNIQUE KEY u (v)").await;
    assert_eq!((e.code, e.message.as_str()), (1062, "Duplicate entry 'a' for key 'u'"));
}

/// `LIKE 'prefix%'` on an indexed `_ci` column scans the range of sort keys that begin with the
/// prefix's, as MariaDB's range optimizer does, and finds exactly what a full scan finds: case
/// and accents folded, tabs and spaces after the prefix, escaped wildcards, a prefix longer
/// than a PAD SPACE key's first chunk (no range then).
#[tokio::test]
async fn like_prefix_uses_an_index_range() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    for collation in ["utf8mb4_general_ci", "latin1_swedish_ci", "utf8mb4_bin"] {
        let charset = collation.split('_').next().unwrap();
        exec(&mut s, "DROP TABLE IF EXISTS l").await;
        exec(
            &mut s,
            &format!(
                "CREATE TABLE l (id INT PRIMARY KEY, s VARCHAR(20) CHARACTER SET {charset} COLLATE {collation}, KEY (s))"
            ),
        )
        .await;
        exec(
            &mut s,
            "INSERT INTO l VALUES (1, 'abc'), (2, 'ABCd'), (3, 'abd'), (4, 'äbc x'), (5, 'ab'), (6, 'abc '), \
             (7, 'x%y'), (8, 'ab_c'), (9, NULL), (10, 'abc\\t'), (11, 'ABC'), (12, 'ab c'), (13, 'abcdefghijkl'), \
             (14, 'abcdefghijKLm'), (15, 'abcdefghi')",
        )
        .await;
        for pattern in [
            "abc%",
            "ABC%",
            "abc",
            "abc %",
            "ab c%",
            "ab\\\\_c%",
            "x\\\\%%",
            "a%c",
            "ä%",
            "abcdefghij%",
            "abcdefgh%",
            "%",
        ] {
            let indexed = query(&mut s, &format!("SELECT id FROM l WHERE s LIKE '{pattern}' ORDER BY id")).await;
            let scanned =
                query(&mut s, &format!("SELECT id FROM l IGNORE INDEX (s) WHERE s LIKE '{pattern}' ORDER BY id")).await;
            assert_eq!(indexed, scanned, "{collation} {pattern}");
        }
        let plan = query(&mut s, "EXPLAIN SELECT id FROM l WHERE s LIKE 'abc%'").await;
        // Every one of these keys is a sort key (utf8mb4_bin's a PAD SPACE one): LIKE ranges.
        assert_eq!(plan[0][3], "range", "{collation}");
    }
    assert_eq!(
        query(&mut s, "SELECT id FROM l WHERE s LIKE 'abc%' OR s LIKE 'x%' ORDER BY id").await,
        rows(&[&["1"], &["6"], &["7"], &["10"], &["13"], &["14"], &["15"]])
    );
}
