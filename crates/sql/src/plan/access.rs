//! Access path selection for one table (rule based).
//!
//! WHERE/ON conjuncts of the form `col op value` (where the value can be computed before the
//! table is read) become *sargs*. For each index, the longest prefix of its columns bound by
//! equalities (`=`, `IN`, `IS NULL`) is taken, then one range on the next column. The winner:
//! a primary key point (every PK column equal to one value) always; otherwise a unique index
//! fully bound to single values; otherwise the most equality columns, then a range, then the
//! primary key (no secondary lookup), then the lower index number. An index that delivers the
//! ORDER BY order is preferred when nothing narrows the scan and a LIMIT can stop it early.

use selkie_storage::{keycodec, TableDef};

use crate::charset::Collation;

use crate::plan::{index_def, KeyBound, KeyPart, TailRange};
use crate::plan::{CmpOp, Expr};

/// Most key combinations an IN-list product may expand to; beyond it later IN columns are left
/// to the residual filter (the scan gets wider, never wrong).
pub const MAX_KEY_COMBINATIONS: usize = 4096;

/// A search argument: a predicate on one column of the table that an index can narrow.
#[derive(Clone, Debug, PartialEq)]
pub struct Sarg {
    /// Table column position.
    pub column: usize,
    pub kind: SargKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SargKind {
    Eq(Expr),
    In(Vec<Expr>),
    IsNull,
    Lower(KeyBound),
    Upper(KeyBound),
    Between(KeyBound, KeyBound),
    /// A disjunction of intervals (points are intervals with both ends inclusive).
    Multi(Vec<(Option<KeyBound>, Option<KeyBound>)>),
}

/// The column of `table` that `e` reads in its indexes' key order, with the table's columns
/// numbered from `base`: a plain column whose keys are its bytes, or the sort key of a column
/// whose keys are sort keys in that same collation (`keycodec::key_collation`). A lookup
/// value for it is then what the other side of the comparison evaluates to: the bytes, or
/// the sort key. Anything else (a `_ci` column compared under utf8mb4_bin, or under a
/// collation its keys do not follow) cannot narrow an index scan.
pub fn key_column(table: &TableDef, e: &Expr, base: usize) -> Option<usize> {
    let (column, collation): (usize, Option<Collation>) = match e {
        Expr::Column(i) => (*i, None),
        Expr::SortKey { expr, collation } => match **expr {
            Expr::Column(i) => (i, Some(*collation)),
            _ => return None,
        },
        _ => return None,
    };
    let column = column.checked_sub(base)?;
    let col = table.columns.get(column)?;
    (keycodec::key_collation(table, col) == collation).then_some(column)
}

/// An ORDER BY key on a plain column: the column, and the collation when it sorts by the
/// column's sort key.
pub fn order_column(e: &Expr) -> Option<(usize, Option<Collation>)> {
    match e {
        Expr::Column(c) => Some((*c, None)),
        Expr::SortKey { expr, collation } => match **expr {
            Expr::Column(c) => Some((c, Some(*collation))),
            _ => None,
        },
        _ => None,
    }
}

/// An ORDER BY that an index of one table could deliver: plain columns (or their sort keys),
/// all in one direction. None otherwise.
pub fn order_request(order: &[(Expr, bool)], has_limit: bool) -> Option<OrderRequest> {
    let desc = order.first()?.1;
    let mut columns = Vec::with_capacity(order.len());
    let mut sort_keys = Vec::with_capacity(order.len());
    for (e, d) in order {
        let (c, coll) = order_column(e)?;
        if *d != desc {
            return None;
        }
        columns.push(c);
        sort_keys.push(coll);
    }
    Some(OrderRequest { columns, sort_keys, desc, has_limit })
}

/// Recognizes `conj` as a sarg. `column_of` maps an expression to a column of the table if it
/// is one; `value_of` returns the expression rewritten for the key row if it can be evaluated
/// before the table is read.
pub fn extract_sarg(
    conj: &Expr,
    column_of: &dyn Fn(&Expr) -> Option<usize>,
    value_of: &dyn Fn(&Expr) -> Option<Expr>,
) -> Option<Sarg> {
    let incl = |e: Expr| KeyBound { value: e, inclusive: true };
    match conj {
        Expr::Cmp { op, left, right } => {
            let (column, value, op) = if let (Some(c), Some(v)) = (column_of(left), value_of(right)) {
                (c, v, *op)
            } else if let (Some(c), Some(v)) = (column_of(right), value_of(left)) {
                (c, v, op.flip())
            } else {
                return None;
            };
            let kind = match op {
                CmpOp::Eq => SargKind::Eq(value),
                CmpOp::Lt => SargKind::Upper(KeyBound { value, inclusive: false }),
                CmpOp::Le => SargKind::Upper(incl(value)),
                CmpOp::Gt => SargKind::Lower(KeyBound { value, inclusive: false }),
                CmpOp::Ge => SargKind::Lower(incl(value)),
                CmpOp::Ne | CmpOp::NullSafeEq => return None,
            };
            Some(Sarg { column, kind })
        }
        Expr::InList { expr, list, negated: false } => {
            let column = column_of(expr)?;
            let values: Vec<Expr> = list.iter().map(value_of).collect::<Option<_>>()?;
            let kind = if values.len() == 1 { SargKind::Eq(values.into_iter().next()?) } else { SargKind::In(values) };
            Some(Sarg { column, kind })
        }
        Expr::Between { expr, low, high, negated: false } => {
            let column = column_of(expr)?;
            Some(Sarg { column, kind: SargKind::Between(incl(value_of(low)?), incl(value_of(high)?)) })
        }
        Expr::IsNull { expr, negated: false } => Some(Sarg { column: column_of(expr)?, kind: SargKind::IsNull }),
        Expr::Like { expr, pattern, escape, negated: false, collation, .. } => {
            like_sarg(expr, pattern, *escape, *collation, column_of)
        }
        Expr::Or(_, _) => {
            let mut disjuncts = Vec::new();
            conj.disjuncts(&mut disjuncts);
            let mut column = None;
            let mut intervals = Vec::new();
            for d in disjuncts {
                let s = extract_sarg(d, column_of, value_of)?;
                if *column.get_or_insert(s.column) != s.column {
                    return None;
                }
                match s.kind {
                    SargKind::Eq(v) => intervals.push((Some(incl(v.clone())), Some(incl(v)))),
                    SargKind::In(vs) => {
                        intervals.extend(vs.into_iter().map(|v| (Some(incl(v.clone())), Some(incl(v)))))
                    }
                    SargKind::Between(lo, hi) => intervals.push((Some(lo), Some(hi))),
                    SargKind::Lower(lo) => intervals.push((Some(lo), None)),
                    SargKind::Upper(hi) => intervals.push((None, Some(hi))),
                    SargKind::Multi(more) => intervals.extend(more),
                    SargKind::IsNull => return None,
                }
            }
            Some(Sarg { column: column?, kind: SargKind::Multi(intervals) })
        }
        _ => None,
    }
}

/// `col LIKE 'abc%...'` as the key range of the values that start with `abc`, as MariaDB's
/// range optimizer does (`my_like_range`); the LIKE itself stays as the filter, so the range
/// only has to hold every match. The literal prefix is cut at the first wildcard or escape and
/// at trailing spaces (a PAD SPACE key drops them). The range is over the sort keys of a
/// column whose index keys are sort keys in the LIKE's collation, only where every character
/// has its own weights (`*_general_ci`, latin1): then a value's sort key starts with its
/// prefix's. Under UCA collations (contractions, expansions) no range is made.
fn like_sarg(
    expr: &Expr,
    pattern: &Expr,
    escape: u8,
    collation: Option<Collation>,
    column_of: &dyn Fn(&Expr) -> Option<usize>,
) -> Option<Sarg> {
    use crate::charset::Weighing;
    use crate::types::Value;
    let Expr::Literal(Value::Bytes(p)) = pattern else { return None };
    let end = p.iter().position(|&b| b == b'%' || b == b'_' || b == escape).unwrap_or(p.len());
    let mut prefix = &p[..end];
    while let [rest @ .., b' '] = prefix {
        prefix = rest;
    }
    if prefix.is_empty() {
        return None;
    }
    // Only over sort keys: their column is a character column for certain (a LIKE compared
    // as bytes may read a number or a date, whose keys are not its text).
    let c = collation?;
    let simple = matches!(
        c.def().weighing,
        Weighing::UnicodeGeneral
            | Weighing::Latin1Swedish
            | Weighing::Latin1General
            | Weighing::Latin1GeneralCs
            | Weighing::CodePoint
    );
    if !simple {
        return None;
    }
    let column = column_of(&Expr::SortKey { expr: Box::new(expr.clone()), collation: c })?;
    let low = c.sort_key_prefix(prefix)?;
    // The least byte string above every string that starts with `low`.
    let mut high = low.clone();
    while high.last() == Some(&0xFF) {
        high.pop();
    }
    let lower = KeyBound { value: Expr::Literal(Value::Bytes(low)), inclusive: true };
    let Some(last) = high.last_mut() else {
        return Some(Sarg { column, kind: SargKind::Lower(lower) });
    };
    *last += 1;
    let upper = KeyBound { value: Expr::Literal(Value::Bytes(high)), inclusive: false };
    Some(Sarg { column, kind: SargKind::Between(lower, upper) })
}

/// Which indexes the query allows (USE/FORCE/IGNORE INDEX), by index number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexHints {
    /// USE INDEX / FORCE INDEX lists: only these may be used for key ranges.
    pub only: Option<Vec<usize>>,
    pub ignore: Vec<usize>,
}

