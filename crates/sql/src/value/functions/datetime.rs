//! Date and time functions. Arguments are read with `value_to_temporal` (strings parsed, numbers
//! as YYYYMMDD[hhmmss]); functions needing a real calendar day (DAYOFWEEK, DATEDIFF, ...) return
//! NULL for zero dates and zero month/day parts, as MariaDB does.

use selkie_storage::{Date, Decimal};

use super::args::{any_null, int_arg, text};
use super::signature::{rt_bigint, rt_date, rt_datetime, rt_int, rt_text, ScalarFunction};
use crate::error::SqlError;
use crate::types::Value;
use crate::value::context::FnContext;
use crate::value::datetime::{
    calc_daynr, calc_week, calc_weekday, civil_of_epoch, date_from_daynr, days_in_month, epoch_of_civil, now_local,
    truncate_micros, utc_from_epoch, value_to_temporal, warn_text, week_mode, Civil, ParsedTemporal, MAX_DAY_NUMBER,
    MAX_YEAR, MICROS_PER_SECOND, SECONDS_PER_DAY, TIMESTAMP_MAX_EPOCH,
};
use crate::value::interval::date_add;
use crate::value::kinds::IntervalUnit;
use crate::value::kinds::SqlType;
use crate::value::num::{dec_normalize, is_space};

/// Largest fractional-seconds precision.
const MAX_FSP: i64 = 6;
/// Longest DATE_FORMAT result declared in metadata.
const DATE_FORMAT_MAX_CHARS: u32 = 256;

const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAY_NAMES: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

pub static FUNCTIONS: &[ScalarFunction] = &[
    func!("NOW", 0, 1, false, rt_now, now),
    func!("CURRENT_TIMESTAMP", 0, 1, false, rt_now, now),
    func!("LOCALTIME", 0, 1, false, rt_now, now),
    func!("LOCALTIMESTAMP", 0, 1, false, rt_now, now),
    func!("SYSDATE", 0, 1, false, rt_now, sysdate),
    func!("UTC_TIMESTAMP", 0, 1, false, rt_now, utc_timestamp),
    func!("CURDATE", 0, 0, false, rt_date, curdate),
    func!("CURRENT_DATE", 0, 0, false, rt_date, curdate),
    func!("UTC_DATE", 0, 0, false, rt_date, utc_date),
    func!("CURTIME", 0, 1, false, rt_utc_time, curtime),
    func!("CURRENT_TIME", 0, 1, false, rt_utc_time, curtime),
    func!("UTC_TIME", 0, 1, false, rt_utc_time, utc_time),
    func!("UNIX_TIMESTAMP", 0, 1, false, rt_unix_timestamp, unix_timestamp),
    func!("FROM_UNIXTIME", 1, 2, true, rt_from_unixtime, from_unixtime),
    func!("CONVERT_TZ", 3, 3, true, rt_convert_tz, convert_tz),
    func!("DATE", 1, 1, true, rt_date, date),
    func!("YEAR", 1, 1, true, rt_int, year),
    func!("MONTH", 1, 1, true, rt_int, month),
    func!("DAY", 1, 1, true, rt_int, day),
    func!("DAYOFMONTH", 1, 1, true, rt_int, day),
    func!("HOUR", 1, 1, true, rt_int, hour),
    func!("MINUTE", 1, 1, true, rt_int, minute),
    func!("SECOND", 1, 1, true, rt_int, second),
    func!("MICROSECOND", 1, 1, true, rt_int, microsecond),
    func!("QUARTER", 1, 1, true, rt_int, quarter),
    func!("DAYOFWEEK", 1, 1, true, rt_int, dayofweek),
    func!("WEEKDAY", 1, 1, true, rt_int, weekday),
    func!("DAYOFYEAR", 1, 1, true, rt_int, dayofyear),
    func!("WEEK", 1, 2, true, rt_int, week),
    func!("WEEKOFYEAR", 1, 1, true, rt_int, weekofyear),
    func!("YEARWEEK", 1, 2, true, rt_int, yearweek),
    func!("DAYNAME", 1, 1, true, rt_name, dayname),
    func!("MONTHNAME", 1, 1, true, rt_name, monthname),
    func!("LAST_DAY", 1, 1, true, rt_date, last_day),
    func!("DATEDIFF", 2, 2, true, rt_int, datediff),
    func!("TIMESTAMPDIFF", 3, 3, true, rt_bigint, timestampdiff),
    func!("TIMESTAMPADD", 3, 3, true, rt_datetime, timestampadd),
    func!("ADDDATE", 2, 2, true, rt_adddate, adddate),
    func!("SUBDATE", 2, 2, true, rt_adddate, subdate),
    func!("EXTRACT", 2, 2, true, rt_bigint, extract),
    func!("DATE_FORMAT", 2, 3, true, rt_date_format, date_format),
    func!("STR_TO_DATE", 2, 2, true, rt_str_to_date, str_to_date),
    func!("MAKEDATE", 2, 2, true, rt_date, makedate),
    func!("TO_DAYS", 1, 1, true, rt_int, to_days),
    func!("TO_SECONDS", 1, 1, true, rt_bigint, to_seconds),
    func!("FROM_DAYS", 1, 1, true, rt_date, from_days),
];

