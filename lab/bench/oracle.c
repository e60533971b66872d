// SPDX-License-Identifier: GPL-2.0
/*
 * oracle: the perfect reclaimer of the hotcold workload, for the benchmark's
 * "floor" variant.  It does not look for cold memory: it is told where it is
 * (with redis, the whole heap of redis-server, once: see --once).
 *
 *   oracle --pid PID --addr ADDR --length BYTES [--min-age-ms MS]
 *          [--interval-ms MS] [--once] [--chunk-kib KIB] [--stats FILE]
 *
 * lab/bench/guest.sh starts it when hotcold prints where its cold part is
 * (right after the fill), or once redis-server has its keys.  It waits --min-age-ms (default 5000), the age
 * at which the other reclaimers call memory cold, then pages out the cold
 * part of process PID (ADDR, BYTES) with process_madvise(MADV_PAGEOUT),
 * --chunk-kib (default 2048) per call.  MADV_PAGEOUT hands the pages to
 * reclaim_pages() in the caller's context, as DAMON's pageout does, so the
 * CPU time of those calls is what the kernel's swap-out of exactly the cold
 * pages costs while the workload runs: isolating, unmapping, compressing
 * and writing them, with no access check at all.  That first pass is the
 * measurement: its CPU time (CLOCK_THREAD_CPUTIME_ID over the calls), wall
 * time, the pages it swapped out (growth of the pages written to swap, see
 * swap_io_pages()) and their quotient, microseconds per page.
 *
 * It then repeats the pass every --interval-ms (default 1000; later passes
 * find little or nothing to do) until SIGUSR1 (the measured phase is over:
 * no more passes, wait for SIGTERM) or SIGTERM (exit).  With --once there
 * is no later pass: for a range that holds hot memory too (redis-server's
 * heap), which later passes would page out again and again.
 *
 * --stats gets "key value" lines, in the format of kstaled.c and pressure.c
 * (tried_bytes, reclaimed_bytes, utime_us, stime_us: what monitor.c and
 * report.py read), rewritten at the start, during and after every pass and
 * at the end, plus the first pass's figures (pass1_*, us_per_page).
 * tried_bytes are the bytes advised by the first pass, reclaimed_bytes the
 * pages written to swap across all passes; later passes' bytes advised are
 * "repass_bytes".
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
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "reclaimer.h"
#include "swapio.h"

/* Chunks between two updates of the statistics during a pass. */
#define STATS_EVERY 32

struct config {
	long pid;
	uint64_t addr;
	uint64_t length;
	uint64_t min_age_ms;
	uint64_t interval_ms;
	uint64_t chunk;
	bool once;
	const char *stats;
};

struct counters {
	uint64_t passes;		/* passes completed */
	uint64_t tried_bytes;		/* advised by the first pass */
	uint64_t repass_bytes;		/* advised by later passes */
	uint64_t reclaimed_bytes;	/* swapped out during all passes */
	uint64_t errors;		/* failed process_madvise() calls */
	/* The first pass. */
	bool pass1_done;
	uint64_t pass1_advised_bytes;
	uint64_t pass1_pages;
	uint64_t pass1_cpu_ns;
	uint64_t pass1_wall_ns;
};

static volatile sig_atomic_t over, stop;
static struct counters cnt;
static long page_bytes;

static void on_usr1(int sig)
{
	(void)sig;
	over = 1;
}

