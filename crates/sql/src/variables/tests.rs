//! Behaviour of system variables against MariaDB 10.11's (each expectation below was checked on
//! a MariaDB 10.11.19 server: codes, messages, value types and formats).

use super::describe::describe_all;
use super::*;

fn config() -> SqlServerConfig {
    SqlServerConfig {
        port: 3399,
        max_connections: 1000,
        buffer_pool_bytes: 1 << 30,
        flush_at_commit: 2,
        lock_wait_timeout_secs: 7,
        max_allowed_packet: 64 << 20,
        ..SqlServerConfig::for_tests()
    }
}

fn bytes(s: &str) -> Value {
    Value::Bytes(s.as_bytes().to_vec())
}

fn setup() -> (GlobalVariables, SessionVariables) {
    let g = GlobalVariables::new(&config());
    let s = SessionVariables::new(&g);
    (g, s)
}

fn err_code(r: Result<impl std::fmt::Debug, SqlError>) -> u16 {
    r.unwrap_err().code
}

#[test]
fn configuration_becomes_global_values() {
    let (g, s) = setup();
    assert_eq!(g.get("port").unwrap(), Value::UInt(3399));
    assert_eq!(g.get("datadir").unwrap(), bytes("/nonexistent/selkie-data/"));
    assert_eq!(g.get("max_connections").unwrap(), Value::UInt(1000));
    assert_eq!(g.get("innodb_buffer_pool_size").unwrap(), Value::UInt(1 << 30));
    assert_eq!(g.get("innodb_flush_log_at_trx_commit").unwrap(), Value::UInt(2));
    assert_eq!(g.get("innodb_lock_wait_timeout").unwrap(), Value::UInt(7));
    assert_eq!(g.get("max_allowed_packet").unwrap(), Value::UInt(64 << 20));
    assert_eq!(s.max_allowed_packet(), 64 << 20);
    assert_eq!(s.lock_wait_timeout(), Duration::from_secs(7));
    assert_eq!(g.get("version").unwrap(), bytes(SERVER_VERSION));
    assert_eq!(g.get("version_comment").unwrap(), bytes("Selkie MariaDB-compatible server"));
    assert_eq!(g.get_text("lower_case_table_names").unwrap(), "0");
    assert_eq!(g.get_text("have_ssl").unwrap(), "DISABLED");
    assert_eq!(g.get_text("performance_schema").unwrap(), "OFF");
    assert_eq!(g.get_text("log_bin").unwrap(), "OFF");
    assert_eq!(g.get_text("default_storage_engine").unwrap(), "InnoDB");
    assert_eq!(g.get_text("character_set_server").unwrap(), "utf8mb4");
    assert_eq!(g.get_text("collation_server").unwrap(), "utf8mb4_general_ci");
    assert!(!g.get_text("hostname").unwrap().is_empty());
    assert!(!g.get_text("system_time_zone").unwrap().is_empty());
}

