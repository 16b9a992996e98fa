//! SHOW and information_schema against a hand-built catalog. Expected rows are MariaDB
//! 10.11.19's for the same tables (created on a private server with the DDL quoted in
//! `create::tests`), except where Selkie deliberately differs (binary collations, NULL for
//! sizes it does not track) — those spots say so.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use selkie_storage::{
    Catalog, ColumnDef, ColumnDefault, ColumnType, DatabaseDef, Datum, IndexColumn, IndexDef, IntWidth, TableDef,
    TableOptions,
};
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;

use super::context::EngineView;
use super::*;
use crate::types::{column_flags, FieldType, ProcessInfo, ServerHooks, SqlServerConfig, WarnLevel, Warning};
use crate::variables::{GlobalVariables, SessionVariables};

/// Fixed engine numbers: rows per table id, next AUTO_INCREMENT per table id.
struct FixedEngine {
    rows: HashMap<u32, u64>,
    next_auto_inc: HashMap<u32, u64>,
    status: Vec<(String, String)>,
}

impl EngineView for FixedEngine {
    fn approx_row_count(&self, table: &TableDef) -> u64 {
        self.rows.get(&table.id).copied().unwrap_or(0)
    }
    fn next_auto_increment(&self, table: &TableDef) -> u64 {
        self.next_auto_inc.get(&table.id).copied().unwrap_or(1)
    }
    fn status_rows(&self) -> Vec<(String, String)> {
        self.status.clone()
    }
}

struct FakeHooks {
    processes: Vec<ProcessInfo>,
    status: Vec<(String, String)>,
}

impl ServerHooks for FakeHooks {
    fn processlist(&self) -> Vec<ProcessInfo> {
        self.processes.clone()
    }
    fn kill(&self, _id: u64, _query_only: bool) -> bool {
        false
    }
    fn status(&self) -> Vec<(String, String)> {
        self.status.clone()
    }
}

fn col(name: &str, ty: ColumnType, nullable: bool, default: ColumnDefault) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        ty,
        nullable,
        default,
        auto_increment: false,
        on_update_current_timestamp: false,
        comment: String::new(),
        zerofill: false,
        generated: None,
        collation: String::new(),
    }
}

fn int(width: IntWidth, unsigned: bool) -> ColumnType {
    ColumnType::Int { width, unsigned, display_width: None }
}

fn index(id: u32, name: &str, cols: &[(usize, Option<u32>)], unique: bool, primary: bool) -> IndexDef {
    IndexDef {
        id,
        name: name.into(),
        columns: cols
            .iter()
            .map(|&(column, prefix_len)| IndexColumn { column, prefix_len, descending: false })
            .collect(),
        unique,
        primary,
        root: 0,
    }
}

fn utf8mb4(comment: &str) -> TableOptions {
    TableOptions {
        engine: "InnoDB".into(),
        charset: "utf8mb4".into(),
        collation: "utf8mb4_bin".into(),
        comment: comment.into(),
        row_format: String::new(),
        sequence: None,
        key_format: selkie_storage::KEY_FORMAT_BYTES,
    }
}

/// sbtest1 (id 1) as sysbench creates it, in database `sbtest`.
fn sbtest1() -> TableDef {
    let mut t = create::tests::sbtest();
    t.db = "sbtest".into();
    t
}

/// A table with a composite primary key, a prefix index (engine prefix lengths are bytes: 40 = 10 utf8mb4 characters) and a multi-column unique key.
fn orders() -> TableDef {
    let mut cols = vec![
        col("a", int(IntWidth::Int, false), false, ColumnDefault::None),
        col("b", int(IntWidth::Big, true), false, ColumnDefault::None),
        col("n", ColumnType::Char { len: 10 }, false, ColumnDefault::None),
        col("o", ColumnType::VarChar { len: 255 }, true, ColumnDefault::Value(Datum::Bytes(b"x'y".to_vec()))),
        col("c", int(IntWidth::Small, false), true, ColumnDefault::None),
        col("d", int(IntWidth::Small, true), true, ColumnDefault::None),
        col("g", int(IntWidth::Int, false), false, ColumnDefault::None),
    ];
    cols[3].comment = "the o".into();
    TableDef {
        row_versions: Default::default(),
        id: 2,
        db: "sbtest".into(),
        name: "orders".into(),
        columns: cols,
        primary: index(10, "PRIMARY", &[(0, None), (1, None)], true, true),
        secondary: vec![
            index(11, "idx_no", &[(2, None), (3, Some(40))], false, false),
            index(12, "uq_multi", &[(4, None), (5, None)], true, false),
            index(13, "uq_g", &[(6, None)], true, false),
        ],
        options: utf8mb4("orders table"),
        constraints: Default::default(),
    }
}

/// No declared primary key; the unique NOT NULL key acts as one for SHOW COLUMNS' Key.
fn nopk() -> TableDef {
    TableDef {
        row_versions: Default::default(),
        id: 3,
        db: "other".into(),
        name: "nopk".into(),
        columns: vec![
            col("a", int(IntWidth::Int, false), false, ColumnDefault::None),
            col("b", ColumnType::VarChar { len: 10 }, true, ColumnDefault::None),
        ],
        primary: index(20, "PRIMARY", &[], true, true),
        secondary: vec![index(21, "ua", &[(0, None)], true, false)],
        options: TableOptions::default(),
        constraints: Default::default(),
    }
}

