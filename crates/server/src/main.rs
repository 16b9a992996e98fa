fn main() {
    eprintln!("selkied: not built yet");
    std::process::exit(1);
}
