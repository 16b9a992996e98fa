//! Recovery refuses a log it cannot trust (docs/architecture.md §4.8): when the log ends before the
//! last checkpoint — log files emptied, deleted, or copied from an earlier time — the engine does
//! not start, names the LSNs, and leaves every file exactly as it was.

mod engine_util;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use engine_util::*;
use selkie_storage::*;

/// Every file under `dir` with its bytes (to prove a refusal touched nothing).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn segments(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("redo")).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort();
    v
}

/// A database with committed rows, a checkpoint, and more commits after it; then a power cut.
async fn crashed_database(dir: &Path) {
    let e = Engine::open(crash_config(dir)).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", false), false).await.unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    for id in 1..=200 {
        let mut trx = e.begin(&s, opts());
        trx.insert(&t, row(id, id, "committed"), OnDuplicate::Error).await.unwrap();
        trx.commit().await.unwrap();
        if id == 100 {
            e.checkpoint_for_test().unwrap();
        }
    }
    e.crash_for_test();
}

fn refused(dir: &Path) -> StorageError {
    match Engine::open(crash_config(dir)) {
        Ok(_) => panic!("the engine opened a database whose log cannot be trusted"),
        Err(e) => e,
    }
}

fn assert_log_too_short(e: &StorageError) {
    match e {
        StorageError::LogTooShort { end, checkpoint, marker } => {
            assert!(end < checkpoint.max(marker), "{e}");
            let msg = e.to_string();
            assert!(msg.contains(&end.to_string()) && msg.contains(&checkpoint.to_string()), "{msg}");
            assert!(msg.contains("force-recovery") && msg.contains("no file was changed"), "{msg}");
        }
        other => panic!("expected LogTooShort, got {other:?}"),
    }
}

#[tokio::test]
async fn an_emptied_log_is_refused_and_nothing_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    crashed_database(dir.path()).await;
    for seg in segments(dir.path()) {
        std::fs::OpenOptions::new().write(true).open(&seg).unwrap().set_len(0).unwrap();
    }
    let before = snapshot(dir.path());
    assert_log_too_short(&refused(dir.path()));
    assert!(snapshot(dir.path()) == before, "a refused recovery changed files");
    // Refusing again changes nothing either.
    assert_log_too_short(&refused(dir.path()));
    assert!(snapshot(dir.path()) == before);
}

#[tokio::test]
async fn a_deleted_log_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    crashed_database(dir.path()).await;
    for seg in segments(dir.path()) {
        std::fs::remove_file(seg).unwrap();
    }
    let before = snapshot(dir.path());
    assert_log_too_short(&refused(dir.path()));
    assert!(snapshot(dir.path()) == before, "a refused recovery changed files");
}

/// A data directory put together from files of different times (a copy taken while the server
/// ran): the log is older than the control file's checkpoint.
#[tokio::test]
async fn an_older_log_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let old_log = tempfile::tempdir().unwrap();
    {
        let e = Engine::open(crash_config(dir.path())).unwrap();
        e.create_database(db("d"), false).await.unwrap();
        e.create_table(sbtest("d", "t", false), false).await.unwrap();
        let t = table(&e, "d", "t");
        let s = e.register_session().unwrap();
        let mut trx = e.begin(&s, opts());
        trx.insert(&t, row(1, 1, "early"), OnDuplicate::Error).await.unwrap();
        trx.commit().await.unwrap();
        e.checkpoint_for_test().unwrap();
        for seg in segments(dir.path()) {
            std::fs::copy(&seg, old_log.path().join(seg.file_name().unwrap())).unwrap();
        }
        for id in 2..=300 {
            let mut trx = e.begin(&s, opts());
            trx.insert(&t, row(id, id, "later"), OnDuplicate::Error).await.unwrap();
            trx.commit().await.unwrap();
        }
        e.checkpoint_for_test().unwrap();
        e.crash_for_test();
    }
    for seg in segments(dir.path()) {
        std::fs::remove_file(seg).unwrap();
    }
    for seg in std::fs::read_dir(old_log.path()).unwrap() {
        let seg = seg.unwrap().path();
        std::fs::copy(&seg, dir.path().join("redo").join(seg.file_name().unwrap())).unwrap();
    }
    let before = snapshot(dir.path());
    assert_log_too_short(&refused(dir.path()));
    assert!(snapshot(dir.path()) == before, "a refused recovery changed files");
}

/// The usual cases still open: a crash with the whole log, and a clean shutdown (where the log
/// ends exactly at the last checkpoint's marker).
#[tokio::test]
async fn a_complete_log_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    crashed_database(dir.path()).await;
    let e = Engine::open(crash_config(dir.path())).unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    assert_eq!(scan_all(&mut trx, &t, 0, KeyRange::all(), false, ReadMode::Consistent).len(), 200);
    drop(trx);
    drop(s);
    e.shutdown().unwrap();
    drop(e);
    let e = Engine::open(crash_config(dir.path())).unwrap();
    e.shutdown().unwrap();
}
