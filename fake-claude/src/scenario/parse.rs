//! The scenario file format: `{"description": "...", "steps": [...]}`, each step a JSON object
//! with one action key (`emit`, `raw`, `line`, `sleep_ms`, ...) and optional modifiers. Parsed by
//! hand, so a typo in a scenario is a clear error naming the step, never a silent no-op.

use nix::sys::signal::Signal;
use serde_json::{Map, Value};

use super::model::{ForkSpec, Modes, RawBytes, Scenario, ScenarioError, Step};
use crate::validate::OutputFormat;

const MODIFIERS: &[&str] = &[
    "comment",
    "modes",
    "text",
    "newline",
    "steps",
    "requires_partial",
    "with",
];

impl Scenario {
    pub fn parse(name: &str, text: &str) -> Result<Self, ScenarioError> {
        let shape = |at: &str, message: String| ScenarioError::Shape {
            name: name.to_owned(),
            at: at.to_owned(),
            message,
        };
        let root: Value = serde_json::from_str(text).map_err(|source| ScenarioError::Json {
            name: name.to_owned(),
            source,
        })?;
        let obj = root
            .as_object()
            .ok_or_else(|| shape("top level", "expected an object".into()))?;
        for key in obj.keys() {
            if !["description", "steps", "format", "comment"].contains(&key.as_str()) {
                return Err(shape("top level", format!("unknown key {key:?}")));
            }
        }
        if obj.get("format").is_some_and(|f| f != 1) {
            return Err(shape("top level", "only \"format\": 1 is known".into()));
        }
        // Every scenario says what it produces (README.md lists them); the fake itself only checks it.
        if obj
            .get("description")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            return Err(shape(
                "top level",
                "\"description\" must be a non-empty string".into(),
            ));
        }
        let steps = obj
            .get("steps")
            .and_then(Value::as_array)
            .ok_or_else(|| shape("top level", "\"steps\" must be an array".into()))?;
        let steps = parse_steps(steps, "step").map_err(|(at, m)| shape(&at, m))?;
        Ok(Self {
            name: name.to_owned(),
            steps,
        })
    }
}

type StepErr = (String, String);

fn parse_steps(list: &[Value], prefix: &str) -> Result<Vec<Step>, StepErr> {
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            let at = format!("{prefix} {}", i + 1);
            parse_step(v, &at)
                .map_err(|m| (at.clone(), m))
                .and_then(|nested| nested)
        })
        .collect()
}

