//! The engine under injected I/O faults (docs §4.10): what a client sees on each fault, that
//! nothing acknowledged is lost, and that the engine goes on (reads always; writes after a
//! fault that leaves durability intact).
//!
//! - Log write or fsync error, short log write: the commit fails (1180), every later write is
//!   refused (1836), reads go on, and a restart recovers every acknowledged commit.
//! - Data-file, doublewrite or control-file write or fsync error: fail-stop too, the checkpoint stays behind,
//!   commits still reach the healthy log; a restart recovers everything committed.
//! - Read error: that statement fails, nothing else changes.
//! - Disk full: the data file fails the statement with 1114 and works again once space returns;
//!   rollback uses the space reserve; the log waits (never fails) and resumes; a log at its
//!   capacity recycles its segments and needs no new space; write-back that finds no space is
//!   retried, and writers wait at the sync point meanwhile instead of failing.
//!
//! Each test takes well under a second or two; SELKIE_STRESS=1 makes the log-space tests write
//! ten times more.

use crate::engine_util;

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine_util::*;
use selkie_storage::io::{FaultError, FileKind, IoFault, IoOp};
use selkie_storage::*;

/// Large enough to fill pages quickly, small enough to stay in the leaf (a quarter page).
const WIDE: usize = 1000;

fn wide_table(name: &str) -> NewTable {
    NewTable {
        db: "d".into(),
        name: name.into(),
        columns: vec![col("id", int(), false), col("c", varchar(4000), true)],
        primary_key: vec![ic(0)],
        indexes: vec![],
        options: TableOptions::default(),
        auto_increment_start: None,
    }
}

fn wide_row(id: i64, len: usize) -> Vec<Datum> {
    let fill = format!("{id:08}-");
    let c: String = fill.chars().cycle().take(len).collect();
    vec![Datum::Int(id), Datum::Bytes(c.into_bytes())]
}

fn open(dir: &Path, lossy: bool) -> Arc<Engine> {
    let c = if lossy { crash_config(dir) } else { config(dir) };
    Engine::open(c).unwrap()
}

async fn setup(dir: &Path, lossy: bool) -> (Arc<Engine>, Arc<TableDef>) {
    let e = open(dir, lossy);
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(wide_table("t"), false).await.unwrap();
    let t = table(&e, "d", "t");
    (e, t)
}

