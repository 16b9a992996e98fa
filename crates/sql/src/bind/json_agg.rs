//! JSON_ARRAYAGG and JSON_OBJECTAGG, bound as MariaDB implements them: a GROUP_CONCAT (so
//! group_concat_max_len, DISTINCT and ORDER BY behave alike) of each row's JSON text, between
//! brackets. JSON_ARRAYAGG joins elements with ',' (`[11,31]`), JSON_OBJECTAGG members with
//! ', ' (`{"1":11, "3":31}`), as MariaDB prints them; a NULL key skips its row.

use sqlparser::ast;

use super::binder::{Binder, Bound};
use crate::error::{self, SqlError};
use crate::plan::{AggSpec, Expr, FuncRef};
use crate::types::Value;
use crate::value::functions::json::{JSON_AGG_ELEMENT, JSON_AGG_KEY};
use crate::value::{self, AggFunc, SqlType};

impl Binder<'_> {
    /// `upper` is JSON_ARRAYAGG or JSON_OBJECTAGG.
    pub(super) fn bind_json_aggregate(
        &mut self,
        upper: &str,
        list: &ast::FunctionArgumentList,
    ) -> Result<Bound, SqlError> {
        {
            let scope = self.scope();
            if !scope.allow_aggs || scope.in_agg {
                return Err(error::invalid_group_function());
            }
        }
        let object = upper == "JSON_OBJECTAGG";
        let args: Vec<&ast::Expr> = list
            .args
            .iter()
            .map(|a| match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Ok(e),
                _ => Err(error::syntax(upper, 1)),
            })
            .collect::<Result<_, _>>()?;
        if args.len() != if object { 2 } else { 1 } {
            return Err(error::wrong_param_count(upper));
        }
        // MariaDB takes DISTINCT and ORDER BY in JSON_ARRAYAGG only.
        let distinct = matches!(list.duplicate_treatment, Some(ast::DuplicateTreatment::Distinct));
        if object && (distinct || !list.clauses.is_empty()) {
            return Err(error::syntax(upper, 1));
        }
        self.scope_mut().in_agg = true;
        let bound = self.json_aggregate_parts(&args, list);
        self.scope_mut().in_agg = false;
        let (element, order) = bound?;
        let arg_type = element.ty.clone();
        let spec = AggSpec {
            func: AggFunc::GroupConcat,
            args: vec![element.expr],
            arg_type: arg_type.clone(),
            distinct,
            separator: if object { b", ".to_vec() } else { b",".to_vec() },
            order,
        };
        let scope = self.scope_mut();
        let idx = match scope.aggs.iter().position(|a| *a == spec) {
            Some(i) => i,
            None => {
                scope.aggs.push(spec);
                scope.aggs.len() - 1
            }
        };
        let (open, close): (&[u8], &[u8]) = if object { (b"{", b"}") } else { (b"[", b"]") };
        let concat = value::lookup_function("CONCAT").ok_or_else(|| error::internal("CONCAT"))?;
        let wrapped = Expr::Func {
            func: FuncRef(concat),
            args: vec![
                Expr::Literal(Value::Bytes(open.to_vec())),
                Expr::AggRef(idx),
                Expr::Literal(Value::Bytes(close.to_vec())),
            ],
        };
        Ok(Bound::new(wrapped, value::aggregate_type(AggFunc::GroupConcat, &arg_type), true))
    }

    /// The per-row JSON text and the ORDER BY keys.
    fn json_aggregate_parts(
        &mut self,
        args: &[&ast::Expr],
        list: &ast::FunctionArgumentList,
    ) -> Result<(Bound, Vec<(Expr, bool)>), SqlError> {
        let value_arg = self.bind_expr(args[args.len() - 1])?;
        let flag = if self.is_json(&value_arg) { b"1" } else { b"0" };
        let doc = SqlType::text(u32::MAX / 4, true);
        let element = Expr::Func {
            func: FuncRef(&JSON_AGG_ELEMENT),
            args: vec![Expr::Literal(Value::Bytes(flag.to_vec())), value_arg.expr],
        };
        let element = if args.len() == 2 {
            let key = self.bind_expr(args[0])?;
            let concat = value::lookup_function("CONCAT").ok_or_else(|| error::internal("CONCAT"))?;
            Expr::Func {
                func: FuncRef(concat),
                args: vec![
                    Expr::Func { func: FuncRef(&JSON_AGG_KEY), args: vec![key.expr] },
                    Expr::Literal(Value::Bytes(b":".to_vec())),
                    element,
                ],
            }
        } else {
            element
        };
        let mut order = Vec::new();
        for c in &list.clauses {
            match c {
                ast::FunctionArgumentClause::OrderBy(items) => {
                    for it in items {
                        let b = self.bind_expr(&it.expr)?;
                        order.push((
                            super::collation::ordering_key(b.expr, &b.ty),
                            it.options.sort == Some(ast::OrderBySort::Desc),
                        ));
                    }
                }
                _ => return Err(error::syntax("JSON_ARRAYAGG", 1)),
            }
        }
        Ok((Bound::new(element, doc, true), order))
    }
}
