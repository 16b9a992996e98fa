//! String functions. Positions and lengths count utf8mb4 characters (CHAR_LENGTH, SUBSTRING,
//! LEFT, LPAD, LOCATE ...) except where MariaDB counts bytes (LENGTH, ASCII, HEX).

use std::cmp::Ordering;

use base64::Engine as _;
use md5::Digest as _;

use super::args::{any_null, f64_arg, fits_result, int_arg, text, too_large};
use super::signature::ScalarFunction;
use super::signature::{rt_int, rt_text, rt_text_like_args, string_type, VARIADIC};
use crate::error::SqlError;
use crate::types::Value;
use crate::value::cast::{char_count, char_prefix_len, decimal_to_i128, value_to_decimal};
use crate::value::compare::compare;
use crate::value::context::FnContext;
use crate::value::format::push_decimal;
use crate::value::kinds::SqlType;
use crate::value::num::{dec_round, RoundMode};

/// Line length of TO_BASE64 output (MariaDB wraps like MIME).
const BASE64_LINE_LEN: usize = 76;
/// Most decimals FORMAT() shows.
const FORMAT_MAX_DECIMALS: i64 = 38;

pub static FUNCTIONS: &[ScalarFunction] = &[
    func!("CONCAT", 1, VARIADIC, true, rt_concat, concat),
    func!("CONCAT_WS", 2, VARIADIC, true, rt_concat, concat_ws),
    func!("LENGTH", 1, 1, true, rt_int, length),
    func!("LENGTHB", 1, 1, true, rt_int, length),
    func!("OCTET_LENGTH", 1, 1, true, rt_int, length),
    func!("BIT_LENGTH", 1, 1, true, rt_int, bit_length),
    func!("CHAR_LENGTH", 1, 1, true, rt_int, char_length),
    func!("CHARACTER_LENGTH", 1, 1, true, rt_int, char_length),
    func!("UPPER", 1, 1, true, rt_text_like_args, upper),
    func!("UCASE", 1, 1, true, rt_text_like_args, upper),
    func!("LOWER", 1, 1, true, rt_text_like_args, lower),
    func!("LCASE", 1, 1, true, rt_text_like_args, lower),
    func!("SUBSTRING", 2, 3, true, rt_first_arg_text, substring),
    func!("SUBSTR", 2, 3, true, rt_first_arg_text, substring),
    func!("MID", 3, 3, true, rt_first_arg_text, substring),
    func!("SUBSTRING_INDEX", 3, 3, true, rt_first_arg_text, substring_index),
    func!("LEFT", 2, 2, true, rt_first_arg_text, left),
    func!("RIGHT", 2, 2, true, rt_first_arg_text, right),
    func!("TRIM", 1, 1, true, rt_first_arg_text, trim),
    func!("LTRIM", 1, 1, true, rt_first_arg_text, ltrim),
    func!("RTRIM", 1, 1, true, rt_first_arg_text, rtrim),
    func!("TRIM_BOTH", 2, 2, true, rt_first_arg_text, trim_both),
    func!("TRIM_LEADING", 2, 2, true, rt_first_arg_text, trim_leading),
    func!("TRIM_TRAILING", 2, 2, true, rt_first_arg_text, trim_trailing),
    func!("REPLACE", 3, 3, true, rt_text_like_args, replace),
    func!("REVERSE", 1, 1, true, rt_first_arg_text, reverse),
    func!("REPEAT", 2, 2, true, rt_long_text, repeat),
    func!("LPAD", 3, 3, true, rt_long_text, lpad),
    func!("RPAD", 3, 3, true, rt_long_text, rpad),
    func!("INSTR", 2, 2, true, rt_int, instr),
    func!("LOCATE", 2, 3, true, rt_int, locate),
    func!("ASCII", 1, 1, true, rt_int, ascii),
    func!("ORD", 1, 1, true, rt_int, ord),
    func!("HEX", 1, 1, true, rt_hex, hex),
    func!("UNHEX", 1, 1, true, rt_binary_like_args, unhex),
    func!("SPACE", 1, 1, true, rt_long_text, space),
    func!("STRCMP", 2, 2, true, rt_int, strcmp),
    func!("FIELD", 2, VARIADIC, true, rt_int, field),
    func!("ELT", 2, VARIADIC, true, rt_elt, elt),
    func!("FIND_IN_SET", 2, 2, true, rt_int, find_in_set),
    func!("QUOTE", 1, 1, true, rt_quote, quote),
    func!("FORMAT", 2, 3, true, rt_format, format),
    func!("TO_BASE64", 1, 1, true, rt_to_base64, to_base64),
    func!("FROM_BASE64", 1, 1, true, rt_binary_like_args, from_base64),
    func!("MD5", 1, 1, true, rt_md5, md5),
    func!("SHA1", 1, 1, true, rt_sha1, sha1),
    func!("SHA", 1, 1, true, rt_sha1, sha1),
    func!("SHA2", 2, 2, true, rt_sha2, sha2),
    func!("CRC32", 1, 1, true, rt_crc32, crc32),
];

