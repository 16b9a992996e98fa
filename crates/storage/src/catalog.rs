//! The persisted catalog (docs/architecture.md §4.9).
//!
//! System tree 0 holds the schema as MVCC records written by DDL transactions through the same
//! write path as table rows (so DDL commits, rolls back and recovers like any transaction):
//! - `0x01 | database name` → DatabaseDef
//! - `0x02 | table id (u32 BE)` → TableDef (with index ids and tree roots; keyed by id, so a
//!   rename is an update)
//! - `0x03` → the id counters (table and index ids are never reused)
//!
//! System tree 1 holds per-table counters outside MVCC (key: table id u32 BE): the
//! AUTO_INCREMENT counter and the approximate row count, written at checkpoints.
//!
//! Format 2 ends every column and every table with a list of tagged attributes (`ATTR_*`):
//! `count varint`, then per attribute `tag u8 | length varint | bytes`. New schema features
//! (collations, generated columns, constraints, instant-ALTER versions...) add a tag instead of
//! changing the fixed layout. A reader refuses a tag it does not know (a newer binary's catalog
//! must not be read as if the feature were absent). Format 1 records (no attribute lists) are
//! still read.
//!
//! The in-memory `Catalog` (types.rs) is built from these records at open and replaced as a
//! whole when a DDL commits. Next to it, a `Registry` of `TableRuntime`s holds the counters of
//! each table (AUTO_INCREMENT, hidden row ids, row count base).

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwap;
use parking_lot::Mutex;

use crate::btree::{BTree, Change};
use crate::buffer::PageStore;
use crate::error::{Result, StorageError};
use crate::mtr::Mtr;
use crate::rowcodec::{put_bytes, put_decimal_mantissa, put_varint, unzigzag, zigzag, Reader};
use crate::trx::logrec::LogRecord;
use crate::trx::record::{RecHeader, HEADER_LEN};
use crate::types::*;
use crate::wal::Lsn;

/// System tree numbers (`PageStore::system_tree_root`).
pub const CATALOG_TREE: usize = 0;
pub const COUNTERS_TREE: usize = 1;
/// Index ids of the system trees (undo records name trees by index id).
pub const CATALOG_INDEX_ID: IndexId = 0;
pub const COUNTERS_INDEX_ID: IndexId = 1;
/// User table and index ids start here; ids below are reserved for system trees.
pub const FIRST_USER_ID: u32 = 64;
/// Version byte at the start of every catalog payload written now.
const CATALOG_FORMAT: u8 = 2;
/// The first format: no attribute lists after columns and tables. Still read.
const CATALOG_FORMAT_V1: u8 = 1;

// Column attribute tags (each owned by one feature; never reuse a number): see `ATTR_COLUMN_*`
// next to `column_attrs`.

// Table attribute tags.
/// The table's FOREIGN KEY constraints (`put_foreign_keys`).
const ATTR_TABLE_FOREIGN_KEYS: u8 = 1;
/// The table's CHECK constraints (`put_checks`).
const ATTR_TABLE_CHECKS: u8 = 2;
/// Row layouts of instant ALTER TABLE (`TableDef::row_versions`; absent when empty).
const ATTR_TABLE_ROW_VERSIONS: u8 = 3;
/// A sequence's options (`TableOptions::sequence`).
const ATTR_TABLE_SEQUENCE: u8 = 5;
/// How the table's index keys encode character columns (`TableOptions::key_format`, one
/// byte; absent for `KEY_FORMAT_BYTES`, the format of tables written before the attribute).
const ATTR_TABLE_KEY_FORMAT: u8 = 6;
/// ROW_FORMAT= as written (`TableOptions::row_format`, UTF-8; absent when empty).
const ATTR_TABLE_ROW_FORMAT: u8 = 7;

const KEY_DATABASE: u8 = 0x01;
const KEY_TABLE: u8 = 0x02;
const KEY_COUNTERS: u8 = 0x03;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdCounters {
    pub next_table_id: TableId,
    pub next_index_id: IndexId,
}

impl Default for IdCounters {
    fn default() -> Self {
        IdCounters { next_table_id: FIRST_USER_ID, next_index_id: FIRST_USER_ID }
    }
}

pub fn database_key(name: &str) -> Vec<u8> {
    let mut k = vec![KEY_DATABASE];
    k.extend_from_slice(name.as_bytes());
    k
}

pub fn table_key(id: TableId) -> Vec<u8> {
    let mut k = vec![KEY_TABLE];
    k.extend_from_slice(&id.to_be_bytes());
    k
}

pub fn counters_key() -> Vec<u8> {
    vec![KEY_COUNTERS]
}

fn corrupt(what: &str) -> StorageError {
    StorageError::Corruption(format!("malformed catalog record: {what}"))
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_bytes(out, s.as_bytes());
}

fn get_str(r: &mut Reader) -> Result<String> {
    String::from_utf8(r.bytes()?.to_vec()).map_err(|_| corrupt("name is not UTF-8"))
}

fn get_bool(r: &mut Reader) -> Result<bool> {
    match r.u8()? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(corrupt("boolean")),
    }
}

fn get_len(r: &mut Reader) -> Result<usize> {
    let n = r.varint_u64()? as usize;
    // Every element takes at least one byte: a count beyond the bytes left is garbage, and
    // rejecting it bounds the allocation.
    if n > r.remaining() {
        return Err(corrupt("count"));
    }
    Ok(n)
}

pub fn encode_database(d: &DatabaseDef) -> Vec<u8> {
    let mut out = vec![CATALOG_FORMAT];
    put_str(&mut out, &d.name);
    put_str(&mut out, &d.charset);
    put_str(&mut out, &d.collation);
    out
}

/// Reads the format byte; true for format 2 (attribute lists present).
fn get_format(r: &mut Reader) -> Result<bool> {
    match r.u8()? {
        CATALOG_FORMAT => Ok(true),
        CATALOG_FORMAT_V1 => Ok(false),
        _ => Err(corrupt("format version")),
    }
}

/// Writes an attribute list: `count`, then `tag | length | bytes` for each.
fn put_attrs(out: &mut Vec<u8>, attrs: &[(u8, Vec<u8>)]) {
    put_varint(out, attrs.len() as u128);
    for (tag, bytes) in attrs {
        out.push(*tag);
        put_bytes(out, bytes);
    }
}

/// Reads an attribute list (empty for format 1 records), in the order written.
fn get_attrs<'a>(r: &mut Reader<'a>, v2: bool) -> Result<Vec<(u8, &'a [u8])>> {
    if !v2 {
        return Ok(Vec::new());
    }
    let n = get_len(r)?;
    let mut attrs = Vec::with_capacity(n);
    for _ in 0..n {
        let tag = r.u8()?;
        attrs.push((tag, r.bytes()?));
    }
    Ok(attrs)
}

fn unknown_attr(what: &str, tag: u8) -> StorageError {
    corrupt(&format!("unknown {what} attribute {tag} (written by a newer version?)"))
}

