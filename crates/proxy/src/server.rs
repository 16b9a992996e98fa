//! The process: starts the monitor and the workers, binds the listeners and the admin endpoint,
//! hands accepted connections to workers, and handles SIGHUP (reload) and SIGTERM/SIGINT.
//!
//! Threads: N workers (sessions), one monitor, and the control thread running this module's
//! runtime (accept loops, admin endpoint, signals). Accepting is cheap next to serving, so one
//! control thread hands sockets to the workers round robin; from then on a connection never
//! touches the control thread again.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::AtomicU32;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use thiserror::Error;
use tokio::net::{TcpListener, TcpSocket};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc::{self, UnboundedSender};
use tracing::{error, info, warn};

use crate::auth::UserTable;
use crate::cluster::{Cluster, ServerState};
use crate::config::Config;
use crate::monitor::{self, MonitorCommand};
use crate::runtime::{describe_changes, ListenerRuntime, RuntimeConfig, Shared, SlotRegistry};
use crate::stats::WorkerStats;
use crate::worker::{Job, Worker};

/// Pending connections the kernel queues while the accept loop catches up (benchmarks open
/// 1,024 connections at once).
const LISTEN_BACKLOG: u32 = 4096;
/// Pause after an accept error such as EMFILE, so a descriptor shortage is not a busy loop.
const ACCEPT_ERROR_BACKOFF: Duration = Duration::from_millis(50);
/// Extra wait for the monitor's first round beyond two connect timeouts.
const READY_GRACE: Duration = Duration::from_secs(1);

#[derive(Debug, Error)]
pub enum StartError {
    #[error("{0}")]
    Config(String),
    #[error("cannot listen on {addr}: {source}")]
    Listen { addr: String, source: std::io::Error },
    #[error("cannot start a thread: {0}")]
    Thread(std::io::Error),
    #[error("cannot install signal handlers: {0}")]
    Signals(std::io::Error),
}

pub struct Options {
    pub config_path: PathBuf,
    /// `--workers`; overrides the file's `workers`.
    pub workers: Option<usize>,
}

pub fn default_workers() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

pub struct WorkerHandle {
    pub jobs: mpsc::UnboundedSender<Job>,
    pub thread: std::thread::JoinHandle<()>,
}

/// Starts worker `index`: a thread running a single-threaded runtime that serves every job
/// sent to it as a session on that thread.
pub fn spawn_worker(index: usize, shared: Arc<Shared>) -> std::io::Result<WorkerHandle> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Job>();
    let thread = std::thread::Builder::new().name(format!("proxy-worker-{index}")).spawn(move || {
        let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(rt) => rt,
            Err(e) => {
                error!(worker = index, error = %e, "cannot start a worker runtime");
                return;
            }
        };
        let local = tokio::task::LocalSet::new();
        let worker = Rc::new(Worker::new(index, shared));
        local.block_on(&rt, async move {
            while let Some(job) = rx.recv().await {
                tokio::task::spawn_local(crate::session::serve(worker.clone(), job));
            }
        });
    })?;
    Ok(WorkerHandle { jobs: tx, thread })
}

async fn bind(addr: &str, port: u16) -> Result<TcpListener, StartError> {
    let text = format!("{addr}:{port}");
    let err = |source| StartError::Listen { addr: text.clone(), source };
    let sock_addr = tokio::net::lookup_host((addr, port))
        .await
        .map_err(err)?
        .next()
        .ok_or_else(|| err(std::io::Error::new(std::io::ErrorKind::NotFound, "address did not resolve")))?;
    let socket = if sock_addr.is_ipv4() { TcpSocket::new_v4() } else { TcpSocket::new_v6() }.map_err(err)?;
    socket.set_reuseaddr(true).map_err(err)?;
    socket.bind(sock_addr).map_err(err)?;
    socket.listen(LISTEN_BACKLOG).map_err(err)
}

async fn accept_loop(listener: TcpListener, options: Arc<ListenerRuntime>, workers: Arc<Vec<UnboundedSender<Job>>>) {
    let mut next = 0usize;
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(x) => x,
            Err(e) => {
                warn!(listener = %options.name, error = %e, "accept failed");
                tokio::time::sleep(ACCEPT_ERROR_BACKOFF).await;
                continue;
            }
        };
        let stream = match stream.into_std() {
            Ok(s) => s,
            Err(e) => {
                warn!(listener = %options.name, error = %e, "cannot hand over an accepted connection");
                continue;
            }
        };
        let job = Job { stream, peer, listener: options.clone() };
        if workers[next % workers.len()].send(job).is_err() {
            error!("a worker thread is gone; refusing connections");
            return;
        }
        next = next.wrapping_add(1);
    }
}

