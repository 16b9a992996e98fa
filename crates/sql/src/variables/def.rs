//! What defines a system variable: scope, access, type and default. A leaf below the table
//! that lists every variable (`table`) and the lookups over it (`registry`).

/// Longest variable name we look up; longer names cannot exist (MariaDB's longest is < 64).
pub(crate) const MAX_VARIABLE_NAME_LEN: usize = 64;

/// Where a variable lives, as MariaDB's `VARIABLE_SCOPE` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// GLOBAL only (`SET GLOBAL`; `@@session.x` is an error).
    Global,
    /// Both: a global value, copied into each new session, then set per session.
    Both,
    /// SESSION ONLY: per-connection state (`last_insert_id`, `timestamp`, ...).
    SessionOnly,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    ReadWrite,
    /// Only the server sets it (version, port, datadir ...): 1238.
    ReadOnly,
    /// Settable with SET GLOBAL only; the session copy is fixed at connect (1621).
    SessionReadOnly,
}

/// A variable's type: what values it accepts and how it is stored (see `convert`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    /// ON/OFF; stored as Int 0/1 so that `SELECT @@autocommit` is the integer 1.
    Bool,
    /// Unsigned integer, clamped to [min, max] and rounded down to a multiple of `block`
    /// with warning 1292, as MariaDB does.
    UInt {
        min: u64,
        max: u64,
        block: u64,
    },
    Int {
        min: i64,
        max: i64,
    },
    /// Stored as a DECIMAL with 6 digits after the point (how MariaDB prints them).
    Double {
        min: f64,
        max: f64,
    },
    Enum(&'static [&'static str]),
    /// Comma-separated subset, printed in member order.
    Set(&'static [&'static str]),
    /// sql_mode: a set with combination modes (ANSI, TRADITIONAL, ...).
    SqlMode,
    /// Free text (only string values are accepted, as in MariaDB).
    Str {
        nullable: bool,
    },
    Charset {
        nullable: bool,
    },
    Collation,
    /// 'SYSTEM' or a '+hh:mm' offset.
    TimeZone,
    StorageEngine {
        nullable: bool,
    },
    Locale,
    /// Another name for the variable named here (shares its value).
    AliasOf(&'static str),
}

/// The compiled-in value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Init {
    Null,
    Bool(bool),
    UInt(u64),
    Int(i64),
    Double(f64),
    Str(&'static str),
}

#[derive(Debug)]
pub(crate) struct VarDef {
    /// Lower case, as SHOW VARIABLES prints it.
    pub name: &'static str,
    pub scope: Scope,
    pub access: Access,
    pub kind: Kind,
    pub init: Init,
}

/// Index of a variable in the table; also the index of its value in the global and session
/// value vectors.
pub(crate) type Slot = usize;
