#!/bin/sh
# check.sh - score `callus analyze` on the corpus and write docs/accuracy.md.
#
# For every case of tests/corpus/cases/ (see generate.sh), runs
#
#	callus analyze --command CMD --exit-code N --workspace /tmp/callus-corpus/<project>
#
# on its output.txt, in the directory the command ran in (the project's files
# are copied to /tmp/callus-corpus/<project> where missing, so that paths
# resolve as they did when the output was made), and compares with case.json:
# per tool, detection, affected-file precision and recall, failing cases with
# a correct file, must-keep lines in the 500-byte summary, codes, and, once
# callus prints `signatures`, their stability (same group: same error_type and
# message_pattern; different groups: never the same id).  Then the same on
# the external samples (../shared/corpus/external: reviewdog errorformat and
# ALE, file base names compared).  Writes the tables and the bars to
# docs/accuracy.md, prints a summary, and exits 1 when a bar is missed:
# recall >= 0.98, precision >= 0.95, a correct file in >= 99% of failing
# cases (both corpora, and the held-out cases of the corpus on their own:
# those marked "heldout" in case.json, made after their parsers were
# written), detection >= 0.99 and must-keep lines >= 0.95 (the corpus and
# its held-out cases), zero signature collisions.  A crash of callus analyze
# (or a bad status, or output that is not JSON) exits 3 whatever
# CALLUS_ACCURACY_ENFORCE says.
#
# Environment:
#   CALLUS_BIN               the callus to score (default build/callus; relative to
#                          the repository root)
#   CALLUS_ACCURACY_ENFORCE  0: report, but exit 0 when a bar is missed
#   CALLUS_ACCURACY_REPORT   where to write the report (default docs/accuracy.md)
#   CALLUS_CORPUS_EXTERNAL   the external samples (default ../shared/corpus/external)
#   CALLUS_ACCURACY_JOBS     parallel callus runs (default: the number of CPUs)
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
exec python3 "$here/check.py" "$@"
