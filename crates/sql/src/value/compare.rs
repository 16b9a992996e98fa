//! Comparison with MariaDB's coercions, sort order, grouping keys and truth values.
//!
//! Coercion table (MariaDB 10.11, `Type_handler_hybrid_field_type::aggregate_for_comparison`
//! plus the observed int-vs-string behaviour):
//!
//! | left \ right   | int          | decimal  | double | string           | temporal |
//! |----------------|--------------|----------|--------|------------------|----------|
//! | int            | exact i128   | decimal  | double | decimal          | temporal |
//! | decimal        | decimal      | decimal  | double | double           | temporal |
//! | double         | double       | double   | double | double           | temporal |
//! | string         | decimal      | double   | double | bytes (binary)   | temporal |
//! | temporal       | temporal     | temporal | temporal | temporal       | temporal |
//!
//! Strings compare as bytes: the collation is utf8mb4_bin (architecture §6), and without PAD
//! SPACE, so that this order equals the storage engine's index key order.

use std::cmp::Ordering;

use selkie_storage::{DateTime, Decimal};

use super::datetime::{temporal_of, Civil};
use super::num::{dec_cmp, dec_normalize, dec_to_f64, lex_number, NumQuality};
use crate::types::Value;

fn f64_cmp(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

fn int_of(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(*i as i128),
        Value::UInt(u) => Some(*u as i128),
        _ => None,
    }
}

fn is_temporal(v: &Value) -> bool {
    matches!(v, Value::Date(_) | Value::DateTime(_))
}

/// A numeric value's double.
fn num_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Double(x) => *x,
        Value::Decimal(d) => dec_to_f64(*d),
        Value::Bytes(b) => lex_number(b).to_f64(),
        Value::Date(_) | Value::DateTime(_) => temporal_number(v),
        Value::Null => 0.0,
    }
}

fn num_decimal(v: &Value) -> Option<Decimal> {
    match v {
        Value::Int(i) => Some(Decimal::new(*i as i128, 0)),
        Value::UInt(u) => Some(Decimal::new(*u as i128, 0)),
        Value::Decimal(d) => Some(*d),
        Value::Bytes(b) => lex_number(b).to_decimal().ok(),
        _ => None,
    }
}

/// A temporal value as the number MariaDB would use (YYYYMMDD or YYYYMMDDhhmmss.ffffff).
fn temporal_number(v: &Value) -> f64 {
    match v {
        Value::Date(d) => Civil::from_date(*d).date_number() as f64,
        Value::DateTime(dt) => {
            let c = Civil::from_datetime(*dt);
            c.datetime_number() as f64 + c.micros as f64 / 1e6
        }
        _ => 0.0,
    }
}

/// The instant a value denotes when compared with a temporal value. Strings that are not dates
/// compare as the zero date (MariaDB warns and does the same).
fn as_instant(v: &Value) -> Option<DateTime> {
    match v {
        Value::Bytes(_) => Some(temporal_of(v).map(|p| p.civil.datetime()).unwrap_or(DateTime(0))),
        _ => temporal_of(v).map(|p| p.civil.datetime()),
    }
}

/// See `super::compare`.
pub fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    use selkie_storage::Datum::*;
    Some(match (a, b) {
        (Null, _) | (_, Null) => return None,
        (Int(_) | UInt(_), Int(_) | UInt(_)) => int_of(a)?.cmp(&int_of(b)?),
        (Bytes(x), Bytes(y)) => x.as_slice().cmp(y.as_slice()),
        (Double(_), _) | (_, Double(_)) if !is_temporal(a) && !is_temporal(b) => f64_cmp(num_f64(a), num_f64(b)),
        (Decimal(_), Bytes(_)) | (Bytes(_), Decimal(_)) => f64_cmp(num_f64(a), num_f64(b)),
        (Int(_) | UInt(_) | Decimal(_) | Bytes(_), Int(_) | UInt(_) | Decimal(_) | Bytes(_)) => {
            match (num_decimal(a), num_decimal(b)) {
                (Some(x), Some(y)) => dec_cmp(x, y),
                // A string with more than 38 integer digits: only a double can hold it.
                _ => f64_cmp(num_f64(a), num_f64(b)),
            }
        }
        _ => {
            // At least one side is temporal.
            match (as_instant(a), as_instant(b)) {
                (Some(x), Some(y)) => x.cmp(&y),
                _ => f64_cmp(num_f64(a), num_f64(b)),
            }
        }
    })
}

