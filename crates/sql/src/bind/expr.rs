//! Binding of scalar expressions: names, literals, operators, functions, aggregates and
//! subqueries. CAST/CONVERT, INTERVAL arithmetic, LAST_INSERT_ID(expr), CASE and the lazily
//! evaluated IF/IFNULL/NULLIF/COALESCE are handled here; every other function comes from
//! `value::lookup_function`.

use std::sync::Arc;

use selkie_storage::{ColumnDefault, Decimal};
use sqlparser::ast;

use super::binder::{Binder, Bound, SourceKind};
use super::fixed_binary_operands;
use super::row_in_keys::with_column_in_lists;
use super::types;
use crate::error;
use crate::error::SqlError;
use crate::plan::AggSpec;
use crate::plan::{BitOp, CmpOp, CompiledLike, Expr, FuncRef, Subquery, SubqueryKind};
use crate::types::Value;
use crate::user_variables::{Assigned, UserVariable, STRING_VARIABLE_AS_NUMBER};
use crate::value::functions::json as json_fn;
use crate::value::functions::regexp as regexp_fn;
use crate::value::{self, AggFunc, ArithOp, CastTarget, IntervalUnit, LikePattern, SqlType};
use crate::variables::VarScope;

/// The static type of a comparison or logical result.
pub fn bool_type() -> SqlType {
    SqlType::Int { bits: 32, unsigned: false }
}

/// MySQL's default LIKE escape character.
const DEFAULT_LIKE_ESCAPE: u8 = b'\\';

/// GROUP_CONCAT's default separator.
const DEFAULT_GROUP_CONCAT_SEPARATOR: &[u8] = b",";

fn parse_number(s: &str) -> Value {
    let has_exp = s.contains(['e', 'E']);
    if !has_exp && !s.contains('.') {
        if let Ok(i) = s.parse::<i64>() {
            return Value::Int(i);
        }
        if let Ok(u) = s.parse::<u64>() {
            return Value::UInt(u);
        }
    }
    if !has_exp {
        if let Some(d) = Decimal::parse(s) {
            return Value::Decimal(d);
        }
    }
    Value::Double(s.parse::<f64>().unwrap_or(0.0))
}

fn decode_hex(h: &str) -> Option<Vec<u8>> {
    let padded = if h.len() % 2 == 1 { format!("0{h}") } else { h.to_string() };
    (0..padded.len()).step_by(2).map(|i| u8::from_str_radix(&padded[i..i + 2], 16).ok()).collect()
}

/// `b'0101'`: the bits as a big-endian byte string.
pub(crate) fn decode_bits(b: &str) -> Option<Vec<u8>> {
    if !b.bytes().all(|c| c == b'0' || c == b'1') {
        return None;
    }
    let nbytes = b.len().div_ceil(8).max(1);
    let mut out = vec![0u8; nbytes];
    for (i, c) in b.bytes().rev().enumerate() {
        if c == b'1' {
            out[nbytes - 1 - i / 8] |= 1 << (i % 8);
        }
    }
    Some(out)
}

/// `0x41` / `b'101'` / `0b101` as an arithmetic operand: MariaDB's hybrid is the number its
/// bytes spell, big-endian (`b'101' + 0` is 5, `0x41 + 0` 65); up to 8 bytes. `x'41'` is a
/// string there (0 with 1292), like any other binary string.
fn hex_number_of(e: &ast::Expr, text: &super::names::SourceText<'_>) -> Option<Bound> {
    let ast::Expr::Value(v) = strip_nested(e) else {
        return None;
    };
    let bytes = match &v.value {
        ast::Value::HexStringLiteral(h) if text.starts_with_at(v.span.start, "0x") => decode_hex(h)?,
        ast::Value::SingleQuotedByteStringLiteral(b) | ast::Value::DoubleQuotedByteStringLiteral(b) => decode_bits(b)?,
        _ => return None,
    };
    if bytes.len() > 8 {
        return None;
    }
    let n = bytes.iter().fold(0u64, |acc, &c| (acc << 8) | u64::from(c));
    Some(Bound::new(Expr::Literal(Value::UInt(n)), SqlType::Int { bits: 64, unsigned: true }, false))
}

/// A binary string literal (`b'101'`, `x'05'`) compared with a BIT column is the number its
/// bytes spell, big-endian, as MariaDB compares a BIT as an integer.
fn bits_against(other: &SqlType, b: Bound) -> Bound {
    match (other, &b.expr, &b.ty) {
        (SqlType::Bit { .. }, Expr::Literal(Value::Bytes(bytes)), SqlType::Bytes { .. }) if bytes.len() <= 8 => {
            let n = bytes.iter().fold(0u64, |acc, &c| (acc << 8) | u64::from(c));
            Bound::new(Expr::Literal(Value::UInt(n)), SqlType::Int { bits: 64, unsigned: true }, false)
        }
        _ => b,
    }
}

fn cmp_op(op: &ast::BinaryOperator) -> Option<CmpOp> {
    use ast::BinaryOperator as B;
    Some(match op {
        B::Eq => CmpOp::Eq,
        B::NotEq => CmpOp::Ne,
        B::Lt => CmpOp::Lt,
        B::LtEq => CmpOp::Le,
        B::Gt => CmpOp::Gt,
        B::GtEq => CmpOp::Ge,
        B::Spaceship => CmpOp::NullSafeEq,
        _ => return None,
    })
}

