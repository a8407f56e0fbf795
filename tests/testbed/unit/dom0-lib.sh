#!/bin/bash
# Host test of the dom0 library's shell-only helpers (lib/fipc-scenario.sh,
# lib/fipc-drivers.sh): fipc_nap waits without starting a process, also
# inside a phase (fipc_step), and falls back to sleep without its FIFO;
# fipc_until looks again each time (a value that changes is seen);
# fipc_file_is, fipc_be_stat (sysfs, else the developer counters, else
# -1) and fipc_log's line; fipc-hostile's check_xsbad on a made-up
# attacker console and dom0 record; fipc_steps; fipc_domu_wait_marker
# (a marker, a kernel panic); and the kernel-log checks' one known
# artefact of the emulated CPU (fipc_klog_unexplained, bash and busybox;
# fipc_health, fipc_domu_kernel_clean).  A "sleep" on PATH
# counts its calls.
# Prints "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else bad "$1 ($2)"; fi; }

mkdir -p "$tmp/bin" "$tmp/results" "$tmp/work"
cat > "$tmp/bin/sleep" <<EOF
#!/bin/sh
echo x >> "$tmp/sleeps"
exec /bin/sleep "\$@"
EOF
chmod +x "$tmp/bin/sleep"
export PATH="$tmp/bin:$PATH" FIPC_RESULTS=$tmp/results FIPC_WORK=$tmp/work TMPDIR=$tmp
# shellcheck source=tests/testbed/lib/fipc-scenario.sh
. "$here/../lib/fipc-scenario.sh"
sleeps() { [ -f "$tmp/sleeps" ] && wc -l < "$tmp/sleeps" || echo 0; }
ms_of() { local t0; t0=$(date +%s%N); "$@"; echo $((($(date +%s%N) - t0) / 1000000)); }

# fipc_nap: the time asked for, no process.
t=$(ms_of fipc_nap 0.3)
check "nap waits 0.3 s (took $t ms)" '[ "$t" -ge 280 ] && [ "$t" -lt 1500 ]'
check "nap starts no sleep" '[ "$(sleeps)" = 0 ]'
check "the nap FIFO is unlinked" '[ ! -e "/tmp/fipc-nap.$$" ] && [ -p "/proc/$$/fd/$FIPC_NAP_FD" ]'

# In a phase (a new bash from the functions' text): the same.
phase() { local t; t=$(ms_of fipc_nap 0.2); echo "$t" > "$FIPC_WORK/phase-ms"; }
fipc_step nap-phase 10 phase > "$tmp/step.out"
t=$(cat "$FIPC_WORK/phase-ms")
check "nap in a phase waits 0.2 s (took $t ms)" '[ "$t" -ge 180 ] && [ "$t" -lt 1500 ]'
check "nap in a phase starts no sleep" '[ "$(sleeps)" = 0 ]'
check "the phase is timed" 'grep -q "^nap-phase 0 " "$FIPC_RESULTS/phases.txt"'

# Without its descriptor: sleep, for as long.
t=$(FIPC_NAP_FD=250 ms_of fipc_nap 0.2)
check "nap without its FIFO waits 0.2 s (took $t ms)" '[ "$t" -ge 180 ] && [ "$t" -lt 1500 ]'
check "nap without its FIFO sleeps" '[ "$(sleeps)" = 1 ]'

# fipc_until + fipc_file_is: a value written later is seen.
echo 3 > "$tmp/gm"
(/bin/sleep 0.5; echo 0 > "$tmp/gm") &
fipc_until 5 fipc_file_is "$tmp/gm" 0 && r=0 || r=1
wait
check "fipc_until sees a file change to 0" '[ "$r" = 0 ]'
echo 7 > "$tmp/gm"
fipc_until 1 fipc_file_is "$tmp/gm" 0 && r=0 || r=1
check "fipc_until gives up on a file that stays 7" '[ "$r" = 1 ]'
check "fipc_file_is: a missing file is not 0" '! fipc_file_is "$tmp/none" 0'

