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
//!
//! Space. The writer keeps segments prepared ahead of the log's reserved end (one segment past
//! it), publishes how far (`prepared_end`, which bounds row-write admission), and recycles old
//! segments before it creates new ones (segment.rs). No space for a segment (ENOSPC when one is
//! created, or on a write) never stops the writer: it says so (`space_short`: the page cleaner
//! checkpoints at once so that an old segment can be recycled) and tries again with backoff; if
//! it reaches the end of the prepared segments it *stalls*: it retries until a checkpoint frees
//! a segment or the operator frees space, while committers and appenders wait.
//!
//! Any other write error and every fsync error stop it for good (fail-stop, see `admit`): the
//! bytes written since the last good sync may be lost whatever a second fsync says, so no commit
//! after them can be acknowledged.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::Waker;
use std::time::{Duration, Instant};

use crate::io::is_no_space;
use crate::types::FlushMode;

use super::config::{Lsn, BACKGROUND_SYNC_INTERVAL};
use super::halt::Halt;
use super::segment::SegmentFiles;
use super::shared::{
    Shared, WRITER_AWAKE, WRITER_FAILED, WRITER_RUNNING, WRITER_SLEEPS_FOR_ANY, WRITER_SLEEPS_FOR_PRESSURE,
    WRITER_STOPPED,
};

/// First pause after a failure for lack of disk space; it doubles up to `SPACE_RETRY_MAX`.
const SPACE_RETRY_MIN: Duration = Duration::from_millis(10);
const SPACE_RETRY_MAX: Duration = Duration::from_secs(1);
/// While the log has no space, the warning is repeated this often (not at every retry).
const SPACE_WARNING_INTERVAL: Duration = Duration::from_secs(10);

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
        space: SpaceState::default(),
        failed_op: "write",
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
            let errno = e.raw_os_error().unwrap_or(libc::EIO);
            if shared.io.is_crashed() {
                // A simulated power cut (tests): nothing to tell an operator.
                tracing::debug!("log writer stops after a simulated crash: {e}");
                shared.halt_errno.store(errno, Ordering::SeqCst);
            } else {
                let what = format!(
                    "log {} failed at LSN {} (durable up to {}): {e}",
                    writer.failed_op, writer.written, writer.flushed
                );
                shared.halt(Halt::Log, errno, &what);
            }
            // After the halt: a waiter that sees FAILED reads the errno stored by it.
            shared.writer_status.store(WRITER_FAILED, Ordering::SeqCst);
        }
    }
}

/// The writer's view of disk space for its segments.
struct SpaceState {
    /// When to try again to prepare the next segment (while `space_short`).
    retry_at: Option<Instant>,
    /// The pause before the next retry.
    delay: Duration,
    /// `recycle_below` at the last failed attempt: a checkpoint that raised it is worth an
    /// immediate retry.
    recycle_seen: u64,
    /// When the current shortage began and when it was last reported.
    since: Option<Instant>,
    warned_at: Option<Instant>,
}

