//! One statement: dispatch on its leading keywords, then the body scanner where the body
//! matters. Each statement kind decides route, transaction effect, tables and cacheability
//! from what it is plus what the scan found.

use smallvec::SmallVec;

use super::lexer::{Token, TokenKind, Tokens};
use super::scan::{name_text, qualified_table, split_scope, BodyScan, Facts, FunctionCheck, ScanMode, VarScope};
use super::types::{Cacheability, Route, TableRef, TxnEffect};
use super::words::{
    lowercase_word, WordIndex, MAX_WORD_LEN, NONDET, PIN, PRIMARY, SEQUENCE_WRITE, SIDE_EFFECT, VOLATILE,
};

/// The classification of one statement, before multi-statement merging and hints.
#[derive(Clone, Debug)]
pub(crate) struct Outcome {
    pub route: Route,
    pub txn: TxnEffect,
    pub pins: bool,
    pub locking: bool,
    pub use_database: Option<String>,
    pub text_prepare: Option<String>,
    pub cacheable: Cacheability,
    pub tables: SmallVec<[TableRef; 2]>,
    pub writes: bool,
    /// Some written tables are not known: a cache must invalidate everything.
    pub tables_unknown: bool,
    /// A read-only-looking query (SELECT-like, no locking, INTO or side effects) that a
    /// `route to slave` hint may send to a replica even if it calls stored functions.
    pub hint_may_read: bool,
    /// Reads the previous statement's diagnostics (SHOW WARNINGS): belongs where that ran.
    pub last_used: bool,
    /// A session command (SET, USE, PREPARE...) whatever its final route.
    pub session_change: bool,
}

impl Outcome {
    fn new(route: Route) -> Outcome {
        Outcome {
            route,
            txn: TxnEffect::None,
            pins: false,
            locking: false,
            use_database: None,
            text_prepare: None,
            cacheable: Cacheability::NotSelect,
            tables: SmallVec::new(),
            writes: false,
            tables_unknown: false,
            hint_may_read: false,
            last_used: false,
            session_change: route == Route::Session,
        }
    }

    fn read() -> Outcome {
        Outcome::new(Route::Read)
    }

    fn write() -> Outcome {
        Outcome::new(Route::Write)
    }

    fn session() -> Outcome {
        Outcome::new(Route::Session)
    }

    fn txn(route: Route, txn: TxnEffect) -> Outcome {
        Outcome { txn, ..Outcome::new(route) }
    }

    /// Something that may modify anything: the primary, and invalidate every cached result.
    fn unknown_write() -> Outcome {
        Outcome { writes: true, tables_unknown: true, ..Outcome::write() }
    }

    /// DDL and friends: the primary, an implicit commit, the named tables invalidated (all of
    /// them when `tables` is None).
    fn implicit_commit(tables: Option<SmallVec<[TableRef; 2]>>) -> Outcome {
        let mut o = Outcome::txn(Route::Write, TxnEffect::ImplicitCommit);
        o.writes = true;
        match tables {
            Some(t) if !t.is_empty() => o.tables = t,
            _ => o.tables_unknown = true,
        }
        o
    }
}

/// The statement kinds, by leading keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Head {
    Select,
    Values,
    With,
    Show,
    Help,
    Insert,
    Update,
    Delete,
    Load,
    Do,
    /// CALL, EXECUTE, BINLOG: run statements the proxy cannot see.
    Opaque,
    /// Primary-only commands that change no table data (KILL, HANDLER, SAVEPOINT, ...).
    ServerCommand,
    Create,
    Alter,
    Drop,
    Rename,
    Truncate,
    Set,
    Use,
    Prepare,
    Deallocate,
    Begin,
    Start,
    Commit,
    Rollback,
    Xa,
    Lock,
    /// FLUSH, RESET, CHANGE MASTER, CACHE INDEX, STOP SLAVE.
    CommitsImplicitly,
    Check,
    Checksum,
    /// OPTIMIZE / REPAIR TABLE: may rewrite the table's rows.
    Rebuild,
    /// GRANT / REVOKE.
    Privileges,
    /// GET DIAGNOSTICS.
    Get,
    /// ANALYZE TABLE, or MariaDB's ANALYZE stmt (runs stmt, returns its plan).
    Analyze,
    /// EXPLAIN / DESCRIBE / DESC.
    Explain,
}