// ---- return types ----

fn rt_now(_: &[SqlType]) -> SqlType {
    // The fsp argument's value is needed for the exact type: see return_type_with_constants.
    SqlType::DateTime { fsp: 0 }
}
fn rt_utc_time(_: &[SqlType]) -> SqlType {
    SqlType::Time { fsp: 0 }
}
fn rt_unix_timestamp(args: &[SqlType]) -> SqlType {
    match args.first() {
        None | Some(SqlType::Date) | Some(SqlType::DateTime { fsp: 0 }) | Some(SqlType::Timestamp { fsp: 0 }) => {
            SqlType::Int { bits: 64, unsigned: false }
        }
        Some(SqlType::Int { .. }) => SqlType::Int { bits: 64, unsigned: false },
        Some(SqlType::DateTime { fsp }) | Some(SqlType::Timestamp { fsp }) => {
            SqlType::Decimal { precision: 11 + *fsp, scale: *fsp }
        }
        // A string's fractional digits are only known per value: the value is an integer, or a
        // DECIMAL with just the digits it has (MariaDB prints '...00.5' as 1704067200.5).
        Some(_) => SqlType::Int { bits: 64, unsigned: false },
    }
}
fn rt_convert_tz(args: &[SqlType]) -> SqlType {
    match &args[0] {
        SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => SqlType::DateTime { fsp: *fsp },
        SqlType::Date | SqlType::Int { .. } | SqlType::Null => SqlType::DateTime { fsp: 0 },
        // A string constant's digits fix the type (return_type_with_constants).
        _ => SqlType::DateTime { fsp: 6 },
    }
}
fn rt_from_unixtime(args: &[SqlType]) -> SqlType {
    if args.len() == 2 {
        return rt_text(DATE_FORMAT_MAX_CHARS);
    }
    match &args[0] {
        SqlType::Int { .. } | SqlType::Null => SqlType::DateTime { fsp: 0 },
        SqlType::Decimal { scale, .. } => SqlType::DateTime { fsp: (*scale).min(6) },
        _ => SqlType::DateTime { fsp: 6 },
    }
}
fn rt_name(_: &[SqlType]) -> SqlType {
    rt_text(9)
}
fn rt_adddate(args: &[SqlType]) -> SqlType {
    match &args[0] {
        SqlType::Date => SqlType::Date,
        SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => SqlType::DateTime { fsp: *fsp },
        _ => rt_text(29),
    }
}
fn rt_date_format(_: &[SqlType]) -> SqlType {
    rt_text(DATE_FORMAT_MAX_CHARS)
}
fn rt_str_to_date(_: &[SqlType]) -> SqlType {
    SqlType::DateTime { fsp: 6 }
}

/// STR_TO_DATE's type for a constant format: DATE without time specifiers, else DATETIME.
pub fn str_to_date_type(fmt: &[u8]) -> SqlType {
    let (has_time, has_micros) = format_has_time(fmt);
    match (has_time, has_micros) {
        (false, _) => SqlType::Date,
        _ if !format_has_date(fmt) => rt_text(15),
        (true, false) => SqlType::DateTime { fsp: 0 },
        (true, true) => SqlType::DateTime { fsp: 6 },
    }
}

fn format_has_date(fmt: &[u8]) -> bool {
    fmt.windows(2).any(|w| {
        w[0] == b'%'
            && matches!(w[1], b'Y' | b'y' | b'm' | b'c' | b'd' | b'e' | b'D' | b'M' | b'b' | b'j' | b'W' | b'a')
    })
}

