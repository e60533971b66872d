// SPDX-License-Identifier: GPL-2.0
/*
 * kstaled: a full-scan idle-page reclaimer in user space, in the style of
 * the kstaled thread described in the DAMON design discussions.  It is the
 * point of comparison for the CPU cost of DAMON_RECLAIM: its work grows
 * with the size of memory, DAMON's with the number of regions.
 *
 *   kstaled [--min-age-ms MS] [--interval-ms MS] [--cgroup DIR]
 *           [--pid PID]... [--stats FILE] [--no-pageout] [--once]
 *
 * Every interval it reads /sys/kernel/mm/page_idle/bitmap over all of
 * memory (every page frame up to max_pfn), notes for each frame when it
 * was last seen accessed, and marks every frame idle again.  Frames not
 * seen accessed for --min-age-ms are cold.  It then walks the address
 * spaces of the processes of --cgroup (cgroup.procs) and of each --pid
 * through /proc/PID/pagemap, and pages out their cold pages with
 * process_madvise(MADV_PAGEOUT).
 *
 * Counters (scans, time spent, bytes tried and really paged out, own CPU
 * time) are rewritten to --stats after every scan, as "key value" lines.
 * Bytes really paged out are the growth of pages written to swap across
 * the call.
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
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "reclaimer.h"

#ifndef BITMAP_PATH
#define BITMAP_PATH "/sys/kernel/mm/page_idle/bitmap"
#endif
/* Bitmap words per read: 8192 words cover 2 GiB of 4 KiB frames. */
#define CHUNK_WORDS 8192
/* process_madvise() takes at most this many ranges per call (UIO_MAXIOV). */
#define MAX_IOV 1024
#define PAGEMAP_BATCH 4096
#define PM_PRESENT (1ULL << 63)
#define PM_PFN_MASK ((1ULL << 55) - 1)
#define MAX_PIDS 256

struct config {
	uint64_t min_age_ms;
	uint64_t interval_ms;
	const char *cgroup;
	int pids[MAX_PIDS];
	int nr_pids;
	const char *stats;
	bool pageout;
	bool once;
};

struct counters {
	uint64_t scans;
	uint64_t scan_us;		/* time spent reading/writing the bitmap */
	uint64_t pageout_us;		/* time spent finding and paging out */
	uint64_t frames;		/* frames covered by the last scan */
	uint64_t cold_frames;		/* cold frames after the last scan */
	uint64_t tried_bytes;
	uint64_t reclaimed_bytes;
};

/* Per frame: monotonic time (ms since start) when it was last seen young. */
static uint32_t *last_young_ms;
static uint64_t nr_frames;
static long page_bytes;
static volatile sig_atomic_t stop;
static struct counters cnt;
static const char *stats_path;

static void write_stats(const char *path);

/* === Time and helpers === */

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static uint64_t start_us;

