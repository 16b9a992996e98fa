//! Memcomparable key encoding (docs/architecture.md §4.6): the byte order of two encoded keys is
//! the SQL order of the values they encode, so B+trees compare keys with `memcmp` only.
//!
//! Per column: a nullable column starts with `0x00` for NULL (NULL sorts first, as in MariaDB)
//! or `0x01` before the value; a NOT NULL column has no tag byte (primary key columns are
//! always NOT NULL, so a typical key starts with its distinguishing bytes, which the B+tree's
//! 4-byte key-head comparison then resolves without a full compare). Values:
//! - integers: big-endian in the column's width (1, 2, 3, 4 or 8 bytes), signed ones with the
//!   sign bit flipped;
//! - DATE: i32 and DATETIME/TIMESTAMP: i64, sign-flipped big-endian;
//! - FLOAT/DOUBLE: the IEEE total-order trick on the f64 (FLOAT narrowed to f32 first, -0.0
//!   folded into +0.0 so that equal values encode equally);
//! - DECIMAL: the mantissa at the column's scale as a sign-flipped big-endian i128 (16 bytes);
//!   in tables of `KEY_FORMAT_LATIN1_WIDE_DECIMAL`, a column declared with more than 38 digits as a
//!   sign-flipped big-endian 256-bit integer (32 bytes). Older tables keep 16 bytes for every
//!   DECIMAL column (their keys were written so), and a value whose mantissa needs more than an
//!   i128 is outside such a column's key domain;
//! - strings and binaries: byte-stuffed (`0x00` → `0x00 0xFF`) and terminated by `0x00 0x00`, so
//!   a shorter string sorts before every longer string it is a prefix of and composite keys
//!   compare column by column. What is stuffed for a character column depends on the table's
//!   key format (`TableOptions::key_format`):
//!   - `KEY_FORMAT_LATIN1_WIDE_DECIMAL`, `KEY_FORMAT_UCA` and `KEY_FORMAT_COLLATED` (tables created
//!     or rebuilt since keys follow collations; format 2 before the UCA collations had weights
//!     of their own, whose columns keep utf8mb4_general_ci sort keys in such tables, formats 2
//!     and 3 before latin1_general_ci had its own, whose columns keep latin1_swedish_ci keys): a
//!     column whose collation weighs characters (`_ci`, `_unicode_ci`, latin1's) stores the
//!     collation's sort key (`Collation::sort_key`: memcmp order is the collation's order,
//!     PAD SPACE ignores trailing spaces), so 'a' and 'A' have one key under
//!     utf8mb4_general_ci and a UNIQUE index refuses the second. The UTF-8 `_bin` collations
//!     order as their bytes: NO PAD ones store the bytes as they are; PAD SPACE ones their
//!     PAD SPACE sort key from `KEY_FORMAT_PAD_BIN_FIXED_BINARY` on, the bytes without trailing
//!     spaces before (which put 'a\t' after 'a', so the planner scans for their comparisons in
//!     such tables). UUID / INET4 / INET6 columns store their binary form (the pseudo collation
//!     `Collation::fixed_binary`) from that format on, their text before. A prefix length (`KEY(c(10))`, kept as 4 bytes per
//!     character) cuts the value to that many characters before its key is taken, as MariaDB.
//!   - `KEY_FORMAT_BYTES` (older tables): the bytes without trailing spaces whatever the
//!     collation, prefix lengths cutting bytes.
//!
//!   A sort key cannot be turned back into the value ('a' or 'A'?): nothing reads column values
//!   out of keys; a read through any index fetches the row and takes the values from it.
//!   Lookups (`KeyRange` bounds, `primary_key_lookup`) on a sort-key column take the sort key
//!   itself (`lookup_value` makes one), which is what the SQL layer's `_ci` comparisons already
//!   compare.
//!
//! A value outside the column's domain (300 for a TINYINT, NULL for a NOT NULL column) has no
//! encoding: stored rows never hold one, a point lookup with one finds nothing, and a range bound
//! with one is cut at that column (see `range_to_bytes`).
//!
//! A table without a primary key is keyed by a hidden 8-byte big-endian row id.
//! Secondary index keys are the encoded index columns followed by the clustered key bytes.

use std::ops::Bound;

use selkie_charset::{Collation, FixedBinary, Weighing};

use crate::error::{Result, StorageError};
use crate::types::*;
use crate::wideint::I256;

/// Length of the hidden row id key of a table without a primary key.
pub const ROW_ID_KEY_LEN: usize = 8;
/// MariaDB shows at most this many bytes of the value in "Duplicate entry '...'" (its
/// `%-.64T`): a longer one is cut to whole characters within 61 bytes and ends in "...".
const DUPLICATE_VALUE_MAX_BYTES: usize = 64;
const TRUNCATION_MARK: &str = "...";
/// MariaDB's limit on the declared byte length of an index (InnoDB, large prefix).
pub const MAX_DECLARED_KEY_BYTES: usize = 3072;
/// Bytes per character of utf8mb4 (for declared key lengths).
const MAX_BYTES_PER_CHAR: usize = 4;

const NULL_TAG: u8 = 0x00;
const VALUE_TAG: u8 = 0x01;
const SIGN_BIT_64: u64 = 1 << 63;
const SIGN_BIT_32: u32 = 1 << 31;
const SIGN_BIT_128: u128 = 1 << 127;

/// Where a value lies relative to the values its column can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// Encoded.
    In,
    /// Sorts before every value of the column (nothing was appended).
    Below,
    /// Sorts after every value of the column (nothing was appended).
    Above,
}

/// Bytes of an integer column's key encoding.
fn int_bytes(width: IntWidth) -> usize {
    (width.bits() / 8) as usize
}

/// How a character column's values become key bytes (see the module comment).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TextKey {
    /// `KEY_FORMAT_BYTES`: the bytes without trailing spaces; a prefix length cuts bytes.
    Legacy,
    /// The bytes, without trailing spaces under a PAD SPACE collation; a prefix length cuts
    /// characters.
    Bytes { pad_space: bool },
    /// The collation's sort key of the value (cut to the prefix's characters first).
    SortKey(Collation),
}

/// Bytes per character an index prefix length counts (`IndexColumn::prefix_len` holds
/// characters times this for character columns).
pub const PREFIX_BYTES_PER_CHAR: u32 = MAX_BYTES_PER_CHAR as u32;

/// How column `col` of `table` is encoded in keys, for a character column (Legacy otherwise).
pub fn text_key(table: &TableDef, col: &ColumnDef) -> TextKey {
    if !matches!(*col.ty.stored_as(), ColumnType::Char { .. } | ColumnType::VarChar { .. } | ColumnType::Text { .. }) {
        return TextKey::Legacy;
    }
    text_key_in(table.options.key_format, col)
}

/// Whether the keys of `index` of `table` stay the same bytes when the table is rebuilt (into
/// the current key format): an online rebuild finds changed rows by their old primary key.
pub fn keys_survive_rebuild(table: &TableDef, index: &IndexDef) -> bool {
    let wide_decimals_agree = || {
        index.columns.iter().all(|ic| match *table.columns[ic.column].ty.stored_as() {
            ColumnType::Decimal { precision, .. } => {
                wide_decimal_key(table.options.key_format, precision) == wide_decimal_key(KEY_FORMAT_CURRENT, precision)
            }
            _ => true,
        })
    };
    if !wide_decimals_agree() {
        return false;
    }
    table.options.key_format == KEY_FORMAT_CURRENT
        || (table.options.key_format >= KEY_FORMAT_COLLATED
            && index.columns.iter().all(|ic| {
                let col = &table.columns[ic.column];
                text_key(table, col) == text_key_in(KEY_FORMAT_CURRENT, col)
                    || !matches!(
                        *col.ty.stored_as(),
                        ColumnType::Char { .. } | ColumnType::VarChar { .. } | ColumnType::Text { .. }
                    )
            }))
}

