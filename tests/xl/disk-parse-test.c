// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side tests of the phy1 (fipc) disk specs: drives libxlutil's
 * xlu_disk_parse() from the patched, built libxlutil and checks every
 * parsed field, or the error message for bad specs.  With -DWITH_DEVNUM
 * (linked against the static libxenlight.a) it also checks libxl's vdev to
 * devid decoding, which libxl uses to name the xenstore directories.
 *
 * Prints "PASS <name>" or "FAIL <name>: <why>" per test; exits 1 if any
 * test failed.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxl.h>
#include <libxlutil.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#ifdef WITH_DEVNUM
/* Hidden in libxenlight.so, reachable in libxenlight.a. */
int libxl__device_disk_dev_number(const char *virtpath, int *pdisk,
				  int *ppartition);
#endif

/* memshare as parsed: not given, off or on */
enum { MEMSHARE_UNSET, MEMSHARE_OFF, MEMSHARE_ON };
#define ANY_SCRIPT ((const char *)1)

struct good {
	const char *name;
	const char *specs[4];
	libxl_disk_backend backend;
	const char *target;
	const char *vdev;
	int readwrite;
	libxl_disk_format format;
	const char *backend_domname;
	const char *script;
	int memshare; /* MEMSHARE_* */
	int queues;
	const char *poller_cpus;
	int is_cdrom;
	int weight; /* 0: not given */
	/*
	 * The I/O limits and the guest's totals (0: not given), named as
	 * in libxl's disk, by designated initializers.
	 */
	unsigned long long fipc_iops, fipc_iops_read, fipc_iops_write;
	unsigned long long fipc_bps, fipc_bps_read, fipc_bps_write;
	int fipc_burst_ms;
	unsigned long long fipc_guest_iops, fipc_guest_iops_read;
	unsigned long long fipc_guest_iops_write, fipc_guest_bps;
	unsigned long long fipc_guest_bps_read, fipc_guest_bps_write;
	int fipc_guest_burst_ms;
};

struct bad {
	const char *name;
	const char *specs[4];
	const char *error; /* expected in the error report */
};

/* Disk specs and errors of the I/O limits, too long for one line. */
#define SPEC_ALL_LIMITS \
	"phy1:/dev/nullb1,xvdg,w,iops=2000,iops-read=1500,iops-write=500,bps=100M,bps-read=64K,bps-write=2G,burst-ms=500"
#define SPEC_LIMIT_BOUNDS \
	"phy1:/dev/nullb1,xvdg,w,iops=1,iops-read=1099511627776,bps=1,bps-read=1099511627776,bps-write=1024G,burst-ms=60000"
#define SPEC_LIMIT_KEYWORDS \
	"backendtype=phy1,iops-write=7,burst-ms=1,bps=50M,vdev=xvdb,bps=1K,target=/dev/nullb0"
#define ERR_LIMITS_PHY1 \
	"iops, iops-read, iops-write, bps, bps-read, bps-write and burst-ms need backendtype phy1"
#define SPEC_ALL_GUEST \
	"phy1:/dev/nullb1,xvdg,w,guest-iops=5000,guest-iops-read=4000,guest-iops-write=1000,guest-bps=200M,guest-bps-read=512K,guest-bps-write=1G,guest-burst-ms=250"
#define SPEC_GUEST_BOUNDS \
	"phy1:/dev/nullb1,xvdg,w,guest-iops=1,guest-iops-write=1099511627776,guest-bps=1024G,guest-bps-read=1,guest-bps-write=1099511627776,guest-burst-ms=60000"
#define SPEC_GUEST_AND_DISK \
	"backendtype=phy1,guest-iops=9,iops=3,vdev=xvdc,guest-iops=10,guest-burst-ms=1,burst-ms=7,guest-bps-read=3G,target=/dev/nullb2"
#define ERR_GUEST_PHY1 \
	"guest-iops, guest-iops-read, guest-iops-write, guest-bps, guest-bps-read, guest-bps-write and guest-burst-ms need backendtype phy1"

