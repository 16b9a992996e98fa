//! Process-wide state: the active configuration (as routers and caches use it), the monitor's
//! snapshot, the user list and every worker's statistics.
//!
//! Everything a session needs from here is read once at session start or through lock-free
//! loads (`ArcSwap`); configuration reloads build a complete new `RuntimeConfig` and swap it in,
//! so new sessions see either the old or the new configuration, never a mix. Sessions already
//! running keep the listener options they started with.

use std::sync::atomic::AtomicU32;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use tokio::sync::mpsc;

use crate::auth::UserTable;
use crate::cache::{CacheConfig, CacheShared};
use crate::cluster::Cluster;
use crate::config::{CacheSection, Config, ListenerConfig, RouterKind, ServerRole, MAX_SERVERS};
use crate::monitor::{MonitorCommand, MonitorSetup, ServerTarget};
use crate::stats::WorkerStats;

#[derive(Clone, Debug, PartialEq)]
pub enum RouterOptions {
    ReadConnRoute { role: ServerRole },
    ReadWriteSplit { max_replication_lag: Duration, max_session_history: usize },
}

pub struct ListenerCache {
    pub name: String,
    pub config: CacheConfig,
    pub shared: Arc<CacheShared>,
}

pub struct ListenerRuntime {
    pub name: String,
    pub router: RouterOptions,
    pub cache: Option<ListenerCache>,
}

/// A cache instance and the section it was built from (to keep it across reloads that do not
/// change it).
pub struct NamedCache {
    pub name: String,
    pub section: CacheSection,
    pub shared: Arc<CacheShared>,
}

pub struct RuntimeConfig {
    pub file: Config,
    pub servers: Vec<ServerTarget>,
    pub listeners: Vec<Arc<ListenerRuntime>>,
    /// Every cache: a write seen by any session invalidates all of them.
    pub caches: Vec<NamedCache>,
    /// Bound on connecting and logging in to a backend (the monitor's connect_timeout_ms).
    pub backend_timeout: Duration,
}

/// Server name → statistics slot. Slots are never reused within a process, so counters of a
/// server removed by a reload cannot be attributed to another.
#[derive(Debug, Default)]
pub struct SlotRegistry {
    names: Vec<String>,
}

impl SlotRegistry {
    pub fn slot(&mut self, name: &str) -> Result<usize, String> {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return Ok(i);
        }
        if self.names.len() == MAX_SERVERS {
            return Err(format!(
                "more than {MAX_SERVERS} distinct server names over this process's life; restart the proxy"
            ));
        }
        self.names.push(name.to_string());
        Ok(self.names.len() - 1)
    }
}

impl RuntimeConfig {
    /// Builds the runtime form of a validated configuration. Caches whose section did not
    /// change since `previous` are kept with their contents.
    pub fn build(
        file: Config,
        slots: &mut SlotRegistry,
        previous: Option<&RuntimeConfig>,
    ) -> Result<RuntimeConfig, String> {
        let mut servers = Vec::with_capacity(file.servers.len());
        for s in &file.servers {
            servers.push(ServerTarget { name: s.name.clone(), endpoint: s.endpoint(), slot: slots.slot(&s.name)? });
        }
        let mut caches: Vec<NamedCache> = Vec::new();
        let mut sections: Vec<(String, CacheSection)> =
            file.named_caches().into_iter().map(|(n, s)| (n, s.clone())).collect();
        for l in &file.listeners {
            if let Some((name, section)) = file.listener_cache(l) {
                if !sections.iter().any(|(n, _)| *n == name) {
                    sections.push((name, section.clone()));
                }
            }
        }
        for (name, section) in sections {
            let config = section.to_cache_config().map_err(|e| format!("cache '{name}': {e}"))?;
            let kept = previous.and_then(|p| p.caches.iter().find(|c| c.name == name && c.section == section));
            let shared = match kept {
                Some(c) => c.shared.clone(),
                None => CacheShared::new(config),
            };
            caches.push(NamedCache { name, section, shared });
        }
        let mut listeners = Vec::with_capacity(file.listeners.len());
        for l in &file.listeners {
            listeners.push(Arc::new(listener_runtime(&file, l, &caches)?));
        }
        let backend_timeout = file.monitor.connect_timeout();
        Ok(RuntimeConfig { file, servers, listeners, caches, backend_timeout })
    }

    pub fn listener(&self, name: &str) -> Option<&Arc<ListenerRuntime>> {
        self.listeners.iter().find(|l| l.name == name)
    }

    pub fn monitor_setup(&self) -> MonitorSetup {
        MonitorSetup {
            servers: self.servers.clone(),
            monitor: self.file.monitor.clone(),
            users: self.file.users.clone(),
        }
    }
}

fn listener_runtime(file: &Config, l: &ListenerConfig, caches: &[NamedCache]) -> Result<ListenerRuntime, String> {
    let router = match l.router {
        RouterKind::Readconnroute => RouterOptions::ReadConnRoute { role: l.role.unwrap_or(ServerRole::Primary) },
        RouterKind::Readwritesplit => RouterOptions::ReadWriteSplit {
            max_replication_lag: l.max_replication_lag(),
            max_session_history: l.max_session_history(),
        },
    };
    let cache = match file.listener_cache(l) {
        None => None,
        Some((name, section)) => {
            let c = caches.iter().find(|c| c.name == name).ok_or_else(|| format!("cache '{name}' was not built"))?;
            Some(ListenerCache { name, config: section.to_cache_config()?, shared: c.shared.clone() })
        }
    };
    Ok(ListenerRuntime { name: l.name.clone(), router, cache })
}

