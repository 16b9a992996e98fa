//! ALTER TABLE as MariaDB 10.11 does it (docs/architecture.md §4.9, "Instant ALTER").
//!
//! The operations (parsed by `parse::alter`) are applied in order to an editable copy of the
//! table's definition, with MariaDB's checks and errors. Then the result is classified as
//! MariaDB's InnoDB would run it, because that is what a client sees: a COPY reports every row
//! as affected ("Records: N"), INPLACE and INSTANT report 0; `ALGORITHM=` and `LOCK=` clauses are
//! refused (1845/1846) with MariaDB's reasons. Independently, Selkie picks how to do it:
//! - metadata only (`Engine::alter_table_instant`) when every row can keep its bytes: columns
//!   added, dropped, renamed or moved, defaults, a wider VARCHAR, NULL allowed, comments, table
//!   options, indexes renamed or dropped;
//! - one index build (`Engine::create_index_online`) for a lone ADD INDEX, with writers going on
//!   (LOCK=NONE; `create_index` keeps them waiting for LOCK=SHARED/EXCLUSIVE);
//! - otherwise a rebuild (`Engine::rebuild_table`): every row converted with the column store
//!   rules (strict mode errors abort it with MariaDB's `at row N`), new trees, one commit.
//!   Writers of the table go on where MariaDB lets them (an INPLACE rebuild, a new primary key
//!   included: `Edit::online_possible`; the engine logs their changes and applies them at the
//!   end) and wait otherwise (LOCK=SHARED: a COPY).
//!
//! A RENAME TO and an AUTO_INCREMENT= are separate engine steps after the change.

use std::sync::Arc;

use selkie_storage::{
    Catalog, CheckDef, ColumnDef, ColumnDefault, ColumnType, Datum, Engine, IndexColumn, InstantAlter, NewIndex,
    TableConstraints, TableDef, TableOptions, TableRebuild,
};
use sqlparser::ast;

use crate::bind::Binder;
use crate::ddl::{self, IndexSpec};
use crate::error::{self, SqlError};
use crate::exec::ctx::ExecCtx;
use crate::parse::alter::{Algorithm, AlterOp, AlterTable, LockKind, Position};
use crate::types::WarnLevel;
use crate::value::{self, FnContext, StoreTarget, MAX_BYTES_PER_CHAR};

/// Why MariaDB copies the table for a column type change.
const REASON_COLUMN_TYPE: &str = "Cannot change column type";
const REASON_DROP_PRIMARY: &str = "Dropping a primary key is not allowed without also adding a new primary key";

/// A column of the table being edited.
#[derive(Clone)]
struct Col {
    /// Stable while the statement edits: indexes name columns by it.
    id: usize,
    def: ColumnDef,
    /// The old column whose values it keeps (None: added).
    source: Option<usize>,
    /// For an added column: what the existing rows get.
    fill: Fill,
}

#[derive(Clone)]
enum Fill {
    Value(Datum),
    /// 1, 2, 3... in the order of the rows (a new AUTO_INCREMENT column).
    Sequence,
    /// Its DEFAULT (expr), computed for each row (uuid(), `a` * 2).
    Expression,
}

#[derive(Clone)]
struct Ix {
    /// The index's name before the statement (None: added by it).
    old: Option<String>,
    name: String,
    /// (column id, prefix length in bytes, DESC).
    cols: Vec<(usize, Option<u32>, bool)>,
    unique: bool,
    /// The first column DROP COLUMN removed from it (it must be rebuilt).
    shrunk: Option<String>,
}

struct Edit<'t> {
    t: &'t TableDef,
    cols: Vec<Col>,
    primary: Option<Ix>,
    secondary: Vec<Ix>,
    options: TableOptions,
    auto_increment: Option<u64>,
    rename: Option<(String, String)>,
    algorithm: Algorithm,
    lock: LockKind,
    /// FORCE or ENGINE=: rebuild (MariaDB: INPLACE).
    force: bool,
    /// Why MariaDB would copy (COPY algorithm), if it would.
    copy_reason: Option<&'static str>,
    /// MariaDB would rebuild in place (ALGORITHM=INSTANT and NOCOPY refused with 1845).
    inplace_rebuild: bool,
    /// MariaDB would copy without naming a reason (1845 "Try ALGORITHM=COPY"): a column added
    /// with a DEFAULT whose value differs from row to row.
    copy_unexplained: bool,
    /// ALTER TABLE ... ORDER BY.
    order_by: bool,
    /// CONVERT TO CHARACTER SET: every string value is converted.
    convert: bool,
    /// A table option was named that MariaDB's MyISAM, Aria and MEMORY cannot change without
    /// copying the table (ROW_FORMAT changed, DEFAULT CHARSET / COLLATE, CHECKSUM, ...).
    copying_option: bool,
    /// VIRTUAL columns added or dropped, ordinary (or STORED) columns added or dropped, UNIQUE
    /// indexes added or dropped: InnoDB adds and drops VIRTUAL columns in place only alongside
    /// neither of the other two, and copies the table otherwise.
    virtual_columns_changed: bool,
    base_columns_changed: bool,
    unique_indexes_changed: bool,
    /// A generated column was added or redefined: every row's generated values are computed
    /// again (a rebuild).
    recompute: bool,
    indexes_added: usize,
    /// Anything but ALGORITHM/LOCK/AUTO_INCREMENT/RENAME TO.
    changed: bool,
    /// The table's constraints as the column operations leave them: renamed columns renamed in
    /// CHECK expressions and foreign keys, column-level CHECKs gone with their column or its
    /// old definition (MODIFY / CHANGE replace it), as MariaDB does.
    constraints: TableConstraints,
    /// Columns renamed by the statement, (old name, new name) in order: foreign keys of other
    /// tables that reference them follow (`constraints::after_column_renames`).
    renamed: Vec<(String, String)>,
}

/// The effect of an ALTER TABLE for the OK packet: affected rows, and whether MariaDB's
/// "Records: N  Duplicates: 0  Warnings: W" info goes with it.
pub struct AlterOutcome {
    pub affected: u64,
    pub records: Option<u64>,
}

fn col_value_fill(def: &ColumnDef, cx: &ExecCtx) -> Result<Fill, SqlError> {
    if def.auto_increment {
        return Ok(Fill::Sequence);
    }
    Ok(Fill::Value(match &def.default {
        ColumnDefault::Expression(_) => return Ok(Fill::Expression),
        ColumnDefault::Value(d) => d.clone(),
        ColumnDefault::CurrentTimestamp => value::store_for_column(Datum::DateTime(cx.env.now()), def, cx)?,
        ColumnDefault::None if def.nullable => Datum::Null,
        ColumnDefault::None => value::implicit_default(&def.ty),
    }))
}

/// Types equal but for the display width of an integer.
fn same_type(a: &ColumnType, b: &ColumnType) -> bool {
    match (a, b) {
        (ColumnType::Int { width: wa, unsigned: ua, .. }, ColumnType::Int { width: wb, unsigned: ub, .. }) => {
            wa == wb && ua == ub
        }
        _ => a == b,
    }
}

/// InnoDB widens a VARCHAR in place while its length bytes stay the same (one byte up to 255
/// bytes, two above); Selkie's rows hold any length the same way.
fn instant_widening(a: &ColumnType, b: &ColumnType) -> bool {
    let (from, to, per_char) = match (a, b) {
        (ColumnType::VarChar { len: x }, ColumnType::VarChar { len: y }) => (*x as u64, *y as u64, MAX_BYTES_PER_CHAR),
        (ColumnType::VarBinary { len: x }, ColumnType::VarBinary { len: y }) => (*x as u64, *y as u64, 1),
        _ => return false,
    };
    to >= from && (from * per_char > 255 || to * per_char <= 255)
}

/// Members added at the end of an ENUM or SET: every stored value keeps its meaning, and
/// MariaDB changes the column without a copy while its size in bytes stays the same (Selkie
/// rebuilds the table's rows, which the instant path does not convert).
fn members_appended(a: &ColumnType, b: &ColumnType) -> bool {
    let extends = |x: &[String], y: &[String]| y.len() >= x.len() && y.iter().zip(x).all(|(n, o)| n == o);
    match (a, b) {
        (ColumnType::Enum { values: x }, ColumnType::Enum { values: y }) => {
            extends(x, y) && (x.len() > 255) == (y.len() > 255)
        }
        (ColumnType::Set { values: x }, ColumnType::Set { values: y }) => {
            let bytes = |n: usize| match n.div_ceil(8) {
                b if b > 4 => 8,
                b => b,
            };
            extends(x, y) && bytes(x.len()) == bytes(y.len())
        }
        _ => false,
    }
}

/// Whether InnoDB copies the table to give a column `new`'s collation: another character set
/// is a conversion of every value, but for utf8mb3 to utf8mb4 (the same bytes), which it does in
/// place as a change of collation alone.
fn charset_conversion(old: &str, new: &str) -> bool {
    let charset = |c: &str| crate::charset::Collation::named(c).map(|c| c.charset_name());
    match (charset(old), charset(new)) {
        (Some(a), Some(b)) => a != b && !(a == "utf8mb3" && b == "utf8mb4"),
        _ => false,
    }
}