/* The errors of a bad rate (of I/O or of bytes) and of a bad burst. */
#define ERR_IOPS(o) "bad value for " o " (use 1 to 1099511627776)"
#define ERR_BPS(o) \
	"bad value for " o \
	" (use 1 to 1099511627776, or up to 1024G with a 1024-based K, M or G)"
#define ERR_BURST(o) "bad value for " o " (use 1 to 60000)"

#define PHY1 LIBXL_DISK_BACKEND_PHY1
#define RAW LIBXL_DISK_FORMAT_RAW

/*
 * A raw disk as parsed; the rows give what else differs from
 * libxl_device_disk_init()'s defaults.
 */
#define DISK(be, tgt, vd, rw) \
	.backend = (be), .target = (tgt), .vdev = (vd), .readwrite = (rw), \
	.format = RAW

static const struct good goods[] = {
	{ "positional phy1:TARGET,VDEV,MODE", { "phy1:/dev/nullb0,xvdb,w" },
	  DISK(PHY1, "/dev/nullb0", "xvdb", 1) },
	{ "positional read-only", { "phy1:/dev/vg/guest,xvdc,r" },
	  DISK(PHY1, "/dev/vg/guest", "xvdc", 0) },
	{ "positional mode ro and rw aliases", { "phy1:/dev/sdb,xvdd,ro" },
	  DISK(PHY1, "/dev/sdb", "xvdd", 0) },
	{ "positional mode omitted means rw", { "phy1:/dev/sdb,xvdd" },
	  DISK(PHY1, "/dev/sdb", "xvdd", 1) },
	{ "report example keeps its vdev string",
	  { "phy1:/dev/nullb0,fipc15,w" },
	  DISK(PHY1, "/dev/nullb0", "fipc15", 1) },
	{ "keyword form",
	  { "backendtype=phy1,vdev=xvdb,access=rw,target=/dev/nullb0" },
	  DISK(PHY1, "/dev/nullb0", "xvdb", 1) },
	{ "keyword form, spaces, format=raw",
	  { "format=raw, vdev=xvde, access=ro, backendtype=phy1, target=/dev/sdc" },
	  DISK(PHY1, "/dev/sdc", "xvde", 0) },
	{ "keyword backendtype with positional target",
	  { "backendtype=phy1,/dev/sdd,raw,xvdf,w" },
	  DISK(PHY1, "/dev/sdd", "xvdf", 1) },
	{ "all fipc options",
	  { "phy1:/dev/nullb1,xvdg,r,memshare=on,queues=4,weight=512,poller-cpus=0-1:4" },
	  DISK(PHY1, "/dev/nullb1", "xvdg", 0), .memshare = MEMSHARE_ON,
	  .queues = 4, .poller_cpus = "0-1,4", .weight = 512 },
	{ "options before positional parameters",
	  { "memshare=off,queues=256,weight=65535,poller-cpus=7,phy1:/dev/nullb1,xvdh,w" },
	  DISK(PHY1, "/dev/nullb1", "xvdh", 1), .memshare = MEMSHARE_OFF,
	  .queues = 256, .poller_cpus = "7", .weight = 65535 },
	{ "weight=1, the lowest", { "phy1:/dev/nullb1,xvdh,w,weight=1" },
	  DISK(PHY1, "/dev/nullb1", "xvdh", 1), .weight = 1 },
	{ "all I/O limits, bps with K, M and G", { SPEC_ALL_LIMITS },
	  DISK(PHY1, "/dev/nullb1", "xvdg", 1), .fipc_iops = 2000,
	  .fipc_iops_read = 1500, .fipc_iops_write = 500,
	  .fipc_bps = 100 << 20, .fipc_bps_read = 64 << 10,
	  .fipc_bps_write = 2ULL << 30, .fipc_burst_ms = 500 },
	{ "I/O limits at their bounds", { SPEC_LIMIT_BOUNDS },
	  DISK(PHY1, "/dev/nullb1", "xvdg", 1), .fipc_iops = 1,
	  .fipc_iops_read = 1ULL << 40, .fipc_bps = 1,
	  .fipc_bps_read = 1ULL << 40, .fipc_bps_write = 1ULL << 40,
	  .fipc_burst_ms = 60000 },
	{ "I/O limits in the keyword form, given twice: the last counts",
	  { SPEC_LIMIT_KEYWORDS },
	  DISK(PHY1, "/dev/nullb0", "xvdb", 1), .fipc_iops_write = 7,
	  .fipc_bps = 1024, .fipc_burst_ms = 1 },
	{ "all guest totals, guest-bps with K, M and G", { SPEC_ALL_GUEST },
	  DISK(PHY1, "/dev/nullb1", "xvdg", 1), .fipc_guest_iops = 5000,
	  .fipc_guest_iops_read = 4000, .fipc_guest_iops_write = 1000,
	  .fipc_guest_bps = 200 << 20, .fipc_guest_bps_read = 512 << 10,
	  .fipc_guest_bps_write = 1ULL << 30, .fipc_guest_burst_ms = 250 },
	{ "guest totals at their bounds", { SPEC_GUEST_BOUNDS },
	  DISK(PHY1, "/dev/nullb1", "xvdg", 1), .fipc_guest_iops = 1,
	  .fipc_guest_iops_write = 1ULL << 40, .fipc_guest_bps = 1ULL << 40,
	  .fipc_guest_bps_read = 1, .fipc_guest_bps_write = 1ULL << 40,
	  .fipc_guest_burst_ms = 60000 },
	{ "guest totals beside the disk's limits, keyword form, last counts",
	  { SPEC_GUEST_AND_DISK },
	  DISK(PHY1, "/dev/nullb2", "xvdc", 1), .fipc_iops = 3,
	  .fipc_burst_ms = 7, .fipc_guest_iops = 10,
	  .fipc_guest_bps_read = 3ULL << 30, .fipc_guest_burst_ms = 1 },
	{ "a guest total in the positional form's separate arguments",
	  { "phy1:/dev/nullb0", "xvdb", "w", "guest-bps-write=64M" },
	  DISK(PHY1, "/dev/nullb0", "xvdb", 1),
	  .fipc_guest_bps_write = 64 << 20 },
	{ "queues=1 and a multi-range CPU list",
	  { "phy1:/dev/nullb1,xvdi,w,queues=1,poller-cpus=0:2-3:8-15" },
	  DISK(PHY1, "/dev/nullb1", "xvdi", 1), .queues = 1,
	  .poller_cpus = "0,2-3,8-15" },
	{ "driver domain backend=",
	  { "phy1:/dev/sdb,xvdj,w,backend=storage-dom" },
	  DISK(PHY1, "/dev/sdb", "xvdj", 1), .backend_domname = "storage-dom" },
	{ "driver domain, keyword form",
	  { "backend=3,backendtype=phy1,vdev=xvdk,target=/dev/xvdb" },
	  DISK(PHY1, "/dev/xvdb", "xvdk", 1), .backend_domname = "3" },
	{ "script override", { "script=block-fipc-test,phy1:/dev/sdb,xvdl,w" },
	  DISK(PHY1, "/dev/sdb", "xvdl", 1), .script = "block-fipc-test" },
	{ "xl block-attach style: one spec per argument",
	  { "phy1:/dev/nullb0", "xvdm", "w", "memshare=on" },
	  DISK(PHY1, "/dev/nullb0", "xvdm", 1), .memshare = MEMSHARE_ON },
	/* Classic disks are unchanged. */
	{ "classic phy: prefix is still ignored", { "phy:/dev/sda,xvda,w" },
	  DISK(LIBXL_DISK_BACKEND_UNKNOWN, "/dev/sda", "xvda", 1) },
	{ "classic backendtype=phy",
	  { "backendtype=phy,vdev=xvda,target=/dev/sda" },
	  DISK(LIBXL_DISK_BACKEND_PHY, "/dev/sda", "xvda", 1) },
	{ "classic positional with format",
	  { "/dev/vg/guest-volume,qcow2,hda,ro" },
	  .backend = LIBXL_DISK_BACKEND_UNKNOWN,
	  .target = "/dev/vg/guest-volume", .vdev = "hda", .readwrite = 0,
	  .format = LIBXL_DISK_FORMAT_QCOW2 },
	{ "classic cdrom", { "/root/image.iso,,hdc,cdrom" },
	  DISK(LIBXL_DISK_BACKEND_UNKNOWN, "/root/image.iso", "hdc", 0),
	  .is_cdrom = 1 },
};

