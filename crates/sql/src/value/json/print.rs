//! JSON text out: MariaDB's three layouts (JSON_EXTRACT's `[1, 2]`, JSON_COMPACT's `[1,2]`,
//! JSON_DETAILED's indented one), JSON_NORMALIZE's canonical form, and string escaping.

use super::doc::{number_value, Json};
use super::escape::{escape_into, unescape};

/// The layout most functions return: ", " between items, ": " after keys.
pub fn print_normal(v: &Json) -> String {
    let mut out = String::new();
    write_flat(v, ", ", ": ", &mut out);
    out
}

/// JSON_COMPACT's layout: no spaces.
pub fn print_compact(v: &Json) -> String {
    let mut out = String::new();
    write_flat(v, ",", ":", &mut out);
    out
}

fn write_flat(v: &Json, comma: &str, colon: &str, out: &mut String) {
    match v {
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                write_flat(item, comma, colon, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                out.push('"');
                out.push_str(k);
                out.push('"');
                out.push_str(colon);
                write_flat(item, comma, colon, out);
            }
            out.push('}');
        }
        scalar => write_scalar(scalar, out),
    }
}

fn write_scalar(v: &Json, out: &mut String) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(true) => out.push_str("true"),
        Json::Bool(false) => out.push_str("false"),
        Json::Number(n) => out.push_str(n),
        Json::Str(s) => {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        Json::Array(_) | Json::Object(_) => unreachable!("containers are not scalars"),
    }
}

/// JSON_DETAILED / JSON_PRETTY: one item a line, indented by `tab` spaces a level; a member's
/// container value goes on the line after its key (MariaDB leaves a space after the colon), an
/// empty object spans two lines, an empty array or one holding a single scalar stays on one.
pub fn print_detailed(v: &Json, tab: usize) -> String {
    let mut out = String::new();
    write_detailed(v, 0, tab, &mut out);
    out
}

fn indent(level: usize, tab: usize, out: &mut String) {
    out.extend(std::iter::repeat_n(' ', level * tab));
}

fn write_detailed(v: &Json, level: usize, tab: usize, out: &mut String) {
    match v {
        Json::Array(items) if items.is_empty() => out.push_str("[]"),
        Json::Array(items) if items.len() == 1 && items[0].is_scalar() => {
            out.push('[');
            write_scalar(&items[0], out);
            out.push(']');
        }
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('\n');
                indent(level + 1, tab, out);
                write_detailed(item, level + 1, tab, out);
            }
            out.push('\n');
            indent(level, tab, out);
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('\n');
                indent(level + 1, tab, out);
                out.push('"');
                out.push_str(k);
                out.push_str("\": ");
                if !item.is_scalar() {
                    out.push('\n');
                    indent(level + 1, tab, out);
                }
                write_detailed(item, level + 1, tab, out);
            }
            out.push('\n');
            indent(level, tab, out);
            out.push('}');
        }
        scalar => write_scalar(scalar, out),
    }
}

/// JSON_NORMALIZE: keys sorted, no spaces, strings re-escaped from their text, numbers as
/// doubles in scientific notation (`1.5E0`, `1.0E2`).
pub fn print_normalized(v: &Json) -> String {
    let mut out = String::new();
    write_normalized(v, &mut out);
    out
}

fn write_normalized(v: &Json, out: &mut String) {
    match v {
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_normalized(item, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            let mut sorted: Vec<(String, &Json)> = members.iter().map(|(k, v)| (unescape(k), v)).collect();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            out.push('{');
            for (i, (k, item)) in sorted.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('"');
                escape_into(k, out);
                out.push_str("\":");
                write_normalized(item, out);
            }
            out.push('}');
        }
        Json::Number(n) => {
            let x = number_value(n);
            let s = format!("{x:E}");
            match s.split_once('E') {
                Some((mantissa, exp)) if !mantissa.contains('.') => {
                    out.push_str(mantissa);
                    out.push_str(".0E");
                    out.push_str(exp);
                }
                _ => out.push_str(&s),
            }
        }
        Json::Str(s) => {
            out.push('"');
            escape_into(&unescape(s), out);
            out.push('"');
        }
        scalar => write_scalar(scalar, out),
    }
}
