//! JSON path expressions as MariaDB 10.11 reads them: `$`, `.key`, `."quoted key"`, `.*`,
//! `[n]`, `[-n]` (from the end), `[last]`, `[last-n]`, `[n to m]`, `[*]`, and `**` (any depth);
//! and selecting the values a path names.

use super::doc::{key_is, Json};
use super::escape::{escape_into, unescape};

#[derive(Clone, Debug, PartialEq)]
pub enum Index {
    /// `[n]`; a negative n counts from the end (`[-1]` is the last element).
    At(i64),
    /// `[last]` or `[last - n]`.
    FromLast(i64),
}

impl Index {
    /// The position in an array of `len` elements (None: before the start).
    pub fn resolve(&self, len: usize) -> Option<usize> {
        let len = len as i64;
        let at = match *self {
            Index::At(n) if n < 0 => len + n,
            Index::At(n) => n,
            Index::FromLast(n) => len - 1 - n,
        };
        usize::try_from(at).ok()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// `.key` (unescaped).
    Key(String),
    /// `.*`
    AnyKey,
    Index(Index),
    /// `[*]`
    AnyIndex,
    /// `[a to b]`
    Range(Index, Index),
    /// `**`: here and at every depth below.
    AnyDepth,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    pub steps: Vec<Step>,
}

impl Path {
    /// Whether the path can name more than one value (MariaDB's 4044 where one is needed).
    pub fn has_wildcard(&self) -> bool {
        self.steps.iter().any(|s| matches!(s, Step::AnyKey | Step::AnyIndex | Step::Range(..) | Step::AnyDepth))
    }

    /// The values the path names in `doc`, in document order.
    pub fn select<'a>(&self, doc: &'a Json) -> Vec<&'a Json> {
        let mut out = Vec::new();
        select_into(doc, &self.steps, &mut out);
        out
    }

    /// The values the path names, with the concrete path of each (for JSON_SEARCH).
    pub fn select_with_paths<'a>(&self, doc: &'a Json) -> Vec<(&'a Json, Vec<Step>)> {
        let mut out = Vec::new();
        select_paths(doc, &self.steps, &mut Vec::new(), &mut out);
        out
    }
}

/// Why a path is not one, as MariaDB's warnings tell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathError {
    /// 4041
    UnexpectedEnd,
    /// 4042: `position` is 1-based, of the character that cannot stand there.
    Syntax { position: usize },
    /// 4043: the path has more member and element steps than MariaDB's limit
    /// (`MAX_PATH_STEPS`); `position` is 1-based, of the character after the step's `.` or `[`.
    TooDeep { position: usize },
}

/// MariaDB's JSON_DEPTH_LIMIT (32) for paths: a path may have 31 member and element steps (`**`
/// does not count).
pub const MAX_PATH_STEPS: usize = 31;

pub fn parse_path(text: &[u8]) -> Result<Path, PathError> {
    let mut p = PathParser { s: text, i: 0 };
    p.skip_ws();
    match p.s.get(p.i) {
        None => return Err(PathError::UnexpectedEnd),
        Some(b'$') => p.i += 1,
        Some(_) => return Err(p.syntax()),
    }
    let mut steps = Vec::new();
    loop {
        p.skip_ws();
        let Some(&c) = p.s.get(p.i) else { break };
        match c {
            b'.' => {
                p.i += 1;
                p.check_depth(&steps)?;
                steps.push(p.member()?);
            }
            b'[' => {
                p.i += 1;
                p.check_depth(&steps)?;
                steps.push(p.element()?);
            }
            b'*' if p.s.get(p.i + 1) == Some(&b'*') => {
                p.i += 2;
                // `**` must be followed by the step it looks for.
                match p.s.get(p.i) {
                    None => return Err(PathError::UnexpectedEnd),
                    Some(b'.' | b'[') => steps.push(Step::AnyDepth),
                    Some(_) => return Err(p.syntax()),
                }
            }
            _ => return Err(p.syntax()),
        }
    }
    Ok(Path { steps })
}

