//! Rows describing the server rather than the catalog: variables, status counters, the process
//! list, warnings, engines, character sets, plugins, grants, and the replication statements
//! (Selkie has no binary log or replicas, so those are empty, as on a MariaDB without them).

use std::collections::BTreeMap;

use super::context::Ctx;
use super::schema::{text, ENGINE_NAME};
use crate::error::SqlError;
use crate::types::Value;
use crate::types::{WarnLevel, Warning};
use crate::variables::describe::{describe_all, display_value};
use crate::variables::{VarScope, CHARSETS, COLLATIONS};

/// SHOW PROCESSLIST without FULL shows this many characters of each statement (MariaDB's
/// PROCESS_LIST_WIDTH).
pub(crate) const PROCESS_LIST_WIDTH: usize = 100;

// ---- variables and status ----

pub(crate) fn variables_rows(ctx: &Ctx, scope: VarScope) -> Vec<Vec<Value>> {
    ctx.session.all(ctx.globals, scope).into_iter().map(|(name, value)| vec![text(&name), value]).collect()
}

/// Status variables, sorted case-insensitively as MariaDB lists them. Session scope shows this
/// session's counters where it has them and the server-wide value otherwise; global scope shows
/// only server-wide values (the server and the engine merge their per-worker counters).
pub(crate) fn status_rows(ctx: &Ctx, scope: VarScope) -> Vec<Vec<Value>> {
    // Lower-cased name → (name as reported, value); later sources override earlier ones.
    let mut merged: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut put = |name: String, value: String| {
        merged.insert(name.to_ascii_lowercase(), (name, value));
    };
    for (name, value) in ctx.engine.status_rows() {
        put(name, value);
    }
    for (name, value) in ctx.hooks.status() {
        put(name, value);
    }
    if scope != VarScope::Global {
        for (name, value) in ctx.session_status {
            put(name.clone(), value.to_string());
        }
    }
    merged.into_values().map(|(name, value)| vec![text(&name), text(&value)]).collect()
}

pub(crate) fn system_variables_rows(ctx: &Ctx) -> Vec<Vec<Value>> {
    let to_text = |name: &str, v: &Value| -> Value {
        match v {
            Value::Null => Value::Null,
            other => text(&display_value(name, other)),
        }
    };
    describe_all(ctx.globals, ctx.session)
        .into_iter()
        .map(|v| {
            let upper = v.name.to_ascii_uppercase();
            vec![
                text(&upper),
                v.session_value.as_ref().map(|x| to_text(v.name, x)).unwrap_or(Value::Null),
                v.global_value.as_ref().map(|x| to_text(v.name, x)).unwrap_or(Value::Null),
                v.origin.map(text).unwrap_or(Value::Null),
                to_text(v.name, &v.default_value),
                text(v.scope),
                text(v.type_name),
                text(""),
                v.min.as_deref().map(text).unwrap_or(Value::Null),
                v.max.as_deref().map(text).unwrap_or(Value::Null),
                v.block_size.map(|b| text(&b.to_string())).unwrap_or(Value::Null),
                v.enum_values.as_deref().map(text).unwrap_or(Value::Null),
                text(if v.read_only { "YES" } else { "NO" }),
                Value::Null,
                Value::Null,
            ]
        })
        .collect()
}

// ---- processes ----

/// SHOW [FULL] PROCESSLIST rows (Id, User, Host, db, Command, Time, State, Info, Progress).
pub(crate) fn processlist_rows(ctx: &Ctx, full: bool) -> Vec<Vec<Value>> {
    let mut list = ctx.hooks.processlist();
    list.sort_by_key(|p| p.id);
    list.into_iter()
        .map(|p| {
            let info = p.info.map(|q| if full { q } else { q.chars().take(PROCESS_LIST_WIDTH).collect() });
            vec![
                Value::UInt(p.id),
                text(&p.user),
                text(&p.host),
                p.db.as_deref().map(text).unwrap_or(Value::Null),
                text(&p.command),
                Value::UInt(p.time_secs),
                text(&p.state),
                info.as_deref().map(text).unwrap_or(Value::Null),
                Value::Decimal(selkie_storage::Decimal::new(0, 3)),
            ]
        })
        .collect()
}

