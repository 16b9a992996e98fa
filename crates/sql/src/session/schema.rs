//! DDL statements run by the session: the implicit commit before them, the engine calls
//! (through `ddl`), and CREATE TABLE ... SELECT, which is DDL followed by an INSERT ... SELECT.

use std::sync::Arc;

use sqlparser::ast;

use super::compiled::{Compiled, CompiledStmt, Ran, MAX_REBINDS};
use super::counters::Counter;
use super::state::{stmt_env, Session};
use crate::bind::{BindEnv, Binder, Scope};
use crate::dml::{self, InsertPlan};
use crate::error;
use crate::error::SqlError;
use crate::exec::ctx::ExecCtx;
use crate::parse::create_select::CreateSelectDuplicates;
use crate::types::ResultSink;
use crate::types::{WarnLevel, Warning};
use crate::variables::SqlMode;
use selkie_storage::Catalog;

/// The binder's environment for DDL: definitions bind without session or user variables (and
/// DDL names its tables itself, temporary ones already mapped by the session).
fn ddl_bind_env<'a>(catalog: &'a Catalog, db: Option<&'a str>, mode: SqlMode) -> BindEnv<'a> {
    BindEnv {
        catalog,
        current_db: db,
        vars: None,
        user_vars: None,
        pipes_as_concat: mode.pipes_as_concat,
        only_full_group_by: mode.only_full_group_by,
        temporary: None,
        row_estimates: None,
    }
}

impl Session {
    /// CREATE TABLE ... SELECT: the table from the query's columns, then the rows as an
    /// INSERT ... SELECT; if the rows cannot be stored the table is dropped again.
    pub(super) async fn create_table_as_select(
        &mut self,
        ct: &ast::CreateTable,
        text: &str,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        self.counters.bump(Counter::ComCreateTable);
        let temporary = super::temporary::creates_temporary(ct);
        if (ct.temporary && !temporary) || ct.like.is_some() {
            return Err(error::not_supported("this form of CREATE TABLE ... SELECT"));
        }
        if ct.or_replace && ct.if_not_exists {
            return Err(error::or_replace_and_if_not_exists());
        }
        // DDL commits the open transaction first; CREATE TEMPORARY TABLE does not.
        if !temporary {
            self.commit().await?;
        }
        let catalog = self.store.catalog();
        let db = self.current_db.clone();
        let (new_table, plan, param_count) = {
            let mut b = Binder::new(self.bind_env(&catalog, db.as_deref()), text);
            b.scopes.push(Scope::default());
            let Some(q) = &ct.query else {
                return Err(error::internal("CREATE TABLE ... SELECT without a query"));
            };
            let plan = b.bind_query(q)?;
            (crate::ddl::table_for_query(&b, ct, &plan)?, plan, b.param_count)
        };
        // Column definitions or keys declared beside the SELECT: merged with its columns.
        let (new_table, constraints) = if ct.columns.is_empty() && ct.constraints.is_empty() {
            (new_table, selkie_storage::TableConstraints::default())
        } else {
            let engine = self.store.engine();
            let last_insert_id = self.vars.last_insert_id();
            let env = stmt_env!(self, engine, Some(catalog.clone()), &[]);
            let mut b = Binder::new(ddl_bind_env(&catalog, db.as_deref(), self.vars.sql_mode()), text);
            b.scopes.push(Scope::default());
            let mut cx = ExecCtx::new(&env, None, &[], &mut self.user_vars, self.rng, last_insert_id);
            crate::ddl::table_with_definitions_for_query(&mut b, &mut cx, ct, new_table)?
        };
        let duplicates = crate::parse::create_select::duplicates(text).map(|d| d.0);
        let (tdb, tname) = (new_table.db.clone(), new_table.name.clone());
        if ct.or_replace {
            if let Some(old) = catalog.table(&tdb, &tname) {
                if crate::plan::reads_table(&plan.root, old.id) {
                    return Err(error::target_is_source(&tname, "CREATE"));
                }
                self.store.engine().drop_table(&tdb, &tname, true).await?;
            }
        }
        if !self.store.engine().create_table_with_constraints(new_table, constraints, ct.if_not_exists).await? {
            let note = (
                vec![Warning {
                    level: WarnLevel::Note,
                    code: 1050,
                    message: format!("Table '{tname}' already exists"),
                }],
                1,
            );
            self.send_ok(sink, more, 0, String::new(), note);
            return Ok(());
        }
        let mut plan = Some(plan);
        let mut r = Err(error::table_definition_changed());
        for _ in 0..MAX_REBINDS {
            let catalog = self.store.catalog();
            let Some(table) = catalog.table(&tdb, &tname).cloned() else {
                return Err(error::no_such_table(&tdb, &tname));
            };
            // The query was bound before the table existed; once a DDL made that binding stale
            // (`Ran::Stale`), it is bound again against the current catalog.
            let plan = match plan.take() {
                Some(p) => p,
                None => {
                    let mut b = Binder::new(self.bind_env(&catalog, db.as_deref()), text);
                    b.scopes.push(Scope::default());
                    let Some(q) = &ct.query else {
                        return Err(error::internal("CREATE TABLE ... SELECT without a query"));
                    };
                    b.bind_query(q)?
                }
            };
            // The query's columns go to the table's columns of their names; declared columns
            // the query does not name take their defaults.
            let columns = plan
                .columns
                .iter()
                .map(|c| table.columns.iter().position(|t| t.name.eq_ignore_ascii_case(&c.meta.name)))
                .collect::<Option<Vec<usize>>>()
                .ok_or_else(|| error::internal("CREATE TABLE ... SELECT: a query column without its table column"))?;
            let insert = InsertPlan {
                columns,
                source: dml::InsertSource::Query(Arc::new(plan)),
                mode: match duplicates {
                    None => dml::InsertMode::Insert,
                    Some(CreateSelectDuplicates::Ignore) => dml::InsertMode::Ignore,
                    Some(CreateSelectDuplicates::Replace) => dml::InsertMode::Replace,
                },
                on_duplicate: None,
                report_records: true,
                rules: crate::constraints::rules_for(&catalog, &table)?,
                returning: None,
                generated: crate::generated::values_for(&catalog, &table)?,
                defaults: crate::defaults::values_for(&catalog, &table)?,
                table,
            };
            let compiled = CompiledStmt {
                compiled: Compiled::Insert(Arc::new(insert)),
                param_count,
                catalog_version: catalog.version,
                uses_tables: true,
                tables: Vec::new(),
                uses_info_schema: false,
                plan_follows_param_types: false,
                select_limit_applies: false,
            };
            r = self.run_dml(&compiled, Some(catalog), &[], sink, more).await;
            if !matches!(r, Ok(Ran::Stale)) {
                break;
            }
        }
        let r = match r {
            Ok(Ran::Stale) => Err(error::table_definition_changed()),
            other => other.map(|_| ()),
        };
        if r.is_err() {
            if let Err(e) = self.store.engine().drop_table(&tdb, &tname, true).await {
                tracing::warn!(table = %tname, error = %e, "could not drop the table of a failed CREATE TABLE ... SELECT");
            }
        }
        r
    }

