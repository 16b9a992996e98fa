//! TIME functions as MariaDB 10.11 has them: TIME_TO_SEC, SEC_TO_TIME, TIMEDIFF, ADDTIME,
//! SUBTIME, MAKETIME, TIME(), TIMESTAMP(), and the month-period arithmetic
//! PERIOD_ADD / PERIOD_DIFF.
//!
//! TIME values are their canonical text (`value::time`); results beyond ±838:59:59 clip to it
//! with warning 1292, as MariaDB's. Fractional digits: the result type takes them from the
//! argument types (`typed_by_constants` counts them in a string literal, as MariaDB does); the
//! value takes them from the argument values (the digits a TIME's text has, a DECIMAL's scale),
//! which agree for literals and TIME columns.

use selkie_storage::{DateTime, Decimal};

use super::args::{any_null, int_arg, text};
use super::signature::{rt_int, ScalarFunction};
use crate::error::SqlError;
use crate::types::Value;
use crate::value::context::FnContext;
use crate::value::datetime::{parse_temporal, warn_text, Civil, MICROS_PER_SECOND};
use crate::value::kinds::SqlType;
use crate::value::time::{format_time, parse_time, TIME_MAX_MICROS};

/// Most fractional digits.
const MAX_FSP: u8 = 6;
/// ADDTIME/SUBTIME of strings: a string as long as a DATETIME(6).
const ADDTIME_TEXT_CHARS: u32 = 26;
/// 838:59:59 in microseconds, the largest whole-second TIME.
const TIME_MAX_WHOLE_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * MICROS_PER_SECOND;

pub static FUNCTIONS: &[ScalarFunction] = &[
    func!("TIME_TO_SEC", 1, 1, true, rt_time_to_sec, time_to_sec),
    func!("SEC_TO_TIME", 1, 1, true, rt_sec_to_time, sec_to_time),
    func!("TIMEDIFF", 2, 2, true, rt_timediff, timediff),
    func!("ADDTIME", 2, 2, true, rt_addtime, addtime),
    func!("SUBTIME", 2, 2, true, rt_addtime, subtime),
    func!("MAKETIME", 3, 3, true, rt_maketime, maketime),
    func!("TIME", 1, 1, true, rt_time_of, time_of),
    func!("TIMESTAMP", 1, 2, true, rt_timestamp, timestamp),
    func!("PERIOD_ADD", 2, 2, true, rt_int, period_add),
    func!("PERIOD_DIFF", 2, 2, true, rt_int, period_diff),
    func!("TIME_FORMAT", 2, 2, true, rt_time_format, time_format),
];

/// TIME_FORMAT's result (MariaDB sizes it from the format; this is DATE_FORMAT's bound).
const TIME_FORMAT_MAX_CHARS: u32 = 256;

// ---- result types ----

/// MariaDB's fractional digits of an expression of type `ty` (its `time_precision`); a string
/// that is not a literal may have any.
fn precision(ty: &SqlType) -> u8 {
    match ty {
        SqlType::Null | SqlType::Int { .. } | SqlType::Date | SqlType::Bit { .. } => 0,
        SqlType::Decimal { scale, .. } => (*scale).min(MAX_FSP),
        SqlType::Time { fsp } | SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => *fsp,
        _ => MAX_FSP,
    }
}

/// The digits after the point of a string literal read as TIME or DATETIME (6 when it is
/// neither, as MariaDB).
fn literal_precision(text: &[u8]) -> u8 {
    if parse_time(text).is_none() && parse_temporal(text).is_none() {
        return MAX_FSP;
    }
    fraction_digits(text)
}

fn fraction_digits(text: &[u8]) -> u8 {
    text.iter()
        .rposition(|c| *c == b'.')
        .map_or(0, |dot| text[dot + 1..].iter().take_while(|c| c.is_ascii_digit()).count().min(6) as u8)
}

