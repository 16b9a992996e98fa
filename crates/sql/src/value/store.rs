//! Assignment of values to columns (INSERT/UPDATE): MariaDB's per-type conversion with strict
//! mode errors and non-strict clamping plus warnings.
//!
//! Codes and wording are MariaDB 10.11's, checked by inserting into a test table under
//! `sql_mode='STRICT_TRANS_TABLES'` and `sql_mode=''`. Where MariaDB only adds a Note
//! whatever the mode (digits rounded off a DECIMAL, trailing spaces cut from a VARCHAR or after
//! a number) it is noted (`FnContext::note`), never an error.

use selkie_storage::{ColumnDef, ColumnType, Date, DateTime, Decimal, IntWidth, LobSize};

use super::cast::{char_count, char_prefix_len, decimal_to_i128, fit_decimal_type, temporal_as_number};
use super::context::FnContext;
use super::datetime::{temporal_of, truncate_micros, warn_text, TIMESTAMP_MAX_EPOCH};
use super::format::to_text_bytes;
use super::num::{dec_from_f64, dec_to_f64, lex_number, NumQuality};
use super::store_types::{self, StoreIssue};
use crate::charset::convert;
use crate::error::SqlError;
use crate::types::Value;

/// Bytes of an invalid string shown in error 1366, as MariaDB shows them.
const INVALID_STRING_SHOWN_BYTES: usize = 6;

/// Where a value is being stored: names MariaDB puts in its messages, and the 1-based row number
/// of the statement's row being written.
#[derive(Clone, Copy, Debug)]
pub struct StoreTarget<'a> {
    pub db: &'a str,
    pub table: &'a str,
    pub row: u64,
}

/// Reports a conversion problem: in strict mode as the error, otherwise as a warning.
struct Reporter<'a> {
    col: &'a ColumnDef,
    target: Option<&'a StoreTarget<'a>>,
    ctx: &'a dyn FnContext,
}

