//! The server-wide SQL state a session is opened on: the storage engine, the global system
//! variables and the hooks back into the server.
//!
//! Above `variables` (it owns the globals) and below everything that runs statements (they
//! read globals and hooks through it).

use std::sync::Arc;

use selkie_storage::Engine;

use crate::error::SqlError;
use crate::types::{ServerHooks, SqlServerConfig, Value};
use crate::variables::{GlobalVariables, SERVER_VERSION};

/// Server-wide SQL state: the engine, global variables, hooks.
pub struct SqlServer {
    /// Private: sessions reach the engine only through their `Store` (opened from
    /// `engine()`), so there is one route from SQL to storage.
    engine: Arc<Engine>,
    pub(crate) globals: GlobalVariables,
    pub(crate) hooks: Arc<dyn ServerHooks>,
    /// Sequences' caches of reserved values and the sessions' LASTVALs.
    pub(crate) sequences: crate::sequence::Sequences,
    /// LOCK TABLES' locks.
    pub(crate) table_locks: crate::table_locks::TableLocks,
    /// GET_LOCK's named locks, shared by all sessions.
    pub(crate) user_locks: crate::user_locks::UserLocks,
}

impl SqlServer {
    pub fn new(engine: Arc<Engine>, config: SqlServerConfig, hooks: Arc<dyn ServerHooks>) -> Arc<SqlServer> {
        let globals = GlobalVariables::new(&config);
        Arc::new(SqlServer {
            engine,
            globals,
            hooks,
            sequences: Default::default(),
            table_locks: Default::default(),
            user_locks: Default::default(),
        })
    }
    /// The engine, for the server's own reads (catalog size for status) and for opening a
    /// session's `Store`.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// Drops the temporary tables that a previous run of the server left (it stopped before
    /// their sessions ended: a crash or a kill). Called once at start, before clients connect.
    pub async fn drop_leftover_temporary_tables(&self) -> Result<usize, SqlError> {
        let catalog = self.engine.catalog();
        let mut dropped = 0;
        for db in catalog.databases.keys() {
            for t in catalog.tables_in(db) {
                if t.name.starts_with(crate::temporary::TEMPORARY_PREFIX) {
                    self.engine.drop_table(&t.db, &t.name, true).await?;
                    dropped += 1;
                }
            }
        }
        Ok(dropped)
    }
    /// Current value of a global variable as SHOW GLOBAL VARIABLES prints it (e.g.
    /// "max_allowed_packet" → "67108864", booleans as ON/OFF); None if there is no such
    /// global variable.
    pub fn global_variable(&self, name: &str) -> Option<String> {
        self.globals.get_text(name).ok()
    }
    /// The server version string (VERSION(), @@version).
    pub fn version(&self) -> String {
        self.global_variable("version").filter(|v| !v.is_empty()).unwrap_or_else(|| SERVER_VERSION.to_string())
    }
    /// Sets a read-only global variable whose value only the running server knows
    /// (bind_address, socket, ...), at startup.
    pub fn set_startup_variable(&self, name: &str, value: &str) -> Result<(), SqlError> {
        self.globals.set_startup_value(name, Value::Bytes(value.as_bytes().to_vec()))
    }
}
