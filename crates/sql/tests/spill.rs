//! Bounded memory: operators past sort_buffer_size / tmp_table_size spill to @@tmpdir and give
//! exactly the in-memory results; UPDATE / DELETE / INSERT ... SELECT stream when that is safe
//! and buffer (spillably) when it is not. Architecture §2.1.
//!
//! Each scenario runs the same statements with the default budgets (nothing spills on a few
//! thousand rows) and with MariaDB's smallest ones (everything spills), and compares the rows,
//! in order. That spilling really happened is shown by pointing @@tmpdir at a missing
//! directory: the statements that spill then fail with MariaDB's error 1, the ones that stream
//! do not.

use crate::common;
use std::time::{Duration, Instant};

use common::*;
use selkie_sql::Session;

/// MariaDB's minimum values: with them every sort, temporary table and key buffer spills.
const TINY_BUDGETS: &str =
    "SET SESSION sort_buffer_size = 1024, SESSION tmp_table_size = 0, SESSION max_heap_table_size = 16384";
const DEFAULT_BUDGETS: &str =
    "SET SESSION sort_buffer_size = DEFAULT, SESSION tmp_table_size = DEFAULT, SESSION max_heap_table_size = DEFAULT";

/// t: 3,000 rows with duplicate sort keys (k), ~1,000 groups (g), NULLs, doubles and strings of
/// varied length; u: a smaller table to join with.
async fn load(s: &mut Session) {
    exec(s, "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, g INT, s VARCHAR(40), d DOUBLE, n INT, KEY k (k))")
        .await;
    for chunk in (1..=3000).collect::<Vec<i64>>().chunks(500) {
        let values: Vec<String> = chunk
            .iter()
            .map(|&id| {
                let k = (id * 7919) % 101;
                let g = (id * 31) % 997;
                let s = format!("{}-{}", "x".repeat((id % 13) as usize), (id * 17) % 211);
                let d = (id as f64) / 7.0;
                let n = if id % 9 == 0 { "NULL".to_string() } else { (id % 5).to_string() };
                format!("({id}, {k}, {g}, '{s}', {d}, {n})")
            })
            .collect();
        exec(s, &format!("INSERT INTO t VALUES {}", values.join(", "))).await;
    }
    exec(s, "CREATE TABLE u (id INT PRIMARY KEY, k INT, label VARCHAR(20))").await;
    let values: Vec<String> = (1..=400).map(|id| format!("({id}, {}, 'u{id}')", id % 120)).collect();
    exec(s, &format!("INSERT INTO u VALUES {}", values.join(", "))).await;
}

