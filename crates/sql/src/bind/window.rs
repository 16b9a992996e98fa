//! Binding window functions: `f(...) OVER (...)` and `OVER w` with the WINDOW clause's named
//! windows, resolved to a `WindowSpec` with MariaDB's default frame, and MariaDB's errors for
//! their misuse (checked one by one against MariaDB 10.11).
//!
//! A bound window function is `Expr::WindowRef(i)`, the scope's `windows[i]`; `bind_select`
//! puts a `Plan::Window` under the select list and turns the references into its columns.

use sqlparser::ast;

use super::binder::{Binder, Bound};
use crate::error::{self, SqlError};
use crate::plan::Expr;
use crate::plan::{Frame, FrameBound, WindowFunc, WindowSpec};
use crate::value::{self, AggFunc, SqlType};

/// A window's definition with any named window it refers to merged in.
struct Definition {
    partition: Vec<ast::Expr>,
    order: Vec<ast::OrderByExpr>,
    frame: Option<ast::WindowFrame>,
}

impl Binder<'_> {
    /// Checks the WINDOW clause (4009, 4010 and the 401x rules for a window referring to
    /// another) and makes its names visible to the select list and ORDER BY.
    pub(super) fn set_named_windows(&mut self, defs: &[ast::NamedWindowDefinition]) -> Result<(), SqlError> {
        for (i, d) in defs.iter().enumerate() {
            if defs[..i].iter().any(|p| p.0.value.eq_ignore_ascii_case(&d.0.value)) {
                return Err(error::window_spec_duplicate(&d.0.value));
            }
        }
        self.scope_mut().named_windows = defs.to_vec();
        for d in defs {
            self.window_definition(&ast::WindowType::NamedWindow(d.0.clone()), 0)?;
        }
        Ok(())
    }

    fn window_definition(&self, over: &ast::WindowType, depth: usize) -> Result<Definition, SqlError> {
        let named = |name: &ast::Ident| -> Result<&ast::NamedWindowExpr, SqlError> {
            self.scope()
                .named_windows
                .iter()
                .find(|d| d.0.value.eq_ignore_ascii_case(&name.value))
                .map(|d| &d.1)
                .ok_or_else(|| error::window_spec_not_defined(&name.value))
        };
        if depth > self.scope().named_windows.len() {
            // A cycle of names (w1 AS (w2), w2 AS (w1)).
            return Err(error::window_spec_not_defined(&over.to_string()));
        }
        let spec = match over {
            ast::WindowType::NamedWindow(name) => match named(name)? {
                ast::NamedWindowExpr::NamedWindow(other) => {
                    return self.window_definition(&ast::WindowType::NamedWindow(other.clone()), depth + 1)
                }
                ast::NamedWindowExpr::WindowSpec(spec) => spec,
            },
            ast::WindowType::WindowSpec(spec) => spec,
        };
        let mut def = Definition {
            partition: spec.partition_by.clone(),
            order: spec.order_by.clone(),
            frame: spec.window_frame.clone(),
        };
        if let Some(base_name) = &spec.window_name {
            let base = self.window_definition(&ast::WindowType::NamedWindow(base_name.clone()), depth + 1)?;
            if !def.partition.is_empty() {
                return Err(error::window_ref_with_partition(&base_name.value));
            }
            if !def.order.is_empty() && !base.order.is_empty() {
                return Err(error::window_ref_order_twice(&base_name.value));
            }
            if base.frame.is_some() {
                return Err(error::window_ref_with_frame(&base_name.value));
            }
            def.partition = base.partition;
            if def.order.is_empty() {
                def.order = base.order;
            }
        }
        Ok(def)
    }

    /// `f(...) OVER ...` in a select list or ORDER BY.
    pub(super) fn bind_window_function(
        &mut self,
        f: &ast::Function,
        over: &ast::WindowType,
    ) -> Result<Bound, SqlError> {
        if self.scope().in_agg {
            return Err(error::window_function_in_aggregate());
        }
        if !self.scope().allow_windows {
            return Err(error::window_function_misplaced());
        }
        let name = match f.name.0.as_slice() {
            [ast::ObjectNamePart::Identifier(id)] => id.value.to_ascii_uppercase(),
            _ => return Err(error::syntax(&f.to_string(), 1)),
        };
        let list = match &f.args {
            ast::FunctionArguments::List(l) => Some(l),
            ast::FunctionArguments::None => None,
            ast::FunctionArguments::Subquery(_) => return Err(error::syntax(&f.to_string(), 1)),
        };
        let distinct = list.is_some_and(|l| matches!(l.duplicate_treatment, Some(ast::DuplicateTreatment::Distinct)));
        if f.filter.is_some() || f.null_treatment.is_some() || !f.within_group.is_empty() {
            return Err(error::syntax(&f.to_string(), 1));
        }
        let mut star = false;
        let mut arg_asts: Vec<&ast::Expr> = Vec::new();
        for a in list.map(|l| l.args.as_slice()).unwrap_or(&[]) {
            match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => arg_asts.push(e),
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard) if name == "COUNT" => star = true,
                _ => return Err(error::syntax(&f.to_string(), 1)),
            }
        }
        if list.is_some_and(|l| !l.clauses.is_empty()) {
            return Err(error::syntax(&f.to_string(), 1));
        }
        let arity = |ok: &[usize]| -> Result<(), SqlError> {
            if ok.contains(&arg_asts.len()) {
                Ok(())
            } else {
                Err(error::syntax(&f.to_string(), 1))
            }
        };
        let func = match name.as_str() {
            "ROW_NUMBER" => (arity(&[0])?, WindowFunc::RowNumber).1,
            "RANK" => (arity(&[0])?, WindowFunc::Rank).1,
            "DENSE_RANK" => (arity(&[0])?, WindowFunc::DenseRank).1,
            "PERCENT_RANK" => (arity(&[0])?, WindowFunc::PercentRank).1,
            "CUME_DIST" => (arity(&[0])?, WindowFunc::CumeDist).1,
            "NTILE" => (arity(&[1])?, WindowFunc::Ntile).1,
            "LAG" => (arity(&[1, 2])?, WindowFunc::Lag).1,
            "LEAD" => (arity(&[1, 2])?, WindowFunc::Lead).1,
            "FIRST_VALUE" => (arity(&[1])?, WindowFunc::FirstValue).1,
            "LAST_VALUE" => (arity(&[1])?, WindowFunc::LastValue).1,
            "NTH_VALUE" => (arity(&[2])?, WindowFunc::NthValue).1,
            _ => match value::lookup_aggregate(&name) {
                Some(AggFunc::GroupConcat) => {
                    return Err(error::not_supported("GROUP_CONCAT() aggregate as window function"))
                }
                Some(_) if distinct => {
                    return Err(error::not_supported(&format!("{name}(DISTINCT) aggregate as window function")))
                }
                Some(AggFunc::Count) if star && arg_asts.is_empty() => {
                    WindowFunc::Aggregate { func: AggFunc::CountStar, arg_type: SqlType::Null }
                }
                Some(func) => {
                    arity(&[1])?;
                    WindowFunc::Aggregate { func, arg_type: SqlType::Null }
                }
                None => return Err(error::syntax(&f.to_string(), 1)),
            },
        };
        let def = self.window_definition(over, 0)?;
        if !func.uses_frame() && def.frame.is_some() {
            return Err(error::window_frame_not_allowed(&name.to_ascii_lowercase()));
        }

        // Arguments and the window's expressions: no window function inside them.
        self.scope_mut().allow_windows = false;
        let bound = self.bind_window_parts(&arg_asts, &def);
        self.scope_mut().allow_windows = true;
        let (args, partition, order, order_types) = bound?;

        let frame = self.window_frame(def.frame.as_ref(), &order_types)?;
        if func == WindowFunc::Ntile && !args[0].expr.is_row_independent() {
            return Err(error::ntile_argument());
        }
        let (func, ty, nullable) = match func {
            WindowFunc::RowNumber | WindowFunc::Rank | WindowFunc::DenseRank | WindowFunc::Ntile => {
                (func, SqlType::Int { bits: 64, unsigned: false }, false)
            }
            WindowFunc::PercentRank | WindowFunc::CumeDist => (func, SqlType::Double, true),
            WindowFunc::Aggregate { func: agg, .. } => {
                let arg_type = args.first().map(|b| b.ty.clone()).unwrap_or(SqlType::Int { bits: 64, unsigned: false });
                let ty = value::aggregate_type(agg, &arg_type);
                let nullable = !matches!(agg, AggFunc::Count | AggFunc::CountStar);
                (WindowFunc::Aggregate { func: agg, arg_type }, ty, nullable)
            }
            other => (other, args[0].ty.clone(), true),
        };
        let spec = WindowSpec { func, args: args.into_iter().map(|b| b.expr).collect(), partition, order, frame };
        let scope = self.scope_mut();
        let idx = match scope.windows.iter().position(|w| *w == spec) {
            Some(i) => i,
            None => {
                scope.windows.push(spec);
                scope.windows.len() - 1
            }
        };
        Ok(Bound::new(Expr::WindowRef(idx), ty, nullable))
    }

    #[allow(clippy::type_complexity)]
    fn bind_window_parts(
        &mut self,
        arg_asts: &[&ast::Expr],
        def: &Definition,
    ) -> Result<(Vec<Bound>, Vec<Expr>, Vec<(Expr, bool)>, Vec<SqlType>), SqlError> {
        let mut args = Vec::with_capacity(arg_asts.len());
        for a in arg_asts {
            args.push(self.bind_expr(a)?);
        }
        let mut partition = Vec::with_capacity(def.partition.len());
        for e in &def.partition {
            let b = self.bind_expr(e)?;
            partition.push(super::collation::ordering_key(b.expr, &b.ty));
        }
        let mut order = Vec::with_capacity(def.order.len());
        let mut types = Vec::with_capacity(def.order.len());
        for it in &def.order {
            let b = self.bind_expr(&it.expr)?;
            let desc = it.options.sort == Some(ast::OrderBySort::Desc);
            types.push(b.ty.clone());
            order.push((super::collation::ordering_key(b.expr, &b.ty), desc));
        }
        Ok((args, partition, order, types))
    }

    /// The frame as written, checked, or MariaDB's default: RANGE BETWEEN UNBOUNDED PRECEDING
    /// AND CURRENT ROW (with no ORDER BY every row is a peer, so that is the whole partition).
    fn window_frame(&mut self, frame: Option<&ast::WindowFrame>, order_types: &[SqlType]) -> Result<Frame, SqlError> {
        let Some(frame) = frame else {
            return Ok(Frame { rows: false, start: FrameBound::UnboundedPreceding, end: FrameBound::CurrentRow });
        };
        let rows = match frame.units {
            ast::WindowFrameUnits::Rows => true,
            ast::WindowFrameUnits::Range => false,
            ast::WindowFrameUnits::Groups => return Err(error::syntax("GROUPS", 1)),
        };
        let end = frame.end_bound.clone().unwrap_or(ast::WindowFrameBound::CurrentRow);
        use ast::WindowFrameBound as B;
        let rank = |b: &B| match b {
            B::Preceding(None) => 0,
            B::Preceding(Some(_)) => 1,
            B::CurrentRow => 2,
            B::Following(Some(_)) => 3,
            B::Following(None) => 4,
        };
        let (s, e) = (rank(&frame.start_bound), rank(&end));
        // The start may not lie after the end by kind (n PRECEDING .. m PRECEDING with n < m
        // and the like are allowed: such frames are merely empty).
        if s == 4 || e == 0 || (s == 2 && e == 1) || (s == 3 && e < 3) {
            return Err(error::window_frame_bounds());
        }
        let has_offset = matches!(s, 1 | 3) || matches!(e, 1 | 3);
        if !rows && has_offset {
            if order_types.len() != 1 {
                return Err(error::window_range_frame_single_key());
            }
            if !is_numeric(&order_types[0]) {
                return Err(error::window_range_frame_numeric());
            }
        }
        let start = self.frame_bound(&frame.start_bound, rows)?;
        let end = self.frame_bound(&end, rows)?;
        Ok(Frame { rows, start, end })
    }

    fn frame_bound(&mut self, b: &ast::WindowFrameBound, rows: bool) -> Result<FrameBound, SqlError> {
        use ast::WindowFrameBound as B;
        let mut offset = |e: &ast::Expr| -> Result<Expr, SqlError> {
            let b = self.bind_expr(e)?;
            if !b.expr.is_row_independent() {
                return Err(error::syntax(&e.to_string(), 1));
            }
            if rows && !matches!(b.ty, SqlType::Int { .. }) {
                return Err(error::window_rows_frame_integer());
            }
            if !rows && !is_numeric(&b.ty) {
                return Err(error::window_range_frame_numeric());
            }
            Ok(b.expr)
        };
        Ok(match b {
            B::Preceding(None) => FrameBound::UnboundedPreceding,
            B::Following(None) => FrameBound::UnboundedFollowing,
            B::CurrentRow => FrameBound::CurrentRow,
            B::Preceding(Some(e)) => FrameBound::Preceding(offset(e)?),
            B::Following(Some(e)) => FrameBound::Following(offset(e)?),
        })
    }
}

fn is_numeric(ty: &SqlType) -> bool {
    matches!(ty, SqlType::Int { .. } | SqlType::Decimal { .. } | SqlType::Float | SqlType::Double | SqlType::Bit { .. })
}
