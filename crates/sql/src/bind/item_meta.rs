//! The result metadata MariaDB sends for a select-list item that is not a plain column: what
//! its type gives (`computed_meta`), then MariaDB's own rules where they differ, each measured
//! against MariaDB 10.11 (decimals 39 on computed strings, length 1 for boolean functions, the
//! fixed widths of integer functions and literals). Drivers mostly ignore these fields; they are
//! sent as MariaDB sends them so that result metadata compares equal. Runs once per statement,
//! at bind time.

use sqlparser::ast;

use super::binder::{computed_meta, Bound};
use crate::plan::Expr;
use crate::types::{ColumnDefinition, Value};
use crate::value::SqlType;

/// What an item's text says about its metadata, which its bound expression no longer shows (a
/// CAST, an X'..' literal and a function's name are gone by then).
#[derive(Clone, Copy)]
pub(super) struct MetaHints {
    /// The decimals of the item when it is a computed string (`string_decimals`).
    string_decimals: u8,
    /// The length of the item when it is an integer function of fixed width (`int_length`).
    int_length: Option<u32>,
    /// Length and decimals of a DOUBLE function of fixed format (PERCENT_RANK, CUME_DIST).
    double_format: Option<(u32, u8)>,
}

impl MetaHints {
    /// For an item whose metadata travels in its `Bound::origin` (a column of a source).
    pub(super) const NONE: MetaHints = MetaHints { string_decimals: 0, int_length: None, double_format: None };
}

pub(super) fn hints(e: &ast::Expr) -> MetaHints {
    MetaHints { string_decimals: string_decimals(e), int_length: int_length(e), double_format: double_format(e) }
}

/// MariaDB's PERCENT_RANK and CUME_DIST are DOUBLEs of 10 decimals (length 17).
fn double_format(e: &ast::Expr) -> Option<(u32, u8)> {
    match e {
        ast::Expr::Nested(inner) => double_format(inner),
        ast::Expr::Function(f) if f.over.is_some() => {
            let name = function_name(f)?;
            ["PERCENT_RANK", "CUME_DIST"].iter().any(|n| n.eq_ignore_ascii_case(name)).then_some((17, 10))
        }
        _ => None,
    }
}

/// A select item of a query with window functions that is not one itself: MariaDB reads it
/// back from the window functions' temporary table, whose fields are nullable, unkeyed and
/// (numbers) not BINARY; an expression over window functions only loses BINARY. A recursive
/// CTE's columns are such fields too.
pub(super) fn through_window_table(m: &mut ColumnDefinition, reads_window: bool) {
    use crate::types::column_flags as f;
    if !reads_window {
        m.flags &= !(f::NOT_NULL | f::PRI_KEY | f::UNIQUE_KEY | f::MULTIPLE_KEY);
    }
    if m.flags & f::NUM != 0 {
        m.flags &= !f::BINARY;
    }
}

/// The name of a function called by a one-part name (`LENGTH(x)`, not `db.f(x)`).
fn function_name(f: &ast::Function) -> Option<&str> {
    match f.name.0.as_slice() {
        [ast::ObjectNamePart::Identifier(i)] => Some(&i.value),
        _ => None,
    }
}

