//! The log's positions and sizes: `Lsn`, the limits on entries, ring and segments, and
//! `WalConfig`. A leaf below every other part of the log, so that the format, the ring, the
//! segments and the writer agree on these numbers without reaching up into the log itself.

use crate::error::StorageError;
use crate::types::FlushMode;

pub type Lsn = u64;

/// Largest framed entry (header + payload + padding) any log may hold: half of the default ring.
/// A `Wal` with a smaller ring accepts at most half its ring (`Wal::max_payload`); the recovery
/// scan treats a longer `len` field as garbage. Callers never exceed it: `append` asserts.
pub const MAX_ENTRY: usize = DEFAULT_RING_BYTES / 2;
/// Default size of the in-memory ring buffer.
pub const DEFAULT_RING_BYTES: usize = 32 << 20;
/// Default redo segment size.
pub const DEFAULT_SEGMENT_BYTES: u64 = 64 << 20;
/// Smallest ring accepted (tests use tiny rings to exercise wrap-around).
pub const MIN_RING_BYTES: usize = 4096;
/// Largest ring accepted (framed lengths in the link buffer are u32).
pub const MAX_RING_BYTES: usize = 1 << 30;
/// Smallest segment accepted (tests use tiny segments to exercise rollover).
pub const MIN_SEGMENT_BYTES: u64 = 4096;
/// How often modes 0 and 2 sync (and mode 0 writes) in the background.
pub const BACKGROUND_SYNC_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);
/// Default log capacity (`--log-file-size`, like innodb_log_file_size): the checkpoint age the
/// log is sized for. Its async point (half) is the 512 MiB at which the page cleaner flushed
/// oldest-first before the log was bounded, so the cleaner behaves as before. Measured (sysbench
/// oltp_write_only and oltp_insert, 16 threads, 512 MiB pool): the age peaks at 150-190 MiB,
/// so the throttle never engages; with 128 MiB the async flush held it at 64 MiB, and with 16 MiB
/// writers waited 26 times in 30 s, neither at a cost in throughput (docs/architecture.md §4.5).
pub const DEFAULT_LOG_CAPACITY: u64 = 1 << 30;
/// Smallest log capacity accepted: a few segments of `MIN_AUTO_SEGMENT_BYTES`.
pub const MIN_LOG_CAPACITY: u64 = 8 << 20;
/// Segments of a new log are capacity / 8 (so recycling has old segments to reuse), between
/// these bounds.
const MIN_AUTO_SEGMENT_BYTES: u64 = 1 << 20;
/// A segment switch costs a file open and a directory sync; the log had 64 MiB segments before
/// its capacity was configurable.
const MAX_AUTO_SEGMENT_BYTES: u64 = DEFAULT_SEGMENT_BYTES;
/// The writer keeps at most capacity / segment + this many segment files (the current one, the
/// one prepared ahead, and the one a checkpoint is still moving past).
pub(super) const EXTRA_SEGMENT_FILES: u64 = 2;

/// LSN of the first entry of a new database (LSN 0 is reserved as "none").
pub const FIRST_LSN: Lsn = 8192;

#[derive(Clone, Debug)]
pub struct WalConfig {
    pub flush_mode: FlushMode,
    /// Redo segment size (default 64 MiB). A log that exists keeps its own
    /// (`existing_segment_bytes`).
    pub segment_bytes: u64,
    /// In-memory ring buffer (default 32 MiB). An entry must fit in half of it.
    pub ring_bytes: usize,
    /// Checkpoint age the log is sized for (default 1 GiB); see `async_age` and `sync_age`.
    pub capacity: u64,
}

impl Default for WalConfig {
    fn default() -> Self {
        WalConfig {
            flush_mode: FlushMode::Durable,
            segment_bytes: DEFAULT_SEGMENT_BYTES,
            ring_bytes: DEFAULT_RING_BYTES,
            capacity: DEFAULT_LOG_CAPACITY,
        }
    }
}

impl WalConfig {
    /// Checkpoint age at which the page cleaner writes back oldest-first hard (InnoDB's async
    /// flush point): half the capacity.
    pub fn async_age(&self) -> u64 {
        self.capacity / 2
    }

    /// Checkpoint age at which row writes wait for the checkpoint (InnoDB's sync flush point):
    /// 7/8 of the capacity, so the last eighth absorbs what is not throttled (commits,
    /// rollbacks, statements already past their admission).
    pub fn sync_age(&self) -> u64 {
        self.capacity / 8 * 7
    }

    /// The segment size for a new log of `capacity` bytes: capacity / 8 in whole MiB, between
    /// 1 MiB and 64 MiB.
    pub fn segment_bytes_for(capacity: u64) -> u64 {
        let whole_mib = capacity / 8 / MIN_AUTO_SEGMENT_BYTES * MIN_AUTO_SEGMENT_BYTES;
        whole_mib.clamp(MIN_AUTO_SEGMENT_BYTES, MAX_AUTO_SEGMENT_BYTES)
    }
}

pub(super) fn invalid_input(msg: &str) -> StorageError {
    StorageError::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, msg.to_string()))
}
