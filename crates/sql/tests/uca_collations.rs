//! The UCA collations (`*_unicode_ci`, `*_unicode_520_ci`, MariaDB's language collations) in
//! SQL: comparisons, ORDER BY, UNIQUE and index lookups on their sort keys. Results checked
//! against MariaDB 10.11.

use crate::common;
use common::*;

fn ids(r: Vec<Vec<String>>) -> String {
    r.into_iter().map(|r| r[0].clone()).collect::<Vec<_>>().join(",")
}

#[tokio::test]
async fn unicode_ci_index_keys_expand_and_serve_lookups() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE u (id INT PRIMARY KEY, w VARCHAR(20) COLLATE utf8mb4_unicode_ci, UNIQUE KEY w (w))")
        .await;
    exec(&mut s, "INSERT INTO u VALUES (1, 'ss')").await;
    // 'ß' = 'ss' under UCA (it was 's' under general_ci).
    let e = fail(&mut s, "INSERT INTO u VALUES (2, 'ß')").await;
    assert_eq!((e.code, e.message.as_str()), (1062, "Duplicate entry 'ß' for key 'w'"));
    let e = fail(&mut s, "INSERT INTO u VALUES (2, 'SS  ')").await;
    assert_eq!(e.code, 1062);
    exec(&mut s, "INSERT INTO u VALUES (3,'zebra'),(4,'Ärger'),(5,'æble'),(6,'ab'),(7,'b'),(8,'ñu'),(9,'nz'),(10,'s')")
        .await;
    let e = query(&mut s, "EXPLAIN SELECT id FROM u WHERE w = 'SS'").await;
    assert_eq!(e[0][5].as_str(), "w");
    assert_eq!(ids(query(&mut s, "SELECT id FROM u WHERE w = 'ß'").await), "1");
    assert_eq!(ids(query(&mut s, "SELECT id FROM u WHERE w = 'S'").await), "10");
    assert_eq!(ids(query(&mut s, "SELECT id FROM u ORDER BY w").await), "6,4,5,7,8,9,10,1,3");
    assert_eq!(ids(query(&mut s, "SELECT id FROM u WHERE w > 'a' AND w < 'az' ORDER BY id").await), "4,6");
    assert_eq!(ids(query(&mut s, "SELECT id FROM u WHERE w LIKE 'ä%' ORDER BY id").await), "4,6");
    assert_eq!(ids(query(&mut s, "SELECT id FROM u WHERE w >= 'ß' ORDER BY id").await), "1,3");
    // Under Spanish, ñ sorts after n.
    assert_eq!(
        ids(query(&mut s, "SELECT id FROM u WHERE id IN (8, 9) ORDER BY w COLLATE utf8mb4_spanish_ci").await),
        "9,8"
    );
}

#[tokio::test]
async fn language_collations_are_known_and_shown() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE e (id INT PRIMARY KEY, v VARCHAR(10) CHARACTER SET utf8mb3 COLLATE utf8mb3_esperanto_ci, KEY v (v))")
        .await;
    exec(&mut s, "INSERT INTO e VALUES (1,'ĉapelo'),(2,'cxapelo'),(3,'dento'),(4,'celo'),(5,'Ĉu')").await;
    assert_eq!(ids(query(&mut s, "SELECT id FROM e ORDER BY v, id").await), "4,2,1,5,3");
    assert_eq!(ids(query(&mut s, "SELECT id FROM e WHERE v > 'cz' ORDER BY id").await), "1,3,5");
    let create = query(&mut s, "SHOW CREATE TABLE e").await;
    assert!(
        create[0][1].contains("`v` varchar(10) CHARACTER SET utf8mb3 COLLATE utf8mb3_esperanto_ci DEFAULT NULL"),
        "{}",
        create[0][1]
    );
    assert_eq!(
        query(&mut s, "SHOW COLLATION LIKE 'utf8mb4_esperanto%'").await,
        rows(&[&["utf8mb4_esperanto_ci", "utf8mb4", "241", "", "Yes", "8"]])
    );
    assert_eq!(
        query(&mut s, "SELECT COLLATION(_utf8mb4'x' COLLATE utf8mb4_czech_ci), 'ch' COLLATE utf8mb4_czech_ci > 'hz'")
            .await,
        rows(&[&["utf8mb4_czech_ci", "1"]])
    );
}

#[tokio::test]
async fn weight_string_as_mariadb() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    assert_eq!(
        query(
            &mut s,
            "SELECT HEX(WEIGHT_STRING('ab ' COLLATE utf8mb4_unicode_ci)), HEX(WEIGHT_STRING('ß' COLLATE \
             utf8mb4_unicode_520_ci)), HEX(WEIGHT_STRING('ab')), HEX(WEIGHT_STRING('aé ' COLLATE utf8mb4_bin)), \
             HEX(WEIGHT_STRING(_binary'ab ')), WEIGHT_STRING(12), WEIGHT_STRING(NULL), HEX(WEIGHT_STRING('ch' COLLATE \
             utf8mb4_czech_ci))"
        )
        .await,
        rows(&[&["0E330E4A0209", "14101410", "00410042", "0000610000E9000020", "616220", "NULL", "NULL", "0EE2"]])
    );
    let (cols, _) = result(&mut s, "SELECT WEIGHT_STRING('ab' COLLATE utf8mb4_unicode_ci), WEIGHT_STRING('ab')").await;
    assert_eq!((cols[0].length, cols[1].length), (32, 4));
    assert_eq!(cols[0].charset, 63);
}

#[tokio::test]
async fn weight_string_lengths() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let (cols, _) = result(
        &mut s,
        "SELECT WEIGHT_STRING('xy' COLLATE utf8mb4_bin), WEIGHT_STRING(_utf8mb3'x' COLLATE utf8mb3_bin)",
    )
    .await;
    assert_eq!((cols[0].length, cols[1].length), (6, 2));
}