fn format_has_time(fmt: &[u8]) -> (bool, bool) {
    let mut has_time = false;
    let mut has_micros = false;
    let mut i = 0;
    while i + 1 < fmt.len() {
        if fmt[i] == b'%' {
            match fmt[i + 1] {
                b'H' | b'k' | b'h' | b'I' | b'l' | b'i' | b's' | b'S' | b'p' | b'T' | b'r' => has_time = true,
                b'f' => {
                    has_time = true;
                    has_micros = true;
                }
                _ => {}
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    (has_time, has_micros)
}

// ---- helpers ----

fn fsp_arg(args: &[Value], ctx: &dyn FnContext, func: &str) -> Result<u8, SqlError> {
    match args.first() {
        None | Some(Value::Null) => Ok(0),
        Some(v) => {
            let fsp = int_arg(v, ctx);
            if !(0..=MAX_FSP).contains(&fsp) {
                return Err(SqlError::new(
                    1426,
                    "42000",
                    format!("Too big precision {fsp} specified for '{func}'. Maximum is {MAX_FSP}."),
                ));
            }
            Ok(fsp as u8)
        }
    }
}

fn with_fsp(c: Civil, fsp: u8) -> Value {
    Value::DateTime(Civil { micros: truncate_micros(c.micros, fsp), ..c }.datetime())
}

/// The statement time in UTC.
fn utc_now(ctx: &dyn FnContext) -> Option<Civil> {
    let local = Civil::from_datetime(ctx.now());
    let secs = epoch_of_civil(ctx.time_zone(), &local)?;
    utc_from_epoch(secs, local.micros)
}

/// A temporal argument, or None (NULL result) for NULL / invalid values.
fn temporal(v: &Value, ctx: &dyn FnContext) -> Option<ParsedTemporal> {
    value_to_temporal(v, ctx)
}

/// A temporal argument that must be a real calendar day; zero months or days warn 1292.
fn full_date(v: &Value, ctx: &dyn FnContext) -> Option<Civil> {
    let c = temporal(v, ctx)?.civil;
    if !c.has_full_date() {
        ctx.warn(1292, format!("Incorrect datetime value: '{}'", warn_text(v)));
        return None;
    }
    Some(c)
}

/// Reads 'hh:mm:ss[.ffffff]' (a TIME literal) for HOUR()/MINUTE()/SECOND()/MICROSECOND().
fn parse_time_of_day(b: &[u8]) -> Option<Civil> {
    let s = std::str::from_utf8(b).ok()?.trim();
    let (hms, frac) = match s.split_once('.') {
        Some((a, f)) => (a, Some(f)),
        None => (s, None),
    };
    let mut parts = hms.split(':');
    let h: u32 = parts.next()?.parse().ok()?;
    let m: u32 = parts.next()?.parse().ok()?;
    let sec: u32 = parts.next().map_or(Some(0), |p| p.parse().ok())?;
    if parts.next().is_some() || m > 59 || sec > 59 {
        return None;
    }
    let micros = match frac {
        Some(f) if f.bytes().all(|c| c.is_ascii_digit()) && !f.is_empty() => {
            let digits: String = f.chars().chain(std::iter::repeat('0')).take(6).collect();
            digits.parse().ok()?
        }
        Some(_) => return None,
        None => 0,
    };
    Some(Civil { hour: h, minute: m, second: sec, micros, ..Civil::default() })
}

/// Time fields of an argument: a date/time, or a bare time string ('10:05:03', hours may exceed
/// 23 as in a TIME). Anything else warns "Incorrect time value".
fn time_fields(v: &Value, ctx: &dyn FnContext) -> Option<Civil> {
    if let Value::Bytes(b) = v {
        if let Some(t) = parse_time_of_day(b) {
            return Some(t);
        }
        if let Some(p) = crate::value::datetime::parse_temporal(b).filter(|p| p.has_time && !p.truncated) {
            return Some(p.civil);
        }
        ctx.warn(1292, format!("Incorrect time value: '{}'", String::from_utf8_lossy(b)));
        return None;
    }
    temporal(v, ctx).map(|p| p.civil)
}

fn int_or_null(v: Option<i64>) -> Result<Value, SqlError> {
    Ok(v.map_or(Value::Null, Value::Int))
}

// ---- current time ----

fn now(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let fsp = fsp_arg(args, ctx, "now")?;
    Ok(with_fsp(Civil::from_datetime(ctx.now()), fsp))
}

fn sysdate(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let fsp = fsp_arg(args, ctx, "sysdate")?;
    Ok(with_fsp(Civil::from_datetime(now_local()), fsp))
}

fn utc_timestamp(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let fsp = fsp_arg(args, ctx, "utc_timestamp")?;
    Ok(utc_now(ctx).map_or(Value::Null, |c| with_fsp(c, fsp)))
}

/// UTC_TIME([fsp]): a TIME (its text, as CURTIME's).
fn utc_time(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let fsp = fsp_arg(args, ctx, "utc_time")?;
    let Some(now) = utc_now(ctx) else { return Ok(Value::Null) };
    let mut out = Vec::with_capacity(15);
    crate::value::format::push_datetime(now.datetime(), fsp, &mut out);
    Ok(Value::Bytes(out.split_off(11)))
}

fn curdate(_: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(Value::Date(ctx.now().date()))
}

fn utc_date(_: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(utc_now(ctx).map_or(Value::Null, |c| Value::Date(c.date())))
}

fn curtime(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let fsp = fsp_arg(args, ctx, "curtime")?;
    let now = ctx.now();
    let mut out = Vec::with_capacity(15);
    crate::value::format::push_datetime(now, fsp, &mut out);
    // Drop the 'YYYY-MM-DD ' prefix: CURTIME has no date.
    Ok(Value::Bytes(out.split_off(11)))
}

fn unix_timestamp(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let c = match args.first() {
        None => Civil::from_datetime(ctx.now()),
        Some(v) => match temporal(v, ctx) {
            Some(p) => p.civil,
            None => return Ok(Value::Null),
        },
    };
    let Some(secs) = epoch_of_civil(ctx.time_zone(), &c).filter(|s| (0..=TIMESTAMP_MAX_EPOCH).contains(s)) else {
        return Ok(Value::Null);
    };
    if c.micros == 0 || args.is_empty() {
        Ok(Value::Int(secs))
    } else {
        let d = Decimal::new(secs as i128 * MICROS_PER_SECOND as i128 + c.micros as i128, 6);
        Ok(Value::Decimal(dec_normalize(d)))
    }
}

fn from_unixtime(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let d = match crate::value::cast::value_to_decimal(&args[0], ctx) {
        Ok(d) => d,
        Err(_) => return Ok(Value::Null),
    };
    let Some(micros_total) = d.rescale(6).map(|x| x.mantissa_saturating()) else {
        return Ok(Value::Null);
    };
    if micros_total < 0 {
        return Ok(Value::Null);
    }
    if micros_total >= (TIMESTAMP_MAX_EPOCH as i128 + 1) * MICROS_PER_SECOND as i128 {
        ctx.warn(1292, format!("Truncated incorrect unixtime value: '{}'", warn_text(&args[0])));
        return Ok(Value::Null);
    }
    let secs = (micros_total / MICROS_PER_SECOND as i128) as i64;
    let micros = (micros_total % MICROS_PER_SECOND as i128) as u32;
    let Some(c) = civil_of_epoch(ctx.time_zone(), secs, micros) else {
        return Ok(Value::Null);
    };
    if args.len() == 2 {
        return Ok(format_date(&c, &text(&args[1])).map_or(Value::Null, Value::Bytes));
    }
    Ok(Value::DateTime(c.datetime()))
}

/// CONVERT_TZ(dt, from, to): NULL for an unknown zone; a time whose instant lies outside the
/// TIMESTAMP range comes back unchanged, as in MariaDB (which converts through a TIMESTAMP).
fn convert_tz(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let Some(c) = temporal(&args[0], ctx).map(|p| p.civil) else {
        return Ok(Value::Null);
    };
    let zone = |v: &Value| std::str::from_utf8(&text(v)).ok().and_then(crate::value::TimeZone::parse);
    let (Some(from), Some(to)) = (zone(&args[1]), zone(&args[2])) else {
        return Ok(Value::Null);
    };
    if !c.has_full_date() {
        return Ok(Value::Null);
    }
    let converted = epoch_of_civil(from, &c)
        .filter(|s| (1..=TIMESTAMP_MAX_EPOCH).contains(s))
        .and_then(|secs| civil_of_epoch(to, secs, c.micros));
    Ok(Value::DateTime(converted.unwrap_or(c).datetime()))
}

// ---- fields ----

fn date(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(temporal(&args[0], ctx).map_or(Value::Null, |p| Value::Date(p.civil.date())))
}

fn year(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    int_or_null(temporal(&args[0], ctx).map(|p| p.civil.year as i64))
}
fn month(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    int_or_null(temporal(&args[0], ctx).map(|p| p.civil.month as i64))
}
fn day(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    int_or_null(temporal(&args[0], ctx).map(|p| p.civil.day as i64))
}
fn quarter(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    int_or_null(temporal(&args[0], ctx).map(|p| p.civil.month.div_ceil(3) as i64))
}
fn hour(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    int_or_null(time_fields(&args[0], ctx).map(|c| c.hour as i64))
}
fn minute(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    int_or_null(time_fields(&args[0], ctx).map(|c| c.minute as i64))
}
fn second(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    int_or_null(time_fields(&args[0], ctx).map(|c| c.second as i64))
}
fn microsecond(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    int_or_null(time_fields(&args[0], ctx).map(|c| c.micros as i64))
}

fn dayofweek(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    int_or_null(full_date(&args[0], ctx).map(|c| calc_weekday(c.daynr(), true) as i64 + 1))
}
fn weekday(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    int_or_null(full_date(&args[0], ctx).map(|c| calc_weekday(c.daynr(), false) as i64))
}
fn dayofyear(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    int_or_null(full_date(&args[0], ctx).map(|c| c.daynr() - calc_daynr(c.year, 1, 1) + 1))
}

fn week_mode_arg(args: &[Value], ctx: &dyn FnContext) -> u32 {
    // The default mode is the default_week_format variable, 0.
    args.get(1).filter(|v| !v.is_null()).map_or(0, |v| int_arg(v, ctx).clamp(0, 7) as u32)
}

fn week(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let mode = week_mode(week_mode_arg(args, ctx));
    int_or_null(full_date(&args[0], ctx).map(|c| calc_week(&c, mode).0 as i64))
}
fn weekofyear(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    int_or_null(full_date(&args[0], ctx).map(|c| calc_week(&c, week_mode(3)).0 as i64))
}
fn yearweek(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    // YEARWEEK always reports the week's own year (WEEK_YEAR behaviour).
    let mode = week_mode(week_mode_arg(args, ctx)) | 2;
    int_or_null(full_date(&args[0], ctx).map(|c| {
        let (w, y) = calc_week(&c, mode);
        y as i64 * 100 + w as i64
    }))
}

fn dayname(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(full_date(&args[0], ctx)
        .map_or(Value::Null, |c| Value::Bytes(DAY_NAMES[calc_weekday(c.daynr(), false) as usize].as_bytes().to_vec())))
}
fn monthname(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(temporal(&args[0], ctx)
        .filter(|p| (1..=12).contains(&p.civil.month))
        .map_or(Value::Null, |p| Value::Bytes(MONTH_NAMES[p.civil.month as usize - 1].as_bytes().to_vec())))
}

fn last_day(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(temporal(&args[0], ctx)
        .map(|p| p.civil)
        .filter(|c| (1..=12).contains(&c.month))
        .map_or(Value::Null, |c| Value::Date(Date::new(c.year, c.month, days_in_month(c.year, c.month)))))
}

fn datediff(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let a = full_date(&args[0], ctx);
    let b = full_date(&args[1], ctx);
    int_or_null(a.zip(b).map(|(a, b)| a.daynr() - b.daynr()))
}

/// Interval unit names as TIMESTAMPDIFF/TIMESTAMPADD/DATE_ADD spell them (also SQL_TSI_*).
pub fn parse_interval_unit(name: &[u8]) -> Option<IntervalUnit> {
    let upper = String::from_utf8_lossy(name).trim().to_ascii_uppercase();
    let bare = upper.strip_prefix("SQL_TSI_").unwrap_or(&upper);
    Some(match bare {
        "MICROSECOND" | "FRAC_SECOND" => IntervalUnit::Microsecond,
        "SECOND" => IntervalUnit::Second,
        "MINUTE" => IntervalUnit::Minute,
        "HOUR" => IntervalUnit::Hour,
        "DAY" => IntervalUnit::Day,
        "WEEK" => IntervalUnit::Week,
        "MONTH" => IntervalUnit::Month,
        "QUARTER" => IntervalUnit::Quarter,
        "YEAR" => IntervalUnit::Year,
        _ => return None,
    })
}

fn unit_arg(v: &Value) -> Result<IntervalUnit, SqlError> {
    let name = text(v);
    parse_interval_unit(&name).ok_or_else(|| {
        SqlError::new(
            1064,
            "42000",
            format!("You have an error in your SQL syntax; unknown interval unit '{}'", String::from_utf8_lossy(&name)),
        )
    })
}

/// TIMESTAMPDIFF(unit, a, b): whole units from a to b, truncated toward zero; months count only
/// when the day-and-time of b reaches that of a (MariaDB `calc_time_diff` + month logic).
pub fn timestamp_diff(unit: IntervalUnit, a: &Civil, b: &Civil) -> i64 {
    let micros = b.total_micros() - a.total_micros();
    let per_unit: i128 = match unit {
        IntervalUnit::Microsecond => 1,
        IntervalUnit::Second => MICROS_PER_SECOND as i128,
        IntervalUnit::Minute => 60 * MICROS_PER_SECOND as i128,
        IntervalUnit::Hour => 3600 * MICROS_PER_SECOND as i128,
        IntervalUnit::Day => SECONDS_PER_DAY as i128 * MICROS_PER_SECOND as i128,
        IntervalUnit::Week => 7 * SECONDS_PER_DAY as i128 * MICROS_PER_SECOND as i128,
        IntervalUnit::Month | IntervalUnit::Quarter | IntervalUnit::Year => {
            let (early, late, sign) = if micros >= 0 { (a, b, 1) } else { (b, a, -1) };
            let mut months =
                (late.year as i64 * 12 + late.month as i64) - (early.year as i64 * 12 + early.month as i64);
            let late_rest = (late.day, late.seconds_of_day(), late.micros);
            let early_rest = (early.day, early.seconds_of_day(), early.micros);
            if late_rest < early_rest {
                months -= 1;
            }
            let per = match unit {
                IntervalUnit::Month => 1,
                IntervalUnit::Quarter => 3,
                _ => 12,
            };
            return sign * (months / per);
        }
    };
    (micros / per_unit) as i64
}

fn timestampdiff(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let unit = unit_arg(&args[0])?;
    if args[1].is_null() || args[2].is_null() {
        return Ok(Value::Null);
    }
    let a = full_date(&args[1], ctx);
    let b = full_date(&args[2], ctx);
    int_or_null(a.zip(b).map(|(a, b)| timestamp_diff(unit, &a, &b)))
}

fn timestampadd(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let unit = unit_arg(&args[0])?;
    date_add(&args[2], &args[1], unit, false, ctx)
}

fn adddate(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    date_add(&args[0], &args[1], IntervalUnit::Day, false, ctx)
}
fn subdate(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    date_add(&args[0], &args[1], IntervalUnit::Day, true, ctx)
}

fn extract(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let unit = String::from_utf8_lossy(&text(&args[0])).trim().to_ascii_uppercase();
    let time_only = matches!(
        unit.as_str(),
        "HOUR" | "MINUTE" | "SECOND" | "MICROSECOND" | "HOUR_MINUTE" | "HOUR_SECOND" | "MINUTE_SECOND"
    );
    // A TIME's hours past 24 are days, and its sign is every field's (MariaDB: EXTRACT(HOUR
    // FROM '-30:00:00') is -6, EXTRACT(DAY FROM '30:00:00') is 1).
    if let Some((negative, t)) = signed_time_of_day(&args[1]) {
        if !matches!(unit.as_str(), "YEAR" | "QUARTER" | "MONTH" | "WEEK" | "YEAR_MONTH") {
            let c = Civil { year: 0, month: 0, day: t.hour / 24, hour: t.hour % 24, ..t };
            let v = extract_field(&unit, &c)?.unwrap_or(0);
            return Ok(Value::Int(if negative { -v } else { v }));
        }
    }
    let c = if time_only { time_fields(&args[1], ctx) } else { temporal(&args[1], ctx).map(|p| p.civil) };
    let Some(c) = c else {
        return Ok(Value::Null);
    };
    Ok(extract_field(&unit, &c)?.map_or(Value::Null, Value::Int))
}

/// A string that is a time of day with an optional sign, or an integer read as [-]HHHMMSS
/// (MariaDB: EXTRACT(HOUR FROM 103000) is 10, EXTRACT(DAY FROM 20240203) is 84, 2024 hours):
/// (negative, hours and the rest).
fn signed_time_of_day(v: &Value) -> Option<(bool, Civil)> {
    let n = match v {
        Value::Int(i) => Some(i128::from(*i)),
        Value::UInt(u) => Some(i128::from(*u)),
        _ => None,
    };
    if let Some(n) = n {
        let a = n.unsigned_abs();
        let (hour, minute, second) = (u32::try_from(a / 10_000).ok()?, (a / 100 % 100) as u32, (a % 100) as u32);
        if minute > 59 || second > 59 {
            return None;
        }
        let t = Civil { year: 0, month: 0, day: 0, hour, minute, second, micros: 0 };
        return Some((n < 0, t));
    }
    let Value::Bytes(b) = v else {
        return None;
    };
    let s = b.trim_ascii_start();
    match s.strip_prefix(b"-") {
        Some(rest) => parse_time_of_day(rest).map(|t| (true, t)),
        None => parse_time_of_day(s).map(|t| (false, t)),
    }
}

/// The `unit` field(s) of `c` as EXTRACT gives them; None for a WEEK of a date without one.
fn extract_field(unit: &str, c: &Civil) -> Result<Option<i64>, SqlError> {
    let (y, mo, d, h, mi, s) =
        (c.year as i64, c.month as i64, c.day as i64, c.hour as i64, c.minute as i64, c.second as i64);
    let v = match unit {
        "YEAR" => y,
        "QUARTER" => (mo + 2) / 3,
        "MONTH" => mo,
        "WEEK" => {
            if !c.has_full_date() {
                return Ok(None);
            }
            calc_week(c, week_mode(0)).0 as i64
        }
        "DAY" => d,
        "HOUR" => h,
        "MINUTE" => mi,
        "SECOND" => s,
        "MICROSECOND" => c.micros as i64,
        "YEAR_MONTH" => y * 100 + mo,
        "DAY_HOUR" => d * 100 + h,
        "DAY_MINUTE" => (d * 100 + h) * 100 + mi,
        "DAY_SECOND" => ((d * 100 + h) * 100 + mi) * 100 + s,
        "DAY_MICROSECOND" => (((d * 100 + h) * 100 + mi) * 100 + s) * 1_000_000 + c.micros as i64,
        "HOUR_MINUTE" => h * 100 + mi,
        "HOUR_SECOND" => (h * 100 + mi) * 100 + s,
        "MINUTE_SECOND" => mi * 100 + s,
        _ => {
            return Err(SqlError::new(
                1064,
                "42000",
                format!("You have an error in your SQL syntax; unknown EXTRACT unit '{unit}'"),
            ))
        }
    };
    Ok(Some(v))
}

// ---- DATE_FORMAT ----

fn push_num(out: &mut Vec<u8>, v: i64, width: usize) {
    let s = format!("{v:0width$}");
    out.extend_from_slice(s.as_bytes());
}

fn ordinal_suffix(day: u32) -> &'static str {
    if (11..=13).contains(&(day % 100)) {
        return "th";
    }
    match day % 10 {
        1 => "st",
        2 => "nd",
        3 => "rd",
        _ => "th",
    }
}

/// DATE_FORMAT's specifiers (MariaDB `make_date_time`). None when a specifier needs a part the
/// date lacks (a weekday of a zero date, the name of month 0).
pub fn format_date(c: &Civil, fmt: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(fmt.len() * 2);
    let hour12 = if c.hour.is_multiple_of(12) { 12 } else { c.hour % 12 };
    let am_pm = if c.hour < 12 { "AM" } else { "PM" };
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' || i + 1 == fmt.len() {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let spec = fmt[i + 1];
        i += 2;
        match spec {
            b'a' | b'W' | b'w' | b'U' | b'u' | b'V' | b'v' | b'X' | b'x' | b'j' if !c.has_full_date() => return None,
            b'M' | b'b' if !(1..=12).contains(&c.month) => return None,
            b'a' => out.extend_from_slice(&DAY_NAMES[calc_weekday(c.daynr(), false) as usize].as_bytes()[..3]),
            b'W' => out.extend_from_slice(DAY_NAMES[calc_weekday(c.daynr(), false) as usize].as_bytes()),
            b'w' => push_num(&mut out, calc_weekday(c.daynr(), true) as i64, 1),
            b'b' => out.extend_from_slice(&MONTH_NAMES[c.month as usize - 1].as_bytes()[..3]),
            b'M' => out.extend_from_slice(MONTH_NAMES[c.month as usize - 1].as_bytes()),
            b'c' => push_num(&mut out, c.month as i64, 1),
            b'm' => push_num(&mut out, c.month as i64, 2),
            b'D' => {
                push_num(&mut out, c.day as i64, 1);
                out.extend_from_slice(ordinal_suffix(c.day).as_bytes());
            }
            b'd' => push_num(&mut out, c.day as i64, 2),
            b'e' => push_num(&mut out, c.day as i64, 1),
            b'f' => push_num(&mut out, c.micros as i64, 6),
            b'H' => push_num(&mut out, c.hour as i64, 2),
            b'k' => push_num(&mut out, c.hour as i64, 1),
            b'h' | b'I' => push_num(&mut out, hour12 as i64, 2),
            b'l' => push_num(&mut out, hour12 as i64, 1),
            b'i' => push_num(&mut out, c.minute as i64, 2),
            b'j' => push_num(&mut out, c.daynr() - calc_daynr(c.year, 1, 1) + 1, 3),
            b'p' => out.extend_from_slice(am_pm.as_bytes()),
            b'r' => {
                out.extend_from_slice(format!("{:02}:{:02}:{:02} {}", hour12, c.minute, c.second, am_pm).as_bytes())
            }
            b'S' | b's' => push_num(&mut out, c.second as i64, 2),
            b'T' => out.extend_from_slice(format!("{:02}:{:02}:{:02}", c.hour, c.minute, c.second).as_bytes()),
            b'U' => push_num(&mut out, calc_week(c, 4).0 as i64, 2),
            b'u' => push_num(&mut out, calc_week(c, 1).0 as i64, 2),
            b'V' => push_num(&mut out, calc_week(c, 2 | 4).0 as i64, 2),
            b'v' => push_num(&mut out, calc_week(c, 2 | 1).0 as i64, 2),
            b'X' => push_num(&mut out, calc_week(c, 2 | 4).1 as i64, 4),
            b'x' => push_num(&mut out, calc_week(c, 2 | 1).1 as i64, 4),
            b'Y' => push_num(&mut out, c.year as i64, 4),
            b'y' => push_num(&mut out, (c.year % 100) as i64, 2),
            other => out.push(other),
        }
    }
    Some(out)
}

fn date_format(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args[0].is_null() || args[1].is_null() {
        return Ok(Value::Null);
    }
    let Some(p) = temporal(&args[0], ctx) else {
        return Ok(Value::Null);
    };
    Ok(format_date(&p.civil, &text(&args[1])).map_or(Value::Null, Value::Bytes))
}

// ---- STR_TO_DATE ----

fn read_number(s: &[u8], i: &mut usize, max_digits: usize) -> Option<u32> {
    let start = *i;
    let mut v = 0u32;
    while *i < s.len() && *i - start < max_digits && s[*i].is_ascii_digit() {
        v = v * 10 + (s[*i] - b'0') as u32;
        *i += 1;
    }
    (*i > start).then_some(v)
}

/// Matches one of `names` (case-insensitive, full name or its first three letters).
fn read_name(s: &[u8], i: &mut usize, names: &[&str]) -> Option<usize> {
    let rest = &s[*i..];
    for (idx, name) in names.iter().enumerate() {
        let n = name.as_bytes();
        if rest.len() >= n.len() && rest[..n.len()].eq_ignore_ascii_case(n) {
            *i += n.len();
            return Some(idx);
        }
    }
    for (idx, name) in names.iter().enumerate() {
        let n = &name.as_bytes()[..3];
        if rest.len() >= 3 && rest[..3].eq_ignore_ascii_case(n) {
            *i += 3;
            return Some(idx);
        }
    }
    None
}

/// Parses `s` by `fmt`. Returns the fields and whether input characters were left over.
fn parse_by_format(s: &[u8], fmt: &[u8]) -> Option<(Civil, bool)> {
    let mut c = Civil::default();
    let mut i = 0;
    let mut f = 0;
    let mut pm: Option<bool> = None;
    let mut hour12 = false;
    let mut day_of_year: Option<u32> = None;
    while f < fmt.len() {
        if is_space(fmt[f]) {
            while i < s.len() && is_space(s[i]) {
                i += 1;
            }
            f += 1;
            continue;
        }
        if fmt[f] != b'%' || f + 1 == fmt.len() {
            if i >= s.len() || s[i] != fmt[f] {
                return None;
            }
            i += 1;
            f += 1;
            continue;
        }
        let spec = fmt[f + 1];
        f += 2;
        // Numeric fields skip leading spaces, as MariaDB's extract_date_time does.
        if !matches!(spec, b'%' | b'p') {
            while i < s.len() && is_space(s[i]) {
                i += 1;
            }
        }
        match spec {
            b'Y' => {
                let start = i;
                let y = read_number(s, &mut i, 4)?;
                c.year = if i - start <= 2 {
                    if y < 70 {
                        y + 2000
                    } else {
                        y + 1900
                    }
                } else {
                    y
                };
            }
            b'y' => {
                let y = read_number(s, &mut i, 2)?;
                c.year = if y < 70 { y + 2000 } else { y + 1900 };
            }
            b'm' | b'c' => c.month = read_number(s, &mut i, 2)?,
            b'd' | b'e' => c.day = read_number(s, &mut i, 2)?,
            b'D' => {
                c.day = read_number(s, &mut i, 2)?;
                // Skip the ordinal suffix (st, nd, rd, th).
                i = (i + 2).min(s.len());
            }
            b'H' | b'k' => c.hour = read_number(s, &mut i, 2)?,
            b'h' | b'I' | b'l' => {
                c.hour = read_number(s, &mut i, 2)?;
                hour12 = true;
            }
            b'i' => c.minute = read_number(s, &mut i, 2)?,
            b's' | b'S' => c.second = read_number(s, &mut i, 2)?,
            b'f' => {
                let start = i;
                let v = read_number(s, &mut i, 6)?;
                c.micros = v * 10u32.pow(6 - (i - start) as u32);
            }
            b'p' => {
                let rest = &s[i..];
                if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case(b"AM") {
                    pm = Some(false);
                } else if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case(b"PM") {
                    pm = Some(true);
                } else {
                    return None;
                }
                i += 2;
            }
            b'M' | b'b' => c.month = read_name(s, &mut i, &MONTH_NAMES)? as u32 + 1,
            b'W' | b'a' => {
                read_name(s, &mut i, &DAY_NAMES)?;
            }
            b'j' => day_of_year = Some(read_number(s, &mut i, 3)?),
            b'T' => {
                c.hour = read_number(s, &mut i, 2)?;
                expect(s, &mut i, b':')?;
                c.minute = read_number(s, &mut i, 2)?;
                expect(s, &mut i, b':')?;
                c.second = read_number(s, &mut i, 2)?;
            }
            b'r' => {
                c.hour = read_number(s, &mut i, 2)?;
                expect(s, &mut i, b':')?;
                c.minute = read_number(s, &mut i, 2)?;
                expect(s, &mut i, b':')?;
                c.second = read_number(s, &mut i, 2)?;
                while i < s.len() && is_space(s[i]) {
                    i += 1;
                }
                hour12 = true;
                let rest = &s[i..];
                if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case(b"PM") {
                    pm = Some(true);
                    i += 2;
                } else if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case(b"AM") {
                    pm = Some(false);
                    i += 2;
                }
            }
            b'%' => expect(s, &mut i, b'%')?,
            other => expect(s, &mut i, other)?,
        }
    }
    if hour12 {
        if c.hour == 0 || c.hour > 12 {
            return None;
        }
        c.hour %= 12;
    }
    if pm == Some(true) {
        c.hour += 12;
    }
    if let Some(doy) = day_of_year {
        let daynr = calc_daynr(c.year, 1, 1) + doy as i64 - 1;
        let (y, m, d) = date_from_daynr(daynr).filter(|_| doy >= 1)?;
        c.year = y;
        c.month = m;
        c.day = d;
    }
    if !c.is_valid() {
        return None;
    }
    let leftover = !s[i..].iter().all(|&b| is_space(b));
    Some((c, leftover))
}

fn expect(s: &[u8], i: &mut usize, ch: u8) -> Option<()> {
    if *i < s.len() && s[*i] == ch {
        *i += 1;
        Some(())
    } else {
        None
    }
}

fn str_to_date(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = text(&args[0]);
    let fmt = text(&args[1]);
    match parse_by_format(&s, &fmt) {
        Some((c, leftover)) => {
            if leftover {
                ctx.warn(1292, format!("Truncated incorrect datetime value: '{}'", String::from_utf8_lossy(&s)));
            }
            let (has_time, has_micros) = format_has_time(&fmt);
            Ok(if !has_time {
                Value::Date(c.date())
            } else if !format_has_date(&fmt) {
                // Only time specifiers: MariaDB returns a TIME, which is text here.
                let mut out = Vec::new();
                crate::value::format::push_datetime(c.datetime(), if has_micros { 6 } else { 0 }, &mut out);
                Value::Bytes(out.split_off(11))
            } else {
                Value::DateTime(c.datetime())
            })
        }
        None => {
            ctx.warn(
                1411,
                format!("Incorrect datetime value: '{}' for function str_to_date", String::from_utf8_lossy(&s)),
            );
            Ok(Value::Null)
        }
    }
}

// ---- day numbers ----

fn makedate(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let mut y = int_arg(&args[0], ctx);
    let doy = int_arg(&args[1], ctx);
    if doy <= 0 || !(0..=MAX_YEAR as i64).contains(&y) {
        return Ok(Value::Null);
    }
    if y < 100 {
        y += if y < 70 { 2000 } else { 1900 };
    }
    let daynr = calc_daynr(y as u32, 1, 1) + doy - 1;
    if daynr > MAX_DAY_NUMBER {
        return Ok(Value::Null);
    }
    Ok(date_from_daynr(daynr).map_or(Value::Null, |(y, m, d)| Value::Date(Date::new(y, m, d))))
}

fn to_days(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    int_or_null(full_date(&args[0], ctx).map(|c| c.daynr()))
}

fn to_seconds(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    int_or_null(full_date(&args[0], ctx).map(|c| c.daynr() * SECONDS_PER_DAY + c.seconds_of_day()))
}

fn from_days(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let n = int_arg(&args[0], ctx);
    // Day numbers before year 1 give the zero date, as in MariaDB.
    Ok(Value::Date(date_from_daynr(n).map_or(Date(0), |(y, m, d)| Date::new(y, m, d))))
}