pub fn decode_database(bytes: &[u8]) -> Result<DatabaseDef> {
    let mut r = Reader::new(bytes);
    get_format(&mut r)?;
    let d = DatabaseDef { name: get_str(&mut r)?, charset: get_str(&mut r)?, collation: get_str(&mut r)? };
    if !r.is_empty() {
        return Err(corrupt("trailing bytes"));
    }
    Ok(d)
}

pub fn encode_counters(c: &IdCounters) -> Vec<u8> {
    let mut out = vec![CATALOG_FORMAT];
    out.extend_from_slice(&c.next_table_id.to_le_bytes());
    out.extend_from_slice(&c.next_index_id.to_le_bytes());
    out
}

pub fn decode_counters(bytes: &[u8]) -> Result<IdCounters> {
    let mut r = Reader::new(bytes);
    get_format(&mut r)?;
    let c = IdCounters { next_table_id: r.u32()?, next_index_id: r.u32()? };
    if !r.is_empty() {
        return Err(corrupt("trailing bytes"));
    }
    Ok(c)
}

fn put_datum(out: &mut Vec<u8>, d: &Datum) {
    match d {
        Datum::Null => out.push(0),
        Datum::Int(v) => {
            out.push(1);
            put_varint(out, zigzag(*v as i128));
        }
        Datum::UInt(v) => {
            out.push(2);
            put_varint(out, *v as u128);
        }
        Datum::Double(v) => {
            out.push(3);
            out.extend_from_slice(&v.to_le_bytes());
        }
        Datum::Decimal(v) => {
            out.push(4);
            put_decimal_mantissa(out, v.mantissa);
            out.push(v.scale);
        }
        Datum::Bytes(b) => {
            out.push(5);
            put_bytes(out, b);
        }
        Datum::Date(v) => {
            out.push(6);
            put_varint(out, zigzag(v.0 as i128));
        }
        Datum::DateTime(v) => {
            out.push(7);
            put_varint(out, zigzag(v.0 as i128));
        }
    }
}

fn get_datum(r: &mut Reader) -> Result<Datum> {
    Ok(match r.u8()? {
        0 => Datum::Null,
        1 => Datum::Int(r.varint_i64()?),
        2 => Datum::UInt(r.varint_u64()?),
        3 => Datum::Double(f64::from_le_bytes(r.take(8)?.try_into().expect("8 bytes"))),
        4 => {
            let m = r.decimal_mantissa()?;
            Datum::Decimal(Decimal { mantissa: m, scale: r.u8()? })
        }
        5 => Datum::Bytes(r.bytes()?.to_vec()),
        6 => Datum::Date(Date(i32::try_from(r.varint_i64()?).map_err(|_| corrupt("date"))?)),
        7 => Datum::DateTime(DateTime(r.varint_i64()?)),
        _ => return Err(corrupt("value kind")),
    })
}

fn lob_tag(s: LobSize) -> u8 {
    match s {
        LobSize::Tiny => 0,
        LobSize::Normal => 1,
        LobSize::Medium => 2,
        LobSize::Long => 3,
    }
}

fn get_lob(r: &mut Reader) -> Result<LobSize> {
    Ok(match r.u8()? {
        0 => LobSize::Tiny,
        1 => LobSize::Normal,
        2 => LobSize::Medium,
        3 => LobSize::Long,
        _ => return Err(corrupt("lob size")),
    })
}

fn put_type(out: &mut Vec<u8>, t: &ColumnType) {
    match t {
        ColumnType::Int { width, unsigned, display_width } => {
            out.push(1);
            out.push(match width {
                IntWidth::Tiny => 0,
                IntWidth::Small => 1,
                IntWidth::Medium => 2,
                IntWidth::Int => 3,
                IntWidth::Big => 4,
            });
            out.push(*unsigned as u8);
            match display_width {
                Some(w) => {
                    out.push(1);
                    out.extend_from_slice(&w.to_le_bytes());
                }
                None => out.push(0),
            }
        }
        ColumnType::Decimal { precision, scale, unsigned: false } => out.extend_from_slice(&[2, *precision, *scale]),
        ColumnType::Decimal { precision, scale, unsigned: true } => out.extend_from_slice(&[16, *precision, *scale]),
        ColumnType::Float { unsigned: false, digits: None } => out.push(3),
        ColumnType::Double { unsigned: false, digits: None } => out.push(4),
        ColumnType::Float { unsigned, digits } => put_float_type(out, 14, *unsigned, *digits),
        ColumnType::Double { unsigned, digits } => put_float_type(out, 15, *unsigned, *digits),
        ColumnType::Char { len } => {
            out.push(5);
            out.extend_from_slice(&len.to_le_bytes());
        }
        ColumnType::VarChar { len } => {
            out.push(6);
            out.extend_from_slice(&len.to_le_bytes());
        }
        ColumnType::Text { size } => out.extend_from_slice(&[7, lob_tag(*size)]),
        ColumnType::Binary { len } => {
            out.push(8);
            out.extend_from_slice(&len.to_le_bytes());
        }
        ColumnType::VarBinary { len } => {
            out.push(9);
            out.extend_from_slice(&len.to_le_bytes());
        }
        ColumnType::Blob { size } => out.extend_from_slice(&[10, lob_tag(*size)]),
        ColumnType::Date => out.push(11),
        ColumnType::DateTime { fsp } => out.extend_from_slice(&[12, *fsp]),
        ColumnType::Timestamp { fsp } => out.extend_from_slice(&[13, *fsp]),
        ColumnType::Year => out.push(17),
        ColumnType::Time { fsp } => out.extend_from_slice(&[18, *fsp]),
        ColumnType::Enum { values } => put_value_list(out, 19, values),
        ColumnType::Set { values } => put_value_list(out, 20, values),
        ColumnType::Json => out.push(21),
        ColumnType::Uuid => out.push(22),
        ColumnType::Inet4 => out.push(23),
        ColumnType::Inet6 => out.push(24),
        ColumnType::Bit { width } => out.extend_from_slice(&[25, *width]),
    }
}

/// FLOAT/DOUBLE with UNSIGNED or (M,D): the flag byte, then M and D when bit 1 is set.
fn put_float_type(out: &mut Vec<u8>, tag: u8, unsigned: bool, digits: Option<(u8, u8)>) {
    out.push(tag);
    out.push(unsigned as u8 | (digits.is_some() as u8) << 1);
    if let Some((m, d)) = digits {
        out.extend_from_slice(&[m, d]);
    }
}

/// ENUM/SET values: count, then each value as a string.
fn put_value_list(out: &mut Vec<u8>, tag: u8, values: &[String]) {
    out.push(tag);
    put_varint(out, values.len() as u128);
    for v in values {
        put_str(out, v);
    }
}

fn get_value_list(r: &mut Reader) -> Result<Vec<String>> {
    let n = get_len(r)?;
    (0..n).map(|_| get_str(r)).collect()
}

