//! Enforcing CHECK and FOREIGN KEY constraints on row changes, as MariaDB's SQL layer (CHECK)
//! and InnoDB (foreign keys) do.
//!
//! `TableRules` is built once per bound statement (`rules_for`, from the catalog the statement
//! was bound against) and is `None` for a table without constraints that no table references,
//! so those tables pay nothing per row.
//!
//! Foreign keys follow InnoDB: a child row's parent is looked up through the parent's index
//! on the referenced columns and S-locked (a concurrent parent DELETE waits for the child's
//! transaction); a parent row's children are looked up through the child's foreign key index,
//! S-locked for RESTRICT / NO ACTION and X-locked for CASCADE / SET NULL. Candidates are read
//! as latest versions, locked, and re-checked, like UPDATE's candidates. Cascades go at most
//! 15 levels deep (InnoDB's FK_MAX_CASCADE_DEL); a DELETE cascade skips rows it is already
//! deleting (a row that references itself), and InnoDB refuses to cascade an UPDATE into the
//! table being updated (1451). Cascaded changes evaluate no CHECK constraints, as in MariaDB
//! (InnoDB makes them below the SQL layer).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use selkie_storage::{keycodec, Catalog, ForeignKeyAction, KeyRange, LockMode, ReadMode, ScanRow, TableDef, TableId};

use crate::bind::{table_column_meta, BindEnv, Binder, ColumnInfo, Source, SourceKind};
use crate::error::{self, Clause, SqlError};
use crate::exec::ctx::ExecCtx;
use crate::plan::Expr;
use crate::show::foreign_key_detail;
use crate::types::{Value, WarnLevel};
use crate::value::{self, SqlType};
use crate::variables::VarScope;

/// InnoDB's FK_MAX_CASCADE_DEL: the 15th level of cascading fails.
const MAX_CASCADE_DEPTH: usize = 15;

struct BoundCheck {
    /// The name error 4025 gives: `t.col` for a column-level check.
    error_name: String,
    expr: Expr,
}

/// One of this table's foreign keys (this table is the child).
struct ParentLink {
    detail: String,
    columns: Vec<usize>,
    /// The parent table and the index (0 = primary) whose leading columns are the referenced
    /// ones; None when the parent does not exist (created with foreign_key_checks=0).
    parent: Option<(Arc<TableDef>, Option<usize>, Vec<usize>)>,
}

/// A foreign key of another table (or this one) that references this table.
struct ChildLink {
    detail: String,
    child: Arc<TableDef>,
    /// The child's index whose leading columns are the foreign key's (None: scan the table).
    index: Option<usize>,
    columns: Vec<usize>,
    /// Positions of the referenced columns in this table.
    ref_columns: Vec<usize>,
    on_delete: ForeignKeyAction,
    on_update: ForeignKeyAction,
}

/// The constraints a row change of one table must honour.
pub(crate) struct TableRules {
    table_id: TableId,
    checks: Vec<BoundCheck>,
    parents: Vec<ParentLink>,
    children: Vec<ChildLink>,
}

impl std::fmt::Debug for TableRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableRules")
            .field("checks", &self.checks.len())
            .field("parents", &self.parents.len())
            .field("children", &self.children.len())
            .finish()
    }
}

/// Positions of `names` in `t` (None if one is missing).
fn positions(t: &TableDef, names: &[String]) -> Option<Vec<usize>> {
    names.iter().map(|n| t.column_index(n)).collect()
}

/// The index (0 = primary, i + 1 = secondary i) whose leading columns are `cols` in order.
pub(crate) fn index_on(t: &TableDef, cols: &[usize]) -> Option<usize> {
    t.indexes().position(|ix| {
        ix.columns.len() >= cols.len()
            && ix.columns.iter().zip(cols).all(|(ic, &c)| ic.column == c && ic.prefix_len.is_none())
    })
}

