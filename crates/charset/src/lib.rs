//! Character sets and collations as MariaDB 10.11 names and numbers them: the tables SHOW
//! CHARACTER SET / SHOW COLLATION / information_schema list, the `Collation` handle that string
//! types carry, and (in the submodules) what a collation does to strings.
//!
//! A crate of its own, below both `selkie-sql` and `selkie-storage` (it depends on no other
//! Selkie crate): the SQL layer's value layer compares and sorts text through a `Collation`,
//! its binder names collations in `COLLATE x` and introducers, and `variables` validates
//! `SET NAMES` against these tables; the storage layer's key encoding builds index keys from
//! sort keys (so an index on a `_ci` column orders and enforces UNIQUE as the collation does).
//!
//! Text values travel through the executor as utf8mb4 bytes whatever their declared character
//! set; the character set of a string type says which characters it can hold (what a store
//! into a latin1 column must convert) and is what CHARSET() reports. The collation decides
//! comparison, sorting, grouping and LIKE.

pub mod convert;
mod tables;
mod weights;

/// A character set MariaDB knows and Selkie accepts.
pub struct CharsetDef {
    pub name: &'static str,
    pub description: &'static str,
    /// MariaDB's default collation of the set (SHOW CHARACTER SET's `Default collation`).
    pub default_collation: &'static str,
    /// Most bytes one character takes.
    pub max_len: u64,
}

/// How a collation weighs characters (see `weights`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weighing {
    /// Bytes as they are (the `binary` pseudo collation: BINARY/VARBINARY/BLOB).
    Binary,
    /// Code point order (`*_bin`): for UTF-8 the same as byte order.
    CodePoint,
    /// MariaDB's `*_general_ci` for utf8mb3/utf8mb4: one weight per character, case and
    /// accents folded for the BMP, every supplementary character weighs U+FFFD.
    UnicodeGeneral,
    /// latin1_swedish_ci, ascii_general_ci: one weight per byte of the 8-bit set.
    Latin1Swedish,
    /// latin1_general_ci.
    Latin1General,
    /// UCA 4.0.0 (`*_unicode_ci`) and UCA 5.2.0 (`*_unicode_520_ci`): weighed as general_ci
    /// until the DUCET tables are built in (the difference shows in a few scripts only).
    Uca400,
    Uca520,
}

/// A collation: MariaDB's name and id, its character set, and how it compares.
pub struct CollationDef {
    pub name: &'static str,
    pub charset: &'static str,
    pub id: u16,
    pub is_default: bool,
    pub sort_len: u64,
    /// PAD SPACE (trailing spaces ignored in comparisons, as MariaDB's `*_ci` and `*_bin`) or
    /// NO PAD (`*_nopad_*`, `binary`).
    pub pad_space: bool,
    pub weighing: Weighing,
}

/// In MariaDB's SHOW CHARACTER SET order (by internal id), restricted to the sets Selkie accepts.
pub static CHARSETS: &[CharsetDef] = &[
    CharsetDef {
        name: "latin1",
        description: "cp1252 West European",
        default_collation: "latin1_swedish_ci",
        max_len: 1,
    },
    CharsetDef { name: "ascii", description: "US ASCII", default_collation: "ascii_general_ci", max_len: 1 },
    CharsetDef { name: "utf8mb3", description: "UTF-8 Unicode", default_collation: "utf8mb3_general_ci", max_len: 3 },
    CharsetDef { name: "utf8mb4", description: "UTF-8 Unicode", default_collation: "utf8mb4_general_ci", max_len: 4 },
    CharsetDef { name: "binary", description: "Binary pseudo charset", default_collation: "binary", max_len: 1 },
];

const fn coll(
    name: &'static str,
    charset: &'static str,
    id: u16,
    is_default: bool,
    sort_len: u64,
    weighing: Weighing,
) -> CollationDef {
    // MariaDB's NO PAD collations say so in their names (and `binary` is NO PAD).
    let pad_space = !matches!(weighing, Weighing::Binary) && !contains_nopad(name.as_bytes());
    CollationDef { name, charset, id, is_default, sort_len, pad_space, weighing }
}

