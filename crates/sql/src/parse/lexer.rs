//! A small MySQL lexer for what happens before sqlparser sees the text: splitting a COM_QUERY
//! into statements, unwrapping executable comments, rewriting `LOCK IN SHARE MODE`, and
//! recognizing the few statements sqlparser cannot parse (BEGIN WITH CONSISTENT SNAPSHOT,
//! PREPARE ... FROM, OPTIMIZE TABLE, ...).
//!
//! Why not sqlparser's tokenizer: these steps must run on text sqlparser rejects, and the
//! rewriting must keep every byte offset unchanged (replaced text is padded with spaces) so that
//! sqlparser's error positions still point into the client's text for 1064 messages.

use std::ops::Range;

/// MariaDB version number compared with `/*!NNNNN ... */`: comments for versions up to this one
/// are executed, later ones are skipped (the version Selkie reports, 10.11.19).
const EXECUTABLE_COMMENT_VERSION: u32 = 101119;

/// Where the body of an executable comment starts (`body` is just after `/*!` or `/*M!`), or
/// None when the comment is skipped. MariaDB's rule (sql_lex.cc): a version is five or six
/// digits; fewer digits are no version, and the text runs from right after the `!`. Comments
/// for versions above MariaDB's own are skipped, and so are `/*!` comments for MySQL 5.7 and
/// later (50700 to 99999: syntax MariaDB may not share), but not `/*M!` ones.
fn executable_comment(src: &[u8], body: usize, mariadb_only: bool) -> Option<usize> {
    let digits = src[body..].iter().take(6).take_while(|c| c.is_ascii_digit()).count();
    if digits < 5 {
        return Some(body);
    }
    let version: u32 = std::str::from_utf8(&src[body..body + digits]).ok()?.parse().ok()?;
    let mysql_only = (50700..=99999).contains(&version) && !mariadb_only;
    (version <= EXECUTABLE_COMMENT_VERSION && !mysql_only).then_some(body + digits)
}

/// `text` as MariaDB echoes it into a column name: executable comments reduced to their
/// contents (`1 /*!40101 + 1 */` is named `1  + 1`), skipped ones (`/*!80001 ... */`) left out,
/// plain comments kept.
pub fn without_comments(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("/*") {
        return std::borrow::Cow::Borrowed(text);
    }
    let src = text.as_bytes();
    let mut out = Vec::with_capacity(src.len());
    let mut exec_comment_open = false;
    let mut i = 0;
    while i < src.len() {
        match src[i] {
            b'\'' | b'"' | b'`' => {
                let end = skip_quoted(src, i, Syntax::default()).min(src.len());
                out.extend_from_slice(&src[i..end]);
                i = end;
            }
            b'/' if src.get(i + 1) == Some(&b'*') => {
                let marker = match (src.get(i + 2), src.get(i + 3)) {
                    (Some(b'!'), _) => Some((i + 3, false)),
                    (Some(b'M'), Some(b'!')) => Some((i + 4, true)),
                    _ => None,
                };
                match marker.map(|(body, mariadb_only)| executable_comment(src, body, mariadb_only)) {
                    Some(Some(body)) if !exec_comment_open => {
                        exec_comment_open = true;
                        i = body;
                    }
                    Some(_) => i = skip_block_comment(src, i),
                    None => {
                        let end = skip_block_comment(src, i);
                        out.extend_from_slice(&src[i..end]);
                        i = end;
                    }
                }
            }
            b'*' if exec_comment_open && src.get(i + 1) == Some(&b'/') => {
                exec_comment_open = false;
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    // Whole comments were cut out of valid UTF-8 at ASCII bytes.
    std::borrow::Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| text.to_string()))
}

/// The sql_mode flags that change how text is read. MariaDB's lexer consults them, so the same
/// text means something else under another mode: where a string ends (and so where a statement
/// ends) depends on NO_BACKSLASH_ESCAPES, which is why a client must quote as the server reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Syntax {
    /// NO_BACKSLASH_ESCAPES: `\` is an ordinary character in strings.
    pub no_backslash_escapes: bool,
    /// ANSI_QUOTES: `"..."` is an identifier, not a string.
    pub ansi_quotes: bool,
}

impl Syntax {
    /// Whether `\` escapes the next character inside text quoted with `quote`.
    pub fn backslash_escapes(self, quote: u8) -> bool {
        match quote {
            b'`' => false,
            b'"' if self.ansi_quotes => false,
            _ => !self.no_backslash_escapes,
        }
    }
}