impl Binder<'_> {
    pub fn bind_expr(&mut self, e: &ast::Expr) -> Result<Bound, SqlError> {
        use ast::Expr as E;
        match e {
            E::Identifier(id) => self.bind_identifier(id),
            E::CompoundIdentifier(parts) => self.bind_compound(parts),
            E::Value(v) => self.bind_value(v),
            E::Nested(inner) => self.bind_expr(inner),
            E::Prefixed { prefix, value } if prefix.value.starts_with('_') => self.bind_introduced(prefix, value),
            E::Prefixed { value, .. } => self.bind_expr(value),
            E::Collate { expr, collation } => self.bind_collate(expr, collation),
            E::UnaryOp { op, expr } => self.bind_unary(op, expr),
            E::BinaryOp { left, op, right } => self.bind_binary(left, op, right),
            E::IsNull(x) => self.bind_is_null(x, false),
            E::IsNotNull(x) => self.bind_is_null(x, true),
            E::IsUnknown(x) => self.bind_is_null(x, false),
            E::IsNotUnknown(x) => self.bind_is_null(x, true),
            E::IsTrue(x) => self.bind_is_bool(x, true, false),
            E::IsNotTrue(x) => self.bind_is_bool(x, true, true),
            E::IsFalse(x) => self.bind_is_bool(x, false, false),
            E::IsNotFalse(x) => self.bind_is_bool(x, false, true),
            E::IsNotDistinctFrom(a, b) => self.bind_comparison(CmpOp::NullSafeEq, a, b),
            E::IsDistinctFrom(a, b) => {
                let eq = self.bind_comparison(CmpOp::NullSafeEq, a, b)?;
                Ok(Bound::new(Expr::Not(eq.expr.boxed()), bool_type(), false))
            }
            E::InList { expr, list, negated } => self.bind_in_list(expr, list, *negated),
            E::InSubquery { expr, subquery, negated } => {
                if matches!(**expr, E::Tuple(_)) {
                    return Err(error::not_supported("row value IN (subquery)"));
                }
                let left = self.bind_expr(expr)?;
                self.bind_in_subquery(subquery, left, *negated)
            }
            E::Between { expr, negated, low, high } => {
                let x = self.bind_expr(expr)?;
                let lo = self.bind_expr(low)?;
                let hi = self.bind_expr(high)?;
                let nullable = x.nullable || lo.nullable || hi.nullable;
                // A TIME compares as a time (see bind_comparison).
                let all = [&x, &lo, &hi];
                fixed_binary_operands::check_operands_meet(&all, "between")?;
                let (x, lo, hi) = if all.iter().any(|b| matches!(b.ty, SqlType::Time { .. })) {
                    let m = |b| time_operand(b, CastTarget::TimeMicros);
                    (m(x), m(lo), m(hi))
                } else if all.iter().any(|b| b.ty.is_numeric()) && !all.iter().any(|b| b.ty.is_temporal()) {
                    // A number among the three makes MariaDB compare all of them as numbers
                    // (its comparison type aggregates over the three, left to right: a string
                    // with an integer is DECIMAL, a string with a DECIMAL or DOUBLE is DOUBLE):
                    // '1abc' BETWEEN 1 AND '1.5e1' is 1 <= 1 <= 15, not a string comparison with
                    // '1.5e1'. An ENUM is its index there.
                    let target = between_number_type(&all);
                    let mut m = |b: Bound| -> Result<Bound, SqlError> {
                        let b = self.enum_index(b)?;
                        Ok(match b.ty {
                            SqlType::Text { .. } | SqlType::Bytes { .. } => Bound::new(
                                Expr::Cast { expr: b.expr.boxed(), target },
                                value::cast_type(target),
                                b.nullable,
                            ),
                            _ => b,
                        })
                    };
                    (m(x)?, m(lo)?, m(hi)?)
                } else {
                    (x, lo, hi)
                };
                let mut operands = self.collated_operands(vec![x, lo, hi], "between")?.into_iter();
                let (Some(x), Some(lo), Some(hi)) = (operands.next(), operands.next(), operands.next()) else {
                    unreachable!("three operands")
                };
                Ok(Bound::new(
                    Expr::Between { expr: x.boxed(), low: lo.boxed(), high: hi.boxed(), negated: *negated },
                    bool_type(),
                    nullable,
                ))
            }
            E::Like { negated, any: false, expr, pattern, escape_char } => {
                self.bind_like(expr, pattern, escape_char.as_deref(), *negated)
            }
            E::RLike { negated, expr, pattern, .. } => {
                let call = self.bind_named_function("REGEXP", &[(**expr).clone(), (**pattern).clone()])?;
                Ok(if *negated { Bound::new(Expr::Not(call.expr.boxed()), bool_type(), call.nullable) } else { call })
            }
            E::Case { operand, conditions, else_result, .. } => {
                self.bind_case(operand.as_deref(), conditions, else_result.as_deref())
            }
            E::Cast { kind: ast::CastKind::Cast, expr, data_type, format: None } => {
                if let Some((target, cs)) = types::cast_to_charset(data_type)? {
                    return self.bind_cast_to_charset(expr, target, &cs);
                }
                let target = types::cast_target(data_type)
                    // Named only when it fails: MariaDB's 1425/1426 name the expression.
                    .or_else(|_| types::cast_target_of(data_type, &super::names::item_name(expr, None)))?;
                self.bind_cast(expr, target)
            }
            E::Convert { expr, data_type, charset, .. } => match (data_type, charset) {
                (Some(dt), _) if types::cast_to_charset(dt)?.is_some() => {
                    let (target, cs) = types::cast_to_charset(dt)?.expect("checked");
                    self.bind_cast_to_charset(expr, target, &cs)
                }
                (Some(dt), Some(cs)) => {
                    let target = types::cast_target(dt)?;
                    self.bind_cast_to_charset(expr, target, &cs.to_string())
                }
                (Some(dt), None) => {
                    let target = types::cast_target(dt)
                        .or_else(|_| types::cast_target_of(dt, &super::names::item_name(expr, None)))?;
                    self.bind_cast(expr, target)
                }
                (None, Some(cs)) => self.bind_convert_using(expr, &cs.to_string()),
                (None, None) => self.bind_cast(expr, CastTarget::Char { len: None }),
            },
            E::TypedString(ts) => {
                let target = types::cast_target(&ts.data_type)?;
                let v = self.bind_value(&ts.value)?;
                Ok(Bound::new(Expr::Cast { expr: v.expr.boxed(), target }, value::cast_type(target), true))
            }
            E::Extract { field, expr, .. } => {
                let name = match field {
                    ast::DateTimeField::Year | ast::DateTimeField::Years => "YEAR",
                    ast::DateTimeField::Month | ast::DateTimeField::Months => "MONTH",
                    ast::DateTimeField::Day | ast::DateTimeField::Days => "DAY",
                    ast::DateTimeField::Hour | ast::DateTimeField::Hours => "HOUR",
                    ast::DateTimeField::Minute | ast::DateTimeField::Minutes => "MINUTE",
                    ast::DateTimeField::Second | ast::DateTimeField::Seconds => "SECOND",
                    ast::DateTimeField::Microsecond | ast::DateTimeField::Microseconds => "MICROSECOND",
                    ast::DateTimeField::Quarter => "QUARTER",
                    ast::DateTimeField::Week(_) | ast::DateTimeField::Weeks => "WEEK",
                    // Compound units (DAY_HOUR, ...) arrive as a call of EXTRACT with the unit's
                    // name first (see `parse::lexer`).
                    other => return Err(error::not_supported(&format!("EXTRACT({other} FROM ...)"))),
                };
                // EXTRACT splits a TIME's hours into days and keeps its sign; HOUR() does neither.
                if matches!(name, "DAY" | "HOUR" | "MINUTE" | "SECOND" | "MICROSECOND") {
                    let unit = ast::Expr::Value(ast::Value::SingleQuotedString(name.to_string()).into());
                    return self.bind_named_function("EXTRACT", &[unit, (**expr).clone()]);
                }
                self.bind_named_function(name, &[(**expr).clone()])
            }
            E::Ceil { expr, field } | E::Floor { expr, field } => {
                let name = if matches!(e, E::Ceil { .. }) { "CEIL" } else { "FLOOR" };
                match field {
                    ast::CeilFloorKind::DateTimeField(ast::DateTimeField::NoDateTime) => {
                        self.bind_named_function(name, &[(**expr).clone()])
                    }
                    _ => Err(error::syntax(&e.to_string(), 1)),
                }
            }
            E::Position { expr, r#in } => self.bind_named_function("LOCATE", &[(**expr).clone(), (**r#in).clone()]),
            E::Substring { expr, substring_from, substring_for, .. } => {
                let mut args = vec![(**expr).clone()];
                args.extend(substring_from.iter().map(|e| (**e).clone()));
                args.extend(substring_for.iter().map(|e| (**e).clone()));
                self.bind_named_function("SUBSTRING", &args)
            }
            E::Trim { trim_where, trim_what, expr, trim_characters: None } => {
                let name = match trim_where {
                    None | Some(ast::TrimWhereField::Both) => "TRIM",
                    Some(ast::TrimWhereField::Leading) => "LTRIM",
                    Some(ast::TrimWhereField::Trailing) => "RTRIM",
                };
                match trim_what {
                    None => self.bind_named_function(name, &[(**expr).clone()]),
                    Some(what) => {
                        let fname = match trim_where {
                            None | Some(ast::TrimWhereField::Both) => "TRIM_BOTH",
                            Some(ast::TrimWhereField::Leading) => "TRIM_LEADING",
                            Some(ast::TrimWhereField::Trailing) => "TRIM_TRAILING",
                        };
                        self.bind_named_function(fname, &[(**expr).clone(), (**what).clone()])
                    }
                }
            }
            E::Function(f) => self.bind_function(f),
            E::Exists { subquery, negated } => self.bind_subquery(subquery, SubqueryKind::Exists { negated: *negated }),
            E::Subquery(q) => self.bind_subquery(q, SubqueryKind::Scalar),
            E::Tuple(_) => Err(error::operand_columns(1)),
            E::Interval(_) => Err(error::syntax(&e.to_string(), 1)),
            E::MatchAgainst { .. } => Err(error::not_supported("MATCH ... AGAINST (fulltext search)")),
            other => Err(error::not_supported(&other.to_string())),
        }
    }

    fn bind_identifier(&mut self, id: &ast::Ident) -> Result<Bound, SqlError> {
        let v = &id.value;
        if id.quote_style.is_none() {
            if let Some(name) = v.strip_prefix("@@") {
                return Ok(self.sysvar(name, VarScope::Default));
            }
            if let Some(name) = v.strip_prefix('@') {
                return Ok(self.user_var(name));
            }
            // Niladic functions sqlparser reads as names.
            let upper = v.to_ascii_uppercase();
            if matches!(upper.as_str(), "CURRENT_USER" | "CURRENT_ROLE" | "SESSION_USER" | "SYSTEM_USER") {
                let r = self.resolve_name(v);
                if r.is_ok() {
                    return r;
                }
                return self.bind_named_function(&upper, &[]);
            }
        }
        self.resolve_name(v)
    }

    fn bind_compound(&mut self, parts: &[ast::Ident]) -> Result<Bound, SqlError> {
        let first = &parts[0];
        if first.quote_style.is_none() && first.value.starts_with("@@") && parts.len() == 2 {
            let scope = match first.value[2..].to_ascii_lowercase().as_str() {
                "global" => VarScope::Global,
                "session" | "local" => VarScope::Session,
                _ => {
                    return Err(error::syntax(&parts.iter().map(|p| p.value.as_str()).collect::<Vec<_>>().join("."), 1))
                }
            };
            return Ok(self.sysvar(&parts[1].value, scope));
        }
        if parts.len() > 3 {
            return Err(error::syntax(&parts.iter().map(|p| p.value.as_str()).collect::<Vec<_>>().join("."), 1));
        }
        let qualifier: Vec<String> = parts[..parts.len() - 1].iter().map(|p| p.value.clone()).collect();
        self.resolve_column(&qualifier, &parts[parts.len() - 1].value)
    }

    fn sysvar(&self, name: &str, scope: VarScope) -> Bound {
        let ty = match self.env.vars {
            Some((s, g)) => s.get(g, name, scope).map(|v| SqlType::of_value(&v)).unwrap_or(SqlType::text(1024, false)),
            None => SqlType::text(1024, false),
        };
        Bound::new(Expr::SysVar { name: Arc::from(name), scope }, ty, true)
    }

    fn user_var(&self, name: &str) -> Bound {
        let current = self.env.user_vars.and_then(|m| m.get(&name.to_ascii_lowercase()));
        Bound::new(Expr::UserVar(Arc::from(name)), UserVariable::reference_type(current), true)
    }

    /// An arithmetic operand that is a string user variable, read as a number without
    /// warnings (`STRING_VARIABLE_AS_NUMBER`); any other operand as it is.
    fn user_var_as_number(&self, b: Bound) -> Bound {
        if !matches!(b.expr, Expr::UserVar(_)) || !matches!(b.ty, SqlType::Text { .. } | SqlType::Bytes { .. }) {
            return b;
        }
        let expr = Expr::Func { func: FuncRef(&STRING_VARIABLE_AS_NUMBER), args: vec![b.expr] };
        Bound::new(expr, SqlType::Double, b.nullable)
    }

    /// The type of a select item that is a DECIMAL user variable and nothing else: MariaDB
    /// sends such an item as the variable's text, with the value's own scale (`SET @d = 1.50;
    /// SELECT @d` shows 1.50, where `@d * 2` shows 38 decimals).
    pub(super) fn bare_user_var_type(&self, item: &ast::Expr, bound: &Bound) -> Option<SqlType> {
        let written_bare = match item {
            ast::Expr::Identifier(id) => id.quote_style.is_none() && id.value.starts_with('@'),
            ast::Expr::Value(v) => matches!(&v.value, ast::Value::Placeholder(p) if p.starts_with('@')),
            _ => false,
        };
        let Expr::UserVar(name) = &bound.expr else {
            return None;
        };
        if !written_bare {
            return None;
        }
        match self.env.user_vars.and_then(|m| m.get(&name.to_ascii_lowercase())) {
            Some(UserVariable { value: v @ Value::Decimal(_), .. }) => Some(SqlType::of_value(v)),
            _ => None,
        }
    }

    pub fn bind_value(&mut self, v: &ast::ValueWithSpan) -> Result<Bound, SqlError> {
        use ast::Value as V;
        let value = match &v.value {
            V::Number(s, _) => parse_number(s),
            V::SingleQuotedString(s)
            | V::DoubleQuotedString(s)
            | V::NationalStringLiteral(s)
            | V::EscapedStringLiteral(s)
            | V::TripleSingleQuotedString(s)
            | V::TripleDoubleQuotedString(s) => Value::Bytes(s.as_bytes().to_vec()),
            V::HexStringLiteral(h) => Value::Bytes(decode_hex(h).ok_or_else(|| error::syntax(&format!("x'{h}'"), 1))?),
            V::SingleQuotedByteStringLiteral(b) | V::DoubleQuotedByteStringLiteral(b) => {
                Value::Bytes(decode_bits(b).ok_or_else(|| error::syntax(&format!("b'{b}'"), 1))?)
            }
            V::Boolean(b) => Value::Int(*b as i64),
            V::Null => Value::Null,
            V::Placeholder(p) => {
                if let Some(name) = p.strip_prefix('@') {
                    return Ok(self.user_var(name));
                }
                return match self.text.placeholder_at(v.span.start) {
                    Some(i) => {
                        let ty = match self.param_types.and_then(|t| t.get(i)).cloned().unwrap_or(SqlType::Null) {
                            // A string parameter is text of the connection, as a literal is.
                            SqlType::Text { max_chars, lob, .. } => {
                                SqlType::Text { max_chars, lob, collation: self.connection_collation() }
                            }
                            t => t,
                        };
                        Ok(Bound::new(Expr::Param(i), ty, true))
                    }
                    None => Err(error::syntax(p, v.span.start.line as usize)),
                };
            }
            other => return Err(error::not_supported(&other.to_string())),
        };
        let ty = match (&v.value, SqlType::of_value(&value)) {
            // X'..' and b'..' are binary strings (VARBINARY, charset 63), as in MariaDB.
            (V::HexStringLiteral(_) | V::SingleQuotedByteStringLiteral(_) | V::DoubleQuotedByteStringLiteral(_), t) => {
                SqlType::Bytes { max_len: t.display_chars(), lob: false }
            }
            (_, SqlType::Text { max_chars, lob, .. }) => {
                SqlType::Text { max_chars, lob, collation: self.connection_collation() }
            }
            (_, t) => t,
        };
        let nullable = value.is_null();
        Ok(Bound::new(Expr::Literal(value), ty, nullable))
    }

    fn bind_unary(&mut self, op: &ast::UnaryOperator, expr: &ast::Expr) -> Result<Bound, SqlError> {
        use ast::UnaryOperator as U;
        let x = self.bind_expr(expr)?;
        let x = if matches!(op, U::Minus) { self.user_var_as_number(x) } else { x };
        Ok(match op {
            U::Plus => x,
            U::Minus => match &x.expr {
                Expr::Literal(v) => {
                    let folded = value::negate_constant(v)?;
                    let ty = SqlType::of_value(&folded);
                    Bound::new(Expr::Literal(folded), ty, x.nullable)
                }
                _ => {
                    fixed_binary_operands::check_number_operand(&x, "-")?;
                    let x = self.as_number_read(x)?;
                    let ty = match x.ty {
                        SqlType::Int { bits, .. } => SqlType::Int { bits, unsigned: false },
                        other => other,
                    };
                    Bound::new(Expr::Neg(x.expr.boxed()), ty, x.nullable)
                }
            },
            U::Not | U::BangNot => {
                let x = match self.hex_number(expr) {
                    Some(n) => n,
                    None => self.as_number_read(x)?,
                };
                Bound::new(Expr::Not(x.expr.boxed()), bool_type(), x.nullable)
            }
            U::BitwiseNot => {
                fixed_binary_operands::check_number_operand(&x, "~")?;
                let x = self.as_number_read(x)?;
                Bound::new(Expr::BitNot(x.expr.boxed()), SqlType::Int { bits: 64, unsigned: true }, x.nullable)
            }
            other => return Err(error::not_supported(&format!("operator {other}"))),
        })
    }

    fn hex_number(&self, e: &ast::Expr) -> Option<Bound> {
        hex_number_of(e, &self.text)
    }

    fn bind_binary(
        &mut self,
        left: &ast::Expr,
        op: &ast::BinaryOperator,
        right: &ast::Expr,
    ) -> Result<Bound, SqlError> {
        use ast::BinaryOperator as B;
        if let Some(c) = cmp_op(op) {
            return self.bind_comparison(c, left, right);
        }
        let arith = match op {
            B::Plus => Some(ArithOp::Add),
            B::Minus => Some(ArithOp::Sub),
            B::Multiply => Some(ArithOp::Mul),
            B::Divide => Some(ArithOp::Div),
            B::Modulo => Some(ArithOp::Rem),
            B::MyIntegerDivide => Some(ArithOp::IntDiv),
            _ => None,
        };
        if let Some(aop) = arith {
            // `x + INTERVAL n unit`, `INTERVAL n unit + x`, `x - INTERVAL n unit`.
            if matches!(aop, ArithOp::Add | ArithOp::Sub) {
                if let ast::Expr::Interval(iv) = right {
                    return self.bind_date_add(left, iv, aop == ArithOp::Sub);
                }
                if let (ast::Expr::Interval(iv), ArithOp::Add) = (left, aop) {
                    return self.bind_date_add(right, iv, false);
                }
            }
            let l = match self.hex_number(left) {
                Some(n) => n,
                None => self.bind_expr(left)?,
            };
            let l = time_as_number(self.enum_index(l)?);
            let r = match self.hex_number(right) {
                Some(n) => n,
                None => self.bind_expr(right)?,
            };
            let r = time_as_number(self.enum_index(r)?);
            let symbol = match aop {
                ArithOp::Add => Some("+"),
                ArithOp::Sub => Some("-"),
                ArithOp::Mul => Some("*"),
                ArithOp::Div => Some("/"),
                ArithOp::Rem => Some("MOD"),
                // MariaDB's DIV reads a UUID / INET as a string number (NULL), without 4078.
                _ => None,
            };
            if let Some(symbol) = symbol {
                fixed_binary_operands::check_arithmetic(&l, &r, symbol)?;
            }
            let (l, r) = (self.user_var_as_number(l), self.user_var_as_number(r));
            let div_increment = self.env.vars.map_or(4, |(v, _)| v.div_precision_increment());
            let ty = value::arith_type_with(aop, &l.ty, &r.ty, div_increment);
            let nullable = l.nullable || r.nullable || matches!(aop, ArithOp::Div | ArithOp::IntDiv | ArithOp::Rem);
            return Ok(Bound::new(Expr::Arith { op: aop, left: l.expr.boxed(), right: r.expr.boxed() }, ty, nullable));
        }
        let bit = match op {
            B::BitwiseAnd => Some(BitOp::And),
            B::BitwiseOr => Some(BitOp::Or),
            B::BitwiseXor => Some(BitOp::Xor),
            B::PGBitwiseShiftLeft => Some(BitOp::Shl),
            B::PGBitwiseShiftRight => Some(BitOp::Shr),
            _ => None,
        };
        if let Some(bop) = bit {
            let symbol = match bop {
                BitOp::And => "&",
                BitOp::Or => "|",
                BitOp::Xor => "^",
                BitOp::Shl => "<<",
                BitOp::Shr => ">>",
            };
            // Operands read as numbers: a TIME as HHMMSS, an ENUM / SET as its index / mask,
            // b'101' / 0x05 as 5.
            let l = self.bind_expr(left)?;
            fixed_binary_operands::check_number_operand(&l, symbol)?;
            let l = match self.hex_number(left) {
                Some(n) => n,
                None => self.as_number_read(l)?,
            };
            let r = self.bind_expr(right)?;
            fixed_binary_operands::check_number_operand(&r, symbol)?;
            let r = match self.hex_number(right) {
                Some(n) => n,
                None => self.as_number_read(r)?,
            };
            let nullable = l.nullable || r.nullable;
            return Ok(Bound::new(
                Expr::Bit { op: bop, left: l.expr.boxed(), right: r.expr.boxed() },
                SqlType::Int { bits: 64, unsigned: true },
                nullable,
            ));
        }
        match op {
            B::And | B::Or | B::Xor => {
                let l = self.bind_condition(left)?;
                let r = self.bind_condition(right)?;
                let nullable = l.nullable || r.nullable;
                let (a, b) = (l.expr.boxed(), r.expr.boxed());
                let e = match op {
                    B::And => Expr::And(a, b),
                    B::Or => Expr::Or(a, b),
                    _ => Expr::Xor(a, b),
                };
                Ok(Bound::new(e, bool_type(), nullable))
            }
            B::StringConcat => {
                if self.env.pipes_as_concat {
                    self.bind_named_function("CONCAT", &[left.clone(), right.clone()])
                } else {
                    // `||` is OR unless sql_mode has PIPES_AS_CONCAT.
                    self.bind_binary(left, &B::Or, right)
                }
            }
            B::Assignment => {
                let name = match left {
                    ast::Expr::Identifier(id)
                        if id.quote_style.is_none() && id.value.starts_with('@') && !id.value.starts_with("@@") =>
                    {
                        id.value[1..].to_string()
                    }
                    ast::Expr::Value(v) => match &v.value {
                        ast::Value::Placeholder(p) if p.starts_with('@') => p[1..].to_string(),
                        _ => return Err(error::syntax(":=", 1)),
                    },
                    _ => return Err(error::syntax(":=", 1)),
                };
                let r = self.bind_expr(right)?;
                let assigned = Assigned::of_type(&r.ty, self.connection_collation());
                Ok(Bound::new(
                    Expr::SetUserVar { name: Arc::from(name.as_str()), expr: r.expr.boxed(), assigned },
                    r.ty,
                    r.nullable,
                ))
            }
            B::Regexp => self.bind_named_function("REGEXP", &[left.clone(), right.clone()]),
            other => Err(error::not_supported(&format!("operator {other}"))),
        }
    }

    pub fn bind_comparison(&mut self, op: CmpOp, left: &ast::Expr, right: &ast::Expr) -> Result<Bound, SqlError> {
        if let (ast::Expr::Tuple(ls), ast::Expr::Tuple(rs)) = (strip_nested(left), strip_nested(right)) {
            if ls.len() != rs.len() {
                return Err(error::operand_columns(ls.len()));
            }
            if !matches!(op, CmpOp::Eq | CmpOp::NullSafeEq | CmpOp::Ne) {
                return Err(error::not_supported("row comparison with <, <=, >, >="));
            }
            let inner = if op == CmpOp::Ne { CmpOp::Eq } else { op };
            let mut parts = Vec::with_capacity(ls.len());
            let mut nullable = false;
            for (l, r) in ls.iter().zip(rs) {
                let b = self.bind_comparison(inner, l, r)?;
                nullable |= b.nullable;
                parts.push(b.expr);
            }
            let all = Expr::conjunction(parts).unwrap_or(Expr::Literal(Value::Int(1)));
            let e = if op == CmpOp::Ne { Expr::Not(all.boxed()) } else { all };
            return Ok(Bound::new(e, bool_type(), nullable));
        }
        if let ast::Expr::Tuple(t) = strip_nested(left) {
            return Err(error::operand_columns(t.len()));
        }
        if matches!(strip_nested(right), ast::Expr::Tuple(_)) {
            return Err(error::operand_columns(1));
        }
        let l = self.bind_expr(left)?;
        let r = self.bind_expr(right)?;
        // A `0x..` / `b'..'` literal compared with a number is the number its bytes spell
        // (MariaDB's hex hybrid: `1 = b'1'` is true, `0x31 = 1` false); `x'..'` stays a string.
        let l = match self.hex_number(left) {
            Some(n) if r.ty.is_numeric() => n,
            _ => l,
        };
        let r = match self.hex_number(right) {
            Some(n) if l.ty.is_numeric() => n,
            _ => r,
        };
        let (l, r) = self.json_comparand(l, r);
        let nullable = op != CmpOp::NullSafeEq && (l.nullable || r.nullable);
        // An ENUM compared with a number compares its index.
        let l = if r.ty.is_numeric() { self.enum_index(l)? } else { l };
        let r = if l.ty.is_numeric() { self.enum_index(r)? } else { r };
        let (lt, rt) = (l.ty.clone(), r.ty.clone());
        let (l, r) = (bits_against(&rt, l), bits_against(&lt, r));
        let (l, r) = if matches!(l.ty, SqlType::Time { .. }) || matches!(r.ty, SqlType::Time { .. }) {
            // A TIME compares as a time (MariaDB converts the other side): as microseconds,
            // since TIME text does not sort as time ('9:00' > '10:00', '-1:00' > '0:00').
            (time_operand(l, CastTarget::TimeMicros), time_operand(r, CastTarget::TimeMicros))
        } else {
            (l, r)
        };
        let name = match op {
            CmpOp::Eq => "=",
            CmpOp::Ne => "<>",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::NullSafeEq => "<=>",
        };
        let mut operands = self.collated_operands(vec![l, r], name)?.into_iter();
        let (Some(left), Some(right)) = (operands.next(), operands.next()) else { unreachable!("two operands") };
        Ok(Bound::new(Expr::Cmp { op, left: left.boxed(), right: right.boxed() }, bool_type(), nullable))
    }

    fn bind_in_list(&mut self, expr: &ast::Expr, list: &[ast::Expr], negated: bool) -> Result<Bound, SqlError> {
        if let ast::Expr::Tuple(cols) = strip_nested(expr) {
            // (a, b) IN ((1, 2), (3, 4)) → (a = 1 AND b = 2) OR (a = 3 AND b = 4)
            let mut disjuncts: Option<Expr> = None;
            for item in list {
                let ast::Expr::Tuple(vals) = strip_nested(item) else {
                    return Err(error::operand_columns(cols.len()));
                };
                if vals.len() != cols.len() {
                    return Err(error::operand_columns(cols.len()));
                }
                let b = self.bind_comparison(CmpOp::Eq, expr, item)?;
                disjuncts = Some(match disjuncts {
                    None => b.expr,
                    Some(d) => Expr::Or(d.boxed(), b.expr.boxed()),
                });
            }
            let e = disjuncts.unwrap_or(Expr::Literal(Value::Int(0)));
            let e = if negated { Expr::Not(e.boxed()) } else { with_column_in_lists(e, cols.len(), list.len()) };
            return Ok(Bound::new(e, bool_type(), true));
        }
        let x = self.bind_expr(expr)?;
        let mut nullable = x.nullable;
        let mut operands = Vec::with_capacity(list.len() + 1);
        operands.push(x);
        for item in list {
            if matches!(strip_nested(item), ast::Expr::Tuple(_)) {
                return Err(error::operand_columns(1));
            }
            let b = self.bind_expr(item)?;
            nullable |= b.nullable;
            operands.push(b);
        }
        // A list of strings and numbers: MariaDB compares the value with each item in the
        // pair's own type (`e IN (1, 'b')` is index = 1 OR text = 'b'), as a disjunction of
        // comparisons does, NULLs included.
        let is_string = |b: &Bound| matches!(b.ty, SqlType::Text { .. } | SqlType::Bytes { .. } | SqlType::Enum { .. });
        let is_other = |b: &Bound| !matches!(b.ty, SqlType::Null) && !is_string(b);
        let items = &operands[1..];
        if items.iter().any(is_string) && items.iter().any(is_other) && !self.is_json(&operands[0]) {
            // Types that cannot meet are refused naming IN, as MariaDB does, not '='.
            let refs: Vec<&Bound> = operands.iter().collect();
            fixed_binary_operands::check_operands_meet(&refs, "in")?;
            let mut any: Option<Expr> = None;
            for item in list {
                let eq = self.bind_comparison(CmpOp::Eq, expr, item)?.expr;
                any = Some(match any {
                    None => eq,
                    Some(d) => Expr::Or(d.boxed(), eq.boxed()),
                });
            }
            let e = any.expect("IN has a list");
            let e = if negated { Expr::Not(e.boxed()) } else { e };
            return Ok(Bound::new(e, bool_type(), nullable));
        }
        // A TIME among the operands makes the comparison one of times (MariaDB aggregates the
        // comparison type of all of them: `1 IN (0, time_col)` reads 1 as 00:00:01); an ENUM /
        // SET beside a number is its index / mask (see bind_comparison).
        if operands.iter().any(|b| matches!(b.ty, SqlType::Time { .. })) {
            operands = operands.into_iter().map(|b| time_operand(b, CastTarget::TimeMicros)).collect();
        } else if operands.iter().any(|b| b.ty.is_numeric()) {
            operands = operands.into_iter().map(|b| self.enum_index(b)).collect::<Result<_, _>>()?;
        }
        let mut operands = self.collated_operands(operands, "in")?.into_iter();
        let x = operands.next().expect("the tested expression");
        Ok(Bound::new(Expr::InList { expr: x.boxed(), list: operands.collect(), negated }, bool_type(), nullable))
    }

    fn bind_is_null(&mut self, x: &ast::Expr, negated: bool) -> Result<Bound, SqlError> {
        let b = self.bind_expr(x)?;
        Ok(Bound::new(Expr::IsNull { expr: b.expr.boxed(), negated }, bool_type(), false))
    }

    fn bind_is_bool(&mut self, x: &ast::Expr, value: bool, negated: bool) -> Result<Bound, SqlError> {
        let b = self.bind_condition(x)?;
        Ok(Bound::new(Expr::IsBool { expr: b.expr.boxed(), value, negated }, bool_type(), false))
    }

    fn bind_like(
        &mut self,
        expr: &ast::Expr,
        pattern: &ast::Expr,
        escape: Option<&ast::Expr>,
        negated: bool,
    ) -> Result<Bound, SqlError> {
        // LIKE reads a ZEROFILL column as its padded text ('00042' LIKE '000%').
        let x = self.bind_expr(expr)?;
        let x = self.as_text_read(x);
        let p = self.bind_expr(pattern)?;
        let p = self.as_text_read(p);
        let escape = match escape {
            None => DEFAULT_LIKE_ESCAPE,
            Some(e) => {
                let b = self.bind_expr(e)?;
                match b.expr {
                    Expr::Literal(Value::Bytes(s)) if s.len() <= 1 => s.first().copied().unwrap_or(DEFAULT_LIKE_ESCAPE),
                    _ => return Err(error::wrong_arguments("ESCAPE")),
                }
            }
        };
        // A UUID / INET value matches as its text in its character set's default collation
        // (latin1_swedish_ci in MariaDB: `u LIKE '550E%'` finds '550e...'); the text is ASCII,
        // where utf8mb4_general_ci weighs the same.
        let collation = self.comparison_collation(&[&x, &p], "like")?.map(|c| {
            if c.fixed_binary_kind().is_some() {
                crate::charset::Collation::utf8mb4_general_ci()
            } else {
                c
            }
        });
        let compiled = match &p.expr {
            Expr::Literal(v) if !v.is_null() => value::to_text_bytes(v).map(|bytes| {
                CompiledLike(Arc::new(match collation {
                    Some(c) => LikePattern::compile_collated(&bytes, escape, c),
                    None => LikePattern::compile(&bytes, escape),
                }))
            }),
            _ => None,
        };
        let nullable = x.nullable || p.nullable;
        Ok(Bound::new(
            Expr::Like { expr: x.expr.boxed(), pattern: p.expr.boxed(), escape, negated, compiled, collation },
            bool_type(),
            nullable,
        ))
    }

    fn bind_case(
        &mut self,
        operand: Option<&ast::Expr>,
        conditions: &[ast::CaseWhen],
        otherwise: Option<&ast::Expr>,
    ) -> Result<Bound, SqlError> {
        let operand = operand.map(|o| self.bind_expr(o)).transpose()?;
        let mut conds = Vec::with_capacity(conditions.len());
        let mut results = Vec::with_capacity(conditions.len());
        let mut ty: Option<SqlType> = None;
        // The first result, against which MariaDB checks the others' types (4078).
        let mut first_result: Option<Bound> = None;
        // What each result brings to the collation of the CASE's value.
        let mut result_collations = Vec::with_capacity(conditions.len() + 1);
        for cw in conditions {
            // A searched CASE asks its conditions' truth; a simple CASE compares them.
            let w =
                if operand.is_some() { self.bind_expr(&cw.condition)? } else { self.bind_condition(&cw.condition)? };
            let t = self.bind_expr(&cw.result)?;
            result_collations.push(self.dt_collation_of(&t));
            match &first_result {
                None => first_result = Some(t.clone()),
                Some(first) => fixed_binary_operands::check_operands_meet(&[first, &t], "case")?,
            }
            ty = Some(match ty {
                None => t.ty.clone(),
                Some(prev) => SqlType::unify(&prev, &t.ty),
            });
            conds.push(w);
            results.push(t);
        }
        // CASE x WHEN v ...: x and the values compare in one collation.
        let (operand, conds) = match operand {
            Some(o) => {
                let mut all = Vec::with_capacity(conds.len() + 1);
                all.push(o);
                all.extend(conds);
                let refs: Vec<&Bound> = all.iter().collect();
                fixed_binary_operands::check_operands_meet(&refs, "case..when")?;
                let mut keyed = self.collated_operands(all, "case")?.into_iter();
                (keyed.next(), keyed.collect::<Vec<_>>())
            }
            None => (None, conds.into_iter().map(|c| c.expr).collect()),
        };
        let otherwise = match otherwise {
            Some(e) => {
                let b = self.bind_expr(e)?;
                if let Some(first) = &first_result {
                    fixed_binary_operands::check_operands_meet(&[first, &b], "case")?;
                }
                result_collations.push(self.dt_collation_of(&b));
                ty = Some(match ty {
                    None => b.ty.clone(),
                    Some(prev) => SqlType::unify(&prev, &b.ty),
                });
                Some(b)
            }
            None => None,
        };
        let ty = ty.unwrap_or(SqlType::Null);
        let whens: Vec<(Expr, Expr)> =
            conds.into_iter().zip(results).map(|(c, r)| (c, self.as_result_of_type(r, &ty).expr)).collect();
        let otherwise = otherwise.map(|b| self.as_result_of_type(b, &ty).expr.boxed());
        let result = self.result_collation_of(&result_collations, "case")?;
        Ok(with_result_collation(
            Bound::new(Expr::Case { operand: operand.map(Expr::boxed), whens, otherwise }, ty, true),
            result,
        ))
    }

    /// `CAST(expr AS target)`. A binary string cast to CHAR is read as text of the
    /// connection's character set first, as MariaDB: CAST(X'E9' AS CHAR) is '?' with 1300.
    pub(super) fn bind_cast(&mut self, expr: &ast::Expr, target: CastTarget) -> Result<Bound, SqlError> {
        let connection = crate::charset::charset(self.connection_collation().charset_name())
            .expect("the connection's character set is listed");
        self.bind_cast_reading_bytes(expr, target, connection)
    }

    /// `bind_cast`, a binary string cast to CHAR read as text of `charset` (a CAST AS CHAR
    /// CHARACTER SET reads it in its own set: CAST(X'E9' AS CHAR CHARACTER SET latin1) is 'é').
    pub(super) fn bind_cast_reading_bytes(
        &mut self,
        expr: &ast::Expr,
        target: CastTarget,
        charset: &'static crate::charset::CharsetDef,
    ) -> Result<Bound, SqlError> {
        let x = self.bind_expr(expr)?;
        let x = match target {
            CastTarget::Char { .. } => self.as_text_read(x),
            // A cast to a number reads its operand as one: an ENUM's index, a SET's mask, a
            // TIME's HHMMSS, b'101' / 0x05 as 5.
            CastTarget::Signed
            | CastTarget::Unsigned
            | CastTarget::Decimal { .. }
            | CastTarget::Double
            | CastTarget::Float => match self.hex_number(expr) {
                Some(n) => n,
                None => self.as_number_read(x)?,
            },
            _ => x,
        };
        let x = match (&target, &x.ty) {
            (CastTarget::Char { .. }, SqlType::Bytes { .. }) if charset.name != "binary" => {
                self.convert_to_charset(x, charset)
            }
            _ => x,
        };
        // MariaDB's casts to temporal, floating and string types may be NULL whatever their
        // argument (a value that is not a date casts to NULL); to integers and DECIMAL not.
        let nullable = x.nullable
            || match target {
                CastTarget::Time { .. }
                | CastTarget::Date
                | CastTarget::DateTime { .. }
                | CastTarget::Double
                | CastTarget::Float
                | CastTarget::Char { .. }
                | CastTarget::Binary { .. } => true,
                // MariaDB folds a literal's cast: NOT NULL when it converts.
                CastTarget::FixedBinary(kind) => match &x.expr {
                    Expr::Literal(Value::Bytes(b)) => kind.parse(b).is_none(),
                    _ => true,
                },
                _ => false,
            };
        let mut ty = value::cast_type(target);
        // CAST(x AS CHAR) without a length is as long as x shows (MariaDB's metadata and
        // CREATE ... SELECT column: CAST(1 AS CHAR) is VARCHAR(1)).
        if let (CastTarget::Char { len: None }, SqlType::Text { max_chars, lob: false, .. }) = (&target, &mut ty) {
            let shown = match &x.expr {
                // An integer literal shows its digits (MariaDB's Item_int max_length).
                Expr::Literal(Value::Int(n)) => n.to_string().len() as u32,
                _ => x.ty.display_chars(),
            };
            if !x.ty.is_lob() {
                *max_chars = shown.min(*max_chars);
            }
        }
        Ok(Bound::new(Expr::Cast { expr: x.expr.boxed(), target }, ty, nullable))
    }

    fn bind_date_add(&mut self, base: &ast::Expr, iv: &ast::Interval, negate: bool) -> Result<Bound, SqlError> {
        if iv.last_field.is_some() {
            return Err(error::not_supported("INTERVAL with a compound unit"));
        }
        let unit = match &iv.leading_field {
            Some(f) => types::interval_unit(f)?,
            None => return Err(error::syntax(&iv.value.to_string(), 1)),
        };
        let b = self.bind_expr(base)?;
        let amount = self.bind_expr(&iv.value)?;
        let ty = date_add_type(&b.ty, unit);
        Ok(Bound::new(Expr::DateAdd { base: b.expr.boxed(), amount: amount.expr.boxed(), unit, negate }, ty, true))
    }

    /// `x IN (SELECT ...)`: x and the subquery's column compare in their aggregated collation
    /// (through sort keys on both sides when it weighs characters).
    fn bind_in_subquery(&mut self, q: &ast::Query, left: Bound, negated: bool) -> Result<Bound, SqlError> {
        let mut b = self.bind_subquery(q, SubqueryKind::In { expr: left.expr.clone().boxed(), negated })?;
        let Expr::Subquery(sq) = &mut b.expr else { unreachable!("bind_subquery binds a subquery") };
        let out = &sq.plan.columns[0];
        let mut column = Bound::new(Expr::Column(0), out.ty.clone(), true);
        // A selected table column is IMPLICIT; an expression's derivation is not kept in the
        // plan, and a literal's (COERCIBLE) is the common case.
        if out.meta.org_name.is_empty() && column.derivation == crate::charset::Derivation::Implicit {
            column.derivation = crate::charset::Derivation::Coercible;
        }
        if let Some(c) = self.comparison_collation(&[&left, &column], "in")? {
            // Just bound: nothing else holds the plan yet.
            let plan = Arc::get_mut(&mut sq.plan).expect("a subquery plan is not shared while it is bound");
            let root = std::mem::replace(&mut plan.root, crate::plan::Plan::Concat(Vec::new()));
            plan.root = crate::plan::Plan::Project {
                input: Box::new(root),
                exprs: vec![super::collation::sort_key_of(Expr::Column(0), c)],
            };
            sq.kind = SubqueryKind::In { expr: super::collation::sort_key_of(left.expr, c).boxed(), negated };
        }
        Ok(b)
    }

    fn bind_subquery(&mut self, q: &ast::Query, kind: SubqueryKind) -> Result<Bound, SqlError> {
        let (plan, scope) = self.with_scope(|b| b.bind_query(q))?;
        let ncols = plan.columns.len();
        let ty = match &kind {
            SubqueryKind::Scalar | SubqueryKind::In { .. } => {
                if ncols != 1 {
                    return Err(error::operand_columns(1));
                }
                if matches!(kind, SubqueryKind::Scalar) {
                    plan.columns[0].ty.clone()
                } else {
                    bool_type()
                }
            }
            SubqueryKind::Exists { .. } => bool_type(),
        };
        let nullable = !matches!(kind, SubqueryKind::Exists { .. });
        let cache_slot = self.next_subquery_slot();
        let sq = Subquery { plan: Arc::new(plan), kind, correlated: scope.correlated, cache_slot, outer_offset: 0 };
        Ok(Bound::new(Expr::Subquery(Box::new(sq)), ty, nullable))
    }

    /// Binds `name(args...)` given as AST expressions (syntax forms mapped onto functions).
    pub fn bind_named_function(&mut self, name: &str, args: &[ast::Expr]) -> Result<Bound, SqlError> {
        let mut bound = Vec::with_capacity(args.len());
        for a in args {
            bound.push(self.bind_expr(a)?);
        }
        let booleans: Vec<bool> = args.iter().map(is_boolean).collect();
        self.call_function_with(name, bound, &booleans)
    }

    /// An ENUM operand as its index, FIELD(e, 'v1', 'v2', ...) (0 for the '' of an invalid
    /// value), where MariaDB uses the index; anything else as it is.
    /// A SET column is its bit mask there (`set_columns`).
    pub fn enum_index(&mut self, b: Bound) -> Result<Bound, SqlError> {
        let b = self.set_as_number(b);
        let SqlType::Enum { values } = &b.ty else {
            return Ok(b);
        };
        let mut args = vec![Bound::new(b.expr.clone(), SqlType::text(0, false), b.nullable)];
        for v in values {
            let lit = Value::Bytes(v.clone().into_bytes());
            args.push(Bound::new(Expr::Literal(lit.clone()), SqlType::of_value(&lit), false));
        }
        let nullable = b.nullable;
        let mut index = self.call_function("FIELD", args)?;
        // FIELD(NULL, ...) is 0; an ENUM that is NULL stays NULL in MariaDB.
        if nullable {
            let is_null = Bound::new(Expr::IsNull { expr: b.expr.boxed(), negated: false }, bool_type(), false);
            index = Bound::new(
                Expr::Case {
                    operand: None,
                    whens: vec![(is_null.expr, Expr::Literal(Value::Null))],
                    otherwise: Some(index.expr.boxed()),
                },
                index.ty,
                true,
            );
        }
        Ok(index)
    }

    /// `b` where MariaDB reads it as a number (val_int / val_real): an ENUM as its index, a
    /// SET as its bit mask, a TIME as HHMMSS ('00:00:01' is 1, not the 0 its text spells).
    pub(super) fn as_number_read(&mut self, b: Bound) -> Result<Bound, SqlError> {
        Ok(time_as_number(self.enum_index(b)?))
    }

    /// `e` bound as a condition (WHERE, HAVING, AND / OR / XOR / NOT, IF's and CASE WHEN's
    /// conditions, IS TRUE): MariaDB asks its truth of val_bool, which reads it as a number,
    /// so an ENUM / SET / TIME is true when its number is not 0 and `b'101'` / `0x05` is 5.
    /// Decided here, so nothing is added to the evaluation of other conditions.
    pub fn bind_condition(&mut self, e: &ast::Expr) -> Result<Bound, SqlError> {
        let b = self.bind_expr(e)?;
        if let Some(n) = self.hex_number(e) {
            return Ok(n);
        }
        self.as_number_read(b)
    }

    fn call_function(&mut self, name: &str, args: Vec<Bound>) -> Result<Bound, SqlError> {
        self.call_function_with(name, args, &[])
    }

    /// `call_function`, told which arguments MariaDB types as boolean (`is_boolean`): a JSON
    /// function embeds them as true / false.
    fn call_function_with(&mut self, name: &str, args: Vec<Bound>, booleans: &[bool]) -> Result<Bound, SqlError> {
        let Some(f) = value::lookup_function(name) else {
            return Err(error::unknown_function(self.env.current_db, name));
        };
        if args.len() < f.min_args || args.len() > f.max_args {
            return Err(error::wrong_param_count(name));
        }
        let args = self.string_arguments(f, args);
        let args = if super::set_columns::is_math_function(f.name) {
            let operation = f.name.to_ascii_lowercase();
            for a in &args {
                fixed_binary_operands::check_number_operand(a, &operation)?;
            }
            // ROUND / TRUNCATE / CEIL / FLOOR of a TIME are TIMEs (left to them).
            let keeps_time = ["ROUND", "TRUNCATE", "CEIL", "CEILING", "FLOOR"].contains(&f.name);
            args.into_iter()
                .map(|a| if keeps_time { self.enum_index(a) } else { self.as_number_read(a) })
                .collect::<Result<Vec<_>, _>>()?
        } else if ["GREATEST", "LEAST"].contains(&f.name) && args.iter().any(|a| a.ty.is_numeric()) {
            // Beside a number, an ENUM / SET compares as its index / mask (GREATEST(e, 1.5) is
            // 2.0 for the second member); beside integers only, the string it is makes the
            // result a DOUBLE, as MariaDB aggregates the types.
            let exact = |a: &Bound| matches!(a.ty, SqlType::Decimal { .. } | SqlType::Float | SqlType::Double);
            let as_double = !args.iter().any(exact);
            args.into_iter()
                .map(|a| {
                    let was_string = matches!(a.ty, SqlType::Enum { .. }) || self.set_column_members(&a).is_some();
                    let a = self.enum_index(a)?;
                    Ok(if was_string && as_double {
                        Bound::new(
                            Expr::Cast { expr: a.expr.boxed(), target: CastTarget::Double },
                            SqlType::Double,
                            a.nullable,
                        )
                    } else {
                        a
                    })
                })
                .collect::<Result<Vec<_>, SqlError>>()?
        } else {
            match number_positions(f.name) {
                Some(positions) => args
                    .into_iter()
                    .enumerate()
                    .map(|(i, a)| if positions.contains(&i) { self.as_number_read(a) } else { Ok(a) })
                    .collect::<Result<Vec<_>, _>>()?,
                None => args,
            }
        };
        // MariaDB changes no case in a binary string: UPPER(_binary'abc') is 'abc'.
        if ["UPPER", "UCASE", "LOWER", "LCASE"].contains(&f.name) && matches!(args[0].ty, SqlType::Bytes { .. }) {
            let arg = args.into_iter().next().expect("one argument");
            return Ok(Bound { origin: None, ..arg });
        }
        if f.name == "FIND_IN_SET" {
            if let Some(call) = self.find_in_set_of_set_column(&args) {
                return Ok(call);
            }
        }
        let collated = self.collated_call(name, &args)?;
        let args = super::charset_bytes::in_charset_bytes(name, args);
        let arg_types: Vec<SqlType> = args.iter().map(|a| a.ty.clone()).collect();
        // ROUND(x, 2), NOW(3), STR_TO_DATE(s, '%Y') are typed by their constant arguments.
        let consts: Vec<Option<&Value>> = args
            .iter()
            .map(|a| match &a.expr {
                Expr::Literal(v) => Some(v),
                _ => None,
            })
            .collect();
        let ty = value::return_type_with_constants(f, &arg_types, &consts);
        if let Some((flagged, compared)) = regexp_fn::with_flags(f.name) {
            return self.call_regexp(flagged, compared, args, ty);
        }
        let mut derivation = match ty {
            SqlType::Text { .. } | SqlType::Bytes { .. } => super::collation::function_derivation(name, &args),
            _ => crate::charset::Derivation::Numeric,
        };
        // CONCAT(latin1_column, 'x') is latin1, CONCAT(utf8mb4_bin_column, '') compares and
        // sorts as utf8mb4_bin: the result's collation is its arguments' aggregate.
        let ty = match (&ty, self.function_result_collation(name, &args)?) {
            (SqlType::Text { .. } | SqlType::Bytes { .. }, Some(dt)) => {
                derivation = dt.derivation;
                super::collation::in_result_collation(ty, dt)
            }
            _ => ty,
        };
        // A JSON argument (a JSON column, a JSON function's result) is embedded as JSON, not
        // as a string: the function's variant is told which arguments are (functions::json).
        let variant = json_fn::with_json_args(f.name);
        let json_flags: Vec<bool> = match variant {
            Some(_) => args.iter().map(|a| self.is_json(a)).collect(),
            None => Vec::new(),
        };
        let flags: Vec<u8> = json_flags
            .iter()
            .enumerate()
            .map(|(i, j)| match (*j, booleans.get(i).copied().unwrap_or(false)) {
                (true, _) => json_fn::ARG_JSON,
                (false, true) => json_fn::ARG_BOOLEAN,
                (false, false) => json_fn::ARG_TEXT,
            })
            .collect();
        let (f, mut arg_exprs) = match variant {
            Some(variant) if flags.iter().any(|&f| f != json_fn::ARG_TEXT) => {
                (variant, vec![Expr::Literal(Value::Bytes(flags))])
            }
            _ => (f, Vec::new()),
        };
        arg_exprs.extend(args.into_iter().map(|a| a.expr));
        let mut call = Bound::new(Expr::Func { func: FuncRef(f), args: arg_exprs }, ty, !never_null(f.name));
        call.derivation = derivation;
        if let Some(collated) = collated {
            call = collated.apply(call);
        }
        // A TIME function's text shows the digits of its values; the result type's (a string
        // column argument's 6, say) are MariaDB's.
        if let (SqlType::Time { fsp }, true) = (&call.ty, value::functions::time::fsp_follows_type(f.name)) {
            call.expr = Expr::Cast { expr: call.expr.boxed(), target: CastTarget::Time { fsp: *fsp } };
        }
        Ok(call)
    }

    /// Whether MariaDB takes the expression for JSON (its is_json_type): a JSON function's
    /// result, or a column declared JSON.
    pub(super) fn is_json(&self, b: &Bound) -> bool {
        match (&b.expr, &b.origin) {
            (Expr::Func { func, .. }, _) => json_fn::returns_json(func.0.name),
            (Expr::Column(_) | Expr::Outer { .. }, Some(meta)) => self
                .env
                .catalog
                .table(&meta.schema, &meta.org_table)
                .and_then(|t| t.columns.iter().find(|c| c.name.eq_ignore_ascii_case(&meta.org_name)).cloned())
                .is_some_and(|c| matches!(c.ty, selkie_storage::ColumnType::Json)),
            _ => false,
        }
    }

    /// A JSON function's result compared with anything: MariaDB compares a JSON string by its
    /// unquoted text. When both sides are JSON only the left one is unquoted, as in MariaDB
    /// (`JSON_EXTRACT('"x"', '$') = JSON_EXTRACT('"x"', '$')` is 0 there).
    fn json_comparand(&self, l: Bound, r: Bound) -> (Bound, Bound) {
        let is_json_result =
            |b: &Bound| matches!(&b.expr, Expr::Func { func, .. } if json_fn::returns_json(func.0.name));
        let unquote = |b: Bound| Bound {
            expr: Expr::Func { func: FuncRef(&json_fn::JSON_COMPARE_TEXT), args: vec![b.expr] },
            ..b
        };
        if is_json_result(&l) {
            (unquote(l), r)
        } else if is_json_result(&r) {
            (l, unquote(r))
        } else {
            (l, r)
        }
    }

    /// NEXTVAL(s), LASTVAL(s), SETVAL(s, n [, used [, round]]): `s` names a sequence, which
    /// is resolved now (4091 unknown, 4089 not a sequence) and passed by name.
    fn bind_sequence_function(&mut self, upper: &str, args: &[&ast::Expr]) -> Result<Bound, SqlError> {
        let (func, arity) = match upper {
            "NEXTVAL" => (&crate::sequence::NEXTVAL, 1..=1),
            "LASTVAL" => (&crate::sequence::LASTVAL, 1..=1),
            _ => (&crate::sequence::SETVAL, 2..=4),
        };
        if !arity.contains(&args.len()) {
            return Err(error::wrong_param_count(upper));
        }
        let parts: Vec<String> = match args[0] {
            ast::Expr::Identifier(id) => vec![id.value.clone()],
            ast::Expr::CompoundIdentifier(ids) => ids.iter().map(|i| i.value.clone()).collect(),
            _ => return Err(error::syntax(&args[0].to_string(), 1)),
        };
        let (db, name) = match parts.as_slice() {
            [name] => (self.require_db()?.to_string(), name.clone()),
            [db, name] => (db.clone(), name.clone()),
            _ => return Err(error::syntax(&args[0].to_string(), 1)),
        };
        match self.env.catalog.table(&db, &name) {
            None => return Err(crate::sequence::unknown_sequence(&name)),
            Some(t) if t.options.sequence.is_none() => return Err(crate::sequence::not_a_sequence(&db, &name)),
            Some(_) => {}
        }
        let mut bound =
            vec![Expr::Literal(Value::Bytes(db.into_bytes())), Expr::Literal(Value::Bytes(name.into_bytes()))];
        for a in &args[1..] {
            bound.push(self.bind_expr(a)?.expr);
        }
        let ty = SqlType::Int { bits: 64, unsigned: false };
        Ok(Bound::new(Expr::Func { func: FuncRef(func), args: bound }, ty, true))
    }

    /// DEFAULT(col): the default of a base table column, for the current row (a DEFAULT (expr)
    /// reads the row's other columns). As in MariaDB: 1364 for a NOT NULL column without one,
    /// the implicit 0 for AUTO_INCREMENT, NULL for a generated column.
    fn bind_default_of(&mut self, args: &[&ast::Expr]) -> Result<Bound, SqlError> {
        let [arg] = args else { return Err(error::wrong_param_count("DEFAULT")) };
        let (qualifier, name): (Vec<String>, String) = match arg {
            ast::Expr::Identifier(i) => (Vec::new(), i.value.clone()),
            ast::Expr::CompoundIdentifier(ids) if ids.len() > 1 => {
                let n = ids.len() - 1;
                (ids[..n].iter().map(|i| i.value.clone()).collect(), ids[n].value.clone())
            }
            _ => return Err(error::syntax(&arg.to_string(), 1)),
        };
        let column = self.resolve_column(&qualifier, &name)?;
        let Expr::Column(index) = column.expr else {
            return Err(error::not_supported("DEFAULT() of an outer query's column"));
        };
        let scope = self.scope();
        let Some(si) = scope.source_of_column(index) else { return Err(error::internal("DEFAULT() column")) };
        let source = &scope.sources[si];
        let SourceKind::Table { table, .. } = &source.kind else {
            return Err(error::not_supported("DEFAULT() of a derived table's column"));
        };
        let table = table.clone();
        let col = &table.columns[index - source.offset];
        let literal = |v: Value| Bound::new(Expr::Literal(v), column.ty.clone(), true);
        if col.generated.is_some() {
            return Ok(literal(Value::Null));
        }
        if col.auto_increment {
            return Ok(literal(value::implicit_default(&col.ty)));
        }
        match &col.default {
            ColumnDefault::Value(v) => Ok(literal(v.clone())),
            ColumnDefault::None if col.nullable => Ok(literal(Value::Null)),
            ColumnDefault::None => Err(error::no_default(&col.name)),
            ColumnDefault::CurrentTimestamp => self.call_function("NOW", Vec::new()),
            ColumnDefault::Expression(text) => {
                // Bound with only the column's table visible, so that its names mean that
                // table's columns whatever else the query joins.
                let parsed = crate::parse::stored_expr::parse_expr(text)?;
                let only = self.scope().sources[si].clone();
                let saved = std::mem::replace(&mut self.scope_mut().sources, vec![only]);
                let bound = self.bind_expr(&parsed);
                self.scope_mut().sources = saved;
                bound
            }
        }
    }

    fn bind_function(&mut self, f: &ast::Function) -> Result<Bound, SqlError> {
        if let Some(over) = &f.over {
            return self.bind_window_function(f, over);
        }
        let name = match f.name.0.as_slice() {
            [ast::ObjectNamePart::Identifier(id)] => id.value.clone(),
            _ => return Err(error::not_supported(&format!("function {}", f.name))),
        };
        let upper = name.to_ascii_uppercase();
        let list = match &f.args {
            ast::FunctionArguments::None => None,
            ast::FunctionArguments::List(l) => Some(l),
            ast::FunctionArguments::Subquery(_) => return Err(error::syntax(&f.to_string(), 1)),
        };
        let empty = ast::FunctionArgumentList { duplicate_treatment: None, args: Vec::new(), clauses: Vec::new() };
        let list = list.unwrap_or(&empty);
        if let Some(agg) = value::lookup_aggregate(&upper) {
            return self.bind_aggregate(agg, &upper, list);
        }
        if upper == "JSON_ARRAYAGG" || upper == "JSON_OBJECTAGG" {
            return self.bind_json_aggregate(&upper, list);
        }
        if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
            return Err(error::syntax(&f.to_string(), 1));
        }
        let mut args: Vec<&ast::Expr> = Vec::with_capacity(list.args.len());
        for a in &list.args {
            match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => args.push(e),
                _ => return Err(error::syntax(&f.to_string(), 1)),
            }
        }
        if let Some(bound) = self.bind_collation_function(&upper, &args) {
            return bound;
        }
        match upper.as_str() {
            "NEXTVAL" | "LASTVAL" | "SETVAL" => self.bind_sequence_function(&upper, &args),
            "DEFAULT" => self.bind_default_of(&args),
            "IF" => {
                if args.len() != 3 {
                    return Err(error::wrong_param_count(&name));
                }
                let c = self.bind_condition(args[0])?;
                let a = self.bind_expr(args[1])?;
                let b = self.bind_expr(args[2])?;
                fixed_binary_operands::check_operands_meet(&[&a, &b], "if")?;
                let ty = SqlType::unify(&a.ty, &b.ty);
                let result = self.string_result_collation(&[&a, &b], "if")?;
                let nullable = a.nullable || b.nullable;
                let (a, b) = (self.as_result_of_type(a, &ty), self.as_result_of_type(b, &ty));
                let case = Expr::Case { operand: None, whens: vec![(c.expr, a.expr)], otherwise: Some(b.expr.boxed()) };
                Ok(with_result_collation(Bound::new(case, ty, nullable), result))
            }
            "IFNULL" | "NVL" | "COALESCE" => {
                if upper != "COALESCE" && args.len() != 2 || args.is_empty() {
                    return Err(error::wrong_param_count(&name));
                }
                let mut bound = Vec::with_capacity(args.len());
                for a in &args {
                    bound.push(self.bind_expr(a)?);
                }
                let refs: Vec<&Bound> = bound.iter().collect();
                fixed_binary_operands::check_operands_meet(&refs, &upper.to_ascii_lowercase())?;
                let mut ty = bound[0].ty.clone();
                for b in &bound[1..] {
                    ty = SqlType::unify(&ty, &b.ty);
                }
                let operation = if upper == "COALESCE" { "coalesce" } else { "ifnull" };
                let result = self.string_result_collation(&refs, operation)?;
                let nullable = bound.iter().all(|b| b.nullable);
                let mut it = bound.into_iter().rev();
                let last = it.next().map(|b| self.as_result_of_type(b, &ty).expr).unwrap_or(Expr::Literal(Value::Null));
                // COALESCE(a, b, c) = CASE WHEN a IS NOT NULL THEN a WHEN b IS NOT NULL THEN b ELSE c
                let mut whens: Vec<(Expr, Expr)> = it
                    .map(|b| {
                        let test = Expr::IsNull { expr: b.expr.clone().boxed(), negated: true };
                        (test, self.as_result_of_type(b, &ty).expr)
                    })
                    .collect();
                whens.reverse();
                if whens.is_empty() {
                    return Ok(with_result_collation(Bound::new(last, ty, nullable), result));
                }
                let case = Expr::Case { operand: None, whens, otherwise: Some(last.boxed()) };
                Ok(with_result_collation(Bound::new(case, ty, nullable), result))
            }
            "NULLIF" => {
                if args.len() != 2 {
                    return Err(error::wrong_param_count(&name));
                }
                let a = self.bind_expr(args[0])?;
                let b = self.bind_expr(args[1])?;
                let ty = a.ty.clone();
                let value = a.expr.clone();
                // Collations that cannot meet are refused naming NULLIF; the test itself is `=`
                // with its coercions (an ENUM beside a number its index, a TIME a time...).
                self.collated_operands(vec![a, b], "nullif")?;
                let cond = self.bind_comparison(CmpOp::Eq, args[0], args[1])?.expr;
                Ok(Bound::new(
                    Expr::Case {
                        operand: None,
                        whens: vec![(cond, Expr::Literal(Value::Null))],
                        otherwise: Some(value.boxed()),
                    },
                    ty,
                    true,
                ))
            }
            "LAST_INSERT_ID" => {
                let ty = SqlType::Int { bits: 64, unsigned: true };
                match args.as_slice() {
                    [] => Ok(Bound::new(Expr::LastInsertId(None), ty, false)),
                    [a] => {
                        let b = self.bind_expr(a)?;
                        Ok(Bound::new(Expr::LastInsertId(Some(b.expr.boxed())), ty, b.nullable))
                    }
                    _ => Err(error::wrong_param_count(&name)),
                }
            }
            "DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE" => {
                if args.len() != 2 {
                    return Err(error::wrong_param_count(&name));
                }
                let negate = upper == "DATE_SUB" || upper == "SUBDATE";
                match args[1] {
                    ast::Expr::Interval(iv) => self.bind_date_add(args[0], iv, negate),
                    days if upper == "ADDDATE" || upper == "SUBDATE" => {
                        let b = self.bind_expr(args[0])?;
                        let amount = self.bind_expr(days)?;
                        let ty = date_add_type(&b.ty, IntervalUnit::Day);
                        Ok(Bound::new(
                            Expr::DateAdd {
                                base: b.expr.boxed(),
                                amount: amount.expr.boxed(),
                                unit: IntervalUnit::Day,
                                negate,
                            },
                            ty,
                            true,
                        ))
                    }
                    other => Err(error::syntax(&other.to_string(), 1)),
                }
            }
            "TIMESTAMPDIFF" | "TIMESTAMPADD" => {
                // The unit is a keyword (TIMESTAMPDIFF(SECOND, a, b)); the function takes its
                // name as a string first argument.
                let unit = match args.first() {
                    Some(ast::Expr::Identifier(i))
                        if i.quote_style.is_none() && value::parse_interval_unit(i.value.as_bytes()).is_some() =>
                    {
                        i.value.to_ascii_uppercase()
                    }
                    _ => return Err(error::syntax(&f.to_string(), 1)),
                };
                let mut bound =
                    vec![Bound::new(Expr::Literal(Value::Bytes(unit.into_bytes())), SqlType::text(16, false), false)];
                for a in &args[1..] {
                    bound.push(self.bind_expr(a)?);
                }
                self.call_function(&upper, bound)
            }
            "VALUES" | "VALUE" if self.values_base.is_some() => {
                let [ast::Expr::Identifier(col)] = args.as_slice() else {
                    return Err(error::syntax(&f.to_string(), 1));
                };
                self.bind_values_reference(&col.value)
            }
            _ => {
                let owned: Vec<ast::Expr> = args.into_iter().cloned().collect();
                self.bind_named_function(&name, &owned)
            }
        }
    }

    fn bind_aggregate(
        &mut self,
        func: AggFunc,
        name: &str,
        list: &ast::FunctionArgumentList,
    ) -> Result<Bound, SqlError> {
        {
            let scope = self.scope();
            if !scope.allow_aggs || scope.in_agg {
                return Err(error::invalid_group_function());
            }
        }
        let distinct = matches!(list.duplicate_treatment, Some(ast::DuplicateTreatment::Distinct));
        let mut func = func;
        let mut arg_asts: Vec<&ast::Expr> = Vec::new();
        for a in &list.args {
            match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => arg_asts.push(e),
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)
                    if func == AggFunc::Count && !distinct && list.args.len() == 1 =>
                {
                    func = AggFunc::CountStar;
                }
                _ => return Err(error::syntax(name, 1)),
            }
        }
        let multi_ok = func == AggFunc::GroupConcat || (func == AggFunc::Count && distinct);
        match (func, arg_asts.len()) {
            (AggFunc::CountStar, 0) => {}
            (_, 0) => return Err(error::syntax(&format!("{name}()"), 1)),
            (_, 1) => {}
            (_, _) if multi_ok => {}
            _ => return Err(error::syntax(name, 1)),
        }
        self.scope_mut().in_agg = true;
        let bound: Result<Vec<Bound>, SqlError> = arg_asts.iter().map(|a| self.bind_expr(a)).collect();
        let mut order = Vec::new();
        let mut separator = DEFAULT_GROUP_CONCAT_SEPARATOR.to_vec();
        let mut clause_result = Ok(());
        if bound.is_ok() {
            for c in &list.clauses {
                match c {
                    ast::FunctionArgumentClause::OrderBy(items) if func == AggFunc::GroupConcat => {
                        for it in items {
                            // ORDER BY n names the n-th argument, as in MariaDB.
                            let positional = match (&it.expr, &bound) {
                                (ast::Expr::Value(v), Ok(args)) => match &v.value {
                                    ast::Value::Number(n, _) => Some(
                                        n.parse::<usize>()
                                            .ok()
                                            .filter(|i| (1..=args.len()).contains(i))
                                            .map(|i| args[i - 1].clone())
                                            .ok_or_else(|| error::unknown_column(n, error::Clause::OrderBy)),
                                    ),
                                    _ => None,
                                },
                                _ => None,
                            };
                            match positional.unwrap_or_else(|| self.bind_expr(&it.expr)) {
                                // Sorted as ORDER BY sorts: strings by their collation's sort key.
                                Ok(b) => order.push((
                                    crate::bind::collation::ordering_key(b.expr, &b.ty),
                                    it.options.sort == Some(ast::OrderBySort::Desc),
                                )),
                                Err(e) => {
                                    clause_result = Err(e);
                                    break;
                                }
                            }
                        }
                    }
                    ast::FunctionArgumentClause::Separator(v) if func == AggFunc::GroupConcat => match &v.value {
                        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                            separator = s.as_bytes().to_vec()
                        }
                        _ => clause_result = Err(error::syntax("SEPARATOR", 1)),
                    },
                    _ => clause_result = Err(error::syntax(name, 1)),
                }
            }
        }
        self.scope_mut().in_agg = false;
        let mut bound = bound?;
        clause_result?;
        if func == AggFunc::GroupConcat {
            // GROUP_CONCAT joins strings: a ZEROFILL column as its padded text, a FLOAT as a float.
            bound = bound.into_iter().map(|b| self.as_text_read(b)).collect();
        }
        // SUM(e), AVG(e), BIT_OR(e)... of an ENUM / SET read its index / bit mask.
        if matches!(
            func,
            AggFunc::Sum
                | AggFunc::Avg
                | AggFunc::BitAnd
                | AggFunc::BitOr
                | AggFunc::BitXor
                | AggFunc::StdDev
                | AggFunc::Variance
        ) {
            let distinct_word = if distinct { "distinct " } else { "" };
            let operation = format!("{}({distinct_word}", name.to_ascii_lowercase());
            for b in &bound {
                fixed_binary_operands::check_number_operand(b, &operation)?;
            }
            bound = bound.into_iter().map(|b| self.as_number_read(b)).collect::<Result<_, _>>()?;
        }
        let arg_type = bound.first().map(|b| b.ty.clone()).unwrap_or(SqlType::Int { bits: 64, unsigned: false });
        let mut ty = value::aggregate_type(func, &arg_type);
        // GROUP_CONCAT(latin1_column) is latin1, of its arguments' aggregate collation; MIN and
        // MAX keep their argument's derivation.
        let mut derivation = bound.first().map(|b| b.derivation);
        if func == AggFunc::GroupConcat && matches!(ty, SqlType::Text { .. } | SqlType::Bytes { .. }) {
            let refs: Vec<&Bound> = bound.iter().collect();
            let result = self.string_result_collation(&refs, "group_concat")?;
            ty = super::collation::in_result_collation(ty, result);
            derivation = Some(result.derivation);
        }
        let nullable = !matches!(func, AggFunc::Count | AggFunc::CountStar);
        // COUNT(DISTINCT s) counts values distinct under their collation ('a' and 'A' are one
        // under a `_ci` one): it counts their sort keys, which only the identity of matters.
        let distinct_keys = func == AggFunc::Count && distinct;
        let args = bound
            .into_iter()
            .map(|b| if distinct_keys { super::collation::ordering_key(b.expr, &b.ty) } else { b.expr })
            .collect();
        let spec = AggSpec { func, args, arg_type, distinct, separator, order };
        let scope = self.scope_mut();
        // The same aggregate written twice is computed once.
        let idx = match scope.aggs.iter().position(|a| *a == spec) {
            Some(i) => i,
            None => {
                scope.aggs.push(spec);
                scope.aggs.len() - 1
            }
        };
        let mut agg = Bound::new(Expr::AggRef(idx), ty, nullable);
        if let (true, Some(d)) = (matches!(agg.ty, SqlType::Text { .. } | SqlType::Bytes { .. }), derivation) {
            agg.derivation = d;
        }
        Ok(agg)
    }
}

