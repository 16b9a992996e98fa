//! readwritesplit's per-statement routing rules and transaction tracking.
//!
//! Rules (the issue's, MaxScale's):
//! - session commands (SET, USE, SET NAMES, text PREPARE) go to every backend of the session;
//! - inside a transaction everything goes to the backend that holds it: a read-write
//!   transaction (BEGIN, START TRANSACTION [READ WRITE], or any statement while autocommit is
//!   off) runs on the primary, START TRANSACTION READ ONLY on a replica;
//! - writes, locking reads, multi-statements and anything the classifier cannot prove read-only
//!   go to the primary, as does everything once the session used LAST_INSERT_ID(),
//!   FOUND_ROWS(), GET_LOCK() or a temporary table (`pinned`);
//! - autocommit reads go to a replica, or to the primary when no replica is usable;
//! - with no primary (fail_on_write) writes fail with a clear error and reads go on on
//!   replicas; a read-write transaction begun then runs on a replica in a "degraded" mode in
//!   which its writes fail the same way.
//!
//! The transaction state follows the classifier's `TxnEffect`, corrected by the server's own
//! status flags (SERVER_STATUS_IN_TRANS, SERVER_STATUS_AUTOCOMMIT) whenever a response carries
//! them: those are authoritative (they see implicit commits, errors that end transactions,
//! stored procedures...).

use selkie_protocol::constants::status::{SERVER_STATUS_AUTOCOMMIT, SERVER_STATUS_IN_TRANS};

use crate::classifier::{Classification, Route, TxnEffect};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Txn {
    None,
    /// On the primary.
    ReadWrite,
    /// On a replica (or the primary when no replica was usable). `degraded`: a read-write
    /// transaction begun while no primary was available; its writes fail with the
    /// fail_on_write error.
    ReadOnly {
        degraded: bool,
    },
}

#[derive(Clone, Debug)]
pub struct RwsState {
    pub autocommit: bool,
    pub txn: Txn,
    /// Serial of the backend connection that holds the open transaction.
    pub txn_backend: Option<u64>,
    /// The open transaction has written (no result caching from then on).
    pub txn_wrote: bool,
    /// The session stays on the primary (LAST_INSERT_ID(), temporary tables, ...).
    pub pinned: bool,
}

impl Default for RwsState {
    fn default() -> RwsState {
        RwsState { autocommit: true, txn: Txn::None, txn_backend: None, txn_wrote: false, pinned: false }
    }
}

/// Where a statement goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Primary,
    /// A usable replica.
    Replica,
    /// A read that goes to the primary because no replica is usable.
    FallbackPrimary,
    /// The backend holding the open transaction.
    TxnBackend,
    /// Every backend of the session.
    All,
    /// No primary: refuse with the fail_on_write error.
    FailWrite,
    /// Neither a primary nor a usable replica.
    NoServer,
}

/// What the session can use right now (from the monitor's snapshot, minus servers the session
/// recently failed to use).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Availability {
    pub primary: bool,
    pub replica: bool,
}

/// A statement that must run on the primary because it changes data or cannot be proven
/// read-only.
pub fn is_write(c: &Classification) -> bool {
    c.route == Route::Write || c.locking_read || c.multi_statement
}

/// Routes one statement.
pub fn decide(state: &RwsState, c: &Classification, avail: Availability) -> Target {
    let boundary = matches!(c.txn, TxnEffect::Begin { .. } | TxnEffect::Commit | TxnEffect::Rollback);
    if c.route == Route::Session && !c.multi_statement && !boundary {
        return Target::All;
    }
    match state.txn {
        Txn::ReadWrite => return Target::TxnBackend,
        Txn::ReadOnly { degraded } => {
            return if degraded && is_write(c) && !matches!(c.txn, TxnEffect::Commit | TxnEffect::Rollback) {
                Target::FailWrite
            } else {
                Target::TxnBackend
            };
        }
        Txn::None => {}
    }
    match c.txn {
        TxnEffect::Begin { read_only: true } => {
            return if avail.replica {
                Target::Replica
            } else if avail.primary {
                Target::FallbackPrimary
            } else {
                Target::NoServer
            };
        }
        TxnEffect::Begin { read_only: false } => {
            // Without a primary the transaction runs degraded on a replica, so that its reads
            // go on; its writes are refused.
            return if avail.primary {
                Target::Primary
            } else if avail.replica {
                Target::Replica
            } else {
                Target::NoServer
            };
        }
        TxnEffect::Commit | TxnEffect::Rollback => {
            // Nothing open: a no-op wherever it runs, so it must not fail for want of a primary.
            return if avail.primary {
                Target::Primary
            } else if avail.replica {
                Target::Replica
            } else {
                Target::NoServer
            };
        }
        _ => {}
    }
    let write = is_write(c);
    if write || !state.autocommit || state.pinned || c.pins_primary {
        return if avail.primary {
            Target::Primary
        } else if !write && avail.replica {
            Target::Replica
        } else if write {
            Target::FailWrite
        } else {
            Target::NoServer
        };
    }
    if avail.replica {
        Target::Replica
    } else if avail.primary {
        Target::FallbackPrimary
    } else {
        Target::NoServer
    }
}

