// SPDX-License-Identifier: GPL-2.0
/*
 * DAMOS schemes and their filters: life cycle, validation, and the commit
 * of new settings into the schemes of a running context.
 *
 * How schemes are applied to the regions is in schemes-apply.c, the quota
 * arithmetic in quota.c and the activation by watermarks in watermarks.c.
 */

#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/slab.h>

#include "internal.h"

/* === Schemes === */

/**
 * damos_new_scheme() - Allocate a scheme.
 * @pattern:		Which regions it applies to.
 * @action:		What it does to them.
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
			       const struct damos_quota *quota,
			       const struct damos_watermarks *wmarks)
{
	struct damos *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->pattern = *pattern;
	s->action = action;
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
 * afresh.  Statistics, the count of
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

	s = damos_new_scheme(&src->pattern, src->action, &src->quota,
			     &src->wmarks);
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
