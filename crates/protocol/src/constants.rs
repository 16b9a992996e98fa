//! Numeric constants of the MySQL/MariaDB client/server protocol.

/// Capability flags exchanged in the handshake (`CLIENT_*`).
pub mod capabilities {
    /// On MariaDB this bit is called CLIENT_MYSQL: when a server sets it, clients do not look
    /// for MariaDB's extended capability bytes in the greeting.
    pub const CLIENT_LONG_PASSWORD: u32 = 1;
    pub const CLIENT_FOUND_ROWS: u32 = 1 << 1;
    pub const CLIENT_LONG_FLAG: u32 = 1 << 2;
    pub const CLIENT_CONNECT_WITH_DB: u32 = 1 << 3;
    pub const CLIENT_NO_SCHEMA: u32 = 1 << 4;
    pub const CLIENT_COMPRESS: u32 = 1 << 5;
    pub const CLIENT_ODBC: u32 = 1 << 6;
    pub const CLIENT_LOCAL_FILES: u32 = 1 << 7;
    pub const CLIENT_IGNORE_SPACE: u32 = 1 << 8;
    pub const CLIENT_PROTOCOL_41: u32 = 1 << 9;
    pub const CLIENT_INTERACTIVE: u32 = 1 << 10;
    pub const CLIENT_SSL: u32 = 1 << 11;
    pub const CLIENT_IGNORE_SIGPIPE: u32 = 1 << 12;
    pub const CLIENT_TRANSACTIONS: u32 = 1 << 13;
    pub const CLIENT_RESERVED: u32 = 1 << 14;
    pub const CLIENT_SECURE_CONNECTION: u32 = 1 << 15;
    pub const CLIENT_MULTI_STATEMENTS: u32 = 1 << 16;
    pub const CLIENT_MULTI_RESULTS: u32 = 1 << 17;
    pub const CLIENT_PS_MULTI_RESULTS: u32 = 1 << 18;
    pub const CLIENT_PLUGIN_AUTH: u32 = 1 << 19;
    pub const CLIENT_CONNECT_ATTRS: u32 = 1 << 20;
    pub const CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA: u32 = 1 << 21;
    pub const CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS: u32 = 1 << 22;
    pub const CLIENT_SESSION_TRACK: u32 = 1 << 23;
    pub const CLIENT_DEPRECATE_EOF: u32 = 1 << 24;

    /// What selkied offers. Deliberately absent: SSL and COMPRESS (not implemented),
    /// SESSION_TRACK (no session state tracking).
    pub const SERVER_DEFAULT: u32 = CLIENT_LONG_PASSWORD
        | CLIENT_FOUND_ROWS
        | CLIENT_LONG_FLAG
        | CLIENT_CONNECT_WITH_DB
        | CLIENT_PROTOCOL_41
        | CLIENT_INTERACTIVE
        | CLIENT_IGNORE_SIGPIPE
        | CLIENT_TRANSACTIONS
        | CLIENT_SECURE_CONNECTION
        | CLIENT_MULTI_STATEMENTS
        | CLIENT_LOCAL_FILES
        | CLIENT_MULTI_RESULTS
        | CLIENT_PS_MULTI_RESULTS
        | CLIENT_PLUGIN_AUTH
        | CLIENT_CONNECT_ATTRS
        | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
        | CLIENT_DEPRECATE_EOF;

    /// What the built-in client asks for (intersected with the server's offer).
    pub const CLIENT_DEFAULT: u32 = CLIENT_LONG_PASSWORD
        | CLIENT_LONG_FLAG
        | CLIENT_PROTOCOL_41
        | CLIENT_TRANSACTIONS
        | CLIENT_SECURE_CONNECTION
        | CLIENT_MULTI_STATEMENTS
        | CLIENT_MULTI_RESULTS
        | CLIENT_PS_MULTI_RESULTS
        | CLIENT_PLUGIN_AUTH
        | CLIENT_CONNECT_ATTRS
        | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
        | CLIENT_DEPRECATE_EOF;
}

/// Server status flags carried by OK and EOF packets (`SERVER_STATUS_*`).
pub mod status {
    pub const SERVER_STATUS_IN_TRANS: u16 = 1;
    pub const SERVER_STATUS_AUTOCOMMIT: u16 = 2;
    pub const SERVER_MORE_RESULTS_EXISTS: u16 = 8;
    pub const SERVER_QUERY_NO_GOOD_INDEX_USED: u16 = 16;
    pub const SERVER_QUERY_NO_INDEX_USED: u16 = 32;
    pub const SERVER_STATUS_CURSOR_EXISTS: u16 = 64;
    pub const SERVER_STATUS_LAST_ROW_SENT: u16 = 128;
    pub const SERVER_STATUS_DB_DROPPED: u16 = 256;
    pub const SERVER_STATUS_NO_BACKSLASH_ESCAPES: u16 = 512;
    pub const SERVER_STATUS_METADATA_CHANGED: u16 = 1024;
    pub const SERVER_QUERY_WAS_SLOW: u16 = 2048;
    pub const SERVER_PS_OUT_PARAMS: u16 = 4096;
    pub const SERVER_STATUS_IN_TRANS_READONLY: u16 = 8192;
    pub const SERVER_SESSION_STATE_CHANGED: u16 = 16384;
}

