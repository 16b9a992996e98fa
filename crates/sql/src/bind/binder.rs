//! The binder's state and vocabulary: scopes of FROM sources, the binding environment, and the
//! `Binder` itself, whose methods for expressions, FROM and SELECT are in the sibling files.

use std::sync::Arc;

use selkie_storage::{Catalog, TableDef};
use sqlparser::ast;

use super::names::SourceText;

use crate::error::SqlError;
use crate::error::{self, Clause};
use crate::plan::Expr;
use crate::plan::{AggSpec, QueryPlan};
use crate::temporary::TemporaryTables;
use crate::types::{column_flags, ColumnDefinition};
use crate::value::SqlType;
use crate::variables::{GlobalVariables, SessionVariables};

/// How select-list aliases take part in name resolution while binding a clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AliasMode {
    /// WHERE, ON, select list: aliases are not visible.
    None,
    /// ORDER BY, HAVING: an alias wins over a FROM column of the same name.
    Prefer,
    /// GROUP BY: FROM columns win; an alias is used only when no column matches.
    Fallback,
}

/// Database name of the virtual information_schema tables.
pub const INFORMATION_SCHEMA: &str = "information_schema";

/// A bound expression with what the result metadata needs.
#[derive(Clone, Debug)]
pub struct Bound {
    pub expr: Expr,
    pub ty: SqlType,
    pub nullable: bool,
    /// Set when the expression is a plain column reference: the column's metadata.
    pub origin: Option<Box<ColumnDefinition>>,
    /// How strongly the expression's collation holds against another's (`collation`).
    pub derivation: crate::charset::Derivation,
}

impl Bound {
    pub fn new(expr: Expr, ty: SqlType, nullable: bool) -> Bound {
        let derivation = expr.derivation(&ty);
        Bound { expr, ty, nullable, origin: None, derivation }
    }
}

/// One column visible through a FROM source.
#[derive(Clone, Debug)]
pub struct ColumnInfo {
    pub name: String,
    pub ty: SqlType,
    pub nullable: bool,
    /// Result metadata when the column is selected directly.
    pub meta: ColumnDefinition,
    /// Hidden from unqualified lookup and `*` (the right-hand copy of a USING/NATURAL column).
    pub hidden: bool,
}

#[derive(Clone, Debug)]
pub enum SourceKind {
    Table { table: Arc<TableDef>, hints: ast_hints::Hints },
    Derived(Arc<QueryPlan>),
    InfoSchema(String),
}

pub mod ast_hints {
    /// Index hints as written (resolved to index numbers when the access is planned).
    #[derive(Clone, Debug, Default)]
    pub struct Hints {
        pub use_or_force: Option<Vec<String>>,
        pub ignore: Vec<String>,
    }
}

/// A FROM item: a table, derived table or information_schema table, under its alias.
#[derive(Clone, Debug)]
pub struct Source {
    /// The alias, or the table name.
    pub name: String,
    /// Database of a base table (for `db.t.col`).
    pub db: Option<String>,
    pub kind: SourceKind,
    pub columns: Vec<ColumnInfo>,
    /// Position of the first column in the FROM row.
    pub offset: usize,
    /// On the NULL-supplying side of an outer join.
    pub nullable: bool,
}

impl Source {
    pub fn width(&self) -> usize {
        self.columns.len()
    }
}

/// The names visible in one query level.
#[derive(Debug, Default)]
pub struct Scope {
    pub sources: Vec<Source>,
    /// Total width of the FROM row.
    pub width: usize,
    /// Set when a subquery bound in this scope referenced an enclosing query.
    pub correlated: bool,
    /// Aggregates found while binding this level's select list, HAVING and ORDER BY.
    pub aggs: Vec<AggSpec>,
    pub allow_aggs: bool,
    /// Inside an aggregate's argument (nested aggregates are invalid).
    pub in_agg: bool,
    /// Window functions found in this level's select list and ORDER BY (`bind::window`).
    pub windows: Vec<crate::plan::WindowSpec>,
    /// Window functions may be bound here (select list and ORDER BY only: 4015 elsewhere).
    pub allow_windows: bool,
    /// The WINDOW clause of the SELECT being bound.
    pub named_windows: Vec<sqlparser::ast::NamedWindowDefinition>,
    pub clause: Option<Clause>,
    /// STRAIGHT_JOIN was written: joins keep the written order (`join_order`).
    pub fixed_join_order: bool,
}

