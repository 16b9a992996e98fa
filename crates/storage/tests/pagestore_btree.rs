//! B+tree behaviour against a model (std BTreeMap): random operations with a pool small enough
//! to force eviction and write-back, splits, overflow values, limits, destroy.

use crate::pagestore_support;

use std::collections::BTreeMap;
use std::ops::Bound;

use pagestore_support::*;
use rand::Rng;
use selkie_storage::btree::{BTree, Change, MAX_KEY_LEN, MAX_VALUE_LEN};
use selkie_storage::buffer::SYSTEM_TREES;
use selkie_storage::mtr::Mtr;
use selkie_storage::StorageError;

#[test]
fn new_database_has_empty_system_trees_that_survive_reopen() {
    let dir = scratch_dir();
    let db = open_new(dir.path(), 64);
    assert!(db.store.is_new());
    let roots: Vec<_> = (0..SYSTEM_TREES).map(|n| db.store.system_tree_root(n)).collect();
    let mut distinct = roots.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), SYSTEM_TREES);
    for &r in &roots {
        let t = BTree::open(r);
        assert!(scan(&db.store, &t, Bound::Unbounded, Bound::Unbounded, false).is_empty());
    }
    let t3 = BTree::open(roots[3]);
    put(&db.store, &t3, b"hello", b"world");
    db.close();

    let db = open_new(dir.path(), 64);
    assert!(!db.store.is_new());
    assert_eq!((0..SYSTEM_TREES).map(|n| db.store.system_tree_root(n)).collect::<Vec<_>>(), roots);
    assert_eq!(t3.get(&db.store, b"hello").unwrap(), Some(b"world".to_vec()));
    assert_eq!(BTree::open(roots[2]).get(&db.store, b"hello").unwrap(), None);
    db.close();
}

/// Random put/remove/get/range scans on a 64-frame pool (1 MiB) against a BTreeMap, then the
/// same checks after a clean restart.
fn random_ops_against_model(seed: u64, ops: usize) {
    let dir = scratch_dir();
    let db = open_new(dir.path(), 64);
    let tree = {
        let mut mtr = Mtr::new(&db.store);
        let t = BTree::create(&mut mtr).unwrap();
        mtr.commit();
        t
    };
    let mut gen = Gen::new(seed, 30_000);
    let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    for i in 0..ops {
        match gen.rng.gen_range(0..100) {
            0..=44 => {
                let k = gen.existing_or_new_key(&model);
                let v = gen.value();
                put(&db.store, &tree, &k, &v);
                model.insert(k, v);
            }
            45..=64 => {
                let k = gen.existing_or_new_key(&model);
                let (existed, _) = remove(&db.store, &tree, &k);
                assert_eq!(existed, model.remove(&k).is_some(), "op {i}: remove of {k:?}");
            }
            65..=84 => {
                let k = gen.existing_or_new_key(&model);
                assert!(tree.get(&db.store, &k).unwrap() == model.get(&k).cloned(), "op {i}: get of {k:?}");
            }
            _ => {
                let (lo, hi, rev) = (gen.bound(), gen.bound(), gen.rng.gen_bool(0.5));
                let got = scan(&db.store, &tree, lo.clone(), hi.clone(), rev);
                let want = model_range(&model, &lo, &hi, rev);
                assert!(
                    got == want,
                    "op {i}: scan {lo:?}..{hi:?} rev={rev}: {} records, expected {}",
                    got.len(),
                    want.len()
                );
            }
        }
    }
    assert_tree_eq(&db.store, &tree, &model);
    let stats = db.store.stats();
    assert!(stats.page_writes > 0 && stats.page_reads > 0, "a 64-frame pool must evict and reload: {stats:?}");
    db.close();

    let db = open_new(dir.path(), 64);
    assert_tree_eq(&db.store, &tree, &model);
    db.close();
}

#[test]
fn random_operations_match_the_model_with_a_tiny_pool() {
    for seed in 0..2 * stress() as u64 {
        random_ops_against_model(seed, 1500);
    }
}

