#!/usr/bin/env bash
# Remakes the captures in this folder: the real claude 2.1.328 (from the testkit cache, see
# `cmk-prereqs`) against `messages-standin`, with the environment testkit::claude uses.
# Usage: testkit/captures/make.sh   (from the workspace root, after `cargo build -p testkit`)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${CARGO_TARGET_DIR:-target}/debug
claude=$("$bin/cmk-prereqs" | sed -n 's/^claude: \(.*\) (2.1.328 (Claude Code))$/\1/p')
[ -x "$claude" ] || { echo "no claude from cmk-prereqs" >&2; exit 2; }
quiet=(CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1
       DISABLE_AUTOUPDATER=1 DISABLE_BUG_COMMAND=1)

# capture NAME SCENARIO RETRIES SIGTERM_AFTER_S -- CLAUDE-ARGS...
capture() {
  local name=$1 scenario=$2 retries=$3 term=$4; shift 5
  local port_file home work sp cp rc
  port_file=$(mktemp); home=$(mktemp -d); work="$home/work"; mkdir -p "$work"
  "$bin/messages-standin" --scenario "$scenario" --slow-delay-ms 300 > "$port_file" & sp=$!
  for _ in $(seq 50); do grep -q '^PORT=' "$port_file" && break; sleep 0.1; done
  # shellcheck disable=SC1090
  . "$port_file"
  ( cd "$work" && exec env -i PATH="$PATH" HOME="$home" "${quiet[@]}" CLAUDE_CODE_MAX_RETRIES="$retries" \
      ANTHROPIC_BASE_URL="$ANTHROPIC_BASE_URL" ANTHROPIC_API_KEY=sk-ant-dummy-not-a-real-key \
      "$claude" "$@" ) > "$here/$name.jsonl" 2> "$here/$name.stderr" < /dev/null & cp=$!
  if [ "$term" != 0 ]; then sleep "$term"; kill -TERM "$cp"; fi
  set +e; wait "$cp"; rc=$?; set -e
  kill "$sp"; wait "$sp" 2>/dev/null || true
  { printf 'ANTHROPIC_BASE_URL=http://127.0.0.1:PORT ANTHROPIC_API_KEY=sk-ant-dummy-not-a-real-key claude'
    printf ' %q' "$@"; printf '\n'
    echo "messages-standin --scenario $scenario --slow-delay-ms 300; HOME=<temp>, cwd \$HOME/work"
    echo "${quiet[*]} CLAUDE_CODE_MAX_RETRIES=$retries"
    [ "$term" != 0 ] && echo "SIGTERM to claude after ${term} s (mid-stream)"
    echo "exit $rc"
    [ -s "$here/$name.stderr" ] && echo "stderr: $(cat "$here/$name.stderr")"
  } > "$here/$name.cmd"
  rm -f "$here/$name.stderr" "$port_file"; rm -rf "$home"
}

S=(-p --output-format stream-json --verbose --permission-mode dontAsk)
capture resume-unknown text 1 0 -- "${S[@]}" --resume 99999999-2222-4333-8444-555555555555 -- 'say hi'
capture mock-429-r1 error-429 1 0 -- "${S[@]}" -- 'say hi'
capture mock-529-r1 error-529 1 0 -- "${S[@]}" -- 'say hi'
capture mock-529-r4 error-529 4 0 -- "${S[@]}" -- 'say hi'
capture mock-sigterm-mid-stream slow 1 4 -- "${S[@]}" --include-partial-messages -- 'say hi'
capture mock-tool-dontask-partial tool-echo 1 0 -- "${S[@]}" --include-partial-messages -- 'run echo hi'
capture mock-max-turns-partial tool-loop 1 0 -- "${S[@]}" --include-partial-messages --max-turns 1 -- 'create a file'
