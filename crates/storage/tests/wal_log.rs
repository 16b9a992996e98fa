//! Log format, ring and segment mechanics, the recovery scan and the control file.
//!
//! Every test compares what `LogScan` returns with a model: the list of entries the test appended
//! (start, end, payload). Tiny rings and segments make wrap-around and rollover frequent.
//! SELKIE_STRESS=1 multiplies the iteration counts.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Barrier, Mutex};

use rand::{Rng, SeedableRng};
use selkie_storage::io::Io;
use selkie_storage::wal::control::{ControlData, ControlFile, SLOT_BYTES};
use selkie_storage::wal::{LogScan, Lsn, Wal, WalConfig, ENTRY_HEADER, FIRST_LSN, MAX_ENTRY};
use selkie_storage::{FaultInjection, FlushMode, StorageError};

fn stress() -> usize {
    if std::env::var_os("SELKIE_STRESS").is_some() {
        10
    } else {
        1
    }
}

fn config(mode: FlushMode, ring_bytes: usize, segment_bytes: u64) -> WalConfig {
    WalConfig { flush_mode: mode, segment_bytes, ring_bytes, ..WalConfig::default() }
}

/// A payload that names its producer, so a misplaced or duplicated entry is detectable.
fn payload(id: u64, len: usize) -> Vec<u8> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(id);
    let mut bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    if len >= 8 {
        bytes[..8].copy_from_slice(&id.to_le_bytes());
    }
    bytes
}

#[derive(Debug, PartialEq, Eq)]
struct Model {
    start: Lsn,
    end: Lsn,
    payload: Vec<u8>,
}

fn scan_all(io: &Io, dir: &Path, from: Lsn, segment_bytes: u64) -> (Vec<Model>, Lsn) {
    let mut scan = LogScan::open(io, dir, from, segment_bytes).unwrap();
    let mut out = Vec::new();
    while let Some(e) = scan.next_entry().unwrap() {
        out.push(Model { start: e.start, end: e.end, payload: e.payload });
    }
    assert!(scan.next_entry().unwrap().is_none(), "the end of the log stays the end");
    (out, scan.end_lsn())
}

fn segment_file(dir: &Path, n: u64) -> std::path::PathBuf {
    dir.join("redo").join(format!("{n:016x}.log"))
}

fn segment_numbers(dir: &Path) -> Vec<u64> {
    let mut v: Vec<u64> = std::fs::read_dir(dir.join("redo"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|name| u64::from_str_radix(name.strip_suffix(".log")?, 16).ok())
        .collect();
    v.sort();
    v
}

/// Flips one byte of the log at `lsn` in the segment files.
fn corrupt_log_byte(dir: &Path, lsn: Lsn, segment_bytes: u64) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().read(true).write(true).open(segment_file(dir, lsn / segment_bytes)).unwrap();
    let mut b = [0u8; 1];
    f.read_exact_at(&mut b, lsn % segment_bytes).unwrap();
    b[0] ^= 0x5A;
    f.write_all_at(&b, lsn % segment_bytes).unwrap();
}

#[test]
fn append_scan_roundtrip_with_ring_wrap_and_segment_rollover() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let (ring, segment) = (4096, 8192);
    let wal = Wal::open(&io, dir.path(), config(FlushMode::WriteOnly, ring, segment), FIRST_LSN).unwrap();
    assert_eq!(wal.max_payload(), ring / 2 - ENTRY_HEADER);
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut model = Vec::new();
    for id in 0..(1500 * stress()) as u64 {
        let len = match rng.gen_range(0..10) {
            0 => 0,
            1 => wal.max_payload(),
            _ => rng.gen_range(1..700),
        };
        let p = payload(id, len);
        let mut stamped = None;
        let (start, end) = wal.append(&p, |s, e| stamped = Some((s, e)));
        assert_eq!(stamped, Some((start, end)), "stamp gets the entry's LSNs");
        assert_eq!(start % 8, 0);
        assert_eq!(end - start, (ENTRY_HEADER + len).next_multiple_of(8) as u64);
        model.push(Model { start, end, payload: p });
    }
    let last = model.last().unwrap().end;
    wal.flush_to(last).unwrap();
    assert!(wal.flushed_lsn() >= last && wal.ready_lsn() >= last);
    let stats = wal.stats();
    assert!(stats.ring_full_waits > 0, "a 4 KiB ring must fill: {stats:?}");
    assert_eq!(stats.bytes_written, last - FIRST_LSN);
    wal.shutdown().unwrap();
    assert!(segment_numbers(dir.path()).len() > 10, "rollover across many segments");

    let (scanned, end) = scan_all(&io, dir.path(), FIRST_LSN, segment);
    assert_eq!(end, last);
    assert_eq!(scanned, model);
    // A scan can start at any entry.
    let middle = &model[model.len() / 2];
    let (tail, _) = scan_all(&io, dir.path(), middle.start, segment);
    assert_eq!(tail[..], model[model.len() / 2..]);
}

