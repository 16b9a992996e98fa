//! File I/O for every engine file, with optional power-failure simulation.
//!
//! The bottom of the crate's floor plan (only `error` and `types` are below it): every engine file
//! (data, doublewrite, control, redo segments) goes through `IoFile`, so the fault injection of `FaultInjection` applies to all of
//! them: with `lose_unsynced_writes`, writes stay in process memory until `sync_data`, so a SIGKILL
//! loses exactly what a power failure would lose; with `torn_page_writes`, some writes of a full
//! page are made durable halfway at write time, leaving a torn page if the process dies before the
//! sync.
//!
//! Normal mode is plain `pread`/`pwrite`/`fdatasync` on a shared `File`, so any number of threads
//! may read and write different offsets of one file at once. Files are opened with `O_CLOEXEC`
//! (a forked child must not keep the data files open) and without `O_DIRECT`: the OS page cache
//! is simpler to live with, and the buffer pool already keeps the hot pages.
//!
//! Power-failure simulation (`lose_unsynced_writes`): each file keeps an *overlay* of unsynced
//! writes (non-overlapping extents keyed by offset) under a mutex. Reads see the overlay on top of
//! the OS file; `sync_data` writes the overlay to the OS file and then fdatasyncs it. Killing the
//! process therefore loses every write not followed by a completed sync, as a power cut would.
//! Limits of the model: file creation, deletion, renames and `set_len` reach the OS at once (the
//! engine makes them durable with `sync_dir`/`sync_all` right after, and never relies on one
//! being lost), and the overlay costs memory until the next sync (test mode only).
//!
//! Torn writes (`torn_page_writes`, meaningful together with `lose_unsynced_writes`): a write of
//! at least `TORN_WRITE_MIN` bytes is, with probability 1/`TORN_WRITE_ODDS`, also written *halfway*
//! to the OS file at once: its first half, rounded down to a 512-byte sector. The whole write
//! still sits in the overlay, so reads and a later sync see it complete; only a crash before the
//! sync leaves the torn image (new first half, old second half) on disk. `write_page` (the page
//! cleaner's home writes) always tears in this mode, and the cleaner then waits
//! `TORN_SYNC_DELAY` before its sync, so a crash test that kills the process at a random moment
//! regularly finds torn pages for the doublewrite repair to fix.
//!
//! `Io::crash` simulates the power cut inside one process: after it returns no operation through
//! this `Io` reaches the OS any more and every unsynced write is gone.
//!
//! Injected faults (`Io::inject`, tests only): a chosen operation (read, write, sync, extend) on a
//! chosen kind of file (`FileKind`), at a chosen position range, fails with EIO or ENOSPC, or is a
//! short write (its first half, rounded down to a sector, reaches the file, then EIO). A fault
//! fires on the Nth matching operation, on several, or on every one until cleared. Positions are
//! byte offsets, except in log segments, where they are LSNs (a segment opened with `open_as`
//! knows the LSN of its first byte), so a test can name "the write of LSN x" or "page p". In
//! power-failure mode a failed sync also drops the file's unsynced writes, as Linux drops the
//! dirty pages of a failed writeback (the fsyncgate lesson: a later successful fsync proves
//! nothing about them). With nothing armed the cost is one relaxed load per operation.
//!
//! Space: `allocate` reserves blocks for real (fallocate), so a write inside an allocated
//! range cannot fail for lack of space; `set_len` only changes the size (sparse).

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::ops::Range;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use rand::Rng;

use crate::types::FaultInjection;

/// Smallest write that may be torn: one 4 KiB block (page-sized writes are what tear).
pub const TORN_WRITE_MIN: usize = 4096;
/// A write of at least `TORN_WRITE_MIN` bytes is torn with probability 1 / `TORN_WRITE_ODDS`.
pub const TORN_WRITE_ODDS: u32 = 4;
/// Granularity at which a torn write stops: the disk sector.
pub const SECTOR_SIZE: usize = 512;
/// Torn-write mode: how long the page cleaner leaves a batch's torn home writes unsynced, so that
/// a kill at a random moment lands in that window often (test mode only).
pub const TORN_SYNC_DELAY: std::time::Duration = std::time::Duration::from_millis(20);

/// Which engine file an `IoFile` is, so that an injected fault can target one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// The tablespace `data.sdb`.
    Data,
    /// `doublewrite.sdb`.
    Doublewrite,
    /// The control file (and its temporary file while it is created).
    Control,
    /// A redo log segment (positions are LSNs).
    LogSegment,
    /// Anything else (temporary files).
    Other,
}

/// The file operation an injected fault fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoOp {
    Read,
    Write,
    /// `sync_data` or `sync_all` (positions: the whole file).
    Sync,
    /// Growing the file: `allocate`, or `set_len` past the current end.
    Extend,
}

/// What an injected fault does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultError {
    /// EIO: nothing is read or written.
    Eio,
    /// ENOSPC: nothing is written or allocated.
    NoSpace,
    /// A write whose first half (rounded down to a 512-byte sector) reaches the file, then EIO.
    /// Other operations fail with plain EIO.
    ShortWrite,
}

