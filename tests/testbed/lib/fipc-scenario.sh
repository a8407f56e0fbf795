# fipc scenario library, dom0 side (bash).  Sourced by scenario scripts
# (tests/testbed/scenarios/*/run.sh).
#
# Nothing here knows about QEMU: the same scenario runs in the emulated
# testbed and on a real Xen 4.17 or 4.20 dom0.  Needs bash, coreutils, xl, fio,
# losetup, tar, modprobe.  See docs/testbed.md.
#
# Conventions
#   * Results go to $FIPC_RESULTS (--results): fio JSON per job as
#     <where>/<job>.json plus <where>/<job>.rc, where <where> is "dom0" or the
#     domU name.  lib/summarize.py turns a results dir into result.json.
#   * Progress markers on stdout: "@@FIPC-PHASE start <name> <timeout>",
#     "@@FIPC-PHASE end <name> <rc>", "@@FIPC-FAIL <message>".  The testbed
#     host watches them to time phases and to name the failing one.

FIPC_LIB=${FIPC_LIB:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
FIPC_WORK=${FIPC_WORK:-/run/fipc}
# Guests' consoles (xenconsoled --log-dir); a host test points it elsewhere.
FIPC_CONSOLE_DIR=${FIPC_CONSOLE_DIR:-/var/log/xen/console}
export FIPC_LIB FIPC_WORK FIPC_CONSOLE_DIR
. "$FIPC_LIB/both-sides.sh"
. "$FIPC_LIB/fipc-drivers.sh"
. "$FIPC_LIB/checks.sh"

# No process is started for a log line's time or for a short wait: in
# the emulated dom0 (one vCPU in most scenarios, shared with the backend
# it tests) "date" or "sleep 0.1" costs about 110 ms of CPU, and dom0's
# polling loops ran one every 0.1 s (2026-12-01, QEMU TCG on the 2-core
# dev VM).  The wait reads, with a timeout, a FIFO that nothing writes
# (opened read-write, so it never ends; then unlinked); the descriptor
# and its number reach each phase's bash (fipc_step).  A read that ends
# other than by its timeout falls back to sleep.
fipc_log() { printf '[fipc %(%T)T] %s\n' -1 "$*"; }
if mkfifo "/tmp/fipc-nap.$$" 2>/dev/null; then
    exec {FIPC_NAP_FD}<>"/tmp/fipc-nap.$$"
    rm -f "/tmp/fipc-nap.$$"
    export FIPC_NAP_FD
    fipc_nap() {
        read -r -t "$1" -u "${FIPC_NAP_FD:-}" _ 2>/dev/null
        [ $? -gt 128 ] || sleep "$1"
    }
fi
fipc_fail() { echo "@@FIPC-FAIL $*"; }
fipc_die() { fipc_fail "$*"; exit 1; }

fipc_usage() {
    cat <<EOF
usage: $0 --results DIR [options]
  --results DIR        where results (fio JSON, logs) are written (required)
  --backing DEV        block device to test (default: scenario creates null_blk)
  --domu-kernel FILE   domU kernel (default /boot/vmlinuz-\$(uname -r))
  --domu-ramdisk FILE  domU initramfs (the testbed's domU.cpio or equivalent)
  --domu-vcpus N       vCPUs per domU (default 1)
  --domu-mem MB        memory per domU (default 512)
  --domu-cpus LIST     pin domU vCPUs to these pCPUs (xl "cpus=", default all)
  --domus N            number of domUs, for scenarios that use several (default 1)
  --modules DIR        our own built kernel modules (*.ko), searched first
  --timeout-scale F    multiply all step timeouts by F (default 1)
  -o KEY=VALUE         scenario option, visible as \$FIPC_OPT_KEY (dom0 and domU)
EOF
}

# Parse the common scenario options.  Every option may also be preset in the
# environment under the variable name shown.
fipc_parse_args() {
    : "${FIPC_RESULTS:=}" "${FIPC_BACKING:=}" "${FIPC_DOMU_KERNEL:=/boot/vmlinuz-$(uname -r)}"
    : "${FIPC_DOMU_RAMDISK:=}" "${FIPC_DOMU_VCPUS:=1}" "${FIPC_DOMU_MEM:=512}"
    : "${FIPC_DOMU_CPUS:=all}" "${FIPC_DOMUS:=1}" "${FIPC_MODULES:=}" "${FIPC_TIMEOUT_SCALE:=1}"
    while [ $# -gt 0 ]; do
        case $1 in
        --results) FIPC_RESULTS=$2; shift ;;
        --backing) FIPC_BACKING=$2; shift ;;
        --domu-kernel) FIPC_DOMU_KERNEL=$2; shift ;;
        --domu-ramdisk) FIPC_DOMU_RAMDISK=$2; shift ;;
        --domu-vcpus) FIPC_DOMU_VCPUS=$2; shift ;;
        --domu-mem) FIPC_DOMU_MEM=$2; shift ;;
        --domu-cpus) FIPC_DOMU_CPUS=$2; shift ;;
        --domus) FIPC_DOMUS=$2; shift ;;
        --modules) FIPC_MODULES=$2; shift ;;
        --timeout-scale) FIPC_TIMEOUT_SCALE=$2; shift ;;
        -o|--opt)
            case $2 in *=*) ;; *) fipc_die "bad -o '$2' (want KEY=VALUE)" ;; esac
            export "FIPC_OPT_${2%%=*}=${2#*=}"; shift ;;
        -h|--help) fipc_usage; exit 0 ;;
        *) fipc_usage >&2; fipc_die "unknown option '$1'" ;;
        esac
        shift
    done
    [ -n "$FIPC_RESULTS" ] || { fipc_usage >&2; fipc_die "--results is required"; }
    mkdir -p "$FIPC_RESULTS" "$FIPC_WORK" || fipc_die "cannot create $FIPC_RESULTS or $FIPC_WORK"
    export FIPC_RESULTS FIPC_BACKING FIPC_DOMU_KERNEL FIPC_DOMU_RAMDISK FIPC_DOMU_VCPUS \
        FIPC_DOMU_MEM FIPC_DOMU_CPUS FIPC_DOMUS FIPC_MODULES FIPC_TIMEOUT_SCALE
}

