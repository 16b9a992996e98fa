//! Trees waiting to be freed, tracked so that a crash never leaks their pages (docs/architecture.md
//! §4.9).
//!
//! A tree is *pending* from the mtr that creates it for a DDL until that DDL commits (the catalog
//! then owns it), and from the commit of a DDL that drops it until purge has freed it. Each change
//! is logged in the very mtr that makes it happen: `TreesToFree` with the tree's creation and in
//! the commit of a dropping DDL, `TreesSettled` in the commit of the DDL that adopts new trees and
//! in the mtr that frees a tree's root. Recovery folds these records into the set of trees still
//! pending (an interrupted index build, a CREATE TABLE or TRUNCATE that never committed, dropped
//! trees purge had not freed) and hands them to purge.
//!
//! The log before a checkpoint's scan start is deleted, so every checkpoint re-logs the whole set
//! (`PendingTrees`, if it is not empty) after the LSN it holds the scan start at.
//!
//! Ordering: every record about pending trees is appended while holding `set`'s mutex, and the set
//! changes under it, so the records' log order is the order of the changes and a snapshot is
//! exactly the set at its position in the log. Lock order: `Registry::persist_lock` (DDL commit,
//! checkpoint), then this mutex, then page latches (the mutex is taken before the mtr starts).
//!
//! Freeing is restartable (`BTree::strip`): a crash in the middle of it continues at the next open.
//!
//! Pending *chains* ride on the same records: a value larger than 4 MiB is written to its overflow
//! chain ahead of the mtr that links it into its leaf (`btree::overflow::write_chain_ahead`), in
//! many mtrs, and its first page is pending from the first of them until the leaf's mtr, which
//! logs it settled. A "root" that is an overflow page is such a chain: freeing it frees the pages
//! linked from it. Chains have a mutex of their own (`chains`), held only around the append of
//! an mtr that carries their records (never while waiting for a latch: those mtrs hold their
//! latches already), so that a row writer holding its leaf never waits for a DDL or purge that
//! holds `set` and waits for a page. The checkpoint's snapshot takes `set`, then `chains`, and
//! logs both sets in one record.

use std::collections::BTreeSet;

use parking_lot::Mutex;

use crate::btree::{overflow, BTree};
use crate::buffer::{PageId, PageStore};
use crate::error::Result;
use crate::mtr::Mtr;
use crate::trx::logrec::LogRecord;
use crate::wal::Lsn;

#[derive(Default)]
pub struct PendingTrees {
    set: Mutex<BTreeSet<PageId>>,
    /// First pages of the chains being written ahead of their rows (see the module doc).
    chains: Mutex<BTreeSet<PageId>>,
}

impl PendingTrees {
    /// The set recovery found (trees still to free).
    pub fn new(recovered: impl IntoIterator<Item = PageId>) -> PendingTrees {
        PendingTrees { set: Mutex::new(recovered.into_iter().collect()), chains: Mutex::default() }
    }

    /// Creates `n` empty trees for a DDL, each in an mtr that also logs it pending: if the DDL
    /// does not commit (error, crash), the tree is freed. On error the trees created so far are
    /// freed before returning.
    pub fn create_trees(&self, store: &PageStore, n: usize) -> Result<Vec<PageId>> {
        let mut roots = Vec::with_capacity(n);
        for _ in 0..n {
            let created = {
                let mut set = self.set.lock();
                let mut mtr = Mtr::new(store);
                let created = BTree::create(&mut mtr);
                if let Ok(t) = &created {
                    mtr.log_logical(&LogRecord::TreesToFree { roots: vec![t.root] }.encode());
                }
                mtr.commit();
                if let Ok(t) = &created {
                    set.insert(t.root);
                }
                created
            };
            match created {
                Ok(t) => roots.push(t.root),
                Err(e) => {
                    self.free_now(store, &roots);
                    return Err(e);
                }
            }
        }
        Ok(roots)
    }

    /// Runs `commit`, which appends a DDL's commit mtr carrying the records it is given: `adopt`
    /// (new trees the DDL's catalog change references) stop being pending, `drop` (trees it
    /// unreferences) become pending, exactly when the commit record is logged.
    pub fn commit_ddl<T>(
        &self,
        adopt: &[PageId],
        drop: &[PageId],
        commit: impl FnOnce(&[LogRecord]) -> Result<T>,
    ) -> Result<T> {
        let mut set = self.set.lock();
        debug_assert!(adopt.iter().all(|r| set.contains(r)), "adopting a tree that is not pending");
        let mut records = Vec::with_capacity(2);
        if !adopt.is_empty() {
            records.push(LogRecord::TreesSettled { roots: adopt.to_vec() });
        }
        if !drop.is_empty() {
            records.push(LogRecord::TreesToFree { roots: drop.to_vec() });
        }
        let out = commit(&records)?;
        for r in adopt {
            set.remove(r);
        }
        set.extend(drop.iter().copied());
        Ok(out)
    }

