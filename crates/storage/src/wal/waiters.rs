//! The list of committers waiting for the log writer to reach their LSN. A leaf: the shared
//! state holds it, the writer drains it, and the futures in `wait` register in it.

use std::task::Waker;

use super::config::Lsn;

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

    pub(super) fn register(&mut self, token: Option<u64>, lsn: Lsn, kind: WaitKind, waker: &Waker) -> u64 {
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

    pub(super) fn remove(&mut self, token: u64) {
        if let Some(i) = self.waiters.iter().position(|w| w.token == token) {
            self.waiters.swap_remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

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
