// SPDX-License-Identifier: GPL-2.0
/*
 * monitor: samples, once per interval, what the benchmark reports on, and
 * appends it as one CSV line.  It runs inside the lab guest, next to the
 * workload and the reclaimer under test, so it is a small C program that
 * only reads files (a shell loop would fork and skew the numbers under
 * TCG).
 *
 *   monitor --out FILE [--interval-ms MS] [--cgroup DIR]
 *           [--damon | --stats FILE --pid-file FILE]
 *
 * --damon reads DAMON_RECLAIM's statistics and kdamond_pid from
 * /sys/module/damon_reclaim/parameters; --stats reads "tried_bytes" and
 * "reclaimed_bytes" from a user-space reclaimer's statistics file and
 * --pid-file names its process.  The reclaimer's CPU time is utime +
 * stime of /proc/PID/stat in both cases.
 *
 * SIGUSR1 moves to the next phase (0: workload set-up, 1: measured phase,
 * 2: after it) and takes a sample at once; SIGTERM takes a last sample and
 * exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "swapio.h"

#define DAMON_PARAMS "/sys/module/damon_reclaim/parameters/"

struct config {
	const char *out;
	uint64_t interval_ms;
	const char *cgroup;
	bool damon;
	const char *stats;
	const char *pid_file;
};

static volatile sig_atomic_t phase, phase_changed, stop;

static void on_usr1(int sig)
{
	(void)sig;
	phase++;
	phase_changed = 1;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* === Readers: each returns -1 when the source is missing === */

