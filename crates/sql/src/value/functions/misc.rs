//! Session and server information functions, UUID(), CHARSET()/COLLATION().

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use super::signature::{rt_bigint, rt_text, rt_ubigint, ScalarFunction};
use crate::error::SqlError;
use crate::types::Value;
use crate::value::context::FnContext;
use crate::value::kinds::SqlType;

/// 100-ns intervals between the Gregorian reform (UUID epoch) and the Unix epoch.
const UUID_EPOCH_OFFSET: u64 = 0x01B2_1DD2_1381_4000;
/// Longest user or database name MariaDB reports (for metadata).
const NAME_MAX_CHARS: u32 = 64;
const USER_MAX_CHARS: u32 = 384;

pub static FUNCTIONS: &[ScalarFunction] = &[
    func!("DATABASE", 0, 0, false, rt_name, database),
    func!("SCHEMA", 0, 0, false, rt_name, database),
    func!("USER", 0, 0, false, rt_user, user),
    func!("CURRENT_USER", 0, 0, false, rt_user, user),
    func!("SESSION_USER", 0, 0, false, rt_user, user),
    func!("SYSTEM_USER", 0, 0, false, rt_user, user),
    func!("CONNECTION_ID", 0, 0, false, rt_connection_id, connection_id),
    func!("VERSION", 0, 0, true, rt_name, version),
    func!("LAST_INSERT_ID", 0, 0, false, rt_ubigint, last_insert_id),
    func!("FOUND_ROWS", 0, 0, false, rt_bigint, found_rows),
    func!("ROW_COUNT", 0, 0, false, rt_bigint, row_count),
    func!("UUID", 0, 0, false, rt_uuid, uuid),
    func!("UUID_SHORT", 0, 0, false, rt_ubigint, uuid_short),
    func!("SYS_GUID", 0, 0, false, rt_sys_guid, sys_guid),
    func!("CHARSET", 1, 1, true, rt_name, charset),
    func!("COLLATION", 1, 1, true, rt_name, collation),
];

/// Names of the server and session (DATABASE(), USER(), VERSION()) are text of MariaDB's
/// system character set, utf8mb3 (CHARSET(USER()) is 'utf8mb3').
fn system_text(max_chars: u32) -> SqlType {
    let collation = crate::charset::Collation::named("utf8mb3_general_ci").expect("a listed collation");
    SqlType::Text { max_chars, lob: false, collation }
}
fn rt_name(_: &[SqlType]) -> SqlType {
    system_text(NAME_MAX_CHARS)
}
fn rt_user(_: &[SqlType]) -> SqlType {
    system_text(USER_MAX_CHARS)
}
fn rt_connection_id(_: &[SqlType]) -> SqlType {
    SqlType::Int { bits: 32, unsigned: true }
}
fn rt_uuid(_: &[SqlType]) -> SqlType {
    rt_text(36)
}

fn database(_: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(ctx.current_database().map_or(Value::Null, |d| Value::Bytes(d.into_bytes())))
}
fn user(_: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(Value::Bytes(ctx.user().into_bytes()))
}
fn connection_id(_: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(Value::UInt(ctx.connection_id()))
}
fn version(_: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(Value::Bytes(ctx.version().into_bytes()))
}
fn last_insert_id(_: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(Value::UInt(ctx.last_insert_id()))
}
fn found_rows(_: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(Value::Int(i64::try_from(ctx.found_rows()).unwrap_or(i64::MAX)))
}
fn row_count(_: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(Value::Int(ctx.row_count()))
}

/// Per-process UUID node (random, multicast bit set as RFC 4122 requires for non-MAC nodes) and
/// clock sequence.
fn uuid_node_and_clock_seq() -> (u64, u16) {
    static NODE: OnceLock<(u64, u16)> = OnceLock::new();
    *NODE.get_or_init(|| {
        let node = (rand::random::<u64>() & 0xFFFF_FFFF_FFFF) | 0x0100_0000_0000;
        (node, rand::random::<u16>() & 0x3FFF)
    })
}

/// A version-1 (time-based) UUID like MariaDB's: successive calls get strictly increasing
/// timestamps even within one 100 ns tick.
pub fn new_uuid() -> String {
    static LAST_TICKS: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let now_ticks = UUID_EPOCH_OFFSET + (now.as_nanos() / 100) as u64;
    let prev = LAST_TICKS
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| Some(now_ticks.max(last + 1)))
        .unwrap_or(0);
    let ticks = now_ticks.max(prev + 1);
    let (node, clock_seq) = uuid_node_and_clock_seq();
    let time_low = ticks & 0xFFFF_FFFF;
    let time_mid = (ticks >> 32) & 0xFFFF;
    let time_hi_version = ((ticks >> 48) & 0x0FFF) | 0x1000;
    let clock = (clock_seq & 0x3FFF) | 0x8000;
    format!("{time_low:08x}-{time_mid:04x}-{time_hi_version:04x}-{clock:04x}-{node:012x}")
}

fn uuid(_: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(Value::Bytes(new_uuid().into_bytes()))
}

/// VARCHAR(32): a UUID's hex digits.
fn rt_sys_guid(_: &[SqlType]) -> SqlType {
    rt_text(32)
}

/// Oracle's SYS_GUID, as MariaDB has it: UUID() without its dashes.
fn sys_guid(_: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(Value::Bytes(new_uuid().replace('-', "").into_bytes()))
}

/// MariaDB's UUID_SHORT: (server_id & 255) << 56, plus the server's start time in seconds
/// << 24, plus a counter that every call increments. The server_id is its default, 1 (MariaDB
/// also reads it once, at startup); the start time is the first call's.
fn uuid_short(_: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    const SERVER_ID: u64 = 1;
    static NEXT: OnceLock<AtomicU64> = OnceLock::new();
    let next = NEXT.get_or_init(|| {
        let start = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        AtomicU64::new(((SERVER_ID & 255) << 56) + (start.as_secs() << 24))
    });
    Ok(Value::UInt(next.fetch_add(1, Ordering::Relaxed)))
}

fn is_character_data(v: &Value) -> bool {
    matches!(v, Value::Bytes(_))
}

fn charset(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    let name: &[u8] = if is_character_data(&args[0]) { b"utf8mb4" } else { b"binary" };
    Ok(Value::Bytes(name.to_vec()))
}

fn collation(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    // Comparisons are binary (architecture §6), so strings report utf8mb4_bin.
    let name: &[u8] = if is_character_data(&args[0]) { b"utf8mb4_bin" } else { b"binary" };
    Ok(Value::Bytes(name.to_vec()))
}
