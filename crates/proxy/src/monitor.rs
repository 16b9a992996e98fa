//! The monitor: health checks, role detection and replication lag of every backend, and the
//! user list fetched from the primary.
//!
//! It runs on its own thread with its own single-threaded runtime, never on a worker: a slow or
//! hanging backend must not delay client traffic. One probe task per server keeps a connection
//! (with the monitor's credentials) and every `interval_ms` runs `SELECT @@global.read_only`,
//! `SHOW SLAVE STATUS` and `SELECT @@global.gtid_current_pos`; the first failing check of a
//! server not yet seen, or `failcount` consecutive ones, take it out of routing. Results go to
//! one aggregator, which owns all state and publishes a new immutable `Cluster` snapshot through
//! an `ArcSwap` whenever something changed. Servers that do not know a variable or statement
//! (selkied has no replication) simply read as "writable, not replicating".
//!
//! Role: a server with a SHOW SLAVE STATUS row, or with read_only = 1, is a replica; otherwise
//! it is a primary. Lag is Seconds_Behind_Master (NULL, e.g. while the primary is down, reads as
//! unknown; see `ServerState::usable_replica`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use selkie_protocol::client::{Client, ClientOptions, Response};
use selkie_protocol::ProtocolError;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use crate::auth::UserTable;
use crate::cluster::{Cluster, Health, ReplicationThreads, Role, ServerState};
use crate::config::{MonitorConfig, UserSource, UsersConfig};

/// A failed login triggers a user refresh at most this often (a client hammering with a wrong
/// password must not hammer the primary).
pub const MIN_USER_REFRESH_INTERVAL: Duration = Duration::from_secs(1);

/// A server the monitor checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerTarget {
    pub name: String,
    pub endpoint: String,
    pub slot: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MonitorSetup {
    pub servers: Vec<ServerTarget>,
    pub monitor: MonitorConfig,
    pub users: UsersConfig,
}

pub enum MonitorCommand {
    /// New configuration (SIGHUP): servers, timing, users.
    Reconfigure(MonitorSetup),
    /// Refresh the user list now (a login failed); answered when the refresh ended.
    RefreshUsers(oneshot::Sender<()>),
}

/// What one successful check saw.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    pub version: String,
    pub read_only: bool,
    /// From SHOW SLAVE STATUS: threads and Seconds_Behind_Master (None when NULL).
    pub replication: Option<(ReplicationThreads, Option<u64>)>,
    pub gtid: Option<String>,
}

struct Probe {
    epoch: u64,
    index: usize,
    result: Result<Observation, String>,
}

/// Per server, what the aggregator tracks beyond the published state.
#[derive(Debug)]
pub struct Tracked {
    pub state: ServerState,
    pub failures: u32,
    pub checked: bool,
}

/// A state change worth a log line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    Up { role: Role },
    BackUp { role: Role },
    Down { error: String },
    RoleChanged { from: Role, to: Role },
}

/// Applies one check's outcome to a server's state (pure: the aggregator logs the event).
pub fn apply(t: &mut Tracked, result: Result<Observation, String>, failcount: u32) -> Option<Event> {
    let first = !t.checked;
    t.checked = true;
    match result {
        Ok(o) => {
            t.failures = 0;
            let role = if o.replication.is_some() || o.read_only { Role::Replica } else { Role::Primary };
            let s = &mut t.state;
            s.version = Some(o.version.as_str().into());
            s.gtid = o.gtid.map(|g| g.as_str().into());
            s.replication = o.replication.map(|(threads, _)| threads);
            s.lag = o.replication.and_then(|(_, lag)| lag).map(Duration::from_secs);
            let previous = (s.health, s.role);
            s.health = Health::Up;
            s.role = role;
            match previous {
                (Health::Unknown, _) => Some(Event::Up { role }),
                (Health::Down, _) => Some(Event::BackUp { role }),
                (Health::Up, from) if from != role => Some(Event::RoleChanged { from, to: role }),
                _ => None,
            }
        }
        Err(error) => {
            t.failures = t.failures.saturating_add(1);
            let s = &mut t.state;
            // A server never seen up is out at once; one seen up gets `failcount` chances.
            if s.health != Health::Down && (first || s.health == Health::Unknown || t.failures >= failcount) {
                s.health = Health::Down;
                s.lag = None;
                s.replication = None;
                return Some(Event::Down { error });
            }
            None
        }
    }
}

type MonitorClient = Client<OwnedReadHalf, OwnedWriteHalf>;