/// Inserts `ids` in one transaction and commits it.
async fn insert_committed(e: &Engine, t: &Arc<TableDef>, ids: impl IntoIterator<Item = i64>) {
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for id in ids {
        trx.insert(t, wide_row(id, WIDE), OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
}

/// The ids in the table, read in a transaction of its own.
fn ids(e: &Engine, t: &Arc<TableDef>) -> Vec<i64> {
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    let rows = scan_all(&mut trx, t, 0, KeyRange::all(), false, ReadMode::Consistent);
    rows.iter()
        .map(|r| match r[0] {
            Datum::Int(id) => id,
            _ => panic!("{r:?}"),
        })
        .collect()
}

fn code(e: &StorageError) -> u16 {
    e.mysql_code().0
}

/// A power cut right now, then a restart with no fault armed.
fn crash_and_reopen(e: Arc<Engine>, dir: &Path, lossy: bool) -> (Arc<Engine>, Arc<TableDef>) {
    e.crash_for_test();
    drop(e);
    let e = open(dir, lossy);
    let t = table(&e, "d", "t");
    (e, t)
}

/// After fail-stop: row writes and DDL get 1836, reads go on, and clearing the fault changes
/// nothing (no un-halting without a restart).
async fn assert_writes_stopped(e: &Engine, t: &Arc<TableDef>, readable: i64) {
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    let err = trx.insert(t, wide_row(9_000, 10), OnDuplicate::Error).await.unwrap_err();
    assert_eq!(code(&err), 1836, "{err}");
    assert_eq!(err.to_string(), "Running in read-only mode");
    assert!(trx.get(t, &[Datum::Int(readable)]).unwrap().is_some(), "reads go on");
    trx.rollback().unwrap();
    let err = e.create_table(wide_table("u"), false).await.unwrap_err();
    assert_eq!(code(&err), 1836, "{err}");
    assert_eq!(status_value(e, "Selkie_writes_stopped"), 1);
    e.clear_io_faults_for_test();
    let mut trx = e.begin(&s, opts());
    assert_eq!(code(&trx.insert(t, wide_row(9_001, 10), OnDuplicate::Error).await.unwrap_err()), 1836);
    trx.rollback().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_write_error_fails_the_commit_and_stops_writes() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path(), true).await;
    insert_committed(&e, &t, 0..10).await;
    let fault = e.inject_io_fault_for_test(IoFault::new(FileKind::LogSegment, IoOp::Write, FaultError::Eio));
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    trx.insert(&t, wide_row(100, WIDE), OnDuplicate::Error).await.unwrap();
    let err = trx.commit().await.unwrap_err();
    assert_eq!(code(&err), 1180, "{err}");
    assert_eq!(err.to_string(), "Got error 5 \"Input/output error\" during COMMIT");
    assert!(e.io_fault_hits_for_test(fault) >= 1);
    assert_writes_stopped(&e, &t, 3).await;
    drop(s);

    let (e, t) = crash_and_reopen(e, dir.path(), true);
    assert_eq!(ids(&e, &t), (0..10).collect::<Vec<_>>(), "every acknowledged commit, nothing else");
    insert_committed(&e, &t, [10]).await;
    assert_eq!(status_value(&e, "Selkie_writes_stopped"), 0);
}

/// fsyncgate: after a failed fsync the unsynced log is gone (the fault injection drops it, as the
/// kernel may), and a second fsync would succeed. The engine never tries one: the failing commit
/// and every later one fail, and after a power cut exactly the acknowledged commits are there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_fsync_failure_is_never_retried() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path(), true).await;
    insert_committed(&e, &t, 0..10).await;
    // Only the next fsync fails: a retry would succeed.
    let fault = e.inject_io_fault_for_test(IoFault::new(FileKind::LogSegment, IoOp::Sync, FaultError::Eio).nth(1));
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    trx.insert(&t, wide_row(100, WIDE), OnDuplicate::Error).await.unwrap();
    assert_eq!(code(&trx.commit().await.unwrap_err()), 1180);
    assert_eq!(e.io_fault_hits_for_test(fault), 1);
    let mut trx = e.begin(&s, opts());
    assert_eq!(code(&trx.insert(&t, wide_row(101, WIDE), OnDuplicate::Error).await.unwrap_err()), 1836);
    trx.rollback().unwrap();
    assert_writes_stopped(&e, &t, 3).await;
    drop(s);

    let (e, t) = crash_and_reopen(e, dir.path(), true);
    assert_eq!(ids(&e, &t), (0..10).collect::<Vec<_>>());
}

/// A log write that reaches the disk halfway: fail-stop, and the restart cuts the torn tail (and
/// later writes are not confused by its bytes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn short_log_write_fails_stop_and_recovery_cuts_the_tail() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path(), false).await;
    insert_committed(&e, &t, 0..10).await;
    e.inject_io_fault_for_test(IoFault::new(FileKind::LogSegment, IoOp::Write, FaultError::ShortWrite).nth(1));
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    // One entry of a few KiB: its first half reaches the file.
    trx.insert(&t, wide_row(100, 3 * WIDE), OnDuplicate::Error).await.unwrap();
    assert_eq!(code(&trx.commit().await.unwrap_err()), 1180);
    assert_writes_stopped(&e, &t, 3).await;
    drop(s);

    let (e, t) = crash_and_reopen(e, dir.path(), false);
    assert_eq!(ids(&e, &t), (0..10).collect::<Vec<_>>());
    insert_committed(&e, &t, 10..20).await;
    let (e, t) = crash_and_reopen(e, dir.path(), false);
    assert_eq!(ids(&e, &t), (0..20).collect::<Vec<_>>());
}

