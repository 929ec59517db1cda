//! From `claude.run` arguments to a [`RunSpec`]: the checks a schema cannot express or that the
//! engine must not trust the caller's layer for (RUN-0, BND-4, NAT-6, NAT-7). Every refusal is
//! `invalid_arguments` with `field` (TOOL-3).

use std::time::Duration;

use crate::jsonout::check_schema;
use crate::provider::RunSpec;
use crate::tools::{DEFAULT_LOOP_LIMIT, GuardConfig, LOOP_LIMIT_MAX, LOOP_LIMIT_MIN};
use crate::{RunRequest, ToolError};

/// Largest prompt: Linux's limit for one argv string (MAX_ARG_STRLEN, RUN-0).
pub(crate) const PROMPT_MAX: usize = 128 * 1024;
/// Default `timeout_s` (BND-4).
pub(crate) const DEFAULT_TIMEOUT_S: u64 = 600;

/// Checks `req` and builds the provider-neutral spec. Option value rules and NAT-6 exclusions
/// are the cli tree's (checked by the provider); this checks the run's own arguments.
pub(crate) fn validate(req: RunRequest, max_timeout_s: u64) -> Result<RunSpec, ToolError> {
    if req.prompt.is_empty() {
        return Err(ToolError::invalid_argument(
            "/prompt",
            "prompt must not be empty",
        ));
    }
    if req.prompt.len() > PROMPT_MAX {
        return Err(ToolError::invalid_argument(
            "/prompt",
            format!("prompt is longer than {PROMPT_MAX} bytes"),
        ));
    }
    if req.prompt.contains('\0') {
        return Err(ToolError::invalid_argument(
            "/prompt",
            "prompt contains a NUL byte, which no argv string can carry",
        ));
    }
    let timeout_s = match req.timeout_s {
        None => DEFAULT_TIMEOUT_S.min(max_timeout_s),
        Some(t) if (1..=max_timeout_s).contains(&t) => t,
        Some(t) => {
            return Err(ToolError::invalid_argument(
                "/timeout_s",
                format!("timeout_s {t} is outside 1..={max_timeout_s}"),
            ));
        }
    };
    // NAT-7: an existing directory, absolute so it cannot depend on the adapter's own cwd.
    let cwd = match req.cwd {
        Some(p) => {
            if !p.is_absolute() {
                return Err(ToolError::invalid_argument(
                    "/cwd",
                    format!("cwd {} is not an absolute path", p.display()),
                ));
            }
            match std::fs::metadata(&p) {
                Ok(m) if m.is_dir() => p,
                Ok(_) => {
                    return Err(ToolError::invalid_argument(
                        "/cwd",
                        format!("cwd {} is not a directory", p.display()),
                    ));
                }
                Err(e) => {
                    return Err(ToolError::invalid_argument(
                        "/cwd",
                        format!("cwd {} cannot be used: {e}", p.display()),
                    ));
                }
            }
        }
        None => std::env::current_dir().map_err(|e| {
            ToolError::invalid_argument(
                "/cwd",
                format!("the adapter's working directory cannot be used: {e}"),
            )
        })?,
    };
    // LOOP-4.
    let enabled = match req.loop_guard.as_deref() {
        None | Some("on") => true,
        Some("off") => false,
        Some(other) => {
            return Err(ToolError::invalid_argument(
                "/loop_guard",
                format!("loop_guard {other:?} is neither \"on\" nor \"off\""),
            ));
        }
    };
    let limit = match req.loop_limit {
        None => DEFAULT_LOOP_LIMIT,
        Some(l) if (u64::from(LOOP_LIMIT_MIN)..=u64::from(LOOP_LIMIT_MAX)).contains(&l) => {
            u32::try_from(l).unwrap_or(LOOP_LIMIT_MAX)
        }
        Some(l) => {
            return Err(ToolError::invalid_argument(
                "/loop_limit",
                format!("loop_limit {l} is outside {LOOP_LIMIT_MIN}..={LOOP_LIMIT_MAX}"),
            ));
        }
    };
    // JSONOUT-1, JSONOUT-4: a schema within its limits that compiles.
    if let Some(schema) = &req.json_schema {
        check_schema(schema)?;
    }
    Ok(RunSpec {
        prompt: req.prompt,
        cwd,
        timeout: Duration::from_secs(timeout_s),
        options: req.options,
        guard: GuardConfig { enabled, limit },
        json_schema: req.json_schema,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    fn req(prompt: &str) -> RunRequest {
        RunRequest {
            prompt: prompt.into(),
            ..RunRequest::default()
        }
    }

    fn field(r: Result<RunSpec, ToolError>) -> String {
        let e = r.expect_err("refused");
        assert_eq!(e.code, ErrorCode::InvalidArguments);
        e.extra["field"].as_str().expect("field").to_owned()
    }

    #[test]
    fn defaults_apply() {
        let s = validate(req("hi"), 1800).expect("spec");
        assert_eq!(s.timeout, Duration::from_secs(600));
        assert_eq!(s.cwd, std::env::current_dir().expect("cwd"));
        assert!(s.options.is_empty(), "NAT-4: nothing is added silently");
        // A configured maximum below 600 caps the default.
        let s = validate(req("hi"), 30).expect("spec");
        assert_eq!(s.timeout, Duration::from_secs(30));
    }

    #[test]
    fn prompt_bounds() {
        assert_eq!(field(validate(req(""), 10)), "/prompt");
        assert_eq!(
            field(validate(req(&"x".repeat(PROMPT_MAX + 1)), 10)),
            "/prompt"
        );
        assert!(validate(req(&"x".repeat(PROMPT_MAX)), 10).is_ok());
        assert_eq!(field(validate(req("a\0b"), 10)), "/prompt");
    }

    #[test]
    fn timeout_bounds() {
        // BND-4.
        for t in [0, 1801] {
            let mut r = req("x");
            r.timeout_s = Some(t);
            assert_eq!(field(validate(r, 1800)), "/timeout_s");
        }
        let mut r = req("x");
        r.timeout_s = Some(1800);
        assert!(validate(r, 1800).is_ok());
    }

    #[test]
    fn cwd_must_be_an_existing_absolute_directory() {
        // NAT-7.
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join("f");
        std::fs::write(&file, "").expect("write");
        for bad in [
            std::path::PathBuf::from("relative"),
            dir.path().join("missing"),
            file,
        ] {
            let mut r = req("x");
            r.cwd = Some(bad);
            assert_eq!(field(validate(r, 10)), "/cwd");
        }
        let mut r = req("x");
        r.cwd = Some(dir.path().to_owned());
        assert_eq!(validate(r, 10).expect("spec").cwd, dir.path());
    }

    #[test]
    fn provider_options_pass_through_untouched() {
        // The provider reads its own options (PROV-1); the engine adds and drops nothing (NAT-4).
        let mut r = req("x");
        r.options.insert("model".into(), "m".into());
        r.options.insert("max_budget_usd".into(), 0.5.into());
        let s = validate(r.clone(), 10).expect("spec");
        assert_eq!(s.options, r.options);
    }
}
