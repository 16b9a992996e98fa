//! Rows of the information_schema tables, in the column order of their layouts
//! (`columns::IS_TABLES`). Tables of objects Selkie does not have (routines, views, triggers,
//! events, non-global privileges, tablespace files) are empty.

use super::columns::{conform_integers, integer_signedness, is_columns, is_table};
use super::context::Ctx;
use super::{schema, server};
use crate::error::SqlError;
use crate::types::Value;
use crate::variables::VarScope;

pub(crate) fn rows(table: &str, ctx: &Ctx) -> Result<Vec<Vec<Value>>, SqlError> {
    let Some(layout) = is_table(table) else {
        return Err(schema::no_such_table(super::columns::INFORMATION_SCHEMA, table));
    };
    let rows = match layout.name {
        "CHARACTER_SETS" => server::is_character_sets_rows(),
        "COLLATIONS" => server::collations_rows(),
        "COLLATION_CHARACTER_SET_APPLICABILITY" => server::collation_applicability_rows(),
        "COLUMNS" => schema::columns_rows(ctx),
        "ENGINES" => server::engines_rows(),
        "GLOBAL_STATUS" => upper_names(server::status_rows(ctx, VarScope::Global)),
        "GLOBAL_VARIABLES" => upper_names(server::variables_rows(ctx, VarScope::Global)),
        "KEY_COLUMN_USAGE" => schema::key_column_usage_rows(ctx),
        "PARTITIONS" => schema::partitions_rows(ctx),
        "PLUGINS" => server::is_plugins_rows(),
        "PROCESSLIST" => server::is_processlist_rows(ctx),
        "SCHEMATA" => schema::schemata_rows(ctx),
        "SESSION_STATUS" => upper_names(server::status_rows(ctx, VarScope::Session)),
        "SESSION_VARIABLES" => upper_names(server::variables_rows(ctx, VarScope::Session)),
        "STATISTICS" => schema::statistics_rows(ctx),
        "SYSTEM_VARIABLES" => server::system_variables_rows(ctx),
        "TABLES" => schema::tables_rows(ctx),
        "TABLE_CONSTRAINTS" => schema::table_constraints_rows(ctx),
        "USER_PRIVILEGES" => server::user_privileges_rows(ctx),
        "CHECK_CONSTRAINTS" => schema::check_constraints_rows(ctx),
        "REFERENTIAL_CONSTRAINTS" => schema::referential_constraints_rows(ctx),
        "COLUMN_PRIVILEGES" | "EVENTS" | "FILES" | "PARAMETERS" | "ROUTINES" | "SCHEMA_PRIVILEGES"
        | "TABLE_PRIVILEGES" | "TRIGGERS" | "VIEWS" => Vec::new(),
        other => {
            debug_assert!(false, "information_schema.{other} has a layout but no rows");
            Vec::new()
        }
    };
    debug_assert!(rows.iter().all(|r| r.len() == layout.columns.len()), "{}: row width", layout.name);
    let mut rows = rows;
    conform_integers(&mut rows, &integer_signedness(&is_columns(layout)));
    Ok(rows)
}

/// information_schema's *_VARIABLES and *_STATUS tables spell names in upper case.
fn upper_names(mut rows: Vec<Vec<Value>>) -> Vec<Vec<Value>> {
    for row in &mut rows {
        if let Value::Bytes(name) = &mut row[0] {
            name.make_ascii_uppercase();
        }
    }
    rows
}
