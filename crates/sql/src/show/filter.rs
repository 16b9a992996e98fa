//! LIKE and WHERE filters of SHOW statements, evaluated on the result columns.
//!
//! MariaDB evaluates these on its information_schema columns, which use a case-insensitive
//! collation: `SHOW VARIABLES WHERE Variable_name = 'AUTOCOMMIT'` matches. LIKE on names of
//! tables and databases is case-sensitive (they are file names on Linux), on everything else
//! case-insensitive; the caller says which. The WHERE evaluator covers what tools send:
//! comparisons, LIKE, IN, BETWEEN, IS [NOT] NULL, AND/OR/XOR/NOT and parentheses.

use std::cmp::Ordering;

use sqlparser::ast::{BinaryOperator, Expr, UnaryOperator, Value as Literal};

use crate::error::SqlError;
use crate::types::ResultSet;
use crate::types::Value;

/// A SHOW statement's LIKE or WHERE clause.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Filter {
    Like(String),
    Where(Box<Expr>),
}

/// Where the LIKE pattern of a SHOW applies.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LikeTarget {
    pub column: usize,
    pub case_insensitive: bool,
}

/// Deepest expression nesting the evaluator follows (a guard against stack exhaustion on
/// hostile input; real filters are a few levels deep).
const MAX_EXPR_DEPTH: usize = 64;

/// The escape character of SHOW ... LIKE patterns.
const LIKE_ESCAPE: u8 = b'\\';

/// Keeps the rows of `rs` that pass `filter`.
pub(crate) fn apply(rs: &mut ResultSet, filter: Option<&Filter>, like: LikeTarget) -> Result<(), SqlError> {
    match filter {
        None => Ok(()),
        Some(Filter::Like(pattern)) => {
            debug_assert!(like.column < rs.columns.len());
            rs.rows.retain(|row| match &row[like.column] {
                Value::Bytes(b) => like_match(pattern.as_bytes(), b, like.case_insensitive, LIKE_ESCAPE),
                _ => false,
            });
            Ok(())
        }
        Some(Filter::Where(expr)) => {
            let names: Vec<&str> = rs.columns.iter().map(|c| c.name.as_str()).collect();
            let mut kept = Vec::with_capacity(rs.rows.len());
            for row in std::mem::take(&mut rs.rows) {
                let env = Row { names: &names, values: &row };
                if truth(&env.eval(expr, 0)?) == Some(true) {
                    kept.push(row);
                }
            }
            rs.rows = kept;
            Ok(())
        }
    }
}

/// SQL LIKE: `%` any sequence, `_` one character (UTF-8), `escape` quotes the next byte.
/// Case-insensitive compares ASCII letters without case (MariaDB's general_ci folds more, but
/// identifiers and variable names are ASCII in practice).
pub(crate) fn like_match(pattern: &[u8], text: &[u8], case_insensitive: bool, escape: u8) -> bool {
    let eq = |a: u8, b: u8| if case_insensitive { a.eq_ignore_ascii_case(&b) } else { a == b };
    let char_len = |b: u8| match b {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    };
    let (mut p, mut t) = (0usize, 0usize);
    // Position after the last `%` and the text position it is currently matched up to:
    // on a mismatch we retry with the `%` swallowing one more character (no recursion).
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() {
            match pattern[p] {
                b'%' => {
                    p += 1;
                    star = Some((p, t));
                    continue;
                }
                b'_' => {
                    p += 1;
                    t = (t + char_len(text[t])).min(text.len());
                    continue;
                }
                c => {
                    let (lit, next) =
                        if c == escape && p + 1 < pattern.len() { (pattern[p + 1], p + 2) } else { (c, p + 1) };
                    if eq(lit, text[t]) {
                        p = next;
                        t += 1;
                        continue;
                    }
                }
            }
        }
        match star {
            Some((sp, st)) => {
                let st = (st + char_len(text[st])).min(text.len());
                star = Some((sp, st));
                p = sp;
                t = st;
            }
            None => return false,
        }
    }
    pattern[p..].iter().all(|&c| c == b'%')
}

