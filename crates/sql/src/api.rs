//! The SQL layer's API for the server.
//!
//! INTERFACE CONTRACT (frozen; the server is written against these signatures).
//!
//! Changes since the first contract: `Session::interrupt_flag` returns an `Interrupt` (a flag a
//! waiting statement can await, so KILL QUERY ends a row-lock wait at once);
//! `Session::set_multi_statements`; `Session::status_counters`. The futures of
//! `execute_text` / `execute_prepared` are `Send` (checked by a test below).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use selkie_storage::{Datum, Engine};

/// Values computed by SQL are the engine's stored values.
pub type Value = Datum;

/// A MySQL-style error: error number, SQLSTATE and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlError {
    pub code: u16,
    pub state: &'static str,
    pub message: String,
}

impl std::fmt::Display for SqlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ERROR {} ({}): {}", self.code, self.state, self.message)
    }
}

impl std::error::Error for SqlError {}

impl SqlError {
    pub fn new(code: u16, state: &'static str, message: impl Into<String>) -> SqlError {
        SqlError { code, state, message: message.into() }
    }
}

impl From<selkie_storage::StorageError> for SqlError {
    fn from(e: selkie_storage::StorageError) -> SqlError {
        let (code, state) = e.mysql_code();
        SqlError { code, state, message: e.to_string() }
    }
}

/// MySQL column type codes as sent on the wire (`enum_field_types`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum FieldType {
    Decimal = 0,
    Tiny = 1,
    Short = 2,
    Long = 3,
    Float = 4,
    Double = 5,
    Null = 6,
    Timestamp = 7,
    LongLong = 8,
    Int24 = 9,
    Date = 10,
    Time = 11,
    DateTime = 12,
    Year = 13,
    VarChar = 15,
    Bit = 16,
    NewDecimal = 246,
    Blob = 252,
    VarString = 253,
    String = 254,
}

/// Column flags as sent on the wire.
pub mod column_flags {
    pub const NOT_NULL: u16 = 1;
    pub const PRI_KEY: u16 = 2;
    pub const UNIQUE_KEY: u16 = 4;
    pub const MULTIPLE_KEY: u16 = 8;
    pub const BLOB: u16 = 16;
    pub const UNSIGNED: u16 = 32;
    pub const ZEROFILL: u16 = 64;
    pub const BINARY: u16 = 128;
    pub const AUTO_INCREMENT: u16 = 512;
    pub const TIMESTAMP: u16 = 1024;
    pub const NUM: u16 = 32768;
}

/// Character set / collation ids used in column definitions.
pub const CHARSET_BINARY: u16 = 63;
pub const CHARSET_UTF8MB4_GENERAL_CI: u16 = 45;
pub const CHARSET_UTF8MB4_BIN: u16 = 46;

/// One column of a result set, as the column-definition packet describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnMeta {
    pub schema: String,
    pub table: String,
    pub org_table: String,
    pub name: String,
    pub org_name: String,
    pub charset: u16,
    /// Display length in bytes (`column_length`).
    pub length: u32,
    pub field_type: FieldType,
    pub flags: u16,
    pub decimals: u8,
}

/// Completion of a statement that returns no rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OkInfo {
    pub affected_rows: u64,
    pub last_insert_id: u64,
    pub warnings: u16,
    /// Human-readable info, e.g. "Rows matched: 1  Changed: 1  Warnings: 0".
    pub info: String,
}

/// Receives results statement by statement. A statement produces either `ok`, or
/// `columns` + `row`* + `end_rows`; `more` tells whether another statement's result follows
/// (SERVER_MORE_RESULTS_EXISTS). Implementations buffer; they never block.
pub trait ResultSink: Send {
    fn columns(&mut self, columns: &[ColumnMeta]);
    fn row(&mut self, values: &[Value]);
    fn end_rows(&mut self, warnings: u16, more: bool);
    fn ok(&mut self, info: &OkInfo, more: bool);
}

/// Server status flags the server reports in OK/EOF packets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionStatus {
    pub in_transaction: bool,
    pub autocommit: bool,
    pub read_only_transaction: bool,
}

