//! Rows describing the catalog: databases, tables, columns and indexes, for the SHOW statements
//! and information_schema tables that list them (SCHEMATA, TABLES, COLUMNS, STATISTICS,
//! KEY_COLUMN_USAGE, TABLE_CONSTRAINTS, PARTITIONS).
//!
//! Selkie tracks no per-table sizes, creation times or checksums, so those columns are NULL
//! (unknown) rather than invented numbers; row counts come from the engine's estimate.

use std::sync::Arc;

use selkie_storage::{ColumnType, ForeignKeyAction, ForeignKeyDef, IndexDef, TableDef};

use super::columns::{is_table, IsTable, INFORMATION_SCHEMA, IS_TABLES};
use super::context::Ctx;
use super::literal;
use crate::error::SqlError;
use crate::types::Value;
use crate::variables::{database_collation, effective_charset, table_collation};

/// The storage engine name Selkie reports for every table (SHOW ENGINES explains why).
pub(crate) const ENGINE_NAME: &str = "InnoDB";
/// The engine a table shows: the one its CREATE TABLE named (variables::storage_engine says
/// why), InnoDB where it named none or one that tables created before names were checked kept.
pub(crate) fn engine_name(t: &TableDef) -> &'static str {
    crate::variables::storage_engine(&t.options.engine).unwrap_or(ENGINE_NAME)
}

/// MariaDB's .frm version number shown in TABLES.VERSION.
const TABLE_VERSION: u64 = 10;
const INFORMATION_SCHEMA_TABLE_VERSION: u64 = 11;
const INFORMATION_SCHEMA_CHARSET: &str = "utf8mb3";
const INFORMATION_SCHEMA_COLLATION: &str = "utf8mb3_bin";
/// Privileges shown for every column: Selkie grants every user all privileges.
const COLUMN_PRIVILEGES: &str = "select,insert,update,references";
const CATALOG_NAME: &str = "def";

pub(crate) fn text(s: &str) -> Value {
    Value::Bytes(s.as_bytes().to_vec())
}

fn opt_text(s: Option<&str>) -> Value {
    s.map(text).unwrap_or(Value::Null)
}

fn opt_uint(v: Option<u64>) -> Value {
    v.map(Value::UInt).unwrap_or(Value::Null)
}

pub(crate) fn is_information_schema(db: &str) -> bool {
    db.eq_ignore_ascii_case(INFORMATION_SCHEMA)
}

pub(crate) fn no_database() -> SqlError {
    SqlError::new(1046, "3D000", "No database selected")
}

pub(crate) fn unknown_database(db: &str) -> SqlError {
    SqlError::new(1049, "42000", format!("Unknown database '{db}'"))
}

pub(crate) fn no_such_table(db: &str, table: &str) -> SqlError {
    SqlError::new(1146, "42S02", format!("Table '{db}.{table}' doesn't exist"))
}

/// The database a SHOW ... [FROM db] refers to: the named one or the current one.
pub(crate) fn resolve_db(ctx: &Ctx, db: Option<&str>) -> Result<String, SqlError> {
    let db = match db.or(ctx.current_db) {
        Some(db) => db,
        None => return Err(no_database()),
    };
    if is_information_schema(db) {
        return Ok(INFORMATION_SCHEMA.into());
    }
    if ctx.catalog.database(db).is_none() {
        return Err(unknown_database(db));
    }
    Ok(db.to_string())
}

/// A table a SHOW statement names: a user table or an information_schema table.
pub(crate) enum TableTarget {
    /// A permanent table, or (`temporary`) one of the session's temporary tables.
    User {
        table: Arc<TableDef>,
        temporary: bool,
    },
    InformationSchema(&'static IsTable),
}

pub(crate) fn resolve_table<'a>(ctx: &Ctx<'a>, db: Option<&str>, name: &str) -> Result<TableTarget, SqlError> {
    let db = match db.or(ctx.current_db) {
        Some(db) => db,
        None => return Err(no_database()),
    };
    if is_information_schema(db) {
        return is_table(name)
            .map(TableTarget::InformationSchema)
            .ok_or_else(|| no_such_table(INFORMATION_SCHEMA, name));
    }
    if ctx.catalog.database(db).is_none() {
        return Err(unknown_database(db));
    }
    if let Some(t) = ctx.temporary.and_then(|tt| tt.resolve(ctx.catalog, db, name)) {
        return Ok(TableTarget::User { table: t, temporary: true });
    }
    ctx.catalog
        .table(db, name)
        .map(|t| TableTarget::User { table: t.clone(), temporary: false })
        .ok_or_else(|| no_such_table(db, name))
}

