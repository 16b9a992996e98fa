//! The connection registry: who is connected and what each connection is doing, for SHOW
//! PROCESSLIST, KILL and the server status variables. It implements `ServerHooks`.
//!
//! Writes are designed not to share cache lines between connections: the map is sharded by
//! connection id (touched only at connect and disconnect), and each connection publishes its
//! activity and counters into its own entry. Readers (SHOW PROCESSLIST / SHOW STATUS) walk all
//! entries and merge; that is the rare path and pays for the scan.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use crossbeam_utils::CachePadded;
use parking_lot::Mutex;
use selkie_sql::session::counters::{StatusCounters, COUNT as STATUS_COUNTERS};
use selkie_sql::{Interrupt, ProcessInfo, ServerHooks};
use tokio::sync::Notify;

/// Number of map shards; a power of two well above the core count.
const SHARDS: usize = 64;

/// What a connection is doing, as SHOW PROCESSLIST's Command column names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    Connect,
    Sleep,
    Query,
    Prepare,
    Execute,
    FieldList,
    InitDb,
    ChangeUser,
}

impl Activity {
    pub fn name(self) -> &'static str {
        match self {
            Activity::Connect => "Connect",
            Activity::Sleep => "Sleep",
            Activity::Query => "Query",
            Activity::Prepare => "Prepare",
            Activity::Execute => "Execute",
            Activity::FieldList => "Field List",
            Activity::InitDb => "Init DB",
            Activity::ChangeUser => "Change user",
        }
    }
}

/// Mutable, rarely read state of a connection; written only by its own task.
struct ActivityState {
    activity: Activity,
    since: Instant,
    user: String,
    db: Option<String>,
    /// Statement text while one runs. Capacity is kept between statements.
    info: String,
    has_info: bool,
    /// The session's interrupt flag (set by KILL QUERY), once the session exists.
    interrupt: Option<Arc<Interrupt>>,
    /// The session's Com_* counters, once the session exists.
    status: Option<Arc<StatusCounters>>,
}

/// Counters of one connection. Only its own task writes them (plain stores), readers sum them.
#[derive(Default)]
pub struct ConnectionCounters {
    pub questions: AtomicU64,
    pub bytes_received: AtomicU64,
    pub bytes_sent: AtomicU64,
}

pub struct ConnectionEntry {
    pub id: u64,
    /// `host:port` as SHOW PROCESSLIST shows it.
    pub host: String,
    state: Mutex<ActivityState>,
    killed: AtomicBool,
    kill_notify: Notify,
    counters: CachePadded<ConnectionCounters>,
}

impl ConnectionEntry {
    /// Records the start of a command. `info` is the statement text, if any.
    pub fn begin(&self, activity: Activity, info: Option<&str>) {
        let mut s = self.state.lock();
        s.activity = activity;
        s.since = Instant::now();
        s.info.clear();
        s.has_info = info.is_some();
        if let Some(text) = info {
            s.info.push_str(text);
        }
    }

    /// Records the end of a command: the connection sleeps, waiting for the next. `db` is the
    /// session's current database (a statement may have changed it).
    pub fn end(&self, db: Option<&str>) {
        let mut s = self.state.lock();
        if s.db.as_deref() != db {
            s.db = db.map(str::to_string);
        }
        s.activity = Activity::Sleep;
        s.since = Instant::now();
        s.has_info = false;
        if s.info.capacity() > MAX_RETAINED_INFO {
            s.info = String::new();
        }
    }

    pub fn set_identity(&self, user: &str, db: Option<&str>) {
        let mut s = self.state.lock();
        s.user.clear();
        s.user.push_str(user);
        s.db = db.map(str::to_string);
    }

    pub fn set_interrupt_flag(&self, flag: Arc<Interrupt>) {
        self.state.lock().interrupt = Some(flag);
    }

    /// Attaches the session's status counters; returns the previous session's (COM_CHANGE_USER
    /// replaces the session), whose counts the caller folds into the server totals.
    fn replace_status_counters(&self, counters: Arc<StatusCounters>) -> Option<Arc<StatusCounters>> {
        self.state.lock().status.replace(counters)
    }

