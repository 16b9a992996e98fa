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
//! How the pieces fit (module per job):
//! - `entry`: the byte format of one entry.
//! - `ring`: the ring buffer and the link buffer (`append` copies in without a lock).
//! - `writer`: the log writer thread (write, fdatasync, group commit, periodic sync).
//! - `wait`: committers waiting for the writer (async wakers, blocking `flush_to`).
//! - `segment`: segment files: preallocation, recycling, the writer's open segments.
//! - `admit`: admission of row writes (checkpoint-age throttle, fail-stop).
//! - `scan`: `LogScan`, the recovery reader.
//! - `control`: the control file.
//!
//! Positions, all monotonic: `flushed_lsn <= written_lsn <= ready_lsn <= reserve_lsn`.
//! `reserve_lsn` is advanced by appenders (one `fetch_add` each); the other three only by the
//! writer thread. The appender's fast path is: `fetch_add`, one load of `written_lsn` (is there
//! ring space?), the copy, `stamp`, one SeqCst store into the link buffer and one load of the
//! writer's sleep state: no mutex, no syscall. The writer is woken through its mutex/condvar only
//! if it is asleep, so a busy log costs no wake-ups.

mod admit;
pub mod control;
mod entry;
mod ring;
mod scan;
mod segment;
#[cfg(test)]
mod tests;
mod wait;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_utils::CachePadded;
use parking_lot::{Condvar, Mutex};

use crate::error::{Result, StorageError};
use crate::io::{Io, IoFile};
use crate::types::FlushMode;

use admit::{AdmitWaiters, HALT_NONE};
use entry::{framed_len, Header};
use ring::LogBuffer;
use wait::{CommitWait, Reached, WaitKind, WaiterList};

pub use admit::{AdmitWrite, Halt};
pub use segment::existing_segment_bytes;

pub type Lsn = u64;

/// Size of the entry header that `append` puts before each payload.
pub const ENTRY_HEADER: usize = 16;

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
const EXTRA_SEGMENT_FILES: u64 = 2;

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

pub struct Wal {
    shared: Arc<Shared>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

/// Log statistics. Everything but `ring_full_waits` is counted by the writer thread alone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WalStats {
    /// fdatasync calls on segment data (not counting the creation of new segments).
    pub fsyncs: u64,
    /// Bytes written to segment files.
    pub bytes_written: u64,
    /// Appends that found the ring full and waited for the writer.
    pub ring_full_waits: u64,
    /// Row writes that waited at the sync point or for log space (`Wal::admit_write`).
    pub admit_waits: u64,
    /// Times the log writer found no disk space for a segment and had to wait.
    pub space_waits: u64,
    /// Syncs that released at least one durability waiter (a commit group).
    pub commit_groups: u64,
    /// Durability waiters released by syncs, summed (average group = this / `commit_groups`).
    pub group_committed_waiters: u64,
    /// The largest commit group.
    pub max_commit_group: u64,
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

/// Writer sleep states, read by appenders to decide whether to wake it.
const WRITER_AWAKE: u8 = 0;
/// Asleep; any completed entry is work (modes 1 and 2, or someone is waiting).
const WRITER_SLEEPS_FOR_ANY: u8 = 1;
/// Asleep in mode 0; only an append that fills the ring past half is worth waking it for.
const WRITER_SLEEPS_FOR_PRESSURE: u8 = 2;

/// Writer life cycle.
const WRITER_RUNNING: u8 = 0;
const WRITER_STOPPED: u8 = 1;
const WRITER_FAILED: u8 = 2;

/// State shared by appenders, waiters and the writer thread. Fields written on hot paths sit on
/// their own cache lines.
struct Shared {
    io: Io,
    redo_dir: PathBuf,
    segment_bytes: u64,
    /// Largest framed entry this log accepts: min(MAX_ENTRY, ring / 2).
    max_entry: usize,
    buffer: LogBuffer,

    /// Next LSN to hand out; advanced by every append.
    reserve_lsn: CachePadded<AtomicU64>,
    /// Writer-published positions (read by appenders and committers).
    written_lsn: CachePadded<AtomicU64>,
    flushed_lsn: AtomicU64,
    ready_lsn: AtomicU64,
    /// WRITER_AWAKE / WRITER_SLEEPS_*; stored by the writer before it sleeps.
    writer_state: CachePadded<AtomicU8>,

