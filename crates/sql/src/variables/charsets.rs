//! The character sets and collations `SET NAMES`, the `character_set_*` / `collation_*`
//! variables and SHOW accept: those of `crate::charset`, MariaDB's names, ids and defaults.
//!
//! Tables created since index keys hold sort keys (`KEY_FORMAT_COLLATED`) give every character
//! column its collation (the table's by default, MariaDB's rules); a column of an older table
//! without one is compared in its character set's binary (`_bin`) collation, which
//! `effective_collation` names for SHOW CREATE TABLE and information_schema.

pub(crate) use crate::charset::{
    charset, collation_def as collation, collation_def_by_id as collation_by_id, CHARSETS, COLLATIONS,
};

/// The collation Selkie applies to a table or column of character set `charset_name`
/// (unknown names fall back to utf8mb4, the only encoding Selkie stores).
pub(crate) fn effective_collation(charset_name: &str) -> &'static str {
    match charset(charset_name).map(|c| c.name) {
        Some("latin1") => "latin1_bin",
        Some("ascii") => "ascii_bin",
        Some("utf8mb3") => "utf8mb3_bin",
        Some("binary") => "binary",
        _ => "utf8mb4_bin",
    }
}

/// The default collation of a table as SHOW CREATE TABLE and information_schema show it: its
/// own for a table created since columns inherit it, else `effective_collation`'s.
pub(crate) fn table_collation(t: &selkie_storage::TableDef) -> &'static str {
    let own = crate::charset::Collation::named(&t.options.collation);
    match own {
        Some(c) if t.options.key_format >= selkie_storage::KEY_FORMAT_COLLATED => c.name(),
        _ => effective_collation(effective_charset(&t.options.charset)),
    }
}

/// A database's default collation (what its new tables inherit).
pub(crate) fn database_collation(d: &selkie_storage::DatabaseDef) -> &'static str {
    crate::charset::Collation::named(&d.collation).map(|c| c.name()).unwrap_or_else(|| effective_collation(&d.charset))
}

/// Canonical character set name for a table's stored charset ("" → utf8mb4).
pub(crate) fn effective_charset(charset_name: &str) -> &'static str {
    charset(charset_name).map(|c| c.name).unwrap_or("utf8mb4")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_and_case_insensitive_lookup() {
        assert_eq!(charset("UTF8").unwrap().name, "utf8mb3");
        assert_eq!(charset("utf8MB4").unwrap().name, "utf8mb4");
        assert!(charset("koi8r").is_none());
        assert_eq!(collation("UTF8_GENERAL_CI").unwrap().name, "utf8mb3_general_ci");
        assert_eq!(collation("utf8mb4_BIN").unwrap().id, 46);
        assert_eq!(collation_by_id(45).unwrap().name, "utf8mb4_general_ci");
        assert_eq!(effective_collation(""), "utf8mb4_bin");
        assert_eq!(effective_collation("latin1"), "latin1_bin");
        assert_eq!(effective_charset("UTF8MB4"), "utf8mb4");
    }
}
