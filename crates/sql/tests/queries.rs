//! SELECT semantics against known answers: access paths (every predicate shape checked against
//! a model of the table), joins, aggregates, subqueries, derived tables, UNION, ORDER BY/LIMIT,
//! names and metadata (types fixed by constant arguments), variables (GROUP_CONCAT's limit),
//! interval units, and MariaDB's error codes and messages.

use crate::common;
use common::*;
use selkie_protocol::constants::{column_flags, FieldType};
use selkie_sql::Value;

/// Model of table `m`: (id, k, s, u, n).
#[derive(Clone, Debug)]
struct Row {
    id: i64,
    k: i64,
    s: String,
    u: i64,
    n: Option<i64>,
}

fn model() -> Vec<Row> {
    (1..=300)
        .map(|id| Row {
            id,
            k: (id * 7) % 31,
            s: format!("s{:03}", id % 50),
            u: id * 2,
            n: if id % 29 == 0 { None } else { Some(id % 11) },
        })
        .collect()
}

async fn load_model(s: &mut selkie_sql::Session) {
    exec(s, "CREATE TABLE m (id INT PRIMARY KEY, k INT NOT NULL, s VARCHAR(10) NOT NULL, u INT NOT NULL, n INT, KEY k (k), KEY s (s), UNIQUE KEY u (u), KEY kn (k, n))").await;
    let values: Vec<String> = model()
        .iter()
        .map(|r| {
            format!("({}, {}, '{}', {}, {})", r.id, r.k, r.s, r.u, r.n.map_or("NULL".to_string(), |n| n.to_string()))
        })
        .collect();
    let ok = exec(s, &format!("INSERT INTO m VALUES {}", values.join(", "))).await;
    assert_eq!(ok.affected_rows, 300);
}

fn ids(rows: &[Vec<String>]) -> Vec<i64> {
    rows.iter().map(|r| r[0].parse().unwrap()).collect()
}

#[tokio::test]
async fn access_paths_match_the_model() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    load_model(&mut s).await;
    let m = model();
    type Pred = fn(&Row) -> bool;
    let cases: Vec<(&str, Pred)> = vec![
        ("id = 5", |r| r.id == 5),
        ("id = 0", |_| false),
        ("id = 301", |_| false),
        ("id = '7'", |r| r.id == 7),
        ("id = 7.0", |r| r.id == 7),
        ("id = 7.5", |_| false),
        ("id = -1", |_| false),
        ("id IN (3, 1, 3, 299, 1000)", |r| [1, 3, 299].contains(&r.id)),
        ("id BETWEEN 10 AND 20", |r| (10..=20).contains(&r.id)),
        ("id BETWEEN 20 AND 10", |_| false),
        ("id > 295", |r| r.id > 295),
        ("id >= 295", |r| r.id >= 295),
        ("id < 4", |r| r.id < 4),
        ("id <= 3 AND id > 1", |r| r.id <= 3 && r.id > 1),
        ("id > 2.5 AND id < 5.5", |r| r.id > 2 && r.id < 6),
        ("id BETWEEN 5 AND 10 OR id BETWEEN 8 AND 12 OR id = 100", |r| (5..=12).contains(&r.id) || r.id == 100),
        ("id = NULL", |_| false),
        ("id > NULL", |_| false),
        ("k = 3", |r| r.k == 3),
        ("k IN (1, 2, 2)", |r| r.k == 1 || r.k == 2),
        ("k BETWEEN 5 AND 6 OR k BETWEEN 6 AND 7", |r| (5..=7).contains(&r.k)),
        ("k = 3 AND id > 150", |r| r.k == 3 && r.id > 150),
        ("k < 2 OR k > 29", |r| r.k < 2 || r.k > 29),
        ("s = 's007'", |r| r.s == "s007"),
        ("s > 's045'", |r| r.s.as_str() > "s045"),
        ("s LIKE 's01%'", |r| r.s.starts_with("s01")),
        ("s IN ('s001', 's049', 'zzz')", |r| r.s == "s001" || r.s == "s049"),
        ("u = 10", |r| r.u == 10),
        ("u = 11", |_| false),
        ("u BETWEEN 100 AND 110", |r| (100..=110).contains(&r.u)),
        ("n IS NULL", |r| r.n.is_none()),
        ("n IS NOT NULL AND n = 5", |r| r.n == Some(5)),
        ("k = 3 AND n IS NULL", |r| r.k == 3 && r.n.is_none()),
        ("k = 5 AND n > 3", |r| r.k == 5 && r.n.is_some_and(|n| n > 3)),
        ("k IN (1, 2) AND n IN (3, 4)", |r| (r.k == 1 || r.k == 2) && (r.n == Some(3) || r.n == Some(4))),
        ("n < 3", |r| r.n.is_some_and(|n| n < 3)),
        ("id = 5 OR k = 6", |r| r.id == 5 || r.k == 6),
        ("NOT (id > 5)", |r| r.id <= 5),
        ("id <> 5 AND id < 8", |r| r.id != 5 && r.id < 8),
    ];
    for (pred, f) in &cases {
        let want: Vec<i64> = m.iter().filter(|r| f(r)).map(|r| r.id).collect();
        let got = ids(&query(&mut s, &format!("SELECT id FROM m WHERE {pred} ORDER BY id")).await);
        assert_eq!(got, want, "WHERE {pred}");
        // Inside a derived table the constants stay literals (no auto-parameterization).
        let got = ids(&query(&mut s, &format!("SELECT id FROM (SELECT id FROM m WHERE {pred}) x ORDER BY id")).await);
        assert_eq!(got, want, "literal WHERE {pred}");
        // The same predicate with the primary key forced (a full scan) agrees.
        let got =
            ids(&query(&mut s, &format!("SELECT id FROM m IGNORE INDEX (k, s, u, kn) WHERE {pred} ORDER BY id")).await);
        assert_eq!(got, want, "IGNORE INDEX, WHERE {pred}");
    }
    // Index order with a direction and LIMIT.
    let got = ids(&query(&mut s, "SELECT id FROM m WHERE k = 3 ORDER BY id DESC LIMIT 3").await);
    let mut want: Vec<i64> = m.iter().filter(|r| r.k == 3).map(|r| r.id).collect();
    want.reverse();
    want.truncate(3);
    assert_eq!(got, want);
    let got = query(&mut s, "SELECT k, id FROM m ORDER BY k DESC, id DESC LIMIT 2").await;
    assert_eq!(got, rows(&[&["30", "270"], &["30", "239"]]));
    let got = ids(&query(&mut s, "SELECT id FROM m ORDER BY id LIMIT 3 OFFSET 2").await);
    assert_eq!(got, vec![3, 4, 5]);
    let got = ids(&query(&mut s, "SELECT id FROM m ORDER BY id LIMIT 297, 10").await);
    assert_eq!(got, vec![298, 299, 300]);
}