fn strip_nested(e: &ast::Expr) -> &ast::Expr {
    match e {
        ast::Expr::Nested(inner) => strip_nested(inner),
        other => other,
    }
}

/// DATE_ADD's result type: a DATE stays a DATE for day-or-larger units, anything else becomes
/// a DATETIME (with microseconds when the unit or the base has them).
fn date_add_type(base: &SqlType, unit: IntervalUnit) -> SqlType {
    let day_or_more = matches!(
        unit,
        IntervalUnit::Day | IntervalUnit::Week | IntervalUnit::Month | IntervalUnit::Quarter | IntervalUnit::Year
    );
    match base {
        SqlType::Date if day_or_more => SqlType::Date,
        SqlType::DateTime { fsp } | SqlType::Timestamp { fsp } => {
            SqlType::DateTime { fsp: if unit == IntervalUnit::Microsecond { 6 } else { *fsp } }
        }
        _ => SqlType::DateTime { fsp: if unit == IntervalUnit::Microsecond { 6 } else { 0 } },
    }
}

/// `b` converted by `target` (a TIME operand made comparable or numeric).
fn time_operand(b: Bound, target: CastTarget) -> Bound {
    let ty = value::cast_type(target);
    Bound::new(Expr::Cast { expr: b.expr.boxed(), target }, ty, true)
}

