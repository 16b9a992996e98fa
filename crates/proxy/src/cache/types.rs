//! What the cache stores, under which key: a leaf below the store and the cache that use them.

use std::sync::Arc;

/// The cache key. `params` is the raw parameter block of COM_STMT_EXECUTE (empty for COM_QUERY).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey {
    pub user: Arc<str>,
    pub db: Option<Arc<str>>,
    pub statement: Arc<[u8]>,
    pub params: Vec<u8>,
}

/// A cached result: the exact bytes (packet payloads with headers) the backend sent.
#[derive(Clone, Debug)]
pub struct CachedResult {
    pub packets: Arc<[u8]>,
}