    /// Frees a pending tree (purge, or the new trees of a DDL that failed): strips it, then frees
    /// its root in an mtr that logs it settled. `between_mtrs` runs between the strip's mtrs.
    pub fn free_tree(
        &self,
        store: &PageStore,
        root: PageId,
        between_mtrs: &mut dyn FnMut() -> Result<()>,
    ) -> Result<()> {
        if overflow::is_overflow_page(store.shared(), root)? {
            // A chain written ahead of a row that never linked it (recovered after a crash).
            let pages = overflow::pending_chain_pages(store.shared(), root)?;
            let mut set = self.set.lock();
            let mut mtr = Mtr::new(store);
            let freed = mtr.free_chain(root, *pages.last().expect("a chain has a page"));
            if freed.is_ok() {
                mtr.log_logical(&LogRecord::TreesSettled { roots: vec![root] }.encode());
            }
            mtr.commit();
            freed?;
            set.remove(&root);
            return Ok(());
        }
        let tree = BTree::open(root);
        tree.strip(store, between_mtrs)?;
        let mut set = self.set.lock();
        debug_assert!(set.contains(&root), "freeing tree {root}, which is not pending");
        let mut mtr = Mtr::new(store);
        let freed = tree.free_stripped_root(&mut mtr);
        if freed.is_ok() {
            mtr.log_logical(&LogRecord::TreesSettled { roots: vec![root] }.encode());
        }
        mtr.commit();
        freed?;
        set.remove(&root);
        Ok(())
    }

    /// Frees trees nobody references (a failed DDL's new trees) right away. A failure leaves them
    /// pending: they are freed after the next restart.
    pub fn free_now(&self, store: &PageStore, roots: &[PageId]) {
        for &r in roots {
            if let Err(e) = self.free_tree(store, r, &mut || Ok(())) {
                tracing::warn!("freeing tree {r} failed (it stays pending until the next restart): {e}");
            }
        }
    }

    /// Commits `mtr` (which holds its latches already) with the records that make the chain at
    /// `started` pending and the one at `settled` no longer pending, and changes the set to
    /// match, in log order.
    pub fn commit_chain_change(
        &self,
        mut mtr: Mtr<'_>,
        started: Option<PageId>,
        settled: Option<PageId>,
    ) -> (Lsn, Lsn) {
        let mut chains = self.chains.lock();
        if let Some(s) = settled {
            mtr.log_logical(&LogRecord::TreesSettled { roots: vec![s] }.encode());
        }
        if let Some(s) = started {
            mtr.log_logical(&LogRecord::TreesToFree { roots: vec![s] }.encode());
        }
        let lsns = mtr.commit();
        if let Some(s) = settled {
            chains.remove(&s);
        }
        if let Some(s) = started {
            chains.insert(s);
        }
        lsns
    }

    /// Frees a pending chain its writer gave up (an error before its row's mtr): the pages
    /// linked from `first`. A failure leaves it pending: it is freed after the next restart.
    pub fn free_chain_now(&self, store: &PageStore, first: PageId) {
        let freed = (|| {
            let pages = overflow::pending_chain_pages(store.shared(), first)?;
            let mut mtr = Mtr::with_space_reserve(store);
            mtr.free_chain(first, *pages.last().expect("a chain has a page"))?;
            self.commit_chain_change(mtr, None, Some(first));
            Ok::<_, crate::error::StorageError>(())
        })();
        if let Err(e) = freed {
            tracing::warn!("freeing overflow chain {first} failed (it stays pending until the next restart): {e}");
        }
    }

    /// Checkpoint hook: logs the whole set (trees and chains) if it is not empty; returns the
    /// record's end LSN.
    pub fn log_snapshot(&self, store: &PageStore) -> Option<Lsn> {
        let set = self.set.lock();
        let chains = self.chains.lock();
        if set.is_empty() && chains.is_empty() {
            return None;
        }
        let mut mtr = Mtr::new(store);
        let roots = set.iter().chain(chains.iter()).copied().collect();
        mtr.log_logical(&LogRecord::PendingTrees { roots }.encode());
        Some(mtr.commit().1)
    }

    /// The pages of a pending tree or chain (space accounting).
    pub(crate) fn pages_of(
        &self,
        store: &PageStore,
        root: PageId,
        census: &mut crate::btree::ChainCensus,
    ) -> Result<Vec<PageId>> {
        if overflow::is_overflow_page(store.shared(), root)? {
            return overflow::pending_chain_pages(store.shared(), root);
        }
        BTree::open(root).pages_counted(store, census)
    }

    pub fn len(&self) -> usize {
        self.set.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pending roots and chains (space accounting, tests).
    pub fn roots(&self) -> Vec<PageId> {
        let mut roots: Vec<PageId> = self.set.lock().iter().copied().collect();
        roots.extend(self.chains.lock().iter().copied());
        roots
    }
}
