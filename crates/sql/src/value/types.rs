//! Static result types: from column definitions, from runtime values, their wire metadata, and
//! how branches of CASE/IF/COALESCE/UNION combine.
//!
//! Wire metadata mirrors what MariaDB 10.11 sends to a utf8mb4 client (checked with
//! `mariadb --column-type-info`): strings carry collation 45 (the utf8mb4 default MariaDB
//! reports for every utf8mb4 result), binary data 63; numeric and temporal types 63.

use selkie_storage::{ColumnDef, ColumnType};

use super::kinds::{FieldMeta, SqlType};
use super::num::{int_type_digits, MAX_DECIMAL_DIGITS, MAX_DECIMAL_SCALE};
use crate::charset::FixedBinary;
use crate::types::{charset, column_flags as flags, FieldType, Value};

/// Bytes per character of utf8mb4, for key length checks.
pub const MAX_BYTES_PER_CHAR: u64 = 4;

/// Bytes per character of a prefix on a column of `ty`: index prefixes are declared (and
/// shown) in characters but the engine's `IndexColumn::prefix_len` is in bytes, as MariaDB's
/// key parts are (a utf8mb4 character takes up to 4 bytes; binary strings count bytes).
pub fn prefix_bytes_per_char(ty: &ColumnType) -> u32 {
    if ty.is_binary() {
        1
    } else {
        MAX_BYTES_PER_CHAR as u32
    }
}

/// A prefix length as declared (characters) from the engine's (bytes).
pub fn prefix_chars(ty: &ColumnType, prefix_bytes: u32) -> u32 {
    prefix_bytes / prefix_bytes_per_char(ty)
}

/// Bytes per character of utf8mb4 (display lengths are in bytes).
pub const UTF8MB4_MAX_BYTES: u32 = 4;
/// Display length of a computed DOUBLE / FLOAT column (MariaDB: 22 for DOUBLE columns, 12 FLOAT).
const DOUBLE_DISPLAY_LENGTH: u32 = 22;
const FLOAT_DISPLAY_LENGTH: u32 = 12;
/// `decimals` value MariaDB sends for floating-point results without fixed decimals.
pub const NOT_FIXED_DECIMALS: u8 = 31;
const DATE_DISPLAY_LENGTH: u32 = 10;
const DATETIME_DISPLAY_LENGTH: u32 = 19;
const TIME_DISPLAY_LENGTH: u32 = 10;
const YEAR_DISPLAY_LENGTH: u32 = 4;

fn text_meta(field_type: FieldType, max_chars: u32) -> FieldMeta {
    FieldMeta {
        field_type,
        length: max_chars.saturating_mul(UTF8MB4_MAX_BYTES),
        decimals: 0,
        charset: charset::UTF8MB4_GENERAL_CI,
        flags: 0,
    }
}

/// MariaDB flags text of a `_bin` collation BINARY (its MY_CS_BINSORT), computed or not.
fn binsort_flag(collation: crate::charset::Collation) -> u16 {
    if matches!(collation.def().weighing, crate::charset::Weighing::CodePoint) {
        flags::BINARY
    } else {
        0
    }
}

fn binary_meta(field_type: FieldType, max_len: u32) -> FieldMeta {
    FieldMeta { field_type, length: max_len, decimals: 0, charset: charset::BINARY, flags: flags::BINARY }
}

fn int_field_type(bits: u32) -> FieldType {
    match bits {
        0..=8 => FieldType::Tiny,
        9..=16 => FieldType::Short,
        17..=24 => FieldType::Int24,
        25..=32 => FieldType::Long,
        _ => FieldType::LongLong,
    }
}

/// Default display width of an integer type (digits plus sign).
pub fn int_display_width(bits: u32, unsigned: bool) -> u32 {
    match bits {
        64 => 20,
        _ => int_type_digits(bits, unsigned) + !unsigned as u32,
    }
}

fn datetime_length(fsp: u8) -> u32 {
    DATETIME_DISPLAY_LENGTH + if fsp > 0 { fsp as u32 + 1 } else { 0 }
}

fn decimal_length(precision: u8, scale: u8) -> u32 {
    // digits + sign + point (MariaDB: DECIMAL(10,2) → 12, DECIMAL(5,0) → 6).
    precision as u32 + 1 + (scale > 0) as u32
}

/// The fixed binary type a column type is, if it is one.
pub fn fixed_binary_of(ty: &ColumnType) -> Option<FixedBinary> {
    match ty {
        ColumnType::Uuid => Some(FixedBinary::Uuid),
        ColumnType::Inet4 => Some(FixedBinary::Inet4),
        ColumnType::Inet6 => Some(FixedBinary::Inet6),
        _ => None,
    }
}

