//! Auto-parameterization of text statements, so that a statement sent again with different
//! constants (sysbench with --db-ps-mode=disable, ORMs without server-side prepare) reuses the
//! plan of the first one instead of being parsed (sqlparser takes 10-20 µs per statement) and
//! bound again.
//!
//! Only constants whose replacement by a parameter cannot change the statement's meaning are
//! replaced: plain decimal numbers and single-quoted strings without escapes, in the WHERE /
//! SET / VALUES part of SELECT, UPDATE, DELETE, INSERT and REPLACE, before any ORDER BY,
//! GROUP BY, HAVING or LIMIT (positions and LIMIT counts stay literal), and never a LIKE
//! pattern, ESCAPE character or REGEXP pattern (those are compiled once when literal). The select list is
//! never touched, so result column names are those of the text.

use selkie_storage::Decimal;

use super::lexer::{self, Tok};
use crate::types::Value;

/// Longest statement worth caching; longer ones (bulk INSERTs) are parsed every time.
pub const MAX_PARAMETERIZED_TEXT: usize = 2048;
/// Most constants replaced in one statement.
pub const MAX_AUTO_PARAMS: usize = 64;

/// A statement with its constants replaced by `?`.
#[derive(Debug, PartialEq)]
pub struct Parameterized {
    pub skeleton: String,
    pub params: Vec<Value>,
}

/// The numeric value of a plain decimal literal, typed as the binder types literals.
fn number(s: &str) -> Option<Value> {
    let b = s.as_bytes();
    let digits_then = |mut i: usize| {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (i, i > start)
    };
    let (mut i, int_digits) = digits_then(0);
    let mut frac = false;
    if i < b.len() && b[i] == b'.' {
        let (j, f) = digits_then(i + 1);
        i = j;
        frac = f;
    }
    if !int_digits && !frac {
        return None;
    }
    let mut exp = false;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let (k, e) = digits_then(j);
        if !e {
            return None;
        }
        i = k;
        exp = true;
    }
    if i != b.len() {
        return None;
    }
    if exp {
        return s.parse::<f64>().ok().map(Value::Double);
    }
    if !s.contains('.') {
        if let Ok(v) = s.parse::<i64>() {
            return Some(Value::Int(v));
        }
        if let Ok(v) = s.parse::<u64>() {
            return Some(Value::UInt(v));
        }
    }
    Decimal::parse(s).map(Value::Decimal)
}

