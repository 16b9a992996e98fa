//! ALTER TABLE in the engine (docs/architecture.md §4.9, "Instant ALTER" and "Table rebuild").
//!
//! Two ways, as InnoDB has them:
//! - `alter_table_instant`: metadata only, whatever the table size. Every row keeps its bytes;
//!   when the stored layout changes (a column added or dropped, columns reordered) the table's
//!   `row_versions` gain the old layout, and rows are read with the layout of the version they
//!   were written at (rowcodec.rs). Index trees are kept (or dropped whole).
//! - `rebuild_table`: new trees built from every row, converted by the caller's mapping; one
//!   catalog commit swaps the definition and hands the old trees to purge. The new trees are
//!   pending until that commit, so a crash at any moment leaves the old table or the new one.
//!   Readers go on throughout. Writers go on too when the caller asks for an online rebuild
//!   (MariaDB's LOCK=NONE): the copy reads the rows as of a read view, the keys writers change
//!   meanwhile are logged (crate::row_log) and re-read into the new trees by drains, the last
//!   one with the writers waiting for a moment. The log names rows by their old primary key;
//!   where the new table keys them otherwise (ADD PRIMARY KEY, a primary key on other columns),
//!   a key map (old key -> new key, a pending tree of its own) tells a drain where a row's
//!   stale copy lies. Otherwise writers wait for the whole copy (LOCK=SHARED).
//!
//! A rebuild writes the rows fresh at version 0 of the new definition: its row versions are
//! empty again.

use super::*;
use crate::row_log::RowLog;
use crate::trx::record::{self, Resolved};
use crate::trx::ReadView;

/// A rebuild reaches its crash point (`CrashPoint::TableRebuild`) after every this many rows.
const REBUILD_CRASH_POINT_EVERY: u64 = 500;

/// An online rebuild drains its row log while writers go on until the log holds fewer keys
/// than this, then blocks the writers for the last drain: the pause is about as long as
/// re-reading this many rows.
const FINAL_DRAIN_KEYS: usize = 1000;
/// Drains while writers go on, at most: writers faster than the drains must not keep the
/// rebuild from ending (the last drain then takes longer, with the writers waiting).
const MAX_ONLINE_DRAINS: usize = 8;
/// Reads of one record whose version chain keeps changing under the reader (as table.rs).
const MAX_READ_RETRIES: usize = 1000;

/// What a rebuild's copy produced.
#[derive(Default)]
struct Copied {
    rows: u64,
    /// Largest value of the AUTO_INCREMENT column in the new rows.
    max_auto_inc: u64,
    /// Hidden row ids handed out (a table without a primary key).
    row_ids: u64,
}

fn check_expected(t: &TableDef, expected: &TableDef) -> Result<()> {
    // The caller computed the change from `expected`: another DDL in between makes it stale.
    if t != expected {
        return Err(StorageError::TableDefinitionChanged);
    }
    Ok(())
}

fn auto_inc_value(d: &Datum) -> u64 {
    match d {
        Datum::Int(v) => (*v).max(0) as u64,
        Datum::UInt(v) => *v,
        Datum::Double(v) if *v > 0.0 => *v as u64,
        _ => 0,
    }
}

/// The row layouts after an instant change of `t` (see `InstantAlter`): unchanged when every
/// column stays at its place; otherwise the current layout becomes an old version, and every
/// old field is renumbered to the new columns.
fn versions_after(t: &TableDef, change: &InstantAlter) -> RowVersions {
    let identity =
        change.sources.len() == t.columns.len() && change.sources.iter().enumerate().all(|(j, s)| *s == Some(j));
    if identity {
        return t.row_versions.clone();
    }
    let mut new_position = vec![None; t.columns.len()];
    for (j, s) in change.sources.iter().enumerate() {
        if let Some(s) = s {
            new_position[*s] = Some(j);
        }
    }
    let renumber = |c: Option<usize>| c.and_then(|c| new_position[c]);
    let mut old: Vec<RowLayout> = t
        .row_versions
        .old
        .iter()
        .map(|l| RowLayout {
            fields: l.fields.iter().map(|f| RowField { ty: f.ty.clone(), column: renumber(f.column) }).collect(),
        })
        .collect();
    old.push(RowLayout {
        fields: t
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| RowField { ty: c.ty.clone(), column: new_position[i] })
            .collect(),
    });
    let mut added: Vec<(usize, Datum)> =
        t.row_versions.added.iter().filter_map(|(c, d)| new_position[*c].map(|j| (j, d.clone()))).collect();
    for (j, s) in change.sources.iter().enumerate() {
        if s.is_none() {
            added.push((j, change.added[j].clone()));
        }
    }
    RowVersions { old, added }
}

