//! Every statement sysbench 1.0.20's OLTP scripts send (oltp_common.lua, oltp_insert.lua,
//! select_random_points.lua, select_random_ranges.lua, bulk_insert.lua), as text and as
//! prepared statements, checked against a model of the table.

use crate::common;
use common::*;
use selkie_sql::Value;
use std::collections::BTreeMap;

/// sysbench's table size for this test (SELKIE_STRESS=1 for more).
fn table_size() -> i64 {
    if std::env::var("SELKIE_STRESS").is_ok() {
        20_000
    } else {
        2_000
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    /// sysbench's c / pad values: groups of 11 digits joined by '-'.
    fn digits(&mut self, groups: usize) -> String {
        (0..groups).map(|_| format!("{:011}", self.next() % 100_000_000_000)).collect::<Vec<_>>().join("-")
    }
}

type Model = BTreeMap<i64, (i64, String, String)>;

async fn prepare_table(s: &mut selkie_sql::Session, rng: &mut Rng, auto_inc: bool) -> Model {
    let id_def = if auto_inc { "INTEGER NOT NULL AUTO_INCREMENT" } else { "INTEGER NOT NULL" };
    exec(s, &format!("CREATE TABLE sbtest1(\n  id {id_def},\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) /*! ENGINE = innodb */ ")).await;
    let n = table_size();
    let mut model = Model::new();
    // sysbench's bulk insert: one multi-row INSERT per batch.
    let mut batch = Vec::new();
    for i in 1..=n {
        let k = rng.range(1, n);
        let c = rng.digits(10);
        let pad = rng.digits(5);
        batch.push(if auto_inc { format!("({k}, '{c}', '{pad}')") } else { format!("({i}, {k}, '{c}', '{pad}')") });
        model.insert(i, (k, c, pad));
        if batch.len() == 1000 || i == n {
            let head = if auto_inc {
                "INSERT INTO sbtest1(k, c, pad) VALUES"
            } else {
                "INSERT INTO sbtest1(id, k, c, pad) VALUES"
            };
            let ok = exec(s, &format!("{head}{}", batch.join(","))).await;
            assert_eq!(ok.affected_rows, batch.len() as u64);
            batch.clear();
        }
    }
    exec(s, "CREATE INDEX k_1 ON sbtest1(k)").await;
    model
}

fn sum_k(m: &Model, lo: i64, hi: i64) -> String {
    let v: i64 = m.range(lo..=hi).map(|(_, r)| r.0).sum();
    if m.range(lo..=hi).next().is_none() {
        "NULL".into()
    } else {
        v.to_string()
    }
}

#[tokio::test]
async fn oltp_prepare_prewarm_run_cleanup() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let mut rng = Rng(42);
    let mut model = prepare_table(&mut s, &mut rng, false).await;
    let n = table_size();

    // prewarm
    assert_eq!(query(&mut s, "ANALYZE TABLE sbtest1").await, rows(&[&["test.sbtest1", "analyze", "status", "OK"]]));
    exec(&mut s, "SET tmp_table_size=2*1024*1024*1024").await;
    exec(&mut s, "SET max_heap_table_size=2*1024*1024*1024").await;
    let avg =
        query(&mut s, &format!("SELECT AVG(id) FROM (SELECT * FROM sbtest1 FORCE KEY (PRIMARY) LIMIT {n}) t")).await;
    assert_eq!(avg, rows(&[&[&format!("{:.4}", (n + 1) as f64 / 2.0)]]));
    let with_zero = model.values().filter(|r| r.0.to_string().contains('0')).count();
    let count =
        query(&mut s, &format!("SELECT COUNT(*) FROM (SELECT * FROM sbtest1 WHERE k LIKE '%0%' LIMIT {n}) t")).await;
    assert_eq!(count, rows(&[&[&with_zero.to_string()]]));

    // run, prepared (--db-ps-mode=auto)
    let ps = |s: &mut selkie_sql::Session, sql: &str| s.prepare(sql).unwrap().statement_id;
    let begin = ps(&mut s, "BEGIN");
    let commit = ps(&mut s, "COMMIT");
    let point = ps(&mut s, "SELECT c FROM sbtest1 WHERE id=?");
    let simple = ps(&mut s, "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?");
    let sum = ps(&mut s, "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?");
    let order = ps(&mut s, "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c");
    let distinct = ps(&mut s, "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c");
    let index_upd = ps(&mut s, "UPDATE sbtest1 SET k=k+1 WHERE id=?");
    let non_index_upd = ps(&mut s, "UPDATE sbtest1 SET c=? WHERE id=?");
    let delete = ps(&mut s, "DELETE FROM sbtest1 WHERE id=?");
    let insert = ps(&mut s, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)");
    for round in 0..20 {
        execute_prepared(&mut s, begin, &[]).await.unwrap();
        for _ in 0..10 {
            let id = rng.range(1, n);
            let want: Vec<Vec<String>> = model.get(&id).map(|r| vec![vec![r.1.clone()]]).unwrap_or_default();
            assert_eq!(prepared_rows(&mut s, point, &[Value::Int(id)]).await, want);
        }
        let lo = rng.range(1, n - 99);
        let hi = lo + 99;
        let in_range: Vec<String> = model.range(lo..=hi).map(|(_, r)| r.1.clone()).collect();
        let got: Vec<String> = prepared_rows(&mut s, simple, &[Value::Int(lo), Value::Int(hi)])
            .await
            .into_iter()
            .map(|r| r[0].clone())
            .collect();
        assert_eq!(got, in_range);
        assert_eq!(
            prepared_rows(&mut s, sum, &[Value::Int(lo), Value::Int(hi)]).await,
            rows(&[&[&sum_k(&model, lo, hi)]])
        );
        let mut sorted = in_range.clone();
        sorted.sort();
        let got: Vec<String> = prepared_rows(&mut s, order, &[Value::Int(lo), Value::Int(hi)])
            .await
            .into_iter()
            .map(|r| r[0].clone())
            .collect();
        assert_eq!(got, sorted);
        sorted.dedup();
        let got: Vec<String> = prepared_rows(&mut s, distinct, &[Value::Int(lo), Value::Int(hi)])
            .await
            .into_iter()
            .map(|r| r[0].clone())
            .collect();
        assert_eq!(got, sorted);
        // Writes.
        let id = rng.range(1, n);
        let r = execute_prepared(&mut s, index_upd, &[Value::Int(id)]).await.unwrap();
        let expected = u64::from(model.contains_key(&id));
        assert!(matches!(&r[0], Res::Ok { info, .. } if info.affected_rows == expected), "{r:?}");
        if let Some(row) = model.get_mut(&id) {
            row.0 += 1;
        }
        let id = rng.range(1, n);
        let c = rng.digits(10);
        execute_prepared(&mut s, non_index_upd, &[Value::Bytes(c.clone().into_bytes()), Value::Int(id)]).await.unwrap();
        if let Some(row) = model.get_mut(&id) {
            row.1 = c;
        }
        let id = rng.range(1, n);
        execute_prepared(&mut s, delete, &[Value::Int(id)]).await.unwrap();
        model.remove(&id);
        let (k, c, pad) = (rng.range(1, n), rng.digits(10), rng.digits(5));
        execute_prepared(
            &mut s,
            insert,
            &[
                Value::Int(id),
                Value::Int(k),
                Value::Bytes(c.clone().into_bytes()),
                Value::Bytes(pad.clone().into_bytes()),
            ],
        )
        .await
        .unwrap();
        model.insert(id, (k, c, pad));
        execute_prepared(&mut s, commit, &[]).await.unwrap();
        assert!(!s.status().in_transaction, "round {round}");
    }

    // run, text protocol (--db-ps-mode=disable)
    for _ in 0..20 {
        exec(&mut s, "BEGIN").await;
        let id = rng.range(1, n);
        let want: Vec<Vec<String>> = model.get(&id).map(|r| vec![vec![r.1.clone()]]).unwrap_or_default();
        assert_eq!(query(&mut s, &format!("SELECT c FROM sbtest1 WHERE id={id}")).await, want);
        let lo = rng.range(1, n - 99);
        let hi = lo + 99;
        assert_eq!(
            query(&mut s, &format!("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN {lo} AND {hi}")).await,
            rows(&[&[&sum_k(&model, lo, hi)]])
        );
        let mut sorted: Vec<String> = model.range(lo..=hi).map(|(_, r)| r.1.clone()).collect();
        sorted.sort();
        sorted.dedup();
        let got: Vec<String> =
            query(&mut s, &format!("SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN {lo} AND {hi} ORDER BY c"))
                .await
                .into_iter()
                .map(|r| r[0].clone())
                .collect();
        assert_eq!(got, sorted);
        let id = rng.range(1, n);
        let ok = exec(&mut s, &format!("UPDATE sbtest1 SET k=k+1 WHERE id={id}")).await;
        if let Some(row) = model.get_mut(&id) {
            row.0 += 1;
            assert_eq!(ok.info, "Rows matched: 1  Changed: 1  Warnings: 0");
        }
        let id = rng.range(1, n);
        exec(&mut s, &format!("DELETE FROM sbtest1 WHERE id={id}")).await;
        model.remove(&id);
        let (k, c, pad) = (rng.range(1, n), rng.digits(10), rng.digits(5));
        exec(&mut s, &format!("INSERT INTO sbtest1 (id, k, c, pad) VALUES ({id}, {k}, '{c}', '{pad}')")).await;
        model.insert(id, (k, c, pad));
        exec(&mut s, "COMMIT").await;
    }

    // select_random_points / select_random_ranges
    let points = ps(&mut s, "\n        SELECT id, k, c, pad\n          FROM sbtest1\n          WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)\n        ");
    let ranges_sql = format!(
        "\n        SELECT count(k)\n          FROM sbtest1\n          WHERE {}",
        ["k BETWEEN ? AND ?"; 10].join(" OR ")
    );
    let ranges = ps(&mut s, &ranges_sql);
    for _ in 0..20 {
        let ks: Vec<i64> = (0..10).map(|_| rng.range(1, n)).collect();
        let params: Vec<Value> = ks.iter().map(|k| Value::Int(*k)).collect();
        let mut got = prepared_rows(&mut s, points, &params).await;
        got.sort_by_key(|r| r[0].parse::<i64>().unwrap());
        let want: Vec<Vec<String>> = model
            .iter()
            .filter(|(_, r)| ks.contains(&r.0))
            .map(|(id, r)| vec![id.to_string(), r.0.to_string(), r.1.clone(), r.2.clone()])
            .collect();
        assert_eq!(got, want);
        let starts: Vec<i64> = (0..10).map(|_| rng.range(1, n)).collect();
        let params: Vec<Value> = starts.iter().flat_map(|a| [Value::Int(*a), Value::Int(a + 5)]).collect();
        let want = model.values().filter(|r| starts.iter().any(|a| r.0 >= *a && r.0 <= a + 5)).count();
        assert_eq!(prepared_rows(&mut s, ranges, &params).await, rows(&[&[&want.to_string()]]));
    }

    // cleanup
    exec(&mut s, "DROP TABLE IF EXISTS sbtest1").await;
    assert!(db.engine.catalog().table("test", "sbtest1").is_none());
}

