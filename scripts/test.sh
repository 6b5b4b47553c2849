#!/usr/bin/env bash
# `npm test`: the build first (repository tests read dist/), then lint and type check beside Jest:
# neither shares anything with it. They run at the lowest priority, so they take the moments when
# Jest's files all wait on timers and leave Jest the CPU otherwise (quiet, at the same priority they
# made a fresh clone's `npm test` 10 s longer). Each check's output is printed whole once Jest has ended. Jest's closing
# line "N passed, N failed" comes before the checks' verdicts; when a check failed, it is printed again
# last, with each failed check counted as one failure more.
# Arguments go to Jest (`npm test -- test/unit`).
set -uo pipefail
cd "$(dirname "$0")/.."

if ! npm run --silent build; then
	echo "npm run build: FAILED"
	echo "0 passed, 1 failed"
	exit 1
fi

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
checks=(lint typecheck)
pids=()
for check in "${checks[@]}"; do
	nice -n 19 npm run --silent "$check" >"$logs/$check" 2>&1 &
	pids+=("$!")
done

NODE_OPTIONS=--experimental-websocket npx jest "$@" | tee "$logs/jest"
status=${PIPESTATUS[0]}

failedChecks=0
for i in "${!checks[@]}"; do
	if wait "${pids[$i]}"; then
		echo "npm run ${checks[$i]}: passed"
	else
		echo "npm run ${checks[$i]}: FAILED"
		failedChecks=$((failedChecks + 1))
	fi
	cat "$logs/${checks[$i]}"
done

if [ "$failedChecks" -gt 0 ]; then
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/jest" | tail -n 1)
	read -r passed _ failed _ <<<"${summary:-0 passed, 0 failed}"
	echo "$passed passed, $((failed + failedChecks)) failed"
	status=1
fi
exit "$status"
