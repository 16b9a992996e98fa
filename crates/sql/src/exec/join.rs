//! Joins: index nested loop (`Lookup`), hash join and block nested loop over a buffered inner
//! side (architecture §2.1).
//!
//! Output order: for each driving row in order, its matches in inner order, then (outer joins)
//! the NULL-extended row if it matched nothing. A hash or loop join buffers its inner side in
//! memory; past min(tmp_table_size, max_heap_table_size) the join moves to disk instead
//! (`SpilledJoin`): both inputs are tagged with their input positions and hash-partitioned into
//! temporary files (one partition for a loop join), each partition is joined with as much of its
//! inner rows in memory as the budget allows (several chunks if it holds more, each chunk
//! re-reading the partition's driving rows), and the output goes through an external sort on
//! (driving position, inner position): the rows and their order are the in-memory join's.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::error;
use crate::error::SqlError;
use crate::exec::eval::eval_predicate;
use crate::plan::Expr;
use crate::plan::{InnerSide, JoinKind, JoinPlan};
use crate::types::Value;
use crate::value;

use super::access::AccessCursor;
use super::ctx::ExecCtx;
use super::operator::Operator;
use super::sort::{leading_keys, Sorter};
use super::spill::{row_bytes, Segment, SegmentReader, SegmentWriter, TempFile, IO_BUFFER_BYTES};
use super::step::{row_or_return, Row, Step};

/// Memory of one hash table entry beyond its key bytes.
const HASH_ENTRY_OVERHEAD: usize = 48;

/// Partitions of a spilled hash join: each holds about 1/16 of the inner side, so an inner side
/// up to 16 budgets is joined with one pass over the driving rows.
const JOIN_PARTITIONS: usize = 16;

pub(super) fn open_join<'p>(j: &'p JoinPlan, cx: &mut ExecCtx) -> Result<Box<dyn Operator + 'p>, SqlError> {
    let driver = j.driver.open(cx)?;
    let inner = match &j.inner {
        InnerSide::Lookup(access) => InnerState::Lookup { access, cursor: None },
        InnerSide::Hash { plan, driver_keys, inner_keys } => InnerState::HashBuild {
            input: plan.open(cx)?,
            rows: Vec::new(),
            table: HashMap::new(),
            driver_keys,
            inner_keys,
            bytes: 0,
        },
        InnerSide::Loop(plan) => InnerState::LoopBuild { input: plan.open(cx)?, rows: Vec::new(), bytes: 0 },
    };
    Ok(Box::new(JoinOp { plan: j, driver, inner, current: None, matched: false, budget: cx.tmp_table_budget() }))
}

/// Appends the equality identity of join key values to `key`; false if any is NULL (NULL
/// never joins). Numbers of every kind compare numerically in MySQL, so they are keyed by
/// value: integers as i128, other numbers through their exact value when integral.
fn hash_key(exprs: &[Expr], row: &[Value], cx: &mut ExecCtx, key: &mut Vec<u8>) -> Result<bool, SqlError> {
    key.clear();
    for e in exprs {
        let v = e.eval(row, cx)?;
        match &v {
            Value::Null => return Ok(false),
            Value::Int(i) => {
                key.push(1);
                key.extend_from_slice(&(*i as i128).to_be_bytes());
            }
            Value::UInt(u) => {
                key.push(1);
                key.extend_from_slice(&(*u as i128).to_be_bytes());
            }
            Value::Decimal(d)
                if d.rescale(0).is_some_and(|r| r.mantissa_i128().is_some() && r.rescale(d.scale) == Some(*d)) =>
            {
                key.push(1);
                key.extend_from_slice(&d.rescale(0).map_or(0, |r| r.mantissa_saturating()).to_be_bytes());
            }
            Value::Double(f) if f.fract() == 0.0 && f.abs() < 1e30 => {
                key.push(1);
                key.extend_from_slice(&(*f as i128).to_be_bytes());
            }
            other => {
                key.push(2);
                value::group_key(other, key);
            }
        }
        key.push(0xFF);
    }
    Ok(true)
}

