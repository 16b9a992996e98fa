//! Model-based storage fuzzing: random operations on the engine and on a simple in-memory model,
//! with simulated power failures in between and in the middle (docs/architecture.md §4.11).
//!
//! Three tables cover the record shapes: `keyed` (INT primary key, a non-unique and a unique
//! secondary index, a BLOB that is small or goes to overflow pages), `hidden` (no primary key:
//! hidden row ids, a non-unique and a unique index) and `pairs` (composite primary key, a
//! composite unique index over nullable columns, an index that repeats a key column). Up to four
//! transactions (REPEATABLE READ or READ COMMITTED) are open at once and interleave inserts
//! (plain, INSERT IGNORE-style `Report`, REPLACE), updates that move rows (primary key changes)
//! and change indexed columns, deletes, multi-row statements that fail half way or are rolled
//! back with `rollback_statement`, point gets, range scans forward and reverse through every
//! index in both read modes, commits and rollbacks. Between them come checkpoints, index DDL,
//! bulk loads and deletes, clean restarts and crashes: `crash_for_test` at a random step, or an
//! armed `CrashPoint` that fires inside the page cleaner, purge or an index build while the
//! driver goes on. Every engine runs with lost unsynced writes, half of them with torn page
//! writes and some with flush modes 0 and 2.
//!
//! The model predicts every result: row locks (the lock wait timeout is 1 ms, so a conflict is
//! a timeout whose statement is rolled back), duplicate-key errors and their index, what each
//! consistent read sees (the snapshot taken at the first read, plus own writes) and what latest
//! reads see (other transactions' uncommitted versions, and committed versions of rows whose
//! pending delete or move may still roll back). After every restart the data must be the state
//! after exactly the acknowledged commits (flush mode 1), or after a prefix of the commits that
//! contains every one known durable (modes 0 and 2); at most one commit whose acknowledgement a
//! crash swallowed may go either way. Every secondary index must then hold exactly the rows'
//! entries, and once purge has settled `space_report` must show no leaked or doubly used page.
//!
//! Ordering is checked independently of the key codec: the model compares column values
//! (NULL first, integers by value, strings bytewise); only primary key bytes, which the engine
//! hands back in `ScanRow::pk_key`, come from `keycodec`.
//!
//! Runs: the default runs a few seeds briefly. `SELKIE_FUZZ_SEED=n` replays seed n
//! (`SELKIE_FUZZ_STEPS` sets its length); `SELKIE_FUZZ_SECONDS=n` runs fresh seeds for n seconds;
//! `SELKIE_STRESS=1` runs for 120 seconds. A failure prints its seed and the last operations.
//! Operations are a function of the seed; only the moment an armed crash point fires in a
//! background thread varies between runs. Debugging: `SELKIE_FUZZ_VERBOSE=1` prints every
//! operation, `SELKIE_FUZZ_AUDIT_ALWAYS=1` audits at every quiet moment (finds the step that
//! leaked a page), `SELKIE_FUZZ_STRICT_SPACE=1` fails on the overflow chains a crash leaks.
//!
//! Adding an operation kind: add a variant to `Op` (with its weight in `TRX_OPS` or
//! `QUIET_OPS`), run it in `Fuzz::step`/`Fuzz::quiet_step`, and keep the model in step: writes
//! change `MTrx::own` (and take the row locks the engine takes, in its order), failures call
//! `fail_statement`, engine errors go through `Fuzz::ok`/`Fuzz::expect_err` so that an error
//! caused by a fired crash point ends the step as a crash. Savepoints
//! (`Transaction::savepoint` / `rollback_to_savepoint`) fit the statement machinery: keep a copy
//! of `own` per savepoint, as `stmt_own` is kept per statement, restore it on rollback; locks
//! stay held except those of rows and unique values the rolled-back part inserted (see
//! `MTrx::stmt_created_rows`).

use crate::engine_util;

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::fmt::Debug;
use std::ops::Bound;
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine_util::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use selkie_storage::testpoint::CrashPoint;
use selkie_storage::*;

/// Transactions open at once.
const MAX_TRX: usize = 4;
/// Steps per seed in the default run and in a replay without SELKIE_FUZZ_STEPS.
const DEFAULT_STEPS: usize = 500;
/// Seeds of the default run.
const DEFAULT_SEEDS: u64 = 4;
/// Steps per seed in timed runs (long enough for many restarts and big trees).
const TIMED_STEPS: usize = 3000;
/// SELKIE_STRESS=1 without SELKIE_FUZZ_SECONDS.
const STRESS_SECONDS: u64 = 120;
/// Operations shown when a case fails.
const TRACE_LEN: usize = 40;
/// How long purge may take to settle before the audit gives up (it normally takes milliseconds).
const SETTLE_TIMEOUT: Duration = Duration::from_secs(30);
/// Space reports an audit takes (20 ms apart) before it calls a leak a leak.
const AUDIT_TRIES: usize = 50;
/// Rows of `keyed` beyond which bulk operations delete instead of load.
const BULK_MAX_ROWS: usize = 1500;
/// Ids of `keyed` that transactions fight over; bulk loads use ids from BULK_IDS.
const HOT_IDS: i64 = 40;
const BULK_IDS: std::ops::Range<i64> = 1000..4000;

const KEYED: usize = 0;
const HIDDEN: usize = 1;
const PAIRS: usize = 2;
const TABLES: [&str; 3] = ["keyed", "hidden", "pairs"];
/// Index that DDL steps build on `keyed` and drop again: (name, columns, unique).
const EXTRA_INDEXES: [(&str, &[usize], bool); 2] = [("x_ku", &[1, 2], false), ("x_uk", &[1], true)];

type Row = Arc<Vec<Datum>>;
/// One table's rows by clustered key bytes.
type Table = BTreeMap<Vec<u8>, Row>;
/// Every table, by table number.
type Db = Vec<Table>;
/// A transaction's changes: (table number, clustered key) → new row (None: deleted).
type Changes = BTreeMap<(usize, Vec<u8>), Option<Row>>;
/// A row lock as the engine names it: (index id, clustered key or unique column prefix).
type LockK = (IndexId, Vec<u8>);
type SResult<T> = Result<T, StorageError>;

/// The step ended in a simulated power failure (a crash point fired): recover and go on.
#[derive(Debug)]
struct Crash;
type Step<T = ()> = Result<T, Crash>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    // With transactions open (one of them is picked).
    Statement,
    Get,
    Scan,
    Commit,
    Rollback,
    // At any time.
    Checkpoint,
    CrashNow,
    ArmCrashPoint,
    Restart,
    // Only while no transaction is open.
    IndexDdl,
    Bulk,
    Audit,
    Begin,
}

const TRX_OPS: &[(Op, u32)] = &[
    (Op::Statement, 40),
    (Op::Get, 10),
    (Op::Scan, 22),
    (Op::Commit, 12),
    (Op::Rollback, 5),
    (Op::Checkpoint, 1),
    (Op::CrashNow, 1),
    (Op::ArmCrashPoint, 1),
    (Op::Restart, 1),
];

const QUIET_OPS: &[(Op, u32)] = &[
    (Op::Begin, 60),
    (Op::IndexDdl, 5),
    (Op::Bulk, 5),
    (Op::Audit, 4),
    (Op::Checkpoint, 2),
    (Op::CrashNow, 2),
    (Op::Restart, 2),
];

fn pick(rng: &mut StdRng, ops: &[(Op, u32)]) -> Op {
    let total: u32 = ops.iter().map(|o| o.1).sum();
    let mut n = rng.gen_range(0..total);
    for &(op, w) in ops {
        if n < w {
            return op;
        }
        n -= w;
    }
    unreachable!("weights cover the range")
}

// ------------------------------------------------------------------------------------------
// Values, ordering and ranges (independent of the key codec).

fn cmp_datum(a: &Datum, b: &Datum) -> Ordering {
    match (a, b) {
        (Datum::Null, Datum::Null) => Ordering::Equal,
        (Datum::Null, _) => Ordering::Less,
        (_, Datum::Null) => Ordering::Greater,
        (Datum::Int(x), Datum::Int(y)) => x.cmp(y),
        (Datum::Bytes(x), Datum::Bytes(y)) => x.cmp(y),
        _ => panic!("the model orders only integers and strings: {a:?} vs {b:?}"),
    }
}

/// Compares `vals` cut to the length of `bound` with `bound` (a range over a column prefix).
fn cmp_prefix(vals: &[Datum], bound: &[Datum]) -> Ordering {
    for (v, b) in vals.iter().zip(bound) {
        match cmp_datum(v, b) {
            Ordering::Equal => continue,
            o => return o,
        }
    }
    Ordering::Equal
}

fn tuple_eq(a: &[Datum], b: &[Datum]) -> bool {
    a.len() == b.len() && cmp_prefix(a, b) == Ordering::Equal
}

