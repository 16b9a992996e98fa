//! State shared by appenders, waiters and the log writer thread, and the few operations on it
//! that every part of the log needs (waking the writer, waiting for ring space). The writer,
//! the waits and admission add their own `impl Shared` blocks in their files; this file names
//! none of them, only the leaves its fields are made of (ring, waiter lists, halt state).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Waker;

use crossbeam_utils::CachePadded;
use parking_lot::{Condvar, Mutex};

use crate::error::StorageError;
use crate::io::Io;
use crate::types::FlushMode;

use super::config::{Lsn, WalConfig, EXTRA_SEGMENT_FILES, MAX_ENTRY};
use super::halt::HALT_NONE;
use super::ring::LogBuffer;
use super::waiters::{WaitKind, WaiterList};

/// Writer sleep states, read by appenders to decide whether to wake it.
pub(super) const WRITER_AWAKE: u8 = 0;
/// Asleep; any completed entry is work (modes 1 and 2, or someone is waiting).
pub(super) const WRITER_SLEEPS_FOR_ANY: u8 = 1;
/// Asleep in mode 0; only an append that fills the ring past half is worth waking it for.
pub(super) const WRITER_SLEEPS_FOR_PRESSURE: u8 = 2;

/// Writer life cycle.
pub(super) const WRITER_RUNNING: u8 = 0;
pub(super) const WRITER_STOPPED: u8 = 1;
pub(super) const WRITER_FAILED: u8 = 2;

/// State shared by appenders, waiters and the writer thread. Fields written on hot paths sit on
/// their own cache lines.
pub(super) struct Shared {
    pub(super) io: Io,
    pub(super) redo_dir: PathBuf,
    pub(super) segment_bytes: u64,
    /// Largest framed entry this log accepts: min(MAX_ENTRY, ring / 2).
    pub(super) max_entry: usize,
    pub(super) buffer: LogBuffer,

    /// Next LSN to hand out; advanced by every append.
    pub(super) reserve_lsn: CachePadded<AtomicU64>,
    /// Writer-published positions (read by appenders and committers).
    pub(super) written_lsn: CachePadded<AtomicU64>,
    pub(super) flushed_lsn: AtomicU64,
    pub(super) ready_lsn: AtomicU64,
    /// WRITER_AWAKE / WRITER_SLEEPS_*; stored by the writer before it sleeps.
    pub(super) writer_state: CachePadded<AtomicU8>,

    pub(super) flush_mode: AtomicU8,
    /// Highest LSN a `flush_to` caller wants durable.
    pub(super) flush_request: AtomicU64,
    pub(super) stop_requested: AtomicBool,
    /// WRITER_RUNNING / WRITER_STOPPED / WRITER_FAILED.
    pub(super) writer_status: AtomicU8,
    /// Bumped by every explicit wake request (flush_to, ring full, mode change, shutdown) before
    /// it notifies, so the writer can tell "something was asked since I last looked".
    pub(super) wake_requests: AtomicU64,
    pub(super) wake_lock: Mutex<()>,
    pub(super) wake_cv: Condvar,

    /// Appenders waiting for ring space, and the count of such waits (under the mutex).
    pub(super) space_waiters: AtomicUsize,
    pub(super) space: Mutex<u64>,
    pub(super) space_cv: Condvar,

    pub(super) waiters: Mutex<WaiterList>,
    pub(super) stats: WriterStats,

    /// Fail-stop state (`admit::Halt`) and the OS error behind it.
    pub(super) halt: AtomicU8,
    pub(super) halt_errno: std::sync::atomic::AtomicI32,
    /// Row writes start only while `ready_lsn <= admit_limit` (see `admit`). Read on every row
    /// write, written at each checkpoint: on its own line, away from `reserve_lsn`.
    pub(super) admit_limit: CachePadded<AtomicU64>,
    /// The last checkpoint the page cleaner reported.
    pub(super) checkpoint_lsn: AtomicU64,
    /// `WalConfig::sync_age`.
    pub(super) sync_age: u64,
    pub(super) admit_waiters: Mutex<AdmitWaiters>,
    /// The writer could not prepare a segment it wanted ahead, for lack of space.
    pub(super) space_short: AtomicBool,
    /// End of the segments prepared (opened with their blocks allocated) from the one being
    /// written on: the log can be written up to here without new disk space.
    pub(super) prepared_end: AtomicU64,
    /// The writer has log to write and no space to write it into: durability waiters that must
    /// not wait for disk space (`flush_to_unless_stalled`) give up.
    pub(super) stalled: AtomicBool,
    /// Segments below this number only hold log the checkpoint no longer needs: the writer may
    /// rename them to a number it needs (`Wal::truncate_before` raises it).
    pub(super) recycle_below: AtomicU64,
    /// Segment files kept at most: capacity / segment + EXTRA_SEGMENT_FILES.
    pub(super) max_segment_files: u64,
}

