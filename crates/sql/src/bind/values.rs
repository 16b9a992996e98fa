//! Table value constructors: `VALUES (1, 2), (3, 4)` as a query, a UNION branch, a derived
//! table, a CTE or an IN list's subquery.
//!
//! Each row is a projection of constants over the one-row `Dual`; the rows are concatenated.
//! As in MariaDB, the columns are named by the first row's items as written, their types are
//! those of a UNION of the rows, and a column reference is error 4100.

use sqlparser::ast;

use super::binder::{computed_meta, Binder, Bound};
use super::item_meta::{self, item_meta};
use super::names;
use crate::error::{self, SqlError};
use crate::plan::{Expr, OutputColumn, Plan, QueryPlan};
use crate::types::column_flags;
use crate::types::Value;
use crate::value::SqlType;

/// MariaDB's decimals of a computed string.
const NOT_FIXED_DEC: u8 = 39;

impl Binder<'_> {
    pub(super) fn bind_values(&mut self, values: &ast::Values) -> Result<QueryPlan, SqlError> {
        if values.explicit_row {
            return Err(error::syntax("ROW", 1));
        }
        let width = values.rows.first().map_or(0, |r| r.content.len());
        let mut bound_rows: Vec<Vec<Bound>> = Vec::with_capacity(values.rows.len());
        for row in &values.rows {
            if row.content.len() != width {
                return Err(error::values_column_count());
            }
            let mut bound = Vec::with_capacity(width);
            for e in &row.content {
                if let Some(name) = column_reference(e) {
                    return Err(error::values_field_reference(&name));
                }
                bound.push(self.bind_expr(e)?);
            }
            bound_rows.push(bound);
        }
        let Some(first) = values.rows.first() else {
            return Err(error::syntax("VALUES", 1));
        };
        let texts = self
            .text
            .list_item_texts(first.opening_token.0.span.end, first.closing_token.0.span.start)
            .filter(|t| t.len() == width);
        let mut columns = Vec::with_capacity(width);
        for (i, e) in first.content.iter().enumerate() {
            let raw = texts.as_ref().map(|t| t[i].clone());
            let name = names::item_name(e, raw.as_deref());
            let mut ty = bound_rows[0][i].ty.clone();
            for r in &bound_rows[1..] {
                ty = SqlType::unify(&ty, &r[i].ty);
            }
            let nullable = bound_rows.iter().any(|r| r[i].nullable);
            let same_type = bound_rows.iter().all(|r| r[i].ty == ty);
            let mut meta = if same_type {
                item_meta(bound_rows[0][i].clone(), name, item_meta::hints(e))
            } else {
                let mut m = computed_meta(&name, &ty, nullable);
                if matches!(ty, SqlType::Text { .. }) {
                    m.decimals = NOT_FIXED_DEC;
                }
                m
            };
            if nullable {
                meta.flags &= !column_flags::NOT_NULL;
            } else {
                meta.flags |= column_flags::NOT_NULL;
            }
            // The temporary table's integer field counts a sign (1 is INT(2), as in MariaDB; a
            // negative literal's length has it already).
            let negative = matches!(bound_rows[0][i].expr, Expr::Literal(Value::Int(v)) if v < 0);
            if matches!(ty, SqlType::Int { .. }) && meta.length < 11 && !negative {
                meta.length += 1;
            }
            columns.push(OutputColumn { meta, ty });
        }
        let parts: Vec<Plan> = bound_rows
            .into_iter()
            .map(|r| Plan::Project { input: Box::new(Plan::Dual), exprs: r.into_iter().map(|b| b.expr).collect() })
            .collect();
        let root = if parts.len() == 1 { parts.into_iter().next().unwrap_or(Plan::Dual) } else { Plan::Concat(parts) };
        Ok(QueryPlan::new(root, columns, None, None))
    }
}

fn column_reference(e: &ast::Expr) -> Option<String> {
    match e {
        ast::Expr::Identifier(i) => Some(i.value.clone()),
        ast::Expr::CompoundIdentifier(parts) if !parts.first().is_some_and(|p| p.value.starts_with('@')) => {
            parts.last().map(|p| p.value.clone())
        }
        _ => None,
    }
}
