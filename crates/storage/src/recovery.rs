//! Crash recovery, the transactional half (docs/architecture.md §4.8). `Engine::open` runs:
//! 1. `scan_and_redo`: the page store redoes every log entry from the control file's scan
//!    start (its page records, each page only if older than the entry), while this module
//!    collects the logical records: undo before-images per transaction (dropped at its
//!    Commit/Abort), the highest transaction id, and AUTO_INCREMENT advances.
//! 2. `roll_back`: the transactions left without Commit/Abort (losers) are rolled back by
//!    restoring their before-images newest first through the normal B+tree code. Restoring is
//!    idempotent (the key is set to exactly the before-image) and losers held X locks on every
//!    key they touched, so no committed change is overwritten. Catalog records are restored
//!    first, so the catalog that maps index ids to trees is the committed one; undo records of
//!    indexes that no longer exist (dropped by committed DDL) are skipped.
//! 3. `log_aborts`: an Abort record per loser, so the next recovery does not repeat the work.
//!
//! The scan also folds the pending-tree records (crate::pending_trees) into the set of trees
//! that must still be freed: dropped trees purge had not freed, and trees created for DDL that
//! never committed (an interrupted index build, CREATE TABLE or TRUNCATE). The engine hands them
//! to purge once it runs.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::btree::{BTree, Change};
use crate::buffer::{PageId, PageStore};
use crate::error::Result;
use crate::io::Io;
use crate::mtr::Mtr;
use crate::trx::logrec::LogRecord;
use crate::types::{IndexId, TableId};
use crate::wal::{LogScan, Lsn};

/// Recovery logs its progress this often.
const PROGRESS_INTERVAL: Duration = Duration::from_secs(5);

/// One before-image of a loser transaction.
pub struct UndoRec {
    pub lsn: Lsn,
    pub index_id: IndexId,
    pub key: Vec<u8>,
    pub before: Option<Vec<u8>>,
}

/// A transaction with undo records in the scanned log and no Commit/Abort.
pub struct LoserTrx {
    pub trx_id: u64,
    pub first_lsn: Lsn,
    pub undo: Vec<UndoRec>,
}

/// AUTO_INCREMENT changes of one table found in the log, in log order, reduced to: the last
/// committed reset (CREATE TABLE / TRUNCATE), and the highest advance after it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AutoIncLog {
    pub last_reset: Option<u64>,
    pub max_after: u64,
}

impl AutoIncLog {
    /// The counter after replaying these changes over the value persisted in tree 1.
    pub fn apply(&self, persisted: u64) -> u64 {
        match self.last_reset {
            Some(r) => r.max(self.max_after),
            None => persisted.max(self.max_after),
        }
    }
}

pub struct LogSummary {
    pub losers: Vec<LoserTrx>,
    pub max_trx_id: u64,
    pub auto_inc: HashMap<TableId, AutoIncLog>,
    pub entries: u64,
    pub bytes: u64,
    pub end_lsn: Lsn,
    /// Trees that must still be freed (see the module doc).
    pub pending_trees: Vec<PageId>,
}

#[derive(Default)]
struct OpenTrx {
    first_lsn: Lsn,
    undo: Vec<UndoRec>,
    resets: Vec<(TableId, u64)>,
}

/// Collects the logical records of the scan, in log order.
#[derive(Default)]
struct Collector {
    open: HashMap<u64, OpenTrx>,
    max_trx_id: u64,
    auto_inc: HashMap<TableId, AutoIncLog>,
    pending_trees: BTreeSet<PageId>,
    error: Option<crate::error::StorageError>,
}

