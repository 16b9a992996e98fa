//! Running a query to the end: the async drivers above the synchronous operator tree. They
//! await `ExecCtx::pause` when an operator's time slice is used up, and row locks.

use selkie_storage::{LockMode, ReadMode};

use super::ctx::{ExecCtx, InlineLock};
use super::open::eval_limit;
use super::step::{Row, Step};
use crate::error::SqlError;
use crate::plan::{LockWait, QueryPlan};
use crate::types::ResultSink;

/// Runs a query plan to the sink: columns, then the rows. Locking reads (FOR UPDATE / LOCK IN
/// SHARE MODE) first lock every row they would return, then read again; WAIT n bounds their
/// waits, NOWAIT and SKIP LOCKED do not wait. Returns what `stream_rows` does.
pub async fn run_query(
    plan: &QueryPlan,
    cx: &mut ExecCtx<'_>,
    sink: &mut dyn ResultSink,
) -> Result<(u64, u64), SqlError> {
    let lock = plan.lock.or(cx.reads_lock_shared.then_some(LockMode::Shared));
    if let (Some(mode), true) = (lock, cx.has_trx()) {
        match plan.lock_wait {
            LockWait::NoWait | LockWait::SkipLocked => {
                // Locks are taken as rows are read (nothing waits): a first pass finds a
                // NOWAIT conflict before the columns go out; the second returns the rows it
                // locked, and with SKIP LOCKED a LIMIT counts the rows not skipped.
                cx.read_mode = ReadMode::Latest;
                cx.lock_inline = Some(InlineLock { mode, skip_locked: plan.lock_wait == LockWait::SkipLocked });
                collect_rows(plan, cx).await?;
                sink.columns(&plan.metas);
                return stream_rows(plan, cx, sink).await;
            }
            LockWait::Timeout(wait) => {
                cx.trx()?.set_statement_lock_wait(Some(wait));
                let locked = lock_collected(plan, cx, mode).await;
                cx.trx()?.set_statement_lock_wait(None);
                locked?;
            }
            LockWait::Default => lock_collected(plan, cx, mode).await?,
        }
    }
    sink.columns(&plan.metas);
    stream_rows(plan, cx, sink).await
}

/// A locking read's first pass: collects the keys of the rows the query reads, then locks
/// each (waiting as needed; the operators cannot wait). The second pass reads them again.
async fn lock_collected(plan: &QueryPlan, cx: &mut ExecCtx<'_>, mode: LockMode) -> Result<(), SqlError> {
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
    cx.check_interrupt()
}

/// Runs a query to completion and returns its rows, pausing when its time slice is used up.
pub async fn collect_rows(plan: &QueryPlan, cx: &mut ExecCtx<'_>) -> Result<Vec<Row>, SqlError> {
    let mut op = plan.root.open(cx)?;
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
    let mut op = plan.root.open(cx)?;
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
