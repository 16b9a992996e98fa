//! GROUP BY ... WITH ROLLUP, as MariaDB computes it: the rows are sorted by the GROUP BY
//! values (the external sort: it spills) and read group by group; one set of aggregates per
//! prefix of the GROUP BY list runs alongside, and when a group ends, so does every longer
//! prefix than the values it shares with the next group: their rows follow it, the
//! rolled-up values NULL, the grand total last.
//!
//! Like MariaDB, a super-aggregate row's other columns come from the last group it covers,
//! and its aggregates see their rows in group order (GROUP_CONCAT's order).

use std::cmp::Ordering;
use std::collections::VecDeque;

use crate::error::SqlError;
use crate::plan::AggregatePlan;
use crate::types::Value;
use crate::value;

use super::aggregate::{finish_group, new_group, update_group, Group};
use super::ctx::ExecCtx;
use super::operator::Operator;
use super::sort::{leading_keys, Sorter};
use super::step::{Row, Step};

pub(super) struct RollupOp<'p> {
    plan: &'p AggregatePlan,
    /// Present until every input row is in the sorter.
    input: Option<Box<dyn Operator + 'p>>,
    /// Rows as [sort keys.., GROUP BY values.., input row..].
    sorter: Sorter<'static>,
    /// `levels[l]`: the aggregates of the first `l` GROUP BY values (l = g: the group).
    levels: Vec<Option<Group>>,
    /// Sort keys of the group being read.
    current: Option<Row>,
    /// The first input row of the last group (a super-aggregate row's other columns).
    last_first_row: Row,
    out: VecDeque<Row>,
    done: bool,
    concat_max_len: usize,
}

impl<'p> RollupOp<'p> {
    pub(super) fn new(plan: &'p AggregatePlan, input: Box<dyn Operator + 'p>, cx: &ExecCtx) -> RollupOp<'p> {
        let g = plan.group_by.len();
        RollupOp {
            plan,
            input: Some(input),
            sorter: Sorter::new(leading_keys(g), cx.sort_budget(), None),
            levels: (0..=g).map(|_| None).collect(),
            current: None,
            last_first_row: Vec::new(),
            out: VecDeque::new(),
            done: false,
            concat_max_len: cx.env.vars.group_concat_max_len(),
        }
    }

    /// Ends the aggregates of levels `from..=g`, longest prefix first.
    fn end_levels(&mut self, from: usize, cx: &ExecCtx) {
        for l in (from..self.levels.len()).rev() {
            if let Some(mut group) = self.levels[l].take() {
                if l < self.plan.group_by.len() {
                    group.first_row = self.last_first_row.clone();
                }
                self.out.push_back(finish_group(self.plan, group, self.concat_max_len, cx));
            }
        }
    }
}

impl Operator for RollupOp<'_> {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        let g = self.plan.group_by.len();
        if let Some(input) = &mut self.input {
            loop {
                if cx.tick()? {
                    return Ok(Step::Pause);
                }
                match input.next(cx)? {
                    Step::Row(r) => {
                        let mut keyed = Vec::with_capacity(2 * g + r.len());
                        let mut keys = Vec::with_capacity(g);
                        for (i, e) in self.plan.group_by.iter().enumerate() {
                            let v = e.eval(&r, cx)?;
                            // Strings of a `_ci` collation group and sort by their sort keys.
                            keyed.push(match (&v, self.plan.group_collations.get(i).copied().flatten()) {
                                (Value::Bytes(b), Some(c)) => {
                                    let mut key = Vec::with_capacity(b.len() * 2);
                                    c.sort_key(b, &mut key);
                                    Value::Bytes(key)
                                }
                                _ => v.clone(),
                            });
                            keys.push(v);
                        }
                        keyed.extend(keys);
                        keyed.extend(r);
                        self.sorter.push(keyed, cx)?;
                    }
                    Step::Pause => return Ok(Step::Pause),
                    Step::Done => break,
                }
            }
            self.input = None;
            self.sorter.finish(cx)?;
        }
        loop {
            if let Some(r) = self.out.pop_front() {
                return Ok(Step::Row(r));
            }
            if self.done {
                return Ok(Step::Done);
            }
            let mut row = match self.sorter.next(cx)? {
                Step::Row(r) => r,
                Step::Pause => return Ok(Step::Pause),
                Step::Done => {
                    self.done = true;
                    if self.current.is_some() {
                        self.end_levels(0, cx);
                    }
                    continue;
                }
            };
            let input = row.split_off(2 * g);
            let keys = row.split_off(g);
            let sort_keys = row;
            let shared = match &self.current {
                Some(cur) => (0..g).find(|&i| value::sort_compare(&cur[i], &sort_keys[i]) != Ordering::Equal),
                None => None,
            };
            if let Some(p) = shared {
                self.end_levels(p + 1, cx);
            }
            if self.levels[g].is_none() {
                self.last_first_row = input.clone();
            }
            for l in 0..=g {
                if self.levels[l].is_none() {
                    let mut level_keys: Row = keys[..l].to_vec();
                    level_keys.resize(g, Value::Null);
                    self.levels[l] = Some(new_group(self.plan, level_keys, input.clone()));
                }
                if let Some(group) = self.levels[l].as_mut() {
                    update_group(self.plan, group, &input, cx)?;
                }
            }
            self.current = Some(sort_keys);
        }
    }
}