/// Re-reads the configuration file; on any error the current configuration stays.
fn reload(shared: &Shared, path: &Path, slots: &mut SlotRegistry) {
    info!("SIGHUP: reloading {}", path.display());
    let file = match Config::load(path) {
        Ok(c) => c,
        Err(e) => {
            error!("configuration reload failed, keeping the current configuration: {e}");
            return;
        }
    };
    let old = shared.config.load_full();
    let new = match RuntimeConfig::build(file, slots, Some(&old)) {
        Ok(r) => r,
        Err(e) => {
            error!("configuration reload failed, keeping the current configuration: {e}");
            return;
        }
    };
    let changes = describe_changes(&old.file, &new.file);
    if changes.is_empty() {
        info!("configuration reloaded: no changes");
    }
    for c in &changes {
        info!("configuration reload: {c}");
    }
    let setup = new.monitor_setup();
    shared.config.store(Arc::new(new));
    if shared.monitor.send(MonitorCommand::Reconfigure(setup)).is_err() {
        error!("the monitor thread is gone; server changes are not applied");
    }
}

/// Runs the proxy until SIGTERM or SIGINT.
pub fn run(options: Options, config: Config) -> Result<(), StartError> {
    let workers = options.workers.or(config.workers).unwrap_or_else(default_workers);
    let admin = config.admin.clone();
    let listeners_cfg = config.listeners.clone();
    let mut slots = SlotRegistry::default();
    let runtime_config = RuntimeConfig::build(config, &mut slots, None).map_err(StartError::Config)?;
    let initial: Vec<ServerState> =
        runtime_config.servers.iter().map(|s| ServerState::new(&s.name, s.slot, &s.endpoint)).collect();
    let cluster = Arc::new(ArcSwap::from_pointee(Cluster::new(initial, 0)));
    let users = Arc::new(ArcSwap::from_pointee(UserTable::from_config(&runtime_config.file.users)));
    let monitor_timeout = runtime_config.file.monitor.connect_timeout();
    let monitor =
        monitor::start(runtime_config.monitor_setup(), cluster.clone(), users.clone()).map_err(StartError::Thread)?;
    let shared = Arc::new(Shared {
        config: ArcSwap::from_pointee(runtime_config),
        cluster,
        users,
        workers: (0..workers).map(|_| Arc::new(WorkerStats::default())).collect(),
        monitor: monitor.commands.clone(),
        next_connection_id: AtomicU32::new(1),
        started: Instant::now(),
    });
    let mut senders = Vec::with_capacity(workers);
    for i in 0..workers {
        senders.push(spawn_worker(i, shared.clone()).map_err(StartError::Thread)?.jobs);
    }
    let senders = Arc::new(senders);

    let control = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(StartError::Thread)?;
    control.block_on(async move {
        let mut hup = signal(SignalKind::hangup()).map_err(StartError::Signals)?;
        let mut term = signal(SignalKind::terminate()).map_err(StartError::Signals)?;
        let mut int = signal(SignalKind::interrupt()).map_err(StartError::Signals)?;

        let mut bound = Vec::new();
        for l in &listeners_cfg {
            let listener = bind(&l.bind, l.port).await?;
            let options = shared.config.load().listener(&l.name).cloned().expect("listener built from the same file");
            bound.push((listener, options));
        }
        let admin_listener = match &admin {
            Some(a) => Some(bind(&a.bind, a.port).await?),
            None => None,
        };
        // Routing needs to know the servers' roles: wait (bounded) for the first checks.
        let mut ready = monitor.ready.clone();
        let wait = monitor_timeout * 2 + READY_GRACE;
        if tokio::time::timeout(wait, ready.wait_for(|r| *r)).await.is_err() {
            warn!("the monitor's first round did not finish within {} ms; starting anyway", wait.as_millis());
        }
        let mut addresses = Vec::new();
        for (listener, options) in bound {
            if let Ok(a) = listener.local_addr() {
                addresses.push(format!("{}={a}", options.name));
            }
            tokio::spawn(accept_loop(listener, options, senders.clone()));
        }
        if let Some(l) = admin_listener {
            if let Ok(a) = l.local_addr() {
                addresses.push(format!("admin={a}"));
            }
            tokio::spawn(crate::admin::serve(l, shared.clone()));
        }
        info!(workers, listeners = %addresses.join(" "), "proxy ready");
        loop {
            tokio::select! {
                _ = hup.recv() => reload(&shared, &options.config_path, &mut slots),
                _ = term.recv() => { info!("received SIGTERM; exiting"); break; }
                _ = int.recv() => { info!("received SIGINT; exiting"); break; }
            }
        }
        Ok(())
    })
}
