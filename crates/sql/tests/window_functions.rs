//! Window functions (`f(...) OVER (...)`, the WINDOW clause): results, frames and MariaDB's
//! errors, as MariaDB 10.11 gives them (each expected value was checked against it).

use crate::common;
use common::*;
use selkie_sql::Session;

async fn setup() -> (TestDb, Session) {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE a (id INT PRIMARY KEY, g INT, v INT, s VARCHAR(10))").await;
    exec(&mut s, "INSERT INTO a VALUES (1,1,10,'x'),(2,1,20,'y'),(3,2,30,'z'),(4,2,NULL,'w'),(5,2,50,'v')").await;
    (db, s)
}

#[tokio::test]
async fn ranking_and_offset_functions() {
    let (_db, mut s) = setup().await;
    let got = query(
        &mut s,
        "SELECT id, ROW_NUMBER() OVER (ORDER BY id DESC), RANK() OVER (ORDER BY g), DENSE_RANK() OVER (ORDER BY g), \
         PERCENT_RANK() OVER (ORDER BY g), CUME_DIST() OVER (ORDER BY g), NTILE(2) OVER (ORDER BY id), \
         LAG(v) OVER (ORDER BY id), LEAD(v, 2) OVER (ORDER BY id) FROM a ORDER BY id",
    )
    .await;
    assert_eq!(
        got,
        rows(&[
            &["1", "5", "1", "1", "0", "0.4", "1", "NULL", "30"],
            &["2", "4", "1", "1", "0", "0.4", "1", "10", "NULL"],
            &["3", "3", "3", "2", "0.5", "1", "1", "20", "50"],
            &["4", "2", "3", "2", "0.5", "1", "2", "30", "NULL"],
            &["5", "1", "3", "2", "0.5", "1", "2", "NULL", "NULL"],
        ])
    );
}

#[tokio::test]
async fn frames_and_named_windows() {
    let (_db, mut s) = setup().await;
    let got = query(
        &mut s,
        "SELECT id, SUM(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), \
         COUNT(*) OVER (PARTITION BY g), SUM(id) OVER (w ORDER BY id), FIRST_VALUE(v) OVER w, \
         LAST_VALUE(s) OVER w, NTH_VALUE(v, 2) OVER w, SUM(v) OVER (ORDER BY id RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) \
         FROM a WINDOW w AS (PARTITION BY g) ORDER BY id",
    )
    .await;
    assert_eq!(
        got,
        rows(&[
            &["1", "10", "2", "1", "10", "y", "20", "10"],
            &["2", "30", "2", "3", "10", "y", "20", "30"],
            &["3", "50", "3", "3", "30", "v", "NULL", "50"],
            &["4", "30", "3", "7", "30", "v", "NULL", "30"],
            &["5", "50", "3", "12", "30", "v", "NULL", "50"],
        ])
    );
    // With GROUP BY the window runs on the groups, and may read their aggregates.
    let got = query(
        &mut s,
        "SELECT g, SUM(v), RANK() OVER (ORDER BY SUM(v) DESC), SUM(SUM(v)) OVER () FROM a GROUP BY g ORDER BY g",
    )
    .await;
    assert_eq!(got, rows(&[&["1", "30", "2", "110"], &["2", "80", "1", "110"]]));
}

#[tokio::test]
async fn misuse_gives_mariadb_errors() {
    let (_db, mut s) = setup().await;
    for (sql, code) in [
        ("SELECT id FROM a WHERE ROW_NUMBER() OVER () > 1", 4015),
        ("SELECT id FROM a GROUP BY ROW_NUMBER() OVER ()", 4015),
        ("SELECT ROW_NUMBER() OVER (ORDER BY id) rn, COUNT(*) FROM a GROUP BY rn", 4015),
        ("SELECT id, ROW_NUMBER() OVER (ORDER BY id) rn FROM a HAVING rn > 3", 4015),
        ("SELECT ROW_NUMBER() OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) FROM a", 4017),
        ("SELECT SUM(v) OVER (ORDER BY s RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM a", 4021),
        ("SELECT SUM(v) OVER (ORDER BY id, g RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM a", 4019),
        ("SELECT SUM(v) OVER (ORDER BY id ROWS BETWEEN 1.5 PRECEDING AND CURRENT ROW) FROM a", 4020),
        ("SELECT SUM(v) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING) FROM a", 4014),
        ("SELECT SUM(v) OVER w FROM a", 4009),
        ("SELECT id FROM a WINDOW w AS (), w AS ()", 4010),
        ("SELECT SUM(id) OVER (w PARTITION BY id) FROM a WINDOW w AS (PARTITION BY g)", 4011),
        ("SELECT SUM(id) OVER (w ORDER BY id) FROM a WINDOW w AS (ORDER BY g)", 4012),
        ("SELECT NTILE(0) OVER (ORDER BY id) FROM a", 4024),
        ("SELECT SUM(ROW_NUMBER() OVER ()) FROM a", 4074),
        ("SELECT COUNT(DISTINCT v) OVER () FROM a", 1235),
    ] {
        assert_eq!(fail(&mut s, sql).await.code, code, "{sql}");
    }
}
