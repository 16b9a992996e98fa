//! What the session keeps of a statement between its parsing and its runs: the compiled form
//! (plan or parsed statement), prepared statements, and the outcome of one run.
//!
//! A leaf below the rest of `session`: the plan caches, the dispatcher and the transaction code
//! all speak these types.

use std::sync::Arc;

use crate::dml::{DeletePlan, InsertPlan, UpdatePlan};
use crate::dml_multi::{MultiDeletePlan, MultiUpdatePlan};
use crate::load::LoadPlan;
use crate::parse::Stmt;
use crate::plan::QueryPlan;
use crate::value::SqlType;

/// Error codes after which the engine has already rolled back the whole transaction.
pub(super) const TRANSACTION_ROLLED_BACK: u16 = 1213;
/// Times a statement is bound again because a DDL moved the catalog between its binding and its
/// start (`Ran::Stale`) before it fails with 1412. Each needs a DDL to commit in that window of
/// microseconds, so this is never reached in practice; it only bounds the loop.
pub(super) const MAX_REBINDS: usize = 8;

/// Whether a compiled statement ran (successfully or not), or did not start because its plan
/// was bound to an older catalog: the caller binds it again against the current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ran {
    Done,
    Stale,
}

/// A statement ready to run: a plan for queries and DML, the parsed form for the rest.
#[derive(Debug)]
pub enum Compiled {
    Select(Arc<QueryPlan>),
    Insert(Arc<InsertPlan>),
    Update(Arc<UpdatePlan>),
    Delete(Arc<DeletePlan>),
    MultiUpdate(Arc<MultiUpdatePlan>),
    MultiDelete(Arc<MultiDeletePlan>),
    /// LOAD DATA, bound with the file's contents (never cached).
    Load(Arc<LoadPlan>),
    Other(Arc<Stmt>),
}

#[derive(Debug)]
pub struct CompiledStmt {
    pub compiled: Compiled,
    pub param_count: usize,
    /// Catalog version the plan was bound against (prepared statements re-plan when it moves).
    pub catalog_version: u64,
    pub uses_tables: bool,
    /// The base tables it reads or writes, (database, name), once each (LOCK TABLES checks).
    pub tables: Vec<crate::table_locks::TableName>,
    pub uses_info_schema: bool,
    /// Parameters were bound without types: the plan depends on the values bound at
    /// execution (result column types of a select list, and every bind-time decision that
    /// reads an operand's type: `c = ?` compares numbers for 0 and collated text for '0'), so
    /// prepared statements bind again with their parameters' types.
    pub plan_follows_param_types: bool,
    /// A top-level SELECT without a LIMIT of its own: sql_select_limit bounds its rows. False
    /// for the queries the session runs for itself (CHECKSUM TABLE, USING's values).
    pub select_limit_applies: bool,
}

impl CompiledStmt {
    pub(super) fn is_plan(&self) -> bool {
        !matches!(self.compiled, Compiled::Other(_))
    }
}

/// A statement kept by PREPARE / COM_STMT_PREPARE.
pub struct Prepared {
    /// The statement text (after executable-comment processing).
    pub(super) text: Arc<str>,
    /// The text as the client sent it (result column names quote it).
    pub(super) original: Arc<str>,
    pub(super) stmt: Stmt,
    /// The database current at PREPARE (names in the statement resolve there).
    pub(super) db: Option<String>,
    pub(super) compiled: Arc<CompiledStmt>,
    /// For a statement whose result column types depend on parameter values (`SELECT ?`,
    /// `SELECT ? + 1`): the plan bound with the parameter types of the last execution that
    /// needed it. MariaDB derives result metadata from the bound values at each execution.
    pub(super) typed: Option<(Vec<SqlType>, Arc<CompiledStmt>)>,
}
