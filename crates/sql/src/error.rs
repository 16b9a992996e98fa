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
    /// A CHECK constraint's expression.
    Check,
    /// A generated column's expression.
    Generated,
    /// A column's DEFAULT (expr).
    Default,
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
            Clause::Check => "CHECK",
            Clause::Generated => "GENERATED ALWAYS AS",
            Clause::Default => "DEFAULT",
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

pub fn unknown_storage_engine(name: &str) -> SqlError {
    SqlError::new(1286, "42000", format!("Unknown storage engine '{name}'"))
}

pub fn unknown_database(db: &str) -> SqlError {
    SqlError::new(1049, "42000", format!("Unknown database '{db}'"))
}

pub fn no_such_table(db: &str, table: &str) -> SqlError {
    SqlError::new(1146, "42S02", format!("Table '{db}.{table}' doesn't exist"))
}

/// 1050: CREATE TABLE of a name that is taken.
pub fn table_exists(table: &str) -> SqlError {
    SqlError::new(1050, "42S01", format!("Table '{table}' already exists"))
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

/// A regular expression PCRE2 refused (MariaDB's ER_REGEXP_ERROR).
pub fn regexp(message: &str) -> SqlError {
    SqlError::new(1139, "42000", format!("Regex error '{message}'"))
}

pub fn wrong_param_count(name: &str) -> SqlError {
    SqlError::new(1582, "42000", format!("Incorrect parameter count in the call to native function '{name}'"))
}

pub fn invalid_group_function() -> SqlError {
    SqlError::new(1111, "HY000", "Invalid use of group function")
}

pub fn rollup_with_order_by() -> SqlError {
    SqlError::new(1221, "HY000", "Incorrect usage of CUBE/ROLLUP and ORDER BY")
}

// ---- table value constructors ----

pub fn values_column_count() -> SqlError {
    SqlError::new(4099, "HY000", "The used table value constructor has a different number of values")
}

pub fn values_field_reference(name: &str) -> SqlError {
    SqlError::new(4100, "HY000", format!("Field reference '{name}' can't be used in table value constructor"))
}

// ---- common table expressions ----

pub fn derived_column_count() -> SqlError {
    SqlError::new(
        1353,
        "HY000",
        "In definition of view, derived table or common table expression, SELECT list and column names list have different column counts",
    )
}

pub fn cte_column_count() -> SqlError {
    SqlError::new(4002, "HY000", "WITH column list and SELECT field list have different column counts")
}

pub fn no_recursive_anchor(name: &str) -> SqlError {
    SqlError::new(4005, "HY000", format!("No anchors for recursive WITH element '{name}'"))
}

pub fn recursive_restrictions(name: &str) -> SqlError {
    SqlError::new(
        4008,
        "HY000",
        format!("Restrictions imposed on recursive definitions are violated for table '{name}'"),
    )
}

/// Warning 1931 when a recursive CTE stops at @@max_recursive_iterations.
pub fn max_recursive_iterations_message(limit: u64) -> String {
    format!(
        "Query execution was interrupted. The query exceeded max_recursive_iterations = {limit}. The query result may be incomplete"
    )
}

// ---- window functions (MariaDB's ER_WRONG_WINDOW_SPEC_NAME .. ER_NOT_SUPPORTED_YET) ----

pub fn window_spec_not_defined(name: &str) -> SqlError {
    SqlError::new(4009, "HY000", format!("Window specification with name '{name}' is not defined"))
}

pub fn window_spec_duplicate(name: &str) -> SqlError {
    SqlError::new(4010, "HY000", format!("Multiple window specifications with the same name '{name}'"))
}

pub fn window_ref_with_partition(name: &str) -> SqlError {
    SqlError::new(
        4011,
        "HY000",
        format!("Window specification referencing another one '{name}' cannot contain partition list"),
    )
}

pub fn window_ref_order_twice(name: &str) -> SqlError {
    SqlError::new(4012, "HY000", format!("Referenced window specification '{name}' already contains order list"))
}

pub fn window_ref_with_frame(name: &str) -> SqlError {
    SqlError::new(4013, "HY000", format!("Referenced window specification '{name}' cannot contain window frame"))
}

pub fn window_frame_bounds() -> SqlError {
    SqlError::new(4014, "HY000", "Unacceptable combination of window frame bound specifications")
}

pub fn window_function_misplaced() -> SqlError {
    SqlError::new(4015, "HY000", "Window function is allowed only in SELECT list and ORDER BY clause")
}

pub fn window_frame_not_allowed(function: &str) -> SqlError {
    SqlError::new(4017, "HY000", format!("Window frame is not allowed with '{function}'"))
}

pub fn window_range_frame_single_key() -> SqlError {
    SqlError::new(4019, "HY000", "RANGE-type frame requires ORDER BY clause with single sort key")
}

pub fn window_rows_frame_integer() -> SqlError {
    SqlError::new(4020, "HY000", "Integer is required for ROWS-type frame")
}

pub fn window_range_frame_numeric() -> SqlError {
    SqlError::new(4021, "HY000", "Numeric datatype is required for RANGE-type frame")
}

pub fn ntile_argument() -> SqlError {
    SqlError::new(4024, "HY000", "Argument of NTILE must be greater than 0")
}

pub fn window_function_in_aggregate() -> SqlError {
    SqlError::new(4074, "HY000", "Window functions can not be used as arguments to group functions.")
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

/// 1225: an option given twice (CREATE / ALTER SEQUENCE).
pub fn option_used_twice(option: &str) -> SqlError {
    SqlError::new(1225, "HY000", format!("Option '{option}' used twice in statement"))
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

/// A wait for a user-level lock would close a cycle of waits (MariaDB's metadata-lock deadlock).
pub fn deadlock() -> SqlError {
    SqlError::new(1213, "40001", "Deadlock found when trying to get lock; try restarting transaction")
}

/// The statement ran past max_statement_time.
pub fn statement_time_exceeded() -> SqlError {
    SqlError::new(1969, "70100", "Query execution was interrupted (max_statement_time exceeded)")
}

/// EXECUTE ... USING with a subquery among its arguments.
pub fn using_subquery() -> SqlError {
    SqlError::new(1970, "42000", "EXECUTE..USING does not support subqueries or stored functions")
}

/// SET STATEMENT naming a variable it cannot set for one statement.
pub fn no_set_statement(name: &str) -> SqlError {
    SqlError::new(1971, "42000", format!("The system variable {name} cannot be set in SET STATEMENT."))
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

/// MariaDB 10.11's 1426 names no number: "Too big precision specified for 'c'. Maximum is 65".
pub fn too_big_precision(_precision: u64, col: &str, max: u8) -> SqlError {
    SqlError::new(1426, "42000", format!("Too big precision specified for '{col}'. Maximum is {max}"))
}

pub fn too_big_scale(_scale: u64, col: &str, max: u8) -> SqlError {
    SqlError::new(1425, "42000", format!("Too big scale specified for '{col}'. Maximum is {max}"))
}

pub fn display_width_out_of_range(col: &str, max: u64) -> SqlError {
    SqlError::new(1439, "42000", format!("Display width out of range for '{col}' (max = {max})"))
}

pub fn scale_above_precision(col: &str) -> SqlError {
    SqlError::new(
        1427,
        "42000",
        format!("For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '{col}')"),
    )
}

pub fn too_big_fsp(_fsp: u64, col: &str) -> SqlError {
    SqlError::new(1426, "42000", format!("Too big precision specified for '{col}'. Maximum is 6"))
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

// ---- ALTER TABLE (alter.rs) ----

/// 1054 as ALTER TABLE words it: the table, not a clause.
pub fn unknown_column_in_table(col: &str, table: &str) -> SqlError {
    SqlError::new(1054, "42S22", format!("Unknown column '{col}' in '{table}'"))
}

pub fn cant_drop_column(col: &str) -> SqlError {
    SqlError::new(1091, "42000", format!("Can't DROP COLUMN `{col}`; check that it exists"))
}

pub fn cant_remove_all_fields() -> SqlError {
    SqlError::new(1090, "42000", "You can't delete all columns with ALTER TABLE; use DROP TABLE instead")
}

/// 1846: the ALTER cannot run with the requested ALGORITHM or LOCK, and why.
pub fn alter_operation_not_supported_reason(what: &str, reason: &str, try_instead: &str) -> SqlError {
    SqlError::new(1846, "0A000", format!("{what} is not supported. Reason: {reason}. Try {try_instead}"))
}

/// 1845: the ALTER cannot run with the requested ALGORITHM.
/// 1478: a table option the engine does not take (InnoDB and ROW_FORMAT=FIXED / PAGE).
pub fn unsupported_create_option(engine: &str, option: &str) -> SqlError {
    SqlError::new(
        1478,
        "HY000",
        format!("Table storage engine '{engine}' does not support the create option '{option}'"),
    )
}

pub fn alter_operation_not_supported(what: &str, try_instead: &str) -> SqlError {
    SqlError::new(1845, "0A000", format!("{what} is not supported for this operation. Try {try_instead}"))
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

// ---- constraints (FOREIGN KEY, CHECK), as MariaDB 10.11 / InnoDB report them ----

/// 4025: a CHECK constraint is false for the row.
pub fn check_failed(name: &str, db: &str, table: &str) -> SqlError {
    SqlError::new(4025, "23000", format!("CONSTRAINT `{name}` failed for `{db}`.`{table}`"))
}

/// 1452: no parent row. `fk` is the constraint as SHOW CREATE TABLE prints it, after the child.
/// The code of `no_referenced_row` (UPDATE IGNORE skips such rows).
pub const NO_REFERENCED_ROW: u16 = 1452;
/// The code of `row_is_referenced` (DELETE IGNORE turns it into a warning).
pub const ROW_IS_REFERENCED: u16 = 1451;

pub fn no_referenced_row(fk: &str) -> SqlError {
    SqlError::new(
        NO_REFERENCED_ROW,
        "23000",
        format!("Cannot add or update a child row: a foreign key constraint fails ({fk})"),
    )
}

/// 1451: the parent row has children (RESTRICT / NO ACTION).
pub fn row_is_referenced(fk: &str) -> SqlError {
    SqlError::new(
        ROW_IS_REFERENCED,
        "23000",
        format!("Cannot delete or update a parent row: a foreign key constraint fails ({fk})"),
    )
}

/// 1451 without the constraint: DROP TABLE of a referenced parent.
pub fn drop_referenced_table() -> SqlError {
    SqlError::new(1451, "23000", "Cannot delete or update a parent row: a foreign key constraint fails")
}

/// 1701: TRUNCATE of a referenced parent.
pub fn truncate_referenced(fk: &str) -> SqlError {
    SqlError::new(1701, "42000", format!("Cannot truncate a table referenced in a foreign key constraint ({fk})"))
}

/// 1005 with InnoDB's errno 150.
pub fn foreign_key_incorrectly_formed(db: &str, table: &str) -> SqlError {
    SqlError::new(
        1005,
        "HY000",
        format!("Can't create table `{db}`.`{table}` (errno: 150 \"Foreign key constraint is incorrectly formed\")"),
    )
}

/// 1832: a column of the table's own foreign key `key` cannot change its type.
pub fn foreign_key_column_in_key(column: &str, key: &str) -> SqlError {
    SqlError::new(1832, "HY000", format!("Cannot change column '{column}': used in a foreign key constraint '{key}'"))
}

/// 1833: a column that the foreign key `key` of `table` references cannot change its type.
pub fn foreign_key_column_referenced(column: &str, key: &str, table: &str) -> SqlError {
    SqlError::new(
        1833,
        "HY000",
        format!("Cannot change column '{column}': used in a foreign key constraint '{key}' of table '{table}'"),
    )
}

/// 1005 with errno 140: CREATE TABLE with options the engine refuses (InnoDB and
/// ROW_FORMAT=FIXED / PAGE).
pub fn wrong_create_options(db: &str, table: &str) -> SqlError {
    SqlError::new(1005, "HY000", format!("Can't create table `{db}`.`{table}` (errno: 140 \"Wrong create options\")"))
}

/// 1005 with errno 121: a foreign key name another table of the database uses (InnoDB's
/// foreign key names are per database).
pub fn foreign_key_duplicate_name(db: &str, table: &str) -> SqlError {
    SqlError::new(
        1005,
        "HY000",
        format!("Can't create table `{db}`.`{table}` (errno: 121 \"Duplicate key on write or update\")"),
    )
}

/// 1239: the two column lists of a FOREIGN KEY differ in length.
pub fn foreign_key_column_count(name: Option<&str>) -> SqlError {
    SqlError::new(
        1239,
        "42000",
        format!(
            "Incorrect foreign key definition for '{}': Key reference and table reference don't match",
            name.unwrap_or("foreign key without name")
        ),
    )
}

/// InnoDB's cascade depth limit on DELETE: error 193 of the storage engine (1296).
pub fn cascade_delete_too_deep(fk: &str) -> SqlError {
    SqlError::new(1296, "HY000", format!("Got error 193 '{fk}' from InnoDB"))
}

/// InnoDB's cascade depth limit on UPDATE (MariaDB sends the handler error number, 152).
pub fn cascade_update_too_deep() -> SqlError {
    SqlError::new(
        152,
        "23000",
        "InnoDB: Cannot delete/update rows with cascading foreign key constraints that exceed max depth of 15. \
         Please drop extra constraints and try again",
    )
}

/// 1826: two CHECK constraints (or two foreign keys) with one name.
pub fn duplicate_constraint_name(kind: &str, name: &str) -> SqlError {
    SqlError::new(1826, "HY000", format!("Duplicate {kind} constraint name '{name}'"))
}

/// 1091 for DROP FOREIGN KEY / DROP CONSTRAINT of a name the table does not have.
pub fn cant_drop_constraint(kind: &str, name: &str) -> SqlError {
    SqlError::new(1091, "42000", format!("Can't DROP {kind} `{name}`; check that it exists"))
}

/// 1288: a multi-table UPDATE / DELETE whose target is a derived table.
pub fn target_not_updatable(name: &str, verb: &str) -> SqlError {
    SqlError::new(1288, "HY000", format!("The target table {name} of the {verb} is not updatable"))
}

/// 1109: a multi-table DELETE target that names no table of its FROM clause.
pub fn unknown_table_in_multi_delete(name: &str) -> SqlError {
    SqlError::new(1109, "42S02", format!("Unknown table '{name}' in MULTI DELETE"))
}

/// 1290: a file path outside @@secure_file_priv (INTO OUTFILE, LOAD DATA INFILE).
pub fn secure_file_priv() -> SqlError {
    SqlError::new(
        1290,
        "HY000",
        "The MariaDB server is running with the --secure-file-priv option so it cannot execute this statement",
    )
}

/// 1086: INTO OUTFILE / DUMPFILE never overwrites a file.
pub fn file_exists(path: &str) -> SqlError {
    SqlError::new(1086, "HY000", format!("File '{path}' already exists"))
}

/// 1: INTO OUTFILE / DUMPFILE could not create or write its file.
pub fn cant_create_file(path: &str, e: &std::io::Error) -> SqlError {
    cant_create_temp_file(path, e)
}

/// 1172: SELECT ... INTO variables (or DUMPFILE) of more than one row.
pub fn more_than_one_row() -> SqlError {
    SqlError::new(1172, "42000", "Result consisted of more than one row")
}

/// 13 (mysys EE_STAT): LOAD DATA INFILE of a file that cannot be read.
pub fn cant_stat(path: &str, e: &std::io::Error) -> SqlError {
    let e = if e.raw_os_error().is_some() {
        std::io::Error::from_raw_os_error(e.raw_os_error().unwrap_or(2))
    } else {
        std::io::Error::from_raw_os_error(2)
    };
    SqlError::new(13, "HY000", format!("Can't get stat of '{path}' ({})", errcode(&e)))
}

/// 4166: LOAD DATA LOCAL when the client cannot send files or @@local_infile is OFF.
pub fn local_infile_refused() -> SqlError {
    SqlError::new(
        4166,
        "HY000",
        "The used command is not allowed because the MariaDB server or client has disabled the local infile capability",
    )
}
