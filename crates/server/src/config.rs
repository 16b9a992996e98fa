//! Server configuration: command-line flags, an optional TOML file with the same keys
//! (snake_case), and the defaults. Flags override the file; the file overrides defaults.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Parser;
use selkie_storage::{FaultInjection, FlushMode};
use serde::Deserialize;
use thiserror::Error;

pub const DEFAULT_DATADIR: &str = "./selkie-data";
pub const DEFAULT_PORT: u16 = 3307;
pub const DEFAULT_BIND: &str = "127.0.0.1";
pub const DEFAULT_BUFFER_POOL: u64 = 512 << 20;
pub const DEFAULT_LOCK_WAIT_TIMEOUT_SECS: u64 = 50;
pub const DEFAULT_MAX_CONNECTIONS: u32 = 4096;
pub const DEFAULT_MAX_ALLOWED_PACKET: u64 = 16 << 20;
pub const DEFAULT_LOG_LEVEL: &str = "info";
pub const DEFAULT_LOG_FILE_SIZE: u64 = selkie_storage::wal::DEFAULT_LOG_CAPACITY;

/// Limits, as MariaDB 10.11 enforces them for the equivalent variables.
pub const MIN_BUFFER_POOL: u64 = 4 << 20;
pub const MIN_MAX_ALLOWED_PACKET: u64 = 1024;
pub const MAX_MAX_ALLOWED_PACKET: u64 = selkie_protocol::packet::MAX_ALLOWED_PACKET_LIMIT;
pub const MAX_MAX_CONNECTIONS: u32 = 100_000;
pub const MAX_LOCK_WAIT_TIMEOUT_SECS: u64 = 31_536_000;
/// innodb_log_file_size's upper bound; the lower one is the engine's (a few segments).
pub const MIN_LOG_FILE_SIZE: u64 = selkie_storage::wal::MIN_LOG_CAPACITY;
pub const MAX_LOG_FILE_SIZE: u64 = 512 << 30;
/// Longest user name accepted (MariaDB's limit).
pub const MAX_USER_NAME_LEN: usize = 80;

#[derive(Parser, Debug, Default, Clone)]
#[command(name = "selkied", version, about = "Selkie: a MariaDB-compatible OLTP database server")]
pub struct Args {
    /// Data directory (created if missing) [default: ./selkie-data]
    #[arg(long)]
    pub datadir: Option<PathBuf>,
    /// TCP port; 0 picks a free one (logged when ready) [default: 3307]
    #[arg(long)]
    pub port: Option<u16>,
    /// Listen address [default: 127.0.0.1]
    #[arg(long)]
    pub bind: Option<String>,
    /// Buffer pool size, e.g. 512M, 2G [default: 512M]
    #[arg(long, value_parser = parse_size)]
    pub buffer_pool_size: Option<u64>,
    /// 0, 1 or 2, as innodb_flush_log_at_trx_commit [default: 1]
    #[arg(long)]
    pub flush_at_commit: Option<u8>,
    /// Redo log capacity, as innodb_log_file_size; writes wait at 7/8 of it for the checkpoint
    /// [default: 1G]
    #[arg(long, value_parser = parse_size)]
    pub log_file_size: Option<u64>,
    /// Row lock wait timeout in seconds [default: 50]
    #[arg(long)]
    pub lock_wait_timeout: Option<u64>,
    /// Connections beyond this get error 1040 [default: 4096]
    #[arg(long)]
    pub max_connections: Option<u32>,
    /// Largest packet accepted from a client, e.g. 16M [default: 16M]
    #[arg(long, value_parser = parse_size)]
    pub max_allowed_packet: Option<u64>,
    /// TOML file with the same keys (snake_case); flags override it
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Test only: simulate power failure effects: lose-unsynced[,torn]
    #[arg(long)]
    pub fault_injection: Option<String>,
    /// Like innodb_force_recovery: if the redo log cannot be trusted (it ends before the last
    /// checkpoint), start read-only to salvage data instead of refusing to start
    #[arg(long)]
    pub force_recovery: bool,
    /// error, warn, info, debug, trace, or a tracing filter directive [default: info]
    #[arg(long)]
    pub log_level: Option<String>,
}

