//! Tokenizer for the classifier: one forward pass over the statement bytes.
//!
//! It knows exactly as much of MariaDB's lexical grammar as routing needs: where code is, and
//! where it is not. Whitespace and comments (`-- `, `#`, `/* */`) are skipped; executable
//! comments (`/*! */`, `/*!NNNNN */`, `/*M! */`, `/*M!NNNNNN */`) are treated as code, as the
//! server does; string literals, backquoted identifiers and numbers become single tokens, so
//! nothing inside a literal is ever mistaken for a keyword.
//!
//! Facts are collected on the way for the caller:
//! - a MaxScale routing hint found in a comment (`-- maxscale route to master`);
//! - whether the statement could be read differently by the server: inside an executable
//!   comment, a server that skips the comment (a version it does not run) ends it at the first
//!   `*/` even inside a literal, while one that runs it does not; and with the sql_mode
//!   NO_BACKSLASH_ESCAPES (which the proxy cannot see) `\'` ends a string. The classifier uses
//!   these to fall back to conservative answers;
//! - whether a literal or comment was left open (the server rejects such a text).
//!
//! Every byte sequence is accepted (no UTF-8 assumption: bytes >= 0x80 are identifier
//! characters, as in a multi-byte identifier); an unterminated literal or comment runs to the
//! end of the input. Each byte is looked at a bounded number of times, so lexing is O(n).

/// What a token is. Token text is a slice of the statement (see each variant for which part).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// An unquoted identifier or keyword.
    Word,
    /// A backquoted identifier; the text is what lies between the backquotes (a doubled
    /// backquote inside stays doubled, see `unquote_ident`).
    QuotedIdent,
    /// A '...' or "..." literal, quotes included.
    Str,
    /// A numeric literal (decimal, hexadecimal 0x.., binary 0b.., with fraction/exponent).
    Number,
    /// A user variable `@name`, `@'name'`, `@"name"` or `` @`name` ``; text is after the `@`.
    UserVar,
    /// A system variable `@@name` or `@@scope.name`; text is after the `@@`.
    SysVar,
    /// The `?` placeholder of a prepared statement.
    Placeholder,
    /// The `:=` assignment operator.
    Assign,
    /// `;`: the end of one statement of a multi-statement text.
    Semicolon,
    /// Any other single byte (operators, parentheses, commas, dots, ...).
    Punct(u8),
    /// End of input.
    End,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Token<'a> {
    pub kind: TokenKind,
    pub text: &'a [u8],
}

impl<'a> Token<'a> {
    pub fn is_punct(&self, b: u8) -> bool {
        self.kind == TokenKind::Punct(b)
    }

    /// An unquoted word equal (ASCII case-insensitively) to `kw`, which must be lowercase.
    pub fn is_word(&self, kw: &[u8]) -> bool {
        debug_assert!(!kw.iter().any(u8::is_ascii_uppercase));
        self.kind == TokenKind::Word && self.text.eq_ignore_ascii_case(kw)
    }

    /// A token that names something: an unquoted word or a backquoted identifier.
    pub fn is_name(&self) -> bool {
        matches!(self.kind, TokenKind::Word | TokenKind::QuotedIdent)
    }

    /// The end of a statement: `;` or end of input.
    pub fn ends_statement(&self) -> bool {
        matches!(self.kind, TokenKind::Semicolon | TokenKind::End)
    }
}

/// A MaxScale routing hint as written in a comment (`maxscale route to ...`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LexHint<'a> {
    Master,
    Slave,
    Last,
    Server(&'a [u8]),
}

/// Longest version number accepted after `/*!` (MariaDB reads 5 or 6 digits).
const MAX_EXEC_COMMENT_VERSION_DIGITS: usize = 6;

#[derive(Clone, Copy)]
pub(crate) struct Lexer<'a> {
    sql: &'a [u8],
    pos: usize,
    /// Whether `\` escapes the next byte inside string literals (the default sql_mode).
    backslash_escapes: bool,
    /// Inside an executable comment: a `*/` at a token boundary closes it.
    in_exec_comment: bool,
    /// End offset of the last identifier token, for `name.1col` (digits right after a dot that
    /// follows an identifier start an identifier, not a number).
    last_ident_end: usize,
    ident_follows_dot: bool,
    /// The last routing hint seen in a comment.
    pub hint: Option<LexHint<'a>>,
    /// The text may be tokenized differently by a server that skips an executable comment.
    pub exec_comment_ambiguous: bool,
    /// A string literal contained `\` followed by its quote character: under
    /// NO_BACKSLASH_ESCAPES the literal would end there.
    pub backslash_quote_seen: bool,
    /// A literal, quoted identifier or comment ran to the end of the input: the server
    /// rejects the text.
    pub unterminated: bool,
}

