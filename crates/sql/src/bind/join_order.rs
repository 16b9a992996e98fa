//! Join order: which table of a FROM clause of inner joins is read first, and which next.
//!
//! The order written is often a poor one: `FROM posts p JOIN cats c ON c.id = p.cat_id WHERE
//! c.slug = 'x'` read in that order scans every post and looks up its category, where reading
//! the one category first and its posts through the index on `cat_id` reads a few rows. MariaDB
//! chooses the order by cost (greedy search over the tables); this does the same with a simple
//! greedy rule over estimated row counts:
//!
//! - the first table is the one expected to produce the fewest rows after its own conditions
//!   (a unique key bound to constants: one row; an index prefix bound to constants, a range,
//!   other conditions: fractions of the table's row count);
//! - each next table is the one that keeps the running row count lowest: one reached through
//!   an index from the tables already read (one row per row on a unique key, a fraction of the
//!   table otherwise) beats one that must be read whole for a hash join.
//!
//! Only FROM clauses made of inner joins over base tables are reordered, and only when no
//! condition has side effects, a subquery or a non-deterministic function (their evaluation
//! count and order would change). Outer joins and STRAIGHT_JOIN keep the written order. When
//! the chosen order is the written one the plan is built as before; otherwise the joins are
//! planned over a reordered FROM row and a projection puts the columns back in FROM order, so
//! everything above the FROM clause is unchanged.
//!
//! Row counts are the engine's running estimates (`RowEstimates`); without per-index distinct
//! counts a non-unique index equality is taken to keep a tenth of the table.

use std::sync::Arc;

use selkie_storage::TableDef;

use super::binder::{Binder, SourceKind};
use super::from::FromTree;
use crate::error::SqlError;
use crate::plan::access::{choose_access, extract_sarg, key_column, Sarg, SargKind};
use crate::plan::{index_def, CmpOp, Expr, JoinKind, KeyPart, Plan};

/// Tables in a FROM clause beyond which the order is left as written (greedy search is
/// quadratic in the table count; 61 is MariaDB's limit on tables in a join).
const MAX_REORDERED_TABLES: usize = 61;
/// Fraction of a table a non-unique index equality (per bound column) or an unindexed
/// condition is taken to keep.
const EQ_SELECTIVITY: f64 = 0.1;
const RANGE_SELECTIVITY: f64 = 0.25;
const FILTER_SELECTIVITY: f64 = 0.5;

/// One base table of the join, with what its own conditions leave of it.
struct Leaf {
    /// Scope index of the source.
    source: usize,
    table: Arc<TableDef>,
    /// FROM-row columns [offset, offset + width).
    offset: usize,
    width: usize,
    rows: f64,
    /// Rows left after the conditions that read only this table.
    filtered: f64,
}

