//! The recovery reader behind `LogScan`: reads the segments sequentially through a read-ahead
//! buffer and returns entries while they verify.
//!
//! An entry verifies if its `len` is sane (at least a header, at most `MAX_ENTRY` framed), its
//! stored start LSN equals its position, and its CRC matches. The first entry that fails ends the
//! log for good (the torn tail). A missing segment file also ends the log, and a segment shorter
//! than its nominal size reads as zeros past its end (`len` 0: end). Nothing here trusts a byte
//! of the file: lengths are checked before anything is allocated and LSN arithmetic is checked,
//! so garbage ends the scan instead of panicking.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::Result;
use crate::io::{Io, IoFile};

use super::config::{invalid_input, Lsn, MAX_ENTRY};
use super::entry::ENTRY_HEADER;
use super::entry::{entry_crc, framed_len, payload_crc, Header};
use super::segment;

/// Bytes read from a segment at a time.
/// One verified log entry found by the recovery scan.
pub struct LogEntry {
    pub start: Lsn,
    /// `start` + framed length: the LSN a page modified by this entry carries.
    pub end: Lsn,
    pub payload: Vec<u8>,
}

/// Iterates verified entries from a start LSN to the end of the valid log.
pub struct LogScan {
    io: Io,
    redo_dir: PathBuf,
    segment_bytes: u64,
    /// Start of the next entry to read (= end of the last verified one).
    pos: Lsn,
    /// Set once an entry failed to verify or the log ran out; the scan stays at `pos`.
    at_end: bool,
    /// Read-ahead buffer holding log bytes `[chunk_start, chunk_start + chunk.len())`.
    chunk: Vec<u8>,
    chunk_start: Lsn,
    /// The segment the chunk was read from, kept open for the next chunk.
    segment: Option<(u64, Arc<IoFile>)>,
}

impl LogScan {
    /// Opens the segments in `dir/redo` and positions at `from` (which must be an entry start or
    /// the end of the log).
    pub fn open(io: &Io, dir: &Path, from: Lsn, segment_bytes: u64) -> Result<LogScan> {
        if segment_bytes == 0 {
            return Err(invalid_input("segment size must be positive"));
        }
        Ok(LogScan {
            io: io.clone(),
            redo_dir: segment::redo_dir(dir),
            segment_bytes,
            pos: from,
            at_end: false,
            chunk: Vec::new(),
            chunk_start: 0,
            segment: None,
        })
    }
    /// Next verified entry, or `None` at the end of the valid log.
    pub fn next_entry(&mut self) -> Result<Option<LogEntry>> {
        self.read_entry()
    }
    /// LSN just past the last verified entry returned (where appending continues).
    pub fn end_lsn(&self) -> Lsn {
        self.pos
    }
}

const READ_AHEAD: u64 = 1 << 20;

impl LogScan {
    pub(super) fn read_entry(&mut self) -> Result<Option<LogEntry>> {
        if self.at_end {
            return Ok(None);
        }
        match self.read_verified()? {
            Some(entry) => {
                self.pos = entry.end;
                Ok(Some(entry))
            }
            None => {
                self.at_end = true;
                Ok(None)
            }
        }
    }

    /// The entry at `pos` if it verifies.
    fn read_verified(&mut self) -> Result<Option<LogEntry>> {
        let start = self.pos;
        let mut raw = [0u8; ENTRY_HEADER];
        if !self.read_log(start, &mut raw)? {
            return Ok(None);
        }
        let header = Header::decode(&raw);
        let len = header.len as usize;
        if len < ENTRY_HEADER || framed_len(len - ENTRY_HEADER) > MAX_ENTRY || header.start != start {
            return Ok(None);
        }
        let Some(end) = start.checked_add(framed_len(len - ENTRY_HEADER) as u64) else {
            return Ok(None);
        };
        let mut payload = vec![0u8; len - ENTRY_HEADER];
        if !self.read_log(start + ENTRY_HEADER as u64, &mut payload)? {
            return Ok(None);
        }
        if entry_crc(payload_crc(&payload), header.len, start) != header.crc {
            return Ok(None);
        }
        Ok(Some(LogEntry { start, end, payload }))
    }

    /// Fills `out` with the log bytes at `lsn`; false if the log ends (missing segment) first.
    fn read_log(&mut self, lsn: Lsn, out: &mut [u8]) -> Result<bool> {
        let mut done = 0;
        while done < out.len() {
            let Some(at) = lsn.checked_add(done as u64) else {
                return Ok(false);
            };
            let chunk_end = self.chunk_start.saturating_add(self.chunk.len() as u64);
            if at < self.chunk_start || at >= chunk_end {
                if !self.fill(at)? {
                    return Ok(false);
                }
                continue;
            }
            let offset = (at - self.chunk_start) as usize;
            let n = (out.len() - done).min(self.chunk.len() - offset);
            out[done..done + n].copy_from_slice(&self.chunk[offset..offset + n]);
            done += n;
        }
        Ok(true)
    }

    /// Loads the read-ahead buffer from `at` (to at most the end of its segment).
    fn fill(&mut self, at: Lsn) -> Result<bool> {
        let n = at / self.segment_bytes;
        let offset = at % self.segment_bytes;
        let file = match &self.segment {
            Some((open, file)) if *open == n => Arc::clone(file),
            _ => match segment::open_existing(&self.io, &self.redo_dir, n, self.segment_bytes)? {
                Some(file) => {
                    self.segment = Some((n, Arc::clone(&file)));
                    file
                }
                None => return Ok(false),
            },
        };
        let len = (self.segment_bytes - offset).min(READ_AHEAD) as usize;
        self.chunk.resize(len, 0);
        file.read_at(&mut self.chunk, offset)?;
        self.chunk_start = at;
        Ok(true)
    }
}