/// The CHECK written in a column definition of ALTER (ADD, MODIFY, CHANGE), as printed.
fn inline_check(cd: &ast::ColumnDef) -> Result<Option<String>, SqlError> {
    for o in &cd.options {
        if let ast::ColumnOption::Check(c) = &o.option {
            return Ok(Some(crate::constraints::check_text(&c.expr, &cd.name.value)?));
        }
    }
    Ok(None)
}

/// A column definition of ALTER (ADD, MODIFY, CHANGE) read as CREATE TABLE reads it, so that it
/// means the same: the column, and whether it declared PRIMARY KEY / UNIQUE inline.
fn column_from_def(
    b: &mut Binder,
    cx: &mut ExecCtx,
    t: &TableDef,
    cd: &ast::ColumnDef,
) -> Result<(ColumnDef, bool, bool), SqlError> {
    // A generated column's expression names other columns of the table: it is printed here
    // and checked on the whole table once the ALTER's operations are applied.
    let mut cd = cd.clone();
    let mut declared = None;
    for o in &cd.options {
        if let Some(d) = crate::generated::declared(&o.option)? {
            declared = Some((crate::constraints::generated_text(d.expr, &cd.name.value)?, d.stored));
        }
    }
    if declared.is_some() {
        let refused = |o: &ast::ColumnOption| {
            matches!(o, ast::ColumnOption::Null | ast::ColumnOption::NotNull | ast::ColumnOption::Default(_))
        };
        if cd.options.iter().any(|o| refused(&o.option)) {
            return Err(error::syntax(&cd.to_string(), 1));
        }
        cd.options.retain(|o| !matches!(o.option, ast::ColumnOption::Generated { .. }));
    }
    // A DEFAULT (expr) may name other columns too: printed here, checked on the whole table.
    let datetime = matches!(cd.data_type, ast::DataType::Datetime(_) | ast::DataType::Timestamp(..));
    let mut default_expression = None;
    for o in &cd.options {
        if let ast::ColumnOption::Default(e) = &o.option {
            if crate::defaults::is_expression(e, datetime) {
                default_expression = Some(crate::defaults::text(e, &cd.name.value, &t.db)?);
            }
        }
    }
    if default_expression.is_some() {
        cd.options.retain(|o| !matches!(o.option, ast::ColumnOption::Default(_)));
    }
    let mut text = format!("CREATE TABLE `t` ({cd}");
    // An AUTO_INCREMENT column must lead a key in CREATE TABLE; ALTER checks that on the whole
    // table afterwards. Only such a column gets the stand-in key: on a TEXT column it would
    // note 1071 (key shortened), which MariaDB does not.
    let auto_increment = cd.options.iter().any(|o| match &o.option {
        ast::ColumnOption::DialectSpecific(tokens) => tokens.iter().any(
            |t| matches!(t, sqlparser::tokenizer::Token::Word(w) if w.value.eq_ignore_ascii_case("AUTO_INCREMENT")),
        ),
        _ => false,
    });
    if auto_increment {
        let name = cd.name.value.replace('`', "``");
        text.push_str(&format!(", KEY `__alter_auto` (`{name}`)"));
    }
    text.push(')');
    // A column without a collation of its own takes the table's.
    let known = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if known(&t.options.charset) && known(&t.options.collation) {
        text.push_str(&format!(" DEFAULT CHARSET={} COLLATE={}", t.options.charset, t.options.collation));
    }
    let stmt = match crate::parse::parse_statement(&text) {
        Ok(crate::parse::Stmt::Ast(s)) => s,
        Ok(_) => return Err(error::internal("column definition")),
        Err(e) => return Err(e.0),
    };
    let ast::Statement::CreateTable(ct) = *stmt else { return Err(error::internal("column definition")) };
    let nt = ddl::build_new_table(b, cx, &ct, t.db.clone(), t.name.clone())?;
    let primary = !nt.primary_key.is_empty();
    let unique = nt.indexes.iter().any(|i| i.unique);
    let mut col = nt.columns.into_iter().next().ok_or_else(|| error::internal("column definition"))?;
    if let Some(text) = default_expression {
        if col.auto_increment {
            return Err(error::invalid_default(&col.name));
        }
        col.default = ColumnDefault::Expression(text);
    }
    if let Some((expr, stored)) = declared {
        if primary {
            return Err(crate::generated::primary_key_refused());
        }
        col.generated = Some(selkie_storage::GeneratedColumn { expr, stored });
        col.nullable = true;
    }
    Ok((col, primary, unique))
}

impl<'t> Edit<'t> {
    fn new(t: &'t TableDef) -> Edit<'t> {
        let cols = t
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| Col { id: i, def: c.clone(), source: Some(i), fill: Fill::Value(Datum::Null) })
            .collect();
        let ix = |i: &selkie_storage::IndexDef| Ix {
            old: Some(i.name.clone()),
            name: i.name.clone(),
            cols: i.columns.iter().map(|c| (c.column, c.prefix_len, c.descending)).collect(),
            unique: i.unique,
            shrunk: None,
        };
        Edit {
            t,
            cols,
            primary: (!t.has_hidden_pk()).then(|| ix(&t.primary)),
            secondary: t.secondary.iter().map(ix).collect(),
            options: t.options.clone(),
            constraints: t.constraints.clone(),
            renamed: Vec::new(),
            auto_increment: None,
            rename: None,
            algorithm: Algorithm::Default,
            lock: LockKind::Default,
            force: false,
            copy_reason: None,
            inplace_rebuild: false,
            convert: false,
            copying_option: false,
            virtual_columns_changed: false,
            base_columns_changed: false,
            unique_indexes_changed: false,
            recompute: false,
            copy_unexplained: false,
            order_by: false,
            indexes_added: 0,
            changed: false,
        }
    }

    fn position_of(&self, name: &str) -> Option<usize> {
        self.cols.iter().position(|c| c.def.name.eq_ignore_ascii_case(name))
    }

    fn next_id(&self) -> usize {
        self.cols.iter().map(|c| c.id + 1).max().unwrap_or(0).max(self.t.columns.len())
    }

    fn unknown_column(&self, name: &str) -> SqlError {
        error::unknown_column_in_table(name, &self.t.name)
    }

    fn place(&mut self, col: Col, position: Option<&Position>, at_end: usize) -> Result<(), SqlError> {
        let at = match position {
            None => at_end,
            Some(Position::First) => 0,
            Some(Position::After(a)) => self.position_of(a).ok_or_else(|| self.unknown_column(a))? + 1,
        };
        self.cols.insert(at, col);
        Ok(())
    }

    fn index_names(&self) -> Vec<String> {
        self.primary.iter().chain(&self.secondary).map(|i| i.name.clone()).collect()
    }

    fn add_column(
        &mut self,
        b: &mut Binder,
        cx: &mut ExecCtx,
        cd: &ast::ColumnDef,
        position: Option<&Position>,
        if_not_exists: bool,
    ) -> Result<(), SqlError> {
        if self.position_of(&cd.name.value).is_some() {
            if if_not_exists {
                cx.push_warning(WarnLevel::Note, 1060, format!("Duplicate column name '{}'", cd.name.value));
                return Ok(());
            }
            return Err(error::duplicate_column(&cd.name.value));
        }
        let (def, primary, unique) = column_from_def(b, cx, self.t, cd)?;
        self.declare_check(&def.name, inline_check(cd)?);
        let mut fill = col_value_fill(&def, cx)?;
        if matches!(fill, Fill::Sequence) {
            self.inplace_rebuild = true;
        }
        if matches!(fill, Fill::Expression) {
            let mut defs: Vec<ColumnDef> = self.cols.iter().map(|c| c.def.clone()).collect();
            defs.push(def.clone());
            if crate::defaults::needs_copy(b.env.catalog, &self.t.db, &self.t.name, &defs, &def) {
                self.copy_unexplained = true;
            } else {
                // A constant expression, (1 + 1): every row gets its one value, in place.
                fill = Fill::Value(crate::defaults::constant_value(b.env.catalog, &self.t.db, &def, cx)?);
            }
        }
        match &def.generated {
            Some(g) if !g.stored => self.virtual_columns_changed = true,
            _ => self.base_columns_changed = true,
        }
        if let Some(g) = &def.generated {
            // MariaDB adds a VIRTUAL column in place and copies the table for a STORED one.
            self.recompute = true;
            // ... unless it is placed before other columns (FIRST / AFTER): then it copies too.
            if g.stored || position.is_some() {
                self.copy_reason.get_or_insert(REASON_COLUMN_TYPE);
            } else {
                self.inplace_rebuild = true;
            }
        }
        let id = self.next_id();
        let name = def.name.clone();
        let end = self.cols.len();
        self.place(Col { id, def, source: None, fill }, position, end)?;
        self.inline_keys(cx, &name, primary, unique)?;
        self.changed = true;
        Ok(())
    }

    /// `PRIMARY KEY` / `UNIQUE` written in a column definition.
    fn inline_keys(&mut self, cx: &mut ExecCtx, name: &str, primary: bool, unique: bool) -> Result<(), SqlError> {
        if primary {
            let spec =
                IndexSpec { name: None, columns: vec![(name.to_string(), None, false)], unique: true, primary: true };
            self.add_index(cx, spec, false)?;
        }
        if unique {
            let spec =
                IndexSpec { name: None, columns: vec![(name.to_string(), None, false)], unique: true, primary: false };
            self.add_index(cx, spec, false)?;
        }
        Ok(())
    }

