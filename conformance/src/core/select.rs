//! Case selection: the gate decides which cases exist (MCP: a level per profile, or none), and
//! `--case GLOB` narrows them. Globs match whole ids: `*` within one segment, `**` across
//! segments, `?` one character.

use crate::core::case::{Case, Gate};

/// The cases of `catalogue` for which `applies` holds and that match any of `globs` (all when
/// empty), in catalogue order.
#[must_use]
pub fn select<G: Gate>(
    catalogue: &[Case<G>],
    globs: &[String],
    applies: impl Fn(&Case<G>) -> bool,
) -> Vec<Case<G>> {
    catalogue
        .iter()
        .filter(|c| applies(c))
        .filter(|c| globs.is_empty() || globs.iter().any(|g| glob_match(g, c.id)))
        .copied()
        .collect()
}

/// Whether `id` matches `glob`. A glob without any wildcard also matches every id under it
/// as a prefix (`--case jsonrpc/batch` selects the whole group).
#[must_use]
pub fn glob_match(glob: &str, id: &str) -> bool {
    if !glob.contains(['*', '?']) {
        let g = glob.trim_end_matches('/');
        return id == g || id.starts_with(&format!("{g}/"));
    }
    matches(glob.as_bytes(), id.as_bytes())
}

fn matches(p: &[u8], s: &[u8]) -> bool {
    match p {
        [] => s.is_empty(),
        [b'*', b'*', rest @ ..] => (0..=s.len()).any(|i| matches(rest, &s[i..])),
        [b'*', rest @ ..] => (0..=s.len())
            .take_while(|&i| i == 0 || s[i - 1] != b'/')
            .any(|i| matches(rest, &s[i..])),
        [b'?', rest @ ..] => !s.is_empty() && s[0] != b'/' && matches(rest, &s[1..]),
        [c, rest @ ..] => s.first() == Some(c) && matches(rest, &s[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn star_stays_in_a_segment_and_double_star_crosses() {
        assert!(glob_match(
            "jsonrpc/*/parse-error",
            "jsonrpc/malformed/parse-error"
        ));
        assert!(!glob_match("jsonrpc/*", "jsonrpc/malformed/parse-error"));
        assert!(glob_match("jsonrpc/**", "jsonrpc/malformed/parse-error"));
        assert!(glob_match(
            "**/parse-error",
            "jsonrpc/malformed/parse-error"
        ));
        assert!(glob_match("meta-?isk/**", "meta-risk/a"));
    }

    #[test]
    fn a_plain_prefix_selects_its_group() {
        assert!(glob_match("jsonrpc/batch", "jsonrpc/batch/2025-03-26"));
        assert!(glob_match("jsonrpc", "jsonrpc/batch/2025-03-26"));
        assert!(!glob_match("jsonrpc/bat", "jsonrpc/batch/2025-03-26"));
    }
}
