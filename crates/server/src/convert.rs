//! Mapping between SQL values (`selkie_sql::Value`, i.e. storage `Datum`s) and the wire: text
//! and binary row cells, and prepared-statement parameters. Column definitions need no mapping:
//! the SQL layer describes result columns with the protocol's `ColumnDefinition`.
//!
//! The protocol crate knows only wire values; the SQL layer knows SQL values. This module is
//! the one place that converts between them. Value/type mismatches (a computed expression whose value kind
//! differs from its declared column type) are converted with the SQL layer's own lenient rules
//! (`to_i64`, `format_text`, ...) rather than rejected: a result row must always be sendable.

use selkie_protocol::command::ParamType;
use selkie_protocol::constants::{charset, column_flags, FieldType};
use selkie_protocol::resultset::{begin_binary_row, put_text_null, set_binary_row_null, ColumnDefinition};
use selkie_protocol::value::{
    binary_layout, put_binary_datetime, put_binary_time, BinaryLayout, BinaryValue, WireDateTime, WireTime,
};
use selkie_protocol::wire::{put_lenenc_bytes, put_lenenc_with, put_u16, put_u32, put_u64, put_u8};
use selkie_sql::value::{format_text, parse_datetime, to_f64, to_i64, to_u64, SqlType};
use selkie_sql::Value;
use selkie_storage::{Date, DateTime, Decimal};

/// Largest DECIMAL precision MariaDB allows.
const MAX_DECIMAL_PRECISION: i64 = 65;
/// Bytes per character of utf8mb4, by which MariaDB scales a text column's display length.
const UTF8MB4_MAX_BYTES: u32 = 4;

/// The SQL type a result column's metadata describes; it tells `format_text` the DECIMAL scale,
/// the fractional seconds of temporal values and the FLOAT precision.
pub fn sql_type_of(meta: &ColumnDefinition) -> SqlType {
    let unsigned = meta.flags & column_flags::UNSIGNED != 0;
    let lob =
        matches!(meta.field_type, FieldType::Blob | FieldType::TinyBlob | FieldType::MediumBlob | FieldType::LongBlob);
    match meta.field_type {
        FieldType::Tiny => SqlType::Int { bits: 8, unsigned },
        FieldType::Short => SqlType::Int { bits: 16, unsigned },
        FieldType::Int24 => SqlType::Int { bits: 24, unsigned },
        FieldType::Long => SqlType::Int { bits: 32, unsigned },
        FieldType::LongLong => SqlType::Int { bits: 64, unsigned },
        FieldType::Year => SqlType::Int { bits: 16, unsigned: true },
        FieldType::Decimal | FieldType::NewDecimal => {
            let scale = meta.decimals;
            // Display length = precision + a point if scale > 0 + a sign unless unsigned.
            let precision = meta.length as i64 - (scale > 0) as i64 - (!unsigned) as i64;
            SqlType::Decimal { precision: precision.clamp(1, MAX_DECIMAL_PRECISION) as u8, scale }
        }
        FieldType::Float => SqlType::Float,
        FieldType::Double => SqlType::Double,
        FieldType::Null => SqlType::Null,
        FieldType::Date => SqlType::Date,
        FieldType::DateTime => SqlType::DateTime { fsp: meta.decimals.min(6) },
        FieldType::Timestamp => SqlType::Timestamp { fsp: meta.decimals.min(6) },
        // A BIT(n) value is a number sent as its ceil(n/8) big-endian bytes.
        FieldType::Bit => SqlType::Bit { width: meta.length.clamp(1, 64) as u8 },
        // Types selkied never declares for a result column (ENUM, SET and JSON columns are sent as
        // strings, as MariaDB does); a column described so is text or bytes by its charset.
        FieldType::NewDate => SqlType::Date,
        FieldType::Time
        | FieldType::Json
        | FieldType::Enum
        | FieldType::Set
        | FieldType::TinyBlob
        | FieldType::MediumBlob
        | FieldType::LongBlob
        | FieldType::Geometry
        | FieldType::VarChar
        | FieldType::VarString
        | FieldType::String
        | FieldType::Blob => {
            if meta.charset == charset::BINARY {
                SqlType::Bytes { max_len: meta.length, lob }
            } else {
                SqlType::text(meta.length / UTF8MB4_MAX_BYTES, lob)
            }
        }
    }
}

