//! String and bit functions beyond the everyday ones of `string`: INSERT, MAKE_SET,
//! EXPORT_SET, CHAR, CHR, BIT_COUNT, INET_ATON, INET_NTOA, IS_IPV4, NVL2 and SOUNDEX, as
//! MariaDB 10.11.

use super::args::{any_null, int_arg, text};
use super::signature::{rt_int, string_type, ScalarFunction};
use crate::error::SqlError;
use crate::types::Value;
use crate::value::context::FnContext;
use crate::value::kinds::SqlType;

pub static FUNCTIONS: &[ScalarFunction] = &[
    func!("INSERT", 4, 4, true, rt_insert, insert),
    func!("MAKE_SET", 2, super::VARIADIC, true, rt_make_set, make_set),
    func!("EXPORT_SET", 3, 5, true, rt_export_set, export_set),
    func!("CHAR", 1, super::VARIADIC, true, rt_char, char_of_codes),
    func!("CHR", 1, 1, true, rt_chr, chr),
    func!("BIT_COUNT", 1, 1, true, rt_int, bit_count),
    func!("INET_ATON", 1, 1, true, rt_inet_aton, inet_aton),
    func!("INET_NTOA", 1, 1, true, rt_inet_ntoa, inet_ntoa),
    func!("IS_IPV4", 1, 1, true, rt_int, is_ipv4),
    func!("NVL2", 3, 3, true, rt_nvl2, nvl2),
    func!("SOUNDEX", 1, 1, true, rt_soundex, soundex),
];

/// SOUNDEX codes of A..Z (vowels, H, W and Y are 0: not written).
const SOUNDEX_CODES: &[u8; 26] = b"01230120022455012623010202";
/// A SOUNDEX string is padded with '0' to this many characters.
const SOUNDEX_MIN_CHARS: usize = 4;

fn rt_insert(args: &[SqlType]) -> SqlType {
    string_type(&[args[0].clone(), args[3].clone()], args[0].display_chars() + args[3].display_chars())
}
/// The strings and a comma between each two.
fn rt_make_set(args: &[SqlType]) -> SqlType {
    let strings = &args[1..];
    let chars = strings.iter().map(SqlType::display_chars).sum::<u32>() + strings.len().saturating_sub(1) as u32;
    string_type(strings, chars)
}
/// MariaDB's bound: 64 bits and 63 separators.
fn rt_export_set(args: &[SqlType]) -> SqlType {
    let bit = args[1].display_chars().max(args[2].display_chars());
    let sep = args.get(3).map_or(1, SqlType::display_chars);
    string_type(&args[1..], 64 * bit + 63 * sep)
}
fn rt_char(args: &[SqlType]) -> SqlType {
    SqlType::Bytes { max_len: 4 * args.len() as u32, lob: false }
}
fn rt_chr(_: &[SqlType]) -> SqlType {
    SqlType::text(1, false)
}
fn rt_inet_aton(_: &[SqlType]) -> SqlType {
    SqlType::Int { bits: 64, unsigned: true }
}
fn rt_inet_ntoa(_: &[SqlType]) -> SqlType {
    SqlType::text(31, false)
}
fn rt_soundex(args: &[SqlType]) -> SqlType {
    string_type(args, args[0].display_chars().max(SOUNDEX_MIN_CHARS as u32))
}
fn rt_nvl2(args: &[SqlType]) -> SqlType {
    SqlType::unify(&args[1], &args[2])
}

/// Characters of `s` (bytes when it is not UTF-8).
fn chars(s: &[u8]) -> Vec<&[u8]> {
    match std::str::from_utf8(s) {
        Ok(t) => t.char_indices().map(|(i, c)| &s[i..i + c.len_utf8()]).collect(),
        Err(_) => s.chunks(1).collect(),
    }
}

/// INSERT(s, pos, len, new): `len` characters from `pos` (1-based) replaced by `new`; `s` as
/// it is when `pos` is outside it.
fn insert(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = text(&args[0]);
    let (pos, len) = (int_arg(&args[1], ctx), int_arg(&args[2], ctx));
    let new = text(&args[3]);
    let cs = chars(&s);
    if pos < 1 || pos > cs.len() as i64 {
        return Ok(Value::Bytes(s));
    }
    let start = (pos - 1) as usize;
    let end = if len < 0 { cs.len() } else { start.saturating_add(len as usize).min(cs.len()) };
    let mut out: Vec<u8> = cs[..start].concat();
    out.extend_from_slice(&new);
    out.extend(cs[end..].concat());
    if !super::args::fits_result(out.len() as u128, ctx) {
        return super::args::too_large("insert", ctx);
    }
    Ok(Value::Bytes(out))
}

