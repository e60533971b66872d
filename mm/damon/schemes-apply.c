// SPDX-License-Identifier: GPL-2.0
/*
 * The DAMOS engine: at the end of each aggregation window, applies every
 * active scheme to the regions that show its access pattern, the highest
 * priority scores first when the quota cannot cover them all, and resumes
 * where the last exhausted window stopped.
 *
 * Runs in kdamond only, which owns the regions and schemes it walks.
 */

#include <linux/align.h>
#include <linux/mm.h>
#include <kunit/visibility.h>

#include "internal.h"

#include <trace/events/damon.h>

/* Whether the size and access count of @r are within the ranges of @p. */
static bool damos_pattern_matches_but_age(const struct damos_access_pattern *p,
					  const struct damon_region *r)
{
	unsigned long sz = damon_region_sz(r);

	return sz >= p->min_sz_region && sz <= p->max_sz_region &&
		r->nr_accesses >= p->min_nr_accesses &&
		r->nr_accesses <= p->max_nr_accesses;
}

/**
 * damos_pattern_matches() - Whether a region matches a scheme's pattern.
 * @ctx:	The context of the region.
 * @r:		The region.
 * @s:		The scheme.
 *
 * Ages stop at %UINT_MAX, where any longer time saturates too: a minimum
 * age of %UINT_MAX means "never" and matches no region.
 *
 * Context: Any context.
 * Return: true if the size, access count and age of @r are all within the
 * ranges of @s->pattern.
 */
VISIBLE_IF_KUNIT
bool damos_pattern_matches(const struct damon_ctx *ctx,
			   const struct damon_region *r, const struct damos *s)
{
	const struct damos_access_pattern *p = &s->pattern;

	return damos_pattern_matches_but_age(p, r) &&
		p->min_age_region < UINT_MAX &&
		r->age >= p->min_age_region && r->age <= p->max_age_region;
}

/*
 * Whether @r is a candidate for @s now, and its score if so.  A backend that
 * scores regions itself returns 0 where the action would achieve nothing
 * (nothing reclaimable in sight, for pageout): such a region is neither
 * acted on nor charged to the quota, which is then left for regions where
 * the action pays.
 */
static bool damos_candidate(struct damon_ctx *ctx, struct damon_target *t,
			    struct damon_region *r, struct damos *s,
			    unsigned int *score)
{
	if (!damos_pattern_matches(ctx, r, s))
		return false;
	if (!ctx->ops.get_scheme_score) {
		*score = damos_generic_score(ctx, r, s);
		return true;
	}
	*score = clamp(ctx->ops.get_scheme_score(ctx, t, r, s), 0,
		       DAMOS_MAX_SCORE);
	return *score > 0;
}

/*
 * State of one application of a scheme.  When the quota cannot cover every
 * matching region, regions are told apart by score: those above the score
 * threshold fit in the quota together, so quota is held back for the ones
 * not reached yet and regions at the threshold only get what is left over.
 * That way the walk may start anywhere (to resume) and still act on the
 * highest scores first.
 */
struct damos_walk {
	struct damos *s;
	bool limited;		/* the quota limits this application */
	bool scored;		/* regions are told apart by score */
	bool passed_over;	/* a region was below the score threshold */
	unsigned long hi_left;	/* bytes above the threshold not acted on */
	/* For damon:damos_before_apply: indices of the scheme and target. */
	unsigned int scheme_idx;
	unsigned int target_idx;
};

/* Index of @entry in @head, for the tracepoint. */
static unsigned int damos_list_index(const struct list_head *head,
				     const struct list_head *entry)
{
	const struct list_head *pos;
	unsigned int i = 0;

	list_for_each(pos, head) {
		if (pos == entry)
			break;
		i++;
	}
	return i;
}

/* One pass over the regions, one over the score buckets: no sorting. */
static void damos_walk_prepare(struct damon_ctx *ctx, struct damos_walk *w)
{
	unsigned long hist_bytes[DAMOS_MAX_SCORE + 1] = {};
	struct damos_quota *q = &w->s->quota;
	unsigned long left = q->esz - q->charged_sz;
	unsigned long total = 0, sz;
	struct damon_target *t;
	struct damon_region *r;
	unsigned int score;

	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			if (!damos_candidate(ctx, t, r, w->s, &score))
				continue;
			sz = damon_region_sz(r);
			hist_bytes[score] += sz;
			total += sz;
		}
	}
	/* Sums of region sizes of one address space cannot overflow. */
	if (total <= left)
		return;
	w->scored = true;
	q->min_score = damos_quota_min_score(hist_bytes, left);
	for (score = q->min_score + 1; score <= DAMOS_MAX_SCORE; score++)
		w->hi_left += hist_bytes[score];
}