#[tokio::test]
async fn text_statements_reuse_plans_safely() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    load_model(&mut s).await;
    let m = model();
    // The same shape with different constants, typed differently each time.
    for (v, want) in
        [("5", Some(5)), ("'6'", Some(6)), ("7.0", Some(7)), ("7.5", None), ("-1", None), ("300", Some(300))]
    {
        let got = ids(&query(&mut s, &format!("SELECT id FROM m WHERE id = {v}")).await);
        assert_eq!(got, want.into_iter().collect::<Vec<i64>>(), "id = {v}");
    }
    for k in 0..31 {
        let want: Vec<i64> = m.iter().filter(|r| r.k == k).map(|r| r.id).collect();
        assert_eq!(ids(&query(&mut s, &format!("SELECT id FROM m WHERE k = {k} ORDER BY id")).await), want);
    }
    // Column names come from the client's text, not from the parameterized form.
    assert_eq!(column_names(&mut s, "SELECT id + 1, 'x' FROM m WHERE id = 3").await, vec!["id + 1", "x"]);
    // DDL invalidates the plan; a changed database re-binds the names.
    exec(&mut s, "DROP INDEX k ON m").await;
    assert_eq!(ids(&query(&mut s, "SELECT id FROM m WHERE k = 3 AND id < 40 ORDER BY id").await), vec![27]);
    exec(&mut s, "CREATE DATABASE other").await;
    exec(
        &mut s,
        "CREATE TABLE other.m (id INT PRIMARY KEY, k INT NOT NULL, s VARCHAR(10) NOT NULL, u INT NOT NULL, n INT)",
    )
    .await;
    exec(&mut s, "INSERT INTO other.m VALUES (1000, 3, 'x', 0, NULL)").await;
    exec(&mut s, "USE other").await;
    assert_eq!(ids(&query(&mut s, "SELECT id FROM m WHERE k = 3 AND id < 2000 ORDER BY id").await), vec![1000]);
    // Errors are reported for the client's text.
    let e = fail(&mut s, "SELECT id FROM m WHERE nosuch = 3").await;
    assert_eq!(e.message, "Unknown column 'nosuch' in 'WHERE'");
    // Writes through the cached path.
    for i in 0..5 {
        exec(&mut s, &format!("INSERT INTO m VALUES ({}, {i}, 's', 0, {i})", 2000 + i)).await;
        let ok = exec(&mut s, &format!("UPDATE m SET s = 'y{i}' WHERE id = {}", 2000 + i)).await;
        assert_eq!(ok.info, "Rows matched: 1  Changed: 1  Warnings: 0");
    }
    assert_eq!(query(&mut s, "SELECT s FROM m WHERE id = 2003").await, rows(&[&["y3"]]));
    let ok = exec(&mut s, "DELETE FROM m WHERE id >= 2000").await;
    assert_eq!(ok.affected_rows, 5);
}

