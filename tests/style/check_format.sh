#!/usr/bin/env bash
# check_format.sh - fails when any C file of the tree differs from what
# clang-format makes of it (.clang-format at the top, bpf/.clang-format for
# the kernel-style BPF code). Fix with: tests/style/check_format.sh --fix
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
if ! command -v clang-format >/dev/null; then
	echo "check_format.sh: clang-format is missing (deploy/install-deps.sh installs it)" >&2
	exit 1
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.c' '*.h' | grep -v '/node_modules/')
else
	mapfile -t files < <(find agent bpf cli common server tests -name '*.[ch]' -not -path '*/node_modules/*')
fi
if [ "${1:-}" = "--fix" ]; then
	clang-format -i --style=file "${files[@]}"
	exit 0
fi
bad=0
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	if ! clang-format --style=file --dry-run --Werror "$f" 2>/dev/null; then
		echo "not formatted: $f (diff below; fix with tests/style/check_format.sh --fix)"
		clang-format --style=file "$f" | diff -u "$f" - | head -20 || true
		bad=$((bad + 1))
	fi
done
echo "check_format.sh: ${#files[@]} files checked, $bad not formatted"
[ "$bad" -eq 0 ]
