//! BIT(n) columns, n in 1..=64: the value is an unsigned integer (arithmetic, comparison, BIN,
//! HEX and `b + 0` see the number), stored as a BIGINT UNSIGNED, and sent by the text protocol
//! as its ceil(n/8) big-endian bytes (`format::push_bit_bytes`), as MariaDB sends a BIT column.
//!
//! Assignment follows MariaDB's Field_bit: a number is taken as its integer (doubles and
//! decimals rounded; a negative one as its two's complement, which never fits below 64 bits),
//! a string as its bytes read big-endian ('a' is 97); a value with more bits than the column
//! is "Data too long" (1406) in strict mode, otherwise the column's largest value with 1264.

use selkie_storage::Decimal;

use super::cast::{decimal_to_i128, temporal_as_number};
use crate::types::Value;

/// Largest BIT width (1439 beyond it).
pub const MAX_BIT_WIDTH: u64 = 64;

/// Largest value of a BIT(width).
pub fn max_value(width: u8) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The value for a BIT(width) column, or Err(largest value) when it has too many bits (the
/// caller reports 1406 or 1264 and stores the largest value).
pub fn to_bits(v: &Value, width: u8) -> Result<u64, u64> {
    let max = max_value(width);
    let n: u64 = match v {
        Value::Int(i) => *i as u64,
        Value::UInt(u) => *u,
        Value::Double(x) => {
            let r = x.round();
            if r < 0.0 {
                r as i64 as u64
            } else if r >= 18_446_744_073_709_551_616.0 {
                return Err(max);
            } else {
                r as u64
            }
        }
        Value::Decimal(d) => decimal_bits(*d).ok_or(max)?,
        Value::Bytes(b) => {
            let significant = &b[b.iter().position(|&c| c != 0).unwrap_or(b.len())..];
            if significant.len() > 8 {
                return Err(max);
            }
            significant.iter().fold(0u64, |acc, &c| (acc << 8) | u64::from(c))
        }
        Value::Date(_) | Value::DateTime(_) => match temporal_as_number(v) {
            Value::Int(i) => i as u64,
            Value::Decimal(d) => decimal_bits(d).ok_or(max)?,
            _ => 0,
        },
        Value::Null => 0,
    };
    if n > max {
        Err(max)
    } else {
        Ok(n)
    }
}

fn decimal_bits(d: Decimal) -> Option<u64> {
    let i = decimal_to_i128(d);
    if i < 0 {
        i64::try_from(i).ok().map(|s| s as u64)
    } else {
        u64::try_from(i).ok()
    }
}

/// `b'101'` as SHOW CREATE TABLE and information_schema print a BIT default.
pub fn literal(v: u64) -> String {
    format!("b'{v:b}'")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignment_follows_mariadb() {
        assert_eq!(to_bits(&Value::Int(5), 10), Ok(5));
        assert_eq!(to_bits(&Value::Int(1024), 10), Err(1023));
        assert_eq!(to_bits(&Value::Int(-1), 10), Err(1023));
        assert_eq!(to_bits(&Value::Int(-1), 64), Ok(u64::MAX));
        assert_eq!(to_bits(&Value::Double(1.5), 10), Ok(2));
        assert_eq!(to_bits(&Value::Bytes(b"a".to_vec()), 10), Ok(97));
        assert_eq!(to_bits(&Value::Bytes(vec![0, 5]), 3), Ok(5));
        assert_eq!(to_bits(&Value::Bytes(b"abc".to_vec()), 16), Err(65535));
        assert_eq!(to_bits(&Value::Int(2), 1), Err(1));
    }

    #[test]
    fn text_form_is_big_endian_bytes() {
        use crate::value::format::push_bit_bytes as push_bytes;
        let mut out = Vec::new();
        push_bytes(5, 10, &mut out);
        assert_eq!(out, [0, 5]);
        out.clear();
        push_bytes(1, 1, &mut out);
        assert_eq!(out, [1]);
        out.clear();
        push_bytes(u64::MAX, 64, &mut out);
        assert_eq!(out, [0xFF; 8]);
        assert_eq!(literal(5), "b'101'");
        assert_eq!(literal(0), "b'0'");
    }
}
