//! Reading one table through a `TableAccess`: builds the key ranges from the access's
//! expressions, reads a primary-key point with `Transaction::get` (never a scan), otherwise
//! scans each range in order (or in reverse), and applies the residual filter.

use selkie_storage::{ColumnType, Datum, KeyRange, ReadMode, Scan, ScanRow, TableDef};

use crate::error::SqlError;
use crate::exec::eval::eval_predicate;
use crate::plan::keys::{self, convert, Interval, KeyConv, Pos};
use crate::plan::{index_def, KeyBound, KeyPart, TableAccess, TailRange};
use crate::types::Value;
use crate::value;

use super::ctx::ExecCtx;
use super::step::Step;

enum Source {
    /// A primary key point not yet read.
    Point(Vec<Datum>),
    /// Ranges still to scan (in scan order, the next one last).
    Ranges(Vec<KeyRange>),
    Done,
}

pub struct AccessCursor<'p> {
    access: &'p TableAccess,
    source: Source,
    scan: Option<Scan>,
    /// The table's TIMESTAMP columns, whose stored UTC time is shown in the session's zone
    /// (empty for most tables: no work per row).
    timestamps: Vec<usize>,
}

impl<'p> AccessCursor<'p> {
    /// Prepares to read `access`; `key_row` is the row its key expressions are evaluated on.
    pub fn open(access: &'p TableAccess, key_row: &[Value], cx: &mut ExecCtx) -> Result<AccessCursor<'p>, SqlError> {
        let source = if access.is_pk_point() && cx.read_mode == ReadMode::Consistent {
            match exact_point(access, key_row, cx)? {
                PointKey::Key(k) => Source::Point(k),
                PointKey::NoRow => Source::Done,
                PointKey::NotExact => ranges_source(access, key_row, cx)?,
            }
        } else {
            ranges_source(access, key_row, cx)?
        };
        let timestamps = timestamp_columns(&access.table);
        Ok(AccessCursor { access, source, scan: None, timestamps })
    }

    /// The next row that passes the residual filter, as the session sees it (TIMESTAMP columns
    /// in its time zone; writes go back through `ScanRow::pk_key` and a fresh locked read).
    /// Pauses only before reading a row, so a paused cursor resumes exactly where it was.
    pub fn next(&mut self, cx: &mut ExecCtx) -> Result<Step<ScanRow>, SqlError> {
        loop {
            if cx.tick()? {
                return Ok(Step::Pause);
            }
            let Some(mut row) = self.next_raw(cx)? else {
                return Ok(Step::Done);
            };
            if let Some(inline) = cx.lock_inline {
                // Every row read is locked, before the filter, as InnoDB locks the rows it
                // scans; then read again under the lock (it may have changed since).
                match cx.try_lock_row(&self.access.table, &row.pk_key, inline.mode)? {
                    Some(Some(latest)) => row = latest,
                    Some(None) => continue,
                    None if inline.skip_locked => continue,
                    None => return Err(SqlError::from(selkie_storage::StorageError::LockWaitTimeout)),
                }
            }
            if !self.timestamps.is_empty() {
                to_session_zone(&self.timestamps, &mut row.row, cx);
            }
            if let Some(f) = &self.access.filter {
                if !eval_predicate(f, &row.row, cx)? {
                    continue;
                }
            }
            if let Some(collect) = cx.lock_collect.as_mut() {
                collect.push((self.access.table.clone(), row.pk_key.clone()));
            }
            return Ok(Step::Row(row));
        }
    }

    fn next_raw(&mut self, cx: &mut ExecCtx) -> Result<Option<ScanRow>, SqlError> {
        loop {
            if let Some(scan) = &mut self.scan {
                let trx = cx.trx()?;
                if let Some(r) = scan.next(trx)? {
                    return Ok(Some(r));
                }
                self.scan = None;
            }
            match std::mem::replace(&mut self.source, Source::Done) {
                Source::Done => return Ok(None),
                Source::Point(key) => {
                    let table = &self.access.table;
                    return Ok(cx.trx()?.get(table, &key)?);
                }
                Source::Ranges(mut ranges) => {
                    let Some(range) = ranges.pop() else {
                        return Ok(None);
                    };
                    let mode = cx.read_mode;
                    let scan =
                        cx.trx()?.scan(&self.access.table, self.access.index, range, self.access.reverse, mode)?;
                    self.scan = Some(scan);
                    self.source = Source::Ranges(ranges);
                }
            }
        }
    }
}

/// Positions of a table's TIMESTAMP columns.
pub fn timestamp_columns(table: &TableDef) -> Vec<usize> {
    let is_timestamp = |c: &selkie_storage::ColumnDef| matches!(c.ty, ColumnType::Timestamp { .. });
    if !table.columns.iter().any(is_timestamp) {
        return Vec::new();
    }
    table.columns.iter().enumerate().filter(|(_, c)| is_timestamp(c)).map(|(i, _)| i).collect()
}

/// Shows a stored row's TIMESTAMP columns (`positions`) in the session's time zone.
pub fn to_session_zone(positions: &[usize], row: &mut [Value], cx: &ExecCtx) {
    let tz = cx.env.vars.time_zone();
    for &i in positions {
        if let Some(Value::DateTime(dt)) = row.get_mut(i) {
            *dt = value::session_of_utc(*dt, tz);
        }
    }
}

/// `v` as a key of a column of type `ty`: a TIMESTAMP's keys hold UTC, so a value (the
/// session's wall-clock time) is converted as a stored one would be.
fn convert_key(ty: &ColumnType, v: &Value, cx: &ExecCtx) -> KeyConv {
    let conv = convert(ty, v);
    if !matches!(ty, ColumnType::Timestamp { .. }) {
        return conv;
    }
    let tz = cx.env.vars.time_zone();
    let utc = |d: Datum| match d {
        Datum::DateTime(dt) => value::utc_of_session(dt, tz).map(Datum::DateTime),
        other => Some(other),
    };
    match conv {
        KeyConv::Exact(d) => utc(d).map_or(KeyConv::Unusable, KeyConv::Exact),
        KeyConv::Approx { lo, hi } => match (utc(lo), utc(hi)) {
            (Some(lo), Some(hi)) => KeyConv::Approx { lo, hi },
            _ => KeyConv::Unusable,
        },
        other => other,
    }
}

/// A stored row of `table` as the session sees it: TIMESTAMP columns in its time zone. Borrowed
/// unchanged when the table has none.
pub fn session_row<'r>(table: &TableDef, row: &'r [Value], cx: &ExecCtx) -> std::borrow::Cow<'r, [Value]> {
    let positions = timestamp_columns(table);
    if positions.is_empty() {
        return std::borrow::Cow::Borrowed(row);
    }
    let mut view = row.to_vec();
    to_session_zone(&positions, &mut view, cx);
    std::borrow::Cow::Owned(view)
}

