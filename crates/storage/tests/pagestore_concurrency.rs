//! Concurrent writers and optimistic readers on one tree with a small pool (evictions and
//! write-back happen under the readers). Writers own disjoint but interleaved key sets, so they
//! contend on the same leaves and splits; readers check that every scan is strictly ordered and
//! every record well formed; at the end the tree equals the union of the writers' models.

use crate::pagestore_support;

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use pagestore_support::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use selkie_storage::btree::BTree;
use selkie_storage::buffer::PageStore;

const WRITERS: u8 = 4;

/// Key space of one writer: (slot u16 big-endian, writer id); writers interleave.
fn key(slot: u16, writer: u8) -> Vec<u8> {
    let mut k = slot.to_be_bytes().to_vec();
    k.push(writer);
    k
}

/// A value names its key and a version, padded; some are overflow-sized.
fn value(k: &[u8], version: u64, rng: &mut StdRng) -> Vec<u8> {
    let pad = if rng.gen_range(0..40) == 0 { rng.gen_range(5_000..20_000) } else { rng.gen_range(0..300) };
    let mut v = Vec::with_capacity(k.len() + 9 + pad);
    v.push(k.len() as u8);
    v.extend_from_slice(k);
    v.extend_from_slice(&version.to_le_bytes());
    v.extend((0..pad).map(|i| (version as usize + i) as u8));
    v
}

fn check_well_formed(k: &[u8], v: &[u8]) {
    assert!(!v.is_empty() && v[0] as usize == k.len() && v.len() >= 1 + k.len() + 8, "malformed value for {k:?}");
    assert_eq!(&v[1..1 + k.len()], k, "value belongs to another key");
    let version = u64::from_le_bytes(v[1 + k.len()..9 + k.len()].try_into().unwrap());
    for (i, &b) in v[9 + k.len()..].iter().enumerate() {
        assert_eq!(b, (version as usize + i) as u8, "torn value for {k:?}");
    }
}

fn reader(store: &PageStore, tree: BTree, stop: &AtomicBool, seed: u64, checks: &AtomicU64) {
    let mut rng = StdRng::seed_from_u64(seed);
    while !stop.load(Ordering::Relaxed) {
        if rng.gen_bool(0.5) {
            let k = key(rng.gen_range(0..2000), rng.gen_range(0..WRITERS));
            if let Some(v) = tree.get(store, &k).unwrap() {
                check_well_formed(&k, &v);
            }
        } else {
            let lo = key(rng.gen_range(0..2000), 0);
            let reverse = rng.gen_bool(0.5);
            let mut c = tree.cursor(Bound::Included(lo), Bound::Unbounded, reverse);
            let mut prev: Option<Vec<u8>> = None;
            for _ in 0..300 {
                let Some((k, v)) = c.next(store).unwrap() else { break };
                check_well_formed(&k, &v);
                if let Some(p) = &prev {
                    assert!(if reverse { k < *p } else { k > *p }, "scan out of order or duplicated: {p:?} then {k:?}");
                }
                prev = Some(k);
            }
        }
        checks.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn writers_and_readers_on_a_small_pool() {
    let _exclusive = crate::exclusive();
    let dir = scratch_dir();
    let db = open_new(dir.path(), 64);
    let store = db.store.clone();
    let tree = BTree::open(store.system_tree_root(0));
    let ops = 3000 * stress();
    let stop = Arc::new(AtomicBool::new(false));
    let checks = Arc::new(AtomicU64::new(0));
    let readers: Vec<_> = (0..2)
        .map(|r| {
            let (store, stop, checks) = (store.clone(), stop.clone(), checks.clone());
            std::thread::spawn(move || reader(&store, tree, &stop, 100 + r, &checks))
        })
        .collect();
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let store = store.clone();
            std::thread::spawn(move || {
                let mut rng = StdRng::seed_from_u64(w as u64);
                let mut model = BTreeMap::new();
                for version in 0..ops as u64 {
                    let k = key(rng.gen_range(0..2000), w);
                    if rng.gen_range(0..4) == 0 {
                        let (existed, _) = remove(&store, &tree, &k);
                        assert_eq!(existed, model.remove(&k).is_some());
                    } else {
                        let v = value(&k, version, &mut rng);
                        put(&store, &tree, &k, &v);
                        model.insert(k, v);
                    }
                }
                model
            })
        })
        .collect();
    let mut model = BTreeMap::new();
    for w in writers {
        model.extend(w.join().unwrap());
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.join().unwrap();
    }
    assert!(checks.load(Ordering::Relaxed) > 0);
    assert_tree_eq(&store, &tree, &model);
    let stats = store.stats();
    assert!(stats.page_writes > 0, "the pool is small enough to need write-back: {stats:?}");
    drop(store);
    db.close();
}
