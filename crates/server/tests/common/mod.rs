//! Starts a private `selkied` for a test: its own temporary data directory, an OS-chosen free
//! loopback port (read back from the "ready for connections" log line), killed when dropped.
#![allow(dead_code)]

pub mod mariadb;

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
}

impl Selkied {
    /// Starts a server on a fresh temporary data directory.
    pub fn start(extra_args: &[&str]) -> Selkied {
        let dir = tempfile::tempdir().unwrap();
        let datadir = dir.path().join("data");
        let mut s = Selkied::start_in(&datadir, extra_args);
        s._dir = Some(dir);
        s
    }

    /// Starts a server on `datadir` (which outlives it, for restart tests).
    pub fn start_in(datadir: &Path, extra_args: &[&str]) -> Selkied {
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
        Selkied { child, port, datadir: datadir.to_path_buf(), log, _dir: None }
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
