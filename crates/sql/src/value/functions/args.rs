//! Argument readers shared by the function families: MariaDB's lenient views of an argument
//! (text, integer, double) with the warnings its functions give, and the oversized-result rule.
//!
//! Kept out of `functions/mod.rs` so the families depend only on these readers, not on the
//! registry that lists them.

use crate::error::SqlError;
use crate::types::Value;
use crate::value::context::FnContext;

pub fn any_null(args: &[Value]) -> bool {
    args.iter().any(Value::is_null)
}

/// The text of an argument (numbers formatted as MariaDB prints them).
pub fn text(v: &Value) -> Vec<u8> {
    crate::value::format::to_text_bytes(v).unwrap_or_default()
}

/// Integer argument: strings by their integer digits with MariaDB's truncation warning.
pub fn int_arg(v: &Value, ctx: &dyn FnContext) -> i64 {
    crate::value::cast::int_for_interval(v, ctx).unwrap_or(0)
}

/// DOUBLE argument: strings warn when not entirely numeric.
pub fn f64_arg(v: &Value, ctx: &dyn FnContext) -> f64 {
    match v {
        Value::Bytes(b) => crate::value::cast::string_as_double(b, ctx),
        other => crate::value::cast::to_f64(other).unwrap_or(0.0),
    }
}

/// Whether a string result of `len` bytes may be returned: MariaDB refuses results longer than
/// the session's max_allowed_packet (they could not be sent back to the client).
pub fn fits_result(len: u128, ctx: &dyn FnContext) -> bool {
    len <= ctx.max_allowed_packet() as u128
}

/// Warning 1301 and NULL for a string result that would exceed max_allowed_packet; the error
/// in strict DML (MariaDB would otherwise store NULL over the value an UPDATE meant to grow).
pub fn too_large(func: &str, ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let limit = ctx.max_allowed_packet();
    let message = format!("Result of {func}() was larger than max_allowed_packet ({limit}) - truncated");
    if ctx.strict() {
        return Err(SqlError::new(1301, "HY000", message));
    }
    ctx.warn(1301, message);
    Ok(Value::Null)
}
