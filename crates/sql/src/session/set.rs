//! SET: user variables, system variables (through `variables.rs`), SET NAMES, SET TRANSACTION.

use selkie_storage::{FlushMode, IsolationLevel};
use sqlparser::ast;

use super::state::{stmt_env, Session};
use crate::bind::{BindEnv, Binder, Scope};
use crate::error;
use crate::error::SqlError;
use crate::exec::ctx::ExecCtx;
use crate::parse::TrxScope;
use crate::plan::Expr;
use crate::types::{ResultSink, Value};
use crate::user_variables::Assigned;
use crate::variables::{GlobalEffect, VarScope};

/// Where one SET assignment goes.
enum Target {
    User(String),
    System { name: String, scope: VarScope },
}

/// MariaDB's spelling of an isolation level in tx_isolation.
pub fn isolation_name(i: IsolationLevel) -> &'static str {
    match i {
        IsolationLevel::ReadUncommitted => "READ-UNCOMMITTED",
        IsolationLevel::ReadCommitted => "READ-COMMITTED",
        IsolationLevel::RepeatableRead => "REPEATABLE-READ",
        IsolationLevel::Serializable => "SERIALIZABLE",
    }
}

fn target_of(name: &ast::ObjectName, modifier: Option<&ast::ContextModifier>) -> Result<Target, SqlError> {
    let parts: Vec<&ast::Ident> = name
        .0
        .iter()
        .map(|p| match p {
            ast::ObjectNamePart::Identifier(i) => Ok(i),
            ast::ObjectNamePart::Function(_) => Err(error::syntax(&name.to_string(), 1)),
        })
        .collect::<Result<_, _>>()?;
    let default_scope = match modifier {
        Some(ast::ContextModifier::Global) => VarScope::Global,
        Some(ast::ContextModifier::Session) | Some(ast::ContextModifier::Local) => VarScope::Session,
        _ => VarScope::Default,
    };
    match parts.as_slice() {
        [one] if one.quote_style.is_none() && one.value.starts_with("@@") => {
            Ok(Target::System { name: one.value[2..].to_string(), scope: default_scope })
        }
        [one] if one.quote_style.is_none() && one.value.starts_with('@') => {
            Ok(Target::User(one.value[1..].to_string()))
        }
        [one] => Ok(Target::System { name: one.value.clone(), scope: default_scope }),
        [scope, var] if scope.quote_style.is_none() && scope.value.starts_with("@@") => {
            let s = match scope.value[2..].to_ascii_lowercase().as_str() {
                "global" => VarScope::Global,
                "session" | "local" => VarScope::Session,
                _ => return Err(error::syntax(&name.to_string(), 1)),
            };
            Ok(Target::System { name: var.value.clone(), scope: s })
        }
        _ => Err(error::syntax(&name.to_string(), 1)),
    }
}

/// A value that is a bare word (`ON`, `OFF`, `READ-COMMITTED` is not one) is a string for
/// system variables, as in MySQL; `DEFAULT` asks for the default.
enum SetValue<'e> {
    Default,
    Word(String),
    Expr(&'e ast::Expr),
}

/// The system variables a SET assigns (as written), for SET STATEMENT; user variables and
/// GLOBAL assignments are a syntax error there.
pub(super) fn session_targets(set: &ast::Set, text: &str) -> Result<Vec<String>, SqlError> {
    let targets: Vec<Target> = match set {
        ast::Set::SingleAssignment { scope, hivevar: false, variable, .. } => {
            vec![target_of(variable, scope.as_ref())?]
        }
        ast::Set::MultipleAssignments { assignments } => {
            assignments.iter().map(|a| target_of(&a.name, a.scope.as_ref())).collect::<Result<_, _>>()?
        }
        ast::Set::SetTimeZone { .. } => return Ok(vec!["time_zone".to_string()]),
        _ => return Err(error::syntax(text.trim(), 1)),
    };
    targets
        .into_iter()
        .map(|t| match t {
            Target::System { name, scope: VarScope::Default | VarScope::Session } => Ok(name),
            _ => Err(error::syntax(text.trim(), 1)),
        })
        .collect()
}

fn classify(e: &ast::Expr, system: bool) -> SetValue<'_> {
    match e {
        ast::Expr::Identifier(i) if system && i.quote_style.is_none() && !i.value.starts_with('@') => {
            if i.value.eq_ignore_ascii_case("DEFAULT") {
                SetValue::Default
            } else {
                SetValue::Word(i.value.clone())
            }
        }
        other => SetValue::Expr(other),
    }
}

/// A SET value once bound: its expression, or the word or DEFAULT (neither), and how a user
/// variable keeps it.
type BoundValue = (Option<Expr>, Option<Value>, Assigned);

