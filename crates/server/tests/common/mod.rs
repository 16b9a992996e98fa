//! Starts a private `selkied` for a test: its own temporary data directory, an OS-chosen free
//! loopback port (read back from the "ready for connections" log line), killed when dropped.
//! `Selkied::builder()` names the flags and accounts a test needs; everything else is the
//! small default every test shares.
#![allow(dead_code)]

pub mod mariadb;

use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use selkie_protocol::client::{Client, ClientOptions};
use selkie_protocol::ProtocolError;

pub type TcpClient = Client<tokio::net::tcp::OwnedReadHalf, tokio::net::tcp::OwnedWriteHalf>;

/// Time allowed for startup (engine creation and recovery included) and for clean shutdown.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);
pub const STOP_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Default)]
struct LogState {
    text: String,
    port: Option<u16>,
    closed: bool,
}

pub struct Selkied {
    child: Child,
    pub port: u16,
    pub datadir: PathBuf,
    log: Arc<(Mutex<LogState>, Condvar)>,
    _dir: Option<tempfile::TempDir>,
    _config_dir: Option<tempfile::TempDir>,
}

/// What a test's selkied is started with beyond the shared defaults: flags, and accounts, which
/// go into a TOML file passed with `--config` (selkied takes them only from a file).
#[derive(Clone, Debug, Default)]
pub struct SelkiedBuilder {
    flags: Vec<(String, String)>,
    root_password: Option<String>,
    users: Vec<UserEntry>,
}

#[derive(Clone, Debug)]
struct UserEntry {
    name: String,
    password: Option<String>,
    host: Option<String>,
}

impl SelkiedBuilder {
    /// `--NAME VALUE`.
    pub fn flag(mut self, name: &str, value: impl ToString) -> SelkiedBuilder {
        self.flags.push((format!("--{name}"), value.to_string()));
        self
    }

    pub fn max_connections(self, n: usize) -> SelkiedBuilder {
        self.flag("max-connections", n)
    }

    pub fn max_allowed_packet(self, size: &str) -> SelkiedBuilder {
        self.flag("max-allowed-packet", size)
    }

    pub fn lock_wait_timeout(self, seconds: u64) -> SelkiedBuilder {
        self.flag("lock-wait-timeout", seconds)
    }

    pub fn root_password(mut self, password: &str) -> SelkiedBuilder {
        self.root_password = Some(password.to_string());
        self
    }

    /// A `[[users]]` entry; `None` leaves the key out (no password, host `%`).
    pub fn user(mut self, name: &str, password: Option<&str>, host: Option<&str>) -> SelkiedBuilder {
        let (password, host) = (password.map(str::to_string), host.map(str::to_string));
        self.users.push(UserEntry { name: name.to_string(), password, host });
        self
    }

    /// The configuration file's text, or `None` when no account is configured.
    fn config_text(&self) -> Option<String> {
        if self.root_password.is_none() && self.users.is_empty() {
            return None;
        }
        let quote = |s: &str| toml::Value::String(s.to_string()).to_string();
        let mut text = String::new();
        if let Some(pw) = &self.root_password {
            text.push_str(&format!("root_password = {}\n", quote(pw)));
        }
        for u in &self.users {
            text.push_str(&format!("[[users]]\nname = {}\n", quote(&u.name)));
            if let Some(pw) = &u.password {
                text.push_str(&format!("password = {}\n", quote(pw)));
            }
            if let Some(host) = &u.host {
                text.push_str(&format!("host = {}\n", quote(host)));
            }
        }
        Some(text)
    }

    /// Starts a server on a fresh temporary data directory.
    pub fn start(self) -> Selkied {
        let dir = tempfile::tempdir().unwrap();
        let datadir = dir.path().join("data");
        let mut s = self.start_in(&datadir);
        s._dir = Some(dir);
        s
    }

    /// Starts a server on `datadir` (which outlives it, for restart tests).
    pub fn start_in(self, datadir: &Path) -> Selkied {
        let mut args: Vec<OsString> = Vec::new();
        let mut config_dir = None;
        if let Some(text) = self.config_text() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("selkie.toml");
            std::fs::write(&path, text).unwrap();
            args.push("--config".into());
            args.push(path.into());
            config_dir = Some(dir);
        }
        for (name, value) in self.flags {
            args.push(name.into());
            args.push(value.into());
        }
        let mut s = Selkied::spawn(datadir, &args);
        s._config_dir = config_dir;
        s
    }
}

