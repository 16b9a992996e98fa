//! B+tree micro-benchmarks: point get, range scan of 100, insert, update; one and two threads;
//! a pool that holds the whole tree ("mem") and one that holds about a tenth of it ("disk":
//! every miss reads a page from the data file, served by the OS page cache). The log runs in
//! flush mode 0, so commits do not wait for fsync and the numbers measure the page store.
//!
//! Run: cargo bench -p selkie-storage --bench btree

use std::hint::black_box;
use std::ops::Bound;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use selkie_storage::btree::{BTree, Change};
use selkie_storage::buffer::{CheckpointHooks, PageStore, PageStoreConfig};
use selkie_storage::io::Io;
use selkie_storage::mtr::Mtr;
use selkie_storage::wal::{Lsn, Wal, WalConfig, FIRST_LSN};
use selkie_storage::{FaultInjection, FlushMode};

const RECORDS: u64 = 200_000;
const VALUE_LEN: usize = 100;

struct NoTrx;
impl CheckpointHooks for NoTrx {
    fn scan_start_floor(&self) -> Lsn {
        Lsn::MAX
    }
    fn next_trx_id(&self) -> u64 {
        1
    }
}

struct Bench {
    store: Arc<PageStore>,
    wal: Arc<Wal>,
    tree: BTree,
    next_insert: AtomicU64,
    _dir: tempfile::TempDir,
}

fn key(i: u64) -> [u8; 8] {
    i.wrapping_mul(0x9E37_79B9_7F4A_7C15).to_be_bytes()
}

fn put(store: &PageStore, tree: &BTree, k: &[u8], v: &[u8]) {
    let mut mtr = Mtr::new(store);
    tree.modify(&mut mtr, k, |_| (Change::Put(v.to_vec()), ())).unwrap();
    mtr.commit();
}

fn setup(pool_bytes: u64) -> Bench {
    let dir =
        if Path::new("/dev/shm").is_dir() { tempfile::tempdir_in("/dev/shm") } else { tempfile::tempdir() }.unwrap();
    let io = Io::new(FaultInjection::default());
    let store = PageStore::open(&io, dir.path(), PageStoreConfig::new(pool_bytes)).unwrap();
    let wal = Wal::open(&io, dir.path(), WalConfig { flush_mode: FlushMode::Lazy, ..WalConfig::default() }, FIRST_LSN)
        .unwrap();
    store.start(wal.clone(), Arc::new(NoTrx)).unwrap();
    let tree = BTree::open(store.system_tree_root(0));
    for i in 0..RECORDS {
        put(&store, &tree, &key(i), &[i as u8; VALUE_LEN]);
    }
    store.checkpoint_now().unwrap();
    Bench { store, wal, tree, next_insert: AtomicU64::new(RECORDS), _dir: dir }
}

/// Runs `op` `iters` times split over `threads` threads; returns the wall time (so the reported
/// time per iteration is the inverse of the aggregate throughput).
fn run_threads(b: &Bench, threads: u64, iters: u64, op: impl Fn(&Bench, &mut StdRng) + Sync) -> Duration {
    let start = Instant::now();
    std::thread::scope(|s| {
        for t in 0..threads {
            let op = &op;
            s.spawn(move || {
                let mut rng = StdRng::seed_from_u64(t * 7919 + iters);
                for _ in 0..iters / threads {
                    op(b, &mut rng);
                }
            });
        }
    });
    start.elapsed()
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("btree");
    group.sample_size(10).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    // ~200k records of 100 bytes: ~25 MB of leaves.
    for (pool_name, pool_bytes) in [("mem", 256u64 << 20), ("disk", 3u64 << 20)] {
        let bench = setup(pool_bytes);
        for threads in [1u64, 2] {
            let id = |op: &str| BenchmarkId::new(op, format!("{pool_name}/{threads}t"));
            group.bench_function(id("get"), |bn| {
                bn.iter_custom(|iters| {
                    run_threads(&bench, threads, iters, |b, rng| {
                        let k = key(rng.gen_range(0..RECORDS));
                        black_box(b.tree.get(&b.store, &k).unwrap());
                    })
                })
            });
            group.bench_function(id("scan100"), |bn| {
                bn.iter_custom(|iters| {
                    run_threads(&bench, threads, iters, |b, rng| {
                        let start = key(rng.gen_range(0..RECORDS)).to_vec();
                        let mut cursor = b.tree.cursor(Bound::Included(start), Bound::Unbounded, false);
                        for _ in 0..100 {
                            if black_box(cursor.next(&b.store).unwrap()).is_none() {
                                break;
                            }
                        }
                    })
                })
            });
            group.bench_function(id("update"), |bn| {
                bn.iter_custom(|iters| {
                    run_threads(&bench, threads, iters, |b, rng| {
                        let i = rng.gen_range(0..RECORDS);
                        put(&b.store, &b.tree, &key(i), &[rng.gen::<u8>(); VALUE_LEN]);
                    })
                })
            });
            group.bench_function(id("insert"), |bn| {
                bn.iter_custom(|iters| {
                    run_threads(&bench, threads, iters, |b, _| {
                        let i = b.next_insert.fetch_add(1, Ordering::Relaxed);
                        put(&b.store, &b.tree, &key(i), &[i as u8; VALUE_LEN]);
                    })
                })
            });
        }
        let stats = bench.store.stats();
        eprintln!("{pool_name}: {stats:?}");
        bench.store.shutdown().unwrap();
        bench.wal.shutdown().unwrap();
    }
    group.finish();
}

criterion_group!(btree_benches, benches);
criterion_main!(btree_benches);
