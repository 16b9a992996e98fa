//! Constructors for the MariaDB errors the SQL core raises itself.
//!
//! Every message here was checked against MariaDB 10.11 (`mariadbd` 10.11.19): the code, the
//! SQLSTATE and the exact wording, because clients and test suites match on them.

/// A MySQL-style error: error number, SQLSTATE and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlError {
    pub code: u16,
    pub state: &'static str,
    pub message: String,
}

impl std::fmt::Display for SqlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ERROR {} ({}): {}", self.code, self.state, self.message)
    }
}

impl std::error::Error for SqlError {}

impl SqlError {
    pub fn new(code: u16, state: &'static str, message: impl Into<String>) -> SqlError {
        SqlError { code, state, message: message.into() }
    }
}

impl From<selkie_storage::StorageError> for SqlError {
    fn from(e: selkie_storage::StorageError) -> SqlError {
        let (code, state) = e.mysql_code();
        SqlError { code, state, message: e.to_string() }
    }
}

/// Longest piece of statement text quoted in a 1064 message, as MariaDB does ("near '...'").
const SYNTAX_ERROR_NEAR_CHARS: usize = 80;

/// 1064: MariaDB's syntax error, quoting the text from the offending token on.
pub fn syntax(near: &str, line: usize) -> SqlError {
    let near = if near.chars().count() > SYNTAX_ERROR_NEAR_CHARS {
        let cut: String = near.chars().take(SYNTAX_ERROR_NEAR_CHARS - 3).collect();
        format!("{cut}...")
    } else {
        near.to_string()
    };
    SqlError::new(
        1064,
        "42000",
        format!(
            "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '{near}' at line {line}"
        ),
    )
}

/// Where in a statement a name was being resolved (the clause named in 1054/1052 messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clause {
    Select,
    Where,
    On,
    GroupBy,
    Having,
    OrderBy,
    /// UPDATE's SET list.
    Set,
    /// Column lists and VALUES of INSERT ('field list').
    FieldList,
    /// INSERT / DELETE ... RETURNING.
    Returning,
}

impl Clause {
    fn text(self) -> &'static str {
        match self {
            Clause::Select => "SELECT",
            Clause::Where => "WHERE",
            Clause::On => "ON",
            Clause::GroupBy => "GROUP BY",
            Clause::Having => "HAVING",
            Clause::OrderBy => "ORDER BY",
            Clause::Set => "SET",
            Clause::FieldList => "field list",
            Clause::Returning => "RETURNING",
        }
    }
}

pub fn unknown_column(name: &str, clause: Clause) -> SqlError {
    SqlError::new(1054, "42S22", format!("Unknown column '{name}' in '{}'", clause.text()))
}

pub fn ambiguous_column(name: &str, clause: Clause) -> SqlError {
    SqlError::new(1052, "23000", format!("Column '{name}' in {} is ambiguous", clause.text()))
}

pub fn no_database() -> SqlError {
    SqlError::new(1046, "3D000", "No database selected")
}

pub fn unknown_database(db: &str) -> SqlError {
    SqlError::new(1049, "42000", format!("Unknown database '{db}'"))
}

pub fn no_such_table(db: &str, table: &str) -> SqlError {
    SqlError::new(1146, "42S02", format!("Table '{db}.{table}' doesn't exist"))
}

/// 1051 for DROP TABLE and for `x.*` naming no table of the FROM clause.
pub fn unknown_table(qualified_names: &str) -> SqlError {
    SqlError::new(1051, "42S02", format!("Unknown table '{qualified_names}'"))
}

/// CREATE OR REPLACE TABLE ... IF NOT EXISTS.
pub fn or_replace_and_if_not_exists() -> SqlError {
    SqlError::new(1221, "HY000", "Incorrect usage of OR REPLACE and IF NOT EXISTS")
}

/// A statement that replaces a table while reading it (CREATE OR REPLACE TABLE t SELECT ...
/// FROM t).
pub fn target_is_source(table: &str, verb: &str) -> SqlError {
    SqlError::new(
        1093,
        "HY000",
        format!("Table '{table}' is specified twice, both as a target for '{verb}' and as a separate source for data"),
    )
}

pub fn not_unique_table(alias: &str) -> SqlError {
    SqlError::new(1066, "42000", format!("Not unique table/alias: '{alias}'"))
}

