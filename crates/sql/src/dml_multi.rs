//! Multi-table UPDATE and DELETE (`UPDATE a JOIN b ON ... SET a.x=..., b.y=...`,
//! `DELETE a, b FROM a JOIN b ...`, `DELETE FROM a USING a JOIN b ...`).
//!
//! The FROM clause is planned as a SELECT's is; its rows (the latest versions, as single-table
//! UPDATE / DELETE read) are collected first, in a buffer that spills to @@tmpdir, so that no
//! change can feed back into the join (Halloween problem). Then each joined row is met in turn
//! and, for each target table, the row of that table it holds is locked and changed, once: a
//! row that several joined rows hold is changed by the first of them, as MariaDB does (its
//! "rows matched" counts distinct rows of all targets). A target's SET expressions see the
//! joined row as it was read, with the target's own columns replaced by the locked version and
//! its earlier assignments, so `SET a.v=a.v+1, b.w=a.v` gives b the old `a.v`, as in MariaDB.

use std::collections::HashSet;
use std::sync::Arc;

use selkie_storage::{keycodec, ColumnType, LockMode, ReadMode, TableDef};
use sqlparser::ast;

use crate::bind::{Binder, SourceKind};
use crate::constraints::TableRules;
use crate::dml::{self, DmlOutcome, InfoKind, UpdateTarget};
use crate::error::{self, Clause, SqlError};
use crate::exec::access::{session_row, session_value};
use crate::exec::ctx::ExecCtx;
use crate::exec::sort::Sorter;
use crate::exec::{eval_limit, Step};
use crate::generated::GeneratedValues;
use crate::parse::lexer::{self, Tok};
use crate::plan::{Expr, LimitSpec, Plan, SortKey};
use crate::types::Value;

/// A table a multi-table statement changes, under one alias of the FROM clause.
#[derive(Debug)]
pub struct Target {
    pub table: Arc<TableDef>,
    /// Where the table's columns start in the FROM row.
    pub offset: usize,
    /// UPDATE's assignments to this table: (column of the table, expression on the FROM row).
    pub assignments: Vec<(usize, Expr)>,
    pub rules: Option<Arc<TableRules>>,
    pub generated: Option<Arc<GeneratedValues>>,
}

#[derive(Debug)]
pub struct MultiUpdatePlan {
    /// The joined rows, in FROM layout.
    pub from: Plan,
    /// In the order of the FROM clause.
    pub targets: Vec<Target>,
    pub order: Vec<(Expr, bool)>,
    pub limit: Option<LimitSpec>,
    pub ignore: bool,
}

#[derive(Debug)]
pub struct MultiDeletePlan {
    pub from: Plan,
    pub targets: Vec<Target>,
    pub ignore: bool,
}

/// Whether an UPDATE names more than one table (or a parenthesized join).
pub fn is_multi_update(u: &ast::Update) -> bool {
    !u.table.joins.is_empty() || matches!(u.table.relation, ast::TableFactor::NestedJoin { .. })
}

/// Whether a DELETE is of the multi-table forms (targets before FROM, or USING).
pub fn is_multi_delete(d: &ast::Delete) -> bool {
    let from = match &d.from {
        ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
    };
    !d.tables.is_empty() || d.using.is_some() || from.len() != 1 || from.iter().any(|t| !t.joins.is_empty())
}

/// The target for FROM source `source`, added to `targets` (kept in FROM order) if new.
fn target_for<'t>(
    b: &Binder,
    targets: &'t mut Vec<(usize, Target)>,
    source: usize,
    verb: &str,
) -> Result<&'t mut Target, SqlError> {
    let src = &b.scope().sources[source];
    let SourceKind::Table { table, .. } = &src.kind else {
        return Err(error::target_not_updatable(&src.name, verb));
    };
    if table.has_hidden_pk() || table.primary.columns.iter().any(|c| c.prefix_len.is_some()) {
        // Rows are found again by their primary key values, which such a table's rows do not
        // carry in full.
        return Err(error::not_supported(&format!("multi-table {verb} of a table without a full PRIMARY KEY")));
    }
    let at = match targets.iter().position(|(s, _)| *s >= source) {
        Some(i) if targets[i].0 == source => i,
        found => {
            let at = found.unwrap_or(targets.len());
            let target = Target {
                table: table.clone(),
                offset: src.offset,
                assignments: Vec::new(),
                rules: crate::constraints::rules_for(b.env.catalog, table)?,
                generated: crate::generated::values_for(b.env.catalog, table)?,
            };
            targets.insert(at, (source, target));
            at
        }
    };
    Ok(&mut targets[at].1)
}

