//! SELECT, UNION and parenthesized queries: binding and the shape of their plans.
//!
//! Pipeline of one SELECT: FROM (with WHERE pushed into the accesses and joins) → [Aggregate →
//! HAVING filter] → Project (select list, then hidden ORDER BY expressions) → [Distinct] →
//! [Sort, top-N when a LIMIT follows] → [Limit] → [Trim hidden columns]. The sort is dropped
//! when a single-table access already returns rows in ORDER BY order.

use sqlparser::ast;

use super::binder::{computed_meta, AliasMode, Binder, Bound, SourceKind};
use super::implied_equalities::add_implied_constants;
use super::item_meta::{self, item_meta, MetaHints};
use super::names;
use crate::error::SqlError;
use crate::error::{self, Clause};
use crate::plan::access::OrderRequest;
use crate::plan::Expr;
use crate::plan::WindowPlan;
use crate::plan::{AggregatePlan, LimitSpec, LockWait, OutputColumn, Plan, QueryPlan, Returning, SetOpPlan, SortKey};
use crate::types::Value;
use crate::value::SqlType;
use selkie_storage::LockMode;

/// One bound select-list item.
struct SelectItem {
    bound: Bound,
    name: String,
    alias: Option<String>,
    /// What the item's text says about its result metadata (`item_meta::hints`).
    hints: MetaHints,
}

