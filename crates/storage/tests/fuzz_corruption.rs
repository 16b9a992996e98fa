//! Corruption on disk, through the engine (docs/architecture.md §4.11): bytes of a closed data
//! directory's data file, log segments or control file are changed at random; opening it and
//! reading every table through every index then gives exactly the rows that were committed, or
//! a clean error. A page that fails its checksum (or holds another page, or nothing) is reported
//! as corruption naming that page. Nothing panics.
//!
//! `cargo test --release -p selkie-storage --test storage_tests fuzz_corruption::`; SELKIE_STRESS=1 runs 20 times
//! as many trials; SELKIE_FUZZ_SEED=n replays trial n.

use crate::engine_util;

use std::path::Path;
use std::sync::Arc;

use engine_util::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use selkie_storage::*;

const PAGE: usize = 16 * 1024;
/// Page header fields (docs §4.1): the page type byte and the page's own id.
const OFF_TYPE: usize = 4;
const OFF_PAGE_ID: usize = 8;
/// Page types of B+tree nodes and overflow pages (page/mod.rs `PageType`).
const LEAF: u8 = 3;
const INNER: u8 = 4;
const OVERFLOW: u8 = 5;
const TRIALS: u64 = 24;

/// What every table holds, as each of its indexes returns it.
type Expected = Vec<(String, Vec<Vec<Vec<Datum>>>)>;

fn blob() -> ColumnType {
    ColumnType::Blob { size: LobSize::Medium }
}

/// A data directory with two tables (one keyed, one with hidden row ids; secondary indexes;
/// short values and values in overflow chains), shut down cleanly.
async fn build(dir: &Path) -> Expected {
    let e = Engine::open(config(dir)).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    e.create_table(sbtest("d", "t", true), false).await.unwrap();
    let hidden = NewTable {
        db: "d".into(),
        name: "h".into(),
        columns: vec![col("a", int(), false), col("b", blob(), true)],
        primary_key: vec![],
        indexes: vec![NewIndex { name: "a".into(), columns: vec![ic(0)], unique: false }],
        options: TableOptions::default(),
        auto_increment_start: None,
    };
    e.create_table(hidden, false).await.unwrap();
    let (t, h) = (table(&e, "d", "t"), table(&e, "d", "h"));
    let s = e.register_session().unwrap();
    let mut trx = e.begin(&s, opts());
    for id in 0..1500 {
        trx.insert(&t, row(id, id % 13, &format!("{id:05}-{}", "x".repeat(60))), OnDuplicate::Error).await.unwrap();
    }
    for a in 0..40 {
        let b =
            if a % 3 == 0 { Datum::Bytes(vec![a as u8; 20_000 + a as usize]) } else { Datum::Bytes(vec![a as u8; 30]) };
        trx.insert(&h, vec![Datum::Int(a % 7), b], OnDuplicate::Error).await.unwrap();
    }
    trx.commit().await.unwrap();
    let expected = read_all(&e, &s).expect("the intact directory reads");
    drop(s);
    e.shutdown().unwrap();
    // Log segments are preallocated at 64 MiB and mostly zeros; a segment shorter than its size
    // reads as zeros past its end, so cutting the zeros off changes nothing but what each trial
    // has to copy.
    for entry in std::fs::read_dir(dir.join("redo")).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let used = bytes.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
        std::fs::File::options().write(true).open(&path).unwrap().set_len(used.next_multiple_of(4096) as u64).unwrap();
    }
    expected
}