/// The primary key of `row` in the new table: its key columns, or the next hidden row id.
fn new_row_key(new: &TableDef, row: &[Datum], copied: &mut Copied) -> Result<Vec<u8>> {
    if new.has_hidden_pk() {
        copied.row_ids += 1;
        return Ok(keycodec::hidden_row_id_key(copied.row_ids));
    }
    keycodec::primary_key(new, row)
}

/// `cols` (new numbering) index what `old` (old numbering) indexed.
fn same_index_columns(sources: &[Option<usize>], old: &[IndexColumn], cols: &[IndexColumn]) -> bool {
    old.len() == cols.len()
        && old
            .iter()
            .zip(cols)
            .all(|(o, n)| sources.get(n.column) == Some(&Some(o.column)) && o.prefix_len == n.prefix_len)
}

/// Whether every row of `t` keeps its primary key bytes in `new`: then an online rebuild finds
/// the row a writer changed under the key the row log names; otherwise it needs a `KeyMap`.
/// Columns are matched by name (a renamed key column takes the key map: slower, still right).
fn keeps_primary_keys(t: &TableDef, new: &TableRebuild) -> bool {
    !t.has_hidden_pk()
        && keycodec::keys_survive_rebuild(t, &t.primary)
        && t.primary.columns.len() == new.primary_key.len()
        && t.primary.columns.iter().zip(&new.primary_key).all(|(o, n)| {
            let (was, now) = (&t.columns[o.column], &new.columns[n.column]);
            was.name.eq_ignore_ascii_case(&now.name)
                && was.ty == now.ty
                && was.collation == now.collation
                && o.prefix_len == n.prefix_len
        })
}

/// Where each row of an online rebuild that changes the primary key lies in the new table: a
/// tree of old primary key -> new primary key, written by the copy and the drains. It is a
/// pending tree from start to end (freed after the rebuild, or at the next open after a crash);
/// its entries are plain page changes like the new trees'. On disk rather than in memory: it
/// has an entry per row.
struct KeyMap {
    root: PageId,
}

impl KeyMap {
    fn put(&self, store: &PageStore, old_key: &[u8], new_key: &[u8]) -> Result<Lsn> {
        let mut mtr = Mtr::new(store);
        BTree::open(self.root).modify(&mut mtr, old_key, |_| (Change::Put(new_key.to_vec()), ()))?;
        Ok(mtr.commit().1)
    }

    /// Removes the entry of `old_key`; returns the new key it held.
    fn take(&self, store: &PageStore, old_key: &[u8]) -> Result<Option<Vec<u8>>> {
        let mut mtr = Mtr::new(store);
        let new_key = BTree::open(self.root).modify(&mut mtr, old_key, |cur| match cur {
            Some(v) => (Change::Remove, Some(v.to_vec())),
            None => (Change::Keep, None),
        })?;
        mtr.commit();
        Ok(new_key)
    }
}