// ---- return types ----

fn rt_concat(args: &[SqlType]) -> SqlType {
    let chars = args.iter().map(SqlType::display_chars).fold(0u32, |a, b| a.saturating_add(b));
    string_type(args, chars)
}
fn rt_first_arg_text(args: &[SqlType]) -> SqlType {
    string_type(&args[..1], args.first().map_or(0, SqlType::display_chars))
}
fn rt_long_text(args: &[SqlType]) -> SqlType {
    // Length depends on a runtime count; declare the largest non-LOB length.
    string_type(&args[..1], u16::MAX as u32 / super::super::types::UTF8MB4_MAX_BYTES)
}
fn rt_hex(args: &[SqlType]) -> SqlType {
    rt_text(args.first().map_or(0, SqlType::display_chars).saturating_mul(2).max(16))
}
fn rt_binary_like_args(args: &[SqlType]) -> SqlType {
    SqlType::Bytes { max_len: args.first().map_or(0, SqlType::display_chars), lob: false }
}
fn rt_elt(args: &[SqlType]) -> SqlType {
    rt_text_like_args(&args[1..])
}
fn rt_quote(args: &[SqlType]) -> SqlType {
    rt_text(args.first().map_or(0, SqlType::display_chars).saturating_mul(2).saturating_add(2))
}
fn rt_format(_: &[SqlType]) -> SqlType {
    rt_text(64)
}
fn rt_to_base64(args: &[SqlType]) -> SqlType {
    rt_text(args.first().map_or(0, SqlType::display_chars).saturating_mul(4) / 3 + 4)
}
fn rt_md5(_: &[SqlType]) -> SqlType {
    rt_text(32)
}
fn rt_sha1(_: &[SqlType]) -> SqlType {
    rt_text(40)
}
fn rt_sha2(_: &[SqlType]) -> SqlType {
    rt_text(128)
}
fn rt_crc32(_: &[SqlType]) -> SqlType {
    SqlType::Int { bits: 32, unsigned: true }
}

// ---- character helpers ----

/// Byte offsets where characters start (plus the end).
fn char_bounds(b: &[u8]) -> Vec<usize> {
    let mut v: Vec<usize> = b.iter().enumerate().filter(|(_, &c)| c & 0xC0 != 0x80).map(|(i, _)| i).collect();
    if v.first() != Some(&0) && !b.is_empty() {
        // A leading continuation byte still starts a (malformed) character.
        v.insert(0, 0);
    }
    v.push(b.len());
    v
}

/// Character index of a byte offset that starts a character.
fn char_index_of(b: &[u8], byte: usize) -> usize {
    char_count(&b[..byte])
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() {
        return Some(from.min(hay.len()));
    }
    if from > hay.len() || needle.len() > hay.len() - from {
        return None;
    }
    hay[from..].windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

fn bytes(v: Vec<u8>) -> Result<Value, SqlError> {
    Ok(Value::Bytes(v))
}

fn map_case(b: &[u8], upper: bool) -> Vec<u8> {
    if b.is_ascii() {
        return if upper { b.to_ascii_uppercase() } else { b.to_ascii_lowercase() };
    }
    match std::str::from_utf8(b) {
        Ok(s) => {
            let mut out = String::with_capacity(s.len());
            for c in s.chars() {
                // Only one-to-one mappings, as utf8mb4_general_ci does ('ß' stays 'ß').
                let mut mapped = if upper { c.to_uppercase().collect::<Vec<_>>() } else { c.to_lowercase().collect() };
                if mapped.len() == 1 {
                    out.push(mapped.pop().unwrap_or(c));
                } else {
                    out.push(c);
                }
            }
            out.into_bytes()
        }
        Err(_) => {
            if upper {
                b.to_ascii_uppercase()
            } else {
                b.to_ascii_lowercase()
            }
        }
    }
}

// ---- implementations ----

/// An argument's bytes, borrowed when it is already a string (CONCAT of large values).
fn text_cow(v: &Value) -> std::borrow::Cow<'_, [u8]> {
    match v {
        Value::Bytes(b) => std::borrow::Cow::Borrowed(b),
        other => std::borrow::Cow::Owned(text(other)),
    }
}

