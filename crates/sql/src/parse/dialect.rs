//! The SQL dialect sqlparser parses with: MySQL's, plus MariaDB's `!` (logical NOT binding
//! tighter than any binary operator: `!1 + 1` is `(!1) + 1`, 1), which sqlparser's MySqlDialect
//! rejects, MariaDB's precedence of `BINARY x` (a cast of `x` alone), and the column option
//! `CHARSET cs` (MariaDB's shorthand for CHARACTER SET; sqlparser knows only the long form).
//!
//! Everything else is MySqlDialect's: each method it overrides is forwarded, and `dialect()`
//! answers MySqlDialect's type so that the parser's `dialect_of!(self is MySqlDialect)` checks
//! hold. A method MySqlDialect starts overriding in a newer sqlparser must be forwarded here too
//! (`forwards_every_mysql_override` compares the two on sample statements).

use std::any::TypeId;

use sqlparser::ast::{CastKind, ColumnOption, DataType, Expr, Statement, UnaryOperator};
use sqlparser::dialect::{Dialect, MySqlDialect};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// Binds tighter than every binary operator, so `!` takes only the operand after it.
const BANG_OPERAND_PRECEDENCE: u8 = 100;

#[derive(Debug, Default)]
pub struct MariaDbDialect {
    mysql: MySqlDialect,
}

impl MariaDbDialect {
    pub const fn new() -> MariaDbDialect {
        MariaDbDialect { mysql: MySqlDialect {} }
    }
}