pub fn from_column(ty: &ColumnType) -> SqlType {
    match ty {
        ColumnType::Int { width, unsigned, .. } => SqlType::Int { bits: width.bits(), unsigned: *unsigned },
        ColumnType::Decimal { precision, scale, .. } => SqlType::Decimal { precision: *precision, scale: *scale },
        ColumnType::Float { .. } => SqlType::Float,
        ColumnType::Double { .. } => SqlType::Double,
        ColumnType::Char { len } | ColumnType::VarChar { len } => SqlType::text(*len, false),
        ColumnType::Text { size } => SqlType::text(size.max_len().min(u32::MAX as u64) as u32, true),
        ColumnType::Binary { len } | ColumnType::VarBinary { len } => SqlType::Bytes { max_len: *len, lob: false },
        ColumnType::Blob { size } => SqlType::Bytes { max_len: size.max_len().min(u32::MAX as u64) as u32, lob: true },
        ColumnType::Date => SqlType::Date,
        ColumnType::DateTime { fsp } => SqlType::DateTime { fsp: *fsp },
        ColumnType::Timestamp { fsp } => SqlType::Timestamp { fsp: *fsp },
        ColumnType::Year => SqlType::Int { bits: 16, unsigned: true },
        ColumnType::Bit { width } => SqlType::Bit { width: *width },
        // TIME, ENUM and SET values are their text (see value::store_types); JSON is LONGTEXT.
        ColumnType::Time { fsp } => SqlType::Time { fsp: *fsp },
        ColumnType::Enum { values } => SqlType::Enum { values: values.clone() },
        ColumnType::Set { .. } | ColumnType::Json | ColumnType::Uuid | ColumnType::Inet4 | ColumnType::Inet6 => {
            from_column(&ty.stored_as())
        }
    }
}

/// Display length of TIME(fsp): '-838:59:59' is 10, plus the point and the digits.
fn time_length(fsp: u8) -> u32 {
    TIME_DISPLAY_LENGTH + if fsp > 0 { fsp as u32 + 1 } else { 0 }
}

pub fn field_meta(ty: &SqlType) -> FieldMeta {
    let numeric = |field_type, length, decimals, unsigned: bool| FieldMeta {
        field_type,
        length,
        decimals,
        charset: charset::BINARY,
        // MariaDB marks every computed number BINARY (its charset is binary); table columns
        // are not (`column_field_meta` takes it off).
        flags: flags::BINARY | flags::NUM | if unsigned { flags::UNSIGNED } else { 0 },
    };
    match ty {
        SqlType::Null => FieldMeta {
            field_type: FieldType::Null,
            length: 0,
            decimals: 0,
            charset: charset::BINARY,
            flags: flags::BINARY | flags::NUM,
        },
        SqlType::Int { bits, unsigned } => {
            numeric(int_field_type(*bits), int_display_width(*bits, *unsigned), 0, *unsigned)
        }
        SqlType::Decimal { precision, scale } => {
            numeric(FieldType::NewDecimal, decimal_length(*precision, *scale), *scale, false)
        }
        SqlType::Float => numeric(FieldType::Float, FLOAT_DISPLAY_LENGTH, NOT_FIXED_DECIMALS, false),
        SqlType::Double => numeric(FieldType::Double, DOUBLE_DISPLAY_LENGTH, NOT_FIXED_DECIMALS, false),
        // A UUID / INET4 / INET6 value: a STRING flagged UNSIGNED (MIN(uuid_column) measured).
        SqlType::Text { max_chars, collation, .. } if collation.fixed_binary_kind().is_some() => {
            FieldMeta { flags: flags::UNSIGNED, ..text_meta(FieldType::String, *max_chars) }
        }
        SqlType::Text { max_chars, lob: false, collation } => {
            FieldMeta { flags: binsort_flag(*collation), ..text_meta(FieldType::VarString, *max_chars) }
        }
        SqlType::Enum { .. } => text_meta(FieldType::VarString, ty.display_chars()),
        SqlType::Text { max_chars, lob: true, collation } => {
            FieldMeta { flags: flags::BLOB | binsort_flag(*collation), ..text_meta(FieldType::Blob, *max_chars) }
        }
        SqlType::Bytes { max_len, lob: false } => binary_meta(FieldType::VarString, *max_len),
        SqlType::Bytes { max_len, lob: true } => {
            FieldMeta { flags: flags::BLOB | flags::BINARY, ..binary_meta(FieldType::Blob, *max_len) }
        }
        SqlType::Date => FieldMeta {
            field_type: FieldType::Date,
            length: DATE_DISPLAY_LENGTH,
            decimals: 0,
            charset: charset::BINARY,
            flags: flags::BINARY,
        },
        SqlType::DateTime { fsp } => FieldMeta {
            field_type: FieldType::DateTime,
            length: datetime_length(*fsp),
            decimals: *fsp,
            charset: charset::BINARY,
            flags: flags::BINARY,
        },
        SqlType::Time { fsp } => FieldMeta {
            field_type: FieldType::Time,
            length: time_length(*fsp),
            decimals: *fsp,
            charset: charset::BINARY,
            flags: flags::BINARY,
        },
        // MariaDB: a BIT column is BIT, `width` long, UNSIGNED; a computed one is BINARY too.
        SqlType::Bit { width } => FieldMeta {
            field_type: FieldType::Bit,
            length: u32::from(*width),
            decimals: 0,
            charset: charset::BINARY,
            flags: flags::UNSIGNED | flags::BINARY | flags::NUM,
        },
        SqlType::Timestamp { fsp } => FieldMeta {
            field_type: FieldType::Timestamp,
            length: datetime_length(*fsp),
            decimals: *fsp,
            charset: charset::BINARY,
            // MariaDB marks TIMESTAMP columns UNSIGNED | BINARY.
            flags: flags::BINARY | flags::UNSIGNED,
        },
    }
}