fn in_range(vals: &[Datum], range: &KeyRange) -> bool {
    let above = match &range.lower {
        Bound::Unbounded => true,
        Bound::Included(b) => cmp_prefix(vals, b) != Ordering::Less,
        Bound::Excluded(b) => cmp_prefix(vals, b) == Ordering::Greater,
    };
    let below = match &range.upper {
        Bound::Unbounded => true,
        Bound::Included(b) => cmp_prefix(vals, b) != Ordering::Greater,
        Bound::Excluded(b) => cmp_prefix(vals, b) == Ordering::Less,
    };
    above && below
}

fn ix_vals(ix: &IndexDef, row: &[Datum]) -> Vec<Datum> {
    ix.columns.iter().map(|c| row[c.column].clone()).collect()
}

fn has_null(ix: &IndexDef, row: &[Datum]) -> bool {
    ix.columns.iter().any(|c| row[c.column].is_null())
}

fn s(prefix: &str, n: u32) -> Datum {
    Datum::Bytes(format!("{prefix}{n}").into_bytes())
}

/// A BLOB: NULL, a short value, or one that goes to an overflow chain of one to six pages
/// (records beyond a quarter page are stored out of line).
fn body(rng: &mut StdRng) -> Datum {
    match rng.gen_range(0..20) {
        0..=2 => Datum::Null,
        3..=16 => Datum::Bytes((0..rng.gen_range(0..60)).map(|_| rng.gen()).collect()),
        _ => {
            let (len, seed) = (rng.gen_range(4_500..90_000), rng.gen::<u8>());
            Datum::Bytes((0..len).map(|i| seed.wrapping_add((i % 251) as u8)).collect())
        }
    }
}

/// A random value for column `c` of table `t`.
fn gen_col(t: usize, c: usize, rng: &mut StdRng) -> Datum {
    let maybe = |rng: &mut StdRng, p: f64, d: Datum| if rng.gen_bool(p) { Datum::Null } else { d };
    match (t, c) {
        (KEYED, 0) => Datum::Int(if rng.gen_bool(0.85) { rng.gen_range(0..HOT_IDS) } else { rng.gen_range(0..200) }),
        (KEYED, 1) => Datum::Int(rng.gen_range(0..6)),
        (KEYED, 2) => {
            let v = s("u", rng.gen_range(0..12));
            maybe(rng, 0.25, v)
        }
        (KEYED, 3) | (HIDDEN, 2) => body(rng),
        (HIDDEN, 0) => Datum::Int(rng.gen_range(0..8)),
        (HIDDEN, 1) => {
            let v = s("b", rng.gen_range(0..10));
            maybe(rng, 0.3, v)
        }
        (PAIRS, 0) => Datum::Int(rng.gen_range(0..4)),
        (PAIRS, 1) => Datum::Int(rng.gen_range(0..10)),
        (PAIRS, 2) => {
            let v = Datum::Int(rng.gen_range(0..5));
            maybe(rng, 0.2, v)
        }
        (PAIRS, 3) => {
            let v = s("w", rng.gen_range(0..4));
            maybe(rng, 0.3, v)
        }
        _ => unreachable!("table {t} has no column {c}"),
    }
}

fn gen_row(t: usize, def: &TableDef, rng: &mut StdRng) -> Row {
    Arc::new((0..def.columns.len()).map(|c| gen_col(t, c, rng)).collect())
}

/// `old` with a random non-empty set of columns regenerated (the primary key included, so
/// rows move).
fn mutate(t: usize, old: &[Datum], rng: &mut StdRng) -> Row {
    let mut new = old.to_vec();
    let forced = rng.gen_range(0..new.len());
    for (c, v) in new.iter_mut().enumerate() {
        if c == forced || rng.gen_bool(0.3) {
            *v = match v {
                // A few bytes of a big BLOB change: the new version shares the unchanged tail of
                // the old one's overflow chain (btree/overflow.rs).
                Datum::Bytes(b) if b.len() > 4_000 && rng.gen_bool(0.5) => {
                    let mut b = b.clone();
                    let at = rng.gen_range(0..b.len());
                    b[at] = b[at].wrapping_add(rng.gen_range(1..=255));
                    Datum::Bytes(b)
                }
                _ => gen_col(t, c, rng),
            };
        }
    }
    Arc::new(new)
}

/// A bound value for column `c` of table `t`: mostly from the column's domain, sometimes NULL
/// or outside what the column can hold.
fn gen_bound_value(t: usize, def: &TableDef, c: usize, rng: &mut StdRng) -> Datum {
    let int = matches!(def.columns[c].ty, ColumnType::Int { .. });
    match rng.gen_range(0..20) {
        0 => Datum::Null,
        1 if int => Datum::Int(if rng.gen_bool(0.5) { 1 << 40 } else { -(1 << 40) }),
        _ => match gen_col(t, c, rng) {
            Datum::Null => gen_col(t, c, rng),
            d => d,
        },
    }
}

fn gen_range(t: usize, def: &TableDef, columns: &[usize], rng: &mut StdRng) -> KeyRange {
    let bound = |rng: &mut StdRng| {
        if rng.gen_bool(0.3) {
            return Bound::Unbounded;
        }
        let n = rng.gen_range(1..=columns.len());
        let vals: Vec<Datum> = columns[..n].iter().map(|&c| gen_bound_value(t, def, c, rng)).collect();
        if rng.gen_bool(0.5) {
            Bound::Included(vals)
        } else {
            Bound::Excluded(vals)
        }
    };
    KeyRange { lower: bound(rng), upper: bound(rng) }
}

fn overlay(base: &Table, own: &Changes, t: usize) -> Table {
    let mut out = base.clone();
    for ((_, pk), r) in own.range((t, Vec::new())..(t + 1, Vec::new())) {
        match r {
            Some(r) => out.insert(pk.clone(), r.clone()),
            None => out.remove(pk),
        };
    }
    out
}

fn apply(db: &mut Db, changes: &Changes) {
    for ((t, pk), r) in changes {
        match r {
            Some(r) => db[*t].insert(pk.clone(), r.clone()),
            None => db[*t].remove(pk),
        };
    }
}

// ------------------------------------------------------------------------------------------
// Schema.

fn blob() -> ColumnType {
    ColumnType::Blob { size: LobSize::Medium }
}

fn index(name: &str, columns: &[usize], unique: bool) -> NewIndex {
    NewIndex { name: name.into(), columns: columns.iter().map(|&c| ic(c)).collect(), unique }
}

fn schema() -> Vec<NewTable> {
    let table = |name: &str, columns, primary_key: &[usize], indexes| NewTable {
        db: "f".into(),
        name: name.into(),
        columns,
        primary_key: primary_key.iter().map(|&c| ic(c)).collect(),
        indexes,
        options: TableOptions::default(),
        auto_increment_start: None,
    };
    vec![
        table(
            TABLES[KEYED],
            vec![
                col("id", int(), false),
                col("k", int(), false),
                col("u", varchar(16), true),
                col("body", blob(), true),
            ],
            &[0],
            vec![index("k", &[1], false), index("u", &[2], true)],
        ),
        table(
            TABLES[HIDDEN],
            vec![col("a", int(), false), col("b", varchar(16), true), col("body", blob(), true)],
            &[],
            vec![index("a", &[0], false), index("b", &[1], true)],
        ),
        table(
            TABLES[PAIRS],
            vec![col("g", int(), false), col("s", int(), false), col("v", int(), true), col("w", varchar(8), true)],
            &[0, 1],
            vec![index("vw", &[2, 3], true), index("gv", &[0, 2], false)],
        ),
    ]
}

// ------------------------------------------------------------------------------------------
// The run.

struct MTrx {
    trx: Transaction,
    session: usize,
    iso: IsolationLevel,
    /// The committed state when the first consistent read took the view (READ COMMITTED drops
    /// it at each statement).
    snapshot: Option<Db>,
    own: Changes,
    /// `own` at the start of the current statement (what `rollback_statement` returns to).
    stmt_own: Changes,
    locks: HashSet<LockK>,
    /// Locks held when the current statement began.
    stmt_locks: HashSet<LockK>,
    /// Lock keys of rows (clustered keys) and unique values whose record the statement created:
    /// a statement rollback removes the record and, with it, the insert's lock (implicit, in
    /// InnoDB's terms) unless the lock was held before the statement — or, for a row, unless
    /// the statement also changed or deleted that row (those locks stay, as InnoDB keeps them).
    stmt_created_rows: Vec<LockK>,
    stmt_created_values: Vec<LockK>,
    stmt_changed_rows: HashSet<LockK>,
    label: u64,
}

/// What the durable state may be after a crash: `base` plus a prefix of `commits` that holds at
/// least the first `required` (the ones known durable).
#[derive(Default)]
struct Durability {
    base: Db,
    commits: Vec<Changes>,
    required: usize,
}

/// What the catalog must say about the extra index of `keyed` after a restart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExtraIndex {
    Known(Option<usize>),
    /// A DDL was cut short by a crash: either outcome.
    InDoubt(Option<usize>, Option<usize>),
}