impl Engine {
    /// ALTER TABLE that changes only metadata (see `InstantAlter`): columns renamed, added,
    /// dropped or reordered, defaults, comments, a wider VARCHAR, table options, secondary
    /// indexes renamed or dropped. Waits, as DROP INDEX does, for the open transactions that
    /// changed the table and for running statements; then one catalog commit. `expected` is the
    /// definition the change was computed from (1412 if another DDL changed it since).
    pub async fn alter_table_instant(
        &self,
        db: &str,
        table: &str,
        expected: &TableDef,
        change: InstantAlter,
    ) -> Result<()> {
        self.check_ddl()?;
        let ddl = self.sh.ddl.lock().await;
        let Some(t) = self.catalog().table(db, table).cloned() else {
            return Err(StorageError::NoSuchTable { db: db.to_string(), name: table.to_string() });
        };
        check_expected(&t, expected)?;
        let n = change.columns.len();
        if n == 0 || change.sources.len() != n || change.added.len() != n {
            return Err(bad_definition("instant ALTER: one source and one value per column".into()));
        }
        let mut seen = vec![false; t.columns.len()];
        for (j, s) in change.sources.iter().enumerate() {
            let Some(s) = *s else { continue };
            if s >= t.columns.len() || std::mem::replace(&mut seen[s], true) {
                return Err(bad_definition(format!("instant ALTER: column #{j} has a bad source")));
            }
            if !rowcodec::same_encoding(&t.columns[s].ty, &change.columns[j].ty) {
                return Err(StorageError::NotSupported(format!(
                    "changing the type of `{}` without copying the table",
                    t.columns[s].name
                )));
            }
        }
        if !same_index_columns(&change.sources, &t.primary.columns, &change.primary_key) {
            return Err(StorageError::NotSupported("changing the primary key without copying the table".into()));
        }
        let mut def = TableDef::clone(&t);
        def.secondary.clear();
        let mut names: Vec<&str> = vec![&t.primary.name];
        for (old_name, new_name, cols) in &change.kept_indexes {
            let Some(old) = t.secondary.iter().find(|i| i.name.eq_ignore_ascii_case(old_name)) else {
                return Err(StorageError::NoSuchIndex { name: old_name.clone() });
            };
            if !same_index_columns(&change.sources, &old.columns, cols) {
                return Err(StorageError::NotSupported(format!("changing index `{old_name}` without rebuilding it")));
            }
            if names.iter().any(|n| n.eq_ignore_ascii_case(new_name)) {
                return Err(StorageError::IndexExists { name: new_name.clone() });
            }
            names.push(new_name);
            let mut ix = old.clone();
            ix.name = new_name.clone();
            ix.columns = cols.clone();
            def.secondary.push(ix);
        }
        let dropped: Vec<PageId> =
            t.secondary.iter().filter(|i| !def.secondary.iter().any(|k| k.id == i.id)).map(|i| i.root).collect();
        def.row_versions = versions_after(&t, &change);
        def.columns = change.columns;
        def.primary.columns = change.primary_key;
        def.options = change.options;
        if let Some(c) = change.constraints {
            def.constraints = c;
        }
        for ix in def.indexes() {
            validate_index(&def.columns, &ix.name, &ix.columns)?;
        }
        let def = Arc::new(def);
        // Statements bound to the old definition (which could not read rows of the new layout)
        // end first, as do transactions that changed the table (MariaDB's metadata lock).
        let _barrier = self.exclusive(&[t.id], ddl.slot).await?;
        let mut trx = self.ddl_trx(ddl.slot);
        self.catalog_write(&mut trx, &catalog::table_key(t.id), &catalog::encode_table(&def), false, Expect::Live)?;
        self.ddl_commit(trx, &[], &[], &dropped, || {})?;
        self.edit_catalog(|_, ts| {
            ts.insert((db.to_string(), table.to_string()), def);
        });
        if !dropped.is_empty() {
            self.free_trees_later(dropped);
        }
        Ok(())
    }

    /// ALTER TABLE that copies the table: builds `new`'s trees from the latest committed version
    /// of every row, each converted by `map` (old columns in, new columns out; its error aborts
    /// the ALTER and leaves the table as it was), and swaps them in with one catalog commit.
    /// Reads and other tables go on meanwhile; writers of the table go on too if `new.online`
    /// (the caller vouches that `map` may run again on rows changed meanwhile), else they wait
    /// (`block_writes`, MariaDB's LOCK=SHARED). Fails with DuplicateKey if the
    /// rows violate a new unique key. Returns the number of rows the new table holds.
    /// `expected` as for `alter_table_instant`.
    pub async fn rebuild_table<E: From<StorageError>>(
        &self,
        db: &str,
        table: &str,
        expected: &TableDef,
        new: TableRebuild,
        mut map: impl FnMut(Vec<Datum>) -> std::result::Result<Vec<Datum>, E>,
    ) -> std::result::Result<u64, E> {
        self.check_ddl()?;
        let mut ddl = self.sh.ddl.lock().await;
        let Some(t) = self.catalog().table(db, table).cloned() else {
            return Err(StorageError::NoSuchTable { db: db.to_string(), name: table.to_string() }.into());
        };
        check_expected(&t, expected)?;
        if new.columns.is_empty() {
            return Err(bad_definition("a table needs a column".into()).into());
        }
        validate_index(&new.columns, "PRIMARY", &new.primary_key)?;
        let mut names: Vec<&str> = vec![if new.primary_key.is_empty() { HIDDEN_PRIMARY_NAME } else { "PRIMARY" }];
        for ix in &new.indexes {
            validate_index(&new.columns, &ix.name, &ix.columns)?;
            if names.iter().any(|n| n.eq_ignore_ascii_case(&ix.name)) {
                return Err(StorageError::IndexExists { name: ix.name.clone() }.into());
            }
            names.push(&ix.name);
        }
        let online = new.online;
        let rekeyed = online && !keeps_primary_keys(&t, &new);
        let mut writes = Some(self.block_writes(t.id, ddl.slot).await?);
        // Pending from here: a crash before the commit frees them at the next open. The key map
        // stays pending to the end and is freed in any case.
        let trees = 1 + new.indexes.len();
        let mut roots = self.sh.pending_trees.create_trees(&self.sh.store, trees + usize::from(rekeyed))?;
        let key_map = rekeyed.then(|| KeyMap { root: roots.pop().expect("the key map's tree") });
        let rebuilt = self.rebuild_into(&mut ddl, &t, new, &roots, key_map.as_ref(), &mut writes, &mut map).await;
        if let Some(key_map) = key_map {
            blocking::run(|| self.sh.pending_trees.free_now(&self.sh.store, &[key_map.root]));
        }
        let (def, rows) = rebuilt?;
        // The old trees are freed: statements still reading them must end first.
        let _barrier = self.barrier_all().await;
        self.edit_catalog(|_, ts| {
            ts.insert((db.to_string(), table.to_string()), def);
        });
        self.free_trees_later(all_roots(&t));
        Ok(rows)
    }

