// SPDX-License-Identifier: GPL-2.0
/*
 * DAMOS watermarks: whether a scheme is active, from a system metric checked
 * every watermark interval, with hysteresis between the mid and high marks.
 * When no scheme of a context is active, kdamond stops monitoring and only
 * sleeps until the next check.
 */

#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/vmstat.h>
#include <kunit/visibility.h>

#include "internal.h"

/* Free memory of the system, in per-thousand of all memory. */
static unsigned long damos_free_mem_permil(void)
{
	unsigned long total = totalram_pages();
	unsigned long free = global_zone_page_state(NR_FREE_PAGES);

	if (!total)
		return 0;
	return div64_u64((u64)min(free, total) * 1000, total);
}

/**
 * damos_wmarks_decide() - Whether a scheme is active at a metric value.
 * @wm:		The watermarks of the scheme.
 * @metric:	The value of @wm->metric now.
 * @active:	Whether the scheme was active until now.
 *
 * Above @wm->high or at or below @wm->low the scheme is inactive; at or
 * below @wm->mid (and above @wm->low) it is active; in between @wm->mid and
 * @wm->high it keeps @active.  With %DAMOS_WMARK_NONE it is always active.
 *
 * Context: Any context.
 * Return: whether the scheme is active from now on.
 */
VISIBLE_IF_KUNIT
bool damos_wmarks_decide(const struct damos_watermarks *wm,
			 unsigned long metric, bool active)
{
	if (wm->metric == DAMOS_WMARK_NONE)
		return true;
	if (metric > wm->high || metric <= wm->low)
		return false;
	if (metric <= wm->mid)
		return true;
	return active;
}

static unsigned long damos_wmark_metric_value(enum damos_wmark_metric metric)
{
	switch (metric) {
	case DAMOS_WMARK_FREE_MEM_RATE:
		return damos_free_mem_permil();
	default:
		return 0;
	}
}

/**
 * damos_scheme_active() - Whether a scheme's watermarks let it act.
 * @s:	The scheme.
 *
 * Context: The kdamond thread.
 * Return: true if @s has no watermarks or their last check activated it.
 */
bool damos_scheme_active(const struct damos *s)
{
	return s->wmarks.metric == DAMOS_WMARK_NONE || s->wmarks.activated;
}

static void damos_check_wmarks(const struct damon_ctx *ctx, struct damos *s)
{
	struct damos_watermarks *wm = &s->wmarks;
	unsigned long metric;

	if (wm->metric == DAMOS_WMARK_NONE) {
		wm->activated = true;
		return;
	}
	if (ctx->now_us < wm->next_check_us)
		return;
	wm->next_check_us = damos_deadline_us(ctx->now_us, wm->interval_us);
	metric = damos_wmark_metric_value(wm->metric);
	wm->activated = damos_wmarks_decide(wm, metric, wm->activated);
}

/**
 * damos_all_inactive() - Check the watermarks that are due.
 * @ctx:	The context.
 *
 * Every scheme whose watermark check is due (@ctx->now_us reached its
 * &damos_watermarks.next_check_us) reads its metric and updates whether
 * it is active.
 *
 * Context: The kdamond thread.
 * Return: true if @ctx has schemes and none of them is active.
 */
bool damos_all_inactive(struct damon_ctx *ctx)
{
	struct damos *s;
	bool has_schemes = false, any_active = false;

	damon_for_each_scheme(s, ctx) {
		has_schemes = true;
		damos_check_wmarks(ctx, s);
		if (damos_scheme_active(s))
			any_active = true;
	}
	return has_schemes && !any_active;
}

/**
 * damos_wmarks_sleep_us() - How long kdamond may sleep while no scheme is
 * active.
 * @ctx:	The context.
 *
 * Context: The kdamond thread.
 * Return: microseconds until the nearest watermark check, at least one
 * sampling interval so that a zero watermark interval cannot make kdamond
 * spin; 0 if no scheme has watermarks.
 */
unsigned long damos_wmarks_sleep_us(struct damon_ctx *ctx)
{
	unsigned long floor_us = max(ctx->attrs.sample_interval, 1UL);
	u64 sleep_us = U64_MAX;
	struct damos *s;

	damon_for_each_scheme(s, ctx) {
		if (s->wmarks.metric == DAMOS_WMARK_NONE)
			continue;
		if (s->wmarks.next_check_us <= ctx->now_us) {
			sleep_us = 0;
			break;
		}
		sleep_us = min(sleep_us, s->wmarks.next_check_us - ctx->now_us);
	}
	if (sleep_us == U64_MAX)
		return 0;
	return clamp_t(u64, sleep_us, floor_us, ULONG_MAX);
}
