//! CAST/CONVERT and the lenient numeric and text views of values.
//!
//! MariaDB reads strings differently per target: CAST AS SIGNED takes only the integer digits
//! ('1.9' → 1, '1e3' → 1), CAST AS DECIMAL/DOUBLE take the whole numeric prefix. Each path warns
//! with MariaDB's wording when part of the string was ignored.
//!
//! `arith` builds on these views (a string operand read as DOUBLE, a value quoted as SQL text in
//! error messages), so they live here, below it, and `cast` never needs `arith`.

use selkie_storage::Decimal;

use super::context::FnContext;
use super::datetime::{truncate_micros, value_to_temporal, Civil};
use super::format::{format_text, push_decimal, push_double, shown_bytes, to_text_bytes};
use super::kinds::{CastTarget, SqlType};
use super::num::{dec_from_f64, dec_round, dec_to_f64, lex_number, NumQuality, RoundMode};
use crate::error::SqlError;
use crate::types::Value;
use selkie_storage::wideint::U256;

/// Length of a CAST AS CHAR/BINARY result without an explicit length (for metadata only).
const CAST_DEFAULT_MAX_CHARS: u32 = 16_383;

const I64_MIN_F: f64 = -9_223_372_036_854_775_808.0;
/// 2^63 and 2^64 as doubles (exclusive upper bounds of i64/u64).
const I64_END_F: f64 = 9_223_372_036_854_775_808.0;
const U64_END_F: f64 = 18_446_744_073_709_551_616.0;

/// A temporal value as MariaDB's number: Int(YYYYMMDD[hhmmss]) or Decimal with microseconds.
pub fn temporal_as_number(v: &Value) -> Value {
    match v {
        Value::Date(d) => Value::Int(Civil::from_date(*d).date_number()),
        Value::DateTime(dt) => {
            let c = Civil::from_datetime(*dt);
            if c.micros == 0 {
                Value::Int(c.datetime_number())
            } else {
                Value::Decimal(Decimal::new(c.datetime_number() as i128 * 1_000_000 + c.micros as i128, 6))
            }
        }
        other => other.clone(),
    }
}

/// Double to i64 rounding half to even (MariaDB uses rint), saturating.
pub fn f64_to_i64(x: f64) -> (i64, bool) {
    let r = x.round_ties_even();
    if r < I64_MIN_F {
        (i64::MIN, true)
    } else if r >= I64_END_F {
        (i64::MAX, true)
    } else {
        (r as i64, false)
    }
}

/// Decimal rounded half away from zero to an integer, saturated to the i128 range (beyond any
/// integer type, which is all the callers need to know).
pub fn decimal_to_i128(d: Decimal) -> i128 {
    dec_round(d, 0, RoundMode::HalfAwayFromZero).map_or(d.mantissa_saturating(), |r| r.mantissa_saturating())
}

fn clamp_i128_to_i64(v: i128) -> i64 {
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

/// See `super::to_i64`.
pub fn to_i64(v: &Value) -> Option<i64> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => *i,
        Value::UInt(u) => i64::try_from(*u).unwrap_or(i64::MAX),
        Value::Double(x) => f64_to_i64(*x).0,
        Value::Decimal(d) => clamp_i128_to_i64(decimal_to_i128(*d)),
        Value::Bytes(b) => clamp_i128_to_i64(lex_number(b).to_integer_digits().0),
        Value::Date(_) | Value::DateTime(_) => match temporal_as_number(v) {
            Value::Int(i) => i,
            Value::Decimal(d) => clamp_i128_to_i64(decimal_to_i128(d)),
            _ => 0,
        },
    })
}

