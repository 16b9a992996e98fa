//! Arithmetic operators with MariaDB's type rules.
//!
//! Operands are classified as exact integers (with signedness), DECIMAL or DOUBLE. Integers stay
//! integers for + - * DIV %, with 64-bit range checks (error 1690); `/` on exact operands is
//! DECIMAL with the dividend's scale + 4; anything involving a DOUBLE or a string is DOUBLE.
//! Temporal operands act as the numbers YYYYMMDD / YYYYMMDDhhmmss[.ffffff].

use selkie_storage::Decimal;

use super::cast::{sql_literal, string_as_double};
use super::context::FnContext;
use super::datetime::Civil;
use super::kinds::{ArithOp, SqlType};
use super::num::{
    dec_add, dec_div_with, dec_int_div, dec_mul, dec_rem, dec_sub, lex_number, DIV_PRECISION_INCREMENT,
    MAX_DECIMAL_DIGITS, MAX_DECIMAL_SCALE,
};
use crate::error::SqlError;
use crate::types::Value;

/// An operand reduced to its arithmetic class.
#[derive(Clone, Copy, Debug)]
pub enum Operand {
    /// Exact integer within i64 or u64 range; `unsigned` marks BIGINT UNSIGNED values.
    Int {
        v: i128,
        unsigned: bool,
    },
    Dec(Decimal),
    Dbl(f64),
}

/// Classifies a non-NULL value.
pub fn operand(v: &Value, ctx: &dyn FnContext) -> Option<Operand> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => Operand::Int { v: *i as i128, unsigned: false },
        Value::UInt(u) => Operand::Int { v: *u as i128, unsigned: true },
        Value::Decimal(d) => Operand::Dec(*d),
        Value::Double(x) => Operand::Dbl(*x),
        Value::Bytes(b) => Operand::Dbl(string_as_double(b, ctx)),
        Value::Date(d) => Operand::Int { v: Civil::from_date(*d).date_number() as i128, unsigned: false },
        Value::DateTime(dt) => {
            let c = Civil::from_datetime(*dt);
            let n = c.datetime_number() as i128;
            if c.micros == 0 {
                Operand::Int { v: n, unsigned: false }
            } else {
                Operand::Dec(Decimal::new(n * 1_000_000 + c.micros as i128, 6))
            }
        }
    })
}

fn to_decimal(o: Operand) -> Decimal {
    match o {
        Operand::Int { v, .. } => Decimal::new(v, 0),
        Operand::Dec(d) => d,
        Operand::Dbl(_) => unreachable!("doubles never take the decimal path"),
    }
}

fn to_f64(o: Operand) -> f64 {
    match o {
        Operand::Int { v, .. } => v as f64,
        Operand::Dec(d) => super::num::dec_to_f64(d),
        Operand::Dbl(x) => x,
    }
}

fn op_text(op: ArithOp) -> &'static str {
    match op {
        ArithOp::Add => " + ",
        ArithOp::Sub => " - ",
        ArithOp::Mul => " * ",
        ArithOp::Div => " / ",
        ArithOp::IntDiv => " DIV ",
        ArithOp::Rem => " % ",
    }
}

pub fn out_of_range(type_name: &str, expr: &str) -> SqlError {
    SqlError::new(1690, "22003", format!("{type_name} value is out of range in '{expr}'"))
}

fn binary_expr(op: ArithOp, a: &Value, b: &Value) -> String {
    format!("{}{}{}", sql_literal(a), op_text(op), sql_literal(b))
}

/// Division by zero: NULL; with ERROR_FOR_DIVISION_BY_ZERO also warning 1365, or the error in
/// strict DML. (Without that mode MariaDB returns NULL silently.)
pub fn division_by_zero(ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if ctx.error_for_division_by_zero() {
        if ctx.strict() {
            return Err(SqlError::new(1365, "22012", "Division by 0"));
        }
        ctx.warn(1365, "Division by 0".to_string());
    }
    Ok(Value::Null)
}

fn int_result(r: i128, unsigned: bool, op: ArithOp, a: &Value, b: &Value) -> Result<Value, SqlError> {
    if unsigned {
        match u64::try_from(r) {
            Ok(u) => Ok(Value::UInt(u)),
            Err(_) => Err(out_of_range("BIGINT UNSIGNED", &binary_expr(op, a, b))),
        }
    } else {
        match i64::try_from(r) {
            Ok(i) => Ok(Value::Int(i)),
            Err(_) => Err(out_of_range("BIGINT", &binary_expr(op, a, b))),
        }
    }
}