/// Queries whose plans buffer rows: sorts (ties, top-N, LIMIT beyond the buffer), GROUP BY with
/// MariaDB's implicit order and with an explicit one, DISTINCT over an index-ordered scan,
/// UNION, derived tables, and every aggregate kind.
const QUERIES: &[&str] = &[
    "SELECT id, k, s FROM t ORDER BY k, s",
    "SELECT id, k FROM t ORDER BY k DESC",
    "SELECT id, d FROM t ORDER BY d DESC, id",
    "SELECT id, k FROM t ORDER BY s LIMIT 10, 20",
    "SELECT id, k FROM t ORDER BY k, s DESC LIMIT 2500",
    "SELECT id, k FROM t ORDER BY k LIMIT 10, 20",
    "SELECT id, s FROM t ORDER BY s LIMIT 0",
    "SELECT g, COUNT(*), SUM(d), MIN(s), MAX(s), AVG(k), COUNT(DISTINCT k), GROUP_CONCAT(id ORDER BY id DESC) FROM t GROUP BY g",
    "SELECT g, s, id FROM t GROUP BY g",
    "SELECT n, COUNT(*), SUM(d) FROM t GROUP BY n",
    "SELECT g, k, COUNT(*) FROM t GROUP BY g, k ORDER BY COUNT(*) DESC, g DESC, k",
    "SELECT g DIV 10 AS b, SUM(k) FROM t GROUP BY b HAVING SUM(k) > 100",
    "SELECT COUNT(*), SUM(k), GROUP_CONCAT(DISTINCT n) FROM t",
    "SELECT DISTINCT k FROM t",
    "SELECT DISTINCT k, n FROM t ORDER BY k",
    "SELECT DISTINCT s FROM t",
    "SELECT k FROM t UNION SELECT g FROM t",
    "SELECT s, n FROM t UNION SELECT label, k FROM u ORDER BY 1 DESC, 2",
    "SELECT k FROM t UNION ALL SELECT k FROM u",
    "SELECT COUNT(*), SUM(x) FROM (SELECT DISTINCT g AS x FROM t) d",
    "SELECT x.g, x.c FROM (SELECT g, COUNT(*) AS c FROM t GROUP BY g) x WHERE x.c > 3 ORDER BY x.c, x.g",
    "SELECT t.id, u.id, u.label FROM t JOIN u ON t.g = u.k",
    "SELECT t.id, t.n, u.label FROM t LEFT JOIN u ON t.n = u.k AND u.id > 100",
    "SELECT u.id, t.id FROM u RIGHT JOIN t ON u.k = t.g AND t.d > 100",
    "SELECT t.id, u.id FROM t JOIN u ON t.k < u.k WHERE u.id <= 3 AND t.id <= 300",
    "SELECT t.id, u.id FROM t LEFT JOIN u ON t.k + 50 < u.k AND u.id <= 5 WHERE t.id <= 300",
    "SELECT a.g, a.c, b.c FROM (SELECT g, COUNT(*) AS c FROM t GROUP BY g) a JOIN (SELECT k, COUNT(*) AS c FROM t GROUP BY k) b ON a.g = b.k",
    "SELECT COUNT(*) FROM t WHERE g IN (SELECT k FROM u)",
    "SELECT id FROM t WHERE s NOT IN (SELECT s FROM t WHERE id > 10) ORDER BY id",
    "SELECT id, n IN (SELECT n FROM t WHERE id < 100), k NOT IN (SELECT n FROM t) FROM t ORDER BY id LIMIT 50",
    "SELECT COUNT(*) FROM t WHERE d IN (SELECT d FROM t WHERE id % 3 = 0) AND '12' IN (SELECT k FROM t)",
    "SELECT id, ROW_NUMBER() OVER (PARTITION BY g ORDER BY s, id), SUM(d) OVER (ORDER BY k, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t ORDER BY id",
    "SELECT id, RANK() OVER (ORDER BY k), LAG(s) OVER (PARTITION BY n ORDER BY id) FROM t ORDER BY id",
    "SELECT k, n, COUNT(*), SUM(d), MIN(s) FROM t GROUP BY k, n WITH ROLLUP",
];

async fn results(s: &mut Session, queries: &[&str]) -> Vec<Vec<Vec<String>>> {
    let mut out = Vec::new();
    for q in queries {
        out.push(query(s, q).await);
    }
    out
}

#[tokio::test]
async fn spilled_queries_return_the_in_memory_rows_in_the_same_order() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    load(&mut s).await;
    let in_memory = results(&mut s, QUERIES).await;
    exec(&mut s, TINY_BUDGETS).await;
    let spilled = results(&mut s, QUERIES).await;
    for ((q, a), b) in QUERIES.iter().zip(&in_memory).zip(&spilled) {
        assert_eq!(a.len(), b.len(), "{q}: row count");
        assert!(a == b, "{q}: spilled rows differ from in-memory rows");
    }
    // Every one of these really went to disk: with a missing @@tmpdir they fail with MariaDB's
    // "Can't create/write to file" (1), and with the default budgets they do not touch it.
    db.server.set_startup_variable("tmpdir", "/nonexistent/selkie-spill").unwrap();
    // (Not those that buffer nothing: LIMIT 0, UNION ALL, one group, an order the index gives.)
    let buffer_nothing = ["LIMIT 0", "UNION ALL", "SELECT COUNT(*), SUM(k)", "ORDER BY k LIMIT"];
    for q in QUERIES.iter().filter(|q| !buffer_nothing.iter().any(|b| q.contains(b))) {
        let e = fail(&mut s, q).await;
        assert_eq!((e.code, e.state), (1, "HY000"), "{q}: {e}");
        assert!(
            e.message.starts_with("Can't create/write to file '/nonexistent/selkie-spill/#sql'"),
            "{q}: {}",
            e.message
        );
    }
    exec(&mut s, DEFAULT_BUDGETS).await;
    assert_eq!(results(&mut s, QUERIES).await, in_memory);
}

