//! Common table expressions: WITH and WITH RECURSIVE.
//!
//! A CTE is bound where it is referenced, as a derived table, once per reference (as MariaDB
//! materializes each reference). Its body sees only the CTEs defined before it, so a CTE
//! that names itself without RECURSIVE names a base table (1146, as MariaDB). A recursive CTE
//! splits its top-level UNION into anchor parts (that do not read it) and recursive parts,
//! whose references to it read the working table of the iteration (`plan::RecursiveCte`).

use sqlparser::ast;

use super::binder::{Binder, CteDef, WorkTable};
use crate::error::{self, SqlError};
use crate::plan::RecursiveCte;
use crate::plan::{OutputColumn, Plan, QueryPlan};
use crate::value::SqlType;

impl Binder<'_> {
    /// Binds `q` with its WITH clause's CTEs visible.
    pub(super) fn with_ctes<T>(
        &mut self,
        with: &ast::With,
        f: impl FnOnce(&mut Self) -> Result<T, SqlError>,
    ) -> Result<T, SqlError> {
        let before = self.ctes.len();
        for cte in &with.cte_tables {
            let name = cte.alias.name.value.clone();
            let recursive = with.recursive && query_reads(&cte.query, &name);
            let columns = cte.alias.columns.iter().map(|c| c.name.value.clone()).collect();
            self.ctes.push(CteDef { name, query: (*cte.query).clone(), columns, recursive });
        }
        let r = f(self);
        self.ctes.truncate(before);
        r
    }

    /// The plan of a reference to CTE `name` (None: no CTE of that name is visible).
    pub(super) fn cte_reference(&mut self, name: &str) -> Option<Result<QueryPlan, SqlError>> {
        if let Some(w) = self.work_tables.iter().rev().find(|w| w.name == name) {
            let root = Plan::WorkTable { slot: w.slot };
            return Some(Ok(QueryPlan::new(root, w.columns.clone(), None, None)));
        }
        let idx = self.ctes.iter().rposition(|c| c.name == name)?;
        let def = self.ctes[idx].clone();
        // The body sees the CTEs defined before it only.
        let hidden = self.ctes.split_off(idx);
        let r = self.isolated(|b| {
            b.with_scope(|b| if def.recursive { b.bind_recursive_cte(&def) } else { b.bind_query(&def.query) })
                .map(|(p, _)| p)
        });
        self.ctes.extend(hidden);
        Some(r.and_then(|plan| rename_columns(plan, &def.columns)))
    }

    fn bind_recursive_cte(&mut self, def: &CteDef) -> Result<QueryPlan, SqlError> {
        let q = &def.query;
        if q.order_by.is_some() || q.limit_clause.is_some() {
            return Err(error::not_supported("ORDER BY / LIMIT in a recursive WITH element"));
        }
        let mut branches = Vec::new();
        let mut distinct = false;
        union_branches(&q.body, &mut branches, &mut distinct)?;
        let (recursive, anchors): (Vec<&ast::SetExpr>, Vec<&ast::SetExpr>) =
            branches.into_iter().partition(|b| set_expr_reads(b, &def.name));
        if anchors.is_empty() {
            return Err(error::no_recursive_anchor(&def.name));
        }
        let (anchor, mut columns) = self.bind_union_all(&anchors)?;
        for (c, name) in columns.iter_mut().zip(&def.columns) {
            c.meta.name = name.clone();
        }
        // MariaDB describes a recursive CTE's columns as its temporary table's fields.
        for c in &mut columns {
            super::item_meta::through_window_table(&mut c.meta, false);
            // A computed integer's field is one wider (MariaDB counts a sign: 1 is INT(2)).
            if matches!(c.ty, SqlType::Int { .. }) && c.meta.org_table.is_empty() {
                c.meta.length += 1;
            }
        }
        let slot = self.work_table_slots;
        self.work_table_slots += 1;
        self.work_tables.push(WorkTable { name: def.name.clone(), slot, columns: columns.clone() });
        let r = self.bind_union_all(&recursive);
        self.work_tables.pop();
        let (recursive, rec_columns) = r?;
        if rec_columns.len() != columns.len() {
            return Err(error::union_column_count());
        }
        if has_grouping(&recursive) {
            return Err(error::recursive_restrictions(&def.name));
        }
        let types: Vec<SqlType> = columns.iter().map(|c| c.ty.clone()).collect();
        let names = columns.iter().map(|c| c.meta.name.clone()).collect();
        let root = Plan::RecursiveCte(Box::new(RecursiveCte { anchor, recursive, slot, distinct, types, names }));
        Ok(QueryPlan::new(root, columns, None, None))
    }

    /// UNION ALL of `parts`, each bound as a UNION branch; the columns are the first part's
    /// names with the types of all.
    fn bind_union_all(&mut self, parts: &[&ast::SetExpr]) -> Result<(Plan, Vec<OutputColumn>), SqlError> {
        let mut roots = Vec::with_capacity(parts.len());
        let mut columns: Option<Vec<OutputColumn>> = None;
        for p in parts {
            let plan = self.bind_set_expr(p)?;
            match &mut columns {
                None => columns = Some(plan.columns.clone()),
                Some(cols) => {
                    if cols.len() != plan.columns.len() {
                        return Err(error::union_column_count());
                    }
                    for (c, o) in cols.iter_mut().zip(&plan.columns) {
                        c.ty = SqlType::unify(&c.ty, &o.ty);
                        c.meta.length = c.meta.length.max(o.meta.length);
                    }
                }
            }
            roots.push(plan.root);
        }
        let root = if roots.len() == 1 { roots.pop().unwrap_or(Plan::Dual) } else { Plan::Concat(roots) };
        Ok((root, columns.unwrap_or_default()))
    }
}