# fipc_scenario_begin ARGS...: the start of every scenario's run.sh, right
# after it sources this library: parse the options (fipc_parse_args), set
# and export $here (the scenario's directory) and $common
# (scenarios/fipc-common, whose libraries the scenario sources next).
fipc_scenario_begin() {
    fipc_parse_args "$@"
    here=$(cd "$(dirname "$0")" && pwd)
    common=$(cd "$here/../fipc-common" && pwd)
    export here common
}

# fipc_opt KEY DEFAULT: value of scenario option -o KEY=..., else DEFAULT.
fipc_opt() { local v="FIPC_OPT_$1"; echo "${!v:-$2}"; }

# fipc_opt_rounds VAR KEY DEFAULT: set VAR to fipc_opt KEY DEFAULT, which
# must be a number of rounds, 1 or more; else the scenario stops, saying so.
fipc_opt_rounds() {
    local _fipc_rounds   # not a name a caller would give VAR
    _fipc_rounds=$(fipc_opt "$2" "$3")
    case $_fipc_rounds in
    ''|*[!0-9]*|0)
        fipc_die "$2 must be a number of rounds, 1 or more (got '$_fipc_rounds')" ;;
    esac
    printf -v "$1" '%s' "$_fipc_rounds"
}

# fipc_rounds N "ODD ORDER" "EVEN ORDER" FUNC: FUNC R CFG for each round R
# of 1..N and each configuration CFG, in ODD ORDER in odd rounds and EVEN
# ORDER in even ones, so that what drifts over a run falls on every
# configuration alike.  Returns 1 if a call failed (all are made).
fipc_rounds() {
    local n=$1 odd=$2 even=$3 fn=$4 r=1 order cfg rc=0
    while [ "$r" -le "$n" ]; do
        order=$odd
        [ $((r % 2)) -eq 0 ] && order=$even
        for cfg in $order; do
            "$fn" "$r" "$cfg" || rc=1
        done
        r=$((r + 1))
    done
    return $rc
}

