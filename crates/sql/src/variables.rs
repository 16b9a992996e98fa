//! System variables: the registry (names, scopes, defaults, validation), global values, and each
//! session's values.
//!
//! What it promises: a variable reads the same through `SELECT @@x`, SHOW VARIABLES and
//! information_schema, because all three go through this module's getters. That is why the
//! value types below are fixed: clients and test suites compare them with MariaDB's.
//!
//! Values are typed as `SELECT @@x` returns them: booleans and integers as Int/UInt (so
//! `SELECT @@autocommit` is the integer 1), DOUBLE variables as a DECIMAL with six digits
//! (`10.000000`), everything else as Bytes. SHOW VARIABLES prints booleans as ON/OFF
//! (`SessionVariables::all`).
//!
//! Globals live behind one lock that only SET GLOBAL writes. The global values form an immutable
//! `Snapshot` behind an `Arc`: a new session shares the current snapshot (one reference count,
//! no copy) and copies it only on its first SET (copy-on-write), so an idle connection costs a
//! pointer rather than ~300 values; SET GLOBAL replaces the globals' snapshot and never touches
//! sessions that share the old one. Reading a session variable touches no shared mutable memory.
//! Values the executor consults on every statement (autocommit, isolation, sql_mode ...) are
//! decoded into plain fields of the snapshot when they change, so the hot path never parses a
//! variable. Per-connection state exposed as session-only variables (@@last_insert_id,
//! @@warning_count, @@in_transaction, @@insert_id, @@timestamp) lives in plain fields of the
//! session, so keeping it current after every statement never copies the snapshot.

mod charsets;
mod convert;
mod def;
pub(crate) mod describe;
mod errors;
mod registry;
mod table;

use std::sync::{Arc, LazyLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use parking_lot::RwLock;
use selkie_storage::{Decimal, IsolationLevel};

use crate::error::SqlError;
use crate::types::Warning;
use crate::types::{SqlServerConfig, Value};
use crate::value::TimeZone;
use def::{Access, Kind, Scope, Slot, VarDef};

pub(crate) use charsets::{
    charset as find_charset, database_collation, effective_charset, table_collation, CHARSETS, COLLATIONS,
};
pub(crate) use convert::storage_engine;
pub use convert::SqlMode;

/// The version Selkie reports (`@@version`, `VERSION()`): the MariaDB release whose behaviour it
/// reproduces, so that clients enable the same features, marked as Selkie.
pub const SERVER_VERSION: &str = "10.11.19-MariaDB-selkie";
pub const VERSION_COMMENT: &str = "Selkie MariaDB-compatible server";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarScope {
    Session,
    Global,
    /// `@@name` / `SET name`: the session value if the variable has session scope, else global.
    Default,
}

/// A side effect a SET GLOBAL has on the engine, for the caller to apply.
#[derive(Clone, Debug, PartialEq)]
pub enum GlobalEffect {
    None,
    FlushMode(u8),
}

/// Looks up a variable by name; 1193 if unknown.
fn lookup(name: &str) -> Result<(Slot, &'static VarDef), SqlError> {
    let slot = registry::find(name).ok_or_else(|| errors::unknown(name))?;
    Ok((slot, registry::def(slot)))
}

/// Stores an already converted value and keeps paired variables consistent, as MariaDB does:
/// a character set change resets its collation to the set's default and a collation change sets
/// the matching character set.
fn store(values: &mut [Value], slot: Slot, value: Value) {
    const PAIRS: [(&str, &str); 3] = [
        ("character_set_connection", "collation_connection"),
        ("character_set_database", "collation_database"),
        ("character_set_server", "collation_server"),
    ];
    let slot = registry::storage_slot(slot);
    let name = registry::def(slot).name;
    for (cs, coll) in PAIRS {
        if name == cs {
            if let Value::Bytes(b) = &value {
                if let Some(c) = charsets::charset(&String::from_utf8_lossy(b)) {
                    values[registry::slot_of(coll)] = Value::Bytes(c.default_collation.as_bytes().to_vec());
                }
            }
        } else if name == coll {
            if let Value::Bytes(b) = &value {
                if let Some(c) = charsets::collation(&String::from_utf8_lossy(b)) {
                    values[registry::slot_of(cs)] = Value::Bytes(c.charset.as_bytes().to_vec());
                }
            }
        }
    }
    values[slot] = value;
}

/// Where a global value came from (information_schema.SYSTEM_VARIABLES.GLOBAL_VALUE_ORIGIN).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    CompileTime,
    /// The server's configuration (port, datadir, buffer pool size, ...).
    Config,
    /// Computed by the server at startup (hostname, version, time zone, ...).
    Auto,
    /// SET GLOBAL.
    Sql,
}

