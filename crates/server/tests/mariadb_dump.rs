//! `mariadb-dump` against selkied: a database with every column type Selkie stores, several
//! kinds of index and awkward data is dumped, the dump is restored into a second database
//! through selkied and into a MariaDB, and all three hold the same rows.
//!
//! mariadb-dump sends the SHOW forms sqlparser reads lossily (`SHOW TABLES LIKE 'x'`,
//! `SHOW TABLE STATUS LIKE 'x'`, `SHOW FIELDS FROM db.t`, ...), so this is the end-to-end check
//! of SHOW routing. Skipped (with a message) when the MariaDB client tools are not installed.

mod common;

use std::process::{Command, Stdio};

use common::mariadb::MariaDb;
use common::{find_program, runtime, Selkied, TcpClient};

const SCHEMA: &[&str] = &[
    "CREATE TABLE every_type (
        id INT NOT NULL AUTO_INCREMENT,
        ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, mi MEDIUMINT, i INT, iu INT UNSIGNED,
        bi BIGINT, bu BIGINT UNSIGNED, de DECIMAL(12,3), f FLOAT, d DOUBLE,
        c CHAR(5), vc VARCHAR(50) NOT NULL DEFAULT 'none', tx TEXT,
        bn BINARY(4), vb VARBINARY(10), bl BLOB,
        dt DATE, dtm DATETIME(3), ts TIMESTAMP NULL DEFAULT NULL,
        PRIMARY KEY (id),
        UNIQUE KEY uq_vc (vc),
        KEY k_i_bi (i, bi),
        KEY k_tx (tx(8))
    )",
    "CREATE TABLE no_pk (a INT, b VARCHAR(10), KEY ka (a))",
    "CREATE TABLE empty_one (k BIGINT PRIMARY KEY, note VARCHAR(20))",
];

const DATA: &[&str] = &[
    "INSERT INTO every_type VALUES
        (1, -128, 255, -32768, -8388608, -2147483648, 4294967295, -9223372036854775808, 18446744073709551615,
         -123456789.125, 1.5, -2.25, 'abc', 'first', 'long text\\nwith newline', x'00ff10ab', x'000102', x'ff00fe',
         '2024-02-29', '2024-02-29 13:14:15.123', '2001-02-03 04:05:06'),
        (2, 127, 0, 32767, 8388607, 2147483647, 0, 9223372036854775807, 0,
         0.5, -0.25, 1e100, '', 'quote''s \\\\ back\\\\slash', 'unicode: héllo wörld ✓', x'61626364', x'', x'',
         '1999-12-31', '2000-01-01 00:00:00.000', NULL),
        (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
         NULL, NULL, NULL, NULL, 'nulls', NULL, NULL, NULL, NULL,
         NULL, NULL, NULL)",
    "INSERT INTO no_pk VALUES (1, 'x'), (1, 'x'), (NULL, NULL), (-5, 'tab\\there')",
];

/// Every table's rows as text, in a stable order.
async fn contents(c: &mut TcpClient, db: &str) -> Vec<(String, Vec<Vec<Option<String>>>)> {
    let mut out = Vec::new();
    for (table, order) in [("every_type", "id"), ("no_pk", "a, b"), ("empty_one", "k")] {
        let rows = c.query_rows(&format!("SELECT * FROM `{db}`.`{table}` ORDER BY {order}")).await.unwrap();
        out.push((table.to_string(), rows));
    }
    out
}

fn run_tool(program: &std::path::Path, args: &[String], stdin: Option<&[u8]>) -> Vec<u8> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    if let Some(input) = stdin {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{} {args:?} failed: {}\n{}",
        program.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn connection_args(port: u16) -> Vec<String> {
    vec!["-h127.0.0.1".into(), format!("-P{port}"), "-uroot".into(), "--protocol=TCP".into()]
}

#[test]
fn mariadb_dump_round_trips_through_selkied_and_into_mariadb() {
    let (Some(dump), Some(client)) = (find_program("mariadb-dump"), find_program("mariadb")) else {
        eprintln!("skipped: mariadb-dump / mariadb not installed");
        return;
    };
    let server = Selkied::start();
    let rt = runtime();
    let source = rt.block_on(async {
        let mut c = server.root().await;
        c.execute_text("CREATE DATABASE src").await.unwrap();
        c.init_db("src").await.unwrap();
        for sql in SCHEMA.iter().chain(DATA) {
            c.execute_text(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        contents(&mut c, "src").await
    });
    assert_eq!(source[0].1.len(), 3);

    // --skip-tz-utc: Selkie keeps TIMESTAMP values as written, so the dump must not shift them.
    let mut args = connection_args(server.port);
    args.extend(["--skip-tz-utc".into(), "--single-transaction".into(), "src".into()]);
    let dumped = run_tool(&dump, &args, None);
    let text = String::from_utf8_lossy(&dumped);
    assert!(text.contains("CREATE TABLE `every_type`") && text.contains("INSERT INTO `no_pk`"), "{text}");

    // Restore into a second database through selkied.
    let mut restore = connection_args(server.port);
    restore.push("-e".into());
    restore.push("CREATE DATABASE dst".into());
    run_tool(&client, &restore, None);
    let mut restore = connection_args(server.port);
    restore.push("dst".into());
    run_tool(&client, &restore, Some(&dumped));
    rt.block_on(async {
        let mut c = server.root().await;
        assert_eq!(contents(&mut c, "dst").await, source, "restored through selkied");
        let create = |db: &str| format!("SHOW CREATE TABLE `{db}`.`every_type`");
        let a = c.query_rows(&create("src")).await.unwrap();
        let b = c.query_rows(&create("dst")).await.unwrap();
        assert_eq!(a, b, "the same definition after the round trip");
    });

    // And into MariaDB.
    rt.block_on(async {
        let Some(maria) = MariaDb::find_or_start().await else {
            eprintln!("MariaDB part skipped: no MariaDB to restore into");
            return;
        };
        let db = format!("selkie_dump_{}", std::process::id());
        let mut m = maria.root().await;
        m.execute_text(&format!("DROP DATABASE IF EXISTS `{db}`")).await.unwrap();
        m.execute_text(&format!("CREATE DATABASE `{db}`")).await.unwrap();
        let mut restore = connection_args(maria.port);
        restore.push(db.clone());
        run_tool(&client, &restore, Some(&dumped));
        let restored = contents(&mut m, &db).await;
        m.execute_text(&format!("DROP DATABASE `{db}`")).await.unwrap();
        assert_eq!(restored, source, "restored into MariaDB");
    });
}