#[tokio::test]
async fn oltp_insert_with_auto_inc_and_bulk_insert() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    let mut rng = Rng(7);
    let model = prepare_table(&mut s, &mut rng, true).await;
    let n = table_size();
    assert_eq!(
        query(&mut s, "SELECT MIN(id), MAX(id), COUNT(*) FROM sbtest1").await,
        rows(&[&["1", &n.to_string(), &n.to_string()]])
    );
    assert_eq!(query(&mut s, "SELECT k FROM sbtest1 WHERE id = 17").await, rows(&[&[&model[&17].0.to_string()]]));
    // oltp_insert --auto-inc: id 0 asks for a generated value.
    let ok = exec(
        &mut s,
        &format!("INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 5, '{}', '{}')", rng.digits(10), rng.digits(5)),
    )
    .await;
    assert_eq!(ok.last_insert_id as i64, n + 1);
    // oltp_insert without --auto-inc: ids from sysbench.rand.unique() - 2147483648.
    exec(
        &mut s,
        &format!("INSERT INTO sbtest1 (id, k, c, pad) VALUES ({}, 5, 'c', 'p')", 12345u32 as i64 - 2147483648),
    )
    .await;
    assert_eq!(query(&mut s, "SELECT MIN(id) FROM sbtest1").await, rows(&[&["-2147471303"]]));
    exec(&mut s, "DROP TABLE IF EXISTS sbtest1").await;

    // bulk_insert.lua
    exec(&mut s, "\n        CREATE TABLE IF NOT EXISTS sbtest1 (\n          id INTEGER NOT NULL,\n          k INTEGER DEFAULT '0' NOT NULL,\n          PRIMARY KEY (id))").await;
    let values: Vec<String> = (1..=3000).map(|i| format!("({i},{i})")).collect();
    let ok = exec(&mut s, &format!("INSERT INTO sbtest1 VALUES{}", values.join(","))).await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (3000, "Records: 3000  Duplicates: 0  Warnings: 0"));
    assert_eq!(query(&mut s, "SELECT COUNT(*), SUM(k) FROM sbtest1").await, rows(&[&["3000", "4501500"]]));
    exec(&mut s, "DROP TABLE IF EXISTS sbtest1").await;
}

