//! What a SHOW statement asks for, from sqlparser's AST or, for the forms sqlparser rejects or
//! reads lossily (SHOW INDEX, SHOW TABLE STATUS LIKE ..., SHOW COUNT(*) WARNINGS, SHOW CREATE
//! DATABASE, ...), from the statement text.
//!
//! sqlparser turns every SHOW it does not know into `ShowVariable { variable: [idents] }`,
//! silently dropping string literals, numbers and punctuation (`SHOW TABLE STATUS LIKE 'x'`
//! arrives as `[TABLE, STATUS, LIKE]`). Such statements must reach `execute_show_fallback` as
//! text; from the AST we accept only the forms whose identifiers carry everything.

use sqlparser::ast::{
    DescribeAlias, ObjectName, ShowCreateObject, ShowStatementFilter, ShowStatementFilterPosition,
    ShowStatementOptions, Statement,
};
use sqlparser::dialect::MySqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer};

use super::filter::Filter;
use crate::error::SqlError;
use crate::variables::VarScope;

/// A table named by a SHOW statement (`db.t`, or `t` in the current database).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TableName {
    pub db: Option<String>,
    pub name: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RoutineKind {
    Procedure,
    Function,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ShowCommand {
    Databases {
        filter: Option<Filter>,
    },
    Tables {
        full: bool,
        db: Option<String>,
        filter: Option<Filter>,
    },
    Columns {
        full: bool,
        table: TableName,
        filter: Option<Filter>,
    },
    CreateTable {
        table: TableName,
    },
    CreateView {
        table: TableName,
    },
    CreateSequence {
        table: TableName,
    },
    CreateDatabase {
        name: String,
        if_not_exists: bool,
    },
    /// SHOW CREATE PROCEDURE/FUNCTION/TRIGGER/EVENT: Selkie has none of these objects.
    CreateMissingObject {
        kind: &'static str,
        name: String,
    },
    Index {
        table: TableName,
        filter: Option<Filter>,
    },
    Variables {
        scope: VarScope,
        filter: Option<Filter>,
    },
    Status {
        scope: VarScope,
        filter: Option<Filter>,
    },
    ProcessList {
        full: bool,
    },
    Warnings {
        errors_only: bool,
        offset: u64,
        count: u64,
    },
    CountWarnings {
        errors_only: bool,
    },
    Engines,
    /// SHOW ENGINE name {STATUS | MUTEX}
    EngineStatus {
        engine: String,
        mutex: bool,
    },
    CharacterSets {
        filter: Option<Filter>,
    },
    Collations {
        filter: Option<Filter>,
    },
    TableStatus {
        db: Option<String>,
        filter: Option<Filter>,
    },
    MasterStatus,
    SlaveStatus,
    BinaryLogs,
    Plugins,
    /// SHOW GRANTS [FOR user@host]; None = the current account.
    Grants {
        account: Option<(String, String)>,
    },
    Triggers {
        db: Option<String>,
        filter: Option<Filter>,
    },
    Events {
        db: Option<String>,
        filter: Option<Filter>,
    },
    RoutineStatus {
        kind: RoutineKind,
        filter: Option<Filter>,
    },
}

pub(crate) fn syntax_error(near: &str) -> SqlError {
    SqlError::new(
        1064,
        "42000",
        format!(
            "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '{near}' at line 1"
        ),
    )
}

// ---- from the AST ----

fn filter_of(f: &ShowStatementFilter) -> Result<Filter, SqlError> {
    match f {
        ShowStatementFilter::Like(p) => Ok(Filter::Like(p.clone())),
        ShowStatementFilter::Where(e) => Ok(Filter::Where(Box::new(e.clone()))),
        other => Err(syntax_error(&other.to_string())),
    }
}

fn options_filter(o: &ShowStatementOptions) -> Result<Option<Filter>, SqlError> {
    if o.limit.is_some() || o.starts_with.is_some() || o.limit_from.is_some() {
        return Err(syntax_error(&o.to_string()));
    }
    match &o.filter_position {
        None => Ok(None),
        Some(ShowStatementFilterPosition::Infix(f) | ShowStatementFilterPosition::Suffix(f)) => filter_of(f).map(Some),
    }
}

fn opt_filter(f: &Option<ShowStatementFilter>) -> Result<Option<Filter>, SqlError> {
    f.as_ref().map(filter_of).transpose()
}

fn name_parts(name: &ObjectName) -> Vec<String> {
    name.0.iter().map(|p| p.as_ident().map(|i| i.value.clone()).unwrap_or_else(|| p.to_string())).collect()
}

fn table_name(name: &ObjectName) -> Result<TableName, SqlError> {
    let mut parts = name_parts(name);
    match parts.len() {
        1 => Ok(TableName { db: None, name: parts.remove(0) }),
        2 => {
            let t = parts.remove(1);
            Ok(TableName { db: Some(parts.remove(0)), name: t })
        }
        _ => Err(syntax_error(&name.to_string())),
    }
}

fn db_name(o: &ShowStatementOptions) -> Result<Option<String>, SqlError> {
    match o.show_in.as_ref().and_then(|i| i.parent_name.as_ref()) {
        None => Ok(None),
        Some(n) => {
            let parts = name_parts(n);
            match <[String; 1]>::try_from(parts) {
                Ok([db]) => Ok(Some(db)),
                Err(_) => Err(syntax_error(&n.to_string())),
            }
        }
    }
}

fn scope(global: bool, session: bool) -> VarScope {
    debug_assert!(!(global && session));
    if global {
        VarScope::Global
    } else {
        VarScope::Session
    }
}

impl ShowCommand {
    /// The command a parsed statement asks for; a clean error for statements that are not a
    /// SHOW (or DESCRIBE) MariaDB has.
    pub(crate) fn from_statement(stmt: &Statement) -> Result<ShowCommand, SqlError> {
        Ok(match stmt {
            Statement::ShowDatabases { show_options, .. } | Statement::ShowSchemas { show_options, .. } => {
                ShowCommand::Databases { filter: options_filter(show_options)? }
            }
            Statement::ShowTables { full, show_options, .. } => {
                ShowCommand::Tables { full: *full, db: db_name(show_options)?, filter: options_filter(show_options)? }
            }
            Statement::ShowColumns { full, show_options, .. } => {
                let name = show_options.show_in.as_ref().and_then(|i| i.parent_name.as_ref());
                let table = match name {
                    Some(n) => table_name(n)?,
                    None => return Err(syntax_error("")),
                };
                ShowCommand::Columns { full: *full, table, filter: options_filter(show_options)? }
            }
            Statement::ExplainTable {
                describe_alias: DescribeAlias::Describe | DescribeAlias::Desc | DescribeAlias::Explain,
                hive_format: None,
                table_name: name,
                ..
            } => ShowCommand::Columns { full: false, table: table_name(name)?, filter: None },
            Statement::ShowCreate { obj_type, obj_name } => match obj_type {
                ShowCreateObject::Table => ShowCommand::CreateTable { table: table_name(obj_name)? },
                ShowCreateObject::View => ShowCommand::CreateView { table: table_name(obj_name)? },
                ShowCreateObject::Procedure => {
                    ShowCommand::CreateMissingObject { kind: "PROCEDURE", name: obj_name.to_string() }
                }
                ShowCreateObject::Function => {
                    ShowCommand::CreateMissingObject { kind: "FUNCTION", name: obj_name.to_string() }
                }
                ShowCreateObject::Trigger => {
                    ShowCommand::CreateMissingObject { kind: "TRIGGER", name: obj_name.to_string() }
                }
                ShowCreateObject::Event => {
                    ShowCommand::CreateMissingObject { kind: "EVENT", name: obj_name.to_string() }
                }
            },
            Statement::ShowVariables { filter, global, session } => {
                ShowCommand::Variables { scope: scope(*global, *session), filter: opt_filter(filter)? }
            }
            Statement::ShowStatus { filter, global, session } => {
                ShowCommand::Status { scope: scope(*global, *session), filter: opt_filter(filter)? }
            }
            Statement::ShowProcessList { full } => ShowCommand::ProcessList { full: *full },
            Statement::ShowCharset(c) => ShowCommand::CharacterSets { filter: opt_filter(&c.filter)? },
            Statement::ShowCollation { filter } => ShowCommand::Collations { filter: opt_filter(filter)? },
            Statement::ShowVariable { variable } => {
                // sqlparser's catch-all: rebuild the text from the identifiers it kept. Forms
                // that needed a literal (LIKE 'x', LIMIT n, FOR 'u'@'h') fail to parse here
                // because the literal was dropped; they must come through the fallback.
                let words: Vec<String> = variable
                    .iter()
                    .map(|i| match i.quote_style {
                        Some(_) => format!("`{}`", i.value.replace('`', "``")),
                        None => i.value.clone(),
                    })
                    .collect();
                let text = format!("SHOW {}", words.join(" "));
                match parse_text(&text) {
                    Ok(Some(cmd)) => cmd,
                    Ok(None) | Err(_) => return Err(syntax_error(&words.join(" "))),
                }
            }
            other => return Err(syntax_error(&other.to_string())),
        })
    }
}

// ---- from the text ----

/// A cursor over the significant tokens of a statement.
struct Tokens {
    tokens: Vec<Token>,
    pos: usize,
}

impl Tokens {
    fn new(sql: &str) -> Option<Tokens> {
        let all = Tokenizer::new(&MySqlDialect {}, sql).tokenize().ok()?;
        let tokens = all.into_iter().filter(|t| !matches!(t, Token::Whitespace(_))).collect();
        Some(Tokens { tokens, pos: 0 })
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    /// An unquoted word equal (ignoring case) to `kw`.
    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(kw))
    }

    fn eat(&mut self, kw: &str) -> bool {
        let yes = self.is_kw(kw);
        if yes {
            self.pos += 1;
        }
        yes
    }

    fn eat_token(&mut self, t: &Token) -> bool {
        let yes = self.peek() == Some(t);
        if yes {
            self.pos += 1;
        }
        yes
    }

    fn rest_text(&self) -> String {
        self.tokens[self.pos.min(self.tokens.len())..].iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" ")
    }

    fn error(&self) -> SqlError {
        syntax_error(&self.rest_text())
    }

    fn expect(&mut self, kw: &str) -> Result<(), SqlError> {
        if self.eat(kw) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    /// Only `;` (or nothing) remains.
    fn at_end(&self) -> bool {
        self.tokens[self.pos..].iter().all(|t| matches!(t, Token::SemiColon | Token::EOF))
    }

    fn finish(&self) -> Result<(), SqlError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    fn ident(&mut self) -> Result<String, SqlError> {
        match self.peek() {
            Some(Token::Word(w)) => {
                let v = w.value.clone();
                self.pos += 1;
                Ok(v)
            }
            _ => Err(self.error()),
        }
    }

    fn string(&mut self) -> Result<String, SqlError> {
        match self.peek() {
            Some(Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)) => {
                let v = s.clone();
                self.pos += 1;
                Ok(v)
            }
            _ => Err(self.error()),
        }
    }

    fn number(&mut self) -> Result<u64, SqlError> {
        match self.peek() {
            Some(Token::Number(n, _)) => {
                let v = n.parse().map_err(|_| self.error())?;
                self.pos += 1;
                Ok(v)
            }
            _ => Err(self.error()),
        }
    }

    /// `ident [. ident]`
    fn table(&mut self) -> Result<TableName, SqlError> {
        let first = self.ident()?;
        if self.eat_token(&Token::Period) {
            let name = self.ident()?;
            return Ok(TableName { db: Some(first), name });
        }
        Ok(TableName { db: None, name: first })
    }

    /// `[{FROM | IN} db]`
    fn in_database(&mut self) -> Result<Option<String>, SqlError> {
        if self.eat("FROM") || self.eat("IN") {
            return self.ident().map(Some);
        }
        Ok(None)
    }

    /// `[LIKE 'pattern' | WHERE expr]`, then the end of the statement.
    fn filter_and_end(&mut self) -> Result<Option<Filter>, SqlError> {
        let filter = if self.eat("LIKE") {
            Some(Filter::Like(self.string()?))
        } else if self.eat("WHERE") {
            let rest: Vec<Token> =
                self.tokens[self.pos..].iter().filter(|t| !matches!(t, Token::EOF)).cloned().collect();
            let mut parser = Parser::new(&MySqlDialect {}).with_tokens(rest);
            let expr = parser.parse_expr().map_err(|_| self.error())?;
            while parser.consume_token(&Token::SemiColon) {}
            if parser.peek_token().token != Token::EOF {
                return Err(syntax_error(&parser.peek_token().token.to_string()));
            }
            self.pos = self.tokens.len();
            Some(Filter::Where(Box::new(expr)))
        } else {
            None
        };
        self.finish()?;
        Ok(filter)
    }

    fn where_only_and_end(&mut self) -> Result<Option<Filter>, SqlError> {
        if self.is_kw("LIKE") {
            return Err(self.error());
        }
        self.filter_and_end()
    }
}

