//! UUID, INET4 and INET6 values where a number or a date is expected. MariaDB's type
//! handlers for these types refuse to meet numbers and temporals: comparing a UUID with an
//! integer, adding to an INET4, SUM() of a UUID, COALESCE(uuid_col, 1) are errors 4078 / 4079
//! there, in every sql_mode, rather than a comparison of the text read as a number (which
//! would be 0 for most values: `u = 0` finding every row is a wrong answer without an error).
//! Strings meet them by conversion (`u = '...'`), so only numeric and temporal operands are
//! refused here.

use super::binder::Bound;
use crate::plan::Expr;
use crate::types::Value;
use crate::value::SqlType;
use crate::SqlError;

/// MariaDB's name of the type of a numeric or temporal operand (its type handler's name, as
/// 4078 spells it); None for strings, NULL and the fixed-binary types themselves.
fn numeric_or_temporal_name(b: &Bound) -> Option<String> {
    let name = match &b.ty {
        SqlType::Int { bits, unsigned } => {
            // A literal is typed by its value: 1 is an `int`, 10000000000 a `bigint`.
            let bits = match &b.expr {
                Expr::Literal(Value::Int(v)) if i32::try_from(*v).is_ok() => 32,
                Expr::Literal(Value::UInt(v)) if u32::try_from(*v).is_ok() => 32,
                _ => *bits,
            };
            let base = match bits {
                8 => "tinyint",
                16 => "smallint",
                24 => "mediumint",
                32 => "int",
                _ => "bigint",
            };
            return Some(if *unsigned { format!("{base} unsigned") } else { base.to_string() });
        }
        SqlType::Decimal { .. } => "decimal",
        SqlType::Float => "float",
        SqlType::Double => "double",
        SqlType::Date => "date",
        SqlType::DateTime { .. } => "datetime",
        SqlType::Timestamp { .. } => "timestamp",
        SqlType::Time { .. } => "time",
        SqlType::Bit { .. } => "bit",
        _ => return None,
    };
    Some(name.to_string())
}

/// The type name of any operand, for a 4078 that names a fixed-binary type and another.
fn type_name(b: &Bound) -> String {
    if let Some(kind) = b.ty.fixed_binary_kind() {
        return kind.name().to_string();
    }
    if let Some(name) = numeric_or_temporal_name(b) {
        return name;
    }
    match &b.ty {
        SqlType::Text { lob: true, .. } => "longtext",
        SqlType::Bytes { lob: true, .. } => "longblob",
        SqlType::Bytes { .. } => "varbinary",
        SqlType::Null => "null",
        _ => "varchar",
    }
    .to_string()
}

fn illegal_pair(a: &Bound, b: &Bound, operation: &str) -> SqlError {
    SqlError::new(
        4078,
        "HY000",
        format!("Illegal parameter data types {} and {} for operation '{operation}'", type_name(a), type_name(b)),
    )
}

/// 4078 when a UUID / INET value meets a number or a date in a comparison or a type
/// aggregation (`=`, IN, BETWEEN, CASE, COALESCE, IF, GREATEST, ...). MariaDB checks the first
/// operand against each of the others, in order, and names the first pair that cannot meet.
pub(super) fn check_operands_meet(operands: &[&Bound], operation: &str) -> Result<(), SqlError> {
    let Some((first, rest)) = operands.split_first() else {
        return Ok(());
    };
    for other in rest {
        let cannot_meet =
            |x: &Bound, y: &Bound| x.ty.fixed_binary_kind().is_some() && numeric_or_temporal_name(y).is_some();
        if cannot_meet(first, other) || cannot_meet(other, first) {
            return Err(illegal_pair(first, other, operation));
        }
    }
    Ok(())
}

/// 4078 for arithmetic (`+ - * / MOD`) with a UUID / INET operand: there is no arithmetic
/// on them at all, whatever the other operand is.
pub(super) fn check_arithmetic(left: &Bound, right: &Bound, operation: &str) -> Result<(), SqlError> {
    if left.ty.fixed_binary_kind().is_some() || right.ty.fixed_binary_kind().is_some() {
        return Err(illegal_pair(left, right, operation));
    }
    Ok(())
}

/// 4079 for a UUID / INET operand of an operation that reads a number: unary minus, `~`, the
/// bit operators, numeric functions (ABS, ROUND, ...) and aggregates (SUM, AVG, BIT_OR, ...).
pub(super) fn check_number_operand(operand: &Bound, operation: &str) -> Result<(), SqlError> {
    match operand.ty.fixed_binary_kind() {
        Some(kind) => Err(SqlError::new(
            4079,
            "HY000",
            format!("Illegal parameter data type {} for operation '{operation}'", kind.name()),
        )),
        None => Ok(()),
    }
}
