//! Value and schema types, and the vocabulary of the engine's API, shared by every layer of the
//! engine and by the SQL layer.
//!
//! A leaf module: it imports nothing from the crate, so any layer may use it.
//!
//! A `Datum` is one stored column value. The SQL layer computes with the same type (it depends on
//! this crate), so rows pass between the layers without conversion.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::ops::Bound;
use std::sync::Arc;
use std::time::Duration;

use crate::wideint::{I256, U256, U512};

pub type TableId = u32;
pub type IndexId = u32;

/// A fixed-point decimal: `mantissa * 10^-scale`, up to 76 significant digits (columns hold
/// 65, MariaDB's limit; expressions a few more, see `DECIMAL_MAX_VALUE_DIGITS`). The mantissa is a 256-bit integer of 8-byte aligned limbs so that `Datum` keeps its
/// size; most values fit an i128 and the arithmetic takes i128 fast paths for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decimal {
    pub mantissa: I256,
    pub scale: u8,
}

// A Datum is copied through every row; the wide mantissa must not make it bigger.
const _: () = assert!(std::mem::size_of::<Decimal>() == 40 && std::mem::align_of::<Decimal>() == 8);
const _: () = assert!(std::mem::size_of::<Datum>() == 48);

/// Largest scale (digits after the point) a DECIMAL may have, as in MariaDB.
pub const DECIMAL_MAX_SCALE: u8 = 38;
/// Largest precision a DECIMAL column may declare, as in MariaDB (1426 beyond it).
pub const DECIMAL_MAX_PRECISION: u8 = 65;
/// Most significant digits a DECIMAL column stores: MariaDB's 65.
pub const DECIMAL_MAX_STORED_DIGITS: u8 = 65;
/// Most significant digits a DECIMAL value holds. MariaDB computes in nine 9-digit words, so an
/// expression may exceed the 65 digits of any type (the sum of two DECIMAL(65,30) maxima has
/// 66); 76 digits is what a 256-bit mantissa holds with room for the sign.
pub const DECIMAL_MAX_VALUE_DIGITS: u8 = 76;

/// 10^76 - 1, the largest DECIMAL mantissa magnitude.
pub fn decimal_max_magnitude() -> U256 {
    // Computed once per call from constants; the slow paths that need it are rare.
    U256::pow10(DECIMAL_MAX_VALUE_DIGITS as u32).expect("10^76 fits 256 bits").wrapping_sub(&U256::from_u64(1))
}

impl Decimal {
    pub const fn new(mantissa: i128, scale: u8) -> Decimal {
        Decimal { mantissa: I256::from_i128(mantissa), scale }
    }

    pub fn from_i64(v: i64) -> Decimal {
        Decimal::new(v as i128, 0)
    }

    /// `±mag * 10^-scale`; `None` beyond 76 digits.
    pub fn from_sign_magnitude(negative: bool, mag: U256, scale: u8) -> Option<Decimal> {
        if mag > decimal_max_magnitude() {
            return None;
        }
        Some(Decimal { mantissa: I256::from_sign_magnitude(negative && !mag.is_zero(), mag)?, scale })
    }

    /// The mantissa as i128 when it fits (the fast paths).
    #[inline]
    pub fn mantissa_i128(self) -> Option<i128> {
        self.mantissa.to_i128()
    }

    /// The mantissa as i128, saturated to i128::MIN/MAX beyond it: for readers (dates, times,
    /// integer conversions) to whom any such value is out of range anyway.
    #[inline]
    pub fn mantissa_saturating(self) -> i128 {
        self.mantissa_i128().unwrap_or(if self.is_negative() { i128::MIN } else { i128::MAX })
    }

    pub fn is_negative(self) -> bool {
        self.mantissa.is_negative()
    }

    pub fn is_zero(self) -> bool {
        self.mantissa.is_zero()
    }

    pub fn signum(self) -> i32 {
        self.mantissa.signum()
    }

    pub fn magnitude(self) -> U256 {
        self.mantissa.unsigned_abs()
    }

    pub fn negated(self) -> Decimal {
        Decimal { mantissa: self.mantissa.wrapping_neg(), scale: self.scale }
    }

    pub fn abs(self) -> Decimal {
        if self.is_negative() {
            self.negated()
        } else {
            self
        }
    }

    /// Rescales to `scale` digits, rounding half away from zero. `None` beyond 76 digits.
    pub fn rescale(self, scale: u8) -> Option<Decimal> {
        if let Some(m) = self.mantissa_i128() {
            match scale.cmp(&self.scale) {
                Ordering::Equal => return Some(self),
                Ordering::Greater => {
                    if let Some(v) = pow10(scale - self.scale).and_then(|f| m.checked_mul(f)) {
                        return Some(Decimal::new(v, scale));
                    }
                }
                Ordering::Less => {
                    let Some(f) = pow10(self.scale - scale) else {
                        return Some(Decimal::new(0, scale));
                    };
                    let q = m / f;
                    let r = m % f;
                    let q = if r.unsigned_abs() >= f.unsigned_abs() - r.unsigned_abs() { q + m.signum() } else { q };
                    return Some(Decimal::new(q, scale));
                }
            }
        }
        let mag = self.magnitude();
        let mag = match scale.cmp(&self.scale) {
            Ordering::Equal => return Some(self),
            Ordering::Greater => mag.checked_mul(&U256::pow10((scale - self.scale) as u32)?)?,
            Ordering::Less => mag.round_div_pow10((self.scale - scale) as u32),
        };
        Decimal::from_sign_magnitude(self.is_negative(), mag, scale)
    }

    pub fn to_f64(self) -> f64 {
        match self.mantissa_i128() {
            Some(m) => m as f64 / 10f64.powi(self.scale as i32),
            None => self.to_string().parse().unwrap_or(0.0),
        }
    }

