//! Row locks (docs/architecture.md §4.7): S and X locks on (index id, key bytes), held until the
//! owning transaction ends.
//!
//! The table is partitioned into `LOCK_SHARDS` shards by key hash, each a mutex over a hash map of
//! per-key queues, so unrelated rows never share a cache line. A queue has the granted requests
//! and a FIFO of waiters; a new request is granted at once only if it is compatible with every
//! granted request and nobody waits (fairness: a stream of S requests cannot starve an X waiter).
//!
//! Waits are async: the waiter parks on a oneshot channel that the releasing transaction fires
//! after moving the request to the granted list (the shard's queue is the source of truth; the
//! message is only a wake-up). Deadlocks are detected when a wait begins — only on that slow
//! path, under one detector mutex — by walking the waits-for graph derived from the queues.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crossbeam_utils::CachePadded;
use parking_lot::Mutex;
use smallvec::SmallVec;
use tokio::sync::oneshot;

use crate::types::{IndexId, LockMode};

/// Number of lock table partitions.
pub const LOCK_SHARDS: usize = 1024;
/// The deadlock search gives up after visiting this many transactions and treats the request as
/// a deadlock (as InnoDB does for very deep waits-for graphs): bounded work on the slow path.
const MAX_DEADLOCK_SEARCH: usize = 10_000;

/// Who holds a lock: one transaction (session slot index and a per-slot generation, so two
/// successive transactions of one session never look alike).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LockOwner(pub u64);

/// A lockable object: a key of one index (the clustered key, or the column values of a unique
/// secondary index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockKey {
    pub index_id: IndexId,
    pub key: Box<[u8]>,
    hash: u64,
}

impl LockKey {
    pub fn new(index_id: IndexId, key: &[u8]) -> LockKey {
        let mut h = FxHasher::default();
        h.write_u32(index_id);
        h.write(key);
        LockKey { index_id, key: key.into(), hash: h.finish() }
    }
    fn shard(&self) -> usize {
        // The high bits are the best mixed ones of the multiplicative hash.
        (self.hash >> 32) as usize % LOCK_SHARDS
    }
}

impl Hash for LockKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// A small multiplicative hasher (rustc's FxHash): lock keys are short and not attacker-chosen
/// in a way that matters for a per-shard map.
#[derive(Default)]
struct FxHasher {
    hash: u64,
}

const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w) ^ chunk.len() as u64);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.hash = (self.hash.rotate_left(5) ^ v).wrapping_mul(FX_SEED);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64)
    }
    fn finish(&self) -> u64 {
        self.hash
    }
}

type FxBuild = BuildHasherDefault<FxHasher>;

fn compatible(a: LockMode, b: LockMode) -> bool {
    a == LockMode::Shared && b == LockMode::Shared
}

/// A mode that is at least as strong as both.
fn stronger(a: LockMode, b: LockMode) -> LockMode {
    if a == LockMode::Exclusive || b == LockMode::Exclusive {
        LockMode::Exclusive
    } else {
        LockMode::Shared
    }
}

struct Waiter {
    owner: LockOwner,
    mode: LockMode,
    wake: Option<oneshot::Sender<()>>,
}

#[derive(Default)]
struct Queue {
    granted: SmallVec<[(LockOwner, LockMode); 2]>,
    waiting: VecDeque<Waiter>,
}

impl Queue {
    fn granted_mode(&self, owner: LockOwner) -> Option<LockMode> {
        self.granted.iter().find(|g| g.0 == owner).map(|g| g.1)
    }

    /// Whether `owner` may hold `mode` given the other granted requests.
    fn grantable(&self, owner: LockOwner, mode: LockMode) -> bool {
        self.granted.iter().all(|&(o, m)| o == owner || compatible(m, mode))
    }

    fn grant(&mut self, owner: LockOwner, mode: LockMode) {
        match self.granted.iter_mut().find(|g| g.0 == owner) {
            Some(g) => g.1 = stronger(g.1, mode),
            None => self.granted.push((owner, mode)),
        }
    }

