//! Parsing: MySQL statements sqlparser handles go to sqlparser (MySqlDialect with MariaDB's `!`: `dialect`); the few it
//! cannot parse (transaction control with MySQL options, SET TRANSACTION scopes, PREPARE ...
//! FROM, DO, table maintenance) are recognized here with the small lexer. Errors become
//! MariaDB's 1064 message quoting the text from the offending token.

pub mod alter;
pub mod autoparam;
pub mod cast_charset;
pub mod create_select;
pub mod data_file;
pub mod dialect;
pub mod dml_options;
mod dynamic;
pub mod lexer;
mod mode_tokens;
pub(crate) mod stored_expr;
pub mod type_modifiers;

use dialect::MariaDbDialect;
use selkie_storage::IsolationLevel;
use sqlparser::ast;
use sqlparser::parser::{Parser, ParserError};

use crate::error;
use crate::error::SqlError;
pub use dynamic::{using_has_subquery, PrepareSource};
pub use lexer::Syntax;
use lexer::Tok;

impl From<crate::variables::SqlMode> for Syntax {
    fn from(mode: crate::variables::SqlMode) -> Self {
        Syntax { no_backslash_escapes: mode.no_backslash_escapes, ansi_quotes: mode.ansi_quotes }
    }
}

/// sqlparser's recursion limit: deeply nested expressions fail cleanly instead of overflowing.
const PARSER_RECURSION_LIMIT: usize = 200;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrxScope {
    /// SET TRANSACTION: the next transaction only.
    Next,
    Session,
    Global,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdminOp {
    Analyze,
    Optimize,
    Check,
    Repair,
}

impl AdminOp {
    pub fn name(self) -> &'static str {
        match self {
            AdminOp::Analyze => "analyze",
            AdminOp::Optimize => "optimize",
            AdminOp::Check => "check",
            AdminOp::Repair => "repair",
        }
    }
}

/// A parsed statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    Ast(Box<ast::Statement>),
    /// UPDATE IGNORE / DELETE IGNORE: the statement without its IGNORE, which sqlparser lacks
    /// (`dml_options`).
    DmlIgnore(Box<ast::Statement>),
    /// SELECT ... INTO @vars / OUTFILE / DUMPFILE (`data_file`).
    SelectInto(Box<data_file::SelectInto>),
    /// LOAD DATA [LOCAL] INFILE (`data_file`).
    LoadData(Box<data_file::LoadData>),
    Begin {
        read_only: Option<bool>,
        consistent_snapshot: bool,
    },
    Commit {
        chain: bool,
        release: bool,
    },
    Rollback {
        chain: bool,
        release: bool,
    },
    Savepoint(String),
    RollbackToSavepoint(String),
    ReleaseSavepoint(String),
    SetTransaction {
        scope: TrxScope,
        isolation: Option<IsolationLevel>,
        read_only: Option<bool>,
    },
    /// SET CHARACTER SET x / SET CHARSET x: every connection speaks utf8mb4; accepted.
    SetCharset,
    /// DO expr, ...: the equivalent SELECT text (its rows are discarded).
    Do(String),
    Prepare {
        name: String,
        source: PrepareSource,
    },
    /// EXECUTE name [USING list]: the list's text, evaluated as a select list.
    Execute {
        name: String,
        using: Option<String>,
    },
    ExecuteImmediate {
        source: PrepareSource,
        using: Option<String>,
    },
    SetStatement(Box<SetStatement>),
    /// `SET NAMES x, var = value, ...` (Rails' connection setup): sqlparser reads SET NAMES
    /// only alone, so the assignments are kept as SETs of their own, run in order, with
    /// their texts.
    SetList(Vec<(Box<ast::Statement>, String)>),
    Deallocate {
        name: String,
    },
    AdminTable {
        op: AdminOp,
        tables: Vec<(Option<String>, String)>,
    },
    /// LOCK TABLES t [[AS] alias] {READ [LOCAL] | [LOW_PRIORITY] WRITE [CONCURRENT]}, ...:
    /// (database, table, whether WRITE) per table (crate::table_locks).
    LockTables(Vec<(Option<String>, String, bool)>),
    /// UNLOCK TABLES.
    UnlockTables,
    /// CREATE {DATABASE|SCHEMA} (sqlparser lacks the options of CREATE SCHEMA).
    CreateDatabase {
        name: String,
        if_not_exists: bool,
        charset: Option<String>,
        collation: Option<String>,
    },
    /// ALTER TABLE t {DISABLE|ENABLE} KEYS (mysqldump wraps every table's rows in them):
    /// index maintenance cannot be deferred in Selkie, as in InnoDB, so it only checks the table.
    TableKeys {
        db: Option<String>,
        table: String,
        enable: bool,
    },
    /// CREATE [OR REPLACE] SEQUENCE (MariaDB's options, in any order; sqlparser knows only
    /// PostgreSQL's fixed order, and mariadb-dump writes START before INCREMENT).
    CreateSequence {
        or_replace: bool,
        if_not_exists: bool,
        db: Option<String>,
        name: String,
        options: SequenceOptions,
    },
    /// ALTER SEQUENCE [IF EXISTS] [db.]s options (at least one; RESTART only here).
    AlterSequence {
        if_exists: bool,
        db: Option<String>,
        name: String,
        options: SequenceOptions,
    },
    /// DROP SEQUENCE [IF EXISTS] [db.]s, ...
    DropSequence {
        if_exists: bool,
        names: Vec<(Option<String>, String)>,
    },
    /// ALTER TABLE, parsed by `alter` (sqlparser lacks much of MariaDB's grammar).
    AlterTable(Box<alter::AlterTable>),
    /// CHECKSUM TABLE t, ... [QUICK | EXTENDED].
    Checksum {
        tables: Vec<(Option<String>, String)>,
        /// QUICK: the live checksum only, which no InnoDB table keeps (NULL).
        quick: bool,
    },
    /// TRUNCATE [TABLE] t WAIT n / NOWAIT (sqlparser's TRUNCATE without the suffix): the most
    /// the truncate waits for transactions that changed the table (lock_wait_timeout otherwise).
    TruncateWait {
        stmt: Box<ast::Statement>,
        wait: std::time::Duration,
    },
}

/// CREATE SEQUENCE options as written (None: not given; the defaults depend on INCREMENT).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SequenceOptions {
    pub increment: Option<i64>,
    /// Some(None): NO MINVALUE / NOMINVALUE.
    pub min: Option<Option<i64>>,
    pub max: Option<Option<i64>>,
    pub start: Option<i64>,
    /// NOCACHE is Some(0).
    pub cache: Option<u64>,
    pub cycle: Option<bool>,
    /// ALTER SEQUENCE's RESTART: Some(None) restarts at START.
    pub restart: Option<Option<i64>>,
}

/// A statement sqlparser rejected: the 1064 error, and the text for SHOW fallbacks.
#[derive(Debug)]
pub struct SyntaxError(pub SqlError);

/// Parses one statement (no top-level `;` inside).
pub fn parse_statement(text: &str) -> Result<Stmt, SyntaxError> {
    parse_statement_in(text, Syntax::default())
}

