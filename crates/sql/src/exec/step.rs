//! The executor's smallest vocabulary: a row, and what one step of an operator produced.

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
pub(super) fn group_key_of(values: &[Value], out: &mut Vec<u8>) {
    for v in values {
        value::group_key(v, out);
        // A separator that no group_key encoding can swallow keeps (a,bc) apart from (ab,c).
        out.push(0xFF);
    }
}
