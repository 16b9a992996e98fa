//! FOREIGN KEY and CHECK clauses of CREATE TABLE (and ALTER TABLE ADD) turned into the
//! catalog's definitions, with MariaDB's names and checks:
//! - a column-level CHECK is named after its column; unnamed table checks are CONSTRAINT_1,
//!   CONSTRAINT_2, ... skipping names in use (1826 for a duplicate);
//! - a foreign key takes its CONSTRAINT name, else its index name (`FOREIGN KEY fk1 (...)`);
//!   unnamed ones are `<table>_ibfk_<n>`; each gets an index on its columns unless another
//!   index starts with them (named after the constraint, else the index name, else the first
//!   column), placed among the keys where the FOREIGN KEY was declared, as MariaDB's
//!   `mysql_prepare_create_table` does with its generated keys;
//! - with foreign_key_checks on, the parent must exist with an index starting with the
//!   referenced columns, of compatible types (InnoDB's `cmp_cols_are_equal`), and SET NULL
//!   needs nullable columns: otherwise 1005 (errno 150).

use std::sync::Arc;

use selkie_storage::{
    Catalog, CheckDef, ColumnDef, ColumnType, ForeignKeyAction, ForeignKeyDef, IndexColumn, IndexDef, NewIndex,
    NewTable, TableConstraints, TableDef, TableOptions,
};
use sqlparser::ast;

use super::enforce::{bind_check, index_on};
use super::print::check_text;
use crate::bind::object_name_parts;
use crate::error::{self, SqlError};

/// A FOREIGN KEY as declared, before names and indexes are settled.
struct DeclaredForeignKey<'a> {
    ast: &'a ast::ForeignKeyConstraint,
    columns: Vec<String>,
    /// Number of declared (non-primary) indexes before it.
    declared_before: usize,
}

fn action(a: &Option<ast::ReferentialAction>) -> Option<ForeignKeyAction> {
    match a {
        None => None,
        Some(ast::ReferentialAction::Restrict) => Some(ForeignKeyAction::Restrict),
        Some(ast::ReferentialAction::NoAction) => Some(ForeignKeyAction::NoAction),
        Some(ast::ReferentialAction::Cascade) => Some(ForeignKeyAction::Cascade),
        Some(ast::ReferentialAction::SetNull) => Some(ForeignKeyAction::SetNull),
        // InnoDB accepts SET DEFAULT and records nothing: it behaves as RESTRICT.
        Some(ast::ReferentialAction::SetDefault) => Some(ForeignKeyAction::Restrict),
    }
}

/// A table definition with only columns and indexes, to bind CHECK expressions and resolve
/// a self-referencing foreign key before the table exists.
pub(crate) fn provisional_table(t: &NewTable) -> TableDef {
    let index = |name: &str, columns: Vec<IndexColumn>, unique: bool, primary: bool| IndexDef {
        id: 0,
        name: name.to_string(),
        columns,
        unique,
        primary,
        root: 0,
    };
    TableDef {
        id: 0,
        db: t.db.clone(),
        name: t.name.clone(),
        columns: t.columns.clone(),
        primary: index("PRIMARY", t.primary_key.clone(), true, true),
        secondary: t.indexes.iter().map(|i| index(&i.name, i.columns.clone(), i.unique, false)).collect(),
        options: TableOptions::default(),
        constraints: TableConstraints::default(),
        row_versions: Default::default(),
    }
}

/// InnoDB's `cmp_cols_are_equal`: may a foreign key column reference this column?
fn compatible(child: &ColumnType, parent: &ColumnType) -> bool {
    use ColumnType as T;
    let text = |t: &T| matches!(t, T::Char { .. } | T::VarChar { .. } | T::Text { .. });
    // InnoDB stores these as binary strings (DECIMAL, DATETIME and TIMESTAMP included).
    let binary = |t: &T| {
        matches!(
            t,
            T::Binary { .. }
                | T::VarBinary { .. }
                | T::Blob { .. }
                | T::Decimal { .. }
                | T::DateTime { .. }
                | T::Timestamp { .. }
        )
    };
    match (child, parent) {
        (a, b) if text(a) && text(b) => true,
        (a, b) if binary(a) && binary(b) => true,
        (T::Int { width: wa, unsigned: ua, .. }, T::Int { width: wb, unsigned: ub, .. }) => wa == wb && ua == ub,
        (T::Float { .. }, T::Float { .. }) | (T::Double { .. }, T::Double { .. }) | (T::Date, T::Date) => true,
        // YEAR, TIME, ENUM, SET, UUID, INET4/6: a column of the very same type.
        (a, b) => a == b,
    }
}

