//! Embeds every `scenarios/*.json` file and every fragment (`scenarios/fragments/*.json`, events
//! shared by many scenarios through `{"emit_fragment": NAME}`) into the binary
//! (`testkit/build/embed.rs`).

include!("../testkit/build/embed.rs");

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_owned());
    let dir = Path::new(&manifest).join("scenarios");
    let mut out = String::new();
    embed_static(
        &mut out,
        "BUILTIN",
        "Built-in scenarios: (name, JSON text), sorted by name.",
        &json_files(&dir, true),
    );
    embed_static(
        &mut out,
        "FRAGMENTS",
        "Built-in fragments: (name, JSON object text), sorted by name.",
        &json_files(&dir.join("fragments"), false),
    );
    write_out("builtin_scenarios.rs", &out);
}
