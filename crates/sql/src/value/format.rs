//! Text forms of values exactly as MariaDB's text protocol sends them.
//!
//! DOUBLE uses the shortest digits that round-trip, laid out by MariaDB's `my_gcvt` rule:
//! positional notation unless the decimal exponent is beyond what 15 digits (DBL_DIG) show
//! (`1e15`, `1.234567890123456e15`) or the number is below 1e-15. FLOAT shows 6 significant
//! digits (FLT_DIG), as MariaDB prints FLOAT columns.

use std::io::Write;

use selkie_storage::{Date, DateTime, Decimal};

use super::kinds::SqlType;
use crate::types::Value;

/// `my_gcvt`'s DBL_DIG bound: a decimal exponent up to this prints positionally.
const MAX_DECPT_FOR_F_FORMAT: i32 = 15;
/// Significant digits MariaDB prints for FLOAT values (FLT_DIG).
const FLOAT_SIGNIFICANT_DIGITS: usize = 6;

/// Appends a decimal integer.
pub fn push_i64(v: i64, out: &mut Vec<u8>) {
    if v < 0 {
        out.push(b'-');
    }
    push_u64(v.unsigned_abs(), out);
}

pub fn push_u64(mut v: u64, out: &mut Vec<u8>) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

fn push_2(v: u32, out: &mut Vec<u8>) {
    debug_assert!(v < 100);
    out.push(b'0' + (v / 10) as u8);
    out.push(b'0' + (v % 10) as u8);
}

pub fn push_date(d: Date, out: &mut Vec<u8>) {
    let y = d.year();
    if y > 9999 {
        // Not a valid DATE (parsers reject it), but never print a wrong year.
        push_u64(y as u64, out);
    } else {
        push_2(y / 100, out);
        push_2(y % 100, out);
    }
    out.push(b'-');
    push_2(d.month() % 100, out);
    out.push(b'-');
    push_2(d.day() % 100, out);
}

/// 'YYYY-MM-DD hh:mm:ss' plus `fsp` fractional digits (0..=6).
pub fn push_datetime(dt: DateTime, fsp: u8, out: &mut Vec<u8>) {
    // Packed values are never negative; a corrupt one prints as the zero datetime.
    let dt = if dt.0 < 0 { DateTime(0) } else { dt };
    push_date(dt.date(), out);
    out.push(b' ');
    push_2(dt.hour(), out);
    out.push(b':');
    push_2(dt.minute(), out);
    out.push(b':');
    push_2(dt.second(), out);
    if fsp > 0 {
        out.push(b'.');
        let mut buf = [0u8; 6];
        let mut m = dt.micros();
        for slot in buf.iter_mut().rev() {
            *slot = b'0' + (m % 10) as u8;
            m /= 10;
        }
        out.extend_from_slice(&buf[..fsp.min(6) as usize]);
    }
}

pub fn push_decimal(d: Decimal, out: &mut Vec<u8>) {
    // Display of Decimal is exact; write! into a Vec cannot fail.
    let _ = write!(out, "{}", d);
}

/// Lays out significant `digits` (no leading zeros) with decimal exponent `exp`
/// (value = d.ddd × 10^exp) the way `my_gcvt` does.
fn push_gcvt(negative: bool, digits: &[u8], exp: i32, out: &mut Vec<u8>) {
    debug_assert!(!digits.is_empty() && digits[0] != b'0');
    let len = digits.len() as i32;
    let decpt = exp + 1;
    if negative {
        out.push(b'-');
    }
    let positional = decpt > -MAX_DECPT_FOR_F_FORMAT && (decpt <= MAX_DECPT_FOR_F_FORMAT || len > decpt);
    if positional {
        if decpt <= 0 {
            out.extend_from_slice(b"0.");
            out.extend(std::iter::repeat_n(b'0', (-decpt) as usize));
            out.extend_from_slice(digits);
        } else if decpt >= len {
            out.extend_from_slice(digits);
            out.extend(std::iter::repeat_n(b'0', (decpt - len) as usize));
        } else {
            out.extend_from_slice(&digits[..decpt as usize]);
            out.push(b'.');
            out.extend_from_slice(&digits[decpt as usize..]);
        }
    } else {
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        push_i64(exp as i64, out);
    }
}