#[test]
fn concurrent_appenders_each_entry_once_contiguous_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let segment = 64 * 1024;
    let wal = Wal::open(&io, dir.path(), config(FlushMode::WriteOnly, 16 * 1024, segment), FIRST_LSN).unwrap();
    let threads = 8u64;
    let per_thread = 1500 * stress() as u64;
    let appended = Mutex::new(BTreeMap::new());
    let barrier = Barrier::new(threads as usize);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (wal, appended, barrier) = (&wal, &appended, &barrier);
            s.spawn(move || {
                let mut rng = rand::rngs::StdRng::seed_from_u64(t);
                let mut mine = Vec::new();
                barrier.wait();
                for i in 0..per_thread {
                    let id = t << 32 | i;
                    let p = payload(id, rng.gen_range(8..400));
                    let (start, end) = wal.append(&p, |_, _| {});
                    mine.push((start, Model { start, end, payload: p }));
                }
                appended.lock().unwrap().extend(mine);
            });
        }
    });
    let appended = appended.into_inner().unwrap();
    let end = wal.reserved_lsn();
    wal.flush_to(end).unwrap();
    wal.shutdown().unwrap();

    let (scanned, scan_end) = scan_all(&io, dir.path(), FIRST_LSN, segment);
    assert_eq!(scan_end, end);
    assert_eq!(scanned.len() as u64, threads * per_thread);
    let mut expect = FIRST_LSN;
    let mut next_per_thread = vec![0u64; threads as usize];
    for e in &scanned {
        assert_eq!(e.start, expect, "entries are contiguous");
        expect = e.end;
        assert_eq!(e, &appended[&e.start], "payload intact at {}", e.start);
        // Each thread's entries appear in its own append order.
        let id = u64::from_le_bytes(e.payload[..8].try_into().unwrap());
        let (t, i) = ((id >> 32) as usize, id & 0xFFFF_FFFF);
        assert_eq!(i, next_per_thread[t]);
        next_per_thread[t] += 1;
    }
}

#[test]
fn torn_tail_ends_the_scan_and_reopen_discards_stale_entries() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let segment = 16 * 1024;
    let cfg = config(FlushMode::Durable, 8192, segment);
    let wal = Wal::open(&io, dir.path(), cfg.clone(), FIRST_LSN).unwrap();
    let mut model = Vec::new();
    for id in 0..40u64 {
        let p = payload(id, 100 + id as usize * 13);
        let (start, end) = wal.append(&p, |_, _| {});
        model.push(Model { start, end, payload: p });
    }
    // The torn entry and the intact one after it, of which a stale copy must never come back.
    let torn = model.len() - 2;
    wal.flush_to(model.last().unwrap().end).unwrap();
    wal.shutdown().unwrap();
    drop(wal);

    corrupt_log_byte(dir.path(), model[torn].start + ENTRY_HEADER as u64 + 5, segment);
    let (scanned, end) = scan_all(&io, dir.path(), FIRST_LSN, segment);
    assert_eq!(end, model[torn].start, "the scan stops before the torn entry");
    assert_eq!(scanned[..], model[..torn]);

    // Restart at the end of the valid log and append an entry of exactly the torn one's length:
    // the intact old entry after it sits where the next entry would be and carries that LSN.
    let wal = Wal::open(&io, dir.path(), cfg, end).unwrap();
    let replacement = payload(1000, model[torn].payload.len());
    let (start, new_end) = wal.append(&replacement, |_, _| {});
    assert_eq!((start, new_end), (model[torn].start, model[torn].end));
    wal.flush_to(new_end).unwrap();
    wal.shutdown().unwrap();
    let (scanned, end) = scan_all(&io, dir.path(), FIRST_LSN, segment);
    assert_eq!(end, new_end, "the stale entry after the replacement must not verify");
    assert_eq!(scanned.len(), torn + 1);
    assert_eq!(scanned.last().unwrap().payload, replacement);
}

