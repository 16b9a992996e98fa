//! Aggregate functions: result types and running state, with MariaDB's semantics.
//!
//! SUM and AVG of exact types (integers, DECIMAL, temporal values as numbers) are exact DECIMALs;
//! of anything else DOUBLE. STD/VARIANCE are population statistics computed with Welford's
//! recurrence (numerically stable in one pass).

use std::cmp::Ordering;

use selkie_storage::Decimal;

use super::cast::{f64_to_i64, to_f64, to_u64, value_to_decimal};
use super::compare::sort_compare;
use super::context::FnContext;
use super::format::to_text_bytes;
use super::kinds::{AggFunc, SqlType};
use super::num::{dec_add, dec_div, dec_from_f64, dec_to_f64, MAX_DECIMAL_DIGITS, MAX_DECIMAL_SCALE};
use crate::charset::Collation;
use crate::error::SqlError;
use crate::types::Value;

/// MariaDB's `group_concat_max_len` default (bytes).
pub const GROUP_CONCAT_MAX_LEN: usize = 1_048_576;
/// Extra integer digits MariaDB gives SUM over its argument's precision.
const SUM_EXTRA_DIGITS: u32 = 22;
/// Extra fractional digits of AVG (and of STD/VARIANCE display) over the argument's scale.
const AVG_EXTRA_SCALE: u32 = 4;

/// Resolves an aggregate name.
pub fn lookup_aggregate(name: &str) -> Option<AggFunc> {
    let upper = name.to_ascii_uppercase();
    Some(match upper.as_str() {
        "COUNT" => AggFunc::Count,
        "SUM" => AggFunc::Sum,
        "AVG" => AggFunc::Avg,
        "MIN" => AggFunc::Min,
        "MAX" => AggFunc::Max,
        "BIT_AND" => AggFunc::BitAnd,
        "BIT_OR" => AggFunc::BitOr,
        "BIT_XOR" => AggFunc::BitXor,
        "GROUP_CONCAT" => AggFunc::GroupConcat,
        "STD" | "STDDEV" | "STDDEV_POP" => AggFunc::StdDev,
        "VARIANCE" | "VAR_POP" => AggFunc::Variance,
        _ => return None,
    })
}

/// True for argument types SUM/AVG compute exactly.
fn is_exact(arg: &SqlType) -> bool {
    matches!(
        arg,
        SqlType::Int { .. }
            | SqlType::Bit { .. }
            | SqlType::Decimal { .. }
            | SqlType::Date
            | SqlType::DateTime { .. }
            | SqlType::Timestamp { .. }
    )
}

fn decimal_type(int: u32, scale: u32) -> SqlType {
    let scale = scale.min(MAX_DECIMAL_SCALE);
    SqlType::Decimal { precision: (int + scale).clamp(1, MAX_DECIMAL_DIGITS) as u8, scale: scale as u8 }
}

/// See `super::aggregate_type`.
pub fn aggregate_type(func: AggFunc, arg: &SqlType) -> SqlType {
    match func {
        AggFunc::CountStar | AggFunc::Count => SqlType::Int { bits: 64, unsigned: false },
        AggFunc::Sum if is_exact(arg) => {
            let (int, scale) = arg.decimal_digits();
            decimal_type(int + SUM_EXTRA_DIGITS, scale)
        }
        AggFunc::Avg if is_exact(arg) => {
            let (int, scale) = arg.decimal_digits();
            // MariaDB adds the 4 digits after capping nothing: AVG(DECIMAL(65,30)) is 69 digits
            // wide in the result metadata (the scale still stops at 38).
            let scale_out = (scale + AVG_EXTRA_SCALE).min(MAX_DECIMAL_SCALE);
            SqlType::Decimal { precision: (int + scale + AVG_EXTRA_SCALE).max(1) as u8, scale: scale_out as u8 }
        }
        AggFunc::Sum | AggFunc::Avg | AggFunc::StdDev | AggFunc::Variance => SqlType::Double,
        AggFunc::Min | AggFunc::Max => arg.clone(),
        AggFunc::BitAnd | AggFunc::BitOr | AggFunc::BitXor => SqlType::Int { bits: 64, unsigned: true },
        AggFunc::GroupConcat => match arg {
            SqlType::Bytes { .. } => SqlType::Bytes { max_len: GROUP_CONCAT_MAX_LEN as u32, lob: true },
            _ => SqlType::text(GROUP_CONCAT_MAX_LEN as u32, true),
        },
    }
}