/* A phy1 disk with one option more. */
#define OPT_DISK "phy1:/dev/sda,xvdb,w,"
#define OPT(o) { OPT_DISK o }

static const struct bad bads[] = {
	{ "unknown mode", { "phy1:/dev/nullb0,xvdb,x" },
	  "unknown value for access" },
	{ "unknown access= value", { "phy1:/dev/nullb0,xvdb,access=rwx" },
	  "unknown value for access" },
	{ "no vdev", { "phy1:/dev/nullb0" }, "no vdev specified" },
	{ "no target", { "backendtype=phy1,vdev=xvdb" },
	  "no target specified" },
	{ "empty target", { "phy1:,xvdb,w" },
	  "backendtype phy1 needs a target" },
	{ "unknown backendtype",
	  { "backendtype=phy2,target=/dev/sda,vdev=xvdb" },
	  "unknown value for backendtype" },
	{ "backendtype respecified", OPT("backendtype=phy"),
	  "backend respecified" },
	{ "format positional after phy1:", { "phy1:/dev/sda,raw,xvdb,w" },
	  "unknown value for access" },
	{ "format other than raw", OPT("format=qcow2"),
	  "backendtype phy1 supports only format raw" },
	{ "cdrom", { "phy1:/dev/sr0,xvdb:cdrom,r" },
	  "backendtype phy1 does not support cdrom" },
	{ "unknown parameter", OPT("memshared=on"), "unknown parameter" },
	{ "poller-cpus respecified", OPT("poller-cpus=1,poller-cpus=2"),
	  "poller-cpus respecified" },
	{ "fipc option on a classic disk",
	  { "/dev/sda,raw,xvda,w,memshare=on" },
	  "need backendtype phy1" },
	{ "fipc option with backendtype=phy",
	  { "backendtype=phy,vdev=xvda,queues=2,target=/dev/sda" },
	  "need backendtype phy1" },
	{ "weight on a classic disk", { "/dev/sda,raw,xvda,w,weight=300" },
	  "memshare, queues, weight and poller-cpus need backendtype phy1" },
	{ "iops on a classic disk", { "/dev/sda,raw,xvda,w,iops=100" },
	  ERR_LIMITS_PHY1 },
	{ "burst-ms with backendtype=phy",
	  { "backendtype=phy,vdev=xvda,burst-ms=100,target=/dev/sda" },
	  ERR_LIMITS_PHY1 },
	{ "guest-iops on a classic disk",
	  { "/dev/sda,raw,xvda,w,guest-iops=100" },
	  ERR_GUEST_PHY1 },
	{ "guest-burst-ms with backendtype=phy",
	  { "backendtype=phy,vdev=xvda,guest-burst-ms=100,target=/dev/sda" },
	  ERR_GUEST_PHY1 },
};

