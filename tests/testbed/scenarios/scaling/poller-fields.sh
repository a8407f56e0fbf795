# Fields of a fipc poller set's poller_cpus parameter (lib/fipc's show
# hook), for dom0's scenarios (bash) and the guests' (busybox sh).

# poller_autoscale FILE FIELD: a field of FILE's autoscale line (0 where
# there is none).
poller_autoscale() {
	awk -v k="$2" '$1 == "autoscale" {
		for (i = 2; i < NF; i++) if ($i == k) v = $(i + 1) }
		END { print v + 0 }' "$1"
}

# poller_load_max FILE: the highest load_pct of FILE's pollers (their last
# 100 ms period).
poller_load_max() {
	awk '$1 == "poller" { for (i = 2; i < NF; i++)
		if ($i == "load_pct" && $(i + 1) > m) m = $(i + 1) }
		END { print m + 0 }' "$1"
}
