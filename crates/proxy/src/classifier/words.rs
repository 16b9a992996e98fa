//! Word tables: the keywords the statement scanner reacts to, and MariaDB's built-in
//! functions with what they imply for routing and caching.
//!
//! An identifier followed by `(` that is neither a structural keyword nor a built-in is a
//! stored function (or a UDF): it may write anything, so the classifier treats it as a write of
//! unknown tables, as MaxScale does by default.

/// Longest word the tables hold; longer words are neither keywords nor built-ins.
pub(crate) const MAX_WORD_LEN: usize = 32;

/// Lowercases `word` into `buf`, or None when it is too long to be in any table.
pub(crate) fn lowercase_word<'b>(word: &[u8], buf: &'b mut [u8; MAX_WORD_LEN]) -> Option<&'b [u8]> {
    if word.len() > MAX_WORD_LEN {
        return None;
    }
    let out = &mut buf[..word.len()];
    out.copy_from_slice(word);
    out.make_ascii_lowercase();
    Some(out)
}

/// What a word means to the body scanner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kw {
    /// An identifier, or a keyword the scanner does not react to.
    Other,
    /// A reserved word that may precede `(` without calling anything (`IN (`, `OVER (`, ...).
    Structural,
    From,
    /// JOIN, STRAIGHT_JOIN.
    Join,
    On,
    Using,
    /// A keyword that ends a table list (WHERE, GROUP, ORDER, LIMIT, UNION, SET, ...).
    ClauseEnd,
    Values,
    Select,
    With,
    As,
    For,
    Lock,
    Into,
    /// DUAL, LATERAL: may stand where a table name does, but are not tables.
    NotATable,
    Next,
    Previous,
    /// A reserved word that reads the clock or the session: CURRENT_TIMESTAMP, CURRENT_USER...
    TimeOrSession,
    CalcFoundRows,
    /// INSERT / REPLACE (also string functions), UPDATE, DELETE.
    Dml,
}

impl Kw {
    /// Whether `word (` with this keyword is syntax rather than a function call.
    pub fn is_structural(self) -> bool {
        !matches!(
            self,
            Kw::Other | Kw::Next | Kw::Previous | Kw::TimeOrSession | Kw::CalcFoundRows | Kw::Dml | Kw::NotATable
        )
    }
}