/// `text_key` of a character column in a table of key format `key_format`.
fn text_key_in(key_format: u8, col: &ColumnDef) -> TextKey {
    if key_format < KEY_FORMAT_COLLATED {
        return TextKey::Legacy;
    }
    let fixed_binary = match col.ty {
        ColumnType::Uuid => Some(FixedBinary::Uuid),
        ColumnType::Inet4 => Some(FixedBinary::Inet4),
        ColumnType::Inet6 => Some(FixedBinary::Inet6),
        _ => None,
    };
    if let Some(kind) = fixed_binary {
        // Earlier formats keyed the canonical text (as the column's collation, none: utf8mb4_bin).
        return if key_format >= KEY_FORMAT_PAD_BIN_FIXED_BINARY {
            TextKey::SortKey(Collation::fixed_binary(kind))
        } else {
            TextKey::Bytes { pad_space: true }
        };
    }
    // The SQL layer gives every character column of a new table its collation; one without
    // (written before columns carried one) compares as utf8mb4_bin there.
    let Some(c) = Collation::named(&col.collation) else {
        return TextKey::Bytes { pad_space: true };
    };
    if c.is_uca() && key_format == KEY_FORMAT_COLLATED {
        // Written when the UCA collations weighed as general_ci: the keys stay general_ci sort
        // keys, so that writes find the entries already there. `key_collation` says so, and
        // the planner, which serves a comparison from an index only when it is in the keys'
        // collation, scans for the UCA comparisons instead (UNIQUE keeps its old, general_ci
        // notion of equal until the table is rebuilt).
        TextKey::SortKey(c.general_ci_of_charset())
    } else if c.name() == "latin1_general_ci" && key_format < KEY_FORMAT_LATIN1_WIDE_DECIMAL {
        // Written when latin1_general_ci weighed as latin1_swedish_ci: as for UCA above, the
        // keys stay swedish ones until the table is rebuilt, and general_ci comparisons scan.
        TextKey::SortKey(Collation::named("latin1_swedish_ci").expect("a built-in collation"))
    } else if c.pad_space() && c.def().weighing == Weighing::CodePoint && c.charset_name() != "latin1" {
        // A PAD SPACE UTF-8 `_bin` collation: written as the bytes without trailing spaces
        // before `KEY_FORMAT_PAD_BIN_FIXED_BINARY`.
        if key_format >= KEY_FORMAT_PAD_BIN_FIXED_BINARY {
            TextKey::SortKey(c)
        } else {
            TextKey::Bytes { pad_space: true }
        }
    } else if c.weighs_characters() {
        TextKey::SortKey(c)
    } else {
        TextKey::Bytes { pad_space: c.pad_space() }
    }
}

/// The collation whose sort keys column `col` of `table` stores in index keys; None when its
/// keys are the value's bytes. A lookup on the column takes the sort key (`lookup_value`).
pub fn key_collation(table: &TableDef, col: &ColumnDef) -> Option<Collation> {
    match text_key(table, col) {
        TextKey::SortKey(c) => Some(c),
        _ => None,
    }
}

/// The value a lookup (`KeyRange` bound, `primary_key_lookup`) on column `col` of `table`
/// takes for the column value `d`: its sort key on a sort-key column, else `d` itself.
pub fn lookup_value(table: &TableDef, col: &ColumnDef, d: &Datum) -> Datum {
    match (key_collation(table, col), d) {
        (Some(c), Datum::Bytes(b)) => {
            let mut key = Vec::with_capacity(b.len() * 2);
            c.sort_key(b, &mut key);
            Datum::Bytes(key)
        }
        _ => d.clone(),
    }
}

/// Where a value to encode comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// A row's column value.
    Row,
    /// A lookup value: on a sort-key column, already the sort key.
    Lookup,
}

/// Appends the memcomparable encoding of `d` as a value of column `col` of a table with
/// `KEY_FORMAT_BYTES` keys, truncated to `prefix_len` bytes for a prefix index column.
/// Values of another numeric kind are converted. Returns where the value lies; only
/// `Domain::In` appends anything.
pub fn encode_datum(out: &mut Vec<u8>, col: &ColumnDef, d: &Datum, prefix_len: Option<u32>) -> Domain {
    encode_value(out, col, d, prefix_len, KEY_FORMAT_BYTES, Source::Row)
}

/// `encode_datum` in a table of key format `key_format`; numbers and dates never look at it
/// (nor at collations).
fn encode_value(
    out: &mut Vec<u8>,
    col: &ColumnDef,
    d: &Datum,
    prefix_len: Option<u32>,
    key_format: u8,
    source: Source,
) -> Domain {
    if d.is_null() {
        if !col.nullable {
            return Domain::Below;
        }
        out.push(NULL_TAG);
        return Domain::In;
    }
    let ty = col.ty.stored_as();
    // Integers are range-checked before the tag goes out.
    if let ColumnType::Int { width, unsigned, .. } = *ty {
        let v = datum_as_i128(d);
        let (min, max) = if unsigned {
            (0i128, width.unsigned_max() as i128)
        } else {
            let (lo, hi) = width.signed_range();
            (lo as i128, hi as i128)
        };
        if v < min {
            return Domain::Below;
        }
        if v > max {
            return Domain::Above;
        }
        if col.nullable {
            out.push(VALUE_TAG);
        }
        let n = int_bytes(width);
        // Offset by -min: signed values get their sign bit flipped, unsigned stay as they are.
        let biased = (v - min) as u64;
        out.extend_from_slice(&biased.to_be_bytes()[8 - n..]);
        return Domain::In;
    }
    // So are DECIMALs: a mantissa too wide for the key's width has no encoding.
    if let ColumnType::Decimal { precision, scale, .. } = *ty {
        let m = match datum_as_scaled_decimal(d, scale) {
            Ok(m) => m,
            Err(negative) => return if negative { Domain::Below } else { Domain::Above },
        };
        if wide_decimal_key(key_format, precision) {
            if col.nullable {
                out.push(VALUE_TAG);
            }
            let mut limbs = m.0 .0;
            limbs[3] ^= 1 << 63;
            for l in limbs.iter().rev() {
                out.extend_from_slice(&l.to_be_bytes());
            }
            return Domain::In;
        }
        let Some(m) = m.to_i128() else {
            return if m.is_negative() { Domain::Below } else { Domain::Above };
        };
        if col.nullable {
            out.push(VALUE_TAG);
        }
        out.extend_from_slice(&((m as u128) ^ SIGN_BIT_128).to_be_bytes());
        return Domain::In;
    }
    if col.nullable {
        out.push(VALUE_TAG);
    }
    match &*ty {
        ColumnType::Int { .. } | ColumnType::Decimal { .. } => unreachable!("handled above"),
        ColumnType::Float { .. } => encode_f64(out, datum_as_f64(d) as f32 as f64),
        ColumnType::Double { .. } => encode_f64(out, datum_as_f64(d)),
        ColumnType::Char { .. } | ColumnType::VarChar { .. } | ColumnType::Text { .. } => {
            let bytes = datum_as_bytes(d);
            match text_key_in(key_format, col) {
                TextKey::Legacy => encode_stuffed(out, trim_spaces(truncate_prefix(&bytes, prefix_len))),
                TextKey::Bytes { pad_space } => {
                    let bytes = truncate_chars(&bytes, prefix_len);
                    encode_stuffed(out, if pad_space { trim_spaces(bytes) } else { bytes });
                }
                TextKey::SortKey(_) if source == Source::Lookup => encode_stuffed(out, &bytes),
                TextKey::SortKey(c) => {
                    let mut key = Vec::with_capacity(bytes.len() * 2 + 8);
                    c.sort_key(truncate_chars(&bytes, prefix_len), &mut key);
                    encode_stuffed(out, &key);
                }
            }
        }
        ColumnType::Binary { .. } | ColumnType::VarBinary { .. } | ColumnType::Blob { .. } => {
            let bytes = datum_as_bytes(d);
            encode_stuffed(out, truncate_prefix(&bytes, prefix_len));
        }
        ColumnType::Date => {
            let v = match d {
                Datum::Date(x) => x.0,
                Datum::DateTime(x) => x.date().0,
                other => datum_as_i128(other).clamp(i32::MIN as i128, i32::MAX as i128) as i32,
            };
            out.extend_from_slice(&((v as u32) ^ SIGN_BIT_32).to_be_bytes());
        }
        ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } => {
            let v = match d {
                Datum::DateTime(x) => x.0,
                Datum::Date(x) => DateTime::new(*x, 0, 0, 0, 0).0,
                other => datum_as_i128(other).clamp(i64::MIN as i128, i64::MAX as i128) as i64,
            };
            out.extend_from_slice(&((v as u64) ^ SIGN_BIT_64).to_be_bytes());
        }
        // Newer types are mapped to the type they are stored as.
        _ => {
            unreachable!("stored_as maps newer types to the type they are stored as")
        }
    }
    Domain::In
}

