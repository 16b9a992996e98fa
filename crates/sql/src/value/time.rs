//! TIME values: MariaDB's TIME literals and numbers read as TIME, the ±838:59:59 range, and
//! the canonical text (`[-]HH:MM:SS[.f]`, `fsp` digits) that TIME values are in this layer.
//! Used by assignment to TIME columns, CAST(x AS TIME) and the comparisons the binder makes
//! of TIME operands (`TimeMicros`, so that '9:00' < '10:00' and -1:00 < 0:00 hold).

use selkie_storage::Decimal;

use crate::types::Value;

/// Largest TIME magnitude: 838:59:59 (MariaDB's TIME_MAX_VALUE), in microseconds.
pub const TIME_MAX_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000 + 999_999;
const TIME_MAX_SECONDS_MICROS: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000;

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
    // Beyond i128 it is no time.
    let m = d.mantissa_i128()?;
    let neg = m < 0;
    // Truncated, not rounded: the fraction is the microseconds.
    let whole = m.unsigned_abs() / 10u128.pow(d.scale as u32);
    let whole = i128::try_from(whole).ok()?;
    let frac_micros = {
        let f = Decimal::new((m.unsigned_abs() % 10u128.pow(d.scale as u32)) as i128, d.scale);
        f.rescale(6).map_or(0, |x| x.mantissa_saturating().min(999_999)) as i64
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

/// A value as TIME in microseconds (for comparisons), clipped to the TIME range; None when it
/// is not a time.
pub fn time_micros(v: &Value) -> Option<i64> {
    match time(v, 6) {
        (_, Some(StoreIssue::Truncated | StoreIssue::NotANumber)) => None,
        (Value::Bytes(b), _) => parse_time(&b).map(|(m, _)| m),
        _ => None,
    }
}

/// A TIME as a number, as MariaDB's `t + 0`: HHMMSS, with `fsp` decimals when it has them.
pub fn time_number(v: &Value, fsp: u8) -> Option<Value> {
    let micros = time_micros(v)?;
    let secs = micros.abs() / 1_000_000;
    let hhmmss = (secs / 3600) * 10_000 + (secs / 60 % 60) * 100 + secs % 60;
    let sign = if micros < 0 { -1 } else { 1 };
    if fsp == 0 {
        return Some(Value::Int(sign * hhmmss));
    }
    let frac = (micros.abs() % 1_000_000) as i128 / 10i128.pow(6 - fsp.min(6) as u32);
    let mantissa = hhmmss as i128 * 10i128.pow(fsp as u32) + frac;
    Some(Value::Decimal(Decimal::new(sign as i128 * mantissa, fsp)))
}