#[derive(Default, Debug)]
struct Counts {
    steps: u64,
    commits: u64,
    statements_failed: u64,
    crashes: u64,
    async_crashes: u64,
    in_doubt_commits: u64,
    clean_restarts: u64,
    ddl: u64,
    audits: u64,
    pages_repaired: u64,
    pages_leaked_by_crashes: u64,
}

/// Prints the seed and the last operations if the case fails.
struct Trace {
    seed: u64,
    ops: VecDeque<String>,
}

impl Drop for Trace {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("--- storage fuzz: seed {} FAILED; replay with SELKIE_FUZZ_SEED={} ---", self.seed, self.seed);
            eprintln!("last operations, oldest first:");
            for op in &self.ops {
                eprintln!("  {op}");
            }
        }
    }
}

/// Fields drop in order: the transactions and sessions before the engine, the engine before its
/// directory.
struct Fuzz {
    trace: Trace,
    trxs: Vec<MTrx>,
    sessions: Vec<SessionSlot>,
    engine: Option<Arc<Engine>>,
    dir: tempfile::TempDir,
    config: EngineConfig,
    defs: Vec<Arc<TableDef>>,
    committed: Db,
    durability: Durability,
    extra: ExtraIndex,
    crash_armed: bool,
    /// Pages leaked by crashes so far (whole overflow chains; see `account_for_crash_leaks`).
    leak_allowance: u64,
    verbose: bool,
    audit_always: bool,
    next_label: u64,
    counts: Counts,
}

fn random_config(dir: &std::path::Path, rng: &mut StdRng) -> EngineConfig {
    let mut c = config(dir);
    c.buffer_pool_bytes = if rng.gen_bool(0.5) { 1 << 20 } else { 4 << 20 };
    c.flush_mode = match rng.gen_range(0..10) {
        0 => FlushMode::Lazy,
        1 => FlushMode::WriteOnly,
        _ => FlushMode::Durable,
    };
    c.lock_wait_timeout = Duration::from_secs(1);
    c.fault = FaultInjection { lose_unsynced_writes: true, torn_page_writes: rng.gen_bool(0.5) };
    c
}

fn trx_opts(iso: IsolationLevel) -> TrxOptions {
    opts_with(iso, Duration::from_millis(1))
}

impl Fuzz {
    async fn new(seed: u64, rng: &mut StdRng) -> Fuzz {
        let dir = tempfile::tempdir().unwrap();
        let config = random_config(dir.path(), rng);
        let engine = Engine::open(config.clone()).unwrap();
        engine.create_database(db("f"), false).await.unwrap();
        for def in schema() {
            engine.create_table(def, false).await.unwrap();
        }
        let mut f = Fuzz {
            trace: Trace { seed, ops: VecDeque::new() },
            dir,
            engine: Some(engine),
            config,
            sessions: Vec::new(),
            defs: Vec::new(),
            committed: vec![Table::new(); TABLES.len()],
            durability: Durability { base: vec![Table::new(); TABLES.len()], ..Durability::default() },
            trxs: Vec::new(),
            extra: ExtraIndex::Known(None),
            crash_armed: false,
            leak_allowance: 0,
            verbose: std::env::var("SELKIE_FUZZ_VERBOSE").is_ok(),
            audit_always: std::env::var("SELKIE_FUZZ_AUDIT_ALWAYS").is_ok(),
            next_label: 0,
            counts: Counts::default(),
        };
        f.attach();
        f
    }

    fn e(&self) -> &Arc<Engine> {
        self.engine.as_ref().expect("engine open")
    }

    /// Sessions and table definitions of the engine just opened (or changed by DDL).
    fn attach(&mut self) {
        let e = self.e().clone();
        self.defs = TABLES.iter().map(|n| table(&e, "f", n)).collect();
        if self.sessions.is_empty() {
            self.sessions = (0..=MAX_TRX).map(|_| e.register_session().unwrap()).collect();
        }
    }

    fn note(&mut self, op: String) {
        if self.verbose {
            eprintln!("{op}");
        }
        if self.trace.ops.len() == TRACE_LEN {
            self.trace.ops.pop_front();
        }
        self.trace.ops.push_back(op);
    }

    fn crashed(&self) -> bool {
        self.e().crash_point_fired_for_test()
    }

    /// An engine result the model expects to succeed.
    fn ok<T: Debug>(&self, r: SResult<T>, ctx: &str) -> Step<T> {
        match r {
            Ok(v) => Ok(v),
            Err(_) if self.crashed() => Err(Crash),
            Err(e) => panic!("{ctx}: unexpected error {e:?}"),
        }
    }

    /// An engine result the model expects to be the error `want` describes.
    fn expect_err<T: Debug>(&self, r: SResult<T>, want: impl Fn(&StorageError) -> bool, ctx: &str) -> Step {
        match r {
            Err(e) if want(&e) => Ok(()),
            Err(_) if self.crashed() => Err(Crash),
            other => panic!("{ctx}: expected another outcome, got {other:?}"),
        }
    }

    fn expect_timeout<T: Debug>(&self, r: SResult<T>, ctx: &str) -> Step {
        self.expect_err(r, |e| matches!(e, StorageError::LockWaitTimeout), &format!("{ctx} (lock wait timeout)"))
    }

    fn expect_dup<T: Debug>(&self, r: SResult<T>, index: &str, ctx: &str) -> Step {
        let want = |e: &StorageError| matches!(e, StorageError::DuplicateKey { index: ix, .. } if ix == index);
        self.expect_err(r, want, &format!("{ctx} (duplicate on {index})"))
    }

    // ---- the model's views ----

    fn latest_for(&self, i: usize, t: usize) -> Table {
        overlay(&self.committed[t], &self.trxs[i].own, t)
    }

    /// Latest reads of trx i through the clustered index: other transactions' changes too,
    /// except that a committed row another open transaction deleted (or moved away) keeps its
    /// committed contents until that change commits.
    fn latest_clustered_for(&self, i: usize, t: usize) -> Table {
        let mut out = self.committed[t].clone();
        for (j, m) in self.trxs.iter().enumerate() {
            for ((_, pk), r) in m.own.range((t, Vec::new())..(t + 1, Vec::new())) {
                match (r, self.committed[t].get(pk)) {
                    (Some(r), _) => out.insert(pk.clone(), r.clone()),
                    (None, Some(c)) if j != i => out.insert(pk.clone(), c.clone()),
                    (None, _) => out.remove(pk),
                };
            }
        }
        out
    }

    /// Latest reads of trx i through secondary index `ix`, in index order: each row once, at
    /// the first of its entries in scan order, among its latest version (as latest clustered
    /// reads see it) and, where another open transaction deleted the row or changed its values
    /// in this index, its committed version (that change may still roll back).
    fn latest_secondary_for(
        &self,
        i: usize,
        t: usize,
        ix: &IndexDef,
        range: &KeyRange,
        reverse: bool,
    ) -> Vec<(Vec<u8>, Row)> {
        let mut entries: Vec<(Vec<Datum>, Vec<u8>, Row)> = self
            .latest_clustered_for(i, t)
            .into_iter()
            .map(|(pk, r)| (ix_vals(ix, &r), pk, r))
            .filter(|(v, _, _)| in_range(v, range))
            .collect();
        for (j, m) in self.trxs.iter().enumerate() {
            if j == i {
                continue;
            }
            for ((_, pk), r) in m.own.range((t, Vec::new())..(t + 1, Vec::new())) {
                let Some(c) = self.committed[t].get(pk) else { continue };
                let moved = r.as_ref().is_none_or(|r| !tuple_eq(&ix_vals(ix, r), &ix_vals(ix, c)));
                let v = ix_vals(ix, c);
                if moved && in_range(&v, range) {
                    entries.push((v, pk.clone(), c.clone()));
                }
            }
        }
        sort_entries(&mut entries, reverse);
        let mut seen = HashSet::new();
        entries.into_iter().filter(|(_, pk, _)| seen.insert(pk.clone())).map(|(_, pk, r)| (pk, r)).collect()
    }

    /// What consistent reads of trx i see in table t (the first one takes the snapshot).
    fn view_for(&mut self, i: usize, t: usize) -> Table {
        if self.trxs[i].snapshot.is_none() {
            self.trxs[i].snapshot = Some(self.committed.clone());
        }
        let m = &self.trxs[i];
        overlay(&m.snapshot.as_ref().expect("taken above")[t], &m.own, t)
    }

    fn pk_vals(&self, t: usize, row: &[Datum]) -> Vec<Datum> {
        ix_vals(&self.defs[t].primary, row)
    }