# fipc_be_stat: sysfs first, else debugfs's counters, else -1.
FIPC_BE_SYSFS=$tmp/sysfs
mkdir -p "$FIPC_BE_SYSFS/fipcblk-5-51728/statistics"
echo 1234 > "$FIPC_BE_SYSFS/fipcblk-5-51728/statistics/rd_req"
echo grant > "$FIPC_BE_SYSFS/fipcblk-5-51728/statistics/data_path"
fipc_be_dbg() { [ "$1" = 5 ] && printf 'held_unmaps 9\nother 1\n'; }
check "be_stat reads a counter" '[ "$(fipc_be_stat 5 51728 rd_req)" = 1234 ]'
check "be_stat reads a word" '[ "$(fipc_be_stat 5 51728 data_path)" = grant ]'
check "be_stat falls back to the developer counters" '[ "$(fipc_be_stat 5 51728 held_unmaps)" = 9 ]'
check "be_stat: -1 for a counter nowhere" '[ "$(fipc_be_stat 6 51728 rd_req)" = -1 ]'
check "be_stat starts no sleep" '[ "$(sleeps)" = 1 ]'

# fipc_log: "[fipc HH:MM:SS] text".
line=$(fipc_log "a b  c")
check "log line (got '$line')" '[[ "$line" =~ ^\[fipc\ [0-2][0-9]:[0-5][0-9]:[0-6][0-9]\]\ a\ b\ \ c$ ]]'

# check_xsbad: the attacker's last line per case and dom0's record.
ATTACKER_CONSOLE=$tmp/attacker.log
R=$tmp/results
# shellcheck source=tests/testbed/scenarios/fipc-hostile/attack-checks.sh
. "$here/../scenarios/fipc-hostile/attack-checks.sh"
printf '%s\r\n' "boot noise" \
    "@@FIPC-ATTACK xsbad case 0 ring-order=99 connected backend=Connected" \
    "@@FIPC-ATTACK xsbad case 0 ring-order=99 refused backend=InitWait" \
    "@@FIPC-ATTACK xsbad case 1 pfns=0 refused backend=Closing" \
    "@@FIPC-ATTACK xsbad case 2 queues=x refused backend=InitWait" > "$ATTACKER_CONSOLE"
printf '%s\n' "0|0|34 bad ring-order" "1|1|22 bad pfns" "2|0|" > "$FIPC_WORK/xsbad.cases"
check_xsbad 4 > "$tmp/xsbad.out"
r=$?
check "xsbad: a case short of its node, one missing: fails" '[ "$r" = 1 ]'
check "xsbad: case 0 passes on its last line" 'grep -q "^pass xsbad-case-0: ring-order=99: attacker saw refused (backend=InitWait), dom0 saw Connected: 0, error node: .34 bad ring-order.$" "$R/checks.txt"'
check "xsbad: case 1 passes, Connected seen shown" 'grep -q "^pass xsbad-case-1: pfns=0: attacker saw refused (backend=Closing), dom0 saw Connected: 1," "$R/checks.txt"'
check "xsbad: case 2 without an error node fails" 'grep -q "^FAIL xsbad-case-2: queues=x: attacker saw refused" "$R/checks.txt"'
check "xsbad: case 3 never reported fails" 'grep -q "^FAIL xsbad-case-3: ?: attacker saw nothing (), dom0 saw Connected: ?" "$R/checks.txt"'
check "xsbad: figures per case" '[ "$(grep -c "^xsbad.case" "$R/figures.txt")" = 4 ] && grep -q "^xsbad.case3 none$" "$R/figures.txt"'
: > "$R/checks.txt"
printf '%s\n' "2|0|22 bad queues" >> "$FIPC_WORK/xsbad.cases"
# As a phase (fipc_step: a new bash with the functions and the exported
# variables only), as run.sh calls the checks.
export R
fipc_step xsbad-phase 10 check_xsbad 3 > "$tmp/xsbad.out" && r=0 || r=1
check "xsbad: all three refused with nodes: passes, in a phase" '[ "$r" = 0 ] && [ "$(grep -c "^pass" "$R/checks.txt")" = 3 ]'
# amarker in a phase finds a line on the attacker's console.
fipc_step amarker-phase 10 amarker "@@FIPC-ATTACK xsbad case 2" 5 > "$tmp/amarker.out" && r=0 || r=1
check "amarker finds a console line, in a phase" '[ "$r" = 0 ]'