/// See `super::arith`.
pub fn arith(op: ArithOp, a: &Value, b: &Value, ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    let (Some(x), Some(y)) = (operand(a, ctx), operand(b, ctx)) else {
        return Ok(Value::Null);
    };
    match (x, y) {
        (Operand::Int { v: p, unsigned: ua }, Operand::Int { v: q, unsigned: ub }) if op != ArithOp::Div => {
            let r = match op {
                ArithOp::Add => p + q,
                ArithOp::Sub => p - q,
                ArithOp::Mul => match p.checked_mul(q) {
                    Some(r) => r,
                    None => return int_result(i128::MAX, ua || ub, op, a, b),
                },
                ArithOp::IntDiv => {
                    if q == 0 {
                        return division_by_zero(ctx);
                    }
                    p / q
                }
                ArithOp::Rem => {
                    if q == 0 {
                        return division_by_zero(ctx);
                    }
                    // The remainder takes the dividend's sign and signedness.
                    return int_result(p % q, ua, op, a, b);
                }
                ArithOp::Div => unreachable!("excluded by the match guard"),
            };
            int_result(r, ua || ub, op, a, b)
        }
        (Operand::Dbl(_), _) | (_, Operand::Dbl(_)) => {
            double_arith(op, to_f64(x), to_f64(y), unsigned_int(x, y), a, b, ctx)
        }
        _ => decimal_arith(op, to_decimal(x), to_decimal(y), unsigned_int(x, y), a, b, ctx),
    }
}

fn unsigned_int(x: Operand, y: Operand) -> bool {
    matches!(x, Operand::Int { unsigned: true, .. }) || matches!(y, Operand::Int { unsigned: true, .. })
}

fn double_arith(
    op: ArithOp,
    p: f64,
    q: f64,
    unsigned: bool,
    a: &Value,
    b: &Value,
    ctx: &dyn FnContext,
) -> Result<Value, SqlError> {
    let r = match op {
        ArithOp::Add => p + q,
        ArithOp::Sub => p - q,
        ArithOp::Mul => p * q,
        ArithOp::Div => {
            if q == 0.0 {
                return division_by_zero(ctx);
            }
            p / q
        }
        ArithOp::Rem => {
            if q == 0.0 {
                return division_by_zero(ctx);
            }
            p % q
        }
        ArithOp::IntDiv => {
            if q == 0.0 {
                return division_by_zero(ctx);
            }
            let t = (p / q).trunc();
            // Exclusive upper bounds: 2^63 and 2^64 are exactly representable doubles.
            return if unsigned && (0.0..18_446_744_073_709_551_616.0).contains(&t) {
                Ok(Value::UInt(t as u64))
            } else if !unsigned && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&t) {
                Ok(Value::Int(t as i64))
            } else {
                Err(out_of_range(if unsigned { "BIGINT UNSIGNED" } else { "BIGINT" }, &binary_expr(op, a, b)))
            };
        }
    };
    if r.is_finite() {
        Ok(Value::Double(if r == 0.0 { 0.0 } else { r }))
    } else {
        Err(out_of_range("DOUBLE", &binary_expr(op, a, b)))
    }
}

fn decimal_arith(
    op: ArithOp,
    p: Decimal,
    q: Decimal,
    unsigned: bool,
    a: &Value,
    b: &Value,
    ctx: &dyn FnContext,
) -> Result<Value, SqlError> {
    let overflow = || out_of_range("DECIMAL", &binary_expr(op, a, b));
    let r = match op {
        ArithOp::Add => dec_add(p, q),
        ArithOp::Sub => dec_sub(p, q),
        ArithOp::Mul => dec_mul(p, q),
        ArithOp::Div => {
            if q.is_zero() {
                return division_by_zero(ctx);
            }
            dec_div_with(p, q, ctx.div_precision_increment())
        }
        ArithOp::Rem => {
            if q.is_zero() {
                return division_by_zero(ctx);
            }
            dec_rem(p, q)
        }
        ArithOp::IntDiv => {
            if q.is_zero() {
                return division_by_zero(ctx);
            }
            let t = dec_int_div(p, q).unwrap_or(i128::MAX);
            return int_result(t, unsigned, op, a, b);
        }
    };
    r.map(Value::Decimal).map_err(|_| overflow())
}

/// See `super::negate`.
pub fn negate(v: &Value) -> Result<Value, SqlError> {
    let expr = || format!("-{}", sql_literal(v));
    Ok(match v {
        Value::Null => Value::Null,
        Value::Int(i) => Value::Int(i.checked_neg().ok_or_else(|| out_of_range("BIGINT", &expr()))?),
        Value::UInt(u) => {
            let n = -(*u as i128);
            Value::Int(i64::try_from(n).map_err(|_| out_of_range("BIGINT", &expr()))?)
        }
        Value::Double(x) => Value::Double(if *x == 0.0 { 0.0 } else { -x }),
        Value::Decimal(d) => Value::Decimal(d.negated()),
        Value::Bytes(b) => {
            let x = lex_number(b).to_f64();
            Value::Double(if x == 0.0 { 0.0 } else { -x })
        }
        Value::Date(_) | Value::DateTime(_) => {
            // Temporal values negate as their numbers; they are never i64::MIN.
            match super::cast::temporal_as_number(v) {
                Value::Int(i) => Value::Int(-i),
                Value::Decimal(d) => Value::Decimal(d.negated()),
                other => other,
            }
        }
    })
}