    /// Rows of `table` in `range` of index `index_no` (0 = clustered), in scan order.
    fn in_index_order(
        &self,
        t: usize,
        table: &Table,
        index_no: usize,
        range: &KeyRange,
        reverse: bool,
    ) -> Vec<(Vec<u8>, Row)> {
        let def = &self.defs[t];
        if index_no == 0 {
            let hidden = def.has_hidden_pk();
            let mut out: Vec<(Vec<u8>, Row)> = table
                .iter()
                .filter(|(_, r)| hidden || in_range(&self.pk_vals(t, r), range))
                .map(|(pk, r)| (pk.clone(), r.clone()))
                .collect();
            if reverse {
                out.reverse();
            }
            return out;
        }
        let ix = &def.secondary[index_no - 1];
        let mut entries: Vec<(Vec<Datum>, Vec<u8>, Row)> = table
            .iter()
            .map(|(pk, r)| (ix_vals(ix, r), pk.clone(), r.clone()))
            .filter(|(v, _, _)| in_range(v, range))
            .collect();
        sort_entries(&mut entries, reverse);
        entries.into_iter().map(|(_, pk, r)| (pk, r)).collect()
    }

    // ---- locks ----

    fn pk_lock(&self, t: usize, pk: &[u8]) -> LockK {
        (self.defs[t].primary.id, pk.to_vec())
    }

    /// Locks of the UNIQUE secondary indexes `which` selects, for a row (none where a column
    /// is NULL: such entries are not constrained).
    fn unique_locks(&self, t: usize, row: &[Datum], which: impl Fn(usize) -> bool) -> Vec<LockK> {
        let def = &self.defs[t];
        let mut out = Vec::new();
        for (n, ix) in def.secondary.iter().enumerate() {
            if ix.unique && which(n) && !has_null(ix, row) {
                let mut prefix = Vec::new();
                keycodec::encode_index_columns(&mut prefix, def, ix, row).unwrap();
                out.push((ix.id, prefix));
            }
        }
        out
    }

    /// Takes locks in order, as the engine does; the first one another transaction holds is a
    /// timeout (nobody else runs while this one waits).
    fn take_locks(&mut self, i: usize, keys: &[LockK]) -> bool {
        for k in keys {
            if self.trxs.iter().enumerate().any(|(j, m)| j != i && m.locks.contains(k)) {
                return false;
            }
            self.trxs[i].locks.insert(k.clone());
        }
        true
    }

    // ---- statements ----

    fn begin_statement(&mut self, i: usize) {
        let m = &mut self.trxs[i];
        m.trx.begin_statement();
        m.stmt_own = m.own.clone();
        m.stmt_locks = m.locks.clone();
        m.stmt_created_rows.clear();
        m.stmt_created_values.clear();
        m.stmt_changed_rows.clear();
        if m.iso == IsolationLevel::ReadCommitted {
            m.snapshot = None;
        }
    }

    /// The statement failed: the engine undoes it (its locks stay), and so does the model.
    fn fail_statement(&mut self, i: usize) -> Step {
        let r = self.trxs[i].trx.rollback_statement();
        self.ok(r, "rollback_statement")?;
        let m = &mut self.trxs[i];
        m.own = m.stmt_own.clone();
        for k in std::mem::take(&mut m.stmt_created_rows) {
            if !m.stmt_locks.contains(&k) && !m.stmt_changed_rows.contains(&k) {
                m.locks.remove(&k);
            }
        }
        for k in std::mem::take(&mut m.stmt_created_values) {
            if !m.stmt_locks.contains(&k) {
                m.locks.remove(&k);
            }
        }
        self.counts.statements_failed += 1;
        Ok(())
    }

    fn begin(&mut self, rng: &mut StdRng) {
        let iso = if rng.gen_bool(0.5) { IsolationLevel::RepeatableRead } else { IsolationLevel::ReadCommitted };
        let session = (0..MAX_TRX).find(|n| self.trxs.iter().all(|m| m.session != *n)).expect("a free session");
        let trx = self.e().begin(&self.sessions[session], trx_opts(iso));
        self.next_label += 1;
        let label = self.next_label;
        self.note(format!("T{label}: begin {iso:?}"));
        self.trxs.push(MTrx {
            trx,
            session,
            iso,
            snapshot: None,
            own: Changes::new(),
            stmt_own: Changes::new(),
            locks: HashSet::new(),
            stmt_locks: HashSet::new(),
            stmt_created_rows: Vec::new(),
            stmt_created_values: Vec::new(),
            stmt_changed_rows: HashSet::new(),
            label,
        });
    }

    /// Inserts `row`; Ok(false) if the statement failed (and was rolled back).
    async fn insert(&mut self, i: usize, t: usize, row: Row, on_dup: OnDuplicate) -> Step<bool> {
        let def = self.defs[t].clone();
        let res = self.trxs[i].trx.insert(&def, row.to_vec(), on_dup).await;
        let pk = (!def.has_hidden_pk()).then(|| keycodec::primary_key(&def, &row).unwrap());
        let mut keys: Vec<LockK> = pk.iter().map(|pk| self.pk_lock(t, pk)).collect();
        keys.extend(self.unique_locks(t, &row, |_| true));
        if !self.take_locks(i, &keys) {
            self.expect_timeout(res, "insert")?;
            self.fail_statement(i)?;
            return Ok(false);
        }
        let latest = self.latest_for(i, t);
        // Conflicts in the engine's order: the primary key, then each unique index.
        let mut conflicts: Vec<(usize, Vec<u8>)> = Vec::new();
        if let Some(pk) = pk.as_ref().filter(|pk| latest.contains_key(*pk)) {
            conflicts.push((0, pk.clone()));
        }
        for (n, ix) in def.secondary.iter().enumerate() {
            if ix.unique && !has_null(ix, &row) {
                let v = ix_vals(ix, &row);
                conflicts.extend(
                    latest.iter().filter(|(_, r)| tuple_eq(&ix_vals(ix, r), &v)).map(|(opk, _)| (n + 1, opk.clone())),
                );
            }
        }
        let check_pk = |got: &[u8]| match &pk {
            Some(pk) => assert_eq!(got, pk.as_slice(), "clustered key of the inserted row"),
            None => assert!(keycodec::hidden_row_id(got).is_some() && !latest.contains_key(got), "a new row id"),
        };
        // A hidden row id is known once the insert returns it; the engine locked it first.
        let lock_new_row = |m: &mut MTrx, pk_key: &[u8]| {
            if pk.is_none() {
                m.locks.insert((def.primary.id, pk_key.to_vec()));
            }
        };
        if conflicts.is_empty() {
            let InsertOutcome::Inserted { pk_key } = self.ok(res, "insert")? else {
                panic!("insert: expected Inserted")
            };
            check_pk(&pk_key);
            lock_new_row(&mut self.trxs[i], &pk_key);
            let values = self.unique_locks(t, &row, |_| true);
            let m = &mut self.trxs[i];
            m.stmt_created_rows.push((def.primary.id, pk_key.clone()));
            m.stmt_created_values.extend(values);
            m.own.insert((t, pk_key), Some(row));
            return Ok(true);
        }
        match on_dup {
            OnDuplicate::Error => {
                let index = conflicts[0].0;
                let name = if index == 0 { def.primary.name.clone() } else { def.secondary[index - 1].name.clone() };
                self.expect_dup(res, &name, "insert")?;
                self.fail_statement(i)?;
                Ok(false)
            }
            OnDuplicate::Report => {
                let (index, opk) = conflicts[0].clone();
                if !self.take_locks(i, &[self.pk_lock(t, &opk)]) {
                    self.expect_timeout(res, "insert (report)")?;
                    self.fail_statement(i)?;
                    return Ok(false);
                }
                let existing = latest[&opk].to_vec();
                assert_eq!(self.ok(res, "insert (report)")?, InsertOutcome::Duplicate { index, pk_key: opk, existing });
                Ok(true)
            }
            OnDuplicate::Replace => {
                let mut seen: Vec<Vec<u8>> = Vec::new();
                for (_, opk) in conflicts {
                    if seen.contains(&opk) {
                        continue;
                    }
                    let mut keys = vec![self.pk_lock(t, &opk)];
                    keys.extend(self.unique_locks(t, &latest[&opk], |_| true));
                    if !self.take_locks(i, &keys) {
                        self.expect_timeout(res, "replace")?;
                        self.fail_statement(i)?;
                        return Ok(false);
                    }
                    self.trxs[i].stmt_changed_rows.insert((def.primary.id, opk.clone()));
                    self.trxs[i].own.insert((t, opk.clone()), None);
                    seen.push(opk);
                }
                let InsertOutcome::Replaced { pk_key, deleted } = self.ok(res, "replace")? else {
                    panic!("replace: expected Replaced")
                };
                assert_eq!(deleted, seen.len(), "rows replaced");
                check_pk(&pk_key);
                lock_new_row(&mut self.trxs[i], &pk_key);
                let values = self.unique_locks(t, &row, |_| true);
                let m = &mut self.trxs[i];
                m.stmt_created_rows.push((def.primary.id, pk_key.clone()));
                m.stmt_created_values.extend(values);
                m.own.insert((t, pk_key), Some(row));
                Ok(true)
            }
        }
    }

