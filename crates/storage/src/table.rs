//! Rows of tables over MVCC index records (docs/architecture.md §3, §4.6, §4.7).
//!
//! A table is a clustered B+tree (key: primary key or hidden row id; value: MVCC header + row)
//! plus one B+tree per secondary index (key: index columns + clustered key; value: MVCC header).
//! Every write locks first (the clustered key, and the column values of each UNIQUE index it
//! touches), then checks for duplicates against the latest versions, then applies each index
//! change as one mtr (`TrxState::write_version`). Secondary entries are never updated in place:
//! an indexed-column change delete-marks the old entry and inserts the new one, and readers
//! through a secondary index re-check the clustered row version they see.
//!
//! `ReadMode::Latest` (how UPDATE/DELETE/locking reads collect candidates before `lock_row`)
//! returns the latest version of each record, other transactions' uncommitted changes
//! included, except where that could miss a row whose pending change later rolls back: a row
//! whose latest clustered version is another active transaction's delete, and a secondary entry
//! another active transaction delete-marked (it changed or deleted the row), come back with the
//! row's committed contents. The caller's `lock_row` then waits for that transaction and
//! re-checks the outcome, as InnoDB's locking reads wait on such records. A row can then be met
//! through its old entry (committed contents) and its new one (pending contents); a secondary
//! scan in Latest mode returns each row once.
//!
//! Consistent reads through an index whose tree was created after the reader's snapshot (a table
//! created or truncated, or an index built, by a DDL the snapshot does not see) fail with
//! `TableDefinitionChanged` (1412), as in MariaDB: the tree holds no versions older than the DDL.

use std::collections::{HashMap, HashSet};
use std::ops::Bound;
use std::sync::Arc;

use crate::btree::{BTree, BTreeCursor, MAX_KEY_LEN};
use crate::error::{Result, StorageError};
use crate::keycodec::{self, encode_index_columns};
use crate::lock::LockKey;
use crate::rowcodec::{decode_table_row, encode_table_row};
use crate::trx::purge::Leftover;
use crate::trx::record::{RecHeader, Resolved, HEADER_LEN};
use crate::trx::txn::{Expect, Target, TrxState};
use crate::trx::SessionStats;
use crate::types::*;

/// Re-reads of one record whose version chain changed under the reader before giving up.
const MAX_READ_RETRIES: usize = 1000;
/// Re-checks of an insert's conflicts whose conflicting rows changed while it waited.
const MAX_CONFLICT_RETRIES: usize = 1000;

fn check_key_len(key: &[u8]) -> Result<()> {
    if key.len() > MAX_KEY_LEN {
        return Err(StorageError::KeyTooLong { max: MAX_KEY_LEN });
    }
    Ok(())
}

fn dup_error(table: &TableDef, index_no: usize, row: &[Datum]) -> StorageError {
    let ix = index_at(table, index_no);
    StorageError::DuplicateKey { index: ix.name.clone(), key: keycodec::format_key_value(table, ix, row) }
}

fn index_at(table: &TableDef, index_no: usize) -> &IndexDef {
    if index_no == 0 {
        &table.primary
    } else {
        &table.secondary[index_no - 1]
    }
}

fn decode_payload(table: &TableDef, value: &[u8]) -> Result<Vec<Datum>> {
    decode_table_row(table, &value[HEADER_LEN..])
}

