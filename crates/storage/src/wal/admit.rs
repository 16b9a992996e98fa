//! Admission of row writes: the checkpoint-age throttle and the fail-stop state (docs §4.5,
//! §4.10).
//!
//! The log holds at most `capacity` bytes between the checkpoint and its end; past that it
//! could only grow without bound or fail. Like InnoDB's flush points, two marks keep it
//! bounded without failing anyone: at the *async* point (`WalConfig::async_age`) the page
//! cleaner writes back oldest-first hard so that the checkpoint moves (buffer/cleaner.rs); at
//! the *sync* point (`WalConfig::sync_age`) a row write waits, asynchronously, before it
//! starts, until a checkpoint brings the age back under the mark.
//!
//! Row writes also wait when the log's reserved end comes within half a segment of the end of
//! the segments the writer has prepared (`prepared_end`): the writer prepares segments ahead of
//! the reserved end (recycled or created, writer.rs), so this wait is short, unless the disk is
//! full. Then the log writer says so (`space_short`), the page cleaner checkpoints at once so
//! that an old segment can be recycled, or the operator frees space; the half segment left is
//! room for what is not throttled (commits, rollbacks, the checkpoint's own records), so the
//! writer itself rarely has to stall.
//!
//! The age is measured from the log's reserved end (`reserve_lsn`), which every append moves at
//! once (`ready_lsn` may trail by a second in flush mode 0). The fast path of
//! `Wal::admit_write` is two loads: `reserve_lsn` (the line the row write's own append is about
//! to take anyway) and `admit_limit` (written once per checkpoint and segment). `admit_limit`
//! folds every reason to wait into one number: `min(checkpoint + sync_age, prepared_end - half
//! a segment)`, or 0 once writes must stop.
//!
//! Fail-stop (`Wal::halt`): after an I/O error that leaves durability in doubt (a log write or
//! fsync, a data-file write-back) the engine refuses every new row write for good (reads go on)
//! and says so in one error line. After a log failure no commit is acknowledged any more
//! (`CommitFailed`); after a data-file failure commits still go to the healthy log, but no
//! checkpoint moves past the pages that could not be written. A restart runs recovery, which
//! decides what is durable. Nothing is retried after a failed fsync (fsyncgate: the kernel may
//! have dropped the dirty pages and a second fsync would report success).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, Waker};

use crate::error::{Result, StorageError};

use super::config::Lsn;
use super::halt::{Halt, HALT_DATA, HALT_LOG, HALT_NONE, HALT_SALVAGE};
use super::log::Wal;
use super::shared::Shared;

impl Shared {
    /// Recomputes `admit_limit` from the checkpoint, the space state and the halt state, and
    /// wakes every waiting writer to look again.
    pub(super) fn update_admission(&self) {
        let mut waiters = self.admit_waiters.lock();
        let limit = if self.halt.load(Ordering::SeqCst) != HALT_NONE {
            0
        } else {
            let by_age = self.checkpoint_lsn.load(Ordering::SeqCst).saturating_add(self.sync_age);
            let by_space = self.prepared_end.load(Ordering::SeqCst).saturating_sub(self.segment_bytes / 2);
            by_age.min(by_space)
        };
        self.admit_limit.store(limit, Ordering::SeqCst);
        waiters.wakers.drain(..).for_each(Waker::wake);
    }

    pub(super) fn halted(&self) -> Option<Halt> {
        match self.halt.load(Ordering::SeqCst) {
            HALT_LOG => Some(Halt::Log),
            HALT_DATA => Some(Halt::DataFile),
            HALT_SALVAGE => Some(Halt::Salvage),
            _ => None,
        }
    }

    /// Enters fail-stop (first cause wins) and logs the one line an operator needs.
    pub(super) fn halt(&self, cause: Halt, errno: i32, what: &str) {
        let code = match cause {
            Halt::Log => HALT_LOG,
            Halt::DataFile => HALT_DATA,
            Halt::Salvage => HALT_SALVAGE,
        };
        if self.halt.compare_exchange(HALT_NONE, code, Ordering::SeqCst, Ordering::SeqCst).is_err() {
            return;
        }
        self.halt_errno.store(errno, Ordering::SeqCst);
        let commits = match cause {
            Halt::Log => "no further commit can be acknowledged",
            Halt::DataFile => "the checkpoint stops at the pages not written",
            Halt::Salvage => "nothing is written",
        };
        tracing::error!(
            "{what}. The engine now refuses writes (reads go on) and {commits}; restart the server: recovery decides \
             what is durable"
        );
        self.update_admission();
    }
}

