//! `selkie-proxy --config proxy.toml [--workers N] [--log-level LEVEL]`: parses the command line
//! and the configuration, sets up logging, and runs the proxy until SIGTERM or SIGINT.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use selkie_proxy::config::{Config, MAX_WORKERS};
use selkie_proxy::server::{self, Options};
use tracing::warn;
use tracing_subscriber::EnvFilter;

/// Descriptors wanted: each client session holds its socket and up to one per backend server.
const WANTED_FDS: u64 = 65_536;

#[derive(Parser, Debug)]
#[command(name = "selkie-proxy", version, about = "MySQL/MariaDB proxy: readconnroute, readwritesplit, result cache")]
struct Args {
    /// The TOML configuration file (re-read on SIGHUP).
    #[arg(long)]
    config: PathBuf,
    /// Worker threads (default: the file's `workers`, else one per core).
    #[arg(long)]
    workers: Option<usize>,
    /// Log filter: error, warn, info, debug, trace, or a tracing env-filter expression.
    #[arg(long, default_value = "info")]
    log_level: String,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let filter = match EnvFilter::try_new(&args.log_level) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("selkie-proxy: invalid --log-level '{}': {e}", args.log_level);
            return ExitCode::from(2);
        }
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .init();
    if let Some(w) = args.workers {
        if w == 0 || w > MAX_WORKERS {
            eprintln!("selkie-proxy: --workers must be between 1 and {MAX_WORKERS}");
            return ExitCode::from(2);
        }
    }
    let config = match Config::load(&args.config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("selkie-proxy: {e}");
            return ExitCode::from(2);
        }
    };
    raise_fd_limit(WANTED_FDS);
    match server::run(Options { config_path: args.config, workers: args.workers }, config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("selkie-proxy: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Raises the soft open-file limit toward `wanted` (up to the hard limit): every client and
/// backend connection is a descriptor, and the common soft limit of 1024 is far too low.
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
        let new = libc::rlimit { rlim_cur: wanted.min(lim.rlim_max), rlim_max: lim.rlim_max };
        if libc::setrlimit(libc::RLIMIT_NOFILE, &new) != 0 {
            warn!(current = lim.rlim_cur, wanted, "cannot raise the open-file limit");
        }
    }
}