/// The keywords the body scanner reacts to (sorted for reading; looked up by hash).
static BODY_KEYWORDS: &[(&[u8], Kw)] = &[
    (b"against", Kw::Structural),
    (b"all", Kw::Structural),
    (b"and", Kw::Structural),
    (b"any", Kw::Structural),
    (b"as", Kw::As),
    (b"between", Kw::Structural),
    (b"by", Kw::Structural),
    (b"case", Kw::Structural),
    (b"collate", Kw::Structural),
    (b"columns", Kw::Structural),
    (b"current_date", Kw::TimeOrSession),
    (b"current_role", Kw::TimeOrSession),
    (b"current_time", Kw::TimeOrSession),
    (b"current_timestamp", Kw::TimeOrSession),
    (b"current_user", Kw::TimeOrSession),
    (b"delete", Kw::Dml),
    (b"distinct", Kw::Structural),
    (b"distinctrow", Kw::Structural),
    (b"div", Kw::Structural),
    (b"dual", Kw::NotATable),
    (b"duplicate", Kw::ClauseEnd),
    (b"else", Kw::Structural),
    (b"elseif", Kw::Structural),
    (b"escape", Kw::Structural),
    (b"except", Kw::ClauseEnd),
    (b"exists", Kw::Structural),
    (b"fetch", Kw::ClauseEnd),
    (b"for", Kw::For),
    (b"from", Kw::From),
    (b"group", Kw::ClauseEnd),
    (b"having", Kw::ClauseEnd),
    (b"in", Kw::Structural),
    (b"index", Kw::Structural),
    (b"insert", Kw::Dml),
    (b"intersect", Kw::ClauseEnd),
    (b"interval", Kw::Structural),
    (b"into", Kw::Into),
    (b"is", Kw::Structural),
    (b"join", Kw::Join),
    (b"key", Kw::Structural),
    (b"lateral", Kw::NotATable),
    (b"like", Kw::Structural),
    (b"limit", Kw::ClauseEnd),
    (b"localtime", Kw::TimeOrSession),
    (b"localtimestamp", Kw::TimeOrSession),
    (b"lock", Kw::Lock),
    (b"match", Kw::Structural),
    (b"minus", Kw::ClauseEnd),
    (b"nested", Kw::Structural),
    (b"next", Kw::Next),
    (b"not", Kw::Structural),
    (b"null", Kw::Structural),
    (b"offset", Kw::ClauseEnd),
    (b"on", Kw::On),
    (b"or", Kw::Structural),
    (b"order", Kw::ClauseEnd),
    (b"over", Kw::Structural),
    (b"partition", Kw::Structural),
    (b"path", Kw::Structural),
    (b"previous", Kw::Previous),
    (b"procedure", Kw::ClauseEnd),
    (b"recursive", Kw::Structural),
    (b"regexp", Kw::Structural),
    (b"replace", Kw::Dml),
    (b"return", Kw::Structural),
    (b"returning", Kw::ClauseEnd),
    (b"rlike", Kw::Structural),
    (b"row", Kw::Structural),
    (b"select", Kw::Select),
    (b"set", Kw::ClauseEnd),
    (b"some", Kw::Structural),
    (b"sounds", Kw::Structural),
    (b"sql_calc_found_rows", Kw::CalcFoundRows),
    (b"straight_join", Kw::Join),
    (b"table", Kw::Structural),
    (b"then", Kw::Structural),
    (b"union", Kw::ClauseEnd),
    (b"update", Kw::Dml),
    (b"using", Kw::Using),
    (b"utc_date", Kw::TimeOrSession),
    (b"utc_time", Kw::TimeOrSession),
    (b"utc_timestamp", Kw::TimeOrSession),
    (b"value", Kw::Values),
    (b"values", Kw::Values),
    (b"when", Kw::Structural),
    (b"where", Kw::ClauseEnd),
    (b"window", Kw::ClauseEnd),
    (b"with", Kw::With),
    (b"xor", Kw::Structural),
];

static BODY_KEYWORD_INDEX: WordIndex<Kw, 256> = WordIndex::new(BODY_KEYWORDS);

pub(crate) fn body_keyword(word: &[u8]) -> Kw {
    BODY_KEYWORD_INDEX.get(word).unwrap_or(Kw::Other)
}

/// A case-insensitive hash index over a table of lowercase words, built at compile time:
/// one hash of the word and, almost always, one comparison (most words looked up are
/// identifiers that hit an empty slot). `SLOTS` is a power of two at least twice the table.
pub(crate) struct WordIndex<T: 'static, const SLOTS: usize> {
    words: &'static [(&'static [u8], T)],
    /// 1 + index into `words`, or 0 for an empty slot (open addressing, linear probing).
    slots: [u16; SLOTS],
    /// Bit `first_byte & 31` of entry `len` is set when some word has that length and first
    /// byte: rejects most identifiers (`c`, `sbtest1`, `k`) before hashing them.
    filter: [u32; MAX_WORD_LEN + 1],
}

const fn fold_case(b: u8) -> u8 {
    if b.is_ascii_uppercase() {
        b + (b'a' - b'A')
    } else {
        b
    }
}

/// FNV-1a over the ASCII-lowercased bytes.
const fn word_hash(word: &[u8]) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    let mut i = 0;
    while i < word.len() {
        h ^= fold_case(word[i]) as u32;
        h = h.wrapping_mul(0x0100_0193);
        i += 1;
    }
    (h ^ (h >> 16)) as usize
}

