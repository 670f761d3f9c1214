#!/usr/bin/env bash
# Runs polyfold on every corpus kernel (default flags, and --no-inter-array)
# once on an idle machine and once while two busy loops load both cores,
# and checks that stdout and stderr are byte for byte the same.
#
# Usage: scripts/check_determinism.sh [path/to/polyfold]
# (default: target/release/polyfold; build it first with cargo build --release)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/polyfold}
out=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$out"' EXIT

run_all() {
    local tag=$1
    for f in corpus/*.c; do
        local name
        name=$(basename "$f" .c)
        "$bin" "$f" >"$out/$tag.$name.out" 2>"$out/$tag.$name.err" || true
        "$bin" --no-inter-array "$f" >"$out/$tag.$name.ia.out" 2>"$out/$tag.$name.ia.err" || true
    done
}

run_all idle
for _ in 1 2; do
    (while :; do :; done) &
done
run_all busy
kill $(jobs -p) 2>/dev/null || true

status=0
n=0
for f in "$out"/idle.*; do
    other=${f/idle./busy.}
    n=$((n + 1))
    if ! cmp -s "$f" "$other"; then
        echo "DIFFERS: $(basename "$f") under load"
        diff "$f" "$other" | head -20
        status=1
    fi
done
echo "$n outputs compared (stdout and stderr of every corpus kernel, default (merging) and --no-inter-array): $([ $status = 0 ] && echo identical || echo some differ)"
exit $status
