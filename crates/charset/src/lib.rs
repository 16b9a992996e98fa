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
mod fixed_binary;
mod tables;
mod uca;
mod weights;

pub use fixed_binary::FixedBinary;
pub use uca::UcaVersion;

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
    /// utf8mb3_general_mysql500_ci: general_ci as MySQL 5.0 had it, where 'ß' weighs as itself
    /// rather than as 'S' (the only character the two differ in, measured over the BMP).
    UnicodeGeneralMysql500,
    /// latin1_swedish_ci, ascii_general_ci: one weight per byte of the 8-bit set.
    Latin1Swedish,
    /// latin1_general_ci.
    Latin1General,
    /// latin1_general_cs: one weight per byte, case-sensitive (`tables::LATIN1_GENERAL_CS`).
    Latin1GeneralCs,
    /// UCA 4.0.0 (`*_unicode_ci` and the language collations, whose tailoring is named here)
    /// or UCA 5.2.0 (`*_unicode_520_ci`), primary level (see `uca`).
    Uca(UcaVersion, Option<&'static str>),
    /// Not a collation of text: the values of a UUID / INET4 / INET6 column or CAST, compared
    /// through their binary form (`fixed_binary`).
    FixedBinary(FixedBinary),
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
    /// The UCA weigher of a `Weighing::Uca` collation, built at first use.
    uca: std::sync::OnceLock<&'static uca::Uca>,
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
    CollationDef { name, charset, id, is_default, sort_len, pad_space, weighing, uca: std::sync::OnceLock::new() }
}

/// A UCA collation: MariaDB's Sortlen of those is 8.
const fn uca(
    name: &'static str,
    charset: &'static str,
    id: u16,
    version: UcaVersion,
    language: Option<&'static str>,
) -> CollationDef {
    coll(name, charset, id, false, 8, Weighing::Uca(version, language))
}

const V400: UcaVersion = UcaVersion::V400;
const V520: UcaVersion = UcaVersion::V520;

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
pub static COLLATIONS: &[CollationDef] = &COLLATION_LIST;

