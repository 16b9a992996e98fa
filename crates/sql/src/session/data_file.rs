//! SELECT ... INTO @vars / OUTFILE / DUMPFILE: the query runs as any SELECT, into a sink that
//! keeps its rows in variables or writes them to a file; the client gets an OK whose affected
//! rows count the rows, as in MariaDB.
//!
//! Files are written by the server process, so they honour @@secure_file_priv as MariaDB does:
//! an empty value allows any path; otherwise only paths under that directory (1290).

use std::io::Write;
use std::sync::Arc;

use super::compiled::{Compiled, CompiledStmt, Ran, MAX_REBINDS};
use super::state::Session;
use crate::bind::{Binder, Scope};
use crate::error::{self, SqlError};
use crate::parse::data_file::{FileFormat, IntoTarget, LoadData, SelectInto};
use crate::parse::{self, Stmt};
use crate::types::{ColumnDefinition, OkInfo, ResultSink, Value, WarnLevel, Warning};
use crate::user_variables::{Assigned, UserVariable};
use crate::value::{self, SqlType};

/// Where the rows of SELECT ... INTO go.
enum IntoSink {
    /// The first row (a second one is error 1172), and how many came.
    Vars { first: Option<Vec<Value>>, rows: u64, types: Vec<SqlType> },
    File {
        out: std::io::BufWriter<std::fs::File>,
        format: Option<FileFormat>,
        types: Vec<SqlType>,
        rows: u64,
        failed: Option<std::io::Error>,
    },
}

impl ResultSink for IntoSink {
    fn columns(&mut self, _: &[ColumnDefinition]) {}
    fn row(&mut self, values: &[Value]) {
        match self {
            IntoSink::Vars { first, rows, types } => {
                if first.is_none() {
                    // A user variable holds an integer, decimal, double or string: MariaDB
                    // keeps temporal values as their text.
                    let kept = values.iter().zip(types.iter()).map(|(v, ty)| match ty {
                        SqlType::Date | SqlType::DateTime { .. } | SqlType::Timestamp { .. } | SqlType::Time { .. }
                            if !v.is_null() =>
                        {
                            let mut text = Vec::new();
                            text_of(v, ty, &mut text);
                            Value::Bytes(text)
                        }
                        _ => v.clone(),
                    });
                    *first = Some(kept.collect());
                }
                *rows += 1;
            }
            IntoSink::File { out, format, types, rows, failed } => {
                // DUMPFILE: MariaDB writes the second row before it fails with 1172.
                if failed.is_some() || (format.is_none() && *rows >= 2) {
                    *rows += 1;
                    return;
                }
                let mut line = Vec::new();
                match format {
                    Some(f) => outfile_line(values, types, f, &mut line),
                    None => {
                        for (v, ty) in values.iter().zip(types.iter()) {
                            text_of(v, ty, &mut line);
                        }
                    }
                }
                *rows += 1;
                if let Err(e) = out.write_all(&line) {
                    *failed = Some(e);
                }
            }
        }
    }
    fn end_rows(&mut self, _: u16, _: bool) {}
    fn ok(&mut self, _: &OkInfo, _: bool) {}
}

fn text_of(v: &Value, ty: &SqlType, out: &mut Vec<u8>) {
    match v {
        Value::Null => {}
        Value::Bytes(b) => out.extend_from_slice(b),
        v => value::format_text(v, Some(ty), out),
    }
}

/// Whether MariaDB treats a column as a string for OPTIONALLY ENCLOSED (its STRING_RESULT:
/// strings and temporal values).
fn is_string_result(ty: &SqlType) -> bool {
    matches!(
        ty,
        SqlType::Text { .. }
            | SqlType::Bytes { .. }
            | SqlType::Enum { .. }
            | SqlType::Date
            | SqlType::DateTime { .. }
            | SqlType::Timestamp { .. }
            | SqlType::Time { .. }
    )
}