/// See `super::to_u64`. Negative integers wrap to their two's complement, as MariaDB does in
/// unsigned contexts (BIT_AND(-1) = 18446744073709551615).
pub fn to_u64(v: &Value) -> Option<u64> {
    Some(match v {
        Value::Null => return None,
        Value::UInt(u) => *u,
        Value::Double(x) => {
            let r = x.round_ties_even();
            if r < 0.0 {
                f64_to_i64(r).0 as u64
            } else if r >= U64_END_F {
                u64::MAX
            } else {
                r as u64
            }
        }
        Value::Decimal(d) => {
            let i = decimal_to_i128(*d);
            if i < 0 {
                clamp_i128_to_i64(i) as u64
            } else {
                u64::try_from(i).unwrap_or(u64::MAX)
            }
        }
        Value::Bytes(b) => {
            let (i, _) = lex_number(b).to_integer_digits();
            if i < 0 {
                i as i64 as u64
            } else {
                i as u64
            }
        }
        other => to_i64(other)? as u64,
    })
}

/// See `super::to_f64`.
pub fn to_f64(v: &Value) -> Option<f64> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Double(x) => *x,
        Value::Decimal(d) => dec_to_f64(*d),
        Value::Bytes(b) => lex_number(b).to_f64(),
        Value::Date(_) | Value::DateTime(_) => match temporal_as_number(v) {
            Value::Int(i) => i as f64,
            Value::Decimal(d) => dec_to_f64(d),
            _ => 0.0,
        },
    })
}

/// Reads a string as a DOUBLE operand, warning as MariaDB does when it is not entirely a number.
pub fn string_as_double(b: &[u8], ctx: &dyn FnContext) -> f64 {
    let l = lex_number(b);
    if l.quality != NumQuality::Exact {
        ctx.warn(1292, format!("Truncated incorrect DOUBLE value: '{}'", shown_bytes(b)));
    }
    l.to_f64()
}

