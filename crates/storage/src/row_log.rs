//! The row logs of online table rebuilds (docs/architecture.md §4.9, "Table rebuild").
//!
//! While a rebuild copies a table into new trees, writers of the table go on changing the old
//! ones. InnoDB keeps a log of those changes and applies it to the new table at the end; ours
//! keeps less: the primary keys of the rows that changed, nothing else. The rebuild re-reads
//! each such row as of a fresh read view and writes what it finds (or removes the row) in the
//! new trees, so the log needs no row images and the order of its entries does not matter.
//!
//! A transaction notes the keys it changes in a logged table (`TrxState::write_version`) and
//! hands them over only after its commit is visible to new read views and before it stops
//! counting as a writer of the table (`TrxState::finish`). Hence a key is in the log before the
//! rebuild can see its writer gone, and a drain that takes the log and then opens its view sees
//! every change of those keys whose commit preceded the handing over. Rolled back changes are
//! never handed over: the rows are as they were.
//!
//! Writers look at one atomic counter while no table is logged (the normal case): the log costs
//! the write path one load.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::error::{Result, StorageError};
use crate::types::IndexId;

/// Most bytes of keys one row log holds, as MariaDB's `innodb_online_alter_log_max_size`
/// (128 MiB by default): beyond it the rebuild fails with ER_INNODB_ONLINE_LOG_TOO_BIG rather
/// than let its memory grow with the writers' rate.
pub const MAX_ROW_LOG_BYTES: usize = 128 << 20;

/// The row logs of one engine.
#[derive(Default)]
pub(crate) struct RowLogs {
    /// Number of entries in `logs`: writers read only this while it is 0.
    count: AtomicUsize,
    /// DDL is serialized, so this holds at most one.
    logs: parking_lot::Mutex<Vec<Arc<RowLog>>>,
}

/// The changed primary keys of one table being rebuilt, by the id of its (old) primary index.
pub(crate) struct RowLog {
    primary_index: IndexId,
    /// Name of the index MariaDB names in the overflow error.
    index_name: String,
    keys: parking_lot::Mutex<LogKeys>,
}

#[derive(Default)]
struct LogKeys {
    keys: HashSet<Vec<u8>>,
    bytes: usize,
    overflowed: bool,
}

/// Logging stops when this is dropped.
pub(crate) struct RowLogHandle {
    logs: Arc<RowLogs>,
    pub log: Arc<RowLog>,
}

impl RowLogs {
    /// Starts logging the changed keys of the table whose primary index is `primary_index`.
    /// Called while the table's writers are blocked, so that no transaction has changed it
    /// without logging since the rebuild's copy view.
    pub fn start(self: &Arc<Self>, primary_index: IndexId, index_name: &str) -> RowLogHandle {
        let log = Arc::new(RowLog {
            primary_index,
            index_name: index_name.to_string(),
            keys: parking_lot::Mutex::new(LogKeys::default()),
        });
        let mut logs = self.logs.lock();
        assert!(logs.iter().all(|l| l.primary_index != primary_index), "index {primary_index} logged twice");
        logs.push(log.clone());
        self.count.store(logs.len(), Ordering::SeqCst);
        RowLogHandle { logs: self.clone(), log }
    }

    /// Row logs in use.
    pub fn active(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    /// Whether changes to records of `index` must be logged.
    #[inline]
    pub fn is_logged(&self, index: IndexId) -> bool {
        self.count.load(Ordering::SeqCst) != 0 && self.slow_is_logged(index)
    }

    #[cold]
    fn slow_is_logged(&self, index: IndexId) -> bool {
        self.logs.lock().iter().any(|l| l.primary_index == index)
    }

    /// Hands over the keys a committed transaction changed: (primary index, key).
    pub fn push(&self, changed: Vec<(IndexId, Vec<u8>)>) {
        let logs = self.logs.lock().clone();
        for (index, key) in changed {
            // A log that ended (its rebuild failed or finished) takes nothing more.
            if let Some(log) = logs.iter().find(|l| l.primary_index == index) {
                log.add(key);
            }
        }
    }
}

impl RowLog {
    fn add(&self, key: Vec<u8>) {
        let mut k = self.keys.lock();
        if k.overflowed {
            return;
        }
        let len = key.len();
        if k.keys.insert(key) {
            k.bytes += len;
            if k.bytes > MAX_ROW_LOG_BYTES {
                // The rebuild fails at its next drain; the keys are of no use any more.
                k.overflowed = true;
                k.keys = HashSet::new();
            }
        }
    }

    /// The keys logged since the last take, or the overflow error.
    pub fn take(&self) -> Result<Vec<Vec<u8>>> {
        let mut k = self.keys.lock();
        if k.overflowed {
            return Err(StorageError::OnlineLogTooBig { index: self.index_name.clone() });
        }
        k.bytes = 0;
        Ok(std::mem::take(&mut k.keys).into_iter().collect())
    }

    /// Gives keys back for the next drain (ones it could not apply yet).
    pub fn requeue(&self, keys: Vec<Vec<u8>>) {
        for key in keys {
            self.add(key);
        }
    }

    /// Keys waiting to be drained.
    pub fn len(&self) -> usize {
        self.keys.lock().keys.len()
    }
}

impl Drop for RowLogHandle {
    fn drop(&mut self) {
        let mut logs = self.logs.logs.lock();
        logs.retain(|l| !Arc::ptr_eq(l, &self.log));
        self.logs.count.store(logs.len(), Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_logged_only_for_the_rebuilt_index_and_only_while_it_runs() {
        let logs = Arc::new(RowLogs::default());
        assert!(!logs.is_logged(7));
        let handle = logs.start(7, "PRIMARY");
        assert!(logs.is_logged(7) && !logs.is_logged(8));
        logs.push(vec![(7, b"a".to_vec()), (8, b"b".to_vec()), (7, b"a".to_vec()), (7, b"c".to_vec())]);
        let mut keys = handle.log.take().unwrap();
        keys.sort();
        assert_eq!(keys, vec![b"a".to_vec(), b"c".to_vec()], "deduplicated, other indexes ignored");
        assert!(handle.log.take().unwrap().is_empty());
        let log = handle.log.clone();
        drop(handle);
        assert!(!logs.is_logged(7));
        logs.push(vec![(7, b"d".to_vec())]);
        assert!(log.take().unwrap().is_empty(), "an ended log takes nothing");
    }

    #[test]
    fn an_overflowing_log_fails_the_rebuild() {
        let logs = Arc::new(RowLogs::default());
        let handle = logs.start(1, "PRIMARY");
        let big = MAX_ROW_LOG_BYTES / 4 + 1;
        logs.push((0..4u8).map(|i| (1, vec![i; big])).collect());
        let err = handle.log.take().unwrap_err();
        assert_eq!(err.mysql_code().0, 1799);
        assert!(err.to_string().contains("'PRIMARY'"), "{err}");
    }
}
