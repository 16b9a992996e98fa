//! LOAD DATA [LOCAL] INFILE: the file's lines split into fields as MariaDB's READ_INFO does
//! (FIELDS TERMINATED / [OPTIONALLY] ENCLOSED / ESCAPED BY, LINES STARTING / TERMINATED BY),
//! then inserted through the INSERT ... SELECT path one row at a time, without statements per
//! row: conversions and their warnings ("at row N"), AUTO_INCREMENT intervals, IGNORE / REPLACE
//! and constraints are those of INSERT.
//!
//! Strictness follows MariaDB: strict mode errors abort the load unless IGNORE or LOCAL (LOCAL
//! implies IGNORE); a line with too few fields sets the missing columns to NULL or, NOT NULL,
//! their type's implicit value (warning 1261), one with too many drops the rest (1262).

use std::sync::Arc;

use selkie_storage::TableDef;

use crate::bind::Binder;
use crate::dml::{self, DmlOutcome, InfoKind, InsertMode, InsertPlan, InsertSource, RowSource};
use crate::error::SqlError;
use crate::exec::ctx::ExecCtx;
use crate::parse::data_file::{FileFormat, LoadData, LoadDuplicates, LoadTarget};
use crate::plan::Expr;
use crate::types::{Value, WarnLevel};
use crate::user_variables::Assigned;

/// Where a field of the file goes.
#[derive(Debug)]
enum FieldTarget {
    /// A position in the insert plan's column list.
    Column(usize),
    Var(String),
}

#[derive(Debug)]
pub struct LoadPlan {
    pub insert: InsertPlan,
    fields: Vec<FieldTarget>,
    /// SET assignments: (position in the column list, table column, expression on a table row
    /// holding the fields loaded so far).
    set: Vec<(usize, usize, Expr)>,
    format: FileFormat,
    ignore_lines: u64,
    duplicates: LoadDuplicates,
    pub data: Arc<Vec<u8>>,
}

/// Binds LOAD DATA on `data` (the file's bytes). The binder must have one (empty) scope pushed.
pub fn bind(b: &mut Binder, l: &LoadData, data: Arc<Vec<u8>>) -> Result<LoadPlan, SqlError> {
    let name = match &l.db {
        Some(db) => sqlparser::ast::ObjectName::from(vec![
            sqlparser::ast::Ident::new(db.clone()),
            sqlparser::ast::Ident::new(l.table.clone()),
        ]),
        None => sqlparser::ast::ObjectName::from(vec![sqlparser::ast::Ident::new(l.table.clone())]),
    };
    let (_, table) = b.lookup_table(&name)?;
    let unknown = |c: &str| SqlError::new(1054, "42S22", format!("Unknown column '{c}' in 'SELECT'"));
    let mut columns: Vec<usize> = Vec::new();
    let mut fields = Vec::new();
    let targets: Vec<LoadTarget> = if l.targets.is_empty() {
        table.columns.iter().map(|c| LoadTarget::Column(c.name.clone())).collect()
    } else {
        l.targets.clone()
    };
    for t in &targets {
        match t {
            LoadTarget::Column(c) => {
                let pos = table.column_index(c).ok_or_else(|| unknown(c))?;
                fields.push(FieldTarget::Column(columns.len()));
                columns.push(pos);
            }
            LoadTarget::Var(v) => fields.push(FieldTarget::Var(v.clone())),
        }
    }
    dml::push_target(b, &table);
    let mut set = Vec::new();
    for (c, text) in &l.set {
        let pos = table.column_index(c).ok_or_else(|| unknown(c))?;
        let expr = b.bind_expr(&crate::parse::stored_expr::parse_expr(text)?)?.expr;
        let at = match columns.iter().position(|p| *p == pos) {
            Some(at) => at,
            None => {
                columns.push(pos);
                columns.len() - 1
            }
        };
        set.push((at, pos, expr));
    }
    let mode = match l.duplicates {
        LoadDuplicates::Error => InsertMode::Insert,
        LoadDuplicates::Ignore => InsertMode::Ignore,
        LoadDuplicates::Replace => InsertMode::Replace,
    };
    let insert = InsertPlan {
        table: table.clone(),
        columns,
        source: InsertSource::Values(Vec::new()),
        mode,
        on_duplicate: None,
        report_records: true,
        rules: crate::constraints::rules_for(b.env.catalog, &table)?,
        returning: None,
        generated: crate::generated::values_for(b.env.catalog, &table)?,
        defaults: crate::defaults::values_for(b.env.catalog, &table)?,
    };
    Ok(LoadPlan {
        insert,
        fields,
        set,
        format: l.format.clone(),
        ignore_lines: l.ignore_lines,
        duplicates: l.duplicates,
        data,
    })
}

