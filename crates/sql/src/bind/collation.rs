//! What gives a string expression its character set and collation: introducers
//! (`_binary'..'`, `_latin1'..'`), `COLLATE`, the connection's collation for literals, and
//! MariaDB's derivation (coercibility) rules; CHARSET(), COLLATION() and COERCIBILITY(),
//! which report them and are constants of the bound argument.
//!
//! Derivations (MariaDB 10.11, checked with COERCIBILITY()): `COLLATE` 0, a column, user
//! variable or CAST 2, @@variables and USER()/DATABASE()/VERSION() 3, a string literal 4,
//! a number or temporal value 5, NULL 6. A string function's result (CONCAT, LPAD, IF, CASE,
//! GROUP_CONCAT ...) takes the collation and derivation its arguments aggregate to
//! (`aggregate`, MariaDB's DTCollation::aggregate), so that comparisons, LIKE, ORDER BY and
//! GROUP BY on it use that collation; numbers alone give the connection's (CONCAT(1) is 4).

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
            // MariaDB describes CHARSET() and COLLATION() as nullable, COERCIBILITY() not.
            let nullable = matches!(value, Value::Bytes(_));
            Bound::new(Expr::Literal(value), ty, nullable)
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

/// An operand's collation as MariaDB's DTCollation holds it: with its derivation and whether
/// its characters are all ASCII (MY_REPERTOIRE_ASCII: any character set can take them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DtCollation {
    pub collation: Collation,
    pub derivation: Derivation,
    pub ascii: bool,
}

impl DtCollation {
    fn pair(self) -> (Collation, Derivation) {
        (self.collation, self.derivation)
    }

    /// What a number or temporal value brings to an aggregation (MariaDB's
    /// DTCollation_numeric: latin1, NUMERIC, ASCII): it gives way to any string.
    fn numeric() -> DtCollation {
        DtCollation {
            collation: Collation::named("latin1_swedish_ci").expect("listed"),
            derivation: Derivation::Numeric,
            ascii: true,
        }
    }
}

fn is_unicode(c: Collation) -> bool {
    matches!(c.charset_name(), "utf8mb3" | "utf8mb4")
}

/// MariaDB's MY_CS_BINSORT: `binary` and the `_bin` collations.
fn is_binsort(c: Collation) -> bool {
    matches!(c.def().weighing, charset::Weighing::CodePoint | charset::Weighing::Binary)
}

/// MariaDB's `left_is_superset`: `left`'s character set takes `right`'s characters and its
/// derivation lets it (a Unicode set over another, utf8mb4 over utf8mb3; anything over ASCII).
fn left_is_superset(left: DtCollation, right: DtCollation) -> bool {
    let (l, r) = (left.collation, right.collation);
    let unicode_wins = is_unicode(l)
        && (left.derivation < right.derivation
            || (left.derivation == right.derivation
                && (!is_unicode(r) || (l.charset_name() == "utf8mb4" && r.charset_name() == "utf8mb3"))));
    let ascii_taken =
        right.ascii && (left.derivation < right.derivation || (left.derivation == right.derivation && !left.ascii));
    unicode_wins || ascii_taken
}

/// MariaDB's collation aggregation of two operands (`DTCollation::aggregate` with superset
/// and coercible conversions allowed): the lower derivation wins; between character sets the
/// one that holds the other's characters, or a column's over a constant's (SYSCONST and
/// above); in one set at equal derivation a `_bin` collation wins, and two other collations
/// give the set's `_bin` of derivation NONE, which a comparison refuses. Err: an illegal mix,
/// with `binary` of derivation NONE when two character sets met (a later `COLLATE` may still
/// settle it, as in MariaDB), None when two `COLLATE`s did.
pub fn aggregate(a: DtCollation, b: DtCollation) -> Result<DtCollation, Option<DtCollation>> {
    let ascii = a.ascii && b.ascii;
    let win = |w: DtCollation| Ok(DtCollation { ascii, ..w });
    if a.collation.charset_name() != b.collation.charset_name() {
        // A binary string wins over text of its derivation or a higher one.
        if a.collation.is_binary() {
            return win(if a.derivation <= b.derivation { a } else { b });
        }
        if b.collation.is_binary() {
            return win(if b.derivation <= a.derivation { b } else { a });
        }
        if left_is_superset(a, b) {
            return win(a);
        }
        if left_is_superset(b, a) {
            return win(b);
        }
        // MY_COLL_ALLOW_COERCIBLE_CONV: latin1_column = USER() compares in latin1.
        if a.derivation < b.derivation && b.derivation >= Derivation::SysConst {
            return win(a);
        }
        if b.derivation < a.derivation && a.derivation >= Derivation::SysConst {
            return win(b);
        }
        return Err(Some(DtCollation { collation: Collation::binary(), derivation: Derivation::None, ascii }));
    }
    if a.derivation != b.derivation {
        return win(if a.derivation < b.derivation { a } else { b });
    }
    if a.collation == b.collation {
        return win(a);
    }
    if a.derivation == Derivation::Explicit {
        return Err(None);
    }
    match (is_binsort(a.collation), is_binsort(b.collation)) {
        (true, false) => win(a),
        (false, true) => win(b),
        _ => {
            let bin = Collation::named(&format!("{}_bin", a.collation.charset_name())).unwrap_or(a.collation);
            Ok(DtCollation { collation: bin, derivation: Derivation::None, ascii })
        }
    }
}