/// The key range of the rows whose leading columns of index `index_no` (an `index_on` the
/// compared columns) equal `key`: a column whose keys are collation sort keys is looked up by
/// the value's sort key, which finds every row equal under the collation (callers re-check).
pub(crate) fn point_range(table: &TableDef, index_no: usize, key: &[Value]) -> KeyRange {
    let def = crate::plan::index_def(table, index_no);
    let values = def.columns.iter().zip(key).map(|(ic, v)| keycodec::lookup_value(table, &table.columns[ic.column], v));
    KeyRange::point(values.collect())
}

fn table_source(table: &Arc<TableDef>) -> Source {
    let columns = table
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| ColumnInfo {
            name: c.name.clone(),
            ty: SqlType::from_column(&c.ty),
            nullable: c.nullable,
            meta: table_column_meta(table, &table.name, i),
            hidden: false,
        })
        .collect();
    Source {
        name: table.name.clone(),
        db: Some(table.db.clone()),
        kind: SourceKind::Table { table: table.clone(), hints: Default::default() },
        columns,
        offset: 0,
        nullable: false,
    }
}

pub(crate) use crate::parse::stored_expr::parse_expr;

/// Binds a CHECK expression (its stored text) over the row of `table`.
pub(crate) fn bind_check(catalog: &Catalog, table: &Arc<TableDef>, text: &str) -> Result<Expr, SqlError> {
    bind_row_expr(catalog, table, text, Clause::Check)
}

/// Binds an expression stored in the catalog (a CHECK's, a generated column's) over the row of
/// `table`; `clause` is what error 1054 names.
pub(crate) fn bind_row_expr(
    catalog: &Catalog,
    table: &Arc<TableDef>,
    text: &str,
    clause: Clause,
) -> Result<Expr, SqlError> {
    let parsed = parse_expr(text)?;
    let env = BindEnv {
        catalog,
        current_db: Some(&table.db),
        vars: None,
        user_vars: None,
        pipes_as_concat: false,
        only_full_group_by: false,
        temporary: None,
        row_estimates: None,
    };
    let mut b = Binder::new(env, text);
    let (bound, _) = b.with_scope(|b| {
        b.set_clause(clause);
        let src = table_source(table);
        b.scope_mut().width = src.columns.len();
        b.scope_mut().sources.push(src);
        b.bind_expr(&parsed)
    })?;
    Ok(bound.expr)
}

/// The rules for changes of `table`; None when it has no constraints and nothing references it.
pub(crate) fn rules_for(catalog: &Catalog, table: &Arc<TableDef>) -> Result<Option<Arc<TableRules>>, SqlError> {
    let referencing: Vec<&Arc<TableDef>> = catalog
        .tables
        .values()
        .filter(|t| t.constraints.foreign_keys.iter().any(|fk| fk.ref_db == table.db && fk.ref_table == table.name))
        .collect();
    if table.constraints.is_empty() && referencing.is_empty() {
        return Ok(None);
    }
    let mut checks = Vec::with_capacity(table.constraints.checks.len());
    for c in &table.constraints.checks {
        let error_name = match &c.column {
            Some(_) => format!("{}.{}", table.name, c.name),
            None => c.name.clone(),
        };
        checks.push(BoundCheck { error_name, expr: bind_check(catalog, table, &c.expr)? });
    }
    // InnoDB keeps a table's foreign keys, and those referencing it, in sets ordered by id
    // ("db/name"), and checks them in that order: the first that fails is the one reported.
    let mut own: Vec<&selkie_storage::ForeignKeyDef> = table.constraints.foreign_keys.iter().collect();
    own.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    let mut parents = Vec::new();
    for fk in own {
        let Some(columns) = positions(table, &fk.columns) else { continue };
        let parent = catalog.table(&fk.ref_db, &fk.ref_table).and_then(|p| {
            let ref_cols = positions(p, &fk.ref_columns)?;
            Some((p.clone(), index_on(p, &ref_cols), ref_cols))
        });
        parents.push(ParentLink { detail: foreign_key_detail(table, fk), columns, parent });
    }
    let mut incoming: Vec<(&Arc<TableDef>, &selkie_storage::ForeignKeyDef)> = referencing
        .into_iter()
        .flat_map(|child| child.constraints.foreign_keys.iter().map(move |fk| (child, fk)))
        .filter(|(_, fk)| fk.ref_db == table.db && fk.ref_table == table.name)
        .collect();
    incoming
        .sort_by(|(c1, a), (c2, b)| (c1.db.as_bytes(), a.name.as_bytes()).cmp(&(c2.db.as_bytes(), b.name.as_bytes())));
    let mut children = Vec::new();
    for (child, fk) in incoming {
        let (Some(columns), Some(ref_columns)) = (positions(child, &fk.columns), positions(table, &fk.ref_columns))
        else {
            continue;
        };
        children.push(ChildLink {
            detail: foreign_key_detail(child, fk),
            child: child.clone(),
            index: index_on(child, &columns),
            columns,
            ref_columns,
            on_delete: fk.on_delete.unwrap_or_default(),
            on_update: fk.on_update.unwrap_or_default(),
        });
    }
    Ok(Some(Arc::new(TableRules { table_id: table.id, checks, parents, children })))
}