#[derive(Clone, Debug)]
enum Acc {
    Count(i64),
    /// Exact SUM/AVG: running DECIMAL sum.
    Exact {
        sum: Decimal,
        count: u64,
    },
    /// Floating SUM/AVG.
    Float {
        sum: f64,
        count: u64,
    },
    MinMax {
        best: Option<Value>,
        keep_if: Ordering,
        /// TIME values (text) compare as times.
        time: bool,
        /// Strings of a `_ci` collation compare in it.
        collation: Option<Collation>,
    },
    Bits {
        acc: u64,
        op: AggFunc,
    },
    GroupConcat {
        buf: Vec<u8>,
        rows: u64,
        any: bool,
        cut: bool,
        separator: Vec<u8>,
        max_len: usize,
    },
    /// Welford: count, mean, sum of squared deviations; `round_to` decimals for exact inputs.
    Moments {
        n: u64,
        mean: f64,
        m2: f64,
        round_to: Option<u32>,
    },
}

/// Running state of one aggregate; see `super::AggState`.
#[derive(Clone, Debug)]
pub struct AggInner {
    func: AggFunc,
    acc: Acc,
}

impl AggInner {
    pub fn new(func: AggFunc, arg: &SqlType) -> AggInner {
        let acc = match func {
            AggFunc::CountStar | AggFunc::Count => Acc::Count(0),
            AggFunc::Sum | AggFunc::Avg if is_exact(arg) => Acc::Exact { sum: Decimal::new(0, 0), count: 0 },
            AggFunc::Sum | AggFunc::Avg => Acc::Float { sum: 0.0, count: 0 },
            AggFunc::Min | AggFunc::Max => Acc::MinMax {
                best: None,
                keep_if: if func == AggFunc::Min { Ordering::Less } else { Ordering::Greater },
                time: matches!(arg, SqlType::Time { .. }),
                collation: match arg {
                    SqlType::Text { collation, .. } if collation.weighs_characters() => Some(*collation),
                    _ => None,
                },
            },
            AggFunc::BitAnd => Acc::Bits { acc: u64::MAX, op: func },
            AggFunc::BitOr | AggFunc::BitXor => Acc::Bits { acc: 0, op: func },
            AggFunc::GroupConcat => Acc::GroupConcat {
                buf: Vec::new(),
                rows: 0,
                any: false,
                cut: false,
                separator: b",".to_vec(),
                max_len: GROUP_CONCAT_MAX_LEN,
            },
            AggFunc::StdDev | AggFunc::Variance => Acc::Moments {
                n: 0,
                mean: 0.0,
                m2: 0.0,
                round_to: is_exact(arg).then(|| arg.decimal_digits().1 + AVG_EXTRA_SCALE),
            },
        };
        AggInner { func, acc }
    }

    /// GROUP_CONCAT with an explicit SEPARATOR and group_concat_max_len.
    pub fn new_group_concat(separator: Vec<u8>, max_len: usize) -> AggInner {
        AggInner {
            func: AggFunc::GroupConcat,
            acc: Acc::GroupConcat { buf: Vec::new(), rows: 0, any: false, cut: false, separator, max_len },
        }
    }