fn get_float_type(r: &mut Reader) -> Result<(bool, Option<(u8, u8)>)> {
    let flags = r.u8()?;
    if flags > 3 {
        return Err(corrupt("float type flags"));
    }
    let digits = if flags & 2 != 0 { Some((r.u8()?, r.u8()?)) } else { None };
    Ok((flags & 1 != 0, digits))
}

fn get_type(r: &mut Reader) -> Result<ColumnType> {
    Ok(match r.u8()? {
        1 => {
            let width = match r.u8()? {
                0 => IntWidth::Tiny,
                1 => IntWidth::Small,
                2 => IntWidth::Medium,
                3 => IntWidth::Int,
                4 => IntWidth::Big,
                _ => return Err(corrupt("int width")),
            };
            let unsigned = get_bool(r)?;
            let display_width = if get_bool(r)? { Some(r.u32()?) } else { None };
            ColumnType::Int { width, unsigned, display_width }
        }
        2 => ColumnType::Decimal { precision: r.u8()?, scale: r.u8()?, unsigned: false },
        16 => ColumnType::Decimal { precision: r.u8()?, scale: r.u8()?, unsigned: true },
        3 => ColumnType::FLOAT,
        4 => ColumnType::DOUBLE,
        14 => {
            let (unsigned, digits) = get_float_type(r)?;
            ColumnType::Float { unsigned, digits }
        }
        15 => {
            let (unsigned, digits) = get_float_type(r)?;
            ColumnType::Double { unsigned, digits }
        }
        5 => ColumnType::Char { len: r.u32()? },
        6 => ColumnType::VarChar { len: r.u32()? },
        7 => ColumnType::Text { size: get_lob(r)? },
        8 => ColumnType::Binary { len: r.u32()? },
        9 => ColumnType::VarBinary { len: r.u32()? },
        10 => ColumnType::Blob { size: get_lob(r)? },
        11 => ColumnType::Date,
        12 => ColumnType::DateTime { fsp: r.u8()? },
        13 => ColumnType::Timestamp { fsp: r.u8()? },
        17 => ColumnType::Year,
        18 => ColumnType::Time { fsp: r.u8()? },
        19 => ColumnType::Enum { values: get_value_list(r)? },
        20 => ColumnType::Set { values: get_value_list(r)? },
        21 => ColumnType::Json,
        22 => ColumnType::Uuid,
        23 => ColumnType::Inet4,
        24 => ColumnType::Inet6,
        25 => ColumnType::Bit { width: r.u8()? },
        _ => return Err(corrupt("column type")),
    })
}

fn put_index(out: &mut Vec<u8>, i: &IndexDef) {
    out.extend_from_slice(&i.id.to_le_bytes());
    put_str(out, &i.name);
    put_varint(out, i.columns.len() as u128);
    for c in &i.columns {
        put_varint(out, c.column as u128);
        // One flags byte: bit 0 a prefix length follows, bit 1 DESC (records written before DESC
        // was kept have 0 or 1 here).
        let flags = c.prefix_len.is_some() as u8 | (c.descending as u8) << 1;
        out.push(flags);
        if let Some(p) = c.prefix_len {
            out.extend_from_slice(&p.to_le_bytes());
        }
    }
    out.push(i.unique as u8);
    out.push(i.primary as u8);
    out.extend_from_slice(&i.root.to_le_bytes());
}

fn get_index(r: &mut Reader, ncols: usize) -> Result<IndexDef> {
    let id = r.u32()?;
    let name = get_str(r)?;
    let n = get_len(r)?;
    let mut columns = Vec::with_capacity(n);
    for _ in 0..n {
        let column = r.varint_u64()? as usize;
        if column >= ncols {
            return Err(corrupt("index column out of range"));
        }
        let flags = r.u8()?;
        if flags & !0b11 != 0 {
            return Err(corrupt("index column flags"));
        }
        let prefix_len = if flags & 1 != 0 { Some(r.u32()?) } else { None };
        columns.push(IndexColumn { column, prefix_len, descending: flags & 2 != 0 });
    }
    Ok(IndexDef { id, name, columns, unique: get_bool(r)?, primary: get_bool(r)?, root: r.u64()? })
}

pub fn encode_table(t: &TableDef) -> Vec<u8> {
    let mut out = vec![CATALOG_FORMAT];
    out.extend_from_slice(&t.id.to_le_bytes());
    put_str(&mut out, &t.db);
    put_str(&mut out, &t.name);
    put_varint(&mut out, t.columns.len() as u128);
    for c in &t.columns {
        put_str(&mut out, &c.name);
        put_type(&mut out, &c.ty);
        out.push(c.nullable as u8);
        match &c.default {
            ColumnDefault::None => out.push(0),
            ColumnDefault::Value(d) => {
                out.push(1);
                put_datum(&mut out, d);
            }
            ColumnDefault::CurrentTimestamp => out.push(2),
            // The text travels in `ATTR_COLUMN_DEFAULT_EXPRESSION`; the fixed layout says "none".
            ColumnDefault::Expression(_) => out.push(0),
        }
        out.push(c.auto_increment as u8);
        out.push(c.on_update_current_timestamp as u8);
        put_str(&mut out, &c.comment);
        put_attrs(&mut out, &column_attrs(c));
    }
    put_index(&mut out, &t.primary);
    put_varint(&mut out, t.secondary.len() as u128);
    for i in &t.secondary {
        put_index(&mut out, i);
    }
    put_str(&mut out, &t.options.engine);
    put_str(&mut out, &t.options.charset);
    put_str(&mut out, &t.options.collation);
    put_str(&mut out, &t.options.comment);
    put_attrs(&mut out, &table_attrs(t));
    out
}

/// A character column's collation: its MariaDB name, UTF-8.
const ATTR_COLUMN_COLLATION: u8 = 1;
/// ZEROFILL (no payload).
const ATTR_COLUMN_ZEROFILL: u8 = 2;
/// GENERATED ALWAYS AS: `stored u8 | expression text (UTF-8, the rest of the payload)`.
const ATTR_COLUMN_GENERATED: u8 = 3;
/// DEFAULT (expr): the expression's text (UTF-8, the whole payload); the fixed layout's default
/// byte is 0 ("none") for such a column.
const ATTR_COLUMN_DEFAULT_EXPRESSION: u8 = 4;

/// The attributes of a column beyond the fixed layout (`ATTR_COLUMN_*`).
fn column_attrs(c: &ColumnDef) -> Vec<(u8, Vec<u8>)> {
    let mut attrs = Vec::new();
    if c.zerofill {
        attrs.push((ATTR_COLUMN_ZEROFILL, Vec::new()));
    }
    if !c.collation.is_empty() {
        attrs.push((ATTR_COLUMN_COLLATION, c.collation.as_bytes().to_vec()));
    }
    if let Some(g) = &c.generated {
        let mut b = vec![g.stored as u8];
        b.extend_from_slice(g.expr.as_bytes());
        attrs.push((ATTR_COLUMN_GENERATED, b));
    }
    if let ColumnDefault::Expression(text) = &c.default {
        attrs.push((ATTR_COLUMN_DEFAULT_EXPRESSION, text.as_bytes().to_vec()));
    }
    attrs
}

