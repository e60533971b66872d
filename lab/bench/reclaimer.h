/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reclaimer.h: what the benchmark's user-space reclaimers (kstaled.c,
 * pressure.c, oracle.c) share.  The advice and system call numbers of
 * process_madvise(MADV_PAGEOUT) and pidfd_open(), for a libc too old to
 * define them; parse_u64(), the parser of their numeric options; and
 * stats_open() / stats_close(), around the rewriting of their --stats file
 * of "key value" lines (read by monitor.c with read_keyed() of swapio.h,
 * and by report.py), which also hand out the process's own CPU time for
 * its utime_us and stime_us lines.  Each program keeps its own usage(),
 * options and keys.
 */
#ifndef LAB_RECLAIMER_H
#define LAB_RECLAIMER_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif

/*
 * Value of the option argument @s, a number as C writes it (decimal, 0x
 * hexadecimal or 0 octal) and nothing else.  Calls @usage, the program's
 * usage(), which exits, when @s is not such a number or is out of range.
 */
static inline uint64_t parse_u64(const char *s, void (*usage)(void))
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		usage();
	return v;
}

/* Microseconds in @tv. */
static inline uint64_t timeval_us(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

/* A statistics file being rewritten: see stats_open() and stats_close(). */
struct stats_file {
	FILE *f;		/* where the "key value" lines go */
	const char *path;
	char tmp[4096];		/* "<path>.tmp", renamed to path when done */
	uint64_t utime_us;	/* own user CPU time at stats_open() */
	uint64_t stime_us;	/* own system CPU time at stats_open() */
};

/*
 * Starts rewriting the statistics file @path: notes the process's CPU time
 * so far and opens "@path.tmp" for writing as @s->f.  Returns false, with
 * nothing to close, when @path is NULL (no --stats) or cannot be written.
 */
static inline bool stats_open(struct stats_file *s, const char *path)
{
	struct rusage ru;

	if (!path)
		return false;
	getrusage(RUSAGE_SELF, &ru);
	s->utime_us = timeval_us(ru.ru_utime);
	s->stime_us = timeval_us(ru.ru_stime);
	s->path = path;
	snprintf(s->tmp, sizeof(s->tmp), "%s.tmp", path);
	s->f = fopen(s->tmp, "w");
	return s->f != NULL;
}

/*
 * Ends what stats_open() started: closes the file and puts it in place of
 * the old one at once, so that a reader sees either of them whole.
 */
static inline void stats_close(struct stats_file *s)
{
	fclose(s->f);
	rename(s->tmp, s->path);
}

#endif /* LAB_RECLAIMER_H */
