#!/usr/bin/env bash
# Whole-process timing of etldump's time order against its file order and
# against cat, and of the time order with the merge on its own goroutine
# (etliterate -events -mergeahead, which does less per record than
# etldump), on the etlgen benchmark trace: the commands run interleaved,
# round after round, so that a slow phase of a shared machine hits them
# all; each round's ratios are taken, and the medians printed, with the
# largest peak RSS.
#
# usage: internal/cmd/etliterate/measure.sh [TRACE [ROUNDS]]
# TRACE is made by etlgen (1 GiB) when it does not exist. Needs GNU time.
set -euo pipefail
cd "$(dirname "$0")/../../.."
trace=${1:-${TMPDIR:-/tmp}/etlkit-bench.etl}
rounds=${2:-11}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/etldump" ./cmd/etldump
go build -o "$bin/etliterate" ./internal/cmd/etliterate
[ -f "$trace" ] || go run ./internal/cmd/etlgen "$trace"
cat "$trace" >/dev/null

names=(cat time file time-merge-ahead)
cmds=(
	"cat $trace"
	"$bin/etldump --count $trace"
	"$bin/etldump --count --order file $trace"
	"$bin/etliterate -events -mergeahead $trace"
)
out=$(mktemp)
for ((r = 0; r < rounds; r++)); do
	for i in "${!cmds[@]}"; do
		# Some virtual machines drop scattered pages of the page cache within
		# seconds; each then costs whichever command meets it a disk read.
		# Reading the file first keeps every command on a warm cache.
		cat "$trace" >/dev/null
		/usr/bin/time -f "$r ${names[$i]} %e %M" -a -o "$out" ${cmds[$i]} >/dev/null
	done
done
awk '
	{ wall[$2, $1] = $3; if ($4 > rss[$2]) rss[$2] = $4; n = $1 + 1 }
	function median(a, k,   i, j, t) {
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	END {
		split("cat time file time-merge-ahead", names, " ")
		for (c = 1; c <= 4; c++) {
			for (r = 0; r < n; r++) v[r + 1] = wall[names[c], r]
			printf "%-20s median %.3f s, peak RSS %d KiB\n", names[c], median(v, n), rss[names[c]]
		}
		split("time/file time/cat file/cat time-merge-ahead/cat", ratios, " ")
		for (q = 1; q <= 4; q++) {
			split(ratios[q], ab, "/")
			for (r = 0; r < n; r++) v[r + 1] = wall[ab[1], r] / wall[ab[2], r]
			printf "%-26s median %.2f over %d rounds\n", ratios[q], median(v, n), n
		}
	}' "$out"
rm -f "$out"
