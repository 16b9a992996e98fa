//! Validation and normalization of values assigned to system variables (MariaDB's rules: what
//! each type accepts, clamping with warning 1292, canonical spelling), and their SHOW form.

use selkie_storage::{Decimal, IsolationLevel};

use super::def::{Init, Kind, VarDef};
use super::registry;
use super::{charsets, errors};
use crate::error::SqlError;
use crate::types::Value;
use crate::types::{WarnLevel, Warning};

/// sql_mode flags the executor cares about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SqlMode {
    pub strict_trans_tables: bool,
    pub strict_all_tables: bool,
    pub error_for_division_by_zero: bool,
    pub no_zero_date: bool,
    pub no_zero_in_date: bool,
    pub only_full_group_by: bool,
    pub no_auto_value_on_zero: bool,
    pub pipes_as_concat: bool,
    pub ansi_quotes: bool,
    pub no_backslash_escapes: bool,
    pub no_engine_substitution: bool,
}

/// Digits after the point of DOUBLE variables: MariaDB prints them as `10.000000`.
pub(crate) const DOUBLE_SCALE: u8 = 6;

/// sql_mode members in bit order (MariaDB 10.11's `ENUM_VALUE_LIST`); bit i = 1 << i.
pub(crate) const SQL_MODE_NAMES: [&str; 35] = [
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "IGNORE_BAD_TABLE_OPTIONS",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "POSTGRESQL",
    "ORACLE",
    "MSSQL",
    "DB2",
    "MAXDB",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "NO_FIELD_OPTIONS",
    "MYSQL323",
    "MYSQL40",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "NO_AUTO_CREATE_USER",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "EMPTY_STRING_IS_NULL",
    "SIMULTANEOUS_ASSIGNMENT",
    "TIME_ROUND_FRACTIONAL",
];

fn mode_bit(name: &str) -> u64 {
    match SQL_MODE_NAMES.iter().position(|m| *m == name) {
        Some(i) => 1 << i,
        None => panic!("{name} is not an sql_mode member"),
    }
}

/// Combination modes set other modes too (MariaDB's `expand_sql_mode`).
fn expand_sql_mode(bits: u64) -> u64 {
    let has = |name: &str| bits & mode_bit(name) != 0;
    let mut out = bits;
    let foreign =
        ["PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "NO_KEY_OPTIONS", "NO_TABLE_OPTIONS", "NO_FIELD_OPTIONS"];
    let mut add = |names: &[&str]| {
        for n in names {
            out |= mode_bit(n);
        }
    };
    if has("ANSI") {
        add(&["REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE"]);
    }
    if has("POSTGRESQL") || has("MSSQL") || has("DB2") {
        add(&foreign);
    }
    if has("ORACLE") {
        add(&foreign);
        add(&["NO_AUTO_CREATE_USER", "SIMULTANEOUS_ASSIGNMENT"]);
    }
    if has("MAXDB") {
        add(&foreign);
        add(&["NO_AUTO_CREATE_USER"]);
    }
    if has("MYSQL323") || has("MYSQL40") {
        add(&["HIGH_NOT_PRECEDENCE"]);
    }
    if has("TRADITIONAL") {
        add(&[
            "STRICT_TRANS_TABLES",
            "STRICT_ALL_TABLES",
            "NO_ZERO_IN_DATE",
            "NO_ZERO_DATE",
            "ERROR_FOR_DIVISION_BY_ZERO",
            "NO_AUTO_CREATE_USER",
            "NO_ENGINE_SUBSTITUTION",
        ]);
    }
    out
}

/// Members of a comma-separated set value as a bitmask; None if a member is unknown.
/// Empty members are skipped and trailing spaces ignored; a leading space makes the member
/// unknown (all as MariaDB's set parser does).
fn parse_set(members: &[&str], text: &str) -> Option<u64> {
    let mut bits = 0u64;
    for part in text.split(',') {
        let part = part.trim_end_matches(' ');
        if part.is_empty() {
            continue;
        }
        let i = members.iter().position(|m| m.eq_ignore_ascii_case(part))?;
        bits |= 1 << i;
    }
    Some(bits)
}

fn set_text(members: &[&str], bits: u64) -> String {
    let names: Vec<&str> = members.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0).map(|(_, m)| *m).collect();
    names.join(",")
}