// One per join operator, not per row: the size difference between states costs nothing.
#[allow(clippy::large_enum_variant)]
enum InnerState<'p> {
    Lookup {
        access: &'p crate::plan::TableAccess,
        cursor: Option<AccessCursor<'p>>,
    },
    /// Reading the inner input into the hash table (before the first driving row).
    HashBuild {
        input: Box<dyn Operator + 'p>,
        rows: Vec<Row>,
        table: HashMap<Vec<u8>, Vec<usize>>,
        driver_keys: &'p [Expr],
        inner_keys: &'p [Expr],
        /// Estimated memory of `rows` and `table`.
        bytes: usize,
    },
    Hash {
        rows: Vec<Row>,
        table: HashMap<Vec<u8>, Vec<usize>>,
        driver_keys: &'p [Expr],
        candidates: Vec<usize>,
        pos: usize,
        /// Reused for every probe key.
        key: Vec<u8>,
    },
    /// Buffering the inner input (before the first driving row).
    LoopBuild {
        input: Box<dyn Operator + 'p>,
        rows: Vec<Row>,
        bytes: usize,
    },
    Loop {
        rows: Vec<Row>,
        pos: usize,
    },
    /// The inner side passed the budget: the whole join runs on partitions on disk.
    Spilled(Box<SpilledJoin<'p>>),
}

struct JoinOp<'p> {
    plan: &'p JoinPlan,
    driver: Box<dyn Operator + 'p>,
    inner: InnerState<'p>,
    /// The current driving row.
    current: Option<Row>,
    /// Whether the current driving row has produced a row yet (outer joins).
    matched: bool,
    /// Memory for the buffered inner side: min(tmp_table_size, max_heap_table_size).
    budget: usize,
}

/// The output row (left ++ right) of a driving row and an inner row.
fn combine(plan: &JoinPlan, driver: &[Value], inner: &[Value]) -> Row {
    let mut out = Vec::with_capacity(plan.left_width + plan.right_width);
    if plan.driver_is_left() {
        out.extend_from_slice(driver);
        out.extend_from_slice(inner);
    } else {
        out.extend_from_slice(inner);
        out.extend_from_slice(driver);
    }
    out
}

/// An outer join's row for a driving row that matched nothing.
fn null_extended(plan: &JoinPlan, driver: &[Value]) -> Row {
    let inner_width = if plan.driver_is_left() { plan.right_width } else { plan.left_width };
    let nulls = vec![Value::Null; inner_width];
    combine(plan, driver, &nulls)
}