/// A result column's metadata: the column's own for a plain column reference (under the
/// item's name), computed from the type otherwise.
pub(super) fn item_meta(bound: Bound, name: String, hints: MetaHints) -> ColumnDefinition {
    match bound.origin {
        Some(m) => {
            let mut m = *m;
            m.name = name;
            m
        }
        None => {
            let mut m = computed_meta(&name, &bound.ty, bound.nullable);
            // A UUID / INET value (MIN(uuid_column)) keeps its type's 0.
            if matches!(bound.ty, SqlType::Text { .. } | SqlType::Bytes { .. })
                && bound.ty.fixed_binary_kind().is_none()
            {
                m.decimals = hints.string_decimals;
            }
            if is_predicate(&bound.expr) && matches!(bound.ty, SqlType::Int { .. }) {
                // MariaDB's boolean functions (comparisons, IS NULL, LIKE, IN, AND ...) are
                // INT of length 1.
                m.length = 1;
            }
            if let (Some(length), SqlType::Int { .. }) = (hints.int_length, &bound.ty) {
                m.length = length;
            }
            if let (Some((length, decimals)), SqlType::Double) = (hints.double_format, &bound.ty) {
                m.length = length;
                m.decimals = decimals;
            }
            // An integer literal is as long as its digits (and sign), and a LONGLONG past 9 of
            // them (MariaDB's `type_handler_long_or_longlong`: 2147483647 is BIGINT).
            let literal_length = match (&bound.expr, &bound.ty) {
                (Expr::Literal(Value::Int(v)), SqlType::Int { .. }) => Some(v.to_string().len() as u32),
                (Expr::Literal(Value::UInt(v)), SqlType::Int { .. }) => Some(v.to_string().len() as u32),
                _ => None,
            };
            if let Some(length) = literal_length {
                const LONG_DIGITS: u32 = 9;
                m.length = length;
                if length > LONG_DIGITS {
                    m.field_type = crate::types::FieldType::LongLong;
                }
            }
            if let Expr::UserVar(_) = &bound.expr {
                user_var_meta(&mut m, &bound.ty);
            }
            if let (Expr::SysVar { .. }, SqlType::Int { bits: 64, .. }) = (&bound.expr, &bound.ty) {
                // A numeric system variable is a LONGLONG of 21 characters.
                m.length = 21;
            }
            m
        }
    }
}

/// A user variable read as a select item (MariaDB's Item_func_get_user_var): a string one is a
/// LONG_BLOB without the BLOB flag, a DOUBLE is 23 long.
fn user_var_meta(m: &mut ColumnDefinition, ty: &SqlType) {
    use crate::types::{column_flags, FieldType};
    const DOUBLE_LENGTH: u32 = 23;
    match ty {
        SqlType::Text { .. } | SqlType::Bytes { .. } => {
            m.field_type = FieldType::LongBlob;
            m.flags &= !column_flags::BLOB;
        }
        SqlType::Double => m.length = DOUBLE_LENGTH,
        _ => {}
    }
}

/// The display length MariaDB gives an integer function whose width does not depend on its
/// arguments (checked one by one against MariaDB 10.11's column metadata).
fn int_length(e: &ast::Expr) -> Option<u32> {
    const LENGTHS: &[(&str, u32)] = &[
        ("LENGTH", 10),
        ("CHAR_LENGTH", 10),
        ("CHARACTER_LENGTH", 10),
        ("OCTET_LENGTH", 10),
        ("BIT_LENGTH", 11),
        ("LOCATE", 11),
        ("INSTR", 11),
        ("POSITION", 11),
        ("FIND_IN_SET", 3),
        ("ASCII", 3),
        ("ORD", 7),
        ("CRC32", 10),
        ("DAYOFMONTH", 2),
        ("DAY", 2),
        ("MONTH", 2),
        ("YEAR", 4),
        ("HOUR", 2),
        ("MINUTE", 2),
        ("SECOND", 2),
        ("DAYOFWEEK", 1),
        ("DAYOFYEAR", 3),
        ("WEEKDAY", 1),
        ("WEEK", 2),
        ("QUARTER", 1),
        ("TO_DAYS", 6),
        ("YEARWEEK", 6),
        ("MICROSECOND", 6),
        ("COERCIBILITY", 10),
        ("COUNT", 21),
        ("ROW_COUNT", 21),
        ("FOUND_ROWS", 21),
        ("CONNECTION_ID", 10),
        ("LAST_INSERT_ID", 21),
        ("BIT_COUNT", 2),
        ("STRCMP", 2),
        ("ISNULL", 1),
        ("IS_FREE_LOCK", 1),
        ("GET_LOCK", 1),
        ("RELEASE_LOCK", 1),
        ("IS_USED_LOCK", 10),
        ("RELEASE_ALL_LOCKS", 11),
        ("SLEEP", 1),
        ("UNCOMPRESSED_LENGTH", 10),
        ("DATEDIFF", 8),
        ("TIMESTAMPDIFF", 21),
        ("PERIOD_DIFF", 6),
        ("TO_SECONDS", 12),
        ("JSON_LENGTH", 10),
        ("JSON_DEPTH", 10),
        ("JSON_CONTAINS", 1),
        ("REGEXP_INSTR", 11),
        ("TIME_TO_SEC", 17),
        ("PERIOD_ADD", 6),
        ("LENGTHB", 10),
        ("IS_IPV4", 1),
        ("IS_IPV6", 1),
        ("IS_IPV4_COMPAT", 1),
        ("IS_IPV4_MAPPED", 1),
        ("UUID_SHORT", 21),
        ("INET_ATON", 21),
        ("ROW_NUMBER", 21),
        ("RANK", 21),
        ("DENSE_RANK", 21),
        ("NTILE", 21),
    ];
    match e {
        ast::Expr::Nested(inner) => int_length(inner),
        ast::Expr::Position { .. } => Some(11),
        ast::Expr::Function(f) => {
            let name = function_name(f)?;
            LENGTHS.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, len)| *len)
        }
        _ => None,
    }
}