/// A value as it would appear in SQL text, for error messages.
pub fn sql_literal(v: &Value) -> String {
    let mut out = Vec::new();
    match v {
        Value::Null => return "NULL".to_string(),
        Value::Double(x) => push_double(*x, &mut out),
        Value::Decimal(d) => push_decimal(*d, &mut out),
        Value::Bytes(_) | Value::Date(_) | Value::DateTime(_) => {
            out.push(b'\'');
            format_text(v, None, &mut out);
            out.push(b'\'');
        }
        _ => format_text(v, None, &mut out),
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whole-unit interval amounts: integers as is, DECIMAL/DOUBLE rounded, strings by their integer
/// digits with MariaDB's warning.
pub fn int_for_interval(v: &Value, ctx: &dyn FnContext) -> Option<i64> {
    match v {
        Value::Bytes(b) => {
            let l = lex_number(b);
            let (i, overflow) = l.to_integer_digits();
            if l.quality != NumQuality::Exact || l.has_fraction_or_exponent || overflow {
                ctx.warn(1292, format!("Truncated incorrect INTEGER value: '{}'", shown_bytes(b)));
            }
            Some(clamp_i128_to_i64(i))
        }
        other => to_i64(other),
    }
}

/// Warning text helper: the value as MariaDB quotes it in conversion warnings.
fn quoted(v: &Value) -> String {
    super::datetime::warn_text(v)
}

fn overflow_warning(v: &Value, target: &str, ctx: &dyn FnContext) {
    ctx.warn(1916, format!("Got overflow when converting '{}' to {target}. Value truncated", quoted(v)));
}

/// MariaDB's note when CAST(... AS UNSIGNED) keeps a negative integer's bits (its wording).
fn negative_to_unsigned_note(ctx: &dyn FnContext) {
    ctx.note(1105, "Cast to unsigned converted negative integer to it's positive complement".to_string());
}

/// CAST(v AS SIGNED) / AS UNSIGNED: the 64-bit pattern (i128 in [i64::MIN, u64::MAX]).
fn cast_integer(v: &Value, unsigned: bool, ctx: &dyn FnContext) -> i128 {
    match v {
        Value::Int(i) => {
            if unsigned && *i < 0 {
                negative_to_unsigned_note(ctx);
            }
            *i as i128
        }
        Value::UInt(u) => *u as i128,
        Value::Double(x) => {
            // Overflow here is only a Note in MariaDB.
            let r = x.round_ties_even();
            if unsigned {
                if r < 0.0 {
                    ctx.note(
                        1916,
                        format!("Got overflow when converting '{}' to UNSIGNED BIGINT. Value truncated", quoted(v)),
                    );
                    0
                } else if r >= U64_END_F {
                    ctx.note(
                        1916,
                        format!("Got overflow when converting '{}' to UNSIGNED BIGINT. Value truncated", quoted(v)),
                    );
                    u64::MAX as i128
                } else {
                    r as u64 as i128
                }
            } else {
                f64_to_i64(r).0 as i128
            }
        }
        Value::Decimal(d) => {
            let i = decimal_to_i128(*d);
            if unsigned {
                if i < 0 {
                    overflow_warning(v, "UNSIGNED INT", ctx);
                    0
                } else if i > u64::MAX as i128 {
                    overflow_warning(v, "UNSIGNED INT", ctx);
                    u64::MAX as i128
                } else {
                    i
                }
            } else if i < i64::MIN as i128 || i > i64::MAX as i128 {
                overflow_warning(v, "INT", ctx);
                clamp_i128_to_i64(i) as i128
            } else {
                i
            }
        }
        Value::Bytes(b) => {
            let l = lex_number(b);
            let (i, overflow) = l.to_integer_digits();
            if l.quality != NumQuality::Exact || l.has_fraction_or_exponent || overflow {
                ctx.warn(1292, format!("Truncated incorrect INTEGER value: '{}'", shown_bytes(b)));
            }
            if unsigned && i < 0 {
                negative_to_unsigned_note(ctx);
            }
            i
        }
        Value::Date(_) | Value::DateTime(_) => match temporal_as_number(v) {
            Value::Int(i) => i as i128,
            Value::Decimal(d) => d.mantissa_saturating() / 1_000_000,
            _ => 0,
        },
        Value::Null => 0,
    }
}

/// An operand of `& | ^ ~` and the value `<<`/`>>` shift, as MariaDB's bit handlers read it:
/// integers keep their 64 bits; anything else goes through DECIMAL (strings with 1292
/// "Truncated incorrect DECIMAL value"), rounds half away from zero, a negative result keeps
/// its two's-complement bits, and a value past BIGINT's range is clamped with 1916.
pub fn bit_operand(v: &Value, ctx: &dyn FnContext) -> Option<u64> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i as u64),
        Value::UInt(u) => Some(*u),
        other => Some(match value_to_decimal(other, ctx) {
            Ok(d) => {
                let r = decimal_to_i128(d);
                if r < i64::MIN as i128 {
                    overflow_warning(&Value::Decimal(d), "INT", ctx);
                    i64::MIN as u64
                } else if r > u64::MAX as i128 {
                    overflow_warning(&Value::Decimal(d), "UNSIGNED INT", ctx);
                    u64::MAX
                } else {
                    r as i64 as u64
                }
            }
            Err(negative) if negative => i64::MIN as u64,
            Err(_) => u64::MAX,
        }),
    }
}

/// The count of `<<`/`>>`: a string is read as an integer and truncated (`8 >> '1.9'` shifts
/// by 1, with 1292 "Truncated incorrect INTEGER value"), unlike the shifted value, which rounds;
/// a negative count is a huge unsigned one (the result is 0).
pub fn shift_count(v: &Value, ctx: &dyn FnContext) -> Option<u64> {
    match v {
        Value::Bytes(_) => Some(clamp_i128_to_i64(cast_integer(v, false, ctx)) as u64),
        other => bit_operand(other, ctx),
    }
}