/// Bytes of unquoted identifiers: ASCII letters and digits, `_`, `$`, and every byte of a
/// multi-byte character (>= 0x80). A table: this test runs on almost every byte.
static IDENT_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
        b += 1;
    }
    t
};

fn is_ident_byte(b: u8) -> bool {
    IDENT_BYTES[b as usize]
}

fn contains_comment_end(bytes: &[u8]) -> bool {
    bytes.windows(2).any(|w| w == b"*/")
}

impl<'a> Lexer<'a> {
    pub fn new(sql: &'a [u8], backslash_escapes: bool) -> Lexer<'a> {
        Lexer {
            sql,
            pos: 0,
            backslash_escapes,
            in_exec_comment: false,
            last_ident_end: usize::MAX,
            ident_follows_dot: false,
            hint: None,
            exec_comment_ambiguous: false,
            backslash_quote_seen: false,
            unterminated: false,
        }
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.sql.get(i).copied()
    }

    pub fn next_token(&mut self) -> Token<'a> {
        loop {
            self.skip_trivia();
            let start = self.pos;
            let Some(b) = self.at(start) else {
                return Token { kind: TokenKind::End, text: &[] };
            };
            let follows_dot = std::mem::take(&mut self.ident_follows_dot);
            let kind = match b {
                b'*' if self.in_exec_comment && self.at(start + 1) == Some(b'/') => {
                    self.pos += 2;
                    self.in_exec_comment = false;
                    continue;
                }
                b'\'' | b'"' => {
                    self.pos = self.quoted_end(start, b, self.backslash_escapes);
                    TokenKind::Str
                }
                b'`' => {
                    let end = self.quoted_end(start, b'`', false);
                    self.pos = end;
                    self.last_ident_end = end;
                    let inner_end = if end > start + 1 && self.sql[end - 1] == b'`' { end - 1 } else { end };
                    return Token { kind: TokenKind::QuotedIdent, text: &self.sql[start + 1..inner_end] };
                }
                b'@' => return self.variable(start),
                b'?' => {
                    self.pos += 1;
                    TokenKind::Placeholder
                }
                b';' => {
                    self.pos += 1;
                    TokenKind::Semicolon
                }
                b':' if self.at(start + 1) == Some(b'=') => {
                    self.pos += 2;
                    TokenKind::Assign
                }
                b'0'..=b'9' if follows_dot => {
                    self.pos = self.ident_end(start);
                    self.last_ident_end = self.pos;
                    TokenKind::Word
                }
                b'0'..=b'9' => self.number_or_word(start),
                b'.' if !follows_dot
                    && self.at(start + 1).is_some_and(|c| c.is_ascii_digit())
                    && self.last_ident_end != start =>
                {
                    self.pos = self.fraction_end(start);
                    TokenKind::Number
                }
                b'.' => {
                    self.pos += 1;
                    // `t.5col`, `` `t`.`c` ``: an identifier right after an identifier's dot.
                    if self.last_ident_end == start && self.at(start + 1).is_some_and(|c| is_ident_byte(c) || c == b'`')
                    {
                        self.ident_follows_dot = true;
                    }
                    TokenKind::Punct(b'.')
                }
                _ if is_ident_byte(b) => {
                    self.pos = self.ident_end(start);
                    self.last_ident_end = self.pos;
                    TokenKind::Word
                }
                _ => {
                    self.pos += 1;
                    TokenKind::Punct(b)
                }
            };
            return Token { kind, text: &self.sql[start..self.pos] };
        }
    }

    fn ident_end(&self, start: usize) -> usize {
        start + self.sql[start.min(self.sql.len())..].iter().take_while(|&&c| is_ident_byte(c)).count()
    }

