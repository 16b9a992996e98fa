//! Entry storage: a hash map from key hash to a slab of entries threaded on an LRU list.
//! Single-threaded; the shared mode wraps shards of it in mutexes.
//!
//! The map is keyed by the 64-bit keyed (SipHash) hash of the `CacheKey`, computed once per
//! operation; the entry keeps its full key, and a lookup whose key differs from the entry's is
//! a miss (a 64-bit collision of a keyed hash: storing the new key replaces the old one).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

use smallvec::SmallVec;

use super::generations::Slot;
use super::types::{CacheKey, CachedResult};

/// Bytes charged per entry beyond its key and result: the entry, its map slot, its slab slot.
pub(crate) const ENTRY_OVERHEAD: usize = 192;

const NIL: u32 = u32::MAX;

pub(crate) struct Entry {
    pub key: CacheKey,
    pub result: CachedResult,
    /// Table-generation slots the result depends on.
    pub slots: SmallVec<[Slot; 4]>,
    /// Invalidation epoch read before the query that produced the result was sent.
    pub as_of: u64,
    pub stored_at: Instant,
    /// Set when a caller was handed `StaleRefresh`: others get the stale entry meanwhile.
    pub refresh_claimed_at: Option<Instant>,
    pub size: usize,
}

impl Entry {
    pub fn charge(key: &CacheKey, result: &CachedResult) -> usize {
        ENTRY_OVERHEAD
            + result.packets.len()
            + key.statement.len()
            + key.params.len()
            + key.user.len()
            + key.db.as_ref().map_or(0, |d| d.len())
    }
}

struct Node {
    entry: Option<Entry>,
    hash: u64,
    prev: u32,
    next: u32,
}

/// The map's keys are already uniformly distributed hashes.
#[derive(Default)]
pub(crate) struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

pub(crate) type HashIndex<V> = HashMap<u64, V, BuildHasherDefault<IdentityHasher>>;

pub(crate) struct LruStore {
    max_size: usize,
    size: usize,
    index: HashIndex<u32>,
    nodes: Vec<Node>,
    free: Vec<u32>,
    /// Most recently used.
    head: u32,
    /// Least recently used: evicted first.
    tail: u32,
}

impl LruStore {
    pub fn new(max_size: usize) -> LruStore {
        LruStore {
            max_size,
            size: 0,
            index: HashIndex::default(),
            nodes: Vec::new(),
            free: Vec::new(),
            head: NIL,
            tail: NIL,
        }
    }

    pub fn size(&self) -> usize {
        self.size
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// The slab index of the entry for `key`, if stored.
    pub fn find(&self, hash: u64, key: &CacheKey) -> Option<u32> {
        let &i = self.index.get(&hash)?;
        let entry = self.nodes[i as usize].entry.as_ref();
        debug_assert!(entry.is_some(), "the index points at live nodes only");
        (entry?.key == *key).then_some(i)
    }

    pub fn entry_mut(&mut self, i: u32) -> &mut Entry {
        self.nodes[i as usize].entry.as_mut().expect("live node")
    }

    /// Marks `i` most recently used.
    pub fn touch(&mut self, i: u32) {
        if self.head != i {
            self.unlink(i);
            self.push_front(i);
        }
    }

    pub fn remove(&mut self, i: u32) -> Entry {
        self.unlink(i);
        let node = &mut self.nodes[i as usize];
        let entry = node.entry.take().expect("live node");
        let removed = self.index.remove(&node.hash);
        debug_assert_eq!(removed, Some(i));
        self.size -= entry.size;
        self.free.push(i);
        entry
    }

    /// Removes the entry stored under `hash`, if any (whatever its key).
    pub fn remove_hash(&mut self, hash: u64) -> bool {
        match self.index.get(&hash) {
            Some(&i) => {
                self.remove(i);
                true
            }
            None => false,
        }
    }

    /// Stores `entry` under `hash` (replacing what was there), evicting least recently used
    /// entries until it fits. Returns how many were evicted.
    pub fn insert(&mut self, hash: u64, entry: Entry) -> u64 {
        assert!(entry.size <= self.max_size, "callers check the size limit");
        self.remove_hash(hash);
        let mut evicted = 0;
        while self.size + entry.size > self.max_size {
            debug_assert_ne!(self.tail, NIL, "an empty store fits any admissible entry");
            let lru = self.tail;
            self.remove(lru);
            evicted += 1;
        }
        self.size += entry.size;
        let node = Node { entry: Some(entry), hash, prev: NIL, next: NIL };
        let i = match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                assert!(self.nodes.len() < NIL as usize, "entry count bounded by max_size");
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        self.index.insert(hash, i);
        self.push_front(i);
        debug_assert!(self.size <= self.max_size);
        evicted
    }

    fn unlink(&mut self, i: u32) {
        let (prev, next) = (self.nodes[i as usize].prev, self.nodes[i as usize].next);
        match prev {
            NIL => self.head = next,
            p => self.nodes[p as usize].next = next,
        }
        match next {
            NIL => self.tail = prev,
            n => self.nodes[n as usize].prev = prev,
        }
        self.nodes[i as usize].prev = NIL;
        self.nodes[i as usize].next = NIL;
    }

    fn push_front(&mut self, i: u32) {
        self.nodes[i as usize].prev = NIL;
        self.nodes[i as usize].next = self.head;
        match self.head {
            NIL => self.tail = i,
            h => self.nodes[h as usize].prev = i,
        }
        self.head = i;
    }

    /// Keys from most to least recently used (tests and debugging).
    #[cfg(test)]
    pub fn keys_by_recency(&self) -> Vec<CacheKey> {
        let mut out = Vec::new();
        let mut i = self.head;
        while i != NIL {
            out.push(self.nodes[i as usize].entry.as_ref().expect("live node").key.clone());
            i = self.nodes[i as usize].next;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn key(n: u8) -> CacheKey {
        CacheKey { user: "u".into(), db: None, statement: Arc::from(&[n][..]), params: Vec::new() }
    }

    fn entry(n: u8, result_len: usize) -> Entry {
        let k = key(n);
        let result = CachedResult { packets: vec![0u8; result_len].into() };
        let size = Entry::charge(&k, &result);
        Entry {
            key: k,
            result,
            slots: SmallVec::new(),
            as_of: 0,
            stored_at: Instant::now(),
            refresh_claimed_at: None,
            size,
        }
    }

    #[test]
    fn evicts_least_recently_used_and_accounts_size() {
        let one = Entry::charge(&key(0), &CachedResult { packets: vec![0u8; 100].into() });
        let mut s = LruStore::new(3 * one);
        for n in 1..=3 {
            assert_eq!(s.insert(u64::from(n), entry(n, 100)), 0);
        }
        assert_eq!(s.size(), 3 * one);
        let i1 = s.find(1, &key(1)).unwrap();
        s.touch(i1);
        assert_eq!(s.insert(4, entry(4, 100)), 1);
        assert!(s.find(2, &key(2)).is_none(), "2 was least recently used");
        assert_eq!(s.keys_by_recency(), vec![key(4), key(1), key(3)]);
        assert_eq!(s.size(), 3 * one);
        // A key that differs under the same hash is not found, and replacing frees its size.
        assert!(s.find(3, &key(9)).is_none());
        s.insert(3, entry(9, 100));
        assert_eq!((s.len(), s.size()), (3, 3 * one));
        let i = s.find(4, &key(4)).unwrap();
        s.remove(i);
        assert_eq!((s.len(), s.size()), (2, 2 * one));
        // Slab slots are reused.
        s.insert(5, entry(5, 100));
        assert_eq!(s.nodes.len(), 3);
    }
}