impl Scope {
    pub fn source_of_column(&self, col: usize) -> Option<usize> {
        self.sources.iter().position(|s| col >= s.offset && col < s.offset + s.width())
    }
}

/// What binding needs beyond the catalog: the session's view of variables (for the static
/// types of `@var` / `@@var`) and SQL mode facts that change parsing.
pub struct BindEnv<'a> {
    pub catalog: &'a Catalog,
    pub current_db: Option<&'a str>,
    pub vars: Option<(&'a SessionVariables, &'a GlobalVariables)>,
    pub user_vars: Option<&'a crate::user_variables::UserVariables>,
    pub pipes_as_concat: bool,
    pub only_full_group_by: bool,
    /// The session's temporary tables, which shadow permanent tables of the same name.
    pub temporary: Option<&'a TemporaryTables>,
    /// Table row counts for choosing join orders (`join_order`); None keeps written orders.
    pub row_estimates: Option<&'a dyn RowEstimates>,
}

/// The engine's estimate of a table's row count, for choosing join orders (`join_order`).
pub trait RowEstimates: Sync {
    fn table_rows(&self, table: &selkie_storage::TableDef) -> u64;
}

impl RowEstimates for selkie_storage::Engine {
    fn table_rows(&self, table: &selkie_storage::TableDef) -> u64 {
        self.approx_row_count(table)
    }
}

/// A common table expression in scope (`bind::cte`).
#[derive(Clone)]
pub(super) struct CteDef {
    pub(super) name: String,
    pub(super) query: ast::Query,
    /// `WITH c(a, b) AS ...`: the column names (empty: the body's).
    pub(super) columns: Vec<String>,
    /// Declared in WITH RECURSIVE and reading itself.
    pub(super) recursive: bool,
}

/// The working table of a recursive CTE whose recursive parts are being bound.
pub(super) struct WorkTable {
    pub(super) name: String,
    pub(super) slot: usize,
    pub(super) columns: Vec<crate::plan::OutputColumn>,
}

pub struct Binder<'a> {
    pub env: BindEnv<'a>,
    pub text: SourceText<'a>,
    /// Enclosing query levels, innermost last.
    pub scopes: Vec<Scope>,
    pub param_count: usize,
    pub subquery_slots: usize,
    /// Common table expressions in scope (WITH), innermost last.
    pub(super) ctes: Vec<CteDef>,
    /// Recursive CTEs whose recursive parts are being bound: a reference to one reads its
    /// working table (`Plan::WorkTable`).
    pub(super) work_tables: Vec<WorkTable>,
    /// Working table slots handed out so far (`ExecCtx::work_tables`).
    pub(super) work_table_slots: usize,
    /// Select-list aliases of the SELECT being bound, and whether names may resolve to them.
    pub aliases: Vec<(String, Bound)>,
    pub alias_mode: AliasMode,
    /// INSERT ... ON DUPLICATE KEY UPDATE: VALUES(col) reads the row that was to be inserted,
    /// which follows the existing row at this position.
    pub values_base: Option<(usize, Arc<TableDef>)>,
    /// The statement reads base tables (it needs a transaction and a statement guard).
    pub uses_tables: bool,
    /// The base tables resolved so far, (database, name), once each.
    pub tables: Vec<(String, String)>,
    /// The statement reads information_schema (its rows need the session status counters).
    pub uses_info_schema: bool,
    /// Types of the `?` parameters when known (a prepared statement bound for the values of
    /// one execution); otherwise parameters are of unknown type (`SqlType::Null`).
    pub param_types: Option<&'a [SqlType]>,
}

