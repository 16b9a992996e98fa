//! The character sets and collations Selkie accepts in `SET NAMES`, `character_set_*` /
//! `collation_*` variables, and lists in SHOW CHARACTER SET / SHOW COLLATION /
//! information_schema.
//!
//! Names, ids, descriptions and max lengths are MariaDB 10.11's. One deliberate difference: every
//! character set's *default* collation is its binary (`_bin`) collation, because Selkie compares
//! strings byte-wise (architecture §6). Claiming `utf8mb4_general_ci` as the default would promise
//! case-insensitive comparisons that never happen. The `_ci` collations stay accepted (clients
//! send them in the handshake and in `SET NAMES ... COLLATE`) and are listed as non-default.

pub(crate) struct Charset {
    pub name: &'static str,
    pub description: &'static str,
    pub default_collation: &'static str,
    pub max_len: u64,
}

pub(crate) struct Collation {
    pub name: &'static str,
    pub charset: &'static str,
    pub id: u16,
    pub is_default: bool,
    pub sort_len: u64,
}

/// In MariaDB's SHOW CHARACTER SET order (by internal id), restricted to the sets Selkie accepts.
pub(crate) static CHARSETS: &[Charset] = &[
    Charset { name: "latin1", description: "cp1252 West European", default_collation: "latin1_bin", max_len: 1 },
    Charset { name: "ascii", description: "US ASCII", default_collation: "ascii_bin", max_len: 1 },
    Charset { name: "utf8mb3", description: "UTF-8 Unicode", default_collation: "utf8mb3_bin", max_len: 3 },
    Charset { name: "utf8mb4", description: "UTF-8 Unicode", default_collation: "utf8mb4_bin", max_len: 4 },
    Charset { name: "binary", description: "Binary pseudo charset", default_collation: "binary", max_len: 1 },
];

/// In MariaDB's SHOW COLLATION order; ids are MariaDB's (they travel in handshakes and column
/// definitions).
pub(crate) static COLLATIONS: &[Collation] = &[
    Collation { name: "latin1_swedish_ci", charset: "latin1", id: 8, is_default: false, sort_len: 1 },
    Collation { name: "latin1_bin", charset: "latin1", id: 47, is_default: true, sort_len: 1 },
    Collation { name: "latin1_general_ci", charset: "latin1", id: 48, is_default: false, sort_len: 1 },
    Collation { name: "latin1_nopad_bin", charset: "latin1", id: 1071, is_default: false, sort_len: 1 },
    Collation { name: "ascii_general_ci", charset: "ascii", id: 11, is_default: false, sort_len: 1 },
    Collation { name: "ascii_bin", charset: "ascii", id: 65, is_default: true, sort_len: 1 },
    Collation { name: "ascii_nopad_bin", charset: "ascii", id: 1089, is_default: false, sort_len: 1 },
    Collation { name: "utf8mb3_general_ci", charset: "utf8mb3", id: 33, is_default: false, sort_len: 1 },
    Collation { name: "utf8mb3_bin", charset: "utf8mb3", id: 83, is_default: true, sort_len: 1 },
    Collation { name: "utf8mb3_unicode_ci", charset: "utf8mb3", id: 192, is_default: false, sort_len: 8 },
    Collation { name: "utf8mb3_unicode_520_ci", charset: "utf8mb3", id: 214, is_default: false, sort_len: 8 },
    Collation { name: "utf8mb3_nopad_bin", charset: "utf8mb3", id: 1107, is_default: false, sort_len: 1 },
    Collation { name: "utf8mb4_general_ci", charset: "utf8mb4", id: 45, is_default: false, sort_len: 1 },
    Collation { name: "utf8mb4_bin", charset: "utf8mb4", id: 46, is_default: true, sort_len: 1 },
    Collation { name: "utf8mb4_unicode_ci", charset: "utf8mb4", id: 224, is_default: false, sort_len: 8 },
    Collation { name: "utf8mb4_unicode_520_ci", charset: "utf8mb4", id: 246, is_default: false, sort_len: 8 },
    Collation { name: "utf8mb4_nopad_bin", charset: "utf8mb4", id: 1070, is_default: false, sort_len: 1 },
    Collation { name: "binary", charset: "binary", id: 63, is_default: true, sort_len: 1 },
];