/// The engines MariaDB 10.11 has under their names (lower case) and the name it shows.
/// Every table lives in Selkie's transactional engine whatever it names: the name is kept and
/// shown (SHOW CREATE TABLE, TABLES.ENGINE) so that schemas, dumps and ORMs that read it back see
/// what they wrote. What differs from a real MyISAM/Aria/MEMORY table: ROLLBACK undoes its
/// changes too (MariaDB warns 1196 instead), and MEMORY takes TEXT and BLOB columns.
const ENGINES: [(&str, &str); 5] =
    [("innodb", "InnoDB"), ("myisam", "MyISAM"), ("aria", "Aria"), ("memory", "MEMORY"), ("heap", "MEMORY")];

/// The shown name of a storage engine MariaDB knows, None for others.
pub(crate) fn storage_engine(name: &str) -> Option<&'static str> {
    ENGINES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, shown)| *shown)
}

/// The executor's view of an sql_mode value (canonical text as stored).
pub(crate) fn sql_mode_flags(text: &[u8]) -> SqlMode {
    let text = String::from_utf8_lossy(text);
    let bits = parse_set(&SQL_MODE_NAMES, &text).unwrap_or(0);
    let has = |name: &str| bits & mode_bit(name) != 0;
    SqlMode {
        strict_trans_tables: has("STRICT_TRANS_TABLES"),
        strict_all_tables: has("STRICT_ALL_TABLES"),
        error_for_division_by_zero: has("ERROR_FOR_DIVISION_BY_ZERO"),
        no_zero_date: has("NO_ZERO_DATE"),
        no_zero_in_date: has("NO_ZERO_IN_DATE"),
        only_full_group_by: has("ONLY_FULL_GROUP_BY"),
        no_auto_value_on_zero: has("NO_AUTO_VALUE_ON_ZERO"),
        pipes_as_concat: has("PIPES_AS_CONCAT"),
        ansi_quotes: has("ANSI_QUOTES"),
        no_backslash_escapes: has("NO_BACKSLASH_ESCAPES"),
        no_engine_substitution: has("NO_ENGINE_SUBSTITUTION"),
    }
}

/// tx_isolation's members, in the order of `Kind::Enum` in the table.
pub(crate) fn isolation_from_text(text: &[u8]) -> IsolationLevel {
    match text {
        b"READ-UNCOMMITTED" => IsolationLevel::ReadUncommitted,
        b"READ-COMMITTED" => IsolationLevel::ReadCommitted,
        b"SERIALIZABLE" => IsolationLevel::Serializable,
        _ => {
            debug_assert_eq!(text, b"REPEATABLE-READ", "tx_isolation holds canonical names only");
            IsolationLevel::RepeatableRead
        }
    }
}

pub(crate) fn isolation_text(level: IsolationLevel) -> &'static str {
    match level {
        IsolationLevel::ReadUncommitted => "READ-UNCOMMITTED",
        IsolationLevel::ReadCommitted => "READ-COMMITTED",
        IsolationLevel::RepeatableRead => "REPEATABLE-READ",
        IsolationLevel::Serializable => "SERIALIZABLE",
    }
}

/// SYSTEM, '+hh:mm', or a zone name (spelled as when the process first used it).
fn normalize_time_zone(s: &str) -> Option<String> {
    crate::value::TimeZone::parse(s).map(|z| z.name())
}

pub(crate) fn double_value(v: f64) -> Value {
    let scaled = (v * 10f64.powi(DOUBLE_SCALE as i32)).round();
    Value::Decimal(Decimal::new(scaled as i128, DOUBLE_SCALE))
}

pub(crate) fn initial_value(def: &VarDef) -> Value {
    match def.init {
        Init::Null => Value::Null,
        Init::Bool(b) => Value::Int(i64::from(b)),
        Init::UInt(v) => Value::UInt(v),
        Init::Int(v) => Value::Int(v),
        Init::Double(v) => double_value(v),
        Init::Str(s) => Value::Bytes(s.as_bytes().to_vec()),
    }
}

/// The value as MariaDB quotes it in error messages.
pub(crate) fn value_text(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Double(d) => d.to_string(),
        Value::Decimal(d) => d.to_string(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Date(d) => d.to_string(),
        Value::DateTime(dt) => dt.format(6),
    }
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        _ => None,
    }
}

