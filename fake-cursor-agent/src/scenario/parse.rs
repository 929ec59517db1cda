//! Reads a scenario file into the model of `mod.rs`, refusing anything it does not know (a typo
//! in a step name fails loudly instead of silently doing nothing).

use serde_json::{Map, Value};

use super::{Answer, Auth, Handshake, Phase, RequestStep, Scenario, ScenarioError, SetMode, Step};

/// Top-level keys a scenario file may have (`kind`, `description` and `source` document it).
const TOP_KEYS: &[&str] = &[
    "kind",
    "description",
    "source",
    "handshake",
    "steps",
    "cancel_answer_ms",
];

/// Parses the JSON text of scenario `name`.
pub fn scenario(name: &str, text: &str) -> Result<Scenario, ScenarioError> {
    let bad = |detail: String| ScenarioError::Invalid {
        name: name.to_owned(),
        detail,
    };
    let v: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let obj = v.as_object().ok_or_else(|| bad("not an object".into()))?;
    for k in obj.keys() {
        if !TOP_KEYS.contains(&k.as_str()) {
            return Err(bad(format!("unknown top-level key {k:?}")));
        }
    }
    match obj.get("kind").and_then(Value::as_str) {
        Some("real" | "real-shaped" | "injection") => {}
        other => {
            return Err(bad(format!(
                "kind must be real, real-shaped or injection, not {other:?}"
            )));
        }
    }
    let handshake = match obj.get("handshake") {
        None => Handshake::default(),
        Some(h) => handshake(h).map_err(bad)?,
    };
    let steps = match obj.get("steps") {
        None => Vec::new(),
        Some(s) => steps(s).map_err(bad)?,
    };
    Ok(Scenario {
        handshake,
        steps,
        cancel_answer_ms: obj.get("cancel_answer_ms").and_then(Value::as_u64),
    })
}

fn handshake(v: &Value) -> Result<Handshake, String> {
    let obj = object(v, "handshake")?;
    let mut h = Handshake::default();
    for (k, val) in obj {
        match k.as_str() {
            "initialize" => h.initialize = phase(val, k)?,
            "session_new" => h.session_new = phase(val, k)?,
            "load_session" => h.load_session = bool_of(val, k)?,
            "unsigned_ids" => h.unsigned_ids = bool_of(val, k)?,
            "modes" if val.is_null() || val.is_object() => h.modes = Some(val.clone()),
            "set_mode" => {
                h.set_mode = match val.as_str() {
                    Some("advertised") => SetMode::Advertised,
                    Some("ignore") => SetMode::Ignore,
                    Some("refuse") => SetMode::Refuse,
                    _ => {
                        return Err(format!(
                            "handshake.set_mode must be \"advertised\", \"ignore\" or \"refuse\", not {val}"
                        ));
                    }
                }
            }
            "auth" => {
                h.auth = match val.as_str() {
                    Some("none") => Auth::None,
                    Some("env") => Auth::Env,
                    _ => {
                        return Err(format!(
                            "handshake.auth must be \"none\" or \"env\", not {val}"
                        ));
                    }
                }
            }
            _ => return Err(format!("unknown handshake key {k:?}")),
        }
    }
    Ok(h)
}

fn phase(v: &Value, what: &str) -> Result<Phase, String> {
    let mut p = Phase::default();
    for (k, val) in object(v, what)? {
        match k.as_str() {
            "delay_ms" => p.delay_ms = u64_of(val, k)?,
            "hang" => p.hang = bool_of(val, k)?,
            "result" if what == "initialize" => p.result = Some(val.clone()),
            _ => return Err(format!("unknown key {k:?} in handshake.{what}")),
        }
    }
    Ok(p)
}

fn steps(v: &Value) -> Result<Vec<Step>, String> {
    v.as_array()
        .ok_or_else(|| format!("steps must be an array, not {v}"))?
        .iter()
        .map(step)
        .collect()
}

