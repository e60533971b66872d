// SPDX-License-Identifier: GPL-2.0
/*
 * A fake operations backend for the KUnit suites of DAMON; see fake-ops.h.
 */

#include <linux/delay.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/spinlock.h>

#include "../internal.h"
#include "fake-ops.h"

struct damon_fake_hot_range {
	unsigned long start;
	unsigned long end;
	unsigned int every;
};

static DEFINE_SPINLOCK(damon_fake_lock);

/* Everything below is protected by damon_fake_lock. */
static struct damon_fake_hot_range damon_fake_hot[DAMON_FAKE_MAX_HOT_RANGES];
static unsigned int damon_fake_nr_hot;
static u64 damon_fake_cost_ns_per_byte;
static unsigned int damon_fake_applied_permil = 1000;
static unsigned int damon_fake_tried_permil = 1000;
static unsigned int damon_fake_unprepared_permil;
static unsigned long damon_fake_prepared_from = ULONG_MAX;
static unsigned long damon_fake_clock_check_sz = PAGE_SIZE;
static damon_fake_score_fn damon_fake_score;
static unsigned int damon_fake_quiet;
static unsigned int damon_fake_prepare_delay_ms;
static u64 damon_fake_clock;
static unsigned long damon_fake_nr_samples;
static unsigned long damon_fake_nr_last_samples;
static unsigned int damon_fake_nr_inits;
static unsigned int damon_fake_nr_cleanups;
static unsigned int damon_fake_nr_applied;
static struct damon_fake_applied damon_fake_records[DAMON_FAKE_MAX_APPLIED];

/* Moves the fake clock @ns forward, saturating.  Under damon_fake_lock. */
static void damon_fake_clock_advance_locked(u64 ns)
{
	damon_fake_clock += min(ns, U64_MAX - damon_fake_clock);
}

/* Charges the fake clock the cost of looking at @sz bytes.  Same lock. */
static void damon_fake_clock_charge_locked(unsigned long sz)
{
	u64 cost_ns;

	if (check_mul_overflow(damon_fake_cost_ns_per_byte, (u64)sz, &cost_ns))
		cost_ns = U64_MAX;
	damon_fake_clock_advance_locked(cost_ns);
}

/*
 * Bytes of a region of @sz, from its start, that an action reaches before
 * the fake clock passes @stop_ns (0: no limit), spending its cost per byte
 * on @tried_permil of them and reading the clock every
 * damon_fake_clock_check_sz bytes, as a real one reads it now and then:
 * so it overruns by less than that.  Under damon_fake_lock.
 */
static unsigned long damon_fake_time_fit_locked(unsigned long sz, u64 stop_ns,
						unsigned int tried_permil)
{
	u64 per_kb, left_ms_x, need;

	if (!stop_ns || !damon_fake_cost_ns_per_byte || !tried_permil)
		return sz;
	if (damon_fake_clock >= stop_ns)
		return 0;
	/* Nanoseconds per 1000 bytes of region. */
	if (check_mul_overflow(damon_fake_cost_ns_per_byte, (u64)tried_permil,
			       &per_kb))
		return PAGE_SIZE;
	if (check_mul_overflow(stop_ns - damon_fake_clock, 1000ULL, &left_ms_x))
		return sz;
	need = div64_u64(left_ms_x + per_kb - 1, per_kb);
	if (need >= sz || damon_fake_clock_check_sz >= sz)
		return sz;
	return min_t(u64, roundup(need, damon_fake_clock_check_sz), sz);
}

/* The bytes of a region of @sz the action tries, and finds unprepared. */
static unsigned long damon_fake_tried(unsigned long sz)
{
	return mult_frac(sz, damon_fake_tried_permil, 1000);
}

/* Regions from damon_fake_prepared_from on have nothing left to prepare. */
static unsigned long damon_fake_unprepared(unsigned long start,
					   unsigned long sz)
{
	if (start >= damon_fake_prepared_from)
		return 0;
	return mult_frac(damon_fake_tried(sz), damon_fake_unprepared_permil,
			 1000);
}

/*
 * The part of a region of @sz, from its start and in whole pages, that the
 * action may try within @b's byte budgets.  Under damon_fake_lock.
 */