/// The tables of `db` that listings show: all but internal `#sql...` tables (temporary
/// tables' engine names), which MariaDB does not list either.
fn listed_tables<'c>(catalog: &'c selkie_storage::Catalog, db: &str) -> Vec<&'c Arc<TableDef>> {
    catalog.tables_in(db).into_iter().filter(|t| !crate::temporary::is_hidden_table(&t.name)).collect()
}

// ---- databases ----

/// (name, character set, collation) of every database, information_schema first as MariaDB
/// lists it. `mysql`, `performance_schema` and `sys` do not exist in Selkie.
pub(crate) fn databases(ctx: &Ctx) -> Vec<(String, &'static str, &'static str)> {
    let mut out = vec![(INFORMATION_SCHEMA.to_string(), INFORMATION_SCHEMA_CHARSET, INFORMATION_SCHEMA_COLLATION)];
    for (name, def) in &ctx.catalog.databases {
        if is_information_schema(name) {
            continue;
        }
        out.push((name.clone(), effective_charset(&def.charset), database_collation(def)));
    }
    out
}

pub(crate) fn schemata_rows(ctx: &Ctx) -> Vec<Vec<Value>> {
    databases(ctx)
        .into_iter()
        .map(|(name, cs, coll)| vec![text(CATALOG_NAME), text(&name), text(cs), text(coll), Value::Null, text("")])
        .collect()
}

// ---- tables ----

/// Table names of `db` (already resolved), sorted, with their TABLE_TYPE.
pub(crate) fn table_names(ctx: &Ctx, db: &str) -> Vec<(String, &'static str)> {
    if is_information_schema(db) {
        return IS_TABLES.iter().map(|t| (t.name.to_string(), "SYSTEM VIEW")).collect();
    }
    listed_tables(ctx.catalog, db).into_iter().map(|t| (t.name.clone(), table_type(t))).collect()
}

/// TABLE_TYPE of a user table: SEQUENCE for a sequence.
fn table_type(t: &TableDef) -> &'static str {
    if t.options.sequence.is_some() {
        "SEQUENCE"
    } else {
        "BASE TABLE"
    }
}

/// The AUTO_INCREMENT value a table reports: the next value, if it has such a column.
pub(crate) fn next_auto_increment(ctx: &Ctx, table: &TableDef) -> Option<u64> {
    table.auto_increment_column().map(|_| ctx.engine.next_auto_increment(table))
}

/// TABLES.ROW_FORMAT (and SHOW TABLE STATUS's Row_format) as MariaDB reports it: the
/// ROW_FORMAT= written, else the engine's own (a MyISAM table is Fixed without a column of
/// variable length). Selkie stores every table one way; this is what the table was declared as.
fn row_format(t: &TableDef) -> String {
    let written = &t.options.row_format;
    if !written.is_empty() && written != "DEFAULT" {
        let mut shown = written.to_ascii_lowercase();
        shown[..1].make_ascii_uppercase();
        return shown;
    }
    if t.options.sequence.is_some() {
        return "Fixed".to_string();
    }
    let variable_length = |c: &selkie_storage::ColumnDef| {
        use selkie_storage::ColumnType as T;
        matches!(c.ty, T::VarChar { .. } | T::VarBinary { .. } | T::Text { .. } | T::Blob { .. } | T::Json)
    };
    match engine_name(t) {
        "Aria" => "Page",
        "MEMORY" => "Fixed",
        "MyISAM" if !t.columns.iter().any(variable_length) => "Fixed",
        _ => "Dynamic",
    }
    .to_string()
}

/// TABLES.CREATE_OPTIONS as MariaDB shows them: the ROW_FORMAT= written and, for Aria, whether
/// the table is transactional (only its PAGE row format is). Options Selkie does not keep
/// (STATS_PERSISTENT, CHECKSUM, TRANSACTIONAL=) are missing.
fn create_options(t: &TableDef) -> String {
    let written = t.options.row_format.as_str();
    let mut options = Vec::new();
    if !written.is_empty() && written != "DEFAULT" {
        options.push(format!("row_format={written}"));
    }
    if engine_name(t) == "Aria" && t.options.sequence.is_none() {
        options.push(format!("transactional={}", u8::from(matches!(written, "" | "DEFAULT" | "PAGE"))));
    }
    options.join(" ")
}

