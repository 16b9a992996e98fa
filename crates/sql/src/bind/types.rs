//! SQL type syntax: column types of CREATE TABLE and targets of CAST/CONVERT.

use selkie_storage::{ColumnType, IntWidth, LobSize, DECIMAL_MAX_PRECISION, DECIMAL_MAX_SCALE};
use sqlparser::ast::{self, DataType, ExactNumberInfo};

use crate::charset::FixedBinary;
use crate::error;
use crate::error::SqlError;
use crate::value::{self, CastTarget, IntervalUnit};

/// Longest CHAR, in characters.
pub const MAX_CHAR_LEN: u64 = 255;
/// Longest VARCHAR in characters for utf8mb4 (65,532 bytes / 4), as MariaDB reports in 1074.
pub const MAX_VARCHAR_CHARS: u64 = 16383;
/// Longest BINARY.
pub const MAX_BINARY_LEN: u64 = 255;
/// Longest VARBINARY in bytes.
pub const MAX_VARBINARY_LEN: u64 = 65532;
/// Default DECIMAL precision when none is given.
pub const DEFAULT_DECIMAL_PRECISION: u8 = 10;
/// Most fractional-second digits of DATETIME/TIMESTAMP.
pub const MAX_FSP: u64 = 6;

fn int(width: IntWidth, unsigned: bool, display: &Option<u64>) -> ColumnType {
    ColumnType::Int { width, unsigned, display_width: display.map(|d| d.min(255) as u32) }
}

fn char_len(len: &Option<ast::CharacterLength>, default: u64) -> u64 {
    match len {
        Some(ast::CharacterLength::IntegerLength { length, .. }) => *length,
        Some(ast::CharacterLength::Max) => u64::MAX,
        None => default,
    }
}

/// Largest M of FLOAT(M,D) / DOUBLE(M,D) (1439 beyond it).
pub const MAX_FLOAT_DISPLAY_WIDTH: u64 = 255;
/// Largest D of FLOAT(M,D) / DOUBLE(M,D) (1425 beyond it).
pub const MAX_FLOAT_SCALE: u8 = 30;
/// FLOAT(p): up to 24 bits of precision is FLOAT, up to 53 DOUBLE, more is 1063.
const FLOAT_MAX_SINGLE_BITS: u64 = 24;
const FLOAT_MAX_DOUBLE_BITS: u64 = 53;

/// FLOAT / DOUBLE with MariaDB's checks: FLOAT(p) picks the width, (M,D) is kept.
fn floating(info: &ExactNumberInfo, double: bool, unsigned: bool, col: &str) -> Result<ColumnType, SqlError> {
    let (double, digits) = match *info {
        ExactNumberInfo::None => (double, None),
        ExactNumberInfo::Precision(p) if double => return Err(error::syntax(&format!("{p})"), 1)),
        ExactNumberInfo::Precision(p) if p > FLOAT_MAX_DOUBLE_BITS => {
            return Err(error::incorrect_column_specifier(col))
        }
        ExactNumberInfo::Precision(p) => (p > FLOAT_MAX_SINGLE_BITS, None),
        ExactNumberInfo::PrecisionAndScale(m, d) => {
            if m > MAX_FLOAT_DISPLAY_WIDTH {
                return Err(error::display_width_out_of_range(col, MAX_FLOAT_DISPLAY_WIDTH));
            }
            if d < 0 || d as u64 > m {
                return Err(error::scale_above_precision(col));
            }
            if d as u64 > MAX_FLOAT_SCALE as u64 {
                return Err(error::too_big_scale(d as u64, col, MAX_FLOAT_SCALE));
            }
            (double, Some((m as u8, d as u8)))
        }
    };
    Ok(if double { ColumnType::Double { unsigned, digits } } else { ColumnType::Float { unsigned, digits } })
}

