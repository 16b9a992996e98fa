//! Column defaults that are expressions, `DEFAULT (expr)` / `DEFAULT func()` /
//! `DEFAULT NEXT VALUE FOR s`, as MariaDB 10.2+ has them: their definition at CREATE / ALTER
//! TABLE (the text MariaDB prints, its checks and errors), and their values when a row is
//! inserted without the column (or with the DEFAULT keyword).
//!
//! What stays a value: a literal, possibly in parentheses or negated (`DEFAULT (5)` is shown as
//! `DEFAULT 5`), and CURRENT_TIMESTAMP on a DATETIME / TIMESTAMP column. Everything else is
//! kept as its text (`ColumnDefault::Expression`), even a constant one: MariaDB shows
//! `DEFAULT (1 + 1)`, not 2.
//!
//! When a row is inserted, MariaDB first fills the record with the values given, in the order
//! of the column list, then computes the defaults of the columns not given, in column order
//! (`TABLE::update_default_fields`). So `b DEFAULT (a * 2)` reads the row's final `a`. A DEFAULT
//! keyword in the list is evaluated where it stands: values later in the list are not there yet
//! (their columns still hold the default record's values). MariaDB's table check forbids what
//! would make the order matter otherwise (4029: a default reading a generated column, itself,
//! or a later column whose default is not constant).
//!
//! Floor: beside `generated` (same binder and printer, `constraints`), above `exec`, below
//! `dml`, `ddl` and `alter`, which call it.

use std::sync::Arc;

use selkie_storage::{Catalog, ColumnDef, ColumnDefault, IndexDef, TableDef, TableOptions};
use sqlparser::ast;

use crate::error::{Clause, SqlError};
use crate::exec::ctx::ExecCtx;
use crate::plan::Expr;
use crate::types::Value;
use crate::value;

/// Whether MariaDB keeps `e` (a DEFAULT clause) as a value rather than an expression: a
/// literal, in any number of parentheses, possibly signed or with a character set introducer.
pub(crate) fn is_literal(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Nested(inner) => is_literal(inner),
        ast::Expr::Value(v) => !matches!(v.value, ast::Value::Placeholder(_)),
        ast::Expr::UnaryOp { op: ast::UnaryOperator::Minus | ast::UnaryOperator::Plus, expr } => {
            matches!(unnest(expr), ast::Expr::Value(v) if matches!(v.value, ast::Value::Number(..)))
        }
        ast::Expr::Prefixed { value, .. } => is_literal(value),
        ast::Expr::TypedString { .. } => true,
        _ => false,
    }
}

pub(crate) fn unnest(e: &ast::Expr) -> &ast::Expr {
    match e {
        ast::Expr::Nested(inner) => unnest(inner),
        other => other,
    }
}

/// CURRENT_TIMESTAMP and its synonyms (NOW(), LOCALTIME, LOCALTIMESTAMP), with or without an
/// argument.
pub(crate) fn is_current_timestamp(e: &ast::Expr) -> bool {
    let name = match e {
        ast::Expr::Function(f) => f.name.to_string(),
        ast::Expr::Identifier(i) => i.value.clone(),
        _ => return false,
    };
    matches!(name.to_ascii_uppercase().as_str(), "CURRENT_TIMESTAMP" | "NOW" | "LOCALTIME" | "LOCALTIMESTAMP")
}

/// Whether the DEFAULT clause `e` of a column is kept as an expression: not a literal, and not
/// CURRENT_TIMESTAMP where it is the column's own kind of default (a DATETIME / TIMESTAMP
/// column's; on an INT or a VARCHAR MariaDB keeps `current_timestamp()` as an expression).
pub(crate) fn is_expression(e: &ast::Expr, datetime: bool) -> bool {
    let own_current_timestamp = datetime && is_current_timestamp(unnest(e));
    !(is_literal(e) || own_current_timestamp)
}