/// Replaces the statement's constants by `?`. None when the statement is not a candidate or
/// has nothing to replace.
pub fn parameterize(text: &str) -> Option<Parameterized> {
    if text.len() > MAX_PARAMETERIZED_TEXT || text.contains('?') {
        return None;
    }
    let toks = lexer::tokenize(text)?;
    let first = toks.first()?;
    let verb = match &first.0 {
        Tok::Word(w) => w.to_ascii_uppercase(),
        _ => return None,
    };
    // The keyword after which constants may be replaced.
    let start_kw: &[&str] = match verb.as_str() {
        "SELECT" | "DELETE" => &["WHERE"],
        "UPDATE" => &["SET"],
        "INSERT" | "REPLACE" => &["VALUES", "VALUE", "SET"],
        _ => return None,
    };
    let src = text.as_bytes();
    // A reference to a user variable is typed by what the variable holds when the statement
    // is bound (an integer, a DECIMAL, a string of some collation): a plan cached for one
    // value would be wrong for the next.
    // (`@@x` lexes as an empty `@` and then `@x`: neither is a user variable.)
    let is_user_var =
        |t: &Tok, off: usize| matches!(t, Tok::UserVar(v) if !v.is_empty()) && !src[..off].ends_with(b"@");
    if toks.iter().any(|(t, off)| is_user_var(t, *off)) {
        return None;
    }
    let mut depth = 0i32;
    let mut active = false;
    let mut replace: Vec<(usize, usize, Value)> = Vec::new();
    for (idx, (tok, off)) in toks.iter().enumerate() {
        match tok {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            Tok::Word(w) => {
                let u = w.to_ascii_uppercase();
                if matches!(
                    u.as_str(),
                    "ORDER" | "GROUP" | "HAVING" | "LIMIT" | "PROCEDURE" | "UNION" | "SELECT" | "WINDOW" | "RETURNING"
                ) && idx > 0
                {
                    // Positions, LIMIT counts, nested queries' own clauses and RETURNING lists
                    // (their text names result columns) stay literal.
                    break;
                }
                if depth == 0 && start_kw.contains(&u.as_str()) {
                    active = true;
                }
            }
            Tok::Num(n) if active => {
                // A number glued to a word or a dot (`t1.5`, `1e`) is not a plain constant.
                let glued =
                    *off > 0 && (src[off - 1].is_ascii_alphanumeric() || src[off - 1] == b'.' || src[off - 1] == b'_');
                let v = number(n).filter(|_| !glued)?;
                replace.push((*off, off + n.len(), v));
            }
            Tok::Str(s) if active => {
                let end = lexer_string_end(src, *off)?;
                let raw = &text[*off..end];
                let prev = idx.checked_sub(1).map(|i| &toks[i].0);
                // LIKE and REGEXP patterns stay literal: they are compiled (and a bad REGEXP
                // pattern refused) once, when bound.
                let after_like = prev.is_some_and(|p| {
                    p.is_word("LIKE") || p.is_word("ESCAPE") || p.is_word("REGEXP") || p.is_word("RLIKE")
                });
                // Only plain '...' strings: no escapes, no introducer or x'..'/b'..' prefix.
                let introduced = *off > 0 && (src[off - 1].is_ascii_alphanumeric() || src[off - 1] == b'_')
                    || prev.is_some_and(|p| matches!(p, Tok::Word(w) if w.starts_with('_')));
                if raw.starts_with('\'') && !raw[1..raw.len() - 1].contains(['\\', '\'']) && !after_like && !introduced
                {
                    replace.push((*off, end, Value::Bytes(s.as_bytes().to_vec())));
                }
            }
            _ => {}
        }
    }
    if replace.is_empty() || replace.len() > MAX_AUTO_PARAMS {
        return None;
    }
    let mut skeleton = String::with_capacity(text.len());
    let mut pos = 0;
    let mut params = Vec::with_capacity(replace.len());
    for (s, e, v) in replace {
        skeleton.push_str(&text[pos..s]);
        skeleton.push('?');
        pos = e;
        params.push(v);
    }
    skeleton.push_str(&text[pos..]);
    Some(Parameterized { skeleton, params })
}