/// Types of the functions here when some arguments are constants: a string literal has the
/// fractional digits it shows.
pub fn typed_by_constants(f: &ScalarFunction, types: &[SqlType], consts: &[Option<&Value>]) -> Option<SqlType> {
    if !FUNCTIONS.iter().any(|g| g.name == f.name) {
        return None;
    }
    let types: Vec<SqlType> = types
        .iter()
        .enumerate()
        .map(|(i, t)| match (t, consts.get(i).copied().flatten()) {
            // SEC_TO_TIME reads its argument as a number: a string has 6 digits.
            (SqlType::Text { .. }, Some(Value::Bytes(b))) if f.name != "SEC_TO_TIME" => {
                SqlType::Time { fsp: literal_precision(b) }
            }
            _ => t.clone(),
        })
        .collect();
    let mut ty = (f.return_type)(&types);
    // ADDTIME of a string is a string, whatever digits it has.
    if matches!(f.name, "ADDTIME" | "SUBTIME") && matches!(consts.first(), Some(Some(Value::Bytes(_)))) {
        ty = SqlType::text(ADDTIME_TEXT_CHARS, false);
    }
    Some(ty)
}

/// Whether the binder should give the function's TIME result the fractional digits of its
/// result type (the values here carry those of their arguments' values).
pub fn fsp_follows_type(name: &str) -> bool {
    FUNCTIONS.iter().any(|f| f.name == name)
}

fn rt_time_to_sec(args: &[SqlType]) -> SqlType {
    match precision(&args[0]) {
        0 => SqlType::Int { bits: 64, unsigned: false },
        p => SqlType::Decimal { precision: 16 + p, scale: p },
    }
}
fn rt_sec_to_time(args: &[SqlType]) -> SqlType {
    SqlType::Time { fsp: precision(&args[0]) }
}
fn rt_timediff(args: &[SqlType]) -> SqlType {
    SqlType::Time { fsp: precision(&args[0]).max(precision(&args[1])) }
}
fn rt_addtime(args: &[SqlType]) -> SqlType {
    let fsp = precision(&args[0]).max(precision(&args[1]));
    match &args[0] {
        SqlType::DateTime { .. } | SqlType::Timestamp { .. } | SqlType::Date => SqlType::DateTime { fsp },
        SqlType::Time { .. } => SqlType::Time { fsp },
        _ => SqlType::text(ADDTIME_TEXT_CHARS, false),
    }
}
fn rt_maketime(args: &[SqlType]) -> SqlType {
    SqlType::Time { fsp: precision(&args[2]) }
}
fn rt_time_of(args: &[SqlType]) -> SqlType {
    SqlType::Time { fsp: precision(&args[0]) }
}
fn rt_time_format(_: &[SqlType]) -> SqlType {
    SqlType::text(TIME_FORMAT_MAX_CHARS, false)
}
fn rt_timestamp(args: &[SqlType]) -> SqlType {
    SqlType::DateTime { fsp: args.iter().map(precision).max().unwrap_or(0) }
}

// ---- reading arguments ----

/// A value read as a time of day or a date and time.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Temporal {
    /// Signed microseconds.
    Time(i64),
    /// Microseconds since day 0.
    DateTime(i128),
}

/// The fractional digits a value shows.
fn value_precision(v: &Value) -> u8 {
    match v {
        Value::Bytes(b) => fraction_digits(b),
        Value::Decimal(d) => d.scale.min(MAX_FSP),
        Value::Double(_) => MAX_FSP,
        Value::DateTime(dt) if dt.micros() != 0 => MAX_FSP,
        _ => 0,
    }
}

/// `v` as TIME or DATETIME, None (after warning 1292 "Incorrect time value") when it is neither.
fn temporal(v: &Value, ctx: &dyn FnContext) -> Option<Temporal> {
    let read = match v {
        Value::Null => return None,
        Value::Date(d) => Some(Temporal::DateTime(Civil::from_date(*d).total_micros())),
        Value::DateTime(dt) => Some(Temporal::DateTime(Civil::from_datetime(*dt).total_micros())),
        Value::Bytes(b) => match parse_temporal(b) {
            // A string with a date part ('2024-01-01 10:00') is a DATETIME.
            Some(p) if p.has_time && has_date_part(b) => Some(Temporal::DateTime(p.civil.total_micros())),
            _ => parse_time(b).map(|(micros, _)| Temporal::Time(micros)),
        },
        // Numbers are [-]HHMMSS[.f].
        other => match crate::value::time::time(other, MAX_FSP) {
            (Value::Bytes(b), None) => parse_time(&b).map(|(micros, _)| Temporal::Time(micros)),
            _ => None,
        },
    };
    if read.is_none() {
        ctx.warn(1292, format!("Incorrect time value: '{}'", warn_text(v)));
    }
    read
}