fn trim_spaces(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().rposition(|&b| b != b' ').map_or(0, |p| p + 1);
    &bytes[..end]
}

/// The first `prefix_len / PREFIX_BYTES_PER_CHAR` characters of UTF-8 text (a byte that is
/// not UTF-8 counts as a character).
fn truncate_chars(bytes: &[u8], prefix_len: Option<u32>) -> &[u8] {
    let Some(p) = prefix_len else { return bytes };
    // The SQL layer keeps whole characters (4 bytes each); a smaller count still keeps one.
    let chars = p.div_ceil(PREFIX_BYTES_PER_CHAR) as usize;
    if bytes.len() <= chars {
        return bytes;
    }
    let mut seen = 0;
    for (i, &b) in bytes.iter().enumerate() {
        // Continuation bytes (10xxxxxx) belong to the character before them.
        if b & 0xC0 != 0x80 {
            if seen == chars {
                return &bytes[..i];
            }
            seen += 1;
        }
    }
    bytes
}

fn truncate_prefix(bytes: &[u8], prefix_len: Option<u32>) -> &[u8] {
    match prefix_len {
        Some(n) if (n as usize) < bytes.len() => &bytes[..n as usize],
        _ => bytes,
    }
}

fn encode_f64(out: &mut Vec<u8>, v: f64) {
    // -0.0 == 0.0 in SQL: fold it so equal values have equal keys.
    let v = if v == 0.0 { 0.0 } else { v };
    let bits = v.to_bits();
    let ordered = if bits & SIGN_BIT_64 != 0 { !bits } else { bits ^ SIGN_BIT_64 };
    out.extend_from_slice(&ordered.to_be_bytes());
}

fn encode_stuffed(out: &mut Vec<u8>, bytes: &[u8]) {
    out.reserve(bytes.len() + 2);
    for &b in bytes {
        out.push(b);
        if b == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0x00, 0x00]);
}

/// An integer view of a numeric value. Fractions truncate toward zero (the SQL layer converts
/// predicates like `id > 2.5` to integer bounds; this only has to order consistently).
fn datum_as_i128(d: &Datum) -> i128 {
    match d {
        Datum::Int(v) => *v as i128,
        Datum::UInt(v) => *v as i128,
        Datum::Double(v) => *v as i128, // `as` saturates (and maps NaN to 0)
        Datum::Decimal(v) => {
            v.rescale(0).and_then(|r| r.mantissa_i128()).unwrap_or(if v.is_negative() { i128::MIN } else { i128::MAX })
        }
        Datum::Date(x) => x.0 as i128,
        Datum::DateTime(x) => x.0 as i128,
        Datum::Bytes(_) | Datum::Null => 0,
    }
}

fn datum_as_f64(d: &Datum) -> f64 {
    match d {
        Datum::Double(v) => *v,
        Datum::Int(v) => *v as f64,
        Datum::UInt(v) => *v as f64,
        Datum::Decimal(v) => v.to_f64(),
        other => datum_as_i128(other) as f64,
    }
}

/// The mantissa of `d` at `scale`; `Err(negative)` beyond 76 digits.
fn datum_as_scaled_decimal(d: &Datum, scale: u8) -> std::result::Result<I256, bool> {
    let dec = match d {
        Datum::Decimal(v) => *v,
        Datum::Int(v) => Decimal::from_i64(*v),
        Datum::UInt(v) => Decimal::new(*v as i128, 0),
        Datum::Double(v) => Decimal::parse(&format!("{v:e}")).ok_or(*v < 0.0)?,
        other => Decimal::new(datum_as_i128(other), 0),
    };
    dec.rescale(scale).map(|r| r.mantissa).ok_or(dec.is_negative())
}

/// Whether a DECIMAL column of `precision` digits has 32-byte keys in a table of `key_format`.
fn wide_decimal_key(key_format: u8, precision: u8) -> bool {
    key_format >= KEY_FORMAT_LATIN1_WIDE_DECIMAL && precision > 38
}

fn datum_as_bytes(d: &Datum) -> std::borrow::Cow<'_, [u8]> {
    match d {
        Datum::Bytes(b) => std::borrow::Cow::Borrowed(b.as_slice()),
        Datum::Int(v) => std::borrow::Cow::Owned(v.to_string().into_bytes()),
        Datum::UInt(v) => std::borrow::Cow::Owned(v.to_string().into_bytes()),
        Datum::Double(v) => std::borrow::Cow::Owned(v.to_string().into_bytes()),
        Datum::Decimal(v) => std::borrow::Cow::Owned(v.to_string().into_bytes()),
        Datum::Date(v) => std::borrow::Cow::Owned(v.to_string().into_bytes()),
        Datum::DateTime(v) => std::borrow::Cow::Owned(v.format(6).into_bytes()),
        Datum::Null => std::borrow::Cow::Borrowed(&[]),
    }
}

/// Encoded length of the column value at the start of `key`, or Corruption if it is malformed.
pub fn column_len(key: &[u8], col: &ColumnDef) -> Result<usize> {
    column_len_in(key, col, KEY_FORMAT_BYTES)
}

/// `column_len` in a table of key format `key_format`.
fn column_len_in(key: &[u8], col: &ColumnDef, key_format: u8) -> Result<usize> {
    let corrupt = || StorageError::Corruption("truncated or malformed index key".into());
    let tag = if col.nullable {
        match key.first() {
            Some(&NULL_TAG) => return Ok(1),
            Some(&VALUE_TAG) => 1,
            _ => return Err(corrupt()),
        }
    } else {
        0
    };
    let fixed = match &*col.ty.stored_as() {
        ColumnType::Int { width, .. } => int_bytes(*width),
        ColumnType::Float { .. } | ColumnType::Double { .. } => 8,
        ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } => 8,
        ColumnType::Date => 4,
        ColumnType::Decimal { precision, .. } if wide_decimal_key(key_format, *precision) => 32,
        ColumnType::Decimal { .. } => 16,
        _ => {
            let mut i = tag;
            loop {
                match key.get(i) {
                    Some(0x00) => match key.get(i + 1) {
                        Some(0x00) => return Ok(i + 2),
                        Some(0xFF) => i += 2,
                        _ => return Err(corrupt()),
                    },
                    Some(_) => i += 1,
                    None => return Err(corrupt()),
                }
            }
        }
    };
    if key.len() < tag + fixed {
        return Err(corrupt());
    }
    Ok(tag + fixed)
}

fn out_of_range(col: &ColumnDef, d: &Datum) -> StorageError {
    // The SQL layer converts and range-checks values before storing them; reaching this is a
    // bug there, reported cleanly instead of storing a key that would sort wrongly.
    StorageError::InvalidValue {
        column: col.name.clone(),
        detail: format!("value {d:?} out of range for key column of type {}", col.ty.sql_name()),
    }
}

/// Appends the encoding of the index's columns taken from a full table row.
pub fn encode_index_columns(out: &mut Vec<u8>, table: &TableDef, index: &IndexDef, row: &[Datum]) -> Result<()> {
    for ic in &index.columns {
        let col = &table.columns[ic.column];
        let d = row.get(ic.column).unwrap_or(&Datum::Null);
        if encode_value(out, col, d, ic.prefix_len, table.options.key_format, Source::Row) != Domain::In {
            return Err(out_of_range(col, d));
        }
    }
    Ok(())
}

/// The clustered key of a row of a table with a declared primary key.
pub fn primary_key(table: &TableDef, row: &[Datum]) -> Result<Vec<u8>> {
    debug_assert!(!table.has_hidden_pk());
    let mut out = Vec::with_capacity(16);
    encode_index_columns(&mut out, table, &table.primary, row)?;
    Ok(out)
}

