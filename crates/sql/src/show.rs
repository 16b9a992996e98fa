//! SHOW statements and information_schema, computed from the catalog snapshot, the variables,
//! the engine status and the server hooks.
//!
//! Why SHOW is computed here rather than in the server: its results are result sets over the
//! catalog, the variables and the engine status, filtered by SQL expressions, exactly like
//! information_schema queries, which the executor reads through `info_schema_rows`.
//!
//! How a statement gets here: sqlparser reads most SHOW forms lossily (see `command`), so the
//! statement text should be offered to `execute_show_fallback` first; it claims every SHOW and
//! `DESCRIBE table [column]` it implements and returns None for anything else (cheaply: one
//! look at the first word). `execute_show` runs the statements sqlparser did parse (including
//! `DESCRIBE t`, which it calls ExplainTable). Both produce MariaDB 10.11's columns, order and
//! value formats; LIKE / WHERE filters are evaluated on the result columns (`filter`).

mod columns;
mod command;
mod context;
mod create;
mod filter;
mod information_schema;
mod literal;
mod schema;
mod server;

use crate::error::SqlError;
use crate::types::{ColumnDefinition, ResultSet, Value};
use crate::value::SqlType;
use crate::variables::VarScope;
use columns::{column_meta, projected, show_columns};
use command::{RoutineKind, ShowCommand, TableName};
use context::Ctx;
pub use context::ShowContext;
pub(crate) use create::{foreign_key_clause, foreign_key_detail};
use filter::{Filter, LikeTarget};
use schema::{text, TableTarget};

/// Executes any SHOW statement sqlparser produced (SHOW DATABASES/TABLES/COLUMNS/CREATE TABLE/
/// INDEX/VARIABLES/STATUS/PROCESSLIST/WARNINGS/ERRORS/ENGINES/COLLATION/CHARACTER SET/ENGINE
/// ... STATUS/TABLE STATUS, with LIKE/WHERE filters and FULL/GLOBAL/SESSION forms).
pub fn execute_show(stmt: &sqlparser::ast::Statement, ctx: &ShowContext) -> Result<ResultSet, SqlError> {
    let cmd = ShowCommand::from_statement(stmt)?;
    run(&cmd, &Ctx::new(ctx))
}

/// True for the diagnostics statements (SHOW WARNINGS, SHOW ERRORS, SHOW COUNT(*) WARNINGS /
/// ERRORS): they read the previous statement's diagnostics and must not replace them.
pub fn is_diagnostics_text(sql: &str) -> bool {
    matches!(command::parse_text(sql), Ok(Some(ShowCommand::Warnings { .. } | ShowCommand::CountWarnings { .. })))
}

/// Statements sqlparser cannot parse but MariaDB clients send (e.g. SHOW CREATE DATABASE,
/// SHOW MASTER STATUS, SHOW SLAVE STATUS, SHOW BINARY LOGS). `None` if `sql` is not one of them.
pub fn execute_show_fallback(sql: &str, ctx: &ShowContext) -> Option<Result<ResultSet, SqlError>> {
    fallback(sql, &Ctx::new(ctx))
}

fn fallback(sql: &str, ctx: &Ctx) -> Option<Result<ResultSet, SqlError>> {
    match command::parse_text(sql) {
        Ok(None) => None,
        Ok(Some(cmd)) => Some(run(&cmd, ctx)),
        Err(e) => Some(Err(e)),
    }
}

/// Column layout of an information_schema table (case-insensitive name), or None.
pub fn info_schema_columns(table: &str) -> Option<Vec<(String, SqlType, ColumnDefinition)>> {
    let t = columns::is_table(table)?;
    Some(
        t.columns
            .iter()
            .map(|c| {
                let ty = columns::sql_type(c.column_type).unwrap_or(SqlType::text(64, false));
                let meta = column_meta(t.name, c.name, c.name, c.column_type, c.nullable);
                (c.name.to_string(), ty, meta)
            })
            .collect(),
    )
}

/// All rows of an information_schema table (SCHEMATA, TABLES, COLUMNS, STATISTICS, PROCESSLIST,
/// ENGINES, CHARACTER_SETS, COLLATIONS, SESSION_VARIABLES, GLOBAL_VARIABLES, SESSION_STATUS,
/// GLOBAL_STATUS, KEY_COLUMN_USAGE, ...).
pub fn info_schema_rows(table: &str, ctx: &ShowContext) -> Result<Vec<Vec<Value>>, SqlError> {
    information_schema::rows(table, &Ctx::new(ctx))
}