    /// Parses `[-+]digits[.digits][e[-+]digits]`. Returns `None` if not a number or beyond 76
    /// digits.
    pub fn parse(s: &str) -> Option<Decimal> {
        let s = s.trim();
        let (neg, body) = match s.as_bytes().first()? {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        let (num, exp) = match body.find(['e', 'E']) {
            Some(i) => (&body[..i], body[i + 1..].parse::<i32>().ok()?),
            None => (body, 0),
        };
        let (int_part, frac_part) = match num.find('.') {
            Some(i) => (&num[..i], &num[i + 1..]),
            None => (num, ""),
        };
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        let digits: Vec<u8> = int_part.bytes().chain(frac_part.bytes()).collect();
        let mut mag = U256::from_decimal_digits(&digits)?;
        let mut scale = frac_part.len() as i32 - exp;
        while scale < 0 {
            mag = mag.checked_mul_u64(10)?;
            scale += 1;
        }
        if scale > DECIMAL_MAX_SCALE as i32 {
            let drop = (scale - DECIMAL_MAX_SCALE as i32) as u32;
            mag = if drop > 80 { U256::ZERO } else { mag.round_div_pow10(drop) };
            scale = DECIMAL_MAX_SCALE as i32;
        }
        Decimal::from_sign_magnitude(neg, mag, scale as u8)
    }

    /// Number of significant integer digits (for precision checks).
    pub fn int_digits(self) -> u32 {
        match self.mantissa_i128() {
            Some(m) => {
                let int = (m / pow10(self.scale).unwrap_or(1)).unsigned_abs();
                if int == 0 {
                    0
                } else {
                    int.ilog10() + 1
                }
            }
            None => self.magnitude().digits().saturating_sub(self.scale as u32),
        }
    }
}

pub fn pow10(n: u8) -> Option<i128> {
    10i128.checked_pow(n as u32)
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let neg = self.is_negative();
        let digits = match self.mantissa_i128() {
            Some(m) => m.unsigned_abs().to_string(),
            None => self.magnitude().to_decimal_string(),
        };
        let scale = self.scale as usize;
        if neg {
            f.write_str("-")?;
        }
        if digits.len() > scale {
            f.write_str(&digits[..digits.len() - scale])?;
            if scale > 0 {
                f.write_str(".")?;
                f.write_str(&digits[digits.len() - scale..])?;
            }
        } else {
            f.write_str("0.")?;
            for _ in 0..scale - digits.len() {
                f.write_str("0")?;
            }
            f.write_str(&digits)?;
        }
        Ok(())
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        if self.scale == other.scale {
            return self.mantissa.cmp(&other.mantissa);
        }
        let (sa, sb) = (self.signum(), other.signum());
        if sa != sb {
            return sa.cmp(&sb);
        }
        let s = self.scale.max(other.scale);
        if let (Some(a), Some(b)) = (self.rescale(s), other.rescale(s)) {
            // Exact when neither rescale rounded: only scaling up happens here.
            return a.mantissa.cmp(&b.mantissa);
        }
        // Beyond 65 digits once aligned: compare the magnitudes in 512 bits.
        let align = |d: &Decimal| -> U512 {
            let m: U512 = d.magnitude().resize().expect("widening");
            m.checked_mul(&U512::pow10((s - d.scale) as u32).expect("<= 10^38")).expect("< 10^103")
        };
        let o = align(self).cmp(&align(other));
        if sa < 0 {
            o.reverse()
        } else {
            o
        }
    }
}

/// A calendar date, packed so that integer order is date order: `year*512 + month*32 + day`.
/// Zero dates (`0000-00-00`) are representable, as in MariaDB.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date(pub i32);

impl Date {
    pub fn new(year: u32, month: u32, day: u32) -> Date {
        Date((year * 512 + month * 32 + day) as i32)
    }
    pub fn year(self) -> u32 {
        self.0 as u32 / 512
    }
    pub fn month(self) -> u32 {
        (self.0 as u32 / 32) % 16
    }
    pub fn day(self) -> u32 {
        self.0 as u32 % 32
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year(), self.month(), self.day())
    }
}

/// A wall-clock date and time with microseconds, packed so that integer order is time order:
/// `((date_packed * 24 + hour) * 60 + minute) * 60 + second) * 1_000_000 + micros`.
/// Used for DATETIME and TIMESTAMP (a TIMESTAMP holds the UTC time of its instant; the SQL layer
/// converts from and to the session's time zone, selkie_sql::value::timestamp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime(pub i64);

impl DateTime {
    pub fn new(date: Date, hour: u32, minute: u32, second: u32, micros: u32) -> DateTime {
        let secs = ((date.0 as i64 * 24 + hour as i64) * 60 + minute as i64) * 60 + second as i64;
        DateTime(secs * 1_000_000 + micros as i64)
    }
    pub fn date(self) -> Date {
        Date((self.0 / 1_000_000 / 86_400) as i32)
    }
    pub fn hour(self) -> u32 {
        ((self.0 / 1_000_000 / 3600) % 24) as u32
    }
    pub fn minute(self) -> u32 {
        ((self.0 / 1_000_000 / 60) % 60) as u32
    }
    pub fn second(self) -> u32 {
        ((self.0 / 1_000_000) % 60) as u32
    }
    pub fn micros(self) -> u32 {
        (self.0 % 1_000_000) as u32
    }
    /// Formats with `fsp` fractional digits (0..=6).
    pub fn format(self, fsp: u8) -> String {
        let mut s = format!("{} {:02}:{:02}:{:02}", self.date(), self.hour(), self.minute(), self.second());
        if fsp > 0 {
            let frac = format!("{:06}", self.micros());
            s.push('.');
            s.push_str(&frac[..fsp.min(6) as usize]);
        }
        s
    }
}

