//! Column layouts of result sets: information_schema tables (copied from MariaDB 10.11.19's
//! `information_schema.COLUMNS`: names, order, declared types, nullability) and the SHOW
//! statements that MariaDB does not derive from them. A layout's declared type (`varchar(64)`,
//! `bigint(21) unsigned`, ...) gives both the COLUMN_TYPE that information_schema.COLUMNS shows
//! and, through `sql_type`, the wire metadata of the result column.

use crate::types::{column_flags, ColumnDefinition, Value};
use crate::value::SqlType;

pub(crate) const INFORMATION_SCHEMA: &str = "information_schema";

/// One column of an information_schema table.
pub(crate) struct IsColumn {
    pub name: &'static str,
    pub column_type: &'static str,
    pub nullable: bool,
}

pub(crate) struct IsTable {
    pub name: &'static str,
    pub columns: &'static [IsColumn],
}

const fn c(name: &'static str, column_type: &'static str, nullable: bool) -> IsColumn {
    IsColumn { name, column_type, nullable }
}

/// Sorted by name (lookups binary-search; a unit test checks the order). Untracked PROCESSLIST
/// counters (memory, examined rows, query and OS thread ids) are nullable here, unlike
/// MariaDB's, because Selkie reports them as NULL rather than inventing numbers.
pub(crate) static IS_TABLES: &[IsTable] = &[
    IsTable {
        name: "CHARACTER_SETS",
        columns: &[
            c("CHARACTER_SET_NAME", "varchar(32)", false),
            c("DEFAULT_COLLATE_NAME", "varchar(64)", false),
            c("DESCRIPTION", "varchar(60)", false),
            c("MAXLEN", "bigint(3)", false),
        ],
    },
    IsTable {
        name: "CHECK_CONSTRAINTS",
        columns: &[
            c("CONSTRAINT_CATALOG", "varchar(512)", false),
            c("CONSTRAINT_SCHEMA", "varchar(64)", false),
            c("TABLE_NAME", "varchar(64)", false),
            c("CONSTRAINT_NAME", "varchar(64)", false),
            c("LEVEL", "varchar(6)", false),
            c("CHECK_CLAUSE", "longtext", false),
        ],
    },
    IsTable {
        name: "COLLATIONS",
        columns: &[
            c("COLLATION_NAME", "varchar(64)", false),
            c("CHARACTER_SET_NAME", "varchar(32)", true),
            c("ID", "bigint(11)", true),
            c("IS_DEFAULT", "varchar(3)", true),
            c("IS_COMPILED", "varchar(3)", false),
            c("SORTLEN", "bigint(3)", false),
        ],
    },
    IsTable {
        name: "COLLATION_CHARACTER_SET_APPLICABILITY",
        columns: &[
            c("COLLATION_NAME", "varchar(64)", false),
            c("CHARACTER_SET_NAME", "varchar(32)", false),
            c("FULL_COLLATION_NAME", "varchar(64)", false),
            c("ID", "bigint(11)", false),
            c("IS_DEFAULT", "varchar(3)", false),
        ],
    },
    IsTable {
        name: "COLUMNS",
        columns: &[
            c("TABLE_CATALOG", "varchar(512)", false),
            c("TABLE_SCHEMA", "varchar(64)", false),
            c("TABLE_NAME", "varchar(64)", false),
            c("COLUMN_NAME", "varchar(64)", false),
            c("ORDINAL_POSITION", "bigint(21) unsigned", false),
            c("COLUMN_DEFAULT", "longtext", true),
            c("IS_NULLABLE", "varchar(3)", false),
            c("DATA_TYPE", "varchar(64)", false),
            c("CHARACTER_MAXIMUM_LENGTH", "bigint(21) unsigned", true),
            c("CHARACTER_OCTET_LENGTH", "bigint(21) unsigned", true),
            c("NUMERIC_PRECISION", "bigint(21) unsigned", true),
            c("NUMERIC_SCALE", "bigint(21) unsigned", true),
            c("DATETIME_PRECISION", "bigint(21) unsigned", true),
            c("CHARACTER_SET_NAME", "varchar(32)", true),
            c("COLLATION_NAME", "varchar(64)", true),
            c("COLUMN_TYPE", "longtext", false),
            c("COLUMN_KEY", "varchar(3)", false),
            c("EXTRA", "varchar(80)", false),
            c("PRIVILEGES", "varchar(80)", false),
            c("COLUMN_COMMENT", "varchar(1024)", false),
            c("IS_GENERATED", "varchar(6)", false),
            c("GENERATION_EXPRESSION", "longtext", true),
        ],
    },
    IsTable {
        name: "COLUMN_PRIVILEGES",
        columns: &[
            c("GRANTEE", "varchar(385)", false),
            c("TABLE_CATALOG", "varchar(512)", false),
            c("TABLE_SCHEMA", "varchar(64)", false),
            c("TABLE_NAME", "varchar(64)", false),
            c("COLUMN_NAME", "varchar(64)", false),
            c("PRIVILEGE_TYPE", "varchar(64)", false),
            c("IS_GRANTABLE", "varchar(3)", false),
        ],
    },
    IsTable {
        name: "ENGINES",
        columns: &[
            c("ENGINE", "varchar(64)", false),
            c("SUPPORT", "varchar(8)", false),
            c("COMMENT", "varchar(160)", false),
            c("TRANSACTIONS", "varchar(3)", true),
            c("XA", "varchar(3)", true),
            c("SAVEPOINTS", "varchar(3)", true),
        ],
    },
    IsTable {
        name: "EVENTS",
        columns: &[
            c("EVENT_CATALOG", "varchar(64)", false),
            c("EVENT_SCHEMA", "varchar(64)", false),
            c("EVENT_NAME", "varchar(64)", false),
            c("DEFINER", "varchar(384)", false),
            c("TIME_ZONE", "varchar(64)", false),
            c("EVENT_BODY", "varchar(8)", false),
            c("EVENT_DEFINITION", "longtext", false),
            c("EVENT_TYPE", "varchar(9)", false),
            c("EXECUTE_AT", "datetime", true),
            c("INTERVAL_VALUE", "varchar(256)", true),
            c("INTERVAL_FIELD", "varchar(18)", true),
            c("SQL_MODE", "varchar(8192)", false),
            c("STARTS", "datetime", true),
            c("ENDS", "datetime", true),
            c("STATUS", "varchar(18)", false),
            c("ON_COMPLETION", "varchar(12)", false),
            c("CREATED", "datetime", false),
            c("LAST_ALTERED", "datetime", false),
            c("LAST_EXECUTED", "datetime", true),
            c("EVENT_COMMENT", "varchar(64)", false),
            c("ORIGINATOR", "bigint(10)", false),
            c("CHARACTER_SET_CLIENT", "varchar(32)", false),
            c("COLLATION_CONNECTION", "varchar(64)", false),
            c("DATABASE_COLLATION", "varchar(64)", false),
        ],
    },
    IsTable {
        name: "FILES",
        columns: &[
            c("FILE_ID", "bigint(4)", false),
            c("FILE_NAME", "varchar(512)", true),
            c("FILE_TYPE", "varchar(20)", false),
            c("TABLESPACE_NAME", "varchar(64)", true),
            c("TABLE_CATALOG", "varchar(64)", false),
            c("TABLE_SCHEMA", "varchar(64)", true),
            c("TABLE_NAME", "varchar(64)", true),
            c("LOGFILE_GROUP_NAME", "varchar(64)", true),
            c("LOGFILE_GROUP_NUMBER", "bigint(4)", true),
            c("ENGINE", "varchar(64)", false),
            c("FULLTEXT_KEYS", "varchar(64)", true),
            c("DELETED_ROWS", "bigint(4)", true),
            c("UPDATE_COUNT", "bigint(4)", true),
            c("FREE_EXTENTS", "bigint(4)", true),
            c("TOTAL_EXTENTS", "bigint(4)", true),
            c("EXTENT_SIZE", "bigint(4)", false),
            c("INITIAL_SIZE", "bigint(21) unsigned", true),
            c("MAXIMUM_SIZE", "bigint(21) unsigned", true),
            c("AUTOEXTEND_SIZE", "bigint(21) unsigned", true),
            c("CREATION_TIME", "datetime", true),
            c("LAST_UPDATE_TIME", "datetime", true),
            c("LAST_ACCESS_TIME", "datetime", true),
            c("RECOVER_TIME", "bigint(4)", true),
            c("TRANSACTION_COUNTER", "bigint(4)", true),
            c("VERSION", "bigint(21) unsigned", true),
            c("ROW_FORMAT", "varchar(10)", true),
            c("TABLE_ROWS", "bigint(21) unsigned", true),
            c("AVG_ROW_LENGTH", "bigint(21) unsigned", true),
            c("DATA_LENGTH", "bigint(21) unsigned", true),
            c("MAX_DATA_LENGTH", "bigint(21) unsigned", true),
            c("INDEX_LENGTH", "bigint(21) unsigned", true),
            c("DATA_FREE", "bigint(21) unsigned", true),
            c("CREATE_TIME", "datetime", true),
            c("UPDATE_TIME", "datetime", true),
            c("CHECK_TIME", "datetime", true),
            c("CHECKSUM", "bigint(21) unsigned", true),
            c("STATUS", "varchar(20)", false),
            c("EXTRA", "varchar(255)", true),
        ],
    },
    IsTable {
        name: "GLOBAL_STATUS",
        columns: &[c("VARIABLE_NAME", "varchar(64)", false), c("VARIABLE_VALUE", "varchar(4096)", false)],
    },
    IsTable {
        name: "GLOBAL_VARIABLES",
        columns: &[c("VARIABLE_NAME", "varchar(64)", false), c("VARIABLE_VALUE", "varchar(4096)", false)],
    },
    IsTable {
        name: "KEY_COLUMN_USAGE",
        columns: &[
            c("CONSTRAINT_CATALOG", "varchar(512)", false),
            c("CONSTRAINT_SCHEMA", "varchar(64)", false),
            c("CONSTRAINT_NAME", "varchar(64)", false),
            c("TABLE_CATALOG", "varchar(512)", false),
            c("TABLE_SCHEMA", "varchar(64)", false),
            c("TABLE_NAME", "varchar(64)", false),
            c("COLUMN_NAME", "varchar(64)", false),
            c("ORDINAL_POSITION", "bigint(10)", false),
            c("POSITION_IN_UNIQUE_CONSTRAINT", "bigint(10)", true),
            c("REFERENCED_TABLE_SCHEMA", "varchar(64)", true),
            c("REFERENCED_TABLE_NAME", "varchar(64)", true),
            c("REFERENCED_COLUMN_NAME", "varchar(64)", true),
        ],
    },
    IsTable {
        name: "PARAMETERS",
        columns: &[
            c("SPECIFIC_CATALOG", "varchar(512)", false),
            c("SPECIFIC_SCHEMA", "varchar(64)", false),
            c("SPECIFIC_NAME", "varchar(64)", false),
            c("ORDINAL_POSITION", "int(21)", false),
            c("PARAMETER_MODE", "varchar(5)", true),
            c("PARAMETER_NAME", "varchar(64)", true),
            c("DATA_TYPE", "varchar(64)", false),
            c("CHARACTER_MAXIMUM_LENGTH", "int(21)", true),
            c("CHARACTER_OCTET_LENGTH", "int(21)", true),
            c("NUMERIC_PRECISION", "int(21)", true),
            c("NUMERIC_SCALE", "int(21)", true),
            c("DATETIME_PRECISION", "bigint(21) unsigned", true),
            c("CHARACTER_SET_NAME", "varchar(64)", true),
            c("COLLATION_NAME", "varchar(64)", true),
            c("DTD_IDENTIFIER", "longtext", false),
            c("ROUTINE_TYPE", "varchar(9)", false),
        ],
    },
    IsTable {
        name: "PARTITIONS",
        columns: &[
            c("TABLE_CATALOG", "varchar(512)", false),
            c("TABLE_SCHEMA", "varchar(64)", false),
            c("TABLE_NAME", "varchar(64)", false),
            c("PARTITION_NAME", "varchar(64)", true),
            c("SUBPARTITION_NAME", "varchar(64)", true),
            c("PARTITION_ORDINAL_POSITION", "bigint(21) unsigned", true),
            c("SUBPARTITION_ORDINAL_POSITION", "bigint(21) unsigned", true),
            c("PARTITION_METHOD", "varchar(18)", true),
            c("SUBPARTITION_METHOD", "varchar(12)", true),
            c("PARTITION_EXPRESSION", "longtext", true),
            c("SUBPARTITION_EXPRESSION", "longtext", true),
            c("PARTITION_DESCRIPTION", "longtext", true),
            c("TABLE_ROWS", "bigint(21) unsigned", false),
            c("AVG_ROW_LENGTH", "bigint(21) unsigned", false),
            c("DATA_LENGTH", "bigint(21) unsigned", false),
            c("MAX_DATA_LENGTH", "bigint(21) unsigned", true),
            c("INDEX_LENGTH", "bigint(21) unsigned", false),
            c("DATA_FREE", "bigint(21) unsigned", false),
            c("CREATE_TIME", "datetime", true),
            c("UPDATE_TIME", "datetime", true),
            c("CHECK_TIME", "datetime", true),
            c("CHECKSUM", "bigint(21) unsigned", true),
            c("PARTITION_COMMENT", "varchar(80)", false),
            c("NODEGROUP", "varchar(12)", false),
            c("TABLESPACE_NAME", "varchar(64)", true),
        ],
    },
    IsTable {
        name: "PLUGINS",
        columns: &[
            c("PLUGIN_NAME", "varchar(64)", false),
            c("PLUGIN_VERSION", "varchar(20)", false),
            c("PLUGIN_STATUS", "varchar(16)", false),
            c("PLUGIN_TYPE", "varchar(80)", false),
            c("PLUGIN_TYPE_VERSION", "varchar(20)", false),
            c("PLUGIN_LIBRARY", "varchar(64)", true),
            c("PLUGIN_LIBRARY_VERSION", "varchar(20)", true),
            c("PLUGIN_AUTHOR", "varchar(64)", true),
            c("PLUGIN_DESCRIPTION", "longtext", true),
            c("PLUGIN_LICENSE", "varchar(80)", false),
            c("LOAD_OPTION", "varchar(64)", false),
            c("PLUGIN_MATURITY", "varchar(12)", false),
            c("PLUGIN_AUTH_VERSION", "varchar(80)", true),
        ],
    },
    IsTable {
        name: "PROCESSLIST",
        columns: &[
            c("ID", "bigint(4)", false),
            c("USER", "varchar(128)", false),
            c("HOST", "varchar(64)", false),
            c("DB", "varchar(64)", true),
            c("COMMAND", "varchar(16)", false),
            c("TIME", "int(7)", false),
            c("STATE", "varchar(64)", true),
            c("INFO", "longtext", true),
            c("TIME_MS", "decimal(22,3)", false),
            c("STAGE", "tinyint(2)", false),
            c("MAX_STAGE", "tinyint(2)", false),
            c("PROGRESS", "decimal(7,3)", false),
            c("MEMORY_USED", "bigint(7)", true),
            c("MAX_MEMORY_USED", "bigint(7)", true),
            c("EXAMINED_ROWS", "int(7)", true),
            c("QUERY_ID", "bigint(4)", true),
            c("INFO_BINARY", "blob", true),
            c("TID", "bigint(4)", true),
        ],
    },
    IsTable {
        name: "REFERENTIAL_CONSTRAINTS",
        columns: &[
            c("CONSTRAINT_CATALOG", "varchar(512)", false),
            c("CONSTRAINT_SCHEMA", "varchar(64)", false),
            c("CONSTRAINT_NAME", "varchar(64)", false),
            c("UNIQUE_CONSTRAINT_CATALOG", "varchar(512)", false),
            c("UNIQUE_CONSTRAINT_SCHEMA", "varchar(64)", false),
            c("UNIQUE_CONSTRAINT_NAME", "varchar(64)", true),
            c("MATCH_OPTION", "varchar(64)", false),
            c("UPDATE_RULE", "varchar(64)", false),
            c("DELETE_RULE", "varchar(64)", false),
            c("TABLE_NAME", "varchar(64)", false),
            c("REFERENCED_TABLE_NAME", "varchar(64)", true),
        ],
    },
    IsTable {
        name: "ROUTINES",
        columns: &[
            c("SPECIFIC_NAME", "varchar(64)", false),
            c("ROUTINE_CATALOG", "varchar(512)", false),
            c("ROUTINE_SCHEMA", "varchar(64)", false),
            c("ROUTINE_NAME", "varchar(64)", false),
            c("ROUTINE_TYPE", "varchar(13)", false),
            c("DATA_TYPE", "varchar(64)", false),
            c("CHARACTER_MAXIMUM_LENGTH", "int(21)", true),
            c("CHARACTER_OCTET_LENGTH", "int(21)", true),
            c("NUMERIC_PRECISION", "int(21)", true),
            c("NUMERIC_SCALE", "int(21)", true),
            c("DATETIME_PRECISION", "bigint(21) unsigned", true),
            c("CHARACTER_SET_NAME", "varchar(64)", true),
            c("COLLATION_NAME", "varchar(64)", true),
            c("DTD_IDENTIFIER", "longtext", true),
            c("ROUTINE_BODY", "varchar(8)", false),
            c("ROUTINE_DEFINITION", "longtext", true),
            c("EXTERNAL_NAME", "varchar(64)", true),
            c("EXTERNAL_LANGUAGE", "varchar(64)", true),
            c("PARAMETER_STYLE", "varchar(8)", false),
            c("IS_DETERMINISTIC", "varchar(3)", false),
            c("SQL_DATA_ACCESS", "varchar(64)", false),
            c("SQL_PATH", "varchar(64)", true),
            c("SECURITY_TYPE", "varchar(7)", false),
            c("CREATED", "datetime", false),
            c("LAST_ALTERED", "datetime", false),
            c("SQL_MODE", "varchar(8192)", false),
            c("ROUTINE_COMMENT", "longtext", false),
            c("DEFINER", "varchar(384)", false),
            c("CHARACTER_SET_CLIENT", "varchar(32)", false),
            c("COLLATION_CONNECTION", "varchar(64)", false),
            c("DATABASE_COLLATION", "varchar(64)", false),
        ],
    },
    IsTable {
        name: "SCHEMATA",
        columns: &[
            c("CATALOG_NAME", "varchar(512)", false),
            c("SCHEMA_NAME", "varchar(64)", false),
            c("DEFAULT_CHARACTER_SET_NAME", "varchar(32)", false),
            c("DEFAULT_COLLATION_NAME", "varchar(64)", false),
            c("SQL_PATH", "varchar(512)", true),
            c("SCHEMA_COMMENT", "varchar(1024)", false),
        ],
    },
    IsTable {
        name: "SCHEMA_PRIVILEGES",
        columns: &[
            c("GRANTEE", "varchar(385)", false),
            c("TABLE_CATALOG", "varchar(512)", false),
            c("TABLE_SCHEMA", "varchar(64)", false),
            c("PRIVILEGE_TYPE", "varchar(64)", false),
            c("IS_GRANTABLE", "varchar(3)", false),
        ],
    },
    IsTable {
        name: "SESSION_STATUS",
        columns: &[c("VARIABLE_NAME", "varchar(64)", false), c("VARIABLE_VALUE", "varchar(4096)", false)],
    },
    IsTable {
        name: "SESSION_VARIABLES",
        columns: &[c("VARIABLE_NAME", "varchar(64)", false), c("VARIABLE_VALUE", "varchar(4096)", false)],
    },
    IsTable {
        name: "STATISTICS",
        columns: &[
            c("TABLE_CATALOG", "varchar(512)", false),
            c("TABLE_SCHEMA", "varchar(64)", false),
            c("TABLE_NAME", "varchar(64)", false),
            c("NON_UNIQUE", "bigint(1)", false),
            c("INDEX_SCHEMA", "varchar(64)", false),
            c("INDEX_NAME", "varchar(64)", false),
            c("SEQ_IN_INDEX", "int(2) unsigned", false),
            c("COLUMN_NAME", "varchar(64)", false),
            c("COLLATION", "varchar(1)", true),
            c("CARDINALITY", "bigint(21)", true),
            c("SUB_PART", "bigint(3)", true),
            c("PACKED", "varchar(10)", true),
            c("NULLABLE", "varchar(3)", false),
            c("INDEX_TYPE", "varchar(16)", false),
            c("COMMENT", "varchar(16)", true),
            c("INDEX_COMMENT", "varchar(1024)", false),
            c("IGNORED", "varchar(3)", false),
        ],
    },
    IsTable {
        name: "SYSTEM_VARIABLES",
        columns: &[
            c("VARIABLE_NAME", "varchar(64)", false),
            c("SESSION_VALUE", "varchar(2048)", true),
            c("GLOBAL_VALUE", "varchar(2048)", true),
            c("GLOBAL_VALUE_ORIGIN", "varchar(64)", false),
            c("DEFAULT_VALUE", "varchar(2048)", true),
            c("VARIABLE_SCOPE", "varchar(64)", false),
            c("VARIABLE_TYPE", "varchar(64)", false),
            c("VARIABLE_COMMENT", "varchar(2048)", false),
            c("NUMERIC_MIN_VALUE", "varchar(21)", true),
            c("NUMERIC_MAX_VALUE", "varchar(21)", true),
            c("NUMERIC_BLOCK_SIZE", "varchar(21)", true),
            c("ENUM_VALUE_LIST", "longtext", true),
            c("READ_ONLY", "varchar(3)", false),
            c("COMMAND_LINE_ARGUMENT", "varchar(64)", true),
            c("GLOBAL_VALUE_PATH", "varchar(2048)", true),
        ],
    },
    IsTable {
        name: "TABLES",
        columns: &[
            c("TABLE_CATALOG", "varchar(512)", false),
            c("TABLE_SCHEMA", "varchar(64)", false),
            c("TABLE_NAME", "varchar(64)", false),
            c("TABLE_TYPE", "varchar(64)", false),
            c("ENGINE", "varchar(64)", true),
            c("VERSION", "bigint(21) unsigned", true),
            c("ROW_FORMAT", "varchar(10)", true),
            c("TABLE_ROWS", "bigint(21) unsigned", true),
            c("AVG_ROW_LENGTH", "bigint(21) unsigned", true),
            c("DATA_LENGTH", "bigint(21) unsigned", true),
            c("MAX_DATA_LENGTH", "bigint(21) unsigned", true),
            c("INDEX_LENGTH", "bigint(21) unsigned", true),
            c("DATA_FREE", "bigint(21) unsigned", true),
            c("AUTO_INCREMENT", "bigint(21) unsigned", true),
            c("CREATE_TIME", "datetime", true),
            c("UPDATE_TIME", "datetime", true),
            c("CHECK_TIME", "datetime", true),
            c("TABLE_COLLATION", "varchar(64)", true),
            c("CHECKSUM", "bigint(21) unsigned", true),
            c("CREATE_OPTIONS", "varchar(2048)", true),
            c("TABLE_COMMENT", "varchar(2048)", false),
            c("MAX_INDEX_LENGTH", "bigint(21) unsigned", true),
            c("TEMPORARY", "varchar(1)", true),
        ],
    },
    IsTable {
        name: "TABLE_CONSTRAINTS",
        columns: &[
            c("CONSTRAINT_CATALOG", "varchar(512)", false),
            c("CONSTRAINT_SCHEMA", "varchar(64)", false),
            c("CONSTRAINT_NAME", "varchar(64)", false),
            c("TABLE_SCHEMA", "varchar(64)", false),
            c("TABLE_NAME", "varchar(64)", false),
            c("CONSTRAINT_TYPE", "varchar(64)", false),
        ],
    },
    IsTable {
        name: "TABLE_PRIVILEGES",
        columns: &[
            c("GRANTEE", "varchar(385)", false),
            c("TABLE_CATALOG", "varchar(512)", false),
            c("TABLE_SCHEMA", "varchar(64)", false),
            c("TABLE_NAME", "varchar(64)", false),
            c("PRIVILEGE_TYPE", "varchar(64)", false),
            c("IS_GRANTABLE", "varchar(3)", false),
        ],
    },
    IsTable {
        name: "TRIGGERS",
        columns: &[
            c("TRIGGER_CATALOG", "varchar(512)", false),
            c("TRIGGER_SCHEMA", "varchar(64)", false),
            c("TRIGGER_NAME", "varchar(64)", false),
            c("EVENT_MANIPULATION", "varchar(6)", false),
            c("EVENT_OBJECT_CATALOG", "varchar(512)", false),
            c("EVENT_OBJECT_SCHEMA", "varchar(64)", false),
            c("EVENT_OBJECT_TABLE", "varchar(64)", false),
            c("ACTION_ORDER", "bigint(4)", false),
            c("ACTION_CONDITION", "longtext", true),
            c("ACTION_STATEMENT", "longtext", true),
            c("ACTION_ORIENTATION", "varchar(9)", false),
            c("ACTION_TIMING", "varchar(6)", false),
            c("ACTION_REFERENCE_OLD_TABLE", "varchar(64)", true),
            c("ACTION_REFERENCE_NEW_TABLE", "varchar(64)", true),
            c("ACTION_REFERENCE_OLD_ROW", "varchar(3)", false),
            c("ACTION_REFERENCE_NEW_ROW", "varchar(3)", false),
            c("CREATED", "datetime(2)", true),
            c("SQL_MODE", "varchar(8192)", false),
            c("DEFINER", "varchar(384)", true),
            c("CHARACTER_SET_CLIENT", "varchar(32)", false),
            c("COLLATION_CONNECTION", "varchar(64)", false),
            c("DATABASE_COLLATION", "varchar(64)", false),
        ],
    },
    IsTable {
        name: "USER_PRIVILEGES",
        columns: &[
            c("GRANTEE", "varchar(385)", false),
            c("TABLE_CATALOG", "varchar(512)", false),
            c("PRIVILEGE_TYPE", "varchar(64)", false),
            c("IS_GRANTABLE", "varchar(3)", false),
        ],
    },
    IsTable {
        name: "VIEWS",
        columns: &[
            c("TABLE_CATALOG", "varchar(512)", false),
            c("TABLE_SCHEMA", "varchar(64)", false),
            c("TABLE_NAME", "varchar(64)", false),
            c("VIEW_DEFINITION", "longtext", false),
            c("CHECK_OPTION", "varchar(8)", false),
            c("IS_UPDATABLE", "varchar(3)", false),
            c("DEFINER", "varchar(384)", false),
            c("SECURITY_TYPE", "varchar(7)", false),
            c("CHARACTER_SET_CLIENT", "varchar(32)", false),
            c("COLLATION_CONNECTION", "varchar(64)", false),
            c("ALGORITHM", "varchar(10)", false),
        ],
    },
];

