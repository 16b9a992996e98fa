//! External merge sort: ORDER BY, and every operator that must order or buffer more rows than
//! its memory budget allows (spilled GROUP BY and DISTINCT, a spilled join's output, the
//! primary keys an UPDATE / DELETE collects). Architecture §2.1.
//!
//! Floor: above `spill`, below the operators of `exec`.
//!
//! Rows are buffered until they pass the budget (sort_buffer_size for ORDER BY), then sorted
//! and written to @@tmpdir as a run; at the end the runs are merged, at most `MERGE_FAN_IN` at a
//! time (earlier passes write longer runs to a second file). The order is exactly the in-memory
//! sort's: the same comparison (`value::sort_compare` per key), and stable, because each run is
//! sorted stably and a merge breaks ties by run number, runs being numbered in input order.
//! With a LIMIT (top-N) only the first N rows of the input are ever needed: in memory the
//! buffer is cut back to N whenever it holds 2N, and every run is cut to N rows before it is
//! written.
//!
//! Merging is resumable: `next` works one row at a time and returns `Step::Pause` when the
//! statement's time slice is used up, so a long merge yields its worker thread like a scan.
//! Sorting one in-memory run is not interruptible, as in the in-memory sort it replaces.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::VecDeque;

use crate::error::SqlError;
use crate::plan::SortKey;
use crate::value;

use super::ctx::ExecCtx;
use super::spill::{row_bytes, Segment, SegmentReader, SegmentWriter, TempFile, IO_BUFFER_BYTES};
use super::step::{Row, Step};

/// Most runs merged at once. With 64 KiB read buffers a merge holds at most 4 MiB of them; with
/// the default 2 MiB sort_buffer_size a single final merge covers 128 MiB of rows, and one more
/// pass 8 GiB.
const MERGE_FAN_IN: usize = 64;

/// Smallest read buffer per run: below this, reads are too small to be sequential I/O.
const MIN_READ_CHUNK: usize = 4 << 10;

/// Top-N keeps at least this many rows before cutting back, so tiny limits do not sort often.
const TOP_N_MIN_BUFFER: usize = 64;

