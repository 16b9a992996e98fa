//! The execution context of one statement: the session facts expressions read, the transaction,
//! parameter values, user variables, new warnings, and the per-statement caches.

use std::cell::{Cell, RefCell};
use std::sync::{Arc, OnceLock};

use selkie_storage::{Catalog, DateTime, Engine, LockMode, ReadMode, ScanRow, TableDef, Transaction};

use crate::error::SqlError;
use crate::types::{Interrupt, SessionInfo, Value};

use crate::error;
use crate::server::SqlServer;
use crate::show::ShowContext;
use crate::types::{WarnLevel, Warning};
use crate::user_variables::{Assigned, UserVariable, UserVariables};
use crate::value::{FnContext, SequenceOp};
use crate::variables::{SessionVariables, SqlMode, VarScope};

/// Warnings kept for SHOW WARNINGS per statement (MariaDB's max_error_count default); the
/// count keeps going beyond it.
pub const MAX_STORED_WARNINGS: usize = 64;

/// Units of work (rows read, compared, joined) between two checks of the KILL QUERY flag and
/// of the statement's time slice.
pub const INTERRUPT_CHECK_INTERVAL: u32 = 256;

/// CPU time a statement may run before it yields its worker thread to other connections and
/// to the runtime's I/O driver (see `exec`: cooperative scheduling). Short enough that a long
/// query delays other clients' statements by about a millisecond, long enough that a yield
/// (about a microsecond) costs well under 1% of a long query.
pub const TIME_SLICE: std::time::Duration = std::time::Duration::from_millis(1);

/// The catalog snapshot a statement reads information_schema and SHOW from: the one it was
/// bound against when there was one, otherwise taken on first use (a statement running a
/// cached plan takes no snapshot unless it needs one).
pub struct LazyCatalog(OnceLock<Arc<Catalog>>);

impl LazyCatalog {
    pub fn new(bound_against: Option<Arc<Catalog>>) -> LazyCatalog {
        LazyCatalog(match bound_against {
            Some(c) => OnceLock::from(c),
            None => OnceLock::new(),
        })
    }

    pub fn get(&self, engine: &Engine) -> &Arc<Catalog> {
        self.0.get_or_init(|| engine.catalog())
    }
}

/// Facts fixed for the duration of one statement.
pub struct StmtEnv<'a> {
    /// Globals, hooks and the version (never the engine: that comes from the session's `Store`).
    pub server: &'a SqlServer,
    /// The engine as the session's `Store` lends it, for catalog snapshots and SHOW.
    pub engine: &'a Engine,
    pub catalog: LazyCatalog,
    pub vars: &'a SessionVariables,
    pub current_db: Option<&'a str>,
    pub info: &'a SessionInfo,
    /// NOW() for the whole statement: read from the clock when first needed (the local-time
    /// conversion is not free, and most statements never ask).
    pub now: std::sync::OnceLock<DateTime>,
    pub sql_mode: SqlMode,
    /// The previous statement's warnings (SHOW WARNINGS, information_schema).
    pub prev_warnings: &'a [Warning],
    pub session_status: &'a [(String, u64)],
    /// FOUND_ROWS() / ROW_COUNT() as left by the previous statement.
    pub found_rows: u64,
    pub row_count: i64,
    pub interrupt: &'a Interrupt,
    /// The session's temporary tables (for SHOW).
    pub temporary: Option<&'a crate::temporary::TemporaryTables>,
}

impl<'a> StmtEnv<'a> {
    /// NOW() of the statement: the clock (or `SET timestamp`) in the session's time zone.
    pub fn now(&self) -> DateTime {
        *self.now.get_or_init(|| crate::value::session_now(self.vars.fixed_timestamp(), self.vars.time_zone()))
    }

