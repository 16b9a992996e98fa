//! The errors the proxy itself sends to clients. Codes and SQLSTATEs follow MariaDB's where one
//! fits, so clients and their retry logic react as they would to the server.
//!
//! Only server error numbers (below 2000) may go into an ERR packet: numbers 2000..2999 are
//! the client library's own (CR_*), and libmariadb (sysbench, the mariadb CLI) rejects an ERR
//! packet carrying one as "Received malformed packet" (2027). Connection-class trouble gets
//! SQLSTATE 08S01 so drivers treat the connection as suspect, as they would a failed server.

use selkie_protocol::error::codes;
use selkie_protocol::response::ErrPacket;

/// ER_OPTION_PREVENTS_STATEMENT: what MariaDB says for a write on a read-only server.
pub const OPTION_PREVENTS_STATEMENT: u16 = 1290;
/// ER_CONNECT_TO_FOREIGN_DATA_SOURCE ("Unable to connect to foreign data source"): no backend
/// could be reached.
pub const CANNOT_CONNECT: u16 = 1429;
/// ER_NET_READ_ERROR ("Got an error reading communication packets"): the backend connection
/// broke during the statement.
pub const SERVER_LOST: u16 = 1158;
/// SQLSTATE of both: communication link failure.
pub const LINK_FAILURE: &str = "08S01";
/// Client library error numbers (CR_*), never sent in an ERR packet.
pub const CLIENT_ERROR_RANGE: std::ops::Range<u16> = 2000..3000;
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
    ErrPacket::new(CANNOT_CONNECT, LINK_FAILURE, "selkie-proxy: no backend server is available for this statement")
}

pub fn no_server_with_role(role: &str) -> ErrPacket {
    ErrPacket::new(CANNOT_CONNECT, LINK_FAILURE, format!("selkie-proxy: no {role} server is available"))
}

pub fn cannot_connect(server: &str, why: &str) -> ErrPacket {
    ErrPacket::new(
        CANNOT_CONNECT,
        LINK_FAILURE,
        format!("selkie-proxy: cannot connect to backend server '{server}': {why}"),
    )
}

pub fn history_exceeded() -> ErrPacket {
    ErrPacket::new(
        CANNOT_CONNECT,
        LINK_FAILURE,
        "selkie-proxy: this session's command history exceeded max_session_history, so no further backend server can join it",
    )
}

pub fn lost_backend(server: &str, why: &str) -> ErrPacket {
    ErrPacket::new(
        SERVER_LOST,
        LINK_FAILURE,
        format!("Lost connection to backend server '{server}' during query ({why})"),
    )
}

pub fn lost_transaction(server: &str) -> ErrPacket {
    ErrPacket::new(
        SERVER_LOST,
        LINK_FAILURE,
        format!(
            "Lost connection to backend server '{server}' during an open transaction; the transaction is lost and the session is closed"
        ),
    )
}

pub fn unknown_statement(id: u32, command: &str) -> ErrPacket {
    ErrPacket::new(
        UNKNOWN_STMT_HANDLER,
        "HY000",
        format!("Unknown prepared statement handler ({id}) given to {command}"),
    )
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
    ErrPacket::new(
        codes::UNKNOWN_COM_ERROR,
        "08S01",
        format!("Unknown command {command:#04x} (not supported by selkie-proxy)"),
    )
}

pub fn kill_unsupported() -> ErrPacket {
    ErrPacket::new(
        codes::UNKNOWN_COM_ERROR,
        "08S01",
        "COM_PROCESS_KILL is not supported through selkie-proxy (connection ids differ on each backend)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_errors_carry_server_error_numbers() {
        let all = [
            no_primary(),
            no_server(),
            no_server_with_role("replica"),
            cannot_connect("db1", "refused"),
            history_exceeded(),
            lost_backend("db1", "reset"),
            lost_transaction("db1"),
            unknown_statement(7, "mysqld_stmt_execute"),
            too_many_statements(10),
            malformed("x"),
            unsupported_command(0x30),
            kill_unsupported(),
        ];
        for e in all {
            assert!(
                !CLIENT_ERROR_RANGE.contains(&e.code),
                "{} is a client library error number: {}",
                e.code,
                e.message
            );
            assert_eq!(e.state.len(), 5, "{}", e.message);
        }
    }
}