/// A write-back error (data file or doublewrite area, write or fsync): the engine stops taking
/// writes and the checkpoint stays; a transaction that already wrote can still commit (the log
/// is healthy); after a power cut the restart redoes everything from the old checkpoint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_back_error_stops_writes_but_commits_reach_the_log() {
    for (kind, op) in
        [(FileKind::Data, IoOp::Write), (FileKind::Doublewrite, IoOp::Write), (FileKind::Doublewrite, IoOp::Sync)]
    {
        let dir = tempfile::tempdir().unwrap();
        let (e, t) = setup(dir.path(), true).await;
        insert_committed(&e, &t, 0..50).await;
        e.checkpoint_for_test().unwrap();
        let s = e.register_session().unwrap();
        let mut open_trx = e.begin(&s, opts());
        open_trx.insert(&t, wide_row(200, WIDE), OnDuplicate::Error).await.unwrap();
        insert_committed(&e, &t, 50..60).await;
        let checkpoint = status_value(&e, "Innodb_checkpoint_lsn");

        e.inject_io_fault_for_test(IoFault::new(kind, op, FaultError::Eio));
        assert!(e.checkpoint_for_test().is_err(), "{kind:?} {op:?}");
        assert_writes_stopped(&e, &t, 55).await;
        open_trx.commit().await.unwrap();
        assert!(e.checkpoint_for_test().is_err(), "no checkpoint after fail-stop");
        assert_eq!(status_value(&e, "Innodb_checkpoint_lsn"), checkpoint);
        drop(s);

        let (e, t) = crash_and_reopen(e, dir.path(), true);
        let mut expected: Vec<i64> = (0..60).collect();
        expected.push(200);
        assert_eq!(ids(&e, &t), expected, "{kind:?} {op:?}");
    }
}

/// fsyncgate on the data file: the home pages of the failed batch are dropped (as the kernel may
/// drop them) and the fault clears itself, so a retried fsync would report success for pages
/// that are not on disk. The engine does not retry: the checkpoint stays before those pages and
/// the restart redoes them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_fsync_failure_keeps_the_checkpoint_before_the_pages() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path(), true).await;
    insert_committed(&e, &t, 0..50).await;
    e.checkpoint_for_test().unwrap();
    insert_committed(&e, &t, 50..100).await;
    let checkpoint = status_value(&e, "Innodb_checkpoint_lsn");
    let fault = e.inject_io_fault_for_test(IoFault::new(FileKind::Data, IoOp::Sync, FaultError::Eio).nth(1));
    assert!(e.checkpoint_for_test().is_err());
    assert_eq!(e.io_fault_hits_for_test(fault), 1);
    assert!(e.checkpoint_for_test().is_err(), "the fsync is not tried again");
    assert_eq!(status_value(&e, "Innodb_checkpoint_lsn"), checkpoint);
    assert_writes_stopped(&e, &t, 70).await;

    let (e, t) = crash_and_reopen(e, dir.path(), true);
    assert_eq!(ids(&e, &t), (0..100).collect::<Vec<_>>());
}

/// The control file: an I/O error halts like a data-file error (the other slot keeps the
/// previous checkpoint, which the restart uses); lack of space on its write is retried.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_file_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path(), true).await;
    insert_committed(&e, &t, 0..20).await;
    let full = e.inject_io_fault_for_test(IoFault::new(FileKind::Control, IoOp::Write, FaultError::NoSpace).nth(1));
    assert!(e.checkpoint_for_test().is_err());
    assert_eq!(e.io_fault_hits_for_test(full), 1);
    assert_eq!(status_value(&e, "Selkie_writes_stopped"), 0, "no space is not fail-stop");
    e.checkpoint_for_test().unwrap();
    insert_committed(&e, &t, 20..40).await;

    e.inject_io_fault_for_test(IoFault::new(FileKind::Control, IoOp::Write, FaultError::Eio));
    assert!(e.checkpoint_for_test().is_err());
    assert_writes_stopped(&e, &t, 30).await;
    let (e, t) = crash_and_reopen(e, dir.path(), true);
    assert_eq!(ids(&e, &t), (0..40).collect::<Vec<_>>());
}

