//! Name lookup in the table of system variables.

use super::def::{Kind, Slot, VarDef, MAX_VARIABLE_NAME_LEN};
use super::table::VARIABLES;

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
    use crate::variables::def::Init;

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