/// Case-insensitive lookup (information_schema names are case-insensitive in MariaDB).
pub(crate) fn is_table(name: &str) -> Option<&'static IsTable> {
    let upper = name.to_ascii_uppercase();
    IS_TABLES.binary_search_by(|t| t.name.cmp(upper.as_str())).ok().map(|i| &IS_TABLES[i])
}

impl IsTable {
    pub(crate) fn column(&self, name: &str) -> &'static IsColumn {
        let cols: &'static [IsColumn] = self.columns;
        match cols.iter().find(|c| c.name == name) {
            Some(col) => col,
            None => panic!("information_schema.{} has no column {name}", self.name),
        }
    }
}

/// Largest character count a LONGTEXT column can declare in `SqlType::Text`.
const LONGTEXT_CHARS: u32 = u32::MAX / 4;

/// The result type of a declared information_schema / SHOW column type. Only the forms the
/// layouts use are accepted; anything else is a bug in a layout (unit-tested).
pub(crate) fn sql_type(column_type: &str) -> Option<SqlType> {
    let (base, rest) = match column_type.find('(') {
        Some(i) => (&column_type[..i], &column_type[i..]),
        None => (column_type, ""),
    };
    let unsigned = rest.ends_with(" unsigned");
    let args = rest.strip_prefix('(').and_then(|r| r.split(')').next()).unwrap_or("");
    let first_num = || args.split(',').next().and_then(|n| n.trim().parse::<u32>().ok());
    Some(match base {
        "varchar" => SqlType::text(first_num()?, false),
        "longtext" => SqlType::text(LONGTEXT_CHARS, true),
        "blob" => SqlType::Bytes { max_len: 65_535, lob: true },
        "tinyint" => SqlType::Int { bits: 8, unsigned },
        "int" => SqlType::Int { bits: 32, unsigned },
        "bigint" => SqlType::Int { bits: 64, unsigned },
        "datetime" => SqlType::DateTime { fsp: if args.is_empty() { 0 } else { u8::try_from(first_num()?).ok()? } },
        "decimal" => {
            let mut it = args.split(',').map(|n| n.trim().parse::<u8>());
            let precision = it.next()?.ok()?;
            let scale = it.next()?.ok()?;
            SqlType::Decimal { precision, scale }
        }
        _ => return None,
    })
}