/// One stored column value.
#[derive(Clone, Debug, PartialEq)]
pub enum Datum {
    Null,
    /// TINYINT..BIGINT signed (and BOOL).
    Int(i64),
    /// TINYINT..BIGINT UNSIGNED.
    UInt(u64),
    /// FLOAT and DOUBLE (FLOAT is narrowed to f32 when stored).
    Double(f64),
    Decimal(Decimal),
    /// CHAR, VARCHAR, TEXT (utf8mb4 bytes) and BINARY, VARBINARY, BLOB.
    Bytes(Vec<u8>),
    Date(Date),
    /// DATETIME and TIMESTAMP.
    DateTime(DateTime),
}

impl Datum {
    pub fn is_null(&self) -> bool {
        matches!(self, Datum::Null)
    }
}

/// Size class of TEXT and BLOB columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LobSize {
    Tiny,
    Normal,
    Medium,
    Long,
}

impl LobSize {
    /// Largest value in bytes.
    pub fn max_len(self) -> u64 {
        match self {
            LobSize::Tiny => 255,
            LobSize::Normal => 65_535,
            LobSize::Medium => 16_777_215,
            LobSize::Long => 4_294_967_295,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntWidth {
    Tiny,
    Small,
    Medium,
    Int,
    Big,
}

impl IntWidth {
    pub fn bits(self) -> u32 {
        match self {
            IntWidth::Tiny => 8,
            IntWidth::Small => 16,
            IntWidth::Medium => 24,
            IntWidth::Int => 32,
            IntWidth::Big => 64,
        }
    }
    pub fn signed_range(self) -> (i64, i64) {
        let b = self.bits();
        if b == 64 {
            (i64::MIN, i64::MAX)
        } else {
            (-(1i64 << (b - 1)), (1i64 << (b - 1)) - 1)
        }
    }
    pub fn unsigned_max(self) -> u64 {
        let b = self.bits();
        if b == 64 {
            u64::MAX
        } else {
            (1u64 << b) - 1
        }
    }
}

/// A column's declared type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ColumnType {
    Int {
        width: IntWidth,
        unsigned: bool,
        display_width: Option<u32>,
    },
    Decimal {
        precision: u8,
        scale: u8,
        unsigned: bool,
    },
    /// FLOAT; `digits` = (M, D) of FLOAT(M,D): values are rounded to D decimals when stored.
    Float {
        unsigned: bool,
        digits: Option<(u8, u8)>,
    },
    /// DOUBLE (and REAL, DOUBLE PRECISION, FLOAT(25..53)); `digits` as for `Float`.
    Double {
        unsigned: bool,
        digits: Option<(u8, u8)>,
    },
    /// CHAR(n), n in characters.
    Char {
        len: u32,
    },
    VarChar {
        len: u32,
    },
    Text {
        size: LobSize,
    },
    Binary {
        len: u32,
    },
    VarBinary {
        len: u32,
    },
    Blob {
        size: LobSize,
    },
    Date,
    DateTime {
        fsp: u8,
    },
    Timestamp {
        fsp: u8,
    },
    /// YEAR (YEAR(4)): 0 or 1901..=2155, stored as a SMALLINT UNSIGNED.
    Year,
    /// TIME(fsp): -838:59:59 ..= 838:59:59. Values are canonical text ('-12:30:00.500'), so the
    /// SQL layer's TIME functions (which work on text) take them as they are.
    Time {
        fsp: u8,
    },
    /// ENUM('a','b'): one of the values (or '' for an invalid one), held as its text.
    Enum {
        values: Vec<String>,
    },
    /// SET('a','b'): a comma-separated subset in declaration order, held as its text.
    Set {
        values: Vec<String>,
    },
    /// JSON: MariaDB's alias of LONGTEXT whose values must be valid JSON (CHECK json_valid).
    Json,
    /// UUID (MariaDB 10.7+), INET4 and INET6 (10.5+/10.10+): values are their canonical text
    /// ('123e4567-e89b-12d3-a456-426614174000', '192.168.0.1', '2001:db8::1').
    Uuid,
    Inet4,
    Inet6,
    /// BIT(width), width 1..=64: an unsigned integer of that many bits, stored as a BIGINT
    /// UNSIGNED (so keys order by value); the SQL layer sends it as big-endian bytes.
    Bit {
        width: u8,
    },
}

impl ColumnType {
    /// The existing type whose storage (row and key encoding, ordering) a newer type shares:
    /// the engine stores YEAR as SMALLINT UNSIGNED, TIME/ENUM/SET as their text, JSON as
    /// LONGTEXT. Other types are their own.
    pub fn stored_as(&self) -> std::borrow::Cow<'_, ColumnType> {
        use std::borrow::Cow;
        match self {
            ColumnType::Year => {
                Cow::Owned(ColumnType::Int { width: IntWidth::Small, unsigned: true, display_width: None })
            }
            // '-838:59:59.999999': 17 bytes.
            ColumnType::Time { .. } => Cow::Owned(ColumnType::VarBinary { len: 17 }),
            ColumnType::Enum { values } | ColumnType::Set { values } => {
                let chars = match self {
                    ColumnType::Enum { .. } => values.iter().map(|v| v.chars().count()).max().unwrap_or(0),
                    _ => values.iter().map(|v| v.chars().count() + 1).sum::<usize>(),
                };
                Cow::Owned(ColumnType::VarChar { len: chars.max(1) as u32 })
            }
            ColumnType::Json => Cow::Owned(ColumnType::Text { size: LobSize::Long }),
            ColumnType::Uuid => Cow::Owned(ColumnType::VarChar { len: 36 }),
            ColumnType::Inet4 => Cow::Owned(ColumnType::VarChar { len: 15 }),
            ColumnType::Inet6 => Cow::Owned(ColumnType::VarChar { len: 39 }),
            ColumnType::Bit { .. } => {
                Cow::Owned(ColumnType::Int { width: IntWidth::Big, unsigned: true, display_width: None })
            }
            other => Cow::Borrowed(other),
        }
    }

    pub fn is_string(&self) -> bool {
        matches!(self, ColumnType::Char { .. } | ColumnType::VarChar { .. } | ColumnType::Text { .. })
    }
    pub fn is_binary(&self) -> bool {
        matches!(self, ColumnType::Binary { .. } | ColumnType::VarBinary { .. } | ColumnType::Blob { .. })
    }
    pub fn is_integer(&self) -> bool {
        matches!(self, ColumnType::Int { .. })
    }
    /// A plain FLOAT / DOUBLE (signed, no (M,D)).
    pub const FLOAT: ColumnType = ColumnType::Float { unsigned: false, digits: None };
    pub const DOUBLE: ColumnType = ColumnType::Double { unsigned: false, digits: None };
    /// Whether the type is UNSIGNED (integers, DECIMAL, FLOAT, DOUBLE).
    pub fn is_unsigned(&self) -> bool {
        match self {
            ColumnType::Int { unsigned, .. }
            | ColumnType::Decimal { unsigned, .. }
            | ColumnType::Float { unsigned, .. }
            | ColumnType::Double { unsigned, .. } => *unsigned,
            _ => false,
        }
    }

    /// The SQL text of the type as SHOW CREATE TABLE prints it (MariaDB style).
    pub fn sql_name(&self) -> String {
        fn lob(prefix: &str, s: LobSize) -> String {
            match s {
                LobSize::Tiny => format!("tiny{prefix}"),
                LobSize::Normal => prefix.to_string(),
                LobSize::Medium => format!("medium{prefix}"),
                LobSize::Long => format!("long{prefix}"),
            }
        }
        match self {
            ColumnType::Int { width, unsigned, display_width } => {
                let base = match width {
                    IntWidth::Tiny => "tinyint",
                    IntWidth::Small => "smallint",
                    IntWidth::Medium => "mediumint",
                    IntWidth::Int => "int",
                    IntWidth::Big => "bigint",
                };
                let dw = display_width.unwrap_or(match (width, unsigned) {
                    (IntWidth::Tiny, false) => 4,
                    (IntWidth::Tiny, true) => 3,
                    (IntWidth::Small, false) => 6,
                    (IntWidth::Small, true) => 5,
                    (IntWidth::Medium, false) => 9,
                    (IntWidth::Medium, true) => 8,
                    (IntWidth::Int, false) => 11,
                    (IntWidth::Int, true) => 10,
                    (IntWidth::Big, _) => 20,
                });
                if *unsigned {
                    format!("{base}({dw}) unsigned")
                } else {
                    format!("{base}({dw})")
                }
            }
            ColumnType::Decimal { precision, scale, unsigned } => {
                format!("decimal({precision},{scale}){}", if *unsigned { " unsigned" } else { "" })
            }
            ColumnType::Float { unsigned, digits } => float_name("float", *unsigned, *digits),
            ColumnType::Double { unsigned, digits } => float_name("double", *unsigned, *digits),
            ColumnType::Char { len } => format!("char({len})"),
            ColumnType::VarChar { len } => format!("varchar({len})"),
            ColumnType::Text { size } => lob("text", *size),
            ColumnType::Binary { len } => format!("binary({len})"),
            ColumnType::VarBinary { len } => format!("varbinary({len})"),
            ColumnType::Blob { size } => lob("blob", *size),
            ColumnType::Date => "date".into(),
            ColumnType::DateTime { fsp: 0 } => "datetime".into(),
            ColumnType::DateTime { fsp } => format!("datetime({fsp})"),
            ColumnType::Timestamp { fsp: 0 } => "timestamp".into(),
            ColumnType::Timestamp { fsp } => format!("timestamp({fsp})"),
            ColumnType::Year => "year(4)".into(),
            ColumnType::Time { fsp: 0 } => "time".into(),
            ColumnType::Time { fsp } => format!("time({fsp})"),
            ColumnType::Enum { values } => format!("enum({})", quoted_list(values)),
            ColumnType::Set { values } => format!("set({})", quoted_list(values)),
            ColumnType::Json => "longtext".into(),
            ColumnType::Uuid => "uuid".into(),
            ColumnType::Inet4 => "inet4".into(),
            ColumnType::Inet6 => "inet6".into(),
            ColumnType::Bit { width } => format!("bit({width})"),
        }
    }
}

/// 'a','b''c': MariaDB quotes ENUM/SET values with doubled quotes (and backslashes).
fn quoted_list(values: &[String]) -> String {
    let quoted: Vec<String> =
        values.iter().map(|v| format!("'{}'", v.replace('\\', "\\\\").replace('\'', "''"))).collect();
    quoted.join(",")
}

fn float_name(base: &str, unsigned: bool, digits: Option<(u8, u8)>) -> String {
    let mut s = base.to_string();
    if let Some((m, d)) = digits {
        s.push_str(&format!("({m},{d})"));
    }
    if unsigned {
        s.push_str(" unsigned");
    }
    s
}

/// What a column gets when an INSERT does not name it.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnDefault {
    /// No DEFAULT clause: NULL if nullable, otherwise the type's implicit default
    /// (0, '', zero date) with a warning, as MariaDB does in non-strict mode.
    None,
    /// A constant, already converted to the column type.
    Value(Datum),
    /// DEFAULT CURRENT_TIMESTAMP / NOW().
    CurrentTimestamp,
    /// DEFAULT (expr) / DEFAULT func(): evaluated for each row that does not give the column,
    /// as MariaDB 10.2+ does. The text is the expression as MariaDB prints it in SHOW CREATE
    /// TABLE (`uuid()`, `(\`a\` * 2)`, `nextval(\`db\`.\`s\`)`), which statements parse again.
    Expression(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ColumnDef {
    pub name: String,
    pub ty: ColumnType,
    pub nullable: bool,
    pub default: ColumnDefault,
    pub auto_increment: bool,
    pub on_update_current_timestamp: bool,
    pub comment: String,
    /// ZEROFILL: the text protocol pads the value with zeros to the display width (the type
    /// is UNSIGNED too, as MariaDB makes it).
    pub zerofill: bool,
    /// The column's collation (MariaDB's name) for character columns; "" for other types and
    /// for columns written before columns carried one (they use the table's).
    pub collation: String,
    /// GENERATED ALWAYS AS (expr) VIRTUAL | STORED; None for an ordinary column.
    pub generated: Option<GeneratedColumn>,
}

/// A generated column's definition. Both kinds keep their computed value in the row: the
/// engine has no hook to evaluate an expression when a row is read, the value a query sees is
/// the same (the expression may only use the row's own columns and deterministic functions),
/// and indexes on the column then work like any other. The cost is the space in the row;
/// `stored` only says what SHOW and information_schema report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedColumn {
    /// The expression as MariaDB prints it (back-quoted columns, lower-case functions), which
    /// is what SHOW CREATE TABLE shows and what statements parse again.
    pub expr: String,
    /// STORED (PERSISTENT) rather than VIRTUAL.
    pub stored: bool,
}

impl ColumnDef {
    /// The column's type as SHOW CREATE TABLE and information_schema.COLUMNS.COLUMN_TYPE print
    /// it: the type's name plus ZEROFILL, which MariaDB keeps with the column.
    pub fn type_sql(&self) -> String {
        let name = self.ty.sql_name();
        if self.zerofill {
            format!("{name} zerofill")
        } else {
            name
        }
    }
}

/// One column of an index. `prefix_len` (in bytes) indexes only a prefix of a string column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexColumn {
    pub column: usize,
    pub prefix_len: Option<u32>,
    /// Declared `DESC` (MariaDB 10.8+ keeps it and shows it in SHOW CREATE TABLE and SHOW
    /// INDEX). The key bytes stay in ascending order: a backward scan serves a descending
    /// order, so the flag changes what is shown, not how the tree is built.
    pub descending: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexDef {
    pub id: IndexId,
    /// "PRIMARY" for the primary key.
    pub name: String,
    pub columns: Vec<IndexColumn>,
    pub unique: bool,
    pub primary: bool,
    /// Root page of the index's B+tree (never changes over the tree's life).
    pub root: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TableOptions {
    pub engine: String,
    pub charset: String,
    pub collation: String,
    pub comment: String,
    /// ROW_FORMAT= as written (upper case, "DYNAMIC"), empty when none was or after
    /// ROW_FORMAT=DEFAULT. Every row is stored one way whatever it says; MariaDB shows the
    /// option written in SHOW CREATE TABLE, and a MyISAM/Aria/MEMORY table copies when it changes.
    pub row_format: String,
    /// Set for a sequence (CREATE SEQUENCE; MariaDB's table option SEQUENCE=1).
    pub sequence: Option<SequenceDef>,
    /// How the table's index keys encode character columns (`KEY_FORMAT_*`, see `keycodec`):
    /// `KEY_FORMAT_BYTES` for tables whose indexes were built before keys held collation sort
    /// keys, `KEY_FORMAT_COLLATED` and later for tables created or rebuilt since. Set
    /// by the engine.
    pub key_format: u8,
}

/// Index keys hold character values as their bytes, trailing spaces dropped, whatever the
/// collation; prefix lengths cut bytes (tables created before collation keys).
pub const KEY_FORMAT_BYTES: u8 = 0;
/// Index keys hold a character value as its collation's sort key ('a' and 'A' have one key
/// under utf8mb4_general_ci); prefix lengths cut characters. Written before the UCA collations
/// (`*_unicode_ci`, `*_unicode_520_ci`) had their own weights: their columns' keys are
/// utf8mb4_general_ci sort keys (see `keycodec::text_key`).
pub const KEY_FORMAT_COLLATED: u8 = 2;
/// As `KEY_FORMAT_COLLATED`, with UCA columns keyed by their UCA sort keys ('ß' and 'ss' have
/// one key under utf8mb4_unicode_ci). Written while latin1_general_ci weighed as
/// latin1_swedish_ci (its columns' keys are latin1_swedish_ci sort keys) and before DECIMAL
/// columns could be wider than 38 digits.
pub const KEY_FORMAT_UCA: u8 = 3;
/// As `KEY_FORMAT_UCA`, with two changes that came together: latin1_general_ci columns are
/// keyed by their own weights ('ä' after 'a', not equal to it), and DECIMAL columns of more
/// than 38 digits by their 256-bit mantissa (32 bytes) rather than an i128 (see `keycodec`).
pub const KEY_FORMAT_LATIN1_WIDE_DECIMAL: u8 = 4;
/// As `KEY_FORMAT_LATIN1_WIDE_DECIMAL`, with two more kinds of column keyed by sort keys: the
/// PAD SPACE UTF-8 `_bin` collations (earlier: the bytes without trailing spaces, which put
/// 'a\t' after 'a' where PAD SPACE puts it before), and UUID / INET4 / INET6 columns, keyed by
/// their binary form in MariaDB's order (earlier: their text, which put '10.0.0.10' before
/// '10.0.0.2').
pub const KEY_FORMAT_PAD_BIN_FIXED_BINARY: u8 = 5;
/// The format of tables created or rebuilt now.
pub const KEY_FORMAT_CURRENT: u8 = KEY_FORMAT_PAD_BIN_FIXED_BINARY;

/// A sequence's fixed options (CREATE / ALTER SEQUENCE). Its moving state is a
/// `SequenceState`, kept by the engine outside MVCC (values handed out are never taken back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SequenceDef {
    pub start: i64,
    pub min: i64,
    pub max: i64,
    pub increment: i64,
    pub cache: u64,
    pub cycle: bool,
}

/// Where a sequence stands: the first value not yet reserved (MariaDB's
/// next_not_cached_value; every value before it may have been handed out) and the number of
/// times it wrapped around (CYCLE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SequenceState {
    pub next_not_cached: i64,
    pub cycle_count: i64,
}

