//! ALTER TABLE ... ADD [CONSTRAINT name] FOREIGN KEY / CHECK, DROP FOREIGN KEY name,
//! DROP CONSTRAINT name. Each is one DDL of its own: ADD FOREIGN KEY first
//! builds the index it needs (when no index starts with its columns), and both ADDs check the
//! existing rows (1452 / 4025) unless foreign_key_checks / check_constraint_checks are off.
//!
//! The rows are read by a transaction of the DDL's own before the constraint is published, so a
//! row written by another session in between is not checked (MariaDB copies the table under a
//! lock instead).

use std::collections::HashMap;
use std::sync::Arc;

use selkie_storage::{
    CheckDef, Engine, IndexColumn, IsolationLevel, KeyRange, NewIndex, ReadMode, TableDef, TrxOptions,
};
use sqlparser::ast;

use super::define::{
    check_name, foreign_key_def, name_used_in_database, next_fk_number, validate_check, validate_parent,
};
use super::enforce::{bind_check, foreign_key_checks, index_on, point_range};
use super::print::check_text;
use crate::error::{self, SqlError};
use crate::exec::ctx::ExecCtx;
use crate::types::Value;
use crate::value;

/// Which DROP: FOREIGN KEY, or CONSTRAINT (a foreign key or a check).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DropKind {
    ForeignKey,
    Any,
}

/// ALTER TABLE ... DROP FOREIGN KEY / CHECK / CONSTRAINT `name` (1091 if there is none).
/// The foreign key's index stays, as in MariaDB.
pub(crate) async fn drop_constraint(
    engine: &Engine,
    table: &Arc<TableDef>,
    name: &str,
    kind: DropKind,
    if_exists: bool,
) -> Result<bool, SqlError> {
    let mut c = table.constraints.clone();
    let fk = c.foreign_keys.iter().position(|f| f.name.eq_ignore_ascii_case(name));
    let check = c.checks.iter().position(|k| k.name.eq_ignore_ascii_case(name));
    match (kind, fk, check) {
        (DropKind::ForeignKey | DropKind::Any, Some(i), _) => {
            c.foreign_keys.remove(i);
        }
        (DropKind::Any, _, Some(i)) => {
            c.checks.remove(i);
        }
        _ if if_exists => return Ok(false),
        (DropKind::ForeignKey, ..) => return Err(error::cant_drop_constraint("FOREIGN KEY", name)),
        _ => return Err(error::cant_drop_constraint("CONSTRAINT", name)),
    }
    engine.set_table_constraints(&table.db, &table.name, c).await?;
    Ok(true)
}

