// SPDX-License-Identifier: GPL-2.0
/*
 * pressure: a pressure-driven proactive reclaimer for one cgroup v2, in
 * the style of user-space agents that write to memory.reclaim and back off
 * when the workload starts to feel it.
 *
 *   pressure --cgroup DIR [--interval-ms MS] [--budget-ms MS]
 *            [--psi-permil P] [--refault-pages N] [--stats FILE]
 *
 * Every interval it reads the cgroup's memory pressure ("some avg10" of
 * memory.pressure) and its refaults (workingset_refault_anon + _file of
 * memory.stat).  When the pressure is above --psi-permil per-thousand or
 * more than --refault-pages pages refaulted since the last interval, it
 * halves its step and skips the interval.  Otherwise it asks
 * memory.reclaim for one step of bytes.  The step doubles after a request
 * that was met within the time budget (--budget-ms per interval, like
 * DAMON_RECLAIM's quota_ms per second) and shrinks in proportion when a
 * request took longer.
 *
 * Bytes tried are the bytes asked for; bytes reclaimed are the cgroup's
 * pgsteal growth across the writes.  Counters and own CPU time are
 * rewritten to --stats after every interval, as "key value" lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "reclaimer.h"

#define MIN_STEP_BYTES (128ULL << 10)
#define MAX_STEP_BYTES (512ULL << 20)

struct config {
	const char *cgroup;
	uint64_t interval_ms;
	uint64_t budget_ms;
	uint64_t psi_permil;	/* of "some avg10", which is in percent */
	uint64_t refault_pages;
	const char *stats;
};

struct counters {
	uint64_t intervals;
	uint64_t backoffs;
	uint64_t requests;
	uint64_t tried_bytes;
	uint64_t reclaimed_bytes;
	uint64_t reclaim_us;
	uint64_t step_bytes;
};

static volatile sig_atomic_t stop;
static struct counters cnt;
static long page_bytes;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void cg_path(char *buf, size_t len, const struct config *cfg,
		    const char *file)
{
	snprintf(buf, len, "%s/%s", cfg->cgroup, file);
}

/* Sum of the memory.stat values of the given keys; 0 if unreadable. */
static uint64_t memory_stat(const struct config *cfg, const char *const *keys)
{
	char path[4096], key[64];
	unsigned long long v;
	uint64_t sum = 0;
	FILE *f;
	int i;

	cg_path(path, sizeof(path), cfg, "memory.stat");
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fscanf(f, "%63s %llu", key, &v) == 2) {
		for (i = 0; keys[i]; i++)
			if (!strcmp(key, keys[i]))
				sum += v;
	}
	fclose(f);
	return sum;
}

static const char *const refault_keys[] = {
	"workingset_refault_anon", "workingset_refault_file", NULL
};
static const char *const pgsteal_keys[] = { "pgsteal", NULL };

/* "some avg10" of memory.pressure in hundredths of a percent. */
static uint64_t psi_some_avg10_centi(const struct config *cfg)
{
	char path[4096];
	unsigned int whole = 0, frac = 0;
	FILE *f;

	cg_path(path, sizeof(path), cfg, "memory.pressure");
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "some avg10=%u.%u", &whole, &frac) != 2)
		whole = frac = 0;
	fclose(f);
	return (uint64_t)whole * 100 + frac;
}

static uint64_t memory_current(const struct config *cfg)
{
	char path[4096];
	unsigned long long v = 0;
	FILE *f;

	cg_path(path, sizeof(path), cfg, "memory.current");
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* Asks memory.reclaim for @bytes; returns the microseconds it took. */
static uint64_t reclaim_step(const struct config *cfg, uint64_t bytes)
{
	uint64_t t0 = now_us(), steal0, steal1;
	char path[4096], buf[32];
	int fd, len;

	cg_path(path, sizeof(path), cfg, "memory.reclaim");
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		perror("pressure: open memory.reclaim");
		exit(1);
	}
	len = snprintf(buf, sizeof(buf), "%llu", (unsigned long long)bytes);
	steal0 = memory_stat(cfg, pgsteal_keys);
	/* EAGAIN: less than asked could be reclaimed; that is an answer. */
	if (write(fd, buf, len) < 0 && errno != EAGAIN && errno != EINTR)
		perror("pressure: write memory.reclaim");
	close(fd);
	steal1 = memory_stat(cfg, pgsteal_keys);
	cnt.requests++;
	cnt.tried_bytes += bytes;
	cnt.reclaimed_bytes += (steal1 - steal0) * page_bytes;
	return now_us() - t0;
}

