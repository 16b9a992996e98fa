//! CHECKSUM TABLE, with MariaDB's algorithm so that a table copied between Selkie and MariaDB
//! (replication checks, pt-table-checksum-like tools, test suites) gives the same number.
//!
//! MariaDB (handler::calculate_checksum, InnoDB keeps no live checksum) adds up, modulo 2^32,
//! one CRC-32 per row. A row's CRC runs over the row's NULL bitmap as MariaDB lays it out in
//! memory, then over each non-NULL column: VARCHAR/VARBINARY/TEXT/BLOB contribute their bytes,
//! every other type its fixed-size in-memory image (little-endian integers and floats, the
//! binary DECIMAL, DATETIME2/TIMESTAMP2 big-endian images, CHAR padded to 4 bytes a character
//! with spaces, BINARY padded with zero bytes). The bitmap has one bit per nullable column, in
//! column order, after a leading "deleted" bit that only tables without variable-length columns
//! have (MariaDB's HA_OPTION_PACK_RECORD); bits after the last used one in its byte are set.
//! Each rule was checked against MariaDB 10.11 values.

use selkie_storage::{ColumnType, Decimal, IntWidth, TableDef};

use super::compiled::Ran;
use super::state::Session;
use crate::error::{self, SqlError};
use crate::parse::Stmt;
use crate::types::{
    charset, column_flags, ColumnDefinition, FieldType, OkInfo, ResultSet, ResultSink, Value, WarnLevel, Warning,
};

/// Collects the rows of the internal `SELECT *`.
#[derive(Default)]
struct Rows(Vec<Vec<Value>>);

impl ResultSink for Rows {
    fn columns(&mut self, _: &[ColumnDefinition]) {}
    fn row(&mut self, values: &[Value]) {
        self.0.push(values.to_vec());
    }
    fn end_rows(&mut self, _: u16, _: bool) {}
    fn ok(&mut self, _: &OkInfo, _: bool) {}
}

impl Session {
    /// CHECKSUM TABLE: one row per table (NULL for a missing table, or with QUICK).
    pub(super) async fn checksum_tables(
        &mut self,
        tables: &[(Option<String>, String)],
        quick: bool,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        let mut rows = Vec::with_capacity(tables.len());
        let mut warnings = Vec::new();
        for (db, name) in tables {
            let db = match db {
                Some(d) => d.clone(),
                None => self.current_db.clone().ok_or_else(error::no_database)?,
            };
            let table = self.store.catalog().table(&db, name).cloned();
            let checksum = match table {
                Some(t) if !quick => Value::UInt(u64::from(self.table_checksum(&t).await?)),
                Some(_) => Value::Null,
                None => {
                    let message = format!("Table '{db}.{name}' doesn't exist");
                    warnings.push(Warning { level: WarnLevel::Error, code: 1146, message });
                    Value::Null
                }
            };
            rows.push(vec![Value::Bytes(format!("{db}.{name}").into_bytes()), checksum]);
        }
        let table_col = crate::bind::computed_meta("Table", &crate::value::SqlType::text(384, false), true);
        let checksum_col = ColumnDefinition {
            schema: String::new(),
            table: String::new(),
            org_table: String::new(),
            name: "Checksum".into(),
            org_name: String::new(),
            charset: charset::BINARY,
            length: 21,
            field_type: FieldType::LongLong,
            flags: column_flags::BINARY | column_flags::NUM,
            decimals: 0,
        };
        let count = warnings.len();
        self.set_warnings(warnings, count);
        let rs = ResultSet { columns: vec![table_col, checksum_col], rows };
        self.send_result_set(rs, sink, more, super::dispatch::ResultWarnings::Own)
    }

    /// The rows of `t` as a consistent read, through the normal query path.
    async fn table_checksum(&mut self, t: &TableDef) -> Result<u32, SqlError> {
        let quote = |s: &str| format!("`{}`", s.replace('`', "``"));
        let text = format!("SELECT * FROM {}.{}", quote(&t.db), quote(&t.name));
        let catalog = self.store.catalog();
        let db = self.current_db.clone();
        let stmt = crate::parse::parse_statement(&text).map_err(|e| e.0)?;
        if !matches!(stmt, Stmt::Ast(_)) {
            return Err(error::internal("CHECKSUM TABLE's query did not parse"));
        }
        let mut compiled = self.compile(&catalog, stmt, &text, &text, db.as_deref())?;
        compiled.select_limit_applies = false;
        let mut rows = Rows::default();
        // Boxed: run_compiled is what dispatched this statement.
        let ran = Box::pin(self.run_compiled(&compiled, Some(catalog), &text, &[], &mut rows, false)).await?;
        if ran == Ran::Stale {
            return Err(error::table_definition_changed());
        }
        // The query shows TIMESTAMPs in the session's zone; the record holds the instant.
        let tz = self.vars.time_zone();
        let timestamps: Vec<usize> = t
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c.ty, ColumnType::Timestamp { .. }))
            .map(|(i, _)| i)
            .collect();
        let mut sum = 0u32;
        for row in &mut rows.0 {
            for &i in &timestamps {
                if let Some(Value::DateTime(dt)) = row.get_mut(i) {
                    *dt = crate::value::utc_of_session(*dt, tz).unwrap_or(*dt);
                }
            }
            sum = sum.wrapping_add(row_checksum(t, row));
        }
        Ok(sum)
    }
}