/// One injected fault (tests only): see the module comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoFault {
    pub kind: FileKind,
    pub op: IoOp,
    /// Positions the operation must touch (byte offsets; LSNs in log segments).
    pub range: Range<u64>,
    pub error: FaultError,
    /// Matching operations that succeed before the first failure (0: the first one fails).
    pub skip: u64,
    /// How many matching operations fail before the fault disarms itself; `None`: every one
    /// until `Io::clear_fault`.
    pub times: Option<u64>,
}

impl IoFault {
    /// Every `op` on a file of `kind` fails with `error`, anywhere, until cleared.
    pub fn new(kind: FileKind, op: IoOp, error: FaultError) -> IoFault {
        IoFault { kind, op, range: 0..u64::MAX, error, skip: 0, times: None }
    }

    /// Only operations touching `range` match.
    pub fn at(mut self, range: Range<u64>) -> IoFault {
        self.range = range;
        self
    }

    /// The `n`th matching operation (1-based) fails, and only it.
    pub fn nth(mut self, n: u64) -> IoFault {
        self.skip = n.saturating_sub(1);
        self.times = Some(1);
        self
    }

    /// `n` matching operations fail (after `skip`), then the fault disarms itself.
    pub fn times(mut self, n: u64) -> IoFault {
        self.times = Some(n);
        self
    }
}

/// Handle of an injected fault, for `Io::clear_fault` and `Io::fault_hits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FaultId(u64);

struct ArmedFault {
    id: FaultId,
    fault: IoFault,
    /// Matching operations seen so far.
    seen: u64,
    /// Matching operations failed so far.
    fired: u64,
}

/// True for "no space left on device", injected or real.
pub fn is_no_space(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(libc::ENOSPC) || e.kind() == std::io::ErrorKind::StorageFull
}

fn eio() -> std::io::Error {
    std::io::Error::from_raw_os_error(libc::EIO)
}

/// Shared I/O configuration and state (fault injection mode, the set of open files for `crash`).
/// Cheap to clone; clones share state.
#[derive(Clone)]
pub struct Io {
    shared: Arc<IoShared>,
}

struct IoShared {
    fault: FaultInjection,
    crashed: AtomicBool,
    /// Operations under way that may change an OS file. `crash` waits for zero, so that nothing
    /// reaches the disk after it returns (an in-flight write either finished before the "power
    /// cut" or never started).
    in_flight: AtomicUsize,
    /// Every file opened through this `Io`, so that `crash` can drop their unsynced writes.
    files: Mutex<Vec<Weak<IoFile>>>,
    /// True while `faults` is not empty: the only thing the normal path looks at.
    faults_armed: AtomicBool,
    faults: Mutex<Vec<ArmedFault>>,
    /// Failures of cleared or exhausted faults, per id, for `fault_hits`.
    fault_hits: Mutex<Vec<(FaultId, u64)>>,
    next_fault_id: AtomicU64,
}

pub struct IoFile {
    file: File,
    shared: Arc<IoShared>,
    /// Unsynced writes; `Some` only with `lose_unsynced_writes`.
    overlay: Option<Mutex<Overlay>>,
    kind: FileKind,
    /// Position of the file's first byte for fault matching (the LSN a log segment starts at).
    base: u64,
}

/// Marks one OS-modifying operation as in flight for the lifetime of the guard.
struct InFlight<'a>(&'a IoShared);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

fn crashed_error() -> std::io::Error {
    std::io::Error::other("simulated crash: this Io is no longer usable")
}

impl IoShared {
    fn check_alive(&self) -> std::io::Result<()> {
        if self.crashed.load(Ordering::Acquire) {
            return Err(crashed_error());
        }
        Ok(())
    }

    /// Registers an operation that may change a file. The increment comes before the crash check
    /// (both SeqCst) so that `crash`, which sets the flag before reading the counter, either sees
    /// this operation in flight or this operation sees the flag.
    fn begin_change(&self) -> std::io::Result<InFlight<'_>> {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        let guard = InFlight(self);
        if self.crashed.load(Ordering::SeqCst) {
            return Err(crashed_error());
        }
        Ok(guard)
    }
}

impl IoShared {
    /// The fault `op` on `[start, end)` of a file of `kind` hits, if any (slow path: only
    /// called while faults are armed). Counts the match and disarms exhausted faults.
    fn take_fault(&self, kind: FileKind, op: IoOp, start: u64, end: u64) -> Option<FaultError> {
        let mut faults = self.faults.lock();
        let mut hit = None;
        let mut exhausted = None;
        for (i, armed) in faults.iter_mut().enumerate() {
            let f = &armed.fault;
            if f.kind != kind || f.op != op || start >= f.range.end || end.max(start + 1) <= f.range.start {
                continue;
            }
            armed.seen += 1;
            if armed.seen <= f.skip {
                continue;
            }
            armed.fired += 1;
            hit = Some(f.error);
            if f.times.is_some_and(|t| armed.fired >= t) {
                exhausted = Some(i);
            }
            break;
        }
        if let Some(i) = exhausted {
            let armed = faults.swap_remove(i);
            self.fault_hits.lock().push((armed.id, armed.fired));
            self.faults_armed.store(!faults.is_empty(), Ordering::Release);
        }
        hit
    }
}