impl SequenceDef {
    /// The state of a sequence that never handed out a value.
    pub fn initial_state(&self) -> SequenceState {
        SequenceState { next_not_cached: self.start, cycle_count: 0 }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TableDef {
    pub id: TableId,
    pub db: String,
    pub name: String,
    pub columns: Vec<ColumnDef>,
    /// The clustered index. If the table has no declared primary key, `primary.columns` is
    /// empty and the engine keys rows by a hidden 8-byte row id.
    pub primary: IndexDef,
    pub secondary: Vec<IndexDef>,
    pub options: TableOptions,
    /// The row layouts of instant ALTERs (empty for a table never altered in place).
    pub row_versions: RowVersions,
    /// FOREIGN KEY and CHECK constraints (enforced by the SQL layer).
    pub constraints: TableConstraints,
}

/// Row layouts left by instant ALTER TABLE (docs/architecture.md §4.9, "Instant ALTER"), as
/// InnoDB's instant ADD/DROP COLUMN: rows written before an ALTER keep their bytes and are read
/// with the layout of the version they were written at. The current version is `old.len()`;
/// its rows are laid out as the table's `columns`. Empty for a table never altered in place,
/// whose rows carry no version at all.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RowVersions {
    /// The layouts of versions `0..old.len()`, oldest first.
    pub old: Vec<RowLayout>,
    /// Values of columns that rows of older versions do not hold (added by an instant ADD
    /// COLUMN, with the default it had then): (current column, value).
    pub added: Vec<(usize, Datum)>,
}

/// The stored fields of rows of one older version, in stored order.
#[derive(Clone, Debug, PartialEq)]
pub struct RowLayout {
    pub fields: Vec<RowField>,
}

/// One stored field of an older row version: its type then (how to decode it) and the current
/// column it is now (None: dropped since; the bytes are skipped).
#[derive(Clone, Debug, PartialEq)]
pub struct RowField {
    pub ty: ColumnType,
    pub column: Option<usize>,
}

impl RowVersions {
    pub fn is_empty(&self) -> bool {
        self.old.is_empty()
    }
}

/// What a foreign key does to the child rows when the parent row is deleted or its referenced
/// columns change (InnoDB's DICT_FOREIGN_ON_*). RESTRICT and NO ACTION behave alike in InnoDB
/// (the check is immediate) but are shown as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ForeignKeyAction {
    #[default]
    Restrict,
    NoAction,
    Cascade,
    SetNull,
}

