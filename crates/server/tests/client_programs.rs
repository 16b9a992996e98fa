//! selkied with real clients: the mysql_async driver (text and binary protocol, pools, transactions,
//! multi-result sets), the `mariadb` command-line client, and a short sysbench run. The CLI and
//! sysbench checks are skipped, with a printed reason, when those programs are not installed.

use crate::common;

use std::process::Command;

use common::{find_program, runtime, stress, Selkied};
use mysql_async::prelude::*;
use mysql_async::{Params, Value};

#[test]
fn mysql_async_driver() {
    let server = Selkied::start();
    runtime().block_on(async {
        let pool = mysql_async::Pool::new(format!("mysql://root@127.0.0.1:{}/", server.port).as_str());
        let mut conn = pool.get_conn().await.unwrap();
        conn.query_drop("CREATE DATABASE drv").await.unwrap();
        conn.query_drop("USE drv").await.unwrap();
        conn.query_drop(
            "CREATE TABLE t (id INT PRIMARY KEY, i BIGINT, u BIGINT UNSIGNED, f DOUBLE, d DECIMAL(10,2), s VARCHAR(20), \
             b BLOB, dt DATE, ts DATETIME(6), n INT)",
        )
        .await
        .unwrap();
        let params = Params::Positional(vec![
            Value::Int(1),
            Value::Int(-5),
            Value::UInt(u64::MAX),
            Value::Double(1.25),
            Value::Bytes(b"12.50".to_vec()),
            Value::Bytes("héllo".as_bytes().to_vec()),
            Value::Bytes(vec![0, 255, 10]),
            Value::Date(2024, 2, 29, 0, 0, 0, 0),
            Value::Date(2024, 2, 29, 23, 59, 58, 999_999),
            Value::NULL,
        ]);
        conn.exec_drop("INSERT INTO t VALUES (?,?,?,?,?,?,?,?,?,?)", params).await.unwrap();
        assert_eq!(conn.affected_rows(), 1);

        // Binary protocol.
        let row: mysql_async::Row = conn.exec_first("SELECT * FROM t WHERE id = ?", (1,)).await.unwrap().unwrap();
        assert_eq!(row.get::<i64, _>("i"), Some(-5));
        assert_eq!(row.get::<u64, _>("u"), Some(u64::MAX));
        assert_eq!(row.get::<f64, _>("f"), Some(1.25));
        assert_eq!(row.get::<String, _>("d").as_deref(), Some("12.50"));
        assert_eq!(row.get::<String, _>("s").as_deref(), Some("héllo"));
        assert_eq!(row.get::<Vec<u8>, _>("b"), Some(vec![0, 255, 10]));
        assert_eq!(row.as_ref(7), Some(&Value::Date(2024, 2, 29, 0, 0, 0, 0)));
        assert_eq!(row.as_ref(8), Some(&Value::Date(2024, 2, 29, 23, 59, 58, 999_999)));
        assert_eq!(row.as_ref(9), Some(&Value::NULL));

        // Text protocol.
        let text: Vec<(i64, String, Option<i32>)> = conn.query("SELECT i, ts, n FROM t").await.unwrap();
        assert_eq!(text, vec![(-5, "2024-02-29 23:59:58.999999".to_string(), None)]);

        // Multi-result sets.
        let mut result = conn.query_iter("SELECT 1; SELECT 2, 3").await.unwrap();
        let first: Vec<i64> = result.collect().await.unwrap();
        let second: Vec<(i64, i64)> = result.collect().await.unwrap();
        assert_eq!((first, second), (vec![1], vec![(2, 3)]));
        drop(result);

        // Transactions.
        let mut tx = conn.start_transaction(Default::default()).await.unwrap();
        tx.exec_drop("INSERT INTO t (id) VALUES (?)", (2,)).await.unwrap();
        tx.rollback().await.unwrap();
        let count: Option<i64> = conn.query_first("SELECT COUNT(*) FROM t").await.unwrap();
        assert_eq!(count, Some(1));

        // Server errors keep the connection usable.
        let err = conn.query_drop("SELECT * FROM missing").await.unwrap_err();
        match err {
            mysql_async::Error::Server(e) => assert_eq!(e.code, 1146),
            other => panic!("{other:?}"),
        }
        drop(conn);

        // A pooled connection comes back reset (COM_RESET_CONNECTION).
        let mut conn = pool.get_conn().await.unwrap();
        let n: Option<i64> = conn.exec_first("SELECT COUNT(*) FROM drv.t WHERE id = ?", (1,)).await.unwrap();
        assert_eq!(n, Some(1));
        drop(conn);
        pool.disconnect().await.unwrap();
    });
}

