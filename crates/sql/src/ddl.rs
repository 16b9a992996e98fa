//! DDL: CREATE/DROP DATABASE, CREATE/DROP/TRUNCATE/RENAME TABLE, CREATE/DROP INDEX (ALTER TABLE
//! is alter.rs, which reads its column and index definitions with the functions here). Definitions are validated here with MariaDB's error codes, then handed to
//! the engine, which runs each change as its own durable transaction.

use std::sync::Arc;

use selkie_storage::{
    ColumnDef, ColumnDefault, ColumnType, DatabaseDef, Engine, IndexColumn, NewIndex, NewTable, TableDef, TableOptions,
};
use sqlparser::ast;

use crate::bind::{object_name_parts, Binder, INFORMATION_SCHEMA};
use crate::error;
use crate::error::SqlError;
use crate::exec::ctx::ExecCtx;
use crate::temporary::TEMPORARY_PREFIX;
use crate::types::Value;
use crate::types::WarnLevel;
use crate::value::{self, prefix_bytes_per_char, MAX_BYTES_PER_CHAR};

/// InnoDB's (and MariaDB's) longest index key, in bytes.
pub const MAX_KEY_BYTES: u64 = 3072;
/// Longest identifier (database, table, column, index name), in characters.
pub const MAX_IDENTIFIER_CHARS: usize = 64;

pub const DEFAULT_ENGINE: &str = "InnoDB";
pub const DEFAULT_CHARSET: &str = "utf8mb4";

/// The default collation of a character set, as MariaDB 10.11 names it.
pub fn default_collation(charset: &str) -> String {
    match charset.to_ascii_lowercase().as_str() {
        "utf8mb4" => "utf8mb4_general_ci".into(),
        "utf8" | "utf8mb3" => "utf8mb3_general_ci".into(),
        "latin1" => "latin1_swedish_ci".into(),
        "ascii" => "ascii_general_ci".into(),
        "binary" => "binary".into(),
        other => format!("{other}_general_ci"),
    }
}

pub(crate) fn check_identifier(name: &str, err: fn(&str) -> SqlError) -> Result<(), SqlError> {
    if name.is_empty() || name.ends_with(' ') {
        return Err(err(name));
    }
    if name.chars().count() > MAX_IDENTIFIER_CHARS {
        return Err(error::too_long_ident(name));
    }
    Ok(())
}

pub(crate) fn ident_parts(name: &ast::ObjectName, current_db: Option<&str>) -> Result<(String, String), SqlError> {
    let (db, t) = object_name_parts(name)?;
    let db = match db {
        Some(d) => d,
        None => current_db.ok_or_else(error::no_database)?.to_string(),
    };
    Ok((db, t))
}

pub(crate) fn reject_information_schema(db: &str) -> Result<(), SqlError> {
    if db.eq_ignore_ascii_case(INFORMATION_SCHEMA) {
        return Err(SqlError::new(1044, "42000", format!("Access denied for user to database '{INFORMATION_SCHEMA}'")));
    }
    Ok(())
}

/// Largest number of bytes a value of `ty` takes in a key.
fn key_bytes(ty: &ColumnType, prefix: Option<u32>) -> u64 {
    match ty {
        ColumnType::Char { len } | ColumnType::VarChar { len } => {
            prefix.map_or(*len as u64, |p| p as u64) * MAX_BYTES_PER_CHAR
        }
        ColumnType::Text { size } => prefix.map_or(size.max_len(), |p| p as u64 * MAX_BYTES_PER_CHAR),
        ColumnType::Binary { len } | ColumnType::VarBinary { len } => prefix.map_or(*len as u64, |p| p as u64),
        ColumnType::Blob { size } => prefix.map_or(size.max_len(), |p| p as u64),
        ColumnType::Decimal { precision, .. } => (*precision as u64 / 2) + 1,
        _ => 8,
    }
}

fn char_length(ty: &ColumnType) -> Option<u64> {
    match ty {
        ColumnType::Char { len }
        | ColumnType::VarChar { len }
        | ColumnType::Binary { len }
        | ColumnType::VarBinary { len } => Some(*len as u64),
        ColumnType::Text { size } | ColumnType::Blob { size } => Some(size.max_len()),
        _ => None,
    }
}

fn is_lob(ty: &ColumnType) -> bool {
    matches!(ty, ColumnType::Text { .. } | ColumnType::Blob { .. })
}

/// An index as declared: (column name, prefix length) pairs.
pub(crate) struct IndexSpec {
    pub name: Option<String>,
    /// (column name, prefix length in characters, DESC).
    pub columns: Vec<(String, Option<u32>, bool)>,
    pub unique: bool,
    pub primary: bool,
}

pub(crate) fn index_spec_columns(cols: &[ast::IndexColumn]) -> Result<Vec<(String, Option<u32>, bool)>, SqlError> {
    if cols.is_empty() {
        return Err(error::syntax(")", 1));
    }
    cols.iter()
        .map(|c| {
            let descending = matches!(c.column.options.sort, Some(ast::OrderBySort::Desc));
            index_spec_column(&c.column.expr).map(|(name, prefix)| (name, prefix, descending))
        })
        .collect()
}

fn index_spec_column(expr: &ast::Expr) -> Result<(String, Option<u32>), SqlError> {
    {
        match expr {
            ast::Expr::Identifier(i) => Ok((i.value.clone(), None)),
            ast::Expr::Function(f) => {
                // `col(10)`: a prefix index.
                let len = match &f.args {
                    ast::FunctionArguments::List(l) if l.args.len() == 1 => match &l.args[0] {
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Value(v))) => match &v.value {
                            ast::Value::Number(n, _) => n.parse::<u32>().ok(),
                            _ => None,
                        },
                        _ => None,
                    },
                    _ => None,
                };
                // The column name without its quotes (`` `c`(10) `` names column c).
                let name = match f.name.0.as_slice() {
                    [ast::ObjectNamePart::Identifier(i)] => Some(i.value.clone()),
                    _ => None,
                };
                match (name, len) {
                    (Some(name), Some(n)) if n > 0 => Ok((name, Some(n))),
                    _ => Err(error::not_supported("functional index")),
                }
            }
            other => Err(error::not_supported(&format!("index on expression {other}"))),
        }
    }
}

