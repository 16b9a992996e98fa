//! REGEXP, REGEXP_REPLACE, REGEXP_INSTR and REGEXP_SUBSTR calls: which twin of the function
//! runs (value::functions::regexp) follows the collation their string operands aggregate to,
//! as MariaDB's Regexp_processor_pcre decides it; a constant pattern is compiled here.

use super::binder::{Binder, Bound};
use crate::error::SqlError;
use crate::plan::{Expr, FuncRef};
use crate::types::Value;
use crate::value::functions::regexp as regexp_fn;
use crate::value::{self, SqlType};

impl Binder<'_> {
    /// REGEXP and its family: compiled as the collation of their string operands says, told
    /// by a leading literal (functions::regexp); a constant pattern PCRE2 refuses is an error
    /// now, whether or not a row is read, as in MariaDB.
    pub(super) fn call_regexp(
        &mut self,
        flagged: &'static value::ScalarFunction,
        compared: usize,
        args: Vec<Bound>,
        ty: SqlType,
    ) -> Result<Bound, SqlError> {
        let operands: Vec<&Bound> = args.iter().take(compared).collect();
        let mode =
            regexp_fn::mode_of(self.string_operands_collation(&operands, flagged.name.to_ascii_lowercase().as_str())?);
        if let Expr::Literal(pattern) = &args[1].expr {
            if !pattern.is_null() {
                regexp_fn::compile(&value::to_text_bytes(pattern).unwrap_or_default(), mode)?;
            }
        }
        // REGEXP and REGEXP_INSTR are NULL only for a NULL operand (MariaDB's NOT_NULL flag).
        let is_int = matches!(ty, SqlType::Int { .. });
        let nullable = !is_int || args.iter().any(|a| a.nullable);
        // REGEXP_REPLACE and REGEXP_SUBSTR return text in the collation all their string
        // arguments aggregate to (MariaDB's agg_arg_charsets_for_string_result_with_comparison).
        let (ty, derivation) = match ty {
            SqlType::Text { .. } | SqlType::Bytes { .. } => {
                let all: Vec<&Bound> = args.iter().collect();
                let operation = flagged.name.to_ascii_lowercase();
                let result = self.string_result_collation(&all, &operation)?;
                (super::collation::in_result_collation(ty, result), result.derivation)
            }
            other => (other, crate::charset::Derivation::Numeric),
        };
        let mut mode = mode.to_vec();
        if matches!(args[1].expr, Expr::Param(_)) {
            mode.push(regexp_fn::CONSTANT_PATTERN);
        }
        let mut exprs = vec![Expr::Literal(Value::Bytes(mode))];
        exprs.extend(args.into_iter().map(|a| a.expr));
        let mut call = Bound::new(Expr::Func { func: FuncRef(flagged), args: exprs }, ty, nullable);
        call.derivation = derivation;
        Ok(call)
    }
}
