//! The page store: the tablespace file, the buffer pool (frames, hybrid latches, page table), the
//! page cleaner (free-frame reserve, write-back through the doublewrite area, checkpoints) and
//! the physical half of recovery (doublewrite repair, redo of page records).
//!
//! Sits on `io`, `wal` and the page formats (`crate::page`), below `mtr` and `btree`: it moves
//! pages between file and memory and knows the formats only to verify, bootstrap and redo them
//! (docs/architecture.md §4.1-4.4, 4.8).
//!
//! Module map, bottom to top (each names only modules before it in this list):
//! - leaves: `latch` (hybrid latch), `frame` (frame memory; the only raw-pointer reads),
//!   `page_table`, `stats` (per-thread counters), `redo` (redo record format and application),
//!   `config` (`PageStoreConfig`, `CheckpointHooks`), `signal` (wake-ups of background threads),
//!   `space` (the data file's allocation counters and the space reserve's numbers),
//!   `doublewrite` (the doublewrite area, its writer, repair at open), `pool` (frames, page
//!   table, free list, CLOCK hand, and the page handles `OptPage`/`XGuard`).
//! - `shared`: `Shared`, the state the page store shares with its threads, made of the leaves.
//! - the jobs, each adding an `impl Shared` block: `residency` (finding, loading, latching and
//!   evicting pages), `flush` (write-back through the doublewrite area, what a write-back error
//!   means), `prealloc` (growing the data file), `recovery` (redo of log entries), `cleaner`
//!   (background write-back, checkpoints), `evictor` (background producer of free frames).
//! - this file: `PageStore`, the entry type on top, and the tablespace format at creation.
//!
//! One struct whose implementation is split by job: the jobs call each other's methods on
//! `Shared` (method calls, not paths), so none of them imports another's file except to name a
//! leaf, and `shared.rs` names none of them.

mod cleaner;
mod config;
mod doublewrite;
mod evictor;
pub(crate) mod flush;
pub(crate) mod frame;
pub(crate) mod latch;
pub(crate) mod page_table;
pub(crate) mod pool;
mod prealloc;
mod recovery;
pub(crate) mod redo;
mod residency;
mod shared;
mod signal;
pub(crate) mod space;
mod stats;

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use parking_lot::Mutex;

use crate::error::{Result, StorageError};
use crate::io::{FileKind, Io};
use crate::wal::control::{ControlData, ControlFile};
use crate::wal::{LogEntry, Lsn, Wal, FIRST_LSN};

use self::doublewrite::PageWriter;
use self::pool::Pool;
use self::signal::Signal;
use self::stats::StatsRegistry;
use crate::page::node;
use crate::page::{self, get_u64, put_u32, put_u64, PageBytes};

pub use self::config::{CheckpointHooks, PageStoreConfig, MAX_FREE_RESERVE, MIN_POOL_FRAMES};
// Re-exported: callers above the pool name pages through it, as they did when the formats lived here.
pub use self::page_table::MAX_PAGE_COUNT;
pub(crate) use self::shared::{ControlState, Shared};
pub use crate::page::{PageId, PageType, FORMAT_VERSION, HEADER_PAGE, NO_PAGE, PAGE_SIZE, SYSTEM_TREES};

const DATA_FILE: &str = "data.sdb";
const DOUBLEWRITE_FILE: &str = "doublewrite.sdb";

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
    /// Pages evicted from the pool (by the cleaner or by user threads).
    pub evictions: u64,
    /// Times a user thread that took one of the last free frames topped the list up with clean
    /// pages (no I/O, no waiting; see `pool::take_free_frame`).
    pub eviction_assists: u64,
    pub checkpoint_lsn: Lsn,
    pub checkpoints: u64,
}

pub struct PageStore {
    shared: Arc<Shared>,
    /// The page cleaner and the evictor.
    threads: Mutex<Vec<JoinHandle<()>>>,
}

fn invalid(msg: String) -> StorageError {
    StorageError::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, msg))
}

