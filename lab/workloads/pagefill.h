/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagefill.h: the page contents of the lab's workloads.  Each page gets a
 * few words that differ from page to page and a short repeating pattern,
 * so that zram compresses it about as well as real data (not as a
 * same-filled page, which it stores without compressing), and a page read
 * back from swap can be checked against what was written.
 */
#ifndef LAB_PAGEFILL_H
#define LAB_PAGEFILL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PAGE_BYTES 4096UL
#define WORDS_PER_PAGE (PAGE_BYTES / sizeof(uint64_t))
/* Words that differ per page; the rest of a page repeats a short pattern. */
#define NOISY_WORDS 64

static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x | 1;	/* never zero */
}

static inline void fill_page(uint64_t *page, uint64_t index)
{
	size_t i;

	for (i = 0; i < NOISY_WORDS; i++)
		page[i] = mix(index * WORDS_PER_PAGE + i);
	for (; i < WORDS_PER_PAGE; i++)
		page[i] = 0x0101010101010101ULL * (i % 16 + 1) + index;
}

/* How many of the @nr_pages pages at @mem differ from what fill_page() wrote. */
static inline unsigned long count_bad_pages(const uint64_t *mem,
					    unsigned long nr_pages)
{
	uint64_t expect[WORDS_PER_PAGE];
	unsigned long i, bad = 0;

	for (i = 0; i < nr_pages; i++) {
		fill_page(expect, i);
		if (memcmp(expect, mem + i * WORDS_PER_PAGE, PAGE_BYTES))
			bad++;
	}
	return bad;
}

#endif /* LAB_PAGEFILL_H */
