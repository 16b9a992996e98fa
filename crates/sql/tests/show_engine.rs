//! SHOW and information_schema over the real storage engine: row estimates, the next
//! AUTO_INCREMENT value and the engine's status counters come from a running Engine.
//! The server hooks are a fixed stand-in: the server is not under test.

use std::sync::Arc;
use std::time::Duration;

use selkie_sql::show::{execute_show, execute_show_fallback, info_schema_rows, ShowContext};
use selkie_sql::variables::{GlobalVariables, SessionVariables};
use selkie_sql::{ProcessInfo, ResultSet, ServerHooks, SqlError, SqlServerConfig, Value};
use selkie_storage::{
    ColumnDef, ColumnDefault, ColumnType, DatabaseDef, Datum, Engine, EngineConfig, IndexColumn, IntWidth,
    IsolationLevel, NewIndex, NewTable, OnDuplicate, TableOptions, TrxOptions,
};
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;

struct Hooks;

impl ServerHooks for Hooks {
    fn processlist(&self) -> Vec<ProcessInfo> {
        vec![ProcessInfo {
            id: 1,
            user: "root".into(),
            host: "localhost".into(),
            db: Some("sb".into()),
            command: "Query".into(),
            time_secs: 0,
            state: "starting".into(),
            info: None,
        }]
    }
    fn kill(&self, _id: u64, _query_only: bool) -> bool {
        false
    }
    fn status(&self) -> Vec<(String, String)> {
        vec![("Uptime".into(), "1".into())]
    }
}

fn column(name: &str, ty: ColumnType, default: ColumnDefault) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        ty,
        nullable: false,
        default,
        auto_increment: false,
        on_update_current_timestamp: false,
        comment: String::new(),
        zerofill: false,
        generated: None,
        collation: String::new(),
    }
}

/// sysbench's table: id INT AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 0,
/// c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_1 (k).
fn sbtest1() -> NewTable {
    let int = ColumnType::Int { width: IntWidth::Int, unsigned: false, display_width: None };
    let mut id = column("id", int.clone(), ColumnDefault::None);
    id.auto_increment = true;
    NewTable {
        db: "sb".into(),
        name: "sbtest1".into(),
        columns: vec![
            id,
            column("k", int, ColumnDefault::Value(Datum::Int(0))),
            column("c", ColumnType::Char { len: 120 }, ColumnDefault::Value(Datum::Bytes(Vec::new()))),
            column("pad", ColumnType::Char { len: 60 }, ColumnDefault::Value(Datum::Bytes(Vec::new()))),
        ],
        primary_key: vec![IndexColumn { column: 0, prefix_len: None, descending: false }],
        indexes: vec![NewIndex {
            name: "k_1".into(),
            columns: vec![IndexColumn { column: 1, prefix_len: None, descending: false }],
            unique: false,
        }],
        options: TableOptions {
            engine: "InnoDB".into(),
            charset: "utf8mb4".into(),
            collation: "utf8mb4_bin".into(),
            comment: String::new(),
            row_format: String::new(),
            sequence: None,
            key_format: selkie_storage::KEY_FORMAT_BYTES,
        },
        auto_increment_start: None,
    }
}

const ROWS: i64 = 5;

