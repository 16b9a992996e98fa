//! Logical log records of the transactional layer, carried in mtrs next to the page redo
//! (`Mtr::log_logical`) and handed back in log order by recovery. Format: a kind byte, then the
//! fields little-endian; byte strings are varint-length-prefixed.

use crate::buffer::PageId;
use crate::error::{Result, StorageError};
use crate::rowcodec::{put_varint, Reader};
use crate::rowcodec::{unzigzag, zigzag};
use crate::types::TableId;

// Kind 1 (the logical undo record of format 1) is retired: undo lives in pages.
const KIND_COMMIT: u8 = 2;
const KIND_ABORT: u8 = 3;
const KIND_AUTO_INC: u8 = 4;
const KIND_AUTO_INC_RESET: u8 = 5;
const KIND_TREES_TO_FREE: u8 = 6;
const KIND_TREES_SETTLED: u8 = 7;
const KIND_PENDING_TREES: u8 = 8;
const KIND_UNDO_LOG_CREATED: u8 = 9;
const KIND_UNDO_LOG_FREED: u8 = 10;
const KIND_UNDO_LOGS: u8 = 11;
const KIND_CHECKPOINT_MARKER: u8 = 12;
const KIND_SEQUENCE_STATE: u8 = 13;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogRecord {
    Commit {
        trx_id: u64,
    },
    /// The transaction was rolled back completely (its before-images are restored).
    Abort {
        trx_id: u64,
    },
    /// The table's AUTO_INCREMENT counter reached `next` (the next value to hand out).
    AutoInc {
        table_id: TableId,
        next: u64,
    },
    /// A sequence's state (the last one in the log wins): logged, and made durable, before
    /// any value it reserves is handed out, and again by every checkpoint.
    SequenceState {
        table_id: TableId,
        next_not_cached: i64,
        cycle_count: i64,
    },
    /// Sets the counter to `next` if and when `trx_id` commits (CREATE TABLE, TRUNCATE).
    AutoIncReset {
        trx_id: u64,
        table_id: TableId,
        next: u64,
    },
    /// These trees are garbage unless a later `TreesSettled` names them: logged with the mtr
    /// that creates a tree for a DDL (until the DDL commits) and in the commit of a DDL that
    /// drops trees (until purge frees them). See crate::pending_trees.
    TreesToFree {
        roots: Vec<PageId>,
    },
    /// These trees are no longer pending: freed, or adopted by the committed DDL they were
    /// created for.
    TreesSettled {
        roots: Vec<PageId>,
    },
    /// The complete set of pending trees at this point of the log (checkpoints re-log it, so a
    /// recovery scan that starts after the records above still finds them).
    PendingTrees {
        roots: Vec<PageId>,
    },
    /// An undo log was created with its first page here (trx/undo.rs).
    UndoLogCreated {
        first: PageId,
    },
    /// The undo log that started here was freed.
    UndoLogFreed {
        first: PageId,
    },
    /// Every undo log that existed at this point (at least; checkpoints re-log it).
    UndoLogs {
        firsts: Vec<PageId>,
    },
    /// Logged by each checkpoint; the control file names its end, which a log must reach to be
    /// trusted (recovery.rs).
    CheckpointMarker,
}

fn put_roots(out: &mut Vec<u8>, roots: &[PageId]) {
    put_varint(out, roots.len() as u128);
    for r in roots {
        out.extend_from_slice(&r.to_le_bytes());
    }
}

fn get_roots(r: &mut Reader) -> Result<Vec<PageId>> {
    let n = r.varint_u64()?;
    // Each root takes 8 bytes: a count beyond the bytes left is garbage (and bounds the Vec).
    if n > (r.remaining() / 8) as u64 {
        return Err(StorageError::Corruption("malformed tree list in log record".into()));
    }
    (0..n).map(|_| r.u64()).collect()
}

