// SPDX-License-Identifier: GPL-2.0
/*
 * pinexec: keeps the page cache of the guest's executables and libraries
 * resident (mlocked) for a benchmark run, whatever the variant.
 *
 *   pinexec [--rescan-ms MS] [FILE]...
 *
 * Locks each FILE whole, then every file some process maps executable
 * (/proc/PID/maps), and looks for new ones every --rescan-ms (default
 * 2000; 0: never).  Runs until SIGTERM or SIGINT.
 *
 * Why: under TCG, QEMU remembers the code it translated per guest page
 * frame, and a later write to a frame that still holds translations takes
 * its self-modifying-code path, byte by byte for the kernel's
 * "rep movsb" copies: tens of milliseconds for a page that costs
 * microseconds on hardware.  A reclaimer that drops executed page cache
 * frees such frames; zsmalloc and the page allocator hand them out again,
 * and whoever writes them first (kdamond writing a compressed page) is
 * charged the emulator's time.  Pinning the code every variant runs takes
 * that artifact out of the comparison (see
 * lab/bench/results/tcg-smc-20261207/NOTE.md).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES	1024

static char *pinned[MAX_FILES];
static unsigned int nr_pinned;
static unsigned long long bytes_pinned;
static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static bool is_pinned(const char *path)
{
	unsigned int i;

	for (i = 0; i < nr_pinned; i++)
		if (!strcmp(pinned[i], path))
			return true;
	return false;
}

/* Maps @path whole and locks it; the mapping stays until exit. */
static void pin(const char *path)
{
	struct stat st;
	void *p;
	int fd;

	if (nr_pinned >= MAX_FILES || is_pinned(path))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size) {
		close(fd);
		return;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return;
	if (mlock(p, st.st_size)) {
		fprintf(stderr, "pinexec: mlock %s: %s\n", path, strerror(errno));
		munmap(p, st.st_size);
		return;
	}
	pinned[nr_pinned++] = strdup(path);
	bytes_pinned += st.st_size;
}

/* Pins every file mapped executable by any process. */
static void pin_mapped_code(void)
{
	char maps[300], line[4096], perms[8], path[4096];
	struct dirent *d;
	DIR *proc = opendir("/proc");
	FILE *f;

	if (!proc)
		return;
	while ((d = readdir(proc))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(maps, sizeof(maps), "/proc/%s/maps", d->d_name);
		f = fopen(maps, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			/* start-end perms offset dev inode path */
			if (sscanf(line, "%*s %7s %*s %*s %*s %4095s", perms,
				   path) == 2 && perms[2] == 'x' &&
			    path[0] == '/')
				pin(path);
		}
		fclose(f);
	}
	closedir(proc);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rescan-ms", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	long rescan_ms = 2000;
	unsigned int reported = 0;
	struct timespec ts;
	int c, i;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'r') {
			fprintf(stderr, "usage: pinexec [--rescan-ms MS] [FILE]...\n");
			return 2;
		}
		rescan_ms = strtol(optarg, NULL, 0);
	}
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	for (i = optind; i < argc; i++)
		pin(argv[i]);
	while (!stop) {
		pin_mapped_code();
		if (nr_pinned != reported) {
			printf("pinexec: %u files, %llu KiB locked\n", nr_pinned,
			       bytes_pinned >> 10);
			fflush(stdout);
			reported = nr_pinned;
		}
		if (rescan_ms <= 0) {
			pause();
			continue;
		}
		ts.tv_sec = rescan_ms / 1000;
		ts.tv_nsec = (rescan_ms % 1000) * 1000000L;
		nanosleep(&ts, NULL);
	}
	return 0;
}