/// Resolves when a row write may start: `Ok` under the sync point with log space prepared,
/// `WritesStopped` once the engine has halted.
pub struct AdmitWrite<'a> {
    shared: &'a Shared,
    counted: bool,
}

impl Future for AdmitWrite<'_> {
    type Output = Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let this = self.get_mut();
        let shared = this.shared;
        if shared.reserve_lsn.load(Ordering::Relaxed) <= shared.admit_limit.load(Ordering::Acquire) {
            return Poll::Ready(Ok(()));
        }
        if shared.halted().is_some() {
            return Poll::Ready(Err(StorageError::WritesStopped));
        }
        let mut waiters = shared.admit_waiters.lock();
        // Looked at again under the lock that `update_admission` stores under: either we see
        // its new limit or it sees our waker.
        if shared.reserve_lsn.load(Ordering::SeqCst) <= shared.admit_limit.load(Ordering::SeqCst) {
            return Poll::Ready(Ok(()));
        }
        if !this.counted {
            this.counted = true;
            waiters.waits += 1;
        }
        if !waiters.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            waiters.wakers.push(cx.waker().clone());
        }
        drop(waiters);
        // The writer prepares segments ahead of the reserved end when it runs; in flush mode 0
        // it may sleep for a second.
        shared.wake_writer();
        Poll::Pending
    }
}

impl Wal {
    /// Waits (asynchronously: never blocks a thread) until a row write may start; fails with
    /// `WritesStopped` after fail-stop. Call before each row insert, update or delete.
    pub fn admit_write(&self) -> AdmitWrite<'_> {
        AdmitWrite { shared: &self.shared, counted: false }
    }

    /// Blocks the thread until a row write may go on (`admit_write`, for code that holds no
    /// latch and cannot await: between the mtrs of a value written ahead of its row, which may
    /// log far more than the last eighth of the log that admission leaves for work in flight).
    pub fn wait_admitted(&self) -> Result<()> {
        let shared = &self.shared;
        loop {
            if shared.reserve_lsn.load(Ordering::SeqCst) <= shared.admit_limit.load(Ordering::SeqCst) {
                return Ok(());
            }
            if shared.halted().is_some() {
                return Err(StorageError::WritesStopped);
            }
            shared.wake_writer();
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// `WritesStopped` once the engine has halted (DDL and other writes that do not wait).
    pub fn check_writable(&self) -> Result<()> {
        match self.shared.halted() {
            None => Ok(()),
            Some(_) => Err(StorageError::WritesStopped),
        }
    }

    /// `CommitFailed` once the log has failed: a transaction that wrote can no longer commit
    /// (it is rolled back in memory; its changes were never durable).
    pub fn check_commit(&self) -> Result<()> {
        match self.shared.halted() {
            Some(Halt::Log) => Err(StorageError::CommitFailed { errno: self.shared.halt_errno.load(Ordering::SeqCst) }),
            _ => Ok(()),
        }
    }

    /// Why writes stopped, if they did.
    pub fn halted(&self) -> Option<Halt> {
        self.shared.halted()
    }

    /// Enters fail-stop after an I/O error outside the log (the page cleaner's write-back). The
    /// first call logs `what` as the one error line; later calls do nothing.
    pub fn halt(&self, cause: Halt, error: &std::io::Error, what: &str) {
        self.shared.halt(cause, error.raw_os_error().unwrap_or(libc::EIO), &format!("{what}: {error}"));
    }

    /// The page cleaner reports each new checkpoint: it moves the sync point.
    pub fn set_checkpoint_lsn(&self, lsn: Lsn) {
        let previous = self.shared.checkpoint_lsn.fetch_max(lsn, Ordering::SeqCst);
        if lsn > previous {
            self.shared.update_admission();
        }
    }

    /// The checkpoint age at which row writes wait (`WalConfig::sync_age`).
    pub fn sync_age(&self) -> u64 {
        self.shared.sync_age
    }

    /// Log bytes between the last checkpoint and the log's reserved end (InnoDB's checkpoint
    /// age).
    pub fn checkpoint_age(&self) -> u64 {
        self.reserved_lsn().saturating_sub(self.shared.checkpoint_lsn.load(Ordering::Acquire))
    }

    /// The log writer could not prepare its next segment for lack of disk space (writers are
    /// held back; a checkpoint now lets it recycle an old one).
    pub fn space_short(&self) -> bool {
        self.shared.space_short.load(Ordering::Acquire)
    }

    /// The log writer has log to write and no disk space to write it to: nothing past
    /// `flushed_lsn` becomes durable until a checkpoint frees a segment or space is freed.
    pub fn is_stalled(&self) -> bool {
        self.shared.stalled.load(Ordering::Acquire)
    }
}