fn concat(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let parts: Vec<_> = args.iter().map(text_cow).collect();
    if !fits_result(parts.iter().map(|p| p.len() as u128).sum(), ctx) {
        return too_large("concat", ctx);
    }
    bytes(parts.concat())
}

fn concat_ws(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args[0].is_null() {
        return Ok(Value::Null);
    }
    let sep = text(&args[0]);
    let parts: Vec<_> = args[1..].iter().filter(|a| !a.is_null()).map(text_cow).collect();
    let len =
        parts.iter().map(|p| p.len() as u128).sum::<u128>() + sep.len() as u128 * parts.len().saturating_sub(1) as u128;
    if !fits_result(len, ctx) {
        return too_large("concat_ws", ctx);
    }
    bytes(parts.join(sep.as_slice()))
}

fn length(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    Ok(Value::Int(text(&args[0]).len() as i64))
}

fn bit_length(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    Ok(Value::Int(text(&args[0]).len() as i64 * 8))
}

fn char_length(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    Ok(Value::Int(char_count(&text(&args[0])) as i64))
}

fn upper(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    bytes(map_case(&text(&args[0]), true))
}

fn lower(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    bytes(map_case(&text(&args[0]), false))
}

fn substring(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = text(&args[0]);
    let pos = int_arg(&args[1], ctx);
    let len = if args.len() == 3 { int_arg(&args[2], ctx) } else { i64::MAX };
    let bounds = char_bounds(&s);
    let chars = (bounds.len() - 1) as i64;
    let start = match pos.cmp(&0) {
        Ordering::Equal => return bytes(Vec::new()),
        Ordering::Greater => pos - 1,
        Ordering::Less => chars + pos,
    };
    if start < 0 || start >= chars || len <= 0 {
        return bytes(Vec::new());
    }
    let end = start.saturating_add(len).min(chars);
    bytes(s[bounds[start as usize]..bounds[end as usize]].to_vec())
}

fn substring_index(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = text(&args[0]);
    let delim = text(&args[1]);
    let count = int_arg(&args[2], ctx);
    if delim.is_empty() || count == 0 {
        return bytes(Vec::new());
    }
    let mut positions = Vec::new();
    let mut from = 0;
    while let Some(p) = find(&s, &delim, from) {
        positions.push(p);
        from = p + delim.len();
    }
    if count > 0 {
        match positions.get(count as usize - 1) {
            Some(&p) => bytes(s[..p].to_vec()),
            None => bytes(s),
        }
    } else {
        let k = count.unsigned_abs() as usize;
        if k > positions.len() {
            bytes(s)
        } else {
            let p = positions[positions.len() - k];
            bytes(s[p + delim.len()..].to_vec())
        }
    }
}

fn left(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = text(&args[0]);
    let n = int_arg(&args[1], ctx);
    if n <= 0 {
        return bytes(Vec::new());
    }
    bytes(s[..char_prefix_len(&s, n as usize)].to_vec())
}

fn right(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = text(&args[0]);
    let n = int_arg(&args[1], ctx);
    if n <= 0 {
        return bytes(Vec::new());
    }
    let chars = char_count(&s);
    let skip = chars.saturating_sub(n as usize);
    bytes(s[char_prefix_len(&s, skip)..].to_vec())
}