#[tokio::test]
async fn prepared_ranges_match_the_model() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    load_model(&mut s).await;
    let m = model();
    let between = s.prepare("SELECT id FROM m WHERE k BETWEEN ? AND ? OR k BETWEEN ? AND ? ORDER BY id").unwrap();
    let inlist = s.prepare("SELECT id FROM m WHERE id IN (?, ?, ?) ORDER BY id").unwrap();
    let point = s.prepare("SELECT id, s FROM m WHERE id = ?").unwrap();
    for (a, b, c, d) in [(1, 3, 2, 5), (10, 10, 30, 40), (7, 1, 0, 0), (-5, 2, 29, 100)] {
        let want: Vec<i64> =
            m.iter().filter(|r| (r.k >= a && r.k <= b) || (r.k >= c && r.k <= d)).map(|r| r.id).collect();
        let got = ids(&prepared_rows(
            &mut s,
            between.statement_id,
            &[Value::Int(a), Value::Int(b), Value::Int(c), Value::Int(d)],
        )
        .await);
        assert_eq!(got, want, "{a} {b} {c} {d}");
    }
    let got =
        ids(&prepared_rows(&mut s, inlist.statement_id, &[Value::Int(9), Value::Bytes(b"2".to_vec()), Value::Null])
            .await);
    assert_eq!(got, vec![2, 9]);
    assert_eq!(prepared_rows(&mut s, point.statement_id, &[Value::Int(42)]).await, rows(&[&["42", "s042"]]));
    assert_eq!(
        prepared_rows(&mut s, point.statement_id, &[Value::Bytes(b"43".to_vec())]).await,
        rows(&[&["43", "s043"]])
    );
    assert_eq!(prepared_rows(&mut s, point.statement_id, &[Value::UInt(44)]).await, rows(&[&["44", "s044"]]));
    assert!(prepared_rows(&mut s, point.statement_id, &[Value::Null]).await.is_empty());
    assert!(prepared_rows(&mut s, point.statement_id, &[Value::Double(4.5)]).await.is_empty());
}

async fn join_fixture(s: &mut selkie_sql::Session) {
    exec(s, "CREATE TABLE cust (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, city VARCHAR(20))").await;
    exec(s, "CREATE TABLE ord (oid INT PRIMARY KEY, cust_id INT, amount INT NOT NULL, KEY cust_id (cust_id))").await;
    exec(s, "CREATE TABLE city (name VARCHAR(20), pop INT)").await;
    exec(s, "INSERT INTO cust VALUES (1, 'ann', 'oslo'), (2, 'bob', 'rome'), (3, 'cid', NULL), (4, 'dan', 'oslo')")
        .await;
    exec(s, "INSERT INTO ord VALUES (10, 1, 100), (11, 1, 50), (12, 2, 70), (13, NULL, 5), (14, 9, 1)").await;
    exec(s, "INSERT INTO city VALUES ('oslo', 700), ('rome', 2800), ('paris', 2100)").await;
}