/// One line of INTO OUTFILE, as MariaDB's select_export writes it: NULL as `\N` (or `NULL`
/// without an escape character), the escape character before itself, the enclosing character
/// (or the field terminator's first byte when not enclosing), the line terminator's first byte,
/// and NUL (written `\0`).
fn outfile_line(values: &[Value], types: &[SqlType], f: &FileFormat, out: &mut Vec<u8>) {
    out.extend_from_slice(&f.lines_starting);
    let field_sep = f.enclosed.or(f.fields_terminated.first().copied());
    let line_sep = f.lines_terminated.first().copied();
    for (i, (v, ty)) in values.iter().zip(types).enumerate() {
        if i > 0 {
            out.extend_from_slice(&f.fields_terminated);
        }
        if v.is_null() {
            match f.escaped {
                Some(e) => out.extend_from_slice(&[e, b'N']),
                None => out.extend_from_slice(b"NULL"),
            }
            continue;
        }
        let mut text = Vec::new();
        text_of(v, ty, &mut text);
        let enclose = f.enclosed.filter(|_| !f.optionally || is_string_result(ty));
        if let Some(q) = enclose {
            out.push(q);
        }
        match f.escaped {
            Some(e) => {
                for &b in &text {
                    if b == 0 {
                        out.extend_from_slice(&[e, b'0']);
                    } else {
                        if b == e || Some(b) == field_sep || Some(b) == line_sep {
                            out.push(e);
                        }
                        out.push(b);
                    }
                }
            }
            None => out.extend_from_slice(&text),
        }
        if let Some(q) = enclose {
            out.push(q);
        }
    }
    out.extend_from_slice(&f.lines_terminated);
}

impl Session {
    /// A server-side file path as MariaDB resolves it (relative to the data directory), if
    /// @@secure_file_priv allows it (1290 otherwise).
    pub(super) fn server_file_path(&self, path: &str) -> Result<std::path::PathBuf, SqlError> {
        let global = |name: &str| match self.server.globals.get(name) {
            Ok(Value::Bytes(b)) => String::from_utf8_lossy(&b).into_owned(),
            _ => String::new(),
        };
        let mut full = std::path::PathBuf::from(path);
        if full.is_relative() {
            full = std::path::PathBuf::from(global("datadir")).join(path);
        }
        let allowed = global("secure_file_priv");
        if !allowed.is_empty() {
            let dir = std::fs::canonicalize(&allowed).unwrap_or_else(|_| allowed.clone().into());
            let parent = full.parent().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()));
            if !parent.is_some_and(|p| p.starts_with(&dir)) {
                return Err(error::secure_file_priv());
            }
        }
        Ok(full)
    }

    /// SELECT ... INTO.
    pub(super) async fn select_into(
        &mut self,
        si: &SelectInto,
        params: &[Value],
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        self.counters.bump(super::counters::Counter::ComSelect);
        let db = self.current_db.clone();
        let mut into: Option<IntoSink> = None;
        let mut ran = Ran::Stale;
        for _ in 0..MAX_REBINDS {
            let parsed = parse::parse_statement(&si.select).map_err(|e| e.0)?;
            if !matches!(parsed, Stmt::Ast(_)) {
                return Err(error::syntax(si.select.trim(), 1));
            }
            let catalog = self.store.catalog();
            let compiled = self.compile(&catalog, parsed, &si.select, &si.select, db.as_deref())?;
            let Compiled::Select(plan) = &compiled.compiled else {
                return Err(error::internal("SELECT ... INTO did not bind to a query"));
            };
            let plan: Arc<_> = plan.clone();
            let types: Vec<SqlType> = plan.columns.iter().map(|c| c.ty.clone()).collect();
            let mut target = match &si.into {
                IntoTarget::Vars(vars) => {
                    if vars.len() != plan.columns.len() {
                        return Err(error::union_column_count());
                    }
                    IntoSink::Vars { first: None, rows: 0, types }
                }
                IntoTarget::Outfile { path, .. } | IntoTarget::Dumpfile(path) => {
                    let full = self.server_file_path(path)?;
                    let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&full).map_err(|e| {
                        if e.kind() == std::io::ErrorKind::AlreadyExists {
                            error::file_exists(path)
                        } else {
                            error::cant_create_file(path, &e)
                        }
                    })?;
                    let format = match &si.into {
                        IntoTarget::Outfile { format, .. } => Some(format.clone()),
                        _ => None,
                    };
                    IntoSink::File { out: std::io::BufWriter::new(file), format, types, rows: 0, failed: None }
                }
            };
            ran = self.run_select(&compiled, Some(catalog), &plan, params, &mut target, false).await?;
            into = Some(target);
            if ran == Ran::Done {
                break;
            }
        }
        if ran == Ran::Stale {
            return Err(error::table_definition_changed());
        }
        let mut warnings = (std::mem::take(&mut self.warnings), self.warning_count);
        let mut warn = |code: u16, message: &str| {
            warnings.0.push(Warning { level: WarnLevel::Warning, code, message: message.to_string() });
            warnings.1 += 1;
        };
        if si.trailing {
            warn(
                1287,
                "'<select expression> INTO <destination>;' is deprecated and will be removed in a future release. \
                 Please use 'SELECT <select list> INTO <destination> FROM...' instead",
            );
        }
        let rows = match into {
            Some(IntoSink::Vars { first, rows, types }) => {
                if rows > 1 {
                    return Err(error::more_than_one_row());
                }
                let IntoTarget::Vars(vars) = &si.into else {
                    return Err(error::internal("SELECT ... INTO variables without variables"));
                };
                match first {
                    Some(values) => {
                        let connection = self.vars.collation_connection();
                        for ((name, v), ty) in vars.iter().zip(values).zip(&types) {
                            let assigned = Assigned::of_type(ty, connection);
                            self.user_vars.insert(name.clone(), UserVariable::new(v, assigned));
                        }
                    }
                    None => warn(1329, "No data - zero rows fetched, selected, or processed"),
                }
                rows
            }
            Some(IntoSink::File { mut out, rows, failed, format, .. }) => {
                let path = match &si.into {
                    IntoTarget::Outfile { path, .. } | IntoTarget::Dumpfile(path) => path.as_str(),
                    IntoTarget::Vars(_) => "",
                };
                if format.is_none() && rows > 1 {
                    return Err(error::more_than_one_row());
                }
                if let Some(e) = failed.or_else(|| out.flush().err()) {
                    return Err(error::cant_create_file(path, &e));
                }
                rows
            }
            None => 0,
        };
        self.found_rows = rows;
        self.send_ok(sink, more, rows, String::new(), warnings);
        Ok(())
    }
}