impl IndexHints {
    fn allows(&self, index: usize) -> bool {
        !self.ignore.contains(&index) && self.only.as_ref().is_none_or(|only| only.contains(&index))
    }
}

/// An ORDER BY the access could deliver: table columns, one direction for all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderRequest {
    pub columns: Vec<usize>,
    /// Per column, the collation it is ordered by when by its sort key (None: by its value).
    /// An index delivers the order only where its keys are in that order (`key_column`).
    pub sort_keys: Vec<Option<Collation>>,
    pub desc: bool,
    /// A LIMIT follows, so an index scan in order can stop early.
    pub has_limit: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AccessChoice {
    pub index: usize,
    pub eq: Vec<KeyPart>,
    pub tail: Option<TailRange>,
    pub reverse: bool,
    /// The rows come out in the requested ORDER BY order.
    pub ordered: bool,
}

struct Candidate {
    index: usize,
    eq: Vec<KeyPart>,
    tail: Option<TailRange>,
    /// Every index column bound to a single value, on a unique index.
    unique_point: bool,
}

fn match_index(table: &TableDef, index: usize, sargs: &[Sarg]) -> Candidate {
    let def = index_def(table, index);
    let mut eq = Vec::new();
    let mut tail = None;
    let mut combinations = 1usize;
    for ic in &def.columns {
        if ic.prefix_len.is_some() {
            // Only a prefix is indexed: a key built from the full value would be wrong.
            break;
        }
        let on_col = || sargs.iter().filter(|s| s.column == ic.column);
        if let Some(v) = on_col().find_map(|s| match &s.kind {
            SargKind::Eq(v) => Some(v.clone()),
            _ => None,
        }) {
            eq.push(KeyPart::Value(v));
            continue;
        }
        if on_col().any(|s| s.kind == SargKind::IsNull) {
            eq.push(KeyPart::IsNull);
            continue;
        }
        if let Some(list) = on_col().find_map(|s| match &s.kind {
            SargKind::In(l) if combinations.saturating_mul(l.len()) <= MAX_KEY_COMBINATIONS => Some(l.clone()),
            _ => None,
        }) {
            combinations *= list.len();
            eq.push(KeyPart::In(list));
            continue;
        }
        if let Some(multi) = on_col().find_map(|s| match &s.kind {
            SargKind::Multi(m) if combinations.saturating_mul(m.len()) <= MAX_KEY_COMBINATIONS => Some(m.clone()),
            _ => None,
        }) {
            tail = Some(TailRange::Multi(multi));
            break;
        }
        let mut lower = None;
        let mut upper = None;
        for s in on_col() {
            match &s.kind {
                SargKind::Lower(b) if lower.is_none() => lower = Some(b.clone()),
                SargKind::Upper(b) if upper.is_none() => upper = Some(b.clone()),
                SargKind::Between(lo, hi) => {
                    lower.get_or_insert_with(|| lo.clone());
                    upper.get_or_insert_with(|| hi.clone());
                }
                _ => {}
            }
        }
        if lower.is_some() || upper.is_some() {
            tail = Some(TailRange::Range { lower, upper });
        }
        break;
    }
    let unique_point = (def.unique || def.primary)
        && !def.columns.is_empty()
        && eq.len() == def.columns.len()
        && eq.iter().all(|p| matches!(p, KeyPart::Value(_)));
    Candidate { index, eq, tail, unique_point }
}