impl Origin {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Origin::CompileTime => "COMPILE-TIME",
            Origin::Config => "CONFIG",
            Origin::Auto => "AUTO",
            Origin::Sql => "SQL",
        }
    }
}

/// A complete set of variable values with the executor's decoded copies of the hot ones.
/// Immutable while shared: writers go through `Arc::make_mut`.
#[derive(Clone)]
struct Snapshot {
    /// One value per registry slot (aliases' slots unused: they read their target's).
    /// Session-only slots hold the initial value new sessions start from.
    values: Vec<Value>,
    hot: HotValues,
}

impl Snapshot {
    fn new(values: Vec<Value>) -> Snapshot {
        let hot = HotValues::decode(&values);
        Snapshot { values, hot }
    }

    fn put(&mut self, slot: Slot, value: Value) {
        store(&mut self.values, slot, value);
        self.hot = HotValues::decode(&self.values);
    }
}

/// The global values and where each came from, changed together under one lock.
struct GlobalState {
    current: Arc<Snapshot>,
    origins: Vec<Origin>,
}

impl GlobalState {
    fn values(&self) -> &[Value] {
        &self.current.values
    }

    fn put(&mut self, slot: Slot, value: Value, origin: Origin) {
        // Sessions holding the previous snapshot keep it; the globals get a private copy.
        Arc::make_mut(&mut self.current).put(slot, value);
        self.origins[registry::storage_slot(slot)] = origin;
    }
}

pub struct GlobalVariables {
    state: RwLock<GlobalState>,
}

