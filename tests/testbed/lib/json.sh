# shellcheck shell=sh
# The testbed's one JSON reader, for dom0 (sourced by fipc-scenario.sh)
# and the guests (appended to their /fipc/lib.sh): POSIX sh and sed, as
# busybox has them, so no python3 in the guests and no start-up cost.

# fipc_json_value FILE KEY [N]: the N-th value (default the first) of
# "KEY" in the JSON file FILE: a number, true/false, or a string without
# blanks, quotes, commas or braces, printed bare.  Reads both the
# testbed's one-line objects ("KEY": value) and fio's pretty-printed
# output ("KEY" : value).  Prints nothing if FILE or KEY is missing.
fipc_json_value() {
    sed -n "s/.*\"$2\" *: *\"\{0,1\}\([^\", }]*\)\"\{0,1\} *[,}]\{0,1\}.*/\1/p" \
        "$1" 2>/dev/null | sed -n "${3:-1}p"
}