static void on_term(int sig)
{
	(void)sig;
	over = stop = 1;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Pages written to swap so far (see swap_io_pages()), -1 if unknown. */
static long long pages_swapped_out(void)
{
	long long in, out;

	swap_io_pages(&in, &out);
	return out;
}

/* Rewrites the statistics file @path, if any (see stats_open()). */
static void write_stats(const char *path)
{
	struct stats_file s;

	if (!stats_open(&s, path))
		return;
	fprintf(s.f, "passes %llu\ntried_bytes %llu\nrepass_bytes %llu\n"
		"reclaimed_bytes %llu\nerrors %llu\nutime_us %llu\n"
		"stime_us %llu\npass1_done %d\npass1_advised_bytes %llu\n"
		"pass1_pages %llu\npass1_cpu_us %llu\npass1_wall_us %llu\n",
		(unsigned long long)cnt.passes,
		(unsigned long long)cnt.tried_bytes,
		(unsigned long long)cnt.repass_bytes,
		(unsigned long long)cnt.reclaimed_bytes,
		(unsigned long long)cnt.errors,
		(unsigned long long)s.utime_us,
		(unsigned long long)s.stime_us,
		cnt.pass1_done,
		(unsigned long long)cnt.pass1_advised_bytes,
		(unsigned long long)cnt.pass1_pages,
		(unsigned long long)(cnt.pass1_cpu_ns / 1000),
		(unsigned long long)(cnt.pass1_wall_ns / 1000));
	/* Only of a whole first pass that swapped something out. */
	if (cnt.pass1_done && cnt.pass1_pages)
		fprintf(s.f, "us_per_page %.2f\n",
			cnt.pass1_cpu_ns / 1000.0 / cnt.pass1_pages);
	stats_close(&s);
}

/*
 * Sleeps until @deadline_ns (CLOCK_MONOTONIC) or until the measured phase
 * is over.  Returns false in the second case.
 */
static bool sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = deadline_ns / 1000000000,
		.tv_nsec = deadline_ns % 1000000000,
	};

	while (!over) {
		if (!clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			return !over;
	}
	return false;
}

/*
 * One pass over the cold part, a chunk per process_madvise() call.  The
 * first pass is timed call by call (thread CPU time), so that neither the
 * statistics nor the swap counters it reads in between count.  Returns
 * false when the process is gone.
 */
static bool pageout_pass(int pidfd, const struct config *cfg)
{
	bool first = !cnt.passes;
	uint64_t off, wall0 = clock_ns(CLOCK_MONOTONIC), cpu = 0;
	long long out0 = pages_swapped_out(), last = out0, now;
	unsigned long chunks = 0;
	bool alive = true;

	for (off = 0; off < cfg->length && !over; off += cfg->chunk) {
		struct iovec iov = {
			.iov_base = (void *)(uintptr_t)(cfg->addr + off),
			.iov_len = cfg->length - off < cfg->chunk ?
				   cfg->length - off : cfg->chunk,
		};
		uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		ssize_t advised = syscall(SYS_process_madvise, pidfd, &iov, 1,
					  MADV_PAGEOUT, 0);

		cpu += clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		if (advised < 0) {
			if (!cnt.errors++)
				perror("oracle: process_madvise(MADV_PAGEOUT)");
			if (errno == ESRCH) {
				alive = false;
				break;
			}
			continue;
		}
		if (first)
			cnt.tried_bytes += advised;
		else
			cnt.repass_bytes += advised;
		if (++chunks % STATS_EVERY == 0) {
			/* Keep the counters current: a pass can take seconds. */
			now = pages_swapped_out();
			if (last >= 0 && now > last)
				cnt.reclaimed_bytes += (now - last) * page_bytes;
			last = now;
			write_stats(cfg->stats);
		}
	}
	now = pages_swapped_out();
	if (last >= 0 && now > last)
		cnt.reclaimed_bytes += (now - last) * page_bytes;
	if (first) {
		cnt.pass1_done = off >= cfg->length;
		cnt.pass1_advised_bytes = cnt.tried_bytes;
		cnt.pass1_pages = out0 >= 0 && now > out0 ? now - out0 : 0;
		cnt.pass1_cpu_ns = cpu;
		cnt.pass1_wall_ns = clock_ns(CLOCK_MONOTONIC) - wall0;
	}
	if (off >= cfg->length)
		cnt.passes++;
	write_stats(cfg->stats);
	return alive;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: oracle --pid PID --addr ADDR --length BYTES [--min-age-ms MS]\n"
		"              [--interval-ms MS] [--once] [--chunk-kib KIB]\n"
		"              [--stats FILE]\n");
	exit(2);
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "addr", required_argument, NULL, 'a' },
		{ "length", required_argument, NULL, 'l' },
		{ "min-age-ms", required_argument, NULL, 'm' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "once", no_argument, NULL, 'o' },
		{ "chunk-kib", required_argument, NULL, 'c' },
		{ "stats", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	cfg->min_age_ms = 5000;
	cfg->interval_ms = 1000;
	cfg->chunk = 2048 * 1024;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			cfg->pid = (long)parse_u64(optarg, usage);
			break;
		case 'a':
			cfg->addr = parse_u64(optarg, usage);
			break;
		case 'l':
			cfg->length = parse_u64(optarg, usage);
			break;
		case 'm':
			cfg->min_age_ms = parse_u64(optarg, usage);
			break;
		case 'i':
			cfg->interval_ms = parse_u64(optarg, usage);
			break;
		case 'o':
			cfg->once = true;
			break;
		case 'c':
			cfg->chunk = parse_u64(optarg, usage) * 1024;
			break;
		case 's':
			cfg->stats = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || cfg->pid <= 0 || !cfg->length ||
	    !cfg->interval_ms || !cfg->chunk ||
	    cfg->addr % page_bytes || cfg->length % page_bytes ||
	    cfg->chunk % page_bytes)
		usage();
}

