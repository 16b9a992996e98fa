//! User-level lock functions (GET_LOCK family) and SLEEP: the functions that wait. The locks
//! themselves are server-wide state (`crate::user_locks`), reached through the context.

use std::time::Duration;

use super::args::{f64_arg, text};
use super::signature::{rt_int, ScalarFunction};
use crate::error::SqlError;
use crate::types::Value;
use crate::value::context::FnContext;
use crate::value::kinds::SqlType;

pub static FUNCTIONS: &[ScalarFunction] = &[
    func!("GET_LOCK", 2, 2, false, rt_int, get_lock),
    func!("RELEASE_LOCK", 1, 1, false, rt_int, release_lock),
    func!("IS_FREE_LOCK", 1, 1, false, rt_int, is_free_lock),
    func!("IS_USED_LOCK", 1, 1, false, rt_connection, is_used_lock),
    func!("RELEASE_ALL_LOCKS", 0, 0, false, rt_count, release_all_locks),
    func!("SLEEP", 1, 1, false, rt_int, sleep),
];

/// MariaDB types IS_USED_LOCK as a (signed) INT and RELEASE_ALL_LOCKS as an unsigned one.
fn rt_connection(_: &[SqlType]) -> SqlType {
    SqlType::Int { bits: 32, unsigned: false }
}
fn rt_count(_: &[SqlType]) -> SqlType {
    SqlType::Int { bits: 32, unsigned: true }
}

/// The lock name: NULL and '' name no lock (the functions return NULL for them).
fn lock_name(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        v => Some(String::from_utf8_lossy(&text(v)).into_owned()).filter(|n| !n.is_empty()),
    }
}

fn flag(b: bool) -> Value {
    Value::Int(i64::from(b))
}

fn not_available() -> SqlError {
    SqlError::new(1235, "42000", "This version of MariaDB doesn't yet support 'user-level locks here'")
}

fn get_lock(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let Some(name) = lock_name(&args[0]) else {
        return Ok(Value::Null);
    };
    let secs = match &args[1] {
        Value::Null => None,
        v => Some(f64_arg(v, ctx)).filter(|s| *s >= 0.0),
    };
    let Some(secs) = secs else {
        let shown = match &args[1] {
            Value::Null => "NULL".to_string(),
            v => String::from_utf8_lossy(&text(v)).into_owned(),
        };
        ctx.warn(1411, format!("Incorrect timeout value: '{shown}' for function get_lock"));
        return Ok(Value::Null);
    };
    let timeout = Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX);
    let locks = ctx.user_locks().ok_or_else(not_available)?;
    Ok(flag(locks.get(&name, timeout)?))
}

fn release_lock(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let Some(name) = lock_name(&args[0]) else {
        return Ok(Value::Null);
    };
    let locks = ctx.user_locks().ok_or_else(not_available)?;
    Ok(locks.release(&name).map_or(Value::Null, flag))
}

fn is_free_lock(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let Some(name) = lock_name(&args[0]) else {
        return Ok(Value::Null);
    };
    let locks = ctx.user_locks().ok_or_else(not_available)?;
    Ok(flag(locks.holder(&name).is_none()))
}

fn is_used_lock(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let Some(name) = lock_name(&args[0]) else {
        return Ok(Value::Null);
    };
    let locks = ctx.user_locks().ok_or_else(not_available)?;
    Ok(locks.holder(&name).map_or(Value::Null, |id| Value::Int(i64::try_from(id).unwrap_or(i64::MAX))))
}

fn release_all_locks(_: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let locks = ctx.user_locks().ok_or_else(not_available)?;
    Ok(Value::UInt(locks.release_all()))
}

/// SLEEP(seconds): 0 after sleeping; NULL and negative durations do not sleep. An interrupted
/// sleep fails the statement (1317, or 1969 past max_statement_time), as MariaDB's does.
fn sleep(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let secs = match &args[0] {
        Value::Null => 0.0,
        v => f64_arg(v, ctx),
    };
    if secs > 0.0 {
        ctx.sleep(Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX))?;
    }
    Ok(Value::Int(0))
}