    /// Publishes this connection's running totals.
    pub fn publish(&self, questions: u64, bytes_received: u64, bytes_sent: u64) {
        self.counters.questions.store(questions, Relaxed);
        self.counters.bytes_received.store(bytes_received, Relaxed);
        self.counters.bytes_sent.store(bytes_sent, Relaxed);
    }

    pub fn is_killed(&self) -> bool {
        self.killed.load(Relaxed)
    }

    /// Resolves once the connection has been killed (or the server shuts down).
    pub async fn killed(&self) {
        loop {
            let notified = self.kill_notify.notified();
            if self.is_killed() {
                return;
            }
            notified.await;
        }
    }

    /// KILL [CONNECTION]: interrupt the running statement and close the connection.
    fn kill(&self) {
        self.killed.store(true, Relaxed);
        if let Some(flag) = &self.state.lock().interrupt {
            flag.raise();
        }
        // notify_one stores a permit if the task is not waiting right now, so no kill is lost.
        self.kill_notify.notify_one();
    }

    /// KILL QUERY: interrupt the running statement, if any (an idle connection is unaffected,
    /// so no stale flag can kill its next statement).
    fn kill_query(&self) {
        let s = self.state.lock();
        if s.activity != Activity::Sleep {
            if let Some(flag) = &s.interrupt {
                flag.raise();
            }
        }
    }
}

/// Statement texts longer than this are not kept allocated between statements.
const MAX_RETAINED_INFO: usize = 16 * 1024;

/// Server-wide counters that change once per connection (never per query).
struct ServerCounters {
    /// Connection attempts (the `Connections` status variable).
    connections: AtomicU64,
    aborted_connects: AtomicU64,
    aborted_clients: AtomicU64,
    /// Totals of connections that have closed.
    retired_questions: AtomicU64,
    retired_bytes_received: AtomicU64,
    retired_bytes_sent: AtomicU64,
    /// Com_* counts of sessions that have ended.
    retired_statements: Mutex<[u64; STATUS_COUNTERS]>,
}

impl Default for ServerCounters {
    fn default() -> ServerCounters {
        ServerCounters {
            connections: AtomicU64::new(0),
            aborted_connects: AtomicU64::new(0),
            aborted_clients: AtomicU64::new(0),
            retired_questions: AtomicU64::new(0),
            retired_bytes_received: AtomicU64::new(0),
            retired_bytes_sent: AtomicU64::new(0),
            retired_statements: Mutex::new([0; STATUS_COUNTERS]),
        }
    }
}

/// One shard of the connection map.
type Shard = CachePadded<Mutex<HashMap<u64, Arc<ConnectionEntry>>>>;

pub struct Registry {
    shards: Box<[Shard]>,
    next_id: AtomicU64,
    started: Instant,
    /// Open connections, including those still authenticating (admission control).
    active: CachePadded<AtomicUsize>,
    max_used: AtomicUsize,
    counters: ServerCounters,
    shutting_down: AtomicBool,
}

/// A slot counted against `max_connections`; released on drop.
pub struct Admission {
    registry: Arc<Registry>,
}

impl Drop for Admission {
    fn drop(&mut self) {
        self.registry.active.fetch_sub(1, Relaxed);
    }
}

impl Default for Registry {
    fn default() -> Self {
        Registry::new()
    }
}

impl Registry {
    pub fn new() -> Registry {
        Registry {
            shards: (0..SHARDS).map(|_| CachePadded::new(Mutex::new(HashMap::new()))).collect(),
            next_id: AtomicU64::new(1),
            started: Instant::now(),
            active: CachePadded::new(AtomicUsize::new(0)),
            max_used: AtomicUsize::new(0),
            counters: ServerCounters::default(),
            shutting_down: AtomicBool::new(false),
        }
    }

    fn shard(&self, id: u64) -> &Shard {
        &self.shards[(id as usize) % SHARDS]
    }

