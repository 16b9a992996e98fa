//! Redo segment files: `dir/redo/{segment number:016x}.log`, segment number = lsn / segment size.
//! A segment holds the log bytes `[n * size, (n + 1) * size)` at offset `lsn - n * size`; entries
//! may span segments.
//!
//! Space: a segment is preallocated for real (fallocate) under a temporary name, synced,
//! and only then renamed into place, so a segment file always has its full size on disk and a
//! write into it cannot fail for lack of space; ENOSPC shows when a segment is prepared, and the
//! log writer waits and retries there (writer.rs). Segments the checkpoint no longer needs are
//! *recycled*: renamed to the next number the writer needs instead of deleted and created again,
//! so a log that reached its capacity needs no new disk space. Their stale bytes cannot verify at
//! the new position, because every entry carries its start LSN in its CRC. The writer prepares
//! the segment after the one it writes ahead of need.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::io::{FileKind, Io, IoFile};

use super::config::{Lsn, MIN_SEGMENT_BYTES};

/// Name of the segment directory inside the data directory.
pub(super) const REDO_DIR: &str = "redo";
const SEGMENT_SUFFIX: &str = ".log";
/// Suffix of a segment being created (ignored by `list_segments`, removed at open).
const TEMP_SUFFIX: &str = ".log.tmp";
const SEGMENT_NAME_DIGITS: usize = 16;

pub(super) fn redo_dir(datadir: &Path) -> PathBuf {
    datadir.join(REDO_DIR)
}

pub(super) fn segment_path(redo_dir: &Path, segment: u64) -> PathBuf {
    redo_dir.join(format!("{segment:016x}{SEGMENT_SUFFIX}"))
}

fn temp_path(redo_dir: &Path, segment: u64) -> PathBuf {
    redo_dir.join(format!("{segment:016x}{TEMP_SUFFIX}"))
}