/// The text after pre-processing and where each statement lies in it.
pub struct Scanned {
    pub text: String,
    /// Byte ranges of the statements, in order; empty statements (`;;`) are dropped.
    pub statements: Vec<Range<usize>>,
}

/// Pre-processes `sql`: executable comments become their contents (or comments when they are
/// for a newer version), `LOCK IN SHARE MODE` becomes `FOR SHARE`, and the text is split at
/// top-level semicolons. Byte offsets are preserved.
pub fn scan(sql: &str) -> Scanned {
    scan_in(sql, Syntax::default())
}

/// `scan` under the given sql_mode syntax.
pub fn scan_in(sql: &str, syntax: Syntax) -> Scanned {
    let src = sql.as_bytes();
    let mut out: Vec<u8> = src.to_vec();
    let mut statements = Vec::new();
    let mut stmt_start = 0;
    let mut i = 0;
    // Depth of open executable comments whose closing `*/` must be blanked.
    let mut exec_comment_open = false;
    while i < src.len() {
        let b = src[i];
        match b {
            b'\'' | b'"' | b'`' => {
                i = skip_quoted(src, i, syntax);
            }
            b'#' => {
                i = skip_line(src, i);
            }
            b'-' if src.get(i + 1) == Some(&b'-') && src.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) => {
                i = skip_line(src, i);
            }
            b'/' if src.get(i + 1) == Some(&b'*') => {
                let marker = match (src.get(i + 2), src.get(i + 3)) {
                    (Some(b'!'), _) => Some((i + 3, false)),
                    (Some(b'M'), Some(b'!')) => Some((i + 4, true)),
                    _ => None,
                };
                match marker.map(|(body, mariadb_only)| executable_comment(src, body, mariadb_only)) {
                    Some(Some(body)) if !exec_comment_open => {
                        out[i..body].fill(b' ');
                        exec_comment_open = true;
                        i = body;
                    }
                    Some(None) => {
                        // A skipped one becomes a plain comment: sqlparser would run `/*!`.
                        out[i + 2] = b' ';
                        if let Some((_, true)) = marker {
                            out[i + 3] = b' ';
                        }
                        i = skip_block_comment(src, i);
                    }
                    _ => i = skip_block_comment(src, i),
                }
            }
            b'*' if exec_comment_open && src.get(i + 1) == Some(&b'/') => {
                out[i] = b' ';
                out[i + 1] = b' ';
                exec_comment_open = false;
                i += 2;
            }
            b';' => {
                push_statement(&out, stmt_start..i, &mut statements);
                stmt_start = i + 1;
                i += 1;
            }
            b'L' | b'l' if i == 0 || !is_ident_byte(src[i - 1]) => {
                if let Some(end) = match_words(src, i, &["LOCK", "IN", "SHARE", "MODE"]) {
                    let replacement = b"FOR SHARE";
                    out[i..end].fill(b' ');
                    out[i..i + replacement.len()].copy_from_slice(replacement);
                    i = end;
                } else {
                    i = skip_word(src, i);
                }
            }
            b'E' | b'e' if (i == 0 || !is_ident_byte(src[i - 1])) && extract_compound_unit(src, i).is_some() => {
                i = rewrite_extract_compound(src, &mut out, i);
            }
            b'M' | b'm' if (i == 0 || !is_ident_byte(src[i - 1])) && is_mod_operator(src, i) => {
                // sqlparser lacks the `a MOD b` operator; `%` is the same operator.
                out[i..i + 3].copy_from_slice(b"%  ");
                i += 3;
            }
            b'0' if (i == 0 || !is_ident_byte(src[i - 1])) && bit_literal_end(src, i).is_some() => {
                i = rewrite_bit_literal(src, &mut out, i);
            }
            _ if is_ident_byte(b) => {
                i = skip_word(src, i);
            }
            _ => i += 1,
        }
    }
    push_statement(&out, stmt_start..src.len(), &mut statements);
    // Only ASCII bytes were replaced by ASCII bytes, so the text is still valid UTF-8.
    let text = String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Scanned { text, statements }
}

/// EXTRACT units made of two fields, as MySQL spells them (sqlparser's MySQL dialect accepts
/// only the single-field ones).
const EXTRACT_COMPOUND_UNITS: &[&str] = &[
    "YEAR_MONTH",
    "DAY_HOUR",
    "DAY_MINUTE",
    "DAY_SECOND",
    "DAY_MICROSECOND",
    "HOUR_MINUTE",
    "HOUR_SECOND",
    "MINUTE_SECOND",
];