/// A prepared statement as COM_STMT_PREPARE describes it.
#[derive(Clone, Debug)]
pub struct PreparedInfo {
    pub statement_id: u32,
    pub params: Vec<ColumnMeta>,
    pub columns: Vec<ColumnMeta>,
}

/// One row of SHOW PROCESSLIST.
#[derive(Clone, Debug)]
pub struct ProcessInfo {
    pub id: u64,
    pub user: String,
    pub host: String,
    pub db: Option<String>,
    pub command: String,
    pub time_secs: u64,
    pub state: String,
    pub info: Option<String>,
}

/// A session's KILL QUERY flag. Set from another connection's task; the running statement
/// checks it between rows and awaits it while it waits for a row lock.
#[derive(Debug, Default)]
pub struct Interrupt {
    raised: AtomicBool,
    wake: tokio::sync::Notify,
}

impl Interrupt {
    /// Interrupts the running statement (it fails with 1317).
    pub fn raise(&self) {
        self.raised.store(true, Ordering::Release);
        self.wake.notify_waiters();
    }

    pub fn is_raised(&self) -> bool {
        self.raised.load(Ordering::Acquire)
    }

    /// Re-arms the flag (at the start of each statement).
    pub fn clear(&self) {
        self.raised.store(false, Ordering::Relaxed);
    }

    /// Resolves once the flag is raised.
    pub async fn raised(&self) {
        loop {
            let notified = self.wake.notified();
            tokio::pin!(notified);
            // Registered before the check, so a raise between the check and the await is
            // not missed (notify_waiters wakes only registered waiters).
            notified.as_mut().enable();
            if self.is_raised() {
                return;
            }
            notified.await;
        }
    }
}

/// What the SQL layer needs from the server.
pub trait ServerHooks: Send + Sync {
    fn processlist(&self) -> Vec<ProcessInfo>;
    /// KILL [CONNECTION|QUERY] id. Returns false if there is no such connection.
    fn kill(&self, id: u64, query_only: bool) -> bool;
    /// Server-level status variables (Threads_connected, Questions, Uptime, ...).
    fn status(&self) -> Vec<(String, String)>;
}

/// Server-wide SQL state: the engine, global variables, hooks.
pub struct SqlServer {
    pub(crate) engine: Arc<Engine>,
    pub(crate) globals: crate::variables::GlobalVariables,
    pub(crate) hooks: Arc<dyn ServerHooks>,
}

/// Configuration visible as global variables.
#[derive(Clone, Debug)]
pub struct SqlServerConfig {
    pub port: u16,
    pub datadir: String,
    pub max_connections: u64,
    pub buffer_pool_bytes: u64,
    pub flush_at_commit: u8,
    pub lock_wait_timeout_secs: u64,
    pub max_allowed_packet: u64,
}

impl SqlServer {
    pub fn new(engine: Arc<Engine>, config: SqlServerConfig, hooks: Arc<dyn ServerHooks>) -> Arc<SqlServer> {
        let globals = crate::variables::GlobalVariables::new(&config);
        Arc::new(SqlServer { engine, globals, hooks })
    }
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }
    /// Current value of a global variable as SHOW GLOBAL VARIABLES prints it (e.g.
    /// "max_allowed_packet" → "67108864", booleans as ON/OFF); None if there is no such
    /// global variable.
    pub fn global_variable(&self, name: &str) -> Option<String> {
        self.globals.get_text(name).ok()
    }
    /// The server version string (VERSION(), @@version).
    pub fn version(&self) -> String {
        self.global_variable("version")
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| crate::variables::SERVER_VERSION.to_string())
    }
    /// Sets a read-only global variable whose value only the running server knows
    /// (bind_address, socket, ...), at startup.
    pub fn set_startup_variable(&self, name: &str, value: &str) -> Result<(), SqlError> {
        self.globals.set_startup_value(name, Value::Bytes(value.as_bytes().to_vec()))
    }
}

/// Identity of a connection.
#[derive(Clone, Debug)]
pub struct SessionInfo {
    pub connection_id: u64,
    pub user: String,
    pub host: String,
}

/// One client session: current database, transaction, variables, prepared statements, warnings.
pub struct Session {
    core: crate::session::Core,
}

impl Session {
    pub fn new(server: Arc<SqlServer>, info: SessionInfo) -> Result<Session, SqlError> {
        Ok(Session { core: crate::session::Core::new(server, info)? })
    }

