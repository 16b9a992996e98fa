//! Decoders of bytes read from disk, fed random bytes and mutated valid input: each must return
//! an error, never panic, never loop for ever, never allocate beyond what its input bounds
//! (docs/architecture.md §4.11). In-crate so that it reaches the private decoders.
//!
//! Covered: B+tree node headers, records, searches and changes (page/node.rs); page checksums
//! (page/mod.rs); redo records and their application (buffer/redo.rs); log entries through
//! `LogScan` over garbage and mutated segment files (wal/scan.rs, wal/entry.rs); control file
//! slots (wal/control.rs); logical log records (trx/logrec.rs); MVCC headers (trx/record.rs);
//! rows (rowcodec.rs); keys (keycodec.rs); catalog records (catalog.rs); and whole trees whose
//! pages were corrupted behind their checksums (gets, scans, writes, space walks; overflow
//! references and chains included).
//!
//! `cargo test --release -p selkie-storage --lib fuzz_tests` runs the short variant;
//! SELKIE_STRESS=1 multiplies the cases by 50.

use std::ops::Bound;
use std::path::Path;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::btree::{BTree, Change};
use crate::buffer::redo::{self, PageRecord, RecordReader};
use crate::buffer::{CheckpointHooks, PageId, PageStore, PageStoreConfig, PAGE_SIZE};
use crate::catalog;
use crate::io::Io;
use crate::keycodec;
use crate::mtr::Mtr;
use crate::page::node;
use crate::page::{self, PageType, HEADER_SIZE};
use crate::rowcodec;
use crate::trx::logrec::LogRecord;
use crate::trx::record::RecHeader;
use crate::types::FaultInjection;
use crate::types::*;
use crate::wal::control::{ControlData, ControlFile, CONTROL_FILE_NAME, SLOT_BYTES};
use crate::wal::{LogScan, Lsn, Wal, WalConfig, FIRST_LSN};
use crate::FlushMode;

/// Cases per property: `base`, or 50 times that under SELKIE_STRESS=1.
fn cases(base: u32) -> u32 {
    if std::env::var_os("SELKIE_STRESS").is_some() {
        base * 50
    } else {
        base
    }
}

/// Runs `f` on a thread of its own and fails if it does not finish in time: a decoder that
/// loops for ever fails the test instead of hanging it.
fn within<T: Send + 'static>(what: String, limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: still running after {limit:?} (a loop on corrupt input?)")
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: panicked"),
    }
}

/// Overwrites bytes of `bytes`: each mutation is (position, new byte, xor?) with the position
/// taken modulo `span` from `start`, so mutations can aim at a region (a header, a slot array).
fn mutate(bytes: &mut [u8], start: usize, span: usize, mutations: &[(u32, u8, bool)]) {
    let span = span.min(bytes.len().saturating_sub(start));
    if span == 0 {
        return;
    }
    for &(pos, b, xor) in mutations {
        let at = start + pos as usize % span;
        if xor {
            bytes[at] ^= b | 1;
        } else {
            bytes[at] = b;
        }
    }
}

fn mutations() -> impl Strategy<Value = Vec<(u32, u8, bool)>> {
    prop::collection::vec((any::<u32>(), any::<u8>(), any::<bool>()), 1..6)
}

/// Where mutations of a node page aim: its header, its slot array, the header of one record
/// (lengths, child pointer), or anywhere.
fn aim(page: &[u8], region: u8) -> (usize, usize) {
    let n_slots = u16::from_le_bytes([page[24], page[25]]) as usize;
    match region % 4 {
        0 => (0, HEADER_SIZE),
        1 => (HEADER_SIZE, (n_slots.max(1) * node::SLOT_SIZE).min(PAGE_SIZE - HEADER_SIZE)),
        2 if n_slots > 0 => {
            let slot = HEADER_SIZE + node::SLOT_SIZE * (region as usize / 4 % n_slots);
            let off = u16::from_le_bytes([page[slot], page[slot + 1]]) as usize;
            (off.min(PAGE_SIZE - 1), node::INNER_REC_HEADER)
        }
        _ => (0, PAGE_SIZE),
    }
}

// ------------------------------------------------------------------------------------------
// B+tree nodes.

fn sorted_unique(mut keys: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    keys.sort();
    keys.dedup();
    keys
}

/// A valid leaf holding as many of `entries` (sorted by key) as fit.
fn leaf_page(pid: PageId, entries: Vec<(Vec<u8>, Vec<u8>)>, link: PageId) -> Vec<u8> {
    let mut p = vec![0u8; PAGE_SIZE];
    node::init(&mut p, pid, PageType::Leaf, 0, link);
    let mut entries = entries;
    entries.sort();
    entries.dedup_by(|a, b| a.0 == b.0);
    for (i, (k, v)) in entries.iter().enumerate() {
        if node::leaf_insert(&mut p, i, k, 0, v).is_err() {
            break;
        }
    }
    p
}

/// A valid inner node over `seps` (sorted), children numbered from `first_child`.
fn inner_page(pid: PageId, level: u8, seps: Vec<Vec<u8>>, first_child: PageId) -> Vec<u8> {
    let mut p = vec![0u8; PAGE_SIZE];
    node::init(&mut p, pid, PageType::Inner, level, first_child);
    for (i, k) in sorted_unique(seps).iter().enumerate() {
        if node::inner_insert(&mut p, i, k, first_child + 1 + i as u64).is_err() {
            break;
        }
    }
    p
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => prop::collection::vec(any::<u8>(), 0..12),
        1 => prop::collection::vec(any::<u8>(), 0..300),
    ]
}

fn node_page() -> impl Strategy<Value = Vec<u8>> {
    let leaf = prop::collection::vec((key(), prop::collection::vec(any::<u8>(), 0..200)), 0..60)
        .prop_map(|entries| leaf_page(7, entries, 9));
    // Nearly full leaves: where overlapping records add up to more than a page.
    let full = (any::<u64>(), 100usize..4000).prop_map(|(seed, max)| {
        let mut rng = StdRng::seed_from_u64(seed);
        let entries = (0..200)
            .map(|_| ((0..rng.gen_range(1..8)).map(|_| rng.gen()).collect(), vec![0x5A; rng.gen_range(0..max)]))
            .collect();
        leaf_page(7, entries, 9)
    });
    let inner = (1u8..4, prop::collection::vec(key(), 0..80)).prop_map(|(level, seps)| inner_page(7, level, seps, 100));
    prop_oneof![leaf, full, inner]
}

