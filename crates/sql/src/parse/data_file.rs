//! Statements that move rows between tables and files or variables, which sqlparser cannot
//! read: `SELECT ... INTO @a, @b`, `SELECT ... INTO OUTFILE 'f' [FIELDS ...] [LINES ...]`,
//! `SELECT ... INTO DUMPFILE 'f'`, and `LOAD DATA [LOCAL] INFILE`.
//!
//! The INTO clause is cut out of the SELECT (blanked, so byte offsets and `?` positions stay
//! where the client wrote them) and the rest goes to sqlparser as a plain query.

use super::lexer::{self, Tok};
use crate::error;
use crate::error::SqlError;

/// FIELDS / LINES options of INTO OUTFILE and LOAD DATA (MariaDB's defaults: tab-separated,
/// backslash escapes, newline-terminated lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileFormat {
    pub fields_terminated: Vec<u8>,
    pub enclosed: Option<u8>,
    /// OPTIONALLY ENCLOSED: only strings are enclosed on output.
    pub optionally: bool,
    pub escaped: Option<u8>,
    pub lines_starting: Vec<u8>,
    pub lines_terminated: Vec<u8>,
}

impl Default for FileFormat {
    fn default() -> FileFormat {
        FileFormat {
            fields_terminated: b"\t".to_vec(),
            enclosed: None,
            optionally: false,
            escaped: Some(b'\\'),
            lines_starting: Vec::new(),
            lines_terminated: b"\n".to_vec(),
        }
    }
}

/// Where SELECT ... INTO puts its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntoTarget {
    /// User variables (names without `@`).
    Vars(Vec<String>),
    Outfile {
        path: String,
        format: FileFormat,
    },
    Dumpfile(String),
}

/// A SELECT with its INTO clause taken out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectInto {
    /// The statement text with the INTO clause blanked.
    pub select: String,
    pub into: IntoTarget,
    /// INTO came after FROM (MariaDB warns that this placement is deprecated: 1287).
    pub trailing: bool,
}

/// A column list entry of LOAD DATA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadTarget {
    Column(String),
    Var(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadDuplicates {
    Error,
    Replace,
    Ignore,
}

/// LOAD DATA [LOCAL] INFILE.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadData {
    pub local: bool,
    pub path: String,
    pub duplicates: LoadDuplicates,
    pub db: Option<String>,
    pub table: String,
    pub format: FileFormat,
    pub ignore_lines: u64,
    /// Empty: every column of the table, in order.
    pub targets: Vec<LoadTarget>,
    /// SET col = expr: the column and the expression's text.
    pub set: Vec<(String, String)>,
}

fn syntax_at(text: &str, off: usize) -> SqlError {
    let line = text[..off.min(text.len())].matches('\n').count() + 1;
    error::syntax(text.get(off..).unwrap_or("").trim_end().trim_end_matches(';'), line)
}

/// Reads FIELDS / COLUMNS and LINES options from `toks[*i..]`.
fn parse_format(text: &str, toks: &[(Tok, usize)], i: &mut usize) -> Result<FileFormat, SqlError> {
    let mut f = FileFormat::default();
    let string_at = |i: usize| -> Result<Vec<u8>, SqlError> {
        match toks.get(i) {
            Some((Tok::Str(s), _)) => Ok(s.as_bytes().to_vec()),
            Some((_, off)) => Err(syntax_at(text, *off)),
            None => Err(error::syntax("", 1)),
        }
    };
    let is = |i: usize, w: &str| toks.get(i).is_some_and(|(t, _)| t.is_word(w));
    let one_byte = |s: Vec<u8>| -> Result<Option<u8>, SqlError> {
        match s.len() {
            0 => Ok(None),
            1 => Ok(Some(s[0])),
            _ => {
                Err(SqlError::new(1083, "42000", "Field separator argument is not what is expected; check the manual"))
            }
        }
    };
    if is(*i, "FIELDS") || is(*i, "COLUMNS") {
        *i += 1;
        let mut any = false;
        loop {
            if is(*i, "TERMINATED") && is(*i + 1, "BY") {
                f.fields_terminated = string_at(*i + 2)?;
                *i += 3;
            } else if is(*i, "OPTIONALLY") && is(*i + 1, "ENCLOSED") && is(*i + 2, "BY") {
                f.enclosed = one_byte(string_at(*i + 3)?)?;
                f.optionally = true;
                *i += 4;
            } else if is(*i, "ENCLOSED") && is(*i + 1, "BY") {
                f.enclosed = one_byte(string_at(*i + 2)?)?;
                *i += 3;
            } else if is(*i, "ESCAPED") && is(*i + 1, "BY") {
                f.escaped = one_byte(string_at(*i + 2)?)?;
                *i += 3;
            } else {
                break;
            }
            any = true;
        }
        if !any {
            return Err(toks.get(*i).map_or(error::syntax("", 1), |(_, off)| syntax_at(text, *off)));
        }
    }
    if is(*i, "LINES") {
        *i += 1;
        let mut any = false;
        loop {
            if is(*i, "STARTING") && is(*i + 1, "BY") {
                f.lines_starting = string_at(*i + 2)?;
                *i += 3;
            } else if is(*i, "TERMINATED") && is(*i + 1, "BY") {
                f.lines_terminated = string_at(*i + 2)?;
                *i += 3;
            } else {
                break;
            }
            any = true;
        }
        if !any {
            return Err(toks.get(*i).map_or(error::syntax("", 1), |(_, off)| syntax_at(text, *off)));
        }
    }
    Ok(f)
}

