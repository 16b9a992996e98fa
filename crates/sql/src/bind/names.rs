//! The statement text as the binder needs it: placeholder numbering and result column names.
//!
//! MariaDB names an unaliased computed column by the text the client wrote (`count(*)`,
//! `1 +  1`), a column reference by the name as written, and a string literal by its value.
//! sqlparser's spans do not cover whole expressions, so the select list is re-tokenized from
//! the `SELECT` keyword (whose span is exact) and split at top-level commas.

use std::collections::HashMap;

use sqlparser::ast;
use sqlparser::dialect::MySqlDialect;
use sqlparser::tokenizer::{Location, Token, Tokenizer};

use crate::parse::lexer::{self, Tok};

/// Longest generated column name, in characters (MariaDB truncates derived names there).
pub const MAX_COLUMN_NAME_CHARS: usize = 256;

pub struct SourceText<'a> {
    text: &'a str,
    /// The text as the client sent it (same byte offsets as `text`, which has executable
    /// comments and `MOD` rewritten): column names quote it.
    original: &'a str,
    /// Byte offset of each line start (line 1 at index 0).
    line_starts: Vec<usize>,
    /// Placeholder (line, column) → parameter number.
    placeholders: HashMap<(u64, u64), usize>,
}

impl<'a> SourceText<'a> {
    #[cfg(test)]
    pub fn new(text: &'a str) -> SourceText<'a> {
        SourceText::with_original(text, text)
    }

    /// `original` must have the same length and line structure as `text`.
    pub fn with_original(text: &'a str, original: &'a str) -> SourceText<'a> {
        debug_assert_eq!(text.len(), original.len());
        let original = if original.len() == text.len() { original } else { text };
        let mut line_starts = vec![0];
        line_starts.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1));
        let mut st = SourceText { text, original, line_starts, placeholders: HashMap::new() };
        if text.contains('?') {
            if let Some(toks) = lexer::tokenize(text) {
                let mut n = 0;
                for (tok, off) in toks {
                    if tok == Tok::Sym('?') {
                        let (line, col) = st.location_of(off);
                        st.placeholders.insert((line, col), n);
                        n += 1;
                    }
                }
            }
        }
        st
    }

    /// The statement text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    pub fn placeholder_count(&self) -> usize {
        self.placeholders.len()
    }

    /// Parameter number of the `?` at `loc`.
    pub fn placeholder_at(&self, loc: Location) -> Option<usize> {
        self.placeholders.get(&(loc.line, loc.column)).copied()
    }

    /// 1-based line and character column of a byte offset (sqlparser's convention).
    fn location_of(&self, off: usize) -> (u64, u64) {
        let line = self.line_starts.partition_point(|&s| s <= off);
        let start = self.line_starts[line - 1];
        let col = self.text[start..off].chars().count() + 1;
        (line as u64, col as u64)
    }

    /// Whether the statement text at `loc` starts with `prefix` (ASCII, case-insensitive).
    pub fn starts_with_at(&self, loc: Location, prefix: &str) -> bool {
        self.offset_of(loc)
            .and_then(|o| self.text.get(o..o + prefix.len()))
            .is_some_and(|t| t.eq_ignore_ascii_case(prefix))
    }

    /// Byte offset of a sqlparser location.
    pub fn offset_of(&self, loc: Location) -> Option<usize> {
        let line = usize::try_from(loc.line).ok()?;
        let start = *self.line_starts.get(line.checked_sub(1)?)?;
        let col = usize::try_from(loc.column).ok()?.checked_sub(1)?;
        let rest = &self.text[start..];
        match rest.char_indices().nth(col) {
            Some((i, _)) => Some(start + i),
            None if rest.chars().count() == col => Some(start + rest.len()),
            None => None,
        }
    }

    /// The raw text of each item of a comma-separated list between `start` and `end` (the
    /// parentheses of a VALUES row), in order; None if the text cannot be matched.
    pub fn list_item_texts(&self, start: Location, end: Location) -> Option<Vec<String>> {
        let (start, end) = (self.offset_of(start)?, self.offset_of(end)?);
        let sub = self.text.get(start..end)?;
        let original = self.original.get(start..end)?;
        let tokens = Tokenizer::new(&MySqlDialect {}, sub).tokenize_with_location().ok()?;
        let local = SourceText::new_plain(sub);
        let mut items = Vec::new();
        let mut depth = 0i32;
        let mut cur: Option<(usize, usize)> = None;
        for t in &tokens {
            match t.token {
                Token::Whitespace(_) | Token::EOF => continue,
                Token::Comma if depth == 0 => {
                    items.push(cur.take()?);
                    continue;
                }
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                _ => {}
            }
            let s = local.offset_of(t.span.start)?;
            let e = local.offset_of(t.span.end)?;
            cur = Some(cur.map_or((s, e), |(s0, _)| (s0, e)));
        }
        items.push(cur?);
        items.into_iter().map(|(s, e)| original.get(s..e).map(str::to_string)).collect()
    }

    /// The raw text of each select-list item of `select`, in order. None if the text cannot be
    /// matched with the AST (then callers fall back to the expression's display form).
    pub fn select_item_texts(&self, select: &ast::Select) -> Option<Vec<String>> {
        let start = self.offset_of(select.select_token.0.span.start)?;
        let sub = &self.text[start..];
        let original = &self.original[start..];
        let tokens = Tokenizer::new(&MySqlDialect {}, sub).tokenize_with_location().ok()?;
        let local = SourceText::new_plain(sub);
        let mut items = Vec::new();
        let mut depth = 0i32;
        let mut cur: Option<(usize, usize)> = None;
        let mut seen_select = false;
        // The two words before each token: `NEXT VALUE FOR s` does not end the list at FOR.
        let mut before: [Option<&str>; 2] = [None, None];
        for t in &tokens {
            if matches!(t.token, Token::Whitespace(_)) {
                continue;
            }
            if !seen_select {
                seen_select = true;
                continue;
            }
            let previous = before;
            before = [before[1], if let Token::Word(w) = &t.token { Some(w.value.as_str()) } else { None }];
            if depth == 0 {
                if let Token::Word(w) = &t.token {
                    if w.quote_style.is_none() && is_select_modifier(&w.value) && cur.is_none() && items.is_empty() {
                        continue;
                    }
                    if w.quote_style.is_none() && ends_select_list(&w.value) && !is_sequence_value_for(previous) {
                        break;
                    }
                }
                match t.token {
                    Token::Comma => {
                        items.push(cur.take());
                        continue;
                    }
                    Token::RParen | Token::SemiColon | Token::EOF => break,
                    _ => {}
                }
            }
            match t.token {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                _ => {}
            }
            let s = local.offset_of(t.span.start)?;
            let e = local.offset_of(t.span.end)?;
            cur = Some(match cur {
                None => (s, e),
                Some((s0, _)) => (s0, e),
            });
        }
        items.push(cur.take());
        if items.len() != select.projection.len() {
            return None;
        }
        let name =
            |(s, e): (usize, usize)| lexer::without_comments(original.get(s..e).unwrap_or(&sub[s..e])).into_owned();
        items.into_iter().map(|r| r.map(name)).collect()
    }

    /// The text from the last top-level RETURNING to the end, as MariaDB quotes it in the 1064
    /// of a statement that cannot have one (UPDATE).
    pub fn returning_clause_text(&self) -> Option<&'a str> {
        let tokens = Tokenizer::new(&MySqlDialect {}, self.text).tokenize_with_location().ok()?;
        let mut depth = 0i32;
        let mut start = None;
        for t in &tokens {
            match &t.token {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                Token::Word(w)
                    if depth == 0 && w.quote_style.is_none() && w.value.eq_ignore_ascii_case("RETURNING") =>
                {
                    start = self.offset_of(t.span.start)
                }
                _ => {}
            }
        }
        Some(self.original[start?..].trim_end().trim_end_matches(';').trim_end())
    }

    /// The raw text of each item of the RETURNING list that ends the statement; None unless
    /// exactly `count` items are found.
    pub fn returning_item_texts(&self, count: usize) -> Option<Vec<String>> {
        let tokens = Tokenizer::new(&MySqlDialect {}, self.text).tokenize_with_location().ok()?;
        let mut depth = 0i32;
        let mut start = None;
        for (i, t) in tokens.iter().enumerate() {
            match &t.token {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                Token::Word(w)
                    if depth == 0 && w.quote_style.is_none() && w.value.eq_ignore_ascii_case("RETURNING") =>
                {
                    start = Some(i + 1)
                }
                _ => {}
            }
        }
        let mut items = Vec::new();
        let mut cur: Option<(usize, usize)> = None;
        depth = 0;
        for t in &tokens[start?..] {
            match t.token {
                Token::Whitespace(_) => continue,
                Token::Comma if depth == 0 => {
                    items.push(cur.take()?);
                    continue;
                }
                Token::SemiColon | Token::EOF if depth == 0 => break,
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                _ => {}
            }
            let s = self.offset_of(t.span.start)?;
            let e = self.offset_of(t.span.end)?;
            cur = Some((cur.map_or(s, |c| c.0), e));
        }
        items.push(cur?);
        if items.len() != count {
            return None;
        }
        let name = |(s, e): (usize, usize)| {
            lexer::without_comments(self.original.get(s..e).unwrap_or(&self.text[s..e])).into_owned()
        };
        Some(items.into_iter().map(name).collect())
    }

    fn new_plain(text: &'a str) -> SourceText<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1));
        SourceText { text, original: text, line_starts, placeholders: HashMap::new() }
    }
}

