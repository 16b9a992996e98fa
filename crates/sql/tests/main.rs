//! The integration tests of selkie-sql, built as one test binary (`sql_tests`): each file here is
//! a module of it. One binary compiles and links the crate's generics once instead of once
//! per file, which was most of the release test build's time (docs/testing.md). One file's
//! tests: `cargo test -p selkie-sql --test sql_tests online_ddl::`.
//!
//! A new file under tests/ must be declared below (Cargo.toml has `autotests = false`);
//! `every_test_file_is_a_module` fails if one is not.

// Shared helpers.
mod common;

mod alter;
mod collation_keys;
mod collations;
mod column_types;
mod constraints;
mod create_select;
mod ddl;
mod default_expressions;
mod dml;
mod functions;
mod generated_columns;
mod online_ddl;
mod orm;
mod perf;
mod queries;
mod recursive_cte;
mod robustness;
mod rollup;
mod savepoints;
mod scheduling;
mod sequences;
mod session;
mod session_modes;
mod set_operations;
mod show_engine;
mod spill;
mod sysbench;
mod table_value_constructors;
mod temporary;
mod transactions;
mod uca_collations;
mod window_functions;

/// Held for the whole of a test that bounds wall-clock time (a KILL answered within seconds, a
/// task never starved for half a second) and of a test that keeps several threads busy for
/// seconds. As one binary per file, such a test only ever ran beside tests of its own file; in
/// one binary the harness may run it beside any other, so these take turns instead.
pub fn exclusive() -> Exclusive {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    // A test that panicked while holding it poisons nothing the others rely on.
    Exclusive(LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
}

/// The guard of `exclusive()`; released when dropped at the end of the test.
pub struct Exclusive(#[allow(dead_code)] std::sync::MutexGuard<'static, ()>);

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
