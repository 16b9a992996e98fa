//! The SQL layer's vocabulary: the types the server exchanges with it (result sinks, column
//! metadata, session status, hooks, configuration) and the ones every stage shares (values,
//! warnings, materialized results).
//!
//! Why one leaf module: the server crate and every stage of the SQL core speak these types, so
//! they sit below all of them and import nothing from the crate but `error`. They are
//! re-exported from the crate root, which is how the server names them; renaming or reshaping
//! one is a change of the server's interface too.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use selkie_storage::Datum;

/// Values computed by SQL are the engine's stored values.
pub type Value = Datum;

// The wire's column vocabulary is the protocol crate's: a result column is described once, in
// the form the column-definition packet carries, so the server sends it without translating.
pub use selkie_protocol::constants::{charset, column_flags, FieldType};
pub use selkie_protocol::resultset::ColumnDefinition;

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
    fn columns(&mut self, columns: &[ColumnDefinition]);
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
    /// sql_mode has NO_BACKSLASH_ESCAPES: clients quote strings by doubling quotes only.
    pub no_backslash_escapes: bool,
}

/// A prepared statement as COM_STMT_PREPARE describes it.
#[derive(Clone, Debug)]
pub struct PreparedInfo {
    pub statement_id: u32,
    pub params: Vec<ColumnDefinition>,
    pub columns: Vec<ColumnDefinition>,
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

/// A session's KILL QUERY flag, and the deadline max_statement_time sets its statement. The
/// flag is set from another connection's task; the running statement checks both between rows
/// and awaits them while it waits for a row lock. The deadline needs no timer task: every
/// check reads the clock, so it also holds where one thread runs the whole session.
#[derive(Debug, Default)]
pub struct Interrupt {
    raised: AtomicBool,
    /// Nanoseconds after `clock_base()` at which the statement times out; 0 for none.
    deadline: AtomicU64,
    wake: tokio::sync::Notify,
}

/// Why a statement was interrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterruptCause {
    Kill,
    StatementTime,
}

fn clock_base() -> std::time::Instant {
    static BASE: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *BASE.get_or_init(std::time::Instant::now)
}

impl Interrupt {
    /// The running statement times out `limit` from now (max_statement_time); None: never.
    pub fn set_statement_time(&self, limit: Option<std::time::Duration>) {
        let at = limit.map_or(0, |l| {
            let at = (std::time::Instant::now() + l).duration_since(clock_base()).as_nanos();
            u64::try_from(at).unwrap_or(u64::MAX).max(1)
        });
        self.deadline.store(at, Ordering::Relaxed);
    }

    fn deadline(&self) -> Option<std::time::Instant> {
        match self.deadline.load(Ordering::Relaxed) {
            0 => None,
            ns => Some(clock_base() + std::time::Duration::from_nanos(ns)),
        }
    }

    /// What interrupted the statement, if anything has: KILL QUERY first.
    pub fn cause(&self) -> Option<InterruptCause> {
        if self.raised.load(Ordering::Acquire) {
            Some(InterruptCause::Kill)
        } else if self.deadline().is_some_and(|d| std::time::Instant::now() >= d) {
            Some(InterruptCause::StatementTime)
        } else {
            None
        }
    }

    /// Interrupts the running statement (it fails with 1317).
    pub fn raise(&self) {
        self.raised.store(true, Ordering::Release);
        self.wake.notify_waiters();
    }

    pub fn is_raised(&self) -> bool {
        self.cause().is_some()
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
            match self.deadline() {
                Some(d) => {
                    tokio::select! {
                        () = notified => {}
                        () = tokio::time::sleep_until(d.into()) => {}
                    }
                }
                None => notified.await,
            }
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

impl SqlServerConfig {
    /// A configuration for tests: fixed, plausible values, none of them read from a real
    /// server. Tests that care about a value set it with struct update syntax
    /// (`SqlServerConfig { port: 3399, ..SqlServerConfig::for_tests() }`), so adding a field
    /// touches this one place rather than every test.
    pub fn for_tests() -> SqlServerConfig {
        SqlServerConfig {
            port: 3307,
            datadir: "/nonexistent/selkie-data".into(),
            max_connections: 100,
            buffer_pool_bytes: 32 << 20,
            flush_at_commit: 1,
            lock_wait_timeout_secs: 5,
            max_allowed_packet: 16 << 20,
        }
    }
}

/// Identity of a connection.
#[derive(Clone, Debug)]
pub struct SessionInfo {
    pub connection_id: u64,
    pub user: String,
    pub host: String,
}

/// Severity of a diagnostic, as SHOW WARNINGS names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarnLevel {
    Note,
    Warning,
    Error,
}

/// One row of SHOW WARNINGS. Variables, expressions, DDL and SHOW all raise them, so the type
/// lives here rather than with any of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub level: WarnLevel,
    pub code: u16,
    pub message: String,
}

/// A fully materialized result.
#[derive(Clone, Debug, Default)]
pub struct ResultSet {
    pub columns: Vec<ColumnDefinition>,
    pub rows: Vec<Vec<Value>>,
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

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