impl Session {
    pub(super) fn set_transaction(
        &mut self,
        scope: TrxScope,
        isolation: Option<IsolationLevel>,
        read_only: Option<bool>,
    ) -> Result<(), SqlError> {
        let vscope = match scope {
            TrxScope::Next => {
                if self.store.has_trx() && self.explicit_trx {
                    return Err(error::trx_characteristics_in_trx());
                }
                self.vars.set_next_transaction(isolation, read_only);
                return Ok(());
            }
            TrxScope::Session => VarScope::Session,
            TrxScope::Global => VarScope::Global,
        };
        if let Some(i) = isolation {
            let effect = self.vars.set(
                &self.server.globals,
                "tx_isolation",
                vscope,
                Value::Bytes(isolation_name(i).as_bytes().to_vec()),
            )?;
            self.apply_effect(effect);
        }
        if let Some(r) = read_only {
            let effect = self.vars.set(&self.server.globals, "tx_read_only", vscope, Value::Int(r as i64))?;
            self.apply_effect(effect);
        }
        Ok(())
    }

    fn apply_effect(&self, effect: GlobalEffect) {
        match effect {
            GlobalEffect::None => {}
            GlobalEffect::FlushMode(m) => {
                let mode = match m {
                    0 => FlushMode::Lazy,
                    2 => FlushMode::WriteOnly,
                    _ => FlushMode::Durable,
                };
                self.store.engine().set_flush_mode(mode);
            }
        }
    }

    pub(super) async fn run_set(
        &mut self,
        set: &ast::Set,
        text: &str,
        params: &[Value],
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        let assignments: Vec<(Target, &ast::Expr)> = match set {
            ast::Set::SingleAssignment { scope, hivevar: false, variable, values } => {
                let [value] = values.as_slice() else {
                    return Err(error::syntax(text.trim(), 1));
                };
                vec![(target_of(variable, scope.as_ref())?, value)]
            }
            ast::Set::MultipleAssignments { assignments } => assignments
                .iter()
                .map(|a| Ok((target_of(&a.name, a.scope.as_ref())?, &a.value)))
                .collect::<Result<_, SqlError>>()?,
            ast::Set::SetNames { charset_name, collation_name } => {
                self.set_names(Some(&charset_name.value), collation_name.as_deref())?;
                self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
                return Ok(());
            }
            ast::Set::SetNamesDefault {} => {
                self.set_names(None, None)?;
                self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
                return Ok(());
            }
            ast::Set::SetTimeZone { value, .. } => {
                vec![(Target::System { name: "time_zone".into(), scope: VarScope::Session }, value)]
            }
            other => return Err(error::not_supported(&other.to_string())),
        };

        // MariaDB binds and evaluates every value first, then assigns (`SET @x = 2, @y = @x`
        // gives @y the old @x); system variables are set after the user variables.
        let catalog = self.store.catalog();
        let mut system: Vec<(String, VarScope, Option<Value>)> = Vec::new();
        let last_insert_id = self.vars.last_insert_id();
        let (result, warnings) = {
            let env = stmt_env!(self, self.store.engine(), Some(catalog.clone()), &[]);
            let mode = self.vars.sql_mode();
            let benv = BindEnv {
                catalog: &catalog,
                current_db: self.current_db.as_deref(),
                vars: Some((&self.vars, &self.server.globals)),
                user_vars: Some(&self.user_vars),
                pipes_as_concat: mode.pipes_as_concat,
                only_full_group_by: mode.only_full_group_by,
                temporary: None,
                row_estimates: None,
            };
            let mut b = Binder::new(benv, text);
            b.scopes.push(Scope::default());
            let text_value = Assigned::Text(b.connection_collation());
            let values: Result<Vec<BoundValue>, SqlError> = assignments
                .iter()
                .map(|(target, e)| {
                    Ok(match classify(e, matches!(target, Target::System { .. })) {
                        SetValue::Default => (None, None, text_value),
                        SetValue::Word(w) => (None, Some(Value::Bytes(w.into_bytes())), text_value),
                        SetValue::Expr(e) => {
                            let bound = b.bind_expr(e)?;
                            if bound.expr.has_subquery() || !bound.expr.is_row_independent() {
                                return Err(error::not_supported("SET with a subquery or column reference"));
                            }
                            let assigned = Assigned::of_type(&bound.ty, b.connection_collation());
                            (Some(bound.expr), None, assigned)
                        }
                    })
                })
                .collect();
            drop(b);
            let mut cx = ExecCtx::new(&env, None, params, &mut self.user_vars, self.rng, last_insert_id);
            let r: Result<(), SqlError> = (|| {
                let mut evaluated = Vec::with_capacity(assignments.len());
                for (expr, word, assigned) in values? {
                    let v = match expr {
                        Some(e) => Some(e.eval(&[], &mut cx)?),
                        None => word,
                    };
                    evaluated.push((v, assigned));
                }
                for ((target, _), (v, assigned)) in assignments.iter().zip(evaluated) {
                    match target {
                        Target::User(name) => cx.set_user_var(name, v.unwrap_or(Value::Null), assigned),
                        Target::System { name, scope } => system.push((name.clone(), *scope, v)),
                    }
                }
                Ok(())
            })();
            (r, cx.take_warnings())
        };
        result?;
        let (mut warnings, mut warning_count) = warnings;
        let autocommit_before = self.vars.autocommit();
        for (name, scope, v) in system {
            let effect = match v {
                Some(v) => self.vars.set(&self.server.globals, &name, scope, v)?,
                // SET [SESSION] x = DEFAULT: the global value; SET GLOBAL x = DEFAULT: the
                // compiled-in default.
                None => self.vars.set_default(&self.server.globals, &name, scope)?,
            };
            self.apply_effect(effect);
            // Clamped values warn (1292), as in MariaDB.
            for w in self.vars.take_warnings() {
                warning_count += 1;
                if warnings.len() < crate::exec::ctx::MAX_STORED_WARNINGS {
                    warnings.push(w);
                }
            }
        }
        // Turning autocommit on commits the open transaction.
        if !autocommit_before && self.vars.autocommit() {
            self.commit().await?;
        }
        if warning_count == 0 {
            // A SET uses no tables: one that raises no warning leaves the previous statement's
            // diagnostics to SHOW WARNINGS, as MariaDB does.
            self.row_count = 0;
            sink.ok(
                &crate::types::OkInfo { affected_rows: 0, last_insert_id: 0, warnings: 0, info: String::new() },
                more,
            );
            return Ok(());
        }
        self.send_ok(sink, more, 0, String::new(), (warnings, warning_count));
        Ok(())
    }