/// Human-readable differences between two configurations, for the reload log.
pub fn describe_changes(old: &Config, new: &Config) -> Vec<String> {
    let mut out = Vec::new();
    for s in &new.servers {
        match old.servers.iter().find(|o| o.name == s.name) {
            None => out.push(format!("server {} added ({})", s.name, s.endpoint())),
            Some(o) if o != s => out.push(format!("server {} moved {} -> {}", s.name, o.endpoint(), s.endpoint())),
            _ => {}
        }
    }
    for o in &old.servers {
        if !new.servers.iter().any(|s| s.name == o.name) {
            out.push(format!("server {} removed", o.name));
        }
    }
    for l in &new.listeners {
        match old.listeners.iter().find(|o| o.name == l.name) {
            None => out
                .push(format!("listener {} added: listeners are bound at start, restart the proxy to open it", l.name)),
            Some(o) if (o.bind.as_str(), o.port) != (l.bind.as_str(), l.port) => out.push(format!(
                "listener {} address changed to {}:{}: takes effect at restart (router options apply now)",
                l.name, l.bind, l.port
            )),
            Some(o) if o != l => out.push(format!("listener {}: router options changed (new sessions)", l.name)),
            _ => {}
        }
    }
    for o in &old.listeners {
        if !new.listeners.iter().any(|l| l.name == o.name) {
            out.push(format!("listener {} removed: it stays open with its last options until restart", o.name));
        }
    }
    if old.monitor != new.monitor {
        out.push("monitor settings changed".to_string());
    }
    if old.users != new.users {
        out.push("user settings changed".to_string());
    }
    if old.cache != new.cache || old.caches != new.caches {
        out.push("cache settings changed (changed caches start empty)".to_string());
    }
    if old.admin != new.admin {
        out.push("admin address changed: takes effect at restart".to_string());
    }
    if old.workers != new.workers {
        out.push("workers changed: takes effect at restart".to_string());
    }
    out
}

/// State shared by the listeners, workers, admin endpoint and reload handler.
pub struct Shared {
    pub config: ArcSwap<RuntimeConfig>,
    pub cluster: Arc<ArcSwap<Cluster>>,
    pub users: Arc<ArcSwap<UserTable>>,
    /// One block per worker, fixed at start.
    pub workers: Vec<Arc<WorkerStats>>,
    pub monitor: mpsc::UnboundedSender<MonitorCommand>,
    /// Connection ids shown to clients (accept path only).
    pub next_connection_id: AtomicU32,
    pub started: Instant,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config_text::ConfigText;

    /// Two listeners (one with the default cache) over two servers; `cache` is the body of the
    /// `[cache]` section.
    fn config(cache: &str) -> Config {
        ConfigText::new()
            .listener("rw", 1, "readwritesplit", &[("cache", "'default'")])
            .listener("ro", 2, "readconnroute", &[("role", "'replica'")])
            .server("a", "h", None)
            .server("b", "h", Some(2))
            .section(&format!("[cache]\n{cache}"))
            .parse()
    }

    #[test]
    fn slots_are_stable_and_bounded() {
        let mut r = SlotRegistry::default();
        assert_eq!(r.slot("a").unwrap(), 0);
        assert_eq!(r.slot("b").unwrap(), 1);
        assert_eq!(r.slot("a").unwrap(), 0);
        for i in 2..MAX_SERVERS {
            r.slot(&format!("s{i}")).unwrap();
        }
        assert!(r.slot("one-too-many").is_err());
    }

    #[test]
    fn build_keeps_unchanged_caches_and_replaces_changed_ones() {
        let mut slots = SlotRegistry::default();
        let first = RuntimeConfig::build(config("soft_ttl=1\nhard_ttl=2\n"), &mut slots, None).unwrap();
        assert_eq!(
            first.servers.iter().map(|s| (s.slot, s.endpoint.as_str())).collect::<Vec<_>>(),
            [(0, "h:3306"), (1, "h:2")]
        );
        let rw = first.listener("rw").unwrap();
        assert!(matches!(rw.router, RouterOptions::ReadWriteSplit { max_session_history: 50, .. }));
        let ro = first.listener("ro").unwrap();
        assert_eq!(ro.router, RouterOptions::ReadConnRoute { role: ServerRole::Replica });
        assert!(ro.cache.is_none());
        let cache = rw.cache.as_ref().unwrap().shared.clone();

        let same = RuntimeConfig::build(config("soft_ttl=1\nhard_ttl=2\n"), &mut slots, Some(&first)).unwrap();
        assert!(Arc::ptr_eq(&same.listener("rw").unwrap().cache.as_ref().unwrap().shared, &cache));
        let changed = RuntimeConfig::build(config("soft_ttl=1\nhard_ttl=3\n"), &mut slots, Some(&first)).unwrap();
        assert!(!Arc::ptr_eq(&changed.listener("rw").unwrap().cache.as_ref().unwrap().shared, &cache));
        assert_eq!(changed.caches.len(), 1);
    }

    #[test]
    fn changes_are_described() {
        let old = config("");
        let mut new = old.clone();
        new.servers.remove(1);
        new.servers[0].port = 9;
        new.servers.push(crate::config::ServerConfig { name: "c".into(), address: "x".into(), port: 1 });
        new.listeners[0].max_session_history = Some(7);
        new.monitor.interval_ms = 77;
        let d = describe_changes(&old, &new).join("\n");
        for needle in [
            "server c added (x:1)",
            "server a moved h:3306 -> h:9",
            "server b removed",
            "listener rw: router options changed",
            "monitor settings changed",
        ] {
            assert!(d.contains(needle), "missing '{needle}' in:\n{d}");
        }
        assert!(describe_changes(&old, &old).is_empty());
    }
}