/// Whether the expression is one of MariaDB's boolean functions (`Item_bool_func`).
fn is_predicate(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Cmp { .. }
            | Expr::IsNull { .. }
            | Expr::IsBool { .. }
            | Expr::Like { .. }
            | Expr::InList { .. }
            | Expr::Between { .. }
            | Expr::Not(_)
            | Expr::And(..)
            | Expr::Or(..)
            | Expr::Xor(..)
    ) || matches!(e, Expr::Func { func, .. } if func.0.name == "REGEXP")
}

/// MariaDB's "decimals" of a computed string result: NOT_FIXED_DEC (39) for literals, string
/// functions, CASE/IF/COALESCE, aggregates and user variables, 0 for the items that set it
/// themselves (CAST, X'..' and b'..' literals, HEX and the date-formatting functions). Drivers
/// mostly ignore it; it is sent as MariaDB sends it so that result metadata compares equal.
fn string_decimals(e: &ast::Expr) -> u8 {
    const NOT_FIXED_DEC: u8 = 39;
    /// Checked one by one against MariaDB 10.11's column metadata.
    const FIXED: [&str; 16] = [
        "HEX",
        "UNHEX",
        "DATE_FORMAT",
        "TIME_FORMAT",
        "MONTHNAME",
        "DAYNAME",
        "INET_NTOA",
        "INET6_NTOA",
        "GET_FORMAT",
        "GROUP_CONCAT",
        "DATE_ADD",
        "DATE_SUB",
        "ADDDATE",
        "SUBDATE",
        "JSON_ARRAYAGG",
        "JSON_OBJECTAGG",
    ];
    match e {
        ast::Expr::Nested(inner) => string_decimals(inner),
        ast::Expr::Cast { .. } => 0,
        ast::Expr::Convert { data_type: Some(_), .. } => 0,
        ast::Expr::Value(v) => match v.value {
            ast::Value::HexStringLiteral(_)
            | ast::Value::SingleQuotedByteStringLiteral(_)
            | ast::Value::DoubleQuotedByteStringLiteral(_) => 0,
            _ => NOT_FIXED_DEC,
        },
        ast::Expr::Function(f) => match function_name(f) {
            Some(name) if FIXED.iter().any(|n| n.eq_ignore_ascii_case(name)) => 0,
            _ => NOT_FIXED_DEC,
        },
        _ => NOT_FIXED_DEC,
    }
}