pub fn unknown_function(db: Option<&str>, name: &str) -> SqlError {
    match db {
        Some(db) => SqlError::new(1305, "42000", format!("FUNCTION {db}.{name} does not exist")),
        None => SqlError::new(1305, "42000", format!("FUNCTION {name} does not exist")),
    }
}

pub fn wrong_param_count(name: &str) -> SqlError {
    SqlError::new(1582, "42000", format!("Incorrect parameter count in the call to native function '{name}'"))
}

pub fn invalid_group_function() -> SqlError {
    SqlError::new(1111, "HY000", "Invalid use of group function")
}

pub fn operand_columns(n: usize) -> SqlError {
    SqlError::new(1241, "21000", format!("Operand should contain {n} column(s)"))
}

pub fn subquery_rows() -> SqlError {
    SqlError::new(1242, "21000", "Subquery returns more than 1 row")
}

pub fn union_column_count() -> SqlError {
    SqlError::new(1222, "21000", "The used SELECT statements have a different number of columns")
}

pub fn unknown_key(key: &str, table: &str) -> SqlError {
    SqlError::new(1176, "42000", format!("Key '{key}' doesn't exist in table '{table}'"))
}

pub fn value_count(row: usize) -> SqlError {
    SqlError::new(1136, "21S01", format!("Column count doesn't match value count at row {row}"))
}

pub fn column_not_null(col: &str) -> SqlError {
    SqlError::new(1048, "23000", format!("Column '{col}' cannot be null"))
}

pub fn no_default(col: &str) -> SqlError {
    SqlError::new(1364, "HY000", format!("Field '{col}' doesn't have a default value"))
}

pub fn interrupted() -> SqlError {
    SqlError::new(1317, "70100", "Query execution was interrupted")
}

/// 1412: the engine's TableDefinitionChanged; here for a statement that DDL kept re-binding.
pub fn table_definition_changed() -> SqlError {
    selkie_storage::StorageError::TableDefinitionChanged.into()
}

/// 1235: a feature Selkie does not implement, named as MariaDB names its own gaps.
pub fn not_supported(feature: &str) -> SqlError {
    SqlError::new(1235, "42000", format!("This version of MariaDB doesn't yet support '{feature}'"))
}

pub fn not_supported_in_ps() -> SqlError {
    SqlError::new(1295, "HY000", "This command is not supported in the prepared statement protocol yet")
}

pub fn unknown_thread(id: u64) -> SqlError {
    SqlError::new(1094, "HY000", format!("Unknown thread id: {id}"))
}

pub fn unknown_prepared(name: &str, command: &str) -> SqlError {
    SqlError::new(1243, "HY000", format!("Unknown prepared statement handler ({name}) given to {command}"))
}

pub fn wrong_arguments(command: &str) -> SqlError {
    SqlError::new(1210, "HY000", format!("Incorrect arguments to {command}"))
}

pub fn no_savepoint(name: &str) -> SqlError {
    SqlError::new(1305, "42000", format!("SAVEPOINT {name} does not exist"))
}

pub fn trx_characteristics_in_trx() -> SqlError {
    SqlError::new(1568, "25001", "Transaction characteristics can't be changed while a transaction is in progress")
}

pub fn read_only_transaction() -> SqlError {
    SqlError::new(1792, "25006", "Cannot execute statement in a READ ONLY transaction")
}

pub fn duplicate_column(col: &str) -> SqlError {
    SqlError::new(1060, "42S21", format!("Duplicate column name '{col}'"))
}

pub fn multiple_primary_key() -> SqlError {
    SqlError::new(1068, "42000", "Multiple primary key defined")
}

pub fn bad_auto_column() -> SqlError {
    SqlError::new(
        1075,
        "42000",
        "Incorrect table definition; there can be only one auto column and it must be defined as a key",
    )
}

pub fn blob_key_without_length(col: &str) -> SqlError {
    SqlError::new(1170, "42000", format!("BLOB/TEXT column '{col}' used in key specification without a key length"))
}

pub fn invalid_default(col: &str) -> SqlError {
    SqlError::new(1067, "42000", format!("Invalid default value for '{col}'"))
}

pub fn column_too_long(col: &str, max: u64) -> SqlError {
    SqlError::new(
        1074,
        "42000",
        format!("Column length too big for column '{col}' (max = {max}); use BLOB or TEXT instead"),
    )
}

pub fn key_column_missing(col: &str) -> SqlError {
    SqlError::new(1072, "42000", format!("Key column '{col}' doesn't exist in table"))
}