/// Names of information_schema tables, for SHOW TABLES FROM information_schema.
pub fn info_schema_tables() -> Vec<&'static str> {
    columns::IS_TABLES.iter().map(|t| t.name).collect()
}

/// Result columns of an information_schema table as the client sees them, or None.
pub fn info_schema_column_metas(table: &str) -> Option<Vec<ColumnDefinition>> {
    columns::is_table(table).map(columns::is_columns)
}

// ---- execution ----

/// LIKE on names of databases and tables is case-sensitive (they are file names on Linux,
/// lower_case_table_names = 0); on everything else case-insensitive, as in MariaDB.
const NAMES_LIKE: LikeTarget = LikeTarget { column: 0, case_insensitive: false };
const TEXT_LIKE: LikeTarget = LikeTarget { column: 0, case_insensitive: true };

fn result(columns: Vec<ColumnDefinition>, mut rows: Vec<Vec<Value>>) -> ResultSet {
    debug_assert!(rows.iter().all(|r| r.len() == columns.len()), "row width matches the columns");
    columns::conform_integers(&mut rows, &columns::integer_signedness(&columns));
    ResultSet { columns, rows }
}

fn filtered(
    columns: Vec<ColumnDefinition>,
    rows: Vec<Vec<Value>>,
    filter: Option<&Filter>,
    like: LikeTarget,
) -> Result<ResultSet, SqlError> {
    let mut rs = result(columns, rows);
    filter::apply(&mut rs, filter, like)?;
    Ok(rs)
}

