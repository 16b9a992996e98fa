//! Undo logs in pages (docs/architecture.md §4.7).
//!
//! Each read-write transaction writes the before-image of every index record it changes into its
//! *undo log*: a chain of undo pages in the tablespace (format: page/undo.rs), read and
//! written through the buffer pool and redo-logged like any page. A transaction of any size
//! therefore costs a few pages of memory at a time (its undo spills to disk with the pool, as
//! InnoDB's undo tablespaces do), and after a crash the undo of every unfinished transaction is
//! in the recovered pages: recovery needs no log older than the last checkpoint, however old the
//! oldest open transaction is.
//!
//! Undo record (never spans pages): `prev u64 | flags u8 | index_id u32 | root u64 | key_len u16
//! | before_len u16 | key | before`. `prev` is the roll pointer of the transaction's previous live
//! record (a partial rollback relinks past what it undid, so the newest record leads through the
//! live ones only). `before` is the previous value *as stored*: inline bytes, or with
//! FLAG_BEFORE_CHAIN the 16-byte reference of an overflow chain that the undo record owns from the
//! change on: a big value is never copied into undo; its chain goes back to the tree if the
//! change is rolled back, and purge frees it otherwise. A roll pointer is `page << 16 | offset`.
//!
//! Records are only appended, and a record's bytes never change afterwards except its flags
//! (undone, chain freed), so an optimistic reader that validates the page after copying a record
//! has a consistent record. Every undo page names its transaction, so a roll pointer into a page
//! that was freed and reused is detected (the record is then gone for good: see `prior_version`).
//!
//! Writes never allocate inside the mtr of the change they record: the roll pointer of the record
//! must be stamped into the new record version, so its place is known before the change is made.
//! When a record does not fit in the current page, the change is given up before anything is
//! changed, an empty page (the *spare*) is linked after the current one in an mtr of its own, and
//! the change is tried again. A log starts as one page; emptied logs are trimmed back to that page
//! and kept for reuse by the session slot that wrote them, so most transactions never touch the
//! tablespace header to get undo space and dirty one undo page each.
//!
//! The set of undo logs that exist (their first pages) is kept in memory and re-logged by every
//! checkpoint (`UndoLogs`), next to the records that create (`UndoLogCreated`) and free
//! (`UndoLogFreed`) one. Recovery takes the union of what it reads after its scan start and then
//! believes only the pages: a first page that does not carry a log header is skipped. The set is
//! thus a superset on purpose, with no lock shared by transactions: registering before the
//! create is logged and unregistering after the free is logged can only add stale entries, which
//! the page check drops.

use std::collections::BTreeSet;

use parking_lot::Mutex;

use crate::btree::overflow::{self, OverflowRef};
use crate::buffer::redo::PageRecord;
use crate::buffer::{PageId, PageStore, MAX_PAGE_COUNT, NO_PAGE, PAGE_SIZE};
use crate::error::{Result, StorageError};
use crate::mtr::Mtr;
use crate::page::undo::{
    OFF_LOG_LAST_PAGE, OFF_LOG_STATE, OFF_UNDO_LAST, OFF_UNDO_PREV, OFF_UNDO_TRX, OFF_UNDO_USED, UNDO_DATA_START,
};
use crate::page::{PageBytes, PageType, Torn, OFF_NEXT};
use crate::trx::logrec::LogRecord;
use crate::types::IndexId;
use crate::wal::Lsn;

/// The state of a log, in its first page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum LogState {
    /// Its transaction is running (after a crash: a loser to roll back).
    Active = 1,
    /// Committed: purge removes the delete-marked records and frees the before-image chains.
    Committed = 2,
    /// Rolled back completely: every record is undone; only the pages remain to free.
    Aborted = 3,
    /// Emptied by purge and kept for reuse by a session slot.
    Cached = 4,
}

impl LogState {
    fn from_u8(v: u8) -> Option<LogState> {
        Some(match v {
            1 => LogState::Active,
            2 => LogState::Committed,
            3 => LogState::Aborted,
            4 => LogState::Cached,
            _ => return None,
        })
    }
}

