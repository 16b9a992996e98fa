//! SQL text of names and values as MariaDB writes them in SHOW CREATE TABLE and
//! information_schema (`COLUMN_DEFAULT`): backquoted identifiers, escaped string literals,
//! numbers in MariaDB's shortest form.

use selkie_storage::{ColumnDef, ColumnDefault, ColumnType, Datum, TableDef};

/// `name` in backquotes, with backquotes doubled.
pub(crate) fn quote_ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// A string literal as MariaDB's `append_unescaped` writes it: `'`, with `\`, NUL, newline and
/// carriage return backslash-escaped and `'` doubled.
pub(crate) fn quote_string(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for ch in text.chars() {
        match ch {
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("''"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Decimal exponents outside this range are printed in scientific notation (MariaDB prints
/// 1e14 as `100000000000000` but 1e15 as `1e15`, 1e-15 as `0.000000000000001` but 1e-16 as
/// `1e-16`).
const FIXED_NOTATION_EXPONENTS: std::ops::RangeInclusive<i32> = -15..=14;
/// Significant digits of a FLOAT (MariaDB prints FLOATs with FLT_DIG = 6).
const FLOAT_SIGNIFICANT_DIGITS: usize = 6;

/// Lays out `digits` (no leading zeros, at least one digit) × 10^(exp - len + 1).
fn place_digits(negative: bool, digits: &str, exp: i32) -> String {
    debug_assert!(!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()));
    let sign = if negative { "-" } else { "" };
    if !FIXED_NOTATION_EXPONENTS.contains(&exp) {
        let mantissa =
            if digits.len() == 1 { digits.to_string() } else { format!("{}.{}", &digits[..1], &digits[1..]) };
        return format!("{sign}{mantissa}e{exp}");
    }
    let n = digits.len() as i32;
    if exp < 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-exp - 1) as usize))
    } else if exp + 1 >= n {
        format!("{sign}{digits}{}", "0".repeat((exp + 1 - n) as usize))
    } else {
        let point = (exp + 1) as usize;
        format!("{sign}{}.{}", &digits[..point], &digits[point..])
    }
}

/// Splits Rust's `{:e}` form ("-1.25e-7") into (negative, digits, exponent).
fn scientific_parts(s: &str) -> (bool, String, i32) {
    let (mantissa, exp) = s.split_once('e').unwrap_or((s, "0"));
    let negative = mantissa.starts_with('-');
    let mut digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    (negative, digits, exp.parse().unwrap_or(0))
}

/// A DOUBLE as MariaDB prints it: the shortest digits that round-trip.
pub(crate) fn format_double(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    if v == 0.0 {
        return "0".into();
    }
    let (neg, digits, exp) = scientific_parts(&format!("{v:e}"));
    place_digits(neg, &digits, exp)
}

/// A FLOAT as MariaDB prints it: six significant digits.
pub(crate) fn format_float(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    if v == 0.0 {
        return "0".into();
    }
    let (neg, digits, exp) = scientific_parts(&format!("{:.*e}", FLOAT_SIGNIFICANT_DIGITS - 1, v as f32 as f64));
    place_digits(neg, &digits, exp)
}

/// A constant of column type `ty` as SQL text (numbers bare, everything else quoted).
pub(crate) fn sql_literal(value: &Datum, ty: &ColumnType) -> String {
    match value {
        Datum::Null => "NULL".into(),
        Datum::Int(i) => i.to_string(),
        Datum::UInt(u) if matches!(ty, ColumnType::Bit { .. }) => crate::value::bit_literal(*u),
        Datum::UInt(u) => u.to_string(),
        Datum::Double(d) => match ty {
            ColumnType::Float { .. } => format_float(*d),
            _ => format_double(*d),
        },
        Datum::Decimal(d) => match ty {
            ColumnType::Decimal { scale, .. } => d.rescale(*scale).unwrap_or(*d).to_string(),
            _ => d.to_string(),
        },
        Datum::Bytes(b) => quote_string(b),
        Datum::Date(d) => quote_string(d.to_string().as_bytes()),
        Datum::DateTime(dt) => {
            let fsp = match ty {
                ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } => *fsp,
                _ => 0,
            };
            quote_string(dt.format(fsp).as_bytes())
        }
    }
}