/// MariaDB's 1267 / 1270 / 1271 for operands whose collations do not aggregate: it names
/// the operands themselves (not the aggregate so far) when there are two or three.
fn cant_aggregate(items: &[DtCollation], operation: &str) -> SqlError {
    let named = |d: &DtCollation| format!("({},{})", d.collation.name(), derivation_name(d.derivation));
    match items {
        [a, b] => illegal_mix(a.pair(), b.pair(), operation),
        [a, b, c] => SqlError::new(
            1270,
            "HY000",
            format!("Illegal mix of collations {}, {}, {} for operation '{operation}'", named(a), named(b), named(c)),
        ),
        _ => SqlError::new(1271, "HY000", format!("Illegal mix of collations for operation '{operation}'")),
    }
}

/// Aggregates `items` in order, as MariaDB's `agg_item_collations`; `disallow_none` (a
/// comparison's MY_COLL_DISALLOW_NONE) refuses a result of derivation NONE.
fn aggregate_all(items: &[DtCollation], operation: &str, disallow_none: bool) -> Result<Option<DtCollation>, SqlError> {
    let Some((first, rest)) = items.split_first() else { return Ok(None) };
    let mut acc = *first;
    let mut unknown = false;
    for item in rest {
        acc = match aggregate(acc, *item) {
            Ok(next) => next,
            Err(Some(unsettled)) => {
                unknown = true;
                unsettled
            }
            Err(None) => return Err(cant_aggregate(items, operation)),
        };
    }
    if (unknown && acc.derivation != Derivation::Explicit) || (disallow_none && acc.derivation == Derivation::None) {
        return Err(cant_aggregate(items, operation));
    }
    Ok(Some(acc))
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
        let mut items = Vec::with_capacity(operands.len());
        for b in operands {
            if matches!(b.ty, SqlType::Null) {
                continue;
            }
            if self.collation_of_operand(b).is_none() {
                return Ok(None);
            }
            items.push(self.dt_collation_of(b));
        }
        let acc = aggregate_all(&items, operation, true)?;
        Ok(acc.map(|d| d.collation).filter(|c| c.weighs_characters()))
    }

    /// The collation the string operands aggregate to (numbers and temporals convert into it),
    /// None when no operand is a string: what REGEXP and its family match under.
    pub(super) fn string_operands_collation(
        &self,
        operands: &[&Bound],
        operation: &str,
    ) -> Result<Option<Collation>, SqlError> {
        let items: Vec<DtCollation> = operands
            .iter()
            .filter(|b| self.collation_of_operand(b).is_some())
            .map(|b| self.dt_collation_of(b))
            .collect();
        Ok(aggregate_all(&items, operation, true)?.map(|d| d.collation))
    }

    /// What `b` brings to a collation aggregation: its collation and derivation, numbers,
    /// temporals and UUID / INET values as MariaDB's numeric collation, NULL as IGNORABLE
    /// binary.
    pub(super) fn dt_collation_of(&self, b: &Bound) -> DtCollation {
        if matches!(b.ty, SqlType::Null) {
            return DtCollation { collation: Collation::binary(), derivation: Derivation::Ignorable, ascii: true };
        }
        if b.ty.fixed_binary_kind().is_some() {
            return DtCollation::numeric();
        }
        let Some(collation) = self.collation_of_operand(b) else { return DtCollation::numeric() };
        let ascii = collation.charset_name() == "ascii"
            || matches!(&b.expr, Expr::Literal(Value::Bytes(bytes)) if bytes.is_ascii());
        // An ENUM / SET is a string of its column's collation here (IMPLICIT as a column is),
        // not the NUMERIC its non-text type would give: `enum_bin = 'meter'` compares under
        // utf8mb4_bin, not under the literal's utf8mb4_general_ci.
        let derivation = match b.ty {
            SqlType::Enum { .. } => b.expr.derivation(&SqlType::text(0, false)),
            _ => b.derivation,
        };
        DtCollation { collation, derivation, ascii }
    }

    /// The collation and derivation of a string function's result from its string operands
    /// (MariaDB's `agg_arg_charsets_for_string_result`): numbers and temporals alone give the
    /// connection's collation as a literal's, NULLs alone IGNORABLE binary. An illegal mix is
    /// 1267 / 1270 / 1271 naming `operation`.
    pub(super) fn string_result_collation(
        &self,
        operands: &[&Bound],
        operation: &str,
    ) -> Result<DtCollation, SqlError> {
        let items: Vec<DtCollation> = operands.iter().map(|b| self.dt_collation_of(b)).collect();
        self.result_collation_of(&items, operation)
    }

    /// `string_result_collation` of operands already read with `dt_collation_of`.
    pub(super) fn result_collation_of(&self, items: &[DtCollation], operation: &str) -> Result<DtCollation, SqlError> {
        let acc = aggregate_all(items, operation, false)?;
        Ok(match acc {
            Some(d) if d.derivation == Derivation::Numeric => {
                DtCollation { collation: self.connection_collation(), derivation: Derivation::Coercible, ascii: true }
            }
            Some(d) => d,
            None => {
                DtCollation { collation: self.connection_collation(), derivation: Derivation::Coercible, ascii: true }
            }
        })
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

/// Which arguments of string function `name` (called with `args` arguments) decide its
/// result's collation, as MariaDB's `fix_length_and_dec` of each aggregates them; None for
/// other functions.
fn result_collation_operands(name: &str, args: usize) -> Option<Vec<usize>> {
    let upper = name.to_ascii_uppercase();
    Some(match upper.as_str() {
        "CONCAT" | "CONCAT_WS" | "REPLACE" | "SUBSTRING_INDEX" => (0..args).collect(),
        // TRIM(remstr FROM str) aggregates remstr first (MariaDB's item_sep of -1).
        "TRIM_BOTH" | "TRIM_LEADING" | "TRIM_TRAILING" => vec![1, 0],
        "ELT" | "MAKE_SET" | "EXPORT_SET" => (1..args).collect(),
        "GREATEST" | "LEAST" => (0..args).collect(),
        "QUOTE" | "SOUNDEX" => vec![0],
        "LPAD" | "RPAD" => vec![0, 2],
        "INSERT" => vec![0, 3],
        "UPPER" | "UCASE" | "LOWER" | "LCASE" | "SUBSTRING" | "SUBSTR" | "MID" | "LEFT" | "RIGHT" | "TRIM"
        | "LTRIM" | "RTRIM" | "REVERSE" | "REPEAT" => vec![0],
        _ => return None,
    })
}

/// The name MariaDB's messages give function `name` (its `func_name()`).
fn operation_name(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "trim_both" | "trim_leading" | "trim_trailing" => "trim".to_string(),
        _ => lower,
    }
}