# fipc_steps runs every phase, in order, whatever one returned, each with
# its arguments, and fails if any failed.
said() { echo "$*" >> "$FIPC_WORK/said"; }
fipc_steps s-one:10:true s-two:10:false "s-three:10:said a  b" > "$tmp/steps.out" && r=0 || r=1
check "fipc_steps: a phase failed: fails" '[ "$r" = 1 ]'
check "fipc_steps: every phase ran, in order" '[ "$(grep "^s-" "$FIPC_RESULTS/phases.txt" | cut -d" " -f1,2 | tr "\n" " ")" = "s-one 0 s-two 1 s-three 0 " ]'
check "fipc_steps: the command gets its arguments" '[ "$(cat "$FIPC_WORK/said")" = "a b" ]'
fipc_steps s-four:10:true > /dev/null && r=0 || r=1
check "fipc_steps: all passed: passes" '[ "$r" = 0 ]'

# fipc_domu_wait_marker: a marker on the console ends the wait; a kernel
# panic before it fails it at once, though the (preserved) domain is there.
export FIPC_CONSOLE_DIR=$tmp/console FIPC_MARKER_LOOK_S=1
mkdir -p "$FIPC_CONSOLE_DIR"
xl() { return 0; }
printf 'booting\r\n@@LIMITS g1 ready\r\n' > "$FIPC_CONSOLE_DIR/guest-g1.log"
fipc_domu_wait_marker g1 "@@LIMITS g1 ready" 20 > "$tmp/marker.out" && r=0 || r=1
check "wait_marker finds its line" '[ "$r" = 0 ]'
printf '[ 3.3] BUG: kernel NULL pointer dereference\r\n[ 3.4] Kernel panic - not syncing: Attempted to kill the idle task!\r\n' \
    > "$FIPC_CONSOLE_DIR/guest-g2.log"
t=$(date +%s%N)
fipc_domu_wait_marker g2 "@@LIMITS g2 ready" 20 > "$tmp/panic.out" && r=0 || r=1
t=$((($(date +%s%N) - t) / 1000000))
check "wait_marker: a panic fails the wait" '[ "$r" = 1 ] && grep -q "^@@FIPC-FAIL g2: its kernel panicked before" "$tmp/panic.out"'
check "wait_marker: a panic ends the wait at once (took $t ms)" '[ "$t" -lt 10000 ]'
check "wait_marker: the console's tail follows" 'grep -q "^| .*Kernel panic" "$tmp/panic.out"'
unset -f xl

