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
use crate::charset::{self, convert, Collation, Derivation, FixedBinary};
use crate::error::{self, SqlError};
use crate::plan::{Expr, FuncRef};
use crate::types::Value;
use crate::value::{ScalarFunction, SqlType};

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

/// The collation a column declares with CHARACTER SET and/or COLLATE (None: it declares
/// neither and takes the table's). MariaDB's errors: 1115 unknown character set, 1273 unknown
/// collation, 1253 a collation of another character set.
pub fn declared_column_collation(
    charset_name: Option<&str>,
    collation: Option<&str>,
) -> Result<Option<Collation>, SqlError> {
    let cs = match charset_name {
        Some(n) => Some(
            charset::charset(n).ok_or_else(|| SqlError::new(1115, "42000", format!("Unknown character set: '{n}'")))?,
        ),
        None => None,
    };
    match (cs, collation) {
        (_, Some(name)) => {
            let c = Collation::named(name).ok_or_else(|| unknown_collation(name))?;
            if let Some(cs) = cs {
                if cs.name != c.charset_name() {
                    return Err(collation_not_for_charset(c.name(), cs.name));
                }
            }
            Ok(Some(c))
        }
        (Some(cs), None) => Ok(Collation::named(cs.default_collation)),
        (None, None) => Ok(None),
    }
}

