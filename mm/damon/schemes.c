// SPDX-License-Identifier: GPL-2.0
/*
 * DAMOS schemes: their life cycle, validation and commit, and the engine
 * that applies them to the regions at the end of each aggregation interval.
 *
 * The quota arithmetic lives in quota.c and the activation by watermarks in
 * watermarks.c; this file walks the regions.
 */

#include <linux/align.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/slab.h>

#include "internal.h"

#include <trace/events/damon.h>

/* === Schemes === */

/**
 * damos_new_scheme() - Allocate a scheme.
 * @pattern:		Which regions it applies to.
 * @action:		What it does to them.
 * @apply_interval_us:	How often it is applied, in microseconds; 0 means
 *			every aggregation interval.
 * @quota:		Its quota; only the user fields (@quota->ms, sz,
 *			reset_interval_ms and the weights) are copied, goals
 *			are added with damos_add_quota_goal().  NULL means
 *			no quota.
 * @wmarks:		Its watermarks; only the user fields are copied.  NULL
 *			means always active.
 *
 * The scheme has no filters, no goals, zero statistics and a fresh engine
 * state.  It is not validated: see damos_validate_scheme().
 *
 * Context: Process context; may sleep.
 * Return: the scheme, not on any context, or NULL if out of memory.
 */
struct damos *damos_new_scheme(const struct damos_access_pattern *pattern,
			       enum damos_action action,
			       unsigned long apply_interval_us,
			       const struct damos_quota *quota,
			       const struct damos_watermarks *wmarks)
{
	struct damos *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->pattern = *pattern;
	s->action = action;
	s->apply_interval_us = apply_interval_us;
	if (quota) {
		s->quota.ms = quota->ms;
		s->quota.sz = quota->sz;
		s->quota.reset_interval_ms = quota->reset_interval_ms;
		s->quota.weight_sz = quota->weight_sz;
		s->quota.weight_nr_accesses = quota->weight_nr_accesses;
		s->quota.weight_age = quota->weight_age;
	}
	INIT_LIST_HEAD(&s->quota.goals);
	if (wmarks) {
		s->wmarks.metric = wmarks->metric;
		s->wmarks.interval_us = wmarks->interval_us;
		s->wmarks.high = wmarks->high;
		s->wmarks.mid = wmarks->mid;
		s->wmarks.low = wmarks->low;
	}
	s->wmarks.activated = s->wmarks.metric == DAMOS_WMARK_NONE;
	INIT_LIST_HEAD(&s->filters);
	INIT_LIST_HEAD(&s->list);
	return s;
}

/**
 * damon_add_scheme() - Add a scheme to a context.
 * @ctx:	The context.
 * @s:		A scheme from damos_new_scheme(), on no context.
 *
 * Context: kdamond of @ctx is not running, or this runs in it.
 */
void damon_add_scheme(struct damon_ctx *ctx, struct damos *s)
{
	list_add_tail(&s->list, &ctx->schemes);
}

/**
 * damon_destroy_scheme() - Unlink a scheme from its context and free it,
 * with its filters and goals.
 * @s:	The scheme.
 *
 * Context: As damon_add_scheme().
 */
void damon_destroy_scheme(struct damos *s)
{
	struct damos_quota_goal *g, *next_g;
	struct damos_filter *f, *next_f;

	damos_for_each_quota_goal_safe(g, next_g, &s->quota)
		damos_destroy_quota_goal(g);
	damos_for_each_filter_safe(f, next_f, s)
		damos_destroy_filter(f);
	list_del(&s->list);
	kfree(s);
}

/**
 * damos_validate_scheme() - Check the user fields of a scheme.
 * @s:	The scheme.
 *
 * Context: Any context.
 * Return: 0 if valid; -EINVAL for an inverted size, access or age range,
 * an unknown action, watermark metric, goal metric or filter type,
 * watermarks not ordered high >= mid >= low, free memory marks above 1000
 * per-thousand, or a quota without a reset interval.
 */
