//! readconnroute: each client connection goes to one server of the configured role, the one
//! with the fewest connections, and stays there; statements are forwarded without inspection.

use std::time::Instant;

use super::{least_connections, Avoid};
use crate::cluster::{Cluster, Role, ServerState};
use crate::config::ServerRole;

/// The server a new session connects to, or `None` when no server of `role` is up.
pub fn pick<'a>(
    cluster: &'a Cluster,
    role: ServerRole,
    connections: impl Fn(usize) -> u64,
    avoid: &Avoid,
    now: Instant,
) -> Option<&'a ServerState> {
    let wanted = match role {
        ServerRole::Primary => Role::Primary,
        ServerRole::Replica => Role::Replica,
    };
    least_connections(
        cluster.servers.iter().filter(|s| s.is_up() && s.role == wanted && !avoid.contains(s.slot, now)),
        connections,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::Health;

    fn cluster() -> Cluster {
        let mk = |name: &str, slot, health, role| ServerState { health, role, ..ServerState::new(name, slot, "h:1") };
        Cluster::new(
            vec![
                mk("p", 0, Health::Up, Role::Primary),
                mk("r1", 1, Health::Up, Role::Replica),
                mk("r2", 2, Health::Up, Role::Replica),
                mk("r3", 3, Health::Down, Role::Replica),
            ],
            1,
        )
    }

    #[test]
    fn picks_least_connected_server_of_the_role() {
        let c = cluster();
        let now = Instant::now();
        let counts = [0u64, 4, 3, 0];
        let none = Avoid::default();
        assert_eq!(pick(&c, ServerRole::Replica, |s| counts[s], &none, now).unwrap().name.as_ref(), "r2");
        assert_eq!(pick(&c, ServerRole::Primary, |s| counts[s], &none, now).unwrap().name.as_ref(), "p");
        let mut avoid = Avoid::default();
        avoid.add(2, now);
        assert_eq!(pick(&c, ServerRole::Replica, |s| counts[s], &avoid, now).unwrap().name.as_ref(), "r1");
        avoid.add(0, now);
        assert!(pick(&c, ServerRole::Primary, |s| counts[s], &avoid, now).is_none());
    }
}