int main(int argc, char **argv)
{
	struct sigaction usr1 = { .sa_handler = on_usr1 };
	struct sigaction term = { .sa_handler = on_term };
	struct config cfg = { 0 };
	uint64_t start_ns, next_ns;
	int pidfd;

	start_ns = clock_ns(CLOCK_MONOTONIC);
	page_bytes = sysconf(_SC_PAGESIZE);
	parse_args(argc, argv, &cfg);
	sigaction(SIGUSR1, &usr1, NULL);
	sigaction(SIGTERM, &term, NULL);
	sigaction(SIGINT, &term, NULL);
	/* Now, so that a pid reused later cannot be the target. */
	pidfd = syscall(SYS_pidfd_open, (pid_t)cfg.pid, 0);
	if (pidfd < 0) {
		perror("oracle: pidfd_open");
		return 1;
	}
	write_stats(cfg.stats);

	next_ns = start_ns + cfg.min_age_ms * 1000000;
	while (sleep_until(next_ns)) {
		next_ns = clock_ns(CLOCK_MONOTONIC) + cfg.interval_ms * 1000000;
		if (!pageout_pass(pidfd, &cfg))
			break;
		if (cnt.passes == 1 && cnt.pass1_done) {
			printf("oracle: first pass: advised %llu MiB, %llu pages "
			       "swapped out in %.1f ms of CPU (%.1f ms wall): ",
			       (unsigned long long)(cnt.pass1_advised_bytes >> 20),
			       (unsigned long long)cnt.pass1_pages,
			       cnt.pass1_cpu_ns / 1e6, cnt.pass1_wall_ns / 1e6);
			if (cnt.pass1_pages)
				printf("%.1f us per page\n",
				       cnt.pass1_cpu_ns / 1e3 / cnt.pass1_pages);
			else
				printf("nothing swapped out (no swap?)\n");
			fflush(stdout);
		}
		if (cfg.once)
			break;
	}
	write_stats(cfg.stats);
	printf("oracle: %llu passes; advised %llu MiB in the first, %llu MiB "
	       "in later ones; %llu MiB swapped out; %llu errors%s\n",
	       (unsigned long long)cnt.passes,
	       (unsigned long long)(cnt.tried_bytes >> 20),
	       (unsigned long long)(cnt.repass_bytes >> 20),
	       (unsigned long long)(cnt.reclaimed_bytes >> 20),
	       (unsigned long long)cnt.errors,
	       cnt.pass1_done ? "" : "; the first pass did not finish");
	fflush(stdout);
	/* After the measured phase: stay (the monitor reads our CPU time). */
	while (!stop)
		usleep(100000);
	close(pidfd);
	return 0;
}