/// Every read a tree makes of one node, with these probe keys.
fn read_node(p: &[u8], probes: &[Vec<u8>]) {
    if let Ok(h) = node::header(p) {
        for i in 0..h.n_slots + 2 {
            if h.is_leaf() {
                let _ = node::leaf_record(p, &h, i);
            } else {
                let _ = node::inner_record(p, &h, i);
            }
            let _ = node::inner_child(p, &h, i);
        }
        for k in probes {
            let _ = node::partition(p, &h, k, false);
            let _ = node::partition(p, &h, k, true);
            let _ = node::leaf_search(p, &h, k);
            if let Ok(ci) = node::inner_search(p, &h, k, false) {
                let _ = node::inner_child(p, &h, ci);
            }
            let _ = node::inner_search(p, &h, k, true);
        }
        let _ = h.free_total();
    }
    let _ = node::leaf_entries(p);
    let _ = node::inner_entries(p);
    let _ = node::used_ranges(p);
}

#[derive(Clone, Debug)]
enum NodeChange {
    Insert { slot: u16, key: Vec<u8>, overflow: bool, value: Vec<u8> },
    Delete { slot: u16 },
    Update { slot: u16, overflow: bool, value: Vec<u8> },
    InnerInsert { slot: u16, key: Vec<u8>, child: u64 },
    Compact,
}

fn node_change() -> impl Strategy<Value = NodeChange> {
    let slot = 0u16..90;
    let value = prop_oneof![prop::collection::vec(any::<u8>(), 0..64), prop::collection::vec(any::<u8>(), 16..=16)];
    prop_oneof![
        (slot.clone(), key(), any::<bool>(), value.clone())
            .prop_map(|(slot, key, overflow, value)| NodeChange::Insert { slot, key, overflow, value }),
        slot.clone().prop_map(|slot| NodeChange::Delete { slot }),
        (slot.clone(), any::<bool>(), value).prop_map(|(slot, overflow, value)| NodeChange::Update {
            slot,
            overflow,
            value
        }),
        (slot, key(), any::<u64>()).prop_map(|(slot, key, child)| NodeChange::InnerInsert { slot, key, child }),
        Just(NodeChange::Compact),
    ]
}

fn change_node(p: &mut [u8], c: &NodeChange) -> Result<(), node::NodeError> {
    let flags = |overflow: bool| if overflow { node::FLAG_OVERFLOW } else { 0 };
    match c {
        NodeChange::Insert { slot, key, overflow, value } => {
            node::leaf_insert(p, *slot as usize, key, flags(*overflow), value)
        }
        NodeChange::Delete { slot } => node::leaf_delete(p, *slot as usize),
        NodeChange::Update { slot, overflow, value } => node::leaf_update(p, *slot as usize, flags(*overflow), value),
        NodeChange::InnerInsert { slot, key, child } => node::inner_insert(p, *slot as usize, key, *child),
        NodeChange::Compact => node::compact(p),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn random_pages_never_panic_the_node_readers(bytes in prop::collection::vec(any::<u8>(), PAGE_SIZE..=PAGE_SIZE), probes in prop::collection::vec(key(), 0..4)) {
        read_node(&bytes, &probes);
    }

    /// A node whose header claims a type, with random bytes behind it (what a misdirected or
    /// garbage write with a valid checksum would look like).
    #[test]
    fn random_bodies_never_panic_the_node_readers(
        mut bytes in prop::collection::vec(any::<u8>(), PAGE_SIZE..=PAGE_SIZE),
        leaf in any::<bool>(),
        level in 0u8..3,
        n_slots in 0u16..3000,
        probes in prop::collection::vec(key(), 0..4),
    ) {
        bytes[4] = if leaf { PageType::Leaf as u8 } else { PageType::Inner as u8 };
        bytes[5] = if leaf { 0 } else { level + 1 };
        bytes[24..26].copy_from_slice(&n_slots.to_le_bytes());
        read_node(&bytes, &probes);
    }

    #[test]
    fn mutated_nodes_never_panic_the_readers(
        page in node_page(),
        region in any::<u8>(),
        muts in mutations(),
        probes in prop::collection::vec(key(), 0..6),
    ) {
        let mut page = page;
        let (start, span) = aim(&page, region);
        mutate(&mut page, start, span, &muts);
        read_node(&page, &probes);
    }

    /// Changes to a mutated node (the runtime on a corrupt page, or redo replaying onto one)
    /// succeed or fail with `NodeError`; afterwards the page reads without panicking either.
    #[test]
    fn changes_to_mutated_nodes_fail_cleanly(
        page in node_page(),
        region in any::<u8>(),
        muts in mutations(),
        changes in prop::collection::vec(node_change(), 1..6),
    ) {
        let mut page = page;
        let (start, span) = aim(&page, region);
        mutate(&mut page, start, span, &muts);
        for c in &changes {
            let _ = change_node(&mut page, c);
        }
        read_node(&page, &[]);
    }

    /// On a valid node, changes keep it valid: every record stays readable and in key order.
    #[test]
    fn changes_to_valid_nodes_keep_them_valid(page in node_page(), changes in prop::collection::vec(node_change(), 1..12)) {
        let mut page = page;
        for c in &changes {
            let before = page.clone();
            if change_node(&mut page, c).is_err() {
                prop_assert_eq!(&page, &before, "a failed change must leave the page as it was");
            }
        }
        let h = node::header(&page[..]).expect("still a node");
        if h.is_leaf() {
            let (entries, _) = node::leaf_entries(&page).expect("readable");
            prop_assert_eq!(entries.len(), h.n_slots);
        } else {
            let e = node::inner_entries(&page).expect("readable");
            prop_assert_eq!(e.entries.len(), h.n_slots);
        }
    }
}

// ------------------------------------------------------------------------------------------
// Page checksums.

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(128)))]

    #[test]
    fn random_pages_fail_verification(bytes in prop::collection::vec(any::<u8>(), PAGE_SIZE..=PAGE_SIZE), pid in 0u64..1000) {
        let all_zero = bytes.iter().all(|&b| b == 0);
        prop_assert_eq!(page::verify(&bytes, pid).is_ok(), all_zero);
        let _ = page::has_valid_checksum(&bytes);
    }

    /// A sealed page with any byte changed fails verification, naming the page.
    #[test]
    fn a_changed_byte_of_a_sealed_page_is_caught(page in node_page(), at in 0usize..PAGE_SIZE, xor in 1u8..=255) {
        let mut page = page;
        page::seal(&mut page);
        prop_assert!(page::verify(&page, 7).is_ok());
        prop_assert!(page::verify(&page, 8).is_err(), "a misdirected page");
        page[at] ^= xor;
        let err = page::verify(&page, 7).expect_err("a changed byte");
        prop_assert!(err.contains("page 7"), "{}", err);
        prop_assert!(!page::has_valid_checksum(&page));
    }
}

