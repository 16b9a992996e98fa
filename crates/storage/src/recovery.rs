//! Crash recovery, the transactional half (docs/architecture.md §4.8). `Engine::open` runs:
//! 0. `check_log_reaches`, before anything is written: the log must verify from the control
//!    file's scan start through the checkpoint LSN and the checkpoint marker. A log that ends
//!    earlier (a truncated, emptied or lost log file, a data directory copied while running) cannot
//!    be trusted: recovery would roll back committed transactions and lose what the log held.
//!    The engine refuses to start, naming the LSNs, and no file has been touched.
//! 1. `scan_and_redo`: the page store redoes every log entry from the scan start (its page
//!    records, each page only if older than the entry), while this module collects the logical
//!    records: the undo logs that exist, the highest transaction id, AUTO_INCREMENT changes and
//!    the pending trees.
//! 2. `classify_undo_logs`: the first page of every known undo log says what it is (trx/undo.rs):
//!    an *active* log belongs to a loser (a transaction the crash interrupted), a committed one is
//!    left for purge, and aborted or cached ones are freed.
//! 3. `roll_back`: each loser's live undo records are restored newest first, each in one mtr that
//!    also marks the record undone, so a crash during recovery repeats nothing. Catalog records
//!    go first, so that the catalog mapping index ids to trees is the committed one; records of
//!    indexes that no longer exist are skipped.
//! 4. `log_aborts`: each loser's log is marked aborted, with an Abort record (AUTO_INCREMENT).
//!
//! The undo logs live in pages, so the scan never needs log older than the checkpoint, however
//! old the oldest transaction was: the checkpoint re-logs the set of undo logs instead.
//!
//! The scan also folds the pending-tree records (crate::pending_trees) into the set of trees
//! that must still be freed: dropped trees purge had not freed, and trees created for DDL that
//! never committed (an interrupted index build, CREATE TABLE or TRUNCATE). The engine hands them
//! to purge once it runs.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::buffer::{PageId, PageStore};
use crate::catalog::CATALOG_INDEX_ID;
use crate::error::{Result, StorageError};
use crate::io::Io;
use crate::mtr::Mtr;
use crate::trx::logrec::LogRecord;
use crate::trx::txn::restore_record;
use crate::trx::undo::{self, LiveRecords, LogInfo, LogState};
use crate::types::{IndexId, SequenceState, TableId};
use crate::wal::control::ControlData;
use crate::wal::{LogScan, Lsn};

/// Recovery logs its progress this often.
const PROGRESS_INTERVAL: Duration = Duration::from_secs(5);

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
    pub max_trx_id: u64,
    pub auto_inc: HashMap<TableId, AutoIncLog>,
    pub entries: u64,
    pub bytes: u64,
    pub end_lsn: Lsn,
    /// Trees that must still be freed (see the module doc).
    pub pending_trees: Vec<PageId>,
    /// First pages of the undo logs that may exist (a superset: see trx/undo.rs).
    pub undo_logs: Vec<PageId>,
    /// The last state logged for each sequence that moved since the checkpoint.
    pub sequences: HashMap<TableId, SequenceState>,
}

/// Collects the logical records of the scan, in log order.
#[derive(Default)]
struct Collector {
    /// AUTO_INCREMENT resets of transactions not yet committed.
    resets: HashMap<u64, Vec<(TableId, u64)>>,
    max_trx_id: u64,
    auto_inc: HashMap<TableId, AutoIncLog>,
    pending_trees: BTreeSet<PageId>,
    undo_logs: BTreeSet<PageId>,
    sequences: HashMap<TableId, SequenceState>,
    error: Option<StorageError>,
}