    /// Locks the row with `pk` and returns its latest contents, as UPDATE and DELETE do first.
    /// Err: the lock timed out (the statement was rolled back).
    async fn lock_for_write(
        &mut self,
        i: usize,
        t: usize,
        pk: &[u8],
        ctx: &str,
    ) -> Step<Result<Option<(ScanRow, Row)>, ()>> {
        let def = self.defs[t].clone();
        let locked = self.trxs[i].trx.lock_row(&def, pk, LockMode::Exclusive).await;
        if !self.take_locks(i, &[self.pk_lock(t, pk)]) {
            self.expect_timeout(locked, ctx)?;
            self.fail_statement(i)?;
            return Ok(Err(()));
        }
        let Some(old) = self.latest_for(i, t).get(pk).cloned() else {
            assert_eq!(self.ok(locked, ctx)?, None, "{ctx}: the row does not exist");
            return Ok(Ok(None));
        };
        let got = self.ok(locked, ctx)?.unwrap_or_else(|| panic!("{ctx}: the row exists"));
        assert_eq!(got.row, *old, "{ctx}: locked row");
        Ok(Ok(Some((got, old))))
    }

    async fn update(&mut self, i: usize, t: usize, pk: &[u8], rng: &mut StdRng) -> Step<bool> {
        let (got, old) = match self.lock_for_write(i, t, pk, "update").await? {
            Err(()) => return Ok(false),
            Ok(None) => return Ok(true),
            Ok(Some(found)) => found,
        };
        let def = self.defs[t].clone();
        let new = mutate(t, &old, rng);
        let new_pk = if def.has_hidden_pk() { pk.to_vec() } else { keycodec::primary_key(&def, &new).unwrap() };
        let res = self.trxs[i].trx.update(&def, pk, &got.row, new.to_vec()).await;
        let pk_changed = new_pk != pk;
        let changed: Vec<bool> =
            def.secondary.iter().map(|ix| pk_changed || !tuple_eq(&ix_vals(ix, &old), &ix_vals(ix, &new))).collect();
        let mut keys = Vec::new();
        if pk_changed {
            keys.push(self.pk_lock(t, &new_pk));
        }
        keys.extend(self.unique_locks(t, &old, |n| changed[n]));
        keys.extend(self.unique_locks(t, &new, |n| changed[n]));
        if !self.take_locks(i, &keys) {
            self.expect_timeout(res, "update")?;
            self.fail_statement(i)?;
            return Ok(false);
        }
        let latest = self.latest_for(i, t);
        let mut dup = (pk_changed && latest.contains_key(&new_pk)).then(|| def.primary.name.clone());
        for (n, ix) in def.secondary.iter().enumerate() {
            if dup.is_none() && ix.unique && changed[n] && !has_null(ix, &new) {
                let v = ix_vals(ix, &new);
                if latest.iter().any(|(opk, r)| opk.as_slice() != pk && tuple_eq(&ix_vals(ix, r), &v)) {
                    dup = Some(ix.name.clone());
                }
            }
        }
        if let Some(name) = dup {
            self.expect_dup(res, &name, "update")?;
            self.fail_statement(i)?;
            return Ok(false);
        }
        assert_eq!(self.ok(res, "update")?, new_pk, "update: the row's new clustered key");
        let label = self.trxs[i].label;
        self.note(format!("T{label}:   updated {} {} -> {new_pk:02x?} {}", TABLES[t], show(&old), show(&new)));
        let values = self.unique_locks(t, &new, |n| changed[n]);
        let m = &mut self.trxs[i];
        m.stmt_changed_rows.insert((def.primary.id, pk.to_vec()));
        if pk_changed {
            m.stmt_created_rows.push((def.primary.id, new_pk.clone()));
        }
        m.stmt_created_values.extend(values);
        let own = &mut m.own;
        own.insert((t, pk.to_vec()), None);
        own.insert((t, new_pk), Some(new));
        Ok(true)
    }

    async fn delete(&mut self, i: usize, t: usize, pk: &[u8]) -> Step<bool> {
        let (got, old) = match self.lock_for_write(i, t, pk, "delete").await? {
            Err(()) => return Ok(false),
            Ok(None) => return Ok(true),
            Ok(Some(found)) => found,
        };
        let def = self.defs[t].clone();
        let res = self.trxs[i].trx.delete(&def, pk, &got.row).await;
        let keys = self.unique_locks(t, &old, |_| true);
        if !self.take_locks(i, &keys) {
            self.expect_timeout(res, "delete")?;
            self.fail_statement(i)?;
            return Ok(false);
        }
        self.ok(res, "delete")?;
        let label = self.trxs[i].label;
        self.note(format!("T{label}:   deleted {} {}", TABLES[t], show(&old)));
        self.trxs[i].stmt_changed_rows.insert((def.primary.id, pk.to_vec()));
        self.trxs[i].own.insert((t, pk.to_vec()), None);
        Ok(true)
    }

    /// A clustered key to update or delete: usually of a row that exists for someone.
    fn target(&self, t: usize, rng: &mut StdRng) -> Vec<u8> {
        let def = &self.defs[t];
        if !def.has_hidden_pk() && rng.gen_bool(0.7) {
            let row: Vec<Datum> = (0..def.columns.len()).map(|c| gen_col(t, c, rng)).collect();
            return keycodec::primary_key(def, &row).unwrap();
        }
        let mut known: Vec<&Vec<u8>> = self.committed[t].keys().collect();
        for m in &self.trxs {
            known.extend(m.own.range((t, Vec::new())..(t + 1, Vec::new())).map(|((_, pk), _)| pk));
        }
        if known.is_empty() || rng.gen_bool(0.05) {
            return if def.has_hidden_pk() {
                keycodec::hidden_row_id_key(rng.gen_range(1 << 40..1 << 41))
            } else {
                keycodec::primary_key_from_values(def, &[Datum::Int(-1), Datum::Int(-1)][..def.primary.columns.len()])
                    .unwrap()
            };
        }
        known[rng.gen_range(0..known.len())].clone()
    }

    /// One statement of one to five row changes. It fails as a whole where one change fails;
    /// sometimes it is rolled back at the end as if a later part of it failed.
    async fn statement(&mut self, i: usize, rng: &mut StdRng) -> Step {
        self.begin_statement(i);
        let n = if rng.gen_bool(0.8) { 1 } else { rng.gen_range(2..=5) };
        let label = self.trxs[i].label;
        for _ in 0..n {
            let t = rng.gen_range(0..TABLES.len());
            let done = match rng.gen_range(0..10) {
                0..=4 => {
                    let row = gen_row(t, &self.defs[t], rng);
                    let on_dup = match rng.gen_range(0..10) {
                        0 => OnDuplicate::Report,
                        1 => OnDuplicate::Replace,
                        _ => OnDuplicate::Error,
                    };
                    self.note(format!("T{label}: insert {on_dup:?} {} {}", TABLES[t], show(&row)));
                    self.insert(i, t, row, on_dup).await?
                }
                5..=7 => {
                    let pk = self.target(t, rng);
                    self.note(format!("T{label}: update {} {pk:02x?}", TABLES[t]));
                    self.update(i, t, &pk, rng).await?
                }
                _ => {
                    let pk = self.target(t, rng);
                    self.note(format!("T{label}: delete {} {pk:02x?}", TABLES[t]));
                    self.delete(i, t, &pk).await?
                }
            };
            if !done {
                self.note(format!("T{label}: statement failed"));
                return Ok(());
            }
        }
        if rng.gen_bool(0.1) {
            self.note(format!("T{label}: rollback_statement"));
            self.fail_statement(i)?;
        }
        Ok(())
    }

    fn get(&mut self, i: usize, rng: &mut StdRng) -> Step {
        let t = if rng.gen_bool(0.6) { KEYED } else { PAIRS };
        let def = self.defs[t].clone();
        let vals: Vec<Datum> = def.primary.columns.iter().map(|c| gen_bound_value(t, &def, c.column, rng)).collect();
        self.begin_statement(i);
        let label = self.trxs[i].label;
        self.note(format!("T{label}: get {} {vals:?}", TABLES[t]));
        let got = self.trxs[i].trx.get(&def, &vals);
        let got = self.ok(got, "get")?.map(|r| (r.pk_key, r.row));
        let view = self.view_for(i, t);
        let want = keycodec::primary_key_lookup(&def, &vals)
            .unwrap()
            .and_then(|pk| view.get(&pk).map(|r| (pk.clone(), r.to_vec())));
        assert_eq!(got, want, "T{label}: get {} {vals:?}", TABLES[t]);
        Ok(())
    }