impl<'a> Binder<'a> {
    pub fn new(env: BindEnv<'a>, text: &'a str) -> Binder<'a> {
        Binder::with_original(env, text, text)
    }

    /// A binder whose result column names quote `original` (the client's text, before
    /// pre-processing; same offsets as `text`).
    pub fn with_original(env: BindEnv<'a>, text: &'a str, original: &'a str) -> Binder<'a> {
        let text = SourceText::with_original(text, original);
        let param_count = text.placeholder_count();
        Binder {
            env,
            text,
            scopes: Vec::new(),
            param_count,
            subquery_slots: 0,
            ctes: Vec::new(),
            work_tables: Vec::new(),
            work_table_slots: 0,
            aliases: Vec::new(),
            alias_mode: AliasMode::None,
            values_base: None,
            uses_tables: false,
            tables: Vec::new(),
            uses_info_schema: false,
            param_types: None,
        }
    }

    pub fn scope(&self) -> &Scope {
        self.scopes.last().expect("binder used outside a scope")
    }

    pub fn scope_mut(&mut self) -> &mut Scope {
        self.scopes.last_mut().expect("binder used outside a scope")
    }

    pub fn clause(&self) -> Clause {
        self.scopes.last().and_then(|s| s.clause).unwrap_or(Clause::FieldList)
    }

    pub fn set_clause(&mut self, clause: Clause) {
        if let Some(s) = self.scopes.last_mut() {
            s.clause = Some(clause);
        }
    }

    /// Runs `f` in a fresh query level (a subquery or derived table).
    pub fn with_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, SqlError>) -> Result<(T, Scope), SqlError> {
        self.scopes.push(Scope::default());
        let r = f(self);
        let scope = self.scopes.pop().expect("scope pushed above");
        r.map(|t| (t, scope))
    }

    /// Runs `f` with no enclosing query levels visible (derived tables may not reference the
    /// query that contains them).
    pub fn isolated<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, SqlError>) -> Result<T, SqlError> {
        let saved = std::mem::take(&mut self.scopes);
        let r = f(self);
        self.scopes = saved;
        r
    }

    pub fn require_db(&self) -> Result<&'a str, SqlError> {
        self.env.current_db.ok_or_else(error::no_database)
    }

    /// Resolves `[db.]name` to a base table.
    pub fn lookup_table(&mut self, name: &ast::ObjectName) -> Result<(String, Arc<TableDef>), SqlError> {
        let (db, table) = object_name_parts(name)?;
        let db = match db {
            Some(d) => d,
            None => self.require_db()?.to_string(),
        };
        if let Some(t) = self.env.temporary.and_then(|tt| tt.resolve(self.env.catalog, &db, &table)) {
            self.uses_tables = true;
            return Ok((db, t));
        }
        match self.env.catalog.table(&db, &table) {
            Some(t) => {
                self.uses_tables = true;
                let name = (t.db.clone(), t.name.clone());
                if !self.tables.contains(&name) {
                    self.tables.push(name);
                }
                Ok((db, t.clone()))
            }
            None => Err(error::no_such_table(&db, &table)),
        }
    }

    pub fn next_subquery_slot(&mut self) -> usize {
        self.subquery_slots += 1;
        self.subquery_slots - 1
    }

    fn alias(&self, name: &str) -> Option<Bound> {
        self.aliases.iter().find(|(a, _)| a.eq_ignore_ascii_case(name)).map(|(_, b)| b.clone())
    }

    /// Resolves an unqualified name, taking select-list aliases into account where the clause
    /// being bound allows them.
    pub fn resolve_name(&mut self, name: &str) -> Result<Bound, SqlError> {
        if self.alias_mode == AliasMode::Prefer {
            if let Some(b) = self.alias(name) {
                return Ok(b);
            }
        }
        match self.resolve_column(&[], name) {
            Err(e) if e.code == 1054 && self.alias_mode == AliasMode::Fallback => self.alias(name).ok_or(e),
            r => r,
        }
    }

    /// `VALUES(col)` in ON DUPLICATE KEY UPDATE.
    pub fn bind_values_reference(&mut self, col: &str) -> Result<Bound, SqlError> {
        let Some((base, table)) = self.values_base.clone() else {
            return Err(error::unknown_function(self.env.current_db, "VALUES"));
        };
        let Some(i) = table.column_index(col) else {
            return Err(error::unknown_column(col, self.clause()));
        };
        let c = &table.columns[i];
        Ok(Bound::new(Expr::Column(base + i), SqlType::of_column(c), c.nullable))
    }

    /// Resolves a column name (optionally qualified) through the scopes, innermost first.
    pub fn resolve_column(&mut self, qualifier: &[String], name: &str) -> Result<Bound, SqlError> {
        let clause = self.clause();
        let depth = self.scopes.len();
        let display = if qualifier.is_empty() { name.to_string() } else { format!("{}.{}", qualifier.join("."), name) };
        for level in (0..depth).rev() {
            let scope = &self.scopes[level];
            let mut found: Option<(usize, usize)> = None;
            for (si, s) in scope.sources.iter().enumerate() {
                if !source_matches(s, qualifier) {
                    continue;
                }
                for (ci, c) in s.columns.iter().enumerate() {
                    if (c.hidden && qualifier.is_empty()) || !c.name.eq_ignore_ascii_case(name) {
                        continue;
                    }
                    if found.is_some() {
                        return Err(error::ambiguous_column(name, clause));
                    }
                    found = Some((si, ci));
                }
            }
            let Some((si, ci)) = found else {
                continue;
            };
            let s = &scope.sources[si];
            let col = &s.columns[ci];
            let index = s.offset + ci;
            let mut meta = col.meta.clone();
            meta.name = name.to_string();
            let bound = Bound {
                expr: if level + 1 == depth {
                    Expr::Column(index)
                } else {
                    Expr::Outer { up: depth - 1 - level, index }
                },
                ty: col.ty.clone(),
                nullable: col.nullable || s.nullable,
                origin: Some(Box::new(meta)),
                derivation: Expr::Column(0).derivation(&col.ty),
            };
            // Every query level between the reference and the source is now correlated.
            for l in level + 1..depth {
                self.scopes[l].correlated = true;
            }
            return Ok(bound);
        }
        Err(error::unknown_column(&display, clause))
    }
}

