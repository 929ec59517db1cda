ANTHROPIC_BASE_URL=http://127.0.0.1:PORT ANTHROPIC_API_KEY=sk-ant-dummy-not-a-real-key claude -p --output-format stream-json --verbose --permission-mode dontAsk --include-partial-messages --max-turns 1 -- create\ a\ file
messages-standin --scenario tool-loop --slow-delay-ms 300; HOME=<temp>, cwd $HOME/work
CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1 DISABLE_BUG_COMMAND=1 CLAUDE_CODE_MAX_RETRIES=1
exit 1