#[test]
fn every_corrupted_header_field_ends_the_scan() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let segment = 8192;
    let wal = Wal::open(&io, dir.path(), config(FlushMode::Durable, 4096, segment), FIRST_LSN).unwrap();
    let (a_start, a_end) = wal.append(&payload(1, 40), |_, _| {});
    // 16 + 41 bytes: 7 bytes of padding.
    let (b_start, b_end) = wal.append(&payload(2, 41), |_, _| {});
    assert_eq!(b_end - b_start, 64);
    wal.append(&payload(3, 40), |_, _| {});
    wal.shutdown().unwrap();
    drop(wal);
    assert_eq!(a_end, b_start);
    let original = std::fs::read(segment_file(dir.path(), 1)).unwrap();
    for offset in [0u64, 3, 4, 7, 8, 15, 16, 16 + 40] {
        std::fs::write(segment_file(dir.path(), 1), &original).unwrap();
        corrupt_log_byte(dir.path(), b_start + offset, segment);
        let (scanned, end) = scan_all(&io, dir.path(), FIRST_LSN, segment);
        assert_eq!(end, b_start, "corruption at header offset {offset}");
        assert_eq!(scanned.len(), 1);
        assert_eq!((scanned[0].start, scanned[0].end), (a_start, a_end));
    }
    // Padding is not covered by the CRC and does not matter.
    std::fs::write(segment_file(dir.path(), 1), &original).unwrap();
    corrupt_log_byte(dir.path(), b_end - 1, segment);
    assert_eq!(scan_all(&io, dir.path(), FIRST_LSN, segment).0.len(), 3);
}

#[test]
fn scan_survives_garbage_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    std::fs::create_dir(dir.path().join("redo")).unwrap();
    let segment = 4096u64;
    let mut rng = rand::rngs::StdRng::seed_from_u64(99);
    for round in 0..(200 * stress()) {
        let mut bytes: Vec<u8> = (0..segment * 2).map(|_| rng.gen()).collect();
        if round % 2 == 0 {
            // Plausible headers: right LSN, lengths around and beyond every limit.
            for (i, len) in [0u32, 15, 16, 17, u32::MAX, MAX_ENTRY as u32 + 8, 5000].iter().enumerate() {
                let at = i * 16;
                bytes[at..at + 4].copy_from_slice(&len.to_le_bytes());
                bytes[at + 8..at + 16].copy_from_slice(&(segment + at as u64).to_le_bytes());
            }
        }
        std::fs::write(segment_file(dir.path(), 1), &bytes[..segment as usize]).unwrap();
        std::fs::write(segment_file(dir.path(), 2), &bytes[segment as usize..]).unwrap();
        for from in [segment, segment + 16, segment * 2 - 8, u64::MAX - 7, 0] {
            let mut scan = LogScan::open(&io, dir.path(), from, segment).unwrap();
            let mut n = 0;
            while scan.next_entry().unwrap().is_some() {
                n += 1;
            }
            assert_eq!(n, 0, "random bytes do not verify");
            assert_eq!(scan.end_lsn(), from);
        }
    }
    assert!(LogScan::open(&io, dir.path(), FIRST_LSN, 0).is_err(), "zero segment size is a clean error");
    // A missing directory is an empty log.
    let (scanned, end) = scan_all(&io, &dir.path().join("nowhere"), FIRST_LSN, segment);
    assert!(scanned.is_empty());
    assert_eq!(end, FIRST_LSN);
}