impl Binder<'_> {
    /// Binds a complete query in the current scope (which must be fresh).
    pub fn bind_query(&mut self, q: &ast::Query) -> Result<QueryPlan, SqlError> {
        match &q.with {
            Some(with) => self.with_ctes(with, |b| b.bind_query_body(q)),
            None => self.bind_query_body(q),
        }
    }

    fn bind_query_body(&mut self, q: &ast::Query) -> Result<QueryPlan, SqlError> {
        if q.fetch.is_some()
            || q.for_clause.is_some()
            || q.settings.is_some()
            || q.format_clause.is_some()
            || !q.pipe_operators.is_empty()
        {
            return Err(error::not_supported(&q.to_string()));
        }
        let (lock, lock_wait) = lock_mode(&q.locks)?;
        let limit = match &q.limit_clause {
            Some(l) => Some(self.bind_limit(l)?),
            None => None,
        };
        let order_by = match &q.order_by {
            Some(ob) => match &ob.kind {
                ast::OrderByKind::Expressions(items) => Some(items.as_slice()),
                ast::OrderByKind::All(_) => return Err(error::not_supported("ORDER BY ALL")),
            },
            None => None,
        };
        let mut plan = match &*q.body {
            ast::SetExpr::Select(sel) => {
                let mut plan = self.bind_select(sel, order_by, limit, lock)?;
                plan.lock_wait = lock_wait;
                return Ok(plan);
            }
            ast::SetExpr::Query(inner) if order_by.is_none() && limit.is_none() => self.bind_query(inner)?,
            ast::SetExpr::Query(_) | ast::SetExpr::SetOperation { .. } => self.bind_set_expr(&q.body)?,
            ast::SetExpr::Values(v) => {
                let mut plan = self.bind_values(v)?;
                if order_by.is_some() {
                    // Sorted through MariaDB's temporary table: numbers lose BINARY.
                    for c in &mut plan.columns {
                        super::item_meta::through_window_table(&mut c.meta, true);
                    }
                    plan = QueryPlan::new(plan.root, plan.columns, None, None);
                }
                plan
            }
            other => return Err(error::not_supported(&other.to_string())),
        };
        if lock.is_some() {
            plan.lock = lock;
            plan.lock_wait = lock_wait;
        }
        self.order_limit_on_result(plan, order_by, limit)
    }

    /// A UNION branch or parenthesized query, bound at the current query level (so outer
    /// references keep their depth) but with its own FROM names.
    pub(super) fn bind_set_expr(&mut self, e: &ast::SetExpr) -> Result<QueryPlan, SqlError> {
        match e {
            ast::SetExpr::Select(sel) => self.in_branch_scope(|b| b.bind_select(sel, None, None, None)),
            ast::SetExpr::Query(q) => self.in_branch_scope(|b| b.bind_query(q)),
            ast::SetExpr::Values(v) => self.in_branch_scope(|b| b.bind_values(v)),
            ast::SetExpr::SetOperation { left, op, set_quantifier, right } => {
                let l = self.bind_set_expr(left)?;
                let r = self.bind_set_expr(right)?;
                if l.columns.len() != r.columns.len() {
                    return Err(error::union_column_count());
                }
                let distinct = match set_quantifier {
                    ast::SetQuantifier::All => false,
                    ast::SetQuantifier::Distinct | ast::SetQuantifier::None => true,
                    _ => return Err(error::not_supported(&format!("{op} {set_quantifier}"))),
                };
                let columns: Vec<OutputColumn> = l
                    .columns
                    .iter()
                    .zip(&r.columns)
                    .map(|(a, b)| {
                        // 'a' and 'A' from two utf8mb4_bin columns stay two rows.
                        let ty =
                            super::collation::in_set_operation_collation(SqlType::unify(&a.ty, &b.ty), &a.ty, &b.ty);
                        let not_null = crate::types::column_flags::NOT_NULL;
                        let nullable = a.meta.flags & not_null == 0 || b.meta.flags & not_null == 0;
                        let mut meta = computed_meta(&a.meta.name, &ty, nullable);
                        // Two integer columns: the wider one's length (MariaDB's type holder).
                        if let (SqlType::Int { .. }, SqlType::Int { .. }) = (&a.ty, &b.ty) {
                            if a.ty == b.ty {
                                meta.length = a.meta.length.max(b.meta.length);
                            }
                        }
                        // MariaDB reads a UNION DISTINCT, INTERSECT or EXCEPT back from a
                        // temporary table, whose numeric fields are not BINARY.
                        use crate::types::column_flags::{BINARY, NUM};
                        if (distinct || *op != ast::SetOperator::Union) && meta.flags & NUM != 0 {
                            meta.flags &= !BINARY;
                        }
                        OutputColumn { meta, ty }
                    })
                    .collect();
                let width = columns.len();
                let collations = distinct_collations(columns.iter().map(|c| &c.ty));
                let (l_root, r_root) = (
                    self.branch_as_result(l.root, &l.columns, &columns),
                    self.branch_as_result(r.root, &r.columns, &columns),
                );
                let (l, r) = (QueryPlan { root: l_root, ..l }, QueryPlan { root: r_root, ..r });
                let root = match op {
                    ast::SetOperator::Union => {
                        let concat = Plan::Concat(vec![l.root, r.root]);
                        if distinct {
                            Plan::Distinct { input: Box::new(concat), key_width: width, collations }
                        } else {
                            concat
                        }
                    }
                    // MINUS is EXCEPT only in Oracle mode.
                    ast::SetOperator::Minus => return Err(error::syntax("MINUS", 1)),
                    ast::SetOperator::Intersect | ast::SetOperator::Except => Plan::SetOp(Box::new(SetOpPlan {
                        left: l.root,
                        right: r.root,
                        intersect: *op == ast::SetOperator::Intersect,
                        all: !distinct,
                        collations,
                    })),
                };
                Ok(QueryPlan::new(root, columns, None, l.calc_found_rows))
            }
            other => Err(error::not_supported(&other.to_string())),
        }
    }

    /// A set operation's branch with its values as the result's types: a number or date under
    /// a string column is the string it prints as (so `'10' UNION 10` is one row, and a FLOAT
    /// or DATETIME(3) prints as its type does), an integer or DECIMAL under a DOUBLE column a
    /// double. Unchanged (no projection) when every column already is of its result's type.
    fn branch_as_result(&self, root: Plan, branch: &[OutputColumn], result: &[OutputColumn]) -> Plan {
        let mut changed = false;
        let exprs: Vec<Expr> = branch
            .iter()
            .zip(result)
            .enumerate()
            .map(|(i, (b, r))| {
                let column = Expr::Column(i);
                let e = match (&r.ty, &b.ty) {
                    (SqlType::Text { .. } | SqlType::Bytes { .. }, _) => {
                        self.as_result_of_type(Bound::new(column.clone(), b.ty.clone(), true), &r.ty).expr
                    }
                    (SqlType::Double, SqlType::Int { .. } | SqlType::Decimal { .. }) => {
                        Expr::Cast { expr: column.clone().boxed(), target: crate::value::CastTarget::Double }
                    }
                    _ => column.clone(),
                };
                changed |= e != column;
                e
            })
            .collect();
        if changed {
            Plan::Project { input: Box::new(root), exprs }
        } else {
            root
        }
    }

    fn in_branch_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, SqlError>) -> Result<T, SqlError> {
        let saved = std::mem::take(self.scope_mut());
        let r = f(self);
        let branch = std::mem::replace(self.scope_mut(), saved);
        self.scope_mut().correlated |= branch.correlated;
        r
    }

    /// ORDER BY / LIMIT applied to the result of a UNION or parenthesized query: positions and
    /// result column names only.
    fn order_limit_on_result(
        &mut self,
        plan: QueryPlan,
        order_by: Option<&[ast::OrderByExpr]>,
        limit: Option<LimitSpec>,
    ) -> Result<QueryPlan, SqlError> {
        let QueryPlan { mut root, columns, lock, calc_found_rows, .. } = plan;
        if let Some(items) = order_by {
            let mut keys = Vec::new();
            for it in items {
                let desc = it.options.sort == Some(ast::OrderBySort::Desc);
                let column = match &it.expr {
                    ast::Expr::Value(v) => match &v.value {
                        ast::Value::Number(n, _) => match n.parse::<usize>() {
                            Ok(p) if p >= 1 && p <= columns.len() => p - 1,
                            _ => return Err(error::unknown_column(n, Clause::OrderBy)),
                        },
                        _ => continue,
                    },
                    ast::Expr::Identifier(id) => columns
                        .iter()
                        .position(|c| c.meta.name.eq_ignore_ascii_case(&id.value))
                        .ok_or_else(|| error::unknown_column(&id.value, Clause::OrderBy))?,
                    ast::Expr::CompoundIdentifier(parts) => {
                        let last = parts.last().map(|p| p.value.as_str()).unwrap_or("");
                        columns
                            .iter()
                            .position(|c| c.meta.name.eq_ignore_ascii_case(last))
                            .ok_or_else(|| error::unknown_column(&it.expr.to_string(), Clause::OrderBy))?
                    }
                    other => return Err(error::not_supported(&format!("ORDER BY {other} on a UNION result"))),
                };
                keys.push(SortKey { column, desc });
            }
            if !keys.is_empty() {
                // Strings of a collation that weighs characters sort by their sort keys,
                // appended as hidden columns for the sort.
                let width = columns.len();
                let mut exprs: Vec<Expr> = (0..width).map(Expr::Column).collect();
                for k in &mut keys {
                    let ty = &columns[k.column].ty;
                    if super::collation::grouping_collation(ty).is_some() {
                        exprs.push(super::collation::ordering_key(Expr::Column(k.column), ty));
                        k.column = exprs.len() - 1;
                    }
                }
                let hidden = exprs.len() > width;
                if hidden {
                    root = Plan::Project { input: Box::new(root), exprs };
                }
                root = Plan::Sort { input: Box::new(root), keys, limit: limit.clone() };
                if hidden {
                    root = Plan::Trim { input: Box::new(root), width };
                }
            }
        }
        if let Some(l) = limit {
            root = Plan::Limit { input: Box::new(root), limit: l };
        }
        Ok(QueryPlan::new(root, columns, lock, calc_found_rows))
    }

    fn bind_limit(&mut self, l: &ast::LimitClause) -> Result<LimitSpec, SqlError> {
        let (count, offset) = match l {
            ast::LimitClause::LimitOffset { limit, offset, limit_by } => {
                if !limit_by.is_empty() {
                    return Err(error::not_supported("LIMIT BY"));
                }
                (limit.as_ref(), offset.as_ref().map(|o| &o.value))
            }
            ast::LimitClause::OffsetCommaLimit { offset, limit } => (Some(limit), Some(offset)),
        };
        let mut one = |e: Option<&ast::Expr>| -> Result<Option<Expr>, SqlError> {
            let Some(e) = e else {
                return Ok(None);
            };
            let b = self.bind_expr(e)?;
            match &b.expr {
                Expr::Literal(Value::Int(i)) if *i >= 0 => Ok(Some(b.expr)),
                Expr::Literal(Value::UInt(_)) | Expr::Param(_) => Ok(Some(b.expr)),
                Expr::Literal(Value::Null) if matches!(e, ast::Expr::Value(v) if matches!(v.value, ast::Value::Null)) => {
                    Err(error::syntax("NULL", 1))
                }
                _ => Err(error::syntax(&e.to_string(), 1)),
            }
        };
        Ok(LimitSpec { count: one(count)?, offset: one(offset)? })
    }

    pub fn bind_select(
        &mut self,
        sel: &ast::Select,
        order_by: Option<&[ast::OrderByExpr]>,
        limit: Option<LimitSpec>,
        lock: Option<LockMode>,
    ) -> Result<QueryPlan, SqlError> {
        reject_unsupported_select(sel)?;
        let distinct = match &sel.distinct {
            None | Some(ast::Distinct::All) => false,
            Some(ast::Distinct::Distinct) => true,
            Some(ast::Distinct::On(_)) => return Err(error::not_supported("DISTINCT ON")),
        };
        let calc_found_rows =
            sel.select_modifiers.as_ref().is_some_and(|m| m.sql_calc_found_rows) && self.scopes.len() == 1;

        // FROM and WHERE.
        let tree = self.bind_from(&sel.from)?;
        self.set_clause(Clause::Where);
        self.scope_mut().allow_aggs = false;
        let where_bound = sel.selection.as_ref().map(|w| self.bind_condition(w)).transpose()?;

        // Select list.
        self.set_named_windows(&sel.named_window)?;
        self.set_clause(Clause::Select);
        self.scope_mut().allow_aggs = true;
        self.scope_mut().allow_windows = true;
        let items = self.bind_select_items(sel)?;
        self.scope_mut().allow_windows = false;
        self.aliases = items.iter().filter_map(|it| it.alias.clone().map(|a| (a, it.bound.clone()))).collect();

        // GROUP BY.
        self.set_clause(Clause::GroupBy);
        self.scope_mut().allow_aggs = false;
        let mut group_collations = Vec::new();
        let mut rollup = false;
        let group_by = match &sel.group_by {
            ast::GroupByExpr::Expressions(exprs, modifiers) => {
                for m in modifiers {
                    match m {
                        ast::GroupByWithModifier::Rollup => rollup = true,
                        other => return Err(error::not_supported(&format!("GROUP BY ... {other}"))),
                    }
                }
                let mut out = Vec::with_capacity(exprs.len());
                for e in exprs {
                    let (expr, collation) = self.bind_group_item(e, &items)?;
                    out.push(expr);
                    group_collations.push(collation);
                }
                out
            }
            ast::GroupByExpr::All(_) => return Err(error::not_supported("GROUP BY ALL")),
        };

        // HAVING.
        self.set_clause(Clause::Having);
        self.scope_mut().allow_aggs = true;
        self.alias_mode = AliasMode::Prefer;
        let having = sel.having.as_ref().map(|h| self.bind_condition(h)).transpose();
        self.alias_mode = AliasMode::None;
        let having = having?;
        // An alias of a window function names it in GROUP BY / HAVING too (4015, as MariaDB).
        let reads_window = |e: &Expr| e.any(&mut |x| matches!(x, Expr::WindowRef(_)));
        if group_by.iter().chain(having.as_ref().map(|h| &h.expr)).any(reads_window) {
            return Err(error::window_function_misplaced());
        }

        // ORDER BY: a select item (by position, alias or equal expression) or a hidden column.
        self.set_clause(Clause::OrderBy);
        self.scope_mut().allow_windows = true;
        let mut sort_keys: Vec<SortKey> = Vec::new();
        let mut hidden: Vec<Expr> = Vec::new();
        let mut order_columns: Vec<(Expr, bool)> = Vec::new();
        for it in order_by.unwrap_or(&[]) {
            let desc = it.options.sort == Some(ast::OrderBySort::Desc);
            let b = match position_literal(&it.expr) {
                Some(Ok(p)) if p >= 1 && p <= items.len() => items[p - 1].bound.clone(),
                Some(_) => return Err(error::unknown_column(&it.expr.to_string(), Clause::OrderBy)),
                None => {
                    self.alias_mode = AliasMode::Prefer;
                    let b = self.bind_expr(&it.expr);
                    self.alias_mode = AliasMode::None;
                    b?
                }
            };
            // TIME text does not sort as time ('-1:00' after '0:00', '100:00' before '99:00'):
            // sort by microseconds (outside grouping, where a hidden column must be grouped).
            // An ENUM sorts by its index, a SET column by its bit mask; strings of a `_ci`
            // collation by their sort keys.
            let grouping = !group_by.is_empty() || !self.scope().aggs.is_empty();
            let expr = match &b.ty {
                SqlType::Time { .. } if !grouping => {
                    Expr::Cast { expr: b.expr.boxed(), target: crate::value::CastTarget::TimeMicros }
                }
                SqlType::Enum { .. } if !grouping => self.enum_index(b)?.expr,
                _ if !grouping && self.set_column_members(&b).is_some() => self.set_as_number(b).expr,
                _ => super::collation::ordering_key(b.expr, &b.ty),
            };
            if let Expr::Literal(_) = expr {
                // ORDER BY NULL / a constant: no order at all.
                continue;
            }
            let column = match items.iter().position(|x| x.bound.expr == expr) {
                Some(p) => p,
                None => {
                    hidden.push(expr.clone());
                    items.len() + hidden.len() - 1
                }
            };
            order_columns.push((expr, desc));
            sort_keys.push(SortKey { column, desc });
        }
        self.aliases.clear();
        self.scope_mut().allow_aggs = false;
        self.scope_mut().allow_windows = false;

        if rollup && !sort_keys.is_empty() {
            return Err(error::rollup_with_order_by());
        }
        let aggs = std::mem::take(&mut self.scope_mut().aggs);
        let mut windows = std::mem::take(&mut self.scope_mut().windows);
        let is_agg = !aggs.is_empty() || !group_by.is_empty();

        // Plan FROM + WHERE; a single table may deliver the ORDER BY order itself.
        let mut conjuncts = Vec::new();
        if let Some(w) = where_bound {
            w.expr.into_conjuncts(&mut conjuncts);
            let scope = self.scope();
            let integer_column = |c: usize| {
                scope.sources.iter().any(|s| {
                    c >= s.offset
                        && c < s.offset + s.width()
                        && matches!(s.columns[c - s.offset].ty, SqlType::Int { .. })
                })
            };
            let param_types = self.param_types;
            // Untyped parameters (a prepared statement's plan for every execution, and text
            // statements' numbers made parameters by parse::autoparam) are copied too.
            let integer_param = |i: usize| match param_types {
                None => true,
                Some(t) => matches!(t.get(i), Some(SqlType::Int { .. })),
            };
            add_implied_constants(&mut conjuncts, &integer_column, &integer_param);
        }
        // Window functions reorder rows: an access cannot deliver the final order.
        let order_req = if !is_agg && windows.is_empty() && !sort_keys.is_empty() {
            self.order_request(&order_columns, limit.is_some())
        } else {
            None
        };
        let (mut plan, ordered) = self.plan_from(tree.as_ref(), conjuncts, order_req.as_ref())?;

        let mut select_exprs: Vec<Expr> = items.iter().map(|i| i.bound.expr.clone()).collect();
        let mut window_base = self.scope().width;
        if is_agg {
            let g = group_by.len();
            let a = aggs.len();
            let input_width = self.scope().width;
            let post = |e: Expr| post_aggregate(e, &group_by, g, a);
            select_exprs = select_exprs.into_iter().map(post).collect::<Result<_, _>>()?;
            hidden = hidden.into_iter().map(post).collect::<Result<_, _>>()?;
            let having = having.map(|h| post(h.expr)).transpose()?;
            for w in &mut windows {
                post_aggregate_window(w, &post)?;
            }
            window_base = g + a + input_width;
            if self.env.only_full_group_by {
                // ONLY_FULL_GROUP_BY: no column outside GROUP BY and aggregates may be read.
                for e in select_exprs.iter().chain(hidden.iter()).chain(having.iter()) {
                    let mut bad = None;
                    e.columns(&mut |c| {
                        if c >= g + a && bad.is_none() {
                            bad = Some(c - g - a);
                        }
                    });
                    if let Some(c) = bad {
                        return Err(error::not_in_group_by(&self.qualified_column_name(c)));
                    }
                }
            }
            plan = Plan::Aggregate(Box::new(AggregatePlan {
                input: plan,
                input_width,
                group_by: group_by.clone(),
                aggs,
                sort_groups: sort_keys.is_empty() && !group_by.is_empty(),
                group_collations,
                rollup,
            }));
            if let Some(h) = having {
                plan = Plan::Filter { input: Box::new(plan), predicate: h };
            }
        } else if let Some(h) = having {
            plan = Plan::Filter { input: Box::new(plan), predicate: h.expr };
        }

        let has_windows = !windows.is_empty();
        if has_windows {
            // The window node appends one value per function to the rows it reads.
            let to_column = &mut |e: Expr| match e {
                Expr::WindowRef(j) => Ok(Expr::Column(window_base + j)),
                other => Ok(other),
            };
            select_exprs = select_exprs.into_iter().map(|e| e.rewrite(to_column)).collect::<Result<_, _>>()?;
            hidden = hidden.into_iter().map(|e| e.rewrite(to_column)).collect::<Result<_, _>>()?;
            plan = Plan::Window(Box::new(WindowPlan { input: plan, funcs: windows }));
        }
        let visible = select_exprs.len();
        let has_hidden = !hidden.is_empty();
        select_exprs.extend(hidden);
        plan = Plan::Project { input: Box::new(plan), exprs: select_exprs };
        if distinct {
            let collations = distinct_collations(items.iter().map(|i| &i.bound.ty));
            plan = Plan::Distinct { input: Box::new(plan), key_width: visible, collations };
        }
        let found_rows_limit =
            if calc_found_rows { Some(limit.clone().unwrap_or(LimitSpec { count: None, offset: None })) } else { None };
        let applied_limit = if calc_found_rows { None } else { limit };
        if !sort_keys.is_empty() && !ordered {
            plan = Plan::Sort { input: Box::new(plan), keys: sort_keys, limit: applied_limit.clone() };
        }
        if let Some(l) = applied_limit {
            plan = Plan::Limit { input: Box::new(plan), limit: l };
        }
        if has_hidden {
            plan = Plan::Trim { input: Box::new(plan), width: visible };
        }
        let columns = items
            .into_iter()
            .map(|it| {
                let ty = it.bound.ty.clone();
                let reads_window = it.bound.expr.any(&mut |e| matches!(e, Expr::WindowRef(_)));
                let is_window = matches!(it.bound.expr, Expr::WindowRef(_));
                let mut meta = item_meta(it.bound, it.name, it.hints);
                if has_windows && !is_window {
                    item_meta::through_window_table(&mut meta, reads_window);
                }
                OutputColumn { meta, ty }
            })
            .collect();
        Ok(QueryPlan::new(plan, columns, lock, found_rows_limit))
    }

    fn bind_select_items(&mut self, sel: &ast::Select) -> Result<Vec<SelectItem>, SqlError> {
        let mut raw_texts: Option<Option<Vec<String>>> = None;
        self.bind_items(&sel.projection, &mut |text, pos| {
            raw_texts.get_or_insert_with(|| text.select_item_texts(sel)).as_ref().and_then(|t| t.get(pos).cloned())
        })
    }

    /// Binds a select list; `raw_text(pos)` gives the text of item `pos` as written, which
    /// names an unaliased computed column.
    fn bind_items(
        &mut self,
        projection: &[ast::SelectItem],
        raw_text: &mut dyn FnMut(&super::names::SourceText, usize) -> Option<String>,
    ) -> Result<Vec<SelectItem>, SqlError> {
        let mut items = Vec::with_capacity(projection.len());
        for (pos, item) in projection.iter().enumerate() {
            match item {
                ast::SelectItem::UnnamedExpr(e) => {
                    let mut bound = self.bind_expr(e)?;
                    if let Some(ty) = self.bare_user_var_type(e, &bound) {
                        bound.ty = ty;
                    }
                    let needs_text = !matches!(e, ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_));
                    let raw = if needs_text { raw_text(&self.text, pos) } else { None };
                    let name = names::item_name(e, raw.as_deref());
                    items.push(SelectItem { bound, name, alias: None, hints: item_meta::hints(e) });
                }
                ast::SelectItem::ExprWithAlias { expr, alias } => {
                    let mut bound = self.bind_expr(expr)?;
                    if let Some(ty) = self.bare_user_var_type(expr, &bound) {
                        bound.ty = ty;
                    }
                    let hints = item_meta::hints(expr);
                    let alias = Some(alias.value.clone());
                    items.push(SelectItem { bound, name: alias.clone().unwrap_or_default(), alias, hints });
                }
                ast::SelectItem::Wildcard(opts) => {
                    reject_wildcard_options(opts)?;
                    self.expand_wildcard(None, &mut items)?;
                }
                ast::SelectItem::QualifiedWildcard(kind, opts) => {
                    reject_wildcard_options(opts)?;
                    let ast::SelectItemQualifiedWildcardKind::ObjectName(name) = kind else {
                        return Err(error::not_supported(&item.to_string()));
                    };
                    self.expand_wildcard(Some(name), &mut items)?;
                }
                ast::SelectItem::ExprWithAliases { .. } => return Err(error::not_supported(&item.to_string())),
            }
        }
        Ok(items)
    }

    /// The RETURNING list of INSERT / REPLACE / DELETE over the target table, which must be
    /// the current scope's only source: each item's expression on a table row, and the result
    /// columns, described as the same list in a SELECT from the table (MariaDB sends the same
    /// metadata).
    pub fn bind_returning(&mut self, projection: &[ast::SelectItem]) -> Result<Returning, SqlError> {
        self.set_clause(Clause::Returning);
        let texts = self.text.returning_item_texts(projection.len());
        let items =
            self.bind_items(projection, &mut |_, pos| texts.as_ref().and_then(|t: &Vec<String>| t.get(pos).cloned()))?;
        let exprs = items.iter().map(|i| i.bound.expr.clone()).collect();
        let metas = items.into_iter().map(|it| item_meta(it.bound, it.name, it.hints)).collect();
        Ok(Returning { exprs, metas })
    }

    fn expand_wildcard(
        &mut self,
        qualifier: Option<&ast::ObjectName>,
        items: &mut Vec<SelectItem>,
    ) -> Result<(), SqlError> {
        let q = qualifier.map(super::binder::object_name_parts).transpose()?;
        let scope = self.scope();
        let mut matched = false;
        for s in &scope.sources {
            if let Some((db, t)) = &q {
                if s.name != *t || db.as_ref().is_some_and(|d| s.db.as_deref() != Some(d.as_str())) {
                    continue;
                }
            }
            matched = true;
            for (i, c) in s.columns.iter().enumerate() {
                if c.hidden && q.is_none() {
                    continue;
                }
                let bound = Bound {
                    expr: Expr::Column(s.offset + i),
                    ty: c.ty.clone(),
                    nullable: c.nullable || s.nullable,
                    origin: Some(Box::new(c.meta.clone())),
                    derivation: Expr::Column(0).derivation(&c.ty),
                };
                // The column's own metadata travels in `origin`.
                items.push(SelectItem { bound, name: c.name.clone(), alias: None, hints: MetaHints::NONE });
            }
        }
        if !matched {
            return Err(match q {
                Some((db, t)) => {
                    let db = db.or_else(|| self.env.current_db.map(str::to_string));
                    error::unknown_table(&match db {
                        Some(d) => format!("{d}.{t}"),
                        None => t,
                    })
                }
                // `SELECT *` without FROM.
                None => SqlError::new(1096, "HY000", "No tables used"),
            });
        }
        Ok(())
    }

    /// A GROUP BY item, and the collation its strings group in when it weighs characters.
    fn bind_group_item(
        &mut self,
        e: &ast::Expr,
        items: &[SelectItem],
    ) -> Result<(Expr, Option<crate::charset::Collation>), SqlError> {
        if let Some(p) = position_literal(e) {
            return match p {
                Ok(p) if p >= 1 && p <= items.len() => {
                    let expr = items[p - 1].bound.expr.clone();
                    if expr.has_aggregate() {
                        return Err(SqlError::new(1056, "42000", format!("Can't group on '{}'", items[p - 1].name)));
                    }
                    Ok((expr, super::collation::grouping_collation(&items[p - 1].bound.ty)))
                }
                _ => Err(error::unknown_column(&e.to_string(), Clause::GroupBy)),
            };
        }
        self.alias_mode = AliasMode::Fallback;
        let b = self.bind_expr(e);
        self.alias_mode = AliasMode::None;
        let b = b?;
        if b.expr.has_aggregate() {
            return Err(error::invalid_group_function());
        }
        Ok((b.expr, super::collation::grouping_collation(&b.ty)))
    }

    /// `db.table.column` of a FROM column, as MariaDB names it in 1055.
    fn qualified_column_name(&self, col: usize) -> String {
        let scope = self.scope();
        match scope.source_of_column(col) {
            Some(si) => {
                let s = &scope.sources[si];
                let name = &s.columns[col - s.offset].name;
                match &s.db {
                    Some(db) => format!("{db}.{}.{name}", s.name),
                    None => format!("{}.{name}", s.name),
                }
            }
            None => format!("column {col}"),
        }
    }

    /// An ORDER BY that a single-table access could deliver: plain columns, one direction.
    fn order_request(&self, order: &[(Expr, bool)], has_limit: bool) -> Option<OrderRequest> {
        let scope = self.scope();
        if scope.sources.len() != 1 || !matches!(scope.sources[0].kind, SourceKind::Table { .. }) {
            return None;
        }
        crate::plan::access::order_request(order, has_limit)
    }
}

