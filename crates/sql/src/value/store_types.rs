//! Assignment to the column types MariaDB has beyond numbers, strings and dates: YEAR, TIME,
//! ENUM, SET and JSON, with MariaDB 10.11's conversions, clipping and messages (checked by
//! inserting into test tables under `sql_mode=''` and `'STRICT_TRANS_TABLES'`).
//!
//! TIME values are canonical text (`[-]HH:MM:SS[.f]`, `fsp` digits) and ENUM/SET values their
//! text: the rest of the value layer sees strings, as it already does for TIME results.

use selkie_storage::Decimal;

use super::cast::decimal_to_i128;
use super::datetime::{temporal_of, warn_text};
use super::num::{lex_number, NumQuality};
use crate::types::Value;

/// Largest TIME magnitude: 838:59:59 (MariaDB's TIME_MAX_VALUE), in microseconds.
pub const TIME_MAX_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000 + 999_999;
const TIME_MAX_SECONDS_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000;
/// YEAR's range besides 0 (0000).
const YEAR_MIN: i128 = 1901;
const YEAR_MAX: i128 = 2155;
/// Two-digit years below this are 20xx, the others 19xx (MariaDB's YY_PART_YEAR).
const YY_PART_YEAR: i128 = 70;

/// What went wrong storing a value; the caller turns it into MariaDB's error or warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreIssue {
    /// 1264 (non-strict: the clipped value is stored).
    OutOfRange,
    /// 1265 (strict: 1292 for TIME, 1265 for ENUM/SET).
    Truncated,
    /// No value at all ('abc' into YEAR: 1366 "Incorrect integer value").
    NotANumber,
}

/// YEAR: `(stored, issue)`. Integers 1..=69 are 20xx, 70..=99 19xx, 0 is 0000; strings '0' and
/// '00' are 2000 (only '0000' is 0000); outside 1901..=2155 is 0000 with 1264.
pub fn year(v: &Value) -> (Value, Option<StoreIssue>) {
    let (n, from_text_len, issue) = match v {
        Value::Int(i) => (*i as i128, None, None),
        Value::UInt(u) => (*u as i128, None, None),
        Value::Double(x) => (x.round_ties_even() as i128, None, None),
        Value::Decimal(d) => (decimal_to_i128(*d), None, None),
        Value::Bytes(b) => {
            let l = lex_number(b);
            if l.quality == NumQuality::NotANumber {
                return (Value::UInt(0), Some(StoreIssue::NotANumber));
            }
            let issue = (l.quality == NumQuality::Truncated).then_some(StoreIssue::Truncated);
            let n = l.to_decimal().map(decimal_to_i128).unwrap_or(i128::MAX);
            let len = String::from_utf8_lossy(b).trim().len();
            (n, Some(len), issue)
        }
        Value::Date(_) | Value::DateTime(_) => match temporal_of(v) {
            Some(p) => (p.civil.year as i128, None, Some(StoreIssue::Truncated)),
            None => (0, None, Some(StoreIssue::Truncated)),
        },
        Value::Null => (0, None, None),
    };
    if n < 0 || (100..=YEAR_MIN - 1).contains(&n) || n > YEAR_MAX {
        return (Value::UInt(0), Some(StoreIssue::OutOfRange));
    }
    let mut n = n;
    if n != 0 || from_text_len.is_some_and(|len| len != 4) {
        if n < YY_PART_YEAR {
            n += 100;
        }
        if n <= 1900 {
            n += 1900;
        }
    }
    (Value::UInt(n as u64), issue)
}

/// TIME(fsp) text of a signed number of microseconds.
pub fn format_time(micros: i64, fsp: u8) -> String {
    let sign = if micros < 0 { "-" } else { "" };
    let m = micros.unsigned_abs();
    let secs = m / 1_000_000;
    let mut s = format!("{sign}{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    if fsp > 0 {
        let frac = format!("{:06}", m % 1_000_000);
        s.push('.');
        s.push_str(&frac[..fsp.min(6) as usize]);
    }
    s
}