static long long read_ll(const char *path)
{
	long long v;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static long long meminfo_bytes(const char *key)
{
	long long kib = read_keyed("/proc/meminfo", key);

	return kib < 0 ? -1 : kib * 1024;
}

/* Fields of /sys/block/zram0/mm_stat: original, compressed, pool bytes. */
static void zram_stat(long long v[3])
{
	FILE *f = fopen("/sys/block/zram0/mm_stat", "r");

	v[0] = v[1] = v[2] = -1;
	if (!f)
		return;
	if (fscanf(f, "%lld %lld %lld", &v[0], &v[1], &v[2]) != 3)
		v[0] = v[1] = v[2] = -1;
	fclose(f);
}

/* utime + stime of a process, in clock ticks. */
static long long cpu_ticks(long long pid)
{
	unsigned long long utime, stime;
	char path[64], buf[1024], *p;
	size_t got;
	FILE *f;
	int i;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%lld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	got = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[got] = '\0';
	/* The command name may hold spaces: count fields after its ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	p++;
	/* utime and stime are fields 14 and 15; field 3 follows the ')'. */
	for (i = 3; i < 14 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu %llu", &utime, &stime) != 2)
		return -1;
	return utime + stime;
}

static long long cgroup_value(const struct config *cfg, const char *file,
			      const char *key)
{
	char path[4096];

	if (!cfg->cgroup)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", cfg->cgroup, file);
	return key ? read_keyed(path, key) : read_ll(path);
}

/* Major faults: the whole system's, else the cgroup's memory.stat. */
static long long major_faults(const struct config *cfg)
{
	long long v = read_keyed("/proc/vmstat", "pgmajfault");

	return v >= 0 ? v : cgroup_value(cfg, "memory.stat", "pgmajfault");
}

/*
 * The sum over CPUs of one row of /proc/interrupts (x86), -1 if missing.
 * "TLB": TLB shootdowns.  "CAL": function-call IPIs, which is how a flush
 * that is not waited for arrives (and other cross-CPU calls, the same in
 * every variant).  Each interrupts the workload's CPU, and under TCG a
 * waited-for one costs the sender far more than on hardware.
 */
static long long interrupts_row(const char *row)
{
	FILE *f = fopen("/proc/interrupts", "r");
	size_t len = strlen(row);
	long long sum = -1, v;
	char line[4096], *p, *end;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (strncmp(p, row, len) || p[len] != ':')
			continue;
		sum = 0;
		for (p += len + 1; ; p = end) {
			v = strtoll(p, &end, 10);
			if (end == p)
				break;
			sum += v;
		}
		break;
	}
	fclose(f);
	return sum;
}

/* === Sampling === */

static const char header[] =
	"t_s,phase,mem_total,mem_free,mem_available,cached,swap_used,"
	"zram_orig,zram_compr,zram_pool,cg_current,cg_swap,pswpin,pswpout,"
	"pgmajfault,refaults,reclaimer_pid,reclaimer_ticks,tried_bytes,"
	"reclaimed_bytes,tlb_shootdowns,call_ipis\n";

static void sample(FILE *out, const struct config *cfg, double t0)
{
	long long zram[3], pid = -1, tried = -1, reclaimed = -1, swpin, swpout;
	long long refault_anon, refault_file, swap_total, swap_free;

	zram_stat(zram);
	swap_io_pages(&swpin, &swpout);
	if (cfg->damon) {
		pid = read_ll(DAMON_PARAMS "kdamond_pid");
		tried = read_ll(DAMON_PARAMS "bytes_reclaim_tried_regions");
		reclaimed = read_ll(DAMON_PARAMS "bytes_reclaimed_regions");
	} else if (cfg->stats) {
		tried = read_keyed(cfg->stats, "tried_bytes");
		reclaimed = read_keyed(cfg->stats, "reclaimed_bytes");
	}
	if (cfg->pid_file)
		pid = read_ll(cfg->pid_file);
	refault_anon = read_keyed("/proc/vmstat", "workingset_refault_anon");
	refault_file = read_keyed("/proc/vmstat", "workingset_refault_file");
	swap_total = meminfo_bytes("SwapTotal");
	swap_free = meminfo_bytes("SwapFree");

	fprintf(out, "%.2f,%d,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,"
		"%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld\n",
		now_s() - t0, (int)phase,
		meminfo_bytes("MemTotal"), meminfo_bytes("MemFree"),
		meminfo_bytes("MemAvailable"), meminfo_bytes("Cached"),
		swap_total - swap_free, zram[0], zram[1], zram[2],
		cgroup_value(cfg, "memory.current", NULL),
		cgroup_value(cfg, "memory.swap.current", NULL),
		swpin, swpout, major_faults(cfg),
		refault_anon + refault_file, pid, cpu_ticks(pid),
		tried, reclaimed, interrupts_row("TLB"),
		interrupts_row("CAL"));
	fflush(out);
}

/* === Main === */

static void usage(void)
{
	fprintf(stderr,
		"usage: monitor --out FILE [--interval-ms MS] [--cgroup DIR]\n"
		"               [--damon | --stats FILE --pid-file FILE]\n");
	exit(2);
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "damon", no_argument, NULL, 'd' },
		{ "stats", required_argument, NULL, 's' },
		{ "pid-file", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	cfg->interval_ms = 1000;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			cfg->out = optarg;
			break;
		case 'i':
			cfg->interval_ms = strtoull(optarg, &end, 10);
			if (*end || !cfg->interval_ms)
				usage();
			break;
		case 'c':
			cfg->cgroup = optarg;
			break;
		case 'd':
			cfg->damon = true;
			break;
		case 's':
			cfg->stats = optarg;
			break;
		case 'p':
			cfg->pid_file = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !cfg->out)
		usage();
}

int main(int argc, char **argv)
{
	struct sigaction usr1 = { .sa_handler = on_usr1 };
	struct sigaction term = { .sa_handler = on_term };
	struct config cfg = { 0 };
	struct timespec next;
	double t0;
	FILE *out;

	parse_args(argc, argv, &cfg);
	sigaction(SIGUSR1, &usr1, NULL);
	sigaction(SIGTERM, &term, NULL);
	sigaction(SIGINT, &term, NULL);
	out = fopen(cfg.out, "w");
	if (!out) {
		perror("monitor: open output");
		return 1;
	}
	fputs(header, out);
	t0 = now_s();
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop) {
		sample(out, &cfg, t0);
		/* After an extra sample for a phase change, keep the beat. */
		if (!phase_changed) {
			next.tv_sec += cfg.interval_ms / 1000;
			next.tv_nsec += (cfg.interval_ms % 1000) * 1000000;
			if (next.tv_nsec >= 1000000000) {
				next.tv_sec++;
				next.tv_nsec -= 1000000000;
			}
		}
		phase_changed = 0;
		/* A signal cuts the sleep short: sample a phase change now. */
		while (!stop && !phase_changed &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
	}
	sample(out, &cfg, t0);
	fclose(out);
	return 0;
}