    fn scan(&mut self, i: usize, rng: &mut StdRng) -> Step {
        let t = rng.gen_range(0..TABLES.len());
        let def = self.defs[t].clone();
        let index_no = rng.gen_range(0..=def.secondary.len());
        let columns: Vec<usize> = if index_no == 0 {
            def.primary.columns.iter().map(|c| c.column).collect()
        } else {
            def.secondary[index_no - 1].columns.iter().map(|c| c.column).collect()
        };
        let range = if columns.is_empty() { KeyRange::all() } else { gen_range(t, &def, &columns, rng) };
        let reverse = rng.gen_bool(0.5);
        let mode = if rng.gen_bool(0.7) { ReadMode::Consistent } else { ReadMode::Latest };
        self.begin_statement(i);
        let label = self.trxs[i].label;
        let ix_name = if index_no == 0 { def.primary.name.clone() } else { def.secondary[index_no - 1].name.clone() };
        let what = format!("T{label}: scan {}.{ix_name} {mode:?} reverse={reverse} {:?}", TABLES[t], range);
        self.note(what.clone());
        let got = {
            let trx = &mut self.trxs[i].trx;
            let r: SResult<Vec<(Vec<u8>, Vec<Datum>)>> = (|| {
                let mut scan = trx.scan(&def, index_no, range.clone(), reverse, mode)?;
                let mut out = Vec::new();
                while let Some(r) = scan.next(trx)? {
                    out.push((r.pk_key, r.row));
                }
                Ok(out)
            })();
            r
        };
        let got = self.ok(got, &what)?;
        let want = match mode {
            ReadMode::Consistent => {
                let view = self.view_for(i, t);
                self.in_index_order(t, &view, index_no, &range, reverse)
            }
            ReadMode::Latest if index_no == 0 => {
                let latest = self.latest_clustered_for(i, t);
                self.in_index_order(t, &latest, 0, &range, reverse)
            }
            ReadMode::Latest => self.latest_secondary_for(i, t, &def.secondary[index_no - 1], &range, reverse),
        };
        let want: Vec<(Vec<u8>, Vec<Datum>)> = want.into_iter().map(|(pk, r)| (pk, r.to_vec())).collect();
        if got != want {
            panic!("{what}: engine and model differ\n{}", diff(&got, &want));
        }
        Ok(())
    }

    async fn commit(&mut self, i: usize) -> Step {
        let m = self.trxs.remove(i);
        self.note(format!("T{}: commit ({} changes)", m.label, m.own.len()));
        let changes = m.own;
        match m.trx.commit().await {
            Ok(()) => {
                apply(&mut self.committed, &changes);
                self.durability.commits.push(changes);
                if self.config.flush_mode == FlushMode::Durable {
                    self.durability.required = self.durability.commits.len();
                }
                self.counts.commits += 1;
                Ok(())
            }
            Err(_) if self.crashed() => {
                // The crash may have come before or after the commit record became durable.
                self.note("commit in doubt".into());
                self.counts.in_doubt_commits += 1;
                apply(&mut self.committed, &changes);
                self.durability.commits.push(changes);
                Err(Crash)
            }
            Err(e) => panic!("commit: unexpected error {e:?}"),
        }
    }

    fn rollback(&mut self, i: usize) -> Step {
        let m = self.trxs.remove(i);
        self.note(format!("T{}: rollback", m.label));
        let r = m.trx.rollback();
        self.ok(r, "rollback")
    }

    /// Everything committed so far is durable (after a DDL or a clean shutdown).
    fn all_durable(&mut self) {
        self.durability = Durability { base: self.committed.clone(), commits: Vec::new(), required: 0 };
    }

    // ---- steps ----

    async fn step(&mut self, rng: &mut StdRng) -> Step {
        self.counts.steps += 1;
        if self.trxs.is_empty() {
            return self.quiet_step(rng).await;
        }
        if self.trxs.len() < MAX_TRX && rng.gen_ratio(1, 10) {
            self.begin(rng);
            return Ok(());
        }
        let i = rng.gen_range(0..self.trxs.len());
        match pick(rng, TRX_OPS) {
            Op::Statement => self.statement(i, rng).await,
            Op::Get => self.get(i, rng),
            Op::Scan => self.scan(i, rng),
            Op::Commit => self.commit(i).await,
            Op::Rollback => self.rollback(i),
            Op::Checkpoint => self.checkpoint(),
            Op::CrashNow => self.crash_now(),
            Op::ArmCrashPoint => {
                self.arm(CrashPoint::HomePageSync);
                Ok(())
            }
            Op::Restart => self.restart(false, rng).await,
            other => unreachable!("{other:?} needs a quiet moment"),
        }
    }

    /// A step while no transaction is open.
    async fn quiet_step(&mut self, rng: &mut StdRng) -> Step {
        if self.audit_always {
            self.audit().await?;
        }
        match pick(rng, QUIET_OPS) {
            Op::Begin => {
                self.begin(rng);
                Ok(())
            }
            Op::IndexDdl => self.index_ddl(rng).await,
            Op::Bulk => self.bulk(rng).await,
            Op::Audit => self.audit().await,
            Op::Checkpoint => self.checkpoint(),
            Op::CrashNow => self.crash_now(),
            Op::Restart => self.restart(false, rng).await,
            other => unreachable!("{other:?} needs a transaction"),
        }
    }

    fn checkpoint(&mut self) -> Step {
        self.note("checkpoint".into());
        let r = self.e().checkpoint_for_test();
        // Not a durability point in flush modes 0 and 2: the checkpoint makes the log durable up
        // to its LSN only, which may lie before the latest commits (as in InnoDB).
        self.ok(r, "checkpoint")
    }

    fn crash_now(&mut self) -> Step {
        self.note("crash now".into());
        Err(Crash)
    }

    fn arm(&mut self, point: CrashPoint) {
        if !self.crash_armed {
            self.note(format!("arm crash point {point:?}"));
            self.e().arm_crash_point_for_test(point);
            self.crash_armed = true;
        }
    }

    /// Builds the extra index of `keyed` (a unique one fails on duplicates) or drops it, now and
    /// then with a crash point armed inside the build or inside purge's freeing of the tree.
    async fn index_ddl(&mut self, rng: &mut StdRng) -> Step {
        self.counts.ddl += 1;
        let e = self.e().clone();
        let current = self.defs[KEYED].secondary.iter().position(|ix| EXTRA_INDEXES.iter().any(|x| x.0 == ix.name));
        match current {
            None => {
                let which = rng.gen_range(0..EXTRA_INDEXES.len());
                let (name, columns, unique) = EXTRA_INDEXES[which];
                if rng.gen_bool(0.3) {
                    self.arm(CrashPoint::IndexBuild);
                }
                self.note(format!("create index {name} (rows: {})", self.committed[KEYED].len()));
                let r = e.create_index("f", TABLES[KEYED], index(name, columns, unique)).await;
                let duplicates = unique && {
                    let mut vals: Vec<Vec<Datum>> = self.committed[KEYED]
                        .values()
                        .map(|r| columns.iter().map(|&c| r[c].clone()).collect::<Vec<_>>())
                        .filter(|v| !v.iter().any(Datum::is_null))
                        .collect();
                    vals.sort_by(|a, b| cmp_prefix(a, b));
                    vals.windows(2).any(|w| tuple_eq(&w[0], &w[1]))
                };
                match r {
                    Ok(()) if !duplicates => self.extra = ExtraIndex::Known(Some(which)),
                    // The build failed before the DDL committed: no durability point.
                    Err(StorageError::DuplicateKey { index, .. }) if duplicates && index == name => return Ok(()),
                    Err(_) if self.crashed() => {
                        self.extra = ExtraIndex::InDoubt(None, Some(which));
                        return Err(Crash);
                    }
                    other => panic!("create index {name}: {other:?} (duplicates in the table: {duplicates})"),
                }
            }
            Some(pos) => {
                let name = self.defs[KEYED].secondary[pos].name.clone();
                let which = EXTRA_INDEXES.iter().position(|x| x.0 == name);
                if rng.gen_bool(0.5) {
                    self.arm(CrashPoint::TreeFree);
                }
                self.note(format!("drop index {name}"));
                let r = e.drop_index("f", TABLES[KEYED], &name).await;
                if r.is_err() && self.crashed() {
                    self.extra = ExtraIndex::InDoubt(which, None);
                    return Err(Crash);
                }
                r.unwrap_or_else(|err| panic!("drop index {name}: {err:?}"));
                self.extra = ExtraIndex::Known(None);
            }
        }
        // A DDL commits durably, and so is everything before it.
        self.all_durable();
        self.defs = TABLES.iter().map(|n| table(&e, "f", n)).collect();
        Ok(())
    }

