//! Work metadata: META-WORK-1..7. The declaration and resource are checked from the listing; the
//! snapshot's behaviour (binding, refusal while unbound, owners, revisions) is driven through
//! fake-claude runs.

use serde_json::{Value, json};

use super::run_session::{ACTIVE_STATES, INVOCATION_KEY, Runs};
use super::support::{call_tool, ensure, show, str_at, tool_answer};
use crate::core::case::case;
use crate::core::client::{Client, error_code};
use crate::core::model::{Check, CheckResult};
use crate::mcp::ctx::Ctx;
use crate::mcp::gate::Case;
use crate::mcp::profile::{Levels, Profile};
use crate::mcp::roles::Role;

/// The work key.
pub const WORK_KEY: &str = "io.github.computer-mcp/work";
/// The work snapshot's URI.
pub const WORK_URI: &str = "computer-mcp://runtime/work/v1";

/// The cases of this section.
pub const CASES: &[Case] = &[
    case!("meta-work/declared", "META-WORK-1", Levels::META_LOCAL, Discovery,
        "Every tool declares _meta work {format_version 1, uri computer-mcp://runtime/work/v1}",
        declared[]),
    case!("meta-work/resource-listed", "META-WORK-2", Levels::META_LOCAL, Discovery,
        "resources/list lists the work URI",
        resource_listed[]),
    case!("meta-work/snapshot-shape", "META-WORK-3", Levels::META_LOCAL, Server,
        "Reading the work URI returns one application/json text: {format_version 1, instance UUID, revision, work []}, instance fixed",
        snapshot_shape[]),
    case!("meta-work/snapshot-entries", "META-WORK-3", Levels::PROVIDER_ONLY, Fake,
        "A retained run's snapshot entry is {kind claude.run, run_id, acquired_by UUID, state}",
        snapshot_entries[], 3),
    case!("meta-work/invocation-malformed", "META-WORK-4", Levels::META_LOCAL, Server,
        "A malformed work-invocation UUID in tools/call _meta is invalid_arguments",
        invocation_malformed[]),
    case!("meta-work/invocation-not-an-argument", "META-WORK-4", Levels::META_LOCAL, Server,
        "The work invocation cannot be supplied as an argument (invalid_arguments)",
        invocation_as_argument[]),
    case!("meta-work/invocation-recorded", "META-WORK-4", Levels::PROVIDER_ONLY, Fake,
        "A run created with a work invocation is acquired_by it; later calls with other UUIDs do not rebind",
        invocation_recorded[], 3),
    case!("meta-work/unbound-refusal", "META-WORK-5", Levels::PROVIDER_ONLY, Fake,
        "While an unbound run is retained, reading the work URI is -32000 with data {unbound_runs, last_revision}",
        unbound_refusal[], 3),
    case!("meta-work/owners", "META-WORK-6", Levels::PROVIDER_ONLY, Fake,
        "An active run and a retained settled run appear in the snapshot; only release removes the entry; revision grows",
        owners[], 3),
    case!("meta-work/failed-read-changes-nothing", "META-WORK-7", Levels::PROVIDER_ONLY, Fake,
        "After a refused read, the next successful read shows a revision no lower than the last one served",
        failed_read[], 3),
];

fn tools(ctx: &Ctx) -> Result<&[Value], Check> {
    if ctx.discovery.tools.is_none() {
        // No tools capability, or no capabilities at all (then blocked by the result's shape).
        super::support::declared(ctx, "tools")?;
    }
    let t = ctx.discovery.tools();
    if t.is_empty() {
        return Err(Check::skip("the server lists no tools"));
    }
    Ok(t)
}

async fn declared(ctx: Ctx) -> CheckResult {
    let want = json!({"format_version": 1, "uri": WORK_URI});
    let bad: Vec<String> = tools(&ctx)?
        .iter()
        .filter(|t| t.get("_meta").and_then(|m| m.get(WORK_KEY)) != Some(&want))
        .map(|t| str_at(t, "name").unwrap_or("?").to_owned())
        .collect();
    ensure(
        bad.is_empty(),
        format!("{want} on every tool"),
        format!("missing or different on {}", bad.join(", ")),
    )?;
    Ok(Check::Pass)
}

async fn resource_listed(ctx: Ctx) -> CheckResult {
    let Some(l) = &ctx.discovery.resources else {
        if let Err(blocked @ Check::Blocked { .. }) = super::support::declared(&ctx, "resources") {
            return Err(blocked);
        }
        return Err(Check::fail(
            format!("a resources capability listing {WORK_URI}"),
            "no resources capability",
        ));
    };
    ensure(
        l.items.iter().any(|r| str_at(r, "uri") == Some(WORK_URI)),
        format!("{WORK_URI} listed"),
        format!("{} resources, not that one", l.items.len()),
    )?;
    Ok(Check::Pass)
}