    fn modify(
        &mut self,
        b: &mut Binder,
        cx: &mut ExecCtx,
        old: &str,
        cd: &ast::ColumnDef,
        position: Option<&Position>,
        if_exists: bool,
    ) -> Result<(), SqlError> {
        let Some(at) = self.position_of(old) else {
            if if_exists {
                cx.push_warning(WarnLevel::Note, 1054, format!("Unknown column '{old}' in '{}'", self.t.name));
                return Ok(());
            }
            return Err(self.unknown_column(old));
        };
        if let Some(other) = self.position_of(&cd.name.value) {
            if other != at {
                return Err(error::duplicate_column(&cd.name.value));
            }
        }
        let (mut def, primary, unique) = column_from_def(b, cx, self.t, cd)?;
        if let Some(g) = &def.generated {
            // MariaDB neither turns an ordinary column into a generated one nor changes the kind.
            if self.cols[at].def.generated.as_ref().is_none_or(|old| old.stored != g.stored) {
                return Err(crate::generated::alter_refused());
            }
            self.recompute = true;
            self.copy_reason.get_or_insert(REASON_COLUMN_TYPE);
        }
        if def.generated.is_none() && self.cols[at].def.generated.is_some() {
            // MariaDB copies the table to make a generated column ordinary.
            self.copy_reason.get_or_insert(REASON_COLUMN_TYPE);
        }
        let old_name = self.cols[at].def.name.clone();
        // The new definition replaces the column's own CHECK (MariaDB keeps none of it).
        self.constraints.checks.retain(|k| !k.column.as_deref().is_some_and(|c| c.eq_ignore_ascii_case(&old_name)));
        if !old_name.eq_ignore_ascii_case(&def.name) {
            self.rename_in_constraints(&old_name, &def.name);
            let mut defs: Vec<ColumnDef> = self.cols.iter().map(|c| c.def.clone()).collect();
            crate::generated::rename_column(&mut defs, &old_name, &def.name);
            crate::defaults::rename_column(&mut defs, &old_name, &def.name);
            for (c, d) in self.cols.iter_mut().zip(defs) {
                c.def.generated = d.generated;
                c.def.default = d.default;
            }
            if let Some(g) = &mut def.generated {
                g.expr = crate::generated::renamed(&g.expr, &old_name, &def.name);
            }
        }
        self.declare_check(&def.name, inline_check(cd)?);
        let mut col = self.cols.remove(at);
        let members_appended = members_appended(&col.def.ty, &def.ty);
        if !same_type(&col.def.ty, &def.ty) && !instant_widening(&col.def.ty, &def.ty) && !members_appended {
            self.copy_reason.get_or_insert(REASON_COLUMN_TYPE);
        }
        if charset_conversion(&col.def.collation, &def.collation) {
            self.copy_reason.get_or_insert(REASON_COLUMN_TYPE);
        }
        if def.auto_increment && !col.def.auto_increment {
            self.copy_reason.get_or_insert(REASON_COLUMN_TYPE);
        }
        // A column of the primary key stays NOT NULL.
        let in_primary = self.primary.as_ref().is_some_and(|p| p.cols.iter().any(|(c, _, _)| *c == col.id));
        if in_primary {
            def.nullable = false;
        }
        if col.def.nullable && !def.nullable {
            self.inplace_rebuild = true;
        }
        let name = def.name.clone();
        col.def = def;
        self.place(col, position, at)?;
        self.inline_keys(cx, &name, primary, unique)?;
        self.changed = true;
        Ok(())
    }

    /// A column-level CHECK declared for `column`. MariaDB adds it without checking the rows
    /// the table holds (unlike ADD CONSTRAINT ... CHECK, which does: 4025).
    fn declare_check(&mut self, column: &str, expr: Option<String>) {
        if let Some(expr) = expr {
            self.constraints.checks.retain(|k| !k.column.as_deref().is_some_and(|c| c.eq_ignore_ascii_case(column)));
            // Column-level checks come before the table's, as MariaDB keeps them.
            let at = self.constraints.checks.iter().take_while(|k| k.column.is_some()).count();
            let check = CheckDef { name: column.to_string(), column: Some(column.to_string()), expr };
            self.constraints.checks.insert(at, check);
        }
    }

    /// The table's constraints afterwards, if the statement changed them.
    fn changed_constraints(&self) -> Option<TableConstraints> {
        (self.constraints != self.t.constraints).then(|| self.constraints.clone())
    }

    /// Column `old` is now `new` in the table's CHECK expressions and foreign keys.
    fn rename_in_constraints(&mut self, old: &str, new: &str) {
        for k in &mut self.constraints.checks {
            k.expr = crate::generated::renamed(&k.expr, old, new);
            if k.column.as_deref().is_some_and(|c| c.eq_ignore_ascii_case(old)) {
                k.column = Some(new.to_string());
            }
        }
        for fk in &mut self.constraints.foreign_keys {
            for c in fk.columns.iter_mut().filter(|c| c.eq_ignore_ascii_case(old)) {
                *c = new.to_string();
            }
        }
        self.renamed.push((old.to_string(), new.to_string()));
    }

    fn drop_column(&mut self, cx: &mut ExecCtx, name: &str, if_exists: bool) -> Result<(), SqlError> {
        // DROP names a column of the table as it was: one the statement adds is not there yet
        // (MariaDB's 1091).
        let at = self.position_of(name).filter(|&at| self.cols[at].source.is_some());
        let Some(at) = at else {
            if if_exists {
                cx.push_warning(WarnLevel::Note, 1091, format!("Can't DROP COLUMN `{name}`; check that it exists"));
                return Ok(());
            }
            return Err(error::cant_drop_column(name));
        };
        let gone = self.cols.remove(at);
        let id = gone.id;
        match &gone.def.generated {
            Some(g) if !g.stored => self.virtual_columns_changed = true,
            _ => self.base_columns_changed = true,
        }
        // Its own CHECK goes with it, and so does a table CHECK that names no column left (as
        // MariaDB); a table CHECK that names it and another column fails later (1054).
        let cols = &self.cols;
        self.constraints.checks.retain(|k| {
            if k.column.as_deref().is_some_and(|c| c.eq_ignore_ascii_case(&gone.def.name)) {
                return false;
            }
            let names = crate::generated::quoted_names(&k.expr);
            let names_gone = names.iter().any(|n| n.eq_ignore_ascii_case(&gone.def.name));
            let names_left = names.iter().any(|n| cols.iter().any(|c| c.def.name.eq_ignore_ascii_case(n)));
            k.column.is_some() || !names_gone || names_left
        });
        // Indexes lose the column, as in MariaDB; one left without columns is dropped.
        for ix in self.primary.iter_mut().chain(self.secondary.iter_mut()) {
            let before = ix.cols.len();
            ix.cols.retain(|(c, _, _)| *c != id);
            if ix.cols.len() != before && ix.shrunk.is_none() {
                ix.shrunk = Some(gone.def.name.clone());
            }
        }
        if self.primary.as_ref().is_some_and(|p| p.cols.is_empty()) {
            self.primary = None;
        }
        if self.secondary.iter().any(|i| i.unique && i.cols.is_empty()) {
            self.unique_indexes_changed = true;
        }
        self.secondary.retain(|i| !i.cols.is_empty());
        self.changed = true;
        Ok(())
    }

    fn add_index(&mut self, cx: &mut ExecCtx, spec: IndexSpec, if_not_exists: bool) -> Result<(), SqlError> {
        if let Some(n) = &spec.name {
            if self.index_names().iter().any(|x| x.eq_ignore_ascii_case(n)) {
                if if_not_exists {
                    cx.push_warning(WarnLevel::Note, 1061, format!("Duplicate key name '{n}'"));
                    return Ok(());
                }
                return Err(error::duplicate_key_name(n));
            }
            if n.eq_ignore_ascii_case("PRIMARY") && !spec.primary {
                return Err(error::incorrect_index_name(n));
            }
        }
        if spec.primary && self.primary.is_some() {
            return Err(error::multiple_primary_key());
        }
        let defs: Vec<ColumnDef> = self.cols.iter().map(|c| c.def.clone()).collect();
        let resolved = ddl::resolve_index(&spec, &defs, cx)?;
        let cols: Vec<(usize, Option<u32>, bool)> =
            resolved.iter().map(|c| (self.cols[c.column].id, c.prefix_len, c.descending)).collect();
        if spec.primary {
            for ic in &resolved {
                let c = &mut self.cols[ic.column];
                if c.def.nullable {
                    c.def.nullable = false;
                    if c.source.is_some() {
                        self.inplace_rebuild = true;
                    }
                }
            }
            self.primary = Some(Ix { old: None, name: "PRIMARY".into(), cols, unique: true, shrunk: None });
            self.inplace_rebuild = true;
        } else {
            let name = match spec.name {
                Some(n) => n,
                None => ddl::index_name(&self.cols[resolved[0].column].def.name, &self.index_names()),
            };
            if self.secondary.iter().any(|i| i.cols == cols && i.unique == spec.unique) {
                let msg =
                    format!("Duplicate index `{name}`. This is deprecated and will be disallowed in a future release");
                cx.push_warning(WarnLevel::Note, 1831, msg);
            }
            self.drop_implicit_foreign_key_index(&cols);
            self.unique_indexes_changed |= spec.unique;
            self.secondary.push(Ix { old: None, name, cols, unique: spec.unique, shrunk: None });
        }
        self.indexes_added += 1;
        self.changed = true;
        Ok(())
    }

