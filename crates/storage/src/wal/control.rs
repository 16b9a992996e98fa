//! The control file `selkie.ctl`: two 4 KiB slots written alternately, each with a CRC32C, so a
//! torn write of one slot leaves the other valid.
//!
//! Every start reads it first (it names where recovery begins), so its layout below is an
//! on-disk format: a change must keep old files readable.
//!
//! Slot layout (little-endian): `magic [8] | seq u64 | crc32c u32 | body_len u32 | body`, zero
//! padded to `SLOT_BYTES`. The CRC covers the whole slot except the CRC field itself. Body:
//! `format u32 | checkpoint_lsn u64 | scan_start_lsn u64 | next_trx_id u64 | extra_len u32 |
//! extra`. The valid slot with the highest `seq` is current; `write` overwrites the other one.
//! A new file is written under a temporary name, synced and renamed into place, so `selkie.ctl`
//! never exists without a valid slot.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Result, StorageError};
use crate::io::{FileKind, Io, IoFile};
use crate::wal::Lsn;

/// Name of the control file in the data directory.
pub const CONTROL_FILE_NAME: &str = "selkie.ctl";
const TEMP_FILE_NAME: &str = "selkie.ctl.tmp";
/// Size of one slot; the file holds two.
pub const SLOT_BYTES: usize = 4096;
const SLOTS: usize = 2;
/// Largest `ControlData::extra`.
pub const CONTROL_EXTRA_MAX: usize = 3 * 1024;

const MAGIC: [u8; 8] = *b"SELKCTL\x01";
const SEQ_AT: usize = 8;
const CRC_AT: usize = 16;
const BODY_LEN_AT: usize = 20;
const BODY_AT: usize = 24;
/// Body bytes before `extra`.
const BODY_FIXED: usize = 4 + 8 + 8 + 8 + 4;
const _: () = assert!(BODY_AT + BODY_FIXED + CONTROL_EXTRA_MAX <= SLOT_BYTES);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControlData {
    /// Format version of the data directory.
    pub format: u32,
    /// Redo starts here: every page change below it is in the data file.
    pub checkpoint_lsn: Lsn,
    /// The recovery scan starts here (<= checkpoint_lsn): the first LSN of the oldest transaction
    /// active at the checkpoint, whose undo records recovery may need.
    pub scan_start_lsn: Lsn,
    /// Transaction ids below this may have been used.
    pub next_trx_id: u64,
    /// Free-form bytes for the transactional layer (at most 3 KiB).
    pub extra: Vec<u8>,
}

pub struct ControlFile {
    io: Io,
    dir: PathBuf,
    /// `None` until created (the database had no control file at `open`).
    file: Option<Arc<IoFile>>,
    /// Sequence number and index of the newest valid slot.
    seq: u64,
    newest_slot: usize,
}

impl ControlFile {
    /// Opens `dir/selkie.ctl`; `Ok(None)` if the file does not exist (a new database).
    ///
    /// In that case the returned `ControlFile` has no file yet: its first `write` creates one
    /// (as `create` does).
    pub fn open(io: &Io, dir: &Path) -> Result<(ControlFile, Option<ControlData>)> {
        let mut control = ControlFile { io: io.clone(), dir: dir.to_path_buf(), file: None, seq: 0, newest_slot: 1 };
        let file = match io.open_as(&dir.join(CONTROL_FILE_NAME), false, FileKind::Control, 0) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((control, None)),
            Err(e) => return Err(e.into()),
        };
        let mut bytes = vec![0u8; SLOT_BYTES * SLOTS];
        file.read_at(&mut bytes, 0)?;
        let newest = bytes
            .chunks_exact(SLOT_BYTES)
            .enumerate()
            .filter_map(|(i, slot)| decode_slot(slot).map(|(seq, data)| (seq, i, data)))
            .max_by_key(|&(seq, _, _)| seq);
        let Some((seq, slot, data)) = newest else {
            return Err(StorageError::Corruption(format!(
                "{}: no valid slot (both checksums fail)",
                dir.join(CONTROL_FILE_NAME).display()
            )));
        };
        control.file = Some(file);
        control.seq = seq;
        control.newest_slot = slot;
        Ok((control, Some(data)))
    }

    /// Creates a new control file with `data` (durable when it returns).
    pub fn create(io: &Io, dir: &Path, data: &ControlData) -> Result<ControlFile> {
        check(data)?;
        let temp = dir.join(TEMP_FILE_NAME);
        let file = io.open_as(&temp, true, FileKind::Control, 0)?;
        // A leftover temporary file from a crashed create must not contribute a stale slot.
        file.set_len(0)?;
        file.write_at(&encode_slot(1, data), 0)?;
        file.set_len((SLOT_BYTES * SLOTS) as u64)?;
        file.sync_all()?;
        io.rename(&temp, &dir.join(CONTROL_FILE_NAME))?;
        io.sync_dir(dir)?;
        Ok(ControlFile { io: io.clone(), dir: dir.to_path_buf(), file: Some(file), seq: 1, newest_slot: 0 })
    }

    /// Writes `data` into the older slot and syncs.
    pub fn write(&mut self, data: &ControlData) -> Result<()> {
        check(data)?;
        let Some(file) = &self.file else {
            *self = ControlFile::create(&self.io, &self.dir, data)?;
            return Ok(());
        };
        let seq = self.seq + 1;
        let slot = 1 - self.newest_slot;
        file.write_at(&encode_slot(seq, data), (slot * SLOT_BYTES) as u64)?;
        file.sync_data()?;
        self.seq = seq;
        self.newest_slot = slot;
        Ok(())
    }
}