fn decimal(info: &ExactNumberInfo, col: &str) -> Result<ColumnType, SqlError> {
    let (p, s) = match info {
        ExactNumberInfo::None => (DEFAULT_DECIMAL_PRECISION as u64, 0i64),
        ExactNumberInfo::Precision(p) => (*p, 0),
        ExactNumberInfo::PrecisionAndScale(p, s) => (*p, *s),
    };
    if s < 0 || s as u64 > DECIMAL_MAX_SCALE as u64 {
        return Err(error::too_big_scale(s.max(0) as u64, col, DECIMAL_MAX_SCALE));
    }
    if p > DECIMAL_MAX_PRECISION as u64 {
        return Err(error::too_big_precision(p, col, DECIMAL_MAX_PRECISION));
    }
    if (s as u64) > p {
        return Err(error::scale_above_precision(col));
    }
    // DECIMAL(0) is DECIMAL(10,0) in MariaDB.
    let p = if p == 0 { DEFAULT_DECIMAL_PRECISION as u64 } else { p };
    Ok(ColumnType::Decimal { precision: p as u8, scale: s as u8, unsigned: false })
}

fn fsp(p: &Option<u64>, col: &str) -> Result<u8, SqlError> {
    match p {
        None => Ok(0),
        Some(p) if *p <= MAX_FSP => Ok(*p as u8),
        Some(p) => Err(error::too_big_fsp(*p, col)),
    }
}

/// ENUM's values (ClickHouse's `'a' = 1` members are not MariaDB syntax).
fn enum_values(members: &[ast::EnumMember]) -> Result<Vec<String>, SqlError> {
    members
        .iter()
        .map(|m| match m {
            ast::EnumMember::Name(n) => Ok(n.clone()),
            ast::EnumMember::NamedValue(n, _) => Err(error::syntax(n, 1)),
        })
        .collect()
}