/// Splits Rust's `{:e}` rendering ("1.2345e-7") into significant digits and exponent.
fn split_exponent_form(text: &str) -> (Vec<u8>, i32) {
    let (mantissa, exp) = text.split_once('e').unwrap_or((text, "0"));
    let mut digits: Vec<u8> = mantissa.bytes().filter(|b| b.is_ascii_digit()).collect();
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    (digits, exp.parse().unwrap_or(0))
}

/// DOUBLE as MariaDB prints it: shortest round-trip digits.
pub fn push_double(x: f64, out: &mut Vec<u8>) {
    if x == 0.0 || !x.is_finite() {
        // MariaDB never produces NaN/inf values; print them as 0 rather than panicking.
        out.push(b'0');
        return;
    }
    let text = format!("{:e}", x.abs());
    let (digits, exp) = split_exponent_form(&text);
    push_gcvt(x < 0.0, &digits, exp, out);
}

/// FLOAT as MariaDB prints it: 6 significant digits.
pub fn push_float(x: f64, out: &mut Vec<u8>) {
    if x == 0.0 || !x.is_finite() {
        out.push(b'0');
        return;
    }
    let text = format!("{:.*e}", FLOAT_SIGNIFICANT_DIGITS - 1, (x as f32 as f64).abs());
    let (digits, exp) = split_exponent_form(&text);
    push_gcvt(x < 0.0, &digits, exp, out);
}

/// An integer shown as a DECIMAL with a scale (IF(c, 1, 2.5) = 1.0) gets zero decimals.
fn push_zero_fraction(ty: Option<&SqlType>, out: &mut Vec<u8>) {
    if let Some(SqlType::Decimal { scale, .. }) = ty {
        if *scale > 0 {
            out.push(b'.');
            out.extend(std::iter::repeat_n(b'0', *scale as usize));
        }
    }
}

/// The value as text bytes (numbers formatted as MySQL prints them). None for NULL.
pub fn to_text_bytes(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Null => None,
        Value::Bytes(b) => Some(b.clone()),
        other => {
            let mut out = Vec::with_capacity(24);
            format_text(other, None, &mut out);
            Some(out)
        }
    }
}

/// A BIT(width) value as the text protocol sends it: ceil(width/8) bytes, big-endian.
pub fn push_bit_bytes(v: u64, width: u8, out: &mut Vec<u8>) {
    let n = usize::from(width).div_ceil(8).clamp(1, 8);
    out.extend_from_slice(&v.to_be_bytes()[8 - n..]);
}

/// See `super::format_text`.
pub fn format_text(v: &Value, ty: Option<&SqlType>, out: &mut Vec<u8>) {
    match v {
        Value::Null => {}
        Value::Int(i) => {
            push_i64(*i, out);
            push_zero_fraction(ty, out);
        }
        Value::UInt(u) => match ty {
            Some(SqlType::Bit { width }) => push_bit_bytes(*u, *width, out),
            _ => {
                push_u64(*u, out);
                push_zero_fraction(ty, out);
            }
        },
        Value::Double(x) => match ty {
            Some(SqlType::Float) => push_float(*x, out),
            _ => push_double(*x, out),
        },
        Value::Decimal(d) => {
            let shown = match ty {
                Some(SqlType::Decimal { scale, .. }) if *scale != d.scale => d.rescale(*scale).unwrap_or(*d),
                _ => *d,
            };
            push_decimal(shown, out);
        }
        Value::Bytes(b) => out.extend_from_slice(b),
        Value::Date(d) => push_date(*d, out),
        Value::DateTime(dt) => match ty {
            Some(SqlType::Date) => push_date(dt.date(), out),
            Some(SqlType::DateTime { fsp }) | Some(SqlType::Timestamp { fsp }) => push_datetime(*dt, *fsp, out),
            _ => push_datetime(*dt, if dt.micros() == 0 { 0 } else { 6 }, out),
        },
    }
}