/*
 * Bytes of @r the walk may act on now: 0 if it is not eligible, or if it
 * is at the threshold and the rest of the quota is held for higher scores.
 */
static unsigned long damos_walk_budget(struct damon_ctx *ctx,
				       struct damon_target *t,
				       struct damon_region *r,
				       struct damos_walk *w, bool *above)
{
	struct damos_quota *q = &w->s->quota;
	unsigned long left = q->esz - q->charged_sz;
	unsigned int score;

	*above = false;
	if (!damos_candidate(ctx, t, r, w->s, &score))
		return 0;
	if (!w->limited)
		return ULONG_MAX;
	if (!w->scored)
		return left;
	if (score < q->min_score) {
		w->passed_over = true;
		return 0;
	}
	*above = score > q->min_score;
	if (*above)
		return left;
	return left > w->hi_left ? left - w->hi_left : 0;
}

static void damos_update_stat(struct damos *s, unsigned long sz_tried,
			      unsigned long sz_applied)
{
	s->stat.nr_tried++;
	s->stat.sz_tried += sz_tried;
	if (sz_applied) {
		s->stat.nr_applied++;
		s->stat.sz_applied += sz_applied;
	}
}

/*
 * Whether a window's quota leaves less than @align bytes after @used_sz (the
 * bytes charged, or prepared), or its time is spent.
 */
static bool damos_quota_used_up(const struct damos_quota *q,
				unsigned long used_sz, unsigned long align)
{
	return used_sz >= q->esz || q->esz - used_sz < align ||
		damos_time_quota_spent(q);
}

/* The quota of @s ran out: the next window resumes at @addr of @t. */
static void damos_quota_out(struct damos *s, struct damon_target *t,
			    unsigned long addr)
{
	s->quota.charge_target_from = t;
	s->quota.charge_addr_from = addr;
	s->quota.nr_exceeded++;
	s->stat.qt_exceeds++;
}

/*
 * Bytes the action may still only prepare in the window (see
 * &damos_apply_budget.sz_prepared).  Preparing costs far less per byte
 * than acting (for pageout, making a page idle against paging it out), so a
 * byte budget bought with the time quota at the action's throughput would
 * starve it: under a time quota only time bounds it (see
 * damos_quota_stop_ns()).  Under a size or tuned quota alone, at most the
 * effective quota's worth of bytes.
 */
static unsigned long damos_prepare_budget(const struct damos_quota *q,
					  bool limited, unsigned long align)
{
	if (!limited || q->ms)
		return ULONG_MAX;
	if (q->esz <= q->prepared_sz)
		return 0;
	return ALIGN_DOWN(q->esz - q->prepared_sz, align);
}

/* Largest folio: what an action may take beyond a non-zero byte budget. */
#define DAMOS_MAX_FOLIO_SZ	(PAGE_SIZE << MAX_PAGE_ORDER)

/* @budget plus one folio (see &damos_apply_budget.max_sz). */
static unsigned long damos_budget_and_folio(unsigned long budget)
{
	unsigned long sz;

	if (!budget)
		return 0;
	if (check_add_overflow(budget, DAMOS_MAX_FOLIO_SZ, &sz))
		return ULONG_MAX;
	return sz;
}

/*
 * The operations stopped at @end (aligned down to @align) inside @r or at
 * its end: @r is cut there, keeping the part dealt with.  Returns where
 * they stopped, @r's start if they did nothing.
 */
static unsigned long damos_cut_at_stop(struct damon_target *t,
				       struct damon_region *r,
				       unsigned long end, unsigned long align)
{
	unsigned long stop = clamp(ALIGN_DOWN(end, align), r->ar.start,
				   r->ar.end);

	if (stop > r->ar.start && stop < r->ar.end)
		damon_split_region_at(t, r, stop - r->ar.start);
	return stop;
}

/*
 * Acts on @r, acting on at most @budget bytes of it, and charges the quota
 * with what it acted on.  The stat action tries every byte, so @r is cut
 * (aligned) at the budget first; an operations backend stops by itself
 * where the budget runs out and says where, and @r is cut there after.
 * Returns true when the quota ran out.
 */
