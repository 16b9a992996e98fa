//! `(a, b) IN ((1, 2), (3, 4))` as index keys.
//!
//! A row IN list binds to `(a = 1 AND b = 2) OR (a = 3 AND b = 4)`, which the access path
//! cannot use (its sargs are one column each), so TPC-C's `(s_w_id, s_i_id) IN (...)` read the
//! whole table. MariaDB's range optimizer reads such a list as key points. Here each column
//! also gets the IN list of its own values (`a IN (1, 3) AND b IN (2, 4)`), which the access
//! path expands into key points; the row disjunction stays as the filter, so the wider key set
//! never lets a row through that the list does not hold.
//!
//! The added lists never change the value: where the disjunction is TRUE some row matches and
//! every column is in its list; where it is NULL some row has only TRUE and NULL comparisons,
//! so no list is FALSE; where it is FALSE the conjunction is FALSE. Each list compares as the
//! disjunction's `=` did (the same bound operands, `InList` compares as `Cmp` does).

use crate::plan::{CmpOp, Expr};

/// `disjunction` (`columns` wide, `rows` rows) AND, per column, the IN list of its values.
/// Anything not of that shape (nested rows, a comparison the binder rewrote) is returned
/// unchanged.
pub fn with_column_in_lists(disjunction: Expr, columns: usize, rows: usize) -> Expr {
    match column_in_lists(&disjunction, columns, rows) {
        Some(lists) => lists.into_iter().fold(disjunction, |acc, list| Expr::And(acc.boxed(), list.boxed())),
        None => disjunction,
    }
}

fn column_in_lists(disjunction: &Expr, columns: usize, rows: usize) -> Option<Vec<Expr>> {
    let mut disjuncts = Vec::with_capacity(rows);
    disjunction.disjuncts(&mut disjuncts);
    if disjuncts.len() != rows || rows < 2 {
        return None;
    }
    let mut tested: Vec<Option<Expr>> = vec![None; columns];
    let mut values: Vec<Vec<Expr>> = vec![Vec::with_capacity(rows); columns];
    for d in disjuncts {
        let mut parts = Vec::with_capacity(columns);
        d.clone().into_conjuncts(&mut parts);
        if parts.len() != columns {
            return None;
        }
        for (i, part) in parts.into_iter().enumerate() {
            let Expr::Cmp { op: CmpOp::Eq, left, right } = part else { return None };
            if *tested[i].get_or_insert_with(|| (*left).clone()) != *left {
                return None;
            }
            values[i].push(*right);
        }
    }
    Some(
        tested
            .into_iter()
            .zip(values)
            // A list of a column's reads only: a list that reads the row again would not be
            // a key and is left out.
            .filter(|(_, vs)| vs.iter().all(Expr::is_row_independent))
            .map(|(x, list)| Expr::InList { expr: x.expect("one per column").boxed(), list, negated: false })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Value;

    fn eq(c: usize, v: i64) -> Expr {
        Expr::Cmp { op: CmpOp::Eq, left: Expr::Column(c).boxed(), right: Expr::Literal(Value::Int(v)).boxed() }
    }

    fn row(a: i64, b: i64) -> Expr {
        Expr::And(eq(0, a).boxed(), eq(1, b).boxed())
    }

    #[test]
    fn each_column_gets_the_list_of_its_values() {
        let d = Expr::Or(row(1, 2).boxed(), row(3, 4).boxed());
        let out = with_column_in_lists(d.clone(), 2, 2);
        let mut parts = Vec::new();
        out.into_conjuncts(&mut parts);
        let lit = |v| Expr::Literal(Value::Int(v));
        assert_eq!(
            parts,
            vec![
                d,
                Expr::InList { expr: Expr::Column(0).boxed(), list: vec![lit(1), lit(3)], negated: false },
                Expr::InList { expr: Expr::Column(1).boxed(), list: vec![lit(2), lit(4)], negated: false },
            ]
        );
    }

    #[test]
    fn other_shapes_stay_as_they_are() {
        // A single row is already a conjunction of equalities.
        assert_eq!(with_column_in_lists(row(1, 2), 2, 1), row(1, 2));
        // Rows of different columns.
        let mixed = Expr::Or(row(1, 2).boxed(), Expr::And(eq(1, 1).boxed(), eq(0, 2).boxed()).boxed());
        assert_eq!(with_column_in_lists(mixed.clone(), 2, 2), mixed);
        // A value that reads the row is no key.
        let self_ref = Expr::Or(
            row(1, 2).boxed(),
            Expr::And(
                eq(0, 3).boxed(),
                Expr::Cmp { op: CmpOp::Eq, left: Expr::Column(1).boxed(), right: Expr::Column(0).boxed() }.boxed(),
            )
            .boxed(),
        );
        let mut parts = Vec::new();
        with_column_in_lists(self_ref, 2, 2).into_conjuncts(&mut parts);
        assert_eq!(parts.len(), 2, "only column 0 gets a list: {parts:?}");
    }
}
