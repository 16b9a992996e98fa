//! Generated columns, `col type [GENERATED ALWAYS] AS (expr) [VIRTUAL | PERSISTENT | STORED]`,
//! as MariaDB 10.11 has them: their definition at CREATE / ALTER TABLE (the expression printed
//! as MariaDB prints it, with MariaDB's checks and errors), and their values on row changes.
//!
//! Both kinds are computed when a row is written (INSERT, REPLACE, UPDATE, ON DUPLICATE KEY
//! UPDATE, ALTER TABLE's copy) and kept in the row; `selkie_storage::GeneratedColumn` says why
//! VIRTUAL values are stored too. A VIRTUAL value is converted to the column's type silently,
//! because MariaDB computes it when the row is read, where no statement reports warnings for it.
//!
//! Floor: beside `constraints` (whose expression printer and binder it shares), above `exec`,
//! below `dml`, `ddl` and `alter`, which call it.

use std::sync::Arc;

use selkie_storage::{Catalog, ColumnDef, GeneratedColumn, IndexDef, TableDef, TableOptions};
use sqlparser::ast;

use crate::error::{self, Clause, SqlError};
use crate::exec::ctx::ExecCtx;
use crate::plan::Expr;
use crate::types::{Value, WarnLevel};
use crate::value::{self, FnContext, StoreTarget};

/// A generated column as declared in a column definition.
pub(crate) struct Declared<'a> {
    pub expr: &'a ast::Expr,
    pub stored: bool,
}

/// The GENERATED ALWAYS AS / AS (expr) option of a column definition (None for other options).
/// sqlparser reads PERSISTENT as STORED (`parse::type_modifiers` rewrites it).
pub(crate) fn declared(o: &ast::ColumnOption) -> Result<Option<Declared<'_>>, SqlError> {
    let ast::ColumnOption::Generated { generation_expr, generation_expr_mode, sequence_options, .. } = o else {
        return Ok(None);
    };
    match (generation_expr, sequence_options) {
        (Some(expr), None) => {
            Ok(Some(Declared { expr, stored: *generation_expr_mode == Some(ast::GeneratedExpressionMode::Stored) }))
        }
        _ => Err(error::syntax(&o.to_string(), 1)),
    }
}

fn not_allowed(what: &str, column: &str) -> SqlError {
    SqlError::new(
        1901,
        "HY000",
        format!("Function or expression '{what}' cannot be used in the GENERATED ALWAYS AS clause of `{column}`"),
    )
}

/// 1903: a PRIMARY KEY may not include a generated column.
pub(crate) fn primary_key_refused() -> SqlError {
    SqlError::new(1903, "HY000", "Primary key cannot be defined upon a generated column")
}

/// 1907: what MariaDB's ALTER TABLE cannot do with generated columns (turn an ordinary column
/// into a generated one, or change VIRTUAL to STORED and back).
pub(crate) fn alter_refused() -> SqlError {
    SqlError::new(1907, "HY000", "This is not yet supported for generated columns")
}