/// The stored type of a CREATE TABLE column, with MariaDB's limits (1074, 1426, 1425).
/// Returns the type and whether UNSIGNED was given (for types that allow it).
pub fn column_type(dt: &DataType, col: &str) -> Result<ColumnType, SqlError> {
    use DataType as D;
    Ok(match dt {
        D::TinyInt(d) => int(IntWidth::Tiny, false, d),
        D::TinyIntUnsigned(d) => int(IntWidth::Tiny, true, d),
        D::UTinyInt => int(IntWidth::Tiny, true, &None),
        D::SmallInt(d) | D::Int2(d) => int(IntWidth::Small, false, d),
        D::SmallIntUnsigned(d) | D::Int2Unsigned(d) => int(IntWidth::Small, true, d),
        D::USmallInt => int(IntWidth::Small, true, &None),
        D::MediumInt(d) => int(IntWidth::Medium, false, d),
        D::MediumIntUnsigned(d) => int(IntWidth::Medium, true, d),
        D::Int(d) | D::Integer(d) | D::Int4(d) => int(IntWidth::Int, false, d),
        D::IntUnsigned(d) | D::IntegerUnsigned(d) | D::Int4Unsigned(d) => int(IntWidth::Int, true, d),
        D::BigInt(d) | D::Int8(d) => int(IntWidth::Big, false, d),
        D::BigIntUnsigned(d) | D::Int8Unsigned(d) => int(IntWidth::Big, true, d),
        D::UBigInt => int(IntWidth::Big, true, &None),
        D::Bool | D::Boolean => ColumnType::Int { width: IntWidth::Tiny, unsigned: false, display_width: Some(1) },
        D::Decimal(i) | D::Numeric(i) | D::Dec(i) => decimal(i, col)?,
        D::DecimalUnsigned(i) | D::DecUnsigned(i) => match decimal(i, col)? {
            ColumnType::Decimal { precision, scale, .. } => ColumnType::Decimal { precision, scale, unsigned: true },
            other => other,
        },
        D::Float(i) => floating(i, false, false, col)?,
        D::FloatUnsigned(i) => floating(i, false, true, col)?,
        D::Float4 => ColumnType::FLOAT,
        D::Double(i) => floating(i, true, false, col)?,
        D::DoubleUnsigned(i) => floating(i, true, true, col)?,
        // MariaDB's REAL is DOUBLE unless REAL_AS_FLOAT.
        D::Real | D::DoublePrecision | D::Float8 | D::Float64 => ColumnType::DOUBLE,
        D::RealUnsigned | D::DoublePrecisionUnsigned => ColumnType::Double { unsigned: true, digits: None },
        D::Char(l) | D::Character(l) => {
            let n = char_len(l, 1);
            if n > MAX_CHAR_LEN {
                return Err(error::column_too_long(col, MAX_CHAR_LEN));
            }
            ColumnType::Char { len: n as u32 }
        }
        D::Varchar(l) | D::CharacterVarying(l) | D::CharVarying(l) | D::Nvarchar(l) => {
            let n = match l {
                Some(_) => char_len(l, 0),
                None => return Err(error::syntax(&dt.to_string(), 1)),
            };
            if n > MAX_VARCHAR_CHARS {
                return Err(error::column_too_long(col, MAX_VARCHAR_CHARS));
            }
            ColumnType::VarChar { len: n as u32 }
        }
        D::Text => ColumnType::Text { size: LobSize::Normal },
        D::TinyText => ColumnType::Text { size: LobSize::Tiny },
        D::MediumText => ColumnType::Text { size: LobSize::Medium },
        D::LongText => ColumnType::Text { size: LobSize::Long },
        D::Binary(l) => {
            let n = l.unwrap_or(1);
            if n > MAX_BINARY_LEN {
                return Err(error::column_too_long(col, MAX_BINARY_LEN));
            }
            ColumnType::Binary { len: n as u32 }
        }
        D::Varbinary(l) => {
            let n = match l {
                Some(ast::BinaryLength::IntegerLength { length }) => *length,
                Some(ast::BinaryLength::Max) => u64::MAX,
                None => return Err(error::syntax(&dt.to_string(), 1)),
            };
            if n > MAX_VARBINARY_LEN {
                return Err(error::column_too_long(col, MAX_VARBINARY_LEN));
            }
            ColumnType::VarBinary { len: n as u32 }
        }
        D::Blob(_) => ColumnType::Blob { size: LobSize::Normal },
        D::TinyBlob => ColumnType::Blob { size: LobSize::Tiny },
        D::MediumBlob => ColumnType::Blob { size: LobSize::Medium },
        D::LongBlob => ColumnType::Blob { size: LobSize::Long },
        D::Date => ColumnType::Date,
        D::Datetime(p) => ColumnType::DateTime { fsp: fsp(p, col)? },
        D::Timestamp(p, _) => ColumnType::Timestamp { fsp: fsp(p, col)? },
        D::Time(p, _) => ColumnType::Time { fsp: fsp(p, col)? },
        D::Enum(members, _) => ColumnType::Enum { values: enum_values(members)? },
        D::Set(values) => ColumnType::Set { values: values.clone() },
        D::JSON => ColumnType::Json,
        // BIT is BIT(1), and so is BIT(0) (MariaDB).
        D::Bit(n) => match n.unwrap_or(1) {
            n if n > value::MAX_BIT_WIDTH => return Err(error::display_width_out_of_range(col, value::MAX_BIT_WIDTH)),
            n => ColumnType::Bit { width: n.max(1) as u8 },
        },
        D::Uuid => ColumnType::Uuid,
        D::Custom(name, modifiers) if modifiers.is_empty() && name.to_string().eq_ignore_ascii_case("INET4") => {
            ColumnType::Inet4
        }
        D::Custom(name, modifiers) if modifiers.is_empty() && name.to_string().eq_ignore_ascii_case("INET6") => {
            ColumnType::Inet6
        }
        D::Custom(name, modifiers) if name.to_string().eq_ignore_ascii_case("YEAR") => {
            // YEAR(2) is gone from MariaDB: YEAR(n) is YEAR(4).
            match modifiers.as_slice() {
                [] => ColumnType::Year,
                [n] if n == "4" || n == "2" => ColumnType::Year,
                _ => return Err(error::syntax(&dt.to_string(), 1)),
            }
        }
        other => return Err(error::not_supported(&format!("column type {other}"))),
    })
}

