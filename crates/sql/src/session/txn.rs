//! The session's transaction: opening it (with the session's or the next transaction's
//! characteristics), statement boundaries, and the commit / rollback that end it.

use selkie_storage::{KeyRange, ReadMode, StatementGuard, TableId, TrxOptions};
use smallvec::{smallvec, SmallVec};

use super::compiled::{Compiled, CompiledStmt, TRANSACTION_ROLLED_BACK};
use super::state::{Session, SessionSavepoint};
use crate::error::{self, SqlError};
use crate::parse::Stmt;

/// How `stmt_begin` started a statement.
pub(super) enum Begun {
    /// Running: the statement guard (None for a statement that reads no table).
    Running(Option<StatementGuard>),
    /// Not started: a DDL changed the catalog after the plan was bound (and the plan may name
    /// trees it replaced, or miss an index it added). The caller binds the statement again.
    Stale,
}

impl Session {
    pub(super) fn ensure_trx(&mut self) {
        if self.store.has_trx() {
            return;
        }
        let (iso, ro) = self.vars.take_next_transaction();
        let opts = TrxOptions {
            isolation: iso.unwrap_or_else(|| self.vars.isolation()),
            read_only: ro.unwrap_or_else(|| self.vars.transaction_read_only()),
            lock_wait_timeout: self.vars.lock_wait_timeout(),
        };
        self.trx_read_only = opts.read_only;
        self.store.begin(opts);
        if !self.vars.autocommit() {
            self.explicit_trx = true;
        }
    }

    /// Starts a statement that reads tables: statement guard, transaction, savepoint. A
    /// statement that changes a table takes the guard for it, which waits while a DDL rebuilds
    /// the table (up to `lock_wait_timeout`, 1205; KILL QUERY ends the wait with 1317), as
    /// MariaDB's metadata lock does. Under the guard no DDL can replace a tree, so the plan is
    /// checked against the catalog version only now (it was bound before: it may be stale).
    pub(super) async fn stmt_begin(&mut self, c: &CompiledStmt) -> Result<Begun, SqlError> {
        if !c.uses_tables {
            return Ok(Begun::Running(None));
        }
        self.check_table_locks(c).await?;
        let tables = written_tables(c);
        let guard = match tables.is_empty() {
            true => self.store.statement_guard().await,
            false => {
                let timeout = self.vars.metadata_lock_wait_timeout();
                let table = tables;
                tokio::select! {
                    // Uncontended, the guard is ready on the first poll, before the interrupt
                    // future is ever polled (and registered).
                    biased;
                    guard = self.store.write_statement_guard(&table, timeout) => guard?,
                    () = self.interrupt.raised() => return Err(error::interrupted()),
                }
            }
        };
        if self.store.catalog_version() != c.catalog_version {
            return Ok(Begun::Stale);
        }
        self.ensure_trx();
        if let Some(t) = self.store.trx_mut() {
            t.begin_statement();
        }
        Ok(Begun::Running(Some(guard)))
    }

    /// Ends a statement: commits an autocommit transaction, or rolls back what failed.
    pub(super) async fn stmt_end(
        &mut self,
        guard: Option<StatementGuard>,
        err: Option<&SqlError>,
    ) -> Result<(), SqlError> {
        drop(guard);
        match err {
            None => {
                if !self.explicit_trx {
                    if let Some(t) = self.store.take_trx() {
                        t.commit().await?;
                    }
                }
            }
            Some(e) if e.code == TRANSACTION_ROLLED_BACK => self.rollback_quietly(),
            Some(_) => {
                if let Some(t) = self.store.trx_mut() {
                    if let Err(re) = t.rollback_statement() {
                        tracing::warn!(connection = self.info.connection_id, error = %re, "statement rollback failed");
                        self.rollback_quietly();
                    }
                }
                if !self.explicit_trx {
                    self.rollback_quietly();
                }
            }
        }
        Ok(())
    }

    /// COMMIT of the open transaction (also the implicit commit before DDL and BEGIN).
    pub(super) async fn commit(&mut self) -> Result<(), SqlError> {
        self.explicit_trx = false;
        self.end_of_transaction();
        if let Some(t) = self.store.take_trx() {
            t.commit().await?;
        }
        Ok(())
    }