int damos_validate_scheme(const struct damos *s)
{
	const struct damos_access_pattern *p = &s->pattern;
	const struct damos_watermarks *wm = &s->wmarks;
	const struct damos_quota_goal *g;
	const struct damos_filter *f;

	if (p->min_sz_region > p->max_sz_region ||
	    p->min_nr_accesses > p->max_nr_accesses ||
	    p->min_age_region > p->max_age_region)
		return -EINVAL;
	if ((unsigned int)s->action >= NR_DAMOS_ACTIONS)
		return -EINVAL;

	if ((unsigned int)wm->metric >= NR_DAMOS_WMARK_METRICS)
		return -EINVAL;
	if (wm->high < wm->mid || wm->mid < wm->low)
		return -EINVAL;
	if (wm->metric == DAMOS_WMARK_FREE_MEM_RATE && wm->high > 1000)
		return -EINVAL;

	if (damos_quota_is_set(&s->quota) && !s->quota.reset_interval_ms)
		return -EINVAL;
	damos_for_each_quota_goal(g, &s->quota)
		if ((unsigned int)g->metric >= NR_DAMOS_QUOTA_GOAL_METRICS)
			return -EINVAL;

	damos_for_each_filter(f, s)
		if ((unsigned int)f->type >= NR_DAMOS_FILTER_TYPES)
			return -EINVAL;
	return 0;
}

/* === Filters === */

/**
 * damos_new_filter() - Allocate a scheme filter.
 * @type:	What the filter looks at.
 * @matching:	True to exclude memory of @type, false to exclude the rest.
 *
 * Context: Process context; may sleep.
 * Return: the filter, on no scheme, or NULL if out of memory.
 */
struct damos_filter *damos_new_filter(enum damos_filter_type type,
				      bool matching)
{
	struct damos_filter *f = kmalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return NULL;
	f->type = type;
	f->matching = matching;
	INIT_LIST_HEAD(&f->list);
	return f;
}

/**
 * damos_add_filter() - Add a filter to a scheme.
 * @s:	The scheme.
 * @f:	A filter from damos_new_filter(), on no scheme.
 *
 * Context: As damon_add_scheme().
 */
void damos_add_filter(struct damos *s, struct damos_filter *f)
{
	list_add_tail(&f->list, &s->filters);
}

/**
 * damos_destroy_filter() - Unlink a filter from its scheme and free it.
 * @f:	The filter.
 *
 * Context: As damon_add_scheme().
 */
void damos_destroy_filter(struct damos_filter *f)
{
	list_del(&f->list);
	kfree(f);
}

static bool damos_filter_matches_folio(const struct damos_filter *f,
				       const struct folio *folio)
{
	switch (f->type) {
	case DAMOS_FILTER_TYPE_ANON:
		return folio_test_anon(folio);
	default:
		return false;
	}
}

/**
 * damos_filter_out_folio() - Whether a scheme's filters exclude a folio.
 * @s:		The scheme.
 * @folio:	The folio, which the caller keeps from being freed.
 *
 * Context: Any context.
 * Return: true if some filter of @s excludes @folio from the action.
 */
bool damos_filter_out_folio(const struct damos *s, const struct folio *folio)
{
	const struct damos_filter *f;

	damos_for_each_filter(f, s)
		if (damos_filter_matches_folio(f, folio) == f->matching)
			return true;
	return false;
}

/* === Start and commit === */

/**
 * damos_start_schemes() - Reset the engine state of the schemes when
 * kdamond starts.
 * @ctx:	The context.
 *
 * Charge windows, resume point, tuned quota and watermark state start
 * afresh, and the schemes are due at once.  Statistics, the count of
 * exhausted windows and the measured throughput are kept: they stay true.
 *
 * Context: kdamond of @ctx is not running, or this runs in it.
 */
