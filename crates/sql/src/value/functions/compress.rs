//! COMPRESS, UNCOMPRESS and UNCOMPRESSED_LENGTH as MariaDB: a zlib stream after the
//! uncompressed length in 4 little-endian bytes (the top two bits of which are not length),
//! the empty string staying empty. Damaged input is NULL with MariaDB's zlib warnings.

use std::io::{Read, Write};

use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use flate2::Compression;

use super::args::{any_null, text};
use super::signature::{rt_int, ScalarFunction};
use crate::error::SqlError;
use crate::types::Value;
use crate::value::context::FnContext;
use crate::value::kinds::SqlType;

/// The length prefix holds 30 bits of length.
const LENGTH_MASK: u32 = 0x3FFF_FFFF;
/// UNCOMPRESS's result: a LONGBLOB.
const UNCOMPRESS_MAX_LEN: u32 = 16 << 20;

pub static FUNCTIONS: &[ScalarFunction] = &[
    func!("COMPRESS", 1, 1, true, rt_compress, compress),
    func!("UNCOMPRESS", 1, 1, true, rt_uncompress, uncompress),
    func!("UNCOMPRESSED_LENGTH", 1, 1, true, rt_int, uncompressed_length),
];

/// MariaDB's bound: 120% of the input plus 12 bytes.
fn rt_compress(args: &[SqlType]) -> SqlType {
    let input = args[0].display_chars().saturating_mul(crate::value::types::UTF8MB4_MAX_BYTES);
    SqlType::Bytes { max_len: input / 100 * 120 + input % 100 * 120 / 100 + 12, lob: args[0].is_lob() }
}
fn rt_uncompress(_: &[SqlType]) -> SqlType {
    SqlType::Bytes { max_len: UNCOMPRESS_MAX_LEN, lob: true }
}

fn compress(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let input = text(&args[0]);
    if input.is_empty() {
        return Ok(Value::Bytes(Vec::new()));
    }
    let mut out = (input.len() as u32 & LENGTH_MASK).to_le_bytes().to_vec();
    let mut encoder = ZlibEncoder::new(&mut out, Compression::default());
    encoder
        .write_all(&input)
        .and_then(|_| encoder.finish())
        .map_err(|e| SqlError::new(1105, "HY000", e.to_string()))?;
    Ok(Value::Bytes(out))
}

fn corrupted(ctx: &dyn FnContext) -> Result<Value, SqlError> {
    ctx.warn(1259, "ZLIB: Input data corrupted".into());
    Ok(Value::Null)
}

fn uncompress(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let input = text(&args[0]);
    if input.is_empty() {
        return Ok(Value::Bytes(Vec::new()));
    }
    if input.len() <= 4 {
        return corrupted(ctx);
    }
    let length = u32::from_le_bytes([input[0], input[1], input[2], input[3]]) & LENGTH_MASK;
    let limit = ctx.max_allowed_packet();
    if length as usize > limit {
        ctx.warn(
            1256,
            format!(
                "Uncompressed data size too large; the maximum size is {limit} (probably, length of uncompressed data was corrupted)"
            ),
        );
        return Ok(Value::Null);
    }
    let mut out = Vec::with_capacity(length as usize);
    // One byte past the announced length tells a wrong length from a right one.
    let mut decoder = ZlibDecoder::new(&input[4..]).take(u64::from(length) + 1);
    if decoder.read_to_end(&mut out).is_err() {
        return corrupted(ctx);
    }
    if out.len() > length as usize {
        ctx.warn(
            1258,
            "ZLIB: Not enough room in the output buffer (probably, length of uncompressed data was corrupted)".into(),
        );
        return Ok(Value::Null);
    }
    Ok(Value::Bytes(out))
}

fn uncompressed_length(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    if any_null(args) {
        return Ok(Value::Null);
    }
    let input = text(&args[0]);
    if input.is_empty() {
        return Ok(Value::Int(0));
    }
    if input.len() <= 4 {
        return corrupted(ctx);
    }
    Ok(Value::Int(i64::from(u32::from_le_bytes([input[0], input[1], input[2], input[3]]) & LENGTH_MASK)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::tests::TestCtx;

    fn s(v: &[u8]) -> Value {
        Value::Bytes(v.to_vec())
    }

    /// Bytes and warnings checked against MariaDB 10.11.
    #[test]
    fn zlib_functions_as_mariadb() {
        let ctx = TestCtx::default();
        let packed = compress(&[s(b"abc")], &ctx).unwrap();
        let Value::Bytes(bytes) = &packed else { panic!() };
        let hex: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(hex, "03000000789C4B4C4A0600024D0127");
        assert_eq!(uncompress(std::slice::from_ref(&packed), &ctx).unwrap(), s(b"abc"));
        assert_eq!(uncompressed_length(&[packed], &ctx).unwrap(), Value::Int(3));
        assert_eq!(compress(&[s(b"")], &ctx).unwrap(), s(b""));
        assert_eq!(uncompress(&[s(b"xyz")], &ctx).unwrap(), Value::Null);
        assert_eq!(ctx.take_warnings(), vec![(1259, "ZLIB: Input data corrupted".to_string())]);
    }
}