// ------------------------------------------------------------------------------------------
// Redo records.

fn page_record() -> impl Strategy<Value = (PageId, RecordSpec)> {
    let spec = prop_oneof![
        (0u8..8, 0u8..4, any::<u64>()).prop_map(|(t, level, link)| RecordSpec::Init(t, level, link)),
        (0u16..80, key(), 0u8..3, prop::collection::vec(any::<u8>(), 0..80))
            .prop_map(|(slot, key, flags, value)| RecordSpec::LeafInsert(slot, key, flags, value)),
        (0u16..80).prop_map(RecordSpec::LeafDelete),
        (0u16..80, 0u8..3, prop::collection::vec(any::<u8>(), 0..80))
            .prop_map(|(slot, flags, value)| RecordSpec::LeafUpdate(slot, flags, value)),
        (0u16..80, key(), any::<u64>()).prop_map(|(slot, key, child)| RecordSpec::InnerInsert(slot, key, child)),
        (0u16..80).prop_map(RecordSpec::InnerDelete),
        (HEADER_SIZE..PAGE_SIZE, 0usize..PAGE_SIZE, prop::collection::vec(any::<u8>(), 0..64))
            .prop_map(|(low, high, fill)| RecordSpec::Image(low, high, fill)),
        (any::<u16>(), any::<u64>()).prop_map(|(offset, value)| RecordSpec::SetU64(offset, value)),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(RecordSpec::Logical),
    ];
    (prop_oneof![Just(7u64), 0u64..64], spec)
}

/// A page record's fields (the record itself borrows its byte strings).
#[derive(Clone, Debug)]
enum RecordSpec {
    Init(u8, u8, u64),
    LeafInsert(u16, Vec<u8>, u8, Vec<u8>),
    LeafDelete(u16),
    LeafUpdate(u16, u8, Vec<u8>),
    InnerInsert(u16, Vec<u8>, u64),
    InnerDelete(u16),
    Image(usize, usize, Vec<u8>),
    SetU64(u16, u64),
    Logical(Vec<u8>),
}

fn encode_spec(pid: PageId, spec: &RecordSpec, out: &mut Vec<u8>) {
    let image;
    let rec = match spec {
        RecordSpec::Init(t, level, link) => {
            let Some(page_type) = PageType::from_u8(*t) else {
                // An unknown page type as a raw record: the reader must reject it.
                out.extend_from_slice(&[1]);
                out.extend_from_slice(&pid.to_le_bytes());
                out.extend_from_slice(&[*t, *level]);
                out.extend_from_slice(&link.to_le_bytes());
                return;
            };
            PageRecord::Init { page_type, level: *level, link: *link }
        }
        RecordSpec::LeafInsert(slot, key, flags, value) => {
            PageRecord::LeafInsert { slot: *slot, key, flags: *flags, value }
        }
        RecordSpec::LeafDelete(slot) => PageRecord::LeafDelete { slot: *slot },
        RecordSpec::LeafUpdate(slot, flags, value) => PageRecord::LeafUpdate { slot: *slot, flags: *flags, value },
        RecordSpec::InnerInsert(slot, key, child) => PageRecord::InnerInsert { slot: *slot, key, child: *child },
        RecordSpec::InnerDelete(slot) => PageRecord::InnerDelete { slot: *slot },
        RecordSpec::Image(low, high, fill) => {
            let (low, high) = (*low, (*high).max(*low));
            let mut p = vec![0u8; PAGE_SIZE];
            for (i, b) in p.iter_mut().enumerate() {
                *b = fill.get(i % fill.len().max(1)).copied().unwrap_or(0);
            }
            p[low..high].fill(0);
            page::put_u64(&mut p, page::OFF_PAGE_ID, pid);
            image = p;
            PageRecord::Image { low: &image[..low], high_off: high as u16, high: &image[high..] }
        }
        RecordSpec::SetU64(offset, value) => PageRecord::SetU64 { offset: *offset, value: *value },
        RecordSpec::Logical(bytes) => return redo::encode_logical(bytes, out),
    };
    redo::encode_page(pid, &rec, out);
}

/// Decodes every record of `buf` (bounded: each one consumes bytes) and applies the page records
/// to copies of `pages` (a leaf, an inner node, an overflow page, a zero page).
fn replay(buf: &[u8], pages: &[Vec<u8>]) {
    let mut rd = RecordReader::new(buf);
    let mut steps = 0;
    while let Ok(Some(rec)) = rd.next_record() {
        steps += 1;
        assert!(steps <= buf.len(), "the record reader made no progress");
        if let redo::LogRecord::Page(_, rec) = rec {
            for p in pages {
                let mut p = p.clone();
                let pid = page::get_u64(&p, page::OFF_PAGE_ID);
                let _ = redo::apply(&mut p, pid, &rec);
                read_node(&p, &[]);
            }
        }
    }
}