static unsigned long damon_fake_budget_fit(unsigned long start,
					   unsigned long sz,
					   const struct damos_apply_budget *b)
{
	unsigned long fit = sz;

	while (fit &&
	       (damon_fake_tried(fit) - damon_fake_unprepared(start, fit) >
		b->max_sz ||
		damon_fake_unprepared(start, fit) > b->max_prepare_sz))
		fit = ALIGN_DOWN(fit - 1, PAGE_SIZE);
	return fit;
}

/* === The operations === */

static void damon_fake_init(struct damon_ctx *ctx)
{
	spin_lock(&damon_fake_lock);
	damon_fake_nr_inits++;
	spin_unlock(&damon_fake_lock);
}

static void damon_fake_cleanup(struct damon_ctx *ctx)
{
	spin_lock(&damon_fake_lock);
	damon_fake_nr_cleanups++;
	spin_unlock(&damon_fake_lock);
}

static void damon_fake_prepare_access_checks(struct damon_ctx *ctx)
{
	unsigned int delay_ms = xchg(&damon_fake_prepare_delay_ms, 0);
	struct damon_target *t;
	struct damon_region *r;
	unsigned long sz;

	if (delay_ms)
		msleep(delay_ms);

	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			sz = damon_region_sz(r);
			if (sz <= U32_MAX)
				r->sampling_addr = r->ar.start +
					get_random_u32_below(sz);
			else
				r->sampling_addr = r->ar.start +
					mul_u64_u32_shr(sz, get_random_u32(),
							32);
		}
	}
}

static bool damon_fake_accessed(unsigned long addr, unsigned long sample)
{
	const struct damon_fake_hot_range *h;
	unsigned int i;

	for (i = 0; i < damon_fake_nr_hot; i++) {
		h = &damon_fake_hot[i];
		if (addr >= h->start && addr < h->end)
			return sample % h->every == 0;
	}
	return false;
}

static unsigned int damon_fake_check_accesses(struct damon_ctx *ctx)
{
	struct damon_target *t;
	struct damon_region *r;
	unsigned int max_nr = 0;
	unsigned long sample;

	spin_lock(&damon_fake_lock);
	sample = damon_fake_nr_samples++;
	if (damon_window_last_sample(ctx))
		damon_fake_nr_last_samples++;
	damon_for_each_target(t, ctx) {
		damon_for_each_region(r, t) {
			if (damon_fake_accessed(r->sampling_addr, sample))
				r->nr_accesses++;
			max_nr = max(max_nr, r->nr_accesses);
		}
	}
	spin_unlock(&damon_fake_lock);
	return max_nr;
}

static unsigned int damon_fake_nr_quiet_samples(struct damon_ctx *ctx)
{
	return READ_ONCE(damon_fake_quiet);
}

static unsigned long damon_fake_apply_scheme(struct damon_ctx *ctx,
					     struct damon_target *t,
					     struct damon_region *r,
					     struct damos *s,
					     struct damos_apply_budget *b)
{
	unsigned long sz = damon_region_sz(r);
	struct damon_fake_applied *rec;
	unsigned long tried;

	spin_lock(&damon_fake_lock);
	/* Tries a share of each page; stops at the last page that fits. */
	sz = damon_fake_budget_fit(r->ar.start, sz, b);
	sz = min(sz, damon_fake_time_fit_locked(sz, b->stop_ns,
						damon_fake_tried_permil));
	if (sz < damon_region_sz(r))
		b->end = r->ar.start + sz;
	tried = damon_fake_tried(sz);
	b->sz_tried = tried;
	b->sz_prepared = damon_fake_unprepared(r->ar.start, sz);
	if (damon_fake_nr_applied < DAMON_FAKE_MAX_APPLIED) {
		rec = &damon_fake_records[damon_fake_nr_applied];
		rec->start = r->ar.start;
		rec->end = r->ar.start + sz;
		rec->nr_accesses = r->nr_accesses;
		rec->age = r->age;
		rec->scheme = s;
		rec->action = s->action;
	}
	if (damon_fake_nr_applied < UINT_MAX)
		damon_fake_nr_applied++;
	damon_fake_clock_charge_locked(tried);
	sz = mult_frac(sz, damon_fake_applied_permil, 1000);
	spin_unlock(&damon_fake_lock);
	return sz;
}