/// `-v` for a constant operand: as `negate`, except that an unsigned value past BIGINT's range
/// becomes a DECIMAL (MariaDB types the negation of such a constant as DECIMAL when it fixes
/// the expression; only a column's value gives 1690).
pub fn negate_constant(v: &Value) -> Result<Value, SqlError> {
    match v {
        Value::UInt(u) if *u > i64::MAX as u64 + 1 => Ok(Value::Decimal(Decimal::new(-(*u as i128), 0))),
        other => negate(other),
    }
}

/// Arithmetic class of a static type.
#[derive(Clone, Copy)]
enum TypeClass {
    Int { unsigned: bool },
    Dec,
    Dbl,
}

fn type_class(t: &SqlType) -> TypeClass {
    match t {
        SqlType::Null => TypeClass::Int { unsigned: false },
        SqlType::Int { unsigned, .. } => TypeClass::Int { unsigned: *unsigned },
        SqlType::Bit { .. } => TypeClass::Int { unsigned: true },
        SqlType::Decimal { .. } => TypeClass::Dec,
        SqlType::Date | SqlType::DateTime { fsp: 0 } | SqlType::Timestamp { fsp: 0 } => {
            TypeClass::Int { unsigned: false }
        }
        SqlType::DateTime { .. } | SqlType::Timestamp { .. } => TypeClass::Dec,
        // The binder turns TIME operands into numbers (CastTarget::TimeNumber) first.
        SqlType::Time { fsp: 0 } => TypeClass::Int { unsigned: false },
        SqlType::Time { .. } => TypeClass::Dec,
        SqlType::Float | SqlType::Double | SqlType::Text { .. } | SqlType::Bytes { .. } | SqlType::Enum { .. } => {
            TypeClass::Dbl
        }
    }
}

/// `+` and `-` widen their type past 65 digits as MariaDB's do (DECIMAL(65,30) + 1 is
/// DECIMAL(66,30) in the result metadata); the other operators stop at 65.
fn additive_decimal_type(int: u32, scale: u32) -> SqlType {
    let scale = scale.min(MAX_DECIMAL_SCALE);
    SqlType::Decimal { precision: (int + scale).clamp(1, u8::MAX as u32) as u8, scale: scale as u8 }
}

fn decimal_type(int: u32, scale: u32) -> SqlType {
    let scale = scale.min(MAX_DECIMAL_SCALE);
    SqlType::Decimal { precision: (int + scale).clamp(1, MAX_DECIMAL_DIGITS) as u8, scale: scale as u8 }
}

/// See `super::arith_type`.
pub fn arith_type(op: ArithOp, a: &SqlType, b: &SqlType) -> SqlType {
    arith_type_with(op, a, b, DIV_PRECISION_INCREMENT)
}

/// `arith_type` under the session's div_precision_increment (the scale `/` adds).
pub fn arith_type_with(op: ArithOp, a: &SqlType, b: &SqlType, div_increment: u32) -> SqlType {
    let (ca, cb) = (type_class(a), type_class(b));
    let int_digits = |t: &SqlType| t.decimal_digits();
    match (ca, cb) {
        (ca, cb) if op == ArithOp::IntDiv => {
            let unsigned =
                matches!(ca, TypeClass::Int { unsigned: true }) || matches!(cb, TypeClass::Int { unsigned: true });
            SqlType::Int { bits: 64, unsigned }
        }
        (TypeClass::Dbl, _) | (_, TypeClass::Dbl) => SqlType::Double,
        (TypeClass::Int { unsigned: ua }, TypeClass::Int { unsigned: ub }) if op != ArithOp::Div => {
            SqlType::Int { bits: 64, unsigned: if op == ArithOp::Rem { ua } else { ua || ub } }
        }
        _ => {
            let (ia, sa) = int_digits(a);
            let (ib, sb) = int_digits(b);
            match op {
                ArithOp::Add | ArithOp::Sub => additive_decimal_type(ia.max(ib) + 1, sa.max(sb)),
                ArithOp::Mul => decimal_type(ia + ib, sa + sb),
                ArithOp::Div => decimal_type(ia + sb, sa + div_increment),
                ArithOp::Rem => decimal_type(ia.max(ib), sa.max(sb)),
                ArithOp::IntDiv => unreachable!("handled above"),
            }
        }
    }
}