/// `CONSTRAINT name FOREIGN KEY (columns) REFERENCES ref_db.ref_table (ref_columns)`. Columns are
/// kept by name: the parent may not exist (created with foreign_key_checks=0) and either table's
/// columns may move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForeignKeyDef {
    pub name: String,
    pub columns: Vec<String>,
    pub ref_db: String,
    pub ref_table: String,
    pub ref_columns: Vec<String>,
    /// None when the clause was not written (shown as nothing, behaves as RESTRICT).
    pub on_delete: Option<ForeignKeyAction>,
    pub on_update: Option<ForeignKeyAction>,
}

/// `CONSTRAINT name CHECK (expr)`; `column` is set for a column-level check (named after its
/// column). `expr` is the expression as MariaDB prints it (information_schema's CHECK_CLAUSE),
/// re-parsed when statements are bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckDef {
    pub name: String,
    pub column: Option<String>,
    pub expr: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TableConstraints {
    pub foreign_keys: Vec<ForeignKeyDef>,
    pub checks: Vec<CheckDef>,
}

impl TableConstraints {
    pub fn is_empty(&self) -> bool {
        self.foreign_keys.is_empty() && self.checks.is_empty()
    }
}

impl TableDef {
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name.eq_ignore_ascii_case(name))
    }
    pub fn has_hidden_pk(&self) -> bool {
        self.primary.columns.is_empty()
    }
    pub fn auto_increment_column(&self) -> Option<usize> {
        self.columns.iter().position(|c| c.auto_increment)
    }
    /// All indexes, primary first.
    pub fn indexes(&self) -> impl Iterator<Item = &IndexDef> {
        std::iter::once(&self.primary).chain(self.secondary.iter())
    }
    pub fn index_by_name(&self, name: &str) -> Option<&IndexDef> {
        self.indexes().find(|i| i.name.eq_ignore_ascii_case(name))
    }
}