impl PageStore {
    /// Opens or creates `dir/data.sdb` and `dir/doublewrite.sdb`, allocates the pool and repairs
    /// torn pages from the doublewrite area. For a new database, also formats page 0 and the
    /// system trees (logging nothing; the caller checkpoints right after). No background threads
    /// run until `start`.
    pub fn open(io: &Io, dir: &Path, config: PageStoreConfig) -> Result<Arc<PageStore>> {
        let frames = usize::try_from(config.pool_bytes / PAGE_SIZE as u64).unwrap_or(usize::MAX);
        if !(MIN_POOL_FRAMES..=page_table::MAX_FRAMES).contains(&frames) {
            return Err(invalid(format!(
                "buffer pool of {} bytes: must hold {MIN_POOL_FRAMES} to {} pages of {PAGE_SIZE} bytes",
                config.pool_bytes,
                page_table::MAX_FRAMES
            )));
        }
        if !(0.0..=MAX_FREE_RESERVE).contains(&config.free_reserve) {
            return Err(invalid(format!("free_reserve {} outside 0..={MAX_FREE_RESERVE}", config.free_reserve)));
        }
        std::fs::create_dir_all(dir)?;
        // Salvage opens what exists and creates nothing.
        let create = !config.read_only;
        let data = io.open_as(&dir.join(DATA_FILE), create, FileKind::Data, 0)?;
        let doublewrite = io.open_as(&dir.join(DOUBLEWRITE_FILE), create, FileKind::Doublewrite, 0)?;
        let (control_file, control) = ControlFile::open(io, dir)?;
        let mut repaired_at_open = 0;
        let mut salvage_images = HashMap::new();
        let (control_file, control, must_format) = match control {
            None if config.read_only => {
                return Err(StorageError::Corruption(format!("{} is missing", dir.join("selkie.ctl").display())));
            }
            None => {
                // A new database, unless the control file went missing: never format over data.
                let mut page0 = vec![0u8; PAGE_SIZE];
                data.read_at(&mut page0, 0)?;
                if page0.iter().any(|&b| b != 0) {
                    return Err(StorageError::Corruption(format!(
                        "{} is missing but {DATA_FILE} holds a tablespace",
                        dir.join("selkie.ctl").display()
                    )));
                }
                // Stale doublewrite copies must not be "repaired" into the new tablespace.
                data.set_len(0)?;
                doublewrite.set_len(0)?;
                doublewrite.sync_data()?;
                let c = ControlData {
                    format: FORMAT_VERSION,
                    checkpoint_lsn: FIRST_LSN,
                    scan_start_lsn: FIRST_LSN,
                    next_trx_id: 1,
                    extra: Vec::new(),
                };
                drop(control_file);
                let file = ControlFile::create(io, dir, &c)?;
                (file, c, true)
            }
            Some(c) => {
                if c.format != FORMAT_VERSION {
                    return Err(StorageError::Corruption(format!(
                        "data directory format {} (expected {FORMAT_VERSION})",
                        c.format
                    )));
                }
                if config.read_only {
                    salvage_images = doublewrite::doublewrite_repairs(&doublewrite, &data)?.into_iter().collect();
                    repaired_at_open = salvage_images.len();
                } else {
                    repaired_at_open = doublewrite::repair_from_doublewrite(&doublewrite, &data)?;
                }
                let mut page0 = vec![0u8; PAGE_SIZE];
                match salvage_images.get(&HEADER_PAGE) {
                    Some(copy) => page0.copy_from_slice(copy),
                    None => data.read_at(&mut page0, 0)?,
                }
                page::verify(&page0, HEADER_PAGE).map_err(StorageError::Corruption)?;
                let unformatted = page0.iter().all(|&b| b == 0);
                // A crash while creating the database leaves the control file and no header.
                if unformatted && c.checkpoint_lsn != FIRST_LSN {
                    return Err(StorageError::Corruption("the tablespace header (page 0) was never written".into()));
                }
                (control_file, c, unformatted)
            }
        };
        let reserve_frames = ((frames as f64) * config.free_reserve).ceil() as usize;
        let data_pages = data.len()? / PAGE_SIZE as u64;
        let shared = Arc::new(Shared {
            io: io.clone(),
            reserve_frames: reserve_frames.min(frames / 2),
            overflow_pages_per_mtr: (frames / 8).clamp(1, 32),
            config,
            pool: Pool::new(frames),
            data,
            writer: Mutex::new(PageWriter::new(doublewrite)),
            wal: OnceLock::new(),
            hooks: OnceLock::new(),
            control: Mutex::new(ControlState { file: control_file, last: control.clone() }),
            checkpoint_lsn: AtomicU64::new(control.checkpoint_lsn),
            control_at_open: control,
            is_new: must_format,
            repaired_at_open,
            system_roots: OnceLock::new(),
            stats: StatsRegistry::new(),
            cleaner: Signal::new(),
            evictor: Signal::new(),
            flush_urgent: AtomicBool::new(false),
            victims: Mutex::new(Vec::new()),
            checkpoints: AtomicU64::new(0),
            checkpoint_mutex: Mutex::new(()),
            crash_before_home_sync: AtomicBool::new(false),
            space: space::DataSpace::new(data_pages),
            salvage_images,
        });
        if must_format {
            shared.format()?;
        }
        let roots = shared.read_tablespace_header()?;
        if !shared.config.read_only {
            shared.preallocate_at_open()?;
        }
        shared.system_roots.set(roots).expect("roots set once");
        Ok(Arc::new(PageStore { shared, threads: Mutex::new(Vec::new()) }))
    }

