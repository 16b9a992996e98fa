//! Constants carried across equalities of WHERE: `w_id = 1 AND c_w_id = w_id` also gives
//! `c_w_id = 1`.
//!
//! The access path narrows one table by the values known before it is read; `c_w_id = w_id`
//! is such a value only once WAREHOUSE has been read, and where the join reads CUSTOMER first
//! (TPC-C's new-order customer read) CUSTOMER's primary key had no first column and the whole
//! table was scanned. MariaDB's equality propagation (Item_equal) makes the same inference.
//!
//! Only integer columns and integer values (literals, parameters bound as integers): two
//! integers that compare equal are the same number, so `b = a AND a = v` has `b = v` exactly as
//! `a = v` compares (strings would not: `'a' = 'A'` under a `_ci` collation), and an integer
//! compared with an integer warns of nothing (a copied `'2abc'` would warn once more per row).
//! A value with side effects or that reads the row is never copied. The added conjuncts are
//! implied by the others, so WHERE keeps the same rows. A prepared statement's plan is bound
//! before its parameters' types are known and copies them: executed with a string that is no
//! number (`'2abc'`), it warns (1292) more often than MariaDB.

use crate::plan::{CmpOp, Expr};
use crate::types::Value;

/// Appends `b = v` for each `a = v` and `a = b` (either side) of `conjuncts` whose columns
/// `integer_column` accepts and whose value is an integer literal or a parameter that
/// `integer_param` accepts, until nothing new follows.
pub fn add_implied_constants(
    conjuncts: &mut Vec<Expr>,
    integer_column: &dyn Fn(usize) -> bool,
    integer_param: &dyn Fn(usize) -> bool,
) {
    let is_copyable = |v: &Expr| match v {
        Expr::Literal(Value::Int(_) | Value::UInt(_)) => true,
        Expr::Param(i) => integer_param(*i),
        _ => false,
    };
    let mut known: Vec<(usize, Expr)> = Vec::new();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for c in conjuncts.iter() {
        let Expr::Cmp { op: CmpOp::Eq, left, right } = c else { continue };
        match (&**left, &**right) {
            (Expr::Column(a), Expr::Column(b)) if a != b && integer_column(*a) && integer_column(*b) => {
                pairs.push((*a, *b))
            }
            (Expr::Column(a), v) | (v, Expr::Column(a))
                if is_copyable(v) && integer_column(*a) && !known.iter().any(|(k, _)| k == a) =>
            {
                known.push((*a, v.clone()));
            }
            _ => {}
        }
    }
    if pairs.is_empty() || known.is_empty() {
        return;
    }
    let mut changed = true;
    while changed {
        changed = false;
        for &(a, b) in &pairs {
            let value_of =
                |col: usize, known: &[(usize, Expr)]| known.iter().find(|(k, _)| *k == col).map(|(_, v)| v.clone());
            let (from, to) = match (value_of(a, &known), value_of(b, &known)) {
                (Some(v), None) => (v, b),
                (None, Some(v)) => (v, a),
                _ => continue,
            };
            conjuncts.push(Expr::Cmp { op: CmpOp::Eq, left: Expr::Column(to).boxed(), right: from.clone().boxed() });
            known.push((to, from));
            changed = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eq(l: Expr, r: Expr) -> Expr {
        Expr::Cmp { op: CmpOp::Eq, left: l.boxed(), right: r.boxed() }
    }

    #[test]
    fn constants_follow_column_equalities() {
        let one = Expr::Literal(Value::Int(1));
        // w_id(3) = 1 AND c_w_id(0) = w_id(3) AND d(5) = c_w_id(0)
        let mut cs = vec![
            eq(Expr::Column(3), one.clone()),
            eq(Expr::Column(0), Expr::Column(3)),
            eq(Expr::Column(5), Expr::Column(0)),
        ];
        add_implied_constants(&mut cs, &|_| true, &|_| true);
        assert_eq!(cs[3..], [eq(Expr::Column(0), one.clone()), eq(Expr::Column(5), one)]);
    }

    #[test]
    fn only_integers_and_plain_values() {
        let one = Expr::Literal(Value::Int(1));
        let mut cs = vec![eq(Expr::Column(3), one.clone()), eq(Expr::Column(0), Expr::Column(3))];
        add_implied_constants(&mut cs, &|c| c != 0, &|_| true);
        assert_eq!(cs.len(), 2, "column 0 is no integer");
        let computed = Expr::Arith { op: crate::value::ArithOp::Add, left: one.clone().boxed(), right: one.boxed() };
        let mut cs = vec![eq(Expr::Column(3), computed), eq(Expr::Column(0), Expr::Column(3))];
        add_implied_constants(&mut cs, &|_| true, &|_| true);
        assert_eq!(cs.len(), 2, "only literals and parameters are copied");
        let text = Expr::Literal(Value::Bytes(b"2abc".to_vec()));
        let mut cs = vec![eq(Expr::Column(3), text), eq(Expr::Column(0), Expr::Column(3))];
        add_implied_constants(&mut cs, &|_| true, &|_| true);
        assert_eq!(cs.len(), 2, "a string is not copied (it would warn once more per row)");
        let mut cs = vec![eq(Expr::Column(3), Expr::Param(0)), eq(Expr::Column(0), Expr::Column(3))];
        add_implied_constants(&mut cs, &|_| true, &|_| false);
        assert_eq!(cs.len(), 2, "a parameter not bound as an integer is not copied");
    }
}