impl JoinOp<'_> {
    /// Buffers a hash or loop inner side. `Step::Row(())` once it is ready.
    fn build_inner(&mut self, cx: &mut ExecCtx) -> Result<Step<()>, SqlError> {
        loop {
            match &mut self.inner {
                InnerState::HashBuild { input, rows, table, inner_keys, bytes, .. } => {
                    if cx.tick()? {
                        return Ok(Step::Pause);
                    }
                    let mut key = Vec::new();
                    match input.next(cx)? {
                        Step::Row(r) => {
                            *bytes += row_bytes(&r);
                            if hash_key(inner_keys, &r, cx, &mut key)? {
                                *bytes += key.len() + HASH_ENTRY_OVERHEAD;
                                table.entry(key).or_default().push(rows.len());
                            }
                            rows.push(r);
                            if *bytes > self.budget {
                                self.spill(cx)?;
                            }
                        }
                        Step::Pause => return Ok(Step::Pause),
                        Step::Done => {
                            let InnerState::HashBuild { rows, table, driver_keys, .. } =
                                std::mem::replace(&mut self.inner, InnerState::Loop { rows: Vec::new(), pos: 0 })
                            else {
                                unreachable!("matched HashBuild above");
                            };
                            self.inner = InnerState::Hash {
                                rows,
                                table,
                                driver_keys,
                                candidates: Vec::new(),
                                pos: 0,
                                key: Vec::new(),
                            };
                        }
                    }
                }
                InnerState::LoopBuild { input, rows, bytes } => {
                    if cx.tick()? {
                        return Ok(Step::Pause);
                    }
                    match input.next(cx)? {
                        Step::Row(r) => {
                            *bytes += row_bytes(&r);
                            rows.push(r);
                            if *bytes > self.budget {
                                self.spill(cx)?;
                            }
                        }
                        Step::Pause => return Ok(Step::Pause),
                        Step::Done => {
                            let rows = std::mem::take(rows);
                            self.inner = InnerState::Loop { rows, pos: 0 };
                        }
                    }
                }
                InnerState::Lookup { .. }
                | InnerState::Hash { .. }
                | InnerState::Loop { .. }
                | InnerState::Spilled(_) => {
                    return Ok(Step::Row(()));
                }
            }
        }
    }

    /// Moves the inner rows buffered so far into partitions on disk; the join goes on there.
    fn spill(&mut self, cx: &mut ExecCtx) -> Result<(), SqlError> {
        let spilled = match std::mem::replace(&mut self.inner, InnerState::Loop { rows: Vec::new(), pos: 0 }) {
            InnerState::HashBuild { input, rows, driver_keys, inner_keys, .. } => {
                SpilledJoin::new(self.plan, Some((driver_keys, inner_keys)), input, rows, cx)?
            }
            InnerState::LoopBuild { input, rows, .. } => SpilledJoin::new(self.plan, None, input, rows, cx)?,
            _ => return Err(error::internal("join spilled outside its build")),
        };
        self.inner = InnerState::Spilled(Box::new(spilled));
        Ok(())
    }

    /// The next inner row for the current driving row; Done when they are exhausted.
    fn next_inner(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        let Some(driver) = self.current.as_ref() else {
            return Ok(Step::Done);
        };
        match &mut self.inner {
            InnerState::Lookup { access, cursor } => {
                if cursor.is_none() {
                    *cursor = Some(AccessCursor::open(access, driver, cx)?);
                }
                match cursor.as_mut() {
                    Some(c) => Ok(match c.next(cx)? {
                        Step::Row(r) => Step::Row(r.row),
                        Step::Done => Step::Done,
                        Step::Pause => Step::Pause,
                    }),
                    None => Ok(Step::Done),
                }
            }
            InnerState::Hash { rows, candidates, pos, .. } => {
                if *pos < candidates.len() {
                    let r = rows[candidates[*pos]].clone();
                    *pos += 1;
                    Ok(Step::Row(r))
                } else {
                    Ok(Step::Done)
                }
            }
            InnerState::Loop { rows, pos } => {
                if *pos < rows.len() {
                    let r = rows[*pos].clone();
                    *pos += 1;
                    Ok(Step::Row(r))
                } else {
                    Ok(Step::Done)
                }
            }
            InnerState::HashBuild { .. } | InnerState::LoopBuild { .. } | InnerState::Spilled(_) => {
                Err(error::internal("join probed before its inner side was built"))
            }
        }
    }

    /// Advances to the next driving row.
    fn advance_driver(&mut self, cx: &mut ExecCtx) -> Result<Step<()>, SqlError> {
        let row = match self.driver.next(cx)? {
            Step::Row(r) => r,
            Step::Pause => return Ok(Step::Pause),
            Step::Done => {
                self.current = None;
                return Ok(Step::Done);
            }
        };
        match &mut self.inner {
            InnerState::Lookup { cursor, .. } => *cursor = None,
            InnerState::Hash { table, driver_keys, candidates, pos, key, .. } => {
                candidates.clear();
                *pos = 0;
                let keys: &[Expr] = driver_keys;
                if hash_key(keys, &row, cx, key)? {
                    if let Some(c) = table.get(key.as_slice()) {
                        candidates.extend_from_slice(c);
                    }
                }
            }
            InnerState::Loop { pos, .. } => *pos = 0,
            InnerState::HashBuild { .. } | InnerState::LoopBuild { .. } | InnerState::Spilled(_) => {
                return Err(error::internal("join driven before its inner side was built"));
            }
        }
        self.current = Some(row);
        self.matched = false;
        Ok(Step::Row(()))
    }
}

impl Operator for JoinOp<'_> {
    fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        row_or_return!(self.build_inner(cx)?);
        if let InnerState::Spilled(spilled) = &mut self.inner {
            return spilled.next(&mut *self.driver, cx);
        }
        loop {
            if self.current.is_none() {
                row_or_return!(self.advance_driver(cx)?);
            }
            loop {
                if cx.tick()? {
                    return Ok(Step::Pause);
                }
                let inner = match self.next_inner(cx)? {
                    Step::Row(r) => r,
                    Step::Pause => return Ok(Step::Pause),
                    Step::Done => break,
                };
                let driver = self.current.as_deref().unwrap_or(&[]);
                let combined = combine(self.plan, driver, &inner);
                let pass = match &self.plan.condition {
                    Some(c) => eval_predicate(c, &combined, cx)?,
                    None => true,
                };
                if pass {
                    self.matched = true;
                    return Ok(Step::Row(combined));
                }
            }
            // Inner rows exhausted for this driving row.
            if let Some(d) = self.current.take() {
                if !self.matched && self.plan.kind != JoinKind::Inner {
                    return Ok(Step::Row(null_extended(self.plan, &d)));
                }
            }
        }
    }
}

// ---- the join on disk ----