    /// The control file contents read by `open` (for a new database: checkpoint and scan start at
    /// `wal::FIRST_LSN`, next_trx_id 1). `open` opens or creates `dir/selkie.ctl`; the page
    /// cleaner rewrites it at every checkpoint.
    pub fn control_at_open(&self) -> crate::wal::control::ControlData {
        self.shared.control_at_open.clone()
    }

    /// True if `open` created a new, empty tablespace.
    pub fn is_new(&self) -> bool {
        self.shared.is_new
    }

    /// Recovery: applies the page records of one log entry (each page only if its
    /// `page_lsn < entry.end`) and passes every logical record in it to `on_logical`.
    ///
    /// `on_logical` gets the entry's start LSN (the value `Mtr::commit` returned as start).
    pub fn redo_entry(&self, entry: &LogEntry, on_logical: &mut dyn FnMut(Lsn, &[u8])) -> Result<()> {
        self.shared.redo_entry(entry, on_logical)
    }

    /// Attaches the log (mtrs can commit from now on) and starts the page cleaner.
    pub fn start(self: &Arc<Self>, wal: Arc<Wal>, hooks: Arc<dyn CheckpointHooks>) -> Result<()> {
        if self.shared.wal.set(wal).is_err() {
            return Err(invalid("PageStore::start called twice".into()));
        }
        let _ = self.shared.hooks.set(hooks);
        self.wal().set_checkpoint_lsn(self.shared.checkpoint_lsn.load(Ordering::Acquire));
        let mut threads = self.threads.lock();
        if !self.shared.config.read_only {
            let shared = self.shared.clone();
            threads
                .push(std::thread::Builder::new().name("selkie-cleaner".into()).spawn(move || cleaner::run(shared))?);
        }
        let shared = self.shared.clone();
        threads.push(std::thread::Builder::new().name("selkie-evictor".into()).spawn(move || evictor::run(shared))?);
        Ok(())
    }

    /// Flushes all dirty pages and writes a checkpoint now (end of recovery, shutdown).
    pub fn checkpoint_now(&self) -> Result<Lsn> {
        self.shared.checkpoint(true)
    }

    /// Root page of system tree `n` (< SYSTEM_TREES).
    pub fn system_tree_root(&self, n: usize) -> PageId {
        assert!(n < SYSTEM_TREES, "system tree {n} does not exist");
        self.shared.system_roots.get().expect("set by open")[n]
    }

    /// The log attached by `start`. Panics before `start` (a caller bug: there is no log yet).
    pub fn wal(&self) -> &Arc<Wal> {
        self.shared.wal.get().expect("PageStore::wal called before PageStore::start")
    }

    pub fn stats(&self) -> BufferStats {
        let s = &self.shared;
        let totals = s.stats.totals();
        BufferStats {
            frames: s.pool.frames.len() as u64,
            free_frames: s.pool.free_len() as u64,
            dirty_frames: s.pool.frames.iter().filter(|f| f.is_dirty()).count() as u64,
            page_reads: totals.page_reads,
            page_writes: totals.page_writes,
            free_frame_waits: totals.free_frame_waits,
            evictions: totals.evictions,
            eviction_assists: totals.eviction_assists,
            checkpoint_lsn: s.checkpoint_lsn.load(Ordering::Acquire),
            checkpoints: s.checkpoints.load(Ordering::Relaxed),
        }
    }

    /// Checkpoints and stops the cleaner.
    pub fn shutdown(&self) -> Result<()> {
        let result = if self.shared.config.read_only { Ok(()) } else { self.checkpoint_now().map(|_| ()) };
        self.stop_cleaner();
        result
    }

    /// Salvage mode (`PageStoreConfig::read_only`): nothing is ever written.
    pub fn is_read_only(&self) -> bool {
        self.shared.config.read_only
    }

    /// Stops the background thread without flushing anything (in-process crash tests: call after
    /// `Io::crash`, then drop the store and reopen).
    pub fn crash_stop(&self) {
        self.stop_cleaner();
    }

    fn stop_cleaner(&self) {
        self.shared.cleaner.request_stop();
        self.shared.evictor.request_stop();
        for handle in self.threads.lock().drain(..) {
            let name = handle.thread().name().unwrap_or("page store").to_string();
            if handle.join().is_err() {
                tracing::error!("{name} thread panicked");
            }
        }
    }

    /// Makes sure `pages` more pages can be allocated past the end of the tablespace without
    /// touching the space reserve, growing the data file now if needed: `TableFull` if the disk
    /// has no room. A statement checks this before it changes anything, so that lack of space
    /// fails it cleanly (allocation checks again, as other statements compete for the space).
    pub fn ensure_free_space(&self, pages: u64) -> Result<()> {
        let count = self.shared.space.page_count();
        self.shared.ensure_room(count.saturating_add(pages), false)
    }

