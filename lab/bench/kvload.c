// SPDX-License-Identifier: GPL-2.0
/*
 * kvload: writes a stream of Redis SET commands (RESP protocol) for
 * "redis-cli --pipe", to fill a redis-server for the benchmark.
 *
 *   kvload NR_KEYS VALUE_BYTES
 *
 * Keys are named the way redis-benchmark names them with -r
 * ("key:" and 12 digits), so "redis-benchmark -r H" reads exactly the
 * first H keys: the hot subset.  They are written last (keys go in
 * descending order): written first, the hot keys would sit unread through
 * the minutes of loading, and any reclaimer doing its job would page them
 * out before the measured phase reads them all back.  Values read like text
 * records (words from a small dictionary with a unique number in front), so
 * they compress about as well as real data, not as well as zero pages.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const words[] = {
	"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
	"hotel", "india", "juliet", "kilo", "lima", "mike", "november",
	"oscar", "papa",
};

static uint64_t next_random(uint64_t *state)
{
	/* xorshift64: cheap, and enough to vary the words. */
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static void make_value(char *buf, size_t len, unsigned long key)
{
	uint64_t state = key * 0x9e3779b97f4a7c15ULL + 1;
	size_t pos;

	pos = snprintf(buf, len, "{\"id\":%lu,\"r\":%llu,\"text\":\"", key,
		       (unsigned long long)next_random(&state));
	while (pos < len) {
		const char *w = words[next_random(&state) % 16];
		size_t n = strlen(w);

		if (n > len - pos)
			n = len - pos;
		memcpy(buf + pos, w, n);
		pos += n;
		if (pos < len)
			buf[pos++] = ' ';
	}
}

int main(int argc, char **argv)
{
	unsigned long nr_keys, value_bytes, key;
	char *value;

	if (argc != 3) {
		fprintf(stderr, "usage: kvload NR_KEYS VALUE_BYTES\n");
		return 2;
	}
	nr_keys = strtoul(argv[1], NULL, 0);
	value_bytes = strtoul(argv[2], NULL, 0);
	if (!nr_keys || value_bytes < 64 || value_bytes > (1UL << 20)) {
		fprintf(stderr, "kvload: need NR_KEYS > 0, 64 <= VALUE_BYTES <= 1 MiB\n");
		return 2;
	}
	value = malloc(value_bytes);
	if (!value)
		return 1;
	for (key = nr_keys; key-- > 0;) {
		make_value(value, value_bytes, key);
		printf("*3\r\n$3\r\nSET\r\n$16\r\nkey:%012lu\r\n$%lu\r\n",
		       key, value_bytes);
		fwrite(value, 1, value_bytes, stdout);
		fputs("\r\n", stdout);
	}
	free(value);
	return fflush(stdout) ? 1 : 0;
}
