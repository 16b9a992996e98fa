//! Per-session status counters (Questions, Com_*), handed to SHOW STATUS which merges them.
//! Counted per session so the statement path writes no shared cache line.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Counter {
    Questions,
    ComSelect,
    ComInsert,
    ComInsertSelect,
    ComReplace,
    ComUpdate,
    ComDelete,
    ComBegin,
    ComCommit,
    ComRollback,
    ComSetOption,
    ComShow,
    ComCreateTable,
    ComDropTable,
    ComAlterTable,
    ComCreateIndex,
    ComDropIndex,
    ComCreateDb,
    ComDropDb,
    ComTruncate,
    ComRenameTable,
    ComChangeDb,
    ComKill,
    ComStmtPrepare,
    ComStmtExecute,
    ComStmtClose,
    ComStmtReset,
    ComAnalyze,
    ComOptimize,
    ComCheck,
    ComDo,
    ComSavepoint,
    ComRollbackToSavepoint,
    ComReleaseSavepoint,
}

const NAMES: &[&str] = &[
    "Questions",
    "Com_select",
    "Com_insert",
    "Com_insert_select",
    "Com_replace",
    "Com_update",
    "Com_delete",
    "Com_begin",
    "Com_commit",
    "Com_rollback",
    "Com_set_option",
    "Com_show_other",
    "Com_create_table",
    "Com_drop_table",
    "Com_alter_table",
    "Com_create_index",
    "Com_drop_index",
    "Com_create_db",
    "Com_drop_db",
    "Com_truncate",
    "Com_rename_table",
    "Com_change_db",
    "Com_kill",
    "Com_stmt_prepare",
    "Com_stmt_execute",
    "Com_stmt_close",
    "Com_stmt_reset",
    "Com_analyze",
    "Com_optimize",
    "Com_check",
    "Com_do",
    "Com_savepoint",
    "Com_rollback_to_savepoint",
    "Com_release_savepoint",
];

/// Number of counters.
pub const COUNT: usize = Counter::ComReleaseSavepoint as usize + 1;

/// One session's counters. Only the session's own task writes them (a relaxed load and store,
/// no read-modify-write: there is a single writer), so the statement path writes only its own
/// cache lines; the server sums them over live sessions for SHOW GLOBAL STATUS.
#[derive(Debug)]
pub struct StatusCounters {
    values: [AtomicU64; COUNT],
}

impl Default for StatusCounters {
    fn default() -> StatusCounters {
        StatusCounters { values: std::array::from_fn(|_| AtomicU64::new(0)) }
    }
}

impl StatusCounters {
    /// Counts one event. Called only by the owning session.
    #[inline]
    pub fn bump(&self, c: Counter) {
        let v = &self.values[c as usize];
        v.store(v.load(Relaxed) + 1, Relaxed);
    }

    pub fn get(&self, c: Counter) -> u64 {
        self.values[c as usize].load(Relaxed)
    }

    /// (name, value) of every counter, for ShowContext::session_status.
    pub fn snapshot(&self) -> Vec<(String, u64)> {
        NAMES.iter().zip(self.values.iter()).map(|(n, v)| (n.to_string(), v.load(Relaxed))).collect()
    }

    /// Adds every counter to `totals` (indexed like `names()`).
    pub fn add_to(&self, totals: &mut [u64; COUNT]) {
        for (t, v) in totals.iter_mut().zip(self.values.iter()) {
            *t += v.load(Relaxed);
        }
    }

    /// Names of the counters, in `add_to` order ("Questions", "Com_select", ...).
    pub fn names() -> &'static [&'static str] {
        NAMES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_counter_has_a_name() {
        assert_eq!(NAMES.len(), COUNT);
        let c = StatusCounters::default();
        c.bump(Counter::ComSelect);
        c.bump(Counter::ComSelect);
        c.bump(Counter::ComDo);
        let snap = c.snapshot();
        assert_eq!(snap[Counter::ComSelect as usize], ("Com_select".to_string(), 2));
        assert_eq!(snap[Counter::ComDo as usize], ("Com_do".to_string(), 1));
        assert_eq!(c.get(Counter::Questions), 0);
        let mut totals = [5; COUNT];
        c.add_to(&mut totals);
        assert_eq!((totals[Counter::ComSelect as usize], totals[Counter::Questions as usize]), (7, 5));
        assert_eq!(StatusCounters::names()[Counter::ComDo as usize], "Com_do");
    }
}
