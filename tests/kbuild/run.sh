#!/bin/bash
# fipc's modules out of tree, at W=1 (warnings fail), for the newer kernel
# targets of scripts/ktarget.sh: Debian 13's 6.12 and trixie-backports'
# mainline, in the trixie userland (scripts/trixie-root.sh, cached).
# Debian 12's 6.1 is the "modules" suite of the test command.  For each
# target: the build, the three modules and the two test modules made,
# their vermagic naming the target's kernel, and the compile probes'
# results (what linux/compat/ fills in there) printed.
# Last line: "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
targets=${FIPC_KBUILD_TARGETS:-6.12 mainline}

for t in $targets; do
	where=$("$top/scripts/ktarget.sh" "$t") || { bad "$t: no headers"; continue; }
	kdir=${where#trixie }
	kver=${kdir#/usr/src/linux-headers-}
	out=$top/build/kmod-$t
	t0=$(date +%s)
	if FIPC_KTARGET=$t "$top/scripts/build-modules.sh" >"$top/build/kbuild-$t.log" 2>&1; then
		ok "$t ($kver): modules built at W=1 without a warning ($(( $(date +%s) - t0 )) s)"
	else
		bad "$t ($kver): build (build/kbuild-$t.log)"
		tail -n 30 "$top/build/kbuild-$t.log" | sed 's/^/    /'
		continue
	fi
	for m in fipc/fipc xen-fipc-front/xen-fipc-front xen-fipc-back/xen-fipc-back \
		attack/fipc_attack attack/fipc_attack_back attack/fipc_holdref; do
		ko=$out/$m.ko
		vm=$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)
		if [ "$vm" = "$kver" ]; then
			ok "$t: ${m#*/}.ko for $kver"
		else
			bad "$t: ${m#*/}.ko: vermagic '${vm:-none}', want $kver"
		fi
	done
	echo "     $t's probes: present: $(sed -n 's/^#define FIPC_HAVE_\([A-Z0-9_]*\) 1$/\1/p' \
		"$out/gen/fipc_kcompat_probes.h" | xargs); absent:" \
		"$(sed -n 's|^/\* #undef FIPC_HAVE_\([A-Z0-9_]*\) \*/$|\1|p' \
		"$out/gen/fipc_kcompat_probes.h" | xargs)"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
