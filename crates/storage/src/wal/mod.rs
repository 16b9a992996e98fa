//! Write-ahead log: LSN reservation, lock-free copy into a ring buffer, group commit, segment
//! files, the control file and the recovery scan.
//!
//! INTERFACE CONTRACT (frozen; owner: WAL/IO helper). See docs/architecture.md §4.5.
//!
//! An *entry* is what one mini-transaction logs: `len u32 | crc32c u32 | start_lsn u64 | payload`,
//! padded to 8 bytes. `append` frames the payload; the reader checks CRC and LSN and stops at the
//! first entry that does not verify (the torn tail). LSN = byte offset in the log stream.

pub mod control;

use std::path::Path;
use std::sync::Arc;

use crate::engine::FlushMode;
use crate::error::Result;
use crate::io::Io;

pub type Lsn = u64;

/// Size of the entry header that `append` puts before each payload.
pub const ENTRY_HEADER: usize = 16;

#[derive(Clone, Debug)]
pub struct WalConfig {
    pub flush_mode: FlushMode,
    /// Redo segment size (default 64 MiB).
    pub segment_bytes: u64,
    /// In-memory ring buffer (default 32 MiB). An entry must fit in half of it.
    pub ring_bytes: usize,
}

impl Default for WalConfig {
    fn default() -> Self {
        WalConfig { flush_mode: FlushMode::Durable, segment_bytes: 64 << 20, ring_bytes: 32 << 20 }
    }
}

pub struct Wal {
    _private: (),
}

/// One verified log entry found by the recovery scan.
pub struct LogEntry {
    pub start: Lsn,
    /// `start` + framed length: the LSN a page modified by this entry carries.
    pub end: Lsn,
    pub payload: Vec<u8>,
}

/// Iterates verified entries from a start LSN to the end of the valid log.
pub struct LogScan {
    _private: (),
}

impl LogScan {
    /// Opens the segments in `dir/redo` and positions at `from` (which must be an entry start or
    /// the end of the log).
    pub fn open(io: &Io, dir: &Path, from: Lsn, segment_bytes: u64) -> Result<LogScan> {
        let _ = (io, dir, from, segment_bytes);
        todo!("wal")
    }
    /// Next verified entry, or `None` at the end of the valid log.
    pub fn next_entry(&mut self) -> Result<Option<LogEntry>> {
        todo!("wal")
    }
    /// LSN just past the last verified entry returned (where appending continues).
    pub fn end_lsn(&self) -> Lsn {
        todo!("wal")
    }
}

impl Wal {
    /// Starts the log at `start_lsn` (the end of the recovered log; 0... for a new database, see
    /// `FIRST_LSN`). Discards anything in the segment files at or past `start_lsn` and starts the
    /// log writer thread.
    pub fn open(io: &Io, dir: &Path, config: WalConfig, start_lsn: Lsn) -> Result<Arc<Wal>> {
        let _ = (io, dir, config, start_lsn);
        todo!("wal")
    }

    /// Appends one entry. Reserves space with a single atomic add, copies `payload` into the ring
    /// without a lock, then calls `stamp(start, end)` (the mtr stamps its pages' LSN there), and
    /// only then marks the range complete, so `ready_lsn() >= end` implies the stamp happened.
    /// Waits only if the ring is full.
    pub fn append(&self, payload: &[u8], stamp: impl FnOnce(Lsn, Lsn)) -> (Lsn, Lsn) {
        let _ = (payload, stamp);
        todo!("wal")
    }

    /// Every entry below this LSN is completely copied into the ring (or written).
    pub fn ready_lsn(&self) -> Lsn {
        todo!("wal")
    }

    /// Everything below this LSN is durable on disk.
    pub fn flushed_lsn(&self) -> Lsn {
        todo!("wal")
    }

    /// Blocks until the log is durable up to `lsn`, whatever the flush mode (the WAL rule before a
    /// page write; shutdown).
    pub fn flush_to(&self, lsn: Lsn) -> Result<()> {
        let _ = lsn;
        todo!("wal")
    }

    /// What a committer waits for, per flush mode: 1 → durable up to `lsn` (group commit);
    /// 2 → written to the OS up to `lsn`; 0 → returns at once.
    pub async fn wait_commit(&self, lsn: Lsn) -> Result<()> {
        let _ = lsn;
        todo!("wal")
    }

    pub fn set_flush_mode(&self, mode: FlushMode) {
        let _ = mode;
        todo!("wal")
    }

    /// Deletes segment files that lie wholly below `lsn` (after a checkpoint).
    pub fn truncate_before(&self, lsn: Lsn) -> Result<()> {
        let _ = lsn;
        todo!("wal")
    }

    /// Writes and syncs everything, then stops the writer thread.
    pub fn shutdown(&self) -> Result<()> {
        todo!("wal")
    }
}

/// LSN of the first entry of a new database (LSN 0 is reserved as "none").
pub const FIRST_LSN: Lsn = 8192;
