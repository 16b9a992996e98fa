//! selkie-proxy: a MaxScale-class proxy (readconnroute, readwritesplit, result cache, monitor) in
//! front of MariaDB servers or selkied.
//!
//! Shape: N worker threads, each a single-threaded tokio runtime; a client connection and all its
//! backend connections live on one worker, so nothing on the per-query path takes a lock shared
//! between workers. The classifier is a hand-written lexer, not a parser.
//!
//! Modules, from the process down to the wire:
//! - `server`: threads, listeners, signals, reload; `runtime`: the shared state they use.
//! - `config`: the TOML file. `monitor` and `cluster`: backend health, roles, lag, users.
//! - `worker`: a worker thread's local state. `session`: one client session.
//! - `router`: routing decisions (pure); `history`, `ps_map`: readwritesplit session state.
//! - `backend`: a connection to a backend, login and response streaming. `auth`: credentials.
//! - `stats`, `admin`: per-worker counters and the HTTP endpoint that merges them.
//! - `classifier`, `cache`: statement classification and the result cache.

pub mod admin;
pub mod auth;
pub mod backend;
pub mod cache;
pub mod classifier;
pub mod cluster;
pub mod config;
#[cfg(test)]
mod config_text;
pub mod history;
pub mod monitor;
pub mod ps_map;
pub mod router;
pub mod runtime;
pub mod server;
pub mod session;
pub mod stats;
pub mod worker;
