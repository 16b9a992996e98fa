//! CREATE, ALTER and DROP SEQUENCE (the sequences themselves are `crate::sequence`).

use super::counters::Counter;
use super::state::Session;
use crate::error::{self, SqlError};
use crate::parse::SequenceOptions;
use crate::sequence;
use crate::types::{ResultSink, WarnLevel, Warning};
use selkie_storage::{InstantAlter, TableOptions};

impl Session {
    fn qualify(&self, db: &Option<String>) -> Result<String, SqlError> {
        match db.clone().or_else(|| self.current_db.clone()) {
            Some(db) => Ok(db),
            None => Err(error::no_database()),
        }
    }

    /// CREATE [OR REPLACE] SEQUENCE [IF NOT EXISTS]: DDL (commits first), a table of its own.
    pub(super) async fn create_sequence(
        &mut self,
        (or_replace, if_not_exists): (bool, bool),
        db: &Option<String>,
        name: &str,
        options: &SequenceOptions,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        self.counters.bump(Counter::ComCreateTable);
        self.commit().await?;
        let db = self.qualify(db)?;
        if db.eq_ignore_ascii_case(crate::bind::INFORMATION_SCHEMA) {
            let denied = format!("Access denied for user to database '{}'", crate::bind::INFORMATION_SCHEMA);
            return Err(SqlError::new(1044, "42000", denied));
        }
        let def = sequence::sequence_def(options, &db, name)?;
        let engine = self.store.engine();
        if or_replace {
            engine.drop_table(&db, name, true).await?;
        }
        let mut notes = (Vec::new(), 0);
        if !engine.create_table(sequence::sequence_table(db, name.to_string(), def), if_not_exists).await? {
            let note =
                Warning { level: WarnLevel::Note, code: 1050, message: format!("Table '{name}' already exists") };
            notes = (vec![note], 1);
        }
        self.send_ok(sink, more, 0, String::new(), notes);
        Ok(())
    }

    /// ALTER SEQUENCE [IF EXISTS] s options: DDL (commits first); a metadata-only change of
    /// the table's options, then the sequence goes on from RESTART or its reserved bound.
    /// 4091 for a missing sequence (a note with IF EXISTS), 4089 for a table that is not one.
    pub(super) async fn alter_sequence(
        &mut self,
        if_exists: bool,
        db: &Option<String>,
        name: &str,
        options: &SequenceOptions,
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        self.counters.bump(Counter::ComAlterTable);
        self.commit().await?;
        let db = self.qualify(db)?;
        let Some(table) = self.store.catalog().table(&db, name).cloned() else {
            if if_exists {
                let message = format!("Unknown SEQUENCE: '{db}.{name}'");
                self.send_ok(
                    sink,
                    more,
                    0,
                    String::new(),
                    (vec![Warning { level: WarnLevel::Note, code: 4091, message }], 1),
                );
                return Ok(());
            }
            // MariaDB names the sequence without its database here (DROP SEQUENCE names both).
            return Err(sequence::unknown_sequence(name));
        };
        let Some(old) = table.options.sequence else {
            return Err(sequence::not_a_sequence(&db, name));
        };
        let engine = self.store.engine();
        let reserved = engine.sequence_state(&table)?.next_not_cached;
        let (def, reserved) = sequence::altered_def(&old, reserved, options, &db, name)?;
        let change = InstantAlter {
            columns: table.columns.clone(),
            sources: (0..table.columns.len()).map(Some).collect(),
            added: vec![selkie_storage::Datum::Null; table.columns.len()],
            primary_key: table.primary.columns.clone(),
            kept_indexes: Vec::new(),
            options: TableOptions { sequence: Some(def), ..table.options.clone() },
            constraints: None,
        };
        engine.alter_table_instant(&db, name, &table, change).await?;
        let altered = self.store.catalog().table(&db, name).cloned().ok_or_else(|| error::no_such_table(&db, name))?;
        self.server.sequences.restart(engine, &altered, reserved, options.restart.is_some())?;
        self.send_ok(sink, more, 0, String::new(), (Vec::new(), 0));
        Ok(())
    }

    /// DROP SEQUENCE [IF EXISTS] s, ...: 4091 for a missing one (a note with IF EXISTS), 4090
    /// for a table that is not a sequence.
    pub(super) async fn drop_sequences(
        &mut self,
        if_exists: bool,
        names: &[(Option<String>, String)],
        sink: &mut dyn ResultSink,
        more: bool,
    ) -> Result<(), SqlError> {
        self.counters.bump(Counter::ComDropTable);
        self.commit().await?;
        let mut missing = Vec::new();
        for (db, name) in names {
            let db = self.qualify(db)?;
            let table = self.store.catalog().table(&db, name).cloned();
            match table {
                None => missing.push(format!("{db}.{name}")),
                Some(t) if t.options.sequence.is_none() => return Err(sequence::drop_not_a_sequence(&db, name)),
                Some(_) => {
                    self.store.engine().drop_table(&db, name, true).await?;
                }
            }
        }
        if !missing.is_empty() && !if_exists {
            return Err(sequence::unknown_sequence(&missing.join(",")));
        }
        let notes: Vec<Warning> = missing
            .iter()
            .map(|m| Warning { level: WarnLevel::Note, code: 4091, message: format!("Unknown SEQUENCE: '{m}'") })
            .collect();
        let count = notes.len();
        self.send_ok(sink, more, 0, String::new(), (notes, count));
        Ok(())
    }
}