/// A stored value of column `col` as the session sees it.
pub fn session_value(col: &selkie_storage::ColumnDef, v: &Value, cx: &ExecCtx) -> Value {
    match (&col.ty, v) {
        (ColumnType::Timestamp { .. }, Value::DateTime(dt)) => {
            Value::DateTime(value::session_of_utc(*dt, cx.env.vars.time_zone()))
        }
        _ => v.clone(),
    }
}

enum PointKey {
    Key(Vec<Datum>),
    NoRow,
    NotExact,
}

/// The hot path of `SELECT ... WHERE pk = ?`: every key value converts exactly, so the key is
/// built directly without interval arithmetic.
fn exact_point(access: &TableAccess, key_row: &[Value], cx: &mut ExecCtx) -> Result<PointKey, SqlError> {
    let table = &access.table;
    let mut key = Vec::with_capacity(access.eq.len());
    for (part, ic) in access.eq.iter().zip(&table.primary.columns) {
        let KeyPart::Value(e) = part else {
            return Ok(PointKey::NotExact);
        };
        let v = e.eval(key_row, cx)?;
        match convert_key(&table.columns[ic.column].ty, &v, cx) {
            KeyConv::Exact(d) => key.push(d),
            KeyConv::Null | KeyConv::BelowAll | KeyConv::AboveAll => return Ok(PointKey::NoRow),
            KeyConv::Approx { .. } | KeyConv::Unusable => return Ok(PointKey::NotExact),
        }
    }
    Ok(PointKey::Key(key))
}

fn ranges_source(access: &TableAccess, key_row: &[Value], cx: &mut ExecCtx) -> Result<Source, SqlError> {
    let intervals = build_intervals(access, key_row, cx)?;
    let pk_width = access.table.primary.columns.len();
    if access.is_pk_point() && cx.read_mode == ReadMode::Consistent && intervals.len() == 1 {
        if let Some(k) = keys::as_point(&intervals[0], pk_width) {
            return Ok(Source::Point(k.to_vec()));
        }
    }
    let mut ranges: Vec<KeyRange> = intervals.into_iter().map(keys::to_key_range).collect();
    // Popped from the back: forward scans take the first range first.
    if !access.reverse {
        ranges.reverse();
    }
    Ok(Source::Ranges(ranges))
}