/// A foreign key of another table (not one of `except`) that references `db`.`table`.
pub(crate) fn referencing_foreign_key<'c>(
    catalog: &'c Catalog,
    db: &str,
    table: &str,
    except: &[(String, String)],
) -> Option<(&'c Arc<TableDef>, &'c selkie_storage::ForeignKeyDef)> {
    // InnoDB keeps a parent's referencing keys ordered by name: report the first.
    catalog
        .tables
        .values()
        .filter(|t| !except.iter().any(|(d, n)| *d == t.db && *n == t.name))
        .flat_map(|t| t.constraints.foreign_keys.iter().map(move |fk| (t, fk)))
        .filter(|(_, fk)| fk.ref_db == db && fk.ref_table == table)
        .min_by(|(_, a), (_, b)| a.name.as_bytes().cmp(b.name.as_bytes()))
}

/// DROP TABLE of a table another table references: 1451 (unless foreign_key_checks=0).
pub(crate) fn check_drop(catalog: &Catalog, tables: &[(String, String)], cx: &ExecCtx) -> Result<(), SqlError> {
    if !foreign_key_checks(cx) {
        return Ok(());
    }
    for (db, t) in tables {
        if referencing_foreign_key(catalog, db, t, tables).is_some() {
            return Err(error::drop_referenced_table());
        }
    }
    Ok(())
}

/// TRUNCATE of a table another table references: 1701 (unless foreign_key_checks=0).
pub(crate) fn check_truncate(catalog: &Catalog, db: &str, table: &str, cx: &ExecCtx) -> Result<(), SqlError> {
    if !foreign_key_checks(cx) {
        return Ok(());
    }
    let me = [(db.to_string(), table.to_string())];
    if let Some((child, fk)) = referencing_foreign_key(catalog, db, table, &me) {
        // This message names the parent with its database, whatever the child's.
        let clause = crate::show::foreign_key_clause(fk, "");
        let detail = format!("`{}`.`{}`, {clause}", child.db, child.name);
        return Err(error::truncate_referenced(&detail));
    }
    Ok(())
}

fn session_flag(cx: &ExecCtx, name: &str) -> bool {
    match cx.env.vars.get(&cx.env.server.globals, name, VarScope::Session) {
        Ok(v) => value::truthy(&v).unwrap_or(true),
        Err(_) => true,
    }
}

/// foreign_key_checks: 0 turns off every foreign key check and action (dump loading).
pub(crate) fn foreign_key_checks(cx: &ExecCtx) -> bool {
    session_flag(cx, "foreign_key_checks")
}