fn apply_column_attr(c: &mut ColumnDef, tag: u8, bytes: &[u8]) -> Result<()> {
    match tag {
        ATTR_COLUMN_COLLATION => {
            c.collation = String::from_utf8(bytes.to_vec()).map_err(|_| corrupt("column collation"))?;
        }
        ATTR_COLUMN_ZEROFILL => c.zerofill = true,
        ATTR_COLUMN_GENERATED => {
            let (&kind, text) = bytes.split_first().ok_or_else(|| corrupt("generated column"))?;
            let stored = match kind {
                0 => false,
                1 => true,
                _ => return Err(corrupt("generated column kind")),
            };
            let expr = String::from_utf8(text.to_vec()).map_err(|_| corrupt("generated column expression"))?;
            c.generated = Some(GeneratedColumn { expr, stored });
        }
        ATTR_COLUMN_DEFAULT_EXPRESSION => {
            let text = String::from_utf8(bytes.to_vec()).map_err(|_| corrupt("column default expression"))?;
            c.default = ColumnDefault::Expression(text);
        }
        _ => return Err(unknown_attr("column", tag)),
    }
    Ok(())
}

/// The attributes of a table beyond the fixed layout (`ATTR_TABLE_*`).
fn table_attrs(t: &TableDef) -> Vec<(u8, Vec<u8>)> {
    let mut attrs = Vec::new();
    if let Some(s) = &t.options.sequence {
        let mut b = Vec::new();
        for v in [s.start, s.min, s.max, s.increment] {
            put_varint(&mut b, zigzag(v as i128));
        }
        put_varint(&mut b, s.cache as u128);
        b.push(s.cycle as u8);
        attrs.push((ATTR_TABLE_SEQUENCE, b));
    }
    if !t.row_versions.is_empty() {
        attrs.push((ATTR_TABLE_ROW_VERSIONS, encode_row_versions(&t.row_versions)));
    }
    if !t.constraints.foreign_keys.is_empty() {
        attrs.push((ATTR_TABLE_FOREIGN_KEYS, put_foreign_keys(&t.constraints.foreign_keys)));
    }
    if !t.constraints.checks.is_empty() {
        attrs.push((ATTR_TABLE_CHECKS, put_checks(&t.constraints.checks)));
    }
    if t.options.key_format != KEY_FORMAT_BYTES {
        attrs.push((ATTR_TABLE_KEY_FORMAT, vec![t.options.key_format]));
    }
    if !t.options.row_format.is_empty() {
        attrs.push((ATTR_TABLE_ROW_FORMAT, t.options.row_format.as_bytes().to_vec()));
    }
    attrs
}

fn apply_table_attr(t: &mut TableDef, tag: u8, bytes: &[u8]) -> Result<()> {
    match tag {
        ATTR_TABLE_SEQUENCE => {
            let mut r = Reader::new(bytes);
            let mut int = || -> Result<i64> { i64::try_from(unzigzag(r.varint()?)).map_err(|_| corrupt("sequence")) };
            let (start, min, max, increment) = (int()?, int()?, int()?, int()?);
            let cache = r.varint_u64()?;
            let cycle = get_bool(&mut r)?;
            if !r.is_empty() {
                return Err(corrupt("sequence options"));
            }
            t.options.sequence = Some(SequenceDef { start, min, max, increment, cache, cycle });
        }
        ATTR_TABLE_ROW_VERSIONS => t.row_versions = decode_row_versions(bytes, t.columns.len())?,
        ATTR_TABLE_KEY_FORMAT => match bytes {
            [f @ (KEY_FORMAT_COLLATED
            | KEY_FORMAT_UCA
            | KEY_FORMAT_LATIN1_WIDE_DECIMAL
            | KEY_FORMAT_PAD_BIN_FIXED_BINARY)] => t.options.key_format = *f,
            // A format this version does not know would be read with the wrong key encoding.
            _ => return Err(corrupt("table key format")),
        },
        ATTR_TABLE_ROW_FORMAT => {
            t.options.row_format = String::from_utf8(bytes.to_vec()).map_err(|_| corrupt("table row format"))?;
        }
        ATTR_TABLE_FOREIGN_KEYS | ATTR_TABLE_CHECKS => {
            let mut r = Reader::new(bytes);
            if tag == ATTR_TABLE_FOREIGN_KEYS {
                t.constraints.foreign_keys = get_foreign_keys(&mut r)?;
            } else {
                t.constraints.checks = get_checks(&mut r)?;
            }
            if !r.is_empty() {
                return Err(corrupt("trailing bytes in a table attribute"));
            }
        }
        _ => return Err(unknown_attr("table", tag)),
    }
    Ok(())
}

/// `count`, per layout `count` then per field `type | column+1 varint` (0: dropped); then
/// `count` of added values, each `column varint | datum`.
fn encode_row_versions(v: &RowVersions) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, v.old.len() as u128);
    for layout in &v.old {
        put_varint(&mut out, layout.fields.len() as u128);
        for f in &layout.fields {
            put_type(&mut out, &f.ty);
            put_varint(&mut out, f.column.map_or(0, |c| c as u128 + 1));
        }
    }
    put_varint(&mut out, v.added.len() as u128);
    for (c, d) in &v.added {
        put_varint(&mut out, *c as u128);
        put_datum(&mut out, d);
    }
    out
}

fn decode_row_versions(bytes: &[u8], ncols: usize) -> Result<RowVersions> {
    let mut r = Reader::new(bytes);
    let column = |c: u64| -> Result<usize> {
        let c = c as usize;
        if c >= ncols {
            return Err(corrupt("row version column out of range"));
        }
        Ok(c)
    };
    let mut old = Vec::with_capacity(get_len(&mut r)?);
    for _ in 0..old.capacity() {
        let n = get_len(&mut r)?;
        let mut fields = Vec::with_capacity(n);
        for _ in 0..n {
            let ty = get_type(&mut r)?;
            let c = r.varint_u64()?;
            fields.push(RowField { ty, column: if c == 0 { None } else { Some(column(c - 1)?) } });
        }
        old.push(RowLayout { fields });
    }
    if old.first().is_some_and(|l| l.fields.is_empty()) {
        return Err(corrupt("row version without fields"));
    }
    let n = get_len(&mut r)?;
    let mut added = Vec::with_capacity(n);
    for _ in 0..n {
        let c = column(r.varint_u64()?)?;
        added.push((c, get_datum(&mut r)?));
    }
    if !r.is_empty() {
        return Err(corrupt("trailing bytes in row versions"));
    }
    Ok(RowVersions { old, added })
}

fn put_names(out: &mut Vec<u8>, names: &[String]) {
    put_varint(out, names.len() as u128);
    for n in names {
        put_str(out, n);
    }
}

