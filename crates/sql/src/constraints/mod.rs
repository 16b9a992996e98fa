//! FOREIGN KEY and CHECK constraints: their definitions (CREATE / ALTER TABLE), their text
//! (CHECK expressions as MariaDB prints them) and their enforcement on row changes.
//!
//! Floor: above `exec` (enforcement evaluates expressions and reads rows through the
//! statement's transaction) and `show` (constraint text), below `dml` and `ddl`, which call it.
//! The catalog keeps the definitions (`selkie_storage::TableConstraints`); the engine enforces
//! nothing.

mod alter;
mod define;
mod enforce;
mod print;

pub(crate) use alter::{add_constraint, after_column_renames, after_rename, drop_constraint, DropKind};
pub(crate) use define::{create_table_constraints, is_constraint_clause, is_constraint_option};
pub(crate) use enforce::{
    bind_check, bind_row_expr, check_drop, check_truncate, foreign_key_checks, parse_expr, rules_for, TableRules,
};
pub(crate) use print::{check_text, default_text, generated_text};
