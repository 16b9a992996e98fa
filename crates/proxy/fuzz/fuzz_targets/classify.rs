//! Feeds arbitrary bytes to the classifier: it must not panic, must be a function of its
//! input, and must keep the contract's invariants (see crates/proxy/src/classifier/mod.rs).
#![no_main]

use libfuzzer_sys::fuzz_target;
use selkie_proxy::classifier::{classify, classify_with_hint, prepared_statement_text, Cacheability, Route};

fuzz_target!(|sql: &[u8]| {
    let (c, hint) = classify_with_hint(sql);
    assert_eq!(classify(sql), c);
    if c.pins_primary || c.locking_read || c.multi_statement {
        assert_eq!(c.route, Route::Write);
    }
    if c.cacheable != Cacheability::NotSelect {
        assert!(!c.writes);
        assert_ne!(c.route, Route::Session);
    }
    if c.route == Route::Read && hint.is_none() {
        assert!(!c.writes);
    }
    if let Some((_, text)) = prepared_statement_text(sql) {
        let _ = classify(&text);
    }
});