/// LOAD DATA: affected rows as INSERT / REPLACE count them; "Records: ...  Deleted: ...
/// Skipped: ..." as MariaDB reports.
pub async fn execute(plan: &LoadPlan, cx: &mut ExecCtx<'_>) -> Result<DmlOutcome, SqlError> {
    let mut reader = FieldReader { data: &plan.data, pos: 0, f: &plan.format };
    for _ in 0..plan.ignore_lines {
        if reader.next_line().is_none() {
            break;
        }
    }
    let mut rows = LoadRows { plan, reader, table: &plan.insert.table };
    let (mut out, records, duplicates) = dml::insert_from_source(&plan.insert, &mut rows, cx).await?;
    let (deleted, skipped) = match plan.duplicates {
        LoadDuplicates::Replace => (duplicates, 0),
        _ => (0, duplicates),
    };
    out.info = Some(InfoKind::Loaded { records, deleted, skipped });
    Ok(out)
}

struct LoadRows<'p> {
    plan: &'p LoadPlan,
    reader: FieldReader<'p>,
    table: &'p Arc<TableDef>,
}

impl RowSource for LoadRows<'_> {
    fn next_row(&mut self, row_number: u64, cx: &mut ExecCtx) -> Result<Option<Vec<Option<Value>>>, SqlError> {
        let Some(fields) = self.reader.next_line() else {
            return Ok(None);
        };
        let plan = self.plan;
        let targets = plan.fields.len();
        if fields.len() < targets {
            cx.push_warning(WarnLevel::Warning, 1261, format!("Row {row_number} doesn't contain data for all columns"));
        } else if fields.len() > targets {
            cx.push_warning(
                WarnLevel::Warning,
                1262,
                format!("Row {row_number} was truncated; it contained more data than there were input columns"),
            );
        }
        let mut out: Vec<Option<Value>> = vec![None; plan.insert.columns.len()];
        let mut fields = fields.into_iter();
        for target in &plan.fields {
            let v = match fields.next() {
                Some(Some(bytes)) => Value::Bytes(bytes),
                Some(None) => Value::Null,
                None => match target {
                    FieldTarget::Column(at) => {
                        let c = &self.table.columns[plan.insert.columns[*at]];
                        if c.nullable || c.auto_increment {
                            Value::Null
                        } else {
                            crate::value::implicit_default(&c.ty)
                        }
                    }
                    FieldTarget::Var(_) => Value::Null,
                },
            };
            match target {
                FieldTarget::Column(at) => out[*at] = Some(v),
                // A field read into a variable is text of the file's character set (the database's,
                // utf8mb4, as CHARACTER SET is not read).
                FieldTarget::Var(name) => {
                    cx.set_user_var(name, v, Assigned::Text(crate::value::default_text_collation()))
                }
            }
        }
        if !plan.set.is_empty() {
            let mut row = vec![Value::Null; self.table.columns.len()];
            for (at, pos) in plan.insert.columns.iter().enumerate() {
                if let Some(Some(v)) = out.get(at) {
                    row[*pos] = v.clone();
                }
            }
            for (at, pos, e) in &plan.set {
                let v = e.eval(&row, cx)?;
                row[*pos] = v.clone();
                out[*at] = Some(v);
            }
        }
        Ok(Some(out))
    }
}

/// Splits the file into lines of fields (None: NULL).
struct FieldReader<'a> {
    data: &'a [u8],
    pos: usize,
    f: &'a FileFormat,
}

