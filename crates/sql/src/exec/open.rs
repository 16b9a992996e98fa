//! Instantiating a plan: `Plan::open` builds the operator tree, with the simple operators
//! (filter, projection, limit, sort, concatenation) here and the buffering ones in their own
//! files.
//!
//! `open` is a method of `Plan` so that operators with inputs (joins) open them by calling it on
//! the input plan: the recursion follows the plan tree and no file imports its caller.

use super::access::AccessCursor;
use super::aggregate::AggregateOp;
use super::ctx::ExecCtx;
use super::distinct::DistinctOp;
use super::eval::eval_predicate;
use super::join::open_join;
use super::operator::Operator;
use super::recursive::RecursiveOp;
use super::rollup::RollupOp;
use super::set_op::SetOpOp;
use super::sort::Sorter;
use super::step::{row_or_return, Row, Step};
use super::window::WindowOp;
use crate::error::{self, SqlError};
use crate::plan::{Expr, LimitSpec, Plan};
use crate::types::Value;
use crate::value;

impl Plan {
    /// Instantiates the plan as an operator tree that borrows it.
    pub fn open<'p>(&'p self, cx: &mut ExecCtx) -> Result<Box<dyn Operator + 'p>, SqlError> {
        Ok(match self {
            Plan::Dual => Box::new(Buffered::new(vec![Vec::new()])),
            Plan::Empty { .. } => Box::new(Buffered::new(Vec::new())),
            Plan::Access(access) => Box::new(AccessOp { cursor: AccessCursor::open(access, &[], cx)? }),
            // A derived table is read once per opening, so it can stream: every consumer that
            // needs its rows again (the inner side of a join) buffers them itself.
            Plan::Derived(q) => q.root.open(cx)?,
            Plan::Sequence(table) => {
                let row = cx.env.server.sequences.row(cx.env.engine, table)?;
                Box::new(Buffered::new(vec![row]))
            }
            Plan::InfoSchema { table, width } => {
                let show = cx.env.show_context();
                let mut rows = crate::show::info_schema_rows(table, &show)?;
                for r in &mut rows {
                    r.resize(*width, Value::Null);
                }
                Box::new(Buffered::new(rows))
            }
            Plan::Filter { input, predicate } => Box::new(FilterOp { input: input.open(cx)?, predicate }),
            Plan::Project { input, exprs } => {
                Box::new(ProjectOp { input: input.open(cx)?, exprs, moves: distinct_columns(exprs) })
            }
            Plan::Join(j) => open_join(j, cx)?,
            Plan::Aggregate(a) if a.rollup => Box::new(RollupOp::new(a, a.input.open(cx)?, cx)),
            Plan::Aggregate(a) => Box::new(AggregateOp::new(a, a.input.open(cx)?, cx)),
            Plan::Window(w) => {
                let mut op = w.input.open(cx)?;
                for spec in &w.funcs {
                    op = Box::new(WindowOp::new(spec, op, cx));
                }
                op
            }
            Plan::Distinct { input, key_width, collations } => {
                Box::new(DistinctOp::new(input.open(cx)?, *key_width, collations, cx))
            }
            Plan::Sort { input, keys, limit } => {
                let keep = match limit {
                    Some(l) => {
                        let (count, offset) = eval_limit(l, cx)?;
                        Some(usize::try_from(count.saturating_add(offset)).unwrap_or(usize::MAX))
                    }
                    None => None,
                };
                Box::new(SortOp {
                    input: Some(input.open(cx)?),
                    sorter: Sorter::new(&keys[..], cx.sort_budget(), keep),
                })
            }
            Plan::Limit { input, limit } => {
                let (count, offset) = eval_limit(limit, cx)?;
                Box::new(LimitOp { input: input.open(cx)?, remaining: count, skip: offset })
            }
            Plan::RecursiveCte(r) => Box::new(RecursiveOp::new(r, cx)?),
            Plan::WorkTable { slot, .. } => Box::new(Buffered::new(cx.work_table(*slot).as_ref().clone())),
            Plan::SetOp(o) => Box::new(SetOpOp::new(o, o.left.open(cx)?, o.right.open(cx)?)),
            Plan::Concat(inputs) => Box::new(ConcatOp { inputs, current: None, index: 0 }),
            Plan::Trim { input, width } => Box::new(TrimOp { input: input.open(cx)?, width: *width }),
        })
    }
}

/// LIMIT count and offset; MySQL allows only non-negative integer literals and parameters.
pub fn eval_limit(limit: &LimitSpec, cx: &mut ExecCtx) -> Result<(u64, u64), SqlError> {
    let mut get = |e: &Option<Expr>, default: u64| -> Result<u64, SqlError> {
        match e {
            None => Ok(default),
            Some(e) => {
                let v = e.eval(&[], cx)?;
                match v {
                    Value::Int(i) if i >= 0 => Ok(i as u64),
                    Value::UInt(u) => Ok(u),
                    Value::Null => Err(error::wrong_arguments("LIMIT")),
                    other => match value::to_i64(&other) {
                        Some(i) if i >= 0 => Ok(i as u64),
                        _ => Err(error::wrong_arguments("LIMIT")),
                    },
                }
            }
        }
    };
    let count = get(&limit.count, u64::MAX)?;
    let offset = get(&limit.offset, 0)?;
    Ok((count, offset))
}