/// For `EXTRACT(<compound unit> FROM` at `i` (on one line): the unit and the offset after
/// `FROM`.
fn extract_compound_unit(src: &[u8], i: usize) -> Option<(&'static str, usize)> {
    let mut j = match_words(src, i, &["EXTRACT"])?;
    while j < src.len() && src[j] == b' ' {
        j += 1;
    }
    if src.get(j) != Some(&b'(') {
        return None;
    }
    j += 1;
    while j < src.len() && src[j] == b' ' {
        j += 1;
    }
    let unit = EXTRACT_COMPOUND_UNITS.iter().find(|u| match_words(src, j, &[u, "FROM"]).is_some())?;
    let end = match_words(src, j, &[unit, "FROM"])?;
    // Same line only: the rewrite below keeps every byte offset and line start.
    (!src[i..end].contains(&b'\n')).then_some((unit, end))
}

/// Rewrites `EXTRACT(DAY_HOUR FROM x)` as the call `` `EXTRACT`('DAY_HOUR', x) `` of the
/// EXTRACT function (unit name first), in the same number of bytes: the quoted name is not
/// sqlparser's EXTRACT keyword. Returns the offset after the rewritten part.
fn rewrite_extract_compound(src: &[u8], out: &mut [u8], i: usize) -> usize {
    let Some((unit, end)) = extract_compound_unit(src, i) else {
        return i + 1;
    };
    let replacement = format!("`EXTRACT`('{unit}',");
    // `EXTRACT(` + unit + at least one space + `FROM` is at least as long as the replacement.
    debug_assert!(replacement.len() <= end - i);
    out[i..end].fill(b' ');
    out[i..i + replacement.len()].copy_from_slice(replacement.as_bytes());
    end
}

/// The end of a `0b0101` literal at `i` (a whole word), which sqlparser does not know.
fn bit_literal_end(src: &[u8], i: usize) -> Option<usize> {
    if src.get(i + 1) != Some(&b'b') {
        return None;
    }
    let mut j = i + 2;
    while j < src.len() && (src[j] == b'0' || src[j] == b'1') {
        j += 1;
    }
    (j > i + 2 && src.get(j).is_none_or(|&c| !is_ident_byte(c))).then_some(j)
}

/// Rewrites `0b0101` as the hex literal of the same bytes (`0x05`, padded with spaces: a hex
/// digit holds four bits, so it is never longer). Returns the offset after the literal.
fn rewrite_bit_literal(src: &[u8], out: &mut [u8], i: usize) -> usize {
    let Some(end) = bit_literal_end(src, i) else {
        return i + 1;
    };
    let bits = &src[i + 2..end];
    // As many hex digits as the bits need, so the literal has as many bytes as MariaDB's.
    let digits = bits.len().div_ceil(4);
    let mut hex = String::with_capacity(digits + 2);
    hex.push_str("0x");
    for d in 0..digits {
        let lo = bits.len().saturating_sub(4 * (digits - d));
        let hi = bits.len() - 4 * (digits - d - 1);
        let v = bits[lo..hi].iter().fold(0u8, |acc, &c| (acc << 1) | (c - b'0'));
        hex.push(char::from_digit(u32::from(v), 16).unwrap_or('0'));
    }
    out[i..end].fill(b' ');
    out[i..i + hex.len()].copy_from_slice(hex.as_bytes());
    end
}

/// `MOD` as a binary operator: the reserved word, not followed by `(` (the MOD() function).
fn is_mod_operator(src: &[u8], i: usize) -> bool {
    let Some(end) = match_words(src, i, &["MOD"]) else {
        return false;
    };
    let mut j = end;
    while j < src.len() && src[j].is_ascii_whitespace() {
        j += 1;
    }
    j < src.len() && src[j] != b'(' && src[j] != b',' && src[j] != b')'
}

fn push_statement(text: &[u8], range: Range<usize>, out: &mut Vec<Range<usize>>) {
    if !is_blank(&text[range.clone()]) {
        out.push(range);
    }
}

/// True if `text` holds nothing but whitespace and comments.
pub fn is_blank(text: &[u8]) -> bool {
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            c if c.is_ascii_whitespace() => i += 1,
            b'#' => i = skip_line(text, i),
            b'-' if text.get(i + 1) == Some(&b'-') && text.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) => {
                i = skip_line(text, i)
            }
            b'/' if text.get(i + 1) == Some(&b'*') => i = skip_block_comment(text, i),
            _ => return false,
        }
    }
    true
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