/// A string as MariaDB quotes it in a conversion warning: text as it is; bytes that are not
/// UTF-8 or hold control characters (a binary string, in practice: values do not carry their
/// character set) with every byte outside printable ASCII as \xHH (X'C3A9FF41' + 0 warns
/// about '\xC3\xA9\xFFA', 1 = X'01' about '\x01').
pub fn shown_bytes(b: &[u8]) -> String {
    if let Ok(text) = std::str::from_utf8(b) {
        if !b.iter().any(|&c| c < 0x20) {
            return text.to_string();
        }
    }
    let mut out = String::with_capacity(b.len() * 2);
    for &c in b {
        if (0x20..0x7F).contains(&c) {
            out.push(c as char);
        } else {
            out.push_str(&format!("\\x{c:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dbl(x: f64) -> String {
        let mut o = Vec::new();
        push_double(x, &mut o);
        String::from_utf8(o).unwrap()
    }
    fn flt(x: f64) -> String {
        let mut o = Vec::new();
        push_float(x, &mut o);
        String::from_utf8(o).unwrap()
    }

    #[test]
    fn doubles_print_like_mariadb() {
        // Expected strings checked against MariaDB 10.11 (SELECT <literal>e0).
        let cases: &[(f64, &str)] = &[
            (0.1, "0.1"),
            (1e20, "1e20"),
            (1e15, "1e15"),
            (1e14, "100000000000000"),
            (1e16, "1e16"),
            (123456789012345.0, "123456789012345"),
            (1234567890123456.0, "1.234567890123456e15"),
            (12345678901234567.0, "1.2345678901234568e16"),
            (100.0, "100"),
            (1.5e-7, "0.00000015"),
            (0.0001, "0.0001"),
            (0.00001, "0.00001"),
            (-0.0, "0"),
            (1.0 / 3.0, "0.3333333333333333"),
            (2.0 / 3.0, "0.6666666666666666"),
            (1.7976931348623157e308, "1.7976931348623157e308"),
            (5e-324, "5e-324"),
            (123.456, "123.456"),
            (12345678.9, "12345678.9"),
            (1234567890123456.7, "1234567890123456.8"),
            (1.2345678901234567e-10, "0.00000000012345678901234568"),
            (1e-15, "0.000000000000001"),
            (1.5e-15, "0.0000000000000015"),
            (1.5e-100, "1.5e-100"),
            (-1.2345678901234567e-10, "-0.00000000012345678901234568"),
            (12345678901234567890.0, "1.2345678901234567e19"),
            (-123456789012345678.0, "-1.2345678901234568e17"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.23 % 0.5, "0.22999999999999998"),
            (0.1f32 as f64, "0.10000000149011612"),
        ];
        for (x, want) in cases {
            assert_eq!(dbl(*x), *want, "{x:e}");
        }
    }

    #[test]
    #[allow(clippy::approx_constant)] // 3.14159265 is the value inserted into MariaDB, not PI.
    fn floats_print_six_digits() {
        // FLOAT column values checked against MariaDB 10.11.
        let cases: &[(f64, &str)] = &[
            (0.1, "0.1"),
            (1e20, "1e20"),
            (123456789.0, "123457000"),
            (1.5e-7, "0.00000015"),
            (3.14159265, "3.14159"),
            (16777217.0, "16777200"),
            (1e-5, "0.00001"),
            (1234567.0, "1234570"),
            (0.000123, "0.000123"),
            (f32::MAX as f64, "3.40282e38"),
        ];
        for (x, want) in cases {
            assert_eq!(flt(*x), *want, "{x:e}");
        }
    }

    #[test]
    fn text_of_each_kind() {
        let f = |v: Value, ty: Option<SqlType>| {
            let mut o = Vec::new();
            format_text(&v, ty.as_ref(), &mut o);
            String::from_utf8(o).unwrap()
        };
        assert_eq!(f(Value::Int(i64::MIN), None), "-9223372036854775808");
        assert_eq!(f(Value::UInt(u64::MAX), None), "18446744073709551615");
        assert_eq!(f(Value::Decimal(Decimal::new(110, 2)), None), "1.10");
        assert_eq!(f(Value::Decimal(Decimal::new(11, 1)), Some(SqlType::Decimal { precision: 5, scale: 3 })), "1.100");
        assert_eq!(f(Value::Decimal(Decimal::new(-5, 3)), None), "-0.005");
        let dt = DateTime::new(Date::new(2024, 1, 2), 3, 4, 5, 678_000);
        assert_eq!(f(Value::DateTime(dt), Some(SqlType::DateTime { fsp: 3 })), "2024-01-02 03:04:05.678");
        assert_eq!(f(Value::DateTime(dt), Some(SqlType::DateTime { fsp: 0 })), "2024-01-02 03:04:05");
        assert_eq!(f(Value::DateTime(dt), None), "2024-01-02 03:04:05.678000");
        assert_eq!(f(Value::Date(Date::new(0, 0, 0)), None), "0000-00-00");
        assert_eq!(f(Value::Double(0.1f32 as f64), Some(SqlType::Float)), "0.1");
        assert_eq!(f(Value::Bytes(b"a\0b".to_vec()), None), "a\0b");
    }
}