/// `CHAR[(n)] CHARACTER SET cs` as a cast's type (read as a custom type, see
/// `parse::cast_charset`): the CHAR cast and the character set's name.
pub fn cast_to_charset(dt: &DataType) -> Result<Option<(CastTarget, String)>, SqlError> {
    let DataType::Custom(name, modifiers) = dt else {
        return Ok(None);
    };
    let [ast::ObjectNamePart::Identifier(id)] = name.0.as_slice() else {
        return Ok(None);
    };
    // NCHAR is CHAR of the national character set, utf8mb3 (MariaDB).
    let national = id.value.eq_ignore_ascii_case("NCHAR").then_some("utf8mb3");
    let Some(charset) = national.or_else(|| crate::parse::cast_charset::charset_of_custom_type(&id.value)) else {
        return Ok(None);
    };
    let len = match modifiers.as_slice() {
        [] => None,
        [n] => Some(n.parse::<u64>().map_err(|_| error::syntax(&dt.to_string(), 1))?.min(u32::MAX as u64) as u32),
        _ => return Err(error::syntax(&dt.to_string(), 1)),
    };
    Ok(Some((CastTarget::Char { len }, charset.to_string())))
}

/// CAST(x AS type) / CONVERT(x, type).
pub fn cast_target(dt: &DataType) -> Result<CastTarget, SqlError> {
    cast_target_of(dt, "")
}

/// `cast_target` for a CAST of the expression MariaDB names `what` in its 1425/1426 errors.
pub fn cast_target_of(dt: &DataType, what: &str) -> Result<CastTarget, SqlError> {
    use DataType as D;
    Ok(match dt {
        D::Signed | D::SignedInteger | D::Int(_) | D::Integer(_) | D::BigInt(_) => CastTarget::Signed,
        D::Unsigned | D::UnsignedInteger | D::IntUnsigned(_) | D::BigIntUnsigned(_) => CastTarget::Unsigned,
        D::Decimal(i) | D::Numeric(i) | D::Dec(i) => {
            let (p, s) = match i {
                ExactNumberInfo::None => (DEFAULT_DECIMAL_PRECISION as u64, 0),
                ExactNumberInfo::Precision(p) => (*p, 0),
                ExactNumberInfo::PrecisionAndScale(p, s) => (*p, (*s).max(0) as u64),
            };
            if s > DECIMAL_MAX_SCALE as u64 {
                return Err(error::too_big_scale(s, what, DECIMAL_MAX_SCALE));
            }
            if p > DECIMAL_MAX_PRECISION as u64 {
                return Err(error::too_big_precision(p, what, DECIMAL_MAX_PRECISION));
            }
            if s > p {
                return Err(error::scale_above_precision(""));
            }
            CastTarget::Decimal { precision: p.max(1) as u8, scale: s as u8 }
        }
        D::Double(_) | D::DoublePrecision | D::Real => CastTarget::Double,
        D::Float(_) => CastTarget::Float,
        D::Char(l) | D::Character(l) | D::Varchar(l) | D::Nvarchar(l) => CastTarget::Char {
            len: match l {
                Some(ast::CharacterLength::IntegerLength { length, .. }) => Some((*length).min(u32::MAX as u64) as u32),
                _ => None,
            },
        },
        D::Binary(l) => CastTarget::Binary { len: l.map(|n| n.min(u32::MAX as u64) as u32) },
        D::Date => CastTarget::Date,
        D::Datetime(p) | D::Timestamp(p, _) => CastTarget::DateTime { fsp: fsp(p, "")? },
        D::Time(p, _) => CastTarget::Time { fsp: fsp(p, "")? },
        D::Uuid => CastTarget::FixedBinary(FixedBinary::Uuid),
        D::Custom(name, modifiers) if modifiers.is_empty() && name.to_string().eq_ignore_ascii_case("INET4") => {
            CastTarget::FixedBinary(FixedBinary::Inet4)
        }
        D::Custom(name, modifiers) if modifiers.is_empty() && name.to_string().eq_ignore_ascii_case("INET6") => {
            CastTarget::FixedBinary(FixedBinary::Inet6)
        }
        other => return Err(error::not_supported(&format!("CAST AS {other}"))),
    })
}