/// Words after DESCRIBE/EXPLAIN that start an EXPLAIN of a statement, not of a table.
const EXPLAIN_STATEMENT_WORDS: &[Keyword] = &[
    Keyword::SELECT,
    Keyword::INSERT,
    Keyword::UPDATE,
    Keyword::DELETE,
    Keyword::REPLACE,
    Keyword::WITH,
    Keyword::EXTENDED,
    Keyword::PARTITIONS,
    Keyword::FORMAT,
    Keyword::ANALYZE,
    Keyword::TABLE,
    Keyword::QUERY,
];

/// Parses the SHOW (and DESCRIBE table [column]) statements this module implements.
/// `Ok(None)`: not one of them (not a SHOW at all, or a SHOW Selkie does not have).
pub(crate) fn parse_text(sql: &str) -> Result<Option<ShowCommand>, SqlError> {
    // Cheap rejection of everything that is not SHOW/DESC*/EXPLAIN before tokenizing.
    let head = skip_comments(sql);
    let word_len = head.bytes().take_while(|b| b.is_ascii_alphabetic()).count();
    let first_word = &head[..word_len];
    if !["SHOW", "DESC", "DESCRIBE", "EXPLAIN"].iter().any(|w| w.eq_ignore_ascii_case(first_word)) {
        return Ok(None);
    }
    let Some(mut t) = Tokens::new(sql) else { return Ok(None) };
    if t.eat("SHOW") {
        return parse_show(&mut t);
    }
    // DESCRIBE t [column | 'pattern']: SHOW COLUMNS FROM t LIKE ...
    t.pos += 1;
    match t.peek() {
        Some(Token::Word(w)) if w.quote_style.is_some() || !EXPLAIN_STATEMENT_WORDS.contains(&w.keyword) => {}
        _ => return Ok(None),
    }
    let table = t.table()?;
    let filter = match t.peek() {
        Some(Token::Word(_)) => Some(Filter::Like(t.ident()?)),
        Some(Token::SingleQuotedString(_) | Token::DoubleQuotedString(_)) => Some(Filter::Like(t.string()?)),
        _ => None,
    };
    if !t.at_end() {
        return Ok(None);
    }
    Ok(Some(ShowCommand::Columns { full: false, table, filter }))
}

