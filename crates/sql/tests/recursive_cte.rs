//! WITH RECURSIVE: iteration, UNION DISTINCT ending cycles, @@max_recursive_iterations
//! (warning 1931), and MariaDB's errors (each expected value checked against MariaDB 10.11).

use crate::common;
use common::*;

#[tokio::test]
async fn recursion_runs_until_no_new_rows() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let got =
        query(&mut s, "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<5) SELECT * FROM c").await;
    assert_eq!(got, rows(&[&["1"], &["2"], &["3"], &["4"], &["5"]]));
    exec(&mut s, "CREATE TABLE emp (id INT PRIMARY KEY, boss INT)").await;
    exec(&mut s, "INSERT INTO emp VALUES (1, NULL), (2, 1), (3, 1), (4, 2), (6, 4)").await;
    let got = query(
        &mut s,
        "WITH RECURSIVE t AS (SELECT id, 0 AS depth FROM emp WHERE boss IS NULL \
         UNION ALL SELECT e.id, t.depth + 1 FROM emp e JOIN t ON e.boss = t.id) SELECT * FROM t ORDER BY id",
    )
    .await;
    assert_eq!(got, rows(&[&["1", "0"], &["2", "1"], &["3", "1"], &["4", "2"], &["6", "3"]]));
    // UNION DISTINCT drops rows seen before, so a cycle ends.
    let got =
        query(&mut s, "WITH RECURSIVE c(n) AS (SELECT 1 UNION SELECT (n + 1) % 4 FROM c) SELECT * FROM c ORDER BY n")
            .await;
    assert_eq!(got, rows(&[&["0"], &["1"], &["2"], &["3"]]));
}

#[tokio::test]
async fn max_recursive_iterations_stops_with_warning_1931() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "SET max_recursive_iterations = 3").await;
    let res =
        run(&mut s, "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT * FROM c").await.unwrap();
    let Some(Res::Rows { rows: got, warnings, .. }) = res.first() else { panic!("rows expected") };
    assert_eq!(got.len(), 4, "the anchor and 3 iterations");
    assert_eq!(*warnings, 1);
    assert_eq!(query(&mut s, "SHOW WARNINGS").await[0][1], "1931");
}

#[tokio::test]
async fn recursive_cte_errors() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    for (sql, code) in [
        ("WITH RECURSIVE c(n) AS (SELECT n+1 FROM c) SELECT * FROM c", 4005),
        ("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT COUNT(*) FROM c) SELECT * FROM c", 4008),
        ("WITH RECURSIVE c(n, m) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<3) SELECT * FROM c", 4002),
        // Without RECURSIVE the name inside the body is a base table.
        ("WITH c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<3) SELECT * FROM c", 1146),
    ] {
        assert_eq!(fail(&mut s, sql).await.code, code, "{sql}");
    }
}
