//! The binder: resolves names against the catalog snapshot and turns sqlparser's AST into bound
//! expressions (`expr::Expr`) and plans (`plan::QueryPlan`).
//!
//! Name resolution follows MariaDB: column names are case-insensitive, table names and aliases
//! case-sensitive; an unqualified column must match exactly one FROM source of the innermost
//! query that has it (1052 otherwise), then enclosing queries are searched (correlated
//! subqueries); nothing found is 1054, naming the clause being bound.

mod binder;
mod charset_bytes;
mod collated_calls;
mod collation;
mod convert_using;
mod cte;
pub(crate) use collation::ordering_key;
mod expr;
mod fixed_binary_operands;
mod from;
mod implied_equalities;
mod item_meta;
mod join_order;
mod json_agg;
pub mod names;
mod regexp;
mod row_in_keys;
mod select;
mod set_columns;
mod string_context;
#[cfg(test)]
mod tests;
pub mod types;
mod values;
mod window;
mod zerofill;

pub use self::binder::{
    computed_meta, object_name_parts, table_column_meta, BindEnv, Binder, ColumnInfo, Scope, Source, SourceKind,
    INFORMATION_SCHEMA,
};
pub use self::collation::declared_column_collation;
pub(crate) use self::expr::decode_bits;
