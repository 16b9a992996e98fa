//! Character sets and collations: the `selkie-charset` crate (shared with the storage layer,
//! whose index keys are collation sort keys), seen from here as a module of its own.

pub use selkie_charset::*;
