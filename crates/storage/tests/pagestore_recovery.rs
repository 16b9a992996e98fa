//! Crash recovery: simulated power failures (lost unsynced writes, torn page writes) while mtrs
//! commit and the cleaner writes pages and checkpoints. After recovery the tree must equal the
//! model after some prefix of the mtr sequence that includes every mtr durable at the crash.

use crate::pagestore_support;

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::Path;
use std::time::Duration;

use pagestore_support::*;
use rand::Rng;
use selkie_storage::btree::{BTree, Change};
use selkie_storage::buffer::{PageStoreConfig, PAGE_SIZE};
use selkie_storage::io::Io;
use selkie_storage::mtr::Mtr;
use selkie_storage::wal::Lsn;
use selkie_storage::{FaultInjection, StorageError};

#[derive(Clone)]
enum Op {
    Put(Vec<u8>, Vec<u8>),
    Remove(Vec<u8>),
}

/// Model after the ops whose mtr ended at or before `end` (ops without an entry changed nothing).
fn model_at(ops: &[(Lsn, Op)], end: Lsn) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut model = BTreeMap::new();
    let mut applied_all_before = true;
    for (op_end, op) in ops {
        if *op_end == 0 {
            continue;
        }
        if *op_end > end {
            applied_all_before = false;
            continue;
        }
        assert!(applied_all_before, "recovered entries are not a prefix of the mtr sequence");
        match op {
            Op::Put(k, v) => {
                model.insert(k.clone(), v.clone());
            }
            Op::Remove(k) => {
                model.remove(k);
            }
        }
    }
    model
}

fn fault(torn: bool) -> FaultInjection {
    FaultInjection { lose_unsynced_writes: true, torn_page_writes: torn }
}

fn busy_config(frames: u64, checkpoint_ms: u64) -> PageStoreConfig {
    let mut cfg = config(frames);
    cfg.checkpoint_interval = Duration::from_millis(checkpoint_ms);
    cfg.free_reserve = 0.25;
    cfg
}

/// Runs random mtrs while a second thread pulls the plug at a random moment (the cleaner is
/// writing pages and checkpoints meanwhile), recovers, and checks the prefix property. Returns
/// the number of torn pages repaired at reopen.
fn crash_and_recover(seed: u64, torn: bool, checkpoint_ms: u64) -> usize {
    let dir = scratch_dir();
    let io = Io::new(fault(torn));
    let db = open(&io, dir.path(), busy_config(48, checkpoint_ms));
    let tree = BTree::open(db.store.system_tree_root(0));
    let mut gen = Gen::new(seed, 25_000);
    let crash_after = Duration::from_millis(gen.rng.gen_range(30..400));
    let crasher = {
        let io = io.clone();
        std::thread::spawn(move || {
            std::thread::sleep(crash_after);
            io.crash();
        })
    };
    let mut live: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    let mut ops: Vec<(Lsn, Op)> = Vec::new();
    let mut durable_end = 0;
    // Until the crash makes an operation fail (or a bound, if the machine is very fast).
    for _ in 0..20_000 {
        let result = if gen.rng.gen_range(0..4) == 0 {
            let k = gen.existing_or_new_key(&live);
            try_remove(&db.store, &tree, &k).map(|(_, end)| (end, Op::Remove(k)))
        } else {
            let (k, v) = (gen.existing_or_new_key(&live), gen.value());
            try_put(&db.store, &tree, &k, &v).map(|(_, end)| (end, Op::Put(k, v)))
        };
        let Ok((end, op)) = result else { break };
        match &op {
            Op::Put(k, v) => live.insert(k.clone(), v.clone()),
            Op::Remove(k) => live.remove(k),
        };
        ops.push((end, op));
        if gen.rng.gen_range(0..50) == 0 && end != 0 && db.wal.flush_to(end).is_ok() {
            durable_end = durable_end.max(end);
        }
    }
    crasher.join().unwrap();
    db.crash();

    let db = open(&Io::new(fault(torn)), dir.path(), busy_config(48, checkpoint_ms));
    let repaired = db.store.repaired_at_open();
    assert!(
        db.recovered_end >= durable_end,
        "durable mtrs were lost: log ends at {} < {durable_end}",
        db.recovered_end
    );
    let model = model_at(&ops, db.recovered_end);
    assert_tree_eq(&db.store, &tree, &model);

    // Crash again right after recovery (redo must be repeatable), then keep working.
    db.crash();
    let db = open(&Io::new(FaultInjection::default()), dir.path(), busy_config(48, checkpoint_ms));
    assert_tree_eq(&db.store, &tree, &model);
    let mut model = model;
    for i in 0..200u32 {
        let k = format!("after-{i}").into_bytes();
        put(&db.store, &tree, &k, &k);
        model.insert(k.clone(), k);
    }
    db.close();
    let db = open_new(dir.path(), 48);
    assert_tree_eq(&db.store, &tree, &model);
    db.close();
    repaired
}

#[test]
fn crash_recovers_a_prefix_with_every_durable_mtr() {
    for seed in 0..3 * stress() as u64 {
        crash_and_recover(seed, false, 20);
    }
    // No checkpoint at all before the crash: recovery starts at the first LSN.
    crash_and_recover(99, false, 3_600_000);
}