# fipc_reboot_request: reboot dom0 once this scenario's run.sh returns.
# In the testbed (scenario.conf REBOOT=1: dom0's root is kept on a disk),
# boot.sh resets the machine and at the next boot runs the scenario again
# with FIPC_SCENARIO_BOOT=2 (1 at its first run), before the scenarios
# after it.
fipc_reboot_request() {
    [ "${FIPC_PERSIST_ROOT:-0}" = 1 ] && [ -n "${TB_STATE:-}" ] ||
        { fipc_fail "a reboot of dom0 needs the testbed with REBOOT=1 in scenario.conf"; return 1; }
    touch "$TB_STATE/reboot-request"
}

fipc_scaled() { awk -v t="$1" -v s="${FIPC_TIMEOUT_SCALE:-1}" 'BEGIN { printf "%d", t * s + 0.5 }'; }

# fipc_step NAME TIMEOUT CMD [ARGS...]: run one phase of a scenario under a
# hard timeout, in a child bash (GNU timeout kills the child's whole
# process group).  CMD may be a program or any function defined when the
# step starts, in this library, a library the scenario sourced or the
# scenario itself: the child sources them all first (declare -f, written
# to a file for this step), so there is no list of exported functions to
# keep in step with the code.  Only exported variables reach the child.
# Prints phase markers, records NAME/rc/elapsed in
# $FIPC_RESULTS/phases.txt and returns the command's exit status (124 on
# timeout).
fipc_step() {
    local name=$1 to rc t0 t1 fns
    to=$(fipc_scaled "$2")
    shift 2
    fns=$(mktemp "${TMPDIR:-/tmp}/fipc-step-$name.XXXXXX") ||
        { fipc_fail "phase $name: no temporary file"; return 1; }
    declare -f > "$fns"
    echo "@@FIPC-PHASE start $name $to"
    t0=$(date +%s.%N)
    FIPC_STEP_FUNCTIONS=$fns timeout -k 10 "$to" \
        bash -c '. "$FIPC_STEP_FUNCTIONS" && "$@"' "fipc-step-$name" "$@" </dev/null
    rc=$?
    t1=$(date +%s.%N)
    rm -f "$fns"
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && fipc_fail "phase $name timed out after ${to}s"
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ] && fipc_fail "phase $name failed (exit $rc)"
    echo "$name $rc $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" >> "$FIPC_RESULTS/phases.txt"
    echo "@@FIPC-PHASE end $name $rc"
    return $rc
}

