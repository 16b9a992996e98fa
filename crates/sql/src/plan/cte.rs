//! WITH RECURSIVE: the plan of a recursive common table expression.
//!
//! The anchor parts run once; their rows are the first working table. Each iteration runs
//! the recursive parts with their references to the CTE reading the previous iteration's new
//! rows (`Plan::WorkTable` of the same slot) and stops when an iteration adds no row or after
//! @@max_recursive_iterations iterations (warning 1931), as MariaDB does.

use super::Plan;
use crate::value::SqlType;

#[derive(Debug)]
pub struct RecursiveCte {
    /// The anchor parts (UNION [ALL] of the branches that do not read the CTE).
    pub anchor: Plan,
    /// The recursive parts, run once per iteration.
    pub recursive: Plan,
    /// `ExecCtx::work_tables` slot the recursive parts read.
    pub slot: usize,
    /// UNION DISTINCT somewhere in the definition: a row already produced is not produced (nor
    /// iterated on) again.
    pub distinct: bool,
    /// The CTE's column types (the anchor's): recursive rows are stored into them.
    pub types: Vec<SqlType>,
    /// The CTE's name, for MariaDB's errors.
    pub names: Vec<String>,
}
