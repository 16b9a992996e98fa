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
    #[error("'{db}.{name}' is not a SEQUENCE")]
    NotASequence { db: String, name: String },
    #[error("This version of MariaDB doesn't yet support '{0}'")]
    NotSupported(String),
    #[error("Table definition has changed, please retry transaction")]
    TableDefinitionChanged,
    /// The tablespace cannot grow (no space left on the device, or the largest tablespace).
    /// MariaDB's InnoDB sends the same for a tablespace that cannot extend (HA_ERR_RECORD_FILE_FULL);
    /// the statement fails, the transaction stays usable. Raised as `tablespace_full` (named
    /// like InnoDB's system tablespace) and renamed after the table by the engine's row-write
    /// entry points.
    #[error("The table '{table}' is full")]
    TableFull { table: String },
    /// The log could not make a commit durable (write or fsync error). The commit may or may not
    /// survive a restart; recovery decides. ER_ERROR_DURING_COMMIT with the OS error, as MariaDB
    /// reports a failed commit.
    #[error("Got error {errno} \"{}\" during COMMIT", errno_text(*.errno))]
    CommitFailed { errno: i32 },
    /// Writes are refused since a log or data-file I/O error (fail-stop; reads go on until the
    /// restart). ER_READ_ONLY_MODE: what InnoDB sends for a write it refuses in read-only mode.
    #[error("Running in read-only mode")]
    WritesStopped,
    /// An online rebuild's row log outgrew `row_log::MAX_ROW_LOG_BYTES` (writers changed more
    /// rows than it may remember): ER_INNODB_ONLINE_LOG_TOO_BIG, as InnoDB reports it.
    #[error(
        "Creating index '{index}' required more than 'innodb_online_alter_log_max_size' bytes of modification \
         log. Please try again"
    )]
    OnlineLogTooBig { index: String },
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
            NotASequence { .. } => (4089, "42S02"),
            NotSupported(_) => (1235, "42000"),
            TableDefinitionChanged => (1412, "HY000"),
            TableFull { .. } => (1114, "HY000"),
            CommitFailed { .. } => (1180, "HY000"),
            WritesStopped => (1836, "HY000"),
            OnlineLogTooBig { .. } => (1799, "HY000"),
            Io(_) | Corruption(_) | LogTooShort { .. } | ShuttingDown => (1030, "HY000"),
        }
    }
}

/// The name a `TableFull` carries until a statement names its table: our single tablespace
/// plays the part of InnoDB's system tablespace (DDL that finds it full reports this name).
pub const SYSTEM_TABLESPACE_NAME: &str = "innodb_system";

impl StorageError {
    /// `TableFull` for the tablespace, before the statement names its table.
    pub fn tablespace_full() -> StorageError {
        StorageError::TableFull { table: SYSTEM_TABLESPACE_NAME.to_string() }
    }

    /// Names the table of a `TableFull` raised below the statement (other errors unchanged).
    pub fn with_table(self, table: &str) -> StorageError {
        match self {
            StorageError::TableFull { table: t } if t == SYSTEM_TABLESPACE_NAME => {
                StorageError::TableFull { table: table.to_string() }
            }
            e => e,
        }
    }
}

/// The OS's text for an error number, as MariaDB prints it inside `%M` ("Input/output error").
pub fn errno_text(errno: i32) -> String {
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

pub type Result<T, E = StorageError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages as MariaDB 10.11 prints them (errmsg-utf8.txt, `%M` = errno and its text).
    #[test]
    fn io_fault_errors_read_like_mariadb() {
        let e = StorageError::CommitFailed { errno: libc::EIO };
        assert_eq!(e.to_string(), "Got error 5 \"Input/output error\" during COMMIT");
        assert_eq!(e.mysql_code(), (1180, "HY000"));
        assert_eq!(StorageError::tablespace_full().to_string(), "The table 'innodb_system' is full");
        let e = StorageError::tablespace_full().with_table("t1");
        assert_eq!(e.to_string(), "The table 't1' is full");
        assert_eq!(e.mysql_code(), (1114, "HY000"));
        assert_eq!(StorageError::WritesStopped.to_string(), "Running in read-only mode");
        assert_eq!(StorageError::WritesStopped.mysql_code(), (1836, "HY000"));
        assert_eq!(errno_text(libc::ENOSPC), "No space left on device");
    }
}
