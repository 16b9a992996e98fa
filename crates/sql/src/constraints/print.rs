//! CHECK expressions as MariaDB prints them (SHOW CREATE TABLE, information_schema's
//! CHECK_CLAUSE): back-quoted columns, lower-case operators and function names, parentheses
//! only where precedence needs them (`Item::print_parenthesised`), and the rewrites MariaDB's
//! parser makes (NOT pushed into comparisons, a one-element IN as `=`, UPPER as `ucase`). The
//! text is what the catalog stores and what statements re-parse, so it must parse back to the
//! same expression.

use sqlparser::ast::{self, BinaryOperator as B, Expr, UnaryOperator as U};

use crate::error;
use crate::error::SqlError;

// MariaDB's `enum precedence` (item.h), lowest first.
const OR: u8 = 1;
const XOR: u8 = 2;
const AND: u8 = 3;
const CMP: u8 = 5;
const BETWEEN: u8 = 6;
const BITOR: u8 = 7;
const BITAND: u8 = 8;
const SHIFT: u8 = 9;
const ADD: u8 = 10;
const MUL: u8 = 11;
const BITXOR: u8 = 12;
const NEG: u8 = 14;
const BANG: u8 = 15;
const COLLATE: u8 = 16;
const HIGHEST: u8 = 18;

/// Functions whose value is not a function of the row: MariaDB refuses them in CHECK (1901).
const NOT_ALLOWED: &[&str] = &[
    "now",
    "current_timestamp",
    "localtime",
    "localtimestamp",
    "sysdate",
    "curdate",
    "current_date",
    "curtime",
    "current_time",
    "utc_date",
    "utc_time",
    "utc_timestamp",
    "unix_timestamp",
    "rand",
    "uuid",
    "uuid_short",
    "connection_id",
    "database",
    "schema",
    "user",
    "current_user",
    "session_user",
    "system_user",
    "last_insert_id",
    "found_rows",
    "row_count",
    "sleep",
    "benchmark",
    "get_lock",
    "release_lock",
];

/// A printed expression and its precedence.
struct P {
    text: String,
    prec: u8,
}

impl P {
    fn new(text: String, prec: u8) -> P {
        P { text, prec }
    }
    /// The text, parenthesised when this binds more loosely than `parent` requires.
    fn within(&self, parent: u8) -> String {
        if self.prec < parent {
            format!("({})", self.text)
        } else {
            self.text.clone()
        }
    }
}

/// Prints `e` for the CHECK constraint `name` (named in error 1901).
pub(crate) fn check_text(e: &Expr, name: &str) -> Result<String, SqlError> {
    Ok(Printer { name, kind: Kind::Check }.expr(e)?.text)
}

/// Prints the expression of generated column `column` (MariaDB prints it with the same
/// `Item::print` as a CHECK); 1901 names the GENERATED ALWAYS AS clause, and also refuses
/// subqueries, user variables and aggregates.
pub(crate) fn generated_text(e: &Expr, column: &str) -> Result<String, SqlError> {
    Ok(Printer { name: column, kind: Kind::Generated }.expr(e)?.text)
}

/// Prints the DEFAULT (expr) of column `column` as SHOW CREATE TABLE shows it: a function call,
/// column or variable bare (`uuid()`, `concat('x',\`a\`)`), anything else in parentheses
/// (`(\`a\` * 2)`, `(case ... end)`, `(cast(...))`), as MariaDB's `print_default_clause`
/// does. Unlike a CHECK, the functions of the moment (NOW(), UUID(), RAND()) are allowed, and a
/// sequence is named with its database (`nextval(\`db\`.\`s\`)`); 1901 names the DEFAULT clause.
pub(crate) fn default_text(e: &Expr, column: &str, db: &str) -> Result<String, SqlError> {
    let p = Printer { name: column, kind: Kind::Default { db } }.expr(e)?;
    let bare = match unnest(e) {
        Expr::Function(f) => !matches!(f.name.to_string().to_ascii_lowercase().as_str(), "cast" | "convert"),
        Expr::Identifier(_)
        | Expr::CompoundIdentifier(_)
        | Expr::Value(_)
        | Expr::Prefixed { .. }
        | Expr::Substring { .. }
        | Expr::Trim { .. } => true,
        _ => false,
    };
    Ok(if bare { p.text } else { format!("({})", p.text) })
}