impl FieldReader<'_> {
    fn at(&self, s: &[u8]) -> bool {
        !s.is_empty() && self.data[self.pos..].starts_with(s)
    }

    /// The next line's fields; None at the end of the data.
    fn next_line(&mut self) -> Option<Vec<Option<Vec<u8>>>> {
        let f = self.f;
        if self.pos >= self.data.len() {
            return None;
        }
        if !f.lines_starting.is_empty() {
            // Text before the prefix, and lines without it, are skipped.
            let rest = &self.data[self.pos..];
            let found = rest.windows(f.lines_starting.len()).position(|w| w == f.lines_starting.as_slice())?;
            self.pos += found + f.lines_starting.len();
        }
        let mut fields = Vec::new();
        loop {
            let (field, end) = self.next_field();
            fields.push(field);
            match end {
                FieldEnd::Field => continue,
                FieldEnd::Line | FieldEnd::Data => return Some(fields),
            }
        }
    }

    fn next_field(&mut self) -> (Option<Vec<u8>>, FieldEnd) {
        let f = self.f;
        let mut out = Vec::new();
        let enclosed = f.enclosed.filter(|q| self.data.get(self.pos) == Some(q));
        if let Some(q) = enclosed {
            self.pos += 1;
            loop {
                let Some(&b) = self.data.get(self.pos) else {
                    return (Some(out), FieldEnd::Data);
                };
                if Some(b) == f.escaped && self.pos + 1 < self.data.len() {
                    out.push(unescape(self.data[self.pos + 1]));
                    self.pos += 2;
                    continue;
                }
                if b == q {
                    if self.data.get(self.pos + 1) == Some(&q) {
                        out.push(q);
                        self.pos += 2;
                        continue;
                    }
                    self.pos += 1;
                    if let Some(end) = self.field_end() {
                        return (Some(out), end);
                    }
                    // A quote inside the field: data.
                    out.push(q);
                    continue;
                }
                out.push(b);
                self.pos += 1;
            }
        }
        let start = self.pos;
        let mut escaped_null = false;
        let end = loop {
            if let Some(end) = self.field_end() {
                break end;
            }
            let b = self.data[self.pos];
            if Some(b) == f.escaped && self.pos + 1 < self.data.len() {
                let next = self.data[self.pos + 1];
                escaped_null = next == b'N' && self.pos == start;
                out.push(unescape(next));
                self.pos += 2;
                continue;
            }
            escaped_null = false;
            out.push(b);
            self.pos += 1;
        };
        if escaped_null && out == b"N" {
            return (None, end);
        }
        // With FIELDS ENCLOSED BY, an unquoted NULL is NULL.
        if f.enclosed.is_some() && out == b"NULL" && self.data[start..].starts_with(b"NULL") {
            return (None, end);
        }
        (Some(out), end)
    }

    /// Consumes a field or line terminator at the current position, if one is there.
    fn field_end(&mut self) -> Option<FieldEnd> {
        if self.pos >= self.data.len() {
            return Some(FieldEnd::Data);
        }
        if self.at(&self.f.fields_terminated) {
            self.pos += self.f.fields_terminated.len();
            return Some(FieldEnd::Field);
        }
        if self.at(&self.f.lines_terminated) {
            self.pos += self.f.lines_terminated.len();
            return Some(FieldEnd::Line);
        }
        None
    }
}

enum FieldEnd {
    Field,
    Line,
    Data,
}

/// The byte an escape sequence `\x` stands for.
fn unescape(b: u8) -> u8 {
    match b {
        b'0' => 0,
        b'b' => 8,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'Z' => 0x1a,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(data: &[u8], f: &FileFormat) -> Vec<Vec<Option<String>>> {
        let mut r = FieldReader { data, pos: 0, f };
        let mut out = Vec::new();
        while let Some(l) = r.next_line() {
            out.push(l.into_iter().map(|v| v.map(|b| String::from_utf8(b).unwrap())).collect());
        }
        out
    }

    #[test]
    fn fields_as_mariadb_reads_them() {
        let s = |v: &str| Some(v.to_string());
        let f = FileFormat::default();
        assert_eq!(
            lines(b"1\ta\\tb\t\\N\n2\t\\\\\tNULL\n", &f),
            vec![vec![s("1"), s("a\tb"), None], vec![s("2"), s("\\"), s("NULL")]]
        );
        let csv = FileFormat {
            fields_terminated: b",".to_vec(),
            enclosed: Some(b'"'),
            optionally: true,
            lines_terminated: b"\r\n".to_vec(),
            ..FileFormat::default()
        };
        assert_eq!(
            lines(b"1,\"a,b\",\"x\"\"y\"\r\n2,NULL,\r\n", &csv),
            vec![vec![s("1"), s("a,b"), s("x\"y")], vec![s("2"), None, s("")]]
        );
        let prefixed = FileFormat { lines_starting: b">".to_vec(), ..FileFormat::default() };
        assert_eq!(lines(b"skip\n>1\t2\nno\n>3\n", &prefixed), vec![vec![s("1"), s("2")], vec![s("3")]]);
    }
}