/// One row of information_schema.TABLES for a user table (SHOW TABLE STATUS shows most of it,
/// see `table_status_rows`).
fn user_table_row(ctx: &Ctx, t: &TableDef) -> Vec<Value> {
    vec![
        text(CATALOG_NAME),
        text(&t.db),
        text(&t.name),
        text(table_type(t)),
        text(engine_name(t)),
        Value::UInt(TABLE_VERSION),
        text(&row_format(t)),
        Value::UInt(ctx.engine.approx_row_count(t)),
        Value::Null, // AVG_ROW_LENGTH
        Value::Null, // DATA_LENGTH
        Value::Null, // MAX_DATA_LENGTH
        Value::Null, // INDEX_LENGTH
        Value::Null, // DATA_FREE
        opt_uint(next_auto_increment(ctx, t)),
        Value::Null, // CREATE_TIME
        Value::Null, // UPDATE_TIME
        Value::Null, // CHECK_TIME
        text(table_collation(t)),
        Value::Null, // CHECKSUM
        text(&create_options(t)),
        text(&t.options.comment),
        Value::Null, // MAX_INDEX_LENGTH
        text("N"),
    ]
}

fn is_table_row(t: &IsTable) -> Vec<Value> {
    let mut row = vec![
        text(CATALOG_NAME),
        text(INFORMATION_SCHEMA),
        text(t.name),
        text("SYSTEM VIEW"),
        text("MEMORY"),
        Value::UInt(INFORMATION_SCHEMA_TABLE_VERSION),
        text("Fixed"),
    ];
    row.extend(std::iter::repeat_n(Value::Null, 10)); // TABLE_ROWS .. CHECK_TIME
    row.extend([text(INFORMATION_SCHEMA_COLLATION), Value::Null, text(""), text(""), Value::Null, text("Y")]);
    row
}

pub(crate) fn tables_rows(ctx: &Ctx) -> Vec<Vec<Value>> {
    let mut rows: Vec<Vec<Value>> = IS_TABLES.iter().map(is_table_row).collect();
    for (db, _, _) in databases(ctx).into_iter().skip(1) {
        for t in listed_tables(ctx.catalog, &db) {
            rows.push(user_table_row(ctx, t));
        }
    }
    rows
}

/// SHOW TABLE STATUS rows of `db` (already resolved): the information_schema.TABLES row from
/// TABLE_NAME on, without TABLE_TYPE (MariaDB's column order).
pub(crate) fn table_status_rows(ctx: &Ctx, db: &str) -> Vec<Vec<Value>> {
    let rows: Vec<Vec<Value>> = if is_information_schema(db) {
        IS_TABLES.iter().map(is_table_row).collect()
    } else {
        listed_tables(ctx.catalog, db).into_iter().map(|t| user_table_row(ctx, t)).collect()
    };
    // TABLES: catalog, schema, name, type, engine, ... → SHOW: name, engine, ...
    rows.into_iter()
        .map(|r| {
            let mut out = Vec::with_capacity(r.len() - 3);
            out.push(r[2].clone());
            out.extend(r.into_iter().skip(4));
            out
        })
        .collect()
}

pub(crate) fn partitions_rows(ctx: &Ctx) -> Vec<Vec<Value>> {
    let mut rows = Vec::new();
    for (db, _, _) in databases(ctx).into_iter().skip(1) {
        for t in listed_tables(ctx.catalog, &db) {
            let mut row = vec![text(CATALOG_NAME), text(&t.db), text(&t.name)];
            row.extend(std::iter::repeat_n(Value::Null, 9)); // PARTITION_NAME .. PARTITION_DESCRIPTION
            row.push(Value::UInt(ctx.engine.approx_row_count(t)));
            row.extend(std::iter::repeat_n(Value::Null, 9)); // AVG_ROW_LENGTH .. CHECKSUM
            row.extend([text(""), text(""), Value::Null]);
            rows.push(row);
        }
    }
    rows
}

// ---- columns ----

/// What information_schema.COLUMNS says about a column type.
pub(crate) struct TypeFacts {
    pub data_type: &'static str,
    pub char_max_len: Option<u64>,
    pub octet_len: Option<u64>,
    pub numeric_precision: Option<u64>,
    pub numeric_scale: Option<u64>,
    pub datetime_precision: Option<u64>,
    /// Character data: has a character set and collation.
    pub is_text: bool,
}

