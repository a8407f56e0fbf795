# shellcheck shell=bash
# fipc-hostile: the hostile frontend (tests/attack/fipc_attack.ko, driven
# in the guest "attacker" by guest-hostile-attacker.sh) as dom0 sees it,
# the checks made of what it reports, whether the backend runs in dom0 or
# in a driver domain (-o BACKEND), and the honest guest's rounds.
# Sourced by run.sh (lib/checks.sh is in the dom0 library); run.sh
# exports VDEV and defines aid (the attacker's domain id), mode_begin and
# mode_end.

# The attacker's console, as xenconsoled logs it (exported: each phase
# runs in a new bash that gets the functions and exported variables only).
export ATTACKER_CONSOLE=${ATTACKER_CONSOLE:-$FIPC_CONSOLE_DIR/guest-attacker.log}

# amarker ERE TIMEOUT: wait for a line matching ^ERE on the attacker's
# console; a guest that crashed or went away fails (checked every 5 s).
# Shell builtins only in the loop: while the attacker keeps dom0's only
# vCPU busy, a fork costs up to a second.
amarker() {
    local con=$ATTACKER_CONSOLE i=0 n=$(($2 * 5))
    while ! grep -Eq "^$1" "$con" 2>/dev/null; do
        i=$((i + 1))
        if [ $i -ge $n ] || { [ $((i % 25)) = 0 ] && { ! xl domid attacker >/dev/null 2>&1 ||
           xl list attacker 2>/dev/null | awk 'NR == 2 { exit !($5 ~ /c/) }'; }; }; then
            fipc_fail "attacker: no '$1' on the console after $((i / 5)) s (or the guest crashed)"
            fipc_domu_console_tail attacker
            return 1
        fi
        fipc_nap 0.2
    done
}

# aline ERE: the attacker's last console line matching ^ERE.
aline() { tr -d '\r' < "$ATTACKER_CONSOLE" | grep -E "^$1" | tail -n 1; }

# checked_mode MODE TIMEOUT [ARG...]: a mode that only its "done" line
# checks: mode_begin MODE, wait up to TIMEOUT s for "@@FIPC-ATTACK MODE
# done", log that line, check_MODE LINE ARG..., mode_end MODE (the
# scenario's mode_begin and mode_end).
checked_mode() {
    local m=$1 to=$2 rc=0 line
    shift 2
    mode_begin "$m" || return 1
    amarker "@@FIPC-ATTACK $m done" "$to" || return 1
    line=$(aline "@@FIPC-ATTACK $m done")
    fipc_log "$line"
    "check_$m" "$line" "$@" || rc=1
    mode_end "$m" || rc=1
    return $rc
}

# go WORD: let the attacker's module, loaded with wait_go=1, start the mode
# WORD (or answer it: "release", "case-N").
go() {
    local fe
    fe=/local/domain/$(aid)/device/fipcblk/$VDEV
    xenstore-write "$fe/fipc-attack-go" "$1" &&
        xenstore-chmod "$fe/fipc-attack-go" "n$(aid)" r0
}

# attack_started MODE: after go MODE, the attack has started; a failed
# connect is a failed check (MODE-connect).
attack_started() {
    amarker "@@FIPC-ATTACK $1 (start|failed)" 300 || return 1
    [ -z "$(aline "@@FIPC-ATTACK $1 failed")" ] && return 0
    verdict "$1-connect" 0 "$(aline "@@FIPC-ATTACK $1 failed")"
    return 1
}

