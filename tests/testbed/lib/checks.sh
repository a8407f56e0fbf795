# shellcheck shell=bash
# The testbed library, dom0 side: named checks with their figures, for the
# scenarios that attack a driver (fipc-hostile, fipc-hostile-backend).
# Sourced by lib/fipc-scenario.sh; the scenario sets R to the results
# directory of dom0 before checks_begin: each check is a line of
# $R/checks.txt ("pass NAME: TEXT" or "FAIL NAME: TEXT"), each figure a
# line of $R/figures.txt; checks_summary turns both into one JSON file.

# checks_begin: empty checks.txt and figures.txt.
checks_begin() {
    mkdir -p "$R"
    : > "$R/checks.txt"
    : > "$R/figures.txt"
}

# field LINE KEY: the value of KEY=value in LINE.
field() { echo "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }

# figure NAME VALUE: one figure of the run (results/dom0/figures.txt).
figure() { echo "$1 $2" >> "$R/figures.txt"; }

# verdict NAME OK TEXT: one check; OK is 1 (pass) or anything else.
verdict() {
    local name=$1 ok=$2
    shift 2
    if [ "$ok" = 1 ]; then
        fipc_log "check $name: pass: $*"
        echo "pass $name: $*" >> "$R/checks.txt"
        return 0
    fi
    fipc_fail "check $name: FAIL: $*"
    echo "FAIL $name: $*" >> "$R/checks.txt"
    return 1
}

# checks_summary NAME: checks and figures as $R/NAME.json; the counts and
# every failed check in the log.
checks_summary() {
    python3 - "$R" "$1" <<'PY' || true
import json, os, sys
r, name = sys.argv[1], sys.argv[2]
checks, figures = [], {}
for line in open(os.path.join(r, "checks.txt")):
    verdict, rest = line.rstrip("\n").split(" ", 1)
    check, _, text = rest.partition(": ")
    checks.append({"name": check, "pass": verdict == "pass", "text": text})
if os.path.exists(os.path.join(r, "figures.txt")):
    for line in open(os.path.join(r, "figures.txt")):
        k, _, v = line.rstrip("\n").partition(" ")
        figures[k] = int(v) if v.lstrip("-").isdigit() else v
json.dump({"checks": checks, "figures": figures,
           "passed": sum(c["pass"] for c in checks),
           "failed": sum(not c["pass"] for c in checks)},
          open(os.path.join(r, name + ".json"), "w"), indent=1)
PY
    fipc_log "checks: $(grep -c '^pass' "$R/checks.txt") passed, $(grep -c '^FAIL' "$R/checks.txt") failed"
    grep '^FAIL' "$R/checks.txt" | sed 's/^/  /'
}