impl GlobalVariables {
    pub fn new(config: &SqlServerConfig) -> GlobalVariables {
        let values: Vec<Value> = registry::all().iter().map(convert::initial_value).collect();
        let origins = vec![Origin::CompileTime; values.len()];
        let mut state = GlobalState { current: Arc::new(Snapshot::new(values)), origins };
        let mut put = |name: &'static str, v: Value, origin: Origin| {
            let slot = registry::slot_of(name);
            // Configuration is trusted but still goes through the variable's range check, so a
            // bad config value is clamped like SET GLOBAL would clamp it, never stored raw.
            let v = match registry::def(slot).kind {
                Kind::Str { .. } => v,
                _ => convert::convert(registry::def(slot), &v, &mut Vec::new())
                    .unwrap_or_else(|_| state.values()[slot].clone()),
            };
            state.put(slot, v, origin);
        };
        let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        put("port", Value::UInt(u64::from(config.port)), Origin::Config);
        put("datadir", text(&datadir_text(&config.datadir)), Origin::Config);
        put("max_connections", Value::UInt(config.max_connections), Origin::Config);
        put("innodb_buffer_pool_size", Value::UInt(config.buffer_pool_bytes), Origin::Config);
        put("innodb_flush_log_at_trx_commit", Value::UInt(u64::from(config.flush_at_commit)), Origin::Config);
        put("innodb_lock_wait_timeout", Value::UInt(config.lock_wait_timeout_secs), Origin::Config);
        put("max_allowed_packet", Value::UInt(config.max_allowed_packet), Origin::Config);
        put("version", text(SERVER_VERSION), Origin::CompileTime);
        put("version_comment", text(VERSION_COMMENT), Origin::CompileTime);
        put("version_compile_os", text(std::env::consts::OS), Origin::CompileTime);
        put("version_compile_machine", text(std::env::consts::ARCH), Origin::CompileTime);
        put("hostname", text(&host_name()), Origin::Auto);
        put("system_time_zone", text(&system_time_zone()), Origin::Auto);
        put("tmpdir", text(std::env::temp_dir().to_string_lossy().trim_end_matches('/')), Origin::Auto);
        GlobalVariables { state: RwLock::new(state) }
    }

    /// Current global value; error 1193 if unknown.
    pub fn get(&self, name: &str) -> Result<Value, SqlError> {
        let (slot, def) = lookup(name)?;
        if def.scope == Scope::SessionOnly {
            return Err(errors::is_session(def.name));
        }
        Ok(self.state.read().values()[registry::storage_slot(slot)].clone())
    }

    /// The global value as SHOW GLOBAL VARIABLES prints it (booleans as ON/OFF).
    pub fn get_text(&self, name: &str) -> Result<String, SqlError> {
        let (_, def) = lookup(name)?;
        let value = self.get(name)?;
        Ok(convert::display(def, &value))
    }

    /// SET GLOBAL: validates (1231/1232), 1228 if session-only, 1238 if read-only.
    pub fn set(&self, name: &str, value: Value) -> Result<GlobalEffect, SqlError> {
        self.set_with_warnings(name, value, &mut Vec::new())
    }

    /// SET GLOBAL, collecting the warnings MariaDB gives (1292 when a value is clamped).
    pub fn set_with_warnings(
        &self,
        name: &str,
        value: Value,
        warnings: &mut Vec<Warning>,
    ) -> Result<GlobalEffect, SqlError> {
        let (slot, def) = lookup(name)?;
        if def.access == Access::ReadOnly {
            return Err(errors::read_only(def.name));
        }
        if def.scope == Scope::SessionOnly {
            return Err(errors::session_only_with_global(def.name));
        }
        let value = convert::convert(def, &value, warnings)?;
        if def.name == "max_allowed_packet" {
            self.warn_packet_below_net_buffer(&value, warnings);
        }
        let effect = global_effect(slot, &value);
        self.state.write().put(slot, value, Origin::Sql);
        Ok(effect)
    }

    /// MariaDB's 1708 when max_allowed_packet is set below net_buffer_length (the value is
    /// kept: the warning only says that packets will be cut at the smaller size).
    fn warn_packet_below_net_buffer(&self, value: &Value, warnings: &mut Vec<Warning>) {
        let net_buffer = self.get("net_buffer_length").ok().and_then(|v| crate::value::to_i64(&v));
        if let (Some(packet), Some(net_buffer)) = (crate::value::to_i64(value), net_buffer) {
            if packet < net_buffer {
                warnings.push(Warning {
                    level: crate::types::WarnLevel::Warning,
                    code: 1708,
                    message:
                        "The value of 'max_allowed_packet' should be no less than the value of 'net_buffer_length'"
                            .into(),
                });
            }
        }
    }

    /// SET GLOBAL x = DEFAULT: back to the compiled-in value.
    pub fn set_default(&self, name: &str) -> Result<GlobalEffect, SqlError> {
        let (slot, def) = lookup(name)?;
        let target = registry::def(registry::storage_slot(slot));
        self.set(def.name, convert::initial_value(target))
    }

    /// Sets a read-only variable whose value only the running server knows (bind_address,
    /// socket, pid_file, ...). For the server at startup, not for SQL.
    pub fn set_startup_value(&self, name: &str, value: Value) -> Result<(), SqlError> {
        let (slot, def) = lookup(name)?;
        if def.scope == Scope::SessionOnly {
            return Err(errors::session_only_with_global(def.name));
        }
        let value = match def.kind {
            Kind::Str { .. } => match value {
                Value::Bytes(_) | Value::Null => value,
                _ => return Err(errors::wrong_type(def.name)),
            },
            _ => convert::convert(def, &value, &mut Vec::new())?,
        };
        self.state.write().put(slot, value, Origin::Auto);
        Ok(())
    }

    /// The current global values, shared (not copied) with the caller.
    fn snapshot(&self) -> Arc<Snapshot> {
        self.state.read().current.clone()
    }
}

fn global_effect(slot: Slot, value: &Value) -> GlobalEffect {
    if registry::def(slot).name == "innodb_flush_log_at_trx_commit" {
        if let Value::UInt(mode) = value {
            debug_assert!(*mode <= 2, "the table limits flush modes to 0..=2");
            return GlobalEffect::FlushMode(*mode as u8);
        }
    }
    GlobalEffect::None
}

/// MariaDB prints datadir absolute, with a trailing slash.
fn datadir_text(datadir: &str) -> String {
    let abs = std::fs::canonicalize(datadir)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| datadir.to_string());
    if abs.ends_with('/') {
        abs
    } else {
        format!("{abs}/")
    }
}

/// Longest host name gethostname may return (POSIX HOST_NAME_MAX is 255).
const HOST_NAME_MAX: usize = 256;