/// Resolves an index's columns against the table's columns with MariaDB's checks; long
/// non-unique keys are shortened to a prefix with note 1071, as MariaDB does.
pub(crate) fn resolve_index(
    spec: &IndexSpec,
    columns: &[ColumnDef],
    cx: &ExecCtx,
) -> Result<Vec<IndexColumn>, SqlError> {
    let mut out: Vec<IndexColumn> = Vec::with_capacity(spec.columns.len());
    let mut total = 0u64;
    for (name, prefix, descending) in &spec.columns {
        let Some(pos) = columns.iter().position(|c| c.name.eq_ignore_ascii_case(name)) else {
            return Err(error::key_column_missing(name));
        };
        if out.iter().any(|c| c.column == pos) {
            return Err(error::duplicate_column(&columns[pos].name));
        }
        let ty = &columns[pos].ty;
        let mut prefix = *prefix;
        if let Some(p) = prefix {
            match char_length(ty) {
                Some(max) if p as u64 <= max => {}
                _ => return Err(error::incorrect_prefix_key()),
            }
            if !is_lob(ty) && Some(p as u64) == char_length(ty) {
                // A prefix as long as the column is the whole column.
                prefix = None;
            }
        } else if is_lob(ty) {
            if spec.unique || spec.primary {
                return Err(error::blob_key_without_length(&columns[pos].name));
            }
            let p = if ty.is_binary() { MAX_KEY_BYTES } else { MAX_KEY_BYTES / MAX_BYTES_PER_CHAR };
            prefix = Some(p as u32);
            cx.push_warning(
                WarnLevel::Note,
                1071,
                format!("Specified key was too long; max key length is {MAX_KEY_BYTES} bytes"),
            );
        } else if key_bytes(ty, None) > MAX_KEY_BYTES && spec.columns.len() == 1 && !spec.unique && !spec.primary {
            let p = if ty.is_binary() { MAX_KEY_BYTES } else { MAX_KEY_BYTES / MAX_BYTES_PER_CHAR };
            prefix = Some(p as u32);
            cx.push_warning(
                WarnLevel::Note,
                1071,
                format!("Specified key was too long; max key length is {MAX_KEY_BYTES} bytes"),
            );
        }
        total += key_bytes(ty, prefix);
        let prefix_bytes = prefix.map(|chars| chars.saturating_mul(prefix_bytes_per_char(ty)));
        out.push(IndexColumn { column: pos, prefix_len: prefix_bytes, descending: *descending });
    }
    if total > MAX_KEY_BYTES {
        return Err(error::key_too_long(MAX_KEY_BYTES as usize));
    }
    Ok(out)
}

/// Chooses MariaDB's name for an unnamed index: its first column, then `_2`, `_3`, ...
pub(crate) fn index_name(first_column: &str, taken: &[String]) -> String {
    let free = |n: &str| !taken.iter().any(|t| t.eq_ignore_ascii_case(n)) && !n.eq_ignore_ascii_case("PRIMARY");
    if free(first_column) {
        return first_column.to_string();
    }
    (2..).map(|i| format!("{first_column}_{i}")).find(|n| free(n)).unwrap_or_default()
}

/// A name given to a PRIMARY KEY (`CONSTRAINT x PRIMARY KEY`, `PRIMARY KEY x (...)`): the key
/// is named PRIMARY whatever it says, with MariaDB's warning 1280.
pub(crate) fn warn_ignored_primary_key_name(c: &ast::TableConstraint, cx: &ExecCtx) {
    if let ast::TableConstraint::PrimaryKey(pk) = c {
        let name = pk.index_name.as_ref().or(pk.name.as_ref()).filter(|n| !n.value.eq_ignore_ascii_case("PRIMARY"));
        if let Some(n) = name {
            cx.push_warning(WarnLevel::Warning, 1280, format!("Name '{}' ignored for PRIMARY key.", n.value));
        }
    }
}

pub(crate) fn spec_from_constraint(c: &ast::TableConstraint) -> Result<IndexSpec, SqlError> {
    Ok(match c {
        ast::TableConstraint::PrimaryKey(pk) => {
            IndexSpec { name: None, columns: index_spec_columns(&pk.columns)?, unique: true, primary: true }
        }
        ast::TableConstraint::Unique(u) => IndexSpec {
            name: u.index_name.as_ref().or(u.name.as_ref()).map(|i| i.value.clone()),
            columns: index_spec_columns(&u.columns)?,
            unique: true,
            primary: false,
        },
        ast::TableConstraint::Index(ix) => IndexSpec {
            name: ix.name.as_ref().map(|i| i.value.clone()),
            columns: index_spec_columns(&ix.columns)?,
            unique: false,
            primary: false,
        },
        ast::TableConstraint::ForeignKey(_) => return Err(error::not_supported("FOREIGN KEY")),
        ast::TableConstraint::Check(_) => return Err(error::not_supported("CHECK constraints")),
        ast::TableConstraint::FulltextOrSpatial(_) => return Err(error::not_supported("FULLTEXT/SPATIAL indexes")),
        other => return Err(error::not_supported(&other.to_string())),
    })
}

/// Evaluates a column's DEFAULT clause into the stored default (1067 if it does not fit).
fn column_default(
    b: &mut Binder,
    cx: &mut ExecCtx,
    col: &ColumnDef,
    default: Option<&ast::Expr>,
    db: &str,
) -> Result<ColumnDefault, SqlError> {
    let Some(e) = default else {
        return Ok(ColumnDefault::None);
    };
    let datetime = matches!(col.ty, ColumnType::DateTime { .. } | ColumnType::Timestamp { .. });
    if crate::defaults::is_expression(e, datetime) {
        if col.auto_increment {
            return Err(error::invalid_default(&col.name));
        }
        return Ok(ColumnDefault::Expression(crate::defaults::text(e, &col.name, db)?));
    }
    if crate::defaults::is_current_timestamp(crate::defaults::unnest(e)) {
        return Ok(ColumnDefault::CurrentTimestamp);
    }
    let bound = b.bind_expr(e).map_err(|_| error::invalid_default(&col.name))?;
    if !bound.expr.is_row_independent()
        || bound.expr.is_volatile()
        || bound.expr.any(&mut |x| matches!(x, crate::plan::Expr::Param(_)))
    {
        return Err(error::invalid_default(&col.name));
    }
    let v = bound.expr.eval(&[], cx)?;
    if v.is_null() {
        return if col.nullable { Ok(ColumnDefault::None) } else { Err(error::invalid_default(&col.name)) };
    }
    if col.auto_increment {
        return Err(error::invalid_default(&col.name));
    }
    let strict = cx.set_strict(true);
    let stored = value::store_for_column(v, col, &*cx);
    cx.set_strict(strict);
    Ok(ColumnDefault::Value(stored.map_err(|_| error::invalid_default(&col.name))?))
}

