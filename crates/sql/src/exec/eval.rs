//! Evaluation of bound expressions: a tree walk over one row (`&[Value]`) with the
//! statement's `ExecCtx` (parameters, user variables, the transaction for subqueries). Boolean
//! results are `Int(1)` / `Int(0)` / `Null`, as in MySQL.
//!
//! `Expr::eval` is an inherent method defined here, beside the executor, rather than with the
//! type in `plan`: plans are data, evaluation needs the statement's context. A subquery inside
//! an expression is run by `Subquery::eval` (`subquery`), which opens the subquery's plan: the
//! recursion of expressions and plans is in the data, not in the imports.

use std::cmp::Ordering;

use super::ctx::ExecCtx;
use crate::error::{self, SqlError};
use crate::plan::{BitOp, CmpOp, Expr};
use crate::types::Value;
use crate::value::{self, FnContext, LikePattern};

pub fn bool_value(b: bool) -> Value {
    Value::Int(b as i64)
}

fn opt_bool(b: Option<bool>) -> Value {
    match b {
        Some(b) => bool_value(b),
        None => Value::Null,
    }
}

impl Expr {
    pub fn eval(&self, row: &[Value], cx: &mut ExecCtx) -> Result<Value, SqlError> {
        match self {
            Expr::Literal(v) => Ok(v.clone()),
            Expr::Column(i) => {
                debug_assert!(*i < row.len(), "column {i} outside a row of {}", row.len());
                Ok(row.get(*i).cloned().unwrap_or(Value::Null))
            }
            Expr::Outer { up, index } => cx.outer_value(*up, *index),
            Expr::Param(i) => cx.param(*i),
            Expr::UserVar(name) => Ok(cx.user_var(name)),
            Expr::SetUserVar { name, expr, assigned } => {
                let v = expr.eval(row, cx)?;
                cx.set_user_var(name, v.clone(), *assigned);
                Ok(v)
            }
            Expr::SysVar { name, scope } => cx.system_variable(name, *scope),
            Expr::Not(e) => {
                let v = e.eval(row, cx)?;
                Ok(opt_bool(value::truthy(&v).map(|b| !b)))
            }
            Expr::Neg(e) => {
                let v = e.eval(row, cx)?;
                match value::negate(&v) {
                    // Only a constant's overflow becomes a DECIMAL; the walk runs on this path only.
                    Err(_) if e.is_row_independent() => value::negate_constant(&v),
                    other => other,
                }
            }
            Expr::BitNot(e) => {
                let v = e.eval(row, cx)?;
                Ok(value::bit_operand(&v, &*cx).map_or(Value::Null, |u| Value::UInt(!u)))
            }
            Expr::And(a, b) => {
                let l = value::truthy(&a.eval(row, cx)?);
                if l == Some(false) {
                    return Ok(bool_value(false));
                }
                let r = value::truthy(&b.eval(row, cx)?);
                Ok(match (l, r) {
                    (_, Some(false)) => bool_value(false),
                    (Some(true), Some(true)) => bool_value(true),
                    _ => Value::Null,
                })
            }
            Expr::Or(a, b) => {
                let l = value::truthy(&a.eval(row, cx)?);
                if l == Some(true) {
                    return Ok(bool_value(true));
                }
                let r = value::truthy(&b.eval(row, cx)?);
                Ok(match (l, r) {
                    (_, Some(true)) => bool_value(true),
                    (Some(false), Some(false)) => bool_value(false),
                    _ => Value::Null,
                })
            }
            Expr::Xor(a, b) => {
                let l = value::truthy(&a.eval(row, cx)?);
                let r = value::truthy(&b.eval(row, cx)?);
                Ok(match (l, r) {
                    (Some(x), Some(y)) => bool_value(x != y),
                    _ => Value::Null,
                })
            }
            Expr::Cmp { op, left, right } => {
                let l = left.eval(row, cx)?;
                let r = right.eval(row, cx)?;
                value::warn_string_against_number(&l, &r, &*cx);
                Ok(compare_values(*op, &l, &r))
            }
            Expr::Arith { op, left, right } => {
                let l = left.eval(row, cx)?;
                let r = right.eval(row, cx)?;
                value::arith(*op, &l, &r, &*cx)
            }
            Expr::Bit { op, left, right } => {
                let l = left.eval(row, cx)?;
                let r = right.eval(row, cx)?;
                let count = matches!(op, BitOp::Shl | BitOp::Shr);
                let a = value::bit_operand(&l, &*cx);
                let b = if count { value::shift_count(&r, &*cx) } else { value::bit_operand(&r, &*cx) };
                let (Some(a), Some(b)) = (a, b) else {
                    return Ok(Value::Null);
                };
                Ok(Value::UInt(match op {
                    BitOp::And => a & b,
                    BitOp::Or => a | b,
                    BitOp::Xor => a ^ b,
                    BitOp::Shl => a.checked_shl(b.min(64) as u32).unwrap_or(0),
                    BitOp::Shr => a.checked_shr(b.min(64) as u32).unwrap_or(0),
                }))
            }
            Expr::IsNull { expr, negated } => {
                let v = expr.eval(row, cx)?;
                Ok(bool_value(v.is_null() != *negated))
            }
            Expr::IsBool { expr, value: want, negated } => {
                let v = expr.eval(row, cx)?;
                let is = value::truthy(&v) == Some(*want);
                Ok(bool_value(is != *negated))
            }
            Expr::InList { expr, list, negated } => {
                let v = expr.eval(row, cx)?;
                if v.is_null() {
                    return Ok(Value::Null);
                }
                let mut saw_null = false;
                for (i, item) in list.iter().enumerate() {
                    let x = item.eval(row, cx)?;
                    if i == 0 {
                        // MariaDB converts the tested value once (1292 once a row, not an item).
                        value::warn_string_against_number(&v, &x, &*cx);
                    }
                    match value::compare(&v, &x) {
                        Some(Ordering::Equal) => return Ok(bool_value(!*negated)),
                        None => saw_null = true,
                        Some(_) => {}
                    }
                }
                Ok(if saw_null { Value::Null } else { bool_value(*negated) })
            }
            Expr::Between { expr, low, high, negated } => {
                let v = expr.eval(row, cx)?;
                let lo = low.eval(row, cx)?;
                let hi = high.eval(row, cx)?;
                let ge = value::compare(&v, &lo).map(|o| o != Ordering::Less);
                let le = value::compare(&v, &hi).map(|o| o != Ordering::Greater);
                let within = match (ge, le) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                };
                Ok(opt_bool(within.map(|w| w != *negated)))
            }
            Expr::Like { expr, pattern, escape, negated, compiled, collation } => {
                let v = expr.eval(row, cx)?;
                let Some(text) = value::to_text_bytes(&v) else {
                    return Ok(Value::Null);
                };
                let matched = match compiled {
                    Some(p) => p.0.matches(&text),
                    None => {
                        let p = pattern.eval(row, cx)?;
                        let Some(p) = value::to_text_bytes(&p) else {
                            return Ok(Value::Null);
                        };
                        match collation {
                            Some(c) => LikePattern::compile_collated(&p, *escape, *c).matches(&text),
                            None => LikePattern::compile(&p, *escape).matches(&text),
                        }
                    }
                };
                Ok(bool_value(matched != *negated))
            }
            Expr::Case { operand, whens, otherwise } => {
                match operand {
                    Some(op) => {
                        let v = op.eval(row, cx)?;
                        for (when, then) in whens {
                            let w = when.eval(row, cx)?;
                            if value::compare(&v, &w) == Some(Ordering::Equal) {
                                return then.eval(row, cx);
                            }
                        }
                    }
                    None => {
                        for (when, then) in whens {
                            let w = when.eval(row, cx)?;
                            if value::truthy(&w) == Some(true) {
                                return then.eval(row, cx);
                            }
                        }
                    }
                }
                match otherwise {
                    Some(e) => e.eval(row, cx),
                    None => Ok(Value::Null),
                }
            }
            Expr::SortKey { expr, collation } => Ok(match expr.eval(row, cx)? {
                Value::Bytes(b) => {
                    let mut key = Vec::with_capacity(b.len() + b.len() / 2);
                    collation.sort_key(&b, &mut key);
                    // A string compared with a UUID / INET value converts to that type; text
                    // that is no such value is NULL with 1292, as MariaDB (its sort key starts
                    // with 1: FixedBinary::sort_key).
                    if key.first() == Some(&1) {
                        if let Some(kind) = collation.fixed_binary_kind() {
                            let shown = String::from_utf8_lossy(&b);
                            cx.warn(1292, format!("Incorrect {} value: '{shown}'", kind.name()));
                            return Ok(Value::Null);
                        }
                    }
                    Value::Bytes(key)
                }
                other => other,
            }),
            Expr::Cast { expr, target } => {
                let v = expr.eval(row, cx)?;
                value::cast(&v, *target, &*cx)
            }
            Expr::Func { func, args } => {
                let mut vals: smallvec::SmallVec<[Value; 4]> = smallvec::SmallVec::with_capacity(args.len());
                for a in args {
                    vals.push(a.eval(row, cx)?);
                }
                (func.0.eval)(&vals, &*cx)
            }
            Expr::DateAdd { base, amount, unit, negate } => {
                let b = base.eval(row, cx)?;
                let a = amount.eval(row, cx)?;
                value::date_add(&b, &a, *unit, *negate, &*cx)
            }
            Expr::LastInsertId(arg) => match arg {
                None => Ok(Value::UInt(cx.last_insert_id())),
                Some(e) => {
                    let v = e.eval(row, cx)?;
                    if let Some(id) = value::to_u64(&v) {
                        cx.set_last_insert_id(id);
                    }
                    Ok(match v {
                        Value::Null => Value::Null,
                        other => Value::UInt(value::to_u64(&other).unwrap_or(0)),
                    })
                }
            },
            Expr::Subquery(sq) => sq.eval(row, cx),
            Expr::AggRef(_) => Err(error::invalid_group_function()),
            Expr::WindowRef(_) => Err(error::internal("window function evaluated outside its window")),
        }
    }
}

/// `l op r` as an SQL boolean value.
pub fn compare_values(op: CmpOp, l: &Value, r: &Value) -> Value {
    if op == CmpOp::NullSafeEq {
        return bool_value(match (l.is_null(), r.is_null()) {
            (true, true) => true,
            (false, false) => value::compare(l, r) == Some(Ordering::Equal),
            _ => false,
        });
    }
    match value::compare(l, r) {
        Some(ord) => bool_value(op.holds(ord)),
        None => Value::Null,
    }
}

/// Evaluates a predicate: only TRUE passes (NULL and FALSE reject the row).
pub fn eval_predicate(e: &Expr, row: &[Value], cx: &mut ExecCtx) -> Result<bool, SqlError> {
    // The most common predicate shapes are answered without building an intermediate Value.
    if let Expr::Cmp { op, left, right } = e {
        if let (Expr::Column(i), Expr::Literal(v)) = (&**left, &**right) {
            if let Some(c) = row.get(*i) {
                value::warn_string_against_number(c, v, &*cx);
                return Ok(value::truthy(&compare_values(*op, c, v)) == Some(true));
            }
        }
    }
    let v = e.eval(row, cx)?;
    Ok(value::truthy(&v) == Some(true))
}