const fn contains_nopad(name: &[u8]) -> bool {
    let pat = b"_nopad_";
    let mut i = 0;
    while i + pat.len() <= name.len() {
        let mut j = 0;
        while j < pat.len() && name[i + j] == pat[j] {
            j += 1;
        }
        if j == pat.len() {
            return true;
        }
        i += 1;
    }
    false
}

use Weighing::*;

/// In MariaDB's SHOW COLLATION order; ids are MariaDB's (they travel in handshakes and column
/// definitions).
pub static COLLATIONS: &[CollationDef] = &[
    coll("latin1_swedish_ci", "latin1", 8, true, 1, Latin1Swedish),
    coll("latin1_bin", "latin1", 47, false, 1, CodePoint),
    coll("latin1_general_ci", "latin1", 48, false, 1, Latin1General),
    coll("latin1_swedish_nopad_ci", "latin1", 1032, false, 1, Latin1Swedish),
    coll("latin1_nopad_bin", "latin1", 1071, false, 1, CodePoint),
    coll("ascii_general_ci", "ascii", 11, true, 1, Latin1Swedish),
    coll("ascii_bin", "ascii", 65, false, 1, CodePoint),
    coll("ascii_general_nopad_ci", "ascii", 1035, false, 1, Latin1Swedish),
    coll("ascii_nopad_bin", "ascii", 1089, false, 1, CodePoint),
    coll("utf8mb3_general_ci", "utf8mb3", 33, true, 1, UnicodeGeneral),
    coll("utf8mb3_bin", "utf8mb3", 83, false, 1, CodePoint),
    coll("utf8mb3_unicode_ci", "utf8mb3", 192, false, 8, Uca400),
    coll("utf8mb3_unicode_520_ci", "utf8mb3", 214, false, 8, Uca520),
    coll("utf8mb3_general_nopad_ci", "utf8mb3", 1057, false, 1, UnicodeGeneral),
    coll("utf8mb3_nopad_bin", "utf8mb3", 1107, false, 1, CodePoint),
    coll("utf8mb4_general_ci", "utf8mb4", 45, true, 1, UnicodeGeneral),
    coll("utf8mb4_bin", "utf8mb4", 46, false, 1, CodePoint),
    coll("utf8mb4_unicode_ci", "utf8mb4", 224, false, 8, Uca400),
    coll("utf8mb4_unicode_520_ci", "utf8mb4", 246, false, 8, Uca520),
    coll("utf8mb4_general_nopad_ci", "utf8mb4", 1069, false, 1, UnicodeGeneral),
    coll("utf8mb4_nopad_bin", "utf8mb4", 1070, false, 1, CodePoint),
    coll("binary", "binary", 63, true, 1, Binary),
];

/// `utf8` means utf8mb3 in MariaDB 10.11 (old_mode UTF8_IS_UTF8MB3, the default), for charset
/// names and as the prefix of collation names.
const UTF8_ALIAS: &str = "utf8";

pub fn charset(name: &str) -> Option<&'static CharsetDef> {
    let name = if name.eq_ignore_ascii_case(UTF8_ALIAS) { "utf8mb3" } else { name };
    CHARSETS.iter().find(|c| c.name.eq_ignore_ascii_case(name))
}

/// A collation by name (`utf8_*` names are utf8mb3's).
pub fn collation_def(name: &str) -> Option<&'static CollationDef> {
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

pub fn collation_def_by_id(id: u64) -> Option<&'static CollationDef> {
    COLLATIONS.iter().find(|c| u64::from(c.id) == id)
}

