//! Values of other types where an expression's type is a string. IF, IFNULL, COALESCE and CASE
//! take the type their results aggregate to (Type_handler_hybrid_field_type): an INT result
//! beside a string one makes the whole expression a string, so `IFNULL(int_col, 'x') = '1'`
//! compares strings ('1' = '1'), ORDER BY sorts text ('1' < '3' < 'x'), and a FLOAT result reads
//! '0.1'. Without a conversion the branch would hand its number to the comparison, which would
//! then compare numbers (or a number with the other side's sort key): wrong rows, no error.
//!
//! The binder wraps such a branch in `TYPED_TEXT`, which prints the value as its static type
//! prints it (FLOAT as a float, DATETIME(3) with 3 digits, BIT as its bytes), or in
//! `ZEROFILL_TEXT` for a ZEROFILL column.
//!
//! String functions, LIKE, CAST AS CHAR and GROUP_CONCAT read their arguments the same way:
//! CONCAT(float_col) is '0.1' (not the double 0.10000000149011612), CONCAT(bit_col) its bytes,
//! CONCAT(datetime3_col) has 3 fractional digits. Types whose values print the same without
//! their type (integers, DECIMAL, DOUBLE) are left as they are there.

use super::binder::{Binder, Bound};
use crate::plan::{Expr, FuncRef};
use crate::types::Value;
use crate::value::{self, FnContext, ScalarFunction, SqlType};
use crate::SqlError;

impl Binder<'_> {
    /// `b` as the string it is read as when the expression it is a result of has type `ty`:
    /// unchanged unless `ty` is a string and `b` is not.
    pub(super) fn as_result_of_type(&self, b: Bound, ty: &SqlType) -> Bound {
        if !matches!(ty, SqlType::Text { .. } | SqlType::Bytes { .. }) {
            return b;
        }
        match &b.ty {
            // Already strings, or values held as their text (TIME, ENUM, SET).
            SqlType::Null
            | SqlType::Text { .. }
            | SqlType::Bytes { .. }
            | SqlType::Time { .. }
            | SqlType::Enum { .. } => b,
            _ if super::zerofill::is_zerofill(&b) => self.zerofill_as_text(b),
            other => {
                let (kind, param) = TextOf::of(other);
                let ty = SqlType::text(other.display_chars(), false);
                let args = vec![b.expr, Expr::Literal(Value::Int(kind as i64)), Expr::Literal(Value::Int(param))];
                Bound::new(Expr::Func { func: FuncRef(&TYPED_TEXT), args }, ty, b.nullable)
            }
        }
    }
}

/// Functions that return a number but read their argument as a string.
const STRING_READERS: &[&str] = &["LENGTH", "OCTET_LENGTH", "CHAR_LENGTH", "CHARACTER_LENGTH", "BIT_LENGTH"];
/// String functions that read a number as a number.
const NUMBER_READERS: &[&str] = &["HEX"];

impl Binder<'_> {
    /// `b` where it is read as a string: a ZEROFILL column padded, a FLOAT / BIT / DATE /
    /// DATETIME / TIMESTAMP value printed as its type prints it; anything else as it is.
    pub(super) fn as_text_read(&self, b: Bound) -> Bound {
        if super::zerofill::is_zerofill(&b) {
            return self.zerofill_as_text(b);
        }
        match TextOf::of(&b.ty).0 {
            TextOf::Plain => b,
            _ => self.as_result_of_type(b, &SqlType::text(0, false)),
        }
    }

    /// The arguments of a call of `f`, read as strings where `f` reads them so. A ZEROFILL
    /// column is padded in every argument of a string function (read back as a number where
    /// the function wants one, LPAD's length say, it is the same number); HEX is the exception
    /// (it reads a number as one: HEX(zf) is '2A'). A FLOAT / BIT / temporal value is printed
    /// only in the positions `reads_string_at` names, since its text read back as a number is
    /// not the same number (a BIT's bytes, a date's digits).
    pub(super) fn string_arguments(&self, f: &ScalarFunction, args: Vec<Bound>) -> Vec<Bound> {
        let typed = |a: &Bound| !matches!(TextOf::of(&a.ty).0, TextOf::Plain);
        if !args.iter().any(|a| super::zerofill::is_zerofill(a) || typed(a)) {
            return args;
        }
        let types: Vec<SqlType> = args.iter().map(|a| a.ty.clone()).collect();
        let reads_strings = match (f.return_type)(&types) {
            SqlType::Text { .. } | SqlType::Bytes { .. } => !NUMBER_READERS.contains(&f.name),
            _ => STRING_READERS.contains(&f.name),
        };
        if !reads_strings {
            return args;
        }
        args.into_iter()
            .enumerate()
            .map(|(i, a)| {
                if super::zerofill::is_zerofill(&a) {
                    self.zerofill_as_text(a)
                } else if typed(&a) && reads_string_at(f.name, i) {
                    self.as_result_of_type(a, &SqlType::text(0, false))
                } else {
                    a
                }
            })
            .collect()
    }
}