fn get_names(r: &mut Reader) -> Result<Vec<String>> {
    let n = get_len(r)?;
    (0..n).map(|_| get_str(r)).collect()
}

/// 0 = clause absent; otherwise 1 + the action.
fn fk_action_tag(a: Option<ForeignKeyAction>) -> u8 {
    match a {
        None => 0,
        Some(ForeignKeyAction::Restrict) => 1,
        Some(ForeignKeyAction::NoAction) => 2,
        Some(ForeignKeyAction::Cascade) => 3,
        Some(ForeignKeyAction::SetNull) => 4,
    }
}

fn get_fk_action(r: &mut Reader) -> Result<Option<ForeignKeyAction>> {
    Ok(match r.u8()? {
        0 => None,
        1 => Some(ForeignKeyAction::Restrict),
        2 => Some(ForeignKeyAction::NoAction),
        3 => Some(ForeignKeyAction::Cascade),
        4 => Some(ForeignKeyAction::SetNull),
        _ => return Err(corrupt("foreign key action")),
    })
}

/// `count`, then per key: name, columns, referenced database, table, columns, ON DELETE, ON UPDATE.
fn put_foreign_keys(fks: &[ForeignKeyDef]) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, fks.len() as u128);
    for fk in fks {
        put_str(&mut out, &fk.name);
        put_names(&mut out, &fk.columns);
        put_str(&mut out, &fk.ref_db);
        put_str(&mut out, &fk.ref_table);
        put_names(&mut out, &fk.ref_columns);
        out.push(fk_action_tag(fk.on_delete));
        out.push(fk_action_tag(fk.on_update));
    }
    out
}

fn get_foreign_keys(r: &mut Reader) -> Result<Vec<ForeignKeyDef>> {
    let n = get_len(r)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(ForeignKeyDef {
            name: get_str(r)?,
            columns: get_names(r)?,
            ref_db: get_str(r)?,
            ref_table: get_str(r)?,
            ref_columns: get_names(r)?,
            on_delete: get_fk_action(r)?,
            on_update: get_fk_action(r)?,
        });
    }
    Ok(out)
}

/// `count`, then per check: name, column (flag + name), expression text.
fn put_checks(checks: &[CheckDef]) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, checks.len() as u128);
    for c in checks {
        put_str(&mut out, &c.name);
        match &c.column {
            Some(col) => {
                out.push(1);
                put_str(&mut out, col);
            }
            None => out.push(0),
        }
        put_str(&mut out, &c.expr);
    }
    out
}

fn get_checks(r: &mut Reader) -> Result<Vec<CheckDef>> {
    let n = get_len(r)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let name = get_str(r)?;
        let column = if get_bool(r)? { Some(get_str(r)?) } else { None };
        out.push(CheckDef { name, column, expr: get_str(r)? });
    }
    Ok(out)
}

pub fn decode_table(bytes: &[u8]) -> Result<TableDef> {
    let mut r = Reader::new(bytes);
    let v2 = get_format(&mut r)?;
    let id = r.u32()?;
    let db = get_str(&mut r)?;
    let name = get_str(&mut r)?;
    let ncols = get_len(&mut r)?;
    let mut columns = Vec::with_capacity(ncols);
    for _ in 0..ncols {
        let name = get_str(&mut r)?;
        let ty = get_type(&mut r)?;
        let nullable = get_bool(&mut r)?;
        let default = match r.u8()? {
            0 => ColumnDefault::None,
            1 => ColumnDefault::Value(get_datum(&mut r)?),
            2 => ColumnDefault::CurrentTimestamp,
            _ => return Err(corrupt("column default")),
        };
        let mut column = ColumnDef {
            name,
            ty,
            nullable,
            default,
            auto_increment: get_bool(&mut r)?,
            on_update_current_timestamp: get_bool(&mut r)?,
            comment: get_str(&mut r)?,
            zerofill: false,
            generated: None,
            collation: String::new(),
        };
        for (tag, bytes) in get_attrs(&mut r, v2)? {
            apply_column_attr(&mut column, tag, bytes)?;
        }
        columns.push(column);
    }
    let primary = get_index(&mut r, ncols)?;
    let nsec = get_len(&mut r)?;
    let mut secondary = Vec::with_capacity(nsec);
    for _ in 0..nsec {
        secondary.push(get_index(&mut r, ncols)?);
    }
    let options = TableOptions {
        engine: get_str(&mut r)?,
        charset: get_str(&mut r)?,
        collation: get_str(&mut r)?,
        comment: get_str(&mut r)?,
        row_format: String::new(),
        sequence: None,
        key_format: KEY_FORMAT_BYTES,
    };
    let attrs = get_attrs(&mut r, v2)?;
    if !r.is_empty() {
        return Err(corrupt("trailing bytes"));
    }
    let mut table = TableDef {
        id,
        db,
        name,
        columns,
        primary,
        secondary,
        options,
        row_versions: RowVersions::default(),
        constraints: TableConstraints::default(),
    };
    for (tag, bytes) in attrs {
        apply_table_attr(&mut table, tag, bytes)?;
    }
    Ok(table)
}

/// Builds the in-memory catalog and the id counters from the latest committed versions of the
/// records in the catalog tree. Called at open, after recovery rolled back unfinished DDL.
pub fn load(store: &PageStore) -> Result<(Catalog, IdCounters)> {
    let tree = BTree::open(store.system_tree_root(CATALOG_TREE));
    let mut cursor = tree.cursor(Bound::Unbounded, Bound::Unbounded, false);
    let mut databases = BTreeMap::new();
    let mut tables = HashMap::new();
    let mut counters = IdCounters::default();
    while let Some((key, value)) = cursor.next(store)? {
        let h = RecHeader::parse(&value)?;
        if h.deleted {
            continue;
        }
        let payload = &value[HEADER_LEN..];
        match key.first() {
            Some(&KEY_DATABASE) => {
                let d = decode_database(payload)?;
                databases.insert(d.name.clone(), d);
            }
            Some(&KEY_TABLE) => {
                let t = decode_table(payload)?;
                tables.insert((t.db.clone(), t.name.clone()), Arc::new(t));
            }
            Some(&KEY_COUNTERS) => counters = decode_counters(payload)?,
            _ => return Err(corrupt("unknown key")),
        }
    }
    Ok((Catalog { version: 1, databases, tables }, counters))
}

/// Per-table counters persisted in system tree 1 at checkpoints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PersistedCounters {
    /// The next AUTO_INCREMENT value to hand out.
    pub auto_inc_next: u64,
    /// Approximate number of rows.
    pub rows: u64,
}

pub fn counters_tree_key(table: TableId) -> [u8; 4] {
    table.to_be_bytes()
}

pub fn encode_persisted(c: &PersistedCounters) -> Vec<u8> {
    let mut out = Vec::with_capacity(12);
    put_varint(&mut out, c.auto_inc_next as u128);
    put_varint(&mut out, c.rows as u128);
    out
}