# attack_xsbad_cases ERR STATE_FN: the xsbad mode's dialogue.  The
# attacker writes the number of the case it is about to try and waits for
# our "case-N"; we record, per case, whether the backend was seen
# Connected (STATE_FN DOMID prints its xenbus state) and its error node
# ERR (waiting up to 30 s for it: a slow backend domain may write it a
# little after the attacker gave up), remove the node and answer.
# $FIPC_WORK/xsbad.cases gets "case|connected|error" lines.
attack_xsbad_cases() {
    local err=$1 state=$2 id fe cur="" c e conn=0 i=0
    id=$(aid)
    fe=/local/domain/$id/device/fipcblk/$VDEV
    : > "$FIPC_WORK/xsbad.cases"
    while :; do
        c=$(xenstore-read "$fe/fipc-attack-case" 2>/dev/null)
        if [ "$c" != "$cur" ]; then
            if [ -n "$cur" ]; then
                fipc_until 30 xenstore-exists "$err"
                e=$(xenstore-read "$err" 2>/dev/null)
                echo "$cur|$conn|$e" >> "$FIPC_WORK/xsbad.cases"
            fi
            xenstore-rm "$err" 2>/dev/null
            cur=$c conn=0
            [ "$c" = done ] && return 0
            go "case-$c"
        fi
        [ "$($state "$id")" = 4 ] && conn=1
        i=$((i + 1))
        [ $i -lt 6000 ] || { fipc_fail "xsbad: cases not done after 1200 s"; return 1; }
        fipc_nap 0.2
    done
}

# check_xsbad CASES: each case refused, by the attacker's account, with an
# error node from the backend (xsbad.cases).  The attacker watches the
# backend's state every 10 ms; dom0's 0.2 s polls may miss a short
# Connected, shown for the record.
check_xsbad() {
    local rc=0 i a b c n k r st rest e
    local -A key res state conn err
    # Read once each (a process costs about 0.1 s in the emulated dom0):
    # the attacker's last line for each case, dom0's record of it.
    while read -r a b c n k r st rest; do
        [ "$a $b $c" = "@@FIPC-ATTACK xsbad case" ] || continue
        key[$n]=$k res[$n]=$r state[$n]=${st%$'\r'}
    done < "$ATTACKER_CONSOLE"
    while IFS='|' read -r n c e; do
        conn[$n]=$c err[$n]=$e
    done < "$FIPC_WORK/xsbad.cases"
    for ((i = 0; i < $1; i++)); do
        r=${res[$i]:-} e=${err[$i]:-}
        figure "xsbad.case$i" "${r:-none}"
        verdict "xsbad-case-$i" "$([ "$r" = refused ] && [ -n "$e" ] && echo 1 || echo 0)" \
            "${key[$i]:-?}: attacker saw ${r:-nothing} (${state[$i]:-}), dom0 saw Connected: ${conn[$i]:-?}, error node: '$e'" || rc=1
    done
    return $rc
}

# check_cycle LINE N: the cycle mode's "done" line: N connects, none
# failed, every grant ended at once.
check_cycle() {
    local rc=0
    figure cycle.cycles "$(field "$1" cycles)"
    figure cycle.ms "$(field "$1" ms)"
    verdict cycle-all-connected "$([ "$(field "$1" ok)" = "$2" ] && [ "$(field "$1" failed)" = 0 ] && echo 1 || echo 0)" \
        "$(field "$1" ok) of $2 cycles connected, $(field "$1" failed) failed, $(field "$1" ms) ms" || rc=1
    verdict cycle-grants-ended "$([ "$(field "$1" busy_grants)" = 0 ] && echo 1 || echo 0)" \
        "grants still mapped by the backend once it was Closed: $(field "$1" busy_grants)" || rc=1
    return $rc
}

# check_closebusy LINE BOUND_MS: Closing with a full ring of requests
# reached Closed within BOUND_MS every round, nothing left mapped.
check_closebusy() {
    figure closebusy.closed_ms_max "$(field "$1" closed_ms_max)"
    verdict closebusy-closed "$([ "$(field "$1" failed)" = 0 ] && [ "$(field "$1" busy_grants)" = 0 ] &&
        [ "$(field "$1" closed_ms_max)" -lt "$2" ] && echo 1 || echo 0)" \
        "$(field "$1" rounds) rounds, Closed after at most $(field "$1" closed_ms_max) ms (bound $2), $(field "$1" failed) failed, grants still mapped $(field "$1" busy_grants)"
}

