//! The generated primary weight tables of UCA 4.0.0 and 5.2.0, read in place (layout in
//! scripts/gen_uca_weights.py).

use std::sync::LazyLock;

/// Which UCA version's table a collation weighs by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UcaVersion {
    V400,
    V520,
}

static WEIGHTS_400: &[u8] = include_bytes!("weights_400.bin");
static WEIGHTS_520: &[u8] = include_bytes!("weights_520.bin");

const PAGES: usize = 0x1100;
const PAGE_FFFD: u16 = 0xFFFF;
const PAGE_IMPLICIT: u16 = 0xFFFE;
const IMPLICIT_FLAG: u32 = 0x8000_0000;
const IMPLICIT_OTHER: u32 = 0xFBC0;
/// A byte that is not UTF-8 weighs this: above every character (implicit weights start with
/// at most FBE1).
const INVALID_WEIGHT: u16 = 0xFFFF;

/// One version's generated table, read in place.
pub(crate) struct Table {
    bytes: &'static [u8],
    entries_at: usize,
    pool_at: usize,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl Table {
    fn new(bytes: &'static [u8]) -> Table {
        let n_pages = u32_at(bytes, PAGES * 2) as usize;
        let entries_at = PAGES * 2 + 4;
        let pool_at = entries_at + n_pages * 256 * 4 + 4;
        Table { bytes, entries_at, pool_at }
    }

    /// Appends the primary weights of code point `cp` (none for an ignorable).
    #[inline]
    pub(crate) fn push_weights(&self, cp: u32, out: &mut Vec<u16>) {
        if cp > 0x10FFFF {
            out.push(INVALID_WEIGHT);
            return;
        }
        let page = u16_at(self.bytes, (cp >> 8) as usize * 2);
        let entry = match page {
            PAGE_FFFD => return out.push(0xFFFD),
            PAGE_IMPLICIT => IMPLICIT_FLAG | IMPLICIT_OTHER,
            _ => u32_at(self.bytes, self.entries_at + (page as usize * 256 + (cp & 0xFF) as usize) * 4),
        };
        if entry & IMPLICIT_FLAG != 0 {
            let base = entry & 0xFFFF;
            out.push((base + (cp >> 15)) as u16);
            out.push(((cp & 0x7FFF) | 0x8000) as u16);
            return;
        }
        let count = (entry >> 24) as usize;
        let at = self.pool_at + (entry & 0xFF_FFFF) as usize * 2;
        for i in 0..count {
            out.push(u16_at(self.bytes, at + i * 2));
        }
    }
}

pub(crate) fn table(version: UcaVersion) -> &'static Table {
    static T400: LazyLock<Table> = LazyLock::new(|| Table::new(WEIGHTS_400));
    static T520: LazyLock<Table> = LazyLock::new(|| Table::new(WEIGHTS_520));
    match version {
        UcaVersion::V400 => &T400,
        UcaVersion::V520 => &T520,
    }
}

/// The weight of a space, what PAD SPACE pads with.
pub(crate) fn space_weight(version: UcaVersion) -> u16 {
    let mut w = Vec::with_capacity(1);
    table(version).push_weights(0x20, &mut w);
    w[0]
}