fn catalog() -> Catalog {
    let mut databases = BTreeMap::new();
    for name in ["sbtest", "other", "empty_db"] {
        databases.insert(
            name.to_string(),
            DatabaseDef { name: name.into(), charset: "utf8mb4".into(), collation: "utf8mb4_bin".into() },
        );
    }
    let mut tables = HashMap::new();
    for t in [sbtest1(), orders(), nopk()] {
        tables.insert((t.db.clone(), t.name.clone()), Arc::new(t));
    }
    Catalog { version: 1, databases, tables }
}

struct Fixture {
    catalog: Catalog,
    engine: FixedEngine,
    globals: GlobalVariables,
    session: SessionVariables,
    hooks: FakeHooks,
    warnings: Vec<Warning>,
    session_status: Vec<(String, u64)>,
}

impl Fixture {
    fn new() -> Fixture {
        let config = SqlServerConfig {
            datadir: "/nonexistent/data".into(),
            max_connections: 4096,
            buffer_pool_bytes: 512 << 20,
            lock_wait_timeout_secs: 50,
            ..SqlServerConfig::for_tests()
        };
        let globals = GlobalVariables::new(&config);
        let session = SessionVariables::new(&globals);
        let long_query = format!("SELECT {}", "x".repeat(150));
        Fixture {
            catalog: catalog(),
            engine: FixedEngine {
                rows: HashMap::from([(1, 2), (2, 7)]),
                next_auto_inc: HashMap::from([(1, 3)]),
                status: vec![("Innodb_rows_read".into(), "10".into()), ("Questions".into(), "999".into())],
            },
            globals,
            session,
            hooks: FakeHooks {
                processes: vec![
                    ProcessInfo {
                        id: 9,
                        user: "app".into(),
                        host: "127.0.0.1:5000".into(),
                        db: None,
                        command: "Sleep".into(),
                        time_secs: 4,
                        state: "".into(),
                        info: None,
                    },
                    ProcessInfo {
                        id: 7,
                        user: "root".into(),
                        host: "localhost:4000".into(),
                        db: Some("sbtest".into()),
                        command: "Query".into(),
                        time_secs: 0,
                        state: "starting".into(),
                        info: Some(long_query),
                    },
                ],
                status: vec![
                    ("Uptime".into(), "42".into()),
                    ("Threads_connected".into(), "2".into()),
                    ("Questions".into(), "100".into()),
                    ("Com_select".into(), "50".into()),
                ],
            },
            warnings: vec![
                Warning {
                    level: WarnLevel::Warning,
                    code: 1292,
                    message: "Truncated incorrect wait_timeout value: '0'".into(),
                },
                Warning { level: WarnLevel::Error, code: 1146, message: "Table 'sbtest.x' doesn't exist".into() },
            ],
            session_status: vec![("Com_select".into(), 3), ("Questions".into(), 5)],
        }
    }