/// The segment number of a file name, or `None` for anything that is not a segment.
fn parse_segment_name(name: &str) -> Option<u64> {
    let hex = name.strip_suffix(SEGMENT_SUFFIX)?;
    if hex.len() != SEGMENT_NAME_DIGITS || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// Segment numbers present in `redo_dir`, ascending (empty if the directory does not exist).
pub(super) fn list_segments(redo_dir: &Path) -> std::io::Result<Vec<u64>> {
    let entries = match std::fs::read_dir(redo_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut segments = Vec::new();
    for entry in entries {
        if let Some(n) = entry?.file_name().to_str().and_then(parse_segment_name) {
            segments.push(n);
        }
    }
    segments.sort_unstable();
    Ok(segments)
}

/// Removes segments left half-created by a crash (their temporary files).
pub(super) fn remove_temp_files(io: &Io, redo_dir: &Path) -> std::io::Result<()> {
    let entries = match std::fs::read_dir(redo_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        if entry.file_name().to_str().is_some_and(|n| n.ends_with(TEMP_SUFFIX)) {
            io.remove_file(&entry.path())?;
        }
    }
    Ok(())
}

/// The size of the existing segments, if there are any: a log keeps the segment size it was
/// created with (segment numbers are LSN / size), whatever the configuration says now. Every
/// segment is created at its full size and never shrinks for good, so the largest is the size
/// (one cut short by something outside the engine does not mislead it).
pub fn existing_segment_bytes(datadir: &Path) -> std::io::Result<Option<u64>> {
    let dir = redo_dir(datadir);
    let mut largest = None;
    for n in list_segments(&dir)? {
        let len = std::fs::metadata(segment_path(&dir, n))?.len();
        if len >= MIN_SEGMENT_BYTES && largest.is_none_or(|l| len > l) {
            largest = Some(len);
        }
    }
    Ok(largest)
}

/// Opens segment `n` if it exists (`None` if not).
pub(super) fn open_existing(
    io: &Io,
    redo_dir: &Path,
    n: u64,
    segment_bytes: u64,
) -> std::io::Result<Option<Arc<IoFile>>> {
    let base = n.saturating_mul(segment_bytes);
    match io.open_as(&segment_path(redo_dir, n), false, FileKind::LogSegment, base) {
        Ok(file) => Ok(Some(file)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Creates segment `n` with all its blocks allocated, durably: under a temporary name, synced,
/// then renamed into place and the directory synced. A failure (ENOSPC) leaves no segment `n`.
pub(super) fn create(io: &Io, redo_dir: &Path, n: u64, segment_bytes: u64) -> std::io::Result<Arc<IoFile>> {
    let temp = temp_path(redo_dir, n);
    let made = (|| {
        let file = io.open_as(&temp, true, FileKind::LogSegment, n.saturating_mul(segment_bytes))?;
        file.set_len(0)?; // a leftover of a failed attempt
        file.allocate(0, segment_bytes)?;
        file.sync_all()?;
        io.rename(&temp, &segment_path(redo_dir, n))?;
        io.sync_dir(redo_dir)?;
        Ok(file)
    })();
    if made.is_err() {
        // Frees what the failed allocation got; the error that matters is the first one.
        let _ = io.remove_file(&temp);
    }
    made
}

/// Zeroes an existing segment in place and keeps its blocks allocated (log bytes at or past the
/// end of the recovered log must not survive; see `Wal::open`).
pub(super) fn zero_from(file: &IoFile, offset: u64, segment_bytes: u64) -> std::io::Result<()> {
    // Truncating and re-allocating zeroes the tail as a metadata operation, without writing up
    // to a segment of zeros. fsync, not fdatasync: the size ends where it started.
    file.set_len(offset)?;
    file.set_len(segment_bytes)?;
    // Best effort on a full disk: the tail reads as zeros either way, and a write that finds no
    // space is retried by the writer.
    if let Err(e) = file.allocate(0, segment_bytes) {
        if !crate::io::is_no_space(&e) {
            return Err(e);
        }
    }
    file.sync_all()
}

/// The log writer's open segments: the one being written, possibly the previous one (until the
/// next sync) and the next one, prepared ahead so that crossing a boundary costs no file
/// creation.
pub(super) struct SegmentFiles {
    io: Io,
    redo_dir: PathBuf,
    segment_bytes: u64,
    open: BTreeMap<u64, Arc<IoFile>>,
    /// Segments written since the last sync.
    dirty: Vec<u64>,
}

impl SegmentFiles {
    pub fn new(io: Io, redo_dir: PathBuf, segment_bytes: u64) -> SegmentFiles {
        SegmentFiles { io, redo_dir, segment_bytes, open: BTreeMap::new(), dirty: Vec::new() }
    }

    /// Writes `data` at log position `lsn`, which must not cross a segment boundary. Prepares
    /// the segment if it is missing (which may fail with ENOSPC); segments below
    /// `recycle_below` may be reused for it.
    pub fn write(&mut self, lsn: Lsn, data: &[u8], recycle_below: u64) -> std::io::Result<()> {
        let n = lsn / self.segment_bytes;
        let offset = lsn % self.segment_bytes;
        debug_assert!(offset + data.len() as u64 <= self.segment_bytes, "write crosses a segment");
        let file = self.prepare(n, recycle_below)?;
        file.write_at(data, offset)?;
        if !self.dirty.contains(&n) {
            self.dirty.push(n);
        }
        Ok(())
    }

    /// fdatasyncs every segment written since the last sync; returns how many syncs it made.
    /// Then closes segments below the newest one written (nothing will write them again).
    pub fn sync(&mut self) -> std::io::Result<u64> {
        let mut syncs = 0;
        for &n in &self.dirty {
            self.open[&n].sync_data()?;
            syncs += 1;
        }
        if let Some(&newest) = self.dirty.iter().max() {
            self.open.retain(|&n, _| n >= newest);
        }
        self.dirty.clear();
        Ok(syncs)
    }

    /// Whether segment `n` is open (prepared).
    pub fn is_open(&self, n: u64) -> bool {
        self.open.contains_key(&n)
    }

    /// End of the run of prepared segments that holds `lsn` (`lsn`'s segment start if it is
    /// not prepared).
    pub fn prepared_end(&self, lsn: Lsn) -> Lsn {
        let mut n = lsn / self.segment_bytes;
        while self.is_open(n) {
            n += 1;
        }
        n.saturating_mul(self.segment_bytes)
    }

    /// Segment `n`, opened, recycled from a segment below `recycle_below`, or created.
    pub fn prepare(&mut self, n: u64, recycle_below: u64) -> std::io::Result<Arc<IoFile>> {
        if let Some(file) = self.open.get(&n) {
            return Ok(Arc::clone(file));
        }
        let file = match open_existing(&self.io, &self.redo_dir, n, self.segment_bytes)? {
            Some(file) => file,
            None => match self.recycle(n, recycle_below)? {
                Some(file) => file,
                None => create(&self.io, &self.redo_dir, n, self.segment_bytes)?,
            },
        };
        // Segments of older versions were sparse. Best effort: a write that still finds no
        // space is retried by the writer.
        if file.allocated_bytes()? < self.segment_bytes {
            if let Err(e) = file.allocate(0, self.segment_bytes) {
                if !crate::io::is_no_space(&e) {
                    return Err(e);
                }
            }
        }
        self.open.insert(n, Arc::clone(&file));
        Ok(file)
    }

    /// Renames the oldest segment below `recycle_below` to `n` (durably) and opens it; `None`
    /// if there is none. Races with `Wal::truncate_before`, which deletes surplus old segments:
    /// a name it removed first is skipped.
    fn recycle(&self, n: u64, recycle_below: u64) -> std::io::Result<Option<Arc<IoFile>>> {
        let target = segment_path(&self.redo_dir, n);
        for old in list_segments(&self.redo_dir)?.into_iter().take_while(|&m| m < recycle_below && m < n) {
            match self.io.rename(&segment_path(&self.redo_dir, old), &target) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            }
            // The new name must be durable before anything written under it is relied on.
            self.io.sync_dir(&self.redo_dir)?;
            return open_existing(&self.io, &self.redo_dir, n, self.segment_bytes);
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_names_roundtrip() {
        let dir = Path::new("/x");
        let p = segment_path(dir, 0x1234);
        assert_eq!(p, Path::new("/x/0000000000001234.log"));
        assert_eq!(parse_segment_name("0000000000001234.log"), Some(0x1234));
        assert_eq!(parse_segment_name("ffffffffffffffff.log"), Some(u64::MAX));
        assert_eq!(parse_segment_name("1234.log"), None);
        assert_eq!(parse_segment_name("000000000000123g.log"), None);
        assert_eq!(parse_segment_name("0000000000001234.tmp"), None);
        assert_eq!(parse_segment_name("+000000000001234.log"), None);
    }
}