impl<T: Copy, const SLOTS: usize> WordIndex<T, SLOTS> {
    pub const fn new(words: &'static [(&'static [u8], T)]) -> Self {
        assert!(SLOTS.is_power_of_two() && words.len() * 2 <= SLOTS && SLOTS <= u16::MAX as usize);
        let mut slots = [0u16; SLOTS];
        let mut filter = [0u32; MAX_WORD_LEN + 1];
        let mut i = 0;
        while i < words.len() {
            let word = words[i].0;
            assert!(!word.is_empty() && word.len() <= MAX_WORD_LEN);
            filter[word.len()] |= 1 << (word[0] & 31);
            let mut h = word_hash(words[i].0) & (SLOTS - 1);
            while slots[h] != 0 {
                h = (h + 1) & (SLOTS - 1);
            }
            slots[h] = (i + 1) as u16;
            i += 1;
        }
        WordIndex { words, slots, filter }
    }

    pub fn get(&self, word: &[u8]) -> Option<T> {
        let (Some(&first), true) = (word.first(), word.len() <= MAX_WORD_LEN) else { return None };
        // `& 31` maps both cases of a letter to the same bit.
        if self.filter[word.len()] & (1 << (first & 31)) == 0 {
            return None;
        }
        let mut h = word_hash(word) & (SLOTS - 1);
        loop {
            let slot = self.slots[h] as usize;
            if slot == 0 {
                return None;
            }
            let (known, value) = self.words[slot - 1];
            if known.len() == word.len() && known.eq_ignore_ascii_case(word) {
                return Some(value);
            }
            h = (h + 1) & (SLOTS - 1);
        }
    }
}

/// Properties of a built-in function (bit set).
pub(crate) type FnFlags = u8;
/// Only what its arguments say.
pub(crate) const PURE: FnFlags = 0;
/// Result depends on time, randomness or session state: not cacheable under verify_cacheable.
pub(crate) const NONDET: FnFlags = 1;
/// Value differs between backends at the same moment (random, per connection): a session
/// variable set from it would differ per backend.
pub(crate) const VOLATILE: FnFlags = 2;
/// Reads state only the session's primary connection has: runs on the primary.
pub(crate) const PRIMARY: FnFlags = 4;
/// Keeps the session on the primary from now on (MaxScale's rules).
pub(crate) const PIN: FnFlags = 8;
/// Changes server state (locks, sequences): primary, never cached.
pub(crate) const SIDE_EFFECT: FnFlags = 16;
/// Advances or sets the sequence named by its first argument (a write to that table).
pub(crate) const SEQUENCE_WRITE: FnFlags = 32;