    /// One transaction that loads a few hundred rows into `keyed` (deep trees, and an index
    /// build long enough for its crash point), or deletes a range of them.
    async fn bulk(&mut self, rng: &mut StdRng) -> Step {
        self.begin(rng);
        let i = self.trxs.len() - 1;
        self.begin_statement(i);
        if self.committed[KEYED].len() < BULK_MAX_ROWS && rng.gen_bool(0.7) {
            let n = rng.gen_range(100..400);
            self.note(format!("bulk load of {n} rows"));
            for _ in 0..n {
                let mut row = gen_row(KEYED, &self.defs[KEYED], rng).to_vec();
                row[0] = Datum::Int(rng.gen_range(BULK_IDS));
                row[2] = Datum::Null;
                if !self.insert(i, KEYED, Arc::new(row), OnDuplicate::Report).await? {
                    break;
                }
            }
        } else {
            let lo = rng.gen_range(BULK_IDS);
            let range = KeyRange {
                lower: Bound::Included(vec![Datum::Int(lo)]),
                upper: Bound::Excluded(vec![Datum::Int(lo + 800)]),
            };
            self.note(format!("bulk delete from {lo}"));
            let candidates: Vec<Vec<u8>> = self
                .in_index_order(KEYED, &self.latest_for(i, KEYED), 0, &range, false)
                .into_iter()
                .map(|r| r.0)
                .collect();
            for pk in candidates {
                if !self.delete(i, KEYED, &pk).await? {
                    break;
                }
            }
        }
        let i = self.trxs.len() - 1;
        self.commit(i).await
    }