pub fn duplicate_key_name(name: &str) -> SqlError {
    SqlError::new(1061, "42000", format!("Duplicate key name '{name}'"))
}

pub fn key_too_long(max: usize) -> SqlError {
    SqlError::new(1071, "42000", format!("Specified key was too long; max key length is {max} bytes"))
}

pub fn too_big_precision(precision: u64, col: &str, max: u8) -> SqlError {
    SqlError::new(1426, "42000", format!("Too big precision {precision} specified for '{col}'. Maximum is {max}"))
}

pub fn too_big_scale(scale: u64, col: &str, max: u8) -> SqlError {
    SqlError::new(1425, "42000", format!("Too big scale {scale} specified for '{col}'. Maximum is {max}"))
}

pub fn scale_above_precision(col: &str) -> SqlError {
    SqlError::new(
        1427,
        "42000",
        format!("For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '{col}')"),
    )
}

pub fn too_big_fsp(fsp: u64, col: &str) -> SqlError {
    SqlError::new(1426, "42000", format!("Too big precision {fsp} specified for '{col}'. Maximum is 6"))
}

pub fn cant_drop_field_or_key(name: &str) -> SqlError {
    SqlError::new(1091, "42000", format!("Can't DROP INDEX `{name}`; check that it exists"))
}

pub fn wrong_db_name(name: &str) -> SqlError {
    SqlError::new(1102, "42000", format!("Incorrect database name '{name}'"))
}

pub fn wrong_table_name(name: &str) -> SqlError {
    SqlError::new(1103, "42000", format!("Incorrect table name '{name}'"))
}

pub fn wrong_column_name(name: &str) -> SqlError {
    SqlError::new(1166, "42000", format!("Incorrect column name '{name}'"))
}

pub fn too_long_ident(name: &str) -> SqlError {
    SqlError::new(1059, "42000", format!("Identifier name '{name}' is too long"))
}

pub fn not_in_group_by(col: &str) -> SqlError {
    SqlError::new(1055, "42000", format!("'{col}' isn't in GROUP BY"))
}

pub fn derived_needs_alias() -> SqlError {
    SqlError::new(1248, "42000", "Every derived table must have its own alias")
}

pub fn internal(what: &str) -> SqlError {
    SqlError::new(1815, "HY000", format!("Internal error: {what}"))
}

pub fn incorrect_prefix_key() -> SqlError {
    SqlError::new(
        1089,
        "HY000",
        "Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the storage engine doesn't support unique prefix keys",
    )
}

pub fn incorrect_column_specifier(col: &str) -> SqlError {
    SqlError::new(1063, "42000", format!("Incorrect column specifier for column '{col}'"))
}

pub fn incorrect_index_name(name: &str) -> SqlError {
    SqlError::new(1280, "42000", format!("Incorrect index name '{name}'"))
}

pub fn invalid_on_update(col: &str) -> SqlError {
    SqlError::new(1294, "HY000", format!("Invalid ON UPDATE clause for '{col}' column"))
}

/// MariaDB's "(Errcode: 28 "No space left on device")" suffix of mysys file errors.
fn errcode(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => {
            let text = std::io::Error::from_raw_os_error(n).to_string();
            let text = text.rfind(" (os error").map_or(text.as_str(), |cut| &text[..cut]).to_string();
            format!("Errcode: {n} \"{text}\"")
        }
        None => format!("Errcode: 5 \"{e}\""),
    }
}

/// 1 (mysys EE_CANTCREATEFILE): a temporary file could not be created in @@tmpdir.
pub fn cant_create_temp_file(name: &str, e: &std::io::Error) -> SqlError {
    SqlError::new(1, "HY000", format!("Can't create/write to file '{name}' ({})", errcode(e)))
}

/// 2 (mysys EE_READ): reading a temporary file failed.
pub fn temp_file_read(name: &str, e: &std::io::Error) -> SqlError {
    SqlError::new(2, "HY000", format!("Error reading file '{name}' ({})", errcode(e)))
}

/// 3 (mysys EE_WRITE): writing a temporary file failed. MariaDB 10.11 reports a full @@tmpdir
/// during a sort or a temporary table write as `Error writing file '/tmp/#sql/fd=50' (Errcode:
/// 28 "No space left on device")`.
pub fn temp_file_write(name: &str, e: &std::io::Error) -> SqlError {
    SqlError::new(3, "HY000", format!("Error writing file '{name}' ({})", errcode(e)))
}