/// Reads the version of record `key` that the transaction sees in `mode`: None if absent or
/// delete-marked for it. `first` is the latest stored value if the caller already has it.
pub(crate) fn read_visible(
    trx: &mut TrxState,
    index_id: IndexId,
    root: u64,
    key: &[u8],
    first: Option<Vec<u8>>,
    mode: ReadMode,
) -> Result<Option<Vec<u8>>> {
    let tree = BTree::open(root);
    let mut value = match first {
        Some(v) => v,
        None => match tree.get(&trx.sess.sh.store, key)? {
            Some(v) => v,
            None => return Ok(None),
        },
    };
    // The deleter of a delete-marked copy that had already ended when we asked (see below).
    let mut ended_deleter = None;
    for _ in 0..MAX_READ_RETRIES {
        let resolved = match mode {
            ReadMode::Latest => {
                let h = RecHeader::parse(&value)?;
                if h.deleted && Some(h.trx_id) != trx.id() && trx.sess.sh.trx.is_active(h.trx_id) {
                    // Deleted by a transaction that may still roll back: the caller (UPDATE,
                    // DELETE, locking read) gets the committed row as a candidate, and its
                    // lock_row waits for the deleter and then sees the outcome.
                    trx.resolve_committed(index_id, key, value)?
                } else if h.deleted && Some(h.trx_id) != trx.id() && ended_deleter != Some(h.trx_id) {
                    // Our copy was taken before we asked whether its deleter is active: in
                    // between, the deleter may have written the key again and committed (DELETE
                    // then INSERT of one key in one transaction, as sysbench's write scripts do).
                    // Calling the row gone from this copy would let an UPDATE or DELETE miss a
                    // live row. Read the record again; the same ended deleter twice means the
                    // delete is committed and the record only waits for purge.
                    ended_deleter = Some(h.trx_id);
                    Resolved::Retry
                } else {
                    Resolved::Version(value)
                }
            }
            ReadMode::Consistent => trx.resolve(index_id, key, value)?,
        };
        match resolved {
            Resolved::Version(v) => {
                let h = RecHeader::parse(&v)?;
                if h.deleted {
                    if h.trx_id < trx.sess.sh.trx.startup_trx_id {
                        // Left from before a restart (its purge information died with the
                        // process): let purge remove it if it is still there.
                        trx.sess.sh.purge_queues.report_leftover(Leftover {
                            root,
                            key: key.to_vec(),
                            trx_id: h.trx_id,
                        });
                    }
                    return Ok(None);
                }
                return Ok(Some(v));
            }
            Resolved::Absent => return Ok(None),
            Resolved::Retry => {
                value = match tree.get(&trx.sess.sh.store, key)? {
                    Some(v) => v,
                    None => return Ok(None),
                }
            }
        }
    }
    Err(StorageError::Corruption("record version chain kept changing under a reader".into()))
}

/// The latest version of a row if it is live (locking reads, writes after locking).
fn latest_live(trx: &TrxState, table: &TableDef, pk_key: &[u8]) -> Result<Option<(Vec<u8>, Vec<Datum>)>> {
    let Some(v) = BTree::open(table.primary.root).get(&trx.sess.sh.store, pk_key)? else { return Ok(None) };
    if RecHeader::parse(&v)?.deleted {
        return Ok(None);
    }
    let row = decode_payload(table, &v)?;
    Ok(Some((v, row)))
}

/// Consistent read of one row by its full primary key values.
pub(crate) fn get(trx: &mut TrxState, table: &Arc<TableDef>, pk: &[Datum]) -> Result<Option<ScanRow>> {
    // The snapshot is taken by the first consistent read, whether or not it finds a row.
    trx.check_index_usable(table.primary.id)?;
    let Some(key) = keycodec::primary_key_lookup(table, pk)? else { return Ok(None) };
    let Some(v) = read_visible(trx, table.primary.id, table.primary.root, &key, None, ReadMode::Consistent)? else {
        return Ok(None);
    };
    let row = decode_payload(table, &v)?;
    SessionStats::bump(&trx.stats().rows_read, 1);
    Ok(Some(ScanRow { pk_key: key, row }))
}

/// Locking read: waits for the lock, then returns the latest version (committed, or ours).
pub(crate) async fn lock_row(
    trx: &mut TrxState,
    table: &Arc<TableDef>,
    pk_key: &[u8],
    mode: LockMode,
) -> Result<Option<ScanRow>> {
    trx.sess.sh.check_open()?;
    lock_row_key(trx, table, pk_key, mode).await?;
    let Some((_, row)) = latest_live(trx, table, pk_key)? else { return Ok(None) };
    SessionStats::bump(&trx.stats().rows_read, 1);
    Ok(Some(ScanRow { pk_key: pk_key.to_vec(), row }))
}