fn skip_word(src: &[u8], mut i: usize) -> usize {
    while i < src.len() && is_ident_byte(src[i]) {
        i += 1;
    }
    i
}

fn skip_line(src: &[u8], mut i: usize) -> usize {
    while i < src.len() && src[i] != b'\n' {
        i += 1;
    }
    i
}

fn skip_block_comment(src: &[u8], i: usize) -> usize {
    let mut j = i + 2;
    while j + 1 < src.len() {
        if src[j] == b'*' && src[j + 1] == b'/' {
            return j + 2;
        }
        j += 1;
    }
    src.len()
}

/// Skips a quoted string or identifier starting at `i` (the quote). Backslash escapes apply in
/// strings (unless `syntax` says otherwise); a doubled quote is an escaped quote.
pub(crate) fn skip_quoted(src: &[u8], i: usize, syntax: Syntax) -> usize {
    let q = src[i];
    let backslash = syntax.backslash_escapes(q);
    let mut j = i + 1;
    while j < src.len() {
        let c = src[j];
        if c == b'\\' && backslash {
            j += 2;
            continue;
        }
        if c == q {
            if src.get(j + 1) == Some(&q) {
                j += 2;
                continue;
            }
            return j + 1;
        }
        j += 1;
    }
    src.len()
}

/// If the words `words` (case-insensitive, separated by whitespace) start at `i` and end at a
/// word boundary, returns the offset after the last one.
fn match_words(src: &[u8], mut i: usize, words: &[&str]) -> Option<usize> {
    for (n, w) in words.iter().enumerate() {
        if n > 0 {
            let start = i;
            while i < src.len() && src[i].is_ascii_whitespace() {
                i += 1;
            }
            if i == start {
                return None;
            }
        }
        let end = i + w.len();
        if end > src.len() || !src[i..end].eq_ignore_ascii_case(w.as_bytes()) {
            return None;
        }
        if end < src.len() && is_ident_byte(src[end]) {
            return None;
        }
        i = end;
    }
    Some(i)
}

/// A token of the small lexer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// An unquoted word (keyword or identifier), as written.
    Word(String),
    /// A backquoted identifier, unquoted.
    Quoted(String),
    /// A string literal, unescaped.
    Str(String),
    Num(String),
    /// `@name` (user variable), the name without `@`.
    UserVar(String),
    Sym(char),
}

impl Tok {
    pub fn is_word(&self, kw: &str) -> bool {
        matches!(self, Tok::Word(w) if w.eq_ignore_ascii_case(kw))
    }
    /// The identifier this token names (a word or a backquoted name).
    pub fn ident(&self) -> Option<&str> {
        match self {
            Tok::Word(w) | Tok::Quoted(w) => Some(w),
            _ => None,
        }
    }
}

/// Tokenizes `text`, skipping whitespace and comments. Returns the tokens with their byte
/// offsets, or None on an unterminated string.
pub fn tokenize(text: &str) -> Option<Vec<(Tok, usize)>> {
    tokenize_in(text, Syntax::default())
}

