//! The body scanner: one pass over a statement's tokens after its leading keywords, collecting
//! what routing and caching need without parsing the grammar.
//!
//! It tracks parenthesis depth and, per depth, which clause it is in (an expression, a table
//! list after FROM/JOIN/UPDATE, or a WITH list of CTE definitions). From that it records:
//! - tables named in table lists (with the database qualifier), split into tables read and
//!   tables written (table lists at depth 0 of UPDATE/DELETE, and nested joins inside them);
//! - function calls: built-ins by their flags, anything else as a stored function;
//! - locking clauses, SELECT ... INTO, user-variable reads and assignments, system variables,
//!   sequences (NEXT VALUE FOR), and DML keywords at depth 0 (a WITH ... UPDATE).
//!
//! A table list it cannot follow (a literal where a name should be, nesting deeper than it
//! tracks, unbalanced parentheses) is reported as incomplete rather than guessed at: a read
//! with incomplete tables is never cached, a write with incomplete tables invalidates all.

use smallvec::SmallVec;

use super::lexer::{unquote_ident, Token, TokenKind, Tokens};
use super::types::TableRef;
use super::words::{self, FnFlags, Kw, NONDET, PIN, PRIMARY, SEQUENCE_WRITE, SIDE_EFFECT, VOLATILE};

/// Deepest parenthesis nesting whose clause is tracked (one bit of `call_parens` per depth).
const MAX_TRACKED_DEPTH: usize = 63;

/// When function calls are checked against the built-in list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FunctionCheck {
    Always,
    /// Only after a SELECT keyword (CREATE TABLE ... SELECT: before it, `CHAR(10)` is a type).
    AfterSelect,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct ScanMode {
    pub functions: FunctionCheck,
    /// Table lists at depth 0 name the statement's written tables (UPDATE, DELETE).
    pub writes_at_top: bool,
    /// The text starts inside a table list (UPDATE's tables, DELETE's multi-table list).
    pub start_in_table_list: bool,
    /// Stop before a `,` at depth 0 (one value of a SET assignment list).
    pub stop_at_top_comma: bool,
    /// The text starts with a WITH list of CTE definitions.
    pub start_in_cte_list: bool,
}