#[tokio::test]
async fn joins() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    join_fixture(&mut s).await;
    // Inner join through the index on ord.cust_id.
    assert_eq!(
        query(&mut s, "SELECT c.name, o.oid, o.amount FROM cust c JOIN ord o ON o.cust_id = c.id ORDER BY o.oid").await,
        rows(&[&["ann", "10", "100"], &["ann", "11", "50"], &["bob", "12", "70"]])
    );
    // Left join keeps unmatched customers.
    assert_eq!(
        query(&mut s, "SELECT c.id, o.oid FROM cust c LEFT JOIN ord o ON o.cust_id = c.id ORDER BY c.id, o.oid").await,
        rows(&[&["1", "10"], &["1", "11"], &["2", "12"], &["3", "NULL"], &["4", "NULL"]])
    );
    // Anti-join with WHERE ... IS NULL above the left join.
    assert_eq!(
        query(&mut s, "SELECT c.id FROM cust c LEFT JOIN ord o ON o.cust_id = c.id WHERE o.oid IS NULL ORDER BY c.id")
            .await,
        rows(&[&["3"], &["4"]])
    );
    // ON conditions on the inner side filter the inner rows, not the outer ones.
    assert_eq!(
        query(
            &mut s,
            "SELECT c.id, o.oid FROM cust c LEFT JOIN ord o ON o.cust_id = c.id AND o.amount > 60 ORDER BY c.id"
        )
        .await,
        rows(&[&["1", "10"], &["2", "12"], &["3", "NULL"], &["4", "NULL"]])
    );
    // Right join keeps unmatched orders, columns stay in FROM order.
    assert_eq!(
        query(&mut s, "SELECT c.name, o.oid FROM cust c RIGHT JOIN ord o ON o.cust_id = c.id ORDER BY o.oid").await,
        rows(&[&["ann", "10"], &["ann", "11"], &["bob", "12"], &["NULL", "13"], &["NULL", "14"]])
    );
    // Hash join on a table without indexes, and a comma join with the condition in WHERE.
    assert_eq!(
        query(&mut s, "SELECT c.name, ci.pop FROM cust c JOIN city ci ON ci.name = c.city ORDER BY c.name").await,
        rows(&[&["ann", "700"], &["bob", "2800"], &["dan", "700"]])
    );
    assert_eq!(
        query(&mut s, "SELECT c.name, ci.pop FROM cust c, city ci WHERE ci.name = c.city AND ci.pop > 1000").await,
        rows(&[&["bob", "2800"]])
    );
    // Non-equi join (nested loop) and a cross join count.
    assert_eq!(
        query(&mut s, "SELECT COUNT(*) FROM cust c JOIN city ci ON ci.pop > c.id * 1000").await,
        rows(&[&["4"]])
    );
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM cust CROSS JOIN city").await, rows(&[&["12"]]));
    // USING merges the column for * and unqualified names.
    exec(&mut s, "CREATE TABLE cust2 (id INT PRIMARY KEY, vip INT)").await;
    exec(&mut s, "INSERT INTO cust2 VALUES (1, 1), (4, 0)").await;
    assert_eq!(
        query(&mut s, "SELECT * FROM cust JOIN cust2 USING (id) ORDER BY id").await,
        rows(&[&["1", "ann", "oslo", "1"], &["4", "dan", "oslo", "0"]])
    );
    assert_eq!(query(&mut s, "SELECT id, vip FROM cust NATURAL JOIN cust2 WHERE vip = 0").await, rows(&[&["4", "0"]]));
    // Three-way join with aggregation.
    assert_eq!(
        query(&mut s, "SELECT ci.name, SUM(o.amount) FROM city ci JOIN cust c ON c.city = ci.name JOIN ord o ON o.cust_id = c.id GROUP BY ci.name").await,
        rows(&[&["oslo", "150"], &["rome", "70"]])
    );
    // Joined with a derived table.
    assert_eq!(
        query(&mut s, "SELECT c.name, t.total FROM cust c JOIN (SELECT cust_id, SUM(amount) total FROM ord GROUP BY cust_id) t ON t.cust_id = c.id ORDER BY t.total DESC").await,
        rows(&[&["ann", "150"], &["bob", "70"]])
    );
}

#[tokio::test]
async fn aggregates_and_grouping() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    join_fixture(&mut s).await;
    assert_eq!(
        query(&mut s, "SELECT COUNT(*), COUNT(cust_id), SUM(amount), MIN(amount), MAX(amount) FROM ord").await,
        rows(&[&["5", "4", "226", "1", "100"]])
    );
    assert_eq!(query(&mut s, "SELECT AVG(amount) FROM ord WHERE cust_id = 1").await, rows(&[&["75.0000"]]));
    // No rows: one row of NULLs and zero counts; with GROUP BY: no rows.
    assert_eq!(
        query(&mut s, "SELECT COUNT(*), SUM(amount), MAX(oid) FROM ord WHERE oid > 100").await,
        rows(&[&["0", "NULL", "NULL"]])
    );
    assert!(query(&mut s, "SELECT cust_id, COUNT(*) FROM ord WHERE oid > 100 GROUP BY cust_id").await.is_empty());
    // GROUP BY returns groups in key order (MariaDB), NULL first.
    assert_eq!(
        query(&mut s, "SELECT cust_id, COUNT(*), SUM(amount) FROM ord GROUP BY cust_id").await,
        rows(&[&["NULL", "1", "5"], &["1", "2", "150"], &["2", "1", "70"], &["9", "1", "1"]])
    );
    assert_eq!(
        query(&mut s, "SELECT cust_id, COUNT(*) c FROM ord GROUP BY cust_id HAVING c > 1").await,
        rows(&[&["1", "2"]])
    );
    assert_eq!(
        query(&mut s, "SELECT cust_id FROM ord GROUP BY cust_id HAVING SUM(amount) >= 70 ORDER BY 1 DESC").await,
        rows(&[&["2"], &["1"]])
    );
    assert_eq!(query(&mut s, "SELECT COUNT(DISTINCT city), COUNT(city) FROM cust").await, rows(&[&["2", "3"]]));
    assert_eq!(
        query(&mut s, "SELECT GROUP_CONCAT(name ORDER BY name DESC SEPARATOR '|') FROM cust").await,
        rows(&[&["dan|cid|bob|ann"]])
    );
    assert_eq!(
        query(&mut s, "SELECT city, GROUP_CONCAT(id) FROM cust GROUP BY city").await,
        rows(&[&["NULL", "3"], &["oslo", "1,4"], &["rome", "2"]])
    );
    // GROUP BY position and alias; expression over aggregates.
    assert_eq!(
        query(&mut s, "SELECT cust_id AS c, SUM(amount) * 2 FROM ord WHERE cust_id IS NOT NULL GROUP BY 1 ORDER BY c")
            .await,
        rows(&[&["1", "300"], &["2", "140"], &["9", "2"]])
    );
    assert_eq!(
        query(&mut s, "SELECT city AS ct, COUNT(*) FROM cust GROUP BY ct ORDER BY ct DESC").await,
        rows(&[&["rome", "1"], &["oslo", "2"], &["NULL", "1"]])
    );
    // DISTINCT keeps first occurrences.
    assert_eq!(
        query(&mut s, "SELECT DISTINCT city FROM cust ORDER BY city").await,
        rows(&[&["NULL"], &["oslo"], &["rome"]])
    );
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM (SELECT DISTINCT cust_id FROM ord) t").await, rows(&[&["4"]]));
}