pub(crate) fn type_facts(ty: &ColumnType, charset_max_len: u64) -> TypeFacts {
    use selkie_storage::{IntWidth, LobSize};
    let none = TypeFacts {
        data_type: "",
        char_max_len: None,
        octet_len: None,
        numeric_precision: None,
        numeric_scale: None,
        datetime_precision: None,
        is_text: false,
    };
    let lob_name = |size: LobSize, text: bool| match (size, text) {
        (LobSize::Tiny, true) => "tinytext",
        (LobSize::Normal, true) => "text",
        (LobSize::Medium, true) => "mediumtext",
        (LobSize::Long, true) => "longtext",
        (LobSize::Tiny, false) => "tinyblob",
        (LobSize::Normal, false) => "blob",
        (LobSize::Medium, false) => "mediumblob",
        (LobSize::Long, false) => "longblob",
    };
    match ty {
        ColumnType::Int { width, unsigned, .. } => {
            let (name, signed_digits, unsigned_digits) = match width {
                IntWidth::Tiny => ("tinyint", 3, 3),
                IntWidth::Small => ("smallint", 5, 5),
                IntWidth::Medium => ("mediumint", 7, 8),
                IntWidth::Int => ("int", 10, 10),
                IntWidth::Big => ("bigint", 19, 20),
            };
            let digits = if *unsigned { unsigned_digits } else { signed_digits };
            TypeFacts { data_type: name, numeric_precision: Some(digits), numeric_scale: Some(0), ..none }
        }
        ColumnType::Bit { width } => TypeFacts { data_type: "bit", numeric_precision: Some(u64::from(*width)), ..none },
        ColumnType::Decimal { precision, scale, .. } => TypeFacts {
            data_type: "decimal",
            numeric_precision: Some(u64::from(*precision)),
            numeric_scale: Some(u64::from(*scale)),
            ..none
        },
        // FLOAT(M,D) reports M and D; plain FLOAT/DOUBLE their display widths and no scale.
        ColumnType::Float { digits, .. } | ColumnType::Double { digits, .. } => TypeFacts {
            data_type: if matches!(ty, ColumnType::Float { .. }) { "float" } else { "double" },
            numeric_precision: Some(
                digits.map_or(if matches!(ty, ColumnType::Float { .. }) { 12 } else { 22 }, |d| u64::from(d.0)),
            ),
            numeric_scale: digits.map(|d| u64::from(d.1)),
            ..none
        },
        ColumnType::Char { len } | ColumnType::VarChar { len } => TypeFacts {
            data_type: if matches!(ty, ColumnType::Char { .. }) { "char" } else { "varchar" },
            char_max_len: Some(u64::from(*len)),
            octet_len: Some(u64::from(*len) * charset_max_len),
            is_text: true,
            ..none
        },
        ColumnType::Text { size } => TypeFacts {
            data_type: lob_name(*size, true),
            char_max_len: Some(size.max_len()),
            octet_len: Some(size.max_len()),
            is_text: true,
            ..none
        },
        ColumnType::Binary { len } | ColumnType::VarBinary { len } => TypeFacts {
            data_type: if matches!(ty, ColumnType::Binary { .. }) { "binary" } else { "varbinary" },
            char_max_len: Some(u64::from(*len)),
            octet_len: Some(u64::from(*len)),
            ..none
        },
        ColumnType::Blob { size } => TypeFacts {
            data_type: lob_name(*size, false),
            char_max_len: Some(size.max_len()),
            octet_len: Some(size.max_len()),
            ..none
        },
        ColumnType::Date => TypeFacts { data_type: "date", ..none },
        ColumnType::DateTime { fsp } => {
            TypeFacts { data_type: "datetime", datetime_precision: Some(u64::from(*fsp)), ..none }
        }
        ColumnType::Timestamp { fsp } => {
            TypeFacts { data_type: "timestamp", datetime_precision: Some(u64::from(*fsp)), ..none }
        }
        ColumnType::Year => TypeFacts { data_type: "year", ..none },
        ColumnType::Time { fsp } => TypeFacts { data_type: "time", datetime_precision: Some(u64::from(*fsp)), ..none },
        ColumnType::Enum { .. } | ColumnType::Set { .. } => {
            let chars = match ty.stored_as().as_ref() {
                ColumnType::VarChar { len } => u64::from(*len),
                _ => 0,
            };
            // A SET's longest value has no trailing comma.
            let chars = if matches!(ty, ColumnType::Set { .. }) { chars.saturating_sub(1) } else { chars };
            TypeFacts {
                data_type: if matches!(ty, ColumnType::Enum { .. }) { "enum" } else { "set" },
                char_max_len: Some(chars),
                octet_len: Some(chars * charset_max_len),
                is_text: true,
                ..none
            }
        }
        ColumnType::Uuid => TypeFacts { data_type: "uuid", ..none },
        ColumnType::Inet4 => TypeFacts { data_type: "inet4", ..none },
        ColumnType::Inet6 => TypeFacts { data_type: "inet6", ..none },
        ColumnType::Json => TypeFacts {
            data_type: "longtext",
            char_max_len: Some(LobSize::Long.max_len()),
            octet_len: Some(LobSize::Long.max_len()),
            is_text: true,
            ..none
        },
    }
}