impl Collector {
    fn on_logical(&mut self, payload: &[u8]) {
        let rec = match LogRecord::decode(payload) {
            Ok(r) => r,
            Err(e) => {
                // The entry's CRC verified, so this is a format bug or foreign data: refuse to
                // guess (a skipped record could lose a commit or a tree to free).
                self.error.get_or_insert(e);
                return;
            }
        };
        match rec {
            LogRecord::Commit { trx_id } => {
                self.max_trx_id = self.max_trx_id.max(trx_id);
                for (table, next) in self.resets.remove(&trx_id).unwrap_or_default() {
                    self.auto_inc.insert(table, AutoIncLog { last_reset: Some(next), max_after: 0 });
                }
            }
            LogRecord::Abort { trx_id } => {
                self.max_trx_id = self.max_trx_id.max(trx_id);
                self.resets.remove(&trx_id);
            }
            LogRecord::AutoInc { table_id, next } => {
                let a = self.auto_inc.entry(table_id).or_default();
                a.max_after = a.max_after.max(next);
            }
            LogRecord::AutoIncReset { trx_id, table_id, next } => {
                self.max_trx_id = self.max_trx_id.max(trx_id);
                self.resets.entry(trx_id).or_default().push((table_id, next));
            }
            LogRecord::TreesToFree { roots } => self.pending_trees.extend(roots),
            LogRecord::TreesSettled { roots } => {
                for r in roots {
                    self.pending_trees.remove(&r);
                }
            }
            LogRecord::PendingTrees { roots } => self.pending_trees = roots.into_iter().collect(),
            // A union, not a replacement: the set is logged without a lock shared with the
            // records that change it (trx/undo.rs), and the pages decide what is real.
            LogRecord::UndoLogCreated { first } => {
                self.undo_logs.insert(first);
            }
            LogRecord::UndoLogFreed { first } => {
                self.undo_logs.remove(&first);
            }
            LogRecord::UndoLogs { firsts } => self.undo_logs.extend(firsts),
            LogRecord::CheckpointMarker => {}
            LogRecord::SequenceState { table_id, next_not_cached, cycle_count } => {
                self.sequences.insert(table_id, SequenceState { next_not_cached, cycle_count });
            }
        }
    }
}

/// The checkpoint marker's end LSN recorded in the control file (0 if none).
pub fn checkpoint_marker(control: &ControlData) -> Lsn {
    match <[u8; 8]>::try_from(control.extra.as_slice()) {
        Ok(b) => u64::from_le_bytes(b),
        Err(_) => 0,
    }
}

/// Step 0: reads (and verifies) the log from the scan start to its end without applying
/// anything, and refuses a log that ends before the checkpoint or its marker. Returns the end.
pub fn check_log_reaches(io: &Io, dir: &Path, control: &ControlData, segment_bytes: u64) -> Result<Lsn> {
    let mut scan = LogScan::open(io, dir, control.scan_start_lsn, segment_bytes)?;
    while scan.next_entry()?.is_some() {}
    let end = scan.end_lsn();
    let marker = checkpoint_marker(control);
    let required = control.checkpoint_lsn.max(marker);
    if end < required {
        return Err(StorageError::LogTooShort { end, checkpoint: control.checkpoint_lsn, marker });
    }
    Ok(end)
}

