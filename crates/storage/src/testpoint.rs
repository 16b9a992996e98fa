//! Crash points for in-process crash tests: an armed point, when reached, simulates a power cut
//! (`Io::crash`: unsynced writes are lost, every later I/O fails) and makes the operation fail,
//! so a test can stop the engine exactly there and check what recovery makes of it. Unarmed, a
//! point costs one relaxed load.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use crate::error::{Result, StorageError};
use crate::io::Io;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum CrashPoint {
    /// CREATE INDEX, after the new tree received some entries and before the DDL commits.
    IndexBuild = 1,
    /// Purge freeing a dropped tree, after the first mtr of its strip.
    TreeFree = 2,
    /// The page cleaner's next write-back batch, after its home writes and before their sync
    /// (with torn page writes: torn pages on disk for the doublewrite repair).
    HomePageSync = 3,
    /// A rollback (whole or partial), after it restored some records.
    Rollback = 4,
    /// OPTIMIZE TABLE, after the new trees received some records and before the DDL commits.
    TableRebuild = 5,
    /// A value larger than 4 MiB, after the first mtr of the chain written ahead of its row
    /// (trx/big_value.rs) and before the row's mtr links it.
    ChainWrittenAhead = 6,
}

const UNARMED: u8 = 0;

pub struct CrashPoints {
    armed: AtomicU8,
    fired: AtomicBool,
    io: Io,
}

impl CrashPoints {
    pub fn new(io: Io) -> CrashPoints {
        CrashPoints { armed: AtomicU8::new(UNARMED), fired: AtomicBool::new(false), io }
    }

    pub fn arm(&self, p: CrashPoint) {
        self.armed.store(p as u8, Ordering::SeqCst);
    }

    /// Whether `p` is armed (a test point may prepare the state its crash should leave).
    pub fn is_armed(&self, p: CrashPoint) -> bool {
        self.armed.load(Ordering::Relaxed) == p as u8
    }

    /// Point `p` is reached: if it is armed, crash and fail.
    #[inline]
    pub fn hit(&self, p: CrashPoint) -> Result<()> {
        if self.armed.load(Ordering::Relaxed) != p as u8 {
            return Ok(());
        }
        self.armed.store(UNARMED, Ordering::SeqCst);
        tracing::warn!("test crash point {p:?} reached: simulating a power cut");
        self.io.crash();
        self.fired.store(true, Ordering::SeqCst);
        Err(StorageError::ShuttingDown)
    }

    /// Whether an armed point was reached (and the power cut happened).
    pub fn fired(&self) -> bool {
        self.fired.load(Ordering::SeqCst)
    }
}
