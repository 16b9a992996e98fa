//! How the page store wakes its background threads. A leaf: `Shared` holds one per thread, and
//! the threads (cleaner, evictor) sit above `Shared`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

/// Wakes a background thread (the cleaner, the evictor). A wake-up is never lost: the waker sets `pending` then checks `sleeping`,
/// the cleaner sets `sleeping` then checks `pending` (both SeqCst), so at least one of them sees
/// the other; a waker that sees `sleeping` notifies under the mutex the cleaner waits with.
pub(crate) struct Signal {
    mutex: Mutex<()>,
    condvar: Condvar,
    pending: AtomicBool,
    sleeping: AtomicBool,
    stop: AtomicBool,
}

impl Signal {
    pub(crate) fn new() -> Signal {
        Signal {
            mutex: Mutex::new(()),
            condvar: Condvar::new(),
            pending: AtomicBool::new(false),
            sleeping: AtomicBool::new(false),
            stop: AtomicBool::new(false),
        }
    }

    /// Asks for a pass now. Writes the shared flag only when it is not already set.
    pub(crate) fn wake(&self) {
        if !self.pending.load(Ordering::SeqCst) {
            self.pending.store(true, Ordering::SeqCst);
        }
        if self.sleeping.load(Ordering::SeqCst) {
            let _guard = self.mutex.lock();
            self.condvar.notify_one();
        }
    }

    pub(crate) fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.wake();
    }

    pub(crate) fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Sleeps until woken or `timeout`, unless a wake-up is already pending.
    pub(crate) fn wait(&self, timeout: Duration) {
        let mut guard = self.mutex.lock();
        self.sleeping.store(true, Ordering::SeqCst);
        if !self.pending.load(Ordering::SeqCst) && !self.stopping() {
            self.condvar.wait_for(&mut guard, timeout);
        }
        self.sleeping.store(false, Ordering::SeqCst);
        self.pending.store(false, Ordering::SeqCst);
    }
}
