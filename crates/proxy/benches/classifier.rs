//! Criterion benchmark of the classifier on what sysbench sends.
//! Needs in crates/proxy/Cargo.toml: `criterion` in [dev-dependencies] and
//! `[[bench]] name = "classifier" harness = false`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use selkie_proxy::classifier::classify;

fn sysbench_statements(c: &mut Criterion) {
    let statements: &[&str] = &[
        "SELECT c FROM sbtest1 WHERE id=?",
        "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?",
        "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?",
        "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
        "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
        "UPDATE sbtest1 SET k=k+1 WHERE id=?",
        "UPDATE sbtest1 SET c=? WHERE id=?",
        "DELETE FROM sbtest1 WHERE id=?",
        "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)",
        "BEGIN",
        "COMMIT",
    ];
    for s in statements {
        c.bench_function(s, |b| b.iter(|| classify(black_box(s.as_bytes()))));
    }
}

criterion_group!(benches, sysbench_statements);
criterion_main!(benches);