/// Counters written only by the writer thread (Relaxed stores of its own running totals).
#[derive(Default)]
pub(super) struct WriterStats {
    pub(super) fsyncs: AtomicU64,
    pub(super) space_waits: AtomicU64,
    pub(super) bytes_written: AtomicU64,
    pub(super) commit_groups: AtomicU64,
    pub(super) group_committed_waiters: AtomicU64,
    pub(super) max_commit_group: AtomicU64,
}

fn mode_from_u8(v: u8) -> FlushMode {
    match v {
        0 => FlushMode::Lazy,
        2 => FlushMode::WriteOnly,
        _ => FlushMode::Durable,
    }
}

impl Shared {
    pub(super) fn flush_mode(&self) -> FlushMode {
        mode_from_u8(self.flush_mode.load(Ordering::Relaxed))
    }

    pub(super) fn status(&self) -> u8 {
        self.writer_status.load(Ordering::SeqCst)
    }

    /// The error a waiter gets once the writer is gone and its LSN is not covered: a commit
    /// whose durability failed (1180), or shutdown.
    pub(super) fn terminal_error(&self) -> StorageError {
        match self.status() {
            WRITER_FAILED => StorageError::CommitFailed { errno: self.halt_errno.load(Ordering::SeqCst) },
            _ => StorageError::ShuttingDown,
        }
    }

    /// Wakes the writer whatever its state (slow paths only: takes the mutex).
    pub(super) fn wake_writer(&self) {
        self.wake_requests.fetch_add(1, Ordering::SeqCst);
        let _guard = self.wake_lock.lock();
        self.wake_cv.notify_one();
    }

    /// Fast-path wake after an append completed `[.., end)`: only if the writer sleeps waiting
    /// for entries (or for ring pressure and this append created it). The SeqCst load pairs with
    /// the writer's SeqCst store of its state followed by its SeqCst look at the link buffer:
    /// either it sees our link or we see it asleep.
    /// After an unhurried append: wakes a sleeping writer only if the ring is filling up.
    pub(super) fn wake_writer_for_pressure(&self, end: Lsn) {
        if end.saturating_sub(self.written_lsn.load(Ordering::Relaxed)) <= self.buffer.size() / 2 {
            return;
        }
        if self.writer_state.swap(WRITER_AWAKE, Ordering::SeqCst) != WRITER_AWAKE {
            let _guard = self.wake_lock.lock();
            self.wake_cv.notify_one();
        }
    }

    pub(super) fn wake_writer_for_append(&self, end: Lsn) {
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
    pub(super) fn wait_for_space(&self, end: Lsn) -> bool {
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
    pub(super) fn notify_space_waiters(&self) {
        if self.space_waiters.load(Ordering::SeqCst) > 0 {
            let _guard = self.space.lock();
            self.space_cv.notify_all();
        }
    }

    pub(super) fn reached(&self, kind: WaitKind, lsn: Lsn) -> bool {
        match kind {
            WaitKind::Durable => self.flushed_lsn.load(Ordering::Acquire) >= lsn,
            WaitKind::Written => self.written_lsn.load(Ordering::Acquire) >= lsn,
        }
    }
}

/// Row writers waiting in `admit_write` (woken whenever the limit is recomputed).
#[derive(Default)]
pub(super) struct AdmitWaiters {
    pub(super) wakers: Vec<Waker>,
    /// Waits that began (for SHOW STATUS).
    pub(super) waits: u64,
}

/// The state shared by a log's users and its writer, at `start_lsn`.
pub(super) fn new_shared(
    io: &Io,
    redo_dir: PathBuf,
    config: &WalConfig,
    start_lsn: Lsn,
    prepared_end: Lsn,
) -> Arc<Shared> {
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
