//! Expressions stored in the catalog as MariaDB prints them (CHECK constraints, generated
//! columns, DEFAULT (expr)), read back into sqlparser's AST. MariaDB's printed forms include a
//! few that sqlparser does not read; they are rewritten first.
//!
//! Floor: `parse`, so that the binder (DEFAULT(col) in a query) can read them as well as the
//! constraint and generated-column code above it.

use sqlparser::ast;

use crate::error::{self, SqlError};

/// `text` in a form sqlparser reads: the ` MOD ` operator MariaDB prints becomes ` % `,
/// `!(x)` becomes `(NOT (x))` and `cast(x as char charset cs)` loses its charset (sqlparser
/// knows none of them), outside quoted strings and names.
fn sqlparser_text(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 8);
    // Positions (in `text`) of the `)` that close a rewritten `!(`.
    let mut closers: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let ch = bytes[i];
        if ch == b'\'' || ch == b'`' || ch == b'"' {
            let start = i;
            i += 1;
            while i < bytes.len() && bytes[i] != ch {
                if bytes[i] == b'\\' && ch == b'\'' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(bytes.len());
            out.push_str(&text[start..i]);
            continue;
        }
        // `cast(x as char[(n)] charset cs)`: sqlparser reads no charset there; binary is
        // CAST AS BINARY[(n)], any other the plain CHAR cast (the text is utf8mb4 here).
        if text[i..].starts_with(" charset ") {
            let tail = out.rfind(" as char").filter(|&at| {
                let rest = &out[at + " as char".len()..];
                rest.is_empty() || (rest.starts_with('(') && rest.ends_with(')'))
            });
            if let Some(at) = tail {
                let name_start = i + " charset ".len();
                let name_len =
                    text[name_start..].bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
                if &text[name_start..name_start + name_len] == "binary" {
                    let rest = out[at + " as char".len()..].to_string();
                    out.truncate(at);
                    out.push_str(" as binary");
                    out.push_str(&rest);
                }
                i = name_start + name_len;
                continue;
            }
        }
        if text[i..].starts_with(" MOD ") {
            out.push_str(" % ");
            i += 5;
            continue;
        }
        if ch == b'!' && bytes.get(i + 1) == Some(&b'(') {
            if let Some(close) = matching_paren(bytes, i + 1) {
                closers.push(close);
                out.push_str("(NOT (");
                i += 2;
                continue;
            }
        }
        if ch == b')' && closers.last() == Some(&i) {
            closers.pop();
            out.push_str("))");
            i += 1;
            continue;
        }
        let len = text[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&text[i..i + len]);
        i += len;
    }
    out
}

/// The position of the `)` that closes the `(` at `open`, skipping quoted text.
fn matching_paren(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            q @ (b'\'' | b'`' | b'"') => {
                i += 1;
                while i < bytes.len() && bytes[i] != q {
                    if bytes[i] == b'\\' && q == b'\'' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Parses a stored expression; all of it must be one expression.
pub(crate) fn parse_expr(text: &str) -> Result<ast::Expr, SqlError> {
    let dialect = super::dialect::MariaDbDialect::new();
    let sql = sqlparser_text(text);
    let bad = |e: &dyn std::fmt::Display| error::internal(&format!("stored expression {text:?} does not parse: {e}"));
    let mut parser = sqlparser::parser::Parser::new(&dialect).try_with_sql(&sql).map_err(|e| bad(&e))?;
    let expr = parser.parse_expr().map_err(|e| bad(&e))?;
    let rest = parser.next_token();
    if rest.token != sqlparser::tokenizer::Token::EOF {
        return Err(bad(&format!("unexpected {}", rest.token)));
    }
    Ok(expr)
}