struct PathParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl PathParser<'_> {
    /// 4043 before a step past `MAX_PATH_STEPS`.
    fn check_depth(&self, steps: &[Step]) -> Result<(), PathError> {
        let counted = steps.iter().filter(|s| !matches!(s, Step::AnyDepth)).count();
        if counted >= MAX_PATH_STEPS {
            return Err(PathError::TooDeep { position: self.i + 1 });
        }
        Ok(())
    }

    fn skip_ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn syntax(&self) -> PathError {
        PathError::Syntax { position: self.i + 1 }
    }

    fn member(&mut self) -> Result<Step, PathError> {
        match self.s.get(self.i) {
            None => Err(PathError::UnexpectedEnd),
            Some(b'*') => {
                self.i += 1;
                Ok(Step::AnyKey)
            }
            Some(b'"') => {
                self.i += 1;
                let start = self.i;
                loop {
                    match self.s.get(self.i) {
                        None => return Err(PathError::UnexpectedEnd),
                        Some(b'"') => break,
                        Some(b'\\') => self.i += 2,
                        Some(_) => self.i += 1,
                    }
                }
                let raw = String::from_utf8_lossy(&self.s[start..self.i.min(self.s.len())]).into_owned();
                self.i += 1;
                Ok(Step::Key(unescape(&raw)))
            }
            Some(_) => {
                let start = self.i;
                while self.i < self.s.len() && !matches!(self.s[self.i], b'.' | b'[' | b' ' | b'\t' | b'*' | b'"') {
                    self.i += 1;
                }
                if self.i == start {
                    return Err(self.syntax());
                }
                Ok(Step::Key(String::from_utf8_lossy(&self.s[start..self.i]).into_owned()))
            }
        }
    }

    fn element(&mut self) -> Result<Step, PathError> {
        self.skip_ws();
        if self.s.get(self.i) == Some(&b'*') {
            self.i += 1;
            self.close()?;
            return Ok(Step::AnyIndex);
        }
        let from = self.index()?;
        self.skip_ws();
        if self.s[self.i..].starts_with(b"to") {
            self.i += 2;
            let to = self.index()?;
            self.close()?;
            return Ok(Step::Range(from, to));
        }
        self.close()?;
        Ok(Step::Index(from))
    }

    fn close(&mut self) -> Result<(), PathError> {
        self.skip_ws();
        match self.s.get(self.i) {
            None => Err(PathError::UnexpectedEnd),
            Some(b']') => {
                self.i += 1;
                Ok(())
            }
            Some(_) => Err(self.syntax()),
        }
    }

    fn number(&mut self) -> Result<i64, PathError> {
        self.skip_ws();
        let negative = self.s.get(self.i) == Some(&b'-');
        if negative {
            self.i += 1;
        }
        let start = self.i;
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
        }
        if self.i == start {
            return Err(if self.i >= self.s.len() { PathError::UnexpectedEnd } else { self.syntax() });
        }
        let n: i64 = std::str::from_utf8(&self.s[start..self.i]).ok().and_then(|t| t.parse().ok()).unwrap_or(i64::MAX);
        Ok(if negative { -n } else { n })
    }

    fn index(&mut self) -> Result<Index, PathError> {
        self.skip_ws();
        if self.s[self.i..].starts_with(b"last") {
            self.i += 4;
            self.skip_ws();
            if self.s.get(self.i) == Some(&b'-') {
                self.i += 1;
                return Ok(Index::FromLast(self.number()?));
            }
            return Ok(Index::FromLast(0));
        }
        Ok(Index::At(self.number()?))
    }
}

/// A scalar or object under `[0]`/`[last]` is the value itself (MariaDB's auto-wrapping).
fn as_array(v: &Json) -> Option<&[Json]> {
    match v {
        Json::Array(items) => Some(items),
        _ => None,
    }
}