/// The bits of an integer argument as MariaDB reads a bit set (negative numbers as their
/// two's complement).
fn bits(v: &Value, ctx: &dyn FnContext) -> u64 {
    match v {
        Value::UInt(u) => *u,
        other => int_arg(other, ctx) as u64,
    }
}

fn make_set(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args[0].is_null() {
        return Ok(Value::Null);
    }
    let set = bits(&args[0], ctx);
    let mut out = Vec::new();
    let mut first = true;
    for (i, v) in args[1..].iter().enumerate().take(64) {
        // A NULL string is skipped like an unset bit.
        if set >> i & 1 == 1 && !v.is_null() {
            if !first {
                out.push(b',');
            }
            out.extend(text(v));
            first = false;
        }
    }
    Ok(Value::Bytes(out))
}

fn export_set(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let set = bits(&args[0], ctx);
    let (on, off) = (text(&args[1]), text(&args[2]));
    let sep = args.get(3).map_or(b",".to_vec(), text);
    // Beyond 64 (or negative) is 64.
    let count = args.get(4).map_or(64, |v| int_arg(v, ctx));
    let count = if (0..=64).contains(&count) { count as usize } else { 64 };
    let mut out = Vec::new();
    for i in 0..count {
        if i > 0 {
            out.extend_from_slice(&sep);
        }
        out.extend_from_slice(if set >> i & 1 == 1 { &on } else { &off });
    }
    Ok(Value::Bytes(out))
}

/// CHAR(n, ...): each integer as its big-endian bytes without leading zero bytes; NULLs skipped.
fn char_of_codes(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let mut out = Vec::with_capacity(args.len());
    for v in args.iter().filter(|v| !v.is_null()) {
        let code = bits(v, ctx) as u32;
        let bytes = code.to_be_bytes();
        let first = bytes.iter().position(|b| *b != 0).unwrap_or(3);
        out.extend_from_slice(&bytes[first..]);
    }
    Ok(Value::Bytes(out))
}

/// CHR(n): the character of code point `n` in the connection's character set (utf8mb4).
fn chr(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let code = bits(&args[0], ctx) as u32;
    let bytes = code.to_be_bytes();
    let first = bytes.iter().position(|b| *b != 0).unwrap_or(3);
    Ok(Value::Bytes(bytes[first..].to_vec()))
}

fn bit_count(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    Ok(Value::Int(i64::from(bits(&args[0], ctx).count_ones())))
}

/// MariaDB's reading of a dotted address: up to four numbers of at most 255; fewer than four
/// put the last one in the low byte ('1.2' is 1.0.0.2). NULL for anything else.
fn inet_aton(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = text(&args[0]);
    if s.is_empty() || s.ends_with(b".") {
        return Ok(Value::Null);
    }
    let (mut result, mut byte, mut dots) = (0u64, 0u64, 0u32);
    for c in s {
        match c {
            b'0'..=b'9' => {
                byte = byte * 10 + u64::from(c - b'0');
                if byte > 255 {
                    return Ok(Value::Null);
                }
            }
            b'.' => {
                dots += 1;
                result = (result << 8) + byte;
                byte = 0;
            }
            _ => return Ok(Value::Null),
        }
    }
    if dots > 3 {
        return Ok(Value::Null);
    }
    if dots == 1 || dots == 2 {
        result <<= 8 * (3 - dots);
    }
    Ok(Value::UInt((result << 8) + byte))
}

fn inet_ntoa(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let n = match &args[0] {
        Value::UInt(u) => *u as i128,
        other => i128::from(int_arg(other, ctx)),
    };
    if !(0..=i128::from(u32::MAX)).contains(&n) {
        return Ok(Value::Null);
    }
    let b = (n as u32).to_be_bytes();
    Ok(Value::Bytes(format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3]).into_bytes()))
}

/// Exactly four dot-separated numbers of one to three digits, each at most 255.
fn is_ipv4(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if args[0].is_null() {
        return Ok(Value::Int(0));
    }
    let s = text(&args[0]);
    let parts: Vec<&[u8]> = s.split(|c| *c == b'.').collect();
    let ok = parts.len() == 4
        && parts.iter().all(|p| {
            (1..=3).contains(&p.len())
                && p.iter().all(u8::is_ascii_digit)
                && std::str::from_utf8(p).ok().and_then(|t| t.parse::<u32>().ok()).is_some_and(|n| n <= 255)
        });
    Ok(Value::Int(i64::from(ok)))
}

