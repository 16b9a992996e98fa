//! Routing: which backend server a session (readconnroute) or a statement (readwritesplit)
//! goes to. The decisions here are pure functions of the monitor's snapshot, the connection
//! counts and the session state, so they are tested without any network.

pub mod readconnroute;
pub mod readwritesplit;

use std::time::{Duration, Instant};

use smallvec::SmallVec;

use crate::cluster::ServerState;

/// The candidate with the fewest current connections (first in configuration order on ties).
pub fn least_connections<'a>(
    candidates: impl Iterator<Item = &'a ServerState>,
    connections: impl Fn(usize) -> u64,
) -> Option<&'a ServerState> {
    let mut best: Option<(&ServerState, u64)> = None;
    for s in candidates {
        let n = connections(s.slot);
        if best.is_none_or(|(_, b)| n < b) {
            best = Some((s, n));
        }
    }
    best.map(|(s, _)| s)
}

/// How long a session avoids a server after failing to use it. The monitor takes a dead server
/// out of routing within `interval * failcount`; until then this keeps each statement from
/// paying another connect attempt (possibly a timeout).
pub const SESSION_AVOID: Duration = Duration::from_secs(2);
/// Most servers one session remembers as failed (older entries are dropped first).
const MAX_AVOIDED: usize = 8;

/// Servers a session recently failed to use.
#[derive(Debug, Default)]
pub struct Avoid {
    entries: SmallVec<[(usize, Instant); 2]>,
}

impl Avoid {
    pub fn add(&mut self, slot: usize, now: Instant) {
        self.entries.retain(|(s, _)| *s != slot);
        if self.entries.len() == MAX_AVOIDED {
            self.entries.remove(0);
        }
        self.entries.push((slot, now));
    }

    pub fn contains(&self, slot: usize, now: Instant) -> bool {
        self.entries.iter().any(|&(s, t)| s == slot && now.duration_since(t) < SESSION_AVOID)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_connections_prefers_fewest_then_configuration_order() {
        let servers: Vec<ServerState> = (0..3).map(|i| ServerState::new(&format!("s{i}"), i, "h:1")).collect();
        let counts = [5u64, 2, 2];
        let pick = least_connections(servers.iter(), |slot| counts[slot]).unwrap();
        assert_eq!(pick.name.as_ref(), "s1");
        assert!(least_connections(servers.iter().filter(|_| false), |_| 0).is_none());
    }

    #[test]
    fn avoided_servers_expire() {
        let mut a = Avoid::default();
        let t0 = Instant::now();
        a.add(3, t0);
        assert!(a.contains(3, t0 + Duration::from_millis(10)));
        assert!(!a.contains(3, t0 + SESSION_AVOID));
        assert!(!a.contains(4, t0));
        for slot in 0..20 {
            a.add(slot, t0);
        }
        assert!(a.contains(19, t0) && !a.contains(0, t0));
    }
}