static HEAD_INDEX: WordIndex<Head, 128> = WordIndex::new(HEADS);

/// Leading keywords (sorted for reading; looked up through `HEAD_INDEX`).
static HEADS: &[(&[u8], Head)] = &[
    (b"alter", Head::Alter),
    (b"analyze", Head::Analyze),
    (b"backup", Head::ServerCommand),
    (b"begin", Head::Begin),
    (b"binlog", Head::Opaque),
    (b"cache", Head::CommitsImplicitly),
    (b"call", Head::Opaque),
    (b"change", Head::CommitsImplicitly),
    (b"check", Head::Check),
    (b"checksum", Head::Checksum),
    (b"commit", Head::Commit),
    (b"create", Head::Create),
    (b"deallocate", Head::Deallocate),
    (b"delete", Head::Delete),
    (b"desc", Head::Explain),
    (b"describe", Head::Explain),
    (b"do", Head::Do),
    (b"drop", Head::Drop),
    (b"execute", Head::Opaque),
    (b"explain", Head::Explain),
    (b"flush", Head::CommitsImplicitly),
    (b"get", Head::Get),
    (b"grant", Head::Privileges),
    (b"handler", Head::ServerCommand),
    (b"help", Head::Help),
    (b"insert", Head::Insert),
    (b"install", Head::ServerCommand),
    (b"kill", Head::ServerCommand),
    (b"load", Head::Load),
    (b"lock", Head::Lock),
    (b"optimize", Head::Rebuild),
    (b"prepare", Head::Prepare),
    (b"purge", Head::ServerCommand),
    (b"release", Head::ServerCommand),
    (b"rename", Head::Rename),
    (b"repair", Head::Rebuild),
    (b"replace", Head::Insert),
    (b"reset", Head::CommitsImplicitly),
    (b"resignal", Head::ServerCommand),
    (b"revoke", Head::Privileges),
    (b"rollback", Head::Rollback),
    (b"savepoint", Head::ServerCommand),
    (b"select", Head::Select),
    (b"set", Head::Set),
    (b"show", Head::Show),
    (b"shutdown", Head::ServerCommand),
    (b"signal", Head::ServerCommand),
    (b"start", Head::Start),
    (b"stop", Head::CommitsImplicitly),
    (b"truncate", Head::Truncate),
    (b"uninstall", Head::ServerCommand),
    (b"unlock", Head::ServerCommand),
    (b"update", Head::Update),
    (b"use", Head::Use),
    (b"values", Head::Values),
    (b"with", Head::With),
    (b"xa", Head::Xa),
];

/// Classifies the statement at the head of `toks`; leaves the rest of the statement (up to
/// `;` or the end) for the caller to skip.
pub(crate) fn statement(toks: &mut Tokens<'_>) -> Outcome {
    // Prefixes that wrap another statement: ANALYZE stmt / EXPLAIN ANALYZE stmt (run it and
    // return a plan) and SET STATEMENT ... FOR stmt. Each consumes tokens, so this is linear.
    let mut plan_only = false;
    let mut out = loop {
        let first = toks.peek();
        if first.ends_statement() {
            // An empty statement: the server answers with an error.
            return Outcome::write();
        }
        if first.is_punct(b'(') {
            break select_like(toks, ScanMode::expression());
        }
        let head = if first.kind == TokenKind::Word { HEAD_INDEX.get(first.text) } else { None };
        let Some(head) = head else { break Outcome::unknown_write() };
        toks.next();
        match head {
            Head::Analyze => {
                skip_format_option(toks);
                if is_admin_table_target(toks.peek()) {
                    break admin_table(toks, true, false);
                }
                plan_only = true;
            }
            Head::Explain => {
                skip_explain_options(toks);
                if !toks.eat_word(b"analyze") {
                    break explain(toks);
                }
                plan_only = true;
            }
            Head::Set if toks.peek().is_word(b"statement") => {
                toks.next();
                if !skip_to_top_level_for(toks) {
                    break Outcome::unknown_write();
                }
            }
            _ => break dispatch(head, toks),
        }
    };
    if plan_only {
        out.cacheable = Cacheability::NotSelect;
    }
    out
}

