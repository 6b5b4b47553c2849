#!/usr/bin/env bash
# Runs Jest suites with CPU-bound processes beside them, to find tests that pass only on an idle
# machine (fixed sleeps, tight margins, late events of an earlier test). The busy processes end
# with the script, also on failure or Ctrl-C.
#   scripts/under-load.sh [jest paths and options]   default: every file `npm test` runs
#   HOGS=n   busy processes (default: one per core)   REPEAT=n   runs in a row (default 1)
set -uo pipefail
cd "$(dirname "$0")/.."

hogs=${HOGS:-$(node -p 'require("node:os").availableParallelism()')}
repeat=${REPEAT:-1}
pids=()
stop() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
	pids=()
}
trap stop EXIT
trap 'exit 130' INT TERM

for ((i = 0; i < hogs; i++)); do
	node -e 'for (;;) {}' &
	pids+=("$!")
done

status=0
for ((run = 1; run <= repeat; run++)); do
	echo "under load ($hogs busy processes), run $run of $repeat: jest ${*:-(every file of npm test)}"
	NODE_OPTIONS=--experimental-websocket npx jest "$@" || status=1
done
exit "$status"