/// MariaDB 10.11/11.x built-in functions (from the server's help tables, plus keyword
/// functions and the type names that take `(` inside CAST/CONVERT/JSON_TABLE), sorted for
/// binary search.
static BUILTINS: &[(&[u8], FnFlags)] = &[
    (b"abs", PURE),
    (b"acos", PURE),
    (b"add_months", PURE),
    (b"adddate", PURE),
    (b"addtime", PURE),
    (b"aes_decrypt", PURE),
    (b"aes_encrypt", PURE),
    (b"analyse", PURE),
    (b"area", PURE),
    (b"asbinary", PURE),
    (b"ascii", PURE),
    (b"asin", PURE),
    (b"astext", PURE),
    (b"aswkb", PURE),
    (b"aswkt", PURE),
    (b"atan", PURE),
    (b"atan2", PURE),
    (b"avg", PURE),
    (b"benchmark", NONDET),
    (b"bigint", PURE),
    (b"bin", PURE),
    (b"binary", PURE),
    (b"binlog_gtid_pos", NONDET | VOLATILE | PRIMARY),
    (b"bit", PURE),
    (b"bit_and", PURE),
    (b"bit_count", PURE),
    (b"bit_length", PURE),
    (b"bit_or", PURE),
    (b"bit_xor", PURE),
    (b"blob", PURE),
    (b"boundary", PURE),
    (b"buffer", PURE),
    (b"cast", PURE),
    (b"ceil", PURE),
    (b"ceiling", PURE),
    (b"centroid", PURE),
    (b"char", PURE),
    (b"char_length", PURE),
    (b"character", PURE),
    (b"character_length", PURE),
    (b"charset", PURE),
    (b"chr", PURE),
    (b"coalesce", PURE),
    (b"coercibility", PURE),
    (b"collation", PURE),
    (b"column_add", PURE),
    (b"column_check", PURE),
    (b"column_create", PURE),
    (b"column_delete", PURE),
    (b"column_exists", PURE),
    (b"column_get", PURE),
    (b"column_json", PURE),
    (b"column_list", PURE),
    (b"compress", PURE),
    (b"concat", PURE),
    (b"concat_ws", PURE),
    (b"connection_id", NONDET | VOLATILE | PRIMARY),
    (b"contains", PURE),
    (b"conv", PURE),
    (b"convert", PURE),
    (b"convert_tz", PURE),
    (b"convexhull", PURE),
    (b"cos", PURE),
    (b"cot", PURE),
    (b"count", PURE),
    (b"crc32", PURE),
    (b"crc32c", PURE),
    (b"crosses", PURE),
    (b"cume_dist", PURE),
    (b"curdate", NONDET),
    (b"current_date", NONDET),
    (b"current_role", NONDET),
    (b"current_time", NONDET),
    (b"current_timestamp", NONDET),
    (b"current_user", NONDET),
    (b"curtime", NONDET),
    (b"database", NONDET),
    (b"date", PURE),
    (b"date_add", PURE),
    (b"date_format", PURE),
    (b"date_sub", PURE),
    (b"datediff", PURE),
    (b"datetime", PURE),
    (b"day", PURE),
    (b"dayname", PURE),
    (b"dayofmonth", PURE),
    (b"dayofweek", PURE),
    (b"dayofyear", PURE),
    (b"dec", PURE),
    (b"decimal", PURE),
    (b"decode", PURE),
    (b"decode_histogram", PURE),
    (b"decode_oracle", PURE),
    (b"default", PURE),
    (b"degrees", PURE),
    (b"dense_rank", PURE),
    (b"des_decrypt", NONDET | VOLATILE),
    (b"des_encrypt", NONDET | VOLATILE),
    (b"dimension", PURE),
    (b"disjoint", PURE),
    (b"double", PURE),
    (b"elt", PURE),
    (b"encode", PURE),
    (b"encrypt", NONDET | VOLATILE),
    (b"endpoint", PURE),
    (b"envelope", PURE),
    (b"equals", PURE),
    (b"exp", PURE),
    (b"export_set", PURE),
    (b"exteriorring", PURE),
    (b"extract", PURE),
    (b"extractvalue", PURE),
    (b"field", PURE),
    (b"find_in_set", PURE),
    (b"first_value", PURE),
    (b"float", PURE),
    (b"floor", PURE),
    (b"format", PURE),
    (b"format_bytes", PURE),
    (b"format_pico_time", PURE),
    (b"found_rows", NONDET | VOLATILE | PRIMARY | PIN),
    (b"from_base64", PURE),
    (b"from_days", PURE),
    (b"from_unixtime", PURE),
    (b"geomcollfromtext", PURE),
    (b"geometrycollection", PURE),
    (b"geometrycollectionfromtext", PURE),
    (b"geometryfromtext", PURE),
    (b"geometryfromwkb", PURE),
    (b"geometryn", PURE),
    (b"geometrytype", PURE),
    (b"geomfromtext", PURE),
    (b"geomfromwkb", PURE),
    (b"get_format", PURE),
    (b"get_lock", NONDET | VOLATILE | PRIMARY | PIN | SIDE_EFFECT),
    (b"glength", PURE),
    (b"greatest", PURE),
    (b"group_concat", PURE),
    (b"hex", PURE),
    (b"hour", PURE),
    (b"if", PURE),
    (b"ifnull", PURE),
    (b"inet6_aton", PURE),
    (b"inet6_ntoa", PURE),
    (b"inet_aton", PURE),
    (b"inet_ntoa", PURE),
    (b"insert", PURE),
    (b"instr", PURE),
    (b"int", PURE),
    (b"integer", PURE),
    (b"interiorringn", PURE),
    (b"intersects", PURE),
    (b"is_free_lock", NONDET | VOLATILE | PRIMARY | PIN),
    (b"is_ipv4", PURE),
    (b"is_ipv4_compat", PURE),
    (b"is_ipv4_mapped", PURE),
    (b"is_ipv6", PURE),
    (b"is_used_lock", NONDET | VOLATILE | PRIMARY | PIN),
    (b"isclosed", PURE),
    (b"isempty", PURE),
    (b"isnull", PURE),
    (b"isring", PURE),
    (b"issimple", PURE),
    (b"json", PURE),
    (b"json_array", PURE),
    (b"json_array_append", PURE),
    (b"json_array_insert", PURE),
    (b"json_array_intersect", PURE),
    (b"json_arrayagg", PURE),
    (b"json_compact", PURE),
    (b"json_contains", PURE),
    (b"json_contains_path", PURE),
    (b"json_depth", PURE),
    (b"json_detailed", PURE),
    (b"json_equals", PURE),
    (b"json_exists", PURE),
    (b"json_extract", PURE),
    (b"json_insert", PURE),
    (b"json_key_value", PURE),
    (b"json_keys", PURE),
    (b"json_length", PURE),
    (b"json_loose", PURE),
    (b"json_merge", PURE),
    (b"json_merge_patch", PURE),
    (b"json_merge_preserve", PURE),
    (b"json_normalize", PURE),
    (b"json_object", PURE),
    (b"json_object_filter_keys", PURE),
    (b"json_object_to_array", PURE),
    (b"json_objectagg", PURE),
    (b"json_overlaps", PURE),
    (b"json_pretty", PURE),
    (b"json_query", PURE),
    (b"json_quote", PURE),
    (b"json_remove", PURE),
    (b"json_replace", PURE),
    (b"json_schema_valid", PURE),
    (b"json_search", PURE),
    (b"json_set", PURE),
    (b"json_table", PURE),
    (b"json_type", PURE),
    (b"json_unquote", PURE),
    (b"json_valid", PURE),
    (b"json_value", PURE),
    (b"kdf", PURE),
    (b"lag", PURE),
    (b"last_day", PURE),
    (b"last_insert_id", NONDET | VOLATILE | PRIMARY | PIN),
    (b"last_value", PURE),
    (b"lastval", NONDET | VOLATILE | PRIMARY),
    (b"lcase", PURE),
    (b"lead", PURE),
    (b"least", PURE),
    (b"left", PURE),
    (b"length", PURE),
    (b"lengthb", PURE),
    (b"linefromtext", PURE),
    (b"linefromwkb", PURE),
    (b"linestring", PURE),
    (b"linestringfromtext", PURE),
    (b"ln", PURE),
    (b"load_file", NONDET | VOLATILE | PRIMARY),
    (b"localtime", NONDET),
    (b"localtimestamp", NONDET),
    (b"locate", PURE),
    (b"log", PURE),
    (b"log10", PURE),
    (b"log2", PURE),
    (b"lower", PURE),
    (b"lpad", PURE),
    (b"ltrim", PURE),
    (b"make_set", PURE),
    (b"makedate", PURE),
    (b"maketime", PURE),
    (b"master_gtid_wait", NONDET | VOLATILE | PRIMARY),
    (b"master_pos_wait", NONDET | VOLATILE | PRIMARY),
    (b"max", PURE),
    (b"mbrcontains", PURE),
    (b"mbrcoveredby", PURE),
    (b"mbrdisjoint", PURE),
    (b"mbrequal", PURE),
    (b"mbrequals", PURE),
    (b"mbrintersects", PURE),
    (b"mbroverlaps", PURE),
    (b"mbrtouches", PURE),
    (b"mbrwithin", PURE),
    (b"md5", PURE),
    (b"median", PURE),
    (b"mediumint", PURE),
    (b"microsecond", PURE),
    (b"mid", PURE),
    (b"min", PURE),
    (b"minute", PURE),
    (b"mlinefromtext", PURE),
    (b"mod", PURE),
    (b"month", PURE),
    (b"monthname", PURE),
    (b"months_between", PURE),
    (b"mpointfromtext", PURE),
    (b"mpolyfromtext", PURE),
    (b"multilinestring", PURE),
    (b"multilinestringfromtext", PURE),
    (b"multipoint", PURE),
    (b"multipointfromtext", PURE),
    (b"multipolygon", PURE),
    (b"multipolygonfromtext", PURE),
    (b"name_const", PURE),
    (b"natural_sort_key", PURE),
    (b"nchar", PURE),
    (b"nextval", NONDET | VOLATILE | PRIMARY | SIDE_EFFECT | SEQUENCE_WRITE),
    (b"now", NONDET),
    (b"nth_value", PURE),
    (b"ntile", PURE),
    (b"nullif", PURE),
    (b"numeric", PURE),
    (b"numgeometries", PURE),
    (b"numinteriorrings", PURE),
    (b"numpoints", PURE),
    (b"nvl", PURE),
    (b"nvl2", PURE),
    (b"oct", PURE),
    (b"octet_length", PURE),
    (b"old_password", PURE),
    (b"ord", PURE),
    (b"overlaps", PURE),
    (b"password", PURE),
    (b"percent_rank", PURE),
    (b"percentile_cont", PURE),
    (b"percentile_disc", PURE),
    (b"period_add", PURE),
    (b"period_diff", PURE),
    (b"pi", PURE),
    (b"point", PURE),
    (b"pointfromtext", PURE),
    (b"pointfromwkb", PURE),
    (b"pointn", PURE),
    (b"polyfromtext", PURE),
    (b"polyfromwkb", PURE),
    (b"polygon", PURE),
    (b"polygonfromtext", PURE),
    (b"position", PURE),
    (b"pow", PURE),
    (b"power", PURE),
    (b"quarter", PURE),
    (b"quote", PURE),
    (b"radians", PURE),
    (b"rand", NONDET | VOLATILE),
    (b"random_bytes", NONDET | VOLATILE),
    (b"rank", PURE),
    (b"real", PURE),
    (b"regexp_instr", PURE),
    (b"regexp_replace", PURE),
    (b"regexp_substr", PURE),
    (b"release_all_locks", NONDET | VOLATILE | PRIMARY | PIN | SIDE_EFFECT),
    (b"release_lock", NONDET | VOLATILE | PRIMARY | PIN | SIDE_EFFECT),
    (b"repeat", PURE),
    (b"replace", PURE),
    (b"reverse", PURE),
    (b"right", PURE),
    (b"round", PURE),
    (b"row_count", NONDET | VOLATILE | PRIMARY),
    (b"row_number", PURE),
    (b"rownum", PURE),
    (b"rpad", PURE),
    (b"rtrim", PURE),
    (b"schema", NONDET),
    (b"sec_to_time", PURE),
    (b"second", PURE),
    (b"session_user", NONDET),
    (b"setval", NONDET | VOLATILE | PRIMARY | SIDE_EFFECT | SEQUENCE_WRITE),
    (b"sformat", PURE),
    (b"sha", PURE),
    (b"sha1", PURE),
    (b"sha2", PURE),
    (b"sign", PURE),
    (b"signed", PURE),
    (b"sin", PURE),
    (b"sleep", NONDET),
    (b"smallint", PURE),
    (b"soundex", PURE),
    (b"source_pos_wait", NONDET | VOLATILE | PRIMARY),
    (b"space", PURE),
    (b"sqrt", PURE),
    (b"srid", PURE),
    (b"st_area", PURE),
    (b"st_asbinary", PURE),
    (b"st_asgeojson", PURE),
    (b"st_astext", PURE),
    (b"st_aswkb", PURE),
    (b"st_aswkt", PURE),
    (b"st_boundary", PURE),
    (b"st_buffer", PURE),
    (b"st_centroid", PURE),
    (b"st_collect", PURE),
    (b"st_contains", PURE),
    (b"st_convexhull", PURE),
    (b"st_crosses", PURE),
    (b"st_difference", PURE),
    (b"st_dimension", PURE),
    (b"st_disjoint", PURE),
    (b"st_distance", PURE),
    (b"st_distance_sphere", PURE),
    (b"st_endpoint", PURE),
    (b"st_envelope", PURE),
    (b"st_equals", PURE),
    (b"st_exteriorring", PURE),
    (b"st_geohash", PURE),
    (b"st_geomcollfromtext", PURE),
    (b"st_geomcollfromwkb", PURE),
    (b"st_geometrycollectionfromtext", PURE),
    (b"st_geometryfromtext", PURE),
    (b"st_geometryfromwkb", PURE),
    (b"st_geometryn", PURE),
    (b"st_geometrytype", PURE),
    (b"st_geomfromgeojson", PURE),
    (b"st_geomfromtext", PURE),
    (b"st_geomfromwkb", PURE),
    (b"st_interiorringn", PURE),
    (b"st_intersection", PURE),
    (b"st_intersects", PURE),
    (b"st_isclosed", PURE),
    (b"st_isempty", PURE),
    (b"st_isring", PURE),
    (b"st_issimple", PURE),
    (b"st_isvalid", PURE),
    (b"st_latfromgeohash", PURE),
    (b"st_length", PURE),
    (b"st_linefromtext", PURE),
    (b"st_linefromwkb", PURE),
    (b"st_linestringfromtext", PURE),
    (b"st_longfromgeohash", PURE),
    (b"st_mlinefromtext", PURE),
    (b"st_mpointfromtext", PURE),
    (b"st_mpolyfromtext", PURE),
    (b"st_multilinestringfromtext", PURE),
    (b"st_multipointfromtext", PURE),
    (b"st_multipolygonfromtext", PURE),
    (b"st_numgeometries", PURE),
    (b"st_numinteriorrings", PURE),
    (b"st_numpoints", PURE),
    (b"st_overlaps", PURE),
    (b"st_pointfromgeohash", PURE),
    (b"st_pointfromtext", PURE),
    (b"st_pointfromwkb", PURE),
    (b"st_pointn", PURE),
    (b"st_pointonsurface", PURE),
    (b"st_polyfromtext", PURE),
    (b"st_polyfromwkb", PURE),
    (b"st_polygonfromtext", PURE),
    (b"st_relate", PURE),
    (b"st_simplify", PURE),
    (b"st_srid", PURE),
    (b"st_startpoint", PURE),
    (b"st_symdifference", PURE),
    (b"st_touches", PURE),
    (b"st_union", PURE),
    (b"st_validate", PURE),
    (b"st_within", PURE),
    (b"st_x", PURE),
    (b"st_y", PURE),
    (b"startpoint", PURE),
    (b"std", PURE),
    (b"stddev", PURE),
    (b"stddev_pop", PURE),
    (b"stddev_samp", PURE),
    (b"str_to_date", PURE),
    (b"strcmp", PURE),
    (b"subdate", PURE),
    (b"substr", PURE),
    (b"substring", PURE),
    (b"substring_index", PURE),
    (b"subtime", PURE),
    (b"sum", PURE),
    (b"sys_guid", NONDET | VOLATILE),
    (b"sysdate", NONDET),
    (b"system_user", NONDET),
    (b"tan", PURE),
    (b"text", PURE),
    (b"time", PURE),
    (b"time_format", PURE),
    (b"time_to_sec", PURE),
    (b"timediff", PURE),
    (b"timestamp", PURE),
    (b"timestampadd", PURE),
    (b"timestampdiff", PURE),
    (b"tinyint", PURE),
    (b"to_base64", PURE),
    (b"to_char", PURE),
    (b"to_date", PURE),
    (b"to_days", PURE),
    (b"to_number", PURE),
    (b"to_seconds", PURE),
    (b"touches", PURE),
    (b"trim", PURE),
    (b"trim_oracle", PURE),
    (b"trunc", PURE),
    (b"truncate", PURE),
    (b"ucase", PURE),
    (b"uncompress", PURE),
    (b"uncompressed_length", PURE),
    (b"unhex", PURE),
    (b"unix_timestamp", NONDET),
    (b"unsigned", PURE),
    (b"updatexml", PURE),
    (b"upper", PURE),
    (b"user", NONDET),
    (b"utc_date", NONDET),
    (b"utc_time", NONDET),
    (b"utc_timestamp", NONDET),
    (b"uuid", NONDET | VOLATILE),
    (b"uuid_short", NONDET | VOLATILE),
    (b"var_pop", PURE),
    (b"var_samp", PURE),
    (b"varbinary", PURE),
    (b"varchar", PURE),
    (b"variance", PURE),
    (b"vec_distance", PURE),
    (b"vec_distance_cosine", PURE),
    (b"vec_distance_euclidean", PURE),
    (b"vec_fromtext", PURE),
    (b"vec_totext", PURE),
    (b"version", PURE),
    (b"week", PURE),
    (b"weekday", PURE),
    (b"weekofyear", PURE),
    (b"weight_string", PURE),
    (b"within", PURE),
    (b"wsrep_last_seen_gtid", NONDET | VOLATILE | PRIMARY),
    (b"wsrep_last_written_gtid", NONDET | VOLATILE | PRIMARY),
    (b"wsrep_sync_wait_upto_gtid", NONDET | VOLATILE | PRIMARY),
    (b"x", PURE),
    (b"y", PURE),
    (b"year", PURE),
    (b"yearweek", PURE),
];

