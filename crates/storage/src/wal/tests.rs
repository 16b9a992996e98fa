//! Unit tests that need the log's private state (waiter list, writer state).

use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::task::{Context, Waker};
use std::time::{Duration, Instant};

use std::path::Path;
use std::sync::Arc;

use super::shared::{WRITER_AWAKE, WRITER_FAILED};
use super::wait::CommitWait;
use super::waiters::WaitKind;
use super::*;
use crate::io::Io;
use crate::types::{FaultInjection, FlushMode};

fn small_wal(dir: &Path, mode: FlushMode) -> Arc<Wal> {
    let io = Io::new(FaultInjection::default());
    let config = WalConfig { flush_mode: mode, segment_bytes: 8192, ring_bytes: 8192, ..WalConfig::default() };
    Wal::open(&io, dir, config, FIRST_LSN).unwrap()
}

#[test]
fn wal_and_commit_future_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>(_: &T) {}
    send_sync::<Wal>();
    send_sync::<Io>();
    let dir = tempfile::tempdir().unwrap();
    let wal = small_wal(dir.path(), FlushMode::Durable);
    let future = wal.wait_commit(FIRST_LSN);
    send(&future);
    drop(future);
    wal.shutdown().unwrap();
}

/// A cancelled wait must not leave its registration behind, and a completed one must not need a
/// second lock to clean up.
#[test]
fn dropped_wait_deregisters() {
    let dir = tempfile::tempdir().unwrap();
    let wal = small_wal(dir.path(), FlushMode::Durable);
    let (stalled_tx, stalled_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        let w = &wal;
        s.spawn(move || {
            w.append(b"stalled", |_, end| {
                stalled_tx.send(end).unwrap();
                release_rx.recv().unwrap();
            })
        });
        let end = stalled_rx.recv().unwrap();
        let mut cx = Context::from_waker(Waker::noop());
        let mut futures: Vec<_> =
            (0..10).map(|_| Box::pin(CommitWait::new(&wal.shared, end, WaitKind::Durable))).collect();
        for f in &mut futures {
            assert!(f.as_mut().poll(&mut cx).is_pending());
            assert!(f.as_mut().poll(&mut cx).is_pending(), "re-polling keeps one registration");
        }
        assert_eq!(wal.shared.waiters.lock().len(), 10);
        futures.truncate(4);
        assert_eq!(wal.shared.waiters.lock().len(), 4, "dropped futures deregistered");
        release_tx.send(()).unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        for f in &mut futures {
            while f.as_mut().poll(&mut cx).is_pending() {
                assert!(Instant::now() < deadline, "waiter never released");
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        assert_eq!(wal.shared.waiters.lock().len(), 0, "the writer drained them");
    });
    wal.shutdown().unwrap();
}

/// The writer sleeps when idle and each append wakes it exactly when needed: sequential commits
/// must never wait for the one-second tick (which would hide a lost wake-up).
#[test]
fn idle_writer_is_woken_by_each_commit() {
    let dir = tempfile::tempdir().unwrap();
    for mode in [FlushMode::Durable, FlushMode::WriteOnly] {
        let wal = small_wal(&dir.path().join(format!("{mode:?}")), mode);
        let mut slow = 0;
        for i in 0..100u32 {
            // Let the writer go back to sleep between commits.
            if i % 10 == 0 {
                let deadline = Instant::now() + Duration::from_secs(2);
                while wal.shared.writer_state.load(Ordering::SeqCst) == WRITER_AWAKE {
                    assert!(Instant::now() < deadline, "writer never sleeps");
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            let t = Instant::now();
            let (_, end) = wal.append(&i.to_le_bytes(), |_, _| {});
            wait::block_on(wal.wait_commit(end)).unwrap();
            if t.elapsed() >= BACKGROUND_SYNC_INTERVAL * 9 / 10 {
                slow += 1;
                if slow > 2 {
                    break;
                }
            }
        }
        // A lost wake-up costs a full tick; scheduling noise on a loaded machine might cost one.
        assert!(slow <= 2, "{slow} commits waited for the background tick in {mode:?}");
        wal.shutdown().unwrap();
    }
}

#[test]
fn writer_failure_releases_everyone_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection { lose_unsynced_writes: true, torn_page_writes: false });
    let config =
        WalConfig { flush_mode: FlushMode::Durable, segment_bytes: 8192, ring_bytes: 4096, ..WalConfig::default() };
    let wal = Wal::open(&io, dir.path(), config, FIRST_LSN).unwrap();
    io.crash();
    // The ring is 4 KiB: these appends fill it, and appenders must not block forever on a dead
    // writer.
    let mut last = 0;
    for i in 0..100u32 {
        last = wal.append(&[i as u8; 500], |_, _| {}).1;
    }
    assert!(wal.flush_to(last).is_err());
    assert!(wait::block_on(wal.wait_commit(last)).is_err());
    assert_eq!(wal.shared.status(), WRITER_FAILED);
    assert!(wal.shutdown().is_err());
}
