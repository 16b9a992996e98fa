//! Always-on fuzzing of the classifier (the cargo-fuzz target in crates/proxy/fuzz/ runs the
//! same checks for longer):
//! - arbitrary bytes and mutated real statements never panic and always respect the contract
//!   invariants;
//! - random contents of string literals and comments never change the classification
//!   (nothing inside them is code);
//! - pathological inputs (deep nesting, huge texts) finish in linear time.
//!
//! `SELKIE_STRESS=1` runs many more cases.

use proptest::prelude::*;
use selkie_proxy::classifier::{classify, classify_with_hint, Cacheability, Classification, Route};

fn cases() -> u32 {
    if std::env::var_os("SELKIE_STRESS").is_some() {
        20_000
    } else {
        300
    }
}

/// Statement shapes with `{S}` where a string literal goes and `{C}` where a comment goes.
const TEMPLATES: &[&str] = &[
    "SELECT c FROM sbtest1 WHERE id={S}{C}",
    "SELECT {S}{C} FROM t WHERE a = {S}",
    "{C}SELECT * FROM t WHERE a LIKE {S} FOR UPDATE",
    "UPDATE t SET a = {S} {C}WHERE b = {S}",
    "INSERT INTO t (a, b) VALUES ({S}, {S}){C}",
    "SET NAMES {S}{C}",
    "SET autocommit = 0 {C}",
    "BEGIN{C}",
    "START TRANSACTION {C} READ ONLY",
    "SELECT * FROM t1 JOIN t2 ON t1.a = {S} {C} WHERE t2.b IN ({S}, {S})",
    "DELETE FROM t WHERE a = {S}; {C}",
    "SELECT CONCAT({S}, a) FROM t {C} LOCK IN SHARE MODE",
    "USE db{C}",
    "SELECT {S} {C}; SELECT 1",
    "CREATE TABLE t (a INT DEFAULT {S} {C})",
    "PREPARE s FROM {S}",
    "SELECT JSON_EXTRACT(doc, {S}) FROM t WHERE x = {S} {C}",
    "WITH c AS (SELECT {S} AS a {C}) SELECT * FROM c",
    "SELECT NOW(), {S} {C}",
    "SELECT LAST_INSERT_ID() {C}",
    "SET @a = {S}, sql_mode = {S} {C}",
    "COMMIT {C}",
    "{C}{C}SELECT a FROM db.t{C}WHERE b = {S}",
    "SELECT * FROM t WHERE a = {S} {C} UNION SELECT * FROM u WHERE b = {S}",
    "SHOW VARIABLES LIKE {S} {C}",
    "SELECT * FROM t WHERE a = {S} {C} FOR UPDATE",
];

/// A string literal with arbitrary content, escaped so that it is one literal in every
/// sql_mode (quotes doubled, backslashes doubled).
fn string_literal() -> impl Strategy<Value = Vec<u8>> {
    (prop::bool::ANY, prop::collection::vec(any::<u8>(), 0..40)).prop_map(|(double, content)| {
        let quote = if double { b'"' } else { b'\'' };
        let mut out = vec![quote];
        for b in content {
            if b == quote || b == b'\\' {
                out.push(b);
            }
            out.push(b);
        }
        out.push(quote);
        out
    })
}

/// A comment with arbitrary content that stays one comment (and is not a routing hint).
fn comment() -> impl Strategy<Value = Vec<u8>> {
    (0..3u8, prop::collection::vec(any::<u8>(), 0..40))
        .prop_filter("hints change routing on purpose", |(_, c)| {
            !String::from_utf8_lossy(c).to_ascii_lowercase().contains("maxscale")
        })
        .prop_map(|(kind, mut content)| match kind {
            0 => {
                // `/* ... */` must not contain its end; a space keeps it from being executable.
                while let Some(p) = content.windows(2).position(|w| w == b"*/") {
                    content.remove(p);
                }
                if content.last() == Some(&b'*') {
                    content.push(b' ');
                }
                [b"/* ".as_slice(), &content, b"*/"].concat()
            }
            1 => {
                content.retain(|&b| b != b'\n');
                [b"-- ".as_slice(), &content, b"\n"].concat()
            }
            _ => {
                content.retain(|&b| b != b'\n');
                [b"#".as_slice(), &content, b"\n"].concat()
            }
        })
}

fn fill(template: &str, literals: &[Vec<u8>], comments: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    let (mut s, mut c) = (0, 0);
    let mut rest = template.as_bytes();
    while !rest.is_empty() {
        if rest.starts_with(b"{S}") {
            out.extend_from_slice(&literals[s % literals.len()]);
            s += 1;
            rest = &rest[3..];
        } else if rest.starts_with(b"{C}") {
            out.extend_from_slice(&comments[c % comments.len()]);
            c += 1;
            rest = &rest[3..];
        } else {
            out.push(rest[0]);
            rest = &rest[1..];
        }
    }
    out
}

fn neutral(template: &str) -> Vec<u8> {
    fill(template, &[b"'x'".to_vec()], &[b" ".to_vec()])
}

