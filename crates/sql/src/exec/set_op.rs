//! INTERSECT and EXCEPT, DISTINCT and ALL (`plan::SetOpPlan`).
//!
//! The right input is read first into a table of its distinct rows (by their DISTINCT
//! identity: strings of a `_ci` collation by their sort keys, NULL equal to NULL) with their
//! counts; the left rows then stream through it, in left order, as MariaDB returns them.
//!
//! Known limit: the right side's table is held in memory (MariaDB's temporary table spills).

use std::collections::{HashMap, HashSet};

use crate::error::SqlError;
use crate::plan::SetOpPlan;

use super::ctx::ExecCtx;
use super::operator::Operator;
use super::step::{collated_group_key_of, row_or_return, Step};

pub(super) struct SetOpOp<'p> {
    plan: &'p SetOpPlan,
    left: Box<dyn Operator + 'p>,
    /// Present until the right input has been read into `counts`.
    right: Option<Box<dyn Operator + 'p>>,
    /// Right rows by identity: how many copies are still to match.
    counts: HashMap<Vec<u8>, u64>,
    /// DISTINCT: the identities already returned.
    returned: HashSet<Vec<u8>>,
}

impl<'p> SetOpOp<'p> {
    pub(super) fn new(plan: &'p SetOpPlan, left: Box<dyn Operator + 'p>, right: Box<dyn Operator + 'p>) -> Self {
        SetOpOp { plan, left, right: Some(right), counts: HashMap::new(), returned: HashSet::new() }
    }
}

impl Operator for SetOpOp<'_> {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        if let Some(right) = &mut self.right {
            loop {
                match right.next(cx)? {
                    Step::Row(r) => {
                        let mut key = Vec::new();
                        collated_group_key_of(&r, &self.plan.collations, &mut key);
                        *self.counts.entry(key).or_insert(0) += 1;
                    }
                    Step::Pause => return Ok(Step::Pause),
                    Step::Done => break,
                }
            }
            self.right = None;
        }
        loop {
            let row = row_or_return!(self.left.next(cx)?);
            let mut key = Vec::new();
            collated_group_key_of(&row, &self.plan.collations, &mut key);
            let keep = if self.plan.all {
                match self.counts.get_mut(&key) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        self.plan.intersect
                    }
                    _ => !self.plan.intersect,
                }
            } else {
                self.counts.contains_key(&key) == self.plan.intersect && self.returned.insert(key)
            };
            if keep {
                return Ok(Step::Row(row));
            }
            if cx.tick()? {
                return Ok(Step::Pause);
            }
        }
    }
}