fn table_options(opts: &ast::CreateTableOptions) -> (TableOptions, Option<u64>) {
    let mut o = TableOptions::default();
    let mut auto_inc = None;
    let list: &[ast::SqlOption] = match opts {
        ast::CreateTableOptions::None => &[],
        ast::CreateTableOptions::With(l)
        | ast::CreateTableOptions::Options(l)
        | ast::CreateTableOptions::Plain(l)
        | ast::CreateTableOptions::TableProperties(l) => l,
    };
    let text = |e: &ast::Expr| match e {
        ast::Expr::Identifier(i) => i.value.clone(),
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
            other => other.to_string(),
        },
        other => other.to_string(),
    };
    for opt in list {
        match opt {
            ast::SqlOption::NamedParenthesizedList(l) if l.key.value.eq_ignore_ascii_case("ENGINE") => {
                if let Some(n) = &l.name {
                    o.engine = n.value.clone();
                }
            }
            ast::SqlOption::KeyValue { key, value } => {
                let k = key.value.to_ascii_uppercase();
                if k == "ENGINE" {
                    o.engine = text(value);
                } else if k.contains("CHARSET") || k.contains("CHARACTER SET") {
                    o.charset = text(value);
                } else if k.contains("COLLATE") {
                    o.collation = text(value);
                } else if k == "AUTO_INCREMENT" {
                    auto_inc = text(value).parse().ok();
                } else if k == "COMMENT" {
                    o.comment = text(value);
                } else if k == "ROW_FORMAT" {
                    // Kept as written for SHOW CREATE TABLE; DEFAULT is none.
                    o.row_format = text(value).to_ascii_uppercase();
                    if o.row_format == "DEFAULT" {
                        o.row_format.clear();
                    }
                }
            }
            ast::SqlOption::Comment(c) => {
                o.comment = match c {
                    ast::CommentDef::WithEq(s) | ast::CommentDef::WithoutEq(s) => s.clone(),
                };
            }
            // KEY_BLOCK_SIZE, STATS_*, ... describe InnoDB's storage; accepted.
            _ => {}
        }
    }
    (o, auto_inc)
}

/// ENGINE= of CREATE TABLE: a known engine by its shown name; an unknown one is error 1286
/// under NO_ENGINE_SUBSTITUTION (the default sql_mode), else InnoDB with warnings 1286 and 1266.
fn resolve_engine(o: &mut TableOptions, table: &str, cx: &ExecCtx) -> Result<(), SqlError> {
    if o.engine.is_empty() {
        return Ok(());
    }
    match crate::variables::storage_engine(&o.engine) {
        Some(shown) => o.engine = shown.to_string(),
        None if cx.env.sql_mode.no_engine_substitution => return Err(error::unknown_storage_engine(&o.engine)),
        None => {
            cx.push_warning(WarnLevel::Warning, 1286, format!("Unknown storage engine '{}'", o.engine));
            cx.push_warning(
                WarnLevel::Warning,
                1266,
                format!("Using storage engine {DEFAULT_ENGINE} for table '{table}'"),
            );
            o.engine = DEFAULT_ENGINE.to_string();
        }
    }
    Ok(())
}

/// InnoDB has no FIXED or PAGE rows: MariaDB refuses to create such a table.
fn check_row_format(o: &TableOptions, db: &str, table: &str) -> Result<(), SqlError> {
    if o.engine.eq_ignore_ascii_case("InnoDB") && matches!(o.row_format.as_str(), "FIXED" | "PAGE") {
        return Err(error::wrong_create_options(db, table));
    }
    Ok(())
}

fn fill_charset(o: &mut TableOptions, db: Option<&DatabaseDef>) {
    if o.engine.is_empty() {
        o.engine = DEFAULT_ENGINE.to_string();
    }
    if o.charset.is_empty() {
        if let Some(c) = o.collation.split('_').next().filter(|_| !o.collation.is_empty()) {
            o.charset = c.to_string();
        } else {
            o.charset =
                db.map(|d| d.charset.clone()).filter(|c| !c.is_empty()).unwrap_or_else(|| DEFAULT_CHARSET.to_string());
        }
    }
    if o.collation.is_empty() {
        o.collation = match db {
            Some(d) if d.charset.eq_ignore_ascii_case(&o.charset) && !d.collation.is_empty() => d.collation.clone(),
            _ => default_collation(&o.charset),
        };
    }
}

/// Character columns that declare no character set or collation take the table's (MariaDB:
/// column ← table ← database ← server), kept on the column so that it compares, and its
/// index keys sort, in that collation whatever later becomes of the table's default.
fn inherit_collation(columns: &mut [ColumnDef], options: &TableOptions) {
    let Some(table) = crate::charset::Collation::named(&options.collation).filter(|c| !c.is_binary()) else {
        return;
    };
    for c in columns.iter_mut() {
        let text = matches!(c.ty, ColumnType::Char { .. } | ColumnType::VarChar { .. } | ColumnType::Text { .. });
        if text && c.collation.is_empty() {
            c.collation = table.name().to_string();
        }
    }
}

/// CREATE TABLE (plain or LIKE); an existing table with IF NOT EXISTS is note 1050.
pub async fn create_table(
    b: &mut Binder<'_>,
    cx: &mut ExecCtx<'_>,
    engine: &Engine,
    ct: &ast::CreateTable,
) -> Result<(), SqlError> {
    // The session rewrites CREATE TEMPORARY TABLE to its hidden engine name (crate::temporary).
    let hidden = ct.name.0.last().and_then(|p| p.as_ident()).is_some_and(|i| i.value.starts_with(TEMPORARY_PREFIX));
    if ct.temporary && !hidden {
        return Err(error::not_supported("CREATE TEMPORARY TABLE"));
    }
    if ct.or_replace && ct.if_not_exists {
        return Err(error::or_replace_and_if_not_exists());
    }
    if ct.query.is_some() {
        return Err(error::internal("CREATE TABLE ... SELECT reached create_table"));
    }
    let (db, name) = ident_parts(&ct.name, b.env.current_db)?;
    reject_information_schema(&db)?;
    check_identifier(&name, error::wrong_table_name)?;
    let mut constraints = selkie_storage::TableConstraints::default();
    let new_table = if let Some(like) = &ct.like {
        let src = match like {
            ast::CreateTableLikeKind::Parenthesized(l) | ast::CreateTableLikeKind::Plain(l) => &l.name,
        };
        let (sdb, sname) = ident_parts(src, b.env.current_db)?;
        if ct.or_replace && sdb == db && sname == name {
            return Err(error::not_unique_table(&name));
        }
        let Some(src) = b.env.catalog.table(&sdb, &sname) else {
            return Err(error::no_such_table(&sdb, &sname));
        };
        // CHECK constraints come along, foreign keys do not (as in MariaDB).
        constraints.checks = src.constraints.checks.clone();
        let like = table_like(src, db.clone(), name.clone());
        if ct.or_replace {
            engine.drop_table(&db, &name, true).await?;
        }
        like
    } else {
        if ct.or_replace {
            // MariaDB drops the old table before it checks the new definition: a definition
            // that fails (1060, 1067, 1072, ...) leaves no table. The two steps are not one
            // atomic change there either.
            engine.drop_table(&db, &name, true).await?;
        }
        let mut t = build_new_table(b, cx, ct, db.clone(), name.clone())?;
        if !(ct.if_not_exists && b.env.catalog.table(&db, &name).is_some()) {
            let checks = crate::constraints::foreign_key_checks(cx);
            constraints = crate::constraints::create_table_constraints(b.env.catalog, ct, &mut t, checks)?;
        }
        t
    };
    let created = engine.create_table_with_constraints(new_table, constraints, ct.if_not_exists).await?;
    if !created {
        cx.push_warning(WarnLevel::Note, 1050, format!("Table '{name}' already exists"));
    }
    Ok(())
}

