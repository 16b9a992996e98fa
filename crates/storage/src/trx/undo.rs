//! In-memory undo logs (docs/architecture.md §4.7: undo lives in memory).
//!
//! Each read-write transaction has one `UndoLog`: the before-image of every index record it
//! changed, in order. A record's `roll_ptr` is the index of the undo entry holding its previous
//! version, in the log of the transaction named by its `trx_id`. Readers that need an older
//! version find the log through the `UndoRegistry` and take the log's read lock briefly; the
//! owner appends under the write lock (uncontended unless someone reads its old versions).
//! Rollback and recovery need the same before-images; recovery reads them from the redo log's
//! logical undo records instead, because this memory is gone after a crash.

use std::collections::HashMap;
use std::sync::Arc;

use crossbeam_utils::CachePadded;
use parking_lot::{Mutex, RwLock};

use crate::buffer::PageId;
use crate::types::IndexId;

/// Partitions of the trx id → undo log map (looked up only when reading old versions).
const UNDO_REGISTRY_SHARDS: usize = 64;

#[derive(Clone, Debug)]
pub struct UndoEntry {
    pub index_id: IndexId,
    /// The index's tree: rollback restores here even if a DDL removed the index from the catalog
    /// meanwhile (its pages are freed only after this transaction ends).
    pub root: PageId,
    pub key: Box<[u8]>,
    /// The whole previous stored value (MVCC header included), or None if the key was absent.
    pub before: Option<Box<[u8]>>,
    /// The version written by this change is delete-marked (purge removes it if it still is).
    pub marks_deleted: bool,
    /// Restored already by a statement or savepoint rollback. The entry stays (a reader that
    /// copied the version it undid may still follow the roll pointer to it, and its before-image
    /// is what the record holds again); a later rollback skips it, and purge ignores it.
    pub undone: bool,
}

/// What a reader finds behind a roll pointer.
#[derive(Debug, PartialEq, Eq)]
pub enum PriorVersion {
    /// The previous stored value (None: the record did not exist before).
    Found(Option<Vec<u8>>),
    /// The entry is gone or belongs to another record: the writer rolled back a statement after
    /// the reader copied the record. The reader re-reads the record.
    Stale,
}

pub struct UndoLog {
    pub trx_id: u64,
    entries: RwLock<Vec<UndoEntry>>,
}

impl UndoLog {
    pub fn new(trx_id: u64) -> UndoLog {
        UndoLog { trx_id, entries: RwLock::new(Vec::new()) }
    }

    pub fn len(&self) -> usize {
        self.entries.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The roll pointer the next pushed entry will have.
    pub fn next_roll_ptr(&self) -> u64 {
        self.len() as u64
    }

    pub fn push(&self, e: UndoEntry) -> u64 {
        let mut v = self.entries.write();
        v.push(e);
        v.len() as u64 - 1
    }

    /// A copy of entry `i` if it exists and is not undone yet (rollback walks newest first).
    pub fn live_entry(&self, i: usize) -> Option<UndoEntry> {
        self.entries.read().get(i).filter(|e| !e.undone).cloned()
    }

    /// Marks entry `i` restored (see `UndoEntry::undone`).
    pub fn mark_undone(&self, i: usize) {
        if let Some(e) = self.entries.write().get_mut(i) {
            e.undone = true;
        }
    }

    /// Calls `f` on each entry without copying them (purge).
    pub fn for_each(&self, mut f: impl FnMut(&UndoEntry)) {
        for e in self.entries.read().iter() {
            f(e)
        }
    }

    /// The version before the one written by undo entry `roll_ptr`, if that entry still belongs
    /// to record (`index_id`, `key`).
    pub fn prior_version(&self, roll_ptr: u64, index_id: IndexId, key: &[u8]) -> PriorVersion {
        let v = self.entries.read();
        match usize::try_from(roll_ptr).ok().and_then(|i| v.get(i)) {
            Some(e) if e.index_id == index_id && &*e.key == key => {
                PriorVersion::Found(e.before.as_ref().map(|b| b.to_vec()))
            }
            _ => PriorVersion::Stale,
        }
    }
}

/// Map from transaction id to its undo log, for readers following roll pointers. A log is
/// registered when its transaction takes an id and removed by purge (or at once when the
/// transaction changed nothing).
type UndoShard = CachePadded<Mutex<HashMap<u64, Arc<UndoLog>>>>;

pub struct UndoRegistry {
    shards: Box<[UndoShard]>,
}

impl Default for UndoRegistry {
    fn default() -> Self {
        UndoRegistry::new()
    }
}

impl UndoRegistry {
    pub fn new() -> UndoRegistry {
        UndoRegistry {
            shards: (0..UNDO_REGISTRY_SHARDS).map(|_| CachePadded::new(Mutex::new(HashMap::new()))).collect(),
        }
    }

    fn shard(&self, trx_id: u64) -> &Mutex<HashMap<u64, Arc<UndoLog>>> {
        &self.shards[(trx_id % UNDO_REGISTRY_SHARDS as u64) as usize]
    }

    pub fn insert(&self, log: Arc<UndoLog>) {
        let prev = self.shard(log.trx_id).lock().insert(log.trx_id, log);
        debug_assert!(prev.is_none(), "transaction ids are unique");
    }

    pub fn get(&self, trx_id: u64) -> Option<Arc<UndoLog>> {
        self.shard(trx_id).lock().get(&trx_id).cloned()
    }

    pub fn remove(&self, trx_id: u64) {
        self.shard(trx_id).lock().remove(&trx_id);
    }

    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &[u8], before: Option<&[u8]>) -> UndoEntry {
        UndoEntry {
            index_id: 7,
            root: 3,
            key: key.into(),
            before: before.map(Into::into),
            marks_deleted: false,
            undone: false,
        }
    }

    #[test]
    fn roll_pointers_find_prior_versions_and_detect_stale_ones() {
        let log = UndoLog::new(5);
        assert_eq!(log.push(entry(b"a", None)), 0);
        assert_eq!(log.push(entry(b"b", Some(b"old"))), 1);
        assert_eq!(log.prior_version(1, 7, b"b"), PriorVersion::Found(Some(b"old".to_vec())));
        assert_eq!(log.prior_version(0, 7, b"a"), PriorVersion::Found(None));
        assert_eq!(log.prior_version(1, 7, b"a"), PriorVersion::Stale);
        assert_eq!(log.prior_version(1, 8, b"b"), PriorVersion::Stale);
        // A rolled-back entry keeps answering: its before-image is what the record holds again.
        log.mark_undone(1);
        assert!(log.live_entry(1).is_none());
        assert_eq!(log.prior_version(1, 7, b"b"), PriorVersion::Found(Some(b"old".to_vec())));
        assert_eq!(log.next_roll_ptr(), 2);
    }

    #[test]
    fn registry_round_trip() {
        let r = UndoRegistry::new();
        r.insert(Arc::new(UndoLog::new(70)));
        r.insert(Arc::new(UndoLog::new(134)));
        assert_eq!(r.get(70).unwrap().trx_id, 70);
        r.remove(70);
        assert!(r.get(70).is_none());
        assert_eq!(r.len(), 1);
    }
}