// An array of its own: a static slice may not borrow a temporary that holds a `OnceLock`.
static COLLATION_LIST: [CollationDef; 74] = [
    coll("latin1_swedish_ci", "latin1", 8, true, 1, Latin1Swedish),
    coll("latin1_bin", "latin1", 47, false, 1, CodePoint),
    coll("latin1_general_ci", "latin1", 48, false, 1, Latin1General),
    coll("latin1_general_cs", "latin1", 49, false, 1, Latin1GeneralCs),
    coll("latin1_swedish_nopad_ci", "latin1", 1032, false, 1, Latin1Swedish),
    coll("latin1_nopad_bin", "latin1", 1071, false, 1, CodePoint),
    coll("ascii_general_ci", "ascii", 11, true, 1, Latin1Swedish),
    coll("ascii_bin", "ascii", 65, false, 1, CodePoint),
    coll("ascii_general_nopad_ci", "ascii", 1035, false, 1, Latin1Swedish),
    coll("ascii_nopad_bin", "ascii", 1089, false, 1, CodePoint),
    coll("utf8mb3_general_ci", "utf8mb3", 33, true, 1, UnicodeGeneral),
    coll("utf8mb3_bin", "utf8mb3", 83, false, 1, CodePoint),
    uca("utf8mb3_unicode_ci", "utf8mb3", 192, V400, None),
    uca("utf8mb3_icelandic_ci", "utf8mb3", 193, V400, Some("icelandic")),
    uca("utf8mb3_latvian_ci", "utf8mb3", 194, V400, Some("latvian")),
    uca("utf8mb3_romanian_ci", "utf8mb3", 195, V400, Some("romanian")),
    uca("utf8mb3_slovenian_ci", "utf8mb3", 196, V400, Some("slovenian")),
    uca("utf8mb3_polish_ci", "utf8mb3", 197, V400, Some("polish")),
    uca("utf8mb3_estonian_ci", "utf8mb3", 198, V400, Some("estonian")),
    uca("utf8mb3_spanish_ci", "utf8mb3", 199, V400, Some("spanish")),
    uca("utf8mb3_swedish_ci", "utf8mb3", 200, V400, Some("swedish")),
    uca("utf8mb3_turkish_ci", "utf8mb3", 201, V400, Some("turkish")),
    uca("utf8mb3_czech_ci", "utf8mb3", 202, V400, Some("czech")),
    uca("utf8mb3_danish_ci", "utf8mb3", 203, V400, Some("danish")),
    uca("utf8mb3_lithuanian_ci", "utf8mb3", 204, V400, Some("lithuanian")),
    uca("utf8mb3_slovak_ci", "utf8mb3", 205, V400, Some("slovak")),
    uca("utf8mb3_spanish2_ci", "utf8mb3", 206, V400, Some("spanish2")),
    uca("utf8mb3_roman_ci", "utf8mb3", 207, V400, Some("roman")),
    uca("utf8mb3_persian_ci", "utf8mb3", 208, V400, Some("persian")),
    uca("utf8mb3_esperanto_ci", "utf8mb3", 209, V400, Some("esperanto")),
    uca("utf8mb3_hungarian_ci", "utf8mb3", 210, V400, Some("hungarian")),
    uca("utf8mb3_sinhala_ci", "utf8mb3", 211, V400, Some("sinhala")),
    uca("utf8mb3_german2_ci", "utf8mb3", 212, V400, Some("german2")),
    uca("utf8mb3_croatian_mysql561_ci", "utf8mb3", 213, V400, Some("croatian_mysql561")),
    uca("utf8mb3_unicode_520_ci", "utf8mb3", 214, V520, None),
    uca("utf8mb3_vietnamese_ci", "utf8mb3", 215, V400, Some("vietnamese")),
    coll("utf8mb3_general_mysql500_ci", "utf8mb3", 223, false, 1, UnicodeGeneralMysql500),
    uca("utf8mb3_croatian_ci", "utf8mb3", 576, V400, Some("croatian")),
    coll("utf8mb3_general_nopad_ci", "utf8mb3", 1057, false, 1, UnicodeGeneral),
    coll("utf8mb3_nopad_bin", "utf8mb3", 1107, false, 1, CodePoint),
    uca("utf8mb3_unicode_nopad_ci", "utf8mb3", 1216, V400, None),
    uca("utf8mb3_unicode_520_nopad_ci", "utf8mb3", 1238, V520, None),
    coll("utf8mb4_general_ci", "utf8mb4", 45, true, 1, UnicodeGeneral),
    coll("utf8mb4_bin", "utf8mb4", 46, false, 1, CodePoint),
    uca("utf8mb4_unicode_ci", "utf8mb4", 224, V400, None),
    uca("utf8mb4_icelandic_ci", "utf8mb4", 225, V400, Some("icelandic")),
    uca("utf8mb4_latvian_ci", "utf8mb4", 226, V400, Some("latvian")),
    uca("utf8mb4_romanian_ci", "utf8mb4", 227, V400, Some("romanian")),
    uca("utf8mb4_slovenian_ci", "utf8mb4", 228, V400, Some("slovenian")),
    uca("utf8mb4_polish_ci", "utf8mb4", 229, V400, Some("polish")),
    uca("utf8mb4_estonian_ci", "utf8mb4", 230, V400, Some("estonian")),
    uca("utf8mb4_spanish_ci", "utf8mb4", 231, V400, Some("spanish")),
    uca("utf8mb4_swedish_ci", "utf8mb4", 232, V400, Some("swedish")),
    uca("utf8mb4_turkish_ci", "utf8mb4", 233, V400, Some("turkish")),
    uca("utf8mb4_czech_ci", "utf8mb4", 234, V400, Some("czech")),
    uca("utf8mb4_danish_ci", "utf8mb4", 235, V400, Some("danish")),
    uca("utf8mb4_lithuanian_ci", "utf8mb4", 236, V400, Some("lithuanian")),
    uca("utf8mb4_slovak_ci", "utf8mb4", 237, V400, Some("slovak")),
    uca("utf8mb4_spanish2_ci", "utf8mb4", 238, V400, Some("spanish2")),
    uca("utf8mb4_roman_ci", "utf8mb4", 239, V400, Some("roman")),
    uca("utf8mb4_persian_ci", "utf8mb4", 240, V400, Some("persian")),
    uca("utf8mb4_esperanto_ci", "utf8mb4", 241, V400, Some("esperanto")),
    uca("utf8mb4_hungarian_ci", "utf8mb4", 242, V400, Some("hungarian")),
    uca("utf8mb4_sinhala_ci", "utf8mb4", 243, V400, Some("sinhala")),
    uca("utf8mb4_german2_ci", "utf8mb4", 244, V400, Some("german2")),
    uca("utf8mb4_croatian_mysql561_ci", "utf8mb4", 245, V400, Some("croatian_mysql561")),
    uca("utf8mb4_unicode_520_ci", "utf8mb4", 246, V520, None),
    uca("utf8mb4_vietnamese_ci", "utf8mb4", 247, V400, Some("vietnamese")),
    uca("utf8mb4_croatian_ci", "utf8mb4", 608, V400, Some("croatian")),
    coll("utf8mb4_general_nopad_ci", "utf8mb4", 1069, false, 1, UnicodeGeneral),
    coll("utf8mb4_nopad_bin", "utf8mb4", 1070, false, 1, CodePoint),
    uca("utf8mb4_unicode_nopad_ci", "utf8mb4", 1248, V400, None),
    uca("utf8mb4_unicode_520_nopad_ci", "utf8mb4", 1270, V520, None),
    coll("binary", "binary", 63, true, 1, Binary),
];