void damos_start_schemes(struct damon_ctx *ctx)
{
	struct damos *s;

	damon_for_each_scheme(s, ctx) {
		struct damos_quota *q = &s->quota;

		q->esz = 0;
		q->charged_sz = 0;
		q->charged_ns = 0;
		q->charged_from = 0;
		q->charge_target_from = NULL;
		q->charge_addr_from = 0;
		q->min_score = 0;
		q->esz_bp = 0;
		damos_quota_goals_start(q);
		s->wmarks.activated = s->wmarks.metric == DAMOS_WMARK_NONE;
		s->wmarks.next_check_us = 0;
		s->next_apply_us = 0;
	}
}

/* A copy of the user fields, filters and goals of @src; NULL if no memory. */
static struct damos *damos_clone_scheme(const struct damos *src)
{
	const struct damos_quota_goal *g;
	const struct damos_filter *f;
	struct damos_quota_goal *new_g;
	struct damos_filter *new_f;
	struct damos *s;

	s = damos_new_scheme(&src->pattern, src->action, src->apply_interval_us,
			     &src->quota, &src->wmarks);
	if (!s)
		return NULL;
	damos_for_each_filter(f, src) {
		new_f = damos_new_filter(f->type, f->matching);
		if (!new_f)
			goto fail;
		damos_add_filter(s, new_f);
	}
	damos_for_each_quota_goal(g, &src->quota) {
		new_g = damos_new_quota_goal(g->metric, g->target_value);
		if (!new_g)
			goto fail;
		new_g->current_value = g->current_value;
		damos_add_quota_goal(&s->quota, new_g);
	}
	return s;
fail:
	damon_destroy_scheme(s);
	return NULL;
}

/* Keep the measurement of goals that stay at their position and metric. */
static void damos_keep_goal_state(struct damos_quota *old,
				  struct damos_quota *new)
{
	struct list_head *o = old->goals.next;
	struct damos_quota_goal *g, *old_g;

	damos_for_each_quota_goal(g, new) {
		if (o == &old->goals)
			return;
		old_g = list_entry(o, struct damos_quota_goal, list);
		if (old_g->metric == g->metric) {
			g->last_psi_total = old_g->last_psi_total;
			if (g->metric != DAMOS_QUOTA_USER_INPUT)
				g->current_value = old_g->current_value;
		}
		o = o->next;
	}
}

/*
 * Moves the user fields, filters and goals of @src into @s, keeping the
 * engine state and statistics of @s.  @src is left without filters or goals.
 */
static void damos_take_settings(struct damos *s, struct damos *src,
				u64 now_us)
{
	struct damos_quota_goal *g, *next_g;
	struct damos_filter *f, *next_f;
	struct damos_quota *q = &s->quota;

	s->pattern = src->pattern;
	s->action = src->action;
	s->apply_interval_us = src->apply_interval_us;

	q->ms = src->quota.ms;
	q->sz = src->quota.sz;
	q->reset_interval_ms = src->quota.reset_interval_ms;
	q->weight_sz = src->quota.weight_sz;
	q->weight_nr_accesses = src->quota.weight_nr_accesses;
	q->weight_age = src->quota.weight_age;
	/* A lowered size quota takes effect in the current window already. */
	if (q->sz && q->esz > q->sz)
		q->esz = q->sz;
	damos_keep_goal_state(q, &src->quota);
	damos_for_each_quota_goal_safe(g, next_g, q)
		damos_destroy_quota_goal(g);
	list_splice_init(&src->quota.goals, &q->goals);

	damos_for_each_filter_safe(f, next_f, s)
		damos_destroy_filter(f);
	list_splice_init(&src->filters, &s->filters);

	s->wmarks.metric = src->wmarks.metric;
	s->wmarks.interval_us = src->wmarks.interval_us;
	s->wmarks.high = src->wmarks.high;
	s->wmarks.mid = src->wmarks.mid;
	s->wmarks.low = src->wmarks.low;
	/* A shortened interval should not wait for the old one to end. */
	s->wmarks.next_check_us = min(s->wmarks.next_check_us,
				      damos_deadline_us(now_us,
							s->wmarks.interval_us));
}