/// `ORDER BY 2` / `GROUP BY 1`: a position, if the expression is an integer literal.
fn position_literal(e: &ast::Expr) -> Option<Result<usize, ()>> {
    match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) => Some(n.parse::<usize>().map_err(|_| ())),
            _ => None,
        },
        _ => None,
    }
}

fn lock_mode(locks: &[ast::LockClause]) -> Result<(Option<LockMode>, LockWait), SqlError> {
    let Some(l) = locks.first() else {
        return Ok((None, LockWait::Default));
    };
    let mut wait = match l.nonblock {
        None => LockWait::Default,
        Some(ast::NonBlock::Nowait) => LockWait::NoWait,
        Some(ast::NonBlock::SkipLocked) => LockWait::SkipLocked,
    };
    if let Some(of) = &l.of {
        // `WAIT n` reaches here as a table name (crate::parse::lock_wait_as_of).
        match crate::parse::lock_wait_of(of) {
            Some(timeout) if wait == LockWait::Default => wait = LockWait::Timeout(timeout),
            _ => return Err(error::not_supported("FOR UPDATE OF")),
        }
    }
    let mode = match l.lock_type {
        ast::LockType::Update => LockMode::Exclusive,
        ast::LockType::Share => LockMode::Shared,
    };
    Ok((Some(mode), wait))
}