    /// COM_INIT_DB and CLIENT_CONNECT_WITH_DB: 1049 if the database does not exist.
    pub fn use_database(&mut self, db: &str) -> Result<(), SqlError> {
        self.core.use_database(db)
    }

    pub fn current_database(&self) -> Option<&str> {
        self.core.current_db.as_deref()
    }

    /// COM_QUERY: one or more `;`-separated statements. Stops at the first error (results of
    /// earlier statements have already gone to `sink`).
    pub async fn execute_text(&mut self, sql: &str, sink: &mut dyn ResultSink) -> Result<(), SqlError> {
        self.core.execute_text(sql, sink).await
    }

    pub fn prepare(&mut self, sql: &str) -> Result<PreparedInfo, SqlError> {
        self.core.prepare(sql)
    }

    /// Number of parameters of a prepared statement (None if unknown id).
    pub fn prepared_param_count(&self, statement_id: u32) -> Option<usize> {
        self.core.prepared_param_count(statement_id)
    }

    pub async fn execute_prepared(
        &mut self,
        statement_id: u32,
        params: &[Value],
        sink: &mut dyn ResultSink,
    ) -> Result<(), SqlError> {
        self.core.execute_prepared(statement_id, params, sink).await
    }

    pub fn close_prepared(&mut self, statement_id: u32) {
        self.core.close_prepared(statement_id)
    }

    /// COM_STMT_RESET: nothing buffered server-side besides long data, which the server owns.
    pub fn reset_prepared(&mut self, statement_id: u32) -> Result<(), SqlError> {
        self.core.reset_prepared(statement_id)
    }

    /// COM_RESET_CONNECTION: rollback, drop prepared statements and user variables, reset
    /// session variables to the globals.
    pub fn reset(&mut self) {
        self.core.reset()
    }

    pub fn status(&self) -> SessionStatus {
        self.core.status()
    }

    /// Number of warnings of the last statement.
    pub fn warning_count(&self) -> u16 {
        self.core.warning_count()
    }

    /// Raised (by KILL QUERY / KILL) to interrupt the running statement (error 1317).
    pub fn interrupt_flag(&self) -> Arc<Interrupt> {
        self.core.interrupt.clone()
    }

    /// Whether a COM_QUERY may contain several statements (CLIENT_MULTI_STATEMENTS at connect,
    /// COM_SET_OPTION later). When off, a text with more than one statement fails with 1064
    /// and none of it runs, as in MariaDB. On by default.
    pub fn set_multi_statements(&mut self, enabled: bool) {
        self.core.set_multi_statements(enabled)
    }

    /// This session's Com_* / Questions counters, for the server's global status (the
    /// session writes them; readers sum them over sessions).
    pub fn status_counters(&self) -> Arc<crate::session::counters::StatusCounters> {
        self.core.counters.clone()
    }

    /// Rolls back any open transaction (connection close).
    pub fn close(&mut self) {
        self.core.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>(_: &T) {}

    /// Statement futures must be `Send` so that the server's connection tasks can run on any
    /// worker thread without an `unsafe impl Send` wrapper. This fails to compile otherwise;
    /// the function is never called.
    #[allow(dead_code)]
    fn statement_futures_are_send(session: &mut Session, sink: &mut dyn ResultSink, params: &[Value]) {
        assert_send(&session.execute_text("SELECT 1", sink));
        assert_send(&session.execute_prepared(1, params, sink));
    }

    #[test]
    fn interrupt_wakes_a_waiter_and_rearms() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let flag = Arc::new(Interrupt::default());
            let waiter = {
                let flag = flag.clone();
                tokio::spawn(async move { flag.raised().await })
            };
            tokio::task::yield_now().await;
            assert!(!waiter.is_finished());
            flag.raise();
            tokio::time::timeout(std::time::Duration::from_secs(5), waiter).await.unwrap().unwrap();
            assert!(flag.is_raised());
            flag.clear();
            assert!(!flag.is_raised());
            // Already raised: resolves at once.
            flag.raise();
            tokio::time::timeout(std::time::Duration::from_secs(5), flag.raised()).await.unwrap();
        });
    }
}
