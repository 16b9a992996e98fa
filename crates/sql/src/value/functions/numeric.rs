//! Numeric functions. Exact types stay exact (ABS/CEIL/FLOOR/ROUND/TRUNCATE of integers and
//! DECIMALs); everything else computes in DOUBLE like MariaDB.

use std::cmp::Ordering;
use std::f64::consts::PI;

use selkie_storage::Decimal;

use super::args::{any_null, f64_arg, int_arg, text};
use super::signature::ScalarFunction;
use super::signature::{rt_double, rt_int, rt_text, VARIADIC};
use crate::error::SqlError;
use crate::types::Value;
use crate::value::arith::{arith, arith_type, division_by_zero, out_of_range};
use crate::value::cast::sql_literal;
use crate::value::compare::compare;
use crate::value::context::FnContext;
use crate::value::kinds::ArithOp;
use crate::value::kinds::SqlType;
use crate::value::num::{dec_add, dec_round, dec_sub, RoundMode, MAX_DECIMAL_DIGITS};

/// MariaDB's RAND(seed) generator constants (`my_rnd_init`).
const RAND_MAX_VALUE: u64 = 0x3FFF_FFFF;
/// Digits CONV/BIN/OCT can produce (64 bits in base 2).
const CONV_MAX_DIGITS: usize = 64;

pub static FUNCTIONS: &[ScalarFunction] = &[
    func!("ABS", 1, 1, true, rt_same_numeric, abs),
    func!("CEIL", 1, 1, true, rt_ceil_floor, ceil),
    func!("CEILING", 1, 1, true, rt_ceil_floor, ceil),
    func!("FLOOR", 1, 1, true, rt_ceil_floor, floor),
    func!("ROUND", 1, 2, true, rt_round, round),
    func!("TRUNCATE", 2, 2, true, rt_round, truncate),
    func!("MOD", 2, 2, true, rt_mod, modulo),
    func!("POW", 2, 2, true, rt_double, pow),
    func!("POWER", 2, 2, true, rt_double, pow),
    func!("SQRT", 1, 1, true, rt_double, sqrt),
    func!("EXP", 1, 1, true, rt_double, exp),
    func!("LN", 1, 1, true, rt_double, ln),
    func!("LOG", 1, 2, true, rt_double, log),
    func!("LOG2", 1, 1, true, rt_double, log2),
    func!("LOG10", 1, 1, true, rt_double, log10),
    func!("SIGN", 1, 1, true, rt_int, sign),
    func!("PI", 0, 0, true, rt_double, pi),
    func!("RAND", 0, 1, false, rt_double, rand),
    func!("GREATEST", 2, VARIADIC, true, rt_greatest, greatest),
    func!("LEAST", 2, VARIADIC, true, rt_greatest, least),
    func!("CONV", 3, 3, true, rt_conv, conv),
    func!("BIN", 1, 1, true, rt_conv, bin),
    func!("OCT", 1, 1, true, rt_conv, oct),
    func!("DEGREES", 1, 1, true, rt_double, degrees),
    func!("RADIANS", 1, 1, true, rt_double, radians),
    func!("SIN", 1, 1, true, rt_double, sin),
    func!("COS", 1, 1, true, rt_double, cos),
    func!("TAN", 1, 1, true, rt_double, tan),
    func!("COT", 1, 1, true, rt_double, cot),
    func!("ASIN", 1, 1, true, rt_double, asin),
    func!("ACOS", 1, 1, true, rt_double, acos),
    func!("ATAN", 1, 2, true, rt_double, atan),
    func!("ATAN2", 2, 2, true, rt_double, atan2),
];

// ---- return types ----

fn numeric_or_double(t: &SqlType) -> SqlType {
    match t {
        SqlType::Int { .. } | SqlType::Decimal { .. } | SqlType::Float | SqlType::Double => t.clone(),
        SqlType::Date => SqlType::Int { bits: 64, unsigned: false },
        SqlType::Null => SqlType::Null,
        _ => SqlType::Double,
    }
}

fn rt_same_numeric(args: &[SqlType]) -> SqlType {
    numeric_or_double(&args[0])
}