/// Evaluates the access's key expressions into normalized intervals of the index key space.
pub fn build_intervals(access: &TableAccess, key_row: &[Value], cx: &mut ExecCtx) -> Result<Vec<Interval>, SqlError> {
    let table = &access.table;
    let def = index_def(table, access.index);
    debug_assert!(access.eq.len() + access.tail.is_some() as usize <= def.columns.len());
    let col_type = |i: usize| &table.columns[def.columns[i].column].ty;
    let mut prefixes: Vec<Vec<Datum>> = vec![Vec::new()];
    let mut out = Vec::new();
    for (j, part) in access.eq.iter().enumerate() {
        let ty = col_type(j);
        let convs: Vec<KeyConv> = match part {
            KeyPart::Value(e) => vec![convert_key(ty, &e.eval(key_row, cx)?, cx)],
            KeyPart::In(list) => {
                let mut v = Vec::with_capacity(list.len());
                for e in list {
                    v.push(convert_key(ty, &e.eval(key_row, cx)?, cx));
                }
                v
            }
            KeyPart::IsNull => vec![KeyConv::Exact(Datum::Null)],
        };
        let mut next = Vec::with_capacity(prefixes.len() * convs.len());
        for p in &prefixes {
            for c in &convs {
                match c {
                    KeyConv::Exact(d) => {
                        let mut k = p.clone();
                        k.push(d.clone());
                        next.push(k);
                    }
                    KeyConv::Approx { lo, hi } => {
                        out.push(Interval { lo: Pos::before(extend(p, lo)), hi: Pos::after(extend(p, hi)) });
                    }
                    KeyConv::Unusable => out.push(Interval { lo: Pos::before(p.clone()), hi: Pos::after(p.clone()) }),
                    KeyConv::BelowAll | KeyConv::AboveAll | KeyConv::Null => {}
                }
            }
        }
        prefixes = next;
    }
    for p in prefixes {
        match &access.tail {
            None => out.push(Interval { lo: Pos::before(p.clone()), hi: Pos::after(p) }),
            Some(TailRange::Range { lower, upper }) => {
                if let Some(iv) = tail_interval(&p, col_type(access.eq.len()), lower, upper, key_row, cx)? {
                    out.push(iv);
                }
            }
            Some(TailRange::Multi(list)) => {
                for (lower, upper) in list {
                    if let Some(iv) = tail_interval(&p, col_type(access.eq.len()), lower, upper, key_row, cx)? {
                        out.push(iv);
                    }
                }
            }
        }
    }
    Ok(keys::normalize(out))
}

fn extend(prefix: &[Datum], d: &Datum) -> Vec<Datum> {
    let mut k = Vec::with_capacity(prefix.len() + 1);
    k.extend_from_slice(prefix);
    k.push(d.clone());
    k
}

/// The interval `prefix ++ (lower, upper)`; None if no value can satisfy it. A comparison is
/// never true for NULL, so an open lower end starts after the NULL keys.
fn tail_interval(
    prefix: &[Datum],
    ty: &selkie_storage::ColumnType,
    lower: &Option<KeyBound>,
    upper: &Option<KeyBound>,
    key_row: &[Value],
    cx: &mut ExecCtx,
) -> Result<Option<Interval>, SqlError> {
    let after_nulls = || Pos::after(extend(prefix, &Datum::Null));
    let lo = match lower {
        None => after_nulls(),
        Some(b) => match convert_key(ty, &b.value.eval(key_row, cx)?, cx) {
            KeyConv::Exact(d) if b.inclusive => Pos::before(extend(prefix, &d)),
            KeyConv::Exact(d) => Pos::after(extend(prefix, &d)),
            KeyConv::Approx { lo, .. } => Pos::before(extend(prefix, &lo)),
            KeyConv::BelowAll | KeyConv::Unusable => after_nulls(),
            KeyConv::AboveAll | KeyConv::Null => return Ok(None),
        },
    };
    let hi = match upper {
        None => Pos::after(prefix.to_vec()),
        Some(b) => match convert_key(ty, &b.value.eval(key_row, cx)?, cx) {
            KeyConv::Exact(d) if b.inclusive => Pos::after(extend(prefix, &d)),
            KeyConv::Exact(d) => Pos::before(extend(prefix, &d)),
            KeyConv::Approx { hi, .. } => Pos::after(extend(prefix, &hi)),
            KeyConv::AboveAll | KeyConv::Unusable => Pos::after(prefix.to_vec()),
            KeyConv::BelowAll | KeyConv::Null => return Ok(None),
        },
    };
    Ok(Some(Interval { lo, hi }))
}
