//! `CONVERT(x USING charset)`: the value as text of that character set, as MariaDB converts it.
//! Bytes (a binary string) are read as the character set's text, each byte that does not
//! start a valid character becoming '?' with warning 1300; text becomes the characters the set
//! can hold, the others '?' with warning 1977. The result is text of the character set's
//! default collation, held as UTF-8 like all text (`charset_bytes` gives its bytes back where a
//! function reads them: HEX(CONVERT('é' USING latin1)) is 'E9').

use super::binder::{Binder, Bound};
use crate::charset::convert::{self, Encoding};
use crate::charset::{self, Collation};
use crate::error::SqlError;
use crate::plan::{Expr, FuncRef};
use crate::types::Value;
use crate::value::{self, CastTarget, FnContext, ScalarFunction, SqlType};

/// Longest run of bytes warning 1300 quotes.
const MAX_QUOTED_BYTES: usize = 64;

impl Binder<'_> {
    pub(super) fn bind_convert_using(&mut self, expr: &sqlparser::ast::Expr, name: &str) -> Result<Bound, SqlError> {
        let cs = charset::charset(name)
            .ok_or_else(|| SqlError::new(1115, "42000", format!("Unknown character set: '{name}'")))?;
        let x = self.bind_expr(expr)?;
        Ok(self.convert_to_charset(x, cs))
    }

    /// `CAST(x AS CHAR[(n)] CHARACTER SET cs)` (and CONVERT(x, that type)): the cast to CHAR,
    /// then the text converted to `cs` as CONVERT(... USING cs) converts it, as MariaDB.
    pub(super) fn bind_cast_to_charset(
        &mut self,
        expr: &sqlparser::ast::Expr,
        target: CastTarget,
        name: &str,
    ) -> Result<Bound, SqlError> {
        let cs = charset::charset(name)
            .ok_or_else(|| SqlError::new(1115, "42000", format!("Unknown character set: '{name}'")))?;
        let cast = self.bind_cast_reading_bytes(expr, target, cs)?;
        let mut converted = self.convert_to_charset(cast, cs);
        // A CAST is IMPLICIT (COERCIBILITY 2), whatever its argument was.
        converted.derivation = charset::Derivation::Implicit;
        Ok(converted)
    }

    pub(super) fn convert_to_charset(&mut self, x: Bound, cs: &charset::CharsetDef) -> Bound {
        let x = self.as_text_read(x);
        if cs.name == "binary" {
            let ty = value::cast_type(CastTarget::Binary { len: None });
            return Bound::new(
                Expr::Cast { expr: x.expr.boxed(), target: CastTarget::Binary { len: None } },
                ty,
                x.nullable,
            );
        }
        let collation = Collation::default_of(cs.name).unwrap_or_else(|| self.connection_collation());
        let source: i64 = match &x.ty {
            SqlType::Bytes { .. } => SOURCE_BYTES,
            SqlType::Text { collation, .. } => collation.id() as i64,
            _ => SOURCE_NUMBER,
        };
        let max_chars = match &x.ty {
            SqlType::Bytes { max_len, .. } => *max_len,
            other => other.display_chars(),
        };
        let lob = x.ty.is_lob();
        let args = vec![x.expr, Expr::Literal(Value::Int(collation.id() as i64)), Expr::Literal(Value::Int(source))];
        let ty = SqlType::Text { max_chars, lob, collation };
        Bound::new(Expr::Func { func: FuncRef(&CONVERT_USING), args }, ty, x.nullable)
    }
}

/// The source of a conversion is a binary string (its bytes are read in the target set).
const SOURCE_BYTES: i64 = -1;
/// The source is a number (its digits are ASCII text).
const SOURCE_NUMBER: i64 = -2;

/// (x, target collation id, source collation id or SOURCE_BYTES / SOURCE_NUMBER).
static CONVERT_USING: ScalarFunction = ScalarFunction {
    name: "CONVERT_USING",
    min_args: 3,
    max_args: 3,
    deterministic: true,
    return_type: |_| SqlType::text(0, false),
    eval: convert_using,
};