static uint64_t clamp_step(uint64_t step)
{
	if (step < MIN_STEP_BYTES)
		return MIN_STEP_BYTES;
	if (step > MAX_STEP_BYTES)
		return MAX_STEP_BYTES;
	return step;
}

/* Rewrites the statistics file @path, if any (see stats_open()). */
static void write_stats(const char *path)
{
	struct stats_file s;

	if (!stats_open(&s, path))
		return;
	fprintf(s.f, "intervals %llu\nbackoffs %llu\nrequests %llu\n"
		"tried_bytes %llu\nreclaimed_bytes %llu\nreclaim_us %llu\n"
		"step_bytes %llu\nutime_us %llu\nstime_us %llu\n",
		(unsigned long long)cnt.intervals,
		(unsigned long long)cnt.backoffs,
		(unsigned long long)cnt.requests,
		(unsigned long long)cnt.tried_bytes,
		(unsigned long long)cnt.reclaimed_bytes,
		(unsigned long long)cnt.reclaim_us,
		(unsigned long long)cnt.step_bytes,
		(unsigned long long)s.utime_us,
		(unsigned long long)s.stime_us);
	stats_close(&s);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: pressure --cgroup DIR [--interval-ms MS] [--budget-ms MS]\n"
		"                [--psi-permil P] [--refault-pages N] [--stats FILE]\n");
	exit(2);
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option opts[] = {
		{ "cgroup", required_argument, NULL, 'c' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "budget-ms", required_argument, NULL, 'b' },
		{ "psi-permil", required_argument, NULL, 'p' },
		{ "refault-pages", required_argument, NULL, 'r' },
		{ "stats", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	cfg->interval_ms = 1000;
	cfg->budget_ms = 50;
	cfg->psi_permil = 1;
	cfg->refault_pages = 256;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cfg->cgroup = optarg;
			break;
		case 'i':
			cfg->interval_ms = parse_u64(optarg, usage);
			break;
		case 'b':
			cfg->budget_ms = parse_u64(optarg, usage);
			break;
		case 'p':
			cfg->psi_permil = parse_u64(optarg, usage);
			break;
		case 'r':
			cfg->refault_pages = parse_u64(optarg, usage);
			break;
		case 's':
			cfg->stats = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !cfg->cgroup || !cfg->interval_ms)
		usage();
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t refaults, prev_refaults, budget_us;
	struct config cfg = { 0 };

	parse_args(argc, argv, &cfg);
	page_bytes = sysconf(_SC_PAGESIZE);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* 0 means no time budget, as quota_ms 0 does for DAMON_RECLAIM. */
	budget_us = cfg.budget_ms ? cfg.budget_ms * 1000 : UINT64_MAX;
	cnt.step_bytes = clamp_step(memory_current(&cfg) / 100);
	prev_refaults = memory_stat(&cfg, refault_keys);

	while (!stop) {
		uint64_t spent_us, psi;

		usleep(cfg.interval_ms * 1000);
		if (stop)
			break;
		cnt.intervals++;
		refaults = memory_stat(&cfg, refault_keys);
		psi = psi_some_avg10_centi(&cfg);
		/* psi is in 1/100 %, i.e. 1/10 per-thousand. */
		if (psi > cfg.psi_permil * 10 ||
		    refaults - prev_refaults > cfg.refault_pages) {
			cnt.backoffs++;
			cnt.step_bytes = clamp_step(cnt.step_bytes / 2);
			prev_refaults = refaults;
			write_stats(cfg.stats);
			continue;
		}
		prev_refaults = refaults;
		spent_us = reclaim_step(&cfg, cnt.step_bytes);
		cnt.reclaim_us += spent_us;
		if (spent_us > budget_us)
			cnt.step_bytes = clamp_step(cnt.step_bytes * budget_us /
						    spent_us);
		else if (spent_us < budget_us / 2)
			cnt.step_bytes = clamp_step(cnt.step_bytes * 2);
		write_stats(cfg.stats);
	}
	write_stats(cfg.stats);
	printf("pressure: %llu intervals, %llu backoffs, tried %llu MiB, reclaimed %llu MiB in %.1f s\n",
	       (unsigned long long)cnt.intervals,
	       (unsigned long long)cnt.backoffs,
	       (unsigned long long)(cnt.tried_bytes >> 20),
	       (unsigned long long)(cnt.reclaimed_bytes >> 20),
	       cnt.reclaim_us / 1e6);
	return 0;
}
