//! Physical query plans: what the binder/planner produce and the executor runs.
//!
//! A plan is immutable and holds no per-execution state, so a prepared statement keeps one and
//! re-executes it with new parameter values (key ranges are built from expressions when a scan
//! opens). Rows are `Vec<Value>`; every node documents the layout of the rows it produces.
//!
//! Bound expressions (`Expr`) are plan types too, in this file with the plan nodes: a plan
//! node holds expressions and an expression can hold a subquery's plan, so the two types are
//! defined together. Tree walks over expressions are in `expr`, their evaluation in
//! `exec::eval`. `access` chooses access paths, `keys` turns key bounds into engine ranges.

pub mod access;
mod expr;
pub mod keys;

use std::cmp::Ordering;
use std::sync::Arc;

use selkie_storage::{LockMode, TableDef};

use crate::charset::Collation;
use crate::types::{ColumnDefinition, Value};
use crate::value::{AggFunc, ArithOp, CastTarget, IntervalUnit, LikePattern, ScalarFunction, SqlType};
use crate::variables::VarScope;

/// A complete SELECT (or UNION, or derived table body).
#[derive(Debug)]
pub struct QueryPlan {
    /// Produces rows of exactly `columns.len()` values.
    pub root: Plan,
    pub columns: Vec<OutputColumn>,
    /// `columns`' metadata, kept ready to hand to the result sink on every execution.
    pub metas: Vec<ColumnDefinition>,
    /// SELECT ... FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE.
    pub lock: Option<LockMode>,
    /// How that locking read waits for rows other transactions hold.
    pub lock_wait: LockWait,
    /// SQL_CALC_FOUND_ROWS (top-level SELECT only): the LIMIT is not in `root`; the caller
    /// applies it while counting every row for FOUND_ROWS().
    pub calc_found_rows: Option<LimitSpec>,
}

impl QueryPlan {
    pub fn new(
        root: Plan,
        columns: Vec<OutputColumn>,
        lock: Option<LockMode>,
        calc_found_rows: Option<LimitSpec>,
    ) -> QueryPlan {
        let metas = columns.iter().map(|c| c.meta.clone()).collect();
        QueryPlan { root, columns, metas, lock, lock_wait: LockWait::Default, calc_found_rows }
    }
}

/// A locking read's `WAIT n` / `NOWAIT` / `SKIP LOCKED` (MariaDB 10.3+ / 10.6+).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockWait {
    /// Up to the session's innodb_lock_wait_timeout.
    Default,
    /// WAIT n.
    Timeout(std::time::Duration),
    /// NOWAIT: 1205 at once.
    NoWait,
    /// SKIP LOCKED: rows other transactions hold are left out.
    SkipLocked,
}

/// RETURNING of INSERT / REPLACE / DELETE (MariaDB 10.5+): expressions evaluated on each row
/// the statement wrote or removed (a full table row), sent as a result set instead of an OK.
#[derive(Debug)]
pub struct Returning {
    pub exprs: Vec<Expr>,
    pub metas: Vec<ColumnDefinition>,
}

#[derive(Clone, Debug)]
pub struct OutputColumn {
    pub meta: ColumnDefinition,
    pub ty: SqlType,
}