pub fn decode_persisted(bytes: &[u8]) -> Result<PersistedCounters> {
    let mut r = Reader::new(bytes);
    let c = PersistedCounters { auto_inc_next: r.varint_u64()?, rows: r.varint_u64()? };
    if !r.is_empty() {
        return Err(corrupt("trailing bytes in table counters"));
    }
    Ok(c)
}

/// All per-table counters of tree 1.
pub fn load_persisted(store: &PageStore) -> Result<HashMap<TableId, PersistedCounters>> {
    let tree = BTree::open(store.system_tree_root(COUNTERS_TREE));
    let mut cursor = tree.cursor(Bound::Unbounded, Bound::Unbounded, false);
    let mut out = HashMap::new();
    while let Some((key, value)) = cursor.next(store)? {
        let id = TableId::from_be_bytes(key.as_slice().try_into().map_err(|_| corrupt("counters key"))?);
        out.insert(id, decode_persisted(&value)?);
    }
    Ok(out)
}

/// Per-table state that is not schema: counters shared by all sessions.
pub struct TableRuntime {
    pub id: TableId,
    /// The next AUTO_INCREMENT value to hand out.
    auto_inc: AtomicU64,
    /// The next hidden row id (tables without a primary key).
    row_id: AtomicU64,
    /// Row count at open (or truncate), to which the sessions' committed deltas are added.
    rows_base: AtomicI64,
    /// What tree 1 holds for this table (None: never written).
    persisted: Mutex<Option<PersistedCounters>>,
    /// A sequence's state once it moved (None: as created, or not a sequence).
    sequence: Mutex<Option<SequenceState>>,
}

impl TableRuntime {
    pub fn new(
        id: TableId,
        auto_inc_next: u64,
        next_row_id: u64,
        rows_base: i64,
        persisted: Option<PersistedCounters>,
    ) -> TableRuntime {
        TableRuntime {
            id,
            auto_inc: AtomicU64::new(auto_inc_next.max(1)),
            row_id: AtomicU64::new(next_row_id.max(1)),
            rows_base: AtomicI64::new(rows_base),
            persisted: Mutex::new(persisted),
            sequence: Mutex::new(None),
        }
    }

    pub fn sequence_state(&self) -> Option<SequenceState> {
        *self.sequence.lock()
    }

    pub fn set_sequence_state(&self, state: SequenceState) {
        *self.sequence.lock() = Some(state);
    }

    pub fn next_row_id(&self) -> u64 {
        self.row_id.fetch_add(1, Ordering::Relaxed)
    }

    pub fn peek_auto_inc(&self) -> u64 {
        self.auto_inc.load(Ordering::Acquire)
    }

    /// Reserves `count` values; returns the first. Saturates at u64::MAX (MariaDB then fails
    /// the insert with a duplicate key on the maximum value, which the SQL layer sees).
    pub fn reserve_auto_inc(&self, count: u64) -> (u64, u64) {
        let mut cur = self.auto_inc.load(Ordering::Acquire);
        loop {
            let next = cur.saturating_add(count);
            match self.auto_inc.compare_exchange_weak(cur, next, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return (cur, next),
                Err(now) => cur = now,
            }
        }
    }

    /// Gives back the values `first..end` a `reserve_auto_inc` handed out, if no value was
    /// reserved or observed since (the counter is still `end`). Returns whether it did.
    pub fn release_auto_inc(&self, first: u64, end: u64) -> bool {
        self.auto_inc.compare_exchange(end, first, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }

    /// An explicit value was inserted: later generated values go above it. Returns the new
    /// counter if it advanced.
    pub fn observe_auto_inc(&self, value: u64) -> Option<u64> {
        let next = value.saturating_add(1);
        let prev = self.auto_inc.fetch_max(next, Ordering::AcqRel);
        (prev < next).then_some(next)
    }

    /// After a rebuild numbered the rows of a table without a primary key anew.
    pub fn reset_row_id(&self, next: u64) {
        self.row_id.store(next.max(1), Ordering::Relaxed);
    }

    pub fn reset_auto_inc(&self, next: u64) {
        self.auto_inc.store(next.max(1), Ordering::Release);
    }

    pub fn rows_base(&self) -> i64 {
        self.rows_base.load(Ordering::Relaxed)
    }

    pub fn set_rows_base(&self, v: i64) {
        self.rows_base.store(v, Ordering::Relaxed);
    }
}

/// The table runtimes, replaced as a whole by DDL (readers take no lock), plus what the
/// checkpoint hook needs to persist the counters safely.
pub struct Registry {
    tables: ArcSwap<HashMap<TableId, Arc<TableRuntime>>>,
    /// Serializes counter persistence (checkpoint) with DDL that resets counters, so a reset is
    /// either persisted by the checkpoint or logged after the scan start it chooses.
    pub persist_lock: Mutex<()>,
    /// Log position read before the last persistence pass: every AutoInc record logged before
    /// it is reflected in tree 1, so the recovery scan may not start later than this.
    pub hold_lsn: AtomicU64,
}

impl Default for Registry {
    fn default() -> Self {
        Registry::new()
    }
}

impl Registry {
    pub fn new() -> Registry {
        Registry {
            tables: ArcSwap::from_pointee(HashMap::new()),
            persist_lock: Mutex::new(()),
            hold_lsn: AtomicU64::new(Lsn::MAX),
        }
    }

    pub fn get(&self, id: TableId) -> Option<Arc<TableRuntime>> {
        self.tables.load().get(&id).cloned()
    }

    /// Runs `f` on the table's runtime without cloning its Arc (no shared counter touched).
    pub fn with<R>(&self, id: TableId, f: impl FnOnce(&TableRuntime) -> R) -> Option<R> {
        self.tables.load().get(&id).map(|rt| f(rt))
    }

    pub fn insert(&self, rt: Arc<TableRuntime>) {
        let mut m = HashMap::clone(&self.tables.load());
        m.insert(rt.id, rt);
        self.tables.store(Arc::new(m));
    }

    pub fn remove(&self, ids: &[TableId]) {
        let mut m = HashMap::clone(&self.tables.load());
        for id in ids {
            m.remove(id);
        }
        self.tables.store(Arc::new(m));
    }

    pub fn replace_all(&self, m: HashMap<TableId, Arc<TableRuntime>>) {
        self.tables.store(Arc::new(m));
    }

