//! LOCK TABLES / UNLOCK TABLES: MariaDB's table locks, server-wide.
//!
//! A session that holds table locks may use only the tables it locked (1100), and may change
//! only those it locked for WRITE (1099). Other sessions wait for them as MariaDB's metadata
//! locks make them wait (up to `lock_wait_timeout`, then 1205): a READ lock lets them read and
//! keeps their writes waiting; a WRITE lock keeps their reads and writes waiting. Row locks do
//! not make table locks redundant: applications use LOCK TABLES ... WRITE as a critical
//! section around reads and writes in autocommit mode, and that must exclude other sessions.
//!
//! Statements check here only while some session holds table locks (`holders`): otherwise the
//! check is one atomic load. Temporary tables are not locked, as in MariaDB.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use parking_lot::Mutex;

use crate::error::SqlError;
use crate::types::Interrupt;

/// A table as LOCK TABLES names it: database and table name.
pub type TableName = (String, String);

/// One table a session locked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedTable {
    pub table: TableName,
    pub write: bool,
}

#[derive(Default)]
struct Holds {
    readers: Vec<u64>,
    writer: Option<u64>,
}

impl Holds {
    /// Whether `session` may read (`write` false) or change the table now.
    fn allows(&self, session: u64, write: bool) -> bool {
        let writer_ok = self.writer.is_none_or(|w| w == session);
        let readers_ok = !write || self.readers.iter().all(|&r| r == session);
        writer_ok && readers_ok
    }
}

/// The server's table locks.
#[derive(Default)]
pub struct TableLocks {
    /// Sessions that hold table locks now.
    holders: AtomicUsize,
    tables: Mutex<HashMap<TableName, Holds>>,
    released: tokio::sync::Notify,
}

impl TableLocks {
    /// Takes `wanted` for `session`, all at once (so two LOCK TABLES never deadlock), waiting
    /// up to `timeout` while other sessions hold conflicting locks. The session holds none.
    pub async fn acquire(
        &self,
        session: u64,
        wanted: &[LockedTable],
        timeout: Duration,
        interrupt: &Interrupt,
    ) -> Result<(), SqlError> {
        self.wait_until(timeout, interrupt, || {
            let mut tables = self.tables.lock();
            let free = wanted.iter().all(|w| tables.get(&w.table).is_none_or(|h| h.allows(session, w.write)));
            if free {
                for w in wanted {
                    let h = tables.entry(w.table.clone()).or_default();
                    if w.write {
                        h.writer = Some(session);
                    } else if !h.readers.contains(&session) {
                        h.readers.push(session);
                    }
                }
                self.holders.fetch_add(1, Ordering::AcqRel);
            }
            free
        })
        .await
    }

    /// Whether any session holds table locks (one atomic load: statements check this first).
    pub fn any_held(&self) -> bool {
        self.holders.load(Ordering::Acquire) > 0
    }

    /// Gives up every table lock of `session` (UNLOCK TABLES, a new transaction, disconnect).
    pub fn release(&self, session: u64) {
        let mut tables = self.tables.lock();
        let mut held = false;
        tables.retain(|_, h| {
            let was = h.readers.len() + usize::from(h.writer.is_some());
            h.readers.retain(|&r| r != session);
            if h.writer == Some(session) {
                h.writer = None;
            }
            held |= h.readers.len() + usize::from(h.writer.is_some()) != was;
            !h.readers.is_empty() || h.writer.is_some()
        });
        if held {
            self.holders.fetch_sub(1, Ordering::AcqRel);
            self.released.notify_waiters();
        }
    }

    /// Waits until no other session's table lock keeps `session` from reading `reads` and
    /// changing `writes` (up to `timeout`, then 1205). At once when nobody holds table locks.
    pub async fn wait_for_others(
        &self,
        session: u64,
        reads: &[TableName],
        writes: &[TableName],
        timeout: Duration,
        interrupt: &Interrupt,
    ) -> Result<(), SqlError> {
        if !self.any_held() {
            return Ok(());
        }
        self.wait_until(timeout, interrupt, || {
            let tables = self.tables.lock();
            let ok = |t: &TableName, write: bool| tables.get(t).is_none_or(|h| h.allows(session, write));
            reads.iter().all(|t| ok(t, false)) && writes.iter().all(|t| ok(t, true))
        })
        .await
    }

    async fn wait_until(
        &self,
        timeout: Duration,
        interrupt: &Interrupt,
        mut ready: impl FnMut() -> bool,
    ) -> Result<(), SqlError> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let released = self.released.notified();
            tokio::pin!(released);
            // Registered before the check, so a release between the check and the await
            // is not missed (notify_waiters wakes only registered waiters).
            released.as_mut().enable();
            if ready() {
                return Ok(());
            }
            tokio::select! {
                () = released => {}
                () = tokio::time::sleep_until(deadline) => {
                    return if ready() { Ok(()) } else { Err(lock_wait_timeout()) };
                }
                () = interrupt.raised() => return Err(crate::error::interrupted()),
            }
        }
    }
}

fn lock_wait_timeout() -> SqlError {
    SqlError::new(1205, "HY000", "Lock wait timeout exceeded; try restarting transaction".to_string())
}

/// 1100: the session holds table locks, and not on `table`.
pub fn not_locked(table: &str) -> SqlError {
    SqlError::new(1100, "HY000", format!("Table '{table}' was not locked with LOCK TABLES"))
}

/// 1099: the session locked `table` for READ and tried to change it.
pub fn read_locked(table: &str) -> SqlError {
    SqlError::new(1099, "HY000", format!("Table '{table}' was locked with a READ lock and can't be updated"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str) -> TableName {
        ("d".to_string(), name.to_string())
    }

    #[tokio::test]
    async fn readers_share_writers_exclude_and_release_wakes() {
        let locks = std::sync::Arc::new(TableLocks::default());
        let never = Interrupt::default();
        let wait = Duration::from_millis(100);
        let read = |n: &str| LockedTable { table: t(n), write: false };
        let write = |n: &str| LockedTable { table: t(n), write: true };
        locks.acquire(1, &[read("a")], wait, &never).await.unwrap();
        locks.acquire(2, &[read("a")], wait, &never).await.unwrap();
        assert!(locks.wait_for_others(3, &[t("a")], &[], wait, &never).await.is_ok());
        let e = locks.wait_for_others(3, &[], &[t("a")], wait, &never).await.unwrap_err();
        assert_eq!(e.code, 1205);
        assert_eq!(locks.acquire(3, &[write("a")], wait, &never).await.unwrap_err().code, 1205);
        locks.release(1);
        locks.release(2);
        locks.acquire(3, &[write("a"), read("b")], wait, &never).await.unwrap();
        assert_eq!(locks.wait_for_others(4, &[t("a")], &[], wait, &never).await.unwrap_err().code, 1205);
        assert!(locks.wait_for_others(3, &[t("a")], &[t("a")], wait, &never).await.is_ok(), "its own locks");
        let waiter = tokio::spawn({
            let locks = locks.clone();
            async move { locks.wait_for_others(4, &[t("a")], &[], Duration::from_secs(60), &Interrupt::default()).await }
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        locks.release(3);
        assert!(waiter.await.unwrap().is_ok());
        assert_eq!(locks.holders.load(Ordering::Acquire), 0);
        locks.release(3);
        assert_eq!(locks.holders.load(Ordering::Acquire), 0, "a second release changes nothing");
    }
}
