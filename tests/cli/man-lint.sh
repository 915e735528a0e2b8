#!/bin/sh
# man-lint.sh MANPAGE...: each page renders with groff without any warning.
# Skips (77) without groff.
command -v groff >/dev/null 2>&1 || { echo "groff not installed"; exit 77; }
rc=0
for f in "$@"; do
	out=$(groff -man -Tutf8 -ww -z "$f" 2>&1)
	if [ -n "$out" ]; then
		echo "$f:"
		echo "$out"
		rc=1
	else
		echo "$f: ok"
	fi
done
exit $rc