/// `tokenize` under the given sql_mode syntax.
pub fn tokenize_in(text: &str, syntax: Syntax) -> Option<Vec<(Tok, usize)>> {
    let src = text.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < src.len() {
        let b = src[i];
        let start = i;
        match b {
            c if c.is_ascii_whitespace() => i += 1,
            b'#' => i = skip_line(src, i),
            b'-' if src.get(i + 1) == Some(&b'-') && src.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) => {
                i = skip_line(src, i)
            }
            b'/' if src.get(i + 1) == Some(&b'*') => i = skip_block_comment(src, i),
            b'"' if syntax.ansi_quotes => {
                let end = skip_quoted(src, i, syntax);
                if end > src.len() || src[end - 1] != b || end == i + 1 {
                    return None;
                }
                toks.push((Tok::Quoted(text[i + 1..end - 1].replace("\"\"", "\"")), start));
                i = end;
            }
            b'\'' | b'"' => {
                let end = skip_quoted(src, i, syntax);
                if end > src.len() || src[end - 1] != b || end == i + 1 {
                    return None;
                }
                toks.push((Tok::Str(unescape_string_in(&text[i + 1..end - 1], b, syntax)), start));
                i = end;
            }
            b'`' => {
                let end = skip_quoted(src, i, syntax);
                if end > src.len() || src[end - 1] != b'`' || end == i + 1 {
                    return None;
                }
                toks.push((Tok::Quoted(text[i + 1..end - 1].replace("``", "`")), start));
                i = end;
            }
            b'@' => {
                i += 1;
                match src.get(i) {
                    Some(&q @ (b'\'' | b'"' | b'`')) => {
                        let end = skip_quoted(src, i, syntax);
                        if end > src.len() || src[end - 1] != q || end == i + 1 {
                            return None;
                        }
                        toks.push((Tok::UserVar(unescape_string_in(&text[i + 1..end - 1], q, syntax)), start));
                        i = end;
                    }
                    _ => {
                        let end = skip_word_or_dot(src, i);
                        toks.push((Tok::UserVar(text[i..end].to_string()), start));
                        i = end;
                    }
                }
            }
            c if c.is_ascii_digit() => {
                let end = skip_word_or_dot(src, i);
                toks.push((Tok::Num(text[i..end].to_string()), start));
                i = end;
            }
            c if is_ident_byte(c) => {
                let end = skip_word(src, i);
                toks.push((Tok::Word(text[i..end].to_string()), start));
                i = end;
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                toks.push((Tok::Sym(ch), start));
                i += ch.len_utf8();
            }
        }
    }
    Some(toks)
}

fn skip_word_or_dot(src: &[u8], mut i: usize) -> usize {
    while i < src.len() && (is_ident_byte(src[i]) || src[i] == b'.') {
        i += 1;
    }
    i
}

/// Undoes MySQL string escapes: backslash sequences and doubled quotes.
pub fn unescape_string(body: &str, quote: u8) -> String {
    unescape_string_in(body, quote, Syntax::default())
}

