//! Blocking work called from async code: page reads on a miss, a user thread writing pages back
//! to get a frame, long DDL steps. The SQL layer calls the engine from tokio tasks; on the server's
//! multi-thread runtime `run` wraps the work in `tokio::task::block_in_place`, so the worker's
//! other connections move to another thread while this one blocks in the kernel. Elsewhere (the
//! engine's own threads, a current-thread runtime as tests use, no runtime) it runs inline:
//! `block_in_place` panics on a current-thread runtime.

use tokio::runtime::{Handle, RuntimeFlavor};

/// Runs `f`, which may block the thread (file I/O, waiting for another thread).
pub(crate) fn run<R>(f: impl FnOnce() -> R) -> R {
    match Handle::try_current() {
        Ok(h) if h.runtime_flavor() == RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn runs_inline_outside_a_runtime_and_on_a_current_thread_runtime() {
        assert_eq!(super::run(|| 7), 7);
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        assert_eq!(rt.block_on(async { super::run(|| 8) }), 8);
    }

    #[test]
    fn moves_other_tasks_off_a_multi_thread_worker() {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        rt.block_on(async {
            // While one task blocks inside `run`, another task on the single worker still runs.
            let blocked =
                tokio::spawn(async { super::run(|| std::thread::sleep(std::time::Duration::from_millis(300))) });
            let t0 = std::time::Instant::now();
            tokio::spawn(async {}).await.unwrap();
            assert!(t0.elapsed() < std::time::Duration::from_millis(250), "the other task waited for the blocked one");
            blocked.await.unwrap();
        });
    }
}