    flush_mode: AtomicU8,
    /// Highest LSN a `flush_to` caller wants durable.
    flush_request: AtomicU64,
    stop_requested: AtomicBool,
    /// WRITER_RUNNING / WRITER_STOPPED / WRITER_FAILED.
    writer_status: AtomicU8,
    /// Bumped by every explicit wake request (flush_to, ring full, mode change, shutdown) before
    /// it notifies, so the writer can tell "something was asked since I last looked".
    wake_requests: AtomicU64,
    wake_lock: Mutex<()>,
    wake_cv: Condvar,

    /// Appenders waiting for ring space, and the count of such waits (under the mutex).
    space_waiters: AtomicUsize,
    space: Mutex<u64>,
    space_cv: Condvar,

    waiters: Mutex<WaiterList>,
    stats: WriterStats,

    /// Fail-stop state (`admit::Halt`) and the OS error behind it.
    halt: AtomicU8,
    halt_errno: std::sync::atomic::AtomicI32,
    /// Row writes start only while `ready_lsn <= admit_limit` (see `admit`). Read on every row
    /// write, written at each checkpoint: on its own line, away from `reserve_lsn`.
    admit_limit: CachePadded<AtomicU64>,
    /// The last checkpoint the page cleaner reported.
    checkpoint_lsn: AtomicU64,
    /// `WalConfig::sync_age`.
    sync_age: u64,
    admit_waiters: Mutex<AdmitWaiters>,
    /// The writer could not prepare a segment it wanted ahead, for lack of space.
    space_short: AtomicBool,
    /// End of the segments prepared (opened with their blocks allocated) from the one being
    /// written on: the log can be written up to here without new disk space.
    prepared_end: AtomicU64,
    /// The writer has log to write and no space to write it into: durability waiters that must
    /// not wait for disk space (`flush_to_unless_stalled`) give up.
    stalled: AtomicBool,
    /// Segments below this number only hold log the checkpoint no longer needs: the writer may
    /// rename them to a number it needs (`Wal::truncate_before` raises it).
    recycle_below: AtomicU64,
    /// Segment files kept at most: capacity / segment + EXTRA_SEGMENT_FILES.
    max_segment_files: u64,
}

/// Counters written only by the writer thread (Relaxed stores of its own running totals).
#[derive(Default)]
struct WriterStats {
    fsyncs: AtomicU64,
    space_waits: AtomicU64,
    bytes_written: AtomicU64,
    commit_groups: AtomicU64,
    group_committed_waiters: AtomicU64,
    max_commit_group: AtomicU64,
}

fn invalid_input(msg: &str) -> StorageError {
    StorageError::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, msg.to_string()))
}

fn mode_from_u8(v: u8) -> FlushMode {
    match v {
        0 => FlushMode::Lazy,
        2 => FlushMode::WriteOnly,
        _ => FlushMode::Durable,
    }
}

impl Shared {
    fn flush_mode(&self) -> FlushMode {
        mode_from_u8(self.flush_mode.load(Ordering::Relaxed))
    }

    fn status(&self) -> u8 {
        self.writer_status.load(Ordering::SeqCst)
    }

    /// The error a waiter gets once the writer is gone and its LSN is not covered: a commit
    /// whose durability failed (1180), or shutdown.
    fn terminal_error(&self) -> StorageError {
        match self.status() {
            WRITER_FAILED => StorageError::CommitFailed { errno: self.halt_errno.load(Ordering::SeqCst) },
            _ => StorageError::ShuttingDown,
        }
    }

    /// Wakes the writer whatever its state (slow paths only: takes the mutex).
    fn wake_writer(&self) {
        self.wake_requests.fetch_add(1, Ordering::SeqCst);
        let _guard = self.wake_lock.lock();
        self.wake_cv.notify_one();
    }

