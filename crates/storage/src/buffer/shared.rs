//! `Shared`: everything the page store shares with its background threads, and the control
//! file's state. Its implementation is split by job over the files above it (`residency`,
//! `flush`, `cleaner`, `evictor`, `prealloc`, `recovery`, and the format and header reads in
//! `mod.rs`), each adding an `impl Shared` block; this file names only the leaves its fields are
//! made of, so none of those jobs is below another through it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use super::config::{CheckpointHooks, PageStoreConfig};
use super::doublewrite::PageWriter;
use super::pool::Pool;
use super::signal::Signal;
use super::space::DataSpace;
use super::stats::StatsRegistry;
use crate::io::{Io, IoFile};
use crate::page::{PageId, SYSTEM_TREES};
use crate::wal::control::{ControlData, ControlFile};
use crate::wal::Wal;

/// The control file and the last contents written to it.
pub(crate) struct ControlState {
    pub(crate) file: ControlFile,
    pub(crate) last: ControlData,
}

/// Everything the page store shares with its cleaner thread.
pub(crate) struct Shared {
    pub(crate) io: Io,
    pub(crate) config: PageStoreConfig,
    pub(crate) pool: Pool,
    /// Frames the cleaner keeps free.
    pub(crate) reserve_frames: usize,
    /// How many overflow pages one mtr writes (bounded so that a huge value never latches a
    /// large part of a small pool).
    pub(crate) overflow_pages_per_mtr: usize,
    pub(crate) data: Arc<IoFile>,
    /// Serialises write-back batches (the doublewrite area holds one batch).
    pub(crate) writer: Mutex<PageWriter>,
    pub(crate) wal: OnceLock<Arc<Wal>>,
    pub(crate) hooks: OnceLock<Arc<dyn CheckpointHooks>>,
    pub(crate) control: Mutex<ControlState>,
    pub(crate) control_at_open: ControlData,
    pub(crate) is_new: bool,
    pub(crate) repaired_at_open: usize,
    pub(crate) system_roots: OnceLock<[PageId; SYSTEM_TREES]>,
    pub(crate) stats: StatsRegistry,
    /// Wakes the page cleaner (write-back, checkpoints).
    pub(crate) cleaner: Signal,
    /// Wakes the evictor (free frames).
    pub(crate) evictor: Signal,
    /// Set by the evictor when dirty pages keep it from its target: the cleaner writes the next
    /// victims back before anything else.
    pub(crate) flush_urgent: AtomicBool,
    /// Dirty, unreferenced frames the evictor's sweep passed over (its would-be victims): the
    /// cleaner writes them back first and frees those still untouched (`Shared::flush_victims`).
    pub(crate) victims: Mutex<Vec<u32>>,
    pub(crate) checkpoint_lsn: AtomicU64,
    pub(crate) checkpoints: AtomicU64,
    pub(crate) checkpoint_mutex: Mutex<()>,
    /// Test hook: the next write-back batch crashes (`Io::crash`) after its home writes, before
    /// their sync.
    pub(crate) crash_before_home_sync: AtomicBool,
    /// Salvage mode: torn home pages' intact doublewrite copies, served instead of the home page.
    pub(crate) salvage_images: HashMap<PageId, Vec<u8>>,
    /// Preallocation of the data file and its reserve.
    pub(crate) space: DataSpace,
}