#[test]
fn mariadb_command_line_client() {
    let Some(mariadb) = find_program("mariadb") else {
        eprintln!("SKIPPED: the mariadb client is not installed");
        return;
    };
    let server = Selkied::start();
    let run = |sql: &str| {
        let out = Command::new(&mariadb)
            .args(["-h127.0.0.1", &format!("-P{}", server.port), "-uroot", "--batch", "-e", sql])
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.success(),
        )
    };
    let (_, err, ok) = run("CREATE DATABASE cli; CREATE TABLE cli.t (k INT PRIMARY KEY, v VARCHAR(10)); INSERT INTO cli.t VALUES (1,'one'),(2,NULL)");
    assert!(ok, "{err}");
    let (out, err, ok) = run("SELECT k, v FROM cli.t ORDER BY k");
    assert!(ok, "{err}");
    assert_eq!(out, "k\tv\n1\tone\n2\tNULL\n");
    let (_, err, ok) = run("SELECT * FROM cli.missing");
    assert!(!ok);
    assert!(err.contains("ERROR 1146"), "{err}");
}

/// Protocol coverage with sysbench's own client code: prepared statements (--db-ps-mode=auto),
/// BEGIN/COMMIT, point and range selects, from several threads. Write workloads belong to the
/// end-to-end sysbench suite.
#[test]
fn sysbench_read_only_runs_without_errors() {
    let _exclusive = crate::exclusive();
    let Some(sysbench) = find_program("sysbench") else {
        eprintln!("SKIPPED: sysbench is not installed");
        return;
    };
    let server = Selkied::start();
    runtime().block_on(async {
        let mut c = server.root().await;
        c.execute_text("CREATE DATABASE sbtest").await.unwrap();
    });
    let time = if stress() { "60" } else { "2" };
    let port = format!("--mysql-port={}", server.port);
    let common =
        ["--db-driver=mysql", "--mysql-host=127.0.0.1", &port, "--mysql-user=root", "--tables=2", "--table-size=500"];
    let prepare = Command::new(&sysbench).arg("oltp_read_only").args(common).arg("prepare").output().unwrap();
    assert!(
        prepare.status.success(),
        "prepare: {}{}",
        String::from_utf8_lossy(&prepare.stdout),
        String::from_utf8_lossy(&prepare.stderr)
    );
    for script in ["oltp_read_only", "oltp_point_select"] {
        let run = Command::new(&sysbench)
            .arg(script)
            .args(common)
            .args(["--threads=4", &format!("--time={time}"), "--report-interval=0", "run"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(run.status.success(), "{script}: {stdout}{}", String::from_utf8_lossy(&run.stderr));
        let field = |name: &str| {
            stdout
                .lines()
                .find_map(|l| l.trim_start().strip_prefix(name))
                .and_then(|rest| rest.split_whitespace().next())
                .unwrap_or_else(|| panic!("no '{name}' in {stdout}"))
                .to_string()
        };
        assert_eq!(field("ignored errors:"), "0", "{stdout}");
        let transactions: u64 = field("transactions:").parse().unwrap();
        assert!(transactions > 0, "{stdout}");
        eprintln!("sysbench {script}: {transactions} transactions in {time} s (debug build)");
    }
}

/// mysql-connector-python's prepared cursor (binary protocol) with `SELECT %s, %s + 1`: the
/// result columns take their types from the bound values, so no value comes back as NULL
/// (MariaDB re-derives result metadata at each execution). The expected values are MariaDB
/// 10.11's. Skipped when python3 or mysql-connector-python is not installed.
#[test]
fn mysql_connector_prepared_cursor_types_select_params() {
    let Some(python) = find_program("python3") else {
        eprintln!("SKIPPED: python3 is not installed");
        return;
    };
    let probe = Command::new(&python).args(["-c", "import mysql.connector"]).output().unwrap();
    if !probe.status.success() {
        eprintln!("SKIPPED: mysql-connector-python is not installed");
        return;
    }
    let server = Selkied::start();
    const SCRIPT: &str = r#"
import datetime, sys
import mysql.connector
c = mysql.connector.connect(host="127.0.0.1", port=int(sys.argv[1]), user="root")
cur = c.cursor(prepared=True)
cases = [
    (5, (5, 6)),
    (-7, (-7, -6)),
    ("5", ("5", 6.0)),
    (1.5, (1.5, 2.5)),
    (datetime.date(2024, 1, 1), (datetime.date(2024, 1, 1), 20240102)),
]
failures = []
for param, expected in cases:
    cur.execute("SELECT %s, %s + 1", (param, param))
    got = tuple(cur.fetchall()[0])
    if got != expected:
        failures.append(f"{param!r}: got {got!r}, expected {expected!r}")
# The same statement again with another type: metadata follows each execution.
cur.execute("SELECT %s, %s + 1", (10, 10))
got = tuple(cur.fetchall()[0])
if got != (10, 11):
    failures.append(f"re-execution: got {got!r}")
c.close()
if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok")
"#;
    let out = Command::new(&python).args(["-c", SCRIPT, &server.port.to_string()]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.trim(), "ok");
}