    /// Fast-path wake after an append completed `[.., end)`: only if the writer sleeps waiting
    /// for entries (or for ring pressure and this append created it). The SeqCst load pairs with
    /// the writer's SeqCst store of its state followed by its SeqCst look at the link buffer:
    /// either it sees our link or we see it asleep.
    /// After an unhurried append: wakes a sleeping writer only if the ring is filling up.
    fn wake_writer_for_pressure(&self, end: Lsn) {
        if end.saturating_sub(self.written_lsn.load(Ordering::Relaxed)) <= self.buffer.size() / 2 {
            return;
        }
        if self.writer_state.swap(WRITER_AWAKE, Ordering::SeqCst) != WRITER_AWAKE {
            let _guard = self.wake_lock.lock();
            self.wake_cv.notify_one();
        }
    }

    fn wake_writer_for_append(&self, end: Lsn) {
        let state = self.writer_state.load(Ordering::SeqCst);
        if state == WRITER_AWAKE {
            return;
        }
        if state == WRITER_SLEEPS_FOR_PRESSURE
            && end.saturating_sub(self.written_lsn.load(Ordering::Relaxed)) <= self.buffer.size() / 2
        {
            return;
        }
        if self.writer_state.swap(WRITER_AWAKE, Ordering::SeqCst) != WRITER_AWAKE {
            let _guard = self.wake_lock.lock();
            self.wake_cv.notify_one();
        }
    }

    /// Slow path of `append`: waits until `[.., end)` fits in the ring. Returns false if the writer
    /// is gone and never will make room (the entry is then not copied; nothing would write it).
    fn wait_for_space(&self, end: Lsn) -> bool {
        let ring = self.buffer.size();
        // Lock order: space, then wake_lock (the writer never holds wake_lock while taking space).
        let mut guard = self.space.lock();
        *guard += 1;
        self.space_waiters.fetch_add(1, Ordering::SeqCst);
        self.wake_writer();
        let fits = loop {
            // SeqCst: pairs with the writer's store of written_lsn followed by its load of
            // space_waiters (either it sees us waiting or we see the new position).
            if end - self.written_lsn.load(Ordering::SeqCst) <= ring {
                break true;
            }
            if self.status() != WRITER_RUNNING {
                break false;
            }
            self.space_cv.wait(&mut guard);
        };
        drop(guard);
        self.space_waiters.fetch_sub(1, Ordering::SeqCst);
        fits
    }

    /// Releases every appender waiting for ring space (after `written_lsn` moved or the writer
    /// stopped).
    fn notify_space_waiters(&self) {
        if self.space_waiters.load(Ordering::SeqCst) > 0 {
            let _guard = self.space.lock();
            self.space_cv.notify_all();
        }
    }

    fn reached(&self, kind: WaitKind, lsn: Lsn) -> bool {
        match kind {
            WaitKind::Durable => self.flushed_lsn.load(Ordering::Acquire) >= lsn,
            WaitKind::Written => self.written_lsn.load(Ordering::Acquire) >= lsn,
        }
    }
}

/// Completes an entry's link when dropped, so that a panicking `stamp` cannot stall the log for
/// everyone (the bytes are already in the ring).
struct CompleteOnDrop<'a> {
    buffer: &'a LogBuffer,
    start: Lsn,
    framed: u32,
}

impl Drop for CompleteOnDrop<'_> {
    fn drop(&mut self) {
        self.buffer.complete(self.start, self.framed);
    }
}

const ZERO_PAD: [u8; entry::ENTRY_ALIGN] = [0; entry::ENTRY_ALIGN];