fn host_name() -> String {
    let mut buf = [0u8; HOST_NAME_MAX];
    // SAFETY: the buffer is valid for `buf.len()` bytes; gethostname writes at most that many.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return String::new();
    }
    let len = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..len]).into_owned()
}

/// The abbreviation of the process's local time zone ("UTC", "CET", ...), as MariaDB's
/// system_time_zone shows it.
fn system_time_zone() -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let t = now as libc::time_t;
    // SAFETY: `tm` is plain data that localtime_r fills; tm_zone then points to static storage
    // owned by libc (or is null), which we copy out immediately.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() || tm.tm_zone.is_null() {
            return "UTC".into();
        }
        std::ffi::CStr::from_ptr(tm.tm_zone).to_string_lossy().into_owned()
    }
}

/// Decoded copies of the variables the executor reads on every statement.
#[derive(Clone, Copy, Debug)]
struct HotValues {
    group_concat_max_len: u64,
    sort_buffer_size: u64,
    tmp_table_size: u64,
    max_heap_table_size: u64,
    autocommit: bool,
    isolation: IsolationLevel,
    read_only: bool,
    sql_mode: SqlMode,
    lock_wait_timeout: Duration,
    metadata_lock_wait_timeout: Duration,
    sql_select_limit: u64,
    div_precision_increment: u32,
    /// max_statement_time in seconds (0: no limit).
    max_statement_time: f64,
    max_allowed_packet: u64,
    sql_notes: bool,
    time_zone: TimeZone,
    /// String literals get this collation (the binder reads it for every literal).
    collation_connection: crate::charset::Collation,
}

impl HotValues {
    fn decode(values: &[Value]) -> HotValues {
        let v = |name: &'static str| &values[registry::slot_of(name)];
        let flag = |name: &'static str| !matches!(v(name), Value::Int(0) | Value::UInt(0));
        let uint = |name: &'static str| match v(name) {
            Value::UInt(u) => *u,
            Value::Int(i) => *i as u64,
            other => {
                debug_assert!(false, "{name} holds {other:?}");
                0
            }
        };
        let bytes = |name: &'static str| match v(name) {
            Value::Bytes(b) => b.as_slice(),
            _ => b"",
        };
        HotValues {
            group_concat_max_len: uint("group_concat_max_len"),
            sort_buffer_size: uint("sort_buffer_size"),
            tmp_table_size: uint("tmp_table_size"),
            max_heap_table_size: uint("max_heap_table_size"),
            autocommit: flag("autocommit"),
            isolation: convert::isolation_from_text(bytes("tx_isolation")),
            read_only: flag("tx_read_only"),
            sql_mode: convert::sql_mode_flags(bytes("sql_mode")),
            lock_wait_timeout: Duration::from_secs(uint("innodb_lock_wait_timeout")),
            metadata_lock_wait_timeout: Duration::from_secs(uint("lock_wait_timeout")),
            sql_select_limit: uint("sql_select_limit"),
            div_precision_increment: u32::try_from(uint("div_precision_increment")).unwrap_or(4),
            max_statement_time: match v("max_statement_time") {
                Value::Double(d) => *d,
                Value::Decimal(d) => d.to_f64(),
                _ => 0.0,
            },
            max_allowed_packet: uint("max_allowed_packet"),
            sql_notes: flag("sql_notes"),
            time_zone: std::str::from_utf8(bytes("time_zone"))
                .ok()
                .and_then(TimeZone::parse)
                .unwrap_or(TimeZone::System),
            collation_connection: std::str::from_utf8(bytes("collation_connection"))
                .ok()
                .and_then(crate::charset::Collation::named)
                .unwrap_or_else(crate::charset::Collation::utf8mb4_bin),
        }
    }
}

/// Slots of the session-only variables whose values live in `SessionState` fields.
struct StateSlots {
    last_insert_id: Slot,
    insert_id: Slot,
    warning_count: Slot,
    error_count: Slot,
    in_transaction: Slot,
    timestamp: Slot,
}

static STATE_SLOTS: LazyLock<StateSlots> = LazyLock::new(|| StateSlots {
    last_insert_id: registry::slot_of("last_insert_id"),
    insert_id: registry::slot_of("insert_id"),
    warning_count: registry::slot_of("warning_count"),
    error_count: registry::slot_of("error_count"),
    in_transaction: registry::slot_of("in_transaction"),
    timestamp: registry::slot_of("timestamp"),
});

