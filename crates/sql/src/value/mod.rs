//! MySQL value semantics: result types, comparison, arithmetic, casts, assignment to columns,
//! text formatting, LIKE, date/time, scalar functions and aggregates.
//!
//! INTERFACE CONTRACT (frozen; owner: SQL-values engineer). The executor (crate::exec and friends)
//! calls only these items. Everything here is pure computation on `Value`s: no I/O, no catalog.

use std::cmp::Ordering;

use selkie_storage::{ColumnDef, ColumnType, Date, DateTime};

use crate::api::{FieldType, SqlError, Value};

/// The static type of an expression's result (drives column metadata and coercions).
#[derive(Clone, Debug, PartialEq)]
pub enum SqlType {
    Null,
    /// `bits` = 8/16/24/32/64 (the declared width; 64 for computed integers).
    Int { bits: u32, unsigned: bool },
    Decimal { precision: u8, scale: u8 },
    Float,
    Double,
    /// Character data (utf8mb4). `max_chars` = declared length; `lob` for TEXT types.
    Text { max_chars: u32, lob: bool },
    /// Binary data (BINARY/VARBINARY/BLOB).
    Bytes { max_len: u32, lob: bool },
    Date,
    DateTime { fsp: u8 },
    Timestamp { fsp: u8 },
}

/// Wire metadata of a result column of type `SqlType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldMeta {
    pub field_type: FieldType,
    pub length: u32,
    pub decimals: u8,
    pub charset: u16,
    /// UNSIGNED / BINARY / BLOB / NUM flags implied by the type (NOT_NULL etc. added by caller).
    pub flags: u16,
}

impl SqlType {
    pub fn from_column(ty: &ColumnType) -> SqlType {
        let _ = ty;
        todo!("sql values")
    }
    pub fn field_meta(&self) -> FieldMeta {
        todo!("sql values")
    }
    /// The type of a literal / runtime value (for parameters and constants).
    pub fn of_value(v: &Value) -> SqlType {
        let _ = v;
        todo!("sql values")
    }
    /// Result type of combining two branches (CASE, IF, COALESCE, UNION column).
    pub fn unify(a: &SqlType, b: &SqlType) -> SqlType {
        let _ = (a, b);
        todo!("sql values")
    }
}

/// Session facts that functions and conversions need.
pub trait FnContext {
    /// The statement's start time (NOW() is stable within a statement), session time zone.
    fn now(&self) -> DateTime;
    fn current_database(&self) -> Option<String>;
    /// 'user@host'.
    fn user(&self) -> String;
    fn connection_id(&self) -> u64;
    fn last_insert_id(&self) -> u64;
    fn found_rows(&self) -> u64;
    fn row_count(&self) -> i64;
    /// Next pseudo-random number in [0, 1) (RAND()).
    fn random(&self) -> f64;
    fn version(&self) -> String;
    /// Strict mode (STRICT_TRANS_TABLES/STRICT_ALL_TABLES in effect for this statement).
    fn strict(&self) -> bool;
    /// ERROR_FOR_DIVISION_BY_ZERO in sql_mode.
    fn error_for_division_by_zero(&self) -> bool;
    /// Adds a warning (level Warning) for SHOW WARNINGS.
    fn warn(&self, code: u16, message: String);
}

// ---- comparison ----

/// SQL comparison with MySQL coercion rules (number vs string compares as numbers, temporal vs
/// string parses the string, strings compare as bytes: binary collation). `None` if either is NULL.
pub fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    let _ = (a, b);
    todo!("sql values")
}

/// Total order for ORDER BY: NULL first, then `compare`.
pub fn sort_compare(a: &Value, b: &Value) -> Ordering {
    let _ = (a, b);
    todo!("sql values")
}

/// Appends a canonical encoding of `v` such that values equal under `compare` (for values of the
/// same column/expression) give equal bytes. Used for GROUP BY, DISTINCT, hash joins.
pub fn group_key(v: &Value, out: &mut Vec<u8>) {
    let _ = (v, out);
    todo!("sql values")
}

/// SQL truth value: NULL → None; numbers ≠ 0; strings parsed as numbers.
pub fn truthy(v: &Value) -> Option<bool> {
    let _ = v;
    todo!("sql values")
}

// ---- arithmetic (NULL in → NULL out; integer overflow → error 1690) ----

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    /// `/`: DECIMAL or DOUBLE result; division by zero → NULL (+ warning 1365, or error in strict
    /// DML with ERROR_FOR_DIVISION_BY_ZERO).
    Div,
    /// DIV
    IntDiv,
    /// % / MOD
    Rem,
}

pub fn arith(op: ArithOp, a: &Value, b: &Value, ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let _ = (op, a, b, ctx);
    todo!("sql values")
}

/// Result type of `a op b`.
pub fn arith_type(op: ArithOp, a: &SqlType, b: &SqlType) -> SqlType {
    let _ = (op, a, b);
    todo!("sql values")
}

pub fn negate(v: &Value) -> Result<Value, SqlError> {
    let _ = v;
    todo!("sql values")
}

// ---- casts and conversions ----

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastTarget {
    Signed,
    Unsigned,
    Decimal { precision: u8, scale: u8 },
    Double,
    Float,
    Char { len: Option<u32> },
    Binary { len: Option<u32> },
    Date,
    DateTime { fsp: u8 },
}