impl Binder<'_> {
    /// A better order than the written one for the inner joins of `tree` with the conditions
    /// `pushed` (FROM-row columns), as scope source indexes; None to keep the written order.
    pub(super) fn join_order(&mut self, tree: &FromTree, pushed: &[Expr]) -> Result<Option<Vec<usize>>, SqlError> {
        let Some(estimates) = self.env.row_estimates else {
            return Ok(None);
        };
        if self.scope().fixed_join_order {
            return Ok(None);
        }
        let mut sources = Vec::new();
        let mut on = Vec::new();
        if !inner_join_leaves(tree, &mut sources, &mut on) || sources.len() < 2 || sources.len() > MAX_REORDERED_TABLES
        {
            return Ok(None);
        }
        let conds: Vec<&Expr> = pushed.iter().chain(on.iter()).collect();
        if conds.iter().any(|c| c.is_volatile() || c.has_subquery()) {
            return Ok(None);
        }
        let mut leaves = Vec::with_capacity(sources.len());
        for &i in &sources {
            let s = &self.scope().sources[i];
            let SourceKind::Table { table, .. } = &s.kind else {
                return Ok(None);
            };
            if table.options.sequence.is_some() {
                return Ok(None);
            }
            let rows = estimates.table_rows(table).max(1) as f64;
            leaves.push(Leaf {
                source: i,
                table: table.clone(),
                offset: s.offset,
                width: s.width(),
                rows,
                filtered: rows,
            });
        }
        for leaf in &mut leaves {
            let local: Vec<&Expr> = conds.iter().copied().filter(|c| reads_only(c, leaf)).collect();
            let (_, fraction) = access_fraction(leaf, &local, &[]);
            leaf.filtered = (leaf.rows * fraction).max(1.0);
        }

        // Greedy: the smallest first, then whatever keeps the running row count lowest.
        let n = leaves.len();
        let mut chosen: Vec<usize> = Vec::with_capacity(n);
        let mut running = 1.0f64;
        while chosen.len() < n {
            // (leaf, rows after it, joined to the tables read by a condition)
            let mut best: Option<(usize, f64, bool)> = None;
            for (k, leaf) in leaves.iter().enumerate() {
                if chosen.contains(&k) {
                    continue;
                }
                let (next, connected) = if chosen.is_empty() {
                    (leaf.filtered, true)
                } else {
                    let (fanout, connected) = self.fanout(leaf, &leaves, &chosen, &conds);
                    (running * fanout, connected)
                };
                // A table joined by a condition beats any cartesian product (as MariaDB's
                // greedy search); ties keep the written order.
                let better = match best {
                    None => true,
                    Some((_, b, b_connected)) => {
                        (connected && !b_connected) || (connected == b_connected && next < b * 0.999)
                    }
                };
                if better {
                    best = Some((k, next, connected));
                }
            }
            let (k, next, _) = best.expect("a table is left");
            chosen.push(k);
            running = next.max(1.0);
        }
        if chosen.iter().enumerate().all(|(pos, &k)| pos == k) {
            return Ok(None);
        }
        Ok(Some(chosen.into_iter().map(|k| leaves[k].source).collect()))
    }

    /// Rows `leaf` adds per row of the tables `chosen` already read, and whether a condition
    /// joins it to them.
    fn fanout(&self, leaf: &Leaf, leaves: &[Leaf], chosen: &[usize], conds: &[&Expr]) -> (f64, bool) {
        let read = |c: &Expr| {
            let mut ok = true;
            let mut touches_leaf = false;
            c.columns(&mut |col| {
                if col >= leaf.offset && col < leaf.offset + leaf.width {
                    touches_leaf = true;
                } else {
                    ok &= chosen.iter().any(|&k| col >= leaves[k].offset && col < leaves[k].offset + leaves[k].width);
                }
            });
            ok && touches_leaf
        };
        let usable: Vec<&Expr> = conds.iter().copied().filter(|c| read(c)).collect();
        let connected = usable.iter().any(|c| !reads_only(c, leaf));
        // Equalities with the tables already read, as index key values.
        let mut joined = Vec::new();
        for c in &usable {
            if let Expr::Cmp { op: CmpOp::Eq, left, right } = c {
                for (mine, other) in [(left, right), (right, left)] {
                    if let Some(col) = key_column(&leaf.table, mine, leaf.offset) {
                        if !reads_only(other, leaf) {
                            joined.push(Sarg { column: col, kind: SargKind::Eq((**other).clone()) });
                        }
                    }
                }
            }
        }
        let (index_used, fraction) = access_fraction(leaf, &usable, &joined);
        let fanout = if index_used {
            (leaf.rows * fraction).max(1.0)
        } else {
            // Read whole (hash join or nested loop): its filtered rows, thinned by any
            // equality with the tables already read.
            let thinned = if joined.is_empty() { 1.0 } else { EQ_SELECTIVITY };
            // A hash join or loop also reads the whole table once: penalize it against an
            // index lookup of the same result size.
            (leaf.filtered * thinned).max(1.0) * 1.5
        };
        (fanout, connected)
    }

    /// Plans `tree`'s joins in `order` (scope source indexes) with their ON conditions and the
    /// conditions `pushed` (FROM-row columns). The result's rows are in FROM order.
    pub(super) fn plan_reordered(
        &mut self,
        tree: &FromTree,
        order: &[usize],
        pushed: Vec<Expr>,
    ) -> Result<Plan, SqlError> {
        // The ON conditions of inner joins are conditions on the joined row like WHERE's.
        let mut sources = Vec::new();
        let mut on = Vec::new();
        let all_inner = inner_join_leaves(tree, &mut sources, &mut on);
        assert!(all_inner && sources.len() == order.len(), "join_order reorders inner joins only");
        let pushed: Vec<Expr> = pushed.into_iter().chain(on).collect();
        let first = *order.iter().min().expect("two or more tables");
        let from_width: usize = order.iter().map(|&i| self.scope().sources[i].width()).sum();
        let base = self.scope().sources[first].offset;
        // FROM-row column → reordered-row column.
        let mut map = vec![usize::MAX; base + from_width];
        let mut next = base;
        for &i in order {
            let s = &self.scope().sources[i];
            for c in 0..s.width() {
                map[s.offset + c] = next + c;
            }
            next += s.width();
        }
        let remap = |e: Expr| -> Result<Expr, SqlError> {
            e.rewrite(&mut |x| {
                Ok(match x {
                    Expr::Column(c) if c >= base && c < base + from_width => Expr::Column(map[c]),
                    other => other,
                })
            })
        };
        let pushed = pushed.into_iter().map(remap).collect::<Result<Vec<_>, _>>()?;

        // Plan over the sources in the chosen order (they are contiguous scope slots), then
        // put the scope back as binding left it.
        let saved: Vec<_> = order.iter().map(|&i| self.scope().sources[i].clone()).collect();
        let originals: Vec<_> = (first..first + order.len()).map(|i| self.scope().sources[i].clone()).collect();
        {
            let mut offset = base;
            for (slot, mut s) in saved.into_iter().enumerate() {
                s.offset = offset;
                offset += s.width();
                self.scope_mut().sources[first + slot] = s;
            }
        }
        let mut tree = FromTree::Leaf(first);
        for slot in 1..order.len() {
            tree = FromTree::Join {
                left: Box::new(tree),
                right: Box::new(FromTree::Leaf(first + slot)),
                kind: JoinKind::Inner,
                on: Vec::new(),
            };
        }
        let planned = self.plan_tree(&tree, pushed);
        for (slot, s) in originals.into_iter().enumerate() {
            self.scope_mut().sources[first + slot] = s;
        }
        let plan = planned?;
        // The joined row starts at `base` of the FROM row (a nested join's rows are a slice).
        let exprs = (base..base + from_width).map(|c| Expr::Column(map[c] - base)).collect();
        Ok(Plan::Project { input: Box::new(plan), exprs })
    }
}