static int damon_fake_get_scheme_score(struct damon_ctx *ctx,
				       struct damon_target *t,
				       struct damon_region *r, struct damos *s)
{
	damon_fake_score_fn fn = READ_ONCE(damon_fake_score);

	if (fn)
		return fn(r, s);
	/* 0 would skip the region: keep the generic ranking, skip none. */
	return max(damos_generic_score(ctx, r, s), 1U);
}

/* Not registered: damon_fake_ops_select() hands it to a context directly. */
static const struct damon_operations damon_fake_ops = {
	.id = NR_DAMON_OPS,
	.init = damon_fake_init,
	.prepare_access_checks = damon_fake_prepare_access_checks,
	.check_accesses = damon_fake_check_accesses,
	.nr_quiet_samples = damon_fake_nr_quiet_samples,
	.apply_scheme = damon_fake_apply_scheme,
	.get_scheme_score = damon_fake_get_scheme_score,
	.cleanup = damon_fake_cleanup,
};

/* === Setting up === */

/**
 * damon_fake_ops_reset() - Forgets hot ranges, records and settings.
 *
 * Actions become free and fully applied, scores generic,
 * and every counter and the clock go back to 0.
 *
 * Context: Any context.  No kdamond using the backend may run.
 */
void damon_fake_ops_reset(void)
{
	spin_lock(&damon_fake_lock);
	damon_fake_nr_hot = 0;
	damon_fake_cost_ns_per_byte = 0;
	damon_fake_applied_permil = 1000;
	damon_fake_tried_permil = 1000;
	damon_fake_unprepared_permil = 0;
	damon_fake_prepared_from = ULONG_MAX;
	damon_fake_clock_check_sz = PAGE_SIZE;
	WRITE_ONCE(damon_fake_score, NULL);
	WRITE_ONCE(damon_fake_quiet, 0);
	WRITE_ONCE(damon_fake_prepare_delay_ms, 0);
	damon_fake_clock = 0;
	damon_fake_nr_samples = 0;
	damon_fake_nr_last_samples = 0;
	damon_fake_nr_inits = 0;
	damon_fake_nr_cleanups = 0;
	damon_fake_nr_applied = 0;
	spin_unlock(&damon_fake_lock);
}

/**
 * damon_fake_ops_select() - Resets the fake backend and makes a context
 * use it.
 * @ctx:	The context; it must not be running.
 *
 * The backend is not registered: production code cannot select it.
 *
 * Context: May sleep.
 * Return: 0.
 */
int damon_fake_ops_select(struct damon_ctx *ctx)
{
	damon_fake_ops_reset();
	ctx->ops = damon_fake_ops;
	return 0;
}

/**
 * damon_fake_ops_add_hot_range() - Makes an address range look accessed.
 * @start:	First address of the range.
 * @end:	First address past the range.
 * @every:	The range is found accessed in one sample of @every (1: in
 *		every sample), counted over all samples of the backend.
 *
 * A region counts an access in a sample when its sampling address, picked
 * at random inside it, is in a hot range; a region wholly inside one thus
 * counts exactly as the range says.  The first matching range wins.
 *
 * Context: Any context.
 * Return: 0 on success, -EINVAL for an empty range or @every of 0, -ENOSPC
 * if %DAMON_FAKE_MAX_HOT_RANGES are set already.
 */
int damon_fake_ops_add_hot_range(unsigned long start, unsigned long end,
				 unsigned int every)
{
	int err = 0;

	if (start >= end || !every)
		return -EINVAL;
	spin_lock(&damon_fake_lock);
	if (damon_fake_nr_hot < DAMON_FAKE_MAX_HOT_RANGES) {
		damon_fake_hot[damon_fake_nr_hot].start = start;
		damon_fake_hot[damon_fake_nr_hot].end = end;
		damon_fake_hot[damon_fake_nr_hot].every = every;
		damon_fake_nr_hot++;
	} else {
		err = -ENOSPC;
	}
	spin_unlock(&damon_fake_lock);
	return err;
}