const FLAG_MARKS_DELETED: u8 = 1;
const FLAG_HAS_BEFORE: u8 = 2;
const FLAG_UNDONE: u8 = 4;
const FLAG_BEFORE_CHAIN: u8 = 8;
const FLAG_CHAIN_FREED: u8 = 16;
/// The record is of a clustered index (its key is the row's lock key).
const FLAG_CLUSTERED: u8 = 32;
/// Offset of the flags byte in a record.
const REC_FLAGS: usize = 8;
/// `prev | flags | index_id | root | key_len | before_len`.
const REC_HEADER: usize = 8 + 1 + 4 + 8 + 2 + 2;
const _: () = assert!(UNDO_DATA_START >= 64 && UNDO_DATA_START < PAGE_SIZE);

/// Roll pointer of a version that has no older version to reach (built by an index build, or
/// the first record of an undo log's `prev` chain). Defined here, with the roll pointer format,
/// so that `record` (which follows roll pointers into this module) and this module agree on it
/// without importing each other.
pub const NO_ROLL_PTR: u64 = u64::MAX;

pub fn roll_ptr(page: PageId, offset: usize) -> u64 {
    debug_assert!(page < MAX_PAGE_COUNT && offset < PAGE_SIZE);
    (page << 16) | offset as u64
}

fn split_roll_ptr(rp: u64) -> (PageId, usize) {
    (rp >> 16, (rp & 0xFFFF) as usize)
}

/// The previous value of a record as an undo record keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Before {
    /// The record did not exist.
    Absent,
    /// Stored inline: the bytes are the whole value.
    Inline(Vec<u8>),
    /// Stored in an overflow chain the undo record owns.
    Chain(OverflowRef),
}

impl Before {
    /// The bytes the tree stores for this value, and whether they are a chain reference.
    fn stored(&self) -> Option<(bool, Vec<u8>)> {
        match self {
            Before::Absent => None,
            Before::Inline(v) => Some((false, v.clone())),
            Before::Chain(r) => Some((true, r.encode().to_vec())),
        }
    }
}

/// One decoded undo record.
#[derive(Clone, Debug)]
pub struct UndoRecord {
    pub roll_ptr: u64,
    /// The transaction's previous live record.
    pub prev: u64,
    pub index_id: IndexId,
    /// The index's tree: rollback restores here even if a DDL removed the index from the catalog
    /// meanwhile (its pages are freed only after this transaction ends).
    pub root: PageId,
    pub key: Vec<u8>,
    pub before: Before,
    /// The version this change wrote is delete-marked (purge removes it if it still is).
    pub marks_deleted: bool,
    /// Restored already by a rollback.
    pub undone: bool,
    /// Purge freed the before-image chain already.
    pub chain_freed: bool,
    /// Of a clustered index: `key` is the row's lock key.
    pub clustered: bool,
}

impl UndoRecord {
    fn flags(&self) -> u8 {
        let mut f = 0;
        if self.marks_deleted {
            f |= FLAG_MARKS_DELETED;
        }
        if self.before != Before::Absent {
            f |= FLAG_HAS_BEFORE;
        }
        if matches!(self.before, Before::Chain(_)) {
            f |= FLAG_BEFORE_CHAIN;
        }
        if self.undone {
            f |= FLAG_UNDONE;
        }
        if self.chain_freed {
            f |= FLAG_CHAIN_FREED;
        }
        if self.clustered {
            f |= FLAG_CLUSTERED;
        }
        f
    }

    /// The version the record had before this change, in the form the tree stores it.
    pub fn stored_before(&self) -> Option<(bool, Vec<u8>)> {
        self.before.stored()
    }
}

