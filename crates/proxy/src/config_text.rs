//! Test support: the text of a proxy configuration file, built entry by entry, so unit tests
//! name only the listeners, servers and sections they depend on. The text goes through
//! `Config::parse` like a real file, validation included.

use crate::config::Config;

#[derive(Clone, Debug, Default)]
pub struct ConfigText {
    text: String,
}

fn quote(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

impl ConfigText {
    pub fn new() -> ConfigText {
        ConfigText::default()
    }

    /// A `[[listeners]]` entry; `options` are further keys with their values as TOML
    /// (`("role", "'replica'")`, `("max_session_history", "3")`).
    pub fn listener(mut self, name: &str, port: u16, router: &str, options: &[(&str, &str)]) -> ConfigText {
        self.text.push_str(&format!(
            "[[listeners]]\nname = {}\nport = {port}\nrouter = {}\n",
            quote(name),
            quote(router)
        ));
        for (key, value) in options {
            self.text.push_str(&format!("{key} = {value}\n"));
        }
        self
    }

    /// A `[[servers]]` entry; `port: None` leaves the default (3306).
    pub fn server(mut self, name: &str, address: &str, port: Option<u16>) -> ConfigText {
        self.text.push_str(&format!("[[servers]]\nname = {}\naddress = {}\n", quote(name), quote(address)));
        if let Some(port) = port {
            self.text.push_str(&format!("port = {port}\n"));
        }
        self
    }

    /// A section as written in the file (`"[cache]\nsoft_ttl = 1\n"`).
    pub fn section(mut self, text: &str) -> ConfigText {
        self.text.push_str(text);
        if !text.ends_with('\n') {
            self.text.push('\n');
        }
        self
    }

    /// The parsed configuration; panics if the file would be refused.
    pub fn parse(&self) -> Config {
        Config::parse(&self.text).unwrap_or_else(|e| panic!("{e}\nin:\n{}", self.text))
    }
}
