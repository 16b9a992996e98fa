//! Calendar arithmetic, parsing of date/time strings and numbers, the local clock, and adding an
//! interval to a broken-down time (`interval` reads DATE_ADD's amount and applies it here).
//!
//! Day numbers follow MariaDB's `calc_daynr` (proleptic Gregorian, day 1 = 0000-01-01 in its
//! reckoning) so that TO_DAYS, FROM_DAYS, WEEK and friends give the same numbers as MariaDB.

use selkie_storage::{Date, DateTime};

use super::context::FnContext;
use super::kinds::IntervalUnit;
use super::num::is_space;
use super::tz::TimeZone;
use crate::types::Value;

/// Day number of 9999-12-31, the last date MariaDB handles.
pub const MAX_DAY_NUMBER: i64 = 3_652_424;
/// Day number of 1970-01-01 (Unix epoch).
pub const EPOCH_DAY_NUMBER: i64 = 719_528;
pub const MICROS_PER_SECOND: i64 = 1_000_000;
pub const SECONDS_PER_DAY: i64 = 86_400;
pub const MAX_YEAR: u32 = 9999;
/// TIMESTAMP holds seconds since the epoch in [1, 2^31 - 1] (MariaDB 10.11).
pub const TIMESTAMP_MAX_EPOCH: i64 = 2_147_483_647;
/// Two-digit years below this are 20xx, others 19xx.
const TWO_DIGIT_YEAR_PIVOT: u32 = 70;

/// A broken-down date and time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Civil {
    pub year: u32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub micros: u32,
}

impl Civil {
    pub fn from_date(d: Date) -> Civil {
        Civil { year: d.year(), month: d.month(), day: d.day(), ..Civil::default() }
    }
    pub fn from_datetime(dt: DateTime) -> Civil {
        let d = dt.date();
        Civil {
            year: d.year(),
            month: d.month(),
            day: d.day(),
            hour: dt.hour(),
            minute: dt.minute(),
            second: dt.second(),
            micros: dt.micros(),
        }
    }
    pub fn date(&self) -> Date {
        Date::new(self.year, self.month, self.day)
    }
    pub fn datetime(&self) -> DateTime {
        DateTime::new(self.date(), self.hour, self.minute, self.second, self.micros)
    }
    /// True when every field is in range (zero month/day allowed, as without NO_ZERO_IN_DATE).
    pub fn is_valid(&self) -> bool {
        self.year <= MAX_YEAR
            && self.month <= 12
            && self.day <= 31
            && (self.month == 0 || self.day == 0 || self.day <= days_in_month(self.year, self.month))
            && self.hour < 24
            && self.minute < 60
            && self.second < 60
            && self.micros < 1_000_000
    }
    /// A real calendar day (no zero month or day): needed for day arithmetic.
    pub fn has_full_date(&self) -> bool {
        self.month != 0 && self.day != 0
    }
    pub fn is_zero_date(&self) -> bool {
        self.year == 0 && self.month == 0 && self.day == 0
    }
    pub fn daynr(&self) -> i64 {
        calc_daynr(self.year, self.month, self.day)
    }
    pub fn seconds_of_day(&self) -> i64 {
        (self.hour as i64 * 60 + self.minute as i64) * 60 + self.second as i64
    }
    /// Microseconds since day 0 (for differences and interval arithmetic).
    pub fn total_micros(&self) -> i128 {
        (self.daynr() as i128 * SECONDS_PER_DAY as i128 + self.seconds_of_day() as i128) * MICROS_PER_SECOND as i128
            + self.micros as i128
    }
    pub fn from_total_micros(total: i128) -> Option<Civil> {
        if total < 0 {
            return None;
        }
        let secs = total / MICROS_PER_SECOND as i128;
        let daynr = (secs / SECONDS_PER_DAY as i128) as i64;
        let sod = (secs % SECONDS_PER_DAY as i128) as u32;
        let (year, month, day) = date_from_daynr(daynr)?;
        Some(Civil {
            year,
            month,
            day,
            hour: sod / 3600,
            minute: sod / 60 % 60,
            second: sod % 60,
            micros: (total % MICROS_PER_SECOND as i128) as u32,
        })
    }
    /// The date as the number YYYYMMDD.
    pub fn date_number(&self) -> i64 {
        (self.year as i64 * 100 + self.month as i64) * 100 + self.day as i64
    }
    /// The date and time as the number YYYYMMDDhhmmss.
    pub fn datetime_number(&self) -> i64 {
        self.date_number() * 1_000_000 + (self.hour as i64 * 100 + self.minute as i64) * 100 + self.second as i64
    }
}

