//! Test harness: a real engine in a temporary directory, sessions on it, and a result sink that
//! records everything a statement produced.

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use selkie_protocol::resultset::ColumnDefinition;
use selkie_sql::value::{self, SqlType};
use selkie_sql::{
    Interrupt, OkInfo, ProcessInfo, ResultSink, ServerHooks, Session, SessionInfo, SqlError, SqlServer,
    SqlServerConfig, Value,
};
use selkie_storage::{Engine, EngineConfig, FlushMode};

/// Hooks with a registry of sessions' interrupt flags, so KILL QUERY can be tested.
#[derive(Default)]
pub struct TestHooks {
    pub flags: Mutex<HashMap<u64, Arc<Interrupt>>>,
}

impl ServerHooks for TestHooks {
    fn processlist(&self) -> Vec<ProcessInfo> {
        Vec::new()
    }
    fn kill(&self, id: u64, _query_only: bool) -> bool {
        match self.flags.lock().unwrap().get(&id) {
            Some(f) => {
                f.raise();
                true
            }
            None => false,
        }
    }
    fn status(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

pub struct TestDb {
    pub server: Arc<SqlServer>,
    pub engine: Arc<Engine>,
    pub hooks: Arc<TestHooks>,
    next_id: std::sync::atomic::AtomicU64,
    _dir: tempfile::TempDir,
}

impl TestDb {
    pub fn new() -> TestDb {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut cfg = EngineConfig::new(dir.path());
        cfg.buffer_pool_bytes = 32 << 20;
        cfg.flush_mode = FlushMode::Lazy;
        cfg.lock_wait_timeout = std::time::Duration::from_secs(2);
        cfg.max_sessions = 256;
        let engine = Engine::open(cfg).expect("engine opens");
        let hooks = Arc::new(TestHooks::default());
        let config = SqlServerConfig {
            datadir: dir.path().display().to_string(),
            max_connections: 256,
            flush_at_commit: 0,
            lock_wait_timeout_secs: 2,
            max_allowed_packet: 64 << 20,
            ..SqlServerConfig::for_tests()
        };
        let server = SqlServer::new(engine.clone(), config, hooks.clone());
        TestDb { server, engine, hooks, next_id: std::sync::atomic::AtomicU64::new(1), _dir: dir }
    }

    pub fn session(&self) -> Session {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let s = Session::new(
            self.server.clone(),
            SessionInfo { connection_id: id, user: "root".into(), host: "localhost".into() },
        )
        .expect("session");
        self.hooks.flags.lock().unwrap().insert(id, s.interrupt_flag());
        s
    }

    /// A session with database `test` created and selected.
    pub async fn session_in_test_db(&self) -> Session {
        let mut s = self.session();
        exec(&mut s, "CREATE DATABASE IF NOT EXISTS test").await;
        s.use_database("test").unwrap();
        s
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let _ = self.engine.shutdown();
    }
}

#[derive(Clone, Debug)]
pub enum Res {
    Rows { columns: Vec<ColumnDefinition>, rows: Vec<Vec<Value>>, warnings: u16, more: bool },
    Ok { info: OkInfo, more: bool },
}

#[derive(Default)]
pub struct Collect {
    pub results: Vec<Res>,
    columns: Option<Vec<ColumnDefinition>>,
    rows: Vec<Vec<Value>>,
}

impl ResultSink for Collect {
    fn columns(&mut self, columns: &[ColumnDefinition]) {
        self.columns = Some(columns.to_vec());
        self.rows.clear();
    }
    fn row(&mut self, values: &[Value]) {
        self.rows.push(values.to_vec());
    }
    fn end_rows(&mut self, warnings: u16, more: bool) {
        let columns = self.columns.take().expect("end_rows without columns");
        self.results.push(Res::Rows { columns, rows: std::mem::take(&mut self.rows), warnings, more });
    }
    fn ok(&mut self, info: &OkInfo, more: bool) {
        self.results.push(Res::Ok { info: info.clone(), more });
    }
}

/// Text form of a value as the text protocol would send it ("NULL" for NULL).
pub fn text(v: &Value, ty: Option<&SqlType>) -> String {
    if v.is_null() {
        return "NULL".into();
    }
    let mut out = Vec::new();
    value::format_text(v, ty, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Text of a value in a result column: DECIMALs with the column's scale, as the server sends
/// them (a quotient keeps more digits than its type shows, as in MariaDB).
pub fn column_text(v: &Value, c: &ColumnDefinition) -> String {
    match v {
        Value::Decimal(_) if c.field_type == selkie_protocol::constants::FieldType::NewDecimal => {
            text(v, Some(&SqlType::Decimal { precision: 65, scale: c.decimals }))
        }
        _ => text(v, None),
    }
}

pub async fn run(s: &mut Session, sql: &str) -> Result<Vec<Res>, SqlError> {
    let mut c = Collect::default();
    s.execute_text(sql, &mut c).await?;
    Ok(c.results)
}

/// Runs a statement that must succeed with OK.
pub async fn exec(s: &mut Session, sql: &str) -> OkInfo {
    match run(s, sql).await {
        Ok(mut r) => match r.pop() {
            Some(Res::Ok { info, .. }) => info,
            other => panic!("{sql}: expected OK, got {other:?}"),
        },
        Err(e) => panic!("{sql}: {e}"),
    }
}

/// Runs a query and returns its rows as text.
pub async fn query(s: &mut Session, sql: &str) -> Vec<Vec<String>> {
    match run(s, sql).await {
        Ok(mut r) => match r.pop() {
            Some(Res::Rows { rows, columns, .. }) => {
                rows.iter().map(|r| r.iter().zip(&columns).map(|(v, c)| column_text(v, c)).collect()).collect()
            }
            other => panic!("{sql}: expected rows, got {other:?}"),
        },
        Err(e) => panic!("{sql}: {e}"),
    }
}

/// Runs a query and returns its column names.
pub async fn column_names(s: &mut Session, sql: &str) -> Vec<String> {
    match run(s, sql).await {
        Ok(mut r) => match r.pop() {
            Some(Res::Rows { columns, .. }) => columns.into_iter().map(|c| c.name).collect(),
            other => panic!("{sql}: expected rows, got {other:?}"),
        },
        Err(e) => panic!("{sql}: {e}"),
    }
}

/// Runs a statement that must fail; returns the error.
pub async fn fail(s: &mut Session, sql: &str) -> SqlError {
    match run(s, sql).await {
        Ok(r) => panic!("{sql}: expected an error, got {r:?}"),
        Err(e) => e,
    }
}

/// Rows as text, for comparing with a literal table.
pub fn rows(v: &[&[&str]]) -> Vec<Vec<String>> {
    v.iter().map(|r| r.iter().map(|s| s.to_string()).collect()).collect()
}

pub async fn execute_prepared(s: &mut Session, id: u32, params: &[Value]) -> Result<Vec<Res>, SqlError> {
    let mut c = Collect::default();
    s.execute_prepared(id, params, &mut c).await?;
    Ok(c.results)
}

pub async fn prepared_rows(s: &mut Session, id: u32, params: &[Value]) -> Vec<Vec<String>> {
    match execute_prepared(s, id, params).await {
        Ok(mut r) => match r.pop() {
            Some(Res::Rows { rows, .. }) => rows.iter().map(|r| r.iter().map(|v| text(v, None)).collect()).collect(),
            other => panic!("expected rows, got {other:?}"),
        },
        Err(e) => panic!("execute {id}: {e}"),
    }
}

/// Rows of `sql` with the metadata of the result.
pub async fn result(s: &mut Session, sql: &str) -> (Vec<ColumnDefinition>, Vec<Vec<Value>>) {
    match run(s, sql).await {
        Ok(mut r) => match r.pop() {
            Some(Res::Rows { columns, rows, .. }) => (columns, rows),
            other => panic!("{sql}: expected rows, got {other:?}"),
        },
        Err(e) => panic!("{sql}: {e}"),
    }
}