/// Settles the generated columns of a table definition being created: `declared[i]` is
/// column i's clause. Prints each expression (1901 for what MariaDB refuses), then checks the
/// whole table (`check_table`).
pub(crate) fn define(
    catalog: &Catalog,
    db: &str,
    table: &str,
    columns: &mut [ColumnDef],
    declared: &[Option<Declared<'_>>],
) -> Result<(), SqlError> {
    let mut any = false;
    for (c, d) in columns.iter_mut().zip(declared) {
        if let Some(d) = d {
            let expr = crate::constraints::generated_text(d.expr, &c.name)?;
            c.generated = Some(GeneratedColumn { expr, stored: d.stored });
            // A generated column's value may always be NULL: MariaDB shows it nullable.
            c.nullable = true;
            any = true;
        }
    }
    if any {
        check_table(catalog, db, table, columns)?;
    }
    Ok(())
}

/// A table definition with only its columns, to bind expressions before the table exists.
fn provisional(db: &str, name: &str, columns: &[ColumnDef]) -> Arc<TableDef> {
    Arc::new(TableDef {
        id: 0,
        db: db.to_string(),
        name: name.to_string(),
        columns: columns.to_vec(),
        primary: IndexDef { id: 0, name: "PRIMARY".into(), columns: Vec::new(), unique: true, primary: true, root: 0 },
        secondary: Vec::new(),
        options: TableOptions::default(),
        constraints: Default::default(),
        row_versions: Default::default(),
    })
}

/// Checks every generated column of `columns` as MariaDB does when it opens the table: the
/// expression names existing columns (1054 in 'GENERATED ALWAYS AS'), only ordinary columns and
/// earlier generated ones (4029), no AUTO_INCREMENT column from a STORED one (1901), and nothing
/// whose value is not a function of the row (1901).
pub(crate) fn check_table(catalog: &Catalog, db: &str, table: &str, columns: &[ColumnDef]) -> Result<(), SqlError> {
    let t = provisional(db, table, columns);
    // Whether each column's value depends on the AUTO_INCREMENT value, which a STORED column
    // may not read, not even through a VIRTUAL one.
    let mut reads_auto_increment: Vec<bool> = columns.iter().map(|c| c.auto_increment).collect();
    for (i, c) in columns.iter().enumerate() {
        let Some(g) = &c.generated else { continue };
        let bound = crate::constraints::bind_row_expr(catalog, &t, &g.expr, Clause::Generated)?;
        if bound.is_volatile() || bound.has_subquery() || bound.has_aggregate() {
            return Err(not_allowed(&g.expr, &c.name));
        }
        let mut refused = None;
        bound.columns(&mut |r| {
            if refused.is_some() {
                return;
            }
            let other = &columns[r];
            if other.generated.is_some() && r >= i {
                refused = Some(SqlError::new(
                    4029,
                    "01000",
                    format!("Expression for field `{}` is referring to uninitialized field `{}`", c.name, other.name),
                ));
            } else if reads_auto_increment[r] {
                if g.stored {
                    refused = Some(if other.auto_increment {
                        not_allowed("AUTO_INCREMENT", &other.name)
                    } else {
                        not_allowed(&other.name, &c.name)
                    });
                }
                reads_auto_increment[i] = true;
            }
        });
        if let Some(e) = refused {
            return Err(e);
        }
    }
    Ok(())
}

/// Renames column `old` to `new` in the generated columns' expressions (ALTER TABLE CHANGE /
/// RENAME COLUMN). The stored text back-quotes every column name (`constraints::generated_text`),
/// so the names to replace are the back-quoted words outside string literals.
pub(crate) fn rename_column(columns: &mut [ColumnDef], old: &str, new: &str) {
    for c in columns.iter_mut() {
        if let Some(g) = &mut c.generated {
            g.expr = renamed(&g.expr, old, new);
        }
    }
}

/// The backquoted names an expression's stored text refers to (its columns: stored CHECK and
/// generated expressions quote every column name), each once, as written.
pub(crate) fn quoted_names(text: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    map_quoted_names(text, |name| {
        if !names.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            names.push(name.clone());
        }
        name
    });
    names
}

/// `text` with the backquoted name `old` (any case) made `new`.
pub(crate) fn renamed(text: &str, old: &str, new: &str) -> String {
    map_quoted_names(text, |name| if name.eq_ignore_ascii_case(old) { new.to_string() } else { name })
}

/// `text` with each backquoted name replaced by what `f` makes of it (unquoted in, quoted
/// again out); string literals are left as they are.
fn map_quoted_names(text: &str, mut f: impl FnMut(String) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\'' => {
                out.push(ch);
                while let Some(c) = chars.next() {
                    out.push(c);
                    match c {
                        '\\' => out.extend(chars.next()),
                        '\'' => break,
                        _ => {}
                    }
                }
            }
            '`' => {
                let mut name = String::new();
                while let Some(c) = chars.next() {
                    if c == '`' {
                        if chars.peek() == Some(&'`') {
                            chars.next();
                            name.push('`');
                            continue;
                        }
                        break;
                    }
                    name.push(c);
                }
                let name = f(name);
                out.push('`');
                out.push_str(&name.replace('`', "``"));
                out.push('`');
            }
            c => out.push(c),
        }
    }
    out
}