/// The index that acts as the primary key for SHOW's Key column: the declared primary key, or
/// (as MariaDB promotes it) the first UNIQUE index over NOT NULL columns without prefixes.
fn effective_primary(t: &TableDef) -> Option<&IndexDef> {
    if !t.has_hidden_pk() {
        return Some(&t.primary);
    }
    index_display_order(t).into_iter().find(|ix| {
        ix.unique
            && ix
                .columns
                .iter()
                .all(|c| c.prefix_len.is_none() && t.columns.get(c.column).is_some_and(|col| !col.nullable))
    })
}

/// COLUMN_KEY / SHOW COLUMNS Key: PRI (in the primary key), UNI (first column of a
/// single-column unique index), MUL (first column of any other index), or ''.
pub(crate) fn column_key(t: &TableDef, column: usize) -> &'static str {
    let primary = effective_primary(t);
    if primary.is_some_and(|p| p.columns.iter().any(|c| c.column == column)) {
        return "PRI";
    }
    let mut key = "";
    for ix in t.indexes() {
        if ix.columns.first().map(|c| c.column) != Some(column) {
            continue;
        }
        if ix.unique && ix.columns.len() == 1 {
            return "UNI";
        }
        key = "MUL";
    }
    key
}

pub(crate) fn column_extra(col: &selkie_storage::ColumnDef) -> String {
    if col.auto_increment {
        "auto_increment".into()
    } else if let Some(g) = &col.generated {
        (if g.stored { "STORED GENERATED" } else { "VIRTUAL GENERATED" }).into()
    } else if col.on_update_current_timestamp {
        format!("on update {}", literal::current_timestamp(&col.ty))
    } else {
        String::new()
    }
}

/// A column's collation: its own, or the table's.
fn column_collation<'c>(col: &'c selkie_storage::ColumnDef, table_collation: &'c str) -> &'c str {
    if matches!(col.ty, selkie_storage::ColumnType::Json) {
        // MariaDB's JSON is utf8mb4_bin LONGTEXT whatever the table's collation.
        "utf8mb4_bin"
    } else if col.collation.is_empty() {
        table_collation
    } else {
        &col.collation
    }
}

fn charset_max_len(charset: &str) -> u64 {
    crate::variables::find_charset(charset).map(|c| c.max_len).unwrap_or(4)
}

/// SHOW [FULL] COLUMNS rows of a user table (Field, Type, [Collation,] Null, Key, Default,
/// Extra[, Privileges, Comment]).
pub(crate) fn show_columns_rows(t: &TableDef, full: bool) -> Vec<Vec<Value>> {
    let collation = table_collation(t);
    t.columns
        .iter()
        .enumerate()
        .map(|(i, col)| {
            let facts = type_facts(&col.ty, charset_max_len(&t.options.charset));
            let mut row = vec![text(&col.name), text(&col.type_sql())];
            if full {
                row.push(if facts.is_text { text(column_collation(col, collation)) } else { Value::Null });
            }
            row.push(text(if col.nullable { "YES" } else { "NO" }));
            row.push(text(column_key(t, i)));
            row.push(literal::column_default_value(col).map(Value::Bytes).unwrap_or(Value::Null));
            row.push(text(&column_extra(col)));
            if full {
                row.push(text(COLUMN_PRIVILEGES));
                row.push(text(&col.comment));
            }
            row
        })
        .collect()
}

/// SHOW COLUMNS rows of an information_schema table.
pub(crate) fn show_is_columns_rows(t: &IsTable, full: bool) -> Vec<Vec<Value>> {
    t.columns
        .iter()
        .map(|col| {
            let is_text = col.column_type.starts_with("varchar") || col.column_type == "longtext";
            let mut row = vec![text(col.name), text(col.column_type)];
            if full {
                row.push(if is_text { text(INFORMATION_SCHEMA_COLLATION) } else { Value::Null });
            }
            row.push(text(if col.nullable { "YES" } else { "NO" }));
            row.extend([text(""), Value::Null, text("")]);
            if full {
                row.extend([text("select"), text("")]);
            }
            row
        })
        .collect()
}