#[test]
fn the_variables_clients_query_at_connect_exist() {
    let (g, s) = setup();
    for name in [
        "autocommit",
        "sql_mode",
        "time_zone",
        "system_time_zone",
        "character_set_client",
        "character_set_connection",
        "character_set_results",
        "character_set_server",
        "character_set_database",
        "character_set_system",
        "character_set_filesystem",
        "collation_connection",
        "collation_server",
        "collation_database",
        "max_allowed_packet",
        "net_buffer_length",
        "net_write_timeout",
        "net_read_timeout",
        "wait_timeout",
        "interactive_timeout",
        "tx_isolation",
        "transaction_isolation",
        "tx_read_only",
        "transaction_read_only",
        "version",
        "version_comment",
        "version_compile_os",
        "version_compile_machine",
        "lower_case_table_names",
        "license",
        "init_connect",
        "query_cache_type",
        "query_cache_size",
        "have_ssl",
        "performance_schema",
        "sql_select_limit",
        "sql_auto_is_null",
        "max_connections",
        "max_prepared_stmt_count",
        "tmp_table_size",
        "max_heap_table_size",
        "innodb_buffer_pool_size",
        "innodb_flush_log_at_trx_commit",
        "innodb_lock_wait_timeout",
        "lock_wait_timeout",
        "port",
        "datadir",
        "hostname",
        "server_id",
        "log_bin",
        "read_only",
        "gtid_domain_id",
        "gtid_current_pos",
        "gtid_slave_pos",
        "gtid_strict_mode",
        "last_insert_id",
        "identity",
        "insert_id",
        "timestamp",
        "foreign_key_checks",
        "unique_checks",
        "sql_notes",
        "sql_warnings",
        "div_precision_increment",
        "group_concat_max_len",
        "auto_increment_increment",
        "auto_increment_offset",
        "default_storage_engine",
        "storage_engine",
        "warning_count",
        "error_count",
        "in_transaction",
    ] {
        s.get(&g, name, VarScope::Default).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn values_are_typed_like_select_at_at() {
    let (g, s) = setup();
    let get = |n: &str| s.get(&g, n, VarScope::Default).unwrap();
    assert_eq!(get("autocommit"), Value::Int(1));
    assert_eq!(get("AUTOCOMMIT"), Value::Int(1), "names are case-insensitive");
    assert_eq!(get("sql_select_limit"), Value::UInt(u64::MAX));
    assert_eq!(get("long_query_time"), Value::Decimal(Decimal::new(10_000_000, 6)));
    assert_eq!(get("tx_isolation"), bytes("REPEATABLE-READ"));
    assert_eq!(
        get("sql_mode"),
        bytes("STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION")
    );
    assert_eq!(get("max_allowed_packet"), Value::UInt(64 << 20));
    assert_eq!(get("last_insert_id"), Value::UInt(0));
    assert!(s.autocommit());
    assert_eq!(s.isolation(), IsolationLevel::RepeatableRead);
    assert!(!s.transaction_read_only());
    assert_eq!(s.sql_select_limit(), u64::MAX);
    let mode = s.sql_mode();
    assert!(mode.strict_trans_tables && mode.error_for_division_by_zero && !mode.strict_all_tables);
    assert_eq!(s.time_zone().name(), "SYSTEM");
}

#[test]
fn scope_errors_match_mariadb() {
    let (g, mut s) = setup();
    let e = s.get(&g, "xyz", VarScope::Default).unwrap_err();
    assert_eq!((e.code, e.state, e.message.as_str()), (1193, "HY000", "Unknown system variable 'xyz'"));
    let e = s.get(&g, "version", VarScope::Session).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1238, "Variable 'version' is a GLOBAL variable"));
    let e = s.get(&g, "last_insert_id", VarScope::Global).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1238, "Variable 'last_insert_id' is a SESSION variable"));
    let e = s.set(&g, "version", VarScope::Session, Value::Int(1)).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1238, "Variable 'version' is a read only variable"));
    assert_eq!(err_code(s.set(&g, "version_comment", VarScope::Global, Value::Int(1))), 1238);
    let e = s.set(&g, "last_insert_id", VarScope::Global, Value::Int(1)).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (1228, "Variable 'last_insert_id' is a SESSION variable and can't be used with SET GLOBAL")
    );
    let e = s.set(&g, "max_connections", VarScope::Default, Value::Int(1)).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (1229, "Variable 'max_connections' is a GLOBAL variable and should be set with SET GLOBAL")
    );
    assert_eq!(err_code(s.set(&g, "max_connections", VarScope::Session, Value::Int(1))), 1229);
    let e = s.set(&g, "max_allowed_packet", VarScope::Default, Value::Int(1 << 20)).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (1621, "SESSION variable 'max_allowed_packet' is read-only. Use SET GLOBAL to assign the value")
    );
    assert_eq!(err_code(s.set(&g, "warning_count", VarScope::Default, Value::Int(1))), 1238);
    assert_eq!(err_code(g.set("nope", Value::Int(1))), 1193);
    assert_eq!(err_code(g.get("timestamp")), 1238);
    // The message names the variable as MariaDB spells it, whatever case the client used.
    let e = s.set(&g, "AUTOCOMMIT", VarScope::Default, Value::Int(5)).unwrap_err();
    assert_eq!(e.message, "Variable 'autocommit' can't be set to the value of '5'");
}

