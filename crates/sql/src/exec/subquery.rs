//! Subqueries inside expressions: run once per statement and cached (uncorrelated), or per
//! row (correlated), with pauses disabled because expression evaluation cannot await.

use std::sync::Arc;

use super::ctx::{ExecCtx, SubResult};
use super::eval::bool_value;
use super::operator::next_sync;
use super::sort::{leading_keys, Sorter};
use super::spill;
use super::step::Step;
use super::value_set::ValueSet;
use crate::error::{self, SqlError};
use crate::plan::{QueryPlan, Subquery, SubqueryKind};
use crate::types::Value;
use crate::value;

impl Subquery {
    /// Evaluates a subquery expression for the current row.
    pub fn eval(&self, row: &[Value], cx: &mut ExecCtx) -> Result<Value, SqlError> {
        let sq = self;
        let cached = if sq.correlated { None } else { cx.sub_cache.get(sq.cache_slot).cloned().flatten() };
        let result = match cached {
            Some(r) => r,
            None => {
                let outer_row = row.get(sq.outer_offset..).unwrap_or(&[]).to_vec();
                cx.outer.push(outer_row);
                // Expression evaluation cannot await: the subquery runs without pauses.
                let pauses = cx.set_pauses_enabled(false);
                let r = run_subquery(sq, cx);
                cx.set_pauses_enabled(pauses);
                cx.outer.pop();
                let r = r?;
                if !sq.correlated {
                    if cx.sub_cache.len() <= sq.cache_slot {
                        cx.sub_cache.resize(sq.cache_slot + 1, None);
                    }
                    cx.sub_cache[sq.cache_slot] = Some(r.clone());
                }
                r
            }
        };
        match (&sq.kind, result) {
            (SubqueryKind::Scalar, SubResult::Scalar(v)) => Ok(v),
            (SubqueryKind::Exists { negated }, SubResult::Exists(e)) => Ok(bool_value(e != *negated)),
            (SubqueryKind::In { expr, negated }, SubResult::Values { values, ints }) => {
                let v = expr.eval(row, cx)?;
                if v.is_null() {
                    return Ok(if values.is_empty() { bool_value(*negated) } else { Value::Null });
                }
                if let (Some(set), Some(i)) = (&ints, as_i128(&v)) {
                    if set.contains(&i) {
                        return Ok(bool_value(!*negated));
                    }
                    let saw_null = values.iter().any(Value::is_null);
                    return Ok(if saw_null { Value::Null } else { bool_value(*negated) });
                }
                let mut saw_null = false;
                for x in values.iter() {
                    match value::compare(&v, x) {
                        Some(std::cmp::Ordering::Equal) => return Ok(bool_value(!*negated)),
                        None => saw_null = true,
                        Some(_) => {}
                    }
                }
                Ok(if saw_null { Value::Null } else { bool_value(*negated) })
            }
            (SubqueryKind::In { expr, negated }, SubResult::Spilled(set)) => {
                // The set holds at least one row (it outgrew its budget): a NULL probe is NULL.
                let v = expr.eval(row, cx)?;
                if v.is_null() {
                    return Ok(Value::Null);
                }
                if set.contains(&v)? {
                    return Ok(bool_value(!*negated));
                }
                Ok(if set.saw_null { Value::Null } else { bool_value(*negated) })
            }
            _ => Err(error::internal("subquery result does not match its kind")),
        }
    }
}

/// An integer value as i128 (both signednesses compare numerically in MySQL).
fn as_i128(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(*i as i128),
        Value::UInt(u) => Some(*u as i128),
        _ => None,
    }
}

fn run_subquery(sq: &Subquery, cx: &mut ExecCtx) -> Result<SubResult, SqlError> {
    let plan: Arc<QueryPlan> = sq.plan.clone();
    let mut op = plan.root.open(cx)?;
    match sq.kind {
        SubqueryKind::Scalar => {
            let first = next_sync(&mut *op, cx)?;
            if first.is_some() && next_sync(&mut *op, cx)?.is_some() {
                return Err(error::subquery_rows());
            }
            Ok(SubResult::Scalar(first.and_then(|r| r.into_iter().next()).unwrap_or(Value::Null)))
        }
        SubqueryKind::Exists { .. } => Ok(SubResult::Exists(next_sync(&mut *op, cx)?.is_some())),
        SubqueryKind::In { .. } => {
            let mut values = Vec::new();
            let mut bytes = 0;
            let budget = cx.tmp_table_budget();
            while let Some(r) = next_sync(&mut *op, cx)? {
                bytes += spill::row_bytes(&r);
                values.push(r.into_iter().next().unwrap_or(Value::Null));
                if bytes > budget {
                    let mut rest = |cx: &mut ExecCtx| {
                        Ok(next_sync(&mut *op, cx)?.map(|r| r.into_iter().next().unwrap_or(Value::Null)))
                    };
                    let set = spill_values(values, &mut rest, cx)?;
                    return Ok(SubResult::Spilled(Arc::new(set)));
                }
            }
            let ints = values
                .iter()
                .filter(|v| !v.is_null())
                .map(as_i128)
                .collect::<Option<std::collections::HashSet<i128>>>()
                .map(Arc::new);
            Ok(SubResult::Values { values: Arc::new(values), ints })
        }
    }
}

/// Moves the values of an IN subquery that outgrew its budget to a `ValueSet`: `values` read
/// so far and the rest from `rest`, sorted (spilling past sort_buffer_size), then written out.
fn spill_values(
    values: Vec<Value>,
    rest: &mut dyn FnMut(&mut ExecCtx) -> Result<Option<Value>, SqlError>,
    cx: &mut ExecCtx,
) -> Result<ValueSet, SqlError> {
    let mut sorter = Sorter::new(leading_keys(1), cx.sort_budget(), None);
    for v in values {
        sorter.push(vec![v], cx)?;
    }
    while let Some(v) = rest(cx)? {
        sorter.push(vec![v], cx)?;
    }
    sorter.finish(cx)?;
    let dir = cx.tmpdir();
    ValueSet::from_sorted(&dir, &mut || loop {
        match sorter.next(cx)? {
            Step::Row(mut r) => return Ok(Some(r.pop().unwrap_or(Value::Null))),
            Step::Done => return Ok(None),
            // Pauses are disabled inside expression evaluation; a pause would only mean
            // "call again".
            Step::Pause => continue,
        }
    })
}
