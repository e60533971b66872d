// SPDX-License-Identifier: GPL-2.0
/*
 * hotcold: a workload with hot and cold memory, for the DAMON_RECLAIM demo.
 *
 *   hotcold SIZE_MIB HOT_PERCENT SECONDS
 *
 * Fills SIZE_MIB of anonymous memory with compressible, non-zero data
 * (zram stores same-filled pages without compressing them, which would
 * hide the work).  The first HOT_PERCENT is hot from the moment it is
 * written: what is written of it is read every HOT_PERIOD_S during the
 * fill, then continuously for SECONDS while the rest stays untouched.
 * Major faults taken while it reads the hot part are hot pages read back
 * from swap; faults elsewhere (its C library's buffers, touched once after
 * the fill) are not counted.
 * After the fill it prints where the cold part is (address, length, pid),
 * for the benchmark's oracle reclaimer (lab/bench/oracle.c).
 * At the end it checks every page against the content it wrote, so pages
 * that went to swap and came back are verified too, and prints PASS or FAIL
 * (exit status 0 or 1).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "pagefill.h"

/* The hot part is read at least this often while the cold part is written. */
#define HOT_PERIOD_S 0.2
/* Seconds between the last figures and the check that reads all back. */
#define VERIFY_DELAY_S 2
/* Pages written between two looks at the clock. */
#define FILL_CHUNK 1024

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long major_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_majflt;
}

/* Major faults taken inside read_hot(): hot pages read back from swap. */
static long hot_faults;

/* Reads one word of each hot page: enough to set its accessed bit. */
static uint64_t read_hot(const uint64_t *mem, unsigned long nr_hot)
{
	long before = major_faults();
	uint64_t sum = 0;
	unsigned long i;

	for (i = 0; i < nr_hot; i++)
		sum += ((const volatile uint64_t *)mem)[i * WORDS_PER_PAGE +
						      (i % WORDS_PER_PAGE)];
	hot_faults += major_faults() - before;
	return sum;
}

int main(int argc, char **argv)
{
	unsigned long size_mib, hot_percent, seconds, nr_pages, nr_hot, i;
	unsigned long bad, passes = 0;
	volatile uint64_t sink = 0;
	long majflt;
	uint64_t *mem;
	double start, t, last_read;

	if (argc != 4) {
		fprintf(stderr, "usage: %s SIZE_MIB HOT_PERCENT SECONDS\n", argv[0]);
		return 2;
	}
	size_mib = strtoul(argv[1], NULL, 0);
	hot_percent = strtoul(argv[2], NULL, 0);
	seconds = strtoul(argv[3], NULL, 0);
	if (!size_mib || hot_percent > 100) {
		fprintf(stderr, "hotcold: bad size or hot percentage\n");
		return 2;
	}
	nr_pages = size_mib * (1024 * 1024 / PAGE_BYTES);
	nr_hot = nr_pages * hot_percent / 100;

	mem = mmap(NULL, nr_pages * PAGE_BYTES, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("hotcold: mmap");
		return 2;
	}
	/* Base pages: a huge page would mix hot and cold data. */
	madvise(mem, nr_pages * PAGE_BYTES, MADV_NOHUGEPAGE);

	start = now_s();
	printf("hotcold: filling %lu MiB (%lu pages, %lu hot)\n",
	       size_mib, nr_pages, nr_hot);
	fflush(stdout);
	majflt = major_faults();
	last_read = start;
	for (i = 0; i < nr_pages; i++) {
		fill_page(mem + i * WORDS_PER_PAGE, i);
		if (i % FILL_CHUNK || now_s() - last_read < HOT_PERIOD_S)
			continue;
		/* The hot pages written so far. */
		sink += read_hot(mem, i < nr_hot ? i : nr_hot);
		last_read = now_s();
	}
	printf("hotcold: filled in %.1f s; reading the hot %lu%% for %lu s\n",
	       now_s() - start, hot_percent, seconds);
	/* Where the pages never touched again are, for lab/bench/oracle.c. */
	printf("hotcold: cold part at 0x%lx length %lu bytes (pid %ld)\n",
	       (unsigned long)(uintptr_t)(mem + nr_hot * WORDS_PER_PAGE),
	       (nr_pages - nr_hot) * PAGE_BYTES, (long)getpid());
	fflush(stdout);

	start = now_s();
	while (now_s() - start < seconds) {
		sink += read_hot(mem, nr_hot);
		passes++;
		usleep(20000);
	}
	/* Throughput for the benchmark (lab/bench): pages read per second. */
	t = now_s() - start;
	/* Hot pages that had been paged out and were read back. */
	printf("hotcold: hot pages read back: %ld major faults (%ld in all)\n",
	       hot_faults, major_faults() - majflt);
	printf("hotcold: throughput: %lu passes over %lu hot pages in %.1f s: %.0f pages/s\n",
	       passes, nr_hot, t, t > 0 ? passes * (double)nr_hot / t : 0.0);
	/*
	 * The check reads every page, cold ones from swap: let whoever reads
	 * these lines (lab/bench/guest.sh, which samples once a second) end
	 * the measured phase first.
	 */
	fflush(stdout);
	sleep(VERIFY_DELAY_S);

	printf("hotcold: verifying all %lu pages\n", nr_pages);
	fflush(stdout);
	t = now_s();
	bad = count_bad_pages(mem, nr_pages);
	printf("hotcold: verified in %.1f s: %lu bad pages: %s\n",
	       now_s() - t, bad, bad ? "FAIL" : "PASS");
	return bad ? 1 : 0;
}
