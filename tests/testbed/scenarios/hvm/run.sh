#!/bin/bash
# Scenario "hvm" (dom0 side): the classic scenario's jobs (fio verify and
# a short perf job, then the same perf job in dom0) in an HVM guest with PV
# drivers, its disk a phy1: disk over our drivers; see classic/run.sh
# (FIPC_CLASSIC_HVM) and this directory's domU.cfg and scenario.conf.
# Not in the README's test command: about 7 minutes, most of them the
# guest's firmware under TCG; in make e2e.
FIPC_CLASSIC_HVM=$(cd "$(dirname "$0")" && pwd)
export FIPC_CLASSIC_HVM
exec "$FIPC_CLASSIC_HVM/../classic/run.sh" "$@"