    fn ctx(&self, current_db: Option<&'static str>) -> Ctx<'_> {
        Ctx {
            catalog: &self.catalog,
            engine: &self.engine,
            globals: &self.globals,
            session: &self.session,
            current_db,
            hooks: &self.hooks,
            warnings: &self.warnings,
            connection_id: 7,
            session_status: &self.session_status,
            temporary: None,
        }
    }

    /// Runs `sql` the way the SQL layer does: the text fallback first, then sqlparser.
    fn show(&self, sql: &str) -> Result<ResultSet, SqlError> {
        let ctx = self.ctx(Some("sbtest"));
        if let Some(r) = fallback(sql, &ctx) {
            return r;
        }
        let stmts = Parser::parse_sql(&MySqlDialect {}, sql).expect("parses");
        run(&ShowCommand::from_statement(&stmts[0])?, &ctx)
    }

    /// The same statement through sqlparser only (execute_show's path).
    fn show_ast(&self, sql: &str) -> Result<ResultSet, SqlError> {
        let stmts = Parser::parse_sql(&MySqlDialect {}, sql).expect("parses");
        run(&ShowCommand::from_statement(&stmts[0])?, &self.ctx(Some("sbtest")))
    }
}

fn t(s: &str) -> Value {
    Value::Bytes(s.as_bytes().to_vec())
}

fn names(rs: &ResultSet) -> Vec<&str> {
    rs.columns.iter().map(|c| c.name.as_str()).collect()
}

fn first_column(rs: &ResultSet) -> Vec<String> {
    rs.rows
        .iter()
        .map(|r| match &r[0] {
            Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
            other => format!("{other:?}"),
        })
        .collect()
}

fn code(r: Result<ResultSet, SqlError>) -> u16 {
    r.unwrap_err().code
}

#[test]
fn show_databases_lists_information_schema_first() {
    let f = Fixture::new();
    let rs = f.show("SHOW DATABASES").unwrap();
    assert_eq!(names(&rs), ["Database"]);
    assert_eq!((rs.columns[0].org_name.as_str(), rs.columns[0].table.as_str()), ("SCHEMA_NAME", "SCHEMATA"));
    assert_eq!(first_column(&rs), ["information_schema", "empty_db", "other", "sbtest"]);
    assert_eq!(first_column(&f.show("SHOW SCHEMAS LIKE 'sb%'").unwrap()), ["sbtest"]);
    assert!(f.show("SHOW DATABASES LIKE 'SB%'").unwrap().rows.is_empty(), "database names are case-sensitive");
    assert_eq!(first_column(&f.show("SHOW DATABASES WHERE `Database` LIKE 'o%'").unwrap()), ["other"]);
}

#[test]
fn show_tables_titles_full_and_errors() {
    let f = Fixture::new();
    let rs = f.show("SHOW TABLES").unwrap();
    assert_eq!(names(&rs), ["Tables_in_sbtest"]);
    assert_eq!(first_column(&rs), ["orders", "sbtest1"]);
    let rs = f.show("SHOW FULL TABLES FROM sbtest LIKE 'sb%'").unwrap();
    assert_eq!(names(&rs), ["Tables_in_sbtest (sb%)", "Table_type"]);
    assert_eq!(rs.rows, vec![vec![t("sbtest1"), t("BASE TABLE")]]);
    assert!(f.show("SHOW TABLES LIKE 'SB%'").unwrap().rows.is_empty());
    assert_eq!(first_column(&f.show("SHOW TABLES WHERE Tables_in_sbtest = 'SBTEST1'").unwrap()), ["sbtest1"]);
    let is = f.show("SHOW FULL TABLES FROM INFORMATION_SCHEMA LIKE 'TAB%'").unwrap();
    assert_eq!(names(&is)[0], "Tables_in_information_schema (TAB%)");
    assert_eq!(first_column(&is), ["TABLES", "TABLE_CONSTRAINTS", "TABLE_PRIVILEGES"]);
    assert_eq!(is.rows[0][1], t("SYSTEM VIEW"));
    assert!(f.show("SHOW TABLES FROM empty_db").unwrap().rows.is_empty());
    let e = f.show("SHOW TABLES FROM nope").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1049, "Unknown database 'nope'"));
    let none = run(&ShowCommand::Tables { full: false, db: None, filter: None }, &f.ctx(None)).unwrap_err();
    assert_eq!((none.code, none.state, none.message.as_str()), (1046, "3D000", "No database selected"));
}

/// MariaDB: SHOW [FULL] COLUMNS FROM sbtest1.
#[test]
fn show_columns_of_sbtest_matches_mariadb() {
    let f = Fixture::new();
    let rs = f.show("SHOW COLUMNS FROM sbtest1").unwrap();
    assert_eq!(names(&rs), ["Field", "Type", "Null", "Key", "Default", "Extra"]);
    assert_eq!(
        rs.rows,
        vec![
            vec![t("id"), t("int(11)"), t("NO"), t("PRI"), Value::Null, t("auto_increment")],
            vec![t("k"), t("int(11)"), t("NO"), t("MUL"), t("0"), t("")],
            vec![t("c"), t("char(120)"), t("NO"), t(""), t(""), t("")],
            vec![t("pad"), t("char(60)"), t("NO"), t(""), t(""), t("")],
        ]
    );
    // DESCRIBE through sqlparser (ExplainTable) and through the text path agree.
    assert_eq!(f.show_ast("DESCRIBE sbtest1").unwrap().rows, rs.rows);
    assert_eq!(f.show_ast("DESC sbtest.sbtest1").unwrap().rows, rs.rows);
    assert_eq!(f.show("DESCRIBE sbtest1 'pa%'").unwrap().rows, rs.rows[3..].to_vec());
    let full = f.show("SHOW FULL FIELDS FROM sbtest1 FROM sbtest LIKE 'PAD'").unwrap();
    assert_eq!(
        names(&full),
        ["Field", "Type", "Collation", "Null", "Key", "Default", "Extra", "Privileges", "Comment"]
    );
    assert_eq!(
        full.rows,
        vec![vec![
            t("pad"),
            t("char(60)"),
            t("utf8mb4_bin"),
            t("NO"),
            t(""),
            t(""),
            t(""),
            t("select,insert,update,references"),
            t("")
        ]]
    );
    let e = f.show("SHOW COLUMNS FROM nonexist").unwrap_err();
    assert_eq!((e.code, e.state, e.message.as_str()), (1146, "42S02", "Table 'sbtest.nonexist' doesn't exist"));
    let is = f.show("SHOW COLUMNS FROM information_schema.SCHEMATA").unwrap();
    assert_eq!(first_column(&is)[1], "SCHEMA_NAME");
    assert_eq!(is.rows[1][1], t("varchar(64)"));
}