impl Reporter<'_> {
    fn row(&self) -> u64 {
        self.target.map_or(1, |t| t.row)
    }

    /// "`db`.`t`.`c`" (or "`c`" when the table is not known).
    fn qualified(&self) -> String {
        match self.target {
            Some(t) => format!("`{}`.`{}`.`{}`", t.db, t.table, self.col.name),
            None => format!("`{}`", self.col.name),
        }
    }

    fn strict(&self) -> bool {
        self.ctx.strict()
    }

    /// Strict: Err(error). Otherwise: the warning, and Ok.
    fn report(&self, error: SqlError, warning: (u16, String)) -> Result<(), SqlError> {
        if self.strict() {
            Err(error)
        } else {
            self.ctx.warn(warning.0, warning.1);
            Ok(())
        }
    }

    fn out_of_range(&self) -> Result<(), SqlError> {
        let msg = format!("Out of range value for column '{}' at row {}", self.col.name, self.row());
        self.report(SqlError::new(1264, "22003", msg.clone()), (1264, msg))
    }

    fn data_truncated(&self) -> Result<(), SqlError> {
        let msg = format!("Data truncated for column '{}' at row {}", self.col.name, self.row());
        self.report(SqlError::new(1265, "01000", msg.clone()), (1265, msg))
    }

    /// Note 1265: MariaDB's word for a harmless loss (rounded digits, trailing spaces), in
    /// every mode.
    fn truncation_note(&self) {
        self.ctx.note(1265, format!("Data truncated for column '{}' at row {}", self.col.name, self.row()));
    }

    fn data_too_long(&self) -> Result<(), SqlError> {
        let too_long = format!("Data too long for column '{}' at row {}", self.col.name, self.row());
        let truncated = format!("Data truncated for column '{}' at row {}", self.col.name, self.row());
        self.report(SqlError::new(1406, "22001", too_long), (1265, truncated))
    }

    /// 1366 "Incorrect <kind> value: '<v>' for column `db`.`t`.`c` at row N".
    fn incorrect_value(&self, kind: &str, shown: &str) -> Result<(), SqlError> {
        let msg = format!("Incorrect {kind} value: '{shown}' for column {} at row {}", self.qualified(), self.row());
        self.report(SqlError::new(1366, "22007", msg.clone()), (1366, msg))
    }

    /// Bad date/time: strict 1292 "Incorrect date value: ...", otherwise 1265 "Data truncated".
    fn incorrect_temporal(&self, kind: &str, shown: &str) -> Result<(), SqlError> {
        let error = SqlError::new(
            1292,
            "22007",
            format!("Incorrect {kind} value: '{shown}' for column {} at row {}", self.qualified(), self.row()),
        );
        let warning = format!("Data truncated for column '{}' at row {}", self.col.name, self.row());
        self.report(error, (1265, warning))
    }

    /// A value with more bits than a BIT column: strict 1406, otherwise 1264 (the largest value).
    fn bits_too_long(&self) -> Result<(), SqlError> {
        let too_long = format!("Data too long for column '{}' at row {}", self.col.name, self.row());
        let out_of_range = format!("Out of range value for column '{}' at row {}", self.col.name, self.row());
        self.report(SqlError::new(1406, "22001", too_long), (1264, out_of_range))
    }

    /// TIME beyond ±838:59:59: strict 1292 "Incorrect time value", otherwise 1264 (clipped).
    fn time_out_of_range(&self, shown: &str) -> Result<(), SqlError> {
        let error = SqlError::new(
            1292,
            "22007",
            format!("Incorrect time value: '{shown}' for column {} at row {}", self.qualified(), self.row()),
        );
        let warning = format!("Out of range value for column '{}' at row {}", self.col.name, self.row());
        self.report(error, (1264, warning))
    }

    /// UUID/INET4/INET6 text that is not one: 1292 "Incorrect uuid value: 'x' for column
    /// `db`.`t`.`c` at row N", an error in strict mode, a warning (and NULL) otherwise.
    fn incorrect_kind_value(&self, kind: &str, shown: &str) -> Result<(), SqlError> {
        let msg = format!("Incorrect {kind} value: '{shown}' for column {} at row {}", self.qualified(), self.row());
        self.report(SqlError::new(1292, "22007", msg.clone()), (1292, msg))
    }

    /// 4078: a number or date cannot become a UUID/INET value, in any sql_mode.
    fn cannot_cast(&self, v: &Value, kind: &str) -> SqlError {
        let from = match v {
            Value::Int(_) | Value::UInt(_) => "int",
            Value::Decimal(_) => "decimal",
            Value::Double(_) => "double",
            Value::Date(_) => "date",
            _ => "datetime",
        };
        SqlError::new(4078, "HY000", format!("Cannot cast '{from}' as '{kind}' in assignment of {}", self.qualified()))
    }

    /// 4025: a JSON column's implicit CHECK (json_valid(`c`)) failed.
    fn json_check_failed(&self) -> SqlError {
        match self.target {
            Some(t) => SqlError::new(
                4025,
                "23000",
                format!("CONSTRAINT `{}.{}` failed for `{}`.`{}`", t.table, self.col.name, t.db, t.table),
            ),
            None => SqlError::new(4025, "23000", format!("CONSTRAINT `{}` failed", self.col.name)),
        }
    }

    /// A TIMESTAMP wall-clock time in a daylight-saving gap of the session zone: strict 1292,
    /// otherwise 1299 (the gap's end is stored).
    fn invalid_timestamp(&self, shown: &str) -> Result<(), SqlError> {
        let error = SqlError::new(
            1292,
            "22007",
            format!("Incorrect datetime value: '{shown}' for column {} at row {}", self.qualified(), self.row()),
        );
        let warning = format!("Invalid TIMESTAMP value in column '{}' at row {}", self.col.name, self.row());
        self.report(error, (1299, warning))
    }

    /// TIMESTAMP out of its range: strict 1292, otherwise 1264.
    fn timestamp_out_of_range(&self, shown: &str) -> Result<(), SqlError> {
        let error = SqlError::new(
            1292,
            "22007",
            format!("Incorrect datetime value: '{shown}' for column {} at row {}", self.qualified(), self.row()),
        );
        let warning = format!("Out of range value for column '{}' at row {}", self.col.name, self.row());
        self.report(error, (1264, warning))
    }
}