/*
 * Values refused for one option of a phy1 disk, each a case of its own:
 * OPT("OPTION=VALUE") fails with the error.
 */
struct bad_values {
	const char *option;
	const char *error;
	const char *values[9]; /* up to NULL */
};

static const struct bad_values bad_values[] = {
	{ "memshare", "unknown value for memshare (use on or off)",
	  { "yes", "" } },
	{ "queues", "bad value for queues (use 1 to 256)",
	  { "0", "257", "-1", "4x", "99999999999999999999" } },
	{ "weight", "bad value for weight (use 1 to 65535)",
	  { "0", "65536", "-1", "high", "" } },
	/* I/O rates take no suffix. */
	{ "iops", ERR_IOPS("iops"), { "0", "5K", "-1" } },
	{ "iops-read", ERR_IOPS("iops-read"), { "1099511627777" } },
	{ "iops-write", ERR_IOPS("iops-write"), { "fast" } },
	/* Byte rates: 2^64 with K overflows; suffixes are upper case. */
	{ "bps", ERR_BPS("bps"),
	  { "0", "0M", "18014398509481984K", "99999999999999999999", "50MB",
	    "50m", "M", "" } },
	{ "bps-read", ERR_BPS("bps-read"), { "1025G" } },
	{ "bps-write", ERR_BPS("bps-write"), { "1099511627777" } },
	{ "burst-ms", ERR_BURST("burst-ms"), { "0", "60001", "1s" } },
	{ "guest-iops", ERR_IOPS("guest-iops"), { "0", "5K", "-1" } },
	{ "guest-iops-read", ERR_IOPS("guest-iops-read"), { "1099511627777" } },
	{ "guest-iops-write", ERR_IOPS("guest-iops-write"), { "fast" } },
	/* 2^64 with M overflows. */
	{ "guest-bps", ERR_BPS("guest-bps"),
	  { "0", "0K", "17592186044416M", "99999999999999999999", "1g", "2GB",
	    "" } },
	{ "guest-bps-read", ERR_BPS("guest-bps-read"), { "1025G" } },
	{ "guest-bps-write", ERR_BPS("guest-bps-write"), { "1099511627777" } },
	{ "guest-burst-ms", ERR_BURST("guest-burst-ms"),
	  { "0", "60001", "100ms", "" } },
	{ "poller-cpus", "bad value for poller-cpus (use e.g. 0-1:4)",
	  { "3-1", "all", "1-", "1::2", "1:", "65536" } },
};