    /// `rebuild_table` from its new (pending) trees `roots` on: the copy and the commit. Frees
    /// `roots` if it fails. Returns the new definition and the number of rows.
    #[allow(clippy::too_many_arguments)]
    async fn rebuild_into<E: From<StorageError>>(
        &self,
        ddl: &mut DdlState,
        t: &Arc<TableDef>,
        new: TableRebuild,
        roots: &[PageId],
        key_map: Option<&KeyMap>,
        writes: &mut Option<TableWriteBlock>,
        map: &mut impl FnMut(Vec<Datum>) -> std::result::Result<Vec<Datum>, E>,
    ) -> std::result::Result<(Arc<TableDef>, u64), E> {
        let online = new.online;
        let names: Vec<&str> =
            std::iter::once(if new.primary_key.is_empty() { HIDDEN_PRIMARY_NAME } else { "PRIMARY" })
                .chain(new.indexes.iter().map(|ix| ix.name.as_str()))
                .collect();
        let mut counters = ddl.counters;
        let mut next_index = || {
            let id = counters.next_index_id;
            counters.next_index_id += 1;
            id
        };
        let primary = IndexDef {
            id: next_index(),
            name: names[0].to_string(),
            columns: new.primary_key.clone(),
            unique: true,
            primary: true,
            root: roots[0],
        };
        let secondary = new
            .indexes
            .iter()
            .zip(&roots[1..])
            .map(|(ix, &root)| IndexDef {
                id: next_index(),
                name: ix.name.clone(),
                columns: ix.columns.clone(),
                unique: ix.unique,
                primary: false,
                root,
            })
            .collect();
        let def = Arc::new(TableDef {
            id: t.id,
            db: t.db.clone(),
            name: t.name.clone(),
            columns: new.columns,
            primary,
            secondary,
            // The rebuild writes every index anew, in the current key format.
            options: TableOptions { key_format: KEY_FORMAT_CURRENT, ..new.options },
            row_versions: RowVersions::default(),
            constraints: new.constraints.unwrap_or_else(|| t.constraints.clone()),
        });
        let copied = if online {
            self.copy_online(t, &def, map, key_map, writes, ddl.slot).await
        } else {
            blocking::run(|| self.copy_rows(t, &def, map, None, None))
        };
        let copied = match copied {
            Ok(c) => c,
            Err(e) => {
                blocking::run(|| self.sh.pending_trees.free_now(&self.sh.store, roots));
                return Err(e);
            }
        };
        let current = self.sh.registry.with(t.id, |rt| rt.peek_auto_inc()).unwrap_or(1);
        let auto_inc = match new.auto_increment {
            Some(n) => n.max(1),
            None => current,
        };
        let auto_inc =
            if def.auto_increment_column().is_some() { auto_inc.max(copied.max_auto_inc + 1) } else { auto_inc };
        let mut trx = self.ddl_trx(ddl.slot);
        let written = self
            .catalog_write(&mut trx, &catalog::table_key(t.id), &catalog::encode_table(&def), false, Expect::Live)
            .and_then(|_| self.write_counters(&mut trx, &counters));
        if let Err(e) = written {
            drop(trx);
            blocking::run(|| self.sh.pending_trees.free_now(&self.sh.store, roots));
            return Err(e.into());
        }
        let trx_id = trx.id().expect("wrote catalog records");
        let reset = LogRecord::AutoIncReset { trx_id, table_id: t.id, next: auto_inc };
        let ddl_id = self.ddl_commit(trx, &[reset], roots, &all_roots(t), || {
            self.sh.registry.with(t.id, |rt| {
                rt.reset_auto_inc(auto_inc);
                if def.has_hidden_pk() {
                    rt.reset_row_id(copied.row_ids + 1);
                }
            });
        })?;
        ddl.counters = counters;
        // Snapshots older than the rebuild cannot read the new trees (1412), as on MariaDB.
        self.sh.note_indexes_created(ddl_id, def.indexes().map(|i| i.id));
        Ok((def, copied.rows))
    }