    pub fn show_context(&'a self) -> ShowContext<'a> {
        ShowContext {
            catalog: self.catalog.get(self.engine),
            engine: self.engine,
            globals: &self.server.globals,
            session: self.vars,
            current_db: self.current_db,
            hooks: &*self.server.hooks,
            warnings: self.prev_warnings,
            connection_id: self.info.connection_id,
            session_status: self.session_status,
            temporary: self.temporary,
        }
    }
}

/// A cached result of an uncorrelated subquery.
#[derive(Clone, Debug)]
pub enum SubResult {
    Scalar(Value),
    Exists(bool),
    /// First-column values of every row; `ints` holds them as a set when they are all
    /// integers (or NULL), so `int IN (SELECT ...)` probes in O(1).
    Values {
        values: Arc<Vec<Value>>,
        ints: Option<Arc<std::collections::HashSet<i128>>>,
    },
    /// The first-column values outgrew min(tmp_table_size, max_heap_table_size): they are in a
    /// sorted temporary file.
    Spilled(Arc<super::value_set::ValueSet>),
}

/// How a locking read that must not wait treats a row another transaction holds.
#[derive(Clone, Copy, Debug)]
pub struct InlineLock {
    pub mode: LockMode,
    /// SKIP LOCKED: leave the row out; otherwise (NOWAIT) fail with 1205.
    pub skip_locked: bool,
}

pub struct ExecCtx<'a> {
    pub env: &'a StmtEnv<'a>,
    trx: Option<&'a mut Transaction>,
    pub params: &'a [Value],
    user_vars: &'a mut UserVariables,
    warnings: RefCell<Vec<Warning>>,
    warning_count: Cell<usize>,
    rng: Cell<u64>,
    last_insert_id: Cell<u64>,
    /// Set by LAST_INSERT_ID(expr): also becomes the OK packet's insert id.
    pub insert_id_override: Option<u64>,
    /// `SET insert_id = n`: the first AUTO_INCREMENT value this INSERT generates.
    pub insert_id_hint: Option<u64>,
    strict: Cell<bool>,
    /// Rows of enclosing queries, innermost last (correlated subqueries).
    pub outer: Vec<Vec<Value>>,
    pub sub_cache: Vec<Option<SubResult>>,
    /// Working tables of the recursive CTEs being iterated, by slot (`Plan::WorkTable`).
    work_tables: Vec<Option<Arc<Vec<Vec<Value>>>>>,
    /// How table accesses read rows: snapshot reads, or the latest versions (locking reads and
    /// UPDATE/DELETE candidate collection).
    pub read_mode: ReadMode,
    /// While set, every row a table access returns is recorded here to be locked
    /// (SELECT ... FOR UPDATE / FOR SHARE).
    pub lock_collect: Option<Vec<(Arc<TableDef>, Vec<u8>)>>,
    /// While set, table accesses lock every row they read as they read it, without waiting
    /// (SELECT ... NOWAIT / SKIP LOCKED; see `exec::run`).
    pub lock_inline: Option<InlineLock>,
    /// Plain reads of the query lock in share mode (SERIALIZABLE in a transaction).
    pub reads_lock_shared: bool,
    ticks: u32,
    /// Whether `tick` may ask the caller to pause: false while the operators are driven by
    /// code that cannot await (subqueries inside expression evaluation).
    pauses_enabled: bool,
    /// When the current time slice started; set at the first clock check after a pause, so
    /// a statement that never runs long never reads the clock.
    slice_start: Option<std::time::Instant>,
}

