//! `selkied`: parses the configuration, sets up logging and the runtime, and runs the server
//! until SIGTERM or SIGINT.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use selkie_server::config::{Args, ServerConfig};
use selkie_server::server;
use tokio::signal::unix::{signal, SignalKind};
use tracing::{error, info, warn};
use tracing_subscriber::EnvFilter;

/// File descriptors needed beyond one per connection (data files, redo segments, listener).
const RESERVED_FDS: u64 = 256;

fn main() -> ExitCode {
    let config = match ServerConfig::resolve(Args::parse()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("selkied: {e}");
            return ExitCode::from(2);
        }
    };
    let filter = match EnvFilter::try_new(&config.log_level) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("selkied: invalid --log-level '{}': {e}", config.log_level);
            return ExitCode::from(2);
        }
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .init();
    raise_fd_limit(config.max_connections as u64 + RESERVED_FDS);

    let workers = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_name("selkie-worker")
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("selkied: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        // Handlers are installed before the server reports readiness, so a signal sent right
        // after "ready for connections" shuts down cleanly instead of killing the process.
        let (mut term, mut int) = match (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) {
            (Ok(t), Ok(i)) => (t, i),
            (Err(e), _) | (_, Err(e)) => {
                error!(error = %e, "cannot install signal handlers");
                return Err(());
            }
        };
        let shutdown = async move {
            tokio::select! {
                _ = term.recv() => info!("received SIGTERM"),
                _ = int.recv() => info!("received SIGINT"),
            }
        };
        let listening = server::bind(&config).await.map_err(|e| error!("{e}"))?;
        server::run(config, listening, shutdown).await.map_err(|e| error!("{e}"))
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(()) => ExitCode::FAILURE,
    }
}

/// Raises the soft open-file limit toward `wanted` (up to the hard limit): every connection is
/// a descriptor, and the common default soft limit of 1024 is below --max-connections.
fn raise_fd_limit(wanted: u64) {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit only read and write the struct passed by pointer.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            warn!("cannot read the open-file limit");
            return;
        }
        if lim.rlim_cur >= wanted {
            return;
        }
        let target = wanted.min(lim.rlim_max);
        let new = libc::rlimit { rlim_cur: target, rlim_max: lim.rlim_max };
        if libc::setrlimit(libc::RLIMIT_NOFILE, &new) != 0 {
            warn!(current = lim.rlim_cur, wanted, "cannot raise the open-file limit");
            return;
        }
        if target < wanted {
            warn!(
                limit = target,
                wanted, "open-file limit is below --max-connections; raise the hard limit (ulimit -Hn)"
            );
        }
    }
}
