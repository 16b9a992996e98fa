//! Statements that run other statements: SQL-level PREPARE ... FROM, EXECUTE ... USING,
//! EXECUTE IMMEDIATE, and SET STATEMENT var = value, ... FOR statement (MariaDB 10.1+): their
//! parts, found in the small lexer's tokens. `parse` builds the statements from them (the body
//! of SET STATEMENT is parsed there); errors are the byte offset a 1064 quotes from.
//!
//! Expressions (PREPARE's source, USING's arguments) are kept as text: the session evaluates
//! them as a select list, so they can be any expression MariaDB takes there.

use std::ops::Range;

use super::lexer::Tok;

/// Where PREPARE / EXECUTE IMMEDIATE take the statement text from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrepareSource {
    Text(String),
    UserVar(String),
    /// Any other expression (`CONCAT('SELECT ', 1)`), as written.
    Expr(String),
}

/// EXECUTE's forms.
pub(super) enum Execute {
    Named { name: String, using: Option<String> },
    Immediate { source: PrepareSource, using: Option<String> },
}

/// Tokens after the statement's first word; errors are offsets into `text`.
pub(super) struct Tokens<'t> {
    pub text: &'t str,
    pub toks: &'t [(Tok, usize)],
    pub pos: usize,
}

impl Tokens<'_> {
    /// The offset of the token at the cursor (the text's end after the last one).
    fn here(&self) -> usize {
        self.toks.get(self.pos).map_or(self.text.len(), |t| t.1)
    }
    /// The end of the text, without a trailing `;`.
    fn text_end(&self) -> usize {
        self.text.trim_end().trim_end_matches(';').trim_end().len()
    }
    fn eat_word(&mut self, kw: &str) -> bool {
        let yes = self.toks.get(self.pos).is_some_and(|t| t.0.is_word(kw));
        self.pos += usize::from(yes);
        yes
    }
    fn ident(&mut self) -> Result<String, usize> {
        match self.toks.get(self.pos).and_then(|t| t.0.ident()) {
            Some(s) => {
                self.pos += 1;
                Ok(s.to_string())
            }
            None => Err(self.here()),
        }
    }
    /// Nothing but `;` may follow.
    fn end(&mut self) -> Result<(), usize> {
        while self.toks.get(self.pos).is_some_and(|t| t.0 == Tok::Sym(';')) {
            self.pos += 1;
        }
        if self.pos < self.toks.len() {
            Err(self.here())
        } else {
            Ok(())
        }
    }
    /// The index of the first (or last) top-level token after the cursor that is `kw`.
    fn top_level_word(&self, kw: &str, last: bool) -> Option<usize> {
        let mut depth = 0i32;
        let mut found = None;
        for (i, (t, _)) in self.toks.iter().enumerate().skip(self.pos) {
            match t {
                Tok::Sym('(') => depth += 1,
                Tok::Sym(')') => depth -= 1,
                t if depth == 0 && t.is_word(kw) => {
                    found = Some(i);
                    if !last {
                        break;
                    }
                }
                _ => {}
            }
        }
        found
    }
    /// The source of PREPARE or EXECUTE IMMEDIATE, ending at offset `end`.
    fn prepare_source(&mut self, end: usize) -> Result<PrepareSource, usize> {
        let start = self.here();
        if start >= end {
            return Err(start);
        }
        let one_token = self.toks.get(self.pos + 1).is_none_or(|t| t.1 >= end);
        let source = match self.toks.get(self.pos).map(|t| &t.0) {
            Some(Tok::Str(s)) if one_token => PrepareSource::Text(s.clone()),
            Some(Tok::UserVar(v)) if one_token => PrepareSource::UserVar(v.clone()),
            _ => PrepareSource::Expr(self.text[start..end].trim_end().to_string()),
        };
        while self.toks.get(self.pos).is_some_and(|t| t.1 < end) {
            self.pos += 1;
        }
        Ok(source)
    }
    /// The text of a USING list from the cursor to the end.
    fn using_list(&mut self) -> Result<Option<String>, usize> {
        if !self.eat_word("USING") {
            return Ok(None);
        }
        let (start, end) = (self.here(), self.text_end());
        if start >= end {
            return Err(start);
        }
        self.pos = self.toks.len();
        Ok(Some(self.text[start..end].to_string()))
    }
}

/// PREPARE name FROM {'text' | @var | expr}.
pub(super) fn prepare(mut t: Tokens) -> Result<(String, PrepareSource), usize> {
    let name = t.ident()?;
    if !t.eat_word("FROM") {
        return Err(t.here());
    }
    let source = t.prepare_source(t.text_end())?;
    t.end()?;
    Ok((name, source))
}

/// EXECUTE name [USING expr, ...] and EXECUTE IMMEDIATE source [USING expr, ...].
pub(super) fn execute(mut t: Tokens) -> Result<Execute, usize> {
    if t.eat_word("IMMEDIATE") {
        // The source ends at the last top-level USING.
        let end = t.top_level_word("USING", true).map_or(t.text_end(), |i| t.toks[i].1);
        let source = t.prepare_source(end)?;
        let using = t.using_list()?;
        t.end()?;
        return Ok(Execute::Immediate { source, using });
    }
    let name = t.ident()?;
    let using = t.using_list()?;
    t.end()?;
    Ok(Execute::Named { name, using })
}

/// Whether a USING list has a subquery (MariaDB's 1970).
pub fn using_has_subquery(list: &str) -> bool {
    super::lexer::tokenize(list).is_some_and(|toks| toks.iter().any(|(t, _)| t.is_word("SELECT")))
}

/// SET STATEMENT assignments FOR body, the cursor after SET: where the assignments lie and
/// where the body starts.
pub(super) fn set_statement(mut t: Tokens) -> Result<(Range<usize>, usize), usize> {
    if !t.eat_word("STATEMENT") {
        return Err(t.here());
    }
    let assignments_at = t.here();
    // Each assignment names a system variable; user variables are a syntax error there.
    let Some(for_at) = t.top_level_word("FOR", false) else {
        return Err(t.text.len());
    };
    let mut starts_assignment = true;
    for (tok, off) in &t.toks[t.pos..for_at] {
        if starts_assignment && matches!(tok, Tok::UserVar(_)) {
            return Err(*off);
        }
        starts_assignment = *tok == Tok::Sym(',');
    }
    if for_at == t.pos {
        return Err(assignments_at);
    }
    let body_offset = t.toks.get(for_at + 1).map_or(t.text.len(), |t| t.1);
    if body_offset >= t.text.len() {
        return Err(t.text.len());
    }
    Ok((assignments_at..t.toks[for_at].1, body_offset))
}
