//! Statement classification for routing and caching, by a hand-written lexer (no full parse).
//!
//! The router calls `classify` on every COM_QUERY / COM_STMT_PREPARE text, so it must cost one
//! pass over the bytes; routing and cache invalidation act on its answer alone, which is why the
//! conventions below err on the side of "may write" and "not cacheable".
//!
//! How it works: `lexer` turns the bytes into tokens (comments skipped, executable comments
//! kept as code, literals as single tokens); `statement` dispatches on the leading keywords;
//! `scan` walks the rest of a statement once, tracking parenthesis depth and the clause it is
//! in, to find table names, function calls, locking clauses and variables; `words` holds the
//! keyword and built-in function tables. Everything is one forward pass: O(n), no allocation
//! except the table names and database/statement names it returns.
//!
//! Conventions the router and the cache rely on:
//! - **Invalidation.** `writes && tables.is_empty()` means "may have written any table": the
//!   cache invalidates everything (`CacheShared::invalidate(&[], ..)`). That is what CALL,
//!   EXECUTE, stored functions, GRANT/REVOKE, DROP DATABASE and unparseable writes produce.
//!   When `writes` is true and `tables` is not empty, the list is complete (a superset).
//! - **Caching.** `cacheable != NotSelect` implies `writes == false` and a complete table list.
//!   Statements with side effects or per-connection answers (GET_LOCK, NEXTVAL,
//!   LAST_INSERT_ID(), SELECT ... INTO, locking reads) are `NotSelect` even under
//!   assume_cacheable.
//! - **Transactions.** Begin/Commit/Rollback carry `Route::Write` (Begin READ ONLY carries
//!   `Route::Read`); COMMIT/ROLLBACK AND CHAIN are `Begin { read_only: false }` since a new
//!   transaction is open afterwards. `SET autocommit = <not a constant>` counts as 0.
//! - **Multi-statement texts** are `Write` + `multi_statement`; their tables, writes and pins
//!   are the union of the parts; their transaction effect is the state after the last part
//!   (conservatively: autocommit off or a transaction open wins); a session command among
//!   the parts sets `pins_primary` (only the primary saw it).
//! - **Ambiguous texts** are `Write`, invalidate-all, `NotSelect`, and hints do not send them
//!   to a replica: an executable comment that a server skipping it (a version it does not
//!   run) would end elsewhere, or a `\'` that NO_BACKSLASH_ESCAPES (invisible to the proxy)
//!   would read as the end of a literal, giving another valid text with another
//!   classification.
//! - **Hints.** `-- maxscale route to master` turns a Read into Write; `route to slave` turns
//!   a Write SELECT without side effects (e.g. one calling a stored function) into Read.
//!   `classify_with_hint` also returns `route to server NAME` / `route to last`, and
//!   `RoutingHint::LastUsed` for SHOW WARNINGS/ERRORS, GET DIAGNOSTICS and
//!   @@warning_count/@@error_count, which belong on the backend that ran the previous
//!   statement (their `route` is Write as a fallback).

mod lexer;
mod scan;
mod statement;
mod types;
mod words;

use smallvec::SmallVec;

use lexer::{LexHint, TokenKind, Tokens};
use statement::Outcome;
pub use types::{Cacheability, Route, TableRef, TxnEffect};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classification {
    pub route: Route,
    pub txn: TxnEffect,
    /// The statement keeps the session on the primary from now on: LAST_INSERT_ID(),
    /// FOUND_ROWS(), GET_LOCK()/RELEASE_LOCK(), CREATE TEMPORARY TABLE (MaxScale's rules).
    pub pins_primary: bool,
    /// SELECT ... FOR UPDATE / LOCK IN SHARE MODE / FOR SHARE.
    pub locking_read: bool,
    /// USE db / COM_INIT_DB equivalent: the new default database.
    pub use_database: Option<String>,
    /// Text PREPARE name FROM ... / DEALLOCATE PREPARE name: the statement name.
    pub text_prepare: Option<String>,
    pub cacheable: Cacheability,
    /// Tables read (SELECT) or written (INSERT/UPDATE/DELETE/REPLACE/DDL), for cache keys and
    /// invalidation. May be incomplete only when `route == Write`.
    pub tables: SmallVec<[TableRef; 2]>,
    /// True for statements that modify data or schema (cache invalidation of `tables`).
    pub writes: bool,
    /// Multiple statements in one COM_QUERY text (always routed to the primary).
    pub multi_statement: bool,
}