/// A read error fails the statement that met it (1030) and nothing else: no fail-stop.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_error_fails_the_statement_and_the_engine_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path(), false).await;
    insert_committed(&e, &t, 0..300).await;
    e.shutdown().unwrap();
    drop(e);
    // A cold pool: the table's leaves are read from the file.
    let e = open(dir.path(), false);
    let t = table(&e, "d", "t");
    let fault = e.inject_io_fault_for_test(IoFault::new(FileKind::Data, IoOp::Read, FaultError::Eio));
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    let mut scan = trx.scan(&t, 0, KeyRange::all(), false, ReadMode::Consistent).unwrap();
    let err = loop {
        match scan.next(&mut trx) {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the scan read no page from the file"),
            Err(e) => break e,
        }
    };
    assert_eq!(code(&err), 1030, "{err}");
    assert!(e.io_fault_hits_for_test(fault) >= 1);
    assert_eq!(status_value(&e, "Selkie_writes_stopped"), 0);
    e.clear_io_faults_for_test();
    trx.rollback().unwrap();
    assert_eq!(ids(&e, &t), (0..300).collect::<Vec<_>>());
    insert_committed(&e, &t, [300]).await;
}

/// The data file is grown with real blocks (not a sparse size) and the log's segments too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_file_and_log_segments_are_preallocated() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path(), false).await;
    insert_committed(&e, &t, 0..3000).await;
    e.checkpoint_for_test().unwrap();
    let report = e.space_report().unwrap();
    let allocated = e.allocated_pages_for_test();
    assert!(allocated > report.total_pages + 128, "{allocated} pages for a tablespace of {}", report.total_pages);
    let data = std::fs::metadata(dir.path().join("data.sdb")).unwrap();
    assert!(data.blocks() * 512 >= allocated * 16384, "data.sdb is sparse: {data:?}");
    for entry in std::fs::read_dir(dir.path().join("redo")).unwrap() {
        let meta = entry.unwrap().metadata().unwrap();
        assert!(meta.blocks() * 512 >= meta.len(), "a sparse log segment: {meta:?}");
    }
}

/// Disk full for the data file: the statement that needs a new page fails with 1114 naming the
/// table, nothing else changes (the transaction's earlier rows commit, other sessions read), and
/// writes work again once space returns. A power cut then loses nothing acknowledged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_file_full_fails_the_statement_with_1114_until_space_returns() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path(), true).await;
    insert_committed(&e, &t, 0..100).await;
    let full = e.inject_io_fault_for_test(IoFault::new(FileKind::Data, IoOp::Extend, FaultError::NoSpace));
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    let mut id = 100;
    let err = loop {
        trx.begin_statement();
        match trx.insert(&t, wide_row(id, WIDE), OnDuplicate::Error).await {
            Ok(_) => id += 1,
            Err(e) => break e,
        }
        assert!(id < 200_000, "the data file never filled up");
    };
    assert_eq!(code(&err), 1114, "{err}");
    assert_eq!(err.to_string(), "The table 't' is full");
    assert!(e.io_fault_hits_for_test(full) >= 1);
    // The failed statement changed nothing; the transaction goes on and commits its rows.
    trx.rollback_statement().unwrap();
    assert!(trx.get(&t, &[Datum::Int(id)]).unwrap().is_none());
    trx.commit().await.unwrap();
    assert_eq!(ids(&e, &t), (0..id).collect::<Vec<_>>(), "another transaction reads everything");
    assert_eq!(status_value(&e, "Selkie_writes_stopped"), 0);
    // Still full: the next page fails the same way.
    let mut trx = e.begin(&s, opts());
    let mut more = id;
    let err = loop {
        match trx.insert(&t, wide_row(more, WIDE), OnDuplicate::Error).await {
            Ok(_) => more += 1,
            Err(e) => break e,
        }
        assert!(more < id + 1000);
    };
    assert_eq!(code(&err), 1114);
    trx.rollback().unwrap();

    e.clear_io_faults_for_test();
    insert_committed(&e, &t, id..id + 500).await;
    drop(s);
    let (e, t) = crash_and_reopen(e, dir.path(), true);
    assert_eq!(ids(&e, &t), (0..id + 500).collect::<Vec<_>>());
    let report = e.space_report().unwrap();
    assert_eq!((report.leaked, report.doubly_used), (0, 0), "{report:?}");
}