/// The `N` of `int(N)` / `bigint(N) unsigned`.
fn display_width(column_type: &str) -> Option<u32> {
    let args = column_type.split_once('(')?.1.split_once(')')?.0;
    args.trim().parse().ok()
}

/// A result column: `name` as the client sees it, `org_name` the underlying column.
pub(crate) fn column_meta(
    table: &str,
    name: &str,
    org_name: &str,
    column_type: &str,
    nullable: bool,
) -> ColumnDefinition {
    let ty = sql_type(column_type).unwrap_or(SqlType::text(64, false));
    debug_assert!(sql_type(column_type).is_some(), "layout type {column_type} not understood");
    let fm = ty.field_meta();
    let built_by_show = table.is_empty();
    let schema = if built_by_show { "" } else { INFORMATION_SCHEMA };
    let (mut length, mut flags, mut decimals) = (fm.length, fm.flags, fm.decimals);
    if let SqlType::Int { .. } = ty {
        // An integer's length is its display width (`int(4)`), as MariaDB sends it.
        if let Some(width) = display_width(column_type) {
            length = width;
        }
        // information_schema's integer columns are table columns (no BINARY flag); the ones
        // a SHOW statement builds are computed numbers.
        if !built_by_show {
            flags &= !column_flags::BINARY;
        }
    }
    if built_by_show && matches!(ty, SqlType::Text { .. }) {
        // MariaDB builds these as computed strings (decimals NOT_FIXED_DEC).
        decimals = 39;
    }
    ColumnDefinition {
        schema: schema.into(),
        table: table.into(),
        org_table: table.into(),
        name: name.into(),
        org_name: org_name.into(),
        charset: fm.charset,
        length,
        field_type: fm.field_type,
        flags: flags | if nullable { 0 } else { column_flags::NOT_NULL },
        decimals,
    }
}