/// information_schema.PROCESSLIST. Selkie's connection registry tracks seconds, so TIME_MS is
/// TIME × 1000; it does not track memory, examined rows, query ids or OS thread ids (NULL).
pub(crate) fn is_processlist_rows(ctx: &Ctx) -> Vec<Vec<Value>> {
    let mut list = ctx.hooks.processlist();
    list.sort_by_key(|p| p.id);
    list.into_iter()
        .map(|p| {
            let info = p.info.as_deref().map(text).unwrap_or(Value::Null);
            let info_binary = p.info.as_ref().map(|q| Value::Bytes(q.as_bytes().to_vec())).unwrap_or(Value::Null);
            vec![
                Value::UInt(p.id),
                text(&p.user),
                text(&p.host),
                p.db.as_deref().map(text).unwrap_or(Value::Null),
                text(&p.command),
                Value::Int(i64::try_from(p.time_secs).unwrap_or(i64::MAX)),
                text(&p.state),
                info,
                Value::Decimal(selkie_storage::Decimal::new(i128::from(p.time_secs) * 1000 * 1000, 3)),
                Value::Int(0),
                Value::Int(0),
                Value::Decimal(selkie_storage::Decimal::new(0, 3)),
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
                info_binary,
                Value::Null,
            ]
        })
        .collect()
}

// ---- warnings ----

fn level_name(level: WarnLevel) -> &'static str {
    match level {
        WarnLevel::Note => "Note",
        WarnLevel::Warning => "Warning",
        WarnLevel::Error => "Error",
    }
}

/// SHOW WARNINGS / SHOW ERRORS [LIMIT [offset,] count].
pub(crate) fn warnings_rows(warnings: &[Warning], errors_only: bool, offset: u64, count: u64) -> Vec<Vec<Value>> {
    warnings
        .iter()
        .filter(|w| !errors_only || w.level == WarnLevel::Error)
        .skip(usize::try_from(offset).unwrap_or(usize::MAX))
        .take(usize::try_from(count).unwrap_or(usize::MAX))
        .map(|w| vec![text(level_name(w.level)), Value::UInt(u64::from(w.code)), text(&w.message)])
        .collect()
}

pub(crate) fn warning_count(warnings: &[Warning], errors_only: bool) -> u64 {
    warnings.iter().filter(|w| !errors_only || w.level == WarnLevel::Error).count() as u64
}

// ---- engines, character sets, plugins ----

/// Why the only engine is called InnoDB: clients and tools check for it (e.g. to use
/// transactions), and Selkie's engine provides what they expect from it.
const ENGINE_COMMENT: &str = "Selkie's MVCC storage engine (row locks, WAL); every table uses it, reported as InnoDB";

pub(crate) fn engines_rows() -> Vec<Vec<Value>> {
    debug_assert!(ENGINE_COMMENT.len() <= 160, "ENGINES.COMMENT is varchar(160)");
    vec![vec![text(ENGINE_NAME), text("DEFAULT"), text(ENGINE_COMMENT), text("YES"), text("NO"), text("NO")]]
}

pub(crate) fn is_known_engine(name: &str) -> bool {
    name.eq_ignore_ascii_case(ENGINE_NAME)
}

/// SHOW ENGINE INNODB STATUS text: the engine's counters between MariaDB's header and footer
/// lines (tools look for them), one `name value` per line.
pub(crate) fn engine_status_text(ctx: &Ctx) -> String {
    let mut s = String::from("\n=====================================\n");
    s.push_str(&local_time_text());
    s.push_str(" INNODB MONITOR OUTPUT\n=====================================\n");
    s.push_str("Selkie storage engine status\n--------------\nENGINE COUNTERS\n--------------\n");
    for (name, value) in ctx.engine.status_rows() {
        s.push_str(&name);
        s.push(' ');
        s.push_str(&value);
        s.push('\n');
    }
    s.push_str("----------------------------\nEND OF INNODB MONITOR OUTPUT\n============================\n");
    s
}