/// Where a statement ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RanOn {
    pub backend: u64,
    pub is_primary: bool,
}

impl RwsState {
    /// Updates the state after `c` ran on `on`. `status` are the flags of its response's last
    /// OK/EOF, `None` when it ended with an ERR (which carries none).
    pub fn after_statement(&mut self, c: &Classification, on: RanOn, status: Option<u16>) {
        if c.pins_primary && on.is_primary {
            self.pinned = true;
        }
        let ok = status.is_some();
        match c.txn {
            TxnEffect::Begin { read_only } if ok => {
                // BEGIN inside a transaction commits it first, so this always starts afresh.
                self.txn = match (on.is_primary, read_only) {
                    (true, false) => Txn::ReadWrite,
                    (_, true) => Txn::ReadOnly { degraded: false },
                    (false, false) => Txn::ReadOnly { degraded: true },
                };
                self.txn_backend = Some(on.backend);
                self.txn_wrote = false;
            }
            TxnEffect::Commit | TxnEffect::Rollback | TxnEffect::ImplicitCommit => self.end_txn(),
            TxnEffect::SetAutocommit(v) if ok => {
                self.autocommit = v;
                if v {
                    self.end_txn();
                }
            }
            _ => {}
        }
        // Transaction boundaries carry Route::Write but write nothing themselves.
        let wrote = is_write(c) && c.txn == TxnEffect::None;
        if self.txn != Txn::None && wrote {
            self.txn_wrote = true;
        }
        if let Some(status) = status {
            self.observe_status(on, status, wrote);
        }
    }

    /// Takes the server's view (status flags of a successful answer from `on`) over the
    /// classifier's. `wrote`: the statement was a write.
    pub fn observe_status(&mut self, on: RanOn, status: u16, wrote: bool) {
        self.autocommit = status & SERVER_STATUS_AUTOCOMMIT != 0;
        let in_trans = status & SERVER_STATUS_IN_TRANS != 0;
        if in_trans && self.txn == Txn::None {
            // A transaction the classifier did not see begin (autocommit off, XA, a procedure).
            self.txn = if on.is_primary { Txn::ReadWrite } else { Txn::ReadOnly { degraded: true } };
            self.txn_backend = Some(on.backend);
            self.txn_wrote = wrote;
        } else if !in_trans && self.txn != Txn::None && self.txn_backend == Some(on.backend) && self.autocommit {
            self.end_txn();
        }
    }

    pub fn end_txn(&mut self) {
        self.txn = Txn::None;
        self.txn_backend = None;
        self.txn_wrote = false;
    }

    /// The backend holding the transaction left the session: the transaction is gone.
    pub fn backend_lost(&mut self, backend: u64) {
        if self.txn_backend == Some(backend) {
            self.end_txn();
        }
    }