/// `ty`, a string type, in collation `dt`: binary bytes when it is `binary`.
pub fn in_result_collation(ty: SqlType, dt: DtCollation) -> SqlType {
    let (chars, lob) = match &ty {
        SqlType::Text { max_chars, lob, .. } => (*max_chars, *lob),
        // A binary type counts bytes, declared as characters times utf8mb4's 4 (`string_type`).
        SqlType::Bytes { max_len, lob } => (max_len / (crate::value::MAX_BYTES_PER_CHAR as u32), *lob),
        _ => return ty,
    };
    if dt.collation.is_binary() {
        match ty {
            SqlType::Bytes { .. } => ty,
            _ => SqlType::Bytes { max_len: chars.saturating_mul(crate::value::MAX_BYTES_PER_CHAR as u32), lob },
        }
    } else {
        SqlType::Text { max_chars: chars, lob, collation: dt.collation }
    }
}

impl Binder<'_> {
    /// The collation and derivation of `name(args)`'s string result when MariaDB aggregates
    /// them from its arguments (None for other functions, whose text is the connection's).
    pub(super) fn function_result_collation(
        &self,
        name: &str,
        args: &[Bound],
    ) -> Result<Option<DtCollation>, SqlError> {
        let Some(indexes) = result_collation_operands(name, args.len()) else { return Ok(None) };
        let operands: Vec<&Bound> = indexes.iter().filter_map(|&i| args.get(i)).collect();
        self.string_result_collation(&operands, &operation_name(name)).map(Some)
    }
}