impl LogRecord {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32);
        self.encode_into(&mut out);
        out
    }

    pub fn encode_into(&self, out: &mut Vec<u8>) {
        match *self {
            LogRecord::Commit { trx_id } => {
                out.push(KIND_COMMIT);
                out.extend_from_slice(&trx_id.to_le_bytes());
            }
            LogRecord::Abort { trx_id } => {
                out.push(KIND_ABORT);
                out.extend_from_slice(&trx_id.to_le_bytes());
            }
            LogRecord::AutoInc { table_id, next } => {
                out.push(KIND_AUTO_INC);
                out.extend_from_slice(&table_id.to_le_bytes());
                put_varint(out, next as u128);
            }
            LogRecord::AutoIncReset { trx_id, table_id, next } => {
                out.push(KIND_AUTO_INC_RESET);
                out.extend_from_slice(&trx_id.to_le_bytes());
                out.extend_from_slice(&table_id.to_le_bytes());
                put_varint(out, next as u128);
            }
            LogRecord::TreesToFree { ref roots } => {
                out.push(KIND_TREES_TO_FREE);
                put_roots(out, roots);
            }
            LogRecord::TreesSettled { ref roots } => {
                out.push(KIND_TREES_SETTLED);
                put_roots(out, roots);
            }
            LogRecord::PendingTrees { ref roots } => {
                out.push(KIND_PENDING_TREES);
                put_roots(out, roots);
            }
            LogRecord::UndoLogCreated { first } => {
                out.push(KIND_UNDO_LOG_CREATED);
                out.extend_from_slice(&first.to_le_bytes());
            }
            LogRecord::UndoLogFreed { first } => {
                out.push(KIND_UNDO_LOG_FREED);
                out.extend_from_slice(&first.to_le_bytes());
            }
            LogRecord::UndoLogs { ref firsts } => {
                out.push(KIND_UNDO_LOGS);
                put_roots(out, firsts);
            }
            LogRecord::CheckpointMarker => out.push(KIND_CHECKPOINT_MARKER),
            LogRecord::SequenceState { table_id, next_not_cached, cycle_count } => {
                out.push(KIND_SEQUENCE_STATE);
                out.extend_from_slice(&table_id.to_le_bytes());
                put_varint(out, zigzag(next_not_cached as i128));
                put_varint(out, zigzag(cycle_count as i128));
            }
        }
    }

    pub fn decode(bytes: &[u8]) -> Result<LogRecord> {
        let mut r = Reader::new(bytes);
        let rec = match r.u8()? {
            KIND_COMMIT => LogRecord::Commit { trx_id: r.u64()? },
            KIND_ABORT => LogRecord::Abort { trx_id: r.u64()? },
            KIND_AUTO_INC => LogRecord::AutoInc { table_id: r.u32()?, next: r.varint_u64()? },
            KIND_AUTO_INC_RESET => {
                LogRecord::AutoIncReset { trx_id: r.u64()?, table_id: r.u32()?, next: r.varint_u64()? }
            }
            KIND_TREES_TO_FREE => LogRecord::TreesToFree { roots: get_roots(&mut r)? },
            KIND_TREES_SETTLED => LogRecord::TreesSettled { roots: get_roots(&mut r)? },
            KIND_PENDING_TREES => LogRecord::PendingTrees { roots: get_roots(&mut r)? },
            KIND_UNDO_LOG_CREATED => LogRecord::UndoLogCreated { first: r.u64()? },
            KIND_UNDO_LOG_FREED => LogRecord::UndoLogFreed { first: r.u64()? },
            KIND_UNDO_LOGS => LogRecord::UndoLogs { firsts: get_roots(&mut r)? },
            KIND_CHECKPOINT_MARKER => LogRecord::CheckpointMarker,
            KIND_SEQUENCE_STATE => {
                let table_id = r.u32()?;
                let int = |v: i128| i64::try_from(v).map_err(|_| StorageError::Corruption("sequence value".into()));
                let next_not_cached = int(unzigzag(r.varint()?))?;
                LogRecord::SequenceState { table_id, next_not_cached, cycle_count: int(unzigzag(r.varint()?))? }
            }
            k => return Err(StorageError::Corruption(format!("unknown logical log record kind {k}"))),
        };
        if !r.is_empty() {
            return Err(StorageError::Corruption("trailing bytes in logical log record".into()));
        }
        Ok(rec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn round_trip_every_kind() {
        let recs = [
            LogRecord::UndoLogCreated { first: 77 },
            LogRecord::UndoLogFreed { first: 1 << 40 },
            LogRecord::UndoLogs { firsts: vec![5, 6, 7] },
            LogRecord::CheckpointMarker,
            LogRecord::SequenceState { table_id: 9, next_not_cached: -(1 << 62), cycle_count: 3 },
            LogRecord::SequenceState { table_id: 9, next_not_cached: i64::MAX, cycle_count: 0 },
            LogRecord::Commit { trx_id: 12 },
            LogRecord::Abort { trx_id: 13 },
            LogRecord::AutoInc { table_id: 5, next: 1 << 40 },
            LogRecord::AutoIncReset { trx_id: 2, table_id: 5, next: 1 },
            LogRecord::TreesToFree { roots: vec![9, 1 << 40] },
            LogRecord::TreesSettled { roots: vec![] },
            LogRecord::PendingTrees { roots: vec![3] },
        ];
        for r in recs {
            assert_eq!(LogRecord::decode(&r.encode()).unwrap(), r);
        }
        // A tree list claiming more roots than its bytes hold is an error, not an allocation.
        let mut bad = vec![KIND_TREES_TO_FREE];
        put_varint(&mut bad, 1 << 60);
        assert!(LogRecord::decode(&bad).is_err());
    }

    proptest! {
        #[test]
        fn garbage_is_an_error_not_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            let _ = LogRecord::decode(&bytes);
        }
    }
}