/// A size in the TOML file: a number of bytes or a string with a K/M/G suffix.
#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
enum SizeValue {
    Bytes(u64),
    Text(String),
}

impl SizeValue {
    fn bytes(&self) -> Result<u64, String> {
        match self {
            SizeValue::Bytes(b) => Ok(*b),
            SizeValue::Text(s) => parse_size(s),
        }
    }
}

/// An account from the `[[users]]` table of the config file.
#[derive(Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct UserConfig {
    pub name: String,
    #[serde(default)]
    pub password: String,
    /// "%" (any host), "localhost" (loopback), an address, or a pattern with % and _.
    #[serde(default = "default_host")]
    pub host: String,
}

fn default_host() -> String {
    "%".to_string()
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    datadir: Option<PathBuf>,
    port: Option<u16>,
    bind: Option<String>,
    buffer_pool_size: Option<SizeValue>,
    flush_at_commit: Option<u8>,
    log_file_size: Option<SizeValue>,
    lock_wait_timeout: Option<u64>,
    max_connections: Option<u32>,
    max_allowed_packet: Option<SizeValue>,
    fault_injection: Option<String>,
    force_recovery: Option<bool>,
    log_level: Option<String>,
    root_password: Option<String>,
    #[serde(default)]
    users: Vec<UserConfig>,
}

/// The resolved configuration.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub datadir: PathBuf,
    pub port: u16,
    pub bind: String,
    pub buffer_pool_bytes: u64,
    pub flush_mode: FlushMode,
    /// Redo log capacity in bytes (`--log-file-size`).
    pub log_file_size: u64,
    pub lock_wait_timeout: Duration,
    pub max_connections: u32,
    pub max_allowed_packet: u64,
    pub fault: FaultInjection,
    /// `--force-recovery`: salvage read-only instead of refusing an untrusted log.
    pub force_recovery: bool,
    pub log_level: String,
    /// Password of root@localhost (`None` = empty password).
    pub root_password: Option<String>,
    pub users: Vec<UserConfig>,
}

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("invalid config file {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("invalid value for {key}: {message}")]
    Invalid { key: &'static str, message: String },
}

fn invalid(key: &'static str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid { key, message: message.into() }
}

/// Parses `4096`, `64K`, `512M`, `2G`, `1T` (case-insensitive, binary multiples).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("unknown size suffix in '{s}' (use K, M, G or T)")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: u64 = digits.trim().parse().map_err(|_| format!("'{s}' is not a size"))?;
    n.checked_mul(1u64 << shift).ok_or_else(|| format!("'{s}' is too large"))
}

fn parse_fault_injection(s: &str) -> Result<FaultInjection, ConfigError> {
    let mut f = FaultInjection::default();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part {
            "lose-unsynced" => f.lose_unsynced_writes = true,
            "torn" => f.torn_page_writes = true,
            "none" => {}
            other => return Err(invalid("fault_injection", format!("unknown fault '{other}' (lose-unsynced, torn)"))),
        }
    }
    if f.torn_page_writes && !f.lose_unsynced_writes {
        // A torn write only matters when the crash loses what was not synced.
        return Err(invalid("fault_injection", "'torn' requires 'lose-unsynced'"));
    }
    Ok(f)
}

