//! The FROM clause: binding sources and joins, then planning how to read and join them.
//!
//! Inner joins over base tables run in the order `join_order` chooses; other joins in the
//! order written. For each join the inner side is read by
//! index lookups when the join's equalities bind a prefix of one of its indexes, otherwise
//! through a hash table when there are type-compatible equalities, otherwise by a nested loop
//! over its buffered rows. WHERE conjuncts are pushed to the lowest point where every table
//! they read is available, never below the NULL-supplying side of an outer join.

use std::ops::Range;
use std::sync::Arc;

use sqlparser::ast;

use super::binder::ast_hints::Hints;
use super::binder::{object_name_parts, table_column_meta, Binder, ColumnInfo, Source, SourceKind, INFORMATION_SCHEMA};
use crate::error::SqlError;
use crate::error::{self, Clause};
use crate::plan::access::{choose_access, extract_sarg, key_column, IndexHints, OrderRequest, Sarg};
use crate::plan::{index_def, InnerSide, JoinKind, JoinPlan, KeyPart, Plan, QueryPlan, TableAccess, TailRange};
use crate::plan::{CmpOp, Expr};
use crate::types::column_flags;
use crate::value::SqlType;

/// The shape of the FROM clause: sources (by scope index) and the joins over them. The
/// sources of any subtree are contiguous, so a subtree's rows are a slice of the FROM row.
#[derive(Debug)]
pub enum FromTree {
    Leaf(usize),
    Join { left: Box<FromTree>, right: Box<FromTree>, kind: JoinKind, on: Vec<Expr> },
}

impl FromTree {
    fn sources(&self) -> Range<usize> {
        match self {
            FromTree::Leaf(i) => *i..*i + 1,
            FromTree::Join { left, right, .. } => left.sources().start..right.sources().end,
        }
    }
}

/// Classes of values whose equality a hash join can decide by bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeyClass {
    Exact,
    Float,
    Text,
    Date,
    DateTime,
}

fn key_class(ty: &SqlType) -> Option<KeyClass> {
    Some(match ty {
        SqlType::Int { .. } | SqlType::Bit { .. } | SqlType::Decimal { .. } => KeyClass::Exact,
        SqlType::Float | SqlType::Double => KeyClass::Float,
        SqlType::Text { .. } | SqlType::Bytes { .. } | SqlType::Enum { .. } => KeyClass::Text,
        // TIME text does not sort as time: no join key class.
        SqlType::Time { .. } => return None,
        SqlType::Date => KeyClass::Date,
        SqlType::DateTime { .. } | SqlType::Timestamp { .. } => KeyClass::DateTime,
        SqlType::Null => return None,
    })
}