/// Encodes a record for `append`. `before_stored`: the previous value as the leaf stored it.
pub fn encode_record(
    prev: u64,
    index_id: IndexId,
    root: PageId,
    key: &[u8],
    before_stored: Option<(bool, &[u8])>,
    marks_deleted: bool,
    clustered: bool,
) -> Vec<u8> {
    let mut flags = if marks_deleted { FLAG_MARKS_DELETED } else { 0 };
    if clustered {
        flags |= FLAG_CLUSTERED;
    }
    let before: &[u8] = match before_stored {
        None => &[],
        Some((chain, b)) => {
            flags |= FLAG_HAS_BEFORE;
            if chain {
                flags |= FLAG_BEFORE_CHAIN;
            }
            b
        }
    };
    let mut out = Vec::with_capacity(REC_HEADER + key.len() + before.len());
    out.extend_from_slice(&prev.to_le_bytes());
    out.push(flags);
    out.extend_from_slice(&index_id.to_le_bytes());
    out.extend_from_slice(&root.to_le_bytes());
    out.extend_from_slice(&(key.len() as u16).to_le_bytes());
    out.extend_from_slice(&(before.len() as u16).to_le_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(before);
    out
}

/// Decodes the record at `off` of a page (bounds-checked: `Torn` if it leaves the page or its
/// fields are impossible).
fn decode_at<P: PageBytes + ?Sized>(p: &P, page: PageId, off: usize) -> std::result::Result<UndoRecord, Torn> {
    let used = p.u16_at(OFF_UNDO_USED)? as usize;
    if off < UNDO_DATA_START || off.checked_add(REC_HEADER).is_none_or(|end| end > used) || used > PAGE_SIZE {
        return Err(Torn);
    }
    let prev = p.u64_at(off)?;
    let flags = p.u8_at(off + REC_FLAGS)?;
    let index_id = p.u32_at(off + 9)?;
    let root = p.u64_at(off + 13)?;
    let key_len = p.u16_at(off + 21)? as usize;
    let before_len = p.u16_at(off + 23)? as usize;
    let key_at = off + REC_HEADER;
    if key_at + key_len + before_len > used {
        return Err(Torn);
    }
    let mut key = Vec::with_capacity(key_len);
    p.copy_at(key_at, key_len, &mut key)?;
    let before = if flags & FLAG_HAS_BEFORE == 0 {
        Before::Absent
    } else {
        let mut b = Vec::with_capacity(before_len);
        p.copy_at(key_at + key_len, before_len, &mut b)?;
        if flags & FLAG_BEFORE_CHAIN != 0 {
            Before::Chain(OverflowRef::decode(&b).ok_or(Torn)?)
        } else {
            Before::Inline(b)
        }
    };
    Ok(UndoRecord {
        roll_ptr: roll_ptr(page, off),
        prev,
        index_id,
        root,
        key,
        before,
        marks_deleted: flags & FLAG_MARKS_DELETED != 0,
        undone: flags & FLAG_UNDONE != 0,
        chain_freed: flags & FLAG_CHAIN_FREED != 0,
        clustered: flags & FLAG_CLUSTERED != 0,
    })
}

/// What the page at a roll pointer holds for transaction `trx_id`.
enum Lookup {
    Record(UndoRecord),
    /// The page no longer belongs to that transaction's log.
    Gone,
}

fn corrupt(what: String) -> StorageError {
    StorageError::Corruption(format!("undo log: {what}"))
}

/// Reads the record at `rp` of transaction `trx_id`'s log (optimistically, validated).
fn lookup(store: &PageStore, trx_id: u64, rp: u64) -> Result<Lookup> {
    let (pid, off) = split_roll_ptr(rp);
    if pid == NO_PAGE || pid >= MAX_PAGE_COUNT {
        return Err(corrupt(format!("roll pointer {rp:#x} names no page")));
    }
    loop {
        let page = store.shared().read_page(pid)?;
        let view = page.view();
        let owned = view.page_type() == Ok(PageType::Undo) && view.u64_at(OFF_UNDO_TRX) == Ok(trx_id);
        let rec = if owned { Some(decode_at(&view, pid, off)) } else { None };
        if !page.validate() {
            continue;
        }
        return match rec {
            None => Ok(Lookup::Gone),
            Some(Ok(r)) => Ok(Lookup::Record(r)),
            Some(Err(Torn)) => {
                Err(corrupt(format!("no valid record at {rp:#x} in page {pid} of transaction {trx_id}")))
            }
        };
    }
}

/// Reads a record of a log that cannot be freed while the caller reads it (its own transaction's,
/// or one purge or recovery owns).
pub fn read_record(store: &PageStore, trx_id: u64, rp: u64) -> Result<UndoRecord> {
    match lookup(store, trx_id, rp)? {
        Lookup::Record(r) => Ok(r),
        Lookup::Gone => Err(corrupt(format!("page of roll pointer {rp:#x} is not in the log of transaction {trx_id}"))),
    }
}

/// What a reader finds behind a roll pointer.
#[derive(Debug, PartialEq, Eq)]
pub enum PriorVersion {
    /// The previous stored value (None: the record did not exist before).
    Found(Option<Vec<u8>>),
    /// The undo record is gone: its transaction finished and was purged after the reader copied
    /// the record, so the record has changed since; the reader re-reads it.
    Stale,
}

/// The version before the one written by the undo record at `rp` of transaction `trx_id`, if
/// that record still is of (`index_id`, `key`). A before-image stored as a chain is read whole.
pub fn prior_version(store: &PageStore, trx_id: u64, rp: u64, index_id: IndexId, key: &[u8]) -> Result<PriorVersion> {
    let rec = match lookup(store, trx_id, rp)? {
        Lookup::Record(r) if r.index_id == index_id && r.key == key => r,
        _ => return Ok(PriorVersion::Stale),
    };
    Ok(match rec.before {
        Before::Absent => PriorVersion::Found(None),
        Before::Inline(v) => PriorVersion::Found(Some(v)),
        Before::Chain(r) if rec.chain_freed => {
            let _ = r;
            PriorVersion::Stale
        }
        Before::Chain(r) => match overflow::read_chain(store.shared(), r) {
            Ok(v) => PriorVersion::Found(Some(v)),
            Err(overflow::ChainError::Fail(e)) => return Err(e),
            // Freed by purge under the reader (only possible once the record is stale too).
            Err(overflow::ChainError::Inconsistent) => PriorVersion::Stale,
        },
    })
}

/// The live records of a log, newest first, from `last` along the `prev` links.
pub struct LiveRecords<'s> {
    store: &'s PageStore,
    trx_id: u64,
    next: u64,
    /// Records visited (a cycle would be corruption; bounded by the log's size).
    steps: u64,
}