/// A sort that writes thousands of runs and merges them in several passes keeps yielding its
/// worker thread and stops at once on KILL QUERY (1317); the session goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_query_stops_a_spilling_sort() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    exec(&mut s, "CREATE TABLE big (id INT PRIMARY KEY, s VARCHAR(20))").await;
    let values: Vec<String> = (1..=600).map(|i| format!("({i}, 'v{}')", i * 7 % 600)).collect();
    exec(&mut s, &format!("INSERT INTO big VALUES {}", values.join(","))).await;
    exec(&mut s, TINY_BUDGETS).await;
    let flag = s.interrupt_flag();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(400));
        flag.raise();
        Instant::now()
    });
    // 360,000 rows through a 1 KiB sort buffer: minutes of runs and merge passes.
    let e = fail(&mut s, "SELECT a.s, b.s, a.id FROM big a, big b ORDER BY a.s, b.id DESC, a.id").await;
    let raised = killer.join().unwrap();
    assert_eq!(e.code, 1317, "{e}");
    assert!(raised.elapsed() < Duration::from_millis(1500), "KILL QUERY took {:?}", raised.elapsed());
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM big").await, rows(&[&["600"]]));
}

/// Table `v` of `n` rows (id, k, c) with an index on k, in a fresh database.
async fn load_v(s: &mut Session, n: i64) {
    exec(s, "CREATE TABLE v (id INT PRIMARY KEY, k INT NOT NULL, c INT NOT NULL, note VARCHAR(10), KEY k (k))").await;
    let values: Vec<String> = (1..=n).map(|i| format!("({i}, {}, 0, 'n{}')", i % 50, i % 7)).collect();
    exec(s, &format!("INSERT INTO v VALUES {}", values.join(","))).await;
}