/// Whether scanning `index` with equality prefix `eq` returns rows in `order`'s order.
fn delivers_order(table: &TableDef, index: usize, eq: &[KeyPart], order: &OrderRequest) -> bool {
    let def = index_def(table, index);
    let mut ext: Vec<usize> = def.columns.iter().map(|c| c.column).collect();
    if index != 0 {
        // Secondary index keys end with the primary key columns.
        for c in &table.primary.columns {
            if !ext.contains(&c.column) {
                ext.push(c.column);
            }
        }
    }
    if def.columns.iter().any(|c| c.prefix_len.is_some()) {
        return false;
    }
    let constant: Vec<usize> = eq
        .iter()
        .zip(&def.columns)
        .filter(|(p, _)| matches!(p, KeyPart::Value(_) | KeyPart::IsNull))
        .map(|(_, c)| c.column)
        .collect();
    let key_order = |(&c, coll): (&usize, &Option<Collation>)| {
        table.columns.get(c).is_some_and(|col| keycodec::key_collation(table, col) == *coll)
    };
    if !order.columns.iter().zip(&order.sort_keys).all(key_order) {
        return false;
    }
    let mut cursor = 0;
    for &oc in &order.columns {
        if constant.contains(&oc) {
            continue;
        }
        while cursor < ext.len() && constant.contains(&ext[cursor]) {
            cursor += 1;
        }
        if cursor < ext.len() && ext[cursor] == oc {
            cursor += 1;
        } else {
            return false;
        }
    }
    true
}