/**
 * damos_commit_schemes() - Make the schemes of a context those of another.
 * @dst:	The context to update, possibly running.
 * @src:	The context with the wanted schemes.
 *
 * The n-th scheme of @dst takes the user fields, filters and goals of the
 * n-th scheme of @src, keeping its quota charge state, tuned quota,
 * throughput history, watermark state and statistics.  Schemes of @src
 * beyond those of @dst are added as new; schemes of @dst beyond those of
 * @src are destroyed.  Everything that may fail is done before @dst is
 * touched, so on failure @dst is unchanged.
 *
 * Context: kdamond of @dst is not running, or this runs in it; may sleep.
 * Return: 0 on success, -EINVAL if a scheme of @src is invalid, -ENOMEM.
 */
int damos_commit_schemes(struct damon_ctx *dst, const struct damon_ctx *src)
{
	struct damos *s, *next, *new;
	struct list_head *pos;
	LIST_HEAD(staged);
	int err;

	damon_for_each_scheme(s, src) {
		err = damos_validate_scheme(s);
		if (err)
			return err;
	}
	damon_for_each_scheme(s, src) {
		new = damos_clone_scheme(s);
		if (!new)
			goto nomem;
		list_add_tail(&new->list, &staged);
	}

	pos = dst->schemes.next;
	list_for_each_entry_safe(new, next, &staged, list) {
		if (pos == &dst->schemes) {
			list_move_tail(&new->list, &dst->schemes);
			continue;
		}
		s = list_entry(pos, struct damos, list);
		damos_take_settings(s, new, dst->now_us);
		damon_destroy_scheme(new);
		pos = pos->next;
	}
	while (pos != &dst->schemes) {
		s = list_entry(pos, struct damos, list);
		pos = pos->next;
		damon_destroy_scheme(s);
	}
	return 0;

nomem:
	list_for_each_entry_safe(new, next, &staged, list)
		damon_destroy_scheme(new);
	return -ENOMEM;
}

/* === Applying schemes === */

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
 * Context: Any context.
 * Return: true if the size, access count and age of @r are all within the
 * ranges of @s->pattern.
 */
bool damos_pattern_matches(const struct damon_ctx *ctx,
			   const struct damon_region *r, const struct damos *s)
{
	const struct damos_access_pattern *p = &s->pattern;

	return damos_pattern_matches_but_age(p, r) &&
		r->age >= p->min_age_region && r->age <= p->max_age_region;
}

/* Whether @s acts only on regions made idle ahead (see damos_idle_ahead()). */
static bool damos_needs_idle_ahead(const struct damon_ctx *ctx,
				   const struct damos *s)
{
	return ctx->ops.idle_ahead && s->action != DAMOS_STAT;
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
	if (damos_needs_idle_ahead(ctx, s) && !r->idled_ahead)
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
	if (score < q->min_score)
		return 0;
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
 * bytes charged, or made idle ahead), or its time is spent.
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
 * Bytes the action may only prepare (see &damos_apply_budget.sz_unjudged)
 * or make idle ahead in what is left of the window.  That costs about what
 * sampling does, a twentieth of paging out, so a byte budget bought with
 * the time quota at the action's throughput would starve it: under a time
 * quota only time bounds it (see damos_quota_stop_ns()).  Under a size or
 * tuned quota alone, at most the effective quota's worth of bytes.
 */