/// Parses one statement read under the given sql_mode syntax.
pub fn parse_statement_in(text: &str, syntax: Syntax) -> Result<Stmt, SyntaxError> {
    let mut rewritten = None;
    let mut dml_ignore = false;
    if let Some(word) = first_word(text) {
        if let Some(r) = parse_special(&word, text, syntax) {
            return r;
        }
        if word == "SET" && first_words_are(text, &["SET", "NAMES"]) {
            if let Some(list) = set_names_list(text, syntax) {
                return list;
            }
        }
        if word == "SELECT" && contains_ignore_case(text, "INTO") {
            if let Some(r) = data_file::select_into(text) {
                return r.map(|s| Stmt::SelectInto(Box::new(s))).map_err(SyntaxError);
            }
        }
        if word == "LOAD" && first_words_are(text, &["LOAD", "DATA"]) {
            return data_file::load_data(text).map(|l| Stmt::LoadData(Box::new(l))).map_err(SyntaxError);
        }
        if word == "SET" && text.contains(":=") {
            rewritten = Some(set_assignments_with_equals(text));
        } else if word == "CREATE" || word == "ALTER" {
            rewritten = type_modifiers::rewrite(text);
            if word == "CREATE" {
                if let Some(r) = create_select::without_duplicates_word(rewritten.as_deref().unwrap_or(text)) {
                    rewritten = Some(r);
                }
            }
        } else if word == "UPDATE" || word == "DELETE" {
            if let Some(r) = dml_options::rewrite(text) {
                dml_ignore = r.ignore;
                rewritten = Some(r.text);
            }
        }
    }
    if rewritten.is_none() && contains_ignore_case(text, "VALUE FOR") {
        rewritten = sequence_value_syntax(text);
    }
    if (contains_ignore_case(text, "CHARACTER SET")
        || contains_ignore_case(text, "CHARSET")
        || contains_ignore_case(text, "ASCII")
        || contains_ignore_case(text, "BYTE"))
        && (contains_ignore_case(text, "CAST") || contains_ignore_case(text, "CONVERT"))
    {
        if let Some(r) = cast_charset::rewrite(rewritten.as_deref().unwrap_or(text)) {
            rewritten = Some(r);
        }
    }
    let text = rewritten.as_deref().unwrap_or(text);
    if first_words_are(text, &["TRUNCATE"]) {
        if let Some((cut, wait)) = truncate_wait(text) {
            let wait = wait?;
            return match parse_with_sqlparser(&text[..cut], syntax)? {
                Stmt::Ast(stmt) => Ok(Stmt::TruncateWait { stmt, wait }),
                other => Ok(other),
            };
        }
    }
    let parsed = match parse_with_sqlparser(text, syntax) {
        Err(e) if contains_ignore_case(text, "WAIT") => match lock_wait_as_of(text) {
            Some(alt) => parse_with_sqlparser(&alt, syntax).map_err(|_| e),
            None => Err(e),
        },
        Err(e) if first_words_are(text, &["DELETE"]) => match delete_returning_first(text) {
            Some(alt) => parse_with_sqlparser(&alt, syntax).map_err(|_| e),
            None => Err(e),
        },
        Err(e) if first_words_are(text, &["ALTER"]) => {
            // sqlparser knows `DROP INDEX` but not MySQL's synonym `DROP KEY`.
            match drop_key_as_drop_index(text) {
                Some(alt) => parse_with_sqlparser(&alt, syntax).map_err(|_| e),
                None => Err(e),
            }
        }
        r => r,
    };
    match parsed {
        Ok(Stmt::Ast(s)) if dml_ignore => Ok(Stmt::DmlIgnore(s)),
        r => r,
    }
}

/// `DELETE ... ORDER BY ... LIMIT ... RETURNING ...` (MariaDB's order) with the RETURNING
/// clause moved before ORDER BY, where sqlparser reads it. Only without placeholders: their
/// numbering follows their places in the client's text.
fn delete_returning_first(text: &str) -> Option<String> {
    let toks = lexer::tokenize(text)?;
    if toks.iter().any(|(t, _)| *t == Tok::Sym('?')) {
        return None;
    }
    let mut depth = 0i32;
    let (mut order_at, mut returning_at) = (None, None);
    for (tok, off) in &toks {
        match tok {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            t if depth == 0 && (t.is_word("ORDER") || t.is_word("LIMIT")) && order_at.is_none() => {
                order_at = Some(*off)
            }
            t if depth == 0 && t.is_word("RETURNING") => returning_at = Some(*off),
            _ => {}
        }
    }
    let (order_at, returning_at) = (order_at?, returning_at?);
    if returning_at < order_at {
        return None;
    }
    let end = text.trim_end().trim_end_matches(';').len();
    Some(format!("{} {} {}", &text[..order_at], &text[returning_at..end], &text[order_at..returning_at]))
}

/// A TRUNCATE's trailing `WAIT n` / `NOWAIT` (MariaDB 10.3+): where the rest of the statement
/// ends, and the wait (n seconds, fractions allowed); None without such a suffix.
fn truncate_wait(text: &str) -> Option<(usize, Result<std::time::Duration, SyntaxError>)> {
    let toks = lexer::tokenize(text)?;
    let mut end = toks.len();
    while end > 0 && toks[end - 1].0 == Tok::Sym(';') {
        end -= 1;
    }
    let toks = &toks[..end];
    // `TRUNCATE [TABLE] wait`: a table may be called WAIT or NOWAIT.
    let names_a_table = |i: usize| i < 2 || toks[i - 1].0.is_word("TRUNCATE") || toks[i - 1].0.is_word("TABLE");
    let suffix_at = toks.iter().rposition(|(t, _)| t.is_word("WAIT") || t.is_word("NOWAIT"))?;
    if names_a_table(suffix_at) {
        return None;
    }
    match toks {
        [.., (w, off)] if w.is_word("NOWAIT") => Some((*off, Ok(std::time::Duration::ZERO))),
        [.., (w, off)] if w.is_word("WAIT") => Some((*off, Err(syntax_at(text, text.len())))),
        [.., (w, off), (n, noff)] if w.is_word("WAIT") => {
            let secs = match n {
                Tok::Num(n) => n.parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0),
                _ => None,
            };
            Some((*off, secs.map(std::time::Duration::from_secs_f64).ok_or_else(|| syntax_at(text, *noff))))
        }
        [.., (w, off), (Tok::Sym('-'), moff), _] if w.is_word("WAIT") => Some((*off, Err(syntax_at(text, *moff)))),
        _ => None,
    }
}

/// The table name that carries a locking read's `WAIT n` through sqlparser, which knows NOWAIT
/// and SKIP LOCKED but not WAIT n: `FOR UPDATE WAIT 2.5` is parsed as `FOR UPDATE OF
/// selkie_lock_wait_ms_2500`, and the binder takes the wait back (`lock_wait_of`). MariaDB has
/// no `FOR UPDATE OF`, so the name cannot be a user's.
const LOCK_WAIT_NAME: &str = "selkie_lock_wait_ms_";

/// `... FOR UPDATE WAIT n` / `... FOR SHARE WAIT n` (the lexer makes LOCK IN SHARE MODE that)
/// with each `WAIT n` as `OF <LOCK_WAIT_NAME><milliseconds>`; None if there is none.
fn lock_wait_as_of(text: &str) -> Option<String> {
    let toks = lexer::tokenize(text)?;
    let mut out = String::with_capacity(text.len() + 24);
    let mut pos = 0;
    for i in 2..toks.len() {
        let lock_clause =
            toks[i - 2].0.is_word("FOR") && (toks[i - 1].0.is_word("UPDATE") || toks[i - 1].0.is_word("SHARE"));
        if !(lock_clause && toks[i].0.is_word("WAIT")) {
            continue;
        }
        let Some((Tok::Num(n), at)) = toks.get(i + 1) else { continue };
        let Some(secs) = n.parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0) else { continue };
        out.push_str(&text[pos..toks[i].1]);
        out.push_str(&format!("OF {LOCK_WAIT_NAME}{}", (secs * 1000.0).round() as u64));
        pos = at + n.len();
    }
    if pos == 0 {
        return None;
    }
    out.push_str(&text[pos..]);
    Some(out)
}

