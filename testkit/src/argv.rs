//! The native argv the tests give `claude` (and fake-claude), in one place: the adapter's MCP-run
//! options as the real 2.1.328 captures were made with them (`mock-stream.cmd`, NAT-3), the same
//! without partial messages, and builders that append the prompt after `--`.

/// The adapter's MCP-run options with partial messages (NAT-3), as in the real captures.
pub const STREAM_PARTIAL: &[&str] = &[
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
    "--permission-mode",
    "dontAsk",
];

/// [`STREAM_PARTIAL`] without `--include-partial-messages`.
pub const STREAM: &[&str] = &[
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-mode",
    "dontAsk",
];

/// Print mode with stream-json output, before any other option.
pub const PRINT_STREAM: &[&str] = &["-p", "--output-format", "stream-json", "--verbose"];

/// `flags`, then `extra`, then `--` and `prompt`.
#[must_use]
pub fn with_prompt<'a>(flags: &[&'a str], extra: &[&'a str], prompt: &'a str) -> Vec<&'a str> {
    let mut a = flags.to_vec();
    a.extend_from_slice(extra);
    a.extend(["--", prompt]);
    a
}

/// The adapter's MCP-run argv ([`STREAM_PARTIAL`]) with `prompt` after `--`, owned.
#[must_use]
pub fn stream_args(prompt: &str) -> Vec<String> {
    with_prompt(STREAM_PARTIAL, &[], prompt)
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// [`PRINT_STREAM`], then `extra`, then `--` and `prompt`.
#[must_use]
pub fn print_args<'a>(extra: &[&'a str], prompt: &'a str) -> Vec<&'a str> {
    with_prompt(PRINT_STREAM, extra, prompt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_follows_a_double_dash_after_every_option() {
        assert_eq!(
            with_prompt(STREAM, &["--model", "m"], "-x"),
            [STREAM, &["--model", "m", "--", "-x"]].concat()
        );
        assert_eq!(stream_args("hi").last().map(String::as_str), Some("hi"));
        assert_eq!(
            print_args(&["--max-turns", "1"], "p"),
            [
                "-p",
                "--output-format",
                "stream-json",
                "--verbose",
                "--max-turns",
                "1",
                "--",
                "p"
            ]
        );
    }
}