/// information_schema.COLUMNS: every column of every table, information_schema's first.
pub(crate) fn columns_rows(ctx: &Ctx) -> Vec<Vec<Value>> {
    let mut rows = Vec::new();
    for t in IS_TABLES {
        for (i, col) in t.columns.iter().enumerate() {
            rows.push(is_column_row(t, i, col));
        }
    }
    for (db, _, _) in databases(ctx).into_iter().skip(1) {
        for t in listed_tables(ctx.catalog, &db) {
            let t = literal::with_session_defaults(t, ctx.session.time_zone());
            let charset = effective_charset(&t.options.charset);
            for (i, col) in t.columns.iter().enumerate() {
                let f = type_facts(&col.ty, charset_max_len(charset));
                rows.push(vec![
                    text(CATALOG_NAME),
                    text(&t.db),
                    text(&t.name),
                    text(&col.name),
                    Value::UInt(i as u64 + 1),
                    opt_text(literal::column_default_expression(col).as_deref()),
                    text(if col.nullable { "YES" } else { "NO" }),
                    text(f.data_type),
                    opt_uint(f.char_max_len),
                    opt_uint(f.octet_len),
                    opt_uint(f.numeric_precision),
                    opt_uint(f.numeric_scale),
                    opt_uint(f.datetime_precision),
                    opt_text(f.is_text.then(|| {
                        crate::charset::Collation::named(&col.collation).map_or(charset, |c| c.charset_name())
                    })),
                    opt_text(f.is_text.then(|| column_collation(col, table_collation(&t)))),
                    text(&col.type_sql()),
                    text(column_key(&t, i)),
                    text(&column_extra(col)),
                    text(COLUMN_PRIVILEGES),
                    text(&col.comment),
                    text(if col.generated.is_some() { "ALWAYS" } else { "NEVER" }),
                    opt_text(col.generated.as_ref().map(|g| g.expr.as_str())),
                ]);
            }
        }
    }
    rows
}

fn is_column_row(t: &IsTable, i: usize, col: &super::columns::IsColumn) -> Vec<Value> {
    let ty = col.column_type;
    let base = ty.split('(').next().unwrap_or(ty);
    let arg = |n: usize| -> Option<u64> {
        let inner = ty.split_once('(')?.1.split(')').next()?;
        inner.split(',').nth(n)?.trim().parse().ok()
    };
    let unsigned = ty.ends_with("unsigned");
    let (char_len, octets, precision, scale, dt_precision, is_text) = match base {
        "varchar" => (arg(0), arg(0).map(|n| n * 3), None, None, None, true),
        "longtext" => (Some(4_294_967_295), Some(4_294_967_295), None, None, None, true),
        "blob" => (Some(65_535), Some(65_535), None, None, None, false),
        "tinyint" => (None, None, Some(3), Some(0), None, false),
        "int" => (None, None, Some(10), Some(0), None, false),
        "bigint" => (None, None, Some(if unsigned { 20 } else { 19 }), Some(0), None, false),
        "decimal" => (None, None, arg(0), arg(1), None, false),
        "datetime" => (None, None, None, None, Some(arg(0).unwrap_or(0)), false),
        _ => (None, None, None, None, None, false),
    };
    vec![
        text(CATALOG_NAME),
        text(INFORMATION_SCHEMA),
        text(t.name),
        text(col.name),
        Value::UInt(i as u64 + 1),
        Value::Null,
        text(if col.nullable { "YES" } else { "NO" }),
        text(base),
        opt_uint(char_len),
        opt_uint(octets),
        opt_uint(precision),
        opt_uint(scale),
        opt_uint(dt_precision),
        opt_text(is_text.then_some(INFORMATION_SCHEMA_CHARSET)),
        opt_text(is_text.then_some(INFORMATION_SCHEMA_COLLATION)),
        text(ty),
        text(""),
        text(""),
        text("select"),
        text(""),
        text("NEVER"),
        Value::Null,
    ]
}

// ---- indexes ----

/// Indexes in the order MariaDB keeps them (its `sort_keys`): the primary key, then unique
/// indexes (those over NOT NULL columns first, then those without prefix columns), then the
/// others; declaration order within each group.
pub(crate) fn index_display_order(t: &TableDef) -> Vec<&IndexDef> {
    let has_nullable =
        |ix: &IndexDef| ix.columns.iter().any(|c| t.columns.get(c.column).is_none_or(|col| col.nullable));
    let has_prefix = |ix: &IndexDef| ix.columns.iter().any(|c| c.prefix_len.is_some());
    let mut out: Vec<(usize, &IndexDef)> = t.indexes().filter(|ix| !ix.columns.is_empty()).enumerate().collect();
    out.sort_by_key(|(pos, ix)| {
        let unique = ix.unique || ix.primary;
        (!unique, unique && has_nullable(ix), !ix.primary, unique && has_prefix(ix), *pos)
    });
    out.into_iter().map(|(_, ix)| ix).collect()
}

/// One (index, column) pair of a table, as STATISTICS / SHOW INDEX describe it.
struct IndexPart<'a> {
    index: &'a IndexDef,
    seq: usize,
    column: &'a selkie_storage::ColumnDef,
    prefix_len: Option<u32>,
    descending: bool,
}

