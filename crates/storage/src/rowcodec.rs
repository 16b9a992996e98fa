//! Row format (docs/architecture.md §4.6): a null bitmap (bit i of byte i/8 set = column i is
//! NULL), then each non-NULL column in table order in its compact form:
//! - integers, DATE, DATETIME: LEB128 varint (signed values zigzag-encoded first);
//! - FLOAT: 4 bytes (f32 LE); DOUBLE: 8 bytes (f64 LE);
//! - DECIMAL: zigzag varint of the mantissa at the column's scale;
//! - strings and binaries: varint length, then the bytes.
//!
//! Tables altered in place (docs/architecture.md §4.9, "Instant ALTER") carry row versions:
//! rows written since the first instant ALTER start with a marker, `b` bytes 0xFF where `b` is
//! the bitmap length of version 0, then the version as a varint, then the row in the layout of
//! that version. No row of version 0 can start so: either its bitmap has unused bits (always 0)
//! or it has a multiple of 8 columns, and a bitmap of all ones then means every column is NULL,
//! so the row ends right after it. Rows of a table never altered in place have no marker, and
//! reading them costs one test of an empty list more (`decode_table_row`).
//!
//! Decoding never trusts its input: every length is checked against the bytes left, so garbage
//! produces `StorageError::Corruption`, never a panic or a huge allocation.

use crate::error::{Result, StorageError};
use crate::types::*;
use crate::wideint::{I256, U256};

/// Largest encoded row: a row of max_allowed_packet's upper bound (1 GiB) and its lengths. Rows
/// over 4 MiB are written to their overflow chain ahead of their leaf's mtr (trx/big_value.rs);
/// a before-image passes to the undo record as its chain, never copied into one mtr.
pub const MAX_ROW_BYTES: usize = crate::btree::MAX_VALUE_LEN - 1024;
/// Longest LEB128 encoding of a u128.
const MAX_VARINT_LEN: usize = 19;