/// Local wall-clock time as `YYYY-MM-DD hh:mm:ss`.
fn local_time_text() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let t = now as libc::time_t;
    // SAFETY: `tm` is plain data filled by localtime_r, which reads only `t`.
    let tm = unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() {
            return String::new();
        }
        tm
    };
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    )
}

pub(crate) fn character_sets_rows() -> Vec<Vec<Value>> {
    CHARSETS
        .iter()
        .map(|c| vec![text(c.name), text(c.description), text(c.default_collation), Value::UInt(c.max_len)])
        .collect()
}

/// information_schema.CHARACTER_SETS has SHOW CHARACTER SET's columns in another order.
pub(crate) fn is_character_sets_rows() -> Vec<Vec<Value>> {
    CHARSETS
        .iter()
        .map(|c| vec![text(c.name), text(c.default_collation), text(c.description), Value::UInt(c.max_len)])
        .collect()
}

pub(crate) fn collations_rows() -> Vec<Vec<Value>> {
    COLLATIONS
        .iter()
        .map(|c| {
            vec![
                text(c.name),
                text(c.charset),
                Value::UInt(u64::from(c.id)),
                text(if c.is_default { "Yes" } else { "" }),
                text("Yes"),
                Value::UInt(c.sort_len),
            ]
        })
        .collect()
}

pub(crate) fn collation_applicability_rows() -> Vec<Vec<Value>> {
    COLLATIONS
        .iter()
        .map(|c| {
            vec![
                text(c.name),
                text(c.charset),
                text(c.name),
                Value::UInt(u64::from(c.id)),
                text(if c.is_default { "Yes" } else { "" }),
            ]
        })
        .collect()
}

/// The parts of the server that MariaDB would list as plugins: the storage engine and the
/// authentication method. Both are Selkie's own code, hence its license.
struct Plugin {
    name: &'static str,
    version: &'static str,
    kind: &'static str,
    type_version: &'static str,
    description: &'static str,
    auth_version: Option<&'static str>,
}

const PLUGIN_LICENSE: &str = "Apache-2.0";
const PLUGIN_AUTHOR: &str = "Selkie";

static PLUGINS: &[Plugin] = &[
    Plugin {
        name: "mysql_native_password",
        version: "1.0",
        kind: "AUTHENTICATION",
        type_version: "2.2",
        description: "Native MySQL authentication",
        auth_version: Some("1.0"),
    },
    Plugin {
        name: ENGINE_NAME,
        version: "10.11",
        kind: "STORAGE ENGINE",
        type_version: "101119.0",
        description: ENGINE_COMMENT,
        auth_version: None,
    },
];

pub(crate) fn plugins_rows() -> Vec<Vec<Value>> {
    PLUGINS
        .iter()
        .map(|p| vec![text(p.name), text("ACTIVE"), text(p.kind), Value::Null, text(PLUGIN_LICENSE)])
        .collect()
}

pub(crate) fn is_plugins_rows() -> Vec<Vec<Value>> {
    PLUGINS
        .iter()
        .map(|p| {
            vec![
                text(p.name),
                text(p.version),
                text("ACTIVE"),
                text(p.kind),
                text(p.type_version),
                Value::Null,
                Value::Null,
                text(PLUGIN_AUTHOR),
                text(p.description),
                text(PLUGIN_LICENSE),
                text("FORCE"),
                text("Stable"),
                p.auth_version.map(text).unwrap_or(Value::Null),
            ]
        })
        .collect()
}

// ---- accounts and grants ----

/// The account of this connection as MariaDB names it (`root`@`localhost`). Selkie has no
/// privilege system: every account may do everything, so `root` is shown at `localhost` (its
/// default account) and other users at `%`.
pub(crate) fn current_account(ctx: &Ctx) -> (String, String) {
    let user = ctx
        .hooks
        .processlist()
        .into_iter()
        .find(|p| p.id == ctx.connection_id)
        .map(|p| p.user)
        .unwrap_or_else(|| "root".to_string());
    let host = if user == "root" { "localhost" } else { "%" };
    (user, host.to_string())
}