fn reject_wildcard_options(o: &ast::WildcardAdditionalOptions) -> Result<(), SqlError> {
    if o.opt_ilike.is_some()
        || o.opt_exclude.is_some()
        || o.opt_except.is_some()
        || o.opt_replace.is_some()
        || o.opt_rename.is_some()
    {
        return Err(error::not_supported("wildcard modifiers"));
    }
    Ok(())
}

fn reject_unsupported_select(sel: &ast::Select) -> Result<(), SqlError> {
    if sel.into.is_some() {
        return Err(error::not_supported("SELECT ... INTO"));
    }
    if sel.top.is_some()
        || !sel.lateral_views.is_empty()
        || sel.prewhere.is_some()
        || !sel.cluster_by.is_empty()
        || !sel.distribute_by.is_empty()
        || !sel.sort_by.is_empty()
        || sel.qualify.is_some()
        || sel.value_table_mode.is_some()
    {
        return Err(error::not_supported(&sel.to_string()));
    }
    Ok(())
}

/// Moves an expression bound on the FROM row onto the aggregate's output row: GROUP BY
/// expressions become their output column, aggregates theirs, and remaining FROM columns read
/// the group's first row.
fn post_aggregate(e: Expr, groups: &[Expr], g: usize, a: usize) -> Result<Expr, SqlError> {
    if !matches!(e, Expr::Literal(_)) {
        if let Some(i) = groups.iter().position(|x| *x == e) {
            return Ok(Expr::Column(i));
        }
    }
    match e {
        Expr::AggRef(j) => Ok(Expr::Column(g + j)),
        Expr::Column(c) => Ok(Expr::Column(g + a + c)),
        Expr::Subquery(mut sq) => {
            sq.outer_offset = g + a;
            Expr::Subquery(sq).map_children(&mut |c| post_aggregate(c, groups, g, a))
        }
        other => other.map_children(&mut |c| post_aggregate(c, groups, g, a)),
    }
}

