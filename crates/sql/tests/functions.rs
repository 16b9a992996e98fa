//! Functions through the whole pipeline (parse, bind, plan, execute) where binding decides how
//! they run: REGEXP's case sensitivity from the operands' collation, a constant bad pattern
//! refused before any row is read, `!`, TIME results' fractional digits from the result type,
//! JSON_ARRAYAGG/JSON_OBJECTAGG as GROUP_CONCATs. Expected values checked on MariaDB 10.11
//! (tests/corpus/functions_regexp.sql and functions_misc15.sql hold the full comparisons).

use crate::common;
use common::*;

#[tokio::test]
async fn regexp_follows_the_operands_collation() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(
        &mut s,
        "CREATE TABLE r (id INT PRIMARY KEY, s VARCHAR(20), b VARBINARY(20), c VARCHAR(20) COLLATE utf8mb4_bin)",
    )
    .await;
    exec(
        &mut s,
        "INSERT INTO r VALUES (1, 'Apple', 'Apple', 'Apple'), (2, 'banana', 'banana', 'banana'), (3, NULL, NULL, NULL)",
    )
    .await;
    assert_eq!(query(&mut s, "SELECT id FROM r WHERE s REGEXP '^a' ORDER BY id").await, rows(&[&["1"]]));
    assert_eq!(query(&mut s, "SELECT id FROM r WHERE b REGEXP '^a' ORDER BY id").await, rows(&[]));
    assert_eq!(query(&mut s, "SELECT id FROM r WHERE c RLIKE '^b' ORDER BY id").await, rows(&[&["2"]]));
    assert_eq!(
        query(&mut s, "SELECT id, s NOT REGEXP 'an', REGEXP_REPLACE(s, '[aeiou]', '_') FROM r ORDER BY id").await,
        rows(&[&["1", "1", "_ppl_"], &["2", "0", "b_n_n_"], &["3", "NULL", "NULL"]])
    );
    assert_eq!(
        query(&mut s, "SELECT 'a' REGEXP NULL h, 'é' REGEXP 'É', 'ÄB' REGEXP '^.b$'").await,
        rows(&[&["NULL", "1", "1"]])
    );
    let e = fail(&mut s, "SELECT id FROM r WHERE 0 AND s REGEXP '(a'").await;
    assert_eq!((e.code, e.message.as_str()), (1139, "Regex error 'missing closing parenthesis at offset 2'"));
    // A computed bad pattern is NULL, without an error.
    assert_eq!(query(&mut s, "SELECT 'x' REGEXP concat('(', s) FROM r WHERE id = 1").await, rows(&[&["NULL"]]));
}

#[tokio::test]
async fn bang_time_digits_and_json_aggregates() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    assert_eq!(
        query(&mut s, "SELECT !1, !0, !NULL, !1 + 1, !!5, 1 != 2").await,
        rows(&[&["0", "1", "NULL", "1", "1", "1"]])
    );
    exec(&mut s, "CREATE TABLE tt (id INT PRIMARY KEY, t TIME, s VARCHAR(30))").await;
    exec(&mut s, "INSERT INTO tt VALUES (1, '10:00:00', '01:30:00')").await;
    assert_eq!(
        query(&mut s, "SELECT TIMEDIFF(t, s), TIMEDIFF(t, '01:30:00'), SEC_TO_TIME(4000000) FROM tt").await,
        rows(&[&["08:30:00.000000", "08:30:00", "838:59:59"]])
    );
    exec(&mut s, "CREATE TABLE j (a INT, b VARCHAR(10))").await;
    exec(&mut s, "INSERT INTO j VALUES (1, 'x'), (3, NULL), (1, 'y')").await;
    assert_eq!(
        query(
            &mut s,
            "SELECT JSON_ARRAYAGG(b), JSON_OBJECTAGG(b, a), JSON_ARRAYAGG(DISTINCT a ORDER BY a DESC) FROM j"
        )
        .await,
        rows(&[&[r#"["x",null,"y"]"#, r#"{"x":1, "y":1}"#, "[3,1]"]])
    );
}