/// Whether a string that reads as a DATETIME has a date before its time ('2000:01:01 10:00',
/// '20240101103000'), rather than being a TIME with days ('1 10:00:00').
fn has_date_part(b: &[u8]) -> bool {
    let s = b.trim_ascii();
    let first = s.split(|c| *c == b' ' || *c == b'T').next().unwrap_or_default();
    first.iter().filter(|c| c.is_ascii_punctuation()).count() >= 2
        || (first.len() >= 12 && first.iter().all(u8::is_ascii_digit))
}

/// A TIME result: clipped to ±838:59:59 (warning 1292 naming the value it would have been),
/// cut to `fsp` digits.
fn time_result(micros: i64, fsp: u8, ctx: &dyn FnContext) -> Value {
    let micros = if micros.abs() > TIME_MAX_MICROS {
        ctx.warn(1292, format!("Truncated incorrect time value: '{}'", format_time(micros, value_fsp(micros))));
        let max = TIME_MAX_WHOLE_MICROS + if fsp > 0 { 999_999 } else { 0 };
        max * micros.signum()
    } else {
        micros
    };
    let unit = 10i64.pow(u32::from(MAX_FSP - fsp.min(MAX_FSP)));
    Value::Bytes(format_time(micros / unit * unit, fsp).into_bytes())
}

/// The digits a microsecond count needs (0 or 6), for messages.
fn value_fsp(micros: i64) -> u8 {
    if micros % MICROS_PER_SECOND == 0 {
        0
    } else {
        MAX_FSP
    }
}

// ---- the functions ----

fn time_to_sec(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let micros = match temporal(&args[0], ctx) {
        None => return Ok(Value::Null),
        Some(Temporal::Time(m)) => m,
        // A DATETIME's time of day.
        Some(Temporal::DateTime(m)) => (m % (86_400 * MICROS_PER_SECOND as i128)) as i64,
    };
    let fsp = value_precision(&args[0]);
    if fsp == 0 {
        return Ok(Value::Int(micros / MICROS_PER_SECOND));
    }
    let mantissa = i128::from(micros) / 10i128.pow(u32::from(MAX_FSP - fsp));
    Ok(Value::Decimal(Decimal::new(mantissa, fsp)))
}

fn sec_to_time(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let fsp = match &args[0] {
        Value::Bytes(_) => MAX_FSP,
        v => value_precision(v),
    };
    let seconds = crate::value::cast::value_to_decimal(&args[0], ctx)
        .ok()
        .and_then(|d| d.rescale(6))
        .and_then(|d| d.mantissa_i128());
    let micros = match seconds {
        Some(m) if m.abs() <= TIME_MAX_MICROS as i128 => m as i64,
        _ => {
            ctx.warn(1292, format!("Truncated incorrect seconds value: '{}'", warn_text(&args[0])));
            let max = TIME_MAX_WHOLE_MICROS + if fsp > 0 { 999_999 } else { 0 };
            let negative = seconds.is_some_and(|m| m < 0) || text(&args[0]).starts_with(b"-");
            if negative {
                -max
            } else {
                max
            }
        }
    };
    Ok(time_result(micros, fsp, ctx))
}

fn timediff(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let (Some(a), Some(b)) = (temporal(&args[0], ctx), temporal(&args[1], ctx)) else { return Ok(Value::Null) };
    let micros = match (a, b) {
        (Temporal::Time(a), Temporal::Time(b)) => i128::from(a) - i128::from(b),
        (Temporal::DateTime(a), Temporal::DateTime(b)) => a - b,
        // A TIME and a DATETIME do not subtract.
        _ => return Ok(Value::Null),
    };
    let micros = micros.clamp(i64::MIN as i128 / 2, i64::MAX as i128 / 2) as i64;
    let fsp = value_precision(&args[0]).max(value_precision(&args[1]));
    Ok(time_result(micros, fsp, ctx))
}

