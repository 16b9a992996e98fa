//! REGEXP / RLIKE, REGEXP_REPLACE, REGEXP_INSTR and REGEXP_SUBSTR with PCRE2, as MariaDB 10.11
//! runs them (its Regexp_processor_pcre).
//!
//! How a pattern matches depends on the collation the operands aggregate to, which only the
//! binder knows: it calls the `*_FLAGGED` twins of the registry entries (`with_flags`) with a
//! leading literal saying how to compile (`MODE_*`). MariaDB's rule: a binary operand makes the
//! match bytewise (no UTF); otherwise the pattern is UTF with Unicode properties, and caseless
//! unless the collation is `_bin`/`_cs`. The plain registry entries (reached only without the
//! binder) match as utf8mb4_general_ci, the server default.
//!
//! Patterns are compiled once per thread and pattern (a small cache of recent ones), so a
//! constant pattern evaluated per row in a WHERE is not recompiled per row.

use std::cell::RefCell;
use std::rc::Rc;

use pcre2::bytes::{Regex, RegexBuilder};

use super::args::{any_null, text};
use super::signature::{rt_int, ScalarFunction};
use crate::error::SqlError;
use crate::types::Value;
use crate::value::context::FnContext;
use crate::value::kinds::SqlType;

/// Compile modes, the binder's leading literal of the `*_FLAGGED` functions. A mode may be
/// followed by `CONSTANT_PATTERN`.
pub const MODE_BINARY: &[u8] = b"b";
pub const MODE_CASE_SENSITIVE: &[u8] = b"c";
pub const MODE_CASELESS: &[u8] = b"i";
/// The pattern is a statement constant the binder could not compile (a `?` parameter): a bad
/// one is MariaDB's error 1139 rather than NULL.
pub const CONSTANT_PATTERN: u8 = b'k';

/// MariaDB's LONGTEXT result of REGEXP_REPLACE (its max_length is MAX_BLOB_WIDTH).
const REPLACE_MAX_CHARS: u32 = 16 << 20;
/// Patterns kept compiled per thread.
const CACHE_SIZE: usize = 16;

/// A compiled pattern with the pattern text and compile mode it was compiled from.
type CachedRegex = (Vec<u8>, Vec<u8>, Rc<Regex>);
/// A subject and the pattern to match it with.
type Prepared = (Vec<u8>, Rc<Regex>);

pub static FUNCTIONS: &[ScalarFunction] = &[
    func!("REGEXP", 2, 2, true, rt_int, |a, c| regexp(MODE_CASELESS, a, c)),
    func!("REGEXP_REPLACE", 3, 3, true, rt_replace, |a, c| regexp_replace(MODE_CASELESS, a, c)),
    func!("REGEXP_INSTR", 2, 2, true, rt_int, |a, c| regexp_instr(MODE_CASELESS, a, c)),
    func!("REGEXP_SUBSTR", 2, 2, true, rt_substr, |a, c| regexp_substr(MODE_CASELESS, a, c)),
];

static REGEXP_FLAGGED: ScalarFunction = func!("REGEXP", 3, 3, true, rt_int, |a, c| regexp(mode(a), &a[1..], c));
static REPLACE_FLAGGED: ScalarFunction =
    func!("REGEXP_REPLACE", 4, 4, true, rt_replace_flagged, |a, c| regexp_replace(mode(a), &a[1..], c));
static INSTR_FLAGGED: ScalarFunction =
    func!("REGEXP_INSTR", 3, 3, true, rt_int, |a, c| regexp_instr(mode(a), &a[1..], c));
static SUBSTR_FLAGGED: ScalarFunction =
    func!("REGEXP_SUBSTR", 3, 3, true, rt_substr_flagged, |a, c| regexp_substr(mode(a), &a[1..], c));