fn source_matches(s: &Source, qualifier: &[String]) -> bool {
    match qualifier {
        [] => true,
        [t] => s.name == *t,
        [db, t] => {
            s.name == *t
                && s.db.as_deref().is_some_and(|d| d == db || (d == INFORMATION_SCHEMA && db.eq_ignore_ascii_case(d)))
        }
        _ => false,
    }
}

/// Splits `[db.]name`.
pub fn object_name_parts(name: &ast::ObjectName) -> Result<(Option<String>, String), SqlError> {
    let parts: Vec<String> = name
        .0
        .iter()
        .map(|p| match p {
            ast::ObjectNamePart::Identifier(i) => Ok(i.value.clone()),
            ast::ObjectNamePart::Function(_) => Err(error::syntax(&name.to_string(), 1)),
        })
        .collect::<Result<_, _>>()?;
    match parts.len() {
        1 => Ok((None, parts.into_iter().next().unwrap_or_default())),
        2 => {
            let mut it = parts.into_iter();
            let db = it.next().unwrap_or_default();
            Ok((Some(db), it.next().unwrap_or_default()))
        }
        _ => Err(error::syntax(&name.to_string(), 1)),
    }
}

/// Result metadata of a base table column.
pub fn table_column_meta(table: &TableDef, alias: &str, col: usize) -> ColumnDefinition {
    let c = &table.columns[col];
    // CHAR/BINARY are MYSQL_TYPE_STRING on the wire and INT(5) has length 5, as MariaDB sends them.
    let fm = crate::value::column_def_field_meta(c);
    let mut flags = fm.flags;
    if !c.nullable {
        flags |= column_flags::NOT_NULL;
    }
    if c.auto_increment {
        flags |= column_flags::AUTO_INCREMENT;
    }
    if table.primary.columns.iter().any(|ic| ic.column == col) {
        flags |= column_flags::PRI_KEY;
    }
    for idx in &table.secondary {
        if let Some(pos) = idx.columns.iter().position(|ic| ic.column == col) {
            if idx.unique && idx.columns.len() == 1 {
                flags |= column_flags::UNIQUE_KEY;
            } else if pos == 0 {
                flags |= column_flags::MULTIPLE_KEY;
            }
        }
    }
    if c.on_update_current_timestamp {
        flags |= column_flags::TIMESTAMP;
    }
    ColumnDefinition {
        schema: table.db.clone(),
        table: alias.to_string(),
        org_table: table.name.clone(),
        name: c.name.clone(),
        org_name: c.name.clone(),
        charset: fm.charset,
        length: fm.length,
        field_type: fm.field_type,
        flags,
        decimals: fm.decimals,
    }
}

/// Result metadata of a computed column.
pub fn computed_meta(name: &str, ty: &SqlType, nullable: bool) -> ColumnDefinition {
    let fm = ty.field_meta();
    let mut flags = fm.flags;
    if !nullable {
        flags |= column_flags::NOT_NULL;
    }
    ColumnDefinition {
        schema: String::new(),
        table: String::new(),
        org_table: String::new(),
        name: name.to_string(),
        org_name: String::new(),
        charset: fm.charset,
        length: fm.length,
        field_type: fm.field_type,
        flags,
        decimals: fm.decimals,
    }
}