pub fn of_value(v: &Value) -> SqlType {
    match v {
        Value::Null => SqlType::Null,
        // Literals that fit INT are INT, as MariaDB types `SELECT 1` (LONG).
        Value::Int(i) => SqlType::Int { bits: if i32::try_from(*i).is_ok() { 32 } else { 64 }, unsigned: false },
        Value::UInt(_) => SqlType::Int { bits: 64, unsigned: true },
        Value::Double(_) => SqlType::Double,
        Value::Decimal(d) => {
            let digits = d.int_digits().max(1) + d.scale as u32;
            SqlType::Decimal { precision: digits.min(MAX_DECIMAL_DIGITS) as u8, scale: d.scale }
        }
        Value::Bytes(b) => {
            let chars = b.iter().filter(|&&c| c & 0xC0 != 0x80).count();
            SqlType::text(chars as u32, false)
        }
        Value::Date(_) => SqlType::Date,
        Value::DateTime(dt) => SqlType::DateTime { fsp: if dt.micros() == 0 { 0 } else { 6 } },
    }
}

pub fn unify(a: &SqlType, b: &SqlType) -> SqlType {
    use SqlType::*;
    // A BIT unifies as the unsigned integer it is.
    let as_int = |t: &SqlType| match t {
        Bit { .. } => Int { bits: 64, unsigned: true },
        other => other.clone(),
    };
    let (a, b) = (&as_int(a), &as_int(b));
    match (a, b) {
        (Null, x) | (x, Null) => x.clone(),
        // Two values of one UUID / INET type keep it (COALESCE(uuid_a, uuid_b)).
        (Text { collation: c1, .. }, Text { collation: c2, .. }) if c1 == c2 && c1.fixed_binary_kind().is_some() => {
            a.clone()
        }
        (Int { bits: b1, unsigned: u1 }, Int { bits: b2, unsigned: u2 }) => {
            if u1 == u2 {
                Int { bits: (*b1).max(*b2), unsigned: *u1 }
            } else {
                let (sb, ub) = if *u1 { (*b2, *b1) } else { (*b1, *b2) };
                if ub >= 64 {
                    // BIGINT UNSIGNED with a signed type: only DECIMAL(20) holds both.
                    Decimal { precision: 20, scale: 0 }
                } else {
                    // The unsigned range needs one more bit as signed.
                    let need = (ub + 8).max(sb);
                    Int { bits: if need > 32 { 64 } else { need }, unsigned: false }
                }
            }
        }
        (Int { .. } | Decimal { .. }, Int { .. } | Decimal { .. }) => {
            let (ia, sa) = a.decimal_digits();
            let (ib, sb) = b.decimal_digits();
            let scale = sa.max(sb).min(MAX_DECIMAL_SCALE);
            let int = ia.max(ib);
            Decimal { precision: (int + scale).min(MAX_DECIMAL_DIGITS) as u8, scale: scale as u8 }
        }
        (Float, Float) => Float,
        (Int { .. } | Decimal { .. } | Float | Double, Int { .. } | Decimal { .. } | Float | Double) => Double,
        (Date, Date) => Date,
        (Timestamp { fsp: f1 }, Timestamp { fsp: f2 }) => Timestamp { fsp: (*f1).max(*f2) },
        (Date | DateTime { .. } | Timestamp { .. }, Date | DateTime { .. } | Timestamp { .. }) => {
            DateTime { fsp: a.fsp().max(b.fsp()) }
        }
        (Bytes { .. }, _) | (_, Bytes { .. }) => Bytes {
            max_len: a.display_chars().max(b.display_chars()).saturating_mul(
                if matches!(a, Text { .. }) || matches!(b, Text { .. }) { UTF8MB4_MAX_BYTES } else { 1 },
            ),
            lob: a.is_lob() || b.is_lob(),
        },
        _ => SqlType::text(a.display_chars().max(b.display_chars()), a.is_lob() || b.is_lob()),
    }
}