/// The value of a constant DEFAULT (expr) of column `col` (one that reads no column and
/// calls nothing volatile), converted to the column's type: what ALTER TABLE ADD COLUMN gives
/// the existing rows in place.
pub(crate) fn constant_value(
    catalog: &Catalog,
    db: &str,
    col: &ColumnDef,
    cx: &mut ExecCtx,
) -> Result<Value, SqlError> {
    let ColumnDefault::Expression(text) = &col.default else { return Ok(record_value(col)) };
    let t = provisional(db, "", std::slice::from_ref(col));
    let v = bind(catalog, &t, text)?.eval(&[], cx)?;
    if v.is_null() {
        return Ok(record_value(col));
    }
    value::store_for_column(v, col, &*cx)
}

/// The stored text of the DEFAULT expression `e` of column `column` of a table in `db`
/// (1901 for what MariaDB refuses in it).
pub(crate) fn text(e: &ast::Expr, column: &str, db: &str) -> Result<String, SqlError> {
    crate::constraints::default_text(e, column, db)
}

fn not_allowed(what: &str, column: &str) -> SqlError {
    SqlError::new(
        1901,
        "HY000",
        format!("Function or expression '{what}' cannot be used in the DEFAULT clause of `{column}`"),
    )
}

fn uninitialized(column: &str, other: &str) -> SqlError {
    SqlError::new(
        4029,
        "01000",
        format!("Expression for field `{column}` is referring to uninitialized field `{other}`"),
    )
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

fn bind(catalog: &Catalog, table: &Arc<TableDef>, text: &str) -> Result<Expr, SqlError> {
    crate::constraints::bind_row_expr(catalog, table, text, Clause::Default)
}

/// Whether a bound default is not a constant: it reads the row or its value changes from call
/// to call (MariaDB's non-zero `vcol_info->flags`).
fn is_variable(e: &Expr) -> bool {
    !e.is_row_independent() || e.is_volatile()
}

/// Checks the DEFAULT expressions of `columns` as MariaDB does when it opens the table: they
/// name existing columns (1054 in 'DEFAULT'), no AUTO_INCREMENT column (1901), and no column
/// whose value is not yet known when the default is computed (4029: a generated column, the
/// column itself, or a later column with a variable default).
pub(crate) fn check_table(catalog: &Catalog, db: &str, table: &str, columns: &[ColumnDef]) -> Result<(), SqlError> {
    if !columns.iter().any(|c| matches!(c.default, ColumnDefault::Expression(_))) {
        return Ok(());
    }
    let t = provisional(db, table, columns);
    let mut bound: Vec<Option<Expr>> = Vec::with_capacity(columns.len());
    for c in columns {
        bound.push(match &c.default {
            ColumnDefault::Expression(text) => Some(bind(catalog, &t, text)?),
            _ => None,
        });
    }
    let variable: Vec<bool> = bound.iter().map(|b| b.as_ref().is_some_and(is_variable)).collect();
    for (i, c) in columns.iter().enumerate() {
        let Some(e) = &bound[i] else { continue };
        if e.has_subquery() || e.has_aggregate() {
            return Err(not_allowed("select ...", &c.name));
        }
        let mut refused = None;
        e.columns(&mut |r| {
            if refused.is_some() {
                return;
            }
            let other = &columns[r];
            if other.auto_increment {
                refused = Some(not_allowed("AUTO_INCREMENT", &other.name));
            } else if other.generated.is_some() || r == i || (variable[r] && r > i) {
                refused = Some(uninitialized(&c.name, &other.name));
            }
        });
        if let Some(e) = refused {
            return Err(e);
        }
    }
    Ok(())
}

/// Whether ALTER TABLE ADD COLUMN must copy the table for this default: MariaDB adds a
/// column in place only when every row gets the same value.
pub(crate) fn needs_copy(catalog: &Catalog, db: &str, table: &str, columns: &[ColumnDef], col: &ColumnDef) -> bool {
    let ColumnDefault::Expression(text) = &col.default else { return false };
    let t = provisional(db, table, columns);
    bind(catalog, &t, text).map_or(true, |e| is_variable(&e))
}

/// Renames column `old` to `new` in the DEFAULT expressions (ALTER TABLE CHANGE / RENAME
/// COLUMN); the text back-quotes every column name, as generated columns' texts do.
pub(crate) fn rename_column(columns: &mut [ColumnDef], old: &str, new: &str) {
    for c in columns.iter_mut() {
        if let ColumnDefault::Expression(text) = &mut c.default {
            *text = crate::generated::renamed(text, old, new);
        }
    }
}

/// The DEFAULT expressions of a table, bound over its row.
#[derive(Debug)]
pub(crate) struct DefaultValues {
    /// (column, expression), in column order.
    columns: Vec<(usize, Expr)>,
}

/// The DEFAULT expressions of `table` bound over its row; None when it has none, which keeps
/// the insert path of other tables as it was.
pub(crate) fn values_for(catalog: &Catalog, table: &Arc<TableDef>) -> Result<Option<Arc<DefaultValues>>, SqlError> {
    let mut columns = Vec::new();
    for (i, c) in table.columns.iter().enumerate() {
        if let ColumnDefault::Expression(text) = &c.default {
            columns.push((i, bind(catalog, table, text)?));
        }
    }
    Ok((!columns.is_empty()).then(|| Arc::new(DefaultValues { columns })))
}

/// A rebuilt table's definition (which messages name) and its DEFAULT expressions.
pub(crate) type RebuiltDefaults = (Arc<TableDef>, Arc<DefaultValues>);

/// The DEFAULT expressions of a table being rebuilt with `columns` (ALTER TABLE), and the
/// definition they are bound over; None when it has none.
pub(crate) fn values_for_columns(
    catalog: &Catalog,
    db: &str,
    table: &str,
    columns: &[ColumnDef],
) -> Result<Option<RebuiltDefaults>, SqlError> {
    if !columns.iter().any(|c| matches!(c.default, ColumnDefault::Expression(_))) {
        return Ok(None);
    }
    let t = provisional(db, table, columns);
    Ok(values_for(catalog, &t)?.map(|v| (t, v)))
}

/// The value a column holds in MariaDB's default record before its default is computed: a
/// constant default, else NULL or the type's implicit value.
pub(crate) fn record_value(col: &ColumnDef) -> Value {
    match &col.default {
        ColumnDefault::Value(v) => v.clone(),
        _ if col.nullable => Value::Null,
        _ => value::implicit_default(&col.ty),
    }
}

/// Converts a computed default into the column's value (the caller's INSERT rules).
pub(crate) type Store<'a> = dyn FnMut(Value, usize, &mut ExecCtx) -> Result<Value, SqlError> + 'a;

impl DefaultValues {
    fn expression(&self, column: usize) -> Option<&Expr> {
        self.columns.iter().find(|(i, _)| *i == column).map(|(_, e)| e)
    }

    /// Computes the DEFAULT expressions of a row being inserted. `list` is the statement's
    /// column list (table positions) and `given[j]` whether `list[j]` had a value rather than
    /// the DEFAULT keyword; the columns with expression defaults hold `record_value` until
    /// computed here.
    pub(crate) fn fill(
        &self,
        table: &TableDef,
        list: &[usize],
        given: &[bool],
        row: &mut [Value],
        store: &mut Store<'_>,
        cx: &mut ExecCtx,
    ) -> Result<(), SqlError> {
        // 1. DEFAULT keywords where they stand in the list.
        for (j, &pos) in list.iter().enumerate() {
            if given[j] {
                continue;
            }
            let Some(e) = self.expression(pos) else { continue };
            let later_given = list[j + 1..].iter().zip(&given[j + 1..]).any(|(_, g)| *g);
            let v = if later_given {
                let mut record = row.to_vec();
                for (&p, _) in list[j + 1..].iter().zip(&given[j + 1..]).filter(|(_, g)| **g) {
                    record[p] = record_value(&table.columns[p]);
                }
                e.eval(&record, cx)?
            } else {
                e.eval(row, cx)?
            };
            row[pos] = store(v, pos, cx)?;
        }
        // 2. The columns not in the list, in column order, on the row as given.
        for (pos, e) in &self.columns {
            if list.contains(pos) {
                continue;
            }
            let v = e.eval(row, cx)?;
            row[*pos] = store(v, *pos, cx)?;
        }
        Ok(())
    }

    /// Computes the DEFAULT expressions of the columns `added` (ALTER TABLE ADD COLUMN: each
    /// existing row gets its own value, in column order).
    pub(crate) fn fill_added(
        &self,
        added: &[bool],
        row: &mut [Value],
        store: &mut Store<'_>,
        cx: &mut ExecCtx,
    ) -> Result<(), SqlError> {
        for (pos, e) in &self.columns {
            if added[*pos] {
                let v = e.eval(row, cx)?;
                row[*pos] = store(v, *pos, cx)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(sql: &str) -> ast::Expr {
        crate::constraints::parse_expr(sql).unwrap()
    }

    #[test]
    fn literals_stay_values() {
        for sql in ["5", "(5)", "((3))", "-1", "(-1)", "'x'", "('x')", "NULL", "TRUE", "1.5", "_utf8mb4'q'", "b'101'"] {
            assert!(is_literal(&parse(sql)), "{sql}");
        }
        for sql in ["(1+1)", "uuid()", "(a)", "-(a)", "(now())", "concat('a','b')"] {
            assert!(!is_literal(&parse(sql)), "{sql}");
        }
    }

    /// Each text was printed by MariaDB 10.11 (SHOW CREATE TABLE).
    #[test]
    fn prints_as_mariadb() {
        let cases = [
            ("(a*2)", "(`a` * 2)"),
            ("uuid()", "uuid()"),
            ("(uuid())", "uuid()"),
            ("now(6)", "current_timestamp(6)"),
            ("(now())", "current_timestamp()"),
            ("curdate()", "curdate()"),
            ("rand()", "rand()"),
            ("concat('x', a, '-', b)", "concat('x',`a`,'-',`b`)"),
            ("json_array()", "json_array()"),
            ("nextval(s1)", "nextval(`d1`.`s1`)"),
            ("nextval(o.s1)", "nextval(`o`.`s1`)"),
            ("(1+1)", "(1 + 1)"),
            ("(lower('ABC'))", "lcase('ABC')"),
            ("abs(-5)", "abs(-5)"),
            ("(-a)", "(-`a`)"),
            ("(case when a>1 then 1 else 0 end)", "(case when `a` > 1 then 1 else 0 end)"),
            ("(a is null)", "(`a` is null)"),
            ("(a)", "`a`"),
            ("(not a)", "(`a` = 0)"),
            ("(if(a>0,1,2))", "if(`a` > 0,1,2)"),
            ("(a div 2)", "(`a` DIV 2)"),
            ("(~a)", "(~`a`)"),
            ("(length('abc'))", "octet_length('abc')"),
            ("(current_timestamp + interval 1 day)", "(current_timestamp() + interval 1 day)"),
        ];
        for (sql, want) in cases {
            assert_eq!(text(&parse(sql), "c", "d1").unwrap(), want, "{sql}");
        }
    }

    #[test]
    fn refuses_what_mariadb_refuses() {
        for (sql, what) in [
            ("(select 1)", "select ..."),
            ("last_insert_id()", "last_insert_id()"),
            ("sum(1)", "sum()"),
            ("row_count()", "row_count()"),
            ("sleep(0)", "sleep()"),
        ] {
            let e = text(&parse(sql), "a", "d1").unwrap_err();
            assert_eq!(e.code, 1901, "{sql}");
            assert_eq!(
                e.message,
                format!("Function or expression '{what}' cannot be used in the DEFAULT clause of `a`"),
                "{sql}"
            );
        }
    }
}