/// The stored type for a query result column (CREATE TABLE ... SELECT).
pub fn column_type_for(ty: &value::SqlType) -> ColumnType {
    use selkie_storage::{IntWidth, LobSize};
    use value::SqlType as T;
    let lob = |n: u64| match n {
        0..=255 => LobSize::Tiny,
        256..=65_535 => LobSize::Normal,
        65_536..=16_777_215 => LobSize::Medium,
        _ => LobSize::Long,
    };
    match ty {
        // MariaDB makes BINARY(0) for a NULL column; one byte keeps the type usable.
        T::Null => ColumnType::VarBinary { len: 1 },
        T::Time { fsp } => ColumnType::Time { fsp: *fsp },
        T::Enum { values } => ColumnType::Enum { values: values.clone() },
        T::Bit { width } => ColumnType::Bit { width: *width },
        T::Int { bits, unsigned } => {
            let width = match bits {
                0..=8 => IntWidth::Tiny,
                9..=16 => IntWidth::Small,
                17..=24 => IntWidth::Medium,
                25..=32 => IntWidth::Int,
                _ => IntWidth::Big,
            };
            ColumnType::Int { width, unsigned: *unsigned, display_width: None }
        }
        T::Decimal { precision, scale } => {
            ColumnType::Decimal { precision: (*precision).max(1), scale: *scale, unsigned: false }
        }
        T::Float => ColumnType::FLOAT,
        T::Double => ColumnType::DOUBLE,
        // A UUID / INET4 / INET6 value makes a column of its type (MariaDB's CREATE ... SELECT).
        T::Text { collation, .. } if collation.fixed_binary_kind().is_some() => match collation.fixed_binary_kind() {
            Some(crate::charset::FixedBinary::Uuid) => ColumnType::Uuid,
            Some(crate::charset::FixedBinary::Inet4) => ColumnType::Inet4,
            _ => ColumnType::Inet6,
        },
        T::Text { max_chars, lob: false, .. } if (*max_chars as u64) <= crate::bind::types::MAX_VARCHAR_CHARS => {
            ColumnType::VarChar { len: *max_chars }
        }
        T::Text { max_chars, .. } => ColumnType::Text { size: lob(*max_chars as u64 * MAX_BYTES_PER_CHAR) },
        T::Bytes { max_len, lob: false } if (*max_len as u64) <= crate::bind::types::MAX_VARBINARY_LEN => {
            ColumnType::VarBinary { len: *max_len }
        }
        T::Bytes { max_len, .. } => ColumnType::Blob { size: lob(*max_len as u64) },
        T::Date => ColumnType::Date,
        T::DateTime { fsp } => ColumnType::DateTime { fsp: *fsp },
        T::Timestamp { fsp } => ColumnType::Timestamp { fsp: *fsp },
    }
}

/// CREATE TABLE ... SELECT: the table definition from the query's result columns.
/// With column definitions or keys, `table_with_definitions_for_query` merges them in.
pub fn table_for_query(b: &Binder, ct: &ast::CreateTable, plan: &crate::plan::QueryPlan) -> Result<NewTable, SqlError> {
    let (db, name) = ident_parts(&ct.name, b.env.current_db)?;
    reject_information_schema(&db)?;
    check_identifier(&name, error::wrong_table_name)?;
    let mut columns: Vec<ColumnDef> = Vec::with_capacity(plan.columns.len());
    for c in &plan.columns {
        check_identifier(&c.meta.name, error::wrong_column_name)?;
        if columns.iter().any(|x| x.name.eq_ignore_ascii_case(&c.meta.name)) {
            return Err(error::duplicate_column(&c.meta.name));
        }
        let nullable = c.meta.flags & crate::types::column_flags::NOT_NULL == 0;
        let column = match selected_table_column(b, &c.meta) {
            Some(source) => column_copied_for_query(source, &c.meta.name, nullable),
            None => ColumnDef {
                name: c.meta.name.clone(),
                ty: column_type_for_result(&c.ty, &c.meta),
                nullable,
                default: ColumnDefault::None,
                auto_increment: false,
                on_update_current_timestamp: false,
                comment: String::new(),
                zerofill: false,
                generated: None,
                collation: match &c.ty {
                    // CREATE TABLE ... SELECT: a column keeps the collation it was selected with.
                    value::SqlType::Text { collation, .. }
                        if collation.weighs_characters() && collation.fixed_binary_kind().is_none() =>
                    {
                        collation.name().to_string()
                    }
                    _ => String::new(),
                },
            },
        };
        columns.push(column);
    }
    let (mut options, auto_increment_start) = table_options(&ct.table_options);
    if !options.engine.is_empty() {
        // CREATE ... SELECT keeps NO_ENGINE_SUBSTITUTION's answer whatever the sql_mode.
        let shown = crate::variables::storage_engine(&options.engine)
            .ok_or_else(|| error::unknown_storage_engine(&options.engine))?;
        options.engine = shown.to_string();
    }
    fill_charset(&mut options, b.env.catalog.database(&db));
    Ok(NewTable { db, name, columns, primary_key: Vec::new(), indexes: Vec::new(), options, auto_increment_start })
}

/// The base table column a result column selects as it is (its metadata names the table and
/// column it came from, as MariaDB's org_table / org_name), if there is one. A session's
/// temporary table shadows the permanent one of its name, as when the query was bound.
fn selected_table_column(b: &Binder, meta: &crate::types::ColumnDefinition) -> Option<ColumnDef> {
    if meta.org_table.is_empty() || meta.org_name.is_empty() {
        return None;
    }
    let temporary = b.env.temporary.and_then(|tt| tt.resolve(b.env.catalog, &meta.schema, &meta.org_table));
    let table = match &temporary {
        Some(t) => t.as_ref(),
        None => b.env.catalog.table(&meta.schema, &meta.org_table)?,
    };
    table.columns.iter().find(|c| c.name.eq_ignore_ascii_case(&meta.org_name)).cloned()
}

/// A selected table column's definition in the new table, as MariaDB's CREATE ... SELECT makes
/// it (`Field::make_new_field`): type, DEFAULT, ON UPDATE, comment and collation are kept; an
/// AUTO_INCREMENT column becomes NOT NULL DEFAULT 0 and a generated one a plain column without
/// DEFAULT. The query decides nullability (an outer join's column may be NULL).
fn column_copied_for_query(source: ColumnDef, name: &str, nullable: bool) -> ColumnDef {
    let mut c = source;
    c.name = name.to_string();
    c.nullable = nullable;
    if c.auto_increment {
        c.auto_increment = false;
        let unsigned = matches!(c.ty, ColumnType::Int { unsigned: true, .. });
        let zero = if unsigned { selkie_storage::Datum::UInt(0) } else { selkie_storage::Datum::Int(0) };
        c.default = ColumnDefault::Value(zero);
    }
    if c.generated.take().is_some() {
        c.default = ColumnDefault::None;
    }
    c
}