impl Dialect for MariaDbDialect {
    fn dialect(&self) -> TypeId {
        TypeId::of::<MySqlDialect>()
    }

    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        let bangs = match &parser.peek_token_ref().token {
            Token::ExclamationMark => 1,
            // `!!x` comes as one token.
            Token::DoubleExclamationMark => 2,
            // `BINARY x` casts only its operand (`BINARY 'a' = 'A'` is 0), where sqlparser
            // would cast the whole comparison.
            Token::Word(w) if w.keyword == Keyword::BINARY => {
                parser.next_token();
                return Some(parser.parse_subexpr(BANG_OPERAND_PRECEDENCE).map(|operand| Expr::Cast {
                    kind: CastKind::Cast,
                    expr: Box::new(operand),
                    data_type: DataType::Binary(None),
                    format: None,
                }));
            }
            _ => return None,
        };
        parser.next_token();
        let operand = match parser.parse_subexpr(BANG_OPERAND_PRECEDENCE) {
            Ok(e) => e,
            Err(e) => return Some(Err(e)),
        };
        let mut expr = operand;
        for _ in 0..bangs {
            expr = Expr::UnaryOp { op: UnaryOperator::BangNot, expr: Box::new(expr) };
        }
        Some(Ok(expr))
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        self.mysql.is_identifier_start(ch)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        self.mysql.is_identifier_part(ch)
    }
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        self.mysql.is_delimited_identifier_start(ch)
    }
    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        self.mysql.identifier_quote_style(identifier)
    }
    fn supports_string_literal_backslash_escape(&self) -> bool {
        self.mysql.supports_string_literal_backslash_escape()
    }
    fn supports_string_literal_concatenation(&self) -> bool {
        self.mysql.supports_string_literal_concatenation()
    }
    fn ignores_wildcard_escapes(&self) -> bool {
        self.mysql.ignores_wildcard_escapes()
    }
    fn supports_numeric_prefix(&self) -> bool {
        self.mysql.supports_numeric_prefix()
    }
    fn supports_bitwise_shift_operators(&self) -> bool {
        self.mysql.supports_bitwise_shift_operators()
    }
    fn supports_multiline_comment_hints(&self) -> bool {
        self.mysql.supports_multiline_comment_hints()
    }
    fn parse_infix(&self, parser: &mut Parser, expr: &Expr, precedence: u8) -> Option<Result<Expr, ParserError>> {
        if let Some(parsed) = self.mysql.parse_infix(parser, expr, precedence) {
            return Some(parsed);
        }
        // `x [NOT] REGEXP NULL`: sqlparser would take the NULL for the one of `NOT NULL` and
        // match the next word as the pattern.
        let is_regexp =
            |t: &Token| matches!(t, Token::Word(w) if matches!(w.keyword, Keyword::REGEXP | Keyword::RLIKE));
        let negated = matches!(&parser.peek_token_ref().token, Token::Word(w) if w.keyword == Keyword::NOT);
        let at = usize::from(negated);
        let null_follows =
            matches!(&parser.peek_nth_token_ref(at + 1).token, Token::Word(w) if w.keyword == Keyword::NULL);
        if !is_regexp(&parser.peek_nth_token_ref(at).token) || !null_follows {
            return None;
        }
        if negated {
            parser.next_token();
        }
        let regexp = parser.parse_one_of_keywords(&[Keyword::REGEXP, Keyword::RLIKE]) == Some(Keyword::REGEXP);
        let pattern = match parser.parse_subexpr(self.prec_value(sqlparser::dialect::Precedence::Like)) {
            Ok(p) => p,
            Err(e) => return Some(Err(e)),
        };
        Some(Ok(Expr::RLike { negated, expr: Box::new(expr.clone()), pattern: Box::new(pattern), regexp }))
    }
    fn parse_statement(&self, parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
        self.mysql.parse_statement(parser)
    }
    fn parse_column_option(
        &self,
        parser: &mut Parser,
    ) -> Result<Option<Result<Option<ColumnOption>, ParserError>>, ParserError> {
        // `c varchar(10) CHARSET latin1` in CREATE TABLE / ALTER TABLE: CHARACTER SET latin1.
        if parser.parse_keyword(Keyword::CHARSET) {
            return Ok(Some(parser.parse_object_name(false).map(|n| Some(ColumnOption::CharacterSet(n)))));
        }
        self.mysql.parse_column_option(parser)
    }
    fn require_interval_qualifier(&self) -> bool {
        self.mysql.require_interval_qualifier()
    }
    fn supports_limit_comma(&self) -> bool {
        self.mysql.supports_limit_comma()
    }
    fn supports_create_table_select(&self) -> bool {
        self.mysql.supports_create_table_select()
    }
    fn supports_insert_set(&self) -> bool {
        self.mysql.supports_insert_set()
    }
    fn supports_user_host_grantee(&self) -> bool {
        self.mysql.supports_user_host_grantee()
    }
    fn is_table_factor_alias(&self, explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool {
        self.mysql.is_table_factor_alias(explicit, kw, parser)
    }
    fn supports_table_hints(&self) -> bool {
        self.mysql.supports_table_hints()
    }
    fn requires_single_line_comment_whitespace(&self) -> bool {
        self.mysql.requires_single_line_comment_whitespace()
    }
    fn supports_match_against(&self) -> bool {
        self.mysql.supports_match_against()
    }
    fn supports_select_modifiers(&self) -> bool {
        self.mysql.supports_select_modifiers()
    }
    fn supports_set_names(&self) -> bool {
        self.mysql.supports_set_names()
    }
    fn supports_comma_separated_set_assignments(&self) -> bool {
        self.mysql.supports_comma_separated_set_assignments()
    }
    fn supports_update_order_by(&self) -> bool {
        self.mysql.supports_update_order_by()
    }
    fn supports_data_type_signed_suffix(&self) -> bool {
        self.mysql.supports_data_type_signed_suffix()
    }
    fn supports_cross_join_constraint(&self) -> bool {
        self.mysql.supports_cross_join_constraint()
    }
    fn supports_double_ampersand_operator(&self) -> bool {
        self.mysql.supports_double_ampersand_operator()
    }
    fn supports_binary_kw_as_cast(&self) -> bool {
        self.mysql.supports_binary_kw_as_cast()
    }
    fn supports_comment_optimizer_hint(&self) -> bool {
        self.mysql.supports_comment_optimizer_hint()
    }
    fn supports_constraint_keyword_without_name(&self) -> bool {
        self.mysql.supports_constraint_keyword_without_name()
    }
    fn supports_key_column_option(&self) -> bool {
        self.mysql.supports_key_column_option()
    }
    fn supports_group_by_with_modifier(&self) -> bool {
        self.mysql.supports_group_by_with_modifier()
    }
    fn supports_left_associative_joins_without_parens(&self) -> bool {
        self.mysql.supports_left_associative_joins_without_parens()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(dialect: &dyn Dialect, sql: &str) -> String {
        match Parser::parse_sql(dialect, sql) {
            Ok(stmts) => stmts.iter().map(ToString::to_string).collect::<Vec<_>>().join(";"),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn bang_is_a_tight_not() {
        let d = MariaDbDialect::new();
        assert_eq!(parse(&d, "SELECT !1 + 1"), "SELECT !1 + 1");
        let Ok(stmts) = Parser::parse_sql(&d, "SELECT !1 + 1") else { panic!() };
        let text = format!("{:?}", stmts[0]);
        // `(!1) + 1`: the addition is the outer node.
        assert!(text.find("BinaryOp").unwrap() < text.find("BangNot").unwrap(), "{text}");
        assert_eq!(parse(&d, "SELECT 1 != 2"), "SELECT 1 <> 2");
        assert!(parse(&d, "SELECT !!1").contains("!!1"));
        assert_eq!(parse(&d, "SELECT 'a' REGEXP NULL h"), "SELECT 'a' REGEXP NULL AS h");
        assert_eq!(parse(&d, "SELECT BINARY 'a' = 'A'"), "SELECT CAST('a' AS BINARY) = 'A'");
        assert_eq!(parse(&d, "SELECT BINARY('a') LIKE 'A'"), "SELECT CAST(('a') AS BINARY) LIKE 'A'");
        assert_eq!(parse(&d, "SELECT 'a' NOT RLIKE NULL, a IS NOT NULL"), "SELECT 'a' NOT RLIKE NULL, a IS NOT NULL");
        assert_eq!(
            parse(&d, "CREATE TABLE t (c VARCHAR(5) CHARSET latin1 NOT NULL)"),
            "CREATE TABLE t (c VARCHAR(5) CHARACTER SET latin1 NOT NULL)"
        );
    }

    /// Statements that use MySqlDialect's own parsing parse the same with the wrapper.
    #[test]
    fn forwards_every_mysql_override() {
        let samples = [
            "SELECT `a` FROM t LIMIT 1, 2",
            "SELECT 7 DIV 2, 1 << 2, a && b, 'x' 'y', 'a\\'b'",
            "INSERT INTO t SET a = 1",
            "CREATE TABLE t2 SELECT * FROM t",
            "LOCK TABLES t READ",
            "UNLOCK TABLES",
            "SELECT SQL_CALC_FOUND_ROWS a FROM t USE INDEX (i) WHERE MATCH (a) AGAINST ('x')",
            "UPDATE t SET a = 1 ORDER BY a LIMIT 1",
            "SET NAMES utf8mb4",
            "SELECT CAST(a AS SIGNED INTEGER), BINARY 'a' FROM t GROUP BY a WITH ROLLUP",
            "SELECT * FROM a CROSS JOIN b ON a.x = b.x",
            "SELECT a REGEXP 'b', a RLIKE 'c' FROM t",
            "SELECT a FROM t -- comment\n",
            "GRANT SELECT ON db.* TO 'u'@'h'",
        ];
        for sql in samples {
            assert_eq!(parse(&MariaDbDialect::new(), sql), parse(&MySqlDialect {}, sql), "{sql}");
        }
    }
}
