//! The proxy's TOML configuration: parsing, defaults and validation.
//!
//! The file is parsed into plain structs (`Config`) and validated as a whole, so a SIGHUP reload
//! either takes the complete new file or keeps the old configuration; there is no half-applied
//! state. Unknown keys are errors: a misspelt option silently ignored is worse than a refusal.
//!
//! ```toml
//! [[listeners]]
//! name = "rw"
//! port = 4006
//! router = "readwritesplit"      # or "readconnroute" (with role = "primary" | "replica")
//! max_replication_lag = 10       # seconds
//! max_session_history = 50
//! cache = "default"              # the [cache] section (or an inline table)
//!
//! [[servers]]
//! name = "db1"
//! address = "127.0.0.1"
//! port = 3306
//!
//! [monitor]
//! user = "monitor"
//! password = ""
//! interval_ms = 1000
//! connect_timeout_ms = 3000
//!
//! [users]
//! source = "backend"             # mysql.user of the primary, or "config" with [[users.list]]
//!
//! [cache]
//! soft_ttl = 5
//! hard_ttl = 10
//! max_size = "64M"
//! max_resultset_size = "1M"
//! storage = "per_worker"
//! selects = "verify_cacheable"
//!
//! [admin]
//! port = 8989
//! ```

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use thiserror::Error;

use crate::cache::{CacheConfig, CacheStorage, SelectsPolicy};

/// Most distinct server names one process tracks (statistics are kept in fixed per-worker
/// arrays indexed by a server's slot, so the query path never grows or locks a map).
pub const MAX_SERVERS: usize = 64;
/// Most listeners.
pub const MAX_LISTENERS: usize = 64;
/// Upper bound of `max_session_history` (each entry is a command replayed on a joining backend).
pub const MAX_SESSION_HISTORY_LIMIT: usize = 100_000;
/// Bounds of the monitor's timing options.
pub const MIN_MONITOR_INTERVAL_MS: u64 = 50;
pub const MAX_MONITOR_INTERVAL_MS: u64 = 3_600_000;
pub const MIN_CONNECT_TIMEOUT_MS: u64 = 50;
pub const MAX_CONNECT_TIMEOUT_MS: u64 = 600_000;
/// Most worker threads.
pub const MAX_WORKERS: usize = 1024;

pub const DEFAULT_MAX_SESSION_HISTORY: usize = 50;
pub const DEFAULT_MAX_REPLICATION_LAG_S: f64 = 30.0;
pub const DEFAULT_MONITOR_INTERVAL_MS: u64 = 1000;
pub const DEFAULT_CONNECT_TIMEOUT_MS: u64 = 3000;
/// Consecutive failed checks after which a server is taken out of routing.
pub const DEFAULT_MONITOR_FAILCOUNT: u32 = 2;
pub const DEFAULT_USERS_REFRESH_S: u64 = 30;
pub const DEFAULT_CACHE_SOFT_TTL_S: f64 = 10.0;
pub const DEFAULT_CACHE_HARD_TTL_S: f64 = 20.0;
pub const DEFAULT_CACHE_MAX_SIZE: u64 = 64 << 20;
pub const DEFAULT_CACHE_MAX_RESULTSET: u64 = 1 << 20;
/// Name of the `[cache]` section when it has no `name` key.
pub const DEFAULT_CACHE_NAME: &str = "default";

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("invalid configuration: {0}")]
    Invalid(String),
}