impl Binder<'_> {
    /// Binds the FROM clause into the current scope.
    pub fn bind_from(&mut self, from: &[ast::TableWithJoins]) -> Result<Option<FromTree>, SqlError> {
        let mut tree: Option<FromTree> = None;
        for twj in from {
            if is_dual(twj) {
                continue;
            }
            let t = self.bind_table_with_joins(twj)?;
            tree = Some(match tree {
                None => t,
                Some(prev) => {
                    FromTree::Join { left: Box::new(prev), right: Box::new(t), kind: JoinKind::Inner, on: Vec::new() }
                }
            });
        }
        Ok(tree)
    }

    fn bind_table_with_joins(&mut self, twj: &ast::TableWithJoins) -> Result<FromTree, SqlError> {
        let mut t = self.bind_factor(&twj.relation)?;
        for j in &twj.joins {
            use ast::JoinOperator as J;
            let (kind, constraint) = match &j.join_operator {
                J::StraightJoin(c) => {
                    // STRAIGHT_JOIN: the tables are read in the order written.
                    self.scope_mut().fixed_join_order = true;
                    (JoinKind::Inner, c)
                }
                J::Join(c) | J::Inner(c) | J::CrossJoin(c) => (JoinKind::Inner, c),
                J::Left(c) | J::LeftOuter(c) => (JoinKind::Left, c),
                J::Right(c) | J::RightOuter(c) => (JoinKind::Right, c),
                J::FullOuter(_) => return Err(error::not_supported("FULL OUTER JOIN")),
                _ => return Err(error::not_supported("this join type")),
            };
            let right = self.bind_factor(&j.relation)?;
            let nullable_side = match kind {
                JoinKind::Left => Some(right.sources()),
                JoinKind::Right => Some(t.sources()),
                JoinKind::Inner => None,
            };
            if let Some(r) = nullable_side {
                for s in &mut self.scope_mut().sources[r] {
                    s.nullable = true;
                }
            }
            let on = self.bind_join_constraint(constraint, t.sources(), right.sources(), kind)?;
            t = FromTree::Join { left: Box::new(t), right: Box::new(right), kind, on };
        }
        Ok(t)
    }

    fn bind_join_constraint(
        &mut self,
        c: &ast::JoinConstraint,
        left: Range<usize>,
        right: Range<usize>,
        kind: JoinKind,
    ) -> Result<Vec<Expr>, SqlError> {
        let mut out = Vec::new();
        match c {
            ast::JoinConstraint::None => {}
            ast::JoinConstraint::On(e) => {
                let saved = self.clause();
                self.set_clause(Clause::On);
                let b = self.bind_expr(e);
                self.set_clause(saved);
                b?.expr.into_conjuncts(&mut out);
            }
            ast::JoinConstraint::Using(cols) => {
                for name in cols {
                    let (_, col) = object_name_parts(name)?;
                    out.push(self.using_equality(&col, left.clone(), right.clone(), kind)?);
                }
            }
            ast::JoinConstraint::Natural => {
                let scope = self.scope();
                let mut common = Vec::new();
                for s in &scope.sources[right.clone()] {
                    for c in s.columns.iter().filter(|c| !c.hidden) {
                        let in_left = scope.sources[left.clone()]
                            .iter()
                            .any(|ls| ls.columns.iter().any(|lc| !lc.hidden && lc.name.eq_ignore_ascii_case(&c.name)));
                        if in_left && !common.iter().any(|n: &String| n.eq_ignore_ascii_case(&c.name)) {
                            common.push(c.name.clone());
                        }
                    }
                }
                for col in common {
                    out.push(self.using_equality(&col, left.clone(), right.clone(), kind)?);
                }
            }
        }
        Ok(out)
    }

    /// `USING (col)`: `left.col = right.col`, and the copy on the non-preserved side is hidden
    /// from `*` and unqualified names.
    fn using_equality(
        &mut self,
        col: &str,
        left: Range<usize>,
        right: Range<usize>,
        kind: JoinKind,
    ) -> Result<Expr, SqlError> {
        let find = |scope: &super::binder::Scope, r: Range<usize>| -> Result<(usize, usize), SqlError> {
            let mut found = None;
            for si in r {
                for (ci, c) in scope.sources[si].columns.iter().enumerate() {
                    if !c.hidden && c.name.eq_ignore_ascii_case(col) {
                        if found.is_some() {
                            return Err(error::ambiguous_column(col, Clause::On));
                        }
                        found = Some((si, ci));
                    }
                }
            }
            found.ok_or_else(|| SqlError::new(1054, "42S22", format!("Unknown column '{col}' in 'from clause'")))
        };
        let scope = self.scope();
        let (ls, lc) = find(scope, left)?;
        let (rs, rc) = find(scope, right)?;
        let l = scope.sources[ls].offset + lc;
        let r = scope.sources[rs].offset + rc;
        let scope = self.scope_mut();
        if kind == JoinKind::Right {
            scope.sources[ls].columns[lc].hidden = true;
        } else {
            scope.sources[rs].columns[rc].hidden = true;
        }
        Ok(Expr::Cmp { op: CmpOp::Eq, left: Expr::Column(l).boxed(), right: Expr::Column(r).boxed() })
    }

    fn add_source(&mut self, mut source: Source) -> Result<FromTree, SqlError> {
        let scope = self.scope_mut();
        if scope.sources.iter().any(|s| s.name == source.name && s.db == source.db) {
            return Err(error::not_unique_table(&source.name));
        }
        source.offset = scope.width;
        scope.width += source.columns.len();
        scope.sources.push(source);
        Ok(FromTree::Leaf(scope.sources.len() - 1))
    }

    fn bind_factor(&mut self, tf: &ast::TableFactor) -> Result<FromTree, SqlError> {
        match tf {
            ast::TableFactor::Table { name, alias, args: None, index_hints, partitions, version: None, .. } => {
                if !partitions.is_empty() {
                    return Err(error::not_supported("PARTITION"));
                }
                let (db, table_name) = object_name_parts(name)?;
                let alias_name = alias.as_ref().map(|a| a.name.value.clone());
                if db.is_none() {
                    if let Some(plan) = self.cte_reference(&table_name) {
                        return self.add_derived(plan?, alias_name.unwrap_or(table_name), alias.as_ref());
                    }
                }
                let is_info = match &db {
                    Some(d) => d.eq_ignore_ascii_case(INFORMATION_SCHEMA),
                    None => self.env.current_db.is_some_and(|d| d.eq_ignore_ascii_case(INFORMATION_SCHEMA)),
                };
                if is_info {
                    self.uses_info_schema = true;
                    let Some(cols) = crate::show::info_schema_columns(&table_name) else {
                        return Err(SqlError::new(
                            1109,
                            "42S02",
                            format!("Unknown table '{table_name}' in information_schema"),
                        ));
                    };
                    let shown = alias_name.clone().unwrap_or_else(|| table_name.clone());
                    let columns = cols
                        .into_iter()
                        .map(|(n, ty, mut meta)| {
                            // The layout's metadata (display widths, NOT NULL); the plan still
                            // treats every column as nullable.
                            meta.table = shown.clone();
                            meta.org_table = table_name.to_ascii_uppercase();
                            meta.org_name = n.clone();
                            ColumnInfo { name: n, ty, nullable: true, meta, hidden: false }
                        })
                        .collect();
                    return self.add_source(Source {
                        name: shown,
                        db: Some(INFORMATION_SCHEMA.to_string()),
                        kind: SourceKind::InfoSchema(table_name.to_ascii_lowercase()),
                        columns,
                        offset: 0,
                        nullable: false,
                    });
                }
                let (db, table) = self.lookup_table(name)?;
                let shown = alias_name.unwrap_or_else(|| table.name.clone());
                let columns = table
                    .columns
                    .iter()
                    .enumerate()
                    .map(|(i, c)| ColumnInfo {
                        name: c.name.clone(),
                        ty: SqlType::of_column(c),
                        nullable: c.nullable,
                        meta: table_column_meta(&table, &shown, i),
                        hidden: false,
                    })
                    .collect();
                let mut hints = Hints::default();
                for h in index_hints {
                    let names: Vec<String> = h.index_names.iter().map(|i| i.value.clone()).collect();
                    match h.hint_type {
                        ast::TableIndexHintType::Use | ast::TableIndexHintType::Force => {
                            hints.use_or_force.get_or_insert_with(Vec::new).extend(names)
                        }
                        ast::TableIndexHintType::Ignore => hints.ignore.extend(names),
                    }
                }
                self.add_source(Source {
                    name: shown,
                    db: Some(db),
                    kind: SourceKind::Table { table, hints },
                    columns,
                    offset: 0,
                    nullable: false,
                })
            }
            ast::TableFactor::Derived { lateral: false, subquery, alias, .. } => {
                let Some(a) = alias else {
                    return Err(error::derived_needs_alias());
                };
                let plan = self.isolated(|b| b.with_scope(|b| b.bind_query(subquery)).map(|(p, _)| p))?;
                self.add_derived(plan, a.name.value.clone(), Some(a))
            }
            ast::TableFactor::NestedJoin { table_with_joins, alias: None } => {
                self.bind_table_with_joins(table_with_joins)
            }
            other => Err(error::not_supported(&format!("FROM item {other}"))),
        }
    }

    fn add_derived(
        &mut self,
        plan: QueryPlan,
        name: String,
        alias: Option<&ast::TableAlias>,
    ) -> Result<FromTree, SqlError> {
        let renames: Vec<String> =
            alias.map(|a| a.columns.iter().map(|c| c.name.value.clone()).collect()).unwrap_or_default();
        if !renames.is_empty() && renames.len() != plan.columns.len() {
            return Err(error::derived_column_count());
        }
        let mut columns = Vec::with_capacity(plan.columns.len());
        for (i, c) in plan.columns.iter().enumerate() {
            let cname = renames.get(i).cloned().unwrap_or_else(|| c.meta.name.clone());
            if columns.iter().any(|x: &ColumnInfo| x.name.eq_ignore_ascii_case(&cname)) {
                return Err(error::duplicate_column(&cname));
            }
            let mut meta = c.meta.clone();
            meta.name = cname.clone();
            meta.table = name.clone();
            meta.org_table = name.clone();
            meta.schema = String::new();
            let nullable = c.meta.flags & column_flags::NOT_NULL == 0;
            columns.push(ColumnInfo { name: cname, ty: c.ty.clone(), nullable, meta, hidden: false });
        }
        self.add_source(Source {
            name,
            db: None,
            kind: SourceKind::Derived(Arc::new(plan)),
            columns,
            offset: 0,
            nullable: false,
        })
    }

    /// The index hints of a table resolved to index numbers (1176 for an unknown name).
    fn resolve_hints(&self, table: &selkie_storage::TableDef, hints: &Hints) -> Result<IndexHints, SqlError> {
        let resolve = |n: &String| -> Result<usize, SqlError> {
            let count = 1 + table.secondary.len();
            (0..count)
                .find(|&i| index_def(table, i).name.eq_ignore_ascii_case(n) && !(i == 0 && table.has_hidden_pk()))
                .ok_or_else(|| error::unknown_key(n, &table.name))
        };
        Ok(IndexHints {
            only: hints.use_or_force.as_ref().map(|l| l.iter().map(resolve).collect::<Result<_, _>>()).transpose()?,
            ignore: hints.ignore.iter().map(resolve).collect::<Result<_, _>>()?,
        })
    }

    /// Plans the FROM clause with the WHERE conjuncts. Returns the plan (rows in FROM layout)
    /// and whether it delivers `order` (only a single-table FROM can).
    pub fn plan_from(
        &mut self,
        tree: Option<&FromTree>,
        conjuncts: Vec<Expr>,
        order: Option<&OrderRequest>,
    ) -> Result<(Plan, bool), SqlError> {
        let Some(tree) = tree else {
            let plan = match Expr::conjunction(conjuncts) {
                Some(p) => Plan::Filter { input: Box::new(Plan::Dual), predicate: p },
                None => Plan::Dual,
            };
            return Ok((plan, false));
        };
        let single = matches!(tree, FromTree::Leaf(_));
        // A correlated subquery needs the whole FROM row as its outer row.
        let (pushable, top): (Vec<Expr>, Vec<Expr>) =
            conjuncts.into_iter().partition(|c| single || !has_correlated_subquery(c));
        let (plan, ordered) = match tree {
            FromTree::Leaf(i) => self.plan_leaf(*i, pushable, order)?,
            _ => match self.join_order(tree, &pushable)? {
                Some(order) => (self.plan_reordered(tree, &order, pushable)?, false),
                None => (self.plan_tree(tree, pushable)?, false),
            },
        };
        Ok(match Expr::conjunction(top) {
            Some(p) => (Plan::Filter { input: Box::new(plan), predicate: p }, ordered),
            None => (plan, ordered),
        })
    }

    pub(super) fn plan_tree(&mut self, tree: &FromTree, pushed: Vec<Expr>) -> Result<Plan, SqlError> {
        match tree {
            FromTree::Leaf(i) => Ok(self.plan_leaf(*i, pushed, None)?.0),
            FromTree::Join { left, right, kind, on } => self.plan_join(left, right, *kind, on, pushed),
        }
    }

    fn offset_of_source(&self, i: usize) -> usize {
        self.scope().sources[i].offset
    }

    fn width_of(&self, r: &Range<usize>) -> usize {
        self.scope().sources[r.clone()].iter().map(|s| s.width()).sum()
    }

    /// Which FROM columns `e` reads, as a source range test.
    fn refs_within(&self, e: &Expr, r: &Range<usize>) -> bool {
        let scope = self.scope();
        let lo = scope.sources[r.start].offset;
        let hi = lo + self.width_of(r);
        let mut ok = true;
        e.columns(&mut |c| ok &= c >= lo && c < hi);
        ok && !has_correlated_subquery(e)
    }

    fn plan_join(
        &mut self,
        left: &FromTree,
        right: &FromTree,
        kind: JoinKind,
        on: &[Expr],
        pushed: Vec<Expr>,
    ) -> Result<Plan, SqlError> {
        let lr = left.sources();
        let rr = right.sources();
        let base = self.offset_of_source(lr.start);
        let mut left_push = Vec::new();
        let mut right_push = Vec::new();
        let mut conds = Vec::new();
        let mut post = Vec::new();
        let is_const = |e: &Expr| {
            let mut none = true;
            e.columns(&mut |_| none = false);
            none && !has_correlated_subquery(e)
        };
        match kind {
            JoinKind::Inner => {
                for c in pushed.into_iter().chain(on.iter().cloned()) {
                    if is_const(&c) || self.refs_within(&c, &lr) {
                        left_push.push(c);
                    } else if self.refs_within(&c, &rr) {
                        right_push.push(c);
                    } else {
                        conds.push(c);
                    }
                }
            }
            JoinKind::Left | JoinKind::Right => {
                let (preserved, nullable) = if kind == JoinKind::Left { (&lr, &rr) } else { (&rr, &lr) };
                let mut preserved_push = Vec::new();
                let mut nullable_push = Vec::new();
                for c in pushed {
                    if self.refs_within(&c, preserved) {
                        preserved_push.push(c);
                    } else {
                        post.push(c);
                    }
                }
                for c in on.iter().cloned() {
                    if !is_const(&c) && self.refs_within(&c, nullable) {
                        nullable_push.push(c);
                    } else {
                        conds.push(c);
                    }
                }
                if kind == JoinKind::Left {
                    left_push = preserved_push;
                    right_push = nullable_push;
                } else {
                    right_push = preserved_push;
                    left_push = nullable_push;
                }
            }
        }
        let (driver_tree, inner_tree, driver_push, inner_push) = if kind == JoinKind::Right {
            (right, left, right_push, left_push)
        } else {
            (left, right, left_push, right_push)
        };
        let driver_range = driver_tree.sources();
        let inner_range = inner_tree.sources();
        let driver_base = self.offset_of_source(driver_range.start);
        let inner_base = self.offset_of_source(inner_range.start);
        let driver = self.plan_tree(driver_tree, driver_push)?;

        // Equalities between the two sides: candidates for index lookups and hash keys.
        let mut pairs: Vec<(Expr, Expr)> = Vec::new();
        for c in &conds {
            if let Expr::Cmp { op: CmpOp::Eq, left: a, right: b } = c {
                if self.refs_within(a, &driver_range)
                    && self.refs_within(b, &inner_range)
                    && !is_const(a)
                    && !is_const(b)
                {
                    pairs.push(((**a).clone(), (**b).clone()));
                } else if self.refs_within(b, &driver_range)
                    && self.refs_within(a, &inner_range)
                    && !is_const(a)
                    && !is_const(b)
                {
                    pairs.push(((**b).clone(), (**a).clone()));
                }
            }
        }

        let mut inner_side = None;
        if let FromTree::Leaf(ii) = inner_tree {
            if let SourceKind::Table { table, hints } = &self.scope().sources[*ii].kind {
                let table = table.clone();
                let hints = self.resolve_hints(&table, hints)?;
                let local: Vec<Expr> = inner_push.iter().cloned().map(|c| c.shift_columns(inner_base)).collect();
                let column_of = |e: &Expr| key_column(&table, e, 0);
                let constant = |e: &Expr| (e.is_row_independent() && !e.has_subquery()).then(|| e.clone());
                let mut sargs: Vec<Sarg> =
                    local.iter().filter_map(|c| extract_sarg(c, &column_of, &constant)).collect();
                for (d, i) in &pairs {
                    let inner_col = key_column(&table, i, inner_base);
                    if let Some(col) = inner_col {
                        sargs.push(Sarg {
                            column: col,
                            kind: crate::plan::access::SargKind::Eq(d.clone().shift_columns(driver_base)),
                        });
                    }
                }
                let choice = choose_access(&table, &sargs, &hints, None);
                let uses_driver = choice.eq.iter().any(|p| match p {
                    KeyPart::Value(e) => !e.is_row_independent(),
                    KeyPart::In(l) => l.iter().any(|e| !e.is_row_independent()),
                    KeyPart::IsNull => false,
                }) || matches!(&choice.tail, Some(TailRange::Range { lower, upper }) if lower.iter().chain(upper.iter()).any(|b| !b.value.is_row_independent()));
                if uses_driver {
                    inner_side = Some(InnerSide::Lookup(Box::new(TableAccess {
                        table,
                        index: choice.index,
                        eq: choice.eq,
                        tail: choice.tail,
                        reverse: false,
                        filter: Expr::conjunction(local),
                    })));
                }
            }
        }
        let inner_side = match inner_side {
            Some(s) => s,
            None => {
                let hashable: Vec<(Expr, Expr)> = pairs
                    .into_iter()
                    .filter(|(d, i)| {
                        let dc = self.column_type(d).as_ref().and_then(key_class);
                        let ic = self.column_type(i).as_ref().and_then(key_class);
                        dc.is_some() && dc == ic
                    })
                    .collect();
                let inner_plan = self.plan_tree(inner_tree, inner_push)?;
                if hashable.is_empty() {
                    InnerSide::Loop(Box::new(inner_plan))
                } else {
                    let (dk, ik): (Vec<Expr>, Vec<Expr>) = hashable
                        .into_iter()
                        .map(|(d, i)| (d.shift_columns(driver_base), i.shift_columns(inner_base)))
                        .unzip();
                    InnerSide::Hash { plan: Box::new(inner_plan), driver_keys: dk, inner_keys: ik }
                }
            }
        };
        if base != 0 && conds.iter().chain(post.iter()).any(has_correlated_subquery) {
            return Err(error::not_supported("correlated subqueries in the ON clause of a nested join"));
        }
        let plan = Plan::Join(Box::new(JoinPlan {
            kind,
            left_width: self.width_of(&lr),
            right_width: self.width_of(&rr),
            driver,
            inner: inner_side,
            condition: Expr::conjunction(conds).map(|c| c.shift_columns(base)),
        }));
        Ok(match Expr::conjunction(post) {
            Some(p) => Plan::Filter { input: Box::new(plan), predicate: p.shift_columns(base) },
            None => plan,
        })
    }

    /// The static type of a FROM column reference.
    fn column_type(&self, e: &Expr) -> Option<SqlType> {
        let Expr::Column(c) = e else {
            return None;
        };
        let scope = self.scope();
        let si = scope.source_of_column(*c)?;
        let s = &scope.sources[si];
        Some(s.columns[*c - s.offset].ty.clone())
    }

    fn plan_leaf(
        &mut self,
        i: usize,
        pushed: Vec<Expr>,
        order: Option<&OrderRequest>,
    ) -> Result<(Plan, bool), SqlError> {
        let (base, kind, width) = {
            let s = &self.scope().sources[i];
            (s.offset, s.kind.clone(), s.width())
        };
        let local: Vec<Expr> = pushed.into_iter().map(|c| c.shift_columns(base)).collect();
        match kind {
            SourceKind::Table { table, .. } if table.options.sequence.is_some() => {
                Ok((with_filter(Plan::Sequence(table), local), false))
            }
            SourceKind::Table { table, hints } => {
                let hints = self.resolve_hints(&table, &hints)?;
                let (access, ordered) = single_table_access(table, hints, local, order);
                Ok((Plan::Access(Box::new(access)), ordered))
            }
            SourceKind::Derived(plan) => {
                let p = Plan::Derived(plan);
                Ok((with_filter(p, local), false))
            }
            SourceKind::InfoSchema(name) => Ok((with_filter(Plan::InfoSchema { table: name, width }, local), false)),
        }
    }

    /// Access path of a single-table statement (UPDATE/DELETE): the table is source 0.
    pub fn plan_target_access(
        &mut self,
        conjuncts: Vec<Expr>,
        order: Option<&OrderRequest>,
    ) -> Result<(TableAccess, bool), SqlError> {
        let SourceKind::Table { table, hints } = self.scope().sources[0].kind.clone() else {
            return Err(error::internal("DML target is not a base table"));
        };
        let hints = self.resolve_hints(&table, &hints)?;
        Ok(single_table_access(table, hints, conjuncts, order))
    }
}