#[test]
fn session_values_are_copied_at_creation_and_set_global_does_not_touch_them() {
    let (g, mut s) = setup();
    s.set(&g, "wait_timeout", VarScope::Session, Value::Int(100)).unwrap();
    assert_eq!(s.get(&g, "wait_timeout", VarScope::Default).unwrap(), Value::UInt(100));
    assert_eq!(g.get("wait_timeout").unwrap(), Value::UInt(28800));
    assert_eq!(s.set(&g, "wait_timeout", VarScope::Global, Value::Int(200)).unwrap(), GlobalEffect::None);
    assert_eq!(s.get(&g, "wait_timeout", VarScope::Session).unwrap(), Value::UInt(100));
    assert_eq!(s.get(&g, "wait_timeout", VarScope::Global).unwrap(), Value::UInt(200));
    let fresh = SessionVariables::new(&g);
    assert_eq!(fresh.get(&g, "wait_timeout", VarScope::Default).unwrap(), Value::UInt(200));
    // SET GLOBAL max_allowed_packet: new sessions see it, this one keeps its copy (MariaDB).
    g.set("max_allowed_packet", Value::Int(1_000_000)).unwrap();
    assert_eq!(g.get("max_allowed_packet").unwrap(), Value::UInt(999_424));
    assert_eq!(s.max_allowed_packet(), 64 << 20);
    assert_eq!(SessionVariables::new(&g).max_allowed_packet(), 999_424);
    // Below net_buffer_length (16384): clamped to a multiple of 1024 and warned twice (MariaDB).
    let mut w = Vec::new();
    g.set_with_warnings("max_allowed_packet", Value::Int(16383), &mut w).unwrap();
    assert_eq!(g.get("max_allowed_packet").unwrap(), Value::UInt(15360));
    assert_eq!(w.iter().map(|w| w.code).collect::<Vec<_>>(), [1292, 1708]);
    w.clear();
    g.set_with_warnings("max_allowed_packet", Value::Int(16384), &mut w).unwrap();
    assert!(w.is_empty(), "{w:?}");
    s.reset(&g);
    assert_eq!(s.get(&g, "wait_timeout", VarScope::Default).unwrap(), Value::UInt(200));
}

#[test]
fn clamping_warns_like_mariadb() {
    let (g, mut s) = setup();
    s.set(&g, "wait_timeout", VarScope::Session, Value::Int(0)).unwrap();
    let w = s.take_warnings();
    assert_eq!(w.len(), 1);
    assert_eq!((w[0].level, w[0].code), (crate::types::WarnLevel::Warning, 1292));
    assert_eq!(w[0].message, "Truncated incorrect wait_timeout value: '0'");
    assert_eq!(s.get(&g, "wait_timeout", VarScope::Default).unwrap(), Value::UInt(1));
    s.set(&g, "wait_timeout", VarScope::Session, Value::Int(99_999_999_999)).unwrap();
    assert_eq!(s.get(&g, "wait_timeout", VarScope::Default).unwrap(), Value::UInt(31_536_000));
    s.set(&g, "max_connections", VarScope::Global, Value::Int(0)).unwrap();
    assert_eq!(s.take_warnings()[0].message, "Truncated incorrect max_connections value: '0'");
    assert_eq!(g.get("max_connections").unwrap(), Value::UInt(10));
    s.set(&g, "wait_timeout", VarScope::Session, Value::Int(50)).unwrap();
    assert!(s.take_warnings().is_empty());
    assert_eq!(err_code(s.set(&g, "wait_timeout", VarScope::Session, bytes("100"))), 1232);
}

#[test]
fn flush_mode_is_a_global_effect() {
    let (g, mut s) = setup();
    assert_eq!(
        s.set(&g, "innodb_flush_log_at_trx_commit", VarScope::Global, Value::Int(0)).unwrap(),
        GlobalEffect::FlushMode(0)
    );
    assert_eq!(g.get("innodb_flush_log_at_trx_commit").unwrap(), Value::UInt(0));
    // Selkie has modes 0..=2; MariaDB's 3 is clamped with a warning.
    assert_eq!(g.set("innodb_flush_log_at_trx_commit", Value::Int(3)).unwrap(), GlobalEffect::FlushMode(2));
    assert_eq!(err_code(s.set(&g, "innodb_flush_log_at_trx_commit", VarScope::Default, Value::Int(1))), 1229);
    assert_eq!(err_code(g.set("innodb_flush_log_at_trx_commit", bytes("1"))), 1232);
}

