//! The active read-write transaction array (docs/architecture.md §4.7).
//!
//! A read view must list every transaction that was active when it was built, and it is built
//! on every consistent read of an autocommit statement. So the array it scans is compact: a
//! transaction takes the LOWEST free slot when it is assigned its id and gives it back when it
//! commits or rolls back, and a view scans only up to the highest slot in use *now* (`top`).
//! Sessions that are connected but not writing cost a view nothing; 4,096 idle connections and
//! 8 writers cost a scan of 8 slots.
//!
//! Protocol (all SeqCst):
//! - take: set the slot's bit in `used` (CAS), raise `top` to cover it (CAS loop that also bumps
//!   `top`'s epoch), publish PENDING in the slot, take the id from `next_trx_id`, publish the id.
//! - view: read `next_trx_id` (= low), then `top`, then scan `ids[..hwm]`, waiting on PENDING.
//!   A transaction whose id is below `low` raised `top` before taking its id, so the scan covers
//!   its slot unless `top` was lowered since, which only happens once that slot is free (below).
//! - give back: store NO_TRX in the slot, clear its bit, and if it was the top slot, lower `top`
//!   to one past the highest bit still set. The lowering CAS expects the `top` word read before
//!   scanning the bitmap; every take bumps the epoch in that word, so a take that raced the scan
//!   makes the CAS fail and the lowering is recomputed. A lowering can therefore never uncover a
//!   slot that was taken before it.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::SeqCst};

use crossbeam_utils::CachePadded;

/// `ids` value while a transaction is taking its id: a view builder waits for the id.
pub(crate) const PENDING: u64 = u64::MAX;
/// `ids` value of a free slot.
pub(crate) const NO_TRX: u64 = 0;

const WORD_BITS: usize = 64;

/// `top` packs the high-water mark (one past the highest used slot) in its high 32 bits and an
/// epoch, bumped by every change, in its low 32 bits.
fn pack(hwm: usize, epoch: u64) -> u64 {
    debug_assert!(hwm <= u32::MAX as usize);
    ((hwm as u64) << 32) | (epoch & 0xFFFF_FFFF)
}

fn hwm_of(top: u64) -> usize {
    (top >> 32) as usize
}

fn epoch_of(top: u64) -> u64 {
    top & 0xFFFF_FFFF
}

pub(crate) struct RwSlots {
    /// Per slot: NO_TRX, PENDING or the id of the transaction holding it. Contiguous, so a scan
    /// of the slots in use reads a few cache lines.
    ids: Box<[AtomicU64]>,
    /// Per slot: the session slot of the transaction holding it (meaningful while `ids` holds
    /// its id; a reader re-checks the session's transaction after using it).
    sessions: Box<[AtomicUsize]>,
    /// Bit i of word i/64 set = slot i is taken.
    used: Box<[AtomicU64]>,
    /// High-water mark and epoch (see `pack`).
    top: CachePadded<AtomicU64>,
}

impl RwSlots {
    /// An array of `capacity` slots (one per session slot: a session has at most one read-write
    /// transaction at a time, so the array can never run out while sessions hold their slots).
    pub(crate) fn new(capacity: usize) -> RwSlots {
        assert!(capacity > 0 && capacity <= u32::MAX as usize, "rw slot capacity {capacity}");
        RwSlots {
            ids: (0..capacity).map(|_| AtomicU64::new(NO_TRX)).collect(),
            sessions: (0..capacity).map(|_| AtomicUsize::new(usize::MAX)).collect(),
            used: (0..capacity.div_ceil(WORD_BITS)).map(|_| AtomicU64::new(0)).collect(),
            top: CachePadded::new(AtomicU64::new(pack(0, 0))),
        }
    }

    /// One past the highest slot in use now: how far a scan must look.
    pub(crate) fn hwm(&self) -> usize {
        hwm_of(self.top.load(SeqCst))
    }

    /// The slots a scan must look at.
    pub(crate) fn in_use(&self) -> &[AtomicU64] {
        &self.ids[..self.hwm().min(self.ids.len())]
    }

    /// Takes the lowest free slot, publishes PENDING in it and makes every later scan cover it.
    /// The caller then takes an id and `publish`es it. None if every slot is taken.
    pub(crate) fn take(&self) -> Option<usize> {
        let idx = self.claim_lowest_bit()?;
        let mut cur = self.top.load(SeqCst);
        loop {
            let next = pack(hwm_of(cur).max(idx + 1), epoch_of(cur) + 1);
            match self.top.compare_exchange_weak(cur, next, SeqCst, SeqCst) {
                Ok(_) => break,
                Err(now) => cur = now,
            }
        }
        debug_assert_eq!(self.ids[idx].load(SeqCst), NO_TRX);
        self.ids[idx].store(PENDING, SeqCst);
        Some(idx)
    }

    /// Publishes the id taken for the transaction of session slot `session` in slot `idx` (after
    /// `take`).
    pub(crate) fn publish(&self, idx: usize, id: u64, session: usize) {
        debug_assert!(id != NO_TRX && id != PENDING);
        debug_assert_eq!(self.ids[idx].load(SeqCst), PENDING);
        self.sessions[idx].store(session, SeqCst);
        self.ids[idx].store(id, SeqCst);
    }