fn addtime(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    add_time(args, 1, ctx)
}

fn subtime(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    add_time(args, -1, ctx)
}

/// ADDTIME (`sign` 1) and SUBTIME (-1): a DATETIME or TIME plus a TIME. A DATETIME argument
/// gives a DATETIME; a string gives a string, with six fractional digits when the result has
/// a fraction.
fn add_time(args: &[Value], sign: i64, ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let (Some(base), Some(Temporal::Time(delta))) = (temporal(&args[0], ctx), temporal(&args[1], ctx)) else {
        return Ok(Value::Null);
    };
    let delta = delta * sign;
    let as_text = matches!(args[0], Value::Bytes(_));
    let fsp = value_precision(&args[0]).max(value_precision(&args[1]));
    match base {
        Temporal::DateTime(m) => {
            let Some(c) = Civil::from_total_micros(m + i128::from(delta)).filter(|c| c.year <= 9999) else {
                return Ok(Value::Null);
            };
            if !as_text {
                return Ok(Value::DateTime(DateTime::new(c.date(), c.hour, c.minute, c.second, c.micros)));
            }
            let mut out =
                format!("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", c.year, c.month, c.day, c.hour, c.minute, c.second);
            if c.micros != 0 {
                out.push_str(&format!(".{:06}", c.micros));
            }
            Ok(Value::Bytes(out.into_bytes()))
        }
        Temporal::Time(t) => {
            let sum = t.saturating_add(delta);
            let fsp = if as_text {
                if time_result_has_fraction(sum) {
                    MAX_FSP
                } else {
                    0
                }
            } else {
                fsp
            };
            Ok(time_result(sum, fsp, ctx))
        }
    }
}

/// Whether a TIME string result shows a fraction: when it has one, or when it clips to the
/// largest TIME (838:59:59.999999).
fn time_result_has_fraction(micros: i64) -> bool {
    micros % MICROS_PER_SECOND != 0 || micros.abs() > TIME_MAX_MICROS
}

fn maketime(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let hours = int_arg(&args[0], ctx);
    let minutes = int_arg(&args[1], ctx);
    let fsp = value_precision(&args[2]);
    let seconds = crate::value::cast::value_to_decimal(&args[2], ctx)
        .ok()
        .and_then(|d| d.rescale(6))
        .and_then(|d| d.mantissa_i128())
        .unwrap_or(-1);
    if !(0..=59).contains(&minutes) || !(0..60 * MICROS_PER_SECOND as i128).contains(&seconds) {
        return Ok(Value::Null);
    }
    let magnitude =
        i128::from(hours.unsigned_abs().min(1 << 40)) * 3_600_000_000 + i128::from(minutes) * 60_000_000 + seconds;
    let negative = hours < 0 || (hours == 0 && text(&args[0]).starts_with(b"-"));
    if magnitude > TIME_MAX_MICROS as i128 {
        let shown = format!(
            "{}{:02}:{:02}:{:02}",
            if negative { "-" } else { "" },
            hours.unsigned_abs(),
            minutes,
            seconds / 1_000_000
        );
        ctx.warn(1292, format!("Truncated incorrect time value: '{shown}'"));
        let max = TIME_MAX_WHOLE_MICROS + if fsp > 0 { 999_999 } else { 0 };
        return Ok(time_result(if negative { -max } else { max }, fsp, ctx));
    }
    let micros = magnitude as i64;
    Ok(time_result(if negative { -micros } else { micros }, fsp, ctx))
}

fn time_of(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let fsp = value_precision(&args[0]);
    Ok(match temporal(&args[0], ctx) {
        None => Value::Null,
        Some(Temporal::Time(m)) => time_result(m, fsp, ctx),
        Some(Temporal::DateTime(m)) => time_result((m % (86_400 * MICROS_PER_SECOND as i128)) as i64, fsp, ctx),
    })
}