fn target_pages() -> Vec<Vec<u8>> {
    let leaf = leaf_page(7, (0..40u8).map(|i| (vec![i, i], vec![i; i as usize])).collect(), 0);
    let inner = inner_page(7, 1, (0..40u8).map(|i| vec![i]).collect(), 100);
    let mut overflow = vec![0u8; PAGE_SIZE];
    redo::init_linked_page(&mut overflow, 7, PageType::Overflow, 8);
    page::put_u32(&mut overflow, redo::OFF_OVERFLOW_LEN, 100);
    let mut zero = vec![0u8; PAGE_SIZE];
    page::put_u64(&mut zero, page::OFF_PAGE_ID, 7);
    vec![leaf, inner, overflow, zero]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn random_redo_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        replay(&bytes, &target_pages());
    }

    #[test]
    fn mutated_redo_records_never_panic(
        records in prop::collection::vec(page_record(), 1..8),
        muts in mutations(),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut buf = Vec::new();
        for (pid, spec) in &records {
            encode_spec(*pid, spec, &mut buf);
        }
        let pages = target_pages();
        replay(&buf, &pages);
        let cut = cut.index(buf.len() + 1);
        replay(&buf[..cut], &pages);
        mutate(&mut buf, 0, usize::MAX, &muts);
        replay(&buf, &pages);
    }
}

// ------------------------------------------------------------------------------------------
// Logical log records, MVCC headers, rows, keys, catalog records.

/// A logical record's fields: (kind, a u64, a u32, key, before-image, tree roots).
type LogicalSpec = (u8, u64, u32, Vec<u8>, Option<Vec<u8>>, Vec<u64>);

fn logical_record() -> impl Strategy<Value = LogicalSpec> {
    (
        0u8..12,
        any::<u64>(),
        any::<u32>(),
        key(),
        prop::option::of(prop::collection::vec(any::<u8>(), 0..100)),
        prop::collection::vec(any::<u64>(), 0..6),
    )
}

fn encode_logical((kind, a, b, key, before, roots): &LogicalSpec) -> Vec<u8> {
    let rec = match kind {
        0 => LogRecord::UndoLogCreated { first: *a },
        1 => LogRecord::Commit { trx_id: *a },
        2 => LogRecord::Abort { trx_id: *a },
        3 => LogRecord::AutoInc { table_id: *b, next: *a },
        4 => LogRecord::AutoIncReset { trx_id: *a, table_id: *b, next: *a / 2 },
        5 => LogRecord::TreesToFree { roots: roots.clone() },
        6 => LogRecord::TreesSettled { roots: roots.clone() },
        7 => LogRecord::PendingTrees { roots: roots.clone() },
        8 => LogRecord::UndoLogFreed { first: *a },
        9 => LogRecord::UndoLogs { firsts: roots.clone() },
        10 => LogRecord::CheckpointMarker,
        _ => {
            // An undo page record through the undo log format (the record bytes are opaque).
            let _ = (key, before);
            LogRecord::Commit { trx_id: *a }
        }
    };
    let bytes = rec.encode();
    assert_eq!(LogRecord::decode(&bytes).expect("round trip"), rec);
    bytes
}

fn column(ty: ColumnType, nullable: bool) -> ColumnDef {
    ColumnDef {
        name: "c".into(),
        ty,
        nullable,
        default: ColumnDefault::None,
        auto_increment: false,
        on_update_current_timestamp: false,
        comment: String::new(),
        zerofill: false,
        generated: None,
        collation: String::new(),
    }
}

fn column_type() -> impl Strategy<Value = ColumnType> {
    let width = prop_oneof![
        Just(IntWidth::Tiny),
        Just(IntWidth::Small),
        Just(IntWidth::Medium),
        Just(IntWidth::Int),
        Just(IntWidth::Big)
    ];
    let lob = prop_oneof![Just(LobSize::Tiny), Just(LobSize::Normal), Just(LobSize::Medium), Just(LobSize::Long)];
    prop_oneof![
        (width, any::<bool>(), prop::option::of(0u32..30))
            .prop_map(|(width, unsigned, display_width)| ColumnType::Int { width, unsigned, display_width }),
        (1u8..=38, 0u8..=38).prop_map(|(precision, scale)| ColumnType::Decimal { precision, scale, unsigned: false }),
        Just(ColumnType::FLOAT),
        Just(ColumnType::DOUBLE),
        (0u32..300).prop_map(|len| ColumnType::Char { len }),
        (0u32..70_000).prop_map(|len| ColumnType::VarChar { len }),
        lob.clone().prop_map(|size| ColumnType::Text { size }),
        (0u32..300).prop_map(|len| ColumnType::Binary { len }),
        (0u32..70_000).prop_map(|len| ColumnType::VarBinary { len }),
        lob.prop_map(|size| ColumnType::Blob { size }),
        Just(ColumnType::Date),
        (0u8..=6).prop_map(|fsp| ColumnType::DateTime { fsp }),
        (0u8..=6).prop_map(|fsp| ColumnType::Timestamp { fsp }),
    ]
}

fn columns() -> impl Strategy<Value = Vec<ColumnDef>> {
    prop::collection::vec((column_type(), any::<bool>()), 1..10)
        .prop_map(|cols| cols.into_iter().map(|(ty, nullable)| column(ty, nullable)).collect())
}

/// A value that column type `ty` can hold (the encoders' precondition).
fn datum_for(ty: &ColumnType, seed: u64) -> Datum {
    let mut rng = StdRng::seed_from_u64(seed);
    match ty {
        ColumnType::Int { width, unsigned: false, .. } => {
            let (lo, hi) = width.signed_range();
            Datum::Int(rng.gen_range(lo..=hi))
        }
        ColumnType::Int { width, unsigned: true, .. } => Datum::UInt(rng.gen_range(0..=width.unsigned_max())),
        ColumnType::Decimal { scale, .. } => Datum::Decimal(Decimal::new(rng.gen_range(-1_000_000..1_000_000), *scale)),
        ColumnType::Float { .. } | ColumnType::Double { .. } => Datum::Double(rng.gen_range(-1e9..1e9)),
        ColumnType::Date => Datum::Date(Date::new(rng.gen_range(0..9999), rng.gen_range(1..13), rng.gen_range(1..29))),
        ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } => {
            Datum::DateTime(DateTime(rng.gen_range(0..i64::MAX / 2)))
        }
        _ => Datum::Bytes((0..rng.gen_range(0..40)).map(|_| rng.gen()).collect()),
    }
}