/// `sql` after leading whitespace and comments (`/* */`, `-- `, `#`).
fn skip_comments(mut sql: &str) -> &str {
    loop {
        sql = sql.trim_start();
        if let Some(rest) = sql.strip_prefix("/*") {
            match rest.find("*/") {
                Some(end) => sql = &rest[end + 2..],
                None => return "",
            }
        } else if sql.starts_with("-- ") || sql.starts_with('#') {
            match sql.find('\n') {
                Some(end) => sql = &sql[end + 1..],
                None => return "",
            }
        } else {
            return sql;
        }
    }
}

fn parse_show(t: &mut Tokens) -> Result<Option<ShowCommand>, SqlError> {
    let full = t.eat("FULL");
    let extended = !full && t.eat("EXTENDED") && {
        t.eat("FULL");
        true
    };
    let var_scope = if t.eat("GLOBAL") {
        Some(VarScope::Global)
    } else if t.eat("SESSION") || t.eat("LOCAL") {
        Some(VarScope::Session)
    } else {
        None
    };
    let full = full || extended;
    let cmd = if t.eat("VARIABLES") {
        ShowCommand::Variables { scope: var_scope.unwrap_or(VarScope::Session), filter: t.filter_and_end()? }
    } else if var_scope.is_some() {
        t.expect("STATUS")?;
        ShowCommand::Status { scope: var_scope.unwrap_or(VarScope::Session), filter: t.filter_and_end()? }
    } else if t.eat("PROCESSLIST") {
        t.finish()?;
        ShowCommand::ProcessList { full }
    } else if t.eat("TABLES") {
        let db = t.in_database()?;
        ShowCommand::Tables { full, db, filter: t.filter_and_end()? }
    } else if t.eat("COLUMNS") || t.eat("FIELDS") {
        if !(t.eat("FROM") || t.eat("IN")) {
            return Err(t.error());
        }
        let mut table = t.table()?;
        if let Some(db) = t.in_database()? {
            table.db = Some(db);
        }
        ShowCommand::Columns { full, table, filter: t.filter_and_end()? }
    } else if full {
        return Err(t.error());
    } else if t.eat("STATUS") {
        ShowCommand::Status { scope: VarScope::Session, filter: t.filter_and_end()? }
    } else if t.eat("DATABASES") || t.eat("SCHEMAS") {
        ShowCommand::Databases { filter: t.filter_and_end()? }
    } else if t.eat("INDEX") || t.eat("INDEXES") || t.eat("KEYS") {
        if !(t.eat("FROM") || t.eat("IN")) {
            return Err(t.error());
        }
        let mut table = t.table()?;
        if let Some(db) = t.in_database()? {
            table.db = Some(db);
        }
        ShowCommand::Index { table, filter: t.where_only_and_end()? }
    } else if t.eat("CREATE") {
        parse_show_create(t)?
    } else if t.is_kw("WARNINGS") || t.is_kw("ERRORS") {
        let errors_only = t.is_kw("ERRORS");
        t.pos += 1;
        let (mut offset, mut count) = (0, u64::MAX);
        if t.eat("LIMIT") {
            let a = t.number()?;
            if t.eat_token(&Token::Comma) {
                offset = a;
                count = t.number()?;
            } else if t.eat("OFFSET") {
                count = a;
                offset = t.number()?;
            } else {
                count = a;
            }
        }
        t.finish()?;
        ShowCommand::Warnings { errors_only, offset, count }
    } else if t.eat("COUNT") {
        // COUNT(*) — sqlparser's catch-all keeps only the word COUNT, so the parentheses are
        // optional here.
        if t.eat_token(&Token::LParen) && !(t.eat_token(&Token::Mul) && t.eat_token(&Token::RParen)) {
            return Err(t.error());
        }
        let errors_only = if t.eat("WARNINGS") {
            false
        } else if t.eat("ERRORS") {
            true
        } else {
            return Err(t.error());
        };
        t.finish()?;
        ShowCommand::CountWarnings { errors_only }
    } else if t.eat("ENGINES") || (t.eat("STORAGE") && t.eat("ENGINES")) {
        t.finish()?;
        ShowCommand::Engines
    } else if t.eat("ENGINE") {
        let engine = t.ident()?;
        let mutex = if t.eat("STATUS") {
            false
        } else if t.eat("MUTEX") {
            true
        } else {
            return Err(t.error());
        };
        t.finish()?;
        ShowCommand::EngineStatus { engine, mutex }
    } else if t.eat("CHARSET") || (t.eat("CHARACTER") && t.eat("SET")) {
        ShowCommand::CharacterSets { filter: t.filter_and_end()? }
    } else if t.eat("COLLATION") {
        ShowCommand::Collations { filter: t.filter_and_end()? }
    } else if t.eat("TABLE") {
        t.expect("STATUS")?;
        let db = t.in_database()?;
        ShowCommand::TableStatus { db, filter: t.filter_and_end()? }
    } else if t.eat("MASTER") || t.eat("BINLOG") {
        if t.eat("LOGS") {
            t.finish()?;
            ShowCommand::BinaryLogs
        } else {
            t.expect("STATUS")?;
            t.finish()?;
            ShowCommand::MasterStatus
        }
    } else if t.eat("BINARY") {
        t.expect("LOGS")?;
        t.finish()?;
        ShowCommand::BinaryLogs
    } else if t.eat("SLAVE") || t.eat("REPLICA") {
        // SHOW SLAVE ['connection_name'] STATUS
        if !t.is_kw("STATUS") {
            t.string()?;
        }
        t.expect("STATUS")?;
        t.finish()?;
        ShowCommand::SlaveStatus
    } else if t.eat("ALL") {
        if !(t.eat("SLAVES") || t.eat("REPLICAS")) {
            return Err(t.error());
        }
        t.expect("STATUS")?;
        t.finish()?;
        ShowCommand::SlaveStatus
    } else if t.eat("PLUGINS") {
        t.finish()?;
        ShowCommand::Plugins
    } else if t.eat("GRANTS") {
        let account = if t.eat("FOR") { parse_account(t)? } else { None };
        t.finish()?;
        ShowCommand::Grants { account }
    } else if t.eat("TRIGGERS") {
        let db = t.in_database()?;
        ShowCommand::Triggers { db, filter: t.filter_and_end()? }
    } else if t.eat("EVENTS") {
        let db = t.in_database()?;
        ShowCommand::Events { db, filter: t.filter_and_end()? }
    } else if t.is_kw("PROCEDURE") || t.is_kw("FUNCTION") {
        let kind = if t.is_kw("PROCEDURE") { RoutineKind::Procedure } else { RoutineKind::Function };
        t.pos += 1;
        if !t.eat("STATUS") {
            // SHOW PROCEDURE CODE and friends are debug-build only in MariaDB.
            return Ok(None);
        }
        ShowCommand::RoutineStatus { kind, filter: t.filter_and_end()? }
    } else {
        return Ok(None);
    };
    Ok(Some(cmd))
}