    /// Writes every changed counter into tree 1 (checkpoint hook). `row_deltas` are the
    /// sessions' committed row count changes. The caller holds `persist_lock` (`_held`).
    pub fn persist(
        &self,
        _held: &parking_lot::MutexGuard<'_, ()>,
        store: &PageStore,
        row_deltas: &HashMap<TableId, i64>,
    ) -> Result<()> {
        self.hold_lsn.store(store.wal().ready_lsn(), Ordering::SeqCst);
        let tree = BTree::open(store.system_tree_root(COUNTERS_TREE));
        for rt in self.tables.load().values() {
            let now = PersistedCounters {
                auto_inc_next: rt.peek_auto_inc(),
                rows: (rt.rows_base() + row_deltas.get(&rt.id).copied().unwrap_or(0)).max(0) as u64,
            };
            let mut p = rt.persisted.lock();
            if *p == Some(now) {
                continue;
            }
            let mut mtr = Mtr::new(store);
            let value = encode_persisted(&now);
            tree.modify(&mut mtr, &counters_tree_key(rt.id), |_| (Change::Put(value), ()))?;
            mtr.commit();
            *p = Some(now);
        }
        // Sequence states are not in tree 1: each checkpoint logs them again after its scan
        // start, so a recovery from it finds every sequence that ever moved in the log.
        let mut mtr = Mtr::new(store);
        for rt in self.tables.load().values() {
            if let Some(s) = rt.sequence_state() {
                let rec = LogRecord::SequenceState {
                    table_id: rt.id,
                    next_not_cached: s.next_not_cached,
                    cycle_count: s.cycle_count,
                };
                mtr.log_logical(&rec.encode());
            }
        }
        mtr.commit();
        Ok(())
    }
}

/// Removes a dropped table's counters from tree 1.
pub fn remove_persisted(store: &PageStore, id: TableId) -> Result<()> {
    let mut mtr = Mtr::new(store);
    BTree::open(store.system_tree_root(COUNTERS_TREE)).modify(&mut mtr, &counters_tree_key(id), |cur| {
        (if cur.is_some() { Change::Remove } else { Change::Keep }, ())
    })?;
    mtr.commit();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    pub(crate) fn sample_table() -> TableDef {
        let col = |name: &str, ty: ColumnType, default: ColumnDefault| ColumnDef {
            name: name.into(),
            ty,
            nullable: false,
            default,
            auto_increment: name == "id",
            on_update_current_timestamp: name == "ts",
            comment: format!("comment of {name}"),
            zerofill: name == "z",
            generated: None,
            collation: String::new(),
        };
        TableDef {
            row_versions: Default::default(),
            constraints: Default::default(),
            id: 70,
            db: "sbtest".into(),
            name: "sbtest1".into(),
            columns: vec![
                col(
                    "id",
                    ColumnType::Int { width: IntWidth::Int, unsigned: true, display_width: Some(10) },
                    ColumnDefault::None,
                ),
                col(
                    "k",
                    ColumnType::Int { width: IntWidth::Int, unsigned: false, display_width: None },
                    ColumnDefault::Value(Datum::Int(0)),
                ),
                col("c", ColumnType::Char { len: 120 }, ColumnDefault::Value(Datum::Bytes(b"".to_vec()))),
                col(
                    "d",
                    ColumnType::Decimal { precision: 10, scale: 2, unsigned: false },
                    ColumnDefault::Value(Datum::Decimal(Decimal::new(-150, 2))),
                ),
                col("ts", ColumnType::Timestamp { fsp: 3 }, ColumnDefault::CurrentTimestamp),
                col("b", ColumnType::Blob { size: LobSize::Medium }, ColumnDefault::None),
                col("f", ColumnType::FLOAT, ColumnDefault::Value(Datum::Double(1.5))),
                col("fu", ColumnType::Float { unsigned: true, digits: None }, ColumnDefault::None),
                col("g", ColumnType::Double { unsigned: false, digits: Some((8, 3)) }, ColumnDefault::None),
                col("z", ColumnType::Decimal { precision: 65, scale: 30, unsigned: true }, ColumnDefault::None),
                col("y", ColumnType::Year, ColumnDefault::None),
                col("tm", ColumnType::Time { fsp: 3 }, ColumnDefault::None),
                col("e", ColumnType::Enum { values: vec!["a".into(), "b'c".into()] }, ColumnDefault::None),
                col("s", ColumnType::Set { values: vec!["x".into(), "y".into()] }, ColumnDefault::None),
                col("j", ColumnType::Json, ColumnDefault::None),
                col("u", ColumnType::Uuid, ColumnDefault::None),
                col("i4", ColumnType::Inet4, ColumnDefault::None),
                col("i6", ColumnType::Inet6, ColumnDefault::None),
                col("bt", ColumnType::Bit { width: 10 }, ColumnDefault::Value(Datum::UInt(5))),
                col("dt", ColumnType::Date, ColumnDefault::Value(Datum::Date(Date::new(2024, 1, 2)))),
            ],
            primary: IndexDef {
                id: 80,
                name: "PRIMARY".into(),
                columns: vec![IndexColumn { column: 0, prefix_len: None, descending: false }],
                unique: true,
                primary: true,
                root: 12,
            },
            secondary: vec![IndexDef {
                id: 81,
                name: "k_1".into(),
                columns: vec![
                    IndexColumn { column: 1, prefix_len: None, descending: true },
                    IndexColumn { column: 2, prefix_len: Some(5), descending: false },
                ],
                unique: false,
                primary: false,
                root: 13,
            }],
            options: TableOptions {
                engine: "InnoDB".into(),
                charset: "utf8mb4".into(),
                collation: "utf8mb4_bin".into(),
                comment: "x".into(),
                row_format: String::new(),
                sequence: None,
                key_format: KEY_FORMAT_BYTES,
            },
        }
    }

    #[test]
    fn table_round_trip() {
        let t = sample_table();
        assert_eq!(decode_table(&encode_table(&t)).unwrap(), t);
        let d = DatabaseDef { name: "db".into(), charset: "utf8mb4".into(), collation: "utf8mb4_bin".into() };
        assert_eq!(decode_database(&encode_database(&d)).unwrap(), d);
        let c = IdCounters { next_table_id: 99, next_index_id: 1000 };
        assert_eq!(decode_counters(&encode_counters(&c)).unwrap(), c);
        let p = PersistedCounters { auto_inc_next: 1 << 50, rows: 12 };
        assert_eq!(decode_persisted(&encode_persisted(&p)).unwrap(), p);
    }

    /// A format 1 table record: the fixed layout only, no attribute lists (as written before
    /// format 2; kept here byte for byte so that old data directories stay readable).
    fn encode_table_v1(t: &TableDef) -> Vec<u8> {
        let mut out = vec![CATALOG_FORMAT_V1];
        out.extend_from_slice(&t.id.to_le_bytes());
        put_str(&mut out, &t.db);
        put_str(&mut out, &t.name);
        put_varint(&mut out, t.columns.len() as u128);
        for c in &t.columns {
            put_str(&mut out, &c.name);
            put_type(&mut out, &c.ty);
            out.push(c.nullable as u8);
            match &c.default {
                ColumnDefault::None => out.push(0),
                ColumnDefault::Value(d) => {
                    out.push(1);
                    put_datum(&mut out, d);
                }
                ColumnDefault::CurrentTimestamp => out.push(2),
                ColumnDefault::Expression(_) => unreachable!("format 1 had no default expressions"),
            }
            out.push(c.auto_increment as u8);
            out.push(c.on_update_current_timestamp as u8);
            put_str(&mut out, &c.comment);
        }
        put_index(&mut out, &t.primary);
        put_varint(&mut out, t.secondary.len() as u128);
        for i in &t.secondary {
            put_index(&mut out, i);
        }
        put_str(&mut out, &t.options.engine);
        put_str(&mut out, &t.options.charset);
        put_str(&mut out, &t.options.collation);
        put_str(&mut out, &t.options.comment);
        out
    }

    #[test]
    fn sequence_options_round_trip() {
        let mut t = sample_table();
        t.options.sequence = Some(SequenceDef {
            start: -5,
            min: i64::MIN + 1,
            max: i64::MAX - 1,
            increment: -3,
            cache: 1000,
            cycle: true,
        });
        assert_eq!(decode_table(&encode_table(&t)).unwrap(), t);
    }

    #[test]
    fn row_versions_round_trip() {
        let mut t = sample_table();
        t.row_versions = RowVersions {
            old: vec![
                RowLayout {
                    fields: vec![
                        RowField { ty: ColumnType::Float { unsigned: false, digits: None }, column: Some(6) },
                        RowField { ty: ColumnType::VarChar { len: 3 }, column: None },
                    ],
                },
                RowLayout { fields: vec![RowField { ty: ColumnType::Date, column: Some(7) }] },
            ],
            added: vec![(3, Datum::Decimal(Decimal::new(5, 2))), (5, Datum::Null)],
        };
        assert_eq!(decode_table(&encode_table(&t)).unwrap(), t);
        // A field naming a column the table does not have is corruption.
        t.row_versions.old[1].fields[0].column = Some(99);
        assert!(decode_table(&encode_table(&t)).is_err());
    }

    #[test]
    fn constraints_round_trip() {
        let mut t = sample_table();
        t.constraints.foreign_keys = vec![
            ForeignKeyDef {
                name: "sbtest1_ibfk_1".into(),
                columns: vec!["k".into(), "c".into()],
                ref_db: "other".into(),
                ref_table: "parent".into(),
                ref_columns: vec!["a".into(), "b".into()],
                on_delete: Some(ForeignKeyAction::Cascade),
                on_update: None,
            },
            ForeignKeyDef {
                name: "fk2".into(),
                columns: vec!["id".into()],
                ref_db: "sbtest".into(),
                ref_table: "sbtest1".into(),
                ref_columns: vec!["k".into()],
                on_delete: Some(ForeignKeyAction::SetNull),
                on_update: Some(ForeignKeyAction::NoAction),
            },
        ];
        t.constraints.checks = vec![
            CheckDef { name: "k".into(), column: Some("k".into()), expr: "`k` > 0".into() },
            CheckDef { name: "CONSTRAINT_1".into(), column: None, expr: "`k` < `id`".into() },
        ];
        assert_eq!(decode_table(&encode_table(&t)).unwrap(), t);
        let mut only_checks = t.clone();
        only_checks.constraints.foreign_keys.clear();
        assert_eq!(decode_table(&encode_table(&only_checks)).unwrap(), only_checks);
    }

    #[test]
    fn column_collation_round_trips_as_attribute_1() {
        let mut t = sample_table();
        t.columns[1].collation = "utf8mb4_general_ci".into();
        let bytes = encode_table(&t);
        assert_eq!(decode_table(&bytes).unwrap(), t);
        assert!(bytes.windows(18).any(|w| w == b"utf8mb4_general_ci"));
    }

    #[test]
    fn generated_columns_round_trip_as_attribute_3() {
        let mut t = sample_table();
        t.columns[1].generated = Some(GeneratedColumn { expr: "`id` + 1".into(), stored: false });
        t.columns[2].generated = Some(GeneratedColumn { expr: "concat('x',`k`)".into(), stored: true });
        let bytes = encode_table(&t);
        assert_eq!(decode_table(&bytes).unwrap(), t);
        assert!(bytes.windows(8).any(|w| w == b"`id` + 1"));
    }

    #[test]
    fn default_expressions_round_trip_as_attribute_4() {
        let mut t = sample_table();
        t.columns[5].default = ColumnDefault::Expression("uuid()".into());
        t.columns[6].default = ColumnDefault::Expression("(`k` * 2)".into());
        let bytes = encode_table(&t);
        assert_eq!(decode_table(&bytes).unwrap(), t);
        // The attribute: tag 4, length, text.
        assert!(bytes.windows(8).any(|w| w == [4, 6, b'u', b'u', b'i', b'd', b'(', b')']));
    }

    #[test]
    fn key_format_round_trips_as_attribute_6() {
        let mut t = sample_table();
        t.options.key_format = KEY_FORMAT_COLLATED;
        let bytes = encode_table(&t);
        assert_eq!(decode_table(&bytes).unwrap(), t);
        assert_eq!(bytes[bytes.len() - 4..], [1, ATTR_TABLE_KEY_FORMAT, 1, KEY_FORMAT_COLLATED][..]);
        t.options.key_format = KEY_FORMAT_UCA;
        assert_eq!(decode_table(&encode_table(&t)).unwrap(), t);
        // Tables written before the attribute read as byte-encoded keys.
        t.options.key_format = KEY_FORMAT_BYTES;
        assert_eq!(decode_table(&encode_table(&t)).unwrap(), t);
    }

    #[test]
    fn row_format_round_trips_as_attribute_7() {
        let mut t = sample_table();
        t.options.row_format = "DYNAMIC".into();
        let bytes = encode_table(&t);
        assert_eq!(decode_table(&bytes).unwrap(), t);
        assert_eq!(
            bytes[bytes.len() - 10..],
            [1, ATTR_TABLE_ROW_FORMAT, 7, b'D', b'Y', b'N', b'A', b'M', b'I', b'C'][..]
        );
    }

    #[test]
    fn format_1_tables_are_still_read() {
        let mut t = sample_table();
        // Format 1 has no attributes: ZEROFILL did not exist.
        t.columns.iter_mut().for_each(|c| c.zerofill = false);
        assert_eq!(decode_table(&encode_table_v1(&t)).unwrap(), t);
    }

    #[test]
    fn unknown_attributes_are_refused() {
        let t = sample_table();
        let mut b = encode_table(&t);
        // The table's attribute list is the last byte (empty): replace it with one unknown tag.
        assert_eq!(b.pop(), Some(0));
        put_attrs(&mut b, &[(250, vec![1, 2, 3])]);
        let err = decode_table(&b).unwrap_err().to_string();
        assert!(err.contains("unknown table attribute 250"), "{err}");
    }

    #[test]
    fn out_of_range_index_column_is_corruption() {
        let mut t = sample_table();
        t.secondary[0].columns[0].column = t.columns.len();
        assert!(decode_table(&encode_table(&t)).is_err());
    }

    proptest! {
        #[test]
        fn garbage_tables_are_errors(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode_table(&bytes);
        }

        #[test]
        fn truncated_tables_are_errors(cut in any::<prop::sample::Index>()) {
            let b = encode_table(&sample_table());
            let cut = cut.index(b.len());
            prop_assert!(decode_table(&b[..cut]).is_err());
        }
    }
}
