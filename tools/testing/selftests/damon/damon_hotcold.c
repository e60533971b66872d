// SPDX-License-Identifier: GPL-2.0
/*
 * damon_hotcold: a workload for the DAMON access-check and pageout tests.
 *
 * Maps anonymous areas, fills them with compressible non-zero data that is
 * different on every page, keeps the "hot" area accessed by sweeping it in
 * a loop and leaves the others alone: "cold", "mlock" (mlocked) and "thp"
 * (MADV_HUGEPAGE), but for "written", of which it rewrites a few pages
 * picked at random after each sweep, each with a new generation number, so
 * that writes race with pageout.  Reads one command per line on standard
 * input and answers with one line on standard output:
 *
 *   status      resident pages of each area (mincore()), VmRSS, VmLck and
 *               AnonHugePages
 *   verify      compares every byte with what was last written
 *   trace FILE  classifies the damon:damon_aggregated records of FILE by
 *               the physical pages of the hot and cold areas (from
 *               /proc/self/pagemap, which needs root) and counts how many
 *               of each kind report accesses
 *   quit        unmaps everything and exits
 *
 * Prints "ready" once the areas are filled.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MIB		(1024UL * 1024)
#define HPAGE_SIZE	(2UL * MIB)

enum area_kind { HOT, COLD, MLOCKED, THP, WRITTEN, NR_AREAS };

static const char * const area_names[NR_AREAS] = {
	"hot", "cold", "mlock", "thp", "written",
};

struct area {
	char *start;
	size_t len;
	size_t nr_pages;
	size_t first_page;	/* index of its first page over all areas */
};

static struct area areas[NR_AREAS];
/* Generation of each page of the written area: how often it was rewritten. */
static uint64_t *generations;
static size_t page_size;
static char *page_template;
/* Sweeps of the hot area so far, and when the first one started. */
static unsigned long nr_sweeps;
static double first_sweep_s;

static void die(const char *what)
{
	printf("error %s: %s\n", what, strerror(errno));
	exit(1);
}

/* === Contents: compressible, non-zero, different on every page === */

static void make_template(void)
{
	static const char line[] =
		"damon_hotcold: compressible data that is not zero pages\n";
	size_t i;

	page_template = malloc(page_size);
	if (!page_template)
		die("malloc");
	for (i = 0; i < page_size; i++)
		page_template[i] = line[i % (sizeof(line) - 1)];
}

/* Page number @index, written for the @gen-th time (0 for the first). */
static void fill_page(char *page, uint64_t index, uint64_t gen)
{
	memcpy(page, page_template, page_size);
	memcpy(page, &index, sizeof(index));
	memcpy(page + sizeof(index), &gen, sizeof(gen));
}

static bool page_intact(const char *page, uint64_t index, uint64_t gen)
{
	size_t head = sizeof(index) + sizeof(gen);

	return !memcmp(page, &index, sizeof(index)) &&
	       !memcmp(page + sizeof(index), &gen, sizeof(gen)) &&
	       !memcmp(page + head, page_template + head, page_size - head);
}

/* What page @i of area @a was last written with. */
static uint64_t page_generation(const struct area *a, size_t i)
{
	return a == &areas[WRITTEN] ? generations[i] : 0;
}

/* === Areas === */

