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

use super::{Lsn, Shared, WRITER_AWAKE, WRITER_RUNNING};

/// Which position a waiter needs to reach its LSN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WaitKind {
    /// `flushed_lsn` (mode 1 commit, `flush_to`).
    Durable,
    /// `written_lsn` (mode 2 commit).
    Written,
}

struct Waiter {
    lsn: Lsn,
    kind: WaitKind,
    token: u64,
    waker: Waker,
}

#[derive(Default)]
pub(super) struct WaiterList {
    waiters: Vec<Waiter>,
    next_token: u64,
}

impl WaiterList {
    /// Moves the wakers of every waiter covered by the positions into `out`; returns how many of
    /// them waited for durability.
    pub fn take_reached(&mut self, flushed: Lsn, written: Lsn, out: &mut Vec<Waker>) -> u64 {
        let mut durable = 0;
        let mut i = 0;
        while i < self.waiters.len() {
            let w = &self.waiters[i];
            let reached = match w.kind {
                WaitKind::Durable => w.lsn <= flushed,
                WaitKind::Written => w.lsn <= written,
            };
            if reached {
                durable += u64::from(w.kind == WaitKind::Durable);
                out.push(self.waiters.swap_remove(i).waker);
            } else {
                i += 1;
            }
        }
        durable
    }

    /// Moves every waker into `out` (the writer is gone, or stalls for disk space).
    pub fn take_all(&mut self, out: &mut Vec<Waker>) {
        out.extend(self.waiters.drain(..).map(|w| w.waker));
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.waiters.len()
    }

    fn register(&mut self, token: Option<u64>, lsn: Lsn, kind: WaitKind, waker: &Waker) -> u64 {
        if let Some(token) = token {
            if let Some(w) = self.waiters.iter_mut().find(|w| w.token == token) {
                w.waker.clone_from(waker);
                return token;
            }
        }
        let token = token.unwrap_or_else(|| {
            self.next_token += 1;
            self.next_token
        });
        self.waiters.push(Waiter { lsn, kind, token, waker: waker.clone() });
        token
    }

    fn remove(&mut self, token: u64) {
        if let Some(i) = self.waiters.iter().position(|w| w.token == token) {
            self.waiters.swap_remove(i);
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    struct CountingWaker(AtomicUsize);
    impl Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn take_reached_splits_by_kind_and_lsn() {
        let counter = Arc::new(CountingWaker(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&counter));
        let mut list = WaiterList::default();
        let a = list.register(None, 100, WaitKind::Durable, &waker);
        let b = list.register(None, 200, WaitKind::Durable, &waker);
        let c = list.register(None, 150, WaitKind::Written, &waker);
        assert_eq!(list.register(Some(a), 100, WaitKind::Durable, &waker), a, "re-registering keeps one entry");
        assert_eq!(list.len(), 3);
        assert!(a != b && b != c);
        let mut out = Vec::new();
        assert_eq!(list.take_reached(100, 120, &mut out), 1);
        assert_eq!(out.len(), 1);
        assert_eq!(list.take_reached(100, 150, &mut out), 0);
        assert_eq!(out.len(), 2);
        list.remove(b);
        assert_eq!(list.len(), 0);
        out.into_iter().for_each(Waker::wake);
        assert_eq!(counter.0.load(Ordering::SeqCst), 2);
    }
}
