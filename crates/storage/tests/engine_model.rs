//! Model test: random operation sequences on the engine and on a simple in-memory model,
//! compared after every step.
//!
//! Several transactions are open at once (REPEATABLE READ and READ COMMITTED) on the table
//! `t(id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR NULL, KEY k_1(k), UNIQUE u(c))`. The model
//! knows which row locks each transaction holds, in the order the engine takes them, so it
//! predicts lock wait timeouts (the lock wait timeout is tiny), duplicate-key errors, what every
//! consistent read sees (snapshot + own writes), what latest reads see, statement rollback,
//! commit and rollback. Clean restarts and in-process crashes (with unsynced writes lost)
//! happen in between: afterwards the database must hold exactly the acknowledged commits.
//!
//! SELKIE_STRESS=1 runs more seeds and longer sequences.

use crate::engine_util;

use std::collections::{BTreeMap, HashSet};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use engine_util::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use selkie_storage::*;

type MRow = (i64, Option<String>);
type Table = BTreeMap<i64, MRow>;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum LockK {
    Pk(i64),
    U(String),
}

struct MTrx {
    trx: Transaction,
    session: usize,
    iso: IsolationLevel,
    snapshot: Option<Table>,
    own: BTreeMap<i64, Option<MRow>>,
    stmt_own: BTreeMap<i64, Option<MRow>>,
    locks: HashSet<LockK>,
}

struct World {
    committed: Table,
    trxs: Vec<MTrx>,
}

const IDS: i64 = 30;
const CS: usize = 8;

fn overlay(base: &Table, own: &BTreeMap<i64, Option<MRow>>) -> Table {
    let mut t = base.clone();
    for (id, r) in own {
        match r {
            Some(r) => t.insert(*id, r.clone()),
            None => t.remove(id),
        };
    }
    t
}

fn to_datums(id: i64, r: &MRow) -> Vec<Datum> {
    vec![Datum::Int(id), Datum::Int(r.0), r.1.as_ref().map_or(Datum::Null, |c| Datum::Bytes(c.as_bytes().to_vec()))]
}

fn pk(t: &TableDef, id: i64) -> Vec<u8> {
    keycodec::primary_key_from_values(t, &[Datum::Int(id)]).unwrap()
}

impl World {
    fn latest_for(&self, i: usize) -> Table {
        overlay(&self.committed, &self.trxs[i].own)
    }

    /// What latest reads of trx i through the clustered index see: other transactions' changes
    /// too, except that a row another transaction deleted stays visible with its committed
    /// contents until that delete commits.
    fn latest_clustered_for(&self, i: usize) -> Table {
        let mut t = self.committed.clone();
        for (j, m) in self.trxs.iter().enumerate() {
            for (id, r) in &m.own {
                match (r, self.committed.get(id)) {
                    (Some(r), _) => t.insert(*id, r.clone()),
                    (None, Some(c)) if j != i => t.insert(*id, c.clone()),
                    (None, _) => t.remove(id),
                };
            }
        }
        t
    }

