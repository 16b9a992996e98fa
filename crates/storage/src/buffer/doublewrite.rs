//! The doublewrite area: its size (one write-back batch), the writer that owns it and the batch
//! buffer, and the repair of torn home pages from it at open. A leaf below `Shared` (which holds
//! the writer) and below the write-back in `flush`, which fills and writes the batches.

use std::sync::Arc;

use super::page_table::MAX_PAGE_COUNT;
use crate::error::Result;
use crate::io::IoFile;
use crate::page::{self, get_u64, PageId, OFF_PAGE_ID, OFF_PAGE_LSN, PAGE_SIZE};

/// Pages per write-back batch (and the size of the doublewrite area): 2 MiB. A batch costs
/// three syncs (log, doublewrite, home) whatever its size, so the batch size bounds how fast
/// the cleaner can turn dirty pages into evictable ones under sustained writes.
pub(crate) const BATCH_PAGES: usize = 128;

/// The doublewrite file and the batch buffer; behind `Shared::writer`.
pub(crate) struct PageWriter {
    pub(super) doublewrite: Arc<IoFile>,
    pub(super) buf: Vec<u8>,
}

impl PageWriter {
    pub(crate) fn new(doublewrite: Arc<IoFile>) -> PageWriter {
        PageWriter { doublewrite, buf: vec![0u8; BATCH_PAGES * PAGE_SIZE] }
    }

    pub(crate) fn doublewrite_file(&self) -> Arc<IoFile> {
        Arc::clone(&self.doublewrite)
    }

    pub(super) fn slot(&mut self, i: usize) -> &mut [u8] {
        &mut self.buf[i * PAGE_SIZE..(i + 1) * PAGE_SIZE]
    }
}

/// Restores home pages that fail verification from their doublewrite copy (a torn write of the
/// last batch). Returns the number of pages repaired.
pub(crate) fn repair_from_doublewrite(doublewrite: &IoFile, data: &IoFile) -> Result<usize> {
    let repairs = doublewrite_repairs(doublewrite, data)?;
    for (pid, copy) in &repairs {
        tracing::warn!(page = pid, "restoring a torn page from the doublewrite area");
        data.write_at(copy, pid * PAGE_SIZE as u64)?;
    }
    if !repairs.is_empty() {
        data.sync_data()?;
    }
    Ok(repairs.len())
}

/// The home pages that fail verification and have an intact copy in the doublewrite area (read
/// only: salvage mode serves them from memory instead of writing them home).
pub(crate) fn doublewrite_repairs(doublewrite: &IoFile, data: &IoFile) -> Result<Vec<(PageId, Vec<u8>)>> {
    let slots = (doublewrite.len()? / PAGE_SIZE as u64).min(BATCH_PAGES as u64);
    let mut copy = vec![0u8; PAGE_SIZE];
    let mut home = vec![0u8; PAGE_SIZE];
    let mut repairs: Vec<(PageId, Vec<u8>)> = Vec::new();
    for slot in 0..slots {
        doublewrite.read_at(&mut copy, slot * PAGE_SIZE as u64)?;
        if !page::has_valid_checksum(&copy) {
            continue; // never written, or itself torn (then its home write never started)
        }
        let pid = get_u64(&copy, OFF_PAGE_ID);
        if pid >= MAX_PAGE_COUNT {
            continue;
        }
        data.read_at(&mut home, pid * PAGE_SIZE as u64)?;
        let home_intact = page::has_valid_checksum(&home) && get_u64(&home, OFF_PAGE_ID) == pid;
        if home_intact {
            continue; // possibly older than the copy: redo brings it forward
        }
        // Slots past the last batch's length still hold copies from earlier, longer batches: of
        // two copies of one page the newer (higher page LSN) is the one whose home write tore.
        // Restoring the older one could take the page back before the checkpoint, where redo
        // cannot bring it forward.
        let lsn = get_u64(&copy, OFF_PAGE_LSN);
        match repairs.iter_mut().find(|(p, _)| *p == pid) {
            Some((_, kept)) if get_u64(kept, OFF_PAGE_LSN) >= lsn => {}
            Some((_, kept)) => kept.copy_from_slice(&copy),
            None => repairs.push((pid, copy.clone())),
        }
    }
    Ok(repairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Io;
    use crate::page::{put_u64, seal};

    fn page_image(pid: PageId, lsn: u64) -> Vec<u8> {
        let mut p = vec![0u8; PAGE_SIZE];
        put_u64(&mut p, OFF_PAGE_ID, pid);
        put_u64(&mut p, OFF_PAGE_LSN, lsn);
        p[PAGE_SIZE - 1] = lsn as u8;
        seal(&mut p);
        p
    }

    /// A short batch leaves a longer earlier batch's copies in the later slots: when a page's
    /// home write tore and both batches hold a copy of it, the newer copy is the one restored.
    #[test]
    fn a_torn_page_gets_the_newest_of_its_doublewrite_copies() {
        let dir = tempfile::tempdir().unwrap();
        let io = Io::new(Default::default());
        let dw = io.open(&dir.path().join("dw"), true).unwrap();
        let data = io.open(&dir.path().join("data"), true).unwrap();
        // Slot 0: the last batch's copy (LSN 900); slot 2: a stale copy from an earlier batch.
        for (slot, lsn) in [(0u64, 900u64), (1, 0), (2, 400)] {
            let image = if lsn == 0 { page_image(9, 50) } else { page_image(7, lsn) };
            dw.write_at(&image, slot * PAGE_SIZE as u64).unwrap();
        }
        data.write_at(&page_image(9, 50), 9 * PAGE_SIZE as u64).unwrap();
        let mut torn = page_image(7, 900);
        torn[100] ^= 0xff;
        data.write_at(&torn, 7 * PAGE_SIZE as u64).unwrap();
        for order in [[0u64, 2], [2, 0]] {
            // Whichever slot comes first.
            dw.write_at(&page_image(7, 900), order[0] * PAGE_SIZE as u64).unwrap();
            dw.write_at(&page_image(7, 400), order[1] * PAGE_SIZE as u64).unwrap();
            let repairs = doublewrite_repairs(&dw, &data).unwrap();
            assert_eq!(repairs.len(), 1);
            assert_eq!((repairs[0].0, get_u64(&repairs[0].1, OFF_PAGE_LSN)), (7, 900));
        }
    }
}
