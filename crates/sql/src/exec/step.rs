//! The executor's smallest vocabulary: a row, and what one step of an operator produced.

use crate::charset::Collation;
use crate::types::Value;
use crate::value;

pub type Row = Vec<Value>;

/// What one call of `Operator::next` produced.
#[derive(Debug, PartialEq)]
pub enum Step<T = Row> {
    Row(T),
    /// No more rows.
    Done,
    /// The statement's time slice is used up: the driver yields to the runtime and then calls
    /// `next` again; the operator resumes where it stopped.
    Pause,
}

/// Returns from the enclosing `next` unless `$step` produced a row, which it evaluates to.
macro_rules! row_or_return {
    ($step:expr) => {
        match $step {
            Step::Row(r) => r,
            Step::Done => return Ok(Step::Done),
            Step::Pause => return Ok(Step::Pause),
        }
    };
}
pub(super) use row_or_return;

/// Appends the DISTINCT / GROUP BY identity of `values` to `out`.
/// `group_key_of` with strings keyed by their sort keys where a collation is given.
pub(super) fn collated_group_key_of(values: &[Value], collations: &[Option<Collation>], out: &mut Vec<u8>) {
    for (i, v) in values.iter().enumerate() {
        match (v, collations.get(i).copied().flatten()) {
            (Value::Bytes(b), Some(c)) => {
                let mut key = Vec::with_capacity(b.len() * 2);
                c.sort_key(b, &mut key);
                value::group_key(&Value::Bytes(key), out);
            }
            _ => value::group_key(v, out),
        }
        out.push(0xFF);
    }
}

/// Sort order of two GROUP BY values under their collation (None: `sort_compare`).
pub(super) fn collated_sort_compare(a: &Value, b: &Value, collation: Option<Collation>) -> std::cmp::Ordering {
    match (a, b, collation) {
        (Value::Bytes(x), Value::Bytes(y), Some(c)) => c.compare(x, y),
        _ => value::sort_compare(a, b),
    }
}

pub(super) fn group_key_of(values: &[Value], out: &mut Vec<u8>) {
    for v in values {
        value::group_key(v, out);
        // A separator that no group_key encoding can swallow keeps (a,bc) apart from (ab,c).
        out.push(0xFF);
    }
}