/// `t` with its TIMESTAMP columns' literal defaults in the session's time zone `tz`: they are
/// stored as UTC, like the column's values (see `value::timestamp`), and shown as MariaDB shows
/// them, converted. Borrowed when there is nothing to convert.
pub(crate) fn with_session_defaults(t: &TableDef, tz: crate::value::TimeZone) -> std::borrow::Cow<'_, TableDef> {
    let converts = |c: &ColumnDef| {
        matches!(c.ty, ColumnType::Timestamp { .. }) && matches!(c.default, ColumnDefault::Value(Datum::DateTime(_)))
    };
    if !t.columns.iter().any(converts) {
        return std::borrow::Cow::Borrowed(t);
    }
    let mut shown = t.clone();
    for c in shown.columns.iter_mut().filter(|c| converts(c)) {
        if let ColumnDefault::Value(Datum::DateTime(dt)) = &mut c.default {
            *dt = crate::value::session_of_utc(*dt, tz);
        }
    }
    std::borrow::Cow::Owned(shown)
}

/// `current_timestamp()` / `current_timestamp(3)`, as MariaDB prints a CURRENT_TIMESTAMP
/// default or ON UPDATE clause of a column with that many fractional digits.
pub(crate) fn current_timestamp(ty: &ColumnType) -> String {
    match ty {
        ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } if *fsp > 0 => format!("current_timestamp({fsp})"),
        _ => "current_timestamp()".into(),
    }
}

/// What a column's DEFAULT is, independent of how each SHOW form prints it.
pub(crate) enum DefaultKind<'a> {
    /// No DEFAULT clause and NOT NULL (or AUTO_INCREMENT): nothing is printed.
    Absent,
    /// DEFAULT NULL (explicit, or implied for a nullable column).
    Null,
    Value(&'a Datum),
    CurrentTimestamp,
    /// DEFAULT (expr): the text as MariaDB prints it.
    Expression(&'a str),
}

pub(crate) fn default_kind(col: &ColumnDef) -> DefaultKind<'_> {
    if col.auto_increment || col.generated.is_some() {
        return DefaultKind::Absent;
    }
    match &col.default {
        ColumnDefault::CurrentTimestamp => DefaultKind::CurrentTimestamp,
        ColumnDefault::Expression(text) => DefaultKind::Expression(text),
        ColumnDefault::Value(Datum::Null) => DefaultKind::Null,
        ColumnDefault::Value(v) => DefaultKind::Value(v),
        ColumnDefault::None if col.nullable => DefaultKind::Null,
        ColumnDefault::None => DefaultKind::Absent,
    }
}

/// information_schema.COLUMNS.COLUMN_DEFAULT: the default as an SQL expression (`'x''y'`,
/// `1.50`, `NULL`, `current_timestamp()`), or None (SQL NULL) when the column has none.
pub(crate) fn column_default_expression(col: &ColumnDef) -> Option<String> {
    if col.generated.is_some() {
        // MariaDB reports the text NULL for a generated column (its default is never used).
        return Some("NULL".into());
    }
    match default_kind(col) {
        DefaultKind::Absent => None,
        DefaultKind::Null => Some("NULL".into()),
        DefaultKind::Value(v) => Some(sql_literal(v, &col.ty)),
        DefaultKind::CurrentTimestamp => Some(current_timestamp(&col.ty)),
        DefaultKind::Expression(text) => Some(text.to_string()),
    }
}

