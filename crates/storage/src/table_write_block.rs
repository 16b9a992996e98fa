//! Tables whose writers wait while a DDL rebuilds them (docs/architecture.md §4.9).
//!
//! This is the part of MariaDB's metadata lock that ALTER TABLE ... LOCK=SHARED needs: while an
//! index build reads a table, statements that would change it wait before they start (their
//! `Engine::write_statement_guard`), and everything else goes on: reads of the table, and every
//! statement on other tables. A block is set while the DDL holds the whole statement barrier, so
//! a statement that holds its guard either saw the block or started before it and has ended.
//!
//! Writers look at one atomic counter while no table is blocked (the normal case): the block
//! costs the write path one load. A waiter holds a `watch` receiver whose sender the block owns;
//! dropping the block closes the channel and wakes every waiter at once, so a DDL that fails or
//! crashes half way cannot leave writers waiting.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::watch;

use crate::types::TableId;

/// The blocked tables of one engine.
#[derive(Default)]
pub(crate) struct TableWriteBlocks {
    /// Number of entries in `tables`: writers read only this while it is 0.
    count: AtomicUsize,
    /// (table, receiver of the block's channel). DDL is serialized, so this holds at most a few.
    tables: parking_lot::Mutex<Vec<(TableId, watch::Receiver<()>)>>,
}

/// Writes to one table wait until this is dropped.
pub(crate) struct TableWriteBlock {
    blocks: Arc<TableWriteBlocks>,
    table: TableId,
    /// Dropped after the entry is removed: closing the channel wakes the waiters.
    _lifted: watch::Sender<()>,
}

impl TableWriteBlocks {
    /// Blocks writes to `table`. The caller holds the statement barrier (see the module doc).
    pub fn block(self: &Arc<Self>, table: TableId) -> TableWriteBlock {
        let (tx, rx) = watch::channel(());
        let mut tables = self.tables.lock();
        assert!(tables.iter().all(|(t, _)| *t != table), "table {table} blocked twice (DDL is serialized)");
        tables.push((table, rx));
        self.count.store(tables.len(), Ordering::SeqCst);
        TableWriteBlock { blocks: self.clone(), table, _lifted: tx }
    }

    /// Whether writes to `table` must wait.
    #[inline]
    pub fn is_blocked(&self, table: TableId) -> bool {
        self.count.load(Ordering::SeqCst) != 0 && self.tables.lock().iter().any(|(t, _)| *t == table)
    }

    /// A receiver whose `changed()` resolves (with an error: the channel closed) once the block
    /// of the first blocked table among `tables` is lifted; None when none of them is blocked.
    #[inline]
    pub fn waiter(&self, tables: &[TableId]) -> Option<watch::Receiver<()>> {
        if self.count.load(Ordering::SeqCst) == 0 {
            return None;
        }
        self.slow_waiter(tables)
    }

    #[cold]
    fn slow_waiter(&self, tables: &[TableId]) -> Option<watch::Receiver<()>> {
        let blocked = self.tables.lock();
        blocked.iter().find(|(t, _)| tables.contains(t)).map(|(_, rx)| rx.clone())
    }
}

impl Drop for TableWriteBlock {
    fn drop(&mut self) {
        let mut tables = self.blocks.tables.lock();
        tables.retain(|(t, _)| *t != self.table);
        self.blocks.count.store(tables.len(), Ordering::SeqCst);
        // `_lifted` drops after this body: the waiters it wakes find the entry gone.
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn waiters_wake_when_the_block_drops() {
        let blocks = Arc::new(TableWriteBlocks::default());
        assert!(blocks.waiter(&[1, 2]).is_none());
        let block = blocks.block(2);
        assert!(blocks.is_blocked(2) && !blocks.is_blocked(1));
        assert!(blocks.waiter(&[1]).is_none());
        let mut rx = blocks.waiter(&[1, 2]).expect("table 2 is blocked");
        let waiting = tokio::spawn(async move { rx.changed().await.is_err() });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        drop(block);
        assert!(waiting.await.unwrap(), "the closed channel wakes the waiter");
        assert!(!blocks.is_blocked(2) && blocks.waiter(&[2]).is_none());
        // A receiver taken just before the block dropped sees the channel closed at once.
        let block = blocks.block(3);
        let mut late = blocks.waiter(&[3]).unwrap();
        drop(block);
        assert!(late.changed().await.is_err());
    }
}