fn rt_ceil_floor(args: &[SqlType]) -> SqlType {
    match &args[0] {
        SqlType::Decimal { precision, scale } => {
            let int = (*precision as u32).saturating_sub(*scale as u32) + 1;
            if int <= 18 {
                SqlType::Int { bits: 64, unsigned: false }
            } else {
                SqlType::Decimal { precision: int.min(MAX_DECIMAL_DIGITS) as u8, scale: 0 }
            }
        }
        other => numeric_or_double(other),
    }
}

/// Type of ROUND/TRUNCATE(x, d) for a constant `d` (see `return_type_with_constants`).
pub fn round_type(arg: &SqlType, d: i64) -> SqlType {
    match arg {
        SqlType::Decimal { precision, scale } => {
            // A larger d pads with zeros: ROUND(1.55, 5) = 1.55000.
            let new_scale = d.clamp(0, crate::value::num::MAX_DECIMAL_SCALE as i64) as u32;
            let int = (*precision as u32).saturating_sub(*scale as u32) + 1;
            SqlType::Decimal { precision: (int + new_scale).min(MAX_DECIMAL_DIGITS) as u8, scale: new_scale as u8 }
        }
        other => numeric_or_double(other),
    }
}

fn rt_round(args: &[SqlType]) -> SqlType {
    if args.len() == 1 {
        return round_type(&args[0], 0);
    }
    // Without the constant, the argument's scale bounds the result's (MariaDB does the same for
    // a non-constant second argument).
    match &args[0] {
        SqlType::Decimal { precision, scale } => {
            SqlType::Decimal { precision: (*precision as u32 + 1).min(MAX_DECIMAL_DIGITS) as u8, scale: *scale }
        }
        other => numeric_or_double(other),
    }
}

fn rt_mod(args: &[SqlType]) -> SqlType {
    arith_type(ArithOp::Rem, &args[0], &args[1])
}

fn rt_greatest(args: &[SqlType]) -> SqlType {
    let all = |f: fn(&SqlType) -> bool| args.iter().all(|t| f(t) || matches!(t, SqlType::Null));
    if all(SqlType::is_numeric) || all(SqlType::is_string) || all(SqlType::is_temporal) {
        args.iter().skip(1).fold(args[0].clone(), |a, b| SqlType::unify(&a, b))
    } else {
        // Mixed strings and numbers compare and return as DOUBLE in MariaDB.
        SqlType::Double
    }
}

fn rt_conv(_: &[SqlType]) -> SqlType {
    rt_text(CONV_MAX_DIGITS as u32 + 1)
}

// ---- helpers ----

fn double(x: f64) -> Result<Value, SqlError> {
    Ok(Value::Double(if x == 0.0 { 0.0 } else { x }))
}

/// A DOUBLE result, error 1690 if it overflowed.
fn checked_double(x: f64, expr: impl FnOnce() -> String) -> Result<Value, SqlError> {
    if x.is_finite() {
        double(x)
    } else {
        Err(out_of_range("DOUBLE", &expr()))
    }
}

fn unary_double(args: &[Value], ctx: &dyn FnContext, f: fn(f64) -> f64) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let r = f(f64_arg(&args[0], ctx));
    if r.is_nan() {
        return Ok(Value::Null);
    }
    double(r)
}

fn call_text(name: &str, args: &[Value]) -> String {
    let parts: Vec<String> = args.iter().map(sql_literal).collect();
    format!("{name}({})", parts.join(","))
}

// ---- implementations ----

fn abs(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(match &args[0] {
        Value::Null => Value::Null,
        Value::Int(i) => Value::Int(i.checked_abs().ok_or_else(|| out_of_range("BIGINT", &call_text("abs", args)))?),
        Value::UInt(u) => Value::UInt(*u),
        Value::Decimal(d) => Value::Decimal(d.abs()),
        Value::Double(x) => Value::Double(x.abs()),
        Value::Bytes(_) => Value::Double(f64_arg(&args[0], ctx).abs()),
        v @ (Value::Date(_) | Value::DateTime(_)) => crate::value::cast::temporal_as_number(v),
    })
}