fn run(cmd: &ShowCommand, ctx: &Ctx) -> Result<ResultSet, SqlError> {
    match cmd {
        ShowCommand::Databases { filter } => {
            let rows = schema::databases(ctx).into_iter().map(|(name, _, _)| vec![text(&name)]).collect();
            filtered(projected("SCHEMATA", &[("Database", "SCHEMA_NAME")]), rows, filter.as_ref(), NAMES_LIKE)
        }
        ShowCommand::Tables { full, db, filter } => {
            let db = schema::resolve_db(ctx, db.as_deref())?;
            let mut title = format!("Tables_in_{db}");
            if let Some(Filter::Like(p)) = filter {
                title.push_str(&format!(" ({p})"));
            }
            let mut names = vec![(title.as_str(), "TABLE_NAME")];
            if *full {
                names.push(("Table_type", "TABLE_TYPE"));
            }
            let rows = schema::table_names(ctx, &db)
                .into_iter()
                .map(|(name, kind)| if *full { vec![text(&name), text(kind)] } else { vec![text(&name)] })
                .collect();
            filtered(projected("TABLES", &names), rows, filter.as_ref(), NAMES_LIKE)
        }
        ShowCommand::Columns { full, table, filter } => show_columns_of(ctx, *full, table, filter.as_ref()),
        ShowCommand::CreateTable { table } => {
            let (name, sql) = match schema::resolve_table(ctx, table.db.as_deref(), &table.name)? {
                TableTarget::User { table: t, temporary } => {
                    let shown = literal::with_session_defaults(&t, ctx.session.time_zone());
                    let sql = create::create_table_text(&shown, schema::next_auto_increment(ctx, &t));
                    let sql = if temporary { sql.replacen("CREATE TABLE", "CREATE TEMPORARY TABLE", 1) } else { sql };
                    (t.name.clone(), sql)
                }
                TableTarget::InformationSchema(t) => (t.name.to_string(), create::create_is_table_text(t)),
            };
            Ok(result(show_columns(columns::CREATE_TABLE), vec![vec![text(&name), text(&sql)]]))
        }
        ShowCommand::CreateSequence { table } => {
            let db = table.db.as_deref().or(ctx.current_db).ok_or_else(schema::no_database)?;
            let def = match schema::resolve_table(ctx, table.db.as_deref(), &table.name) {
                Ok(TableTarget::User { table: t, .. }) => t.options.sequence,
                Err(e) if e.code == 1146 => {
                    return Err(crate::sequence::unknown_sequence(&format!("{db}.{}", table.name)))
                }
                _ => None,
            };
            let def = def.ok_or_else(|| crate::sequence::not_a_sequence(db, &table.name))?;
            let sql = create::create_sequence_text(&table.name, &def);
            Ok(result(show_columns(columns::CREATE_TABLE), vec![vec![text(&table.name), text(&sql)]]))
        }
        ShowCommand::CreateView { table } => {
            let db = table.db.as_deref().or(ctx.current_db).ok_or_else(schema::no_database)?;
            schema::resolve_table(ctx, table.db.as_deref(), &table.name)?;
            Err(SqlError::new(1347, "HY000", format!("'{db}.{}' is not of type 'VIEW'", table.name)))
        }
        ShowCommand::CreateDatabase { name, if_not_exists } => {
            let (name, charset, collation) = schema::databases(ctx)
                .into_iter()
                .find(|(db, _, _)| {
                    db == name || (schema::is_information_schema(name) && schema::is_information_schema(db))
                })
                .ok_or_else(|| schema::unknown_database(name))?;
            let sql = create::create_database_text(&name, charset, collation, *if_not_exists);
            Ok(result(show_columns(columns::CREATE_DATABASE), vec![vec![text(&name), text(&sql)]]))
        }
        ShowCommand::CreateMissingObject { kind, name } => Err(match *kind {
            "TRIGGER" => SqlError::new(1360, "HY000", "Trigger does not exist"),
            "EVENT" => SqlError::new(1539, "HY000", format!("Unknown event '{name}'")),
            _ => SqlError::new(1305, "42000", format!("{kind} {name} does not exist")),
        }),
        ShowCommand::Index { table, filter } => {
            let rows = match schema::resolve_table(ctx, table.db.as_deref(), &table.name)? {
                TableTarget::User { table: t, .. } => schema::show_index_rows(ctx, &t),
                TableTarget::InformationSchema(_) => Vec::new(),
            };
            let cols = projected(
                "STATISTICS",
                &[
                    ("Table", "TABLE_NAME"),
                    ("Non_unique", "NON_UNIQUE"),
                    ("Key_name", "INDEX_NAME"),
                    ("Seq_in_index", "SEQ_IN_INDEX"),
                    ("Column_name", "COLUMN_NAME"),
                    ("Collation", "COLLATION"),
                    ("Cardinality", "CARDINALITY"),
                    ("Sub_part", "SUB_PART"),
                    ("Packed", "PACKED"),
                    ("Null", "NULLABLE"),
                    ("Index_type", "INDEX_TYPE"),
                    ("Comment", "COMMENT"),
                    ("Index_comment", "INDEX_COMMENT"),
                    ("Ignored", "IGNORED"),
                ],
            );
            filtered(cols, rows, filter.as_ref(), TEXT_LIKE)
        }
        ShowCommand::Variables { scope, filter } => {
            let table = if *scope == VarScope::Global { "GLOBAL_VARIABLES" } else { "SESSION_VARIABLES" };
            let cols = projected(table, &[("Variable_name", "VARIABLE_NAME"), ("Value", "VARIABLE_VALUE")]);
            filtered(cols, server::variables_rows(ctx, *scope), filter.as_ref(), TEXT_LIKE)
        }
        ShowCommand::Status { scope, filter } => {
            let table = if *scope == VarScope::Global { "GLOBAL_STATUS" } else { "SESSION_STATUS" };
            let cols = projected(table, &[("Variable_name", "VARIABLE_NAME"), ("Value", "VARIABLE_VALUE")]);
            filtered(cols, server::status_rows(ctx, *scope), filter.as_ref(), TEXT_LIKE)
        }
        ShowCommand::ProcessList { full } => {
            Ok(result(show_columns(columns::PROCESSLIST), server::processlist_rows(ctx, *full)))
        }
        ShowCommand::Warnings { errors_only, offset, count } => Ok(result(
            show_columns(columns::WARNINGS),
            server::warnings_rows(ctx.warnings, *errors_only, *offset, *count),
        )),
        ShowCommand::CountWarnings { errors_only } => {
            let name = if *errors_only { "@@session.error_count" } else { "@@session.warning_count" };
            let cols = vec![column_meta("", name, "", "bigint(21) unsigned", false)];
            Ok(result(cols, vec![vec![Value::UInt(server::warning_count(ctx.warnings, *errors_only))]]))
        }
        ShowCommand::Engines => Ok(result(
            projected(
                "ENGINES",
                &[
                    ("Engine", "ENGINE"),
                    ("Support", "SUPPORT"),
                    ("Comment", "COMMENT"),
                    ("Transactions", "TRANSACTIONS"),
                    ("XA", "XA"),
                    ("Savepoints", "SAVEPOINTS"),
                ],
            ),
            server::engines_rows(),
        )),
        ShowCommand::EngineStatus { engine, mutex } => {
            if !server::is_known_engine(engine) {
                return Err(crate::error::unknown_storage_engine(engine));
            }
            let rows = if *mutex {
                Vec::new()
            } else {
                vec![vec![text(schema::ENGINE_NAME), text(""), text(&server::engine_status_text(ctx))]]
            };
            Ok(result(show_columns(columns::ENGINE_STATUS), rows))
        }
        ShowCommand::CharacterSets { filter } => {
            let cols = projected(
                "CHARACTER_SETS",
                &[
                    ("Charset", "CHARACTER_SET_NAME"),
                    ("Description", "DESCRIPTION"),
                    ("Default collation", "DEFAULT_COLLATE_NAME"),
                    ("Maxlen", "MAXLEN"),
                ],
            );
            filtered(cols, server::character_sets_rows(), filter.as_ref(), TEXT_LIKE)
        }
        ShowCommand::Collations { filter } => {
            let cols = projected(
                "COLLATIONS",
                &[
                    ("Collation", "COLLATION_NAME"),
                    ("Charset", "CHARACTER_SET_NAME"),
                    ("Id", "ID"),
                    ("Default", "IS_DEFAULT"),
                    ("Compiled", "IS_COMPILED"),
                    ("Sortlen", "SORTLEN"),
                ],
            );
            filtered(cols, server::collations_rows(), filter.as_ref(), TEXT_LIKE)
        }
        ShowCommand::TableStatus { db, filter } => {
            let db = schema::resolve_db(ctx, db.as_deref())?;
            let cols = projected(
                "TABLES",
                &[
                    ("Name", "TABLE_NAME"),
                    ("Engine", "ENGINE"),
                    ("Version", "VERSION"),
                    ("Row_format", "ROW_FORMAT"),
                    ("Rows", "TABLE_ROWS"),
                    ("Avg_row_length", "AVG_ROW_LENGTH"),
                    ("Data_length", "DATA_LENGTH"),
                    ("Max_data_length", "MAX_DATA_LENGTH"),
                    ("Index_length", "INDEX_LENGTH"),
                    ("Data_free", "DATA_FREE"),
                    ("Auto_increment", "AUTO_INCREMENT"),
                    ("Create_time", "CREATE_TIME"),
                    ("Update_time", "UPDATE_TIME"),
                    ("Check_time", "CHECK_TIME"),
                    ("Collation", "TABLE_COLLATION"),
                    ("Checksum", "CHECKSUM"),
                    ("Create_options", "CREATE_OPTIONS"),
                    ("Comment", "TABLE_COMMENT"),
                    ("Max_index_length", "MAX_INDEX_LENGTH"),
                    ("Temporary", "TEMPORARY"),
                ],
            );
            filtered(cols, schema::table_status_rows(ctx, &db), filter.as_ref(), NAMES_LIKE)
        }
        ShowCommand::MasterStatus => Ok(result(show_columns(columns::MASTER_STATUS), Vec::new())),
        ShowCommand::SlaveStatus => Ok(result(show_columns(columns::SLAVE_STATUS), Vec::new())),
        ShowCommand::BinaryLogs => Err(server::no_binary_log()),
        ShowCommand::Plugins => Ok(result(
            projected(
                "PLUGINS",
                &[
                    ("Name", "PLUGIN_NAME"),
                    ("Status", "PLUGIN_STATUS"),
                    ("Type", "PLUGIN_TYPE"),
                    ("Library", "PLUGIN_LIBRARY"),
                    ("License", "PLUGIN_LICENSE"),
                ],
            ),
            server::plugins_rows(),
        )),
        ShowCommand::Grants { account } => {
            let (title, rows) = server::grants(ctx, account.clone())?;
            Ok(result(vec![column_meta("", &title, "", "varchar(1024)", false)], rows))
        }
        ShowCommand::Triggers { db, filter } => {
            schema::resolve_db(ctx, db.as_deref())?;
            let cols = projected(
                "TRIGGERS",
                &[
                    ("Trigger", "TRIGGER_NAME"),
                    ("Event", "EVENT_MANIPULATION"),
                    ("Table", "EVENT_OBJECT_TABLE"),
                    ("Statement", "ACTION_STATEMENT"),
                    ("Timing", "ACTION_TIMING"),
                    ("Created", "CREATED"),
                    ("sql_mode", "SQL_MODE"),
                    ("Definer", "DEFINER"),
                    ("character_set_client", "CHARACTER_SET_CLIENT"),
                    ("collation_connection", "COLLATION_CONNECTION"),
                    ("Database Collation", "DATABASE_COLLATION"),
                ],
            );
            filtered(cols, Vec::new(), filter.as_ref(), LikeTarget { column: 2, case_insensitive: false })
        }
        ShowCommand::Events { db, filter } => {
            schema::resolve_db(ctx, db.as_deref())?;
            let cols = projected(
                "EVENTS",
                &[
                    ("Db", "EVENT_SCHEMA"),
                    ("Name", "EVENT_NAME"),
                    ("Definer", "DEFINER"),
                    ("Time zone", "TIME_ZONE"),
                    ("Type", "EVENT_TYPE"),
                    ("Execute at", "EXECUTE_AT"),
                    ("Interval value", "INTERVAL_VALUE"),
                    ("Interval field", "INTERVAL_FIELD"),
                    ("Starts", "STARTS"),
                    ("Ends", "ENDS"),
                    ("Status", "STATUS"),
                    ("Originator", "ORIGINATOR"),
                    ("character_set_client", "CHARACTER_SET_CLIENT"),
                    ("collation_connection", "COLLATION_CONNECTION"),
                    ("Database Collation", "DATABASE_COLLATION"),
                ],
            );
            filtered(cols, Vec::new(), filter.as_ref(), LikeTarget { column: 1, case_insensitive: true })
        }
        ShowCommand::RoutineStatus { kind, filter } => {
            debug_assert!(matches!(kind, RoutineKind::Procedure | RoutineKind::Function));
            let cols = projected(
                "ROUTINES",
                &[
                    ("Db", "ROUTINE_SCHEMA"),
                    ("Name", "ROUTINE_NAME"),
                    ("Type", "ROUTINE_TYPE"),
                    ("Definer", "DEFINER"),
                    ("Modified", "LAST_ALTERED"),
                    ("Created", "CREATED"),
                    ("Security_type", "SECURITY_TYPE"),
                    ("Comment", "ROUTINE_COMMENT"),
                    ("character_set_client", "CHARACTER_SET_CLIENT"),
                    ("collation_connection", "COLLATION_CONNECTION"),
                    ("Database Collation", "DATABASE_COLLATION"),
                ],
            );
            filtered(cols, Vec::new(), filter.as_ref(), LikeTarget { column: 1, case_insensitive: true })
        }
    }
}

fn show_columns_of(ctx: &Ctx, full: bool, table: &TableName, filter: Option<&Filter>) -> Result<ResultSet, SqlError> {
    let rows = match schema::resolve_table(ctx, table.db.as_deref(), &table.name)? {
        TableTarget::User { table: t, .. } => {
            schema::show_columns_rows(&literal::with_session_defaults(&t, ctx.session.time_zone()), full)
        }
        TableTarget::InformationSchema(t) => schema::show_is_columns_rows(t, full),
    };
    let mut names = vec![("Field", "COLUMN_NAME"), ("Type", "COLUMN_TYPE")];
    if full {
        names.push(("Collation", "COLLATION_NAME"));
    }
    names.extend([("Null", "IS_NULLABLE"), ("Key", "COLUMN_KEY"), ("Default", "COLUMN_DEFAULT"), ("Extra", "EXTRA")]);
    if full {
        names.extend([("Privileges", "PRIVILEGES"), ("Comment", "COLUMN_COMMENT")]);
    }
    filtered(projected("COLUMNS", &names), rows, filter, TEXT_LIKE)
}

#[cfg(test)]
mod tests;
