#!/usr/bin/env bash
# The first step of `npm test`: lint, type check and build at the same time (three processes that
# share nothing: eslint reads nodes/ and credentials/, `tsc --noEmit` the whole project, the build
# writes dist/), each one's output printed whole once it has ended, in that order. Fails when any of
# them failed, naming it. Run alone: `npm run checks`.
set -uo pipefail
cd "$(dirname "$0")/.."

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
steps=(lint typecheck build)
pids=()
for step in "${steps[@]}"; do
	npm run --silent "$step" >"$logs/$step" 2>&1 &
	pids+=("$!")
done

status=0
for i in "${!steps[@]}"; do
	if wait "${pids[$i]}"; then
		echo "npm run ${steps[$i]}: passed"
	else
		echo "npm run ${steps[$i]}: FAILED"
		status=1
	fi
	cat "$logs/${steps[$i]}"
done
exit "$status"
