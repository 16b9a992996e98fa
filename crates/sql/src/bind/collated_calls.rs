//! String functions that compare strings, bound to compare in their operands' collation, as
//! MariaDB does: under a `_ci` collation STRCMP('a', 'A') is 0, FIELD('a', 'A') and
//! FIND_IN_SET('A', 'a,b') are 1, LOCATE('B', 'abc') is 2, GREATEST('a', 'B') is 'B'. With
//! byte-compared operands (`_bin`, binary) or non-string ones the plain functions run.
//!
//! MariaDB's own rules, each checked against 10.11: STRCMP, FIELD, GREATEST and LEAST compare
//! with PAD SPACE where the collation has it (`sortcmp`); FIND_IN_SET and LOCATE / INSTR /
//! POSITION without it (`strnncoll`), LOCATE over windows as long in bytes as the needle (so
//! under utf8mb4_general_ci LOCATE('a', 'Ä') is 0, and under unicode_ci LOCATE('ss', 'straße')
//! finds 'ß'); on a tie GREATEST and LEAST return the first.

use std::cmp::Ordering;

use super::binder::Bound;
use super::collation::sort_key_of;
use crate::charset::Collation;
use crate::error::SqlError;
use crate::plan::{Expr, FuncRef};
use crate::types::Value;
use crate::value::{self, FnContext, ScalarFunction};

/// How a function's call changes when its strings compare in a collation that weighs
/// characters: which arguments take part.
enum Rewrite {
    /// The arguments (all) become sort keys: the function compares them as bytes.
    SortKeys,
    /// The function becomes `variant`, given the collation id as a last argument.
    Variant(&'static ScalarFunction),
}

/// The rewrite of `name` and the arguments whose collations decide it; None for other functions.
fn rewrite_of(name: &str, args: usize) -> Option<(Rewrite, std::ops::Range<usize>)> {
    let upper = name.to_ascii_uppercase();
    Some(match upper.as_str() {
        "STRCMP" | "FIELD" => (Rewrite::SortKeys, 0..args),
        "FIND_IN_SET" => (Rewrite::Variant(&FIND_IN_SET_COLLATED), 0..2),
        "LOCATE" => (Rewrite::Variant(&LOCATE_COLLATED), 0..2),
        "INSTR" => (Rewrite::Variant(&INSTR_COLLATED), 0..2),
        "GREATEST" => (Rewrite::Variant(&GREATEST_COLLATED), 0..args),
        "LEAST" => (Rewrite::Variant(&LEAST_COLLATED), 0..args),
        _ => return None,
    })
}

/// What `call` (the plain function bound over arguments `args`) becomes: unchanged unless its
/// strings compare in a collation that weighs characters. Called with the arguments before
/// the call took them.
pub(super) struct CollatedCall {
    rewrite: Rewrite,
    collation: Collation,
}

impl super::binder::Binder<'_> {
    /// The collation `name(args)` compares its strings in, when it is such a function and
    /// that collation weighs characters (1267 for an illegal mix, as MariaDB).
    pub(super) fn collated_call(&self, name: &str, args: &[Bound]) -> Result<Option<CollatedCall>, SqlError> {
        let Some((rewrite, range)) = rewrite_of(name, args.len()) else { return Ok(None) };
        let operands: Vec<&Bound> = args[range.start..range.end.min(args.len())].iter().collect();
        let lower = name.to_ascii_lowercase();
        Ok(self.comparison_collation(&operands, &lower)?.map(|collation| CollatedCall { rewrite, collation }))
    }
}

impl CollatedCall {
    /// Applies the rewrite to the bound plain call.
    pub(super) fn apply(self, mut call: Bound) -> Bound {
        let Expr::Func { func, args } = call.expr else { return call };
        call.expr = match self.rewrite {
            Rewrite::SortKeys => {
                Expr::Func { func, args: args.into_iter().map(|a| sort_key_of(a, self.collation)).collect() }
            }
            Rewrite::Variant(variant) => {
                let mut args = args;
                args.push(Expr::Literal(Value::Int(self.collation.id() as i64)));
                Expr::Func { func: FuncRef(variant), args }
            }
        };
        call
    }
}

/// The collation id each variant gets as its last argument, and the arguments before it.
fn split_collation(args: &[Value]) -> (&[Value], Option<Collation>) {
    let (last, rest) = args.split_last().expect("a collated call has its collation argument");
    let collation = match last {
        Value::Int(id) => Collation::by_id(*id as u64),
        _ => None,
    };
    (rest, collation)
}

fn text(v: &Value) -> Vec<u8> {
    value::to_text_bytes(v).unwrap_or_default()
}