impl<'s> LiveRecords<'s> {
    pub fn new(store: &'s PageStore, trx_id: u64, last: u64) -> LiveRecords<'s> {
        LiveRecords { store, trx_id, next: last, steps: 0 }
    }
}

impl Iterator for LiveRecords<'_> {
    type Item = Result<UndoRecord>;
    fn next(&mut self) -> Option<Result<UndoRecord>> {
        if self.next == NO_ROLL_PTR {
            return None;
        }
        self.steps += 1;
        // A log cannot hold more records than its pages have room for.
        if self.steps > MAX_PAGE_COUNT * (PAGE_SIZE / REC_HEADER) as u64 {
            return Some(Err(corrupt(format!("cycle in the log of transaction {}", self.trx_id))));
        }
        let r = read_record(self.store, self.trx_id, self.next);
        match &r {
            Ok(rec) => {
                if rec.prev != NO_ROLL_PTR
                    && rec.prev >= rec.roll_ptr
                    && split_roll_ptr(rec.prev).0 == split_roll_ptr(rec.roll_ptr).0
                {
                    return Some(Err(corrupt(format!("record {:#x} links forward", rec.roll_ptr))));
                }
                self.next = rec.prev;
            }
            Err(_) => self.next = NO_ROLL_PTR,
        }
        Some(r)
    }
}

/// Marks a record undone (in the mtr that restored it) or its chain freed (in the mtr that freed
/// it), so that neither happens twice, whatever crash follows.
pub fn set_record_flags(mtr: &mut Mtr, rec: &UndoRecord) -> Result<()> {
    let (pid, off) = split_roll_ptr(rec.roll_ptr);
    mtr.latch(pid)?;
    mtr.apply(pid, &PageRecord::SetU8 { offset: (off + REC_FLAGS) as u16, value: rec.flags() })
}