# check_forge LINE: the forge mode's "done" line: forged flags were sent,
# the backend closed the channel on each, nothing left mapped.
check_forge() {
    local rc=0 n c v
    n=$(field "$1" cases)
    verdict forge-cases "$([ "${n:-0}" -gt 0 ] && echo 1 || echo 0)" "forged flags sent: ${n:-none}" || rc=1
    for c in $(seq 0 $((${n:-0} - 1))); do
        v=$(aline "@@FIPC-ATTACK forge case $c ")
        figure "forge.case$c" "$(echo "$v" | awk '{ print $5, $6, $7 }')"
        verdict "forge-case-$c" "$(echo "$v" | grep -qE 'backend=(Closing|Closed) ' && echo 1 || echo 0)" \
            "${v:-no line for case $c}" || rc=1
    done
    verdict forge-grants-ended "$([ "$(field "$1" busy_grants)" = 0 ] && echo 1 || echo 0)" \
        "grants still mapped by the backend at the attacker's disconnects: $(field "$1" busy_grants)" || rc=1
    return $rc
}

# attack_final TIMEOUT: the attacker's last mode (-o ATTACK_FINAL, noreap:
# it holds its responses) running, to be destroyed so; if it does not
# start, the attacker is destroyed at once and this fails.
attack_final() {
    amarker "@@FIPC-ATTACK-GUEST final waiting" "$1" || { xl destroy attacker; return 1; }
    go "$(fipc_opt ATTACK_FINAL noreap)"
    amarker "@@FIPC-ATTACK-GUEST final running" "$1" || { xl destroy attacker; return 1; }
    sleep 3
}

# attack_gone: after xl destroy attacker, keep its console in the results
# and free its exchange disk's loop device.
attack_gone() {
    mkdir -p "$FIPC_RESULTS/attacker"
    tr -d '\r' < "$ATTACKER_CONSOLE" > "$FIPC_RESULTS/attacker/console.log"
    [ -f "$FIPC_WORK/attacker/loop" ] && losetup -d "$(cat "$FIPC_WORK/attacker/loop")"
    return 0
}

# honest_fio DIR: the honest guest's rounds of fio verify (DIR/honest-verify-
# N.json and .rc, guest-hostile-honest.sh) all verified; completion
# latency over all rounds ($R/honest-latency.txt, figure honest.rounds).
honest_fio() {
    local out
    out=$(python3 - "$1" <<'PY'
import glob, json, os, sys
rounds = fails = 0
lat = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "honest-verify-*.json"))):
    rounds += 1
    rc = open(path[:-5] + ".rc").read().strip() if os.path.exists(path[:-5] + ".rc") else "?"
    try:
        text = open(path).read()
        doc = json.JSONDecoder().raw_decode(text[text.index("{"):])[0]
    except (OSError, ValueError):
        fails += 1
        continue
    for job in doc.get("jobs", []):
        if rc != "0" or job.get("error"):
            fails += 1
        clat = job["write"]["clat_ns"]
        pct = clat.get("percentile", {})
        lat.setdefault(job["jobname"], []).append(
            (clat.get("mean", 0) / 1000.0, pct.get("99.000000", 0) / 1000.0))
print("rounds %d failed %d" % (rounds, fails))
for name, v in sorted(lat.items()):
    print("%s write clat mean %.0f us (worst round %.0f us), p99 worst round %.0f us"
          % (name, sum(m for m, _ in v) / len(v), max(m for m, _ in v), max(p for _, p in v)))
PY
)
    echo "$out" > "$R/honest-latency.txt"
    fipc_log "honest guest: $(echo "$out" | tr '\n' ';')"
    set -- $(head -n 1 <<< "$out")
    figure honest.rounds "${2:-0}"
    verdict honest-verify $([ "${2:-0}" -gt 0 ] && [ "${4:-1}" = 0 ] && echo 1 || echo 0) \
        "${2:-0} rounds of fio verify, ${4:-?} failed; $(tail -n +2 <<< "$out" | tr '\n' ';')"
}