fn is_select_modifier(w: &str) -> bool {
    const MODIFIERS: &[&str] = &[
        "ALL",
        "DISTINCT",
        "DISTINCTROW",
        "HIGH_PRIORITY",
        "STRAIGHT_JOIN",
        "SQL_SMALL_RESULT",
        "SQL_BIG_RESULT",
        "SQL_BUFFER_RESULT",
        "SQL_CACHE",
        "SQL_NO_CACHE",
        "SQL_CALC_FOUND_ROWS",
    ];
    MODIFIERS.iter().any(|m| m.eq_ignore_ascii_case(w))
}

/// Whether the two words before a FOR are `NEXT VALUE` or `PREVIOUS VALUE` (a sequence's value).
fn is_sequence_value_for(before: [Option<&str>; 2]) -> bool {
    matches!(before, [Some(a), Some(b)]
        if (a.eq_ignore_ascii_case("NEXT") || a.eq_ignore_ascii_case("PREVIOUS")) && b.eq_ignore_ascii_case("VALUE"))
}

fn ends_select_list(w: &str) -> bool {
    const ENDS: &[&str] = &[
        "FROM",
        "WHERE",
        "GROUP",
        "HAVING",
        "ORDER",
        "LIMIT",
        "INTO",
        "UNION",
        "EXCEPT",
        "INTERSECT",
        "FOR",
        "LOCK",
        "WINDOW",
    ];
    ENDS.iter().any(|m| m.eq_ignore_ascii_case(w))
}