/// Any non-NULL value as DECIMAL, warning (1292 "Truncated incorrect DECIMAL value") when a
/// string is not entirely a number. `Err(negative)` when it exceeds 38 integer digits.
pub fn value_to_decimal(v: &Value, ctx: &dyn FnContext) -> Result<Decimal, bool> {
    match v {
        Value::Null => Ok(Decimal::new(0, 0)),
        Value::Int(i) => Ok(Decimal::new(*i as i128, 0)),
        Value::UInt(u) => Ok(Decimal::new(*u as i128, 0)),
        Value::Decimal(d) => Ok(*d),
        Value::Double(x) => dec_from_f64(*x),
        Value::Bytes(b) => {
            let l = lex_number(b);
            if l.quality != NumQuality::Exact {
                ctx.warn(1292, format!("Truncated incorrect DECIMAL value: '{}'", shown_bytes(b)));
            }
            l.to_decimal()
        }
        Value::Date(_) | Value::DateTime(_) => match temporal_as_number(v) {
            Value::Int(i) => Ok(Decimal::new(i as i128, 0)),
            Value::Decimal(d) => Ok(d),
            _ => Ok(Decimal::new(0, 0)),
        },
    }
}

/// Largest mantissa magnitude of DECIMAL(precision, scale) at its scale: 10^precision - 1.
pub fn decimal_type_max(precision: u8) -> U256 {
    let digits = (precision as u32).clamp(1, super::num::MAX_DECIMAL_DIGITS);
    U256::pow10(digits).expect("10^65 fits").wrapping_sub(&U256::from_u64(1))
}

/// Fits a decimal to DECIMAL(precision, scale): rounds to `scale`, clamps to the type's range.
/// Returns the value and whether it was clamped.
pub fn fit_decimal_type(d: Result<Decimal, bool>, precision: u8, scale: u8) -> (Decimal, bool) {
    let max = decimal_type_max(precision);
    let clamp = |negative: bool| (Decimal::from_sign_magnitude(negative, max, scale).expect("65 digits"), true);
    match d {
        Err(negative) => clamp(negative),
        Ok(d) => match dec_round(d, scale as i64, RoundMode::HalfAwayFromZero).ok().and_then(|r| r.rescale(scale)) {
            Some(r) if r.magnitude() <= max => (r, false),
            Some(r) => clamp(r.is_negative()),
            None => clamp(d.is_negative()),
        },
    }
}

/// Characters of a utf8mb4 string (invalid bytes count one each).
pub fn char_count(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c & 0xC0 != 0x80).count()
}

/// Byte length of the first `n` characters.
pub fn char_prefix_len(b: &[u8], n: usize) -> usize {
    let mut chars = 0;
    for (i, &c) in b.iter().enumerate() {
        if c & 0xC0 != 0x80 {
            if chars == n {
                return i;
            }
            chars += 1;
        }
    }
    b.len()
}