fn table_with(columns: Vec<ColumnDef>, pk: Vec<usize>, secondary: Vec<(Vec<usize>, bool, Option<u32>)>) -> TableDef {
    let ix = |id: u32, name: &str, cols: Vec<usize>, unique: bool, primary: bool, prefix: Option<u32>| IndexDef {
        id,
        name: name.into(),
        columns: cols.into_iter().map(|column| IndexColumn { column, prefix_len: prefix, descending: false }).collect(),
        unique,
        primary,
        root: 3 + id as u64,
    };
    TableDef {
        row_versions: Default::default(),
        id: 70,
        db: "d".into(),
        name: "t".into(),
        primary: ix(64, "PRIMARY", pk, true, true, None),
        secondary: secondary
            .into_iter()
            .enumerate()
            .map(|(i, (cols, unique, prefix))| ix(65 + i as u32, &format!("i{i}"), cols, unique, false, prefix))
            .collect(),
        columns,
        options: TableOptions {
            engine: "InnoDB".into(),
            charset: "utf8mb4".into(),
            collation: "utf8mb4_bin".into(),
            comment: "x".into(),
            row_format: String::new(),
            sequence: None,
            key_format: KEY_FORMAT_BYTES,
        },
        constraints: Default::default(),
    }
}

/// A table definition with indexes over its columns (primary key columns NOT NULL).
fn table_def() -> impl Strategy<Value = TableDef> {
    columns().prop_flat_map(|cols| {
        let n = cols.len();
        let index_cols = prop::collection::vec(0..n, 0..4);
        (
            Just(cols),
            index_cols.clone(),
            prop::collection::vec((prop::collection::vec(0..n, 1..4), any::<bool>(), prop::option::of(1u32..20)), 0..4),
        )
            .prop_map(|(mut cols, pk, secondary)| {
                let mut seen = std::collections::HashSet::new();
                let pk: Vec<usize> = pk.into_iter().filter(|c| seen.insert(*c)).collect();
                for &c in &pk {
                    cols[c].nullable = false;
                }
                table_with(cols, pk, secondary)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn mutated_logical_records_never_panic(rec in logical_record(), muts in mutations(), cut in any::<prop::sample::Index>(), junk in prop::collection::vec(any::<u8>(), 0..200)) {
        let mut bytes = encode_logical(&rec);
        let cut = cut.index(bytes.len());
        prop_assert!(LogRecord::decode(&bytes[..cut]).is_err(), "a truncated record is an error");
        mutate(&mut bytes, 0, usize::MAX, &muts);
        let _ = LogRecord::decode(&bytes);
        bytes.extend_from_slice(&junk);
        let _ = LogRecord::decode(&bytes);
        let _ = LogRecord::decode(&junk);
    }

    #[test]
    fn mvcc_headers_of_any_bytes_parse_or_fail(bytes in prop::collection::vec(any::<u8>(), 0..40)) {
        match RecHeader::parse(&bytes) {
            Ok(h) => prop_assert_eq!(&h.to_vec()[..], &bytes[..17]),
            Err(_) => prop_assert!(bytes.len() < 17 || bytes[16] > 1),
        }
    }

    /// Rows of any schema: encoded rows decode to themselves; mutated, truncated and random
    /// rows decode or fail, and never allocate beyond their own length.
    #[test]
    fn rows_of_any_schema_round_trip_and_garbage_fails(cols in columns(), seed in any::<u64>(), nulls in any::<u16>(), muts in mutations(), junk in prop::collection::vec(any::<u8>(), 0..100)) {
        let row: Vec<Datum> = cols
            .iter()
            .enumerate()
            .map(|(i, c)| if c.nullable && nulls & (1 << i) != 0 { Datum::Null } else { datum_for(&c.ty, seed ^ i as u64) })
            .collect();
        let mut bytes = rowcodec::encode_row(&cols, &row).expect("a row the columns can hold");
        let back = rowcodec::decode_row(&cols, &bytes).expect("round trip");
        prop_assert_eq!(back.len(), row.len());
        prop_assert!(rowcodec::decode_row(&cols, &bytes[..bytes.len() - 1]).is_err());
        mutate(&mut bytes, 0, usize::MAX, &muts);
        let _ = rowcodec::decode_row(&cols, &bytes);
        let _ = rowcodec::decode_row(&cols, &junk);
    }

    /// Index keys: the column split of any key bytes (what a secondary index scan does with every
    /// entry) succeeds within the key or fails; valid keys split exactly.
    #[test]
    fn keys_of_any_bytes_split_or_fail(def in table_def(), seed in any::<u64>(), muts in mutations(), junk in prop::collection::vec(any::<u8>(), 0..60)) {
        let row: Vec<Datum> = def.columns.iter().enumerate().map(|(i, c)| datum_for(&c.ty, seed ^ i as u64)).collect();
        let pk = if def.has_hidden_pk() {
            keycodec::hidden_row_id_key(seed)
        } else {
            keycodec::primary_key(&def, &row).expect("in-domain values")
        };
        for ix in &def.secondary {
            let mut key = keycodec::secondary_key(&def, ix, &row, &pk).expect("in-domain values");
            let cols_len = keycodec::secondary_columns_len(&def, ix, &key).expect("a valid key splits");
            prop_assert_eq!(&key[cols_len..], &pk[..]);
            mutate(&mut key, 0, usize::MAX, &muts);
            if let Ok(n) = keycodec::secondary_columns_len(&def, ix, &key) {
                prop_assert!(n <= key.len());
            }
            if let Ok(n) = keycodec::secondary_columns_len(&def, ix, &junk) {
                prop_assert!(n <= junk.len());
            }
        }
        prop_assert_eq!(keycodec::hidden_row_id(&junk).is_some(), junk.len() == 8);
    }

    /// Catalog records: table definitions round-trip; mutated, truncated and random records
    /// decode or fail without panicking (a count beyond the bytes left is refused before any
    /// allocation).
    #[test]
    fn catalog_records_round_trip_and_garbage_fails(def in table_def(), muts in mutations(), cut in any::<prop::sample::Index>(), junk in prop::collection::vec(any::<u8>(), 0..200)) {
        let mut bytes = catalog::encode_table(&def);
        prop_assert_eq!(catalog::decode_table(&bytes).expect("round trip"), def.clone());
        let cut = cut.index(bytes.len());
        prop_assert!(catalog::decode_table(&bytes[..cut]).is_err());
        mutate(&mut bytes, 0, usize::MAX, &muts);
        if let Ok(t) = catalog::decode_table(&bytes) {
            // A decoded definition names only columns it has.
            prop_assert!(t.indexes().all(|ix| ix.columns.iter().all(|c| c.column < t.columns.len())));
        }
        let db = DatabaseDef { name: def.name.clone(), charset: "utf8mb4".into(), collation: "utf8mb4_bin".into() };
        let mut dbb = catalog::encode_database(&db);
        prop_assert_eq!(catalog::decode_database(&dbb).unwrap(), db);
        mutate(&mut dbb, 0, usize::MAX, &muts);
        let _ = catalog::decode_database(&dbb);
        for decode in [
            |b: &[u8]| catalog::decode_table(b).map(|_| ()),
            |b: &[u8]| catalog::decode_database(b).map(|_| ()),
            |b: &[u8]| catalog::decode_counters(b).map(|_| ()),
            |b: &[u8]| catalog::decode_persisted(b).map(|_| ()),
        ] {
            let _ = decode(&junk);
            let mut with_format = vec![1u8];
            with_format.extend_from_slice(&junk);
            let _ = decode(&with_format);
        }
    }
}

// ------------------------------------------------------------------------------------------
// Files: log segments and the control file.

const SEGMENT: u64 = 8192;

fn segment_path(dir: &Path, n: u64) -> std::path::PathBuf {
    dir.join("redo").join(format!("{n:016x}.log"))
}

/// Writes a log of `payloads` (segments of SEGMENT bytes, entries crossing them) and returns the
/// end LSN of each entry.
fn write_log(dir: &Path, payloads: &[Vec<u8>]) -> Vec<(Lsn, Lsn)> {
    let io = Io::new(FaultInjection::default());
    let wal = Wal::open(
        &io,
        dir,
        WalConfig {
            flush_mode: FlushMode::Durable,
            segment_bytes: SEGMENT,
            ring_bytes: 1 << 16,
            ..WalConfig::default()
        },
        FIRST_LSN,
    )
    .unwrap();
    let spans: Vec<(Lsn, Lsn)> = payloads.iter().map(|p| wal.append(p, |_, _| {})).collect();
    wal.flush_to(spans.last().map_or(FIRST_LSN, |s| s.1)).unwrap();
    wal.shutdown().unwrap();
    spans
}

/// Scans the log from FIRST_LSN: the entries it returns (bounded by the bytes on disk).
fn scan_log(dir: &Path, from: Lsn) -> Vec<(Lsn, Vec<u8>)> {
    let io = Io::new(FaultInjection::default());
    let mut scan = LogScan::open(&io, dir, from, SEGMENT).unwrap();
    let mut out = Vec::new();
    while let Ok(Some(e)) = scan.next_entry() {
        assert!(e.end > e.start, "an entry ends after it starts");
        out.push((e.start, e.payload));
        assert!(out.len() < 100_000, "the scan does not end");
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(32)))]

    /// Segment files full of garbage end the scan (or fail it); nothing panics.
    #[test]
    fn garbage_segments_end_the_log(files in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..(2 * SEGMENT as usize)), 1..4), entry_lens in prop::collection::vec(any::<u32>(), 0..4)) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("redo")).unwrap();
        for (n, mut bytes) in files.into_iter().enumerate() {
            // Plausible headers at the scan start: a length, the right start LSN.
            if n == (FIRST_LSN / SEGMENT) as usize && bytes.len() >= 16 {
                let at = (FIRST_LSN % SEGMENT) as usize;
                if let Some(&len) = entry_lens.first() {
                    if bytes.len() >= at + 16 {
                        bytes[at..at + 4].copy_from_slice(&len.to_le_bytes());
                        bytes[at + 8..at + 16].copy_from_slice(&FIRST_LSN.to_le_bytes());
                    }
                }
            }
            std::fs::write(segment_path(dir.path(), n as u64), bytes).unwrap();
        }
        for from in [FIRST_LSN, 0, SEGMENT - 8, u64::MAX - 7] {
            let got = scan_log(dir.path(), from);
            prop_assert!(got.len() < 2, "garbage verified as {} entries", got.len());
        }
    }

    /// A real log with bytes changed: the scan returns a prefix of the entries that were written,
    /// each unchanged (a changed byte ends the log at its entry, unless it is padding).
    #[test]
    fn mutated_logs_scan_to_a_prefix(
        payloads in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..3000), 1..12),
        muts in mutations(),
        truncate in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let spans = write_log(dir.path(), &payloads);
        let end = spans.last().unwrap().1;
        let segments: Vec<u64> = (FIRST_LSN / SEGMENT..=end / SEGMENT).collect();
        let n = segments[muts[0].0 as usize % segments.len()];
        let path = segment_path(dir.path(), n);
        let mut bytes = std::fs::read(&path).unwrap();
        mutate(&mut bytes, 0, usize::MAX, &muts);
        if let Some(t) = truncate {
            bytes.truncate(t.index(bytes.len()));
        }
        std::fs::write(&path, &bytes).unwrap();
        let got = scan_log(dir.path(), FIRST_LSN);
        prop_assert!(got.len() <= payloads.len());
        for ((start, payload), (span, want)) in got.iter().zip(spans.iter().zip(&payloads)) {
            prop_assert_eq!(*start, span.0);
            prop_assert_eq!(payload, want);
        }
    }

    /// The control file: random bytes are refused with an error; a valid file with bytes
    /// changed falls back to the other slot or is refused.
    #[test]
    fn garbage_control_files_are_refused(junk in prop::collection::vec(any::<u8>(), 0..(3 * SLOT_BYTES)), muts in mutations(), both in any::<bool>()) {
        let io = Io::new(FaultInjection::default());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONTROL_FILE_NAME);
        std::fs::write(&path, &junk).unwrap();
        prop_assert!(ControlFile::open(&io, dir.path()).is_err(), "garbage accepted as a control file");

        let first = ControlData { format: 1, checkpoint_lsn: 9000, scan_start_lsn: 8192, next_trx_id: 40, extra: vec![7; 100] };
        let second = ControlData { checkpoint_lsn: 12_000, next_trx_id: 41, ..first.clone() };
        let mut c = ControlFile::create(&io, dir.path(), &first).unwrap();
        if both {
            c.write(&second).unwrap();
        }
        drop(c);
        let mut bytes = std::fs::read(&path).unwrap();
        mutate(&mut bytes, 0, usize::MAX, &muts);
        std::fs::write(&path, &bytes).unwrap();
        if let Ok((_, Some(data))) = ControlFile::open(&io, dir.path()) {
            prop_assert!(data == first || (both && data == second), "{:?}", data);
        }
    }
}