/// The scope sources of `tree` when it is made of inner joins only, with their ON conditions.
fn inner_join_leaves(tree: &FromTree, sources: &mut Vec<usize>, on: &mut Vec<Expr>) -> bool {
    match tree {
        FromTree::Leaf(i) => {
            sources.push(*i);
            true
        }
        FromTree::Join { left, right, kind: JoinKind::Inner, on: conds } => {
            on.extend(conds.iter().cloned());
            inner_join_leaves(left, sources, on) && inner_join_leaves(right, sources, on)
        }
        FromTree::Join { .. } => false,
    }
}

/// Whether `e` reads columns of `leaf` only (or none).
fn reads_only(e: &Expr, leaf: &Leaf) -> bool {
    let mut ok = true;
    e.columns(&mut |c| ok &= c >= leaf.offset && c < leaf.offset + leaf.width);
    ok
}

/// (whether an index is looked up with another table's values, fraction of `leaf` read) for the conditions
/// `conds` that `leaf` can evaluate, with `joined` equalities whose values come from other
/// tables.
fn access_fraction(leaf: &Leaf, conds: &[&Expr], joined: &[Sarg]) -> (bool, f64) {
    let column_of = |e: &Expr| key_column(&leaf.table, e, leaf.offset);
    let constant = |e: &Expr| (e.is_row_independent() && !e.has_subquery()).then(|| e.clone());
    let mut sargs: Vec<Sarg> = conds.iter().filter_map(|c| extract_sarg(c, &column_of, &constant)).collect();
    sargs.extend(joined.iter().cloned());
    let hints = crate::plan::access::IndexHints::default();
    let choice = choose_access(&leaf.table, &sargs, &hints, None);
    let index = index_def(&leaf.table, choice.index);
    let points = choice.eq.iter().filter(|p| matches!(p, KeyPart::Value(_) | KeyPart::IsNull)).count();
    let lists = choice.eq.len() - points;
    let mut fraction = if index.unique && points == index.columns.len() && !leaf.table.has_hidden_pk() {
        1.0 / leaf.rows
    } else {
        EQ_SELECTIVITY.powi(choice.eq.len() as i32) * (lists as f64 + 1.0).min(10.0)
    };
    if choice.tail.is_some() {
        fraction *= RANGE_SELECTIVITY;
    }
    // Keyed by a value of another table: an index lookup per row of the tables read before.
    let keyed = choice.eq.iter().any(|p| match p {
        KeyPart::Value(e) => !e.is_row_independent(),
        KeyPart::In(l) => l.iter().any(|e| !e.is_row_independent()),
        KeyPart::IsNull => false,
    });
    // Conditions the key does not use still thin the rows (counted once each, at most three).
    let rest = conds.len().saturating_sub(choice.eq.len() + usize::from(choice.tail.is_some())).min(3);
    fraction *= FILTER_SELECTIVITY.powi(rest as i32);
    (keyed, fraction.min(1.0))
}