/// Checks one foreign key against its parent (1005 / errno 150 when it cannot work).
pub(crate) fn validate_parent(child: &TableDef, fk: &ForeignKeyDef, parent: Option<&TableDef>) -> Result<(), SqlError> {
    let formed = || error::foreign_key_incorrectly_formed(&child.db, &child.name);
    let Some(parent) = parent else { return Err(formed()) };
    let child_cols: Vec<&ColumnDef> = fk
        .columns
        .iter()
        .map(|n| child.column_index(n).map(|i| &child.columns[i]))
        .collect::<Option<_>>()
        .ok_or_else(formed)?;
    let ref_positions: Vec<usize> =
        fk.ref_columns.iter().map(|n| parent.column_index(n)).collect::<Option<_>>().ok_or_else(formed)?;
    if index_on(parent, &ref_positions).is_none() {
        return Err(formed());
    }
    for (c, &p) in child_cols.iter().zip(&ref_positions) {
        if !compatible(&c.ty, &parent.columns[p].ty) {
            return Err(formed());
        }
    }
    let sets_null = fk.on_delete == Some(ForeignKeyAction::SetNull) || fk.on_update == Some(ForeignKeyAction::SetNull);
    if sets_null && child_cols.iter().any(|c| !c.nullable) {
        return Err(formed());
    }
    Ok(())
}

/// The next unused `<table>_ibfk_<n>` after the highest one the table has (InnoDB numbers
/// from the highest, so a dropped one is not reused before it).
pub(crate) fn next_fk_number(table: &str, existing: &[ForeignKeyDef]) -> u32 {
    let prefix = format!("{table}_ibfk_");
    existing.iter().filter_map(|fk| fk.name.strip_prefix(&prefix)?.parse::<u32>().ok()).max().unwrap_or(0) + 1
}

/// Makes a foreign key definition from the clause; `number` feeds unnamed keys.
pub(crate) fn foreign_key_def(
    fk: &ast::ForeignKeyConstraint,
    columns: Vec<String>,
    table_db: &str,
    table_name: &str,
    number: &mut u32,
) -> Result<ForeignKeyDef, SqlError> {
    if columns.len() != fk.referred_columns.len() {
        return Err(error::foreign_key_column_count(fk.name.as_ref().map(|n| n.value.as_str())));
    }
    let (ref_db, ref_table) = object_name_parts(&fk.foreign_table)?;
    // `FOREIGN KEY fk1 (...)` without CONSTRAINT: MariaDB names the constraint after the index.
    let name = match fk.name.as_ref().or(fk.index_name.as_ref()) {
        Some(n) => n.value.clone(),
        None => {
            let n = format!("{table_name}_ibfk_{number}");
            *number += 1;
            n
        }
    };
    Ok(ForeignKeyDef {
        name,
        columns,
        ref_db: ref_db.unwrap_or_else(|| table_db.to_string()),
        ref_table,
        ref_columns: fk.referred_columns.iter().map(|c| c.value.clone()).collect(),
        on_delete: action(&fk.on_delete),
        on_update: action(&fk.on_update),
    })
}

/// Whether another table of `db` has a foreign key named `name` (InnoDB's names are per
/// database).
pub(crate) fn name_used_in_database(catalog: &Catalog, db: &str, table: &str, name: &str) -> bool {
    catalog
        .tables
        .values()
        .filter(|t| t.db == db && t.name != table)
        .any(|t| t.constraints.foreign_keys.iter().any(|fk| fk.name == name))
}

/// Binds a CHECK's printed text over the table's columns (1054 names 'CHECK' for an unknown
/// column).
pub(crate) fn validate_check(catalog: &Catalog, table: &TableDef, text: &str) -> Result<(), SqlError> {
    let e = bind_check(catalog, &Arc::new(table.clone()), text)?;
    // MariaDB checks a row before it takes its AUTO_INCREMENT value, so it refuses a CHECK
    // that reads that column (1901 names the column).
    let mut auto_increment = None;
    e.columns(&mut |c| {
        if table.columns.get(c).is_some_and(|col| col.auto_increment) {
            auto_increment = Some(c);
        }
    });
    if let Some(c) = auto_increment {
        return Err(SqlError::new(
            1901,
            "HY000",
            format!(
                "Function or expression 'AUTO_INCREMENT' cannot be used in the CHECK clause of `{}`",
                table.columns[c].name
            ),
        ));
    }
    Ok(())
}

