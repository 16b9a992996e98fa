//! Process-wide invalidation state, read without locks on every lookup.
//!
//! One counter, the epoch, numbers invalidations. Each (database, table) pair hashes to a
//! slot that holds the epoch of the last invalidation of a table hashing there; one more word
//! holds the epoch of the last "invalidate everything". An entry remembers the epoch read
//! *before its query was sent*; it is valid while every slot of its tables, and the
//! everything-word, are at or below that epoch.
//!
//! Why this is never stale, given that invalidation happens after the write committed: a
//! query whose epoch was read after an invalidation's increment was sent after the commit, so
//! it saw the write; one whose epoch was read before it has an epoch below the invalidation's,
//! which its slot carries from then on. Slot collisions only invalidate more.

use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

use crate::classifier::TableRef;

/// Slots of the table-generation table (a power of two). With a few thousand hot tables,
/// collisions stay rare; each one only causes extra invalidation.
pub(crate) const TABLE_SLOTS: usize = 4096;

pub(crate) type Slot = u16;
const _: () = assert!(TABLE_SLOTS.is_power_of_two() && TABLE_SLOTS - 1 <= Slot::MAX as usize);

pub(crate) struct Generations {
    /// Written by every invalidation, read by lookups that miss.
    epoch: CachePadded<AtomicU64>,
    /// Read by every hit; on its own cache line so that invalidations of single tables (which
    /// write `epoch`) do not evict it from the readers' caches.
    everything: CachePadded<AtomicU64>,
    slots: Box<[AtomicU64]>,
}

impl Generations {
    pub fn new() -> Generations {
        Generations {
            epoch: CachePadded::new(AtomicU64::new(0)),
            everything: CachePadded::new(AtomicU64::new(0)),
            slots: (0..TABLE_SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The epoch to remember for a query about to be sent.
    pub fn current(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    pub fn invalidate(&self, slots: &[Slot]) {
        let e = self.epoch.fetch_add(1, Ordering::AcqRel) + 1;
        for &s in slots {
            self.slots[s as usize].fetch_max(e, Ordering::AcqRel);
        }
    }

    pub fn invalidate_everything(&self) {
        let e = self.epoch.fetch_add(1, Ordering::AcqRel) + 1;
        self.everything.fetch_max(e, Ordering::AcqRel);
    }

    /// Nothing that `slots` depend on was invalidated after epoch `as_of`.
    pub fn unchanged_since(&self, slots: &[Slot], as_of: u64) -> bool {
        self.everything.load(Ordering::Acquire) <= as_of
            && slots.iter().all(|&s| self.slots[s as usize].load(Ordering::Acquire) <= as_of)
    }
}

/// The slot of a table in database `db`. Names are compared ASCII case-insensitively, so that
/// the slot is the same whatever lower_case_table_names says (a collision at worst).
pub(crate) fn slot_of(db: &str, table: &str) -> Slot {
    // FNV-1a: deterministic, cheap on short names; the slot is not a security boundary.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    };
    db.bytes().for_each(|b| eat(b.to_ascii_lowercase()));
    // A byte no identifier contains keeps ("ab","c") and ("a","bc") apart.
    eat(0xff);
    table.bytes().for_each(|b| eat(b.to_ascii_lowercase()));
    // Fold the high bits in: FNV's low bits alone mix poorly.
    ((h ^ (h >> 32)) as usize & (TABLE_SLOTS - 1)) as Slot
}

/// The slots of `tables` (unqualified names resolve in `default_db`), or None when one has no
/// database to resolve in.
pub(crate) fn slots_of(tables: &[TableRef], default_db: Option<&str>) -> Option<smallvec::SmallVec<[Slot; 4]>> {
    let mut out = smallvec::SmallVec::new();
    for t in tables {
        let db = t.db.as_deref().or(default_db)?;
        let s = slot_of(db, &t.table);
        if !out.contains(&s) {
            out.push(s);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_ignore_ascii_case_and_separate_db_from_table() {
        assert_eq!(slot_of("Shop", "Orders"), slot_of("shop", "orders"));
        let distinct: std::collections::HashSet<Slot> =
            (0..200).map(|i| slot_of("db", &format!("sbtest{i}"))).collect();
        assert!(distinct.len() > 190, "slots spread: {}", distinct.len());
    }

    #[test]
    fn epochs_order_invalidations() {
        let g = Generations::new();
        let a = slot_of("db", "a");
        let b = slot_of("db", "b");
        let before = g.current();
        g.invalidate(&[a]);
        assert!(!g.unchanged_since(&[a], before));
        assert!(g.unchanged_since(&[b], before));
        let after = g.current();
        assert!(g.unchanged_since(&[a, b], after));
        g.invalidate_everything();
        assert!(!g.unchanged_since(&[], after));
    }
}
