//! Table value constructors (`VALUES (1, 2), (3, 4)`) as a query, a UNION branch, a derived
//! table and a CTE: rows, column names and MariaDB's errors (checked against MariaDB 10.11).

use crate::common;
use common::*;

#[tokio::test]
async fn values_as_a_query_and_a_table() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    assert_eq!(query(&mut s, "VALUES (1,2),(3,4)").await, rows(&[&["1", "2"], &["3", "4"]]));
    assert_eq!(column_names(&mut s, "VALUES (1+1, concat('a','b'))").await, ["1+1", "concat('a','b')"]);
    assert_eq!(query(&mut s, "VALUES (1,2),(3,4) ORDER BY 2 DESC LIMIT 1").await, rows(&[&["3", "4"]]));
    assert_eq!(
        query(&mut s, "SELECT * FROM (VALUES (1,'a'),(2,'b')) AS t WHERE t.`1` > 1").await,
        rows(&[&["2", "b"]])
    );
    assert_eq!(query(&mut s, "SELECT 1 UNION VALUES (5)").await, rows(&[&["1"], &["5"]]));
    assert_eq!(query(&mut s, "WITH v AS (VALUES (7),(8)) SELECT * FROM v").await, rows(&[&["7"], &["8"]]));
    assert_eq!(fail(&mut s, "VALUES (1,2),(3)").await.code, 4099);
    assert_eq!(fail(&mut s, "VALUES (x)").await.code, 4100);
}