/// The wait `lock_wait_as_of` put in a locking clause's table name.
pub fn lock_wait_of(name: &ast::ObjectName) -> Option<std::time::Duration> {
    let name = name.to_string();
    let ms = name.strip_prefix(LOCK_WAIT_NAME)?.parse::<u64>().ok()?;
    Some(std::time::Duration::from_millis(ms))
}

/// `ALTER TABLE ... DROP KEY k` spelled with INDEX; None if there is no DROP KEY.
fn drop_key_as_drop_index(text: &str) -> Option<String> {
    let toks = lexer::tokenize(text)?;
    let mut out = String::with_capacity(text.len() + 8);
    let mut pos = 0;
    for w in toks.windows(2) {
        if let [(d, _), (k, koff)] = w {
            if d.is_word("DROP") && k.is_word("KEY") {
                out.push_str(&text[pos..*koff]);
                out.push_str("INDEX");
                pos = koff + 3;
            }
        }
    }
    if pos == 0 {
        return None;
    }
    out.push_str(&text[pos..]);
    Some(out)
}

fn parse_with_sqlparser(text: &str, syntax: Syntax) -> Result<Stmt, SyntaxError> {
    let dialect = MariaDbDialect::new();
    let mut parser = Parser::new(&dialect).with_recursion_limit(PARSER_RECURSION_LIMIT);
    parser = if syntax == Syntax::default() {
        parser.try_with_sql(text).map_err(|e| SyntaxError(syntax_error(text, &e)))?
    } else {
        let tokens = mode_tokens::tokenize(&dialect, text, syntax)
            .map_err(|e| SyntaxError(syntax_error(text, &ParserError::from(e))))?;
        parser.with_tokens_with_locations(tokens)
    };
    let stmt = parser.parse_statement().map_err(|e| SyntaxError(syntax_error(text, &e)))?;
    // Anything after the statement (other than a stray `;`) is a syntax error.
    loop {
        let t = parser.next_token();
        match t.token {
            sqlparser::tokenizer::Token::EOF => break,
            sqlparser::tokenizer::Token::SemiColon => continue,
            _ => {
                let e = ParserError::ParserError(format!(
                    "Expected: end of statement, found: {} at {}",
                    t.token, t.span.start
                ));
                return Err(SyntaxError(syntax_error(text, &e)));
            }
        }
    }
    Ok(Stmt::Ast(Box::new(stmt)))
}

/// `SET @a := 1, @@x := 2`: sqlparser accepts only `=` after a SET target. The `:=` that
/// directly follows a target becomes `= ` (same length, so error offsets stay right).
fn set_assignments_with_equals(text: &str) -> String {
    let mut out = text.as_bytes().to_vec();
    if let Some(toks) = lexer::tokenize(text) {
        let mut depth = 0i32;
        for (i, (tok, _)) in toks.iter().enumerate() {
            match tok {
                Tok::Sym('(') => depth += 1,
                Tok::Sym(')') => depth -= 1,
                _ => {}
            }
            let (Some((target, _)), Some((Tok::Sym(':'), colon)), Some((Tok::Sym('='), eq))) =
                (toks.get(i), toks.get(i + 1), toks.get(i + 2))
            else {
                continue;
            };
            // A SET target directly follows SET, a scope word, a comma, or the first '@' of '@@'.
            let starts_target = i > 0
                && match &toks[i - 1].0 {
                    Tok::Word(w) => ["SET", "GLOBAL", "SESSION", "LOCAL"].iter().any(|k| w.eq_ignore_ascii_case(k)),
                    Tok::Sym(',') => true,
                    Tok::UserVar(v) => v.is_empty(),
                    _ => false,
                };
            if depth == 0
                && starts_target
                && *eq == colon + 1
                && matches!(target, Tok::UserVar(_) | Tok::Word(_) | Tok::Quoted(_))
            {
                out[*colon] = b'=';
                out[*eq] = b' ';
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// True if the statement starts with SHOW, DESC, DESCRIBE or EXPLAIN: the statements the
/// SHOW module parses itself (it gives back those it does not implement, e.g. EXPLAIN SELECT).
pub fn starts_like_show(text: &str) -> bool {
    let b = text.as_bytes();
    let start = skip_space_and_comments(b);
    let len = b[start..].iter().take_while(|c| c.is_ascii_alphabetic()).count();
    let word = &text[start..start + len];
    ["SHOW", "DESC", "DESCRIBE", "EXPLAIN"].iter().any(|w| w.eq_ignore_ascii_case(word))
}

/// Offset of the first byte that is not whitespace or part of a comment.
pub fn skip_space_and_comments(b: &[u8]) -> usize {
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_whitespace() => i += 1,
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i = (i + 2).min(b.len());
            }
            _ => break,
        }
    }
    i
}

/// The first word of the statement, upper-cased (comments and whitespace skipped).
fn first_word(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut i = skip_space_and_comments(b);
    let start = i;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    (i > start).then(|| text[start..i].to_ascii_uppercase())
}

/// Converts a sqlparser error to MariaDB's 1064.
pub fn syntax_error(text: &str, e: &ParserError) -> SqlError {
    let msg = e.to_string();
    if msg.contains("found: EOF") {
        // The statement ended too early: MariaDB quotes nothing, on the last line.
        let last_line = text.trim_end().matches('\n').count() + 1;
        return error::syntax("", last_line);
    }
    if let Some((line, col)) = error_location(&msg) {
        if let Some(off) = offset_at(text, line, col) {
            return error::syntax(text[off..].trim_end(), line);
        }
        return error::syntax("", line);
    }
    error::syntax(text.trim(), 1)
}

fn error_location(msg: &str) -> Option<(usize, usize)> {
    let li = msg.rfind("Line: ")?;
    let rest = &msg[li + 6..];
    let line: usize = rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()?;
    let ci = rest.find("Column: ")?;
    let col: usize = rest[ci + 8..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()?;
    Some((line, col))
}

/// Byte offset of a 1-based line/character column.
fn offset_at(text: &str, line: usize, col: usize) -> Option<usize> {
    let mut start = 0;
    for _ in 1..line {
        start += text[start..].find('\n')? + 1;
    }
    let rest = &text[start..];
    match rest.char_indices().nth(col.checked_sub(1)?) {
        Some((i, _)) => Some(start + i),
        None => Some(text.len()),
    }
}

/// A 1064 for the token at byte `off` of `text` (for the hand-written recognizers).
fn syntax_at(text: &str, off: usize) -> SyntaxError {
    let line = text[..off.min(text.len())].matches('\n').count() + 1;
    SyntaxError(error::syntax(text[off.min(text.len())..].trim_end(), line))
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

/// `SET NAMES x [COLLATE y], assignments`: None without assignments after the NAMES clause.
fn set_names_list(text: &str, syntax: Syntax) -> Option<Result<Stmt, SyntaxError>> {
    let toks = lexer::tokenize_in(text, syntax)?;
    let comma = toks.iter().find(|(t, _)| *t == Tok::Sym(','))?.1;
    let pieces = [text[..comma].to_string(), format!("SET {}", &text[comma + 1..])];
    let mut sets = Vec::with_capacity(2);
    for piece in pieces {
        match parse_statement_in(&piece, syntax) {
            Ok(Stmt::Ast(s)) if matches!(*s, ast::Statement::Set(_)) => sets.push((s, piece)),
            Ok(_) => return Some(Err(syntax_at(text, comma))),
            Err(e) => return Some(Err(e)),
        }
    }
    Some(Ok(Stmt::SetList(sets)))
}

fn parse_set_statement(c: &Cursor, syntax: Syntax) -> Result<Stmt, SyntaxError> {
    let (assignments, body_offset) = dynamic::set_statement(c.tokens()).map_err(|off| syntax_at(c.text, off))?;
    let set_text = format!("SET {}", &c.text[assignments.clone()]);
    let set = match parse_statement_in(&set_text, syntax) {
        Ok(Stmt::Ast(s)) if matches!(*s, ast::Statement::Set(_)) => s,
        _ => return Err(syntax_at(c.text, assignments.start)),
    };
    let body = parse_statement_in(&c.text[body_offset..], syntax)?;
    Ok(Stmt::SetStatement(Box::new(SetStatement { set, set_text, body: Box::new(body), body_offset })))
}

struct Cursor<'t> {
    text: &'t str,
    toks: Vec<(Tok, usize)>,
    pos: usize,
}

impl Cursor<'_> {
    fn tokens(&self) -> dynamic::Tokens<'_> {
        dynamic::Tokens { text: self.text, toks: &self.toks, pos: self.pos }
    }
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }
    fn peek_word(&self, kw: &str) -> bool {
        self.peek().is_some_and(|t| t.is_word(kw))
    }
    fn eat_word(&mut self, kw: &str) -> bool {
        if self.peek_word(kw) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn eat_sym(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Sym(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|t| t.0.clone());
        self.pos += 1;
        t
    }
    fn error(&self) -> SyntaxError {
        let off = self.toks.get(self.pos).map_or(self.text.len(), |t| t.1);
        syntax_at(self.text, off)
    }
    fn expect_word(&mut self, kw: &str) -> Result<(), SyntaxError> {
        if self.eat_word(kw) {
            Ok(())
        } else {
            Err(self.error())
        }
    }
    fn ident(&mut self) -> Result<String, SyntaxError> {
        match self.peek().and_then(|t| t.ident().map(str::to_string)) {
            Some(s) => {
                self.pos += 1;
                Ok(s)
            }
            None => Err(self.error()),
        }
    }
    fn end(&mut self) -> Result<(), SyntaxError> {
        while self.eat_sym(';') {}
        if self.pos < self.toks.len() {
            Err(self.error())
        } else {
            Ok(())
        }
    }
}