/// Reads the snapshot: `Ok(snapshot)` or `Err(the whole error answer)`.
pub async fn read_snapshot(c: &mut Client) -> Result<Result<Value, Value>, Check> {
    let answer = c
        .request("resources/read", Some(json!({"uri": WORK_URI})))
        .await?;
    let Some(result) = answer.get("result") else {
        return Ok(Err(answer));
    };
    let contents = result
        .get("contents")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let ok = contents.len() == 1
        && str_at(&contents[0], "mimeType") == Some("application/json")
        && str_at(&contents[0], "uri") == Some(WORK_URI);
    ensure(
        ok,
        "one application/json content for the work URI",
        show(&answer),
    )?;
    let text = str_at(&contents[0], "text").unwrap_or("");
    let snap: Value = serde_json::from_str(text)
        .map_err(|e| Check::fail("a JSON snapshot", format!("{e}: {}", show(&answer))))?;
    let shape = snap.get("format_version") == Some(&json!(1))
        && str_at(&snap, "instance").is_some_and(|i| uuid::Uuid::parse_str(i).is_ok())
        && snap.get("revision").is_some_and(Value::is_u64)
        && snap
            .get("work")
            .and_then(Value::as_array)
            .is_some_and(|w| w.len() <= 32);
    ensure(
        shape,
        "{format_version 1, instance UUID, revision u64, work [≤ 32 entries]}",
        show(&snap),
    )?;
    Ok(Ok(snap))
}

/// A snapshot read of the work URI, or why not: [`unreadable`] when the URI is listed, blocked by
/// `meta-work/resource-listed` when it is not.
async fn snapshot_of(c: &mut Client, listed: bool) -> Result<Value, Check> {
    let unlisted = |failed: Check| Check::blocked("meta-work/resource-listed", failed);
    match read_snapshot(c).await {
        Ok(Ok(snapshot)) => Ok(snapshot),
        Ok(Err(answer)) if listed => Err(unreadable(&answer)),
        Ok(Err(answer)) => Err(unlisted(Check::fail(
            format!("a snapshot read from {WORK_URI}"),
            show(&answer),
        ))),
        Err(failed) if !listed && failed.is_fail() => Err(unlisted(failed)),
        Err(other) => Err(other),
    }
}

/// A read of the listed work URI answered with an error: the resource is not readable, which the
/// case reading listed resources grades (MCP server/resources); this case's subject is the
/// snapshot a read returns, so it is blocked by that one (and fails when that one holds).
fn unreadable(answer: &Value) -> Check {
    Check::blocked(
        "resources/read/listed",
        Check::fail(format!("a snapshot read from {WORK_URI}"), show(answer)),
    )
}

async fn snapshot_shape(ctx: Ctx) -> CheckResult {
    if ctx.profile != Profile::Provider && ctx.discovery.resources.is_none() {
        if let Err(blocked @ Check::Blocked { .. }) = super::support::declared(&ctx, "resources") {
            return Err(blocked);
        }
        // No resources at all: META-WORK-2's defect (the work URI is not listed).
        return Err(Check::blocked(
            "meta-work/resource-listed",
            Check::fail(format!("a readable {WORK_URI}"), "no resources capability"),
        ));
    }
    // A server that does not list the work URI fails META-WORK-2 (`meta-work/resource-listed`);
    // whatever a read of that URI then answers short of a snapshot (an error, empty contents) is
    // the same defect, not a second one of this case (RUNNER-11).
    let listed = ctx
        .discovery
        .resources
        .as_ref()
        .is_some_and(|l| l.items.iter().any(|r| str_at(r, "uri") == Some(WORK_URI)));
    let mut c = ctx.session().await?;
    let first = snapshot_of(&mut c, listed).await?;
    let second = snapshot_of(&mut c, listed).await?;
    ensure(
        first.get("instance") == second.get("instance"),
        "the same instance on every read",
        format!("{} then {}", show(&first), show(&second)),
    )?;
    let (r1, r2) = (
        first["revision"].as_u64().unwrap_or(0),
        second["revision"].as_u64().unwrap_or(0),
    );
    ensure(
        r2 >= r1,
        "a revision that never goes down",
        format!("{r1} then {r2}"),
    )?;
    ensure(
        first.get("work") == Some(&json!([])),
        "no work in a fresh server",
        show(&first),
    )?;
    Ok(Check::Pass)
}