/// Sets a log's state in its first page (in the commit or abort mtr).
pub fn set_state(mtr: &mut Mtr, first: PageId, state: LogState) -> Result<()> {
    mtr.latch(first)?;
    mtr.apply(first, &PageRecord::SetU8 { offset: OFF_LOG_STATE as u16, value: state as u8 })
}

/// The first pages of every undo log that exists (see the module doc).
#[derive(Default)]
pub struct UndoLogSet {
    firsts: Mutex<BTreeSet<PageId>>,
}

impl UndoLogSet {
    pub fn new(recovered: impl IntoIterator<Item = PageId>) -> UndoLogSet {
        UndoLogSet { firsts: Mutex::new(recovered.into_iter().collect()) }
    }

    fn register(&self, first: PageId) {
        self.firsts.lock().insert(first);
    }

    /// The logs recovery found in pages (before the first checkpoint re-logs the set).
    pub fn adopt(&self, firsts: impl IntoIterator<Item = PageId>) {
        self.firsts.lock().extend(firsts);
    }

    fn unregister(&self, first: PageId) {
        self.firsts.lock().remove(&first);
    }

    pub fn len(&self) -> usize {
        self.firsts.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn firsts(&self) -> Vec<PageId> {
        self.firsts.lock().iter().copied().collect()
    }

    /// Checkpoint hook: logs the whole set; returns the record's end LSN (None if empty).
    pub fn log_snapshot(&self, store: &PageStore) -> Option<Lsn> {
        let firsts = self.firsts();
        if firsts.is_empty() {
            return None;
        }
        let mut mtr = Mtr::new(store);
        mtr.log_logical(&LogRecord::UndoLogs { firsts }.encode());
        Some(mtr.commit().1)
    }
}

/// A log whose records need nothing more, kept for reuse: `trimmed` (by `release`) to its empty
/// first page, or as its transaction left it (a session's own purge), trimmed by `create`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CachedLog {
    pub first: PageId,
    pub trimmed: bool,
}

/// A transaction's undo log as its writer sees it: where the next record goes.
#[derive(Debug)]
pub struct UndoWriter {
    pub trx_id: u64,
    pub first: PageId,
    /// The page records are appended to, and the end of its records.
    cur: PageId,
    cur_used: usize,
    /// The empty page linked after `cur`, once a record did not fit in `cur` (see the module doc).
    spare: Option<PageId>,
    /// Roll pointer of the newest live record (NO_ROLL_PTR if none).
    pub last: u64,
    /// Pages in the log.
    pub pages: u64,
}

/// Where `UndoWriter::place` put a record.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    pub roll_ptr: u64,
    in_spare: bool,
}

impl UndoWriter {
    /// Starts the log of transaction `trx_id`: reuses `cached` if given, else allocates a page
    /// (registering the log in `set` before its creation is logged).
    pub fn create(store: &PageStore, set: &UndoLogSet, trx_id: u64, cached: Option<CachedLog>) -> Result<UndoWriter> {
        let mut mtr = Mtr::new(store);
        mtr.unhurried();
        let first = match cached {
            Some(c) => {
                if !c.trimmed {
                    let pages = log_pages(store, c.first)?;
                    if let (Some(&second), Some(&last)) = (pages.get(1), pages.last()) {
                        mtr.free_chain(second, last)?;
                    }
                }
                mtr.latch(c.first)?;
                c.first
            }
            None => {
                let first = mtr.alloc_page()?;
                set.register(first);
                mtr.log_logical(&LogRecord::UndoLogCreated { first }.encode());
                first
            }
        };
        mtr.apply(first, &PageRecord::UndoInit { trx_id, prev: NO_PAGE, state: LogState::Active as u8 })?;
        mtr.commit();
        Ok(UndoWriter {
            trx_id,
            first,
            cur: first,
            cur_used: UNDO_DATA_START,
            spare: None,
            last: NO_ROLL_PTR,
            pages: 1,
        })
    }