fn select_into<'a>(v: &'a Json, steps: &[Step], out: &mut Vec<&'a Json>) {
    let Some((step, rest)) = steps.split_first() else {
        out.push(v);
        return;
    };
    match step {
        Step::Key(k) => {
            if let Some(m) = v.member(k) {
                select_into(m, rest, out);
            }
        }
        Step::AnyKey => {
            if let Json::Object(members) = v {
                members.iter().for_each(|(_, m)| select_into(m, rest, out));
            }
        }
        Step::Index(ix) => match as_array(v) {
            Some(items) => {
                if let Some(item) = ix.resolve(items.len()).and_then(|i| items.get(i)) {
                    select_into(item, rest, out);
                }
            }
            None if ix.resolve(1) == Some(0) => select_into(v, rest, out),
            None => {}
        },
        Step::AnyIndex => {
            if let Some(items) = as_array(v) {
                items.iter().for_each(|item| select_into(item, rest, out));
            }
        }
        Step::Range(a, b) => {
            if let Some(items) = as_array(v) {
                let (from, to) = (a.resolve(items.len()).unwrap_or(0), b.resolve(items.len()));
                if let Some(to) = to {
                    items.iter().take(to + 1).skip(from).for_each(|item| select_into(item, rest, out));
                }
            }
        }
        Step::AnyDepth => {
            select_into(v, rest, out);
            // Only containers below: a scalar's `[0]` would name the scalar a second time.
            match v {
                Json::Array(items) => items.iter().filter(|i| !i.is_scalar()).for_each(|i| select_into(i, steps, out)),
                Json::Object(members) => {
                    members.iter().filter(|(_, m)| !m.is_scalar()).for_each(|(_, m)| select_into(m, steps, out))
                }
                _ => {}
            }
        }
    }
}

fn select_paths<'a>(v: &'a Json, steps: &[Step], here: &mut Vec<Step>, out: &mut Vec<(&'a Json, Vec<Step>)>) {
    let Some((step, rest)) = steps.split_first() else {
        out.push((v, here.clone()));
        return;
    };
    fn visit<'a>(child: &'a Json, s: Step, rest: &[Step], here: &mut Vec<Step>, out: &mut Vec<(&'a Json, Vec<Step>)>) {
        here.push(s);
        select_paths(child, rest, here, out);
        here.pop();
    }
    match (step, v) {
        (Step::Key(k), Json::Object(members)) => {
            if let Some((raw, m)) = members.iter().find(|(raw, _)| key_is(raw, k)) {
                visit(m, Step::Key(unescape(raw)), rest, here, out);
            }
        }
        (Step::AnyKey, Json::Object(members)) => {
            for (raw, m) in members {
                visit(m, Step::Key(unescape(raw)), rest, here, out);
            }
        }
        (Step::Index(ix), Json::Array(items)) => {
            if let Some(i) = ix.resolve(items.len()).filter(|i| *i < items.len()) {
                visit(&items[i], Step::Index(Index::At(i as i64)), rest, here, out);
            }
        }
        (Step::AnyIndex, Json::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                visit(item, Step::Index(Index::At(i as i64)), rest, here, out);
            }
        }
        (Step::Range(a, b), Json::Array(items)) => {
            let from = a.resolve(items.len()).unwrap_or(0);
            if let Some(to) = b.resolve(items.len()) {
                for (i, item) in items.iter().enumerate().take(to + 1).skip(from) {
                    visit(item, Step::Index(Index::At(i as i64)), rest, here, out);
                }
            }
        }
        (Step::AnyDepth, _) => {
            select_paths(v, rest, here, out);
            match v {
                Json::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        visit(item, Step::Index(Index::At(i as i64)), steps, here, out);
                    }
                }
                Json::Object(members) => {
                    for (raw, m) in members {
                        visit(m, Step::Key(unescape(raw)), steps, here, out);
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

/// A concrete path as JSON_SEARCH prints it: `$[0]`, `$.key`, `$."a key"`.
pub fn format_steps(steps: &[Step]) -> String {
    let mut out = String::from("$");
    for s in steps {
        match s {
            Step::Key(k) if !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                out.push('.');
                out.push_str(k);
            }
            Step::Key(k) => {
                out.push_str(".\"");
                escape_into(k, &mut out);
                out.push('"');
            }
            Step::Index(Index::At(i)) => out.push_str(&format!("[{i}]")),
            _ => {}
        }
    }
    out
}