impl Default for SpaceState {
    fn default() -> Self {
        SpaceState { retry_at: None, delay: SPACE_RETRY_MIN, recycle_seen: 0, since: None, warned_at: None }
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
            shared.halt(Halt::Log, libc::EIO, "the log writer panicked");
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
    space: SpaceState,
    /// What the last I/O attempted ("write" or "fsync"), for the fail-stop message.
    failed_op: &'static str,
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

            self.prepare_segments_ahead()?;
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
            && (urgent || shared.reserve_lsn.load(Ordering::SeqCst) - self.written > shared.buffer.size() / 2);
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
            self.write_piece(lsn, piece)?;
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
        self.failed_op = "fsync";
        self.fsyncs += self.segments.sync()?;
        self.failed_op = "write";
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

    /// Writes one piece (inside one segment), preparing the segment if needed. Lack of space
    /// stalls the writer until it has some; any other error is returned (fail-stop). Writing the
    /// same bytes again after a failed write is safe (unlike syncing again after a failed sync).
    fn write_piece(&mut self, lsn: Lsn, piece: &[u8]) -> std::io::Result<()> {
        let shared = self.shared;
        loop {
            let e = match self.segments.write(lsn, piece, shared.recycle_below.load(Ordering::SeqCst)) {
                Ok(()) => {
                    if shared.stalled.load(Ordering::Relaxed) {
                        shared.stalled.store(false, Ordering::SeqCst);
                    }
                    return Ok(());
                }
                Err(e) if is_no_space(&e) && !shared.stop_requested.load(Ordering::SeqCst) => e,
                Err(e) => return Err(e),
            };
            if !shared.stalled.load(Ordering::Relaxed) {
                shared.stalled.store(true, Ordering::SeqCst);
                self.shared.stats.space_waits.fetch_add(1, Ordering::Relaxed);
                // Durability waiters that must not wait for space (the page cleaner) give up now.
                let mut wakers = Vec::new();
                shared.waiters.lock().take_all(&mut wakers);
                wakers.into_iter().for_each(Waker::wake);
            }
            self.note_no_space(lsn / shared.segment_bytes, &e, "writes and commits wait");
            self.pause_for_space();
        }
    }

    /// Keeps segments prepared up to one past the log's reserved end (best effort, with backoff
    /// while there is no space), and publishes how far they reach.
    fn prepare_segments_ahead(&mut self) -> std::io::Result<()> {
        let shared = self.shared;
        let segment = shared.segment_bytes;
        let reserved = shared.reserve_lsn.load(Ordering::Acquire);
        let wanted = reserved.max(self.written) / segment + 1;
        let mut n = self.written / segment;
        while n <= wanted && self.segments.is_open(n) {
            n += 1;
        }
        if n <= wanted {
            let recycle_below = shared.recycle_below.load(Ordering::SeqCst);
            let backing_off = self.space.retry_at.is_some_and(|at| Instant::now() < at);
            let waiting = backing_off && recycle_below == self.space.recycle_seen;
            if !waiting {
                while n <= wanted {
                    match self.segments.prepare(n, recycle_below) {
                        Ok(_) => n += 1,
                        Err(e) if is_no_space(&e) => {
                            self.space.recycle_seen = recycle_below;
                            self.space.retry_at = Some(Instant::now() + self.space.delay);
                            self.space.delay = (self.space.delay * 2).min(SPACE_RETRY_MAX);
                            let effect = "row writes will wait once the prepared segments are nearly full";
                            self.note_no_space(n, &e, effect);
                            break;
                        }
                        Err(e) => return Err(e),
                    }
                }
                if n > wanted {
                    self.end_space_shortage();
                }
            }
        }
        let end = self.segments.prepared_end(self.written);
        if shared.prepared_end.load(Ordering::Relaxed) != end {
            shared.prepared_end.store(end, Ordering::SeqCst);
            shared.update_admission();
        }
        Ok(())
    }

    /// Marks the log short of space (the page cleaner checkpoints at once, so that a segment can
    /// be recycled) and warns, at most every `SPACE_WARNING_INTERVAL`.
    fn note_no_space(&mut self, segment: u64, e: &std::io::Error, effect: &str) {
        let shared = self.shared;
        let now = Instant::now();
        shared.space_short.store(true, Ordering::SeqCst);
        self.space.since.get_or_insert(now);
        if self.space.warned_at.is_none_or(|at| now.duration_since(at) >= SPACE_WARNING_INTERVAL) {
            self.space.warned_at = Some(now);
            tracing::warn!(
                "log: no disk space for redo segment {segment} ({e}); {effect}. Retrying; a checkpoint recycles old \
                 segments, or free some space"
            );
        }
    }

    fn end_space_shortage(&mut self) {
        let shared = self.shared;
        self.space.retry_at = None;
        self.space.delay = SPACE_RETRY_MIN;
        self.space.warned_at = None;
        if let Some(since) = self.space.since.take() {
            tracing::info!("log: disk space for redo segments again after {:.1}s", since.elapsed().as_secs_f64());
        }
        shared.space_short.store(false, Ordering::SeqCst);
    }

    /// Sleeps before the next attempt to find space: the backoff, cut short by a checkpoint that
    /// made a segment recyclable (`truncate_before` wakes the writer) or by shutdown.
    fn pause_for_space(&mut self) {
        let shared = self.shared;
        let delay = self.space.delay;
        self.space.delay = (delay * 2).min(SPACE_RETRY_MAX);
        let mut guard = shared.wake_lock.lock();
        shared.wake_cv.wait_for(&mut guard, delay);
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