/// Per-connection state that MariaDB shows as session-only variables.
#[derive(Clone, Copy, Debug, Default)]
struct SessionState {
    last_insert_id: u64,
    /// `SET insert_id = n` (0 = not set).
    insert_id: u64,
    warning_count: u64,
    error_count: u64,
    in_transaction: bool,
    /// `SET timestamp = t` (None: NOW() follows the clock).
    timestamp: Option<Decimal>,
}

/// Session values saved for the length of one statement (SET STATEMENT).
pub struct SavedValues(Vec<(Slot, Value)>);

pub struct SessionVariables {
    /// The session's values: the globals' snapshot at connect, shared until the first SET.
    values: Arc<Snapshot>,
    state: SessionState,
    next_isolation: Option<IsolationLevel>,
    next_read_only: Option<bool>,
    /// Warnings of the last SET, for the caller to add to the statement's warnings.
    warnings: Vec<Warning>,
}

impl SessionVariables {
    /// Session values initialized from the globals (shared with them until the first SET).
    pub fn new(globals: &GlobalVariables) -> SessionVariables {
        SessionVariables {
            values: globals.snapshot(),
            state: SessionState::default(),
            next_isolation: None,
            next_read_only: None,
            warnings: Vec::new(),
        }
    }

    pub fn get(&self, globals: &GlobalVariables, name: &str, scope: VarScope) -> Result<Value, SqlError> {
        let (slot, def) = lookup(name)?;
        match (scope, def.scope) {
            (VarScope::Global, _) => globals.get(name),
            (VarScope::Session, Scope::Global) => Err(errors::is_global(def.name)),
            (VarScope::Default, Scope::Global) => globals.get(name),
            (_, Scope::Both | Scope::SessionOnly) => Ok(self.session_value(slot)),
        }
    }

    fn session_value(&self, slot: Slot) -> Value {
        let slot = registry::storage_slot(slot);
        let s = &*STATE_SLOTS;
        if slot == s.last_insert_id {
            Value::UInt(self.state.last_insert_id)
        } else if slot == s.insert_id {
            Value::UInt(self.state.insert_id)
        } else if slot == s.warning_count {
            Value::UInt(self.state.warning_count)
        } else if slot == s.error_count {
            Value::UInt(self.state.error_count)
        } else if slot == s.in_transaction {
            Value::UInt(u64::from(self.state.in_transaction))
        } else if slot == s.timestamp {
            Value::Decimal(self.fixed_timestamp().unwrap_or_else(now_timestamp))
        } else {
            self.values.values[slot].clone()
        }
    }

    /// Stores a converted session value: session state in its field, anything else in the
    /// session's own copy of the snapshot (made on the first such SET).
    fn put_session_value(&mut self, slot: Slot, value: Value) {
        let storage = registry::storage_slot(slot);
        let s = &*STATE_SLOTS;
        let uint = |v: &Value| match v {
            Value::UInt(u) => *u,
            Value::Int(i) => *i as u64,
            _ => 0,
        };
        if storage == s.last_insert_id {
            self.state.last_insert_id = uint(&value);
        } else if storage == s.insert_id {
            self.state.insert_id = uint(&value);
        } else if storage == s.timestamp {
            self.state.timestamp = match value {
                Value::Decimal(d) if !d.is_zero() => Some(d),
                _ => None,
            };
        } else {
            debug_assert!(
                ![s.warning_count, s.error_count, s.in_transaction].contains(&storage),
                "read-only session state is set by the executor only"
            );
            Arc::make_mut(&mut self.values).put(slot, value);
        }
    }

    /// SET [SESSION|GLOBAL] name = value. Global sets go through `globals.set`.
    pub fn set(
        &mut self,
        globals: &GlobalVariables,
        name: &str,
        scope: VarScope,
        value: Value,
    ) -> Result<GlobalEffect, SqlError> {
        self.warnings.clear();
        let (slot, def) = lookup(name)?;
        if scope == VarScope::Global {
            return globals.set_with_warnings(name, value, &mut self.warnings);
        }
        if def.access == Access::ReadOnly {
            return Err(errors::read_only(def.name));
        }
        if def.scope == Scope::Global {
            return Err(errors::global_only_with_session(def.name));
        }
        if def.access == Access::SessionReadOnly {
            return Err(errors::session_read_only(def.name));
        }
        let value = convert::convert(def, &value, &mut self.warnings)?;
        self.put_session_value(slot, value);
        Ok(GlobalEffect::None)
    }