/// Whether `a`, a value of column `col` of `table`, equals `b` as InnoDB's foreign-key check
/// compares them: strings under the column's collation ('a' in a `_ci` parent is referenced by
/// 'A'), everything else by value.
fn equal(table: &TableDef, col: usize, a: &Value, b: &Value) -> bool {
    if let (Value::Bytes(x), Value::Bytes(y)) = (a, b) {
        if let Some(c) = crate::charset::Collation::named(&table.columns[col].collation) {
            return c.compare(x, y) == std::cmp::Ordering::Equal;
        }
    }
    value::compare(a, b) == Some(std::cmp::Ordering::Equal)
}

fn values_at(row: &[Value], cols: &[usize]) -> Vec<Value> {
    cols.iter().map(|&c| row[c].clone()).collect()
}

type BoxFut<'a, T> = Pin<Box<dyn Future<Output = Result<T, SqlError>> + Send + 'a>>;

/// The latest versions of the rows of `table` whose `cols` equal `key`, each locked in `mode`
/// and re-checked; `skip` are rows the caller is already changing.
async fn locked_matches(
    cx: &mut ExecCtx<'_>,
    table: &Arc<TableDef>,
    index: Option<usize>,
    cols: &[usize],
    key: &[Value],
    mode: LockMode,
    skip: &[(TableId, Vec<u8>)],
) -> Result<Vec<ScanRow>, SqlError> {
    let (index_no, range) = match index {
        Some(i) => (i, point_range(table, i, key)),
        None => (0, KeyRange::all()),
    };
    let mut candidates = Vec::new();
    {
        let trx = cx.trx()?;
        let mut scan = trx.scan(table, index_no, range, false, ReadMode::Latest)?;
        while let Some(r) = scan.next(trx)? {
            if cols.iter().zip(key).all(|(&c, k)| equal(table, c, &r.row[c], k)) {
                candidates.push(r.pk_key);
            }
        }
    }
    let mut out = Vec::new();
    for pk in candidates {
        if skip.iter().any(|(t, k)| *t == table.id && *k == pk) {
            continue;
        }
        let Some(cur) = cx.lock_row(table, &pk, mode).await? else { continue };
        if cols.iter().zip(key).all(|(&c, k)| equal(table, c, &cur.row[c], k)) {
            out.push(cur);
        }
    }
    Ok(out)
}

impl TableRules {
    /// The CHECK constraints on a new row version: the name of the first that fails.
    pub(crate) fn failed_check(&self, row: &[Value], cx: &mut ExecCtx) -> Result<Option<&str>, SqlError> {
        if self.checks.is_empty() || !session_flag(cx, "check_constraint_checks") {
            return Ok(None);
        }
        for c in &self.checks {
            let v = c.expr.eval(row, cx)?;
            // NULL passes: the constraint is not false.
            if value::truthy(&v) == Some(false) {
                return Ok(Some(&c.error_name));
            }
        }
        Ok(None)
    }

    /// 4025 if a CHECK constraint fails for the row.
    pub(crate) fn check_row(&self, table: &TableDef, row: &[Value], cx: &mut ExecCtx) -> Result<(), SqlError> {
        if self.checks.is_empty() {
            return Ok(());
        }
        let row = crate::exec::access::session_row(table, row, cx);
        match self.failed_check(&row, cx)? {
            Some(name) => Err(error::check_failed(name, &table.db, &table.name)),
            None => Ok(()),
        }
    }

    /// Warning 4025 (INSERT IGNORE / UPDATE IGNORE): true if the row must be skipped.
    pub(crate) fn check_row_or_warn(
        &self,
        table: &TableDef,
        row: &[Value],
        cx: &mut ExecCtx,
    ) -> Result<bool, SqlError> {
        if self.checks.is_empty() {
            return Ok(false);
        }
        let row = crate::exec::access::session_row(table, row, cx);
        if let Some(name) = self.failed_check(&row, cx)? {
            let e = error::check_failed(name, &table.db, &table.name);
            cx.push_warning(WarnLevel::Warning, e.code, e.message);
            return Ok(true);
        }
        Ok(false)
    }

