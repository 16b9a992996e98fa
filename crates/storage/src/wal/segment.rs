//! Redo segment files: `dir/redo/{segment number:016x}.log`, segment number = lsn / segment size.
//! A segment holds the log bytes `[n * size, (n + 1) * size)` at offset `lsn - n * size`; entries
//! may span two segments.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::io::{Io, IoFile};

use super::Lsn;

/// Name of the segment directory inside the data directory.
pub(super) const REDO_DIR: &str = "redo";
const SEGMENT_SUFFIX: &str = ".log";
const SEGMENT_NAME_DIGITS: usize = 16;

pub(super) fn redo_dir(datadir: &Path) -> PathBuf {
    datadir.join(REDO_DIR)
}

pub(super) fn segment_path(redo_dir: &Path, segment: u64) -> PathBuf {
    redo_dir.join(format!("{segment:016x}{SEGMENT_SUFFIX}"))
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

/// Opens segment `n` if it exists (`None` if not).
pub(super) fn open_existing(io: &Io, redo_dir: &Path, n: u64) -> std::io::Result<Option<Arc<IoFile>>> {
    match io.open(&segment_path(redo_dir, n), false) {
        Ok(file) => Ok(Some(file)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Creates segment `n`, sized to `segment_bytes` (reads as zeros), durably: the size is synced
/// and so is the directory entry.
pub(super) fn create(io: &Io, redo_dir: &Path, n: u64, segment_bytes: u64) -> std::io::Result<Arc<IoFile>> {
    let file = io.open(&segment_path(redo_dir, n), true)?;
    file.set_len(segment_bytes)?;
    file.sync_all()?;
    io.sync_dir(redo_dir)?;
    Ok(file)
}

/// The log writer's open segments: the one being written, possibly the previous one (until the
/// next sync) and the next one, created ahead so that crossing a boundary costs no file creation.
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

    /// Writes `data` at log position `lsn`, which must not cross a segment boundary.
    pub fn write(&mut self, lsn: Lsn, data: &[u8]) -> std::io::Result<()> {
        let n = lsn / self.segment_bytes;
        let offset = lsn % self.segment_bytes;
        debug_assert!(offset + data.len() as u64 <= self.segment_bytes, "write crosses a segment");
        let file = self.file(n)?;
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

    /// Segment `n`, opened or created; makes sure `n + 1` exists too (created ahead of need).
    pub fn file(&mut self, n: u64) -> std::io::Result<Arc<IoFile>> {
        for m in [Some(n), n.checked_add(1)].into_iter().flatten() {
            if !self.open.contains_key(&m) {
                let file = self.open_or_create(m)?;
                self.open.insert(m, file);
            }
        }
        Ok(Arc::clone(&self.open[&n]))
    }

    fn open_or_create(&self, n: u64) -> std::io::Result<Arc<IoFile>> {
        match open_existing(&self.io, &self.redo_dir, n)? {
            Some(file) => Ok(file),
            None => create(&self.io, &self.redo_dir, n, self.segment_bytes),
        }
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