/// Rows of one side of one partition, tagged [input position, row..].
#[derive(Default)]
struct Partition {
    file: Option<TempFile>,
    writer: Option<SegmentWriter>,
    segment: Option<Segment>,
}

impl Partition {
    fn push(&mut self, row: &[Value], cx: &ExecCtx) -> Result<(), SqlError> {
        if self.file.is_none() {
            self.file = Some(TempFile::create(&cx.tmpdir())?);
        }
        let Some(file) = self.file.as_mut() else {
            unreachable!("created above");
        };
        self.writer.get_or_insert_with(|| SegmentWriter::new(file)).push(file, row)
    }

    fn close(&mut self) -> Result<(), SqlError> {
        if let (Some(w), Some(file)) = (self.writer.take(), self.file.as_mut()) {
            self.segment = Some(w.finish(file)?);
        }
        Ok(())
    }

    fn rows(&self) -> usize {
        self.segment.map_or(0, |s| s.rows as usize)
    }

    fn reader(&self) -> Option<SegmentReader> {
        self.segment.map(|s| SegmentReader::new(s, IO_BUFFER_BYTES))
    }
}

/// The partition of a join key.
fn partition_of(key: &[u8], partitions: usize) -> usize {
    // DefaultHasher::new() has fixed keys: the same key always lands in the same partition.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    (h.finish() % partitions as u64) as usize
}

fn tagged(seq: i64, row: &[Value]) -> Row {
    let mut r = Vec::with_capacity(row.len() + 1);
    r.push(Value::Int(seq));
    r.extend_from_slice(row);
    r
}

fn tag_of(row: &[Value]) -> i64 {
    match row.first() {
        Some(Value::Int(i)) => *i,
        _ => 0,
    }
}

enum Phase {
    /// Partitioning the rest of the inner input.
    Inner,
    /// Partitioning the driving input.
    Driver,
    /// Joining partition by partition into `out`.
    Join(Box<PartitionJoin>),
    /// Returning `out` in (driving position, inner position) order.
    Output,
}

/// Where the join of the current partition stands.
struct PartitionJoin {
    p: usize,
    inner: Option<SegmentReader>,
    inner_done: bool,
    /// An inner row read past the current chunk's budget: the first of the next chunk.
    carry: Option<Row>,
    chunk: Vec<Row>,
    chunk_bytes: usize,
    table: HashMap<Vec<u8>, Vec<usize>>,
    driver: Option<SegmentReader>,
    /// Position of the current driving row in the partition.
    local: usize,
    current: Option<Row>,
    candidates: Vec<usize>,
    pos: usize,
    /// Outer joins: which driving rows of the partition matched some inner row.
    matched: Vec<bool>,
    stage: Stage,
    key: Vec<u8>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Reading the partition's next chunk of inner rows.
    Load,
    /// Reading the partition's driving rows against the chunk.
    Probe,
    /// Outer joins: NULL-extended rows for the driving rows that matched nothing.
    Unmatched,
}

/// The join of partition `p` (past the last one: a finished join).
fn partition_join(plan: &JoinPlan, inner: &[Partition], driver: &[Partition], p: usize) -> PartitionJoin {
    let outer = plan.kind != JoinKind::Inner;
    PartitionJoin::new(p, inner.get(p).and_then(Partition::reader), driver.get(p).map_or(0, Partition::rows), outer)
}

impl PartitionJoin {
    fn new(p: usize, inner: Option<SegmentReader>, driver_rows: usize, outer: bool) -> PartitionJoin {
        PartitionJoin {
            p,
            inner_done: inner.is_none(),
            inner,
            carry: None,
            chunk: Vec::new(),
            chunk_bytes: 0,
            table: HashMap::new(),
            driver: None,
            local: 0,
            current: None,
            candidates: Vec::new(),
            pos: 0,
            matched: if outer { vec![false; driver_rows] } else { Vec::new() },
            stage: Stage::Load,
            key: Vec::new(),
        }
    }
}

pub(super) struct SpilledJoin<'p> {
    plan: &'p JoinPlan,
    /// (driving keys, inner keys) of a hash join; None for a loop join.
    keys: Option<(&'p [Expr], &'p [Expr])>,
    inner_input: Option<Box<dyn Operator + 'p>>,
    inner: Vec<Partition>,
    driver: Vec<Partition>,
    next_inner_seq: i64,
    next_driver_seq: i64,
    /// Joined rows: [driving position, inner position, row..].
    out: Sorter<'static>,
    phase: Phase,
    budget: usize,
}