/// Takes the INTO clause out of a SELECT. None when the text has no top-level INTO.
pub fn select_into(text: &str) -> Option<Result<SelectInto, SqlError>> {
    let toks = lexer::tokenize(text)?;
    let mut depth = 0i32;
    let mut from_seen = false;
    let mut at = None;
    for (k, (tok, _)) in toks.iter().enumerate() {
        match tok {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            t if depth == 0 && t.is_word("FROM") => from_seen = true,
            t if depth == 0 && t.is_word("INTO") => {
                at = Some(k);
                break;
            }
            _ => {}
        }
    }
    let start = at?;
    Some(parse_into(text, &toks, start, from_seen))
}

fn parse_into(text: &str, toks: &[(Tok, usize)], start: usize, trailing: bool) -> Result<SelectInto, SqlError> {
    let mut i = start + 1;
    let into = match toks.get(i) {
        Some((t, _)) if t.is_word("OUTFILE") || t.is_word("DUMPFILE") => {
            let outfile = t.is_word("OUTFILE");
            let path = match toks.get(i + 1) {
                Some((Tok::Str(s), _)) => s.clone(),
                Some((_, off)) => return Err(syntax_at(text, *off)),
                None => return Err(error::syntax("", 1)),
            };
            i += 2;
            if outfile {
                if toks.get(i).is_some_and(|(t, _)| t.is_word("CHARACTER"))
                    && toks.get(i + 1).is_some_and(|(t, _)| t.is_word("SET"))
                {
                    // Every value is written as the utf8mb4 the session sends.
                    i += 3;
                }
                let format = parse_format(text, toks, &mut i)?;
                IntoTarget::Outfile { path, format }
            } else {
                IntoTarget::Dumpfile(path)
            }
        }
        Some((Tok::UserVar(_), _)) => {
            let mut vars = Vec::new();
            loop {
                match toks.get(i) {
                    Some((Tok::UserVar(v), _)) => vars.push(v.to_ascii_lowercase()),
                    Some((_, off)) => return Err(syntax_at(text, *off)),
                    None => return Err(error::syntax("", 1)),
                }
                i += 1;
                if toks.get(i).is_some_and(|(t, _)| *t == Tok::Sym(',')) {
                    i += 1;
                } else {
                    break;
                }
            }
            IntoTarget::Vars(vars)
        }
        Some((t, _)) if t.ident().is_some() => {
            // Stored-program variables: there are no stored programs.
            return Err(error::not_supported("SELECT ... INTO a local variable"));
        }
        Some((_, off)) => return Err(syntax_at(text, *off)),
        None => return Err(error::syntax("", 1)),
    };
    // INTO belongs to the last SELECT of a UNION only.
    let mut depth = 0i32;
    for (tok, off) in &toks[i..] {
        match tok {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            t if depth == 0 && (t.is_word("UNION") || t.is_word("EXCEPT") || t.is_word("INTERSECT")) => {
                return Err(syntax_at(text, *off));
            }
            _ => {}
        }
    }
    let from = toks[start].1;
    let to = toks.get(i).map_or(text.len(), |(_, off)| *off);
    let mut select = text.as_bytes().to_vec();
    for b in &mut select[from..to] {
        if *b != b'\n' {
            *b = b' ';
        }
    }
    let select = String::from_utf8(select).map_err(|_| error::internal("INTO clause not on a character boundary"))?;
    Ok(SelectInto { select, into, trailing })
}