pub fn is_leap_year(y: u32) -> bool {
    (y.is_multiple_of(4) && !y.is_multiple_of(100)) || (y.is_multiple_of(400) && y != 0)
}

pub fn days_in_month(y: u32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 => {
            if is_leap_year(y) {
                29
            } else {
                28
            }
        }
        _ => 0,
    }
}

pub fn days_in_year(y: u32) -> i64 {
    if is_leap_year(y) {
        366
    } else {
        365
    }
}

/// MariaDB's `calc_daynr`: days since year 0 (0 for the zero date).
pub fn calc_daynr(year: u32, month: u32, day: u32) -> i64 {
    if year == 0 && month == 0 {
        return 0;
    }
    let mut year = year as i64;
    let month = month as i64;
    let mut delsum = 365 * year + 31 * (month - 1) + day as i64;
    if month <= 2 {
        year -= 1;
    } else {
        delsum -= (month * 4 + 23) / 10;
    }
    let temp = ((year / 100 + 1) * 3) / 4;
    delsum + year / 4 - temp
}

const DAYS_IN_MONTH_NON_LEAP: [u32; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/// MariaDB's `get_date_from_daynr`. None outside [366, MAX_DAY_NUMBER] (MariaDB returns the
/// zero date there).
pub fn date_from_daynr(daynr: i64) -> Option<(u32, u32, u32)> {
    if !(366..=MAX_DAY_NUMBER).contains(&daynr) {
        return None;
    }
    let mut year = (daynr * 100 / 36525) as u32;
    let temp = (((year as i64 - 1) / 100 + 1) * 3) / 4;
    let mut day_of_year = daynr - year as i64 * 365 - (year as i64 - 1) / 4 + temp;
    loop {
        let diy = days_in_year(year);
        if day_of_year <= diy {
            break;
        }
        day_of_year -= diy;
        year += 1;
    }
    let mut leap_day = 0;
    if days_in_year(year) == 366 && day_of_year > 31 + 28 {
        day_of_year -= 1;
        if day_of_year == 31 + 28 {
            leap_day = 1;
        }
    }
    let mut month = 1;
    for &dim in DAYS_IN_MONTH_NON_LEAP.iter() {
        if day_of_year <= dim as i64 {
            break;
        }
        day_of_year -= dim as i64;
        month += 1;
    }
    Some((year, month, day_of_year as u32 + leap_day))
}

/// 0 = Monday .. 6 = Sunday, or 0 = Sunday .. 6 = Saturday when `sunday_first`.
pub fn calc_weekday(daynr: i64, sunday_first: bool) -> u32 {
    ((daynr + 5 + sunday_first as i64) % 7) as u32
}

const WEEK_MONDAY_FIRST: u32 = 1;
const WEEK_YEAR: u32 = 2;
const WEEK_FIRST_WEEKDAY: u32 = 4;

/// WEEK()'s mode argument turned into behaviour flags (MariaDB `week_mode`).
pub fn week_mode(mode: u32) -> u32 {
    let mut f = mode & 7;
    if f & WEEK_MONDAY_FIRST == 0 {
        f ^= WEEK_FIRST_WEEKDAY;
    }
    f
}

/// MariaDB's `calc_week`: (week number, year the week belongs to).
pub fn calc_week(c: &Civil, behaviour: u32) -> (u32, u32) {
    let daynr = c.daynr();
    let mut first_daynr = calc_daynr(c.year, 1, 1);
    let monday_first = behaviour & WEEK_MONDAY_FIRST != 0;
    let mut week_year = behaviour & WEEK_YEAR != 0;
    let first_weekday = behaviour & WEEK_FIRST_WEEKDAY != 0;
    let mut weekday = calc_weekday(first_daynr, !monday_first) as i64;
    let mut year = c.year;
    if c.month == 1 && (c.day as i64) <= 7 - weekday {
        if !week_year && ((first_weekday && weekday != 0) || (!first_weekday && weekday >= 4)) {
            return (0, year);
        }
        week_year = true;
        year = year.wrapping_sub(1);
        let days = days_in_year(year);
        first_daynr -= days;
        weekday = (weekday + 53 * 7 - days) % 7;
    }
    let days = if (first_weekday && weekday != 0) || (!first_weekday && weekday >= 4) {
        daynr - (first_daynr + (7 - weekday))
    } else {
        daynr - (first_daynr - weekday)
    };
    if week_year && days >= 52 * 7 {
        let weekday = (weekday + days_in_year(year)) % 7;
        if (!first_weekday && weekday < 4) || (first_weekday && weekday == 0) {
            return (1, year + 1);
        }
    }
    ((days / 7 + 1) as u32, year)
}

fn two_digit_year(y: u32) -> u32 {
    if y < TWO_DIGIT_YEAR_PIVOT {
        y + 2000
    } else {
        y + 1900
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/// A date/time read from a string or number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedTemporal {
    pub civil: Civil,
    /// The input had a time part (DATETIME rather than DATE).
    pub has_time: bool,
    /// Characters after the value were ignored (MariaDB warns, or errors in strict INSERT).
    pub truncated: bool,
}

fn is_delimiter(b: u8) -> bool {
    b.is_ascii_punctuation()
}

/// Reads up to `max` digits at `*i`; None if there is no digit.
fn read_digits(s: &[u8], i: &mut usize, max: usize) -> Option<(u32, usize)> {
    let start = *i;
    let mut v: u32 = 0;
    while *i < s.len() && *i - start < max && s[*i].is_ascii_digit() {
        v = v * 10 + (s[*i] - b'0') as u32;
        *i += 1;
    }
    if *i == start {
        None
    } else {
        Some((v, *i - start))
    }
}

/// Reads a fraction's digits as microseconds (first six digits, truncated).
fn read_fraction(s: &[u8], i: &mut usize) -> u32 {
    let mut micros = 0u32;
    let mut n = 0;
    while *i < s.len() && s[*i].is_ascii_digit() {
        if n < 6 {
            micros = micros * 10 + (s[*i] - b'0') as u32;
            n += 1;
        }
        *i += 1;
    }
    while n < 6 {
        micros *= 10;
        n += 1;
    }
    micros
}

fn skip_delimiters(s: &[u8], i: &mut usize) -> bool {
    let start = *i;
    while *i < s.len() && is_delimiter(s[*i]) {
        *i += 1;
    }
    *i > start
}

/// Parses the forms MariaDB accepts: 'YYYY-MM-DD', 'YY-M-D', any punctuation as delimiter,
/// 'YYYYMMDD', 'YYMMDD', 'YYYYMMDDhhmmss[.f]', 'YYMMDDhhmmss', and a time part after ' ' or 'T'
/// ('hh', 'hh:mm', 'hh:mm:ss[.ffffff]'). None if it is not a valid date/time.
pub fn parse_temporal(s: &[u8]) -> Option<ParsedTemporal> {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let digits_start = i;
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
    }
    let run = i - digits_start;
    let compact_end = i >= s.len() || is_space(s[i]) || s[i] == b'.';
    let mut c = Civil::default();
    let has_time;
    if compact_end && matches!(run, 6 | 8 | 12 | 14) {
        let d = &s[digits_start..i];
        let num = |a: usize, b: usize| d[a..b].iter().fold(0u32, |v, &x| v * 10 + (x - b'0') as u32);
        let year_len = if run == 8 || run == 14 { 4 } else { 2 };
        c.year = num(0, year_len);
        if year_len == 2 {
            c.year = two_digit_year(c.year);
        }
        c.month = num(year_len, year_len + 2);
        c.day = num(year_len + 2, year_len + 4);
        has_time = run >= 12;
        if has_time {
            let t = year_len + 4;
            c.hour = num(t, t + 2);
            c.minute = num(t + 2, t + 4);
            c.second = num(t + 4, t + 6);
            if i < s.len() && s[i] == b'.' {
                i += 1;
                c.micros = read_fraction(s, &mut i);
            }
        }
    } else {
        i = digits_start;
        let (year, year_len) = read_digits(s, &mut i, 4)?;
        c.year = if year_len <= 2 { two_digit_year(year) } else { year };
        if !skip_delimiters(s, &mut i) {
            return None;
        }
        c.month = read_digits(s, &mut i, 2)?.0;
        if !skip_delimiters(s, &mut i) {
            return None;
        }
        c.day = read_digits(s, &mut i, 2)?.0;
        // Optional time part after 'T' or whitespace.
        let mut j = i;
        if j < s.len() && s[j] == b'T' {
            j += 1;
        } else {
            while j < s.len() && is_space(s[j]) {
                j += 1;
            }
        }
        let mut t = j;
        if j > i && j < s.len() && s[j].is_ascii_digit() {
            c.hour = read_digits(s, &mut t, 2)?.0;
            let mut k = t;
            // Any delimiter separates hour, minute and second ('03.04.05' too); a '.' after the
            // seconds starts the fraction.
            if k < s.len() && is_delimiter(s[k]) {
                k += 1;
                if let Some((m, _)) = read_digits(s, &mut k, 2) {
                    c.minute = m;
                    t = k;
                    if k < s.len() && is_delimiter(s[k]) {
                        k += 1;
                        if let Some((sec, _)) = read_digits(s, &mut k, 2) {
                            c.second = sec;
                            t = k;
                            if t + 1 < s.len() && s[t] == b'.' && s[t + 1].is_ascii_digit() {
                                t += 1;
                                c.micros = read_fraction(s, &mut t);
                            }
                        }
                    }
                }
            }
            i = t;
            has_time = true;
        } else {
            has_time = false;
        }
    }
    if !c.is_valid() {
        return None;
    }
    let truncated = !s[i..].iter().all(|&b| is_space(b));
    Some(ParsedTemporal { civil: c, has_time, truncated })
}

/// MariaDB's `number_to_datetime`: 20240102, 240102, 20240102030405, 240102030405, 0.
pub fn number_to_temporal(nr: i64, micros: u32) -> Option<ParsedTemporal> {
    const YY: i64 = TWO_DIGIT_YEAR_PIVOT as i64;
    if nr == 0 && micros == 0 {
        return Some(ParsedTemporal { civil: Civil::default(), has_time: false, truncated: false });
    }
    if nr < 101 {
        return None;
    }
    let mut has_time = false;
    let full = if nr <= (YY - 1) * 10_000 + 1231 {
        (nr + 20_000_000) * 1_000_000
    } else if nr < YY * 10_000 + 101 {
        return None;
    } else if nr <= 991_231 {
        (nr + 19_000_000) * 1_000_000
    } else if nr < 10_000_101 {
        return None;
    } else if nr <= 99_991_231 {
        nr * 1_000_000
    } else if nr < 101_000_000 {
        return None;
    } else {
        has_time = true;
        if nr <= (YY - 1) * 10_000_000_000 + 1_231_235_959 {
            nr + 20_000_000_000_000
        } else if nr < YY * 10_000_000_000 + 101_000_000 {
            return None;
        } else if nr <= 991_231_235_959 {
            nr + 19_000_000_000_000
        } else if nr <= 99_991_231_235_959 {
            nr
        } else {
            return None;
        }
    };
    let date_part = full / 1_000_000;
    let time_part = full % 1_000_000;
    let c = Civil {
        year: (date_part / 10_000) as u32,
        month: (date_part / 100 % 100) as u32,
        day: (date_part % 100) as u32,
        hour: (time_part / 10_000) as u32,
        minute: (time_part / 100 % 100) as u32,
        second: (time_part % 100) as u32,
        micros,
    };
    if !c.is_valid() {
        return None;
    }
    Some(ParsedTemporal { civil: c, has_time: has_time || micros != 0, truncated: false })
}

/// Lossy text of a value for warning messages.
pub fn warn_text(v: &Value) -> String {
    match super::format::to_text_bytes(v) {
        // Bytes that are not text show as MariaDB's err_conv shows a binary string ('\xFF\x00').
        Some(b) => super::format::shown_bytes(&b),
        None => "NULL".to_string(),
    }
}

/// Any value as a date/time without warnings: strings by `parse_temporal`, numbers by
/// `number_to_temporal`. None for NULL and for values that are not dates.
pub fn temporal_of(v: &Value) -> Option<ParsedTemporal> {
    match v {
        Value::Null => None,
        Value::Date(d) => Some(ParsedTemporal { civil: Civil::from_date(*d), has_time: false, truncated: false }),
        Value::DateTime(dt) => {
            Some(ParsedTemporal { civil: Civil::from_datetime(*dt), has_time: true, truncated: false })
        }
        Value::Bytes(b) => parse_temporal(b),
        Value::Int(i) => number_to_temporal(*i, 0),
        Value::UInt(u) => i64::try_from(*u).ok().and_then(|n| number_to_temporal(n, 0)),
        Value::Decimal(d) => {
            // Beyond i128 (or negative) it is no date.
            let m = d.mantissa_i128().filter(|m| *m >= 0)?;
            let unit = 10i128.pow(d.scale as u32);
            let int = i64::try_from(m / unit).ok()?;
            let frac = (m % unit) as u128;
            let micros = if d.scale <= 6 {
                frac * 10u128.pow(6 - d.scale as u32)
            } else {
                frac / 10u128.pow(d.scale as u32 - 6)
            };
            number_to_temporal(int, micros as u32)
        }
        Value::Double(x) => {
            if !(0.0..1e15).contains(x) {
                return None;
            }
            let int = x.trunc();
            let micros = ((x - int) * 1e6).round().min(999_999.0) as u32;
            number_to_temporal(int as i64, micros)
        }
    }
}

/// Any value as a date/time, as temporal functions read their arguments: like `temporal_of`, and
/// warns 1292 for values that are not dates or have trailing characters.
pub fn value_to_temporal(v: &Value, ctx: &dyn FnContext) -> Option<ParsedTemporal> {
    let parsed = temporal_of(v);
    match (&parsed, v) {
        (_, Value::Null) => {}
        (None, _) => ctx.warn(1292, format!("Incorrect datetime value: '{}'", warn_text(v))),
        (Some(p), Value::Bytes(b)) if p.truncated => {
            ctx.warn(1292, format!("Truncated incorrect datetime value: '{}'", String::from_utf8_lossy(b)))
        }
        _ => {}
    }
    parsed
}

// ---------------------------------------------------------------------------------------------
// Clock
// ---------------------------------------------------------------------------------------------

/// Broken-down local time (system time zone) of a Unix time, or None if out of range.
pub fn local_from_epoch(secs: i64, micros: u32) -> Option<Civil> {
    let t = secs as libc::time_t;
    // SAFETY: `tm` is plain data; zeroed is a valid value for every field (pointer fields null).
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the duration of the call; localtime_r is thread-safe
    // and writes only into `tm`.
    let r = unsafe { libc::localtime_r(&t, &mut tm) };
    if r.is_null() {
        return None;
    }
    let c = Civil {
        year: u32::try_from(tm.tm_year + 1900).ok()?,
        month: (tm.tm_mon + 1) as u32,
        day: tm.tm_mday as u32,
        hour: tm.tm_hour as u32,
        minute: tm.tm_min as u32,
        // A leap second (60) is folded into 59 as MariaDB does.
        second: (tm.tm_sec as u32).min(59),
        micros,
    };
    if c.is_valid() {
        Some(c)
    } else {
        None
    }
}

/// Unix time of a local wall-clock time (system time zone), or None if it cannot be converted.
pub fn epoch_from_local(c: &Civil) -> Option<i64> {
    if !c.has_full_date() || c.year < 1900 {
        return None;
    }
    // SAFETY: see local_from_epoch.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    tm.tm_year = c.year as i32 - 1900;
    tm.tm_mon = c.month as i32 - 1;
    tm.tm_mday = c.day as i32;
    tm.tm_hour = c.hour as i32;
    tm.tm_min = c.minute as i32;
    tm.tm_sec = c.second as i32;
    tm.tm_isdst = -1;
    // SAFETY: `tm` is a valid, initialized struct; mktime reads and normalizes it in place.
    let t = unsafe { libc::mktime(&mut tm) };
    if t == -1 {
        // -1 is also 1969-12-31 23:59:59 UTC, outside every range we use.
        return None;
    }
    Some(t as i64)
}

/// UTC broken-down time of a Unix time.
pub fn utc_from_epoch(secs: i64, micros: u32) -> Option<Civil> {
    let days = secs.div_euclid(SECONDS_PER_DAY);
    let sod = secs.rem_euclid(SECONDS_PER_DAY) as u32;
    let (year, month, day) = date_from_daynr(EPOCH_DAY_NUMBER + days)?;
    Some(Civil { year, month, day, hour: sod / 3600, minute: sod / 60 % 60, second: sod % 60, micros })
}

/// Current Unix time in seconds and microseconds.
pub fn epoch_now() -> (i64, u32) {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    (d.as_secs() as i64, d.subsec_micros())
}

pub fn now_local() -> DateTime {
    let (secs, micros) = epoch_now();
    match local_from_epoch(secs, micros).or_else(|| utc_from_epoch(secs, micros)) {
        Some(c) => c.datetime(),
        None => DateTime(0),
    }
}

/// The wall-clock time in `tz` of a Unix time; None if out of range.
pub fn civil_of_epoch(tz: TimeZone, secs: i64, micros: u32) -> Option<Civil> {
    match tz {
        TimeZone::System => local_from_epoch(secs, micros),
        TimeZone::Offset(o) => utc_from_epoch(secs + i64::from(o), micros),
        TimeZone::Named(z) => utc_from_epoch(secs + i64::from(z.offset_at(secs)?), micros),
    }
}

/// The Unix time of a wall-clock time in `tz` (a named zone resolves gaps and overlaps as
/// MariaDB does); None if it cannot be converted.
pub fn epoch_of_civil(tz: TimeZone, c: &Civil) -> Option<i64> {
    match tz {
        TimeZone::System => epoch_from_local(c),
        TimeZone::Offset(o) => Some(utc_epoch_of(c)? - i64::from(o)),
        TimeZone::Named(z) => z.utc_of_local(utc_epoch_of(c)?),
    }
}

/// A wall-clock time read as UTC, in seconds since the epoch.
fn utc_epoch_of(c: &Civil) -> Option<i64> {
    if !c.has_full_date() {
        return None;
    }
    let days = calc_daynr(c.year, c.month, c.day) - EPOCH_DAY_NUMBER;
    Some(days * SECONDS_PER_DAY + c.seconds_of_day())
}

/// NOW() for a session: `fixed` (seconds since the epoch, from `SET timestamp`) or the clock,
/// in the session's time zone.
pub fn session_now(fixed: Option<selkie_storage::Decimal>, tz: TimeZone) -> DateTime {
    let (secs, micros) = match fixed.and_then(|d| d.rescale(6)) {
        Some(d) => {
            let total = d.mantissa_saturating();
            let secs = i64::try_from(total.div_euclid(1_000_000)).unwrap_or(0);
            (secs, total.rem_euclid(1_000_000) as u32)
        }
        None => epoch_now(),
    };
    let civil = civil_of_epoch(tz, secs, micros).or_else(|| utc_from_epoch(secs, micros));
    civil.map_or(DateTime(0), |c| c.datetime())
}

/// Truncates microseconds to `fsp` digits.
pub fn truncate_micros(micros: u32, fsp: u8) -> u32 {
    let fsp = fsp.min(6) as u32;
    let unit = 10u32.pow(6 - fsp);
    micros / unit * unit
}

// ---------------------------------------------------------------------------------------------
// Interval arithmetic
// ---------------------------------------------------------------------------------------------

/// DATE_ADD core on a broken-down time. None = out of range.
pub fn add_interval(c: &Civil, n: i128, unit: IntervalUnit) -> Option<Civil> {
    let per_unit_micros: i128 = match unit {
        IntervalUnit::Microsecond => 1,
        IntervalUnit::Second => 1, // amount already in microseconds
        IntervalUnit::Minute => 60 * MICROS_PER_SECOND as i128,
        IntervalUnit::Hour => 3600 * MICROS_PER_SECOND as i128,
        IntervalUnit::Day => SECONDS_PER_DAY as i128 * MICROS_PER_SECOND as i128,
        IntervalUnit::Week => 7 * SECONDS_PER_DAY as i128 * MICROS_PER_SECOND as i128,
        IntervalUnit::Month | IntervalUnit::Quarter | IntervalUnit::Year => {
            let months_per_unit = match unit {
                IntervalUnit::Month => 1,
                IntervalUnit::Quarter => 3,
                _ => 12,
            };
            let total = (c.year as i128 * 12 + c.month as i128 - 1).checked_add(n.checked_mul(months_per_unit)?)?;
            if !(0..(MAX_YEAR as i128 + 1) * 12).contains(&total) {
                return None;
            }
            let year = (total / 12) as u32;
            let month = (total % 12) as u32 + 1;
            let day = c.day.min(days_in_month(year, month));
            return Some(Civil { year, month, day, ..*c });
        }
    };
    let total = c.total_micros().checked_add(n.checked_mul(per_unit_micros)?)?;
    Civil::from_total_micros(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<(String, bool, bool)> {
        parse_temporal(s.as_bytes()).map(|t| (t.civil.datetime().format(6), t.has_time, t.truncated))
    }

    #[test]
    fn parses_mariadb_forms() {
        // Accepted forms checked against MariaDB 10.11 (INSERT into DATE/DATETIME columns).
        let ok = |s: &str, want: &str| assert_eq!(p(s).map(|x| x.0), Some(want.to_string()), "{s}");
        ok("2024-01-02", "2024-01-02 00:00:00.000000");
        ok("2024-1-2", "2024-01-02 00:00:00.000000");
        ok("24-01-02", "2024-01-02 00:00:00.000000");
        ok("99-01-02 03:04:05", "1999-01-02 03:04:05.000000");
        ok("2024/01/02", "2024-01-02 00:00:00.000000");
        ok("20240102", "2024-01-02 00:00:00.000000");
        ok("240102", "2024-01-02 00:00:00.000000");
        ok("2024-01-02T03:04:05", "2024-01-02 03:04:05.000000");
        ok("2024-01-02 3:4:5", "2024-01-02 03:04:05.000000");
        ok("20240102030405", "2024-01-02 03:04:05.000000");
        ok("2024-01-02 03:04", "2024-01-02 03:04:00.000000");
        ok("2024-01-02 03", "2024-01-02 03:00:00.000000");
        ok(" 2024-01-02 ", "2024-01-02 00:00:00.000000");
        ok("2024.01.02 03.04.05", "2024-01-02 03:04:05.000000");
        ok("2024-01-02 03:04:05.123", "2024-01-02 03:04:05.123000");
        ok("2024-01-02 03:04:05.1234567", "2024-01-02 03:04:05.123456");
        ok("2024-00-00", "2024-00-00 00:00:00.000000");
        ok("0000-00-00", "0000-00-00 00:00:00.000000");
        assert_eq!(p("2024-01-02 03:04:05x").map(|x| x.2), Some(true));
        assert_eq!(p("2024-01-02x").map(|x| (x.1, x.2)), Some((false, true)));
        for bad in ["2024-02-30", "abc", "", "2024-13-01", "2024-01-02 25:00:00", "1.5", "2024"] {
            assert_eq!(p(bad), None, "{bad}");
        }
    }

    #[test]
    fn numbers_to_dates() {
        let n = |x: i64| number_to_temporal(x, 0).map(|t| t.civil.datetime().format(0));
        assert_eq!(n(20240102).as_deref(), Some("2024-01-02 00:00:00"));
        assert_eq!(n(700101).as_deref(), Some("1970-01-01 00:00:00"));
        assert_eq!(n(691231).as_deref(), Some("2069-12-31 00:00:00"));
        assert_eq!(n(20240102030405).as_deref(), Some("2024-01-02 03:04:05"));
        assert_eq!(n(0).as_deref(), Some("0000-00-00 00:00:00"));
        assert_eq!(n(99), None);
        assert_eq!(n(20241301), None);
    }

    #[test]
    fn daynr_matches_mariadb() {
        // TO_DAYS / FROM_DAYS values checked against MariaDB 10.11.
        assert_eq!(calc_daynr(2024, 1, 1), 739251);
        assert_eq!(calc_daynr(1970, 1, 1), EPOCH_DAY_NUMBER);
        assert_eq!(calc_daynr(0, 1, 1), 1);
        assert_eq!(date_from_daynr(700000), Some((1916, 7, 15)));
        assert_eq!(date_from_daynr(MAX_DAY_NUMBER), Some((9999, 12, 31)));
        assert_eq!(date_from_daynr(365), None);
        for daynr in (366..MAX_DAY_NUMBER).step_by(997) {
            let (y, m, d) = date_from_daynr(daynr).unwrap();
            assert_eq!(calc_daynr(y, m, d), daynr);
        }
        // 2024-02-29 round trip through the leap-day branch.
        let leap = calc_daynr(2024, 2, 29);
        assert_eq!(date_from_daynr(leap), Some((2024, 2, 29)));
        assert_eq!(date_from_daynr(leap + 1), Some((2024, 3, 1)));
    }

    #[test]
    fn weeks_match_mariadb() {
        let c = |y, m, d| Civil { year: y, month: m, day: d, ..Civil::default() };
        // WEEK(d, 0) and WEEK(d, 3) checked against MariaDB 10.11.
        assert_eq!(calc_week(&c(2024, 1, 1), week_mode(0)).0, 0);
        assert_eq!(calc_week(&c(2024, 1, 7), week_mode(0)).0, 1);
        assert_eq!(calc_week(&c(2024, 12, 31), week_mode(0)).0, 52);
        assert_eq!(calc_week(&c(2021, 1, 1), week_mode(3)), (53, 2020));
        assert_eq!(calc_week(&c(2024, 12, 30), week_mode(3)), (1, 2025));
    }

    #[test]
    fn interval_month_end_clamping() {
        let c = Civil { year: 2024, month: 1, day: 31, ..Civil::default() };
        let r = add_interval(&c, 1, IntervalUnit::Month).unwrap();
        assert_eq!((r.year, r.month, r.day), (2024, 2, 29));
        let r = add_interval(&Civil { year: 2024, month: 2, day: 29, ..c }, 1, IntervalUnit::Year).unwrap();
        assert_eq!((r.year, r.month, r.day), (2025, 2, 28));
        let r = add_interval(&Civil { year: 2024, month: 3, day: 31, ..c }, -1, IntervalUnit::Quarter).unwrap();
        assert_eq!((r.year, r.month, r.day), (2023, 12, 31));
        let r = add_interval(&Civil { year: 2024, month: 1, day: 1, ..c }, -1, IntervalUnit::Microsecond).unwrap();
        assert_eq!(r.datetime().format(6), "2023-12-31 23:59:59.999999");
        assert!(add_interval(&Civil { year: 9999, month: 12, day: 31, ..c }, 1, IntervalUnit::Day).is_none());
    }

    #[test]
    fn clock_round_trips_through_local_time() {
        let (secs, _) = epoch_now();
        let c = local_from_epoch(secs, 0).unwrap();
        assert_eq!(epoch_from_local(&c), Some(secs));
        assert_eq!(utc_from_epoch(0, 0).unwrap().datetime().format(0), "1970-01-01 00:00:00");
        assert_eq!(utc_from_epoch(1704067200, 0).unwrap().datetime().format(0), "2024-01-01 00:00:00");
    }
}
