//! Connection phase: the server's greeting (Handshake v10), the client's HandshakeResponse41,
//! and the authentication-method switch.

use crate::constants::{capabilities::*, MYSQL_NATIVE_PASSWORD, SCRAMBLE_LEN};
use crate::error::{ProtocolError, Result};
use crate::wire::{put_lenenc_bytes, put_null_terminated, put_u16, put_u32, put_u8, utf8, Decoder};

pub const PROTOCOL_VERSION: u8 = 10;
/// Header of an AuthSwitchRequest (same byte as EOF; it follows the client's response).
pub const AUTH_SWITCH_HEADER: u8 = 0xFE;
/// Header of AuthMoreData (extra plugin exchange rounds).
pub const AUTH_MORE_DATA_HEADER: u8 = 0x01;
/// Length of an SSLRequest: the first 32 bytes of a HandshakeResponse41.
pub const SSL_REQUEST_LEN: usize = 32;
/// Largest number of connect attributes accepted (their total size is bounded by the packet).
pub const MAX_CONNECT_ATTRS: usize = 256;

/// Handshake v10, the first packet the server sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Greeting {
    pub server_version: String,
    pub connection_id: u32,
    pub scramble: [u8; SCRAMBLE_LEN],
    pub capabilities: u32,
    pub charset: u8,
    pub status: u16,
    pub auth_plugin: String,
}

impl Greeting {
    pub fn encode(&self, out: &mut Vec<u8>) {
        put_u8(out, PROTOCOL_VERSION);
        put_null_terminated(out, self.server_version.as_bytes());
        put_u32(out, self.connection_id);
        out.extend_from_slice(&self.scramble[..8]);
        put_u8(out, 0);
        put_u16(out, self.capabilities as u16);
        put_u8(out, self.charset);
        put_u16(out, self.status);
        put_u16(out, (self.capabilities >> 16) as u16);
        put_u8(out, (SCRAMBLE_LEN + 1) as u8);
        // 6 reserved bytes + 4 bytes of MariaDB extended capabilities (none: we set CLIENT_MYSQL).
        out.extend_from_slice(&[0; 10]);
        // The rest of the scramble, NUL-terminated (13 bytes in all).
        out.extend_from_slice(&self.scramble[8..]);
        put_u8(out, 0);
        put_null_terminated(out, self.auth_plugin.as_bytes());
    }

    pub fn parse(payload: &[u8]) -> Result<Greeting> {
        let mut d = Decoder::new(payload);
        let version = d.u8("protocol version")?;
        if version != PROTOCOL_VERSION {
            return Err(ProtocolError::Unsupported(format!("handshake protocol version {version}")));
        }
        let server_version = String::from_utf8_lossy(d.null_terminated("server version")?).into_owned();
        let connection_id = d.u32("connection id")?;
        let part1 = d.bytes(8, "scramble")?;
        d.skip(1, "filler")?;
        let mut capabilities = d.u16("capabilities")? as u32;
        let charset = d.u8("charset")?;
        let status = d.u16("status")?;
        capabilities |= (d.u16("capabilities")? as u32) << 16;
        let auth_data_len = d.u8("auth data length")? as usize;
        d.skip(10, "reserved")?;
        let mut scramble = [0u8; SCRAMBLE_LEN];
        scramble[..8].copy_from_slice(part1);
        if capabilities & CLIENT_SECURE_CONNECTION != 0 {
            // max(13, auth_data_len - 8) bytes, the last being a NUL terminator.
            let len2 = 13.max(auth_data_len.saturating_sub(8));
            let part2 = d.bytes(len2, "scramble")?;
            if len2 < SCRAMBLE_LEN - 8 {
                return Err(ProtocolError::Malformed("short scramble".into()));
            }
            scramble[8..].copy_from_slice(&part2[..SCRAMBLE_LEN - 8]);
        }
        let auth_plugin = if capabilities & CLIENT_PLUGIN_AUTH != 0 {
            String::from_utf8_lossy(d.null_terminated_or_rest()).into_owned()
        } else {
            MYSQL_NATIVE_PASSWORD.to_string()
        };
        Ok(Greeting { server_version, connection_id, scramble, capabilities, charset, status, auth_plugin })
    }
}

/// The client's HandshakeResponse41.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HandshakeResponse {
    pub capabilities: u32,
    pub max_packet: u32,
    pub charset: u8,
    pub user: String,
    pub auth_response: Vec<u8>,
    pub database: Option<String>,
    /// Empty if the client did not name one (CLIENT_PLUGIN_AUTH unset).
    pub auth_plugin: String,
    pub attributes: Vec<(String, String)>,
}

