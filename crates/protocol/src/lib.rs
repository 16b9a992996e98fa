//! MySQL wire protocol codec shared by selkied and selkie-proxy.