/// The WHERE clause's conjuncts on the FROM row.
fn bind_where(b: &mut Binder, selection: Option<&ast::Expr>) -> Result<Vec<Expr>, SqlError> {
    b.set_clause(Clause::Where);
    let mut conjuncts = Vec::new();
    if let Some(w) = selection {
        b.bind_condition(w)?.expr.into_conjuncts(&mut conjuncts);
    }
    Ok(conjuncts)
}

/// Binds a multi-table UPDATE. The binder must have one (empty) scope pushed.
pub fn bind_update(b: &mut Binder, u: &ast::Update, ignore: bool) -> Result<MultiUpdatePlan, SqlError> {
    if u.returning.is_some() || u.from.is_some() || u.or.is_some() {
        return Err(error::not_supported(&u.to_string()));
    }
    let tree = b.bind_from(std::slice::from_ref(&u.table))?;
    b.set_clause(Clause::Set);
    let mut targets: Vec<(usize, Target)> = Vec::new();
    for a in &u.assignments {
        let pos = dml::assigned_column(b, a)?;
        let Some(source) = b.scope().source_of_column(pos) else {
            return Err(error::internal("assigned column outside the FROM row"));
        };
        let column = pos - b.scope().sources[source].offset;
        let e = {
            let target = target_for(b, &mut targets, source, "UPDATE")?;
            let col = target.table.columns[column].clone();
            if dml::is_default_keyword(&a.value) {
                dml::default_expr(b, &col)?
            } else {
                b.bind_expr(&a.value)?.expr
            }
        };
        target_for(b, &mut targets, source, "UPDATE")?.assignments.push((column, e));
    }
    let conjuncts = bind_where(b, u.selection.as_ref())?;
    b.set_clause(Clause::OrderBy);
    let mut order = Vec::new();
    for o in &u.order_by {
        let bound = b.bind_expr(&o.expr)?;
        order.push((crate::bind::ordering_key(bound.expr, &bound.ty), o.options.sort == Some(ast::OrderBySort::Desc)));
    }
    let limit = match &u.limit {
        None => None,
        Some(l) => {
            let e = b.bind_expr(l)?.expr;
            match &e {
                Expr::Literal(Value::Int(i)) if *i >= 0 => {}
                Expr::Literal(Value::UInt(_)) | Expr::Param(_) => {}
                _ => return Err(error::syntax(&l.to_string(), 1)),
            }
            Some(LimitSpec { count: Some(e), offset: None })
        }
    };
    let (from, _) = b.plan_from(tree.as_ref(), conjuncts, None)?;
    let targets = targets.into_iter().map(|(_, t)| t).collect();
    Ok(MultiUpdatePlan { from, targets, order, limit, ignore })
}

/// Binds a multi-table DELETE. The binder must have one (empty) scope pushed.
pub fn bind_delete(b: &mut Binder, d: &ast::Delete, ignore: bool) -> Result<MultiDeletePlan, SqlError> {
    // MariaDB's grammar has no ORDER BY, LIMIT or RETURNING for the multi-table forms.
    if !d.order_by.is_empty() || d.limit.is_some() || d.returning.is_some() {
        let near = clause_text(b.text.text(), &["ORDER", "LIMIT", "RETURNING"]).unwrap_or("");
        return Err(error::syntax(near, 1));
    }
    let from = match &d.from {
        ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
    };
    // `DELETE a, b FROM <join>` or `DELETE FROM a, b USING <join>`.
    let (names, joined): (Vec<&ast::ObjectName>, &[ast::TableWithJoins]) = if !d.tables.is_empty() {
        (d.tables.iter().collect(), from)
    } else if let Some(using) = &d.using {
        let mut names = Vec::new();
        for t in from {
            match &t.relation {
                ast::TableFactor::Table { name, .. } if t.joins.is_empty() => names.push(name),
                _ => return Err(error::syntax(&t.to_string(), 1)),
            }
        }
        (names, using)
    } else {
        return Err(error::syntax(&from.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", "), 1));
    };
    let tree = b.bind_from(joined)?;
    let mut targets: Vec<(usize, Target)> = Vec::new();
    for name in names {
        let (db, table) = crate::bind::object_name_parts(name)?;
        let source = b.scope().sources.iter().position(|s| {
            s.name.eq_ignore_ascii_case(&table) && db.as_deref().is_none_or(|d| s.db.as_deref() == Some(d))
        });
        let Some(source) = source else {
            return Err(error::unknown_table_in_multi_delete(&table));
        };
        target_for(b, &mut targets, source, "DELETE")?;
    }
    let conjuncts = bind_where(b, d.selection.as_ref())?;
    // 1093: MariaDB refuses a WHERE subquery that reads a table the statement deletes from.
    for (_, t) in &targets {
        if conjuncts.iter().any(|c| crate::plan::expr_reads_table(c, t.table.id)) {
            return Err(error::target_is_source(&t.table.name, "DELETE"));
        }
    }
    let (from, _) = b.plan_from(tree.as_ref(), conjuncts, None)?;
    let targets = targets.into_iter().map(|(_, t)| t).collect();
    Ok(MultiDeletePlan { from, targets, ignore })
}