    /// The index a foreign key got when it was added (named after the key, on exactly its
    /// columns) goes when a new index starting with those columns can serve the key instead,
    /// as InnoDB drops its implicitly created foreign key index (so that dropping the new index
    /// later is 1553, as in MariaDB).
    fn drop_implicit_foreign_key_index(&mut self, new: &[(usize, Option<u32>, bool)]) {
        let ids_of = |names: &[String]| -> Option<Vec<usize>> {
            names.iter().map(|n| self.cols.iter().find(|c| c.def.name.eq_ignore_ascii_case(n)).map(|c| c.id)).collect()
        };
        let implicit = self.secondary.iter().position(|ix| {
            ix.old.is_some()
                && !ix.unique
                && self.constraints.foreign_keys.iter().any(|fk| {
                    fk.name.eq_ignore_ascii_case(&ix.name)
                        && ids_of(&fk.columns).is_some_and(|ids| {
                            ix.cols.len() == ids.len()
                                && ix.cols.iter().zip(&ids).all(|((c, p, _), id)| c == id && p.is_none())
                                && new.len() >= ids.len()
                                && new.iter().zip(&ids).all(|((c, p, _), id)| c == id && p.is_none())
                        })
                })
        });
        if let Some(at) = implicit {
            self.secondary.remove(at);
        }
    }

    fn drop_index(&mut self, cx: &mut ExecCtx, name: &str, if_exists: bool) -> Result<(), SqlError> {
        if name.eq_ignore_ascii_case("PRIMARY") && self.primary.is_some() {
            return self.drop_primary();
        }
        // Only an index the table had: one the statement adds is not there yet (1091).
        match self.secondary.iter().position(|i| i.old.is_some() && i.name.eq_ignore_ascii_case(name)) {
            Some(at) => {
                let gone = self.secondary.remove(at);
                self.unique_indexes_changed |= gone.unique;
                self.changed = true;
                Ok(())
            }
            None if if_exists => {
                cx.push_warning(WarnLevel::Note, 1091, format!("Can't DROP INDEX `{name}`; check that it exists"));
                Ok(())
            }
            None => Err(error::cant_drop_field_or_key(name)),
        }
    }

    fn drop_primary(&mut self) -> Result<(), SqlError> {
        if self.primary.take().is_none() {
            return Err(error::cant_drop_field_or_key("PRIMARY"));
        }
        self.changed = true;
        Ok(())
    }

    fn apply(&mut self, b: &mut Binder, cx: &mut ExecCtx, op: &AlterOp) -> Result<(), SqlError> {
        match op {
            AlterOp::AddColumns { if_not_exists, columns, indexes } => {
                let several = columns.len() > 1;
                for (cd, pos) in columns {
                    // Columns in parentheses go at the end, in order.
                    let pos = if several { None } else { pos.as_ref() };
                    self.add_column(b, cx, cd, pos, *if_not_exists)?;
                }
                for c in indexes {
                    ddl::warn_ignored_primary_key_name(c, cx);
                    self.add_index(cx, ddl::spec_from_constraint(c)?, false)?;
                }
            }
            AlterOp::AddIndex { if_not_exists, constraint } => {
                ddl::warn_ignored_primary_key_name(constraint, cx);
                self.add_index(cx, ddl::spec_from_constraint(constraint)?, *if_not_exists)?;
            }
            AlterOp::DropColumn { if_exists, name } => self.drop_column(cx, name, *if_exists)?,
            AlterOp::DropIndex { if_exists, name } => self.drop_index(cx, name, *if_exists)?,
            AlterOp::DropPrimaryKey => self.drop_primary()?,
            AlterOp::DropForeignKey { .. } | AlterOp::DropConstraint { .. } => {
                return Err(error::internal("constraint operations are applied by crate::constraints"))
            }
            AlterOp::Modify { if_exists, old, column, position } => {
                let old = old.as_deref().unwrap_or(&column.name.value);
                self.modify(b, cx, old, column, position.as_ref(), *if_exists)?;
            }
            AlterOp::RenameColumn { old, new } => {
                let at = self.position_of(old).ok_or_else(|| self.unknown_column(old))?;
                if self.position_of(new).is_some_and(|o| o != at) {
                    return Err(error::duplicate_column(new));
                }
                ddl::check_identifier(new, error::wrong_column_name)?;
                let old_name = self.cols[at].def.name.clone();
                self.rename_in_constraints(&old_name, new);
                let mut defs: Vec<ColumnDef> = self.cols.iter().map(|c| c.def.clone()).collect();
                crate::generated::rename_column(&mut defs, &old_name, new);
                crate::defaults::rename_column(&mut defs, &old_name, new);
                for (c, d) in self.cols.iter_mut().zip(defs) {
                    c.def.generated = d.generated;
                    c.def.default = d.default;
                }
                self.cols[at].def.name = new.clone();
                self.changed = true;
            }
            AlterOp::RenameIndex { old, new } => {
                let table = self.t.name.clone();
                // Names are those the table had before the statement, as in MariaDB.
                let original = |i: &Ix| i.old.as_deref().is_some_and(|o| o.eq_ignore_ascii_case(old));
                let Some(at) = self.secondary.iter().position(original) else {
                    return Err(error::unknown_key(old, &table));
                };
                if new.eq_ignore_ascii_case("PRIMARY") {
                    return Err(error::incorrect_index_name(new));
                }
                let taken = self.primary.iter().any(|p| p.name.eq_ignore_ascii_case(new))
                    || self.secondary.iter().enumerate().any(|(i, x)| i != at && x.name.eq_ignore_ascii_case(new));
                if taken {
                    return Err(error::duplicate_key_name(new));
                }
                self.secondary[at].name = new.clone();
                self.changed = true;
            }
            AlterOp::SetDefault { column, default } => {
                let at = self.position_of(column).ok_or_else(|| self.unknown_column(column))?;
                let c = &self.cols[at].def;
                let null = if c.nullable { "NULL" } else { "NOT NULL" };
                let text = format!("`{}` {} {null} DEFAULT {default}", c.name.replace('`', "``"), c.ty.sql_name());
                let cd = column_def_from_text(&text)?;
                let (def, _, _) = column_from_def(b, cx, self.t, &cd)?;
                self.cols[at].def.default = def.default;
                self.changed = true;
            }
            AlterOp::DropDefault { column } => {
                let at = self.position_of(column).ok_or_else(|| self.unknown_column(column))?;
                self.cols[at].def.default = ColumnDefault::None;
                self.changed = true;
            }
            AlterOp::RenameTable(name) => {
                let (db, t) = ddl::ident_parts(name, Some(&self.t.db))?;
                ddl::check_identifier(&t, error::wrong_table_name)?;
                self.rename = Some((db, t));
            }
            AlterOp::Convert { charset, collation } => {
                self.options.charset = charset.to_ascii_lowercase();
                self.options.collation = collation.clone().unwrap_or_else(|| ddl::default_collation(charset));
                // Every character column takes the new character set and collation.
                if let Some(to) = crate::charset::Collation::named(&self.options.collation) {
                    for c in &mut self.cols {
                        if let ColumnType::Text { size } = c.def.ty {
                            c.def.ty = ColumnType::Text { size: text_size_for_charset(size, &c.def.collation, to) };
                        }
                        if matches!(
                            c.def.ty,
                            ColumnType::Char { .. } | ColumnType::VarChar { .. } | ColumnType::Text { .. }
                        ) {
                            c.def.collation = to.name().to_string();
                        }
                    }
                }
                self.convert = true;
                self.copy_reason.get_or_insert(REASON_COLUMN_TYPE);
                self.changed = true;
            }
            AlterOp::Engine(e) => {
                // An unknown engine is 1286 under NO_ENGINE_SUBSTITUTION, else a warning and the
                // table keeps its engine (variables::storage_engine says why the name is all that changes).
                let shown = match crate::variables::storage_engine(e) {
                    Some(shown) => shown,
                    None if cx.env.sql_mode.no_engine_substitution => return Err(error::unknown_storage_engine(e)),
                    None => {
                        cx.push_warning(WarnLevel::Warning, 1286, format!("Unknown storage engine '{e}'"));
                        &self.options.engine.clone()
                    }
                };
                if !shown.eq_ignore_ascii_case(&self.options.engine) {
                    self.copy_reason.get_or_insert(REASON_COLUMN_TYPE);
                    self.options.engine = shown.to_string();
                }
                self.force = true;
                self.changed = true;
            }
            AlterOp::Charset(c) => {
                self.options.charset = c.to_ascii_lowercase();
                self.options.collation = ddl::default_collation(c);
                self.copying_option = true;
                self.changed = true;
            }
            AlterOp::Collate(c) => {
                self.options.collation = c.to_ascii_lowercase();
                if let Some(cs) = c.split('_').next() {
                    self.options.charset = cs.to_ascii_lowercase();
                }
                self.copying_option = true;
                self.changed = true;
            }
            AlterOp::RowFormat(f) => {
                if matches!(f.as_str(), "FIXED" | "PAGE") && self.options.engine.eq_ignore_ascii_case("InnoDB") {
                    return Err(error::unsupported_create_option("InnoDB", "ROW_TYPE"));
                }
                let f = if f == "DEFAULT" { String::new() } else { f.clone() };
                if f != self.options.row_format {
                    self.options.row_format = f;
                    self.copying_option = true;
                    self.changed = true;
                }
            }
            AlterOp::StorageOption(name) => {
                // What MariaDB's base handler and Aria cannot change in place (the others, such
                // as KEY_BLOCK_SIZE or STATS_PERSISTENT, it changes in the .frm alone).
                let aria = self.options.engine.eq_ignore_ascii_case("Aria");
                if matches!(name.as_str(), "CHECKSUM" | "PACK_KEYS" | "MAX_ROWS")
                    || (aria && matches!(name.as_str(), "PAGE_CHECKSUM" | "TRANSACTIONAL"))
                {
                    self.copying_option = true;
                    self.changed = true;
                }
            }
            AlterOp::Comment(c) => {
                self.options.comment = c.clone();
                self.changed = true;
            }
            AlterOp::AutoIncrement(n) => self.auto_increment = Some(*n),
            AlterOp::Algorithm(a) => self.algorithm = *a,
            AlterOp::Lock(l) => self.lock = *l,
            AlterOp::UnknownAlgorithm(name) => {
                return Err(SqlError::new(1800, "HY000", format!("Unknown ALGORITHM '{name}'")));
            }
            AlterOp::UnknownLock(name) => {
                return Err(SqlError::new(1801, "HY000", format!("Unknown LOCK type '{name}'")))
            }
            AlterOp::Force => {
                self.force = true;
                self.changed = true;
            }
            AlterOp::OrderBy(columns) => {
                if let Some(c) = columns.iter().find(|c| self.position_of(c).is_none()) {
                    return Err(SqlError::new(1054, "42S22", format!("Unknown column '{c}' in 'ORDER BY'")));
                }
                // MariaDB copies the table for it (the rows copied are the rows affected).
                self.order_by = true;
                self.copy_unexplained = true;
                self.changed = true;
            }
        }
        Ok(())
    }