/// Step 1: redo from `from` to the end of the valid log, collecting the logical records.
pub fn scan_and_redo(io: &Io, store: &PageStore, dir: &Path, from: Lsn, segment_bytes: u64) -> Result<LogSummary> {
    let mut scan = LogScan::open(io, dir, from, segment_bytes)?;
    let mut c = Collector::default();
    let (mut entries, mut bytes) = (0u64, 0u64);
    let started = Instant::now();
    let mut last_report = started;
    while let Some(entry) = scan.next_entry()? {
        store.redo_entry(&entry, &mut |_, payload| c.on_logical(payload))?;
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
    tracing::info!(
        entries,
        bytes,
        from,
        end = scan.end_lsn(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "recovery: redo done"
    );
    Ok(LogSummary {
        max_trx_id: c.max_trx_id,
        auto_inc: c.auto_inc,
        entries,
        bytes,
        end_lsn: scan.end_lsn(),
        pending_trees: c.pending_trees.into_iter().collect(),
        undo_logs: c.undo_logs.into_iter().collect(),
        sequences: c.sequences,
    })
}

/// The undo logs found in pages, by what recovery does with them.
#[derive(Default)]
pub(crate) struct UndoLogs {
    /// Active: transactions the crash interrupted, to roll back.
    pub losers: Vec<LogInfo>,
    /// Committed, not yet purged.
    pub committed: Vec<LogInfo>,
    /// Aborted or cached: only their pages remain to free.
    pub finished: Vec<LogInfo>,
    /// Set entries that are not (or no longer) logs.
    pub stale: usize,
}

/// Step 2: reads the first page of every undo log of the recovered set.
pub(crate) fn classify_undo_logs(store: &PageStore, firsts: &[PageId]) -> Result<UndoLogs> {
    let mut out = UndoLogs::default();
    let mut trx_ids = HashSet::new();
    for &first in firsts {
        let Some(info) = undo::inspect(store, first)? else {
            out.stale += 1;
            continue;
        };
        if info.state != LogState::Cached && !trx_ids.insert(info.trx_id) {
            return Err(StorageError::Corruption(format!("two undo logs of transaction {}", info.trx_id)));
        }
        match info.state {
            LogState::Active => out.losers.push(info),
            LogState::Committed => out.committed.push(info),
            LogState::Aborted | LogState::Cached => out.finished.push(info),
        }
    }
    Ok(out)
}

/// Salvage mode: the first page of every undo log in the tablespace, found by reading every
/// page (the log that names them may be lost). Slow on a big tablespace, and only for salvage.
pub(crate) fn find_undo_logs_by_scan(store: &PageStore) -> Result<Vec<PageId>> {
    let mut firsts = Vec::new();
    let mut page = vec![0u8; crate::buffer::PAGE_SIZE];
    for pid in 1..store.tablespace_pages()? {
        if store.shared().read_copy(pid, &mut page).is_err() {
            continue; // a damaged page: salvage what can be read
        }
        if undo::is_first_page(&page) {
            firsts.push(pid);
        }
    }
    Ok(firsts)
}

/// Step 3: restores the live records of the losers whose index `root_of` knows (and whose tree
/// it names). Returns the number restored.
pub(crate) fn roll_back(
    store: &PageStore,
    losers: &[LogInfo],
    root_of: impl Fn(IndexId) -> Option<PageId>,
) -> Result<usize> {
    let mut restored = 0;
    let mut last_report = Instant::now();
    for l in losers {
        for rec in LiveRecords::new(store, l.trx_id, l.newest) {
            let rec = rec?;
            if rec.undone {
                continue;
            }
            match root_of(rec.index_id) {
                Some(root) if root == rec.root => {}
                Some(_) | None => continue,
            }
            restore_record(store, &rec)?;
            restored += 1;
            if last_report.elapsed() >= PROGRESS_INTERVAL {
                last_report = Instant::now();
                tracing::info!(restored, trx_id = l.trx_id, "recovery: rolling back unfinished transactions");
            }
        }
    }
    Ok(restored)
}

/// The records of losers that `roll_back` skipped because their index no longer exists: logged,
/// never restored (their tree may have been freed and reused).
pub(crate) fn report_orphans(
    store: &PageStore,
    losers: &[LogInfo],
    exists: impl Fn(IndexId, PageId) -> bool,
) -> Result<usize> {
    let mut orphans = 0;
    for l in losers {
        for rec in LiveRecords::new(store, l.trx_id, l.newest) {
            let rec = rec?;
            if !rec.undone && rec.index_id != CATALOG_INDEX_ID && !exists(rec.index_id, rec.root) {
                orphans += 1;
            }
        }
    }
    if orphans > 0 {
        tracing::warn!(orphans, "recovery: undo records of indexes that no longer exist were skipped");
    }
    Ok(orphans)
}

/// Step 4: marks every loser's log aborted, with an Abort record. Returns the end LSN (0 if none).
pub(crate) fn log_aborts(store: &PageStore, losers: &[LogInfo]) -> Result<Lsn> {
    let mut end = 0;
    for l in losers {
        let mut mtr = Mtr::new(store);
        undo::set_state(&mut mtr, l.first, LogState::Aborted)?;
        mtr.log_logical(&LogRecord::Abort { trx_id: l.trx_id }.encode());
        end = mtr.commit().1;
    }
    Ok(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collector_tracks_auto_increment_and_undo_logs() {
        let mut c = Collector::default();
        c.on_logical(&LogRecord::AutoInc { table_id: 1, next: 50 }.encode());
        c.on_logical(&LogRecord::Commit { trx_id: 5 }.encode());
        // Truncate by trx 8 resets table 1 to 1 when it commits; later inserts advance it.
        c.on_logical(&LogRecord::AutoIncReset { trx_id: 8, table_id: 1, next: 1 }.encode());
        c.on_logical(&LogRecord::Commit { trx_id: 8 }.encode());
        c.on_logical(&LogRecord::AutoInc { table_id: 1, next: 3 }.encode());
        // An uncommitted reset does not apply.
        c.on_logical(&LogRecord::AutoIncReset { trx_id: 9, table_id: 2, next: 1 }.encode());
        c.on_logical(&LogRecord::AutoInc { table_id: 2, next: 10 }.encode());
        assert_eq!(c.max_trx_id, 9);
        assert_eq!(c.auto_inc[&1].apply(40), 3);
        assert_eq!(c.auto_inc[&2].apply(40), 40);
        assert_eq!(c.auto_inc[&2].apply(4), 10);
        // Undo logs: created, freed, and snapshots that only add.
        c.on_logical(&LogRecord::UndoLogCreated { first: 30 }.encode());
        c.on_logical(&LogRecord::UndoLogs { firsts: vec![10, 20] }.encode());
        c.on_logical(&LogRecord::UndoLogFreed { first: 20 }.encode());
        c.on_logical(&LogRecord::UndoLogs { firsts: vec![40] }.encode());
        assert_eq!(c.undo_logs.iter().copied().collect::<Vec<_>>(), vec![10, 30, 40]);
        assert!(c.error.is_none());
        c.on_logical(&[0xEE]);
        assert!(c.error.is_some());
    }

    #[test]
    fn collector_folds_pending_trees_in_log_order() {
        let mut c = Collector::default();
        let rec = |r: LogRecord| r.encode();
        c.on_logical(&rec(LogRecord::TreesToFree { roots: vec![10, 11] }));
        c.on_logical(&rec(LogRecord::TreesToFree { roots: vec![12] }));
        c.on_logical(&rec(LogRecord::TreesSettled { roots: vec![11] }));
        assert_eq!(c.pending_trees.iter().copied().collect::<Vec<_>>(), vec![10, 12]);
        // A checkpoint's snapshot replaces what came before it.
        c.on_logical(&rec(LogRecord::PendingTrees { roots: vec![12, 13] }));
        c.on_logical(&rec(LogRecord::TreesSettled { roots: vec![13] }));
        assert_eq!(c.pending_trees.iter().copied().collect::<Vec<_>>(), vec![12]);
        assert!(c.error.is_none());
    }

    #[test]
    fn the_marker_is_read_back_from_the_control_file() {
        let mut control =
            ControlData { format: 2, checkpoint_lsn: 100, scan_start_lsn: 90, next_trx_id: 1, extra: vec![] };
        assert_eq!(checkpoint_marker(&control), 0);
        control.extra = 4242u64.to_le_bytes().to_vec();
        assert_eq!(checkpoint_marker(&control), 4242);
    }
}
