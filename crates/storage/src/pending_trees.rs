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

use std::collections::BTreeSet;

use parking_lot::Mutex;

use crate::btree::BTree;
use crate::buffer::{PageId, PageStore};
use crate::error::Result;
use crate::mtr::Mtr;
use crate::trx::logrec::LogRecord;
use crate::wal::Lsn;

#[derive(Default)]
pub struct PendingTrees {
    set: Mutex<BTreeSet<PageId>>,
}

impl PendingTrees {
    /// The set recovery found (trees still to free).
    pub fn new(recovered: impl IntoIterator<Item = PageId>) -> PendingTrees {
        PendingTrees { set: Mutex::new(recovered.into_iter().collect()) }
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

    /// Checkpoint hook: logs the whole set if it is not empty; returns the record's end LSN.
    pub fn log_snapshot(&self, store: &PageStore) -> Option<Lsn> {
        let set = self.set.lock();
        if set.is_empty() {
            return None;
        }
        let mut mtr = Mtr::new(store);
        mtr.log_logical(&LogRecord::PendingTrees { roots: set.iter().copied().collect() }.encode());
        Some(mtr.commit().1)
    }

    pub fn len(&self) -> usize {
        self.set.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pending roots (space accounting, tests).
    pub fn roots(&self) -> Vec<PageId> {
        self.set.lock().iter().copied().collect()
    }
}
