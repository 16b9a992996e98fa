//! Control-flow functions: IF, IFNULL, NULLIF, COALESCE, ISNULL. Their result type is the
//! unification of the branches (CASE is the binder's).

use std::cmp::Ordering;

use super::signature::{ScalarFunction, VARIADIC};
use crate::error::SqlError;
use crate::types::Value;
use crate::value::compare::{compare, truthy};
use crate::value::context::FnContext;
use crate::value::kinds::SqlType;

pub static FUNCTIONS: &[ScalarFunction] = &[
    func!("IF", 3, 3, true, rt_if, if_),
    func!("IFNULL", 2, 2, true, rt_unify_all, ifnull),
    func!("NVL", 2, 2, true, rt_unify_all, ifnull),
    func!("NULLIF", 2, 2, true, rt_first, nullif),
    func!("COALESCE", 1, VARIADIC, true, rt_unify_all, coalesce),
    func!("ISNULL", 1, 1, true, rt_isnull, isnull),
];

fn rt_if(args: &[SqlType]) -> SqlType {
    SqlType::unify(&args[1], &args[2])
}
fn rt_unify_all(args: &[SqlType]) -> SqlType {
    args.iter().skip(1).fold(args[0].clone(), |a, b| SqlType::unify(&a, b))
}
fn rt_first(args: &[SqlType]) -> SqlType {
    args[0].clone()
}
fn rt_isnull(_: &[SqlType]) -> SqlType {
    SqlType::Int { bits: 32, unsigned: false }
}

fn if_(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(if truthy(&args[0]) == Some(true) { args[1].clone() } else { args[2].clone() })
}

fn ifnull(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(if args[0].is_null() { args[1].clone() } else { args[0].clone() })
}

fn nullif(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(if compare(&args[0], &args[1]) == Some(Ordering::Equal) { Value::Null } else { args[0].clone() })
}

fn coalesce(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(args.iter().find(|a| !a.is_null()).cloned().unwrap_or(Value::Null))
}

fn isnull(args: &[Value], _: &dyn FnContext) -> Result<Value, SqlError> {
    Ok(Value::Int(args[0].is_null() as i64))
}
