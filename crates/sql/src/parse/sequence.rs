//! CREATE, ALTER and DROP SEQUENCE: MariaDB's options in any order (sqlparser knows only
//! PostgreSQL's fixed order, and mariadb-dump writes START before INCREMENT).

use super::{Cursor, SequenceOptions, Stmt, SyntaxError, Tok};
use crate::error;

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
fn once<T>(slot: &mut Option<T>, value: T, option: &str) -> Result<(), SyntaxError> {
    if slot.is_some() {
        return Err(SyntaxError(error::option_used_twice(option)));
    }
    *slot = Some(value);
    Ok(())
}

/// The sequence options up to the first word that is none of them; RESTART only for ALTER,
/// table options (ENGINE, COMMENT) only for CREATE. Returns how many options were read.
fn options(c: &mut Cursor, alter: bool) -> Result<(SequenceOptions, usize), SyntaxError> {
    let mut o = SequenceOptions::default();
    let mut count = 0;
    loop {
        if c.eat_word("INCREMENT") {
            if !c.eat_word("BY") {
                c.eat_sym('=');
            }
            once(&mut o.increment, signed_integer(c)?, "INCREMENT")?;
        } else if c.eat_word("MINVALUE") {
            c.eat_sym('=');
            once(&mut o.min, Some(signed_integer(c)?), "MINVALUE")?;
        } else if c.eat_word("NOMINVALUE") {
            once(&mut o.min, None, "MINVALUE")?;
        } else if c.eat_word("MAXVALUE") {
            c.eat_sym('=');
            once(&mut o.max, Some(signed_integer(c)?), "MAXVALUE")?;
        } else if c.eat_word("NOMAXVALUE") {
            once(&mut o.max, None, "MAXVALUE")?;
        } else if c.eat_word("NO") {
            // MariaDB has NO MINVALUE and NO MAXVALUE, not NO CACHE or NO CYCLE.
            if c.eat_word("MINVALUE") {
                once(&mut o.min, None, "MINVALUE")?;
            } else if c.eat_word("MAXVALUE") {
                once(&mut o.max, None, "MAXVALUE")?;
            } else {
                return Err(c.error());
            }
        } else if c.eat_word("START") {
            if !c.eat_word("WITH") {
                c.eat_sym('=');
            }
            once(&mut o.start, signed_integer(c)?, "START")?;
        } else if c.eat_word("CACHE") {
            c.eat_sym('=');
            let v = signed_integer(c)?;
            // A negative CACHE is out of range (4085) rather than a syntax error.
            once(&mut o.cache, u64::try_from(v).unwrap_or(u64::MAX), "CACHE")?;
        } else if c.eat_word("NOCACHE") {
            once(&mut o.cache, 0, "CACHE")?;
        } else if c.eat_word("CYCLE") {
            once(&mut o.cycle, true, "CYCLE")?;
        } else if c.eat_word("NOCYCLE") {
            once(&mut o.cycle, false, "CYCLE")?;
        } else if alter && c.eat_word("RESTART") {
            let value = if c.eat_word("WITH")
                || c.eat_sym('=')
                || matches!(c.peek(), Some(Tok::Num(_) | Tok::Sym('-' | '+')))
            {
                Some(signed_integer(c)?)
            } else {
                None
            };
            once(&mut o.restart, value, "RESTART")?;
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
pub(super) fn create(c: &mut Cursor) -> Result<Stmt, SyntaxError> {
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
    let (options, _) = options(c, false)?;
    c.end()?;
    Ok(Stmt::CreateSequence { or_replace, if_not_exists, db, name, options })
}

/// ALTER SEQUENCE [IF EXISTS] [db.]s options: at least one option (1064 otherwise, as MariaDB).
pub(super) fn alter(c: &mut Cursor) -> Result<Stmt, SyntaxError> {
    c.expect_word("SEQUENCE")?;
    let mut if_exists = false;
    if c.eat_word("IF") {
        c.expect_word("EXISTS")?;
        if_exists = true;
    }
    let (db, name) = qualified_name(c)?;
    let (options, count) = options(c, true)?;
    if count == 0 {
        return Err(c.error());
    }
    c.end()?;
    Ok(Stmt::AlterSequence { if_exists, db, name, options })
}

/// DROP SEQUENCE [IF EXISTS] [db.]s, ...
pub(super) fn drop(c: &mut Cursor) -> Result<Stmt, SyntaxError> {
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