fn ceil_floor(args: &[Value], ctx: &dyn FnContext, up: bool) -> Result<Value, SqlError> {
    Ok(match &args[0] {
        Value::Null => Value::Null,
        v @ (Value::Int(_) | Value::UInt(_)) => v.clone(),
        Value::Decimal(d) => {
            let t = dec_round(*d, 0, RoundMode::TowardZero).unwrap_or(*d);
            let exact = t.cmp(d) == std::cmp::Ordering::Equal;
            let mut m = t;
            if !exact {
                let one = Decimal::new(1, 0);
                if up && !d.is_negative() {
                    m = dec_add(t, one).unwrap_or(t);
                } else if !up && d.is_negative() {
                    m = dec_sub(t, one).unwrap_or(t);
                }
            }
            match m.mantissa_i128().and_then(|m| i64::try_from(m).ok()) {
                Some(i) => Value::Int(i),
                None => Value::Decimal(m),
            }
        }
        Value::Double(x) => Value::Double(if up { x.ceil() } else { x.floor() }),
        Value::Bytes(_) => {
            let x = f64_arg(&args[0], ctx);
            Value::Double(if up { x.ceil() } else { x.floor() })
        }
        v @ (Value::Date(_) | Value::DateTime(_)) => ceil_floor(&[crate::value::cast::temporal_as_number(v)], ctx, up)?,
    })
}

fn ceil(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    ceil_floor(args, ctx, true)
}
fn floor(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    ceil_floor(args, ctx, false)
}

/// MariaDB's `my_double_round`: rint for ROUND (half to even on exact ties), floor/ceil for
/// TRUNCATE, via scaling by 10^|d|.
pub fn double_round(value: f64, d: i64, truncate: bool) -> f64 {
    let abs_d = d.unsigned_abs().min(400) as i32;
    let tmp = 10f64.powi(abs_d);
    let div = value / tmp;
    let mul = value * tmp;
    if d < 0 && tmp.is_infinite() {
        0.0
    } else if d >= 0 && mul.is_infinite() {
        value
    } else if truncate {
        if value >= 0.0 {
            if d < 0 {
                div.floor() * tmp
            } else {
                mul.floor() / tmp
            }
        } else if d < 0 {
            div.ceil() * tmp
        } else {
            mul.ceil() / tmp
        }
    } else if d < 0 {
        div.round_ties_even() * tmp
    } else {
        mul.round_ties_even() / tmp
    }
}

/// ROUND/TRUNCATE of an integer to 10^-d (d < 0), exact.
fn int_round(v: i128, d: i64, mode: RoundMode) -> Option<i128> {
    if d >= 0 {
        return Some(v);
    }
    let k = d.unsigned_abs();
    if k > 38 {
        return Some(0);
    }
    let unit = 10i128.pow(k as u32);
    let q = v / unit;
    let r = v % unit;
    let q = match mode {
        RoundMode::TowardZero => q,
        RoundMode::HalfAwayFromZero if r.abs() * 2 >= unit => q + v.signum(),
        RoundMode::HalfAwayFromZero => q,
    };
    q.checked_mul(unit)
}

fn round_impl(args: &[Value], ctx: &dyn FnContext, mode: RoundMode, name: &str) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let d = if args.len() > 1 { int_arg(&args[1], ctx) } else { 0 };
    let truncate = mode == RoundMode::TowardZero;
    Ok(match &args[0] {
        Value::Null => Value::Null,
        Value::Int(_) | Value::UInt(_) => {
            let v = match &args[0] {
                Value::Int(i) => *i as i128,
                Value::UInt(u) => *u as i128,
                _ => unreachable!("matched above"),
            };
            // Rounding up past the 64-bit range gives a DECIMAL (ROUND(9223372036854775807, -1)).
            match int_round(v, d, mode) {
                Some(r) => match (&args[0], i64::try_from(r), u64::try_from(r)) {
                    (Value::Int(_), Ok(i), _) => Value::Int(i),
                    (Value::UInt(_), _, Ok(u)) => Value::UInt(u),
                    _ => Value::Decimal(Decimal::new(r, 0)),
                },
                None => return Err(out_of_range("DECIMAL", &call_text(name, args))),
            }
        }
        Value::Decimal(x) => {
            Value::Decimal(dec_round(*x, d, mode).map_err(|_| out_of_range("DECIMAL", &call_text(name, args)))?)
        }
        Value::Double(x) => Value::Double(double_round(*x, d, truncate)),
        Value::Bytes(_) => Value::Double(double_round(f64_arg(&args[0], ctx), d, truncate)),
        v @ (Value::Date(_) | Value::DateTime(_)) => {
            let mut a = args.to_vec();
            a[0] = crate::value::cast::temporal_as_number(v);
            return round_impl(&a, ctx, mode, name);
        }
    })
}