    /// End of a quoted literal or identifier that starts at `start` (the opening quote). A
    /// doubled quote is an escaped quote; with `backslash`, so is `\` + any byte.
    fn quoted_end(&mut self, start: usize, quote: u8, backslash: bool) -> usize {
        debug_assert_eq!(self.sql[start], quote);
        let mut i = start + 1;
        let end = loop {
            match self.at(i) {
                None => {
                    self.unterminated = true;
                    break self.sql.len();
                }
                Some(b'\\') if backslash => {
                    if self.at(i + 1) == Some(quote) {
                        self.backslash_quote_seen = true;
                    }
                    i += 2;
                }
                Some(c) if c == quote => {
                    if self.at(i + 1) == Some(quote) {
                        i += 2;
                    } else {
                        break i + 1;
                    }
                }
                Some(_) => i += 1,
            }
        };
        let end = end.min(self.sql.len());
        if self.in_exec_comment && contains_comment_end(&self.sql[start..end]) {
            self.exec_comment_ambiguous = true;
        }
        end
    }

    fn variable(&mut self, start: usize) -> Token<'a> {
        if self.at(start + 1) == Some(b'@') {
            let name_start = start + 2;
            let mut i = name_start;
            while self.at(i).is_some_and(|c| is_ident_byte(c) || c == b'.') {
                i += 1;
            }
            self.pos = i;
            return Token { kind: TokenKind::SysVar, text: &self.sql[name_start..i] };
        }
        let name_start = start + 1;
        match self.at(name_start) {
            Some(q @ (b'\'' | b'"' | b'`')) => {
                let end = self.quoted_end(name_start, q, q != b'`' && self.backslash_escapes);
                self.pos = end;
            }
            _ => {
                let mut i = name_start;
                while self.at(i).is_some_and(|c| is_ident_byte(c) || c == b'.') {
                    i += 1;
                }
                self.pos = i;
            }
        }
        Token { kind: TokenKind::UserVar, text: &self.sql[name_start..self.pos] }
    }

    /// A token that starts with a digit: a number, or an identifier such as `1abc` (MariaDB
    /// allows identifiers that start with digits but are not all digits).
    fn number_or_word(&mut self, start: usize) -> TokenKind {
        let run_end = self.ident_end(start);
        let run = &self.sql[start..run_end];
        let radix_digits = |prefix: u8, ok: fn(&u8) -> bool| {
            run.len() > 2 && run[0] == b'0' && run[1] == prefix && run[2..].iter().all(ok)
        };
        if radix_digits(b'x', u8::is_ascii_hexdigit) || radix_digits(b'b', |c| *c == b'0' || *c == b'1') {
            self.pos = run_end;
            return TokenKind::Number;
        }
        let mut i = start;
        while self.at(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
        match self.at(i) {
            Some(b'.') => {
                self.pos = self.fraction_end(i);
                TokenKind::Number
            }
            Some(b'e' | b'E') if self.exponent_end(i).is_some() => {
                let end = self.exponent_end(i).unwrap_or(i);
                if self.at(end).is_some_and(is_ident_byte) {
                    self.pos = self.ident_end(end);
                    self.last_ident_end = self.pos;
                    TokenKind::Word
                } else {
                    self.pos = end;
                    TokenKind::Number
                }
            }
            Some(c) if is_ident_byte(c) => {
                self.pos = run_end;
                self.last_ident_end = run_end;
                TokenKind::Word
            }
            _ => {
                self.pos = i;
                TokenKind::Number
            }
        }
    }

    /// End of `.digits[exponent]` starting at the dot `i`.
    fn fraction_end(&self, i: usize) -> usize {
        debug_assert_eq!(self.at(i), Some(b'.'));
        let mut j = i + 1;
        while self.at(j).is_some_and(|c| c.is_ascii_digit()) {
            j += 1;
        }
        if matches!(self.at(j), Some(b'e' | b'E')) {
            if let Some(end) = self.exponent_end(j) {
                return end;
            }
        }
        j
    }

    /// End of an exponent `e[+-]digits` starting at `i`, if one is there.
    fn exponent_end(&self, i: usize) -> Option<usize> {
        let mut j = i + 1;
        if matches!(self.at(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if !self.at(j).is_some_and(|c| c.is_ascii_digit()) {
            return None;
        }
        while self.at(j).is_some_and(|c| c.is_ascii_digit()) {
            j += 1;
        }
        Some(j)
    }

    /// Skips whitespace and comments; enters executable comments.
    fn skip_trivia(&mut self) {
        while let Some(b) = self.at(self.pos) {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b'#' => self.line_comment(self.pos + 1),
                // `--` starts a comment only when followed by whitespace, a control character or
                // the end (MariaDB's rule; `1--1` is arithmetic).
                b'-' if self.at(self.pos + 1) == Some(b'-')
                    && self.at(self.pos + 2).is_none_or(|c| c <= b' ' || c == 0x7f) =>
                {
                    self.line_comment(self.pos + 2)
                }
                b'/' if self.at(self.pos + 1) == Some(b'*') => {
                    let body = self.pos + 2;
                    match (self.at(body), self.at(body + 1)) {
                        (Some(b'!'), _) => self.enter_exec_comment(body + 1),
                        (Some(b'M'), Some(b'!')) => self.enter_exec_comment(body + 2),
                        _ => self.block_comment(body),
                    }
                }
                _ => return,
            }
        }
    }

    fn enter_exec_comment(&mut self, version_start: usize) {
        let mut digits = 0;
        while digits <= MAX_EXEC_COMMENT_VERSION_DIGITS
            && self.at(version_start + digits).is_some_and(|c| c.is_ascii_digit())
        {
            digits += 1;
        }
        // MariaDB reads a 6-digit version if there is one, else a 5-digit one; fewer digits are
        // not a version but code.
        let version_len = match digits {
            d if d >= 6 => 6,
            5 => 5,
            _ => 0,
        };
        if self.in_exec_comment {
            // Nested executable comments are an error for the server; whatever it does, the
            // text is not read the same way by everyone.
            self.exec_comment_ambiguous = true;
        }
        self.in_exec_comment = true;
        self.pos = version_start + version_len;
    }

    fn block_comment(&mut self, body: usize) {
        let rest = &self.sql[body.min(self.sql.len())..];
        let (text, next) = match rest.windows(2).position(|w| w == b"*/") {
            Some(p) => (&rest[..p], body + p + 2),
            None => {
                self.unterminated = true;
                (rest, self.sql.len())
            }
        };
        if self.in_exec_comment {
            // A server that skips the enclosing executable comment ends it at this `*/`.
            self.exec_comment_ambiguous = true;
        }
        self.note_hint(text);
        self.pos = next;
    }

    fn line_comment(&mut self, body: usize) {
        let rest = &self.sql[body.min(self.sql.len())..];
        let (text, next) = match rest.iter().position(|&c| c == b'\n') {
            Some(p) => (&rest[..p], body + p + 1),
            None => (rest, self.sql.len()),
        };
        if self.in_exec_comment && contains_comment_end(text) {
            self.exec_comment_ambiguous = true;
        }
        self.note_hint(text);
        self.pos = next;
    }

    /// Records `maxscale route to master|slave|last|server NAME` (MaxScale's hint syntax).
    fn note_hint(&mut self, comment: &'a [u8]) {
        let mut words = comment.split(|c| c.is_ascii_whitespace()).filter(|w| !w.is_empty());
        let mut next_is = |kw: &[u8]| words.next().is_some_and(|w| w.eq_ignore_ascii_case(kw));
        if !(next_is(b"maxscale") && next_is(b"route") && next_is(b"to")) {
            return;
        }
        let Some(target) = words.next() else { return };
        let hint = if target.eq_ignore_ascii_case(b"master") {
            LexHint::Master
        } else if target.eq_ignore_ascii_case(b"slave") {
            LexHint::Slave
        } else if target.eq_ignore_ascii_case(b"last") {
            LexHint::Last
        } else if target.eq_ignore_ascii_case(b"server") {
            match words.next() {
                Some(name) => LexHint::Server(name),
                None => return,
            }
        } else {
            return;
        };
        self.hint = Some(hint);
    }
}

/// A token stream with lookahead over a `Lexer`.
pub(crate) struct Tokens<'a> {
    lexer: Lexer<'a>,
    peeked: Option<Token<'a>>,
}

