//! Embeds every `scenarios/*.json` file into the binary (`testkit/build/embed.rs`).

include!("../testkit/build/embed.rs");

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_owned());
    let scenarios = json_files(&Path::new(&manifest).join("scenarios"), true);
    let mut out = String::new();
    embed_static(
        &mut out,
        "BUILTIN",
        "Built-in scenarios: (name, JSON text), sorted by name.",
        &scenarios,
    );
    write_out("builtin_scenarios.rs", &out);
}