// ------------------------------------------------------------------------------------------
// Whole trees with pages corrupted behind their checksums.

struct NoTrx;

impl CheckpointHooks for NoTrx {
    fn scan_start_floor(&self) -> Lsn {
        Lsn::MAX
    }
    fn next_trx_id(&self) -> u64 {
        1
    }
}

/// A page store in `dir` with its log started, as the engine opens one (no transactions).
fn open_store(dir: &Path, pool_frames: u64) -> (Arc<PageStore>, Arc<Wal>) {
    let io = Io::new(FaultInjection::default());
    let store = PageStore::open(&io, dir, PageStoreConfig::new(pool_frames * PAGE_SIZE as u64)).unwrap();
    let from = store.control_at_open().scan_start_lsn;
    let mut scan = LogScan::open(&io, dir, from, 1 << 20).unwrap();
    while let Some(e) = scan.next_entry().unwrap() {
        store.redo_entry(&e, &mut |_, _| {}).unwrap();
    }
    let config =
        WalConfig { flush_mode: FlushMode::Lazy, segment_bytes: 1 << 20, ring_bytes: 4 << 20, ..WalConfig::default() };
    let wal = Wal::open(&io, dir, config, scan.end_lsn()).unwrap();
    store.start(wal.clone(), Arc::new(NoTrx)).unwrap();
    (store, wal)
}

