//! The session's side of LOCK TABLES / UNLOCK TABLES (the server-wide registry is
//! `crate::table_locks`): taking and giving up its table locks, and the check every statement
//! that uses tables makes against them (`check_table_locks`).

use super::compiled::{Compiled, CompiledStmt};
use super::state::Session;
use crate::error::{self, SqlError};
use crate::table_locks::{self as locks, LockedTable, TableName};
use selkie_storage::TableDef;

impl Session {
    /// LOCK TABLES: commits the open transaction and gives up the table locks the session
    /// held (as MariaDB), then takes the new ones, waiting up to lock_wait_timeout.
    pub(super) async fn lock_tables(&mut self, tables: &[(Option<String>, String, bool)]) -> Result<(), SqlError> {
        self.commit().await?;
        self.unlock_tables();
        let catalog = self.store.catalog();
        let mut wanted: Vec<LockedTable> = Vec::with_capacity(tables.len());
        for (db, name, write) in tables {
            let db = match db.as_deref().or(self.current_db.as_deref()) {
                Some(db) => db.to_string(),
                None => return Err(error::no_database()),
            };
            if catalog.table(&db, name).is_none() {
                return Err(error::no_such_table(&db, name));
            }
            let table = (db, name.clone());
            match wanted.iter_mut().find(|w| w.table == table) {
                Some(w) => w.write |= *write,
                None => wanted.push(LockedTable { table, write: *write }),
            }
        }
        let timeout = self.vars.metadata_lock_wait_timeout();
        self.server.table_locks.acquire(self.info.connection_id, &wanted, timeout, &self.interrupt).await?;
        self.table_locks = Some(wanted);
        Ok(())
    }

    /// UNLOCK TABLES (and a new transaction, a reset, the end of the session): gives up the
    /// session's table locks, if it holds any.
    pub(super) fn unlock_tables(&mut self) {
        if self.table_locks.take().is_some() {
            self.server.table_locks.release(self.info.connection_id);
        }
    }

    /// Before a statement that uses tables: under its own LOCK TABLES a session may use only
    /// the tables it locked (1100) and change only those locked for WRITE (1099); other
    /// sessions' table locks make it wait (lock_wait_timeout, then 1205).
    pub(super) async fn check_table_locks(&mut self, c: &CompiledStmt) -> Result<(), SqlError> {
        if self.table_locks.is_none() && !self.server.table_locks.any_held() {
            return Ok(());
        }
        let writes: Vec<TableName> = written_tables(c);
        if let Some(held) = &self.table_locks {
            for t in c.tables.iter().chain(&writes) {
                match held.iter().find(|h| h.table == *t) {
                    None => return Err(locks::not_locked(&t.1)),
                    Some(h) if !h.write && writes.contains(t) => return Err(locks::read_locked(&t.1)),
                    Some(_) => {}
                }
            }
            return Ok(());
        }
        let timeout = self.vars.metadata_lock_wait_timeout();
        self.server
            .table_locks
            .wait_for_others(self.info.connection_id, &c.tables, &writes, timeout, &self.interrupt)
            .await
    }
}

/// The tables a DML statement changes.
fn written_tables(c: &CompiledStmt) -> Vec<TableName> {
    let name = |t: &TableDef| (t.db.clone(), t.name.clone());
    match &c.compiled {
        Compiled::Insert(p) => vec![name(&p.table)],
        Compiled::Update(p) => vec![name(&p.access.table)],
        Compiled::Delete(p) => vec![name(&p.access.table)],
        Compiled::MultiUpdate(p) => p.targets.iter().map(|t| name(&t.table)).collect(),
        Compiled::MultiDelete(p) => p.targets.iter().map(|t| name(&t.table)).collect(),
        Compiled::Load(p) => vec![name(&p.insert.table)],
        Compiled::Select(_) | Compiled::Other(_) => Vec::new(),
    }
}