/// Reads `[-][D ]H[H..]:MM[:SS][.f]`, `[-]HHMMSS[.f]` (and shorter: MMSS, SS), or a datetime
/// ('2024-01-02 03:04:05': its time). Returns (micros, trailing garbage) or None.
pub fn parse_time(text: &[u8]) -> Option<(i64, bool)> {
    let s = std::str::from_utf8(text).ok()?.trim();
    if s.is_empty() {
        return None;
    }
    // A datetime: its time of day (MariaDB only notes the dropped date).
    if s.len() >= 10 && s.as_bytes()[4] == b'-' {
        let p = super::datetime::parse_temporal(s.as_bytes())?;
        if p.has_time {
            let c = p.civil;
            return Some(((c.seconds_of_day() as i64) * 1_000_000 + c.micros as i64, p.truncated));
        }
        return Some((0, p.truncated));
    }
    let (neg, body) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let b = body.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| -> Option<u64> {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        (*i > start).then(|| body[start..*i].parse().unwrap_or(u64::MAX))
    };
    let first = digits(&mut i)?;
    let (mut days, mut m, mut sec) = (0u64, 0u64, 0u64);
    let h;
    if i < b.len() && b[i] == b' ' && b.get(i + 1).is_some_and(|c| c.is_ascii_digit()) {
        days = first;
        i += 1;
        h = digits(&mut i)?;
        if i < b.len() && b[i] == b':' {
            i += 1;
            m = digits(&mut i)?;
            if i < b.len() && b[i] == b':' {
                i += 1;
                sec = digits(&mut i)?;
            }
        }
    } else if i < b.len() && b[i] == b':' {
        h = first;
        i += 1;
        m = digits(&mut i)?;
        if i < b.len() && b[i] == b':' {
            i += 1;
            sec = digits(&mut i)?;
        }
    } else {
        // HHMMSS, MMSS or SS.
        h = first / 10_000;
        m = first / 100 % 100;
        sec = first % 100;
    }
    let mut micros = 0u64;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let frac = &body[start..i];
        let six: String = frac.chars().chain(std::iter::repeat('0')).take(6).collect();
        micros = six.parse().unwrap_or(0);
    }
    if m > 59 || sec > 59 {
        return None;
    }
    let total_secs = days.checked_mul(24)?.checked_add(h)?.checked_mul(3600)?.checked_add(m * 60 + sec)?;
    let total = (total_secs.min(u64::MAX / 2_000_000) * 1_000_000 + micros).min(i64::MAX as u64) as i64;
    Some((if neg { -total } else { total }, i < b.len()))
}

/// A number as TIME: [-]HHMMSS[.ffffff]. None when minutes or seconds exceed 59.
fn number_time(d: Decimal) -> Option<i64> {
    let neg = d.mantissa < 0;
    // Truncated, not rounded: the fraction is the microseconds.
    let whole = d.mantissa.abs() / 10i128.pow(d.scale as u32);
    let frac_micros = {
        let f = Decimal::new(d.mantissa.abs() % 10i128.pow(d.scale as u32), d.scale);
        f.rescale(6).map_or(0, |x| x.mantissa.min(999_999)) as i64
    };
    let (h, m, s) = (whole / 10_000, whole / 100 % 100, whole % 100);
    if m > 59 || s > 59 {
        return None;
    }
    let total = ((h * 3600 + m * 60 + s).min(i64::MAX as i128 / 2_000_000) as i64) * 1_000_000 + frac_micros;
    Some(if neg { -total } else { total })
}

/// TIME(fsp): (text, issue). Beyond ±838:59:59 clips with 1264; unreadable is 00:00:00 with
/// 1265; extra fractional digits are cut (MariaDB truncates unless TIME_ROUND_FRACTIONAL).
pub fn time(v: &Value, fsp: u8) -> (Value, Option<StoreIssue>) {
    let parsed: Option<(i64, bool)> = match v {
        Value::Bytes(b) => parse_time(b),
        Value::Int(i) => number_time(Decimal::new(*i as i128, 0)).map(|t| (t, false)),
        Value::UInt(u) => number_time(Decimal::new(*u as i128, 0)).map(|t| (t, false)),
        Value::Decimal(d) => number_time(*d).map(|t| (t, false)),
        Value::Double(x) => Decimal::parse(&format!("{x:.6}")).and_then(number_time).map(|t| (t, false)),
        Value::Date(_) => Some((0, false)),
        Value::DateTime(dt) => {
            Some((((dt.hour() * 3600 + dt.minute() * 60 + dt.second()) as i64) * 1_000_000 + dt.micros() as i64, false))
        }
        Value::Null => None,
    };
    let Some((micros, trailing)) = parsed else {
        return (Value::Bytes(format_time(0, fsp).into_bytes()), Some(StoreIssue::Truncated));
    };
    let unit = 10i64.pow(6 - fsp.min(6) as u32);
    let micros = micros / unit * unit;
    if micros.abs() > TIME_MAX_MICROS {
        let max = TIME_MAX_SECONDS_MICROS + (999_999 / unit * unit);
        let clipped = if micros < 0 { -max } else { max };
        return (Value::Bytes(format_time(clipped, fsp).into_bytes()), Some(StoreIssue::OutOfRange));
    }
    (Value::Bytes(format_time(micros, fsp).into_bytes()), trailing.then_some(StoreIssue::Truncated))
}

