//! The session's transaction: opening it (with the session's or the next transaction's
//! characteristics), statement boundaries, and the commit / rollback that end it.

use selkie_storage::{KeyRange, ReadMode, StatementGuard, TrxOptions};

use super::{Core, TRANSACTION_ROLLED_BACK};
use crate::api::SqlError;

impl Core {
    pub(super) fn ensure_trx(&mut self) {
        if self.trx.is_some() {
            return;
        }
        let (iso, ro) = self.vars.take_next_transaction();
        let opts = TrxOptions {
            isolation: iso.unwrap_or_else(|| self.vars.isolation()),
            read_only: ro.unwrap_or_else(|| self.vars.transaction_read_only()),
            lock_wait_timeout: self.vars.lock_wait_timeout(),
        };
        self.trx_read_only = opts.read_only;
        self.trx = Some(self.server.engine.begin(&self.slot, opts));
        if !self.vars.autocommit() {
            self.explicit_trx = true;
        }
    }

    /// Starts a statement that reads tables: statement guard, transaction, savepoint.
    pub(super) async fn stmt_begin(&mut self, uses_tables: bool) -> Option<StatementGuard> {
        if !uses_tables {
            return None;
        }
        let guard = self.server.engine.statement_guard(&self.slot).await;
        self.ensure_trx();
        if let Some(t) = self.trx.as_mut() {
            t.begin_statement();
        }
        Some(guard)
    }

    /// Ends a statement: commits an autocommit transaction, or rolls back what failed.
    pub(super) async fn stmt_end(&mut self, guard: Option<StatementGuard>, err: Option<&SqlError>) -> Result<(), SqlError> {
        drop(guard);
        match err {
            None => {
                if !self.explicit_trx {
                    if let Some(t) = self.trx.take() {
                        t.commit().await?;
                    }
                }
            }
            Some(e) if e.code == TRANSACTION_ROLLED_BACK => self.rollback_quietly(),
            Some(_) => {
                if let Some(t) = self.trx.as_mut() {
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
        if let Some(t) = self.trx.take() {
            t.commit().await?;
        }
        Ok(())
    }

    pub(super) async fn begin(&mut self, read_only: Option<bool>) -> Result<(), SqlError> {
        self.commit().await?;
        let (iso, ro) = self.vars.take_next_transaction();
        let opts = TrxOptions {
            isolation: iso.unwrap_or_else(|| self.vars.isolation()),
            read_only: read_only.or(ro).unwrap_or_else(|| self.vars.transaction_read_only()),
            lock_wait_timeout: self.vars.lock_wait_timeout(),
        };
        self.trx_read_only = opts.read_only;
        self.trx = Some(self.server.engine.begin(&self.slot, opts));
        self.explicit_trx = true;
        Ok(())
    }

    /// START TRANSACTION WITH CONSISTENT SNAPSHOT: the snapshot is taken now rather than at
    /// the first read. The engine creates a transaction's read view at its first consistent
    /// read and has no call to create it earlier, so this opens a consistent scan of some
    /// table (the view is taken when a consistent scan opens, before it reads anything) and
    /// drops it unread. With no table at all there is nothing a snapshot could cover yet.
    pub(super) fn open_read_view_now(&mut self) -> Result<(), SqlError> {
        let catalog = self.server.engine.catalog();
        let Some(table) = catalog.tables.values().min_by_key(|t| t.id) else {
            return Ok(());
        };
        let Some(trx) = self.trx.as_mut() else {
            return Err(crate::error::internal("consistent snapshot without a transaction"));
        };
        drop(trx.scan(table, 0, KeyRange::all(), false, ReadMode::Consistent)?);
        Ok(())
    }

}