/// Whether a table constraint is a FOREIGN KEY or CHECK (handled here, not as an index).
pub(crate) fn is_constraint_clause(c: &ast::TableConstraint) -> bool {
    matches!(c, ast::TableConstraint::ForeignKey(_) | ast::TableConstraint::Check(_))
}

/// Whether a column option is a REFERENCES or CHECK (handled here).
pub(crate) fn is_constraint_option(o: &ast::ColumnOption) -> bool {
    matches!(o, ast::ColumnOption::ForeignKey(_) | ast::ColumnOption::Check(_))
}

/// Unnamed CHECK constraints get CONSTRAINT_<n>, n counting up past names in use.
pub(crate) fn check_name(taken: &[String], counter: &mut u32) -> String {
    loop {
        let n = format!("CONSTRAINT_{counter}");
        *counter += 1;
        if !taken.iter().any(|t| t.eq_ignore_ascii_case(&n)) {
            return n;
        }
    }
}

/// The constraints of CREATE TABLE `ct`, whose columns and declared indexes are in `t`; adds
/// the foreign keys' generated indexes to `t.indexes`.
pub(crate) fn create_table_constraints(
    catalog: &Catalog,
    ct: &ast::CreateTable,
    t: &mut NewTable,
    foreign_key_checks: bool,
) -> Result<TableConstraints, SqlError> {
    let mut declared = 0usize;
    let mut fks: Vec<DeclaredForeignKey> = Vec::new();
    let mut column_checks: Vec<(String, &ast::Expr)> = Vec::new();
    let mut table_checks: Vec<(Option<String>, &ast::Expr)> = Vec::new();
    for cd in &ct.columns {
        for opt in &cd.options {
            match &opt.option {
                ast::ColumnOption::Unique(_) => declared += 1,
                ast::ColumnOption::ForeignKey(fk) => fks.push(DeclaredForeignKey {
                    ast: fk,
                    columns: vec![cd.name.value.clone()],
                    declared_before: declared,
                }),
                ast::ColumnOption::Check(c) => column_checks.push((cd.name.value.clone(), &c.expr)),
                _ => {}
            }
        }
    }
    for c in &ct.constraints {
        match c {
            ast::TableConstraint::Unique(_) | ast::TableConstraint::Index(_) => declared += 1,
            ast::TableConstraint::ForeignKey(fk) => fks.push(DeclaredForeignKey {
                ast: fk,
                columns: fk.columns.iter().map(|c| c.value.clone()).collect(),
                declared_before: declared,
            }),
            ast::TableConstraint::Check(c) => table_checks.push((c.name.as_ref().map(|n| n.value.clone()), &c.expr)),
            _ => {}
        }
    }
    if fks.is_empty() && column_checks.is_empty() && table_checks.is_empty() {
        return Ok(TableConstraints::default());
    }

    // CHECK constraints.
    let provisional = provisional_table(t);
    let mut checks = Vec::new();
    for (col, e) in column_checks {
        let text = check_text(e, &col)?;
        validate_check(catalog, &provisional, &text)?;
        checks.push(CheckDef { name: col.clone(), column: Some(col), expr: text });
    }
    let mut taken: Vec<String> = Vec::new();
    for (name, _) in &table_checks {
        if let Some(n) = name {
            if taken.iter().any(|t| t.eq_ignore_ascii_case(n)) {
                return Err(error::duplicate_constraint_name("CHECK", n));
            }
            taken.push(n.clone());
        }
    }
    let mut counter = 1;
    for (name, e) in table_checks {
        let name = match name {
            Some(n) => n,
            None => check_name(&taken, &mut counter),
        };
        let text = check_text(e, &name)?;
        validate_check(catalog, &provisional, &text)?;
        checks.push(CheckDef { name, column: None, expr: text });
    }

    // Foreign keys and their indexes.
    let mut defs = Vec::new();
    let mut generated: Vec<(usize, NewIndex)> = Vec::new();
    let mut number = 1;
    for d in &fks {
        let mut positions = Vec::with_capacity(d.columns.len());
        for c in &d.columns {
            let pos = t
                .columns
                .iter()
                .position(|x| x.name.eq_ignore_ascii_case(c))
                .ok_or_else(|| error::key_column_missing(c))?;
            positions.push(pos);
        }
        let def = foreign_key_def(d.ast, d.columns.clone(), &t.db, &t.name, &mut number)?;
        if defs.iter().any(|x: &ForeignKeyDef| x.name == def.name) {
            return Err(error::foreign_key_incorrectly_formed(&t.db, &t.name));
        }
        if name_used_in_database(catalog, &t.db, &t.name, &def.name) {
            return Err(error::foreign_key_duplicate_name(&t.db, &t.name));
        }
        let index_name = d.ast.name.as_ref().or(d.ast.index_name.as_ref()).map(|n| n.value.clone());
        let columns =
            positions.iter().map(|&column| IndexColumn { column, prefix_len: None, descending: false }).collect();
        generated.push((d.declared_before, NewIndex { name: index_name.unwrap_or_default(), columns, unique: false }));
        defs.push(def);
    }
    add_generated_indexes(t, generated);

    if foreign_key_checks {
        let me = provisional_table(t);
        for fk in &defs {
            let own = fk.ref_db == t.db && fk.ref_table == t.name;
            let parent = if own { Some(&me) } else { catalog.table(&fk.ref_db, &fk.ref_table).map(|p| &**p) };
            validate_parent(&me, fk, parent)?;
        }
    }
    Ok(TableConstraints { foreign_keys: defs, checks })
}