/// See `super::cast`.
pub fn cast(v: &Value, target: CastTarget, ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    Ok(match target {
        CastTarget::Time { fsp } => {
            let (t, issue) = super::time::time(v, fsp);
            match issue {
                None => t,
                Some(super::time::StoreIssue::OutOfRange) => {
                    ctx.warn(1292, format!("Truncated incorrect time value: '{}'", quoted(v)));
                    t
                }
                Some(_) => {
                    ctx.warn(1292, format!("Incorrect time value: '{}'", quoted(v)));
                    Value::Null
                }
            }
        }
        CastTarget::FixedBinary(kind) => {
            let text = to_text_bytes(v).unwrap_or_default();
            match kind.canonical(&text) {
                Some(canonical) => Value::Bytes(canonical.into_bytes()),
                None => {
                    ctx.warn(1292, format!("Incorrect {} value: '{}'", kind.name(), shown_bytes(&text)));
                    Value::Null
                }
            }
        }
        CastTarget::TimeMicros => super::time::time_micros(v).map_or(Value::Null, Value::Int),
        CastTarget::TimeNumber { fsp } => super::time::time_number(v, fsp).unwrap_or(Value::Null),
        CastTarget::Signed => Value::Int(cast_integer(v, false, ctx) as i64),
        CastTarget::Unsigned => Value::UInt(cast_integer(v, true, ctx) as i64 as u64),
        CastTarget::Decimal { precision, scale } => {
            let (d, clamped) = fit_decimal_type(value_to_decimal(v, ctx), precision, scale);
            if clamped {
                ctx.warn(
                    1264,
                    format!(
                        "Out of range value for column 'cast({} as decimal({precision},{scale}))' at row 1",
                        sql_literal(v)
                    ),
                );
            }
            Value::Decimal(d)
        }
        CastTarget::Double => Value::Double(cast_double(v, ctx)),
        CastTarget::Float => {
            let x = cast_double(v, ctx).clamp(f32::MIN as f64, f32::MAX as f64);
            Value::Double(x as f32 as f64)
        }
        CastTarget::Char { len } => {
            let mut bytes = to_text_bytes(v).unwrap_or_default();
            if let Some(n) = len {
                if char_count(&bytes) > n as usize {
                    ctx.warn(
                        1292,
                        format!("Truncated incorrect CHAR({n}) value: '{}'", String::from_utf8_lossy(&bytes)),
                    );
                    bytes.truncate(char_prefix_len(&bytes, n as usize));
                }
            }
            Value::Bytes(bytes)
        }
        CastTarget::Binary { len } => {
            let mut bytes = to_text_bytes(v).unwrap_or_default();
            if let Some(n) = len {
                let n = n as usize;
                if bytes.len() > n {
                    ctx.warn(
                        1292,
                        format!("Truncated incorrect BINARY({n}) value: '{}'", String::from_utf8_lossy(&bytes)),
                    );
                    bytes.truncate(n);
                } else {
                    // BINARY(n) pads with zero bytes.
                    bytes.resize(n, 0);
                }
            }
            Value::Bytes(bytes)
        }
        CastTarget::Date => match value_to_temporal(v, ctx) {
            Some(p) => Value::Date(p.civil.date()),
            None => Value::Null,
        },
        CastTarget::DateTime { fsp } => match value_to_temporal(v, ctx) {
            Some(p) => {
                let mut c = p.civil;
                c.micros = truncate_micros(c.micros, fsp);
                Value::DateTime(c.datetime())
            }
            None => Value::Null,
        },
    })
}

fn cast_double(v: &Value, ctx: &dyn FnContext) -> f64 {
    match v {
        Value::Bytes(b) => string_as_double(b, ctx),
        other => to_f64(other).unwrap_or(0.0),
    }
}

/// See `super::cast_type`.
pub fn cast_type(target: CastTarget) -> SqlType {
    match target {
        CastTarget::Signed => SqlType::Int { bits: 64, unsigned: false },
        CastTarget::Unsigned => SqlType::Int { bits: 64, unsigned: true },
        CastTarget::Decimal { precision, scale } => SqlType::Decimal { precision, scale },
        CastTarget::Double => SqlType::Double,
        CastTarget::Float => SqlType::Float,
        CastTarget::Char { len } => SqlType::text(len.unwrap_or(CAST_DEFAULT_MAX_CHARS), false),
        CastTarget::Binary { len } => SqlType::Bytes { max_len: len.unwrap_or(CAST_DEFAULT_MAX_CHARS * 4), lob: false },
        CastTarget::Date => SqlType::Date,
        CastTarget::DateTime { fsp } => SqlType::DateTime { fsp },
        CastTarget::Time { fsp } => SqlType::Time { fsp },
        CastTarget::FixedBinary(kind) => SqlType::fixed_binary(kind),
        CastTarget::TimeMicros => SqlType::Int { bits: 64, unsigned: false },
        CastTarget::TimeNumber { fsp: 0 } => SqlType::Int { bits: 32, unsigned: false },
        // HHHMMSS and the fraction: 838:59:59.999999 is 8385959.999999.
        CastTarget::TimeNumber { fsp } => SqlType::Decimal { precision: 7 + fsp, scale: fsp },
    }
}
