//! Binder and planner tests against a hand-built catalog: which access paths, joins and plan
//! shapes the rules produce for the statements that matter.

use std::sync::Arc;

use selkie_storage::{
    Catalog, ColumnDef, ColumnDefault, ColumnType, DatabaseDef, IndexColumn, IndexDef, IntWidth, TableDef, TableOptions,
};
use sqlparser::ast;

use super::{BindEnv, Binder, Scope};
use crate::parse::{parse_statement, Stmt};
use crate::plan::Expr;
use crate::plan::{InnerSide, KeyPart, Plan, QueryPlan, TableAccess, TailRange};

fn col(name: &str, ty: ColumnType, nullable: bool) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        ty,
        nullable,
        default: ColumnDefault::None,
        auto_increment: false,
        on_update_current_timestamp: false,
        comment: String::new(),
        zerofill: false,
        generated: None,
        collation: String::new(),
    }
}

fn int() -> ColumnType {
    ColumnType::Int { width: IntWidth::Int, unsigned: false, display_width: None }
}

fn index(id: u32, name: &str, cols: &[usize], unique: bool, primary: bool) -> IndexDef {
    IndexDef {
        id,
        name: name.into(),
        columns: cols.iter().map(|&c| IndexColumn { column: c, prefix_len: None, descending: false }).collect(),
        unique,
        primary,
        root: 0,
    }
}

/// db `d`: sbtest1(id PK, k KEY k_1, c, pad) and orders(oid PK, cust, amount, KEY cust(cust)),
/// and nokey(a, b) without a primary key.
fn catalog() -> Catalog {
    let mut cat = Catalog::default();
    cat.databases.insert(
        "d".into(),
        DatabaseDef { name: "d".into(), charset: "utf8mb4".into(), collation: "utf8mb4_general_ci".into() },
    );
    let sbtest = TableDef {
        row_versions: Default::default(),
        id: 1,
        db: "d".into(),
        name: "sbtest1".into(),
        columns: vec![
            col("id", int(), false),
            col("k", int(), false),
            col("c", ColumnType::Char { len: 120 }, false),
            col("pad", ColumnType::Char { len: 60 }, false),
        ],
        primary: index(1, "PRIMARY", &[0], true, true),
        secondary: vec![index(2, "k_1", &[1], false, false)],
        options: TableOptions::default(),
        constraints: Default::default(),
    };
    let orders = TableDef {
        row_versions: Default::default(),
        id: 2,
        db: "d".into(),
        name: "orders".into(),
        columns: vec![col("oid", int(), false), col("cust", int(), true), col("amount", int(), true)],
        primary: index(3, "PRIMARY", &[0], true, true),
        secondary: vec![index(4, "cust", &[1], false, false)],
        options: TableOptions::default(),
        constraints: Default::default(),
    };
    let nokey = TableDef {
        row_versions: Default::default(),
        id: 3,
        db: "d".into(),
        name: "nokey".into(),
        columns: vec![col("a", int(), true), col("b", int(), true)],
        primary: IndexDef { id: 5, name: "PRIMARY".into(), columns: vec![], unique: true, primary: true, root: 0 },
        secondary: vec![],
        options: TableOptions::default(),
        constraints: Default::default(),
    };
    for t in [sbtest, orders, nokey] {
        cat.tables.insert((t.db.clone(), t.name.clone()), Arc::new(t));
    }
    cat
}