    /// SET [SESSION|GLOBAL] name = DEFAULT: the session value becomes the global value, the
    /// global value the compiled-in default.
    pub fn set_default(
        &mut self,
        globals: &GlobalVariables,
        name: &str,
        scope: VarScope,
    ) -> Result<GlobalEffect, SqlError> {
        let (slot, def) = lookup(name)?;
        if scope == VarScope::Global {
            self.warnings.clear();
            return globals.set_default(name);
        }
        let value = match def.scope {
            Scope::SessionOnly => convert::initial_value(registry::def(registry::storage_slot(slot))),
            _ => globals.state.read().values()[registry::storage_slot(slot)].clone(),
        };
        self.set(globals, name, scope, value)
    }

    /// The session values of `names`, for SET STATEMENT to put back after its statement
    /// (1193 for an unknown name).
    pub fn save_for_statement(&self, names: &[String]) -> Result<SavedValues, SqlError> {
        let mut saved = Vec::with_capacity(names.len());
        for name in names {
            let (slot, def) = lookup(name)?;
            if def.access == Access::ReadOnly {
                return Err(errors::read_only(def.name));
            }
            let storage = registry::storage_slot(slot);
            let value = if storage == STATE_SLOTS.timestamp {
                // An unset timestamp is put back unset, not as the time it was saved.
                Value::Decimal(self.state.timestamp.unwrap_or(Decimal::new(0, 0)))
            } else {
                self.session_value(slot)
            };
            saved.push((slot, value));
        }
        Ok(SavedValues(saved))
    }

    /// Puts back values saved by `save_for_statement`.
    pub fn restore_after_statement(&mut self, saved: SavedValues) {
        for (slot, value) in saved.0 {
            self.put_session_value(slot, value);
        }
    }