/// The stored type for a computed result column: `column_type_for`, with what MariaDB takes from
/// the item's metadata (`Item::create_tmp_field`): an integer's type follows its field type
/// and its display width is the item's length (int(1) for `1`, bigint(21) for COUNT(*)), NULL
/// is BINARY(0), an empty string CHAR(0), and a DOUBLE with fixed decimals DOUBLE(M,D).
fn column_type_for_result(ty: &value::SqlType, meta: &crate::types::ColumnDefinition) -> ColumnType {
    use crate::types::FieldType as F;
    use selkie_storage::IntWidth;
    let width = match meta.field_type {
        F::Tiny => Some(IntWidth::Tiny),
        F::Short => Some(IntWidth::Small),
        F::Int24 => Some(IntWidth::Medium),
        F::Long => Some(IntWidth::Int),
        F::LongLong => Some(IntWidth::Big),
        _ => None,
    };
    match (ty, column_type_for(ty)) {
        (value::SqlType::Null, _) => ColumnType::Binary { len: 0 },
        (value::SqlType::Int { unsigned, .. }, ColumnType::Int { width: derived, .. }) => ColumnType::Int {
            width: width.unwrap_or(derived),
            unsigned: *unsigned,
            display_width: Some(meta.length.max(1)),
        },
        (_, ColumnType::VarChar { len: 0 }) => ColumnType::Char { len: 0 },
        (_, ColumnType::Double { unsigned, digits: None }) if meta.decimals < 31 && meta.length > 0 => {
            let digits = u8::try_from(meta.length).ok().map(|m| (m, meta.decimals));
            ColumnType::Double { unsigned, digits }
        }
        (_, other) => other,
    }
}

fn table_like(src: &TableDef, db: String, name: String) -> NewTable {
    NewTable {
        db,
        name,
        columns: src.columns.clone(),
        primary_key: src.primary.columns.clone(),
        indexes: src
            .secondary
            .iter()
            .map(|i| NewIndex { name: i.name.clone(), columns: i.columns.clone(), unique: i.unique })
            .collect(),
        options: src.options.clone(),
        auto_increment_start: None,
    }
}

pub(crate) fn build_new_table(
    b: &mut Binder,
    cx: &mut ExecCtx,
    ct: &ast::CreateTable,
    db: String,
    name: String,
) -> Result<NewTable, SqlError> {
    build_table_with(b, cx, ct, db, name, &[])
}

/// CREATE TABLE (definitions) SELECT: the declared definitions merged with the query's columns
/// (`derived`, from `table_for_query`) as MariaDB merges them, and the constraints declared.
pub(crate) fn table_with_definitions_for_query(
    b: &mut Binder,
    cx: &mut ExecCtx,
    ct: &ast::CreateTable,
    derived: NewTable,
) -> Result<(NewTable, selkie_storage::TableConstraints), SqlError> {
    let mut t = build_table_with(b, cx, ct, derived.db, derived.name, &derived.columns)?;
    if !derived.options.engine.is_empty() {
        t.options.engine = derived.options.engine;
    }
    let checks = crate::constraints::foreign_key_checks(cx);
    let constraints = crate::constraints::create_table_constraints(b.env.catalog, ct, &mut t, checks)?;
    Ok((t, constraints))
}

