# Guest-side helpers (busybox sh), available in a domU as /fipc/lib.sh.
# Results written to /fipc/out come back to dom0 as $FIPC_RESULTS/<domU name>/.

# fipc_fio JOB [FIO ARGS...]: run fio with JSON output to /fipc/out/JOB.json
# and its exit status in /fipc/out/JOB.rc.
fipc_fio() {
    local job=$1 rc   # local: callers keep their own $rc
    shift
    echo "@@FIPC-GUEST fio $job start uptime=$(cut -d' ' -f1 /proc/uptime)"
    fio --output-format=json --output="/fipc/out/$job.json" "$@"
    rc=$?
    echo $rc > "/fipc/out/$job.rc"
    echo "@@FIPC-GUEST fio $job rc=$rc uptime=$(cut -d' ' -f1 /proc/uptime)"
    return $rc
}

# fipc_opt KEY DEFAULT: value of scenario option -o KEY=..., else DEFAULT.
fipc_opt() { eval "echo \"\${FIPC_OPT_$1:-$2}\""; }