fn parse_special(word: &str, text: &str, syntax: Syntax) -> Option<Result<Stmt, SyntaxError>> {
    const SPECIAL: &[&str] = &[
        "BEGIN",
        "START",
        "COMMIT",
        "ROLLBACK",
        "SAVEPOINT",
        "RELEASE",
        "SET",
        "DO",
        "PREPARE",
        "EXECUTE",
        "DEALLOCATE",
        "DROP",
        "OPTIMIZE",
        "CHECK",
        "REPAIR",
        "ANALYZE",
        "CHECKSUM",
        "LOCK",
        "UNLOCK",
        "XA",
        "CREATE",
        "ALTER",
    ];
    let create_sequence = first_words_are(text, &["CREATE", "SEQUENCE"])
        || first_words_are(text, &["CREATE", "OR", "REPLACE", "SEQUENCE"]);
    if word == "CREATE"
        && !(first_words_are(text, &["CREATE", "DATABASE"])
            || first_words_are(text, &["CREATE", "SCHEMA"])
            || create_sequence)
    {
        return None;
    }
    if !SPECIAL.contains(&word) {
        return None;
    }
    if word == "ALTER" && first_words_are(text, &["ALTER", "SEQUENCE"]) {
        let Some(toks) = lexer::tokenize_in(text, syntax) else { return Some(Err(syntax_at(text, text.len()))) };
        return Some(parse_alter_sequence(&mut Cursor { text, toks, pos: 1 }));
    }
    if word == "ALTER" {
        if let Some(keys) = parse_table_keys(text) {
            return Some(Ok(keys));
        }
        let table = first_words_are(text, &["ALTER", "TABLE"])
            || first_words_are(text, &["ALTER", "ONLINE"])
            || first_words_are(text, &["ALTER", "IGNORE"]);
        return table.then(|| {
            alter::parse(text, PARSER_RECURSION_LIMIT)
                .map(|a| Stmt::AlterTable(Box::new(a)))
                .map_err(|e| SyntaxError(syntax_error(text, &e)))
        });
    }
    let Some(toks) = lexer::tokenize_in(text, syntax) else {
        return if matches!(word, "SET" | "DROP" | "EXECUTE") { None } else { Some(Err(syntax_at(text, text.len()))) };
    };
    let mut c = Cursor { text, toks, pos: 1 };
    let r = match word {
        "BEGIN" => {
            c.eat_word("WORK");
            c.end().map(|_| Stmt::Begin { read_only: None, consistent_snapshot: false })
        }
        "START" => parse_start_transaction(&mut c),
        "COMMIT" | "ROLLBACK" => {
            c.eat_word("WORK");
            if word == "ROLLBACK" && c.eat_word("TO") {
                c.eat_word("SAVEPOINT");
                return Some(c.ident().and_then(|n| c.end().map(|_| Stmt::RollbackToSavepoint(n))));
            }
            let mut chain = false;
            let mut release = false;
            if c.eat_word("AND") {
                let no = c.eat_word("NO");
                if let Err(e) = c.expect_word("CHAIN") {
                    return Some(Err(e));
                }
                chain = !no;
            }
            if c.eat_word("NO") {
                if let Err(e) = c.expect_word("RELEASE") {
                    return Some(Err(e));
                }
            } else if c.eat_word("RELEASE") {
                release = true;
            }
            c.end().map(|_| {
                if word == "COMMIT" {
                    Stmt::Commit { chain, release }
                } else {
                    Stmt::Rollback { chain, release }
                }
            })
        }
        "SAVEPOINT" => c.ident().and_then(|n| c.end().map(|_| Stmt::Savepoint(n))),
        "RELEASE" => {
            if let Err(e) = c.expect_word("SAVEPOINT") {
                return Some(Err(e));
            }
            c.ident().and_then(|n| c.end().map(|_| Stmt::ReleaseSavepoint(n)))
        }
        "SET" if c.peek_word("STATEMENT") => parse_set_statement(&c, syntax),
        "SET" => return parse_set_special(&mut c),
        "DO" => {
            // The DO list evaluated as a select list; its rows are discarded.
            let body_start = c.toks.get(1).map_or(text.len(), |t| t.1);
            if body_start >= text.len() {
                return Some(Err(syntax_at(text, text.len())));
            }
            Ok(Stmt::Do(format!("SELECT {}", &text[body_start..])))
        }
        "PREPARE" => dynamic::prepare(c.tokens())
            .map(|(name, source)| Stmt::Prepare { name, source })
            .map_err(|off| syntax_at(text, off)),
        "EXECUTE" => match dynamic::execute(c.tokens()) {
            Ok(dynamic::Execute::Named { name, using }) => Ok(Stmt::Execute { name, using }),
            Ok(dynamic::Execute::Immediate { source, using }) => Ok(Stmt::ExecuteImmediate { source, using }),
            Err(off) => Err(syntax_at(text, off)),
        },
        "DEALLOCATE" => {
            if let Err(e) = c.expect_word("PREPARE") {
                return Some(Err(e));
            }
            c.ident().and_then(|name| c.end().map(|_| Stmt::Deallocate { name }))
        }
        "DROP" => {
            if c.peek_word("SEQUENCE") {
                return Some(parse_drop_sequence(&mut c));
            }
            if !c.eat_word("PREPARE") {
                return None;
            }
            c.ident().and_then(|name| c.end().map(|_| Stmt::Deallocate { name }))
        }
        "OPTIMIZE" | "CHECK" | "REPAIR" | "ANALYZE" => {
            let op = match word {
                "OPTIMIZE" => AdminOp::Optimize,
                "CHECK" => AdminOp::Check,
                "REPAIR" => AdminOp::Repair,
                _ => AdminOp::Analyze,
            };
            parse_admin(&mut c, op)
        }
        "CHECKSUM" => parse_checksum(&mut c),
        "LOCK" => {
            if !c.eat_word("TABLES") && !c.eat_word("TABLE") {
                return Some(Err(c.error()));
            }
            parse_lock_tables(&mut c)
        }
        "UNLOCK" => {
            if !c.eat_word("TABLES") && !c.eat_word("TABLE") {
                return Some(Err(c.error()));
            }
            c.end().map(|_| Stmt::UnlockTables)
        }
        "XA" => Err(SyntaxError(error::not_supported("XA transactions"))),
        "CREATE" if create_sequence => parse_create_sequence(&mut c),
        "CREATE" => parse_create_database(&mut c),
        _ => return None,
    };
    Some(r)
}

