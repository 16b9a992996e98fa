//! selkied, the Selkie database server: network listener, one tokio task per connection,
//! authentication, the MySQL command loop over `selkie_sql::Session`, and the connection
//! registry behind SHOW PROCESSLIST, KILL and the server status variables.
//!
//! Modules:
//! - `config`: flags, TOML file, defaults.
//! - `host`: host patterns of accounts, how a client's host is shown.
//! - `auth`: accounts and mysql_native_password verification.
//! - `registry`: connections, activity, counters (`ServerHooks`).
//! - `server`: listen, accept, admission (`--max-connections`), shutdown.
//! - `connection`: handshake and command dispatch for one client.
//! - `sink`: the `ResultSink` encoding results into the output buffer.
//! - `convert`: SQL values and metadata to and from wire form.
//! - `query_text`: statement text that is not UTF-8 (binary literals in dumps).

pub mod auth;
pub mod config;
pub mod connection;
pub mod convert;
pub mod host;
pub mod query_text;
pub mod registry;
pub mod server;
pub mod sink;
