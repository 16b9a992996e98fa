//! The vocabulary every value module shares: static result types, their wire metadata, and the
//! operators, cast targets, interval units and aggregates the binder names.
//!
//! This is a leaf (it uses nothing else in `value`), so that the operations (`arith`, `cast`,
//! `datetime`, ...) and the facade in `mod.rs` can all name these types without import loops.

use crate::charset::Collation;
use crate::types::FieldType;

/// The static type of an expression's result (drives column metadata and coercions).
#[derive(Clone, Debug, PartialEq)]
pub enum SqlType {
    Null,
    /// `bits` = 8/16/24/32/64 (the declared width; 64 for computed integers).
    Int {
        bits: u32,
        unsigned: bool,
    },
    Decimal {
        precision: u8,
        scale: u8,
    },
    Float,
    Double,
    /// Character data (held as utf8mb4 whatever the collation's character set).
    /// `max_chars` = declared length; `lob` for TEXT types; `collation` decides comparisons.
    Text {
        max_chars: u32,
        lob: bool,
        collation: Collation,
    },
    /// Binary data (BINARY/VARBINARY/BLOB).
    Bytes {
        max_len: u32,
        lob: bool,
    },
    Date,
    DateTime {
        fsp: u8,
    },
    Timestamp {
        fsp: u8,
    },
    /// TIME(fsp). Values are canonical text (see value::time).
    Time {
        fsp: u8,
    },
    /// An ENUM column: text values; the binder turns it into its index (FIELD) where MariaDB
    /// uses the index: numeric context, comparison with a number, ORDER BY.
    Enum {
        values: Vec<String>,
    },
    /// A BIT(width) column: an unsigned integer value (arithmetic, comparison and functions see
    /// the number) that the text protocol sends as its big-endian bytes, as MariaDB does.
    Bit {
        width: u8,
    },
}

/// Wire metadata of a result column of type `SqlType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldMeta {
    pub field_type: FieldType,
    pub length: u32,
    pub decimals: u8,
    pub charset: u16,
    /// UNSIGNED / BINARY / BLOB / NUM flags implied by the type (NOT_NULL etc. added by caller).
    pub flags: u16,
}

// ---- arithmetic (NULL in → NULL out; integer overflow → error 1690) ----

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    /// `/`: DECIMAL or DOUBLE result; division by zero → NULL (+ warning 1365, or error in strict
    /// DML with ERROR_FOR_DIVISION_BY_ZERO).
    Div,
    /// DIV
    IntDiv,
    /// % / MOD
    Rem,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastTarget {
    Signed,
    Unsigned,
    Decimal {
        precision: u8,
        scale: u8,
    },
    Double,
    Float,
    Char {
        len: Option<u32>,
    },
    Binary {
        len: Option<u32>,
    },
    Date,
    DateTime {
        fsp: u8,
    },
    /// CAST(x AS TIME(fsp)): canonical TIME text.
    Time {
        fsp: u8,
    },
    /// CAST(x AS UUID / INET4 / INET6): the value's canonical text, NULL (warning 1292) if x
    /// is no such value.
    FixedBinary(crate::charset::FixedBinary),
    /// Not SQL syntax: the binder compares TIME operands as microseconds (exact order for
    /// negative times and hours past 99, which their text does not have).
    TimeMicros,
    /// Not SQL syntax: a TIME operand of arithmetic, as MariaDB's `t + 0` (HHMMSS[.f]).
    TimeNumber {
        fsp: u8,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntervalUnit {
    Microsecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggFunc {
    /// COUNT(*)
    CountStar,
    Count,
    Sum,
    Avg,
    Min,
    Max,
    BitAnd,
    BitOr,
    BitXor,
    GroupConcat,
    StdDev,
    Variance,
}

impl SqlType {
    /// A text type of the collation string results get by default (MariaDB: the connection's;
    /// the binder gives literals the session's `collation_connection`).
    pub fn text(max_chars: u32, lob: bool) -> SqlType {
        SqlType::Text { max_chars, lob, collation: default_text_collation() }
    }
}

/// The collation of text that has none of its own (function results without string arguments,
/// information_schema columns): MariaDB's default connection collation, utf8mb4_general_ci
/// (information_schema's utf8mb3_general_ci orders the same for the names it holds).
pub fn default_text_collation() -> Collation {
    Collation::utf8mb4_general_ci()
}