static void map_area(enum area_kind kind, size_t mib, size_t first_page)
{
	struct area *a = &areas[kind];
	size_t align = kind == THP ? HPAGE_SIZE : page_size;
	size_t i;
	char *p;

	a->first_page = first_page;
	if (!mib)
		return;
	a->len = mib * MIB;
	a->nr_pages = a->len / page_size;
	p = mmap(NULL, a->len + align, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	a->start = (char *)(((uintptr_t)p + align - 1) & ~(align - 1));
	if (kind == THP && madvise(a->start, a->len, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
	for (i = 0; i < a->nr_pages; i++)
		fill_page(a->start + i * page_size, a->first_page + i, 0);
	if (kind == MLOCKED && mlock(a->start, a->len))
		die("mlock");
}

static size_t resident_pages(const struct area *a)
{
	unsigned char *vec;
	size_t i, nr = 0;

	if (!a->len)
		return 0;
	vec = malloc(a->nr_pages);
	if (!vec)
		die("malloc");
	if (mincore(a->start, a->len, vec))
		die("mincore");
	for (i = 0; i < a->nr_pages; i++)
		nr += vec[i] & 1;
	free(vec);
	return nr;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sweeps the hot area once, reading a word of every page. */
static void touch_hot(void)
{
	const struct area *a = &areas[HOT];
	uint64_t sum = 0;
	size_t i;

	if (!nr_sweeps++)
		first_sweep_s = now_s();
	for (i = 0; i < a->nr_pages; i++)
		sum += *(const uint64_t *)(a->start + i * page_size);
	/* Make the compiler keep the reads. */
	asm volatile("" : : "r" (sum) : "memory");
}

/*
 * Rewrites pages of the written area picked at random, @per_s a second on
 * average since the first call: few enough that most pages stay unwritten
 * for long and are paged out, some of them while they are written again.
 */
static void write_some(double per_s)
{
	static uint64_t x = 0x9e3779b97f4a7c15ULL;
	static double start = -1, nr_done;
	const struct area *a = &areas[WRITTEN];
	size_t i;

	if (!a->nr_pages)
		return;
	if (start < 0)
		start = now_s();
	while (nr_done < (now_s() - start) * per_s) {
		nr_done++;
		/* xorshift64: cheap, and no two runs need to agree. */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		i = x % a->nr_pages;
		fill_page(a->start + i * page_size, a->first_page + i,
			  ++generations[i]);
	}
}

/* === Commands === */

/* Value of a "Name:   N kB" line of a /proc file, or -1. */
static long proc_kib(const char *path, const char *name)
{
	char line[256];
	size_t len = strlen(name);
	long kib = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, name, len) && line[len] == ':') {
			kib = strtol(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kib;
}

static void cmd_status(void)
{
	int k;

	printf("status");
	for (k = 0; k < NR_AREAS; k++)
		printf(" %s=%zu/%zu", area_names[k], resident_pages(&areas[k]),
		       areas[k].nr_pages);
	printf(" rss_kib=%ld lck_kib=%ld anon_huge_kib=%ld\n",
	       proc_kib("/proc/self/status", "VmRSS"),
	       proc_kib("/proc/self/status", "VmLck"),
	       proc_kib("/proc/self/smaps_rollup", "AnonHugePages"));
}

static void cmd_verify(void)
{
	size_t nr_bad = 0, nr = 0, i;
	int k;

	for (k = 0; k < NR_AREAS; k++) {
		const struct area *a = &areas[k];

		for (i = 0; i < a->nr_pages; i++, nr++)
			if (!page_intact(a->start + i * page_size,
					 a->first_page + i,
					 page_generation(a, i)))
				nr_bad++;
	}
	printf("verify %s pages=%zu bad=%zu\n", nr_bad ? "bad" : "ok", nr,
	       nr_bad);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Sorted page frame numbers of the present pages of @a, from pagemap.
 * Returns how many; *pfns is malloc()ed.
 */
static size_t area_pfns(const struct area *a, uint64_t **pfns)
{
	size_t i, nr = 0;
	uint64_t *ents;
	ssize_t len;
	int fd;

	*pfns = calloc(a->nr_pages + 1, sizeof(**pfns));
	ents = calloc(a->nr_pages + 1, sizeof(*ents));
	if (!*pfns || !ents)
		die("calloc");
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		die("open(/proc/self/pagemap)");
	len = a->nr_pages * sizeof(*ents);
	if (a->len && pread(fd, ents, len, (uintptr_t)a->start / page_size *
			    sizeof(*ents)) != len)
		die("pread(pagemap)");
	close(fd);
	for (i = 0; i < a->nr_pages; i++) {
		uint64_t pfn = ents[i] & ((1ULL << 55) - 1);

		/* Bit 63: present.  A zero PFN: not root. */
		if ((ents[i] >> 63) && pfn)
			(*pfns)[nr++] = pfn;
	}
	free(ents);
	qsort(*pfns, nr, sizeof(**pfns), cmp_u64);
	return nr;
}

/* How many of the sorted @pfns are in [start, end). */
static size_t count_in(const uint64_t *pfns, size_t nr, uint64_t start,
		       uint64_t end)
{
	size_t lo = 0, hi = nr, first;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pfns[mid] < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	hi = nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pfns[mid] < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - first;
}

/*
 * A region is "hot" when at least half of its pages are pages of the hot
 * area, "cold" when at least half are of the cold area and none is hot.
 * A region's accesses are sampled at one page per aggregation window, so a
 * hot region shows accesses in a window with the odds of drawing one of its
 * hot pages: hot_share is the mean share of hot pages in the hot regions,
 * in percent, and hot_accessed out of hot_records should come near it.
 * sweep_ms is the mean time between two sweeps of the hot area: a hot page
 * goes that long unaccessed, and a window shorter than that can miss it.
 */
static void cmd_trace(const char *path)
{
	size_t nr_hot_pfns, nr_cold_pfns;
	size_t hot = 0, hot_accessed = 0, cold = 0, cold_accessed = 0;
	double hot_share = 0, sweep_ms = 0;
	uint64_t *hot_pfns, *cold_pfns;
	char line[512];
	FILE *f;

	nr_hot_pfns = area_pfns(&areas[HOT], &hot_pfns);
	nr_cold_pfns = area_pfns(&areas[COLD], &cold_pfns);
	f = fopen(path, "r");
	if (!f)
		die("fopen(trace)");
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		unsigned int nr_accesses, age;
		size_t nr_hot, nr_cold, nr_pages;
		char *p = strstr(line, "damon_aggregated:");

		if (p)
			p = strstr(p, "nr_regions=");
		if (p)
			p = strchr(p, ' ');
		if (!p || sscanf(p, " %lu-%lu: %u %u", &start, &end,
				 &nr_accesses, &age) != 4 || end <= start)
			continue;
		nr_pages = (end - start) / page_size;
		nr_hot = count_in(hot_pfns, nr_hot_pfns, start / page_size,
				  end / page_size);
		nr_cold = count_in(cold_pfns, nr_cold_pfns, start / page_size,
				   end / page_size);
		if (nr_hot && nr_hot * 2 >= nr_pages) {
			hot++;
			hot_accessed += nr_accesses > 0;
			hot_share += (double)nr_hot / nr_pages;
		} else if (!nr_hot && nr_cold && nr_cold * 2 >= nr_pages) {
			cold++;
			cold_accessed += nr_accesses > 0;
		}
	}
	fclose(f);
	if (hot)
		hot_share = hot_share * 100 / hot;
	if (nr_sweeps > 1)
		sweep_ms = (now_s() - first_sweep_s) * 1000 / (nr_sweeps - 1);
	printf("trace hot_pfns=%zu cold_pfns=%zu", nr_hot_pfns, nr_cold_pfns);
	printf(" hot_records=%zu hot_accessed=%zu", hot, hot_accessed);
	printf(" hot_share=%.0f sweep_ms=%.0f", hot_share, sweep_ms);
	printf(" cold_records=%zu cold_accessed=%zu\n", cold, cold_accessed);
	free(hot_pfns);
	free(cold_pfns);
}

/* Runs one command line; returns false on "quit". */
static bool run_command(char *cmd)
{
	if (!strcmp(cmd, "status"))
		cmd_status();
	else if (!strcmp(cmd, "verify"))
		cmd_verify();
	else if (!strncmp(cmd, "trace ", 6))
		cmd_trace(cmd + 6);
	else if (!strcmp(cmd, "quit"))
		return false;
	else if (cmd[0])
		printf("error unknown command '%s'\n", cmd);
	return true;
}

/*
 * Reads what standard input has and runs the complete lines.  Returns false
 * on "quit" or at the end of input.
 */
static bool serve_commands(void)
{
	static char buf[4096];
	static size_t len;
	char *nl;
	ssize_t n;

	n = read(STDIN_FILENO, buf + len, sizeof(buf) - 1 - len);
	if (n <= 0)
		return false;
	len += n;
	buf[len] = '\0';
	while ((nl = strchr(buf, '\n'))) {
		*nl = '\0';
		if (nl > buf && nl[-1] == '\r')
			nl[-1] = '\0';
		if (!run_command(buf))
			return false;
		len -= nl + 1 - buf;
		memmove(buf, nl + 1, len + 1);
	}
	/* A line too long for the buffer is dropped. */
	if (len == sizeof(buf) - 1)
		len = 0;
	return true;
}

static void bad_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--hot-mib N] [--cold-mib N]", prog);
	fprintf(stderr, " [--mlock-mib N] [--thp-mib N] [--written-mib N]");
	fprintf(stderr, " [--writes-per-s N] [--hot-sleep-us N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hot-mib", required_argument, NULL, 'h' },
		{ "cold-mib", required_argument, NULL, 'c' },
		{ "mlock-mib", required_argument, NULL, 'm' },
		{ "thp-mib", required_argument, NULL, 't' },
		{ "written-mib", required_argument, NULL, 'w' },
		{ "writes-per-s", required_argument, NULL, 'n' },
		{ "hot-sleep-us", required_argument, NULL, 's' },
		{},
	};
	size_t mib[NR_AREAS] = { [HOT] = 16, [COLD] = 64 };
	long hot_sleep_us = 1000;
	double writes_per_s = 20;
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	size_t first_page = 0;
	int opt, k;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			mib[HOT] = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			mib[COLD] = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			mib[MLOCKED] = strtoul(optarg, NULL, 0);
			break;
		case 't':
			mib[THP] = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			mib[WRITTEN] = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			writes_per_s = strtod(optarg, NULL);
			break;
		case 's':
			hot_sleep_us = strtol(optarg, NULL, 0);
			break;
		default:
			bad_usage(argv[0]);
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	make_template();
	generations = calloc(mib[WRITTEN] * MIB / page_size + 1,
			     sizeof(*generations));
	if (!generations)
		die("calloc");
	/* The hot area first, so that it gets physical pages of its own. */
	for (k = 0; k < NR_AREAS; k++) {
		map_area(k, mib[k], first_page);
		first_page += areas[k].nr_pages;
	}
	printf("ready pid=%d\n", getpid());

	for (;;) {
		struct timespec ts = {
			.tv_sec = hot_sleep_us / 1000000,
			.tv_nsec = hot_sleep_us % 1000000 * 1000,
		};

		touch_hot();
		write_some(writes_per_s);
		if (hot_sleep_us > 0)
			nanosleep(&ts, NULL);
		if (poll(&pfd, 1, 0) > 0 && !serve_commands())
			break;
	}
	printf("bye\n");
	return 0;
}