/// UPDATE / DELETE that cannot change rows while scanning (the scanned index's key changes, an
/// ORDER BY needs a sort) collect primary keys first, spilling past sort_buffer_size, and still
/// change each row exactly once; the ones that can stream never touch @@tmpdir.
#[tokio::test]
async fn update_and_delete_stream_when_safe_and_buffer_keys_otherwise() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    load_v(&mut s, 2000).await;
    exec(&mut s, TINY_BUDGETS).await;
    db.server.set_startup_variable("tmpdir", "/nonexistent/selkie-spill").unwrap();
    // Streams: neither the primary key nor the scanned index's key changes.
    let ok = exec(&mut s, "UPDATE v SET c = c + 1").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (2000, "Rows matched: 2000  Changed: 2000  Warnings: 0"));
    let ok = exec(&mut s, "UPDATE v SET c = c + 1, k = k + 100 WHERE id BETWEEN 11 AND 20").await;
    assert_eq!(ok.affected_rows, 10);
    exec(&mut s, "UPDATE v SET k = k - 100 WHERE id BETWEEN 11 AND 20").await;
    let ok = exec(&mut s, "UPDATE v SET c = c + 1 WHERE k = 3 LIMIT 5").await;
    assert_eq!(ok.affected_rows, 5);
    exec(&mut s, "DELETE FROM v WHERE k = 49").await;
    // Must buffer: these fail on the missing @@tmpdir because their keys spill.
    for sql in [
        "UPDATE v SET id = id + 10000",
        "UPDATE v SET k = k + 1 WHERE k >= 10",
        "UPDATE v SET c = 5 ORDER BY note, id DESC LIMIT 100",
        "DELETE FROM v ORDER BY note LIMIT 10",
    ] {
        let e = fail(&mut s, sql).await;
        assert_eq!(e.code, 1, "{sql}: {e}");
    }
    let tmp = tempfile::tempdir().unwrap();
    db.server.set_startup_variable("tmpdir", &tmp.path().display().to_string()).unwrap();
    // Each row moves once: without the buffer the scan would meet moved rows again.
    let ok = exec(&mut s, "UPDATE v SET id = id + 10000").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (1960, "Rows matched: 1960  Changed: 1960  Warnings: 0"));
    assert_eq!(query(&mut s, "SELECT MIN(id), MAX(id), COUNT(*) FROM v").await, rows(&[&["10001", "12000", "1960"]]));
    let ok = exec(&mut s, "UPDATE v SET k = k + 1 WHERE k >= 10").await;
    assert_eq!(ok.affected_rows, 1560);
    assert_eq!(query(&mut s, "SELECT MIN(k), MAX(k) FROM v WHERE k >= 10").await, rows(&[&["11", "49"]]));
    // ORDER BY ... LIMIT picks the same rows as the in-memory sort would.
    exec(&mut s, "UPDATE v SET c = -1 ORDER BY note DESC, id DESC LIMIT 100").await;
    exec(&mut s, DEFAULT_BUDGETS).await;
    let expected = query(&mut s, "SELECT id FROM v ORDER BY note DESC, id DESC LIMIT 100").await;
    assert_eq!(query(&mut s, "SELECT id FROM v WHERE c = -1 ORDER BY note DESC, id DESC").await, expected);
    exec(&mut s, TINY_BUDGETS).await;
    let ok = exec(&mut s, "DELETE FROM v ORDER BY note, id LIMIT 10").await;
    assert_eq!(ok.affected_rows, 10);
    assert_eq!(query(&mut s, "SELECT COUNT(*) FROM v").await, rows(&[&["1950"]]));
}