impl Collector {
    fn on_logical(&mut self, lsn: Lsn, payload: &[u8]) {
        let rec = match LogRecord::decode(payload) {
            Ok(r) => r,
            Err(e) => {
                // The entry's CRC verified, so this is a format bug or foreign data: refuse to
                // guess (a skipped undo record would silently keep a loser's change).
                self.error.get_or_insert(e);
                return;
            }
        };
        match rec {
            LogRecord::Undo { trx_id, index_id, key, before } => {
                self.max_trx_id = self.max_trx_id.max(trx_id);
                let t = self.open.entry(trx_id).or_insert_with(|| OpenTrx { first_lsn: lsn, ..Default::default() });
                t.undo.push(UndoRec { lsn, index_id, key: key.to_vec(), before: before.map(<[u8]>::to_vec) });
            }
            LogRecord::Commit { trx_id } => {
                self.max_trx_id = self.max_trx_id.max(trx_id);
                if let Some(t) = self.open.remove(&trx_id) {
                    for (table, next) in t.resets {
                        self.auto_inc.insert(table, AutoIncLog { last_reset: Some(next), max_after: 0 });
                    }
                }
            }
            LogRecord::Abort { trx_id } => {
                self.max_trx_id = self.max_trx_id.max(trx_id);
                self.open.remove(&trx_id);
            }
            LogRecord::AutoInc { table_id, next } => {
                let a = self.auto_inc.entry(table_id).or_default();
                a.max_after = a.max_after.max(next);
            }
            LogRecord::AutoIncReset { trx_id, table_id, next } => {
                self.max_trx_id = self.max_trx_id.max(trx_id);
                let t = self.open.entry(trx_id).or_insert_with(|| OpenTrx { first_lsn: lsn, ..Default::default() });
                t.resets.push((table_id, next));
            }
            LogRecord::TreesToFree { roots } => self.pending_trees.extend(roots),
            LogRecord::TreesSettled { roots } => {
                for r in roots {
                    self.pending_trees.remove(&r);
                }
            }
            LogRecord::PendingTrees { roots } => self.pending_trees = roots.into_iter().collect(),
        }
    }
}

