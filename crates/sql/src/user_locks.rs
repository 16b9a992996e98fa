//! User-level locks (GET_LOCK, RELEASE_LOCK, IS_FREE_LOCK, IS_USED_LOCK, RELEASE_ALL_LOCKS):
//! named locks shared by all sessions, held by a connection until it releases them or
//! disconnects, and re-entrant (each GET_LOCK by the holder counts; each RELEASE_LOCK undoes
//! one). A wait that would close a cycle of connections waiting for each other's locks fails
//! with 1213, as MariaDB's metadata-lock deadlock detector makes it.
//!
//! Functions are evaluated synchronously, so a wait blocks its thread: on a multi-threaded
//! runtime it hands the worker's other tasks away first (`block_in_place`), and it wakes every
//! few milliseconds to see whether the statement was interrupted (KILL QUERY,
//! max_statement_time).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::error::{self, SqlError};
use crate::types::Interrupt;

/// How often a waiting GET_LOCK or SLEEP looks at its statement's interrupt flag.
const INTERRUPT_POLL: Duration = Duration::from_millis(10);

struct Held {
    owner: u64,
    count: u64,
}

#[derive(Default)]
struct State {
    locks: HashMap<String, Held>,
    /// Connection id → the lock it waits for.
    waiting: HashMap<u64, String>,
}

#[derive(Default)]
pub struct UserLocks {
    state: Mutex<State>,
    released: Condvar,
}

impl UserLocks {
    /// GET_LOCK: Ok(true) when `owner` holds the lock, Ok(false) when `timeout` passed first.
    pub fn get(&self, owner: u64, name: &str, timeout: Duration, interrupt: &Interrupt) -> Result<bool, SqlError> {
        let deadline = Instant::now().checked_add(timeout);
        let mut state = self.state.lock();
        loop {
            match state.locks.get_mut(name) {
                None => {
                    state.locks.insert(name.to_string(), Held { owner, count: 1 });
                    state.waiting.remove(&owner);
                    return Ok(true);
                }
                Some(h) if h.owner == owner => {
                    h.count += 1;
                    return Ok(true);
                }
                Some(h) => {
                    let holder = h.owner;
                    if closes_cycle(&state, owner, holder) {
                        state.waiting.remove(&owner);
                        return Err(error::deadlock());
                    }
                }
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                state.waiting.remove(&owner);
                return Ok(false);
            }
            if interrupt.is_raised() {
                state.waiting.remove(&owner);
                return Err(error::interrupted());
            }
            state.waiting.insert(owner, name.to_string());
            let slice = deadline.map_or(INTERRUPT_POLL, |d| (d - now).min(INTERRUPT_POLL));
            blocking(|| {
                self.released.wait_for(&mut state, slice);
            });
        }
    }

    /// RELEASE_LOCK: Some(true) when `owner` held it (one count fewer), Some(false) when
    /// another connection holds it, None when nobody does.
    pub fn release(&self, owner: u64, name: &str) -> Option<bool> {
        let mut state = self.state.lock();
        let h = state.locks.get_mut(name)?;
        if h.owner != owner {
            return Some(false);
        }
        h.count -= 1;
        if h.count == 0 {
            state.locks.remove(name);
            self.released.notify_all();
        }
        Some(true)
    }

    /// RELEASE_ALL_LOCKS (and disconnect): the number of counts released.
    pub fn release_all(&self, owner: u64) -> u64 {
        let mut state = self.state.lock();
        let mut released = 0;
        state.locks.retain(|_, h| {
            if h.owner == owner {
                released += h.count;
                false
            } else {
                true
            }
        });
        state.waiting.remove(&owner);
        if released > 0 {
            self.released.notify_all();
        }
        released
    }

    /// IS_USED_LOCK: the holder's connection id.
    pub fn holder(&self, name: &str) -> Option<u64> {
        self.state.lock().locks.get(name).map(|h| h.owner)
    }
}

/// Whether `owner` waiting for a lock `holder` has would close a cycle of waits.
fn closes_cycle(state: &State, owner: u64, mut holder: u64) -> bool {
    // A chain is at most as long as the number of waiters; longer means a cycle elsewhere.
    for _ in 0..=state.waiting.len() {
        if holder == owner {
            return true;
        }
        match state.waiting.get(&holder).and_then(|l| state.locks.get(l)) {
            Some(h) => holder = h.owner,
            None => return false,
        }
    }
    false
}

/// Runs a blocking wait, letting a multi-threaded runtime move this worker's other tasks.
fn blocking<R>(wait: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(wait),
        _ => wait(),
    }
}

/// The locks as one connection uses them (the GET_LOCK family's view).
pub struct SessionLocks<'a> {
    pub locks: &'a UserLocks,
    pub connection_id: u64,
    pub interrupt: &'a Interrupt,
}

impl SessionLocks<'_> {
    pub fn get(&self, name: &str, timeout: Duration) -> Result<bool, SqlError> {
        self.locks.get(self.connection_id, name, timeout, self.interrupt)
    }
    pub fn release(&self, name: &str) -> Option<bool> {
        self.locks.release(self.connection_id, name)
    }
    pub fn release_all(&self) -> u64 {
        self.locks.release_all(self.connection_id)
    }
    pub fn holder(&self, name: &str) -> Option<u64> {
        self.locks.holder(name)
    }
}

/// SLEEP(d): Ok(()) after `d`, or the interrupt's error as soon as the statement is
/// interrupted.
pub fn sleep(d: Duration, interrupt: &Interrupt) -> Result<(), SqlError> {
    let Some(deadline) = Instant::now().checked_add(d) else {
        return Err(error::interrupted());
    };
    blocking(|| loop {
        if interrupt.is_raised() {
            return Err(error::interrupted());
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(());
        }
        std::thread::sleep((deadline - now).min(INTERRUPT_POLL));
    })
}