    /// MariaDB's table-wide checks once every operation is applied.
    fn check(&self) -> Result<(), SqlError> {
        if self.cols.is_empty() {
            return Err(error::cant_remove_all_fields());
        }
        let autos: Vec<usize> = self.cols.iter().filter(|c| c.def.auto_increment).map(|c| c.id).collect();
        if autos.len() > 1 {
            return Err(error::bad_auto_column());
        }
        if let Some(a) = autos.first() {
            let leads = self.primary.iter().chain(&self.secondary).any(|i| i.cols.first().is_some_and(|c| c.0 == *a));
            if !leads {
                return Err(error::bad_auto_column());
            }
        }
        // MariaDB refuses to narrow a PRIMARY or UNIQUE key by dropping one of its columns: the
        // rest would enforce a different uniqueness (a key dropped in the same statement or
        // left without columns is fine).
        for ix in self.primary.iter().chain(&self.secondary).filter(|i| i.unique) {
            if let Some(column) = &ix.shrunk {
                return Err(error::key_column_missing(column));
            }
        }
        Ok(())
    }

    /// 1845/1846 for an ALGORITHM or LOCK clause MariaDB could not honour for this change.
    fn check_algorithm(&self) -> Result<(), SqlError> {
        let named = |a: Algorithm| match a {
            Algorithm::Instant => "ALGORITHM=INSTANT",
            Algorithm::Inplace => "ALGORITHM=INPLACE",
            Algorithm::NoCopy => "ALGORITHM=NOCOPY",
            Algorithm::Copy => "ALGORITHM=COPY",
            Algorithm::Default => "ALGORITHM=DEFAULT",
        };
        let requested = self.algorithm;
        if self.copy_unexplained && matches!(requested, Algorithm::Instant | Algorithm::Inplace | Algorithm::NoCopy) {
            return Err(error::alter_operation_not_supported(named(requested), "ALGORITHM=COPY"));
        }
        if self.copy_unexplained && self.lock == LockKind::None {
            return Err(error::alter_operation_not_supported("LOCK=NONE", "LOCK=SHARED"));
        }
        if let Some(reason) = self.copy_reason {
            if matches!(requested, Algorithm::Instant | Algorithm::Inplace | Algorithm::NoCopy) {
                return Err(error::alter_operation_not_supported_reason(named(requested), reason, "ALGORITHM=COPY"));
            }
            if self.lock == LockKind::None {
                let reason = if requested == Algorithm::Copy { "COPY algorithm requires a lock" } else { reason };
                return Err(error::alter_operation_not_supported_reason("LOCK=NONE", reason, "LOCK=SHARED"));
            }
        }
        if requested == Algorithm::Copy && self.lock == LockKind::None {
            return Err(error::alter_operation_not_supported_reason(
                "LOCK=NONE",
                "COPY algorithm requires a lock",
                "LOCK=SHARED",
            ));
        }
        if (self.inplace_rebuild || self.force) && matches!(requested, Algorithm::Instant | Algorithm::NoCopy) {
            return Err(error::alter_operation_not_supported(named(requested), "ALGORITHM=INPLACE"));
        }
        if self.indexes_added > 0 && requested == Algorithm::Instant {
            return Err(error::alter_operation_not_supported_reason(
                "ALGORITHM=INSTANT",
                "ADD INDEX",
                "ALGORITHM=NOCOPY",
            ));
        }
        Ok(())
    }

    fn is_copy(&self) -> bool {
        self.copy_reason.is_some() || self.copy_unexplained || self.algorithm == Algorithm::Copy
    }

    /// Whether MariaDB's MyISAM, Aria or MEMORY table is copied for this change: their
    /// handlers change in place only what lives in the .frm alone (column and index names,
    /// defaults, comments, a VIRTUAL column's expression, ENUM members added at the end, most
    /// table options), and copy for anything that touches rows or indexes. `next_auto_increment`:
    /// the table's, which an AUTO_INCREMENT= that differs changes by a copy (MEMORY: always).
    fn handler_copies(&self, next_auto_increment: u64) -> bool {
        let t = self.t;
        let pk_same = match &self.primary {
            Some(p) => {
                p.old.is_some()
                    && p.shrunk.is_none()
                    && p.cols
                        == t.primary.columns.iter().map(|c| (c.column, c.prefix_len, c.descending)).collect::<Vec<_>>()
            }
            None => t.has_hidden_pk(),
        };
        let indexes_same = pk_same
            && self.indexes_added == 0
            && self.secondary.len() == t.secondary.len()
            && self.secondary.iter().all(|i| i.old.is_some() && i.shrunk.is_none());
        let columns_same = self.cols.len() == t.columns.len()
            && self.cols.iter().enumerate().all(|(j, c)| {
                let old = &t.columns[j];
                let new = &c.def;
                let generated_same = match (&old.generated, &new.generated) {
                    (None, None) => true,
                    (Some(a), Some(b)) => (!a.stored && !b.stored) || a == b,
                    _ => false,
                };
                c.source == Some(j)
                    && (same_type(&old.ty, &new.ty) || members_appended(&old.ty, &new.ty))
                    && old.nullable == new.nullable
                    && old.auto_increment == new.auto_increment
                    && old.collation == new.collation
                    && old.zerofill == new.zerofill
                    && generated_same
            });
        let memory = t.options.engine.eq_ignore_ascii_case("MEMORY");
        let auto_increment_moved = self.auto_increment.is_some_and(|n| memory || n != next_auto_increment);
        self.force || self.convert || self.copying_option || auto_increment_moved || !indexes_same || !columns_same
    }

    /// The final position of each column id.
    fn positions(&self) -> Vec<Option<usize>> {
        let mut pos = vec![None; self.next_id()];
        for (j, c) in self.cols.iter().enumerate() {
            pos[c.id] = Some(j);
        }
        pos
    }

    fn index_columns(&self, ix: &Ix, pos: &[Option<usize>]) -> Vec<IndexColumn> {
        ix.cols
            .iter()
            .map(|&(id, prefix_len, descending)| IndexColumn {
                column: pos[id].expect("indexed columns exist"),
                prefix_len,
                descending,
            })
            .collect()
    }

    /// Whether every row can keep its bytes and every kept index its tree.
    fn instant_possible(&self) -> bool {
        let old_pk: Vec<(usize, Option<u32>, bool)> =
            self.t.primary.columns.iter().map(|c| (c.column, c.prefix_len, c.descending)).collect();
        let pk_same = match &self.primary {
            Some(p) => p.old.is_some() && p.shrunk.is_none() && p.cols == old_pk,
            None => self.t.has_hidden_pk(),
        };
        let columns_keep_bytes = self.cols.iter().all(|c| match c.source {
            None => matches!(c.fill, Fill::Value(_)),
            Some(s) => {
                let old = &self.t.columns[s];
                (same_type(&old.ty, &c.def.ty) || instant_widening(&old.ty, &c.def.ty))
                    && (c.def.nullable || !old.nullable)
                    && (old.auto_increment || !c.def.auto_increment)
                    // Index keys hold sort keys of the column's collation: another collation
                    // needs new keys.
                    && (old.collation == c.def.collation || !self.t.indexes().any(|ix| ix.columns.iter().any(|ic| ic.column == s)))
            }
        });
        pk_same
            && columns_keep_bytes
            && self.indexes_added == 0
            && self.secondary.iter().all(|i| i.old.is_some() && i.shrunk.is_none())
            && !self.force
            && !self.convert
            && !self.is_copy()
    }
}