    pub fn update(&mut self, v: &Value, ctx: &dyn FnContext) -> Result<(), SqlError> {
        if let Acc::Count(n) = &mut self.acc {
            if self.func == AggFunc::CountStar || !v.is_null() {
                *n += 1;
            }
            return Ok(());
        }
        if let Acc::GroupConcat { rows, .. } = &mut self.acc {
            *rows += 1;
        }
        if v.is_null() {
            return Ok(());
        }
        match &mut self.acc {
            Acc::Count(_) => unreachable!("handled above"),
            Acc::Exact { sum, count } => {
                let add = match v {
                    Value::Double(x) => dec_from_f64(*x),
                    other => value_to_decimal(other, ctx),
                };
                let overflow = || SqlError::new(1690, "22003", "DECIMAL value is out of range in 'sum'".to_string());
                let add = add.map_err(|_| overflow())?;
                *sum = match (sum.scale, add.scale) {
                    (0, 0) => match (sum.mantissa_i128(), add.mantissa_i128()) {
                        (Some(x), Some(y)) => match x.checked_add(y) {
                            Some(m) if m.unsigned_abs() <= super::num::MAX_I128_MANTISSA => Decimal::new(m, 0),
                            _ => dec_add(*sum, add).map_err(|_| overflow())?,
                        },
                        _ => dec_add(*sum, add).map_err(|_| overflow())?,
                    },
                    _ => dec_add(*sum, add).map_err(|_| overflow())?,
                };
                *count += 1;
            }
            Acc::Float { sum, count } => {
                let x = match v {
                    Value::Bytes(b) => super::cast::string_as_double(b, ctx),
                    other => to_f64(other).unwrap_or(0.0),
                };
                *sum += x;
                *count += 1;
            }
            Acc::MinMax { best, keep_if, time, collation } => {
                let replace = match (best.as_ref(), collation) {
                    (None, _) => true,
                    (Some(b), _) if *time => super::time::time_micros(v).cmp(&super::time::time_micros(b)) == *keep_if,
                    (Some(Value::Bytes(b)), Some(c)) if matches!(v, Value::Bytes(_)) => {
                        let Value::Bytes(x) = v else { unreachable!() };
                        c.compare(x, b) == *keep_if
                    }
                    (Some(b), _) => sort_compare(v, b) == *keep_if,
                };
                if replace {
                    *best = Some(v.clone());
                }
            }
            Acc::Bits { acc, op } => {
                // A DOUBLE is read as MariaDB's val_int reads it: rounded and held to the
                // signed range (BIT_OR(1e300) is 2^63-1, not 2^64-1).
                let x = match v {
                    Value::Double(d) => f64_to_i64(*d).0 as u64,
                    _ => to_u64(v).unwrap_or(0),
                };
                match op {
                    AggFunc::BitAnd => *acc &= x,
                    AggFunc::BitOr => *acc |= x,
                    _ => *acc ^= x,
                }
            }
            Acc::GroupConcat { buf, rows, any, cut, separator, max_len } => {
                if *cut {
                    return Ok(());
                }
                if *any {
                    buf.extend_from_slice(separator);
                }
                *any = true;
                buf.extend_from_slice(&to_text_bytes(v).unwrap_or_default());
                if buf.len() > *max_len {
                    // Cut at a character boundary at or before the limit.
                    let mut end = *max_len;
                    while end > 0 && buf[end] & 0xC0 == 0x80 {
                        end -= 1;
                    }
                    buf.truncate(end);
                    *cut = true;
                    ctx.warn(1260, format!("Row {rows} was cut by GROUP_CONCAT()"));
                }
            }
            Acc::Moments { n, mean, m2, .. } => {
                let x = match v {
                    Value::Bytes(b) => super::cast::string_as_double(b, ctx),
                    other => to_f64(other).unwrap_or(0.0),
                };
                *n += 1;
                let delta = x - *mean;
                *mean += delta / *n as f64;
                *m2 += delta * (x - *mean);
            }
        }
        Ok(())
    }

    pub fn finish(&self) -> Value {
        match &self.acc {
            Acc::Count(n) => Value::Int(*n),
            Acc::Exact { count: 0, .. } | Acc::Float { count: 0, .. } => Value::Null,
            Acc::Exact { sum, count } => {
                if self.func == AggFunc::Sum {
                    Value::Decimal(*sum)
                } else {
                    let n = Decimal::new(*count as i128, 0);
                    match dec_div(*sum, n) {
                        Ok(avg) => Value::Decimal(avg),
                        // Unreachable in practice (|sum| < 10^38, count >= 1); fall back to double.
                        Err(_) => Value::Double(dec_to_f64(*sum) / *count as f64),
                    }
                }
            }
            Acc::Float { sum, count } => {
                if self.func == AggFunc::Sum {
                    Value::Double(*sum)
                } else {
                    Value::Double(*sum / *count as f64)
                }
            }
            Acc::MinMax { best, .. } => best.clone().unwrap_or(Value::Null),
            Acc::Bits { acc, .. } => Value::UInt(*acc),
            Acc::GroupConcat { buf, any, .. } => {
                if *any {
                    Value::Bytes(buf.clone())
                } else {
                    Value::Null
                }
            }
            Acc::Moments { n: 0, .. } => Value::Null,
            Acc::Moments { n, m2, round_to, .. } => {
                let variance = (*m2 / *n as f64).max(0.0);
                let r = if self.func == AggFunc::StdDev { variance.sqrt() } else { variance };
                // MariaDB prints these with the argument's scale + 4 decimals for exact inputs.
                match round_to {
                    Some(d) => {
                        let f = 10f64.powi(*d as i32);
                        let rounded = (r * f).round() / f;
                        Value::Double(if rounded.is_finite() { rounded } else { r })
                    }
                    None => Value::Double(r),
                }
            }
        }
    }
}
