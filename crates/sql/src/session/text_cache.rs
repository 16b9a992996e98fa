//! Per-session cache of plans for auto-parameterized text statements (see
//! `parse::autoparam`). Per session so that the statement path shares nothing between
//! connections; bounded so that 1,024 connections cannot grow it without limit.

use std::collections::HashMap;
use std::sync::Arc;

use super::compiled::CompiledStmt;
use crate::types::Value;

/// Statement shapes kept per session. sysbench's OLTP scripts use 10 per table.
pub const TEXT_PLAN_CACHE_ENTRIES: usize = 128;

/// What a plan was bound under, besides its text: names resolve in the current database, and
/// these sql_mode flags change how text binds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub db: Option<String>,
    pub pipes_as_concat: bool,
    pub only_full_group_by: bool,
    /// The collation string literals were bound with.
    pub collation_connection: u16,
    /// div_precision_increment: the scale of `/` results.
    pub div_precision_increment: u32,
}

/// A `Binding` borrowed from the session, for lookups (no allocation per statement).
#[derive(Clone, Copy, Debug)]
pub struct BindingRef<'a> {
    pub db: Option<&'a str>,
    pub pipes_as_concat: bool,
    pub only_full_group_by: bool,
    pub collation_connection: u16,
    pub div_precision_increment: u32,
}

impl BindingRef<'_> {
    pub fn to_owned(self) -> Binding {
        Binding {
            db: self.db.map(str::to_string),
            pipes_as_concat: self.pipes_as_concat,
            only_full_group_by: self.only_full_group_by,
            collation_connection: self.collation_connection,
            div_precision_increment: self.div_precision_increment,
        }
    }

    fn matches(&self, b: &Binding) -> bool {
        self.db == b.db.as_deref()
            && self.pipes_as_concat == b.pipes_as_concat
            && self.only_full_group_by == b.only_full_group_by
            && self.collation_connection == b.collation_connection
            && self.div_precision_increment == b.div_precision_increment
    }
}

#[derive(Clone, Debug)]
pub enum Entry {
    Plan(Arc<CompiledStmt>),
    /// The parameterized form does not parse or bind; use the normal path.
    Uncacheable,
}

struct Slot {
    binding: Binding,
    /// The kinds of the constants it was bound for: `c = 0` and `c = '0'` share a skeleton
    /// but not a plan (a number against a string column compares numbers, a string collated
    /// text).
    param_kinds: Vec<ParamKind>,
    entry: Entry,
    last_used: u64,
}

pub enum Lookup {
    Hit(Arc<CompiledStmt>),
    Uncacheable,
    Miss,
}

/// What of a constant's type a plan bound with it depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Null,
    Int,
    UInt,
    Decimal,
    Double,
    Bytes,
    Temporal,
}

impl ParamKind {
    pub fn of(v: &Value) -> ParamKind {
        match v {
            Value::Null => ParamKind::Null,
            Value::Int(_) => ParamKind::Int,
            Value::UInt(_) => ParamKind::UInt,
            Value::Decimal(_) => ParamKind::Decimal,
            Value::Double(_) => ParamKind::Double,
            Value::Bytes(_) => ParamKind::Bytes,
            Value::Date(_) | Value::DateTime(_) => ParamKind::Temporal,
        }
    }
}

#[derive(Default)]
pub struct TextPlanCache {
    slots: HashMap<String, Slot>,
    clock: u64,
}

impl TextPlanCache {
    pub fn lookup(&mut self, skeleton: &str, binding: &BindingRef, params: &[Value], catalog_version: u64) -> Lookup {
        self.clock += 1;
        let Some(slot) = self.slots.get_mut(skeleton) else {
            return Lookup::Miss;
        };
        let same_kinds = slot.param_kinds.len() == params.len()
            && slot.param_kinds.iter().zip(params).all(|(k, v)| *k == ParamKind::of(v));
        if !same_kinds || !binding.matches(&slot.binding) {
            return Lookup::Miss;
        }
        slot.last_used = self.clock;
        match &slot.entry {
            Entry::Plan(c) if c.catalog_version == catalog_version => Lookup::Hit(c.clone()),
            // A DDL since: bind again (an uncacheable shape may have become usable, too).
            Entry::Plan(_) => Lookup::Miss,
            Entry::Uncacheable => Lookup::Uncacheable,
        }
    }