fn dispatch(head: Head, toks: &mut Tokens<'_>) -> Outcome {
    match head {
        Head::Select => {
            let mut scan = BodyScan::new(ScanMode::expression());
            scan.facts.select_seen = true;
            scan.run(toks);
            select_outcome(scan.facts)
        }
        Head::Values => select_like(toks, ScanMode::expression()),
        Head::With => select_like(toks, ScanMode { start_in_cte_list: true, ..ScanMode::expression() }),
        Head::Show => show(toks),
        Head::Help => Outcome::read(),
        Head::Insert => insert(toks),
        Head::Update => update(toks),
        Head::Delete => delete(toks),
        Head::Load => load(toks),
        Head::Do => do_statement(toks),
        // CALL and EXECUTE run statements the proxy cannot see; BINLOG replays events.
        Head::Opaque => Outcome::unknown_write(),
        Head::ServerCommand => Outcome::write(),
        Head::Create => create(toks),
        Head::Alter => alter(toks),
        Head::Drop => drop_statement(toks),
        Head::Rename => rename(toks),
        Head::Truncate => {
            toks.eat_word(b"table");
            Outcome::implicit_commit(one_table(toks))
        }
        Head::Set => set(toks),
        Head::Use => use_database(toks),
        Head::Prepare => prepared_statement_name(toks),
        Head::Deallocate => {
            toks.eat_word(b"prepare");
            prepared_statement_name(toks)
        }
        Head::Begin => begin(toks),
        Head::Start => start(toks),
        Head::Commit => end_transaction(toks, TxnEffect::Commit),
        Head::Rollback => end_transaction(toks, TxnEffect::Rollback),
        Head::Xa => xa(toks),
        Head::Lock => {
            if toks.eat_word(b"tables") || toks.eat_word(b"table") {
                // Later statements may only use the locked tables, which are on the primary.
                Outcome { pins: true, ..Outcome::txn(Route::Write, TxnEffect::ImplicitCommit) }
            } else {
                Outcome::write()
            }
        }
        Head::CommitsImplicitly => Outcome::txn(Route::Write, TxnEffect::ImplicitCommit),
        Head::Check => admin_table(toks, true, false),
        Head::Checksum => admin_table(toks, false, false),
        Head::Rebuild => admin_table(toks, true, true),
        // Privilege changes: cached results were computed with the old privileges.
        Head::Privileges => Outcome::implicit_commit(None),
        Head::Get => Outcome { last_used: true, ..Outcome::write() },
        // Handled by `statement` (they prefix another statement).
        Head::Analyze | Head::Explain => Outcome::unknown_write(),
    }
}

fn select_like(toks: &mut Tokens<'_>, mode: ScanMode) -> Outcome {
    let mut scan = BodyScan::new(mode);
    scan.run(toks);
    select_outcome(scan.facts)
}

fn select_outcome(f: Facts) -> Outcome {
    let writes = f.unknown_function || f.has(SEQUENCE_WRITE) || f.dml_at_top;
    let pins = f.pins();
    let side_effects = f.locking || f.into || f.has(SIDE_EFFECT) || pins;
    let primary = writes || side_effects || f.has(PRIMARY) || f.last_used;
    let mut o = if primary { Outcome::write() } else { Outcome::read() };
    o.pins = pins;
    o.locking = f.locking;
    o.last_used = f.last_used;
    o.writes = writes;
    o.hint_may_read = !side_effects && !f.dml_at_top && !f.has(SEQUENCE_WRITE) && !f.last_used;
    o.cacheable = if writes || side_effects || f.read_tables_incomplete {
        Cacheability::NotSelect
    } else if f.has(NONDET | VOLATILE | PRIMARY) {
        Cacheability::NonDeterministic
    } else {
        Cacheability::Cacheable
    };
    if writes {
        o.tables_unknown = f.unknown_function || f.dml_at_top || f.write_tables_incomplete;
        o.tables = f.write_tables;
    } else {
        o.tables = f.read_tables;
    }
    o
}

/// INSERT / UPDATE / DELETE / REPLACE after their heads: writes `targets` plus the tables the
/// scan found written.
fn dml_outcome(f: Facts, targets: SmallVec<[TableRef; 2]>, target_known: bool) -> Outcome {
    let mut o = Outcome::write();
    o.writes = true;
    o.pins = f.pins();
    o.tables = targets;
    for t in f.write_tables {
        if !o.tables.contains(&t) {
            o.tables.push(t);
        }
    }
    // A stored function may write any table.
    o.tables_unknown = !target_known || f.unknown_function || f.write_tables_incomplete || o.tables.is_empty();
    o
}