    /// Grants waiters from the front of the queue while they are compatible.
    fn grant_waiters(&mut self) {
        while let Some(w) = self.waiting.front() {
            if !self.grantable(w.owner, w.mode) {
                break;
            }
            let mut w = self.waiting.pop_front().expect("front exists");
            self.grant(w.owner, w.mode);
            if let Some(tx) = w.wake.take() {
                // The receiver may be gone (timed out concurrently): its cleanup finds the
                // request granted and keeps it.
                let _ = tx.send(());
            }
        }
    }
}

#[derive(Default)]
struct Shard {
    queues: HashMap<LockKey, Queue, FxBuild>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum LockError {
    Timeout,
    Deadlock,
}

/// Lock table counters (written only on the slow paths: waits, timeouts, deadlocks).
#[derive(Clone, Debug, Default)]
pub struct LockStats {
    pub waits: u64,
    pub current_waits: u64,
    pub timeouts: u64,
    pub deadlocks: u64,
}

pub struct LockTable {
    shards: Box<[CachePadded<Mutex<Shard>>]>,
    /// Waiting owners and what they wait for: edges of the waits-for graph. Only touched when a
    /// wait begins or ends.
    detector: Mutex<HashMap<LockOwner, LockKey>>,
    waits: AtomicU64,
    current_waits: AtomicU64,
    timeouts: AtomicU64,
    deadlocks: AtomicU64,
}

impl Default for LockTable {
    fn default() -> Self {
        LockTable::new()
    }
}

/// Removes a pending request when its wait ends for any reason, including the waiting future
/// being dropped (a client disconnect): nothing dangles in the queue.
struct WaitGuard<'a> {
    table: &'a LockTable,
    owner: LockOwner,
    key: &'a LockKey,
}

impl Drop for WaitGuard<'_> {
    fn drop(&mut self) {
        self.table.detector.lock().remove(&self.owner);
        self.table.current_waits.fetch_sub(1, Ordering::Relaxed);
        let mut shard = self.table.shards[self.key.shard()].lock();
        if let Some(q) = shard.queues.get_mut(self.key) {
            if let Some(pos) = q.waiting.iter().position(|w| w.owner == self.owner) {
                q.waiting.remove(pos);
                // A removed waiter may have blocked compatible requests behind it.
                q.grant_waiters();
            }
            if q.granted.is_empty() && q.waiting.is_empty() {
                shard.queues.remove(self.key);
            }
        }
    }
}

impl LockTable {
    pub fn new() -> LockTable {
        LockTable {
            shards: (0..LOCK_SHARDS).map(|_| CachePadded::new(Mutex::new(Shard::default()))).collect(),
            detector: Mutex::new(HashMap::new()),
            waits: AtomicU64::new(0),
            current_waits: AtomicU64::new(0),
            timeouts: AtomicU64::new(0),
            deadlocks: AtomicU64::new(0),
        }
    }