/// The pseudo collations of the fixed binary types: not in `COLLATIONS` (SHOW COLLATION does
/// not list them, no name finds them); ids past MariaDB's, never sent to a client (a value of
/// such a type is described as the connection's text).
static FIXED_BINARY_COLLATIONS: [CollationDef; 3] = [
    fixed_binary_collation("uuid", 4001, FixedBinary::Uuid),
    fixed_binary_collation("inet4", 4002, FixedBinary::Inet4),
    fixed_binary_collation("inet6", 4003, FixedBinary::Inet6),
];

const fn fixed_binary_collation(name: &'static str, id: u16, kind: FixedBinary) -> CollationDef {
    // MariaDB reports these types' values as latin1 (CHARSET(uuid_column) is latin1).
    CollationDef {
        name,
        charset: "latin1",
        id,
        is_default: false,
        sort_len: 1,
        pad_space: false,
        weighing: Weighing::FixedBinary(kind),
        uca: std::sync::OnceLock::new(),
    }
}

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
        collation_def_by_id(id)
            .or_else(|| FIXED_BINARY_COLLATIONS.iter().find(|c| u64::from(c.id) == id))
            .map(Collation)
    }
    /// The pseudo collation of a fixed binary type's values (see `fixed_binary`).
    pub fn fixed_binary(kind: FixedBinary) -> Collation {
        Collation(match kind {
            FixedBinary::Uuid => &FIXED_BINARY_COLLATIONS[0],
            FixedBinary::Inet4 => &FIXED_BINARY_COLLATIONS[1],
            FixedBinary::Inet6 => &FIXED_BINARY_COLLATIONS[2],
        })
    }
    /// The fixed binary type whose values this pseudo collation compares; None for text.
    pub fn fixed_binary_kind(self) -> Option<FixedBinary> {
        match self.0.weighing {
            Weighing::FixedBinary(kind) => Some(kind),
            _ => None,
        }
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
    /// The UCA weigher of a UCA collation.
    #[inline]
    pub(crate) fn uca(self) -> Option<&'static uca::Uca> {
        match self.0.weighing {
            Weighing::Uca(version, language) => Some(self.0.uca.get_or_init(|| uca::build(version, language))),
            _ => None,
        }
    }
    /// A UCA collation (`*_unicode_ci`, `*_unicode_520_ci`, the language ones).
    pub fn is_uca(self) -> bool {
        matches!(self.0.weighing, Weighing::Uca(..))
    }
    /// The general_ci collation of this collation's character set (utf8mb3's and utf8mb4's
    /// weigh alike), PAD SPACE.
    pub fn general_ci_of_charset(self) -> Collation {
        by_name(if self.0.charset == "utf8mb3" { "utf8mb3_general_ci" } else { "utf8mb4_general_ci" })
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
    /// The NO PAD UTF-8 `_bin` collations compare bytes (UTF-8's byte order is its code point
    /// order); the PAD SPACE ones weigh, as a trailing space must not count ('a' = 'a ').
    pub fn weighs_characters(self) -> bool {
        match self.0.weighing {
            Weighing::Binary => false,
            Weighing::CodePoint => self.0.charset == "latin1" || self.0.pad_space,
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
