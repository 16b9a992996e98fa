//! Shared harness of the page-store tests: opening a store the way the engine does (recovery
//! included), simple one-record mtrs, scans, and a seeded workload generator.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use selkie_storage::btree::{BTree, Change};
use selkie_storage::buffer::{CheckpointHooks, PageStore, PageStoreConfig};
use selkie_storage::io::Io;
use selkie_storage::mtr::Mtr;
use selkie_storage::wal::{LogScan, Lsn, Wal, WalConfig};
use selkie_storage::{FaultInjection, FlushMode};

pub const SEGMENT_BYTES: u64 = 1 << 20;
pub const RING_BYTES: usize = 4 << 20;

/// Multiplier for iteration counts: SELKIE_STRESS=1 runs the long variants.
pub fn stress() -> usize {
    if std::env::var_os("SELKIE_STRESS").is_some() {
        10
    } else {
        1
    }
}

/// A scratch data directory; on tmpfs when available (the tests sync a lot; the fault injection
/// of `Io` simulates power failures either way).
pub fn scratch_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(d) = tempfile::tempdir_in(shm) {
            return d;
        }
    }
    tempfile::tempdir().unwrap()
}

/// Checkpoint hooks of a store without transactions.
pub struct NoTrx;

impl CheckpointHooks for NoTrx {
    fn scan_start_floor(&self) -> Lsn {
        Lsn::MAX
    }
    fn next_trx_id(&self) -> u64 {
        1
    }
}

pub struct Db {
    pub io: Io,
    pub dir: PathBuf,
    pub store: Arc<PageStore>,
    pub wal: Arc<Wal>,
    /// Logical records seen by recovery, with their entry start LSN.
    pub recovered_logical: Vec<(Lsn, Vec<u8>)>,
    /// End of the recovered log.
    pub recovered_end: Lsn,
}

pub fn config(pool_frames: u64) -> PageStoreConfig {
    PageStoreConfig::new(pool_frames * 16 * 1024)
}

/// Opens (and recovers) the store in `dir` as the engine does: open, redo from the scan start,
/// open the log at the end of the valid log, start.
pub fn open(io: &Io, dir: &Path, cfg: PageStoreConfig) -> Db {
    let store = PageStore::open(io, dir, cfg).unwrap();
    let control = store.control_at_open();
    let mut scan = LogScan::open(io, dir, control.scan_start_lsn, SEGMENT_BYTES).unwrap();
    let mut logical = Vec::new();
    while let Some(entry) = scan.next_entry().unwrap() {
        store.redo_entry(&entry, &mut |lsn, bytes| logical.push((lsn, bytes.to_vec()))).unwrap();
    }
    let end = scan.end_lsn();
    let config = WalConfig {
        flush_mode: FlushMode::Lazy,
        segment_bytes: SEGMENT_BYTES,
        ring_bytes: RING_BYTES,
        ..WalConfig::default()
    };
    let wal = Wal::open(io, dir, config, end).unwrap();
    store.start(wal.clone(), Arc::new(NoTrx)).unwrap();
    Db { io: io.clone(), dir: dir.to_path_buf(), store, wal, recovered_logical: logical, recovered_end: end }
}

pub fn open_new(dir: &Path, pool_frames: u64) -> Db {
    open(&Io::new(FaultInjection::default()), dir, config(pool_frames))
}

impl Db {
    /// Clean shutdown: checkpoint, stop the cleaner, stop the log.
    pub fn close(self) {
        self.store.shutdown().unwrap();
        self.wal.shutdown().unwrap();
    }

    /// Simulated power failure: unsynced writes are lost, threads stop.
    pub fn crash(self) {
        self.io.crash();
        self.store.crash_stop();
        let _ = self.wal.shutdown();
    }
}

/// Puts one record in its own mtr; returns the mtr's (start, end).
pub fn put(store: &PageStore, tree: &BTree, key: &[u8], value: &[u8]) -> (Lsn, Lsn) {
    let mut mtr = Mtr::new(store);
    tree.modify(&mut mtr, key, |_| (Change::Put(value.to_vec()), ())).unwrap();
    mtr.commit()
}

/// `put` that reports errors (after a simulated crash, page reads fail).
pub fn try_put(store: &PageStore, tree: &BTree, key: &[u8], value: &[u8]) -> selkie_storage::Result<(Lsn, Lsn)> {
    let mut mtr = Mtr::new(store);
    tree.modify(&mut mtr, key, |_| (Change::Put(value.to_vec()), ()))?;
    Ok(mtr.commit())
}

/// `remove` that reports errors.
pub fn try_remove(store: &PageStore, tree: &BTree, key: &[u8]) -> selkie_storage::Result<(Lsn, Lsn)> {
    let mut mtr = Mtr::new(store);
    tree.modify(&mut mtr, key, |_| (Change::Remove, ()))?;
    Ok(mtr.commit())
}

