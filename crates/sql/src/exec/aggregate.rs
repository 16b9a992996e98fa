//! GROUP BY and aggregate functions (architecture §2.1).
//!
//! Groups live in a hash table (group key bytes → group) in first-appearance order. Past its
//! budget, min(tmp_table_size, max_heap_table_size), the table stops taking new groups: rows of
//! groups already in memory still update them there, and every row of a new group goes to an
//! external sort keyed by (GROUP BY values, group key bytes), stable, so each spilled group's
//! rows come back together and in input order. Spilled groups are then aggregated one at a time
//! from the sorted stream, so memory holds one of them however many there are. The results are
//! the in-memory ones: every group sees its rows in input order (SUM of doubles, GROUP_CONCAT
//! and the first row the non-aggregated columns come from agree), and with MariaDB's implicit
//! GROUP BY order the in-memory groups, sorted, are merged with the spilled stream, which the
//! sort already delivers in that order (ties: in-memory groups first, as they appeared first).
//!
//! Known limit: one group's DISTINCT argument set or GROUP_CONCAT items are not spilled
//! (MariaDB's `Unique` does spill them); only the number of groups is bounded.

use std::collections::HashMap;

use crate::error;
use crate::error::SqlError;
use crate::plan::{AggregatePlan, SortKey};
use crate::types::Value;
use crate::value::{self, AggFunc, AggState};

use super::ctx::ExecCtx;
use super::operator::Operator;
use super::sort::{compare_rows, leading_keys, Sorter};
use super::spill::row_bytes;
use super::step::{collated_group_key_of, collated_sort_compare, group_key_of, Row, Step};

/// Memory of a group beyond its key and rows: its hash table entry and `Group` header.
const GROUP_OVERHEAD: usize = 96;

/// Memory of one entry of a DISTINCT argument set beyond its key bytes.
const SET_ENTRY_OVERHEAD: usize = 48;

/// Running state of one aggregate over one group.
enum AggAcc {
    Plain(AggState),
    /// COUNT(DISTINCT ...), SUM(DISTINCT ...), ...: distinct argument tuples seen so far.
    Distinct {
        state: AggState,
        seen: std::collections::HashSet<Vec<u8>>,
    },
    /// GROUP_CONCAT: collected (sort key values, text) pairs.
    Concat {
        items: Vec<(Row, Vec<u8>)>,
        seen: Option<std::collections::HashSet<Vec<u8>>>,
    },
}

pub(super) struct Group {
    pub(super) keys: Row,
    accs: Vec<AggAcc>,
    pub(super) first_row: Row,
}

pub(super) struct AggregateOp<'p> {
    plan: &'p AggregatePlan,
    state: State<'p>,
    /// @@group_concat_max_len: GROUP_CONCAT results are cut there (warning 1260).
    concat_max_len: usize,
    /// Memory for in-memory groups (min(tmp_table_size, max_heap_table_size)).
    budget: usize,
}

enum State<'p> {
    /// Reading input rows into groups (kept here so that a pause loses nothing).
    Collecting {
        input: Box<dyn Operator + 'p>,
        groups: Vec<Group>,
        index: HashMap<Vec<u8>, usize>,
        /// Estimated memory of `groups` and `index`.
        bytes: usize,
        /// Rows of groups that did not fit: [GROUP BY values.., group key bytes, input row..].
        spill: Option<Sorter<'static>>,
    },
    Output(Output),
}

struct Output {
    /// Finished in-memory groups, in output order.
    memory: std::iter::Peekable<std::vec::IntoIter<Row>>,
    spilled: Option<SpilledGroups>,
    /// Merge the two streams by GROUP BY values (MariaDB's implicit GROUP BY order).
    merge_keys: Option<Vec<SortKey>>,
}

/// A spilled row split into its parts.
struct SpilledRow {
    keys: Row,
    key: Vec<u8>,
    input: Row,
}

/// Aggregates the sorted spilled rows one group at a time.
struct SpilledGroups {
    sorter: Sorter<'static>,
    /// The first row of the next group, read while finishing the previous one.
    lookahead: Option<SpilledRow>,
    current: Option<(Vec<u8>, Group)>,
    /// The next finished group, waiting for its turn in the merge with the in-memory groups.
    ready: Option<Row>,
    done: bool,
}