#[test]
fn column_keys_follow_mariadb_rules() {
    let f = Fixture::new();
    let rs = f.show("SHOW COLUMNS FROM orders").unwrap();
    let keys: Vec<Value> = rs.rows.iter().map(|r| r[3].clone()).collect();
    // a,b: composite PK → PRI; n: first column of idx_no → MUL; o: second column → '';
    // c: first column of a multi-column unique key → MUL; d: ''; g: single-column unique → UNI.
    assert_eq!(keys, [t("PRI"), t("PRI"), t("MUL"), t(""), t("MUL"), t(""), t("UNI")]);
    assert_eq!(rs.rows[3][4], t("x'y"), "SHOW COLUMNS prints defaults unquoted");
    let nopk = f.show("SHOW COLUMNS FROM other.nopk").unwrap();
    assert_eq!(nopk.rows[0][3], t("PRI"), "a UNIQUE NOT NULL key stands in for the missing primary key");
}

/// MariaDB: SHOW INDEX FROM the same table (key order PRIMARY, unique NOT NULL, unique
/// nullable, others; Sub_part for prefixes; Null YES for nullable columns). Cardinality is the
/// engine's row estimate.
#[test]
fn show_index_matches_mariadb() {
    let f = Fixture::new();
    let rs = f.show("SHOW INDEX FROM orders").unwrap();
    assert_eq!(
        names(&rs),
        [
            "Table",
            "Non_unique",
            "Key_name",
            "Seq_in_index",
            "Column_name",
            "Collation",
            "Cardinality",
            "Sub_part",
            "Packed",
            "Null",
            "Index_type",
            "Comment",
            "Index_comment",
            "Ignored"
        ]
    );
    let summary: Vec<(Value, Value, Value, Value, Value, Value)> = rs
        .rows
        .iter()
        .map(|r| (r[1].clone(), r[2].clone(), r[3].clone(), r[4].clone(), r[7].clone(), r[9].clone()))
        .collect();
    assert_eq!(
        summary,
        vec![
            (Value::Int(0), t("PRIMARY"), Value::UInt(1), t("a"), Value::Null, t("")),
            (Value::Int(0), t("PRIMARY"), Value::UInt(2), t("b"), Value::Null, t("")),
            (Value::Int(0), t("uq_g"), Value::UInt(1), t("g"), Value::Null, t("")),
            (Value::Int(0), t("uq_multi"), Value::UInt(1), t("c"), Value::Null, t("YES")),
            (Value::Int(0), t("uq_multi"), Value::UInt(2), t("d"), Value::Null, t("YES")),
            (Value::Int(1), t("idx_no"), Value::UInt(1), t("n"), Value::Null, t("")),
            (Value::Int(1), t("idx_no"), Value::UInt(2), t("o"), Value::Int(10), t("YES")),
        ]
    );
    for r in &rs.rows {
        assert_eq!(
            (&r[0], &r[5], &r[6], &r[8], &r[10], &r[13]),
            (&t("orders"), &t("A"), &Value::Int(7), &Value::Null, &t("BTREE"), &t("NO"))
        );
    }
    // sbtest1, as MariaDB shows it after two inserts.
    let sb = f.show("SHOW KEYS FROM sbtest1 WHERE Key_name = 'primary'").unwrap();
    assert_eq!(
        sb.rows,
        vec![vec![
            t("sbtest1"),
            Value::Int(0),
            t("PRIMARY"),
            Value::UInt(1),
            t("id"),
            t("A"),
            Value::Int(2),
            Value::Null,
            Value::Null,
            t(""),
            t("BTREE"),
            t(""),
            t(""),
            t("NO")
        ]]
    );
    assert!(
        f.show("SHOW INDEX FROM other.nopk").unwrap().rows.iter().all(|r| r[2] == t("ua")),
        "no hidden primary key"
    );
    assert_eq!(code(f.show("SHOW INDEX FROM nonexist")), 1146);
    let meta = &rs.columns[1];
    assert_eq!(
        (meta.org_name.as_str(), meta.table.as_str(), meta.schema.as_str()),
        ("NON_UNIQUE", "STATISTICS", "information_schema")
    );
    assert_eq!(meta.field_type, FieldType::LongLong);
    assert!(meta.flags & column_flags::NOT_NULL != 0);
    assert_eq!(rs.columns[6].flags & column_flags::NOT_NULL, 0, "Cardinality may be NULL");
}

