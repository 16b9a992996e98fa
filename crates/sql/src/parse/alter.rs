//! ALTER TABLE as MariaDB 10.11 spells it. sqlparser's ALTER TABLE lacks much of MariaDB's
//! grammar (table options, CONVERT TO CHARACTER SET, RENAME INDEX, IF [NOT] EXISTS on every
//! operation, NOCOPY, several columns in parentheses), so this drives sqlparser's parser by hand:
//! the operation list is parsed here, column definitions, index definitions and expressions by
//! sqlparser (so they mean what they mean in CREATE TABLE).

use super::dialect::MariaDbDialect;
use sqlparser::ast;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// `ALTER [ONLINE] [IGNORE] TABLE [IF EXISTS] name op [, op ...]`.
#[derive(Clone, Debug)]
pub struct AlterTable {
    pub name: ast::ObjectName,
    pub if_exists: bool,
    pub ops: Vec<AlterOp>,
}

/// `FIRST` or `AFTER col`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Position {
    First,
    After(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Default,
    Instant,
    Inplace,
    NoCopy,
    Copy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKind {
    Default,
    None,
    Shared,
    Exclusive,
}

#[derive(Clone, Debug)]
pub enum AlterOp {
    /// `ADD [COLUMN] [IF NOT EXISTS] def [FIRST|AFTER c]`, or several in parentheses (which may
    /// hold index definitions too, as `indexes`).
    AddColumns {
        if_not_exists: bool,
        columns: Vec<(ast::ColumnDef, Option<Position>)>,
        indexes: Vec<ast::TableConstraint>,
    },
    /// `ADD {INDEX|KEY|UNIQUE|PRIMARY KEY|CONSTRAINT ...} [IF NOT EXISTS] ...`.
    AddIndex {
        if_not_exists: bool,
        constraint: ast::TableConstraint,
    },
    DropColumn {
        if_exists: bool,
        name: String,
    },
    DropIndex {
        if_exists: bool,
        name: String,
    },
    DropPrimaryKey,
    DropForeignKey {
        name: String,
    },
    DropConstraint {
        if_exists: bool,
        name: String,
    },
    /// `MODIFY [COLUMN] [IF EXISTS] def` (`old` None) or `CHANGE [COLUMN] [IF EXISTS] old def`.
    Modify {
        if_exists: bool,
        old: Option<String>,
        column: ast::ColumnDef,
        position: Option<Position>,
    },
    RenameColumn {
        old: String,
        new: String,
    },
    RenameIndex {
        old: String,
        new: String,
    },
    SetDefault {
        column: String,
        default: ast::Expr,
    },
    DropDefault {
        column: String,
    },
    RenameTable(ast::ObjectName),
    /// `CONVERT TO CHARACTER SET cs [COLLATE c]`.
    Convert {
        charset: String,
        collation: Option<String>,
    },
    Engine(String),
    Charset(String),
    Collate(String),
    Comment(String),
    AutoIncrement(u64),
    Algorithm(Algorithm),
    Lock(LockKind),
    /// ALGORITHM= / LOCK= with a name MariaDB does not know: 1800 / 1801 when run.
    UnknownAlgorithm(String),
    UnknownLock(String),
    /// `FORCE`: rebuild the table.
    Force,
    /// `ORDER BY col [ASC|DESC], ...`: copy the table with its rows in that order.
    OrderBy(Vec<String>),
    /// ROW_FORMAT=, upper case ("DEFAULT" included).
    RowFormat(String),
    /// A table option with no meaning for Selkie's storage (STATS_PERSISTENT, CHECKSUM, ...),
    /// by its name in upper case: some make MariaDB copy a MyISAM/Aria/MEMORY table.
    StorageOption(String),
}

fn err_at(p: &Parser, expected: &str) -> ParserError {
    let t = p.peek_token();
    ParserError::ParserError(format!("Expected: {expected}, found: {} at {}", t.token, t.span.start))
}

/// Parses an ALTER TABLE statement (the text starts with ALTER). The caller turns an error into
/// MariaDB's 1064.
pub fn parse(text: &str, recursion_limit: usize) -> Result<AlterTable, ParserError> {
    let dialect = MariaDbDialect::new();
    let mut p = Parser::new(&dialect).with_recursion_limit(recursion_limit).try_with_sql(text)?;
    let at = parse_alter(&mut p)?;
    loop {
        match p.peek_token().token {
            Token::EOF => break,
            Token::SemiColon => {
                p.next_token();
            }
            _ => return Err(err_at(&p, "end of statement")),
        }
    }
    Ok(at)
}

fn parse_alter(p: &mut Parser) -> Result<AlterTable, ParserError> {
    p.expect_keyword_is(Keyword::ALTER)?;
    eat_word(p, "ONLINE");
    let _ = p.parse_keyword(Keyword::IGNORE);
    p.expect_keyword_is(Keyword::TABLE)?;
    let if_exists = p.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    let name = p.parse_object_name(false)?;
    if eat_word(p, "WAIT") {
        p.parse_literal_uint()?;
    } else {
        eat_word(p, "NOWAIT");
    }
    let mut ops = Vec::new();
    // A bare `ALTER TABLE t` is MariaDB's no-op (0 rows affected).
    if matches!(p.peek_token().token, Token::EOF | Token::SemiColon) {
        return Ok(AlterTable { name, if_exists, ops });
    }
    loop {
        // Table options may follow each other without commas.
        parse_op(p, &mut ops)?;
        if p.consume_token(&Token::Comma) {
            continue;
        }
        match p.peek_token().token {
            Token::EOF | Token::SemiColon => break,
            _ if matches!(ops.last(), Some(op) if is_table_option(op)) => continue,
            _ => return Err(err_at(p, "end of statement")),
        }
    }
    Ok(AlterTable { name, if_exists, ops })
}

fn is_table_option(op: &AlterOp) -> bool {
    matches!(
        op,
        AlterOp::Engine(_)
            | AlterOp::Charset(_)
            | AlterOp::Collate(_)
            | AlterOp::Comment(_)
            | AlterOp::AutoIncrement(_)
            | AlterOp::RowFormat(_)
            | AlterOp::StorageOption(_)
            | AlterOp::Algorithm(_)
            | AlterOp::Lock(_)
    )
}

fn ident(p: &mut Parser) -> Result<String, ParserError> {
    Ok(p.parse_identifier()?.value)
}

fn position(p: &mut Parser) -> Result<Option<Position>, ParserError> {
    if p.parse_keyword(Keyword::FIRST) {
        return Ok(Some(Position::First));
    }
    if p.parse_keyword(Keyword::AFTER) {
        return Ok(Some(Position::After(ident(p)?)));
    }
    Ok(None)
}

/// A name or a string (`CHARSET utf8mb4`, `CHARSET 'utf8mb4'`, `ENGINE = InnoDB`).
fn name_or_string(p: &mut Parser) -> Result<String, ParserError> {
    let t = p.next_token();
    match t.token {
        Token::Word(w) => Ok(w.value),
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Ok(s),
        _ => {
            p.prev_token();
            Err(err_at(p, "a name"))
        }
    }
}

/// Consumes the word `w` (any case) if it comes next.
fn eat_word(p: &mut Parser, w: &str) -> bool {
    if peek_word(p).is_some_and(|x| x.eq_ignore_ascii_case(w)) {
        p.next_token();
        return true;
    }
    false
}

fn optional_eq(p: &mut Parser) {
    let _ = p.consume_token(&Token::Eq);
}

/// A word that is not a keyword sqlparser knows (`NOCOPY`, `SHARED`, `ROW_FORMAT`, ...).
fn peek_word(p: &Parser) -> Option<String> {
    match p.peek_token().token {
        Token::Word(w) => Some(w.value.to_ascii_uppercase()),
        _ => None,
    }
}

fn parse_op(p: &mut Parser, ops: &mut Vec<AlterOp>) -> Result<(), ParserError> {
    let Some(word) = peek_word(p) else { return Err(err_at(p, "an ALTER TABLE operation")) };
    match word.as_str() {
        "ADD" => {
            p.next_token();
            ops.push(parse_add(p)?);
        }
        "DROP" => {
            p.next_token();
            ops.push(parse_drop(p)?);
        }
        "ORDER" => {
            p.next_token();
            p.expect_keyword_is(Keyword::BY)?;
            // The list takes every comma after it: MariaDB's grammar ends the statement there.
            let mut columns = Vec::new();
            loop {
                let mut name = ident(p)?;
                while p.consume_token(&Token::Period) {
                    name = ident(p)?;
                }
                let _ = p.parse_one_of_keywords(&[Keyword::ASC, Keyword::DESC]);
                columns.push(name);
                if !p.consume_token(&Token::Comma) {
                    break;
                }
            }
            ops.push(AlterOp::OrderBy(columns));
        }
        "MODIFY" => {
            p.next_token();
            let _ = p.parse_keyword(Keyword::COLUMN);
            let if_exists = p.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
            let column = p.parse_column_def()?;
            let position = position(p)?;
            ops.push(AlterOp::Modify { if_exists, old: None, column, position });
        }
        "CHANGE" => {
            p.next_token();
            let _ = p.parse_keyword(Keyword::COLUMN);
            let if_exists = p.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
            let old = ident(p)?;
            let column = p.parse_column_def()?;
            let position = position(p)?;
            ops.push(AlterOp::Modify { if_exists, old: Some(old), column, position });
        }
        "ALTER" => {
            p.next_token();
            let _ = p.parse_keyword(Keyword::COLUMN);
            let column = ident(p)?;
            if p.parse_keywords(&[Keyword::SET, Keyword::DEFAULT]) {
                ops.push(AlterOp::SetDefault { column, default: p.parse_expr()? });
            } else if p.parse_keywords(&[Keyword::DROP, Keyword::DEFAULT]) {
                ops.push(AlterOp::DropDefault { column });
            } else {
                return Err(err_at(p, "SET DEFAULT or DROP DEFAULT"));
            }
        }
        "RENAME" => {
            p.next_token();
            if p.parse_keyword(Keyword::COLUMN) {
                let old = ident(p)?;
                p.expect_keyword_is(Keyword::TO)?;
                ops.push(AlterOp::RenameColumn { old, new: ident(p)? });
            } else if p.parse_one_of_keywords(&[Keyword::INDEX, Keyword::KEY]).is_some() {
                let old = ident(p)?;
                p.expect_keyword_is(Keyword::TO)?;
                // PRIMARY is reserved: only a quoted `PRIMARY` is a name (and then 1280).
                if matches!(&p.peek_token().token, Token::Word(w) if w.keyword == Keyword::PRIMARY && w.quote_style.is_none())
                {
                    return Err(err_at(p, "an index name"));
                }
                ops.push(AlterOp::RenameIndex { old, new: ident(p)? });
            } else {
                let _ = p.parse_one_of_keywords(&[Keyword::TO, Keyword::AS]);
                ops.push(AlterOp::RenameTable(p.parse_object_name(false)?));
            }
        }
        "CONVERT" => {
            p.next_token();
            p.expect_keyword_is(Keyword::TO)?;
            if !p.parse_keyword(Keyword::CHARSET) {
                p.expect_keywords(&[Keyword::CHARACTER, Keyword::SET])?;
            }
            let charset = name_or_string(p)?;
            let collation = if p.parse_keyword(Keyword::COLLATE) { Some(name_or_string(p)?) } else { None };
            ops.push(AlterOp::Convert { charset, collation });
        }
        "FORCE" => {
            p.next_token();
            ops.push(AlterOp::Force);
        }
        "ALGORITHM" => {
            p.next_token();
            optional_eq(p);
            let a = match peek_word(p).as_deref() {
                Some("DEFAULT") => Algorithm::Default,
                Some("INSTANT") => Algorithm::Instant,
                Some("INPLACE") => Algorithm::Inplace,
                Some("NOCOPY") => Algorithm::NoCopy,
                Some("COPY") => Algorithm::Copy,
                Some(_) => {
                    ops.push(AlterOp::UnknownAlgorithm(ident(p)?));
                    return Ok(());
                }
                None => return Err(err_at(p, "an algorithm")),
            };
            p.next_token();
            ops.push(AlterOp::Algorithm(a));
        }
        "LOCK" => {
            p.next_token();
            optional_eq(p);
            let l = match peek_word(p).as_deref() {
                Some("DEFAULT") => LockKind::Default,
                Some("NONE") => LockKind::None,
                Some("SHARED") => LockKind::Shared,
                Some("EXCLUSIVE") => LockKind::Exclusive,
                Some(_) => {
                    ops.push(AlterOp::UnknownLock(ident(p)?));
                    return Ok(());
                }
                None => return Err(err_at(p, "a lock type")),
            };
            p.next_token();
            ops.push(AlterOp::Lock(l));
        }
        _ => ops.push(parse_table_option(p)?),
    }
    Ok(())
}

fn parse_table_option(p: &mut Parser) -> Result<AlterOp, ParserError> {
    let word = peek_word(p).unwrap_or_default();
    p.next_token();
    Ok(match word.as_str() {
        "ENGINE" => {
            optional_eq(p);
            AlterOp::Engine(name_or_string(p)?)
        }
        "AUTO_INCREMENT" => {
            optional_eq(p);
            AlterOp::AutoIncrement(p.parse_literal_uint()?)
        }
        "COMMENT" => {
            optional_eq(p);
            AlterOp::Comment(p.parse_literal_string()?)
        }
        "CHARSET" => {
            optional_eq(p);
            AlterOp::Charset(name_or_string(p)?)
        }
        "COLLATE" => {
            optional_eq(p);
            AlterOp::Collate(name_or_string(p)?)
        }
        "CHARACTER" => {
            p.expect_keyword_is(Keyword::SET)?;
            optional_eq(p);
            AlterOp::Charset(name_or_string(p)?)
        }
        "DEFAULT" => match peek_word(p).as_deref() {
            Some("CHARSET" | "CHARACTER" | "COLLATE") => parse_table_option(p)?,
            _ => return Err(err_at(p, "CHARACTER SET or COLLATE")),
        },
        "ROW_FORMAT" => {
            optional_eq(p);
            // MariaDB's grammar knows these words (a quoted name is a syntax error too).
            let format = peek_word(p).filter(|w| {
                matches!(w.as_str(), "DEFAULT" | "DYNAMIC" | "FIXED" | "COMPRESSED" | "REDUNDANT" | "COMPACT" | "PAGE")
            });
            let Some(format) = format else {
                return Err(err_at(p, "a row format"));
            };
            p.next_token();
            AlterOp::RowFormat(format)
        }
        // Options that describe InnoDB's storage: accepted, as CREATE TABLE accepts them.
        "KEY_BLOCK_SIZE"
        | "STATS_PERSISTENT"
        | "STATS_AUTO_RECALC"
        | "STATS_SAMPLE_PAGES"
        | "PACK_KEYS"
        | "CHECKSUM"
        | "DELAY_KEY_WRITE"
        | "AVG_ROW_LENGTH"
        | "MAX_ROWS"
        | "MIN_ROWS"
        | "PAGE_CHECKSUM"
        | "TRANSACTIONAL"
        | "PAGE_COMPRESSED"
        | "PAGE_COMPRESSION_LEVEL" => {
            optional_eq(p);
            p.next_token();
            AlterOp::StorageOption(word)
        }
        _ => {
            p.prev_token();
            return Err(err_at(p, "an ALTER TABLE operation"));
        }
    })
}

fn parse_add(p: &mut Parser) -> Result<AlterOp, ParserError> {
    if p.parse_keyword(Keyword::COLUMN) {
        return add_columns(p);
    }
    let if_not_exists_first = p.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let is_index = matches!(
        peek_word(p).as_deref(),
        Some("INDEX" | "KEY" | "UNIQUE" | "PRIMARY" | "CONSTRAINT" | "FOREIGN" | "FULLTEXT" | "SPATIAL" | "CHECK")
    );
    if !is_index {
        if if_not_exists_first {
            // Put the IF NOT EXISTS back for `add_columns`.
            for _ in 0..3 {
                p.prev_token();
            }
        }
        return add_columns(p);
    }
    // MariaDB's `ADD {INDEX|KEY|UNIQUE [KEY]} IF NOT EXISTS name (...)`: sqlparser does not know
    // the IF NOT EXISTS there, so the parser is moved past it and the constraint parsed from a
    // copy of the words before it.
    let mut skip = false;
    let mut read = 0;
    for _ in 0..4 {
        if p.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]) {
            skip = true;
            for _ in 0..3 {
                p.prev_token();
            }
            break;
        }
        if p.next_token().token == Token::EOF {
            break;
        }
        read += 1;
    }
    for _ in 0..read {
        p.prev_token();
    }
    let if_not_exists = if_not_exists_first || skip;
    let constraint = if skip {
        parse_constraint_skipping_if_not_exists(p)?
    } else {
        p.parse_optional_table_constraint()?.ok_or_else(|| err_at(p, "an index definition"))?
    };
    Ok(AlterOp::AddIndex { if_not_exists, constraint })
}

