//! Functions that read a string's bytes (LENGTH, HEX, MD5, ...) see a latin1 value as its
//! latin1 bytes, as MariaDB, which stores it so: LENGTH of a latin1 'é' is 1 and its HEX 'E9'.
//! Selkie holds every text value as UTF-8 (`SqlType::Text`; the collation says what character
//! set it belongs to), so the binder wraps such an argument in a conversion to its character
//! set's bytes. utf8mb3 and ascii text is already its own bytes.

use super::binder::Bound;
use crate::charset::convert::{self, Encoding};
use crate::charset::Collation;
use crate::plan::{Expr, FuncRef};
use crate::types::Value;
use crate::value::{ScalarFunction, SqlType};

/// The functions whose result depends on the bytes of their string arguments.
const BYTE_FUNCTIONS: &[&str] = &[
    "LENGTH",
    "OCTET_LENGTH",
    "LENGTHB",
    "BIT_LENGTH",
    "HEX",
    "ASCII",
    "ORD",
    "MD5",
    "SHA",
    "SHA1",
    "SHA2",
    "CRC32",
    "TO_BASE64",
];

/// `args` of `name`, each text argument of a character set whose bytes are not its UTF-8 made
/// to give those bytes.
pub(super) fn in_charset_bytes(name: &str, args: Vec<Bound>) -> Vec<Bound> {
    if !BYTE_FUNCTIONS.iter().any(|f| f.eq_ignore_ascii_case(name)) {
        return args;
    }
    let hex = name.eq_ignore_ascii_case("HEX");
    args.into_iter()
        .map(|b| match &b.ty {
            // HEX of a UUID / INET value is its binary form's, as MariaDB's (the other byte
            // functions read its text there too).
            SqlType::Text { collation, .. } if hex && collation.fixed_binary_kind().is_some() => {
                let ty = SqlType::Bytes { max_len: 16, lob: false };
                let id = Expr::Literal(Value::Int(collation.id() as i64));
                Bound { expr: Expr::Func { func: FuncRef(&FIXED_BINARY_BYTES), args: vec![b.expr, id] }, ty, ..b }
            }
            SqlType::Text { collation, max_chars, lob } if needs_bytes(*collation) => {
                let ty = SqlType::Bytes { max_len: *max_chars, lob: *lob };
                let id = Expr::Literal(Value::Int(collation.id() as i64));
                Bound { expr: Expr::Func { func: FuncRef(&CHARSET_BYTES), args: vec![b.expr, id] }, ty, ..b }
            }
            _ => b,
        })
        .collect()
}

fn needs_bytes(c: Collation) -> bool {
    Encoding::of_charset(c.charset_name()) == Encoding::Latin1
}

/// (text, collation id): the text's bytes in the collation's character set.
static CHARSET_BYTES: ScalarFunction = ScalarFunction {
    name: "CHARSET_BYTES",
    min_args: 2,
    max_args: 2,
    deterministic: true,
    return_type: |_| SqlType::Bytes { max_len: 0, lob: false },
    eval: |args, _| {
        let (Value::Bytes(s), Value::Int(id)) = (&args[0], &args[1]) else {
            return Ok(args[0].clone());
        };
        let Some(c) = Collation::by_id(*id as u64) else { return Ok(args[0].clone()) };
        Ok(Value::Bytes(convert::from_utf8(s, Encoding::of_charset(c.charset_name())).bytes))
    },
};

/// (canonical text, pseudo collation id): a UUID / INET value's binary form.
static FIXED_BINARY_BYTES: ScalarFunction = ScalarFunction {
    name: "FIXED_BINARY_BYTES",
    min_args: 2,
    max_args: 2,
    deterministic: true,
    return_type: |_| SqlType::Bytes { max_len: 16, lob: false },
    eval: |args, _| {
        let (Value::Bytes(s), Value::Int(id)) = (&args[0], &args[1]) else {
            return Ok(args[0].clone());
        };
        let kind = Collation::by_id(*id as u64).and_then(|c| c.fixed_binary_kind());
        Ok(kind.and_then(|k| k.parse(s)).map_or_else(|| args[0].clone(), Value::Bytes))
    },
};
