//! MySQL value semantics: result types, comparison, arithmetic, casts, assignment to columns,
//! text formatting, LIKE, date/time, scalar functions and aggregates.
//!
//! The binder and the executor call only the items re-exported here. Everything in this module
//! is pure computation on `Value`s (no I/O, no catalog, no session), so that MariaDB's value
//! semantics can be tested in isolation (`tests/`) and the stages above share one definition.
//!
//! Layout, bottom to top (each module uses only those before it, so there are no import loops):
//! `kinds` (SqlType, FieldMeta, the operator/cast/interval/aggregate enums) and `context`
//! (FnContext), `num` (number lexing, 256-bit intermediates, exact DECIMAL), `format` (text
//! protocol), `types` (type rules, wire metadata), `datetime` (calendar, parsing, clock), `time` (TIME
//! values), `cast`
//! (CAST and the lenient numeric/text views), `arith`, `interval` (DATE_ADD), `compare`, `like`,
//! `store` and `store_types` (assignment to columns), `aggregate`, `functions` (scalar functions), and this file,
//! which only declares the modules and forwards to them. Behaviour follows MariaDB 10.11;
//! `tests/` checks it against a real server.
//!
//! Items the binder and executor need beyond the operations: `column_field_meta` (exact metadata of
//! a table column: CHAR vs VARCHAR, display widths), `store_for_column_at` + `StoreTarget`
//! (MariaDB's messages name `db`.`table`.`column` and the row), `return_type_with_constants`
//! (ROUND(x, 2), NOW(3), STR_TO_DATE(s, '%Y') types depend on constant arguments),
//! `parse_interval_unit`, `AggState::new_group_concat` (SEPARATOR, group_concat_max_len).
//!
//! Known limits: DECIMAL holds 38 digits (MariaDB 65; a column may declare 65 but a value needs
//! to fit 38); strings compare as bytes without PAD SPACE; `compare`, `negate` and `truthy`
//! cannot warn (no context); Notes are not reported. TIME, ENUM, SET, UUID and INET values are
//! their canonical text: the binder converts TIME operands (comparisons, arithmetic, ORDER BY,
//! MIN/MAX) and ENUM operands (numeric context, ORDER BY) where MariaDB uses their meaning;
//! SET in numeric context and UUID/INET ordering still follow the text.

use std::cmp::Ordering;

use selkie_storage::{ColumnDef, ColumnType, Date, DateTime};

use crate::charset::Collation;
use crate::error::SqlError;
use crate::types::Value;

mod aggregate;
mod arith;
mod bit;
mod cast;
mod compare;
mod context;
mod datetime;
mod format;
pub mod functions;
mod interval;
mod json;
mod kinds;
mod like;
mod num;
mod store;
mod store_types;
mod time;
mod timestamp;
mod types;
mod tz;

#[cfg(test)]
pub(crate) mod tests;

pub use bit::{literal as bit_literal, MAX_BIT_WIDTH};
pub use context::{FnContext, SequenceOp};
pub use functions::datetime::parse_interval_unit;
pub use functions::return_type_with_constants;
pub use functions::ScalarFunction;
pub use kinds::{default_text_collation, AggFunc, ArithOp, CastTarget, FieldMeta, IntervalUnit, SqlType};
pub use store::{store_for_column_at, StoreTarget};
pub use timestamp::{session_of_utc, utc_of_session};
pub use types::{column_def_field_meta, column_field_meta, prefix_bytes_per_char, prefix_chars, MAX_BYTES_PER_CHAR};
pub use tz::TimeZone;

// ---- comparison ----

/// SQL comparison with MySQL coercion rules (number vs string compares as numbers, temporal vs
/// string parses the string, strings compare as bytes: binary collation). `None` if either is NULL.
pub fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    compare::compare(a, b)
}

pub use compare::warn_string_against_number;

/// Total order for ORDER BY: NULL first, then `compare`.
pub fn sort_compare(a: &Value, b: &Value) -> Ordering {
    compare::sort_compare(a, b)
}

