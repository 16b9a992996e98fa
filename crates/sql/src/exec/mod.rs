//! The executor: pull-based operators instantiated from an immutable `Plan`.
//!
//! `open` builds an operator tree that borrows the plan; each `next` call takes the statement's
//! `ExecCtx` (transaction, parameters, variables). Table reads are synchronous (`Scan::next`
//! does not wait for locks), so the tree is plain synchronous code driven by async code
//! (`stream_rows`, `collect_rows`, DML) between lock waits.
//!
//! Cooperative scheduling: a statement runs on its connection's tokio task, so a long one
//! (a big join or scan) must not hold a worker thread until it ends: other connections' tasks
//! and the runtime's I/O driver share that thread. Operators count their work with
//! `ExecCtx::tick`; once the statement's time slice is used up, the operator that noticed
//! returns `Step::Pause` from a point where it can resume (its state is in `self`), every
//! operator above passes it up unchanged, and the async driver at the top awaits
//! `ExecCtx::pause` (a `yield_now`) before calling `next` again. Code that cannot await
//! (subqueries evaluated inside an expression) runs with pauses disabled.
//!
//! Bounded memory (architecture §2.1): every operator that buffers rows has a budget from the
//! session's variables and spills to @@tmpdir past it, with results identical to the in-memory
//! ones. Files, bottom up: `spill` (temporary files, row encoding), `sort` (external merge sort,
//! top-N), then the buffering operators `aggregate`, `distinct`, `join`, and `value_set`
//! (IN-subquery values); `access` reads tables; `ctx` is the statement's context.

pub mod access;
mod aggregate;
pub mod ctx;
mod distinct;
pub mod eval;
mod join;
mod open;
mod operator;
mod recursive;
mod rollup;
mod run;
mod set_op;
pub mod sort;
pub mod spill;
mod step;
mod subquery;
mod value_set;
mod window;

pub use self::open::eval_limit;
pub use self::operator::Operator;
pub use self::run::run_query;
pub use self::step::Step;