fn strip(s: &[u8], rem: &[u8], leading: bool, trailing: bool) -> Vec<u8> {
    if rem.is_empty() {
        return s.to_vec();
    }
    let mut start = 0;
    let mut end = s.len();
    if leading {
        while end - start >= rem.len() && &s[start..start + rem.len()] == rem {
            start += rem.len();
        }
    }
    if trailing {
        while end - start >= rem.len() && &s[end - rem.len()..end] == rem {
            end -= rem.len();
        }
    }
    s[start..end].to_vec()
}

fn trim_with(args: &[Value], rem: Option<&Value>, leading: bool, trailing: bool) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let r = rem.map(text).unwrap_or_else(|| b" ".to_vec());
    bytes(strip(&text(&args[0]), &r, leading, trailing))
}

fn trim(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    trim_with(args, None, true, true)
}
fn ltrim(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    trim_with(args, None, true, false)
}
fn rtrim(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    trim_with(args, None, false, true)
}
fn trim_both(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    trim_with(args, Some(&args[1]), true, true)
}
fn trim_leading(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    trim_with(args, Some(&args[1]), true, false)
}
fn trim_trailing(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    trim_with(args, Some(&args[1]), false, true)
}

fn replace(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = text(&args[0]);
    let from = text(&args[1]);
    let to = text(&args[2]);
    if from.is_empty() {
        return bytes(s);
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while let Some(p) = find(&s, &from, i) {
        out.extend_from_slice(&s[i..p]);
        out.extend_from_slice(&to);
        i = p + from.len();
        if !fits_result(out.len() as u128, ctx) {
            return too_large("replace", ctx);
        }
    }
    out.extend_from_slice(&s[i..]);
    bytes(out)
}

fn reverse(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = text(&args[0]);
    let bounds = char_bounds(&s);
    let mut out = Vec::with_capacity(s.len());
    for w in bounds.windows(2).rev() {
        out.extend_from_slice(&s[w[0]..w[1]]);
    }
    bytes(out)
}

fn repeat(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = text(&args[0]);
    let n = int_arg(&args[1], ctx);
    if n <= 0 || s.is_empty() {
        return bytes(Vec::new());
    }
    if !fits_result((s.len() as u128) * (n as u128), ctx) {
        return too_large("repeat", ctx);
    }
    bytes(s.repeat(n as usize))
}

fn pad(args: &[Value], ctx: &dyn FnContext, left_side: bool) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = text(&args[0]);
    let len = int_arg(&args[1], ctx);
    let padding = text(&args[2]);
    if len < 0 {
        return Ok(Value::Null);
    }
    let len = len as usize;
    let chars = char_count(&s);
    if chars >= len {
        return bytes(s[..char_prefix_len(&s, len)].to_vec());
    }
    if padding.is_empty() {
        return Ok(Value::Null);
    }
    let need = len - chars;
    let pad_chars = char_count(&padding);
    let full = need / pad_chars;
    let rest = need % pad_chars;
    let pad_bytes = padding.len() as u128 * full as u128 + rest as u128 * 4;
    if !fits_result(pad_bytes + s.len() as u128, ctx) {
        return too_large(if left_side { "lpad" } else { "rpad" }, ctx);
    }
    let mut fill = padding.repeat(full);
    fill.extend_from_slice(&padding[..char_prefix_len(&padding, rest)]);
    let out = if left_side { [fill, s].concat() } else { [s, fill].concat() };
    bytes(out)
}

fn lpad(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    pad(args, ctx, true)
}
fn rpad(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    pad(args, ctx, false)
}

fn space(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let n = int_arg(&args[0], ctx);
    if n <= 0 {
        return bytes(Vec::new());
    }
    if !fits_result(n as u128, ctx) {
        return too_large("space", ctx);
    }
    bytes(vec![b' '; n as usize])
}

/// 1-based character position of `needle` in `hay` at or after character `from_char`, 0 if absent.
fn position(hay: &[u8], needle: &[u8], from_char: usize) -> i64 {
    let start = char_prefix_len(hay, from_char);
    match find(hay, needle, start) {
        Some(p) => char_index_of(hay, p) as i64 + 1,
        None => 0,
    }
}

fn instr(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    Ok(Value::Int(position(&text(&args[0]), &text(&args[1]), 0)))
}

