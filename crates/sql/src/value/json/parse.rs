//! The JSON text parser: RFC 8259 grammar, MariaDB's nesting limit and error positions.

use super::doc::Json;

/// Why a text is not JSON, as MariaDB's warnings tell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// 4037: the text ended inside a value (or held none).
    UnexpectedEnd,
    /// 4038: a character that cannot stand there; `position` is 1-based, the character's.
    Syntax { position: usize },
    /// 4040: containers nested deeper than MariaDB's 32 levels.
    TooDeep { position: usize },
}

/// MariaDB's JSON_DEPTH_LIMIT.
const DEPTH_LIMIT: usize = 32;

pub fn parse(text: &[u8]) -> Result<Json, ParseError> {
    let mut p = Parser { s: text, i: 0, depth: 0 };
    let v = p.value()?;
    p.skip_ws();
    if p.i < p.s.len() {
        return Err(ParseError::Syntax { position: p.i + 1 });
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Result<u8, ParseError> {
        self.skip_ws();
        self.s.get(self.i).copied().ok_or(ParseError::UnexpectedEnd)
    }

    fn syntax(&self) -> ParseError {
        ParseError::Syntax { position: self.i + 1 }
    }

    fn value(&mut self) -> Result<Json, ParseError> {
        match self.peek()? {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' => Ok(Json::Str(self.string()?)),
            b't' => self.word(b"true", Json::Bool(true)),
            b'f' => self.word(b"false", Json::Bool(false)),
            b'n' => self.word(b"null", Json::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(self.syntax()),
        }
    }

    fn word(&mut self, w: &[u8], v: Json) -> Result<Json, ParseError> {
        for &c in w {
            match self.s.get(self.i) {
                None => return Err(ParseError::UnexpectedEnd),
                Some(&b) if b == c => self.i += 1,
                Some(_) => return Err(self.syntax()),
            }
        }
        Ok(v)
    }

    fn digits(&mut self) -> Result<usize, ParseError> {
        let start = self.i;
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
        }
        if self.i == start {
            return Err(if self.i >= self.s.len() { ParseError::UnexpectedEnd } else { self.syntax() });
        }
        Ok(self.i - start)
    }

    fn number(&mut self) -> Result<Json, ParseError> {
        let start = self.i;
        if self.s[self.i] == b'-' {
            self.i += 1;
        }
        let int_start = self.i;
        let n = self.digits()?;
        if n > 1 && self.s[int_start] == b'0' {
            return Err(ParseError::Syntax { position: int_start + 2 });
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            self.digits()?;
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            self.digits()?;
        }
        Ok(Json::Number(String::from_utf8_lossy(&self.s[start..self.i]).into_owned()))
    }

    /// A string's text between its quotes, escapes checked and kept.
    fn string(&mut self) -> Result<String, ParseError> {
        self.i += 1;
        let start = self.i;
        loop {
            match self.s.get(self.i) {
                None => return Err(ParseError::UnexpectedEnd),
                Some(b'"') => break,
                Some(b'\\') => {
                    self.i += 1;
                    match self.s.get(self.i) {
                        None => return Err(ParseError::UnexpectedEnd),
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 1,
                        Some(b'u') => {
                            self.i += 1;
                            for _ in 0..4 {
                                match self.s.get(self.i) {
                                    None => return Err(ParseError::UnexpectedEnd),
                                    Some(c) if c.is_ascii_hexdigit() => self.i += 1,
                                    Some(_) => return Err(self.syntax()),
                                }
                            }
                        }
                        Some(_) => return Err(self.syntax()),
                    }
                }
                Some(c) if *c < 0x20 => return Err(self.syntax()),
                Some(_) => self.i += 1,
            }
        }
        let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        self.i += 1;
        Ok(text)
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > DEPTH_LIMIT {
            return Err(ParseError::TooDeep { position: self.i + 1 });
        }
        self.i += 1;
        Ok(())
    }

    fn array(&mut self) -> Result<Json, ParseError> {
        self.enter()?;
        let mut items = Vec::new();
        if self.peek()? == b']' {
            self.i += 1;
            self.depth -= 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value()?);
            match self.peek()? {
                b',' => self.i += 1,
                b']' => break,
                _ => return Err(self.syntax()),
            }
        }
        self.i += 1;
        self.depth -= 1;
        Ok(Json::Array(items))
    }

    fn object(&mut self) -> Result<Json, ParseError> {
        self.enter()?;
        let mut members = Vec::new();
        if self.peek()? == b'}' {
            self.i += 1;
            self.depth -= 1;
            return Ok(Json::Object(members));
        }
        loop {
            if self.peek()? != b'"' {
                return Err(self.syntax());
            }
            let key = self.string()?;
            if self.peek()? != b':' {
                // MariaDB's scanner reports the position before the character it wanted a colon at.
                return Err(ParseError::Syntax { position: self.i });
            }
            self.i += 1;
            members.push((key, self.value()?));
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => break,
                _ => return Err(self.syntax()),
            }
        }
        self.i += 1;
        self.depth -= 1;
        Ok(Json::Object(members))
    }
}