fn index_parts(t: &TableDef) -> Vec<IndexPart<'_>> {
    let mut out = Vec::new();
    for ix in index_display_order(t) {
        for (seq, part) in ix.columns.iter().enumerate() {
            let Some(column) = t.columns.get(part.column) else {
                debug_assert!(false, "index {} names column {} of {}", ix.name, part.column, t.name);
                continue;
            };
            // Sub_part counts characters (the engine keeps bytes).
            let prefix_len = part.prefix_len.map(|n| crate::value::prefix_chars(&column.ty, n));
            out.push(IndexPart { index: ix, seq: seq + 1, column, prefix_len, descending: part.descending });
        }
    }
    out
}

/// SHOW INDEX rows (Table, Non_unique, Key_name, Seq_in_index, Column_name, Collation,
/// Cardinality, Sub_part, Packed, Null, Index_type, Comment, Index_comment, Ignored).
/// Cardinality is the engine's row estimate: Selkie keeps no per-index distinct counts.
pub(crate) fn show_index_rows(ctx: &Ctx, t: &TableDef) -> Vec<Vec<Value>> {
    let rows = ctx.engine.approx_row_count(t);
    index_parts(t)
        .into_iter()
        .map(|p| {
            vec![
                text(&t.name),
                Value::Int(i64::from(!(p.index.unique || p.index.primary))),
                text(&p.index.name),
                Value::UInt(p.seq as u64),
                text(&p.column.name),
                text(if p.descending { "D" } else { "A" }),
                Value::UInt(rows),
                opt_uint(p.prefix_len.map(u64::from)),
                Value::Null,
                text(if p.column.nullable { "YES" } else { "" }),
                text("BTREE"),
                text(""),
                text(""),
                text("NO"),
            ]
        })
        .collect()
}

pub(crate) fn statistics_rows(ctx: &Ctx) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for (db, _, _) in databases(ctx).into_iter().skip(1) {
        for t in listed_tables(ctx.catalog, &db) {
            for row in show_index_rows(ctx, t) {
                // SHOW INDEX row → STATISTICS row: catalog, schema, table, non_unique,
                // index schema, index name, seq, column, ...
                let mut r = vec![text(CATALOG_NAME), text(&t.db), row[0].clone(), row[1].clone(), text(&t.db)];
                r.extend(row.into_iter().skip(2));
                out.push(r);
            }
        }
    }
    out
}

/// Primary and unique keys (foreign keys and checks are listed after them).
fn constraints(t: &TableDef) -> impl Iterator<Item = &IndexDef> {
    index_display_order(t).into_iter().filter(|ix| ix.primary || ix.unique)
}

/// The foreign keys in InnoDB's order (by name, byte-wise).
pub(crate) fn foreign_keys_in_order(t: &TableDef) -> Vec<&ForeignKeyDef> {
    let mut fks: Vec<&ForeignKeyDef> = t.constraints.foreign_keys.iter().collect();
    fks.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    fks
}

fn rule(a: Option<ForeignKeyAction>) -> &'static str {
    match a.unwrap_or_default() {
        ForeignKeyAction::Restrict => "RESTRICT",
        ForeignKeyAction::NoAction => "NO ACTION",
        ForeignKeyAction::Cascade => "CASCADE",
        ForeignKeyAction::SetNull => "SET NULL",
    }
}

/// The name of the parent's index a foreign key uses (its leading columns are the referenced
/// ones), as REFERENTIAL_CONSTRAINTS.UNIQUE_CONSTRAINT_NAME shows it.
fn referenced_index_name(ctx: &Ctx, fk: &ForeignKeyDef) -> Value {
    let Some(parent) = ctx.catalog.table(&fk.ref_db, &fk.ref_table) else { return Value::Null };
    let Some(cols) = fk.ref_columns.iter().map(|n| parent.column_index(n)).collect::<Option<Vec<usize>>>() else {
        return Value::Null;
    };
    parent
        .indexes()
        .find(|ix| ix.columns.len() >= cols.len() && ix.columns.iter().zip(&cols).all(|(ic, &c)| ic.column == c))
        .map_or(Value::Null, |ix| text(&ix.name))
}

pub(crate) fn referential_constraints_rows(ctx: &Ctx) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for (db, _, _) in databases(ctx).into_iter().skip(1) {
        for t in ctx.catalog.tables_in(&db) {
            for fk in foreign_keys_in_order(t) {
                out.push(vec![
                    text(CATALOG_NAME),
                    text(&t.db),
                    text(&fk.name),
                    text(CATALOG_NAME),
                    text(&fk.ref_db),
                    referenced_index_name(ctx, fk),
                    text("NONE"),
                    text(rule(fk.on_update)),
                    text(rule(fk.on_delete)),
                    text(&t.name),
                    text(&fk.ref_table),
                ]);
            }
        }
    }
    out
}