/// States of RUN-10 (`uncertain` included: META-WORK-6 shows a cleanup failure that way).
const RUN_STATES: [&str; 9] = [
    "pending",
    "starting",
    "running",
    "settling",
    "succeeded",
    "failed",
    "cancelled",
    "timed_out",
    "uncertain",
];

/// META-WORK-3's entry shape, checked on a snapshot that holds a bound run (a fresh server's
/// snapshot, read by `meta-work/snapshot-shape`, has no entry to check).
async fn snapshot_entries(ctx: Ctx) -> CheckResult {
    let mut r = Runs::open(&ctx).await?;
    let owner = uuid::Uuid::new_v4().to_string();
    let run_id = r
        .start("success", Some(json!({INVOCATION_KEY: owner})))
        .await?;
    let snap = snapshot_ok(&mut r).await?;
    let work = snap["work"].as_array().cloned().unwrap_or_default();
    ensure(
        entry(&snap, &run_id).is_some(),
        format!("an entry for {run_id}"),
        show(&snap),
    )?;
    let bad: Vec<String> = work
        .iter()
        .filter(|e| {
            !(str_at(e, "kind") == Some("claude.run")
                && str_at(e, "run_id").is_some()
                && str_at(e, "acquired_by").is_some_and(|a| uuid::Uuid::parse_str(a).is_ok())
                && str_at(e, "state").is_some_and(|s| RUN_STATES.contains(&s)))
        })
        .map(show)
        .collect();
    ensure(
        bad.is_empty(),
        "entries {kind: \"claude.run\", run_id, acquired_by: UUID, state: a RUN-10 state}",
        bad.join(" | "),
    )?;
    Ok(Check::Pass)
}

async fn invocation_malformed(ctx: Ctx) -> CheckResult {
    let tool = ctx.role(Role::Result)?;
    let mut c = ctx.session().await?;
    let answer = call_tool(
        &mut c,
        &tool,
        json!({"run_id": "x"}),
        Some(json!({INVOCATION_KEY: "not-a-uuid"})),
    )
    .await?;
    let (is_error, inner, _) =
        tool_answer(&answer, &tool, ctx.watch.output_schema(&tool).as_deref())?;
    let code = inner.get("error").and_then(|e| str_at(e, "code"));
    ensure(
        is_error && code == Some("invalid_arguments"),
        "isError true with error.code invalid_arguments",
        show(&answer),
    )?;
    Ok(Check::Pass)
}

async fn invocation_as_argument(ctx: Ctx) -> CheckResult {
    let tool = ctx.role(Role::Result)?;
    let mut c = ctx.session().await?;
    let args = json!({"run_id": "x", INVOCATION_KEY: uuid::Uuid::new_v4().to_string()});
    let answer = call_tool(&mut c, &tool, args, None).await?;
    let (is_error, inner, _) =
        tool_answer(&answer, &tool, ctx.watch.output_schema(&tool).as_deref())?;
    let code = inner.get("error").and_then(|e| str_at(e, "code"));
    ensure(
        is_error && code == Some("invalid_arguments"),
        "isError true with error.code invalid_arguments",
        show(&answer),
    )?;
    Ok(Check::Pass)
}

fn entry<'a>(snap: &'a Value, run_id: &str) -> Option<&'a Value> {
    snap.get("work")?
        .as_array()?
        .iter()
        .find(|e| str_at(e, "run_id") == Some(run_id))
}

/// The snapshot once every run is bound. A refused read is this case's finding, unless reads
/// of the work URI fail anyway: then `meta-work/snapshot-shape` (a fresh server's read) fails
/// or is blocked too, and this case is blocked by it.
async fn snapshot_ok(r: &mut Runs) -> Result<Value, Check> {
    read_snapshot(&mut r.c).await?.map_err(|a| {
        Check::blocked(
            "meta-work/snapshot-shape",
            Check::fail("a snapshot (every run is bound)", show(&a)),
        )
    })
}

async fn invocation_recorded(ctx: Ctx) -> CheckResult {
    let mut r = Runs::open(&ctx).await?;
    let owner = uuid::Uuid::new_v4().to_string();
    let run_id = r
        .start("success", Some(json!({INVOCATION_KEY: owner})))
        .await?;
    let snap = snapshot_ok(&mut r).await?;
    let acquired = entry(&snap, &run_id).and_then(|e| str_at(e, "acquired_by"));
    ensure(
        acquired == Some(owner.as_str()),
        format!("acquired_by {owner}"),
        show(&snap),
    )?;
    let other = uuid::Uuid::new_v4().to_string();
    r.settled(&run_id).await?;
    r.call(
        Role::Result,
        json!({"run_id": run_id}),
        Some(json!({INVOCATION_KEY: other})),
    )
    .await?;
    let snap = snapshot_ok(&mut r).await?;
    let acquired = entry(&snap, &run_id).and_then(|e| str_at(e, "acquired_by"));
    ensure(
        acquired == Some(owner.as_str()),
        format!("still acquired_by {owner} after a read with another UUID"),
        show(&snap),
    )?;
    Ok(Check::Pass)
}

