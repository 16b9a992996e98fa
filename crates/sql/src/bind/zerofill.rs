//! ZEROFILL columns in string context. MariaDB pads a ZEROFILL column's value with leading
//! zeros to the column's display width whenever it is read as a string (Field_num::
//! prepend_zeros): CONCAT, CAST(... AS CHAR), LENGTH, LPAD and the other string functions of an
//! INT(6) ZEROFILL holding 42 see '000042'; arithmetic and comparisons see 42. The column's
//! value stays a number here, so the binder wraps it in `ZEROFILL_TEXT` where a string
//! function reads it.
//!
//! Reading a padded argument where a function wants an integer (LPAD's length, say) gives the
//! same number, so every argument of a string function is wrapped; HEX is the exception (it
//! reads a number as one: HEX(zf) is '2A').

use super::binder::{Binder, Bound};
use crate::plan::{Expr, FuncRef};
use crate::types::{column_flags, Value};
use crate::value::{FnContext, ScalarFunction, SqlType};
use crate::SqlError;

impl Binder<'_> {
    /// A ZEROFILL column as its padded text; anything else as it is.
    pub(super) fn zerofill_as_text(&self, b: Bound) -> Bound {
        let Some(width) = zerofill_width(&b) else {
            return b;
        };
        let max_chars = b.ty.display_chars().max(width);
        let args = vec![b.expr, Expr::Literal(Value::Int(i64::from(width)))];
        Bound::new(Expr::Func { func: FuncRef(&ZEROFILL_TEXT), args }, SqlType::text(max_chars, false), b.nullable)
    }
}

/// Whether `b` is a plain reference to a ZEROFILL column.
pub(super) fn is_zerofill(b: &Bound) -> bool {
    zerofill_width(b).is_some()
}

/// The display width of a plain reference to a ZEROFILL column.
fn zerofill_width(b: &Bound) -> Option<u32> {
    let meta = b.origin.as_ref()?;
    let column = matches!(b.expr, Expr::Column(_) | Expr::Outer { .. });
    (column && meta.flags & column_flags::ZEROFILL != 0).then_some(meta.length)
}

/// (number, width): the number's text with leading zeros up to `width` characters.
static ZEROFILL_TEXT: ScalarFunction = ScalarFunction {
    name: "ZEROFILL_TEXT",
    min_args: 2,
    max_args: 2,
    deterministic: true,
    return_type: |_| SqlType::text(0, false),
    eval: zerofill_text,
};

fn zerofill_text(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    let (v, Value::Int(width)) = (&args[0], &args[1]) else {
        return Ok(args[0].clone());
    };
    if v.is_null() {
        return Ok(Value::Null);
    }
    Ok(Value::Bytes(padded(crate::value::functions::text(v), *width as usize)))
}

fn padded(text: Vec<u8>, width: usize) -> Vec<u8> {
    if text.len() >= width {
        return text;
    }
    let mut out = vec![b'0'; width - text.len()];
    out.extend_from_slice(&text);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MariaDB 10.11: INT(6) ZEROFILL 42 is '000042', DECIMAL(6,2) ZEROFILL 3.5 (width 7) is
    /// '0003.50', a value wider than the column is left alone.
    #[test]
    fn pads_to_the_display_width() {
        assert_eq!(padded(b"42".to_vec(), 6), b"000042");
        assert_eq!(padded(b"3.50".to_vec(), 7), b"0003.50");
        assert_eq!(padded(b"1234567".to_vec(), 6), b"1234567");
    }
}