#[tokio::test]
async fn secondary_id_variant() {
    // --secondary: the id is a plain key and the table has a hidden row id.
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE sbtest1(\n  id INTEGER NOT NULL AUTO_INCREMENT,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  KEY xid (id)\n) /*! ENGINE = innodb */ ").await;
    let values: Vec<String> = (1..=200).map(|i| format!("({}, 'c{i}', 'p')", i % 7)).collect();
    exec(&mut s, &format!("INSERT INTO sbtest1(k, c, pad) VALUES{}", values.join(","))).await;
    exec(&mut s, "CREATE INDEX k_1 ON sbtest1(k)").await;
    assert_eq!(query(&mut s, "SELECT c FROM sbtest1 WHERE id=42").await, rows(&[&["c42"]]));
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM sbtest1 WHERE id BETWEEN 10 AND 19").await, rows(&[&["10"]]));
    let ok = exec(&mut s, "UPDATE sbtest1 SET k=k+1 WHERE id=42").await;
    assert_eq!(ok.affected_rows, 1);
    exec(&mut s, "DELETE FROM sbtest1 WHERE id=42").await;
    exec(&mut s, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (42, 1, 'again', 'p')").await;
    assert_eq!(query(&mut s, "SELECT c FROM sbtest1 WHERE id=42").await, rows(&[&["again"]]));
}