/// Parses `LOAD DATA [LOW_PRIORITY | CONCURRENT] [LOCAL] INFILE 'file' [REPLACE | IGNORE]
/// INTO TABLE t [CHARACTER SET x] [FIELDS ...] [LINES ...] [IGNORE n {LINES | ROWS}]
/// [(col | @var, ...)] [SET col = expr, ...]`.
pub fn load_data(text: &str) -> Result<LoadData, SqlError> {
    let toks = lexer::tokenize(text).ok_or_else(|| error::syntax(text, 1))?;
    let is = |i: usize, w: &str| toks.get(i).is_some_and(|(t, _)| t.is_word(w));
    let err_at = |i: usize| toks.get(i).map_or(error::syntax("", 1), |(_, off)| syntax_at(text, *off));
    let mut i = 2; // LOAD DATA
    while is(i, "LOW_PRIORITY") || is(i, "CONCURRENT") {
        i += 1;
    }
    let local = is(i, "LOCAL");
    if local {
        i += 1;
    }
    if !is(i, "INFILE") {
        return Err(err_at(i));
    }
    let path = match toks.get(i + 1) {
        Some((Tok::Str(s), _)) => s.clone(),
        _ => return Err(err_at(i + 1)),
    };
    i += 2;
    // LOCAL implies IGNORE (the server cannot stop the client's transfer), as in MariaDB.
    let mut duplicates = if local { LoadDuplicates::Ignore } else { LoadDuplicates::Error };
    if is(i, "REPLACE") {
        duplicates = LoadDuplicates::Replace;
        i += 1;
    } else if is(i, "IGNORE") {
        duplicates = LoadDuplicates::Ignore;
        i += 1;
    }
    if !(is(i, "INTO") && is(i + 1, "TABLE")) {
        return Err(err_at(i));
    }
    i += 2;
    let name = |i: usize| toks.get(i).and_then(|(t, _)| t.ident().map(str::to_string));
    let Some(first) = name(i) else {
        return Err(err_at(i));
    };
    i += 1;
    let (db, table) = if toks.get(i).is_some_and(|(t, _)| *t == Tok::Sym('.')) {
        let Some(t) = name(i + 1) else {
            return Err(err_at(i + 1));
        };
        i += 2;
        (Some(first), t)
    } else {
        (None, first)
    };
    if is(i, "CHARACTER") && is(i + 1, "SET") {
        i += 3;
    } else if is(i, "CHARSET") {
        i += 2;
    }
    let format = parse_format(text, &toks, &mut i)?;
    let mut ignore_lines = 0;
    if is(i, "IGNORE") {
        let n = match toks.get(i + 1) {
            Some((Tok::Num(n), _)) => n.parse::<u64>().map_err(|_| err_at(i + 1))?,
            _ => return Err(err_at(i + 1)),
        };
        if !(is(i + 2, "LINES") || is(i + 2, "ROWS")) {
            return Err(err_at(i + 2));
        }
        ignore_lines = n;
        i += 3;
    }
    let mut targets = Vec::new();
    if toks.get(i).is_some_and(|(t, _)| *t == Tok::Sym('(')) {
        i += 1;
        loop {
            match toks.get(i) {
                Some((Tok::UserVar(v), _)) => targets.push(LoadTarget::Var(v.to_ascii_lowercase())),
                Some((t, _)) if t.ident().is_some() => {
                    // `t.col` names the loaded table's column.
                    let mut n = t.ident().unwrap_or_default().to_string();
                    while toks.get(i + 1).is_some_and(|(t, _)| *t == Tok::Sym('.')) {
                        n = name(i + 2).ok_or_else(|| err_at(i + 2))?;
                        i += 2;
                    }
                    targets.push(LoadTarget::Column(n));
                }
                Some((Tok::Sym(')'), _)) if targets.is_empty() => {}
                _ => return Err(err_at(i)),
            }
            if matches!(toks.get(i), Some((Tok::Sym(')'), _))) {
                i += 1;
                break;
            }
            i += 1;
            match toks.get(i) {
                Some((Tok::Sym(','), _)) => i += 1,
                Some((Tok::Sym(')'), _)) => {
                    i += 1;
                    break;
                }
                _ => return Err(err_at(i)),
            }
        }
    }
    let mut set = Vec::new();
    if is(i, "SET") {
        i += 1;
        loop {
            let Some(col) = name(i) else {
                return Err(err_at(i));
            };
            let mut col = col;
            while toks.get(i + 1).is_some_and(|(t, _)| *t == Tok::Sym('.')) {
                col = name(i + 2).ok_or_else(|| err_at(i + 2))?;
                i += 2;
            }
            if toks.get(i + 1).map(|(t, _)| t) != Some(&Tok::Sym('=')) {
                return Err(err_at(i + 1));
            }
            i += 2;
            // The expression runs to the next top-level comma.
            let start = toks.get(i).map_or(text.len(), |(_, off)| *off);
            let mut depth = 0i32;
            while let Some((t, _)) = toks.get(i) {
                match t {
                    Tok::Sym('(') => depth += 1,
                    Tok::Sym(')') => depth -= 1,
                    Tok::Sym(',') | Tok::Sym(';') if depth == 0 => break,
                    _ => {}
                }
                i += 1;
            }
            let end = toks.get(i).map_or(text.len(), |(_, off)| *off);
            let expr = text[start..end].trim().to_string();
            if expr.is_empty() {
                return Err(err_at(i));
            }
            set.push((col, expr));
            if toks.get(i).is_some_and(|(t, _)| *t == Tok::Sym(',')) {
                i += 1;
            } else {
                break;
            }
        }
    }
    while toks.get(i).is_some_and(|(t, _)| *t == Tok::Sym(';')) {
        i += 1;
    }
    if i < toks.len() {
        return Err(err_at(i));
    }
    Ok(LoadData { local, path, duplicates, db, table, format, ignore_lines, targets, set })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn into_variables_are_cut_out() {
        let r = select_into("SELECT a, b INTO @x, @Y FROM t WHERE id = ?").unwrap().unwrap();
        assert_eq!(r.select, "SELECT a, b             FROM t WHERE id = ?");
        assert_eq!(r.into, IntoTarget::Vars(vec!["x".into(), "y".into()]));
        assert!(!r.trailing);
        let r = select_into("SELECT a FROM t LIMIT 1 INTO @x").unwrap().unwrap();
        assert!(r.trailing);
        assert!(select_into("SELECT a FROM t WHERE b IN (SELECT 1)").is_none());
    }

    #[test]
    fn outfile_options() {
        let r = select_into(
            "SELECT * FROM t INTO OUTFILE '/tmp/x' FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' LINES STARTING BY '>' TERMINATED BY '\\r\\n'",
        )
        .unwrap()
        .unwrap();
        let IntoTarget::Outfile { path, format } = r.into else { panic!("not an outfile") };
        assert_eq!(path, "/tmp/x");
        assert_eq!(format.fields_terminated, b",");
        assert_eq!((format.enclosed, format.optionally), (Some(b'"'), true));
        assert_eq!((format.lines_starting.as_slice(), format.lines_terminated.as_slice()), (&b">"[..], &b"\r\n"[..]));
    }

    #[test]
    fn load_data_statement() {
        let l = load_data(
            "LOAD DATA LOCAL INFILE '/tmp/f.csv' REPLACE INTO TABLE d.t FIELDS TERMINATED BY ',' ENCLOSED BY '\"' \
             IGNORE 1 LINES (a, @v, c) SET b = @v * 2, c = UPPER(c)",
        )
        .unwrap();
        assert!(l.local);
        assert_eq!((l.db.as_deref(), l.table.as_str()), (Some("d"), "t"));
        assert_eq!(l.duplicates, LoadDuplicates::Replace);
        assert_eq!(l.ignore_lines, 1);
        assert_eq!(
            l.targets,
            vec![LoadTarget::Column("a".into()), LoadTarget::Var("v".into()), LoadTarget::Column("c".into())]
        );
        assert_eq!(l.set, vec![("b".to_string(), "@v * 2".to_string()), ("c".to_string(), "UPPER(c)".to_string())]);
        let l = load_data("load data infile 'x' into table t").unwrap();
        assert_eq!((l.local, l.duplicates, l.format), (false, LoadDuplicates::Error, FileFormat::default()));
    }
}
