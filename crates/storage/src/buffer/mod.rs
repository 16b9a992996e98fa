//! The page store: the tablespace file, the buffer pool (frames, hybrid latches, page table), the
//! page cleaner (free-frame reserve, write-back through the doublewrite area, checkpoints) and
//! the physical half of recovery (doublewrite repair, redo of page records).
//!
//! INTERFACE CONTRACT (frozen; owner: page-store helper). See docs/architecture.md §4.1-4.4, 4.8.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::error::Result;
use crate::io::Io;
use crate::wal::{LogEntry, Lsn, Wal};

pub type PageId = u64;
pub const PAGE_SIZE: usize = 16 * 1024;

/// Number of system B+trees whose roots live in the tablespace header (created with the database).
pub const SYSTEM_TREES: usize = 8;

#[derive(Clone, Debug)]
pub struct PageStoreConfig {
    pub pool_bytes: u64,
    /// Fraction of frames the cleaner keeps free ahead of demand (default 0.10).
    pub free_reserve: f64,
    /// A checkpoint is written at least this often (default 5 s); bounds recovery time.
    pub checkpoint_interval: Duration,
    /// The cleaner flushes oldest pages first once the log since the checkpoint exceeds this
    /// (default 512 MiB).
    pub max_checkpoint_age: u64,
}

impl PageStoreConfig {
    pub fn new(pool_bytes: u64) -> PageStoreConfig {
        PageStoreConfig {
            pool_bytes,
            free_reserve: 0.10,
            checkpoint_interval: Duration::from_secs(5),
            max_checkpoint_age: 512 << 20,
        }
    }
}

/// What the transactional layer tells each checkpoint.
pub trait CheckpointHooks: Send + Sync {
    /// First LSN of the oldest active transaction (`Lsn::MAX` if none): the recovery scan must
    /// start there to find its undo records, and the log is not truncated past it.
    fn oldest_active_lsn(&self) -> Lsn;
    /// Next transaction id to store in the control file.
    fn next_trx_id(&self) -> u64;
    /// Runs before the checkpoint LSN is taken (e.g. persist AUTO_INCREMENT counters with mtrs).
    fn before_checkpoint(&self) {}
}

/// Buffer pool statistics, merged from per-thread counters when read.
#[derive(Clone, Debug, Default)]
pub struct BufferStats {
    pub frames: u64,
    pub free_frames: u64,
    pub dirty_frames: u64,
    pub page_reads: u64,
    pub page_writes: u64,
    /// Times a user thread found no free frame and had to evict by itself (must stay 0).
    pub free_frame_waits: u64,
    pub checkpoint_lsn: Lsn,
    pub checkpoints: u64,
}

pub struct PageStore {
    _private: (),
}

impl PageStore {
    /// Opens or creates `dir/data.sdb` and `dir/doublewrite.sdb`, allocates the pool and repairs
    /// torn pages from the doublewrite area. For a new database, also formats page 0 and the
    /// system trees (logging nothing; the caller checkpoints right after). No background threads
    /// run until `start`.
    pub fn open(io: &Io, dir: &Path, config: PageStoreConfig) -> Result<Arc<PageStore>> {
        let _ = (io, dir, config);
        todo!("page store")
    }

    /// The control file contents read by `open` (for a new database: checkpoint and scan start at
    /// `wal::FIRST_LSN`, next_trx_id 1). `open` opens or creates `dir/selkie.ctl`; the page
    /// cleaner rewrites it at every checkpoint.
    pub fn control_at_open(&self) -> crate::wal::control::ControlData {
        todo!("page store")
    }

    /// True if `open` created a new, empty tablespace.
    pub fn is_new(&self) -> bool {
        todo!("page store")
    }

    /// Recovery: applies the page records of one log entry (each page only if its
    /// `page_lsn < entry.end`) and passes every logical record in it to `on_logical`.
    pub fn redo_entry(&self, entry: &LogEntry, on_logical: &mut dyn FnMut(Lsn, &[u8])) -> Result<()> {
        let _ = (entry, on_logical);
        todo!("page store")
    }

    /// Attaches the log (mtrs can commit from now on) and starts the page cleaner.
    pub fn start(self: &Arc<Self>, wal: Arc<Wal>, hooks: Arc<dyn CheckpointHooks>) -> Result<()> {
        let _ = (wal, hooks);
        todo!("page store")
    }

    /// Flushes all dirty pages and writes a checkpoint now (end of recovery, shutdown).
    pub fn checkpoint_now(&self) -> Result<Lsn> {
        todo!("page store")
    }

    /// Root page of system tree `n` (< SYSTEM_TREES).
    pub fn system_tree_root(&self, n: usize) -> PageId {
        let _ = n;
        todo!("page store")
    }

    pub fn wal(&self) -> &Arc<Wal> {
        todo!("page store")
    }

    pub fn stats(&self) -> BufferStats {
        todo!("page store")
    }

    /// Checkpoints and stops the cleaner.
    pub fn shutdown(&self) -> Result<()> {
        todo!("page store")
    }
}