# fipc_klog_unexplained: the emulated CPU's stray single-step warning
# (as trixie's PV dom0 printed it) is left out from its first line to its
# end; a report of ours after it, or one where an unended artefact's 80
# lines have run out, stays; the same under busybox sh and awk (the
# guests'); fipc_health and fipc_domu_kernel_clean pass the artefact
# alone and fail on ours, naming the task.
artefact() {
    printf '[  126.72] ------------[ cut here ]------------\n'
    printf '[  126.72] WARNING: CPU: 0 PID: 1325 at arch/x86/kernel/traps.c:1120 exc_debug_kernel+0xca/0x160\n'
    printf '[  126.72] CPU: 0 UID: 0 PID: 1325 Comm: dd Not tainted 6.12.57+deb13-amd64 #1\n'
    printf '[  126.72] RIP: e030:exc_debug_kernel+0xca/0x160\n[  126.72] Call Trace:\n'
    printf '[  126.72]  <#DB>\n[  126.72]  ? __warn+0x89/0x130\n[  126.72]  </#DB>\n'
    [ "${1:-}" = unended ] && return
    printf '[  126.73] ---[ end trace 0000000000000000 ]---\n'
}
ours() {
    printf '[  130.1] WARNING: CPU: 1 PID: 77 at drivers/block/xen-fipc-back/back_io.c:9 xfb_io_end+0x1/0x2\n'
    printf '[  130.1] CPU: 1 UID: 0 PID: 77 Comm: xfb-poll-3 Not tainted\n[  130.1] Call Trace:\n'
}
kfault() { grep -cE 'Oops|BUG[: ]|WARNING:|Call Trace'; }
{ echo before; artefact; echo after; } > "$tmp/klog1"
n=$(fipc_klog_unexplained "$tmp/klog1" 2> "$tmp/klog1.err" | kfault)
check "klog: the artefact is left out" '[ "$n" = 0 ]'
check "klog: the lines around it stay" '[ "$(fipc_klog_unexplained "$tmp/klog1" 2>/dev/null | tr "\n" " ")" = "before after " ]'
check "klog: the artefact is named on stderr" 'grep -q "^fipc: left out, an artefact of the emulated CPU: .*exc_debug_kernel" "$tmp/klog1.err"'
{ artefact; ours; } > "$tmp/klog2"
check "klog: our warning after the artefact stays" '[ "$(fipc_klog_unexplained "$tmp/klog2" 2>/dev/null | kfault)" = 2 ]'
{ artefact unended; for i in $(seq 80); do echo "[ 127.0] line $i"; done; ours; } > "$tmp/klog3"
check "klog: an unended artefact ends after 80 lines" '[ "$(fipc_klog_unexplained < "$tmp/klog3" 2>/dev/null | kfault)" = 2 ]'
bb() { busybox sh -c ". '$here/../lib/both-sides.sh'; PATH=$tmp/bbin; $1"; }
mkdir -p "$tmp/bbin" && ln -sf "$(command -v busybox)" "$tmp/bbin/awk"
check "klog under busybox: the artefact left out, ours kept" \
    '[ "$(bb "fipc_klog_unexplained $tmp/klog1" 2>/dev/null)" = "$(printf "before\nafter")" ] &&
     [ "$(bb "fipc_klog_unexplained < $tmp/klog2" 2>/dev/null | kfault)" = 2 ]'
dmesg() { cat "$tmp/dmesg"; }
rm -f "$FIPC_WORK/dmesg.mark"
{ echo boot; artefact; } > "$tmp/dmesg"
fipc_health art > "$tmp/health.out" 2>&1 && r=0 || r=1
check "health: the artefact alone passes" '[ "$r" = 0 ] && grep -q "left out, an artefact" "$tmp/health.out"'
ours >> "$tmp/dmesg"
fipc_health ours > "$tmp/health.out" 2>&1 && r=0 || r=1
check "health: our warning fails it, with the task" '[ "$r" = 1 ] && grep -q "^@@FIPC-FAIL dom0 health (ours): kernel log has: .*xfb_io_end.* Comm: xfb-poll-3" "$tmp/health.out"'
unset -f dmesg
{ artefact | sed "s/\$/\r/"; } > "$FIPC_CONSOLE_DIR/guest-g3.log"
fipc_domu_kernel_clean g3 "g3 console" > "$tmp/clean.out" 2>&1 && r=0 || r=1
check "console: the artefact alone is clean" '[ "$r" = 0 ]'
ours >> "$FIPC_CONSOLE_DIR/guest-g3.log"
fipc_domu_kernel_clean g3 "g3 console" > "$tmp/clean.out" 2>&1 && r=0 || r=1
check "console: our warning is not" '[ "$r" = 1 ] && grep -q "^@@FIPC-FAIL g3 console: 1 kernel" "$tmp/clean.out"'

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