/// End offset of the quoted string starting at `off`.
fn lexer_string_end(src: &[u8], off: usize) -> Option<usize> {
    let q = *src.get(off)?;
    let mut j = off + 1;
    while j < src.len() {
        if src[j] == b'\\' {
            j += 2;
            continue;
        }
        if src[j] == q {
            if src.get(j + 1) == Some(&q) {
                j += 2;
                continue;
            }
            return Some(j + 1);
        }
        j += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(sql: &str) -> Option<(String, Vec<Value>)> {
        parameterize(sql).map(|p| (p.skeleton, p.params))
    }

    #[test]
    fn replaces_where_set_and_values_constants() {
        assert_eq!(
            p("SELECT c FROM sbtest1 WHERE id=5"),
            Some(("SELECT c FROM sbtest1 WHERE id=?".into(), vec![Value::Int(5)]))
        );
        assert_eq!(
            p("UPDATE sbtest1 SET c='07-123' WHERE id=5"),
            Some(("UPDATE sbtest1 SET c=? WHERE id=?".into(), vec![Value::Bytes(b"07-123".to_vec()), Value::Int(5)]))
        );
        assert_eq!(
            p("INSERT INTO t (id, k) VALUES (-5, 1.50)"),
            Some((
                "INSERT INTO t (id, k) VALUES (-?, ?)".into(),
                vec![Value::Int(5), Value::Decimal(Decimal::new(150, 2))]
            ))
        );
        assert_eq!(
            p("SELECT id FROM t WHERE k IN (1, 2) AND d > 1e3"),
            Some((
                "SELECT id FROM t WHERE k IN (?, ?) AND d > ?".into(),
                vec![Value::Int(1), Value::Int(2), Value::Double(1000.0)]
            ))
        );
        assert_eq!(p("DELETE FROM t WHERE id = 18446744073709551615").unwrap().1, vec![Value::UInt(u64::MAX)]);
    }

    #[test]
    fn keeps_constants_whose_role_is_not_a_value() {
        // Select list, ORDER BY position, LIMIT, LIKE pattern, escapes, hex and introducers.
        assert_eq!(
            p("SELECT 1, 'a' FROM t WHERE id = 2 ORDER BY 1 LIMIT 5").unwrap().0,
            "SELECT 1, 'a' FROM t WHERE id = ? ORDER BY 1 LIMIT 5"
        );
        assert!(p("SELECT id FROM t WHERE c LIKE 'a%'").is_none());
        assert!(p("SELECT id FROM t WHERE c REGEXP '^a'").is_none());
        assert_eq!(
            p("SELECT id FROM t WHERE c = 'it''s' AND id = 1").unwrap().0,
            "SELECT id FROM t WHERE c = 'it''s' AND id = ?"
        );
        assert!(p("SELECT id FROM t WHERE c = 'a\\'b'").is_none());
        assert!(p("SELECT id FROM t WHERE c = x'41'").is_none());
        assert!(p("SELECT id FROM t WHERE c = _utf8mb4'a'").is_none());
        assert!(p("SELECT id FROM t WHERE c = _latin1 'a'").is_none(), "an introducer before a space");
        assert!(p("SELECT id FROM t WHERE c = 0x41").is_none());
        assert!(p("SELECT id FROM t WHERE id IN (SELECT x FROM u WHERE y = 1 ORDER BY 1)").is_none());
        assert_eq!(
            p("INSERT INTO t VALUES (1) RETURNING id + 1").unwrap().0,
            "INSERT INTO t VALUES (?) RETURNING id + 1"
        );
        assert!(p("SELECT id FROM t WHERE d > 1.5e-3").is_none());
        assert!(p("INSERT INTO t SELECT * FROM u WHERE id = 1").is_none());
        // Other statements, placeholders and oversized texts are left alone.
        assert!(p("SET @a = 1").is_none());
        assert!(p("SELECT c FROM t WHERE id = ?").is_none());
        assert!(p(&format!("SELECT c FROM t WHERE id = 1 AND c = '{}'", "x".repeat(3000))).is_none());
        assert!(p("SELECT c FROM t").is_none());
        // A user variable's type is bound with the plan; a system variable's is not a value's.
        assert!(p("SELECT c FROM t WHERE id = 1 AND c = @v").is_none());
        assert!(p("SELECT c FROM t WHERE id = 1 ORDER BY @v").is_none());
        assert_eq!(
            p("SELECT c FROM t WHERE id = 1 AND @@autocommit = 1").unwrap().0,
            "SELECT c FROM t WHERE id = ? AND @@autocommit = ?"
        );
    }

    #[test]
    fn numbers_are_typed_like_literals() {
        assert_eq!(number("42"), Some(Value::Int(42)));
        assert_eq!(number(".5"), Some(Value::Decimal(Decimal::new(5, 1))));
        assert_eq!(number("1.5e-3"), Some(Value::Double(0.0015)));
        assert_eq!(number("2E10"), Some(Value::Double(2e10)));
        assert_eq!(number("1e"), None);
        assert_eq!(number("0x41"), None);
    }
}