/// `unescape_string` under the given sql_mode syntax.
pub fn unescape_string_in(body: &str, quote: u8, syntax: Syntax) -> String {
    let backslash = syntax.backslash_escapes(quote);
    if !(body.as_bytes().contains(&quote) || backslash && body.contains('\\')) {
        return body.to_string();
    }
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && backslash {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('0') => out.push('\0'),
                Some('b') => out.push('\x08'),
                Some('Z') => out.push('\x1a'),
                // `\%` and `\_` keep the backslash (they are LIKE escapes), as MySQL does.
                Some('%') => out.push_str("\\%"),
                Some('_') => out.push_str("\\_"),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        } else if c as u32 == quote as u32 && chars.peek() == Some(&c) {
            chars.next();
            out.push(c);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stmts(sql: &str) -> Vec<String> {
        let s = scan(sql);
        s.statements.iter().map(|r| s.text[r.clone()].trim().to_string()).collect()
    }

    #[test]
    fn splits_at_top_level_semicolons_only() {
        assert_eq!(
            stmts("select 1; select ';' ; select \"a;b\"; -- x;\n select `c;d`"),
            vec!["select 1", "select ';'", "select \"a;b\"", "-- x;\n select `c;d`"]
        );
        assert_eq!(stmts("select 1;;  ; /* c; */ "), vec!["select 1"]);
        assert_eq!(stmts("select 'it''s;' ; select 'a\\';'"), vec!["select 'it''s;'", "select 'a\\';'"]);
    }

    #[test]
    fn executable_comments_keep_offsets() {
        let sql = "CREATE TABLE t (a int) /*! ENGINE = innodb */";
        let s = scan(sql);
        assert_eq!(s.text.len(), sql.len());
        assert_eq!(s.text, "CREATE TABLE t (a int)     ENGINE = innodb   ");
        let s = scan("SELECT 1 /*!40101 + 1*/, 2 /*M!100100 + 3 */");
        assert_eq!(s.text, "SELECT 1          + 1  , 2            + 3   ");
        // A comment for a future version stays a comment.
        let s = scan("SELECT 1 /*!999999 + 1 */");
        assert_eq!(s.text, "SELECT 1 /* 999999 + 1 */");
        // MySQL-only versions are skipped, MariaDB-only comments of the same numbers are not.
        assert_eq!(scan("SELECT 1 /*!80001 + 1 */").text, "SELECT 1 /* 80001 + 1 */");
        assert_eq!(scan("SELECT 1 /*!50700 + 1 */").text, "SELECT 1 /* 50700 + 1 */");
        assert_eq!(scan("SELECT 1 /*M!110000 + 1 */").text, "SELECT 1 /*  110000 + 1 */");
        assert_eq!(scan("SELECT 1 /*M!50800 + 1 */").text, "SELECT 1           + 1   ");
        assert_eq!(scan("SELECT 1 /*!101119 + 1 */").text, "SELECT 1           + 1   ");
        assert_eq!(scan("SELECT 1 /*!101120 + 1 */").text, "SELECT 1 /* 101120 + 1 */");
        // Fewer than five digits are not a version.
        assert_eq!(scan("SELECT 1 /*!9 + 1 */").text, "SELECT 1    9 + 1   ");
        assert_eq!(without_comments("1 /*!40101 + 1 */ /* c */ + '/*'"), "1  + 1  /* c */ + '/*'");
        assert_eq!(without_comments("1 /*!80001 + 1 */ + 2"), "1  + 2");
        // Plain comments and strings are left alone.
        let s = scan("SELECT '/*!x*/' /* c */");
        assert_eq!(s.text, "SELECT '/*!x*/' /* c */");
    }

    #[test]
    fn sql_mode_syntax_decides_where_strings_end() {
        let nbe = Syntax { no_backslash_escapes: true, ansi_quotes: false };
        assert_eq!(scan_in(r"SELECT 'a\'; SELECT 2", nbe).statements.len(), 2);
        assert_eq!(scan(r"SELECT 'a\'; SELECT 2").statements.len(), 1);
        let toks = tokenize_in(r#"SELECT 'a\n', "b""c""#, Syntax { no_backslash_escapes: true, ansi_quotes: true });
        let toks: Vec<Tok> = toks.unwrap().into_iter().map(|t| t.0).collect();
        assert_eq!(toks[1], Tok::Str(r"a\n".into()));
        assert_eq!(toks[3], Tok::Quoted("b\"c".into()));
    }

    #[test]
    fn lock_in_share_mode_becomes_for_share() {
        let sql = "SELECT * FROM t WHERE a=1 LOCK  IN SHARE\nMODE";
        let s = scan(sql);
        assert_eq!(s.text.len(), sql.len());
        assert_eq!(s.text.trim_end(), "SELECT * FROM t WHERE a=1 FOR SHARE");
        let s = scan("SELECT 0b101, 0b111111111, x0b1, 0b12");
        assert_eq!(s.text, "SELECT 0x5  , 0x1ff      , x0b1, 0b12");
        let s = scan("SELECT 'LOCK IN SHARE MODE', block FROM t");
        assert_eq!(s.text, "SELECT 'LOCK IN SHARE MODE', block FROM t");
    }

    #[test]
    fn mod_operator_becomes_percent() {
        assert_eq!(scan("SELECT a MOD 3, MOD(a, 3), 'a mod b'").text, "SELECT a %   3, MOD(a, 3), 'a mod b'");
    }

    #[test]
    fn compound_extract_units_become_a_call_of_the_same_length() {
        let sql = "SELECT extract(day_hour FROM d), EXTRACT( YEAR_MONTH  from d), EXTRACT(DAY FROM d), 'EXTRACT(DAY_HOUR FROM d)'";
        let s = scan(sql);
        assert_eq!(s.text.len(), sql.len());
        assert_eq!(
            s.text,
            "SELECT `EXTRACT`('DAY_HOUR', d), `EXTRACT`('YEAR_MONTH',   d), EXTRACT(DAY FROM d), 'EXTRACT(DAY_HOUR FROM d)'"
        );
        // Across lines the text is left alone (offsets of lines must not move).
        let sql = "SELECT EXTRACT(DAY_HOUR\nFROM d)";
        assert_eq!(scan(sql).text, sql);
    }

    #[test]
    fn tokenizes_words_strings_and_variables() {
        let toks: Vec<Tok> =
            tokenize("PREPARE s1 FROM 'SELECT \\'a\\'' -- c\n@x, @`y z`").unwrap().into_iter().map(|t| t.0).collect();
        assert_eq!(
            toks,
            vec![
                Tok::Word("PREPARE".into()),
                Tok::Word("s1".into()),
                Tok::Word("FROM".into()),
                Tok::Str("SELECT 'a'".into()),
                Tok::UserVar("x".into()),
                Tok::Sym(','),
                Tok::UserVar("y z".into()),
            ]
        );
        assert!(tokenize("SELECT 'unterminated").is_none());
    }

    #[test]
    fn blank_text_is_detected() {
        assert!(is_blank(b"  -- c\n /* x */ # y"));
        assert!(!is_blank(b" /* x */ select"));
    }
}