#[tokio::test]
async fn subqueries_derived_tables_unions() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    join_fixture(&mut s).await;
    assert_eq!(
        query(&mut s, "SELECT name FROM cust WHERE id IN (SELECT cust_id FROM ord) ORDER BY name").await,
        rows(&[&["ann"], &["bob"]])
    );
    assert_eq!(
        query(
            &mut s,
            "SELECT name FROM cust WHERE id NOT IN (SELECT cust_id FROM ord WHERE cust_id IS NOT NULL) ORDER BY name"
        )
        .await,
        rows(&[&["cid"], &["dan"]])
    );
    // NOT IN over a set containing NULL is never true.
    assert!(query(&mut s, "SELECT name FROM cust WHERE id NOT IN (SELECT cust_id FROM ord)").await.is_empty());
    assert_eq!(query(&mut s, "SELECT name FROM cust c WHERE EXISTS (SELECT 1 FROM ord o WHERE o.cust_id = c.id AND o.amount > 60) ORDER BY name").await, rows(&[&["ann"], &["bob"]]));
    assert_eq!(
        query(
            &mut s,
            "SELECT name FROM cust c WHERE NOT EXISTS (SELECT 1 FROM ord o WHERE o.cust_id = c.id) ORDER BY name"
        )
        .await,
        rows(&[&["cid"], &["dan"]])
    );
    assert_eq!(
        query(&mut s, "SELECT name, (SELECT SUM(amount) FROM ord o WHERE o.cust_id = c.id) FROM cust c ORDER BY id")
            .await,
        rows(&[&["ann", "150"], &["bob", "70"], &["cid", "NULL"], &["dan", "NULL"]])
    );
    assert_eq!(
        query(&mut s, "SELECT (SELECT MAX(amount) FROM ord) - (SELECT MIN(amount) FROM ord)").await,
        rows(&[&["99"]])
    );
    let e = fail(&mut s, "SELECT (SELECT amount FROM ord)").await;
    assert_eq!((e.code, e.message.as_str()), (1242, "Subquery returns more than 1 row"));
    assert_eq!(
        query(&mut s, "SELECT name FROM cust WHERE id = (SELECT cust_id FROM ord WHERE oid = 12)").await,
        rows(&[&["bob"]])
    );
    // Correlated subquery in HAVING, over the aggregate's output.
    assert_eq!(
        query(&mut s, "SELECT cust_id, COUNT(*) FROM ord o GROUP BY cust_id HAVING COUNT(*) > (SELECT COUNT(*) FROM cust c WHERE c.id = o.cust_id)").await,
        rows(&[&["NULL", "1"], &["1", "2"], &["9", "1"]])
    );
    // Derived tables, CTEs, UNION / UNION ALL with ORDER BY and LIMIT.
    assert_eq!(
        query(&mut s, "SELECT t.c FROM (SELECT city c, COUNT(*) n FROM cust GROUP BY city) t WHERE t.n = 2").await,
        rows(&[&["oslo"]])
    );
    assert_eq!(
        query(&mut s, "WITH big AS (SELECT * FROM ord WHERE amount >= 50) SELECT COUNT(*), SUM(amount) FROM big").await,
        rows(&[&["3", "220"]])
    );
    assert_eq!(
        query(&mut s, "SELECT city FROM cust UNION SELECT name FROM city ORDER BY 1").await,
        rows(&[&["NULL"], &["oslo"], &["paris"], &["rome"]])
    );
    assert_eq!(
        query(&mut s, "SELECT city FROM cust UNION ALL SELECT name FROM city ORDER BY city DESC LIMIT 3").await,
        rows(&[&["rome"], &["rome"], &["paris"]])
    );
    assert_eq!(query(&mut s, "SELECT 1 UNION ALL SELECT 1 UNION SELECT 2").await, rows(&[&["1"], &["2"]]));
    assert_eq!(
        query(&mut s, "(SELECT id FROM cust ORDER BY id DESC LIMIT 1) UNION ALL (SELECT oid FROM ord LIMIT 1)")
            .await
            .len(),
        2
    );
    assert_eq!(
        query(&mut s, "SELECT AVG(id) FROM (SELECT * FROM cust FORCE KEY (PRIMARY) LIMIT 3) t").await,
        rows(&[&["2.0000"]])
    );
}

