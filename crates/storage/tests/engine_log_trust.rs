//! Recovery refuses a log it cannot trust (docs/architecture.md §4.8): when the log ends before the
//! last checkpoint — log files emptied, deleted, or copied from an earlier time — the engine does
//! not start, names the LSNs, and leaves every file exactly as it was.

use crate::engine_util;

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

/// Opening `dir` is refused for a short log, and no file changes.
fn assert_refused_touching_nothing(dir: &Path) {
    let before = snapshot(dir);
    assert_log_too_short(&refused(dir));
    assert!(snapshot(dir) == before, "a refused recovery changed files");
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
    assert_refused_touching_nothing(dir.path());
    // Refusing again changes nothing either.
    assert_refused_touching_nothing(dir.path());
}

#[tokio::test]
async fn a_deleted_log_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    crashed_database(dir.path()).await;
    for seg in segments(dir.path()) {
        std::fs::remove_file(seg).unwrap();
    }
    assert_refused_touching_nothing(dir.path());
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
    assert_refused_touching_nothing(dir.path());
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

fn salvage_config(dir: &Path) -> EngineConfig {
    let mut c = crash_config(dir);
    c.force_recovery = true;
    c
}

/// `force_recovery` with a log that cannot be trusted: the engine starts read-only, serves what
/// the data files hold, refuses every write, and still changes no file.
#[tokio::test]
async fn force_recovery_salvages_read_only_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    crashed_database(dir.path()).await;
    for seg in segments(dir.path()) {
        std::fs::OpenOptions::new().write(true).open(&seg).unwrap().set_len(0).unwrap();
    }
    let before = snapshot(dir.path());
    {
        let e = Engine::open(salvage_config(dir.path())).unwrap();
        let t = table(&e, "d", "t");
        let s = e.register_session().unwrap();
        let mut trx = e.begin(&s, opts());
        // The rows of the first checkpoint are in the data file; what only the log held is gone.
        let rows = scan_all(&mut trx, &t, 0, KeyRange::all(), false, ReadMode::Consistent);
        assert!(rows.len() >= 100 && rows.len() <= 200, "{} rows", rows.len());
        assert_eq!(scan_all(&mut trx, &t, 1, KeyRange::all(), false, ReadMode::Consistent).len(), rows.len());
        let w = trx.insert(&t, row(1000, 1, "no"), OnDuplicate::Error).await;
        assert!(matches!(w, Err(StorageError::WritesStopped)), "{w:?}");
        drop(trx);
        let ddl = e.create_table(sbtest("d", "u", false), false).await;
        assert!(matches!(ddl, Err(StorageError::WritesStopped)), "{ddl:?}");
        assert!(matches!(e.drop_table("d", "t", false).await, Err(StorageError::WritesStopped)));
        assert_eq!(status_value(&e, "Selkie_writes_stopped"), 1);
        drop(s);
        e.shutdown().unwrap();
    }
    assert!(snapshot(dir.path()) == before, "salvage mode changed files");
    // Without the option the log is still refused.
    assert_log_too_short(&refused(dir.path()));
}

/// Salvage hides the changes of a transaction the crash interrupted (they are in the data file:
/// a checkpoint wrote them) by reading around them through its undo log.
#[tokio::test]
async fn force_recovery_hides_unfinished_transactions() {
    let dir = tempfile::tempdir().unwrap();
    {
        let e = Engine::open(crash_config(dir.path())).unwrap();
        e.create_database(db("d"), false).await.unwrap();
        e.create_table(sbtest("d", "t", false), false).await.unwrap();
        let t = table(&e, "d", "t");
        let s = e.register_session().unwrap();
        let mut trx = e.begin(&s, opts());
        for id in 1..=50 {
            trx.insert(&t, row(id, id, "committed"), OnDuplicate::Error).await.unwrap();
        }
        trx.commit().await.unwrap();
        let s2 = e.register_session().unwrap();
        let mut open = e.begin(&s2, opts());
        let pk = keycodec::primary_key_from_values(&t, &[Datum::Int(7)]).unwrap();
        let cur = open.lock_row(&t, &pk, LockMode::Exclusive).await.unwrap().unwrap();
        open.update(&t, &pk, &cur.row, row(7, 700, "uncommitted")).await.unwrap();
        open.insert(&t, row(51, 51, "uncommitted"), OnDuplicate::Error).await.unwrap();
        e.checkpoint_for_test().unwrap();
        for id in 100..=120 {
            let mut trx = e.begin(&s, opts());
            trx.insert(&t, row(id, id, "after the checkpoint"), OnDuplicate::Error).await.unwrap();
            trx.commit().await.unwrap();
        }
        e.checkpoint_for_test().unwrap();
        e.crash_for_test();
        drop((open, s, s2));
    }
    for seg in segments(dir.path()) {
        std::fs::remove_file(seg).unwrap();
    }
    assert_log_too_short(&refused(dir.path()));
    let e = Engine::open(salvage_config(dir.path())).unwrap();
    let t = table(&e, "d", "t");
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    assert_eq!(trx.get(&t, &[Datum::Int(7)]).unwrap().map(|r| r.row[1].clone()), Some(Datum::Int(7)));
    assert!(trx.get(&t, &[Datum::Int(51)]).unwrap().is_none(), "the unfinished insert is hidden");
    let ids: Vec<Datum> = scan_all(&mut trx, &t, 0, KeyRange::all(), false, ReadMode::Consistent)
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert!(ids.len() >= 50 && !ids.contains(&Datum::Int(51)), "{ids:?}");
}