    /// The collation a client names in its handshake: as `SET NAMES charset COLLATE collation`,
    /// the way MariaDB starts a session. An id Selkie does not know leaves the server's
    /// defaults (MariaDB does the same).
    pub fn set_client_collation(&mut self, id: u16) {
        if let Some(c) = crate::charset::Collation::by_id(u64::from(id)) {
            // Most clients ask for the server's defaults: setting them anyway would give every
            // idle connection its own copy of the variables (they are copied on first write).
            let current = |name: &str| match self.vars.get(&self.server.globals, name, VarScope::Session) {
                Ok(Value::Bytes(b)) => b,
                _ => Vec::new(),
            };
            let charset = c.charset_name().as_bytes();
            let unchanged = self.vars.collation_connection() == c
                && ["character_set_client", "character_set_connection", "character_set_results"]
                    .iter()
                    .all(|v| current(v) == charset);
            if !c.is_binary() && !unchanged {
                let _ = self.set_names(Some(c.charset_name()), Some(c.name()));
            }
        }
    }

    /// SET NAMES: the three character set variables (and the collation when given).
    fn set_names(&mut self, charset: Option<&str>, collation: Option<&str>) -> Result<(), SqlError> {
        let charset = charset.map(str::to_string).unwrap_or_else(|| crate::ddl::DEFAULT_CHARSET.to_string());
        let v = || Value::Bytes(charset.as_bytes().to_vec());
        for var in ["character_set_client", "character_set_connection", "character_set_results"] {
            self.vars.set(&self.server.globals, var, VarScope::Session, v())?;
        }
        if let Some(c) = collation {
            self.vars.set(
                &self.server.globals,
                "collation_connection",
                VarScope::Session,
                Value::Bytes(c.as_bytes().to_vec()),
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(parts: &[&str]) -> ast::ObjectName {
        ast::ObjectName::from(parts.iter().map(|p| ast::Ident::new(*p)).collect::<Vec<_>>())
    }

    #[test]
    fn targets_and_scopes() {
        assert!(matches!(target_of(&name(&["@a"]), None).unwrap(), Target::User(n) if n == "a"));
        assert!(matches!(
            target_of(&name(&["@@session", "sql_mode"]), None).unwrap(),
            Target::System { name, scope: VarScope::Session } if name == "sql_mode"
        ));
        assert!(matches!(
            target_of(&name(&["@@autocommit"]), None).unwrap(),
            Target::System { name, scope: VarScope::Default } if name == "autocommit"
        ));
        assert!(matches!(
            target_of(&name(&["max_connections"]), Some(&ast::ContextModifier::Global)).unwrap(),
            Target::System { scope: VarScope::Global, .. }
        ));
        assert!(target_of(&name(&["@@bogus", "x"]), None).is_err());
    }

    #[test]
    fn isolation_names_match_tx_isolation() {
        assert_eq!(isolation_name(IsolationLevel::ReadCommitted), "READ-COMMITTED");
        assert_eq!(isolation_name(IsolationLevel::RepeatableRead), "REPEATABLE-READ");
    }
}