async fn unbound_refusal(ctx: Ctx) -> CheckResult {
    let mut r = Runs::open(&ctx).await?;
    let run_id = r.start("success", None).await?;
    r.settled(&run_id).await?;
    let refused = read_snapshot(&mut r.c).await?;
    let Err(answer) = refused else {
        return Err(Check::fail(
            "error -32000 while an unbound run is retained",
            "a snapshot",
        ));
    };
    let data = answer
        .get("error")
        .and_then(|e| e.get("data"))
        .cloned()
        .unwrap_or(Value::Null);
    let expected = "error -32000 with data {unbound_runs: 1, last_revision}";
    if error_code(&answer) != Some(mcp_wire::code::SERVER_ERROR) {
        // Another error: a refusal, or reads of the work URI failing anyway (then
        // meta-work/snapshot-shape is not graded either, and blocks this case).
        return Err(Check::blocked(
            "meta-work/snapshot-shape",
            Check::fail(expected, show(&answer)),
        ));
    }
    let ok = error_code(&answer) == Some(mcp_wire::code::SERVER_ERROR)
        && data.get("unbound_runs").and_then(Value::as_u64) == Some(1)
        && data.get("last_revision").is_some_and(Value::is_u64);
    ensure(ok, expected, show(&answer))?;
    // META-WORK-5: every tool stays usable for the unbound client.
    r.list().await?;
    Ok(Check::Pass)
}

async fn owners(ctx: Ctx) -> CheckResult {
    let mut r = Runs::open(&ctx).await?;
    let meta = json!({INVOCATION_KEY: uuid::Uuid::new_v4().to_string()});
    let rev0 = snapshot_ok(&mut r).await?["revision"].as_u64().unwrap_or(0);
    let run_id = r.start("hang-before-final", Some(meta)).await?;
    let snap = snapshot_ok(&mut r).await?;
    let state = entry(&snap, &run_id)
        .and_then(|e| str_at(e, "state"))
        .unwrap_or("absent");
    ensure(
        ACTIVE_STATES.contains(&state),
        "the active run in the snapshot with an active state",
        show(&snap),
    )?;
    let rev1 = snap["revision"].as_u64().unwrap_or(0);
    ensure(
        rev1 > rev0,
        "a higher revision after a run started",
        format!("{rev0} then {rev1}"),
    )?;
    r.cancel(&run_id).await?;
    r.cleaned(&run_id).await?;
    let snap = snapshot_ok(&mut r).await?;
    let state = entry(&snap, &run_id)
        .and_then(|e| str_at(e, "state"))
        .unwrap_or("absent");
    ensure(
        state == "cancelled",
        "the settled run still listed as cancelled",
        show(&snap),
    )?;
    let rev2 = snap["revision"].as_u64().unwrap_or(0);
    ensure(
        rev2 > rev1,
        "a higher revision after the state changed",
        format!("{rev1} then {rev2}"),
    )?;
    r.release(&run_id).await?;
    let snap = snapshot_ok(&mut r).await?;
    ensure(
        entry(&snap, &run_id).is_none(),
        "the entry gone after release",
        show(&snap),
    )?;
    Ok(Check::Pass)
}

async fn failed_read(ctx: Ctx) -> CheckResult {
    let mut r = Runs::open(&ctx).await?;
    let rev0 = snapshot_ok(&mut r).await?["revision"].as_u64().unwrap_or(0);
    let run_id = r.start("success", None).await?;
    r.settled(&run_id).await?;
    let Err(answer) = read_snapshot(&mut r.c).await? else {
        return Err(Check::fail(
            "a refused read while unbound (META-WORK-5)",
            "a snapshot",
        ));
    };
    let last = answer
        .get("error")
        .and_then(|e| e.get("data"))
        .and_then(|d| d.get("last_revision"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    ensure(
        last >= rev0,
        format!("last_revision ≥ {rev0}"),
        show(&answer),
    )?;
    r.cleaned(&run_id).await?;
    r.release(&run_id).await?;
    let snap = snapshot_ok(&mut r).await?;
    let rev = snap["revision"].as_u64().unwrap_or(0);
    ensure(
        rev >= last && rev > rev0,
        format!("revision ≥ {last} and > {rev0}"),
        show(&snap),
    )?;
    Ok(Check::Pass)
}