/// A table definition as given by CREATE TABLE (ids and roots are assigned by the engine).
#[derive(Clone, Debug, PartialEq)]
pub struct NewTable {
    pub db: String,
    pub name: String,
    pub columns: Vec<ColumnDef>,
    /// Column list of the primary key; empty = hidden row id.
    pub primary_key: Vec<IndexColumn>,
    pub indexes: Vec<NewIndex>,
    pub options: TableOptions,
    /// AUTO_INCREMENT=n table option: the first value handed out.
    pub auto_increment_start: Option<u64>,
}

/// ALTER TABLE that copies the table (`Engine::rebuild_table`): the new definition, with the
/// columns of the rows the caller's mapping produces (ids and roots are assigned by the engine).
#[derive(Clone, Debug, PartialEq)]
pub struct TableRebuild {
    pub columns: Vec<ColumnDef>,
    /// Empty = hidden row id.
    pub primary_key: Vec<IndexColumn>,
    pub indexes: Vec<NewIndex>,
    pub options: TableOptions,
    /// The next AUTO_INCREMENT value afterwards (None: the counter is kept, raised past the
    /// largest value of the AUTO_INCREMENT column the rows hold).
    pub auto_increment: Option<u64>,
    /// Let the table's writers go on during the copy (MariaDB's LOCK=NONE; see
    /// `Engine::rebuild_table`). Only if the mapping keeps every row's primary key values and
    /// may run again on the rows writers change meanwhile.
    pub online: bool,
    /// The table's constraints afterwards (None: kept), when the change renames or drops
    /// columns they name: swapped in by the same commit.
    pub constraints: Option<TableConstraints>,
}

