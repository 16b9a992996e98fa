//! MariaDB's JSON documents: the value model, its parser and printers, and path expressions.
//!
//! Hand-written rather than serde_json's `Value` because MariaDB keeps a document as the text
//! that was written and its functions show that text: numbers keep their spelling (`1.0e0`,
//! `2.50`, integers of any length), strings and keys keep their escapes (`"\u00e9"` prints as
//! written), duplicate keys both stay (the first is the one a path finds), members keep their
//! written order; and results print with ", " and ": ". serde_json would normalise every one
//! of these. Its error positions differ from MariaDB's too.

mod doc;
mod edit;
mod escape;
mod parse;
mod path;
mod print;

pub use doc::Json;
pub use edit::{array_append, array_insert, merge_patch, merge_preserve, remove, set, SetMode};
pub use escape::{escape_into, unescape};
pub use parse::{parse, ParseError};
pub use path::{format_steps, parse_path, Index, Path, PathError, Step};
pub use print::{print_compact, print_detailed, print_normal, print_normalized};

#[cfg(test)]
mod tests;