#[derive(Debug)]
pub enum Plan {
    /// One row with no columns: SELECT without FROM, FROM DUAL.
    Dual,
    /// No rows (a WHERE that is constant FALSE); `width` values per row. The binder does not
    /// fold WHERE to it yet; the executor and EXPLAIN already handle it.
    #[allow(dead_code)]
    Empty {
        width: usize,
    },
    /// A base table; rows are the table's columns in table order.
    Access(Box<TableAccess>),
    /// A derived table or view body, executed once per opening and buffered.
    Derived(Arc<QueryPlan>),
    /// A sequence's one row, made up from its options and state when opened.
    Sequence(Arc<TableDef>),
    /// An information_schema table, materialized from the catalog when opened.
    InfoSchema {
        table: String,
        width: usize,
    },
    Filter {
        input: Box<Plan>,
        predicate: Expr,
    },
    /// Rows become the expressions' values (evaluated on the input row).
    Project {
        input: Box<Plan>,
        exprs: Vec<Expr>,
    },
    Join(Box<JoinPlan>),
    Aggregate(Box<AggregatePlan>),
    /// Window functions: input rows followed by one value per function (`WindowPlan`).
    Window(Box<WindowPlan>),
    /// Keeps the first row of each distinct value of the first `key_width` columns.
    Distinct {
        input: Box<Plan>,
        key_width: usize,
        /// Per key column: the `_ci` collation its strings compare in (empty: all as bytes).
        collations: Vec<Option<Collation>>,
    },
    /// Sorts by `keys`; with `limit` only the first offset+count rows are kept (top-N).
    Sort {
        input: Box<Plan>,
        keys: Vec<SortKey>,
        limit: Option<LimitSpec>,
    },
    Limit {
        input: Box<Plan>,
        limit: LimitSpec,
    },
    /// WITH RECURSIVE: the anchor's rows, then each iteration's (`RecursiveCte`).
    RecursiveCte(Box<RecursiveCte>),
    /// The current working table of the recursive CTE being iterated in `slot`.
    WorkTable {
        slot: usize,
    },
    /// INTERSECT / EXCEPT [ALL] (`SetOpPlan`).
    SetOp(Box<SetOpPlan>),
    /// Rows of each input in turn (UNION ALL); all inputs have the same width.
    Concat(Vec<Plan>),
    /// Truncates rows to `width` values (drops hidden ORDER BY columns).
    Trim {
        input: Box<Plan>,
        width: usize,
    },
}

/// `left INTERSECT right` / `left EXCEPT right`: the left rows that do (INTERSECT) or do not
/// (EXCEPT) equal a right row, in left order. DISTINCT keeps one of each; ALL keeps a row
/// min(m, n) times (INTERSECT) or max(m - n, 0) times (EXCEPT) for m left and n right copies.
#[derive(Debug)]
pub struct SetOpPlan {
    pub left: Plan,
    pub right: Plan,
    pub intersect: bool,
    pub all: bool,
    /// Per column: the `_ci` collation its strings compare in (empty: all as bytes).
    pub collations: Vec<Option<Collation>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortKey {
    pub column: usize,
    pub desc: bool,
}

/// LIMIT [offset,] count: literals or `?` parameters, evaluated when the plan opens.
#[derive(Clone, Debug, PartialEq)]
pub struct LimitSpec {
    pub count: Option<Expr>,
    pub offset: Option<Expr>,
}

/// How one table is read: an index (0 = primary key, i = `secondary[i-1]`), the key ranges on
/// it, and the residual filter every row must pass.
#[derive(Debug)]
pub struct TableAccess {
    pub table: Arc<TableDef>,
    pub index: usize,
    /// Leading index columns bound to values (`col = v`, `col IN (...)`, `col IS NULL`).
    pub eq: Vec<KeyPart>,
    /// A range on the index column after `eq`.
    pub tail: Option<TailRange>,
    /// Scan the index backwards (ORDER BY ... DESC satisfied by the index).
    pub reverse: bool,
    /// Evaluated on the table row (table column order). Always re-checks every predicate the
    /// key ranges came from, so ranges only need to be a superset of the matching rows.
    pub filter: Option<Expr>,
}

impl TableAccess {
    /// True if `eq` binds every primary key column to a single value: at most one row, read
    /// with `Transaction::get`.
    pub fn is_pk_point(&self) -> bool {
        self.index == 0
            && !self.table.has_hidden_pk()
            && self.eq.len() == self.table.primary.columns.len()
            && self.eq.iter().all(|p| matches!(p, KeyPart::Value(_)))
    }

