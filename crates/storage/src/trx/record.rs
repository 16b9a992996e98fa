//! MVCC record versions (docs/architecture.md §4.7).
//!
//! Every stored index value starts with a 17-byte header: `trx_id u64 | roll_ptr u64 | flags u8`
//! (little-endian; flag bit 0 = delete-marked). Clustered values continue with the row bytes;
//! secondary index values are the header alone. Older versions are reached by following
//! `roll_ptr` to the undo record (in the writer's undo log pages) holding the previous version.

use crate::buffer::PageStore;
use crate::error::{Result, StorageError};
use crate::trx::read_view::ReadView;
use crate::trx::undo::{self, PriorVersion};
use crate::types::IndexId;

pub const HEADER_LEN: usize = 17;
const FLAG_DELETED: u8 = 1;
/// Re-exported: a record header's roll pointer is the undo module's format.
pub use crate::trx::undo::NO_ROLL_PTR;
/// Trx id of records that every read view sees (index builds write their entries with it).
pub const VISIBLE_TO_ALL_TRX_ID: u64 = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecHeader {
    pub trx_id: u64,
    pub roll_ptr: u64,
    pub deleted: bool,
}

impl RecHeader {
    pub fn parse(value: &[u8]) -> Result<RecHeader> {
        if value.len() < HEADER_LEN || value[16] & !FLAG_DELETED != 0 {
            return Err(StorageError::Corruption("malformed MVCC record header".into()));
        }
        Ok(RecHeader {
            trx_id: u64::from_le_bytes(value[0..8].try_into().expect("8 bytes")),
            roll_ptr: u64::from_le_bytes(value[8..16].try_into().expect("8 bytes")),
            deleted: value[16] & FLAG_DELETED != 0,
        })
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.trx_id.to_le_bytes());
        out.extend_from_slice(&self.roll_ptr.to_le_bytes());
        out.push(if self.deleted { FLAG_DELETED } else { 0 });
    }

    pub fn to_vec(self) -> Vec<u8> {
        let mut v = Vec::with_capacity(HEADER_LEN);
        self.write(&mut v);
        v
    }
}

/// A full stored value with the header replaced (the payload is kept).
pub fn with_header(header: RecHeader, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(HEADER_LEN + payload.len());
    header.write(&mut v);
    v.extend_from_slice(payload);
    v
}

/// The outcome of looking for the version a reader may see.
#[derive(Debug, PartialEq, Eq)]
pub enum Resolved {
    /// The visible version's full stored value (header included); it may be delete-marked.
    Version(Vec<u8>),
    /// No version is visible: the record did not exist for this reader.
    Absent,
    /// The version chain changed under the reader (its writer finished and was purged after the
    /// reader copied the record): re-read the record and resolve again.
    Retry,
}

/// Walks from the latest stored `value` of record (`index_id`, `key`) back to the newest
/// version visible to `view` (own writes of `own_trx_id` are always visible).
pub fn resolve(
    store: &PageStore,
    view: &ReadView,
    own_trx_id: Option<u64>,
    index_id: IndexId,
    key: &[u8],
    value: Vec<u8>,
) -> Result<Resolved> {
    walk_back(store, index_id, key, value, |trx_id| Some(trx_id) == own_trx_id || view.sees(trx_id), true)
}

/// Walks from the latest stored `value` back past the versions written by other transactions
/// that are still active (`is_active`), to the newest committed version (or own write).
pub fn resolve_committed(
    store: &PageStore,
    own_trx_id: Option<u64>,
    is_active: impl Fn(u64) -> bool,
    index_id: IndexId,
    key: &[u8],
    value: Vec<u8>,
) -> Result<Resolved> {
    walk_back(store, index_id, key, value, |trx_id| Some(trx_id) == own_trx_id || !is_active(trx_id), false)
}

/// Follows roll pointers from `value` until `stop` accepts the version's writer. `no_prior_is_absent`:
/// a version without a roll pointer that is not accepted means "did not exist" (snapshots);
/// otherwise it is accepted as the oldest there is.
fn walk_back(
    store: &PageStore,
    index_id: IndexId,
    key: &[u8],
    value: Vec<u8>,
    stop: impl Fn(u64) -> bool,
    no_prior_is_absent: bool,
) -> Result<Resolved> {
    let mut value = value;
    // Each step moves to an older version of one record, whose chain is finite; the bound turns
    // a (corrupt) cycle into an error instead of a hang.
    for _ in 0..MAX_CHAIN_STEPS {
        let h = RecHeader::parse(&value)?;
        if stop(h.trx_id) {
            return Ok(Resolved::Version(value));
        }
        if h.roll_ptr == NO_ROLL_PTR {
            return Ok(if no_prior_is_absent { Resolved::Absent } else { Resolved::Version(value) });
        }
        match undo::prior_version(store, h.trx_id, h.roll_ptr, index_id, key)? {
            PriorVersion::Found(Some(prev)) => value = prev,
            PriorVersion::Found(None) => return Ok(Resolved::Absent),
            PriorVersion::Stale => return Ok(Resolved::Retry),
        }
    }
    Err(StorageError::Corruption("MVCC version chain too long (cycle?)".into()))
}

/// Upper bound of versions walked for one record (one per transaction that changed it while
/// the reader's view was open, so far beyond any real chain).
const MAX_CHAIN_STEPS: usize = 1 << 24;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_and_validation() {
        let h = RecHeader { trx_id: 77, roll_ptr: 3, deleted: true };
        let v = with_header(h, b"row");
        assert_eq!(RecHeader::parse(&v).unwrap(), h);
        assert!(RecHeader::parse(&v[..10]).is_err());
        let mut bad = v.clone();
        bad[16] = 0x80;
        assert!(RecHeader::parse(&bad).is_err());
    }
}
