#!/usr/bin/python3
"""Parse a Prometheus text exposition with the reference parser
(prometheus_client.parser, Debian's python3-prometheus-client) and print one
line per sample, for the shell tests to grep:

    TYPE NAME{label="value",...} VALUE

labels sorted, values printed as Python repr of the float.  Exits 1 with the
parser's message if the file does not parse or is not valid UTF-8 (the
text format is UTF-8: a label value made of a raw cgroup name with a byte
such as \\xff is an error), and checks that no family appears twice and
every sample belongs to a family with HELP and TYPE.
"""
import sys

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    print("SKIP: python3-prometheus-client is not installed (make deps)")
    sys.exit(77)


def main():
    seen = set()
    try:
        with open(sys.argv[1], encoding="utf-8", errors="strict") as f:
            text = f.read()
        for fam in text_string_to_metric_families(text):
            if fam.name in seen:
                raise ValueError("family %s appears twice" % fam.name)
            seen.add(fam.name)
            if not fam.documentation:
                raise ValueError("family %s has no HELP" % fam.name)
            if fam.type == "unknown":
                raise ValueError("family %s has no TYPE" % fam.name)
            for s in fam.samples:
                labels = ",".join('%s="%s"' % (k, v.encode("unicode_escape").decode())
                                  for k, v in sorted(s.labels.items()))
                print("%s %s{%s} %r" % (fam.type, s.name, labels, s.value))
    except Exception as e:  # the parser raises ValueError and friends
        print("prom-dump: %s does not parse: %s" % (sys.argv[1], e), file=sys.stderr)
        sys.exit(1)


main()