fn parse_show_create(t: &mut Tokens) -> Result<ShowCommand, SqlError> {
    if t.eat("DATABASE") || t.eat("SCHEMA") {
        let if_not_exists = if t.eat("IF") {
            t.expect("NOT")?;
            t.expect("EXISTS")?;
            true
        } else {
            false
        };
        let name = t.ident()?;
        t.finish()?;
        return Ok(ShowCommand::CreateDatabase { name, if_not_exists });
    }
    if t.eat("TABLE") {
        let table = t.table()?;
        t.finish()?;
        return Ok(ShowCommand::CreateTable { table });
    }
    if t.eat("VIEW") {
        let table = t.table()?;
        t.finish()?;
        return Ok(ShowCommand::CreateView { table });
    }
    if t.eat("SEQUENCE") {
        let table = t.table()?;
        t.finish()?;
        return Ok(ShowCommand::CreateSequence { table });
    }
    for kind in ["PROCEDURE", "FUNCTION", "TRIGGER", "EVENT"] {
        if t.eat(kind) {
            let name = t.table()?;
            t.finish()?;
            let name = match name.db {
                Some(db) => format!("{db}.{}", name.name),
                None => name.name,
            };
            return Ok(ShowCommand::CreateMissingObject { kind, name });
        }
    }
    Err(t.error())
}