    pub(super) async fn begin(&mut self, read_only: Option<bool>) -> Result<(), SqlError> {
        self.commit().await?;
        // A new transaction gives up the table locks, as in MariaDB.
        self.unlock_tables();
        let (iso, ro) = self.vars.take_next_transaction();
        let opts = TrxOptions {
            isolation: iso.unwrap_or_else(|| self.vars.isolation()),
            read_only: read_only.or(ro).unwrap_or_else(|| self.vars.transaction_read_only()),
            lock_wait_timeout: self.vars.lock_wait_timeout(),
        };
        self.trx_read_only = opts.read_only;
        self.store.begin(opts);
        self.explicit_trx = true;
        Ok(())
    }

    /// START TRANSACTION WITH CONSISTENT SNAPSHOT: the snapshot is taken now rather than at
    /// the first read. The engine creates a transaction's read view at its first consistent
    /// read and has no call to create it earlier, so this opens a consistent scan of some
    /// table (the view is taken when a consistent scan opens, before it reads anything) and
    /// drops it unread. With no table at all there is nothing a snapshot could cover yet.
    pub(super) fn open_read_view_now(&mut self) -> Result<(), SqlError> {
        let catalog = self.store.catalog();
        let Some(table) = catalog.tables.values().min_by_key(|t| t.id) else {
            return Ok(());
        };
        let Some(trx) = self.store.trx_mut() else {
            return Err(crate::error::internal("consistent snapshot without a transaction"));
        };
        drop(trx.scan(table, 0, KeyRange::all(), false, ReadMode::Consistent)?);
        Ok(())
    }

    /// SAVEPOINT, ROLLBACK TO SAVEPOINT, RELEASE SAVEPOINT, with InnoDB's semantics: rolling
    /// back to a savepoint undoes the changes made since (the engine keeps the row locks) and
    /// drops the savepoints set after it; releasing one drops it and every later one. Savepoints
    /// outside a transaction (autocommit on, no BEGIN) vanish at once, as in MariaDB.
    pub(super) fn savepoint_statement(&mut self, stmt: &Stmt) -> Result<(), SqlError> {
        match stmt {
            Stmt::Savepoint(name) => {
                // With autocommit off every statement belongs to a transaction, so a
                // SAVEPOINT before the first one is kept for the transaction the next
                // statement opens (MariaDB keeps it too, without reporting a transaction yet).
                let in_transaction = (self.store.has_trx() && self.explicit_trx) || !self.vars.autocommit();
                if in_transaction {
                    let sp = match self.store.trx_mut() {
                        Some(t) if t.is_started() => SessionSavepoint::At(t.savepoint()),
                        _ => SessionSavepoint::BeforeEngine,
                    };
                    self.savepoints.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                    self.savepoints.push((name.clone(), sp));
                }
                Ok(())
            }
            Stmt::RollbackToSavepoint(name) | Stmt::ReleaseSavepoint(name) => {
                let Some(pos) = self.savepoints.iter().position(|(n, _)| n.eq_ignore_ascii_case(name)) else {
                    return Err(error::no_savepoint(name));
                };
                if matches!(stmt, Stmt::ReleaseSavepoint(_)) {
                    self.savepoints.truncate(pos);
                    return Ok(());
                }
                // Later savepoints are released; this one stays.
                self.savepoints.truncate(pos + 1);
                let sp = self.savepoints[pos].1.clone();
                let Some(t) = self.store.trx_mut() else { return Ok(()) };
                let rolled_back = match &sp {
                    SessionSavepoint::At(sp) => t.rollback_to_savepoint(sp),
                    SessionSavepoint::BeforeEngine => {
                        let opts = t.options();
                        let whole = self.store.take_trx().expect("checked above").rollback();
                        self.store.begin(opts);
                        whole
                    }
                };
                if let Err(e) = rolled_back {
                    // The engine allows nothing but a whole rollback after a failed partial one.
                    self.rollback_quietly();
                    return Err(e.into());
                }
                Ok(())
            }
            _ => Err(error::internal("not a savepoint statement")),
        }
    }
}

/// The tables a DML statement changes (none for other statements).
/// Inline for the common cases: this runs before every DML statement, so it does not allocate.
fn written_tables(c: &CompiledStmt) -> SmallVec<[TableId; 2]> {
    match &c.compiled {
        Compiled::Insert(p) => smallvec![p.table.id],
        Compiled::Update(p) => smallvec![p.access.table.id],
        Compiled::Delete(p) => smallvec![p.access.table.id],
        Compiled::MultiUpdate(p) => p.targets.iter().map(|t| t.table.id).collect(),
        Compiled::MultiDelete(p) => p.targets.iter().map(|t| t.table.id).collect(),
        Compiled::Load(p) => smallvec![p.insert.table.id],
        Compiled::Select(_) | Compiled::Other(_) => SmallVec::new(),
    }
}
