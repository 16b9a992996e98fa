//! CREATE TABLE ... {IGNORE | REPLACE} [AS] SELECT: what MariaDB does with a row whose key is
//! already in the new table. sqlparser has neither word there, so the parser blanks it out
//! (the text keeps its length, so positions in 1064 errors and column names stay right) and
//! the session reads the word again from the statement's text.

use super::lexer::{self, Tok};

/// IGNORE or REPLACE before the SELECT of a CREATE TABLE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CreateSelectDuplicates {
    /// IGNORE: a duplicate row is skipped with warning 1062.
    Ignore,
    /// REPLACE: a duplicate row replaces the one stored.
    Replace,
}

/// The IGNORE / REPLACE of a CREATE TABLE ... SELECT and where the word starts; None without
/// one. The word stands outside parentheses and right before SELECT or AS.
pub fn duplicates(text: &str) -> Option<(CreateSelectDuplicates, usize)> {
    let toks = lexer::tokenize(text)?;
    if !toks.first().is_some_and(|(t, _)| t.is_word("CREATE")) {
        return None;
    }
    let mut depth = 0i32;
    for (i, (tok, at)) in toks.iter().enumerate() {
        match tok {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            _ if depth != 0 => {}
            t if t.is_word("IGNORE") || t.is_word("REPLACE") => {
                let before_select = toks.get(i + 1).is_some_and(|(n, _)| n.is_word("SELECT") || n.is_word("AS"));
                if before_select {
                    let kind = if t.is_word("IGNORE") {
                        CreateSelectDuplicates::Ignore
                    } else {
                        CreateSelectDuplicates::Replace
                    };
                    return Some((kind, *at));
                }
            }
            t if t.is_word("SELECT") => return None,
            _ => {}
        }
    }
    None
}

/// The statement with its IGNORE / REPLACE blanked out; None when it has none.
pub(super) fn without_duplicates_word(text: &str) -> Option<String> {
    let (kind, at) = duplicates(text)?;
    let len = match kind {
        CreateSelectDuplicates::Ignore => "IGNORE".len(),
        CreateSelectDuplicates::Replace => "REPLACE".len(),
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..at]);
    out.push_str(&" ".repeat(len));
    out.push_str(&text[at + len..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_word_before_the_select() {
        let t = "CREATE TABLE t (c varchar(20) PRIMARY KEY) IGNORE SELECT c FROM o";
        assert_eq!(duplicates(t), Some((CreateSelectDuplicates::Ignore, 43)));
        assert_eq!(
            without_duplicates_word(t).unwrap(),
            "CREATE TABLE t (c varchar(20) PRIMARY KEY)        SELECT c FROM o"
        );
        assert_eq!(
            duplicates("create or replace table t replace as select 1").map(|d| d.0),
            Some(CreateSelectDuplicates::Replace)
        );
        assert_eq!(duplicates("CREATE OR REPLACE TABLE t AS SELECT 1"), None);
        assert_eq!(duplicates("CREATE TABLE t AS SELECT 1 FROM u WHERE 'IGNORE SELECT' = ''"), None);
        assert_eq!(duplicates("CREATE TABLE t (a int) SELECT * FROM x AS ignore"), None);
    }
}
