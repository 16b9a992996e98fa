//! Durability of the log: simulated power failures (in process and by SIGKILL), group commit,
//! flush modes, and waiters that are cancelled or outlive the writer.
//!
//! The crash tests check the two properties recovery depends on: every entry whose `wait_commit`
//! returned in mode 1 survives, and what survives is a prefix of what was appended (contiguous
//! from the first LSN, each entry byte-identical to the one appended at that LSN).
//! SELKIE_STRESS=1 multiplies the iteration counts.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use selkie_storage::io::Io;
use selkie_storage::wal::{LogScan, Lsn, Wal, WalConfig, FIRST_LSN};
use selkie_storage::{FaultInjection, FlushMode};

fn stress() -> u64 {
    if std::env::var_os("SELKIE_STRESS").is_some() {
        10
    } else {
        1
    }
}

fn payload(id: u64, len: usize) -> Vec<u8> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(id);
    let mut bytes: Vec<u8> = (0..len.max(8)).map(|_| rng.gen()).collect();
    bytes[..8].copy_from_slice(&id.to_le_bytes());
    bytes
}

fn config(mode: FlushMode, ring_bytes: usize, segment_bytes: u64) -> WalConfig {
    WalConfig { flush_mode: mode, segment_bytes, ring_bytes, ..WalConfig::default() }
}

/// What survived: entries from FIRST_LSN, checked to be a contiguous prefix of `appended`
/// (start -> (end, payload)). Returns the end of the valid log.
fn check_survivors_are_a_prefix(dir: &Path, segment_bytes: u64, appended: &BTreeMap<Lsn, (Lsn, Vec<u8>)>) -> Lsn {
    let io = Io::new(FaultInjection::default());
    let mut scan = LogScan::open(&io, dir, FIRST_LSN, segment_bytes).unwrap();
    let mut expect = FIRST_LSN;
    while let Some(e) = scan.next_entry().unwrap() {
        assert_eq!(e.start, expect, "survivors are contiguous");
        let (end, payload) = appended.get(&e.start).expect("a surviving entry was appended at its LSN");
        assert_eq!((e.end, &e.payload), (*end, payload), "surviving entry at {} is intact", e.start);
        expect = e.end;
    }
    assert_eq!(scan.end_lsn(), expect);
    expect
}