fn nvl2(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(if args[0].is_null() { args[2].clone() } else { args[1].clone() })
}

/// MariaDB's SOUNDEX: the first letter (upper-cased when ASCII), then the codes of the
/// following letters, a code repeating the previous written one skipped (vowels between do not
/// separate them), padded to four; anything not a letter is ignored, letters beyond ASCII
/// have no code. No letter at all is ''.
fn soundex(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = String::from_utf8_lossy(&text(&args[0])).into_owned();
    let code = |c: char| {
        if c.is_ascii_alphabetic() {
            SOUNDEX_CODES[(c.to_ascii_uppercase() as u8 - b'A') as usize]
        } else {
            b'0'
        }
    };
    let mut letters = s.chars().filter(|c| c.is_alphabetic());
    let Some(first) = letters.next() else { return Ok(Value::Bytes(Vec::new())) };
    let mut out = first.to_ascii_uppercase().to_string();
    let mut last = code(first);
    for c in letters {
        let k = code(c);
        if k != b'0' && k != last {
            out.push(k as char);
            last = k;
        }
    }
    while out.chars().count() < SOUNDEX_MIN_CHARS {
        out.push('0');
    }
    Ok(Value::Bytes(out.into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::tests::TestCtx;

    fn s(v: &str) -> Value {
        Value::Bytes(v.as_bytes().to_vec())
    }
    fn call(f: fn(&[Value], &dyn FnContext) -> Result<Value, SqlError>, args: &[Value]) -> Value {
        f(args, &TestCtx::default()).unwrap()
    }

    /// Each checked against MariaDB 10.11.
    #[test]
    fn as_mariadb() {
        let i = Value::Int;
        assert_eq!(call(insert, &[s("Quadratic"), i(3), i(4), s("What")]), s("QuWhattic"));
        assert_eq!(call(insert, &[s("Quadratic"), i(-1), i(4), s("W")]), s("Quadratic"));
        assert_eq!(call(insert, &[s("Quadratic"), i(3), i(100), s("W")]), s("QuW"));
        assert_eq!(call(insert, &[s("abc"), i(4), i(1), s("x")]), s("abc"));
        assert_eq!(call(make_set, &[i(5), s("a"), s("b"), s("c")]), s("a,c"));
        assert_eq!(call(make_set, &[i(5), s("hello"), s("nice"), Value::Null, s("world")]), s("hello"));
        assert_eq!(call(export_set, &[i(5), s("Y"), s("N"), s(","), i(4)]), s("Y,N,Y,N"));
        assert_eq!(call(char_of_codes, &[i(77), i(97), i(114), s("105"), i(97), i(68), i(66)]), s("MariaDB"));
        assert_eq!(call(char_of_codes, &[Value::Null, i(65)]), s("A"));
        assert_eq!(call(char_of_codes, &[i(256)]), Value::Bytes(vec![1, 0]));
        assert_eq!(call(bit_count, &[i(7)]), i(3));
        assert_eq!(call(bit_count, &[i(-1)]), i(64));
        assert_eq!(call(inet_aton, &[s("10.0.5.9")]), Value::UInt(167773449));
        assert_eq!(call(inet_aton, &[s("1.2")]), Value::UInt(16777218));
        assert_eq!(call(inet_aton, &[s("x")]), Value::Null);
        assert_eq!(call(inet_ntoa, &[i(167773449)]), s("10.0.5.9"));
        assert_eq!(call(is_ipv4, &[s("10.0.0.1")]), i(1));
        assert_eq!(call(is_ipv4, &[s("10.0.0.256")]), i(0));
        assert_eq!(call(nvl2, &[Value::Null, i(1), i(2)]), i(2));
        for (word, expected) in [
            ("Hello", "H400"),
            ("Quadratically", "Q36324"),
            ("Tymczak", "T520"),
            ("  123abc", "A120"),
            ("", ""),
            ("Ashcraft", "A2613"),
            ("Pfister", "P236"),
            ("é", "é000"),
            ("Müller", "M460"),
            ("1", ""),
            ("ab-cd", "A123"),
            ("hhhh", "H000"),
        ] {
            assert_eq!(call(soundex, &[s(word)]), s(expected), "{word}");
        }
    }
}