/// What the first client packet turned out to be.
#[derive(Debug)]
pub enum ClientHello {
    Response(HandshakeResponse),
    /// An SSLRequest: the client wants to switch to TLS before authenticating.
    SslRequest,
}

impl HandshakeResponse {
    pub fn encode(&self, out: &mut Vec<u8>) {
        let caps = self.capabilities;
        put_u32(out, caps);
        put_u32(out, self.max_packet);
        put_u8(out, self.charset);
        out.extend_from_slice(&[0; 23]);
        put_null_terminated(out, self.user.as_bytes());
        if caps & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
            put_lenenc_bytes(out, &self.auth_response);
        } else {
            debug_assert!(self.auth_response.len() <= 255);
            put_u8(out, self.auth_response.len() as u8);
            out.extend_from_slice(&self.auth_response);
        }
        if caps & CLIENT_CONNECT_WITH_DB != 0 {
            put_null_terminated(out, self.database.as_deref().unwrap_or("").as_bytes());
        }
        if caps & CLIENT_PLUGIN_AUTH != 0 {
            put_null_terminated(out, self.auth_plugin.as_bytes());
        }
        if caps & CLIENT_CONNECT_ATTRS != 0 {
            let mut attrs = Vec::new();
            for (k, v) in &self.attributes {
                put_lenenc_bytes(&mut attrs, k.as_bytes());
                put_lenenc_bytes(&mut attrs, v.as_bytes());
            }
            put_lenenc_bytes(out, &attrs);
        }
    }

    /// Parses the first packet a client sends after the greeting. `server_caps` are the
    /// capabilities the server offered: fields are present only if both sides have the flag.
    pub fn parse(payload: &[u8], server_caps: u32) -> Result<ClientHello> {
        let mut d = Decoder::new(payload);
        let client_caps = d.u32("client capabilities")?;
        if client_caps & CLIENT_PROTOCOL_41 == 0 {
            return Err(ProtocolError::Unsupported("pre-4.1 client protocol".into()));
        }
        let max_packet = d.u32("max packet size")?;
        let charset = d.u8("charset")?;
        d.skip(23, "reserved")?;
        if client_caps & CLIENT_SSL != 0 && payload.len() == SSL_REQUEST_LEN {
            return Ok(ClientHello::SslRequest);
        }
        let caps = client_caps & server_caps;
        let user = utf8(d.null_terminated("user name")?, "user name")?.to_string();
        let auth_response = if caps & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
            d.lenenc_bytes("auth response")?
        } else if caps & CLIENT_SECURE_CONNECTION != 0 {
            let len = d.u8("auth response length")? as usize;
            d.bytes(len, "auth response")?
        } else {
            d.null_terminated("auth response")?
        }
        .to_vec();
        let mut database = None;
        if caps & CLIENT_CONNECT_WITH_DB != 0 && !d.is_empty() {
            let db = utf8(d.null_terminated_or_rest(), "database name")?;
            if !db.is_empty() {
                database = Some(db.to_string());
            }
        }
        let mut auth_plugin = String::new();
        if caps & CLIENT_PLUGIN_AUTH != 0 && !d.is_empty() {
            auth_plugin = utf8(d.null_terminated_or_rest(), "auth plugin name")?.to_string();
        }
        let mut attributes = Vec::new();
        if caps & CLIENT_CONNECT_ATTRS != 0 && !d.is_empty() {
            let mut a = Decoder::new(d.lenenc_bytes("connect attributes")?);
            while !a.is_empty() {
                if attributes.len() == MAX_CONNECT_ATTRS {
                    return Err(ProtocolError::Malformed("too many connect attributes".into()));
                }
                let k = String::from_utf8_lossy(a.lenenc_bytes("attribute name")?).into_owned();
                let v = String::from_utf8_lossy(a.lenenc_bytes("attribute value")?).into_owned();
                attributes.push((k, v));
            }
        }
        Ok(ClientHello::Response(HandshakeResponse {
            capabilities: caps,
            max_packet,
            charset,
            user,
            auth_response,
            database,
            auth_plugin,
            attributes,
        }))
    }
}

/// AuthSwitchRequest: asks the client to authenticate with `plugin` over `data` (the scramble).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthSwitchRequest {
    pub plugin: String,
    pub data: Vec<u8>,
}

impl AuthSwitchRequest {
    pub fn encode(&self, out: &mut Vec<u8>) {
        put_u8(out, AUTH_SWITCH_HEADER);
        put_null_terminated(out, self.plugin.as_bytes());
        out.extend_from_slice(&self.data);
        // mysql_native_password's plugin data is the scramble followed by a NUL, as MariaDB sends.
        put_u8(out, 0);
    }