/// See `super::store_for_column`; `target` names the table and row for messages.
pub fn store_for_column_at(
    v: Value,
    col: &ColumnDef,
    target: Option<&StoreTarget<'_>>,
    ctx: &dyn FnContext,
) -> Result<Value, SqlError> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let r = Reporter { col, target, ctx };
    match &col.ty {
        ColumnType::Int { width, unsigned, .. } => store_int(&v, *width, *unsigned, &r),
        ColumnType::Bit { width } => match super::bit::to_bits(&v, *width) {
            Ok(n) => Ok(Value::UInt(n)),
            Err(max) => {
                r.bits_too_long()?;
                Ok(Value::UInt(max))
            }
        },
        ColumnType::Decimal { precision, scale, unsigned } => store_decimal(&v, *precision, *scale, *unsigned, &r),
        ColumnType::Float { unsigned, digits } => store_float(&v, true, *unsigned, *digits, &r),
        ColumnType::Double { unsigned, digits } => store_float(&v, false, *unsigned, *digits, &r),
        ColumnType::Char { len } => store_text(v, Limit::Chars(*len as usize), true, &r),
        ColumnType::VarChar { len } => store_text(v, Limit::Chars(*len as usize), false, &r),
        ColumnType::Text { size } => store_text(v, Limit::Bytes(size.max_len() as usize), false, &r),
        ColumnType::Binary { len } => {
            let mut b = store_binary(v, *len as usize, &r)?;
            b.resize(*len as usize, 0);
            Ok(Value::Bytes(b))
        }
        ColumnType::VarBinary { len } => store_binary(v, *len as usize, &r).map(Value::Bytes),
        ColumnType::Blob { size } => store_binary(v, size.max_len() as usize, &r).map(Value::Bytes),
        ColumnType::Date => store_temporal(&v, TemporalKind::Date, &r),
        ColumnType::DateTime { fsp } => store_temporal(&v, TemporalKind::DateTime(*fsp), &r),
        ColumnType::Timestamp { fsp } => store_temporal(&v, TemporalKind::Timestamp(*fsp), &r),
        ColumnType::Year => {
            let (stored, issue) = store_types::year(&v);
            match issue {
                Some(StoreIssue::OutOfRange) => r.out_of_range()?,
                Some(StoreIssue::Truncated) => r.data_truncated()?,
                Some(StoreIssue::NotANumber) => r.incorrect_value("integer", &store_types::shown(&v))?,
                None => {}
            }
            Ok(stored)
        }
        ColumnType::Time { fsp } => {
            let (stored, issue) = store_types::time(&v, *fsp);
            match issue {
                Some(StoreIssue::OutOfRange) => r.time_out_of_range(&store_types::shown(&v))?,
                Some(_) => r.incorrect_temporal("time", &store_types::shown(&v))?,
                None => {}
            }
            Ok(stored)
        }
        ColumnType::Enum { values } | ColumnType::Set { values } => {
            let (stored, issue) = if matches!(col.ty, ColumnType::Enum { .. }) {
                store_types::enum_value(&v, values)
            } else {
                store_types::set_value(&v, values)
            };
            if issue.is_some() {
                r.data_truncated()?;
            }
            Ok(stored)
        }
        ColumnType::Uuid | ColumnType::Inet4 | ColumnType::Inet6 => {
            let kind = super::types::fixed_binary_of(&col.ty).expect("a fixed binary column type");
            match &v {
                Value::Bytes(b) => match kind.canonical(b) {
                    Some(text) => Ok(Value::Bytes(text.into_bytes())),
                    None => {
                        // Not strict: NULL, with the warning.
                        r.incorrect_kind_value(kind.name(), &store_types::shown(&v))?;
                        Ok(Value::Null)
                    }
                },
                other => Err(r.cannot_cast(other, kind.name())),
            }
        }
        ColumnType::Json => {
            let stored = store_text(v, Limit::Bytes(LobSize::Long.max_len() as usize), false, &r)?;
            match &stored {
                // JSON is LONGTEXT with CHECK (json_valid(`c`)): a failed CHECK is an error
                // in every sql_mode.
                Value::Bytes(b) if !store_types::json_valid(b) => Err(r.json_check_failed()),
                _ => Ok(stored),
            }
        }
    }
}