/// `utf8` means utf8mb3 in MariaDB 10.11 (old_mode UTF8_IS_UTF8MB3, the default), for charset
/// names and as the prefix of collation names.
const UTF8_ALIAS: &str = "utf8";

pub(crate) fn charset(name: &str) -> Option<&'static Charset> {
    let name = if name.eq_ignore_ascii_case(UTF8_ALIAS) { "utf8mb3" } else { name };
    CHARSETS.iter().find(|c| c.name.eq_ignore_ascii_case(name))
}

pub(crate) fn collation(name: &str) -> Option<&'static Collation> {
    if let Some(found) = COLLATIONS.iter().find(|c| c.name.eq_ignore_ascii_case(name)) {
        return Some(found);
    }
    // `utf8_general_ci` → `utf8mb3_general_ci`; `utf8mb4_*` already matched above.
    let rest = name.get(..UTF8_ALIAS.len() + 1)?;
    if rest.eq_ignore_ascii_case("utf8_") {
        let full = format!("utf8mb3_{}", &name[UTF8_ALIAS.len() + 1..]);
        return COLLATIONS.iter().find(|c| c.name.eq_ignore_ascii_case(&full));
    }
    None
}

pub(crate) fn collation_by_id(id: u64) -> Option<&'static Collation> {
    COLLATIONS.iter().find(|c| u64::from(c.id) == id)
}

/// The collation Selkie actually applies to a table or column of character set `charset`
/// (unknown names fall back to utf8mb4, the only encoding Selkie stores).
pub(crate) fn effective_collation(charset_name: &str) -> &'static str {
    charset(charset_name).map(|c| c.default_collation).unwrap_or("utf8mb4_bin")
}

/// Canonical character set name for a table's stored charset ("" → utf8mb4).
pub(crate) fn effective_charset(charset_name: &str) -> &'static str {
    charset(charset_name).map(|c| c.name).unwrap_or("utf8mb4")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_collation_belongs_to_a_listed_charset_and_each_charset_has_one_default() {
        for c in COLLATIONS {
            assert!(charset(c.charset).is_some(), "{}", c.name);
            assert!(c.name.starts_with(c.charset), "{}", c.name);
        }
        for cs in CHARSETS {
            let defaults: Vec<_> = COLLATIONS.iter().filter(|c| c.charset == cs.name && c.is_default).collect();
            assert_eq!(defaults.len(), 1, "{}", cs.name);
            assert_eq!(defaults[0].name, cs.default_collation);
        }
        let mut ids: Vec<u16> = COLLATIONS.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), COLLATIONS.len(), "collation ids are unique");
    }

    #[test]
    fn aliases_and_case_insensitive_lookup() {
        assert_eq!(charset("UTF8").unwrap().name, "utf8mb3");
        assert_eq!(charset("utf8MB4").unwrap().name, "utf8mb4");
        assert!(charset("koi8r").is_none());
        assert_eq!(collation("UTF8_GENERAL_CI").unwrap().name, "utf8mb3_general_ci");
        assert_eq!(collation("utf8mb4_BIN").unwrap().id, 46);
        assert!(collation("utf8_").is_none());
        assert!(collation("x").is_none());
        assert_eq!(collation_by_id(45).unwrap().name, "utf8mb4_general_ci");
        assert_eq!(effective_collation(""), "utf8mb4_bin");
        assert_eq!(effective_collation("latin1"), "latin1_bin");
        assert_eq!(effective_charset("UTF8MB4"), "utf8mb4");
    }
}
