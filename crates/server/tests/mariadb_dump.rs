//! `mariadb-dump` against selkied: a database with every column type Selkie stores, several
//! kinds of index and awkward data is dumped, the dump is restored into a second database
//! through selkied and into a MariaDB, and all three hold the same rows.
//!
//! mariadb-dump sends the SHOW forms sqlparser reads lossily (`SHOW TABLES LIKE 'x'`,
//! `SHOW TABLE STATUS LIKE 'x'`, `SHOW FIELDS FROM db.t`, ...), so this is the end-to-end check
//! of SHOW routing. Skipped (with a message) when the MariaDB client tools are not installed.

use crate::common;

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

/// Issue 14: a schema with the types, collations, foreign keys, CHECK constraints, generated
/// columns and defaults that applications' migrations create (the session time zone is not
/// UTC, so TIMESTAMP values are dumped converted, as mariadb-dump's --tz-utc asks). Selkied's dump of it must be MariaDB's dump of the same
/// statements, byte for byte, and restoring selkied's dump into selkied must dump the same again.
const FEATURE_SCHEMA: &[&str] = &[
    "CREATE TABLE parent (
        id INT UNSIGNED NOT NULL AUTO_INCREMENT,
        code VARCHAR(10) CHARACTER SET latin1 COLLATE latin1_swedish_ci NOT NULL,
        name VARCHAR(40) COLLATE utf8mb4_bin DEFAULT NULL,
        note TEXT,
        PRIMARY KEY (id),
        UNIQUE KEY parent_code (code),
        KEY parent_name (name(10))
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
    "CREATE TABLE child (
        id BIGINT NOT NULL,
        parent_id INT UNSIGNED DEFAULT NULL,
        t TIME(3) DEFAULT NULL,
        y YEAR DEFAULT NULL,
        size ENUM('small','medium','large') NOT NULL DEFAULT 'small',
        flags SET('a','b','c') DEFAULT NULL,
        doc JSON DEFAULT NULL,
        uid UUID DEFAULT NULL,
        ip4 INET4 DEFAULT NULL,
        ip6 INET6 DEFAULT NULL,
        zf INT(6) UNSIGNED ZEROFILL DEFAULT NULL,
        du DOUBLE UNSIGNED DEFAULT NULL,
        amount DECIMAL(20,6) NOT NULL DEFAULT 0.000000,
        qty INT NOT NULL DEFAULT 0,
        created DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
        seen TIMESTAMP NULL DEFAULT NULL,
        mask BIT(5) NOT NULL DEFAULT b'101',
        double_qty INT GENERATED ALWAYS AS (qty * 2) VIRTUAL,
        label VARCHAR(30) AS (concat('#', id, '-', size)) STORED,
        PRIMARY KEY (id),
        KEY child_label (label),
        KEY child_parent (parent_id),
        CONSTRAINT child_parent_fk FOREIGN KEY (parent_id) REFERENCES parent (id) ON DELETE CASCADE ON UPDATE SET NULL,
        CONSTRAINT qty_nonneg CHECK (qty >= 0)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
    "CREATE TABLE grandchild (
        child_id BIGINT NOT NULL,
        line SMALLINT NOT NULL,
        label CHAR(8) CHARACTER SET ascii COLLATE ascii_general_ci DEFAULT 'x',
        PRIMARY KEY (child_id, line),
        CONSTRAINT grandchild_child_fk FOREIGN KEY (child_id) REFERENCES child (id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
    "CREATE TABLE wide (
        id INT NOT NULL AUTO_INCREMENT,
        big DECIMAL(65,30) DEFAULT NULL,
        whole DECIMAL(65,0) UNSIGNED NOT NULL DEFAULT 0,
        name VARCHAR(20) CHARACTER SET latin1 COLLATE latin1_general_ci DEFAULT NULL,
        PRIMARY KEY (id),
        UNIQUE KEY wide_big (big DESC),
        KEY wide_name (name DESC, id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
];

const FEATURE_DATA: &[&str] = &[
    "INSERT INTO parent (code, name, note) VALUES ('ab', 'Ärger', 'n1'), ('CD', 'zebra', NULL), ('ef', NULL, '')",
    "INSERT INTO child VALUES
        (1, 1, '-838:59:59.000', 2024, 'large', 'a,c', '{\"k\": [1, 2]}', '123e4567-e89b-12d3-a456-426655440000',
         '10.0.0.1', '2001:db8::1', 42, 1.5, 123456.789, 3, '2024-05-06 07:08:09.123456',
         '2024-05-06 07:08:09', b'11111', DEFAULT, DEFAULT),
        (2, 2, '12:34:56.789', 1999, 'small', '', NULL, NULL, NULL, NULL, NULL, NULL, -0.5, 0,
         '2000-01-01 00:00:00.000000', NULL, 0, DEFAULT, DEFAULT),
        (3, NULL, NULL, NULL, 'medium', NULL, '[]', NULL, '255.255.255.255', '::ffff:1.2.3.4', 0, 0, 0, 1,
         '2020-02-29 23:59:59.999999', '1999-12-31 23:59:59', DEFAULT, DEFAULT, DEFAULT)",
    "INSERT INTO grandchild VALUES (1, 1, 'one'), (1, 2, NULL), (3, 1, 'three')",
    "INSERT INTO wide (big, whole, name) VALUES
        (99999999999999999999999999999999999.999999999999999999999999999999,
         99999999999999999999999999999999999999999999999999999999999999999, 'Äpfel'),
        (-1234567890123456789012345678901234.5, 1, 'apfel'),
        (NULL, 0, 'Zebra')",
];

/// `mariadb-dump` of `db` on `port`: the schema and rows, without the comments that name the
/// server version, host and date.
fn dump_database(dump: &std::path::Path, port: u16, db: &str) -> String {
    let mut args = connection_args(port);
    args.extend(["--skip-comments".into(), "--single-transaction".into(), db.into()]);
    String::from_utf8(run_tool(dump, &args, None)).expect("a dump is UTF-8")
}

fn assert_same_dump(expected: &str, actual: &str, what: &str) {
    if expected == actual {
        return;
    }
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let first = e.iter().zip(&a).position(|(x, y)| x != y).unwrap_or(e.len().min(a.len()));
    let show = |lines: &[&str]| lines.iter().skip(first).take(6).cloned().collect::<Vec<_>>().join("\n");
    panic!("{what}: dumps differ from line {} on\n--- expected:\n{}\n--- actual:\n{}", first + 1, show(&e), show(&a));
}

#[test]
fn mariadb_dump_of_schema_features_matches_mariadb_and_round_trips() {
    let (Some(dump), Some(client)) = (find_program("mariadb-dump"), find_program("mariadb")) else {
        eprintln!("skipped: mariadb-dump / mariadb not installed");
        return;
    };
    let server = Selkied::start();
    let rt = runtime();
    rt.block_on(async {
        let mut c = server.root().await;
        load_features(&mut c, "features").await;
    });
    let ours = dump_database(&dump, server.port, "features");
    for table in ["parent", "child", "grandchild", "wide"] {
        assert!(ours.contains(&format!("CREATE TABLE `{table}`")), "{ours}");
    }

    // Restored into selkied and dumped again: the same dump.
    let mut restore = connection_args(server.port);
    restore.extend(["-e".into(), "CREATE DATABASE again CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci".into()]);
    run_tool(&client, &restore, None);
    let mut restore = connection_args(server.port);
    restore.push("again".into());
    run_tool(&client, &restore, Some(ours.as_bytes()));
    assert_same_dump(&ours, &dump_database(&dump, server.port, "again"), "selkied dump, restored and dumped again");

    // MariaDB given the same statements dumps the same.
    let theirs = rt.block_on(async {
        let maria = MariaDb::find_or_start().await?;
        let db = format!("features_{}", std::process::id());
        let mut m = maria.root().await;
        m.execute_text(&format!("DROP DATABASE IF EXISTS `{db}`")).await.unwrap();
        load_features(&mut m, &db).await;
        let text = dump_database(&dump, maria.port, &db);
        m.execute_text(&format!("DROP DATABASE `{db}`")).await.unwrap();
        Some(text)
    });
    match theirs {
        Some(theirs) => assert_same_dump(&theirs, &ours, "MariaDB's dump (expected) and selkied's"),
        None => eprintln!("MariaDB part skipped: no MariaDB to compare with"),
    }
}

async fn load_features(c: &mut TcpClient, db: &str) {
    c.execute_text(&format!("CREATE DATABASE `{db}` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci")).await.unwrap();
    c.init_db(db).await.unwrap();
    // TIMESTAMP values are written in +02:00 and stored as UTC: the dump shows them in UTC.
    c.execute_text("SET time_zone = '+02:00'").await.unwrap();
    for sql in FEATURE_SCHEMA.iter().chain(FEATURE_DATA) {
        c.execute_text(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}
