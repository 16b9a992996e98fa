//! What gives a string expression its character set and collation: introducers
//! (`_binary'..'`, `_latin1'..'`), `COLLATE`, the connection's collation for literals, and
//! MariaDB's derivation (coercibility) rules; CHARSET(), COLLATION() and COERCIBILITY(),
//! which report them and are constants of the bound argument.
//!
//! Derivations (MariaDB 10.11, checked with COERCIBILITY()): `COLLATE` 0, a column, user
//! variable or CAST 2, @@variables and USER()/DATABASE()/VERSION() 3, a string literal 4,
//! a number or temporal value 5, NULL 6; a string function takes the lowest of its string
//! arguments', numbers counting as literals (CONCAT(1) is 4).

use sqlparser::ast;

use super::binder::{Binder, Bound};
use crate::charset::{self, convert, Collation, Derivation};
use crate::error::{self, SqlError};
use crate::plan::Expr;
use crate::types::Value;
use crate::value::SqlType;
use crate::variables::VarScope;

/// Functions whose value is a property of the server or session (derivation SYSCONST).
const SYSCONST_FUNCTIONS: &[&str] =
    &["USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER", "DATABASE", "SCHEMA", "VERSION", "CURRENT_ROLE"];

/// A string function's derivation from its arguments'.
pub fn function_derivation(name: &str, args: &[Bound]) -> Derivation {
    if SYSCONST_FUNCTIONS.iter().any(|f| f.eq_ignore_ascii_case(name)) {
        return Derivation::SysConst;
    }
    aggregate_derivation(args)
}

/// The lowest derivation of `args`, a number counting as a literal.
pub fn aggregate_derivation(args: &[Bound]) -> Derivation {
    match args.iter().map(|a| a.derivation).min() {
        None | Some(Derivation::Numeric) => Derivation::Coercible,
        Some(d) => d,
    }
}

/// MariaDB's 1300 for bytes that are not text of the character set they were declared in.
fn invalid_string(charset_name: &str, bytes: &[u8]) -> SqlError {
    let bad = match std::str::from_utf8(bytes) {
        Ok(_) => bytes,
        Err(e) => &bytes[e.valid_up_to()..],
    };
    let hex: String = bad.iter().take(6).map(|b| format!("{b:02X}")).collect();
    SqlError::new(1300, "HY000", format!("Invalid {charset_name} character string: '{hex}'"))
}

fn collation_not_for_charset(collation: &str, charset_name: &str) -> SqlError {
    SqlError::new(1253, "42000", format!("COLLATION '{collation}' is not valid for CHARACTER SET '{charset_name}'"))
}

fn unknown_collation(name: &str) -> SqlError {
    SqlError::new(1273, "HY000", format!("Unknown collation: '{name}'"))
}