/// Whether MariaDB lays the table's rows out without the leading "deleted" bit.
fn packed_record(t: &TableDef) -> bool {
    t.columns.iter().any(|c| {
        matches!(
            c.ty,
            ColumnType::VarChar { .. }
                | ColumnType::VarBinary { .. }
                | ColumnType::Text { .. }
                | ColumnType::Blob { .. }
        )
    })
}

/// MariaDB's CRC-32 of one row (see the module comment).
pub(super) fn row_checksum(t: &TableDef, row: &[Value]) -> u32 {
    let mut crc = crc32fast::Hasher::new();
    let first_bit = usize::from(!packed_record(t));
    let nullable = t.columns.iter().filter(|c| c.nullable).count();
    let bits = first_bit + nullable;
    if bits > 0 {
        let mut bitmap = vec![0u8; bits.div_ceil(8)];
        if first_bit == 1 {
            bitmap[0] |= 1;
        }
        let mut bit = first_bit;
        for (c, v) in t.columns.iter().zip(row) {
            if c.nullable {
                if v.is_null() {
                    bitmap[bit / 8] |= 1 << (bit % 8);
                }
                bit += 1;
            }
        }
        if bits % 8 != 0 {
            let last = bitmap.len() - 1;
            bitmap[last] |= 0xFFu8 << (bits % 8);
        }
        crc.update(&bitmap);
    }
    let mut image = Vec::new();
    for (c, v) in t.columns.iter().zip(row) {
        if v.is_null() {
            continue;
        }
        image.clear();
        field_image(&c.ty, v, &mut image);
        crc.update(&image);
    }
    crc.finalize()
}

/// The bytes MariaDB checksums for a non-NULL value of a column of type `ty`.
fn field_image(ty: &ColumnType, v: &Value, out: &mut Vec<u8>) {
    let int = |v: &Value| match v {
        Value::Int(i) => *i,
        Value::UInt(u) => *u as i64,
        _ => 0,
    };
    match (ty, v) {
        (ColumnType::Int { width, .. }, v) => {
            let n = match width {
                IntWidth::Tiny => 1,
                IntWidth::Small => 2,
                IntWidth::Medium => 3,
                IntWidth::Int => 4,
                IntWidth::Big => 8,
            };
            out.extend_from_slice(&int(v).to_le_bytes()[..n]);
        }
        (ColumnType::Float { .. }, Value::Double(d)) => out.extend_from_slice(&(*d as f32).to_le_bytes()),
        (ColumnType::Double { .. }, Value::Double(d)) => out.extend_from_slice(&d.to_le_bytes()),
        (ColumnType::Decimal { precision, scale, .. }, Value::Decimal(d)) => decimal_image(*d, *precision, *scale, out),
        (ColumnType::Char { len }, Value::Bytes(b)) => {
            // utf8mb4: 4 bytes a character, space-padded.
            out.extend_from_slice(b);
            out.resize((*len as usize * 4).max(b.len()), b' ');
        }
        (ColumnType::Binary { len }, Value::Bytes(b)) => {
            out.extend_from_slice(b);
            out.resize((*len as usize).max(b.len()), 0);
        }
        (ColumnType::Date, Value::Date(d)) => {
            let packed = d.year() * 512 + d.month() * 32 + d.day();
            out.extend_from_slice(&packed.to_le_bytes()[..3]);
        }
        (ColumnType::DateTime { fsp }, Value::DateTime(dt)) => {
            let d = dt.date();
            let ymd = (u64::from(d.year()) * 13 + u64::from(d.month())) << 5 | u64::from(d.day());
            let hms = u64::from(dt.hour()) << 12 | u64::from(dt.minute()) << 6 | u64::from(dt.second());
            let int_part = (ymd << 17 | hms) + 0x80_0000_0000;
            out.extend_from_slice(&int_part.to_be_bytes()[3..]);
            fraction_image(dt.micros(), *fsp, out);
        }
        (ColumnType::Timestamp { fsp }, Value::DateTime(dt)) => {
            // A stored TIMESTAMP is the UTC time of its instant (value::timestamp).
            let secs = crate::value::epoch_of_wall_clock(*dt, crate::value::TimeZone::Offset(0)).unwrap_or(0);
            out.extend_from_slice(&(secs as u32).to_be_bytes());
            fraction_image(dt.micros(), *fsp, out);
        }
        // Variable-length types (and any value the table's type does not explain): the bytes.
        (_, Value::Bytes(b)) => out.extend_from_slice(b),
        (_, other) => out.extend_from_slice(format!("{other:?}").as_bytes()),
    }
}

