#!/usr/bin/env bash
# Grades the same Streamable HTTP servers with mcp-conformance --url and with the official MCP
# conformance suite (@modelcontextprotocol/conformance 0.1.16 on Node.js 22.23.5, pinned in
# testkit/pins/official-conformance/), side by side; docs/official-suite.md reads its results.
# Not part of CI or the test suite.
#
# Usage: scripts/official-suite.sh [OUT_DIR]   (default target/official-suite)
#
# Servers, each on a free 127.0.0.1 port: conformance/examples/http_toy_server (clean),
# @modelcontextprotocol/server-everything 2026.8.31 in streamableHttp mode (bound to loopback by
# conformance/tests/it/loopback_preload.cjs) and, when the pinned Python mcp 2.3.0 installs,
# scripts/official_suite_python_server.py. Every server is one this script started, stopped by
# its pid on exit. Per server and gate it writes OUT_DIR/SERVER/{ours,official}.txt (the human
# output), ours.json (the gate's report), official/ (the suite's checks.json per scenario;
# official-pending/ for its two pending scenarios), and prints one summary line per run with
# the exit code and the wall time.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo/target/official-suite}
rm -rf "$out"
mkdir -p "$out"
cd "$repo"

cargo build -q --locked -p mcp-conformance --bin mcp-conformance --example http_toy_server
cargo build -q --locked -p testkit --bin cmk-prereqs
gate=$repo/target/debug/mcp-conformance
toy=$repo/target/debug/examples/http_toy_server
prereqs=$repo/target/debug/cmk-prereqs
read -r node22 suite < <("$prereqs" --print official-conformance)
everything=$("$prereqs" --print server-everything)
python=$("$prereqs" --print python-mcp) || python=""

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for LOG PATTERN PID: until the server's log shows PATTERN (it listens), 60 s at most.
wait_for() {
  if ! timeout 60 grep -m1 -q "$2" <(tail -n +1 --pid="$3" -f "$1"); then
    echo "server did not come up; its log:" >&2
    cat "$1" >&2
    exit 2
  fi
}

now() { date +%s.%N; }

# grade NAME URL: both gates on one server, in turn (never at once: the wall times are each
# gate's own).
grade() {
  local name=$1 url=$2 dir=$out/$1 t0 t1 rc
  mkdir -p "$dir"
  t0=$(now)
  rc=0
  "$gate" --url "$url" --format "json=$dir/ours.json" --format pretty >"$dir/ours.txt" 2>&1 || rc=$?
  t1=$(now)
  printf '%-18s mcp-conformance  rc=%s  %6.2fs  %s\n' "$name" "$rc" "$(echo "$t1 - $t0" | bc)" \
    "$(python3 -c 'import json,sys,collections; c=collections.Counter(x["outcome"] for x in json.load(open(sys.argv[1]))["cases"]); print(dict(c))' "$dir/ours.json")"
  t0=$(now)
  rc=0
  "$node22" "$suite" server --url "$url" -o "$dir/official" >"$dir/official.txt" 2>&1 || rc=$?
  t1=$(now)
  printf '%-18s official 0.1.16  rc=%s  %6.2fs  %s\n' "$name" "$rc" "$(echo "$t1 - $t0" | bc)" \
    "$(grep -a '^Total:' "$dir/official.txt" || echo 'no summary: see official.txt')"
  # The two pending scenarios (json-schema-2020-12, server-sse-polling), apart: the default
  # (active) suite leaves them out.
  t0=$(now)
  rc=0
  "$node22" "$suite" server --url "$url" --suite pending -o "$dir/official-pending" \
    >"$dir/official-pending.txt" 2>&1 || rc=$?
  t1=$(now)
  printf '%-18s official pending rc=%s  %6.2fs  %s\n' "$name" "$rc" "$(echo "$t1 - $t0" | bc)" \
    "$(grep -a '^Total:' "$dir/official-pending.txt" || echo 'no summary: see official-pending.txt')"
}

# The kit's toy: its URL is its first stdout line.
coproc TOY { exec "$toy"; }
pids+=("$TOY_PID")
read -r toy_url <&"${TOY[0]}"
grade http-toy "$toy_url"

# server-everything: "listening on port" on stderr once it serves.
: >"$out/everything.log"
port=$(free_port)
PORT=$port NODE_OPTIONS="--require $repo/conformance/tests/it/loopback_preload.cjs" \
  node "$everything" streamableHttp >"$out/everything.log" 2>&1 &
pids+=("$!")
wait_for "$out/everything.log" "listening on port" "$!"
grade server-everything "http://127.0.0.1:$port/mcp"

if [ -n "$python" ]; then
  : >"$out/python.log"
  port=$(free_port)
  "$python" "$repo/scripts/official_suite_python_server.py" "$port" >"$out/python.log" 2>&1 &
  pids+=("$!")
  wait_for "$out/python.log" "Uvicorn running on" "$!"
  grade python-mcp-2.3.0 "http://127.0.0.1:$port/mcp"
else
  echo "python-mcp-2.3.0: skipped (the pinned Python mcp 2.3.0 did not install)"
fi
