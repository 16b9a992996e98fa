//! The monitor's view of the backend servers, as an immutable snapshot.
//!
//! The monitor builds a new `Cluster` whenever something changes and publishes it through an
//! `ArcSwap`; workers read it without locks (one atomic load through a per-worker cache) and
//! never see a half-updated view.

use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Health {
    /// Not checked yet.
    Unknown,
    Up,
    Down,
}

impl Health {
    pub fn as_str(self) -> &'static str {
        match self {
            Health::Unknown => "unknown",
            Health::Up => "up",
            Health::Down => "down",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Unknown,
    /// Writable (`@@read_only = 0`) and not replicating.
    Primary,
    /// Replicating from another server, or read-only.
    Replica,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Unknown => "unknown",
            Role::Primary => "primary",
            Role::Replica => "replica",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplicationThreads {
    /// Slave_IO_Running = Yes (`Connecting` while the primary is unreachable counts as no).
    pub io_running: bool,
    pub sql_running: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ServerState {
    pub name: Arc<str>,
    /// Stable index of this server in per-worker statistics arrays.
    pub slot: usize,
    /// `host:port`.
    pub endpoint: Arc<str>,
    pub health: Health,
    pub role: Role,
    /// Seconds_Behind_Master of a replica; `None` when unknown (not replicating, or the IO
    /// thread is reconnecting to a primary that is down).
    pub lag: Option<Duration>,
    /// The replication threads, for a server with a SHOW SLAVE STATUS row.
    pub replication: Option<ReplicationThreads>,
    pub gtid: Option<Arc<str>>,
    /// The server's greeting version, shown to clients of the proxy.
    pub version: Option<Arc<str>>,
}

impl ServerState {
    pub fn new(name: &str, slot: usize, endpoint: &str) -> ServerState {
        ServerState {
            name: name.into(),
            slot,
            endpoint: endpoint.into(),
            health: Health::Unknown,
            role: Role::Unknown,
            lag: None,
            replication: None,
            gtid: None,
            version: None,
        }
    }

    pub fn is_up(&self) -> bool {
        self.health == Health::Up
    }

    /// Usable for reads of a readwritesplit session: up, a replica, and not lagging more than
    /// `max_lag`. An unknown lag does not exclude a replica (MaxScale does the same): when the
    /// primary dies every replica's lag becomes unknown, and reads must go on.
    /// A replica whose SQL thread is stopped applies nothing, however small its last lag was,
    /// so it is not used.
    pub fn usable_replica(&self, max_lag: Duration) -> bool {
        self.is_up()
            && self.role == Role::Replica
            && self.replication.is_none_or(|r| r.sql_running)
            && self.lag.is_none_or(|l| l <= max_lag)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cluster {
    /// In configuration order.
    pub servers: Vec<ServerState>,
    /// Index into `servers` of the primary in use: the first up server with the primary role.
    pub primary: Option<usize>,
    /// Bumped by every publication (log correlation, tests).
    pub generation: u64,
}

impl Cluster {
    pub fn new(servers: Vec<ServerState>, generation: u64) -> Cluster {
        let primary = servers.iter().position(|s| s.is_up() && s.role == Role::Primary);
        Cluster { servers, primary, generation }
    }

    pub fn primary(&self) -> Option<&ServerState> {
        self.primary.map(|i| &self.servers[i])
    }

    pub fn by_slot(&self, slot: usize) -> Option<&ServerState> {
        self.servers.iter().find(|s| s.slot == slot)
    }

    /// The version string to greet clients with: the primary's, else any known one.
    pub fn greeting_version(&self) -> Option<Arc<str>> {
        self.primary().and_then(|p| p.version.clone()).or_else(|| self.servers.iter().find_map(|s| s.version.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str, slot: usize, health: Health, role: Role, lag: Option<u64>) -> ServerState {
        ServerState { health, role, lag: lag.map(Duration::from_secs), ..ServerState::new(name, slot, "h:1") }
    }

    #[test]
    fn primary_is_first_up_primary() {
        let c = Cluster::new(
            vec![
                server("a", 0, Health::Down, Role::Primary, None),
                server("b", 1, Health::Up, Role::Replica, Some(0)),
                server("c", 2, Health::Up, Role::Primary, None),
                server("d", 3, Health::Up, Role::Primary, None),
            ],
            1,
        );
        assert_eq!(c.primary().unwrap().name.as_ref(), "c");
        assert_eq!(c.by_slot(1).unwrap().name.as_ref(), "b");
        assert!(c.by_slot(9).is_none());
        assert!(Cluster::new(vec![server("a", 0, Health::Unknown, Role::Primary, None)], 0).primary().is_none());
    }

    #[test]
    fn replica_usability_follows_health_role_and_lag() {
        let max = Duration::from_secs(10);
        assert!(server("r", 0, Health::Up, Role::Replica, Some(10)).usable_replica(max));
        assert!(!server("r", 0, Health::Up, Role::Replica, Some(11)).usable_replica(max));
        assert!(server("r", 0, Health::Up, Role::Replica, None).usable_replica(max));
        assert!(!server("r", 0, Health::Down, Role::Replica, Some(0)).usable_replica(max));
        assert!(!server("r", 0, Health::Up, Role::Primary, None).usable_replica(max));
        let mut stopped = server("r", 0, Health::Up, Role::Replica, Some(0));
        stopped.replication = Some(ReplicationThreads { io_running: true, sql_running: false });
        assert!(!stopped.usable_replica(max));
        // Primary gone: IO thread reconnecting, lag unknown, still serving reads.
        let mut orphan = server("r", 0, Health::Up, Role::Replica, None);
        orphan.replication = Some(ReplicationThreads { io_running: false, sql_running: true });
        assert!(orphan.usable_replica(max));
    }
}