/// Rollback never fails for lack of space: it may use the reserve that ordinary writes leave.
/// Transaction A shrinks every row, B fills the space that freed up until the disk is full
/// (1114), and A's rollback, which needs page splits to put the long values back, succeeds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollback_uses_the_space_reserve_when_the_disk_is_full() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = setup(dir.path(), false).await;
    let rows = 300i64;
    insert_committed(&e, &t, (0..rows).map(|i| i * 2)).await;
    e.inject_io_fault_for_test(IoFault::new(FileKind::Data, IoOp::Extend, FaultError::NoSpace));
    let s = e.register_session().unwrap();
    let mut a = e.begin(&s, opts());
    for i in 0..rows {
        let pk = pk_of(&mut a, &t, i * 2).unwrap();
        let cur = a.lock_row(&t, &pk, LockMode::Exclusive).await.unwrap().unwrap();
        a.update(&t, &pk, &cur.row, wide_row(i * 2, 10)).await.unwrap();
    }
    let s2 = e.register_session().unwrap();
    let mut b = e.begin(&s2, opts());
    // The odd ids fill the gaps between A's rows, then ids past the end until the disk is full.
    let mut next = 1i64;
    let err = loop {
        b.begin_statement();
        match b.insert(&t, wide_row(next, WIDE), OnDuplicate::Error).await {
            Ok(_) => next += if next < rows * 2 { 2 } else { 1 },
            Err(e) => break e,
        }
        assert!(next < 1_000_000, "the data file never filled up");
    };
    assert_eq!(code(&err), 1114, "{err}");
    b.rollback_statement().unwrap();
    b.commit().await.unwrap();
    a.rollback().unwrap();
    let s3 = e.register_session().unwrap();
    let mut check = e.begin(&s3, opts());
    for i in 0..rows {
        let row = check.get(&t, &[Datum::Int(i * 2)]).unwrap().unwrap().row;
        assert_eq!(row, wide_row(i * 2, WIDE), "row {} restored", i * 2);
    }
}

