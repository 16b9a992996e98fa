//! The executor: pull-based operators instantiated from an immutable `Plan`.
//!
//! `open` builds an operator tree that borrows the plan; each `next` call takes the statement's
//! `ExecCtx` (transaction, parameters, variables). Table reads are synchronous (`Scan::next`
//! does not wait for locks), so the tree is plain synchronous code driven by async code
//! (`stream_rows`, `collect_rows`, DML) between lock waits.
//!
//! Cooperative scheduling: a statement runs on its connection's tokio task, so a long one
//! (a big join or scan) must not hold a worker thread until it ends: other connections' tasks
//! and the runtime's I/O driver share that thread. Operators count their work with
//! `ExecCtx::tick`; once the statement's time slice is used up, the operator that noticed
//! returns `Step::Pause` from a point where it can resume (its state is in `self`), every
//! operator above passes it up unchanged, and the async driver at the top awaits
//! `ExecCtx::pause` (a `yield_now`) before calling `next` again. Code that cannot await
//! (subqueries evaluated inside an expression) runs with pauses disabled.
//!
//! Bounded memory (architecture §2.1): every operator that buffers rows has a budget from the
//! session's variables and spills to @@tmpdir past it, with results identical to the in-memory
//! ones. Files, bottom up: `spill` (temporary files, row encoding), `sort` (external merge sort,
//! top-N), then the buffering operators `aggregate`, `distinct`, `join`, and `value_set`
//! (IN-subquery values); `access` reads tables; `ctx` is the statement's context.

pub mod access;
pub mod ctx;
pub mod sort;
pub mod spill;
mod value_set;

use std::sync::Arc;

use selkie_storage::ReadMode;

use crate::error;
use crate::error::SqlError;
use crate::expr::{eval_predicate, Expr, Subquery, SubqueryKind};
use crate::plan::{LimitSpec, Plan, QueryPlan};
use crate::types::{ResultSink, Value};
use crate::value;

use self::access::AccessCursor;
use self::aggregate::AggregateOp;
use self::ctx::{ExecCtx, SubResult};
use self::distinct::DistinctOp;
use self::join::open_join;
use self::sort::Sorter;

pub type Row = Vec<Value>;

/// What one call of `Operator::next` produced.
#[derive(Debug, PartialEq)]
pub enum Step<T = Row> {
    Row(T),
    /// No more rows.
    Done,
    /// The statement's time slice is used up: the driver yields to the runtime and then calls
    /// `next` again; the operator resumes where it stopped.
    Pause,
}

/// Returns from the enclosing `next` unless `$step` produced a row, which it evaluates to.
macro_rules! row_or_return {
    ($step:expr) => {
        match $step {
            Step::Row(r) => r,
            Step::Done => return Ok(Step::Done),
            Step::Pause => return Ok(Step::Pause),
        }
    };
}

// Operators with their own files (after the macro they use).
mod aggregate;
mod distinct;
mod join;

/// Operators are `Send`: a statement future holds its operator tree across the awaits of
/// `ExecCtx::pause` and of row locks, and the future moves between worker threads.
pub trait Operator: Send {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError>;
}

/// Instantiates `plan`.
pub fn open<'p>(plan: &'p Plan, cx: &mut ExecCtx) -> Result<Box<dyn Operator + 'p>, SqlError> {
    Ok(match plan {
        Plan::Dual => Box::new(Buffered::new(vec![Vec::new()])),
        Plan::Empty { .. } => Box::new(Buffered::new(Vec::new())),
        Plan::Access(access) => Box::new(AccessOp { cursor: AccessCursor::open(access, &[], cx)? }),
        // A derived table is read once per opening, so it can stream: every consumer that
        // needs its rows again (the inner side of a join) buffers them itself.
        Plan::Derived(q) => open(&q.root, cx)?,
        Plan::InfoSchema { table, width } => {
            let show = cx.env.show_context();
            let mut rows = crate::show::info_schema_rows(table, &show)?;
            for r in &mut rows {
                r.resize(*width, Value::Null);
            }
            Box::new(Buffered::new(rows))
        }
        Plan::Filter { input, predicate } => Box::new(FilterOp { input: open(input, cx)?, predicate }),
        Plan::Project { input, exprs } => {
            Box::new(ProjectOp { input: open(input, cx)?, exprs, moves: distinct_columns(exprs) })
        }
        Plan::Join(j) => open_join(j, cx)?,
        Plan::Aggregate(a) => Box::new(AggregateOp::new(a, open(&a.input, cx)?, cx)),
        Plan::Distinct { input, key_width } => Box::new(DistinctOp::new(open(input, cx)?, *key_width, cx)),
        Plan::Sort { input, keys, limit } => {
            let keep = match limit {
                Some(l) => {
                    let (count, offset) = eval_limit(l, cx)?;
                    Some(usize::try_from(count.saturating_add(offset)).unwrap_or(usize::MAX))
                }
                None => None,
            };
            Box::new(SortOp { input: Some(open(input, cx)?), sorter: Sorter::new(&keys[..], cx.sort_budget(), keep) })
        }
        Plan::Limit { input, limit } => {
            let (count, offset) = eval_limit(limit, cx)?;
            Box::new(LimitOp { input: open(input, cx)?, remaining: count, skip: offset })
        }
        Plan::Concat(inputs) => Box::new(ConcatOp { inputs, current: None, index: 0 }),
        Plan::Trim { input, width } => Box::new(TrimOp { input: open(input, cx)?, width: *width }),
    })
}