/// A collation as string types carry it: a copyable handle on its static definition.
#[derive(Clone, Copy)]
pub struct Collation(&'static CollationDef);

impl PartialEq for Collation {
    fn eq(&self, other: &Collation) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for Collation {}

impl std::fmt::Debug for Collation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

impl std::hash::Hash for Collation {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.id.hash(state)
    }
}

fn by_name(name: &str) -> Collation {
    Collation(collation_def(name).expect("a collation in COLLATIONS"))
}

impl Collation {
    pub fn named(name: &str) -> Option<Collation> {
        collation_def(name).map(Collation)
    }
    pub fn by_id(id: u64) -> Option<Collation> {
        collation_def_by_id(id).map(Collation)
    }
    /// The default collation of character set `name`.
    pub fn default_of(charset_name: &str) -> Option<Collation> {
        charset(charset_name).and_then(|c| Collation::named(c.default_collation))
    }
    pub fn utf8mb4_general_ci() -> Collation {
        static C: std::sync::LazyLock<Collation> = std::sync::LazyLock::new(|| by_name("utf8mb4_general_ci"));
        *C
    }
    pub fn utf8mb4_bin() -> Collation {
        static C: std::sync::LazyLock<Collation> = std::sync::LazyLock::new(|| by_name("utf8mb4_bin"));
        *C
    }
    pub fn binary() -> Collation {
        static C: std::sync::LazyLock<Collation> = std::sync::LazyLock::new(|| by_name("binary"));
        *C
    }
    pub fn def(self) -> &'static CollationDef {
        self.0
    }
    pub fn name(self) -> &'static str {
        self.0.name
    }
    pub fn id(self) -> u16 {
        self.0.id
    }
    pub fn charset_name(self) -> &'static str {
        self.0.charset
    }
    pub fn charset(self) -> &'static CharsetDef {
        charset(self.0.charset).expect("every collation's charset is listed")
    }
    pub fn is_binary(self) -> bool {
        self.0.weighing == Weighing::Binary
    }
    /// Comparison is plain byte order (`binary`, and the NO PAD `_bin` collations of UTF-8 and
    /// the 8-bit sets, whose code point order is byte order).
    pub fn is_bytewise(self) -> bool {
        matches!(self.0.weighing, Weighing::Binary | Weighing::CodePoint) && !self.0.pad_space
    }
    pub fn pad_space(self) -> bool {
        self.0.pad_space
    }
    /// Comparisons in this collation weigh characters (`_ci`, latin1) instead of comparing
    /// the UTF-8 bytes: expressions compare, group and sort through sort keys.
    ///
    /// The UTF-8 `_bin` collations compare bytes (UTF-8's byte order is its code point order)
    /// without PAD SPACE for now: index keys hold the bytes, and a scan must find what an
    /// index lookup finds.
    pub fn weighs_characters(self) -> bool {
        match self.0.weighing {
            Weighing::Binary => false,
            Weighing::CodePoint => self.0.charset == "latin1",
            _ => true,
        }
    }
}

/// MariaDB's coercibility of an expression's collation (COERCIBILITY()): lower wins when two
/// operands' collations differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Derivation {
    /// `COLLATE x`.
    Explicit = 0,
    /// Two columns of different collations combined (CONCAT(a_ci, b_bin)).
    None = 1,
    /// A column, a user variable, a CAST.
    Implicit = 2,
    /// USER(), DATABASE(), VERSION(), @@system_variable.
    SysConst = 3,
    /// A string literal.
    Coercible = 4,
    /// A number or temporal value.
    Numeric = 5,
    /// NULL.
    Ignorable = 6,
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
    fn aliases_pad_and_lookup() {
        assert_eq!(charset("UTF8").unwrap().name, "utf8mb3");
        assert_eq!(Collation::named("UTF8_GENERAL_CI").unwrap().name(), "utf8mb3_general_ci");
        assert_eq!(Collation::named("utf8mb4_BIN").unwrap().id(), 46);
        assert!(Collation::named("utf8_").is_none());
        assert_eq!(Collation::by_id(45).unwrap(), Collation::utf8mb4_general_ci());
        assert!(Collation::utf8mb4_bin().pad_space());
        assert!(!Collation::named("utf8mb4_nopad_bin").unwrap().pad_space());
        assert!(Collation::named("utf8mb4_nopad_bin").unwrap().is_bytewise());
        assert!(!Collation::binary().pad_space());
        assert_eq!(Collation::default_of("latin1").unwrap().name(), "latin1_swedish_ci");
    }
}