/// `WITH c(a, b)`: the CTE's columns renamed (4002 when the counts differ).
fn rename_columns(mut plan: QueryPlan, names: &[String]) -> Result<QueryPlan, SqlError> {
    if names.is_empty() {
        return Ok(plan);
    }
    if names.len() != plan.columns.len() {
        return Err(error::cte_column_count());
    }
    for ((c, m), n) in plan.columns.iter_mut().zip(plan.metas.iter_mut()).zip(names) {
        c.meta.name = n.clone();
        m.name = n.clone();
    }
    Ok(plan)
}

/// The branches of a (left-deep) UNION chain; `distinct` is set by any UNION [DISTINCT].
fn union_branches<'q>(
    e: &'q ast::SetExpr,
    out: &mut Vec<&'q ast::SetExpr>,
    distinct: &mut bool,
) -> Result<(), SqlError> {
    match e {
        ast::SetExpr::SetOperation { op: ast::SetOperator::Union, set_quantifier, left, right } => {
            *distinct |= !matches!(set_quantifier, ast::SetQuantifier::All);
            union_branches(left, out, distinct)?;
            union_branches(right, out, distinct)
        }
        ast::SetExpr::SetOperation { op, .. } => {
            Err(error::not_supported(&format!("{op} in a recursive WITH element")))
        }
        other => {
            out.push(other);
            Ok(())
        }
    }
}

/// Whether the recursive parts group or window their rows (MariaDB's 4008).
fn has_grouping(p: &Plan) -> bool {
    match p {
        Plan::Aggregate(_) | Plan::Window(_) => true,
        Plan::Filter { input, .. }
        | Plan::Project { input, .. }
        | Plan::Distinct { input, .. }
        | Plan::Sort { input, .. }
        | Plan::Limit { input, .. }
        | Plan::Trim { input, .. } => has_grouping(input),
        Plan::Concat(v) => v.iter().any(has_grouping),
        _ => false,
    }
}

/// Whether a query names table `name` in a FROM clause (its own or a derived table's).
pub(super) fn query_reads(q: &ast::Query, name: &str) -> bool {
    set_expr_reads(&q.body, name)
}

fn set_expr_reads(e: &ast::SetExpr, name: &str) -> bool {
    match e {
        ast::SetExpr::Select(s) => s
            .from
            .iter()
            .any(|t| factor_reads(&t.relation, name) || t.joins.iter().any(|j| factor_reads(&j.relation, name))),
        ast::SetExpr::Query(q) => query_reads(q, name),
        ast::SetExpr::SetOperation { left, right, .. } => set_expr_reads(left, name) || set_expr_reads(right, name),
        _ => false,
    }
}

fn factor_reads(f: &ast::TableFactor, name: &str) -> bool {
    match f {
        ast::TableFactor::Table { name: n, .. } => {
            matches!(n.0.as_slice(), [ast::ObjectNamePart::Identifier(i)] if i.value == name)
        }
        ast::TableFactor::Derived { subquery, .. } => query_reads(subquery, name),
        ast::TableFactor::NestedJoin { table_with_joins, .. } => {
            factor_reads(&table_with_joins.relation, name)
                || table_with_joins.joins.iter().any(|j| factor_reads(&j.relation, name))
        }
        _ => false,
    }
}
