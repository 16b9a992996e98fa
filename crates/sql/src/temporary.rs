//! Temporary tables (CREATE TEMPORARY TABLE): a session's own tables, which shadow a permanent
//! table of the same name for that session only, are not listed by SHOW TABLES or
//! information_schema, and are gone when the session ends.
//!
//! Each one is an ordinary engine table with a hidden name (`#sql-temp-<connection>-<n>`, in
//! the database the user named), so rows, indexes, transactions, spilling and crash recovery
//! are the engine's as for any table. The session maps the user's `(db, name)` to the hidden
//! name; the binder asks this map before the catalog, and hands the plan a copy of the table
//! definition carrying the user's name (what result metadata and messages show). Names that
//! start with `#sql` are MariaDB's names for internal tables and are hidden from listings.
//!
//! Creating or dropping one changes the engine catalog, whose version invalidates every cached
//! plan: a session that had bound `t` to the permanent table binds again and finds its
//! temporary `t` (and other sessions find theirs, or the permanent one). A crash leaves the
//! tables behind; the server drops every `#sql-temp-` table when it starts.

use std::collections::HashMap;
use std::sync::Arc;

use selkie_storage::{Catalog, TableDef};

/// Prefix of the engine names of temporary tables.
pub const TEMPORARY_PREFIX: &str = "#sql-temp-";

/// Whether a table name is one of the internal names listings leave out (MariaDB hides
/// `#sql...` tables the same way).
pub fn is_hidden_table(name: &str) -> bool {
    name.starts_with("#sql")
}

/// A session's temporary tables: `(db, name as written)` → engine name.
#[derive(Debug, Default)]
pub struct TemporaryTables {
    connection_id: u64,
    by_name: HashMap<(String, String), String>,
    next: u64,
}

impl TemporaryTables {
    pub fn new(connection_id: u64) -> TemporaryTables {
        TemporaryTables { connection_id, by_name: HashMap::new(), next: 1 }
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The engine name of the session's temporary `db.name`, if it has one.
    pub fn engine_name(&self, db: &str, name: &str) -> Option<&str> {
        self.by_name.get(&(db.to_string(), name.to_string())).map(String::as_str)
    }

    /// The session's temporary `db.name` as the binder should see it: the engine's definition
    /// under the user's name.
    pub fn resolve(&self, catalog: &Catalog, db: &str, name: &str) -> Option<Arc<TableDef>> {
        let engine_name = self.engine_name(db, name)?;
        let def = catalog.table(db, engine_name)?;
        let mut shown = TableDef::clone(def);
        shown.name = name.to_string();
        Some(Arc::new(shown))
    }

    /// A fresh engine name for a new temporary table (not yet registered).
    pub fn allocate(&mut self) -> String {
        let n = self.next;
        self.next += 1;
        format!("{TEMPORARY_PREFIX}{}-{n}", self.connection_id)
    }

    /// Registers a created temporary table.
    pub fn insert(&mut self, db: &str, name: &str, engine_name: String) {
        self.by_name.insert((db.to_string(), name.to_string()), engine_name);
    }

    /// Forgets a temporary table (it was dropped); returns its engine name.
    pub fn remove(&mut self, db: &str, name: &str) -> Option<String> {
        self.by_name.remove(&(db.to_string(), name.to_string()))
    }

    /// Forgets all of them, returning `(db, engine name)` of each (the session ends).
    pub fn take_all(&mut self) -> Vec<(String, String)> {
        self.by_name.drain().map(|((db, _), e)| (db, e)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_per_connection_and_hidden() {
        let mut t = TemporaryTables::new(7);
        let a = t.allocate();
        let b = t.allocate();
        assert_eq!(a, "#sql-temp-7-1");
        assert_ne!(a, b);
        assert!(is_hidden_table(&a));
        assert!(!is_hidden_table("sql_temp"));
        t.insert("db", "t", a.clone());
        assert_eq!(t.engine_name("db", "t"), Some(a.as_str()));
        assert_eq!(t.engine_name("db", "T"), None, "table names are case sensitive");
        assert_eq!(t.remove("db", "t"), Some(a));
        assert!(t.is_empty());
    }
}