impl<'p> AggregateOp<'p> {
    pub(super) fn new(plan: &'p AggregatePlan, input: Box<dyn Operator + 'p>, cx: &ExecCtx) -> AggregateOp<'p> {
        AggregateOp {
            plan,
            state: State::Collecting { input, groups: Vec::new(), index: HashMap::new(), bytes: 0, spill: None },
            concat_max_len: cx.env.vars.group_concat_max_len(),
            budget: cx.tmp_table_budget(),
        }
    }
}

pub(super) fn new_group(plan: &AggregatePlan, keys: Row, first_row: Row) -> Group {
    let accs = plan
        .aggs
        .iter()
        .map(|a| match a.func {
            AggFunc::GroupConcat => {
                AggAcc::Concat { items: Vec::new(), seen: a.distinct.then(std::collections::HashSet::new) }
            }
            f if a.distinct => AggAcc::Distinct { state: AggState::new(f, &a.arg_type), seen: Default::default() },
            f => AggAcc::Plain(AggState::new(f, &a.arg_type)),
        })
        .collect();
    Group { keys, accs, first_row }
}

/// Adds `row` to `group`; returns the memory the group's accumulators grew by (DISTINCT
/// argument sets, GROUP_CONCAT items).
pub(super) fn update_group(
    plan: &AggregatePlan,
    group: &mut Group,
    row: &[Value],
    cx: &mut ExecCtx,
) -> Result<usize, SqlError> {
    let mut grown = 0;
    for (spec, acc) in plan.aggs.iter().zip(group.accs.iter_mut()) {
        let mut args: smallvec::SmallVec<[Value; 2]> = smallvec::SmallVec::new();
        for a in &spec.args {
            args.push(a.eval(row, cx)?);
        }
        match acc {
            AggAcc::Plain(state) => {
                if spec.func == AggFunc::CountStar {
                    state.update(&Value::Int(1), &*cx)?;
                } else {
                    state.update(args.first().unwrap_or(&Value::Null), &*cx)?;
                }
            }
            AggAcc::Distinct { state, seen } => {
                // Rows with a NULL argument never count (COUNT(DISTINCT a, b) included).
                if args.iter().any(Value::is_null) {
                    continue;
                }
                debug_assert!(!args.is_empty(), "DISTINCT aggregates have arguments");
                let mut key = Vec::new();
                group_key_of(&args, &mut key);
                let len = key.len();
                if seen.insert(key) {
                    grown += len + SET_ENTRY_OVERHEAD;
                    state.update(args.first().unwrap_or(&Value::Null), &*cx)?;
                }
            }
            AggAcc::Concat { items, seen } => {
                if args.iter().any(Value::is_null) {
                    continue;
                }
                if let Some(seen) = seen {
                    let mut key = Vec::new();
                    group_key_of(&args, &mut key);
                    let len = key.len();
                    if !seen.insert(key) {
                        continue;
                    }
                    grown += len + SET_ENTRY_OVERHEAD;
                }
                let mut text = Vec::new();
                for a in &args {
                    text.extend(value::to_text_bytes(a).unwrap_or_default());
                }
                let mut sort_vals = Vec::with_capacity(spec.order.len());
                for (e, _) in &spec.order {
                    sort_vals.push(e.eval(row, cx)?);
                }
                grown += text.len() + row_bytes(&sort_vals);
                items.push((sort_vals, text));
            }
        }
    }
    Ok(grown)
}

/// Joins GROUP_CONCAT items with `separator`, cut at `max_len` bytes (never inside a UTF-8
/// character of text). Returns the text and, if it was cut, the 1-based number of the item
/// that did not fit (MariaDB's "Row N was cut by GROUP_CONCAT()").
fn concat_items(items: &[(Row, Vec<u8>)], separator: &[u8], max_len: usize) -> (Vec<u8>, Option<usize>) {
    let mut text = Vec::new();
    for (i, (_, t)) in items.iter().enumerate() {
        if i > 0 {
            text.extend_from_slice(separator);
        }
        text.extend_from_slice(t);
        if text.len() > max_len {
            let mut cut = max_len;
            if std::str::from_utf8(&text).is_ok() {
                while cut > 0 && text[cut] & 0xC0 == 0x80 {
                    cut -= 1;
                }
            }
            text.truncate(cut);
            return (text, Some(i + 1));
        }
    }
    (text, None)
}