/// `user@host`, `'user'@'host'`, `` `user`@`host` ``, `CURRENT_USER[()]` (→ None).
fn parse_account(t: &mut Tokens) -> Result<Option<(String, String)>, SqlError> {
    if t.eat("CURRENT_USER") {
        if t.eat_token(&Token::LParen) && !t.eat_token(&Token::RParen) {
            return Err(t.error());
        }
        return Ok(None);
    }
    let user = match t.peek() {
        Some(Token::Word(w)) if w.quote_style.is_none() && w.value.contains('@') => {
            let (u, h) = w.value.split_once('@').unwrap_or((&w.value, "%"));
            let out = (u.to_string(), h.to_string());
            t.pos += 1;
            return Ok(Some(out));
        }
        Some(Token::Word(_)) => t.ident()?,
        _ => t.string()?,
    };
    let host = if t.eat_token(&Token::AtSign) {
        match t.peek() {
            Some(Token::Word(_)) => t.ident()?,
            _ => t.string()?,
        }
    } else {
        "%".to_string()
    };
    Ok(Some((user, host)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::parser::Parser;

    fn text(sql: &str) -> ShowCommand {
        parse_text(sql).unwrap_or_else(|e| panic!("{sql}: {e}")).unwrap_or_else(|| panic!("{sql}: not claimed"))
    }

    fn ast(sql: &str) -> Result<ShowCommand, SqlError> {
        let stmts = Parser::parse_sql(&MySqlDialect {}, sql).unwrap();
        ShowCommand::from_statement(&stmts[0])
    }

    fn tn(db: Option<&str>, name: &str) -> TableName {
        TableName { db: db.map(Into::into), name: name.into() }
    }

    #[test]
    fn text_forms() {
        assert_eq!(text("SHOW INDEX FROM t"), ShowCommand::Index { table: tn(None, "t"), filter: None });
        assert_eq!(text("show keys in t from db"), ShowCommand::Index { table: tn(Some("db"), "t"), filter: None });
        assert_eq!(text("SHOW INDEXES FROM db.t;"), ShowCommand::Index { table: tn(Some("db"), "t"), filter: None });
        assert!(matches!(
            text("SHOW INDEX FROM t WHERE Key_name = 'PRIMARY'"),
            ShowCommand::Index { filter: Some(Filter::Where(_)), .. }
        ));
        assert_eq!(
            text("SHOW TABLE STATUS FROM db LIKE 'sb%'"),
            ShowCommand::TableStatus { db: Some("db".into()), filter: Some(Filter::Like("sb%".into())) }
        );
        assert!(matches!(
            text("SHOW TABLE STATUS WHERE Name = 'x'"),
            ShowCommand::TableStatus { db: None, filter: Some(Filter::Where(_)) }
        ));
        assert_eq!(text("SHOW COUNT(*) WARNINGS"), ShowCommand::CountWarnings { errors_only: false });
        assert_eq!(text("show count(*) errors"), ShowCommand::CountWarnings { errors_only: true });
        assert_eq!(text("SHOW WARNINGS"), ShowCommand::Warnings { errors_only: false, offset: 0, count: u64::MAX });
        assert_eq!(text("SHOW WARNINGS LIMIT 10"), ShowCommand::Warnings { errors_only: false, offset: 0, count: 10 });
        assert_eq!(text("SHOW ERRORS LIMIT 2, 5"), ShowCommand::Warnings { errors_only: true, offset: 2, count: 5 });
        assert_eq!(
            text("SHOW WARNINGS LIMIT 5 OFFSET 2"),
            ShowCommand::Warnings { errors_only: false, offset: 2, count: 5 }
        );
        assert_eq!(
            text("SHOW CREATE DATABASE db"),
            ShowCommand::CreateDatabase { name: "db".into(), if_not_exists: false }
        );
        assert_eq!(
            text("SHOW CREATE SCHEMA IF NOT EXISTS `my db`"),
            ShowCommand::CreateDatabase { name: "my db".into(), if_not_exists: true }
        );
        assert_eq!(text("SHOW CREATE TABLE `a``b`.t"), ShowCommand::CreateTable { table: tn(Some("a`b"), "t") });
        assert_eq!(text("SHOW MASTER STATUS"), ShowCommand::MasterStatus);
        assert_eq!(text("SHOW BINLOG STATUS"), ShowCommand::MasterStatus);
        assert_eq!(text("SHOW SLAVE STATUS"), ShowCommand::SlaveStatus);
        assert_eq!(text("SHOW REPLICA 'conn' STATUS"), ShowCommand::SlaveStatus);
        assert_eq!(text("SHOW ALL SLAVES STATUS"), ShowCommand::SlaveStatus);
        assert_eq!(text("SHOW BINARY LOGS"), ShowCommand::BinaryLogs);
        assert_eq!(text("SHOW MASTER LOGS"), ShowCommand::BinaryLogs);
        assert_eq!(text("SHOW PLUGINS"), ShowCommand::Plugins);
        assert_eq!(text("SHOW ENGINES"), ShowCommand::Engines);
        assert_eq!(text("SHOW STORAGE ENGINES"), ShowCommand::Engines);
        assert_eq!(
            text("SHOW ENGINE InnoDB STATUS"),
            ShowCommand::EngineStatus { engine: "InnoDB".into(), mutex: false }
        );
        assert_eq!(
            text("SHOW ENGINE INNODB MUTEX"),
            ShowCommand::EngineStatus { engine: "INNODB".into(), mutex: true }
        );
        assert_eq!(text("SHOW GRANTS"), ShowCommand::Grants { account: None });
        assert_eq!(text("SHOW GRANTS FOR CURRENT_USER()"), ShowCommand::Grants { account: None });
        assert_eq!(
            text("SHOW GRANTS FOR 'root'@'localhost'"),
            ShowCommand::Grants { account: Some(("root".into(), "localhost".into())) }
        );
        assert_eq!(
            text("SHOW GRANTS FOR root@localhost"),
            ShowCommand::Grants { account: Some(("root".into(), "localhost".into())) }
        );
        assert_eq!(text("SHOW GRANTS FOR `app`"), ShowCommand::Grants { account: Some(("app".into(), "%".into())) });
        assert_eq!(
            text("SHOW TRIGGERS FROM db LIKE 't%'"),
            ShowCommand::Triggers { db: Some("db".into()), filter: Some(Filter::Like("t%".into())) }
        );
        assert_eq!(text("SHOW EVENTS"), ShowCommand::Events { db: None, filter: None });
        assert_eq!(
            text("SHOW FUNCTION STATUS LIKE 'f'"),
            ShowCommand::RoutineStatus { kind: RoutineKind::Function, filter: Some(Filter::Like("f".into())) }
        );
        assert_eq!(
            text("SHOW PROCEDURE STATUS"),
            ShowCommand::RoutineStatus { kind: RoutineKind::Procedure, filter: None }
        );
        assert_eq!(
            text("SHOW GLOBAL VARIABLES LIKE 'a%'"),
            ShowCommand::Variables { scope: VarScope::Global, filter: Some(Filter::Like("a%".into())) }
        );
        assert_eq!(text("SHOW LOCAL STATUS"), ShowCommand::Status { scope: VarScope::Session, filter: None });
        assert_eq!(text("SHOW STATUS"), ShowCommand::Status { scope: VarScope::Session, filter: None });
        assert_eq!(text("SHOW FULL PROCESSLIST"), ShowCommand::ProcessList { full: true });
        assert_eq!(
            text("SHOW FULL COLUMNS FROM t FROM db LIKE 'a%'"),
            ShowCommand::Columns { full: true, table: tn(Some("db"), "t"), filter: Some(Filter::Like("a%".into())) }
        );
        assert_eq!(
            text("SHOW FULL TABLES IN db"),
            ShowCommand::Tables { full: true, db: Some("db".into()), filter: None }
        );
        assert_eq!(
            text("SHOW CHARACTER SET LIKE 'utf8%'"),
            ShowCommand::CharacterSets { filter: Some(Filter::Like("utf8%".into())) }
        );
        assert_eq!(text("/* hint */ -- c\n SHOW ENGINES"), ShowCommand::Engines);
        assert_eq!(
            text("  show databases like 'x' ;"),
            ShowCommand::Databases { filter: Some(Filter::Like("x".into())) }
        );
        assert_eq!(text("DESCRIBE t"), ShowCommand::Columns { full: false, table: tn(None, "t"), filter: None });
        assert_eq!(
            text("DESC db.t id"),
            ShowCommand::Columns { full: false, table: tn(Some("db"), "t"), filter: Some(Filter::Like("id".into())) }
        );
        assert_eq!(
            text("explain t 'i%'"),
            ShowCommand::Columns { full: false, table: tn(None, "t"), filter: Some(Filter::Like("i%".into())) }
        );
        assert_eq!(
            text("DESC `select`"),
            ShowCommand::Columns { full: false, table: tn(None, "select"), filter: None }
        );
    }

    #[test]
    fn statements_that_are_not_ours_are_left_alone() {
        for sql in [
            "SELECT 1",
            "EXPLAIN SELECT * FROM t",
            "DESCRIBE SELECT 1",
            "EXPLAIN FORMAT=JSON SELECT 1",
            "EXPLAIN EXTENDED SELECT 1",
            "EXPLAIN t WHERE x",
            "SHOW PROFILES",
            "SHOW OPEN TABLES",
            "SHOW PROCEDURE CODE p",
            "",
            "show",
            "SHOWX TABLES",
            "/* SHOW */ SELECT 1",
            "-- SHOW TABLES",
        ] {
            assert_eq!(parse_text(sql).unwrap(), None, "{sql}");
        }
    }

    #[test]
    fn malformed_show_statements_are_syntax_errors() {
        for sql in [
            "SHOW TABLES FROM",
            "SHOW INDEX t",
            "SHOW INDEX FROM t LIKE 'x'",
            "SHOW WARNINGS LIMIT x",
            "SHOW COUNT(x) WARNINGS",
            "SHOW TABLE STATUS LIKE",
            "SHOW VARIABLES WHERE",
            "SHOW VARIABLES WHERE a = 1 garbage",
            "SHOW FULL DATABASES",
            "SHOW ENGINE InnoDB",
            "SHOW CREATE DATABASE IF EXISTS x",
            "SHOW GLOBAL TABLES",
        ] {
            let e = parse_text(sql).expect_err(sql);
            assert_eq!((e.code, e.state), (1064, "42000"), "{sql}");
        }
    }

    #[test]
    fn ast_forms() {
        assert_eq!(
            ast("SHOW DATABASES LIKE 'sb%'").unwrap(),
            ShowCommand::Databases { filter: Some(Filter::Like("sb%".into())) }
        );
        assert_eq!(
            ast("SHOW FULL TABLES FROM db").unwrap(),
            ShowCommand::Tables { full: true, db: Some("db".into()), filter: None }
        );
        assert_eq!(
            ast("SHOW COLUMNS FROM t FROM db").unwrap(),
            ShowCommand::Columns { full: false, table: tn(Some("db"), "t"), filter: None }
        );
        assert_eq!(
            ast("DESC db.t").unwrap(),
            ShowCommand::Columns { full: false, table: tn(Some("db"), "t"), filter: None }
        );
        assert_eq!(ast("SHOW CREATE TABLE db.t").unwrap(), ShowCommand::CreateTable { table: tn(Some("db"), "t") });
        assert_eq!(ast("SHOW GLOBAL STATUS").unwrap(), ShowCommand::Status { scope: VarScope::Global, filter: None });
        assert_eq!(ast("SHOW VARIABLES").unwrap(), ShowCommand::Variables { scope: VarScope::Session, filter: None });
        assert_eq!(ast("SHOW COLLATION").unwrap(), ShowCommand::Collations { filter: None });
        assert_eq!(ast("SHOW CHARSET").unwrap(), ShowCommand::CharacterSets { filter: None });
        // Catch-all forms whose identifiers carry everything work from the AST too...
        assert_eq!(
            ast("SHOW INDEX FROM t FROM db").unwrap(),
            ShowCommand::Index { table: tn(Some("db"), "t"), filter: None }
        );
        assert_eq!(
            ast("SHOW WARNINGS").unwrap(),
            ShowCommand::Warnings { errors_only: false, offset: 0, count: u64::MAX }
        );
        assert_eq!(ast("SHOW COUNT(*) WARNINGS").unwrap(), ShowCommand::CountWarnings { errors_only: false });
        assert_eq!(
            ast("SHOW ENGINE INNODB STATUS").unwrap(),
            ShowCommand::EngineStatus { engine: "INNODB".into(), mutex: false }
        );
        // ...but the ones sqlparser truncated are refused rather than run without their filter.
        assert_eq!(ast("SHOW TABLE STATUS LIKE 'sb%'").unwrap_err().code, 1064);
        assert_eq!(ast("SHOW WARNINGS LIMIT 1").unwrap_err().code, 1064);
        assert_eq!(ast("SELECT 1").unwrap_err().code, 1064);
        assert_eq!(ast("SHOW TRIGGERS").unwrap(), ShowCommand::Triggers { db: None, filter: None });
    }
}