/// CAST(v AS target) / CONVERT: lenient, with warnings via ctx for truncation.
pub fn cast(v: &Value, target: CastTarget, ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let _ = (v, target, ctx);
    todo!("sql values")
}

pub fn cast_type(target: CastTarget) -> SqlType {
    let _ = target;
    todo!("sql values")
}

/// Lenient numeric views of a value (strings parsed by their numeric prefix, as MySQL does).
pub fn to_i64(v: &Value) -> Option<i64> {
    let _ = v;
    todo!("sql values")
}
pub fn to_u64(v: &Value) -> Option<u64> {
    let _ = v;
    todo!("sql values")
}
pub fn to_f64(v: &Value) -> Option<f64> {
    let _ = v;
    todo!("sql values")
}
/// The value as text bytes (numbers formatted as MySQL prints them). None for NULL.
pub fn to_text_bytes(v: &Value) -> Option<Vec<u8>> {
    let _ = v;
    todo!("sql values")
}

/// Converts a value for storage in `col` (INSERT/UPDATE): range checks, string length, type
/// parsing. Strict mode (ctx.strict()) → error (1264 out of range, 1406 data too long, 1366
/// incorrect integer/decimal value, 1292 incorrect datetime value, 1048 column cannot be null);
/// otherwise clamp/truncate with a warning. NULL into NOT NULL is the caller's to report (1048)
/// except as noted by the caller.
pub fn store_for_column(v: Value, col: &ColumnDef, ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let _ = (v, col, ctx);
    todo!("sql values")
}

/// The value a NOT NULL column without a DEFAULT clause gets (0, '', zero date).
pub fn implicit_default(ty: &ColumnType) -> Value {
    let _ = ty;
    todo!("sql values")
}

// ---- text formatting ----

/// Appends the text-protocol form of a non-NULL value. `ty` (the column's static type, when
/// known) fixes the format: DECIMAL scale, DATETIME fractional digits, FLOAT precision.
pub fn format_text(v: &Value, ty: Option<&SqlType>, out: &mut Vec<u8>) {
    let _ = (v, ty, out);
    todo!("sql values")
}

// ---- LIKE ----

/// A compiled LIKE pattern (binary collation; `%`, `_`, escape character).
pub struct LikePattern {
    _private: (),
}

impl LikePattern {
    pub fn compile(pattern: &[u8], escape: u8) -> LikePattern {
        let _ = (pattern, escape);
        todo!("sql values")
    }
    pub fn matches(&self, s: &[u8]) -> bool {
        let _ = s;
        todo!("sql values")
    }
}

// ---- date and time ----

/// Parses 'YYYY-MM-DD' (and MySQL's relaxed forms). None if not a date.
pub fn parse_date(s: &[u8]) -> Option<Date> {
    let _ = s;
    todo!("sql values")
}

/// Parses 'YYYY-MM-DD[ T]hh:mm:ss[.ffffff]' (and relaxed forms, and a plain date).
pub fn parse_datetime(s: &[u8]) -> Option<DateTime> {
    let _ = s;
    todo!("sql values")
}

/// Current local wall-clock time with microseconds.
pub fn now_local() -> DateTime {
    todo!("sql values")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntervalUnit {
    Microsecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

/// DATE_ADD/DATE_SUB/`+ INTERVAL`: `amount` units added (subtracted if `negate`).
pub fn date_add(base: &Value, amount: &Value, unit: IntervalUnit, negate: bool, ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let _ = (base, amount, unit, negate, ctx);
    todo!("sql values")
}

// ---- scalar functions ----

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

/// Case-insensitive lookup of a built-in scalar function.
pub fn lookup_function(name: &str) -> Option<&'static ScalarFunction> {
    let _ = name;
    todo!("sql values")
}

// ---- aggregates ----

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggFunc {
    /// COUNT(*)
    CountStar,
    Count,
    Sum,
    Avg,
    Min,
    Max,
    BitAnd,
    BitOr,
    BitXor,
    GroupConcat,
    StdDev,
    Variance,
}

/// Resolves an aggregate name (COUNT, SUM, AVG, MIN, MAX, BIT_AND, BIT_OR, BIT_XOR,
/// GROUP_CONCAT, STD/STDDEV/STDDEV_POP, VARIANCE/VAR_POP).
pub fn lookup_aggregate(name: &str) -> Option<AggFunc> {
    let _ = name;
    todo!("sql values")
}

/// Result type of `func(arg)` (SUM(int) → DECIMAL, AVG → DECIMAL scale+4, COUNT → BIGINT, ...).
pub fn aggregate_type(func: AggFunc, arg: &SqlType) -> SqlType {
    let _ = (func, arg);
    todo!("sql values")
}

/// Running state of one aggregate over one group. DISTINCT is applied by the caller.
pub struct AggState {
    _private: (),
}

impl AggState {
    pub fn new(func: AggFunc, arg: &SqlType) -> AggState {
        let _ = (func, arg);
        todo!("sql values")
    }
    pub fn update(&mut self, v: &Value, ctx: &dyn FnContext) -> Result<(), SqlError> {
        let _ = (v, ctx);
        todo!("sql values")
    }
    pub fn finish(&self) -> Value {
        todo!("sql values")
    }
}
