//! Bound expressions and their evaluation.
//!
//! The binder turns sqlparser's AST into `Expr`: names are resolved to row positions, functions
//! to `value::ScalarFunction`s, constants folded into `Literal`s. Evaluation is a tree walk over
//! one row (`&[Value]`) with the statement's `ExecCtx` (parameters, user variables, transaction
//! for subqueries). Boolean results are `Int(1)` / `Int(0)` / `Null`, as in MySQL.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::error;
use crate::error::SqlError;
use crate::exec::ctx::ExecCtx;
use crate::plan::QueryPlan;
use crate::types::Value;
use crate::value::{self, ArithOp, CastTarget, FnContext, IntervalUnit, LikePattern, ScalarFunction};
use crate::variables::VarScope;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `<=>`: NULL-safe equality (never NULL).
    NullSafeEq,
}

impl CmpOp {
    fn holds(self, ord: Ordering) -> bool {
        match self {
            CmpOp::Eq | CmpOp::NullSafeEq => ord == Ordering::Equal,
            CmpOp::Ne => ord != Ordering::Equal,
            CmpOp::Lt => ord == Ordering::Less,
            CmpOp::Le => ord != Ordering::Greater,
            CmpOp::Gt => ord == Ordering::Greater,
            CmpOp::Ge => ord != Ordering::Less,
        }
    }