    /// Pages of the data file allocated on disk (the tablespace, its reserve and the extent
    /// grown ahead of need).
    pub fn allocated_pages(&self) -> u64 {
        self.shared.space.allocated()
    }

    /// Pages in the tablespace (free ones included): the data file's logical size.
    pub fn tablespace_pages(&self) -> Result<u64> {
        let mut p = vec![0u8; PAGE_SIZE];
        self.shared.read_copy(HEADER_PAGE, &mut p)?;
        Ok(get_u64(&p, page::OFF_PAGE_COUNT))
    }

    /// The pages on the tablespace free list, in list order (space accounting: the store must
    /// not allocate or free meanwhile). Errors on a cycle or a page that is not free.
    pub fn free_list_pages(&self) -> Result<Vec<PageId>> {
        let mut p = vec![0u8; PAGE_SIZE];
        self.shared.read_copy(HEADER_PAGE, &mut p)?;
        let count = get_u64(&p, page::OFF_PAGE_COUNT);
        let mut pid = get_u64(&p, page::OFF_FREE_HEAD);
        let mut out = Vec::new();
        while pid != NO_PAGE {
            if pid >= count || out.len() as u64 >= count {
                return Err(StorageError::Corruption(format!("free list: page {pid} out of range or a cycle")));
            }
            self.shared.read_copy(pid, &mut p)?;
            if !matches!(p.page_type(), Ok(PageType::Free) | Ok(PageType::Overflow) | Ok(PageType::Undo)) {
                return Err(StorageError::Corruption(format!("free list: page {pid} is not free")));
            }
            out.push(pid);
            pid = get_u64(&p, page::OFF_NEXT);
        }
        Ok(out)
    }

    /// Test hook: the next write-back batch simulates a power failure (`Io::crash`) after
    /// writing its pages home and before syncing them; with torn page writes this leaves torn
    /// pages for the next `open` to repair.
    pub fn crash_before_next_home_sync(&self) {
        self.shared.crash_before_home_sync.store(true, Ordering::SeqCst);
    }

    /// Torn pages that `open` restored from the doublewrite area.
    pub fn repaired_at_open(&self) -> usize {
        self.shared.repaired_at_open
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.shared
    }
}

impl Drop for PageStore {
    fn drop(&mut self) {
        self.stop_cleaner();
    }
}

impl Shared {
    /// Writes the header page and the empty roots of the system trees of a new tablespace.
    fn format(&self) -> Result<()> {
        let mut images = Vec::with_capacity(1 + SYSTEM_TREES);
        let mut header = vec![0u8; PAGE_SIZE];
        header[page::OFF_TYPE] = PageType::TablespaceHeader as u8;
        put_u64(&mut header, page::OFF_PAGE_ID, HEADER_PAGE);
        put_u64(&mut header, page::OFF_MAGIC, page::TABLESPACE_MAGIC);
        put_u32(&mut header, page::OFF_FORMAT, FORMAT_VERSION);
        put_u64(&mut header, page::OFF_PAGE_COUNT, 1 + SYSTEM_TREES as u64);
        put_u64(&mut header, page::OFF_FREE_HEAD, NO_PAGE);
        for n in 0..SYSTEM_TREES {
            let root = 1 + n as PageId;
            put_u64(&mut header, page::OFF_SYSTEM_ROOTS + 8 * n, root);
            let mut leaf = vec![0u8; PAGE_SIZE];
            node::init(&mut leaf, root, PageType::Leaf, 0, NO_PAGE);
            images.push((root, leaf));
        }
        // The header last: a tablespace with a header always has its system trees.
        images.push((HEADER_PAGE, header));
        self.write_images(&images)
    }

    fn read_tablespace_header(&self) -> Result<[PageId; SYSTEM_TREES]> {
        let mut p = vec![0u8; PAGE_SIZE];
        self.read_copy(HEADER_PAGE, &mut p)?;
        let bad = |what: &str| StorageError::Corruption(format!("tablespace header: {what}"));
        if p.page_type() != Ok(PageType::TablespaceHeader) || get_u64(&p, page::OFF_MAGIC) != page::TABLESPACE_MAGIC {
            return Err(bad("not a Selkie tablespace"));
        }
        if p.u32_at(page::OFF_FORMAT) != Ok(FORMAT_VERSION) {
            return Err(bad("unknown format version"));
        }
        let count = get_u64(&p, page::OFF_PAGE_COUNT);
        let mut roots = [NO_PAGE; SYSTEM_TREES];
        for (n, root) in roots.iter_mut().enumerate() {
            *root = get_u64(&p, page::OFF_SYSTEM_ROOTS + 8 * n);
            if *root == NO_PAGE || *root >= count {
                return Err(bad("system tree root out of range"));
            }
        }
        Ok(roots)
    }
}