/// All columns of an information_schema table, as result columns.
pub(crate) fn is_columns(table: &IsTable) -> Vec<ColumnDefinition> {
    table.columns.iter().map(|c| column_meta(table.name, c.name, c.name, c.column_type, c.nullable)).collect()
}

/// Columns of a SHOW statement that MariaDB computes from an information_schema table:
/// (SHOW's column name, the information_schema column it shows).
pub(crate) fn projected(table: &str, names: &[(&str, &str)]) -> Vec<ColumnDefinition> {
    let t = match is_table(table) {
        Some(t) => t,
        None => panic!("no information_schema.{table}"),
    };
    names
        .iter()
        .map(|(shown, org)| {
            let col = t.column(org);
            column_meta(t.name, shown, col.name, col.column_type, col.nullable)
        })
        .collect()
}

/// Signedness of each integer column (None for other types).
pub(crate) fn integer_signedness(columns: &[ColumnDefinition]) -> Vec<Option<bool>> {
    use crate::types::FieldType;
    columns
        .iter()
        .map(|c| match c.field_type {
            FieldType::Tiny | FieldType::Short | FieldType::Int24 | FieldType::Long | FieldType::LongLong => {
                Some(c.flags & column_flags::UNSIGNED != 0)
            }
            _ => None,
        })
        .collect()
}