/// The table CREATE TABLE defines; `from_query` are the columns of its SELECT, if it has one.
/// MariaDB's order: the declared columns the query does not name, then the query's columns, a
/// declared one in its query place with its declared definition.
fn build_table_with(
    b: &mut Binder,
    cx: &mut ExecCtx,
    ct: &ast::CreateTable,
    db: String,
    name: String,
    from_query: &[ColumnDef],
) -> Result<NewTable, SqlError> {
    if ct.columns.is_empty() && from_query.is_empty() {
        return Err(SqlError::new(1113, "42000", "A table must have at least 1 column"));
    }
    let mut columns: Vec<ColumnDef> = Vec::with_capacity(ct.columns.len());
    let mut specs: Vec<IndexSpec> = Vec::new();
    let mut defaults: Vec<Option<&ast::Expr>> = Vec::with_capacity(ct.columns.len());
    let mut explicit_null: Vec<bool> = Vec::with_capacity(ct.columns.len());
    let mut generated: Vec<Option<crate::generated::Declared>> = Vec::with_capacity(ct.columns.len());
    for cd in &ct.columns {
        let cname = cd.name.value.clone();
        check_identifier(&cname, error::wrong_column_name)?;
        if columns.iter().any(|c| c.name.eq_ignore_ascii_case(&cname)) {
            return Err(error::duplicate_column(&cname));
        }
        let ty = crate::bind::types::column_type(&cd.data_type, &cname)?;
        // MariaDB's JSON is a utf8mb4_bin LONGTEXT with an implicit CHECK (json_valid(`c`)), which
        // a CHECK declared on the column replaces: the column is then that plain LONGTEXT.
        let json_with_check = matches!(ty, ColumnType::Json)
            && cd.options.iter().any(|o| matches!(o.option, ast::ColumnOption::Check(_)));
        let ty = if json_with_check { ColumnType::Text { size: selkie_storage::LobSize::Long } } else { ty };
        let mut nullable = None;
        let mut default = None;
        let mut auto_increment = false;
        let mut on_update = false;
        let mut comment = String::new();
        let mut zerofill = false;
        let mut column_charset: Option<String> = None;
        let mut column_collation: Option<String> = None;
        let mut declared_generated = None;
        for opt in &cd.options {
            match &opt.option {
                o if crate::parse::type_modifiers::is_zerofill_marker(o) => zerofill = true,
                ast::ColumnOption::Null => nullable = Some(true),
                ast::ColumnOption::NotNull => nullable = Some(false),
                ast::ColumnOption::Default(e) => default = Some(e),
                ast::ColumnOption::PrimaryKey(_) => specs.push(IndexSpec {
                    name: None,
                    columns: vec![(cname.clone(), None, false)],
                    unique: true,
                    primary: true,
                }),
                ast::ColumnOption::Unique(_) => specs.push(IndexSpec {
                    name: None,
                    columns: vec![(cname.clone(), None, false)],
                    unique: true,
                    primary: false,
                }),
                ast::ColumnOption::Comment(c) => comment = c.clone(),
                ast::ColumnOption::OnUpdate(e) if crate::defaults::is_current_timestamp(e) => {
                    if !matches!(ty, ColumnType::DateTime { .. } | ColumnType::Timestamp { .. }) {
                        return Err(error::invalid_on_update(&cname));
                    }
                    on_update = true;
                }
                ast::ColumnOption::CharacterSet(n) => column_charset = Some(unquoted_name(n)),
                ast::ColumnOption::Collation(n) => column_collation = Some(unquoted_name(n)),
                ast::ColumnOption::DialectSpecific(tokens) => {
                    for t in tokens {
                        match t {
                            sqlparser::tokenizer::Token::Word(w) if w.value.eq_ignore_ascii_case("AUTO_INCREMENT") => {
                                auto_increment = true
                            }
                            other => return Err(error::not_supported(&format!("column option {other}"))),
                        }
                    }
                }
                o if crate::constraints::is_constraint_option(o) => {}
                o @ ast::ColumnOption::Generated { .. } => declared_generated = crate::generated::declared(o)?,
                other => return Err(error::not_supported(&format!("column option {other}"))),
            }
        }
        if auto_increment && !ty.is_integer() {
            return Err(error::incorrect_column_specifier(&cname));
        }
        // MariaDB's grammar has no NULL, NOT NULL, DEFAULT, AUTO_INCREMENT or ON UPDATE for a
        // generated column.
        if declared_generated.is_some() && (nullable.is_some() || default.is_some() || auto_increment || on_update) {
            return Err(error::syntax(&cd.to_string(), 1));
        }
        generated.push(declared_generated);
        explicit_null.push(nullable == Some(true));
        // An ENUM or SET keeps a collation it declares (its values compare in it); one that
        // declares none compares in utf8mb4_general_ci (`Binder::collation_of_operand`).
        let enum_or_set = matches!(ty, ColumnType::Enum { .. } | ColumnType::Set { .. });
        let collation = if ty.is_binary() || !(ty.is_string() || enum_or_set) {
            String::new()
        } else if json_with_check && column_charset.is_none() && column_collation.is_none() {
            "utf8mb4_bin".to_string()
        } else {
            crate::bind::declared_column_collation(column_charset.as_deref(), column_collation.as_deref())?
                .map_or_else(String::new, |c| c.name().to_string())
        };
        columns.push(ColumnDef {
            name: cname,
            ty,
            nullable: nullable.unwrap_or(true),
            default: ColumnDefault::None,
            auto_increment,
            on_update_current_timestamp: on_update,
            comment,
            zerofill,
            collation,
            generated: None,
        });
        defaults.push(default);
    }
    if !from_query.is_empty() {
        let declared_at = |n: &str| columns.iter().position(|c| c.name.eq_ignore_ascii_case(n));
        let mut order: Vec<Option<usize>> = (0..columns.len())
            .filter(|&i| !from_query.iter().any(|q| q.name.eq_ignore_ascii_case(&columns[i].name)))
            .map(Some)
            .collect();
        let mut merged = Vec::with_capacity(order.len() + from_query.len());
        merged.extend(order.iter().flatten().map(|&i| columns[i].clone()));
        for q in from_query {
            let at = declared_at(&q.name);
            merged.push(at.map_or_else(|| q.clone(), |i| columns[i].clone()));
            order.push(at);
        }
        // The query's own columns have no DEFAULT clause (they keep what they copied), NULL
        // keyword or generation clause.
        defaults = order.iter().map(|o| o.and_then(|i| defaults[i])).collect();
        explicit_null = order.iter().map(|o| o.is_some_and(|i| explicit_null[i])).collect();
        let mut declared_generated = std::mem::take(&mut generated);
        generated = order.iter().map(|o| o.and_then(|i| declared_generated[i].take())).collect();
        columns = merged;
    }
    for c in ct.constraints.iter().filter(|c| !crate::constraints::is_constraint_clause(c)) {
        warn_ignored_primary_key_name(c, cx);
        specs.push(spec_from_constraint(c)?);
    }
    // Primary key: at most one; its columns are NOT NULL.
    let primaries: Vec<&IndexSpec> = specs.iter().filter(|s| s.primary).collect();
    if primaries.len() > 1 {
        return Err(error::multiple_primary_key());
    }
    let primary_key = match primaries.first() {
        Some(pk) => {
            let cols = resolve_index(pk, &columns, cx)?;
            if cols.iter().any(|ic| generated[ic.column].is_some()) {
                return Err(crate::generated::primary_key_refused());
            }
            for ic in &cols {
                if explicit_null[ic.column] {
                    return Err(SqlError::new(
                        1171,
                        "42000",
                        "All parts of a PRIMARY KEY must be NOT NULL; if you need NULL in a key, use UNIQUE instead",
                    ));
                }
                columns[ic.column].nullable = false;
            }
            cols
        }
        None => Vec::new(),
    };
    crate::generated::define(b.env.catalog, &db, &name, &mut columns, &generated)?;
    // Defaults, now that nullability is final.
    // A column without a DEFAULT clause keeps the one it has: none, or the one a query's column
    // copied from the column it selects.
    for i in 0..columns.len() {
        if defaults[i].is_some() {
            let d = column_default(b, cx, &columns[i], defaults[i], &db)?;
            columns[i].default = d;
        }
    }
    crate::defaults::check_table(b.env.catalog, &db, &name, &columns)?;
    let mut indexes: Vec<NewIndex> = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    for s in specs.iter().filter(|s| !s.primary) {
        if let Some(n) = &s.name {
            if n.eq_ignore_ascii_case("PRIMARY") {
                return Err(error::incorrect_index_name(n));
            }
            check_identifier(n, error::incorrect_index_name)?;
            if taken.iter().any(|t| t.eq_ignore_ascii_case(n)) {
                return Err(error::duplicate_key_name(n));
            }
        }
        let cols = resolve_index(s, &columns, cx)?;
        let name = match &s.name {
            Some(n) => n.clone(),
            None => index_name(&columns[cols[0].column].name, &taken),
        };
        taken.push(name.clone());
        indexes.push(NewIndex { name, columns: cols, unique: s.unique });
    }
    // One AUTO_INCREMENT column, and it must lead some index.
    let autos: Vec<usize> = (0..columns.len()).filter(|&i| columns[i].auto_increment).collect();
    if autos.len() > 1 {
        return Err(error::bad_auto_column());
    }
    if let Some(&a) = autos.first() {
        let leads = primary_key.first().is_some_and(|c| c.column == a)
            || indexes.iter().any(|i| i.columns.first().is_some_and(|c| c.column == a));
        if !leads {
            return Err(error::bad_auto_column());
        }
        columns[a].nullable = false;
    }
    let (mut options, auto_increment_start) = table_options(&ct.table_options);
    resolve_engine(&mut options, &name, cx)?;
    if let Some(c) = &ct.comment {
        options.comment = match c {
            ast::CommentDef::WithEq(s) | ast::CommentDef::WithoutEq(s) => s.clone(),
        };
    }
    fill_charset(&mut options, b.env.catalog.database(&db));
    check_row_format(&options, &db, &name)?;
    inherit_collation(&mut columns, &options);
    Ok(NewTable { db, name, columns, primary_key, indexes, options, auto_increment_start })
}