/// ENUM: the declared value (compared as the column's binary collation does, trailing spaces
/// ignored: Selkie compares strings as utf8mb4_bin), or a 1-based index given as a number;
/// anything else is '' with 1265.
pub fn enum_value(v: &Value, values: &[String]) -> (Value, Option<StoreIssue>) {
    let found = match v {
        Value::Bytes(b) => {
            let s = String::from_utf8_lossy(b);
            let s = s.trim_end_matches(' ');
            values.iter().position(|x| x.trim_end_matches(' ') == s)
        }
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) => {
            let n = super::cast::to_i64(v).unwrap_or(0);
            // Index 0 is the '' of an invalid value: stored, with 1265 like any other miss.
            usize::try_from(n - 1).ok().filter(|i| *i < values.len())
        }
        _ => None,
    };
    match found {
        Some(i) => (Value::Bytes(values[i].clone().into_bytes()), None),
        None => (Value::Bytes(Vec::new()), Some(StoreIssue::Truncated)),
    }
}

/// SET: comma-separated members (any order, repeats allowed; compared exactly, spaces
/// included, as MariaDB's find_set does under a binary collation) or a bitmask; stored in
/// declaration order. Unknown members are dropped with 1265.
pub fn set_value(v: &Value, values: &[String]) -> (Value, Option<StoreIssue>) {
    let mut mask: u64 = 0;
    let mut issue = None;
    match v {
        Value::Bytes(b) => {
            let s = String::from_utf8_lossy(b);
            if !s.is_empty() {
                for part in s.split(',') {
                    match values.iter().position(|x| x == part) {
                        Some(i) => mask |= 1 << i,
                        None => issue = Some(StoreIssue::Truncated),
                    }
                }
            }
        }
        _ => {
            let n = super::cast::to_u64(v).unwrap_or(0);
            let all = if values.len() >= 64 { u64::MAX } else { (1u64 << values.len()) - 1 };
            if n & !all != 0 {
                issue = Some(StoreIssue::Truncated);
            }
            mask = n & all;
        }
    }
    let members: Vec<&str> =
        values.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, v)| v.as_str()).collect();
    (Value::Bytes(members.join(",").into_bytes()), issue)
}

/// JSON: whether the text is valid JSON (JSON_VALID).
pub fn json_valid(b: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(b).is_ok()
}

/// "Incorrect time value" text of a value for 1292.
pub fn shown(v: &Value) -> String {
    warn_text(v)
}

/// The implicit default of an ENUM NOT NULL column: its first value.
pub fn enum_default(values: &[String]) -> Value {
    Value::Bytes(values.first().cloned().unwrap_or_default().into_bytes())
}

/// UUID text in MariaDB's form (lowercase, dashes at 8-4-4-4-12) from 32 hex digits, with or
/// without dashes between digit pairs. None if not a UUID.
pub fn canonical_uuid(text: &[u8]) -> Option<String> {
    let mut digits = Vec::with_capacity(32);
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        if c == b'-' && !digits.is_empty() && digits.len() % 2 == 0 && i + 1 < text.len() && text[i + 1] != b'-' {
            i += 1;
            continue;
        }
        if !c.is_ascii_hexdigit() {
            return None;
        }
        digits.push(c.to_ascii_lowercase());
        i += 1;
    }
    if digits.len() != 32 {
        return None;
    }
    let d = String::from_utf8(digits).ok()?;
    Some(format!("{}-{}-{}-{}-{}", &d[..8], &d[8..12], &d[12..16], &d[16..20], &d[20..]))
}

/// Dotted-quad INET4 text (no spaces, each part 0..=255). None if not an address.
pub fn canonical_inet4(text: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(text).ok()?;
    s.parse::<std::net::Ipv4Addr>().ok().map(|a| a.to_string())
}

/// INET6 text in RFC 5952 form (what MariaDB prints: '2001:db8::1', '::ffff:1.2.3.4').
pub fn canonical_inet6(text: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(text).ok()?;
    s.parse::<std::net::Ipv6Addr>().ok().map(|a| a.to_string())
}