    /// The copy of an online rebuild. Called with the table's writers blocked (`writes`): no
    /// transaction that changed the table is open, so a read view opened now sees every change
    /// made so far, and the row log started now gets the keys of every later one. Lets the
    /// writers go, copies the rows as that view sees them, drains the log while they go on,
    /// and blocks them again (`writes` is set again on success) for the last drain.
    async fn copy_online<E: From<StorageError>>(
        &self,
        old: &TableDef,
        new: &TableDef,
        map: &mut impl FnMut(Vec<Datum>) -> std::result::Result<Vec<Datum>, E>,
        key_map: Option<&KeyMap>,
        writes: &mut Option<TableWriteBlock>,
        slot: usize,
    ) -> std::result::Result<Copied, E> {
        let log = self.sh.row_logs.start(old.primary.id, &old.primary.name);
        let view = self.sh.trx.open_view(slot, None);
        *writes = None;
        let copied = blocking::run(|| self.copy_rows(old, new, map, Some(&view), key_map));
        self.sh.trx.close_view(slot);
        let mut copied = copied?;
        for _ in 0..MAX_ONLINE_DRAINS {
            if log.log.len() < FINAL_DRAIN_KEYS {
                break;
            }
            let keys = log.log.take()?;
            blocking::run(|| self.drain_row_log(old, new, map, key_map, keys, &mut copied, slot, Some(&log.log)))?;
        }
        *writes = Some(self.block_writes(old.id, slot).await?);
        // Every writer of the table has ended and handed its keys over.
        let keys = log.log.take()?;
        blocking::run(|| self.drain_row_log(old, new, map, key_map, keys, &mut copied, slot, None))?;
        Ok(copied)
    }

    /// The build of an online CREATE INDEX (`create_index_online`), called with the table's
    /// writers blocked, as `copy_online`: starts the row log, opens the build's read view and
    /// lets the writers go; fills the tree from the rows as that view sees them, drains while
    /// the writers go on, and blocks them again (`writes`) for the last drain. The build's view
    /// stays open to the end, on a session slot of its own: a drain removes the entry the fill
    /// made for a row, and computes it from the row as that view sees it.
    pub(super) async fn build_index_online(
        &self,
        t: &TableDef,
        ix: &IndexDef,
        writes: &mut Option<TableWriteBlock>,
        slot: usize,
    ) -> Result<()> {
        let log = self.sh.row_logs.start(t.primary.id, &ix.name);
        let build_slot = self.register_session()?;
        let view = self.sh.trx.open_view(build_slot.lease.index, None);
        *writes = None;
        let built = async {
            blocking::run(|| self.build_index(t, ix, Some(&view)))?;
            // The entry each drained key has in the tree now (None: none).
            let mut applied: HashMap<Vec<u8>, Option<Vec<u8>>> = HashMap::new();
            for _ in 0..MAX_ONLINE_DRAINS {
                if log.log.len() < FINAL_DRAIN_KEYS {
                    break;
                }
                let keys = log.log.take()?;
                blocking::run(|| self.drain_into_index(t, ix, &view, keys, &mut applied, slot, Some(&log.log)))?;
            }
            *writes = Some(self.block_writes(t.id, slot).await?);
            let keys = log.log.take()?;
            blocking::run(|| self.drain_into_index(t, ix, &view, keys, &mut applied, slot, None))
        }
        .await;
        self.sh.trx.close_view(build_slot.lease.index);
        built
    }

