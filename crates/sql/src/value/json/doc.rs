//! The document model: a parsed JSON value, with the tests JSON functions ask of values.

use super::escape::{escape_into, unescape};

/// A parsed JSON document. Strings, keys and numbers hold their text as written (strings and
/// keys without the quotes, escapes kept).
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(String),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// A string value from unescaped text.
    pub fn string(s: &str) -> Json {
        let mut out = String::with_capacity(s.len());
        escape_into(s, &mut out);
        Json::Str(out)
    }

    pub fn is_scalar(&self) -> bool {
        !matches!(self, Json::Array(_) | Json::Object(_))
    }

    /// JSON_TYPE's name for the value.
    pub fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "NULL",
            Json::Bool(_) => "BOOLEAN",
            Json::Number(n) if n.contains('.') => "DOUBLE",
            Json::Number(_) => "INTEGER",
            Json::Str(_) => "STRING",
            Json::Array(_) => "ARRAY",
            Json::Object(_) => "OBJECT",
        }
    }

    /// The member `key` (unescaped) of an object: the first when the key is written twice.
    pub fn member(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| key_is(k, key)).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Nesting depth as JSON_DEPTH counts it: a scalar or an empty container is 1.
    pub fn depth(&self) -> u64 {
        match self {
            Json::Array(items) if !items.is_empty() => 1 + items.iter().map(Json::depth).max().unwrap_or(0),
            Json::Object(members) if !members.is_empty() => {
                1 + members.iter().map(|(_, v)| v.depth()).max().unwrap_or(0)
            }
            _ => 1,
        }
    }

    /// Whether two values are equal as JSON: numbers by value, strings by their unescaped
    /// text, objects whatever their member order.
    pub fn equals(&self, other: &Json) -> bool {
        match (self, other) {
            (Json::Null, Json::Null) => true,
            (Json::Bool(a), Json::Bool(b)) => a == b,
            (Json::Number(a), Json::Number(b)) => number_value(a) == number_value(b),
            (Json::Str(a), Json::Str(b)) => a == b || unescape(a) == unescape(b),
            (Json::Array(a), Json::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equals(y)),
            (Json::Object(a), Json::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| other.member(&unescape(k)).is_some_and(|w| v.equals(w)))
            }
            _ => false,
        }
    }

    /// JSON_CONTAINS's test (MySQL's definition, which MariaDB follows): a scalar contains an
    /// equal scalar; an array contains a non-array that some element contains, and an array
    /// whose every element it contains; an object contains an object whose every member it
    /// has with a contained value.
    pub fn contains(&self, candidate: &Json) -> bool {
        match (self, candidate) {
            (Json::Array(_), Json::Array(cs)) => cs.iter().all(|c| self.contains(c)),
            (Json::Array(items), c) => items.iter().any(|t| t.contains(c)),
            (Json::Object(_), Json::Object(cs)) => {
                cs.iter().all(|(k, c)| self.member(&unescape(k)).is_some_and(|t| t.contains(c)))
            }
            (Json::Object(_), _) | (_, Json::Array(_)) | (_, Json::Object(_)) => false,
            (t, c) => t.equals(c),
        }
    }
}

/// Whether a raw (escaped) key is `key`.
pub fn key_is(raw: &str, key: &str) -> bool {
    if raw.contains('\\') {
        unescape(raw) == key
    } else {
        raw == key
    }
}

/// A JSON number's value (MariaDB compares JSON numbers as doubles).
pub fn number_value(text: &str) -> f64 {
    text.parse::<f64>().unwrap_or(0.0)
}