/// The twin of a regexp function that takes its compile mode as a leading literal, and how
/// many of its arguments aggregate into the collation that decides the mode (MariaDB's
/// agg_arg_charsets_for_comparison over those).
pub fn with_flags(name: &str) -> Option<(&'static ScalarFunction, usize)> {
    match name {
        "REGEXP" => Some((&REGEXP_FLAGGED, 2)),
        "REGEXP_REPLACE" => Some((&REPLACE_FLAGGED, 3)),
        "REGEXP_INSTR" => Some((&INSTR_FLAGGED, 2)),
        "REGEXP_SUBSTR" => Some((&SUBSTR_FLAGGED, 2)),
        _ => None,
    }
}

/// The compile mode of a collation the operands aggregate to (None: no string operand, which
/// MariaDB compares in its numeric charset, latin1: case-insensitive).
pub fn mode_of(collation: Option<selkie_charset::Collation>) -> &'static [u8] {
    match collation {
        Some(c) if c.is_binary() => MODE_BINARY,
        Some(c) if c.name().ends_with("_bin") || c.name().ends_with("_cs") => MODE_CASE_SENSITIVE,
        _ => MODE_CASELESS,
    }
}

fn mode(args: &[Value]) -> &[u8] {
    match &args[0] {
        Value::Bytes(b) => b,
        _ => MODE_CASELESS,
    }
}

fn rt_replace(args: &[SqlType]) -> SqlType {
    match super::signature::string_type(args, REPLACE_MAX_CHARS) {
        SqlType::Bytes { max_len, .. } => SqlType::Bytes { max_len, lob: true },
        _ => SqlType::text(REPLACE_MAX_CHARS, true),
    }
}
fn rt_replace_flagged(args: &[SqlType]) -> SqlType {
    rt_replace(&args[1..])
}
/// As long as the subject: a match is part of it.
fn rt_substr(args: &[SqlType]) -> SqlType {
    let chars = args.first().map(SqlType::display_chars).unwrap_or(0);
    super::signature::string_type(args, chars)
}
fn rt_substr_flagged(args: &[SqlType]) -> SqlType {
    rt_substr(&args[1..])
}

/// The compiled `pattern` (from the thread's cache when it was compiled before), or MariaDB's
/// error 1139 naming PCRE2's complaint.
pub fn compile(pattern: &[u8], mode: &[u8]) -> Result<Rc<Regex>, SqlError> {
    thread_local! {
        static CACHE: RefCell<Vec<CachedRegex>> = const { RefCell::new(Vec::new()) };
    }
    if let Some(hit) =
        CACHE.with(|c| c.borrow().iter().find(|(p, m, _)| p == pattern && m == mode).map(|(_, _, r)| Rc::clone(r)))
    {
        return Ok(hit);
    }
    let binary = mode.starts_with(MODE_BINARY);
    let source = if binary { escape_high_bytes(pattern) } else { String::from_utf8_lossy(pattern).into_owned() };
    let regex = RegexBuilder::new()
        .utf(!binary)
        .ucp(!binary)
        .caseless(mode.starts_with(MODE_CASELESS))
        .jit_if_available(true)
        .build(&source)
        .map_err(|e| regex_error(&e))?;
    let regex = Rc::new(regex);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_SIZE {
            c.remove(0);
        }
        c.push((pattern.to_vec(), mode.to_vec(), Rc::clone(&regex)));
    });
    Ok(regex)
}

/// A binary pattern as text PCRE2 can take: bytes past ASCII as `\x{hh}`, which without UTF
/// match those bytes.
fn escape_high_bytes(pattern: &[u8]) -> String {
    let mut out = String::with_capacity(pattern.len());
    for &b in pattern {
        if b.is_ascii() {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\x{{{b:02x}}}"));
        }
    }
    out
}

/// MariaDB's 1139 "Regex error '<PCRE2 message> at offset N'".
fn regex_error(e: &pcre2::Error) -> SqlError {
    // The crate shows "PCRE2: error compiling pattern at offset N: <message>"; MariaDB puts
    // the offset after the message.
    let shown = e.to_string();
    let message = shown.split_once(": ").map_or(shown.as_str(), |(_, rest)| rest);
    let message = message.split_once(": ").map_or(message, |(_, m)| m);
    let text = match e.offset() {
        Some(offset) => format!("{message} at offset {offset}"),
        None => message.to_string(),
    };
    crate::error::regexp(&text)
}