/// ALTER TABLE ... ADD [CONSTRAINT name] FOREIGN KEY ... / CHECK (...). Returns the rows
/// checked, which MariaDB reports as affected (it copies the table to check them).
pub(crate) async fn add_constraint(
    engine: &Engine,
    cx: &mut ExecCtx<'_>,
    table: &Arc<TableDef>,
    c: &ast::TableConstraint,
) -> Result<u64, SqlError> {
    let catalog = engine.catalog();
    let mut copied = 0;
    match c {
        ast::TableConstraint::Check(ck) => {
            let mut constraints = table.constraints.clone();
            let taken: Vec<String> = constraints.checks.iter().map(|k| k.name.clone()).collect();
            let name = match &ck.name {
                Some(n) => {
                    if taken.iter().any(|t| t.eq_ignore_ascii_case(&n.value)) {
                        return Err(error::duplicate_constraint_name("CHECK", &n.value));
                    }
                    n.value.clone()
                }
                None => check_name(&taken, &mut 1),
            };
            let text = check_text(&ck.expr, &name)?;
            validate_check(&catalog, table, &text)?;
            // MariaDB copies the table and checks every row against every constraint, the
            // old ones first: the error names the first that fails.
            let mut all = Vec::with_capacity(constraints.checks.len() + 1);
            for k in &constraints.checks {
                let shown = if k.column.is_some() { format!("{}.{}", table.name, k.name) } else { k.name.clone() };
                all.push((shown, bind_check(&catalog, table, &k.expr)?));
            }
            all.push((name.clone(), bind_check(&catalog, table, &text)?));
            let on =
                value::truthy(&cx.system_variable("check_constraint_checks", crate::variables::VarScope::Session)?)
                    .unwrap_or(true);
            if on {
                let mut failed_name = None;
                copied = scan_rows(engine, &*cx, table, |row, cx| {
                    for (shown, expr) in &all {
                        if value::truthy(&expr.eval(row, cx)?) == Some(false) {
                            failed_name = Some(shown.clone());
                            return Ok(true);
                        }
                    }
                    Ok(false)
                })?
                .0;
                if let Some(shown) = failed_name {
                    return Err(error::check_failed(&shown, &table.db, &table.name));
                }
            }
            constraints.checks.push(CheckDef { name, column: None, expr: text });
            engine.set_table_constraints(&table.db, &table.name, constraints).await?;
            Ok(copied)
        }
        ast::TableConstraint::ForeignKey(fk) => {
            let columns: Vec<String> = fk.columns.iter().map(|c| c.value.clone()).collect();
            let mut positions = Vec::with_capacity(columns.len());
            for c in &columns {
                positions.push(table.column_index(c).ok_or_else(|| error::key_column_missing(c))?);
            }
            let mut number = next_fk_number(&table.name, &table.constraints.foreign_keys);
            let def = foreign_key_def(fk, columns, &table.db, &table.name, &mut number)?;
            if table.constraints.foreign_keys.iter().any(|f| f.name == def.name)
                || name_used_in_database(&catalog, &table.db, &table.name, &def.name)
            {
                return Err(error::foreign_key_duplicate_name(&table.db, &table.name));
            }
            let checks = foreign_key_checks(cx);
            if checks {
                let parent = catalog.table(&def.ref_db, &def.ref_table).map(|p| &**p);
                let parent =
                    if def.ref_db == table.db && def.ref_table == table.name { Some(&**table) } else { parent };
                validate_parent(table, &def, parent)?;
                // Existing rows must have their parents (1452).
                if let Some(parent) = catalog.table(&def.ref_db, &def.ref_table).cloned() {
                    let ref_cols: Vec<usize> = def.ref_columns.iter().filter_map(|n| parent.column_index(n)).collect();
                    let index = index_on(&parent, &ref_cols);
                    let detail = crate::show::foreign_key_detail(table, &def);
                    let (rows, orphan) = scan_rows(engine, &*cx, table, |row, cx| {
                        let key: Vec<Value> = positions.iter().map(|&p| row[p].clone()).collect();
                        if key.iter().any(Value::is_null) {
                            return Ok(false);
                        }
                        Ok(!has_row(cx, &parent, index, &ref_cols, &key)?)
                    })?;
                    if orphan {
                        return Err(error::no_referenced_row(&detail));
                    }
                    copied = rows;
                }
            }
            if index_on(table, &positions).is_none() {
                let name = fk.name.as_ref().or(fk.index_name.as_ref()).map(|n| n.value.clone()).unwrap_or_else(|| {
                    let taken: Vec<String> = table.indexes().map(|i| i.name.clone()).collect();
                    super::define::index_name(&table.columns[positions[0]].name, &taken)
                });
                let columns = positions
                    .iter()
                    .map(|&column| IndexColumn { column, prefix_len: None, descending: false })
                    .collect();
                engine.create_index(&table.db, &table.name, NewIndex { name, columns, unique: false }).await?;
            }
            let current = engine.catalog().table(&table.db, &table.name).cloned().unwrap_or_else(|| table.clone());
            let mut constraints = current.constraints.clone();
            constraints.foreign_keys.push(def);
            engine.set_table_constraints(&table.db, &table.name, constraints).await?;
            Ok(copied)
        }
        _ => Err(error::internal("add_constraint on an index constraint")),
    }
}