fn round(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    round_impl(args, ctx, RoundMode::HalfAwayFromZero, "round")
}
fn truncate(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    round_impl(args, ctx, RoundMode::TowardZero, "truncate")
}

fn modulo(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    arith(ArithOp::Rem, &args[0], &args[1], ctx)
}

fn pow(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    // A NaN (negative base, fractional exponent) is out of range too.
    checked_double(f64_arg(&args[0], ctx).powf(f64_arg(&args[1], ctx)), || call_text("pow", args))
}

fn sqrt(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    unary_double(args, ctx, f64::sqrt)
}

fn exp(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    checked_double(f64_arg(&args[0], ctx).exp(), || call_text("exp", args))
}

/// Logarithm of a non-positive number: NULL, reported as a division by zero (MariaDB
/// `signal_divide_by_null`).
fn invalid_log(ctx: &dyn FnContext) -> Result<Value, SqlError> {
    division_by_zero(ctx)
}

fn log_of(args: &[Value], ctx: &dyn FnContext, f: fn(f64) -> f64) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let x = f64_arg(&args[0], ctx);
    if x <= 0.0 {
        return invalid_log(ctx);
    }
    double(f(x))
}

fn ln(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    log_of(args, ctx, f64::ln)
}
fn log2(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    // MariaDB computes log(x) / M_LN2, which differs from log2(x) in the last digit.
    log_of(args, ctx, |x| x.ln() / std::f64::consts::LN_2)
}
fn log10(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    log_of(args, ctx, f64::log10)
}

fn log(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args.len() == 1 {
        return ln(args, ctx);
    }
    if any_null(args) {
        return Ok(Value::Null);
    }
    let base = f64_arg(&args[0], ctx);
    let x = f64_arg(&args[1], ctx);
    if x <= 0.0 || base <= 0.0 || base == 1.0 {
        return invalid_log(ctx);
    }
    double(x.ln() / base.ln())
}

fn sign(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = match &args[0] {
        Value::Int(i) => i.signum(),
        Value::UInt(u) => (*u > 0) as i64,
        Value::Decimal(d) => d.mantissa.signum() as i64,
        other => {
            let x = f64_arg(other, ctx);
            if x > 0.0 {
                1
            } else if x < 0.0 {
                -1
            } else {
                0
            }
        }
    };
    Ok(Value::Int(s))
}

fn pi(_: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(Value::Double(PI))
}

/// First value of MariaDB's RAND(seed) sequence (`my_rnd_init` + one `my_rnd`).
pub fn seeded_rand(seed: i64) -> f64 {
    let seed = seed as u64;
    let seed1 = (seed.wrapping_mul(0x10001).wrapping_add(55_555_555) as u32 as u64) % RAND_MAX_VALUE;
    let seed2 = (seed.wrapping_mul(0x1000_0001) as u32 as u64) % RAND_MAX_VALUE;
    let next = (seed1 * 3 + seed2) % RAND_MAX_VALUE;
    next as f64 / RAND_MAX_VALUE as f64
}

fn rand(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    match args.first() {
        None => Ok(Value::Double(ctx.random())),
        Some(Value::Null) => Ok(Value::Double(seeded_rand(0))),
        Some(v) => Ok(Value::Double(seeded_rand(int_arg(v, ctx)))),
    }
}

fn extreme(args: &[Value], ctx: &dyn FnContext, want: Ordering) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let numbers =
        args.iter().any(|a| matches!(a, Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_)));
    let strings = args.iter().any(|a| matches!(a, Value::Bytes(_)));
    if numbers && strings {
        // MariaDB compares and returns mixed numbers and strings as DOUBLE.
        let mut best = f64_arg(&args[0], ctx);
        for a in &args[1..] {
            let x = f64_arg(a, ctx);
            if x.partial_cmp(&best) == Some(want) {
                best = x;
            }
        }
        return double(best);
    }
    let mut best = &args[0];
    for a in &args[1..] {
        if compare(a, best) == Some(want) {
            best = a;
        }
    }
    // The result takes the unified type: a DECIMAL/DOUBLE among integers widens the winner.
    let any_double = args.iter().any(|a| matches!(a, Value::Double(_)));
    let any_decimal = args.iter().any(|a| matches!(a, Value::Decimal(_)));
    Ok(match best {
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) if any_double => {
            Value::Double(crate::value::cast::to_f64(best).unwrap_or(0.0))
        }
        Value::Int(i) if any_decimal => Value::Decimal(Decimal::new(*i as i128, 0)),
        Value::UInt(u) if any_decimal => Value::Decimal(Decimal::new(*u as i128, 0)),
        other => other.clone(),
    })
}