/// A string read as a number for a numeric column: 1366 when it has no number at all, 1265 when
/// characters follow the number.
fn string_number<'a>(b: &'a [u8], kind: &str, r: &Reporter<'_>) -> Result<super::num::NumLexeme<'a>, SqlError> {
    let l = lex_number(b);
    match l.quality {
        // '42 ': MariaDB notes the spaces after the number (not those before it).
        NumQuality::Exact if b.last().is_some_and(u8::is_ascii_whitespace) => r.truncation_note(),
        NumQuality::Exact => {}
        NumQuality::NotANumber => r.incorrect_value(kind, &super::format::shown_bytes(b))?,
        NumQuality::Truncated => r.data_truncated()?,
    }
    Ok(l)
}

fn store_int(v: &Value, width: IntWidth, unsigned: bool, r: &Reporter<'_>) -> Result<Value, SqlError> {
    let (min, max): (i128, i128) = if unsigned {
        (0, width.unsigned_max() as i128)
    } else {
        let (lo, hi) = width.signed_range();
        (lo as i128, hi as i128)
    };
    let n: i128 = match v {
        Value::Int(i) => *i as i128,
        Value::UInt(u) => *u as i128,
        // `as i128` saturates; any double beyond i128 is out of range for every column anyway.
        Value::Double(x) => x.round_ties_even() as i128,
        Value::Decimal(d) => decimal_to_i128(*d),
        Value::Bytes(b) => {
            let l = string_number(b, "integer", r)?;
            match l.to_decimal() {
                Ok(d) => decimal_to_i128(d),
                Err(negative) => {
                    if negative {
                        min - 1
                    } else {
                        max + 1
                    }
                }
            }
        }
        Value::Date(_) | Value::DateTime(_) => match temporal_as_number(v) {
            Value::Int(i) => i as i128,
            Value::Decimal(d) => decimal_to_i128(d),
            _ => 0,
        },
        Value::Null => unreachable!("NULL returned early"),
    };
    let n = if n < min {
        r.out_of_range()?;
        min
    } else if n > max {
        r.out_of_range()?;
        max
    } else {
        n
    };
    Ok(if unsigned { Value::UInt(n as u64) } else { Value::Int(n as i64) })
}

fn store_decimal(v: &Value, precision: u8, scale: u8, unsigned: bool, r: &Reporter<'_>) -> Result<Value, SqlError> {
    let d: Result<Decimal, bool> = match v {
        Value::Int(i) => Ok(Decimal::new(*i as i128, 0)),
        Value::UInt(u) => Ok(Decimal::new(*u as i128, 0)),
        Value::Decimal(d) => Ok(*d),
        Value::Double(x) => dec_from_f64(*x),
        Value::Bytes(b) => string_number(b, "decimal", r)?.to_decimal(),
        Value::Date(_) | Value::DateTime(_) => match temporal_as_number(v) {
            Value::Int(i) => Ok(Decimal::new(i as i128, 0)),
            Value::Decimal(d) => Ok(d),
            _ => Ok(Decimal::new(0, 0)),
        },
        Value::Null => unreachable!("NULL returned early"),
    };
    let (fitted, clamped) = fit_decimal_type(d, precision, scale);
    if clamped {
        r.out_of_range()?;
    } else if d.is_ok_and(|d| rounds_off_digits(d, scale)) {
        r.truncation_note();
    }
    if unsigned && fitted.is_negative() {
        // MariaDB clips a negative value for an UNSIGNED DECIMAL to 0 (1264).
        if !clamped {
            r.out_of_range()?;
        }
        return Ok(Value::Decimal(Decimal::new(0, scale)));
    }
    Ok(Value::Decimal(fitted))
}