/// The first match at or after byte `start`, as byte offsets of the whole match and its groups
/// (None for a group that did not take part). A matching failure (a resource limit) is
/// MariaDB's warning 1139 and no match.
fn find(re: &Regex, subject: &[u8], start: usize, ctx: &dyn FnContext) -> Option<Vec<Option<(usize, usize)>>> {
    let mut locations = re.capture_locations();
    match re.captures_read_at(&mut locations, subject, start) {
        Ok(Some(_)) => Some((0..locations.len()).map(|i| locations.get(i)).collect()),
        Ok(None) => None,
        Err(e) => {
            ctx.warn(1139, crate::error::regexp(&e.to_string()).message);
            None
        }
    }
}

/// The subject and the compiled pattern, None when either is NULL or the pattern does not
/// compile: MariaDB refuses a constant bad pattern before reading rows (the binder does that
/// here) but makes a computed one NULL, without a warning.
fn subject_and_pattern(args: &[Value], mode: &[u8]) -> Result<Option<Prepared>, SqlError> {
    if any_null(&args[..2]) {
        return Ok(None);
    }
    let re = match compile(&text(&args[1]), mode) {
        Ok(re) => re,
        Err(e) if mode.last() == Some(&CONSTANT_PATTERN) => return Err(e),
        Err(_) => return Ok(None),
    };
    Ok(Some((text(&args[0]), re)))
}

fn regexp(mode: &[u8], args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let Some((subject, re)) = subject_and_pattern(args, mode)? else { return Ok(Value::Null) };
    Ok(Value::Int(find(&re, &subject, 0, ctx).is_some() as i64))
}

fn regexp_instr(mode: &[u8], args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let Some((subject, re)) = subject_and_pattern(args, mode)? else { return Ok(Value::Null) };
    let position = match find(&re, &subject, 0, ctx).and_then(|groups| groups[0]) {
        // Characters before the match, counted in the subject's character set.
        Some((start, _)) if mode.starts_with(MODE_BINARY) => start as i64 + 1,
        Some((start, _)) => char_count(&subject[..start]) as i64 + 1,
        None => 0,
    };
    Ok(Value::Int(position))
}

fn regexp_substr(mode: &[u8], args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let Some((subject, re)) = subject_and_pattern(args, mode)? else { return Ok(Value::Null) };
    // No match is the empty string, not NULL.
    let found = match find(&re, &subject, 0, ctx).and_then(|groups| groups[0]) {
        Some((start, end)) => subject[start..end].to_vec(),
        None => Vec::new(),
    };
    Ok(Value::Bytes(found))
}

fn regexp_replace(mode: &[u8], args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args[2].is_null() {
        return Ok(Value::Null);
    }
    let Some((subject, re)) = subject_and_pattern(args, mode)? else { return Ok(Value::Null) };
    let replacement = text(&args[2]);
    let mut out = Vec::with_capacity(subject.len());
    let mut start = 0;
    // As MariaDB: replace match after match; an empty match ends the replacing (the rest is
    // copied), so '' and '^' replace nothing.
    while let Some(groups) = find(&re, &subject, start, ctx) {
        let Some((m_start, m_end)) = groups[0] else { break };
        if m_start == m_end {
            break;
        }
        out.extend_from_slice(&subject[start..m_start]);
        append_replacement(&mut out, &replacement, &subject, &groups);
        start = m_end;
        if !super::args::fits_result(out.len() as u128, ctx) {
            return super::args::too_large("regexp_replace", ctx);
        }
    }
    out.extend_from_slice(&subject[start..]);
    if !super::args::fits_result(out.len() as u128, ctx) {
        return super::args::too_large("regexp_replace", ctx);
    }
    Ok(Value::Bytes(out))
}