#[tokio::test]
async fn expressions_names_and_metadata() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(
        &mut s,
        "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, c CHAR(10) NOT NULL, d DECIMAL(10,2), KEY c (c))",
    )
    .await;
    exec(&mut s, "INSERT INTO t (c, d) VALUES ('a', 1.50), ('b', NULL)").await;
    assert_eq!(
        column_names(
            &mut s,
            "SELECT ID, t.c, count(*),  1 +  1 , 'abc', NULL, -1, (1), (id), c AS alias, @@version_comment FROM t"
        )
        .await,
        vec!["ID", "c", "count(*)", "1 +  1", "abc", "NULL", "-1", "1", "id", "alias", "@@version_comment"]
    );
    assert_eq!(column_names(&mut s, "SELECT 7 MOD 3, 1 FROM DUAL").await, vec!["7 MOD 3", "1"]);
    let res = run(&mut s, "SELECT id, c, d, COUNT(*) AS n, id + 1 FROM t GROUP BY id").await.unwrap();
    let Res::Rows { columns, .. } = &res[0] else { panic!() };
    assert_eq!(columns[0].field_type, FieldType::Long);
    assert_ne!(columns[0].flags & column_flags::PRI_KEY, 0);
    assert_ne!(columns[0].flags & column_flags::NOT_NULL, 0);
    assert_ne!(columns[0].flags & column_flags::AUTO_INCREMENT, 0);
    assert_eq!(
        (columns[0].schema.as_str(), columns[0].table.as_str(), columns[0].org_table.as_str()),
        ("test", "t", "t")
    );
    assert_eq!(columns[1].field_type, FieldType::String);
    assert_eq!(columns[2].field_type, FieldType::NewDecimal);
    assert_eq!(columns[2].flags & column_flags::NOT_NULL, 0);
    assert_eq!(columns[3].field_type, FieldType::LongLong);
    assert_eq!((columns[3].name.as_str(), columns[3].org_name.as_str()), ("n", ""));
    assert_eq!(
        query(&mut s, "SELECT d, d * 2, c = 'a', c LIKE '_' FROM t ORDER BY id").await,
        rows(&[&["1.50", "3.00", "1", "1"], &["NULL", "NULL", "0", "1"]])
    );
    assert_eq!(
        query(&mut s, "SELECT 1 + 1, 7 DIV 2, 7 MOD 3, 2 * 3 - 1, 10 / 4, -(3)").await,
        rows(&[&["2", "3", "1", "5", "2.5000", "-3"]])
    );
    assert_eq!(
        query(
            &mut s,
            "SELECT 1 IN (1, 2), 3 NOT IN (1, NULL), NULL IS NULL, 5 BETWEEN 1 AND 10, 1 <=> NULL, NULL <=> NULL"
        )
        .await,
        rows(&[&["1", "NULL", "1", "1", "0", "1"]])
    );
    assert_eq!(query(&mut s, "SELECT IF(1 > 2, 'a', 'b'), IFNULL(NULL, 3), COALESCE(NULL, NULL, 'c'), NULLIF(1, 1), CASE 2 WHEN 1 THEN 'x' WHEN 2 THEN 'y' END").await, rows(&[&["b", "3", "c", "NULL", "y"]]));
    assert_eq!(query(&mut s, "SELECT (1, 2) = (1, 2), (1, 2) IN ((3, 4), (1, 2)), 255 & 15, 1 << 4, 5 XOR 0, NOT 0, TRUE AND NULL, FALSE AND NULL, TRUE OR NULL").await, rows(&[&["1", "1", "15", "16", "1", "1", "NULL", "0", "1"]]));
    assert_eq!(
        query(&mut s, "SELECT CAST('12' AS UNSIGNED) + 1, CONVERT(5, CHAR), x'41', 0x4243, b'1000001'").await,
        rows(&[&["13", "5", "A", "BC", "A"]])
    );
    assert_eq!(query(&mut s, "SELECT DATE_ADD('2020-01-31', INTERVAL 1 DAY) = '2020-02-01', '2020-01-01' + INTERVAL 2 MONTH = '2020-03-01'").await, rows(&[&["1", "1"]]));
    // User variables: SET, :=, in WHERE, LAST_INSERT_ID(expr).
    exec(&mut s, "SET @a = 10, @b := 'x'").await;
    assert_eq!(
        query(&mut s, "SELECT @a + 1, @b, @nosuch, @c := 5, @c * 2").await,
        rows(&[&["11", "x", "NULL", "5", "10"]])
    );
    assert_eq!(query(&mut s, "SELECT id FROM t WHERE id = @c - 4").await, rows(&[&["1"]]));
    assert_eq!(query(&mut s, "SELECT LAST_INSERT_ID(42), LAST_INSERT_ID()").await, rows(&[&["42", "42"]]));
    // System variables.
    assert_eq!(query(&mut s, "SELECT @@autocommit, @@session.autocommit").await, rows(&[&["1", "1"]]));
    let e = fail(&mut s, "SELECT @@nosuch").await;
    assert_eq!((e.code, e.message.as_str()), (1193, "Unknown system variable 'nosuch'"));
    // information_schema is queryable like a table.
    assert_eq!(
        query(&mut s, "SELECT column_name FROM information_schema.columns WHERE table_schema = 'test' AND table_name = 't' ORDER BY ordinal_position").await,
        rows(&[&["id"], &["c"], &["d"]])
    );
    // SQL_CALC_FOUND_ROWS and FOUND_ROWS().
    assert_eq!(query(&mut s, "SELECT SQL_CALC_FOUND_ROWS id FROM t ORDER BY id LIMIT 1").await, rows(&[&["1"]]));
    assert_eq!(query(&mut s, "SELECT FOUND_ROWS()").await, rows(&[&["2"]]));
    assert_eq!(query(&mut s, "SELECT id FROM t").await.len(), 2);
    assert_eq!(query(&mut s, "SELECT FOUND_ROWS()").await, rows(&[&["2"]]));
}