impl<'a> Tokens<'a> {
    pub fn new(sql: &'a [u8], backslash_escapes: bool) -> Tokens<'a> {
        Tokens { lexer: Lexer::new(sql, backslash_escapes), peeked: None }
    }

    pub fn next(&mut self) -> Token<'a> {
        match self.peeked.take() {
            Some(t) => t,
            None => self.lexer.next_token(),
        }
    }

    pub fn peek(&mut self) -> Token<'a> {
        match self.peeked {
            Some(t) => t,
            None => {
                let t = self.lexer.next_token();
                self.peeked = Some(t);
                t
            }
        }
    }

    /// The token after the next one (re-lexed on a copy, so facts it finds are not recorded
    /// twice; the main lexer records them when it gets there).
    pub fn peek2(&mut self) -> Token<'a> {
        self.peek();
        let mut ahead = self.lexer;
        ahead.next_token()
    }

    /// Consumes the next token if it is the word `kw`.
    pub fn eat_word(&mut self, kw: &[u8]) -> bool {
        if self.peek().is_word(kw) {
            self.next();
            true
        } else {
            false
        }
    }

    pub fn eat_punct(&mut self, b: u8) -> bool {
        if self.peek().is_punct(b) {
            self.next();
            true
        } else {
            false
        }
    }

    /// Consumes the rest of the current statement, up to (not including) `;` or the end.
    pub fn skip_statement(&mut self) {
        while !self.peek().ends_statement() {
            self.next();
        }
    }

    pub fn lexer(&self) -> &Lexer<'a> {
        &self.lexer
    }
}