/// The collation of a set operation's column whose branches have types `a` and `b` (MariaDB
/// aggregates them; a branch's column counts as IMPLICIT here, its derivation not being kept
/// in the plan): `ty`, their unified type, in it. Unchanged when they do not aggregate.
pub fn in_set_operation_collation(ty: SqlType, a: &SqlType, b: &SqlType) -> SqlType {
    let of = |t: &SqlType| match t {
        SqlType::Text { collation, .. } if collation.fixed_binary_kind().is_none() => Some(*collation),
        SqlType::Bytes { .. } => Some(Collation::binary()),
        _ => None,
    };
    let (Some(ca), Some(cb)) = (of(a), of(b)) else { return ty };
    let item = |c: Collation| DtCollation {
        collation: c,
        derivation: Derivation::Implicit,
        ascii: c.charset_name() == "ascii",
    };
    match aggregate(item(ca), item(cb)) {
        Ok(d) if d.derivation != Derivation::None && matches!(ty, SqlType::Text { .. } | SqlType::Bytes { .. }) => {
            in_result_collation(ty, d)
        }
        _ => ty,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(name: &str, derivation: Derivation, ascii: bool) -> DtCollation {
        DtCollation { collation: Collation::named(name).expect("listed"), derivation, ascii }
    }

    /// Each case measured on MariaDB 10.11 with COLLATION() / COERCIBILITY() of a CONCAT.
    #[test]
    fn aggregates_as_mariadb() {
        use Derivation::*;
        let agg = |a, b| aggregate(a, b).map(|d| (d.collation.name(), d.derivation));
        // CONCAT(latin1_column, 'x'): the column wins over a literal it cannot hold.
        assert_eq!(
            agg(dt("latin1_swedish_ci", Implicit, false), dt("utf8mb4_general_ci", Coercible, true)),
            Ok(("latin1_swedish_ci", Implicit))
        );
        // CONCAT(latin1_bin_column, utf8mb4_bin_column): Unicode holds latin1.
        assert_eq!(
            agg(dt("latin1_bin", Implicit, false), dt("utf8mb4_bin", Implicit, false)),
            Ok(("utf8mb4_bin", Implicit))
        );
        // CONCAT(utf8mb4_bin_column, utf8mb4_general_ci_column): _bin wins, still IMPLICIT.
        assert_eq!(
            agg(dt("utf8mb4_bin", Implicit, false), dt("utf8mb4_general_ci", Implicit, false)),
            Ok(("utf8mb4_bin", Implicit))
        );
        // Two _ci columns: the set's _bin of derivation NONE.
        assert_eq!(
            agg(dt("utf8mb4_unicode_ci", Implicit, false), dt("utf8mb4_general_ci", Implicit, false)),
            Ok(("utf8mb4_bin", None))
        );
        // CONCAT(_latin1'é', 'y'): an ASCII literal gives way.
        assert_eq!(
            agg(dt("latin1_swedish_ci", Coercible, false), dt("utf8mb4_general_ci", Coercible, true)),
            Ok(("latin1_swedish_ci", Coercible))
        );
        // CONCAT(_binary'x', utf8mb4_column): binary wins only at its derivation or lower.
        assert_eq!(
            agg(dt("binary", Coercible, true), dt("utf8mb4_general_ci", Implicit, false)),
            Ok(("utf8mb4_general_ci", Implicit))
        );
        assert!(aggregate(dt("latin1_bin", Explicit, false), dt("utf8mb4_general_ci", Implicit, false)).is_err());
        assert_eq!(
            aggregate(dt("utf8mb4_bin", Explicit, false), dt("utf8mb4_unicode_ci", Explicit, false)),
            Err(Option::None)
        );
    }
}