/// The fractional seconds of DATETIME2/TIMESTAMP2: big-endian, 1 byte for fsp 1-2, 2 for 3-4,
/// 3 for 5-6.
fn fraction_image(micros: u32, fsp: u8, out: &mut Vec<u8>) {
    match fsp {
        1 | 2 => out.push((micros / 10_000) as u8),
        3 | 4 => out.extend_from_slice(&((micros / 100) as u16).to_be_bytes()),
        5 | 6 => out.extend_from_slice(&micros.to_be_bytes()[1..]),
        _ => {}
    }
}

/// MariaDB's binary DECIMAL (decimal2bin): the integer part's leading digits and its 9-digit
/// groups, then the fraction's 9-digit groups and its trailing digits, each big-endian in the
/// fewest bytes that hold them; a negative value inverts every byte, and the first byte's top
/// bit is flipped.
fn decimal_image(value: Decimal, precision: u8, scale: u8, out: &mut Vec<u8>) {
    const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    // To the column's scale (stored values already have it; this only guards), then as digits:
    // 65-digit values do not fit any machine integer.
    let value = value.rescale(scale).unwrap_or(value);
    let negative = value.is_negative();
    let text = value.abs().to_string();
    let (int_text, frac_text) = text.split_once('.').unwrap_or((&text, ""));
    let intg = usize::from(precision.saturating_sub(scale));
    // The integer digits right-aligned in `intg` places, the fraction left-aligned in `scale`.
    let int_digits: Vec<u8> = {
        let d = int_text.trim_start_matches('0').as_bytes();
        let d = &d[d.len().saturating_sub(intg)..];
        std::iter::repeat_n(b'0', intg - d.len()).chain(d.iter().copied()).collect()
    };
    let frac_digits: Vec<u8> = frac_text.bytes().chain(std::iter::repeat(b'0')).take(usize::from(scale)).collect();
    let number = |digits: &[u8]| digits.iter().fold(0u64, |v, d| v * 10 + u64::from(d - b'0'));
    let (intg0x, frac0x) = (intg % 9, usize::from(scale) % 9);
    let start = out.len();
    let mut push = |value: u64, bytes: usize| {
        out.extend_from_slice(&value.to_be_bytes()[8 - bytes..]);
    };
    // Integer part: leading digits, then groups of 9 from the most significant.
    if intg0x > 0 {
        push(number(&int_digits[..intg0x]), DIG2BYTES[intg0x]);
    }
    for group in int_digits[intg0x..].chunks(9) {
        push(number(group), 4);
    }
    // Fraction: groups of 9 from the point, then the trailing digits.
    let full = usize::from(scale) - frac0x;
    for group in frac_digits[..full].chunks(9) {
        push(number(group), 4);
    }
    if frac0x > 0 {
        push(number(&frac_digits[full..]), DIG2BYTES[frac0x]);
    }
    if negative {
        for b in &mut out[start..] {
            *b = !*b;
        }
    }
    if let Some(first) = out.get_mut(start) {
        *first ^= 0x80;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_images_as_mariadb() {
        let image = |m: i128, s: u8, p: u8, sc: u8| {
            let mut out = Vec::new();
            decimal_image(Decimal::new(m, s), p, sc, &mut out);
            out
        };
        // DECIMAL(7,2): 5 integer digits in 3 bytes, 2 fraction digits in 1.
        assert_eq!(image(12345, 2, 7, 2), [0x80, 0x00, 0x7B, 0x2D]);
        assert_eq!(image(-12345, 2, 7, 2), [0x7F, 0xFF, 0x84, 0xD2]);
        // DECIMAL(20,10): 10 integer digits (1 + 9), 10 fraction digits (9 + 1).
        // 1234567890.1234567890: '1', 234567890 | 123456789, '0'.
        assert_eq!(
            image(12_345_678_901_234_567_890, 10, 20, 10),
            [0x81, 0x0D, 0xFB, 0x38, 0xD2, 0x07, 0x5B, 0xCD, 0x15, 0x00]
        );
    }
}
