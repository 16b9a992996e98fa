//! A session's one route to the storage engine: the engine handle, the session's slot and the
//! open transaction.
//!
//! Why one place: every engine call a statement makes (catalog snapshots, statement guards,
//! reads and writes in the transaction, DDL, status for SHOW) goes through a `Store`, so what a
//! session holds of the engine, and when, can be read in one file. The statement context
//! borrows the engine and the transaction from here at once (`split`); nothing else in the SQL
//! layer keeps an engine handle.

use std::sync::Arc;

use selkie_storage::{Catalog, Engine, SessionSlot, StatementGuard, TableId, Transaction, TrxOptions};

use crate::error::SqlError;

pub struct Store {
    engine: Arc<Engine>,
    /// The session's registration with the engine (undo log reuse, purge).
    slot: SessionSlot,
    /// The open transaction, if any.
    trx: Option<Transaction>,
}

impl Store {
    pub fn open(engine: &Arc<Engine>) -> Result<Store, SqlError> {
        Ok(Store { slot: engine.register_session()?, engine: engine.clone(), trx: None })
    }

    /// The engine itself, for engine-wide operations (DDL, status, flush mode, row estimates).
    #[inline]
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The engine and the open transaction, borrowed together for one statement's context.
    #[inline]
    pub fn split(&mut self) -> (&Engine, Option<&mut Transaction>) {
        (&self.engine, self.trx.as_mut())
    }

    /// A snapshot of the current catalog.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.engine.catalog()
    }

    /// The current catalog version (no snapshot taken: cheaper than `catalog`).
    #[inline]
    pub fn catalog_version(&self) -> u64 {
        self.engine.catalog_version()
    }

    /// Opens a transaction, replacing none (the caller ended the previous one).
    pub fn begin(&mut self, opts: TrxOptions) {
        debug_assert!(self.trx.is_none(), "a transaction was already open");
        self.trx = Some(self.engine.begin(&self.slot, opts));
    }

    #[inline]
    pub fn has_trx(&self) -> bool {
        self.trx.is_some()
    }

    #[inline]
    pub fn trx_mut(&mut self) -> Option<&mut Transaction> {
        self.trx.as_mut()
    }

    /// Takes the open transaction out, to commit or roll it back.
    #[inline]
    pub fn take_trx(&mut self) -> Option<Transaction> {
        self.trx.take()
    }

    /// The guard of a statement that only reads tables (DDL waits for it to end).
    pub async fn statement_guard(&self) -> StatementGuard {
        self.engine.statement_guard(&self.slot).await
    }

    /// The guard of a statement that changes `tables`: waits while a DDL rebuilds one of them.
    pub async fn write_statement_guard(
        &self,
        tables: &[TableId],
        timeout: std::time::Duration,
    ) -> Result<StatementGuard, SqlError> {
        Ok(self.engine.write_statement_guard(&self.slot, tables, timeout).await?)
    }
}
