//! Waiting for the log writer: the waiter list it drains, the cancellation-safe future behind
//! `Wal::wait_commit`, and a minimal `block_on` for the blocking `Wal::flush_to`.
//!
//! No lost wake-ups: the writer stores a new position and only then takes the list lock to drain
//! it; a waiter checks the position under the same lock before it registers. So either the waiter
//! sees the new position, or it registered before the writer drained and gets woken.
//! Cancellation: a dropped future whose LSN is not yet covered removes its entry; one whose LSN is
//! covered leaves it for the writer, which is about to drain it anyway (waking a finished task is
//! harmless), so the common path takes the lock once.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

use crate::error::Result;

use super::config::Lsn;
use super::shared::{Shared, WRITER_AWAKE, WRITER_RUNNING};
use super::waiters::WaitKind;

/// How a `CommitWait` ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reached {
    Yes,
    /// The writer is waiting for disk space (only for waits made `unless_stalled`).
    Stalled,
}

/// Resolves once the writer's position for `kind` reaches `lsn`, or with an error once the writer
/// is gone without reaching it.
pub(super) struct CommitWait<'a> {
    shared: &'a Shared,
    lsn: Lsn,
    kind: WaitKind,
    /// Set once registered in the waiter list.
    token: Option<u64>,
    /// Give up (`Reached::Stalled`) while the writer waits for disk space.
    unless_stalled: bool,
}

impl<'a> CommitWait<'a> {
    pub fn new(shared: &'a Shared, lsn: Lsn, kind: WaitKind) -> CommitWait<'a> {
        CommitWait { shared, lsn, kind, token: None, unless_stalled: false }
    }

    /// The wait ends with `Reached::Stalled` if the writer stalls for disk space (it wakes every
    /// waiter when it does).
    pub fn unless_stalled(mut self) -> CommitWait<'a> {
        self.unless_stalled = true;
        self
    }
}

impl Future for CommitWait<'_> {
    type Output = Result<Reached>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<Reached>> {
        let this = self.get_mut();
        let shared = this.shared;
        if shared.reached(this.kind, this.lsn) {
            return Poll::Ready(Ok(Reached::Yes));
        }
        let mut list = shared.waiters.lock();
        if shared.reached(this.kind, this.lsn) {
            return Poll::Ready(Ok(Reached::Yes));
        }
        if shared.status() != WRITER_RUNNING {
            drop(list);
            return Poll::Ready(Err(shared.terminal_error()));
        }
        // Under the waiter lock: the writer sets `stalled` before it drains the list.
        if this.unless_stalled && shared.stalled.load(Ordering::SeqCst) {
            return Poll::Ready(Ok(Reached::Stalled));
        }
        this.token = Some(list.register(this.token, this.lsn, this.kind, cx.waker()));
        drop(list);
        // A sleeping writer may not have been woken for this LSN: in mode 0, or a mode change
        // racing with the wait (a committer that read mode 1 or 2 while the writer still ran
        // mode 0), or an unhurried entry (`Wal::append_unhurried`). (A writer that is awake
        // now writes every complete entry before it sleeps again.)
        if shared.writer_state.load(Ordering::SeqCst) != WRITER_AWAKE {
            shared.wake_writer();
        }
        Poll::Pending
    }
}

impl Drop for CommitWait<'_> {
    fn drop(&mut self) {
        if let Some(token) = self.token {
            if !self.shared.reached(self.kind, self.lsn) {
                self.shared.waiters.lock().remove(token);
            }
        }
    }
}

struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs a future to completion on the current thread, parking between polls.
pub(super) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        std::thread::park();
    }
}