/// Warning 1292 for a string compared with a number that it does not entirely spell, as
/// MariaDB reads it: as DECIMAL against an integer, as DOUBLE against anything else (the
/// coercion table above). `compare` itself has no context to warn in.
pub fn warn_string_against_number(a: &Value, b: &Value, ctx: &dyn super::FnContext) {
    let (text, number) = match (a, b) {
        (Value::Bytes(s), n) | (n, Value::Bytes(s)) => (s, n),
        _ => return,
    };
    let kind = match number {
        Value::Int(_) | Value::UInt(_) => "DECIMAL",
        Value::Decimal(_) | Value::Double(_) => "DOUBLE",
        _ => return,
    };
    if lex_number(text).quality != NumQuality::Exact {
        ctx.warn(1292, format!("Truncated incorrect {kind} value: '{}'", super::format::shown_bytes(text)));
    }
}

/// See `super::sort_compare`.
pub fn sort_compare(a: &Value, b: &Value) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => compare(a, b).unwrap_or(Ordering::Equal),
    }
}

// Group key tags. Integral numbers share one encoding (i128) whatever their kind, so 1, 1.0 and
// 1e0 of one expression group together; fractions key by kind (normalized DECIMAL, double bits).
const KEY_NULL: u8 = 0;
const KEY_INTEGRAL: u8 = 1;
const KEY_FRACTION_DOUBLE: u8 = 2;
const KEY_FRACTION_DECIMAL: u8 = 3;
const KEY_BYTES: u8 = 4;
const KEY_TEMPORAL: u8 = 5;
const KEY_WIDE_DECIMAL: u8 = 6;

fn key_integral(v: i128, out: &mut Vec<u8>) {
    out.push(KEY_INTEGRAL);
    out.extend_from_slice(&v.to_be_bytes());
}

fn key_double(x: f64, out: &mut Vec<u8>) {
    // 0.0 and -0.0 are equal; integral doubles within i128 share the integer encoding.
    const I128_RANGE: f64 = 1.7e38;
    if x.fract() == 0.0 && x.abs() < I128_RANGE {
        key_integral(x as i128, out);
    } else {
        out.push(KEY_FRACTION_DOUBLE);
        out.extend_from_slice(&x.to_bits().to_be_bytes());
    }
}

/// See `super::group_key`. Values are self-delimiting so keys of several columns concatenate.
pub fn group_key(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(KEY_NULL),
        Value::Int(i) => key_integral(*i as i128, out),
        Value::UInt(u) => key_integral(*u as i128, out),
        Value::Double(x) => key_double(*x, out),
        Value::Decimal(d) => {
            let n = dec_normalize(*d);
            match n.mantissa_i128() {
                Some(m) if n.scale == 0 => key_integral(m, out),
                Some(m) => {
                    out.push(KEY_FRACTION_DECIMAL);
                    out.push(n.scale);
                    out.extend_from_slice(&m.to_be_bytes());
                }
                None => {
                    // Beyond i128: no integer or double key equals it (doubles that large are
                    // keyed by their bits), so a key of its own.
                    out.push(KEY_WIDE_DECIMAL);
                    out.push(n.scale);
                    for limb in n.mantissa.0 .0 {
                        out.extend_from_slice(&limb.to_be_bytes());
                    }
                }
            }
        }
        Value::Bytes(b) => {
            out.push(KEY_BYTES);
            out.extend_from_slice(&(b.len() as u64).to_be_bytes());
            out.extend_from_slice(b);
        }
        Value::Date(d) => {
            out.push(KEY_TEMPORAL);
            out.extend_from_slice(&Civil::from_date(*d).datetime().0.to_be_bytes());
        }
        Value::DateTime(dt) => {
            out.push(KEY_TEMPORAL);
            out.extend_from_slice(&dt.0.to_be_bytes());
        }
    }
}

/// See `super::truthy`.
pub fn truthy(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i != 0),
        Value::UInt(u) => Some(*u != 0),
        Value::Double(x) => Some(*x != 0.0),
        Value::Decimal(d) => Some(!d.is_zero()),
        Value::Bytes(b) => {
            let l = lex_number(b);
            Some(l.quality != NumQuality::NotANumber && l.to_f64() != 0.0)
        }
        Value::Date(d) => Some(d.0 != 0),
        Value::DateTime(dt) => Some(dt.0 != 0),
    }
}
