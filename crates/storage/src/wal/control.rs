//! The control file `selkie.ctl`: two 4 KiB slots written alternately, each with a CRC32C, so a
//! torn write of one slot leaves the other valid.
//!
//! INTERFACE CONTRACT (frozen; owner: WAL/IO helper).

use std::path::Path;

use crate::error::Result;
use crate::io::Io;
use crate::wal::Lsn;

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
    _private: (),
}

impl ControlFile {
    /// Opens `dir/selkie.ctl`; `Ok(None)` if the file does not exist (a new database).
    pub fn open(io: &Io, dir: &Path) -> Result<(ControlFile, Option<ControlData>)> {
        let _ = (io, dir);
        todo!("wal")
    }
    /// Creates a new control file with `data` (durable when it returns).
    pub fn create(io: &Io, dir: &Path, data: &ControlData) -> Result<ControlFile> {
        let _ = (io, dir, data);
        todo!("wal")
    }
    /// Writes `data` into the older slot and syncs.
    pub fn write(&mut self, data: &ControlData) -> Result<()> {
        let _ = data;
        todo!("wal")
    }
}