/// DROP TABLE [IF EXISTS] a, b, ...: drops the tables that exist; 1051 names the missing ones
/// (notes instead with IF EXISTS).
pub async fn drop_tables(
    engine: &Engine,
    cx: &mut ExecCtx<'_>,
    names: &[ast::ObjectName],
    if_exists: bool,
    current_db: Option<&str>,
) -> Result<(), SqlError> {
    let mut missing = Vec::new();
    let mut listed = Vec::with_capacity(names.len());
    for n in names {
        listed.push(ident_parts(n, current_db)?);
    }
    crate::constraints::check_drop(&engine.catalog(), &listed, cx)?;
    for n in names {
        let (db, t) = ident_parts(n, current_db)?;
        reject_information_schema(&db)?;
        let dropped = engine.drop_table(&db, &t, true).await?;
        if !dropped {
            missing.push(format!("{db}.{t}"));
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    if if_exists {
        for m in missing {
            cx.push_warning(WarnLevel::Note, 1051, format!("Unknown table '{m}'"));
        }
        Ok(())
    } else {
        Err(error::unknown_table(&missing.join(",")))
    }
}

pub async fn create_database(
    engine: &Engine,
    cx: &mut ExecCtx<'_>,
    name: &str,
    if_not_exists: bool,
    charset: Option<String>,
    collation: Option<String>,
) -> Result<u64, SqlError> {
    check_identifier(name, error::wrong_db_name)?;
    if name.eq_ignore_ascii_case(INFORMATION_SCHEMA) {
        return Err(SqlError::new(1007, "HY000", format!("Can't create database '{name}'; database exists")));
    }
    // MariaDB: neither given, the server's (@@character_set_server, @@collation_server).
    let text_var = |cx: &ExecCtx, name: &str| match cx.system_variable(name, crate::variables::VarScope::Session) {
        Ok(Value::Bytes(b)) => String::from_utf8(b).ok().filter(|s| !s.is_empty()),
        _ => None,
    };
    let (charset, collation) = match (charset, collation) {
        (None, None) => {
            let charset = text_var(cx, "character_set_server").unwrap_or_else(|| DEFAULT_CHARSET.to_string());
            let server = text_var(cx, "collation_server").filter(|c| c.split('_').next() == Some(charset.as_str()));
            (charset.clone(), server.unwrap_or_else(|| default_collation(&charset)))
        }
        (charset, collation) => {
            let charset = charset
                .or_else(|| collation.as_ref().and_then(|c| c.split('_').next().map(str::to_string)))
                .unwrap_or_else(|| DEFAULT_CHARSET.to_string());
            let collation = collation.unwrap_or_else(|| default_collation(&charset));
            (charset, collation)
        }
    };
    let created =
        engine.create_database(DatabaseDef { name: name.to_string(), charset, collation }, if_not_exists).await?;
    if !created {
        cx.push_warning(WarnLevel::Note, 1007, format!("Can't create database '{name}'; database exists"));
        return Ok(0);
    }
    Ok(1)
}

/// DROP DATABASE: affected rows = tables dropped.
pub async fn drop_database(
    engine: &Engine,
    cx: &mut ExecCtx<'_>,
    name: &str,
    if_exists: bool,
) -> Result<u64, SqlError> {
    reject_information_schema(name)?;
    match engine.drop_database(name, if_exists).await? {
        Some(n) => Ok(n as u64),
        None => {
            cx.push_warning(WarnLevel::Note, 1008, format!("Can't drop database '{name}'; database doesn't exist"));
            Ok(0)
        }
    }
}

/// CREATE [UNIQUE] INDEX and ALTER TABLE ADD INDEX/KEY/UNIQUE.
async fn add_index(
    engine: &Engine,
    cx: &mut ExecCtx<'_>,
    table: &Arc<TableDef>,
    spec: IndexSpec,
) -> Result<(), SqlError> {
    if spec.primary {
        return Err(error::not_supported("adding a PRIMARY KEY to an existing table"));
    }
    if let Some(n) = &spec.name {
        if n.eq_ignore_ascii_case("PRIMARY") {
            return Err(error::incorrect_index_name(n));
        }
        check_identifier(n, error::incorrect_index_name)?;
    }
    let cols = resolve_index(&spec, &table.columns, cx)?;
    let taken: Vec<String> = table.indexes().map(|i| i.name.clone()).collect();
    let name = match spec.name {
        Some(n) => n,
        None => index_name(&table.columns[cols[0].column].name, &taken),
    };
    let implicit = implicit_foreign_key_index(table, &cols).map(str::to_string);
    // Online, as MariaDB's CREATE INDEX (LOCK=NONE): writers of the table go on.
    engine.create_index_online(&table.db, &table.name, NewIndex { name, columns: cols, unique: spec.unique }).await?;
    if let Some(implicit) = implicit {
        engine.drop_index(&table.db, &table.name, &implicit).await?;
    }
    Ok(())
}

/// The index a foreign key got when it was added (named after the key, on exactly its columns)
/// that a new index on `new` (starting with those columns) replaces: InnoDB drops its
/// implicitly created index then, as ALTER TABLE ADD INDEX does (`alter::Edit::add_index`).
fn implicit_foreign_key_index<'t>(table: &'t TableDef, new: &[IndexColumn]) -> Option<&'t str> {
    let position = |n: &String| table.columns.iter().position(|c| c.name.eq_ignore_ascii_case(n));
    table.secondary.iter().find_map(|ix| {
        let serves = !ix.unique
            && table.constraints.foreign_keys.iter().any(|fk| {
                let Some(fk_cols) = fk.columns.iter().map(position).collect::<Option<Vec<usize>>>() else {
                    return false;
                };
                let leads = |cols: &[IndexColumn]| {
                    cols.len() >= fk_cols.len()
                        && cols.iter().zip(&fk_cols).all(|(c, p)| c.column == *p && c.prefix_len.is_none())
                };
                fk.name.eq_ignore_ascii_case(&ix.name)
                    && ix.columns.len() == fk_cols.len()
                    && leads(&ix.columns)
                    && leads(new)
            });
        serves.then_some(ix.name.as_str())
    })
}

fn lookup<'c>(
    catalog: &'c selkie_storage::Catalog,
    name: &ast::ObjectName,
    current_db: Option<&str>,
) -> Result<&'c Arc<TableDef>, SqlError> {
    let (db, t) = ident_parts(name, current_db)?;
    catalog.table(&db, &t).ok_or_else(|| error::no_such_table(&db, &t))
}