/// How one result column is encoded; computed once per result set.
#[derive(Clone, Debug)]
pub struct ColumnEncoding {
    pub wire_type: FieldType,
    pub unsigned: bool,
    pub layout: BinaryLayout,
    pub sql_type: SqlType,
    /// FLOAT/DOUBLE with fixed decimals (FLOAT(7,2) columns): the text protocol prints exactly
    /// this many digits after the point, as MariaDB's Protocol_text::store(double, decimals).
    pub fixed_decimals: Option<u8>,
    /// ZEROFILL columns: the text protocol pads the value with zeros to this width.
    pub zerofill_width: Option<u32>,
}

impl ColumnEncoding {
    pub fn new(meta: &ColumnDefinition) -> ColumnEncoding {
        let wire_type = meta.field_type;
        ColumnEncoding {
            wire_type,
            unsigned: meta.flags & column_flags::UNSIGNED != 0,
            layout: binary_layout(wire_type),
            sql_type: sql_type_of(meta),
            fixed_decimals: (matches!(wire_type, FieldType::Float | FieldType::Double)
                && meta.decimals < NOT_FIXED_DECIMALS)
                .then_some(meta.decimals),
            zerofill_width: (meta.flags & column_flags::ZEROFILL != 0).then_some(meta.length),
        }
    }

    /// The text form of a non-NULL, non-string value.
    fn put_text(&self, v: &Value, out: &mut Vec<u8>) {
        let start = out.len();
        match (self.fixed_decimals, v) {
            (Some(d), Value::Double(x)) => out.extend_from_slice(format!("{x:.*}", d as usize).as_bytes()),
            _ => format_text(v, Some(&self.sql_type), out),
        }
        if let Some(width) = self.zerofill_width {
            let len = out.len() - start;
            if len < width as usize {
                let pad = width as usize - len;
                out.splice(start..start, std::iter::repeat_n(b'0', pad));
            }
        }
    }
}

/// `decimals` of a floating-point result printed in its shortest form.
const NOT_FIXED_DECIMALS: u8 = 31;

/// Appends one text-protocol row. Missing trailing values are sent as NULL.
pub fn put_text_row(out: &mut Vec<u8>, values: &[Value], columns: &[ColumnEncoding]) {
    debug_assert_eq!(values.len(), columns.len(), "row width differs from its column count");
    for (i, col) in columns.iter().enumerate() {
        match values.get(i).unwrap_or(&Value::Null) {
            Value::Null => put_text_null(out),
            Value::Bytes(b) => put_lenenc_bytes(out, b),
            v => put_lenenc_with(out, |out| col.put_text(v, out)),
        }
    }
}

/// Appends one binary-protocol row.
pub fn put_binary_row(out: &mut Vec<u8>, values: &[Value], columns: &[ColumnEncoding]) {
    debug_assert_eq!(values.len(), columns.len(), "row width differs from its column count");
    let bitmap_at = begin_binary_row(out, columns.len());
    for (i, col) in columns.iter().enumerate() {
        let v = values.get(i).unwrap_or(&Value::Null);
        if v.is_null() || col.layout == BinaryLayout::Nothing {
            set_binary_row_null(out, bitmap_at, i);
        } else {
            put_binary_cell(out, v, col);
        }
    }
}

/// The integer bits of `v` for an integer column (two's complement; the receiver applies the
/// column's signedness and width).
fn integer_bits(v: &Value, unsigned: bool) -> u64 {
    match v {
        Value::Int(i) => *i as u64,
        Value::UInt(u) => *u,
        other if unsigned => to_u64(other).unwrap_or(0),
        other => to_i64(other).unwrap_or(0) as u64,
    }
}

fn put_binary_cell(out: &mut Vec<u8>, v: &Value, col: &ColumnEncoding) {
    match col.layout {
        BinaryLayout::Int1 => put_u8(out, integer_bits(v, col.unsigned) as u8),
        BinaryLayout::Int2 => put_u16(out, integer_bits(v, col.unsigned) as u16),
        BinaryLayout::Int4 => put_u32(out, integer_bits(v, col.unsigned) as u32),
        BinaryLayout::Int8 => put_u64(out, integer_bits(v, col.unsigned)),
        BinaryLayout::Float4 => out.extend_from_slice(&(float_value(v) as f32).to_le_bytes()),
        BinaryLayout::Float8 => out.extend_from_slice(&float_value(v).to_le_bytes()),
        BinaryLayout::LenencBytes => match v {
            Value::Bytes(b) => put_lenenc_bytes(out, b),
            v => put_lenenc_with(out, |out| format_text(v, Some(&col.sql_type), out)),
        },
        BinaryLayout::DateTime => {
            let mut dt = wire_datetime(v);
            if col.wire_type == FieldType::Date {
                dt = WireDateTime { year: dt.year, month: dt.month, day: dt.day, ..WireDateTime::default() };
            }
            put_binary_datetime(out, &dt);
        }
        BinaryLayout::Time => put_binary_time(out, &wire_time(v)),
        // The caller sends NULL-typed columns as NULL; nothing to write.
        BinaryLayout::Nothing => {}
    }
}

