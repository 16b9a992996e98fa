//! The operator interface of the pull-based executor.

use super::ctx::ExecCtx;
use super::step::{Row, Step};
use crate::error::SqlError;

/// Operators are `Send`: a statement future holds its operator tree across the awaits of
/// `ExecCtx::pause` and of row locks, and the future moves between worker threads.
pub trait Operator: Send {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError>;
}

/// The next row of `op` where the caller cannot await (pauses must be disabled in `cx`).
pub(super) fn next_sync(op: &mut dyn Operator, cx: &mut ExecCtx) -> Result<Option<Row>, SqlError> {
    loop {
        match op.next(cx)? {
            Step::Row(r) => return Ok(Some(r)),
            Step::Done => return Ok(None),
            Step::Pause => {
                // Harmless if it happens (calling again resumes), but it means a time slice
                // check ran where nobody can yield.
                debug_assert!(false, "an operator paused while pauses were disabled");
            }
        }
    }
}