fn locate(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let needle = text(&args[0]);
    let hay = text(&args[1]);
    if args.len() == 2 {
        return Ok(Value::Int(position(&hay, &needle, 0)));
    }
    let pos = int_arg(&args[2], ctx);
    let chars = char_count(&hay) as i64;
    if needle.is_empty() {
        // MariaDB finds the empty string only before a character that exists, and answers with
        // the byte position there: LOCATE('', 'abc', 4) and LOCATE('', '', 1) are 0,
        // LOCATE('', 'éa', 2) is 3.
        let start = pos.saturating_sub(1);
        if start < 0 || start >= hay.len() as i64 || start > chars {
            return Ok(Value::Int(0));
        }
        return Ok(Value::Int(char_prefix_len(&hay, start as usize) as i64 + 1));
    }
    if pos < 1 || pos > chars + 1 {
        return Ok(Value::Int(0));
    }
    Ok(Value::Int(position(&hay, &needle, (pos - 1) as usize)))
}

fn ascii(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    Ok(Value::Int(text(&args[0]).first().copied().unwrap_or(0) as i64))
}

fn ord(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = text(&args[0]);
    let end = char_prefix_len(&s, 1);
    // A multi-byte character's code is its bytes read big-endian.
    Ok(Value::Int(s[..end].iter().fold(0i64, |acc, &b| acc * 256 + b as i64)))
}

const HEX_DIGITS: &[u8; 16] = b"0123456789ABCDEF";

fn hex_bytes(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len() * 2);
    for &c in b {
        out.push(HEX_DIGITS[(c >> 4) as usize]);
        out.push(HEX_DIGITS[(c & 15) as usize]);
    }
    out
}

fn hex(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    let n: u64 = match &args[0] {
        Value::Null => return Ok(Value::Null),
        Value::Bytes(b) => return bytes(hex_bytes(b)),
        Value::Date(_) | Value::DateTime(_) => return bytes(hex_bytes(&text(&args[0]))),
        Value::Int(i) => *i as u64,
        Value::UInt(u) => *u,
        Value::Decimal(d) => {
            let i = decimal_to_i128(*d);
            if i < i64::MIN as i128 || i > u64::MAX as i128 {
                u64::MAX
            } else {
                i as i64 as u64
            }
        }
        Value::Double(x) => {
            // MariaDB rounds half away from zero here and saturates outside the 64-bit range.
            if *x <= i64::MIN as f64 || *x >= u64::MAX as f64 {
                u64::MAX
            } else if *x >= 0.0 {
                (x + 0.5) as u64
            } else {
                (x - 0.5) as i64 as u64
            }
        }
    };
    bytes(format!("{n:X}").into_bytes())
}

fn unhex(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = text(&args[0]);
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(s.len() / 2 + 1);
    let mut i = 0;
    if s.len() % 2 == 1 {
        match digit(s[0]) {
            Some(d) => out.push(d),
            None => return Ok(Value::Null),
        }
        i = 1;
    }
    while i < s.len() {
        match (digit(s[i]), digit(s[i + 1])) {
            (Some(h), Some(l)) => out.push(h << 4 | l),
            _ => return Ok(Value::Null),
        }
        i += 2;
    }
    bytes(out)
}

fn strcmp(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    Ok(Value::Int(match text(&args[0]).cmp(&text(&args[1])) {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }))
}

fn field(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if args[0].is_null() {
        return Ok(Value::Int(0));
    }
    let pos = args[1..].iter().position(|a| compare(&args[0], a) == Some(Ordering::Equal));
    Ok(Value::Int(pos.map_or(0, |p| p as i64 + 1)))
}

fn elt(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args[0].is_null() {
        return Ok(Value::Null);
    }
    let n = int_arg(&args[0], ctx);
    if n < 1 || n as usize >= args.len() {
        return Ok(Value::Null);
    }
    Ok(match &args[n as usize] {
        Value::Null => Value::Null,
        v => Value::Bytes(text(v)),
    })
}

fn find_in_set(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let s = text(&args[0]);
    let list = text(&args[1]);
    if s.contains(&b',') || list.is_empty() {
        return Ok(Value::Int(0));
    }
    let pos = list.split(|&c| c == b',').position(|item| item == s.as_slice());
    Ok(Value::Int(pos.map_or(0, |p| p as i64 + 1)))
}