static int failures;

static void result(const char *name, const char *why)
{
	if (why) {
		printf("FAIL parse: %s: %s\n", name, why);
		failures++;
	} else {
		printf("PASS parse: %s\n", name);
	}
}

static int nspecs(const char *const *specs)
{
	int n = 0;

	while (n < 4 && specs[n])
		n++;
	return n;
}

static bool streq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Parses specs; returns the parser's result and its report in *report. */
static int parse(const char *const *specs, libxl_device_disk *disk,
		 char **report)
{
	size_t len;
	FILE *f = open_memstream(report, &len);
	XLU_Config *cfg;
	int rc;

	if (!f) {
		perror("open_memstream");
		exit(2);
	}
	cfg = xlu_cfg_init(f, "test.cfg");
	if (!cfg) {
		perror("xlu_cfg_init");
		exit(2);
	}
	libxl_device_disk_init(disk);
	rc = xlu_disk_parse(cfg, nspecs(specs), specs, disk);
	xlu_cfg_destroy(cfg);
	fclose(f);
	return rc;
}

#define CHECK(cond, ...)                                         \
	do {                                                     \
		if (!(cond) && !why) {                           \
			snprintf(buf, sizeof(buf), __VA_ARGS__); \
			why = buf;                               \
		}                                                \
	} while (0)

