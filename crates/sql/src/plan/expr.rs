//! Walks over bound expressions: visiting and rewriting children, and the questions the binder
//! and planner ask of an expression (columns read, volatility, subqueries, aggregates).

use super::{Expr, SubqueryKind};
use crate::charset::Derivation;
use crate::error::SqlError;
use crate::types::Value;
use crate::value::SqlType;

impl Expr {
    pub fn boxed(self) -> Box<Expr> {
        Box::new(self)
    }

    /// The derivation (MariaDB's coercibility) the expression has by its kind alone, for a
    /// result of type `ty`; the binder refines string functions and `COLLATE`.
    pub fn derivation(&self, ty: &SqlType) -> Derivation {
        match ty {
            SqlType::Null => return Derivation::Ignorable,
            SqlType::Text { .. } | SqlType::Bytes { .. } => {}
            _ => return Derivation::Numeric,
        }
        match self {
            Expr::Literal(Value::Null) => Derivation::Ignorable,
            Expr::Literal(_) | Expr::Param(_) => Derivation::Coercible,
            Expr::SysVar { .. } => Derivation::SysConst,
            Expr::Column(_) | Expr::Outer { .. } | Expr::UserVar(_) | Expr::SetUserVar { .. } | Expr::Cast { .. } => {
                Derivation::Implicit
            }
            _ => Derivation::Coercible,
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
            | Expr::AggRef(_)
            | Expr::WindowRef(_) => {}
            Expr::SetUserVar { expr, .. }
            | Expr::Not(expr)
            | Expr::Neg(expr)
            | Expr::BitNot(expr)
            | Expr::IsNull { expr, .. }
            | Expr::IsBool { expr, .. }
            | Expr::Cast { expr, .. }
            | Expr::SortKey { expr, .. } => f(expr),
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
            | Expr::AggRef(_)
            | Expr::WindowRef(_)) => e,
            Expr::SetUserVar { name, expr, assigned } => Expr::SetUserVar { name, expr: m(expr, f)?, assigned },
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
            Expr::Like { expr, pattern, escape, negated, compiled, collation } => {
                Expr::Like { expr: m(expr, f)?, pattern: m(pattern, f)?, escape, negated, compiled, collation }
            }
            Expr::Case { operand, whens, otherwise } => Expr::Case {
                operand: operand.map(|o| m(o, f)).transpose()?,
                whens: whens.into_iter().map(|(w, t)| Ok((f(w)?, f(t)?))).collect::<Result<_, SqlError>>()?,
                otherwise: otherwise.map(|o| m(o, f)).transpose()?,
            },
            Expr::Cast { expr, target } => Expr::Cast { expr: m(expr, f)?, target },
            Expr::SortKey { expr, collation } => Expr::SortKey { expr: m(expr, f)?, collation },
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
        !self.any(&mut |e| matches!(e, Expr::Column(_) | Expr::AggRef(_) | Expr::WindowRef(_) | Expr::Subquery(_)))
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

    /// The disjuncts of an OR tree, by reference.
    pub fn disjuncts<'a>(&'a self, out: &mut Vec<&'a Expr>) {
        match self {
            Expr::Or(a, b) => {
                a.disjuncts(out);
                b.disjuncts(out);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::CmpOp;
    use crate::value::ArithOp;

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