pub(super) fn finish_group(plan: &AggregatePlan, group: Group, concat_max_len: usize, cx: &ExecCtx) -> Row {
    let mut out = group.keys;
    for (spec, acc) in plan.aggs.iter().zip(group.accs) {
        out.push(match acc {
            AggAcc::Plain(s) | AggAcc::Distinct { state: s, .. } => s.finish(),
            AggAcc::Concat { mut items, .. } => {
                if items.is_empty() {
                    Value::Null
                } else {
                    if !spec.order.is_empty() {
                        items.sort_by(|a, b| {
                            for (i, (_, desc)) in spec.order.iter().enumerate() {
                                let o = value::sort_compare(&a.0[i], &b.0[i]);
                                let o = if *desc { o.reverse() } else { o };
                                if o != std::cmp::Ordering::Equal {
                                    return o;
                                }
                            }
                            std::cmp::Ordering::Equal
                        });
                    }
                    let (text, cut_at) = concat_items(&items, &spec.separator, concat_max_len);
                    if let Some(n) = cut_at {
                        cx.push_warning(
                            crate::types::WarnLevel::Warning,
                            1260,
                            format!("Row {n} was cut by GROUP_CONCAT()"),
                        );
                    }
                    Value::Bytes(text)
                }
            }
        });
    }
    out.extend(group.first_row);
    out
}

impl Operator for AggregateOp<'_> {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        if let State::Collecting { input, groups, index, bytes, spill } = &mut self.state {
            let plan = self.plan;
            let mut key_bytes = Vec::new();
            loop {
                if cx.tick()? {
                    return Ok(Step::Pause);
                }
                let row = match input.next(cx)? {
                    Step::Row(r) => r,
                    Step::Pause => return Ok(Step::Pause),
                    Step::Done => break,
                };
                let mut keys = Vec::with_capacity(plan.group_by.len());
                for g in &plan.group_by {
                    keys.push(g.eval(&row, cx)?);
                }
                key_bytes.clear();
                if plan.group_collations.iter().any(Option::is_some) {
                    collated_group_key_of(&keys, &plan.group_collations, &mut key_bytes);
                } else {
                    group_key_of(&keys, &mut key_bytes);
                }
                let gi = match index.get(&key_bytes) {
                    Some(&gi) => gi,
                    None => {
                        if let Some(sorter) = spill {
                            let mut spilled = keys;
                            spilled.push(Value::Bytes(key_bytes.clone()));
                            spilled.extend(row);
                            sorter.push(spilled, cx)?;
                            continue;
                        }
                        *bytes += key_bytes.len() + row_bytes(&keys) + row_bytes(&row) + GROUP_OVERHEAD;
                        index.insert(key_bytes.clone(), groups.len());
                        groups.push(new_group(plan, keys, row.clone()));
                        if *bytes > self.budget && !plan.group_by.is_empty() {
                            // Full: new groups go to disk from now on.
                            *spill = Some(Sorter::new(leading_keys(plan.group_by.len() + 1), cx.sort_budget(), None));
                        }
                        groups.len() - 1
                    }
                };
                *bytes += update_group(plan, &mut groups[gi], &row, cx)?;
            }
            let mut groups = std::mem::take(groups);
            if groups.is_empty() && plan.group_by.is_empty() {
                // Aggregates without GROUP BY always produce one row (COUNT(*) = 0, SUM = NULL).
                groups.push(new_group(plan, Vec::new(), vec![Value::Null; plan.input_width]));
            }
            if plan.sort_groups && groups.len() > 1 {
                groups.sort_by(|a, b| {
                    for (i, (x, y)) in a.keys.iter().zip(&b.keys).enumerate() {
                        let o = collated_sort_compare(x, y, plan.group_collations.get(i).copied().flatten());
                        if o != std::cmp::Ordering::Equal {
                            return o;
                        }
                    }
                    std::cmp::Ordering::Equal
                });
            }
            let rows: Vec<Row> = groups.into_iter().map(|g| finish_group(plan, g, self.concat_max_len, cx)).collect();
            let spilled = match spill.take() {
                Some(mut sorter) => {
                    sorter.finish(cx)?;
                    Some(SpilledGroups { sorter, lookahead: None, current: None, ready: None, done: false })
                }
                None => None,
            };
            let merge_keys = (spilled.is_some() && plan.sort_groups).then(|| leading_keys(plan.group_by.len()));
            self.state = State::Output(Output { memory: rows.into_iter().peekable(), spilled, merge_keys });
        }
        let State::Output(out) = &mut self.state else {
            return Err(error::internal("aggregate output before its input was read"));
        };
        if let Some(sp) = &mut out.spilled {
            if sp.ready.is_none() && !sp.done {
                match sp.next_group(self.plan, self.concat_max_len, cx)? {
                    Step::Row(r) => sp.ready = Some(r),
                    Step::Pause => return Ok(Step::Pause),
                    Step::Done => sp.done = true,
                }
            }
        }
        let spilled_head = out.spilled.as_ref().and_then(|s| s.ready.as_ref());
        let from_memory = match (out.memory.peek(), spilled_head) {
            (None, None) => return Ok(Step::Done),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(m), Some(s)) => match &out.merge_keys {
                Some(keys) => compare_rows(m, s, keys) != std::cmp::Ordering::Greater,
                None => true,
            },
        };
        let row = if from_memory { out.memory.next() } else { out.spilled.as_mut().and_then(|s| s.ready.take()) };
        Ok(row.map_or(Step::Done, Step::Row))
    }
}