#[tokio::test]
async fn multi_statements_and_more_flag() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let r = run(&mut s, "SELECT 1; SET @x = 2; SELECT @x").await.unwrap();
    assert_eq!(r.len(), 3, "{r:?}");
    assert!(matches!(&r[0], Res::Rows { more: true, .. }));
    assert!(matches!(&r[1], Res::Ok { more: true, .. }));
    assert!(matches!(&r[2], Res::Rows { more: false, rows, .. } if rows[0][0] == Value::Int(2)));
    // Execution stops at the first error; earlier results were delivered.
    let mut c = Collect::default();
    let e = s.execute_text("SELECT 1; SELEC 2; SELECT 3", &mut c).await.unwrap_err();
    assert_eq!(e.code, 1064);
    assert_eq!(c.results.len(), 1);
    let e = fail(&mut s, "  ; ").await;
    assert_eq!((e.code, e.message.as_str()), (1065, "Query was empty"));
    let e = fail(&mut s, "SELECT 1 FROM t WHERE a = ?").await;
    assert!(e.message.ends_with("near '?' at line 1"), "{}", e.message);
}

#[tokio::test]
async fn errors_match_mariadb() {
    let db = TestDb::new();
    let mut s = db.session();
    let e = fail(&mut s, "SELECT * FROM t").await;
    assert_eq!((e.code, e.state, e.message.as_str()), (1046, "3D000", "No database selected"));
    let e = fail(&mut s, "SELECT foo(1)").await;
    assert_eq!((e.code, e.message.as_str()), (1305, "FUNCTION foo does not exist"));
    let e = s.use_database("nosuch").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1049, "Unknown database 'nosuch'"));
    exec(&mut s, "CREATE DATABASE test").await;
    exec(&mut s, "USE test").await;
    exec(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, c INT)").await;
    for (sql, code, msg) in [
        ("SELECT nosuch FROM t", 1054, "Unknown column 'nosuch' in 'SELECT'"),
        ("SELECT id FROM t WHERE nosuch = 1", 1054, "Unknown column 'nosuch' in 'WHERE'"),
        ("SELECT id FROM t ORDER BY nosuch", 1054, "Unknown column 'nosuch' in 'ORDER BY'"),
        ("SELECT id FROM t GROUP BY nosuch", 1054, "Unknown column 'nosuch' in 'GROUP BY'"),
        ("SELECT id FROM t HAVING nosuch", 1054, "Unknown column 'nosuch' in 'HAVING'"),
        ("SELECT * FROM t a JOIN t b ON a.nosuch = b.id", 1054, "Unknown column 'a.nosuch' in 'ON'"),
        ("SELECT 1 ORDER BY 5", 1054, "Unknown column '5' in 'ORDER BY'"),
        ("SELECT id FROM t a, t b", 1052, "Column 'id' in SELECT is ambiguous"),
        ("SELECT * FROM nosuch", 1146, "Table 'test.nosuch' doesn't exist"),
        ("SELECT foo(1)", 1305, "FUNCTION test.foo does not exist"),
        ("SELECT concat()", 1582, "Incorrect parameter count in the call to native function 'concat'"),
        ("SELECT x.* FROM t", 1051, "Unknown table 'test.x'"),
        ("SELECT * FROM t FORCE INDEX (nope)", 1176, "Key 'nope' doesn't exist in table 't'"),
        ("SELECT 1 FROM t a, t a", 1066, "Not unique table/alias: 'a'"),
        ("SELECT (1, 2)", 1241, "Operand should contain 1 column(s)"),
        ("SELECT 1 UNION SELECT 1, 2", 1222, "The used SELECT statements have a different number of columns"),
        ("SELECT COUNT(*) FROM t WHERE COUNT(*) > 1", 1111, "Invalid use of group function"),
        ("SELEC 1", 1064, "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near 'SELEC 1' at line 1"),
        ("SELECT * FROM t WHERE\nid = = 2", 1064, "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '= 2' at line 2"),
        ("SELECT 1 FROM", 1064, "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '' at line 1"),
        ("KILL 99999", 1094, "Unknown thread id: 99999"),
        ("EXECUTE nosuch", 1243, "Unknown prepared statement handler (nosuch) given to EXECUTE"),
        ("DEALLOCATE PREPARE nosuch", 1243, "Unknown prepared statement handler (nosuch) given to DEALLOCATE PREPARE"),
        ("ROLLBACK TO SAVEPOINT nosuch", 1305, "SAVEPOINT nosuch does not exist"),
        ("USE nosuchdb", 1049, "Unknown database 'nosuchdb'"),
        ("SELECT 1 FROM t WHERE id IN (SELECT id, c FROM t)", 1241, "Operand should contain 1 column(s)"),
    ] {
        let e = fail(&mut s, sql).await;
        assert_eq!((e.code, e.message.as_str()), (code, msg), "{sql}");
    }
    // After an error, SHOW WARNINGS lists it.
    let _ = fail(&mut s, "SELECT * FROM nosuch").await;
    assert_eq!(query(&mut s, "SHOW WARNINGS").await, rows(&[&["Error", "1146", "Table 'test.nosuch' doesn't exist"]]));
    assert_eq!(s.warning_count(), 1);
}