fn float_value(v: &Value) -> f64 {
    match v {
        Value::Double(f) => *f,
        other => to_f64(other).unwrap_or(0.0),
    }
}

fn wire_from_datetime(dt: DateTime) -> WireDateTime {
    let d = dt.date();
    WireDateTime {
        year: d.year() as u16,
        month: d.month() as u8,
        day: d.day() as u8,
        hour: dt.hour() as u8,
        minute: dt.minute() as u8,
        second: dt.second() as u8,
        micros: dt.micros(),
    }
}

/// A temporal value for a DATE/DATETIME/TIMESTAMP column (zero date if it is not one).
fn wire_datetime(v: &Value) -> WireDateTime {
    match v {
        Value::Date(d) => WireDateTime {
            year: d.year() as u16,
            month: d.month() as u8,
            day: d.day() as u8,
            ..WireDateTime::default()
        },
        Value::DateTime(dt) => wire_from_datetime(*dt),
        Value::Bytes(b) => parse_datetime(b).map(wire_from_datetime).unwrap_or_default(),
        _ => WireDateTime::default(),
    }
}

/// A value for a TIME column. The SQL layer has no TIME values; TIME results arrive as text
/// (`[-][D ]HHH:MM:SS[.ffffff]`) or as a datetime whose time of day is meant.
fn wire_time(v: &Value) -> WireTime {
    match v {
        Value::Bytes(b) => parse_time_text(b).unwrap_or_default(),
        Value::DateTime(dt) => WireTime {
            negative: false,
            days: 0,
            hour: dt.hour() as u8,
            minute: dt.minute() as u8,
            second: dt.second() as u8,
            micros: dt.micros(),
        },
        _ => WireTime::default(),
    }
}

/// Parses `[-][D ]H+:MM:SS[.f{1,6}]` into days/hours/minutes/seconds/micros.
pub fn parse_time_text(text: &[u8]) -> Option<WireTime> {
    let s = std::str::from_utf8(text).ok()?.trim();
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (extra_days, s) = match s.split_once(' ') {
        Some((d, rest)) => (d.parse::<u32>().ok()?, rest),
        None => (0, s),
    };
    let (hms, frac) = match s.split_once('.') {
        Some((hms, f)) => (hms, Some(f)),
        None => (s, None),
    };
    let mut parts = hms.split(':');
    let hours: u32 = parts.next()?.parse().ok()?;
    let minute: u8 = parts.next()?.parse().ok()?;
    let second: u8 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || minute > 59 || second > 59 {
        return None;
    }
    let micros = match frac {
        None => 0,
        Some(f) if !f.is_empty() && f.len() <= 6 && f.bytes().all(|b| b.is_ascii_digit()) => {
            f.parse::<u32>().ok()? * 10u32.pow(6 - f.len() as u32)
        }
        Some(_) => return None,
    };
    let total_hours = extra_days.checked_mul(24)?.checked_add(hours)?;
    Some(WireTime { negative, days: total_hours / 24, hour: (total_hours % 24) as u8, minute, second, micros })
}

/// TIME as text: hours include the days, as MariaDB prints it (`-26:03:04.500000`).
pub fn format_time(t: &WireTime) -> String {
    let hours = t.days as u64 * 24 + t.hour as u64;
    let sign = if t.negative { "-" } else { "" };
    let mut s = format!("{sign}{hours:02}:{:02}:{:02}", t.minute, t.second);
    if t.micros != 0 {
        s.push_str(&format!(".{:06}", t.micros));
    }
    s
}

fn valid_datetime(w: &WireDateTime) -> bool {
    w.year <= 9999
        && w.month <= 12
        && w.day <= 31
        && w.hour < 24
        && w.minute < 60
        && w.second < 60
        && w.micros < 1_000_000
}