struct Buffered {
    rows: std::vec::IntoIter<Row>,
}

impl Buffered {
    fn new(rows: Vec<Row>) -> Buffered {
        Buffered { rows: rows.into_iter() }
    }
}

impl Operator for Buffered {
    fn next(&mut self, _cx: &mut ExecCtx) -> Result<Step, SqlError> {
        Ok(self.rows.next().map_or(Step::Done, Step::Row))
    }
}

struct AccessOp<'p> {
    cursor: AccessCursor<'p>,
}

impl Operator for AccessOp<'_> {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        Ok(match self.cursor.next(cx)? {
            Step::Row(r) => Step::Row(r.row),
            Step::Done => Step::Done,
            Step::Pause => Step::Pause,
        })
    }
}

struct FilterOp<'p> {
    input: Box<dyn Operator + 'p>,
    predicate: &'p Expr,
}

impl Operator for FilterOp<'_> {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        loop {
            let row = row_or_return!(self.input.next(cx)?);
            if eval_predicate(self.predicate, &row, cx)? {
                return Ok(Step::Row(row));
            }
            // A rejected row is fully consumed: a pause here loses nothing.
            if cx.tick()? {
                return Ok(Step::Pause);
            }
        }
    }
}

struct ProjectOp<'p> {
    input: Box<dyn Operator + 'p>,
    exprs: &'p [Expr],
    /// Every expression is a distinct column: values are moved out of the input row instead
    /// of cloned (the common `SELECT c FROM ...`).
    moves: bool,
}

/// True if `exprs` are column references, each to a different column.
fn distinct_columns(exprs: &[Expr]) -> bool {
    exprs.iter().enumerate().all(|(i, e)| match e {
        Expr::Column(c) => exprs[..i].iter().all(|p| *p != Expr::Column(*c)),
        _ => false,
    })
}

impl Operator for ProjectOp<'_> {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        let mut row = row_or_return!(self.input.next(cx)?);
        let mut out = Vec::with_capacity(self.exprs.len());
        if self.moves {
            for e in self.exprs {
                if let Expr::Column(c) = e {
                    out.push(row.get_mut(*c).map_or(Value::Null, |v| std::mem::replace(v, Value::Null)));
                }
            }
            return Ok(Step::Row(out));
        }
        for e in self.exprs {
            out.push(e.eval(&row, cx)?);
        }
        Ok(Step::Row(out))
    }
}

struct TrimOp<'p> {
    input: Box<dyn Operator + 'p>,
    width: usize,
}

impl Operator for TrimOp<'_> {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        let mut r = row_or_return!(self.input.next(cx)?);
        r.truncate(self.width);
        Ok(Step::Row(r))
    }
}

struct LimitOp<'p> {
    input: Box<dyn Operator + 'p>,
    remaining: u64,
    skip: u64,
}

impl Operator for LimitOp<'_> {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        if self.remaining == 0 {
            return Ok(Step::Done);
        }
        while self.skip > 0 {
            match self.input.next(cx)? {
                Step::Row(_) => self.skip -= 1,
                Step::Pause => return Ok(Step::Pause),
                Step::Done => {
                    self.remaining = 0;
                    return Ok(Step::Done);
                }
            }
        }
        match self.input.next(cx)? {
            Step::Row(r) => {
                self.remaining -= 1;
                Ok(Step::Row(r))
            }
            Step::Pause => Ok(Step::Pause),
            Step::Done => {
                self.remaining = 0;
                Ok(Step::Done)
            }
        }
    }
}

struct ConcatOp<'p> {
    inputs: &'p [Plan],
    current: Option<Box<dyn Operator + 'p>>,
    index: usize,
}

impl Operator for ConcatOp<'_> {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        loop {
            if let Some(op) = &mut self.current {
                match op.next(cx)? {
                    Step::Done => self.current = None,
                    other => return Ok(other),
                }
            }
            let Some(plan) = self.inputs.get(self.index) else {
                return Ok(Step::Done);
            };
            self.index += 1;
            self.current = Some(plan.open(cx)?);
        }
    }
}

struct SortOp<'p> {
    /// Present until every input row has been pushed into the sorter.
    input: Option<Box<dyn Operator + 'p>>,
    /// Holds the rows read so far, so that a pause loses nothing; spills past sort_buffer_size.
    sorter: Sorter<'p>,
}

impl Operator for SortOp<'_> {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        if let Some(input) = &mut self.input {
            loop {
                if cx.tick()? {
                    return Ok(Step::Pause);
                }
                match input.next(cx)? {
                    Step::Row(r) => self.sorter.push(r, cx)?,
                    Step::Pause => return Ok(Step::Pause),
                    Step::Done => break,
                }
            }
            self.input = None;
            self.sorter.finish(cx)?;
        }
        self.sorter.next(cx)
    }
}
