//! Cost of the statement path per sysbench statement: parse, parse+bind+plan, and execution of
//! prepared and text point selects. Runs a few iterations by default (as a smoke test); set
//! SELKIE_PERF=1 for a measurement (best in a release build: `cargo test --release`).

use crate::common;
use common::*;
use selkie_sql::Value;
use std::time::Instant;

const SYSBENCH_STATEMENTS: &[&str] = &[
    "SELECT c FROM sbtest1 WHERE id=5",
    "SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 104",
    "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN 5 AND 104",
    "SELECT c FROM sbtest1 WHERE id BETWEEN 5 AND 104 ORDER BY c",
    "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN 5 AND 104 ORDER BY c",
    "UPDATE sbtest1 SET k=k+1 WHERE id=5",
    "UPDATE sbtest1 SET c='07-123' WHERE id=5",
    "DELETE FROM sbtest1 WHERE id=5",
    "INSERT INTO sbtest1 (id, k, c, pad) VALUES (5, 4, '83868641912-28773972837-60736120486-75162659906-27563526494-20381887404-41576422241-93426793964-56405065102-33518432330', '67847967377-48000963322-62604785301-91415491898-96926520291')",
];

fn iterations(default: u32, perf: u32) -> u32 {
    if std::env::var("SELKIE_PERF").is_ok() {
        perf
    } else {
        default
    }
}

#[tokio::test]
async fn statement_path_costs() {
    let n = iterations(20, 20_000);
    println!("per-statement costs over {n} iterations (debug builds are ~10x slower)");
    for sql in SYSBENCH_STATEMENTS {
        let t = Instant::now();
        for _ in 0..n {
            let stmt = selkie_sql::parse::parse_statement(sql).expect("parses");
            std::hint::black_box(stmt);
        }
        let parse_us = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        println!("  parse {parse_us:8.2} us  {}", &sql[..sql.len().min(60)]);
    }

    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE sbtest1 (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))").await;
    let mut values = Vec::new();
    for i in 1..=1000 {
        values.push(format!("({i}, {}, 'c{i}', 'pad')", i % 100));
    }
    exec(&mut s, &format!("INSERT INTO sbtest1 (id, k, c, pad) VALUES {}", values.join(","))).await;

    let n = iterations(20, 50_000);
    let stmt = s.prepare("SELECT c FROM sbtest1 WHERE id=?").unwrap();
    let t = Instant::now();
    for i in 0..n {
        let r = execute_prepared(&mut s, stmt.statement_id, &[Value::Int((i % 1000 + 1) as i64)]).await.unwrap();
        std::hint::black_box(r);
    }
    println!("  prepared point select: {:8.2} us", t.elapsed().as_secs_f64() * 1e6 / n as f64);

    let t = Instant::now();
    for i in 0..n {
        let r = run(&mut s, &format!("SELECT c FROM sbtest1 WHERE id={}", i % 1000 + 1)).await.unwrap();
        std::hint::black_box(r);
    }
    println!("  text point select:     {:8.2} us", t.elapsed().as_secs_f64() * 1e6 / n as f64);

    let stmt = s.prepare("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c").unwrap();
    let n = iterations(5, 5_000);
    let t = Instant::now();
    for i in 0..n {
        let lo = (i % 900 + 1) as i64;
        let r = prepared_rows(&mut s, stmt.statement_id, &[Value::Int(lo), Value::Int(lo + 99)]).await;
        assert_eq!(r.len(), 100);
    }
    println!("  prepared order range (100 rows): {:8.2} us", t.elapsed().as_secs_f64() * 1e6 / n as f64);

    let stmt = s.prepare("UPDATE sbtest1 SET k=k+1 WHERE id=?").unwrap();
    let t = Instant::now();
    for i in 0..n {
        let r = execute_prepared(&mut s, stmt.statement_id, &[Value::Int((i % 1000 + 1) as i64)]).await.unwrap();
        std::hint::black_box(r);
    }
    println!("  prepared update by pk: {:8.2} us", t.elapsed().as_secs_f64() * 1e6 / n as f64);
}