/// The clustered key from primary key values (`pk[i]` is the value of `primary.columns[i]`);
/// None if a value is outside its column's domain (no row can have that key).
pub fn primary_key_lookup(table: &TableDef, pk: &[Datum]) -> Result<Option<Vec<u8>>> {
    if table.has_hidden_pk() || pk.len() != table.primary.columns.len() {
        return Err(StorageError::InvalidValue {
            column: table.primary.name.clone(),
            detail: format!(
                "primary key lookup on `{}` with {} values; the key has {} columns",
                table.name,
                pk.len(),
                table.primary.columns.len()
            ),
        });
    }
    let mut out = Vec::with_capacity(16);
    for (ic, d) in table.primary.columns.iter().zip(pk) {
        let col = &table.columns[ic.column];
        if ic.prefix_len.is_some() && matches!(text_key(table, col), TextKey::SortKey(_)) {
            // A sort key cannot be cut to the prefix's characters: no point lookup.
            return Err(StorageError::InvalidValue {
                column: col.name.clone(),
                detail: "point lookup on a prefix of a collated key column".into(),
            });
        }
        if encode_value(&mut out, col, d, ic.prefix_len, table.options.key_format, Source::Lookup) != Domain::In {
            return Ok(None);
        }
    }
    Ok(Some(out))
}

/// The clustered key bytes (`ScanRow::pk_key`) of a row given its primary key values.
pub fn primary_key_from_values(table: &TableDef, pk: &[Datum]) -> Result<Vec<u8>> {
    primary_key_lookup(table, pk)?.ok_or_else(|| StorageError::InvalidValue {
        column: table.primary.name.clone(),
        detail: format!("primary key value out of range for `{}`: {pk:?}", table.name),
    })
}

pub fn hidden_row_id_key(row_id: u64) -> Vec<u8> {
    row_id.to_be_bytes().to_vec()
}

/// The row id of a hidden-primary-key clustered key.
pub fn hidden_row_id(key: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(key.try_into().ok()?))
}

/// Secondary index entry key: index columns, then the clustered key.
pub fn secondary_key(table: &TableDef, index: &IndexDef, row: &[Datum], pk_key: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(32 + pk_key.len());
    encode_index_columns(&mut out, table, index, row)?;
    out.extend_from_slice(pk_key);
    Ok(out)
}

/// Length of the index-column part of a secondary entry key (the rest is the clustered key).
pub fn secondary_columns_len(table: &TableDef, index: &IndexDef, key: &[u8]) -> Result<usize> {
    let mut off = 0;
    for ic in &index.columns {
        off += column_len_in(&key[off..], &table.columns[ic.column], table.options.key_format)?;
    }
    Ok(off)
}

/// True if any of the index's columns is NULL in `row` (a UNIQUE index then does not constrain
/// the row, as in MariaDB).
pub fn has_null_column(index: &IndexDef, row: &[Datum]) -> bool {
    index.columns.iter().any(|ic| row.get(ic.column).is_none_or(Datum::is_null))
}

/// The smallest byte string greater than every string that starts with `prefix`, or None if
/// there is none (the prefix is all 0xFF).
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut s = prefix.to_vec();
    while let Some(&last) = s.last() {
        if last == 0xFF {
            s.pop();
        } else {
            *s.last_mut().expect("non-empty") += 1;
            return Some(s);
        }
    }
    None
}

/// One side of a range, encoded as a key prefix.
struct EncodedBound {
    prefix: Vec<u8>,
    /// A value was cut by the index prefix length (the bound is then inclusive).
    truncated: bool,
    /// The encoding stopped at a value outside its column's domain.
    cut: Domain,
}

fn encode_bound(table: &TableDef, index: &IndexDef, vals: &[Datum]) -> EncodedBound {
    let mut b = EncodedBound { prefix: Vec::new(), truncated: false, cut: Domain::In };
    for (ic, d) in index.columns.iter().zip(vals) {
        let col = &table.columns[ic.column];
        if let (Some(p), Datum::Bytes(v)) = (ic.prefix_len, d) {
            match text_key(table, col) {
                TextKey::Legacy => b.truncated |= v.len() > p as usize,
                TextKey::Bytes { .. } => b.truncated |= truncate_chars(v, ic.prefix_len).len() < v.len(),
                TextKey::SortKey(_) => {
                    // The stored keys are sort keys of cut values, which a sort key of the
                    // whole value does not bound: the bound stops before this column (wider;
                    // the caller re-checks).
                    b.truncated = true;
                    break;
                }
            }
        }
        b.cut = encode_value(&mut b.prefix, col, d, ic.prefix_len, table.options.key_format, Source::Lookup);
        if b.cut != Domain::In {
            if col.nullable && !d.is_null() {
                // NULL sorts below every value, in the domain or not: the cut lies among the
                // keys that carry the value tag.
                b.prefix.push(VALUE_TAG);
            }
            break;
        }
    }
    b
}

/// Keys that start with `p` or sort after them: `>= p` as a lower bound of key prefixes that
/// excludes `p` itself.
fn after_prefix(p: &[u8]) -> Option<Vec<u8>> {
    prefix_successor(p)
}

/// A lower bound that nothing satisfies.
fn empty_lower() -> Bound<Vec<u8>> {
    // No key is longer than MAX_KEY_LEN, so none sorts at or after this one.
    Bound::Included(vec![0xFF; crate::btree::MAX_KEY_LEN + 1])
}

/// Converts a `KeyRange` over a prefix of the index's columns into bounds on whole keys.
/// A bound is a prefix: `Included(p)` as an upper bound includes every key that starts with `p`.
/// On a prefix-length column a bound value longer than the prefix is truncated, which widens
/// the range (Excluded becomes Included): the caller re-checks its predicates. A bound value
/// outside its column's domain cuts the bound there: below the domain, every key with the
/// earlier columns' prefix lies above it; above the domain, every such key lies below it.
pub fn range_to_bytes(table: &TableDef, index: &IndexDef, range: &KeyRange) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    let lower = match &range.lower {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(v) | Bound::Excluded(v) if v.is_empty() => Bound::Unbounded,
        Bound::Included(v) | Bound::Excluded(v) => {
            let inclusive = matches!(range.lower, Bound::Included(_));
            let b = encode_bound(table, index, v);
            match b.cut {
                Domain::Below => Bound::Included(b.prefix),
                Domain::Above => after_prefix(&b.prefix).map_or_else(empty_lower, Bound::Included),
                Domain::In if inclusive || b.truncated => Bound::Included(b.prefix),
                Domain::In => after_prefix(&b.prefix).map_or_else(empty_lower, Bound::Included),
            }
        }
    };
    let upper = match &range.upper {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(v) | Bound::Excluded(v) if v.is_empty() => Bound::Unbounded,
        Bound::Included(v) | Bound::Excluded(v) => {
            let inclusive = matches!(range.upper, Bound::Included(_));
            let b = encode_bound(table, index, v);
            match b.cut {
                Domain::Below => Bound::Excluded(b.prefix),
                Domain::Above => after_prefix(&b.prefix).map_or(Bound::Unbounded, Bound::Excluded),
                Domain::In if inclusive || b.truncated => {
                    after_prefix(&b.prefix).map_or(Bound::Unbounded, Bound::Excluded)
                }
                Domain::In => Bound::Excluded(b.prefix),
            }
        }
    };
    (lower, upper)
}

/// True if `key` lies within the byte bounds.
pub fn in_bounds(key: &[u8], lower: &Bound<Vec<u8>>, upper: &Bound<Vec<u8>>) -> bool {
    let above = match lower {
        Bound::Unbounded => true,
        Bound::Included(l) => key >= l.as_slice(),
        Bound::Excluded(l) => key > l.as_slice(),
    };
    let below = match upper {
        Bound::Unbounded => true,
        Bound::Included(u) => key <= u.as_slice(),
        Bound::Excluded(u) => key < u.as_slice(),
    };
    above && below
}