impl<'a> ExecCtx<'a> {
    pub fn new(
        env: &'a StmtEnv<'a>,
        trx: Option<&'a mut Transaction>,
        params: &'a [Value],
        user_vars: &'a mut UserVariables,
        rng_state: u64,
        last_insert_id: u64,
    ) -> ExecCtx<'a> {
        ExecCtx {
            env,
            trx,
            params,
            user_vars,
            warnings: RefCell::new(Vec::new()),
            warning_count: Cell::new(0),
            rng: Cell::new(rng_state | 1),
            last_insert_id: Cell::new(last_insert_id),
            insert_id_override: None,
            insert_id_hint: None,
            // Strictness applies to data-change statements only; they turn it on.
            strict: Cell::new(false),
            outer: Vec::new(),
            sub_cache: Vec::new(),
            work_tables: Vec::new(),
            read_mode: ReadMode::Consistent,
            lock_collect: None,
            lock_inline: None,
            reads_lock_shared: false,
            ticks: 0,
            pauses_enabled: true,
            slice_start: None,
        }
    }

    /// The statement's transaction. Plans that read tables always run with one.
    pub fn trx(&mut self) -> Result<&mut Transaction, SqlError> {
        match self.trx.as_deref_mut() {
            Some(t) => Ok(t),
            None => Err(error::internal("statement reads tables without a transaction")),
        }
    }

    pub fn has_trx(&self) -> bool {
        self.trx.is_some()
    }

    /// Locks a row for the statement (`Transaction::lock_row`), giving up with 1317 as soon as
    /// KILL QUERY interrupts the statement while it waits. Dropping the engine's wait future
    /// withdraws the wait; the statement is then rolled back like any failed statement.
    pub async fn lock_row(
        &mut self,
        table: &Arc<TableDef>,
        pk_key: &[u8],
        mode: LockMode,
    ) -> Result<Option<ScanRow>, SqlError> {
        let interrupt = self.env.interrupt;
        let trx = self.trx()?;
        tokio::select! {
            // An uncontended lock is granted on the first poll, before the interrupt
            // future is ever polled (and registered).
            biased;
            locked = trx.lock_row(table, pk_key, mode) => locked.map_err(SqlError::from),
            () = interrupt.raised() => Err(error::interrupted()),
        }
    }

    /// `Transaction::try_lock_row`: the row locked and read again (`Some(None)`: it is gone),
    /// or None when another transaction holds it.
    pub fn try_lock_row(
        &mut self,
        table: &Arc<TableDef>,
        pk_key: &[u8],
        mode: LockMode,
    ) -> Result<Option<Option<ScanRow>>, SqlError> {
        self.trx()?.try_lock_row(table, pk_key, mode).map_err(SqlError::from)
    }

    /// Makes `rows` the working table of recursive CTE slot `slot`.
    pub fn set_work_table(&mut self, slot: usize, rows: Arc<Vec<Vec<Value>>>) {
        if self.work_tables.len() <= slot {
            self.work_tables.resize(slot + 1, None);
        }
        self.work_tables[slot] = Some(rows);
    }

    /// The working table of slot `slot` (empty before its first iteration).
    pub fn work_table(&self, slot: usize) -> Arc<Vec<Vec<Value>>> {
        self.work_tables.get(slot).cloned().flatten().unwrap_or_default()
    }

    /// Counts a unit of work; every `INTERRUPT_CHECK_INTERVAL` units looks at the KILL flag
    /// and the clock. Returns true when the statement's time slice is used up: the caller
    /// returns `Step::Pause` from a point where it can resume, and the driver awaits `pause`.
    #[inline]
    pub fn tick(&mut self) -> Result<bool, SqlError> {
        self.ticks = self.ticks.wrapping_add(1);
        if !self.ticks.is_multiple_of(INTERRUPT_CHECK_INTERVAL) {
            return Ok(false);
        }
        self.check_interrupt()?;
        Ok(self.slice_used_up())
    }

    #[cold]
    fn slice_used_up(&mut self) -> bool {
        if !self.pauses_enabled {
            return false;
        }
        let now = std::time::Instant::now();
        match self.slice_start {
            None => {
                self.slice_start = Some(now);
                false
            }
            Some(start) => now.duration_since(start) >= TIME_SLICE,
        }
    }

    /// Yields the worker thread to other tasks (the time slice is used up), then checks
    /// whether the statement was killed meanwhile.
    pub async fn pause(&mut self) -> Result<(), SqlError> {
        debug_assert!(self.pauses_enabled, "paused while pauses were disabled");
        tokio::task::yield_now().await;
        self.slice_start = None;
        self.check_interrupt()
    }

    /// Enables or disables pauses; returns the previous setting.
    pub fn set_pauses_enabled(&mut self, enabled: bool) -> bool {
        std::mem::replace(&mut self.pauses_enabled, enabled)
    }

    /// Strict mode as MariaDB applies it to INSERT / UPDATE / DELETE: STRICT_TRANS_TABLES or
    /// STRICT_ALL_TABLES (every Selkie table is transactional).
    pub fn sql_mode_is_strict(&self) -> bool {
        self.env.sql_mode.strict_trans_tables || self.env.sql_mode.strict_all_tables
    }

    /// sort_buffer_size: the memory one sort may hold before it writes runs to @@tmpdir.
    pub fn sort_budget(&self) -> usize {
        self.env.vars.sort_buffer_size()
    }

    /// min(tmp_table_size, max_heap_table_size): the memory of one in-memory temporary table
    /// (groups, distinct keys, a join's build side) before it spills to @@tmpdir.
    pub fn tmp_table_budget(&self) -> usize {
        self.env.vars.tmp_table_budget()
    }

    /// The directory for the next temporary file: @@tmpdir, or each directory of a
    /// ':'-separated list in turn, as MariaDB spreads its temporary files.
    pub fn tmpdir(&self) -> String {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let text = match self.env.server.globals.get("tmpdir") {
            Ok(Value::Bytes(b)) => String::from_utf8_lossy(&b).into_owned(),
            _ => String::new(),
        };
        let dirs: Vec<&str> = text.split(':').filter(|d| !d.is_empty()).collect();
        if dirs.is_empty() {
            return std::env::temp_dir().to_string_lossy().into_owned();
        }
        let i = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % dirs.len();
        dirs[i].to_string()
    }

    pub fn check_interrupt(&self) -> Result<(), SqlError> {
        if self.env.interrupt.is_raised() {
            return Err(error::interrupted());
        }
        Ok(())
    }

    pub fn param(&self, i: usize) -> Result<Value, SqlError> {
        self.params.get(i).cloned().ok_or_else(|| error::wrong_arguments("EXECUTE"))
    }

    /// User variable names are case-insensitive; they are stored lower-cased.
    pub fn user_var(&self, name: &str) -> Value {
        match self.user_vars.get(name) {
            Some(v) => v.value.clone(),
            None if name.bytes().any(|b| b.is_ascii_uppercase()) => {
                self.user_vars.get(&name.to_ascii_lowercase()).map_or(Value::Null, |v| v.value.clone())
            }
            None => Value::Null,
        }
    }

    /// Assigns a user variable; `assigned` (from the expression's type) says whether the value
    /// is a number or a string of which collation.
    pub fn set_user_var(&mut self, name: &str, v: Value, assigned: Assigned) {
        self.user_vars.insert(name.to_ascii_lowercase(), UserVariable::new(v, assigned));
    }

    pub fn system_variable(&self, name: &str, scope: VarScope) -> Result<Value, SqlError> {
        // LAST_INSERT_ID(expr) earlier in this statement changes it before the session's copy
        // is updated at the statement's end.
        if scope != VarScope::Global
            && (name.eq_ignore_ascii_case("last_insert_id") || name.eq_ignore_ascii_case("identity"))
        {
            return Ok(Value::UInt(self.last_insert_id.get()));
        }
        self.env.vars.get(&self.env.server.globals, name, scope)
    }

    pub fn outer_value(&self, up: usize, index: usize) -> Result<Value, SqlError> {
        let depth = self.outer.len();
        if up == 0 || up > depth {
            return Err(error::internal("outer reference outside any enclosing row"));
        }
        Ok(self.outer[depth - up].get(index).cloned().unwrap_or(Value::Null))
    }

    pub fn set_last_insert_id(&mut self, id: u64) {
        self.last_insert_id.set(id);
        self.insert_id_override = Some(id);
    }

    pub fn current_last_insert_id(&self) -> u64 {
        self.last_insert_id.get()
    }

    pub fn set_strict(&self, strict: bool) -> bool {
        self.strict.replace(strict)
    }

    pub fn rng_state(&self) -> u64 {
        self.rng.get()
    }

    pub fn push_warning(&self, level: WarnLevel, code: u16, message: String) {
        self.warning_count.set(self.warning_count.get() + 1);
        let mut w = self.warnings.borrow_mut();
        if w.len() < MAX_STORED_WARNINGS {
            w.push(Warning { level, code, message });
        }
    }

    /// The number of warnings so far (`drop_warnings_after`).
    pub fn warning_mark(&self) -> usize {
        self.warning_count.get()
    }

    /// Forgets the warnings pushed since `mark`: a computation MariaDB reports nothing for.
    pub fn drop_warnings_after(&self, mark: usize) {
        if self.warning_count.get() > mark {
            self.warning_count.set(mark);
            self.warnings.borrow_mut().truncate(mark);
        }
    }

    /// The statement's warnings and their total count (which may exceed the stored list).
    pub fn take_warnings(&mut self) -> (Vec<Warning>, usize) {
        (std::mem::take(self.warnings.get_mut()), self.warning_count.replace(0))
    }
}

