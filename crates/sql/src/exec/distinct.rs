//! DISTINCT and UNION [DISTINCT]: the first row of each distinct key, in input order
//! (architecture §2.1).
//!
//! Keys seen so far live in a hash set, and a row with a new key is returned at once. Past the
//! set's budget, min(tmp_table_size, max_heap_table_size), rows whose key is not in the set go
//! to disk instead: sorted by key (stably, so the first row of each key comes first), cut to one
//! row per key, and sorted back into input order. That output order matters: the input may be
//! ordered by an index that made a sort unnecessary (`SELECT DISTINCT ... ORDER BY`), and the
//! spilled result must be the in-memory one, row for row.

use std::collections::HashSet;

use crate::error;
use crate::error::SqlError;
use crate::types::Value;

use super::ctx::ExecCtx;
use super::operator::Operator;
use super::sort::{leading_keys, Sorter};
use super::step::{collated_group_key_of, group_key_of, Step};
use crate::charset::Collation;

/// Memory of one key in the set beyond its bytes.
const SET_ENTRY_OVERHEAD: usize = 48;

pub(super) struct DistinctOp<'p> {
    /// Present until the input is exhausted.
    input: Option<Box<dyn Operator + 'p>>,
    key_width: usize,
    /// `_ci` collations of the key columns (empty: all compare as bytes).
    collations: &'p [Option<Collation>],
    seen: HashSet<Vec<u8>>,
    bytes: usize,
    budget: usize,
    spill: Spill,
}

enum Spill {
    None,
    /// Rows with keys not in `seen`: [key bytes, input position, row..].
    Collecting {
        by_key: Box<Sorter<'static>>,
        seq: i64,
    },
    /// Keeps the first row of each key: [input position, row..], re-sorted into input order.
    Dedup {
        by_key: Box<Sorter<'static>>,
        by_seq: Box<Sorter<'static>>,
        last: Option<Vec<u8>>,
    },
    Output {
        by_seq: Box<Sorter<'static>>,
    },
}

impl<'p> DistinctOp<'p> {
    pub(super) fn new(
        input: Box<dyn Operator + 'p>,
        key_width: usize,
        collations: &'p [Option<Collation>],
        cx: &ExecCtx,
    ) -> DistinctOp<'p> {
        DistinctOp {
            input: Some(input),
            key_width,
            collations,
            seen: HashSet::new(),
            bytes: 0,
            budget: cx.tmp_table_budget(),
            spill: Spill::None,
        }
    }
}

impl Operator for DistinctOp<'_> {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        if let Some(input) = &mut self.input {
            loop {
                let row = match input.next(cx)? {
                    Step::Row(r) => r,
                    Step::Pause => return Ok(Step::Pause),
                    Step::Done => break,
                };
                let mut key = Vec::new();
                let values = &row[..self.key_width.min(row.len())];
                if self.collations.is_empty() {
                    group_key_of(values, &mut key);
                } else {
                    collated_group_key_of(values, self.collations, &mut key);
                }
                match &mut self.spill {
                    Spill::None => {
                        let len = key.len();
                        if self.seen.insert(key) {
                            self.bytes += len + SET_ENTRY_OVERHEAD;
                            if self.bytes > self.budget {
                                let by_key = Box::new(Sorter::new(leading_keys(1), cx.sort_budget(), None));
                                self.spill = Spill::Collecting { by_key, seq: 0 };
                            }
                            return Ok(Step::Row(row));
                        }
                    }
                    Spill::Collecting { by_key, seq } => {
                        if !self.seen.contains(&key) {
                            let mut r = Vec::with_capacity(row.len() + 2);
                            r.push(Value::Bytes(key));
                            r.push(Value::Int(*seq));
                            r.extend(row);
                            *seq += 1;
                            by_key.push(r, cx)?;
                        }
                    }
                    Spill::Dedup { .. } | Spill::Output { .. } => {
                        return Err(error::internal("DISTINCT input read after its end"))
                    }
                }
                if cx.tick()? {
                    return Ok(Step::Pause);
                }
            }
            self.input = None;
            if let Spill::Collecting { mut by_key, .. } = std::mem::replace(&mut self.spill, Spill::None) {
                by_key.finish(cx)?;
                let by_seq = Box::new(Sorter::new(leading_keys(1), cx.sort_budget(), None));
                self.spill = Spill::Dedup { by_key, by_seq, last: None };
            }
        }
        loop {
            match &mut self.spill {
                Spill::None | Spill::Collecting { .. } => return Ok(Step::Done),
                Spill::Dedup { by_key, by_seq, last } => match by_key.next(cx)? {
                    Step::Row(mut r) => {
                        let Value::Bytes(key) = r.remove(0) else {
                            return Err(error::internal("spilled DISTINCT row without its key"));
                        };
                        if last.as_ref() != Some(&key) {
                            *last = Some(key);
                            by_seq.push(r, cx)?;
                        }
                    }
                    Step::Pause => return Ok(Step::Pause),
                    Step::Done => {
                        by_seq.finish(cx)?;
                        let Spill::Dedup { by_seq, .. } = std::mem::replace(&mut self.spill, Spill::None) else {
                            unreachable!("matched Dedup above");
                        };
                        self.spill = Spill::Output { by_seq };
                    }
                },
                Spill::Output { by_seq } => {
                    return Ok(match by_seq.next(cx)? {
                        Step::Row(mut r) => {
                            r.remove(0);
                            Step::Row(r)
                        }
                        other => other,
                    });
                }
            }
        }
    }
}