/// The name a backquoted identifier denotes (a doubled backquote is one backquote).
pub(crate) fn unquote_ident(raw: &[u8]) -> String {
    if raw.contains(&b'`') {
        let mut out = Vec::with_capacity(raw.len());
        let mut i = 0;
        while i < raw.len() {
            out.push(raw[i]);
            i += if raw[i] == b'`' && raw.get(i + 1) == Some(&b'`') { 2 } else { 1 };
        }
        String::from_utf8_lossy(&out).into_owned()
    } else {
        String::from_utf8_lossy(raw).into_owned()
    }
}

/// The value of a string literal token (quotes removed, escapes resolved as in the default
/// sql_mode).
pub(crate) fn unquote_string(tok: &[u8]) -> Vec<u8> {
    let Some(&quote) = tok.first() else { return Vec::new() };
    let closed = tok.len() >= 2 && tok[tok.len() - 1] == quote;
    let inner = &tok[1..if closed { tok.len() - 1 } else { tok.len() }];
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        let c = inner[i];
        if c == b'\\' && i + 1 < inner.len() {
            let e = inner[i + 1];
            // `\%` and `\_` keep their backslash (they are LIKE escapes).
            if matches!(e, b'%' | b'_') {
                out.push(b'\\');
            }
            out.push(match e {
                b'0' => 0,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'b' => 0x08,
                b'Z' => 0x1a,
                other => other,
            });
            i += 2;
        } else if c == quote && inner.get(i + 1) == Some(&quote) {
            out.push(quote);
            i += 2;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(sql: &str) -> Vec<(TokenKind, String)> {
        let mut l = Lexer::new(sql.as_bytes(), true);
        let mut out = Vec::new();
        loop {
            let t = l.next_token();
            if t.kind == TokenKind::End {
                return out;
            }
            out.push((t.kind, String::from_utf8_lossy(t.text).into_owned()));
        }
    }

    fn words(sql: &str) -> Vec<String> {
        kinds(sql).into_iter().map(|(_, s)| s).collect()
    }

    #[test]
    fn comments_are_skipped_and_executable_comments_are_code() {
        assert_eq!(words("SELECT 1 -- FOR UPDATE\n, 2"), ["SELECT", "1", ",", "2"]);
        assert_eq!(words("SELECT 1 # x\n"), ["SELECT", "1"]);
        assert_eq!(words("SELECT 1 /* FOR UPDATE */"), ["SELECT", "1"]);
        assert_eq!(words("SELECT 1--1"), ["SELECT", "1", "-", "-", "1"]);
        assert_eq!(words("SELECT 1 --"), ["SELECT", "1"]);
        assert_eq!(words("/*!40101 SET @a=1 */"), ["SET", "a", "=", "1"]);
        assert_eq!(words("/*M!100100 SET x=1*/"), ["SET", "x", "=", "1"]);
        assert_eq!(words("/*!SELECT*/ 1"), ["SELECT", "1"]);
        assert_eq!(words("/*!123 x */"), ["123", "x"]);
    }

    #[test]
    fn literals_are_single_tokens() {
        assert_eq!(
            kinds(r"SELECT 'a\'b -- ', 'it''s', `a``b`"),
            [
                (TokenKind::Word, "SELECT".into()),
                (TokenKind::Str, r"'a\'b -- '".into()),
                (TokenKind::Punct(b','), ",".into()),
                (TokenKind::Str, "'it''s'".into()),
                (TokenKind::Punct(b','), ",".into()),
                (TokenKind::QuotedIdent, "a``b".into()),
            ]
        );
        assert_eq!(unquote_ident(b"a``b"), "a`b");
        assert_eq!(unquote_string(br"'a\'b''c\n'"), b"a'b'c\n");
    }

    #[test]
    fn numbers_and_identifiers_starting_with_digits() {
        let k = kinds("1 1.5 .5 1e5 1.5e-3 0x1F 0b01 1abc t.1c 0xZZ");
        let got: Vec<_> = k.iter().map(|(k, s)| (*k, s.as_str())).collect();
        assert_eq!(
            got,
            [
                (TokenKind::Number, "1"),
                (TokenKind::Number, "1.5"),
                (TokenKind::Number, ".5"),
                (TokenKind::Number, "1e5"),
                (TokenKind::Number, "1.5e-3"),
                (TokenKind::Number, "0x1F"),
                (TokenKind::Number, "0b01"),
                (TokenKind::Word, "1abc"),
                (TokenKind::Word, "t"),
                (TokenKind::Punct(b'.'), "."),
                (TokenKind::Word, "1c"),
                (TokenKind::Word, "0xZZ"),
            ]
        );
    }

    #[test]
    fn variables() {
        let k = kinds("@a @'b c' @@session.autocommit @@x := ?");
        let got: Vec<_> = k.iter().map(|(k, s)| (*k, s.as_str())).collect();
        assert_eq!(
            got,
            [
                (TokenKind::UserVar, "a"),
                (TokenKind::UserVar, "'b c'"),
                (TokenKind::SysVar, "session.autocommit"),
                (TokenKind::SysVar, "x"),
                (TokenKind::Assign, ":="),
                (TokenKind::Placeholder, "?"),
            ]
        );
    }

    #[test]
    fn hints() {
        let mut l = Lexer::new(b"SELECT 1 -- maxscale route to master", true);
        while l.next_token().kind != TokenKind::End {}
        assert_eq!(l.hint, Some(LexHint::Master));
        let mut l = Lexer::new(b"/* MaxScale Route To Server db2 */ SELECT 1", true);
        while l.next_token().kind != TokenKind::End {}
        assert_eq!(l.hint, Some(LexHint::Server(b"db2")));
        let mut l = Lexer::new(b"SELECT 1 /* maxscale route to nowhere */", true);
        while l.next_token().kind != TokenKind::End {}
        assert_eq!(l.hint, None);
    }

    #[test]
    fn ambiguity_flags() {
        let mut l = Lexer::new(b"/*!99999 SELECT '*/' */", true);
        while l.next_token().kind != TokenKind::End {}
        assert!(l.exec_comment_ambiguous);
        let mut l = Lexer::new(b"/*!40101 SET NAMES utf8 */", true);
        while l.next_token().kind != TokenKind::End {}
        assert!(!l.exec_comment_ambiguous);
        let mut l = Lexer::new(br"SELECT 'a\'b'", true);
        while l.next_token().kind != TokenKind::End {}
        assert!(l.backslash_quote_seen);
        // Without backslash escapes the same text is two literals.
        let mut l = Lexer::new(br"SELECT 'a\'b'", false);
        assert_eq!(l.next_token().kind, TokenKind::Word);
        assert_eq!(l.next_token().text, br"'a\'");
    }

    #[test]
    fn unterminated_things_run_to_the_end() {
        assert_eq!(words("SELECT 'abc"), ["SELECT", "'abc"]);
        assert_eq!(words("SELECT `abc"), ["SELECT", "abc"]);
        assert_eq!(words("SELECT 1 /* abc"), ["SELECT", "1"]);
        assert_eq!(words("SELECT @'x"), ["SELECT", "'x"]);
        assert_eq!(words("'\\"), ["'\\"]);
    }
}