/// MariaDB's name for an unaliased select item: `raw` is the item's text as written.
pub fn item_name(e: &ast::Expr, raw: Option<&str>) -> String {
    let name = match e {
        ast::Expr::Identifier(i) => i.value.clone(),
        ast::Expr::CompoundIdentifier(parts) if !parts.first().is_some_and(|p| p.value.starts_with("@@")) => {
            parts.last().map(|p| p.value.clone()).unwrap_or_default()
        }
        ast::Expr::Nested(inner) if is_name_like(inner) => item_name(inner, None),
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s)
            | ast::Value::DoubleQuotedString(s)
            | ast::Value::NationalStringLiteral(s) => s.clone(),
            ast::Value::Number(n, _) => raw.map_or_else(|| n.to_string(), str::to_string),
            _ => raw.map_or_else(|| e.to_string(), str::to_string),
        },
        // `_latin1'x'` is named by its text, `_latin1 X'E9'` by how it was written (MariaDB).
        ast::Expr::Prefixed { value, .. } if matches!(&**value, ast::Expr::Value(v) if !matches!(v.value, ast::Value::HexStringLiteral(_))) => {
            item_name(value, None)
        }
        ast::Expr::UnaryOp { op: ast::UnaryOperator::Plus, expr } if is_name_like(expr) => item_name(expr, None),
        _ => raw.map_or_else(|| e.to_string(), str::to_string),
    };
    if name.chars().count() > MAX_COLUMN_NAME_CHARS {
        name.chars().take(MAX_COLUMN_NAME_CHARS).collect()
    } else {
        name
    }
}

