//! Why the log refuses writes (fail-stop, see `admit`), as the enum callers see and the byte
//! the shared state stores. A leaf: the shared state, the writer (which halts on a failed
//! write) and admission all name it, and admission sits above the shared state.

/// Why writes stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    /// A log write or fsync failed: no further commit can be acknowledged.
    Log,
    /// A write-back of data pages (data file, doublewrite area, control file) failed: commits
    /// still reach the log, but the checkpoint no longer advances.
    DataFile,
    /// Started read-only for salvage (`--force-recovery` with a log that cannot be trusted):
    /// nothing is ever written.
    Salvage,
}

pub(super) const HALT_NONE: u8 = 0;
pub(super) const HALT_LOG: u8 = 1;
pub(super) const HALT_DATA: u8 = 2;
pub(super) const HALT_SALVAGE: u8 = 3;