/// The state shared by a log's users and its writer, at `start_lsn`.
fn new_shared(io: &Io, redo_dir: PathBuf, config: &WalConfig, start_lsn: Lsn, prepared_end: Lsn) -> Arc<Shared> {
    Arc::new(Shared {
        io: io.clone(),
        redo_dir,
        segment_bytes: config.segment_bytes,
        max_entry: MAX_ENTRY.min(config.ring_bytes / 2),
        buffer: LogBuffer::new(config.ring_bytes),
        reserve_lsn: CachePadded::new(AtomicU64::new(start_lsn)),
        written_lsn: CachePadded::new(AtomicU64::new(start_lsn)),
        flushed_lsn: AtomicU64::new(start_lsn),
        ready_lsn: AtomicU64::new(start_lsn),
        writer_state: CachePadded::new(AtomicU8::new(WRITER_AWAKE)),
        flush_mode: AtomicU8::new(config.flush_mode as u8),
        flush_request: AtomicU64::new(0),
        stop_requested: AtomicBool::new(false),
        writer_status: AtomicU8::new(WRITER_RUNNING),
        wake_requests: AtomicU64::new(0),
        wake_lock: Mutex::new(()),
        wake_cv: Condvar::new(),
        space_waiters: AtomicUsize::new(0),
        space: Mutex::new(0),
        space_cv: Condvar::new(),
        waiters: Mutex::new(WaiterList::default()),
        stats: WriterStats::default(),
        halt: AtomicU8::new(HALT_NONE),
        halt_errno: std::sync::atomic::AtomicI32::new(0),
        // Set by `update_admission` below.
        admit_limit: CachePadded::new(AtomicU64::new(0)),
        checkpoint_lsn: AtomicU64::new(start_lsn),
        sync_age: config.sync_age(),
        admit_waiters: Mutex::new(AdmitWaiters::default()),
        space_short: AtomicBool::new(false),
        prepared_end: AtomicU64::new(prepared_end),
        stalled: AtomicBool::new(false),
        recycle_below: AtomicU64::new(0),
        max_segment_files: (config.capacity / config.segment_bytes).saturating_add(EXTRA_SEGMENT_FILES),
    })
}

impl Wal {
    /// Starts the log at `start_lsn` (the end of the recovered log; 0... for a new database, see
    /// `FIRST_LSN`). Discards anything in the segment files at or past `start_lsn` and starts the
    /// log writer thread.
    pub fn open(io: &Io, dir: &Path, config: WalConfig, start_lsn: Lsn) -> Result<Arc<Wal>> {
        if !config.ring_bytes.is_power_of_two() || !(MIN_RING_BYTES..=MAX_RING_BYTES).contains(&config.ring_bytes) {
            return Err(invalid_input("ring_bytes must be a power of two between MIN_RING_BYTES and MAX_RING_BYTES"));
        }
        if config.segment_bytes < MIN_SEGMENT_BYTES {
            return Err(invalid_input("segment_bytes is below MIN_SEGMENT_BYTES"));
        }
        if config.capacity < MIN_LOG_CAPACITY {
            return Err(invalid_input("log capacity is below MIN_LOG_CAPACITY"));
        }
        if start_lsn == 0 || !start_lsn.is_multiple_of(entry::ENTRY_ALIGN as u64) {
            return Err(StorageError::Corruption(format!("log start LSN {start_lsn} is not a valid entry position")));
        }
        let redo_dir = segment::redo_dir(dir);
        if !redo_dir.is_dir() {
            io.create_dir_all(&redo_dir)?;
            io.sync_dir(dir)?;
        }
        let mut segments = segment::SegmentFiles::new(io.clone(), redo_dir.clone(), config.segment_bytes);
        discard_from(io, &redo_dir, config.segment_bytes, start_lsn, &mut segments)?;

        let shared = new_shared(io, redo_dir, &config, start_lsn, segments.prepared_end(start_lsn));
        shared.update_admission();
        let thread_shared = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name("selkie-log-writer".into())
            .spawn(move || writer::run(thread_shared, segments, start_lsn))?;
        Ok(Arc::new(Wal { shared, writer: Mutex::new(Some(handle)) }))
    }

    /// A log that is never written: salvage mode (`Engine::open` with `force_recovery` and a log
    /// that cannot be trusted). No file is opened or changed and no writer runs; every position
    /// is `end_lsn`, and every write is refused (`Halt::Salvage`). Nothing may append to it.
    pub fn open_read_only(dir: &Path, config: WalConfig, end_lsn: Lsn) -> Arc<Wal> {
        let shared = new_shared(&Io::new(Default::default()), segment::redo_dir(dir), &config, end_lsn, end_lsn);
        shared.halt.store(admit::HALT_SALVAGE, Ordering::SeqCst);
        shared.writer_status.store(WRITER_STOPPED, Ordering::SeqCst);
        shared.update_admission();
        Arc::new(Wal { shared, writer: Mutex::new(None) })
    }