/// Classifies one statement text (bytes as sent by the client; not necessarily UTF-8).
/// Never panics; anything it cannot prove read-only is `Route::Write`.
pub fn classify(sql: &[u8]) -> Classification {
    classify_with_hint(sql).0
}

/// A routing instruction beyond `Route`: MaxScale hints in comments, and statements that
/// belong on the backend that ran the previous one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoutingHint {
    /// `maxscale route to master` (already applied to the classification's route).
    Master,
    /// `maxscale route to slave` (already applied where the statement is a side-effect-free
    /// query).
    Slave,
    /// `maxscale route to server NAME`: the named server.
    Server(String),
    /// `maxscale route to last`, SHOW WARNINGS / ERRORS, GET DIAGNOSTICS, @@warning_count:
    /// the backend that ran the previous statement.
    LastUsed,
}

/// `classify` plus the routing hint, if any.
pub fn classify_with_hint(sql: &[u8]) -> (Classification, Option<RoutingHint>) {
    let first = classify_text(sql, true);
    let mut c = first.classification;
    // Whether the server can only read the text the way it was classified.
    let mut unambiguous = !first.exec_comment_ambiguous;
    if first.backslash_quote_seen {
        // Under NO_BACKSLASH_ESCAPES (unknown to the proxy) `\'` ends the literal; if that
        // reading classifies differently, neither can be trusted. A reading that leaves a
        // literal open is a syntax error for the server: no risk there.
        let alternative = classify_text(sql, false);
        if !alternative.unterminated && alternative.classification != c {
            let alternative = alternative.classification;
            c.multi_statement |= alternative.multi_statement;
            c.pins_primary |= alternative.pins_primary;
            c.locking_read |= alternative.locking_read;
            unambiguous = false;
        }
    }
    if !unambiguous {
        make_conservative(&mut c);
    }
    let hint = match first.hint {
        Some(LexHint::Master) => {
            if c.route == Route::Read {
                c.route = Route::Write;
            }
            Some(RoutingHint::Master)
        }
        Some(LexHint::Slave) => {
            if unambiguous && first.hint_may_read && c.route == Route::Write && !c.multi_statement {
                c.route = Route::Read;
            }
            Some(RoutingHint::Slave)
        }
        Some(LexHint::Server(name)) => Some(RoutingHint::Server(String::from_utf8_lossy(name).into_owned())),
        Some(LexHint::Last) => Some(RoutingHint::LastUsed),
        None if first.last_used => Some(RoutingHint::LastUsed),
        None => None,
    };
    (c, hint)
}

/// The text of a text-protocol `PREPARE name FROM 'text'` (the literal unescaped), so that
/// the router can classify what a later `EXECUTE name` runs. None for `PREPARE name FROM
/// @var` and anything else.
pub fn prepared_statement_text(sql: &[u8]) -> Option<(String, Vec<u8>)> {
    let mut toks = Tokens::new(sql, true);
    if !toks.eat_word(b"prepare") {
        return None;
    }
    let name = toks.next();
    if !name.is_name() || !toks.eat_word(b"from") {
        return None;
    }
    let text = toks.next();
    if text.kind != TokenKind::Str || !toks.peek().ends_statement() {
        return None;
    }
    Some((scan::name_text(name), lexer::unquote_string(text.text)))
}

/// Routing or caching would be wrong if the server reads the text differently: primary,
/// invalidate everything, never cache. A session command that only the primary runs keeps
/// the session there.
fn make_conservative(c: &mut Classification) {
    if c.route == Route::Session {
        c.pins_primary = true;
    }
    c.route = Route::Write;
    c.writes = true;
    c.tables.clear();
    c.cacheable = Cacheability::NotSelect;
}

struct TextClassification<'a> {
    classification: Classification,
    hint: Option<LexHint<'a>>,
    hint_may_read: bool,
    last_used: bool,
    exec_comment_ambiguous: bool,
    backslash_quote_seen: bool,
    unterminated: bool,
}

