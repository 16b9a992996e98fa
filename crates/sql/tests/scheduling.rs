//! Long statements and interruption: a statement yields its worker thread when its time slice is
//! used up (cooperative scheduling), and KILL QUERY ends a statement waiting for a row lock.

use crate::common;
use common::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A long statement yields its thread: on a single-threaded runtime another task keeps
/// running while a huge join executes (without yields it would not run until the join ends).
#[test]
fn long_statements_yield_to_other_tasks() {
    let _exclusive = crate::exclusive();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let db = TestDb::new();
        let mut s = db.session_in_test_db().await;
        exec(&mut s, "CREATE TABLE big (id INT PRIMARY KEY)").await;
        let values: Vec<String> = (1..=1000).map(|i| format!("({i})")).collect();
        exec(&mut s, &format!("INSERT INTO big VALUES {}", values.join(","))).await;

        // A ticker on the same thread counts its wake-ups and records the longest gap.
        let stop = Arc::new(AtomicBool::new(false));
        let ticks = Arc::new(AtomicU64::new(0));
        let max_gap_us = Arc::new(AtomicU64::new(0));
        let ticker = tokio::spawn({
            let (stop, ticks, max_gap_us) = (stop.clone(), ticks.clone(), max_gap_us.clone());
            async move {
                let mut last = Instant::now();
                while !stop.load(Ordering::Relaxed) {
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    let now = Instant::now();
                    ticks.fetch_add(1, Ordering::Relaxed);
                    max_gap_us.fetch_max(now.duration_since(last).as_micros() as u64, Ordering::Relaxed);
                    last = now;
                }
            }
        });
        tokio::task::yield_now().await;
        // The join (10^9 rows; the predicate can use no index, so no plan makes it short) would
        // run for minutes: a KILL QUERY from another thread ends it after a while, whether or not
        // the runtime thread ever yields.
        let flag = s.interrupt_flag();
        let killer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(800));
            flag.raise();
        });
        let ticks_before = ticks.load(Ordering::Relaxed);
        max_gap_us.store(0, Ordering::Relaxed);
        let e = fail(&mut s, "SELECT COUNT(*) FROM big a, big b, big c WHERE a.id + b.id + c.id < 0").await;
        let ticks_during = ticks.load(Ordering::Relaxed) - ticks_before;
        let gap = Duration::from_micros(max_gap_us.load(Ordering::Relaxed));
        killer.join().unwrap();
        assert_eq!(e.code, 1317);
        stop.store(true, Ordering::Relaxed);
        ticker.await.unwrap();
        // Without yields the ticker cannot run at all until the statement ends (0 ticks); with
        // them it wakes about every 2 ms, give or take the machine's load.
        assert!(ticks_during >= 20, "the ticker ran {ticks_during} times during 800 ms of join");
        assert!(gap < Duration::from_millis(500), "another task waited {gap:?} while the join ran");
    });
}

/// KILL QUERY ends a statement that is waiting for a row lock at once (1317), well before the
/// lock wait timeout (2 s in the test engine), and the session stays usable.
#[tokio::test]
async fn kill_query_interrupts_a_row_lock_wait() {
    let _exclusive = crate::exclusive();
    let db = TestDb::new();
    let mut a = db.session_in_test_db().await;
    exec(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)").await;
    exec(&mut a, "INSERT INTO t VALUES (1, 0)").await;
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "UPDATE t SET v = 1 WHERE id = 1").await;
    let mut b = db.session_in_test_db().await;
    let flag = b.interrupt_flag();
    for sql in
        ["UPDATE t SET v = 2 WHERE id = 1", "SELECT v FROM t WHERE id = 1 FOR UPDATE", "DELETE FROM t WHERE id = 1"]
    {
        let started = Instant::now();
        let (e, ()) = tokio::join!(fail(&mut b, sql), async {
            tokio::time::sleep(Duration::from_millis(150)).await;
            flag.raise();
        });
        assert_eq!((e.code, e.message.as_str()), (1317, "Query execution was interrupted"), "{sql}");
        assert!(started.elapsed() < Duration::from_millis(1500), "{sql}: KILL QUERY took {:?}", started.elapsed());
    }
    exec(&mut a, "COMMIT").await;
    assert_eq!(query(&mut b, "SELECT v FROM t WHERE id = 1").await, rows(&[&["1"]]));
}