fn put(store: &PageStore, tree: &BTree, key: &[u8], value: Vec<u8>) -> crate::Result<()> {
    let mut mtr = Mtr::new(store);
    tree.modify(&mut mtr, key, |_| (Change::Put(value), ()))?;
    mtr.commit();
    Ok(())
}

/// Corrupts page `pid` the way a bug (not a torn write: the checksum is recomputed) could: a
/// link or child pointer set to another page of the tree or to nonsense, a field of the node
/// header, or a run of bytes anywhere.
fn corrupt_page(store: &PageStore, pid: PageId, tree_pages: &[PageId], rng: &mut StdRng) -> crate::Result<String> {
    let mut mtr = Mtr::new(store);
    mtr.latch(pid)?;
    let mut image = mtr.page(pid).to_vec();
    let overflow_ref = node::header(&image[..]).ok().filter(|h| h.is_leaf()).and_then(|h| {
        (0..h.n_slots).filter_map(|i| node::leaf_record(&image[..], &h, i).ok()).find(|r| r.is_overflow())
    });
    let what = match rng.gen_range(0..6) {
        5 if overflow_ref.is_some() => {
            // An overflow reference: its length or first page changed (to a page of the tree, a
            // page of another chain, or nonsense).
            let r = overflow_ref.expect("matched");
            let (at, v) = if rng.gen_bool(0.5) {
                (r.val_off, rng.gen_range(0..200_000u64))
            } else {
                (
                    r.val_off + 8,
                    if rng.gen_bool(0.7) { tree_pages[rng.gen_range(0..tree_pages.len())] } else { rng.gen() },
                )
            };
            page::put_u64(&mut image, at, v);
            format!("overflow reference field at {at} of page {pid} -> {v}")
        }
        0 => {
            // Sibling, leftmost child, overflow next: to a page of the tree (a cycle or a jump).
            let target = tree_pages[rng.gen_range(0..tree_pages.len())];
            let off = if rng.gen_bool(0.5) { node::OFF_LINK } else { page::OFF_NEXT };
            page::put_u64(&mut image, off, target);
            format!("link at {off} of page {pid} -> {target}")
        }
        1 => {
            // A child pointer or overflow reference inside a record.
            let at = rng.gen_range(HEADER_SIZE..PAGE_SIZE - 8);
            let v = if rng.gen_bool(0.5) { tree_pages[rng.gen_range(0..tree_pages.len())] } else { rng.gen() };
            page::put_u64(&mut image, at, v);
            format!("u64 at {at} of page {pid} -> {v}")
        }
        2 => {
            let at = rng.gen_range(24..HEADER_SIZE - 2);
            let v: u16 = rng.gen();
            page::put_u16(&mut image, at, v);
            format!("header field at {at} of page {pid} -> {v}")
        }
        3 => {
            let at = rng.gen_range(HEADER_SIZE..PAGE_SIZE);
            let n = rng.gen_range(1..64).min(PAGE_SIZE - at);
            rng.fill(&mut image[at..at + n]);
            format!("{n} random bytes at {at} of page {pid}")
        }
        _ => {
            let t = rng.gen_range(0..8u8);
            image[page::OFF_TYPE] = t;
            image[page::OFF_LEVEL] = rng.gen_range(0..3);
            format!("type {t} for page {pid}")
        }
    };
    mtr.apply(pid, &PageRecord::Image { low: &image[..], high_off: PAGE_SIZE as u16, high: &[] })?;
    mtr.commit();
    Ok(what)
}