/// `post_aggregate` applied to a window function's expressions.
fn post_aggregate_window(
    w: &mut crate::plan::WindowSpec,
    post: &dyn Fn(Expr) -> Result<Expr, SqlError>,
) -> Result<(), SqlError> {
    use crate::plan::FrameBound;
    let take = |e: &mut Expr| -> Result<(), SqlError> {
        *e = post(std::mem::replace(e, Expr::Literal(Value::Null)))?;
        Ok(())
    };
    w.args.iter_mut().try_for_each(take)?;
    w.partition.iter_mut().try_for_each(take)?;
    w.order.iter_mut().try_for_each(|(e, _)| take(e))?;
    for b in [&mut w.frame.start, &mut w.frame.end] {
        if let FrameBound::Preceding(e) | FrameBound::Following(e) = b {
            take(e)?;
        }
    }
    Ok(())
}

/// DISTINCT's per-column collations: empty when every column compares as bytes or values.
fn distinct_collations<'t>(types: impl Iterator<Item = &'t SqlType>) -> Vec<Option<crate::charset::Collation>> {
    let collations: Vec<_> = types.map(super::collation::grouping_collation).collect();
    if collations.iter().any(Option::is_some) {
        collations
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_aggregate_maps_groups_aggregates_and_first_row() {
        let groups = vec![Expr::Column(3)];
        // SELECT k, COUNT(*), c ... GROUP BY k: k → out 0, COUNT(*) → out 1, c (col 2) → first row.
        assert_eq!(post_aggregate(Expr::Column(3), &groups, 1, 1).unwrap(), Expr::Column(0));
        assert_eq!(post_aggregate(Expr::AggRef(0), &groups, 1, 1).unwrap(), Expr::Column(1));
        assert_eq!(post_aggregate(Expr::Column(2), &groups, 1, 1).unwrap(), Expr::Column(4));
        let e = Expr::Not(Expr::Column(3).boxed());
        assert_eq!(post_aggregate(e, &groups, 1, 1).unwrap(), Expr::Not(Expr::Column(0).boxed()));
    }
}