    /// Appends one entry. Reserves space with a single atomic add, copies `payload` into the ring
    /// without a lock, then calls `stamp(start, end)` (the mtr stamps its pages' LSN there), and
    /// only then marks the range complete, so `ready_lsn() >= end` implies the stamp happened.
    /// Waits only if the ring is full.
    pub fn append(&self, payload: &[u8], stamp: impl FnOnce(Lsn, Lsn)) -> (Lsn, Lsn) {
        self.append_entry(payload, true, stamp)
    }

    /// `append` for an entry nobody waits for now (an undo log's setup, a row change before its
    /// commit, purge): it does not wake a sleeping writer unless the ring fills past half. The
    /// next entry that does wake it (a commit), or a wait for this one's LSN, gets it written;
    /// a change costs no futex wake and no separate write of the log.
    pub fn append_unhurried(&self, payload: &[u8], stamp: impl FnOnce(Lsn, Lsn)) -> (Lsn, Lsn) {
        self.append_entry(payload, false, stamp)
    }

    fn append_entry(&self, payload: &[u8], wake: bool, stamp: impl FnOnce(Lsn, Lsn)) -> (Lsn, Lsn) {
        let shared = &*self.shared;
        let framed = framed_len(payload.len());
        assert!(
            framed <= shared.max_entry,
            "log entry of {} payload bytes exceeds this log's limit of {} (Wal::max_payload)",
            payload.len(),
            shared.max_entry - ENTRY_HEADER
        );
        assert!(shared.halt.load(Ordering::Relaxed) != admit::HALT_SALVAGE, "an append to a read-only (salvage) log");
        let payload_crc = entry::payload_crc(payload);
        let start = shared.reserve_lsn.fetch_add(framed as u64, Ordering::Relaxed);
        let end = start + framed as u64;
        // Acquire: the writer has finished reading the ring bytes it released.
        let fits =
            end - shared.written_lsn.load(Ordering::Acquire) <= shared.buffer.size() || shared.wait_for_space(end);
        let completion = CompleteOnDrop { buffer: &shared.buffer, start, framed: framed as u32 };
        if fits {
            let len = (ENTRY_HEADER + payload.len()) as u32;
            let header = Header { len, crc: entry::entry_crc(payload_crc, len, start), start };
            // SAFETY: [start, end) is ours: reserved by the fetch_add above and inside the ring
            // window (end <= written_lsn + ring), and not yet published through the link buffer.
            unsafe {
                shared.buffer.copy_in(start, &header.encode());
                shared.buffer.copy_in(start + ENTRY_HEADER as u64, payload);
                let pad = framed - ENTRY_HEADER - payload.len();
                shared.buffer.copy_in(end - pad as u64, &ZERO_PAD[..pad]);
            }
        }
        stamp(start, end);
        drop(completion);
        if wake {
            shared.wake_writer_for_append(end);
        } else {
            shared.wake_writer_for_pressure(end);
        }
        (start, end)
    }

    /// Largest payload one `append` accepts on this log.
    pub fn max_payload(&self) -> usize {
        self.shared.max_entry - ENTRY_HEADER
    }

    /// Every entry below this LSN is completely copied into the ring (or written).
    ///
    /// Published by the writer thread each time it wakes, so it may trail the completed entries:
    /// by microseconds in modes 1 and 2, by up to the one-second tick in mode 0 (any `flush_to`
    /// brings it up to date). It is always a valid lower bound.
    pub fn ready_lsn(&self) -> Lsn {
        self.shared.ready_lsn.load(Ordering::Acquire)
    }

    /// Everything below this LSN is durable on disk.
    pub fn flushed_lsn(&self) -> Lsn {
        self.shared.flushed_lsn.load(Ordering::Acquire)
    }

    /// Everything below this LSN has been handed to the OS (survives a process crash, not a power
    /// failure unless also flushed).
    pub fn written_lsn(&self) -> Lsn {
        self.shared.written_lsn.load(Ordering::Acquire)
    }