/// Removes one record in its own mtr; returns whether it existed and the mtr's (start, end).
pub fn remove(store: &PageStore, tree: &BTree, key: &[u8]) -> (bool, (Lsn, Lsn)) {
    let mut mtr = Mtr::new(store);
    let existed = tree.modify(&mut mtr, key, |v| (Change::Remove, v.is_some())).unwrap();
    (existed, mtr.commit())
}

pub fn scan(
    store: &PageStore,
    tree: &BTree,
    lower: Bound<Vec<u8>>,
    upper: Bound<Vec<u8>>,
    reverse: bool,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut c = tree.cursor(lower, upper, reverse);
    let mut out = Vec::new();
    while let Some(r) = c.next(store).unwrap() {
        out.push(r);
    }
    out
}

pub fn model_range(
    model: &BTreeMap<Vec<u8>, Vec<u8>>,
    lower: &Bound<Vec<u8>>,
    upper: &Bound<Vec<u8>>,
    reverse: bool,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    let valid = match (lower, upper) {
        (Bound::Included(l) | Bound::Excluded(l), Bound::Included(u) | Bound::Excluded(u)) => {
            l < u || (l == u && matches!((lower, upper), (Bound::Included(_), Bound::Included(_))))
        }
        _ => true,
    };
    if !valid {
        return Vec::new();
    }
    let it = model.range((lower.clone(), upper.clone())).map(|(k, v)| (k.clone(), v.clone()));
    if reverse {
        it.rev().collect()
    } else {
        it.collect()
    }
}

/// The whole tree must equal the model, by scans in both directions and by point gets.
pub fn assert_tree_eq(store: &PageStore, tree: &BTree, model: &BTreeMap<Vec<u8>, Vec<u8>>) {
    let forward = scan(store, tree, Bound::Unbounded, Bound::Unbounded, false);
    let expected: Vec<(Vec<u8>, Vec<u8>)> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(forward.len(), expected.len(), "record count");
    for (got, want) in forward.iter().zip(&expected) {
        assert_eq!(got.0, want.0, "keys differ");
        assert!(got.1 == want.1, "value of key {:?} differs (len {} vs {})", want.0, got.1.len(), want.1.len());
    }
    let mut backward = scan(store, tree, Bound::Unbounded, Bound::Unbounded, true);
    backward.reverse();
    assert!(backward == forward, "backward scan differs from forward scan");
    for (k, v) in model {
        assert!(tree.get(store, k).unwrap().as_deref() == Some(v.as_slice()), "get of {k:?}");
    }
}

/// Seeded generator of keys and values with the distributions the tests want: keys 1..=300
/// bytes over a small alphabet (so prefixes are shared), values mostly small with some over the
/// inline limit (overflow chains).
pub struct Gen {
    pub rng: StdRng,
    pub max_value: usize,
}

impl Gen {
    pub fn new(seed: u64, max_value: usize) -> Gen {
        Gen { rng: StdRng::seed_from_u64(seed), max_value }
    }

    pub fn key(&mut self) -> Vec<u8> {
        let len = match self.rng.gen_range(0..10) {
            0 => self.rng.gen_range(100..=300),
            1..=3 => self.rng.gen_range(1..=3),
            _ => self.rng.gen_range(4..=24),
        };
        (0..len).map(|_| b"abcdxyz\x00\xff"[self.rng.gen_range(0..9)]).collect()
    }

    pub fn value(&mut self) -> Vec<u8> {
        let len = match self.rng.gen_range(0..20) {
            0 => self.rng.gen_range(4_000..=self.max_value.max(4_000)),
            1..=2 => self.rng.gen_range(500..2_000),
            _ => self.rng.gen_range(0..120),
        };
        let seed: u8 = self.rng.gen();
        (0..len).map(|i| seed.wrapping_add((i * 7 % 251) as u8)).collect()
    }

    pub fn existing_or_new_key(&mut self, model: &BTreeMap<Vec<u8>, Vec<u8>>) -> Vec<u8> {
        if !model.is_empty() && self.rng.gen_bool(0.5) {
            let i = self.rng.gen_range(0..model.len());
            model.keys().nth(i).unwrap().clone()
        } else {
            self.key()
        }
    }

    pub fn bound(&mut self) -> Bound<Vec<u8>> {
        match self.rng.gen_range(0..3) {
            0 => Bound::Unbounded,
            1 => Bound::Included(self.key()),
            _ => Bound::Excluded(self.key()),
        }
    }
}

pub fn sleep_ms(ms: u64) {
    std::thread::sleep(Duration::from_millis(ms));
}