impl TableRebuild {
    /// The same table again (OPTIMIZE's recreate): its columns, keys and options.
    pub fn same_as(t: &TableDef) -> TableRebuild {
        TableRebuild {
            columns: t.columns.clone(),
            primary_key: t.primary.columns.clone(),
            indexes: t
                .secondary
                .iter()
                .map(|i| NewIndex { name: i.name.clone(), columns: i.columns.clone(), unique: i.unique })
                .collect(),
            options: t.options.clone(),
            auto_increment: None,
            online: false,
            constraints: None,
        }
    }
}

/// ALTER TABLE that changes only metadata (`Engine::alter_table_instant`): every row keeps its
/// bytes. `columns[j]` holds the values of old column `sources[j]`, or, if None, is a new column
/// whose value in the existing rows is `added[j]` (read from the row layouts, docs §4.9). Index
/// trees are kept: `primary_key` and each kept index (named by its old name, possibly renamed)
/// give their columns in the new numbering and must index the same values as before.
#[derive(Clone, Debug, PartialEq)]
pub struct InstantAlter {
    pub columns: Vec<ColumnDef>,
    pub sources: Vec<Option<usize>>,
    /// Per new column: the value existing rows get (used where `sources[j]` is None).
    pub added: Vec<Datum>,
    pub primary_key: Vec<IndexColumn>,
    /// Secondary indexes kept: (old name, new name, columns). Indexes not named are dropped.
    pub kept_indexes: Vec<(String, String, Vec<IndexColumn>)>,
    pub options: TableOptions,
    /// As for `TableRebuild::constraints`.
    pub constraints: Option<TableConstraints>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewIndex {
    pub name: String,
    pub columns: Vec<IndexColumn>,
    pub unique: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatabaseDef {
    pub name: String,
    pub charset: String,
    pub collation: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IsolationLevel {
    ReadUncommitted,
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockMode {
    Shared,
    Exclusive,
}

// ------------------------------------------------------------------------------------------
// The vocabulary of the engine's API: configuration switches, the catalog snapshot, and what
// reads and writes take and return. These live here, below every module, rather than in
// engine.rs, because the layers that implement the API (io, wal, keycodec, table, trx) speak
// them too, and engine.rs sits above all of those.

/// `--flush-at-commit`, equivalent to innodb_flush_log_at_trx_commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushMode {
    /// 0: the log is written and synced about once a second.
    Lazy = 0,
    /// 1: durable at commit (group commit shares each fsync).
    Durable = 1,
    /// 2: written to the OS at commit, synced about once a second.
    WriteOnly = 2,
}

/// Fault injection for crash tests: simulates what a power failure does to unsynced writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultInjection {
    /// Writes are kept in process memory until the file is synced; SIGKILL then loses them,
    /// exactly like a power failure loses the OS page cache.
    pub lose_unsynced_writes: bool,
    /// Some page writes are made durable only halfway before the sync (a torn write), so a crash
    /// between write and sync leaves a torn page on disk.
    pub torn_page_writes: bool,
}

/// An immutable snapshot of all schema objects. Replaced as a whole when a DDL commits, so a
/// statement sees one consistent catalog without taking any lock.
#[derive(Debug, Default)]
pub struct Catalog {
    /// Incremented by every DDL; prepared statements re-plan when it changed.
    pub version: u64,
    pub databases: BTreeMap<String, DatabaseDef>,
    /// Keyed by (database, table name); names are case-sensitive as on MariaDB/Linux.
    pub tables: HashMap<(String, String), Arc<TableDef>>,
}

impl Catalog {
    pub fn table(&self, db: &str, name: &str) -> Option<&Arc<TableDef>> {
        self.tables.get(&(db.to_string(), name.to_string()))
    }
    pub fn database(&self, name: &str) -> Option<&DatabaseDef> {
        self.databases.get(name)
    }
    /// Tables of one database, sorted by name.
    pub fn tables_in(&self, db: &str) -> Vec<&Arc<TableDef>> {
        let mut v: Vec<_> = self.tables.values().filter(|t| t.db == db).collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }
}

/// A range over a prefix of an index's columns. `Included(vec![5])` on an index (a, b) as a lower
/// bound means "a >= 5"; as an upper bound "a <= 5" (all b). NULL sorts first, as in MariaDB.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyRange {
    pub lower: Bound<Vec<Datum>>,
    pub upper: Bound<Vec<Datum>>,
}

impl KeyRange {
    pub fn all() -> KeyRange {
        KeyRange { lower: Bound::Unbounded, upper: Bound::Unbounded }
    }
    pub fn point(key: Vec<Datum>) -> KeyRange {
        KeyRange { lower: Bound::Included(key.clone()), upper: Bound::Included(key) }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadMode {
    /// MVCC snapshot read (plain SELECT).
    Consistent,
    /// The latest version of every record, including other transactions' uncommitted changes
    /// (UPDATE/DELETE/locking reads collect candidates this way, then `lock_row` each one and
    /// re-check the row it returns).
    Latest,
}

/// One row produced by a scan. `pk_key` identifies the row for `lock_row`, `update`, `delete`.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanRow {
    pub pk_key: Vec<u8>,
    pub row: Vec<Datum>,
}

/// What `insert` does when a unique key (primary or secondary) already holds the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnDuplicate {
    /// Fail with `StorageError::DuplicateKey` (1062).
    Error,
    /// Do not insert; return `InsertOutcome::Duplicate` (INSERT IGNORE, ON DUPLICATE KEY UPDATE).
    /// The conflicting row is X-locked so the caller may update it.
    Report,
    /// Delete every conflicting row, then insert (REPLACE).
    Replace,
}

#[derive(Clone, Debug, PartialEq)]
pub enum InsertOutcome {
    Inserted {
        pk_key: Vec<u8>,
    },
    /// `index` is 0 for the primary key, i+1 for `secondary[i]`.
    Duplicate {
        index: usize,
        pk_key: Vec<u8>,
        existing: Vec<Datum>,
    },
    /// REPLACE: inserted after deleting `deleted` conflicting rows.
    Replaced {
        pk_key: Vec<u8>,
        deleted: usize,
    },
}

#[derive(Clone, Copy, Debug)]
pub struct TrxOptions {
    pub isolation: IsolationLevel,
    pub read_only: bool,
    pub lock_wait_timeout: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_parse_and_format() {
        let d = Decimal::parse("-12.345").unwrap();
        assert_eq!(d, Decimal::new(-12345, 3));
        assert_eq!(d.to_string(), "-12.345");
        assert_eq!(Decimal::parse("0.05").unwrap().to_string(), "0.05");
        assert_eq!(Decimal::parse("1e3").unwrap().to_string(), "1000");
        assert_eq!(Decimal::parse("1.5e-2").unwrap().to_string(), "0.015");
        assert!(Decimal::parse("abc").is_none());
        assert!(Decimal::parse(".").is_none());
        assert_eq!(Decimal::parse("2.5").unwrap().rescale(0).unwrap().mantissa_i128(), Some(3));
        assert_eq!(Decimal::parse("-2.5").unwrap().rescale(0).unwrap().mantissa_i128(), Some(-3));
        assert_eq!(Decimal::parse("123.45").unwrap().int_digits(), 3);
        assert!(Decimal::parse("1.10").unwrap() == Decimal::parse("1.10").unwrap());
        assert_eq!(Decimal::parse("1.1").unwrap().cmp(&Decimal::parse("1.10").unwrap()), Ordering::Equal);
    }