    /// The next LSN `append` will hand out (end of the last reserved entry).
    pub fn reserved_lsn(&self) -> Lsn {
        self.shared.reserve_lsn.load(Ordering::Acquire)
    }

    /// Blocks until the log is durable up to `lsn`, whatever the flush mode (the WAL rule before a
    /// page write; shutdown).
    pub fn flush_to(&self, lsn: Lsn) -> Result<()> {
        let shared = &*self.shared;
        // Nothing past the reserved LSN exists; waiting for it could wait forever.
        let lsn = lsn.min(shared.reserve_lsn.load(Ordering::Acquire));
        if shared.reached(WaitKind::Durable, lsn) {
            return Ok(());
        }
        shared.flush_request.fetch_max(lsn, Ordering::SeqCst);
        shared.wake_writer();
        wait::block_on(CommitWait::new(shared, lsn, WaitKind::Durable)).map(|_| ())
    }

    /// Blocks until the log is durable up to `lsn`, unless the writer is waiting for disk space:
    /// then returns at once with the durable end of the log (below `lsn`). For the page cleaner,
    /// whose checkpoint is what lets the writer recycle a segment: it must not wait for it.
    pub fn flush_to_unless_stalled(&self, lsn: Lsn) -> Result<Lsn> {
        let shared = &*self.shared;
        let lsn = lsn.min(shared.reserve_lsn.load(Ordering::Acquire));
        if shared.reached(WaitKind::Durable, lsn) {
            return Ok(lsn);
        }
        shared.flush_request.fetch_max(lsn, Ordering::SeqCst);
        shared.wake_writer();
        match wait::block_on(CommitWait::new(shared, lsn, WaitKind::Durable).unless_stalled())? {
            Reached::Yes => Ok(lsn),
            Reached::Stalled => Ok(shared.flushed_lsn.load(Ordering::Acquire).min(lsn)),
        }
    }

    /// What a committer waits for, per flush mode: 1 → durable up to `lsn` (group commit);
    /// 2 → written to the OS up to `lsn`; 0 → returns at once. After a log failure no commit is
    /// acknowledged in any mode: the error is `CommitFailed`.
    pub async fn wait_commit(&self, lsn: Lsn) -> Result<()> {
        let kind = match self.shared.flush_mode() {
            FlushMode::Lazy => {
                return match self.shared.halted() {
                    Some(Halt::Log) => Err(self.shared.terminal_error()),
                    _ => Ok(()),
                };
            }
            FlushMode::Durable => WaitKind::Durable,
            FlushMode::WriteOnly => WaitKind::Written,
        };
        let lsn = lsn.min(self.shared.reserve_lsn.load(Ordering::Acquire));
        if self.shared.reached(kind, lsn) {
            return Ok(());
        }
        CommitWait::new(&self.shared, lsn, kind).await.map(|_| ())
    }

    pub fn set_flush_mode(&self, mode: FlushMode) {
        self.shared.flush_mode.store(mode as u8, Ordering::Relaxed);
        self.shared.wake_writer();
    }

    pub fn flush_mode(&self) -> FlushMode {
        self.shared.flush_mode()
    }