fn client_options(m: &MonitorConfig) -> ClientOptions {
    let mut o = ClientOptions::new(&m.user, &m.password);
    o.attributes = vec![("_client_name".into(), "selkie-proxy-monitor".into())];
    o
}

async fn with_timeout<T>(
    limit: Duration,
    what: &str,
    f: impl std::future::Future<Output = Result<T, ProtocolError>>,
) -> Result<Result<T, ProtocolError>, String> {
    tokio::time::timeout(limit, f).await.map_err(|_| format!("{what} timed out after {} ms", limit.as_millis()))
}

/// Column names and rows of a query, as text.
type TextResult = (Vec<String>, Vec<Vec<Option<String>>>);

/// Rows of a single-result query as text; `Ok(None)` when the server refused the statement
/// (an unknown variable or statement), `Err` when the connection failed.
async fn query_text(c: &mut MonitorClient, sql: &str, limit: Duration) -> Result<Option<TextResult>, String> {
    match with_timeout(limit, sql, c.query(sql)).await? {
        Ok(mut results) => match results.pop() {
            Some(Response::Rows(rs)) => {
                let names = rs.columns.iter().map(|c| c.name.clone()).collect();
                let rows = rs
                    .rows
                    .into_iter()
                    .map(|r| r.into_iter().map(|v| v.map(|b| String::from_utf8_lossy(&b).into_owned())).collect())
                    .collect();
                Ok(Some((names, rows)))
            }
            _ => Ok(None),
        },
        Err(ProtocolError::Server(_)) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

fn first_value(result: &Option<TextResult>) -> Option<&str> {
    result.as_ref()?.1.first()?.first()?.as_deref()
}

/// Parses one SHOW SLAVE STATUS row.
pub fn parse_slave_status(names: &[String], row: &[Option<String>]) -> (ReplicationThreads, Option<u64>) {
    let col = |name: &str| names.iter().position(|n| n.eq_ignore_ascii_case(name)).and_then(|i| row.get(i)?.as_deref());
    let yes = |name: &str| col(name).is_some_and(|v| v.eq_ignore_ascii_case("yes"));
    let threads = ReplicationThreads { io_running: yes("Slave_IO_Running"), sql_running: yes("Slave_SQL_Running") };
    (threads, col("Seconds_Behind_Master").and_then(|v| v.parse().ok()))
}

/// One health check over `conn` (connecting first if needed).
async fn check(conn: &mut Option<MonitorClient>, endpoint: &str, m: &MonitorConfig) -> Result<Observation, String> {
    let limit = m.connect_timeout();
    if conn.is_none() {
        let c = with_timeout(limit, "connect", Client::connect_tcp(endpoint, &client_options(m)))
            .await?
            .map_err(|e| e.to_string())?;
        *conn = Some(c);
    }
    let c = conn.as_mut().expect("connected above");
    let version = c.greeting().server_version.clone();
    let read_only = first_value(&query_text(c, "SELECT @@global.read_only", limit).await?).is_some_and(|v| v != "0");
    let slave = query_text(c, "SHOW SLAVE STATUS", limit).await?;
    let replication = slave.as_ref().and_then(|(names, rows)| rows.first().map(|row| parse_slave_status(names, row)));
    let gtid = first_value(&query_text(c, "SELECT @@global.gtid_current_pos", limit).await?).map(str::to_string);
    Ok(Observation { version, read_only, replication, gtid })
}

async fn probe_loop(epoch: u64, index: usize, endpoint: String, m: MonitorConfig, tx: mpsc::UnboundedSender<Probe>) {
    let mut conn = None;
    loop {
        let result = check(&mut conn, &endpoint, &m).await;
        if result.is_err() {
            conn = None;
        }
        if tx.send(Probe { epoch, index, result }).is_err() {
            return;
        }
        tokio::time::sleep(m.interval()).await;
    }
}

/// Fetches native-password accounts from mysql.user on `endpoint`.
async fn fetch_users(endpoint: String, m: MonitorConfig) -> Result<Vec<(String, String, String)>, String> {
    let limit = m.connect_timeout();
    let mut c = with_timeout(limit, "connect", Client::connect_tcp(endpoint.as_str(), &client_options(&m)))
        .await?
        .map_err(|e| e.to_string())?;
    let sql = "SELECT User, Password, plugin FROM mysql.user";
    let rows = with_timeout(limit, sql, c.query_rows(sql)).await?.map_err(|e| e.to_string())?;
    let _ = c.quit().await;
    Ok(rows
        .into_iter()
        .map(|r| {
            let mut it = r.into_iter().map(Option::unwrap_or_default);
            (it.next().unwrap_or_default(), it.next().unwrap_or_default(), it.next().unwrap_or_default())
        })
        .collect())
}

/// Handle kept by the process: the command channel and the readiness signal.
pub struct MonitorHandle {
    pub commands: mpsc::UnboundedSender<MonitorCommand>,
    /// Becomes true once every server was checked and (for `source = "backend"`) the first user
    /// fetch ended.
    pub ready: watch::Receiver<bool>,
    pub thread: std::thread::JoinHandle<()>,
}

/// Starts the monitor thread.
pub fn start(
    setup: MonitorSetup,
    cluster: Arc<ArcSwap<Cluster>>,
    users: Arc<ArcSwap<UserTable>>,
) -> std::io::Result<MonitorHandle> {
    let (tx, rx) = mpsc::unbounded_channel();
    let (ready_tx, ready_rx) = watch::channel(false);
    let thread = std::thread::Builder::new().name("proxy-monitor".into()).spawn(move || {
        let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(rt) => rt,
            Err(e) => {
                tracing::error!(error = %e, "cannot start the monitor runtime");
                return;
            }
        };
        let (users_tx, users_rx) = mpsc::unbounded_channel();
        rt.block_on(Aggregator::new(setup, cluster, users, ready_tx, users_tx).run(rx, users_rx));
    })?;
    Ok(MonitorHandle { commands: tx, ready: ready_rx, thread })
}

struct Aggregator {
    setup: MonitorSetup,
    servers: Vec<Tracked>,
    epoch: u64,
    generation: u64,
    probes: Vec<JoinHandle<()>>,
    cluster: Arc<ArcSwap<Cluster>>,
    users: Arc<ArcSwap<UserTable>>,
    ready: watch::Sender<bool>,
    users_fetched_once: bool,
    fetched_rows: Vec<(String, String, String)>,
    fetch_in_flight: bool,
    last_fetch: Option<Instant>,
    fetch_waiters: Vec<oneshot::Sender<()>>,
    users_tx: mpsc::UnboundedSender<UserFetch>,
}

type UserFetch = Result<Vec<(String, String, String)>, String>;

impl Aggregator {
    fn new(
        setup: MonitorSetup,
        cluster: Arc<ArcSwap<Cluster>>,
        users: Arc<ArcSwap<UserTable>>,
        ready: watch::Sender<bool>,
        users_tx: mpsc::UnboundedSender<UserFetch>,
    ) -> Aggregator {
        Aggregator {
            users_tx,
            setup,
            servers: Vec::new(),
            epoch: 0,
            generation: 0,
            probes: Vec::new(),
            cluster,
            users,
            ready,
            users_fetched_once: false,
            fetched_rows: Vec::new(),
            fetch_in_flight: false,
            last_fetch: None,
            fetch_waiters: Vec::new(),
        }
    }

    async fn run(
        mut self,
        mut commands: mpsc::UnboundedReceiver<MonitorCommand>,
        mut users_rx: mpsc::UnboundedReceiver<UserFetch>,
    ) {
        let (probe_tx, mut probe_rx) = mpsc::unbounded_channel::<Probe>();
        self.configure(self.setup.clone(), &probe_tx);
        self.publish_users();
        let mut users_timer = tokio::time::interval(Duration::from_secs(self.setup.users.refresh_interval_s));
        loop {
            tokio::select! {
                Some(p) = probe_rx.recv() => self.on_probe(p),
                cmd = commands.recv() => match cmd {
                    None => break,
                    Some(MonitorCommand::Reconfigure(setup)) => {
                        let refresh = Duration::from_secs(setup.users.refresh_interval_s);
                        self.configure(setup, &probe_tx);
                        self.publish_users();
                        users_timer = tokio::time::interval(refresh);
                        self.last_fetch = None;
                        // The timer's first tick (immediate) fetches users with the new settings.
                    }
                    Some(MonitorCommand::RefreshUsers(done)) => {
                        self.fetch_waiters.push(done);
                        let recent = self.last_fetch.is_some_and(|t| t.elapsed() < MIN_USER_REFRESH_INTERVAL);
                        if !self.fetch_in_flight && recent {
                            self.answer_waiters();
                        } else {
                            self.start_user_fetch();
                        }
                    }
                },
                _ = users_timer.tick() => self.start_user_fetch(),
                Some(result) = users_rx.recv() => self.on_users(result),
            }
        }
        for p in self.probes.drain(..) {
            p.abort();
        }
    }

    fn configure(&mut self, setup: MonitorSetup, probe_tx: &mpsc::UnboundedSender<Probe>) {
        for p in self.probes.drain(..) {
            p.abort();
        }
        self.epoch += 1;
        let old: Vec<Tracked> = std::mem::take(&mut self.servers);
        for target in &setup.servers {
            // Keep what is known about a server whose address did not change, so a reload
            // does not make it flap through "unknown".
            let kept = old
                .iter()
                .find(|t| t.state.name.as_ref() == target.name && t.state.endpoint.as_ref() == target.endpoint);
            let tracked = match kept {
                Some(t) => Tracked {
                    state: ServerState { slot: target.slot, ..t.state.clone() },
                    failures: t.failures,
                    checked: t.checked,
                },
                None => Tracked {
                    state: ServerState::new(&target.name, target.slot, &target.endpoint),
                    failures: 0,
                    checked: false,
                },
            };
            self.servers.push(tracked);
        }
        for (index, target) in setup.servers.iter().enumerate() {
            let handle = tokio::spawn(probe_loop(
                self.epoch,
                index,
                target.endpoint.clone(),
                setup.monitor.clone(),
                probe_tx.clone(),
            ));
            self.probes.push(handle);
        }
        self.setup = setup;
        self.publish();
        self.update_ready();
    }

    fn on_probe(&mut self, p: Probe) {
        if p.epoch != self.epoch {
            return; // from servers of a previous configuration
        }
        let failcount = self.setup.monitor.failcount;
        let Some(t) = self.servers.get_mut(p.index) else { return };
        let name = t.state.name.clone();
        if let Err(e) = &p.result {
            debug!(server = %name, error = %e, "health check failed");
        }
        match apply(t, p.result, failcount) {
            Some(Event::Up { role }) => info!("server {name} is up (role={})", role.as_str()),
            Some(Event::BackUp { role }) => info!("server {name} is back up (role={})", role.as_str()),
            Some(Event::Down { error }) => warn!("server {name} is down: {error}"),
            Some(Event::RoleChanged { from, to }) => {
                info!("server {name} role changed: {} -> {}", from.as_str(), to.as_str())
            }
            None => {}
        }
        self.publish();
        // The first user fetch waits for a server to be up.
        if self.setup.users.source == UserSource::Backend && !self.users_fetched_once && !self.fetch_in_flight {
            self.start_user_fetch();
        }
        self.update_ready();
    }

    /// Publishes a new snapshot if the servers' state changed.
    fn publish(&mut self) {
        let states: Vec<ServerState> = self.servers.iter().map(|t| t.state.clone()).collect();
        if self.generation > 0 && self.cluster.load().servers == states {
            return;
        }
        self.generation += 1;
        let cluster = Cluster::new(states, self.generation);
        let primaries = cluster.servers.iter().filter(|s| s.is_up() && s.role == Role::Primary).count();
        if primaries > 1 {
            warn!(
                "{primaries} writable servers that do not replicate; using {} as the primary",
                cluster.primary().map(|p| p.name.as_ref()).unwrap_or("-")
            );
        }
        self.cluster.store(Arc::new(cluster));
    }

    fn update_ready(&mut self) {
        let servers_checked = self.servers.iter().all(|t| t.checked);
        let users_ready = self.setup.users.source != UserSource::Backend || self.users_fetched_once;
        if servers_checked && users_ready && !*self.ready.borrow() {
            let _ = self.ready.send(true);
        }
    }

    fn start_user_fetch(&mut self) {
        if self.setup.users.source != UserSource::Backend {
            self.users_fetched_once = true;
            self.answer_waiters();
            self.update_ready();
            return;
        }
        if self.fetch_in_flight {
            return;
        }
        // The primary holds the authoritative user list; any up server will do without one.
        let cluster = self.cluster.load();
        let Some(server) = cluster.primary().or_else(|| cluster.servers.iter().find(|s| s.is_up())) else {
            // Nothing is up yet: try again when the timer fires or a login fails.
            if self.servers.iter().all(|t| t.checked) {
                self.users_fetched_once = true;
                self.update_ready();
            }
            self.answer_waiters();
            return;
        };
        self.fetch_in_flight = true;
        self.last_fetch = Some(Instant::now());
        let tx = self.users_tx.clone();
        let endpoint = server.endpoint.to_string();
        let monitor = self.setup.monitor.clone();
        tokio::spawn(async move {
            let _ = tx.send(fetch_users(endpoint, monitor).await);
        });
    }

    fn on_users(&mut self, result: Result<Vec<(String, String, String)>, String>) {
        self.fetch_in_flight = false;
        self.users_fetched_once = true;
        match result {
            Ok(rows) => {
                if rows != self.fetched_rows {
                    self.fetched_rows = rows;
                    self.publish_users();
                }
            }
            Err(e) => warn!("cannot load users from mysql.user (keeping the previous list): {e}"),
        }
        self.answer_waiters();
        self.update_ready();
    }

    fn publish_users(&mut self) {
        let mut table = UserTable::default();
        let mut skipped = 0;
        if self.setup.users.source == UserSource::Backend {
            skipped = table.merge_mysql_user_rows(&self.fetched_rows);
        }
        table.merge_config(&self.setup.users.list);
        info!(users = table.len(), skipped_non_native = skipped, "user list loaded");
        self.users.store(Arc::new(table));
    }

    fn answer_waiters(&mut self) {
        for w in self.fetch_waiters.drain(..) {
            let _ = w.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tracked() -> Tracked {
        Tracked { state: ServerState::new("db1", 0, "h:1"), failures: 0, checked: false }
    }

    fn primary_obs() -> Observation {
        Observation {
            version: "10.11.19-MariaDB".into(),
            read_only: false,
            replication: None,
            gtid: Some("0-1-5".into()),
        }
    }

    fn replica_obs(lag: Option<u64>) -> Observation {
        Observation {
            version: "10.11.19-MariaDB".into(),
            read_only: true,
            replication: Some((ReplicationThreads { io_running: true, sql_running: true }, lag)),
            gtid: None,
        }
    }

    #[test]
    fn first_check_brings_a_server_up_with_its_role() {
        let mut t = tracked();
        assert_eq!(apply(&mut t, Ok(primary_obs()), 2), Some(Event::Up { role: Role::Primary }));
        assert_eq!((t.state.health, t.state.role), (Health::Up, Role::Primary));
        assert_eq!(t.state.gtid.as_deref(), Some("0-1-5"));
        assert_eq!(apply(&mut t, Ok(primary_obs()), 2), None);
        let mut r = tracked();
        apply(&mut r, Ok(replica_obs(Some(3))), 2);
        assert_eq!((r.state.role, r.state.lag), (Role::Replica, Some(Duration::from_secs(3))));
        // read_only without replication is a replica too; so is replication without read_only.
        let mut ro = tracked();
        apply(&mut ro, Ok(Observation { read_only: true, ..primary_obs() }), 2);
        assert_eq!(ro.state.role, Role::Replica);
    }

    #[test]
    fn down_after_failcount_failures_then_back_up() {
        let mut t = tracked();
        apply(&mut t, Ok(replica_obs(Some(0))), 3);
        assert_eq!(apply(&mut t, Err("refused".into()), 3), None);
        assert_eq!(apply(&mut t, Err("refused".into()), 3), None);
        assert_eq!(t.state.health, Health::Up);
        assert_eq!(apply(&mut t, Err("refused".into()), 3), Some(Event::Down { error: "refused".into() }));
        assert_eq!((t.state.health, t.state.lag), (Health::Down, None));
        assert_eq!(apply(&mut t, Err("refused".into()), 3), None, "logged once");
        assert_eq!(apply(&mut t, Ok(replica_obs(Some(0))), 3), Some(Event::BackUp { role: Role::Replica }));
        assert_eq!(t.failures, 0);
    }

    #[test]
    fn a_server_never_seen_up_is_down_at_once_and_role_changes_are_reported() {
        let mut t = tracked();
        assert!(matches!(apply(&mut t, Err("timeout".into()), 5), Some(Event::Down { .. })));
        let mut p = tracked();
        apply(&mut p, Ok(replica_obs(None)), 2);
        assert_eq!(
            apply(&mut p, Ok(primary_obs()), 2),
            Some(Event::RoleChanged { from: Role::Replica, to: Role::Primary })
        );
    }

    #[test]
    fn slave_status_columns_are_found_by_name() {
        let names: Vec<String> = ["Slave_IO_State", "Slave_IO_Running", "Slave_SQL_Running", "Seconds_Behind_Master"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let row = vec![Some("Waiting".to_string()), Some("Yes".into()), Some("Yes".into()), Some("7".into())];
        assert_eq!(
            parse_slave_status(&names, &row),
            (ReplicationThreads { io_running: true, sql_running: true }, Some(7))
        );
        let row = vec![None, Some("Connecting".into()), Some("Yes".into()), None];
        assert_eq!(
            parse_slave_status(&names, &row),
            (ReplicationThreads { io_running: false, sql_running: true }, None)
        );
        assert_eq!(parse_slave_status(&[], &[]).1, None);
    }
}