impl SpilledGroups {
    /// The next spilled group, finished.
    fn next_group(&mut self, plan: &AggregatePlan, concat_max_len: usize, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        loop {
            let r = match self.lookahead.take() {
                Some(r) => r,
                None => match self.sorter.next(cx)? {
                    Step::Row(row) => split_spilled(row, plan.group_by.len())?,
                    Step::Pause => return Ok(Step::Pause),
                    Step::Done => {
                        return Ok(match self.current.take() {
                            Some((_, g)) => Step::Row(finish_group(plan, g, concat_max_len, cx)),
                            None => Step::Done,
                        });
                    }
                },
            };
            match &mut self.current {
                Some((key, group)) if *key == r.key => {
                    update_group(plan, group, &r.input, cx)?;
                }
                Some(_) => {
                    self.lookahead = Some(r);
                    let Some((_, g)) = self.current.take() else {
                        unreachable!("matched Some above");
                    };
                    return Ok(Step::Row(finish_group(plan, g, concat_max_len, cx)));
                }
                None => {
                    let mut group = new_group(plan, r.keys, r.input.clone());
                    update_group(plan, &mut group, &r.input, cx)?;
                    self.current = Some((r.key, group));
                }
            }
        }
    }
}

fn split_spilled(mut row: Row, width: usize) -> Result<SpilledRow, SqlError> {
    if row.len() <= width {
        return Err(error::internal("short spilled group row"));
    }
    let input = row.split_off(width + 1);
    let Some(Value::Bytes(key)) = row.pop() else {
        return Err(error::internal("spilled group row without its key"));
    };
    Ok(SpilledRow { keys: row, key, input })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(texts: &[&str]) -> Vec<(Row, Vec<u8>)> {
        texts.iter().map(|t| (Vec::new(), t.as_bytes().to_vec())).collect()
    }

    #[test]
    fn group_concat_is_cut_at_the_limit_on_a_character_boundary() {
        let (text, cut) = concat_items(&items(&["ab", "cd", "ef"]), b",", 100);
        assert_eq!((text.as_slice(), cut), (&b"ab,cd,ef"[..], None));
        // MariaDB: the third row does not fit into 6 bytes.
        let (text, cut) = concat_items(&items(&["ab", "cd", "ef"]), b",", 6);
        assert_eq!((text.as_slice(), cut), (&b"ab,cd,"[..], Some(3)));
        // 'é' is two bytes: a cut inside it backs off to the character boundary.
        let (text, cut) = concat_items(&items(&["aé"]), b",", 2);
        assert_eq!((text.as_slice(), cut), (&b"a"[..], Some(1)));
    }
}