    /// After a checkpoint: segments wholly below `lsn` are no longer needed. They become
    /// recyclable (the writer renames them to the numbers it needs next), and those beyond the
    /// log's file budget (capacity / segment + 2) are deleted, oldest first.
    pub fn truncate_before(&self, lsn: Lsn) -> Result<()> {
        let shared = &*self.shared;
        // Never touch what is not yet durable elsewhere in the log's own terms: a segment the
        // writer may still write or sync stays.
        let limit = lsn.min(shared.flushed_lsn.load(Ordering::Acquire));
        let first_kept = limit / shared.segment_bytes;
        let segments = segment::list_segments(&shared.redo_dir)?;
        let old: Vec<u64> = segments.iter().copied().filter(|&n| n < first_kept).collect();
        let live = (segments.len() - old.len()) as u64;
        let spares = shared.max_segment_files.saturating_sub(live) as usize;
        let surplus = old.len().saturating_sub(spares);
        let mut removed = false;
        // The oldest go; the writer recycles the lowest numbers first, so the two rarely meet
        // (a name one of them removed first is skipped by the other).
        for &n in &old[..surplus] {
            match shared.io.remove_file(&segment::segment_path(&shared.redo_dir, n)) {
                Ok(()) => removed = true,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e.into()),
            }
        }
        if removed {
            shared.io.sync_dir(&shared.redo_dir)?;
        }
        let previous = shared.recycle_below.fetch_max(first_kept, Ordering::SeqCst);
        let writer_waits = shared.space_short.load(Ordering::SeqCst) || shared.stalled.load(Ordering::SeqCst);
        if first_kept > previous && writer_waits {
            // The writer waits for a segment: it may have one now.
            shared.wake_writer();
        }
        Ok(())
    }

    /// Writes and syncs everything, then stops the writer thread.
    pub fn shutdown(&self) -> Result<()> {
        let shared = &*self.shared;
        shared.stop_requested.store(true, Ordering::SeqCst);
        shared.wake_writer();
        let mut handle = self.writer.lock();
        if let Some(h) = handle.take() {
            if h.join().is_err() {
                return Err(StorageError::Io(std::io::Error::other("log writer thread panicked")));
            }
        }
        match shared.status() {
            WRITER_FAILED => Err(shared.terminal_error()),
            _ => Ok(()),
        }
    }

    pub fn stats(&self) -> WalStats {
        let s = &self.shared.stats;
        WalStats {
            fsyncs: s.fsyncs.load(Ordering::Relaxed),
            bytes_written: s.bytes_written.load(Ordering::Relaxed),
            ring_full_waits: *self.shared.space.lock(),
            admit_waits: self.shared.admit_waiters.lock().waits,
            space_waits: s.space_waits.load(Ordering::Relaxed),
            commit_groups: s.commit_groups.load(Ordering::Relaxed),
            group_committed_waiters: s.group_committed_waiters.load(Ordering::Relaxed),
            max_commit_group: s.max_commit_group.load(Ordering::Relaxed),
        }
    }

    pub fn fsyncs(&self) -> u64 {
        self.shared.stats.fsyncs.load(Ordering::Relaxed)
    }

    pub fn bytes_written(&self) -> u64 {
        self.shared.stats.bytes_written.load(Ordering::Relaxed)
    }

    pub fn ring_full_waits(&self) -> u64 {
        *self.shared.space.lock()
    }
}

impl Drop for Wal {
    fn drop(&mut self) {
        if let Err(e) = self.shutdown() {
            tracing::error!("log shutdown on drop failed: {e}");
        }
    }
}

/// Makes stale bytes at or past `start_lsn` impossible to verify later: zeroes the segment
/// holding `start_lsn` from there on and every later segment whole, durably, keeping their blocks
/// allocated (a restart on a full disk must not give the log's space away). Without this, after a
/// torn tail a new entry of the same length as the torn one could be followed by an old entry
/// whose stored LSN matches its position, and a later recovery would replay it.
fn discard_from(
    io: &Io,
    redo_dir: &Path,
    segment_bytes: u64,
    start_lsn: Lsn,
    segments: &mut segment::SegmentFiles,
) -> Result<()> {
    segment::remove_temp_files(io, redo_dir)?;
    let current = start_lsn / segment_bytes;
    for n in segment::list_segments(redo_dir)?.into_iter().filter(|&n| n >= current) {
        if let Some(file) = segment::open_existing(io, redo_dir, n, segment_bytes)? {
            let from = if n == current { start_lsn % segment_bytes } else { 0 };
            segment::zero_from(&file, from, segment_bytes)?;
        }
    }
    // `current` and the next one, if there is space; the writer waits for space otherwise.
    for n in [current, current + 1] {
        if let Err(e) = segments.prepare(n, 0) {
            if !crate::io::is_no_space(&e) {
                return Err(e.into());
            }
            tracing::warn!("log: no disk space to prepare segment {n} at open; writes wait until there is: {e}");
            break;
        }
    }
    Ok(())
}

/// LSN of the first entry of a new database (LSN 0 is reserved as "none").
pub const FIRST_LSN: Lsn = 8192;