/**
 * damon_fake_ops_set_quiet_samples() - Sets what nr_quiet_samples() answers.
 * @nr:	Samples kdamond may sleep through before each one it takes (0, the
 *	default: none).
 *
 * Context: Any context.
 */
void damon_fake_ops_set_quiet_samples(unsigned int nr)
{
	WRITE_ONCE(damon_fake_quiet, nr);
}

/**
 * damon_fake_ops_delay_next_prepare() - Makes the next prepare_access_checks()
 * take a while.
 * @ms:	Milliseconds it sleeps (uninterruptibly) before its work.
 *
 * For tests of what happens while kdamond is busy between two sleeps.
 *
 * Context: Any context.
 */
void damon_fake_ops_delay_next_prepare(unsigned int ms)
{
	WRITE_ONCE(damon_fake_prepare_delay_ms, ms);
}

/**
 * damon_fake_ops_set_cost_ns_per_byte() - Makes actions seem to take time.
 * @ns:	Nanoseconds the fake clock advances per byte tried.
 *
 * Context: Any context.
 */
void damon_fake_ops_set_cost_ns_per_byte(u64 ns)
{
	spin_lock(&damon_fake_lock);
	damon_fake_cost_ns_per_byte = ns;
	spin_unlock(&damon_fake_lock);
}

/**
 * damon_fake_ops_set_applied_permil() - Sets how much of a region an action
 * really acts on.
 * @permil:	Per-thousand of the region size apply_scheme() returns
 *		(1000, the default: all of it).
 *
 * Context: Any context.
 */
void damon_fake_ops_set_applied_permil(unsigned int permil)
{
	spin_lock(&damon_fake_lock);
	damon_fake_applied_permil = min(permil, 1000U);
	spin_unlock(&damon_fake_lock);
}

/**
 * damon_fake_ops_set_tried_permil() - Sets how much of a region an action
 * reports having worked on (and spends its cost per byte on).
 * @permil:	Per-thousand of the region size apply_scheme() reports
 *		through its sz_tried argument (1000, the default: all).
 *
 * Context: Any context.
 */
void damon_fake_ops_set_tried_permil(unsigned int permil)
{
	spin_lock(&damon_fake_lock);
	damon_fake_tried_permil = min(permil, 1000U);
	spin_unlock(&damon_fake_lock);
}

/**
 * damon_fake_ops_set_unprepared_permil() - Sets how much of what an action
 * tries it reports it found unprepared and only prepared.
 * @permil:	Per-thousand of sz_tried that apply_scheme() reports through
 *		sz_prepared (0, the default: none).
 *
 * Context: Any context.
 */
void damon_fake_ops_set_unprepared_permil(unsigned int permil)
{
	spin_lock(&damon_fake_lock);
	damon_fake_unprepared_permil = min(permil, 1000U);
	spin_unlock(&damon_fake_lock);
}

/**
 * damon_fake_ops_set_prepared_from() - Makes regions from an address on
 * report nothing unprepared.
 * @addr:	Start address from which a region's pages count as prepared
 *		whatever damon_fake_ops_set_unprepared_permil() says
 *		(%ULONG_MAX, the default: none).
 *
 * Context: Any context.
 */
void damon_fake_ops_set_prepared_from(unsigned long addr)
{
	spin_lock(&damon_fake_lock);
	damon_fake_prepared_from = addr;
	spin_unlock(&damon_fake_lock);
}

/**
 * damon_fake_ops_set_clock_check_sz() - Sets how often actions read the clock.
 * @sz:	Bytes of a region an action goes through between two readings
 *	of the fake clock against the time it must stop at (%PAGE_SIZE,
 *	the default; %ULONG_MAX: only at the start of each region).
 *
 * Context: Any context.
 */
void damon_fake_ops_set_clock_check_sz(unsigned long sz)
{
	spin_lock(&damon_fake_lock);
	damon_fake_clock_check_sz = max(sz, PAGE_SIZE);
	spin_unlock(&damon_fake_lock);
}

/**
 * damon_fake_ops_set_score_fn() - Sets how get_scheme_score() scores.
 * @fn:	The scoring function, or NULL for damos_generic_score().
 *
 * Context: Any context.
 */