    /// Links an empty page after the current one (allocating it in an mtr of its own), for the
    /// record that did not fit (`place` returned None).
    pub fn ensure_spare(&mut self, store: &PageStore) -> Result<()> {
        if self.spare.is_some() {
            return Ok(());
        }
        let mut mtr = Mtr::new(store);
        mtr.unhurried();
        // Latch order: page 0 and the new page first (alloc), then our own undo pages, which no
        // other thread ever latches exclusively.
        let new = mtr.alloc_page()?;
        mtr.apply(new, &PageRecord::UndoInit { trx_id: self.trx_id, prev: self.cur, state: 0 })?;
        mtr.latch(self.cur)?;
        mtr.apply(self.cur, &PageRecord::SetU64 { offset: OFF_NEXT as u16, value: new })?;
        mtr.latch(self.first)?;
        mtr.apply(self.first, &PageRecord::SetU64 { offset: OFF_LOG_LAST_PAGE as u16, value: new })?;
        mtr.commit();
        self.spare = Some(new);
        self.pages += 1;
        Ok(())
    }

    /// Latches the pages the next record can go to (the current page and the spare), ahead of
    /// the tree change in the same mtr (`Mtr::latch_private`): appending the record after the
    /// change then touches only latched, resident pages.
    pub fn latch_pages(&self, mtr: &mut Mtr) -> Result<()> {
        mtr.latch_private(self.cur)?;
        if let Some(spare) = self.spare {
            mtr.latch_private(spare)?;
        }
        Ok(())
    }

    /// Where a record of `len` bytes goes; None if it needs a spare page first (`ensure_spare`,
    /// outside the change's mtr).
    pub fn place(&self, len: usize) -> Option<Placement> {
        assert!(UNDO_DATA_START + len <= PAGE_SIZE, "undo record of {len} bytes does not fit a page");
        if self.cur_used + len <= PAGE_SIZE {
            Some(Placement { roll_ptr: roll_ptr(self.cur, self.cur_used), in_spare: false })
        } else {
            self.spare.map(|spare| Placement { roll_ptr: roll_ptr(spare, UNDO_DATA_START), in_spare: true })
        }
    }

    /// Appends the record placed at `at`, in the mtr of the change it records (after the tree
    /// change: undo pages come last in the latch order).
    pub fn append(&mut self, mtr: &mut Mtr, at: Placement, record: &[u8]) -> Result<()> {
        let (pid, off) = split_roll_ptr(at.roll_ptr);
        mtr.latch(pid)?;
        mtr.apply(pid, &PageRecord::UndoAppend { data: record })?;
        if at.in_spare {
            self.cur = pid;
            self.spare = None;
        }
        self.cur_used = off + record.len();
        self.last = at.roll_ptr;
        Ok(())
    }

    /// Makes `last` the newest live record again (after a partial rollback undid the later ones).
    pub fn rewind_to(&mut self, last: u64) {
        self.last = last;
    }
}

/// What recovery finds in the first page of a log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogInfo {
    pub first: PageId,
    pub trx_id: u64,
    pub state: LogState,
    /// The physically newest record (NO_ROLL_PTR if none); the live records follow from it.
    pub newest: u64,
    pub last_page: PageId,
}

/// Whether a page image is the first page of an undo log.
pub fn is_first_page(page: &[u8]) -> bool {
    page.page_type() == Ok(PageType::Undo) && page.get(OFF_LOG_STATE).copied().and_then(LogState::from_u8).is_some()
}

/// Reads a log's header, or None if `first` does not hold the first page of a log (a stale entry
/// of the recovered set: see the module doc).
pub fn inspect(store: &PageStore, first: PageId) -> Result<Option<LogInfo>> {
    if first == NO_PAGE || first >= MAX_PAGE_COUNT {
        return Ok(None);
    }
    let head = read_head(store, first)?;
    if !head.is_undo {
        return Ok(None);
    }
    let Some(state) = LogState::from_u8(head.state) else { return Ok(None) };
    let (trx_id, last_page) = (head.trx, head.last_page);
    // The newest record is in the last page that has one, walking back from the log's end.
    let mut pid = last_page;
    let mut newest = NO_ROLL_PTR;
    let mut steps = 0u64;
    while pid != NO_PAGE {
        steps += 1;
        if pid >= MAX_PAGE_COUNT || steps > MAX_PAGE_COUNT {
            return Err(corrupt(format!("log at page {first}: broken page chain at {pid}")));
        }
        let head = read_head(store, pid)?;
        if !head.is_undo || head.trx != trx_id {
            return Err(corrupt(format!("log at page {first}: page {pid} is not a page of transaction {trx_id}")));
        }
        if head.last != 0 {
            newest = roll_ptr(pid, head.last as usize);
            break;
        }
        pid = head.prev;
    }
    Ok(Some(LogInfo { first, trx_id, state, newest, last_page }))
}