/// Locking read that never waits (SKIP LOCKED, NOWAIT): `None` when another transaction holds
/// the row, else the latest version as `lock_row` returns it.
pub(crate) fn try_lock_row(
    trx: &mut TrxState,
    table: &Arc<TableDef>,
    pk_key: &[u8],
    mode: LockMode,
) -> Result<Option<Option<ScanRow>>> {
    trx.sess.sh.check_open()?;
    if !trx.try_lock_record(table.primary.id, table.primary.root, pk_key, mode)? {
        return Ok(None);
    }
    let Some((_, row)) = latest_live(trx, table, pk_key)? else { return Ok(Some(None)) };
    SessionStats::bump(&trx.stats().rows_read, 1);
    Ok(Some(Some(ScanRow { pk_key: pk_key.to_vec(), row })))
}

/// Locks a row by its clustered key (explicit lock, then the implicit lock of its writer: see
/// `TrxState::lock_record`).
async fn lock_row_key(trx: &mut TrxState, table: &TableDef, pk_key: &[u8], mode: LockMode) -> Result<()> {
    trx.lock_record(table.primary.id, table.primary.root, pk_key, mode).await
}

/// Locks the column values of every UNIQUE secondary index entry of `row` that `which` selects
/// (rows with a NULL in the index are not constrained and need no lock).
async fn lock_unique_values(
    trx: &mut TrxState,
    table: &TableDef,
    row: &[Datum],
    pk_len: usize,
    sec_keys: &[Vec<u8>],
    which: impl Fn(usize) -> bool,
) -> Result<()> {
    for (i, ix) in table.secondary.iter().enumerate() {
        if ix.unique && which(i) && !keycodec::has_null_column(ix, row) {
            let prefix = &sec_keys[i][..sec_keys[i].len() - pk_len];
            trx.lock(LockKey::new(ix.id, prefix), LockMode::Exclusive).await?;
        }
    }
    Ok(())
}

/// Live entries of unique secondary index `i` with the given column prefix, as clustered keys.
fn unique_conflicts(trx: &TrxState, ix: &IndexDef, prefix: &[u8], exclude_pk: Option<&[u8]>) -> Result<Vec<Vec<u8>>> {
    let upper = match keycodec::prefix_successor(prefix) {
        Some(s) => Bound::Excluded(s),
        None => Bound::Unbounded,
    };
    let mut cursor = BTree::open(ix.root).cursor(Bound::Included(prefix.to_vec()), upper, false);
    let mut out = Vec::new();
    while let Some((k, v)) = cursor.next(&trx.sess.sh.store)? {
        if RecHeader::parse(&v)?.deleted {
            continue;
        }
        let pk = &k[prefix.len()..];
        if exclude_pk != Some(pk) {
            out.push(pk.to_vec());
        }
    }
    Ok(out)
}

struct RowKeys {
    pk_key: Vec<u8>,
    /// One per secondary index: index columns + clustered key.
    sec_keys: Vec<Vec<u8>>,
}

fn row_keys(table: &TableDef, row: &[Datum], pk_key: Vec<u8>) -> Result<RowKeys> {
    check_key_len(&pk_key)?;
    let mut sec_keys = Vec::with_capacity(table.secondary.len());
    for ix in &table.secondary {
        let k = keycodec::secondary_key(table, ix, row, &pk_key)?;
        check_key_len(&k)?;
        sec_keys.push(k);
    }
    Ok(RowKeys { pk_key, sec_keys })
}

/// Conflicts of a new row: (index number, clustered key of the conflicting row), primary first.
fn find_conflicts(trx: &TrxState, table: &TableDef, row: &[Datum], keys: &RowKeys) -> Result<Vec<(usize, Vec<u8>)>> {
    let mut out = Vec::new();
    if !table.has_hidden_pk() {
        if let Some(v) = BTree::open(table.primary.root).get(&trx.sess.sh.store, &keys.pk_key)? {
            if !RecHeader::parse(&v)?.deleted {
                out.push((0, keys.pk_key.clone()));
            }
        }
    }
    for (i, ix) in table.secondary.iter().enumerate() {
        if !ix.unique || keycodec::has_null_column(ix, row) {
            continue;
        }
        let k = &keys.sec_keys[i];
        for pk in unique_conflicts(trx, ix, &k[..k.len() - keys.pk_key.len()], None)? {
            out.push((i + 1, pk));
        }
    }
    Ok(out)
}