impl Io {
    pub fn new(fault: FaultInjection) -> Io {
        Io {
            shared: Arc::new(IoShared {
                fault,
                crashed: AtomicBool::new(false),
                in_flight: AtomicUsize::new(0),
                files: Mutex::new(Vec::new()),
                faults_armed: AtomicBool::new(false),
                faults: Mutex::new(Vec::new()),
                fault_hits: Mutex::new(Vec::new()),
                next_fault_id: AtomicU64::new(1),
            }),
        }
    }

    /// Test hook: arms `fault` on every file of this `Io` (and its clones), open or opened later.
    pub fn inject(&self, fault: IoFault) -> FaultId {
        let id = FaultId(self.shared.next_fault_id.fetch_add(1, Ordering::Relaxed));
        let mut faults = self.shared.faults.lock();
        faults.push(ArmedFault { id, fault, seen: 0, fired: 0 });
        self.shared.faults_armed.store(true, Ordering::Release);
        id
    }

    /// Test hook: disarms one fault (a no-op if it already disarmed itself).
    pub fn clear_fault(&self, id: FaultId) {
        let mut faults = self.shared.faults.lock();
        if let Some(i) = faults.iter().position(|a| a.id == id) {
            let armed = faults.swap_remove(i);
            self.shared.fault_hits.lock().push((armed.id, armed.fired));
        }
        self.shared.faults_armed.store(!faults.is_empty(), Ordering::Release);
    }

    /// Test hook: disarms every fault.
    pub fn clear_faults(&self) {
        let mut faults = self.shared.faults.lock();
        let mut hits = self.shared.fault_hits.lock();
        hits.extend(faults.drain(..).map(|a| (a.id, a.fired)));
        self.shared.faults_armed.store(false, Ordering::Release);
    }

    /// Test hook: how many operations fault `id` has failed so far.
    pub fn fault_hits(&self, id: FaultId) -> u64 {
        if let Some(armed) = self.shared.faults.lock().iter().find(|a| a.id == id) {
            return armed.fired;
        }
        self.shared.fault_hits.lock().iter().find(|(i, _)| *i == id).map_or(0, |(_, n)| *n)
    }

    pub fn fault(&self) -> FaultInjection {
        self.shared.fault
    }

    /// Test hook: simulates a power failure inside this process. Every file opened through this
    /// `Io` (or a clone) drops its unsynced writes (when `lose_unsynced_writes`), and every later
    /// write or sync through them fails with an error, as if the process were gone. Background
    /// threads that see such an error must stop quietly (no panic).
    pub fn crash(&self) {
        self.shared.crashed.store(true, Ordering::SeqCst);
        // Operations that passed their crash check before the flag was set finish first; they
        // happened "before the power cut". New ones fail.
        while self.shared.in_flight.load(Ordering::SeqCst) != 0 {
            std::thread::yield_now();
        }
        let files: Vec<Arc<IoFile>> = self.shared.files.lock().iter().filter_map(Weak::upgrade).collect();
        for file in files {
            if let Some(overlay) = &file.overlay {
                overlay.lock().extents.clear();
            }
        }
    }

    pub fn is_crashed(&self) -> bool {
        self.shared.crashed.load(Ordering::Acquire)
    }

    /// Opens a file for reading and writing, creating it if `create` (kind `Other`).
    pub fn open(&self, path: &Path, create: bool) -> std::io::Result<Arc<IoFile>> {
        self.open_as(path, create, FileKind::Other, 0)
    }

    /// Opens a file of `kind` whose first byte is at position `base` for fault matching (the
    /// LSN a log segment starts at; 0 for the others).
    pub fn open_as(&self, path: &Path, create: bool, kind: FileKind, base: u64) -> std::io::Result<Arc<IoFile>> {
        let _guard = self.shared.begin_change()?;
        let file = OpenOptions::new().read(true).write(true).create(create).custom_flags(libc::O_CLOEXEC).open(path)?;
        let overlay = self.shared.fault.lose_unsynced_writes.then(|| Mutex::new(Overlay::default()));
        let io_file = Arc::new(IoFile { file, shared: Arc::clone(&self.shared), overlay, kind, base });
        let mut files = self.shared.files.lock();
        files.retain(|f| f.strong_count() > 0);
        files.push(Arc::downgrade(&io_file));
        Ok(io_file)
    }

    /// fsync of a directory (after creating or deleting files in it).
    pub fn sync_dir(&self, dir: &Path) -> std::io::Result<()> {
        let _guard = self.shared.begin_change()?;
        File::open(dir)?.sync_all()
    }

    /// Deletes a file (not durable until `sync_dir` of its directory). Fails after `crash`.
    pub fn remove_file(&self, path: &Path) -> std::io::Result<()> {
        let _guard = self.shared.begin_change()?;
        std::fs::remove_file(path)
    }

