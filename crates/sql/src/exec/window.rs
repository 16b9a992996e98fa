//! Window functions: one operator per function, stacked, each appending its value to the rows
//! that pass through it.
//!
//! An operator reads all its input, each row prefixed with its PARTITION BY and ORDER BY
//! values, into the external sort (`Sorter`: it spills past sort_buffer_size as ORDER BY does),
//! then reads the sorted rows back one partition at a time, computes the function for every
//! row of the partition and hands the rows on in that order. Like MariaDB, rows leave in the
//! order of the last window's sort when the query has no ORDER BY of its own.
//!
//! Known limit: one partition is held in memory while its values are computed (MariaDB reads
//! frames back from its temporary table instead); the number and total size of partitions are
//! bounded by the sort.

use std::cmp::Ordering;
use std::collections::VecDeque;

use crate::error::{self, SqlError};
use crate::plan::SortKey;
use crate::plan::{FrameBound, WindowFunc, WindowSpec};
use crate::types::Value;
use crate::value::{self, AggFunc, AggState};

use super::ctx::ExecCtx;
use super::operator::Operator;
use super::sort::Sorter;
use super::step::{Row, Step};

pub(super) struct WindowOp<'p> {
    spec: &'p WindowSpec,
    /// Present until every input row is in the sorter.
    input: Option<Box<dyn Operator + 'p>>,
    sorter: Sorter<'static>,
    /// Rows of the partition being read (sort keys first).
    partition: Vec<Row>,
    /// The first row of the next partition, read while finishing this one.
    lookahead: Option<Row>,
    /// Finished rows (input row ++ value), in sorted order.
    out: VecDeque<Row>,
    sorted_done: bool,
}

impl<'p> WindowOp<'p> {
    pub(super) fn new(spec: &'p WindowSpec, input: Box<dyn Operator + 'p>, cx: &ExecCtx) -> WindowOp<'p> {
        let p = spec.partition.len();
        let mut keys: Vec<SortKey> = (0..p).map(|column| SortKey { column, desc: false }).collect();
        keys.extend(spec.order.iter().enumerate().map(|(i, (_, desc))| SortKey { column: p + i, desc: *desc }));
        WindowOp {
            spec,
            input: Some(input),
            sorter: Sorter::new(keys, cx.sort_budget(), None),
            partition: Vec::new(),
            lookahead: None,
            out: VecDeque::new(),
            sorted_done: false,
        }
    }

    fn key_width(&self) -> usize {
        self.spec.partition.len() + self.spec.order.len()
    }

    fn same_partition(&self, a: &[Value], b: &[Value]) -> bool {
        (0..self.spec.partition.len()).all(|i| value::sort_compare(&a[i], &b[i]) == Ordering::Equal)
    }
}

impl Operator for WindowOp<'_> {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        if let Some(input) = &mut self.input {
            loop {
                if cx.tick()? {
                    return Ok(Step::Pause);
                }
                match input.next(cx)? {
                    Step::Row(r) => {
                        let width = self.spec.partition.len() + self.spec.order.len();
                        let mut keyed = Vec::with_capacity(width + r.len());
                        for e in &self.spec.partition {
                            keyed.push(e.eval(&r, cx)?);
                        }
                        for (e, _) in &self.spec.order {
                            keyed.push(e.eval(&r, cx)?);
                        }
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
            if self.sorted_done && self.partition.is_empty() && self.lookahead.is_none() {
                return Ok(Step::Done);
            }
            if let Some(r) = self.lookahead.take() {
                self.partition.push(r);
            }
            // Read the rest of the partition.
            while !self.sorted_done {
                match self.sorter.next(cx)? {
                    Step::Row(r) => {
                        if let Some(first) = self.partition.first() {
                            if !self.same_partition(first, &r) {
                                self.lookahead = Some(r);
                                break;
                            }
                        }
                        self.partition.push(r);
                    }
                    Step::Pause => return Ok(Step::Pause),
                    Step::Done => self.sorted_done = true,
                }
            }
            let rows = std::mem::take(&mut self.partition);
            if !rows.is_empty() {
                let values = compute(self.spec, &rows, cx)?;
                let k = self.key_width();
                for (mut r, v) in rows.into_iter().zip(values) {
                    r.drain(..k);
                    r.push(v);
                    self.out.push_back(r);
                }
            }
        }
    }
}