/// A log that lacks disk space for its next segment makes writers wait (asynchronously; reads go
/// on), never fails them, and resumes once space returns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_without_space_waits_then_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path());
    c.log_capacity = 8 << 20;
    let e = Engine::open(c).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(wide_table("t"), false).await.unwrap();
    let t = table(&e, "d", "t");
    insert_committed(&e, &t, 0..10).await;
    // An open transaction pins the recovery scan start: no segment can be recycled.
    let s = e.register_session().unwrap();
    let mut pin = e.begin(&s, opts());
    pin.insert(&t, wide_row(-1, 10), OnDuplicate::Error).await.unwrap();
    let full = e.inject_io_fault_for_test(IoFault::new(FileKind::LogSegment, IoOp::Extend, FaultError::NoSpace));
    // About three 1 MiB segments of log.
    let writer = {
        let (e, t) = (e.clone(), t.clone());
        tokio::spawn(async move {
            for chunk in 0..30 {
                insert_committed(&e, &t, (10 + chunk * 100)..(10 + (chunk + 1) * 100)).await;
            }
        })
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while status_value(&e, "Selkie_log_throttle_waits") == 0 || e.io_fault_hits_for_test(full) == 0 {
        assert!(
            Instant::now() < deadline,
            "writers never waited for log space: throttle waits {}, fault hits {}, space waits {}, lsn {}",
            status_value(&e, "Selkie_log_throttle_waits"),
            e.io_fault_hits_for_test(full),
            status_value(&e, "Selkie_log_space_waits"),
            status_value(&e, "Innodb_lsn_current")
        );
        assert!(!writer.is_finished(), "the writes finished without log space");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!writer.is_finished());
    assert!(pin.get(&t, &[Datum::Int(5)]).unwrap().is_some(), "reads go on");
    assert_eq!(status_value(&e, "Selkie_writes_stopped"), 0);
    e.clear_io_faults_for_test();
    tokio::time::timeout(Duration::from_secs(20), writer).await.expect("writes resume").unwrap();
    pin.commit().await.unwrap();
    assert_eq!(ids(&e, &t).len(), 10 + 3000 + 1);
}

/// A log at its capacity recycles the segments below the checkpoint: once it has them, it writes
/// on with no new disk space at all (every attempt to get some fails), never stalls, and the
/// number of segment files stays bounded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_log_recycles_segments_and_needs_no_new_space() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path());
    c.log_capacity = 8 << 20;
    c.flush_mode = FlushMode::Lazy;
    c.buffer_pool_bytes = 32 << 20;
    let e = Engine::open(c).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(wide_table("t"), false).await.unwrap();
    let t = table(&e, "d", "t");
    let scale = if stress() { 10 } else { 1 };
    let segments = || std::fs::read_dir(dir.path().join("redo")).unwrap().count();
    // Updates of the same 2,000 rows: much log, a small table. About 16 MiB of log, twice the
    // capacity, so the log reaches it and starts recycling.
    insert_committed(&e, &t, 0..2000).await;
    // Transactions of 200 updates: a long one would pin the log's start (the recovery scan
    // starts at the oldest active transaction).
    let update_all = |round: usize| {
        let (e, t) = (e.clone(), t.clone());
        async move {
            let s = e.register_session().unwrap();
            for first in (0..2000).step_by(200) {
                let mut trx = e.begin(&s, opts());
                for id in first..first + 200 {
                    let pk = pk_of(&mut trx, &t, id).unwrap();
                    let cur = trx.lock_row(&t, &pk, LockMode::Exclusive).await.unwrap().unwrap();
                    trx.update(&t, &pk, &cur.row, wide_row(id, WIDE - round % 7)).await.unwrap();
                }
                trx.commit().await.unwrap();
            }
        }
    };
    for round in 0..8 {
        update_all(round).await;
    }
    let budget = (8 << 20) / (1 << 20) + 2;
    let full = e.inject_io_fault_for_test(IoFault::new(FileKind::LogSegment, IoOp::Extend, FaultError::NoSpace));
    let written = status_value(&e, "Innodb_os_log_written");
    let started = Instant::now();
    for round in 8..8 + 8 * scale {
        update_all(round).await;
        assert!(segments() <= budget + 1, "{} segment files for a budget of {budget}", segments());
    }
    let more = status_value(&e, "Innodb_os_log_written") - written;
    assert!(more > 2 * (8 << 20), "only {more} bytes of log written with the fault armed");
    assert_eq!(status_value(&e, "Selkie_log_space_waits"), 0, "the log writer stalled");
    // A segment asked for while none was recyclable yet (the scan start trails the checkpoint
    // by the open transaction and the last checkpoint hooks) is refused; the writer then
    // recycles one after the next checkpoint.
    eprintln!(
        "{more} bytes of log through recycled segments in {:?}; {} requests for new space refused",
        started.elapsed(),
        e.io_fault_hits_for_test(full)
    );
}