static unsigned long damos_prepare_budget(const struct damos_quota *q,
					  bool limited, unsigned long align)
{
	if (!limited || q->ms)
		return ULONG_MAX;
	if (q->esz <= q->idled_sz)
		return 0;
	return ALIGN_DOWN(q->esz - q->idled_sz, align);
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
 * Acts on @r, judging at most @budget bytes of it, and charges the quota
 * with what was judged.  The stat action tries every byte, so @r is cut
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
		.max_unjudged_sz = damos_prepare_budget(q, w->limited, align),
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
		b.sz_unjudged = min3(b.sz_unjudged, b.sz_tried,
				     damos_budget_and_folio(b.max_unjudged_sz));
		b.sz_tried = b.sz_unjudged +
			min(b.sz_tried - b.sz_unjudged,
			    damos_budget_and_folio(b.max_sz));
		applied = min(applied, b.sz_tried - b.sz_unjudged);
		cpu_ns = damos_action_clock_ns() - start_ns;
		damos_quota_record_throughput(q, b.sz_tried, cpu_ns);
		/* The rest, not acted on, is judged on its own from now on. */
		stop = damos_cut_at_stop(t, r, b.end, align);
		/*
		 * What the action left in place (pages it found in use, say)
		 * is judged afresh: the region must show the pattern for its
		 * minimum age again before it is acted on again.
		 */
		if (damon_region_sz(r) == stop - r->ar.start) {
			r->age = 0;
			/* Checked page by page: as good as idled ahead. */
			r->idled_ahead = true;
		}
	}
	damos_update_stat(s, b.sz_tried - b.sz_unjudged, applied);

	if (!w->limited)
		return false;
	/* What was only prepared is paid for with time. */
	q->charged_sz += b.sz_tried - b.sz_unjudged;
	q->idled_sz += b.sz_unjudged;
	/* Counted in region bytes, as the histogram it came from. */
	if (above)
		w->hi_left -= min(w->hi_left, stop - r->ar.start);
	if (!damos_quota_used_up(q, q->charged_sz, align) &&
	    damos_prepare_budget(q, true, align) >= align)
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
 * Walks the targets circularly from the resume point, ending with the part
 * of the first target before it, so that every eligible byte gets its turn
 * however small the quota.
 */
static void damos_apply_scheme(struct damon_ctx *ctx, struct damos *s)
{
	unsigned long align = max(ctx->min_region_sz, 1UL);
	struct damos_quota *q = &s->quota;
	struct damos_walk w = { .s = s };
	struct damon_target *first, *t;
	unsigned long resume_addr = 0, from;

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

	t = first;
	from = resume_addr;
	do {
		if (damos_walk_target(ctx, t, &w, from, ULONG_MAX))
			return;
		from = 0;
		t = list_is_last(&t->list, &ctx->targets) ?
			list_first_entry(&ctx->targets, struct damon_target,
					 list) :
			list_next_entry(t, list);
	} while (t != first);
	if (resume_addr)
		damos_walk_target(ctx, first, &w, 0, resume_addr);
}

/*
 * Idling ahead.  Pageout checks each page again before it pages it out and
 * keeps those accessed since they were last made idle (see paddr.c).  A
 * page DAMON never sampled was last made idle never: the fault that brought
 * it in counts as its access, and the first pass over a region that just
 * came of age would page out nothing, only make its pages idle for a second
 * pass one minimum age later.  Instead, the pages of a region that shows
 * the scheme's pattern for half its minimum age are made idle then, once,
 * and the action only takes regions made idle ahead, so that it finds out
 * which pages were used since.  (A region the budget reached late is taken
 * at the next application: its sampled pages showed no access for the
 * whole minimum age already.)  Free memory found there does not count, as
 * it may be filled with young pages later.  The bytes made idle ahead are
 * not charged to the quota, as nothing was done to them yet, and are bounded
 * as the action's unjudged ones are (see damos_prepare_budget()); the time
 * it took is charged to the window, so that the time quota bounds all the
 * CPU time the action costs, but left out of the throughput its byte budget
 * is bought at.  The action goes first in each window, and idling ahead
 * gets what time it leaves.
 */
static bool damos_wants_idle_ahead(struct damon_ctx *ctx,
				   struct damon_target *t,
				   struct damon_region *r, struct damos *s)
{
	if (r->idled_ahead || r->age < s->pattern.min_age_region / 2 ||
	    !damos_pattern_matches_but_age(&s->pattern, r))
		return false;
	/*
	 * Nor where the operations see nothing to act on (free memory, for
	 * pageout): nothing is made idle there, so the region is never marked
	 * and would be walked again in every window.
	 */
	return !ctx->ops.get_scheme_score ||
		ctx->ops.get_scheme_score(ctx, t, r, s) > 0;
}