/// The function's value for every row of one partition (rows sorted, sort keys first).
fn compute(spec: &WindowSpec, rows: &[Row], cx: &mut ExecCtx) -> Result<Vec<Value>, SqlError> {
    let n = rows.len();
    let p = spec.partition.len();
    let k = p + spec.order.len();
    // Peer groups: rows with equal ORDER BY values.
    let mut group_start = vec![0usize; n];
    let mut group_end = vec![n; n];
    let mut group_index = vec![0usize; n];
    let peers = |a: &Row, b: &Row| (p..k).all(|c| value::sort_compare(&a[c], &b[c]) == Ordering::Equal);
    let mut start = 0;
    let mut index = 0;
    for i in 0..n {
        if i > 0 && !peers(&rows[i - 1], &rows[i]) {
            for g in group_end.iter_mut().take(i).skip(start) {
                *g = i;
            }
            start = i;
            index += 1;
        }
        group_start[i] = start;
        group_index[i] = index;
    }
    let input = |i: usize| &rows[i][k..];
    let arg = |i: usize, a: usize, cx: &mut ExecCtx| -> Result<Value, SqlError> {
        match spec.args.get(a) {
            Some(e) => e.eval(input(i), cx),
            None => Ok(Value::Null),
        }
    };
    let mut out = Vec::with_capacity(n);
    match &spec.func {
        WindowFunc::RowNumber => out.extend((1..=n).map(|i| Value::Int(i as i64))),
        WindowFunc::Rank => out.extend(group_start.iter().map(|s| Value::Int(*s as i64 + 1))),
        WindowFunc::DenseRank => out.extend(group_index.iter().map(|g| Value::Int(*g as i64 + 1))),
        WindowFunc::PercentRank => {
            out.extend(group_start.iter().map(|s| Value::Double(if n > 1 { *s as f64 / (n - 1) as f64 } else { 0.0 })))
        }
        WindowFunc::CumeDist => out.extend(group_end.iter().map(|e| Value::Double(*e as f64 / n as f64))),
        WindowFunc::Ntile => {
            let buckets = match value::to_i64(&arg(0, 0, cx)?) {
                Some(b) if b > 0 => b as usize,
                _ => return Err(error::ntile_argument()),
            };
            let base = n / buckets;
            let extra = n % buckets;
            let big = extra * (base + 1);
            for i in 0..n {
                let t = if i < big { i / (base + 1) } else { extra + (i - big) / base.max(1) };
                out.push(Value::Int(t as i64 + 1));
            }
        }
        WindowFunc::Lag | WindowFunc::Lead => {
            for i in 0..n {
                let offset = if spec.args.len() > 1 { value::to_i64(&arg(i, 1, cx)?).unwrap_or(0) } else { 1 };
                let offset = if spec.func == WindowFunc::Lag { -offset } else { offset };
                let j = i as i64 + offset;
                out.push(if j >= 0 && (j as usize) < n { arg(j as usize, 0, cx)? } else { Value::Null });
            }
        }
        WindowFunc::FirstValue | WindowFunc::LastValue | WindowFunc::NthValue | WindowFunc::Aggregate { .. } => {
            let frames = Frames::new(spec, rows, k, &group_start, &group_end, cx)?;
            let nth = if spec.func == WindowFunc::NthValue { value::to_i64(&arg(0, 1, cx)?) } else { None };
            let mut cache: Option<(AggState, usize, usize)> = None;
            for i in 0..n {
                let (s, e) = frames.bounds(i);
                let v = match &spec.func {
                    WindowFunc::FirstValue if s < e => arg(s, 0, cx)?,
                    WindowFunc::LastValue if s < e => arg(e - 1, 0, cx)?,
                    WindowFunc::NthValue => match nth {
                        Some(m) if m >= 1 && s + (m as usize) - 1 < e => arg(s + m as usize - 1, 0, cx)?,
                        _ => Value::Null,
                    },
                    WindowFunc::Aggregate { func, arg_type } => {
                        // A frame that keeps its start and only grows (the default frame) is
                        // updated with the new rows; any other is aggregated afresh.
                        let (mut state, from) = match cache.take() {
                            Some((state, cs, ce)) if cs == s && ce <= e => (state, ce),
                            _ => (AggState::new(*func, arg_type), s),
                        };
                        for j in from..e.max(from) {
                            if *func == AggFunc::CountStar {
                                state.update(&Value::Int(1), &*cx)?;
                            } else {
                                let v = arg(j, 0, cx)?;
                                state.update(&v, &*cx)?;
                            }
                        }
                        let v = state.finish();
                        cache = Some((state, s, e.max(from)));
                        v
                    }
                    _ => Value::Null,
                };
                out.push(v);
            }
        }
    }
    Ok(out)
}