impl ScanMode {
    pub fn expression() -> ScanMode {
        ScanMode {
            functions: FunctionCheck::Always,
            writes_at_top: false,
            start_in_table_list: false,
            stop_at_top_comma: false,
            start_in_cte_list: false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Clause {
    Expr,
    /// A table list: `expecting` when the next name is a table (after FROM, JOIN or a comma);
    /// `writes` when its tables are written by the statement.
    Tables {
        expecting: bool,
        writes: bool,
    },
    /// WITH's list of `name [(columns)] AS (query)`.
    CteList {
        expect_name: bool,
    },
}

/// What a scan found.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    /// Union of the flags of the built-ins called (and of equivalent syntax: NEXT VALUE FOR,
    /// bare CURRENT_TIMESTAMP, variables).
    pub flags: FnFlags,
    /// A call to something that is not a built-in: a stored function or UDF.
    pub unknown_function: bool,
    /// FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE.
    pub locking: bool,
    /// SELECT ... INTO (OUTFILE, DUMPFILE or variables).
    pub into: bool,
    /// `:=` assignment or INTO @var: user variables change on this backend only.
    pub var_assign: bool,
    /// Reads @@warning_count / @@error_count (diagnostics of the previous statement).
    pub last_used: bool,
    /// INSERT/UPDATE/DELETE/REPLACE at depth 0 (a data-modifying WITH statement).
    pub dml_at_top: bool,
    /// A SELECT keyword was seen (a subquery in a SET value, CREATE TABLE ... SELECT).
    pub select_seen: bool,
    pub read_tables: SmallVec<[TableRef; 2]>,
    pub write_tables: SmallVec<[TableRef; 2]>,
    pub read_tables_incomplete: bool,
    pub write_tables_incomplete: bool,
}

impl Facts {
    /// The statement keeps the session on the primary.
    pub fn pins(&self) -> bool {
        self.flags & PIN != 0 || self.var_assign
    }

    pub fn has(&self, flags: FnFlags) -> bool {
        self.flags & flags != 0
    }
}

pub(crate) struct BodyScan {
    mode: ScanMode,
    pub facts: Facts,
    depth: usize,
    /// Parentheses opened beyond MAX_TRACKED_DEPTH (not tracked).
    untracked: usize,
    /// Bit d: the parenthesis that opened depth d belongs to a function call.
    call_parens: u64,
    clauses: [Clause; MAX_TRACKED_DEPTH + 1],
    /// The next `(` belongs to the function whose name was just read.
    next_paren_is_call: bool,
    /// The next `(` opens the arguments of NEXTVAL/SETVAL: its first token is a sequence name.
    next_paren_has_sequence: bool,
    /// The next token names a sequence that the statement advances.
    sequence_name_next: bool,
    prev_dot: bool,
    prev_as: bool,
}

impl BodyScan {
    pub fn new(mode: ScanMode) -> BodyScan {
        let mut clauses = [Clause::Expr; MAX_TRACKED_DEPTH + 1];
        if mode.start_in_table_list {
            clauses[0] = Clause::Tables { expecting: true, writes: mode.writes_at_top };
        } else if mode.start_in_cte_list {
            clauses[0] = Clause::CteList { expect_name: true };
        }
        BodyScan {
            mode,
            facts: Facts::default(),
            depth: 0,
            untracked: 0,
            call_parens: 0,
            clauses,
            next_paren_is_call: false,
            next_paren_has_sequence: false,
            sequence_name_next: false,
            prev_dot: false,
            prev_as: false,
        }
    }

    /// Scans up to the end of the statement (or a depth-0 comma with `stop_at_top_comma`),
    /// leaving that token unconsumed.
    pub fn run(&mut self, toks: &mut Tokens<'_>) {
        loop {
            let tok = toks.peek();
            if tok.ends_statement() {
                return;
            }
            if self.mode.stop_at_top_comma && tok.is_punct(b',') && self.at_top() {
                return;
            }
            toks.next();
            let was_dot = std::mem::take(&mut self.prev_dot);
            let was_as = std::mem::take(&mut self.prev_as);
            if std::mem::take(&mut self.sequence_name_next) {
                match tok.is_name().then(|| qualified_table(tok, toks)).flatten() {
                    Some(t) => push_unique(&mut self.facts.write_tables, t),
                    None => self.facts.write_tables_incomplete = true,
                }
                if tok.is_name() {
                    continue;
                }
            }
            match tok.kind {
                TokenKind::Punct(b'(') => self.open_paren(),
                TokenKind::Punct(b')') => self.close_paren(),
                TokenKind::Punct(b',') => self.comma(),
                TokenKind::Punct(b'.') => self.prev_dot = true,
                TokenKind::Word => self.word(tok, toks, was_dot, was_as),
                TokenKind::QuotedIdent => self.quoted_ident(tok, toks, was_as),
                // A double-quoted table name under ANSI_QUOTES: not something to guess at.
                TokenKind::Str if self.expecting_table() => {
                    self.table_list_incomplete();
                    self.set_expecting(false);
                }
                TokenKind::UserVar => {
                    if toks.peek().kind == TokenKind::Assign {
                        self.facts.var_assign = true;
                    } else {
                        self.facts.flags |= NONDET;
                    }
                }
                TokenKind::SysVar => self.system_variable(tok.text),
                TokenKind::Assign => self.facts.var_assign = true,
                _ => {}
            }
        }
    }

    fn at_top(&self) -> bool {
        self.depth == 0 && self.untracked == 0
    }

    fn clause(&self) -> Clause {
        if self.untracked > 0 {
            Clause::Expr
        } else {
            self.clauses[self.depth]
        }
    }

    fn set_clause(&mut self, c: Clause) {
        if self.untracked == 0 {
            self.clauses[self.depth] = c;
        }
    }

    fn expecting_table(&self) -> bool {
        matches!(self.clause(), Clause::Tables { expecting: true, .. })
    }

    fn set_expecting(&mut self, expecting: bool) {
        if let Clause::Tables { writes, .. } = self.clause() {
            self.set_clause(Clause::Tables { expecting, writes });
        }
    }

    fn leave_table_list(&mut self) {
        if self.clause() != Clause::Expr {
            self.set_clause(Clause::Expr);
        }
    }

    fn in_call_parens(&self) -> bool {
        self.untracked == 0 && self.depth > 0 && self.call_parens & (1 << self.depth) != 0
    }

    fn functions_checked(&self) -> bool {
        self.mode.functions == FunctionCheck::Always || self.facts.select_seen
    }

    fn table_list_incomplete(&mut self) {
        match self.clause() {
            Clause::Tables { writes: true, .. } => self.facts.write_tables_incomplete = true,
            _ => self.facts.read_tables_incomplete = true,
        }
    }

    fn open_paren(&mut self) {
        let call = std::mem::take(&mut self.next_paren_is_call);
        if std::mem::take(&mut self.next_paren_has_sequence) {
            self.sequence_name_next = true;
        }
        if self.untracked > 0 || self.depth == MAX_TRACKED_DEPTH {
            self.untracked += 1;
            self.facts.read_tables_incomplete = true;
            self.facts.write_tables_incomplete = true;
            return;
        }
        let child = match self.clauses[self.depth] {
            // A derived table or a nested join fills the table slot it stands in.
            Clause::Tables { expecting: true, writes } if !call => {
                self.clauses[self.depth] = Clause::Tables { expecting: false, writes };
                Clause::Tables { expecting: true, writes }
            }
            _ => Clause::Expr,
        };
        self.depth += 1;
        self.clauses[self.depth] = child;
        if call {
            self.call_parens |= 1 << self.depth;
        } else {
            self.call_parens &= !(1 << self.depth);
        }
    }

    fn close_paren(&mut self) {
        if self.untracked > 0 {
            self.untracked -= 1;
        } else if self.depth == 0 {
            // Unbalanced: the server rejects it, but do not pretend to know its tables.
            self.facts.read_tables_incomplete = true;
            self.facts.write_tables_incomplete = true;
        } else {
            self.depth -= 1;
        }
    }

    fn comma(&mut self) {
        match self.clause() {
            Clause::Tables { writes, .. } => self.set_clause(Clause::Tables { expecting: true, writes }),
            Clause::CteList { .. } => self.set_clause(Clause::CteList { expect_name: true }),
            Clause::Expr => {}
        }
    }

    fn word(&mut self, tok: Token<'_>, toks: &mut Tokens<'_>, was_dot: bool, was_as: bool) {
        let kw = words::body_keyword(tok.text);
        let next = toks.peek();
        let next_is_paren = next.is_punct(b'(');
        if let Clause::CteList { expect_name: true } = self.clause() {
            if !tok.is_word(b"recursive") {
                // A CTE name; a `(` after it opens its column list, not a call.
                self.set_clause(Clause::CteList { expect_name: false });
            }
            return;
        }
        if self.expecting_table() && !kw.is_structural() && kw != Kw::NotATable {
            if next_is_paren {
                // A table function (JSON_TABLE): fills the slot, names no table.
                self.set_expecting(false);
                self.call(tok.text, was_dot);
            } else {
                self.table_name(tok, toks);
            }
            return;
        }
        if next_is_paren && !was_as && !kw.is_structural() && kw != Kw::NotATable {
            self.call(tok.text, was_dot);
            return;
        }
        match kw {
            Kw::As => self.prev_as = true,
            Kw::From => {
                // FROM inside a call is syntax of EXTRACT/TRIM/SUBSTRING, not a table list.
                if !self.in_call_parens() {
                    let writes = self.at_top() && self.mode.writes_at_top;
                    self.set_clause(Clause::Tables { expecting: true, writes });
                }
            }
            Kw::Join => {
                let writes = match self.clause() {
                    Clause::Tables { writes, .. } => Some(writes),
                    // STRAIGHT_JOIN is also a SELECT option, before any table list.
                    _ if tok.is_word(b"straight_join") => None,
                    _ => Some(self.at_top() && self.mode.writes_at_top),
                };
                if let Some(writes) = writes {
                    self.set_clause(Clause::Tables { expecting: true, writes });
                }
            }
            // DELETE ... USING t1, t2 names tables; JOIN ... USING (col) does not.
            Kw::Using if !next_is_paren => self.set_expecting(true),
            Kw::ClauseEnd | Kw::Values => self.leave_table_list(),
            Kw::Select => {
                self.facts.select_seen = true;
                self.leave_table_list();
            }
            Kw::With => {
                if next.is_name() && !next.is_word(b"rollup") {
                    self.set_clause(Clause::CteList { expect_name: true });
                }
            }
            Kw::For => {
                if next.is_word(b"update") || next.is_word(b"share") {
                    toks.next();
                    self.facts.locking = true;
                    self.leave_table_list();
                } else if next.is_word(b"join") {
                    // An index hint `USE INDEX FOR JOIN (i)`: still in the table list.
                    toks.next();
                } else if next.is_word(b"order") || next.is_word(b"group") {
                    // `IGNORE INDEX FOR ORDER BY (i)`: not the ORDER BY clause.
                    toks.next();
                    toks.eat_word(b"by");
                }
            }
            Kw::Lock => {
                if next.is_word(b"in") {
                    self.facts.locking = true;
                    self.leave_table_list();
                }
            }
            Kw::Into => {
                self.facts.into = true;
                if next.kind == TokenKind::UserVar {
                    self.facts.var_assign = true;
                }
                self.leave_table_list();
            }
            Kw::Next | Kw::Previous => {
                if next.is_word(b"value") && toks.peek2().is_word(b"for") {
                    toks.next();
                    toks.next();
                    if kw == Kw::Next {
                        self.facts.flags |= NONDET | VOLATILE | PRIMARY | SIDE_EFFECT | SEQUENCE_WRITE;
                        self.sequence_name_next = true;
                    } else {
                        self.facts.flags |= NONDET | VOLATILE | PRIMARY;
                    }
                }
            }
            Kw::TimeOrSession => self.facts.flags |= NONDET,
            // FOUND_ROWS() later must find this count on the primary.
            Kw::CalcFoundRows => self.facts.flags |= PRIMARY | SIDE_EFFECT,
            Kw::Dml => {
                if self.at_top() {
                    self.facts.dml_at_top = true;
                }
            }
            Kw::Using | Kw::On | Kw::Structural | Kw::NotATable | Kw::Other => {}
        }
    }

    fn quoted_ident(&mut self, tok: Token<'_>, toks: &mut Tokens<'_>, was_as: bool) {
        if let Clause::CteList { expect_name: true } = self.clause() {
            self.set_clause(Clause::CteList { expect_name: false });
        } else if self.expecting_table() {
            if toks.peek().is_punct(b'(') {
                self.set_expecting(false);
                self.call(tok.text, true);
            } else {
                self.table_name(tok, toks);
            }
        } else if toks.peek().is_punct(b'(') && !was_as {
            // A quoted name is never a built-in: a stored function or UDF.
            self.call(tok.text, true);
        }
    }

    /// A call of `name` (`qualified`: `db.name(` or a quoted name, which built-ins are not).
    fn call(&mut self, name: &[u8], qualified: bool) {
        self.next_paren_is_call = true;
        if !self.functions_checked() {
            return;
        }
        match words::builtin_function(name) {
            Some(flags) if !qualified => {
                self.facts.flags |= flags;
                if flags & SEQUENCE_WRITE != 0 {
                    self.next_paren_has_sequence = true;
                }
            }
            _ => self.facts.unknown_function = true,
        }
    }

    fn table_name(&mut self, first: Token<'_>, toks: &mut Tokens<'_>) {
        let writes = matches!(self.clause(), Clause::Tables { writes: true, .. });
        self.set_expecting(false);
        let Some(table) = qualified_table(first, toks) else {
            self.table_list_incomplete();
            return;
        };
        if table.db.as_deref().is_some_and(is_system_schema) {
            // Server metadata changes without writes the proxy sees.
            self.facts.flags |= NONDET;
        }
        if writes {
            push_unique(&mut self.facts.write_tables, table);
        } else {
            push_unique(&mut self.facts.read_tables, table);
        }
    }

    fn system_variable(&mut self, text: &[u8]) {
        let (_, name) = split_scope(text);
        if name.eq_ignore_ascii_case(b"last_insert_id") || name.eq_ignore_ascii_case(b"identity") {
            self.facts.flags |= NONDET | VOLATILE | PRIMARY | PIN;
        } else if name.eq_ignore_ascii_case(b"warning_count") || name.eq_ignore_ascii_case(b"error_count") {
            self.facts.flags |= NONDET;
            self.facts.last_used = true;
        } else {
            self.facts.flags |= NONDET;
        }
    }
}

fn push_unique(list: &mut SmallVec<[TableRef; 2]>, t: TableRef) {
    if !list.contains(&t) {
        list.push(t);
    }
}

fn is_system_schema(db: &str) -> bool {
    ["information_schema", "performance_schema", "mysql", "sys"].iter().any(|s| db.eq_ignore_ascii_case(s))
}

/// Scope of a system variable name as written after `@@`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VarScope {
    Global,
    Session,
}

/// Splits `global.x` / `session.x` / `local.x` into its scope and name.
pub(crate) fn split_scope(text: &[u8]) -> (Option<VarScope>, &[u8]) {
    if let Some(dot) = text.iter().position(|&c| c == b'.') {
        let (scope, name) = (&text[..dot], &text[dot + 1..]);
        if scope.eq_ignore_ascii_case(b"global") {
            return (Some(VarScope::Global), name);
        }
        if scope.eq_ignore_ascii_case(b"session") || scope.eq_ignore_ascii_case(b"local") {
            return (Some(VarScope::Session), name);
        }
    }
    (None, text)
}

/// The text a name token denotes (backquotes removed).
pub(crate) fn name_text(tok: Token<'_>) -> String {
    debug_assert!(tok.is_name());
    match tok.kind {
        TokenKind::QuotedIdent => unquote_ident(tok.text),
        _ => match std::str::from_utf8(tok.text) {
            Ok(s) => s.to_owned(),
            Err(_) => String::from_utf8_lossy(tok.text).into_owned(),
        },
    }
}

/// A table name starting at `first` (already consumed): `t`, `db.t`, and in DELETE's target
/// list `t.*` / `db.t.*`. None when what follows a dot is not a name.
pub(crate) fn qualified_table(first: Token<'_>, toks: &mut Tokens<'_>) -> Option<TableRef> {
    debug_assert!(first.is_name());
    let first_name = name_text(first);
    if !toks.eat_punct(b'.') {
        return Some(TableRef { db: None, table: first_name });
    }
    let second = toks.next();
    if second.is_punct(b'*') {
        return Some(TableRef { db: None, table: first_name });
    }
    if !second.is_name() {
        return None;
    }
    let table = name_text(second);
    if toks.eat_punct(b'.') && !toks.next().is_punct(b'*') {
        return None;
    }
    Some(TableRef { db: Some(first_name), table })
}