fn unknown_grant(user: &str, host: &str) -> SqlError {
    SqlError::new(1141, "42000", format!("There is no such grant defined for user '{user}' on host '{host}'"))
}

/// SHOW GRANTS [FOR user@host]: (column title, rows).
pub(crate) fn grants(ctx: &Ctx, account: Option<(String, String)>) -> Result<(String, Vec<Vec<Value>>), SqlError> {
    let (user, host) = current_account(ctx);
    if let Some((u, h)) = account {
        if u != user || h != host {
            return Err(unknown_grant(&u, &h));
        }
    }
    let title = format!("Grants for {user}@{host}");
    let grant = format!(
        "GRANT ALL PRIVILEGES ON *.* TO {}@{} WITH GRANT OPTION",
        super::literal::quote_ident(&user),
        super::literal::quote_ident(&host)
    );
    Ok((title, vec![vec![text(&grant)]]))
}

/// MariaDB's global privileges (what ALL PRIVILEGES stands for), for USER_PRIVILEGES.
const PRIVILEGES: &[&str] = &[
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "RELOAD",
    "SHUTDOWN",
    "PROCESS",
    "FILE",
    "REFERENCES",
    "INDEX",
    "ALTER",
    "SHOW DATABASES",
    "SUPER",
    "CREATE TEMPORARY TABLES",
    "LOCK TABLES",
    "EXECUTE",
    "REPLICATION SLAVE",
    "BINLOG MONITOR",
    "CREATE VIEW",
    "SHOW VIEW",
    "CREATE ROUTINE",
    "ALTER ROUTINE",
    "CREATE USER",
    "EVENT",
    "TRIGGER",
    "CREATE TABLESPACE",
    "DELETE HISTORY",
    "SET USER",
    "FEDERATED ADMIN",
    "CONNECTION ADMIN",
    "READ_ONLY ADMIN",
    "REPLICATION SLAVE ADMIN",
    "REPLICATION MASTER ADMIN",
    "BINLOG ADMIN",
    "BINLOG REPLAY",
    "SLAVE MONITOR",
];

pub(crate) fn user_privileges_rows(ctx: &Ctx) -> Vec<Vec<Value>> {
    let (user, host) = current_account(ctx);
    let grantee = format!("'{user}'@'{host}'");
    PRIVILEGES.iter().map(|p| vec![text(&grantee), text("def"), text(p), text("YES")]).collect()
}

pub(crate) fn no_binary_log() -> SqlError {
    SqlError::new(1381, "HY000", "You are not using binary logging")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(level: WarnLevel, code: u16) -> Warning {
        Warning { level, code, message: format!("m{code}") }
    }

    #[test]
    fn warnings_filter_and_limit() {
        let list = [w(WarnLevel::Note, 1), w(WarnLevel::Error, 2), w(WarnLevel::Warning, 3), w(WarnLevel::Error, 4)];
        let all = warnings_rows(&list, false, 0, u64::MAX);
        assert_eq!(all.len(), 4);
        assert_eq!(all[0], vec![text("Note"), Value::UInt(1), text("m1")]);
        let errors = warnings_rows(&list, true, 0, u64::MAX);
        assert_eq!(errors.iter().map(|r| r[1].clone()).collect::<Vec<_>>(), [Value::UInt(2), Value::UInt(4)]);
        let page = warnings_rows(&list, false, 1, 2);
        assert_eq!(page.iter().map(|r| r[1].clone()).collect::<Vec<_>>(), [Value::UInt(2), Value::UInt(3)]);
        assert_eq!(warning_count(&list, false), 4);
        assert_eq!(warning_count(&list, true), 2);
    }

    #[test]
    fn engine_comment_fits_and_plugins_list_the_engine() {
        assert!(ENGINE_COMMENT.len() <= 160);
        assert!(plugins_rows().iter().any(|r| r[0] == text("InnoDB")));
        assert_eq!(engines_rows()[0][1], text("DEFAULT"));
        assert!(is_known_engine("innodb") && !is_known_engine("MyISAM"));
    }
}