/// INSERT ... SELECT streams unless its source reads the target table; then the source runs
/// first (it must not see the statement's own rows) through a spillable buffer. AUTO_INCREMENT
/// values come in MariaDB's intervals of 1, 2, 4, ...
#[tokio::test]
async fn insert_select_streams_unless_it_reads_its_target() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    load_v(&mut s, 1000).await;
    exec(&mut s, "CREATE TABLE w (id INT AUTO_INCREMENT PRIMARY KEY, k INT)").await;
    exec(&mut s, TINY_BUDGETS).await;
    db.server.set_startup_variable("tmpdir", "/nonexistent/selkie-spill").unwrap();
    let ok = exec(&mut s, "INSERT INTO w (k) SELECT k FROM v").await;
    assert_eq!((ok.affected_rows, ok.info.as_str()), (1000, "Records: 1000  Duplicates: 0  Warnings: 0"));
    let e = fail(&mut s, "INSERT INTO w (k) SELECT k FROM w").await;
    assert_eq!(e.code, 1, "{e}");
    let e = fail(&mut s, "INSERT INTO w (k) SELECT k FROM v WHERE id IN (SELECT k FROM w)").await;
    assert_eq!(e.code, 1, "{e}");
    let tmp = tempfile::tempdir().unwrap();
    db.server.set_startup_variable("tmpdir", &tmp.path().display().to_string()).unwrap();
    let ok = exec(&mut s, "INSERT INTO w (k) SELECT k FROM w").await;
    assert_eq!(ok.affected_rows, 1000);
    assert_eq!(query(&mut s, "SELECT COUNT(*), SUM(k) FROM w").await, rows(&[&["2000", "49000"]]));
    // MariaDB 10.11: five generated values reserve 1 + 2 + 4, leaving AUTO_INCREMENT at 8.
    exec(&mut s, "CREATE TABLE a5 (id INT AUTO_INCREMENT PRIMARY KEY, k INT)").await;
    exec(&mut s, "INSERT INTO a5 (k) SELECT k FROM v WHERE id <= 5").await;
    exec(&mut s, "INSERT INTO a5 (k) VALUES (0)").await;
    assert_eq!(query(&mut s, "SELECT id FROM a5").await, rows(&[&["1"], &["2"], &["3"], &["4"], &["5"], &["8"]]));
    // An explicit value starts a new interval after it; SET insert_id forces consecutive values.
    exec(&mut s, "CREATE TABLE b5 (id INT AUTO_INCREMENT PRIMARY KEY, k INT)").await;
    exec(&mut s, "INSERT INTO b5 (id, k) SELECT IF(id = 1, 10, NULL), k FROM v WHERE id <= 5").await;
    exec(&mut s, "INSERT INTO b5 (k) VALUES (0)").await;
    assert_eq!(query(&mut s, "SELECT id FROM b5").await, rows(&[&["10"], &["11"], &["12"], &["13"], &["14"], &["18"]]));
    exec(&mut s, "CREATE TABLE c5 (id INT AUTO_INCREMENT PRIMARY KEY, k INT)").await;
    exec(&mut s, "SET insert_id = 100").await;
    exec(&mut s, "INSERT INTO c5 (k) SELECT k FROM v WHERE id <= 5").await;
    exec(&mut s, "INSERT INTO c5 (k) VALUES (0)").await;
    assert_eq!(
        query(&mut s, "SELECT id FROM c5").await,
        rows(&[&["100"], &["101"], &["102"], &["103"], &["104"], &["105"]])
    );
}

/// The budgets are MariaDB's variables, with its defaults, limits and scopes; @@tmpdir is
/// read-only, as in MariaDB.
#[tokio::test]
async fn budget_variables_have_mariadbs_defaults_and_limits() {
    let db = TestDb::new();
    let mut s = db.session_in_test_db().await;
    assert_eq!(
        query(&mut s, "SELECT @@sort_buffer_size, @@tmp_table_size, @@max_heap_table_size").await,
        rows(&[&["2097152", "16777216", "16777216"]])
    );
    exec(&mut s, "SET SESSION sort_buffer_size = 1000, tmp_table_size = 20000, max_heap_table_size = 1000").await;
    assert_eq!(
        query(&mut s, "SHOW WARNINGS").await,
        rows(&[
            &["Warning", "1292", "Truncated incorrect sort_buffer_size value: '1000'"],
            &["Warning", "1292", "Truncated incorrect tmp_table_size value: '20000'"],
            &["Warning", "1292", "Truncated incorrect max_heap_table_size value: '1000'"],
        ])
    );
    assert_eq!(
        query(&mut s, "SELECT @@sort_buffer_size, @@tmp_table_size, @@max_heap_table_size").await,
        rows(&[&["1024", "16384", "16384"]])
    );
    exec(&mut s, "SET GLOBAL sort_buffer_size = 5000").await;
    let mut other = db.session_in_test_db().await;
    assert_eq!(
        query(&mut other, "SELECT @@sort_buffer_size, @@global.sort_buffer_size").await,
        rows(&[&["5000", "5000"]])
    );
    assert_eq!(query(&mut s, "SELECT @@sort_buffer_size").await, rows(&[&["1024"]]));
    exec(&mut s, "SET GLOBAL sort_buffer_size = DEFAULT").await;
    let e = fail(&mut s, "SET GLOBAL tmpdir = '/tmp'").await;
    assert_eq!((e.code, e.message.as_str()), (1238, "Variable 'tmpdir' is a read only variable"));
}