#[test]
fn ascending_inserts_fill_pages_and_the_root_keeps_its_id() {
    let dir = scratch_dir();
    let db = open_new(dir.path(), 256);
    let tree = BTree::open(db.store.system_tree_root(0));
    let before = db.store.tablespace_pages().unwrap();
    let n = 20_000u64;
    let mut model = BTreeMap::new();
    for i in 0..n {
        let k = i.to_be_bytes().to_vec();
        let v = vec![(i % 251) as u8; 50];
        put(&db.store, &tree, &k, &v);
        model.insert(k, v);
    }
    // 20,000 records of 2 + 5 + 8 + 50 bytes: 1.3 MB, 80 full pages. Appends must not leave
    // half-empty pages behind (that would be ~160).
    let used = db.store.tablespace_pages().unwrap() - before;
    assert!(used <= 90, "{used} pages for 80 pages of data");
    assert_tree_eq(&db.store, &tree, &model);
    db.close();
    let db = open_new(dir.path(), 256);
    assert_tree_eq(&db.store, &BTree::open(db.store.system_tree_root(0)), &model);
    db.close();
}

#[test]
fn limits_are_clean_errors() {
    let dir = scratch_dir();
    let db = open_new(dir.path(), 64);
    let tree = BTree::open(db.store.system_tree_root(1));
    let long = vec![7u8; MAX_KEY_LEN + 1];
    let mut mtr = Mtr::new(&db.store);
    let mut ran = false;
    let err = tree
        .modify(&mut mtr, &long, |_| {
            ran = true;
            (Change::Put(vec![]), ())
        })
        .unwrap_err();
    assert!(matches!(err, StorageError::KeyTooLong { max: MAX_KEY_LEN }), "{err:?}");
    assert!(!ran, "the closure must not run for a key that is too long");
    assert_eq!(mtr.commit(), (0, 0), "nothing was logged");
    assert_eq!(tree.get(&db.store, &long).unwrap(), None);

    let mut mtr = Mtr::new(&db.store);
    let err = tree.modify(&mut mtr, b"k", |_| (Change::Put(vec![0u8; MAX_VALUE_LEN + 1]), ())).unwrap_err();
    assert!(matches!(err, StorageError::RowTooLarge { .. }), "{err:?}");
    mtr.commit();
    assert_eq!(tree.get(&db.store, b"k").unwrap(), None);

    // The largest key, with a small and with an overflow value.
    let max_key = vec![9u8; MAX_KEY_LEN];
    put(&db.store, &tree, &max_key, b"small");
    assert_eq!(tree.get(&db.store, &max_key).unwrap(), Some(b"small".to_vec()));
    let big: Vec<u8> = (0..100_000u32).map(|i| (i % 253) as u8).collect();
    put(&db.store, &tree, &max_key, &big);
    assert_eq!(tree.get(&db.store, &max_key).unwrap(), Some(big));
    // Many maximal keys force splits whose separators are maximal too.
    for i in 0..40u8 {
        let mut k = vec![i; MAX_KEY_LEN];
        k[MAX_KEY_LEN - 1] = 0;
        put(&db.store, &tree, &k, &[i; 900]);
    }
    for i in 0..40u8 {
        let mut k = vec![i; MAX_KEY_LEN];
        k[MAX_KEY_LEN - 1] = 0;
        assert_eq!(tree.get(&db.store, &k).unwrap(), Some(vec![i; 900]));
    }
    db.close();
}