impl Selkied {
    /// Starts a server with the defaults on a fresh temporary data directory.
    pub fn start() -> Selkied {
        SelkiedBuilder::default().start()
    }

    /// Starts a server with the defaults on `datadir` (which outlives it, for restart tests).
    pub fn start_in(datadir: &Path) -> Selkied {
        SelkiedBuilder::default().start_in(datadir)
    }

    pub fn builder() -> SelkiedBuilder {
        SelkiedBuilder::default()
    }

    fn spawn(datadir: &Path, extra_args: &[OsString]) -> Selkied {
        let mut child = Command::new(env!("CARGO_BIN_EXE_selkied"))
            .arg("--datadir")
            .arg(datadir)
            .args(["--port", "0", "--buffer-pool-size", "32M", "--log-level", "info"])
            .args(extra_args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start selkied");
        let log = Arc::new((Mutex::new(LogState::default()), Condvar::new()));
        let stderr = child.stderr.take().unwrap();
        let log2 = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let (lock, cv) = &*log2;
                let mut st = lock.lock().unwrap();
                if line.contains("ready for connections") {
                    st.port = line.rsplit("port: ").next().and_then(|p| p.trim().parse().ok());
                }
                st.text.push_str(&line);
                st.text.push('\n');
                cv.notify_all();
            }
            let (lock, cv) = &*log2;
            lock.lock().unwrap().closed = true;
            cv.notify_all();
        });
        let deadline = Instant::now() + START_TIMEOUT;
        let port = {
            let (lock, cv) = &*log;
            let mut st = lock.lock().unwrap();
            loop {
                if let Some(p) = st.port {
                    break p;
                }
                if st.closed || Instant::now() > deadline {
                    let _ = child.kill();
                    panic!("selkied did not become ready:\n{}", st.text);
                }
                st = cv.wait_timeout(st, Duration::from_millis(200)).unwrap().0;
            }
        };
        Selkied { child, port, datadir: datadir.to_path_buf(), log, _dir: None, _config_dir: None }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn log(&self) -> String {
        self.log.0.lock().unwrap().text.clone()
    }

    /// Sends SIGTERM and waits for the process to exit.
    pub fn terminate(&mut self) -> ExitStatus {
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + STOP_TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // Let the log reader drain the last lines.
                let (lock, cv) = &*self.log;
                let st = lock.lock().unwrap();
                let _ = cv.wait_timeout_while(st, Duration::from_secs(5), |s| !s.closed).unwrap();
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("selkied did not exit after SIGTERM:\n{}", self.log());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Resident memory of the server process in KiB (from /proc).
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS missing")
    }

    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    pub async fn connect(&self, opts: &ClientOptions) -> Result<TcpClient, ProtocolError> {
        Client::connect_tcp(("127.0.0.1", self.port), opts).await
    }

    pub async fn root(&self) -> TcpClient {
        self.try_root().await.unwrap()
    }

    pub async fn try_root(&self) -> Result<TcpClient, ProtocolError> {
        self.connect(&ClientOptions::new("root", "")).await
    }

    pub async fn try_root_as(&self, user: &str, password: &str) -> Result<TcpClient, ProtocolError> {
        self.connect(&ClientOptions::new(user, password)).await
    }
}

impl Drop for Selkied {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// The (code, message) of a server error, panicking on anything else.
pub fn server_error<T: std::fmt::Debug>(r: Result<T, ProtocolError>) -> (u16, String) {
    match r {
        Err(ProtocolError::Server(e)) => (e.code, e.message),
        other => panic!("expected a server error, got {other:?}"),
    }
}

pub fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    path.split(':')
        .map(PathBuf::from)
        .chain(["/usr/sbin", "/usr/bin", "/usr/local/bin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// `SELKIE_STRESS=1` selects the long variants of tests.
pub fn stress() -> bool {
    std::env::var("SELKIE_STRESS").is_ok_and(|v| v == "1")
}