/// Step 1: redo from `from` to the end of the valid log, collecting the logical records.
pub fn scan_and_redo(io: &Io, store: &PageStore, dir: &Path, from: Lsn, segment_bytes: u64) -> Result<LogSummary> {
    let mut scan = LogScan::open(io, dir, from, segment_bytes)?;
    let mut c = Collector::default();
    let (mut entries, mut bytes) = (0u64, 0u64);
    let started = Instant::now();
    let mut last_report = started;
    while let Some(entry) = scan.next_entry()? {
        store.redo_entry(&entry, &mut |lsn, payload| c.on_logical(lsn, payload))?;
        if let Some(e) = c.error.take() {
            return Err(e);
        }
        entries += 1;
        bytes += entry.end - entry.start;
        if last_report.elapsed() >= PROGRESS_INTERVAL {
            last_report = Instant::now();
            tracing::info!(entries, bytes, lsn = entry.end, "recovery: redo in progress");
        }
    }
    let mut losers: Vec<LoserTrx> = c
        .open
        .into_iter()
        .filter(|(_, t)| !t.undo.is_empty() || !t.resets.is_empty())
        .map(|(trx_id, t)| LoserTrx { trx_id, first_lsn: t.first_lsn, undo: t.undo })
        .collect();
    losers.sort_by_key(|l| l.trx_id);
    tracing::info!(
        entries,
        bytes,
        from,
        end = scan.end_lsn(),
        losers = losers.len(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "recovery: redo done"
    );
    Ok(LogSummary {
        losers,
        max_trx_id: c.max_trx_id,
        auto_inc: c.auto_inc,
        entries,
        bytes,
        end_lsn: scan.end_lsn(),
        pending_trees: c.pending_trees.into_iter().collect(),
    })
}

/// Step 2: restores the before-images of the losers' records whose index `root_of` knows,
/// newest first across all losers. Returns the number restored.
pub fn roll_back(store: &PageStore, losers: &[LoserTrx], root_of: impl Fn(IndexId) -> Option<PageId>) -> Result<usize> {
    let mut recs: Vec<(&UndoRec, PageId)> =
        losers.iter().flat_map(|l| l.undo.iter()).filter_map(|u| root_of(u.index_id).map(|r| (u, r))).collect();
    recs.sort_by_key(|r| std::cmp::Reverse(r.0.lsn));
    let mut last_report = Instant::now();
    for (i, (u, root)) in recs.iter().enumerate() {
        let mut mtr = Mtr::with_space_reserve(store);
        BTree::open(*root).modify(&mut mtr, &u.key, |cur| match (&u.before, cur) {
            (None, None) => (Change::Keep, ()),
            (None, Some(_)) => (Change::Remove, ()),
            (Some(b), _) => (Change::Put(b.clone()), ()),
        })?;
        mtr.commit();
        if last_report.elapsed() >= PROGRESS_INTERVAL {
            last_report = Instant::now();
            tracing::info!(done = i + 1, total = recs.len(), "recovery: rolling back unfinished transactions");
        }
    }
    Ok(recs.len())
}

/// Step 3: logs an Abort record for every loser. Returns the end LSN (0 if none was logged).
pub fn log_aborts(store: &PageStore, losers: &[LoserTrx]) -> Lsn {
    let mut end = 0;
    for l in losers {
        let mut mtr = Mtr::new(store);
        mtr.log_logical(&LogRecord::Abort { trx_id: l.trx_id }.encode());
        end = mtr.commit().1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collector_tracks_losers_and_auto_increment() {
        let mut c = Collector::default();
        let undo = |trx_id, key: &'static [u8]| LogRecord::Undo { trx_id, index_id: 70, key, before: None }.encode();
        c.on_logical(100, &undo(5, b"a"));
        c.on_logical(110, &undo(6, b"b"));
        c.on_logical(120, &LogRecord::AutoInc { table_id: 1, next: 50 }.encode());
        c.on_logical(130, &LogRecord::Commit { trx_id: 5 }.encode());
        c.on_logical(140, &undo(7, b"c"));
        c.on_logical(150, &LogRecord::Abort { trx_id: 7 }.encode());
        // Truncate by trx 8 resets table 1 to 1 when it commits; later inserts advance it.
        c.on_logical(160, &LogRecord::AutoIncReset { trx_id: 8, table_id: 1, next: 1 }.encode());
        c.on_logical(170, &LogRecord::Commit { trx_id: 8 }.encode());
        c.on_logical(180, &LogRecord::AutoInc { table_id: 1, next: 3 }.encode());
        // An uncommitted reset does not apply.
        c.on_logical(190, &LogRecord::AutoIncReset { trx_id: 9, table_id: 2, next: 1 }.encode());
        c.on_logical(200, &LogRecord::AutoInc { table_id: 2, next: 10 }.encode());
        assert_eq!(c.max_trx_id, 9);
        assert_eq!(c.open.len(), 2);
        assert_eq!(c.open[&6].first_lsn, 110);
        assert_eq!(c.auto_inc[&1].apply(40), 3);
        assert_eq!(c.auto_inc[&2].apply(40), 40);
        assert_eq!(c.auto_inc[&2].apply(4), 10);
        assert!(c.error.is_none());
        c.on_logical(210, &[0xEE]);
        assert!(c.error.is_some());
    }

    #[test]
    fn collector_folds_pending_trees_in_log_order() {
        let mut c = Collector::default();
        let rec = |r: LogRecord| r.encode();
        c.on_logical(100, &rec(LogRecord::TreesToFree { roots: vec![10, 11] }));
        c.on_logical(110, &rec(LogRecord::TreesToFree { roots: vec![12] }));
        c.on_logical(120, &rec(LogRecord::TreesSettled { roots: vec![11] }));
        assert_eq!(c.pending_trees.iter().copied().collect::<Vec<_>>(), vec![10, 12]);
        // A checkpoint's snapshot replaces what came before it.
        c.on_logical(130, &rec(LogRecord::PendingTrees { roots: vec![12, 13] }));
        c.on_logical(140, &rec(LogRecord::TreesSettled { roots: vec![13] }));
        assert_eq!(c.pending_trees.iter().copied().collect::<Vec<_>>(), vec![12]);
        assert!(c.error.is_none());
    }
}