    pub(crate) fn has_foreign_keys(&self) -> bool {
        !self.parents.is_empty() || !self.children.is_empty()
    }

    pub(crate) fn is_referenced(&self) -> bool {
        !self.children.is_empty()
    }

    /// Each foreign key of the new row version must find its parent row, which stays S-locked
    /// to the end of the transaction (1452 otherwise). On UPDATE (`old` given), only foreign
    /// keys whose columns changed are checked, as in InnoDB.
    pub(crate) async fn check_parents(
        &self,
        row: &[Value],
        old: Option<&[Value]>,
        cx: &mut ExecCtx<'_>,
    ) -> Result<(), SqlError> {
        if self.parents.is_empty() || !foreign_key_checks(cx) {
            return Ok(());
        }
        for link in &self.parents {
            let key = values_at(row, &link.columns);
            if key.iter().any(Value::is_null) {
                continue;
            }
            if let Some(old) = old {
                if link.columns.iter().all(|&c| row[c] == old[c]) {
                    continue;
                }
            }
            let Some((parent, index, ref_cols)) = &link.parent else {
                return Err(error::no_referenced_row(&link.detail));
            };
            let found = locked_matches(cx, parent, *index, ref_cols, &key, LockMode::Shared, &[]).await?;
            if found.is_empty() {
                return Err(error::no_referenced_row(&link.detail));
            }
        }
        Ok(())
    }

    /// Before the row is deleted: RESTRICT fails with 1451 if children exist; CASCADE deletes
    /// them (and their children), SET NULL clears their foreign key columns.
    pub(crate) async fn on_delete(
        &self,
        table: &Arc<TableDef>,
        pk: &[u8],
        row: &[Value],
        cx: &mut ExecCtx<'_>,
    ) -> Result<(), SqlError> {
        if self.children.is_empty() || !foreign_key_checks(cx) {
            return Ok(());
        }
        let mut deleting = vec![(table.id, pk.to_vec())];
        self.delete_children(row, cx, 0, &mut deleting).await
    }

