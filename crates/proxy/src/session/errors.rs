//! The errors the proxy itself sends to clients. Codes and SQLSTATEs follow MariaDB's where one
//! fits, so clients and their retry logic react as they would to the server.

use selkie_protocol::error::codes;
use selkie_protocol::response::ErrPacket;

/// ER_OPTION_PREVENTS_STATEMENT: what MariaDB says for a write on a read-only server.
pub const OPTION_PREVENTS_STATEMENT: u16 = 1290;
/// CR_CONN_HOST_ERROR's number: no backend could be reached.
pub const CANNOT_CONNECT: u16 = 2003;
/// CR_SERVER_LOST's number: the backend connection broke during the statement.
pub const SERVER_LOST: u16 = 2013;
/// ER_UNKNOWN_STMT_HANDLER.
pub const UNKNOWN_STMT_HANDLER: u16 = 1243;
/// ER_MAX_PREPARED_STMT_COUNT_REACHED.
pub const MAX_PREPARED_STMT_COUNT_REACHED: u16 = 1461;

/// fail_on_write: a write while no primary is available.
pub fn no_primary() -> ErrPacket {
    ErrPacket::new(
        OPTION_PREVENTS_STATEMENT,
        "HY000",
        "The MariaDB server is running with the --read-only option so it cannot execute this statement \
         (selkie-proxy: no primary server is available; writes fail until one is back, reads continue on replicas)",
    )
}

pub fn no_server() -> ErrPacket {
    ErrPacket::new(CANNOT_CONNECT, "HY000", "selkie-proxy: no backend server is available for this statement")
}

pub fn no_server_with_role(role: &str) -> ErrPacket {
    ErrPacket::new(CANNOT_CONNECT, "HY000", format!("selkie-proxy: no {role} server is available"))
}

pub fn cannot_connect(server: &str, why: &str) -> ErrPacket {
    ErrPacket::new(CANNOT_CONNECT, "HY000", format!("selkie-proxy: cannot connect to backend server '{server}': {why}"))
}

pub fn history_exceeded() -> ErrPacket {
    ErrPacket::new(
        CANNOT_CONNECT,
        "HY000",
        "selkie-proxy: this session's command history exceeded max_session_history, so no further backend server can join it",
    )
}

pub fn lost_backend(server: &str, why: &str) -> ErrPacket {
    ErrPacket::new(SERVER_LOST, "HY000", format!("Lost connection to backend server '{server}' during query ({why})"))
}

pub fn lost_transaction(server: &str) -> ErrPacket {
    ErrPacket::new(
        SERVER_LOST,
        "HY000",
        format!(
            "Lost connection to backend server '{server}' during an open transaction; the transaction is lost and the session is closed"
        ),
    )
}

pub fn unknown_statement(id: u32, command: &str) -> ErrPacket {
    ErrPacket::new(UNKNOWN_STMT_HANDLER, "HY000", format!("Unknown prepared statement handler ({id}) given to {command}"))
}

pub fn too_many_statements(limit: usize) -> ErrPacket {
    ErrPacket::new(
        MAX_PREPARED_STMT_COUNT_REACHED,
        "42000",
        format!("Can't create more than max_prepared_stmt_count statements (current value: {limit})"),
    )
}

pub fn malformed(what: &str) -> ErrPacket {
    ErrPacket::new(codes::MALFORMED_PACKET, "HY000", format!("Malformed communication packet ({what})"))
}

pub fn unsupported_command(command: u8) -> ErrPacket {
    ErrPacket::new(codes::UNKNOWN_COM_ERROR, "08S01", format!("Unknown command {command:#04x} (not supported by selkie-proxy)"))
}

pub fn kill_unsupported() -> ErrPacket {
    ErrPacket::new(
        codes::UNKNOWN_COM_ERROR,
        "08S01",
        "COM_PROCESS_KILL is not supported through selkie-proxy (connection ids differ on each backend)",
    )
}