    /// `drain_row_log` for an index build: the entries of the rows of `keys` are removed (as
    /// `applied` says, or as the build's view `build_view` saw the row) and made again from the
    /// rows a fresh view sees.
    #[allow(clippy::too_many_arguments)]
    fn drain_into_index(
        &self,
        t: &TableDef,
        ix: &IndexDef,
        build_view: &ReadView,
        keys: Vec<Vec<u8>>,
        applied: &mut HashMap<Vec<u8>, Option<Vec<u8>>>,
        slot: usize,
        requeue: Option<&RowLog>,
    ) -> Result<()> {
        let store = &self.sh.store;
        let tree = BTree::open(ix.root);
        let view = self.sh.trx.open_view(slot, None);
        let drained = (|| {
            for key in &keys {
                let entry = match applied.get(key) {
                    Some(entry) => entry.clone(),
                    None => match self.row_as_of(t, build_view, key, None)? {
                        Some(row) => Some(keycodec::secondary_key(t, ix, &row, key)?),
                        None => None,
                    },
                };
                if let Some(entry) = entry {
                    let mut mtr = Mtr::new(store);
                    tree.modify(&mut mtr, &entry, |cur| {
                        (if cur.is_some() { Change::Remove } else { Change::Keep }, ())
                    })?;
                    mtr.commit();
                }
                applied.insert(key.clone(), None);
            }
            let mut again = Vec::new();
            let visible = RecHeader { trx_id: VISIBLE_TO_ALL_TRX_ID, roll_ptr: NO_ROLL_PTR, deleted: false }.to_vec();
            for key in keys {
                let Some(row) = self.row_as_of(t, &view, &key, None)? else { continue };
                let entry = keycodec::secondary_key(t, ix, &row, &key)?;
                if entry.len() > MAX_KEY_LEN {
                    return Err(StorageError::KeyTooLong { max: MAX_KEY_LEN });
                }
                if ix.unique
                    && !keycodec::has_null_column(ix, &row)
                    && super::unique_holder(store, &tree, &entry, &key)?.is_some()
                {
                    if requeue.is_some() {
                        again.push(key);
                        continue;
                    }
                    let key = keycodec::format_key_value(t, ix, &row);
                    return Err(StorageError::DuplicateKey { index: ix.name.clone(), key });
                }
                let mut mtr = Mtr::new(store);
                let v = visible.clone();
                tree.modify(&mut mtr, &entry, |_| (Change::Put(v), ()))?;
                mtr.commit();
                applied.insert(key, Some(entry));
            }
            if let Some(log) = requeue {
                log.requeue(again);
            }
            Ok(())
        })();
        self.sh.trx.close_view(slot);
        drained
    }

    /// Applies the rows of `keys` (old primary keys) as a fresh read view sees them: each is
    /// removed from the new trees (where `key_map` says, or under the same key), then written
    /// again if it is live.
    /// Removing them all first keeps a unique key from failing on a value that moved between
    /// two rows of the batch. A unique key that still fails while writers go on may be passing
    /// (a row of the next batch gives the value up): with `requeue` the key goes back to the
    /// log for the next drain; in the last drain (None) it is a real duplicate.
    #[allow(clippy::too_many_arguments)]
    fn drain_row_log<E: From<StorageError>>(
        &self,
        old: &TableDef,
        new: &TableDef,
        map: &mut impl FnMut(Vec<Datum>) -> std::result::Result<Vec<Datum>, E>,
        key_map: Option<&KeyMap>,
        keys: Vec<Vec<u8>>,
        copied: &mut Copied,
        slot: usize,
        requeue: Option<&RowLog>,
    ) -> std::result::Result<(), E> {
        let store = &self.sh.store;
        let view = self.sh.trx.open_view(slot, None);
        let drained = (|| {
            for key in &keys {
                let at = match key_map {
                    Some(key_map) => key_map.take(store, key)?,
                    None => Some(key.clone()),
                };
                if let Some(at) = at {
                    if self.remove_new_row(new, &at)? {
                        copied.rows -= 1;
                    }
                }
            }
            let mut again = Vec::new();
            for key in keys {
                let Some(row) = self.row_as_of(old, &view, &key, None)? else { continue };
                let row = map(row)?;
                // Under the same key, the slot is free (removed above); under a new one, another
                // row may hold it: a duplicate then, not a replacement.
                let (new_key, replace) = match key_map {
                    Some(_) => (new_row_key(new, &row, copied)?, false),
                    None => (key.clone(), true),
                };
                match self.put_new_row(new, &new_key, &row, copied, replace) {
                    Ok(_) => {
                        if let Some(key_map) = key_map {
                            key_map.put(store, &key, &new_key)?;
                        }
                    }
                    Err(StorageError::DuplicateKey { .. }) if requeue.is_some() => again.push(key),
                    Err(e) => return Err(e.into()),
                }
            }
            if let Some(log) = requeue {
                log.requeue(again);
            }
            Ok(())
        })();
        self.sh.trx.close_view(slot);
        drained
    }

