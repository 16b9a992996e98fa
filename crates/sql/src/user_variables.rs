//! User variables (`@name`): a session's values, each kept with the type MariaDB keeps for it.
//!
//! MariaDB stores a user variable as one of its result types: an integer (signed or not), a
//! DECIMAL (with the value's own scale: `SELECT x INTO @d` from a DECIMAL(10,4) is 1.5000), a
//! DOUBLE, or a string in a collation. The collation is what a `Value` alone cannot tell: a
//! variable set from `_binary'..'` or a BLOB column is a binary string (`CHARSET(@v)` is
//! 'binary'), one set from a latin1 column is latin1. Temporal values become strings, as in
//! MariaDB (`SET @d = CURDATE()`: `@d + 0` reads the text, 2024).
//!
//! Below `bind` (which types a reference to a variable from what it holds) and `exec` (which
//! assigns them); the session owns the map.

use std::collections::HashMap;

use selkie_storage::{DECIMAL_MAX_PRECISION, DECIMAL_MAX_SCALE};

use crate::charset::Collation;
use crate::error::SqlError;
use crate::types::Value;
use crate::value::{self, FnContext, ScalarFunction, SqlType};

/// A session's user variables by lower-cased name (names are case-insensitive).
pub type UserVariables = HashMap<String, UserVariable>;

/// Longest string MariaDB describes a string variable with (MAX_BLOB_WIDTH): LONG_BLOB of
/// 16777215 characters.
const STRING_VARIABLE_CHARS: u32 = 16_777_215;
/// The length of a variable never set: one more than a set string's (MariaDB measured).
const UNDEFINED_VARIABLE_LENGTH: u32 = 16_777_216;

#[derive(Clone, Debug, PartialEq)]
pub struct UserVariable {
    pub value: Value,
    /// The collation of a string variable (`binary` for a binary string or NULL); None for a
    /// number.
    pub collation: Option<Collation>,
}

/// How an assignment stores what its expression returns, decided from the expression's type
/// when it is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assigned {
    /// A number: the value as it is.
    Number,
    /// A string of this collation.
    Text(Collation),
    /// A date or time: its text, with `fsp` fractional digits (a latin1 string, as MariaDB's
    /// temporal items are strings of its numeric charset).
    Temporal { fsp: u8 },
}

impl Assigned {
    /// How a value of type `ty` is stored. `connection` is the collation of text whose type
    /// does not say (an ENUM's values).
    pub fn of_type(ty: &SqlType, connection: Collation) -> Assigned {
        match ty {
            SqlType::Int { .. } | SqlType::Bit { .. } | SqlType::Decimal { .. } | SqlType::Float | SqlType::Double => {
                Assigned::Number
            }
            SqlType::Text { collation, .. } => Assigned::Text(*collation),
            SqlType::Bytes { .. } | SqlType::Null => Assigned::Text(Collation::binary()),
            SqlType::Date => Assigned::Temporal { fsp: 0 },
            SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } | SqlType::Time { fsp } => {
                Assigned::Temporal { fsp: *fsp }
            }
            SqlType::Enum { .. } => Assigned::Text(connection),
        }
    }
}

impl UserVariable {
    /// The variable an assignment leaves: `value` stored as `assigned` says.
    pub fn new(value: Value, assigned: Assigned) -> UserVariable {
        match assigned {
            Assigned::Text(c) => {
                let value = match value {
                    v @ (Value::Null | Value::Bytes(_)) => v,
                    other => value::to_text_bytes(&other).map_or(Value::Null, Value::Bytes),
                };
                UserVariable { value, collation: Some(c) }
            }
            Assigned::Temporal { fsp } => {
                let value = match value {
                    v @ (Value::Null | Value::Bytes(_)) => v,
                    other => {
                        let mut text = Vec::new();
                        value::format_text(&other, Some(&SqlType::DateTime { fsp }), &mut text);
                        Value::Bytes(text)
                    }
                };
                UserVariable { value, collation: Collation::default_of("latin1") }
            }
            // A number typed so but computed as a string (rare) keeps its text's collation.
            Assigned::Number if matches!(value, Value::Bytes(_)) => {
                UserVariable { value, collation: Some(value::default_text_collation()) }
            }
            Assigned::Number => UserVariable { value, collation: None },
        }
    }

