//! The server's life: open the engine, listen, accept connections (one task each), and on
//! shutdown stop accepting, close every session (rolling back open transactions) and shut the
//! engine down cleanly.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use selkie_sql::{ServerHooks, SqlServer, SqlServerConfig};
use selkie_storage::{Engine, EngineConfig};
use thiserror::Error;
use tokio::net::{TcpListener, TcpSocket};
use tracing::{info, warn};

use crate::auth::Accounts;
use crate::config::ServerConfig;
use crate::connection::{self, Shared};
use crate::registry::Registry;

/// Pending connections the kernel queues while the accept loop catches up (connection storms
/// of thousands of clients, e.g. a benchmark starting 4,096 threads at once).
const LISTEN_BACKLOG: u32 = 4096;
/// How long shutdown waits for connections to finish their current command.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// Pause after an accept error such as EMFILE, so a descriptor shortage is not a busy loop.
const ACCEPT_ERROR_BACKOFF: Duration = Duration::from_millis(50);
/// Engine session slots beyond max_connections (COM_CHANGE_USER briefly overlaps, internal use).
const EXTRA_ENGINE_SESSIONS: usize = 64;

#[derive(Debug, Error)]
pub enum ServerError {
    #[error("cannot create data directory {path}: {source}")]
    Datadir { path: String, source: std::io::Error },
    #[error("cannot listen on {addr}: {source}")]
    Listen { addr: String, source: std::io::Error },
    #[error("cannot open the storage engine: {0}")]
    Engine(String),
    #[error("storage engine shutdown failed: {0}")]
    Shutdown(String),
}

/// Where the server listens; known once `bind` returned.
pub struct Listening {
    listener: TcpListener,
    pub local_addr: SocketAddr,
}

/// Binds the listening socket (before the engine opens, so a taken port fails fast).
pub async fn bind(config: &ServerConfig) -> Result<Listening, ServerError> {
    let addr_text = format!("{}:{}", config.bind, config.port);
    let listen_err = |source| ServerError::Listen { addr: addr_text.clone(), source };
    let addr = tokio::net::lookup_host((config.bind.as_str(), config.port))
        .await
        .map_err(listen_err)?
        .next()
        .ok_or_else(|| listen_err(std::io::Error::new(std::io::ErrorKind::NotFound, "address did not resolve")))?;
    let socket = if addr.is_ipv4() { TcpSocket::new_v4() } else { TcpSocket::new_v6() }.map_err(listen_err)?;
    socket.set_reuseaddr(true).map_err(listen_err)?;
    socket.bind(addr).map_err(listen_err)?;
    let listener = socket.listen(LISTEN_BACKLOG).map_err(listen_err)?;
    let local_addr = listener.local_addr().map_err(listen_err)?;
    Ok(Listening { listener, local_addr })
}

/// Runs the server until `shutdown` resolves, then shuts down cleanly.
pub async fn run(
    config: ServerConfig,
    listening: Listening,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    std::fs::create_dir_all(&config.datadir)
        .map_err(|source| ServerError::Datadir { path: config.datadir.display().to_string(), source })?;
    let engine_config = EngineConfig {
        datadir: config.datadir.clone(),
        buffer_pool_bytes: config.buffer_pool_bytes,
        flush_mode: config.flush_mode,
        lock_wait_timeout: config.lock_wait_timeout,
        max_sessions: config.max_connections as usize + EXTRA_ENGINE_SESSIONS,
        fault: config.fault,
        log_capacity: config.log_file_size,
        force_recovery: config.force_recovery,
    };
    let started = Instant::now();
    let engine = tokio::task::spawn_blocking(move || Engine::open(engine_config))
        .await
        .map_err(|e| ServerError::Engine(e.to_string()))?
        .map_err(|e| ServerError::Engine(e.to_string()))?;
    info!(elapsed_ms = started.elapsed().as_millis() as u64, "storage engine open");

    let registry = Arc::new(Registry::new());
    let sql_config = SqlServerConfig {
        port: listening.local_addr.port(),
        datadir: config.datadir.display().to_string(),
        max_connections: config.max_connections as u64,
        buffer_pool_bytes: config.buffer_pool_bytes,
        flush_at_commit: config.flush_at_commit(),
        lock_wait_timeout_secs: config.lock_wait_timeout.as_secs(),
        max_allowed_packet: config.max_allowed_packet,
    };
    let sql = SqlServer::new(engine.clone(), sql_config, registry.clone() as Arc<dyn ServerHooks>);
    match sql.drop_leftover_temporary_tables().await {
        Ok(0) => {}
        Ok(n) => info!(tables = n, "dropped the temporary tables of the previous run"),
        Err(e) => warn!(error = %e, "cannot drop the temporary tables of the previous run"),
    }
    // Known only to the running server; clients and tools read them as variables. No Unix
    // socket is served, so @@socket stays empty.
    if let Err(e) = sql.set_startup_variable("bind_address", &config.bind) {
        warn!(error = %e, "cannot set @@bind_address");
    }
    let version = selkie_sql::variables::SERVER_VERSION;
    let shared = Arc::new(Shared {
        sql,
        registry: registry.clone(),
        accounts: Accounts::from_config(&config),
        greeting_version: format!("5.5.5-{version}"),
        max_allowed_packet: config.max_allowed_packet,
    });

    info!(
        "ready for connections. Version: '{version}'  address: {}  port: {}",
        listening.local_addr.ip(),
        listening.local_addr.port()
    );
    accept_loop(&listening.listener, &shared, config.max_connections as usize, shutdown).await;
    drop(listening);

    info!(connections = registry.active(), "shutting down: closing connections");
    registry.kill_all();
    let deadline = Instant::now() + SHUTDOWN_GRACE;
    while registry.active() > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    if registry.active() > 0 {
        warn!(
            connections = registry.active(),
            "connections still busy after the grace period; their transactions are rolled back by recovery"
        );
    }
    match tokio::task::spawn_blocking(move || engine.shutdown()).await {
        Ok(Ok(())) => {
            info!("shutdown complete");
            Ok(())
        }
        Ok(Err(e)) => Err(ServerError::Shutdown(e.to_string())),
        Err(e) => Err(ServerError::Shutdown(e.to_string())),
    }
}

async fn accept_loop(
    listener: &TcpListener,
    shared: &Arc<Shared>,
    max_connections: usize,
    shutdown: impl Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            biased;
            _ = &mut shutdown => return,
            r = listener.accept() => r,
        };
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // EMFILE/ENFILE and aborted handshakes: keep serving, but do not spin.
                warn!(error = %e, "accept failed");
                tokio::time::sleep(ACCEPT_ERROR_BACKOFF).await;
                continue;
            }
        };
        if let Err(e) = stream.set_nodelay(true) {
            warn!(error = %e, %peer, "cannot set TCP_NODELAY");
        }
        match shared.registry.try_admit(max_connections) {
            Some(admission) => {
                tokio::spawn(connection::serve(shared.clone(), stream, peer, admission));
            }
            None => {
                tokio::spawn(connection::refuse(stream));
            }
        }
    }
}