/// The event of `{"emit_fragment": NAME, "with": {…}}`: the built-in fragment's object with the
/// `with` keys replaced in place (keeping the fragment's key order, as the real CLI's) or
/// appended.
fn fragment_event(name: &Value, with: Option<&Value>) -> Result<Value, String> {
    let name = name
        .as_str()
        .ok_or("\"emit_fragment\" takes a fragment name")?;
    let text = super::builtin::fragment(name).ok_or_else(|| {
        format!(
            "unknown fragment {name:?} (known: {})",
            super::builtin::FRAGMENTS
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    let mut event: Value =
        serde_json::from_str(text).map_err(|e| format!("fragment {name:?} is not JSON: {e}"))?;
    let Some(fields) = event.as_object_mut() else {
        return Err(format!("fragment {name:?} is not a JSON object"));
    };
    match with {
        None => {}
        Some(Value::Object(overrides)) => {
            for (k, v) in overrides {
                fields.insert(k.clone(), v.clone());
            }
        }
        Some(_) => return Err("\"with\" takes a JSON object".into()),
    }
    Ok(event)
}

/// The outer `Result` carries this step's error, the inner one a nested step's.
fn parse_step(v: &Value, at: &str) -> Result<Result<Step, StepErr>, String> {
    let obj = v.as_object().ok_or("a step must be an object")?;
    let actions: Vec<&String> = obj
        .keys()
        .filter(|k| !MODIFIERS.contains(&k.as_str()))
        .collect();
    let [action] = actions.as_slice() else {
        return Err(format!(
            "a step needs exactly one action key, found {actions:?}"
        ));
    };
    let arg = &obj[action.as_str()];
    let allowed: &[&str] = match action.as_str() {
        "emit" => &["comment", "modes", "text", "requires_partial"],
        "emit_fragment" => &["comment", "modes", "text", "requires_partial", "with"],
        "raw" | "raw_bytes" => &["comment", "modes", "newline"],
        "line" | "flood" => &["comment", "modes"],
        "stderr" => &["comment", "newline"],
        "repeat" => &["comment", "steps"],
        _ => &["comment"],
    };
    if let Some(extra) = obj
        .keys()
        .find(|k| *k != *action && !allowed.contains(&k.as_str()))
    {
        return Err(format!("{extra:?} does not apply to a {action:?} step"));
    }
    let modes = parse_modes(obj.get("modes"))?;
    let newline = match obj.get("newline") {
        None => true,
        Some(b) => b.as_bool().ok_or("\"newline\" must be a boolean")?,
    };
    let step = match action.as_str() {
        "emit" | "emit_fragment" => {
            let text = obj.get("text").map(|t| t.as_str().map(str::to_owned));
            let text = text
                .map(|t| t.ok_or("\"text\" must be a string"))
                .transpose()?;
            let event = if action.as_str() == "emit" {
                if !arg.is_object() {
                    return Err("\"emit\" takes a JSON object".into());
                }
                arg.clone()
            } else {
                fragment_event(arg, obj.get("with"))?
            };
            let requires_partial = obj
                .get("requires_partial")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            Step::Emit {
                event,
                modes,
                text,
                requires_partial,
            }
        }
        "raw" => Step::Raw {
            bytes: RawBytes::Text(arg.as_str().ok_or("\"raw\" takes a string")?.to_owned()),
            newline,
            modes,
        },
        "raw_bytes" => {
            let bytes = arg
                .as_array()
                .ok_or("\"raw_bytes\" takes an array of bytes")?;
            let bytes: Option<Vec<u8>> = bytes
                .iter()
                .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                .collect();
            Step::Raw {
                bytes: RawBytes::Bytes(bytes.ok_or("bytes are 0..=255")?),
                newline,
                modes,
            }
        }
        "line" => parse_line(arg, modes)?,
        "flood" => {
            let event = arg
                .get("event")
                .filter(|e| e.is_object())
                .ok_or("flood needs an \"event\" object")?;
            Step::Flood {
                event: event.clone(),
                default_mib: arg
                    .get("default_mib")
                    .and_then(Value::as_f64)
                    .unwrap_or(4.0),
                env: arg
                    .get("env")
                    .and_then(Value::as_str)
                    .unwrap_or("FAKE_CLAUDE_FLOOD_MIB")
                    .to_owned(),
                modes,
            }
        }
        "stderr" => Step::Stderr {
            text: arg.as_str().ok_or("\"stderr\" takes a string")?.to_owned(),
            newline,
        },
        "sleep_ms" => Step::SleepMs(arg.as_u64().ok_or("\"sleep_ms\" takes a whole number")?),
        "exit" => Step::Exit(
            arg.as_i64()
                .and_then(|c| i32::try_from(c).ok())
                .ok_or("\"exit\" takes an exit code")?,
        ),
        "signal" => Step::Signal(parse_signal(arg)?),
        "hang" => Step::Hang,
        "ignore_signals" => {
            let list = arg
                .as_array()
                .ok_or("\"ignore_signals\" takes a list of signals")?;
            Step::IgnoreSignals(list.iter().map(parse_signal).collect::<Result<_, _>>()?)
        }
        "fork" => Step::Fork(parse_fork(arg)?),
        "close_stdout" => Step::CloseStdout,
        "dump" => Step::Dump(arg.as_str().ok_or("\"dump\" takes a file path")?.to_owned()),
        "repeat" => {
            let count = arg
                .as_u64()
                .and_then(|c| usize::try_from(c).ok())
                .ok_or("\"repeat\" takes a count")?;
            let steps = obj
                .get("steps")
                .and_then(Value::as_array)
                .ok_or("\"repeat\" needs \"steps\"")?;
            return Ok(parse_steps(steps, &format!("{at} repeat step"))
                .map(|steps| Step::Repeat { count, steps }));
        }
        other => return Err(format!("unknown step kind {other:?}")),
    };
    Ok(Ok(step))
}

fn parse_line(arg: &Value, modes: Modes) -> Result<Step, String> {
    let bytes = arg
        .get("bytes")
        .and_then(Value::as_u64)
        .ok_or("line needs \"bytes\"")?;
    let kind = arg
        .get("type")
        .and_then(Value::as_str)
        .ok_or("line needs \"type\"")?;
    let fields = match arg.get("fields") {
        None => Map::new(),
        Some(f) => f
            .as_object()
            .ok_or("line \"fields\" must be an object")?
            .clone(),
    };
    let pad = arg
        .get("pad")
        .and_then(Value::as_str)
        .unwrap_or("/padding")
        .to_owned();
    if !pad.starts_with('/') {
        return Err("line \"pad\" is a JSON pointer such as \"/result\"".into());
    }
    let bytes = usize::try_from(bytes).map_err(|_| "line \"bytes\" too large")?;
    Ok(Step::Line {
        bytes,
        kind: kind.to_owned(),
        fields,
        pad,
        modes,
    })
}

fn parse_fork(arg: &Value) -> Result<ForkSpec, String> {
    let obj = arg.as_object().ok_or("\"fork\" takes an object")?;
    let flag = |k: &str| obj.get(k).and_then(Value::as_bool).unwrap_or(false);
    for key in obj.keys() {
        if ![
            "setsid",
            "ignore_sigterm",
            "close_stdio",
            "lifetime_ms",
            "pidfile_env",
        ]
        .contains(&key.as_str())
        {
            return Err(format!("unknown fork key {key:?}"));
        }
    }
    Ok(ForkSpec {
        setsid: flag("setsid"),
        ignore_sigterm: flag("ignore_sigterm"),
        close_stdio: flag("close_stdio"),
        lifetime_ms: obj.get("lifetime_ms").and_then(Value::as_u64),
        pidfile_env: obj
            .get("pidfile_env")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

fn parse_signal(v: &Value) -> Result<Signal, String> {
    if let Some(n) = v.as_i64() {
        return i32::try_from(n)
            .ok()
            .and_then(|n| Signal::try_from(n).ok())
            .ok_or(format!("no signal {n}"));
    }
    let name = v
        .as_str()
        .ok_or("a signal is a name such as \"SIGKILL\" or a number")?;
    name.parse::<Signal>()
        .map_err(|_| format!("unknown signal {name:?}"))
}

fn parse_modes(v: Option<&Value>) -> Result<Modes, String> {
    let Some(v) = v else { return Ok(None) };
    let list = v
        .as_array()
        .ok_or("\"modes\" is a list of output formats")?;
    let modes = list
        .iter()
        .map(|m| match m.as_str() {
            Some("text") => Ok(OutputFormat::Text),
            Some("json") => Ok(OutputFormat::Json),
            Some("stream-json") => Ok(OutputFormat::StreamJson),
            _ => Err(format!("unknown output format {m}")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(modes))
}