#[test]
fn isolation_aliases_stay_in_sync() {
    let (g, mut s) = setup();
    s.set(&g, "transaction_isolation", VarScope::Session, bytes("read-committed")).unwrap();
    assert_eq!(s.get(&g, "tx_isolation", VarScope::Default).unwrap(), bytes("READ-COMMITTED"));
    assert_eq!(s.isolation(), IsolationLevel::ReadCommitted);
    s.set(&g, "tx_isolation", VarScope::Session, Value::Int(3)).unwrap();
    assert_eq!(s.get(&g, "transaction_isolation", VarScope::Default).unwrap(), bytes("SERIALIZABLE"));
    assert_eq!(err_code(s.set(&g, "tx_isolation", VarScope::Session, bytes("READ COMMITTED"))), 1231);
    s.set(&g, "transaction_read_only", VarScope::Session, bytes("ON")).unwrap();
    assert_eq!(s.get(&g, "tx_read_only", VarScope::Default).unwrap(), Value::Int(1));
    assert!(s.transaction_read_only());
    s.set(&g, "tx_isolation", VarScope::Global, bytes("READ-UNCOMMITTED")).unwrap();
    assert_eq!(g.get("transaction_isolation").unwrap(), bytes("READ-UNCOMMITTED"));
    assert_eq!(SessionVariables::new(&g).isolation(), IsolationLevel::ReadUncommitted);
    s.set(&g, "storage_engine", VarScope::Session, bytes("innodb")).unwrap();
    assert_eq!(s.get(&g, "default_storage_engine", VarScope::Default).unwrap(), bytes("InnoDB"));
}

#[test]
fn sql_mode_drives_the_executor_flags() {
    let (g, mut s) = setup();
    s.set(&g, "sql_mode", VarScope::Default, bytes("ANSI")).unwrap();
    assert_eq!(
        s.get(&g, "sql_mode", VarScope::Default).unwrap(),
        bytes("REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ANSI")
    );
    let m = s.sql_mode();
    assert!(m.ansi_quotes && m.pipes_as_concat && !m.strict_trans_tables);
    s.set(&g, "sql_mode", VarScope::Default, bytes("TRADITIONAL")).unwrap();
    let m = s.sql_mode();
    assert!(m.strict_all_tables && m.strict_trans_tables && m.no_zero_date && m.no_zero_in_date && !m.ansi_quotes);
    s.set_default(&g, "sql_mode", VarScope::Session).unwrap();
    assert_eq!(s.sql_mode(), SessionVariables::new(&g).sql_mode());
    assert_eq!(err_code(s.set(&g, "sql_mode", VarScope::Default, bytes("FOO"))), 1231);
    assert_eq!(err_code(s.set(&g, "sql_mode", VarScope::Default, Value::Null)), 1231);
}

#[test]
fn set_default_uses_global_for_session_and_compiled_default_for_global() {
    let (g, mut s) = setup();
    g.set("wait_timeout", Value::Int(500)).unwrap();
    s.set(&g, "wait_timeout", VarScope::Session, Value::Int(9)).unwrap();
    s.set_default(&g, "wait_timeout", VarScope::Session).unwrap();
    assert_eq!(s.get(&g, "wait_timeout", VarScope::Default).unwrap(), Value::UInt(500));
    s.set_default(&g, "wait_timeout", VarScope::Global).unwrap();
    assert_eq!(g.get("wait_timeout").unwrap(), Value::UInt(28800));
    s.set(&g, "sql_select_limit", VarScope::Session, Value::Int(10)).unwrap();
    assert_eq!(s.sql_select_limit(), 10);
    s.set_default(&g, "sql_select_limit", VarScope::Default).unwrap();
    assert_eq!(s.sql_select_limit(), u64::MAX);
    assert_eq!(err_code(s.set_default(&g, "version", VarScope::Global)), 1238);
}

#[test]
fn character_set_and_collation_pairs_follow_each_other() {
    let (g, mut s) = setup();
    let get = |s: &SessionVariables, n: &str| s.get(&g, n, VarScope::Default).unwrap();
    s.set(&g, "character_set_connection", VarScope::Session, bytes("latin1")).unwrap();
    assert_eq!(get(&s, "collation_connection"), bytes("latin1_swedish_ci"));
    s.set(&g, "collation_connection", VarScope::Session, bytes("utf8mb4_general_ci")).unwrap();
    assert_eq!(get(&s, "character_set_connection"), bytes("utf8mb4"));
    s.set(&g, "character_set_client", VarScope::Session, bytes("utf8")).unwrap();
    assert_eq!(get(&s, "character_set_client"), bytes("utf8mb3"));
    s.set(&g, "character_set_results", VarScope::Session, Value::Null).unwrap();
    assert_eq!(get(&s, "character_set_results"), Value::Null);
    let shown = s.all(&g, VarScope::Session);
    let results = shown.iter().find(|(n, _)| n == "character_set_results").unwrap();
    assert_eq!(results.1, bytes(""), "SHOW VARIABLES prints NULL as an empty string");
    assert_eq!(err_code(s.set(&g, "character_set_client", VarScope::Session, bytes("foo"))), 1115);
    assert_eq!(err_code(s.set(&g, "collation_connection", VarScope::Session, bytes("foo"))), 1273);
    assert_eq!(err_code(s.set(&g, "character_set_client", VarScope::Session, Value::Null)), 1231);
}