/// Makes integer values agree with their column's signedness: rows are built with whichever
/// variant is natural, but the binary protocol encodes a value by its column's type.
pub(crate) fn conform_integers(rows: &mut [Vec<Value>], unsigned: &[Option<bool>]) {
    for row in rows {
        debug_assert_eq!(row.len(), unsigned.len());
        for (v, u) in row.iter_mut().zip(unsigned) {
            match (u, &*v) {
                (Some(false), Value::UInt(x)) if *x <= i64::MAX as u64 => *v = Value::Int(*x as i64),
                (Some(true), Value::Int(x)) if *x >= 0 => *v = Value::UInt(*x as u64),
                _ => {}
            }
        }
    }
}

/// A column of a SHOW statement MariaDB builds itself (no information_schema table behind it).
pub(crate) struct ShowColumn {
    pub name: &'static str,
    pub column_type: &'static str,
    pub nullable: bool,
}

const fn s(name: &'static str, column_type: &'static str, nullable: bool) -> ShowColumn {
    ShowColumn { name, column_type, nullable }
}

pub(crate) fn show_columns(cols: &[ShowColumn]) -> Vec<ColumnDefinition> {
    cols.iter().map(|c| column_meta("", c.name, "", c.column_type, c.nullable)).collect()
}

pub(crate) static PROCESSLIST: &[ShowColumn] = &[
    s("Id", "bigint(11)", false),
    s("User", "varchar(128)", false),
    s("Host", "varchar(64)", false),
    s("db", "varchar(64)", true),
    s("Command", "varchar(16)", false),
    s("Time", "int(7)", false),
    s("State", "varchar(30)", true),
    s("Info", "longtext", true),
    s("Progress", "decimal(7,3)", false),
];