#[tokio::test]
async fn kill_query_interrupts_a_running_statement() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE big (id INT PRIMARY KEY)").await;
    let values: Vec<String> = (1..=2000).map(|i| format!("({i})")).collect();
    exec(&mut s, &format!("INSERT INTO big VALUES {}", values.join(","))).await;
    let flag = s.interrupt_flag();
    // A 4-billion-row cross join runs until the flag is noticed.
    let killer = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        flag.raise();
    });
    let e = fail(&mut s, "SELECT COUNT(*) FROM big a, big b, big c").await;
    killer.join().unwrap();
    assert_eq!((e.code, e.state, e.message.as_str()), (1317, "70100", "Query execution was interrupted"));
    // The next statement runs normally.
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM big").await, rows(&[&["2000"]]));
}

/// GROUP_CONCAT is cut at @@group_concat_max_len (default 1 MiB), with MariaDB's warning.
#[tokio::test]
async fn group_concat_follows_its_variable() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE g (id INT PRIMARY KEY, a VARCHAR(2000))").await;
    exec(&mut s, "INSERT INTO g VALUES (1, 'ab'), (2, 'cd'), (3, 'ef')").await;
    // 2000 bytes: over the old fixed 1024 limit, far under the default.
    exec(&mut s, &format!("INSERT INTO g VALUES (4, '{}')", "x".repeat(1990))).await;
    let (_, r) = result(&mut s, "SELECT GROUP_CONCAT(a ORDER BY id) FROM g").await;
    assert_eq!(r[0][0], Value::Bytes(format!("ab,cd,ef,{}", "x".repeat(1990)).into_bytes()));
    assert_eq!(s.warning_count(), 0);
    exec(&mut s, "SET SESSION group_concat_max_len = 6").await;
    assert_eq!(query(&mut s, "SELECT GROUP_CONCAT(a ORDER BY id) FROM g WHERE id < 4").await, rows(&[&["ab,cd,"]]));
    assert_eq!(query(&mut s, "SHOW WARNINGS").await, rows(&[&["Warning", "1260", "Row 3 was cut by GROUP_CONCAT()"]]));
}

/// Result types fixed by constant arguments, display widths, and interval units written as
/// keywords.
#[tokio::test]
async fn constant_typed_functions_and_units() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let (cols, r) = result(&mut s, "SELECT ROUND(1.2345, 2), NOW(3)").await;
    assert_eq!((cols[0].field_type, cols[0].decimals, cols[1].decimals), (FieldType::NewDecimal, 2, 3));
    assert_eq!(text(&r[0][0], None), "1.23");
    assert_eq!(
        query(
            &mut s,
            "SELECT TIMESTAMPDIFF(SECOND, '2024-01-01', '2024-01-02 00:00:10'), TIMESTAMPADD(MINUTE, 5, '2024-01-01 00:00:00'), \
             EXTRACT(DAY_HOUR FROM '2024-03-05 07:08:09'), EXTRACT(YEAR_MONTH FROM '2024-03-05'), EXTRACT(DAY FROM '2024-03-05')"
        )
        .await,
        rows(&[&["86410", "2024-01-01 00:05:00", "507", "202403", "5"]])
    );
    assert_eq!(fail(&mut s, "SELECT TIMESTAMPDIFF(FORTNIGHT, '2024-01-01', '2024-01-02')").await.code, 1064);
    exec(&mut s, "CREATE TABLE w (id INT PRIMARY KEY, w INT(5), c CHAR(3))").await;
    exec(&mut s, "INSERT INTO w VALUES (1, 1, 'a')").await;
    let (cols, _) = result(&mut s, "SELECT w, c FROM w").await;
    assert_eq!((cols[0].length, cols[1].field_type), (5, FieldType::String));
}
