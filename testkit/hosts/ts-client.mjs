// The MCP TypeScript SDK (`@modelcontextprotocol/sdk`, pinned in testkit/pins/mcp-ts-sdk) as a real
// host of an MCP server over stdio: it runs the host matrix's core sequence and prints one JSON
// summary of what it saw on stdout. testkit::prereq::mcp_ts_client() builds the command.
//
// Usage: CMK_MCP_TS_SDK=<…/node_modules/@modelcontextprotocol/sdk>
//        node ts-client.mjs [--names dotted|underscore] -- COMMAND [ARGS...]
//
// The server is expected to run fake-claude as its `claude` (scenarios picked by the prompt's first
// line `fake-claude:scenario=NAME`). Every step records what the SDK returned or threw; the script
// only fails (exit 1) when the session itself breaks, so the calling test asserts on the summary.
//
// Steps: connect (initialize) · tools/list · resources/list, resources/templates/list,
// resources/read of the work resource (before any run: META-WORK-5) · claude.run (success, with
// onprogress) · claude.run.start + claude.run.result until completed + claude.run.events ·
// claude.run.list · claude.run.release of that completed run · reset-on-progress: a 2 s timeout
// with resetTimeoutOnProgress on a slow stream and on a silent run the server times out after
// 4 s, and the same silent run without reset (control: the SDK times out) · claude.run.start of a
// hanging run + claude.run.cancel + claude.run.result until completed · invalid arguments · the
// work resource read again (refused while unbound runs are retained, META-WORK-5).

import { pathToFileURL } from "node:url";
import { join } from "node:path";