/// MariaDB's replacement syntax: `\N` (a digit) is group N, or nothing when the pattern has
/// fewer groups; `\c` is `c`; a trailing `\` is dropped.
fn append_replacement(out: &mut Vec<u8>, replacement: &[u8], subject: &[u8], groups: &[Option<(usize, usize)>]) {
    let mut i = 0;
    while i < replacement.len() {
        let b = replacement[i];
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let Some(&next) = replacement.get(i + 1) else { break };
        if next.is_ascii_digit() {
            if let Some(Some((s, e))) = groups.get((next - b'0') as usize) {
                out.extend_from_slice(&subject[*s..*e]);
            }
            i += 2;
        } else {
            // The whole (possibly multi-byte) character after the backslash.
            let len = utf8_len(next).min(replacement.len() - i - 1);
            out.extend_from_slice(&replacement[i + 1..i + 1 + len]);
            i += 1 + len;
        }
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xF7 => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| (**b & 0xC0) != 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::tests::TestCtx;

    fn s(v: &str) -> Value {
        Value::Bytes(v.as_bytes().to_vec())
    }

    /// A regexp function body: compile mode, arguments, context.
    type Body = fn(&[u8], &[Value], &dyn FnContext) -> Result<Value, SqlError>;

    fn call(f: Body, mode: &[u8], args: &[Value]) -> Value {
        f(mode, args, &TestCtx::default()).unwrap()
    }

    #[test]
    fn matching_follows_the_mode() {
        assert_eq!(call(regexp, MODE_CASELESS, &[s("ABC"), s("b")]), Value::Int(1));
        assert_eq!(call(regexp, MODE_CASE_SENSITIVE, &[s("ABC"), s("b")]), Value::Int(0));
        assert_eq!(call(regexp, MODE_BINARY, &[s("ABC"), s("b")]), Value::Int(0));
        assert_eq!(call(regexp, MODE_CASELESS, &[s("é"), s("É")]), Value::Int(1));
        assert_eq!(call(regexp, MODE_CASELESS, &[s("é"), s("E")]), Value::Int(0));
        assert_eq!(call(regexp, MODE_CASELESS, &[s("ÄB"), s("^.b$")]), Value::Int(1));
        assert_eq!(call(regexp, MODE_BINARY, &[s("ÄB"), s("^.B$")]), Value::Int(0));
        assert_eq!(call(regexp, MODE_CASELESS, &[Value::Null, s("a")]), Value::Null);
        assert_eq!(call(regexp, MODE_CASELESS, &[s("x"), s("(a")]), Value::Null);
    }

    #[test]
    fn replace_instr_substr_as_mariadb() {
        let replace = |a: &str, p: &str, r: &str| call(regexp_replace, MODE_CASELESS, &[s(a), s(p), s(r)]);
        assert_eq!(replace("ab12cd", "[0-9]", "#"), s("ab##cd"));
        assert_eq!(replace("abc", "(b)", "<\\1\\0\\2>"), s("a<bb>c"));
        assert_eq!(replace("aaa", "", "x"), s("aaa"));
        assert_eq!(replace("abc", "^", "x"), s("abc"));
        assert_eq!(replace("abc", "b", "\\x\\"), s("axc"));
        assert_eq!(call(regexp_instr, MODE_CASELESS, &[s("abcé1"), s("[0-9]")]), Value::Int(5));
        assert_eq!(call(regexp_instr, MODE_CASELESS, &[s("abc"), s("z")]), Value::Int(0));
        assert_eq!(call(regexp_substr, MODE_CASELESS, &[s("ab12cd34"), s("[0-9]+")]), s("12"));
        assert_eq!(call(regexp_substr, MODE_CASELESS, &[s("abc"), s("z")]), s(""));
    }

    #[test]
    fn bad_patterns_are_1139() {
        let e = compile(b"(a", MODE_CASELESS).unwrap_err();
        assert_eq!(e.code, 1139);
        assert_eq!(e.message, "Regex error 'missing closing parenthesis at offset 2'");
    }
}