impl Binder<'_> {
    /// The session's `collation_connection`: the collation of string literals.
    pub fn connection_collation(&self) -> Collation {
        self.env
            .vars
            .and_then(|(s, g)| s.get(g, "collation_connection", VarScope::Session).ok())
            .and_then(|v| match v {
                Value::Bytes(b) => Collation::named(std::str::from_utf8(&b).ok()?),
                _ => None,
            })
            .unwrap_or_else(crate::value::default_text_collation)
    }

    /// `_charset'text'` / `_charset X'hex'`: the literal's bytes read in that character set.
    pub(super) fn bind_introduced(&mut self, prefix: &ast::Ident, value: &ast::Expr) -> Result<Bound, SqlError> {
        let name = prefix.value.strip_prefix('_').unwrap_or(&prefix.value);
        let Some(cs) = charset::charset(name) else {
            return Err(error::unknown_column(&prefix.value, self.clause()));
        };
        let bytes = match self.bind_expr(value)?.expr {
            Expr::Literal(Value::Bytes(b)) => b,
            _ => return Err(error::syntax(&format!("{prefix} {value}"), 1)),
        };
        if cs.name == "binary" {
            let ty = SqlType::Bytes { max_len: bytes.len() as u32, lob: false };
            return Ok(Bound::new(Expr::Literal(Value::Bytes(bytes)), ty, false));
        }
        let encoding = convert::Encoding::of_charset(cs.name);
        let text = match encoding {
            convert::Encoding::Utf8mb4 | convert::Encoding::Utf8mb3 => {
                let valid = std::str::from_utf8(&bytes)
                    .is_ok_and(|s| encoding == convert::Encoding::Utf8mb4 || s.chars().all(|c| (c as u32) <= 0xFFFF));
                if !valid {
                    return Err(invalid_string(cs.name, &bytes));
                }
                bytes
            }
            _ => convert::to_utf8(&bytes, encoding).bytes,
        };
        let chars = String::from_utf8_lossy(&text).chars().count() as u32;
        let collation = Collation::default_of(cs.name).unwrap_or_else(|| self.connection_collation());
        let ty = SqlType::Text { max_chars: chars, lob: false, collation };
        Ok(Bound::new(Expr::Literal(Value::Bytes(text)), ty, false))
    }

    /// `expr COLLATE name`.
    pub(super) fn bind_collate(&mut self, expr: &ast::Expr, name: &ast::ObjectName) -> Result<Bound, SqlError> {
        let name = name.to_string();
        let name = name.trim_matches(|c| c == '`' || c == '\'' || c == '"');
        let collation = Collation::named(name).ok_or_else(|| unknown_collation(name))?;
        let mut b = self.bind_expr(expr)?;
        b.ty = match b.ty {
            SqlType::Text { max_chars, lob, collation: own } => {
                if own.charset_name() != collation.charset_name() {
                    return Err(collation_not_for_charset(collation.name(), own.charset_name()));
                }
                SqlType::Text { max_chars, lob, collation }
            }
            SqlType::Bytes { max_len, lob } => {
                if !collation.is_binary() {
                    return Err(collation_not_for_charset(collation.name(), "binary"));
                }
                SqlType::Bytes { max_len, lob }
            }
            // A number or date becomes a string of the connection's character set.
            other => {
                let connection = self.connection_collation();
                if connection.charset_name() != collation.charset_name() {
                    return Err(collation_not_for_charset(collation.name(), connection.charset_name()));
                }
                SqlType::Text { max_chars: other.display_chars(), lob: false, collation }
            }
        };
        b.derivation = Derivation::Explicit;
        b.origin = None;
        Ok(b)
    }

    /// CHARSET(x), COLLATION(x), COERCIBILITY(x): None for any other function.
    pub(super) fn bind_collation_function(
        &mut self,
        upper: &str,
        args: &[&ast::Expr],
    ) -> Option<Result<Bound, SqlError>> {
        if !matches!(upper, "CHARSET" | "COLLATION" | "COERCIBILITY") {
            return None;
        }
        let [arg] = args else {
            return Some(Err(error::wrong_param_count(upper)));
        };
        Some(self.bind_expr(arg).map(|b| {
            let collation = match &b.ty {
                SqlType::Text { collation, .. } => *collation,
                _ => Collation::binary(),
            };
            let value = match upper {
                "CHARSET" => Value::Bytes(collation.charset_name().as_bytes().to_vec()),
                "COLLATION" => Value::Bytes(collation.name().as_bytes().to_vec()),
                _ => Value::Int(b.derivation as i64),
            };
            let ty = match &value {
                // MariaDB types CHARSET() and COLLATION() as VARCHAR(64) utf8mb3.
                Value::Bytes(_) => SqlType::Text {
                    max_chars: 64,
                    lob: false,
                    collation: Collation::named("utf8mb3_general_ci").expect("listed"),
                },
                _ => SqlType::Int { bits: 64, unsigned: false },
            };
            Bound::new(Expr::Literal(value), ty, false)
        }))
    }
}