    /// Warnings of the last `set` / `set_default` (1292 when a value was clamped).
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.warnings)
    }

    /// COM_RESET_CONNECTION / COM_CHANGE_USER: back to the current globals.
    pub fn reset(&mut self, globals: &GlobalVariables) {
        *self = SessionVariables::new(globals);
    }

    /// True while this session shares its values with the globals (no SET since connect):
    /// what keeps idle connections small.
    pub fn shares_global_values(&self, globals: &GlobalVariables) -> bool {
        Arc::ptr_eq(&self.values, &globals.state.read().current)
    }

    /// (name, value) of every variable visible to SHOW [SESSION|GLOBAL] VARIABLES, sorted.
    /// Values are in SHOW form: text, with booleans as ON/OFF and NULL as ''.
    pub fn all(&self, globals: &GlobalVariables, scope: VarScope) -> Vec<(String, Value)> {
        let global_state = globals.state.read();
        let global_values = global_state.values();
        let mut out = Vec::with_capacity(registry::all().len());
        for (slot, def) in registry::all().iter().enumerate() {
            let value = match (scope, def.scope) {
                (VarScope::Global, Scope::SessionOnly) => continue,
                (VarScope::Global, _) | (_, Scope::Global) => global_values[registry::storage_slot(slot)].clone(),
                _ => self.session_value(slot),
            };
            out.push((def.name.to_string(), Value::Bytes(convert::display(def, &value).into_bytes())));
        }
        debug_assert!(out.windows(2).all(|w| w[0].0 < w[1].0), "registry order is name order");
        out
    }

    pub fn autocommit(&self) -> bool {
        self.values.hot.autocommit
    }
    pub fn isolation(&self) -> IsolationLevel {
        self.values.hot.isolation
    }
    pub fn transaction_read_only(&self) -> bool {
        self.values.hot.read_only
    }
    pub fn sql_mode(&self) -> SqlMode {
        self.values.hot.sql_mode
    }
    /// `collation_connection`, decoded.
    pub fn collation_connection(&self) -> crate::charset::Collation {
        self.values.hot.collation_connection
    }
    pub fn lock_wait_timeout(&self) -> Duration {
        self.values.hot.lock_wait_timeout
    }
    /// `lock_wait_timeout` (not InnoDB's): how long a statement waits for a DDL that holds its
    /// table (MariaDB's metadata lock wait).
    pub fn metadata_lock_wait_timeout(&self) -> Duration {
        self.values.hot.metadata_lock_wait_timeout
    }
    /// sql_select_limit (u64::MAX = default / unlimited).
    /// div_precision_increment (0 to 38): the digits `/` adds to the dividend's scale.
    pub fn div_precision_increment(&self) -> u32 {
        self.values.hot.div_precision_increment
    }

    /// How long a statement may run (max_statement_time); None: without limit.
    pub fn max_statement_time(&self) -> Option<Duration> {
        let secs = self.values.hot.max_statement_time;
        (secs > 0.0).then(|| Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX))
    }

    pub fn sql_select_limit(&self) -> u64 {
        self.values.hot.sql_select_limit
    }
    pub fn max_allowed_packet(&self) -> u64 {
        self.values.hot.max_allowed_packet
    }
    /// group_concat_max_len in bytes.
    pub fn group_concat_max_len(&self) -> usize {
        usize::try_from(self.values.hot.group_concat_max_len).unwrap_or(usize::MAX)
    }
    /// sort_buffer_size in bytes: the memory of one sort before it writes runs to @@tmpdir.
    pub fn sort_buffer_size(&self) -> usize {
        usize::try_from(self.values.hot.sort_buffer_size).unwrap_or(usize::MAX)
    }
    /// The memory of one in-memory temporary table (GROUP BY, DISTINCT, UNION, a join's build
    /// side) before it spills: min(tmp_table_size, max_heap_table_size), as in MariaDB.
    pub fn tmp_table_budget(&self) -> usize {
        let hot = &self.values.hot;
        usize::try_from(hot.tmp_table_size.min(hot.max_heap_table_size)).unwrap_or(usize::MAX)
    }
    /// sql_notes: false suppresses Note-level warnings.
    pub fn sql_notes(&self) -> bool {
        self.values.hot.sql_notes
    }
    /// The session's time zone (`@@time_zone`).
    pub fn time_zone(&self) -> TimeZone {
        self.values.hot.time_zone
    }
    /// Stores the next transaction's one-shot characteristics (SET TRANSACTION without scope).
    pub fn set_next_transaction(&mut self, isolation: Option<IsolationLevel>, read_only: Option<bool>) {
        if isolation.is_some() {
            self.next_isolation = isolation;
        }
        if read_only.is_some() {
            self.next_read_only = read_only;
        }
    }
    /// Takes the one-shot characteristics (consumed when a transaction starts).
    pub fn take_next_transaction(&mut self) -> (Option<IsolationLevel>, Option<bool>) {
        (self.next_isolation.take(), self.next_read_only.take())
    }

    /// The name of an isolation level as tx_isolation spells it ("READ-COMMITTED").
    pub fn isolation_name(level: IsolationLevel) -> &'static str {
        convert::isolation_text(level)
    }

    // ---- session state mirrored in session-only variables ----
    //
    // MariaDB exposes some per-connection state as variables (@@last_insert_id, @@insert_id,
    // @@warning_count, @@in_transaction, @@timestamp). The executor owns that state and
    // reports it here so the variables read what the session really did.

    /// LAST_INSERT_ID(): settable with `SET last_insert_id = n` (and its alias `identity`).
    pub fn last_insert_id(&self) -> u64 {
        self.state.last_insert_id
    }
    pub fn set_last_insert_id(&mut self, id: u64) {
        self.state.last_insert_id = id;
    }
    /// `SET insert_id = n`: the value the next generated AUTO_INCREMENT uses (one shot).
    pub fn take_insert_id(&mut self) -> Option<u64> {
        match std::mem::take(&mut self.state.insert_id) {
            0 => None,
            v => Some(v),
        }
    }
    /// Counts of the last statement, for @@warning_count / @@error_count.
    pub fn set_diagnostics_counts(&mut self, warnings: u64, errors: u64) {
        self.state.warning_count = warnings;
        self.state.error_count = errors;
    }
    /// @@in_transaction.
    pub fn set_in_transaction(&mut self, active: bool) {
        self.state.in_transaction = active;
    }
    /// `SET timestamp = t` fixes NOW() to t (seconds since the epoch, 6 decimals); None when
    /// NOW() follows the clock (timestamp 0 / DEFAULT).
    pub fn fixed_timestamp(&self) -> Option<Decimal> {
        self.state.timestamp
    }
}

fn now_timestamp() -> Decimal {
    let micros = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_micros()).unwrap_or(0);
    Decimal::new(micros as i128, convert::DOUBLE_SCALE)
}

#[cfg(test)]
mod tests;