    /// Waits until purge has nothing left to do, or fails (a purge that never finishes is a bug).
    async fn settle(&self) -> Step {
        let e = self.e();
        let deadline = Instant::now() + SETTLE_TIMEOUT;
        let busy = |name| status_value(e, name) > 0;
        while busy("Innodb_history_list_length") || busy("Selkie_pending_trees") || busy("Selkie_pending_tree_frees") {
            if self.crashed() {
                return Err(Crash);
            }
            assert!(Instant::now() < deadline, "purge did not settle: {:?}", e.status().rows);
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        Ok(())
    }

    /// With no transaction open: every index holds exactly the committed rows, and once purge has
    /// settled every page is in exactly one place.
    async fn audit(&mut self) -> Step {
        self.counts.audits += 1;
        self.note("audit".into());
        self.check_indexes()?;
        self.settle().await?;
        // Purge takes its work off the queues before it does it (the history length drops to 0
        // before the last records are removed), and `space_report` does not stop it: a report
        // that meets a freeing in flight sees pages in no place or a chain half gone. A quiet
        // engine gives a clean report within a few purge intervals; a real leak never does.
        let mut last = None;
        for _ in 0..AUDIT_TRIES {
            let r = self.e().space_report();
            if self.crashed() {
                return Err(Crash);
            }
            if matches!(r, Ok(r) if r.leaked == self.leak_allowance && r.doubly_used == 0 && r.pending == 0) {
                let r = r.expect("matched");
                assert_eq!(r.total_pages, 1 + r.in_trees + r.free + r.undo + r.leaked, "{r:?}");
                return self.expect_purged().await;
            }
            last = Some(r);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("space audit never clean ({} pages leaked by crashes before): {last:?}", self.leak_allowance);
    }

    /// No delete-marked record is left once purge has settled: those of this run's commits are
    /// purged from the history, those from before a restart once `check_indexes` met them.
    async fn expect_purged(&mut self) -> Step {
        let mut marked = Vec::new();
        for _ in 0..AUDIT_TRIES {
            marked.clear();
            for (t, def) in self.defs.iter().enumerate() {
                for index_no in 0..=def.secondary.len() {
                    let (_, m) = self.ok(self.e().physical_records(def, index_no), "physical_records")?;
                    if m > 0 {
                        marked.push((TABLES[t], index_no, m));
                    }
                }
            }
            if marked.is_empty() {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("delete-marked records left after purge settled (table, index, count): {marked:?}");
    }

    /// Reads every table through every index in a new transaction and compares with the
    /// committed state; with no transaction open, also counts the physical index records.
    fn check_indexes(&mut self) -> Step {
        let e = self.e().clone();
        let mut trx = e.begin(&self.sessions[MAX_TRX], opts());
        for (t, name) in TABLES.iter().enumerate() {
            let def = self.defs[t].clone();
            for index_no in 0..=def.secondary.len() {
                let got: SResult<Vec<(Vec<u8>, Vec<Datum>)>> = (|| {
                    let mut scan = trx.scan(&def, index_no, KeyRange::all(), false, ReadMode::Consistent)?;
                    let mut out = Vec::new();
                    while let Some(r) = scan.next(&mut trx)? {
                        out.push((r.pk_key, r.row));
                    }
                    Ok(out)
                })();
                let got = self.ok(got, "check scan")?;
                let want: Vec<(Vec<u8>, Vec<Datum>)> = self
                    .in_index_order(t, &self.committed[t], index_no, &KeyRange::all(), false)
                    .into_iter()
                    .map(|(pk, r)| (pk, r.to_vec()))
                    .collect();
                if got != want {
                    panic!("{name} index #{index_no}: committed rows differ\n{}", diff(&got, &want));
                }
                if self.trxs.is_empty() {
                    let (live, _) = self.ok(e.physical_records(&def, index_no), "physical_records")?;
                    assert_eq!(live as usize, want.len(), "{name} index #{index_no}: live records vs rows");
                }
            }
        }
        Ok(())
    }

    /// Restarts the engine: cleanly (open transactions roll back) or after a simulated power
    /// failure; then checks that the data is what the model allows and adopts it.
    async fn restart(&mut self, crash: bool, rng: &mut StdRng) -> Step {
        let e = self.engine.take().expect("engine open");
        let fired = e.crash_point_fired_for_test();
        let crash = crash || fired;
        self.note(format!(
            "{} (crash point fired: {fired})",
            if crash { "crash and recover" } else { "clean restart" }
        ));
        if crash {
            e.crash_for_test();
        }
        self.trxs.clear();
        self.sessions.clear();
        self.defs.clear();
        let mut crash = crash;
        if !crash {
            match e.shutdown() {
                Ok(()) => self.all_durable(),
                Err(_) if e.crash_point_fired_for_test() => {
                    e.crash_for_test();
                    crash = true;
                }
                Err(err) => panic!("shutdown: {err:?}"),
            }
        }
        drop(e);
        if crash {
            self.counts.crashes += 1;
            self.counts.async_crashes += fired as u64;
        } else {
            self.counts.clean_restarts += 1;
        }
        self.crash_armed = false;
        self.config = random_config(self.dir.path(), rng);
        self.note(format!(
            "open: flush mode {:?}, {:?}, pool {} KiB",
            self.config.flush_mode,
            self.config.fault,
            self.config.buffer_pool_bytes >> 10
        ));
        let e = Engine::open(self.config.clone()).unwrap_or_else(|err| panic!("recovery failed: {err:?}"));
        self.counts.pages_repaired += status_value(&e, "Selkie_pages_repaired_from_doublewrite");
        self.engine = Some(e);
        self.attach();
        self.check_extra_index();
        let actual = self.read_all()?;
        self.adopt(actual);
        self.check_indexes()?;
        if crash {
            self.account_for_crash_leaks().await?;
        }
        Ok(())
    }

    /// A value too large for its leaf goes to an overflow chain written in mtrs of its own before
    /// the mtr that changes the leaf (btree/overflow.rs), so a crash between them leaks the
    /// chain's pages. After a crash, the pages nothing accounts for must be exactly such chains:
    /// overflow pages whose links stay among them and end the chain. Later audits then expect
    /// exactly these leaked pages (SELKIE_FUZZ_STRICT_SPACE=1 expects none).
    async fn account_for_crash_leaks(&mut self) -> Step {
        self.settle().await?;
        let mut leaked = None;
        for _ in 0..AUDIT_TRIES {
            match self.e().space_report() {
                Ok(r) if r.doubly_used == 0 && r.pending == 0 => {
                    leaked = Some(r.leaked);
                    break;
                }
                r => self.note(format!("space report after recovery: {r:?}")),
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let leaked = leaked.expect("a clean space report after recovery");
        if leaked == self.leak_allowance {
            return Ok(());
        }
        assert!(leaked > self.leak_allowance, "leaked pages came back: {leaked} < {}", self.leak_allowance);
        assert!(
            std::env::var("SELKIE_FUZZ_STRICT_SPACE").is_err(),
            "the crash leaked {} pages",
            leaked - self.leak_allowance
        );
        // Look at the pages themselves, with the engine shut down.
        self.trxs.clear();
        self.sessions.clear();
        let e = self.engine.take().expect("engine open");
        e.shutdown().unwrap();
        drop(e);
        let pages = chain_pages_nothing_accounts_for(self.dir.path());
        assert_eq!(pages as u64, leaked, "leaked pages seen by space_report and by the page walk");
        self.note(format!("recovery left {} pages of overflow chains leaked", leaked - self.leak_allowance));
        self.counts.pages_leaked_by_crashes += leaked - self.leak_allowance;
        self.leak_allowance = leaked;
        self.engine = Some(Engine::open(self.config.clone()).unwrap());
        self.attach();
        Ok(())
    }

    fn check_extra_index(&mut self) {
        let present =
            self.defs[KEYED].secondary.iter().find_map(|ix| EXTRA_INDEXES.iter().position(|x| x.0 == ix.name));
        let allowed = match self.extra {
            ExtraIndex::Known(x) => present == x,
            ExtraIndex::InDoubt(a, b) => present == a || present == b,
        };
        assert!(allowed, "extra index after restart: {present:?}, expected {:?}", self.extra);
        self.extra = ExtraIndex::Known(present);
    }

    /// Every table's rows through its clustered index.
    fn read_all(&mut self) -> Step<Db> {
        let e = self.e().clone();
        let mut trx = e.begin(&self.sessions[MAX_TRX], opts());
        let mut db = Db::new();
        for def in self.defs.clone() {
            let rows: SResult<Table> = (|| {
                let mut scan = trx.scan(&def, 0, KeyRange::all(), false, ReadMode::Consistent)?;
                let mut out = Table::new();
                while let Some(r) = scan.next(&mut trx)? {
                    out.insert(r.pk_key, Arc::new(r.row));
                }
                Ok(out)
            })();
            db.push(self.ok(rows, "read after restart")?);
        }
        Ok(db)
    }

    /// The recovered data must be the durable base plus a prefix of the later commits that holds
    /// every commit known durable.
    fn adopt(&mut self, actual: Db) {
        let d = std::mem::take(&mut self.durability);
        let mut state = d.base;
        for c in &d.commits[..d.required] {
            apply(&mut state, c);
        }
        let mut k = d.required;
        while state != actual {
            if k == d.commits.len() {
                let mut report = String::new();
                for (name, (got, want)) in TABLES.iter().zip(actual.iter().zip(&self.committed)) {
                    let got: Vec<_> = got.iter().map(|(pk, r)| (pk.clone(), r.to_vec())).collect();
                    let want: Vec<_> = want.iter().map(|(pk, r)| (pk.clone(), r.to_vec())).collect();
                    report += &format!("{name}:\n{}", diff(&got, &want));
                }
                panic!(
                    "recovered data is no allowed state ({} commits since the last durable point, {} known durable);\n\
                     against the state after all of them:\n{report}",
                    d.commits.len(),
                    d.required
                );
            }
            apply(&mut state, &d.commits[k]);
            k += 1;
        }
        self.note(format!("recovered {k} of {} commits ({} known durable)", d.commits.len(), d.required));
        self.committed = state;
        self.all_durable();
    }

    /// A last clean restart (it checks the data again; a crash point still armed may turn it
    /// into a recovery), then a shutdown.
    async fn finish(mut self, rng: &mut StdRng) -> Counts {
        self.restart(false, rng).await.expect("nothing is armed after a restart");
        self.trxs.clear();
        self.sessions.clear();
        self.engine.take().expect("engine open").shutdown().unwrap();
        std::mem::take(&mut self.counts)
    }
}

fn sort_entries(entries: &mut [(Vec<Datum>, Vec<u8>, Row)], reverse: bool) {
    entries.sort_by(|a, b| cmp_prefix(&a.0, &b.0).then_with(|| a.1.cmp(&b.1)));
    if reverse {
        entries.reverse();
    }
}

fn show(row: &[Datum]) -> String {
    let parts: Vec<String> = row
        .iter()
        .map(|d| match d {
            Datum::Bytes(b) if b.len() > 24 => format!("<{} bytes>", b.len()),
            Datum::Bytes(b) => format!("{:?}", String::from_utf8_lossy(b)),
            other => format!("{other:?}"),
        })
        .collect();
    format!("({})", parts.join(", "))
}

/// The first differences between two row lists (pk bytes, row).
fn diff(got: &[(Vec<u8>, Vec<Datum>)], want: &[(Vec<u8>, Vec<Datum>)]) -> String {
    let mut out = format!("engine: {} rows, model: {} rows\n", got.len(), want.len());
    let mut shown = 0;
    for n in 0..got.len().max(want.len()) {
        let (g, w) = (got.get(n), want.get(n));
        if g != w && shown < 8 {
            let fmt = |r: Option<&(Vec<u8>, Vec<Datum>)>| {
                r.map_or("-".to_string(), |(pk, row)| format!("{pk:02x?} {}", show(row)))
            };
            out += &format!("  #{n}: engine {} | model {}\n", fmt(g), fmt(w));
            shown += 1;
        }
    }
    out
}

async fn run_case(seed: u64, steps: usize) -> Counts {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut f = Fuzz::new(seed, &mut rng).await;
    for _ in 0..steps {
        let r = f.step(&mut rng).await;
        if r.is_err() || f.crashed() {
            f.restart(true, &mut rng).await.expect("recovery itself must not crash");
        }
    }
    f.finish(&mut rng).await
}

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().map(|v| v.parse().unwrap_or_else(|_| panic!("{name}={v} is not a number")))
}

#[tokio::test]
async fn engine_survives_random_operations_and_crashes() {
    let started = Instant::now();
    let steps: usize = env("SELKIE_FUZZ_STEPS").unwrap_or(DEFAULT_STEPS);
    let mut total = Counts::default();
    let mut cases = 0u64;
    let mut run = |counts: Counts| {
        cases += 1;
        total.steps += counts.steps;
        total.commits += counts.commits;
        total.statements_failed += counts.statements_failed;
        total.crashes += counts.crashes;
        total.async_crashes += counts.async_crashes;
        total.in_doubt_commits += counts.in_doubt_commits;
        total.clean_restarts += counts.clean_restarts;
        total.ddl += counts.ddl;
        total.audits += counts.audits;
        total.pages_repaired += counts.pages_repaired;
        total.pages_leaked_by_crashes += counts.pages_leaked_by_crashes;
    };
    if let Some(seed) = env::<u64>("SELKIE_FUZZ_SEED") {
        run(run_case(seed, steps).await);
    } else if let Some(secs) = env::<u64>("SELKIE_FUZZ_SECONDS").or(stress().then_some(STRESS_SECONDS)) {
        let steps: usize = env("SELKIE_FUZZ_STEPS").unwrap_or(TIMED_STEPS);
        let base = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() << 16;
        let deadline = started + Duration::from_secs(secs);
        let mut seed = base;
        while Instant::now() < deadline {
            run(run_case(seed, steps).await);
            seed += 1;
        }
    } else {
        for seed in 0..DEFAULT_SEEDS {
            run(run_case(seed, steps).await);
        }
    }
    eprintln!("storage fuzz: {cases} cases in {:.1} s: {total:?}", started.elapsed().as_secs_f64());
}

/// Walks a closed data directory's tablespace: every page must be in a live tree or on the free
/// list, except pages of overflow chains that nothing references (see
/// `Fuzz::account_for_crash_leaks`). Returns how many of those there are.
fn chain_pages_nothing_accounts_for(dir: &std::path::Path) -> usize {
    use selkie_storage::btree::BTree;
    use selkie_storage::buffer::{PageStore, PageStoreConfig, PageType, PAGE_SIZE, SYSTEM_TREES};
    /// Overflow and free pages: the next page of the chain (docs §4.1, page/mod.rs).
    const OFF_NEXT: usize = 24;
    let io = selkie_storage::io::Io::new(FaultInjection::default());
    let store = PageStore::open(&io, dir, PageStoreConfig::new(16 << 20)).unwrap();
    let total = store.tablespace_pages().unwrap() as usize;
    let mut owned = vec![false; total];
    owned[0] = true;
    let mut roots: Vec<u64> = (0..SYSTEM_TREES).map(|n| store.system_tree_root(n)).collect();
    let (catalog, _) = selkie_storage::catalog::load(&store).unwrap();
    roots.extend(catalog.tables.values().flat_map(|t| t.indexes().map(|ix| ix.root).collect::<Vec<_>>()));
    for root in roots {
        for p in BTree::open(root).pages(&store).unwrap() {
            owned[p as usize] = true;
        }
    }
    for p in store.free_list_pages().unwrap() {
        owned[p as usize] = true;
    }
    drop(store);
    let data = std::fs::read(dir.join("data.sdb")).unwrap();
    let page = |pid: usize| &data[pid * PAGE_SIZE..(pid + 1) * PAGE_SIZE];
    let leaked: HashSet<usize> = (0..total).filter(|&p| !owned[p]).collect();
    for &pid in &leaked {
        let (mut p, mut hops) = (pid, 0);
        loop {
            assert_eq!(
                page(p)[4],
                PageType::Overflow as u8,
                "leaked page {p} (reached from {pid}) is no overflow page"
            );
            let next = u64::from_le_bytes(page(p)[OFF_NEXT..OFF_NEXT + 8].try_into().unwrap()) as usize;
            if next == 0 {
                break;
            }
            if !leaked.contains(&next) {
                // A leaked chain that was to share the tail of the record's previous chain links
                // into that chain, which is in use (its share count was never raised).
                assert_eq!(
                    page(next)[4],
                    PageType::Overflow as u8,
                    "leaked chain page {p} links to page {next}, in use and no overflow page"
                );
                break;
            }
            hops += 1;
            assert!(hops <= leaked.len(), "leaked chain pages form a cycle at {pid}");
            p = next;
        }
    }
    leaked.len()
}