#[test]
fn modify_sees_the_current_value_and_keep_changes_nothing() {
    let dir = scratch_dir();
    let db = open_new(dir.path(), 64);
    let tree = BTree::open(db.store.system_tree_root(2));
    let big = vec![3u8; 50_000];
    put(&db.store, &tree, b"big", &big);
    put(&db.store, &tree, b"small", b"s");

    let mut mtr = Mtr::new(&db.store);
    let seen = tree.modify(&mut mtr, b"big", |v| (Change::Keep, v.map(|v| v.to_vec()))).unwrap();
    assert_eq!(seen, Some(big.clone()), "the closure sees overflow values whole");
    assert_eq!(mtr.commit(), (0, 0), "Keep logs nothing");

    // Counter increments through modify.
    for _ in 0..10 {
        let mut mtr = Mtr::new(&db.store);
        tree.modify(&mut mtr, b"counter", |v| {
            let n = v.map_or(0, |v| u64::from_le_bytes(v.try_into().unwrap()));
            (Change::Put((n + 1).to_le_bytes().to_vec()), ())
        })
        .unwrap();
        mtr.commit();
    }
    assert_eq!(tree.get(&db.store, b"counter").unwrap(), Some(10u64.to_le_bytes().to_vec()));

    // Overflow replaced by inline and back; the old chains are freed (no growth when repeated).
    put(&db.store, &tree, b"big", b"tiny");
    put(&db.store, &tree, b"big", &big);
    let pages = db.store.tablespace_pages().unwrap();
    for _ in 0..20 {
        put(&db.store, &tree, b"big", b"tiny");
        put(&db.store, &tree, b"big", &big);
    }
    assert_eq!(db.store.tablespace_pages().unwrap(), pages, "freed overflow pages are reused");
    assert_eq!(tree.get(&db.store, b"big").unwrap(), Some(big));
    let (existed, _) = remove(&db.store, &tree, b"big");
    assert!(existed);
    assert_eq!(tree.get(&db.store, b"big").unwrap(), None);
    db.close();
}

#[test]
fn destroy_returns_every_page_to_the_free_list() {
    let dir = scratch_dir();
    let db = open_new(dir.path(), 64);
    let fill = |tree: &BTree| {
        for i in 0..3000u32 {
            let v = if i % 100 == 0 { vec![1u8; 20_000] } else { vec![2u8; 100] };
            put(&db.store, tree, &i.to_be_bytes(), &v);
        }
    };
    let create = || {
        let mut mtr = Mtr::new(&db.store);
        let t = BTree::create(&mut mtr).unwrap();
        mtr.commit();
        t
    };
    let t1 = create();
    fill(&t1);
    let pages = db.store.tablespace_pages().unwrap();
    t1.destroy(&db.store).unwrap();
    let t2 = create();
    fill(&t2);
    assert_eq!(db.store.tablespace_pages().unwrap(), pages, "the second tree reuses the first one's pages");
    assert_eq!(t2.get(&db.store, &2999u32.to_be_bytes()).unwrap(), Some(vec![2u8; 100]));
    db.close();
}

#[test]
fn scans_skip_emptied_leaves_in_both_directions() {
    let dir = scratch_dir();
    let db = open_new(dir.path(), 128);
    let tree = BTree::open(db.store.system_tree_root(4));
    let mut model = BTreeMap::new();
    for i in 0..5000u32 {
        put(&db.store, &tree, &i.to_be_bytes(), &[5u8; 200]);
        model.insert(i.to_be_bytes().to_vec(), vec![5u8; 200]);
    }
    // Empty long stretches of leaves, keep a few records between them.
    for i in 0..5000u32 {
        if i % 1000 != 500 {
            remove(&db.store, &tree, &i.to_be_bytes());
            model.remove(i.to_be_bytes().as_slice());
        }
    }
    assert_eq!(model.len(), 5);
    assert_tree_eq(&db.store, &tree, &model);
    for (lo, hi) in [(0u32, 5000u32), (501, 3500), (1500, 1500), (2500, 2500)] {
        for rev in [false, true] {
            let (l, h) = (Bound::Included(lo.to_be_bytes().to_vec()), Bound::Included(hi.to_be_bytes().to_vec()));
            assert_eq!(scan(&db.store, &tree, l.clone(), h.clone(), rev), model_range(&model, &l, &h, rev));
        }
    }
    db.close();
}