/// Appends a canonical encoding of `v` such that values equal under `compare` (for values of the
/// same column/expression) give equal bytes. Used for GROUP BY, DISTINCT, hash joins.
pub fn group_key(v: &Value, out: &mut Vec<u8>) {
    compare::group_key(v, out)
}

/// SQL truth value: NULL → None; numbers ≠ 0; strings parsed as numbers.
pub fn truthy(v: &Value) -> Option<bool> {
    compare::truthy(v)
}

// ---- arithmetic (NULL in → NULL out; integer overflow → error 1690) ----

pub fn arith(op: ArithOp, a: &Value, b: &Value, ctx: &dyn FnContext) -> Result<Value, SqlError> {
    arith::arith(op, a, b, ctx)
}

/// Result type of `a op b`.
pub fn arith_type(op: ArithOp, a: &SqlType, b: &SqlType) -> SqlType {
    arith::arith_type(op, a, b)
}

/// Result type of `a op b` under the session's div_precision_increment.
pub fn arith_type_with(op: ArithOp, a: &SqlType, b: &SqlType, div_increment: u32) -> SqlType {
    arith::arith_type_with(op, a, b, div_increment)
}

pub fn negate(v: &Value) -> Result<Value, SqlError> {
    arith::negate(v)
}
/// See `arith::negate_constant`.
pub fn negate_constant(v: &Value) -> Result<Value, SqlError> {
    arith::negate_constant(v)
}

// ---- casts and conversions ----

/// CAST(v AS target) / CONVERT: lenient, with warnings via ctx for truncation.
pub fn cast(v: &Value, target: CastTarget, ctx: &dyn FnContext) -> Result<Value, SqlError> {
    cast::cast(v, target, ctx)
}

pub fn cast_type(target: CastTarget) -> SqlType {
    cast::cast_type(target)
}

/// Lenient numeric views of a value (strings parsed by their numeric prefix, as MySQL does).
pub fn to_i64(v: &Value) -> Option<i64> {
    cast::to_i64(v)
}
pub fn to_u64(v: &Value) -> Option<u64> {
    cast::to_u64(v)
}
pub use cast::{bit_operand, shift_count};
pub fn to_f64(v: &Value) -> Option<f64> {
    cast::to_f64(v)
}
/// The value as text bytes (numbers formatted as MySQL prints them). None for NULL.
pub fn to_text_bytes(v: &Value) -> Option<Vec<u8>> {
    format::to_text_bytes(v)
}

/// Converts a value for storage in `col` (INSERT/UPDATE): range checks, string length, type
/// parsing. Strict mode (ctx.strict()) → error (1264 out of range, 1406 data too long, 1366
/// incorrect integer/decimal value, 1292 incorrect datetime value, 1048 column cannot be null);
/// otherwise clamp/truncate with a warning. NULL into NOT NULL is the caller's to report (1048)
/// except as noted by the caller.
pub fn store_for_column(v: Value, col: &ColumnDef, ctx: &dyn FnContext) -> Result<Value, SqlError> {
    store::store_for_column_at(v, col, None, ctx)
}

/// The value a NOT NULL column without a DEFAULT clause gets (0, '', zero date).
pub fn implicit_default(ty: &ColumnType) -> Value {
    store::implicit_default(ty)
}

// ---- text formatting ----

/// Appends the text-protocol form of a non-NULL value. `ty` (the column's static type, when
/// known) fixes the format: DECIMAL scale, DATETIME fractional digits, FLOAT precision.
pub fn format_text(v: &Value, ty: Option<&SqlType>, out: &mut Vec<u8>) {
    format::format_text(v, ty, out)
}

// ---- LIKE ----

/// A compiled LIKE pattern (`%`, `_`, escape character): bytes, or characters weighed by a
/// collation.
#[derive(Clone, Debug)]
pub struct LikePattern {
    compiled: like::CompiledLike,
    /// A collation that weighs characters, with the pattern's text: matched by weights.
    collated: Option<(Collation, Vec<u8>, u8)>,
}

