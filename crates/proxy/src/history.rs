//! The session command history of a readwritesplit session.
//!
//! Session commands (SET, USE, SET NAMES, text PREPARE, COM_INIT_DB, COM_SET_OPTION) run on every
//! backend the session uses. A backend that joins the session later (the first read opens a
//! replica, a replica replaced after a failure) must first reach the same session state, so the
//! successful session commands are kept here and replayed on it in order.
//!
//! The history is bounded by `max_session_history`. When a command would exceed it, MaxScale's
//! rule applies: the history stops growing and no further backend may join the session (a
//! joiner could not be brought to the right state); backends already in the session keep
//! working. The session opens the primary before the history overflows (see
//! `Session::ensure_primary_before_overflow`), so writes keep working in a long-lived session
//! that never wrote before; only new replicas are refused, and reads fall back to backends
//! already in the session.

use crate::backend::ResponseKind;

/// Total bytes of remembered commands per session beyond which the history counts as
/// overflowed, whatever the entry count (a few huge SET statements must not pin memory).
pub const MAX_HISTORY_BYTES: usize = 16 << 20;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryEntry {
    /// The complete command payload (command byte included), as the client sent it.
    pub payload: Box<[u8]>,
    pub kind: ResponseKind,
}

#[derive(Debug)]
pub struct History {
    entries: Vec<HistoryEntry>,
    limit: usize,
    bytes: usize,
    overflowed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    Stored,
    /// This command did not fit: from now on no backend may join the session.
    Overflowed,
}

impl History {
    pub fn new(limit: usize) -> History {
        assert!(limit > 0, "history limit must be positive");
        History { entries: Vec::new(), limit, bytes: 0, overflowed: false }
    }

    /// Remembers a session command that succeeded.
    pub fn record(&mut self, payload: &[u8], kind: ResponseKind) -> Recorded {
        if self.overflowed || self.entries.len() == self.limit || self.bytes + payload.len() > MAX_HISTORY_BYTES {
            self.overflowed = true;
            // The entries are useless once no backend may join; give their memory back.
            self.entries = Vec::new();
            self.bytes = 0;
            return Recorded::Overflowed;
        }
        self.bytes += payload.len();
        self.entries.push(HistoryEntry { payload: payload.into(), kind });
        debug_assert!(self.entries.len() <= self.limit);
        Recorded::Stored
    }

    /// True if recording one more command would overflow the history.
    pub fn is_full(&self) -> bool {
        self.overflowed || self.entries.len() == self.limit
    }

    /// Whether a backend may join the session (it can be brought to the session's state).
    pub fn can_join(&self) -> bool {
        !self.overflowed
    }

    pub fn entries(&self) -> &[HistoryEntry] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// COM_RESET_CONNECTION / COM_CHANGE_USER: the session state starts over.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.bytes = 0;
        self.overflowed = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_in_order_until_the_limit_then_refuses_joins() {
        let mut h = History::new(3);
        assert!(h.can_join() && h.is_empty());
        for (i, sql) in [&b"\x03SET @a=1"[..], b"\x02db", b"\x03SET NAMES utf8"].iter().enumerate() {
            assert_eq!(h.record(sql, ResponseKind::Results), Recorded::Stored);
            assert_eq!(h.len(), i + 1);
        }
        assert!(h.is_full() && h.can_join());
        assert_eq!(&*h.entries()[1].payload, b"\x02db");
        assert_eq!(h.record(b"\x03SET @b=2", ResponseKind::Results), Recorded::Overflowed);
        assert!(!h.can_join() && h.is_empty());
        assert_eq!(h.record(b"\x03SET @c=3", ResponseKind::Results), Recorded::Overflowed);
        h.clear();
        assert!(h.can_join());
        assert_eq!(h.record(b"\x03SET @d=4", ResponseKind::Single), Recorded::Stored);
        assert_eq!(h.entries()[0].kind, ResponseKind::Single);
    }

    #[test]
    fn byte_bound_overflows_independently_of_count() {
        let mut h = History::new(1000);
        let big = vec![b'x'; MAX_HISTORY_BYTES / 2 + 1];
        assert_eq!(h.record(&big, ResponseKind::Results), Recorded::Stored);
        assert_eq!(h.record(&big, ResponseKind::Results), Recorded::Overflowed);
        assert!(!h.can_join());
    }
}