/// Whether `table` has a row whose `cols` equal `key` (latest committed versions).
fn has_row(
    cx: &mut ExecCtx<'_>,
    table: &Arc<TableDef>,
    index: Option<usize>,
    cols: &[usize],
    key: &[Value],
) -> Result<bool, SqlError> {
    let (index_no, range) = match index {
        Some(i) => (i, point_range(table, i, key)),
        None => (0, KeyRange::all()),
    };
    let trx = cx.trx()?;
    let mut scan = trx.scan(table, index_no, range, false, ReadMode::Latest)?;
    while let Some(r) = scan.next(trx)? {
        if cols.iter().zip(key).all(|(&c, k)| value::compare(&r.row[c], k) == Some(std::cmp::Ordering::Equal)) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Runs `test` on every row of `table` in a read-only transaction of its own; stops at the first
/// row that passes the test. Returns the number of rows (what MariaDB's copying ALTER reports as
/// affected rows) and whether one passed.
fn scan_rows(
    engine: &Engine,
    cx: &ExecCtx<'_>,
    table: &Arc<TableDef>,
    mut test: impl FnMut(&[Value], &mut ExecCtx<'_>) -> Result<bool, SqlError>,
) -> Result<(u64, bool), SqlError> {
    let slot = engine.register_session()?;
    let opts = TrxOptions {
        isolation: IsolationLevel::ReadCommitted,
        read_only: true,
        lock_wait_timeout: std::time::Duration::from_secs(1),
    };
    let mut trx = engine.begin(&slot, opts);
    let mut user_vars = HashMap::new();
    let mut sub = ExecCtx::new(cx.env, Some(&mut trx), &[], &mut user_vars, 1, 0);
    let rows: Vec<Vec<Value>> = {
        let t = sub.trx()?;
        let mut scan = t.scan(table, 0, KeyRange::all(), false, ReadMode::Latest)?;
        let mut out = Vec::new();
        while let Some(r) = scan.next(t)? {
            out.push(r.row);
        }
        out
    };
    let mut found = false;
    for row in &rows {
        if test(row, &mut sub)? {
            found = true;
            break;
        }
    }
    drop(sub);
    trx.rollback()?;
    Ok((rows.len() as u64, found))
}

/// After ALTER TABLE renamed columns of `db`.`table` ((old, new) in order), as InnoDB does:
/// foreign keys that reference them (the table's own included) name the new columns. Each
/// changed table is its own DDL, as in `after_rename`.
pub(crate) async fn after_column_renames(
    engine: &Engine,
    db: &str,
    table: &str,
    renamed: &[(String, String)],
) -> Result<(), SqlError> {
    if renamed.is_empty() {
        return Ok(());
    }
    let catalog = engine.catalog();
    let mut tables: Vec<&Arc<TableDef>> = catalog.tables.values().collect();
    tables.sort_by(|a, b| (&a.db, &a.name).cmp(&(&b.db, &b.name)));
    for t in tables {
        let mut c = t.constraints.clone();
        let mut changed = false;
        for fk in c.foreign_keys.iter_mut().filter(|fk| fk.ref_db == db && fk.ref_table == table) {
            for (old, new) in renamed {
                for col in fk.ref_columns.iter_mut().filter(|col| col.eq_ignore_ascii_case(old)) {
                    *col = new.clone();
                    changed = true;
                }
            }
        }
        if changed {
            engine.set_table_constraints(&t.db, &t.name, c).await?;
        }
    }
    Ok(())
}

/// After RENAME TABLE, as InnoDB does: foreign keys that reference the table follow it, and the
/// table's own generated key names (`<old>_ibfk_<n>`) take the new name. Each changed table is
/// its own DDL after the rename (a crash in between leaves the old names, which
/// foreign_key_checks=0 and ALTER TABLE can repair).
pub(crate) async fn after_rename(
    engine: &Engine,
    old_db: &str,
    old: &str,
    new_db: &str,
    new: &str,
) -> Result<(), SqlError> {
    let catalog = engine.catalog();
    let prefix = format!("{old}_ibfk_");
    let mut tables: Vec<&Arc<TableDef>> = catalog.tables.values().collect();
    tables.sort_by(|a, b| (&a.db, &a.name).cmp(&(&b.db, &b.name)));
    for t in tables {
        let renamed = t.db == new_db && t.name == new;
        let mut c = t.constraints.clone();
        let mut changed = false;
        for fk in &mut c.foreign_keys {
            if fk.ref_db == old_db && fk.ref_table == old {
                fk.ref_db = new_db.to_string();
                fk.ref_table = new.to_string();
                changed = true;
            }
            if renamed {
                if let Some(n) = fk.name.strip_prefix(&prefix).filter(|n| n.parse::<u32>().is_ok()) {
                    fk.name = format!("{new}_ibfk_{n}");
                    changed = true;
                }
            }
        }
        if changed {
            engine.set_table_constraints(&t.db, &t.name, c).await?;
        }
    }
    Ok(())
}