fn show(toks: &mut Tokens<'_>) -> Outcome {
    while toks.eat_word(b"full") || toks.eat_word(b"global") || toks.eat_word(b"session") || toks.eat_word(b"extended")
    {
    }
    let what = toks.peek();
    let mut buf = [0u8; MAX_WORD_LEN];
    let word = if what.kind == TokenKind::Word { lowercase_word(what.text, &mut buf) } else { None };
    match word {
        // The previous statement's diagnostics: wherever it ran.
        Some(b"warnings" | b"errors" | b"count") => Outcome { last_used: true, ..Outcome::write() },
        // State of one server (replication, processes, engines): the primary's.
        Some(
            b"master" | b"binlog" | b"binary" | b"slave" | b"replica" | b"all" | b"relaylog" | b"processlist"
            | b"engine" | b"profile" | b"profiles",
        ) => Outcome::write(),
        _ => Outcome::read(),
    }
}

fn skip_format_option(toks: &mut Tokens<'_>) {
    if toks.eat_word(b"format") {
        toks.eat_punct(b'=');
        toks.next();
    }
}

fn skip_explain_options(toks: &mut Tokens<'_>) {
    loop {
        if toks.eat_word(b"extended") || toks.eat_word(b"partitions") {
            continue;
        }
        if toks.peek().is_word(b"format") {
            skip_format_option(toks);
            continue;
        }
        return;
    }
}

/// EXPLAIN / DESCRIBE after its options: plans and table descriptions are reads; an EXPLAIN
/// of a write does not run it, but goes to the primary all the same (its plan is the
/// primary's concern, and nothing is gained by proving it harmless).
fn explain(toks: &mut Tokens<'_>) -> Outcome {
    let next = toks.peek();
    if next.is_punct(b'(') || next.is_word(b"select") || next.is_word(b"with") || next.is_word(b"values") {
        return Outcome::read();
    }
    if next.is_word(b"insert")
        || next.is_word(b"update")
        || next.is_word(b"delete")
        || next.is_word(b"replace")
        || next.is_word(b"for")
    {
        return Outcome::write();
    }
    if next.is_name() {
        return Outcome::read();
    }
    Outcome::write()
}

fn insert(toks: &mut Tokens<'_>) -> Outcome {
    while toks.eat_word(b"low_priority")
        || toks.eat_word(b"delayed")
        || toks.eat_word(b"high_priority")
        || toks.eat_word(b"ignore")
    {}
    toks.eat_word(b"into");
    let first = toks.next();
    let target = if first.is_name() { qualified_table(first, toks) } else { None };
    let mut scan = BodyScan::new(ScanMode::expression());
    scan.run(toks);
    let known = target.is_some();
    dml_outcome(scan.facts, target.into_iter().collect(), known)
}

fn update(toks: &mut Tokens<'_>) -> Outcome {
    while toks.eat_word(b"low_priority") || toks.eat_word(b"ignore") {}
    let mut scan = BodyScan::new(ScanMode { writes_at_top: true, start_in_table_list: true, ..ScanMode::expression() });
    scan.run(toks);
    dml_outcome(scan.facts, SmallVec::new(), true)
}

fn delete(toks: &mut Tokens<'_>) -> Outcome {
    while toks.eat_word(b"low_priority") || toks.eat_word(b"quick") || toks.eat_word(b"ignore") {}
    // DELETE HISTORY (system-versioned tables) deletes history rows of the FROM table.
    toks.eat_word(b"history");
    let multi_table_list = !toks.peek().is_word(b"from");
    let mut scan = BodyScan::new(ScanMode {
        writes_at_top: true,
        start_in_table_list: multi_table_list,
        ..ScanMode::expression()
    });
    scan.run(toks);
    dml_outcome(scan.facts, SmallVec::new(), true)
}

/// LOAD DATA|XML ... INTO TABLE t; LOAD INDEX INTO CACHE.
fn load(toks: &mut Tokens<'_>) -> Outcome {
    if toks.eat_word(b"index") {
        return Outcome::txn(Route::Write, TxnEffect::ImplicitCommit);
    }
    loop {
        let t = toks.next();
        if t.ends_statement() {
            return Outcome::unknown_write();
        }
        if t.is_word(b"into") && toks.eat_word(b"table") {
            let mut o = Outcome::write();
            o.writes = true;
            match one_table(toks) {
                Some(tables) => o.tables = tables,
                None => o.tables_unknown = true,
            }
            return o;
        }
    }
}