/// TIMESTAMP(d [, t]): `d` as DATETIME, plus the TIME `t`.
fn timestamp(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let Some(p) = crate::value::datetime::value_to_temporal(&args[0], ctx) else { return Ok(Value::Null) };
    let mut micros = p.civil.total_micros();
    if let Some(t) = args.get(1) {
        match temporal(t, ctx) {
            Some(Temporal::Time(delta)) => micros += i128::from(delta),
            _ => return Ok(Value::Null),
        }
    }
    Ok(match Civil::from_total_micros(micros).filter(|c| c.year <= 9999) {
        Some(c) => Value::DateTime(DateTime::new(c.date(), c.hour, c.minute, c.second, c.micros)),
        None => Value::Null,
    })
}

/// TIME_FORMAT(t, format): DATE_FORMAT's time specifiers on a TIME, whose hours may pass 23
/// (`%H` of 100:00:00 is 100, `%h` 04); a date specifier makes the result NULL, as in MariaDB.
fn time_format(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let micros = match temporal(&args[0], ctx) {
        None => return Ok(Value::Null),
        Some(Temporal::Time(m)) => m,
        Some(Temporal::DateTime(m)) => (m % (86_400 * MICROS_PER_SECOND as i128)) as i64,
    };
    let format = text(&args[1]);
    let magnitude = micros.unsigned_abs();
    let secs = magnitude / MICROS_PER_SECOND as u64;
    let (hours, minutes, seconds, frac) =
        (secs / 3600, secs / 60 % 60, secs % 60, magnitude % MICROS_PER_SECOND as u64);
    let hour12 = match hours % 12 {
        0 => 12,
        h => h,
    };
    let am_pm = if hours % 24 < 12 { "AM" } else { "PM" };
    let mut out = Vec::with_capacity(format.len() + 8);
    if micros < 0 {
        out.push(b'-');
    }
    let mut i = 0;
    while i < format.len() {
        let c = format[i];
        if c != b'%' || i + 1 == format.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let spec = format[i + 1];
        i += 2;
        let piece = match spec {
            b'H' => format!("{hours:02}"),
            b'k' => hours.to_string(),
            b'h' | b'I' => format!("{hour12:02}"),
            b'l' => hour12.to_string(),
            b'i' => format!("{minutes:02}"),
            b's' | b'S' => format!("{seconds:02}"),
            b'f' => format!("{frac:06}"),
            b'p' => am_pm.to_string(),
            b'r' => format!("{hour12:02}:{minutes:02}:{seconds:02} {am_pm}"),
            b'T' => format!("{hours:02}:{minutes:02}:{seconds:02}"),
            b'a' | b'b' | b'c' | b'D' | b'd' | b'e' | b'j' | b'M' | b'm' | b'U' | b'u' | b'V' | b'v' | b'W' | b'w'
            | b'X' | b'x' | b'Y' | b'y' => return Ok(Value::Null),
            other => (other as char).to_string(),
        };
        out.extend_from_slice(piece.as_bytes());
    }
    Ok(Value::Bytes(out))
}

/// A period (YYMM or YYYYMM) as months since year 0; two-digit years are 1970-2069.
fn period_months(p: i64) -> i64 {
    let (mut year, month) = (p / 100, p % 100);
    if year < 100 {
        year += if year < 70 { 2000 } else { 1900 };
    }
    year * 12 + month - 1
}

fn months_period(months: i64) -> i64 {
    months / 12 * 100 + months % 12 + 1
}

fn period_add(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let (period, months) = (int_arg(&args[0], ctx), int_arg(&args[1], ctx));
    if period == 0 {
        return Ok(Value::Int(0));
    }
    Ok(Value::Int(months_period(period_months(period) + months)))
}