/// The generated columns of a table, bound for computing their values.
#[derive(Debug)]
pub(crate) struct GeneratedValues {
    /// (column, expression), in column order: a column may use an earlier one.
    columns: Vec<(usize, Expr)>,
}

/// The generated columns of `table` bound over its row; None when it has none.
pub(crate) fn values_for(catalog: &Catalog, table: &Arc<TableDef>) -> Result<Option<Arc<GeneratedValues>>, SqlError> {
    let mut columns = Vec::new();
    for (i, c) in table.columns.iter().enumerate() {
        if let Some(g) = &c.generated {
            columns.push((i, crate::constraints::bind_row_expr(catalog, table, &g.expr, Clause::Generated)?));
        }
    }
    Ok((!columns.is_empty()).then(|| Arc::new(GeneratedValues { columns })))
}

/// A rebuilt table's definition (which messages name) and its generated columns.
pub(crate) type RebuiltValues = (Arc<TableDef>, Arc<GeneratedValues>);

/// The generated columns of a table being rebuilt with `columns` (ALTER TABLE), with the
/// definition their messages name; None when it has none.
pub(crate) fn values_for_columns(
    catalog: &Catalog,
    db: &str,
    table: &str,
    columns: &[ColumnDef],
) -> Result<Option<RebuiltValues>, SqlError> {
    if columns.iter().all(|c| c.generated.is_none()) {
        return Ok(None);
    }
    let t = provisional(db, table, columns);
    Ok(values_for(catalog, &t)?.map(|v| (t, v)))
}

impl GeneratedValues {
    /// The positions of the generated columns.
    pub(crate) fn positions(&self) -> impl Iterator<Item = usize> + '_ {
        self.columns.iter().map(|(i, _)| *i)
    }

    /// Computes the generated columns of a new row version, converted to their types (a
    /// STORED one with the store rules of INSERT, `row_number` naming the row in messages).
    pub(crate) fn fill(
        &self,
        table: &TableDef,
        row: &mut [Value],
        row_number: u64,
        cx: &mut ExecCtx,
    ) -> Result<(), SqlError> {
        for (i, e) in &self.columns {
            let v = e.eval(row, cx)?;
            let col = &table.columns[*i];
            let target = StoreTarget { db: &table.db, table: &table.name, row: row_number };
            let stored = col.generated.as_ref().is_none_or(|g| g.stored);
            row[*i] = if stored {
                value::store_for_column_at(v, col, Some(&target), &*cx)?
            } else {
                let mark = cx.warning_mark();
                let strict = cx.set_strict(false);
                let r = value::store_for_column_at(v, col, Some(&target), &*cx);
                cx.set_strict(strict);
                cx.drop_warnings_after(mark);
                r?
            };
        }
        Ok(())
    }
}

/// A value given for a generated column by INSERT or UPDATE: MariaDB ignores it, with error
/// 1906 in strict mode and warning 1906 otherwise. NULL (like DEFAULT) is accepted silently.
pub(crate) fn value_given(table: &TableDef, col: &ColumnDef, v: &Value, cx: &ExecCtx) -> Result<(), SqlError> {
    if v.is_null() {
        return Ok(());
    }
    let e = SqlError::new(
        1906,
        "HY000",
        format!("The value specified for generated column '{}' in table '{}' has been ignored", col.name, table.name),
    );
    if cx.strict() {
        return Err(e);
    }
    cx.push_warning(WarnLevel::Warning, e.code, e.message);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_names_are_the_columns_of_a_stored_expression() {
        assert_eq!(quoted_names("(`a` < `B`) and `a` <> 'x`y' and char_length(`c``d`) > 0"), ["a", "B", "c`d"]);
    }

    #[test]
    fn renames_back_quoted_columns_outside_strings() {
        assert_eq!(renamed("concat('`a`',`a`,`ab`)", "a", "z"), "concat('`a`',`z`,`ab`)");
        assert_eq!(renamed("`A` + 1", "a", "x`y"), "`x``y` + 1");
        assert_eq!(renamed("'it\\'s' = `a`", "a", "b"), "'it\\'s' = `b`");
    }
}