static void damos_idle_ahead(struct damon_ctx *ctx, struct damos *s)
{
	unsigned long align = max(ctx->min_region_sz, 1UL);
	struct damos_quota *q = &s->quota;
	bool limited = damos_quota_is_set(q);
	struct damos_apply_budget b;
	struct damon_target *t;
	struct damon_region *r;
	unsigned long end, stop;
	u64 start_ns, cpu_ns;

	if (!damos_needs_idle_ahead(ctx, s))
		return;
	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			if (!damos_wants_idle_ahead(ctx, t, r, s))
				continue;
			b = (struct damos_apply_budget){
				.max_sz = damos_prepare_budget(q, limited,
							       align),
				.end = r->ar.end,
			};
			if (b.max_sz < align || damos_time_quota_spent(q))
				return;
			end = r->ar.end;
			start_ns = damos_action_clock_ns();
			b.stop_ns = damos_quota_stop_ns(q, start_ns);
			ctx->ops.idle_ahead(ctx, t, r, s, &b);
			cpu_ns = damos_action_clock_ns() - start_ns;
			/* Work done for the action: the time quota pays it. */
			damos_quota_charge_ns(q, cpu_ns);
			q->idled_sz += min(b.sz_tried, b.max_sz);
			/* The budget may run out inside @r: its lower part. */
			stop = damos_cut_at_stop(t, r, b.end, align);
			if (stop == r->ar.start || r->ar.end != stop)
				return;
			/* Free memory may be filled later, by young pages. */
			if (b.sz_tried)
				r->idled_ahead = true;
			if (stop < end)
				return;
		}
	}
}

/* Whether @s is to be applied now; advances its next application time. */
static bool damos_is_due(const struct damon_ctx *ctx, struct damos *s)
{
	if (!s->apply_interval_us)
		return true;
	if (ctx->now_us < s->next_apply_us)
		return false;
	/* Keep the average period even if aggregations do not divide it. */
	s->next_apply_us = damos_deadline_us(s->next_apply_us,
					     s->apply_interval_us);
	if (s->next_apply_us <= ctx->now_us)
		s->next_apply_us = damos_deadline_us(ctx->now_us,
						     s->apply_interval_us);
	return true;
}

/*
 * Applies @s and makes it idle ahead.  Under a time quota, the CPU time of
 * the whole application is charged, the choice of the regions (scores,
 * histogram, cuts) included: the actions charge their own time, the rest
 * is charged here, so that quota_ms bounds everything the scheme adds to
 * monitoring.
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
	damos_idle_ahead(ctx, s);
	if (!timed)
		return;
	spent_ns = damos_action_clock_ns() - start_ns;
	if (spent_ns > q->charged_ns - charged_ns)
		damos_quota_charge_ns(q, spent_ns -
				      (q->charged_ns - charged_ns));
}

/**
 * damos_apply_schemes() - Apply every due, active scheme to the regions.
 * @ctx:	The context.
 *
 * Called once per aggregation interval, before the regions are adapted.
 * For each scheme whose apply interval passed and whose watermarks let it
 * act, the quota window is updated, the score threshold that fills the
 * quota is found, and the action is applied to the eligible regions from
 * where the last exhausted window stopped.  Regions may be split at the
 * resume address and at the quota boundary.  A region acted on (by any
 * action but %DAMOS_STAT) restarts at age 0.
 *
 * Context: The kdamond thread; may sleep.
 */
void damos_apply_schemes(struct damon_ctx *ctx)
{
	struct damos *s;

	damon_for_each_scheme(s, ctx) {
		if (!damos_is_due(ctx, s) || !damos_scheme_active(s))
			continue;
		damos_apply_and_charge(ctx, s);
	}
}