    /// What latest reads of trx i through a secondary index see, in index order (`key_of` is
    /// the index key without the primary key suffix): each row once, at the first of its entries
    /// in scan order, among its latest version as latest clustered reads see it, and, if
    /// another open transaction deleted the row or moved it to another key, its committed
    /// version (that change may still roll back; the caller's lock_row waits to find out).
    fn latest_secondary_for<K: Ord + Clone>(
        &self,
        i: usize,
        key_of: impl Fn(&MRow) -> K,
        in_range: impl Fn(&MRow) -> bool,
        reverse: bool,
    ) -> Vec<(i64, MRow)> {
        let mut entries: Vec<((K, i64), MRow)> = self
            .latest_clustered_for(i)
            .into_iter()
            .filter(|(_, r)| in_range(r))
            .map(|(id, r)| ((key_of(&r), id), r))
            .collect();
        for (j, m) in self.trxs.iter().enumerate() {
            for (id, r) in &m.own {
                let Some(c) = self.committed.get(id) else { continue };
                let moved = r.as_ref().is_none_or(|r| key_of(r) != key_of(c));
                if j != i && moved && in_range(c) {
                    entries.push(((key_of(c), *id), c.clone()));
                }
            }
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        if reverse {
            entries.reverse();
        }
        let mut seen = HashSet::new();
        entries.into_iter().filter(|((_, id), _)| seen.insert(*id)).map(|((_, id), r)| (id, r)).collect()
    }

    /// What consistent reads of trx i see (taking its snapshot if this is its first read).
    fn view_for(&mut self, i: usize) -> Table {
        if self.trxs[i].snapshot.is_none() {
            self.trxs[i].snapshot = Some(self.committed.clone());
        }
        overlay(self.trxs[i].snapshot.as_ref().unwrap(), &self.trxs[i].own)
    }

    fn held_by_other(&self, i: usize, k: &LockK) -> bool {
        self.trxs.iter().enumerate().any(|(j, m)| j != i && m.locks.contains(k))
    }

    /// Takes locks in order; the first one held by another transaction is a timeout.
    fn take_locks(&mut self, i: usize, keys: &[LockK]) -> bool {
        for k in keys {
            if self.held_by_other(i, k) {
                return false;
            }
            self.trxs[i].locks.insert(k.clone());
        }
        true
    }

    fn begin_statement(&mut self, i: usize) {
        let m = &mut self.trxs[i];
        m.trx.begin_statement();
        m.stmt_own = m.own.clone();
        if m.iso == IsolationLevel::ReadCommitted {
            m.snapshot = None;
        }
    }

    /// The statement failed: the engine undoes it, and so does the model.
    fn fail_statement(&mut self, i: usize) {
        let m = &mut self.trxs[i];
        m.trx.rollback_statement().unwrap();
        m.own = m.stmt_own.clone();
    }
}

fn expect_timeout<T: std::fmt::Debug>(r: Result<T, StorageError>) {
    match r {
        Err(StorageError::LockWaitTimeout) => {}
        other => panic!("expected a lock wait timeout, got {other:?}"),
    }
}

fn expect_dup<T: std::fmt::Debug>(r: Result<T, StorageError>, index: &str) {
    match r {
        Err(StorageError::DuplicateKey { index: ix, .. }) if ix == index => {}
        other => panic!("expected a duplicate on {index}, got {other:?}"),
    }
}

fn random_row(rng: &mut StdRng) -> MRow {
    let c = if rng.gen_bool(0.2) { None } else { Some(format!("c{}", rng.gen_range(0..CS))) };
    (rng.gen_range(0..5), c)
}

async fn do_insert(w: &mut World, t: &Arc<TableDef>, i: usize, id: i64, r: MRow, on_dup: OnDuplicate) {
    w.begin_statement(i);
    let mut keys = vec![LockK::Pk(id)];
    if let Some(c) = &r.1 {
        keys.push(LockK::U(c.clone()));
    }
    let res = w.trxs[i].trx.insert(t, to_datums(id, &r), on_dup).await;
    if !w.take_locks(i, &keys) {
        expect_timeout(res);
        return w.fail_statement(i);
    }
    let latest = w.latest_for(i);
    // Conflicts in the engine's order: primary key, then the unique index.
    let mut conflicts: Vec<(usize, i64)> = Vec::new();
    if latest.contains_key(&id) {
        conflicts.push((0, id));
    }
    if let Some(c) = &r.1 {
        for (oid, orow) in &latest {
            if orow.1.as_ref() == Some(c) {
                conflicts.push((2, *oid));
            }
        }
    }
    if conflicts.is_empty() {
        assert_eq!(res.unwrap(), InsertOutcome::Inserted { pk_key: pk(t, id) });
        w.trxs[i].own.insert(id, Some(r));
        return;
    }
    match on_dup {
        OnDuplicate::Error => {
            expect_dup(res, if conflicts[0].0 == 0 { "PRIMARY" } else { "u" });
            w.fail_statement(i);
        }
        OnDuplicate::Report => {
            let (index, oid) = conflicts[0];
            if !w.take_locks(i, &[LockK::Pk(oid)]) {
                expect_timeout(res);
                return w.fail_statement(i);
            }
            let existing = to_datums(oid, &latest[&oid]);
            assert_eq!(res.unwrap(), InsertOutcome::Duplicate { index, pk_key: pk(t, oid), existing });
        }
        OnDuplicate::Replace => {
            let mut seen = Vec::new();
            let mut deleted = 0;
            for (_, oid) in conflicts {
                if seen.contains(&oid) {
                    continue;
                }
                seen.push(oid);
                let orow = latest[&oid].clone();
                let mut keys = vec![LockK::Pk(oid)];
                if let Some(c) = &orow.1 {
                    keys.push(LockK::U(c.clone()));
                }
                if !w.take_locks(i, &keys) {
                    expect_timeout(res);
                    return w.fail_statement(i);
                }
                w.trxs[i].own.insert(oid, None);
                deleted += 1;
            }
            assert_eq!(res.unwrap(), InsertOutcome::Replaced { pk_key: pk(t, id), deleted });
            w.trxs[i].own.insert(id, Some(r));
        }
    }
}

async fn do_update(w: &mut World, t: &Arc<TableDef>, rng: &mut StdRng, i: usize, id: i64) {
    w.begin_statement(i);
    let locked = w.trxs[i].trx.lock_row(t, &pk(t, id), LockMode::Exclusive).await;
    if !w.take_locks(i, &[LockK::Pk(id)]) {
        expect_timeout(locked);
        return w.fail_statement(i);
    }
    let latest = w.latest_for(i);
    let Some(old) = latest.get(&id).cloned() else {
        assert_eq!(locked.unwrap(), None);
        return;
    };
    let got = locked.unwrap().expect("row exists");
    assert_eq!(got.row, to_datums(id, &old));
    let (new_id, new) = match rng.gen_range(0..3) {
        0 => (id, (rng.gen_range(0..5), old.1.clone())),
        1 => (id, (old.0, random_row(rng).1)),
        _ => (rng.gen_range(0..IDS), old.clone()),
    };
    let res = w.trxs[i].trx.update(t, &got.pk_key, &got.row, to_datums(new_id, &new)).await;
    let mut keys = Vec::new();
    if new_id != id {
        keys.push(LockK::Pk(new_id));
    }
    // The unique entry (c, id) changes if c or the primary key changes.
    if new.1 != old.1 || new_id != id {
        if let Some(c) = &old.1 {
            keys.push(LockK::U(c.clone()));
        }
        if let Some(c) = &new.1 {
            keys.push(LockK::U(c.clone()));
        }
    }
    if !w.take_locks(i, &keys) {
        expect_timeout(res);
        return w.fail_statement(i);
    }
    if new_id != id && latest.contains_key(&new_id) {
        expect_dup(res, "PRIMARY");
        return w.fail_statement(i);
    }
    if (new.1 != old.1 || new_id != id) && new.1.is_some() && latest.iter().any(|(oid, r)| *oid != id && r.1 == new.1) {
        expect_dup(res, "u");
        return w.fail_statement(i);
    }
    assert_eq!(res.unwrap(), pk(t, new_id));
    w.trxs[i].own.insert(id, None);
    w.trxs[i].own.insert(new_id, Some(new));
}

async fn do_delete(w: &mut World, t: &Arc<TableDef>, i: usize, id: i64) {
    w.begin_statement(i);
    let locked = w.trxs[i].trx.lock_row(t, &pk(t, id), LockMode::Exclusive).await;
    if !w.take_locks(i, &[LockK::Pk(id)]) {
        expect_timeout(locked);
        return w.fail_statement(i);
    }
    let Some(old) = w.latest_for(i).get(&id).cloned() else {
        assert_eq!(locked.unwrap(), None);
        return;
    };
    let got = locked.unwrap().expect("row exists");
    let res = w.trxs[i].trx.delete(t, &got.pk_key, &got.row).await;
    if let Some(c) = &old.1 {
        if !w.take_locks(i, &[LockK::U(c.clone())]) {
            expect_timeout(res);
            return w.fail_statement(i);
        }
    }
    res.unwrap();
    w.trxs[i].own.insert(id, None);
}

fn rows_of(tab: &Table, filter: impl Fn(i64, &MRow) -> bool) -> Vec<(i64, MRow)> {
    tab.iter().filter(|(id, r)| filter(**id, r)).map(|(id, r)| (*id, r.clone())).collect()
}

fn check_reads(w: &mut World, t: &Arc<TableDef>, rng: &mut StdRng, i: usize) {
    w.begin_statement(i);
    let latest_mode = rng.gen_bool(0.25);
    let kind = rng.gen_range(0..4);
    let (mode, tab) = match latest_mode {
        true => (ReadMode::Latest, w.latest_clustered_for(i)),
        false => (ReadMode::Consistent, w.view_for(i)),
    };
    let reverse = rng.gen_bool(0.3);
    let w_ro: &World = w;
    let secondary_expect = |key_of: &dyn Fn(&MRow) -> (i64, Option<String>), in_range: &dyn Fn(&MRow) -> bool| {
        let rows = if latest_mode {
            w_ro.latest_secondary_for(i, key_of, in_range, reverse)
        } else {
            let mut rows = rows_of(&tab, |_, r| in_range(r));
            rows.sort_by_key(|(id, r)| (key_of(r), *id));
            if reverse {
                rows.reverse();
            }
            rows
        };
        rows.iter().map(|(id, r)| to_datums(*id, r)).collect::<Vec<Vec<Datum>>>()
    };
    match kind {
        0 if !latest_mode => {
            let id = rng.gen_range(0..IDS);
            let trx = &mut w.trxs[i].trx;
            let got = trx.get(t, &[Datum::Int(id)]).unwrap().map(|r| r.row);
            assert_eq!(got, tab.get(&id).map(|r| to_datums(id, r)), "get {id}");
        }
        1 => {
            let (a, b) = (rng.gen_range(0..IDS), rng.gen_range(0..IDS));
            let range =
                KeyRange { lower: Bound::Included(vec![Datum::Int(a)]), upper: Bound::Excluded(vec![Datum::Int(b)]) };
            let mut expect: Vec<Vec<Datum>> =
                rows_of(&tab, |id, _| id >= a && id < b).iter().map(|(id, r)| to_datums(*id, r)).collect();
            if reverse {
                expect.reverse();
            }
            let trx = &mut w.trxs[i].trx;
            assert_eq!(scan_all(trx, t, 0, range, reverse, mode), expect, "pk scan [{a},{b})");
        }
        2 => {
            let (a, b) = (rng.gen_range(0..5), rng.gen_range(0..5));
            let range =
                KeyRange { lower: Bound::Included(vec![Datum::Int(a)]), upper: Bound::Included(vec![Datum::Int(b)]) };
            let expect = secondary_expect(&|r| (r.0, None), &|r| r.0 >= a && r.0 <= b);
            let trx = &mut w.trxs[i].trx;
            assert_eq!(scan_all(trx, t, 1, range, reverse, mode), expect, "k scan [{a},{b}] {mode:?}");
        }
        _ => {
            let c = format!("c{}", rng.gen_range(0..CS));
            let range = KeyRange::point(vec![Datum::Bytes(c.as_bytes().to_vec())]);
            let expect = secondary_expect(&|r| (0, r.1.clone()), &|r| r.1.as_deref() == Some(c.as_str()));
            let trx = &mut w.trxs[i].trx;
            assert_eq!(scan_all(trx, t, 2, range, reverse, mode), expect, "u point {c} {mode:?}");
        }
    }
}

/// Full comparison of the committed state through every index, in a fresh transaction.
fn check_committed(e: &Engine, s: &SessionSlot, committed: &Table) {
    let t = table(e, "d", "t");
    let mut trx = e.begin(s, opts());
    let all: Vec<Vec<Datum>> = committed.iter().map(|(id, r)| to_datums(*id, r)).collect();
    assert_eq!(scan_all(&mut trx, &t, 0, KeyRange::all(), false, ReadMode::Consistent), all);
    let mut by_k: Vec<(i64, MRow)> = committed.iter().map(|(id, r)| (*id, r.clone())).collect();
    by_k.sort_by_key(|(id, r)| (r.0, *id));
    let by_k: Vec<Vec<Datum>> = by_k.iter().map(|(id, r)| to_datums(*id, r)).collect();
    assert_eq!(scan_all(&mut trx, &t, 1, KeyRange::all(), false, ReadMode::Consistent), by_k);
    let mut by_c: Vec<(i64, MRow)> = committed.iter().map(|(id, r)| (*id, r.clone())).collect();
    by_c.sort_by(|a, b| a.1 .1.cmp(&b.1 .1).then(a.0.cmp(&b.0)));
    let by_c: Vec<Vec<Datum>> = by_c.iter().map(|(id, r)| to_datums(*id, r)).collect();
    assert_eq!(scan_all(&mut trx, &t, 2, KeyRange::all(), false, ReadMode::Consistent), by_c);
    drop(trx);
}

fn model_config(dir: &Path) -> EngineConfig {
    let mut c = crash_config(dir);
    c.buffer_pool_bytes = 4 << 20;
    c
}

async fn run_seed(seed: u64, steps: usize) {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut e = Engine::open(model_config(dir.path())).unwrap();
    e.create_database(db("d"), false).await.unwrap();
    let mut def = sbtest("d", "t", true);
    def.columns[0].auto_increment = false;
    e.create_table(def, false).await.unwrap();
    let mut t = table(&e, "d", "t");
    let mut s = e.register_session().unwrap();
    let mut sessions: Vec<SessionSlot> = (0..3).map(|_| e.register_session().unwrap()).collect();
    let mut w = World { committed: Table::new(), trxs: Vec::new() };
    let tiny = Duration::from_millis(1);

    for step in 0..steps {
        let roll = rng.gen_range(0..100);
        if w.trxs.is_empty() || (w.trxs.len() < 3 && roll < 8) {
            let iso = if rng.gen_bool(0.5) { IsolationLevel::RepeatableRead } else { IsolationLevel::ReadCommitted };
            let session = (0..sessions.len()).find(|n| w.trxs.iter().all(|m| m.session != *n)).unwrap();
            let trx = e.begin(&sessions[session], opts_with(iso, tiny));
            w.trxs.push(MTrx {
                trx,
                session,
                iso,
                snapshot: None,
                own: BTreeMap::new(),
                stmt_own: BTreeMap::new(),
                locks: HashSet::new(),
            });
            continue;
        }
        let i = rng.gen_range(0..w.trxs.len());
        match roll {
            8..=27 => {
                let id = rng.gen_range(0..IDS);
                let r = random_row(&mut rng);
                let on_dup = match rng.gen_range(0..10) {
                    0 => OnDuplicate::Report,
                    1 => OnDuplicate::Replace,
                    _ => OnDuplicate::Error,
                };
                do_insert(&mut w, &t, i, id, r, on_dup).await;
            }
            28..=39 => {
                let id = rng.gen_range(0..IDS);
                do_update(&mut w, &t, &mut rng, i, id).await;
            }
            40..=47 => {
                let id = rng.gen_range(0..IDS);
                do_delete(&mut w, &t, i, id).await;
            }
            48..=79 => check_reads(&mut w, &t, &mut rng, i),
            80..=82 => {
                // A statement that changes rows, then fails: rolled back to its start.
                w.begin_statement(i);
                let before = w.trxs[i].own.clone();
                let id = rng.gen_range(0..IDS);
                let r = random_row(&mut rng);
                let res = w.trxs[i].trx.insert(&t, to_datums(id, &r), OnDuplicate::Error).await;
                let mut keys = vec![LockK::Pk(id)];
                if let Some(c) = &r.1 {
                    keys.push(LockK::U(c.clone()));
                }
                w.take_locks(i, &keys);
                let _ = res;
                w.trxs[i].trx.rollback_statement().unwrap();
                w.trxs[i].own = before;
            }
            83..=91 => {
                let m = w.trxs.remove(i);
                let after = overlay(&w.committed, &m.own);
                m.trx.commit().await.unwrap();
                w.committed = after;
            }
            92..=97 => {
                let m = w.trxs.remove(i);
                m.trx.rollback().unwrap();
            }
            _ => {
                // Restart: clean (open transactions roll back) or a crash.
                let crash = rng.gen_bool(0.5);
                if crash {
                    e.crash_for_test();
                }
                w.trxs.clear();
                drop(sessions);
                drop(s);
                if !crash {
                    e.shutdown().unwrap();
                }
                drop(t);
                drop(e);
                e = Engine::open(model_config(dir.path())).unwrap();
                t = table(&e, "d", "t");
                s = e.register_session().unwrap();
                sessions = (0..3).map(|_| e.register_session().unwrap()).collect();
                check_committed(&e, &s, &w.committed);
            }
        }
        if step % 50 == 49 && w.trxs.is_empty() {
            check_committed(&e, &s, &w.committed);
        }
    }
    w.trxs.clear();
    check_committed(&e, &s, &w.committed);
    drop(sessions);
    drop(s);
    e.shutdown().unwrap();
}

#[tokio::test]
async fn engine_matches_model() {
    let (seeds, steps) = if stress() { (12, 2500) } else { (3, 400) };
    // SELKIE_MODEL_SEED_BASE explores other seeds.
    let base: u64 = std::env::var("SELKIE_MODEL_SEED_BASE").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    for seed in base..base + seeds {
        run_seed(seed, steps).await;
    }
}