void damon_fake_ops_set_score_fn(damon_fake_score_fn fn)
{
	WRITE_ONCE(damon_fake_score, fn);
}

/* === The fake clock === */

/**
 * damon_fake_ops_clock_ns() - Reads the fake clock.
 *
 * Meant to be handed to damos_set_test_clock().  It only moves when
 * apply_scheme() is called with a cost set, or by
 * damon_fake_ops_advance_clock_ns().
 *
 * Context: Any context.
 * Return: the fake time, in nanoseconds.
 */
u64 damon_fake_ops_clock_ns(void)
{
	u64 now;

	spin_lock(&damon_fake_lock);
	now = damon_fake_clock;
	spin_unlock(&damon_fake_lock);
	return now;
}

/**
 * damon_fake_ops_advance_clock_ns() - Moves the fake clock forward.
 * @ns:	Nanoseconds to add; the clock saturates at %U64_MAX.
 *
 * Context: Any context.
 */
void damon_fake_ops_advance_clock_ns(u64 ns)
{
	spin_lock(&damon_fake_lock);
	damon_fake_clock_advance_locked(ns);
	spin_unlock(&damon_fake_lock);
}

/* === What happened === */

/**
 * damon_fake_ops_nr_samples() - Counts check_accesses() calls.
 *
 * Context: Any context.
 * Return: the number of samples taken since the last reset.
 */
unsigned long damon_fake_ops_nr_samples(void)
{
	unsigned long nr;

	spin_lock(&damon_fake_lock);
	nr = damon_fake_nr_samples;
	spin_unlock(&damon_fake_lock);
	return nr;
}

/**
 * damon_fake_ops_nr_last_samples() - Counts the check_accesses() calls in
 * which damon_window_last_sample() was true.
 *
 * Context: Any context.
 * Return: the number of window-ending samples since the last reset.
 */
unsigned long damon_fake_ops_nr_last_samples(void)
{
	/* Written under damon_fake_lock; a word is read whole. */
	return READ_ONCE(damon_fake_nr_last_samples);
}

/**
 * damon_fake_ops_nr_inits() - Counts init() calls.
 *
 * Context: Any context.
 * Return: the number of init() calls since the last reset.
 */
unsigned int damon_fake_ops_nr_inits(void)
{
	unsigned int nr;

	spin_lock(&damon_fake_lock);
	nr = damon_fake_nr_inits;
	spin_unlock(&damon_fake_lock);
	return nr;
}

/**
 * damon_fake_ops_nr_cleanups() - Counts cleanup() calls.
 *
 * Context: Any context.
 * Return: the number of cleanup() calls since the last reset.
 */
unsigned int damon_fake_ops_nr_cleanups(void)
{
	unsigned int nr;

	spin_lock(&damon_fake_lock);
	nr = damon_fake_nr_cleanups;
	spin_unlock(&damon_fake_lock);
	return nr;
}

/**
 * damon_fake_ops_nr_applied() - Counts apply_scheme() calls.
 *
 * Context: Any context.
 * Return: the number of calls since the last reset, recorded or not.
 */
unsigned int damon_fake_ops_nr_applied(void)
{
	unsigned int nr;

	spin_lock(&damon_fake_lock);
	nr = damon_fake_nr_applied;
	spin_unlock(&damon_fake_lock);
	return nr;
}

/**
 * damon_fake_ops_applied() - Reads the record of one apply_scheme() call.
 * @i:		Index of the call since the last reset, from 0.
 * @rec:	Where the record is copied.
 *
 * Context: Any context.
 * Return: true if the call was recorded (@i below both
 * damon_fake_ops_nr_applied() and %DAMON_FAKE_MAX_APPLIED), else false.
 */
bool damon_fake_ops_applied(unsigned int i, struct damon_fake_applied *rec)
{
	bool found;

	spin_lock(&damon_fake_lock);
	found = i < damon_fake_nr_applied && i < DAMON_FAKE_MAX_APPLIED;
	if (found)
		*rec = damon_fake_records[i];
	spin_unlock(&damon_fake_lock);
	return found;
}