/// True if `existing` (a locked row) still conflicts with `row` on index `index_no`.
fn still_conflicts(table: &TableDef, index_no: usize, row: &[Datum], existing: &[Datum]) -> Result<bool> {
    if index_no == 0 {
        return Ok(true);
    }
    let ix = &table.secondary[index_no - 1];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    encode_index_columns(&mut a, table, ix, row)?;
    encode_index_columns(&mut b, table, ix, existing)?;
    Ok(a == b)
}

pub(crate) async fn insert(
    trx: &mut TrxState,
    table: &Arc<TableDef>,
    row: Vec<Datum>,
    on_dup: OnDuplicate,
) -> Result<InsertOutcome> {
    trx.prepare_write(Some(table.id))?;
    let row_bytes = encode_table_row(table, &row)?;
    let pk_key = if table.has_hidden_pk() {
        keycodec::hidden_row_id_key(trx.sess.sh.next_row_id(table.id)?)
    } else {
        keycodec::primary_key(table, &row)?
    };
    let keys = row_keys(table, &row, pk_key)?;
    lock_row_key(trx, table, &keys.pk_key, LockMode::Exclusive).await?;
    lock_unique_values(trx, table, &row, keys.pk_key.len(), &keys.sec_keys, |_| true).await?;

    let mut deleted = 0usize;
    let mut resolved = false;
    for _ in 0..MAX_CONFLICT_RETRIES {
        let conflicts = find_conflicts(trx, table, &row, &keys)?;
        let Some((index_no, cpk)) = conflicts.first().cloned() else {
            resolved = true;
            break;
        };
        match on_dup {
            OnDuplicate::Error => return Err(dup_error(table, index_no, &row)),
            OnDuplicate::Report => {
                lock_row_key(trx, table, &cpk, LockMode::Exclusive).await?;
                if let Some((_, existing)) = latest_live(trx, table, &cpk)? {
                    if still_conflicts(table, index_no, &row, &existing)? {
                        return Ok(InsertOutcome::Duplicate { index: index_no, pk_key: cpk, existing });
                    }
                }
                // The conflicting row changed while we waited for it: look again.
            }
            OnDuplicate::Replace => {
                let mut seen: Vec<Vec<u8>> = Vec::new();
                for (_, cpk) in conflicts {
                    if seen.contains(&cpk) {
                        continue;
                    }
                    lock_row_key(trx, table, &cpk, LockMode::Exclusive).await?;
                    if delete_locked(trx, table, &cpk).await? {
                        deleted += 1;
                    }
                    seen.push(cpk);
                }
            }
        }
    }
    if !resolved {
        return Err(StorageError::Corruption("duplicate-key conflict kept changing".into()));
    }

    let pk_key = keys.pk_key.clone();
    trx.write_version(Target::of(&table.primary), &pk_key, &row_bytes, false, Expect::Free, || {
        dup_error(table, 0, &row)
    })?;
    for (ix, k) in table.secondary.iter().zip(&keys.sec_keys) {
        trx.write_version(Target::of(ix), k, &[], false, Expect::Any, unreachable_error)?;
    }
    trx.make_lock_implicit(table.primary.id, &pk_key);
    trx.note_row_delta(table.id, 1);
    SessionStats::bump(&trx.stats().rows_inserted, 1);
    Ok(if deleted > 0 { InsertOutcome::Replaced { pk_key, deleted } } else { InsertOutcome::Inserted { pk_key } })
}

fn unreachable_error() -> StorageError {
    StorageError::Corruption("unexpected index record state".into())
}

fn row_gone() -> StorageError {
    // The SQL layer locks a row with lock_row (which returns None for a vanished row) before
    // changing it; reaching this means it changed a row it had not locked.
    StorageError::Corruption("the row to change no longer exists (it must be locked with lock_row first)".into())
}

