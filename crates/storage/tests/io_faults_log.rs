//! The log writer under injected I/O faults, without the engine around it (docs §4.5, §4.10):
//! no disk space for a segment stalls it (never kills it) until space returns, and what was
//! appended meanwhile is all written, in order; a failed write ends it for good, and every
//! waiter learns so.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use selkie_storage::io::{FaultError, FileKind, Io, IoFault, IoOp};
use selkie_storage::wal::{LogScan, Lsn, Wal, WalConfig, FIRST_LSN};
use selkie_storage::{FaultInjection, FlushMode, StorageError};

const SEGMENT: u64 = 8192;

fn config() -> WalConfig {
    WalConfig { flush_mode: FlushMode::Durable, segment_bytes: SEGMENT, ring_bytes: 64 * 1024, ..WalConfig::default() }
}

fn payload(id: u64) -> Vec<u8> {
    let mut p = vec![(id % 251) as u8; 600];
    p[..8].copy_from_slice(&id.to_le_bytes());
    p
}

/// The entries from FIRST_LSN on.
fn scan(io: &Io, dir: &std::path::Path) -> BTreeMap<Lsn, Vec<u8>> {
    let mut s = LogScan::open(io, dir, FIRST_LSN, SEGMENT).unwrap();
    let mut out = BTreeMap::new();
    while let Some(e) = s.next_entry().unwrap() {
        out.insert(e.start, e.payload);
    }
    out
}

/// No space for the next segment: the writer stalls at the end of the prepared ones and
/// committers wait (the page cleaner's flush gives up at once instead), then everything is
/// written once space returns.
#[test]
fn no_space_for_a_segment_stalls_the_writer_until_space_returns() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let wal = Wal::open(&io, dir.path(), config(), FIRST_LSN).unwrap();
    let full = io.inject(IoFault::new(FileKind::LogSegment, IoOp::Extend, FaultError::NoSpace));
    // About five segments of log: more than the two prepared at open.
    let mut appended = BTreeMap::new();
    let mut last = 0;
    for id in 0..64u64 {
        let p = payload(id);
        let (start, end) = wal.append(&p, |_, _| {});
        appended.insert(start, p);
        last = end;
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while !wal.is_stalled() {
        assert!(Instant::now() < deadline, "the writer never stalled");
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(wal.space_short());
    assert!(io.fault_hits(full) >= 1);
    assert!(wal.flushed_lsn() < last);
    assert_eq!(wal.flush_to_unless_stalled(last).unwrap(), wal.flushed_lsn(), "the cleaner's flush does not wait");
    assert_eq!(wal.stats().space_waits, 1);

    let (done_tx, done_rx) = mpsc::channel();
    std::thread::scope(|s| {
        let wal = &wal;
        s.spawn(move || done_tx.send(wal.flush_to(last)).unwrap());
        assert!(done_rx.recv_timeout(Duration::from_millis(300)).is_err(), "a committer waits for space");
        io.clear_faults();
        let flushed = done_rx.recv_timeout(Duration::from_secs(10)).expect("space returned, the log moves");
        flushed.unwrap();
    });
    assert!(!wal.is_stalled());
    // The writer prepares ahead again: the shortage is over.
    let deadline = Instant::now() + Duration::from_secs(5);
    while wal.space_short() {
        assert!(Instant::now() < deadline, "the writer never prepared ahead again");
        let (_, end) = wal.append(b"tick", |_, _| {});
        wal.flush_to(end).unwrap();
        std::thread::sleep(Duration::from_millis(20));
    }
    wal.shutdown().unwrap();
    let scanned = scan(&io, dir.path());
    for (start, p) in &appended {
        assert_eq!(scanned.get(start), Some(p), "entry at {start} written once space returned");
    }
}

/// A segment recycled by a checkpoint makes room without new disk space.
#[test]
fn a_checkpoint_lets_a_stalled_writer_recycle_a_segment() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let wal = Wal::open(&io, dir.path(), config(), FIRST_LSN).unwrap();
    let mut last = 0;
    for id in 0..64u64 {
        last = wal.append(&payload(id), |_, _| {}).1;
    }
    wal.flush_to(last).unwrap();
    io.inject(IoFault::new(FileKind::LogSegment, IoOp::Extend, FaultError::NoSpace));
    for id in 64..96u64 {
        last = wal.append(&payload(id), |_, _| {}).1;
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while !wal.is_stalled() && wal.flushed_lsn() < last {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(2));
    }
    // A checkpoint at the durable end: every older segment is no longer needed.
    wal.truncate_before(wal.flushed_lsn()).unwrap();
    wal.flush_to(last).unwrap();
    wal.shutdown().unwrap();
}

/// A write error ends the writer: the committer that waited, and every later one, gets
/// `CommitFailed` (1180), and the writer never writes again even once the fault is gone.
#[test]
fn a_failed_write_ends_the_writer_for_good() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let wal = Wal::open(&io, dir.path(), config(), FIRST_LSN).unwrap();
    let (_, ok_end) = wal.append(&payload(0), |_, _| {});
    wal.flush_to(ok_end).unwrap();
    let fault = io.inject(IoFault::new(FileKind::LogSegment, IoOp::Write, FaultError::Eio).nth(1));
    let (_, end) = wal.append(&payload(1), |_, _| {});
    let err = wal.flush_to(end).unwrap_err();
    assert!(matches!(err, StorageError::CommitFailed { errno: 5 }), "{err:?}");
    assert_eq!(io.fault_hits(fault), 1);
    let (_, later) = wal.append(&payload(2), |_, _| {});
    assert!(matches!(wal.flush_to(later), Err(StorageError::CommitFailed { .. })));
    assert!(wal.check_writable().is_err());
    assert!(wal.shutdown().is_err());
    let scanned = scan(&io, dir.path());
    assert_eq!(scanned.len(), 1, "only the entry before the failure");
    assert_eq!(scanned[&FIRST_LSN], payload(0));
}
