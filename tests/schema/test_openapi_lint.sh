#!/usr/bin/env bash
# test_openapi_lint.sh - schema/openapi.yaml passes Redocly's recommended
# ruleset (tests/schema/redocly.yaml) with no error and no warning, as
# `redocly lint` would judge it for a new user. The linter is the pinned
# @redocly/cli of tests/schema/package-lock.json, installed by the build.
# To show the check can fail, a copy with one operationId and one security
# declaration removed must be refused.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${SCHEDIO_SOURCE:-$(cd "$here/../.." && pwd)}
npm_dir=${SCHEDIO_SCHEMA_NPM:-${SCHEDIO_BUILD:-$src/build}/schema-npm/node_modules}
redocly=$npm_dir/.bin/redocly
[ -x "$redocly" ] || { echo "FAIL: no $redocly: build first (the build runs npm ci for tests/schema)" >&2; exit 1; }
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_COLOR=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Prints "errors warnings" of one lint run; any problems, readably, to stderr.
lint_counts() {
	local rc=0
	"$redocly" lint --config "$here/redocly.yaml" --format=json "$1" >"$tmp/out.json" 2>"$tmp/err.txt" || rc=$?
	local counts
	if ! counts=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print(t["errors"], t["warnings"])' \
		"$tmp/out.json" 2>/dev/null); then
		cat "$tmp/err.txt" >&2
		echo "FAIL: redocly gave no JSON report (exit $rc)" >&2
		return 1
	fi
	echo "$counts"
	# The readable report, for whoever mends the description.
	[ "$counts" = "0 0" ] || "$redocly" lint --config "$here/redocly.yaml" --format=codeframe "$1" >&2 2>&1 || true
}

echo "redocly $("$redocly" --version 2>/dev/null | tail -1)"
read -r errors warnings < <(lint_counts "$src/schema/openapi.yaml")
echo "schema/openapi.yaml: $errors errors, $warnings warnings (want 0 and 0)"

# The broken copy sits beside report.schema.json so its \$ref resolves.
mkdir -p "$tmp/schema"
cp "$src/schema/report.schema.json" "$tmp/schema/"
python3 - "$src/schema/openapi.yaml" "$tmp/schema/openapi.yaml" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s, a = re.subn(r"\n      operationId: getHealthz\n", "\n", s, count=1)
s, b = re.subn(r"(\n      operationId: getMetrics\n(?:(?!      operationId).*\n)*?)      security: [^\n]*\n", r"\1", s, count=1)
if (a, b) != (1, 1):
    sys.exit(f"the broken copy was not made (removed {a} operationId, {b} security)")
open(sys.argv[2], "w").write(s)
PY
read -r berr bwarn < <(lint_counts "$tmp/schema/openapi.yaml" 2>/dev/null)
echo "a copy without getHealthz's operationId and getMetrics' security: $berr errors, $bwarn warnings (want >= 1 and >= 1)"

status=0
[ "$errors" -eq 0 ] && [ "$warnings" -eq 0 ] || { echo "FAIL: schema/openapi.yaml is not lint-clean (report above)"; status=1; }
[ "$berr" -ge 1 ] && [ "$bwarn" -ge 1 ] || { echo "FAIL: the linter let a broken description pass"; status=1; }
[ $status -eq 0 ] && echo "PASS"
exit $status
