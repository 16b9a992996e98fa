//! The log writer thread: moves completed entries from the ring to the segment files, syncs them,
//! and releases the committers and appenders that wait on it.
//!
//! One iteration: follow the link buffer to `ready_lsn`; write `[written, ready)` if anyone needs
//! it (always in modes 1 and 2; in mode 0 only on the one-second tick, a `flush_to`, ring
//! pressure or shutdown); fdatasync if anyone needs that (mode 1 always, otherwise tick,
//! `flush_to` or shutdown); publish the new positions and wake whoever they satisfy. Every
//! committer that arrived while the previous sync ran is covered by the next one: that is the
//! group commit, and its size adapts to the fsync latency by itself.
//!
//! Then sleep, unless more work arrived. Appenders wake the writer through `writer_state` (see
//! `Shared::wake_writer_for_append`); explicit requests bump `wake_requests` before notifying, and
//! the writer compares it under the wake mutex, so no wake-up is lost.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::Waker;
use std::time::Instant;

use crate::engine::FlushMode;

use super::segment::SegmentFiles;
use super::{
    Lsn, Shared, BACKGROUND_SYNC_INTERVAL, WRITER_AWAKE, WRITER_FAILED, WRITER_RUNNING, WRITER_SLEEPS_FOR_ANY,
    WRITER_SLEEPS_FOR_PRESSURE, WRITER_STOPPED,
};

pub(super) fn run(shared: Arc<Shared>, segments: SegmentFiles, start: Lsn) {
    // Whatever happens below (error or panic), waiters must learn that the writer is gone.
    let _terminate = TerminateOnDrop { shared: &shared };
    let mut writer = Writer {
        shared: &shared,
        segments,
        ready: start,
        written: start,
        flushed: start,
        next_tick: Instant::now() + BACKGROUND_SYNC_INTERVAL,
        wakers: Vec::new(),
        fsyncs: 0,
        bytes_written: 0,
        commit_groups: 0,
        group_committed_waiters: 0,
        max_commit_group: 0,
    };
    match writer.run() {
        Ok(()) => shared.writer_status.store(WRITER_STOPPED, Ordering::SeqCst),
        Err(e) => {
            tracing::error!("log writer stopped by an I/O error at LSN {}: {e}", writer.written);
            *shared.failure.lock() = Some(e.to_string());
            shared.writer_status.store(WRITER_FAILED, Ordering::SeqCst);
        }
    }
}

struct TerminateOnDrop<'a> {
    shared: &'a Shared,
}

impl Drop for TerminateOnDrop<'_> {
    fn drop(&mut self) {
        let shared = self.shared;
        if shared.writer_status.load(Ordering::SeqCst) == WRITER_RUNNING {
            // Only reached by a panic inside the writer.
            *shared.failure.lock() = Some("log writer panicked".into());
            shared.writer_status.store(WRITER_FAILED, Ordering::SeqCst);
        }
        // The status store above precedes these: a waiter checks the status under the same lock.
        shared.notify_space_waiters();
        let mut wakers = Vec::new();
        shared.waiters.lock().take_all(&mut wakers);
        wakers.into_iter().for_each(Waker::wake);
    }
}

struct Writer<'a> {
    shared: &'a Shared,
    segments: SegmentFiles,
    /// Private copies of the positions this thread alone advances.
    ready: Lsn,
    written: Lsn,
    flushed: Lsn,
    /// Next background write/sync for modes 0 and 2.
    next_tick: Instant,
    /// Reused buffer of wakers to call outside the waiter lock.
    wakers: Vec<Waker>,
    fsyncs: u64,
    bytes_written: u64,
    commit_groups: u64,
    group_committed_waiters: u64,
    max_commit_group: u64,
}