    /// The type a reference to the variable has in an expression (MariaDB's
    /// Item_func_get_user_var): BIGINT, DECIMAL with 38 decimals (so `@d * 2` shows 38 digits
    /// after the point), DOUBLE, or a LONGTEXT / LONGBLOB string of the variable's collation.
    pub fn reference_type(var: Option<&UserVariable>) -> SqlType {
        let Some(var) = var else {
            return SqlType::Bytes { max_len: UNDEFINED_VARIABLE_LENGTH, lob: true };
        };
        match (&var.value, var.collation) {
            (Value::Int(_), _) => SqlType::Int { bits: 64, unsigned: false },
            (Value::UInt(_), _) => SqlType::Int { bits: 64, unsigned: true },
            (Value::Double(_), _) => SqlType::Double,
            (Value::Decimal(_), _) => SqlType::Decimal { precision: DECIMAL_MAX_PRECISION, scale: DECIMAL_MAX_SCALE },
            (_, Some(c)) if !c.is_binary() => {
                SqlType::Text { max_chars: STRING_VARIABLE_CHARS, lob: true, collation: c }
            }
            _ => SqlType::Bytes { max_len: STRING_VARIABLE_CHARS, lob: true },
        }
    }
}

/// A string variable read as a number (an arithmetic operand): DOUBLE, without the 1292
/// warning a string operand gives, as MariaDB's user_var_entry::val_real (`SET @s = 'text';
/// SELECT @s + 0` is 0 with no warning).
pub static STRING_VARIABLE_AS_NUMBER: ScalarFunction = ScalarFunction {
    name: "USER_VARIABLE_AS_NUMBER",
    min_args: 1,
    max_args: 1,
    deterministic: true,
    return_type: |_| SqlType::Double,
    eval: string_variable_as_number,
};

fn string_variable_as_number(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(match &args[0] {
        Value::Bytes(_) => value::to_f64(&args[0]).map_or(Value::Null, Value::Double),
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use selkie_storage::{Date, Decimal};

    use super::*;

    #[test]
    fn a_variable_keeps_the_type_it_was_assigned() {
        let latin1 = Collation::default_of("latin1").unwrap();
        let binary = UserVariable::new(Value::Bytes(vec![0, 0xFF]), Assigned::of_type(&SqlType::Null, latin1));
        assert_eq!(UserVariable::reference_type(Some(&binary)), SqlType::Bytes { max_len: 16_777_215, lob: true });
        let text = UserVariable::new(Value::Bytes(b"x".to_vec()), Assigned::Text(latin1));
        assert!(
            matches!(UserVariable::reference_type(Some(&text)), SqlType::Text { collation, .. } if collation == latin1)
        );
        // A date becomes its text, a latin1 string.
        let date = UserVariable::new(Value::Date(Date::new(2020, 1, 2)), Assigned::of_type(&SqlType::Date, latin1));
        assert_eq!(date, UserVariable { value: Value::Bytes(b"2020-01-02".to_vec()), collation: Some(latin1) });
        // A DECIMAL keeps its value's scale; references read it as DECIMAL(65,38).
        let d = UserVariable::new(Value::Decimal(Decimal::new(150, 2)), Assigned::Number);
        assert_eq!(d.value, Value::Decimal(Decimal::new(150, 2)));
        assert_eq!(UserVariable::reference_type(Some(&d)), SqlType::Decimal { precision: 65, scale: 38 });
        assert_eq!(UserVariable::reference_type(None), SqlType::Bytes { max_len: 16_777_216, lob: true });
    }
}