    /// Admits a new connection unless `max_connections` are open.
    pub fn try_admit(self: &Arc<Self>, max_connections: usize) -> Option<Admission> {
        self.counters.connections.fetch_add(1, Relaxed);
        let previous = self.active.fetch_add(1, Relaxed);
        if previous >= max_connections {
            self.active.fetch_sub(1, Relaxed);
            return None;
        }
        self.max_used.fetch_max(previous + 1, Relaxed);
        Some(Admission { registry: self.clone() })
    }

    pub fn active(&self) -> usize {
        self.active.load(Relaxed)
    }

    /// Registers a connection (before authentication, so it is visible and killable).
    pub fn register(&self, peer: SocketAddr) -> Arc<ConnectionEntry> {
        let id = self.next_id.fetch_add(1, Relaxed);
        let entry = Arc::new(ConnectionEntry {
            id,
            host: format!("{}:{}", crate::host::display_host(peer.ip()), peer.port()),
            state: Mutex::new(ActivityState {
                activity: Activity::Connect,
                since: Instant::now(),
                user: "unauthenticated user".to_string(),
                db: None,
                info: String::new(),
                has_info: false,
                interrupt: None,
                status: None,
            }),
            killed: AtomicBool::new(false),
            kill_notify: Notify::new(),
            counters: CachePadded::new(ConnectionCounters::default()),
        });
        self.shard(id).lock().insert(id, entry.clone());
        if self.shutting_down.load(Relaxed) {
            entry.kill();
        }
        entry
    }

    /// Removes a closed connection, folding its counters into the server totals.
    pub fn unregister(&self, entry: &ConnectionEntry) {
        self.shard(entry.id).lock().remove(&entry.id);
        let c = &entry.counters;
        self.counters.retired_questions.fetch_add(c.questions.load(Relaxed), Relaxed);
        self.counters.retired_bytes_received.fetch_add(c.bytes_received.load(Relaxed), Relaxed);
        self.counters.retired_bytes_sent.fetch_add(c.bytes_sent.load(Relaxed), Relaxed);
        if let Some(status) = entry.state.lock().status.take() {
            status.add_to(&mut self.counters.retired_statements.lock());
        }
    }

    /// Attaches a connection's (new) session counters; the counts of a session it replaces
    /// stay in the server totals.
    pub fn attach_status_counters(&self, entry: &ConnectionEntry, counters: Arc<StatusCounters>) {
        if let Some(old) = entry.replace_status_counters(counters) {
            old.add_to(&mut self.counters.retired_statements.lock());
        }
    }

    /// Com_* totals over open and closed sessions, by `StatusCounters::names()` position.
    fn statement_totals(&self) -> [u64; STATUS_COUNTERS] {
        let mut totals = *self.counters.retired_statements.lock();
        self.for_each_entry(|e| {
            if let Some(status) = &e.state.lock().status {
                status.add_to(&mut totals);
            }
        });
        totals
    }

    pub fn note_aborted_connect(&self) {
        self.counters.aborted_connects.fetch_add(1, Relaxed);
    }

    pub fn note_aborted_client(&self) {
        self.counters.aborted_clients.fetch_add(1, Relaxed);
    }

    pub fn get(&self, id: u64) -> Option<Arc<ConnectionEntry>> {
        self.shard(id).lock().get(&id).cloned()
    }

    /// Marks every connection killed (server shutdown); connections registered later are killed
    /// on arrival.
    pub fn kill_all(&self) {
        self.shutting_down.store(true, Relaxed);
        for shard in self.shards.iter() {
            for entry in shard.lock().values() {
                entry.kill();
            }
        }
    }