pub(crate) static WARNINGS: &[ShowColumn] =
    &[s("Level", "varchar(7)", false), s("Code", "int(4) unsigned", false), s("Message", "varchar(512)", false)];

pub(crate) static CREATE_TABLE: &[ShowColumn] =
    &[s("Table", "varchar(64)", false), s("Create Table", "varchar(1024)", false)];

pub(crate) static CREATE_DATABASE: &[ShowColumn] =
    &[s("Database", "varchar(64)", false), s("Create Database", "varchar(1024)", false)];

pub(crate) static ENGINE_STATUS: &[ShowColumn] =
    &[s("Type", "varchar(10)", false), s("Name", "varchar(512)", false), s("Status", "varchar(10)", false)];

pub(crate) static MASTER_STATUS: &[ShowColumn] = &[
    s("File", "varchar(512)", false),
    s("Position", "bigint(20) unsigned", false),
    s("Binlog_Do_DB", "varchar(255)", false),
    s("Binlog_Ignore_DB", "varchar(255)", false),
];

/// MariaDB 10.11's SHOW SLAVE STATUS columns (types from its column metadata).
pub(crate) static SLAVE_STATUS: &[ShowColumn] = &[
    s("Slave_IO_State", "varchar(30)", false),
    s("Master_Host", "varchar(766)", false),
    s("Master_User", "varchar(385)", false),
    s("Master_Port", "int(7) unsigned", false),
    s("Connect_Retry", "int(10) unsigned", false),
    s("Master_Log_File", "varchar(512)", false),
    s("Read_Master_Log_Pos", "bigint(10) unsigned", false),
    s("Relay_Log_File", "varchar(512)", false),
    s("Relay_Log_Pos", "bigint(10) unsigned", false),
    s("Relay_Master_Log_File", "varchar(512)", false),
    s("Slave_IO_Running", "varchar(3)", false),
    s("Slave_SQL_Running", "varchar(3)", false),
    s("Replicate_Do_DB", "varchar(20)", false),
    s("Replicate_Ignore_DB", "varchar(20)", false),
    s("Replicate_Do_Table", "varchar(20)", false),
    s("Replicate_Ignore_Table", "varchar(23)", false),
    s("Replicate_Wild_Do_Table", "varchar(24)", false),
    s("Replicate_Wild_Ignore_Table", "varchar(28)", false),
    s("Last_Errno", "int(4) unsigned", false),
    s("Last_Error", "varchar(20)", false),
    s("Skip_Counter", "int(10) unsigned", false),
    s("Exec_Master_Log_Pos", "bigint(10) unsigned", false),
    s("Relay_Log_Space", "bigint(10) unsigned", false),
    s("Until_Condition", "varchar(6)", false),
    s("Until_Log_File", "varchar(512)", false),
    s("Until_Log_Pos", "bigint(10) unsigned", false),
    s("Master_SSL_Allowed", "varchar(7)", false),
    s("Master_SSL_CA_File", "varchar(512)", false),
    s("Master_SSL_CA_Path", "varchar(512)", false),
    s("Master_SSL_Cert", "varchar(512)", false),
    s("Master_SSL_Cipher", "varchar(512)", false),
    s("Master_SSL_Key", "varchar(512)", false),
    s("Seconds_Behind_Master", "bigint(10) unsigned", false),
    s("Master_SSL_Verify_Server_Cert", "varchar(3)", false),
    s("Last_IO_Errno", "int(4) unsigned", false),
    s("Last_IO_Error", "varchar(20)", false),
    s("Last_SQL_Errno", "int(4) unsigned", false),
    s("Last_SQL_Error", "varchar(20)", false),
    s("Replicate_Ignore_Server_Ids", "varchar(512)", false),
    s("Master_Server_Id", "int(8) unsigned", false),
    s("Master_SSL_Crl", "varchar(512)", false),
    s("Master_SSL_Crlpath", "varchar(512)", false),
    s("Using_Gtid", "varchar(11)", false),
    s("Gtid_IO_Pos", "varchar(30)", false),
    s("Replicate_Do_Domain_Ids", "varchar(512)", false),
    s("Replicate_Ignore_Domain_Ids", "varchar(512)", false),
    s("Parallel_Mode", "varchar(12)", false),
    s("SQL_Delay", "int(10) unsigned", false),
    s("SQL_Remaining_Delay", "int(8) unsigned", false),
    s("Slave_SQL_Running_State", "varchar(20)", false),
    s("Slave_DDL_Groups", "bigint(20) unsigned", false),
    s("Slave_Non_Transactional_Groups", "bigint(20) unsigned", false),
    s("Slave_Transactional_Groups", "bigint(20) unsigned", false),
    s("Replicate_Rewrite_DB", "varchar(23)", false),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_sorted_and_every_type_is_understood() {
        assert!(IS_TABLES.windows(2).all(|w| w[0].name < w[1].name));
        for t in IS_TABLES {
            assert!(!t.columns.is_empty());
            for col in t.columns {
                assert!(sql_type(col.column_type).is_some(), "{}.{}: {}", t.name, col.name, col.column_type);
            }
        }
        for cols in [PROCESSLIST, WARNINGS, CREATE_TABLE, CREATE_DATABASE, ENGINE_STATUS, MASTER_STATUS, SLAVE_STATUS] {
            for col in cols {
                assert!(sql_type(col.column_type).is_some(), "{}: {}", col.name, col.column_type);
            }
        }
    }

    #[test]
    fn integers_take_their_column_signedness() {
        let cols = vec![
            column_meta("T", "a", "a", "bigint(21) unsigned", false),
            column_meta("T", "b", "b", "bigint(3)", false),
            column_meta("T", "c", "c", "varchar(3)", false),
        ];
        let signs = integer_signedness(&cols);
        assert_eq!(signs, [Some(true), Some(false), None]);
        let mut rows = vec![
            vec![Value::Int(5), Value::UInt(7), Value::UInt(1)],
            vec![Value::Int(-1), Value::UInt(u64::MAX), Value::Null],
        ];
        conform_integers(&mut rows, &signs);
        assert_eq!(rows[0], [Value::UInt(5), Value::Int(7), Value::UInt(1)]);
        assert_eq!(
            rows[1],
            [Value::Int(-1), Value::UInt(u64::MAX), Value::Null],
            "out-of-range values are kept as they are"
        );
    }

    #[test]
    fn declared_types_map_to_sql_types() {
        assert_eq!(sql_type("varchar(64)"), Some(SqlType::text(64, false)));
        assert_eq!(sql_type("bigint(21) unsigned"), Some(SqlType::Int { bits: 64, unsigned: true }));
        assert_eq!(sql_type("bigint(1)"), Some(SqlType::Int { bits: 64, unsigned: false }));
        assert_eq!(sql_type("int(2) unsigned"), Some(SqlType::Int { bits: 32, unsigned: true }));
        assert_eq!(sql_type("decimal(7,3)"), Some(SqlType::Decimal { precision: 7, scale: 3 }));
        assert_eq!(sql_type("datetime"), Some(SqlType::DateTime { fsp: 0 }));
        assert_eq!(sql_type("datetime(2)"), Some(SqlType::DateTime { fsp: 2 }));
        assert!(matches!(sql_type("longtext"), Some(SqlType::Text { lob: true, .. })));
        assert_eq!(sql_type("geometry"), None);
        assert_eq!(sql_type("varchar(x)"), None);
        assert_eq!(sql_type("decimal(7)"), None);
    }

    #[test]
    fn mariadb_column_layouts() {
        let names = |t: &str| is_table(t).unwrap().columns.iter().map(|c| c.name).collect::<Vec<_>>();
        assert_eq!(
            names("schemata"),
            [
                "CATALOG_NAME",
                "SCHEMA_NAME",
                "DEFAULT_CHARACTER_SET_NAME",
                "DEFAULT_COLLATION_NAME",
                "SQL_PATH",
                "SCHEMA_COMMENT"
            ]
        );
        assert_eq!(
            names("STATISTICS"),
            [
                "TABLE_CATALOG",
                "TABLE_SCHEMA",
                "TABLE_NAME",
                "NON_UNIQUE",
                "INDEX_SCHEMA",
                "INDEX_NAME",
                "SEQ_IN_INDEX",
                "COLUMN_NAME",
                "COLLATION",
                "CARDINALITY",
                "SUB_PART",
                "PACKED",
                "NULLABLE",
                "INDEX_TYPE",
                "COMMENT",
                "INDEX_COMMENT",
                "IGNORED"
            ]
        );
        assert_eq!(names("TABLES").len(), 23);
        assert_eq!(names("COLUMNS").len(), 22);
        assert_eq!(names("SESSION_VARIABLES"), ["VARIABLE_NAME", "VARIABLE_VALUE"]);
        assert_eq!(names("KEY_COLUMN_USAGE").len(), 12);
        let rows = is_table("TABLES").unwrap().column("TABLE_ROWS");
        assert_eq!((rows.column_type, rows.nullable), ("bigint(21) unsigned", true));
        assert!(is_table("INNODB_TRX").is_none());
        assert!(is_table("nope").is_none());
    }
}
