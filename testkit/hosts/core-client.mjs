// The MCP TypeScript SDK (`@modelcontextprotocol/sdk`, pinned in testkit/pins/mcp-ts-sdk) as a
// generic host of ANY stdio MCP server: the core sequence only, so the same script can run
// against a server and against a recording of it (`mcp-replay serve`).
// testkit::prereq::mcp_ts_core_client() builds the command.
//
// Usage: CMK_MCP_TS_SDK=<…/node_modules/@modelcontextprotocol/sdk>
//        node core-client.mjs [--call NAME=JSON_ARGS]... -- COMMAND [ARGS...]
//
// Steps: connect (initialize + initialized) · tools/list · resources/list when the server
// declares resources · each --call in order · close. Prints one JSON summary on stdout; a step
// the SDK throws on is recorded as {"threw": message} and the script still exits 0 (the calling
// test asserts on the summary); only a broken session exits 1.

import { pathToFileURL } from "node:url";
import { join } from "node:path";

const sdkDir = process.env.CMK_MCP_TS_SDK;
if (!sdkDir) {
  console.error("core-client.mjs: set CMK_MCP_TS_SDK to the installed @modelcontextprotocol/sdk folder");
  process.exit(2);
}
const load = (rel) => import(pathToFileURL(join(sdkDir, "dist/esm", rel)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");

const argv = process.argv.slice(2);
const calls = [];
while (argv.length && argv[0] !== "--") {
  const flag = argv.shift();
  if (flag === "--call") {
    const spec = argv.shift();
    const eq = spec.indexOf("=");
    calls.push({ name: spec.slice(0, eq), arguments: JSON.parse(spec.slice(eq + 1)) });
  } else {
    console.error(`core-client.mjs: unknown option ${flag}`);
    process.exit(2);
  }
}
argv.shift();
if (!argv.length) {
  console.error("usage: node core-client.mjs [--call NAME=JSON]... -- COMMAND [ARGS...]");
  process.exit(2);
}

const transport = new StdioClientTransport({ command: argv[0], args: argv.slice(1), stderr: "inherit" });
const client = new Client({ name: "cmk-core-host", version: "1.0.0" });
const seen = {};
async function step(name, promise) {
  try {
    seen[name] = await promise;
  } catch (error) {
    seen[name] = { threw: String(error?.message ?? error), code: error?.code ?? null };
  }
}
try {
  await client.connect(transport);
} catch (error) {
  console.error(`core-client.mjs: connect failed: ${error?.message ?? error}`);
  process.exit(1);
}
seen.server = client.getServerVersion();
await step("tools", client.listTools());
if (client.getServerCapabilities()?.resources) await step("resources", client.listResources());
for (const [i, call] of calls.entries()) await step(`call ${i + 1} ${call.name}`, client.callTool(call));
await client.close();
console.log(JSON.stringify(seen));