/// The key value of a duplicate-key error as MariaDB shows it: the index columns of the row,
/// joined by '-' (`Duplicate entry '1-abc' for key 'PRIMARY'`).
pub fn format_key_value(table: &TableDef, index: &IndexDef, row: &[Datum]) -> String {
    let mut parts = Vec::with_capacity(index.columns.len());
    for ic in &index.columns {
        let col = &table.columns[ic.column];
        let d = row.get(ic.column).unwrap_or(&Datum::Null);
        // The row's value (a sort key cannot show it), cut as the key cuts it.
        let prefix_chars = text_key(table, col) != TextKey::Legacy;
        parts.push(format_datum(&col.ty, d, ic.prefix_len, prefix_chars));
    }
    let s = parts.join("-");
    if s.len() <= DUPLICATE_VALUE_MAX_BYTES {
        return s;
    }
    let mut cut = DUPLICATE_VALUE_MAX_BYTES - TRUNCATION_MARK.len();
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{TRUNCATION_MARK}", &s[..cut])
}

/// A binary string as MariaDB's err_conv shows it in messages: printable ASCII as it is, every
/// other byte as \xHH ('\x00\x11"3DUfw\x88').
fn escaped_binary(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if (0x20..=0x7E).contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

fn format_datum(ty: &ColumnType, d: &Datum, prefix_len: Option<u32>, prefix_chars: bool) -> String {
    match d {
        Datum::Null => "NULL".into(),
        Datum::Int(v) => v.to_string(),
        Datum::UInt(v) => v.to_string(),
        Datum::Double(v) => {
            let v = if matches!(ty, ColumnType::Float { .. }) { *v as f32 as f64 } else { *v };
            format!("{v}")
        }
        Datum::Decimal(v) => match ty {
            ColumnType::Decimal { scale, .. } => v.rescale(*scale).unwrap_or(*v).to_string(),
            _ => v.to_string(),
        },
        // A binary column's bytes, escaped; BINARY(n) without the zero bytes that pad it, a BLOB
        // whole (MariaDB does not cut it to the prefix), VARBINARY cut to the prefix.
        Datum::Bytes(b) if matches!(ty, ColumnType::Binary { .. }) => {
            let end = b.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
            escaped_binary(truncate_prefix(&b[..end], prefix_len))
        }
        Datum::Bytes(b) if matches!(ty, ColumnType::Blob { .. }) => escaped_binary(b),
        Datum::Bytes(b) if matches!(ty, ColumnType::VarBinary { .. }) => escaped_binary(truncate_prefix(b, prefix_len)),
        Datum::Bytes(b) if prefix_chars => String::from_utf8_lossy(truncate_chars(b, prefix_len)).into_owned(),
        Datum::Bytes(b) => String::from_utf8_lossy(truncate_prefix(b, prefix_len)).into_owned(),
        Datum::Date(v) => v.to_string(),
        Datum::DateTime(v) => {
            let fsp = match ty {
                ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } => *fsp,
                _ => 0,
            };
            v.format(fsp)
        }
    }
}