fn invalid(msg: impl Into<String>) -> ConfigError {
    ConfigError::Invalid(msg.into())
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Worker threads (default: one per core); `--workers` overrides it.
    #[serde(default)]
    pub workers: Option<usize>,
    pub listeners: Vec<ListenerConfig>,
    pub servers: Vec<ServerConfig>,
    #[serde(default)]
    pub monitor: MonitorConfig,
    #[serde(default)]
    pub users: UsersConfig,
    /// The unnamed cache (named `default` unless it has a `name`).
    #[serde(default)]
    pub cache: Option<CacheSection>,
    /// Further named caches.
    #[serde(default)]
    pub caches: BTreeMap<String, CacheSection>,
    #[serde(default)]
    pub admin: Option<AdminConfig>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RouterKind {
    Readconnroute,
    Readwritesplit,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ServerRole {
    Primary,
    Replica,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum MasterFailureMode {
    /// Writes fail with a clear error while no primary is available; reads go on (MaxScale's
    /// `fail_on_write`).
    #[default]
    FailOnWrite,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ListenerConfig {
    pub name: String,
    #[serde(default = "default_bind")]
    pub bind: String,
    pub port: u16,
    pub router: RouterKind,
    /// readconnroute: the role of the servers it connects to.
    #[serde(default)]
    pub role: Option<ServerRole>,
    /// readwritesplit: replicas lagging more than this many seconds are not used.
    #[serde(default)]
    pub max_replication_lag: Option<f64>,
    /// readwritesplit: session commands remembered for replay on backends that join later.
    #[serde(default)]
    pub max_session_history: Option<usize>,
    #[serde(default)]
    pub master_failure_mode: Option<MasterFailureMode>,
    /// readwritesplit: a cache name or an inline cache table.
    #[serde(default)]
    pub cache: Option<CacheRef>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum CacheRef {
    Name(String),
    Inline(CacheSection),
}

fn default_bind() -> String {
    "127.0.0.1".to_string()
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    pub name: String,
    pub address: String,
    #[serde(default = "default_server_port")]
    pub port: u16,
}

fn default_server_port() -> u16 {
    3306
}

impl ServerConfig {
    /// `host:port` (IPv6 addresses bracketed) for connecting.
    pub fn endpoint(&self) -> String {
        if self.address.contains(':') && !self.address.starts_with('[') {
            format!("[{}]:{}", self.address, self.port)
        } else {
            format!("{}:{}", self.address, self.port)
        }
    }
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MonitorConfig {
    #[serde(default = "default_monitor_user")]
    pub user: String,
    #[serde(default)]
    pub password: String,
    #[serde(default = "default_interval")]
    pub interval_ms: u64,
    /// Also the timeout of every monitor query and of the proxy's connects to backends.
    #[serde(default = "default_connect_timeout")]
    pub connect_timeout_ms: u64,
    #[serde(default = "default_failcount")]
    pub failcount: u32,
}

fn default_monitor_user() -> String {
    "root".to_string()
}
fn default_interval() -> u64 {
    DEFAULT_MONITOR_INTERVAL_MS
}
fn default_connect_timeout() -> u64 {
    DEFAULT_CONNECT_TIMEOUT_MS
}
fn default_failcount() -> u32 {
    DEFAULT_MONITOR_FAILCOUNT
}

impl Default for MonitorConfig {
    fn default() -> MonitorConfig {
        MonitorConfig {
            user: default_monitor_user(),
            password: String::new(),
            interval_ms: DEFAULT_MONITOR_INTERVAL_MS,
            connect_timeout_ms: DEFAULT_CONNECT_TIMEOUT_MS,
            failcount: DEFAULT_MONITOR_FAILCOUNT,
        }
    }
}

impl MonitorConfig {
    pub fn interval(&self) -> Duration {
        Duration::from_millis(self.interval_ms)
    }
    pub fn connect_timeout(&self) -> Duration {
        Duration::from_millis(self.connect_timeout_ms)
    }
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum UserSource {
    /// mysql.user of the primary (read with the monitor's credentials), plus `list`.
    #[default]
    Backend,
    /// Only the `list` entries.
    Config,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UsersConfig {
    #[serde(default)]
    pub source: UserSource,
    #[serde(default = "default_users_refresh")]
    pub refresh_interval_s: u64,
    #[serde(default)]
    pub list: Vec<UserEntry>,
}

fn default_users_refresh() -> u64 {
    DEFAULT_USERS_REFRESH_S
}

impl Default for UsersConfig {
    fn default() -> UsersConfig {
        UsersConfig { source: UserSource::Backend, refresh_interval_s: DEFAULT_USERS_REFRESH_S, list: Vec::new() }
    }
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct UserEntry {
    pub name: String,
    /// The password in clear text, or
    #[serde(default)]
    pub password: Option<String>,
    /// its `*HEX` hash as PASSWORD() prints it.
    #[serde(default)]
    pub password_hash: Option<String>,
}

/// A byte size: an integer, or a string with a K/M/G suffix ("64M").
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum ByteSize {
    Bytes(u64),
    Text(String),
}

impl ByteSize {
    pub fn bytes(&self) -> Result<u64, String> {
        match self {
            ByteSize::Bytes(n) => Ok(*n),
            ByteSize::Text(s) => parse_size(s),
        }
    }
}

/// "123", "64K", "64M", "1G" (binary multiples, case-insensitive).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, mult) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 1u64 << 10),
        Some('M') => (&t[..t.len() - 1], 1 << 20),
        Some('G') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let n: u64 = digits.trim().parse().map_err(|_| format!("'{s}' is not a size (use bytes or K/M/G)"))?;
    n.checked_mul(mult).ok_or_else(|| format!("size '{s}' is too large"))
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum StorageKind {
    #[default]
    PerWorker,
    Shared,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum SelectsKind {
    #[default]
    AssumeCacheable,
    VerifyCacheable,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CacheSection {
    /// Only in `[cache]`: the name listeners refer to.
    #[serde(default)]
    pub name: Option<String>,
    /// Seconds after which an entry is refreshed by the next reader (0 = never).
    #[serde(default = "default_soft_ttl")]
    pub soft_ttl: f64,
    /// Seconds after which an entry is no longer served (0 = never).
    #[serde(default = "default_hard_ttl")]
    pub hard_ttl: f64,
    #[serde(default = "default_max_size")]
    pub max_size: ByteSize,
    #[serde(default = "default_max_resultset")]
    pub max_resultset_size: ByteSize,
    #[serde(default)]
    pub storage: StorageKind,
    #[serde(default)]
    pub selects: SelectsKind,
}

fn default_soft_ttl() -> f64 {
    DEFAULT_CACHE_SOFT_TTL_S
}
fn default_hard_ttl() -> f64 {
    DEFAULT_CACHE_HARD_TTL_S
}
fn default_max_size() -> ByteSize {
    ByteSize::Bytes(DEFAULT_CACHE_MAX_SIZE)
}
fn default_max_resultset() -> ByteSize {
    ByteSize::Bytes(DEFAULT_CACHE_MAX_RESULTSET)
}

impl CacheSection {
    /// The cache engine's configuration (the section must have been validated).
    pub fn to_cache_config(&self) -> Result<CacheConfig, String> {
        if !(self.soft_ttl.is_finite() && self.soft_ttl >= 0.0 && self.hard_ttl.is_finite() && self.hard_ttl >= 0.0) {
            return Err("soft_ttl and hard_ttl must be non-negative numbers of seconds (0 = no limit)".into());
        }
        if self.hard_ttl > 0.0 && (self.soft_ttl == 0.0 || self.hard_ttl < self.soft_ttl) {
            return Err(format!("hard_ttl ({}) is below soft_ttl ({}, 0 = no limit)", self.hard_ttl, self.soft_ttl));
        }
        let max_size = self.max_size.bytes()?;
        let max_resultset = self.max_resultset_size.bytes()?;
        if max_size == 0 {
            return Err("max_size must be above 0".into());
        }
        if max_resultset == 0 || max_resultset > max_size {
            return Err(format!("max_resultset_size ({max_resultset}) must be between 1 and max_size ({max_size})"));
        }
        let to_usize = |v: u64| usize::try_from(v).map_err(|_| format!("size {v} does not fit this machine"));
        Ok(CacheConfig {
            soft_ttl: Duration::from_secs_f64(self.soft_ttl),
            hard_ttl: Duration::from_secs_f64(self.hard_ttl),
            max_size: to_usize(max_size)?,
            max_resultset_size: to_usize(max_resultset)?,
            storage: match self.storage {
                StorageKind::PerWorker => CacheStorage::PerWorker,
                StorageKind::Shared => CacheStorage::Shared,
            },
            selects: match self.selects {
                SelectsKind::AssumeCacheable => SelectsPolicy::AssumeCacheable,
                SelectsKind::VerifyCacheable => SelectsPolicy::VerifyCacheable,
            },
        })
    }
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AdminConfig {
    #[serde(default = "default_bind")]
    pub bind: String,
    pub port: u16,
}

impl Config {
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })?;
        Config::parse(&text).map_err(|e| match e {
            ConfigError::Parse { message, .. } => ConfigError::Parse { path: path.to_path_buf(), message },
            other => other,
        })
    }

    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text)
            .map_err(|e| ConfigError::Parse { path: PathBuf::from("<config>"), message: e.to_string() })?;
        config.validate()?;
        Ok(config)
    }

    /// Every named cache: the `[cache]` section (if any) and the `[caches.*]` tables.
    pub fn named_caches(&self) -> Vec<(String, &CacheSection)> {
        let mut out = Vec::new();
        if let Some(c) = &self.cache {
            out.push((c.name.clone().unwrap_or_else(|| DEFAULT_CACHE_NAME.to_string()), c));
        }
        for (name, c) in &self.caches {
            out.push((name.clone(), c));
        }
        out
    }

    /// The cache a listener uses: `(name, section)`; inline sections are named after the listener.
    pub fn listener_cache<'a>(&'a self, l: &'a ListenerConfig) -> Option<(String, &'a CacheSection)> {
        match l.cache.as_ref()? {
            CacheRef::Inline(section) => Some((format!("listener:{}", l.name), section)),
            CacheRef::Name(name) => self.named_caches().into_iter().find(|(n, _)| n == name),
        }
    }

    fn validate(&self) -> Result<(), ConfigError> {
        if self.listeners.is_empty() {
            return Err(invalid("at least one [[listeners]] entry is required"));
        }
        if self.listeners.len() > MAX_LISTENERS {
            return Err(invalid(format!("at most {MAX_LISTENERS} listeners are supported")));
        }
        if self.servers.is_empty() {
            return Err(invalid("at least one [[servers]] entry is required"));
        }
        if self.servers.len() > MAX_SERVERS {
            return Err(invalid(format!("at most {MAX_SERVERS} servers are supported")));
        }
        if let Some(w) = self.workers {
            if w == 0 || w > MAX_WORKERS {
                return Err(invalid(format!("workers must be between 1 and {MAX_WORKERS}")));
            }
        }
        let mut names = HashSet::new();
        for s in &self.servers {
            check_name("server", &s.name)?;
            if !names.insert(s.name.as_str()) {
                return Err(invalid(format!("server name '{}' is used twice", s.name)));
            }
            if s.address.trim().is_empty() || s.port == 0 {
                return Err(invalid(format!("server '{}' needs an address and a non-zero port", s.name)));
            }
        }
        let mut cache_names = HashSet::new();
        for (name, section) in self.named_caches() {
            check_name("cache", &name)?;
            if !cache_names.insert(name.clone()) {
                return Err(invalid(format!("cache name '{name}' is used twice")));
            }
            section.to_cache_config().map_err(|e| invalid(format!("cache '{name}': {e}")))?;
        }
        for (name, section) in &self.caches {
            if section.name.as_ref().is_some_and(|n| n != name) {
                return Err(invalid(format!("[caches.{name}] must not set a different `name`")));
            }
        }
        let mut listener_names = HashSet::new();
        let mut endpoints = HashSet::new();
        for l in &self.listeners {
            check_name("listener", &l.name)?;
            if !listener_names.insert(l.name.as_str()) {
                return Err(invalid(format!("listener name '{}' is used twice", l.name)));
            }
            if !endpoints.insert((l.bind.as_str(), l.port)) {
                return Err(invalid(format!("listener '{}': {}:{} is used twice", l.name, l.bind, l.port)));
            }
            self.validate_listener(l)?;
        }
        if let Some(a) = &self.admin {
            if endpoints.contains(&(a.bind.as_str(), a.port)) {
                return Err(invalid(format!("[admin] {}:{} is also a listener's address", a.bind, a.port)));
            }
        }
        let m = &self.monitor;
        if !(MIN_MONITOR_INTERVAL_MS..=MAX_MONITOR_INTERVAL_MS).contains(&m.interval_ms) {
            return Err(invalid(format!(
                "monitor.interval_ms must be between {MIN_MONITOR_INTERVAL_MS} and {MAX_MONITOR_INTERVAL_MS}"
            )));
        }
        if !(MIN_CONNECT_TIMEOUT_MS..=MAX_CONNECT_TIMEOUT_MS).contains(&m.connect_timeout_ms) {
            return Err(invalid(format!(
                "monitor.connect_timeout_ms must be between {MIN_CONNECT_TIMEOUT_MS} and {MAX_CONNECT_TIMEOUT_MS}"
            )));
        }
        if m.failcount == 0 || m.failcount > 1000 {
            return Err(invalid("monitor.failcount must be between 1 and 1000"));
        }
        if m.user.is_empty() {
            return Err(invalid("monitor.user must not be empty"));
        }
        let mut user_names = HashSet::new();
        for u in &self.users.list {
            if u.name.is_empty() || u.name.len() > 80 {
                return Err(invalid("users.list: user names must have 1 to 80 characters"));
            }
            if !user_names.insert(u.name.as_str()) {
                return Err(invalid(format!("users.list: '{}' is listed twice", u.name)));
            }
            match (&u.password, &u.password_hash) {
                (Some(_), Some(_)) => {
                    return Err(invalid(format!(
                        "users.list '{}': give `password` or `password_hash`, not both",
                        u.name
                    )))
                }
                (None, Some(h)) if selkie_protocol::auth::parse_native_password_hex(h).is_none() => {
                    return Err(invalid(format!(
                        "users.list '{}': password_hash must be '*' and 40 hex digits",
                        u.name
                    )))
                }
                _ => {}
            }
        }
        if self.users.source == UserSource::Config && self.users.list.is_empty() {
            return Err(invalid("users.source = \"config\" needs at least one [[users.list]] entry"));
        }
        if self.users.refresh_interval_s == 0 {
            return Err(invalid("users.refresh_interval_s must be at least 1"));
        }
        Ok(())
    }

    fn validate_listener(&self, l: &ListenerConfig) -> Result<(), ConfigError> {
        let name = &l.name;
        match l.router {
            RouterKind::Readconnroute => {
                if l.role.is_none() {
                    return Err(invalid(format!(
                        "listener '{name}': readconnroute needs role = \"primary\" or \"replica\""
                    )));
                }
                if l.max_replication_lag.is_some() || l.max_session_history.is_some() || l.master_failure_mode.is_some()
                {
                    return Err(invalid(format!(
                        "listener '{name}': max_replication_lag, max_session_history and master_failure_mode apply to readwritesplit only"
                    )));
                }
                if l.cache.is_some() {
                    return Err(invalid(format!("listener '{name}': the result cache applies to readwritesplit only")));
                }
            }
            RouterKind::Readwritesplit => {
                if l.role.is_some() {
                    return Err(invalid(format!("listener '{name}': `role` applies to readconnroute only")));
                }
                if let Some(lag) = l.max_replication_lag {
                    if !(lag.is_finite() && lag >= 0.0) {
                        return Err(invalid(format!("listener '{name}': max_replication_lag must be >= 0 seconds")));
                    }
                }
                if let Some(h) = l.max_session_history {
                    if h == 0 || h > MAX_SESSION_HISTORY_LIMIT {
                        return Err(invalid(format!(
                            "listener '{name}': max_session_history must be between 1 and {MAX_SESSION_HISTORY_LIMIT}"
                        )));
                    }
                }
                match &l.cache {
                    Some(CacheRef::Name(c)) if self.listener_cache(l).is_none() => {
                        return Err(invalid(format!("listener '{name}': no cache named '{c}'")));
                    }
                    Some(CacheRef::Inline(section)) => {
                        section.to_cache_config().map_err(|e| invalid(format!("listener '{name}' cache: {e}")))?;
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

impl ListenerConfig {
    pub fn max_replication_lag(&self) -> Duration {
        Duration::from_secs_f64(self.max_replication_lag.unwrap_or(DEFAULT_MAX_REPLICATION_LAG_S))
    }
    pub fn max_session_history(&self) -> usize {
        self.max_session_history.unwrap_or(DEFAULT_MAX_SESSION_HISTORY)
    }
}

/// Names appear in logs, JSON and Prometheus labels: keep them to a safe alphabet.
fn check_name(what: &str, name: &str) -> Result<(), ConfigError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'));
    if ok {
        Ok(())
    } else {
        Err(invalid(format!("{what} name '{name}' must be 1-64 characters of [A-Za-z0-9_.:-]")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = r#"
workers = 2

[[listeners]]
name = "rw"
port = 4006
router = "readwritesplit"
max_replication_lag = 5
max_session_history = 20
master_failure_mode = "fail_on_write"
cache = "default"

[[listeners]]
name = "ro"
bind = "0.0.0.0"
port = 4008
router = "readconnroute"
role = "replica"

[[listeners]]
name = "rw2"
port = 4009
router = "readwritesplit"
cache = { soft_ttl = 1, hard_ttl = 2, max_size = "1M", max_resultset_size = 1000, storage = "shared" }

[[servers]]
name = "db1"
address = "127.0.0.1"
port = 3306

[[servers]]
name = "db2"
address = "::1"
port = 3307

[monitor]
user = "mon"
password = "pw"
interval_ms = 200
connect_timeout_ms = 500

[users]
source = "backend"
[[users.list]]
name = "app"
password = "secret"
[[users.list]]
name = "ops"
password_hash = "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7"

[cache]
soft_ttl = 5
hard_ttl = 10
max_size = "64M"
max_resultset_size = "1M"
selects = "verify_cacheable"

[caches.small]
max_size = 4096
max_resultset_size = 1024

[admin]
port = 8989
"#;

    #[test]
    fn full_example_parses_with_values_and_defaults() {
        let c = Config::parse(FULL).unwrap();
        assert_eq!(c.workers, Some(2));
        assert_eq!(c.listeners.len(), 3);
        let rw = &c.listeners[0];
        assert_eq!((rw.router, rw.bind.as_str(), rw.port), (RouterKind::Readwritesplit, "127.0.0.1", 4006));
        assert_eq!(rw.max_replication_lag(), Duration::from_secs(5));
        assert_eq!(rw.max_session_history(), 20);
        let ro = &c.listeners[1];
        assert_eq!((ro.router, ro.role), (RouterKind::Readconnroute, Some(ServerRole::Replica)));
        assert_eq!(ro.max_session_history(), DEFAULT_MAX_SESSION_HISTORY);
        assert_eq!(c.servers[1].endpoint(), "[::1]:3307");
        assert_eq!(c.servers[0].endpoint(), "127.0.0.1:3306");
        assert_eq!(
            (c.monitor.interval_ms, c.monitor.connect_timeout_ms, c.monitor.failcount),
            (200, 500, DEFAULT_MONITOR_FAILCOUNT)
        );
        assert_eq!(c.users.list.len(), 2);

        let (name, section) = c.listener_cache(rw).unwrap();
        assert_eq!(name, "default");
        let cc = section.to_cache_config().unwrap();
        assert_eq!((cc.max_size, cc.max_resultset_size), (64 << 20, 1 << 20));
        assert_eq!(cc.selects, SelectsPolicy::VerifyCacheable);
        assert_eq!(cc.storage, CacheStorage::PerWorker);
        assert_eq!((cc.soft_ttl, cc.hard_ttl), (Duration::from_secs(5), Duration::from_secs(10)));

        let (name, section) = c.listener_cache(&c.listeners[2]).unwrap();
        assert_eq!(name, "listener:rw2");
        let cc = section.to_cache_config().unwrap();
        assert_eq!((cc.storage, cc.max_size, cc.max_resultset_size), (CacheStorage::Shared, 1 << 20, 1000));
        assert_eq!(c.named_caches().iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["default", "small"]);
        assert_eq!(c.admin.as_ref().unwrap().port, 8989);
    }

    #[test]
    fn minimal_config_takes_defaults() {
        let c =
            Config::parse("[[listeners]]\nname='a'\nport=1\nrouter='readconnroute'\nrole='primary'\n[[servers]]\nname='s'\naddress='h'\n")
                .unwrap();
        assert_eq!(c.servers[0].port, 3306);
        assert_eq!(c.monitor, MonitorConfig::default());
        assert_eq!(c.users.source, UserSource::Backend);
        assert!(c.admin.is_none() && c.cache.is_none());
    }

    fn err_of(text: &str) -> String {
        Config::parse(text).unwrap_err().to_string()
    }

    #[test]
    fn invalid_files_are_refused_with_a_reason() {
        let server = "[[servers]]\nname='s'\naddress='h'\n";
        let rcr = "[[listeners]]\nname='a'\nport=1\nrouter='readconnroute'\nrole='primary'\n";
        let cases: Vec<(String, &str)> = vec![
            (server.to_string(), "listeners"),
            (rcr.to_string(), "servers"),
            (format!("{rcr}{server}bogus = 1\n"), "unknown field"),
            (format!("[[listeners]]\nname='a'\nport=1\nrouter='readconnroute'\n{server}"), "needs role"),
            (
                format!("[[listeners]]\nname='a'\nport=1\nrouter='readwritesplit'\nrole='primary'\n{server}"),
                "readconnroute only",
            ),
            (
                format!("[[listeners]]\nname='a'\nport=1\nrouter='readwritesplit'\ncache='nope'\n{server}"),
                "no cache named",
            ),
            (
                format!("[[listeners]]\nname='a'\nport=1\nrouter='readwritesplit'\nmax_session_history=0\n{server}"),
                "max_session_history",
            ),
            (
                format!("{rcr}[[listeners]]\nname='b'\nport=1\nrouter='readconnroute'\nrole='primary'\n{server}"),
                "used twice",
            ),
            (format!("{rcr}{server}{server}"), "used twice"),
            (format!("{rcr}{server}[cache]\nsoft_ttl=5\nhard_ttl=1\n"), "hard_ttl"),
            (format!("{rcr}{server}[cache]\nsoft_ttl=0\nhard_ttl=1\n"), "hard_ttl"),
            (format!("{rcr}{server}[cache]\nsoft_ttl=-1\n"), "non-negative"),
            (format!("{rcr}{server}[cache]\nmax_size='1K'\nmax_resultset_size='2K'\n"), "max_resultset_size"),
            (format!("{rcr}{server}[cache]\nmax_size='lots'\n"), "not a size"),
            (format!("{rcr}{server}[monitor]\ninterval_ms=1\n"), "interval_ms"),
            (format!("{rcr}{server}[users]\nsource='config'\n"), "needs at least one"),
            (format!("{rcr}{server}[[users.list]]\nname='x'\npassword_hash='abc'\n"), "password_hash"),
            (format!("{rcr}[[servers]]\nname='bad name'\naddress='h'\n"), "must be 1-64"),
            (format!("{rcr}{server}[admin]\nport=1\n"), "listener's address"),
            ("not toml at all [".to_string(), "<config>"),
        ];
        for (text, needle) in cases {
            let e = err_of(&text);
            assert!(e.contains(needle), "expected '{needle}' in error for:\n{text}\ngot: {e}");
        }
    }

    #[test]
    fn sizes_parse_with_suffixes() {
        assert_eq!(parse_size("123"), Ok(123));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size(" 2M "), Ok(2 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert!(parse_size("").is_err());
        assert!(parse_size("M").is_err());
        assert!(parse_size("99999999999999999G").is_err());
    }
}