/// Whether `d` at `scale` digits loses a non-zero digit (1.005 and 1.0050 at 2 do, 2.000 not).
fn rounds_off_digits(d: Decimal, scale: u8) -> bool {
    d.scale > scale && d.rescale(scale).and_then(|r| r.rescale(d.scale)).is_some_and(|back| back.mantissa != d.mantissa)
}

/// FLOAT / DOUBLE, with MariaDB's clipping: beyond the type's range (or FLOAT(M,D)'s
/// 10^(M-D) - 10^-D) to the limit, negative values of an UNSIGNED column to 0, each with 1264.
/// FLOAT(M,D) rounds to D decimals.
fn store_float(
    v: &Value,
    single: bool,
    unsigned: bool,
    digits: Option<(u8, u8)>,
    r: &Reporter<'_>,
) -> Result<Value, SqlError> {
    let x = match v {
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Double(x) => *x,
        Value::Decimal(d) => dec_to_f64(*d),
        Value::Bytes(b) => string_number(b, "double", r)?.to_f64_unclamped(),
        Value::Date(_) | Value::DateTime(_) => super::cast::to_f64(v).unwrap_or(0.0),
        Value::Null => unreachable!("NULL returned early"),
    };
    let mut limit = if single { f32::MAX as f64 } else { f64::MAX };
    let mut x = x;
    if let Some((m, d)) = digits {
        x = round_to_decimals(x, d);
        limit = limit.min(10f64.powi(m as i32 - d as i32) - 10f64.powi(-(d as i32)));
    }
    let x = if x.is_nan() || (unsigned && x < 0.0) {
        r.out_of_range()?;
        0.0
    } else if x.abs() > limit {
        r.out_of_range()?;
        limit.copysign(x)
    } else {
        x
    };
    Ok(Value::Double(if single { x as f32 as f64 } else { x }))
}

/// `x` rounded to `d` decimals as MariaDB's `truncate_double` does: the whole part plus the
/// fraction rounded with rint (ties to even) in binary floating point, so FLOAT(7,0) stores 3.5
/// as 3 and DOUBLE(8,2) stores 1.005 as 1.00 and 1.115 as 1.12, exactly as MariaDB.
fn round_to_decimals(x: f64, d: u8) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(d as i32);
    let whole = x.floor();
    whole + ((x - whole) * scale).round_ties_even() / scale
}

/// Length limit of a character column.
#[derive(Clone, Copy)]
enum Limit {
    Chars(usize),
    Bytes(usize),
}

/// '\xFF\xFEA': up to six bytes from the first invalid one, non-ASCII bytes hex-escaped.
fn invalid_utf8_shown(b: &[u8], at: usize) -> String {
    let mut s = String::new();
    for &c in b[at..].iter().take(INVALID_STRING_SHOWN_BYTES) {
        if c.is_ascii() && !c.is_ascii_control() {
            s.push(c as char);
        } else {
            s.push_str(&format!("\\x{c:02X}"));
        }
    }
    s
}

/// Replaces every byte of an invalid UTF-8 sequence by '?', as MariaDB does when converting.
fn replace_invalid_utf8(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut rest = b;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.extend_from_slice(s.as_bytes());
                return out;
            }
            Err(e) => {
                let good = e.valid_up_to();
                out.extend_from_slice(&rest[..good]);
                let bad = e.error_len().unwrap_or(rest.len() - good);
                out.extend(std::iter::repeat_n(b'?', bad));
                rest = &rest[good + bad..];
            }
        }
    }
}