fn is_name_like(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => true,
        ast::Expr::Value(v) => !matches!(v.value, ast::Value::Placeholder(_)),
        ast::Expr::Nested(inner) => is_name_like(inner),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::parser::Parser;

    fn names(sql: &str) -> Vec<String> {
        let stmts = Parser::parse_sql(&MySqlDialect {}, sql).unwrap();
        let ast::Statement::Query(q) = &stmts[0] else { panic!("not a query") };
        let ast::SetExpr::Select(sel) = &*q.body else { panic!("not a select") };
        let st = SourceText::new(sql);
        let raws = st.select_item_texts(sel).unwrap();
        sel.projection
            .iter()
            .zip(raws)
            .map(|(item, raw)| match item {
                ast::SelectItem::UnnamedExpr(e) => item_name(e, Some(&raw)),
                ast::SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                _ => raw,
            })
            .collect()
    }

    /// The select items' texts (sqlparser does not read NEXT VALUE FOR, so no AST here).
    fn st_texts(sql: &str) -> Vec<String> {
        let stmts = Parser::parse_sql(&MySqlDialect {}, "SELECT 1, 2 FROM t").unwrap();
        let ast::Statement::Query(q) = &stmts[0] else { panic!("not a query") };
        let ast::SetExpr::Select(sel) = &*q.body else { panic!("not a select") };
        SourceText::new(sql).select_item_texts(sel).unwrap()
    }

    #[test]
    fn names_follow_mariadb() {
        assert_eq!(
            names("SELECT ID, t.c, count(*),  1 +  1 , 'abc', NULL, -1, (1), (id), (1+1), COUNT( DISTINCT  a ) FROM t"),
            vec!["ID", "c", "count(*)", "1 +  1", "abc", "NULL", "-1", "1", "id", "(1+1)", "COUNT( DISTINCT  a )"]
        );
        assert_eq!(
            names("SELECT DISTINCT SUM(k), x AS y, @@version_comment\nFROM t WHERE a = (SELECT 1, 2)"),
            vec!["SUM(k)", "y", "@@version_comment"]
        );
        assert_eq!(names("SELECT CAST(id AS CHAR), 1.5e3, 'it''s'"), vec!["CAST(id AS CHAR)", "1.5e3", "it's"]);
        assert_eq!(
            st_texts("SELECT next value for sq, PREVIOUS VALUE FOR `d`.`s` FROM t FOR UPDATE"),
            vec!["next value for sq", "PREVIOUS VALUE FOR `d`.`s`"]
        );
        assert_eq!(
            names("SELECT (SELECT a FROM t LIMIT 1), NOW() + INTERVAL 1 DAY"),
            vec!["(SELECT a FROM t LIMIT 1)", "NOW() + INTERVAL 1 DAY"]
        );
    }

    #[test]
    fn placeholders_are_numbered_in_text_order() {
        let sql = "SELECT ?, '?' FROM t\nWHERE a = ? AND b IN (?, ?)";
        let st = SourceText::new(sql);
        assert_eq!(st.placeholder_count(), 4);
        assert_eq!(st.placeholder_at(Location::new(1, 8)), Some(0));
        assert_eq!(st.placeholder_at(Location::new(2, 11)), Some(1));
        assert_eq!(st.placeholder_at(Location::new(2, 23)), Some(2));
        assert_eq!(st.placeholder_at(Location::new(2, 26)), Some(3));
        assert_eq!(st.placeholder_at(Location::new(1, 12)), None);
    }

    #[test]
    fn long_names_are_cut_at_256_characters() {
        let long = "x".repeat(300);
        let e = ast::Expr::Value(ast::Value::SingleQuotedString(long).into());
        assert_eq!(item_name(&e, None).len(), MAX_COLUMN_NAME_CHARS);
    }
}