    pub fn insert(&mut self, skeleton: &str, binding: Binding, params: &[Value], entry: Entry) {
        if self.slots.len() >= TEXT_PLAN_CACHE_ENTRIES && !self.slots.contains_key(skeleton) {
            // Evict the least recently used shape (a linear scan over a small map, on misses only).
            if let Some(oldest) = self.slots.iter().min_by_key(|(_, s)| s.last_used).map(|(k, _)| k.clone()) {
                self.slots.remove(&oldest);
            }
        }
        self.clock += 1;
        let param_kinds = params.iter().map(ParamKind::of).collect();
        self.slots.insert(skeleton.to_string(), Slot { binding, param_kinds, entry, last_used: self.clock });
        debug_assert!(self.slots.len() <= TEXT_PLAN_CACHE_ENTRIES);
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::Stmt;
    use crate::session::compiled::Compiled;

    fn plan(version: u64) -> Arc<CompiledStmt> {
        Arc::new(CompiledStmt {
            compiled: Compiled::Other(Arc::new(Stmt::SetCharset)),
            param_count: 0,
            catalog_version: version,
            uses_tables: false,
            tables: Vec::new(),
            uses_info_schema: false,
            plan_follows_param_types: false,
            select_limit_applies: false,
        })
    }

    fn binding(db: &str) -> Binding {
        Binding {
            db: Some(db.to_string()),
            pipes_as_concat: false,
            only_full_group_by: false,
            collation_connection: 45,
            div_precision_increment: 4,
        }
    }

    fn key(db: &str) -> BindingRef<'_> {
        BindingRef {
            db: Some(db),
            pipes_as_concat: false,
            only_full_group_by: false,
            collation_connection: 45,
            div_precision_increment: 4,
        }
    }

    #[test]
    fn hits_need_same_binding_and_catalog_version() {
        let mut c = TextPlanCache::default();
        assert!(matches!(c.lookup("s", &key("a"), &[], 1), Lookup::Miss));
        c.insert("s", binding("a"), &[], Entry::Plan(plan(1)));
        assert!(matches!(c.lookup("s", &key("a"), &[], 1), Lookup::Hit(_)));
        assert!(matches!(c.lookup("s", &key("b"), &[], 1), Lookup::Miss));
        assert!(matches!(c.lookup("s", &key("a"), &[], 2), Lookup::Miss));
        c.insert("u", binding("a"), &[], Entry::Uncacheable);
        assert!(matches!(c.lookup("u", &key("a"), &[], 1), Lookup::Uncacheable));
        // One skeleton, constants of other kinds: another plan (`c = ?` with 0, then '0').
        c.insert("p", binding("a"), &[Value::Int(0)], Entry::Plan(plan(1)));
        assert!(matches!(c.lookup("p", &key("a"), &[Value::Int(7)], 1), Lookup::Hit(_)));
        assert!(matches!(c.lookup("p", &key("a"), &[Value::Bytes(b"0".to_vec())], 1), Lookup::Miss));
    }

    #[test]
    fn bounded_with_least_recently_used_eviction() {
        let mut c = TextPlanCache::default();
        for i in 0..TEXT_PLAN_CACHE_ENTRIES {
            c.insert(&format!("s{i}"), binding("a"), &[], Entry::Plan(plan(1)));
        }
        // Touch s0 so that s1 is the oldest.
        assert!(matches!(c.lookup("s0", &key("a"), &[], 1), Lookup::Hit(_)));
        c.insert("new", binding("a"), &[], Entry::Plan(plan(1)));
        assert_eq!(c.len(), TEXT_PLAN_CACHE_ENTRIES);
        assert!(matches!(c.lookup("s0", &key("a"), &[], 1), Lookup::Hit(_)));
        assert!(matches!(c.lookup("s1", &key("a"), &[], 1), Lookup::Miss));
        assert!(matches!(c.lookup("new", &key("a"), &[], 1), Lookup::Hit(_)));
    }
}