    /// Acquires `mode` on `key` for `owner`, waiting up to `timeout`. Re-requesting a lock the
    /// owner holds in an equal or stronger mode returns at once; S → X is an upgrade.
    pub async fn lock(
        &self,
        owner: LockOwner,
        key: &LockKey,
        mode: LockMode,
        timeout: Duration,
    ) -> Result<(), LockError> {
        let rx = {
            let mut shard = self.shards[key.shard()].lock();
            let q = shard.queues.entry(key.clone()).or_default();
            let held = q.granted_mode(owner);
            if held == Some(LockMode::Exclusive) || held == Some(mode) {
                return Ok(());
            }
            let upgrade = held.is_some();
            // An upgrade does not queue behind waiters: they wait for us anyway.
            if q.grantable(owner, mode) && (upgrade || q.waiting.is_empty()) {
                q.grant(owner, mode);
                return Ok(());
            }
            let (tx, rx) = oneshot::channel();
            let w = Waiter { owner, mode, wake: Some(tx) };
            if upgrade {
                q.waiting.push_front(w);
            } else {
                q.waiting.push_back(w);
            }
            rx
        };
        self.waits.fetch_add(1, Ordering::Relaxed);
        self.current_waits.fetch_add(1, Ordering::Relaxed);
        let guard = WaitGuard { table: self, owner, key };
        if self.would_deadlock(owner, key) {
            self.deadlocks.fetch_add(1, Ordering::Relaxed);
            drop(guard);
            // The victim gives up its request; if it was granted in the meantime it keeps it
            // until its transaction rolls back, which releases everything.
            return Err(LockError::Deadlock);
        }
        let granted = match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(())) => true,
            // Sender dropped without a grant cannot happen while the request is queued; the
            // shard state decides below either way.
            Ok(Err(_)) | Err(_) => false,
        };
        if granted {
            return Ok(());
        }
        // Timed out: the shard is the source of truth (a grant may have raced the timeout).
        let held = {
            let shard = self.shards[key.shard()].lock();
            shard.queues.get(key).and_then(|q| q.granted_mode(owner))
        };
        drop(guard);
        if held.is_some_and(|h| stronger(h, mode) == h) {
            return Ok(());
        }
        self.timeouts.fetch_add(1, Ordering::Relaxed);
        Err(LockError::Timeout)
    }

    /// Grants `mode` on `key` to `owner` now if nothing conflicts (no waiting): a rollback
    /// re-takes the lock of a row whose implicit lock it is about to give up. False if it cannot.
    pub fn try_lock(&self, owner: LockOwner, key: &LockKey, mode: LockMode) -> bool {
        let mut shard = self.shards[key.shard()].lock();
        let q = shard.queues.entry(key.clone()).or_default();
        let held = q.granted_mode(owner);
        if held.is_some_and(|h| stronger(h, mode) == h) {
            return true;
        }
        if q.grantable(owner, mode) && (held.is_some() || q.waiting.is_empty()) {
            q.grant(owner, mode);
            return true;
        }
        if q.granted.is_empty() && q.waiting.is_empty() {
            shard.queues.remove(key);
        }
        false
    }

    /// Grants an exclusive lock on `key` to `holder`, whatever is queued: `holder` owns the row
    /// already through an implicit lock (its uncommitted change; see trx/txn.rs), which another
    /// transaction turns into this explicit one so that it can wait for it.
    pub fn grant_implicit(&self, holder: LockOwner, key: &LockKey) {
        let mut shard = self.shards[key.shard()].lock();
        shard.queues.entry(key.clone()).or_default().grant(holder, LockMode::Exclusive);
    }

    /// Releases `owner`'s lock on `key` if nobody waits for it (the row's implicit lock covers it
    /// from now on). Returns whether it was released.
    pub fn release_if_unwaited(&self, owner: LockOwner, key: &LockKey) -> bool {
        let mut shard = self.shards[key.shard()].lock();
        let Some(q) = shard.queues.get_mut(key) else { return true };
        if !q.waiting.is_empty() {
            return false;
        }
        q.granted.retain(|g| g.0 != owner);
        if q.granted.is_empty() {
            shard.queues.remove(key);
        }
        true
    }

    /// True if `owner` holds `key` in `mode` or a stronger one.
    pub fn holds(&self, owner: LockOwner, key: &LockKey, mode: LockMode) -> bool {
        let shard = self.shards[key.shard()].lock();
        shard.queues.get(key).and_then(|q| q.granted_mode(owner)).is_some_and(|h| stronger(h, mode) == h)
    }

    /// Releases `owner`'s locks on `keys` (keys it does not hold are ignored) and grants waiters.
    pub fn release_all<'k>(&self, owner: LockOwner, keys: impl IntoIterator<Item = &'k LockKey>) {
        for key in keys {
            let mut shard = self.shards[key.shard()].lock();
            let Some(q) = shard.queues.get_mut(key) else { continue };
            let before = q.granted.len();
            q.granted.retain(|g| g.0 != owner);
            if q.granted.len() != before {
                q.grant_waiters();
            }
            if q.granted.is_empty() && q.waiting.is_empty() {
                shard.queues.remove(key);
            }
        }
    }

    /// Owners `owner` waits for on `key`: conflicting holders and conflicting waiters ahead of
    /// it (FIFO grants make those block it too). Empty if it no longer waits there.
    fn blockers(&self, owner: LockOwner, key: &LockKey) -> SmallVec<[LockOwner; 4]> {
        let shard = self.shards[key.shard()].lock();
        let mut out = SmallVec::new();
        let Some(q) = shard.queues.get(key) else { return out };
        let Some(pos) = q.waiting.iter().position(|w| w.owner == owner) else { return out };
        let mode = q.waiting[pos].mode;
        for &(o, m) in &q.granted {
            if o != owner && !compatible(m, mode) {
                out.push(o);
            }
        }
        for w in q.waiting.iter().take(pos) {
            if w.owner != owner && !compatible(w.mode, mode) {
                out.push(w.owner);
            }
        }
        out
    }

    /// Registers `owner`'s wait on `key` and searches the waits-for graph for a cycle back to
    /// it. Detection is serialized, so of two transactions closing a cycle at the same moment
    /// the second to check sees the first's edge.
    fn would_deadlock(&self, owner: LockOwner, key: &LockKey) -> bool {
        let mut waits = self.detector.lock();
        waits.insert(owner, key.clone());
        let mut stack: Vec<LockOwner> = self.blockers(owner, key).into_vec();
        let mut seen: HashSet<LockOwner> = HashSet::new();
        while let Some(o) = stack.pop() {
            if o == owner {
                waits.remove(&owner);
                return true;
            }
            if !seen.insert(o) {
                continue;
            }
            if seen.len() > MAX_DEADLOCK_SEARCH {
                waits.remove(&owner);
                return true;
            }
            if let Some(k) = waits.get(&o) {
                // Waiters queued on one key all block each other (FIFO): without this filter a
                // queue of n waiters pushes O(n^2) edges while ~1,000 sessions wait.
                stack.extend(self.blockers(o, k).into_iter().filter(|b| *b == owner || !seen.contains(b)));
            }
        }
        false
    }

    pub fn stats(&self) -> LockStats {
        LockStats {
            waits: self.waits.load(Ordering::Relaxed),
            current_waits: self.current_waits.load(Ordering::Relaxed),
            timeouts: self.timeouts.load(Ordering::Relaxed),
            deadlocks: self.deadlocks.load(Ordering::Relaxed),
        }
    }

    /// Number of keys with a lock queue (for tests and diagnostics).
    pub fn queued_keys(&self) -> usize {
        self.shards.iter().map(|s| s.lock().queues.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    const LONG: Duration = Duration::from_secs(10);

    fn k(n: u8) -> LockKey {
        LockKey::new(1, &[n])
    }

    #[tokio::test]
    async fn shared_locks_coexist_and_exclusive_waits() {
        let t = Arc::new(LockTable::new());
        let (a, b, c) = (LockOwner(1), LockOwner(2), LockOwner(3));
        t.lock(a, &k(1), LockMode::Shared, LONG).await.unwrap();
        t.lock(b, &k(1), LockMode::Shared, LONG).await.unwrap();
        let t2 = t.clone();
        let waiter = tokio::spawn(async move { t2.lock(c, &k(1), LockMode::Exclusive, LONG).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished());
        t.release_all(a, [&k(1)]);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished());
        t.release_all(b, [&k(1)]);
        waiter.await.unwrap().unwrap();
        assert!(t.holds(c, &k(1), LockMode::Exclusive));
        t.release_all(c, [&k(1)]);
        assert_eq!(t.queued_keys(), 0);
    }

    #[tokio::test]
    async fn fifo_fairness_blocks_new_shared_behind_exclusive_waiter() {
        let t = Arc::new(LockTable::new());
        t.lock(LockOwner(1), &k(1), LockMode::Shared, LONG).await.unwrap();
        let t2 = t.clone();
        let x = tokio::spawn(async move { t2.lock(LockOwner(2), &k(1), LockMode::Exclusive, LONG).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        let r = t.lock(LockOwner(3), &k(1), LockMode::Shared, Duration::from_millis(30)).await;
        assert_eq!(r, Err(LockError::Timeout));
        t.release_all(LockOwner(1), [&k(1)]);
        x.await.unwrap().unwrap();
        assert_eq!(t.stats().timeouts, 1);
    }

    #[tokio::test]
    async fn timeout_leaves_queue_clean() {
        let t = LockTable::new();
        t.lock(LockOwner(1), &k(1), LockMode::Exclusive, LONG).await.unwrap();
        let r = t.lock(LockOwner(2), &k(1), LockMode::Exclusive, Duration::from_millis(20)).await;
        assert_eq!(r, Err(LockError::Timeout));
        t.release_all(LockOwner(1), [&k(1)]);
        assert_eq!(t.queued_keys(), 0);
        t.lock(LockOwner(2), &k(1), LockMode::Exclusive, LONG).await.unwrap();
    }

    #[tokio::test]
    async fn crossing_waits_are_a_deadlock() {
        let t = Arc::new(LockTable::new());
        let (a, b) = (LockOwner(1), LockOwner(2));
        t.lock(a, &k(1), LockMode::Exclusive, LONG).await.unwrap();
        t.lock(b, &k(2), LockMode::Exclusive, LONG).await.unwrap();
        let t2 = t.clone();
        let a_waits = tokio::spawn(async move { t2.lock(a, &k(2), LockMode::Exclusive, LONG).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(t.lock(b, &k(1), LockMode::Exclusive, LONG).await, Err(LockError::Deadlock));
        // The victim rolls back: releasing its locks lets the other one through.
        t.release_all(b, [&k(2)]);
        a_waits.await.unwrap().unwrap();
        assert_eq!(t.stats().deadlocks, 1);
    }

    #[tokio::test]
    async fn upgrade_by_two_shared_holders_is_a_deadlock() {
        let t = Arc::new(LockTable::new());
        let (a, b) = (LockOwner(1), LockOwner(2));
        t.lock(a, &k(1), LockMode::Shared, LONG).await.unwrap();
        t.lock(b, &k(1), LockMode::Shared, LONG).await.unwrap();
        let t2 = t.clone();
        let a_up = tokio::spawn(async move { t2.lock(a, &k(1), LockMode::Exclusive, LONG).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(t.lock(b, &k(1), LockMode::Exclusive, LONG).await, Err(LockError::Deadlock));
        t.release_all(b, [&k(1)]);
        a_up.await.unwrap().unwrap();
        assert!(t.holds(a, &k(1), LockMode::Exclusive));
    }

    #[tokio::test]
    async fn dropped_wait_future_leaves_nothing_behind() {
        let t = Arc::new(LockTable::new());
        t.lock(LockOwner(1), &k(1), LockMode::Exclusive, LONG).await.unwrap();
        let t2 = t.clone();
        let h = tokio::spawn(async move { t2.lock(LockOwner(2), &k(1), LockMode::Exclusive, LONG).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        h.abort();
        let _ = h.await;
        t.release_all(LockOwner(1), [&k(1)]);
        assert_eq!(t.queued_keys(), 0);
        assert_eq!(t.stats().current_waits, 0);
    }

    #[tokio::test]
    async fn many_tasks_increment_under_exclusive_lock() {
        // Mutual exclusion check: a non-atomic read-modify-write guarded only by the lock.
        let t = Arc::new(LockTable::new());
        let counter = Arc::new(std::sync::Mutex::new(0u64));
        let n = if std::env::var("SELKIE_STRESS").is_ok() { 2000 } else { 200 };
        let mut hs = vec![];
        for i in 0..8u64 {
            let (t, counter) = (t.clone(), counter.clone());
            hs.push(tokio::spawn(async move {
                for j in 0..n / 8 {
                    let owner = LockOwner(i << 32 | j);
                    t.lock(owner, &k(9), LockMode::Exclusive, LONG).await.unwrap();
                    let v = *counter.lock().unwrap();
                    tokio::task::yield_now().await;
                    *counter.lock().unwrap() = v + 1;
                    t.release_all(owner, [&k(9)]);
                }
            }));
        }
        for h in hs {
            h.await.unwrap();
        }
        assert_eq!(*counter.lock().unwrap(), n / 8 * 8);
    }
}