impl Session {
    /// CLIENT_LOCAL_FILES from the handshake.
    pub fn set_local_files(&mut self, on: bool) {
        self.local_files = on;
    }

    /// After `execute_text` returned: the file a LOAD DATA LOCAL asks the client for. The
    /// connection then sends the request, reads the file and calls `finish_local_infile`; the
    /// statement's result has not been sent yet.
    pub fn take_local_infile_request(&mut self) -> Option<String> {
        self.local_infile.as_ref().map(|l| l.path.clone())
    }

    /// Runs the LOAD DATA LOCAL that asked for a file, on the bytes the client sent.
    pub async fn finish_local_infile(&mut self, data: Vec<u8>, sink: &mut dyn ResultSink) -> Result<(), SqlError> {
        let Some(l) = self.local_infile.take() else {
            return Err(error::internal("no LOAD DATA LOCAL is waiting for a file"));
        };
        let r = self.run_load(&l, Arc::new(data), sink, false).await;
        if let Err(e) = &r {
            self.record_error(e);
        }
        self.publish_statement_state();
        self.command_began = false;
        r
    }

    /// LOAD DATA: a server file is read here; a LOCAL one is asked of the client.
    pub(super) async fn load_data(
        &mut self,
        l: &LoadData,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        if l.local {
            let enabled = matches!(self.server.globals.get("local_infile"), Ok(v) if value::truthy(&v) == Some(true));
            if !self.local_files || !enabled {
                return Err(error::local_infile_refused());
            }
            if more {
                return Err(error::not_supported("LOAD DATA LOCAL followed by more statements in one query"));
            }
            self.local_infile = Some(Box::new(l.clone()));
            return Ok(());
        }
        let full = self.server_file_path(&l.path)?;
        let data = std::fs::read(&full).map_err(|e| error::cant_stat(&full.to_string_lossy(), &e))?;
        self.run_load(l, Arc::new(data), sink, more).await
    }

    async fn run_load(
        &mut self,
        l: &LoadData,
        data: Arc<Vec<u8>>,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        let db = self.current_db.clone();
        for _ in 0..MAX_REBINDS {
            let catalog = self.store.catalog();
            let (plan, tables) = {
                let mut b = Binder::with_original(self.bind_env(&catalog, db.as_deref()), "", "");
                b.scopes.push(Scope::default());
                let plan = crate::load::bind(&mut b, l, data.clone())?;
                (plan, std::mem::take(&mut b.tables))
            };
            let c = CompiledStmt {
                compiled: Compiled::Load(Arc::new(plan)),
                param_count: 0,
                catalog_version: catalog.version,
                uses_tables: true,
                tables,
                uses_info_schema: false,
                plan_follows_param_types: false,
                select_limit_applies: false,
            };
            if self.run_dml(&c, Some(catalog), &[], sink, more).await? == Ran::Done {
                return Ok(());
            }
        }
        Err(error::table_definition_changed())
    }
}