/// The text from the first top-level word of `words` to the end (for a 1064's "near").
fn clause_text<'t>(text: &'t str, words: &[&str]) -> Option<&'t str> {
    let mut depth = 0i32;
    for (tok, off) in lexer::tokenize(text)? {
        match tok {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            t if depth == 0 && words.iter().any(|w| t.is_word(w)) => {
                return Some(text[off..].trim_end().trim_end_matches(';').trim_end())
            }
            _ => {}
        }
    }
    None
}

// ---- execution ----

/// The joined rows, each after its ORDER BY values and its sequence number (so that equal
/// keys keep the join's order, which decides which joined row changes a row first).
async fn joined_rows(from: &Plan, order: &[(Expr, bool)], cx: &mut ExecCtx<'_>) -> Result<Sorter<'static>, SqlError> {
    let keys: Vec<SortKey> = (0..=order.len())
        .map(|column| SortKey { column, desc: order.get(column).is_some_and(|(_, desc)| *desc) })
        .collect();
    let mut sorter = Sorter::new(keys, cx.sort_budget(), None);
    let saved = cx.read_mode;
    cx.read_mode = ReadMode::Latest;
    let r = collect_joined(from, order, &mut sorter, cx).await;
    cx.read_mode = saved;
    r?;
    sorter.finish(cx)?;
    Ok(sorter)
}

async fn collect_joined(
    from: &Plan,
    order: &[(Expr, bool)],
    sorter: &mut Sorter<'static>,
    cx: &mut ExecCtx<'_>,
) -> Result<(), SqlError> {
    let mut op = from.open(cx)?;
    let mut seq = 0u64;
    loop {
        match op.next(cx)? {
            Step::Row(row) => {
                let mut entry = Vec::with_capacity(order.len() + 1 + row.len());
                for (e, _) in order {
                    entry.push(e.eval(&row, cx)?);
                }
                entry.push(Value::UInt(seq));
                seq += 1;
                entry.extend(row);
                sorter.push(entry, cx)?;
            }
            Step::Done => return Ok(()),
            Step::Pause => cx.pause().await?,
        }
    }
}

/// The next joined row (without its sort prefix of `prefix` values).
async fn next_joined(
    sorter: &mut Sorter<'static>,
    prefix: usize,
    cx: &mut ExecCtx<'_>,
) -> Result<Option<Vec<Value>>, SqlError> {
    loop {
        match sorter.next(cx)? {
            Step::Row(mut entry) => return Ok(Some(entry.split_off(prefix))),
            Step::Done => return Ok(None),
            Step::Pause => cx.pause().await?,
        }
    }
}

/// The clustered key of the target's row in a joined row; None for the NULL row of an outer
/// join.
fn target_key(t: &Target, joined: &[Value], cx: &ExecCtx) -> Result<Option<Vec<u8>>, SqlError> {
    let mut pk = Vec::with_capacity(t.table.primary.columns.len());
    for ic in &t.table.primary.columns {
        let v = &joined[t.offset + ic.column];
        if v.is_null() {
            return Ok(None);
        }
        // The row holds TIMESTAMPs in the session's zone; the key, in UTC.
        let v = match (&t.table.columns[ic.column].ty, v) {
            (ColumnType::Timestamp { .. }, Value::DateTime(dt)) => {
                match crate::value::utc_of_session(*dt, cx.env.vars.time_zone()) {
                    Some(utc) => Value::DateTime(utc),
                    None => return Ok(None),
                }
            }
            _ => v.clone(),
        };
        pk.push(v);
    }
    Ok(Some(keycodec::primary_key_from_values(&t.table, &pk)?))
}

/// Multi-table UPDATE. Strict mode applies unless IGNORE was given.
pub async fn execute_update(plan: &MultiUpdatePlan, cx: &mut ExecCtx<'_>) -> Result<DmlOutcome, SqlError> {
    let strict = !plan.ignore && cx.sql_mode_is_strict();
    let saved_strict = cx.set_strict(strict);
    let r = update_rows(plan, cx).await;
    cx.set_strict(saved_strict);
    r
}

async fn update_rows(plan: &MultiUpdatePlan, cx: &mut ExecCtx<'_>) -> Result<DmlOutcome, SqlError> {
    let limit = match &plan.limit {
        Some(l) => eval_limit(l, cx)?.0,
        None => u64::MAX,
    };
    let mut rows = joined_rows(&plan.from, &plan.order, cx).await?;
    let mut seen: Vec<HashSet<Vec<u8>>> = plan.targets.iter().map(|_| HashSet::new()).collect();
    let (mut matched, mut changed) = (0u64, 0u64);
    'rows: while let Some(joined) = next_joined(&mut rows, plan.order.len() + 1, cx).await? {
        for (t, seen) in plan.targets.iter().zip(&mut seen) {
            if matched >= limit {
                break 'rows;
            }
            let Some(pk) = target_key(t, &joined, cx)? else {
                continue;
            };
            if seen.contains(&pk) {
                continue;
            }
            cx.check_interrupt()?;
            let locked = cx.lock_row(&t.table, &pk, LockMode::Exclusive).await?;
            cx.check_interrupt()?;
            seen.insert(pk);
            let Some(cur) = locked else {
                continue;
            };
            matched += 1;
            if update_one(t, &joined, &cur, plan.ignore, matched, cx).await? {
                changed += 1;
            }
            dml::yield_if_due(cx).await?;
        }
    }
    Ok(DmlOutcome {
        affected: changed,
        found: matched,
        info: Some(InfoKind::Matched { matched, changed }),
        first_generated: None,
        insert_id: cx.insert_id_override.unwrap_or(0),
        returned: None,
    })
}

