//! SET columns where MariaDB reads them as numbers. A SET value is held as its text ('a,c'),
//! which is what it is in string context; in numeric context (arithmetic, comparison with a
//! number) MariaDB uses its bit mask (bit i for the i-th member of the definition: 'a,c' of
//! SET('a','b','c') is 5), and FIND_IN_SET(constant, set_column) answers from the mask with
//! the constant's position in the column's definition, not in the value's text
//! (Item_func_find_in_set's `enum_value`): FIND_IN_SET('c', 'a,c') is 3 there.

use super::binder::{Binder, Bound};
use crate::plan::{Expr, FuncRef};
use crate::types::Value;
use crate::value::{FnContext, ScalarFunction, SqlType};
use crate::SqlError;

/// Functions that read their arguments as numbers (Item_func_math and friends: val_real /
/// val_int / val_decimal of the argument), so that an ENUM argument is its index and a SET
/// column its bit mask there, as in arithmetic: ABS(set_col) is ABS(5) for 'a,c', not the
/// 0 of the text 'a,c' read as a number.
const MATH_FUNCTIONS: &[&str] = &[
    "ABS",
    "SIGN",
    "SQRT",
    "EXP",
    "LN",
    "LOG",
    "LOG2",
    "LOG10",
    "POW",
    "POWER",
    "ROUND",
    "TRUNCATE",
    "FLOOR",
    "CEIL",
    "CEILING",
    "MOD",
    "SIN",
    "COS",
    "TAN",
    "ASIN",
    "ACOS",
    "ATAN",
    "ATAN2",
    "COT",
    "DEGREES",
    "RADIANS",
    "BIT_COUNT",
    "OCT",
    "BIN",
];

/// Whether `function` reads every argument as a number (`MATH_FUNCTIONS`; zerofill.rs has the string functions that do).
pub(super) fn is_math_function(function: &str) -> bool {
    MATH_FUNCTIONS.contains(&function)
}

impl Binder<'_> {
    /// The members of a SET column's definition, when `b` is a plain reference to one.
    pub(super) fn set_column_members(&self, b: &Bound) -> Option<Vec<String>> {
        let meta = b.origin.as_ref()?;
        if !matches!(b.expr, Expr::Column(_) | Expr::Outer { .. }) {
            return None;
        }
        let table = self.env.catalog.table(&meta.schema, &meta.org_table)?;
        let column = table.columns.iter().find(|c| c.name.eq_ignore_ascii_case(&meta.org_name))?;
        match &column.ty {
            selkie_storage::ColumnType::Set { values } => Some(values.clone()),
            _ => None,
        }
    }

    /// A SET column as its bit mask (NULL stays NULL); anything else as it is.
    pub(super) fn set_as_number(&self, b: Bound) -> Bound {
        let Some(members) = self.set_column_members(&b) else {
            return b;
        };
        let mut args = vec![b.expr];
        args.extend(members.into_iter().map(|m| Expr::Literal(Value::Bytes(m.into_bytes()))));
        Bound::new(Expr::Func { func: FuncRef(&SET_BITS), args }, SqlType::Int { bits: 64, unsigned: true }, b.nullable)
    }

    /// FIND_IN_SET(constant, set_column) as MariaDB answers it: the constant's position in the
    /// column's definition when the value has that member, else 0. None when the call is not
    /// of that form (or the constant is no member: then the text is searched, as MariaDB does).
    pub(super) fn find_in_set_of_set_column(&self, args: &[Bound]) -> Option<Bound> {
        let [needle, column] = args else {
            return None;
        };
        let Expr::Literal(Value::Bytes(needle)) = &needle.expr else {
            return None;
        };
        let members = self.set_column_members(column)?;
        let position = members.iter().position(|m| m.as_bytes().eq_ignore_ascii_case(needle))? + 1;
        let mut call = vec![column.expr.clone(), Expr::Literal(Value::Int(position as i64))];
        call.extend(members.into_iter().map(|m| Expr::Literal(Value::Bytes(m.into_bytes()))));
        let ty = SqlType::Int { bits: 32, unsigned: false };
        Some(Bound::new(Expr::Func { func: FuncRef(&SET_MEMBER_POSITION), args: call }, ty, column.nullable))
    }
}

/// The mask of a SET value's text over the members of its definition.
fn mask(text: &[u8], members: &[Value]) -> u64 {
    let mut bits = 0u64;
    for item in text.split(|&c| c == b',') {
        let found = members.iter().position(|m| matches!(m, Value::Bytes(m) if m.eq_ignore_ascii_case(item)));
        if let Some(i) = found {
            bits |= 1 << i;
        }
    }
    bits
}

/// (set text, member...): the value's bit mask.
static SET_BITS: ScalarFunction = ScalarFunction {
    name: "SET_BITS",
    min_args: 1,
    max_args: usize::MAX,
    deterministic: true,
    return_type: |_| SqlType::Int { bits: 64, unsigned: true },
    eval: set_bits,
};

fn set_bits(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    match &args[0] {
        Value::Null => Ok(Value::Null),
        Value::Bytes(text) => Ok(Value::UInt(mask(text, &args[1..]))),
        other => Ok(other.clone()),
    }
}

/// (set text, position, member...): the position when the value has that member, else 0.
static SET_MEMBER_POSITION: ScalarFunction = ScalarFunction {
    name: "SET_MEMBER_POSITION",
    min_args: 2,
    max_args: usize::MAX,
    deterministic: true,
    return_type: |_| SqlType::Int { bits: 32, unsigned: false },
    eval: set_member_position,
};

fn set_member_position(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    let (Value::Bytes(text), Value::Int(position)) = (&args[0], &args[1]) else {
        return Ok(Value::Null);
    };
    let has = mask(text, &args[2..]) & (1 << (position - 1)) != 0;
    Ok(Value::Int(if has { *position } else { 0 }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members() -> Vec<Value> {
        ["a", "b", "c"].iter().map(|m| Value::Bytes(m.as_bytes().to_vec())).collect()
    }

    /// MariaDB 10.11, SET('a','b','c'): 'a,c' + 0 is 5, '' is 0; FIND_IN_SET('c', 'a,c') is 3.
    #[test]
    fn masks_and_positions_as_mariadb() {
        assert_eq!(mask(b"a,c", &members()), 5);
        assert_eq!(mask(b"", &members()), 0);
        assert_eq!(mask(b"C", &members()), 4);
        let ctx = crate::value::tests::TestCtx::default();
        let call = |text: &[u8], p: i64| {
            let mut args = vec![Value::Bytes(text.to_vec()), Value::Int(p)];
            args.extend(members());
            set_member_position(&args, &ctx).unwrap()
        };
        assert_eq!(call(b"a,c", 3), Value::Int(3));
        assert_eq!(call(b"a,b", 3), Value::Int(0));
        assert_eq!(call(b"b", 2), Value::Int(2));
    }
}