    pub fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Relaxed)
    }

    pub fn uptime_secs(&self) -> u64 {
        self.started.elapsed().as_secs()
    }

    fn for_each_entry(&self, mut f: impl FnMut(&ConnectionEntry)) {
        for shard in self.shards.iter() {
            for entry in shard.lock().values() {
                f(entry);
            }
        }
    }

    /// Totals over open and closed connections.
    pub fn totals(&self) -> Totals {
        let c = &self.counters;
        let mut t = Totals {
            questions: c.retired_questions.load(Relaxed),
            bytes_received: c.retired_bytes_received.load(Relaxed),
            bytes_sent: c.retired_bytes_sent.load(Relaxed),
            running: 0,
        };
        self.for_each_entry(|e| {
            t.questions += e.counters.questions.load(Relaxed);
            t.bytes_received += e.counters.bytes_received.load(Relaxed);
            t.bytes_sent += e.counters.bytes_sent.load(Relaxed);
            let a = e.state.lock().activity;
            if a != Activity::Sleep && a != Activity::Connect {
                t.running += 1;
            }
        });
        t
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub questions: u64,
    pub bytes_received: u64,
    pub bytes_sent: u64,
    /// Connections executing a command right now.
    pub running: u64,
}

impl ServerHooks for Registry {
    fn processlist(&self) -> Vec<ProcessInfo> {
        let mut list = Vec::new();
        self.for_each_entry(|e| {
            let s = e.state.lock();
            list.push(ProcessInfo {
                id: e.id,
                user: s.user.clone(),
                host: e.host.clone(),
                db: s.db.clone(),
                command: if e.is_killed() { "Killed".to_string() } else { s.activity.name().to_string() },
                time_secs: s.since.elapsed().as_secs(),
                state: match s.activity {
                    Activity::Sleep => String::new(),
                    Activity::Connect => "login".to_string(),
                    _ => "executing".to_string(),
                },
                info: s.has_info.then(|| s.info.clone()),
            });
        });
        list.sort_by_key(|p| p.id);
        list
    }

    fn kill(&self, id: u64, query_only: bool) -> bool {
        match self.get(id) {
            Some(entry) => {
                if query_only {
                    entry.kill_query();
                } else {
                    entry.kill();
                }
                true
            }
            None => false,
        }
    }