impl SqlType {
    pub fn from_column(ty: &ColumnType) -> SqlType {
        from_column(ty)
    }
    /// The type of a table column, with the collation it declares (a UUID / INET4 / INET6
    /// column: its type's pseudo collation, which compares the binary form).
    pub fn of_column(c: &selkie_storage::ColumnDef) -> SqlType {
        if let Some(kind) = fixed_binary_of(&c.ty) {
            return SqlType::fixed_binary(kind);
        }
        match from_column(&c.ty) {
            SqlType::Text { max_chars, lob, collation } => SqlType::Text {
                max_chars,
                lob,
                collation: crate::charset::Collation::named(&c.collation).unwrap_or(collation),
            },
            other => other,
        }
    }
    pub fn field_meta(&self) -> FieldMeta {
        field_meta(self)
    }
    /// The type of a UUID / INET4 / INET6 value: its canonical text, compared in the type's
    /// pseudo collation (`Collation::fixed_binary`).
    pub fn fixed_binary(kind: FixedBinary) -> SqlType {
        SqlType::Text {
            max_chars: kind.max_chars(),
            lob: false,
            collation: crate::charset::Collation::fixed_binary(kind),
        }
    }
    /// The fixed binary type of a value of this type, if it is one.
    pub fn fixed_binary_kind(&self) -> Option<FixedBinary> {
        match self {
            SqlType::Text { collation, .. } => collation.fixed_binary_kind(),
            _ => None,
        }
    }
    /// The type of a literal / runtime value (for parameters and constants).
    pub fn of_value(v: &Value) -> SqlType {
        of_value(v)
    }
    /// Result type of combining two branches (CASE, IF, COALESCE, UNION column).
    pub fn unify(a: &SqlType, b: &SqlType) -> SqlType {
        unify(a, b)
    }

    /// (integer digits, scale) of a numeric type seen as DECIMAL.
    pub fn decimal_digits(&self) -> (u32, u32) {
        match self {
            SqlType::Int { bits, unsigned } => (int_type_digits(*bits, *unsigned), 0),
            SqlType::Bit { .. } => (int_type_digits(64, true), 0),
            SqlType::Decimal { precision, scale } => ((*precision as u32).saturating_sub(*scale as u32), *scale as u32),
            SqlType::Date => (8, 0),
            SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => (14, *fsp as u32),
            // Doubles and strings have no exact digit count; 17 significant digits and a
            // generous scale cover what they print.
            _ => (MAX_DECIMAL_DIGITS - 8, 8),
        }
    }

    fn fsp(&self) -> u8 {
        match self {
            SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => *fsp,
            _ => 0,
        }
    }

    pub fn is_lob(&self) -> bool {
        matches!(self, SqlType::Text { lob: true, .. } | SqlType::Bytes { lob: true, .. })
    }

    pub fn is_numeric(&self) -> bool {
        matches!(
            self,
            SqlType::Int { .. } | SqlType::Bit { .. } | SqlType::Decimal { .. } | SqlType::Float | SqlType::Double
        )
    }

    pub fn is_string(&self) -> bool {
        matches!(self, SqlType::Text { .. } | SqlType::Bytes { .. } | SqlType::Enum { .. })
    }

    pub fn is_temporal(&self) -> bool {
        matches!(self, SqlType::Date | SqlType::DateTime { .. } | SqlType::Timestamp { .. })
    }