/// Aggregate functions: refused in a generated column's expression (1901).
const AGGREGATES: &[&str] = &[
    "sum",
    "count",
    "avg",
    "min",
    "max",
    "group_concat",
    "bit_and",
    "bit_or",
    "bit_xor",
    "std",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "variance",
    "var_pop",
    "var_samp",
    "json_arrayagg",
    "json_objectagg",
];

struct Printer<'a> {
    name: &'a str,
    kind: Kind<'a>,
}

/// Which clause an expression is printed for.
#[derive(Clone, Copy, PartialEq)]
enum Kind<'a> {
    Check,
    Generated,
    /// A column's DEFAULT; `db` is the table's database, which names sequences.
    Default {
        db: &'a str,
    },
}

/// Functions MariaDB refuses in a DEFAULT expression (1901), though their value is a function
/// of the moment like NOW()'s: they read the state of the statement or the session.
const NOT_ALLOWED_IN_DEFAULT: &[&str] =
    &["last_insert_id", "found_rows", "row_count", "sleep", "benchmark", "get_lock", "release_lock"];

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// A string literal as MariaDB's `append_unescaped` writes it.
fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for ch in s.chars() {
        match ch {
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\u{1a}' => out.push_str("\\Z"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

fn comparison(op: &B) -> Option<&'static str> {
    Some(match op {
        B::Eq => "=",
        B::NotEq => "<>",
        B::Lt => "<",
        B::LtEq => "<=",
        B::Gt => ">",
        B::GtEq => ">=",
        B::Spaceship => "<=>",
        _ => return None,
    })
}

/// The comparison that is true exactly when `op` is false (for non-NULL operands), as
/// MariaDB's `neg_transformer` rewrites `NOT (a < b)`.
fn negated_comparison(op: &B) -> Option<B> {
    Some(match op {
        B::Eq => B::NotEq,
        B::NotEq => B::Eq,
        B::Lt => B::GtEq,
        B::LtEq => B::Gt,
        B::Gt => B::LtEq,
        B::GtEq => B::Lt,
        _ => return None,
    })
}

fn unnest(e: &Expr) -> &Expr {
    match e {
        Expr::Nested(inner) => unnest(inner),
        other => other,
    }
}

fn is_column(e: &Expr) -> bool {
    matches!(unnest(e), Expr::Identifier(_) | Expr::CompoundIdentifier(_))
}

impl Printer<'_> {
    fn not_allowed(&self, what: &str) -> SqlError {
        let clause = match self.kind {
            Kind::Check => "CHECK",
            Kind::Generated => "GENERATED ALWAYS AS",
            Kind::Default { .. } => "DEFAULT",
        };
        SqlError::new(
            1901,
            "HY000",
            format!("Function or expression '{what}' cannot be used in the {clause} clause of `{}`", self.name),
        )
    }

    fn subquery(&self) -> SqlError {
        if self.kind != Kind::Check {
            return self.not_allowed("select ...");
        }
        SqlError::new(1970, "42000", "CHECK does not support subqueries or stored functions")
    }

    fn expr(&self, e: &Expr) -> Result<P, SqlError> {
        Ok(match e {
            Expr::Nested(inner) => self.expr(inner)?,
            Expr::Identifier(i) if self.kind != Kind::Check && i.quote_style.is_none() && i.value.starts_with('@') => {
                return Err(self.not_allowed(&i.value));
            }
            Expr::Identifier(i) => P::new(quote(&i.value), HIGHEST),
            Expr::CompoundIdentifier(parts) => {
                P::new(quote(&parts.last().map(|i| i.value.clone()).unwrap_or_default()), HIGHEST)
            }
            Expr::Value(v) => P::new(self.value(&v.value)?, HIGHEST),
            Expr::Prefixed { prefix, value } => P::new(format!("{}{}", prefix.value, self.expr(value)?.text), HIGHEST),
            Expr::BinaryOp { left, op, right } => self.binary(left, op, right)?,
            Expr::UnaryOp { op, expr } => match op {
                U::Not | U::BangNot => self.not(expr)?,
                U::Minus => {
                    // A negative number literal stays one literal.
                    if let Expr::Value(v) = unnest(expr) {
                        if let ast::Value::Number(n, _) = &v.value {
                            return Ok(P::new(format!("-{n}"), HIGHEST));
                        }
                    }
                    P::new(format!("-{}", self.expr(expr)?.within(NEG)), NEG)
                }
                U::Plus => self.expr(expr)?,
                U::BitwiseNot => P::new(format!("~{}", self.expr(expr)?.within(NEG)), NEG),
                other => return Err(error::not_supported(&format!("operator {other} in CHECK"))),
            },
            Expr::IsNull(x) => self.postfix(x, " is null")?,
            Expr::IsNotNull(x) => self.postfix(x, " is not null")?,
            Expr::IsTrue(x) => self.postfix(x, " is true")?,
            Expr::IsNotTrue(x) => self.postfix(x, " is not true")?,
            Expr::IsFalse(x) => self.postfix(x, " is false")?,
            Expr::IsNotFalse(x) => self.postfix(x, " is not false")?,
            Expr::IsUnknown(x) => self.postfix(x, " is null")?,
            Expr::IsNotUnknown(x) => self.postfix(x, " is not null")?,
            Expr::InList { expr, list, negated } => self.in_list(expr, list, *negated)?,
            Expr::Between { expr, negated, low, high } => {
                let word = if *negated { "not between" } else { "between" };
                P::new(
                    format!(
                        "{} {word} {} and {}",
                        self.expr(expr)?.within(BETWEEN),
                        self.expr(low)?.within(BETWEEN),
                        self.expr(high)?.within(BETWEEN + 1)
                    ),
                    BETWEEN,
                )
            }
            Expr::Like { negated, any: false, expr, pattern, escape_char } => {
                // MariaDB's Item_func_like::print writes NOT LIKE with two spaces.
                let word = if *negated { " not like" } else { "like" };
                let mut s = format!("{} {word} {}", self.expr(expr)?.within(CMP), self.expr(pattern)?.within(CMP + 1));
                if let Some(esc) = escape_char {
                    s.push_str(&format!(" escape {}", self.expr(esc)?.text));
                }
                P::new(s, CMP)
            }
            Expr::RLike { negated, expr, pattern, .. } => {
                let p = P::new(
                    format!("{} regexp {}", self.expr(expr)?.within(CMP), self.expr(pattern)?.within(CMP + 1)),
                    CMP,
                );
                if *negated {
                    P::new(format!("!({})", p.text), BANG)
                } else {
                    p
                }
            }
            Expr::Collate { expr, collation } => P::new(
                format!("{} collate {}", self.expr(expr)?.within(COLLATE), collation.to_string().to_ascii_lowercase()),
                COLLATE,
            ),
            Expr::Case { operand, conditions, else_result, .. } => {
                let mut s = String::from("case ");
                if let Some(op) = operand {
                    s.push_str(&self.expr(op)?.text);
                    s.push(' ');
                }
                for c in conditions {
                    s.push_str(&format!("when {} then {} ", self.expr(&c.condition)?.text, self.expr(&c.result)?.text));
                }
                if let Some(e) = else_result {
                    s.push_str(&format!("else {} ", self.expr(e)?.text));
                }
                s.push_str("end");
                P::new(s, HIGHEST)
            }
            Expr::Function(f) => self.function(f)?,
            // MariaDB prints SUBSTRING(a, 2) / SUBSTRING(a FROM 2) as substr(`a`,2).
            Expr::Substring { expr, substring_from, substring_for, .. } => {
                let mut args = vec![self.expr(expr)?.text];
                args.push(match substring_from {
                    Some(f) => self.expr(f)?.text,
                    None => "1".to_string(),
                });
                if let Some(n) = substring_for {
                    args.push(self.expr(n)?.text);
                }
                P::new(format!("substr({})", args.join(",")), HIGHEST)
            }
            Expr::Trim { trim_where: None, trim_what: None, expr, trim_characters: None } => {
                P::new(format!("trim({})", self.expr(expr)?.text), HIGHEST)
            }
            Expr::Cast { kind: ast::CastKind::Cast, expr, data_type, format: None } => self.cast(expr, data_type)?,
            Expr::Convert { is_try: false, expr, data_type: Some(data_type), charset: None, .. } => {
                self.cast(expr, data_type)?
            }
            Expr::Subquery(_) | Expr::InSubquery { .. } | Expr::Exists { .. } => return Err(self.subquery()),
            // `x + INTERVAL 1 DAY`: MariaDB's Item_date_add_interval prints the interval so.
            Expr::Interval(ast::Interval {
                value,
                leading_field: Some(unit),
                leading_precision: None,
                last_field: None,
                fractional_seconds_precision: None,
            }) => P::new(
                format!("interval {} {}", self.expr(value)?.text, unit.to_string().to_ascii_lowercase()),
                HIGHEST,
            ),
            other => return Err(error::not_supported(&format!("expression {other} in a CHECK constraint"))),
        })
    }

    /// CAST(x AS type) and CONVERT(x, type) as MariaDB's Item_func_*_typecast::print writes
    /// them: `cast(`a` as signed)`, `cast(`a` as char(3) charset utf8mb4)`, BINARY as
    /// `char charset binary`. MariaDB names the connection's character set for CHAR; the printer
    /// has no session, so it names utf8mb4, the character set of every client that sends
    /// utf8mb4 (Django, the drivers' defaults; the `mariadb` CLI's utf8mb3 default would differ).
    fn cast(&self, expr: &Expr, data_type: &ast::DataType) -> Result<P, SqlError> {
        use crate::value::CastTarget as T;
        let length = |len: Option<u32>| len.map(|n| format!("({n})")).unwrap_or_default();
        let fsp = |fsp: u8| if fsp > 0 { format!("({fsp})") } else { String::new() };
        let target = match crate::bind::types::cast_target(data_type)? {
            T::Signed => "signed".to_string(),
            T::Unsigned => "unsigned".to_string(),
            T::Decimal { precision, scale } => format!("decimal({precision},{scale})"),
            T::Double => "double".to_string(),
            T::Float => "float".to_string(),
            T::Char { len } => format!("char{} charset utf8mb4", length(len)),
            T::Binary { len } => format!("char{} charset binary", length(len)),
            T::Date => "date".to_string(),
            T::DateTime { fsp: f } => format!("datetime{}", fsp(f)),
            T::Time { fsp: f } => format!("time{}", fsp(f)),
            T::FixedBinary(kind) => kind.name().to_string(),
            T::TimeMicros | T::TimeNumber { .. } => return Err(error::internal("a binder-only cast target from SQL")),
        };
        Ok(P::new(format!("cast({} as {target})", self.expr(expr)?.text), HIGHEST))
    }

    fn value(&self, v: &ast::Value) -> Result<String, SqlError> {
        Ok(match v {
            ast::Value::Number(n, _) => n.clone(),
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => string_literal(s),
            ast::Value::Boolean(b) => (if *b { "1" } else { "0" }).to_string(),
            ast::Value::Null => "NULL".to_string(),
            // MariaDB prints hex and bit literals as the bytes they are: 0x0 as 0x00, b'1' as 0x01.
            ast::Value::HexStringLiteral(h) if h.len() % 2 == 1 => format!("0x0{h}"),
            ast::Value::HexStringLiteral(h) => format!("0x{h}"),
            ast::Value::SingleQuotedByteStringLiteral(b) | ast::Value::DoubleQuotedByteStringLiteral(b) => {
                let bytes = crate::bind::decode_bits(b).ok_or_else(|| error::syntax(&format!("b'{b}'"), 1))?;
                bytes.iter().fold(String::from("0x"), |mut s, byte| {
                    s.push_str(&format!("{byte:02x}"));
                    s
                })
            }
            ast::Value::Placeholder(_) => return Err(error::syntax("?", 1)),
            other => other.to_string(),
        })
    }

    fn postfix(&self, x: &Expr, word: &str) -> Result<P, SqlError> {
        Ok(P::new(format!("{}{word}", self.expr(x)?.within(CMP)), CMP))
    }

    fn op(&self, left: &Expr, word: &str, right: &Expr, prec: u8) -> Result<P, SqlError> {
        Ok(P::new(format!("{} {word} {}", self.expr(left)?.within(prec), self.expr(right)?.within(prec + 1)), prec))
    }

    /// An AND / OR operand: MariaDB tests a bare column as `col <> 0`.
    fn condition(&self, e: &Expr) -> Result<P, SqlError> {
        if is_column(e) {
            return Ok(P::new(format!("{} <> 0", self.expr(e)?.text), CMP));
        }
        self.expr(e)
    }

    fn logical(&self, left: &Expr, word: &str, right: &Expr, prec: u8) -> Result<P, SqlError> {
        // Item_cond flattens nested conditions of its own kind and prints every argument at
        // its own precedence.
        Ok(P::new(
            format!("{} {word} {}", self.condition(left)?.within(prec), self.condition(right)?.within(prec)),
            prec,
        ))
    }

    fn binary(&self, left: &Expr, op: &B, right: &Expr) -> Result<P, SqlError> {
        if let Some(word) = comparison(op) {
            return self.op(left, word, right, CMP);
        }
        match op {
            B::And => self.logical(left, "and", right, AND),
            B::Or | B::StringConcat => self.logical(left, "or", right, OR),
            B::Xor => self.logical(left, "xor", right, XOR),
            B::Plus => self.op(left, "+", right, ADD),
            B::Minus => self.op(left, "-", right, ADD),
            B::Multiply => self.op(left, "*", right, MUL),
            B::Divide => self.op(left, "/", right, MUL),
            B::Modulo => self.op(left, "MOD", right, MUL),
            B::MyIntegerDivide | B::DuckIntegerDivide => self.op(left, "DIV", right, MUL),
            B::BitwiseOr => self.op(left, "|", right, BITOR),
            B::BitwiseAnd => self.op(left, "&", right, BITAND),
            B::BitwiseXor | B::PGBitwiseXor => self.op(left, "^", right, BITXOR),
            B::PGBitwiseShiftLeft => self.op(left, "<<", right, SHIFT),
            B::PGBitwiseShiftRight => self.op(left, ">>", right, SHIFT),
            B::Regexp => self.op(left, "regexp", right, CMP),
            other => Err(error::not_supported(&format!("operator {other} in a CHECK constraint"))),
        }
    }

    /// NOT e, with the rewrites of MariaDB's `negate_expression`.
    fn not(&self, e: &Expr) -> Result<P, SqlError> {
        match unnest(e) {
            Expr::BinaryOp { left, op, right } => {
                if let Some(neg) = negated_comparison(op) {
                    return self.binary(left, &neg, right);
                }
                match op {
                    B::And => return self.de_morgan(left, right, "or", OR),
                    B::Or | B::StringConcat => return self.de_morgan(left, right, "and", AND),
                    _ => {}
                }
            }
            Expr::UnaryOp { op: U::Not | U::BangNot, expr } => return self.expr(expr),
            Expr::IsNull(x) => return self.postfix(x, " is not null"),
            Expr::IsNotNull(x) => return self.postfix(x, " is null"),
            Expr::IsTrue(x) => return self.postfix(x, " is not true"),
            Expr::IsNotTrue(x) => return self.postfix(x, " is true"),
            Expr::IsFalse(x) => return self.postfix(x, " is not false"),
            Expr::IsNotFalse(x) => return self.postfix(x, " is false"),
            Expr::InList { expr, list, negated } => return self.in_list(expr, list, !negated),
            Expr::Between { expr, negated, low, high } => {
                let flipped =
                    Expr::Between { expr: expr.clone(), negated: !negated, low: low.clone(), high: high.clone() };
                return self.expr(&flipped);
            }
            Expr::Like { negated, any: false, expr, pattern, escape_char } => {
                let flipped = Expr::Like {
                    negated: !negated,
                    any: false,
                    expr: expr.clone(),
                    pattern: pattern.clone(),
                    escape_char: escape_char.clone(),
                };
                return self.expr(&flipped);
            }
            x if is_column(x) => return Ok(P::new(format!("{} = 0", self.expr(x)?.text), CMP)),
            _ => {}
        }
        // Always in parentheses, so that the stored text can be read back (`sqlparser_text`).
        Ok(P::new(format!("!({})", self.expr(e)?.text), BANG))
    }

    fn de_morgan(&self, left: &Expr, right: &Expr, word: &str, prec: u8) -> Result<P, SqlError> {
        Ok(P::new(format!("{} {word} {}", self.not(left)?.within(prec), self.not(right)?.within(prec)), prec))
    }

    fn in_list(&self, expr: &Expr, list: &[Expr], negated: bool) -> Result<P, SqlError> {
        if list.len() == 1 {
            // MariaDB's parser turns `a IN (x)` into `a = x`.
            let op = if negated { B::NotEq } else { B::Eq };
            return self.binary(expr, &op, &list[0]);
        }
        let items: Vec<String> = list.iter().map(|x| self.expr(x).map(|p| p.text)).collect::<Result<_, _>>()?;
        let word = if negated { "not in" } else { "in" };
        Ok(P::new(format!("{} {word} ({})", self.expr(expr)?.within(CMP), items.join(",")), CMP))
    }

    /// The functions a DEFAULT prints differently from a CHECK: NOW() and its synonyms as
    /// `current_timestamp(n)`, CURRENT_DATE as `curdate()`, and NEXTVAL / LASTVAL with the
    /// sequence's database. None for the others.
    fn default_function(&self, f: &ast::Function, name: &str, db: &str) -> Result<Option<P>, SqlError> {
        let printed = match name {
            "now" | "current_timestamp" | "localtime" | "localtimestamp" => "current_timestamp",
            "current_date" => "curdate",
            "current_time" => "curtime",
            "nextval" | "lastval" => {
                let ast::FunctionArguments::List(l) = &f.args else { return Ok(None) };
                let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(arg))] = l.args.as_slice() else {
                    return Ok(None);
                };
                let parts: Vec<&str> = match arg {
                    Expr::Identifier(i) => vec![db, &i.value],
                    Expr::CompoundIdentifier(ids) if ids.len() == 2 => ids.iter().map(|i| i.value.as_str()).collect(),
                    _ => return Err(error::syntax(&arg.to_string(), 1)),
                };
                return Ok(Some(P::new(format!("{name}({}.{})", quote(parts[0]), quote(parts[1])), HIGHEST)));
            }
            _ => return Ok(None),
        };
        let args = match &f.args {
            ast::FunctionArguments::List(l) => l.args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(","),
            _ => String::new(),
        };
        Ok(Some(P::new(format!("{printed}({args})"), HIGHEST)))
    }

    fn function(&self, f: &ast::Function) -> Result<P, SqlError> {
        let name = f.name.to_string().to_ascii_lowercase();
        if let Kind::Default { db } = self.kind {
            if NOT_ALLOWED_IN_DEFAULT.contains(&name.as_str()) || AGGREGATES.contains(&name.as_str()) {
                return Err(self.not_allowed(&format!("{name}()")));
            }
            if let Some(p) = self.default_function(f, &name, db)? {
                return Ok(p);
            }
        } else if NOT_ALLOWED.contains(&name.as_str()) {
            // MariaDB names the function as it prints it.
            let shown = match name.as_str() {
                "now" | "localtime" | "localtimestamp" => "current_timestamp",
                "current_date" => "curdate",
                "current_time" => "curtime",
                other => other,
            };
            return Err(self.not_allowed(&format!("{shown}()")));
        }
        if self.kind == Kind::Generated && AGGREGATES.contains(&name.as_str()) {
            return Err(self.not_allowed(&format!("{name}()")));
        }
        let printed = match name.as_str() {
            "upper" => "ucase",
            "lower" => "lcase",
            "length" => "octet_length",
            "character_length" => "char_length",
            "substring" | "mid" => "substr",
            other => other,
        };
        let args = match &f.args {
            ast::FunctionArguments::None => Vec::new(),
            ast::FunctionArguments::List(l) => {
                if l.duplicate_treatment.is_some() || !l.clauses.is_empty() {
                    return Err(error::not_supported(&format!("{f} in a CHECK constraint")));
                }
                let mut out = Vec::with_capacity(l.args.len());
                for a in &l.args {
                    match a {
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => out.push(self.expr(e)?.text),
                        _ => return Err(error::not_supported(&format!("{f} in a CHECK constraint"))),
                    }
                }
                out
            }
            ast::FunctionArguments::Subquery(_) => return Err(self.subquery()),
        };
        Ok(P::new(format!("{printed}({})", args.join(",")), HIGHEST))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::MySqlDialect;
    use sqlparser::parser::Parser;

    fn printed(sql: &str) -> String {
        let e = crate::constraints::enforce::parse_expr(sql).unwrap();
        check_text(&e, "c").unwrap()
    }

    /// Each case was printed by MariaDB 10.11 (information_schema.CHECK_CONSTRAINTS).
    #[test]
    fn prints_as_mariadb() {
        let cases = [
            ("a > 0 and b < 5 or a is null", "`a` > 0 and `b` < 5 or `a` is null"),
            ("a in (1,2,3)", "`a` in (1,2,3)"),
            ("a between 1 and 10", "`a` between 1 and 10"),
            ("c like 'x%'", "`c` like 'x%'"),
            ("char_length(c) > 2", "char_length(`c`) > 2"),
            ("not (a = 1)", "`a` <> 1"),
            ("a + b * 2 > (a - b) * 3", "`a` + `b` * 2 > (`a` - `b`) * 3"),
            ("c <> 'it''s'", "`c` <> 'it\\'s'"),
            ("b is not null", "`b` is not null"),
            ("a = -1 or a != 2", "`a` = -1 or `a` <> 2"),
            ("upper(c) = c", "ucase(`c`) = `c`"),
            ("a % 2 = 0 and a div 2 < 3", "`a` MOD 2 = 0 and `a` DIV 2 < 3"),
            ("coalesce(a,0) >= 0", "coalesce(`a`,0) >= 0"),
            ("case when a > 1 then b else 0 end >= 0", "case when `a` > 1 then `b` else 0 end >= 0"),
            ("a not in (5)", "`a` <> 5"),
            ("c not like 'z'", "`c`  not like 'z'"),
            ("1.5 < a", "1.5 < `a`"),
            ("a & 1 = 0", "`a` & 1 = 0"),
            ("true", "1"),
            ("a <=> b", "`a` <=> `b`"),
            ("-a < 0", "-`a` < 0"),
            ("not (a > 1 and b > 1)", "`a` <= 1 or `b` <= 1"),
            ("not a", "`a` = 0"),
            ("(a > 0 or b > 0) and c = 'x'", "(`a` > 0 or `b` > 0) and `c` = 'x'"),
            ("a not in (5,6)", "`a` not in (5,6)"),
            ("a not between 1 and 2", "`a` not between 1 and 2"),
            ("a is not true", "`a` is not true"),
            ("concat(c, 'x') <> 'y'", "concat(`c`,'x') <> 'y'"),
            ("a = 1.50", "`a` = 1.50"),
            ("length(c) < 5", "octet_length(`c`) < 5"),
            ("a - (b - 1) > 0", "`a` - (`b` - 1) > 0"),
            ("a - b - 1 > 0", "`a` - `b` - 1 > 0"),
            ("substring(c, 2) <> ''", "substr(`c`,2) <> ''"),
            ("trim(c) = c", "trim(`c`) = `c`"),
            ("if(a > 0, 1, 0) = 1", "if(`a` > 0,1,0) = 1"),
            ("- (a + 1) < 0", "-(`a` + 1) < 0"),
            ("not (a and b)", "`a` = 0 or `b` = 0"),
            ("not (a > 0 and b)", "`a` <= 0 or `b` = 0"),
            ("not (a + 1)", "!(`a` + 1)"),
            ("a + 0", "`a` + 0"),
            ("a or b", "`a` <> 0 or `b` <> 0"),
        ];
        for (input, want) in cases {
            assert_eq!(printed(input), want, "{input}");
            // The stored text parses back to itself.
            assert_eq!(printed(want), want, "{want}");
        }
    }

    #[test]
    fn refuses_what_mariadb_refuses() {
        let e = Parser::new(&MySqlDialect {}).try_with_sql("now() > 0").unwrap().parse_expr().unwrap();
        let err = check_text(&e, "CONSTRAINT_1").unwrap_err();
        assert_eq!(err.code, 1901);
        assert_eq!(
            err.message,
            "Function or expression 'current_timestamp()' cannot be used in the CHECK clause of `CONSTRAINT_1`"
        );
    }
}