static bool damos_act(struct damon_ctx *ctx, struct damon_target *t,
		      struct damon_region *r, struct damos_walk *w,
		      unsigned long budget, bool above)
{
	unsigned long align = max(ctx->min_region_sz, 1UL);
	struct damos *s = w->s;
	struct damos_quota *q = &s->quota;
	unsigned long sz = damon_region_sz(r);
	struct damos_apply_budget b = {
		.max_sz = w->limited ? ALIGN_DOWN(budget, align) : ULONG_MAX,
		.max_prepare_sz = damos_prepare_budget(q, w->limited, align),
	};
	unsigned long applied = 0, stop;
	u64 start_ns, cpu_ns;

	if (s->action == DAMOS_STAT || !ctx->ops.apply_scheme) {
		/* Acts on nothing: only counts what it was tried on. */
		if (sz > b.max_sz) {
			/* No memory to split: stop as if the quota ran out. */
			if (!damon_split_region_at(t, r, b.max_sz)) {
				damos_quota_out(s, t, r->ar.start);
				return true;
			}
			sz = b.max_sz;
		}
		trace_damos_before_apply(0, w->scheme_idx, w->target_idx, r,
					 t->nr_regions);
		b.sz_tried = sz;
		stop = r->ar.end;
	} else {
		b.end = r->ar.end;
		trace_damos_before_apply(0, w->scheme_idx, w->target_idx, r,
					 t->nr_regions);
		start_ns = damos_action_clock_ns();
		b.stop_ns = damos_quota_stop_ns(q, start_ns);
		applied = ctx->ops.apply_scheme(ctx, t, r, s, &b);
		/* Within the budgets, whatever the backend says. */
		b.sz_prepared = min3(b.sz_prepared, b.sz_tried,
				     damos_budget_and_folio(b.max_prepare_sz));
		b.sz_tried = b.sz_prepared +
			min(b.sz_tried - b.sz_prepared,
			    damos_budget_and_folio(b.max_sz));
		applied = min(applied, b.sz_tried - b.sz_prepared);
		cpu_ns = damos_action_clock_ns() - start_ns;
		damos_quota_record_throughput(q, b.sz_tried, cpu_ns);
		/* The rest, not acted on, is judged on its own from now on. */
		stop = damos_cut_at_stop(t, r, b.end, align);
		/*
		 * What the action left in place (pages it found in use, say)
		 * is judged afresh: the region must show the pattern for its
		 * minimum age again before it is acted on again.
		 */
		if (damon_region_sz(r) == stop - r->ar.start)
			r->age = 0;
	}
	/* Not counted: a region the action stopped at before trying any. */
	if (b.sz_tried || applied)
		damos_update_stat(s, b.sz_tried - b.sz_prepared, applied);

	if (!w->limited)
		return false;
	/* What was only prepared is paid for with time. */
	q->charged_sz += b.sz_tried - b.sz_prepared;
	q->prepared_sz += b.sz_prepared;
	/* Counted in region bytes, as the histogram it came from. */
	if (above)
		w->hi_left -= min(w->hi_left, stop - r->ar.start);
	/*
	 * Only the budget to act ends the walk.  Once the window may prepare
	 * no more, the action stops at the first byte it would have to
	 * prepare, and what precedes it, here and in the next regions, may
	 * still be acted on.
	 */
	if (!damos_quota_used_up(q, q->charged_sz, align))
		return false;
	damos_quota_out(s, t, stop);
	return true;
}

/*
 * Applies the scheme to the regions of @t within [@from, @to).  A region
 * that straddles @from and is eligible is split there so that only the part
 * at and after @from is acted on.  Returns true when the quota ran out.
 */
static bool damos_walk_target(struct damon_ctx *ctx, struct damon_target *t,
			      struct damos_walk *w, unsigned long from,
			      unsigned long to)
{
	unsigned long align = max(ctx->min_region_sz, 1UL);
	unsigned long budget, sz_left;
	struct damon_region *r;
	bool above;

	if (trace_damos_before_apply_enabled())
		w->target_idx = damos_list_index(&ctx->targets, &t->list);
	/* Splits insert after @r, so the plain iterator visits the new part. */
	damon_for_each_region(r, t) {
		if (r->ar.end <= from)
			continue;
		if (r->ar.end > to)
			break;
		budget = damos_walk_budget(ctx, t, r, w, &above);
		if (budget < align)
			continue;
		if (r->ar.start < from) {
			sz_left = ALIGN_DOWN(from - r->ar.start, align);
			/*
			 * Eligibility was judged on the whole region.  With no
			 * memory to cut it, it waits for a later window.
			 */
			if (sz_left) {
				if (!damon_split_region_at(t, r, sz_left))
					continue;
				r = list_next_entry(r, list);
			}
		}
		if (damos_act(ctx, t, r, w, budget, above))
			return true;
	}
	return false;
}