#[test]
fn crash_with_torn_page_writes_while_the_cleaner_writes() {
    let mut repaired = 0;
    for seed in 0..4 * stress() as u64 {
        repaired += crash_and_recover(1000 + seed, true, 5);
    }
    eprintln!("torn pages repaired from the doublewrite area: {repaired}");
    // Torn mode tears every home write and leaves it unsynced for TORN_SYNC_DELAY, and the
    // cleaner writes all the time here (checkpoint every 5 ms): crashes land in that window.
    assert!(repaired > 0, "no crash of {} left a torn page: the doublewrite repair went untested", 4 * stress());
}

/// The pages that have a valid image in the doublewrite area, each once: a short last batch
/// leaves an earlier, longer batch's copies in the later slots, so one page can sit in two slots
/// (and is repaired once).
fn doublewrite_pages(dir: &Path) -> Vec<u64> {
    let dw = std::fs::read(dir.join("doublewrite.sdb")).unwrap();
    let mut pages: Vec<u64> = dw
        .chunks_exact(PAGE_SIZE)
        .filter(|p| p.iter().any(|&b| b != 0))
        .filter(|p| u32::from_le_bytes(p[..4].try_into().unwrap()) == crc32c::crc32c(&p[4..]))
        .map(|p| u64::from_le_bytes(p[8..16].try_into().unwrap()))
        .collect();
    pages.sort_unstable();
    pages.dedup();
    pages
}

fn tear(dir: &Path, pid: u64) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().write(true).open(dir.join("data.sdb")).unwrap();
    f.write_all_at(&vec![0xA5u8; PAGE_SIZE / 2], pid * PAGE_SIZE as u64 + PAGE_SIZE as u64 / 2).unwrap();
}

#[test]
fn torn_home_pages_are_repaired_from_the_doublewrite_area() {
    let dir = scratch_dir();
    let db = open_new(dir.path(), 64);
    let tree = BTree::open(db.store.system_tree_root(0));
    let mut model = BTreeMap::new();
    // About 200 pages through a 64-frame pool: most were written by earlier batches and are no
    // longer in the doublewrite area.
    for i in 0..20_000u32 {
        let (k, v) = (i.to_be_bytes().to_vec(), vec![(i % 200) as u8; 150]);
        put(&db.store, &tree, &k, &v);
        model.insert(k, v);
    }
    db.close();
    let in_doublewrite = doublewrite_pages(dir.path());
    assert!(!in_doublewrite.is_empty());
    for &pid in &in_doublewrite {
        tear(dir.path(), pid);
    }
    let db = open_new(dir.path(), 64);
    assert_eq!(db.store.repaired_at_open(), in_doublewrite.len());
    assert_tree_eq(&db.store, &tree, &model);
    // The tablespace's pages (the file is longer: it is preallocated ahead of need).
    let pages = db.store.tablespace_pages().unwrap();
    db.close();

    // A torn page with no intact copy anywhere is reported as corruption, not a panic.
    let in_doublewrite = doublewrite_pages(dir.path());
    let first_user_page = 1 + selkie_storage::buffer::SYSTEM_TREES as u64;
    let victim = (first_user_page..pages).rev().find(|p| !in_doublewrite.contains(p)).unwrap();
    tear(dir.path(), victim);
    let db = open_new(dir.path(), 64);
    assert_eq!(db.store.repaired_at_open(), 0);
    let mut cursor = tree.cursor(Bound::Unbounded, Bound::Unbounded, false);
    let err = loop {
        match cursor.next(&db.store) {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("scan ended without meeting the torn page {victim}"),
            Err(e) => break e,
        }
    };
    assert!(matches!(err, StorageError::Corruption(_)), "{err:?}");
    db.crash();
}

#[test]
fn logical_records_come_back_in_log_order() {
    let dir = scratch_dir();
    let io = Io::new(fault(false));
    let db = open(&io, dir.path(), config(64));
    let tree = BTree::open(db.store.system_tree_root(5));
    let mut expected = Vec::new();
    for i in 0..50u32 {
        let mut mtr = Mtr::new(&db.store);
        if i % 2 == 0 {
            tree.modify(&mut mtr, &i.to_be_bytes(), |_| (Change::Put(vec![1; 10]), ())).unwrap();
        }
        let payload = format!("undo {i}").into_bytes();
        mtr.log_logical(&payload);
        mtr.log_logical(b"second");
        let (start, end) = mtr.commit();
        assert!(start >= selkie_storage::wal::FIRST_LSN && end > start);
        expected.push((start, payload));
        expected.push((start, b"second".to_vec()));
    }
    let durable = expected.last().unwrap().0;
    db.wal.flush_to(durable + 1).unwrap();
    db.crash();
    let db = open(&Io::new(FaultInjection::default()), dir.path(), config(64));
    assert_eq!(db.recovered_logical, expected);
    for i in (0..50u32).step_by(2) {
        assert_eq!(tree.get(&db.store, &i.to_be_bytes()).unwrap(), Some(vec![1; 10]));
    }
    db.close();
}
