//! Definitions of system variables (scope, type, default) and name lookup.

use super::table::VARIABLES;

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

pub(crate) fn all() -> &'static [VarDef] {
    VARIABLES
}

pub(crate) fn def(slot: Slot) -> &'static VarDef {
    &VARIABLES[slot]
}

/// Case-insensitive lookup of the variable's own entry (aliases are returned as themselves).
pub(crate) fn find(name: &str) -> Option<Slot> {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_VARIABLE_NAME_LEN {
        return None;
    }
    let mut buf = [0u8; MAX_VARIABLE_NAME_LEN];
    let lower = &mut buf[..bytes.len()];
    lower.copy_from_slice(bytes);
    lower.make_ascii_lowercase();
    VARIABLES.binary_search_by(|d| d.name.as_bytes().cmp(lower)).ok()
}

/// The slot that stores the value of `slot` (itself unless it is an alias).
pub(crate) fn storage_slot(slot: Slot) -> Slot {
    match VARIABLES[slot].kind {
        Kind::AliasOf(target) => {
            let t = find(target).expect("alias target is in the table");
            debug_assert!(!matches!(VARIABLES[t].kind, Kind::AliasOf(_)), "aliases are one level deep");
            t
        }
        _ => slot,
    }
}

/// Slot of a variable the code refers to by name; the table must contain it.
pub(crate) fn slot_of(name: &'static str) -> Slot {
    match find(name) {
        Some(s) => s,
        None => panic!("system variable {name} missing from the table"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_lowercase_and_unique() {
        for pair in VARIABLES.windows(2) {
            assert!(pair[0].name < pair[1].name, "{} !< {}", pair[0].name, pair[1].name);
        }
        for d in VARIABLES {
            assert_eq!(d.name, d.name.to_ascii_lowercase());
            assert!(d.name.len() <= MAX_VARIABLE_NAME_LEN);
        }
        assert!(VARIABLES.len() >= 200, "at least ~200 of MariaDB's variables");
    }

    #[test]
    fn aliases_point_at_real_variables_with_the_same_scope() {
        for (slot, d) in VARIABLES.iter().enumerate() {
            if let Kind::AliasOf(target) = d.kind {
                let t = find(target).unwrap_or_else(|| panic!("{} → {target}", d.name));
                assert_ne!(t, slot);
                assert_eq!(storage_slot(slot), t);
                assert_eq!(VARIABLES[t].scope, d.scope, "{}", d.name);
            } else {
                assert_eq!(storage_slot(slot), slot);
            }
        }
    }

    #[test]
    fn lookup_is_case_insensitive_and_bounded() {
        assert_eq!(find("AutoCommit"), find("autocommit"));
        assert!(find("autocommit").is_some());
        assert!(find("no_such_variable").is_none());
        assert!(find("").is_none());
        assert!(find(&"a".repeat(MAX_VARIABLE_NAME_LEN + 1)).is_none());
        // Non-ASCII input is just unknown, never a panic.
        assert!(find("autocommït").is_none());
    }

    #[test]
    fn defaults_fit_their_kinds() {
        for d in VARIABLES {
            match (d.kind, d.init) {
                (Kind::Bool, Init::Bool(_)) | (Kind::AliasOf(_), Init::Null) => {}
                (Kind::UInt { min, max, .. }, Init::UInt(v)) => assert!(v >= min && v <= max, "{}", d.name),
                (Kind::Int { min, max }, Init::Int(v)) => assert!(v >= min && v <= max, "{}", d.name),
                (Kind::Double { min, max }, Init::Double(v)) => assert!(v >= min && v <= max, "{}", d.name),
                (Kind::Enum(members), Init::Str(v)) => assert!(members.contains(&v), "{}", d.name),
                (Kind::Set(members), Init::Str(v)) => {
                    assert!(v.is_empty() || v.split(',').all(|m| members.contains(&m)), "{}", d.name)
                }
                (Kind::SqlMode | Kind::Str { .. } | Kind::Charset { .. } | Kind::Collation, Init::Str(_)) => {}
                (Kind::TimeZone | Kind::StorageEngine { .. } | Kind::Locale, Init::Str(_)) => {}
                (Kind::Str { nullable: true } | Kind::StorageEngine { nullable: true }, Init::Null) => {}
                (kind, init) => panic!("{}: default {init:?} does not fit {kind:?}", d.name),
            }
        }
    }
}