    pub fn parse(payload: &[u8]) -> Result<AuthSwitchRequest> {
        let mut d = Decoder::new(payload);
        if d.u8("auth switch header")? != AUTH_SWITCH_HEADER {
            return Err(ProtocolError::Malformed("auth switch request does not start with 0xFE".into()));
        }
        let plugin = utf8(d.null_terminated_or_rest(), "auth plugin name")?.to_string();
        let mut data = d.rest();
        if data.last() == Some(&0) {
            data = &data[..data.len() - 1];
        }
        Ok(AuthSwitchRequest { plugin, data: data.to_vec() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constants::charset;
    use proptest::prelude::*;

    fn greeting() -> Greeting {
        Greeting {
            server_version: "5.5.5-10.11.0-selkie".into(),
            connection_id: 42,
            scramble: *b"abcdefghij0123456789",
            capabilities: SERVER_DEFAULT,
            charset: charset::UTF8MB4_GENERAL_CI as u8,
            status: 2,
            auth_plugin: MYSQL_NATIVE_PASSWORD.into(),
        }
    }

    #[test]
    fn greeting_round_trip_and_layout() {
        let g = greeting();
        let mut out = Vec::new();
        g.encode(&mut out);
        assert_eq!(out[0], 10);
        let v_end = 1 + g.server_version.len();
        assert_eq!(out[v_end], 0);
        assert_eq!(&out[v_end + 1..v_end + 5], &42u32.to_le_bytes());
        assert_eq!(&out[v_end + 5..v_end + 13], b"abcdefgh");
        assert_eq!(Greeting::parse(&out).unwrap(), g);
        assert!(out.ends_with(b"mysql_native_password\0"));
    }

    #[test]
    fn response_round_trip_with_every_optional_field() {
        for caps in [SERVER_DEFAULT, SERVER_DEFAULT & !CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA] {
            let r = HandshakeResponse {
                capabilities: caps,
                max_packet: 1 << 24,
                charset: charset::UTF8MB4_GENERAL_CI as u8,
                user: "root".into(),
                auth_response: vec![9; 20],
                database: Some("sbtest".into()),
                auth_plugin: MYSQL_NATIVE_PASSWORD.into(),
                attributes: vec![("_client_name".into(), "selkie".into())],
            };
            let mut out = Vec::new();
            r.encode(&mut out);
            match HandshakeResponse::parse(&out, SERVER_DEFAULT).unwrap() {
                ClientHello::Response(p) => assert_eq!(p, r),
                ClientHello::SslRequest => panic!("not an SSL request"),
            }
        }
    }

    #[test]
    fn ssl_request_and_old_protocol_are_recognized() {
        let mut out = Vec::new();
        put_u32(&mut out, CLIENT_PROTOCOL_41 | CLIENT_SSL);
        put_u32(&mut out, 1 << 24);
        put_u8(&mut out, 45);
        out.extend_from_slice(&[0; 23]);
        assert!(matches!(HandshakeResponse::parse(&out, SERVER_DEFAULT), Ok(ClientHello::SslRequest)));
        let old = [0u8, 0, 0, 0, 0, 0, 0];
        assert!(matches!(HandshakeResponse::parse(&old, SERVER_DEFAULT), Err(ProtocolError::Unsupported(_))));
    }

    #[test]
    fn auth_switch_round_trip() {
        let a = AuthSwitchRequest { plugin: MYSQL_NATIVE_PASSWORD.into(), data: b"abcdefghij0123456789".to_vec() };
        let mut out = Vec::new();
        a.encode(&mut out);
        assert_eq!(out.last(), Some(&0));
        assert_eq!(AuthSwitchRequest::parse(&out).unwrap(), a);
    }

    proptest! {
        #[test]
        fn handshake_decoders_survive_random_and_truncated_input(
            bytes in proptest::collection::vec(any::<u8>(), 0..200usize),
            cut in 0usize..120,
        ) {
            let _ = Greeting::parse(&bytes);
            let _ = HandshakeResponse::parse(&bytes, SERVER_DEFAULT);
            let _ = AuthSwitchRequest::parse(&bytes);
            let mut out = Vec::new();
            greeting().encode(&mut out);
            let cut = cut.min(out.len());
            // Truncation anywhere before the scramble ends must be an error.
            if cut < out.len() - MYSQL_NATIVE_PASSWORD.len() - 2 {
                prop_assert!(Greeting::parse(&out[..cut]).is_err());
            }
        }
    }
}