fn plan(sql: &str) -> QueryPlan {
    try_plan(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn try_plan(sql: &str) -> Result<QueryPlan, crate::error::SqlError> {
    let cat = catalog();
    let env = BindEnv {
        catalog: &cat,
        current_db: Some("d"),
        vars: None,
        user_vars: None,
        pipes_as_concat: false,
        only_full_group_by: false,
        temporary: None,
        row_estimates: None,
    };
    let mut b = Binder::new(env, sql);
    b.scopes.push(Scope::default());
    let Stmt::Ast(stmt) = parse_statement(sql).map_err(|e| e.0)? else { panic!("not an AST statement") };
    let ast::Statement::Query(q) = *stmt else { panic!("not a query") };
    b.bind_query(&q)
}

/// The table accesses of a plan, in tree order.
fn accesses(p: &Plan) -> Vec<&TableAccess> {
    let mut out = Vec::new();
    fn walk<'a>(p: &'a Plan, out: &mut Vec<&'a TableAccess>) {
        match p {
            Plan::Access(a) => out.push(a),
            Plan::Filter { input, .. }
            | Plan::Project { input, .. }
            | Plan::Distinct { input, .. }
            | Plan::Sort { input, .. }
            | Plan::Limit { input, .. }
            | Plan::Trim { input, .. } => walk(input, out),
            Plan::Aggregate(a) => walk(&a.input, out),
            Plan::Window(w) => walk(&w.input, out),
            Plan::Join(j) => {
                walk(&j.driver, out);
                match &j.inner {
                    InnerSide::Lookup(a) => out.push(a),
                    InnerSide::Hash { plan, .. } | InnerSide::Loop(plan) => walk(plan, out),
                }
            }
            Plan::Concat(v) => v.iter().for_each(|p| walk(p, out)),
            Plan::RecursiveCte(r) => {
                walk(&r.anchor, out);
                walk(&r.recursive, out)
            }
            Plan::WorkTable { .. } => {}
            Plan::SetOp(o) => {
                walk(&o.left, out);
                walk(&o.right, out)
            }
            Plan::Derived(q) => walk(&q.root, out),
            Plan::Dual | Plan::Empty { .. } | Plan::InfoSchema { .. } | Plan::Sequence(_) => {}
        }
    }
    walk(p, &mut out);
    out
}

fn has_sort(p: &Plan) -> bool {
    match p {
        Plan::Sort { .. } => true,
        Plan::Filter { input, .. }
        | Plan::Project { input, .. }
        | Plan::Distinct { input, .. }
        | Plan::Limit { input, .. }
        | Plan::Trim { input, .. } => has_sort(input),
        Plan::Aggregate(a) => has_sort(&a.input),
        _ => false,
    }
}

fn join(p: &Plan) -> Option<&crate::plan::JoinPlan> {
    match p {
        Plan::Join(j) => Some(j),
        Plan::Filter { input, .. }
        | Plan::Project { input, .. }
        | Plan::Distinct { input, .. }
        | Plan::Sort { input, .. }
        | Plan::Limit { input, .. }
        | Plan::Trim { input, .. } => join(input),
        Plan::Aggregate(a) => join(&a.input),
        _ => None,
    }
}

#[test]
fn point_select_is_a_primary_key_get() {
    let p = plan("SELECT c FROM sbtest1 WHERE id=?");
    let a = accesses(&p.root);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].index, 0);
    assert!(a[0].is_pk_point(), "{:?}", a[0]);
    assert_eq!(a[0].eq, vec![KeyPart::Value(Expr::Param(0))]);
    assert_eq!(p.columns.len(), 1);
    assert_eq!(p.metas[0].name, "c");
}

#[test]
fn in_list_on_secondary_is_point_ranges() {
    let p = plan("SELECT id, k, c, pad FROM sbtest1 WHERE k IN (?, ?, ?)");
    let a = accesses(&p.root);
    assert_eq!(a[0].index, 1);
    assert_eq!(a[0].eq, vec![KeyPart::In(vec![Expr::Param(0), Expr::Param(1), Expr::Param(2)])]);
    assert!(a[0].filter.is_some(), "the IN is re-checked on each row");
}

#[test]
fn ored_betweens_are_a_multi_range() {
    let p = plan("SELECT count(k) FROM sbtest1 WHERE k BETWEEN ? AND ? OR k BETWEEN ? AND ? OR k BETWEEN ? AND ?");
    let a = accesses(&p.root);
    assert_eq!(a[0].index, 1);
    match &a[0].tail {
        Some(TailRange::Multi(r)) => assert_eq!(r.len(), 3),
        other => panic!("expected a multi-range, got {other:?}"),
    }
}

#[test]
fn between_on_primary_key_is_one_range() {
    let p = plan("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?");
    let a = accesses(&p.root);
    assert_eq!(a[0].index, 0);
    assert!(matches!(&a[0].tail, Some(TailRange::Range { lower: Some(_), upper: Some(_) })));
}

#[test]
fn force_key_primary_in_derived_table() {
    let p = plan("SELECT AVG(id) FROM (SELECT * FROM sbtest1 FORCE KEY (PRIMARY) LIMIT 10) t");
    let a = accesses(&p.root);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].index, 0);
    assert!(a[0].eq.is_empty() && a[0].tail.is_none());
    // An unknown key name is 1176.
    let e = try_plan("SELECT * FROM sbtest1 FORCE INDEX (nope)").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1176, "Key 'nope' doesn't exist in table 'sbtest1'"));
    // FORCE INDEX (k_1) makes k_1 the only candidate even when id would do.
    let p = plan("SELECT * FROM sbtest1 FORCE INDEX (k_1) WHERE id = 1 AND k = 2");
    assert_eq!(accesses(&p.root)[0].index, 1);
    let p = plan("SELECT * FROM sbtest1 IGNORE INDEX (k_1) WHERE k = 2");
    assert!(accesses(&p.root)[0].eq.is_empty());
}

#[test]
fn order_by_index_order_needs_no_sort() {
    let p = plan("SELECT id FROM sbtest1 ORDER BY id DESC LIMIT 5");
    assert!(!has_sort(&p.root));
    assert!(accesses(&p.root)[0].reverse);
    let p = plan("SELECT id FROM sbtest1 WHERE k = 3 ORDER BY id");
    assert!(!has_sort(&p.root));
    assert_eq!(accesses(&p.root)[0].index, 1);
    let p = plan("SELECT k FROM sbtest1 ORDER BY k LIMIT 10");
    assert!(!has_sort(&p.root));
    assert_eq!(accesses(&p.root)[0].index, 1);
    // sysbench's order range sorts by c: a real sort, fed by the id range.
    let p = plan("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c");
    assert!(has_sort(&p.root));
    assert_eq!(accesses(&p.root)[0].index, 0);
}