    fn delete_children<'a, 'b: 'a>(
        &'a self,
        row: &'a [Value],
        cx: &'a mut ExecCtx<'b>,
        depth: usize,
        deleting: &'a mut Vec<(TableId, Vec<u8>)>,
    ) -> BoxFut<'a, ()> {
        Box::pin(async move {
            for link in &self.children {
                let key = values_at(row, &link.ref_columns);
                if key.iter().any(Value::is_null) {
                    continue;
                }
                match link.on_delete {
                    ForeignKeyAction::Restrict | ForeignKeyAction::NoAction => {
                        let found =
                            locked_matches(cx, &link.child, link.index, &link.columns, &key, LockMode::Shared, &[])
                                .await?;
                        if !found.is_empty() {
                            return Err(error::row_is_referenced(&link.detail));
                        }
                    }
                    action => {
                        let found = locked_matches(
                            cx,
                            &link.child,
                            link.index,
                            &link.columns,
                            &key,
                            LockMode::Exclusive,
                            deleting,
                        )
                        .await?;
                        if found.is_empty() {
                            continue;
                        }
                        if depth + 1 >= MAX_CASCADE_DEPTH {
                            return Err(error::cascade_delete_too_deep(&link.detail));
                        }
                        let catalog = cx.env.catalog.get(cx.env.engine).clone();
                        let child_rules = rules_for(&catalog, &link.child)?;
                        for r in found {
                            if action == ForeignKeyAction::Cascade {
                                deleting.push((link.child.id, r.pk_key.clone()));
                                if let Some(rules) = &child_rules {
                                    rules.delete_children(&r.row, cx, depth + 1, deleting).await?;
                                }
                                cx.trx()?.delete(&link.child, &r.pk_key, &r.row).await?;
                                deleting.pop();
                            } else {
                                let mut new = r.row.clone();
                                for &c in &link.columns {
                                    new[c] = Value::Null;
                                }
                                cx.trx()?.update(&link.child, &r.pk_key, &r.row, new.clone()).await?;
                                if let Some(rules) = &child_rules {
                                    rules.update_children(&link.child, &r.row, &new, cx, depth + 1).await?;
                                }
                            }
                        }
                    }
                }
            }
            Ok(())
        })
    }

    /// Before UPDATE IGNORE changes a row from `old` to `new`: whether a RESTRICT (or NO
    /// ACTION) foreign key keeps it (a child refers to a referenced value that would change),
    /// so that the row is skipped before anything is written, as MariaDB skips it.
    pub(crate) async fn update_restricted(
        &self,
        old: &[Value],
        new: &[Value],
        cx: &mut ExecCtx<'_>,
    ) -> Result<bool, SqlError> {
        if self.children.is_empty() || !foreign_key_checks(cx) {
            return Ok(false);
        }
        for link in &self.children {
            let restrict = matches!(link.on_update, ForeignKeyAction::Restrict | ForeignKeyAction::NoAction)
                || link.child.id == self.table_id;
            if !restrict || link.ref_columns.iter().all(|&c| old[c] == new[c]) {
                continue;
            }
            let key = values_at(old, &link.ref_columns);
            if key.iter().any(Value::is_null) {
                continue;
            }
            let found = locked_matches(cx, &link.child, link.index, &link.columns, &key, LockMode::Shared, &[]).await?;
            if !found.is_empty() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// After the row changed from `old` to `new`: children of the old referenced values are
    /// refused (RESTRICT), follow (CASCADE) or lose their reference (SET NULL).
    pub(crate) async fn on_update(
        &self,
        table: &Arc<TableDef>,
        old: &[Value],
        new: &[Value],
        cx: &mut ExecCtx<'_>,
    ) -> Result<(), SqlError> {
        if self.children.is_empty() || !foreign_key_checks(cx) {
            return Ok(());
        }
        self.update_children(table, old, new, cx, 0).await
    }

    fn update_children<'a, 'b: 'a>(
        &'a self,
        table: &'a Arc<TableDef>,
        old: &'a [Value],
        new: &'a [Value],
        cx: &'a mut ExecCtx<'b>,
        depth: usize,
    ) -> BoxFut<'a, ()> {
        Box::pin(async move {
            for link in &self.children {
                if link.ref_columns.iter().all(|&c| old[c] == new[c]) {
                    continue;
                }
                let key = values_at(old, &link.ref_columns);
                if key.iter().any(Value::is_null) {
                    continue;
                }
                let restrict = matches!(link.on_update, ForeignKeyAction::Restrict | ForeignKeyAction::NoAction)
                    // InnoDB does not cascade an UPDATE into the table being updated.
                    || link.child.id == self.table_id;
                let mode = if restrict { LockMode::Shared } else { LockMode::Exclusive };
                let found = locked_matches(cx, &link.child, link.index, &link.columns, &key, mode, &[]).await?;
                if found.is_empty() {
                    continue;
                }
                if restrict {
                    return Err(error::row_is_referenced(&link.detail));
                }
                if depth + 1 >= MAX_CASCADE_DEPTH {
                    return Err(error::cascade_update_too_deep());
                }
                let catalog = cx.env.catalog.get(cx.env.engine).clone();
                let child_rules = rules_for(&catalog, &link.child)?;
                for r in found {
                    let mut changed = r.row.clone();
                    for (&c, &p) in link.columns.iter().zip(&link.ref_columns) {
                        changed[c] =
                            if link.on_update == ForeignKeyAction::Cascade { new[p].clone() } else { Value::Null };
                    }
                    cx.trx()?.update(&link.child, &r.pk_key, &r.row, changed.clone()).await?;
                    if let Some(rules) = &child_rules {
                        rules.update_children(&link.child, &r.row, &changed, cx, depth + 1).await?;
                    }
                }
            }
            let _ = table;
            Ok(())
        })
    }
}