/// Segments below a checkpoint are recycled: renamed to the numbers the log needs next instead
/// of deleted and created again, so the number of segment files stays put; their stale bytes
/// never verify at the new position.
#[test]
fn truncate_before_recycles_old_segments_and_later_scans_work() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let segment = 8192u64;
    let wal = Wal::open(&io, dir.path(), config(FlushMode::WriteOnly, 4096, segment), FIRST_LSN).unwrap();
    let mut model = Vec::new();
    for id in 0..300u64 {
        let p = payload(id, 300);
        let (start, end) = wal.append(&p, |_, _| {});
        model.push(Model { start, end, payload: p });
    }
    let last = model.last().unwrap().end;
    // Nothing durable yet beyond what the writer synced: truncation never passes flushed_lsn.
    wal.flush_to(last).unwrap();
    let cut_start = model[200].start;
    wal.truncate_before(cut_start).unwrap();
    let before = segment_numbers(dir.path());
    assert_eq!(*before.last().unwrap(), last / segment + 1, "the one after the last is prepared ahead");
    let recyclable = before.iter().filter(|&&n| n < cut_start / segment).count();
    assert!(recyclable >= 3, "{before:?}");

    // Appending continues after the truncation, into recycled segments.
    for id in 300..400u64 {
        let p = payload(id, 300);
        let (start, end) = wal.append(&p, |_, _| {});
        model.push(Model { start, end, payload: p });
    }
    let end = model.last().unwrap().end;
    wal.flush_to(end).unwrap();
    wal.shutdown().unwrap();
    let after = segment_numbers(dir.path());
    assert_eq!(after.len(), before.len(), "no segment was created: {before:?} -> {after:?}");
    assert_eq!(*after.last().unwrap(), end / segment + 1);
    assert!(after[0] > before[0], "the oldest were renamed: {before:?} -> {after:?}");

    let (scanned, scan_end) = scan_all(&io, dir.path(), cut_start, segment);
    assert_eq!(scan_end, end);
    assert_eq!(scanned[..], model[200..]);
    // From before the first kept segment, the log is simply empty (or stale bytes that do not
    // verify at their new position).
    assert!(scan_all(&io, dir.path(), FIRST_LSN, segment).0.is_empty());
}

#[test]
fn reopen_continues_the_log_where_recovery_ended() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let segment = 8192u64;
    let cfg = config(FlushMode::Durable, 4096, segment);
    let mut model = Vec::new();
    let mut start_at = FIRST_LSN;
    for round in 0..3u64 {
        let wal = Wal::open(&io, dir.path(), cfg.clone(), start_at).unwrap();
        for i in 0..50 {
            let p = payload(round * 100 + i, 150);
            let (start, end) = wal.append(&p, |_, _| {});
            model.push(Model { start, end, payload: p });
        }
        wal.shutdown().unwrap();
        let (scanned, end) = scan_all(&io, dir.path(), FIRST_LSN, segment);
        assert_eq!(scanned, model);
        start_at = end;
    }
}

#[test]
fn open_rejects_bad_configuration_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    for (cfg, start) in [
        (config(FlushMode::Durable, 5000, 8192), FIRST_LSN),
        (config(FlushMode::Durable, 1024, 8192), FIRST_LSN),
        (config(FlushMode::Durable, 4096, 100), FIRST_LSN),
        (config(FlushMode::Durable, 4096, 8192), 0),
        (config(FlushMode::Durable, 4096, 8192), FIRST_LSN + 3),
    ] {
        assert!(Wal::open(&io, dir.path(), cfg, start).is_err());
    }
}