/// Deletes the latest version of a row whose clustered key the caller has X-locked. Returns
/// false if it no longer exists.
async fn delete_locked(trx: &mut TrxState, table: &Arc<TableDef>, pk_key: &[u8]) -> Result<bool> {
    let Some((cur, row)) = latest_live(trx, table, pk_key)? else { return Ok(false) };
    let keys = row_keys(table, &row, pk_key.to_vec())?;
    lock_unique_values(trx, table, &row, pk_key.len(), &keys.sec_keys, |_| true).await?;
    trx.write_version(Target::of(&table.primary), pk_key, &cur[HEADER_LEN..], true, Expect::Live, row_gone)?;
    for (ix, k) in table.secondary.iter().zip(&keys.sec_keys) {
        trx.write_version(Target::of(ix), k, &[], true, Expect::Any, unreachable_error)?;
    }
    trx.make_lock_implicit(table.primary.id, pk_key);
    trx.note_row_delta(table.id, -1);
    SessionStats::bump(&trx.stats().rows_deleted, 1);
    Ok(true)
}

pub(crate) async fn delete(trx: &mut TrxState, table: &Arc<TableDef>, pk_key: &[u8]) -> Result<()> {
    trx.prepare_write(Some(table.id))?;
    lock_row_key(trx, table, pk_key, LockMode::Exclusive).await?;
    if !delete_locked(trx, table, pk_key).await? {
        return Err(row_gone());
    }
    Ok(())
}

pub(crate) async fn update(
    trx: &mut TrxState,
    table: &Arc<TableDef>,
    pk_key: &[u8],
    new: Vec<Datum>,
) -> Result<Vec<u8>> {
    trx.prepare_write(Some(table.id))?;
    lock_row_key(trx, table, pk_key, LockMode::Exclusive).await?;
    // The stored row is authoritative for the old index entries.
    let Some((cur, old)) = latest_live(trx, table, pk_key)? else { return Err(row_gone()) };
    let new_bytes = encode_table_row(table, &new)?;
    let new_pk = if table.has_hidden_pk() { pk_key.to_vec() } else { keycodec::primary_key(table, &new)? };
    let old_keys = row_keys(table, &old, pk_key.to_vec())?;
    let new_keys = row_keys(table, &new, new_pk.clone())?;
    let pk_changed = new_pk != pk_key;
    let changed: Vec<bool> = old_keys.sec_keys.iter().zip(&new_keys.sec_keys).map(|(a, b)| a != b).collect();

    if pk_changed {
        lock_row_key(trx, table, &new_pk, LockMode::Exclusive).await?;
    }
    lock_unique_values(trx, table, &old, pk_key.len(), &old_keys.sec_keys, |i| changed[i]).await?;
    lock_unique_values(trx, table, &new, new_pk.len(), &new_keys.sec_keys, |i| changed[i]).await?;

    // Every check before the first change, so a failed UPDATE (IGNORE) changes nothing.
    if pk_changed {
        if let Some(v) = BTree::open(table.primary.root).get(&trx.sess.sh.store, &new_pk)? {
            if !RecHeader::parse(&v)?.deleted {
                return Err(dup_error(table, 0, &new));
            }
        }
    }
    for (i, ix) in table.secondary.iter().enumerate() {
        if !ix.unique || !changed[i] || keycodec::has_null_column(ix, &new) {
            continue;
        }
        let k = &new_keys.sec_keys[i];
        if !unique_conflicts(trx, ix, &k[..k.len() - new_pk.len()], Some(pk_key))?.is_empty() {
            return Err(dup_error(table, i + 1, &new));
        }
    }

    if pk_changed {
        trx.write_version(Target::of(&table.primary), pk_key, &cur[HEADER_LEN..], true, Expect::Live, row_gone)?;
        trx.write_version(Target::of(&table.primary), &new_pk, &new_bytes, false, Expect::Free, || {
            dup_error(table, 0, &new)
        })?;
    } else {
        trx.write_version(Target::of(&table.primary), pk_key, &new_bytes, false, Expect::Live, row_gone)?;
    }
    for (i, ix) in table.secondary.iter().enumerate() {
        if changed[i] {
            trx.write_version(Target::of(ix), &old_keys.sec_keys[i], &[], true, Expect::Any, unreachable_error)?;
            trx.write_version(Target::of(ix), &new_keys.sec_keys[i], &[], false, Expect::Any, unreachable_error)?;
        }
    }
    trx.make_lock_implicit(table.primary.id, pk_key);
    if pk_changed {
        trx.make_lock_implicit(table.primary.id, &new_pk);
    }
    SessionStats::bump(&trx.stats().rows_updated, 1);
    Ok(new_pk)
}

