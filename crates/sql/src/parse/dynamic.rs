//! Statements that run other statements: SQL-level PREPARE ... FROM, EXECUTE ... USING,
//! EXECUTE IMMEDIATE, and SET STATEMENT var = value, ... FOR statement (MariaDB 10.1+).
//!
//! Expressions here (PREPARE's source, USING's arguments) are kept as text: the session
//! evaluates them as a select list, so they can be any expression MariaDB takes there.

use sqlparser::ast;

use super::lexer::{Syntax, Tok};
use super::{parse_statement_in, syntax_at, Cursor, Stmt, SyntaxError};

/// Where PREPARE / EXECUTE IMMEDIATE take the statement text from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrepareSource {
    Text(String),
    UserVar(String),
    /// Any other expression (`CONCAT('SELECT ', 1)`), as written.
    Expr(String),
}

/// `SET STATEMENT assignments FOR body`: the assignments as a SET, and the statement they
/// apply to, parsed now (under the sql_mode the whole text is read with, as MariaDB does).
#[derive(Clone, Debug)]
pub struct SetStatement {
    /// `SET assignments`, parsed.
    pub set: Box<ast::Statement>,
    pub set_text: String,
    pub body: Box<Stmt>,
    /// Byte offset of the body in the statement's text.
    pub body_offset: usize,
}

/// The end of the text a cursor reads, without a trailing `;`.
fn text_end(c: &Cursor) -> usize {
    c.text.trim_end().trim_end_matches(';').trim_end().len()
}

/// The offset of the token at the cursor (the text's end after the last one).
fn here(c: &Cursor) -> usize {
    c.toks.get(c.pos).map_or(c.text.len(), |t| t.1)
}

/// PREPARE name FROM {'text' | @var | expr}.
pub(super) fn parse_prepare(c: &mut Cursor) -> Result<Stmt, SyntaxError> {
    let name = c.ident()?;
    c.expect_word("FROM")?;
    let source = prepare_source(c, text_end(c))?;
    c.end()?;
    Ok(Stmt::Prepare { name, source })
}

/// The source of PREPARE or EXECUTE IMMEDIATE, ending at `end` (exclusive).
fn prepare_source(c: &mut Cursor, end: usize) -> Result<PrepareSource, SyntaxError> {
    let start = here(c);
    if start >= end {
        return Err(c.error());
    }
    let one_token = c.toks.get(c.pos + 1).is_none_or(|t| t.1 >= end);
    let source = match c.peek() {
        Some(Tok::Str(s)) if one_token => PrepareSource::Text(s.clone()),
        Some(Tok::UserVar(v)) if one_token => PrepareSource::UserVar(v.clone()),
        _ => PrepareSource::Expr(c.text[start..end].trim_end().to_string()),
    };
    while c.toks.get(c.pos).is_some_and(|t| t.1 < end) {
        c.pos += 1;
    }
    Ok(source)
}

/// The text of a USING list from the cursor to the end; an error if it has a subquery
/// (MariaDB's 1970 is raised by the session: here it is only a flag).
fn using_list(c: &mut Cursor) -> Result<Option<String>, SyntaxError> {
    if !c.eat_word("USING") {
        return Ok(None);
    }
    let start = here(c);
    let end = text_end(c);
    if start >= end {
        return Err(c.error());
    }
    c.pos = c.toks.len();
    Ok(Some(c.text[start..end].to_string()))
}

/// EXECUTE name [USING expr, ...] and EXECUTE IMMEDIATE source [USING expr, ...].
pub(super) fn parse_execute(c: &mut Cursor) -> Result<Stmt, SyntaxError> {
    if c.eat_word("IMMEDIATE") {
        // The source ends at the last top-level USING.
        let mut depth = 0i32;
        let mut using_at = None;
        for (i, (t, _)) in c.toks.iter().enumerate().skip(c.pos) {
            match t {
                Tok::Sym('(') => depth += 1,
                Tok::Sym(')') => depth -= 1,
                t if depth == 0 && t.is_word("USING") => using_at = Some(i),
                _ => {}
            }
        }
        let end = using_at.map_or(text_end(c), |i| c.toks[i].1);
        let source = prepare_source(c, end)?;
        let using = using_list(c)?;
        c.end()?;
        return Ok(Stmt::ExecuteImmediate { source, using });
    }
    let name = c.ident()?;
    let using = using_list(c)?;
    c.end()?;
    Ok(Stmt::Execute { name, using })
}

/// Whether a USING list has a subquery (MariaDB's 1970).
pub fn using_has_subquery(list: &str) -> bool {
    super::lexer::tokenize(list).is_some_and(|toks| toks.iter().any(|(t, _)| t.is_word("SELECT")))
}

/// SET STATEMENT var = value [, ...] FOR statement; the cursor is after SET.
pub(super) fn parse_set_statement(c: &mut Cursor, syntax: Syntax) -> Result<Stmt, SyntaxError> {
    c.expect_word("STATEMENT")?;
    let assignments_at = here(c);
    // Each assignment names a system variable; user variables are a syntax error there.
    if matches!(c.peek(), Some(Tok::UserVar(_)) | None) {
        return Err(c.error());
    }
    let mut depth = 0i32;
    let mut for_at = None;
    for (i, (t, _)) in c.toks.iter().enumerate().skip(c.pos) {
        match t {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            Tok::Sym(',') if depth == 0 && matches!(c.toks.get(i + 1), Some((Tok::UserVar(_), _))) => {
                c.pos = i + 1;
                return Err(c.error());
            }
            t if depth == 0 && t.is_word("FOR") => {
                for_at = Some(i);
                break;
            }
            _ => {}
        }
    }
    let Some(for_at) = for_at else {
        c.pos = c.toks.len();
        return Err(c.error());
    };
    let (for_off, body_offset) = (c.toks[for_at].1, c.toks.get(for_at + 1).map_or(c.text.len(), |t| t.1));
    if body_offset >= c.text.len() {
        return Err(syntax_at(c.text, c.text.len()));
    }
    let set_text = format!("SET {}", &c.text[assignments_at..for_off]);
    let set = match parse_statement_in(&set_text, syntax) {
        Ok(Stmt::Ast(s)) if matches!(*s, ast::Statement::Set(_)) => s,
        _ => return Err(syntax_at(c.text, assignments_at)),
    };
    let body = parse_statement_in(&c.text[body_offset..], syntax)?;
    c.pos = c.toks.len();
    Ok(Stmt::SetStatement(Box::new(SetStatement { set, set_text, body: Box::new(body), body_offset })))
}
