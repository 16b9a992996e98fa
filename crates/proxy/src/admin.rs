//! The admin endpoint: a minimal HTTP/1.1 responder with `GET /stats` (JSON) and
//! `GET /metrics` (Prometheus text format). It runs on the control thread, reads every worker's
//! statistics block with relaxed loads and merges them; it never touches a worker's state.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tracing::debug;

use crate::runtime::Shared;
use crate::stats::{merge, CacheStatsTotals, CLASSES, ROUTE_EVENTS};

/// Largest request head accepted.
const MAX_REQUEST: usize = 8 * 1024;
/// Time a client has to send its request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// Concurrent admin connections served (more wait in the kernel's backlog).
const MAX_ADMIN_CONNECTIONS: usize = 64;

#[derive(Clone, Debug, PartialEq)]
pub struct ServerView {
    pub name: String,
    pub endpoint: String,
    pub health: &'static str,
    pub role: &'static str,
    pub lag_s: Option<u64>,
    pub gtid: Option<String>,
    pub connections: u64,
    pub connections_total: u64,
    pub queries: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StatsView {
    pub uptime_s: u64,
    pub workers: usize,
    pub sessions: u64,
    pub sessions_total: u64,
    pub queries: u64,
    pub routes: Vec<(&'static str, u64)>,
    pub classified: Vec<(&'static str, u64)>,
    pub cache: CacheStatsTotals,
    pub servers: Vec<ServerView>,
    /// (sessions, queries) per worker.
    pub per_worker: Vec<(u64, u64)>,
}

/// Gathers the current statistics.
pub fn collect(shared: &Shared) -> StatsView {
    let mut t = merge(&shared.workers);
    // Shared-storage caches keep their size in the shared shards, not in workers' handles.
    for c in &shared.config.load().caches {
        let s = c.shared.shared_storage_stats();
        t.cache.size_bytes += s.size_bytes;
        t.cache.entries += s.entries;
    }
    let cluster = shared.cluster.load();
    let servers = cluster
        .servers
        .iter()
        .map(|s| {
            let (connections, connections_total, queries) = t.servers[s.slot];
            ServerView {
                name: s.name.to_string(),
                endpoint: s.endpoint.to_string(),
                health: s.health.as_str(),
                role: s.role.as_str(),
                lag_s: s.lag.map(|l| l.as_secs()),
                gtid: s.gtid.as_deref().map(str::to_string),
                connections,
                connections_total,
                queries,
            }
        })
        .collect();
    StatsView {
        uptime_s: shared.started.elapsed().as_secs(),
        workers: t.workers,
        sessions: t.sessions,
        sessions_total: t.sessions_total,
        queries: t.queries,
        routes: ROUTE_EVENTS.iter().map(|(e, name)| (*name, t.routes[*e as usize])).collect(),
        classified: CLASSES.iter().enumerate().map(|(i, name)| (*name, t.classified[i])).collect(),
        cache: t.cache,
        servers,
        per_worker: t.per_worker,
    }
}

pub fn render_json(v: &StatsView) -> String {
    let servers: Vec<_> = v
        .servers
        .iter()
        .map(|s| {
            json!({
                "name": s.name, "address": s.endpoint, "status": s.health, "role": s.role,
                "replication_lag_s": s.lag_s, "gtid_current_pos": s.gtid,
                "connections": s.connections, "connections_total": s.connections_total, "queries": s.queries,
            })
        })
        .collect();
    let routes: serde_json::Map<String, serde_json::Value> =
        v.routes.iter().map(|(k, n)| (k.to_string(), json!(n))).collect();
    let classified: serde_json::Map<String, serde_json::Value> =
        v.classified.iter().map(|(k, n)| (k.to_string(), json!(n))).collect();
    let c = &v.cache;
    let doc = json!({
        "uptime_s": v.uptime_s,
        "workers": v.workers,
        "sessions": { "current": v.sessions, "total": v.sessions_total },
        "queries": v.queries,
        "routing": routes,
        "classifier": classified,
        "cache": {
            "hits": c.hits, "misses": c.misses, "stores": c.stores, "evictions": c.evictions,
            "invalidations": c.invalidations, "size_bytes": c.size_bytes, "entries": c.entries,
        },
        "servers": servers,
        "per_worker": v.per_worker.iter().map(|(s, q)| json!({"sessions": s, "queries": q})).collect::<Vec<_>>(),
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".to_string());
    text.push('\n');
    text
}

/// Prometheus label values: backslash, quote and newline escaped.
fn label(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

pub fn render_prometheus(v: &StatsView) -> String {
    let mut o = String::new();
    let mut metric = |name: &str, kind: &str, help: &str, samples: &[(String, u64)]| {
        let _ = writeln!(o, "# HELP selkie_proxy_{name} {help}");
        let _ = writeln!(o, "# TYPE selkie_proxy_{name} {kind}");
        for (labels, value) in samples {
            let _ = writeln!(o, "selkie_proxy_{name}{labels} {value}");
        }
    };
    metric("uptime_seconds", "gauge", "Seconds since the proxy started.", &[(String::new(), v.uptime_s)]);
    metric("workers", "gauge", "Worker threads.", &[(String::new(), v.workers as u64)]);
    metric("sessions", "gauge", "Client sessions open now.", &[(String::new(), v.sessions)]);
    metric("sessions_total", "counter", "Client sessions accepted.", &[(String::new(), v.sessions_total)]);
    metric("queries_total", "counter", "Client commands received.", &[(String::new(), v.queries)]);
    let routes: Vec<_> = v.routes.iter().map(|(k, n)| (format!("{{decision=\"{k}\"}}"), *n)).collect();
    metric("routing_total", "counter", "Routing decisions.", &routes);
    let classes: Vec<_> = v.classified.iter().map(|(k, n)| (format!("{{route=\"{k}\"}}"), *n)).collect();
    metric("classified_total", "counter", "Statements classified, by route.", &classes);
    let c = &v.cache;
    let cache_events = [
        ("hit", c.hits),
        ("miss", c.misses),
        ("store", c.stores),
        ("eviction", c.evictions),
        ("invalidation", c.invalidations),
    ];
    let cache: Vec<_> = cache_events.iter().map(|(k, n)| (format!("{{event=\"{k}\"}}"), *n)).collect();
    metric("cache_events_total", "counter", "Result cache events.", &cache);
    metric("cache_size_bytes", "gauge", "Bytes of cached results.", &[(String::new(), c.size_bytes)]);
    metric("cache_entries", "gauge", "Cached results.", &[(String::new(), c.entries)]);
    let per_server = |f: &dyn Fn(&ServerView) -> u64| -> Vec<(String, u64)> {
        v.servers.iter().map(|s| (format!("{{server=\"{}\"}}", label(&s.name)), f(s))).collect()
    };
    metric("server_connections", "gauge", "Backend connections open now.", &per_server(&|s| s.connections));
    metric("server_connections_total", "counter", "Backend connections opened.", &per_server(&|s| s.connections_total));
    metric("server_queries_total", "counter", "Commands sent to the server.", &per_server(&|s| s.queries));
    let up: Vec<_> = v
        .servers
        .iter()
        .map(|s| (format!("{{server=\"{}\",role=\"{}\"}}", label(&s.name), s.role), u64::from(s.health == "up")))
        .collect();
    metric("server_up", "gauge", "1 if the monitor sees the server up.", &up);
    let lag: Vec<_> =
        v.servers.iter().filter_map(|s| s.lag_s.map(|l| (format!("{{server=\"{}\"}}", label(&s.name)), l))).collect();
    metric("server_replication_lag_seconds", "gauge", "Seconds_Behind_Master of replicas.", &lag);
    o
}

/// The response to one request line: (status line, content type, body).
pub fn respond(request_line: &str, view: impl FnOnce() -> StatsView) -> (&'static str, &'static str, String) {
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("");
    let path = parts.next().unwrap_or("").split('?').next().unwrap_or("");
    if method != "GET" {
        return ("405 Method Not Allowed", "text/plain", "only GET is supported\n".to_string());
    }
    match path {
        "/stats" => ("200 OK", "application/json", render_json(&view())),
        "/metrics" => ("200 OK", "text/plain; version=0.0.4", render_prometheus(&view())),
        "/" => {
            ("200 OK", "text/plain", "selkie-proxy admin: GET /stats (JSON), GET /metrics (Prometheus)\n".to_string())
        }
        _ => ("404 Not Found", "text/plain", "not found\n".to_string()),
    }
}

async fn handle(mut stream: TcpStream, shared: Arc<Shared>) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(1024);
    let head = tokio::time::timeout(REQUEST_TIMEOUT, async {
        let mut chunk = [0u8; 1024];
        loop {
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok::<bool, std::io::Error>(false);
            }
            buf.extend_from_slice(&chunk[..n]);
            if buf.windows(4).any(|w| w == b"\r\n\r\n") || buf.windows(2).any(|w| w == b"\n\n") {
                return Ok(true);
            }
            if buf.len() > MAX_REQUEST {
                return Ok(false);
            }
        }
    })
    .await;
    if !matches!(head, Ok(Ok(true))) {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&buf);
    let line = text.lines().next().unwrap_or("");
    let (status, content_type, body) = respond(line, || collect(&shared));
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

/// Serves the admin endpoint until the process ends.
pub async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    let permits = Arc::new(tokio::sync::Semaphore::new(MAX_ADMIN_CONNECTIONS));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(x) => x,
            Err(e) => {
                debug!(error = %e, "admin accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = permits.clone().acquire_owned().await else { return };
        let shared = shared.clone();
        tokio::spawn(async move {
            if let Err(e) = handle(stream, shared).await {
                debug!(%peer, error = %e, "admin request failed");
            }
            drop(permit);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> StatsView {
        StatsView {
            uptime_s: 12,
            workers: 2,
            sessions: 3,
            sessions_total: 10,
            queries: 500,
            routes: ROUTE_EVENTS.iter().enumerate().map(|(i, (_, n))| (*n, i as u64 * 10)).collect(),
            classified: vec![("read", 300), ("write", 150), ("session", 50)],
            cache: CacheStatsTotals {
                hits: 7,
                misses: 3,
                stores: 3,
                evictions: 1,
                invalidations: 2,
                size_bytes: 4096,
                entries: 2,
            },
            servers: vec![
                ServerView {
                    name: "db1".into(),
                    endpoint: "127.0.0.1:3306".into(),
                    health: "up",
                    role: "primary",
                    lag_s: None,
                    gtid: Some("0-1-9".into()),
                    connections: 4,
                    connections_total: 9,
                    queries: 200,
                },
                ServerView {
                    name: "db2".into(),
                    endpoint: "127.0.0.1:3307".into(),
                    health: "down",
                    role: "replica",
                    lag_s: Some(3),
                    gtid: None,
                    connections: 0,
                    connections_total: 5,
                    queries: 300,
                },
            ],
            per_worker: vec![(1, 200), (2, 300)],
        }
    }

    #[test]
    fn json_has_every_section_with_values() {
        let v: serde_json::Value = serde_json::from_str(&render_json(&view())).unwrap();
        assert_eq!(v["workers"], 2);
        assert_eq!(v["sessions"]["current"], 3);
        assert_eq!(v["queries"], 500);
        assert_eq!(v["routing"]["replica"], 10);
        assert_eq!(v["routing"]["write_failed"], 40);
        assert_eq!(v["classifier"]["session"], 50);
        assert_eq!(v["cache"]["hits"], 7);
        assert_eq!(v["cache"]["entries"], 2);
        assert_eq!(v["servers"][0]["name"], "db1");
        assert_eq!(v["servers"][0]["connections"], 4);
        assert_eq!(v["servers"][0]["replication_lag_s"], serde_json::Value::Null);
        assert_eq!(v["servers"][1]["replication_lag_s"], 3);
        assert_eq!(v["servers"][1]["status"], "down");
        assert_eq!(v["per_worker"][1]["queries"], 300);
    }

    #[test]
    fn prometheus_text_is_well_formed() {
        let text = render_prometheus(&view());
        for line in text.lines() {
            if line.starts_with('#') {
                assert!(line.starts_with("# HELP selkie_proxy_") || line.starts_with("# TYPE selkie_proxy_"), "{line}");
                continue;
            }
            let (name, value) = line.rsplit_once(' ').unwrap();
            assert!(name.starts_with("selkie_proxy_"), "{line}");
            value.parse::<u64>().unwrap_or_else(|_| panic!("value of {line}"));
        }
        assert!(text.contains("selkie_proxy_server_queries_total{server=\"db2\"} 300\n"));
        assert!(text.contains("selkie_proxy_routing_total{decision=\"fallback_primary\"} 30\n"));
        assert!(text.contains("selkie_proxy_cache_events_total{event=\"hit\"} 7\n"));
        assert!(text.contains("selkie_proxy_server_up{server=\"db1\",role=\"primary\"} 1\n"));
        assert!(text.contains("selkie_proxy_server_up{server=\"db2\",role=\"replica\"} 0\n"));
        assert!(text.contains("selkie_proxy_server_replication_lag_seconds{server=\"db2\"} 3\n"));
        assert!(!text.contains("replication_lag_seconds{server=\"db1\"}"));
        assert_eq!(label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }

    #[test]
    fn routes_and_methods() {
        assert_eq!(respond("GET /stats HTTP/1.1", view).0, "200 OK");
        assert_eq!(respond("GET /metrics?x=1 HTTP/1.1", view).1, "text/plain; version=0.0.4");
        assert_eq!(respond("GET /nope HTTP/1.1", view).0, "404 Not Found");
        assert_eq!(respond("POST /stats HTTP/1.1", view).0, "405 Method Not Allowed");
        assert_eq!(respond("", view).0, "405 Method Not Allowed");
    }
}