/* An I/O limit or guest total: the disk's fipc_<limit> as the row's. */
#define CHECK_LIMIT(limit)                                               \
	CHECK(d.fipc_##limit == t->fipc_##limit, #limit " %llu, expected %llu", \
	      (unsigned long long)d.fipc_##limit,                        \
	      (unsigned long long)t->fipc_##limit)

static void test_good(const struct good *t)
{
	libxl_device_disk d;
	char *report = NULL, buf[512];
	const char *why = NULL;
	int rc = parse(t->specs, &d, &report);
	int memshare = libxl_defbool_is_default(d.fipc_memshare) ?
			       MEMSHARE_UNSET :
		       libxl_defbool_val(d.fipc_memshare) ? MEMSHARE_ON :
							    MEMSHARE_OFF;

	CHECK(rc == 0, "parse failed (%d): %s", rc, report);
	CHECK(d.backend == t->backend, "backend %s, expected %s",
	      libxl_disk_backend_to_string(d.backend),
	      libxl_disk_backend_to_string(t->backend));
	CHECK(streq(d.pdev_path, t->target), "target %s, expected %s",
	      d.pdev_path, t->target);
	CHECK(streq(d.vdev, t->vdev), "vdev %s, expected %s", d.vdev, t->vdev);
	CHECK(d.readwrite == t->readwrite, "readwrite %d, expected %d",
	      d.readwrite, t->readwrite);
	CHECK(d.format == t->format, "format %s, expected %s",
	      libxl_disk_format_to_string(d.format),
	      libxl_disk_format_to_string(t->format));
	CHECK(streq(d.backend_domname, t->backend_domname),
	      "backend domain %s, expected %s", d.backend_domname,
	      t->backend_domname);
	CHECK(streq(d.script, t->script), "script %s, expected %s", d.script,
	      t->script);
	CHECK(memshare == t->memshare, "memshare %d, expected %d", memshare,
	      t->memshare);
	CHECK(d.fipc_max_queues == t->queues, "queues %d, expected %d",
	      d.fipc_max_queues, t->queues);
	CHECK(d.fipc_weight == t->weight, "weight %d, expected %d",
	      d.fipc_weight, t->weight);
	CHECK_LIMIT(iops);
	CHECK_LIMIT(iops_read);
	CHECK_LIMIT(iops_write);
	CHECK_LIMIT(bps);
	CHECK_LIMIT(bps_read);
	CHECK_LIMIT(bps_write);
	CHECK_LIMIT(burst_ms);
	CHECK_LIMIT(guest_iops);
	CHECK_LIMIT(guest_iops_read);
	CHECK_LIMIT(guest_iops_write);
	CHECK_LIMIT(guest_bps);
	CHECK_LIMIT(guest_bps_read);
	CHECK_LIMIT(guest_bps_write);
	CHECK_LIMIT(guest_burst_ms);
	CHECK(streq(d.fipc_poller_cpus, t->poller_cpus),
	      "poller cpus %s, expected %s", d.fipc_poller_cpus,
	      t->poller_cpus);
	CHECK(d.is_cdrom == t->is_cdrom, "is_cdrom %d, expected %d", d.is_cdrom,
	      t->is_cdrom);
	CHECK(d.specification == LIBXL_DISK_SPECIFICATION_UNKNOWN,
	      "specification %s",
	      libxl_disk_specification_to_string(d.specification));
	result(t->name, why);
	libxl_device_disk_dispose(&d);
	free(report);
}

static void test_bad(const struct bad *t)
{
	libxl_device_disk d;
	char *report = NULL, buf[512];
	const char *why = NULL;
	int rc = parse(t->specs, &d, &report);

	CHECK(rc != 0, "accepted (backend %s, target %s, vdev %s)",
	      libxl_disk_backend_to_string(d.backend), d.pdev_path, d.vdev);
	CHECK(strstr(report, t->error), "error report lacks \"%s\": %s",
	      t->error, report);
	CHECK(strstr(report, "test.cfg: config parsing error in disk"),
	      "error report has no source prefix: %s", report);
	result(t->name, why);
	libxl_device_disk_dispose(&d);
	free(report);
}

/* Each value of bad_values[] as a bad spec. */
static void test_bad_values(const struct bad_values *t)
{
	char name[80], spec[sizeof(OPT_DISK) + sizeof(name)];
	struct bad bad = { name, { spec }, t->error };
	const char *const *value;

	for (value = t->values; *value; value++) {
		snprintf(name, sizeof(name), "%s=%s", t->option, *value);
		snprintf(spec, sizeof(spec), OPT_DISK "%s", name);
		test_bad(&bad);
	}
}

/* The JSON form of a parsed disk, as "xl block-attach -n" prints it. */
static void test_json(void)
{
	static const char * const specs[] = {
		"phy1:/dev/nullb0,xvdb,w,memshare=on,queues=2,weight=512,poller-cpus=1-2,iops-read=300,bps=1024G,burst-ms=250,guest-bps-write=2M,guest-burst-ms=300",
		NULL
	};
	/* What it must hold; fipc_bps needs 64 bits. */
	static const char * const want[] = {
		"\"backend\": \"phy1\"",
		"\"fipc_memshare\": \"True\"",
		"\"fipc_max_queues\": 2",
		"\"fipc_weight\": 512",
		"\"fipc_poller_cpus\": \"1-2\"",
		"\"fipc_iops_read\": 300",
		"\"fipc_bps\": 1099511627776",
		"\"fipc_burst_ms\": 250",
		"\"fipc_guest_bps_write\": 2097152",
		"\"fipc_guest_burst_ms\": 300",
	};
	libxl_device_disk d;
	char *report = NULL, *json, buf[512];
	const char *why = NULL;
	int rc = parse(specs, &d, &report);
	unsigned int i;

	CHECK(rc == 0, "parse failed: %s", report);
	json = libxl_device_disk_to_json(NULL, &d);
	for (i = 0; i < ARRAY_SIZE(want); i++)
		CHECK(json && strstr(json, want[i]), "JSON lacks %s: %s",
		      want[i], json);
	CHECK(json && !strstr(json, "\"fipc_iops\":") &&
	      !strstr(json, "\"fipc_bps_write\":") &&
	      !strstr(json, "\"fipc_guest_iops\":"),
	      "JSON has limits not given: %s", json);
	/* (Parsing JSON back needs a libxl_ctx, hence a running Xen.) */
	result("JSON of a phy1 disk (domain config, xl block-attach -n)", why);
	libxl_device_disk_dispose(&d);
	free(json);
	free(report);
}

static void test_backend_strings(void)
{
	libxl_disk_backend b;
	char buf[512];
	const char *why = NULL;

	CHECK(!strcmp(libxl_disk_backend_to_string(LIBXL_DISK_BACKEND_PHY1),
		      "phy1"),
	      "to_string: %s",
	      libxl_disk_backend_to_string(LIBXL_DISK_BACKEND_PHY1));
	CHECK(!libxl_disk_backend_from_string("phy1", &b) &&
	      b == LIBXL_DISK_BACKEND_PHY1,
	      "from_string(phy1) -> %d", b);
	CHECK(!libxl_disk_backend_from_string("phy", &b) &&
	      b == LIBXL_DISK_BACKEND_PHY,
	      "from_string(phy) -> %d", b);
	result("libxl_disk_backend phy1 <-> string", why);
}

#ifdef WITH_DEVNUM
static void test_devnum(void)
{
	static const struct {
		const char *vdev;
		int devid;
	} t[] = {
		{ "xvda", 51712 },
		{ "xvdb", 51728 },
		{ "xvdb1", 51729 },
		{ "xvdp", 51952 },
		{ "xvdq", (1 << 28) | (16 << 8) },
		{ "hda", 768 },
		{ "sdb", 2064 },
		{ "d1p0", 51728 },
		{ "51728", 51728 },
		{ "fipc15", -1 },
		{ "xvdb0", -1 },
		{ "xvdb256", -1 },
		{ "vda", -1 },
	};
	char name[64], buf[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		int got = libxl__device_disk_dev_number(t[i].vdev, NULL, NULL);
		const char *why = NULL;

		snprintf(name, sizeof(name), "vdev %s -> devid %d", t[i].vdev,
			 t[i].devid);
		CHECK(got == t[i].devid, "got %d", got);
		result(name, why);
	}
}
#endif

int main(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(goods); i++)
		test_good(&goods[i]);
	for (i = 0; i < ARRAY_SIZE(bads); i++)
		test_bad(&bads[i]);
	for (i = 0; i < ARRAY_SIZE(bad_values); i++)
		test_bad_values(&bad_values[i]);
	test_json();
	test_backend_strings();
#ifdef WITH_DEVNUM
	test_devnum();
#endif
	return failures ? 1 : 0;
}