pub async fn create_index(
    engine: &Engine,
    cx: &mut ExecCtx<'_>,
    catalog: &selkie_storage::Catalog,
    ci: &ast::CreateIndex,
    current_db: Option<&str>,
) -> Result<(), SqlError> {
    if ci.predicate.is_some() || !ci.include.is_empty() || ci.concurrently {
        return Err(error::not_supported(&ci.to_string()));
    }
    let table = lookup(catalog, &ci.table_name, current_db)?;
    let name = match &ci.name {
        Some(n) => Some(object_name_parts(n)?.1),
        None => return Err(error::syntax("ON", 1)),
    };
    if ci.if_not_exists {
        if let Some(n) = &name {
            if table.index_by_name(n).is_some() {
                cx.push_warning(WarnLevel::Note, 1061, format!("Duplicate key name '{n}'"));
                return Ok(());
            }
        }
    }
    let spec = IndexSpec { name, columns: index_spec_columns(&ci.columns)?, unique: ci.unique, primary: false };
    add_index(engine, &mut *cx, table, spec).await
}

pub async fn drop_index(
    engine: &Engine,
    catalog: &selkie_storage::Catalog,
    index: &str,
    table: &ast::ObjectName,
    current_db: Option<&str>,
) -> Result<(), SqlError> {
    let t = lookup(catalog, table, current_db)?;
    if index.eq_ignore_ascii_case("PRIMARY") {
        return Err(error::not_supported("dropping the PRIMARY KEY"));
    }
    if t.secondary.iter().all(|i| !i.name.eq_ignore_ascii_case(index)) {
        return Err(error::cant_drop_field_or_key(index));
    }
    engine.drop_index(&t.db, &t.name, index).await?;
    Ok(())
}

/// TRUNCATE; `lock_wait` is its WAIT n / NOWAIT (lock_wait_timeout when None).
pub async fn truncate(
    engine: &Engine,
    cx: &mut ExecCtx<'_>,
    catalog: &selkie_storage::Catalog,
    names: &[ast::TruncateTableTarget],
    current_db: Option<&str>,
    lock_wait: Option<std::time::Duration>,
) -> Result<(), SqlError> {
    for n in names {
        let t = lookup(catalog, &n.name, current_db)?;
        crate::constraints::check_truncate(catalog, &t.db, &t.name, cx)?;
        engine.truncate_table_within(&t.db, &t.name, lock_wait).await?;
    }
    Ok(())
}

pub async fn rename_tables(
    engine: &Engine,
    renames: &[ast::RenameTable],
    current_db: Option<&str>,
) -> Result<(), SqlError> {
    for r in renames {
        let (db, t) = ident_parts(&r.old_name, current_db)?;
        let (ndb, nt) = ident_parts(&r.new_name, current_db)?;
        check_identifier(&nt, error::wrong_table_name)?;
        engine.rename_table(&db, &t, &ndb, &nt).await?;
        crate::constraints::after_rename(engine, &db, &t, &ndb, &nt).await?;
    }
    Ok(())
}

/// Rows of ANALYZE/OPTIMIZE/CHECK/REPAIR TABLE (Table, Op, Msg_type, Msg_text), each table in
/// turn. OPTIMIZE rebuilds the table as InnoDB does (MariaDB's note, then the status); a table it
/// cannot rebuild gets MariaDB's error row and "Operation failed", and the next table is tried.
pub async fn admin_rows(
    engine: &Engine,
    op: crate::parse::AdminOp,
    tables: &[(Option<String>, String)],
    current_db: Option<&str>,
) -> Result<Vec<Vec<Value>>, SqlError> {
    use crate::parse::AdminOp;
    let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
    let mut named = Vec::with_capacity(tables.len());
    for (db, t) in tables {
        let db = match db {
            Some(d) => d.clone(),
            None => current_db.ok_or_else(error::no_database)?.to_string(),
        };
        // Like any table list, it may name a table only once (MariaDB checks before any work).
        if named.iter().any(|(d, n): &(String, &String)| *d == db && *n == t) {
            return Err(error::not_unique_table(t));
        }
        named.push((db, t));
    }
    let mut rows = Vec::new();
    for (db, t) in named {
        let qualified = format!("{db}.{t}");
        let op_name = op.name();
        let row = |kind: &str, msg: &str| vec![text(&qualified), text(op_name), text(kind), text(msg)];
        if engine.catalog().table(&db, t).is_none() {
            rows.push(row("Error", &format!("Table '{qualified}' doesn't exist")));
            rows.push(row("status", "Operation failed"));
            continue;
        }
        match op {
            AdminOp::Repair => rows.push(row("note", "The storage engine for the table doesn't support repair")),
            AdminOp::Optimize => {
                rows.push(row("note", "Table does not support optimize, doing recreate + analyze instead"));
                match engine.optimize_table(&db, t).await {
                    Ok(()) => rows.push(row("status", "OK")),
                    Err(e) => {
                        rows.push(row("error", &SqlError::from(e).message));
                        rows.push(row("status", "Operation failed"));
                    }
                }
            }
            _ => rows.push(row("status", "OK")),
        }
    }
    Ok(rows)
}

/// A charset or collation name as written (`utf8mb4`, `'utf8mb4_bin'`, `` `latin1` ``).
fn unquoted_name(n: &ast::ObjectName) -> String {
    n.to_string().trim_matches(|c| c == '`' || c == '\'' || c == '"').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use selkie_storage::LobSize;

    #[test]
    fn unnamed_indexes_get_mariadb_names() {
        assert_eq!(index_name("a", &[]), "a");
        assert_eq!(index_name("a", &["a".to_string()]), "a_2");
        assert_eq!(index_name("a", &["a".to_string(), "A_2".to_string()]), "a_3");
        assert_eq!(index_name("primary", &[]), "primary_2");
    }

    #[test]
    fn default_collations() {
        assert_eq!(default_collation("utf8mb4"), "utf8mb4_general_ci");
        assert_eq!(default_collation("latin1"), "latin1_swedish_ci");
        assert_eq!(default_collation("binary"), "binary");
    }

    #[test]
    fn key_sizes() {
        assert_eq!(key_bytes(&ColumnType::VarChar { len: 100 }, None), 400);
        assert_eq!(key_bytes(&ColumnType::VarChar { len: 1000 }, Some(10)), 40);
        assert_eq!(key_bytes(&ColumnType::Blob { size: LobSize::Tiny }, None), 255);
        assert!(is_lob(&ColumnType::Text { size: LobSize::Normal }));
        assert_eq!(char_length(&ColumnType::Char { len: 5 }), Some(5));
        assert_eq!(char_length(&ColumnType::Date), None);
    }

    #[test]
    fn identifiers_are_checked() {
        assert_eq!(check_identifier("t ", error::wrong_table_name).unwrap_err().code, 1103);
        assert_eq!(check_identifier(&"x".repeat(65), error::wrong_table_name).unwrap_err().code, 1059);
        assert!(check_identifier("ok", error::wrong_table_name).is_ok());
    }
}