impl ServerConfig {
    /// Merges flags, the config file they name (if any) and the defaults, and validates.
    pub fn resolve(args: Args) -> Result<ServerConfig, ConfigError> {
        let file = match &args.config {
            Some(path) => read_file(path)?,
            None => FileConfig::default(),
        };
        let size = |flag: Option<u64>,
                    file: &Option<SizeValue>,
                    key: &'static str,
                    default: u64|
         -> Result<u64, ConfigError> {
            match (flag, file) {
                (Some(v), _) => Ok(v),
                (None, Some(v)) => v.bytes().map_err(|m| invalid(key, m)),
                (None, None) => Ok(default),
            }
        };
        let buffer_pool_bytes =
            size(args.buffer_pool_size, &file.buffer_pool_size, "buffer_pool_size", DEFAULT_BUFFER_POOL)?;
        if buffer_pool_bytes < MIN_BUFFER_POOL {
            return Err(invalid(
                "buffer_pool_size",
                format!("{buffer_pool_bytes} is below the minimum of {MIN_BUFFER_POOL} bytes"),
            ));
        }
        let max_allowed_packet =
            size(args.max_allowed_packet, &file.max_allowed_packet, "max_allowed_packet", DEFAULT_MAX_ALLOWED_PACKET)?;
        if !(MIN_MAX_ALLOWED_PACKET..=MAX_MAX_ALLOWED_PACKET).contains(&max_allowed_packet) {
            return Err(invalid(
                "max_allowed_packet",
                format!("{max_allowed_packet} is outside {MIN_MAX_ALLOWED_PACKET}..={MAX_MAX_ALLOWED_PACKET}"),
            ));
        }
        let log_file_size = size(args.log_file_size, &file.log_file_size, "log_file_size", DEFAULT_LOG_FILE_SIZE)?;
        if !(MIN_LOG_FILE_SIZE..=MAX_LOG_FILE_SIZE).contains(&log_file_size) {
            return Err(invalid(
                "log_file_size",
                format!("{log_file_size} is outside {MIN_LOG_FILE_SIZE}..={MAX_LOG_FILE_SIZE}"),
            ));
        }
        let flush_mode = match args.flush_at_commit.or(file.flush_at_commit).unwrap_or(1) {
            0 => FlushMode::Lazy,
            1 => FlushMode::Durable,
            2 => FlushMode::WriteOnly,
            other => return Err(invalid("flush_at_commit", format!("{other} (use 0, 1 or 2)"))),
        };
        let lock_wait_secs =
            args.lock_wait_timeout.or(file.lock_wait_timeout).unwrap_or(DEFAULT_LOCK_WAIT_TIMEOUT_SECS);
        if !(1..=MAX_LOCK_WAIT_TIMEOUT_SECS).contains(&lock_wait_secs) {
            return Err(invalid(
                "lock_wait_timeout",
                format!("{lock_wait_secs} is outside 1..={MAX_LOCK_WAIT_TIMEOUT_SECS}"),
            ));
        }
        let max_connections = args.max_connections.or(file.max_connections).unwrap_or(DEFAULT_MAX_CONNECTIONS);
        if !(1..=MAX_MAX_CONNECTIONS).contains(&max_connections) {
            return Err(invalid("max_connections", format!("{max_connections} is outside 1..={MAX_MAX_CONNECTIONS}")));
        }
        let fault = match args.fault_injection.as_deref().or(file.fault_injection.as_deref()) {
            Some(s) => parse_fault_injection(s)?,
            None => FaultInjection::default(),
        };
        for u in &file.users {
            if u.name.is_empty() || u.name.len() > MAX_USER_NAME_LEN {
                return Err(invalid(
                    "users",
                    format!("user name '{}' must have 1..={} characters", u.name, MAX_USER_NAME_LEN),
                ));
            }
            crate::host::HostPattern::parse(&u.host).map_err(|m| invalid("users", m))?;
        }
        Ok(ServerConfig {
            datadir: args.datadir.or(file.datadir).unwrap_or_else(|| PathBuf::from(DEFAULT_DATADIR)),
            port: args.port.or(file.port).unwrap_or(DEFAULT_PORT),
            bind: args.bind.or(file.bind).unwrap_or_else(|| DEFAULT_BIND.to_string()),
            buffer_pool_bytes,
            flush_mode,
            log_file_size,
            lock_wait_timeout: Duration::from_secs(lock_wait_secs),
            max_connections,
            max_allowed_packet,
            fault,
            force_recovery: args.force_recovery || file.force_recovery.unwrap_or(false),
            log_level: args.log_level.or(file.log_level).unwrap_or_else(|| DEFAULT_LOG_LEVEL.to_string()),
            root_password: file.root_password.filter(|p| !p.is_empty()),
            users: file.users,
        })
    }

    /// The value of --flush-at-commit.
    pub fn flush_at_commit(&self) -> u8 {
        self.flush_mode as u8
    }
}

