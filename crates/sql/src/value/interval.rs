//! DATE_ADD / DATE_SUB / `+ INTERVAL`: reading the interval amount and applying it.
//!
//! Sits above both `datetime` (calendar arithmetic) and `cast` (MariaDB's integer reading of
//! the amount, with its truncation warning), so that neither of those needs the other.

use super::cast::{int_for_interval, to_i64};
use super::context::FnContext;
use super::datetime::{add_interval, value_to_temporal, warn_text, MAX_YEAR, MICROS_PER_SECOND};
use super::kinds::IntervalUnit;
use super::num::{dec_from_f64, lex_number, NumQuality};
use crate::error::SqlError;
use crate::types::Value;

/// An interval amount: whole units, or seconds with microseconds for SECOND.
fn interval_amount(amount: &Value, unit: IntervalUnit, ctx: &dyn FnContext) -> Option<i128> {
    match unit {
        IntervalUnit::Second => {
            // Fractional seconds count (INTERVAL 1.5 SECOND); amount in microseconds.
            let d = match amount {
                Value::Null => return None,
                Value::Int(i) => return Some(*i as i128 * MICROS_PER_SECOND as i128),
                Value::UInt(u) => return Some(*u as i128 * MICROS_PER_SECOND as i128),
                Value::Decimal(d) => *d,
                Value::Double(x) => dec_from_f64(*x).ok()?,
                Value::Bytes(b) => {
                    let l = lex_number(b);
                    if l.quality != NumQuality::Exact {
                        ctx.warn(1292, format!("Truncated incorrect DECIMAL value: '{}'", String::from_utf8_lossy(b)));
                    }
                    l.to_decimal().ok()?
                }
                other => {
                    let n = to_i64(other)?;
                    return Some(n as i128 * MICROS_PER_SECOND as i128);
                }
            };
            // Too many digits for scale 6 (None): the amount overflows any date anyway.
            let micros = d.rescale(6)?;
            micros.mantissa_i128()
        }
        _ => int_for_interval(amount, ctx).map(|v| v as i128),
    }
}

/// See `super::date_add`.
pub fn date_add(
    base: &Value,
    amount: &Value,
    unit: IntervalUnit,
    negate: bool,
    ctx: &dyn FnContext,
) -> Result<Value, SqlError> {
    if base.is_null() || amount.is_null() {
        return Ok(Value::Null);
    }
    let Some(parsed) = value_to_temporal(base, ctx) else {
        return Ok(Value::Null);
    };
    let Some(mut n) = interval_amount(amount, unit, ctx) else {
        return Ok(Value::Null);
    };
    if negate {
        n = -n;
    }
    let c = parsed.civil;
    if !c.has_full_date() {
        ctx.warn(1292, format!("Incorrect datetime value: '{}'", warn_text(base)));
        return Ok(Value::Null);
    }
    let date_only = !parsed.has_time
        && matches!(
            unit,
            IntervalUnit::Day | IntervalUnit::Week | IntervalUnit::Month | IntervalUnit::Quarter | IntervalUnit::Year
        );
    match add_interval(&c, n, unit) {
        Some(r) if r.year <= MAX_YEAR && r.has_full_date() => {
            if date_only {
                Ok(Value::Date(r.date()))
            } else {
                Ok(Value::DateTime(r.datetime()))
            }
        }
        _ => {
            ctx.warn(1441, "Datetime function: datetime field overflow".to_string());
            Ok(Value::Null)
        }
    }
}