/// The flags of built-in function `name`, or None for a stored function / UDF.
static BUILTIN_INDEX: WordIndex<FnFlags, 1024> = WordIndex::new(BUILTINS);

pub(crate) fn builtin_function(name: &[u8]) -> Option<FnFlags> {
    BUILTIN_INDEX.get(name)
}

/// `lookup` needs sorted, unique, lowercase words that fit its buffer.
#[cfg(test)]
pub(crate) fn assert_word_table<T>(table: &[(&[u8], T)]) {
    for pair in table.windows(2) {
        assert!(pair[0].0 < pair[1].0, "{:?}", String::from_utf8_lossy(pair[1].0));
    }
    for (name, _) in table {
        assert!(name.len() <= MAX_WORD_LEN);
        assert!(!name.iter().any(u8::is_ascii_uppercase));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_unique_and_lowercase() {
        assert_word_table(BUILTINS);
        assert_word_table(BODY_KEYWORDS);
    }

    #[test]
    fn lookups() {
        assert_eq!(builtin_function(b"COUNT"), Some(PURE));
        assert_eq!(builtin_function(b"Now"), Some(NONDET));
        assert_ne!(builtin_function(b"last_insert_id").unwrap() & PIN, 0);
        assert_ne!(builtin_function(b"NEXTVAL").unwrap() & SEQUENCE_WRITE, 0);
        assert_eq!(builtin_function(b"my_func"), None);
        assert_eq!(builtin_function(&[b'a'; 40]), None);
        assert_eq!(body_keyword(b"FROM"), Kw::From);
        assert_eq!(body_keyword(b"fRoM"), Kw::From);
        assert_eq!(body_keyword(b"froms"), Kw::Other);
        assert_eq!(body_keyword(b""), Kw::Other);
        for (word, kw) in BODY_KEYWORDS {
            assert_eq!(body_keyword(&word.to_ascii_uppercase()), *kw);
        }
        for (word, flags) in BUILTINS {
            assert_eq!(builtin_function(word), Some(*flags));
        }
        assert_eq!(body_keyword(b"sbtest1"), Kw::Other);
        assert!(Kw::Structural.is_structural());
        assert!(!Kw::Dml.is_structural());
    }
}