async fn engine_with_rows(dir: &std::path::Path) -> Arc<Engine> {
    let mut config = EngineConfig::new(dir);
    config.buffer_pool_bytes = 8 << 20;
    config.max_sessions = 16;
    let e = Engine::open(config).unwrap();
    e.create_database(
        DatabaseDef { name: "sb".into(), charset: "utf8mb4".into(), collation: "utf8mb4_bin".into() },
        false,
    )
    .await
    .unwrap();
    e.create_table(sbtest1(), false).await.unwrap();
    let t = e.catalog().table("sb", "sbtest1").cloned().unwrap();
    let slot = e.register_session().unwrap();
    let opts = TrxOptions {
        isolation: IsolationLevel::RepeatableRead,
        read_only: false,
        lock_wait_timeout: Duration::from_secs(5),
    };
    let mut trx = e.begin(&slot, opts);
    trx.begin_statement();
    let first = trx.auto_increment_next(&t, ROWS as u64).unwrap() as i64;
    for id in first..first + ROWS {
        let row = vec![Datum::Int(id), Datum::Int(id % 3), Datum::Bytes(b"c".to_vec()), Datum::Bytes(b"p".to_vec())];
        trx.insert(&t, row, OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
    e
}

fn config() -> SqlServerConfig {
    SqlServerConfig { datadir: "/tmp".into(), buffer_pool_bytes: 8 << 20, ..SqlServerConfig::for_tests() }
}

/// Runs a SHOW the way the SQL layer does: text fallback first, then sqlparser.
fn show(ctx: &ShowContext, sql: &str) -> Result<ResultSet, SqlError> {
    if let Some(r) = execute_show_fallback(sql, ctx) {
        return r;
    }
    let stmt = Parser::parse_sql(&MySqlDialect {}, sql).unwrap().remove(0);
    execute_show(&stmt, ctx)
}

fn text(v: &Value) -> String {
    match v {
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("not text: {other:?}"),
    }
}

#[tokio::test]
async fn engine_numbers_reach_show_and_information_schema() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine_with_rows(dir.path()).await;
    let catalog = engine.catalog();
    let globals = GlobalVariables::new(&config());
    let session = SessionVariables::new(&globals);
    let ctx = ShowContext {
        catalog: &catalog,
        engine: &engine,
        globals: &globals,
        session: &session,
        current_db: Some("sb"),
        hooks: &Hooks,
        warnings: &[],
        connection_id: 1,
        session_status: &[("Com_select".into(), 4)],
        temporary: None,
    };

    let status = show(&ctx, "SHOW TABLE STATUS LIKE 'sbtest1'").unwrap();
    assert_eq!(status.rows.len(), 1);
    assert_eq!(status.rows[0][4], Value::UInt(ROWS as u64), "Rows: the engine's count");
    assert_eq!(status.rows[0][10], Value::UInt(ROWS as u64 + 1), "Auto_increment: the next value");

    let create = show(&ctx, "SHOW CREATE TABLE sbtest1").unwrap();
    assert_eq!(
        text(&create.rows[0][1]),
        "CREATE TABLE `sbtest1` (\n  `id` int(11) NOT NULL AUTO_INCREMENT,\n  `k` int(11) NOT NULL DEFAULT 0,\n  `c` char(120) NOT NULL DEFAULT '',\n  `pad` char(60) NOT NULL DEFAULT '',\n  PRIMARY KEY (`id`),\n  KEY `k_1` (`k`)\n) ENGINE=InnoDB AUTO_INCREMENT=6 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
    );

    let index = show(&ctx, "SHOW INDEX FROM sbtest1").unwrap();
    assert!(index.rows.iter().all(|r| r[6] == Value::Int(ROWS)), "Cardinality: the row estimate");

    let global = show(&ctx, "SHOW GLOBAL STATUS LIKE 'Innodb_rows_inserted'").unwrap();
    assert_eq!(global.rows.len(), 1);
    assert!(text(&global.rows[0][1]).parse::<u64>().unwrap() >= ROWS as u64);
    let session_status = show(&ctx, "SHOW STATUS WHERE Variable_name IN ('Com_select', 'Uptime')").unwrap();
    assert_eq!(session_status.rows.len(), 2);

    let engine_status = show(&ctx, "SHOW ENGINE INNODB STATUS").unwrap();
    let report = text(&engine_status.rows[0][2]);
    assert!(report.contains("Innodb_rows_inserted") && report.contains("END OF INNODB MONITOR OUTPUT"), "{report}");

    let tables = info_schema_rows("TABLES", &ctx).unwrap();
    let row = tables.iter().find(|r| r[2] == Value::Bytes(b"sbtest1".to_vec())).unwrap();
    assert_eq!((&row[7], &row[13]), (&Value::UInt(ROWS as u64), &Value::UInt(ROWS as u64 + 1)));
    engine.shutdown().unwrap();
}
