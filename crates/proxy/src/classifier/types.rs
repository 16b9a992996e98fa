//! What a classification says about a statement: its route, its effect on the transaction,
//! whether its result may be cached, and the tables it names. A leaf below the scanners that
//! compute them and the classifier that merges their outcomes.

/// Where a statement may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Provably read-only: a replica may run it (outside read-write transactions).
    Read,
    /// Writes, locking reads, and anything not provably read-only: the primary.
    Write,
    /// Changes session state (SET, USE, SET NAMES, PREPARE text): every backend of the session.
    Session,
}

/// What the statement does to the transaction state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxnEffect {
    None,
    /// BEGIN, START TRANSACTION [READ WRITE|READ ONLY|WITH CONSISTENT SNAPSHOT], XA START.
    Begin {
        read_only: bool,
    },
    Commit,
    Rollback,
    /// DDL and other statements that commit implicitly (CREATE/ALTER/DROP/TRUNCATE/RENAME,
    /// LOCK TABLES, ...).
    ImplicitCommit,
    /// SET autocommit = 0|1 (1 also commits).
    SetAutocommit(bool),
}

/// Whether a SELECT's result may be cached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cacheability {
    /// Not a SELECT (or a locking SELECT): never cached.
    NotSelect,
    /// A SELECT with nothing that makes its result depend on time, randomness or session state.
    Cacheable,
    /// A SELECT using NOW(), RAND(), UUID(), user variables, @@session variables, CONNECTION_ID(),
    /// LAST_INSERT_ID(), FOUND_ROWS(), sequences, ... (rejected by `selects = verify_cacheable`).
    NonDeterministic,
}

/// A table a statement names: optional database and the table name, as written (unquoted).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableRef {
    pub db: Option<String>,
    pub table: String,
}