/// `FROM DUAL`: MySQL's name for "no table".
fn is_dual(twj: &ast::TableWithJoins) -> bool {
    match &twj.relation {
        ast::TableFactor::Table { name, alias: None, .. } if twj.joins.is_empty() => {
            matches!(name.0.as_slice(), [ast::ObjectNamePart::Identifier(i)] if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DUAL"))
        }
        _ => false,
    }
}

fn with_filter(plan: Plan, conjuncts: Vec<Expr>) -> Plan {
    match Expr::conjunction(conjuncts) {
        Some(p) => Plan::Filter { input: Box::new(plan), predicate: p },
        None => plan,
    }
}

/// Chooses the access for one table given conjuncts on its own row layout.
pub fn single_table_access(
    table: Arc<selkie_storage::TableDef>,
    hints: IndexHints,
    local: Vec<Expr>,
    order: Option<&OrderRequest>,
) -> (TableAccess, bool) {
    let column_of = |e: &Expr| key_column(&table, e, 0);
    let constant = |e: &Expr| (e.is_row_independent() && !e.has_subquery()).then(|| e.clone());
    let sargs: Vec<Sarg> = local.iter().filter_map(|c| extract_sarg(c, &column_of, &constant)).collect();
    let choice = choose_access(&table, &sargs, &hints, order);
    let access = TableAccess {
        table,
        index: choice.index,
        eq: choice.eq,
        tail: choice.tail,
        reverse: choice.reverse,
        filter: Expr::conjunction(local),
    };
    (access, choice.ordered)
}

fn has_correlated_subquery(e: &Expr) -> bool {
    e.any(&mut |x| matches!(x, Expr::Subquery(sq) if sq.correlated))
}