/// Whether function `name` reads its argument at `position` as a string (MariaDB's val_str):
/// every argument of the pure string functions, the string argument of the others.
fn reads_string_at(name: &str, position: usize) -> bool {
    const EVERY_ARGUMENT: &[&str] = &[
        "CONCAT",
        "CONCAT_WS",
        "UPPER",
        "UCASE",
        "LOWER",
        "LCASE",
        "REPLACE",
        "REVERSE",
        "TRIM",
        "LTRIM",
        "RTRIM",
        "QUOTE",
        "MD5",
        "SHA",
        "SHA1",
        "TO_BASE64",
        "SOUNDEX",
        "LENGTH",
        "OCTET_LENGTH",
        "CHAR_LENGTH",
        "CHARACTER_LENGTH",
        "BIT_LENGTH",
        "LENGTHB",
        "INSTR",
        "STRCMP",
        "FIND_IN_SET",
    ];
    const FIRST_ARGUMENT: &[&str] =
        &["LEFT", "RIGHT", "SUBSTRING", "SUBSTR", "MID", "LPAD", "RPAD", "INSERT", "REPEAT", "SHA2", "WEIGHT_STRING"];
    EVERY_ARGUMENT.contains(&name)
        || (FIRST_ARGUMENT.contains(&name) && position == 0)
        || (matches!(name, "LPAD" | "RPAD") && position == 2)
        || (name == "INSERT" && position == 3)
        || (matches!(name, "LOCATE" | "SUBSTRING_INDEX") && position < 2)
}

/// The static type `TYPED_TEXT` prints a value as, passed as two integer arguments (a function
/// reads only values).
#[derive(Clone, Copy, PartialEq, Eq)]
enum TextOf {
    Plain = 0,
    Float = 1,
    Bit = 2,
    Date = 3,
    DateTime = 4,
}

impl TextOf {
    fn of(ty: &SqlType) -> (TextOf, i64) {
        match ty {
            SqlType::Float => (TextOf::Float, 0),
            SqlType::Bit { width } => (TextOf::Bit, i64::from(*width)),
            SqlType::Date => (TextOf::Date, 0),
            SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => (TextOf::DateTime, i64::from(*fsp)),
            _ => (TextOf::Plain, 0),
        }
    }

    fn sql_type(kind: i64, param: i64) -> Option<SqlType> {
        let param = param.clamp(0, 64) as u8;
        match kind {
            k if k == TextOf::Float as i64 => Some(SqlType::Float),
            k if k == TextOf::Bit as i64 => Some(SqlType::Bit { width: param }),
            k if k == TextOf::Date as i64 => Some(SqlType::Date),
            k if k == TextOf::DateTime as i64 => Some(SqlType::DateTime { fsp: param }),
            _ => None,
        }
    }
}

/// (value, kind, param): the value's text as its static type prints it.
static TYPED_TEXT: ScalarFunction = ScalarFunction {
    name: "TYPED_TEXT",
    min_args: 3,
    max_args: 3,
    deterministic: true,
    return_type: |_| SqlType::text(0, false),
    eval: typed_text,
};

fn typed_text(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    let (v, Value::Int(kind), Value::Int(param)) = (&args[0], &args[1], &args[2]) else {
        return Ok(args[0].clone());
    };
    if v.is_null() || matches!(v, Value::Bytes(_)) {
        return Ok(v.clone());
    }
    let ty = TextOf::sql_type(*kind, *param);
    let mut out = Vec::new();
    value::format_text(v, ty.as_ref(), &mut out);
    Ok(Value::Bytes(out))
}