/// The header fields of an undo page that walks over a log need.
struct PageHead {
    is_undo: bool,
    trx: u64,
    next: PageId,
    prev: PageId,
    last: u16,
    state: u8,
    last_page: PageId,
}

/// Reads an undo page's header fields in place: purge walks every finished log, and copying
/// whole pages for a few bytes was a tenth of a busy server's CPU.
fn read_head(store: &PageStore, pid: PageId) -> Result<PageHead> {
    let shared = store.shared();
    loop {
        let p = shared.read_page(pid)?;
        let v = p.view();
        let head = (|| -> std::result::Result<PageHead, Torn> {
            Ok(PageHead {
                is_undo: v.page_type() == Ok(PageType::Undo),
                trx: v.u64_at(OFF_UNDO_TRX)?,
                next: v.u64_at(OFF_NEXT)?,
                prev: v.u64_at(OFF_UNDO_PREV)?,
                last: v.u16_at(OFF_UNDO_LAST)?,
                state: v.u8_at(OFF_LOG_STATE)?,
                last_page: v.u64_at(OFF_LOG_LAST_PAGE)?,
            })
        })();
        if p.validate() {
            return head.map_err(|_| corrupt(format!("undo page {pid}: header out of bounds")));
        }
    }
}

/// Every page of a log, first to last (space accounting, and freeing).
pub fn log_pages(store: &PageStore, first: PageId) -> Result<Vec<PageId>> {
    let mut out = Vec::new();
    let mut pid = first;
    let mut trx = None;
    while pid != NO_PAGE {
        if pid >= MAX_PAGE_COUNT || out.len() as u64 >= MAX_PAGE_COUNT {
            return Err(corrupt(format!("log at page {first}: broken page chain at {pid}")));
        }
        let head = read_head(store, pid)?;
        if !head.is_undo || *trx.get_or_insert(head.trx) != head.trx {
            return Err(corrupt(format!("log at page {first}: page {pid} does not belong to it")));
        }
        out.push(pid);
        pid = head.next;
    }
    Ok(out)
}

/// Every page a log owns: its own pages and the before-image chains of its records not yet
/// given back or freed, less the chain tails shared with chains `census` counted before (space
/// accounting).
pub fn owned_pages(store: &PageStore, first: PageId, census: &mut overflow::ChainCensus) -> Result<Vec<PageId>> {
    let mut out = log_pages(store, first)?;
    let Some(info) = inspect(store, first)? else { return Ok(out) };
    for rec in LiveRecords::new(store, info.trx_id, info.newest) {
        let rec = rec?;
        if let Before::Chain(r) = rec.before {
            if !rec.undone && !rec.chain_freed {
                out.extend(census.pages(store.shared(), r)?);
            }
        }
    }
    Ok(out)
}

/// Frees the before-image chain of a committed transaction's record (purge), marking the record
/// in the same mtr so that it is never freed twice.
pub fn free_before_chain(store: &PageStore, rec: &UndoRecord) -> Result<()> {
    let Before::Chain(r) = rec.before else { return Ok(()) };
    if rec.chain_freed || rec.undone {
        return Ok(());
    }
    // Only the pages no newer version shares go (btree/overflow.rs).
    let pages = overflow::walk_chain(store.shared(), r)?;
    let mut mtr = Mtr::new(store);
    mtr.unhurried();
    overflow::release_chain(&mut mtr, &pages)?;
    let mut marked = rec.clone();
    marked.chain_freed = true;
    set_record_flags(&mut mtr, &marked)?;
    mtr.commit();
    Ok(())
}