fn convert_using(args: &[Value], ctx: &dyn FnContext) -> Result<Value, SqlError> {
    let (Value::Int(target), Value::Int(source)) = (&args[1], &args[2]) else {
        return Ok(args[0].clone());
    };
    if args[0].is_null() {
        return Ok(Value::Null);
    }
    let bytes = value::functions::text(&args[0]);
    let Some(target) = Collation::by_id(*target as u64) else {
        return Ok(Value::Bytes(bytes));
    };
    let to = Encoding::of_charset(target.charset_name());
    if *source == SOURCE_BYTES {
        return Ok(Value::Bytes(read_bytes_as(&bytes, to, target.charset_name(), ctx)));
    }
    let converted = convert::restrict_to(&bytes, to);
    if converted.lossy {
        let from = Collation::by_id(*source as u64).map_or("utf8mb4", |c| c.charset_name());
        if let Some(c) =
            String::from_utf8_lossy(&bytes).chars().find(|c| convert::from_utf8(c.to_string().as_bytes(), to).lossy)
        {
            let hex: String = c.to_string().bytes().map(|b| format!("{b:02X}")).collect();
            ctx.warn(1977, format!("Cannot convert '{from}' character 0x{hex} to '{}'", target.charset_name()));
        }
    }
    Ok(Value::Bytes(converted.bytes))
}

/// Bytes read as text of `to`: for UTF-8 sets each byte that does not start a valid character
/// (of at most 3 bytes for utf8mb3) is one '?', and warning 1300 quotes the bytes from the
/// first of them, as MariaDB's String_copier.
fn read_bytes_as(bytes: &[u8], to: Encoding, charset_name: &str, ctx: &dyn FnContext) -> Vec<u8> {
    if !matches!(to, Encoding::Utf8mb4 | Encoding::Utf8mb3) {
        return convert::to_utf8(bytes, to).bytes;
    }
    let max_len = if to == Encoding::Utf8mb3 { 3 } else { 4 };
    let (mut out, mut first_bad) = (Vec::with_capacity(bytes.len()), None);
    let mut i = 0;
    while i < bytes.len() {
        let len = utf8_char_len(&bytes[i..]).filter(|n| *n <= max_len);
        match len {
            Some(n) => {
                out.extend_from_slice(&bytes[i..i + n]);
                i += n;
            }
            None => {
                first_bad.get_or_insert(i);
                out.push(b'?');
                i += 1;
            }
        }
    }
    if let Some(at) = first_bad {
        ctx.warn(1300, format!("Invalid {charset_name} character string: '{}'", printable(&bytes[at..])));
    }
    out
}

/// The length of the valid UTF-8 character `s` starts with.
fn utf8_char_len(s: &[u8]) -> Option<usize> {
    let n = match s[0] {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    std::str::from_utf8(s.get(..n)?).ok().map(|_| n)
}

/// Bytes as MariaDB quotes them in a message: printable ASCII as it is, others as \xHH.
fn printable(bytes: &[u8]) -> String {
    let mut out = String::new();
    for &b in bytes.iter().take(MAX_QUOTED_BYTES) {
        if (0x20..0x7F).contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::tests::TestCtx;

    /// Measured on MariaDB 10.11: CONVERT(X'8041424344454647' USING utf8mb4) is '?ABCDEFG',
    /// X'41FF80' is 'A??', X'F09F' is '??'.
    #[test]
    fn invalid_bytes_become_one_question_mark_each() {
        let ctx = TestCtx::default();
        assert_eq!(read_bytes_as(b"\x80ABCDEFG", Encoding::Utf8mb4, "utf8mb4", &ctx), b"?ABCDEFG");
        assert_eq!(read_bytes_as(b"A\xFF\x80", Encoding::Utf8mb4, "utf8mb4", &ctx), b"A??");
        assert_eq!(read_bytes_as(b"\xF0\x9F", Encoding::Utf8mb4, "utf8mb4", &ctx), b"??");
        assert_eq!(read_bytes_as("€".as_bytes(), Encoding::Utf8mb4, "utf8mb4", &ctx), "€".as_bytes());
        let warnings: Vec<String> = ctx.take_warnings().into_iter().map(|(_, m)| m).collect();
        assert_eq!(
            warnings,
            [
                r"Invalid utf8mb4 character string: '\x80ABCDEFG'",
                r"Invalid utf8mb4 character string: '\xFF\x80'",
                r"Invalid utf8mb4 character string: '\xF0\x9F'",
            ]
        );
        assert_eq!(read_bytes_as(b"\x80", Encoding::Latin1, "latin1", &ctx), "€".as_bytes());
    }
}
