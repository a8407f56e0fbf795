#!/bin/sh
# Run the fio job set of the Fip-see report's tables against one block
# device and write one fio JSON file per job.  POSIX sh, so it runs the
# same in dom0, in a busybox domU and on a real Xen host.
#
# usage: run-fio.sh DEVICE OUTDIR
# environment (all optional):
#   FIO_RUNTIME     seconds per job (default 30, as the report)
#   FIO_RAMP        ramp-up seconds per job (default 2)
#   FIO_NUMJOBS     IOPS jobs, one per vCPU (default: number of CPUs)
#   FIO_LAT_CPU     CPU the latency job is pinned to (default 0)
#   FIO_JOBS        job names to run (default: the report's eight, below)
#   FIO_VERIFY      1: instead of timed jobs, write+verify crc32c passes
#   FIO_VERIFY_SIZE area verified per job (default 16m);
#                   FIO_VERIFY_SIZE_512 for the 512 B jobs (default the same)
#   FIO_COUNTERS_CMD command printing "name value" counter lines, run
#                   before and after each job (see run_job)
#
# IOPS jobs (report tables 8, 10, 12): libaio, iodepth 64, submit and
# complete in batches of 64, direct I/O, one job per vCPU, sequential.
# Latency jobs (tables 9, 11, 13): sync engine, one job pinned to a CPU.
# Desktop profiles (only when named, as fipc bench does): libaio, one
# job, desk-seq1m-q8-read (sequential 1 MiB at QD 8), desk-seq1m-q1-*,
# desk-rand4k-q32-* and desk-rand4k-q1-*, each -read and -write.
set -u

dev=${1:?usage: run-fio.sh DEVICE OUTDIR}
out=${2:?usage: run-fio.sh DEVICE OUTDIR}
runtime=${FIO_RUNTIME:-30}
ramp=${FIO_RAMP:-2}
numjobs=${FIO_NUMJOBS:-$(grep -c ^processor /proc/cpuinfo)}
latcpu=${FIO_LAT_CPU:-0}
all="iops-4k-read iops-4k-write iops-512-read iops-512-write"
all="$all lat-4k-read lat-4k-write lat-512-read lat-512-write"
jobs=${FIO_JOBS:-$all}

[ -b "$dev" ] || { echo "run-fio: $dev is not a block device" >&2; exit 1; }
command -v fio >/dev/null || { echo "run-fio: fio not installed" >&2; exit 1; }
mkdir -p "$out" || exit 1

# run_job NAME FIO-ARGS...: one fio job; its JSON goes to NAME.json and
# its exit status, which it returns, to NAME.rc (the testbed reads both).
# With FIO_COUNTERS_CMD set (a command printing "name value" lines, e.g.
# interrupt and driver counters), its output before and after the job goes
# to NAME.counters-before / NAME.counters-after (report.py: per I/O figures
# per job).
run_job() {
	name=$1
	shift
	[ -n "${FIO_COUNTERS_CMD:-}" ] && $FIO_COUNTERS_CMD >"$out/$name.counters-before"
	fio --name="$name" --filename="$dev" --direct=1 --output-format=json \
		--lat_percentiles=1 "$@" >"$out/$name.json"
	status=$?
	[ -n "${FIO_COUNTERS_CMD:-}" ] && $FIO_COUNTERS_CMD >"$out/$name.counters-after"
	echo $status >"$out/$name.rc"
	return $status
}

if [ "${FIO_VERIFY:-0}" = 1 ]; then
	# Data checks (needs a backing store that keeps data, e.g. null_blk
	# memory_backed=1): write then read back, random and sequential,
	# 512 B and 4 KiB, queue depths 1 and 32.
	rc=0
	for bs in 512 4k; do
		# 512 B I/Os are slow to verify in an emulator: a smaller area.
		if [ "$bs" = 512 ]; then
			size=${FIO_VERIFY_SIZE_512:-${FIO_VERIFY_SIZE:-16m}}
		else
			size=${FIO_VERIFY_SIZE:-16m}
		fi
		for rw in randwrite write; do
			for qd in 1 32; do
				name=verify-$bs-$rw-qd$qd
				echo "run-fio: $name on $dev"
				run_job "$name" --ioengine=libaio \
					--iodepth="$qd" --bs="$bs" --rw="$rw" \
					--size="$size" \
					--verify=crc32c --do_verify=1 \
					--verify_fatal=1 --verify_state_save=0 || rc=1
			done
		done
	done
	exit $rc
fi

for job in $jobs; do
	case $job in
	iops-*)
		bs=${job#iops-}; bs=${bs%-*}; rw=${job##*-}
		set -- --ioengine=libaio --iodepth=64 \
			--iodepth_batch_submit=64 --iodepth_batch_complete_min=64 \
			--numjobs="$numjobs" --group_reporting
		;;
	lat-*)
		bs=${job#lat-}; bs=${bs%-*}; rw=${job##*-}
		set -- --ioengine=sync --iodepth=1 --numjobs=1 \
			--cpus_allowed="$latcpu"
		;;
	desk-seq1m-q*-read | desk-seq1m-q*-write | desk-rand4k-q*-read | desk-rand4k-q*-write)
		p=${job#desk-}; rw=${p##*-}; p=${p%-*}; qd=${p##*-q}; p=${p%-q*}
		bs=4k
		if [ "$p" = seq1m ]; then bs=1m; else rw=rand$rw; fi
		set -- --ioengine=libaio --iodepth="$qd" --numjobs=1
		;;
	*)
		echo "run-fio: unknown job $job" >&2
		exit 1
		;;
	esac
	echo "run-fio: $job on $dev (${runtime}s)"
	run_job "$job" "$@" --bs="$bs" --rw="$rw" --time_based \
		--runtime="$runtime" --ramp_time="$ramp" || exit
done