    /// Columns (table positions) of the scanned index.
    pub fn index_columns(&self) -> Vec<usize> {
        index_def(&self.table, self.index).columns.iter().map(|c| c.column).collect()
    }
}

pub fn index_def(table: &TableDef, index: usize) -> &selkie_storage::IndexDef {
    if index == 0 {
        &table.primary
    } else {
        &table.secondary[index - 1]
    }
}

/// Values a leading index column must equal. Expressions are evaluated on the *key row*: the
/// driving row of an index nested-loop join, or an empty row for a single-table access.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyPart {
    Value(Expr),
    In(Vec<Expr>),
    IsNull,
}

#[derive(Clone, Debug, PartialEq)]
pub struct KeyBound {
    pub value: Expr,
    pub inclusive: bool,
}

/// Ranges over the index column following the equality prefix.
#[derive(Clone, Debug, PartialEq)]
pub enum TailRange {
    /// One interval; a missing side is unbounded.
    Range { lower: Option<KeyBound>, upper: Option<KeyBound> },
    /// A disjunction of intervals on the same column (`k BETWEEN a AND b OR k BETWEEN c AND d`).
    Multi(Vec<(Option<KeyBound>, Option<KeyBound>)>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    /// LEFT [OUTER] JOIN: unmatched left rows get NULLs on the right.
    Left,
    /// RIGHT [OUTER] JOIN: unmatched right rows get NULLs on the left.
    Right,
}

/// A join of two inputs. Output rows are always `left ++ right` (the FROM clause's order), so
/// column positions bound against the FROM clause stay valid whichever side drives.
#[derive(Debug)]
pub struct JoinPlan {
    pub kind: JoinKind,
    pub left_width: usize,
    pub right_width: usize,
    /// The side read first; for RIGHT joins it is the right input.
    pub driver: Plan,
    pub inner: InnerSide,
    /// Join condition evaluated on the combined row (left ++ right); None = always true.
    pub condition: Option<Expr>,
}

impl JoinPlan {
    pub fn driver_is_left(&self) -> bool {
        self.kind != JoinKind::Right
    }
}

#[derive(Debug)]
pub enum InnerSide {
    /// For each driving row, read the inner table through an index; the access's key
    /// expressions are evaluated on the driving row.
    Lookup(Box<TableAccess>),
    /// Build a hash table on the inner input once; probe it with `driver_keys` (evaluated on
    /// the driving row) against `inner_keys` (evaluated on the inner row).
    Hash { plan: Box<Plan>, driver_keys: Vec<Expr>, inner_keys: Vec<Expr> },
    /// Buffer the inner input once and test every pair.
    Loop(Box<Plan>),
}

/// GROUP BY / aggregate functions. Output rows: group-by values, then aggregate results, then
/// the group's first input row (for columns MySQL lets a query select without grouping them).
#[derive(Debug)]
pub struct AggregatePlan {
    pub input: Plan,
    pub input_width: usize,
    pub group_by: Vec<Expr>,
    pub aggs: Vec<AggSpec>,
    /// Emit groups sorted by the GROUP BY values (MariaDB's implicit GROUP BY order).
    pub sort_groups: bool,
    /// Per GROUP BY value: the `_ci` collation its strings group and sort in (None: as bytes).
    pub group_collations: Vec<Option<Collation>>,
    /// WITH ROLLUP: groups in GROUP BY order, each followed by the super-aggregate rows of the
    /// prefixes of the GROUP BY list it ends (the rolled-up values NULL), the grand total last.
    pub rollup: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AggSpec {
    pub func: AggFunc,
    /// Arguments (empty for COUNT(*); several only for COUNT(DISTINCT a, b) and GROUP_CONCAT).
    pub args: Vec<Expr>,
    pub arg_type: SqlType,
    pub distinct: bool,
    /// GROUP_CONCAT's SEPARATOR.
    pub separator: Vec<u8>,
    /// GROUP_CONCAT's ORDER BY, on the argument values: (argument position, descending).
    pub order: Vec<(Expr, bool)>,
}

// ---- window functions ----
//
// Window functions' plans: what one `f(...) OVER (PARTITION BY ... ORDER BY ... frame)`
// computes, with the frame already resolved to MariaDB's defaults by the binder.
//
// A `Plan::Window` node sits between the FROM row (or the aggregate's output row) and the
// select list's projection. Its output rows are its input rows followed by one value per
// window function, in `WindowPlan::funcs` order; the binder turns the select list's references
// to window functions into those columns.

#[derive(Debug)]
pub struct WindowPlan {
    pub input: Plan,
    pub funcs: Vec<WindowSpec>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum WindowFunc {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    /// NTILE(n): `args[0]` is n.
    Ntile,
    /// LAG(e [, offset]) / LEAD(e [, offset]): `args` = e, offset.
    Lag,
    Lead,
    FirstValue,
    LastValue,
    /// NTH_VALUE(e, n): `args` = e, n.
    NthValue,
    /// An aggregate over the frame: `args[0]` is its argument (none for COUNT(*)).
    Aggregate {
        func: AggFunc,
        arg_type: SqlType,
    },
}

impl WindowFunc {
    /// Functions that read the frame; the others read the whole partition in order.
    pub fn uses_frame(&self) -> bool {
        matches!(
            self,
            WindowFunc::FirstValue | WindowFunc::LastValue | WindowFunc::NthValue | WindowFunc::Aggregate { .. }
        )
    }
}

/// One end of a frame. Offsets are non-negative constants (checked when the window opens).
#[derive(Clone, Debug, PartialEq)]
pub enum FrameBound {
    UnboundedPreceding,
    Preceding(Expr),
    CurrentRow,
    Following(Expr),
    UnboundedFollowing,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// ROWS (physical offsets) or RANGE (offsets on the single ORDER BY value; CURRENT ROW
    /// means the row's peers).
    pub rows: bool,
    pub start: FrameBound,
    pub end: FrameBound,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WindowSpec {
    pub func: WindowFunc,
    /// Evaluated on the input row.
    pub args: Vec<Expr>,
    /// PARTITION BY values, on the input row (strings as their collation's sort keys).
    pub partition: Vec<Expr>,
    /// ORDER BY values and directions (descending = true), on the input row.
    pub order: Vec<(Expr, bool)>,
    pub frame: Frame,
}

// ---- WITH RECURSIVE ----
//
// WITH RECURSIVE: the plan of a recursive common table expression.
//
// The anchor parts run once; their rows are the first working table. Each iteration runs
// the recursive parts with their references to the CTE reading the previous iteration's new
// rows (`Plan::WorkTable` of the same slot) and stops when an iteration adds no row or after
// @@max_recursive_iterations iterations (warning 1931), as MariaDB does.

#[derive(Debug)]
pub struct RecursiveCte {
    /// The anchor parts (UNION [ALL] of the branches that do not read the CTE).
    pub anchor: Plan,
    /// The recursive parts, run once per iteration.
    pub recursive: Plan,
    /// `ExecCtx::work_tables` slot the recursive parts read.
    pub slot: usize,
    /// UNION DISTINCT somewhere in the definition: a row already produced is not produced (nor
    /// iterated on) again.
    pub distinct: bool,
    /// The CTE's column types (the anchor's): recursive rows are stored into them.
    pub types: Vec<SqlType>,
    /// The CTE's name, for MariaDB's errors.
    pub names: Vec<String>,
}

/// True if running `plan` may read table `id`: a scan or lookup of it anywhere, in derived
/// tables, join inner sides and subqueries included. INSERT ... SELECT streams its source only
/// when this is false (otherwise the source could meet the rows the statement inserts).
pub fn reads_table(plan: &Plan, id: selkie_storage::TableId) -> bool {
    let exprs_read = |exprs: &mut dyn Iterator<Item = &Expr>| {
        for e in exprs {
            if expr_reads_table(e, id) {
                return true;
            }
        }
        false
    };
    match plan {
        Plan::Dual | Plan::Empty { .. } | Plan::InfoSchema { .. } | Plan::Sequence(_) => false,
        Plan::Access(a) => access_reads_table(a, id),
        Plan::Derived(q) => reads_table(&q.root, id),
        Plan::Filter { input, predicate } => expr_reads_table(predicate, id) || reads_table(input, id),
        Plan::Project { input, exprs } => exprs_read(&mut exprs.iter()) || reads_table(input, id),
        Plan::Join(j) => {
            let inner = match &j.inner {
                InnerSide::Lookup(a) => access_reads_table(a, id),
                InnerSide::Hash { plan, driver_keys, inner_keys } => {
                    reads_table(plan, id) || exprs_read(&mut driver_keys.iter().chain(inner_keys))
                }
                InnerSide::Loop(plan) => reads_table(plan, id),
            };
            inner || reads_table(&j.driver, id) || j.condition.as_ref().is_some_and(|c| expr_reads_table(c, id))
        }
        Plan::Aggregate(a) => {
            reads_table(&a.input, id)
                || exprs_read(&mut a.group_by.iter())
                || a.aggs.iter().any(|s| exprs_read(&mut s.args.iter().chain(s.order.iter().map(|(e, _)| e))))
        }
        Plan::Window(w) => {
            reads_table(&w.input, id)
                || w.funcs
                    .iter()
                    .any(|f| exprs_read(&mut f.args.iter().chain(&f.partition).chain(f.order.iter().map(|(e, _)| e))))
        }
        Plan::Distinct { input, .. } | Plan::Trim { input, .. } => reads_table(input, id),
        Plan::Sort { input, limit, .. } => {
            reads_table(input, id) || limit.as_ref().is_some_and(|l| limit_reads_table(l, id))
        }
        Plan::Limit { input, limit } => reads_table(input, id) || limit_reads_table(limit, id),
        Plan::Concat(inputs) => inputs.iter().any(|p| reads_table(p, id)),
        Plan::RecursiveCte(r) => reads_table(&r.anchor, id) || reads_table(&r.recursive, id),
        Plan::SetOp(o) => reads_table(&o.left, id) || reads_table(&o.right, id),
        Plan::WorkTable { .. } => false,
    }
}

fn limit_reads_table(l: &LimitSpec, id: selkie_storage::TableId) -> bool {
    l.count.iter().chain(&l.offset).any(|e| expr_reads_table(e, id))
}

fn access_reads_table(a: &TableAccess, id: selkie_storage::TableId) -> bool {
    if a.table.id == id {
        return true;
    }
    let key_exprs = a.eq.iter().flat_map(|p| match p {
        KeyPart::Value(e) => std::slice::from_ref(e),
        KeyPart::In(list) => list.as_slice(),
        KeyPart::IsNull => &[],
    });
    let bounds: Vec<&Expr> = match &a.tail {
        None => Vec::new(),
        Some(TailRange::Range { lower, upper }) => lower.iter().chain(upper).map(|b| &b.value).collect(),
        Some(TailRange::Multi(list)) => list.iter().flat_map(|(l, u)| l.iter().chain(u)).map(|b| &b.value).collect(),
    };
    key_exprs.chain(bounds).chain(&a.filter).any(|e| expr_reads_table(e, id))
}

/// True if a subquery inside `e` may read table `id`.
pub fn expr_reads_table(e: &Expr, id: selkie_storage::TableId) -> bool {
    e.any(&mut |x| matches!(x, Expr::Subquery(sq) if reads_table(&sq.plan.root, id)))
}

// ---- bound expressions ----

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `<=>`: NULL-safe equality (never NULL).
    NullSafeEq,
}

impl CmpOp {
    /// Whether the operator holds for two operands that compare as `ord`.
    pub fn holds(self, ord: Ordering) -> bool {
        match self {
            CmpOp::Eq | CmpOp::NullSafeEq => ord == Ordering::Equal,
            CmpOp::Ne => ord != Ordering::Equal,
            CmpOp::Lt => ord == Ordering::Less,
            CmpOp::Le => ord != Ordering::Greater,
            CmpOp::Gt => ord == Ordering::Greater,
            CmpOp::Ge => ord != Ordering::Less,
        }
    }

