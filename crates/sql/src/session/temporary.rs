//! The session's side of temporary tables (the name map is `crate::temporary`): CREATE
//! TEMPORARY TABLE, DROP [TEMPORARY] TABLE, and dropping them all when the session ends.
//!
//! As in MariaDB, creating or dropping a temporary table does not commit the open transaction.
//! One difference: the engine drops a table only once no open transaction has changed it, so
//! DROP of a temporary table that the session's own open transaction changed commits that
//! transaction first (MariaDB keeps it open).

use std::sync::Arc;

use sqlparser::ast;

use super::state::Session;
use crate::error::{self, SqlError};
use crate::temporary::TEMPORARY_PREFIX;
use crate::types::{ResultSink, WarnLevel, Warning};

/// `[db.]name` of a statement, with the current database filled in (1046 without one).
fn qualified(name: &ast::ObjectName, current_db: Option<&str>) -> Result<(String, String), SqlError> {
    let (db, table) = crate::bind::object_name_parts(name)?;
    match db.or_else(|| current_db.map(str::to_string)) {
        Some(db) => Ok((db, table)),
        None => Err(error::no_database()),
    }
}

fn engine_object_name(db: &str, engine_name: &str) -> ast::ObjectName {
    ast::ObjectName::from(vec![ast::Ident::with_quote('`', db), ast::Ident::with_quote('`', engine_name)])
}

/// Whether a CREATE TABLE names the hidden engine table of a temporary table (the session
/// rewrote it): such a statement runs without the implicit commit of DDL.
pub(super) fn creates_temporary(ct: &ast::CreateTable) -> bool {
    ct.temporary && ct.name.0.last().and_then(|p| p.as_ident()).is_some_and(|i| i.value.starts_with(TEMPORARY_PREFIX))
}

impl Session {
    /// CREATE TEMPORARY TABLE [IF NOT EXISTS] t (...) | LIKE s | [AS] SELECT ...: the table is
    /// created under a hidden name and the session maps `t` to it.
    pub(super) async fn create_temporary_table(
        &mut self,
        ct: &ast::CreateTable,
        text: &str,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        if ct.or_replace {
            return Err(error::not_supported("CREATE OR REPLACE TEMPORARY TABLE"));
        }
        let (db, name) = qualified(&ct.name, self.current_db.as_deref())?;
        if self.store.catalog().database(&db).is_none() {
            return Err(error::unknown_database(&db));
        }
        if self.temporary.engine_name(&db, &name).is_some() {
            if ct.if_not_exists {
                let note =
                    Warning { level: WarnLevel::Note, code: 1050, message: format!("Table '{name}' already exists") };
                self.send_ok(sink, more, 0, String::new(), (vec![note], 1));
                return Ok(());
            }
            return Err(error::table_exists(&name));
        }
        let engine_name = self.temporary.allocate();
        let mut hidden = ct.clone();
        hidden.name = engine_object_name(&db, &engine_name);
        let statement = ast::Statement::CreateTable(hidden.clone());
        let r = if hidden.query.is_some() {
            self.create_table_as_select(&hidden, text, sink, more).await
        } else {
            self.run_ddl(&statement, text, None, sink, more).await
        };
        if r.is_ok() {
            self.temporary.insert(&db, &name, engine_name);
        }
        r
    }

    /// The rows of a temporary table named by its engine name (None for any other table):
    /// MariaDB copies a temporary table for every ALTER, CREATE INDEX and DROP INDEX, and
    /// reports the rows copied as affected ("Records: n").
    pub(super) fn rows_copied_by_temporary_ddl(&self, name: &ast::ObjectName) -> Option<u64> {
        let (db, t) = qualified(name, self.current_db.as_deref()).ok()?;
        if !t.starts_with(TEMPORARY_PREFIX) {
            return None;
        }
        let catalog = self.store.catalog();
        let table = catalog.table(&db, &t)?;
        Some(self.store.engine().approx_row_count(table))
    }

    /// Whether a DROP TABLE involves a temporary table of the session.
    pub(super) fn drop_touches_temporary(&self, names: &[ast::ObjectName], temporary: bool) -> bool {
        temporary
            || names.iter().any(|n| {
                qualified(n, self.current_db.as_deref())
                    .is_ok_and(|(db, t)| self.temporary.engine_name(&db, &t).is_some())
            })
    }