fn check(data: &ControlData) -> Result<()> {
    if data.extra.len() > CONTROL_EXTRA_MAX {
        return Err(StorageError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("control file extra of {} bytes exceeds {CONTROL_EXTRA_MAX}", data.extra.len()),
        )));
    }
    Ok(())
}

fn slot_crc(slot: &[u8]) -> u32 {
    crc32c::crc32c_append(crc32c::crc32c(&slot[..CRC_AT]), &slot[BODY_LEN_AT..])
}

fn encode_slot(seq: u64, data: &ControlData) -> Vec<u8> {
    debug_assert!(data.extra.len() <= CONTROL_EXTRA_MAX);
    let mut slot = vec![0u8; SLOT_BYTES];
    slot[..SEQ_AT].copy_from_slice(&MAGIC);
    slot[SEQ_AT..CRC_AT].copy_from_slice(&seq.to_le_bytes());
    let body_len = BODY_FIXED + data.extra.len();
    slot[BODY_LEN_AT..BODY_AT].copy_from_slice(&(body_len as u32).to_le_bytes());
    let mut body = Vec::with_capacity(body_len);
    body.extend_from_slice(&data.format.to_le_bytes());
    body.extend_from_slice(&data.checkpoint_lsn.to_le_bytes());
    body.extend_from_slice(&data.scan_start_lsn.to_le_bytes());
    body.extend_from_slice(&data.next_trx_id.to_le_bytes());
    body.extend_from_slice(&(data.extra.len() as u32).to_le_bytes());
    body.extend_from_slice(&data.extra);
    slot[BODY_AT..BODY_AT + body_len].copy_from_slice(&body);
    let crc = slot_crc(&slot);
    slot[CRC_AT..BODY_LEN_AT].copy_from_slice(&crc.to_le_bytes());
    slot
}

/// The slot's sequence number and contents if it verifies.
fn decode_slot(slot: &[u8]) -> Option<(u64, ControlData)> {
    debug_assert_eq!(slot.len(), SLOT_BYTES);
    if slot[..SEQ_AT] != MAGIC {
        return None;
    }
    let u32_at = |at: usize| u32::from_le_bytes(slot[at..at + 4].try_into().expect("4 bytes"));
    let u64_at = |at: usize| u64::from_le_bytes(slot[at..at + 8].try_into().expect("8 bytes"));
    if u32_at(CRC_AT) != slot_crc(slot) {
        return None;
    }
    let body_len = u32_at(BODY_LEN_AT) as usize;
    if !(BODY_FIXED..=BODY_FIXED + CONTROL_EXTRA_MAX).contains(&body_len) {
        return None;
    }
    let extra_len = u32_at(BODY_AT + 28) as usize;
    if extra_len != body_len - BODY_FIXED {
        return None;
    }
    let extra_at = BODY_AT + BODY_FIXED;
    let data = ControlData {
        format: u32_at(BODY_AT),
        checkpoint_lsn: u64_at(BODY_AT + 4),
        scan_start_lsn: u64_at(BODY_AT + 12),
        next_trx_id: u64_at(BODY_AT + 20),
        extra: slot[extra_at..extra_at + extra_len].to_vec(),
    };
    Some((u64_at(SEQ_AT), data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_roundtrip_and_any_flipped_bit_is_rejected() {
        let data = ControlData {
            format: 3,
            checkpoint_lsn: 123_456,
            scan_start_lsn: 100_000,
            next_trx_id: 77,
            extra: b"auto-increment state".to_vec(),
        };
        let slot = encode_slot(9, &data);
        assert_eq!(decode_slot(&slot), Some((9, data)));
        for byte in [0, SEQ_AT, CRC_AT, BODY_LEN_AT, BODY_AT, BODY_AT + 30, SLOT_BYTES - 1] {
            let mut bad = slot.clone();
            bad[byte] ^= 0x10;
            assert_eq!(decode_slot(&bad), None, "flip at byte {byte} accepted");
        }
        assert_eq!(decode_slot(&vec![0u8; SLOT_BYTES]), None);
    }
}