/// `INDEX IF NOT EXISTS name (...)` and the like: the keywords before IF are read here, and the
/// constraint is rebuilt from a text without the IF NOT EXISTS.
fn parse_constraint_skipping_if_not_exists(p: &mut Parser) -> Result<ast::TableConstraint, ParserError> {
    let mut head = String::new();
    loop {
        if p.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]) {
            break;
        }
        head.push_str(&p.next_token().token.to_string());
        head.push(' ');
    }
    // The rest of the definition: up to the comma or end at depth 0.
    let mut tail = String::new();
    let mut depth = 0i32;
    loop {
        let t = p.peek_token().token;
        match t {
            Token::EOF | Token::SemiColon => break,
            Token::Comma if depth == 0 => break,
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ => {}
        }
        tail.push_str(&p.next_token().token.to_string());
        tail.push(' ');
    }
    let dialect = MariaDbDialect::new();
    let mut sub = Parser::new(&dialect).try_with_sql(&format!("{head}{tail}"))?;
    sub.parse_optional_table_constraint()?.ok_or_else(|| err_at(p, "an index definition"))
}

fn add_columns(p: &mut Parser) -> Result<AlterOp, ParserError> {
    let if_not_exists = p.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    if p.consume_token(&Token::LParen) {
        let mut columns = Vec::new();
        let mut indexes = Vec::new();
        loop {
            if let Some(c) = p.parse_optional_table_constraint()? {
                indexes.push(c);
            } else {
                columns.push((p.parse_column_def()?, None));
            }
            if p.consume_token(&Token::Comma) {
                continue;
            }
            p.expect_token(&Token::RParen)?;
            break;
        }
        return Ok(AlterOp::AddColumns { if_not_exists, columns, indexes });
    }
    let def = p.parse_column_def()?;
    let pos = position(p)?;
    Ok(AlterOp::AddColumns { if_not_exists, columns: vec![(def, pos)], indexes: Vec::new() })
}