impl Binder<'_> {
    /// The session's `collation_connection`: the collation of string literals.
    pub fn connection_collation(&self) -> Collation {
        self.env.vars.map_or_else(crate::value::default_text_collation, |(s, _)| s.collation_connection())
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
        if !matches!(upper, "CHARSET" | "COLLATION" | "COERCIBILITY" | "WEIGHT_STRING") {
            return None;
        }
        let [arg] = args else {
            return Some(Err(error::wrong_param_count(upper)));
        };
        if upper == "WEIGHT_STRING" {
            return Some(self.bind_expr(arg).map(weight_string));
        }
        Some(self.bind_expr(arg).map(|b| {
            let (collation, derivation) = match &b.ty {
                // MariaDB reports a UUID / INET value as latin1 text of NUMERIC coercibility.
                SqlType::Text { collation, .. } if collation.fixed_binary_kind().is_some() => {
                    (Collation::named("latin1_swedish_ci").expect("listed"), Derivation::Numeric)
                }
                SqlType::Text { collation, .. } => (*collation, b.derivation),
                _ => (Collation::binary(), b.derivation),
            };
            let value = match upper {
                "CHARSET" => Value::Bytes(collation.charset_name().as_bytes().to_vec()),
                "COLLATION" => Value::Bytes(collation.name().as_bytes().to_vec()),
                _ => Value::Int(derivation as i64),
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

/// WEIGHT_STRING(str): the string's weights under its collation, a VARBINARY as long as
/// MariaDB declares it; NULL for a number or date, as in MariaDB.
fn weight_string(b: Bound) -> Bound {
    let (collation, chars) = match &b.ty {
        SqlType::Text { collation, max_chars, .. } => (*collation, *max_chars as u64),
        SqlType::Bytes { max_len, .. } => (Collation::binary(), *max_len as u64),
        _ => return Bound::new(Expr::Literal(Value::Null), SqlType::Bytes { max_len: 0, lob: false }, true),
    };
    let max_len = collation.weight_string_max_len(chars).min(u32::MAX as u64) as u32;
    let args = vec![b.expr, Expr::Literal(Value::Int(collation.id() as i64))];
    Bound::new(Expr::Func { func: FuncRef(&WEIGHT_STRING), args }, SqlType::Bytes { max_len, lob: false }, true)
}

/// WEIGHT_STRING's evaluation: (string, collation id), bound by `weight_string` only.
static WEIGHT_STRING: ScalarFunction = ScalarFunction {
    name: "WEIGHT_STRING",
    min_args: 2,
    max_args: 2,
    deterministic: true,
    return_type: |_| SqlType::Bytes { max_len: 0, lob: false },
    eval: |args, _| {
        let (Value::Bytes(s), Value::Int(id)) = (&args[0], &args[1]) else { return Ok(Value::Null) };
        let weights = Collation::by_id(*id as u64).and_then(|c| c.weight_string(s));
        Ok(weights.map_or(Value::Null, Value::Bytes))
    },
};

fn derivation_name(d: Derivation) -> &'static str {
    match d {
        Derivation::Explicit => "EXPLICIT",
        Derivation::None => "NONE",
        Derivation::Implicit => "IMPLICIT",
        Derivation::SysConst => "SYSCONST",
        Derivation::Coercible => "COERCIBLE",
        Derivation::Numeric => "NUMERIC",
        Derivation::Ignorable => "IGNORABLE",
    }
}

fn illegal_mix(a: (Collation, Derivation), b: (Collation, Derivation), operation: &str) -> SqlError {
    SqlError::new(
        1267,
        "HY000",
        format!(
            "Illegal mix of collations ({},{}) and ({},{}) for operation '{operation}'",
            a.0.name(),
            derivation_name(a.1),
            b.0.name(),
            derivation_name(b.1)
        ),
    )
}

/// Character set `winner` can hold every character of `loser` (utf8mb4 ⊃ utf8mb3 ⊃ latin1 ⊃
/// ascii, as far as MariaDB converts implicitly).
fn holds(winner: Collation, loser: Collation) -> bool {
    let rank = |c: Collation| match c.charset_name() {
        "ascii" => 0,
        "latin1" => 1,
        "utf8mb3" => 2,
        _ => 3,
    };
    rank(winner) > rank(loser) && !(winner.charset_name() == "latin1" && loser.charset_name() != "ascii")
}

/// MariaDB's collation aggregation of two operands (`DTCollation::aggregate`): the lower
/// derivation wins; at equal derivation a `_bin` collation wins over another of its set and a
/// character set wins over one it holds; otherwise the mix is illegal.
pub fn aggregate_pair(a: (Collation, Derivation), b: (Collation, Derivation)) -> Result<(Collation, Derivation), ()> {
    let ((c1, d1), (c2, d2)) = (a, b);
    if c1 == c2 {
        return Ok((c1, d1.min(d2)));
    }
    if c1.is_binary() || c2.is_binary() {
        return Ok((Collation::binary(), d1.min(d2)));
    }
    if c1.charset_name() != c2.charset_name() {
        // A constant (a literal, a number, USER() or @@variable: SYSCONST and above) converts
        // to the other side's character set whatever it is (MariaDB's
        // MY_COLL_ALLOW_COERCIBLE_CONV: latin1_column = USER() compares in latin1).
        if d1 < d2 && (holds(c1, c2) || d2 >= Derivation::SysConst) {
            return Ok((c1, d1));
        }
        if d2 < d1 && (holds(c2, c1) || d1 >= Derivation::SysConst) {
            return Ok((c2, d2));
        }
        if d1 == d2 && holds(c1, c2) {
            return Ok((c1, d1));
        }
        if d1 == d2 && holds(c2, c1) {
            return Ok((c2, d2));
        }
        return Err(());
    }
    if d1 != d2 {
        return Ok(if d1 < d2 { (c1, d1) } else { (c2, d2) });
    }
    if d1 == Derivation::Explicit {
        return Err(());
    }
    let is_bin = |c: Collation| c.def().weighing == charset::Weighing::CodePoint;
    match (is_bin(c1), is_bin(c2)) {
        (true, _) => Ok((c1, Derivation::None)),
        (_, true) => Ok((c2, Derivation::None)),
        _ => Err(()),
    }
}

/// A comparison with a UUID / INET4 / INET6 operand compares as that type (MariaDB converts
/// the string operands to it, whatever their collation): its pseudo collation, whose sort keys
/// are the binary form. Two different such types are MariaDB's 4078.
fn fixed_binary_comparison(operands: &[&Bound], operation: &str) -> Result<Option<Collation>, SqlError> {
    let mut found: Option<FixedBinary> = None;
    for kind in operands.iter().filter_map(|b| b.ty.fixed_binary_kind()) {
        match found {
            Some(k) if k != kind => {
                return Err(SqlError::new(
                    4078,
                    "HY000",
                    format!(
                        "Illegal parameter data types {} and {} for operation '{operation}'",
                        k.name(),
                        kind.name()
                    ),
                ))
            }
            _ => found = Some(kind),
        }
    }
    Ok(found.map(Collation::fixed_binary))
}

/// The collation of a string operand (binary strings have `binary`); None for other types.
fn operand_collation(b: &Bound) -> Option<Collation> {
    match &b.ty {
        SqlType::Text { collation, .. } => Some(*collation),
        SqlType::Bytes { .. } => Some(Collation::binary()),
        // An ENUM compared as a string: in its column's collation (`Binder::enum_collation`).
        SqlType::Enum { .. } => Some(Collation::utf8mb4_general_ci()),
        _ => None,
    }
}

impl Binder<'_> {
    /// `operand_collation`, with an ENUM column's own collation ('meter' finds 'METER' under a
    /// _ci collation, not under _bin), read from the catalog.
    fn collation_of_operand(&self, b: &Bound) -> Option<Collation> {
        if let (SqlType::Enum { .. }, Some(meta)) = (&b.ty, &b.origin) {
            let column = self
                .env
                .catalog
                .table(&meta.schema, &meta.org_table)
                .and_then(|t| t.columns.iter().find(|c| c.name.eq_ignore_ascii_case(&meta.org_name)).cloned());
            if let Some(c) = column.and_then(|c| Collation::named(&c.collation)) {
                return Some(c);
            }
        }
        operand_collation(b)
    }
}

/// The collation values of type `ty` group and sort in when it weighs characters (None:
/// their bytes or values decide).
pub fn grouping_collation(ty: &SqlType) -> Option<Collation> {
    match ty {
        SqlType::Text { collation, .. } if collation.weighs_characters() => Some(*collation),
        _ => None,
    }
}

/// What ORDER BY / GROUP BY sort or group a value of type `ty` by: its sort key when its
/// collation weighs characters, else the value itself.
pub fn ordering_key(expr: Expr, ty: &SqlType) -> Expr {
    match ty {
        SqlType::Text { collation, .. } if collation.weighs_characters() => sort_key_of(expr, *collation),
        _ => expr,
    }
}

/// `expr`'s sort key under `c` (folded for a literal).
pub fn sort_key_of(expr: Expr, c: Collation) -> Expr {
    match expr {
        // Text that is no UUID / INET value stays unfolded: evaluating it gives NULL and 1292.
        Expr::Literal(Value::Bytes(b)) if c.fixed_binary_kind().is_some_and(|k| k.parse(&b).is_none()) => {
            Expr::SortKey { expr: Expr::Literal(Value::Bytes(b)).boxed(), collation: c }
        }
        Expr::Literal(Value::Bytes(b)) => {
            let mut key = Vec::with_capacity(b.len() * 2);
            c.sort_key(&b, &mut key);
            Expr::Literal(Value::Bytes(key))
        }
        e @ Expr::Literal(_) => e,
        e => Expr::SortKey { expr: e.boxed(), collation: c },
    }
}

impl Binder<'_> {
    /// The collation string operands of `operation` are compared in, when every operand is a
    /// string (or NULL) and that collation weighs characters; None when they compare as bytes
    /// or as numbers / dates. An illegal mix is MariaDB's 1267.
    pub(super) fn comparison_collation(
        &self,
        operands: &[&Bound],
        operation: &str,
    ) -> Result<Option<Collation>, SqlError> {
        super::fixed_binary_operands::check_operands_meet(operands, operation)?;
        if let Some(fixed) = fixed_binary_comparison(operands, operation)? {
            return Ok(Some(fixed));
        }
        let mut acc: Option<(Collation, Derivation)> = None;
        for b in operands {
            if matches!(b.ty, SqlType::Null) {
                continue;
            }
            let Some(c) = self.collation_of_operand(b) else {
                return Ok(None);
            };
            let item = (c, b.derivation);
            acc = Some(match acc {
                None => item,
                Some(prev) => aggregate_pair(prev, item).map_err(|()| illegal_mix(prev, item, operation))?,
            });
        }
        Ok(acc.map(|(c, _)| c).filter(|c| c.weighs_characters()))
    }

    /// The collation the string operands aggregate to (numbers and temporals convert into it),
    /// None when no operand is a string: what REGEXP and its family match under.
    pub(super) fn string_operands_collation(
        &self,
        operands: &[&Bound],
        operation: &str,
    ) -> Result<Option<Collation>, SqlError> {
        let mut acc: Option<(Collation, Derivation)> = None;
        for item in operands.iter().filter_map(|b| self.collation_of_operand(b).map(|c| (c, b.derivation))) {
            acc = Some(match acc {
                None => item,
                Some(prev) => aggregate_pair(prev, item).map_err(|()| illegal_mix(prev, item, operation))?,
            });
        }
        Ok(acc.map(|(c, _)| c))
    }

    /// The operands of a comparison under `operation`, as sort keys when their collation
    /// weighs characters.
    pub(super) fn collated_operands(&self, operands: Vec<Bound>, operation: &str) -> Result<Vec<Expr>, SqlError> {
        let refs: Vec<&Bound> = operands.iter().collect();
        let collation = self.comparison_collation(&refs, operation)?;
        Ok(operands
            .into_iter()
            .map(|b| match collation {
                Some(c) => sort_key_of(b.expr, c),
                None => b.expr,
            })
            .collect())
    }
}