fn period_diff(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let (a, b) = (int_arg(&args[0], ctx), int_arg(&args[1], ctx));
    Ok(Value::Int(period_months(a) - period_months(b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::tests::TestCtx;

    fn s(v: &str) -> Value {
        Value::Bytes(v.as_bytes().to_vec())
    }
    fn call(f: fn(&[Value], &dyn FnContext) -> Result<Value, SqlError>, args: &[Value]) -> (Value, Vec<(u16, String)>) {
        let ctx = TestCtx::default();
        let v = f(args, &ctx).unwrap();
        (v, ctx.take_warnings())
    }

    /// Each checked against MariaDB 10.11.
    #[test]
    fn time_functions_as_mariadb() {
        assert_eq!(call(time_to_sec, &[s("22:23:00")]).0, Value::Int(80580));
        assert_eq!(call(time_to_sec, &[s("-01:00:00.5")]).0, Value::Decimal(Decimal::new(-36005, 1)));
        assert_eq!(call(time_to_sec, &[Value::Int(3600)]).0, Value::Int(2160));
        assert_eq!(call(sec_to_time, &[Value::Int(2378)]).0, s("00:39:38"));
        assert_eq!(call(sec_to_time, &[Value::Decimal(Decimal::new(2378123, 3))]).0, s("00:39:38.123"));
        let (v, w) = call(sec_to_time, &[Value::Int(4_000_000)]);
        assert_eq!(v, s("838:59:59"));
        assert_eq!(w, vec![(1292, "Truncated incorrect seconds value: '4000000'".to_string())]);
        assert_eq!(
            call(timediff, &[s("2000:01:01 00:00:00"), s("2000:01:01 00:00:00.000001")]).0,
            s("-00:00:00.000001")
        );
        assert_eq!(call(timediff, &[s("10:00:00"), s("12:30:00")]).0, s("-02:30:00"));
        assert_eq!(call(timediff, &[s("2024-01-01 00:00:00"), s("2023-12-01 00:00:00")]).0, s("744:00:00"));
        assert_eq!(
            call(addtime, &[s("2007-12-31 23:59:59.999999"), s("1 1:1:1.000002")]).0,
            s("2008-01-02 01:01:01.000001")
        );
        assert_eq!(call(subtime, &[s("01:00:00.999999"), s("02:00:00.999998")]).0, s("-00:59:59.999999"));
        assert_eq!(call(addtime, &[s("800:00:00"), s("100:00:00")]).0, s("838:59:59.999999"));
        assert_eq!(call(addtime, &[s("10:00:00"), s("1:30:00")]).0, s("11:30:00"));
        assert_eq!(call(maketime, &[Value::Int(12), Value::Int(15), Value::Int(30)]).0, s("12:15:30"));
        assert_eq!(call(maketime, &[Value::Int(-1), Value::Int(30), Value::Int(30)]).0, s("-01:30:30"));
        assert_eq!(call(maketime, &[Value::Int(1), Value::Int(60), Value::Int(0)]).0, Value::Null);
        let (v, w) = call(maketime, &[Value::Int(900), Value::Int(0), Value::Int(0)]);
        assert_eq!(v, s("838:59:59"));
        assert_eq!(w, vec![(1292, "Truncated incorrect time value: '900:00:00'".to_string())]);
        assert_eq!(call(period_add, &[Value::Int(200801), Value::Int(2)]).0, Value::Int(200803));
        assert_eq!(call(period_add, &[Value::Int(202413), Value::Int(1)]).0, Value::Int(202502));
        assert_eq!(call(period_add, &[Value::Int(9912), Value::Int(1)]).0, Value::Int(200001));
        assert_eq!(call(period_diff, &[Value::Int(200802), Value::Int(200703)]).0, Value::Int(11));
        assert_eq!(call(period_diff, &[Value::Int(2401), Value::Int(202401)]).0, Value::Int(0));
        assert_eq!(call(time_of, &[s("2024-01-01 10:11:12.5")]).0, s("10:11:12.5"));
        let format = |t: &str, f: &str| call(time_format, &[s(t), s(f)]).0;
        assert_eq!(
            format("10:05:03", "%H %k %h %I %l %i %s %S %p %r %T %f"),
            s("10 10 10 10 10 05 03 03 AM 10:05:03 AM 10:05:03 000000")
        );
        assert_eq!(
            format("100:05:03.5", "%H %k %h %I %l %p %r %T %f"),
            s("100 100 04 04 4 AM 04:05:03 AM 100:05:03 500000")
        );
        assert_eq!(format("10:05:03", "%Y"), Value::Null);
        assert_eq!(format("-01:02:03", "%H:%i"), s("-01:02"));
        assert_eq!(format("00:05:03", "%h %l %r"), s("12 12 12:05:03 AM"));
    }
}