    /// The session slot running active transaction `id`, if it is active (a scan).
    pub(crate) fn session_of(&self, id: u64) -> Option<usize> {
        let slot = self.in_use().iter().position(|a| a.load(SeqCst) == id)?;
        Some(self.sessions[slot].load(SeqCst))
    }

    /// Gives slot `idx` back (its transaction committed or rolled back), lowering the
    /// high-water mark if it was the highest slot in use.
    pub(crate) fn give_back(&self, idx: usize) {
        let word = &self.used[idx / WORD_BITS];
        let bit = 1u64 << (idx % WORD_BITS);
        debug_assert!(word.load(SeqCst) & bit != 0, "rw slot {idx} given back twice");
        self.ids[idx].store(NO_TRX, SeqCst);
        word.fetch_and(!bit, SeqCst);
        loop {
            let cur = self.top.load(SeqCst);
            let hwm = hwm_of(cur);
            if hwm <= idx {
                return; // a lowering already passed below us
            }
            let lowered = self.highest_used_below(hwm).map_or(0, |i| i + 1);
            if lowered == hwm {
                return; // a slot at or above ours is still in use
            }
            if self.top.compare_exchange(cur, pack(lowered, epoch_of(cur) + 1), SeqCst, SeqCst).is_ok() {
                return;
            }
        }
    }

    /// The id in slot `idx` (NO_TRX, PENDING or an id).
    pub(crate) fn id_at(&self, idx: usize) -> u64 {
        self.ids[idx].load(SeqCst)
    }

    fn claim_lowest_bit(&self) -> Option<usize> {
        for (w, word) in self.used.iter().enumerate() {
            let mut cur = word.load(SeqCst);
            loop {
                let free = !cur;
                if free == 0 {
                    break;
                }
                let b = free.trailing_zeros() as usize;
                let idx = w * WORD_BITS + b;
                if idx >= self.ids.len() {
                    break; // the padding bits of the last word
                }
                match word.compare_exchange_weak(cur, cur | (1 << b), SeqCst, SeqCst) {
                    Ok(_) => return Some(idx),
                    Err(now) => cur = now,
                }
            }
        }
        None
    }

    /// The highest taken slot below `limit`.
    fn highest_used_below(&self, limit: usize) -> Option<usize> {
        let limit = limit.min(self.ids.len());
        if limit == 0 {
            return None;
        }
        let last_word = (limit - 1) / WORD_BITS;
        for w in (0..=last_word).rev() {
            let mut bits = self.used[w].load(SeqCst);
            if w == last_word && !limit.is_multiple_of(WORD_BITS) {
                bits &= (1u64 << (limit % WORD_BITS)) - 1;
            }
            if bits != 0 {
                return Some(w * WORD_BITS + (WORD_BITS - 1 - bits.leading_zeros() as usize));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_taken_lowest_first_and_the_high_water_mark_follows_the_top_slot() {
        let s = RwSlots::new(130);
        let a = s.take().unwrap();
        let b = s.take().unwrap();
        let c = s.take().unwrap();
        assert_eq!((a, b, c), (0, 1, 2));
        assert_eq!(s.hwm(), 3);
        s.give_back(b);
        assert_eq!(s.hwm(), 3, "a hole below the top does not lower it");
        assert_eq!(s.take().unwrap(), 1, "the hole is reused first");
        s.give_back(c);
        assert_eq!(s.hwm(), 2);
        s.give_back(a);
        assert_eq!(s.hwm(), 2);
        s.give_back(1);
        assert_eq!(s.hwm(), 0);
        // Across bitmap words, up to the capacity (not a multiple of 64).
        let all: Vec<usize> = (0..130).map(|_| s.take().unwrap()).collect();
        assert_eq!(all, (0..130).collect::<Vec<_>>());
        assert!(s.take().is_none(), "capacity reached");
        assert_eq!(s.hwm(), 130);
        for i in (64..130).rev() {
            s.give_back(i);
            assert_eq!(s.hwm(), i);
        }
        s.give_back(3);
        s.give_back(63);
        assert_eq!(s.hwm(), 63);
        for i in (0..63).filter(|&i| i != 3) {
            s.give_back(i);
        }
        assert_eq!(s.hwm(), 0);
    }

    #[test]
    fn concurrent_takers_never_end_up_above_the_high_water_mark() {
        let s = std::sync::Arc::new(RwSlots::new(256));
        let rounds = if std::env::var("SELKIE_STRESS").is_ok() { 200_000 } else { 20_000 };
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let s = s.clone();
                std::thread::spawn(move || {
                    for i in 0..rounds {
                        let idx = s.take().unwrap();
                        s.publish(idx, (t * rounds + i + 1) as u64, t);
                        assert!(idx < s.hwm(), "slot {idx} not covered by the high-water mark {}", s.hwm());
                        s.give_back(idx);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(s.hwm(), 0);
        assert!(s.in_use().is_empty());
    }
}