    /// ALTER TABLE (alter.rs): commits the open transaction first, as every DDL does; the OK
    /// packet carries MariaDB's "Records: N  Duplicates: 0  Warnings: W".
    pub(super) async fn run_alter(
        &mut self,
        at: &crate::parse::alter::AlterTable,
        text: &str,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        self.counters.bump(Counter::ComAlterTable);
        let temporary = self.alter_on_temporary(at)?;
        let at = temporary.as_ref().unwrap_or(at);
        self.commit().await?;
        let catalog = self.store.catalog();
        let engine = self.store.engine();
        let db = self.current_db.clone();
        let last_insert_id = self.vars.last_insert_id();
        let (result, warnings) = {
            let env = stmt_env!(self, engine, Some(catalog.clone()), &[]);
            let benv = ddl_bind_env(&catalog, db.as_deref(), self.vars.sql_mode());
            let mut b = Binder::new(benv, text);
            b.scopes.push(Scope::default());
            let mut cx = ExecCtx::new(&env, None, &[], &mut self.user_vars, self.rng, last_insert_id);
            let r = crate::alter::alter_table(&mut b, &mut cx, engine, &catalog, at, db.as_deref()).await;
            (r, cx.take_warnings())
        };
        let mut outcome = result?;
        if let Some(rows) = temporary.as_ref().and_then(|t| self.rows_copied_by_temporary_ddl(&t.name)) {
            outcome.affected = rows;
            outcome.records = Some(rows);
        }
        let info = match outcome.records {
            Some(records) => format!("Records: {records}  Duplicates: 0  Warnings: {}", warnings.1),
            None => String::new(),
        };
        self.send_ok(sink, more, outcome.affected, info, warnings);
        Ok(())
    }