#[test]
fn show_create_table_and_database() {
    let f = Fixture::new();
    let rs = f.show_ast("SHOW CREATE TABLE sbtest1").unwrap();
    assert_eq!(names(&rs), ["Table", "Create Table"]);
    assert_eq!(rs.rows[0][0], t("sbtest1"));
    let Value::Bytes(sql) = &rs.rows[0][1] else { panic!() };
    let sql = String::from_utf8_lossy(sql);
    assert!(sql.ends_with(") ENGINE=InnoDB AUTO_INCREMENT=3 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"), "{sql}");
    let orders = f.show("SHOW CREATE TABLE sbtest.orders").unwrap();
    let Value::Bytes(sql) = &orders.rows[0][1] else { panic!() };
    let sql = String::from_utf8_lossy(sql);
    assert!(sql.contains("  PRIMARY KEY (`a`,`b`),\n  UNIQUE KEY `uq_g` (`g`),\n  UNIQUE KEY `uq_multi` (`c`,`d`),\n  KEY `idx_no` (`n`,`o`(10))\n"), "{sql}");
    assert!(sql.contains("`o` varchar(255) DEFAULT 'x''y' COMMENT 'the o',"), "{sql}");
    assert!(!sql.contains("AUTO_INCREMENT="), "no auto-increment column");
    let e = f.show("SHOW CREATE TABLE nonexist").unwrap_err();
    assert_eq!(e.message, "Table 'sbtest.nonexist' doesn't exist");
    let is = f.show("SHOW CREATE TABLE information_schema.schemata").unwrap();
    assert_eq!(is.rows[0][0], t("SCHEMATA"));

    let db = f.show("SHOW CREATE DATABASE sbtest").unwrap();
    assert_eq!(names(&db), ["Database", "Create Database"]);
    assert_eq!(
        db.rows[0],
        vec![t("sbtest"), t("CREATE DATABASE `sbtest` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin */")]
    );
    let is = f.show("SHOW CREATE SCHEMA INFORMATION_SCHEMA").unwrap();
    assert_eq!(is.rows[0][0], t("information_schema"));
    assert_eq!(code(f.show("SHOW CREATE DATABASE nope")), 1049);
    assert_eq!(code(f.show("SHOW CREATE VIEW sbtest1")), 1347);
    assert_eq!(code(f.show("SHOW CREATE VIEW nonexist")), 1146);
    let e = f.show("SHOW CREATE PROCEDURE p").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1305, "PROCEDURE p does not exist"));
    assert_eq!(code(f.show("SHOW CREATE TRIGGER tr")), 1360);
    assert_eq!(code(f.show("SHOW CREATE EVENT ev")), 1539);
}

#[test]
fn show_variables_filters_and_scopes() {
    let f = Fixture::new();
    let rs = f.show_ast("SHOW VARIABLES LIKE 'AUTOCOMMIT'").unwrap();
    assert_eq!(names(&rs), ["Variable_name", "Value"]);
    assert_eq!(rs.columns[0].table, "SESSION_VARIABLES");
    assert_eq!(rs.rows, vec![vec![t("autocommit"), t("ON")]]);
    let rs = f.show("SHOW VARIABLES LIKE 'auto\\_inc%'").unwrap();
    assert_eq!(first_column(&rs), ["auto_increment_increment", "auto_increment_offset"]);
    let rs =
        f.show_ast("SHOW SESSION VARIABLES WHERE Variable_name IN ('version_comment', 'max_allowed_packet')").unwrap();
    assert_eq!(
        rs.rows,
        vec![
            vec![t("max_allowed_packet"), t("16777216")],
            vec![t("version_comment"), t("Selkie MariaDB-compatible server")]
        ]
    );
    let global = f.show_ast("SHOW GLOBAL VARIABLES").unwrap();
    assert_eq!(global.columns[0].table, "GLOBAL_VARIABLES");
    assert!(!first_column(&global).contains(&"last_insert_id".to_string()));
    assert!(first_column(&f.show("SHOW SESSION VARIABLES").unwrap()).contains(&"last_insert_id".to_string()));
    let big = f.show_ast("SHOW VARIABLES WHERE Value > 1000000000000").unwrap();
    assert!(first_column(&big).contains(&"sql_select_limit".to_string()));
    assert_eq!(code(f.show_ast("SHOW VARIABLES WHERE nope = 1")), 1054);
}

#[test]
fn show_status_merges_engine_server_and_session_counters() {
    let f = Fixture::new();
    let session = f.show_ast("SHOW STATUS").unwrap();
    assert_eq!(names(&session), ["Variable_name", "Value"]);
    assert_eq!(
        session.rows,
        vec![
            vec![t("Com_select"), t("3")],
            vec![t("Innodb_rows_read"), t("10")],
            vec![t("Questions"), t("5")],
            vec![t("Threads_connected"), t("2")],
            vec![t("Uptime"), t("42")],
        ]
    );
    let global = f.show_ast("SHOW GLOBAL STATUS").unwrap();
    assert_eq!(global.columns[0].table, "GLOBAL_STATUS");
    let find = |rs: &ResultSet, n: &str| rs.rows.iter().find(|r| r[0] == t(n)).map(|r| r[1].clone());
    assert_eq!(find(&global, "Questions"), Some(t("100")), "the server's count wins over the engine's row");
    assert_eq!(find(&global, "Com_select"), Some(t("50")));
    assert_eq!(first_column(&f.show("SHOW GLOBAL STATUS LIKE 'com\\_%'").unwrap()), ["Com_select"]);
    assert_eq!(
        first_column(&f.show("SHOW STATUS WHERE Value > 4 AND Value < 40").unwrap()),
        ["Innodb_rows_read", "Questions"]
    );
}