/// The contract's invariants (see the classifier module doc).
fn check_invariants(sql: &[u8], c: &Classification, hinted: bool) {
    let shown = String::from_utf8_lossy(sql);
    if c.pins_primary || c.locking_read || c.multi_statement {
        assert_eq!(c.route, Route::Write, "{shown:?} -> {c:?}");
    }
    if c.cacheable != Cacheability::NotSelect {
        assert!(!c.writes, "{shown:?} -> {c:?}");
        assert_ne!(c.route, Route::Session, "{shown:?} -> {c:?}");
    }
    if c.route == Route::Read && !hinted {
        assert!(!c.writes, "{shown:?} -> {c:?}");
    }
}

fn classify_checked(sql: &[u8]) -> Classification {
    let (c, hint) = classify_with_hint(sql);
    check_invariants(sql, &c, hint.is_some());
    assert_eq!(classify(sql), c, "classification is a function of the text");
    c
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, u8),
    Remove(usize),
    Truncate(usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), prop::sample::select(b"'\"`;()/*-#\\@.,? \n!M".to_vec()))
            .prop_map(|(i, b)| Mutation::Insert(i, b)),
        any::<usize>().prop_map(Mutation::Remove),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Mutation::Duplicate(i, j)),
    ]
}

fn apply(sql: &mut Vec<u8>, m: &Mutation) {
    let n = sql.len();
    match *m {
        Mutation::Flip(i, b) if n > 0 => sql[i % n] = b,
        Mutation::Insert(i, b) => sql.insert(i % (n + 1), b),
        Mutation::Remove(i) if n > 0 => {
            sql.remove(i % n);
        }
        Mutation::Truncate(i) => sql.truncate(i % (n + 1)),
        Mutation::Duplicate(i, j) if n > 0 => {
            let (a, b) = ((i % n).min(j % n), (i % n).max(j % n));
            let piece = sql[a..=b].to_vec();
            sql.splice(b + 1..b + 1, piece);
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(sql in prop::collection::vec(any::<u8>(), 0..300)) {
        classify_checked(&sql);
    }

    #[test]
    fn sql_shaped_noise_never_panics(
        parts in prop::collection::vec(prop::sample::select(vec![
            "SELECT ", "FROM ", "t", ".", ",", "(", ")", "'", "\"", "`", "/*", "*/", "/*!", "/*M!40101 ",
            "-- ", "#", "\n", ";", "@", "@@", ":=", "?", "\\", "FOR ", "UPDATE ", "WITH ", "AS ", "JOIN ",
            "SET ", "autocommit", "=", "0", "BEGIN ", "INSERT INTO ", "NEXT VALUE FOR ", "f(", "maxscale route to slave",
        ]), 0..60)
    ) {
        classify_checked(parts.concat().as_bytes());
    }

    #[test]
    fn mutated_statements_never_panic(
        template in prop::sample::select(TEMPLATES.to_vec()),
        mutations in prop::collection::vec(mutation(), 1..8),
    ) {
        let mut sql = neutral(template);
        for m in &mutations {
            apply(&mut sql, m);
        }
        classify_checked(&sql);
    }

    #[test]
    fn literal_and_comment_contents_never_change_the_classification(
        template in prop::sample::select(TEMPLATES.to_vec()),
        literals in prop::collection::vec(string_literal(), 1..4),
        comments in prop::collection::vec(comment(), 1..4),
    ) {
        let want = classify_checked(&neutral(template));
        let sql = fill(template, &literals, &comments);
        let got = classify_checked(&sql);
        prop_assert_eq!(got, want, "{:?}", String::from_utf8_lossy(&sql));
    }
}

#[test]
fn deep_nesting_is_handled() {
    let depth = 20_000;
    let sql = format!("SELECT {}1{} FROM t", "(".repeat(depth), ")".repeat(depth));
    let c = classify_checked(sql.as_bytes());
    assert_eq!(c.route, Route::Read);
    // Nesting beyond what is tracked leaves the table list unproven: never cached.
    assert_eq!(c.cacheable, Cacheability::NotSelect);
    let sql = format!("SELECT * FROM {}t", "(".repeat(depth));
    classify_checked(sql.as_bytes());
    let sql = format!("UPDATE t SET a = {}1", ")".repeat(depth));
    let c = classify_checked(sql.as_bytes());
    assert!(c.writes && c.tables.is_empty(), "unbalanced: invalidate all");
}

#[test]
fn huge_statements_are_linear() {
    // Quadratic behaviour would not finish within the test budget at these sizes.
    let values = "(1, 'abc', \"d\\\"e\", 0x1F, @v), ".repeat(40_000);
    let sql = format!("INSERT INTO t VALUES {values}(2, 'x', 'y', 1, @w)");
    let c = classify_checked(sql.as_bytes());
    assert_eq!(c.tables.len(), 1);
    let many = "SELECT 1;".repeat(50_000);
    let c = classify_checked(many.as_bytes());
    assert!(c.multi_statement);
    let comments = "/* x */ -- y\n".repeat(100_000) + "SELECT 1";
    assert_eq!(classify_checked(comments.as_bytes()).route, Route::Read);
    let open_literal = format!("SELECT '{}", "a".repeat(1_000_000));
    classify_checked(open_literal.as_bytes());
}