/// An integer input (any integer literal); None for strings, decimals, doubles, dates.
fn integer_of(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(i128::from(*i)),
        Value::UInt(u) => Some(i128::from(*u)),
        _ => None,
    }
}

fn truncated(name: &str, v: &Value) -> Warning {
    Warning {
        level: WarnLevel::Warning,
        code: 1292,
        message: format!("Truncated incorrect {name} value: '{}'", value_text(v)),
    }
}

/// Validates and normalizes `value` for `def`. Clamping adds warning 1292 to `warnings`.
pub(crate) fn convert(def: &VarDef, value: &Value, warnings: &mut Vec<Warning>) -> Result<Value, SqlError> {
    let name = def.name;
    if value.is_null() {
        return match def.kind {
            Kind::Str { nullable: true }
            | Kind::Charset { nullable: true }
            | Kind::StorageEngine { nullable: true } => Ok(Value::Null),
            Kind::AliasOf(target) => convert(registry::def(registry::slot_of(target)), value, warnings),
            _ => Err(errors::wrong_value(name, "NULL")),
        };
    }
    match def.kind {
        Kind::AliasOf(target) => convert(registry::def(registry::slot_of(target)), value, warnings),
        Kind::Bool => {
            if let Some(i) = integer_of(value) {
                return match i {
                    0 | 1 => Ok(Value::Int(i as i64)),
                    _ => Err(errors::wrong_value(name, &value_text(value))),
                };
            }
            let text = text_of(value).ok_or_else(|| errors::wrong_type(name))?;
            if text.eq_ignore_ascii_case("ON") || text.eq_ignore_ascii_case("TRUE") {
                Ok(Value::Int(1))
            } else if text.eq_ignore_ascii_case("OFF") || text.eq_ignore_ascii_case("FALSE") {
                Ok(Value::Int(0))
            } else {
                Err(errors::wrong_value(name, &text))
            }
        }
        Kind::UInt { min, max, block } => {
            debug_assert!(block >= 1 && min <= max);
            let v = integer_of(value).ok_or_else(|| errors::wrong_type(name))?;
            let clamped = v.clamp(i128::from(min), i128::from(max)) as u64;
            let rounded = clamped - clamped % block;
            let stored = rounded.max(min);
            if i128::from(stored) != v {
                warnings.push(truncated(name, value));
            }
            Ok(Value::UInt(stored))
        }
        Kind::Int { min, max } => {
            let v = integer_of(value).ok_or_else(|| errors::wrong_type(name))?;
            let clamped = v.clamp(i128::from(min), i128::from(max)) as i64;
            if i128::from(clamped) != v {
                warnings.push(truncated(name, value));
            }
            Ok(Value::Int(clamped))
        }
        Kind::Double { min, max } => {
            let v = match value {
                Value::Int(i) => *i as f64,
                Value::UInt(u) => *u as f64,
                Value::Double(d) if d.is_finite() => *d,
                Value::Decimal(d) => d.to_f64(),
                _ => return Err(errors::wrong_type(name)),
            };
            let clamped = v.clamp(min, max);
            if clamped != v {
                warnings.push(truncated(name, value));
            }
            Ok(double_value(clamped))
        }
        Kind::Enum(members) => {
            if let Some(i) = integer_of(value) {
                return match usize::try_from(i).ok().and_then(|i| members.get(i)) {
                    Some(m) => Ok(Value::Bytes(m.as_bytes().to_vec())),
                    None => Err(errors::wrong_value(name, &value_text(value))),
                };
            }
            let text = text_of(value).ok_or_else(|| errors::wrong_type(name))?;
            match members.iter().find(|m| m.eq_ignore_ascii_case(&text)) {
                Some(m) => Ok(Value::Bytes(m.as_bytes().to_vec())),
                None => Err(errors::wrong_value(name, &text)),
            }
        }
        Kind::Set(members) => convert_set(name, members, value, |bits| bits),
        Kind::SqlMode => convert_set(name, &SQL_MODE_NAMES, value, expand_sql_mode),
        Kind::Str { .. } => {
            let text = text_of(value).ok_or_else(|| errors::wrong_type(name))?;
            Ok(Value::Bytes(text.into_bytes()))
        }
        Kind::Charset { .. } => {
            if let Some(id) = integer_of(value) {
                let found = u64::try_from(id).ok().and_then(charsets::collation_by_id);
                return match found {
                    Some(c) => Ok(Value::Bytes(c.charset.as_bytes().to_vec())),
                    None => Err(errors::unknown_charset(&value_text(value))),
                };
            }
            let text = text_of(value).ok_or_else(|| errors::wrong_type(name))?;
            match charsets::charset(&text) {
                Some(c) => Ok(Value::Bytes(c.name.as_bytes().to_vec())),
                None => Err(errors::unknown_charset(&text)),
            }
        }
        Kind::Collation => {
            if let Some(id) = integer_of(value) {
                let found = u64::try_from(id).ok().and_then(charsets::collation_by_id);
                return match found {
                    Some(c) => Ok(Value::Bytes(c.name.as_bytes().to_vec())),
                    None => Err(errors::unknown_collation(&value_text(value))),
                };
            }
            let text = text_of(value).ok_or_else(|| errors::wrong_type(name))?;
            match charsets::collation(&text) {
                Some(c) => Ok(Value::Bytes(c.name.as_bytes().to_vec())),
                None => Err(errors::unknown_collation(&text)),
            }
        }
        Kind::TimeZone => {
            let text = text_of(value).ok_or_else(|| errors::wrong_type(name))?;
            match normalize_time_zone(&text) {
                Some(tz) => Ok(Value::Bytes(tz.into_bytes())),
                None => Err(errors::unknown_time_zone(&text)),
            }
        }
        Kind::StorageEngine { .. } => {
            // Every table lives in Selkie's engine, which SHOW ENGINES lists as InnoDB.
            let text = text_of(value).ok_or_else(|| errors::wrong_type(name))?;
            if text.eq_ignore_ascii_case("InnoDB") {
                Ok(Value::Bytes(b"InnoDB".to_vec()))
            } else {
                Err(errors::unknown_engine(&text))
            }
        }
        Kind::Locale => {
            // Selkie's messages and date names are English only.
            match value {
                Value::Int(0) | Value::UInt(0) => Ok(Value::Bytes(b"en_US".to_vec())),
                Value::Bytes(b) if b.eq_ignore_ascii_case(b"en_US") => Ok(Value::Bytes(b"en_US".to_vec())),
                other => Err(errors::unknown_locale(&value_text(other))),
            }
        }
    }
}