#[test]
fn join_on_indexed_column_uses_lookups() {
    let p = plan("SELECT s.id, o.amount FROM sbtest1 s JOIN orders o ON o.cust = s.id WHERE s.id < 10");
    let j = join(&p.root).expect("a join");
    match &j.inner {
        InnerSide::Lookup(a) => {
            assert_eq!(a.table.name, "orders");
            assert_eq!(a.index, 1);
        }
        other => panic!("expected an index lookup, got {other:?}"),
    }
    // The driver is narrowed by the WHERE range.
    let a = accesses(&j.driver);
    assert!(matches!(&a[0].tail, Some(TailRange::Range { .. })));
}

#[test]
fn join_without_index_uses_hash_or_loop() {
    let p = plan("SELECT * FROM sbtest1 s JOIN nokey n ON n.a = s.k");
    assert!(matches!(join(&p.root).unwrap().inner, InnerSide::Hash { .. }));
    let p = plan("SELECT * FROM sbtest1 s JOIN nokey n ON n.a < s.k");
    assert!(matches!(join(&p.root).unwrap().inner, InnerSide::Loop(_)));
    // A comma join with the condition in WHERE is an inner join on it.
    let p = plan("SELECT * FROM orders o, sbtest1 s WHERE s.id = o.cust");
    assert!(matches!(join(&p.root).unwrap().inner, InnerSide::Lookup(_)));
}

#[test]
fn left_join_keeps_where_above_the_join() {
    let p = plan("SELECT * FROM sbtest1 s LEFT JOIN orders o ON o.cust = s.id WHERE o.oid IS NULL");
    // The IS NULL test must see the NULL-extended rows: it is a filter over the join.
    match &p.root {
        Plan::Project { input, .. } => {
            assert!(matches!(&**input, Plan::Filter { input, .. } if matches!(&**input, Plan::Join(_))))
        }
        other => panic!("unexpected plan {other:?}"),
    }
}

#[test]
fn names_and_errors() {
    let p = plan("SELECT count(*), 1 +  1, k AS kk, s.c FROM sbtest1 s");
    let names: Vec<&str> = p.metas.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, vec!["count(*)", "1 +  1", "kk", "c"]);
    assert_eq!(p.metas[3].org_name, "c");
    assert_eq!(p.metas[3].table, "s");
    assert_eq!(p.metas[3].org_table, "sbtest1");
    let e = try_plan("SELECT nosuch FROM sbtest1").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1054, "Unknown column 'nosuch' in 'SELECT'"));
    let e = try_plan("SELECT id FROM sbtest1 WHERE nosuch = 1").unwrap_err();
    assert_eq!(e.message, "Unknown column 'nosuch' in 'WHERE'");
    let e = try_plan("SELECT id FROM sbtest1 a, sbtest1 b").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1052, "Column 'id' in SELECT is ambiguous"));
    let e = try_plan("SELECT * FROM sbtest1 a, orders a").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1066, "Not unique table/alias: 'a'"));
    let e = try_plan("SELECT * FROM nosuch").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1146, "Table 'd.nosuch' doesn't exist"));
    let e = try_plan("SELECT x.* FROM sbtest1").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1051, "Unknown table 'd.x'"));
    let e = try_plan("SELECT COUNT(*) FROM sbtest1 WHERE COUNT(*) > 1").unwrap_err();
    assert_eq!(e.code, 1111);
    let e = try_plan("SELECT 1 UNION SELECT 1, 2").unwrap_err();
    assert_eq!(e.code, 1222);
    let e = try_plan("SELECT (SELECT id, k FROM sbtest1)").unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (1241, "Operand should contain 1 column(s)"));
    let e = try_plan("SELECT * FROM (SELECT 1)").unwrap_err();
    assert_eq!(e.code, 1248);
}

#[test]
fn correlated_subqueries_are_marked() {
    let p = plan("SELECT id, (SELECT MAX(amount) FROM orders o WHERE o.cust = s.id) FROM sbtest1 s");
    let Plan::Project { exprs, .. } = &p.root else { panic!("{:?}", p.root) };
    match &exprs[1] {
        Expr::Subquery(sq) => assert!(sq.correlated),
        other => panic!("{other:?}"),
    }
    let p = plan("SELECT id FROM sbtest1 WHERE id IN (SELECT cust FROM orders)");
    let a = accesses(&p.root);
    let f = a[0].filter.as_ref().expect("IN subquery filters the scan");
    assert!(f.any(&mut |e| matches!(e, Expr::Subquery(sq) if !sq.correlated)));
}

#[test]
fn group_by_plans_aggregate_with_implicit_order() {
    let p = plan("SELECT k, COUNT(*) FROM sbtest1 GROUP BY k");
    let Plan::Project { input, exprs } = &p.root else { panic!() };
    assert_eq!(exprs, &vec![Expr::Column(0), Expr::Column(1)]);
    match &**input {
        Plan::Aggregate(a) => {
            assert!(a.sort_groups);
            assert_eq!(a.group_by, vec![Expr::Column(1)]);
        }
        other => panic!("{other:?}"),
    }
}