    fn status(&self) -> Vec<(String, String)> {
        let t = self.totals();
        let c = &self.counters;
        let uptime = self.uptime_secs().to_string();
        let rows: [(&str, String); 11] = [
            ("Aborted_clients", c.aborted_clients.load(Relaxed).to_string()),
            ("Aborted_connects", c.aborted_connects.load(Relaxed).to_string()),
            ("Bytes_received", t.bytes_received.to_string()),
            ("Bytes_sent", t.bytes_sent.to_string()),
            ("Connections", c.connections.load(Relaxed).to_string()),
            ("Max_used_connections", self.max_used.load(Relaxed).to_string()),
            ("Questions", t.questions.to_string()),
            ("Threads_connected", self.active().to_string()),
            ("Threads_running", t.running.to_string()),
            ("Uptime", uptime.clone()),
            ("Uptime_since_flush_status", uptime),
        ];
        let mut out: Vec<(String, String)> = rows.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        // Com_* summed over sessions. Questions stays the server's own count (it also counts
        // commands the SQL layer never sees, such as COM_PING).
        let totals = self.statement_totals();
        for (name, total) in StatusCounters::names().iter().zip(totals) {
            if name.starts_with("Com_") {
                out.push((name.to_string(), total.to_string()));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer() -> SocketAddr {
        "127.0.0.1:40000".parse().unwrap()
    }

    fn status_value(r: &Registry, name: &str) -> String {
        r.status().into_iter().find(|(k, _)| k == name).map(|(_, v)| v).unwrap()
    }

    #[test]
    fn admission_respects_max_connections() {
        let r = Arc::new(Registry::new());
        let a = r.try_admit(2).unwrap();
        let b = r.try_admit(2).unwrap();
        assert!(r.try_admit(2).is_none());
        drop(a);
        let c = r.try_admit(2).unwrap();
        assert_eq!(r.active(), 2);
        drop((b, c));
        assert_eq!(r.active(), 0);
        assert_eq!(status_value(&r, "Connections"), "4");
        assert_eq!(status_value(&r, "Max_used_connections"), "2");
    }

    #[test]
    fn processlist_shows_activity_and_identity() {
        let r = Registry::new();
        let e = r.register(peer());
        e.set_identity("app", Some("db1"));
        e.begin(Activity::Query, Some("SELECT SLEEP(1)"));
        let other = r.register(peer());
        other.set_identity("root", None);
        let list = r.processlist();
        assert_eq!(list.len(), 2);
        assert_eq!((list[0].id, list[0].user.as_str(), list[0].host.as_str()), (e.id, "app", "localhost:40000"));
        assert_eq!(
            (list[0].command.as_str(), list[0].info.as_deref(), list[0].db.as_deref()),
            ("Query", Some("SELECT SLEEP(1)"), Some("db1"))
        );
        assert_eq!(list[1].command, "Connect");
        e.end(Some("db2"));
        let list = r.processlist();
        assert_eq!(
            (list[0].command.as_str(), list[0].info.as_deref(), list[0].db.as_deref()),
            ("Sleep", None, Some("db2"))
        );
        r.unregister(&other);
        assert_eq!(r.processlist().len(), 1);
    }

    #[test]
    fn kill_query_touches_only_running_statements() {
        let r = Registry::new();
        let e = r.register(peer());
        let flag = Arc::new(Interrupt::default());
        e.set_interrupt_flag(flag.clone());
        e.end(None);
        assert!(r.kill(e.id, true));
        assert!(!flag.is_raised(), "idle connection must not get a stale interrupt");
        e.begin(Activity::Query, Some("SELECT 1"));
        assert!(r.kill(e.id, true));
        assert!(flag.is_raised());
        assert!(!e.is_killed());
        assert!(r.kill(e.id, false));
        assert!(e.is_killed());
        assert!(!r.kill(9999, false));
    }

    #[test]
    fn kill_wakes_a_waiting_connection() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let r = Arc::new(Registry::new());
        let e = r.register(peer());
        rt.block_on(async {
            let waiter = tokio::spawn({
                let e = e.clone();
                async move { e.killed().await }
            });
            tokio::task::yield_now().await;
            r.kill(e.id, false);
            tokio::time::timeout(std::time::Duration::from_secs(5), waiter).await.unwrap().unwrap();
        });
        // Connections arriving during shutdown are killed at once.
        r.kill_all();
        assert!(r.register(peer()).is_killed());
    }

    #[test]
    fn counters_merge_open_and_closed_connections() {
        let r = Registry::new();
        let a = r.register(peer());
        let b = r.register(peer());
        a.publish(3, 100, 200);
        b.publish(4, 10, 20);
        assert_eq!(status_value(&r, "Questions"), "7");
        r.unregister(&a);
        b.publish(5, 11, 21);
        assert_eq!(status_value(&r, "Questions"), "8");
        assert_eq!(status_value(&r, "Bytes_received"), "111");
        assert_eq!(status_value(&r, "Bytes_sent"), "221");
        b.begin(Activity::Execute, None);
        assert_eq!(status_value(&r, "Threads_running"), "1");
    }

    #[test]
    fn statement_counters_merge_open_closed_and_replaced_sessions() {
        use selkie_sql::session::counters::Counter;
        let r = Registry::new();
        let a = r.register(peer());
        let b = r.register(peer());
        let (ca, cb) = (Arc::new(StatusCounters::default()), Arc::new(StatusCounters::default()));
        r.attach_status_counters(&a, ca.clone());
        r.attach_status_counters(&b, cb.clone());
        ca.bump(Counter::ComSelect);
        cb.bump(Counter::ComSelect);
        cb.bump(Counter::ComInsert);
        assert_eq!(status_value(&r, "Com_select"), "2");
        assert_eq!(status_value(&r, "Com_insert"), "1");
        // COM_CHANGE_USER: a new session's counters replace the old ones, whose counts stay.
        let fresh = Arc::new(StatusCounters::default());
        r.attach_status_counters(&a, fresh.clone());
        fresh.bump(Counter::ComSelect);
        assert_eq!(status_value(&r, "Com_select"), "3");
        r.unregister(&b);
        assert_eq!(status_value(&r, "Com_select"), "3");
        assert_eq!(status_value(&r, "Com_insert"), "1");
        assert_eq!(r.status().iter().filter(|(k, _)| k == "Questions").count(), 1);
    }
}
