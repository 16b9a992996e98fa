//! Shared helpers of the engine integration tests.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use selkie_storage::*;

pub fn config(dir: &Path) -> EngineConfig {
    let mut c = EngineConfig::new(dir);
    c.buffer_pool_bytes = 8 << 20;
    c.max_sessions = 64;
    c.lock_wait_timeout = Duration::from_secs(5);
    c
}

pub fn crash_config(dir: &Path) -> EngineConfig {
    let mut c = config(dir);
    c.fault = FaultInjection { lose_unsynced_writes: true, torn_page_writes: false };
    c
}

pub fn opts() -> TrxOptions {
    TrxOptions {
        isolation: IsolationLevel::RepeatableRead,
        read_only: false,
        lock_wait_timeout: Duration::from_secs(5),
    }
}

pub fn opts_with(isolation: IsolationLevel, timeout: Duration) -> TrxOptions {
    TrxOptions { isolation, read_only: false, lock_wait_timeout: timeout }
}

pub fn col(name: &str, ty: ColumnType, nullable: bool) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        ty,
        nullable,
        default: ColumnDefault::None,
        auto_increment: false,
        on_update_current_timestamp: false,
        comment: String::new(),
        zerofill: false,
        generated: None,
        collation: String::new(),
    }
}

pub fn int() -> ColumnType {
    ColumnType::Int { width: IntWidth::Int, unsigned: false, display_width: None }
}

pub fn bigint() -> ColumnType {
    ColumnType::Int { width: IntWidth::Big, unsigned: false, display_width: None }
}

pub fn varchar(n: u32) -> ColumnType {
    ColumnType::VarChar { len: n }
}

pub fn ic(column: usize) -> IndexColumn {
    IndexColumn { column, prefix_len: None, descending: false }
}

/// `t(id INT PRIMARY KEY AUTO_INCREMENT, k INT NOT NULL, c VARCHAR(120), KEY k_1(k))` —
/// sysbench's shape — optionally with `UNIQUE u(c)`.
pub fn sbtest(db: &str, name: &str, unique_c: bool) -> NewTable {
    let mut id = col("id", int(), false);
    id.auto_increment = true;
    let mut indexes = vec![NewIndex { name: "k_1".into(), columns: vec![ic(1)], unique: false }];
    if unique_c {
        indexes.push(NewIndex { name: "u".into(), columns: vec![ic(2)], unique: true });
    }
    NewTable {
        db: db.into(),
        name: name.into(),
        columns: vec![id, col("k", int(), false), col("c", varchar(120), true)],
        primary_key: vec![ic(0)],
        indexes,
        options: TableOptions::default(),
        auto_increment_start: None,
    }
}

pub fn db(name: &str) -> DatabaseDef {
    DatabaseDef { name: name.into(), charset: "utf8mb4".into(), collation: "utf8mb4_bin".into() }
}

pub fn row(id: i64, k: i64, c: &str) -> Vec<Datum> {
    vec![Datum::Int(id), Datum::Int(k), Datum::Bytes(c.as_bytes().to_vec())]
}

pub fn table(e: &Engine, db: &str, name: &str) -> Arc<TableDef> {
    e.catalog().table(db, name).cloned().expect("table exists")
}

/// Every row of a scan, in order.
pub fn scan_all(
    trx: &mut Transaction,
    t: &Arc<TableDef>,
    index: usize,
    range: KeyRange,
    reverse: bool,
    mode: ReadMode,
) -> Vec<Vec<Datum>> {
    let mut s = trx.scan(t, index, range, reverse, mode).unwrap();
    let mut out = Vec::new();
    while let Some(r) = s.next(trx).unwrap() {
        out.push(r.row);
    }
    out
}

/// The primary key bytes of an INT primary key value (what `ScanRow::pk_key` holds).
pub fn pk_of(trx: &mut Transaction, t: &Arc<TableDef>, id: i64) -> Option<Vec<u8>> {
    trx.get(t, &[Datum::Int(id)]).unwrap().map(|r| r.pk_key)
}

pub fn stress() -> bool {
    std::env::var("SELKIE_STRESS").is_ok()
}

pub fn status_value(e: &Engine, name: &str) -> u64 {
    e.status()
        .rows
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.parse().unwrap())
        .unwrap_or_else(|| panic!("no status {name}"))
}
