// SPDX-License-Identifier: GPL-2.0
/*
 * pageoutcost: what the kernel's own swap-out costs per page, with no
 * reclaimer in the way: the floor under any proactive reclaimer's cost.
 *
 *   pageoutcost SIZE_MIB [CHUNK_KIB]
 *
 * Fills SIZE_MIB of anonymous base pages with the hotcold workload's data,
 * then pages all of it out with madvise(MADV_PAGEOUT), CHUNK_KIB (default
 * 2048) at a time.  MADV_PAGEOUT hands the pages to reclaim_pages() in the
 * caller's context, as DAMON's pageout does, so the process's CPU time
 * (user + system) over those calls is the kernel's cost of isolating,
 * unmapping, compressing and writing the pages, without any access check.
 * Prints the CPU time per page swapped out (see pages_swapped_out()), then
 * reads every page back and checks it (PASS or FAIL, exit status 0 or 1).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "../workloads/pagefill.h"
#include "swapio.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Pages written to swap so far (see swap_io_pages()), -1 if unknown. */
static long pages_swapped_out(void)
{
	long long in, out;

	swap_io_pages(&in, &out);
	return out;
}

int main(int argc, char **argv)
{
	unsigned long size_mib, chunk, nr_pages, i, bad;
	long out0, out1, majflt0;
	double t0, t1;
	struct rusage ru;
	uint64_t *mem;
	size_t len;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s SIZE_MIB [CHUNK_KIB]\n", argv[0]);
		return 2;
	}
	size_mib = strtoul(argv[1], NULL, 0);
	chunk = argc > 2 ? strtoul(argv[2], NULL, 0) * 1024 : 2UL << 20;
	if (!size_mib || chunk < PAGE_BYTES || chunk % PAGE_BYTES) {
		fprintf(stderr, "pageoutcost: bad size or chunk\n");
		return 2;
	}
	nr_pages = size_mib * (1024 * 1024 / PAGE_BYTES);
	len = nr_pages * PAGE_BYTES;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("pageoutcost: mmap");
		return 2;
	}
	/* Base pages, as the benchmark's workloads use. */
	madvise(mem, len, MADV_NOHUGEPAGE);
	for (i = 0; i < nr_pages; i++)
		fill_page(mem + i * WORDS_PER_PAGE, i);

	out0 = pages_swapped_out();
	t0 = cpu_s();
	for (i = 0; i < len; i += chunk) {
		size_t n = len - i < chunk ? len - i : chunk;

		if (madvise((char *)mem + i, n, MADV_PAGEOUT)) {
			perror("pageoutcost: madvise(MADV_PAGEOUT)");
			return 2;
		}
	}
	t1 = cpu_s();
	out1 = pages_swapped_out();
	if (out0 < 0 || out1 <= out0) {
		fprintf(stderr, "pageoutcost: nothing swapped out (no swap?)\n");
		return 2;
	}
	printf("pageoutcost: %lu pages, %ld swapped out in %.3f s of CPU: %.1f us per page\n",
	       nr_pages, out1 - out0, t1 - t0,
	       (t1 - t0) * 1e6 / (out1 - out0));

	getrusage(RUSAGE_SELF, &ru);
	majflt0 = ru.ru_majflt;
	bad = count_bad_pages(mem, nr_pages);
	getrusage(RUSAGE_SELF, &ru);
	printf("pageoutcost: read back %ld pages from swap, %lu bad: %s\n",
	       ru.ru_majflt - majflt0, bad, bad ? "FAIL" : "PASS");
	return bad ? 1 : 0;
}
