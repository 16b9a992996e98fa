//! The integration tests of selkie-proxy, built as one test binary (`proxy_tests`): each file here is
//! a module of it. One binary compiles and links the crate's generics once instead of once
//! per file, which was most of the release test build's time (docs/testing.md). One file's
//! tests: `cargo test -p selkie-proxy --test proxy_tests classifier_corpus::`.
//!
//! A new file under tests/ must be declared below (Cargo.toml has `autotests = false`);
//! `every_test_file_is_a_module` fails if one is not.

mod backend_forwarding;
mod cache_behaviour;
mod cache_model;
mod cache_speed;
mod classifier_corpus;
mod classifier_fuzz;
mod classifier_speed;

/// Every tests/*.rs file and tests/*/mod.rs folder is declared above: with `autotests = false`
/// an undeclared file would silently never run.
#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let root = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let module = match path.file_stem().and_then(|s| s.to_str()) {
            Some("main") => continue,
            Some(m) if path.extension().is_some_and(|e| e == "rs") => m.to_string(),
            Some(m) if path.join("mod.rs").exists() => m.to_string(),
            _ => continue,
        };
        let declaration = format!("mod {module};");
        assert!(root.lines().any(|l| l == declaration), "tests/main.rs does not declare `{declaration}`");
    }
}