fn format_wire_datetime(w: &WireDateTime) -> String {
    let mut s = format!("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", w.year, w.month, w.day, w.hour, w.minute, w.second);
    if w.micros != 0 {
        s.push_str(&format!(".{:06}", w.micros));
    }
    s
}

/// Converts a decoded COM_STMT_EXECUTE parameter into a SQL value.
pub fn param_value(v: BinaryValue, ty: ParamType) -> Value {
    match v {
        BinaryValue::Null => Value::Null,
        BinaryValue::Int(i) => Value::Int(i),
        BinaryValue::UInt(u) => Value::UInt(u),
        BinaryValue::Float(f) => Value::Double(f as f64),
        BinaryValue::Double(f) => Value::Double(f),
        BinaryValue::Bytes(b) => {
            if matches!(ty.column_type, FieldType::Decimal | FieldType::NewDecimal) {
                if let Some(d) = std::str::from_utf8(&b).ok().and_then(Decimal::parse) {
                    return Value::Decimal(d);
                }
            }
            Value::Bytes(b)
        }
        BinaryValue::DateTime(w) => {
            if !valid_datetime(&w) {
                // Let the SQL layer's conversion rules judge it (warning or error 1292).
                return Value::Bytes(format_wire_datetime(&w).into_bytes());
            }
            let date = Date::new(w.year as u32, w.month as u32, w.day as u32);
            if ty.column_type == FieldType::Date {
                Value::Date(date)
            } else {
                Value::DateTime(DateTime::new(date, w.hour as u32, w.minute as u32, w.second as u32, w.micros))
            }
        }
        BinaryValue::Time(t) => Value::Bytes(format_time(&t).into_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use selkie_protocol::resultset::parse_binary_row;

    fn meta(field_type: FieldType, flags: u16, length: u32, decimals: u8, charset: u16) -> ColumnDefinition {
        ColumnDefinition {
            schema: String::new(),
            table: String::new(),
            org_table: String::new(),
            name: "c".into(),
            org_name: String::new(),
            charset,
            length,
            field_type,
            flags,
            decimals,
        }
    }

    #[test]
    fn sql_types_from_metadata() {
        assert_eq!(
            sql_type_of(&meta(FieldType::Long, column_flags::UNSIGNED, 10, 0, 63)),
            SqlType::Int { bits: 32, unsigned: true }
        );
        assert_eq!(
            sql_type_of(&meta(FieldType::NewDecimal, 0, 14, 3, 63)),
            SqlType::Decimal { precision: 12, scale: 3 }
        );
        assert_eq!(
            sql_type_of(&meta(FieldType::NewDecimal, column_flags::UNSIGNED, 10, 0, 63)),
            SqlType::Decimal { precision: 10, scale: 0 }
        );
        assert_eq!(sql_type_of(&meta(FieldType::DateTime, 0, 26, 6, 63)), SqlType::DateTime { fsp: 6 });
        assert_eq!(sql_type_of(&meta(FieldType::VarString, 0, 40, 0, 45)), SqlType::text(10, false));
        assert_eq!(sql_type_of(&meta(FieldType::Blob, 0, 65535, 0, 63)), SqlType::Bytes { max_len: 65535, lob: true });
    }

    #[test]
    fn binary_rows_of_native_values_decode_back() {
        let cols = [
            meta(FieldType::Tiny, 0, 4, 0, 63),
            meta(FieldType::Long, column_flags::UNSIGNED, 10, 0, 63),
            meta(FieldType::LongLong, 0, 20, 0, 63),
            meta(FieldType::Double, 0, 22, 31, 63),
            meta(FieldType::VarString, 0, 40, 0, 45),
            meta(FieldType::Date, 0, 10, 0, 63),
            meta(FieldType::DateTime, 0, 26, 6, 63),
            meta(FieldType::Timestamp, 0, 19, 0, 63),
            meta(FieldType::Time, 0, 10, 0, 63),
            meta(FieldType::Long, 0, 11, 0, 63),
            meta(FieldType::Null, 0, 0, 0, 63),
        ];
        let enc: Vec<ColumnEncoding> = cols.iter().map(ColumnEncoding::new).collect();
        let dt = DateTime::new(Date::new(2024, 2, 29), 13, 14, 15, 123_456);
        let values = vec![
            Value::Int(-5),
            Value::UInt(4_000_000_000),
            Value::Int(i64::MIN),
            Value::Double(2.5),
            Value::Bytes(b"hello".to_vec()),
            Value::Date(Date::new(2024, 2, 29)),
            Value::DateTime(dt),
            Value::DateTime(DateTime::new(Date::new(2001, 2, 3), 4, 5, 6, 0)),
            Value::Bytes(b"-26:03:04.5".to_vec()),
            Value::Null,
            Value::Null,
        ];
        let mut out = Vec::new();
        put_binary_row(&mut out, &values, &enc);
        let types: Vec<(FieldType, bool)> = enc.iter().map(|e| (e.wire_type, e.unsigned)).collect();
        let row = parse_binary_row(&out, &types).unwrap();
        assert_eq!(row[0], BinaryValue::Int(-5));
        assert_eq!(row[1], BinaryValue::UInt(4_000_000_000));
        assert_eq!(row[2], BinaryValue::Int(i64::MIN));
        assert_eq!(row[3], BinaryValue::Double(2.5));
        assert_eq!(row[4], BinaryValue::Bytes(b"hello".to_vec()));
        assert_eq!(row[5], BinaryValue::DateTime(WireDateTime { year: 2024, month: 2, day: 29, ..Default::default() }));
        assert_eq!(
            row[6],
            BinaryValue::DateTime(WireDateTime {
                year: 2024,
                month: 2,
                day: 29,
                hour: 13,
                minute: 14,
                second: 15,
                micros: 123_456
            })
        );
        assert_eq!(
            row[7],
            BinaryValue::DateTime(WireDateTime {
                year: 2001,
                month: 2,
                day: 3,
                hour: 4,
                minute: 5,
                second: 6,
                micros: 0
            })
        );
        assert_eq!(
            row[8],
            BinaryValue::Time(WireTime { negative: true, days: 1, hour: 2, minute: 3, second: 4, micros: 500_000 })
        );
        assert_eq!(row[9], BinaryValue::Null);
        assert_eq!(row[10], BinaryValue::Null);
    }

    #[test]
    fn time_text_round_trip() {
        for (text, canonical) in [
            ("-26:03:04.500000", "-26:03:04.500000"),
            ("1 02:03:04", "26:03:04"),
            ("00:00:00", "00:00:00"),
            ("838:59:59", "838:59:59"),
        ] {
            let t = parse_time_text(text.as_bytes()).unwrap();
            assert_eq!(format_time(&t), canonical);
        }
        for bad in ["", "12", "1:60:00", "1:2:3:4", "x:00:00", "01:02:03.1234567"] {
            assert!(parse_time_text(bad.as_bytes()).is_none(), "{bad}");
        }
    }

    #[test]
    fn parameters_become_sql_values() {
        let t = |column_type| ParamType { column_type, unsigned: false };
        assert_eq!(
            param_value(BinaryValue::Bytes(b"12.50".to_vec()), t(FieldType::NewDecimal)),
            Value::Decimal(Decimal::new(1250, 2))
        );
        assert_eq!(
            param_value(BinaryValue::Bytes(b"12.50".to_vec()), t(FieldType::VarString)),
            Value::Bytes(b"12.50".to_vec())
        );
        assert_eq!(param_value(BinaryValue::Float(1.5), t(FieldType::Float)), Value::Double(1.5));
        let w = WireDateTime { year: 2024, month: 2, day: 29, hour: 1, minute: 2, second: 3, micros: 4 };
        assert_eq!(
            param_value(BinaryValue::DateTime(w), t(FieldType::DateTime)),
            Value::DateTime(DateTime::new(Date::new(2024, 2, 29), 1, 2, 3, 4))
        );
        assert_eq!(param_value(BinaryValue::DateTime(w), t(FieldType::Date)), Value::Date(Date::new(2024, 2, 29)));
        let bad = WireDateTime { year: 2024, month: 13, day: 1, ..Default::default() };
        assert_eq!(
            param_value(BinaryValue::DateTime(bad), t(FieldType::DateTime)),
            Value::Bytes(b"2024-13-01 00:00:00".to_vec())
        );
        let time = WireTime { negative: false, days: 0, hour: 5, minute: 6, second: 7, micros: 0 };
        assert_eq!(param_value(BinaryValue::Time(time), t(FieldType::Time)), Value::Bytes(b"05:06:07".to_vec()));
    }
}