static uint32_t elapsed_ms(void)
{
	return (uint32_t)((now_us() - start_us) / 1000);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Grows the per-frame array; new frames count as young now. */
static void ensure_frames(uint64_t frames)
{
	uint32_t *grown, now = elapsed_ms();
	uint64_t i;

	if (frames <= nr_frames)
		return;
	grown = realloc(last_young_ms, frames * sizeof(*grown));
	if (!grown)
		die("kstaled: realloc");
	for (i = nr_frames; i < frames; i++)
		grown[i] = now;
	last_young_ms = grown;
	nr_frames = frames;
}

static bool frame_is_cold(uint64_t pfn, uint32_t now, uint64_t min_age_ms)
{
	return pfn < nr_frames && now - last_young_ms[pfn] >= min_age_ms;
}

/* === The full scan === */

/*
 * Reads the idle bitmap from the first frame to the end (the kernel stops
 * at max_pfn), records frames found young and marks all frames idle again.
 * A frame that is not an LRU page reads as young: it never becomes cold.
 */
static void scan_all_frames(int bitmap_fd, const struct config *cfg)
{
	static uint64_t words[CHUNK_WORDS], ones[CHUNK_WORDS];
	uint64_t t0 = now_us(), pfn_base = 0, cold = 0, pfn;
	off_t off = 0;
	ssize_t got;
	uint32_t now;
	size_t i, nr;

	if (!ones[0])
		memset(ones, 0xff, sizeof(ones));
	now = elapsed_ms();
	for (;;) {
		got = pread(bitmap_fd, words, sizeof(words), off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			die("kstaled: read " BITMAP_PATH);
		if (got == 0)
			break;
		nr = got / sizeof(uint64_t);
		ensure_frames(pfn_base + nr * 64);
		for (i = 0; i < nr; i++) {
			uint64_t young = ~words[i];

			while (young) {
				int bit = __builtin_ctzll(young);

				last_young_ms[pfn_base + i * 64 + bit] = now;
				young &= young - 1;
			}
		}
		if (pwrite(bitmap_fd, ones, nr * sizeof(uint64_t), off) < 0 &&
		    errno != EINTR)
			die("kstaled: write " BITMAP_PATH);
		/* sysfs hands out at most a page per read: go on until 0. */
		off += got;
		pfn_base += nr * 64;
	}
	for (pfn = 0; pfn < pfn_base; pfn++)
		cold += frame_is_cold(pfn, now, cfg->min_age_ms);
	cnt.frames = pfn_base;
	cnt.cold_frames = cold;
	cnt.scans++;
	cnt.scan_us += now_us() - t0;
}

/* === Paging out the cold pages of the target processes === */

struct pageout_batch {
	int pidfd;
	int pagemap_fd;
	struct iovec iov[MAX_IOV];
	int nr;
};

/*
 * Pages written to swap so far: pswpout, or the zram device's written
 * sectors on kernels without VM event counters.  The workload is anonymous
 * memory and zram the only swap, so the growth across a pageout call is
 * what that call reclaimed.
 */
static uint64_t swapped_out_pages(void)
{
	unsigned long long v[7];
	char key[64];
	FILE *f;

	f = fopen("/proc/vmstat", "r");
	if (f) {
		while (fscanf(f, "%63s %llu", key, &v[0]) == 2) {
			if (!strcmp(key, "pswpout")) {
				fclose(f);
				return v[0];
			}
		}
		fclose(f);
	}
	f = fopen("/sys/block/zram0/stat", "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
		v[6] = 0;
	fclose(f);
	return v[6] / 8;
}

static void flush_batch(struct pageout_batch *b)
{
	ssize_t advised;
	int i;

	uint64_t out0;

	if (!b->nr)
		return;
	out0 = swapped_out_pages();
	advised = syscall(SYS_process_madvise, b->pidfd, b->iov, b->nr,
			  MADV_PAGEOUT, 0);
	if (advised < 0) {
		/* The process may have exited, or unmapped a range. */
		for (i = 0; i < b->nr; i++)
			cnt.tried_bytes += b->iov[i].iov_len;
	} else {
		cnt.tried_bytes += advised;
	}
	cnt.reclaimed_bytes += (swapped_out_pages() - out0) * page_bytes;
	/* A pageout pass can take seconds: keep the counters current. */
	write_stats(stats_path);
	b->nr = 0;
}

static void add_page(struct pageout_batch *b, uintptr_t addr)
{
	struct iovec *last = b->nr ? &b->iov[b->nr - 1] : NULL;

	if (last && (uintptr_t)last->iov_base + last->iov_len == addr) {
		last->iov_len += page_bytes;
		return;
	}
	if (b->nr == MAX_IOV)
		flush_batch(b);
	b->iov[b->nr].iov_base = (void *)addr;
	b->iov[b->nr].iov_len = page_bytes;
	b->nr++;
}

/* Walks one mapping's page table entries and queues its cold pages. */
static void pageout_range(struct pageout_batch *b, uintptr_t start,
			  uintptr_t end, uint32_t now, uint64_t min_age_ms)
{
	uint64_t entries[PAGEMAP_BATCH];
	uintptr_t addr = start;

	while (addr < end && !stop) {
		size_t n = (end - addr) / page_bytes, j;
		ssize_t got;

		if (n > PAGEMAP_BATCH)
			n = PAGEMAP_BATCH;
		got = pread(b->pagemap_fd, entries, n * sizeof(uint64_t),
			    addr / page_bytes * sizeof(uint64_t));
		if (got <= 0)
			return;
		n = got / sizeof(uint64_t);
		for (j = 0; j < n; j++) {
			uint64_t e = entries[j];

			if ((e & PM_PRESENT) &&
			    frame_is_cold(e & PM_PFN_MASK, now, min_age_ms))
				add_page(b, addr + j * page_bytes);
		}
		addr += n * page_bytes;
	}
}

static void pageout_process(int pid, const struct config *cfg, uint32_t now)
{
	static struct pageout_batch b;
	char path[64], line[512];
	FILE *maps;

	b.pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (b.pidfd < 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	b.pagemap_fd = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = fopen(path, "r");
	if (b.pagemap_fd < 0 || !maps)
		goto out;
	b.nr = 0;
	while (fgets(line, sizeof(line), maps) && !stop) {
		unsigned long start, end;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3)
			continue;
		/* Special mappings ([vvar], [vdso], ...) and PROT_NONE guards. */
		if (strstr(line, "[v") || !strcmp(perms, "---p"))
			continue;
		pageout_range(&b, start, end, now, cfg->min_age_ms);
	}
	flush_batch(&b);
out:
	if (maps)
		fclose(maps);
	if (b.pagemap_fd >= 0)
		close(b.pagemap_fd);
	close(b.pidfd);
}

static void pageout_cold_pages(const struct config *cfg)
{
	uint64_t t0 = now_us();
	uint32_t now = elapsed_ms();
	char path[4096];
	FILE *procs;
	int i, pid;

	for (i = 0; i < cfg->nr_pids; i++)
		pageout_process(cfg->pids[i], cfg, now);
	if (cfg->cgroup) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", cfg->cgroup);
		procs = fopen(path, "r");
		if (procs) {
			while (fscanf(procs, "%d", &pid) == 1 && !stop)
				pageout_process(pid, cfg, now);
			fclose(procs);
		}
	}
	cnt.pageout_us += now_us() - t0;
}

/* === Statistics === */

/* Rewrites the statistics file @path, if any (see stats_open()). */
static void write_stats(const char *path)
{
	struct stats_file s;

	if (!stats_open(&s, path))
		return;
	fprintf(s.f, "scans %llu\nscan_us %llu\npageout_us %llu\n"
		"frames %llu\ncold_bytes %llu\ntried_bytes %llu\n"
		"reclaimed_bytes %llu\nutime_us %llu\nstime_us %llu\n",
		(unsigned long long)cnt.scans,
		(unsigned long long)cnt.scan_us,
		(unsigned long long)cnt.pageout_us,
		(unsigned long long)cnt.frames,
		(unsigned long long)(cnt.cold_frames * page_bytes),
		(unsigned long long)cnt.tried_bytes,
		(unsigned long long)cnt.reclaimed_bytes,
		(unsigned long long)s.utime_us,
		(unsigned long long)s.stime_us);
	stats_close(&s);
}

/* === Main loop === */

static void usage(void)
{
	fprintf(stderr,
		"usage: kstaled [--min-age-ms MS] [--interval-ms MS] [--cgroup DIR]\n"
		"               [--pid PID]... [--stats FILE] [--no-pageout] [--once]\n");
	exit(2);
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option opts[] = {
		{ "min-age-ms", required_argument, NULL, 'a' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "stats", required_argument, NULL, 's' },
		{ "no-pageout", no_argument, NULL, 'n' },
		{ "once", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	cfg->min_age_ms = 5000;
	cfg->interval_ms = 1000;
	cfg->pageout = true;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			cfg->min_age_ms = parse_u64(optarg, usage);
			break;
		case 'i':
			cfg->interval_ms = parse_u64(optarg, usage);
			break;
		case 'c':
			cfg->cgroup = optarg;
			break;
		case 'p':
			if (cfg->nr_pids == MAX_PIDS)
				usage();
			cfg->pids[cfg->nr_pids++] =
				(int)parse_u64(optarg, usage);
			break;
		case 's':
			cfg->stats = optarg;
			break;
		case 'n':
			cfg->pageout = false;
			break;
		case 'o':
			cfg->once = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !cfg->interval_ms)
		usage();
	/* Ages are kept in 32-bit milliseconds. */
	if (cfg->min_age_ms > UINT32_MAX)
		cfg->min_age_ms = UINT32_MAX;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct config cfg = { 0 };
	int bitmap_fd;

	parse_args(argc, argv, &cfg);
	stats_path = cfg.stats;
	page_bytes = sysconf(_SC_PAGESIZE);
	start_us = now_us();
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	bitmap_fd = open(BITMAP_PATH, O_RDWR);
	if (bitmap_fd < 0)
		die("kstaled: open " BITMAP_PATH);

	while (!stop) {
		uint64_t t0 = now_us(), spent_us, interval_us;

		scan_all_frames(bitmap_fd, &cfg);
		if (cfg.pageout && cnt.cold_frames)
			pageout_cold_pages(&cfg);
		write_stats(cfg.stats);
		if (cfg.once)
			break;
		spent_us = now_us() - t0;
		interval_us = cfg.interval_ms * 1000;
		if (spent_us < interval_us && !stop)
			usleep(interval_us - spent_us);
	}
	write_stats(cfg.stats);
	printf("kstaled: %llu scans of %llu frames, %.1f s scanning, "
	       "%.1f s paging out; tried %llu MiB, paged out %llu MiB\n",
	       (unsigned long long)cnt.scans, (unsigned long long)cnt.frames,
	       cnt.scan_us / 1e6, cnt.pageout_us / 1e6,
	       (unsigned long long)(cnt.tried_bytes >> 20),
	       (unsigned long long)(cnt.reclaimed_bytes >> 20));
	return 0;
}
