//! Result sets: column definitions (protocol 4.1), text rows and binary rows.
//!
//! A result set is: column count (length-encoded), one definition per column, an EOF unless
//! CLIENT_DEPRECATE_EOF, the rows, then an EOF (or an OK with header 0xFE).

use crate::constants::FieldType;
use crate::error::{ProtocolError, Result};
use crate::value::{read_binary_value, BinaryValue};
use crate::wire::{put_lenenc_bytes, put_lenenc_int, put_u16, put_u32, put_u8, Decoder, LENENC_NULL};

/// Length of the fixed part of a column definition, always sent as 0x0C.
const COLUMN_FIXED_LEN: u8 = 0x0C;
/// Header byte of a binary protocol row.
pub const BINARY_ROW_HEADER: u8 = 0x00;
/// Offset of the first column's bit in a binary row's NULL bitmap (the bits 0 and 1 are
/// reserved, historically for OK/EOF disambiguation).
pub const BINARY_ROW_NULL_OFFSET: usize = 2;

/// One column definition (Protocol::ColumnDefinition41).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnDefinition {
    pub schema: String,
    pub table: String,
    pub org_table: String,
    pub name: String,
    pub org_name: String,
    pub charset: u16,
    pub length: u32,
    pub field_type: FieldType,
    pub flags: u16,
    pub decimals: u8,
}

/// Appends a column definition from its parts (the server's hot path: no intermediate struct).
#[allow(clippy::too_many_arguments)]
pub fn encode_column_definition(
    out: &mut Vec<u8>,
    schema: &[u8],
    table: &[u8],
    org_table: &[u8],
    name: &[u8],
    org_name: &[u8],
    charset: u16,
    length: u32,
    field_type: FieldType,
    flags: u16,
    decimals: u8,
) {
    put_lenenc_bytes(out, b"def");
    put_lenenc_bytes(out, schema);
    put_lenenc_bytes(out, table);
    put_lenenc_bytes(out, org_table);
    put_lenenc_bytes(out, name);
    put_lenenc_bytes(out, org_name);
    put_u8(out, COLUMN_FIXED_LEN);
    put_u16(out, charset);
    put_u32(out, length);
    put_u8(out, field_type as u8);
    put_u16(out, flags);
    put_u8(out, decimals);
    put_u16(out, 0);
}

impl ColumnDefinition {
    pub fn encode(&self, out: &mut Vec<u8>) {
        encode_column_definition(
            out,
            self.schema.as_bytes(),
            self.table.as_bytes(),
            self.org_table.as_bytes(),
            self.name.as_bytes(),
            self.org_name.as_bytes(),
            self.charset,
            self.length,
            self.field_type,
            self.flags,
            self.decimals,
        );
    }

    /// Parses a definition. Trailing bytes (COM_FIELD_LIST appends the column default) are
    /// returned by `parse_with_default`.
    pub fn parse(payload: &[u8]) -> Result<ColumnDefinition> {
        Self::parse_with_default(payload).map(|(c, _)| c)
    }

    /// Parses a definition followed, as in COM_FIELD_LIST responses, by an optional
    /// length-encoded default value (`Some(None)` = default NULL).
    pub fn parse_with_default(payload: &[u8]) -> Result<(ColumnDefinition, Option<Option<Vec<u8>>>)> {
        let mut d = Decoder::new(payload);
        let catalog = d.lenenc_bytes("catalog")?;
        if catalog != b"def" {
            return Err(ProtocolError::Malformed("column definition catalog is not 'def'".into()));
        }
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let schema = text(d.lenenc_bytes("schema")?);
        let table = text(d.lenenc_bytes("table")?);
        let org_table = text(d.lenenc_bytes("org_table")?);
        let name = text(d.lenenc_bytes("name")?);
        let org_name = text(d.lenenc_bytes("org_name")?);
        let fixed = d.lenenc_int("fixed length")?;
        if fixed != COLUMN_FIXED_LEN as u64 {
            return Err(ProtocolError::Malformed(format!("column definition fixed part of {fixed} bytes")));
        }
        let charset = d.u16("charset")?;
        let length = d.u32("column length")?;
        let type_byte = d.u8("column type")?;
        // Every type MariaDB sends is a `FieldType`; anything else is not a MariaDB peer.
        let field_type = FieldType::from_u8(type_byte)
            .ok_or_else(|| ProtocolError::Malformed(format!("unknown column type {type_byte}")))?;
        let flags = d.u16("column flags")?;
        let decimals = d.u8("decimals")?;
        d.skip(2, "filler")?;
        let default =
            if d.is_empty() { None } else { Some(d.lenenc_bytes_or_null("default value")?.map(|b| b.to_vec())) };
        Ok((
            ColumnDefinition { schema, table, org_table, name, org_name, charset, length, field_type, flags, decimals },
            default,
        ))
    }

    pub fn is_unsigned(&self) -> bool {
        self.flags & crate::constants::column_flags::UNSIGNED != 0
    }
}

/// Appends the column-count packet payload.
pub fn encode_column_count(out: &mut Vec<u8>, count: usize) {
    put_lenenc_int(out, count as u64);
}

/// Appends a NULL cell of a text row.
pub fn put_text_null(out: &mut Vec<u8>) {
    out.push(LENENC_NULL);
}

/// Parses a text row of `columns` cells (`None` = NULL).
pub fn parse_text_row(payload: &[u8], columns: usize) -> Result<Vec<Option<Vec<u8>>>> {
    let mut d = Decoder::new(payload);
    let mut row = Vec::with_capacity(columns.min(payload.len()));
    for _ in 0..columns {
        row.push(d.lenenc_bytes_or_null("text cell")?.map(|b| b.to_vec()));
    }
    if !d.is_empty() {
        return Err(ProtocolError::Malformed("extra bytes after the last cell of a text row".into()));
    }
    Ok(row)
}