impl Writer<'_> {
    fn run(&mut self) -> std::io::Result<()> {
        let shared = self.shared;
        let ring = shared.buffer.size();
        loop {
            let requests_seen = shared.wake_requests.load(Ordering::SeqCst);
            let mode = shared.flush_mode();
            let stopping = shared.stop_requested.load(Ordering::SeqCst);
            self.ready = shared.buffer.follow_links(self.ready);
            shared.ready_lsn.store(self.ready, Ordering::Release);
            // Loaded after following the links: every link seen belongs to a reserved entry.
            let reserved = shared.reserve_lsn.load(Ordering::SeqCst);
            debug_assert!(self.flushed <= self.written && self.written <= self.ready && self.ready <= reserved);
            let flush_request = shared.flush_request.load(Ordering::SeqCst);
            let now = Instant::now();
            let tick = now >= self.next_tick;

            let urgent = mode != FlushMode::Lazy
                || stopping
                || tick
                || flush_request > self.flushed
                || shared.space_waiters.load(Ordering::SeqCst) > 0
                || reserved - self.written > ring / 2;
            if urgent && self.ready > self.written {
                self.write()?;
            }
            let sync_wanted = mode == FlushMode::Durable || stopping || tick || flush_request > self.flushed;
            if sync_wanted && self.written > self.flushed {
                self.sync()?;
            }
            if tick {
                self.next_tick = now + BACKGROUND_SYNC_INTERVAL;
            }
            if stopping && reserved == self.ready && self.flushed == self.ready {
                return Ok(());
            }
            self.sleep(urgent, requests_seen);
        }
    }

    /// Sleeps until an entry completes (if `urgent`, or if the ring fills past half), an explicit
    /// request arrives, or the next tick.
    fn sleep(&mut self, urgent: bool, requests_seen: u64) {
        let shared = self.shared;
        let mut guard = shared.wake_lock.lock();
        let state = if urgent { WRITER_SLEEPS_FOR_ANY } else { WRITER_SLEEPS_FOR_PRESSURE };
        // SeqCst store, then SeqCst loads of the link buffer: pairs with the appender's SeqCst
        // link store followed by its SeqCst load of the state.
        shared.writer_state.store(state, Ordering::SeqCst);
        let entry_waiting = shared.buffer.is_complete(self.ready)
            && (urgent
                || shared.reserve_lsn.load(Ordering::SeqCst) - self.written > shared.buffer.size() / 2);
        let request_waiting = shared.wake_requests.load(Ordering::SeqCst) != requests_seen;
        if !entry_waiting && !request_waiting {
            shared.wake_cv.wait_until(&mut guard, self.next_tick);
        }
        shared.writer_state.store(WRITER_AWAKE, Ordering::SeqCst);
    }

    /// Writes `[written, ready)` from the ring to the segments, split at segment boundaries and
    /// at the physical end of the ring.
    fn write(&mut self) -> std::io::Result<()> {
        let shared = self.shared;
        let segment_bytes = shared.segment_bytes;
        let target = self.ready;
        let mut lsn = self.written;
        while lsn < target {
            let segment_end = (lsn / segment_bytes).saturating_add(1).saturating_mul(segment_bytes);
            // SAFETY: [written, ready) belongs to the writer: every entry in it is complete, and no
            // appender may reuse these ring bytes before written_lsn moves past them.
            let piece = unsafe { shared.buffer.contiguous(lsn, target.min(segment_end) - lsn) };
            self.segments.write(lsn, piece)?;
            lsn += piece.len() as u64;
        }
        self.bytes_written += target - self.written;
        self.written = target;
        // SeqCst: pairs with space waiters (see Shared::wait_for_space); Release for appenders.
        shared.written_lsn.store(target, Ordering::SeqCst);
        shared.stats.bytes_written.store(self.bytes_written, Ordering::Relaxed);
        shared.notify_space_waiters();
        self.release_waiters();
        Ok(())
    }

    fn sync(&mut self) -> std::io::Result<()> {
        let shared = self.shared;
        self.fsyncs += self.segments.sync()?;
        self.flushed = self.written;
        shared.flushed_lsn.store(self.flushed, Ordering::SeqCst);
        shared.stats.fsyncs.store(self.fsyncs, Ordering::Relaxed);
        let group = self.release_waiters();
        if group > 0 {
            self.commit_groups += 1;
            self.group_committed_waiters += group;
            self.max_commit_group = self.max_commit_group.max(group);
            shared.stats.commit_groups.store(self.commit_groups, Ordering::Relaxed);
            shared.stats.group_committed_waiters.store(self.group_committed_waiters, Ordering::Relaxed);
            shared.stats.max_commit_group.store(self.max_commit_group, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Wakes every waiter the published positions satisfy; returns how many waited for
    /// durability. The positions were stored before the lock is taken, so a waiter that checked
    /// them under the lock before us is in the list, and one that checks after us sees them.
    fn release_waiters(&mut self) -> u64 {
        let durable = self.shared.waiters.lock().take_reached(self.flushed, self.written, &mut self.wakers);
        self.wakers.drain(..).for_each(Waker::wake);
        durable
    }
}