fn do_statement(toks: &mut Tokens<'_>) -> Outcome {
    let mut scan = BodyScan::new(ScanMode::expression());
    scan.run(toks);
    let f = scan.facts;
    let mut o = Outcome::write();
    o.pins = f.pins();
    o.writes = f.unknown_function || f.has(SEQUENCE_WRITE);
    o.tables_unknown = f.unknown_function || f.write_tables_incomplete;
    o.tables = f.write_tables;
    o
}

/// One table name (`t` or `db.t`) as the next tokens.
fn one_table(toks: &mut Tokens<'_>) -> Option<SmallVec<[TableRef; 2]>> {
    let first = toks.next();
    if !first.is_name() {
        return None;
    }
    qualified_table(first, toks).map(|t| std::iter::once(t).collect())
}

/// `a, b` or `a TO b, c TO d` (RENAME): every name, or None if one is not a name.
fn table_list(toks: &mut Tokens<'_>) -> Option<SmallVec<[TableRef; 2]>> {
    let mut out = SmallVec::new();
    loop {
        let t = toks.next();
        if !t.is_name() {
            return None;
        }
        let table = qualified_table(t, toks)?;
        if !out.contains(&table) {
            out.push(table);
        }
        if !(toks.eat_punct(b',') || toks.eat_word(b"to")) {
            return Some(out);
        }
    }
}

fn skip_if_exists(toks: &mut Tokens<'_>) {
    if toks.eat_word(b"if") {
        toks.eat_word(b"not");
        toks.eat_word(b"exists");
    }
}

/// `DEFINER = user`: 'u'@'h', u@h, CURRENT_USER[()], CURRENT_ROLE[()].
fn skip_definer(toks: &mut Tokens<'_>) {
    toks.eat_punct(b'=');
    toks.next();
    if toks.peek().kind == TokenKind::UserVar {
        toks.next();
    }
    if toks.eat_punct(b'(') {
        toks.eat_punct(b')');
    }
}

/// Modifiers between CREATE/ALTER and the object kind. Returns whether TEMPORARY was seen.
fn skip_object_modifiers(toks: &mut Tokens<'_>) -> bool {
    let mut temporary = false;
    loop {
        let t = toks.peek();
        if t.is_word(b"or") {
            toks.next();
            toks.eat_word(b"replace");
        } else if t.is_word(b"temporary") {
            toks.next();
            temporary = true;
        } else if t.is_word(b"definer") {
            toks.next();
            skip_definer(toks);
        } else if t.is_word(b"algorithm") {
            toks.next();
            toks.eat_punct(b'=');
            toks.next();
        } else if t.is_word(b"sql") {
            toks.next();
            toks.eat_word(b"security");
            toks.next();
        } else if ["unique", "fulltext", "spatial", "aggregate", "online", "offline", "ignore"]
            .iter()
            .any(|w| t.is_word(w.as_bytes()))
        {
            toks.next();
        } else {
            return temporary;
        }
    }
}

fn create(toks: &mut Tokens<'_>) -> Outcome {
    let temporary = skip_object_modifiers(toks);
    let kind = toks.next();
    if kind.is_word(b"table") {
        skip_if_exists(toks);
        let Some(mut tables) = one_table(toks) else { return Outcome::implicit_commit(None) };
        // CREATE TABLE ... SELECT runs its query: a stored function there may write anything.
        let mut scan = BodyScan::new(ScanMode { functions: FunctionCheck::AfterSelect, ..ScanMode::expression() });
        scan.run(toks);
        let f = scan.facts;
        for t in f.write_tables.iter() {
            if !tables.contains(t) {
                tables.push(t.clone());
            }
        }
        let unknown = f.unknown_function || f.write_tables_incomplete;
        let mut o = Outcome::implicit_commit(if unknown { None } else { Some(tables) });
        if temporary {
            // A temporary table exists on the primary's connection only (MaxScale's rule).
            o.txn = TxnEffect::None;
            o.pins = true;
        }
        return o;
    }
    if kind.is_word(b"view") || kind.is_word(b"sequence") {
        skip_if_exists(toks);
        return Outcome::implicit_commit(one_table(toks));
    }
    if kind.is_word(b"index") {
        skip_if_exists(toks);
        return Outcome::implicit_commit(index_table(toks));
    }
    Outcome::implicit_commit(None)
}