/// What the strings among BETWEEN's operands are read as when a number is among them:
/// MariaDB's comparison type aggregated left to right, where a string and an integer give
/// DECIMAL and a string with a DECIMAL or a DOUBLE gives DOUBLE.
fn between_number_type(operands: &[&Bound]) -> CastTarget {
    #[derive(Clone, Copy, PartialEq)]
    enum Kind {
        Str,
        Int,
        Dec,
        Dbl,
    }
    let kind = |b: &Bound| match b.ty {
        SqlType::Int { .. } | SqlType::Bit { .. } => Kind::Int,
        SqlType::Decimal { .. } => Kind::Dec,
        SqlType::Float | SqlType::Double => Kind::Dbl,
        _ => Kind::Str,
    };
    let mut acc: Option<Kind> = None;
    for b in operands.iter().filter(|b| !matches!(b.ty, SqlType::Null)) {
        let k = kind(b);
        acc = Some(match (acc, k) {
            (None, k) => k,
            (Some(a), k) if a == k => a,
            (Some(Kind::Dbl), _) | (Some(_), Kind::Dbl) => Kind::Dbl,
            (Some(Kind::Str), Kind::Int) | (Some(Kind::Int), Kind::Str) => Kind::Dec,
            (Some(Kind::Str), Kind::Dec) | (Some(Kind::Dec), Kind::Str) => Kind::Dbl,
            _ => Kind::Dec,
        });
    }
    match acc {
        Some(Kind::Dbl) => CastTarget::Double,
        _ => CastTarget::Decimal { precision: 65, scale: 30 },
    }
}