async fn crash_while_committing(fault: FaultInjection, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(fault);
    let segment = 64 * 1024;
    let wal = Wal::open(&io, dir.path(), config(FlushMode::Durable, 64 * 1024, segment), FIRST_LSN).unwrap();
    let appended = Arc::new(Mutex::new(BTreeMap::new()));
    let acked = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = Vec::new();
    for t in 0..16u64 {
        let (wal, appended, acked) = (Arc::clone(&wal), Arc::clone(&appended), Arc::clone(&acked));
        tasks.push(tokio::spawn(async move {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed * 100 + t);
            for i in 0.. {
                // Mostly small entries, some large enough to be written (and torn) as pages.
                let len = if rng.gen_ratio(1, 8) { rng.gen_range(4096..12_000) } else { rng.gen_range(8..300) };
                let p = payload(t << 32 | i, len);
                let (start, end) = wal.append(&p, |_, _| {});
                appended.lock().unwrap().insert(start, (end, p));
                match wal.wait_commit(end).await {
                    Ok(()) => acked.lock().unwrap().push((start, end)),
                    Err(_) => return,
                }
            }
        }));
    }
    let deadline = Instant::now() + Duration::from_secs(3);
    while acked.lock().unwrap().len() < 150 * stress() as usize && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    io.crash();
    for task in tasks {
        tokio::time::timeout(Duration::from_secs(10), task).await.expect("committers stop after the crash").unwrap();
    }
    assert!(wal.shutdown().is_err(), "the writer reports the crash");
    drop(wal);

    let appended = appended.lock().unwrap();
    let acked = acked.lock().unwrap();
    assert!(!acked.is_empty());
    let end = check_survivors_are_a_prefix(dir.path(), segment, &appended);
    for &(start, entry_end) in acked.iter() {
        assert!(entry_end <= end, "acknowledged entry {start}..{entry_end} lost (log ends at {end})");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn crash_keeps_every_acknowledged_commit() {
    for seed in 0..stress() {
        crash_while_committing(FaultInjection { lose_unsynced_writes: true, torn_page_writes: false }, seed).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn crash_with_torn_writes_keeps_a_verified_prefix() {
    for seed in 0..stress() {
        crash_while_committing(FaultInjection { lose_unsynced_writes: true, torn_page_writes: true }, seed + 1000)
            .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn group_commit_shares_fsyncs() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let wal = Wal::open(&io, dir.path(), WalConfig::default(), FIRST_LSN).unwrap();
    let committers = 32u64;
    let per_committer = 10 * stress();
    let start = tokio::sync::Barrier::new(committers as usize);
    let start = Arc::new(start);
    let mut tasks = Vec::new();
    for t in 0..committers {
        let (wal, start) = (Arc::clone(&wal), Arc::clone(&start));
        tasks.push(tokio::spawn(async move {
            start.wait().await;
            for i in 0..per_committer {
                let (_, end) = wal.append(&payload(t << 32 | i, 100), |_, _| {});
                wal.wait_commit(end).await.unwrap();
                assert!(wal.flushed_lsn() >= end, "mode 1: durable when wait_commit returns");
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let commits = committers * per_committer;
    let stats = wal.stats();
    wal.shutdown().unwrap();
    println!("{commits} commits: {stats:?}");
    assert!(stats.fsyncs < commits / 2, "{commits} commits needed {} fsyncs", stats.fsyncs);
    // Commits that find their LSN already durable do not wait; all others are released by syncs.
    assert!(stats.group_committed_waiters <= commits && stats.group_committed_waiters > commits / 2, "{stats:?}");
    assert!(stats.commit_groups <= stats.fsyncs);
    assert!(stats.max_commit_group > 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flush_modes_wait_for_what_they_promise() {
    let _exclusive = crate::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection { lose_unsynced_writes: true, torn_page_writes: false });
    let opened = Instant::now();
    let wal = Wal::open(&io, dir.path(), config(FlushMode::Lazy, 1 << 20, 1 << 20), FIRST_LSN).unwrap();

    // Mode 0: returns at once, durable within about two seconds.
    let (_, lazy_end) = wal.append(&payload(1, 64), |_, _| {});
    let t = Instant::now();
    wal.wait_commit(lazy_end).await.unwrap();
    assert!(t.elapsed() < Duration::from_millis(200));
    if opened.elapsed() < Duration::from_millis(500) {
        // The first background sync is one second after open.
        assert!(wal.flushed_lsn() < lazy_end, "mode 0 does not wait for the log");
    }
    let appended_at = Instant::now();
    while wal.flushed_lsn() < lazy_end {
        assert!(appended_at.elapsed() < Duration::from_millis(2500), "mode 0 log not durable after 2.5 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Mode 2: written at commit, synced in the background.
    wal.set_flush_mode(FlushMode::WriteOnly);
    let (_, write_end) = wal.append(&payload(2, 64), |_, _| {});
    wal.wait_commit(write_end).await.unwrap();
    assert!(wal.written_lsn() >= write_end);
    let appended_at = Instant::now();
    while wal.flushed_lsn() < write_end {
        assert!(appended_at.elapsed() < Duration::from_millis(2500), "mode 2 log not durable after 2.5 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Mode 1: durable at commit.
    wal.set_flush_mode(FlushMode::Durable);
    let (_, durable_end) = wal.append(&payload(3, 64), |_, _| {});
    wal.wait_commit(durable_end).await.unwrap();
    assert!(wal.flushed_lsn() >= durable_end);

    // flush_to forces a sync in mode 0 without waiting for the tick.
    wal.set_flush_mode(FlushMode::Lazy);
    let (_, forced_end) = wal.append(&payload(4, 64), |_, _| {});
    let t = Instant::now();
    let wal2 = Arc::clone(&wal);
    tokio::task::spawn_blocking(move || wal2.flush_to(forced_end)).await.unwrap().unwrap();
    assert!(wal.flushed_lsn() >= forced_end);
    assert!(t.elapsed() < Duration::from_millis(800), "flush_to waited for the background tick");

    // Everything reported durable survives a power failure.
    let (_, unsynced_end) = wal.append(&payload(5, 64), |_, _| {});
    io.crash();
    let _ = wal.shutdown();
    drop(wal);
    let mut appended = BTreeMap::new();
    let mut at = FIRST_LSN;
    for (id, end) in [(1, lazy_end), (2, write_end), (3, durable_end), (4, forced_end), (5, unsynced_end)] {
        appended.insert(at, (end, payload(id, 64)));
        at = end;
    }
    let end = check_survivors_are_a_prefix(dir.path(), 1 << 20, &appended);
    assert!(end >= forced_end);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelled_waits_leave_other_waiters_working() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let wal = Wal::open(&io, dir.path(), config(FlushMode::Durable, 8192, 8192), FIRST_LSN).unwrap();
    // An appender stalled in its stamp holds the log back, so waits behind it stay pending.
    let (stalled_tx, stalled_rx) = std::sync::mpsc::channel();
    let release = Arc::new(AtomicBool::new(false));
    let appender = {
        let (wal, release) = (Arc::clone(&wal), Arc::clone(&release));
        std::thread::spawn(move || {
            wal.append(b"stalled", |_, end| {
                stalled_tx.send(end).unwrap();
                while !release.load(Ordering::Acquire) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            })
        })
    };
    let stalled_end = stalled_rx.recv().unwrap();
    let (_, behind_end) = wal.append(b"behind", |_, _| {});
    for _ in 0..200 {
        let r = tokio::time::timeout(Duration::from_micros(50), wal.wait_commit(behind_end)).await;
        assert!(r.is_err(), "cannot be durable while an earlier entry is incomplete");
    }
    let finished = Arc::new(AtomicU64::new(0));
    let mut waiters = Vec::new();
    for _ in 0..8 {
        let (wal, finished) = (Arc::clone(&wal), Arc::clone(&finished));
        waiters.push(tokio::spawn(async move {
            wal.wait_commit(behind_end).await.unwrap();
            finished.fetch_add(1, Ordering::SeqCst);
        }));
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(finished.load(Ordering::SeqCst), 0);
    release.store(true, Ordering::Release);
    assert_eq!(appender.join().unwrap().1, stalled_end);
    for w in waiters {
        tokio::time::timeout(Duration::from_secs(5), w).await.expect("waiter woken").unwrap();
    }
    assert!(wal.flushed_lsn() >= behind_end);
    wal.shutdown().unwrap();
}

#[tokio::test]
async fn waiters_fail_cleanly_after_shutdown_and_drop_does_not_hang() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let wal = Wal::open(&io, dir.path(), config(FlushMode::Durable, 8192, 8192), FIRST_LSN).unwrap();
    let (_, end) = wal.append(b"before", |_, _| {});
    wal.shutdown().unwrap();
    assert!(wal.flushed_lsn() >= end, "shutdown syncs everything");
    wal.wait_commit(end).await.unwrap();
    wal.shutdown().unwrap();
    // A caller bug, but it must not hang: the entry is never written and waiting reports it.
    let (_, late_end) = wal.append(b"after", |_, _| {});
    assert!(wal.wait_commit(late_end).await.is_err());
    assert!(wal.flush_to(late_end).is_err());
    drop(wal);

    // Dropped while busy and never shut down: the writer drains and exits.
    let wal = Wal::open(&io, dir.path(), config(FlushMode::WriteOnly, 8192, 8192), end).unwrap();
    for i in 0..500 {
        wal.append(&payload(i, 200), |_, _| {});
    }
    let t = Instant::now();
    drop(wal);
    assert!(t.elapsed() < Duration::from_secs(5));
}

/// Real process death: a child process commits in a loop with unsynced writes held in memory and
/// reports each acknowledged commit; the parent SIGKILLs it and checks the log on disk.
#[test]
fn sigkill_loses_only_unacknowledged_commits() {
    const CHILD_ENV: &str = "SELKIE_WAL_SIGKILL_CHILD_DIR";
    const SEGMENT: u64 = 64 * 1024;
    if let Some(dir) = std::env::var_os(CHILD_ENV) {
        sigkill_child(Path::new(&dir), SEGMENT);
        return;
    }
    use std::io::BufRead;
    /// Kills the child even if an assertion below fails first.
    struct KillOnDrop(std::process::Child);
    impl Drop for KillOnDrop {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    // The harness names the test by its path below the crate root (`wal_durability::...` in the
    // one test binary of tests/main.rs).
    let test_name = match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::sigkill_loses_only_unacknowledged_commits"),
        None => "sigkill_loses_only_unacknowledged_commits".to_string(),
    };
    let dir = tempfile::tempdir().unwrap();
    let mut child = KillOnDrop(
        std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", &test_name, "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, dir.path())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let stdout = std::io::BufReader::new(child.0.stdout.take().unwrap());
    let mut acked = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    for line in stdout.lines() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("ACK ") {
            let v: Vec<u64> = rest.split(' ').map(|x| x.parse().unwrap()).collect();
            acked.push((v[0], v[1], v[2]));
        }
        if acked.len() >= 200 * stress() as usize || Instant::now() > deadline {
            break;
        }
    }
    // SIGKILL: no destructor, no flush, exactly like pulling the plug on the unsynced writes.
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    assert!(acked.len() > 10, "child made progress");

    let io = Io::new(FaultInjection::default());
    let mut scan = LogScan::open(&io, dir.path(), FIRST_LSN, SEGMENT).unwrap();
    let mut survivors = BTreeMap::new();
    let mut expect = FIRST_LSN;
    while let Some(e) = scan.next_entry().unwrap() {
        assert_eq!(e.start, expect);
        expect = e.end;
        let id = u64::from_le_bytes(e.payload[..8].try_into().unwrap());
        assert_eq!(e.payload, payload(id, child_payload_len(id)), "entry {id} intact");
        survivors.insert(e.start, (e.end, id));
    }
    for (start, end, id) in acked {
        assert_eq!(survivors.get(&start), Some(&(end, id)), "acknowledged commit {id} lost");
    }
}

fn child_payload_len(id: u64) -> usize {
    (id as usize * 37) % 3000 + 8
}

fn sigkill_child(dir: &Path, segment: u64) {
    use std::io::Write;
    let io = Io::new(FaultInjection { lose_unsynced_writes: true, torn_page_writes: true });
    let wal = Wal::open(&io, dir, config(FlushMode::Durable, 64 * 1024, segment), FIRST_LSN).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut out = std::io::stdout().lock();
    // The parent kills us long before this; the bound only matters if the parent died first.
    let give_up = Instant::now() + Duration::from_secs(30);
    for id in 0.. {
        if Instant::now() > give_up {
            return;
        }
        let (start, end) = wal.append(&payload(id, child_payload_len(id)), |_, _| {});
        rt.block_on(wal.wait_commit(end)).unwrap();
        writeln!(out, "ACK {start} {end} {id}").unwrap();
        out.flush().unwrap();
    }
}

/// Throughput of the append path and of group commit. By default a short run that checks the
/// accounting; with SELKIE_WAL_BENCH=1 (use --release) a longer one that prints the numbers.
#[test]
fn throughput_report() {
    let bench = std::env::var_os("SELKIE_WAL_BENCH").is_some();
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let payload_len = 100;
    let mut at = FIRST_LSN;
    for threads in [1u64, 2, 4, 8] {
        let per_thread = if bench { 400_000 } else { 2_000 };
        let wal =
            Wal::open(&io, dir.path(), WalConfig { flush_mode: FlushMode::WriteOnly, ..WalConfig::default() }, at)
                .unwrap();
        let p = vec![7u8; payload_len];
        let t = Instant::now();
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    for _ in 0..per_thread {
                        wal.append(&p, |_, _| {});
                    }
                });
            }
        });
        let appended = wal.reserved_lsn();
        wal.flush_to(appended).unwrap();
        let secs = t.elapsed().as_secs_f64();
        let stats = wal.stats();
        wal.shutdown().unwrap();
        assert_eq!(appended - at, threads * per_thread * 120, "100-byte payloads frame to 120 bytes");
        assert_eq!(stats.bytes_written, appended - at);
        if bench {
            println!(
                "append {threads} threads: {:.2} M entries/s, {:.0} MB/s, ring-full waits {}, pwrite bytes {}",
                (threads * per_thread) as f64 / secs / 1e6,
                (appended - at) as f64 / secs / 1e6,
                stats.ring_full_waits,
                stats.bytes_written
            );
        }
        at = appended;
    }

    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(4).enable_all().build().unwrap();
    for committers in [1u64, 16, 64, 256] {
        let wal = Wal::open(&io, dir.path(), WalConfig::default(), at).unwrap();
        let run_for = if bench { Duration::from_secs(2) } else { Duration::from_millis(100) };
        let t = Instant::now();
        let commits: u64 = rt.block_on(async {
            let tasks: Vec<_> = (0..committers)
                .map(|_| {
                    let wal = Arc::clone(&wal);
                    tokio::spawn(async move {
                        let mut n = 0u64;
                        while t.elapsed() < run_for {
                            let (_, end) = wal.append(&[1u8; 100], |_, _| {});
                            wal.wait_commit(end).await.unwrap();
                            n += 1;
                        }
                        n
                    })
                })
                .collect();
            let mut total = 0;
            for task in tasks {
                total += task.await.unwrap();
            }
            total
        });
        let secs = t.elapsed().as_secs_f64();
        let stats = wal.stats();
        at = wal.reserved_lsn();
        wal.shutdown().unwrap();
        // A commit that finds its LSN already durable does not wait, so is in no group.
        assert!(stats.group_committed_waiters <= commits && commits > 0);
        assert!(stats.fsyncs >= stats.commit_groups && stats.commit_groups > 0);
        if bench {
            println!(
                "commit {committers} committers: {:.0} commits/s, {} fsyncs, avg group {:.1}, max group {}",
                commits as f64 / secs,
                stats.fsyncs,
                stats.group_committed_waiters as f64 / stats.commit_groups as f64,
                stats.max_commit_group
            );
        }
    }
}