/// Clustered versions a secondary scan keeps resolved (beyond it, the cache starts over).
const RESOLVED_CACHE_MAX: usize = 4096;

/// A scan in progress (see `engine::Scan`).
pub(crate) struct ScanState {
    table: Arc<TableDef>,
    index_no: usize,
    mode: ReadMode,
    cursor: Option<BTreeCursor>,
    /// Secondary scans under an old snapshot: the clustered version each row resolved to. While
    /// a long snapshot keeps old entries alive, a hot row is met through one entry per value it
    /// held, and resolving its version chain each time would make the scan quadratic.
    resolved: HashMap<Vec<u8>, Option<Vec<u8>>>,
    /// The transaction's write count when `resolved` was filled (own writes change what it sees).
    resolved_at: u64,
    /// Secondary scans in Latest mode: clustered keys returned so far (a row whose indexed
    /// columns another transaction is changing is met through two entries; see the module doc).
    returned: HashSet<Vec<u8>>,
}

impl ScanState {
    pub(crate) fn open(
        trx: &mut TrxState,
        table: &Arc<TableDef>,
        index_no: usize,
        range: KeyRange,
        reverse: bool,
        mode: ReadMode,
    ) -> Result<ScanState> {
        trx.sess.sh.check_open()?;
        if index_no > table.secondary.len() {
            return Err(StorageError::NoSuchIndex { name: format!("#{index_no} of {}", table.name) });
        }
        let ix = index_at(table, index_no);
        let (lower, upper) = if index_no == 0 && table.has_hidden_pk() {
            (Bound::Unbounded, Bound::Unbounded)
        } else {
            keycodec::range_to_bytes(table, ix, &range)
        };
        if mode == ReadMode::Consistent {
            // The snapshot is taken by the first consistent read, whether or not it finds rows.
            trx.check_index_usable(table.primary.id)?;
            if index_no > 0 {
                trx.check_index_usable(ix.id)?;
            }
        }
        Ok(ScanState {
            table: table.clone(),
            index_no,
            mode,
            cursor: Some(BTree::open(ix.root).cursor(lower, upper, reverse)),
            resolved: HashMap::new(),
            resolved_at: 0,
            returned: HashSet::new(),
        })
    }

    pub(crate) fn next(&mut self, trx: &mut TrxState) -> Result<Option<ScanRow>> {
        trx.sess.sh.check_open()?;
        let table = self.table.clone();
        loop {
            let Some(cursor) = &mut self.cursor else { return Ok(None) };
            let Some((key, value)) = cursor.next(&trx.sess.sh.store)? else {
                self.cursor = None;
                return Ok(None);
            };
            let found = if self.index_no == 0 {
                self.clustered_row(trx, &table, key, value)?
            } else {
                self.secondary_row(trx, &table, key, value)?
            };
            if let Some(r) = found {
                SessionStats::bump(&trx.stats().rows_read, 1);
                return Ok(Some(r));
            }
        }
    }

    fn clustered_row(
        &self,
        trx: &mut TrxState,
        table: &TableDef,
        key: Vec<u8>,
        value: Vec<u8>,
    ) -> Result<Option<ScanRow>> {
        let Some(v) = read_visible(trx, table.primary.id, table.primary.root, &key, Some(value), self.mode)? else {
            return Ok(None);
        };
        Ok(Some(ScanRow { row: decode_payload(table, &v)?, pk_key: key }))
    }