/// The frame of every row of a partition, as [start, end) row positions.
struct Frames<'a> {
    spec: &'a WindowSpec,
    n: usize,
    group_start: &'a [usize],
    group_end: &'a [usize],
    /// RANGE with offsets: the ORDER BY value of each row as a number (None: NULL).
    keys: Vec<Option<f64>>,
    start_offset: f64,
    end_offset: f64,
}

impl<'a> Frames<'a> {
    fn new(
        spec: &'a WindowSpec,
        rows: &[Row],
        k: usize,
        group_start: &'a [usize],
        group_end: &'a [usize],
        cx: &mut ExecCtx,
    ) -> Result<Frames<'a>, SqlError> {
        let rows_frame = spec.frame.rows;
        let offset = |b: &FrameBound, cx: &mut ExecCtx| -> Result<f64, SqlError> {
            let (FrameBound::Preceding(e) | FrameBound::Following(e)) = b else {
                return Ok(0.0);
            };
            let v = e.eval(&[], cx)?;
            if rows_frame {
                match (&v, value::to_i64(&v)) {
                    (Value::Int(_) | Value::UInt(_), Some(i)) if i >= 0 => Ok(i as f64),
                    _ => Err(error::window_rows_frame_integer()),
                }
            } else {
                match value::to_f64(&v) {
                    Some(f) if f >= 0.0 => Ok(f),
                    _ => Err(error::window_range_frame_numeric()),
                }
            }
        };
        let start_offset = offset(&spec.frame.start, cx)?;
        let end_offset = offset(&spec.frame.end, cx)?;
        let needs_keys = !rows_frame
            && [&spec.frame.start, &spec.frame.end]
                .iter()
                .any(|b| matches!(b, FrameBound::Preceding(_) | FrameBound::Following(_)));
        let p = spec.partition.len();
        let keys = if needs_keys && k > p { rows.iter().map(|r| value::to_f64(&r[p])).collect() } else { Vec::new() };
        Ok(Frames { spec, n: rows.len(), group_start, group_end, keys, start_offset, end_offset })
    }

    fn bounds(&self, i: usize) -> (usize, usize) {
        let s = self.position(i, &self.spec.frame.start, self.start_offset, true);
        let e = self.position(i, &self.spec.frame.end, self.end_offset, false);
        (s, e.max(s))
    }

    /// Where a frame bound puts the frame's start (`is_start`) or its end (exclusive).
    fn position(&self, i: usize, b: &FrameBound, offset: f64, is_start: bool) -> usize {
        let n = self.n;
        match b {
            FrameBound::UnboundedPreceding => 0,
            FrameBound::UnboundedFollowing => n,
            FrameBound::CurrentRow if self.spec.frame.rows => i + usize::from(!is_start),
            FrameBound::CurrentRow => {
                if is_start {
                    self.group_start[i]
                } else {
                    self.group_end[i]
                }
            }
            FrameBound::Preceding(_) | FrameBound::Following(_) if self.spec.frame.rows => {
                let o = offset as usize;
                let at = if matches!(b, FrameBound::Preceding(_)) { i as i64 - o as i64 } else { (i + o) as i64 };
                let at = if is_start { at } else { at + 1 };
                at.clamp(0, n as i64) as usize
            }
            FrameBound::Preceding(_) | FrameBound::Following(_) => {
                let Some(x) = self.keys.get(i).copied().flatten() else {
                    // A NULL ORDER BY value: the frame is the row's peers.
                    return if is_start { self.group_start[i] } else { self.group_end[i] };
                };
                let desc = self.spec.order.first().is_some_and(|(_, d)| *d);
                let preceding = matches!(b, FrameBound::Preceding(_));
                // Preceding rows have smaller values in ascending order, larger in descending.
                let t = if preceding != desc { x - offset } else { x + offset };
                if !desc {
                    // NULLs first, then ascending.
                    if is_start {
                        self.keys.partition_point(|k| k.is_none_or(|k| k < t))
                    } else {
                        self.keys.partition_point(|k| k.is_none_or(|k| k <= t))
                    }
                } else if is_start {
                    // Descending, NULLs last.
                    self.keys.partition_point(|k| k.is_some_and(|k| k > t))
                } else {
                    self.keys.partition_point(|k| k.is_some_and(|k| k >= t))
                }
            }
        }
    }
}
