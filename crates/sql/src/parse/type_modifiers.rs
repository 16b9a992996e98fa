//! Numeric type modifiers of CREATE/ALTER TABLE that sqlparser does not parse: `ZEROFILL`, and
//! `SIGNED` after FLOAT/DOUBLE/REAL/DECIMAL (sqlparser takes it only after integer types); also
//! a generated column's `PERSISTENT` (MariaDB's STORED).
//!
//! `SIGNED` is blanked (same length, so error offsets stay right). `ZEROFILL` implies UNSIGNED
//! in MariaDB; it becomes `UNSIGNED` plus a column option sqlparser does parse, `SRID` with a
//! marker value no geometry column can have, which the DDL binder reads back as ZEROFILL
//! (`is_zerofill_marker`). Both only apply right after a type: `CAST(x AS SIGNED)` is kept.

use sqlparser::ast;

use super::lexer::{self, Tok};

/// The SRID value that stands for ZEROFILL (u32::MAX: SRIDs are 32-bit, and no spatial
/// reference system uses it).
const ZEROFILL_MARKER: &str = "4294967295";

/// Words after which `SIGNED` / `ZEROFILL` qualify a type rather than name a CAST target.
const TYPE_ENDINGS: &[&str] = &[
    "TINYINT",
    "SMALLINT",
    "MEDIUMINT",
    "INT",
    "INTEGER",
    "BIGINT",
    "FLOAT",
    "DOUBLE",
    "PRECISION",
    "REAL",
    "DECIMAL",
    "DEC",
    "NUMERIC",
    "FIXED",
    "SIGNED",
    "UNSIGNED",
    "INT1",
    "INT2",
    "INT3",
    "INT4",
    "INT8",
];

fn ends_type(prev: Option<&Tok>) -> bool {
    match prev {
        Some(Tok::Sym(')')) => true,
        Some(Tok::Word(w)) => TYPE_ENDINGS.iter().any(|t| w.eq_ignore_ascii_case(t)),
        _ => false,
    }
}

/// The statement (a CREATE or ALTER) with the modifiers rewritten, or None when it has none.
pub fn rewrite(text: &str) -> Option<String> {
    let toks = lexer::tokenize(text)?;
    let mut out = String::with_capacity(text.len() + 32);
    let mut pos = 0;
    for (i, (tok, off)) in toks.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| &toks[p].0);
        if tok.is_word("PERSISTENT") && matches!(prev, Some(Tok::Sym(')'))) {
            // MariaDB's synonym of STORED after a generated column's `AS (expr)`: the same
            // length with spaces, so error offsets stay right.
            out.push_str(&text[pos..*off]);
            out.push_str("STORED    ");
            pos = off + "PERSISTENT".len();
            continue;
        }
        if !ends_type(prev) {
            continue;
        }
        if tok.is_word("SIGNED") {
            out.push_str(&text[pos..*off]);
            out.push_str("      ");
            pos = off + "SIGNED".len();
        } else if tok.is_word("ZEROFILL") {
            out.push_str(&text[pos..*off]);
            if !prev.is_some_and(|p| p.is_word("UNSIGNED")) {
                out.push_str("UNSIGNED ");
            }
            out.push_str("SRID ");
            out.push_str(ZEROFILL_MARKER);
            pos = off + "ZEROFILL".len();
        }
    }
    if pos == 0 {
        return None;
    }
    out.push_str(&text[pos..]);
    Some(out)
}

/// Whether a column option is the ZEROFILL that `rewrite` encoded.
pub fn is_zerofill_marker(option: &ast::ColumnOption) -> bool {
    match option {
        ast::ColumnOption::Srid(e) => {
            matches!(&**e, ast::Expr::Value(v) if matches!(&v.value, ast::Value::Number(n, _) if n == ZEROFILL_MARKER))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_only_type_modifiers() {
        assert_eq!(
            rewrite("CREATE TABLE t (a INT(5) ZEROFILL, b REAL SIGNED)").unwrap(),
            "CREATE TABLE t (a INT(5) UNSIGNED SRID 4294967295, b REAL       )"
        );
        assert_eq!(
            rewrite("create table t (a int unsigned zerofill not null)").unwrap(),
            "create table t (a int unsigned SRID 4294967295 not null)"
        );
        assert!(rewrite("CREATE TABLE t (a INT DEFAULT (CAST(1 AS SIGNED)))").is_none());
        assert!(rewrite("CREATE TABLE t (`zerofill` INT, s VARCHAR(5) DEFAULT 'SIGNED')").is_none());
    }
}
