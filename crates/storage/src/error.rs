//! Engine errors. Each maps to the MySQL error code and SQLSTATE MariaDB would send, so the SQL
//! layer can report them without guessing.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum StorageError {
    #[error("Duplicate entry '{key}' for key '{index}'")]
    DuplicateKey { index: String, key: String },
    #[error("Lock wait timeout exceeded; try restarting transaction")]
    LockWaitTimeout,
    #[error("Deadlock found when trying to get lock; try restarting transaction")]
    Deadlock,
    #[error("Table '{name}' already exists")]
    TableExists { name: String },
    #[error("Table '{db}.{name}' doesn't exist")]
    NoSuchTable { db: String, name: String },
    #[error("Can't create database '{name}'; database exists")]
    DatabaseExists { name: String },
    #[error("Unknown database '{name}'")]
    NoSuchDatabase { name: String },
    #[error("Can't drop database '{name}'; database doesn't exist")]
    DropNoSuchDatabase { name: String },
    #[error("Duplicate key name '{name}'")]
    IndexExists { name: String },
    #[error("Can't DROP INDEX `{name}`; check that it exists")]
    NoSuchIndex { name: String },
    #[error("Specified key was too long; max key length is {max} bytes")]
    KeyTooLong { max: usize },
    #[error("Row size too large. The maximum row size is {max} bytes")]
    RowTooLarge { max: usize },
    #[error("Cannot execute statement in a READ ONLY transaction")]
    ReadOnlyTransaction,
    #[error("Query execution was interrupted")]
    Interrupted,
    #[error("Incorrect value for column '{column}': {detail}")]
    InvalidValue { column: String, detail: String },
    #[error("Too many connections")]
    TooManySessions,
    #[error("This version of MariaDB doesn't yet support '{0}'")]
    NotSupported(String),
    #[error("Table definition has changed, please retry transaction")]
    TableDefinitionChanged,
    #[error("storage I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("data corruption detected: {0}")]
    Corruption(String),
    #[error(
        "the redo log ends at LSN {end}, before the last checkpoint (LSN {checkpoint}, marker {marker}): \
         log files were lost, truncated or copied from another time; refusing to recover from it \
         (no file was changed). Restore the log, or start with --force-recovery to read what the \
         data files hold, read-only"
    )]
    LogTooShort { end: u64, checkpoint: u64, marker: u64 },
    #[error("the storage engine is shutting down")]
    ShuttingDown,
}

impl StorageError {
    /// MySQL error number and SQLSTATE, as MariaDB 10.11 reports them.
    pub fn mysql_code(&self) -> (u16, &'static str) {
        use StorageError::*;
        match self {
            DuplicateKey { .. } => (1062, "23000"),
            LockWaitTimeout => (1205, "HY000"),
            Deadlock => (1213, "40001"),
            TableExists { .. } => (1050, "42S01"),
            NoSuchTable { .. } => (1146, "42S02"),
            DatabaseExists { .. } => (1007, "HY000"),
            NoSuchDatabase { .. } => (1049, "42000"),
            DropNoSuchDatabase { .. } => (1008, "HY000"),
            IndexExists { .. } => (1061, "42000"),
            NoSuchIndex { .. } => (1091, "42000"),
            KeyTooLong { .. } => (1071, "42000"),
            RowTooLarge { .. } => (1118, "42000"),
            ReadOnlyTransaction => (1792, "25006"),
            Interrupted => (1317, "70100"),
            InvalidValue { .. } => (1366, "22007"),
            TooManySessions => (1040, "08004"),
            NotSupported(_) => (1235, "42000"),
            TableDefinitionChanged => (1412, "HY000"),
            Io(_) | Corruption(_) | LogTooShort { .. } | ShuttingDown => (1030, "HY000"),
        }
    }
}

pub type Result<T, E = StorageError> = std::result::Result<T, E>;
