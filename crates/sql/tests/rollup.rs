//! GROUP BY ... WITH ROLLUP: super-aggregate rows in MariaDB's order, and its error for ORDER
//! BY (each expected value checked against MariaDB 10.11).

use crate::common;
use common::*;

#[tokio::test]
async fn rollup_rows_follow_their_groups() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE r (a INT, b VARCHAR(5), c INT)").await;
    exec(&mut s, "INSERT INTO r VALUES (1,'x',10),(1,'y',20),(2,'x',30),(2,NULL,40),(NULL,'z',50)").await;
    let got = query(&mut s, "SELECT a, b, SUM(c), COUNT(*) FROM r GROUP BY a, b WITH ROLLUP").await;
    assert_eq!(
        got,
        rows(&[
            &["NULL", "z", "50", "1"],
            &["NULL", "NULL", "50", "1"],
            &["1", "x", "10", "1"],
            &["1", "y", "20", "1"],
            &["1", "NULL", "30", "2"],
            &["2", "NULL", "40", "1"],
            &["2", "x", "30", "1"],
            &["2", "NULL", "70", "2"],
            &["NULL", "NULL", "150", "5"],
        ])
    );
    // HAVING sees the super-aggregate rows; the other columns come from the last group.
    let got = query(&mut s, "SELECT a, c, SUM(c) s FROM r GROUP BY a WITH ROLLUP HAVING s > 30").await;
    assert_eq!(got, rows(&[&["NULL", "50", "50"], &["2", "30", "70"], &["NULL", "30", "150"]]));
    assert_eq!(fail(&mut s, "SELECT a FROM r GROUP BY a WITH ROLLUP ORDER BY a").await.code, 1221);
    assert!(query(&mut s, "SELECT a, COUNT(*) FROM r WHERE 1 = 0 GROUP BY a WITH ROLLUP").await.is_empty());
}