impl LikePattern {
    pub fn compile(pattern: &[u8], escape: u8) -> LikePattern {
        LikePattern { compiled: like::CompiledLike::compile(pattern, escape), collated: None }
    }
    pub fn compile_collated(pattern: &[u8], escape: u8, collation: Collation) -> LikePattern {
        LikePattern {
            compiled: like::CompiledLike::compile(b"", escape),
            collated: Some((collation, pattern.to_vec(), escape)),
        }
    }
    pub fn matches(&self, s: &[u8]) -> bool {
        match &self.collated {
            Some((c, pattern, escape)) => c.like(s, pattern, u32::from(*escape)),
            None => self.compiled.matches(s),
        }
    }
}

// ---- date and time ----

/// Parses 'YYYY-MM-DD' (and MySQL's relaxed forms). None if not a date.
pub fn parse_date(s: &[u8]) -> Option<Date> {
    datetime::parse_temporal(s).filter(|p| !p.truncated).map(|p| p.civil.date())
}

/// Parses 'YYYY-MM-DD[ T]hh:mm:ss[.ffffff]' (and relaxed forms, and a plain date).
pub fn parse_datetime(s: &[u8]) -> Option<DateTime> {
    datetime::parse_temporal(s).filter(|p| !p.truncated).map(|p| p.civil.datetime())
}

/// Current local wall-clock time with microseconds.
pub fn now_local() -> DateTime {
    datetime::now_local()
}

/// NOW() for a session: the fixed `SET timestamp` value (seconds since the epoch) or the
/// clock, in the session's time zone.
pub fn session_now(fixed_timestamp: Option<selkie_storage::Decimal>, tz: TimeZone) -> DateTime {
    datetime::session_now(fixed_timestamp, tz)
}

/// The Unix time of a wall-clock time in `tz`; None for a zero or out-of-range date.
pub fn epoch_of_wall_clock(dt: DateTime, tz: TimeZone) -> Option<i64> {
    datetime::epoch_of_civil(tz, &datetime::Civil::from_datetime(dt))
}

/// DATE_ADD/DATE_SUB/`+ INTERVAL`: `amount` units added (subtracted if `negate`).
pub fn date_add(
    base: &Value,
    amount: &Value,
    unit: IntervalUnit,
    negate: bool,
    ctx: &dyn FnContext,
) -> Result<Value, SqlError> {
    interval::date_add(base, amount, unit, negate, ctx)
}

// ---- scalar functions ----

/// Case-insensitive lookup of a built-in scalar function.
pub fn lookup_function(name: &str) -> Option<&'static ScalarFunction> {
    functions::lookup_function(name)
}

// ---- aggregates ----

/// Resolves an aggregate name (COUNT, SUM, AVG, MIN, MAX, BIT_AND, BIT_OR, BIT_XOR,
/// GROUP_CONCAT, STD/STDDEV/STDDEV_POP, VARIANCE/VAR_POP).
pub fn lookup_aggregate(name: &str) -> Option<AggFunc> {
    aggregate::lookup_aggregate(name)
}

/// Result type of `func(arg)` (SUM(int) → DECIMAL, AVG → DECIMAL scale+4, COUNT → BIGINT, ...).
pub fn aggregate_type(func: AggFunc, arg: &SqlType) -> SqlType {
    aggregate::aggregate_type(func, arg)
}

/// Running state of one aggregate over one group. DISTINCT is applied by the caller.
#[derive(Clone, Debug)]
pub struct AggState {
    inner: aggregate::AggInner,
}

impl AggState {
    pub fn new(func: AggFunc, arg: &SqlType) -> AggState {
        AggState { inner: aggregate::AggInner::new(func, arg) }
    }
    /// GROUP_CONCAT(... SEPARATOR sep) with a session's group_concat_max_len (bytes). `new`
    /// uses ',' and MariaDB's default of 1 MiB.
    pub fn new_group_concat(separator: Vec<u8>, max_len: usize) -> AggState {
        AggState { inner: aggregate::AggInner::new_group_concat(separator, max_len) }
    }
    pub fn update(&mut self, v: &Value, ctx: &dyn FnContext) -> Result<(), SqlError> {
        self.inner.update(v, ctx)
    }
    pub fn finish(&self) -> Value {
        self.inner.finish()
    }
}
