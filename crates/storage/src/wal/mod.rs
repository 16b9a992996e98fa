//! Write-ahead log: LSN reservation, lock-free copy into a ring buffer, group commit, segment
//! files, the control file and the recovery scan.
//!
//! Sits on `io` and below the page store: the buffer pool, mtrs and recovery append to it and read
//! it, and it knows nothing of pages, so that the log's format and its durability rules stay in
//! one place (docs/architecture.md §4.5). Recovery depends on the entry format below staying
//! readable across versions.
//!
//! An *entry* is what one mini-transaction logs: `len u32 | crc32c u32 | start_lsn u64 | payload`,
//! padded to 8 bytes. `append` frames the payload; the reader checks CRC and LSN and stops at the
//! first entry that does not verify (the torn tail). LSN = byte offset in the log stream.
//!
//! How the pieces fit (module per job, bottom to top; each names only modules above it in this
//! list, and this file only re-exports):
//! - `config`: `Lsn`, the size limits and `WalConfig`.
//! - `entry`: the byte format of one entry.
//! - `halt`: the fail-stop causes.
//! - `waiters`: the list of committers waiting for a position.
//! - `ring`: the ring buffer and the link buffer (`append` copies in without a lock).
//! - `segment`: segment files: preallocation, recycling, the writer's open segments.
//! - `control`: the control file.
//! - `scan`: `LogScan`, the recovery reader.
//! - `shared`: the state shared by appenders, waiters and the writer.
//! - `wait`: committers waiting for the writer (async wakers, blocking `flush_to`).
//! - `writer`: the log writer thread (write, fdatasync, group commit, periodic sync).
//! - `log`: `Wal` itself: open, append, flush, truncate, shutdown.
//! - `admit`: admission of row writes (checkpoint-age throttle, fail-stop), more `Wal` methods.
//!
//! Positions, all monotonic: `flushed_lsn <= written_lsn <= ready_lsn <= reserve_lsn`.
//! `reserve_lsn` is advanced by appenders (one `fetch_add` each); the other three only by the
//! writer thread. The appender's fast path is: `fetch_add`, one load of `written_lsn` (is there
//! ring space?), the copy, `stamp`, one SeqCst store into the link buffer and one load of the
//! writer's sleep state: no mutex, no syscall. The writer is woken through its mutex/condvar only
//! if it is asleep, so a busy log costs no wake-ups.

mod admit;
mod config;
pub mod control;
mod entry;
mod halt;
mod log;
mod ring;
mod scan;
mod segment;
mod shared;
#[cfg(test)]
mod tests;
mod wait;
mod waiters;
mod writer;

pub use admit::AdmitWrite;
pub use config::{
    Lsn, WalConfig, BACKGROUND_SYNC_INTERVAL, DEFAULT_LOG_CAPACITY, DEFAULT_RING_BYTES, DEFAULT_SEGMENT_BYTES,
    FIRST_LSN, MAX_ENTRY, MAX_RING_BYTES, MIN_LOG_CAPACITY, MIN_RING_BYTES, MIN_SEGMENT_BYTES,
};
pub use entry::ENTRY_HEADER;
pub use halt::Halt;
pub use log::{Wal, WalStats};
pub use scan::{LogEntry, LogScan};
pub use segment::existing_segment_bytes;