#[test]
fn control_file_roundtrip_and_slot_fallback() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let (mut missing, data) = ControlFile::open(&io, dir.path()).unwrap();
    assert!(data.is_none());
    let first =
        ControlData { format: 1, checkpoint_lsn: FIRST_LSN, scan_start_lsn: FIRST_LSN, next_trx_id: 1, extra: vec![] };
    missing.write(&first).unwrap();
    assert_eq!(ControlFile::open(&io, dir.path()).unwrap().1, Some(first.clone()));

    let mut cf = ControlFile::create(&io, dir.path(), &first).unwrap();
    let mut history = vec![first];
    for i in 1..=5u64 {
        let d = ControlData {
            format: 1,
            checkpoint_lsn: FIRST_LSN + i * 1000,
            scan_start_lsn: FIRST_LSN + i * 500,
            next_trx_id: 10 * i,
            extra: vec![i as u8; (i * 600) as usize],
        };
        cf.write(&d).unwrap();
        history.push(d);
        assert_eq!(ControlFile::open(&io, dir.path()).unwrap().1.as_ref(), history.last());
    }
    assert!(cf.write(&ControlData { extra: vec![0; 3 * 1024 + 1], ..Default::default() }).is_err());
    assert_eq!(
        ControlFile::open(&io, dir.path()).unwrap().1.as_ref(),
        history.last(),
        "a rejected write changes nothing"
    );

    // The newest write went to slot (5 % 2 == 1 after create used slot 0): corrupt it, and the
    // previous state comes back; a write then goes to the damaged slot and wins again.
    let path = dir.path().join("selkie.ctl");
    let pristine = std::fs::read(&path).unwrap();
    let newest_slot = (0..2)
        .find(|&s| {
            let mut bytes = pristine.clone();
            bytes[s * SLOT_BYTES + 100] ^= 1;
            std::fs::write(&path, &bytes).unwrap();
            ControlFile::open(&io, dir.path()).unwrap().1.as_ref() == Some(&history[history.len() - 2])
        })
        .expect("corrupting one slot falls back to the previous state");
    let (mut cf, data) = ControlFile::open(&io, dir.path()).unwrap();
    assert_eq!(data.as_ref(), Some(&history[history.len() - 2]));
    let next = ControlData { next_trx_id: 999, ..history[3].clone() };
    cf.write(&next).unwrap();
    assert_eq!(ControlFile::open(&io, dir.path()).unwrap().1, Some(next));

    let mut bytes = std::fs::read(&path).unwrap();
    bytes[newest_slot * SLOT_BYTES + 9] ^= 1;
    bytes[(1 - newest_slot) * SLOT_BYTES + 9] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    match ControlFile::open(&io, dir.path()) {
        Err(StorageError::Corruption(_)) => {}
        other => panic!("both slots bad must be Corruption, got {:?}", other.map(|(_, d)| d)),
    }
    std::fs::write(&path, b"short").unwrap();
    assert!(matches!(ControlFile::open(&io, dir.path()), Err(StorageError::Corruption(_))));
}

#[test]
fn stamp_runs_before_the_entry_counts_as_ready() {
    let dir = tempfile::tempdir().unwrap();
    let io = Io::new(FaultInjection::default());
    let wal = Wal::open(&io, dir.path(), config(FlushMode::Durable, 4096, 8192), FIRST_LSN).unwrap();
    let inside = Arc::new(Barrier::new(2));
    let release = Arc::new(Barrier::new(2));
    let (end_tx, end_rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        let (wal, inside, release) = (&wal, &inside, &release);
        s.spawn(move || {
            wal.append(b"slow", |_, end| {
                end_tx.send(end).unwrap();
                inside.wait();
                release.wait();
            });
        });
        let end = end_rx.recv().unwrap();
        inside.wait();
        // Later entries complete, but the stalled one holds back ready_lsn.
        let (_, later_end) = wal.append(b"fast", |_, _| {});
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(wal.ready_lsn() < end, "not ready while stamping");
        assert!(wal.flushed_lsn() < end);
        release.wait();
        wal.flush_to(later_end).unwrap();
        assert!(wal.ready_lsn() >= later_end);
    });
    wal.shutdown().unwrap();
}