impl<'p> SpilledJoin<'p> {
    fn new(
        plan: &'p JoinPlan,
        keys: Option<(&'p [Expr], &'p [Expr])>,
        inner_input: Box<dyn Operator + 'p>,
        buffered: Vec<Row>,
        cx: &mut ExecCtx,
    ) -> Result<SpilledJoin<'p>, SqlError> {
        let partitions = if keys.is_some() { JOIN_PARTITIONS } else { 1 };
        let mut j = SpilledJoin {
            plan,
            keys,
            inner_input: Some(inner_input),
            inner: (0..partitions).map(|_| Partition::default()).collect(),
            driver: (0..partitions).map(|_| Partition::default()).collect(),
            next_inner_seq: 0,
            next_driver_seq: 0,
            out: Sorter::new(leading_keys(2), cx.sort_budget(), None),
            phase: Phase::Inner,
            budget: cx.tmp_table_budget(),
        };
        for r in buffered {
            j.push_inner(r, cx)?;
        }
        Ok(j)
    }

    fn push_inner(&mut self, row: Row, cx: &mut ExecCtx) -> Result<(), SqlError> {
        let seq = self.next_inner_seq;
        self.next_inner_seq += 1;
        let p = match self.keys {
            None => 0,
            Some((_, inner_keys)) => {
                let mut key = Vec::new();
                if !hash_key(inner_keys, &row, cx, &mut key)? {
                    // A NULL key never joins.
                    return Ok(());
                }
                partition_of(&key, self.inner.len())
            }
        };
        self.inner[p].push(&tagged(seq, &row), cx)
    }

    fn push_driver(&mut self, row: Row, cx: &mut ExecCtx) -> Result<(), SqlError> {
        let seq = self.next_driver_seq;
        self.next_driver_seq += 1;
        let p = match self.keys {
            None => 0,
            Some((driver_keys, _)) => {
                let mut key = Vec::new();
                if !hash_key(driver_keys, &row, cx, &mut key)? {
                    if self.plan.kind != JoinKind::Inner {
                        let mut r = vec![Value::Int(seq), Value::Int(0)];
                        r.extend(null_extended(self.plan, &row));
                        self.out.push(r, cx)?;
                    }
                    return Ok(());
                }
                partition_of(&key, self.driver.len())
            }
        };
        self.driver[p].push(&tagged(seq, &row), cx)
    }

    pub(super) fn next(&mut self, driver: &mut dyn Operator, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        loop {
            if cx.tick()? {
                return Ok(Step::Pause);
            }
            match &mut self.phase {
                Phase::Inner => {
                    let Some(input) = self.inner_input.as_mut() else {
                        return Err(error::internal("spilled join without its inner input"));
                    };
                    match input.next(cx)? {
                        Step::Row(r) => self.push_inner(r, cx)?,
                        Step::Pause => return Ok(Step::Pause),
                        Step::Done => {
                            self.inner_input = None;
                            for p in &mut self.inner {
                                p.close()?;
                            }
                            self.phase = Phase::Driver;
                        }
                    }
                }
                Phase::Driver => match driver.next(cx)? {
                    Step::Row(r) => self.push_driver(r, cx)?,
                    Step::Pause => return Ok(Step::Pause),
                    Step::Done => {
                        for p in &mut self.driver {
                            p.close()?;
                        }
                        self.phase = Phase::Join(Box::new(self.partition_join(0)));
                    }
                },
                Phase::Join(_) => {
                    if !self.join_step(cx)? {
                        self.out.finish(cx)?;
                        self.phase = Phase::Output;
                    }
                }
                Phase::Output => {
                    return Ok(match self.out.next(cx)? {
                        Step::Row(mut r) => {
                            r.drain(..2);
                            Step::Row(r)
                        }
                        other => other,
                    });
                }
            }
        }
    }

    fn partition_join(&self, p: usize) -> PartitionJoin {
        partition_join(self.plan, &self.inner, &self.driver, p)
    }

    /// One unit of the partition join: an inner row loaded, a driving row read, a candidate
    /// pair tested, or an unmatched row written. False once every partition is done.
    fn join_step(&mut self, cx: &mut ExecCtx) -> Result<bool, SqlError> {
        let Phase::Join(pj) = &mut self.phase else {
            return Err(error::internal("partition join outside its phase"));
        };
        let p = pj.p;
        if p >= self.driver.len() {
            return Ok(false);
        }
        let outer = self.plan.kind != JoinKind::Inner;
        let driver_part = &self.driver[p];
        match pj.stage {
            Stage::Load => {
                let next = match pj.carry.take() {
                    Some(r) => Some(r),
                    None if pj.inner_done => None,
                    None => match (pj.inner.as_mut(), self.inner[p].file.as_ref()) {
                        (Some(reader), Some(file)) => reader.next(file)?,
                        _ => None,
                    },
                };
                let Some(row) = next else {
                    pj.inner_done = true;
                    if pj.chunk.is_empty() {
                        // Every chunk of this partition is joined.
                        if outer && driver_part.rows() > 0 {
                            pj.stage = Stage::Unmatched;
                            pj.driver = driver_part.reader();
                            pj.local = 0;
                        } else {
                            **pj = partition_join(self.plan, &self.inner, &self.driver, p + 1);
                        }
                    } else {
                        self.start_probe()?;
                    }
                    return Ok(true);
                };
                let bytes = row_bytes(&row);
                if !pj.chunk.is_empty() && pj.chunk_bytes + bytes > self.budget {
                    pj.carry = Some(row);
                    self.start_probe()?;
                    return Ok(true);
                }
                pj.chunk_bytes += bytes;
                if let Some((_, inner_keys)) = self.keys {
                    if hash_key(inner_keys, &row[1..], cx, &mut pj.key)? {
                        pj.chunk_bytes += pj.key.len() + HASH_ENTRY_OVERHEAD;
                        pj.table.entry(pj.key.clone()).or_default().push(pj.chunk.len());
                    }
                }
                pj.chunk.push(row);
            }
            Stage::Probe => {
                if pj.current.is_none() {
                    let next = match (pj.driver.as_mut(), driver_part.file.as_ref()) {
                        (Some(reader), Some(file)) => reader.next(file)?,
                        _ => None,
                    };
                    let Some(row) = next else {
                        // The chunk met every driving row: on to the next chunk.
                        pj.chunk.clear();
                        pj.table.clear();
                        pj.chunk_bytes = 0;
                        pj.driver = None;
                        pj.stage = Stage::Load;
                        return Ok(true);
                    };
                    pj.candidates.clear();
                    pj.pos = 0;
                    match self.keys {
                        None => pj.candidates.extend(0..pj.chunk.len()),
                        Some((driver_keys, _)) => {
                            if hash_key(driver_keys, &row[1..], cx, &mut pj.key)? {
                                if let Some(c) = pj.table.get(&pj.key) {
                                    pj.candidates.extend_from_slice(c);
                                }
                            }
                        }
                    }
                    pj.current = Some(row);
                    return Ok(true);
                }
                let Some(driving) = pj.current.as_ref() else {
                    unreachable!("set above");
                };
                if pj.pos >= pj.candidates.len() {
                    pj.current = None;
                    pj.local += 1;
                    return Ok(true);
                }
                let inner = &pj.chunk[pj.candidates[pj.pos]];
                pj.pos += 1;
                let combined = combine(self.plan, &driving[1..], &inner[1..]);
                let pass = match &self.plan.condition {
                    Some(c) => eval_predicate(c, &combined, cx)?,
                    None => true,
                };
                if pass {
                    if let Some(m) = pj.matched.get_mut(pj.local) {
                        *m = true;
                    }
                    let mut r = Vec::with_capacity(combined.len() + 2);
                    r.push(Value::Int(tag_of(driving)));
                    r.push(Value::Int(tag_of(inner)));
                    r.extend(combined);
                    self.out.push(r, cx)?;
                }
            }
            Stage::Unmatched => {
                let next = match (pj.driver.as_mut(), driver_part.file.as_ref()) {
                    (Some(reader), Some(file)) => reader.next(file)?,
                    _ => None,
                };
                let Some(row) = next else {
                    **pj = partition_join(self.plan, &self.inner, &self.driver, p + 1);
                    return Ok(true);
                };
                if !pj.matched.get(pj.local).copied().unwrap_or(true) {
                    let mut r = vec![Value::Int(tag_of(&row)), Value::Int(0)];
                    r.extend(null_extended(self.plan, &row[1..]));
                    self.out.push(r, cx)?;
                }
                pj.local += 1;
            }
        }
        Ok(true)
    }

    /// The chunk is loaded: read the partition's driving rows against it.
    fn start_probe(&mut self) -> Result<(), SqlError> {
        let Phase::Join(pj) = &mut self.phase else {
            return Err(error::internal("partition join outside its phase"));
        };
        pj.driver = self.driver[pj.p].reader();
        pj.local = 0;
        pj.current = None;
        pj.stage = Stage::Probe;
        Ok(())
    }
}