fn step(v: &Value) -> Result<Step, String> {
    let obj = object(v, "a step")?;
    let only = |allowed: &[&str]| -> Result<(), String> {
        match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(k) => Err(format!("unexpected key {k:?} in step {v}")),
            None => Ok(()),
        }
    };
    let newline = obj
        .get("newline")
        .map_or(Ok(true), |n| bool_of(n, "newline"))?;
    if let Some(u) = obj.get("update") {
        only(&["update"])?;
        if u.get("sessionUpdate").and_then(Value::as_str).is_none() {
            return Err(format!("an update needs a sessionUpdate string: {u}"));
        }
        return Ok(Step::Update(u.clone()));
    }
    if let Some(n) = obj.get("notify") {
        only(&["notify"])?;
        let n = object(n, "notify")?;
        return Ok(Step::Notify {
            method: str_of(n.get("method"), "notify.method")?,
            params: n.get("params").cloned().unwrap_or(Value::Null),
        });
    }
    if let Some(r) = obj.get("request") {
        only(&["request"])?;
        return Ok(Step::Request(request(r)?));
    }
    if let Some(ms) = obj.get("sleep_ms") {
        only(&["sleep_ms"])?;
        return Ok(Step::SleepMs(u64_of(ms, "sleep_ms")?));
    }
    if let Some(n) = obj.get("await_answers") {
        only(&["await_answers"])?;
        return Ok(Step::AwaitAnswers(u64_of(n, "await_answers")?));
    }
    if obj.contains_key("hang") {
        only(&["hang"])?;
        return Ok(Step::Hang);
    }
    if let Some(code) = obj.get("exit") {
        only(&["exit"])?;
        let code = code.as_i64().and_then(|c| i32::try_from(c).ok());
        return code
            .map(Step::Exit)
            .ok_or_else(|| format!("exit needs a status: {v}"));
    }
    if let Some(sig) = obj.get("signal") {
        only(&["signal"])?;
        let sig =
            crate::process::signal_from(sig).ok_or_else(|| format!("unknown signal {sig}"))?;
        return Ok(Step::Signal(sig));
    }
    if let Some(raw) = obj.get("raw") {
        only(&["raw", "newline"])?;
        let bytes = str_of(Some(raw), "raw")?.into_bytes();
        return Ok(Step::Raw { bytes, newline });
    }
    if let Some(raw) = obj.get("raw_bytes") {
        only(&["raw_bytes", "newline"])?;
        let bytes = raw
            .as_array()
            .and_then(|a| {
                a.iter()
                    .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                    .collect()
            })
            .ok_or_else(|| format!("raw_bytes must be an array of bytes: {raw}"))?;
        return Ok(Step::Raw { bytes, newline });
    }
    if let Some(line) = obj.get("line") {
        only(&["line"])?;
        let l = object(line, "line")?;
        let bytes = u64_of(l.get("bytes").unwrap_or(&Value::Null), "line.bytes")?;
        return Ok(Step::Line {
            bytes: usize::try_from(bytes).map_err(|e| e.to_string())?,
            msg: l.get("msg").cloned().ok_or("line needs msg")?,
            pad: str_of(l.get("pad"), "line.pad")?,
        });
    }
    if let Some(text) = obj.get("stderr") {
        only(&["stderr", "newline"])?;
        return Ok(Step::Stderr {
            text: str_of(Some(text), "stderr")?,
            newline,
        });
    }
    for key in ["answer", "answer_again"] {
        if let Some(a) = obj.get(key) {
            only(&[key])?;
            let a = object(a, key)?;
            let answer = if let Some(e) = a.get("error") {
                Answer::Error(e.clone())
            } else if let Some(r) = a.get("result") {
                Answer::Result(r.clone())
            } else {
                Answer::Stop(str_of(a.get("stopReason"), &format!("{key}.stopReason"))?)
            };
            return Ok(if key == "answer" {
                Step::Answer(answer)
            } else {
                Step::AnswerAgain(answer)
            });
        }
    }
    if let Some(n) = obj.get("repeat") {
        only(&["repeat", "steps"])?;
        return Ok(Step::Repeat {
            n: u64_of(n, "repeat")?,
            steps: steps(obj.get("steps").unwrap_or(&Value::Null))?,
        });
    }
    if let Some(m) = obj.get("mode") {
        only(&["mode"])?;
        return Ok(Step::Mode(branches(m, "mode")?));
    }
    if let Some(c) = obj.get("capability") {
        only(&["capability"])?;
        return Ok(Step::Capability(branches(c, "capability")?));
    }
    Err(format!("unknown step {v}"))
}

fn request(v: &Value) -> Result<RequestStep, String> {
    let r = object(v, "request")?;
    for k in r.keys() {
        if !["method", "params", "id", "wait", "on", "bind"].contains(&k.as_str()) {
            return Err(format!("unknown key {k:?} in request {v}"));
        }
    }
    Ok(RequestStep {
        method: str_of(r.get("method"), "request.method")?,
        params: r.get("params").cloned().unwrap_or(Value::Null),
        id: r.get("id").cloned(),
        wait: r
            .get("wait")
            .map_or(Ok(true), |w| bool_of(w, "request.wait"))?,
        on: match r.get("on") {
            None => Vec::new(),
            Some(on) => branches(on, "request.on")?,
        },
        bind: match r.get("bind") {
            None => Vec::new(),
            Some(b) => object(b, "request.bind")?
                .iter()
                .map(|(k, p)| Ok((k.clone(), str_of(Some(p), "request.bind's pointer")?)))
                .collect::<Result<_, String>>()?,
        },
    })
}

fn branches(v: &Value, what: &str) -> Result<Vec<(String, Vec<Step>)>, String> {
    object(v, what)?
        .iter()
        .map(|(k, s)| Ok((k.clone(), steps(s)?)))
        .collect()
}

fn object<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>, String> {
    v.as_object()
        .ok_or_else(|| format!("{what} must be an object, not {v}"))
}

fn str_of(v: Option<&Value>, what: &str) -> Result<String, String> {
    v.and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("{what} must be a string"))
}

fn u64_of(v: &Value, what: &str) -> Result<u64, String> {
    v.as_u64()
        .ok_or_else(|| format!("{what} must be a non-negative integer, not {v}"))
}

fn bool_of(v: &Value, what: &str) -> Result<bool, String> {
    v.as_bool()
        .ok_or_else(|| format!("{what} must be true or false, not {v}"))
}
