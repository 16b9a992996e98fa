//! A MariaDB 10.11 to compare behaviour with: the one on `SELKIE_TEST_MARIADB_PORT` (default
//! 3399) if it answers as root without a password, otherwise a private server in a temporary
//! directory (mariadb-install-db + mariadbd, as tests/harness.py starts one), stopped on drop.
//! None when neither is possible (MariaDB not installed).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use selkie_protocol::client::{Client, ClientOptions};

use super::{find_program, TcpClient};

/// Port of a MariaDB that tests may use when one is already running.
const DEFAULT_SHARED_PORT: u16 = 3399;
/// Time allowed for a private MariaDB to install its system tables and start.
const START_TIMEOUT: Duration = Duration::from_secs(120);

pub struct MariaDb {
    pub port: u16,
    child: Option<Child>,
    _dir: Option<tempfile::TempDir>,
}

impl MariaDb {
    pub async fn find_or_start() -> Option<MariaDb> {
        let shared =
            std::env::var("SELKIE_TEST_MARIADB_PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(DEFAULT_SHARED_PORT);
        if connect(shared).await.is_some() {
            return Some(MariaDb { port: shared, child: None, _dir: None });
        }
        let mariadbd = find_program("mariadbd")?;
        let install = find_program("mariadb-install-db")?;
        let dir = tempfile::tempdir().ok()?;
        let port = std::net::TcpListener::bind("127.0.0.1:0").ok()?.local_addr().ok()?.port();
        let base: PathBuf = dir.path().to_path_buf();
        let cnf = base.join("my.cnf");
        let config = [
            "[mysqld]".to_string(),
            format!("datadir={}", base.join("data").display()),
            format!("socket={}", base.join("mysqld.sock").display()),
            format!("pid-file={}", base.join("mysqld.pid").display()),
            format!("port={port}"),
            "bind-address=127.0.0.1".into(),
            format!("log-error={}", base.join("mariadb.err").display()),
            "skip-log-bin".into(),
            "performance_schema=OFF".into(),
            "skip-name-resolve".into(),
            "innodb_buffer_pool_size=64M".into(),
            "character-set-server=utf8mb4".into(),
            "collation-server=utf8mb4_general_ci".into(),
        ];
        std::fs::write(&cnf, config.join("\n") + "\n").ok()?;
        let installed = Command::new(install)
            .arg(format!("--defaults-file={}", cnf.display()))
            .args(["--auth-root-authentication-method=normal", "--skip-test-db"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .ok()?;
        if !installed.success() {
            return None;
        }
        let mut cmd = Command::new(mariadbd);
        cmd.arg(format!("--defaults-file={}", cnf.display()));
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            cmd.arg("--user=root");
        }
        let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().ok()?;
        let server = MariaDb { port, child: Some(child), _dir: Some(dir) };
        let deadline = Instant::now() + START_TIMEOUT;
        while Instant::now() < deadline {
            if connect(port).await.is_some() {
                return Some(server);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        None
    }

    pub async fn root(&self) -> TcpClient {
        connect(self.port).await.expect("MariaDB answers")
    }
}

async fn connect(port: u16) -> Option<TcpClient> {
    Client::connect_tcp(("127.0.0.1", port), &ClientOptions::new("root", "")).await.ok()
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