#[test]
fn show_processlist_truncates_info_unless_full() {
    let f = Fixture::new();
    let rs = f.show_ast("SHOW PROCESSLIST").unwrap();
    assert_eq!(names(&rs), ["Id", "User", "Host", "db", "Command", "Time", "State", "Info", "Progress"]);
    assert_eq!(rs.rows[0][0], Value::Int(7), "sorted by id");
    let Value::Bytes(info) = &rs.rows[0][7] else { panic!() };
    assert_eq!(info.len(), server::PROCESS_LIST_WIDTH);
    assert_eq!(rs.rows[1][3], Value::Null);
    assert_eq!(rs.rows[1][7], Value::Null);
    assert_eq!(rs.rows[1][8], Value::Decimal(selkie_storage::Decimal::new(0, 3)));
    let full = f.show_ast("SHOW FULL PROCESSLIST").unwrap();
    let Value::Bytes(info) = &full.rows[0][7] else { panic!() };
    assert_eq!(info.len(), 157);
}

#[test]
fn show_warnings_errors_and_counts() {
    let f = Fixture::new();
    let rs = f.show("SHOW WARNINGS").unwrap();
    assert_eq!(names(&rs), ["Level", "Code", "Message"]);
    assert_eq!(rs.rows.len(), 2);
    assert_eq!(rs.rows[0], vec![t("Warning"), Value::UInt(1292), t("Truncated incorrect wait_timeout value: '0'")]);
    assert_eq!(
        f.show("SHOW ERRORS").unwrap().rows,
        vec![vec![t("Error"), Value::UInt(1146), t("Table 'sbtest.x' doesn't exist")]]
    );
    assert_eq!(f.show("SHOW WARNINGS LIMIT 1, 1").unwrap().rows.len(), 1);
    let count = f.show("SHOW COUNT(*) WARNINGS").unwrap();
    assert_eq!(names(&count), ["@@session.warning_count"]);
    assert_eq!(count.rows, vec![vec![Value::UInt(2)]]);
    assert_eq!(f.show_ast("SHOW COUNT(*) ERRORS").unwrap().rows, vec![vec![Value::UInt(1)]]);
}

#[test]
fn engines_charsets_collations_plugins_grants_replication() {
    let f = Fixture::new();
    let engines = f.show("SHOW ENGINES").unwrap();
    assert_eq!(names(&engines), ["Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"]);
    assert_eq!(first_column(&engines), ["InnoDB"]);
    let status = f.show("SHOW ENGINE INNODB STATUS").unwrap();
    assert_eq!(names(&status), ["Type", "Name", "Status"]);
    let Value::Bytes(text) = &status.rows[0][2] else { panic!() };
    let text = String::from_utf8_lossy(text);
    assert!(text.contains("INNODB MONITOR OUTPUT") && text.contains("\nInnodb_rows_read 10\n"), "{text}");
    assert!(f.show("SHOW ENGINE InnoDB MUTEX").unwrap().rows.is_empty());
    let e = f.show("SHOW ENGINE foo STATUS").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1286, "Unknown storage engine 'foo'"));

    let cs = f.show_ast("SHOW CHARACTER SET LIKE 'utf8mb4'").unwrap();
    assert_eq!(names(&cs), ["Charset", "Description", "Default collation", "Maxlen"]);
    assert_eq!(cs.rows, vec![vec![t("utf8mb4"), t("UTF-8 Unicode"), t("utf8mb4_general_ci"), Value::Int(4)]]);
    let coll = f.show_ast("SHOW COLLATION WHERE Charset = 'utf8mb4' AND Collation LIKE '%general_ci'").unwrap();
    assert_eq!(names(&coll), ["Collation", "Charset", "Id", "Default", "Compiled", "Sortlen"]);
    assert_eq!(
        coll.rows,
        vec![vec![t("utf8mb4_general_ci"), t("utf8mb4"), Value::Int(45), t("Yes"), t("Yes"), Value::Int(1)]]
    );
    for wanted in ["latin1", "binary", "utf8mb3"] {
        assert!(first_column(&f.show("SHOW CHARSET").unwrap()).contains(&wanted.to_string()));
    }

    let plugins = f.show("SHOW PLUGINS").unwrap();
    assert_eq!(names(&plugins), ["Name", "Status", "Type", "Library", "License"]);
    let grants = f.show("SHOW GRANTS").unwrap();
    assert_eq!(names(&grants), ["Grants for root@localhost"]);
    assert_eq!(grants.rows, vec![vec![t("GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION")]]);
    assert_eq!(f.show("SHOW GRANTS FOR 'root'@'localhost'").unwrap().rows, grants.rows);
    let e = f.show("SHOW GRANTS FOR 'nobody'@'x'").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1141, "There is no such grant defined for user 'nobody' on host 'x'"));

    let master = f.show("SHOW MASTER STATUS").unwrap();
    assert_eq!(names(&master), ["File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB"]);
    assert!(master.rows.is_empty());
    let slave = f.show("SHOW SLAVE STATUS").unwrap();
    assert_eq!(slave.columns.len(), 54);
    assert_eq!(slave.columns[0].name, "Slave_IO_State");
    assert!(slave.rows.is_empty());
    let e = f.show("SHOW BINARY LOGS").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1381, "You are not using binary logging"));
    for sql in ["SHOW TRIGGERS", "SHOW EVENTS FROM sbtest", "SHOW PROCEDURE STATUS", "SHOW FUNCTION STATUS LIKE 'x'"] {
        assert!(f.show(sql).unwrap().rows.is_empty(), "{sql}");
    }
    assert_eq!(code(f.show("SHOW TRIGGERS FROM nope")), 1049);
}