/// A table's CHECK constraints as MariaDB lists them: (name, column-level, clause). A JSON
/// column has one of its own, `json_valid(col)`, as SHOW CREATE TABLE prints it (Django's
/// introspection finds JSON columns by it).
fn listed_checks(t: &TableDef) -> Vec<(&str, bool, String)> {
    let mut out: Vec<(&str, bool, String)> = Vec::new();
    let (columns, table): (Vec<_>, Vec<_>) = t.constraints.checks.iter().partition(|c| c.column.is_some());
    for col in t.columns.iter().filter(|c| matches!(c.ty, ColumnType::Json)) {
        if !columns.iter().any(|c| c.column.as_deref().is_some_and(|n| n.eq_ignore_ascii_case(&col.name))) {
            let clause = format!("json_valid({})", literal::quote_ident(&col.name));
            out.push((&col.name, true, clause));
        }
    }
    out.extend(columns.iter().map(|c| (c.name.as_str(), true, c.expr.clone())));
    // Column-level checks (a JSON column's included) come in column order, as MariaDB keeps
    // them with their fields; table-level ones follow in declaration order.
    let position = |name: &str| t.columns.iter().position(|c| c.name.eq_ignore_ascii_case(name));
    let column_of_check = |check: &(&str, bool, String)| {
        columns
            .iter()
            .find(|c| c.name == check.0)
            .and_then(|c| c.column.as_deref())
            .map_or_else(|| position(check.0), position)
    };
    out.sort_by_key(|check| column_of_check(check));
    out.extend(table.iter().map(|c| (c.name.as_str(), false, c.expr.clone())));
    out
}

pub(crate) fn check_constraints_rows(ctx: &Ctx) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for (db, _, _) in databases(ctx).into_iter().skip(1) {
        for t in ctx.catalog.tables_in(&db) {
            for (name, column, clause) in listed_checks(t) {
                let level = if column { "Column" } else { "Table" };
                out.push(vec![text(CATALOG_NAME), text(&t.db), text(&t.name), text(name), text(level), text(&clause)]);
            }
        }
    }
    out
}

pub(crate) fn key_column_usage_rows(ctx: &Ctx) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for (db, _, _) in databases(ctx).into_iter().skip(1) {
        for t in listed_tables(ctx.catalog, &db) {
            let mut fk_rows = Vec::new();
            for fk in foreign_keys_in_order(t) {
                for (i, (col, rcol)) in fk.columns.iter().zip(&fk.ref_columns).enumerate() {
                    fk_rows.push(vec![
                        text(CATALOG_NAME),
                        text(&t.db),
                        text(&fk.name),
                        text(CATALOG_NAME),
                        text(&t.db),
                        text(&t.name),
                        text(col),
                        Value::UInt(i as u64 + 1),
                        Value::UInt(i as u64 + 1),
                        text(&fk.ref_db),
                        text(&fk.ref_table),
                        text(rcol),
                    ]);
                }
            }
            for ix in constraints(t) {
                for (i, part) in ix.columns.iter().enumerate() {
                    let col = t.columns.get(part.column).map(|c| c.name.as_str()).unwrap_or("");
                    out.push(vec![
                        text(CATALOG_NAME),
                        text(&t.db),
                        text(&ix.name),
                        text(CATALOG_NAME),
                        text(&t.db),
                        text(&t.name),
                        text(col),
                        Value::UInt(i as u64 + 1),
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                    ]);
                }
            }
            out.append(&mut fk_rows);
        }
    }
    out
}

pub(crate) fn table_constraints_rows(ctx: &Ctx) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for (db, _, _) in databases(ctx).into_iter().skip(1) {
        for t in listed_tables(ctx.catalog, &db) {
            for ix in constraints(t) {
                let kind = if ix.primary { "PRIMARY KEY" } else { "UNIQUE" };
                out.push(vec![text(CATALOG_NAME), text(&t.db), text(&ix.name), text(&t.db), text(&t.name), text(kind)]);
            }
            let row = |name: &str, kind: &str| {
                vec![text(CATALOG_NAME), text(&t.db), text(name), text(&t.db), text(&t.name), text(kind)]
            };
            for fk in foreign_keys_in_order(t) {
                out.push(row(&fk.name, "FOREIGN KEY"));
            }
            for (name, _, _) in listed_checks(t) {
                out.push(row(name, "CHECK"));
            }
        }
    }
    out
}