fn store_text(v: Value, limit: Limit, is_char: bool, r: &Reporter<'_>) -> Result<Value, SqlError> {
    let mut b = match v {
        Value::Bytes(b) => b,
        other => to_text_bytes(&other).unwrap_or_default(),
    };
    if let Err(e) = std::str::from_utf8(&b) {
        r.incorrect_value("string", &invalid_utf8_shown(&b, e.valid_up_to()))?;
        b = replace_invalid_utf8(&b);
    }
    b = restrict_to_column_charset(b, r)?;
    let cut = match limit {
        Limit::Chars(n) => (char_count(&b) > n).then(|| char_prefix_len(&b, n)),
        Limit::Bytes(n) => (b.len() > n).then(|| {
            // Cut at a character boundary at or before the byte limit.
            let mut i = n;
            while i > 0 && b[i] & 0xC0 == 0x80 {
                i -= 1;
            }
            i
        }),
    };
    if let Some(cut) = cut {
        if matches!(limit, Limit::Bytes(n) if cut < n) {
            // The byte limit splits a character: MariaDB's copy stops at an incomplete
            // character and reports it as an invalid string (1366, from that character on),
            // not as data too long.
            let mut shown = invalid_utf8_shown(&b, cut);
            if b.len() - cut > INVALID_STRING_SHOWN_BYTES {
                shown.push_str("...");
            }
            r.incorrect_value("string", &shown)?;
        } else if !b[cut..].iter().all(|&c| c == b' ') {
            r.data_too_long()?;
        } else if !is_char {
            // Only spaces beyond the limit: MariaDB drops them with a Note (silently for CHAR,
            // which drops trailing spaces anyway).
            r.truncation_note();
        }
        b.truncate(cut);
    }
    if is_char {
        // CHAR values are stored and returned without trailing spaces.
        while b.last() == Some(&b' ') {
            b.pop();
        }
    }
    Ok(Value::Bytes(b))
}

/// Text for a column of a narrower character set (latin1, ascii, utf8mb3): characters the set
/// lacks become '?', with MariaDB's 1366 naming the bytes from the first of them (an error in
/// strict mode).
fn restrict_to_column_charset(b: Vec<u8>, r: &Reporter<'_>) -> Result<Vec<u8>, SqlError> {
    let Some(collation) = crate::charset::Collation::named(&r.col.collation) else {
        return Ok(b);
    };
    let encoding = convert::Encoding::of_charset(collation.charset_name());
    if b.is_ascii() || matches!(encoding, convert::Encoding::Utf8mb4 | convert::Encoding::Binary) {
        return Ok(b);
    }
    let text = String::from_utf8_lossy(&b);
    let first_bad = text.char_indices().find(|(_, c)| {
        let one = c.encode_utf8(&mut [0u8; 4]).as_bytes().to_vec();
        convert::from_utf8(&one, encoding).lossy
    });
    let Some((at, _)) = first_bad else {
        return Ok(b);
    };
    let mut shown = invalid_utf8_shown(&b, at);
    if b.len() - at > INVALID_STRING_SHOWN_BYTES {
        shown.push_str("...");
    }
    r.incorrect_value("string", &shown)?;
    Ok(convert::restrict_to(&b, encoding).bytes)
}

fn store_binary(v: Value, max: usize, r: &Reporter<'_>) -> Result<Vec<u8>, SqlError> {
    let mut b = match v {
        Value::Bytes(b) => b,
        other => to_text_bytes(&other).unwrap_or_default(),
    };
    if b.len() > max {
        r.data_too_long()?;
        b.truncate(max);
    }
    Ok(b)
}

#[derive(Clone, Copy)]
enum TemporalKind {
    Date,
    DateTime(u8),
    Timestamp(u8),
}