#[test]
fn table_status_matches_information_schema_tables() {
    let f = Fixture::new();
    let rs = f.show("SHOW TABLE STATUS LIKE 'sbtest1'").unwrap();
    assert_eq!(rs.columns.len(), 20);
    assert_eq!(names(&rs)[..5], ["Name", "Engine", "Version", "Row_format", "Rows"]);
    let r = &rs.rows[0];
    assert_eq!(
        (&r[0], &r[1], &r[2], &r[3], &r[4]),
        (&t("sbtest1"), &t("InnoDB"), &Value::UInt(10), &t("Dynamic"), &Value::UInt(2))
    );
    assert_eq!(r[10], Value::UInt(3), "Auto_increment is the next value");
    assert_eq!(r[14], t("utf8mb4_bin"));
    assert_eq!(r[19], t("N"));
    assert_eq!(r[6], Value::Null, "Selkie does not track data sizes");
    let orders = f.show("SHOW TABLE STATUS FROM sbtest WHERE Name = 'ORDERS'").unwrap();
    assert_eq!((&orders.rows[0][10], &orders.rows[0][17]), (&Value::Null, &t("orders table")));
    assert!(f.show("SHOW TABLE STATUS LIKE 'SBTEST1'").unwrap().rows.is_empty());
    let create_time = &rs.columns[11];
    assert_eq!(create_time.field_type, FieldType::DateTime);
}

#[test]
fn sqlparser_catch_all_forms_that_lost_text_are_refused() {
    let f = Fixture::new();
    // sqlparser keeps only identifiers; the filter would be lost, so execute_show refuses
    // instead of listing every table.
    assert_eq!(code(f.show_ast("SHOW TABLE STATUS LIKE 'sbtest1'")), 1064);
    assert_eq!(f.show_ast("SHOW TABLE STATUS").unwrap().rows.len(), 2);
    assert_eq!(f.show_ast("SHOW INDEX FROM sbtest1").unwrap().rows.len(), 2);
}

// ---- information_schema ----

#[test]
fn every_information_schema_table_has_rows_of_its_layout_width() {
    let f = Fixture::new();
    let ctx = f.ctx(Some("sbtest"));
    for name in info_schema_tables() {
        let layout = info_schema_columns(name).unwrap();
        let rows = information_schema::rows(name, &ctx).unwrap();
        for row in &rows {
            assert_eq!(row.len(), layout.len(), "{name}");
        }
        let metas = info_schema_column_metas(name).unwrap();
        assert_eq!(metas.len(), layout.len());
        for (meta, (col, _, _)) in metas.iter().zip(&layout) {
            assert_eq!((&meta.name, meta.table.as_str()), (col, name));
        }
    }
    assert_eq!(code(information_schema::rows("nope", &ctx).map(|rows| ResultSet { columns: vec![], rows })), 1146);
    assert!(info_schema_columns("Tables").is_some(), "names are case-insensitive");
    assert!(info_schema_columns("nope").is_none());
}