/// Runs a query plan to the sink: columns, then the rows. Locking reads (FOR UPDATE / FOR
/// SHARE) first lock every row they would return, then read again. Returns what
/// `stream_rows` does.
pub async fn run_query(
    plan: &QueryPlan,
    cx: &mut ExecCtx<'_>,
    sink: &mut dyn ResultSink,
) -> Result<(u64, u64), SqlError> {
    if let Some(mode) = plan.lock {
        if cx.has_trx() {
            cx.read_mode = ReadMode::Latest;
            cx.lock_collect = Some(Vec::new());
            let collected = collect_rows(plan, cx).await.map(|_| ());
            let mut keys = cx.lock_collect.take().unwrap_or_default();
            collected?;
            keys.sort_by(|a, b| (a.0.id, &a.1).cmp(&(b.0.id, &b.1)));
            keys.dedup_by(|a, b| a.0.id == b.0.id && a.1 == b.1);
            for (table, key) in keys {
                cx.check_interrupt()?;
                cx.lock_row(&table, &key, mode).await?;
                if cx.tick()? {
                    cx.pause().await?;
                }
            }
            cx.check_interrupt()?;
        }
    }
    sink.columns(&plan.metas);
    stream_rows(plan, cx, sink).await
}

/// Runs a query to completion and returns its rows, pausing when its time slice is used up.
pub async fn collect_rows(plan: &QueryPlan, cx: &mut ExecCtx<'_>) -> Result<Vec<Row>, SqlError> {
    let mut op = open(&plan.root, cx)?;
    let mut rows = Vec::new();
    loop {
        match op.next(cx)? {
            Step::Row(r) => rows.push(r),
            Step::Done => return Ok(rows),
            Step::Pause => cx.pause().await?,
        }
    }
}

/// Streams a query's rows to `sink`, pausing when its time slice is used up. Returns (rows
/// sent, FOUND_ROWS()): with SQL_CALC_FOUND_ROWS the LIMIT is applied here and every row is
/// counted.
pub async fn stream_rows(
    plan: &QueryPlan,
    cx: &mut ExecCtx<'_>,
    sink: &mut dyn ResultSink,
) -> Result<(u64, u64), SqlError> {
    let mut op = open(&plan.root, cx)?;
    let window = match &plan.calc_found_rows {
        None => None,
        Some(limit) => Some(eval_limit(limit, cx)?),
    };
    let mut seen = 0u64;
    let mut sent = 0u64;
    loop {
        match op.next(cx)? {
            Step::Row(r) => {
                let send = match window {
                    None => true,
                    Some((count, offset)) => seen >= offset && sent < count,
                };
                if send {
                    sink.row(&r);
                    sent += 1;
                }
                seen += 1;
            }
            Step::Done => return Ok((sent, seen)),
            Step::Pause => cx.pause().await?,
        }
    }
}

/// The next row of `op` where the caller cannot await (pauses must be disabled in `cx`).
fn next_sync(op: &mut dyn Operator, cx: &mut ExecCtx) -> Result<Option<Row>, SqlError> {
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
            self.current = Some(open(plan, cx)?);
        }
    }
}

/// Appends the DISTINCT / GROUP BY identity of `values` to `out`.
fn group_key_of(values: &[Value], out: &mut Vec<u8>) {
    for v in values {
        value::group_key(v, out);
        // A separator that no group_key encoding can swallow keeps (a,bc) apart from (ab,c).
        out.push(0xFF);
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

// ---- subqueries ----

/// Evaluates a subquery expression for the current row.
pub fn eval_subquery(sq: &Subquery, row: &[Value], cx: &mut ExecCtx) -> Result<Value, SqlError> {
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
        (SubqueryKind::Exists { negated }, SubResult::Exists(e)) => Ok(crate::expr::bool_value(e != *negated)),
        (SubqueryKind::In { expr, negated }, SubResult::Values { values, ints }) => {
            let v = expr.eval(row, cx)?;
            if v.is_null() {
                return Ok(if values.is_empty() { crate::expr::bool_value(*negated) } else { Value::Null });
            }
            if let (Some(set), Some(i)) = (&ints, as_i128(&v)) {
                if set.contains(&i) {
                    return Ok(crate::expr::bool_value(!*negated));
                }
                let saw_null = values.iter().any(Value::is_null);
                return Ok(if saw_null { Value::Null } else { crate::expr::bool_value(*negated) });
            }
            let mut saw_null = false;
            for x in values.iter() {
                match value::compare(&v, x) {
                    Some(std::cmp::Ordering::Equal) => return Ok(crate::expr::bool_value(!*negated)),
                    None => saw_null = true,
                    Some(_) => {}
                }
            }
            Ok(if saw_null { Value::Null } else { crate::expr::bool_value(*negated) })
        }
        (SubqueryKind::In { expr, negated }, SubResult::Spilled(set)) => {
            // The set holds at least one row (it outgrew its budget): a NULL probe is NULL.
            let v = expr.eval(row, cx)?;
            if v.is_null() {
                return Ok(Value::Null);
            }
            if set.contains(&v)? {
                return Ok(crate::expr::bool_value(!*negated));
            }
            Ok(if set.saw_null { Value::Null } else { crate::expr::bool_value(*negated) })
        }
        _ => Err(error::internal("subquery result does not match its kind")),
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
    let mut op = open(&plan.root, cx)?;
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
                    let set = value_set::ValueSet::build(values, &mut rest, cx)?;
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