fn classify_text(sql: &[u8], backslash_escapes: bool) -> TextClassification<'_> {
    let mut toks = Tokens::new(sql, backslash_escapes);
    let first = statement::statement(&mut toks);
    let (classification, hint_may_read, last_used) = if at_text_end(&mut toks) {
        let (may_read, last_used) = (first.hint_may_read, first.last_used);
        (single(first), may_read, last_used)
    } else {
        let mut parts = vec![first];
        loop {
            parts.push(statement::statement(&mut toks));
            if at_text_end(&mut toks) {
                break;
            }
        }
        (merge_parts(&parts), false, false)
    };
    let lexer = toks.lexer();
    TextClassification {
        classification,
        hint: lexer.hint,
        hint_may_read,
        last_used,
        exec_comment_ambiguous: lexer.exec_comment_ambiguous,
        backslash_quote_seen: lexer.backslash_quote_seen,
        unterminated: lexer.unterminated,
    }
}

/// Skips the rest of the current statement and its `;`; true when no statement follows.
/// Every call consumes at least up to the `;`, so classifying a text is linear.
fn at_text_end(toks: &mut Tokens<'_>) -> bool {
    toks.skip_statement();
    toks.next().kind == TokenKind::End || toks.peek().kind == TokenKind::End
}

fn single(o: Outcome) -> Classification {
    debug_assert!(!o.pins || o.route == Route::Write, "a pinning statement runs on the primary");
    debug_assert!(!o.locking || o.route == Route::Write);
    debug_assert!(o.cacheable == Cacheability::NotSelect || (!o.writes && o.route != Route::Session));
    debug_assert!(o.route != Route::Read || !o.writes);
    let mut tables = o.tables;
    if o.writes && o.tables_unknown {
        tables.clear();
    }
    Classification {
        route: o.route,
        txn: o.txn,
        pins_primary: o.pins,
        locking_read: o.locking,
        use_database: o.use_database,
        text_prepare: o.text_prepare,
        cacheable: o.cacheable,
        tables,
        writes: o.writes,
        multi_statement: false,
    }
}

/// Several statements in one text: all on the primary; see the module doc for the rules.
fn merge_parts(parts: &[Outcome]) -> Classification {
    debug_assert!(parts.len() > 1);
    let writes = parts.iter().any(|p| p.writes);
    let tables_unknown = parts.iter().any(|p| p.writes && p.tables_unknown);
    let mut tables: SmallVec<[TableRef; 2]> = SmallVec::new();
    if !(writes && tables_unknown) {
        for t in parts.iter().filter(|p| p.writes == writes).flat_map(|p| p.tables.iter()) {
            if !tables.contains(t) {
                tables.push(t.clone());
            }
        }
    }
    Classification {
        route: Route::Write,
        txn: merge_txn(parts.iter().map(|p| p.txn)),
        pins_primary: parts.iter().any(|p| p.pins || p.session_change),
        locking_read: parts.iter().any(|p| p.locking),
        use_database: parts.iter().rev().find_map(|p| p.use_database.clone()),
        text_prepare: parts.iter().rev().find_map(|p| p.text_prepare.clone()),
        cacheable: Cacheability::NotSelect,
        tables,
        writes,
        multi_statement: true,
    }
}

/// The transaction effect of a sequence of statements, as seen after the last one. Where
/// one effect cannot express the end state, the one that keeps the router on the primary
/// wins: autocommit turned off, then a transaction left open.
fn merge_txn(effects: impl Iterator<Item = TxnEffect>) -> TxnEffect {
    let mut autocommit = None;
    let mut open = None;
    let mut last_end = TxnEffect::None;
    for e in effects {
        match e {
            TxnEffect::Begin { .. } => open = Some(true),
            TxnEffect::Commit | TxnEffect::Rollback | TxnEffect::ImplicitCommit => {
                open = Some(false);
                last_end = e;
            }
            TxnEffect::SetAutocommit(on) => {
                autocommit = Some(on);
                if on {
                    open = Some(false);
                    last_end = TxnEffect::Commit;
                }
            }
            TxnEffect::None => {}
        }
    }
    match (autocommit, open) {
        (Some(false), _) => TxnEffect::SetAutocommit(false),
        // The transaction began on the primary, whatever its access mode.
        (_, Some(true)) => TxnEffect::Begin { read_only: false },
        (Some(true), _) => TxnEffect::SetAutocommit(true),
        (None, Some(false)) => last_end,
        (None, None) => TxnEffect::None,
    }
}