    /// The operator with its operands swapped (`a < b` ⇔ `b > a`).
    pub fn flip(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            other => other,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitOp {
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

/// A scalar function reference, compared by identity (the registry entries are statics).
#[derive(Clone, Copy)]
pub struct FuncRef(pub &'static ScalarFunction);

impl PartialEq for FuncRef {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl std::fmt::Debug for FuncRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

/// A LIKE pattern compiled once at bind time when the pattern is a constant.
#[derive(Clone)]
pub struct CompiledLike(pub Arc<LikePattern>);

impl PartialEq for CompiledLike {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for CompiledLike {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LikePattern")
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum SubqueryKind {
    /// `(SELECT x ...)`: one column, at most one row; NULL if empty.
    Scalar,
    /// `[NOT] EXISTS (SELECT ...)`.
    Exists { negated: bool },
    /// `expr [NOT] IN (SELECT x ...)`.
    In { expr: Box<Expr>, negated: bool },
}

/// A subquery inside an expression.
#[derive(Clone, Debug)]
pub struct Subquery {
    pub plan: Arc<QueryPlan>,
    pub kind: SubqueryKind,
    /// True if the subquery reads columns of an enclosing query (it is then re-executed per
    /// row); otherwise its result is computed once per statement and cached.
    pub correlated: bool,
    /// Slot of the per-statement result cache.
    pub cache_slot: usize,
    /// Where the enclosing query's FROM row starts in the row this expression is evaluated on
    /// (non-zero after aggregation, whose output rows end with the group's first input row).
    pub outer_offset: usize,
}

impl PartialEq for Subquery {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.plan, &other.plan) && self.kind == other.kind && self.outer_offset == other.outer_offset
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Literal(Value),
    /// A column of the row being evaluated.
    Column(usize),
    /// A column of an enclosing query's row (correlated subquery): `up` = 1 is the immediately
    /// enclosing query.
    Outer {
        up: usize,
        index: usize,
    },
    /// A `?` parameter (prepared statements), 0-based.
    Param(usize),
    UserVar(Arc<str>),
    /// `@name := expr`.
    SetUserVar {
        name: Arc<str>,
        expr: Box<Expr>,
    },
    SysVar {
        name: Arc<str>,
        scope: VarScope,
    },
    Not(Box<Expr>),
    Neg(Box<Expr>),
    BitNot(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Xor(Box<Expr>, Box<Expr>),
    Cmp {
        op: CmpOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    Arith {
        op: ArithOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    Bit {
        op: BitOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    IsNull {
        expr: Box<Expr>,
        negated: bool,
    },
    /// `expr IS [NOT] TRUE|FALSE`.
    IsBool {
        expr: Box<Expr>,
        value: bool,
        negated: bool,
    },
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        escape: u8,
        negated: bool,
        compiled: Option<CompiledLike>,
    },
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
    Cast {
        expr: Box<Expr>,
        target: CastTarget,
    },
    Func {
        func: FuncRef,
        args: Vec<Expr>,
    },
    DateAdd {
        base: Box<Expr>,
        amount: Box<Expr>,
        unit: IntervalUnit,
        negate: bool,
    },
    /// LAST_INSERT_ID() / LAST_INSERT_ID(expr) (the latter sets the session value).
    LastInsertId(Option<Box<Expr>>),
    Subquery(Box<Subquery>),
    /// An aggregate's result; only exists between binding and the post-aggregation rewrite.
    AggRef(usize),
}

pub fn bool_value(b: bool) -> Value {
    Value::Int(b as i64)
}

fn opt_bool(b: Option<bool>) -> Value {
    match b {
        Some(b) => bool_value(b),
        None => Value::Null,
    }
}

/// MySQL bit operations work on unsigned 64-bit integers; negative integers are reinterpreted.
fn bit_operand(v: &Value) -> Option<u64> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i as u64),
        Value::UInt(u) => Some(*u),
        other => match value::to_f64(other) {
            Some(f) if f < 0.0 => Some(f.round() as i64 as u64),
            Some(f) => Some(f.round() as u64),
            None => Some(0),
        },
    }
}

impl Expr {
    pub fn lit(v: Value) -> Expr {
        Expr::Literal(v)
    }

    pub fn boxed(self) -> Box<Expr> {
        Box::new(self)
    }

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
            Expr::SetUserVar { name, expr } => {
                let v = expr.eval(row, cx)?;
                cx.set_user_var(name, v.clone());
                Ok(v)
            }
            Expr::SysVar { name, scope } => cx.system_variable(name, *scope),
            Expr::Not(e) => {
                let v = e.eval(row, cx)?;
                Ok(opt_bool(value::truthy(&v).map(|b| !b)))
            }
            Expr::Neg(e) => {
                let v = e.eval(row, cx)?;
                value::negate(&v)
            }
            Expr::BitNot(e) => {
                let v = e.eval(row, cx)?;
                Ok(bit_operand(&v).map_or(Value::Null, |u| Value::UInt(!u)))
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
                let (Some(a), Some(b)) = (bit_operand(&l), bit_operand(&r)) else {
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
                for item in list {
                    let x = item.eval(row, cx)?;
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
            Expr::Like { expr, pattern, escape, negated, compiled } => {
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
                        LikePattern::compile(&p, *escape).matches(&text)
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
            Expr::Subquery(sq) => crate::exec::eval_subquery(sq, row, cx),
            Expr::AggRef(_) => Err(error::invalid_group_function()),
        }
    }

    /// Calls `f` on every direct child expression.
    pub fn for_each_child<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        match self {
            Expr::Literal(_)
            | Expr::Column(_)
            | Expr::Outer { .. }
            | Expr::Param(_)
            | Expr::UserVar(_)
            | Expr::SysVar { .. }
            | Expr::AggRef(_) => {}
            Expr::SetUserVar { expr, .. }
            | Expr::Not(expr)
            | Expr::Neg(expr)
            | Expr::BitNot(expr)
            | Expr::IsNull { expr, .. }
            | Expr::IsBool { expr, .. }
            | Expr::Cast { expr, .. } => f(expr),
            Expr::And(a, b) | Expr::Or(a, b) | Expr::Xor(a, b) => {
                f(a);
                f(b)
            }
            Expr::Cmp { left, right, .. } | Expr::Arith { left, right, .. } | Expr::Bit { left, right, .. } => {
                f(left);
                f(right)
            }
            Expr::InList { expr, list, .. } => {
                f(expr);
                list.iter().for_each(f)
            }
            Expr::Between { expr, low, high, .. } => {
                f(expr);
                f(low);
                f(high)
            }
            Expr::Like { expr, pattern, .. } => {
                f(expr);
                f(pattern)
            }
            Expr::Case { operand, whens, otherwise } => {
                if let Some(o) = operand {
                    f(o);
                }
                for (w, t) in whens {
                    f(w);
                    f(t);
                }
                if let Some(o) = otherwise {
                    f(o);
                }
            }
            Expr::Func { args, .. } => args.iter().for_each(f),
            Expr::DateAdd { base, amount, .. } => {
                f(base);
                f(amount)
            }
            Expr::LastInsertId(arg) => {
                if let Some(a) = arg {
                    f(a)
                }
            }
            Expr::Subquery(sq) => {
                if let SubqueryKind::In { expr, .. } = &sq.kind {
                    f(expr)
                }
            }
        }
    }

    /// Rebuilds the expression bottom-up: `f` may replace any node (it sees children already
    /// rewritten). Used to remap column positions.
    pub fn rewrite(self, f: &mut dyn FnMut(Expr) -> Result<Expr, SqlError>) -> Result<Expr, SqlError> {
        let e = self.map_children(&mut |c| c.rewrite(f))?;
        f(e)
    }

    /// Applies `f` to each direct child, keeping the node.
    pub fn map_children(self, f: &mut dyn FnMut(Expr) -> Result<Expr, SqlError>) -> Result<Expr, SqlError> {
        let m = |e: Box<Expr>, f: &mut dyn FnMut(Expr) -> Result<Expr, SqlError>| -> Result<Box<Expr>, SqlError> {
            Ok(Box::new(f(*e)?))
        };
        Ok(match self {
            e @ (Expr::Literal(_)
            | Expr::Column(_)
            | Expr::Outer { .. }
            | Expr::Param(_)
            | Expr::UserVar(_)
            | Expr::SysVar { .. }
            | Expr::AggRef(_)) => e,
            Expr::SetUserVar { name, expr } => Expr::SetUserVar { name, expr: m(expr, f)? },
            Expr::Not(e) => Expr::Not(m(e, f)?),
            Expr::Neg(e) => Expr::Neg(m(e, f)?),
            Expr::BitNot(e) => Expr::BitNot(m(e, f)?),
            Expr::And(a, b) => Expr::And(m(a, f)?, m(b, f)?),
            Expr::Or(a, b) => Expr::Or(m(a, f)?, m(b, f)?),
            Expr::Xor(a, b) => Expr::Xor(m(a, f)?, m(b, f)?),
            Expr::Cmp { op, left, right } => Expr::Cmp { op, left: m(left, f)?, right: m(right, f)? },
            Expr::Arith { op, left, right } => Expr::Arith { op, left: m(left, f)?, right: m(right, f)? },
            Expr::Bit { op, left, right } => Expr::Bit { op, left: m(left, f)?, right: m(right, f)? },
            Expr::IsNull { expr, negated } => Expr::IsNull { expr: m(expr, f)?, negated },
            Expr::IsBool { expr, value, negated } => Expr::IsBool { expr: m(expr, f)?, value, negated },
            Expr::InList { expr, list, negated } => Expr::InList {
                expr: m(expr, f)?,
                list: list.into_iter().map(&mut *f).collect::<Result<_, _>>()?,
                negated,
            },
            Expr::Between { expr, low, high, negated } => {
                Expr::Between { expr: m(expr, f)?, low: m(low, f)?, high: m(high, f)?, negated }
            }
            Expr::Like { expr, pattern, escape, negated, compiled } => {
                Expr::Like { expr: m(expr, f)?, pattern: m(pattern, f)?, escape, negated, compiled }
            }
            Expr::Case { operand, whens, otherwise } => Expr::Case {
                operand: operand.map(|o| m(o, f)).transpose()?,
                whens: whens.into_iter().map(|(w, t)| Ok((f(w)?, f(t)?))).collect::<Result<_, SqlError>>()?,
                otherwise: otherwise.map(|o| m(o, f)).transpose()?,
            },
            Expr::Cast { expr, target } => Expr::Cast { expr: m(expr, f)?, target },
            Expr::Func { func, args } => {
                Expr::Func { func, args: args.into_iter().map(&mut *f).collect::<Result<_, _>>()? }
            }
            Expr::DateAdd { base, amount, unit, negate } => {
                Expr::DateAdd { base: m(base, f)?, amount: m(amount, f)?, unit, negate }
            }
            Expr::LastInsertId(arg) => Expr::LastInsertId(arg.map(|a| m(a, f)).transpose()?),
            Expr::Subquery(mut sq) => {
                if let SubqueryKind::In { expr, negated } = sq.kind {
                    sq.kind = SubqueryKind::In { expr: m(expr, f)?, negated };
                }
                Expr::Subquery(sq)
            }
        })
    }

    /// True if any node satisfies `pred`.
    pub fn any(&self, pred: &mut dyn FnMut(&Expr) -> bool) -> bool {
        if pred(self) {
            return true;
        }
        let mut found = false;
        self.for_each_child(&mut |c| {
            if !found && c.any(pred) {
                found = true;
            }
        });
        found
    }

    /// Calls `f` with every row position this expression reads (not counting subqueries'
    /// references to this row, which `has_subquery` reports).
    pub fn columns(&self, f: &mut dyn FnMut(usize)) {
        if let Expr::Column(i) = self {
            f(*i);
        }
        self.for_each_child(&mut |c| c.columns(f));
    }

    pub fn has_subquery(&self) -> bool {
        self.any(&mut |e| matches!(e, Expr::Subquery(_)))
    }

    pub fn has_aggregate(&self) -> bool {
        self.any(&mut |e| matches!(e, Expr::AggRef(_)))
    }

    /// True if evaluating this twice on the same row may give different results or has side
    /// effects (RAND(), @a := ..., LAST_INSERT_ID(x)).
    pub fn is_volatile(&self) -> bool {
        self.any(&mut |e| match e {
            Expr::Func { func, .. } => !func.0.deterministic,
            Expr::SetUserVar { .. } | Expr::LastInsertId(Some(_)) => true,
            _ => false,
        })
    }

    /// True if the expression reads nothing from the row it is evaluated on, so it can be
    /// evaluated before a scan (parameters, literals, variables, outer references).
    pub fn is_row_independent(&self) -> bool {
        !self.any(&mut |e| matches!(e, Expr::Column(_) | Expr::AggRef(_) | Expr::Subquery(_)))
    }

    /// Splits a conjunction into its conjuncts.
    pub fn into_conjuncts(self, out: &mut Vec<Expr>) {
        match self {
            Expr::And(a, b) => {
                a.into_conjuncts(out);
                b.into_conjuncts(out);
            }
            other => out.push(other),
        }
    }

    pub fn conjunction(mut parts: Vec<Expr>) -> Option<Expr> {
        let last = parts.pop()?;
        Some(parts.into_iter().rev().fold(last, |acc, e| Expr::And(Box::new(e), Box::new(acc))))
    }

    /// Shifts every column position by `-base` (the expression moves to a row that starts at
    /// `base` of the old one). Outer offsets of subqueries move the same way.
    pub fn shift_columns(self, base: usize) -> Expr {
        if base == 0 {
            return self;
        }
        self.rewrite(&mut |e| {
            Ok(match e {
                Expr::Column(i) => {
                    debug_assert!(i >= base);
                    Expr::Column(i - base)
                }
                Expr::Subquery(mut sq) => {
                    debug_assert!(sq.outer_offset >= base || !sq.correlated);
                    sq.outer_offset = sq.outer_offset.saturating_sub(base);
                    Expr::Subquery(sq)
                }
                other => other,
            })
        })
        .unwrap_or_else(|_| unreachable!("shift_columns's rewrite never fails"))
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
                return Ok(value::truthy(&compare_values(*op, c, v)) == Some(true));
            }
        }
    }
    let v = e.eval(row, cx)?;
    Ok(value::truthy(&v) == Some(true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(i: usize) -> Expr {
        Expr::Column(i)
    }

    #[test]
    fn conjunction_round_trips() {
        let parts = vec![col(0), col(1), col(2)];
        let e = Expr::conjunction(parts.clone()).unwrap();
        let mut out = Vec::new();
        e.into_conjuncts(&mut out);
        assert_eq!(out, parts);
        assert!(Expr::conjunction(vec![]).is_none());
    }

    #[test]
    fn shift_columns_moves_every_reference() {
        let e = Expr::Cmp {
            op: CmpOp::Eq,
            left: col(5).boxed(),
            right: Expr::Arith { op: ArithOp::Add, left: col(7).boxed(), right: Expr::Param(0).boxed() }.boxed(),
        };
        let shifted = e.shift_columns(5);
        let mut cols = Vec::new();
        shifted.columns(&mut |c| cols.push(c));
        assert_eq!(cols, vec![0, 2]);
    }

    #[test]
    fn row_independence() {
        assert!(Expr::Param(0).is_row_independent());
        assert!(Expr::Outer { up: 1, index: 3 }.is_row_independent());
        assert!(!Expr::Not(col(0).boxed()).is_row_independent());
    }

    #[test]
    fn flip_swaps_direction_only() {
        assert_eq!(CmpOp::Lt.flip(), CmpOp::Gt);
        assert_eq!(CmpOp::Ge.flip(), CmpOp::Le);
        assert_eq!(CmpOp::Eq.flip(), CmpOp::Eq);
    }
}
