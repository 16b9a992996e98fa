//! INSERT / REPLACE / UPDATE / DELETE: binding and execution.
//!
//! UPDATE and DELETE read candidates as the latest versions through the chosen index; each is
//! locked exclusively, re-checked against the WHERE clause on the version the lock returned,
//! and only then changed. They stream (change each row as the scan meets it, so memory does
//! not grow with the rows changed) unless that is not Halloween-safe (an assigned column is a
//! key of the scanned index, an ORDER BY needs a sort, a subquery could see changed rows):
//! then the primary keys are collected first into a buffer that spills to @@tmpdir.
//! INSERT ... SELECT streams its source too, unless the source reads the target table.
//! Affected-row counts and info strings follow MariaDB exactly (architecture §2.1).

use std::sync::Arc;

use selkie_storage::{
    ColumnDef, ColumnDefault, InsertOutcome, LockMode, OnDuplicate, ReadMode, ScanRow, StorageError, TableDef,
};
use sqlparser::ast;

use crate::bind::{table_column_meta, Binder, ColumnInfo, Source, SourceKind};
use crate::constraints::TableRules;
use crate::defaults::DefaultValues;
use crate::error::SqlError;
use crate::error::{self, Clause};
use crate::exec::access::{session_row, session_value, timestamp_columns, to_session_zone, AccessCursor};
use crate::exec::ctx::ExecCtx;
use crate::exec::eval::eval_predicate;
use crate::exec::sort::Sorter;
use crate::exec::{self, eval_limit, Step};
use crate::generated::GeneratedValues;
use crate::plan::access::order_request;
use crate::plan::Expr;
use crate::plan::{LimitSpec, QueryPlan, Returning, SortKey, TableAccess};
use crate::types::Value;
use crate::types::WarnLevel;
use crate::value::{self, FnContext, SqlType, StoreTarget};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertMode {
    Insert,
    /// INSERT IGNORE: duplicates are skipped and errors become warnings.
    Ignore,
    Replace,
}

#[derive(Debug)]
pub enum InsertSource {
    /// One entry per row; `None` is the DEFAULT keyword.
    Values(Vec<Vec<Option<Expr>>>),
    Query(Arc<QueryPlan>),
}

#[derive(Debug)]
pub struct InsertPlan {
    pub table: Arc<TableDef>,
    /// Table positions the source values go to, in order.
    pub columns: Vec<usize>,
    pub source: InsertSource,
    pub mode: InsertMode,
    /// ON DUPLICATE KEY UPDATE assignments, evaluated on `existing row ++ new row`.
    pub on_duplicate: Option<Vec<(usize, Expr)>>,
    /// Whether MariaDB reports "Records: ..." (multi-row VALUES or INSERT ... SELECT).
    pub report_records: bool,
    /// FOREIGN KEY / CHECK constraints to honour (None: the table has none).
    pub rules: Option<Arc<TableRules>>,
    /// RETURNING: evaluated on each row as inserted (or as ON DUPLICATE KEY UPDATE left it).
    pub returning: Option<Returning>,
    /// The table's generated columns (None: it has none).
    pub generated: Option<Arc<GeneratedValues>>,
    /// The table's DEFAULT (expr) columns (None: it has none).
    pub defaults: Option<Arc<DefaultValues>>,
}

#[derive(Debug)]
pub struct UpdatePlan {
    pub access: TableAccess,
    /// ORDER BY on the table row (empty when the access delivers the order).
    pub order: Vec<(Expr, bool)>,
    pub limit: Option<LimitSpec>,
    pub assignments: Vec<(usize, Expr)>,
    pub ignore: bool,
    pub rules: Option<Arc<TableRules>>,
    pub generated: Option<Arc<GeneratedValues>>,
}

#[derive(Debug)]
pub struct DeletePlan {
    pub access: TableAccess,
    pub order: Vec<(Expr, bool)>,
    pub limit: Option<LimitSpec>,
    pub rules: Option<Arc<TableRules>>,
    /// RETURNING: evaluated on each row before it is deleted.
    pub returning: Option<Returning>,
    /// DELETE IGNORE: a row a foreign key keeps is skipped with a warning.
    pub ignore: bool,
}

/// The info string a DML statement reports (completed with the final warning count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InfoKind {
    /// No info string. No statement reports this kind today (they report no `InfoKind`).
    #[allow(dead_code)]
    None,
    Records {
        records: u64,
        duplicates: u64,
    },
    Matched {
        matched: u64,
        changed: u64,
    },
    /// LOAD DATA.
    Loaded {
        records: u64,
        deleted: u64,
        skipped: u64,
    },
}