impl FnContext for ExecCtx<'_> {
    fn now(&self) -> DateTime {
        self.env.now()
    }
    fn no_zero_date(&self) -> bool {
        self.env.sql_mode.no_zero_date
    }
    fn no_zero_in_date(&self) -> bool {
        self.env.sql_mode.no_zero_in_date
    }
    fn div_precision_increment(&self) -> u32 {
        self.env.vars.div_precision_increment()
    }
    fn sleep(&self, d: std::time::Duration) -> Result<(), SqlError> {
        crate::user_locks::sleep(d, self.env.interrupt)
    }
    fn user_locks(&self) -> Option<crate::user_locks::SessionLocks<'_>> {
        Some(crate::user_locks::SessionLocks {
            locks: &self.env.server.user_locks,
            connection_id: self.env.info.connection_id,
            interrupt: self.env.interrupt,
        })
    }
    fn time_zone(&self) -> crate::value::TimeZone {
        self.env.vars.time_zone()
    }
    fn current_database(&self) -> Option<String> {
        self.env.current_db.map(str::to_string)
    }
    fn user(&self) -> String {
        format!("{}@{}", self.env.info.user, self.env.info.host)
    }
    fn connection_id(&self) -> u64 {
        self.env.info.connection_id
    }
    fn last_insert_id(&self) -> u64 {
        self.last_insert_id.get()
    }
    fn found_rows(&self) -> u64 {
        self.env.found_rows
    }
    fn row_count(&self) -> i64 {
        self.env.row_count
    }
    fn random(&self) -> f64 {
        // xorshift64*: the session's RAND() sequence (no cryptographic claims, like MySQL's).
        let mut x = self.rng.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng.set(x);
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn version(&self) -> String {
        self.env.server.version()
    }
    fn strict(&self) -> bool {
        self.strict.get()
    }
    fn max_allowed_packet(&self) -> usize {
        self.env.vars.max_allowed_packet() as usize
    }
    fn error_for_division_by_zero(&self) -> bool {
        self.env.sql_mode.error_for_division_by_zero
    }
    fn warn(&self, code: u16, message: String) {
        self.push_warning(WarnLevel::Warning, code, message);
    }
    fn note(&self, code: u16, message: String) {
        self.push_warning(WarnLevel::Note, code, message);
    }
    fn sequence(&self, op: SequenceOp, db: &str, name: &str, args: &[Value]) -> Result<Value, SqlError> {
        let catalog = self.env.catalog.get(self.env.engine);
        let table =
            catalog.table(db, name).ok_or_else(|| crate::sequence::unknown_sequence(&format!("{db}.{name}")))?;
        let sequences = &self.env.server.sequences;
        let connection = self.env.info.connection_id;
        Ok(match op {
            SequenceOp::Next => Value::Int(sequences.next_value(self.env.engine, table, connection)?),
            SequenceOp::Last => sequences.last_value(table, connection).map_or(Value::Null, Value::Int),
            SequenceOp::Set => {
                let int = |v: Option<&Value>| v.and_then(crate::value::to_i64);
                let Some(n) = int(args.first()) else { return Ok(Value::Null) };
                let used = args.get(1).map_or(Some(1), crate::value::to_i64).unwrap_or(0) != 0;
                sequences.set_value(self.env.engine, table, n, used, int(args.get(2)))?.map_or(Value::Null, Value::Int)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Statement futures hold `&mut ExecCtx` across lock waits; the context must be `Send` so
    /// that nothing but the result sink keeps those futures from moving between threads.
    #[test]
    fn exec_ctx_is_send() {
        fn is_send<T: Send>() {}
        is_send::<ExecCtx<'static>>();
        is_send::<StmtEnv<'static>>();
    }
}