#[test]
fn show_variables_listing() {
    let (g, s) = setup();
    let session = s.all(&g, VarScope::Session);
    let global = s.all(&g, VarScope::Global);
    assert!(global.len() >= 200);
    assert!(session.len() > global.len(), "session-only variables appear only in SESSION");
    assert!(session.windows(2).all(|w| w[0].0 < w[1].0));
    let find = |list: &[(String, Value)], n: &str| list.iter().find(|(name, _)| name == n).map(|(_, v)| v.clone());
    assert_eq!(find(&session, "autocommit"), Some(bytes("ON")));
    assert_eq!(find(&session, "long_query_time"), Some(bytes("10.000000")));
    assert_eq!(find(&global, "last_insert_id"), None);
    assert_eq!(find(&session, "last_insert_id"), Some(bytes("0")));
    assert_eq!(find(&global, "port"), Some(bytes("3399")));
    assert_eq!(find(&session, "transaction_isolation"), Some(bytes("REPEATABLE-READ")));
    for (_, v) in &session {
        assert!(matches!(v, Value::Bytes(_)), "SHOW values are text");
    }
}

#[test]
fn session_state_variables() {
    let (g, mut s) = setup();
    assert_eq!(s.take_insert_id(), None);
    s.set(&g, "insert_id", VarScope::Default, Value::Int(5)).unwrap();
    assert_eq!(s.get(&g, "insert_id", VarScope::Default).unwrap(), Value::UInt(5));
    assert_eq!(s.take_insert_id(), Some(5));
    assert_eq!(s.take_insert_id(), None, "insert_id is used once");
    s.set(&g, "last_insert_id", VarScope::Default, Value::Int(7)).unwrap();
    assert_eq!(s.last_insert_id(), 7);
    assert_eq!(s.get(&g, "identity", VarScope::Default).unwrap(), Value::UInt(7));
    s.set_last_insert_id(42);
    assert_eq!(s.get(&g, "last_insert_id", VarScope::Default).unwrap(), Value::UInt(42));
    s.set_diagnostics_counts(3, 1);
    assert_eq!(s.get(&g, "warning_count", VarScope::Default).unwrap(), Value::UInt(3));
    assert_eq!(s.get(&g, "error_count", VarScope::Default).unwrap(), Value::UInt(1));
    s.set_in_transaction(true);
    assert_eq!(s.get(&g, "in_transaction", VarScope::Default).unwrap(), Value::UInt(1));

    // timestamp follows the clock until set, then is fixed (MariaDB: SET timestamp fixes NOW()).
    assert_eq!(s.fixed_timestamp(), None);
    let Value::Decimal(now) = s.get(&g, "timestamp", VarScope::Default).unwrap() else { panic!() };
    assert!(now.to_f64() > 1.6e9);
    s.set(&g, "timestamp", VarScope::Default, Value::Decimal(Decimal::new(10_000_000_005, 1))).unwrap();
    assert_eq!(
        s.get(&g, "timestamp", VarScope::Default).unwrap(),
        Value::Decimal(Decimal::new(1_000_000_000_500_000, 6))
    );
    assert_eq!(s.fixed_timestamp(), Some(Decimal::new(1_000_000_000_500_000, 6)));
    s.set_default(&g, "timestamp", VarScope::Default).unwrap();
    assert_eq!(s.fixed_timestamp(), None);

    s.set(&g, "time_zone", VarScope::Default, bytes("+01:00")).unwrap();
    assert_eq!(s.time_zone().name(), "+01:00");
    assert_eq!(err_code(s.set(&g, "time_zone", VarScope::Default, bytes("bogus"))), 1298);
}