#[test]
fn information_schema_catalog_tables() {
    let f = Fixture::new();
    let ctx = f.ctx(None);
    let schemata = information_schema::rows("SCHEMATA", &ctx).unwrap();
    assert_eq!(
        schemata[0],
        vec![t("def"), t("information_schema"), t("utf8mb3"), t("utf8mb3_bin"), Value::Null, t("")]
    );
    assert_eq!(schemata[3], vec![t("def"), t("sbtest"), t("utf8mb4"), t("utf8mb4_bin"), Value::Null, t("")]);

    let tables = information_schema::rows("TABLES", &ctx).unwrap();
    let sb = tables.iter().find(|r| r[2] == t("sbtest1")).unwrap();
    assert_eq!(
        sb[..8],
        [
            t("def"),
            t("sbtest"),
            t("sbtest1"),
            t("BASE TABLE"),
            t("InnoDB"),
            Value::UInt(10),
            t("Dynamic"),
            Value::UInt(2)
        ]
    );
    assert_eq!(sb[13], Value::UInt(3));
    assert!(tables.iter().any(|r| r[1] == t("information_schema") && r[2] == t("COLUMNS") && r[3] == t("SYSTEM VIEW")));

    // MariaDB: SELECT * FROM information_schema.COLUMNS WHERE table_name = 'sbtest1'.
    let cols = information_schema::rows("COLUMNS", &ctx).unwrap();
    let sbcols: Vec<&Vec<Value>> = cols.iter().filter(|r| r[2] == t("sbtest1")).collect();
    assert_eq!(sbcols.len(), 4);
    assert_eq!(
        *sbcols[0],
        vec![
            t("def"),
            t("sbtest"),
            t("sbtest1"),
            t("id"),
            Value::UInt(1),
            Value::Null,
            t("NO"),
            t("int"),
            Value::Null,
            Value::Null,
            Value::UInt(10),
            Value::UInt(0),
            Value::Null,
            Value::Null,
            Value::Null,
            t("int(11)"),
            t("PRI"),
            t("auto_increment"),
            t("select,insert,update,references"),
            t(""),
            t("NEVER"),
            Value::Null
        ]
    );
    assert_eq!(sbcols[1][5], t("0"));
    let c = sbcols[2];
    assert_eq!(
        (&c[5], &c[7], &c[8], &c[9], &c[13], &c[14], &c[15]),
        (&t("''"), &t("char"), &Value::UInt(120), &Value::UInt(480), &t("utf8mb4"), &t("utf8mb4_bin"), &t("char(120)"))
    );
    let o = cols.iter().find(|r| r[2] == t("orders") && r[3] == t("o")).unwrap();
    assert_eq!((&o[5], &o[19]), (&t("'x''y'"), &t("the o")), "COLUMN_DEFAULT is an SQL expression");
    let nopk_b = cols.iter().find(|r| r[2] == t("nopk") && r[3] == t("b")).unwrap();
    assert_eq!(nopk_b[5], t("NULL"), "nullable without default: the string NULL, as MariaDB");
    let is_col = cols
        .iter()
        .find(|r| r[1] == t("information_schema") && r[2] == t("TABLES") && r[3] == t("TABLE_ROWS"))
        .unwrap();
    assert_eq!((&is_col[7], &is_col[10], &is_col[15]), (&t("bigint"), &Value::UInt(20), &t("bigint(21) unsigned")));

    // MariaDB: information_schema.STATISTICS / KEY_COLUMN_USAGE / TABLE_CONSTRAINTS.
    let stats = information_schema::rows("STATISTICS", &ctx).unwrap();
    let k = stats.iter().find(|r| r[5] == t("k_1")).unwrap();
    assert_eq!(
        *k,
        vec![
            t("def"),
            t("sbtest"),
            t("sbtest1"),
            Value::Int(1),
            t("sbtest"),
            t("k_1"),
            Value::UInt(1),
            t("k"),
            t("A"),
            Value::Int(2),
            Value::Null,
            Value::Null,
            t(""),
            t("BTREE"),
            t(""),
            t(""),
            t("NO")
        ]
    );
    let kcu = information_schema::rows("KEY_COLUMN_USAGE", &ctx).unwrap();
    let sb_pk: Vec<_> = kcu.iter().filter(|r| r[5] == t("sbtest1")).collect();
    assert_eq!(
        sb_pk,
        vec![&vec![
            t("def"),
            t("sbtest"),
            t("PRIMARY"),
            t("def"),
            t("sbtest"),
            t("sbtest1"),
            t("id"),
            Value::Int(1),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null
        ]]
    );
    let tc = information_schema::rows("TABLE_CONSTRAINTS", &ctx).unwrap();
    let orders_tc: Vec<Value> = tc.iter().filter(|r| r[4] == t("orders")).map(|r| r[5].clone()).collect();
    assert_eq!(orders_tc, [t("PRIMARY KEY"), t("UNIQUE"), t("UNIQUE")]);
    let parts = information_schema::rows("PARTITIONS", &ctx).unwrap();
    assert_eq!(parts.len(), 3);
}

#[test]
fn information_schema_server_tables() {
    let f = Fixture::new();
    let ctx = f.ctx(None);
    let vars = information_schema::rows("SESSION_VARIABLES", &ctx).unwrap();
    assert!(vars.iter().any(|r| r[0] == t("AUTOCOMMIT") && r[1] == t("ON")));
    let status = information_schema::rows("global_status", &ctx).unwrap();
    assert!(status.iter().any(|r| r[0] == t("UPTIME") && r[1] == t("42")));
    let sys = information_schema::rows("SYSTEM_VARIABLES", &ctx).unwrap();
    let ac = sys.iter().find(|r| r[0] == t("AUTOCOMMIT")).unwrap();
    assert_eq!((&ac[1], &ac[2], &ac[5], &ac[6], &ac[12]), (&t("ON"), &t("ON"), &t("SESSION"), &t("BOOLEAN"), &t("NO")));
    let pl = information_schema::rows("PROCESSLIST", &ctx).unwrap();
    assert_eq!(pl.len(), 2);
    assert_eq!(
        pl.iter().find(|r| r[0] == Value::Int(9)).unwrap()[8],
        Value::Decimal(selkie_storage::Decimal::new(4_000_000, 3))
    );
    let privs = information_schema::rows("USER_PRIVILEGES", &ctx).unwrap();
    assert!(privs.iter().all(|r| r[0] == t("'root'@'localhost'")));
    assert!(information_schema::rows("ROUTINES", &ctx).unwrap().is_empty());
    assert_eq!(information_schema::rows("ENGINES", &ctx).unwrap().len(), 1);
    assert_eq!(information_schema::rows("COLLATIONS", &ctx).unwrap().len(), crate::variables::COLLATIONS.len());
}