/// SQL truth of a value (NULL → None; numbers ≠ 0; strings by their numeric prefix).
fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        other => Some(number_of(other) != 0.0),
    }
}

/// MySQL's lenient numeric view: strings by their longest numeric prefix, else 0.
fn number_of(v: &Value) -> f64 {
    match v {
        Value::Null => 0.0,
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Double(d) => *d,
        Value::Decimal(d) => d.to_f64(),
        Value::Bytes(b) => {
            let s = String::from_utf8_lossy(b);
            let s = s.trim_start();
            let mut end = 0;
            let bytes = s.as_bytes();
            let mut seen_digit = false;
            let mut seen_point = false;
            let mut seen_exp = false;
            while end < bytes.len() {
                let c = bytes[end];
                let ok = match c {
                    b'0'..=b'9' => {
                        seen_digit = true;
                        true
                    }
                    b'+' | b'-' => end == 0 || matches!(bytes[end - 1], b'e' | b'E'),
                    b'.' if !seen_point && !seen_exp => {
                        seen_point = true;
                        true
                    }
                    b'e' | b'E' if seen_digit && !seen_exp => {
                        seen_exp = true;
                        true
                    }
                    _ => false,
                };
                if !ok {
                    break;
                }
                end += 1;
            }
            // Back off a dangling exponent or sign ("12e", "1e+").
            let mut candidate = &s[..end];
            while !candidate.is_empty() && candidate.parse::<f64>().is_err() {
                candidate = &candidate[..candidate.len() - 1];
            }
            candidate.parse().unwrap_or(0.0)
        }
        Value::Date(d) => f64::from(d.year() * 10_000 + d.month() * 100 + d.day()),
        Value::DateTime(dt) => {
            let d = dt.date();
            let date = f64::from(d.year() * 10_000 + d.month() * 100 + d.day());
            date * 1e6 + f64::from(dt.hour() * 10_000 + dt.minute() * 100 + dt.second())
        }
    }
}

fn is_numeric(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Decimal(_))
}

fn text_of(v: &Value) -> Vec<u8> {
    match v {
        Value::Bytes(b) => b.clone(),
        Value::Date(d) => d.to_string().into_bytes(),
        Value::DateTime(dt) => dt.format(0).into_bytes(),
        Value::Decimal(d) => d.to_string().into_bytes(),
        Value::Int(i) => i.to_string().into_bytes(),
        Value::UInt(u) => u.to_string().into_bytes(),
        Value::Double(d) => d.to_string().into_bytes(),
        Value::Null => Vec::new(),
    }
}

/// Comparison with MySQL coercion: numbers with numbers (and strings compared to numbers as
/// numbers), strings case-insensitively. None if either side is NULL.
fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    if let (Some(x), Some(y)) = (exact_int(a), exact_int(b)) {
        return Some(x.cmp(&y));
    }
    if is_numeric(a) || is_numeric(b) {
        return number_of(a).partial_cmp(&number_of(b));
    }
    let (x, y) = (text_of(a), text_of(b));
    let fold = |s: &[u8]| s.iter().map(|c| c.to_ascii_lowercase()).collect::<Vec<u8>>();
    // general_ci ignores trailing spaces (PAD SPACE collation).
    let trim = |mut s: Vec<u8>| {
        while s.last() == Some(&b' ') {
            s.pop();
        }
        s
    };
    Some(trim(fold(&x)).cmp(&trim(fold(&y))))
}

fn exact_int(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(i128::from(*i)),
        Value::UInt(u) => Some(i128::from(*u)),
        _ => None,
    }
}

fn bool_value(b: Option<bool>) -> Value {
    match b {
        None => Value::Null,
        Some(b) => Value::Int(i64::from(b)),
    }
}