#[test]
fn next_transaction_characteristics_are_one_shot() {
    let (_, mut s) = setup();
    assert_eq!(s.take_next_transaction(), (None, None));
    s.set_next_transaction(Some(IsolationLevel::Serializable), None);
    s.set_next_transaction(None, Some(true));
    assert_eq!(s.take_next_transaction(), (Some(IsolationLevel::Serializable), Some(true)));
    assert_eq!(s.take_next_transaction(), (None, None));
    assert_eq!(s.isolation(), IsolationLevel::RepeatableRead, "the session level is unchanged");
}

#[test]
fn startup_values_override_read_only_variables() {
    let (g, s) = setup();
    g.set_startup_value("bind_address", bytes("127.0.0.1")).unwrap();
    assert_eq!(g.get_text("bind_address").unwrap(), "127.0.0.1");
    assert_eq!(s.get(&g, "bind_address", VarScope::Default).unwrap(), bytes("127.0.0.1"));
    assert_eq!(err_code(g.set("bind_address", bytes("x"))), 1238);
    assert_eq!(err_code(g.set_startup_value("bind_address", Value::Int(1))), 1232);
}

#[test]
fn system_variables_description_covers_every_variable() {
    let (g, s) = setup();
    let all = describe_all(&g, &s);
    assert_eq!(all.len(), registry::all().len());
    let ac = all.iter().find(|v| v.name == "autocommit").unwrap();
    assert_eq!((ac.scope, ac.type_name, ac.read_only), ("SESSION", "BOOLEAN", false));
    assert_eq!(ac.session_value, Some(Value::Int(1)));
    let v = all.iter().find(|v| v.name == "version").unwrap();
    assert_eq!((v.scope, v.read_only, v.session_value.is_none()), ("GLOBAL", true, true));
    let t = all.iter().find(|v| v.name == "timestamp").unwrap();
    assert_eq!((t.scope, t.global_value.is_none(), t.origin), ("SESSION ONLY", true, None));
    let origin = |all: &[describe::VariableInfo], n: &str| all.iter().find(|v| v.name == n).unwrap().origin;
    assert_eq!(origin(&all, "port"), Some("CONFIG"));
    assert_eq!(origin(&all, "hostname"), Some("AUTO"));
    assert_eq!(origin(&all, "wait_timeout"), Some("COMPILE-TIME"));
    g.set("wait_timeout", Value::Int(60)).unwrap();
    assert_eq!(origin(&describe_all(&g, &s), "wait_timeout"), Some("SQL"));
}

#[test]
fn sessions_share_the_global_values_until_their_first_set() {
    let (g, mut s) = setup();
    assert!(s.shares_global_values(&g), "a new session copies nothing");
    // Session state kept current by the executor does not unshare.
    s.set_last_insert_id(5);
    s.set_diagnostics_counts(2, 1);
    s.set_in_transaction(true);
    s.set(&g, "insert_id", VarScope::Session, Value::Int(9)).unwrap();
    s.set(&g, "timestamp", VarScope::Session, Value::Int(1_000_000_000)).unwrap();
    assert!(s.shares_global_values(&g));
    assert_eq!(s.get(&g, "last_insert_id", VarScope::Default).unwrap(), Value::UInt(5));
    // SET GLOBAL gives the globals a new snapshot; this session keeps the old values.
    g.set("wait_timeout", Value::Int(60)).unwrap();
    assert!(!s.shares_global_values(&g));
    assert_eq!(s.get(&g, "wait_timeout", VarScope::Session).unwrap(), Value::UInt(28800));
    let mut fresh = SessionVariables::new(&g);
    assert!(fresh.shares_global_values(&g));
    assert_eq!(fresh.get(&g, "wait_timeout", VarScope::Session).unwrap(), Value::UInt(60));
    // The first SET of a shared value makes a private copy; the globals are untouched.
    fresh.set(&g, "sql_mode", VarScope::Session, bytes("")).unwrap();
    assert!(!fresh.shares_global_values(&g));
    assert_eq!(fresh.get(&g, "sql_mode", VarScope::Session).unwrap(), bytes(""));
    assert_ne!(g.get("sql_mode").unwrap(), bytes(""));
}

#[test]
fn session_variables_are_small() {
    // What an idle connection pays for its variables: a shared pointer and the session state,
    // not one value per variable.
    assert!(std::mem::size_of::<SessionVariables>() <= 160, "{} bytes", std::mem::size_of::<SessionVariables>());
}