    /// The operator with its operands swapped (`a < b` ⇔ `b > a`).
    pub fn flip(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            other => other,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitOp {
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

/// A scalar function reference, compared by identity (the registry entries are statics).
#[derive(Clone, Copy)]
pub struct FuncRef(pub &'static ScalarFunction);

impl PartialEq for FuncRef {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl std::fmt::Debug for FuncRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

/// A LIKE pattern compiled once at bind time when the pattern is a constant.
#[derive(Clone)]
pub struct CompiledLike(pub Arc<LikePattern>);

impl PartialEq for CompiledLike {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for CompiledLike {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LikePattern")
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum SubqueryKind {
    /// `(SELECT x ...)`: one column, at most one row; NULL if empty.
    Scalar,
    /// `[NOT] EXISTS (SELECT ...)`.
    Exists { negated: bool },
    /// `expr [NOT] IN (SELECT x ...)`.
    In { expr: Box<Expr>, negated: bool },
}

/// A subquery inside an expression.
#[derive(Clone, Debug)]
pub struct Subquery {
    pub plan: Arc<QueryPlan>,
    pub kind: SubqueryKind,
    /// True if the subquery reads columns of an enclosing query (it is then re-executed per
    /// row); otherwise its result is computed once per statement and cached.
    pub correlated: bool,
    /// Slot of the per-statement result cache.
    pub cache_slot: usize,
    /// Where the enclosing query's FROM row starts in the row this expression is evaluated on
    /// (non-zero after aggregation, whose output rows end with the group's first input row).
    pub outer_offset: usize,
}

impl PartialEq for Subquery {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.plan, &other.plan) && self.kind == other.kind && self.outer_offset == other.outer_offset
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Literal(Value),
    /// A column of the row being evaluated.
    Column(usize),
    /// A column of an enclosing query's row (correlated subquery): `up` = 1 is the immediately
    /// enclosing query.
    Outer {
        up: usize,
        index: usize,
    },
    /// A `?` parameter (prepared statements), 0-based.
    Param(usize),
    UserVar(Arc<str>),
    /// `@name := expr`; `assigned` (from the expression's type) says what the variable keeps.
    SetUserVar {
        name: Arc<str>,
        expr: Box<Expr>,
        assigned: crate::user_variables::Assigned,
    },
    SysVar {
        name: Arc<str>,
        scope: VarScope,
    },
    Not(Box<Expr>),
    Neg(Box<Expr>),
    BitNot(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Xor(Box<Expr>, Box<Expr>),
    Cmp {
        op: CmpOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    Arith {
        op: ArithOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    Bit {
        op: BitOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    IsNull {
        expr: Box<Expr>,
        negated: bool,
    },
    /// `expr IS [NOT] TRUE|FALSE`.
    IsBool {
        expr: Box<Expr>,
        value: bool,
        negated: bool,
    },
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        escape: u8,
        negated: bool,
        compiled: Option<CompiledLike>,
        /// A collation that weighs characters (`_ci`): matching compares weights. None: bytes.
        collation: Option<Collation>,
    },
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
    Cast {
        expr: Box<Expr>,
        target: CastTarget,
    },
    Func {
        func: FuncRef,
        args: Vec<Expr>,
    },
    DateAdd {
        base: Box<Expr>,
        amount: Box<Expr>,
        unit: IntervalUnit,
        negate: bool,
    },
    /// LAST_INSERT_ID() / LAST_INSERT_ID(expr) (the latter sets the session value).
    LastInsertId(Option<Box<Expr>>),
    Subquery(Box<Subquery>),
    /// An aggregate's result; only exists between binding and the post-aggregation rewrite.
    AggRef(usize),
    /// A window function's result; only exists between binding and the select list's
    /// rewrite onto the window node's output row.
    WindowRef(usize),
    /// A string's sort key under a collation that is not byte order (`_ci`, latin1): the
    /// binder wraps both sides of a comparison, and ORDER BY keys, so that byte comparison of
    /// the keys is the collation's comparison. Other values pass through.
    SortKey {
        expr: Box<Expr>,
        collation: Collation,
    },
}
