#!/bin/sh
# Tests tools/hotplug/block-fipc against fake xenstore-read/xenstore-write
# (a directory of files), a fake sysfs driver directory and device nodes
# made here.  Prints "PASS name" or "FAIL name: why" per test.
#
#   tests/xl/hotplug-test.sh [SHELL]     (SHELL runs the script; default sh)

set -u
here=$(cd "$(dirname "$0")" && pwd)
script=$here/../../tools/hotplug/block-fipc
shell=${1:-sh}
fails=0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/bin" "$tmp/xs" "$tmp/sys/fipcblk" "$tmp/log"

# Fake xenstore: one file per node under $tmp/xs, '/' written as '%'.
# Every call is logged to $tmp/calls.
cat > "$tmp/bin/xenstore-read" <<'EOF'
#!/bin/sh
echo "read $*" >> "$FAKE_XS/../calls"
f=$FAKE_XS/$(printf '%s' "$1" | tr / %)
[ -f "$f" ] || { echo "xenstore-read: couldn't read path $1" >&2; exit 1; }
cat "$f"; echo
EOF
cat > "$tmp/bin/xenstore-write" <<'EOF'
#!/bin/sh
echo "write $*" >> "$FAKE_XS/../calls"
[ -e "$FAKE_XS/../write-fails" ] && exit 1
while [ $# -ge 2 ]; do
    printf '%s' "$2" > "$FAKE_XS/$(printf '%s' "$1" | tr / %)"; shift 2
done
EOF
chmod +x "$tmp/bin/xenstore-read" "$tmp/bin/xenstore-write"

be=/local/domain/0/backend/fipcblk/7/51728

xs_set() { printf '%s' "$2" > "$tmp/xs/$(printf '%s' "$1" | tr / %)"; }
xs_get() {
    f=$tmp/xs/$(printf '%s' "$1" | tr / %)
    [ -f "$f" ] && cat "$f" || echo "<absent>"
}

# A block device node (major 259, minor 18 -> hex "103:12").
blk=$tmp/nullb-test
if ! mknod "$blk" b 259 18 2>/dev/null; then
    blk=
    for d in /dev/vda /dev/sda /dev/nvme0n1 /dev/loop0 /dev/ram0; do
        [ -b "$d" ] && { blk=$d; break; }
    done
fi
: > "$tmp/regular-file"

reset_store() { rm -f "$tmp"/xs/* "$tmp/calls" "$tmp/write-fails"; }

# run ACTION [VAR=VALUE...]: runs the script on the store as it is.
run() {
    action=$1; shift
    env PATH="$tmp/bin:$PATH" FAKE_XS="$tmp/xs" XENBUS_PATH="$be" \
        XENBUS_TYPE=fipcblk XENBUS_BASE_PATH=backend \
        FIPC_BACKEND_DRIVER_DIR="$tmp/sys/fipcblk" \
        FIPC_HOTPLUG_LOG="$tmp/log/hotplug.log" "$@" \
        "$shell" "$script" "$action" > "$tmp/out" 2>&1
    rc=$?
}

result() {  # NAME WHY(empty on success)
    if [ -z "$2" ]; then
        echo "PASS hotplug: $1"
    else
        echo "FAIL hotplug: $1: $2"
        fails=$((fails + 1))
    fi
}

# expect_error NAME MESSAGE-PART: the last run failed cleanly with MESSAGE.
expect_error() {
    why=
    err=$(xs_get "$be/hotplug-error")
    st=$(xs_get "$be/hotplug-status")
    [ "$rc" = 1 ] || why="exit status $rc, expected 1"
    [ -z "$why" ] && [ "$st" != error ] && why="hotplug-status '$st', expected error"
    [ -z "$why" ] && case $err in *"$2"*) ;; *) why="hotplug-error '$err' lacks '$2'";; esac
    [ -z "$why" ] && [ "$(xs_get "$be/physical-device")" != "<absent>" ] &&
        why="physical-device written on failure"
    result "$1" "$why"
}

# --- success paths ---------------------------------------------------------

# run_with_params PARAMS ACTION [VAR=VALUE...]: a fresh store with params.
run_with_params() {
    reset_store
    xs_set "$be/params" "$1"; shift
    run "$@"
}

if [ -n "$blk" ]; then
    expect_mm=$(stat -L -c '%t:%T' "$blk")
    run_with_params "$blk" add
    why=
    [ "$rc" = 0 ] || why="exit status $rc: $(cat "$tmp/out") $(xs_get "$be/hotplug-error")"
    [ -z "$why" ] && [ "$(xs_get "$be/physical-device")" != "$expect_mm" ] &&
        why="physical-device '$(xs_get "$be/physical-device")', expected $expect_mm"
    [ -z "$why" ] && [ "$(xs_get "$be/hotplug-status")" != connected ] &&
        why="hotplug-status '$(xs_get "$be/hotplug-status")'"
    [ -z "$why" ] && [ "$(xs_get "$be/hotplug-error")" != "<absent>" ] &&
        why="hotplug-error written on success"
    result "add block device -> physical-device $expect_mm, connected" "$why"

    # Few forks: exactly one xenstore-read and one xenstore-write.
    why=
    n_read=$(grep -c '^read ' "$tmp/calls")
    n_write=$(grep -c '^write ' "$tmp/calls")
    [ "$n_read" = 1 ] && [ "$n_write" = 1 ] ||
        why="$n_read xenstore-read and $n_write xenstore-write calls"
    [ -z "$why" ] && ! grep -qx "write $be/physical-device $expect_mm $be/hotplug-status connected" "$tmp/calls" &&
        why="physical-device is not written before hotplug-status: $(cat "$tmp/calls")"
    result "add uses one xenstore-read and one xenstore-write, physical-device first" "$why"

    why=
    grep -q "connected $blk ($expect_mm)" "$tmp/log/hotplug.log" ||
        why="no log line in FIPC_HOTPLUG_LOG"
    result "add logs to FIPC_HOTPLUG_LOG" "$why"

    run_with_params "$blk" add FIPC_BACKEND_DRIVER_DIR=
    why=
    [ "$rc" = 0 ] && [ "$(xs_get "$be/hotplug-status")" = connected ] ||
        why="exit $rc, status $(xs_get "$be/hotplug-status")"
    result "FIPC_BACKEND_DRIVER_DIR= skips the driver check" "$why"

    ln -s "$blk" "$tmp/by-id-link"
    run_with_params "$tmp/by-id-link" add
    why=
    [ "$rc" = 0 ] && [ "$(xs_get "$be/physical-device")" = "$expect_mm" ] ||
        why="exit $rc, physical-device $(xs_get "$be/physical-device")"
    result "add through a symlink to the block device" "$why"

    run_with_params "$blk" add
    start=$(date +%s%N 2>/dev/null || echo 0)
    i=0
    while [ $i -lt 10 ]; do
        run_with_params "$blk" add
        i=$((i + 1))
    done
    end=$(date +%s%N 2>/dev/null || echo 0)
    ms=$(( (end - start) / 10000000 ))
    why=
    [ "$ms" -lt 1000 ] || why="one add takes ${ms} ms (fake xenstore included)"
    result "add is fast (${ms} ms per run with fake xenstore)" "$why"
else
    echo "SKIP hotplug: no block device node could be made or found"
fi

# --- error paths -------------------------------------------------------------

run_with_params "$tmp/no-such-disk" add
expect_error "missing target" "target $tmp/no-such-disk does not exist"

run_with_params "fipc-test-no-such-disk" add
expect_error "relative target is looked up under /dev" \
    "target /dev/fipc-test-no-such-disk does not exist"

run_with_params "$tmp/regular-file" add
expect_error "regular file target" "is not a block device"

run_with_params /dev/null add
expect_error "character device target" "/dev/null is not a block device"

run_with_params "" add
expect_error "empty params" "no target given"

reset_store
run add
expect_error "params node missing" "cannot read $be/params"

run_with_params "${blk:-/dev/null}" add FIPC_BACKEND_DRIVER_DIR="$tmp/sys/none"
expect_error "backend driver not loaded" \
    "fipc backend driver not loaded ($tmp/sys/none missing)"

run_with_params "${blk:-/dev/null}" frobnicate
expect_error "unknown action" "unknown action 'frobnicate'"

# A failing xenstore-write must still end in a non-zero exit.
rm -f "$tmp"/xs/* "$tmp/calls"
xs_set "$be/params" "${blk:-/dev/null}"
: > "$tmp/write-fails"
env PATH="$tmp/bin:$PATH" FAKE_XS="$tmp/xs" XENBUS_PATH="$be" \
    FIPC_BACKEND_DRIVER_DIR="$tmp/sys/fipcblk" FIPC_HOTPLUG_LOG= \
    "$shell" "$script" add > "$tmp/out" 2>&1
rc=$?
why=
[ "$rc" = 1 ] || why="exit status $rc"
result "xenstore-write failure exits 1" "$why"

env PATH="$tmp/bin:$PATH" FAKE_XS="$tmp/xs" XENBUS_PATH= \
    FIPC_HOTPLUG_LOG= "$shell" "$script" add > "$tmp/out" 2>&1
rc=$?
why=
[ "$rc" = 1 ] || why="exit status $rc"
grep -q "XENBUS_PATH is not set" "$tmp/out" || why="${why:-no message: $(cat "$tmp/out")}"
result "no XENBUS_PATH exits 1 with a message" "$why"

# --- remove ------------------------------------------------------------------

run_with_params "${blk:-/dev/null}" remove
why=
[ "$rc" = 0 ] || why="exit status $rc"
grep -q '^write' "$tmp/calls" 2>/dev/null && why="remove wrote to xenstore"
result "remove succeeds without touching xenstore" "$why"

exit $([ $fails = 0 ] && echo 0 || echo 1)