/// The unit of an INTERVAL expression.
pub fn interval_unit(f: &ast::DateTimeField) -> Result<IntervalUnit, SqlError> {
    use ast::DateTimeField as F;
    Ok(match f {
        F::Microsecond | F::Microseconds => IntervalUnit::Microsecond,
        F::Second | F::Seconds => IntervalUnit::Second,
        F::Minute | F::Minutes => IntervalUnit::Minute,
        F::Hour | F::Hours => IntervalUnit::Hour,
        F::Day | F::Days => IntervalUnit::Day,
        F::Week(_) | F::Weeks => IntervalUnit::Week,
        F::Month | F::Months => IntervalUnit::Month,
        F::Quarter => IntervalUnit::Quarter,
        F::Year | F::Years => IntervalUnit::Year,
        other => return Err(error::not_supported(&format!("INTERVAL unit {other}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_type(sql: &str) -> DataType {
        use sqlparser::dialect::MySqlDialect;
        use sqlparser::parser::Parser;
        let stmt = Parser::parse_sql(&MySqlDialect {}, &format!("CREATE TABLE t (c {sql})")).unwrap();
        match &stmt[0] {
            ast::Statement::CreateTable(ct) => ct.columns[0].data_type.clone(),
            _ => panic!("not a create table"),
        }
    }

    #[test]
    fn maps_sysbench_and_common_types() {
        assert_eq!(
            column_type(&parse_type("INTEGER"), "c").unwrap(),
            ColumnType::Int { width: IntWidth::Int, unsigned: false, display_width: None }
        );
        assert_eq!(column_type(&parse_type("CHAR(120)"), "c").unwrap(), ColumnType::Char { len: 120 });
        assert_eq!(
            column_type(&parse_type("BIGINT UNSIGNED"), "c").unwrap(),
            ColumnType::Int { width: IntWidth::Big, unsigned: true, display_width: None }
        );
        assert_eq!(
            column_type(&parse_type("DECIMAL(10,2)"), "c").unwrap(),
            ColumnType::Decimal { precision: 10, scale: 2, unsigned: false }
        );
        assert_eq!(column_type(&parse_type("DATETIME(6)"), "c").unwrap(), ColumnType::DateTime { fsp: 6 });
        assert_eq!(column_type(&parse_type("MEDIUMTEXT"), "c").unwrap(), ColumnType::Text { size: LobSize::Medium });
        assert_eq!(column_type(&parse_type("VARBINARY(5)"), "c").unwrap(), ColumnType::VarBinary { len: 5 });
        assert_eq!(
            column_type(&parse_type("BOOLEAN"), "c").unwrap(),
            ColumnType::Int { width: IntWidth::Tiny, unsigned: false, display_width: Some(1) }
        );
        assert_eq!(column_type(&parse_type("DOUBLE"), "c").unwrap(), ColumnType::DOUBLE);
    }

    #[test]
    fn enforces_mariadb_limits() {
        assert_eq!(column_type(&parse_type("CHAR(300)"), "a").unwrap_err().code, 1074);
        assert_eq!(column_type(&parse_type("VARCHAR(20000)"), "a").unwrap_err().code, 1074);
        let e = column_type(&parse_type("VARCHAR(20000)"), "a").unwrap_err();
        assert_eq!(e.message, "Column length too big for column 'a' (max = 16383); use BLOB or TEXT instead");
        assert_eq!(column_type(&parse_type("DATETIME(7)"), "a").unwrap_err().code, 1426);
        assert_eq!(column_type(&parse_type("DECIMAL(5,6)"), "a").unwrap_err().code, 1427);
    }
}