/// `[index_name] [USING type] ON table`: the table.
fn index_table(toks: &mut Tokens<'_>) -> Option<SmallVec<[TableRef; 2]>> {
    loop {
        let t = toks.next();
        if t.ends_statement() {
            return None;
        }
        if t.is_word(b"on") {
            return one_table(toks);
        }
    }
}

fn drop_statement(toks: &mut Tokens<'_>) -> Outcome {
    let temporary = toks.eat_word(b"temporary");
    let kind = toks.next();
    if kind.is_word(b"prepare") {
        return prepared_statement_name(toks);
    }
    let tables =
        if kind.is_word(b"table") || kind.is_word(b"tables") || kind.is_word(b"view") || kind.is_word(b"sequence") {
            skip_if_exists(toks);
            table_list(toks)
        } else if kind.is_word(b"index") {
            while toks.eat_word(b"online") || toks.eat_word(b"offline") {}
            skip_if_exists(toks);
            index_table(toks)
        } else {
            None
        };
    let mut o = Outcome::implicit_commit(tables);
    if temporary {
        o.txn = TxnEffect::None;
    }
    o
}

fn alter(toks: &mut Tokens<'_>) -> Outcome {
    skip_object_modifiers(toks);
    let kind = toks.next();
    if kind.is_word(b"table") {
        skip_if_exists(toks);
        let Some(mut tables) = one_table(toks) else { return Outcome::implicit_commit(None) };
        // ALTER TABLE t ... RENAME [TO|AS] u: both names change meaning.
        let mut depth = 0usize;
        loop {
            let t = toks.next();
            if t.ends_statement() {
                break;
            }
            if t.is_punct(b'(') {
                depth += 1;
            } else if t.is_punct(b')') {
                depth = depth.saturating_sub(1);
            } else if depth == 0 && t.is_word(b"rename") {
                let what = toks.peek();
                if ["column", "index", "key", "constraint"].iter().any(|w| what.is_word(w.as_bytes())) {
                    continue;
                }
                let _ = toks.eat_word(b"to") || toks.eat_word(b"as");
                match one_table(toks) {
                    Some(new) => tables.extend(new),
                    None => return Outcome::implicit_commit(None),
                }
            }
        }
        return Outcome::implicit_commit(Some(tables));
    }
    if kind.is_word(b"view") || kind.is_word(b"sequence") {
        skip_if_exists(toks);
        return Outcome::implicit_commit(one_table(toks));
    }
    Outcome::implicit_commit(None)
}

fn rename(toks: &mut Tokens<'_>) -> Outcome {
    if toks.eat_word(b"table") || toks.eat_word(b"tables") {
        return Outcome::implicit_commit(table_list(toks));
    }
    Outcome::implicit_commit(None)
}

/// ANALYZE/CHECK/CHECKSUM/OPTIMIZE/REPAIR [NO_WRITE_TO_BINLOG|LOCAL] TABLE t, ...
fn admin_table(toks: &mut Tokens<'_>, commits: bool, writes: bool) -> Outcome {
    while toks.eat_word(b"no_write_to_binlog") || toks.eat_word(b"local") {}
    let _ = toks.eat_word(b"table") || toks.eat_word(b"tables") || toks.eat_word(b"view");
    let mut o = Outcome::txn(Route::Write, if commits { TxnEffect::ImplicitCommit } else { TxnEffect::None });
    if writes {
        o.writes = true;
        match table_list(toks) {
            Some(t) => o.tables = t,
            None => o.tables_unknown = true,
        }
    }
    o
}

fn is_admin_table_target(t: Token<'_>) -> bool {
    t.is_word(b"table") || t.is_word(b"tables") || t.is_word(b"no_write_to_binlog") || t.is_word(b"local")
}

