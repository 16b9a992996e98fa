//! Larger than memory: about 40 MB of records through a 2 MB pool (128 frames), every record
//! verified by point gets and scans after a restart. SELKIE_STRESS=1 writes ten times as much.

use crate::pagestore_support;

use std::ops::Bound;

use pagestore_support::*;
use selkie_storage::btree::BTree;

/// Keys in a scattered order (a multiplicative hash of the index), so inserts hit every leaf.
fn key(i: u64) -> [u8; 8] {
    (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5555).to_be_bytes()
}

fn value(i: u64) -> Vec<u8> {
    let len = if i.is_multiple_of(97) { 9_000 } else { 1_000 };
    (0..len).map(|j| (i as usize * 31 + j) as u8).collect()
}

#[test]
fn forty_megabytes_through_a_two_megabyte_pool() {
    let dir = scratch_dir();
    let db = open_new(dir.path(), 128);
    let tree = BTree::open(db.store.system_tree_root(0));
    let n = 40_000 * stress() as u64;
    let mut bytes = 0;
    let t0 = std::time::Instant::now();
    for i in 0..n {
        let v = value(i);
        bytes += v.len();
        put(&db.store, &tree, &key(i), &v);
    }
    assert!(bytes >= 40_000_000 * stress());
    eprintln!("load took {:?}: {:?}", t0.elapsed(), db.store.stats());
    // Rewrite a tenth with other values while the pool is cold for most of them.
    for i in (0..n).step_by(10) {
        put(&db.store, &tree, &key(i), &value(i + 1));
    }
    let expect = |i: u64| if i.is_multiple_of(10) { value(i + 1) } else { value(i) };
    for i in (0..n).step_by(7) {
        assert_eq!(tree.get(&db.store, &key(i)).unwrap(), Some(expect(i)), "record {i}");
    }
    let stats = db.store.stats();
    eprintln!("after load: {stats:?}");
    assert!(stats.page_reads > 1000 && stats.page_writes > 2500, "the data cannot fit in the pool: {stats:?}");
    db.close();

    let db = open_new(dir.path(), 128);
    let mut sorted: Vec<u64> = (0..n).collect();
    sorted.sort_by_key(|&i| key(i));
    let mut cursor = tree.cursor(Bound::Unbounded, Bound::Unbounded, false);
    for &i in &sorted {
        let (k, v) = cursor.next(&db.store).unwrap().expect("record missing from the scan");
        assert_eq!(k, key(i));
        assert!(v == expect(i), "value of record {i}");
    }
    assert!(cursor.next(&db.store).unwrap().is_none());
    for i in 0..n {
        assert!(tree.get(&db.store, &key(i)).unwrap() == Some(expect(i)), "record {i}");
    }
    db.close();
}