/* The target to resume at, if it is still in @ctx; else the first one. */
static struct damon_target *damos_resume_target(struct damon_ctx *ctx,
						const struct damos_quota *q)
{
	struct damon_target *t;

	damon_for_each_target(t, ctx)
		if (t == q->charge_target_from)
			return t;
	return list_first_entry_or_null(&ctx->targets, struct damon_target,
					list);
}

/*
 * Walks the targets circularly from @resume_addr of @first, ending with the
 * part of @first before it, so that every eligible byte gets its turn
 * however small the quota.  Returns true when the quota ran out.
 */
static bool damos_walk_targets(struct damon_ctx *ctx, struct damos_walk *w,
			       struct damon_target *first,
			       unsigned long resume_addr)
{
	struct damon_target *t = first;
	unsigned long from = resume_addr;

	do {
		if (damos_walk_target(ctx, t, w, from, ULONG_MAX))
			return true;
		from = 0;
		t = list_is_last(&t->list, &ctx->targets) ?
			list_first_entry(&ctx->targets, struct damon_target,
					 list) :
			list_next_entry(t, list);
	} while (t != first);
	return resume_addr && damos_walk_target(ctx, first, w, 0, resume_addr);
}

/*
 * Applies @s to the eligible regions, the highest scores first.  Once the
 * window may prepare no more, the regions at and above the score threshold
 * may leave quota unused because they need preparing: then the rest goes to
 * those below it, in a second walk, so that regions prepared a minimum age
 * ago are not held back by older ones that keep needing preparing.
 */
static void damos_apply_scheme(struct damon_ctx *ctx, struct damos *s)
{
	unsigned long align = max(ctx->min_region_sz, 1UL);
	struct damos_quota *q = &s->quota;
	struct damos_walk w = { .s = s };
	struct damon_target *first;
	unsigned long resume_addr = 0;

	q->min_score = 0;
	if (trace_damos_before_apply_enabled())
		w.scheme_idx = damos_list_index(&ctx->schemes, &s->list);
	w.limited = damos_quota_is_set(q);
	if (w.limited) {
		if (damos_quota_used_up(q, q->charged_sz, align))
			return;
		damos_walk_prepare(ctx, &w);
	}

	first = damos_resume_target(ctx, q);
	if (!first)
		return;
	if (w.limited && first == q->charge_target_from)
		resume_addr = q->charge_addr_from;

	if (damos_walk_targets(ctx, &w, first, resume_addr) ||
	    !w.passed_over || damos_prepare_budget(q, w.limited, align) >= align)
		return;
	w.scored = false;
	damos_walk_targets(ctx, &w, first, resume_addr);
}

/*
 * Applies @s.  Under a time quota, the CPU time of the whole application
 * is charged, the choice of the regions (scores, histogram, cuts)
 * included: the actions charge their own time, the rest is charged here,
 * so that quota_ms bounds everything the scheme adds to monitoring.
 */
static void damos_apply_and_charge(struct damon_ctx *ctx, struct damos *s)
{
	struct damos_quota *q = &s->quota;
	bool timed = q->ms;
	u64 start_ns = 0, charged_ns, spent_ns;

	damos_update_quota(q, damos_now_jiffies());
	/* Only grows from here on: the window was updated above. */
	charged_ns = q->charged_ns;
	if (timed)
		start_ns = damos_action_clock_ns();
	damos_apply_scheme(ctx, s);
	if (!timed)
		return;
	spent_ns = damos_action_clock_ns() - start_ns;
	if (spent_ns > q->charged_ns - charged_ns)
		damos_quota_charge_ns(q, spent_ns -
				      (q->charged_ns - charged_ns));
}

/**
 * damos_apply_schemes() - Apply every active scheme to the regions.
 * @ctx:	The context.
 *
 * Called once per aggregation window, after the regions aged and before
 * they are adapted.  For each scheme whose watermarks let it act, the
 * quota window is updated, the score threshold that fills the quota is
 * found, and the action is applied to the eligible regions from where the
 * last exhausted window stopped.  Regions may be split at the resume
 * address and at the quota boundary.  A region acted on (by any action but
 * %DAMOS_STAT) restarts at age 0.
 *
 * Context: The kdamond thread; may sleep.
 */
void damos_apply_schemes(struct damon_ctx *ctx)
{
	struct damos *s;

	damon_for_each_scheme(s, ctx) {
		if (!damos_scheme_active(s))
			continue;
		damos_apply_and_charge(ctx, s);
	}
}