/// Skips `var = value, ...` of SET STATEMENT up to its depth-0 FOR. False if there is none.
fn skip_to_top_level_for(toks: &mut Tokens<'_>) -> bool {
    let mut depth = 0usize;
    loop {
        let t = toks.next();
        if t.ends_statement() {
            return false;
        }
        if t.is_punct(b'(') {
            depth += 1;
        } else if t.is_punct(b')') {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && t.is_word(b"for") {
            return true;
        }
    }
}

/// SET: session variables (Session), global ones (Write), autocommit (its transaction
/// effect), and the special forms (NAMES, CHARACTER SET, TRANSACTION, PASSWORD, ROLE).
fn set(toks: &mut Tokens<'_>) -> Outcome {
    let first = toks.peek();
    let second = toks.peek2();
    if first.is_word(b"names") || first.is_word(b"charset") || (first.is_word(b"character") && second.is_word(b"set")) {
        return Outcome::session();
    }
    if first.is_word(b"role") || first.is_word(b"transaction") {
        return Outcome::session();
    }
    if first.is_word(b"password") {
        return Outcome::implicit_commit(None);
    }
    if first.is_word(b"default") && second.is_word(b"role") {
        return Outcome::unknown_write();
    }
    if second.is_word(b"transaction") {
        if first.is_word(b"global") {
            return Outcome::write();
        }
        if first.is_word(b"session") || first.is_word(b"local") {
            return Outcome::session();
        }
    }

    let mut scan = BodyScan::new(ScanMode { stop_at_top_comma: true, ..ScanMode::expression() });
    // A GLOBAL or SESSION keyword applies to the variables after it without their own.
    let mut keyword_global = false;
    let mut any_global = false;
    let mut autocommit = None;
    loop {
        let mut tok = toks.next();
        if tok.is_word(b"global") {
            keyword_global = true;
            tok = toks.next();
        } else if tok.is_word(b"session") || tok.is_word(b"local") {
            keyword_global = false;
            tok = toks.next();
        }
        let (is_autocommit, global) = match tok.kind {
            TokenKind::Word => {
                if toks.eat_punct(b'.') {
                    // A structured variable: `keycache1.key_buffer_size`.
                    toks.next();
                    (false, keyword_global)
                } else {
                    (tok.text.eq_ignore_ascii_case(b"autocommit"), keyword_global)
                }
            }
            TokenKind::QuotedIdent => (false, keyword_global),
            TokenKind::SysVar => {
                let (scope, name) = split_scope(tok.text);
                (name.eq_ignore_ascii_case(b"autocommit"), scope == Some(VarScope::Global))
            }
            TokenKind::UserVar => (false, false),
            // Not an assignment list the server accepts either.
            _ => return Outcome::unknown_write(),
        };
        if !(toks.eat_punct(b'=') || toks.peek().kind == TokenKind::Assign && toks.next().kind == TokenKind::Assign) {
            return Outcome::unknown_write();
        }
        any_global |= global;
        if is_autocommit && !global {
            // An expression we cannot evaluate counts as 0: the router then keeps everything
            // on the primary until the server's status flags say otherwise.
            autocommit = Some(boolean_value(toks).unwrap_or(false));
        }
        scan.run(toks);
        if !toks.eat_punct(b',') {
            break;
        }
    }
    let f = scan.facts;
    let mut o = if any_global { Outcome::write() } else { Outcome::session() };
    o.session_change = true;
    if let Some(on) = autocommit {
        o.txn = TxnEffect::SetAutocommit(on);
    }
    // A value that only the primary can compute, or that would come out different on each
    // backend (RAND(), a subquery on a lagging replica, a stored function), is computed once
    // on the primary, and the session stays there so that it sees that value.
    if f.unknown_function || f.select_seen || f.var_assign || f.has(VOLATILE | PRIMARY | PIN | SIDE_EFFECT) {
        o.route = Route::Write;
        o.pins = true;
    }
    if f.unknown_function || f.has(SEQUENCE_WRITE) {
        o.writes = true;
        o.tables = f.write_tables;
        o.tables_unknown = f.unknown_function || f.write_tables_incomplete;
    }
    o
}

/// 0/1/ON/OFF/TRUE/FALSE (bare or quoted) when it is the whole value; the value stays
/// unconsumed.
fn boolean_value(toks: &mut Tokens<'_>) -> Option<bool> {
    let value = toks.peek();
    let after = toks.peek2();
    if !(after.ends_statement() || after.is_punct(b',')) {
        return None;
    }
    let text: &[u8] = match value.kind {
        TokenKind::Number | TokenKind::Word => value.text,
        TokenKind::Str if value.text.len() >= 2 => &value.text[1..value.text.len() - 1],
        _ => return None,
    };
    let is = |w: &[u8]| text.eq_ignore_ascii_case(w);
    if is(b"1") || is(b"on") || is(b"true") {
        Some(true)
    } else if is(b"0") || is(b"off") || is(b"false") {
        Some(false)
    } else {
        None
    }
}

fn use_database(toks: &mut Tokens<'_>) -> Outcome {
    let db = toks.next();
    if !db.is_name() {
        return Outcome::write();
    }
    Outcome { use_database: Some(name_text(db)), ..Outcome::session() }
}

/// PREPARE name FROM ... / DEALLOCATE|DROP PREPARE name.
fn prepared_statement_name(toks: &mut Tokens<'_>) -> Outcome {
    let name = toks.next();
    if !name.is_name() {
        return Outcome::write();
    }
    Outcome { text_prepare: Some(name_text(name)), ..Outcome::session() }
}

fn begin(toks: &mut Tokens<'_>) -> Outcome {
    if toks.peek().is_word(b"not") && toks.peek2().is_word(b"atomic") {
        // BEGIN NOT ATOMIC ... END: an anonymous compound statement.
        return Outcome::unknown_write();
    }
    toks.eat_word(b"work");
    if toks.peek().ends_statement() {
        Outcome::txn(Route::Write, TxnEffect::Begin { read_only: false })
    } else {
        Outcome::write()
    }
}

fn start(toks: &mut Tokens<'_>) -> Outcome {
    if !toks.eat_word(b"transaction") {
        // START SLAVE / REPLICA / ALL SLAVES ...
        return Outcome::txn(Route::Write, TxnEffect::ImplicitCommit);
    }
    let (mut read_only, mut read_write) = (false, false);
    while !toks.peek().ends_statement() {
        if toks.eat_word(b"read") {
            if toks.eat_word(b"only") {
                read_only = true;
            } else if toks.eat_word(b"write") {
                read_write = true;
            } else {
                return Outcome::write();
            }
        } else if toks.eat_word(b"with") {
            if !(toks.eat_word(b"consistent") && toks.eat_word(b"snapshot")) {
                return Outcome::write();
            }
        } else {
            return Outcome::write();
        }
        if !toks.eat_punct(b',') && !toks.peek().ends_statement() {
            return Outcome::write();
        }
    }
    if read_only && read_write {
        // The server rejects it; nothing begins.
        return Outcome::write();
    }
    let route = if read_only { Route::Read } else { Route::Write };
    Outcome::txn(route, TxnEffect::Begin { read_only })
}

/// COMMIT / ROLLBACK [WORK] [AND [NO] CHAIN] [[NO] RELEASE]; ROLLBACK [WORK] TO [SAVEPOINT] x.
fn end_transaction(toks: &mut Tokens<'_>, effect: TxnEffect) -> Outcome {
    toks.eat_word(b"work");
    if effect == TxnEffect::Rollback && toks.peek().is_word(b"to") {
        return Outcome::write();
    }
    let mut chain = false;
    if toks.eat_word(b"and") {
        let no = toks.eat_word(b"no");
        if !toks.eat_word(b"chain") {
            return Outcome::write();
        }
        chain = !no;
    }
    toks.eat_word(b"no");
    toks.eat_word(b"release");
    if !toks.peek().ends_statement() {
        return Outcome::write();
    }
    // AND CHAIN ends the transaction and begins the next one at once: for the router, a
    // transaction is open afterwards (read-write, as the access mode carried over is unknown).
    Outcome::txn(Route::Write, if chain { TxnEffect::Begin { read_only: false } } else { effect })
}

fn xa(toks: &mut Tokens<'_>) -> Outcome {
    let t = toks.next();
    let effect = if t.is_word(b"start") || t.is_word(b"begin") {
        TxnEffect::Begin { read_only: false }
    } else if t.is_word(b"commit") {
        TxnEffect::Commit
    } else if t.is_word(b"rollback") {
        TxnEffect::Rollback
    } else {
        TxnEffect::None
    };
    Outcome::txn(Route::Write, effect)
}

#[cfg(test)]
mod tests {
    #[test]
    fn heads_are_sorted_unique_and_lowercase() {
        super::super::words::assert_word_table(super::HEADS);
    }
}