    /// The version of the row under `key` that `view` sees, decoded (None: it has none, or it
    /// is deleted). `latest`: the record as just read from the tree, if the caller has it.
    pub(super) fn row_as_of(
        &self,
        t: &TableDef,
        view: &ReadView,
        key: &[u8],
        mut latest: Option<Vec<u8>>,
    ) -> Result<Option<Vec<Datum>>> {
        let store = &self.sh.store;
        let tree = BTree::open(t.primary.root);
        for _ in 0..MAX_READ_RETRIES {
            let value = match latest.take() {
                Some(v) => v,
                None => match tree.get(store, key)? {
                    Some(v) => v,
                    None => return Ok(None),
                },
            };
            match record::resolve(store, view, None, t.primary.id, key, value)? {
                Resolved::Version(v) => {
                    if RecHeader::parse(&v)?.deleted {
                        return Ok(None);
                    }
                    return Ok(Some(rowcodec::decode_table_row(t, &v[HEADER_LEN..])?));
                }
                Resolved::Absent => return Ok(None),
                // Purge removed the version chain under us: read the record again.
                Resolved::Retry => {}
            }
        }
        Err(StorageError::Corruption("record version chain kept changing under a table rebuild".into()))
    }

    /// Fills the empty, unreachable trees of `new` from every row of `old`, in the old primary
    /// key's order, stamped visible to all and logged as plain page changes (as `build_index`).
    /// The rows as `view` sees them, or (None) their latest versions, all committed since the
    /// table's writers wait (`block_writes`). Each row's new key goes into `key_map` if there
    /// is one; without, an online copy (`view`) must keep every key. Synchronous.
    fn copy_rows<E: From<StorageError>>(
        &self,
        old: &TableDef,
        new: &TableDef,
        map: &mut impl FnMut(Vec<Datum>) -> std::result::Result<Vec<Datum>, E>,
        view: Option<&ReadView>,
        key_map: Option<&KeyMap>,
    ) -> std::result::Result<Copied, E> {
        let store = &self.sh.store;
        let mut copied = Copied::default();
        let mut cursor = BTree::open(old.primary.root).cursor(Bound::Unbounded, Bound::Unbounded, false);
        while let Some((old_key, value)) = cursor.next(store)? {
            let row = match view {
                Some(view) => match self.row_as_of(old, view, &old_key, Some(value))? {
                    Some(row) => row,
                    None => continue,
                },
                None => {
                    if RecHeader::parse(&value)?.deleted {
                        continue;
                    }
                    rowcodec::decode_table_row(old, &value[HEADER_LEN..])?
                }
            };
            let row = map(row)?;
            if row.len() != new.columns.len() {
                return Err(bad_definition(format!("mapped row has {} values", row.len())).into());
            }
            let pk_key = new_row_key(new, &row, &mut copied)?;
            if view.is_some() && key_map.is_none() && pk_key != old_key {
                // The row log names rows by their old key: without a key map, an online
                // rebuild must keep it.
                return Err(bad_definition("an online rebuild changed a primary key".into()).into());
            }
            let mut end = self.put_new_row(new, &pk_key, &row, &mut copied, false)?;
            if let Some(key_map) = key_map {
                end = key_map.put(store, &old_key, &pk_key)?;
            }
            if copied.rows.is_multiple_of(REBUILD_CRASH_POINT_EVERY) {
                while self.sh.index_builds_held.load(Ordering::Relaxed) && !self.sh.is_closed() {
                    std::thread::sleep(Duration::from_millis(1));
                }
                if self.sh.crash_points.is_armed(CrashPoint::TableRebuild) {
                    // Crash test: the partial trees reach the disk, so that only the pending-tree
                    // records can give their pages back.
                    store.wal().flush_to(end)?;
                }
                self.sh.crash_points.hit(CrashPoint::TableRebuild)?;
            }
        }
        Ok(copied)
    }

