//! CREATE TABLE (definitions) SELECT and CREATE TABLE ... {IGNORE | REPLACE} SELECT: columns
//! merged, keys declared, duplicates, as MariaDB 10.11 gives them (checked on a private
//! MariaDB).

use crate::common;
use common::*;

async fn orders(s: &mut selkie_sql::Session) {
    exec(
        s,
        "CREATE TABLE o (id int PRIMARY KEY, customer varchar(20) NOT NULL, total decimal(8,2) NOT NULL DEFAULT 0)",
    )
    .await;
    exec(s, "INSERT INTO o VALUES (1, 'ann', 10), (2, 'bob', 25.5), (3, 'ann', 5), (4, 'cy', 100)").await;
}

#[tokio::test]
async fn declared_columns_merge_with_the_query_columns() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    orders(&mut s).await;
    let ok = exec(
        &mut s,
        "CREATE TABLE big (id int PRIMARY KEY, flag char(1) DEFAULT 'Y') SELECT id, customer, total FROM o WHERE total > 20",
    )
    .await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (2, "Records: 2  Duplicates: 0  Warnings: 0"));
    // (MariaDB also copies `total`'s DEFAULT 0.00 from the selected column: not yet here.)
    assert!(query(&mut s, "SHOW CREATE TABLE big").await[0][1].starts_with(
        "CREATE TABLE `big` (\n  `flag` char(1) DEFAULT 'Y',\n  `id` int(11) NOT NULL,\n  \
         `customer` varchar(20) NOT NULL,\n  `total` decimal(8,2) NOT NULL"
    ));
    assert!(query(&mut s, "SHOW CREATE TABLE big").await[0][1].contains("PRIMARY KEY (`id`)"));
    assert_eq!(
        query(&mut s, "SELECT * FROM big ORDER BY id").await,
        rows(&[&["Y", "2", "bob", "25.50"], &["Y", "4", "cy", "100.00"]])
    );

    // Declared columns the query names take their declared types, in the query's order.
    exec(&mut s, "CREATE TABLE m1 (a int, b int default 7, c varchar(4)) SELECT 1234 AS c, 2 AS x, 3 AS a").await;
    // (MariaDB shows `x` as int(1), the width of the expression: not yet here.)
    let m1 = query(&mut s, "SHOW CREATE TABLE m1").await[0][1].clone();
    assert!(
        m1.starts_with("CREATE TABLE `m1` (\n  `b` int(11) DEFAULT 7,\n  `c` varchar(4) DEFAULT NULL,\n  `x` int(")
            && m1.contains(") NOT NULL,\n  `a` int(11) DEFAULT NULL\n)"),
        "{m1}"
    );
    assert_eq!(query(&mut s, "SELECT * FROM m1").await, rows(&[&["7", "1234", "2", "3"]]));
    // Keys and CHECK alone, on the query's columns.
    exec(&mut s, "CREATE TABLE m2 (PRIMARY KEY (x)) SELECT 5 AS x, 'q' AS y").await;
    assert!(query(&mut s, "SHOW CREATE TABLE m2").await[0][1].contains(") NOT NULL,\n  `y` varchar(1)"));
    assert!(query(&mut s, "SHOW CREATE TABLE m2").await[0][1].contains("PRIMARY KEY (`x`)"));
    exec(&mut s, "CREATE TABLE m6 (INDEX (k), CHECK (k > 0)) SELECT 5 AS k").await;
    let m6 = &query(&mut s, "SHOW CREATE TABLE m6").await[0][1];
    assert!(m6.contains("KEY `k` (`k`)") && m6.contains("CONSTRAINT `CONSTRAINT_1` CHECK (`k` > 0)"), "{m6}");
    // AUTO_INCREMENT columns the query does not fill count on.
    exec(&mut s, "CREATE TABLE m5 (id int AUTO_INCREMENT PRIMARY KEY, k int) SELECT 5 AS k UNION SELECT 6").await;
    assert_eq!(query(&mut s, "SELECT * FROM m5 ORDER BY id").await, rows(&[&["1", "5"], &["2", "6"]]));

    // Errors: the table is not left behind.
    let e = fail(&mut s, "CREATE TABLE m3 (z int NOT NULL) SELECT 1 AS a").await;
    assert_eq!((e.code, e.message.as_str()), (1364, "Field 'z' doesn't have a default value"));
    assert_eq!(fail(&mut s, "SELECT * FROM m3").await.code, 1146);
    assert_eq!(fail(&mut s, "CREATE TABLE m4 (v tinyint) SELECT 1000 AS v").await.code, 1264);
    assert_eq!(fail(&mut s, "CREATE TABLE m7 (k int) SELECT 1 AS k, 2 AS k").await.code, 1060);
    assert_eq!(fail(&mut s, "CREATE TABLE m8 (c varchar(3)) SELECT 1234 AS c").await.code, 1406);
}

#[tokio::test]
async fn ignore_and_replace_decide_duplicates() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    orders(&mut s).await;
    let e = fail(&mut s, "CREATE TABLE d1 (customer varchar(20) PRIMARY KEY) SELECT customer FROM o ORDER BY id").await;
    assert_eq!(e.code, 1062);
    assert_eq!(fail(&mut s, "SELECT * FROM d1").await.code, 1146);

    let ok =
        exec(&mut s, "CREATE TABLE d2 (customer varchar(20) PRIMARY KEY) IGNORE SELECT customer FROM o ORDER BY id")
            .await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (3, "Records: 4  Duplicates: 1  Warnings: 1"));
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[&["Warning", "1062", "Duplicate entry 'ann' for key 'PRIMARY'"]])
    );
    assert_eq!(query(&mut s, "SELECT * FROM d2 ORDER BY customer").await, rows(&[&["ann"], &["bob"], &["cy"]]));

    // REPLACE: an identical row replaced is not counted (MariaDB's InnoDB).
    let ok =
        exec(&mut s, "CREATE TABLE d3 (customer varchar(20) PRIMARY KEY) REPLACE SELECT customer FROM o ORDER BY id")
            .await;
    assert_eq!(ok.affected_rows, 4);
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM d3").await, rows(&[&["3"]]));
    // IGNORE makes a value out of range a warning (the value clipped).
    exec(&mut s, "CREATE TABLE d4 (q tinyint) IGNORE AS SELECT 1000 AS q").await;
    assert_eq!(query(&mut s, "SELECT q FROM d4").await, rows(&[&["127"]]));
    // A temporary table too.
    exec(&mut s, "CREATE TEMPORARY TABLE d5 (customer varchar(20) PRIMARY KEY) IGNORE SELECT customer FROM o").await;
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM d5").await, rows(&[&["3"]]));
}