/// The checkpoint-age throttle: while write-back finds no space (retried, not fail-stop) the
/// checkpoint cannot move, and row writes wait at the sync point, asynchronously: on a
/// single-threaded runtime a read still runs while the write waits. Once write-back works again
/// the checkpoint moves and the write completes.
#[tokio::test(flavor = "current_thread")]
async fn writers_wait_at_the_sync_point_until_the_checkpoint_moves() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path());
    c.log_capacity = 8 << 20;
    c.buffer_pool_bytes = 64 << 20;
    let e = Engine::open(c).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(wide_table("t"), false).await.unwrap();
    let t = table(&e, "d", "t");
    insert_committed(&e, &t, 0..10).await;
    e.checkpoint_for_test().unwrap();
    let full = e.inject_io_fault_for_test(IoFault::new(FileKind::Data, IoOp::Write, FaultError::NoSpace));
    let sync_point = status_value(&e, "Innodb_checkpoint_max_age");
    // Twice the log's capacity: it cannot be written without passing the sync point.
    let rows = 2 * (8 << 20) / WIDE as i64;
    let writer = {
        let (e, t) = (e.clone(), t.clone());
        tokio::spawn(async move {
            for chunk in 0..rows / 100 {
                insert_committed(&e, &t, 10 + chunk * 100..10 + (chunk + 1) * 100).await;
            }
            10 + rows / 100 * 100
        })
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while status_value(&e, "Innodb_checkpoint_age") < sync_point - (256 << 10) {
        assert!(Instant::now() < deadline, "the log never reached its sync point");
        assert!(!writer.is_finished(), "the writes finished without reaching the sync point");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!writer.is_finished(), "the log passed its sync point without waiting");
    assert!(status_value(&e, "Selkie_log_throttle_waits") > 0);
    // The waiting writer holds no thread: this read runs on the same one.
    assert_eq!(ids(&e, &t)[..10], (0..10).collect::<Vec<_>>()[..]);
    assert!(e.io_fault_hits_for_test(full) > 0, "write-back was tried");
    assert_eq!(status_value(&e, "Selkie_writes_stopped"), 0, "no space on write-back is not fail-stop");
    assert!(status_value(&e, "Innodb_checkpoint_age") <= sync_point + (2 << 20));
    e.clear_io_faults_for_test();
    let next = tokio::time::timeout(Duration::from_secs(30), writer).await.expect("the writer resumes").unwrap();
    assert_eq!(ids(&e, &t).len() as i64, next);
}

/// Segment numbers are LSN / segment size, so a log keeps the segment size it was created with
/// when `--log-file-size` changes between restarts (the new capacity applies to the throttle).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_keeps_its_segment_size_when_the_capacity_changes() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path());
    c.log_capacity = 8 << 20;
    let e = Engine::open(c.clone()).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(wide_table("t"), false).await.unwrap();
    let t = table(&e, "d", "t");
    insert_committed(&e, &t, 0..3000).await;
    let sizes = || -> Vec<u64> {
        std::fs::read_dir(dir.path().join("redo")).unwrap().map(|f| f.unwrap().metadata().unwrap().len()).collect()
    };
    assert!(sizes().iter().all(|&len| len == 1 << 20), "{:?}", sizes());
    let (e, t) = crash_and_reopen(e, dir.path(), false);
    assert_eq!(ids(&e, &t), (0..3000).collect::<Vec<_>>());
    e.crash_for_test();
    drop(e);
    c.log_capacity = 1 << 30;
    let e = Engine::open(c).unwrap();
    let t = table(&e, "d", "t");
    assert_eq!(ids(&e, &t), (0..3000).collect::<Vec<_>>());
    insert_committed(&e, &t, 3000..4000).await;
    assert!(sizes().iter().all(|&len| len == 1 << 20), "{:?}", sizes());
    let (e, t) = crash_and_reopen(e, dir.path(), false);
    assert_eq!(ids(&e, &t).len(), 4000);
}