    fn secondary_row(
        &mut self,
        trx: &mut TrxState,
        table: &TableDef,
        key: Vec<u8>,
        value: Vec<u8>,
    ) -> Result<Option<ScanRow>> {
        let ix = &table.secondary[self.index_no - 1];
        let h = RecHeader::parse(&value)?;
        let cols_len = keycodec::secondary_columns_len(table, ix, &key)?;
        let pk_key = &key[cols_len..];
        if h.deleted {
            if h.trx_id < trx.sess.sh.trx.startup_trx_id {
                trx.sess.sh.purge_queues.report_leftover(Leftover {
                    root: ix.root,
                    key: key.clone(),
                    trx_id: h.trx_id,
                });
                return Ok(None);
            }
            match self.mode {
                ReadMode::Latest => {
                    // Delete-marked by us or by a finished transaction: gone. By another active
                    // one: the row's committed version is a candidate if it has these values
                    // (the change may roll back; the caller's lock_row waits to find out).
                    if Some(h.trx_id) == trx.id() || !trx.sess.sh.trx.is_active(h.trx_id) {
                        return Ok(None);
                    }
                    return self.pending_delete_candidate(trx, table, ix, &key, cols_len);
                }
                // Deleted for every reader that sees the delete-marking transaction: the row's
                // version it sees no longer has these values.
                ReadMode::Consistent if trx.sees(h.trx_id) => return Ok(None),
                ReadMode::Consistent => {}
            }
        }
        // An entry written by a transaction this snapshot does not see means the row changed
        // after the snapshot: its version chain will be walked, so remember the outcome.
        let cache = self.mode == ReadMode::Consistent && !trx.sees(h.trx_id);
        let visible = if cache {
            if self.resolved_at != trx.write_count() || self.resolved.len() >= RESOLVED_CACHE_MAX {
                self.resolved.clear();
                self.resolved_at = trx.write_count();
            }
            match self.resolved.get(pk_key) {
                Some(v) => v.clone(),
                None => {
                    let v = read_visible(trx, table.primary.id, table.primary.root, pk_key, None, self.mode)?;
                    self.resolved.insert(pk_key.to_vec(), v.clone());
                    v
                }
            }
        } else {
            read_visible(trx, table.primary.id, table.primary.root, pk_key, None, self.mode)?
        };
        let Some(v) = visible else {
            return Ok(None);
        };
        let row = decode_payload(table, &v)?;
        let mut cols = Vec::with_capacity(cols_len);
        encode_index_columns(&mut cols, table, ix, &row)?;
        if cols != key[..cols_len] {
            return Ok(None);
        }
        if self.mode == ReadMode::Latest && !self.returned.insert(pk_key.to_vec()) {
            return Ok(None);
        }
        Ok(Some(ScanRow { pk_key: pk_key.to_vec(), row }))
    }

    /// Latest mode, an entry another active transaction delete-marked: the row with its newest
    /// committed contents, if those still carry the entry's column values.
    fn pending_delete_candidate(
        &mut self,
        trx: &mut TrxState,
        table: &TableDef,
        ix: &IndexDef,
        key: &[u8],
        cols_len: usize,
    ) -> Result<Option<ScanRow>> {
        let pk_key = &key[cols_len..];
        let tree = BTree::open(table.primary.root);
        for _ in 0..MAX_READ_RETRIES {
            let Some(latest) = tree.get(&trx.sess.sh.store, pk_key)? else { return Ok(None) };
            let committed = match trx.resolve_committed(table.primary.id, pk_key, latest)? {
                Resolved::Version(v) => v,
                Resolved::Absent => return Ok(None),
                Resolved::Retry => continue,
            };
            if RecHeader::parse(&committed)?.deleted {
                return Ok(None);
            }
            let row = decode_payload(table, &committed)?;
            let mut cols = Vec::with_capacity(cols_len);
            encode_index_columns(&mut cols, table, ix, &row)?;
            if cols != key[..cols_len] || !self.returned.insert(pk_key.to_vec()) {
                return Ok(None);
            }
            return Ok(Some(ScanRow { pk_key: pk_key.to_vec(), row }));
        }
        Err(StorageError::Corruption("record version chain kept changing under a reader".into()))
    }
}