fn read_file(path: &Path) -> Result<FileConfig, ConfigError> {
    let text =
        std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })?;
    toml::from_str(&text).map_err(|e| ConfigError::Parse { path: path.to_path_buf(), message: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Args {
        Args::try_parse_from(std::iter::once("selkied").chain(list.iter().copied())).unwrap()
    }

    #[test]
    fn sizes_with_suffixes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size(" 2G "), Ok(2 << 30));
        assert!(parse_size("12X").is_err());
        assert!(parse_size("M").is_err());
        assert!(parse_size("-1M").is_err());
        assert!(parse_size("99999999999999T").is_err());
    }

    #[test]
    fn defaults() {
        let c = ServerConfig::resolve(args(&[])).unwrap();
        assert_eq!(c.datadir, PathBuf::from("./selkie-data"));
        assert_eq!((c.port, c.bind.as_str()), (3307, "127.0.0.1"));
        assert_eq!(c.buffer_pool_bytes, 512 << 20);
        assert_eq!(c.flush_mode, FlushMode::Durable);
        assert_eq!(c.log_file_size, 1 << 30);
        assert_eq!(c.lock_wait_timeout, Duration::from_secs(50));
        assert_eq!((c.max_connections, c.max_allowed_packet), (4096, 16 << 20));
        assert_eq!(c.fault, FaultInjection::default());
        assert!(c.root_password.is_none() && c.users.is_empty());
    }

    #[test]
    fn flags_override_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("selkie.toml");
        std::fs::write(
            &path,
            r#"
            port = 4000
            buffer_pool_size = "2G"
            max_allowed_packet = 1048576
            flush_at_commit = 2
            log_file_size = "64M"
            root_password = "s3cret"
            [[users]]
            name = "app"
            password = "pw"
            host = "127.0.0.1"
            [[users]]
            name = "any"
            "#,
        )
        .unwrap();
        let c = ServerConfig::resolve(args(&[
            "--config",
            path.to_str().unwrap(),
            "--port",
            "5000",
            "--flush-at-commit",
            "0",
        ]))
        .unwrap();
        assert_eq!(c.port, 5000);
        assert_eq!(c.flush_mode, FlushMode::Lazy);
        assert_eq!(c.buffer_pool_bytes, 2 << 30);
        assert_eq!(c.max_allowed_packet, 1 << 20);
        assert_eq!(c.log_file_size, 64 << 20);
        assert_eq!(c.root_password.as_deref(), Some("s3cret"));
        assert_eq!(c.users[0], UserConfig { name: "app".into(), password: "pw".into(), host: "127.0.0.1".into() });
        assert_eq!(c.users[1].host, "%");
    }

    #[test]
    fn invalid_values_are_rejected() {
        for bad in [
            &["--flush-at-commit", "3"][..],
            &["--max-connections", "0"],
            &["--max-allowed-packet", "100"],
            &["--buffer-pool-size", "1M"],
            &["--lock-wait-timeout", "0"],
            &["--log-file-size", "1M"],
            &["--fault-injection", "torn"],
            &["--fault-injection", "explode"],
        ] {
            assert!(ServerConfig::resolve(args(bad)).is_err(), "{bad:?} accepted");
        }
        let c = ServerConfig::resolve(args(&["--fault-injection", "lose-unsynced,torn"])).unwrap();
        assert!(c.fault.lose_unsynced_writes && c.fault.torn_page_writes);
        assert!(Args::try_parse_from(["selkied", "--buffer-pool-size", "lots"]).is_err());

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.toml");
        std::fs::write(&path, "prot = 1\n").unwrap();
        assert!(matches!(
            ServerConfig::resolve(args(&["--config", path.to_str().unwrap()])),
            Err(ConfigError::Parse { .. })
        ));
        std::fs::write(&path, "[[users]]\nname = \"x\"\nhost = \"bad host!\"\n").unwrap();
        assert!(ServerConfig::resolve(args(&["--config", path.to_str().unwrap()])).is_err());
        assert!(matches!(
            ServerConfig::resolve(args(&["--config", "/nonexistent/x.toml"])),
            Err(ConfigError::Read { .. })
        ));
    }
}