/// The arguments of string function `name` that it reads as numbers (lengths, counts,
/// positions, ELT's index): an ENUM there is its index, a SET its mask, a TIME its HHMMSS, as
/// MariaDB's val_int of them (LPAD('1', e, 'x') pads to e's index, not to the 0 of its text).
fn number_positions(name: &str) -> Option<&'static [usize]> {
    Some(match name {
        "LEFT" | "RIGHT" | "REPEAT" | "LPAD" | "RPAD" => &[1],
        "SUBSTRING" | "SUBSTR" | "MID" | "INSERT" => &[1, 2],
        "SUBSTRING_INDEX" | "LOCATE" => &[2],
        "ELT" | "SPACE" | "MAKE_SET" => &[0],
        "EXPORT_SET" => &[0, 3],
        "FORMAT" => &[1],
        _ => return None,
    })
}

/// A TIME operand of arithmetic as MariaDB's number HHMMSS[.f]; anything else as it is.
fn time_as_number(b: Bound) -> Bound {
    match b.ty {
        SqlType::Time { fsp } => time_operand(b, CastTarget::TimeNumber { fsp }),
        _ => b,
    }
}

/// Whether MariaDB types the expression as boolean (its is_bool_type): TRUE / FALSE, the
/// predicates (comparisons, IS, LIKE, IN, BETWEEN, EXISTS, NOT, AND, OR, XOR), and IF, IFNULL,
/// COALESCE and CASE whose results all are. JSON functions print such a value as true / false.
fn is_boolean(e: &ast::Expr) -> bool {
    use ast::BinaryOperator as B;
    use ast::Expr as E;
    match e {
        E::Value(v) => matches!(v.value, ast::Value::Boolean(_)),
        E::Nested(inner) => is_boolean(inner),
        E::BinaryOp { op, .. } => {
            matches!(op, B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq | B::Spaceship | B::And | B::Or | B::Xor)
        }
        E::UnaryOp { op: ast::UnaryOperator::Not, .. } => true,
        E::IsNull(_)
        | E::IsNotNull(_)
        | E::IsTrue(_)
        | E::IsNotTrue(_)
        | E::IsFalse(_)
        | E::IsNotFalse(_)
        | E::IsUnknown(_)
        | E::IsNotUnknown(_)
        | E::Like { .. }
        | E::ILike { .. }
        | E::RLike { .. }
        | E::InList { .. }
        | E::InSubquery { .. }
        | E::Between { .. }
        | E::Exists { .. } => true,
        E::Case { conditions, else_result, .. } => {
            conditions.iter().all(|w| is_boolean(&w.result)) && else_result.as_deref().is_none_or(is_boolean)
        }
        E::Function(f) => {
            let name = f.name.to_string().to_ascii_uppercase();
            let ast::FunctionArguments::List(list) = &f.args else { return false };
            let args: Vec<&ast::Expr> = list
                .args
                .iter()
                .filter_map(|a| match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Some(e),
                    _ => None,
                })
                .collect();
            match name.as_str() {
                "IF" => args.len() == 3 && is_boolean(args[1]) && is_boolean(args[2]),
                "IFNULL" | "COALESCE" => !args.is_empty() && args.iter().all(|a| is_boolean(a)),
                _ => false,
            }
        }
        _ => false,
    }
}

