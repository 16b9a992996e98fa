//! A consistent-read snapshot. It sits in its own leaf so that `record` (which decides what a
//! view sees of a row) and the transaction system (which builds views) both reach it without
//! reaching each other.

use smallvec::SmallVec;

/// A consistent-read snapshot: `{low, up, ids}` (architecture §4.7).
#[derive(Clone, Debug)]
pub struct ReadView {
    /// Ids >= low started after the view: invisible.
    pub low: u64,
    /// Ids < up committed before the view: visible.
    pub up: u64,
    /// Ids active when the view was built (sorted): invisible.
    ids: SmallVec<[u64; 8]>,
}

impl ReadView {
    pub fn new(low: u64, mut ids: Vec<u64>) -> ReadView {
        ids.sort_unstable();
        ids.dedup();
        let up = ids.first().copied().unwrap_or(low).min(low);
        ReadView { low, up, ids: ids.into() }
    }

    #[inline]
    pub fn sees(&self, trx_id: u64) -> bool {
        if trx_id < self.up {
            return true;
        }
        if trx_id >= self.low {
            return false;
        }
        self.ids.binary_search(&trx_id).is_err()
    }
}