fn greatest(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    extreme(args, ctx, Ordering::Greater)
}
fn least(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    extreme(args, ctx, Ordering::Less)
}

/// MariaDB's CONV: the leading digits valid in `from` base, read as unsigned 64-bit (negative
/// `from` reads signed); written in `to` base (negative `to` writes signed). Bases 2..=36.
pub fn conv_text(s: &[u8], from: i64, to: i64) -> Option<Vec<u8>> {
    let (fb, tb) = (from.unsigned_abs(), to.unsigned_abs());
    if !(2..=36).contains(&fb) || !(2..=36).contains(&tb) {
        return None;
    }
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    let negative = i < s.len() && s[i] == b'-';
    if i < s.len() && (s[i] == b'-' || s[i] == b'+') {
        i += 1;
    }
    let mut v: u64 = 0;
    let mut overflow = false;
    while i < s.len() {
        let Some(d) = (s[i] as char).to_digit(36).filter(|&d| (d as u64) < fb) else {
            break;
        };
        match v.checked_mul(fb).and_then(|x| x.checked_add(d as u64)) {
            Some(x) => v = x,
            None => overflow = true,
        }
        i += 1;
    }
    let value: u64 = if from < 0 {
        // Signed reading saturates at the i64 range.
        let signed: i64 = if overflow || v > i64::MAX as u64 + negative as u64 {
            if negative {
                i64::MIN
            } else {
                i64::MAX
            }
        } else if negative {
            (v as i64).wrapping_neg()
        } else {
            v as i64
        };
        signed as u64
    } else {
        let u = if overflow { u64::MAX } else { v };
        if negative {
            u.wrapping_neg()
        } else {
            u
        }
    };
    let (neg_out, mut magnitude) =
        if to < 0 && (value as i64) < 0 { (true, (value as i64).unsigned_abs()) } else { (false, value) };
    let mut digits = Vec::with_capacity(CONV_MAX_DIGITS + 1);
    loop {
        let d = (magnitude % tb) as u32;
        digits.push(std::char::from_digit(d, 36).unwrap_or('0').to_ascii_uppercase() as u8);
        magnitude /= tb;
        if magnitude == 0 {
            break;
        }
    }
    if neg_out {
        digits.push(b'-');
    }
    digits.reverse();
    Some(digits)
}

fn conv(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let from = int_arg(&args[1], ctx);
    let to = int_arg(&args[2], ctx);
    // Numbers are read by their decimal text (CONV(10.9, 10, 2) reads "10").
    Ok(conv_text(&text(&args[0]), from, to).map_or(Value::Null, Value::Bytes))
}

fn bin(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    conv(&[args[0].clone(), Value::Int(10), Value::Int(2)], ctx)
}
fn oct(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    conv(&[args[0].clone(), Value::Int(10), Value::Int(8)], ctx)
}

fn degrees(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    unary_double(args, ctx, f64::to_degrees)
}
fn radians(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    unary_double(args, ctx, f64::to_radians)
}
fn sin(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    unary_double(args, ctx, f64::sin)
}
fn cos(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    unary_double(args, ctx, f64::cos)
}
fn tan(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    unary_double(args, ctx, f64::tan)
}
fn asin(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    unary_double(args, ctx, f64::asin)
}
fn acos(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    unary_double(args, ctx, f64::acos)
}

fn cot(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let t = f64_arg(&args[0], ctx).tan();
    checked_double(1.0 / t, || call_text("cot", args))
}

fn atan(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args.len() == 2 {
        return atan2(args, ctx);
    }
    unary_double(args, ctx, f64::atan)
}

fn atan2(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    double(f64_arg(&args[0], ctx).atan2(f64_arg(&args[1], ctx)))
}