/// Size of the NULL bitmap of a binary row with `columns` columns.
pub fn binary_row_bitmap_len(columns: usize) -> usize {
    (columns + BINARY_ROW_NULL_OFFSET).div_ceil(8)
}

/// Starts a binary row in `out`: header byte and an all-clear NULL bitmap. Returns the bitmap's
/// offset in `out` for `set_binary_row_null`; the non-NULL values follow, in column order.
pub fn begin_binary_row(out: &mut Vec<u8>, columns: usize) -> usize {
    out.push(BINARY_ROW_HEADER);
    let at = out.len();
    out.resize(at + binary_row_bitmap_len(columns), 0);
    at
}

pub fn set_binary_row_null(out: &mut [u8], bitmap_at: usize, column: usize) {
    let bit = column + BINARY_ROW_NULL_OFFSET;
    out[bitmap_at + bit / 8] |= 1 << (bit % 8);
}

/// Parses a binary row given each column's type and unsigned flag.
pub fn parse_binary_row(payload: &[u8], columns: &[(FieldType, bool)]) -> Result<Vec<BinaryValue>> {
    let mut d = Decoder::new(payload);
    if d.u8("binary row header")? != BINARY_ROW_HEADER {
        return Err(ProtocolError::Malformed("binary row does not start with 0x00".into()));
    }
    let bitmap = d.bytes(binary_row_bitmap_len(columns.len()), "NULL bitmap")?;
    let mut row = Vec::with_capacity(columns.len());
    for (i, &(ty, unsigned)) in columns.iter().enumerate() {
        let bit = i + BINARY_ROW_NULL_OFFSET;
        if bitmap[bit / 8] & (1 << (bit % 8)) != 0 {
            row.push(BinaryValue::Null);
        } else {
            row.push(read_binary_value(&mut d, ty, unsigned)?);
        }
    }
    if !d.is_empty() {
        return Err(ProtocolError::Malformed("extra bytes after the last value of a binary row".into()));
    }
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{put_binary_value, WireDateTime};
    use proptest::prelude::*;

    fn column() -> ColumnDefinition {
        ColumnDefinition {
            schema: "sbtest".into(),
            table: "t".into(),
            org_table: "sbtest1".into(),
            name: "k".into(),
            org_name: "k".into(),
            charset: 63,
            length: 11,
            field_type: FieldType::Long,
            flags: 1 | 32768,
            decimals: 0,
        }
    }

    #[test]
    fn column_definition_round_trip() {
        let c = column();
        let mut out = Vec::new();
        c.encode(&mut out);
        assert!(out.starts_with(b"\x03def\x06sbtest\x01t\x07sbtest1\x01k\x01k\x0c"));
        assert_eq!(ColumnDefinition::parse(&out).unwrap(), c);
        assert_eq!(c.field_type, FieldType::Long);
        // COM_FIELD_LIST form with a default value.
        put_lenenc_bytes(&mut out, b"0");
        assert_eq!(ColumnDefinition::parse_with_default(&out).unwrap().1, Some(Some(b"0".to_vec())));
    }

    #[test]
    fn text_row_round_trip() {
        let mut out = Vec::new();
        put_lenenc_bytes(&mut out, b"1");
        put_text_null(&mut out);
        put_lenenc_bytes(&mut out, b"");
        assert_eq!(parse_text_row(&out, 3).unwrap(), vec![Some(b"1".to_vec()), None, Some(vec![])]);
        assert!(parse_text_row(&out, 2).is_err());
        assert!(parse_text_row(&out, 4).is_err());
    }

    #[test]
    fn binary_row_null_bitmap_offsets() {
        assert_eq!(binary_row_bitmap_len(1), 1);
        assert_eq!(binary_row_bitmap_len(6), 1);
        assert_eq!(binary_row_bitmap_len(7), 2);
        let mut out = Vec::new();
        let at = begin_binary_row(&mut out, 3);
        set_binary_row_null(&mut out, at, 1);
        put_binary_value(&mut out, FieldType::Long, &BinaryValue::Int(-5)).unwrap();
        put_binary_value(
            &mut out,
            FieldType::DateTime,
            &BinaryValue::DateTime(WireDateTime { year: 2000, month: 1, day: 2, ..Default::default() }),
        )
        .unwrap();
        // Column 1 is bit 3 of the first bitmap byte.
        assert_eq!(out[..2], [0x00, 0b0000_1000]);
        let types = [(FieldType::Long, false), (FieldType::VarString, false), (FieldType::DateTime, false)];
        let row = parse_binary_row(&out, &types).unwrap();
        assert_eq!(row[0], BinaryValue::Int(-5));
        assert_eq!(row[1], BinaryValue::Null);
        assert!(matches!(row[2], BinaryValue::DateTime(WireDateTime { year: 2000, month: 1, day: 2, .. })));
    }

    proptest! {
        #[test]
        fn result_decoders_survive_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..120usize), n in 0usize..12) {
            let _ = ColumnDefinition::parse_with_default(&bytes);
            let _ = parse_text_row(&bytes, n);
            let types = [(FieldType::LongLong, false), (FieldType::VarString, false), (FieldType::Time, false), (FieldType::Timestamp, true)];
            let _ = parse_binary_row(&bytes, &types[..n.min(4)]);
        }

        #[test]
        fn truncated_column_definition_is_an_error(cut in 0usize..40) {
            let mut out = Vec::new();
            column().encode(&mut out);
            let cut = cut.min(out.len() - 1);
            prop_assert!(ColumnDefinition::parse(&out[..cut]).is_err());
        }
    }
}
