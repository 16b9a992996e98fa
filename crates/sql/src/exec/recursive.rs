//! WITH RECURSIVE: runs the anchor, then the recursive parts once per iteration over the
//! previous iteration's new rows (`plan::RecursiveCte`).
//!
//! The rows an iteration produces are buffered (they are the next working table), and all
//! of them are handed on when the recursion ends. Under UNION DISTINCT a row seen before is dropped, so a cycle
//! ends; under UNION ALL @@max_recursive_iterations ends it with warning 1931, as in MariaDB.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use crate::error::{self, SqlError};
use crate::plan::RecursiveCte;
use crate::types::{Value, WarnLevel};
use crate::value::SqlType;
use crate::variables::VarScope;

use super::ctx::ExecCtx;
use super::operator::Operator;
use super::step::{group_key_of, Row, Step};

pub(super) struct RecursiveOp<'p> {
    plan: &'p RecursiveCte,
    /// The part being run: the anchor first, then the recursive parts.
    current: Option<Box<dyn Operator + 'p>>,
    /// Iterations of the recursive parts started so far (0 while the anchor runs).
    iteration: u64,
    max_iterations: u64,
    /// Rows of the part being run.
    new_rows: Vec<Row>,
    /// UNION DISTINCT: every row produced so far.
    seen: HashSet<Vec<u8>>,
    out: VecDeque<Row>,
    produced: u64,
    done: bool,
}

impl<'p> RecursiveOp<'p> {
    pub(super) fn new(plan: &'p RecursiveCte, cx: &mut ExecCtx) -> Result<RecursiveOp<'p>, SqlError> {
        let max = cx.env.vars.get(&cx.env.server.globals, "max_recursive_iterations", VarScope::Session)?;
        let max_iterations = crate::value::to_i64(&max).map_or(1000, |v| v.max(0) as u64);
        Ok(RecursiveOp {
            plan,
            current: Some(plan.anchor.open(cx)?),
            iteration: 0,
            max_iterations,
            new_rows: Vec::new(),
            seen: HashSet::new(),
            out: VecDeque::new(),
            produced: 0,
            done: false,
        })
    }

    /// Stores a recursive row into the CTE's column types (the anchor's): a string too long
    /// for its column is MariaDB's 1406 in strict mode, cut otherwise.
    fn store(&self, mut row: Row, cx: &ExecCtx) -> Result<Row, SqlError> {
        for (i, (v, ty)) in row.iter_mut().zip(&self.plan.types).enumerate() {
            if let (Value::Bytes(b), SqlType::Text { max_chars, lob: false, .. }) = (&*v, ty) {
                let text = String::from_utf8_lossy(b);
                if text.chars().count() > *max_chars as usize {
                    if cx.sql_mode_is_strict() {
                        let name = self.plan.names.get(i).map_or("", String::as_str);
                        return Err(SqlError::new(
                            1406,
                            "22001",
                            format!("Data too long for column '{name}' at row {}", self.produced + 1),
                        ));
                    }
                    let cut: String = text.chars().take(*max_chars as usize).collect();
                    *v = Value::Bytes(cut.into_bytes());
                }
            }
        }
        Ok(row)
    }
}

impl Operator for RecursiveOp<'_> {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        loop {
            // Rows go out once the recursion has ended, as MariaDB materializes the CTE first:
            // a LIMIT on the query still sees warning 1931.
            if self.done {
                return Ok(self.out.pop_front().map_or(Step::Done, Step::Row));
            }
            let Some(op) = self.current.as_mut() else {
                // The last part ended: its rows are the next working table.
                if self.new_rows.is_empty() {
                    self.done = true;
                    continue;
                }
                let rows = std::mem::take(&mut self.new_rows);
                self.out.extend(rows.iter().cloned());
                if self.iteration >= self.max_iterations {
                    let message = error::max_recursive_iterations_message(self.max_iterations);
                    cx.push_warning(WarnLevel::Warning, 1931, message);
                    self.done = true;
                    continue;
                }
                cx.set_work_table(self.plan.slot, Arc::new(rows));
                self.iteration += 1;
                self.current = Some(self.plan.recursive.open(cx)?);
                continue;
            };
            match op.next(cx)? {
                Step::Row(r) => {
                    let r = if self.iteration > 0 { self.store(r, cx)? } else { r };
                    if self.plan.distinct {
                        let mut key = Vec::new();
                        group_key_of(&r, &mut key);
                        if !self.seen.insert(key) {
                            continue;
                        }
                    }
                    self.produced += 1;
                    self.new_rows.push(r);
                }
                Step::Pause => return Ok(Step::Pause),
                Step::Done => self.current = None,
            }
        }
    }
}