    /// Longest text form in characters (for string results built from this type).
    pub fn display_chars(&self) -> u32 {
        match self {
            SqlType::Null => 0,
            SqlType::Int { bits, unsigned } => int_display_width(*bits, *unsigned),
            SqlType::Bit { width } => u32::from(*width),
            SqlType::Decimal { precision, scale } => decimal_length(*precision, *scale),
            SqlType::Float => FLOAT_DISPLAY_LENGTH,
            SqlType::Double => DOUBLE_DISPLAY_LENGTH,
            SqlType::Text { max_chars, .. } => *max_chars,
            SqlType::Bytes { max_len, .. } => *max_len,
            SqlType::Date => DATE_DISPLAY_LENGTH,
            SqlType::Time { fsp } => time_length(*fsp),
            SqlType::Enum { values } => values.iter().map(|v| v.chars().count()).max().unwrap_or(0) as u32,
            SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => datetime_length(*fsp),
        }
    }
}

/// Wire metadata of a table column exactly as MariaDB describes it: unlike `SqlType::field_meta`
/// this distinguishes CHAR/BINARY (STRING) from VARCHAR/VARBINARY (VAR_STRING) and honours an
/// integer's declared display width. The executor should prefer it for plain column references.
pub fn column_field_meta(ty: &ColumnType) -> FieldMeta {
    let mut base = SqlType::from_column(ty).field_meta();
    if base.flags & flags::NUM != 0 {
        base.flags &= !flags::BINARY;
    }
    match ty {
        ColumnType::Int { width, unsigned, display_width } => {
            FieldMeta { length: display_width.unwrap_or_else(|| int_display_width(width.bits(), *unsigned)), ..base }
        }
        ColumnType::Char { .. } | ColumnType::Binary { .. } => FieldMeta { field_type: FieldType::String, ..base },
        // An unsigned DECIMAL has no sign position: DECIMAL(5,2) UNSIGNED is 6 long.
        ColumnType::Decimal { unsigned: true, .. } => {
            FieldMeta { length: base.length - 1, flags: base.flags | flags::UNSIGNED, ..base }
        }
        // A BIT column is UNSIGNED only (MariaDB).
        ColumnType::Bit { .. } => FieldMeta { flags: flags::UNSIGNED, ..base },
        // YEAR is a zero-filled number (0 shows as 0000).
        ColumnType::Year => FieldMeta {
            field_type: FieldType::Year,
            length: YEAR_DISPLAY_LENGTH,
            decimals: 0,
            charset: charset::BINARY,
            flags: flags::UNSIGNED | flags::ZEROFILL | flags::NUM,
        },
        // ENUM and SET are STRING columns flagged ENUM / SET.
        ColumnType::Enum { .. } => FieldMeta { field_type: FieldType::String, flags: base.flags | flags::ENUM, ..base },
        ColumnType::Set { .. } => FieldMeta { field_type: FieldType::String, flags: base.flags | flags::SET, ..base },
        // UUID/INET4/INET6 are STRING columns flagged UNSIGNED BINARY (their binary form).
        ColumnType::Uuid | ColumnType::Inet4 | ColumnType::Inet6 => {
            FieldMeta { field_type: FieldType::String, flags: base.flags | flags::UNSIGNED | flags::BINARY, ..base }
        }
        // JSON is utf8mb4_bin LONGTEXT: a BLOB flagged BINARY.
        ColumnType::Json => FieldMeta { flags: base.flags | flags::BINARY, ..base },
        // FLOAT(M,D) is M long with D decimals (the text protocol prints D digits).
        ColumnType::Float { unsigned, digits } | ColumnType::Double { unsigned, digits } => {
            let (length, decimals) = digits.map_or((base.length, base.decimals), |(m, d)| (m as u32, d));
            let flags = if *unsigned { base.flags | flags::UNSIGNED } else { base.flags };
            FieldMeta { length, decimals, flags, ..base }
        }
        _ => base,
    }
}

/// `column_field_meta` plus what the column definition adds beyond its type: ZEROFILL, and the
/// BINARY flag MariaDB gives a text column of a binary collation (`utf8mb4_bin`).
pub fn column_def_field_meta(col: &ColumnDef) -> FieldMeta {
    let mut meta = column_field_meta(&col.ty);
    // A text column of a `_bin` collation is flagged BINARY, as MariaDB (its MY_CS_BINSORT).
    // Only `_bin` names can be such a collation: the name test keeps the catalog lookup (a
    // scan of every collation's name) off the metadata of every other column, which every
    // statement naming the table builds.
    let text = meta.charset != charset::BINARY
        && meta.flags & (flags::ENUM | flags::SET) == 0
        && col.collation.ends_with("_bin");
    if let (true, Some(c)) = (text, crate::charset::Collation::named(&col.collation)) {
        meta.flags |= binsort_flag(c);
    }
    if col.zerofill {
        FieldMeta { flags: meta.flags | flags::ZEROFILL, ..meta }
    } else {
        meta
    }
}
