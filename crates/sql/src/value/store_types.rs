//! Assignment to the column types MariaDB has beyond numbers, strings and dates: YEAR, TIME,
//! ENUM, SET and JSON, with MariaDB 10.11's conversions, clipping and messages (checked by
//! inserting into test tables under `sql_mode=''` and `'STRICT_TRANS_TABLES'`).
//!
//! ENUM/SET values are their text (TIME's conversions live in `time`, below `cast`, which
//! CAST(x AS TIME) shares).

use super::cast::decimal_to_i128;
use super::datetime::{temporal_of, warn_text};
use super::num::{lex_number, NumQuality};
pub use super::time::{format_time, time, StoreIssue};
use crate::types::Value;

/// YEAR's range besides 0 (0000).
const YEAR_MIN: i128 = 1901;
const YEAR_MAX: i128 = 2155;
/// Two-digit years below this are 20xx, the others 19xx (MariaDB's YY_PART_YEAR).
const YY_PART_YEAR: i128 = 70;

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
