//! EXPLAIN SELECT: MariaDB's tabular plan description (one row per table read), derived from
//! the plan the statement would run.

use selkie_storage::Engine;

use crate::bind::computed_meta;
use crate::plan::Expr;
use crate::plan::{index_def, InnerSide, KeyPart, Plan, QueryPlan, TableAccess};
use crate::types::{ColumnDefinition, Value};
use crate::value::SqlType;

pub const COLUMNS: [&str; 10] =
    ["id", "select_type", "table", "type", "possible_keys", "key", "key_len", "ref", "rows", "Extra"];

pub fn columns() -> Vec<ColumnDefinition> {
    COLUMNS
        .iter()
        .map(|n| {
            let ty = match *n {
                "id" | "rows" => SqlType::Int { bits: 64, unsigned: true },
                _ => SqlType::text(255, false),
            };
            computed_meta(n, &ty, true)
        })
        .collect()
}

struct Walker<'e> {
    engine: &'e Engine,
    rows: Vec<Vec<Value>>,
    next_id: u64,
}

fn text(s: &str) -> Value {
    Value::Bytes(s.as_bytes().to_vec())
}

fn opt_text(s: Option<String>) -> Value {
    s.map_or(Value::Null, |s| Value::Bytes(s.into_bytes()))
}

impl Walker<'_> {
    fn access_row(&mut self, id: u64, select_type: &str, a: &TableAccess, lookup: bool, extra: &mut Vec<&'static str>) {
        let def = index_def(&a.table, a.index);
        let single = |p: &KeyPart| matches!(p, KeyPart::Value(_) | KeyPart::IsNull);
        let has_in = a.eq.iter().any(|p| matches!(p, KeyPart::In(_)));
        let (kind, key) = if a.is_pk_point() && !lookup {
            ("const", Some(def.name.clone()))
        } else if !a.eq.is_empty() && a.eq.iter().all(single) && a.tail.is_none() {
            let full_unique = (def.unique || def.primary) && a.eq.len() == def.columns.len();
            (
                if full_unique && lookup {
                    "eq_ref"
                } else if full_unique {
                    "const"
                } else {
                    "ref"
                },
                Some(def.name.clone()),
            )
        } else if has_in || a.tail.is_some() || !a.eq.is_empty() {
            ("range", Some(def.name.clone()))
        } else if a.index != 0 {
            ("index", Some(def.name.clone()))
        } else {
            ("ALL", None)
        };
        let reference = if lookup && kind != "range" {
            Some("func".to_string())
        } else if matches!(kind, "const" | "ref") {
            Some(a.eq.iter().map(|_| "const").collect::<Vec<_>>().join(","))
        } else {
            None
        };
        let rows = match kind {
            "const" | "eq_ref" => 1,
            _ => self.engine.approx_row_count(&a.table).max(1),
        };
        if a.filter.as_ref().is_some_and(|f| !matches!(f, Expr::Literal(_))) {
            extra.insert(0, "Using where");
        }
        let extra_text = if extra.is_empty() { None } else { Some(extra.join("; ")) };
        extra.clear();
        self.rows.push(vec![
            Value::UInt(id),
            text(select_type),
            text(&a.table.name),
            text(kind),
            opt_text(key.clone()),
            opt_text(key),
            Value::Null,
            opt_text(reference),
            Value::UInt(rows),
            opt_text(extra_text),
        ]);
    }

    fn walk(&mut self, p: &Plan, id: u64, select_type: &str, extra: &mut Vec<&'static str>) {
        match p {
            Plan::Dual | Plan::Empty { .. } => {
                let note = if matches!(p, Plan::Dual) { "No tables used" } else { "Impossible WHERE" };
                self.rows.push(vec![
                    Value::UInt(id),
                    text(select_type),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    text(note),
                ]);
            }
            Plan::Access(a) => self.access_row(id, select_type, a, false, extra),
            Plan::Derived(q) => {
                let child = self.next_id;
                self.next_id += 1;
                self.rows.push(vec![
                    Value::UInt(id),
                    text(select_type),
                    text(&format!("<derived{child}>")),
                    text("ALL"),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                ]);
                self.query(q, child, "DERIVED");
            }
            Plan::Sequence(t) => {
                self.rows.push(vec![
                    Value::UInt(id),
                    text(select_type),
                    text(&t.name),
                    text("ALL"),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::UInt(1),
                    Value::Null,
                ]);
            }
            Plan::InfoSchema { table, .. } => {
                self.rows.push(vec![
                    Value::UInt(id),
                    text(select_type),
                    text(table),
                    text("ALL"),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    text("Open_frm_only; Scanned all databases"),
                ]);
            }
            Plan::Filter { input, .. }
            | Plan::Project { input, .. }
            | Plan::Trim { input, .. }
            | Plan::Limit { input, .. } => self.walk(input, id, select_type, extra),
            Plan::Distinct { input, .. } => {
                extra.push("Using temporary");
                self.walk(input, id, select_type, extra)
            }
            Plan::Sort { input, .. } => {
                extra.push("Using filesort");
                self.walk(input, id, select_type, extra)
            }
            Plan::Window(w) => {
                extra.push("Using temporary");
                self.walk(&w.input, id, select_type, extra)
            }
            Plan::Aggregate(a) => {
                if !a.group_by.is_empty() {
                    extra.push("Using temporary");
                }
                self.walk(&a.input, id, select_type, extra)
            }
            Plan::Join(j) => {
                self.walk(&j.driver, id, select_type, extra);
                match &j.inner {
                    InnerSide::Lookup(a) => self.access_row(id, select_type, a, true, extra),
                    InnerSide::Hash { plan, .. } => {
                        self.walk(plan, id, select_type, extra);
                        if let Some(last) = self.rows.last_mut() {
                            last[9] = text("Using join buffer (flat, BNLH join)");
                        }
                    }
                    InnerSide::Loop(plan) => {
                        self.walk(plan, id, select_type, extra);
                        if let Some(last) = self.rows.last_mut() {
                            last[9] = text("Using join buffer (flat, BNL join)");
                        }
                    }
                }
            }
            Plan::RecursiveCte(r) => {
                self.walk(&r.anchor, id, select_type, extra);
                self.next_id += 1;
                self.walk(&r.recursive, self.next_id - 1, "RECURSIVE UNION", &mut Vec::new());
            }
            Plan::WorkTable { .. } => {}
            Plan::SetOp(o) => {
                self.walk(&o.left, id, select_type, extra);
                self.next_id += 1;
                let ty = if o.intersect { "INTERSECT" } else { "EXCEPT" };
                self.walk(&o.right, self.next_id - 1, ty, &mut Vec::new());
            }
            Plan::Concat(parts) => {
                for (i, part) in parts.iter().enumerate() {
                    let (pid, ty) = if i == 0 {
                        (id, select_type)
                    } else {
                        self.next_id += 1;
                        (self.next_id - 1, "UNION")
                    };
                    self.walk(part, pid, ty, &mut Vec::new());
                }
            }
        }
    }

    fn query(&mut self, q: &QueryPlan, id: u64, select_type: &str) {
        self.walk(&q.root, id, select_type, &mut Vec::new());
    }
}

/// The rows of `EXPLAIN <query>`.
pub fn explain(plan: &QueryPlan, engine: &Engine) -> Vec<Vec<Value>> {
    let mut w = Walker { engine, rows: Vec::new(), next_id: 2 };
    w.query(plan, 1, "SIMPLE");
    w.rows
}
