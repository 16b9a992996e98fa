//! What a page store is given: its settings (`PageStoreConfig`, with their bounds) and the
//! hooks the transactional layer runs at each checkpoint. A leaf below `Shared`, which holds both.

use std::time::Duration;

use crate::wal::Lsn;

/// Smallest pool accepted: enough frames for the pages a few concurrent mtrs latch at once.
pub const MIN_POOL_FRAMES: usize = 32;
/// Largest `free_reserve` accepted: a reserve beyond half the pool only evicts useful pages.
pub const MAX_FREE_RESERVE: f64 = 0.5;

#[derive(Clone, Debug)]
pub struct PageStoreConfig {
    pub pool_bytes: u64,
    /// Fraction of frames the cleaner keeps free ahead of demand (default 0.10).
    pub free_reserve: f64,
    /// A checkpoint is written at least this often (default 5 s); bounds recovery time.
    pub checkpoint_interval: Duration,
    /// The cleaner flushes oldest pages first once the log since the checkpoint exceeds this
    /// (default 512 MiB; the engine sets the log's async point, `WalConfig::async_age`).
    pub max_checkpoint_age: u64,
    /// Salvage mode: open existing files only, change none of them (torn pages are served from
    /// their doublewrite copies in memory, redo stays in the pool), run no page cleaner.
    pub read_only: bool,
}

impl PageStoreConfig {
    pub fn new(pool_bytes: u64) -> PageStoreConfig {
        PageStoreConfig {
            pool_bytes,
            free_reserve: 0.10,
            checkpoint_interval: Duration::from_secs(5),
            max_checkpoint_age: 512 << 20,
            read_only: false,
        }
    }
}

/// What the transactional layer tells each checkpoint.
pub trait CheckpointHooks: Send + Sync {
    /// The lowest LSN the recovery scan of this checkpoint may start at (`Lsn::MAX`: no limit):
    /// the log before it is needed by what the transactional layer re-logs at checkpoints, and
    /// is not truncated past it.
    fn scan_start_floor(&self) -> Lsn;
    /// Next transaction id to store in the control file.
    fn next_trx_id(&self) -> u64;
    /// Runs before the checkpoint LSN is taken (e.g. persist AUTO_INCREMENT counters with mtrs,
    /// re-log state a recovery from this checkpoint needs) and returns the end LSN of what it
    /// logged, durable when it returns (0 if nothing): the *checkpoint marker*, which recovery
    /// requires the log to reach (`ControlData::extra` holds it).
    fn before_checkpoint(&self) -> Lsn {
        0
    }
}