/// Equal without PAD SPACE (MariaDB's strnncoll): trailing spaces count.
fn equal_no_pad(c: Collation, a: &[u8], b: &[u8]) -> bool {
    let spaces = |s: &[u8]| s.iter().rev().take_while(|&&b| b == b' ').count();
    c.compare(a, b) == Ordering::Equal && spaces(a) == spaces(b)
}

/// Calls the plain function of `name` on `args` (the cases the variants leave to it).
fn plain(name: &str, args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let f = value::lookup_function(name).expect("a built-in function");
    (f.eval)(args, ctx)
}

static FIND_IN_SET_COLLATED: ScalarFunction = ScalarFunction {
    name: "FIND_IN_SET",
    min_args: 3,
    max_args: 3,
    deterministic: true,
    return_type: |_| value::SqlType::Int { bits: 64, unsigned: false },
    eval: |args, ctx| {
        let (args, Some(c)) = split_collation(args) else { return plain("FIND_IN_SET", &args[..2], ctx) };
        if args.iter().any(Value::is_null) {
            return Ok(Value::Null);
        }
        let s = text(&args[0]);
        let list = text(&args[1]);
        if s.contains(&b',') || list.is_empty() {
            return Ok(Value::Int(0));
        }
        let pos = list.split(|&b| b == b',').position(|item| equal_no_pad(c, item, &s));
        Ok(Value::Int(pos.map_or(0, |p| p as i64 + 1)))
    },
};

/// LOCATE(needle, hay[, pos]) compared in the collation (see the module comment).
fn locate_collated(needle: &[u8], hay: &[u8], from_char: usize, c: Collation) -> i64 {
    let mut char_index = 0usize;
    let mut at = 0usize;
    while at + needle.len() <= hay.len() {
        if char_index >= from_char && equal_no_pad(c, &hay[at..at + needle.len()], needle) {
            return char_index as i64 + 1;
        }
        at += utf8_char_len(hay[at]);
        char_index += 1;
    }
    0
}

fn utf8_char_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

static LOCATE_COLLATED: ScalarFunction = ScalarFunction {
    name: "LOCATE",
    min_args: 3,
    max_args: 4,
    deterministic: true,
    return_type: |_| value::SqlType::Int { bits: 64, unsigned: false },
    eval: |args, ctx| {
        let (args, collation) = split_collation(args);
        if args.iter().any(Value::is_null) {
            return Ok(Value::Null);
        }
        let needle = text(&args[0]);
        let (Some(c), false) = (collation, needle.is_empty()) else { return plain("LOCATE", args, ctx) };
        let hay = text(&args[1]);
        let from = match args.get(2) {
            None => 0,
            Some(p) => {
                let pos = value::to_i64(p).unwrap_or(0);
                let chars = std::str::from_utf8(&hay).map_or(hay.len(), |s| s.chars().count()) as i64;
                if pos < 1 || pos > chars + 1 {
                    return Ok(Value::Int(0));
                }
                (pos - 1) as usize
            }
        };
        Ok(Value::Int(locate_collated(&needle, &hay, from, c)))
    },
};

static INSTR_COLLATED: ScalarFunction = ScalarFunction {
    name: "INSTR",
    min_args: 3,
    max_args: 3,
    deterministic: true,
    return_type: |_| value::SqlType::Int { bits: 64, unsigned: false },
    eval: |args, ctx| {
        let (args, collation) = split_collation(args);
        if args.iter().any(Value::is_null) {
            return Ok(Value::Null);
        }
        let needle = text(&args[1]);
        let (Some(c), false) = (collation, needle.is_empty()) else { return plain("INSTR", args, ctx) };
        Ok(Value::Int(locate_collated(&needle, &text(&args[0]), 0, c)))
    },
};

/// GREATEST / LEAST of strings in the collation: the first of the extreme ones, as it is.
fn extreme(args: &[Value], want: Ordering, name: &str, ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let (args, collation) = split_collation(args);
    let Some(c) = collation else { return plain(name, args, ctx) };
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let mut best = &args[0];
    let mut best_text = text(best);
    for a in &args[1..] {
        let t = text(a);
        if c.compare(&t, &best_text) == want {
            best = a;
            best_text = t;
        }
    }
    Ok(best.clone())
}

static GREATEST_COLLATED: ScalarFunction = ScalarFunction {
    name: "GREATEST",
    min_args: 3,
    max_args: usize::MAX,
    deterministic: true,
    return_type: |args| args.first().cloned().unwrap_or(value::SqlType::Null),
    eval: |args, ctx| extreme(args, Ordering::Greater, "GREATEST", ctx),
};

static LEAST_COLLATED: ScalarFunction = ScalarFunction {
    name: "LEAST",
    min_args: 3,
    max_args: usize::MAX,
    deterministic: true,
    return_type: |args| args.first().cloned().unwrap_or(value::SqlType::Null),
    eval: |args, ctx| extreme(args, Ordering::Less, "LEAST", ctx),
};