fn unsupported(expr: &Expr) -> SqlError {
    SqlError::new(1235, "42000", format!("This version of MariaDB doesn't yet support '{expr} in SHOW ... WHERE'"))
}

fn literal(v: &Literal, expr: &Expr) -> Result<Value, SqlError> {
    Ok(match v {
        Literal::Null => Value::Null,
        Literal::Boolean(b) => Value::Int(i64::from(*b)),
        Literal::Number(n, _) => {
            if let Ok(i) = n.parse::<i64>() {
                Value::Int(i)
            } else if let Ok(u) = n.parse::<u64>() {
                Value::UInt(u)
            } else if let Some(d) = selkie_storage::Decimal::parse(n).filter(|_| !n.contains(['e', 'E'])) {
                Value::Decimal(d)
            } else {
                Value::Double(n.parse().map_err(|_| unsupported(expr))?)
            }
        }
        Literal::SingleQuotedString(s) | Literal::DoubleQuotedString(s) | Literal::NationalStringLiteral(s) => {
            Value::Bytes(s.as_bytes().to_vec())
        }
        _ => return Err(unsupported(expr)),
    })
}

/// One result row with its column names, as the evaluation environment.
struct Row<'a> {
    names: &'a [&'a str],
    values: &'a [Value],
}

impl Row<'_> {
    fn column(&self, name: &str) -> Result<Value, SqlError> {
        match self.names.iter().position(|n| n.eq_ignore_ascii_case(name)) {
            Some(i) => Ok(self.values[i].clone()),
            None => Err(SqlError::new(1054, "42S22", format!("Unknown column '{name}' in 'where clause'"))),
        }
    }

    fn eval(&self, expr: &Expr, depth: usize) -> Result<Value, SqlError> {
        if depth > MAX_EXPR_DEPTH {
            return Err(SqlError::new(1064, "42000", "SHOW ... WHERE expression is nested too deeply"));
        }
        let ev = |e: &Expr| self.eval(e, depth + 1);
        Ok(match expr {
            Expr::Identifier(ident) => self.column(&ident.value)?,
            Expr::CompoundIdentifier(parts) => match parts.last() {
                Some(last) => self.column(&last.value)?,
                None => return Err(unsupported(expr)),
            },
            Expr::Value(v) => literal(&v.value, expr)?,
            Expr::Nested(inner) => ev(inner)?,
            Expr::UnaryOp { op: UnaryOperator::Not, expr: inner } => bool_value(truth(&ev(inner)?).map(|b| !b)),
            Expr::UnaryOp { op: UnaryOperator::Minus, expr: inner } => match ev(inner)? {
                Value::Int(i) => i.checked_neg().map(Value::Int).unwrap_or(Value::Double(-(i as f64))),
                Value::Null => Value::Null,
                other => Value::Double(-number_of(&other)),
            },
            Expr::IsNull(inner) => Value::Int(i64::from(ev(inner)?.is_null())),
            Expr::IsNotNull(inner) => Value::Int(i64::from(!ev(inner)?.is_null())),
            Expr::BinaryOp { left, op, right } => {
                let (l, r) = (ev(left)?, ev(right)?);
                match op {
                    BinaryOperator::And => bool_value(match (truth(&l), truth(&r)) {
                        (Some(false), _) | (_, Some(false)) => Some(false),
                        (Some(true), Some(true)) => Some(true),
                        _ => None,
                    }),
                    BinaryOperator::Or => bool_value(match (truth(&l), truth(&r)) {
                        (Some(true), _) | (_, Some(true)) => Some(true),
                        (Some(false), Some(false)) => Some(false),
                        _ => None,
                    }),
                    BinaryOperator::Xor => bool_value(match (truth(&l), truth(&r)) {
                        (Some(a), Some(b)) => Some(a != b),
                        _ => None,
                    }),
                    BinaryOperator::Eq => bool_value(compare(&l, &r).map(|o| o == Ordering::Equal)),
                    BinaryOperator::NotEq => bool_value(compare(&l, &r).map(|o| o != Ordering::Equal)),
                    BinaryOperator::Lt => bool_value(compare(&l, &r).map(|o| o == Ordering::Less)),
                    BinaryOperator::LtEq => bool_value(compare(&l, &r).map(|o| o != Ordering::Greater)),
                    BinaryOperator::Gt => bool_value(compare(&l, &r).map(|o| o == Ordering::Greater)),
                    BinaryOperator::GtEq => bool_value(compare(&l, &r).map(|o| o != Ordering::Less)),
                    BinaryOperator::Spaceship => Value::Int(i64::from(match (l.is_null(), r.is_null()) {
                        (true, true) => true,
                        (false, false) => compare(&l, &r) == Some(Ordering::Equal),
                        _ => false,
                    })),
                    _ => return Err(unsupported(expr)),
                }
            }
            Expr::Like { negated, any: false, expr: e, pattern, escape_char } => {
                self.like(e, pattern, escape_char.as_deref(), *negated, true, depth, expr)?
            }
            Expr::ILike { negated, any: false, expr: e, pattern, escape_char } => {
                self.like(e, pattern, escape_char.as_deref(), *negated, true, depth, expr)?
            }
            Expr::InList { expr: e, list, negated } => {
                let v = ev(e)?;
                let mut saw_null = v.is_null();
                let mut found = false;
                for item in list {
                    match compare(&v, &ev(item)?) {
                        Some(Ordering::Equal) => found = true,
                        None => saw_null = true,
                        _ => {}
                    }
                }
                bool_value(match (found, saw_null) {
                    (true, _) => Some(!*negated),
                    (false, true) => None,
                    (false, false) => Some(*negated),
                })
            }
            Expr::Between { expr: e, negated, low, high } => {
                let v = ev(e)?;
                let ge = compare(&v, &ev(low)?).map(|o| o != Ordering::Less);
                let le = compare(&v, &ev(high)?).map(|o| o != Ordering::Greater);
                let inside = match (ge, le) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                };
                bool_value(inside.map(|b| b != *negated))
            }
            _ => return Err(unsupported(expr)),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn like(
        &self,
        e: &Expr,
        pattern: &Expr,
        escape: Option<&Expr>,
        negated: bool,
        case_insensitive: bool,
        depth: usize,
        whole: &Expr,
    ) -> Result<Value, SqlError> {
        let v = self.eval(e, depth + 1)?;
        let p = self.eval(pattern, depth + 1)?;
        let esc = match escape {
            None => LIKE_ESCAPE,
            Some(x) => match self.eval(x, depth + 1)? {
                Value::Bytes(b) if b.len() == 1 => b[0],
                _ => return Err(unsupported(whole)),
            },
        };
        if v.is_null() || p.is_null() {
            return Ok(Value::Null);
        }
        let m = like_match(&text_of(&p), &text_of(&v), case_insensitive, esc);
        Ok(Value::Int(i64::from(m != negated)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{ColumnDefinition, FieldType};
    use sqlparser::dialect::MySqlDialect;
    use sqlparser::parser::Parser;

    fn col(name: &str) -> ColumnDefinition {
        ColumnDefinition {
            schema: String::new(),
            table: String::new(),
            org_table: String::new(),
            name: name.into(),
            org_name: name.into(),
            charset: 45,
            length: 0,
            field_type: FieldType::VarString,
            flags: 0,
            decimals: 0,
        }
    }

    fn vars() -> ResultSet {
        let row = |n: &str, v: &str| vec![Value::Bytes(n.into()), Value::Bytes(v.into())];
        ResultSet {
            columns: vec![col("Variable_name"), col("Value")],
            rows: vec![
                row("auto_increment_increment", "1"),
                row("autocommit", "ON"),
                row("max_connections", "151"),
                row("max_join_size", "18446744073709551615"),
                row("version", "10.11.19-MariaDB"),
                vec![Value::Bytes("nullish".into()), Value::Null],
            ],
        }
    }

    fn names(rs: &ResultSet) -> Vec<String> {
        rs.rows
            .iter()
            .map(|r| {
                String::from_utf8_lossy(match &r[0] {
                    Value::Bytes(b) => b,
                    _ => panic!(),
                })
                .into_owned()
            })
            .collect()
    }

    fn filter_where(sql: &str) -> Result<Vec<String>, SqlError> {
        let expr = Parser::new(&MySqlDialect {}).try_with_sql(sql).unwrap().parse_expr().unwrap();
        let mut rs = vars();
        apply(&mut rs, Some(&Filter::Where(Box::new(expr))), LikeTarget { column: 0, case_insensitive: true })?;
        Ok(names(&rs))
    }

    fn filter_like(p: &str, ci: bool) -> Vec<String> {
        let mut rs = vars();
        apply(&mut rs, Some(&Filter::Like(p.into())), LikeTarget { column: 0, case_insensitive: ci }).unwrap();
        names(&rs)
    }

    #[test]
    fn like_patterns() {
        assert!(like_match(b"a%", b"abc", false, b'\\'));
        assert!(like_match(b"%", b"", false, b'\\'));
        assert!(like_match(b"a_c", b"abc", false, b'\\'));
        assert!(!like_match(b"a_c", b"abbc", false, b'\\'));
        assert!(like_match(b"%b%", b"abc", false, b'\\'));
        assert!(like_match(b"%c", b"abcabc", false, b'\\'));
        assert!(!like_match(b"%d", b"abcabc", false, b'\\'));
        assert!(like_match(b"a%b%c", b"aXXbYYc", false, b'\\'));
        assert!(!like_match(b"a%b%c", b"aXXbYY", false, b'\\'));
        assert!(like_match(b"auto\\_inc%", b"auto_increment_increment", false, b'\\'));
        assert!(!like_match(b"auto\\_inc%", b"autoXincrement", false, b'\\'));
        assert!(like_match(b"100\\%", b"100%", false, b'\\'));
        assert!(!like_match(b"ABC", b"abc", false, b'\\'));
        assert!(like_match(b"ABC", b"abc", true, b'\\'));
        assert!(like_match("_x".as_bytes(), "éx".as_bytes(), false, b'\\'), "_ matches one UTF-8 character");
        assert!(!like_match(b"a", b"ab", false, b'\\'));
        assert!(!like_match(b"ab", b"a", false, b'\\'));
        assert!(like_match(b"a\\", b"a\\", false, b'\\'), "a trailing escape is literal");
    }

    /// Model check: the iterative matcher agrees with a plain recursive definition of LIKE
    /// on every pattern/text pair over a small alphabet.
    #[test]
    fn like_agrees_with_a_recursive_model() {
        fn model(p: &[u8], t: &[u8]) -> bool {
            match p.first() {
                None => t.is_empty(),
                Some(b'%') => (0..=t.len()).any(|i| model(&p[1..], &t[i..])),
                Some(b'_') => !t.is_empty() && model(&p[1..], &t[1..]),
                Some(&c) => t.first() == Some(&c) && model(&p[1..], &t[1..]),
            }
        }
        let alphabet = [b'a', b'b', b'%', b'_'];
        let mut patterns = vec![vec![]];
        for _ in 0..4 {
            let mut next = patterns.clone();
            for p in &patterns {
                for &c in &alphabet {
                    let mut q = p.clone();
                    q.push(c);
                    next.push(q);
                }
            }
            patterns = next;
        }
        patterns.sort();
        patterns.dedup();
        let texts: Vec<Vec<u8>> =
            patterns.iter().filter(|p| p.iter().all(|c| *c == b'a' || *c == b'b')).cloned().collect();
        for p in &patterns {
            for t in &texts {
                assert_eq!(
                    like_match(p, t, false, b'\\'),
                    model(p, t),
                    "{:?} LIKE {:?}",
                    String::from_utf8_lossy(t),
                    String::from_utf8_lossy(p)
                );
            }
        }
    }

    #[test]
    fn like_filters_the_name_column() {
        assert_eq!(filter_like("auto%", true), ["auto_increment_increment", "autocommit"]);
        assert_eq!(filter_like("AUTO%", true), ["auto_increment_increment", "autocommit"]);
        assert!(filter_like("AUTO%", false).is_empty());
        assert_eq!(filter_like("max\\_c%", true), ["max_connections"]);
    }

    #[test]
    fn where_comparisons_are_case_insensitive_and_numeric_when_needed() {
        assert_eq!(filter_where("Variable_name = 'AUTOCOMMIT'").unwrap(), ["autocommit"]);
        assert_eq!(filter_where("variable_name <> 'autocommit' and Value = 'on'").unwrap(), Vec::<String>::new());
        assert_eq!(
            filter_where("Value > 100").unwrap(),
            ["max_connections", "max_join_size"],
            "'10.11.19-MariaDB' is 10.11"
        );
        assert_eq!(filter_where("Value >= 18446744073709551615").unwrap(), ["max_join_size"]);
        assert_eq!(filter_where("Variable_name IN ('version', 'VERSION', 'x')").unwrap(), ["version"]);
        assert_eq!(filter_where("Variable_name NOT IN ('version', 'autocommit', 'nullish')").unwrap().len(), 3);
        assert_eq!(filter_where("Variable_name LIKE 'max%' OR NOT (Value = 1)").unwrap().len(), 4);
        assert_eq!(filter_where("Value BETWEEN 100 AND 200").unwrap(), ["max_connections"]);
        assert_eq!(filter_where("Value NOT BETWEEN 100 AND 200").unwrap().len(), 4);
        assert_eq!(filter_where("Value IS NULL").unwrap(), ["nullish"]);
        assert_eq!(filter_where("Value IS NOT NULL").unwrap().len(), 5);
        assert_eq!(filter_where("Value = NULL").unwrap(), Vec::<String>::new(), "NULL comparisons are unknown");
        assert_eq!(filter_where("Value <=> NULL").unwrap(), ["nullish"]);
        assert_eq!(
            filter_where("(`Variable_name` like 'AUTO%') xor (Value = 'ON')").unwrap(),
            ["auto_increment_increment"]
        );
        assert_eq!(filter_where("Value = 151.0").unwrap(), ["max_connections"]);
        assert_eq!(filter_where("Value = 1.51e2").unwrap(), ["max_connections"]);
        assert_eq!(filter_where("Value = -1").unwrap(), Vec::<String>::new());
        assert_eq!(filter_where("true").unwrap().len(), 6);
    }

    #[test]
    fn where_errors_are_clean() {
        assert_eq!(filter_where("nope = 1").unwrap_err().code, 1054);
        assert_eq!(filter_where("Value + 1 = 2").unwrap_err().code, 1235);
        assert_eq!(filter_where("Value IN (SELECT 1)").unwrap_err().code, 1235);
        let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
        let expr = Parser::new(&MySqlDialect {}).try_with_sql(&deep).unwrap().parse_expr();
        if let Ok(expr) = expr {
            let mut rs = vars();
            let r =
                apply(&mut rs, Some(&Filter::Where(Box::new(expr))), LikeTarget { column: 0, case_insensitive: true });
            assert_eq!(r.unwrap_err().code, 1064);
        }
    }

    #[test]
    fn numeric_prefix_of_strings() {
        let n = |s: &str| number_of(&Value::Bytes(s.into()));
        assert_eq!(n("12abc"), 12.0);
        assert_eq!(n("  -3.5e2x"), -350.0);
        assert_eq!(n("1e"), 1.0);
        assert_eq!(n("abc"), 0.0);
        assert_eq!(n("."), 0.0);
    }
}