/// Command bytes: the first byte of every client packet in the command phase.
pub mod command {
    pub const COM_SLEEP: u8 = 0x00;
    pub const COM_QUIT: u8 = 0x01;
    pub const COM_INIT_DB: u8 = 0x02;
    pub const COM_QUERY: u8 = 0x03;
    pub const COM_FIELD_LIST: u8 = 0x04;
    pub const COM_CREATE_DB: u8 = 0x05;
    pub const COM_DROP_DB: u8 = 0x06;
    pub const COM_REFRESH: u8 = 0x07;
    pub const COM_SHUTDOWN: u8 = 0x08;
    pub const COM_STATISTICS: u8 = 0x09;
    pub const COM_PROCESS_INFO: u8 = 0x0a;
    pub const COM_CONNECT: u8 = 0x0b;
    pub const COM_PROCESS_KILL: u8 = 0x0c;
    pub const COM_DEBUG: u8 = 0x0d;
    pub const COM_PING: u8 = 0x0e;
    pub const COM_TIME: u8 = 0x0f;
    pub const COM_DELAYED_INSERT: u8 = 0x10;
    pub const COM_CHANGE_USER: u8 = 0x11;
    pub const COM_BINLOG_DUMP: u8 = 0x12;
    pub const COM_TABLE_DUMP: u8 = 0x13;
    pub const COM_CONNECT_OUT: u8 = 0x14;
    pub const COM_REGISTER_SLAVE: u8 = 0x15;
    pub const COM_STMT_PREPARE: u8 = 0x16;
    pub const COM_STMT_EXECUTE: u8 = 0x17;
    pub const COM_STMT_SEND_LONG_DATA: u8 = 0x18;
    pub const COM_STMT_CLOSE: u8 = 0x19;
    pub const COM_STMT_RESET: u8 = 0x1a;
    pub const COM_SET_OPTION: u8 = 0x1b;
    pub const COM_STMT_FETCH: u8 = 0x1c;
    pub const COM_DAEMON: u8 = 0x1d;
    pub const COM_RESET_CONNECTION: u8 = 0x1f;
}

/// Wire column types (`enum_field_types`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum FieldType {
    Decimal = 0,
    Tiny = 1,
    Short = 2,
    Long = 3,
    Float = 4,
    Double = 5,
    Null = 6,
    Timestamp = 7,
    LongLong = 8,
    Int24 = 9,
    Date = 10,
    Time = 11,
    DateTime = 12,
    Year = 13,
    NewDate = 14,
    VarChar = 15,
    Bit = 16,
    Json = 245,
    NewDecimal = 246,
    Enum = 247,
    Set = 248,
    TinyBlob = 249,
    MediumBlob = 250,
    LongBlob = 251,
    Blob = 252,
    VarString = 253,
    String = 254,
    Geometry = 255,
}

impl FieldType {
    pub fn from_u8(b: u8) -> Option<FieldType> {
        use FieldType::*;
        Some(match b {
            0 => Decimal,
            1 => Tiny,
            2 => Short,
            3 => Long,
            4 => Float,
            5 => Double,
            6 => Null,
            7 => Timestamp,
            8 => LongLong,
            9 => Int24,
            10 => Date,
            11 => Time,
            12 => DateTime,
            13 => Year,
            14 => NewDate,
            15 => VarChar,
            16 => Bit,
            245 => Json,
            246 => NewDecimal,
            247 => Enum,
            248 => Set,
            249 => TinyBlob,
            250 => MediumBlob,
            251 => LongBlob,
            252 => Blob,
            253 => VarString,
            254 => String,
            255 => Geometry,
            _ => return None,
        })
    }
}

/// Column definition flags (`*_FLAG`).
pub mod column_flags {
    pub const NOT_NULL: u16 = 1;
    pub const PRI_KEY: u16 = 2;
    pub const UNIQUE_KEY: u16 = 4;
    pub const MULTIPLE_KEY: u16 = 8;
    pub const BLOB: u16 = 16;
    pub const UNSIGNED: u16 = 32;
    pub const ZEROFILL: u16 = 64;
    pub const BINARY: u16 = 128;
    pub const ENUM: u16 = 256;
    pub const AUTO_INCREMENT: u16 = 512;
    pub const TIMESTAMP: u16 = 1024;
    pub const SET: u16 = 2048;
    pub const NO_DEFAULT_VALUE: u16 = 4096;
    pub const ON_UPDATE_NOW: u16 = 8192;
    pub const NUM: u16 = 32768;
}

/// Collation ids.
///
/// u16 because column definitions carry two bytes (MariaDB's newer collations number past 255);
/// the handshake's one-byte default collation casts.
pub mod charset {
    pub const UTF8MB4_GENERAL_CI: u16 = 45;
    pub const UTF8MB4_BIN: u16 = 46;
    pub const BINARY: u16 = 63;
}

/// Authentication plugin names.
pub const MYSQL_NATIVE_PASSWORD: &str = "mysql_native_password";

/// Length of the random challenge (scramble) of mysql_native_password.
pub const SCRAMBLE_LEN: usize = 20;

/// Largest payload of one physical packet; a payload this long or longer continues in the next.
pub const MAX_PACKET_CHUNK: usize = 0xFF_FFFF;

/// `COM_STMT_EXECUTE` parameter type flag: the integer is unsigned.
pub const PARAM_UNSIGNED_FLAG: u8 = 0x80;

/// `COM_SET_OPTION` values.
pub const MYSQL_OPTION_MULTI_STATEMENTS_ON: u16 = 0;
pub const MYSQL_OPTION_MULTI_STATEMENTS_OFF: u16 = 1;