/// Chooses how to read `table` given its sargs, the index hints and an ORDER BY to deliver.
pub fn choose_access(
    table: &TableDef,
    sargs: &[Sarg],
    hints: &IndexHints,
    order: Option<&OrderRequest>,
) -> AccessChoice {
    let index_count = 1 + table.secondary.len();
    let mut best: Option<Candidate> = None;
    let rank = |c: &Candidate| (c.unique_point, c.eq.len(), c.tail.is_some(), c.index == 0);
    for index in 0..index_count {
        if !hints.allows(index) || (index == 0 && table.has_hidden_pk()) {
            continue;
        }
        let cand = match_index(table, index, sargs);
        if cand.eq.is_empty() && cand.tail.is_none() {
            continue;
        }
        if index == 0 && cand.unique_point {
            best = Some(cand);
            break;
        }
        // Strictly better only, so earlier (lower numbered) indexes win ties.
        if best.as_ref().is_none_or(|b| rank(&cand) > rank(b)) {
            best = Some(cand);
        }
    }
    let mut choice = match best {
        Some(c) => AccessChoice { index: c.index, eq: c.eq, tail: c.tail, reverse: false, ordered: false },
        None => AccessChoice { index: 0, eq: Vec::new(), tail: None, reverse: false, ordered: false },
    };
    if let Some(order) = order {
        if delivers_order(table, choice.index, &choice.eq, order) {
            choice.ordered = true;
            choice.reverse = order.desc;
        } else if choice.eq.is_empty() && choice.tail.is_none() && order.has_limit {
            // Nothing narrows the scan: read an index in ORDER BY order and stop at the LIMIT.
            let ordered_index = (0..index_count).find(|&i| {
                hints.allows(i) && !(i == 0 && table.has_hidden_pk()) && delivers_order(table, i, &[], order)
            });
            if let Some(index) = ordered_index {
                choice = AccessChoice { index, eq: Vec::new(), tail: None, reverse: order.desc, ordered: true };
            }
        }
    }
    choice
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Value;
    use selkie_storage::{ColumnDef, ColumnDefault, ColumnType, IndexColumn, IndexDef, IntWidth, TableOptions};

    fn int_col(name: &str) -> ColumnDef {
        ColumnDef {
            name: name.into(),
            ty: ColumnType::Int { width: IntWidth::Int, unsigned: false, display_width: None },
            nullable: false,
            default: ColumnDefault::None,
            auto_increment: false,
            on_update_current_timestamp: false,
            comment: String::new(),
            zerofill: false,
            generated: None,
            collation: String::new(),
        }
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

    /// t(id PK, k, a, b) with KEY k(k), UNIQUE u(a, b).
    fn table() -> TableDef {
        TableDef {
            row_versions: Default::default(),
            id: 1,
            db: "d".into(),
            name: "t".into(),
            columns: vec![int_col("id"), int_col("k"), int_col("a"), int_col("b")],
            primary: index(1, "PRIMARY", &[0], true, true),
            secondary: vec![index(2, "k", &[1], false, false), index(3, "u", &[2, 3], true, false)],
            options: TableOptions::default(),
            constraints: Default::default(),
        }
    }

    fn lit(v: i64) -> Expr {
        Expr::Literal(Value::Int(v))
    }

    fn eq(col: usize, v: i64) -> Sarg {
        Sarg { column: col, kind: SargKind::Eq(lit(v)) }
    }

    #[test]
    fn pk_point_wins_over_everything() {
        let t = table();
        let c = choose_access(&t, &[eq(1, 5), eq(0, 7)], &IndexHints::default(), None);
        assert_eq!(c.index, 0);
        assert_eq!(c.eq, vec![KeyPart::Value(lit(7))]);
    }

    #[test]
    fn unique_point_beats_longer_equality_prefix_elsewhere() {
        let t = table();
        let c = choose_access(&t, &[eq(1, 5), eq(2, 1), eq(3, 2)], &IndexHints::default(), None);
        assert_eq!(c.index, 2);
        assert_eq!(c.eq.len(), 2);
    }

    #[test]
    fn equality_beats_range_and_range_is_used_when_alone() {
        let t = table();
        let range = Sarg {
            column: 0,
            kind: SargKind::Between(
                KeyBound { value: lit(1), inclusive: true },
                KeyBound { value: lit(9), inclusive: true },
            ),
        };
        let c = choose_access(&t, &[range.clone(), eq(1, 3)], &IndexHints::default(), None);
        assert_eq!((c.index, c.eq.len()), (1, 1));
        let c = choose_access(&t, &[range], &IndexHints::default(), None);
        assert_eq!(c.index, 0);
        assert!(matches!(c.tail, Some(TailRange::Range { lower: Some(_), upper: Some(_) })));
    }

    #[test]
    fn in_list_becomes_key_part_and_or_becomes_multi_range() {
        let t = table();
        let c = choose_access(
            &t,
            &[Sarg { column: 1, kind: SargKind::In(vec![lit(3), lit(1)]) }],
            &IndexHints::default(),
            None,
        );
        assert_eq!(c.index, 1);
        assert_eq!(c.eq, vec![KeyPart::In(vec![lit(3), lit(1)])]);
        let between = |a, b| Expr::Between {
            expr: Expr::Column(1).boxed(),
            low: lit(a).boxed(),
            high: lit(b).boxed(),
            negated: false,
        };
        let or = Expr::Or(between(1, 2).boxed(), between(5, 6).boxed());
        let column_of = |e: &Expr| match e {
            Expr::Column(i) => Some(*i),
            _ => None,
        };
        let value_of = |e: &Expr| e.is_row_independent().then(|| e.clone());
        let s = extract_sarg(&or, &column_of, &value_of).unwrap();
        assert_eq!(s.column, 1);
        assert!(matches!(&s.kind, SargKind::Multi(v) if v.len() == 2));
        let c = choose_access(&t, &[s], &IndexHints::default(), None);
        assert_eq!(c.index, 1);
        assert!(matches!(c.tail, Some(TailRange::Multi(_))));
        // An OR across two columns is not a sarg.
        let mixed = Expr::Or(
            between(1, 2).boxed(),
            Expr::Between { expr: Expr::Column(2).boxed(), low: lit(1).boxed(), high: lit(2).boxed(), negated: false }
                .boxed(),
        );
        assert!(extract_sarg(&mixed, &column_of, &value_of).is_none());
    }

    #[test]
    fn hints_restrict_and_ignore() {
        let t = table();
        let only_pk = IndexHints { only: Some(vec![0]), ignore: vec![] };
        let c = choose_access(&t, &[eq(1, 5)], &only_pk, None);
        assert_eq!((c.index, c.eq.len()), (0, 0));
        let ignore_k = IndexHints { only: None, ignore: vec![1] };
        let c = choose_access(&t, &[eq(1, 5)], &ignore_k, None);
        assert_eq!(c.index, 0);
    }

    #[test]
    fn order_by_index_order_avoids_the_sort() {
        let t = table();
        // WHERE k = 5 ORDER BY id: secondary keys end with the primary key.
        let order = OrderRequest { columns: vec![0], sort_keys: vec![None], desc: true, has_limit: true };
        let c = choose_access(&t, &[eq(1, 5)], &IndexHints::default(), Some(&order));
        assert_eq!(c.index, 1);
        assert!(c.ordered && c.reverse);
        // No predicate, ORDER BY k LIMIT n: scan index k in order.
        let order = OrderRequest { columns: vec![1], sort_keys: vec![None], desc: false, has_limit: true };
        let c = choose_access(&t, &[], &IndexHints::default(), Some(&order));
        assert_eq!((c.index, c.ordered, c.reverse), (1, true, false));
        // ORDER BY k without LIMIT and no predicate: a full PK scan plus sort.
        let order = OrderRequest { columns: vec![1], sort_keys: vec![None], desc: false, has_limit: false };
        let c = choose_access(&t, &[], &IndexHints::default(), Some(&order));
        assert_eq!((c.index, c.ordered), (0, false));
        // ORDER BY b with a = const on u(a, b): delivered.
        let order = OrderRequest { columns: vec![3], sort_keys: vec![None], desc: false, has_limit: false };
        let c = choose_access(&t, &[eq(2, 1)], &IndexHints::default(), Some(&order));
        assert_eq!((c.index, c.ordered), (2, true));
    }
}