    /// Renames a file atomically (not durable until `sync_dir`). Fails after `crash`.
    pub fn rename(&self, from: &Path, to: &Path) -> std::io::Result<()> {
        let _guard = self.shared.begin_change()?;
        std::fs::rename(from, to)
    }

    /// Creates a directory and its missing parents (not durable until `sync_dir` of the parent).
    pub fn create_dir_all(&self, dir: &Path) -> std::io::Result<()> {
        let _guard = self.shared.begin_change()?;
        std::fs::create_dir_all(dir)
    }
}

impl IoFile {
    /// Reads exactly `buf.len()` bytes at `offset`; bytes past the end of the file read as zero.
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        self.shared.check_alive()?;
        if self.shared.faults_armed.load(Ordering::Relaxed) {
            self.fail_if_injected(IoOp::Read, offset, buf.len() as u64)?;
        }
        match &self.overlay {
            None => self.read_os(buf, offset),
            Some(overlay) => {
                // Held across the OS read so that a concurrent sync cannot move an extent from the
                // overlay to the file between the two reads (which would hide it from us).
                let overlay = overlay.lock();
                self.read_os(buf, offset)?;
                overlay.copy_into(buf, offset);
                Ok(())
            }
        }
    }

    pub fn write_at(&self, buf: &[u8], offset: u64) -> std::io::Result<()> {
        offset.checked_add(buf.len() as u64).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "write past the largest file offset")
        })?;
        if self.shared.faults_armed.load(Ordering::Relaxed) {
            self.injected_write(buf, offset)?;
        }
        let _guard = self.shared.begin_change()?;
        match &self.overlay {
            None => self.file.write_all_at(buf, offset),
            Some(overlay) => {
                let mut overlay = overlay.lock();
                if self.shared.fault.torn_page_writes
                    && buf.len() >= TORN_WRITE_MIN
                    && rand::thread_rng().gen_ratio(1, TORN_WRITE_ODDS)
                {
                    let half = (buf.len() / 2) / SECTOR_SIZE * SECTOR_SIZE;
                    self.file.write_all_at(&buf[..half], offset)?;
                }
                overlay.insert(offset, buf);
                Ok(())
            }
        }
    }

    /// A page write (the page cleaner's home writes). In torn-write mode it is always torn until
    /// the next sync: its first half reaches the OS file at once, the whole of it only at the
    /// sync. Otherwise the same as `write_at`.
    pub fn write_page(&self, buf: &[u8], offset: u64) -> std::io::Result<()> {
        if !self.shared.fault.torn_page_writes || self.overlay.is_none() {
            return self.write_at(buf, offset);
        }
        offset.checked_add(buf.len() as u64).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "write past the largest file offset")
        })?;
        if self.shared.faults_armed.load(Ordering::Relaxed) {
            self.injected_write(buf, offset)?;
        }
        let _guard = self.shared.begin_change()?;
        let mut overlay = self.overlay.as_ref().expect("checked above").lock();
        let half = (buf.len() / 2) / SECTOR_SIZE * SECTOR_SIZE;
        self.file.write_all_at(&buf[..half], offset)?;
        overlay.insert(offset, buf);
        Ok(())
    }

    /// Whether `write_page` tears (torn-write mode with unsynced writes kept in memory).
    pub fn tears_pages(&self) -> bool {
        self.shared.fault.torn_page_writes && self.overlay.is_some()
    }

    /// fdatasync: every write before it is durable when it returns.
    pub fn sync_data(&self) -> std::io::Result<()> {
        let _guard = self.shared.begin_change()?;
        if self.shared.faults_armed.load(Ordering::Relaxed) {
            self.injected_sync()?;
        }
        self.apply_overlay()?;
        self.file.sync_data()
    }

    /// fsync: like `sync_data`, and all metadata too. For size changes that must be durable
    /// even where the final size equals the old one (a truncate followed by an extend), where
    /// fdatasync is not guaranteed to persist the freed blocks.
    pub fn sync_all(&self) -> std::io::Result<()> {
        let _guard = self.shared.begin_change()?;
        if self.shared.faults_armed.load(Ordering::Relaxed) {
            self.injected_sync()?;
        }
        self.apply_overlay()?;
        self.file.sync_all()
    }

    /// Moves the unsynced writes into the OS file (lose_unsynced mode; no-op otherwise).
    fn apply_overlay(&self) -> std::io::Result<()> {
        if let Some(overlay) = &self.overlay {
            let mut overlay = overlay.lock();
            // Written while still in the overlay, so readers see the data in one place or the
            // other at every moment; removed only once it is in the OS file.
            for (&offset, data) in &overlay.extents {
                self.file.write_all_at(data, offset)?;
            }
            overlay.extents.clear();
        }
        Ok(())
    }

    pub fn len(&self) -> std::io::Result<u64> {
        self.shared.check_alive()?;
        let os_len = self.file.metadata()?.len();
        Ok(match &self.overlay {
            None => os_len,
            Some(overlay) => os_len.max(overlay.lock().end()),
        })
    }

    pub fn is_empty(&self) -> std::io::Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Sets the file's size. Growing it this way allocates nothing (the new range is a hole):
    /// use `allocate` where later writes must not fail for lack of space.
    pub fn set_len(&self, len: u64) -> std::io::Result<()> {
        if self.shared.faults_armed.load(Ordering::Relaxed) {
            let old = self.len()?;
            if len > old {
                self.fail_if_injected(IoOp::Extend, old, len - old)?;
            }
        }
        let _guard = self.shared.begin_change()?;
        match &self.overlay {
            None => self.file.set_len(len),
            Some(overlay) => {
                let mut overlay = overlay.lock();
                self.file.set_len(len)?;
                overlay.truncate(len);
                Ok(())
            }
        }
    }

    /// Reserves disk blocks for `[offset, offset + len)` (fallocate), growing the file if it
    /// ends before; existing bytes are never touched. Afterwards, writes inside the range need
    /// no new space; ENOSPC shows here instead. Not durable until `sync_all` (the size is
    /// metadata). Reaches the OS at once in power-failure mode too (like `set_len`).
    ///
    /// The fallocate system call, not glibc's posix_fallocate: where a filesystem lacks it,
    /// that one emulates it by writing into the file, which must not race with our own writes.
    /// There the file is only extended (sparse), as before preallocation existed.
    pub fn allocate(&self, offset: u64, len: u64) -> std::io::Result<()> {
        if len == 0 {
            return Ok(());
        }
        let end = offset.checked_add(len).filter(|&e| e <= i64::MAX as u64).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "allocation past the largest file offset")
        })?;
        if self.shared.faults_armed.load(Ordering::Relaxed) {
            self.fail_if_injected(IoOp::Extend, offset, end - offset)?;
        }
        let _guard = self.shared.begin_change()?;
        loop {
            // SAFETY: fallocate only reads its integer arguments; the descriptor is ours and open
            // for the lifetime of `self.file`.
            let rc = unsafe { libc::fallocate(self.file.as_raw_fd(), 0, offset as libc::off_t, len as libc::off_t) };
            if rc == 0 {
                return Ok(());
            }
            let e = std::io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EOPNOTSUPP) => {
                    if self.file.metadata()?.len() < end {
                        self.file.set_len(end)?;
                    }
                    return Ok(());
                }
                _ => return Err(e),
            }
        }
    }

    /// Bytes of disk blocks the file holds (less than `len` for a sparse file).
    pub fn allocated_bytes(&self) -> std::io::Result<u64> {
        use std::os::unix::fs::MetadataExt;
        self.shared.check_alive()?;
        Ok(self.file.metadata()?.blocks() * 512)
    }

    pub fn kind(&self) -> FileKind {
        self.kind
    }

    /// The injected fault for `op` on `[offset, offset + len)`, as the error to return.
    fn fail_if_injected(&self, op: IoOp, offset: u64, len: u64) -> std::io::Result<()> {
        let start = self.base.saturating_add(offset);
        match self.shared.take_fault(self.kind, op, start, start.saturating_add(len)) {
            None => Ok(()),
            Some(FaultError::NoSpace) => Err(std::io::Error::from_raw_os_error(libc::ENOSPC)),
            Some(FaultError::Eio | FaultError::ShortWrite) => Err(eio()),
        }
    }

    /// Applies an injected write fault, if one matches: nothing written (EIO, ENOSPC), or the
    /// first half written and then EIO (a short write).
    fn injected_write(&self, buf: &[u8], offset: u64) -> std::io::Result<()> {
        let start = self.base.saturating_add(offset);
        match self.shared.take_fault(self.kind, IoOp::Write, start, start.saturating_add(buf.len() as u64)) {
            None => Ok(()),
            Some(FaultError::NoSpace) => Err(std::io::Error::from_raw_os_error(libc::ENOSPC)),
            Some(FaultError::Eio) => Err(eio()),
            Some(FaultError::ShortWrite) => {
                let half = (buf.len() / 2) / SECTOR_SIZE * SECTOR_SIZE;
                if half > 0 {
                    let _guard = self.shared.begin_change()?;
                    match &self.overlay {
                        None => self.file.write_all_at(&buf[..half], offset)?,
                        Some(overlay) => overlay.lock().insert(offset, &buf[..half]),
                    }
                }
                Err(eio())
            }
        }
    }

    /// Applies an injected sync fault, if one matches. In power-failure mode the unsynced writes
    /// are dropped too: after a failed fsync the kernel may have thrown the dirty pages away.
    fn injected_sync(&self) -> std::io::Result<()> {
        let len = self.len().unwrap_or(0).max(1);
        if self.shared.take_fault(self.kind, IoOp::Sync, self.base, self.base.saturating_add(len)).is_none() {
            return Ok(());
        }
        if let Some(overlay) = &self.overlay {
            overlay.lock().extents.clear();
        }
        Err(eio())
    }

    /// pread until `buf` is full; what lies past the end of the file reads as zeros.
    fn read_os(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        let mut done = 0;
        while done < buf.len() {
            match self.file.read_at(&mut buf[done..], offset + done as u64) {
                Ok(0) => {
                    buf[done..].fill(0);
                    break;
                }
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// Unsynced writes of one file: non-overlapping extents keyed by start offset. A later write
/// replaces the overlapped parts of earlier ones; contiguous writes are merged into one extent
/// (the log writes sequentially, so its overlay stays one extent per sync interval).
#[derive(Default)]
struct Overlay {
    extents: BTreeMap<u64, Vec<u8>>,
}

impl Overlay {
    fn insert(&mut self, offset: u64, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        let end = offset + data.len() as u64;
        // Extents are disjoint and sorted, so their ends are sorted too: walking back from the
        // last one that starts before `end`, the overlapping ones come first.
        let overlapping: Vec<u64> = self
            .extents
            .range(..end)
            .rev()
            .take_while(|(&start, bytes)| start + bytes.len() as u64 > offset)
            .map(|(&start, _)| start)
            .collect();
        for start in overlapping {
            let bytes = self.extents.remove(&start).expect("extent listed above");
            let extent_end = start + bytes.len() as u64;
            if extent_end > end {
                self.extents.insert(end, bytes[(end - start) as usize..].to_vec());
            }
            if start < offset {
                let mut head = bytes;
                head.truncate((offset - start) as usize);
                self.extents.insert(start, head);
            }
        }
        let mut merged = match self.extents.range_mut(..offset).next_back() {
            Some((&start, bytes)) if start + bytes.len() as u64 == offset => {
                bytes.extend_from_slice(data);
                None
            }
            _ => Some(data.to_vec()),
        };
        if let Some(follower) = self.extents.remove(&end) {
            match &mut merged {
                Some(bytes) => bytes.extend_from_slice(&follower),
                None => {
                    let (_, bytes) = self.extents.range_mut(..offset).next_back().expect("merged above");
                    bytes.extend_from_slice(&follower);
                }
            }
        }
        if let Some(bytes) = merged {
            self.extents.insert(offset, bytes);
        }
    }

    /// Copies the overlay's bytes that fall in `[offset, offset + buf.len())` into `buf`.
    fn copy_into(&self, buf: &mut [u8], offset: u64) {
        let end = offset.saturating_add(buf.len() as u64);
        for (&start, bytes) in self.extents.range(..end).rev() {
            let extent_end = start + bytes.len() as u64;
            if extent_end <= offset {
                break;
            }
            let from = start.max(offset);
            let to = extent_end.min(end);
            buf[(from - offset) as usize..(to - offset) as usize]
                .copy_from_slice(&bytes[(from - start) as usize..(to - start) as usize]);
        }
    }

    fn end(&self) -> u64 {
        self.extents.iter().next_back().map_or(0, |(&start, bytes)| start + bytes.len() as u64)
    }

    /// Drops everything at or past `len` (the file was truncated).
    fn truncate(&mut self, len: u64) {
        let beyond: Vec<u64> = self.extents.range(len..).map(|(&start, _)| start).collect();
        for start in beyond {
            self.extents.remove(&start);
        }
        if let Some((&start, bytes)) = self.extents.range_mut(..len).next_back() {
            let keep = (len - start) as usize;
            if bytes.len() > keep {
                bytes.truncate(keep);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn lossy() -> FaultInjection {
        FaultInjection { lose_unsynced_writes: true, torn_page_writes: false }
    }

    /// The overlay must behave exactly like a byte array: compare against one after random writes
    /// and truncations.
    #[test]
    fn overlay_matches_byte_array_model() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..50 {
            let mut overlay = Overlay::default();
            let mut model: Vec<Option<u8>> = vec![None; 512];
            for _ in 0..60 {
                if rng.gen_ratio(1, 10) {
                    let len = rng.gen_range(0..512u64);
                    overlay.truncate(len);
                    for b in &mut model[len as usize..] {
                        *b = None;
                    }
                    continue;
                }
                let offset = rng.gen_range(0..400usize);
                let len = rng.gen_range(0..(512 - offset).min(80));
                let data: Vec<u8> = (0..len).map(|_| rng.gen_range(1..=255)).collect();
                overlay.insert(offset as u64, &data);
                for (i, &b) in data.iter().enumerate() {
                    model[offset + i] = Some(b);
                }
                let mut buf = vec![0u8; 512];
                overlay.copy_into(&mut buf, 0);
                let expected: Vec<u8> = model.iter().map(|b| b.unwrap_or(0)).collect();
                assert_eq!(buf, expected);
                let model_end = model.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
                assert_eq!(overlay.end(), model_end as u64);
                let mut last_end = 0;
                for (&start, bytes) in &overlay.extents {
                    assert!(start >= last_end, "extents overlap");
                    assert!(!bytes.is_empty());
                    last_end = start + bytes.len() as u64;
                }
            }
        }
    }

    #[test]
    fn read_past_eof_is_zero_and_writes_roundtrip() {
        let dir = tempfile::tempdir().unwrap();
        for fault in [FaultInjection::default(), lossy()] {
            let io = Io::new(fault);
            let f = io.open(&dir.path().join(format!("f{}", fault.lose_unsynced_writes)), true).unwrap();
            f.write_at(b"hello", 10).unwrap();
            let mut buf = [0xAAu8; 32];
            f.read_at(&mut buf, 0).unwrap();
            assert_eq!(&buf[..10], &[0u8; 10]);
            assert_eq!(&buf[10..15], b"hello");
            assert_eq!(&buf[15..], &[0u8; 17]);
            assert_eq!(f.len().unwrap(), 15);
            f.sync_data().unwrap();
            assert_eq!(f.len().unwrap(), 15);
            f.read_at(&mut buf[..5], 10).unwrap();
            assert_eq!(&buf[..5], b"hello");
        }
    }

    #[test]
    fn unsynced_writes_never_reach_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let io = Io::new(lossy());
        let f = io.open(&path, true).unwrap();
        f.write_at(b"durable", 0).unwrap();
        f.sync_data().unwrap();
        f.write_at(b"lost!!!", 0).unwrap();
        f.write_at(b"tail", 100).unwrap();
        let mut buf = [0u8; 7];
        f.read_at(&mut buf, 0).unwrap();
        assert_eq!(&buf, b"lost!!!", "reads see unsynced writes");
        assert_eq!(std::fs::read(&path).unwrap(), b"durable", "the OS file has only synced data");
        io.crash();
        assert!(io.is_crashed());
        assert!(f.read_at(&mut buf, 0).is_err());
        assert!(f.write_at(b"x", 0).is_err());
        assert!(f.sync_data().is_err());
        assert!(f.set_len(0).is_err());
        assert!(io.open(&path, false).is_err());
        drop(f);
        let f = Io::new(lossy()).open(&path, false).unwrap();
        f.read_at(&mut buf, 0).unwrap();
        assert_eq!(&buf, b"durable");
    }

    #[test]
    fn torn_writes_leave_half_a_page_after_crash() {
        let dir = tempfile::tempdir().unwrap();
        let fault = FaultInjection { lose_unsynced_writes: true, torn_page_writes: true };
        let page = 16 * 1024;
        let mut torn = 0;
        let trials = 64;
        for trial in 0..trials {
            let path = dir.path().join(format!("p{trial}"));
            let io = Io::new(fault);
            let f = io.open(&path, true).unwrap();
            f.write_at(&vec![1u8; page], 0).unwrap();
            f.sync_data().unwrap();
            f.write_at(&vec![2u8; page], 0).unwrap();
            let mut buf = vec![0u8; page];
            f.read_at(&mut buf, 0).unwrap();
            assert!(buf.iter().all(|&b| b == 2), "reads see the whole write");
            io.crash();
            let on_disk = std::fs::read(&path).unwrap();
            assert_eq!(on_disk.len(), page);
            if on_disk[0] == 2 {
                torn += 1;
                assert!(on_disk[..page / 2].iter().all(|&b| b == 2));
                assert!(on_disk[page / 2..].iter().all(|&b| b == 1));
            } else {
                assert!(on_disk.iter().all(|&b| b == 1));
            }
        }
        // Expected 16 of 64; the chance of none at all is (3/4)^64, about 1e-8.
        assert!(torn > 0 && torn < trials, "torn {torn} of {trials}");
    }

    #[test]
    fn page_writes_always_tear_in_torn_mode() {
        let dir = tempfile::tempdir().unwrap();
        let page = 16 * 1024;
        for (fault, tears) in
            [(FaultInjection { lose_unsynced_writes: true, torn_page_writes: true }, true), (lossy(), false)]
        {
            let path = dir.path().join(format!("w{tears}"));
            let io = Io::new(fault);
            let f = io.open(&path, true).unwrap();
            assert_eq!(f.tears_pages(), tears);
            f.write_at(&vec![1u8; page], 0).unwrap();
            f.sync_data().unwrap();
            f.write_page(&vec![2u8; page], 0).unwrap();
            let mut buf = vec![0u8; page];
            f.read_at(&mut buf, 0).unwrap();
            assert!(buf.iter().all(|&b| b == 2), "reads see the whole write");
            io.crash();
            let on_disk = std::fs::read(&path).unwrap();
            let first_half_new = on_disk[..page / 2].iter().all(|&b| b == 2);
            assert_eq!(first_half_new, tears);
            assert!(on_disk[page / 2..].iter().all(|&b| b == 1), "the second half is never written before the sync");
        }
    }

    #[test]
    fn set_len_truncates_the_overlay() {
        let dir = tempfile::tempdir().unwrap();
        let io = Io::new(lossy());
        let f = io.open(&dir.path().join("t"), true).unwrap();
        f.write_at(&[7u8; 100], 0).unwrap();
        f.set_len(40).unwrap();
        assert_eq!(f.len().unwrap(), 40);
        f.set_len(100).unwrap();
        let mut buf = [9u8; 100];
        f.read_at(&mut buf, 0).unwrap();
        assert!(buf[..40].iter().all(|&b| b == 7));
        assert!(buf[40..].iter().all(|&b| b == 0));
    }

    /// A fault matches its kind, operation and range, fires on the chosen occurrences and then
    /// disarms itself; a cleared one stops firing.
    #[test]
    fn injected_faults_match_kind_op_range_and_occurrence() {
        let dir = tempfile::tempdir().unwrap();
        let io = Io::new(FaultInjection::default());
        let data = io.open_as(&dir.path().join("data"), true, FileKind::Data, 0).unwrap();
        let seg = io.open_as(&dir.path().join("seg"), true, FileKind::LogSegment, 1 << 20).unwrap();
        // The 2nd write touching bytes 4096..8192 of a data file fails, then no other.
        let f = io.inject(IoFault::new(FileKind::Data, IoOp::Write, FaultError::Eio).at(4096..8192).nth(2));
        data.write_at(&[1; 100], 0).unwrap();
        seg.write_at(&[1; 100], 4096).unwrap();
        data.write_at(&[1; 100], 4000).unwrap();
        let e = data.write_at(&[1; 100], 5000).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EIO));
        data.write_at(&[1; 100], 5000).unwrap();
        assert_eq!(io.fault_hits(f), 1);
        // Log positions are LSNs: the segment starts at 1 MiB.
        let lsn = (1 << 20) + 10;
        let f = io.inject(IoFault::new(FileKind::LogSegment, IoOp::Write, FaultError::NoSpace).at(lsn..lsn + 1));
        seg.write_at(&[2; 10], 0).unwrap();
        assert!(is_no_space(&seg.write_at(&[2; 10], 5).unwrap_err()));
        assert!(is_no_space(&seg.write_at(&[2; 10], 10).unwrap_err()), "until cleared");
        io.clear_fault(f);
        seg.write_at(&[2; 10], 10).unwrap();
        assert_eq!(io.fault_hits(f), 2);
        // Reads, extends (allocate and set_len) and syncs, twice each.
        let cases = [(IoOp::Read, FaultError::Eio), (IoOp::Extend, FaultError::NoSpace), (IoOp::Sync, FaultError::Eio)];
        for (op, error) in cases {
            let f = io.inject(IoFault::new(FileKind::Data, op, error).times(2));
            for _ in 0..2 {
                let failed = match op {
                    IoOp::Read => data.read_at(&mut [0; 10], 0).is_err(),
                    IoOp::Extend => data.allocate(0, 1 << 16).is_err() && data.set_len(1 << 17).is_err(),
                    _ => data.sync_data().is_err(),
                };
                assert!(failed, "{op:?}");
                if op == IoOp::Extend {
                    break; // one allocate and one set_len: the two failures
                }
            }
            assert_eq!(io.fault_hits(f), 2, "{op:?}");
        }
        data.allocate(0, 1 << 16).unwrap();
        assert!(data.allocated_bytes().unwrap() >= 1 << 16);
        data.sync_data().unwrap();
        // Shrinking is not an extend.
        io.inject(IoFault::new(FileKind::Data, IoOp::Extend, FaultError::NoSpace));
        data.set_len(10).unwrap();
        io.clear_faults();
    }

    /// A short write leaves its first half (whole sectors); a failed sync in power-failure mode
    /// drops the unsynced writes, so a later successful sync does not make them durable.
    #[test]
    fn short_writes_and_failed_syncs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let io = Io::new(lossy());
        let f = io.open_as(&path, true, FileKind::Doublewrite, 0).unwrap();
        io.inject(IoFault::new(FileKind::Doublewrite, IoOp::Write, FaultError::ShortWrite).nth(1));
        assert!(f.write_at(&[7u8; 4096], 0).is_err());
        let mut buf = [0u8; 4096];
        f.read_at(&mut buf, 0).unwrap();
        assert!(buf[..2048].iter().all(|&b| b == 7) && buf[2048..].iter().all(|&b| b == 0));
        f.sync_data().unwrap();
        f.write_at(&[9u8; 4096], 0).unwrap();
        io.inject(IoFault::new(FileKind::Doublewrite, IoOp::Sync, FaultError::Eio).nth(1));
        assert!(f.sync_data().is_err());
        f.sync_data().unwrap();
        let on_disk = std::fs::read(&path).unwrap();
        assert!(on_disk[..2048].iter().all(|&b| b == 7), "the write before the failed sync is lost");
    }

    #[test]
    fn concurrent_writers_at_different_offsets() {
        let dir = tempfile::tempdir().unwrap();
        for fault in [FaultInjection::default(), lossy()] {
            let io = Io::new(fault);
            let f = io.open(&dir.path().join(format!("c{}", fault.lose_unsynced_writes)), true).unwrap();
            std::thread::scope(|s| {
                for t in 0..8u8 {
                    let f = &f;
                    s.spawn(move || {
                        for i in 0..64u64 {
                            let block = [t.wrapping_mul(31).wrapping_add(i as u8); 256];
                            f.write_at(&block, (i * 8 + t as u64) * 256).unwrap();
                        }
                    });
                }
            });
            f.sync_data().unwrap();
            let mut buf = [0u8; 256];
            for t in 0..8u8 {
                for i in 0..64u64 {
                    f.read_at(&mut buf, (i * 8 + t as u64) * 256).unwrap();
                    assert!(buf.iter().all(|&b| b == t.wrapping_mul(31).wrapping_add(i as u8)));
                }
            }
        }
    }
}
