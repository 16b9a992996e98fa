//! Selkie's SQL layer: parse (sqlparser, MySQL dialect) → bind → plan → execute on the storage
//! engine, with MySQL/MariaDB semantics for values, errors, variables and SHOW.
//!
//! Why session state, system variables and SHOW live here rather than in the server crate:
//! expressions read `@@variables`, `SET` evaluates expressions, and `information_schema` /
//! `SHOW` are queries over the catalog; keeping them beside the executor avoids a callback
//! interface in both directions. The server crate owns the network, the wire protocol,
//! authentication and the connection registry, and reaches back only through `ServerHooks`.
//!
//! Modules of the SQL core: `parse` (pre-processing, statement recognition), `bind` (names,
//! types, and the rule-based planner of FROM/WHERE), `plan` (plan types, access paths, key
//! ranges), `exec` (operators), `expr` (bound expressions), `dml`, `ddl`, `session`
//! (dispatch, transactions, prepared statements), `error` (MariaDB's messages).

pub mod bind;
pub mod ddl;
pub mod dml;
pub mod error;
pub mod exec;
pub mod explain;
pub mod parse;
pub mod plan;
pub mod server;
pub mod session;
pub mod show;
pub mod store;
pub mod types;
pub mod value;
pub mod variables;

pub use error::SqlError;
pub use server::SqlServer;
pub use session::Session;
pub use types::*;