pub fn put_varint(out: &mut Vec<u8>, mut v: u128) {
    loop {
        let byte = (v & 0x7F) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

pub fn zigzag(v: i128) -> u128 {
    ((v << 1) ^ (v >> 127)) as u128
}

pub fn unzigzag(v: u128) -> i128 {
    ((v >> 1) as i128) ^ -((v & 1) as i128)
}

/// A DECIMAL mantissa as a zigzag LEB128 varint. A mantissa that fits an i128 (every value
/// written before DECIMAL held 65 digits) gives exactly `put_varint(zigzag(m))`; a wider one
/// continues the LEB128 past 128 bits, which older readers reject as an overflowing varint
/// rather than misread (their tables could not hold such values).
pub fn put_decimal_mantissa(out: &mut Vec<u8>, m: I256) {
    if let Some(v) = m.to_i128() {
        return put_varint(out, zigzag(v));
    }
    // zigzag: 2|m| for m >= 0, 2|m| - 1 below; |m| < 10^65 < 2^216, so no bit is lost.
    let mag = m.unsigned_abs();
    let mut v = mag.checked_add(&mag).expect("mantissa below 2^255");
    if m.is_negative() {
        v = v.wrapping_sub(&U256::from_u64(1));
    }
    loop {
        let byte = (v.0[0] & 0x7F) as u8;
        v = v.div_rem_u64(128).0;
        if v.is_zero() {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// A bounds-checked reader over untrusted bytes.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

fn corrupt(what: &str) -> StorageError {
    StorageError::Corruption(format!("malformed {what}"))
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }
    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(corrupt("record (truncated)"));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    pub fn varint(&mut self) -> Result<u128> {
        let mut v: u128 = 0;
        for i in 0..MAX_VARINT_LEN {
            let b = self.u8()?;
            let shift = 7 * i as u32;
            if shift >= 128 || (shift > 0 && ((b & 0x7F) as u128) >> (128 - shift) != 0) {
                return Err(corrupt("varint (overflow)"));
            }
            v |= ((b & 0x7F) as u128) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(corrupt("varint (too long)"))
    }
    /// A mantissa written by `put_decimal_mantissa`.
    pub fn decimal_mantissa(&mut self) -> Result<I256> {
        let mut v = U256::ZERO;
        // 37 bytes carry 259 bits: enough for any 256-bit zigzag value.
        for i in 0..37u32 {
            let b = self.u8()?;
            let bits = (b & 0x7F) as u64;
            let shift = 7 * i;
            if shift >= 256 || (shift > 249 && bits >> (256 - shift) != 0) {
                return Err(corrupt("varint (overflow)"));
            }
            let (limb, off) = ((shift / 64) as usize, shift % 64);
            v.0[limb] |= bits << off;
            if off > 57 && limb < 3 {
                v.0[limb + 1] |= bits >> (64 - off);
            }
            if b & 0x80 == 0 {
                let negative = v.0[0] & 1 == 1;
                let half = v.div_rem_u64(2).0;
                let mag = if negative {
                    half.checked_add(&U256::from_u64(1)).ok_or_else(|| corrupt("decimal"))?
                } else {
                    half
                };
                return I256::from_sign_magnitude(negative, mag).ok_or_else(|| corrupt("decimal"));
            }
        }
        Err(corrupt("varint (too long)"))
    }
    pub fn varint_u64(&mut self) -> Result<u64> {
        u64::try_from(self.varint()?).map_err(|_| corrupt("varint (out of range)"))
    }
    pub fn varint_i64(&mut self) -> Result<i64> {
        i64::try_from(unzigzag(self.varint()?)).map_err(|_| corrupt("varint (out of range)"))
    }
    /// A varint length followed by that many bytes.
    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.varint()?;
        let n = usize::try_from(n).map_err(|_| corrupt("length"))?;
        self.take(n)
    }
}

pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u128);
    out.extend_from_slice(b);
}

fn mismatch(col: &ColumnDef, d: &Datum) -> StorageError {
    // The SQL layer converts values to the column type before storing; reaching this is a bug
    // there, reported cleanly (1366) instead of storing a value the column cannot hold.
    StorageError::InvalidValue {
        column: col.name.clone(),
        detail: format!("value {d:?} does not fit type {}", col.ty.sql_name()),
    }
}

/// Appends the encoding of `row` (one value per column) to `out`.
pub fn encode_row_into(out: &mut Vec<u8>, columns: &[ColumnDef], row: &[Datum]) -> Result<()> {
    if row.len() != columns.len() {
        return Err(StorageError::InvalidValue {
            column: String::new(),
            detail: format!("row has {} values; the table has {} columns", row.len(), columns.len()),
        });
    }
    // Refused before anything is copied (a row may be a GiB).
    let long_bytes: usize = row.iter().map(|d| if let Datum::Bytes(b) = d { b.len() } else { 0 }).sum();
    if long_bytes > MAX_ROW_BYTES {
        return Err(StorageError::RowTooLarge { max: MAX_ROW_BYTES });
    }
    let start = out.len();
    let bitmap_len = columns.len().div_ceil(8);
    out.resize(start + bitmap_len, 0);
    for (i, (col, d)) in columns.iter().zip(row).enumerate() {
        if d.is_null() {
            out[start + i / 8] |= 1 << (i % 8);
            continue;
        }
        encode_value(out, col, d)?;
    }
    if out.len() - start > MAX_ROW_BYTES {
        return Err(StorageError::RowTooLarge { max: MAX_ROW_BYTES });
    }
    Ok(())
}

pub fn encode_row(columns: &[ColumnDef], row: &[Datum]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(64);
    encode_row_into(&mut out, columns, row)?;
    Ok(out)
}

/// Encodes a row of `t` (one value per current column) at the table's current row version.
#[inline]
pub fn encode_table_row(t: &TableDef, row: &[Datum]) -> Result<Vec<u8>> {
    if t.row_versions.is_empty() {
        return encode_row(&t.columns, row);
    }
    let mut out = Vec::with_capacity(64);
    out.resize(version_marker_len(&t.row_versions), 0xFF);
    put_varint(&mut out, t.row_versions.old.len() as u128);
    encode_row_into(&mut out, &t.columns, row)?;
    Ok(out)
}

/// Decodes a stored row of `t`, whatever row version it was written at, into the current
/// columns.
#[inline]
pub fn decode_table_row(t: &TableDef, bytes: &[u8]) -> Result<Vec<Datum>> {
    if t.row_versions.is_empty() {
        return decode_row(&t.columns, bytes);
    }
    decode_versioned_row(t, bytes)
}

fn version_marker_len(v: &RowVersions) -> usize {
    v.old.first().map_or(0, |l| l.fields.len().div_ceil(8))
}

fn decode_versioned_row(t: &TableDef, bytes: &[u8]) -> Result<Vec<Datum>> {
    let versions = &t.row_versions;
    let marker = version_marker_len(versions);
    let (version, rest) = if bytes.len() > marker && bytes[..marker].iter().all(|&b| b == 0xFF) {
        let mut r = Reader::new(&bytes[marker..]);
        let version = r.varint_u64()?;
        (version, &bytes[bytes.len() - r.remaining()..])
    } else {
        (0, bytes)
    };
    if version == versions.old.len() as u64 {
        return decode_row(&t.columns, rest);
    }
    let layout = versions.old.get(version as usize).ok_or_else(|| corrupt("row (unknown row version)"))?;
    let mut row = vec![Datum::Null; t.columns.len()];
    for (c, d) in &versions.added {
        if let Some(slot) = row.get_mut(*c) {
            *slot = d.clone();
        }
    }
    let mut r = Reader::new(rest);
    let bitmap = r.take(layout.fields.len().div_ceil(8))?;
    for (i, f) in layout.fields.iter().enumerate() {
        let d = if bitmap[i / 8] & (1 << (i % 8)) != 0 { Datum::Null } else { decode_value(&mut r, &f.ty)? };
        if let Some(slot) = f.column.and_then(|c| row.get_mut(c)) {
            *slot = d;
        }
    }
    if !r.is_empty() {
        return Err(corrupt("row (trailing bytes)"));
    }
    Ok(row)
}

/// Whether values stored for a column of type `a` read back unchanged as type `b` (an instant
/// ALTER may change a column's type only so: VARCHAR(10) to VARCHAR(20), a new display width).
pub fn same_encoding(a: &ColumnType, b: &ColumnType) -> bool {
    use ColumnType as T;
    let string = |t: &T| matches!(t, T::Char { .. } | T::VarChar { .. } | T::Text { .. });
    let binary = |t: &T| matches!(t, T::Binary { .. } | T::VarBinary { .. } | T::Blob { .. });
    // Types stored as another (YEAR, TIME, ENUM, SET, JSON, UUID, INET) read back unchanged only
    // as themselves: their stored text or number means something else under another type.
    if matches!(a.stored_as(), std::borrow::Cow::Owned(_)) || matches!(b.stored_as(), std::borrow::Cow::Owned(_)) {
        return a == b;
    }
    match (a, b) {
        (T::Int { unsigned: ua, .. }, T::Int { unsigned: ub, .. }) => ua == ub,
        // UNSIGNED and (M,D) constrain the values: a change needs them checked or rounded.
        (T::Decimal { scale: sa, unsigned: ua, .. }, T::Decimal { scale: sb, unsigned: ub, .. }) => {
            sa == sb && ua == ub
        }
        (T::Float { .. }, T::Float { .. }) | (T::Double { .. }, T::Double { .. }) => a == b,
        (T::DateTime { .. } | T::Timestamp { .. }, T::DateTime { .. } | T::Timestamp { .. }) => true,
        _ if string(a) && string(b) || binary(a) && binary(b) => true,
        _ => std::mem::discriminant(a) == std::mem::discriminant(b),
    }
}

fn encode_value(out: &mut Vec<u8>, col: &ColumnDef, d: &Datum) -> Result<()> {
    match (&*col.ty.stored_as(), d) {
        (ColumnType::Int { width, unsigned, .. }, Datum::Int(_) | Datum::UInt(_)) => {
            let v = match d {
                Datum::Int(v) => *v as i128,
                Datum::UInt(v) => *v as i128,
                _ => unreachable!("matched above"),
            };
            // Values are range-checked for the column's width, as keys encode them by width.
            let (min, max) = if *unsigned {
                (0, width.unsigned_max() as i128)
            } else {
                let (lo, hi) = width.signed_range();
                (lo as i128, hi as i128)
            };
            if v < min || v > max {
                return Err(mismatch(col, d));
            }
            if *unsigned {
                put_varint(out, v as u128)
            } else {
                put_varint(out, zigzag(v))
            }
        }
        (ColumnType::Float { .. }, d) => {
            let f = numeric_f64(d).ok_or_else(|| mismatch(col, d))?;
            out.extend_from_slice(&(f as f32).to_le_bytes());
        }
        (ColumnType::Double { .. }, d) => {
            let f = numeric_f64(d).ok_or_else(|| mismatch(col, d))?;
            out.extend_from_slice(&f.to_le_bytes());
        }
        (ColumnType::Decimal { scale, .. }, d) => {
            let dec = match d {
                Datum::Decimal(v) => *v,
                Datum::Int(v) => Decimal::from_i64(*v),
                Datum::UInt(v) => Decimal::new(*v as i128, 0),
                _ => return Err(mismatch(col, d)),
            };
            let m = dec.rescale(*scale).ok_or_else(|| mismatch(col, d))?.mantissa;
            put_decimal_mantissa(out, m);
        }
        (ColumnType::Char { .. } | ColumnType::VarChar { .. } | ColumnType::Text { .. }, Datum::Bytes(b))
        | (ColumnType::Binary { .. } | ColumnType::VarBinary { .. } | ColumnType::Blob { .. }, Datum::Bytes(b)) => {
            put_bytes(out, b)
        }
        (ColumnType::Date, Datum::Date(v)) => put_varint(out, zigzag(v.0 as i128)),
        (ColumnType::Date, Datum::DateTime(v)) => put_varint(out, zigzag(v.date().0 as i128)),
        (ColumnType::DateTime { .. } | ColumnType::Timestamp { .. }, Datum::DateTime(v)) => {
            put_varint(out, zigzag(v.0 as i128))
        }
        (ColumnType::DateTime { .. } | ColumnType::Timestamp { .. }, Datum::Date(v)) => {
            put_varint(out, zigzag(DateTime::new(*v, 0, 0, 0, 0).0 as i128))
        }
        _ => return Err(mismatch(col, d)),
    }
    Ok(())
}

fn numeric_f64(d: &Datum) -> Option<f64> {
    match d {
        Datum::Double(v) => Some(*v),
        Datum::Int(v) => Some(*v as f64),
        Datum::UInt(v) => Some(*v as f64),
        Datum::Decimal(v) => Some(v.to_f64()),
        _ => None,
    }
}

/// Decodes a row encoded by `encode_row` for these columns.
pub fn decode_row(columns: &[ColumnDef], bytes: &[u8]) -> Result<Vec<Datum>> {
    let mut r = Reader::new(bytes);
    let bitmap = r.take(columns.len().div_ceil(8))?;
    let mut row = Vec::with_capacity(columns.len());
    for (i, col) in columns.iter().enumerate() {
        if bitmap[i / 8] & (1 << (i % 8)) != 0 {
            row.push(Datum::Null);
            continue;
        }
        row.push(decode_value(&mut r, &col.ty)?);
    }
    if !r.is_empty() {
        return Err(corrupt("row (trailing bytes)"));
    }
    Ok(row)
}

fn decode_value(r: &mut Reader, ty: &ColumnType) -> Result<Datum> {
    Ok(match &*ty.stored_as() {
        ColumnType::Int { unsigned: false, .. } => Datum::Int(r.varint_i64()?),
        ColumnType::Int { unsigned: true, .. } => Datum::UInt(r.varint_u64()?),
        ColumnType::Float { .. } => Datum::Double(f32::from_le_bytes(r.take(4)?.try_into().expect("4 bytes")) as f64),
        ColumnType::Double { .. } => Datum::Double(f64::from_le_bytes(r.take(8)?.try_into().expect("8 bytes"))),
        ColumnType::Decimal { scale, .. } => Datum::Decimal(Decimal { mantissa: r.decimal_mantissa()?, scale: *scale }),
        ColumnType::Char { .. }
        | ColumnType::VarChar { .. }
        | ColumnType::Text { .. }
        | ColumnType::Binary { .. }
        | ColumnType::VarBinary { .. }
        | ColumnType::Blob { .. } => Datum::Bytes(r.bytes()?.to_vec()),
        ColumnType::Date => {
            let v = r.varint_i64()?;
            Datum::Date(Date(i32::try_from(v).map_err(|_| corrupt("date"))?))
        }
        ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } => Datum::DateTime(DateTime(r.varint_i64()?)),
        // Newer types are mapped to the type they are stored as.
        _ => {
            unreachable!("stored_as maps newer types to the type they are stored as")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn decimal_mantissas_round_trip_and_narrow_ones_keep_the_old_bytes() {
        let c = col(ColumnType::Decimal { precision: 65, scale: 30, unsigned: false });
        let max = format!("{}.{}", "9".repeat(35), "9".repeat(30));
        let values = [
            max.clone(),
            format!("-{max}"),
            "9".repeat(65),
            format!("-{}", "9".repeat(65)),
            "170141183460469231731687303715884105727".into(),
            "-170141183460469231731687303715884105728".into(),
            "170141183460469231731687303715884105728".into(),
            "0".into(),
            "-1".into(),
            "12345678901234567890.123".into(),
        ];
        for v in &values {
            let d = Decimal::parse(v).unwrap();
            let mut out = Vec::new();
            put_decimal_mantissa(&mut out, d.mantissa);
            if let Some(m) = d.mantissa_i128() {
                let mut old = Vec::new();
                put_varint(&mut old, zigzag(m));
                assert_eq!(out, old, "{v}");
            } else {
                // The old reader refuses the new encoding instead of misreading it.
                assert!(Reader::new(&out).varint().is_err(), "{v}");
            }
            let mut r = Reader::new(&out);
            assert_eq!(r.decimal_mantissa().unwrap(), d.mantissa, "{v}");
            assert!(r.is_empty());
            // Through a row of a DECIMAL(65,30) column (values at scale 30 only).
            if let Some(at30) = d.rescale(30) {
                let row = vec![Datum::Decimal(at30)];
                let bytes = encode_row(std::slice::from_ref(&c), &row).unwrap();
                assert_eq!(decode_row(std::slice::from_ref(&c), &bytes).unwrap(), row, "{v}");
            }
        }
        assert!(Reader::new(&[0xFF; 40]).decimal_mantissa().is_err());
    }

    fn col(ty: ColumnType) -> ColumnDef {
        ColumnDef {
            name: "c".into(),
            ty,
            nullable: true,
            default: ColumnDefault::None,
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: String::new(),
            zerofill: false,
            generated: None,
            collation: String::new(),
        }
    }

    fn all_types() -> Vec<ColumnDef> {
        vec![
            col(ColumnType::Int { width: IntWidth::Big, unsigned: false, display_width: None }),
            col(ColumnType::Int { width: IntWidth::Big, unsigned: true, display_width: None }),
            col(ColumnType::FLOAT),
            col(ColumnType::DOUBLE),
            col(ColumnType::Decimal { precision: 38, scale: 5, unsigned: false }),
            col(ColumnType::VarChar { len: 100 }),
            col(ColumnType::Blob { size: LobSize::Normal }),
            col(ColumnType::Date),
            col(ColumnType::DateTime { fsp: 6 }),
        ]
    }

    fn value_strategy() -> impl Strategy<Value = Vec<Datum>> {
        let n = |s: BoxedStrategy<Datum>| prop_oneof![1 => Just(Datum::Null), 4 => s];
        (
            n(any::<i64>().prop_map(Datum::Int).boxed()),
            n(any::<u64>().prop_map(Datum::UInt).boxed()),
            n(any::<f32>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| Datum::Double(f as f64)).boxed()),
            n(any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Datum::Double).boxed()),
            n(any::<i64>().prop_map(|m| Datum::Decimal(Decimal::new(m as i128 * 1000, 5))).boxed()),
            n(proptest::collection::vec(any::<u8>(), 0..40).prop_map(Datum::Bytes).boxed()),
            n(proptest::collection::vec(any::<u8>(), 0..300).prop_map(Datum::Bytes).boxed()),
            n(any::<i32>().prop_map(|v| Datum::Date(Date(v))).boxed()),
            n(any::<i64>().prop_map(|v| Datum::DateTime(DateTime(v))).boxed()),
        )
            .prop_map(|(a, b, c, d, e, f, g, h, i)| vec![a, b, c, d, e, f, g, h, i])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            if std::env::var("SELKIE_STRESS").is_ok() { 20_000 } else { 500 }))]

        #[test]
        fn round_trip(row in value_strategy()) {
            let cols = all_types();
            let bytes = encode_row(&cols, &row).unwrap();
            prop_assert_eq!(decode_row(&cols, &bytes).unwrap(), row);
        }

        #[test]
        fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = decode_row(&all_types(), &bytes);
        }

        #[test]
        fn truncation_is_detected(row in value_strategy(), cut in any::<prop::sample::Index>()) {
            let cols = all_types();
            let bytes = encode_row(&cols, &row).unwrap();
            let cut = cut.index(bytes.len());
            prop_assert!(decode_row(&cols, &bytes[..cut]).is_err());
        }
    }

    #[test]
    fn mismatched_values_are_errors_not_panics() {
        let cols = vec![col(ColumnType::Int { width: IntWidth::Int, unsigned: true, display_width: None })];
        // Values the column cannot hold are 1366 (InvalidValue), never Corruption.
        let invalid = |r: Result<Vec<u8>>| matches!(r, Err(StorageError::InvalidValue { .. }));
        assert!(invalid(encode_row(&cols, &[Datum::Int(-1)])));
        assert!(invalid(encode_row(&cols, &[Datum::UInt(1 << 32)])));
        assert!(encode_row(&cols, &[Datum::UInt((1 << 32) - 1)]).is_ok());
        assert!(invalid(encode_row(&cols, &[Datum::Bytes(b"x".to_vec())])));
        assert!(invalid(encode_row(&cols, &[])));
        assert_eq!(StorageError::InvalidValue { column: "c".into(), detail: String::new() }.mysql_code().0, 1366);
        assert_eq!(decode_row(&cols, &encode_row(&cols, &[Datum::Int(7)]).unwrap()).unwrap(), vec![Datum::UInt(7)]);
    }

    #[test]
    fn oversized_rows_are_rejected() {
        let cols = vec![col(ColumnType::Blob { size: LobSize::Long })];
        let err = encode_row(&cols, &[Datum::Bytes(vec![0; MAX_ROW_BYTES + 1])]).unwrap_err();
        assert!(matches!(err, StorageError::RowTooLarge { .. }));
    }

    fn table_of(columns: Vec<ColumnDef>) -> TableDef {
        TableDef {
            id: 1,
            db: "d".into(),
            name: "t".into(),
            columns,
            primary: IndexDef { id: 2, name: "PRIMARY".into(), columns: vec![], unique: true, primary: true, root: 3 },
            secondary: vec![],
            options: TableOptions::default(),
            row_versions: RowVersions::default(),
            constraints: Default::default(),
        }
    }

    fn int_col() -> ColumnDef {
        col(ColumnType::Int { width: IntWidth::Int, unsigned: false, display_width: None })
    }

    /// Version 0: (a int, b varchar). Then b dropped and c added (default 7) in one instant
    /// change: version 1 is (a, c).
    fn altered(v0_columns: usize) -> (TableDef, TableDef) {
        let mut cols = vec![int_col(); v0_columns];
        cols[1] = col(ColumnType::VarChar { len: 10 });
        let v0 = table_of(cols.clone());
        let mut v1 = v0.clone();
        v1.columns = vec![int_col(); v0_columns];
        v1.columns.remove(1);
        v1.columns.push(int_col());
        let last = v1.columns.len() - 1;
        let fields = cols
            .iter()
            .enumerate()
            .map(|(i, c)| RowField {
                ty: c.ty.clone(),
                column: match i {
                    0 => Some(0),
                    1 => None,
                    i => Some(i - 1),
                },
            })
            .collect();
        v1.row_versions = RowVersions { old: vec![RowLayout { fields }], added: vec![(last, Datum::Int(7))] };
        (v0, v1)
    }

    #[test]
    fn rows_of_older_versions_read_with_their_layout() {
        for n in [2, 3, 8, 9, 16] {
            let (v0, v1) = altered(n);
            let mut old_row: Vec<Datum> = (0..n as i64).map(Datum::Int).collect();
            old_row[1] = Datum::Bytes(b"dropped".to_vec());
            let old_bytes = encode_table_row(&v0, &old_row).unwrap();
            assert_eq!(old_bytes, encode_row(&v0.columns, &old_row).unwrap(), "never altered: no marker");
            let mut expect: Vec<Datum> = old_row.clone();
            expect.remove(1);
            expect.push(Datum::Int(7));
            assert_eq!(decode_table_row(&v1, &old_bytes).unwrap(), expect, "{n} columns");
            // Every column NULL at version 0 (a bitmap of all ones when n is a multiple of 8).
            let nulls = vec![Datum::Null; n];
            let mut expect_nulls = vec![Datum::Null; n];
            expect_nulls[n - 1] = Datum::Int(7);
            assert_eq!(decode_table_row(&v1, &encode_table_row(&v0, &nulls).unwrap()).unwrap(), expect_nulls);
            // New rows carry the marker and read back at the current layout.
            for new_row in [expect.clone(), vec![Datum::Null; n]] {
                let b = encode_table_row(&v1, &new_row).unwrap();
                assert_eq!(&b[..n.div_ceil(8)], &vec![0xFF; n.div_ceil(8)][..]);
                assert_eq!(decode_table_row(&v1, &b).unwrap(), new_row);
                assert!(decode_table_row(&v1, &b[..b.len() - 1]).is_err());
            }
        }
    }

    #[test]
    fn same_encoding_allows_only_types_that_read_back_unchanged() {
        let vc = |len| ColumnType::VarChar { len };
        assert!(same_encoding(&vc(10), &vc(300)));
        let int = |unsigned| ColumnType::Int { width: IntWidth::Int, unsigned, display_width: None };
        assert!(same_encoding(&int(false), &int(false)));
        assert!(!same_encoding(&int(false), &int(true)));
        assert!(!same_encoding(&int(false), &ColumnType::Double { unsigned: false, digits: None }));
        assert!(!same_encoding(&vc(10), &ColumnType::VarBinary { len: 10 }));
        assert!(!same_encoding(
            &ColumnType::Decimal { precision: 10, scale: 2, unsigned: false },
            &ColumnType::Decimal { precision: 10, scale: 3, unsigned: false }
        ));
    }

    #[test]
    fn varint_overflow_is_detected() {
        let mut r = Reader::new(&[0xFF; 30]);
        assert!(r.varint().is_err());
    }
}