/// SHOW COLUMNS' Default: the value itself, unquoted, or None (NULL).
pub(crate) fn column_default_value(col: &ColumnDef) -> Option<Vec<u8>> {
    match default_kind(col) {
        DefaultKind::Absent | DefaultKind::Null => None,
        DefaultKind::CurrentTimestamp => Some(current_timestamp(&col.ty).into_bytes()),
        DefaultKind::Expression(text) => Some(text.as_bytes().to_vec()),
        DefaultKind::Value(Datum::Bytes(b)) => Some(b.clone()),
        DefaultKind::Value(Datum::Date(d)) => Some(d.to_string().into_bytes()),
        DefaultKind::Value(Datum::DateTime(dt)) => {
            let fsp = match col.ty {
                ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } => fsp,
                _ => 0,
            };
            Some(dt.format(fsp).into_bytes())
        }
        DefaultKind::Value(v) => Some(sql_literal(v, &col.ty).into_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use selkie_storage::{Date, DateTime, Decimal};

    /// Expected strings are MariaDB 10.11.19's output for the same values
    /// (`SELECT 1e14, 1e15, ...` and `CAST(x AS FLOAT)`).
    #[test]
    fn doubles_and_floats_print_like_mariadb() {
        let cases = [
            (1e14, "100000000000000"),
            (1e15, "1e15"),
            (1e16, "1e16"),
            (1.2345678901234568e17, "1.2345678901234568e17"),
            (1234567890123456e0, "1.234567890123456e15"),
            (0.0001, "0.0001"),
            (0.00001234, "0.00001234"),
            (1.5e-7, "0.00000015"),
            (-1.5e-7, "-0.00000015"),
            (1e-10, "0.0000000001"),
            (1e-15, "0.000000000000001"),
            (1e-16, "1e-16"),
            (123e-20, "1.23e-18"),
            (12345.678, "12345.678"),
            (-1e15, "-1e15"),
            (2.5, "2.5"),
            (1e21, "1e21"),
            (1e100, "1e100"),
            (0.0, "0"),
            (99999999999999.9, "99999999999999.9"),
        ];
        for (v, want) in cases {
            assert_eq!(format_double(v), want, "{v:e}");
        }
        let floats = [
            (0.1, "0.1"),
            (1e10, "10000000000"),
            (123456789.0, "123457000"),
            (1e-5, "0.00001"),
            (1e-7, "0.0000001"),
            (1e20, "1e20"),
            (1.5e15, "1.5e15"),
            (1e14, "100000000000000"),
            (1234567.0, "1234570"),
            (0.000123456789, "0.000123457"),
        ];
        for (v, want) in floats {
            assert_eq!(format_float(v), want, "{v:e}");
        }
    }

    #[test]
    fn strings_and_identifiers_are_escaped_like_mariadb() {
        assert_eq!(quote_string(b"x'y"), "'x''y'");
        assert_eq!(quote_string(b"a\\b'c"), "'a\\\\b''c'");
        assert_eq!(quote_string(b"l1\nl2\t\\0"), "'l1\\nl2\t\\\\0'");
        assert_eq!(quote_string(b"nul\0cr\r"), "'nul\\0cr\\r'");
        assert_eq!(quote_ident("a`b"), "`a``b`");
    }

    #[test]
    fn literals_follow_the_column_type() {
        let dec = ColumnType::Decimal { precision: 10, scale: 2, unsigned: false };
        assert_eq!(sql_literal(&Datum::Decimal(Decimal::new(15, 1)), &dec), "1.50");
        assert_eq!(sql_literal(&Datum::Double(2.5), &ColumnType::DOUBLE), "2.5");
        assert_eq!(sql_literal(&Datum::Double(0.1f32 as f64), &ColumnType::FLOAT), "0.1");
        assert_eq!(sql_literal(&Datum::Date(Date::new(2024, 1, 2)), &ColumnType::Date), "'2024-01-02'");
        let dt = DateTime::new(Date::new(2024, 1, 2), 3, 4, 5, 678_000);
        assert_eq!(sql_literal(&Datum::DateTime(dt), &ColumnType::DateTime { fsp: 3 }), "'2024-01-02 03:04:05.678'");
        assert_eq!(sql_literal(&Datum::UInt(u64::MAX), &ColumnType::DOUBLE), "18446744073709551615");
        assert_eq!(current_timestamp(&ColumnType::Timestamp { fsp: 2 }), "current_timestamp(2)");
        assert_eq!(current_timestamp(&ColumnType::Timestamp { fsp: 0 }), "current_timestamp()");
    }
}
