//! File I/O for every engine file, with optional power-failure simulation.
//!
//! INTERFACE CONTRACT (frozen; owner: WAL/IO helper). All engine files (data, doublewrite, control,
//! redo segments) go through `IoFile`, so the fault injection of `FaultInjection` applies to all of
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

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use rand::Rng;

use crate::engine::FaultInjection;

/// Smallest write that may be torn: one 4 KiB block (page-sized writes are what tear).
pub const TORN_WRITE_MIN: usize = 4096;
/// A write of at least `TORN_WRITE_MIN` bytes is torn with probability 1 / `TORN_WRITE_ODDS`.
pub const TORN_WRITE_ODDS: u32 = 4;
/// Granularity at which a torn write stops: the disk sector.
pub const SECTOR_SIZE: usize = 512;
/// Torn-write mode: how long the page cleaner leaves a batch's torn home writes unsynced, so that
/// a kill at a random moment lands in that window often (test mode only).
pub const TORN_SYNC_DELAY: std::time::Duration = std::time::Duration::from_millis(20);

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
}

pub struct IoFile {
    file: File,
    shared: Arc<IoShared>,
    /// Unsynced writes; `Some` only with `lose_unsynced_writes`.
    overlay: Option<Mutex<Overlay>>,
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

impl Io {
    pub fn new(fault: FaultInjection) -> Io {
        Io {
            shared: Arc::new(IoShared {
                fault,
                crashed: AtomicBool::new(false),
                in_flight: AtomicUsize::new(0),
                files: Mutex::new(Vec::new()),
            }),
        }
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

    /// Opens a file for reading and writing, creating it if `create`.
    pub fn open(&self, path: &Path, create: bool) -> std::io::Result<Arc<IoFile>> {
        let _guard = self.shared.begin_change()?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(create)
            .custom_flags(libc::O_CLOEXEC)
            .open(path)?;
        let overlay = self.shared.fault.lose_unsynced_writes.then(|| Mutex::new(Overlay::default()));
        let io_file = Arc::new(IoFile { file, shared: Arc::clone(&self.shared), overlay });
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
        self.apply_overlay()?;
        self.file.sync_data()
    }

    /// fsync: like `sync_data`, and all metadata too. For size changes that must be durable
    /// even where the final size equals the old one (a truncate followed by an extend), where
    /// fdatasync is not guaranteed to persist the freed blocks.
    pub fn sync_all(&self) -> std::io::Result<()> {
        let _guard = self.shared.begin_change()?;
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

    pub fn set_len(&self, len: u64) -> std::io::Result<()> {
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
        for (fault, tears) in [
            (FaultInjection { lose_unsynced_writes: true, torn_page_writes: true }, true),
            (lossy(), false),
        ] {
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