/// The declared maximum byte length of an index (MariaDB's ER_TOO_LONG_KEY check at DDL).
pub fn declared_key_bytes(columns: &[ColumnDef], index_columns: &[IndexColumn]) -> usize {
    index_columns
        .iter()
        .map(|ic| {
            let col = &columns[ic.column];
            let full = match &*col.ty.stored_as() {
                ColumnType::Int { .. } | ColumnType::Float { .. } | ColumnType::Double { .. } => 8,
                ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } => 8,
                ColumnType::Date => 3,
                ColumnType::Decimal { precision, .. } if *precision > 38 => 32,
                ColumnType::Decimal { .. } => 16,
                ColumnType::Char { len } | ColumnType::VarChar { len } => *len as usize * MAX_BYTES_PER_CHAR,
                ColumnType::Binary { len } | ColumnType::VarBinary { len } => *len as usize,
                ColumnType::Text { size } | ColumnType::Blob { size } => size.max_len() as usize,
                // Newer types are mapped to the type they are stored as.
                _ => {
                    unreachable!("stored_as maps newer types to the type they are stored as")
                }
            };
            match ic.prefix_len {
                Some(p) => full.min(p as usize),
                None => full,
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn int_ty(width: IntWidth, unsigned: bool) -> ColumnType {
        ColumnType::Int { width, unsigned, display_width: None }
    }

    fn col(ty: ColumnType, nullable: bool) -> ColumnDef {
        ColumnDef {
            name: "c".into(),
            ty,
            nullable,
            default: ColumnDefault::None,
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: String::new(),
            zerofill: false,
            generated: None,
            collation: String::new(),
        }
    }

    fn enc(c: &ColumnDef, d: &Datum) -> Vec<u8> {
        let mut v = Vec::new();
        assert_eq!(encode_datum(&mut v, c, d, None), Domain::In, "{d:?}");
        v
    }

    /// The SQL order of two values of one column type (NULL first).
    fn sql_cmp(ty: &ColumnType, a: &Datum, b: &Datum) -> std::cmp::Ordering {
        use std::cmp::Ordering::*;
        match (a, b) {
            (Datum::Null, Datum::Null) => Equal,
            (Datum::Null, _) => Less,
            (_, Datum::Null) => Greater,
            (Datum::Int(x), Datum::Int(y)) => x.cmp(y),
            (Datum::UInt(x), Datum::UInt(y)) => x.cmp(y),
            (Datum::Double(x), Datum::Double(y)) => match ty {
                ColumnType::Float { .. } => (*x as f32).partial_cmp(&(*y as f32)).unwrap(),
                _ => x.partial_cmp(y).unwrap(),
            },
            (Datum::Decimal(x), Datum::Decimal(y)) => x.cmp(y),
            (Datum::Bytes(x), Datum::Bytes(y)) => {
                if ty.is_string() {
                    let strip = |s: &[u8]| s[..s.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1)].to_vec();
                    strip(x).cmp(&strip(y))
                } else {
                    x.cmp(y)
                }
            }
            (Datum::Date(x), Datum::Date(y)) => x.cmp(y),
            (Datum::DateTime(x), Datum::DateTime(y)) => x.cmp(y),
            _ => unreachable!("values of one column have one kind"),
        }
    }

    /// A column of kind `ty_idx` (nullable or not) and a strategy for its values.
    fn column_and_values(ty_idx: u8, nullable: bool) -> (ColumnDef, BoxedStrategy<Datum>) {
        let (ty, values): (ColumnType, BoxedStrategy<Datum>) = match ty_idx % 11 {
            0 => (int_ty(IntWidth::Big, false), any::<i64>().prop_map(Datum::Int).boxed()),
            1 => (int_ty(IntWidth::Big, true), any::<u64>().prop_map(Datum::UInt).boxed()),
            2 => (int_ty(IntWidth::Tiny, false), (-128i64..=127).prop_map(Datum::Int).boxed()),
            3 => (int_ty(IntWidth::Medium, true), (0u64..1 << 24).prop_map(Datum::UInt).boxed()),
            4 => (int_ty(IntWidth::Int, false), any::<i32>().prop_map(|v| Datum::Int(v as i64)).boxed()),
            5 => (
                ColumnType::DOUBLE,
                prop_oneof![any::<f64>().prop_filter("finite", |f| f.is_finite()), Just(0.0), Just(-0.0)]
                    .prop_map(Datum::Double)
                    .boxed(),
            ),
            6 => (ColumnType::FLOAT, (-1e30f64..1e30).prop_map(Datum::Double).boxed()),
            7 => (
                ColumnType::Decimal { precision: 20, scale: 4, unsigned: false },
                (-10i128.pow(16)..10i128.pow(16)).prop_map(|m| Datum::Decimal(Decimal::new(m, 4))).boxed(),
            ),
            8 => (
                ColumnType::VarBinary { len: 64 },
                proptest::collection::vec(prop_oneof![Just(0u8), Just(0xFF), Just(1), any::<u8>()], 0..6)
                    .prop_map(Datum::Bytes)
                    .boxed(),
            ),
            9 => (
                ColumnType::VarChar { len: 64 },
                proptest::collection::vec(prop_oneof![Just(b' '), Just(b'a'), Just(0u8), Just(b'~')], 0..6)
                    .prop_map(Datum::Bytes)
                    .boxed(),
            ),
            _ => (ColumnType::DateTime { fsp: 6 }, any::<i64>().prop_map(|v| Datum::DateTime(DateTime(v))).boxed()),
        };
        let values = if nullable { prop_oneof![1 => Just(Datum::Null), 8 => values].boxed() } else { values };
        (col(ty, nullable), values)
    }

    fn two_values() -> impl Strategy<Value = (ColumnDef, Datum, Datum)> {
        (0u8..11, any::<bool>()).prop_flat_map(|(t, nullable)| {
            let (c, values) = column_and_values(t, nullable);
            (Just(c), values.clone(), values)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            if std::env::var("SELKIE_STRESS").is_ok() { 20_000 } else { 800 }))]

        #[test]
        fn byte_order_is_value_order((c, a, b) in two_values()) {
            prop_assert_eq!(enc(&c, &a).cmp(&enc(&c, &b)), sql_cmp(&c.ty, &a, &b), "{:?} vs {:?}", a, b);
            let k = enc(&c, &a);
            prop_assert_eq!(column_len(&k, &c).unwrap(), k.len());
        }

        #[test]
        fn composite_keys_compare_column_by_column(
            a1 in proptest::collection::vec(prop_oneof![Just(0u8), Just(1), Just(0xFF)], 0..4),
            a2 in any::<i16>(),
            b1 in proptest::collection::vec(prop_oneof![Just(0u8), Just(1), Just(0xFF)], 0..4),
            b2 in any::<i16>(),
        ) {
            let bin = col(ColumnType::VarBinary { len: 10 }, true);
            let int = col(int_ty(IntWidth::Small, false), false);
            let key = |s: &Vec<u8>, i: i16| {
                let mut v = enc(&bin, &Datum::Bytes(s.clone()));
                v.extend(enc(&int, &Datum::Int(i as i64)));
                v
            };
            let expected = a1.cmp(&b1).then(a2.cmp(&b2));
            prop_assert_eq!(key(&a1, a2).cmp(&key(&b1, b2)), expected);
            // column_len finds the boundary between the two columns
            let k = key(&a1, a2);
            let l = column_len(&k, &bin).unwrap();
            prop_assert_eq!(column_len(&k[l..], &int).unwrap(), k.len() - l);
        }

        #[test]
        fn prefix_bounds_cover_longer_keys(p in proptest::collection::vec(any::<u8>(), 0..5),
                                           tail in proptest::collection::vec(any::<u8>(), 0..5)) {
            let mut longer = p.clone();
            longer.extend_from_slice(&tail);
            match prefix_successor(&p) {
                Some(s) => prop_assert!(longer < s && p < s),
                None => prop_assert!(p.iter().all(|&b| b == 0xFF)),
            }
        }

        /// Range bounds with values anywhere (also outside a TINYINT's domain) select exactly
        /// the keys whose values satisfy them.
        #[test]
        fn ranges_select_what_the_values_say(
            lo in prop_oneof![Just(None), (-300i64..300).prop_map(Some)],
            hi in prop_oneof![Just(None), (-300i64..300).prop_map(Some)],
            lo_inc in any::<bool>(), hi_inc in any::<bool>(),
        ) {
            let t = tiny_table();
            let bound = |v: Option<i64>, inc: bool| match v {
                None => Bound::Unbounded,
                Some(v) if inc => Bound::Included(vec![Datum::Int(v)]),
                Some(v) => Bound::Excluded(vec![Datum::Int(v)]),
            };
            let range = KeyRange { lower: bound(lo, lo_inc), upper: bound(hi, hi_inc) };
            let (l, u) = range_to_bytes(&t, &t.primary, &range);
            for a in -128i64..=127 {
                for b in [-128i64, 0, 127] {
                    let key = primary_key(&t, &[Datum::Int(a), Datum::Int(b)]).unwrap();
                    let want = match lo { None => true, Some(v) => if lo_inc { a >= v } else { a > v } }
                        && match hi { None => true, Some(v) => if hi_inc { a <= v } else { a < v } };
                    prop_assert_eq!(in_bounds(&key, &l, &u), want, "a={} range {:?}", a, range);
                }
            }
        }
    }

    #[test]
    fn decimal_keys_by_width_round_trip_in_order() {
        let dec = |s: &str| Datum::Decimal(Decimal::parse(s).unwrap());
        let max30 = format!("{}.{}", "9".repeat(35), "9".repeat(30));
        let wide30 = col(ColumnType::Decimal { precision: 65, scale: 30, unsigned: false }, true);
        let wide0 = col(ColumnType::Decimal { precision: 65, scale: 0, unsigned: false }, false);
        let narrow = col(ColumnType::Decimal { precision: 38, scale: 2, unsigned: false }, false);
        let key = |c: &ColumnDef, d: &Datum, format: u8| {
            let mut v = Vec::new();
            let dom = encode_value(&mut v, c, d, None, format, Source::Row);
            (dom, v)
        };
        // Narrow columns keep the 16-byte form in every format (existing indexes stay valid).
        let (_, k) = key(&narrow, &dec("-12.5"), KEY_FORMAT_CURRENT);
        assert_eq!(k, enc(&narrow, &dec("-12.5")));
        assert_eq!(k.len(), 16);
        // Wide columns: 32 bytes in the current format, values in increasing order.
        for (c, values) in [
            (
                &wide30,
                vec![
                    format!("-{max30}"),
                    "-1.5".into(),
                    "-0.000000000000000000000000000001".into(),
                    "0".into(),
                    "1.5".into(),
                    "12345678901234567890.123".into(),
                    max30.clone(),
                ],
            ),
            (
                &wide0,
                vec![
                    format!("-{}", "9".repeat(65)),
                    "-170141183460469231731687303715884105729".into(),
                    "-1".into(),
                    "0".into(),
                    "5".into(),
                    "9".repeat(65),
                ],
            ),
        ] {
            let keys: Vec<Vec<u8>> = values
                .iter()
                .map(|v| {
                    let (dom, k) = key(c, &dec(v), KEY_FORMAT_CURRENT);
                    assert_eq!(dom, Domain::In, "{v}");
                    assert_eq!(column_len_in(&k, c, KEY_FORMAT_CURRENT).unwrap(), k.len());
                    assert_eq!(k.len(), 32 + c.nullable as usize);
                    k
                })
                .collect();
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "{values:?}");
        }
        // An older table keys a wide column in 16 bytes; a value beyond i128 has no key there.
        let (dom, k) = key(&wide30, &dec("1.5"), KEY_FORMAT_UCA);
        assert_eq!((dom, k.len(), column_len(&k, &wide30).unwrap()), (Domain::In, 17, 17));
        assert_eq!(key(&wide30, &dec(&max30), KEY_FORMAT_UCA).0, Domain::Above);
        assert_eq!(key(&wide30, &dec(&format!("-{max30}")), KEY_FORMAT_UCA).0, Domain::Below);
        assert_eq!(key(&wide0, &Datum::Double(1e80), KEY_FORMAT_CURRENT).0, Domain::Above);
        assert_eq!(key(&wide0, &Datum::Double(-1e80), KEY_FORMAT_CURRENT).0, Domain::Below);
    }

    fn tiny_table() -> TableDef {
        let mut t = table();
        t.columns[0].ty = int_ty(IntWidth::Tiny, false);
        t.columns[1] = col(int_ty(IntWidth::Tiny, false), false);
        t
    }

    #[test]
    fn keys_are_as_short_as_their_columns() {
        let int = col(int_ty(IntWidth::Int, false), false);
        assert_eq!(enc(&int, &Datum::Int(5)), vec![0x80, 0, 0, 5]);
        assert_eq!(enc(&int, &Datum::Int(-1)), vec![0x7F, 0xFF, 0xFF, 0xFF]);
        let nullable_uint = col(int_ty(IntWidth::Small, true), true);
        assert_eq!(enc(&nullable_uint, &Datum::UInt(258)), vec![0x01, 1, 2]);
        assert_eq!(enc(&nullable_uint, &Datum::Null), vec![0x00]);
        let mut v = Vec::new();
        assert_eq!(encode_datum(&mut v, &int, &Datum::Null, None), Domain::Below);
        assert_eq!(encode_datum(&mut v, &int, &Datum::Int(1 << 31), None), Domain::Above);
        assert_eq!(encode_datum(&mut v, &nullable_uint, &Datum::Int(-1), None), Domain::Below);
        assert!(v.is_empty());
    }

    #[test]
    fn prefix_truncation_and_pad_space() {
        let vc = col(ColumnType::VarChar { len: 10 }, true);
        let mut a = Vec::new();
        encode_datum(&mut a, &vc, &Datum::Bytes(b"abcdef".to_vec()), Some(3));
        assert_eq!(a, enc(&vc, &Datum::Bytes(b"abc".to_vec())));
        assert_eq!(enc(&vc, &Datum::Bytes(b"a  ".to_vec())), enc(&vc, &Datum::Bytes(b"a".to_vec())));
        let vb = col(ColumnType::VarBinary { len: 10 }, true);
        assert_ne!(enc(&vb, &Datum::Bytes(b"a ".to_vec())), enc(&vb, &Datum::Bytes(b"a".to_vec())));
        let d = col(ColumnType::DOUBLE, false);
        assert_eq!(enc(&d, &Datum::Double(-0.0)), enc(&d, &Datum::Double(0.0)));
    }

    fn table() -> TableDef {
        TableDef {
            row_versions: Default::default(),
            id: 1,
            db: "d".into(),
            name: "t".into(),
            columns: vec![col(int_ty(IntWidth::Big, false), false), col(ColumnType::VarChar { len: 10 }, false)],
            primary: IndexDef {
                id: 1,
                name: "PRIMARY".into(),
                columns: vec![
                    IndexColumn { column: 0, prefix_len: None, descending: false },
                    IndexColumn { column: 1, prefix_len: None, descending: false },
                ],
                unique: true,
                primary: true,
                root: 0,
            },
            secondary: vec![],
            options: TableOptions::default(),
            constraints: Default::default(),
        }
    }

    #[test]
    fn range_bounds_on_a_prefix_of_the_columns() {
        let t = table();
        let key = |a: i64, b: &str| primary_key(&t, &[Datum::Int(a), Datum::Bytes(b.as_bytes().to_vec())]).unwrap();
        let keys: Vec<Vec<u8>> = vec![key(4, "z"), key(5, ""), key(5, "a"), key(5, "zz"), key(6, "")];
        let check = |range: KeyRange, expect: &[usize]| {
            let (lo, hi) = range_to_bytes(&t, &t.primary, &range);
            let got: Vec<usize> = (0..keys.len()).filter(|&i| in_bounds(&keys[i], &lo, &hi)).collect();
            assert_eq!(got, expect, "{range:?}");
        };
        check(KeyRange::point(vec![Datum::Int(5)]), &[1, 2, 3]);
        check(KeyRange { lower: Bound::Excluded(vec![Datum::Int(5)]), upper: Bound::Unbounded }, &[4]);
        check(KeyRange { lower: Bound::Unbounded, upper: Bound::Excluded(vec![Datum::Int(5)]) }, &[0]);
        check(
            KeyRange {
                lower: Bound::Included(vec![Datum::Int(5), Datum::Bytes(b"a".to_vec())]),
                upper: Bound::Included(vec![Datum::Int(6)]),
            },
            &[2, 3, 4],
        );
        check(KeyRange::all(), &[0, 1, 2, 3, 4]);
        // NULL is below every value of a NOT NULL column: `a = 5 AND b IS NULL` is empty,
        // `(a, b) > (5, NULL)` is everything from a = 5 on.
        check(KeyRange::point(vec![Datum::Int(5), Datum::Null]), &[]);
        check(
            KeyRange { lower: Bound::Excluded(vec![Datum::Int(5), Datum::Null]), upper: Bound::Unbounded },
            &[1, 2, 3, 4],
        );
        check(KeyRange::point(vec![Datum::Null]), &[]);
        assert_eq!(primary_key_lookup(&t, &[Datum::Null, Datum::Bytes(vec![])]).unwrap(), None);
    }

    #[test]
    fn duplicate_entry_text() {
        let t = table();
        let row = [Datum::Int(1), Datum::Bytes(b"abc".to_vec())];
        assert_eq!(format_key_value(&t, &t.primary, &row), "1-abc");
        // MariaDB's %-.64T: at most 64 bytes, else whole characters within 61 and "...".
        let row = [Datum::Int(1), Datum::Bytes("é".repeat(40).into_bytes())];
        assert_eq!(format_key_value(&t, &t.primary, &row), format!("1-{}...", "é".repeat(29)));
    }

    #[test]
    fn duplicate_entry_text_of_binary_columns_escapes_bytes() {
        let t = TableDef {
            columns: vec![
                col(ColumnType::VarBinary { len: 40 }, false),
                col(ColumnType::Binary { len: 4 }, false),
                col(ColumnType::Blob { size: LobSize::Normal }, true),
            ],
            ..table()
        };
        let ix = |columns: Vec<IndexColumn>| IndexDef { columns, ..t.primary.clone() };
        let row = [
            Datum::Bytes(vec![0x00, 0x11, b'"', b'3', 0x88, 0xAA, 0x7F]),
            Datum::Bytes(vec![b'A', 0x00, 0xFF, 0x00]),
            Datum::Bytes(vec![0xFF; 12]),
        ];
        let whole = |c| IndexColumn { column: c, prefix_len: None, ..t.primary.columns[0].clone() };
        assert_eq!(
            format_key_value(&t, &ix(vec![whole(0), whole(1)]), &row),
            "\\x00\\x11\"3\\x88\\xAA\\x7F-A\\x00\\xFF"
        );
        // A BLOB prefix shows the whole value, as MariaDB does.
        let prefix = IndexColumn { prefix_len: Some(2), ..whole(2) };
        assert_eq!(format_key_value(&t, &ix(vec![prefix]), &row), "\\xFF".repeat(12));
    }

    #[test]
    fn malformed_keys_are_errors() {
        let vc = col(ColumnType::VarChar { len: 3 }, true);
        assert!(column_len(&[], &vc).is_err());
        assert!(column_len(&[0x01, b'a', 0x00], &vc).is_err());
        assert!(column_len(&[0x01, b'a', 0x00, 0x07], &vc).is_err());
        assert!(column_len(&[0x02], &vc).is_err());
        assert!(column_len(&[1, 2], &col(int_ty(IntWidth::Int, false), false)).is_err());
        assert!(primary_key(&table(), &[Datum::Null, Datum::Bytes(vec![])]).is_err());
    }

    /// `table()` with key format 2 and column 1 (VARCHAR) in `collation`, keyed by (b) alone in
    /// a secondary index `ix` with prefix `prefix` (bytes, 4 per character).
    fn collated(collation: &str, prefix: Option<u32>) -> (TableDef, IndexDef) {
        let mut t = table();
        t.options.key_format = KEY_FORMAT_COLLATED;
        t.columns[1].collation = collation.into();
        let ix = IndexDef {
            id: 2,
            name: "ix".into(),
            columns: vec![IndexColumn { column: 1, prefix_len: prefix, descending: false }],
            unique: true,
            primary: false,
            root: 0,
        };
        (t, ix)
    }

    fn ix_key(t: &TableDef, ix: &IndexDef, v: &str) -> Vec<u8> {
        let mut out = Vec::new();
        encode_index_columns(&mut out, t, ix, &[Datum::Int(1), Datum::Bytes(v.as_bytes().to_vec())]).unwrap();
        out
    }

    #[test]
    fn collated_keys_follow_the_collation() {
        let (t, ix) = collated("utf8mb4_general_ci", None);
        let k = |v: &str| ix_key(&t, &ix, v);
        // Equal under the collation: one key (a UNIQUE index refuses the second).
        assert_eq!(k("a"), k("A"));
        assert_eq!(k("abc"), k("ABC  "));
        assert_eq!(k("e"), k("é"));
        assert_ne!(k("a"), k("b"));
        // Order: memcmp of keys is the collation's order, PAD SPACE included.
        let sorted = ["", "a\t", "A", "ab", "B", "b c", "Zz", "zzzzzzzzzzzzzzzzz"];
        for w in sorted.windows(2) {
            assert!(k(w[0]) < k(w[1]), "{:?} < {:?}", w[0], w[1]);
        }
        // The bytes of a key with a zero weight are stuffed, so composite keys split cleanly.
        assert_eq!(column_len(&k("\0x"), &t.columns[1]).unwrap(), k("\0x").len());
        // A lookup takes the sort key: `lookup_value` of 'A' finds 'a'.
        let lookup = lookup_value(&t, &t.columns[1], &Datum::Bytes(b"A".to_vec()));
        let (lo, hi) = range_to_bytes(&t, &ix, &KeyRange::point(vec![lookup]));
        assert!(in_bounds(&k("a"), &lo, &hi));
        assert!(!in_bounds(&k("b"), &lo, &hi));
        assert_eq!(key_collation(&t, &t.columns[1]).map(|c| c.name()), Some("utf8mb4_general_ci"));
        assert_eq!(key_collation(&t, &t.columns[0]), None);
    }

    #[test]
    fn collated_keys_by_collation_and_format() {
        let (t, ix) = collated("latin1_swedish_ci", None);
        assert_eq!(ix_key(&t, &ix, "ä"), ix_key(&t, &ix, "Ä"));
        assert!(ix_key(&t, &ix, "z") < ix_key(&t, &ix, "ä"), "Swedish letters sort after Z");
        // utf8mb4_bin keeps its bytes, trailing spaces dropped; NO PAD keeps them.
        let (t, ix) = collated("utf8mb4_bin", None);
        assert_ne!(ix_key(&t, &ix, "a"), ix_key(&t, &ix, "A"));
        assert_eq!(ix_key(&t, &ix, "a "), ix_key(&t, &ix, "a"));
        assert_eq!(lookup_value(&t, &t.columns[1], &Datum::Bytes(b"A".to_vec())), Datum::Bytes(b"A".to_vec()));
        let (t, ix) = collated("utf8mb4_nopad_bin", None);
        assert_ne!(ix_key(&t, &ix, "a "), ix_key(&t, &ix, "a"));
        // Tables built before collation keys keep byte keys whatever the collation.
        let (mut t, ix) = collated("utf8mb4_general_ci", None);
        t.options.key_format = KEY_FORMAT_BYTES;
        assert_ne!(ix_key(&t, &ix, "a"), ix_key(&t, &ix, "A"));
        assert_eq!(ix_key(&t, &ix, "a"), enc(&t.columns[1], &Datum::Bytes(b"a".to_vec())));
        assert_eq!(key_collation(&t, &t.columns[1]), None);
    }

    #[test]
    fn uca_keys_by_format() {
        // Tables created now: UCA sort keys ('ß' = 'ss' under utf8mb4_unicode_ci).
        let (mut t, ix) = collated("utf8mb4_unicode_ci", None);
        t.options.key_format = KEY_FORMAT_UCA;
        assert_eq!(ix_key(&t, &ix, "ß"), ix_key(&t, &ix, "SS"));
        assert_eq!(key_collation(&t, &t.columns[1]).map(|c| c.name()), Some("utf8mb4_unicode_ci"));
        // Format 2 tables keep the general_ci keys they were written with ('ß' = 's'), and
        // say so, so that the planner does not serve UCA comparisons from them.
        t.options.key_format = KEY_FORMAT_COLLATED;
        assert_eq!(ix_key(&t, &ix, "ß"), ix_key(&t, &ix, "s"));
        assert_ne!(ix_key(&t, &ix, "ß"), ix_key(&t, &ix, "ss"));
        assert_eq!(key_collation(&t, &t.columns[1]).map(|c| c.name()), Some("utf8mb4_general_ci"));
    }

    #[test]
    fn latin1_general_keys_by_format() {
        // Tables created now: latin1_general_ci's own weights ('ä' after 'a', 'Ä' = 'ä').
        let (mut t, ix) = collated("latin1_general_ci", None);
        t.options.key_format = KEY_FORMAT_CURRENT;
        let key = |t: &TableDef, v: &str| ix_key(t, &ix, v);
        assert_ne!(key(&t, "ä"), key(&t, "a"));
        assert_eq!(key(&t, "ä"), key(&t, "Ä"));
        assert!(key(&t, "a") < key(&t, "ä") && key(&t, "ä") < key(&t, "b"));
        assert_eq!(key_collation(&t, &t.columns[1]).map(|c| c.name()), Some("latin1_general_ci"));
        assert!(keys_survive_rebuild(&t, &ix));
        // Older formats keep the latin1_swedish_ci keys they were written with, and say so.
        t.options.key_format = KEY_FORMAT_UCA;
        assert_eq!(key_collation(&t, &t.columns[1]).map(|c| c.name()), Some("latin1_swedish_ci"));
        assert!(!keys_survive_rebuild(&t, &ix));
    }

    #[test]
    fn pad_space_bin_and_fixed_binary_keys_by_format() {
        // Tables created now: utf8mb4_bin keys are PAD SPACE sort keys ('a\t' < 'a' < 'a!').
        let (mut t, ix) = collated("utf8mb4_bin", None);
        t.options.key_format = KEY_FORMAT_CURRENT;
        let key = |t: &TableDef, v: &str| ix_key(t, &ix, v);
        assert_eq!(key(&t, "a "), key(&t, "a"));
        assert_ne!(key(&t, "a"), key(&t, "A"));
        assert!(key(&t, "a\t") < key(&t, "a") && key(&t, "a") < key(&t, "a!"));
        assert_eq!(key_collation(&t, &t.columns[1]).map(|c| c.name()), Some("utf8mb4_bin"));
        // Older formats keep the bytes without trailing spaces, and say so.
        t.options.key_format = KEY_FORMAT_LATIN1_WIDE_DECIMAL;
        assert!(key(&t, "a\t") > key(&t, "a"));
        assert_eq!(key_collation(&t, &t.columns[1]), None);
        assert!(!keys_survive_rebuild(&t, &ix));
        // INET4 / UUID columns: their binary form now, their text before.
        let (mut t, ix) = collated("", None);
        let key = |t: &TableDef, v: &str| ix_key(t, &ix, v);
        t.columns[1].ty = ColumnType::Inet4;
        t.options.key_format = KEY_FORMAT_CURRENT;
        assert!(key(&t, "10.0.0.2") < key(&t, "10.0.0.10"));
        assert_eq!(key(&t, "010.0.0.2"), key(&t, "10.0.0.2"));
        assert_eq!(key_collation(&t, &t.columns[1]).map(|c| c.name()), Some("inet4"));
        t.options.key_format = KEY_FORMAT_LATIN1_WIDE_DECIMAL;
        assert!(key(&t, "10.0.0.2") > key(&t, "10.0.0.10"));
        assert_eq!(key_collation(&t, &t.columns[1]), None);
        t.columns[1].ty = ColumnType::Uuid;
        t.options.key_format = KEY_FORMAT_CURRENT;
        // A version 1 UUID sorts by its time fields: node first.
        assert!(key(&t, "ffffffff-0000-1000-8000-000000000001") < key(&t, "00000000-0000-1000-8000-000000000002"));
    }

    #[test]
    fn collated_prefixes_count_characters() {
        // KEY(b(2)): two characters, however many bytes they take.
        let (t, ix) = collated("utf8mb4_general_ci", Some(2 * PREFIX_BYTES_PER_CHAR));
        assert_eq!(ix_key(&t, &ix, "éèx"), ix_key(&t, &ix, "EE"));
        assert_ne!(ix_key(&t, &ix, "éèx"), ix_key(&t, &ix, "E"));
        let (t, ix) = collated("utf8mb4_bin", Some(2 * PREFIX_BYTES_PER_CHAR));
        assert_eq!(ix_key(&t, &ix, "abcdefgh"), ix_key(&t, &ix, "ab"));
        assert_eq!(format_key_value(&t, &ix, &[Datum::Int(1), Datum::Bytes("éèx".as_bytes().to_vec())]), "éè");
        // A bound on a collated prefix column stops before it: every key matches.
        let (t, ix) = collated("utf8mb4_general_ci", Some(2 * PREFIX_BYTES_PER_CHAR));
        let v = lookup_value(&t, &t.columns[1], &Datum::Bytes(b"zz".to_vec()));
        let (lo, hi) = range_to_bytes(&t, &ix, &KeyRange::point(vec![v]));
        assert!(in_bounds(&ix_key(&t, &ix, "a"), &lo, &hi));
    }

    #[test]
    fn duplicate_entry_text_is_the_rows_value() {
        let (t, ix) = collated("utf8mb4_general_ci", None);
        let row = [Datum::Int(1), Datum::Bytes(b"Abc".to_vec())];
        assert_eq!(format_key_value(&t, &ix, &row), "Abc");
    }
}
