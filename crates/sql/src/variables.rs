//! System variables: the registry (names, scopes, defaults, validation), global values, and each
//! session's values.
//!
//! INTERFACE CONTRACT (frozen; owner: SQL-admin engineer).

use std::time::Duration;

use selkie_storage::IsolationLevel;

use crate::api::{SqlError, SqlServerConfig, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarScope {
    Session,
    Global,
    /// `@@name` / `SET name`: the session value if the variable has session scope, else global.
    Default,
}

/// sql_mode flags the executor cares about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SqlMode {
    pub strict_trans_tables: bool,
    pub strict_all_tables: bool,
    pub error_for_division_by_zero: bool,
    pub no_zero_date: bool,
    pub no_zero_in_date: bool,
    pub only_full_group_by: bool,
    pub no_auto_value_on_zero: bool,
    pub pipes_as_concat: bool,
    pub ansi_quotes: bool,
    pub no_backslash_escapes: bool,
}

/// A side effect a SET GLOBAL has on the engine, for the caller to apply.
#[derive(Clone, Debug, PartialEq)]
pub enum GlobalEffect {
    None,
    FlushMode(u8),
}

pub struct GlobalVariables {
    _private: (),
}

impl GlobalVariables {
    pub fn new(config: &SqlServerConfig) -> GlobalVariables {
        let _ = config;
        todo!("sql admin")
    }
    /// Current global value; error 1193 if unknown.
    pub fn get(&self, name: &str) -> Result<Value, SqlError> {
        let _ = name;
        todo!("sql admin")
    }
    /// SET GLOBAL: validates (1231/1232), 1228 if session-only, 1238 if read-only.
    pub fn set(&self, name: &str, value: Value) -> Result<GlobalEffect, SqlError> {
        let _ = (name, value);
        todo!("sql admin")
    }
}

pub struct SessionVariables {
    _private: (),
}

impl SessionVariables {
    /// Session values initialized from the globals.
    pub fn new(globals: &GlobalVariables) -> SessionVariables {
        let _ = globals;
        todo!("sql admin")
    }
    pub fn get(&self, globals: &GlobalVariables, name: &str, scope: VarScope) -> Result<Value, SqlError> {
        let _ = (globals, name, scope);
        todo!("sql admin")
    }
    /// SET [SESSION|GLOBAL] name = value. Global sets go through `globals.set`.
    pub fn set(&mut self, globals: &GlobalVariables, name: &str, scope: VarScope, value: Value) -> Result<GlobalEffect, SqlError> {
        let _ = (globals, name, scope, value);
        todo!("sql admin")
    }
    /// (name, value) of every variable visible to SHOW [SESSION|GLOBAL] VARIABLES, sorted.
    pub fn all(&self, globals: &GlobalVariables, scope: VarScope) -> Vec<(String, Value)> {
        let _ = (globals, scope);
        todo!("sql admin")
    }

    pub fn autocommit(&self) -> bool {
        todo!("sql admin")
    }
    pub fn isolation(&self) -> IsolationLevel {
        todo!("sql admin")
    }
    pub fn transaction_read_only(&self) -> bool {
        todo!("sql admin")
    }
    pub fn sql_mode(&self) -> SqlMode {
        todo!("sql admin")
    }
    pub fn lock_wait_timeout(&self) -> Duration {
        todo!("sql admin")
    }
    /// sql_select_limit (u64::MAX = default / unlimited).
    pub fn sql_select_limit(&self) -> u64 {
        todo!("sql admin")
    }
    pub fn max_allowed_packet(&self) -> u64 {
        todo!("sql admin")
    }
    /// Stores the next transaction's one-shot characteristics (SET TRANSACTION without scope).
    pub fn set_next_transaction(&mut self, isolation: Option<IsolationLevel>, read_only: Option<bool>) {
        let _ = (isolation, read_only);
        todo!("sql admin")
    }
    /// Takes the one-shot characteristics (consumed when a transaction starts).
    pub fn take_next_transaction(&mut self) -> (Option<IsolationLevel>, Option<bool>) {
        todo!("sql admin")
    }
}
