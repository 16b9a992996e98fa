//! Memory per idle connection: opens many connections that have each run a query, measures the
//! server's resident memory before and after, and reports the cost per connection.
//! 512 connections by default; SELKIE_STRESS=1 opens 4,096 (the README's reported figure).

use crate::common;

use common::{runtime, stress, Selkied};

/// Upper bound asserted for the resident memory one idle connection costs the server.
/// Measured: ~13.6 KB (release, 512 and 4,096 connections), of which 8 KiB are the two packet
/// buffers; a per-session copy of the system variables (~18 KB, before they were shared with
/// the globals copy-on-write) would exceed it.
const MAX_BYTES_PER_IDLE_CONNECTION: u64 = 24 * 1024;
/// Connections opened before the baseline, so one-time allocations are not counted per client.
const WARMUP_CONNECTIONS: usize = 16;

/// The test process needs a descriptor per connection too.
fn raise_own_fd_limit(wanted: u64) {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: plain getrlimit/setrlimit on a local struct.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
        if lim.rlim_cur < wanted {
            lim.rlim_cur = wanted.min(lim.rlim_max);
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

#[test]
fn idle_connections_are_cheap() {
    let _exclusive = crate::exclusive();
    let n: usize = if stress() { 4096 } else { 512 };
    raise_own_fd_limit(n as u64 + 256);
    let server = Selkied::builder().max_connections(n + WARMUP_CONNECTIONS + 8).start();
    runtime().block_on(async {
        let mut warm = Vec::new();
        for _ in 0..WARMUP_CONNECTIONS {
            let mut c = server.root().await;
            c.query_rows("SELECT 1").await.unwrap();
            warm.push(c);
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let before = server.rss_kib();
        let mut idle = Vec::with_capacity(n);
        for _ in 0..n {
            let mut c = server.root().await;
            c.query_rows("SELECT 1").await.unwrap();
            idle.push(c);
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let after = server.rss_kib();
        let per_connection = after.saturating_sub(before) * 1024 / n as u64;
        eprintln!(
            "{n} idle connections: server RSS {before} KiB -> {after} KiB, {per_connection} bytes per connection"
        );
        assert!(per_connection < MAX_BYTES_PER_IDLE_CONNECTION, "{per_connection} bytes per idle connection");
        // They are all still alive and served.
        for c in idle.iter_mut().step_by(n / 8) {
            c.ping().await.unwrap();
        }
        let stats = warm[0].statistics().await.unwrap();
        assert!(stats.contains(&format!("Threads: {}", n + WARMUP_CONNECTIONS)), "{stats}");
    });
}