    /// DROP [TEMPORARY] TABLE [IF EXISTS] names: the session's temporary tables of those names
    /// go first (without a commit); with TEMPORARY nothing else is dropped, otherwise the other
    /// names are dropped as permanent tables (DDL, committing first).
    pub(super) async fn drop_with_temporary(
        &mut self,
        statement: &ast::Statement,
        text: &str,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        let ast::Statement::Drop { names, if_exists, temporary, .. } = statement else {
            return Err(error::internal("drop_with_temporary on another statement"));
        };
        let mut permanent = Vec::new();
        let mut missing = Vec::new();
        for n in names {
            let (db, t) = qualified(n, self.current_db.as_deref())?;
            match self.temporary.engine_name(&db, &t).map(str::to_string) {
                Some(engine_name) => {
                    if self.store.trx_mut().is_some_and(|trx| trx.has_writes()) {
                        self.commit().await?;
                    }
                    self.store.engine().drop_table(&db, &engine_name, true).await?;
                    self.temporary.remove(&db, &t);
                }
                None if *temporary => missing.push(format!("{db}.{t}")),
                None => permanent.push(n.clone()),
            }
        }
        if !permanent.is_empty() {
            let mut rest = statement.clone();
            if let ast::Statement::Drop { names, .. } = &mut rest {
                *names = permanent;
            }
            return self.run_ddl(&rest, text, None, sink, more).await;
        }
        if !missing.is_empty() && !*if_exists {
            return Err(error::unknown_table(&missing.join(",")));
        }
        let notes: Vec<Warning> = missing
            .iter()
            .map(|m| Warning { level: WarnLevel::Note, code: 1051, message: format!("Unknown table '{m}'") })
            .collect();
        let count = notes.len();
        self.send_ok(sink, more, 0, String::new(), (notes, count));
        Ok(())
    }

    /// A DDL statement that names one of the session's temporary tables, rewritten to name its
    /// engine table instead (TRUNCATE, ALTER TABLE, CREATE INDEX, DROP INDEX ... ON); None when
    /// it names none. Renaming a temporary table is refused rather than rewritten: the engine
    /// table would take the new name and become permanent.
    pub(super) fn ddl_on_temporary(&self, s: &ast::Statement) -> Result<Option<ast::Statement>, SqlError> {
        let current = self.current_db.as_deref();
        let engine_name = |n: &ast::ObjectName| -> Result<Option<ast::ObjectName>, SqlError> {
            let Ok((db, t)) = qualified(n, current) else {
                return Ok(None);
            };
            Ok(self.temporary.engine_name(&db, &t).map(|e| engine_object_name(&db, e)))
        };
        let mut out = s.clone();
        let mut changed = false;
        match &mut out {
            ast::Statement::Truncate(t) => {
                for target in &mut t.table_names {
                    if let Some(n) = engine_name(&target.name)? {
                        target.name = n;
                        changed = true;
                    }
                }
            }
            ast::Statement::AlterTable(at) => {
                if let Some(n) = engine_name(&at.name)? {
                    if at.operations.iter().any(|op| matches!(op, ast::AlterTableOperation::RenameTable { .. })) {
                        return Err(error::not_supported("renaming a temporary table"));
                    }
                    at.name = n;
                    changed = true;
                }
            }
            ast::Statement::CreateIndex(ci) => {
                if let Some(n) = engine_name(&ci.table_name)? {
                    ci.table_name = n;
                    changed = true;
                }
            }
            ast::Statement::Drop { object_type: ast::ObjectType::Index, table: Some(t), .. } => {
                if let Some(n) = engine_name(t)? {
                    *t = n;
                    changed = true;
                }
            }
            ast::Statement::RenameTable(renames) => {
                for r in renames {
                    if engine_name(&r.old_name)?.is_some() {
                        return Err(error::not_supported("renaming a temporary table"));
                    }
                }
            }
            _ => {}
        }
        Ok(changed.then_some(out))
    }

    /// ALTER TABLE of one of the session's temporary tables, rewritten to name its engine
    /// table; None when it names none. RENAME TO is refused (the table would become permanent).
    pub(super) fn alter_on_temporary(
        &self,
        at: &crate::parse::alter::AlterTable,
    ) -> Result<Option<crate::parse::alter::AlterTable>, SqlError> {
        let Ok((db, t)) = qualified(&at.name, self.current_db.as_deref()) else {
            return Ok(None);
        };
        let Some(engine_name) = self.temporary.engine_name(&db, &t) else {
            return Ok(None);
        };
        if at.ops.iter().any(|op| matches!(op, crate::parse::alter::AlterOp::RenameTable(_))) {
            return Err(error::not_supported("renaming a temporary table"));
        }
        let mut rewritten = at.clone();
        rewritten.name = engine_object_name(&db, engine_name);
        Ok(Some(rewritten))
    }

    /// Drops the session's temporary tables in the background (the session ends or is reset;
    /// nothing waits for it). Without a runtime they stay until the server next starts.
    pub(super) fn drop_all_temporary(&mut self) {
        if self.temporary.is_empty() {
            return;
        }
        let tables = self.temporary.take_all();
        let engine = Arc::clone(self.server.engine());
        let connection = self.info.connection_id;
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            for (db, name) in tables {
                if let Err(e) = engine.drop_table(&db, &name, true).await {
                    tracing::warn!(connection, table = %name, error = %e, "could not drop a temporary table");
                }
            }
        });
    }
}