/// Every reader and writer of a tree over its (corrupt) pages: each returns a result.
fn use_tree(store: &PageStore, tree: BTree, keys: &[Vec<u8>], rng: &mut StdRng) {
    for k in keys.iter().take(20) {
        let _ = tree.get(store, k);
    }
    for reverse in [false, true] {
        let lower = match rng.gen_range(0..3) {
            0 => Bound::Unbounded,
            1 => Bound::Included(keys[rng.gen_range(0..keys.len())].clone()),
            _ => Bound::Excluded(keys[rng.gen_range(0..keys.len())].clone()),
        };
        let mut c = tree.cursor(lower, Bound::Unbounded, reverse);
        // A cursor returns each record once; more rows than records means it went round a cycle.
        for _ in 0..keys.len() * 2 + 10 {
            match c.next(store) {
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
    }
    let _ = tree.pages(store);
    for _ in 0..10 {
        let k = &keys[rng.gen_range(0..keys.len())];
        let mut mtr = Mtr::new(store);
        let change = match rng.gen_range(0..3) {
            0 => Change::Remove,
            1 => Change::Put(vec![1; rng.gen_range(0..100)]),
            _ => Change::Put(vec![2; rng.gen_range(4_000..40_000)]),
        };
        if tree.modify(&mut mtr, k, |_| (change, ())).is_ok() {
            mtr.commit();
        }
    }
}

/// One case: a tree of a few hundred records (some in overflow chains), then pages corrupted
/// one after another, the tree used after each.
fn corrupt_tree_case(seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let dir = tempfile::tempdir().unwrap();
    let (store, wal) = open_store(dir.path(), 256);
    let mut mtr = Mtr::new(&store);
    let tree = BTree::create(&mut mtr).unwrap();
    mtr.commit();
    let mut keys: Vec<Vec<u8>> = Vec::new();
    for i in 0..rng.gen_range(50..400u32) {
        let key = format!("{:08}", i * 7 % 1000).into_bytes();
        let value = if rng.gen_ratio(1, 10) {
            vec![i as u8; rng.gen_range(5_000..30_000)]
        } else {
            vec![i as u8; rng.gen_range(0..200)]
        };
        put(&store, &tree, &key, value).unwrap();
        keys.push(key);
    }
    keys.push(b"zzzz".to_vec());
    keys.push(Vec::new());
    for _ in 0..rng.gen_range(1..4) {
        let Ok(pages) = tree.pages(&store) else { break };
        let pid = pages[rng.gen_range(0..pages.len())];
        if corrupt_page(&store, pid, &pages, &mut rng).is_err() {
            break;
        }
        use_tree(&store, tree, &keys, &mut rng);
    }
    drop(store);
    let _ = wal.shutdown();
}

/// Trees with pages corrupted behind their checksums: every get, scan, change and page walk
/// returns (an error or a result) within a deadline. The limit also catches a cursor or walk
/// that goes round a cycle of links for ever.
#[test]
fn trees_over_corrupt_pages_fail_cleanly() {
    let seeds = cases(24) as u64;
    let base: u64 = std::env::var("SELKIE_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    for seed in base..base + seeds {
        within(format!("corrupt tree case {seed}"), Duration::from_secs(60), move || corrupt_tree_case(seed));
    }
}

#[test]
fn node_helpers_used_here_match_the_format() {
    // The mutation aiming above reads n_slots at offset 24 and the tree cases write links at
    // OFF_LINK: keep them honest.
    let p = leaf_page(7, vec![(b"a".to_vec(), b"1".to_vec()), (b"b".to_vec(), b"2".to_vec())], 11);
    assert_eq!(node::header(&p[..]).unwrap().n_slots, 2);
    assert_eq!(u16::from_le_bytes([p[24], p[25]]), 2);
    assert_eq!(page::get_u64(&p, node::OFF_LINK), 11);
}

/// The leaves of `tree`, left to right (following the sibling links from the leftmost).
fn leaves(store: &PageStore, tree: BTree) -> Vec<PageId> {
    let mut buf = vec![0u8; PAGE_SIZE];
    let pages = tree.pages(store).unwrap();
    let mut leaves = Vec::new();
    let mut linked = std::collections::HashSet::new();
    for &pid in &pages {
        store.shared().read_copy(pid, &mut buf).unwrap();
        if let Ok(h) = node::header(&buf[..]) {
            if h.is_leaf() {
                leaves.push(pid);
                linked.insert(h.link);
            }
        }
    }
    let mut pid = *leaves.iter().find(|p| !linked.contains(p)).expect("a leftmost leaf");
    let mut ordered = vec![pid];
    loop {
        store.shared().read_copy(pid, &mut buf).unwrap();
        let link = node::header(&buf[..]).unwrap().link;
        if link == crate::buffer::NO_PAGE {
            return ordered;
        }
        ordered.push(link);
        pid = link;
    }
}

fn set_link(store: &PageStore, pid: PageId, link: PageId) {
    let mut mtr = Mtr::new(store);
    mtr.latch(pid).unwrap();
    mtr.apply(pid, &PageRecord::SetU64 { offset: node::OFF_LINK as u16, value: link }).unwrap();
    mtr.commit();
}

/// A right-sibling link that leads back to an earlier leaf (or to itself) would send a forward
/// scan round the cycle for ever: every leaf on it copies nothing past the last key returned.
#[test]
fn a_cycle_of_leaf_links_ends_the_scan() {
    for self_link in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (store, wal) = open_store(dir.path(), 256);
        let mut mtr = Mtr::new(&store);
        let tree = BTree::create(&mut mtr).unwrap();
        mtr.commit();
        for i in 0..400u32 {
            put(&store, &tree, format!("{i:08}").as_bytes(), vec![1; 300]).unwrap();
        }
        let leaves = leaves(&store, tree);
        assert!(leaves.len() > 3, "several leaves: {leaves:?}");
        let last = *leaves.last().unwrap();
        set_link(&store, last, if self_link { last } else { leaves[0] });
        let s = store.clone();
        let rows =
            within(format!("scan over a leaf cycle (self link: {self_link})"), Duration::from_secs(20), move || {
                let mut c = tree.cursor(Bound::Unbounded, Bound::Unbounded, false);
                let mut n = 0;
                loop {
                    match c.next(&s) {
                        Ok(Some(_)) => n += 1,
                        Ok(None) => return Ok(n),
                        Err(e) => return Err(e),
                    }
                }
            });
        match rows {
            Ok(n) => assert_eq!(n, 400, "every record once"),
            Err(e) => assert!(matches!(e, crate::StorageError::Corruption(_)), "{e:?}"),
        }
        drop(store);
        let _ = wal.shutdown();
    }
}