fn quote(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if args[0].is_null() {
        return bytes(b"NULL".to_vec());
    }
    let s = text(&args[0]);
    let mut out = Vec::with_capacity(s.len() + 2);
    out.push(b'\'');
    for &c in &s {
        match c {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\'' => out.extend_from_slice(b"\\'"),
            0 => out.extend_from_slice(b"\\0"),
            0x1a => out.extend_from_slice(b"\\Z"),
            _ => out.push(c),
        }
    }
    out.push(b'\'');
    bytes(out)
}

/// FORMAT(x, d): rounded half away from zero to `d` decimals, ',' thousands separators (en_US;
/// the locale argument is accepted and ignored).
fn format(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if args[0].is_null() || args[1].is_null() {
        return Ok(Value::Null);
    }
    let d = int_arg(&args[1], ctx).clamp(0, FORMAT_MAX_DECIMALS);
    let number = match &args[0] {
        Value::Bytes(b) => {
            let x = f64_arg(&Value::Bytes(b.clone()), ctx);
            crate::value::num::dec_from_f64(x)
        }
        other => value_to_decimal(other, ctx),
    };
    let Ok(number) = number else {
        // Beyond DECIMAL range (a huge double): MariaDB prints the double itself.
        return bytes(text(&args[0]));
    };
    let rounded = dec_round(number, d, RoundMode::HalfAwayFromZero).unwrap_or(number);
    let rounded = rounded.rescale(d as u8).unwrap_or(rounded);
    let mut plain = Vec::new();
    push_decimal(rounded, &mut plain);
    let (negative, digits) = match plain.first() {
        Some(b'-') => (true, &plain[1..]),
        _ => (false, &plain[..]),
    };
    let point = digits.iter().position(|&c| c == b'.').unwrap_or(digits.len());
    let (int, frac) = digits.split_at(point);
    let mut out = Vec::with_capacity(plain.len() + plain.len() / 3);
    if negative {
        out.push(b'-');
    }
    for (i, &c) in int.iter().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(b',');
        }
        out.push(c);
    }
    out.extend_from_slice(frac);
    bytes(out)
}

fn to_base64(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(text(&args[0]));
    let mut out = Vec::with_capacity(encoded.len() + encoded.len() / BASE64_LINE_LEN);
    for (i, chunk) in encoded.as_bytes().chunks(BASE64_LINE_LEN).enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        out.extend_from_slice(chunk);
    }
    bytes(out)
}

fn from_base64(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let input = text(&args[0]);
    let compact: Vec<u8> = input.iter().copied().filter(|c| !c.is_ascii_whitespace()).collect();
    match base64::engine::general_purpose::STANDARD.decode(compact) {
        Ok(v) => bytes(v),
        Err(_) => {
            // MariaDB names the first offending byte, or the end for missing padding.
            let valid = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=') || c.is_ascii_whitespace();
            let at = input.iter().position(|&c| !valid(c)).unwrap_or(input.len());
            ctx.warn(1958, format!("Bad base64 data as position {at}"));
            Ok(Value::Null)
        }
    }
}

fn lower_hex(digest: &[u8]) -> Vec<u8> {
    hex_bytes(digest).to_ascii_lowercase()
}

fn md5(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    bytes(lower_hex(&md5::Md5::digest(text(&args[0]))))
}

fn sha1(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    bytes(lower_hex(&sha1::Sha1::digest(text(&args[0]))))
}

fn sha2(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let data = text(&args[0]);
    let digest = match int_arg(&args[1], ctx) {
        0 | 256 => sha2::Sha256::digest(&data).to_vec(),
        224 => sha2::Sha224::digest(&data).to_vec(),
        384 => sha2::Sha384::digest(&data).to_vec(),
        512 => sha2::Sha512::digest(&data).to_vec(),
        _ => {
            ctx.warn(1583, "Incorrect parameters in the call to native function 'sha2'".to_string());
            return Ok(Value::Null);
        }
    };
    bytes(lower_hex(&digest))
}

fn crc32(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    Ok(Value::UInt(crc32fast::hash(&text(&args[0])) as u64))
}
