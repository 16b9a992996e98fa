//! Window functions' plans: what one `f(...) OVER (PARTITION BY ... ORDER BY ... frame)`
//! computes, with the frame already resolved to MariaDB's defaults by the binder.
//!
//! A `Plan::Window` node sits between the FROM row (or the aggregate's output row) and the
//! select list's projection. Its output rows are its input rows followed by one value per
//! window function, in `WindowPlan::funcs` order; the binder turns the select list's references
//! to window functions into those columns.

use super::{Expr, Plan};
use crate::value::{AggFunc, SqlType};

#[derive(Debug)]
pub struct WindowPlan {
    pub input: Plan,
    pub funcs: Vec<WindowSpec>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum WindowFunc {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    /// NTILE(n): `args[0]` is n.
    Ntile,
    /// LAG(e [, offset]) / LEAD(e [, offset]): `args` = e, offset.
    Lag,
    Lead,
    FirstValue,
    LastValue,
    /// NTH_VALUE(e, n): `args` = e, n.
    NthValue,
    /// An aggregate over the frame: `args[0]` is its argument (none for COUNT(*)).
    Aggregate {
        func: AggFunc,
        arg_type: SqlType,
    },
}

impl WindowFunc {
    /// Functions that read the frame; the others read the whole partition in order.
    pub fn uses_frame(&self) -> bool {
        matches!(
            self,
            WindowFunc::FirstValue | WindowFunc::LastValue | WindowFunc::NthValue | WindowFunc::Aggregate { .. }
        )
    }
}

/// One end of a frame. Offsets are non-negative constants (checked when the window opens).
#[derive(Clone, Debug, PartialEq)]
pub enum FrameBound {
    UnboundedPreceding,
    Preceding(Expr),
    CurrentRow,
    Following(Expr),
    UnboundedFollowing,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// ROWS (physical offsets) or RANGE (offsets on the single ORDER BY value; CURRENT ROW
    /// means the row's peers).
    pub rows: bool,
    pub start: FrameBound,
    pub end: FrameBound,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WindowSpec {
    pub func: WindowFunc,
    /// Evaluated on the input row.
    pub args: Vec<Expr>,
    /// PARTITION BY values, on the input row (strings as their collation's sort keys).
    pub partition: Vec<Expr>,
    /// ORDER BY values and directions (descending = true), on the input row.
    pub order: Vec<(Expr, bool)>,
    pub frame: Frame,
}