/// Disposes of a finished log whose records need nothing more: keeps it for reuse if `keep`
/// (an empty cache slot), trimmed to its first page, else frees every page. Returns the log kept
/// for reuse, if any.
pub fn release(store: &PageStore, set: &UndoLogSet, first: PageId, keep: bool) -> Result<Option<CachedLog>> {
    let pages = log_pages(store, first)?;
    let mut mtr = Mtr::new(store);
    mtr.unhurried();
    if keep {
        let rest = &pages[1..];
        if let (Some(&second), Some(&last)) = (rest.first(), rest.last()) {
            mtr.free_chain(second, last)?;
        }
        mtr.latch(first)?;
        mtr.apply(first, &PageRecord::UndoInit { trx_id: 0, prev: NO_PAGE, state: LogState::Cached as u8 })?;
        mtr.commit();
        return Ok(Some(CachedLog { first, trimmed: true }));
    }
    // The first page stops being a log (a free page still linked to the rest), then the whole
    // chain joins the free list; both in the mtr that logs the log freed.
    let last = *pages.last().expect("a log has its first page");
    let second = pages.get(1).copied().unwrap_or(NO_PAGE);
    mtr.latch(first)?;
    mtr.apply(first, &PageRecord::Init { page_type: PageType::Free, level: 0, link: second })?;
    mtr.free_chain(first, last)?;
    mtr.log_logical(&LogRecord::UndoLogFreed { first }.encode());
    mtr.commit();
    set.unregister(first);
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_roundtrip_through_a_page() {
        let mut page = vec![0u8; PAGE_SIZE];
        crate::page::undo::format_page(&mut page, 9, 77, NO_PAGE, LogState::Active as u8);
        let a = encode_record(NO_ROLL_PTR, 5, 3, b"key-a", None, false, true);
        let chain = OverflowRef { len: 70_000, first: 40 }.encode();
        let b = encode_record(roll_ptr(9, UNDO_DATA_START), 6, 4, b"key-b", Some((true, &chain[..])), true, false);
        let c = encode_record(
            roll_ptr(9, UNDO_DATA_START + a.len()),
            6,
            4,
            b"k",
            Some((false, b"old value")),
            false,
            false,
        );
        for r in [&a, &b, &c] {
            crate::page::undo::append_to_page(&mut page, r).unwrap();
        }
        let ra = decode_at(&page[..], 9, UNDO_DATA_START).unwrap();
        assert_eq!(
            (ra.prev, ra.index_id, ra.root, ra.key.as_slice(), &ra.before),
            (NO_ROLL_PTR, 5, 3, &b"key-a"[..], &Before::Absent)
        );
        assert!(ra.clustered);
        let rb = decode_at(&page[..], 9, UNDO_DATA_START + a.len()).unwrap();
        assert_eq!(rb.before, Before::Chain(OverflowRef { len: 70_000, first: 40 }));
        assert!(rb.marks_deleted && !rb.undone);
        assert_eq!(rb.stored_before(), Some((true, chain.to_vec())));
        let rc = decode_at(&page[..], 9, UNDO_DATA_START + a.len() + b.len()).unwrap();
        assert_eq!(rc.before, Before::Inline(b"old value".to_vec()));
        assert_eq!(rc.prev, roll_ptr(9, UNDO_DATA_START + a.len()));
        // Garbage offsets are errors, never panics.
        for off in [0, UNDO_DATA_START - 1, UNDO_DATA_START + 1, PAGE_SIZE - 3, PAGE_SIZE, usize::MAX - 8] {
            let _ = decode_at(&page[..], 9, off);
        }
        assert!(decode_at(&page[..], 9, UNDO_DATA_START + a.len() + b.len() + c.len()).is_err());
    }

    #[test]
    fn roll_pointers_split_back() {
        let rp = roll_ptr(123_456_789, 16_000);
        assert_eq!(split_roll_ptr(rp), (123_456_789, 16_000));
        assert_ne!(rp, NO_ROLL_PTR);
    }
}