/// Every table through every index, or the first error.
fn read_all(e: &Engine, s: &SessionSlot) -> Result<Expected, StorageError> {
    let mut trx = e.begin(s, opts());
    let mut out = Vec::new();
    let mut names: Vec<Arc<TableDef>> = e.catalog().tables.values().cloned().collect();
    names.sort_by(|a, b| a.name.cmp(&b.name));
    for t in names {
        let mut per_index = Vec::new();
        for index in 0..=t.secondary.len() {
            let mut scan = trx.scan(&t, index, KeyRange::all(), index % 2 == 1, ReadMode::Consistent)?;
            let mut rows = Vec::new();
            while let Some(r) = scan.next(&mut trx)? {
                rows.push(r.row);
            }
            per_index.push(rows);
        }
        out.push((t.name.clone(), per_index));
    }
    Ok(out)
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The corruption of one trial, and what an error must name.
#[derive(Debug)]
enum Damage {
    /// Bytes of a written page changed (the checksum no longer matches).
    PageBytes(u64),
    /// A page overwritten by the image of another (a misdirected write: a valid checksum, the
    /// wrong page id).
    Misdirected(u64),
    /// A page zeroed (reads as never written).
    Zeroed(u64),
    /// Bytes of the redo log changed; after a clean shutdown the log is not needed.
    Log,
    /// One slot of the control file broken: the other one still opens the directory.
    ControlSlot,
    /// Both slots broken: opening must fail, naming the file.
    ControlFile,
}

/// Pages of the data file that are B+tree nodes or overflow pages.
fn written_pages(data: &[u8]) -> Vec<u64> {
    (1..data.len() / PAGE)
        .filter(|&p| matches!(data[p * PAGE + OFF_TYPE], LEAF | INNER | OVERFLOW))
        .map(|p| p as u64)
        .collect()
}

fn damage(dir: &Path, rng: &mut StdRng) -> Damage {
    let data_path = dir.join("data.sdb");
    let mut data = std::fs::read(&data_path).unwrap();
    let pages = written_pages(&data);
    let pid = pages[rng.gen_range(0..pages.len())];
    let at = pid as usize * PAGE;
    let d = match rng.gen_range(0..6) {
        0 | 1 => {
            for _ in 0..rng.gen_range(1..8) {
                let i = at + rng.gen_range(0..PAGE);
                data[i] ^= rng.gen_range(1..=255u8);
            }
            Damage::PageBytes(pid)
        }
        2 => {
            let other = pages[rng.gen_range(0..pages.len())];
            if other == pid {
                data[at + rng.gen_range(0..PAGE)] ^= 0x40;
                Damage::PageBytes(pid)
            } else {
                let image = data[other as usize * PAGE..(other as usize + 1) * PAGE].to_vec();
                data[at..at + PAGE].copy_from_slice(&image);
                Damage::Misdirected(pid)
            }
        }
        3 => {
            data[at..at + PAGE].fill(0);
            Damage::Zeroed(pid)
        }
        4 => {
            for entry in std::fs::read_dir(dir.join("redo")).unwrap() {
                let path = entry.unwrap().path();
                let mut log = std::fs::read(&path).unwrap();
                if log.is_empty() {
                    continue;
                }
                for _ in 0..rng.gen_range(1..64) {
                    let i = rng.gen_range(0..log.len());
                    log[i] = rng.gen();
                }
                std::fs::write(&path, log).unwrap();
            }
            return Damage::Log;
        }
        _ => {
            let path = dir.join("selkie.ctl");
            let mut ctl = std::fs::read(&path).unwrap();
            let both = rng.gen_bool(0.5);
            for slot in 0..2 {
                if both || slot == 0 {
                    ctl[slot * 4096 + rng.gen_range(0..64)] ^= 0x10;
                }
            }
            std::fs::write(&path, ctl).unwrap();
            return if both { Damage::ControlFile } else { Damage::ControlSlot };
        }
    };
    std::fs::write(&data_path, data).unwrap();
    // The doublewrite area holds the last batch of pages the cleaner wrote; it repairs a damaged
    // page that was in it (as it repairs torn writes). Mostly take it away, so damage shows.
    if rng.gen_bool(0.75) {
        std::fs::write(dir.join("doublewrite.sdb"), b"").unwrap();
    }
    d
}

/// An error of a damaged directory: corruption (or I/O), naming what was damaged.
fn check_error(err: &StorageError, damage: &Damage, stage: &str) {
    let msg = err.to_string();
    assert!(matches!(err, StorageError::Corruption(_) | StorageError::Io(_)), "{stage}: {damage:?} gave {err:?}");
    match damage {
        Damage::PageBytes(pid) | Damage::Misdirected(pid) => {
            assert!(msg.contains(&format!("page {pid}")), "{stage}: {damage:?}: the error must name page {pid}: {msg}")
        }
        // A zeroed page reads as never written (valid); the reader that expected a node or a
        // chain page reports the node or the chain it was following.
        Damage::Zeroed(pid) => {
            assert!(msg.contains("page "), "{stage}: page {pid} zeroed: the error must name a page: {msg}")
        }
        Damage::ControlFile => {
            assert!(msg.contains("selkie.ctl"), "{stage}: the error must name the control file: {msg}")
        }
        Damage::Log | Damage::ControlSlot => panic!("{stage}: {damage:?} must not fail: {msg}"),
    }
}

async fn trial(seed: u64, pristine: &Path, expected: &Expected) {
    let mut rng = StdRng::seed_from_u64(seed);
    let dir = tempfile::tempdir().unwrap();
    copy_dir(pristine, dir.path());
    let damage = damage(dir.path(), &mut rng);
    let e = match Engine::open(config(dir.path())) {
        Ok(e) => e,
        Err(err) => return check_error(&err, &damage, &format!("trial {seed}: open")),
    };
    assert!(!matches!(damage, Damage::ControlFile), "trial {seed}: a control file without a valid slot opened");
    let s = e.register_session().unwrap();
    match read_all(&e, &s) {
        Ok(got) => assert!(&got == expected, "trial {seed}: {damage:?}: the rows read differ from those committed"),
        Err(err) => check_error(&err, &damage, &format!("trial {seed}: read")),
    }
    // Purge processes the undo logs recovery found; the space report is a diagnostic for a
    // quiet engine, so let it finish first (a damaged page can keep it busy: give up after a
    // while and report anyway).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while status_value(&e, "Innodb_history_list_length") > 0 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    if let Err(err) = e.space_report() {
        check_error(&err, &damage, &format!("trial {seed}: space report"));
    }
    drop(s);
    let _ = e.shutdown();
}