fn parse_drop(p: &mut Parser) -> Result<AlterOp, ParserError> {
    if p.parse_keywords(&[Keyword::PRIMARY, Keyword::KEY]) {
        return Ok(AlterOp::DropPrimaryKey);
    }
    if p.parse_keywords(&[Keyword::FOREIGN, Keyword::KEY]) {
        let _ = p.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
        return Ok(AlterOp::DropForeignKey { name: ident(p)? });
    }
    if p.parse_one_of_keywords(&[Keyword::INDEX, Keyword::KEY]).is_some() {
        let if_exists = p.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
        return Ok(AlterOp::DropIndex { if_exists, name: ident(p)? });
    }
    if p.parse_keyword(Keyword::CONSTRAINT) {
        let if_exists = p.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
        return Ok(AlterOp::DropConstraint { if_exists, name: ident(p)? });
    }
    let _ = p.parse_keyword(Keyword::COLUMN);
    let if_exists = p.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    // CHECK is reserved: MariaDB 10.11 has no DROP CHECK, and no unquoted column of that name.
    if peek_word(p).as_deref() == Some("CHECK")
        && matches!(p.peek_token().token, Token::Word(ref w) if w.quote_style.is_none())
    {
        return Err(err_at(p, "a column name"));
    }
    let name = ident(p)?;
    let _ = p.parse_one_of_keywords(&[Keyword::RESTRICT, Keyword::CASCADE]);
    Ok(AlterOp::DropColumn { if_exists, name })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(text: &str) -> Vec<AlterOp> {
        parse(text, 100).unwrap_or_else(|e| panic!("{text}: {e}")).ops
    }

    #[test]
    fn mariadb_forms_parse() {
        assert!(matches!(ops("ALTER TABLE t ADD COLUMN x INT FIRST")[..], [AlterOp::AddColumns { .. }]));
        assert!(matches!(
            &ops("alter table t add (a int, b int default 3, index(a))")[..],
            [AlterOp::AddColumns { columns, indexes, .. }] if columns.len() == 2 && indexes.len() == 1
        ));
        assert!(matches!(
            &ops("alter table t add index if not exists ix(a), add unique key if not exists u (b)")[..],
            [AlterOp::AddIndex { if_not_exists: true, .. }, AlterOp::AddIndex { if_not_exists: true, .. }]
        ));
        assert!(matches!(
            &ops("alter table t drop column if exists x, drop key k, drop primary key")[..],
            [AlterOp::DropColumn { if_exists: true, .. }, AlterOp::DropIndex { .. }, AlterOp::DropPrimaryKey]
        ));
        assert!(matches!(
            &ops("alter table t change b bb varchar(20) not null after a, modify column c int first")[..],
            [
                AlterOp::Modify { old: Some(_), position: Some(Position::After(_)), .. },
                AlterOp::Modify { old: None, position: Some(Position::First), .. }
            ]
        ));
        assert!(matches!(
            &ops("alter table t rename index a to b, rename column c to d, rename to u")[..],
            [AlterOp::RenameIndex { .. }, AlterOp::RenameColumn { .. }, AlterOp::RenameTable(_)]
        ));
        assert!(matches!(
            &ops("alter table t alter column c set default 4, alter d drop default")[..],
            [AlterOp::SetDefault { .. }, AlterOp::DropDefault { .. }]
        ));
        assert!(matches!(
            &ops(
                "ALTER TABLE t ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COMMENT='x' AUTO_INCREMENT=10 ROW_FORMAT=DYNAMIC"
            )[..],
            [
                AlterOp::Engine(_),
                AlterOp::Charset(_),
                AlterOp::Comment(_),
                AlterOp::AutoIncrement(10),
                AlterOp::RowFormat(_)
            ]
        ));
        assert!(matches!(
            &ops("alter table t convert to character set latin1 collate latin1_bin, algorithm=nocopy, lock=shared, force")[..],
            [AlterOp::Convert { collation: Some(_), .. }, AlterOp::Algorithm(Algorithm::NoCopy), AlterOp::Lock(LockKind::Shared), AlterOp::Force]
        ));
        assert!(parse("alter table if exists t add column x int", 100).unwrap().if_exists);
        assert!(matches!(
            &ops("alter table t add index ix(c), add unique(a), add primary key (b), add key if not exists k (c)")[..],
            [
                AlterOp::AddIndex { .. },
                AlterOp::AddIndex { .. },
                AlterOp::AddIndex { .. },
                AlterOp::AddIndex { if_not_exists: true, .. }
            ]
        ));
    }

    #[test]
    fn bad_text_is_an_error() {
        for t in
            ["alter table t add", "alter table t frobnicate", "alter table t drop column", "alter table t algorithm=1"]
        {
            assert!(parse(t, 100).is_err(), "{t}");
        }
        // An unknown name parses: running it is MariaDB's 1800 / 1801.
        let at = parse("alter table t algorithm=fast, lock=bogus", 100).unwrap();
        assert!(
            matches!(&at.ops[..], [AlterOp::UnknownAlgorithm(a), AlterOp::UnknownLock(l)] if a == "fast" && l == "bogus")
        );
    }
}