fn is_prefix(short: &[IndexColumn], long: &[IndexColumn]) -> bool {
    short.len() <= long.len()
        && short.iter().zip(long).all(|(a, b)| a.column == b.column && a.prefix_len == b.prefix_len)
}

/// MariaDB's name for an unnamed index: its first column, then `_2`, `_3`, ... (as
/// `ddl::index_name`, which sits above this module).
pub(crate) fn index_name(first_column: &str, taken: &[String]) -> String {
    let free = |n: &str| !taken.iter().any(|t| t.eq_ignore_ascii_case(n)) && !n.eq_ignore_ascii_case("PRIMARY");
    if free(first_column) {
        return first_column.to_string();
    }
    (2..).map(|i| format!("{first_column}_{i}")).find(|n| free(n)).unwrap_or_default()
}

/// Inserts the foreign keys' indexes among the declared ones, dropping each that another index
/// starts with (a later generated one of the same columns wins, as in MariaDB).
fn add_generated_indexes(t: &mut NewTable, generated: Vec<(usize, NewIndex)>) {
    let mut keep = Vec::new();
    for (i, (pos, g)) in generated.iter().enumerate() {
        let covered_by_declared = is_prefix(&g.columns, &t.primary_key) && !t.primary_key.is_empty()
            || t.indexes.iter().any(|ix| is_prefix(&g.columns, &ix.columns));
        let covered_by_generated = generated.iter().enumerate().any(|(j, (_, o))| {
            j != i && is_prefix(&g.columns, &o.columns) && (o.columns.len() > g.columns.len() || j > i)
        });
        if !covered_by_declared && !covered_by_generated {
            keep.push((*pos, g.clone()));
        }
    }
    for (inserted, (pos, mut g)) in keep.into_iter().enumerate() {
        if g.name.is_empty() {
            let first = t.columns[g.columns[0].column].name.clone();
            let taken: Vec<String> = t.indexes.iter().map(|i| i.name.clone()).collect();
            g.name = index_name(&first, &taken);
        }
        t.indexes.insert((pos + inserted).min(t.indexes.len()), g);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_check_names_skip_taken_ones() {
        let taken = vec!["CONSTRAINT_1".to_string()];
        let mut counter = 1;
        assert_eq!(check_name(&taken, &mut counter), "CONSTRAINT_2");
        assert_eq!(check_name(&taken, &mut counter), "CONSTRAINT_3");
    }

    #[test]
    fn foreign_key_numbers_follow_the_highest() {
        let fk = |name: &str| ForeignKeyDef {
            name: name.into(),
            columns: vec![],
            ref_db: String::new(),
            ref_table: String::new(),
            ref_columns: vec![],
            on_delete: None,
            on_update: None,
        };
        assert_eq!(next_fk_number("t", &[]), 1);
        assert_eq!(next_fk_number("t", &[fk("t_ibfk_3"), fk("x"), fk("t_ibfk_1")]), 4);
    }

    #[test]
    fn innodb_column_compatibility() {
        use selkie_storage::IntWidth;
        let int = |w, u| ColumnType::Int { width: w, unsigned: u, display_width: None };
        assert!(compatible(
            &int(IntWidth::Int, false),
            &ColumnType::Int { width: IntWidth::Int, unsigned: false, display_width: Some(11) }
        ));
        assert!(!compatible(&int(IntWidth::Big, false), &int(IntWidth::Int, false)));
        assert!(!compatible(&int(IntWidth::Int, true), &int(IntWidth::Int, false)));
        assert!(compatible(&ColumnType::Char { len: 5 }, &ColumnType::VarChar { len: 10 }));
        assert!(!compatible(&ColumnType::Char { len: 5 }, &ColumnType::Binary { len: 5 }));
    }
}