    /// A DDL statement; `lock_wait` is its WAIT n / NOWAIT, if it had one.
    pub(super) async fn run_ddl(
        &mut self,
        s: &ast::Statement,
        text: &str,
        lock_wait: Option<std::time::Duration>,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        use ast::Statement as S;
        self.counters.bump(match s {
            S::CreateTable(_) => Counter::ComCreateTable,
            S::CreateIndex(_) => Counter::ComCreateIndex,
            S::Drop { object_type: ast::ObjectType::Index, .. } => Counter::ComDropIndex,
            S::Drop { object_type: ast::ObjectType::Table, .. } => Counter::ComDropTable,
            S::Drop { .. } => Counter::ComDropDb,
            S::AlterTable(_) => Counter::ComAlterTable,
            S::Truncate(_) => Counter::ComTruncate,
            _ => Counter::ComRenameTable,
        });
        // DDL commits the open transaction first, as in MariaDB (CREATE TEMPORARY TABLE does not).
        if !matches!(s, S::CreateTable(ct) if super::temporary::creates_temporary(ct)) {
            self.commit().await?;
        }
        let catalog = self.store.catalog();
        let engine = self.store.engine();
        let db = self.current_db.clone();
        let last_insert_id = self.vars.last_insert_id();
        let (result, warnings) = {
            let env = stmt_env!(self, engine, Some(catalog.clone()), &[]);
            let benv = ddl_bind_env(&catalog, db.as_deref(), self.vars.sql_mode());
            let mut b = Binder::new(benv, text);
            b.scopes.push(Scope::default());
            let mut cx = ExecCtx::new(&env, None, &[], &mut self.user_vars, self.rng, last_insert_id);
            let current = db.as_deref();
            let r: Result<u64, SqlError> = match s {
                S::CreateTable(ct) => crate::ddl::create_table(&mut b, &mut cx, engine, ct).await.map(|_| 0),
                S::CreateIndex(ci) => crate::ddl::create_index(engine, &mut cx, &catalog, ci, current).await.map(|_| 0),
                S::Drop { object_type, if_exists, names, table, temporary, .. } => {
                    if *temporary {
                        Err(error::not_supported("DROP TEMPORARY TABLE"))
                    } else {
                        match object_type {
                            ast::ObjectType::Table => {
                                crate::ddl::drop_tables(engine, &mut cx, names, *if_exists, current).await.map(|_| 0)
                            }
                            ast::ObjectType::Index => match (names.as_slice(), table) {
                                ([idx], Some(t)) => {
                                    let idx = crate::bind::object_name_parts(idx)?.1;
                                    crate::ddl::drop_index(engine, &catalog, &idx, t, current).await.map(|_| 0)
                                }
                                _ => Err(error::syntax(text.trim(), 1)),
                            },
                            ast::ObjectType::Schema | ast::ObjectType::Database => match names.as_slice() {
                                [n] => {
                                    let name = crate::bind::object_name_parts(n)?.1;
                                    crate::ddl::drop_database(engine, &mut cx, &name, *if_exists).await
                                }
                                _ => Err(error::syntax(text.trim(), 1)),
                            },
                            other => Err(error::not_supported(&format!("DROP {other}"))),
                        }
                    }
                }
                S::AlterTable(_) => Err(error::internal("ALTER TABLE is parsed by parse::alter")),
                S::Truncate(t) => {
                    crate::ddl::truncate(engine, &mut cx, &catalog, &t.table_names, current, lock_wait).await.map(|_| 0)
                }
                S::RenameTable(r) => crate::ddl::rename_tables(engine, r, current).await.map(|_| 0),
                _ => Err(error::internal("run_ddl on a non-DDL statement")),
            };
            (r, cx.take_warnings())
        };
        let mut affected = result?;
        let mut info = String::new();
        let index_of = match s {
            S::CreateIndex(ci) => Some(&ci.table_name),
            S::Drop { object_type: ast::ObjectType::Index, table: Some(t), .. } => Some(t),
            _ => None,
        };
        if let Some(rows) = index_of.and_then(|t| self.rows_copied_by_temporary_ddl(t)) {
            affected = rows;
            info = format!("Records: {rows}  Duplicates: 0  Warnings: {}", warnings.1);
        }
        // Dropping the current database leaves no database selected, as in MariaDB.
        if let S::Drop { object_type: ast::ObjectType::Schema | ast::ObjectType::Database, names, .. } = s {
            if let Some(n) = names.first() {
                let name = crate::bind::object_name_parts(n)?.1;
                if self.current_db.as_deref() == Some(name.as_str()) {
                    self.current_db = None;
                }
            }
        }
        self.send_ok(sink, more, affected, info, warnings);
        Ok(())
    }
}