impl Edit<'_> {
    /// Whether the table's writers may go on while it is rebuilt (MariaDB's LOCK=NONE, its
    /// default for an INPLACE rebuild, a new primary key included; `Engine::rebuild_table`):
    /// converting a row may be done again on its newer version (no row numbering). A COPY (a
    /// type change, CONVERT TO, a primary key dropped without a new one) keeps the writers
    /// waiting, as MariaDB does.
    fn online_possible(&self) -> bool {
        !self.is_copy()
            && !self.convert
            && matches!(self.lock, LockKind::Default | LockKind::None)
            && self.cols.iter().all(|c| !matches!(c.fill, Fill::Sequence))
    }
}

fn column_def_from_text(text: &str) -> Result<ast::ColumnDef, SqlError> {
    let dialect = sqlparser::dialect::MySqlDialect {};
    let mut p = sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(text)
        .map_err(|e| crate::parse::syntax_error(text, &e))?;
    p.parse_column_def().map_err(|e| crate::parse::syntax_error(text, &e))
}

/// The error MariaDB's table copy gives where the store rules of INSERT give `e`, each checked
/// against MariaDB 10.11: a CHAR/VARCHAR cut short into a shorter one of the same character set
/// is a truncation (1265; its field copy cuts the string) where TEXT or another character set
/// goes through the store (1406); a string that is not a number is 1292 "Truncated incorrect
/// INTEGER/DECIMAL/DOUBLE value" (YEAR keeps 1366), and one that is not a date "Incorrect
/// datetime value" for DATE too.
fn copy_error(e: SqlError, old: &ColumnDef, new: &ColumnDef, text: Option<&str>, row: u64) -> SqlError {
    let plain_string = |c: &ColumnDef| matches!(c.ty, ColumnType::Char { .. } | ColumnType::VarChar { .. });
    let charset = |c: &ColumnDef| crate::charset::Collation::named(&c.collation).map(|c| c.charset_name());
    let same_charset = charset(old) == charset(new);
    match (e.code, text) {
        (1406, _) if plain_string(old) && plain_string(new) && same_charset => {
            SqlError::new(1265, "01000", format!("Data truncated for column '{}' at row {row}", new.name))
        }
        (1366, Some(v)) => {
            let kind = match new.ty {
                ColumnType::Int { .. } => "INTEGER",
                ColumnType::Decimal { .. } => "DECIMAL",
                ColumnType::Float { .. } | ColumnType::Double { .. } => "DOUBLE",
                _ => return e,
            };
            SqlError::new(1292, "22007", format!("Truncated incorrect {kind} value: '{v}'"))
        }
        (1292, Some(_)) if matches!(new.ty, ColumnType::Date) && e.message.starts_with("Incorrect date value") => {
            SqlError::new(1292, "22007", e.message.replacen("Incorrect date value", "Incorrect datetime value", 1))
        }
        _ => e,
    }
}

