//! The shape of a registry entry: a built-in scalar function's name, arity and behaviour.
//!
//! A leaf below the function families, which build their `FUNCTIONS` tables from it, and the
//! registry in `functions/mod.rs`, which sorts and searches them.

use crate::error::SqlError;
use crate::types::Value;
use crate::value::context::FnContext;
use crate::value::kinds::SqlType;

/// A built-in scalar function. Functions with special syntax or session side effects
/// (CAST/CONVERT, INTERVAL arithmetic, LAST_INSERT_ID(expr), CASE) are handled by the binder.
pub struct ScalarFunction {
    pub name: &'static str,
    pub min_args: usize,
    /// usize::MAX = variadic.
    pub max_args: usize,
    /// False for NOW(), RAND(), UUID(), CONNECTION_ID()... (the result cache must not cache them).
    pub deterministic: bool,
    pub return_type: fn(&[SqlType]) -> SqlType,
    pub eval: fn(&[Value], &dyn FnContext) -> Result<Value, SqlError>,
}

/// Variadic `max_args`.
pub const VARIADIC: usize = usize::MAX;

// ---- return type helpers ----

pub fn rt_int(_: &[SqlType]) -> SqlType {
    SqlType::Int { bits: 32, unsigned: false }
}
pub fn rt_bigint(_: &[SqlType]) -> SqlType {
    SqlType::Int { bits: 64, unsigned: false }
}
pub fn rt_ubigint(_: &[SqlType]) -> SqlType {
    SqlType::Int { bits: 64, unsigned: true }
}
pub fn rt_double(_: &[SqlType]) -> SqlType {
    SqlType::Double
}
pub fn rt_date(_: &[SqlType]) -> SqlType {
    SqlType::Date
}
pub fn rt_datetime(_: &[SqlType]) -> SqlType {
    SqlType::DateTime { fsp: 0 }
}
/// A string as long as the longest argument.
pub fn rt_text_like_args(args: &[SqlType]) -> SqlType {
    let chars = args.iter().map(SqlType::display_chars).max().unwrap_or(0);
    string_type(args, chars)
}
/// Text, or binary when any argument is binary (MariaDB: a binary operand makes the result binary).
pub fn string_type(args: &[SqlType], max_chars: u32) -> SqlType {
    let lob = args.iter().any(SqlType::is_lob);
    if args.iter().any(|t| matches!(t, SqlType::Bytes { .. })) {
        SqlType::Bytes { max_len: max_chars.saturating_mul(crate::value::types::UTF8MB4_MAX_BYTES), lob }
    } else {
        SqlType::text(max_chars, lob)
    }
}
pub fn rt_text(max_chars: u32) -> SqlType {
    SqlType::text(max_chars, false)
}