pub fn compare_rows(a: &[crate::types::Value], b: &[crate::types::Value], keys: &[SortKey]) -> Ordering {
    for k in keys {
        let o = value::sort_compare(&a[k.column], &b[k.column]);
        let o = if k.desc { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Sort keys on the leading `n` columns, ascending.
pub fn leading_keys(n: usize) -> Vec<SortKey> {
    (0..n).map(|column| SortKey { column, desc: false }).collect()
}

pub struct Sorter<'k> {
    /// Empty keys make a spillable FIFO: rows come back in input order.
    keys: Cow<'k, [SortKey]>,
    budget: usize,
    /// Top-N: only this many leading rows are returned.
    limit: Option<usize>,
    rows: Vec<Row>,
    bytes: usize,
    spilled: Option<Spilled>,
    output: Output,
    emitted: usize,
}

struct Spilled {
    file: TempFile,
    /// Runs of `file`, in input order.
    runs: Vec<Segment>,
    /// The other file of a merge pass (created by the first pass).
    spare: Option<TempFile>,
    pass: Option<Pass>,
}

/// An intermediate merge pass in progress: groups of `MERGE_FAN_IN` runs of `file` become one
/// run each in `spare`.
struct Pass {
    pending: VecDeque<Segment>,
    produced: Vec<Segment>,
    current: Option<(Merge, SegmentWriter, usize)>,
}

enum Output {
    /// Still accepting rows.
    Filling,
    Memory(std::vec::IntoIter<Row>),
    /// Spilled FIFO: runs read one after the other.
    Sequential {
        next_run: usize,
        reader: Option<SegmentReader>,
    },
    /// Spilled sort: merge passes until at most `MERGE_FAN_IN` runs remain, then the final
    /// merge (created on first use).
    Merge(Option<Merge>),
}

impl<'k> Sorter<'k> {
    pub fn new(keys: impl Into<Cow<'k, [SortKey]>>, budget: usize, limit: Option<usize>) -> Sorter<'k> {
        Sorter {
            keys: keys.into(),
            budget,
            limit,
            rows: Vec::new(),
            bytes: 0,
            spilled: None,
            output: Output::Filling,
            emitted: 0,
        }
    }

    pub fn push(&mut self, row: Row, cx: &ExecCtx) -> Result<(), SqlError> {
        debug_assert!(matches!(self.output, Output::Filling), "row pushed into a finished sort");
        if self.limit == Some(0) {
            return Ok(());
        }
        self.bytes += row_bytes(&row);
        self.rows.push(row);
        if let Some(k) = self.limit {
            // Top-N: whenever the buffer holds twice what is needed, keep the best half. Stable
            // sorting keeps ties in input order, as a full sort would.
            if self.rows.len() >= k.saturating_mul(2).max(TOP_N_MIN_BUFFER) {
                self.sort_buffer();
                self.rows.truncate(k);
                self.bytes = self.rows.iter().map(|r| row_bytes(r)).sum();
            }
        }
        if self.bytes > self.budget {
            self.write_run(cx)?;
        }
        Ok(())
    }

    fn sort_buffer(&mut self) {
        if !self.keys.is_empty() {
            let keys = &*self.keys;
            self.rows.sort_by(|a, b| compare_rows(a, b, keys));
        }
    }

    /// Sorts the buffer and writes it as the next run.
    fn write_run(&mut self, cx: &ExecCtx) -> Result<(), SqlError> {
        self.sort_buffer();
        if let Some(k) = self.limit {
            self.rows.truncate(k);
        }
        if self.spilled.is_none() {
            self.spilled =
                Some(Spilled { file: TempFile::create(&cx.tmpdir())?, runs: Vec::new(), spare: None, pass: None });
        }
        let Some(sp) = self.spilled.as_mut() else {
            unreachable!("created above");
        };
        let mut w = SegmentWriter::new(&sp.file);
        for r in self.rows.drain(..) {
            w.push(&mut sp.file, &r)?;
        }
        sp.runs.push(w.finish(&mut sp.file)?);
        self.bytes = 0;
        // The buffer's memory goes back too: a sort that spilled once is likely to again, but
        // the operator above may need the memory for its own rows meanwhile.
        self.rows = Vec::new();
        Ok(())
    }

    /// No more input: prepares the output.
    pub fn finish(&mut self, cx: &ExecCtx) -> Result<(), SqlError> {
        if self.spilled.is_none() {
            self.sort_buffer();
            if let Some(k) = self.limit {
                self.rows.truncate(k);
            }
            self.output = Output::Memory(std::mem::take(&mut self.rows).into_iter());
            return Ok(());
        }
        if !self.rows.is_empty() {
            self.write_run(cx)?;
        }
        self.output =
            if self.keys.is_empty() { Output::Sequential { next_run: 0, reader: None } } else { Output::Merge(None) };
        Ok(())
    }

    /// The next row in order (after `finish`).
    pub fn next(&mut self, cx: &mut ExecCtx) -> Result<Step, SqlError> {
        if self.limit.is_some_and(|k| self.emitted >= k) {
            return Ok(Step::Done);
        }
        let step = match &mut self.output {
            Output::Filling => return Err(crate::error::internal("sorted output read before the input ended")),
            Output::Memory(rows) => rows.next().map_or(Step::Done, Step::Row),
            Output::Sequential { next_run, reader } => {
                let Some(sp) = self.spilled.as_mut() else {
                    return Err(crate::error::internal("spilled output without a file"));
                };
                loop {
                    if let Some(r) = reader.as_mut() {
                        if cx.tick()? {
                            return Ok(Step::Pause);
                        }
                        if let Some(row) = r.next(&sp.file)? {
                            break Step::Row(row);
                        }
                        *reader = None;
                    }
                    let Some(seg) = sp.runs.get(*next_run) else {
                        break Step::Done;
                    };
                    *next_run += 1;
                    *reader = Some(SegmentReader::new(*seg, IO_BUFFER_BYTES));
                }
            }
            Output::Merge(merge) => {
                let Some(sp) = self.spilled.as_mut() else {
                    return Err(crate::error::internal("spilled output without a file"));
                };
                loop {
                    if cx.tick()? {
                        return Ok(Step::Pause);
                    }
                    if sp.pass.is_some() || sp.runs.len() > MERGE_FAN_IN {
                        sp.merge_pass_step(&self.keys, self.budget, self.limit, cx)?;
                        continue;
                    }
                    if merge.is_none() {
                        *merge = Some(Merge::open(&sp.runs, &sp.file, self.budget, &self.keys)?);
                    }
                    let Some(m) = merge.as_mut() else {
                        unreachable!("opened above");
                    };
                    break m.pop(&sp.file, &self.keys)?.map_or(Step::Done, Step::Row);
                }
            }
        };
        if matches!(step, Step::Row(_)) {
            self.emitted += 1;
        }
        Ok(step)
    }
}

impl Spilled {
    /// Moves one row of an intermediate merge pass (starting or ending the pass as needed).
    fn merge_pass_step(
        &mut self,
        keys: &[SortKey],
        budget: usize,
        limit: Option<usize>,
        cx: &ExecCtx,
    ) -> Result<(), SqlError> {
        if self.pass.is_none() {
            if self.spare.is_none() {
                self.spare = Some(TempFile::create(&cx.tmpdir())?);
            }
            self.pass = Some(Pass { pending: self.runs.drain(..).collect(), produced: Vec::new(), current: None });
        }
        let (Some(pass), Some(spare)) = (self.pass.as_mut(), self.spare.as_mut()) else {
            unreachable!("set above");
        };
        let Some((merge, writer, written)) = pass.current.as_mut() else {
            if pass.pending.is_empty() {
                // The pass is complete: its output becomes the input of the next step.
                let Some(pass) = self.pass.take() else {
                    unreachable!("checked above");
                };
                self.runs = pass.produced;
                let Some(spare) = self.spare.as_mut() else {
                    unreachable!("created above");
                };
                std::mem::swap(&mut self.file, spare);
                spare.clear()?;
                return Ok(());
            }
            let n = pass.pending.len().min(MERGE_FAN_IN);
            let group: Vec<Segment> = pass.pending.drain(..n).collect();
            pass.current = Some((Merge::open(&group, &self.file, budget, keys)?, SegmentWriter::new(spare), 0));
            return Ok(());
        };
        let row = if limit.is_some_and(|k| *written >= k) { None } else { merge.pop(&self.file, keys)? };
        match row {
            Some(r) => {
                writer.push(spare, &r)?;
                *written += 1;
            }
            None => {
                let Some((_, writer, _)) = pass.current.take() else {
                    unreachable!("matched above");
                };
                pass.produced.push(writer.finish(spare)?);
            }
        }
        Ok(())
    }
}

/// A k-way merge of sorted runs of one file: a binary heap of run numbers ordered by each run's
/// head row, ties to the lower run number (which keeps the sort stable).
struct Merge {
    readers: Vec<SegmentReader>,
    heads: Vec<Option<Row>>,
    heap: Vec<usize>,
}

impl Merge {
    fn open(runs: &[Segment], file: &TempFile, budget: usize, keys: &[SortKey]) -> Result<Merge, SqlError> {
        let chunk = (budget / (runs.len() + 1)).clamp(MIN_READ_CHUNK, IO_BUFFER_BYTES);
        let mut readers: Vec<SegmentReader> = runs.iter().map(|s| SegmentReader::new(*s, chunk)).collect();
        let mut heads = Vec::with_capacity(readers.len());
        for r in &mut readers {
            heads.push(r.next(file)?);
        }
        let mut m = Merge { readers, heads, heap: Vec::with_capacity(runs.len()) };
        for i in 0..m.heads.len() {
            if m.heads[i].is_some() {
                m.heap.push(i);
                m.sift_up(keys, m.heap.len() - 1);
            }
        }
        Ok(m)
    }

    fn less(&self, keys: &[SortKey], a: usize, b: usize) -> bool {
        let (Some(x), Some(y)) = (&self.heads[a], &self.heads[b]) else {
            return false;
        };
        match compare_rows(x, y, keys) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => a < b,
        }
    }

    fn sift_up(&mut self, keys: &[SortKey], mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.less(keys, self.heap[i], self.heap[parent]) {
                self.heap.swap(i, parent);
                i = parent;
            } else {
                break;
            }
        }
    }

    fn sift_down(&mut self, keys: &[SortKey], mut i: usize) {
        loop {
            let l = 2 * i + 1;
            let r = l + 1;
            let mut best = i;
            if l < self.heap.len() && self.less(keys, self.heap[l], self.heap[best]) {
                best = l;
            }
            if r < self.heap.len() && self.less(keys, self.heap[r], self.heap[best]) {
                best = r;
            }
            if best == i {
                return;
            }
            self.heap.swap(i, best);
            i = best;
        }
    }

    fn pop(&mut self, file: &TempFile, keys: &[SortKey]) -> Result<Option<Row>, SqlError> {
        let Some(&top) = self.heap.first() else {
            return Ok(None);
        };
        let row = self.heads[top].take();
        self.heads[top] = self.readers[top].next(file)?;
        if self.heads[top].is_none() {
            let last = self.heap.len() - 1;
            self.heap.swap(0, last);
            self.heap.pop();
        }
        if !self.heap.is_empty() {
            self.sift_down(keys, 0);
        }
        Ok(row)
    }
}