fn store_temporal(v: &Value, kind: TemporalKind, r: &Reporter<'_>) -> Result<Value, SqlError> {
    let kind_name = if matches!(kind, TemporalKind::Date) { "date" } else { "datetime" };
    let shown = || warn_text(v);
    let zero = match kind {
        TemporalKind::Date => Value::Date(Date(0)),
        _ => Value::DateTime(DateTime(0)),
    };
    let Some(parsed) = temporal_of(v) else {
        r.incorrect_temporal(kind_name, &shown())?;
        return Ok(zero);
    };
    if parsed.truncated {
        r.incorrect_temporal(kind_name, &shown())?;
    }
    let date = &parsed.civil;
    if r.ctx.no_zero_in_date() && !date.is_zero_date() && !date.has_full_date() {
        r.incorrect_temporal(kind_name, &shown())?;
        return Ok(zero);
    }
    if r.ctx.no_zero_date() && date.is_zero_date() {
        // Not strict, MariaDB stores the zero date, warning 1264 rather than 1265.
        let error = SqlError::new(
            1292,
            "22007",
            format!("Incorrect {kind_name} value: '{}' for column {} at row {}", shown(), r.qualified(), r.row()),
        );
        r.report(error, (1264, format!("Out of range value for column '{}' at row {}", r.col.name, r.row())))?;
        return Ok(zero);
    }
    let mut c = parsed.civil;
    match kind {
        TemporalKind::Date => Ok(Value::Date(c.date())),
        TemporalKind::DateTime(fsp) => {
            c.micros = truncate_micros(c.micros, fsp);
            Ok(Value::DateTime(c.datetime()))
        }
        TemporalKind::Timestamp(fsp) => {
            if c.is_zero_date() && c.seconds_of_day() == 0 && c.micros == 0 {
                return Ok(zero);
            }
            // The range is the instant's, so it is read in the session's time zone.
            // The column holds the instant as its UTC time (see `super::timestamp`).
            let tz = r.ctx.time_zone();
            match super::datetime::epoch_of_civil(tz, &c) {
                Some(t) if (1..=TIMESTAMP_MAX_EPOCH).contains(&t) => {
                    if !super::timestamp::shows_as(tz, t, &c) {
                        r.invalid_timestamp(&shown())?;
                    }
                    let micros = truncate_micros(c.micros, fsp);
                    let utc = super::datetime::utc_from_epoch(t, micros).map_or(DateTime(0), |u| u.datetime());
                    Ok(Value::DateTime(utc))
                }
                _ => {
                    r.timestamp_out_of_range(&shown())?;
                    Ok(zero)
                }
            }
        }
    }
}

/// See `super::implicit_default`.
pub fn implicit_default(ty: &ColumnType) -> Value {
    match ty {
        ColumnType::Int { unsigned: false, .. } => Value::Int(0),
        ColumnType::Int { unsigned: true, .. } | ColumnType::Bit { .. } => Value::UInt(0),
        ColumnType::Decimal { scale, .. } => Value::Decimal(Decimal::new(0, *scale)),
        ColumnType::Float { .. } | ColumnType::Double { .. } => Value::Double(0.0),
        ColumnType::Binary { len } => Value::Bytes(vec![0; *len as usize]),
        ColumnType::Char { .. }
        | ColumnType::VarChar { .. }
        | ColumnType::Text { .. }
        | ColumnType::VarBinary { .. }
        | ColumnType::Blob { .. } => Value::Bytes(Vec::new()),
        ColumnType::Date => Value::Date(Date(0)),
        ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } => Value::DateTime(DateTime(0)),
        ColumnType::Year => Value::UInt(0),
        ColumnType::Time { fsp } => Value::Bytes(store_types::format_time(0, *fsp).into_bytes()),
        ColumnType::Enum { values } => store_types::enum_default(values),
        ColumnType::Set { .. } | ColumnType::Json => Value::Bytes(Vec::new()),
        ColumnType::Uuid => Value::Bytes(b"00000000-0000-0000-0000-000000000000".to_vec()),
        ColumnType::Inet4 => Value::Bytes(b"0.0.0.0".to_vec()),
        ColumnType::Inet6 => Value::Bytes(b"::".to_vec()),
    }
}
