//! Overflow chains that share tails (docs §4.3, btree/overflow.rs): a value put over an equally
//! long one whose later chunks are unchanged writes only the chunks up to the last change and
//! links to the old chain for the rest. Measured for 1 KiB changed in a 10 MiB value; checked
//! against a model with removals and crashes, every page on the free list again at the end.

use crate::pagestore_support;

use std::collections::BTreeMap;
use std::time::Duration;

use pagestore_support::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use selkie_storage::btree::BTree;
use selkie_storage::buffer::{PageStore, PageStoreConfig, PageType, PAGE_SIZE, SYSTEM_TREES};
use selkie_storage::io::Io;
use selkie_storage::mtr::Mtr;
use selkie_storage::FaultInjection;

fn new_tree(store: &PageStore) -> BTree {
    let mut mtr = Mtr::new(store);
    let t = BTree::create(&mut mtr).unwrap();
    mtr.commit();
    t
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| seed.wrapping_add((i % 253) as u8)).collect()
}

/// Every page is in the tree (nodes and chains, each once) or on the free list.
fn assert_no_page_lost(store: &PageStore, tree: BTree) {
    let mut pages = tree.pages(store).unwrap();
    let n = pages.len();
    pages.sort();
    pages.dedup();
    let shared = n - pages.len();
    let free = store.free_list_pages().unwrap().len();
    let total = store.tablespace_pages().unwrap() as usize;
    // `pages` lists a shared tail once per chain that reaches it.
    assert_eq!(1 + SYSTEM_TREES + pages.len() + free, total, "{shared} pages listed twice");
}

#[test]
fn a_change_of_1_kib_in_a_10_mib_value_writes_what_precedes_it() {
    let dir = scratch_dir();
    let db = open_new(dir.path(), 256);
    let tree = new_tree(&db.store);
    const LEN: usize = 10 << 20;
    let mut value = pattern(LEN, 0);
    put(&db.store, &tree, b"blob", &value);
    let chain_pages = tree.pages(&db.store).unwrap().len() - 1;
    let mut report = Vec::new();
    for (what, at) in [("at the end", LEN - 1024), ("in the middle", LEN / 2), ("at the start", 0)] {
        value[at..at + 1024].fill(0xAB);
        db.store.checkpoint_now().unwrap();
        let (lsn, writes) = (db.wal.reserved_lsn(), db.store.stats().page_writes);
        put(&db.store, &tree, b"blob", &value);
        db.store.checkpoint_now().unwrap();
        let (logged, written) = (db.wal.reserved_lsn() - lsn, db.store.stats().page_writes - writes);
        eprintln!("put of 1 KiB changed {what} of a 10 MiB value: {logged} bytes logged, {written} pages written");
        report.push((logged, written));
        assert!(tree.get(&db.store, b"blob").unwrap().unwrap() == value);
        // The old value's pages that the new one does not share are free again.
        assert_eq!(tree.pages(&db.store).unwrap().len() - 1, chain_pages);
        assert_no_page_lost(&db.store, tree);
    }
    let (end, middle, start) = (report[0], report[1], report[2]);
    assert!(
        end.0 > LEN as u64 && end.1 as usize >= chain_pages,
        "a change in the last chunk shares nothing: {report:?}"
    );
    assert!(middle.0 * 10 < end.0 * 6 && middle.1 * 10 < end.1 * 6, "{report:?}");
    assert!(start.0 < 64 << 10 && start.1 < 10, "{report:?}");
    db.close();
    let db = open_new(dir.path(), 256);
    assert!(tree.get(&db.store, b"blob").unwrap().unwrap() == value);
    assert_no_page_lost(&db.store, tree);
    db.close();
}

/// Keys whose values change a few bytes at a time (sharing tails over and over), grow or shrink
/// (sharing nothing), or go away, against a model; power failures in between (the chain of a
/// put is written in mtrs of its own before the leaf's, so a crash may leak those pages: the
/// check allows exactly the pages nothing references). At the end every value is removed and
/// every page but the tree's root and the leaked ones is free.
#[test]
fn shared_tails_survive_removals_and_crashes() {
    for seed in 0..2 * stress() as u64 {
        let dir = scratch_dir();
        let cfg = || {
            let mut cfg = PageStoreConfig::new(64 * 16 * 1024);
            cfg.checkpoint_interval = Duration::from_millis(15);
            cfg
        };
        let db = open(&Io::new(FaultInjection::default()), dir.path(), cfg());
        let tree = new_tree(&db.store);
        db.close();
        let mut rng = StdRng::seed_from_u64(seed);
        let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        for _round in 0..4 {
            let io = Io::new(FaultInjection { lose_unsynced_writes: true, torn_page_writes: seed % 2 == 1 });
            let db = open(&io, dir.path(), cfg());
            assert_tree_eq(&db.store, &tree, &model);
            let mut ops: Vec<(u64, Vec<u8>, Option<Vec<u8>>)> = Vec::new();
            for _ in 0..150 {
                let k = vec![b'k', rng.gen_range(0..6u8)];
                let old = model.get(&k).cloned();
                let new = match (rng.gen_range(0..10), old) {
                    (0, _) => None,
                    (1..=6, Some(mut v)) if v.len() > 20_000 => {
                        let at = rng.gen_range(0..v.len());
                        v[at] ^= rng.gen_range(1..=255);
                        Some(v)
                    }
                    _ => Some(pattern(rng.gen_range(20_000..120_000), rng.gen())),
                };
                let (_, end) = match &new {
                    Some(v) => put(&db.store, &tree, &k, v),
                    None => remove(&db.store, &tree, &k).1,
                };
                ops.push((end, k, new));
            }
            let durable = ops[rng.gen_range(0..ops.len())].0;
            if durable != 0 {
                db.wal.flush_to(durable).unwrap();
            }
            db.crash();
            let db = open(&Io::new(FaultInjection::default()), dir.path(), cfg());
            for (end, k, v) in ops {
                if end != 0 && end <= db.recovered_end {
                    match v {
                        Some(v) => model.insert(k, v),
                        None => model.remove(&k),
                    };
                }
            }
            assert_tree_eq(&db.store, &tree, &model);
            db.close();
        }
        let db = open_new(dir.path(), 64);
        for k in model.keys() {
            remove(&db.store, &tree, k);
        }
        let total = db.store.tablespace_pages().unwrap() as usize;
        let mut used = vec![false; total];
        used[0] = true;
        for n in 0..SYSTEM_TREES {
            used[db.store.system_tree_root(n) as usize] = true;
        }
        assert_eq!(tree.pages(&db.store).unwrap(), vec![tree.root]);
        used[tree.root as usize] = true;
        for p in db.store.free_list_pages().unwrap() {
            assert!(!used[p as usize], "page {p} free and used");
            used[p as usize] = true;
        }
        db.close();
        // What is neither free nor a root was leaked by the crashes: only overflow pages (whole
        // chains, or the new head of a chain that was to share a tail) may be.
        let data = std::fs::read(dir.path().join("data.sdb")).unwrap();
        let leaked: Vec<usize> = (0..total).filter(|&p| !used[p]).collect();
        for &p in &leaked {
            assert_eq!(data[p * PAGE_SIZE + 4], PageType::Overflow as u8, "seed {seed}: page {p} is lost");
        }
        eprintln!(
            "seed {seed}: {} of {total} pages leaked by crashes between a chain's mtrs and its leaf's",
            leaked.len()
        );
    }
}