    /// Writes one row into the new trees (`pk_key` free in the primary tree unless `replace`),
    /// after checking its unique keys, so that a duplicate changes nothing. Counts it in `copied`.
    /// Returns the end of its log entries.
    fn put_new_row(
        &self,
        new: &TableDef,
        pk_key: &[u8],
        row: &[Datum],
        copied: &mut Copied,
        replace: bool,
    ) -> Result<Lsn> {
        let store = &self.sh.store;
        if row.len() != new.columns.len() {
            return Err(bad_definition(format!("mapped row has {} values", row.len())));
        }
        if pk_key.len() > MAX_KEY_LEN {
            return Err(StorageError::KeyTooLong { max: MAX_KEY_LEN });
        }
        let mut secondary = Vec::with_capacity(new.secondary.len());
        for ix in &new.secondary {
            let key = keycodec::secondary_key(new, ix, row, pk_key)?;
            if key.len() > MAX_KEY_LEN {
                return Err(StorageError::KeyTooLong { max: MAX_KEY_LEN });
            }
            let tree = BTree::open(ix.root);
            if ix.unique && !keycodec::has_null_column(ix, row) {
                if let Some(holder) = super::unique_holder(store, &tree, &key, pk_key)? {
                    let shown = super::indexed_row(store, new, &holder)?;
                    let key = keycodec::format_key_value(new, ix, shown.as_deref().unwrap_or(row));
                    return Err(StorageError::DuplicateKey { index: ix.name.clone(), key });
                }
            }
            secondary.push((tree, key));
        }
        let visible = RecHeader { trx_id: VISIBLE_TO_ALL_TRX_ID, roll_ptr: NO_ROLL_PTR, deleted: false }.to_vec();
        let mut v = visible.clone();
        v.extend_from_slice(&rowcodec::encode_table_row(new, row)?);
        let mut mtr = Mtr::new(store);
        let duplicate = BTree::open(new.primary.root).modify(&mut mtr, pk_key, |cur| match cur {
            Some(_) if !replace => (Change::Keep, true),
            _ => (Change::Put(v), false),
        })?;
        let mut end = mtr.commit().1;
        if duplicate {
            let key = keycodec::format_key_value(new, &new.primary, row);
            return Err(StorageError::DuplicateKey { index: new.primary.name.clone(), key });
        }
        for (tree, key) in secondary {
            let mut mtr = Mtr::new(store);
            let entry = visible.clone();
            tree.modify(&mut mtr, &key, |_| (Change::Put(entry), ()))?;
            end = mtr.commit().1;
        }
        copied.rows += 1;
        if let Some(a) = new.auto_increment_column() {
            copied.max_auto_inc = copied.max_auto_inc.max(auto_inc_value(&row[a]));
        }
        Ok(end)
    }

    /// Removes the row under `pk_key` and its index entries from the new trees. Returns whether
    /// there was one.
    fn remove_new_row(&self, new: &TableDef, pk_key: &[u8]) -> Result<bool> {
        let store = &self.sh.store;
        let primary = BTree::open(new.primary.root);
        let Some(value) = primary.get(store, pk_key)? else { return Ok(false) };
        let row = rowcodec::decode_table_row(new, &value[HEADER_LEN..])?;
        for ix in &new.secondary {
            let key = keycodec::secondary_key(new, ix, &row, pk_key)?;
            let mut mtr = Mtr::new(store);
            BTree::open(ix.root)
                .modify(&mut mtr, &key, |cur| (if cur.is_some() { Change::Remove } else { Change::Keep }, ()))?;
            mtr.commit();
        }
        let mut mtr = Mtr::new(store);
        primary.modify(&mut mtr, pk_key, |_| (Change::Remove, ()))?;
        mtr.commit();
        Ok(true)
    }

    /// ALTER TABLE ... AUTO_INCREMENT = n: the next value becomes n, or one past the largest
    /// value the AUTO_INCREMENT column holds if that is more (as InnoDB does). Logged and
    /// durable like any DDL.
    pub async fn set_auto_increment(&self, db: &str, table: &str, next: u64) -> Result<()> {
        self.check_ddl()?;
        let ddl = self.sh.ddl.lock().await;
        let Some(t) = self.catalog().table(db, table).cloned() else {
            return Err(StorageError::NoSuchTable { db: db.to_string(), name: table.to_string() });
        };
        let _barrier = self.exclusive(&[t.id], ddl.slot).await?;
        let mut next = next.max(1);
        if let Some(a) = t.auto_increment_column() {
            let max = blocking::run(|| -> Result<u64> {
                let mut cursor = BTree::open(t.primary.root).cursor(Bound::Unbounded, Bound::Unbounded, false);
                let mut max = 0;
                while let Some((_, value)) = cursor.next(&self.sh.store)? {
                    if !RecHeader::parse(&value)?.deleted {
                        max = max.max(auto_inc_value(&rowcodec::decode_table_row(&t, &value[HEADER_LEN..])?[a]));
                    }
                }
                Ok(max)
            })?;
            next = next.max(max.saturating_add(1));
        }
        let mut trx = self.ddl_trx(ddl.slot);
        // The unchanged table record gives the DDL transaction its id for the log record.
        self.catalog_write(&mut trx, &catalog::table_key(t.id), &catalog::encode_table(&t), false, Expect::Live)?;
        let trx_id = trx.id().expect("wrote a catalog record");
        let reset = LogRecord::AutoIncReset { trx_id, table_id: t.id, next };
        self.ddl_commit(trx, &[reset], &[], &[], || {
            self.sh.registry.with(t.id, |rt| rt.reset_auto_inc(next));
        })?;
        Ok(())
    }
}
