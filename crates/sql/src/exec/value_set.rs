//! The values of an `expr IN (SELECT ...)` subquery that outgrew its memory budget: sorted,
//! without duplicates, in a temporary file, probed by a binary search over a sparse index kept
//! in memory (architecture §2.1). MariaDB likewise materializes a large IN subquery into an
//! on-disk temporary table with a unique index.
//!
//! Membership means what the in-memory list means: some value `x` with `compare(v, x)` equal.
//! The file is in `sort_compare` order, which is `compare`'s order for non-NULL values of one
//! type; NULLs are not stored, only remembered (they make a failed probe NULL instead of FALSE).

use std::cmp::Ordering;

use crate::error::SqlError;
use crate::types::Value;
use crate::value;

use super::spill::{Segment, SegmentReader, SegmentWriter, TempFile};

/// Values per sparse index entry: a probe reads at most this many from the file.
const INDEX_EVERY: usize = 64;

/// Read buffer of a probe: about one index interval of small values.
const PROBE_CHUNK: usize = 4 << 10;

pub struct ValueSet {
    file: TempFile,
    segment: Segment,
    /// Every `INDEX_EVERY`-th value and its offset in the file, in order.
    index: Vec<(Value, u64)>,
    pub saw_null: bool,
}

impl std::fmt::Debug for ValueSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ValueSet({} values on disk)", self.segment.rows)
    }
}

impl ValueSet {
    /// Builds the set in a new temporary file in `dir` from values in `sort_compare` order
    /// (duplicates and NULLs allowed), as `next` yields them until it returns None.
    pub fn from_sorted(
        dir: &str,
        next: &mut dyn FnMut() -> Result<Option<Value>, SqlError>,
    ) -> Result<ValueSet, SqlError> {
        let mut file = TempFile::create(dir)?;
        let mut writer = SegmentWriter::new(&file);
        let mut index = Vec::new();
        let mut saw_null = false;
        let mut last: Option<Value> = None;
        while let Some(v) = next()? {
            if v.is_null() {
                saw_null = true;
                continue;
            }
            if last.as_ref().is_some_and(|l| value::sort_compare(l, &v) == Ordering::Equal) {
                continue;
            }
            if (writer.rows() as usize).is_multiple_of(INDEX_EVERY) {
                index.push((v.clone(), writer.next_offset(&file)));
            }
            writer.push(&mut file, std::slice::from_ref(&v))?;
            last = Some(v);
        }
        let segment = writer.finish(&mut file)?;
        Ok(ValueSet { file, segment, index, saw_null })
    }

    /// True if some value of the set equals `v` (not NULL).
    pub fn contains(&self, v: &Value) -> Result<bool, SqlError> {
        // The last index entry not above `v`: the only interval that can hold it.
        let after = self.index.partition_point(|(x, _)| value::sort_compare(x, v) != Ordering::Greater);
        if after == 0 {
            return Ok(false);
        }
        let start = self.index[after - 1].1;
        let end = self.index.get(after).map_or(self.segment.end, |e| e.1);
        let mut reader = SegmentReader::new(Segment { start, end, rows: 0 }, PROBE_CHUNK);
        while let Some(row) = reader.next(&self.file)? {
            let Some(x) = row.first() else {
                continue;
            };
            match value::compare(v, x) {
                Some(Ordering::Equal) => return Ok(true),
                Some(Ordering::Less) => return Ok(false),
                _ => {}
            }
        }
        Ok(false)
    }
}
