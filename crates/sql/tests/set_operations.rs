//! INTERSECT and EXCEPT, DISTINCT and ALL, with MariaDB's precedence (each expected value
//! checked against MariaDB 10.11).

use crate::common;
use common::*;

#[tokio::test]
async fn intersect_and_except() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE s1 (x INT, y VARCHAR(5))").await;
    exec(&mut s, "CREATE TABLE s2 (x INT, y VARCHAR(5))").await;
    exec(&mut s, "INSERT INTO s1 VALUES (1,'a'),(1,'a'),(2,'b'),(3,'c'),(NULL,NULL),(NULL,NULL),(4,'D')").await;
    exec(&mut s, "INSERT INTO s2 VALUES (1,'a'),(3,'c'),(3,'c'),(NULL,NULL),(4,'d'),(5,'e')").await;
    let both = rows(&[&["1", "a"], &["3", "c"], &["NULL", "NULL"], &["4", "D"]]);
    assert_eq!(query(&mut s, "SELECT x, y FROM s1 INTERSECT SELECT x, y FROM s2").await, both);
    assert_eq!(query(&mut s, "SELECT x, y FROM s1 INTERSECT ALL SELECT x, y FROM s2").await, both);
    assert_eq!(query(&mut s, "SELECT x, y FROM s1 EXCEPT SELECT x, y FROM s2").await, rows(&[&["2", "b"]]));
    assert_eq!(
        query(&mut s, "SELECT x, y FROM s1 EXCEPT ALL SELECT x, y FROM s2").await,
        rows(&[&["1", "a"], &["2", "b"], &["NULL", "NULL"]])
    );
    // INTERSECT binds tighter than UNION.
    assert_eq!(
        query(&mut s, "SELECT x FROM s1 UNION SELECT x FROM s2 INTERSECT SELECT 5").await,
        rows(&[&["1"], &["2"], &["3"], &["NULL"], &["4"], &["5"]])
    );
    assert_eq!(
        query(&mut s, "SELECT y FROM s1 INTERSECT SELECT y FROM s2 ORDER BY 1 LIMIT 2").await,
        rows(&[&["NULL"], &["a"]])
    );
    assert_eq!(fail(&mut s, "SELECT x FROM s1 INTERSECT SELECT x, y FROM s2").await.code, 1222);
}
