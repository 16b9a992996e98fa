//! `Wal`, the log as its users see it: open, append, wait for durability, truncate, shut down.
//! Admission (`admit_write`, fail-stop) adds its methods in `admit`; the parts this file drives
//! (shared state, ring, writer thread, waits, segments) all sit below it.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::Mutex;

use crate::error::{Result, StorageError};
use crate::io::Io;
use crate::types::FlushMode;

use super::config::*;
use super::entry::{self, framed_len, Header, ENTRY_HEADER};
use super::halt::{Halt, HALT_SALVAGE};
use super::ring::LogBuffer;
use super::segment;
use super::shared::{new_shared, Shared, WRITER_FAILED, WRITER_STOPPED};
use super::wait::{self, CommitWait, Reached};
use super::waiters::WaitKind;
use super::writer;

pub struct Wal {
    pub(super) shared: Arc<Shared>,
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
        shared.halt.store(HALT_SALVAGE, Ordering::SeqCst);
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
        assert!(shared.halt.load(Ordering::Relaxed) != HALT_SALVAGE, "an append to a read-only (salvage) log");
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