#[tokio::test]
async fn damaged_data_directories_read_correctly_or_fail_cleanly() {
    let pristine = tempfile::tempdir().unwrap();
    let expected = build(pristine.path()).await;
    let seeds: Vec<u64> = match std::env::var("SELKIE_FUZZ_SEED").ok().and_then(|s| s.parse().ok()) {
        Some(seed) => vec![seed],
        None => (0..if stress() { 20 * TRIALS } else { TRIALS }).collect(),
    };
    for seed in seeds {
        trial(seed, pristine.path(), &expected).await;
    }
}

/// A page whose checksum fails is reported as corruption naming the page, at the first read
/// that needs it; the rest of the database stays readable.
#[tokio::test]
async fn a_checksum_failure_names_the_page() {
    let pristine = tempfile::tempdir().unwrap();
    let expected = build(pristine.path()).await;
    let data = std::fs::read(pristine.path().join("data.sdb")).unwrap();
    // The last leaf in the file (of some table: which one does not matter).
    let leaf = (1..data.len() / PAGE).rev().find(|&p| data[p * PAGE + OFF_TYPE] == LEAF).unwrap();
    let id = u64::from_le_bytes(data[leaf * PAGE + OFF_PAGE_ID..leaf * PAGE + OFF_PAGE_ID + 8].try_into().unwrap());
    assert_eq!(id, leaf as u64);
    let dir = tempfile::tempdir().unwrap();
    copy_dir(pristine.path(), dir.path());
    let mut damaged = data.clone();
    damaged[leaf * PAGE + PAGE / 2] ^= 1;
    std::fs::write(dir.path().join("data.sdb"), damaged).unwrap();
    std::fs::write(dir.path().join("doublewrite.sdb"), b"").unwrap();
    let e = Engine::open(config(dir.path())).unwrap();
    let s = e.register_session().unwrap();
    let err = read_all(&e, &s).expect_err("a read meets the damaged leaf");
    assert!(
        matches!(&err, StorageError::Corruption(m) if m.contains(&format!("page {leaf}: checksum mismatch"))),
        "{err:?}"
    );
    assert_eq!(err.mysql_code().0, 1030);
    // Some table is still whole through some index.
    let mut trx = e.begin(&s, opts());
    let readable = expected.iter().any(|(name, per_index)| {
        let t = table(&e, "d", name);
        (0..per_index.len()).any(|index| {
            let Ok(mut scan) = trx.scan(&t, index, KeyRange::all(), index % 2 == 1, ReadMode::Consistent) else {
                return false;
            };
            let mut rows = Vec::new();
            loop {
                match scan.next(&mut trx) {
                    Ok(Some(r)) => rows.push(r.row),
                    Ok(None) => return rows == per_index[index],
                    Err(_) => return false,
                }
            }
        })
    });
    assert!(readable, "the damage of one leaf leaves other trees readable");
    drop(trx);
    drop(s);
    let _ = e.shutdown();
}