    /// Whether a result may be cached or served from the cache now.
    pub fn cache_allowed(&self) -> bool {
        self.txn == Txn::None || !self.txn_wrote
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classifier::Cacheability;

    fn class(route: Route, txn: TxnEffect) -> Classification {
        Classification {
            route,
            txn,
            pins_primary: false,
            locking_read: false,
            use_database: None,
            text_prepare: None,
            cacheable: Cacheability::NotSelect,
            tables: Default::default(),
            writes: route == Route::Write,
            multi_statement: false,
        }
    }

    fn read() -> Classification {
        class(Route::Read, TxnEffect::None)
    }
    fn write() -> Classification {
        class(Route::Write, TxnEffect::None)
    }

    const BOTH: Availability = Availability { primary: true, replica: true };
    const NO_REPLICA: Availability = Availability { primary: true, replica: false };
    const NO_PRIMARY: Availability = Availability { primary: false, replica: true };
    const NONE: Availability = Availability { primary: false, replica: false };

    const OK_AUTOCOMMIT: u16 = SERVER_STATUS_AUTOCOMMIT;
    const OK_IN_TRANS: u16 = SERVER_STATUS_AUTOCOMMIT | SERVER_STATUS_IN_TRANS;
    const PRIMARY: RanOn = RanOn { backend: 1, is_primary: true };
    const REPLICA: RanOn = RanOn { backend: 2, is_primary: false };

    #[test]
    fn autocommit_reads_go_to_replicas_and_writes_to_the_primary() {
        let s = RwsState::default();
        assert_eq!(decide(&s, &read(), BOTH), Target::Replica);
        assert_eq!(decide(&s, &read(), NO_REPLICA), Target::FallbackPrimary);
        assert_eq!(decide(&s, &read(), NO_PRIMARY), Target::Replica);
        assert_eq!(decide(&s, &read(), NONE), Target::NoServer);
        assert_eq!(decide(&s, &write(), BOTH), Target::Primary);
        assert_eq!(decide(&s, &write(), NO_PRIMARY), Target::FailWrite);
        let mut locking = read();
        locking.locking_read = true;
        assert_eq!(decide(&s, &locking, BOTH), Target::Primary);
        let mut multi = read();
        multi.multi_statement = true;
        assert_eq!(decide(&s, &multi, BOTH), Target::Primary);
        let mut multi_session = class(Route::Session, TxnEffect::None);
        multi_session.multi_statement = true;
        assert_eq!(decide(&s, &multi_session, BOTH), Target::Primary);
        assert_eq!(decide(&s, &class(Route::Session, TxnEffect::None), NO_PRIMARY), Target::All);
        // Transaction boundaries are never fanned out, whatever route the classifier gave them.
        let begin = class(Route::Session, TxnEffect::Begin { read_only: false });
        assert_eq!(decide(&s, &begin, BOTH), Target::Primary);
        let commit = class(Route::Session, TxnEffect::Commit);
        assert_eq!(decide(&s, &commit, BOTH), Target::Primary);
        assert_eq!(decide(&s, &commit, NO_PRIMARY), Target::Replica, "a stray COMMIT must not fail");
        assert_eq!(decide(&s, &commit, NONE), Target::NoServer);
    }

    #[test]
    fn read_write_transaction_stays_on_the_primary_until_commit() {
        let mut s = RwsState::default();
        let begin = class(Route::Write, TxnEffect::Begin { read_only: false });
        assert_eq!(decide(&s, &begin, BOTH), Target::Primary);
        s.after_statement(&begin, PRIMARY, Some(OK_IN_TRANS));
        assert_eq!((s.txn, s.txn_backend), (Txn::ReadWrite, Some(1)));
        assert!(s.cache_allowed());
        assert_eq!(decide(&s, &read(), BOTH), Target::TxnBackend);
        s.after_statement(&read(), PRIMARY, Some(OK_IN_TRANS));
        assert!(s.cache_allowed());
        s.after_statement(&write(), PRIMARY, Some(OK_IN_TRANS));
        assert!(!s.cache_allowed(), "no caching after the transaction's first write");
        assert_eq!(decide(&s, &class(Route::Session, TxnEffect::None), BOTH), Target::All);
        let commit = class(Route::Write, TxnEffect::Commit);
        assert_eq!(decide(&s, &commit, BOTH), Target::TxnBackend);
        s.after_statement(&commit, PRIMARY, Some(OK_AUTOCOMMIT));
        assert_eq!(s.txn, Txn::None);
        assert!(s.cache_allowed());
        assert_eq!(decide(&s, &read(), BOTH), Target::Replica);
    }

    #[test]
    fn read_only_transaction_runs_on_a_replica() {
        let mut s = RwsState::default();
        let begin = class(Route::Read, TxnEffect::Begin { read_only: true });
        assert_eq!(decide(&s, &begin, BOTH), Target::Replica);
        assert_eq!(decide(&s, &begin, NO_REPLICA), Target::FallbackPrimary);
        s.after_statement(&begin, REPLICA, Some(OK_IN_TRANS));
        assert_eq!(s.txn, Txn::ReadOnly { degraded: false });
        assert_eq!(decide(&s, &read(), BOTH), Target::TxnBackend);
        // A write inside goes to the replica too, which refuses it as MariaDB would.
        assert_eq!(decide(&s, &write(), BOTH), Target::TxnBackend);
        s.after_statement(&class(Route::Write, TxnEffect::Rollback), REPLICA, Some(OK_AUTOCOMMIT));
        assert_eq!(s.txn, Txn::None);
    }

    #[test]
    fn without_primary_a_transaction_is_degraded_and_its_writes_fail() {
        let mut s = RwsState::default();
        let begin = class(Route::Write, TxnEffect::Begin { read_only: false });
        assert_eq!(decide(&s, &begin, NO_PRIMARY), Target::Replica);
        assert_eq!(decide(&s, &begin, NONE), Target::NoServer);
        s.after_statement(&begin, REPLICA, Some(OK_IN_TRANS));
        assert_eq!(s.txn, Txn::ReadOnly { degraded: true });
        assert_eq!(decide(&s, &read(), NO_PRIMARY), Target::TxnBackend);
        assert_eq!(decide(&s, &write(), BOTH), Target::FailWrite);
        assert_eq!(decide(&s, &class(Route::Write, TxnEffect::Commit), NO_PRIMARY), Target::TxnBackend);
    }

    #[test]
    fn autocommit_off_keeps_everything_on_the_primary() {
        let mut s = RwsState::default();
        let off = class(Route::Session, TxnEffect::SetAutocommit(false));
        assert_eq!(decide(&s, &off, BOTH), Target::All);
        s.after_statement(&off, PRIMARY, Some(0));
        assert!(!s.autocommit);
        assert_eq!(decide(&s, &read(), BOTH), Target::Primary);
        assert_eq!(decide(&s, &read(), NO_PRIMARY), Target::Replica, "reads go on without a primary");
        // The first statement opens an implicit transaction, seen in the status flags.
        s.after_statement(&read(), PRIMARY, Some(SERVER_STATUS_IN_TRANS));
        assert_eq!(s.txn, Txn::ReadWrite);
        let commit = class(Route::Write, TxnEffect::Commit);
        s.after_statement(&commit, PRIMARY, Some(0));
        assert_eq!(s.txn, Txn::None);
        assert_eq!(decide(&s, &read(), BOTH), Target::Primary);
        let on = class(Route::Session, TxnEffect::SetAutocommit(true));
        s.after_statement(&on, PRIMARY, Some(OK_AUTOCOMMIT));
        assert!(s.autocommit);
        assert_eq!(decide(&s, &read(), BOTH), Target::Replica);
    }

    #[test]
    fn pinning_functions_keep_the_session_on_the_primary() {
        let mut s = RwsState::default();
        let mut lid = read();
        lid.pins_primary = true;
        assert_eq!(decide(&s, &lid, BOTH), Target::Primary);
        s.after_statement(&lid, PRIMARY, Some(OK_AUTOCOMMIT));
        assert!(s.pinned);
        assert_eq!(decide(&s, &read(), BOTH), Target::Primary);
        assert_eq!(decide(&s, &read(), NO_PRIMARY), Target::Replica);
    }

    #[test]
    fn server_status_flags_are_authoritative() {
        let mut s = RwsState::default();
        // The classifier saw nothing, but the primary says a transaction is open.
        s.after_statement(&write(), PRIMARY, Some(OK_IN_TRANS));
        assert_eq!((s.txn, s.txn_wrote), (Txn::ReadWrite, true));
        // ... and later that it ended (an implicit commit the classifier missed).
        s.after_statement(&write(), PRIMARY, Some(OK_AUTOCOMMIT));
        assert_eq!(s.txn, Txn::None);
        // An ERR carries no status: the state stays.
        let begin = class(Route::Write, TxnEffect::Begin { read_only: false });
        s.after_statement(&begin, PRIMARY, Some(OK_IN_TRANS));
        s.after_statement(&write(), PRIMARY, None);
        assert_eq!(s.txn, Txn::ReadWrite);
        // A failed BEGIN does not start a transaction.
        let mut t = RwsState::default();
        t.after_statement(&begin, PRIMARY, None);
        assert_eq!(t.txn, Txn::None);
        // Losing the transaction's backend ends it.
        s.backend_lost(1);
        assert_eq!(s.txn, Txn::None);
    }
}