const sdkDir = process.env.CMK_MCP_TS_SDK;
if (!sdkDir) {
  console.error("ts-client.mjs: set CMK_MCP_TS_SDK to the installed @modelcontextprotocol/sdk folder");
  process.exit(2);
}
const load = (rel) => import(pathToFileURL(join(sdkDir, "dist/esm", rel)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const sdkPackage = JSON.parse(
  await (await import("node:fs/promises")).readFile(join(sdkDir, "package.json"), "utf8"),
);

const argv = process.argv.slice(2);
let names = "dotted";
while (argv.length && argv[0] !== "--") {
  const flag = argv.shift();
  if (flag === "--names") names = argv.shift();
  else {
    console.error(`ts-client.mjs: unknown option ${flag}`);
    process.exit(2);
  }
}
argv.shift();
if (!argv.length) {
  console.error("usage: node ts-client.mjs [--names dotted|underscore] -- COMMAND [ARGS...]");
  process.exit(2);
}
const tool = (dotted) => (names === "underscore" ? dotted.replaceAll(".", "_") : dotted);
const WORK_URI = "computer-mcp://runtime/work/v1";
const prompt = (scenario, text = "hello") => `fake-claude:scenario=${scenario}\n${text}`;

const stderrChunks = [];
const transport = new StdioClientTransport({
  command: argv[0],
  args: argv.slice(1),
  // The SDK's default environment keeps PATH (fake-claude first) and HOME.
  stderr: "pipe",
});
transport.stderr?.on("data", (chunk) => {
  if (stderrChunks.length < 256) stderrChunks.push(chunk.toString());
});
const client = new Client({ name: "cmk-ts-host", version: "1.0.0" });
await client.connect(transport);

/** What a call returned, or what it threw (an McpError's code and message). */
async function outcome(promise) {
  const started = Date.now();
  try {
    const result = await promise;
    return { ok: true, ms: Date.now() - started, result };
  } catch (error) {
    return { ok: false, ms: Date.now() - started, code: error?.code ?? null, message: String(error?.message ?? error) };
  }
}

// OUTPUT-SCHEMA CHECK (TOOL-6): callTool (dist/esm/client/index.js 1.32.2)
// looks up the validator it compiled from the listed tool's outputSchema at listTools and, when
// the result carries structuredContent, validates it, throwing McpError -32602 on a mismatch.
// A name lands in `validated` only when callTool returned (so validation passed), the SDK held
// a validator for it, and the result had structuredContent and was not isError. (1.32.2 also
// validates the structuredContent of isError results, but its comment says it should not, so the
// test does not count on that: every role must be validated through a successful result.)
const validated = new Set();

/** client.callTool with the outputSchema bookkeeping above. */
async function callTool(name, args, options) {
  const result = await client.callTool({ name: tool(name), arguments: args }, undefined, options);
  if (
    result.structuredContent !== undefined &&
    !result.isError &&
    client.getToolOutputValidator(tool(name)) !== undefined
  ) {
    validated.add(tool(name));
  }
  return result;
}

/** tools/call with progress recorded; `options` go to the SDK (timeout, resetTimeoutOnProgress). */
async function call(name, args, options = {}) {
  const progress = [];
  const out = await outcome(
    callTool(name, args, {
      ...options,
      onprogress: (p) => progress.push(p),
    }),
  );
  return { ...out, progress };
}

/** claude.run.result until `completed` (bounded: 200 reads, 100 ms apart). */
async function resultUntilCompleted(runId) {
  let last;
  for (let i = 0; i < 200; i++) {
    last = await outcome(callTool("claude.run.result", { run_id: runId }));
    if (!last.ok || last.result.structuredContent?.result?.completed) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return last;
}

const summary = {
  sdk: sdkPackage.version,
  names,
  server_version: client.getServerVersion(),
  server_capabilities: client.getServerCapabilities(),
  instructions: client.getInstructions() ?? null,
};

const listed = await client.listTools();
summary.tools = listed.tools.map((t) => ({
  name: t.name,
  has_output_schema: t.outputSchema !== undefined,
}));

// Resources first: the work snapshot can be read only while no unbound run is retained.
summary.resources = await outcome(client.listResources());
summary.resource_templates = await outcome(client.listResourceTemplates());
summary.read = await outcome(client.readResource({ uri: WORK_URI }));

summary.run = await call("claude.run", { prompt: prompt("success") });

const start = await call("claude.run.start", { prompt: prompt("success") });
summary.start = start;
const runId = start.result?.structuredContent?.result?.run_id;
if (runId) {
  summary.start_result = await resultUntilCompleted(runId);
  summary.start_events = await call("claude.run.events", { run_id: runId });
}
summary.list = await call("claude.run.list", {});
if (runId) summary.release = await call("claude.run.release", { run_id: runId });

// Reset-on-progress: a 2 s per-call timeout the server keeps alive with progress.
summary.slow_with_reset = await call(
  "claude.run",
  { prompt: prompt("slow-stream") },
  { timeout: 2000, resetTimeoutOnProgress: true },
);
summary.silent_with_reset = await call(
  "claude.run",
  { prompt: prompt("hang-before-final"), timeout_s: 4 },
  { timeout: 2000, resetTimeoutOnProgress: true },
);
summary.silent_without_reset = await call(
  "claude.run",
  { prompt: prompt("hang-before-final"), timeout_s: 4 },
  { timeout: 2000 },
);

const slow = await call("claude.run.start", { prompt: prompt("hang-before-final") });
summary.cancel_start = slow;
const slowId = slow.result?.structuredContent?.result?.run_id;
if (slowId) {
  summary.cancel = await call("claude.run.cancel", { run_id: slowId });
  summary.cancel_result = await resultUntilCompleted(slowId);
}

summary.invalid = await call("claude.run", { timeout_s: "soon" });

// META-WORK-5: with runs created without a work invocation retained, the read is refused.
summary.read_after_runs = await outcome(client.readResource({ uri: WORK_URI }));

// The tools whose results passed the SDK's own outputSchema validation (see above), in listing
// order; the calling test asserts that it is all seven.
summary.outputs_validated_by_sdk = summary.tools.map((t) => t.name).filter((n) => validated.has(n));

await client.close();
summary.server_stderr_tail = stderrChunks.join("").slice(-4000);
process.stdout.write(JSON.stringify(summary) + "\n");