fn convert_set(name: &str, members: &[&str], value: &Value, expand: fn(u64) -> u64) -> Result<Value, SqlError> {
    debug_assert!(members.len() < 64);
    let bits = if let Some(i) = integer_of(value) {
        match u64::try_from(i) {
            Ok(b) if b < (1u64 << members.len()) => b,
            _ => return Err(errors::wrong_value(name, &value_text(value))),
        }
    } else {
        let text = text_of(value).ok_or_else(|| errors::wrong_type(name))?;
        parse_set(members, &text).ok_or_else(|| errors::wrong_value(name, &text))?
    };
    Ok(Value::Bytes(set_text(members, expand(bits)).into_bytes()))
}

/// The SHOW VARIABLES text of a stored value.
pub(crate) fn display(def: &VarDef, value: &Value) -> String {
    match (def.kind, value) {
        (_, Value::Null) => String::new(),
        (Kind::AliasOf(target), v) => display(registry::def(registry::slot_of(target)), v),
        (Kind::Bool, v) => {
            if matches!(v, Value::Int(0) | Value::UInt(0)) {
                "OFF".into()
            } else {
                "ON".into()
            }
        }
        (_, v) => value_text(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variables::def::{Access, Scope};

    fn def(kind: Kind) -> VarDef {
        VarDef { name: "v", scope: Scope::Both, access: Access::ReadWrite, kind, init: Init::Null }
    }

    fn ok(kind: Kind, v: Value) -> (Value, Vec<Warning>) {
        let mut w = Vec::new();
        let out = convert(&def(kind), &v, &mut w).unwrap();
        (out, w)
    }

    fn code(kind: Kind, v: Value) -> u16 {
        convert(&def(kind), &v, &mut Vec::new()).unwrap_err().code
    }

    fn bytes(s: &str) -> Value {
        Value::Bytes(s.as_bytes().to_vec())
    }

    #[test]
    fn booleans_accept_on_off_true_false_and_0_1_only() {
        assert_eq!(ok(Kind::Bool, bytes("on")).0, Value::Int(1));
        assert_eq!(ok(Kind::Bool, bytes("OFF")).0, Value::Int(0));
        assert_eq!(ok(Kind::Bool, bytes("True")).0, Value::Int(1));
        assert_eq!(ok(Kind::Bool, bytes("false")).0, Value::Int(0));
        assert_eq!(ok(Kind::Bool, Value::Int(1)).0, Value::Int(1));
        assert_eq!(ok(Kind::Bool, Value::UInt(0)).0, Value::Int(0));
        assert_eq!(code(Kind::Bool, Value::Int(2)), 1231);
        assert_eq!(code(Kind::Bool, Value::Int(-1)), 1231);
        assert_eq!(code(Kind::Bool, bytes("yes")), 1231);
        assert_eq!(code(Kind::Bool, Value::Null), 1231);
        assert_eq!(code(Kind::Bool, Value::Decimal(Decimal::new(15, 1))), 1232);
        assert_eq!(code(Kind::Bool, Value::Double(1.0)), 1232);
        let e = convert(&def(Kind::Bool), &Value::Int(2), &mut Vec::new()).unwrap_err();
        assert_eq!(e.message, "Variable 'v' can't be set to the value of '2'");
        assert_eq!(e.state, "42000");
    }

    #[test]
    fn unsigned_integers_clamp_and_round_to_block_with_warning() {
        let k = Kind::UInt { min: 1024, max: 1 << 30, block: 1024 };
        let (v, w) = ok(k, Value::Int(1_000_000));
        assert_eq!(v, Value::UInt(999_424), "MariaDB rounds down to the block size");
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].code, 1292);
        assert_eq!(w[0].message, "Truncated incorrect v value: '1000000'");
        assert_eq!(ok(k, Value::Int(-5)).0, Value::UInt(1024));
        assert_eq!(ok(k, Value::UInt(u64::MAX)).0, Value::UInt(1 << 30));
        let (v, w) = ok(k, Value::UInt(4096));
        assert_eq!((v, w.len()), (Value::UInt(4096), 0));
        assert_eq!(code(k, bytes("100")), 1232, "strings are not numbers for SET");
        assert_eq!(code(k, Value::Decimal(Decimal::new(17, 1))), 1232);
    }

    #[test]
    fn signed_integers_and_doubles() {
        let k = Kind::Int { min: -1, max: 100 };
        assert_eq!(ok(k, Value::Int(-7)), (Value::Int(-1), vec![truncated("v", &Value::Int(-7))]));
        assert_eq!(ok(k, Value::UInt(5)).0, Value::Int(5));
        let d = Kind::Double { min: 0.0, max: 100.0 };
        assert_eq!(ok(d, Value::Decimal(Decimal::new(25, 1))).0, Value::Decimal(Decimal::new(2_500_000, 6)));
        assert_eq!(display(&def(d), &ok(d, Value::Int(10)).0), "10.000000");
        let (v, w) = ok(d, Value::Double(1e9));
        assert_eq!((v, w.len()), (double_value(100.0), 1));
        assert_eq!(code(d, bytes("1.5")), 1232);
    }

    #[test]
    fn enums_match_names_case_insensitively_or_by_index() {
        let k = Kind::Enum(&["READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE"]);
        assert_eq!(ok(k, bytes("read-committed")).0, bytes("READ-COMMITTED"));
        assert_eq!(ok(k, Value::Int(3)).0, bytes("SERIALIZABLE"));
        assert_eq!(code(k, bytes("READ COMMITTED")), 1231);
        assert_eq!(code(k, Value::Int(9)), 1231);
        assert_eq!(code(k, Value::Int(-1)), 1231);
    }

    #[test]
    fn sql_mode_normalizes_order_duplicates_and_combinations() {
        let m = |s: &str| ok(Kind::SqlMode, bytes(s)).0;
        assert_eq!(m("ANSI"), bytes("REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ANSI"));
        assert_eq!(
            m("traditional"),
            bytes("STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION")
        );
        assert_eq!(
            m("ORACLE"),
            bytes("PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ORACLE,NO_KEY_OPTIONS,NO_TABLE_OPTIONS,NO_FIELD_OPTIONS,NO_AUTO_CREATE_USER,SIMULTANEOUS_ASSIGNMENT")
        );
        assert_eq!(m("MYSQL40"), bytes("MYSQL40,HIGH_NOT_PRECEDENCE"));
        assert_eq!(m("strict_trans_tables,,ansi_quotes"), bytes("ANSI_QUOTES,STRICT_TRANS_TABLES"));
        assert_eq!(m("ANSI_QUOTES,ANSI_QUOTES"), bytes("ANSI_QUOTES"));
        assert_eq!(m("ANSI_QUOTES "), bytes("ANSI_QUOTES"));
        assert_eq!(m(""), bytes(""));
        assert_eq!(ok(Kind::SqlMode, Value::Int(3)).0, bytes("REAL_AS_FLOAT,PIPES_AS_CONCAT"));
        assert_eq!(code(Kind::SqlMode, bytes("FOO")), 1231);
        assert_eq!(code(Kind::SqlMode, bytes(" ANSI_QUOTES")), 1231);
        assert_eq!(code(Kind::SqlMode, Value::Null), 1231);
        assert_eq!(code(Kind::SqlMode, Value::Int(1 << 40)), 1231);
        assert_eq!(code(Kind::SqlMode, Value::Decimal(Decimal::new(15, 1))), 1232);
        let flags = sql_mode_flags(b"STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER");
        assert!(flags.strict_trans_tables && flags.error_for_division_by_zero);
        assert!(!flags.ansi_quotes && !flags.strict_all_tables);
    }

    #[test]
    fn charsets_collations_time_zones_engines_locales() {
        assert_eq!(ok(Kind::Charset { nullable: false }, bytes("UTF8")).0, bytes("utf8mb3"));
        assert_eq!(ok(Kind::Charset { nullable: true }, Value::Null).0, Value::Null);
        assert_eq!(ok(Kind::Charset { nullable: false }, Value::Int(45)).0, bytes("utf8mb4"));
        assert_eq!(code(Kind::Charset { nullable: false }, bytes("foo")), 1115);
        assert_eq!(code(Kind::Charset { nullable: false }, Value::Null), 1231);
        assert_eq!(ok(Kind::Collation, bytes("UTF8MB4_GENERAL_CI")).0, bytes("utf8mb4_general_ci"));
        assert_eq!(code(Kind::Collation, bytes("foo")), 1273);
        assert_eq!(ok(Kind::TimeZone, bytes("system")).0, bytes("SYSTEM"));
        assert_eq!(ok(Kind::TimeZone, bytes("+1:00")).0, bytes("+01:00"));
        assert_eq!(ok(Kind::TimeZone, bytes("-05:30")).0, bytes("-05:30"));
        assert_eq!(ok(Kind::TimeZone, bytes("america/st_johns")).0, bytes("america/st_johns"));
        assert_eq!(code(Kind::TimeZone, bytes("Europe/Nowhere")), 1298);
        assert_eq!(code(Kind::TimeZone, bytes("+15:00")), 1298);
        assert_eq!(code(Kind::TimeZone, bytes("+01:60")), 1298);
        assert_eq!(code(Kind::TimeZone, bytes("+")), 1298);
        assert_eq!(ok(Kind::StorageEngine { nullable: false }, bytes("innodb")).0, bytes("InnoDB"));
        assert_eq!(code(Kind::StorageEngine { nullable: false }, bytes("MyISAM")), 1286);
        assert_eq!(ok(Kind::Locale, bytes("EN_us")).0, bytes("en_US"));
        assert_eq!(code(Kind::Locale, bytes("de_DE")), 1105);
        assert_eq!(code(Kind::Str { nullable: false }, Value::Int(5)), 1232);
        assert_eq!(ok(Kind::Str { nullable: false }, bytes("x")).0, bytes("x"));
    }

    #[test]
    fn display_forms() {
        assert_eq!(display(&def(Kind::Bool), &Value::Int(1)), "ON");
        assert_eq!(display(&def(Kind::Bool), &Value::Int(0)), "OFF");
        assert_eq!(display(&def(Kind::Str { nullable: true }), &Value::Null), "");
        assert_eq!(display(&def(Kind::UInt { min: 0, max: 10, block: 1 }), &Value::UInt(7)), "7");
        assert_eq!(
            isolation_from_text(isolation_text(IsolationLevel::ReadCommitted).as_bytes()),
            IsolationLevel::ReadCommitted
        );
    }
}
