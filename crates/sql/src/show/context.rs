//! What SHOW and information_schema read: the catalog snapshot, the engine's numbers, the
//! variables, the hooks and the session's diagnostics. A leaf of `show`: every SHOW file reads
//! through `Ctx`, and the entry points in `show.rs` build it from a `ShowContext`.

use selkie_storage::{Catalog, Engine, TableDef};

use crate::temporary::TemporaryTables;
use crate::types::{ServerHooks, Warning};
use crate::variables::{GlobalVariables, SessionVariables};

/// Everything SHOW and information_schema may read.
pub struct ShowContext<'a> {
    pub catalog: &'a Catalog,
    pub engine: &'a Engine,
    pub globals: &'a GlobalVariables,
    pub session: &'a SessionVariables,
    pub current_db: Option<&'a str>,
    pub hooks: &'a dyn ServerHooks,
    /// Warnings of the previous statement (SHOW WARNINGS / SHOW COUNT(*) WARNINGS).
    pub warnings: &'a [Warning],
    pub connection_id: u64,
    /// Session status counters (Com_*, Questions, ...) to merge into SHOW STATUS.
    pub session_status: &'a [(String, u64)],
    /// The session's temporary tables (SHOW CREATE TABLE, SHOW COLUMNS and SHOW INDEX find
    /// them before permanent tables).
    pub temporary: Option<&'a TemporaryTables>,
}

/// What SHOW reads from the storage engine. The engine implements it; unit tests substitute
/// fixed numbers so that catalog-driven output can be checked without opening a data directory.
pub(crate) trait EngineView {
    fn approx_row_count(&self, table: &TableDef) -> u64;
    fn next_auto_increment(&self, table: &TableDef) -> u64;
    fn status_rows(&self) -> Vec<(String, String)>;
}

impl EngineView for Engine {
    fn approx_row_count(&self, table: &TableDef) -> u64 {
        Engine::approx_row_count(self, table)
    }
    fn next_auto_increment(&self, table: &TableDef) -> u64 {
        Engine::peek_auto_increment(self, table)
    }
    fn status_rows(&self) -> Vec<(String, String)> {
        Engine::status(self).rows
    }
}

/// `ShowContext` with the engine behind `EngineView`.
pub(crate) struct Ctx<'a> {
    pub catalog: &'a Catalog,
    pub engine: &'a dyn EngineView,
    pub globals: &'a GlobalVariables,
    pub session: &'a SessionVariables,
    pub current_db: Option<&'a str>,
    pub hooks: &'a dyn ServerHooks,
    pub warnings: &'a [Warning],
    pub connection_id: u64,
    pub session_status: &'a [(String, u64)],
    pub temporary: Option<&'a TemporaryTables>,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(c: &ShowContext<'a>) -> Ctx<'a> {
        Ctx {
            catalog: c.catalog,
            engine: c.engine,
            globals: c.globals,
            session: c.session,
            current_db: c.current_db,
            hooks: c.hooks,
            warnings: c.warnings,
            connection_id: c.connection_id,
            session_status: c.session_status,
            temporary: c.temporary,
        }
    }
}