/// Applies a target's assignments to its locked row `cur`; returns whether the row changed.
async fn update_one(
    t: &Target,
    joined: &[Value],
    cur: &selkie_storage::ScanRow,
    ignore: bool,
    row_no: u64,
    cx: &mut ExecCtx<'_>,
) -> Result<bool, SqlError> {
    let table = &t.table;
    let width = table.columns.len();
    let mut view = joined.to_vec();
    view[t.offset..t.offset + width].clone_from_slice(&session_row(table, &cur.row, cx));
    let mut new = cur.row.clone();
    let mut assigned = vec![false; width];
    for (col, e) in &t.assignments {
        let v = e.eval(&view, cx)?;
        let column = &table.columns[*col];
        if column.generated.is_some() {
            crate::generated::value_given(table, column, &v, cx)?;
            continue;
        }
        let v = dml::store(v, table, column, row_no, cx)?;
        view[t.offset + col] = session_value(column, &v, cx);
        new[*col] = v;
        assigned[*col] = true;
    }
    if let Some(g) = &t.generated {
        g.fill(table, &mut new, row_no, cx)?;
    }
    let target = UpdateTarget { table, rules: &t.rules, generated: &t.generated, ignore };
    dml::write_updated_row(&target, cur, new, &assigned, row_no, cx).await
}

/// Multi-table DELETE: affected rows count every row deleted, of all targets.
pub async fn execute_delete(plan: &MultiDeletePlan, cx: &mut ExecCtx<'_>) -> Result<DmlOutcome, SqlError> {
    let mut rows = joined_rows(&plan.from, &[], cx).await?;
    let mut seen: Vec<HashSet<Vec<u8>>> = plan.targets.iter().map(|_| HashSet::new()).collect();
    let mut deleted = 0u64;
    while let Some(joined) = next_joined(&mut rows, 1, cx).await? {
        for (t, seen) in plan.targets.iter().zip(&mut seen) {
            let Some(pk) = target_key(t, &joined, cx)? else {
                continue;
            };
            if seen.contains(&pk) {
                continue;
            }
            cx.check_interrupt()?;
            let locked = cx.lock_row(&t.table, &pk, LockMode::Exclusive).await?;
            cx.check_interrupt()?;
            seen.insert(pk);
            // Gone: deleted by a cascade of an earlier row.
            let Some(cur) = locked else {
                continue;
            };
            if dml::before_delete(&t.table, &t.rules, (plan.ignore, false), &cur, cx).await? {
                cx.trx()?.delete(&t.table, &cur.pk_key, &cur.row).await.map_err(SqlError::from)?;
                deleted += 1;
            }
            dml::yield_if_due(cx).await?;
        }
    }
    Ok(DmlOutcome {
        affected: deleted,
        found: deleted,
        info: None,
        first_generated: None,
        insert_id: cx.insert_id_override.unwrap_or(0),
        returned: None,
    })
}