/// Runs one ALTER TABLE statement.
pub async fn alter_table(
    b: &mut Binder<'_>,
    cx: &mut ExecCtx<'_>,
    engine: &Engine,
    catalog: &Catalog,
    at: &AlterTable,
    current_db: Option<&str>,
) -> Result<AlterOutcome, SqlError> {
    let (db, name) = ddl::ident_parts(&at.name, current_db)?;
    ddl::reject_information_schema(&db)?;
    let Some(t) = catalog.table(&db, &name).cloned() else {
        if at.if_exists {
            cx.push_warning(WarnLevel::Error, 1146, format!("Table '{db}.{name}' doesn't exist"));
            return Ok(AlterOutcome { affected: 0, records: None });
        }
        return Err(error::no_such_table(&db, &name));
    };
    // FOREIGN KEY and CHECK clauses are crate::constraints' work: they run after the other
    // operations, each as a step of its own.
    let (constraint_ops, mut ops): (Vec<&AlterOp>, Vec<&AlterOp>) = at.ops.iter().partition(|op| is_constraint_op(op));
    // MariaDB drops the indexes a statement drops before it adds the ones it adds, wherever they
    // are written: `ADD KEY k2 (a), DROP INDEX k1` on k1 (a) is no duplicate (note 1831). A DROP
    // of an index the table lacks keeps its place (its note comes in statement order).
    let drops_existing = |op: &AlterOp| match op {
        AlterOp::DropPrimaryKey => true,
        AlterOp::DropIndex { name, .. } => t.indexes().any(|ix| ix.name.eq_ignore_ascii_case(name)),
        _ => false,
    };
    ops.sort_by_key(|op| !drops_existing(op));
    let mut edit = Edit::new(&t);
    for op in ops {
        edit.apply(b, cx, op)?;
    }
    edit.check()?;
    let to_innodb =
        !t.options.engine.eq_ignore_ascii_case("InnoDB") && edit.options.engine.eq_ignore_ascii_case("InnoDB");
    if to_innodb && matches!(edit.options.row_format.as_str(), "FIXED" | "PAGE") {
        // The table's ROW_FORMAT stays: InnoDB refuses to create it (as MariaDB).
        return Err(error::wrong_create_options(&t.db, &t.name));
    }
    if edit.cols.iter().any(|c| c.def.generated.is_some()) {
        let defs: Vec<ColumnDef> = edit.cols.iter().map(|c| c.def.clone()).collect();
        crate::generated::check_table(catalog, &t.db, &t.name, &defs)?;
        let generated_key = |ix: &Ix| {
            ix.cols.iter().any(|(id, _, _)| edit.cols.iter().any(|c| c.id == *id && c.def.generated.is_some()))
        };
        if edit.primary.as_ref().is_some_and(generated_key) {
            return Err(crate::generated::primary_key_refused());
        }
    }
    if edit.cols.iter().any(|c| matches!(c.def.default, ColumnDefault::Expression(_))) {
        let defs: Vec<ColumnDef> = edit.cols.iter().map(|c| c.def.clone()).collect();
        crate::defaults::check_table(catalog, &t.db, &t.name, &defs)?;
    }
    if edit.changed {
        // DROP FOREIGN KEY / DROP CONSTRAINT in the same statement free their key's index.
        let dropped: Vec<&str> = constraint_ops
            .iter()
            .filter_map(|op| match op {
                AlterOp::DropForeignKey { name } | AlterOp::DropConstraint { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        check_foreign_key_indexes(catalog, &t, &edit, &dropped)?;
        check_foreign_key_columns(catalog, &t, &edit, &dropped)?;
    }
    if edit.changed && !(t.constraints.is_empty() && edit.constraints.is_empty()) {
        check_constraints_survive(catalog, &t, &edit)?;
    }
    // Without a primary key InnoDB clusters on the first UNIQUE index of NOT NULL columns, in
    // place; with none it must copy.
    let unique_not_null = edit.secondary.iter().any(|i| {
        i.unique
            && i.cols
                .iter()
                .all(|(id, prefix, _)| prefix.is_none() && edit.cols.iter().any(|c| c.id == *id && !c.def.nullable))
    });
    if !t.has_hidden_pk() && edit.primary.is_none() && !unique_not_null {
        edit.copy_reason.get_or_insert(REASON_DROP_PRIMARY);
    }
    if edit.order_by && (edit.primary.is_some() || unique_not_null) {
        // InnoDB keeps rows in its clustered index's order, whatever order they are copied in.
        let message = format!("ORDER BY ignored as there is a user-defined clustered index in the table '{}'", t.name);
        cx.push_warning(WarnLevel::Warning, 1105, message);
    }
    if edit.virtual_columns_changed && (edit.unique_indexes_changed || edit.base_columns_changed) {
        edit.copy_unexplained = true;
    }
    if !t.options.engine.eq_ignore_ascii_case("InnoDB") {
        // MyISAM, Aria and MEMORY have no INSTANT or INPLACE ALTER of their own: what
        // MariaDB's base handler cannot do in the .frm alone is a copy, InnoDB's reasons aside
        // (1845 without a reason for ALGORITHM=INPLACE, as MariaDB).
        let copies = edit.handler_copies(engine.peek_auto_increment(&t));
        edit.copy_reason = None;
        edit.inplace_rebuild = false;
        edit.copy_unexplained = copies;
        edit.changed |= copies;
    }
    edit.check_algorithm()?;

    let mut affected = 0;
    if edit.changed {
        let pos = edit.positions();
        let columns: Vec<ColumnDef> = edit.cols.iter().map(|c| c.def.clone()).collect();
        let primary_key = edit.primary.as_ref().map(|p| edit.index_columns(p, &pos)).unwrap_or_default();
        let lone_index_add = edit.indexes_added == 1
            && edit.secondary.last().is_some_and(|i| i.old.is_none())
            && edit.secondary.len() == t.secondary.len() + 1
            && edit.secondary.iter().zip(&t.secondary).all(|(a, b)| a.name == b.name && a.shrunk.is_none())
            && edit.cols.iter().enumerate().all(|(j, c)| c.source == Some(j) && c.def == t.columns[j])
            && edit.options == t.options
            && !edit.force
            && !edit.recompute
            && !edit.is_copy();
        if lone_index_add {
            let ix = edit.secondary.last().expect("checked");
            let new = NewIndex { name: ix.name.clone(), columns: edit.index_columns(ix, &pos), unique: ix.unique };
            // LOCK=NONE is MariaDB's default for ADD INDEX: writers go on during the build.
            if matches!(edit.lock, LockKind::Default | LockKind::None) {
                engine.create_index_online(&t.db, &t.name, new).await?;
            } else {
                engine.create_index(&t.db, &t.name, new).await?;
            }
        } else if !edit.recompute && edit.instant_possible() {
            let change = InstantAlter {
                added: edit
                    .cols
                    .iter()
                    .map(|c| match (&c.source, &c.fill) {
                        (None, Fill::Value(d)) => d.clone(),
                        _ => Datum::Null,
                    })
                    .collect(),
                sources: edit.cols.iter().map(|c| c.source).collect(),
                columns,
                primary_key,
                kept_indexes: edit
                    .secondary
                    .iter()
                    .map(|i| (i.old.clone().unwrap_or_default(), i.name.clone(), edit.index_columns(i, &pos)))
                    .collect(),
                options: edit.options.clone(),
                constraints: edit.changed_constraints(),
            };
            engine.alter_table_instant(&t.db, &t.name, &t, change).await?;
        } else {
            // Strict mode as for INSERT: a value the new column cannot hold aborts the ALTER.
            let strict = cx.sql_mode_is_strict();
            let saved = cx.set_strict(strict);
            let rows = rebuild(engine, catalog, cx, &t, &edit, columns, primary_key, &pos).await;
            cx.set_strict(saved);
            let rows = rows?;
            if edit.is_copy() {
                affected = rows;
            }
        }
    }
    crate::constraints::after_column_renames(engine, &t.db, &t.name, &edit.renamed).await?;
    if let Some(n) = edit.auto_increment {
        engine.set_auto_increment(&t.db, &t.name, n).await?;
    }
    let (mut db, mut name) = (t.db.clone(), t.name.clone());
    if let Some((ndb, nt)) = &edit.rename {
        if !(ndb == &t.db && nt == &t.name) {
            engine.rename_table(&t.db, &t.name, ndb, nt).await?;
            crate::constraints::after_rename(engine, &t.db, &t.name, ndb, nt).await?;
            (db, name) = (ndb.clone(), nt.clone());
        }
    }
    for op in constraint_ops {
        let current = engine.catalog().table(&db, &name).cloned().ok_or_else(|| error::no_such_table(&db, &name))?;
        match op {
            AlterOp::AddIndex { constraint, .. } => {
                // MariaDB checks every constraint of the statement in its one copy of the table:
                // the rows copied count once.
                let copied = crate::constraints::add_constraint(engine, &mut *cx, &current, constraint).await?;
                affected = affected.max(copied);
            }
            AlterOp::DropForeignKey { name } => {
                let kind = crate::constraints::DropKind::ForeignKey;
                crate::constraints::drop_constraint(engine, &current, name, kind, false).await?;
            }
            AlterOp::DropConstraint { if_exists, name } => {
                let kind = crate::constraints::DropKind::Any;
                if !crate::constraints::drop_constraint(engine, &current, name, kind, *if_exists).await? {
                    let message = format!("Can't DROP CONSTRAINT `{name}`; check that it exists");
                    cx.push_warning(WarnLevel::Note, 1091, message);
                }
            }
            _ => unreachable!("partitioned by is_constraint_op"),
        }
    }
    Ok(AlterOutcome { affected, records: Some(affected) })
}

/// ADD FOREIGN KEY / CHECK, DROP FOREIGN KEY, DROP CONSTRAINT.
fn is_constraint_op(op: &AlterOp) -> bool {
    match op {
        AlterOp::AddIndex { constraint, .. } => crate::constraints::is_constraint_clause(constraint),
        AlterOp::DropForeignKey { .. } | AlterOp::DropConstraint { .. } => true,
        _ => false,
    }
}

/// The table's constraints name columns: one that a dropped or renamed column would leave
/// dangling is refused (MariaDB: 1828 for a foreign key column; a CHECK that no longer binds
/// gives its own error). Foreign keys are not renamed along with their columns (InnoDB does).
fn check_constraints_survive(catalog: &Catalog, t: &Arc<TableDef>, edit: &Edit) -> Result<(), SqlError> {
    let names: Vec<&str> = edit.cols.iter().map(|c| c.def.name.as_str()).collect();
    let has = |c: &str| names.iter().any(|n| n.eq_ignore_ascii_case(c));
    for fk in &edit.constraints.foreign_keys {
        if let Some(gone) = fk.columns.iter().find(|c| !has(c)) {
            let message = format!("Cannot drop column '{gone}': needed in a foreign key constraint '{}'", fk.name);
            return Err(SqlError::new(1828, "HY000", message));
        }
    }
    let mut after = TableDef::clone(t);
    after.columns = edit.cols.iter().map(|c| c.def.clone()).collect();
    let after = Arc::new(after);
    for check in &edit.constraints.checks {
        crate::constraints::bind_check(catalog, &after, &check.expr)?;
    }
    Ok(())
}

/// MariaDB's 1553: an index that served a foreign key (the key's columns first in it, in order:
/// a child's columns, or the referenced columns of a key that references this table) may go,
/// by DROP INDEX or with a dropped column, only if another index serves the key afterwards.
/// Checked whatever foreign_key_checks says, as MariaDB does.
fn check_foreign_key_indexes(catalog: &Catalog, t: &TableDef, edit: &Edit, dropped: &[&str]) -> Result<(), SqlError> {
    let old_position = |name: &String| t.columns.iter().position(|c| c.name.eq_ignore_ascii_case(name));
    let is_dropped = |name: &str| dropped.iter().any(|d| d.eq_ignore_ascii_case(name));
    let kept_by_name = |name: &str| {
        edit.constraints.foreign_keys.iter().any(|fk| fk.name.eq_ignore_ascii_case(name)) && !is_dropped(name)
    };
    // The keys as the old table's column positions: this table's foreign keys the statement
    // keeps, and every key (this table's included) that references this table.
    let mut keys: Vec<Vec<usize>> = Vec::new();
    let child = t.constraints.foreign_keys.iter().filter(|fk| kept_by_name(&fk.name)).map(|fk| &fk.columns);
    let parent = catalog
        .tables
        .values()
        .flat_map(|other| other.constraints.foreign_keys.iter().map(move |fk| (other, fk)))
        .filter(|(other, fk)| {
            fk.ref_db == t.db && fk.ref_table == t.name && !(other.id == t.id && is_dropped(&fk.name))
        })
        .map(|(_, fk)| &fk.ref_columns);
    for names in child.chain(parent) {
        if let Some(key) = names.iter().map(old_position).collect::<Option<Vec<usize>>>() {
            keys.push(key);
        }
    }
    let old_serves = |ix: &selkie_storage::IndexDef, key: &[usize]| {
        ix.columns.len() >= key.len() && ix.columns.iter().zip(key).all(|(c, k)| c.column == *k)
    };
    for key in &keys {
        // The key after the statement, as the edit's stable column ids (None: a column went).
        let ids: Option<Vec<usize>> =
            key.iter().map(|&pos| edit.cols.iter().find(|c| c.source == Some(pos)).map(|c| c.id)).collect();
        let served_after = ids.as_ref().is_some_and(|ids| {
            edit.primary
                .iter()
                .chain(&edit.secondary)
                .any(|ix| ix.cols.len() >= ids.len() && ix.cols.iter().zip(ids).all(|((c, _, _), id)| c == id))
        });
        if served_after {
            continue;
        }
        let server = t.secondary.iter().chain(std::iter::once(&t.primary)).find(|ix| old_serves(ix, key));
        if let Some(ix) = server {
            let message = format!("Cannot drop index '{}': needed in a foreign key constraint", ix.name);
            return Err(SqlError::new(1553, "HY000", message));
        }
    }
    Ok(())
}

/// How a column of a foreign key may change, as MariaDB 10.11 decides (whatever
/// foreign_key_checks says): its name, default, comment, NULL-ness and an integer's display
/// width, nothing else.
enum ForeignKeyColumnChange {
    Allowed,
    /// Refused by the server's own check (messages name `db.table` and the key).
    Refused,
    /// A longer VARCHAR or another collation of the character set: the server lets it through
    /// and InnoDB refuses it, naming the key and table its own way (`db/name`).
    RefusedByInnoDb,
}

fn foreign_key_column_change(old: &ColumnDef, new: &ColumnDef) -> ForeignKeyColumnChange {
    let charset = |c: &ColumnDef| crate::charset::Collation::named(&c.collation).map(|c| c.charset_name());
    if old.collation != new.collation && charset(old) != charset(new) {
        return ForeignKeyColumnChange::Refused;
    }
    let widened = match (&old.ty, &new.ty) {
        (ColumnType::VarChar { len: a }, ColumnType::VarChar { len: b })
        | (ColumnType::VarBinary { len: a }, ColumnType::VarBinary { len: b }) => b > a,
        _ => false,
    };
    if widened {
        return ForeignKeyColumnChange::RefusedByInnoDb;
    }
    if !same_type(&old.ty, &new.ty) {
        return ForeignKeyColumnChange::Refused;
    }
    if old.collation != new.collation {
        return ForeignKeyColumnChange::RefusedByInnoDb;
    }
    ForeignKeyColumnChange::Allowed
}

/// MODIFY / CHANGE of a column that a foreign key uses: 1833 when a key of another table (or
/// of this one) references it, 1832 when it is one of this table's keys' own columns, unless
/// the statement drops that key (`dropped`).
fn check_foreign_key_columns(catalog: &Catalog, t: &TableDef, edit: &Edit, dropped: &[&str]) -> Result<(), SqlError> {
    let is_dropped = |name: &str| dropped.iter().any(|d| d.eq_ignore_ascii_case(name));
    for c in &edit.cols {
        let Some(source) = c.source else { continue };
        let old = &t.columns[source];
        let refused = match foreign_key_column_change(old, &c.def) {
            ForeignKeyColumnChange::Allowed => continue,
            ForeignKeyColumnChange::Refused => false,
            ForeignKeyColumnChange::RefusedByInnoDb => true,
        };
        let named = |n: &String| n.eq_ignore_ascii_case(&old.name);
        let referencing = catalog
            .tables
            .values()
            .flat_map(|other| other.constraints.foreign_keys.iter().map(move |fk| (other, fk)))
            .find(|(other, fk)| {
                fk.ref_db == t.db
                    && fk.ref_table == t.name
                    && fk.ref_columns.iter().any(named)
                    && !(other.id == t.id && is_dropped(&fk.name))
            });
        if let Some((other, fk)) = referencing {
            let (key, table) = if refused {
                (format!("{}/{}", other.db, fk.name), format!("{}/{}", other.db, other.name))
            } else {
                (fk.name.clone(), format!("{}.{}", other.db, other.name))
            };
            return Err(error::foreign_key_column_referenced(&old.name, &key, &table));
        }
        let own = t.constraints.foreign_keys.iter().find(|fk| fk.columns.iter().any(named) && !is_dropped(&fk.name));
        if let Some(fk) = own {
            let key = if refused { format!("{}/{}", t.db, fk.name) } else { fk.name.clone() };
            return Err(error::foreign_key_column_in_key(&old.name, &key));
        }
    }
    Ok(())
}

/// The copy: each row converted to the new columns with the store rules of INSERT, numbered as
/// MariaDB numbers them in its messages (`at row N`, 1-based in the order of the old primary key).
#[allow(clippy::too_many_arguments)]
async fn rebuild(
    engine: &Engine,
    catalog: &Catalog,
    cx: &mut ExecCtx<'_>,
    t: &Arc<TableDef>,
    edit: &Edit<'_>,
    columns: Vec<ColumnDef>,
    primary_key: Vec<IndexColumn>,
    pos: &[Option<usize>],
) -> Result<u64, SqlError> {
    let indexes = edit
        .secondary
        .iter()
        .map(|i| NewIndex { name: i.name.clone(), columns: edit.index_columns(i, pos), unique: i.unique })
        .collect();
    let new = TableRebuild {
        columns: columns.clone(),
        primary_key,
        indexes,
        options: edit.options.clone(),
        auto_increment: edit.auto_increment,
        online: edit.online_possible(),
        constraints: edit.changed_constraints(),
    };
    enum Source {
        Old { at: usize, convert: bool },
        Value(Datum),
        Sequence,
        Expression,
    }
    let plan: Vec<Source> = edit
        .cols
        .iter()
        .map(|c| match (c.source, &c.fill) {
            (Some(s), _) => {
                let old = &t.columns[s];
                let convert = edit.convert || old.ty != c.def.ty || (old.nullable && !c.def.nullable);
                Source::Old { at: s, convert }
            }
            (None, Fill::Value(d)) => Source::Value(d.clone()),
            (None, Fill::Sequence) => Source::Sequence,
            (None, Fill::Expression) => Source::Expression,
        })
        .collect();
    // Added columns with a DEFAULT (expr): each row gets its own value, computed on the new row.
    let added: Vec<bool> = plan.iter().map(|f| matches!(f, Source::Expression)).collect();
    let defaults = match added.contains(&true) {
        true => crate::defaults::values_for_columns(catalog, &t.db, &t.name, &columns)?,
        false => None,
    };
    // Generated columns are computed again on every row: their expression or the columns they
    // read may have changed.
    let generated = crate::generated::values_for_columns(catalog, &t.db, &t.name, &columns)?;
    let (db, table) = (t.db.clone(), t.name.clone());
    // A converted TIMESTAMP is read as the session sees it (a DATETIME made of it shows the
    // session's time, as in MariaDB) and stored again from there.
    let old_columns: Vec<ColumnDef> = t.columns.clone();
    let mut row_no = 0u64;
    let mut sequence = 0u64;
    let cx: &mut ExecCtx = cx;
    let map = move |old: Vec<Datum>| -> Result<Vec<Datum>, SqlError> {
        row_no += 1;
        let mut out = Vec::with_capacity(plan.len());
        for (f, col) in plan.iter().zip(&columns) {
            out.push(match f {
                Source::Old { at, convert } => {
                    let v = old[*at].clone();
                    if v.is_null() {
                        if col.nullable {
                            Datum::Null
                        } else {
                            // MariaDB copies NULL into a NOT NULL column as a truncation.
                            let msg = format!("Data truncated for column '{}' at row {row_no}", col.name);
                            if cx.strict() {
                                return Err(SqlError::new(1265, "01000", msg));
                            }
                            cx.push_warning(WarnLevel::Warning, 1265, msg);
                            value::implicit_default(&col.ty)
                        }
                    } else if *convert {
                        let v = crate::exec::access::session_value(&old_columns[*at], &v, cx);
                        let target = StoreTarget { db: &db, table: &table, row: row_no };
                        let text = match &v {
                            Datum::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
                            _ => None,
                        };
                        match value::store_for_column_at(v, col, Some(&target), &*cx) {
                            Ok(v) => v,
                            Err(e) => return Err(copy_error(e, &old_columns[*at], col, text.as_deref(), row_no)),
                        }
                    } else {
                        v
                    }
                }
                Source::Value(d) => d.clone(),
                Source::Expression => crate::defaults::record_value(col),
                Source::Sequence => {
                    sequence += 1;
                    match col.ty {
                        ColumnType::Int { unsigned: true, .. } => Datum::UInt(sequence),
                        _ => Datum::Int(sequence as i64),
                    }
                }
            });
        }
        if let Some((def, values)) = &defaults {
            let mut store = |v: Datum, pos: usize, cx: &mut ExecCtx| {
                let col = &def.columns[pos];
                if v.is_null() && !col.nullable {
                    let msg = format!("Data truncated for column '{}' at row {row_no}", col.name);
                    if cx.strict() {
                        return Err(SqlError::new(1265, "01000", msg));
                    }
                    cx.push_warning(WarnLevel::Warning, 1265, msg);
                    return Ok(value::implicit_default(&col.ty));
                }
                let target = StoreTarget { db: &def.db, table: &def.name, row: row_no };
                value::store_for_column_at(v, col, Some(&target), &*cx)
            };
            values.fill_added(&added, &mut out, &mut store, cx)?;
        }
        if let Some((def, values)) = &generated {
            values.fill(def, &mut out, row_no, cx)?;
        }
        Ok(out)
    };
    engine.rebuild_table(&t.db, &t.name, t, new, map).await
}

/// The TEXT size a TEXT column of collation `from` takes when CONVERT TO CHARACTER SET moves it
/// to `to`: the smallest that holds as many characters as before (a latin1 MEDIUMTEXT becomes a
/// utf8mb4 LONGTEXT, a utf8mb3 TINYTEXT a TEXT), never a smaller one, as MariaDB.
fn text_size_for_charset(
    size: selkie_storage::LobSize,
    from: &str,
    to: crate::charset::Collation,
) -> selkie_storage::LobSize {
    use selkie_storage::LobSize;
    let Some(from) = crate::charset::Collation::named(from) else {
        return size;
    };
    let chars = size.max_len() / from.charset().max_len.max(1);
    let needed = chars.saturating_mul(to.charset().max_len);
    [LobSize::Tiny, LobSize::Normal, LobSize::Medium, LobSize::Long]
        .into_iter()
        .filter(|s| s.max_len() >= size.max_len())
        .find(|s| s.max_len() >= needed)
        .unwrap_or(LobSize::Long)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varchar_widens_in_place_within_its_length_bytes() {
        let vc = |len| ColumnType::VarChar { len };
        assert!(instant_widening(&vc(20), &vc(63)));
        assert!(!instant_widening(&vc(20), &vc(64)));
        assert!(instant_widening(&vc(200), &vc(300)));
        assert!(!instant_widening(&vc(30), &vc(20)));
        let int = |dw| ColumnType::Int { width: selkie_storage::IntWidth::Int, unsigned: false, display_width: dw };
        assert!(same_type(&int(None), &int(Some(5))));
    }
}