impl InfoKind {
    pub fn format(self, warnings: usize) -> String {
        match self {
            InfoKind::None => String::new(),
            InfoKind::Records { records, duplicates } => {
                format!("Records: {records}  Duplicates: {duplicates}  Warnings: {warnings}")
            }
            InfoKind::Matched { matched, changed } => {
                format!("Rows matched: {matched}  Changed: {changed}  Warnings: {warnings}")
            }
            InfoKind::Loaded { records, deleted, skipped } => {
                format!("Records: {records}  Deleted: {deleted}  Skipped: {skipped}  Warnings: {warnings}")
            }
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct DmlOutcome {
    pub affected: u64,
    /// Affected rows as a client with CLIENT_FOUND_ROWS counts them: UPDATE's matched rows, and
    /// 1 rather than 0 for an ON DUPLICATE KEY UPDATE that left its row as it was.
    pub found: u64,
    pub info: Option<InfoKind>,
    /// First AUTO_INCREMENT value generated by the statement (becomes LAST_INSERT_ID()).
    pub first_generated: Option<u64>,
    /// The insert id the OK packet reports.
    pub insert_id: u64,
    /// The RETURNING rows, when the statement has RETURNING (sent instead of the OK).
    pub returned: Option<Vec<Vec<Value>>>,
}

fn target_source(table: &Arc<TableDef>, alias: &str) -> Source {
    let columns = table
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| ColumnInfo {
            name: c.name.clone(),
            ty: SqlType::of_column(c),
            nullable: c.nullable,
            meta: table_column_meta(table, alias, i),
            hidden: false,
        })
        .collect();
    Source {
        name: alias.to_string(),
        db: Some(table.db.clone()),
        kind: SourceKind::Table { table: table.clone(), hints: Default::default() },
        columns,
        offset: 0,
        nullable: false,
    }
}

fn column_position(table: &TableDef, name: &ast::ObjectName, clause: &str) -> Result<usize, SqlError> {
    let col = match name.0.last() {
        Some(ast::ObjectNamePart::Identifier(i)) => i.value.clone(),
        _ => return Err(error::syntax(&name.to_string(), 1)),
    };
    table
        .column_index(&col)
        .ok_or_else(|| SqlError::new(1054, "42S22", format!("Unknown column '{col}' in '{clause}'")))
}

pub(crate) fn is_default_keyword(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT"))
}

/// Binds INSERT / REPLACE. The binder must have one (empty) scope pushed.
pub fn bind_insert(b: &mut Binder, ins: &ast::Insert) -> Result<InsertPlan, SqlError> {
    if ins.or.is_some() || ins.partitioned.is_some() || !ins.after_columns.is_empty() {
        return Err(error::not_supported(&ins.to_string()));
    }
    if ins.insert_alias.is_some() {
        return Err(error::not_supported("INSERT ... AS row alias"));
    }
    let name = match &ins.table {
        ast::TableObject::TableName(n) => n,
        _ => return Err(error::not_supported("INSERT into a table function or query")),
    };
    let (_, table) = b.lookup_table(name)?;
    let verb = if ins.replace_into { "REPLACE INTO" } else { "INSERT INTO" };
    let mut columns: Vec<usize> = Vec::new();
    for c in &ins.columns {
        let pos = column_position(&table, c, verb)?;
        if columns.contains(&pos) {
            return Err(SqlError::new(1110, "42000", format!("Column '{}' specified twice", table.columns[pos].name)));
        }
        columns.push(pos);
    }
    b.set_clause(Clause::FieldList);
    let source = if !ins.assignments.is_empty() {
        let mut row = Vec::new();
        for a in &ins.assignments {
            let ast::AssignmentTarget::ColumnName(n) = &a.target else {
                return Err(error::not_supported("tuple assignment"));
            };
            let pos = column_position(&table, n, verb)?;
            if columns.contains(&pos) {
                return Err(SqlError::new(
                    1110,
                    "42000",
                    format!("Column '{}' specified twice", table.columns[pos].name),
                ));
            }
            columns.push(pos);
            row.push(if is_default_keyword(&a.value) { None } else { Some(b.bind_expr(&a.value)?.expr) });
        }
        InsertSource::Values(vec![row])
    } else {
        let Some(q) = &ins.source else {
            return Err(error::syntax("", 1));
        };
        if ins.columns.is_empty() {
            columns = (0..table.columns.len()).collect();
        }
        match (&*q.body, q.order_by.is_none() && q.limit_clause.is_none() && q.with.is_none()) {
            (ast::SetExpr::Values(values), true) => {
                let mut rows = Vec::with_capacity(values.rows.len());
                for (i, r) in values.rows.iter().enumerate() {
                    let width = if r.content.is_empty() && ins.columns.is_empty() { 0 } else { columns.len() };
                    if r.content.len() != width {
                        return Err(error::value_count(i + 1));
                    }
                    let mut row = Vec::with_capacity(r.content.len());
                    for e in &r.content {
                        row.push(if is_default_keyword(e) { None } else { Some(b.bind_expr(e)?.expr) });
                    }
                    rows.push(row);
                }
                if rows.iter().any(|r| r.is_empty()) {
                    // `VALUES ()`: every column takes its default.
                    if rows.iter().any(|r| !r.is_empty()) {
                        return Err(error::value_count(1));
                    }
                    columns.clear();
                }
                InsertSource::Values(rows)
            }
            _ => {
                let plan = b.with_scope(|b| b.bind_query(q))?.0;
                if plan.columns.len() != columns.len() {
                    return Err(error::value_count(1));
                }
                InsertSource::Query(Arc::new(plan))
            }
        }
    };
    let on_duplicate = match &ins.on {
        None => None,
        Some(ast::OnInsert::DuplicateKeyUpdate(assignments)) => {
            if ins.replace_into {
                return Err(error::syntax("ON DUPLICATE KEY UPDATE", 1));
            }
            let alias = table.name.clone();
            let src = target_source(&table, &alias);
            b.scope_mut().sources.push(src);
            b.scope_mut().width = table.columns.len();
            b.values_base = Some((table.columns.len(), table.clone()));
            let mut out = Vec::new();
            let r: Result<(), SqlError> = (|| {
                for a in assignments {
                    let ast::AssignmentTarget::ColumnName(n) = &a.target else {
                        return Err(error::not_supported("tuple assignment"));
                    };
                    let pos = column_position(&table, n, "field list")?;
                    let e = if is_default_keyword(&a.value) {
                        default_expr(b, &table.columns[pos])?
                    } else {
                        b.bind_expr(&a.value)?.expr
                    };
                    out.push((pos, e));
                }
                Ok(())
            })();
            b.values_base = None;
            r?;
            Some(out)
        }
        Some(ast::OnInsert::OnConflict(_)) => return Err(error::not_supported("ON CONFLICT")),
        Some(_) => return Err(error::not_supported("this ON clause")),
    };
    let report_records = match &source {
        InsertSource::Values(rows) => rows.len() > 1,
        InsertSource::Query(_) => true,
    };
    let mode = if ins.replace_into {
        InsertMode::Replace
    } else if ins.ignore {
        InsertMode::Ignore
    } else {
        InsertMode::Insert
    };
    let rules = crate::constraints::rules_for(b.env.catalog, &table)?;
    let returning = match &ins.returning {
        Some(items) => {
            // ON DUPLICATE KEY UPDATE already made the target the scope's source.
            if b.scope().sources.is_empty() {
                b.scope_mut().sources.push(target_source(&table, &table.name));
                b.scope_mut().width = table.columns.len();
            }
            Some(b.bind_returning(items)?)
        }
        None => None,
    };
    let generated = crate::generated::values_for(b.env.catalog, &table)?;
    let defaults = crate::defaults::values_for(b.env.catalog, &table)?;
    Ok(InsertPlan { table, columns, source, mode, on_duplicate, report_records, rules, returning, generated, defaults })
}

/// The DEFAULT keyword in an UPDATE / ODKU assignment: the column's default as an expression
/// (a DEFAULT (expr) bound in the statement's scope, where the table's columns are the row
/// being changed).
pub(crate) fn default_expr(b: &mut Binder, col: &ColumnDef) -> Result<Expr, SqlError> {
    if col.generated.is_some() {
        // DEFAULT for a generated column means its computed value: the NULL stands for it.
        return Ok(Expr::Literal(Value::Null));
    }
    Ok(match &col.default {
        ColumnDefault::Expression(text) => b.bind_expr(&crate::constraints::parse_expr(text)?)?.expr,
        ColumnDefault::Value(v) => Expr::Literal(v.clone()),
        ColumnDefault::CurrentTimestamp => match value::lookup_function("NOW") {
            Some(f) => Expr::Func { func: crate::plan::FuncRef(f), args: Vec::new() },
            None => Expr::Literal(Value::Null),
        },
        ColumnDefault::None => {
            if col.nullable {
                Expr::Literal(Value::Null)
            } else {
                Expr::Literal(value::implicit_default(&col.ty))
            }
        }
    })
}

/// Makes `table` source 0 of the current scope (LOAD DATA's SET expressions read its columns).
pub(crate) fn push_target(b: &mut Binder, table: &Arc<TableDef>) {
    let src = target_source(table, &table.name);
    let width = src.columns.len();
    b.scope_mut().sources.push(src);
    b.scope_mut().width = width;
}

/// Binds the single target table of UPDATE / DELETE as source 0 of the current scope.
fn bind_target(b: &mut Binder, twj: &ast::TableWithJoins, what: &str) -> Result<Arc<TableDef>, SqlError> {
    if !twj.joins.is_empty() {
        return Err(error::not_supported(&format!("multi-table {what}")));
    }
    let ast::TableFactor::Table { name, alias, index_hints, .. } = &twj.relation else {
        return Err(error::not_supported(&format!("{what} of a derived table")));
    };
    let (db, _) = crate::bind::object_name_parts(name)?;
    if db.as_deref().or(b.env.current_db).is_some_and(|d| d.eq_ignore_ascii_case(crate::bind::INFORMATION_SCHEMA)) {
        return Err(SqlError::new(
            1044,
            "42000",
            format!("Access denied for user to database '{}'", crate::bind::INFORMATION_SCHEMA),
        ));
    }
    let (_, table) = b.lookup_table(name)?;
    let alias = alias.as_ref().map(|a| a.name.value.clone()).unwrap_or_else(|| table.name.clone());
    let mut src = target_source(&table, &alias);
    if let SourceKind::Table { hints, .. } = &mut src.kind {
        for h in index_hints {
            let names: Vec<String> = h.index_names.iter().map(|i| i.value.clone()).collect();
            match h.hint_type {
                ast::TableIndexHintType::Use | ast::TableIndexHintType::Force => {
                    hints.use_or_force.get_or_insert_with(Vec::new).extend(names)
                }
                ast::TableIndexHintType::Ignore => hints.ignore.extend(names),
            }
        }
    }
    let width = src.columns.len();
    b.scope_mut().sources.push(src);
    b.scope_mut().width = width;
    Ok(table)
}

/// The target table's access, the ORDER BY still to apply (empty when the access delivers
/// it), and the LIMIT of an UPDATE / DELETE.
type TargetPlan = (TableAccess, Vec<(Expr, bool)>, Option<LimitSpec>);

fn bind_where_order_limit(
    b: &mut Binder,
    selection: Option<&ast::Expr>,
    order_by: &[ast::OrderByExpr],
    limit: Option<&ast::Expr>,
) -> Result<TargetPlan, SqlError> {
    b.set_clause(Clause::Where);
    let mut conjuncts = Vec::new();
    if let Some(w) = selection {
        b.bind_condition(w)?.expr.into_conjuncts(&mut conjuncts);
    }
    b.set_clause(Clause::OrderBy);
    let mut order = Vec::new();
    for o in order_by {
        // Strings of a `_ci` collation order by their sort keys, as in SELECT.
        let bound = b.bind_expr(&o.expr)?;
        let e = crate::bind::ordering_key(bound.expr, &bound.ty);
        order.push((e, o.options.sort == Some(ast::OrderBySort::Desc)));
    }
    let limit = match limit {
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
    let order_req = order_request(&order, limit.is_some());
    let (access, ordered) = b.plan_target_access(conjuncts, order_req.as_ref())?;
    if ordered {
        order.clear();
    }
    Ok((access, order, limit))
}

/// Binds a single-table UPDATE. The binder must have one (empty) scope pushed.
pub fn bind_update(b: &mut Binder, u: &ast::Update, ignore: bool) -> Result<UpdatePlan, SqlError> {
    if u.returning.is_some() {
        // MariaDB 10.11 has no UPDATE ... RETURNING: its parser stops there.
        return Err(error::syntax(b.text.returning_clause_text().unwrap_or("RETURNING"), 1));
    }
    if u.from.is_some() || u.or.is_some() {
        return Err(error::not_supported(&u.to_string()));
    }
    let table = bind_target(b, &u.table, "UPDATE")?;
    b.set_clause(Clause::Set);
    let mut assignments = Vec::with_capacity(u.assignments.len());
    for a in &u.assignments {
        let pos = assigned_column(b, a)?;
        let e = if is_default_keyword(&a.value) {
            default_expr(b, &table.columns[pos])?
        } else {
            b.bind_expr(&a.value)?.expr
        };
        assignments.push((pos, e));
    }
    let (access, order, limit) = bind_where_order_limit(b, u.selection.as_ref(), &u.order_by, u.limit.as_ref())?;
    let rules = crate::constraints::rules_for(b.env.catalog, &table)?;
    let generated = crate::generated::values_for(b.env.catalog, &table)?;
    Ok(UpdatePlan { access, order, limit, assignments, ignore, rules, generated })
}

/// Binds a single-table DELETE. The binder must have one (empty) scope pushed.
pub fn bind_delete(b: &mut Binder, d: &ast::Delete, ignore: bool) -> Result<DeletePlan, SqlError> {
    if !d.tables.is_empty() || d.using.is_some() {
        return Err(error::not_supported("multi-table DELETE"));
    }
    let from = match &d.from {
        ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
    };
    if from.len() != 1 {
        return Err(error::not_supported("multi-table DELETE"));
    }
    let table = bind_target(b, &from[0], "DELETE")?;
    let returning = d.returning.as_ref().map(|items| b.bind_returning(items)).transpose()?;
    let (access, order, limit) = bind_where_order_limit(b, d.selection.as_ref(), &d.order_by, d.limit.as_ref())?;
    let rules = crate::constraints::rules_for(b.env.catalog, &table)?;
    Ok(DeletePlan { access, order, limit, rules, returning, ignore })
}

/// The position, in the statement's row, of the column an assignment of SET changes.
pub(crate) fn assigned_column(b: &mut Binder, a: &ast::Assignment) -> Result<usize, SqlError> {
    let ast::AssignmentTarget::ColumnName(n) = &a.target else {
        return Err(error::not_supported("tuple assignment"));
    };
    let parts: Vec<String> =
        n.0.iter()
            .map(|p| match p {
                ast::ObjectNamePart::Identifier(i) => Ok(i.value.clone()),
                ast::ObjectNamePart::Function(_) => Err(error::syntax(&n.to_string(), 1)),
            })
            .collect::<Result<_, _>>()?;
    let Some((col, qualifier)) = parts.split_last() else {
        return Err(error::syntax(&n.to_string(), 1));
    };
    let target = b.resolve_column(qualifier, col)?;
    let Expr::Column(pos) = target.expr else {
        return Err(error::unknown_column(&n.to_string(), Clause::Set));
    };
    Ok(pos)
}

// ---- execution ----

/// Where UPDATE / DELETE finds its rows, one primary key at a time.
enum Candidates<'p> {
    /// Each row is changed as the scan returns it. The storage scan keeps no latch between rows
    /// and re-seeks after the last key it returned, so changing that row is safe as long as the
    /// change cannot move it ahead of the scan (see `streams`).
    Stream(AccessCursor<'p>),
    /// Every candidate's primary key, after its ORDER BY values, collected before anything
    /// changes (sorted if the statement has an ORDER BY the access does not deliver); spills
    /// past sort_buffer_size, so only the keys, never the rows, cost memory.
    Buffered(Sorter<'static>),
}

/// Whether UPDATE / DELETE may change rows while its scan goes on (Halloween problem). Not when
/// an ORDER BY needs a sort first, when an assigned column (ON UPDATE CURRENT_TIMESTAMP ones
/// included) is a key column of the scanned index (the row would move ahead of the scan and be
/// met again; the primary key counts for a secondary index, whose entries end with it), or when
/// the statement has a subquery (it could read the rows already changed: MariaDB reads the
/// target as it was).
fn streams(access: &TableAccess, order: &[(Expr, bool)], changed: &[usize], exprs: &[&Expr]) -> bool {
    let has_subquery = exprs.iter().any(|e| e.has_subquery()) || access.filter.as_ref().is_some_and(Expr::has_subquery);
    if !order.is_empty() || has_subquery {
        return false;
    }
    let table = &access.table;
    let mut key_columns = access.index_columns();
    if access.index != 0 {
        key_columns.extend(table.primary.columns.iter().map(|c| c.column));
    }
    !changed.iter().any(|c| key_columns.contains(c))
}

impl<'p> Candidates<'p> {
    async fn open(
        access: &'p TableAccess,
        order: &[(Expr, bool)],
        stream: bool,
        cx: &mut ExecCtx<'_>,
    ) -> Result<Candidates<'p>, SqlError> {
        let saved = cx.read_mode;
        cx.read_mode = ReadMode::Latest;
        let cursor = AccessCursor::open(access, &[], cx);
        cx.read_mode = saved;
        let mut cursor = cursor?;
        if stream {
            return Ok(Candidates::Stream(cursor));
        }
        let keys: Vec<SortKey> =
            order.iter().enumerate().map(|(column, (_, desc))| SortKey { column, desc: *desc }).collect();
        let mut sorter = Sorter::new(keys, cx.sort_budget(), None);
        while let Some(cand) = next_latest(&mut cursor, cx).await? {
            let mut entry = Vec::with_capacity(order.len() + 1);
            for (e, _) in order {
                entry.push(e.eval(&cand.row, cx)?);
            }
            entry.push(Value::Bytes(cand.pk_key));
            sorter.push(entry, cx)?;
        }
        sorter.finish(cx)?;
        Ok(Candidates::Buffered(sorter))
    }

    /// The next candidate's primary key.
    async fn next(&mut self, cx: &mut ExecCtx<'_>) -> Result<Option<Vec<u8>>, SqlError> {
        match self {
            Candidates::Stream(cursor) => Ok(next_latest(cursor, cx).await?.map(|r| r.pk_key)),
            Candidates::Buffered(sorter) => loop {
                match sorter.next(cx)? {
                    Step::Row(mut entry) => {
                        return match entry.pop() {
                            Some(Value::Bytes(pk)) => Ok(Some(pk)),
                            _ => Err(error::internal("buffered candidate without its primary key")),
                        };
                    }
                    Step::Done => return Ok(None),
                    Step::Pause => cx.pause().await?,
                }
            },
        }
    }
}

/// The next row of a candidate scan: the latest version of every record, as UPDATE / DELETE
/// must see rows that other transactions changed (each is then locked and re-checked).
async fn next_latest(cursor: &mut AccessCursor<'_>, cx: &mut ExecCtx<'_>) -> Result<Option<ScanRow>, SqlError> {
    loop {
        let saved = cx.read_mode;
        cx.read_mode = ReadMode::Latest;
        let step = cursor.next(cx);
        cx.read_mode = saved;
        match step? {
            Step::Row(r) => return Ok(Some(r)),
            Step::Done => return Ok(None),
            Step::Pause => cx.pause().await?,
        }
    }
}

/// Gives the worker thread to other tasks when the statement's time slice is used up: row
/// writes that need no lock wait complete without ever suspending the statement.
pub(crate) async fn yield_if_due(cx: &mut ExecCtx<'_>) -> Result<(), SqlError> {
    if cx.tick()? {
        cx.pause().await?;
    }
    Ok(())
}

/// Converts `v` for column `col` of `table`, row `row` (1-based) of the statement; NULL into
/// NOT NULL is 1048 in strict mode, otherwise the implicit default with a warning.
pub(crate) fn store(
    v: Value,
    table: &TableDef,
    col: &ColumnDef,
    row: u64,
    cx: &mut ExecCtx,
) -> Result<Value, SqlError> {
    if v.is_null() {
        if col.nullable {
            return Ok(Value::Null);
        }
        if cx.strict() {
            return Err(error::column_not_null(&col.name));
        }
        cx.push_warning(WarnLevel::Warning, 1048, format!("Column '{}' cannot be null", col.name));
        return Ok(value::implicit_default(&col.ty));
    }
    let target = StoreTarget { db: &table.db, table: &table.name, row };
    value::store_for_column_at(v, col, Some(&target), &*cx)
}

fn current_timestamp(table: &TableDef, col: &ColumnDef, row: u64, cx: &mut ExecCtx) -> Result<Value, SqlError> {
    let now = Value::DateTime(cx.env.now());
    store(now, table, col, row, cx)
}

/// Text of a duplicate key for warning 1062, as MariaDB prints it ('1-abc').
fn duplicate_key_text(table: &TableDef, index: usize, row: &[Value]) -> (String, String) {
    let def = crate::plan::index_def(table, index);
    let parts: Vec<String> = def
        .columns
        .iter()
        .map(|c| match value::to_text_bytes(&row[c.column]) {
            Some(b) => String::from_utf8_lossy(&b).into_owned(),
            None => "NULL".to_string(),
        })
        .collect();
    (parts.join("-"), def.name.clone())
}

/// INSERT / REPLACE. Strict mode applies unless IGNORE was given.
pub async fn execute_insert(plan: &InsertPlan, cx: &mut ExecCtx<'_>) -> Result<DmlOutcome, SqlError> {
    let table = &plan.table;
    let ncols = table.columns.len();
    let strict = plan.mode != InsertMode::Ignore && cx.sql_mode_is_strict();
    let saved_strict = cx.set_strict(strict);
    let r = insert_rows(plan, cx, table, ncols).await;
    cx.set_strict(saved_strict);
    r
}

async fn insert_rows(
    plan: &InsertPlan,
    cx: &mut ExecCtx<'_>,
    table: &Arc<TableDef>,
    ncols: usize,
) -> Result<DmlOutcome, SqlError> {
    match &plan.source {
        InsertSource::Values(rows) => insert_values(plan, rows, cx, table, ncols).await,
        InsertSource::Query(q) => insert_select(plan, q, cx, table, ncols).await,
    }
}

/// Running totals of an INSERT.
#[derive(Default)]
struct InsertCounts {
    affected: u64,
    /// Duplicates that ON DUPLICATE KEY UPDATE left unchanged (CLIENT_FOUND_ROWS counts them).
    unchanged: u64,
    returned: Vec<Vec<Value>>,
    duplicates: u64,
    records: u64,
    /// Rows INSERT IGNORE skipped because a CHECK refused them (before the engine saw them).
    refused: u64,
}

impl InsertCounts {
    /// "Records: ..." when MariaDB reports it (multi-row VALUES, INSERT ... SELECT).
    fn info(&self, plan: &InsertPlan) -> Option<InfoKind> {
        plan.report_records.then_some(InfoKind::Records { records: self.records, duplicates: self.duplicates })
    }
}

fn on_duplicate(plan: &InsertPlan) -> OnDuplicate {
    match (plan.mode, &plan.on_duplicate) {
        (InsertMode::Replace, _) => OnDuplicate::Replace,
        (InsertMode::Ignore, _) | (_, Some(_)) => OnDuplicate::Report,
        (InsertMode::Insert, None) => OnDuplicate::Error,
    }
}

/// INSERT ... VALUES: the rows are in the statement, so they are all converted before the first
/// insert, and AUTO_INCREMENT values are reserved once for the whole statement.
async fn insert_values(
    plan: &InsertPlan,
    values: &[Vec<Option<Expr>>],
    cx: &mut ExecCtx<'_>,
    table: &Arc<TableDef>,
    ncols: usize,
) -> Result<DmlOutcome, SqlError> {
    // 1. The source rows, fully evaluated before the first insert.
    let mut source_rows: Vec<Vec<Option<Value>>> = Vec::with_capacity(values.len());
    for r in values {
        let mut vals = Vec::with_capacity(r.len());
        for e in r {
            vals.push(match e {
                Some(e) => Some(e.eval(&[], cx)?),
                None => None,
            });
        }
        source_rows.push(vals);
    }
    let ai = table.auto_increment_column();
    // 2. Full rows with defaults and conversions; AUTO_INCREMENT slots left as None.
    let mut rows: Vec<Vec<Value>> = Vec::with_capacity(source_rows.len());
    let mut generate: Vec<bool> = Vec::with_capacity(source_rows.len());
    for (i, src) in source_rows.into_iter().enumerate() {
        let (full, gen) = full_row(plan, table, ncols, src, i as u64 + 1, cx)?;
        rows.push(full);
        generate.push(gen);
        yield_if_due(cx).await?;
    }
    // 3. AUTO_INCREMENT values: one reservation for the whole statement unless explicit values
    //    are mixed in (then each generated value must follow the explicit ones before it), or
    //    `SET insert_id = n` gives the first one.
    let mut first_generated = None;
    let mut last_explicit_ai = None;
    // Every row generates its value: they are taken row by row as the rows go in (`Reserved`).
    let mut reserved = None;
    if let Some(ai) = ai {
        let n_gen = generate.iter().filter(|g| **g).count() as u64;
        let mixed = n_gen > 0 && n_gen < rows.len() as u64;
        let mut hint = cx.insert_id_hint.take().filter(|_| n_gen > 0);
        if n_gen > 0 && !mixed && hint.is_none() {
            reserved = Some(Reserved::new(n_gen));
        } else {
            for (i, (row, g)) in rows.iter_mut().zip(&generate).enumerate() {
                if *g {
                    let id = match hint.take() {
                        Some(h) => {
                            cx.trx()?.auto_increment_observe(table, h);
                            h
                        }
                        None => cx.trx()?.auto_increment_next(table, 1)?,
                    };
                    first_generated.get_or_insert(id);
                    row[ai] = ai_value(table, ai, id, i as u64 + 1, cx)?;
                } else if let Some(v) = value::to_u64(&row[ai]).filter(|v| *v > 0) {
                    cx.trx()?.auto_increment_observe(table, v);
                    last_explicit_ai = Some(v);
                }
            }
        }
    }
    // 4. Insert.
    let on_dup = on_duplicate(plan);
    let mut counts = InsertCounts::default();
    match (reserved.as_mut(), ai) {
        (Some(reserved), Some(ai)) => {
            let r =
                insert_reserved(plan, table, rows, ai, on_dup, reserved, &mut first_generated, &mut counts, cx).await;
            reserved.finish(table, cx)?;
            r?;
        }
        _ => {
            for (i, row) in rows.into_iter().enumerate() {
                insert_one(plan, table, row, i as u64 + 1, on_dup, &mut counts, cx).await?;
            }
        }
    }
    let insert_id = first_generated.or(cx.insert_id_override).or(last_explicit_ai).unwrap_or(0);
    Ok(DmlOutcome {
        affected: counts.affected,
        found: counts.affected + counts.unchanged,
        info: counts.info(plan),
        first_generated,
        insert_id,
        returned: plan.returning.is_some().then_some(counts.returned),
    })
}

/// The rows of an INSERT ... VALUES that all generate their AUTO_INCREMENT value, each taking
/// it as it goes in (`Reserved`).
#[allow(clippy::too_many_arguments)]
async fn insert_reserved(
    plan: &InsertPlan,
    table: &Arc<TableDef>,
    rows: Vec<Vec<Value>>,
    ai: usize,
    on_dup: OnDuplicate,
    reserved: &mut Reserved,
    first_generated: &mut Option<u64>,
    counts: &mut InsertCounts,
    cx: &mut ExecCtx<'_>,
) -> Result<(), SqlError> {
    for (i, mut row) in rows.into_iter().enumerate() {
        let row_number = i as u64 + 1;
        let id = reserved.take(table, cx)?;
        row[ai] = ai_value(table, ai, id, row_number, cx)?;
        let (refused, written) = (counts.refused, counts.affected + counts.unchanged);
        match insert_one(plan, table, row, row_number, on_dup, counts, cx).await {
            // A CHECK refused the row: MariaDB checks before it takes a value.
            Err(e) if e.code == 4025 => {
                reserved.give_back(id, false);
                return Err(e);
            }
            Err(e) => return Err(e),
            Ok(()) if counts.refused > refused => reserved.give_back(id, false),
            // INSERT IGNORE skipped it (duplicate key, missing parent): the next row reuses
            // the value, as MariaDB's restore_auto_increment does.
            Ok(()) if counts.affected + counts.unchanged == written => reserved.give_back(id, true),
            Ok(()) => {
                reserved.used = true;
                first_generated.get_or_insert(id);
            }
        }
    }
    Ok(())
}

/// AUTO_INCREMENT values of an INSERT ... VALUES whose every row generates one, as MariaDB
/// hands them out with innodb_autoinc_lock_mode=1: the statement reserves one value per row
/// when its first row passes its CHECK constraints, a row that INSERT IGNORE skips gives its
/// value to the next row, and what is left at the end is not handed out again (an INSERT
/// IGNORE of a duplicate and a new row leaves one gap). Rows a CHECK refuses take no value: a
/// statement none of whose rows got that far gives its reservation back.
struct Reserved {
    rows: u64,
    first: u64,
    next: u64,
    end: u64,
    /// The reservation was used by a row that reached the engine.
    used: bool,
}

impl Reserved {
    fn new(rows: u64) -> Reserved {
        Reserved { rows, first: 0, next: 0, end: 0, used: false }
    }

    fn take(&mut self, table: &TableDef, cx: &mut ExecCtx) -> Result<u64, SqlError> {
        if self.next >= self.end {
            // The first row, or (as MariaDB's handler does) one past the reservation: the
            // statement then takes one more value at a time.
            let count = if self.end == 0 { self.rows } else { 1 };
            self.next = cx.trx()?.auto_increment_next(table, count)?;
            if self.end == 0 {
                self.first = self.next;
            }
            self.end = self.next + count;
        }
        let id = self.next;
        self.next += 1;
        Ok(id)
    }

    /// Row `id` did not keep its value; `reached_engine`: it passed its CHECK constraints.
    fn give_back(&mut self, id: u64, reached_engine: bool) {
        self.used |= reached_engine;
        if id + 1 == self.next {
            self.next = id;
        }
    }

    /// The statement's end (or error): a reservation no row reached the engine with goes back.
    fn finish(&mut self, table: &TableDef, cx: &mut ExecCtx) -> Result<(), SqlError> {
        if !self.used && self.end > 0 && self.next == self.first {
            cx.trx()?.auto_increment_release(table, self.first, self.end);
        }
        Ok(())
    }
}

/// Where INSERT ... SELECT takes its rows from.
enum SelectSource<'p> {
    /// The query runs as the rows go in: it cannot read the target table.
    Stream(Box<dyn exec::Operator + 'p>),
    /// The query reads the target table, so it runs to completion first and must not see the
    /// statement's own rows; its rows wait in a spillable buffer (sort_buffer_size, then
    /// @@tmpdir).
    Buffered(Box<Sorter<'static>>),
}

impl SelectSource<'_> {
    async fn next(&mut self, cx: &mut ExecCtx<'_>) -> Result<Option<Vec<Value>>, SqlError> {
        loop {
            let step = match self {
                SelectSource::Stream(op) => op.next(cx)?,
                SelectSource::Buffered(sorter) => sorter.next(cx)?,
            };
            match step {
                Step::Row(r) => return Ok(Some(r)),
                Step::Done => return Ok(None),
                Step::Pause => cx.pause().await?,
            }
        }
    }
}

/// Largest AUTO_INCREMENT interval an INSERT ... SELECT reserves at once (MariaDB's
/// AUTO_INC_DEFAULT_NB_MAX).
const AUTO_INC_MAX_INTERVAL: u64 = 65_536;

/// AUTO_INCREMENT values for an INSERT whose row count is not known in advance. As MariaDB's
/// handler does with innodb_autoinc_lock_mode=1, values are reserved in intervals of 1, 2, 4, ...
/// (at most `AUTO_INC_MAX_INTERVAL`) and what is left of the last one is not handed out again:
/// five rows into an empty table leave AUTO_INCREMENT=8, as in MariaDB. `SET insert_id = n`
/// forces n, n+1, ... instead.
struct AutoIncIntervals {
    next: u64,
    end: u64,
    size: u64,
    forced: Option<u64>,
}

impl AutoIncIntervals {
    fn new(forced: Option<u64>) -> AutoIncIntervals {
        AutoIncIntervals { next: 0, end: 0, size: 1, forced }
    }

    fn generate(&mut self, table: &TableDef, cx: &mut ExecCtx) -> Result<u64, SqlError> {
        if let Some(id) = self.forced {
            cx.trx()?.auto_increment_observe(table, id);
            self.forced = Some(id + 1);
            return Ok(id);
        }
        if self.next >= self.end {
            let first = cx.trx()?.auto_increment_next(table, self.size)?;
            self.next = first;
            self.end = first.saturating_add(self.size);
            self.size = (self.size * 2).min(AUTO_INC_MAX_INTERVAL);
        }
        let id = self.next;
        self.next += 1;
        Ok(id)
    }

    /// The row that took `id` was skipped: the next row takes it again.
    fn give_back(&mut self, id: u64) {
        if self.forced.is_none() && id + 1 == self.next {
            self.next = id;
        }
    }

    /// An explicit value: later generated values follow it, from a new interval if it passed
    /// the current one's next value.
    fn explicit(&mut self, table: &TableDef, v: u64, cx: &mut ExecCtx) -> Result<(), SqlError> {
        cx.trx()?.auto_increment_observe(table, v);
        if v >= self.next {
            self.next = self.end;
        }
        Ok(())
    }
}

/// INSERT ... SELECT: row by row, as MariaDB does (each row is converted and inserted before
/// the next is read), so memory does not grow with the number of rows.
async fn insert_select(
    plan: &InsertPlan,
    q: &QueryPlan,
    cx: &mut ExecCtx<'_>,
    table: &Arc<TableDef>,
    ncols: usize,
) -> Result<DmlOutcome, SqlError> {
    let mut op = q.root.open(cx)?;
    let mut source = if crate::plan::reads_table(&q.root, table.id) {
        let mut buffer = Sorter::new(Vec::new(), cx.sort_budget(), None);
        loop {
            match op.next(cx)? {
                Step::Row(r) => buffer.push(r, cx)?,
                Step::Done => break,
                Step::Pause => cx.pause().await?,
            }
        }
        buffer.finish(cx)?;
        SelectSource::Buffered(Box::new(buffer))
    } else {
        SelectSource::Stream(op)
    };
    let mut rows = RowInserter::new(plan, table, ncols, cx);
    let mut row_number = 0u64;
    while let Some(src) = source.next(cx).await? {
        row_number += 1;
        rows.insert(src.into_iter().map(Some).collect(), row_number, cx).await?;
    }
    let insert_id = rows.insert_id(cx);
    let RowInserter { counts, first_generated, .. } = rows;
    Ok(DmlOutcome {
        affected: counts.affected,
        found: counts.affected + counts.unchanged,
        info: counts.info(plan),
        first_generated,
        insert_id,
        returned: plan.returning.is_some().then_some(counts.returned),
    })
}

/// Rows that come from outside a query (LOAD DATA's file): each a value per entry of the
/// plan's column list (None: the column's default), numbered from 1.
pub(crate) trait RowSource: Send {
    fn next_row(&mut self, row_number: u64, cx: &mut ExecCtx) -> Result<Option<Vec<Option<Value>>>, SqlError>;
}

/// Inserts the rows of `source` as INSERT ... SELECT does its rows (one at a time, AUTO_INCREMENT
/// intervals, IGNORE / REPLACE handling). Returns the outcome and (records, duplicates): rows
/// read, and rows IGNORE skipped or REPLACE replaced.
pub(crate) async fn insert_from_source(
    plan: &InsertPlan,
    source: &mut dyn RowSource,
    cx: &mut ExecCtx<'_>,
) -> Result<(DmlOutcome, u64, u64), SqlError> {
    let strict = plan.mode != InsertMode::Ignore && cx.sql_mode_is_strict();
    let saved_strict = cx.set_strict(strict);
    let r = insert_source_rows(plan, source, cx).await;
    cx.set_strict(saved_strict);
    r
}

async fn insert_source_rows(
    plan: &InsertPlan,
    source: &mut dyn RowSource,
    cx: &mut ExecCtx<'_>,
) -> Result<(DmlOutcome, u64, u64), SqlError> {
    let table = &plan.table;
    let mut rows = RowInserter::new(plan, table, table.columns.len(), cx);
    let mut row_number = 0u64;
    while let Some(src) = source.next_row(row_number + 1, cx)? {
        row_number += 1;
        rows.insert(src, row_number, cx).await?;
    }
    let insert_id = rows.insert_id(cx);
    let RowInserter { counts, first_generated, .. } = rows;
    let outcome = DmlOutcome {
        affected: counts.affected,
        found: counts.affected + counts.unchanged,
        info: None,
        first_generated,
        insert_id,
        returned: None,
    };
    Ok((outcome, counts.records, counts.duplicates + counts.refused))
}

/// Inserts source rows one at a time (INSERT ... SELECT, LOAD DATA): each made a full row,
/// given its AUTO_INCREMENT value from the statement's intervals, and written with the
/// statement's IGNORE / REPLACE / ON DUPLICATE handling.
struct RowInserter<'p> {
    plan: &'p InsertPlan,
    table: &'p Arc<TableDef>,
    ncols: usize,
    ai: Option<usize>,
    intervals: AutoIncIntervals,
    on_dup: OnDuplicate,
    counts: InsertCounts,
    first_generated: Option<u64>,
    last_explicit_ai: Option<u64>,
}

impl<'p> RowInserter<'p> {
    fn new(plan: &'p InsertPlan, table: &'p Arc<TableDef>, ncols: usize, cx: &mut ExecCtx) -> RowInserter<'p> {
        RowInserter {
            plan,
            table,
            ncols,
            ai: table.auto_increment_column(),
            intervals: AutoIncIntervals::new(cx.insert_id_hint.take()),
            on_dup: on_duplicate(plan),
            counts: InsertCounts::default(),
            first_generated: None,
            last_explicit_ai: None,
        }
    }

    async fn insert(&mut self, src: Vec<Option<Value>>, row_number: u64, cx: &mut ExecCtx<'_>) -> Result<(), SqlError> {
        let (plan, table) = (self.plan, self.table);
        let (mut row, generate) = full_row(plan, table, self.ncols, src, row_number, cx)?;
        let mut generated = None;
        if let Some(ai) = self.ai {
            if generate {
                let id = self.intervals.generate(table, cx)?;
                generated = Some(id);
                row[ai] = ai_value(table, ai, id, row_number, cx)?;
            } else if let Some(v) = value::to_u64(&row[ai]).filter(|v| *v > 0) {
                self.intervals.explicit(table, v, cx)?;
                self.last_explicit_ai = Some(v);
            }
        }
        let written = self.counts.affected + self.counts.unchanged;
        insert_one(plan, table, row, row_number, self.on_dup, &mut self.counts, cx).await?;
        if let Some(id) = generated {
            if self.counts.affected + self.counts.unchanged == written {
                // Skipped by INSERT IGNORE: the next row takes the value (`Reserved::give_back`).
                self.intervals.give_back(id);
            } else {
                self.first_generated.get_or_insert(id);
            }
        }
        Ok(())
    }

    /// LAST_INSERT_ID after the statement.
    fn insert_id(&self, cx: &ExecCtx) -> u64 {
        self.first_generated.or(cx.insert_id_override).or(self.last_explicit_ai).unwrap_or(0)
    }
}

/// A source row as a full table row: conversions, defaults; the AUTO_INCREMENT slot is NULL and
/// `true` returned when the row asks for a generated value (NULL, or 0 unless
/// NO_AUTO_VALUE_ON_ZERO).
fn full_row(
    plan: &InsertPlan,
    table: &TableDef,
    ncols: usize,
    src: Vec<Option<Value>>,
    row_number: u64,
    cx: &mut ExecCtx,
) -> Result<(Vec<Value>, bool), SqlError> {
    let ai = table.auto_increment_column();
    let no_auto_on_zero = cx.env.sql_mode.no_auto_value_on_zero;
    // Which list entries had a value rather than DEFAULT: only tables with DEFAULT (expr)
    // columns need to know.
    let given: Option<Vec<bool>> = plan.defaults.as_ref().map(|_| src.iter().map(Option::is_some).collect());
    // The listed values are converted in the list's order, as MariaDB's fill_record: its
    // warnings (and in strict mode its first error) follow the statement, not the table.
    let mut row: Vec<Option<Value>> = vec![None; ncols];
    let mut gen = false;
    for (j, v) in src.into_iter().enumerate() {
        let ci = plan.columns[j];
        let c = &table.columns[ci];
        let Some(v) = v else {
            continue;
        };
        row[ci] = Some(if Some(ci) == ai {
            if v.is_null() {
                gen = true;
                Value::Null
            } else {
                let stored = store(v, table, c, row_number, cx)?;
                if !no_auto_on_zero && value::to_i64(&stored) == Some(0) {
                    gen = true;
                    Value::Null
                } else {
                    stored
                }
            }
        } else if c.generated.is_some() {
            crate::generated::value_given(table, c, &v, cx)?;
            Value::Null
        } else {
            store(v, table, c, row_number, cx)?
        });
    }
    let mut full = Vec::with_capacity(ncols);
    for (ci, c) in table.columns.iter().enumerate() {
        let v = match row[ci].take() {
            Some(v) => v,
            None if Some(ci) == ai => {
                gen = true;
                Value::Null
            }
            // Column not named, or the DEFAULT keyword.
            None => column_default(table, c, row_number, cx)?,
        };
        full.push(v);
    }
    if let (Some(d), Some(given)) = (&plan.defaults, given) {
        let list = &plan.columns[..given.len()];
        let mut store_at =
            |v: Value, pos: usize, cx: &mut ExecCtx| store(v, table, &table.columns[pos], row_number, cx);
        d.fill(table, list, &given, &mut full, &mut store_at, cx)?;
    }
    Ok((full, gen))
}

/// Inserts one full row, with REPLACE / IGNORE / ON DUPLICATE KEY UPDATE handling.
async fn insert_one(
    plan: &InsertPlan,
    table: &Arc<TableDef>,
    mut row: Vec<Value>,
    row_number: u64,
    on_dup: OnDuplicate,
    counts: &mut InsertCounts,
    cx: &mut ExecCtx<'_>,
) -> Result<(), SqlError> {
    cx.check_interrupt()?;
    counts.records += 1;
    // After the AUTO_INCREMENT value: a VIRTUAL column may read it.
    if let Some(g) = &plan.generated {
        g.fill(table, &mut row, row_number, cx)?;
    }
    if let Some(rules) = &plan.rules {
        return insert_one_constrained(plan, rules, table, row, row_number, on_dup, counts, cx).await;
    }
    if on_dup == OnDuplicate::Replace && replaces_in_place(table) {
        replace_in_place(plan, None, table, row, counts, cx).await?;
        return yield_if_due(cx).await;
    }
    let outcome = cx.trx()?.insert(table, row.clone(), on_dup).await.map_err(SqlError::from)?;
    handle_insert_outcome(plan, None, table, &row, row_number, outcome, counts, cx).await?;
    yield_if_due(cx).await
}

/// `insert_one` for a table with FOREIGN KEY / CHECK constraints. CHECK constraints are
/// evaluated before the engine sees the row, parents are looked up after the insert (so that a
/// duplicate key is reported first, as InnoDB checks a foreign key when it reaches its index);
/// INSERT IGNORE turns either failure into a warning and undoes the row (savepoint). REPLACE
/// into a referenced table deletes each conflicting row as a DELETE would (children checked,
/// cascaded), as MariaDB does when the table is referenced by a foreign key.
#[allow(clippy::too_many_arguments)]
async fn insert_one_constrained(
    plan: &InsertPlan,
    rules: &TableRules,
    table: &Arc<TableDef>,
    row: Vec<Value>,
    row_number: u64,
    on_dup: OnDuplicate,
    counts: &mut InsertCounts,
    cx: &mut ExecCtx<'_>,
) -> Result<(), SqlError> {
    let ignore = plan.mode == InsertMode::Ignore;
    if ignore {
        if rules.check_row_or_warn(table, &row, cx)? {
            counts.refused += 1;
            return yield_if_due(cx).await;
        }
    } else {
        rules.check_row(table, &row, cx)?;
    }
    let savepoint = if ignore && rules.has_foreign_keys() { Some(cx.trx()?.savepoint()) } else { None };
    let r: Result<(), SqlError> = async {
        let outcome = if on_dup == OnDuplicate::Replace && rules.is_referenced() {
            let mut deleted = 0;
            loop {
                match cx.trx()?.insert(table, row.clone(), OnDuplicate::Report).await? {
                    InsertOutcome::Inserted { pk_key } => break InsertOutcome::Replaced { pk_key, deleted },
                    InsertOutcome::Duplicate { pk_key, existing, .. } => {
                        rules.on_delete(table, &pk_key, &existing, cx).await?;
                        cx.trx()?.delete(table, &pk_key, &existing).await?;
                        deleted += 1;
                    }
                    other => break other,
                }
            }
        } else if on_dup == OnDuplicate::Replace && replaces_in_place(table) {
            return replace_in_place(plan, Some(rules), table, row.clone(), counts, cx).await;
        } else {
            cx.trx()?.insert(table, row.clone(), on_dup).await?
        };
        if matches!(outcome, InsertOutcome::Inserted { .. } | InsertOutcome::Replaced { .. }) {
            rules.check_parents(&row, None, cx).await?;
        }
        handle_insert_outcome(plan, Some(rules), table, &row, row_number, outcome, counts, cx).await
    }
    .await;
    match (r, savepoint) {
        (Err(e), Some(sp)) if matches!(e.code, 1451 | 1452) => {
            cx.trx()?.rollback_to_savepoint(&sp)?;
            cx.push_warning(WarnLevel::Warning, e.code, e.message);
        }
        (r, _) => r?,
    }
    yield_if_due(cx).await
}

/// Whether REPLACE changes a conflicting row in place, as MariaDB's `write_record` does when
/// the conflict is on the table's last unique key (here: its only one) and no foreign key
/// references the table (the caller checked that).
fn replaces_in_place(table: &TableDef) -> bool {
    let primary = usize::from(!table.has_hidden_pk());
    primary + table.secondary.iter().filter(|i| i.unique).count() == 1
}

/// REPLACE of one row into a table whose only unique key conflicts: the existing row is
/// updated rather than deleted, and one identical to the new row is left alone. MariaDB counts
/// the latter as 1 affected row and no duplicate (InnoDB's HA_ERR_RECORD_IS_THE_SAME), the
/// former as 2 and a duplicate, as a delete and insert would.
async fn replace_in_place(
    plan: &InsertPlan,
    rules: Option<&TableRules>,
    table: &Arc<TableDef>,
    row: Vec<Value>,
    counts: &mut InsertCounts,
    cx: &mut ExecCtx<'_>,
) -> Result<(), SqlError> {
    match cx.trx()?.insert(table, row.clone(), OnDuplicate::Report).await? {
        InsertOutcome::Duplicate { pk_key, existing, .. } => {
            if existing == row {
                counts.affected += 1;
            } else {
                if let Some(rules) = rules {
                    rules.check_parents(&row, Some(&existing), cx).await?;
                }
                cx.trx()?.update(table, &pk_key, &existing, row.clone()).await?;
                counts.affected += 2;
                counts.duplicates += 1;
            }
            returning_row(&plan.returning, table, &row, &mut counts.returned, cx)
        }
        outcome => {
            if let (Some(rules), InsertOutcome::Inserted { .. }) = (rules, &outcome) {
                rules.check_parents(&row, None, cx).await?;
            }
            handle_insert_outcome(plan, rules, table, &row, 0, outcome, counts, cx).await
        }
    }
}

/// Counts an insert's outcome; a duplicate is updated (ON DUPLICATE KEY UPDATE) or reported
/// (IGNORE).
#[allow(clippy::too_many_arguments)]
async fn handle_insert_outcome(
    plan: &InsertPlan,
    rules: Option<&TableRules>,
    table: &Arc<TableDef>,
    row: &[Value],
    row_number: u64,
    outcome: InsertOutcome,
    counts: &mut InsertCounts,
    cx: &mut ExecCtx<'_>,
) -> Result<(), SqlError> {
    match outcome {
        InsertOutcome::Inserted { .. } => {
            counts.affected += 1;
            returning_row(&plan.returning, table, row, &mut counts.returned, cx)?;
        }
        InsertOutcome::Replaced { deleted, .. } => {
            counts.affected += 1 + deleted as u64;
            if deleted > 0 {
                counts.duplicates += 1;
            }
            returning_row(&plan.returning, table, row, &mut counts.returned, cx)?;
        }
        InsertOutcome::Duplicate { index, pk_key, existing } => {
            counts.duplicates += 1;
            match &plan.on_duplicate {
                Some(assignments) => {
                    // Evaluated on both rows as the session sees them; `new` stays stored.
                    let mut combined = session_row(table, &existing, cx).into_owned();
                    combined.extend(session_row(table, row, cx).iter().cloned());
                    let mut new = existing.clone();
                    let mut assigned = vec![false; table.columns.len()];
                    for (col, e) in assignments {
                        let v = e.eval(&combined, cx)?;
                        if table.columns[*col].generated.is_some() {
                            crate::generated::value_given(table, &table.columns[*col], &v, cx)?;
                            continue;
                        }
                        let v = store(v, table, &table.columns[*col], row_number, cx)?;
                        combined[*col] = session_value(&table.columns[*col], &v, cx);
                        new[*col] = v;
                        assigned[*col] = true;
                    }
                    if let Some(g) = &plan.generated {
                        g.fill(table, &mut new, row_number, cx)?;
                    }
                    if new != existing {
                        for (ci, c) in table.columns.iter().enumerate() {
                            if c.on_update_current_timestamp && !assigned[ci] {
                                new[ci] = current_timestamp(table, c, row_number, cx)?;
                            }
                        }
                        if let Some(g) = plan
                            .generated
                            .as_ref()
                            .filter(|_| table.columns.iter().any(|c| c.on_update_current_timestamp))
                        {
                            g.fill(table, &mut new, row_number, cx)?;
                        }
                        if let Some(rules) = rules {
                            rules.check_row(table, &new, cx)?;
                            rules.check_parents(&new, Some(&existing), cx).await?;
                        }
                        returning_row(&plan.returning, table, &new, &mut counts.returned, cx)?;
                        cx.trx()?.update(table, &pk_key, &existing, new.clone()).await.map_err(SqlError::from)?;
                        if let Some(rules) = rules {
                            rules.on_update(table, &existing, &new, cx).await?;
                        }
                        counts.affected += 2;
                    } else {
                        returning_row(&plan.returning, table, &existing, &mut counts.returned, cx)?;
                        counts.unchanged += 1;
                    }
                }
                None => {
                    let (key, name) = duplicate_key_text(table, index, row);
                    cx.push_warning(WarnLevel::Warning, 1062, format!("Duplicate entry '{key}' for key '{name}'"));
                }
            }
        }
    }
    Ok(())
}

/// Adds the RETURNING values of a written or removed row.
fn returning_row(
    returning: &Option<Returning>,
    table: &TableDef,
    row: &[Value],
    out: &mut Vec<Vec<Value>>,
    cx: &mut ExecCtx,
) -> Result<(), SqlError> {
    if let Some(r) = returning {
        let row = session_row(table, row, cx);
        out.push(r.exprs.iter().map(|e| e.eval(&row, cx)).collect::<Result<_, _>>()?);
    }
    Ok(())
}

fn ai_value(table: &TableDef, col: usize, id: u64, row: u64, cx: &mut ExecCtx) -> Result<Value, SqlError> {
    store(Value::UInt(id), table, &table.columns[col], row, cx)
}

/// The value of a column the INSERT did not give (or gave as DEFAULT).
fn column_default(table: &TableDef, c: &ColumnDef, row: u64, cx: &mut ExecCtx) -> Result<Value, SqlError> {
    match &c.default {
        ColumnDefault::Value(v) => Ok(v.clone()),
        ColumnDefault::CurrentTimestamp => current_timestamp(table, c, row, cx),
        // Computed once the row's given values are in (`DefaultValues::fill`).
        ColumnDefault::Expression(_) => Ok(crate::defaults::record_value(c)),
        ColumnDefault::None if c.nullable => Ok(Value::Null),
        // An ENUM NOT NULL defaults to its first value, silently, in every sql_mode.
        ColumnDefault::None if matches!(c.ty, selkie_storage::ColumnType::Enum { .. }) => {
            Ok(value::implicit_default(&c.ty))
        }
        ColumnDefault::None => {
            if cx.strict() {
                Err(error::no_default(&c.name))
            } else {
                cx.push_warning(WarnLevel::Warning, 1364, format!("Field '{}' doesn't have a default value", c.name));
                Ok(value::implicit_default(&c.ty))
            }
        }
    }
}

/// Locks a candidate exclusively and returns its current version if it still matches.
async fn lock_and_recheck(
    access: &TableAccess,
    pk_key: &[u8],
    cx: &mut ExecCtx<'_>,
) -> Result<Option<ScanRow>, SqlError> {
    // KILL QUERY during the wait ends it with 1317 (ExecCtx::lock_row).
    let locked = cx.lock_row(&access.table, pk_key, LockMode::Exclusive).await?;
    cx.check_interrupt()?;
    let Some(cur) = locked else {
        return Ok(None);
    };
    if let Some(f) = &access.filter {
        if !eval_predicate(f, &session_row(&access.table, &cur.row, cx), cx)? {
            return Ok(None);
        }
    }
    Ok(Some(cur))
}

/// UPDATE. Strict mode applies unless IGNORE was given.
pub async fn execute_update(plan: &UpdatePlan, cx: &mut ExecCtx<'_>) -> Result<DmlOutcome, SqlError> {
    let strict = !plan.ignore && cx.sql_mode_is_strict();
    let saved_strict = cx.set_strict(strict);
    let r = update_rows(plan, cx).await;
    cx.set_strict(saved_strict);
    r
}

async fn update_rows(plan: &UpdatePlan, cx: &mut ExecCtx<'_>) -> Result<DmlOutcome, SqlError> {
    let table = plan.access.table.clone();
    let limit = match &plan.limit {
        Some(l) => eval_limit(l, cx)?.0,
        None => u64::MAX,
    };
    let mut assigned_columns: Vec<usize> = plan.assignments.iter().map(|(c, _)| *c).collect();
    let on_update = table.columns.iter().enumerate().filter(|(_, c)| c.on_update_current_timestamp);
    assigned_columns.extend(on_update.map(|(i, _)| i));
    // Generated columns change with the columns they read.
    assigned_columns.extend(plan.generated.iter().flat_map(|g| g.positions()));
    let exprs: Vec<&Expr> = plan.assignments.iter().map(|(_, e)| e).collect();
    let stream = streams(&plan.access, &plan.order, &assigned_columns, &exprs);
    let mut candidates = Candidates::open(&plan.access, &plan.order, stream, cx).await?;
    let timestamps = timestamp_columns(&table);
    let mut matched = 0u64;
    let mut changed = 0u64;
    while matched < limit {
        let Some(pk) = candidates.next(cx).await? else {
            break;
        };
        cx.check_interrupt()?;
        let Some(cur) = lock_and_recheck(&plan.access, &pk, cx).await? else {
            continue;
        };
        matched += 1;
        // Assignments see the row as the session does (and earlier assignments, as in
        // MariaDB); `new` holds the stored values.
        let mut new = cur.row.clone();
        let mut view = (!timestamps.is_empty()).then(|| {
            let mut v = cur.row.clone();
            to_session_zone(&timestamps, &mut v, cx);
            v
        });
        let mut assigned = vec![false; table.columns.len()];
        for (col, e) in &plan.assignments {
            let v = e.eval(view.as_deref().unwrap_or(&new), cx)?;
            if table.columns[*col].generated.is_some() {
                crate::generated::value_given(&table, &table.columns[*col], &v, cx)?;
                continue;
            }
            let v = store(v, &table, &table.columns[*col], matched, cx)?;
            if let Some(view) = view.as_mut() {
                view[*col] = session_value(&table.columns[*col], &v, cx);
            }
            new[*col] = v;
            assigned[*col] = true;
        }
        if let Some(g) = &plan.generated {
            g.fill(&table, &mut new, matched, cx)?;
        }
        let target =
            UpdateTarget { table: &table, rules: &plan.rules, generated: &plan.generated, ignore: plan.ignore };
        if write_updated_row(&target, &cur, new, &assigned, matched, cx).await? {
            changed += 1;
        }
        yield_if_due(cx).await?;
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

/// What writing an updated row needs to know of its table.
pub(crate) struct UpdateTarget<'t> {
    pub table: &'t Arc<TableDef>,
    pub rules: &'t Option<Arc<TableRules>>,
    pub generated: &'t Option<Arc<GeneratedValues>>,
    pub ignore: bool,
}

/// Writes row `cur` as `new` (its assigned columns set, `assigned` saying which): ON UPDATE
/// CURRENT_TIMESTAMP columns and generated columns follow, then constraints are checked.
/// Returns whether the row changed. With IGNORE a failed CHECK is warning 4025, and a
/// duplicate key, a missing parent row or a child row that refers to it skips the row
/// silently, as in MariaDB.
pub(crate) async fn write_updated_row(
    t: &UpdateTarget<'_>,
    cur: &ScanRow,
    mut new: Vec<Value>,
    assigned: &[bool],
    row_no: u64,
    cx: &mut ExecCtx<'_>,
) -> Result<bool, SqlError> {
    let table = t.table;
    if new == cur.row {
        return Ok(false);
    }
    for (ci, c) in table.columns.iter().enumerate() {
        if c.on_update_current_timestamp && !assigned[ci] {
            new[ci] = current_timestamp(table, c, row_no, cx)?;
        }
    }
    if let Some(g) = t.generated.as_ref().filter(|_| table.columns.iter().any(|c| c.on_update_current_timestamp)) {
        g.fill(table, &mut new, row_no, cx)?;
    }
    if let Some(rules) = t.rules {
        if t.ignore {
            if rules.check_row_or_warn(table, &new, cx)? {
                return Ok(false);
            }
            match rules.check_parents(&new, Some(&cur.row), cx).await {
                Err(e) if e.code == error::NO_REFERENCED_ROW => return Ok(false),
                r => r?,
            }
            if rules.update_restricted(&cur.row, &new, cx).await? {
                return Ok(false);
            }
        } else {
            rules.check_row(table, &new, cx)?;
            rules.check_parents(&new, Some(&cur.row), cx).await?;
        }
    }
    let after = t.rules.as_ref().map(|_| new.clone());
    match cx.trx()?.update(table, &cur.pk_key, &cur.row, new).await {
        Ok(_) => {
            if let (Some(rules), Some(new)) = (t.rules, &after) {
                rules.on_update(table, &cur.row, new, cx).await?;
            }
            Ok(true)
        }
        // MariaDB 10.11 skips the row without a warning.
        Err(StorageError::DuplicateKey { .. }) if t.ignore => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Before a row is deleted: its foreign keys' actions. False when DELETE IGNORE must skip the
/// row (a child row refers to it: warning 1451 when `warn`, as in MariaDB's single-table
/// DELETE IGNORE; its multi-table one skips the row silently).
pub(crate) async fn before_delete(
    table: &Arc<TableDef>,
    rules: &Option<Arc<TableRules>>,
    (ignore, warn): (bool, bool),
    cur: &ScanRow,
    cx: &mut ExecCtx<'_>,
) -> Result<bool, SqlError> {
    let Some(rules) = rules else {
        return Ok(true);
    };
    match rules.on_delete(table, &cur.pk_key, &cur.row, cx).await {
        Err(e) if ignore && e.code == error::ROW_IS_REFERENCED => {
            if warn {
                cx.push_warning(WarnLevel::Warning, e.code, e.message);
            }
            Ok(false)
        }
        r => r.map(|_| true),
    }
}

/// DELETE. Unlike INSERT and UPDATE it is not strict: MariaDB only warns about a division by
/// zero in its WHERE clause even in strict mode.
pub async fn execute_delete(plan: &DeletePlan, cx: &mut ExecCtx<'_>) -> Result<DmlOutcome, SqlError> {
    let table = plan.access.table.clone();
    let limit = match &plan.limit {
        Some(l) => eval_limit(l, cx)?.0,
        None => u64::MAX,
    };
    // A deleted row cannot be met again: only an ORDER BY or a subquery makes DELETE collect
    // its candidates first.
    let stream = streams(&plan.access, &plan.order, &[], &[]);
    let mut candidates = Candidates::open(&plan.access, &plan.order, stream, cx).await?;
    let mut deleted = 0u64;
    let mut returned = Vec::new();
    while deleted < limit {
        let Some(pk) = candidates.next(cx).await? else {
            break;
        };
        cx.check_interrupt()?;
        let Some(cur) = lock_and_recheck(&plan.access, &pk, cx).await? else {
            continue;
        };
        if !before_delete(&table, &plan.rules, (plan.ignore, true), &cur, cx).await? {
            yield_if_due(cx).await?;
            continue;
        }
        returning_row(&plan.returning, &table, &cur.row, &mut returned, cx)?;
        cx.trx()?.delete(&table, &cur.pk_key, &cur.row).await.map_err(SqlError::from)?;
        deleted += 1;
        yield_if_due(cx).await?;
    }
    Ok(DmlOutcome {
        affected: deleted,
        found: deleted,
        info: None,
        first_generated: None,
        insert_id: cx.insert_id_override.unwrap_or(0),
        returned: plan.returning.is_some().then_some(returned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_strings_match_mariadb() {
        assert_eq!(InfoKind::Records { records: 2, duplicates: 1 }.format(1), "Records: 2  Duplicates: 1  Warnings: 1");
        assert_eq!(InfoKind::Matched { matched: 1, changed: 0 }.format(0), "Rows matched: 1  Changed: 0  Warnings: 0");
        assert_eq!(InfoKind::None.format(3), "");
    }

    #[test]
    fn order_request_needs_plain_columns_in_one_direction() {
        let r = order_request(&[(Expr::Column(1), true), (Expr::Column(0), true)], true).unwrap();
        assert_eq!(r.columns, vec![1, 0]);
        assert!(r.desc && r.has_limit);
        assert!(order_request(&[(Expr::Column(1), true), (Expr::Column(0), false)], false).is_none());
        assert!(order_request(&[(Expr::Param(0), false)], false).is_none());
        assert!(order_request(&[], false).is_none());
    }
}