    #[test]
    fn decimal_holds_65_digits() {
        let max = format!("{}.{}", "9".repeat(35), "9".repeat(30));
        let d = Decimal::parse(&max).unwrap();
        assert_eq!(d.to_string(), max);
        assert_eq!(d.mantissa_i128(), None);
        assert_eq!(d.int_digits(), 35);
        assert_eq!(Decimal::parse(&format!("-{max}")).unwrap().to_string(), format!("-{max}"));
        assert_eq!(Decimal::parse(&"9".repeat(76)).unwrap().to_string(), "9".repeat(76));
        assert!(Decimal::parse(&"9".repeat(77)).is_none());
        assert!(Decimal::parse(&format!("1{}", "0".repeat(76))).is_none());
        // Scaling up past 76 digits fails; scaling down rounds halves away from zero.
        assert!(d.rescale(38).is_some() && d.rescale(42).is_none());
        let r = Decimal::parse(&format!("-{}.5", "1".repeat(40))).unwrap().rescale(0).unwrap();
        assert_eq!(r.to_string(), format!("-{}2", "1".repeat(39)));
        assert_eq!(
            Decimal::parse("0.000000000000000000000000000000000000001").unwrap().to_string(),
            "0.00000000000000000000000000000000000000"
        );
        // Order across widths and scales.
        let big = Decimal::parse(&format!("{}.1", "1".repeat(64))).unwrap();
        assert!(Decimal::parse(&format!("{}.12", "1".repeat(75))).is_none(), "77 digits");
        let a = Decimal::parse(&"1".repeat(60)).unwrap();
        let b = Decimal::parse(&format!("{}.{}", "1".repeat(60), "0".repeat(5))).unwrap();
        assert_eq!(a.cmp(&b), Ordering::Equal);
        assert!(big > a && big.negated() < a.negated() && a.negated() < Decimal::new(0, 0));
        assert!(
            Decimal::parse(&format!("{}.{}", "1".repeat(30), "2".repeat(35))).unwrap()
                > Decimal::parse(&"1".repeat(30)).unwrap()
        );
        assert_eq!(Decimal::parse("1e64").unwrap().to_f64(), 1e64);
    }

    #[test]
    fn datetime_packing_orders_and_roundtrips() {
        let a = DateTime::new(Date::new(2024, 2, 29), 23, 59, 58, 999_999);
        let b = DateTime::new(Date::new(2024, 3, 1), 0, 0, 0, 0);
        assert!(a < b);
        assert_eq!(a.date(), Date::new(2024, 2, 29));
        assert_eq!((a.hour(), a.minute(), a.second(), a.micros()), (23, 59, 58, 999_999));
        assert_eq!(a.format(0), "2024-02-29 23:59:58");
        assert_eq!(a.format(3), "2024-02-29 23:59:58.999");
        assert_eq!(Date::new(0, 0, 0).to_string(), "0000-00-00");
    }
}