/// `b`, a function's string result, in the collation and derivation its arguments
/// aggregate to (`Binder::string_result_collation`); anything else as it is.
fn with_result_collation(mut b: Bound, result: super::collation::DtCollation) -> Bound {
    if matches!(b.ty, SqlType::Text { .. } | SqlType::Bytes { .. }) {
        b.ty = super::collation::in_result_collation(b.ty, result);
        b.derivation = result.derivation;
    }
    b
}

/// Functions MariaDB marks NOT NULL whatever their arguments (the clock, PI, RAND and the
/// session counters): their result columns carry NOT_NULL, and CREATE TABLE ... SELECT makes
/// NOT NULL columns of them. Checked one by one against MariaDB 10.11.
fn never_null(name: &str) -> bool {
    const NEVER_NULL: &[&str] = &[
        "NOW",
        "CURRENT_TIMESTAMP",
        "LOCALTIME",
        "LOCALTIMESTAMP",
        "SYSDATE",
        "UTC_TIMESTAMP",
        "CURDATE",
        "CURRENT_DATE",
        "UTC_DATE",
        "CURTIME",
        "CURRENT_TIME",
        "UTC_TIME",
        "PI",
        "RAND",
        "CONNECTION_ID",
        "VERSION",
        "LAST_INSERT_ID",
        "ROW_COUNT",
        "FOUND_ROWS",
    ];
    NEVER_NULL.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_parse_like_mysql_literals() {
        assert_eq!(parse_number("42"), Value::Int(42));
        assert_eq!(parse_number("18446744073709551615"), Value::UInt(u64::MAX));
        assert_eq!(parse_number("1.50"), Value::Decimal(Decimal::new(150, 2)));
        assert_eq!(parse_number(".5"), Value::Decimal(Decimal::new(5, 1)));
        assert_eq!(parse_number("1e3"), Value::Double(1000.0));
        assert_eq!(
            parse_number("123456789012345678901234567890"),
            Value::Decimal(Decimal::new(123456789012345678901234567890, 0))
        );
    }

    #[test]
    fn hex_and_bit_literals() {
        assert_eq!(decode_hex("41"), Some(b"A".to_vec()));
        assert_eq!(decode_hex("141"), Some(vec![1, 0x41]));
        assert_eq!(decode_hex("zz"), None);
        assert_eq!(decode_bits("01000001"), Some(b"A".to_vec()));
        assert_eq!(decode_bits("1"), Some(vec![1]));
        assert_eq!(decode_bits("100000000"), Some(vec![1, 0]));
        assert_eq!(decode_bits("12"), None);
    }
}