/// Whether `needle` (ASCII) occurs in `text`, ignoring ASCII case.
fn contains_ignore_case(text: &str, needle: &str) -> bool {
    text.as_bytes().windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// True if the statement starts with `words` (case-insensitive, any whitespace between).
fn first_words_are(text: &str, words: &[&str]) -> bool {
    let mut it = text.split_ascii_whitespace();
    words.iter().all(|w| it.next().is_some_and(|x| x.eq_ignore_ascii_case(w)))
}

fn parse_create_database(c: &mut Cursor) -> Result<Stmt, SyntaxError> {
    if !c.eat_word("DATABASE") {
        c.expect_word("SCHEMA")?;
    }
    let mut if_not_exists = false;
    if c.eat_word("IF") {
        c.expect_word("NOT")?;
        c.expect_word("EXISTS")?;
        if_not_exists = true;
    }
    let name = c.ident()?;
    let mut charset = None;
    let mut collation = None;
    loop {
        c.eat_word("DEFAULT");
        if c.eat_word("CHARACTER") {
            c.expect_word("SET")?;
        } else if !c.eat_word("CHARSET") {
            if c.eat_word("COLLATE") {
                c.eat_sym('=');
                collation = Some(c.ident().or_else(|_| match c.next() {
                    Some(Tok::Str(s)) => Ok(s),
                    _ => Err(c.error()),
                })?);
                continue;
            }
            if c.eat_word("COMMENT") {
                c.eat_sym('=');
                if !matches!(c.next(), Some(Tok::Str(_))) {
                    return Err(c.error());
                }
                continue;
            }
            break;
        }
        c.eat_sym('=');
        charset = Some(c.ident().or_else(|_| match c.next() {
            Some(Tok::Str(s)) => Ok(s),
            _ => Err(c.error()),
        })?);
    }
    c.end()?;
    Ok(Stmt::CreateDatabase { name, if_not_exists, charset, collation })
}

// ---- CREATE, ALTER and DROP SEQUENCE: MariaDB's options in any order (sqlparser knows only
// PostgreSQL's fixed order, and mariadb-dump writes START before INCREMENT). ----

/// `[db.]name` of a table-like object.
fn qualified_name(c: &mut Cursor) -> Result<(Option<String>, String), SyntaxError> {
    let first = c.ident()?;
    if c.eat_sym('.') {
        Ok((Some(first), c.ident()?))
    } else {
        Ok((None, first))
    }
}

/// A possibly negative integer literal (sequence options).
fn signed_integer(c: &mut Cursor) -> Result<i64, SyntaxError> {
    let negative = c.eat_sym('-');
    if !negative {
        c.eat_sym('+');
    }
    let err = c.error();
    match c.next() {
        Some(Tok::Num(n)) => {
            let v: i128 = n.parse().map_err(|_| err)?;
            let v = if negative { -v } else { v };
            i64::try_from(v).map_err(|_| c.error())
        }
        _ => Err(err),
    }
}

/// Sets an option once: MariaDB's 1225 names the option given twice (NO MINVALUE after
/// MINVALUE too).
fn set_once<T>(slot: &mut Option<T>, value: T, option: &str) -> Result<(), SyntaxError> {
    if slot.is_some() {
        return Err(SyntaxError(error::option_used_twice(option)));
    }
    *slot = Some(value);
    Ok(())
}

/// The sequence options up to the first word that is none of them; RESTART only for ALTER,
/// table options (ENGINE, COMMENT) only for CREATE. Returns how many options were read.
fn sequence_options(c: &mut Cursor, alter: bool) -> Result<(SequenceOptions, usize), SyntaxError> {
    let mut o = SequenceOptions::default();
    let mut count = 0;
    loop {
        if c.eat_word("INCREMENT") {
            if !c.eat_word("BY") {
                c.eat_sym('=');
            }
            set_once(&mut o.increment, signed_integer(c)?, "INCREMENT")?;
        } else if c.eat_word("MINVALUE") {
            c.eat_sym('=');
            set_once(&mut o.min, Some(signed_integer(c)?), "MINVALUE")?;
        } else if c.eat_word("NOMINVALUE") {
            set_once(&mut o.min, None, "MINVALUE")?;
        } else if c.eat_word("MAXVALUE") {
            c.eat_sym('=');
            set_once(&mut o.max, Some(signed_integer(c)?), "MAXVALUE")?;
        } else if c.eat_word("NOMAXVALUE") {
            set_once(&mut o.max, None, "MAXVALUE")?;
        } else if c.eat_word("NO") {
            // MariaDB has NO MINVALUE and NO MAXVALUE, not NO CACHE or NO CYCLE.
            if c.eat_word("MINVALUE") {
                set_once(&mut o.min, None, "MINVALUE")?;
            } else if c.eat_word("MAXVALUE") {
                set_once(&mut o.max, None, "MAXVALUE")?;
            } else {
                return Err(c.error());
            }
        } else if c.eat_word("START") {
            if !c.eat_word("WITH") {
                c.eat_sym('=');
            }
            set_once(&mut o.start, signed_integer(c)?, "START")?;
        } else if c.eat_word("CACHE") {
            c.eat_sym('=');
            let v = signed_integer(c)?;
            // A negative CACHE is out of range (4085) rather than a syntax error.
            set_once(&mut o.cache, u64::try_from(v).unwrap_or(u64::MAX), "CACHE")?;
        } else if c.eat_word("NOCACHE") {
            set_once(&mut o.cache, 0, "CACHE")?;
        } else if c.eat_word("CYCLE") {
            set_once(&mut o.cycle, true, "CYCLE")?;
        } else if c.eat_word("NOCYCLE") {
            set_once(&mut o.cycle, false, "CYCLE")?;
        } else if alter && c.eat_word("RESTART") {
            let value = if c.eat_word("WITH")
                || c.eat_sym('=')
                || matches!(c.peek(), Some(Tok::Num(_) | Tok::Sym('-' | '+')))
            {
                Some(signed_integer(c)?)
            } else {
                None
            };
            set_once(&mut o.restart, value, "RESTART")?;
        } else if !alter && c.eat_word("ENGINE") {
            // Table options mariadb-dump writes after the sequence options.
            c.eat_sym('=');
            c.ident()?;
        } else if !alter && c.eat_word("COMMENT") {
            c.eat_sym('=');
            if !matches!(c.next(), Some(Tok::Str(_))) {
                return Err(c.error());
            }
        } else {
            break;
        }
        count += 1;
    }
    Ok((o, count))
}

/// CREATE [OR REPLACE] SEQUENCE [IF NOT EXISTS] [db.]s options.
fn parse_create_sequence(c: &mut Cursor) -> Result<Stmt, SyntaxError> {
    let or_replace = c.eat_word("OR");
    if or_replace {
        c.expect_word("REPLACE")?;
    }
    c.expect_word("SEQUENCE")?;
    let mut if_not_exists = false;
    if c.eat_word("IF") {
        c.expect_word("NOT")?;
        c.expect_word("EXISTS")?;
        if_not_exists = true;
    }
    let (db, name) = qualified_name(c)?;
    let (options, _) = sequence_options(c, false)?;
    c.end()?;
    Ok(Stmt::CreateSequence { or_replace, if_not_exists, db, name, options })
}

/// ALTER SEQUENCE [IF EXISTS] [db.]s options: at least one option (1064 otherwise, as MariaDB).
fn parse_alter_sequence(c: &mut Cursor) -> Result<Stmt, SyntaxError> {
    c.expect_word("SEQUENCE")?;
    let mut if_exists = false;
    if c.eat_word("IF") {
        c.expect_word("EXISTS")?;
        if_exists = true;
    }
    let (db, name) = qualified_name(c)?;
    let (options, count) = sequence_options(c, true)?;
    if count == 0 {
        return Err(c.error());
    }
    c.end()?;
    Ok(Stmt::AlterSequence { if_exists, db, name, options })
}

/// DROP SEQUENCE [IF EXISTS] [db.]s, ...
fn parse_drop_sequence(c: &mut Cursor) -> Result<Stmt, SyntaxError> {
    c.expect_word("SEQUENCE")?;
    let mut if_exists = false;
    if c.eat_word("IF") {
        c.expect_word("EXISTS")?;
        if_exists = true;
    }
    let mut names = vec![qualified_name(c)?];
    while c.eat_sym(',') {
        names.push(qualified_name(c)?);
    }
    c.end()?;
    Ok(Stmt::DropSequence { if_exists, names })
}

/// `NEXT VALUE FOR s` / `PREVIOUS VALUE FOR s` as the function calls `NEXTVAL(s)` /
/// `LASTVAL(s)` (sqlparser knows neither form); None when the text has neither. The text
/// after the first rewrite moves by a few bytes, which only shifts 1064 positions.
fn sequence_value_syntax(text: &str) -> Option<String> {
    let toks = lexer::tokenize(text)?;
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    let mut i = 0;
    while i + 3 < toks.len() {
        let (first, start) = &toks[i];
        let function = if first.is_word("NEXT") {
            "NEXTVAL"
        } else if first.is_word("PREVIOUS") {
            "LASTVAL"
        } else {
            i += 1;
            continue;
        };
        if !(toks[i + 1].0.is_word("VALUE") && toks[i + 2].0.is_word("FOR") && toks[i + 3].0.ident().is_some()) {
            i += 1;
            continue;
        }
        // The name: `s`, `db.s`, with backquotes as written.
        let mut last = i + 3;
        if toks.get(last + 1).is_some_and(|t| t.0 == Tok::Sym('.'))
            && toks.get(last + 2).is_some_and(|t| t.0.ident().is_some())
        {
            last += 2;
        }
        let name_start = toks[i + 3].1;
        let name_end = toks.get(last + 1).map_or(text.len(), |t| t.1);
        out.push_str(&text[pos..*start]);
        out.push_str(function);
        out.push('(');
        out.push_str(text[name_start..name_end].trim_end());
        out.push(')');
        out.push_str(&text[text[name_start..name_end].trim_end().len() + name_start..name_end]);
        pos = name_end;
        i = last + 1;
    }
    if pos == 0 {
        return None;
    }
    out.push_str(&text[pos..]);
    Some(out)
}

fn parse_start_transaction(c: &mut Cursor) -> Result<Stmt, SyntaxError> {
    c.expect_word("TRANSACTION")?;
    let mut read_only = None;
    let mut consistent_snapshot = false;
    if c.peek().is_some() && c.peek() != Some(&Tok::Sym(';')) {
        loop {
            if c.eat_word("WITH") {
                c.expect_word("CONSISTENT")?;
                c.expect_word("SNAPSHOT")?;
                consistent_snapshot = true;
            } else if c.eat_word("READ") {
                if c.eat_word("ONLY") {
                    read_only = Some(true);
                } else {
                    c.expect_word("WRITE")?;
                    read_only = Some(false);
                }
            } else {
                return Err(c.error());
            }
            if !c.eat_sym(',') {
                break;
            }
        }
    }
    c.end()?;
    Ok(Stmt::Begin { read_only, consistent_snapshot })
}

/// SET [GLOBAL|SESSION|LOCAL] TRANSACTION ... and SET CHARACTER SET / CHARSET; None for every
/// other SET (sqlparser parses those).
fn parse_set_special(c: &mut Cursor) -> Option<Result<Stmt, SyntaxError>> {
    let scope = if c.eat_word("GLOBAL") {
        TrxScope::Global
    } else if c.eat_word("SESSION") || c.eat_word("LOCAL") {
        TrxScope::Session
    } else {
        TrxScope::Next
    };
    if scope == TrxScope::Next && (c.peek_word("CHARACTER") || c.peek_word("CHARSET")) {
        if c.eat_word("CHARACTER") && !c.eat_word("SET") {
            return Some(Err(c.error()));
        }
        c.eat_word("CHARSET");
        return match c.next() {
            Some(Tok::Word(_) | Tok::Quoted(_) | Tok::Str(_)) => Some(c.end().map(|_| Stmt::SetCharset)),
            _ => Some(Err(c.error())),
        };
    }
    if !c.eat_word("TRANSACTION") {
        return None;
    }
    let mut isolation = None;
    let mut read_only = None;
    let r = (|| {
        loop {
            if c.eat_word("ISOLATION") {
                c.expect_word("LEVEL")?;
                isolation = Some(if c.eat_word("SERIALIZABLE") {
                    IsolationLevel::Serializable
                } else if c.eat_word("REPEATABLE") {
                    c.expect_word("READ")?;
                    IsolationLevel::RepeatableRead
                } else if c.eat_word("READ") {
                    if c.eat_word("COMMITTED") {
                        IsolationLevel::ReadCommitted
                    } else {
                        c.expect_word("UNCOMMITTED")?;
                        IsolationLevel::ReadUncommitted
                    }
                } else {
                    return Err(c.error());
                });
            } else if c.eat_word("READ") {
                if c.eat_word("ONLY") {
                    read_only = Some(true);
                } else {
                    c.expect_word("WRITE")?;
                    read_only = Some(false);
                }
            } else {
                return Err(c.error());
            }
            if !c.eat_sym(',') {
                break;
            }
        }
        c.end()
    })();
    Some(r.map(|_| Stmt::SetTransaction { scope, isolation, read_only }))
}

/// `ALTER TABLE [db.]t {DISABLE|ENABLE} KEYS`; None for every other ALTER (sqlparser's).
fn parse_table_keys(text: &str) -> Option<Stmt> {
    let toks = lexer::tokenize(text)?;
    let mut c = Cursor { text, toks, pos: 1 };
    if !c.eat_word("TABLE") {
        return None;
    }
    let first = c.ident().ok()?;
    let (db, table) = if c.eat_sym('.') { (Some(first), c.ident().ok()?) } else { (None, first) };
    let enable = if c.eat_word("ENABLE") {
        true
    } else if c.eat_word("DISABLE") {
        false
    } else {
        return None;
    };
    if !c.eat_word("KEYS") || c.end().is_err() {
        return None;
    }
    Some(Stmt::TableKeys { db, table, enable })
}

/// LOCK TABLES' list, after `LOCK TABLES`. Aliases are read and not kept: a statement under
/// table locks is checked by table name.
fn parse_lock_tables(c: &mut Cursor) -> Result<Stmt, SyntaxError> {
    let mut tables = Vec::new();
    loop {
        let first = c.ident()?;
        let (db, name) = if c.eat_sym('.') { (Some(first), c.ident()?) } else { (None, first) };
        let lock_word = |c: &Cursor| ["READ", "WRITE", "LOW_PRIORITY"].iter().any(|w| c.peek_word(w));
        if c.eat_word("AS") || !lock_word(c) {
            c.ident()?;
        }
        let write = if c.eat_word("READ") {
            c.eat_word("LOCAL");
            false
        } else {
            c.eat_word("LOW_PRIORITY");
            c.expect_word("WRITE")?;
            c.eat_word("CONCURRENT");
            true
        };
        tables.push((db, name, write));
        if !c.eat_sym(',') {
            break;
        }
    }
    c.end()?;
    Ok(Stmt::LockTables(tables))
}

fn parse_checksum(c: &mut Cursor) -> Result<Stmt, SyntaxError> {
    if !c.eat_word("TABLE") {
        return Err(c.error());
    }
    let mut tables = Vec::new();
    loop {
        let first = c.ident()?;
        if c.eat_sym('.') {
            tables.push((Some(first), c.ident()?));
        } else {
            tables.push((None, first));
        }
        if !c.eat_sym(',') {
            break;
        }
    }
    let quick = c.eat_word("QUICK");
    if !quick {
        c.eat_word("EXTENDED");
    }
    c.end()?;
    Ok(Stmt::Checksum { tables, quick })
}

fn parse_admin(c: &mut Cursor, op: AdminOp) -> Result<Stmt, SyntaxError> {
    if !c.eat_word("NO_WRITE_TO_BINLOG") {
        c.eat_word("LOCAL");
    }
    if !c.eat_word("TABLE") && !c.eat_word("TABLES") {
        return Err(c.error());
    }
    let mut tables = Vec::new();
    loop {
        let first = c.ident()?;
        if c.eat_sym('.') {
            let second = c.ident()?;
            tables.push((Some(first), second));
        } else {
            tables.push((None, first));
        }
        if !c.eat_sym(',') {
            break;
        }
    }
    // Options such as QUICK / EXTENDED / PERSISTENT FOR ALL change nothing here.
    while let Some(t) = c.peek() {
        if matches!(t, Tok::Sym(';')) {
            break;
        }
        c.pos += 1;
    }
    c.end()?;
    Ok(Stmt::AdminTable { op, tables })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(sql: &str) -> Stmt {
        parse_statement(sql).unwrap_or_else(|e| panic!("{sql}: {:?}", e.0))
    }

    fn err(sql: &str) -> SqlError {
        match parse_statement(sql) {
            Ok(s) => panic!("{sql} parsed as {s:?}"),
            Err(e) => e.0,
        }
    }

    #[test]
    fn transaction_control() {
        assert!(matches!(parse("BEGIN"), Stmt::Begin { read_only: None, consistent_snapshot: false }));
        assert!(matches!(parse("begin work"), Stmt::Begin { .. }));
        assert!(matches!(
            parse("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"),
            Stmt::Begin { read_only: Some(true), consistent_snapshot: true }
        ));
        assert!(matches!(parse("COMMIT WORK"), Stmt::Commit { chain: false, release: false }));
        assert!(matches!(parse("COMMIT AND CHAIN"), Stmt::Commit { chain: true, release: false }));
        assert!(matches!(
            parse("ROLLBACK WORK AND NO CHAIN NO RELEASE"),
            Stmt::Rollback { chain: false, release: false }
        ));
        assert!(matches!(parse("ROLLBACK TO SAVEPOINT s1"), Stmt::RollbackToSavepoint(n) if n == "s1"));
        assert!(matches!(parse("ROLLBACK WORK TO s1"), Stmt::RollbackToSavepoint(n) if n == "s1"));
        assert!(matches!(parse("SAVEPOINT `a b`"), Stmt::Savepoint(n) if n == "a b"));
        assert_eq!(err("START TRANSACTION READ SOMETIMES").code, 1064);
    }

    #[test]
    fn set_transaction_keeps_its_scope() {
        match parse("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED") {
            Stmt::SetTransaction { scope, isolation, read_only } => {
                assert_eq!(scope, TrxScope::Session);
                assert_eq!(isolation, Some(IsolationLevel::ReadCommitted));
                assert_eq!(read_only, None);
            }
            other => panic!("{other:?}"),
        }
        match parse("SET TRANSACTION READ ONLY, ISOLATION LEVEL SERIALIZABLE") {
            Stmt::SetTransaction { scope, isolation, read_only } => {
                assert_eq!(scope, TrxScope::Next);
                assert_eq!(isolation, Some(IsolationLevel::Serializable));
                assert_eq!(read_only, Some(true));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse("SET GLOBAL TRANSACTION ISOLATION LEVEL REPEATABLE READ"),
            Stmt::SetTransaction { scope: TrxScope::Global, .. }
        ));
        assert!(matches!(parse("SET CHARACTER SET utf8"), Stmt::SetCharset));
        assert!(matches!(parse("SET autocommit = 0"), Stmt::Ast(_)));
        assert!(matches!(parse("SET NAMES utf8mb4"), Stmt::Ast(_)));
        assert!(matches!(parse("SET @a := 1, @@session.autocommit := 0"), Stmt::Ast(_)));
        assert_eq!(set_assignments_with_equals("SET @a := 1, x := (@b := 2)"), "SET @a =  1, x =  (@b := 2)");
    }

    #[test]
    fn prepare_execute_deallocate_do() {
        assert!(
            matches!(parse("PREPARE s FROM 'SELECT ?'"), Stmt::Prepare { name, source: PrepareSource::Text(t) } if name == "s" && t == "SELECT ?")
        );
        assert!(
            matches!(parse("PREPARE s FROM @q"), Stmt::Prepare { source: PrepareSource::UserVar(v), .. } if v == "q")
        );
        assert!(matches!(parse("EXECUTE s USING @a, 5 ;"), Stmt::Execute { using: Some(u), .. } if u == "@a, 5"));
        assert!(matches!(parse("EXECUTE s"), Stmt::Execute { using: None, .. }));
        assert!(matches!(
            parse("PREPARE s FROM CONCAT('SELECT ', 1)"),
            Stmt::Prepare { source: PrepareSource::Expr(e), .. } if e == "CONCAT('SELECT ', 1)"
        ));
        assert!(matches!(
            parse("EXECUTE IMMEDIATE 'SELECT ?' USING 1"),
            Stmt::ExecuteImmediate { source: PrepareSource::Text(t), using: Some(u) } if t == "SELECT ?" && u == "1"
        ));
        assert!(matches!(
            parse("SET STATEMENT sql_select_limit = 1, max_statement_time = 2 FOR SELECT 1"),
            Stmt::SetStatement(s) if s.set_text == "SET sql_select_limit = 1, max_statement_time = 2 " && s.body_offset == 63
        ));
        assert_eq!(err("SET STATEMENT @a=1 FOR SELECT 1").code, 1064);
        assert!(matches!(parse("DEALLOCATE PREPARE s"), Stmt::Deallocate { name } if name == "s"));
        assert!(matches!(parse("DROP PREPARE s"), Stmt::Deallocate { .. }));
        assert!(matches!(parse("DO 1 + 1, @a := 2"), Stmt::Do(s) if s == "SELECT 1 + 1, @a := 2"));
        assert!(matches!(parse("DROP TABLE t"), Stmt::Ast(_)));
    }

    #[test]
    fn sequences_parse_with_options_in_any_order() {
        let Stmt::CreateSequence { or_replace, if_not_exists, db, name, options } = parse(
            "CREATE OR REPLACE SEQUENCE IF NOT EXISTS d.`s` start with -5 minvalue = -10 maxvalue 100 \
             increment by -1 cache 20 nocycle ENGINE=InnoDB",
        ) else {
            panic!()
        };
        assert!(or_replace && if_not_exists);
        assert_eq!((db.as_deref(), name.as_str()), (Some("d"), "s"));
        assert_eq!(
            options,
            SequenceOptions {
                increment: Some(-1),
                min: Some(Some(-10)),
                max: Some(Some(100)),
                start: Some(-5),
                cache: Some(20),
                cycle: Some(false),
                restart: None,
            }
        );
        let Stmt::CreateSequence { options, .. } = parse("create sequence s nocache NO MAXVALUE nominvalue cycle")
        else {
            panic!()
        };
        assert_eq!(
            (options.cache, options.max, options.min, options.cycle),
            (Some(0), Some(None), Some(None), Some(true))
        );
        let Stmt::DropSequence { if_exists, names } = parse("DROP SEQUENCE IF EXISTS s, d.t") else { panic!() };
        assert!(if_exists);
        assert_eq!(names, vec![(None, "s".to_string()), (Some("d".to_string()), "t".to_string())]);
        assert_eq!(err("CREATE SEQUENCE s INCREMENT BY x").code, 1064);
        assert_eq!(
            sequence_value_syntax("INSERT INTO t VALUES (NEXT VALUE FOR s, previous value for `d`.`s`)").unwrap(),
            "INSERT INTO t VALUES (NEXTVAL(s), LASTVAL(`d`.`s`))"
        );
        assert_eq!(sequence_value_syntax("SELECT 'NEXT VALUE FOR s'"), None);
    }

    #[test]
    fn create_database_options() {
        match parse("CREATE SCHEMA IF NOT EXISTS d DEFAULT CHARACTER SET = utf8mb4 COLLATE utf8mb4_bin") {
            Stmt::CreateDatabase { name, if_not_exists, charset, collation } => {
                assert_eq!(name, "d");
                assert!(if_not_exists);
                assert_eq!(charset.as_deref(), Some("utf8mb4"));
                assert_eq!(collation.as_deref(), Some("utf8mb4_bin"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(parse("CREATE DATABASE d"), Stmt::CreateDatabase { if_not_exists: false, charset: None, .. }));
        assert!(matches!(parse("CREATE TABLE t (a INT)"), Stmt::Ast(_)));
        assert!(matches!(parse("ALTER TABLE t DROP KEY k, ADD KEY j (a)"), Stmt::AlterTable(_)));
        assert_eq!(
            drop_key_as_drop_index("ALTER TABLE t DROP KEY k, DROP  key j").as_deref(),
            Some("ALTER TABLE t DROP INDEX k, DROP  INDEX j")
        );
        assert_eq!(err("CREATE DATABASE d CHARACTER utf8").code, 1064);
    }

    #[test]
    fn admin_table_statements() {
        match parse("OPTIMIZE NO_WRITE_TO_BINLOG TABLE t1, db.t2") {
            Stmt::AdminTable { op, tables } => {
                assert_eq!(op, AdminOp::Optimize);
                assert_eq!(tables, vec![(None, "t1".to_string()), (Some("db".to_string()), "t2".to_string())]);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(parse("ANALYZE TABLE sbtest1"), Stmt::AdminTable { op: AdminOp::Analyze, .. }));
        assert!(matches!(parse("CHECK TABLE t EXTENDED"), Stmt::AdminTable { op: AdminOp::Check, .. }));
    }

    #[test]
    fn syntax_errors_quote_from_the_offending_token() {
        let e = err("SELEC 1");
        assert_eq!(e.code, 1064);
        assert!(e.message.ends_with("near 'SELEC 1' at line 1"), "{}", e.message);
        let e = err("SELECT 1 FROM");
        assert!(e.message.ends_with("near '' at line 1"), "{}", e.message);
        let e = err("SELECT * FROM t WHERE\nid = = 2");
        assert!(e.message.ends_with("near '= 2' at line 2"), "{}", e.message);
        let e = err("SELECT 1 2 3");
        assert!(e.message.contains("near '2 3'"), "{}", e.message);
    }

    #[test]
    fn sysbench_statements_parse() {
        for sql in [
            "SELECT c FROM sbtest1 WHERE id=?",
            "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?",
            "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?",
            "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
            "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
            "UPDATE sbtest1 SET k=k+1 WHERE id=?",
            "UPDATE sbtest1 SET c=? WHERE id=?",
            "DELETE FROM sbtest1 WHERE id=?",
            "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)",
            "SELECT id, k, c, pad FROM sbtest1 WHERE k IN (?, ?, ?)",
            "SELECT count(k) FROM sbtest1 WHERE k BETWEEN ? AND ? OR k BETWEEN ? AND ?",
            "SELECT AVG(id) FROM (SELECT * FROM sbtest1 FORCE KEY (PRIMARY) LIMIT 10) t",
            "SELECT COUNT(*) FROM (SELECT * FROM sbtest1 WHERE k LIKE '%0%' LIMIT 10) t",
            "SET tmp_table_size=2*1024*1024*1024",
            "CREATE INDEX k_1 ON sbtest1(k)",
            "DROP TABLE IF EXISTS sbtest1",
        ] {
            assert!(matches!(parse(sql), Stmt::Ast(_)), "{sql}");
        }
    }
}