# fipc_steps NAME:SECONDS:COMMAND...: fipc_step NAME SECONDS COMMAND for
# each, in order, every one whatever the one before returned (COMMAND is
# split into words: a function and its arguments).  Returns 1 if any failed.
fipc_steps() {
    local step name rest rc=0
    for step; do
        name=${step%%:*}
        rest=${step#*:}
        # shellcheck disable=SC2086 # the command's words
        fipc_step "$name" "${rest%%:*}" ${rest#*:} || rc=1
    done
    return $rc
}

# fipc_load_module NAME [PARAM=VALUE...]: load a module as an installed
# package has it (modprobe: fipc-modules-<kernel> or fipc-dkms, what the
# testbed's dom0 installs), else our own from $FIPC_MODULES (its
# dependencies first: the debug kernel, test-only modules), else the
# stock one.
fipc_load_module() {
    local name=$1 f dep
    shift
    [ -d "/sys/module/${name//-/_}" ] && return 0
    f=$(modinfo -F filename "$name" 2>/dev/null)
    case $f in
    /lib/modules/*/updates/*)
        fipc_log "modprobe $name $* ($(dpkg -S "$f" 2>/dev/null | cut -d: -f1) $(modinfo -F version "$name"))"
        modprobe "$name" "$@" || { fipc_fail "modprobe $name failed"; return 1; }
        return 0
        ;;
    esac
    f=
    [ -n "$FIPC_MODULES" ] && [ -d "$FIPC_MODULES" ] &&
        f=$(find "$FIPC_MODULES" \( -name "$name.ko" -o -name "${name//-/_}.ko" \) | head -n 1)
    if [ -n "$f" ]; then
        for dep in $(modinfo -F depends "$f" | tr ',' ' '); do
            fipc_load_module "$dep" || return 1
        done
        fipc_log "insmod $f $*"
        insmod "$f" "$@" || { fipc_fail "insmod $f failed"; return 1; }
    else
        fipc_log "modprobe $name $*"
        modprobe "$name" "$@" || { fipc_fail "modprobe $name failed"; return 1; }
    fi
}

# fipc_wait_blockdev DEV: wait up to 10 s for block device DEV to appear.
fipc_wait_blockdev() {
    fipc_until 10 test -b "$1" || { fipc_fail "$1 did not appear"; return 1; }
}

# fipc_null_blk [GB] [COUNT]: (re)create /dev/nullb0..COUNT-1, memory backed
# so that data verification is meaningful (without memory_backed=1 null_blk
# drops writes).
fipc_null_blk() {
    local gb=${1:-1} n=${2:-1} d
    if [ -d /sys/module/null_blk ]; then
        modprobe -r null_blk || { fipc_fail "null_blk is in use, cannot recreate"; return 1; }
    fi
    fipc_load_module null_blk nr_devices="$n" gb="$gb" memory_backed=1 bs=512 \
        queue_mode=2 irqmode=0 || return 1
    for d in $(seq 0 $((n - 1))); do
        fipc_wait_blockdev "/dev/nullb$d" || return 1
        fipc_log "null_blk: /dev/nullb$d $(blockdev --getsize64 "/dev/nullb$d") bytes, memory backed"
    done
}

# fipc_null_blk_slow NAME MS DEPTH [MB [QUEUE_MODE [MEMORY_BACKED]]]: beside
# fipc_null_blk's devices, a null_blk device /dev/NAME (configfs) that
# completes each request MS ms after it was queued, DEPTH requests at a
# time: a slow disk for noisy neighbours, or one that always has requests
# in flight.  QUEUE_MODE 2 (blk-mq, the default) times a request out
# after 5 s; 0 (bio-based) has no timeout, for longer delays.  Unless
# MEMORY_BACKED is 1, writes are dropped and reads give zeroes.
fipc_null_blk_slow() {
    local cfs=/sys/kernel/config/nullb d
    mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
    [ -d $cfs ] || { fipc_fail "null_blk has no configfs"; return 1; }
    d=$cfs/$1
    mkdir "$d" || { fipc_fail "cannot create null_blk device $1"; return 1; }
    echo "${5:-2}" > "$d/queue_mode"
    echo 2 > "$d/irqmode"
    echo $(($2 * 1000000)) > "$d/completion_nsec"
    echo "$3" > "$d/hw_queue_depth"
    echo 1 > "$d/submit_queues"
    echo 512 > "$d/blocksize"
    echo "${4:-256}" > "$d/size"
    echo "${6:-0}" > "$d/memory_backed"
    echo 1 > "$d/power" || { fipc_fail "cannot power null_blk device $1"; return 1; }
    fipc_wait_blockdev "/dev/$1" || return 1
    fipc_log "null_blk: /dev/$1 slow: $2 ms a request, $3 at a time$([ "${6:-0}" = 1 ] && echo ", memory backed")"
}

# fipc_fio JOB [FIO ARGS...]: run fio in dom0 (as lib/guest-lib.sh's in a
# guest); the JSON goes to $FIPC_RESULTS/dom0/JOB.json and the exit status
# to JOB.rc.  Job files may use ${FIPC_DEV} etc.: fio expands environment
# variables.
fipc_fio() {
    local where=dom0 job=$1 rc
    shift
    mkdir -p "$FIPC_RESULTS/$where"
    fipc_log "fio $job: $*"
    fio --output-format=json --output="$FIPC_RESULTS/$where/$job.json" "$@"
    rc=$?
    echo $rc > "$FIPC_RESULTS/$where/$job.rc"
    [ $rc -eq 0 ] || fipc_fail "fio $where/$job exited $rc"
    return $rc
}

# fipc_domu_start NAME CFG GUEST [KEY=VALUE...]
# fipc_domu_config NAME CFG GUEST [KEY=VALUE...]
#   Start a PV domU running the guest script GUEST (busybox sh, see
#   lib/guest-lib.sh).  CFG is an xl config template; these placeholders are
#   filled in:  @NAME@ @KERNEL@ @RAMDISK@ @MEMORY@ @VCPUS@ @CPUS@ @EXTRA@
#   @XCHG@ (the exchange disk spec, must be in the disk list), and @KEY@ for
#   every KEY=VALUE argument (e.g. BACKING=/dev/nullb0).
#   The guest gets, on the exchange disk /dev/xvdz: GUEST as /fipc/guest.sh,
#   the shared guest scripts of scenarios/fipc-common/ with GUEST's own
#   directory (its scenario's) copied over them as /fipc/scenario/, the
#   modules named in
#   $FIPC_DOMU_LOAD (searched in $FIPC_MODULES; loaded in that order before
#   GUEST runs) and all FIPC_OPT_* options.  GUEST's results (written to
#   /fipc/out) come back via the same disk: see fipc_domu_wait.
#   With FIPC_DOMU_FLAVOUR=kasan (a run with fipc-testbed --kasan; CFG must
#   say type = "pvh") the guest boots the KASAN kernel and its image, and
#   gets our modules built for it ($FIPC_KASAN_*).  FIPC_DOMU_MEMORY=MIB
#   gives this guest another memory size than --domu-mem;
#   FIPC_XCHG_LOOP=/dev/loopN puts its exchange disk on that loop device.
#   fipc_domu_config prepares all of it and writes the xl config
#   $FIPC_WORK/NAME/NAME.cfg without creating the guest.
fipc_domu_config() {
    local name=$1 cfg=$2 guest=$3 w x kv k v m f loop size
    local kernel=$FIPC_DOMU_KERNEL ramdisk=$FIPC_DOMU_RAMDISK mods=$FIPC_MODULES
    local cmdline=${FIPC_DOMU_CMDLINE_EXTRA:-}
    shift 3
    w=$FIPC_WORK/$name
    x=$w/xchg
    [ -f "$cfg" ] || { fipc_fail "no xl config $cfg"; return 1; }
    [ -f "$guest" ] || { fipc_fail "no guest script $guest"; return 1; }
    case ${FIPC_DOMU_FLAVOUR:-} in
    '') ;;
    kasan)
        [ -n "${FIPC_KASAN_KERNEL:-}" ] ||
            { fipc_fail "$name: FIPC_DOMU_FLAVOUR=kasan without a KASAN kernel (fipc-testbed run --kasan)"; return 1; }
        grep -q '^type *= *"pvh"' "$cfg" ||
            { fipc_fail "$name: the KASAN kernel boots PVH guests only ($cfg is not type = \"pvh\")"; return 1; }
        kernel=$FIPC_KASAN_KERNEL ramdisk=$FIPC_KASAN_RAMDISK mods=$FIPC_KASAN_MODULES
        cmdline=$FIPC_KASAN_CMDLINE
        fipc_log "$name boots the KASAN kernel"
        # The host judges the kernel log of every domain named here.
        echo "$name" >> "$FIPC_RESULTS/kasan-domains.txt"
        ;;
    *) fipc_fail "$name: unknown FIPC_DOMU_FLAVOUR '$FIPC_DOMU_FLAVOUR'"; return 1 ;;
    esac
    [ -f "$ramdisk" ] || { fipc_fail "no domU ramdisk '$ramdisk' (--domu-ramdisk)"; return 1; }
    [ -f "$kernel" ] || { fipc_fail "no domU kernel '$kernel' (--domu-kernel)"; return 1; }
    xl domid "$name" >/dev/null 2>&1 && { fipc_fail "domain $name already exists"; return 1; }
    if [ -f "$w/loop" ]; then losetup -d "$(cat "$w/loop")" 2>/dev/null; fi
    rm -rf "$w"
    mkdir -p "$x/modules" "$x/scenario"
    cp "$FIPC_LIB/domU-run.sh" "$x/init"
    cat "$FIPC_LIB/guest-lib.sh" "$FIPC_LIB/both-sides.sh" > "$x/lib.sh"
    cp "$guest" "$x/guest.sh"
    chmod +x "$x/init" "$x/guest.sh"
    [ -d "${common:-}" ] && cp -r "$common/." "$x/scenario/"
    cp -r "$(dirname "$guest")/." "$x/scenario/"
    : > "$x/modules/order"
    for m in ${FIPC_DOMU_LOAD:-}; do
        f=
        [ -n "$mods" ] && f=$(find "$mods" \( -name "$m.ko" -o -name "${m//-/_}.ko" \) | head -n 1)
        if [ -n "$f" ]; then
            cp "$f" "$x/modules/$m.ko"
        fi
        echo "$m" >> "$x/modules/order"   # not found here: the guest modprobes a stock one
    done
    {
        echo "FIPC_GUEST_NAME='$name'"
        env | grep '^FIPC_OPT_' | sed "s/^\([^=]*\)=\(.*\)$/\1='\2'/"
    } > "$x/params"
    tar cf "$w/xchg.img" -C "$x" . || return 1
    size=$(stat -c %s "$w/xchg.img")
    # Room for the guest's results (written over the input tar).
    truncate -s 64M "$w/xchg.img"
    if [ -n "${FIPC_XCHG_LOOP:-}" ]; then
        losetup "$FIPC_XCHG_LOOP" "$w/xchg.img" || { fipc_fail "losetup $FIPC_XCHG_LOOP failed"; return 1; }
        loop=$FIPC_XCHG_LOOP
    else
        loop=$(losetup -f --show "$w/xchg.img") || { fipc_fail "losetup failed"; return 1; }
    fi
    echo "$loop" > "$w/loop"

    sed -e "s|@NAME@|$name|g" -e "s|@KERNEL@|$kernel|g" \
        -e "s|@RAMDISK@|$ramdisk|g" -e "s|@MEMORY@|${FIPC_DOMU_MEMORY:-$FIPC_DOMU_MEM}|g" \
        -e "s|@VCPUS@|$FIPC_DOMU_VCPUS|g" -e "s|@CPUS@|$FIPC_DOMU_CPUS|g" \
        -e "s|@EXTRA@|console=hvc0 rdinit=/init quiet loglevel=4 ${cmdline:+$cmdline }fipc.xchg=$size|g" \
        -e "s|@XCHG@|phy:$loop,xvdz,w|g" "$cfg" > "$w/$name.cfg"
    for kv in "$@"; do
        k=${kv%%=*} v=${kv#*=}
        sed -i "s|@$k@|$v|g" "$w/$name.cfg"
    done
    if grep -q '@[A-Z_]*@' "$w/$name.cfg"; then
        fipc_fail "unfilled placeholders in $w/$name.cfg: $(grep -o '@[A-Z_]*@' "$w/$name.cfg" | sort -u | xargs)"
        return 1
    fi
}

# fipc_domu_start NAME CFG GUEST [KEY=VALUE...]: fipc_domu_config, then
# xl create.
fipc_domu_start() {
    local name=$1
    fipc_domu_config "$@" || return 1
    modprobe xen-blkback 2>/dev/null
    fipc_log "xl create $FIPC_WORK/$name/$name.cfg"
    xl ${FIPC_OPT_XL_VERBOSE:+-vvv} create "$FIPC_WORK/$name/$name.cfg" || { fipc_fail "xl create $name failed"; return 1; }
}

# fipc_domu_console_tail NAME [LINES]: last lines of the guest's console log
# (written by xenconsoled --log=guest; absent on hosts that do not log).
fipc_domu_console_tail() {
    local f=$FIPC_CONSOLE_DIR/guest-$1.log
    if [ -f "$f" ]; then
        echo "---- console of $1 (last ${2:-40} lines) ----"
        tail -n "${2:-40}" "$f" | tr -d '\r' | sed 's/^/| /'
        echo "---- end of console of $1 ----"
    fi
}

# fipc_domu_state NAME: the domain's state flags as xl list shows them
# (r, b, p, s, c, d; e.g. "-b----"), nothing once it is gone.
fipc_domu_state() {
    xl list "$1" 2>/dev/null | awk 'NR == 2 { print $5 }'
}

# fipc_domu_wait NAME TIMEOUT: wait until the domU powers off, then collect
# its results into $FIPC_RESULTS/NAME.  Fails (and destroys the domain) if it
# crashes, runs past TIMEOUT seconds, reports no results or a non-zero guest
# exit status.  It looks at the domain every $FIPC_DOMU_WAIT_POLL_S seconds
# (default 0.5).
fipc_domu_wait() {
    local name=$1 to state deadline
    to=$(fipc_scaled "$2")
    deadline=$(($(date +%s) + to))
    while true; do
        state=$(fipc_domu_state "$name")
        [ -z "$state" ] && break                       # gone: powered off and destroyed
        case $state in
        *c*) fipc_fail "domU $name crashed"; fipc_domu_console_tail "$name"
             xl destroy "$name"; return 1 ;;
        *s*) xl destroy "$name" 2>/dev/null; break ;;  # shut down, no xl daemon reaped it
        esac
        if [ "$(date +%s)" -ge "$deadline" ]; then
            fipc_fail "domU $name still running after ${to}s"
            fipc_domu_console_tail "$name"
            xl destroy "$name"
            return 124
        fi
        sleep "${FIPC_DOMU_WAIT_POLL_S:-0.5}"
    done
    fipc_domu_collect "$name"
}

# fipc_domu_collect NAME: unpack the guest's results from its exchange disk.
fipc_domu_collect() {
    local name=$1 w=$FIPC_WORK/$1 r=$FIPC_RESULTS/$1 rc
    if [ -f "$w/loop" ]; then losetup -d "$(cat "$w/loop")" 2>/dev/null; rm -f "$w/loop"; fi
    mkdir -p "$r"
    [ -f "$FIPC_CONSOLE_DIR/guest-$name.log" ] &&
        tr -d '\r' < "$FIPC_CONSOLE_DIR/guest-$name.log" > "$r/console.log"
    rm -rf "$w/out" && mkdir -p "$w/out"
    tar xf "$w/xchg.img" -C "$w/out" 2>/dev/null
    if [ ! -f "$w/out/.fipc-guest-results" ]; then
        fipc_fail "domU $name wrote no results (guest did not finish)"
        fipc_domu_console_tail "$name"
        return 1
    fi
    rm -f "$w/out/.fipc-guest-results"
    cp -r "$w/out/." "$r/"
    rc=$(cat "$r/guest.rc" 2>/dev/null || echo missing)
    if [ "$rc" != 0 ]; then
        fipc_fail "guest script of $name exited $rc"
        fipc_domu_console_tail "$name"
        return 1
    fi
    fipc_log "domU $name finished, results in $r"
}

